"""``nc.perturb`` and builds on hostile inputs (issue 17): nothing overwritten or dropped silently, every bad
value a one-line error naming the row id and the field, never a traceback from deep inside."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import datasets
import numpy as np
import pytest

import noisecraft as nc
from noisecraft.building.noising import NoiseJob
from noisecraft.errors import ConfigError, InputError, NoisecraftError
from noisecraft.sources.registry import demo_file, load_source

QUESTIONS = {"id": ["a", "b"], "question": ["When did the war end?", "Who wrote the famous novel?"]}


def keyboard():
    return nc.noise("keyboard", rate=0.5)


def test_a_challenge_set_is_not_perturbed_again_over_its_own_columns():
    once = nc.perturb(datasets.Dataset.from_dict(QUESTIONS), keyboard(), ["question"], seed=1)
    assert once["original_question"] == QUESTIONS["question"]
    with pytest.raises(ConfigError, match=r"already has a column 'original_question'.*chain"):
        nc.perturb(once, nc.noise("swap"), ["question"], seed=2)  # would lose the clean text


@pytest.mark.parametrize("column", ["original_question", "noise_edits", "noise_seed"])
def test_existing_output_columns_are_never_overwritten(column):
    dataset = datasets.Dataset.from_dict({**QUESTIONS, column: ["mine", "mine"]})
    with pytest.raises(ConfigError, match=f"already has a column '{column}'"):
        nc.perturb(dataset, keyboard(), ["question"])


def test_zero_rows_give_an_empty_set_with_the_output_columns():
    features = datasets.Features({"id": datasets.Value("string"), "question": datasets.Value("string")})
    empty = datasets.Dataset.from_dict({"id": [], "question": []}, features=features)
    out = nc.perturb(empty, keyboard(), ["question"])
    full = nc.perturb(datasets.Dataset.from_dict(QUESTIONS, features=features), keyboard(), ["question"])
    assert out.num_rows == 0 and out.features == full.features


def test_a_field_given_twice_is_refused_in_python_and_on_the_command_line(tmp_path):
    with pytest.raises(ConfigError, match="field 'question' is given more than once"):
        nc.perturb(datasets.Dataset.from_dict(QUESTIONS), keyboard(), ["question", "question"])
    with pytest.raises(ConfigError, match="more than once"):
        nc.build("demo", "keyboard", tmp_path / "out", fields=["question", "question"], progress=False)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    for fields, message in ((["question", "question"], "given more than once"), (["answers"], "is not a text column")):
        result = subprocess.run([sys.executable, "-m", "noisecraft.cli", "build", "--source", "demo", "--fields", *fields,
                                 "--out", str(tmp_path / "cli")], capture_output=True, text=True, env=env, timeout=300)
        assert result.returncode != 0 and message in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert not (tmp_path / "cli").exists() or not any((tmp_path / "cli").rglob("*.parquet"))


def test_a_column_that_is_not_text_is_named_as_such(tmp_path):
    data = load_source("demo", "en")
    dataset = datasets.Dataset.from_list(list(data.rows), features=data.features)
    with pytest.raises(ConfigError, match=r"field 'answers' of the dataset is not a text column"):
        nc.perturb(dataset, keyboard(), ["answers"], labels=data.info.labels)
    with pytest.raises(ConfigError, match="field 'answers' of demo is not a text column"):
        nc.build("demo", "keyboard", tmp_path / "out", fields=["answers"], progress=False)
    numbers = datasets.Dataset.from_dict({"id": ["a"], "count": [3]})
    with pytest.raises(ConfigError, match="field 'count' of the dataset is not a text column"):
        nc.perturb(numbers, keyboard(), ["count"])


def test_a_missing_value_names_the_row_and_the_field():
    dataset = datasets.Dataset.from_dict({"id": ["a", "b"], "question": ["When did it end?", None]})
    with pytest.raises(InputError, match=r"row id 'b': field 'question' is NoneType None, not text"):
        nc.perturb(dataset, keyboard(), ["question"])


def test_a_missing_field_is_named():
    with pytest.raises(ConfigError, match="field 'title' is not a column of the dataset; columns: id, question"):
        nc.perturb(datasets.Dataset.from_dict(QUESTIONS), keyboard(), ["title"])


@pytest.mark.parametrize("seed", [1.5, "3", True, None])
def test_a_seed_that_is_not_an_integer_is_refused(seed):
    with pytest.raises(ConfigError, match="seed must be an integer"):
        nc.perturb(datasets.Dataset.from_dict(QUESTIONS), keyboard(), ["question"], seed=seed)
    with pytest.raises(ConfigError, match="seed must be an integer"):
        keyboard()(["a text"], seed=seed)


def test_numpy_integer_seeds_are_plain_seeds():
    model = keyboard()
    assert model.augment(["the war ended in spring"], seed=np.int64(7)) == model.augment(["the war ended in spring"], 7)
    assert NoiseJob(model, np.int32(7), ("question",), nc.LabelLayout()).seed == 7


@pytest.mark.parametrize("texts, message", [
    ([None], r"texts, id '0': 'text' is NoneType None, not text"),
    ([3], r"texts, id '0': 'text' is int 3, not text"),
    ([["a", "b"]], r"texts, id '0': 'text' is list \['a', 'b'\], not text"),
    (["ok", "bad \ud800 text"], r"texts, id '1': 'text' holds a lone surrogate U\+D800 at offset 4"),
])
def test_the_python_api_names_the_bad_text(texts, message):
    with pytest.raises(InputError, match=message):
        keyboard()(texts)


def test_a_lone_surrogate_in_a_source_file_names_the_row_and_the_field(tmp_path):
    squad = json.loads(demo_file().read_text(encoding="utf-8"))
    qa = squad["data"][0]["paragraphs"][0]["qas"][0]
    qa["question"] = "What \ud83d happened?"  # JSON allows the escape; it is not valid Unicode
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(squad), encoding="utf-8")
    with pytest.raises(NoisecraftError, match=rf"id '{qa['id']}'.*'question'.*lone surrogate U\+D83D"):
        nc.build("squad", "keyboard", tmp_path / "out", data_file=path, progress=False)


def test_fields_are_a_list():
    with pytest.raises(ConfigError, match=r"fields=\['question'\]"):
        nc.perturb(datasets.Dataset.from_dict(QUESTIONS), keyboard(), "question")


def test_perturbed_then_chained_keeps_one_clean_text():
    """What to do instead of perturbing twice: a chain keeps the clean text and one log against it."""
    dataset = datasets.Dataset.from_dict(QUESTIONS)
    out = nc.perturb(dataset, nc.noise("swap(rate=1) | keyboard(rate=0.5)"), ["question"], seed=3)
    assert out["original_question"] == QUESTIONS["question"] and out["question"] != QUESTIONS["question"]
