"""A model-based noise defined here, through the public extension point (:class:`ModelNoise` and
``nc.register_noise``), builds end to end with nothing else: the base gives it the parameter group, a head bound
to its task, the seed rule, provenance and a label check it cannot skip. The docs' "add a noise model" page
shows :class:`PredictionMark` as its worked example."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from typing import ClassVar

import pyarrow.parquet as pq
import pytest

import noisecraft as nc
from noisecraft.core.edits import Edit, Noised
from noisecraft.core.params import param
from noisecraft.dataset.repo import read_manifest
from noisecraft.errors import ConfigError
from noisecraft.noise_models import registry
from noisecraft.noise_models.base import NoiseInput
from noisecraft.noise_models.model_base import ModelNoise

from tiny_models import ONE_WORD, tiny_model


@dataclass(frozen=True)
class PredictionMark(ModelNoise):
    """Appends the classifier's prediction, in the dataset's label names, to each text."""

    model: str = param("", "the sequence classifier: a Hugging Face Hub id or a folder saved with save_pretrained()",
                       file="model")
    marker: str = param(" ({label})", "what is appended; {label} becomes the predicted label")

    name: ClassVar[str] = "prediction-mark"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = ""
    param_defaults: ClassVar[dict[str, int]] = {"max_length": 64}

    def describe(self) -> str:
        return f"The prediction of `{self.head.fingerprint()['model']['model']}` is appended to each text."

    def prepare(self, batch: NoiseInput, progress: bool = True) -> None:
        self.head.run([(text,) for text in batch.texts], progress)  # the whole split at once: batches fill up

    def apply(self, batch: NoiseInput) -> list[Noised]:
        mapping = self.label_mapping()  # the model's labels, matched by name to the dataset's (None: no names)
        names = mapping.dataset_labels if mapping else tuple(self.head.id2label.values())
        out = []
        for text, probabilities in zip(batch.texts, self.head.run([(text,) for text in batch.texts])):
            predicted = max(range(len(probabilities)), key=probabilities.__getitem__)
            label = names[mapping.targets[predicted]] if mapping else names[predicted]
            mark = self.marker.replace("{label}", label)
            out.append(Noised(text + mark, (Edit(len(text), len(text), "", mark, self.name),)))
        return out


@pytest.fixture
def registered(monkeypatch):
    """``PredictionMark`` registered as a user would, for this test only (the registry is left as it was)."""
    monkeypatch.setattr(registry, "MODELS", dict(registry.MODELS))
    monkeypatch.setattr(registry, "LATEST", dict(registry.LATEST))
    monkeypatch.setattr(registry, "_REGISTERED", dict(registry._REGISTERED))
    nc.register_noise(PredictionMark)


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache"))


def sst2_csv(tmp_path):
    path = tmp_path / "sst2.csv"
    rows = [("a walk by the river", 1), ("a dull film", 0), ("the river is calm", 1), ("nothing here", 0)]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sentence", "label"])
        writer.writerows(rows)
    return path


def test_a_model_noise_defined_in_a_test_builds_end_to_end(registered, tmp_path):
    folder = str(tiny_model("cls-one-word-sst2"))
    [built] = nc.build("csv", f"prediction-mark(model={folder})", tmp_path / "out", data_file=sst2_csv(tmp_path),
                       fields=["sentence"], label_field="label", label_names=["negative", "positive"], progress=False)
    rows = pq.read_table(built.path).to_pylist()
    assert [row["sentence"] for row in rows] == [
        "a walk by the river (positive)", "a dull film (negative)", "the river is calm (positive)",
        "nothing here (negative)"]
    assert all((ONE_WORD in row["original_sentence"]) == (row["label"] == 1) for row in rows)
    manifest = read_manifest(tmp_path / "out")
    [entry] = manifest["configs"].values()
    provenance = entry["provenance"]
    assert provenance["model"]["model"]["revision"].startswith("sha256:")  # the folder by its content
    assert provenance["labels"]["how"] == "by name"
    assert provenance["labels"]["map"] == {"negative": "negative", "positive": "positive"}


def test_the_label_check_cannot_be_skipped(registered, tmp_path):
    mnli = str(tiny_model("cls-mnli"))
    with pytest.raises(ConfigError, match=r"prediction-mark@1 model=.*cls-mnli: labels of model cls-mnli .* do not "
                                          r"fit the dataset's \(negative, positive\)"):
        nc.build("csv", f"prediction-mark(model={mnli})", tmp_path / "out", data_file=sst2_csv(tmp_path),
                 fields=["sentence"], label_field="label", label_names=["negative", "positive"], progress=False)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.parquet"))
    with pytest.raises(TypeError, match="label check of ModelNoise cannot be replaced or skipped"):

        @dataclass(frozen=True)
        class Unchecked(PredictionMark):
            def for_labels(self, names):
                return self


def test_the_group_is_declared_once_and_a_default_changes_by_class_attribute(registered):
    names = [spec.name for spec in PredictionMark.param_specs()]
    assert names == ["model", "revision", "marker", "max_length", "device", "dtype", "token_budget"]
    defaults = {spec.name: spec.default for spec in PredictionMark.param_specs()}
    assert defaults["max_length"] == 64  # the base's own default is 128, which the word-salad models keep
    assert {spec.name: spec.default for spec in registry.model_class("drop").param_specs()}["max_length"] == 128
    model = nc.noise("prediction-mark", model=str(tiny_model("cls-one-word-sst2")))
    assert model.max_length == 64 and model.head.head.max_length <= 64
    with pytest.raises(ConfigError, match=r"prediction-mark@1 needs model="):
        nc.noise("prediction-mark")


def test_the_model_enters_the_seed_by_its_resolved_identity(registered, tmp_path):
    folder = tiny_model("cls-one-word-sst2")
    model = nc.noise("prediction-mark", model=str(folder))
    identity = model.seed_params()["model"]
    assert identity == {"model": folder.name, "revision": model.head.provenance()["model"]["revision"]}
    assert identity["revision"].startswith("sha256:")
    copy = tmp_path / "elsewhere"
    copy.mkdir()
    for path in folder.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    moved = nc.noise("prediction-mark", model=str(copy))
    assert moved.seed_params()["model"]["revision"] == identity["revision"]  # content, not path
