"""GLUE tasks (MRPC, MNLI, QNLI, SST-2, QQP) from the Hub or their original TSV files."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noisecraft.core.citations import GLUE_CITATION
from noisecraft.core.schema import FeatureSpec, class_label, value
from noisecraft.errors import InputError
from noisecraft.sources.base import (
    SourceAdapter,
    SourceInfo,
    is_test_split,
    require_text,
    tsv_fields,
    tsv_header,
    tsv_records,
)


@dataclass(frozen=True)
class GlueTask:
    """One GLUE task: Hub columns, label names, and how its TSV columns map onto them."""

    config: str
    text_columns: tuple[str, ...]
    label_names: tuple[str, ...]
    #: TSV column -> Hub column, for labelled files (train/dev) and unlabelled test files.
    tsv_columns: dict[str, str]
    test_tsv_columns: dict[str, str]
    tsv_label: str | None
    tsv_index: str | None
    default_field: str
    license: str
    default_split: str = "validation"


TASKS = {
    "mrpc": GlueTask("mrpc", ("sentence1", "sentence2"), ("not_equivalent", "equivalent"),
                     {"#1 String": "sentence1", "#2 String": "sentence2"},
                     {"#1 String": "sentence1", "#2 String": "sentence2"},
                     "Quality", None, "sentence1", "other"),
    "mnli": GlueTask("mnli", ("premise", "hypothesis"), ("entailment", "neutral", "contradiction"),
                     {"sentence1": "premise", "sentence2": "hypothesis"},
                     {"sentence1": "premise", "sentence2": "hypothesis"},
                     "gold_label", "index", "hypothesis", "other", "validation_matched"),
    "qnli": GlueTask("qnli", ("question", "sentence"), ("entailment", "not_entailment"),
                     {"question": "question", "sentence": "sentence"},
                     {"question": "question", "sentence": "sentence"},
                     "label", "index", "sentence", "cc-by-sa-4.0"),
    "sst2": GlueTask("sst2", ("sentence",), ("negative", "positive"),
                     {"sentence": "sentence"}, {"sentence": "sentence"},
                     "label", "index", "sentence", "other"),
    "qqp": GlueTask("qqp", ("question1", "question2"), ("not_duplicate", "duplicate"),
                    {"question1": "question1", "question2": "question2"},
                    {"question1": "question1", "question2": "question2"},
                    "is_duplicate", "id", "question1", "other"),
}


def glue_info(task: str) -> SourceInfo:
    """Source facts for ``glue/<task>``."""
    spec = TASKS[task]
    return SourceInfo(
        name=f"glue/{task}", hub_id="nyu-mll/glue", task_category="text-classification", license=spec.license,
        citation=GLUE_CITATION, default_split=spec.default_split, default_fields=(spec.default_field,),
        pair_fields=spec.text_columns if len(spec.text_columns) == 2 else None,  # type: ignore[arg-type]
        class_label="label",
        pretty=f"GLUE {task.upper()}",
    )


def glue_features(task: str) -> FeatureSpec:
    """The Hub features of a GLUE task, plus the stable ``id``."""
    spec = TASKS[task]
    columns: FeatureSpec = {c: value("string") for c in spec.text_columns}
    columns["label"] = class_label(spec.label_names)
    columns["idx"] = value("int32")
    columns["id"] = value("string")
    return columns


def _label(path: Path, line: int, spec: GlueTask, value: str) -> int:
    """A label by name or by number (SST-2, QNLI and MRPC write numbers), checked."""
    if value in spec.label_names:
        return spec.label_names.index(value)
    if value.isascii() and value.isdigit() and int(value) < len(spec.label_names):
        return int(value)
    raise InputError(path, f"unknown label {value!r}; expected one of {', '.join(spec.label_names)}", f"line {line}")


def _index(path: Path, line: int, column: str, value: str) -> int:
    """The row's index column: a non-negative integer that fits the Hub's int32 ``idx``."""
    if not (value.isascii() and value.isdigit()) or int(value) >= 2**31:
        raise InputError(path, f"'{column}' must be a non-negative integer below 2**31, got {value!r}", f"line {line}")
    return int(value)


def _has_labels(path: Path, header: list[str], spec: GlueTask, split: str) -> bool:
    """Whether rows carry labels, after checking the header: a labelled split must have the label
    column (a renamed or missing one would silently make every label -1); only a test split may
    come without."""
    labelled = spec.tsv_label in header or not is_test_split(split)
    mapping = spec.tsv_columns if labelled else spec.test_tsv_columns
    required = tuple(mapping) + ((spec.tsv_label,) if labelled and spec.tsv_label else ())
    missing = [c for c in required if c not in header]
    if missing:
        why = (f" (the {split!r} split must be labelled; only a test split may come without: split= / --split test)"
               if spec.tsv_label in missing else "")
        raise InputError(path, f"wrong header: missing column(s) {', '.join(missing)}; found {', '.join(header)}{why}",
                         "line 1")
    return labelled


def glue_rows(task: str, path: Path, split: str | None = None) -> Iterator[dict[str, Any]]:
    """Rows of an original GLUE TSV for ``split`` (default: the task's), streamed in file order. Only a test split
    may be unlabelled; its rows get label -1, as on the Hub. Rows are read by :func:`tsv_records` (csv, tab,
    no quoting) so a line holds exactly one row, whatever characters its sentences contain."""
    spec = TASKS[task]
    split = split or spec.default_split
    records = tsv_records(path)
    header = tsv_header(path, records, ())
    labelled = _has_labels(path, header, spec, split)
    mapping = spec.tsv_columns if labelled else spec.test_tsv_columns
    index_column = spec.tsv_index if spec.tsv_index in header else None
    first_line: dict[int, int] = {}
    for line, values in records:
        raw = tsv_fields(path, line, header, values)
        row: dict[str, Any] = {column: require_text(path, f"line {line}", tsv_col, raw[tsv_col])
                               for tsv_col, column in mapping.items()}
        row["label"] = _label(path, line, spec, raw[spec.tsv_label]) if labelled else -1  # type: ignore[index]
        row["idx"] = _index(path, line, index_column, raw[index_column]) if index_column else len(first_line)
        if row["idx"] in first_line:
            raise InputError(path, f"duplicate {index_column} {row['idx']} (first on line {first_line[row['idx']]}): "
                                   "every row needs its own id", f"line {line}")
        first_line[row["idx"]] = line
        row["id"] = str(row["idx"])
        yield row
    if not first_line:
        raise InputError(path, "no rows after the header")


def parse_glue_tsv(task: str, path: Path, split: str | None = None) -> list[dict[str, Any]]:
    """Every row of an original GLUE TSV (:func:`glue_rows`), checked."""
    return list(glue_rows(task, path, split))


class GlueAdapter(SourceAdapter):
    """A GLUE task: the Hub copy (``nyu-mll/glue``) or its original TSV file."""

    def __init__(self, task: str) -> None:
        self.task = task
        self.info = glue_info(task)

    def feature_spec(self) -> FeatureSpec:
        return glue_features(self.task)

    def read_file(self, path: Path, lang: str, split: str) -> Iterator[dict[str, Any]]:
        return glue_rows(self.task, path, split)

    def hub_config(self, lang: str) -> str | None:
        return self.task

    def hub_row_id(self, row: dict[str, Any], position: int) -> str:
        return str(row["idx"])
