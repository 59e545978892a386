"""The contract every registered source adapter keeps, checked on data the repository ships (the way
tests/test_golden.py runs over every noise model): a new adapter needs a sample here, in its original
release format, and then gets these checks for free.

For each adapter: rows load from the sample; ids are strings and unique; every row has exactly the
adapter's features and every value fits its feature; the label layout is valid (default and pair fields
are text columns, class labels in range, answer spans inside their context, one BIO tag per token,
entity strings derived from the tags); and a build's NoiseJob accepts the default fields. The generic sources
(a table or Hub dataset with a declared layout) keep the same contract, checked on tables written from the same
samples.
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

from noisecraft.building.noising import NoiseJob, check_text_fields
from noisecraft.core.iob import is_valid_bio
from noisecraft.core.labels import entity_strings
from noisecraft.noise_models.registry import create
from noisecraft.sources.base import SourceData
from noisecraft.sources.registry import ADAPTERS, demo_file, load_source
from noisecraft.sources.squad import squad_rows
from noisecraft.sources.table import TableLayout
from noisecraft.sources.wikiann import TAGS, rahimi_rows

DATA = Path(__file__).parent / "data"
SOURCES = DATA / "sources"

#: adapter name -> (language, split or None for the default, file in the original format or None for built-in data)
SAMPLES: dict[str, tuple[str, str | None, Path | None]] = {
    "squad": ("en", None, demo_file()),
    "xquad": ("en", None, DATA / "xquad_slice.en.json"),
    "glue/mrpc": ("en", None, SOURCES / "glue_mrpc.tsv"),
    "glue/mnli": ("en", None, SOURCES / "glue_mnli.tsv"),
    "glue/qnli": ("en", None, SOURCES / "glue_qnli.tsv"),
    "glue/sst2": ("en", None, SOURCES / "glue_sst2.tsv"),
    "glue/qqp": ("en", None, SOURCES / "glue_qqp.tsv"),
    "xnli": ("de", None, SOURCES / "xnli.tsv"),
    "wikiann": ("en", None, DATA / "wikiann_sample_en.txt"),
    "demo": ("en", None, None),
    "coles-words": ("en", None, SOURCES / "opinion_lexicon"),  # a lexicon folder; adjectives by WordNet
}


def test_every_registered_adapter_has_a_shipped_sample():
    assert set(SAMPLES) == set(ADAPTERS)


def _valid_bio(tags: list[str]) -> bool:
    return is_valid_bio(tags) and all(t == "O" or t[:2] in ("B-", "I-") for t in tags)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_adapter_contract(name: str, monkeypatch: pytest.MonkeyPatch):
    lang, split, path = SAMPLES[name]
    if name == "coles-words":  # WordNet (Debian's, copied) on NLTK's path
        from coles_data import wordnet_on_path

        wordnet_on_path(monkeypatch)
    data = load_source(name, lang, split, path)
    assert data.split == (split or data.info.default_split) and lang in (data.info.languages or ("en",))
    check_contract(data, data.info.default_fields)


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


#: generic source -> (how to write its table from a shipped sample, its declared layout, the fields to noise)
GENERIC_SAMPLES = {
    "tsv": (lambda tmp: SOURCES / "glue_mrpc.tsv", TableLayout.declare("Quality", "not_equivalent,equivalent"),
            ("#1 String",)),
    "jsonl-answers": (lambda tmp: _jsonl(tmp / "qa.jsonl", list(squad_rows(demo_file()))),
                      TableLayout.declare(span_labels="context:answers", id_field="id"), ("question", "context")),
    "jsonl-tags": (lambda tmp: _jsonl(tmp / "ner.jsonl", [
        {"tokens": row["tokens"], "tags": [TAGS[t] for t in row["ner_tags"]]}
        for row in rahimi_rows(DATA / "wikiann_sample_en.txt", "en")]), TableLayout.declare(token_labels="tokens:tags"),
        ("tokens",)),
}


@pytest.mark.parametrize("name", sorted(GENERIC_SAMPLES))
def test_generic_source_contract(name: str, tmp_path: Path):
    write, layout, fields = GENERIC_SAMPLES[name]
    check_contract(load_source(name.split("-")[0], "en", None, write(tmp_path), layout=layout), fields)


def check_contract(data: SourceData, fields: tuple[str, ...]) -> None:
    """The contract of loaded rows: unique string ids, exactly the declared features, valid labels, and fields a
    build accepts."""
    info, features = data.info, data.features
    rows = list(data.rows)
    assert rows, info.name

    ids = [row["id"] for row in rows]
    assert all(isinstance(i, str) and i for i in ids) and len(set(ids)) == len(ids), "ids must be unique strings"
    assert "id" in features and features["id"].dtype == "string"
    for row in rows:
        assert set(row) == set(features), (row["id"], sorted(set(row) ^ set(features)))
    encoded = datasets.Dataset.from_list(rows, features=features)  # every value fits its feature
    assert encoded.num_rows == len(rows) and encoded["id"] == ids

    layout = info.labels
    check_text_fields(data.feature_spec, fields, layout, info.name)
    if layout.pair_fields:
        check_text_fields(data.feature_spec, layout.pair_fields, layout, info.name)
        assert set(fields) <= set(layout.pair_fields)
    if layout.class_label:
        label = features[layout.class_label]
        assert isinstance(label, datasets.ClassLabel)
        assert all(-1 <= row[layout.class_label] < label.num_classes for row in rows)
    for text_column, span_column in layout.span_labels.items():
        for row in rows:
            answers = row[span_column]
            assert len(answers["text"]) == len(answers["answer_start"])
            for text, start in zip(answers["text"], answers["answer_start"]):
                assert row[text_column][start : start + len(text)] == text, (row["id"], text)
    if layout.token_tags:
        tokens_column, tags_column = layout.token_tags
        names = layout.tag_names or tuple(features[tags_column].feature.names)
        for row in rows:
            assert len(row[tokens_column]) == len(row[tags_column]), row["id"]
            assert all(token and not any(c.isspace() for c in token) for token in row[tokens_column]), row["id"]
            assert _valid_bio([names[t] for t in row[tags_column]]), row["id"]
            if layout.entity_strings:
                assert row[layout.entity_strings] == entity_strings(row[tokens_column], row[tags_column], names)

    NoiseJob(create("keyboard", lang=data.lang), 0, fields, layout, dataset=info.name)  # a build accepts them
