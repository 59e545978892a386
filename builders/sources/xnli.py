"""XNLI: premise/hypothesis pairs in 15 languages, from the Hub, ``xnli.{dev,test}.tsv``, or (the ``train`` split)
XNLI-MT 1.0's ``multinli.train.<lang>.tsv``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noisecraft.core.citations import XNLI_CITATION
from noisecraft.core.schema import FeatureSpec, class_label, value
from noisecraft.errors import InputError
from noisecraft.sources.base import SourceAdapter, SourceInfo, require_text, tsv_rows

LABELS = ("entailment", "neutral", "contradiction")
#: XNLI-MT 1.0's training files (machine-translated MultiNLI) spell the third label this way.
MT_LABELS = {"entailment": 0, "neutral": 1, "contradictory": 2, "contradiction": 2}

XNLI = SourceInfo(
    name="xnli", hub_id="facebook/xnli", task_category="text-classification", license="cc-by-nc-4.0",
    citation=XNLI_CITATION, default_split="test", default_fields=("hypothesis",),
    pair_fields=("premise", "hypothesis"),
    class_label="label",
    languages=("ar", "bg", "de", "el", "en", "es", "fr", "hi", "ru", "sw", "th", "tr", "ur", "vi", "zh"),
    pretty="XNLI",
)


def xnli_features() -> FeatureSpec:
    """The Hub features of XNLI, plus the stable ``id``."""
    return {"premise": value("string"), "hypothesis": value("string"), "label": class_label(LABELS), "id": value("string")}


def xnli_rows(path: Path, lang: str) -> Iterator[dict[str, Any]]:
    """Rows of one language from an XNLI 1.0 ``xnli.{dev,test}.tsv`` file, streamed in file order.

    The file is read as GLUE reads its TSVs (:func:`tsv_rows`: csv, tab, no quoting, streamed), and
    every line is checked, including those of other languages."""
    count = 0
    present: set[str] = set()
    for line, raw in tsv_rows(path, ("language", "gold_label", "sentence1", "sentence2")):
        present.add(raw["language"])
        if raw["language"] != lang:
            continue
        if raw["gold_label"] not in LABELS:
            raise InputError(path, f"unknown gold_label {raw['gold_label']!r}; expected one of {', '.join(LABELS)}",
                             f"line {line}")
        yield {
            "premise": require_text(path, f"line {line}", "sentence1", raw["sentence1"]),
            "hypothesis": require_text(path, f"line {line}", "sentence2", raw["sentence2"]),
            "label": LABELS.index(raw["gold_label"]),
            "id": str(count),
        }
        count += 1
    if not count:
        raise InputError(path, f"no rows for language {lang!r}; languages in the file: {', '.join(sorted(present))}")


def parse_xnli_tsv(path: Path, lang: str) -> list[dict[str, Any]]:
    """Every row of one language of an XNLI 1.0 file (:func:`xnli_rows`), checked."""
    return list(xnli_rows(path, lang))


def xnli_mt_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of an XNLI-MT 1.0 training file (``premise<TAB>hypo<TAB>label``, one language per file), streamed in
    file order."""
    count = 0
    for line, raw in tsv_rows(path, ("premise", "hypo", "label")):
        if raw["label"] not in MT_LABELS:
            raise InputError(path, f"unknown label {raw['label']!r}; expected one of {', '.join(MT_LABELS)}", f"line {line}")
        yield {
            "premise": require_text(path, f"line {line}", "premise", raw["premise"]),
            "hypothesis": require_text(path, f"line {line}", "hypo", raw["hypo"]),
            "label": MT_LABELS[raw["label"]],
            "id": str(count),
        }
        count += 1
    if not count:
        raise InputError(path, "no rows after the header")


class XnliAdapter(SourceAdapter):
    """XNLI in one language; ids are positions within that language, as the Hub rows are ordered."""

    info = XNLI

    def feature_spec(self) -> FeatureSpec:
        return xnli_features()

    def read_file(self, path: Path, lang: str, split: str) -> Iterator[dict[str, Any]]:
        # both XNLI files (dev and test) are labelled, so the label column is required for any split; the training
        # split is XNLI-MT's per-language file
        return xnli_mt_rows(path) if split == "train" else xnli_rows(path, lang)

    def hub_config(self, lang: str) -> str | None:
        return lang
