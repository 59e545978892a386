"""The JSON-form features of noisecraft.core.schema are datasets' own, and a local-file build never imports datasets.

Every source's features and every challenge set's output features (each registered model's per-row columns
included) must give exactly what ``datasets.Features`` gives: the same ``to_dict()`` and the same Arrow schema,
metadata bytes included, since the parquet files carry it and ``load_dataset`` reads the features back from it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import datasets
import pyarrow as pa
import pytest

from noisecraft.building.pipeline import output_features
from noisecraft.core.schema import arrow_schema, arrow_type, class_label, class_names, list_of, to_features, value
from noisecraft.noise_models.registry import VERSIONS
from noisecraft.sources.registry import ADAPTERS


def _same_as_datasets(spec: dict) -> None:
    features = to_features(spec)
    assert features.to_dict() == spec
    ours, theirs = arrow_schema(spec), features.arrow_schema
    assert ours.equals(theirs, check_metadata=True)
    assert ours.metadata == theirs.metadata  # the bytes the parquet files carry


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_every_source_declares_what_datasets_declares(name: str):
    spec = ADAPTERS[name].feature_spec()
    _same_as_datasets(spec)
    assert json.loads(json.dumps(spec)) == spec  # plain JSON values, nothing datasets-specific


@pytest.mark.parametrize("key", sorted(VERSIONS), ids=lambda key: f"{key[0]}@{key[1]}")
def test_every_models_output_features_are_what_datasets_builds(key):
    model_class = VERSIONS[key]

    class Probe:  # output_features reads only the declared per-row columns
        row_columns = model_class.row_columns

    for source in ("squad", "glue/mrpc", "wikiann"):
        spec = ADAPTERS[source].feature_spec()
        text = "tokens" if source == "wikiann" else next(c for c, f in spec.items() if f.get("dtype") == "string")
        _same_as_datasets(output_features(spec, [text], Probe()))  # type: ignore[arg-type]


def test_kinds_and_their_arrow_types():
    assert arrow_type(value("bool")) == pa.bool_() and arrow_type(value("large_string")) == pa.large_string()
    assert arrow_type(class_label(["a", "b"])) == pa.int64()
    assert arrow_type(list_of({"x": value("int32")})) == pa.list_(pa.struct([("x", pa.int32())]))
    assert class_names({"label": class_label(["no", "yes"])}, "label") == ["no", "yes"]
    assert class_names({"label": value("int64")}, "label") is None and class_names({}, None) is None
    for unknown in ({"dtype": "no-such-type", "_type": "Value"}, {"dtype": "list_", "_type": "Value"},
                    {"dtype": "schema", "_type": "Value"}, {"_type": "Audio"},
                    {"feature": value("string"), "length": 3, "_type": "List"}):
        with pytest.raises(ValueError, match="unsupported"):
            arrow_type(unknown)


def test_source_data_still_gives_datasets_features():
    from noisecraft.sources.registry import load_source

    data = load_source("xnli", "de", None, Path(__file__).parent / "data" / "sources" / "xnli.tsv")
    assert isinstance(data.features, datasets.Features) and data.features["label"].names[0] == "entailment"


def test_a_local_file_build_does_not_import_datasets(tmp_path):
    """``import datasets`` costs more than a small build: a build from a local file must not pay it."""
    code = ("import sys\n"
            "import noisecraft as nc\n"
            f"nc.build('demo', 'keyboard', {str(tmp_path / 'out')!r}, progress=False)\n"
            "print('datasets' in sys.modules)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip() == "False", result.stdout + result.stderr
    assert datasets.load_dataset(str(tmp_path / "out"), split="validation").num_rows > 0
