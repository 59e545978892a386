"""The Hub path (``datasets.load_dataset(hub_id, config, split=...)``) gives the same challenge set as
the original release file. The Hub is replaced by a ``load_dataset`` that serves the same rows with
the Hub's columns (no ``id`` where the Hub has none); the code under test is the real adapter."""

from __future__ import annotations

import datasets
import pytest

from noisecraft.building.pipeline import ConfigRequest, build_config, write_card
from noisecraft.dataset.repo import DatasetRepo
from noisecraft.sources.registry import load_source

from conftest import corpus

CASES = [
    ("xquad", "de", "xquad/xquad.de.json", ("google/xquad", "xquad.de", "validation")),
    ("glue/mrpc", "en", "glue/MRPC/dev.tsv", ("nyu-mll/glue", "mrpc", "validation")),
    ("glue/qnli", "en", "glue/QNLI/dev.tsv", ("nyu-mll/glue", "qnli", "validation")),
    ("xnli", "hi", "xnli/hf_dummy_XNLI-1.0/xnli.dev.tsv", ("facebook/xnli", "hi", "test")),
    ("wikiann", "en", "wikiann/rahimi_format_slices/en/test", ("unimelb-nlp/wikiann", "en", "test")),
]


@pytest.mark.parametrize(("source", "lang", "relative", "hub_call"), CASES)
def test_hub_and_release_file_give_the_same_parquet(tmp_path, monkeypatch, source, lang, relative, hub_call):
    local = load_source(source, lang, data_file=corpus(relative))
    hub_has_id = source == "xquad"
    features = datasets.Features({k: v for k, v in local.features.items() if k != "id" or hub_has_id})
    hub_rows = [{k: v for k, v in row.items() if k in features} for row in local.rows]
    calls = []

    def fake_load_dataset(path, name=None, split=None, **kwargs):
        calls.append((path, name, split))
        return datasets.Dataset.from_list(hub_rows, features=features)

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    paths = []
    for name, data_file in (("file", corpus(relative)), ("hub", None)):
        repo = DatasetRepo(tmp_path / name, "1.0.0")
        request = ConfigRequest(source=source, lang=lang, noise="keyboard", data_file=data_file, seed=11)
        paths.append(build_config(repo, request, progress=False).path)
        write_card(repo)  # commits the staged config
    assert calls == [hub_call]
    assert paths[0].read_bytes() == paths[1].read_bytes()
