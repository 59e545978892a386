"""The one-shape contracts: one import name, the Python API, declared parameters and their text form,
noise chains, the spec/runtime split, and sharded, batch-independent output."""

from __future__ import annotations

import json
import pickle
import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noisecraft as nc
from noisecraft.building import pipeline
from noisecraft.building.pipeline import ConfigRequest, build_all
from noisecraft.core.edits import Edit, apply_edits
from noisecraft.dataset.repo import read_manifest
from noisecraft.errors import ConfigError
from noisecraft.noise_models import base
from noisecraft.noise_models.keyboard import KeyboardTypos
from noisecraft.noise_models.registry import NOISE_MODELS, format_noise, parse_noise
from noisecraft.sources.registry import load_source

from conftest import corpus

REPO = Path(__file__).resolve().parents[1]
PAIRS = REPO / "tests" / "data" / "natural_pairs.tsv"


def edits_of(row: dict, field: str) -> list[Edit]:
    return [Edit(e["start"], e["end"], e["original"], e["replacement"], e["kind"])
            for e in row["noise_edits"] if e["field"] == field]


@pytest.mark.slow
def test_the_wheel_installs_only_the_noisecraft_import_name(tmp_path):
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    [wheel] = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"noisecraft", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1]
                                                 + ".dist-info"}
    for expected in ("noisecraft/mining/wikiedits.py", "noisecraft/dataset_cards/templates/challenge_set.md",
                     "noisecraft/keyboards/qwertz-de.toml", "noisecraft/noise_models/keyboard.py"):
        assert expected in names


def test_importing_noisecraft_loads_no_heavy_library():
    code = "import sys, noisecraft; print(sorted(m for m in ('datasets', 'pyarrow', 'torch', 'jiwer') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "[]", result.stderr


def test_three_lines_for_the_common_jobs():
    kb = nc.noise("keyboard", lang="de", rate=0.25)
    assert kb.noise_id == "keyboard@2" and kb.params() == {"rate": 0.25, "layout": "qwertz-de", "mode": "noiseqa", "lang": "de"}
    texts = ["Wie viele Punkte erzielte die Mannschaft im ersten Jahr?"] * 3
    once = kb.augment(texts, seed=0)
    assert once == kb.augment(texts, seed=0) and len(set(once)) > 1  # ids default to positions
    assert kb.augment(texts, seed=0, ids=["q"] * 3) == [once[0]] * 3 or len(set(kb.augment(texts, ids=["q"] * 3))) == 1
    [noised] = kb(texts[:1], seed=0)
    assert apply_edits(texts[0], noised.edits) == noised.text == once[0]


def test_perturb_any_dataset_equals_the_build_and_is_independent_of_num_proc(tmp_path):
    data = load_source("demo", "en")
    rows = list(data.rows)
    dataset = datasets.Dataset.from_list(rows, features=data.features)
    labels = data.info.labels
    model = nc.noise("keyboard(rate=0.5)")
    one = nc.perturb(dataset, model, fields=["question", "context"], seed=4, labels=labels)
    two = nc.perturb(dataset, model, fields=["question", "context"], seed=4, labels=labels, num_proc=2, batch_size=7)
    assert one.to_list() == two.to_list()
    [built] = build_all(tmp_path, [ConfigRequest(source="demo", noise=model, seed=4, fields=("question", "context"))],
                        progress=False)
    assert one.to_list() == pq.read_table(built.path).to_pylist()
    for row in one:
        for text, start in zip(row["answers"]["text"], row["answers"]["answer_start"]):
            assert row["context"][start: start + len(text)] == text


def test_perturb_takes_another_id_column_and_refuses_duplicates():
    dataset = datasets.Dataset.from_dict({"key": [5, 6], "text": ["a fine sentence here", "another sentence there"]})
    out = nc.perturb(dataset, nc.noise("swap", rate=1.0), fields=["text"], id_column="key")
    assert out["key"] == [5, 6] and "id" not in out.column_names and out["text"] != out["original_text"]
    with pytest.raises(ConfigError, match="duplicate values"):
        nc.perturb(datasets.Dataset.from_dict({"id": ["a", "a"], "text": ["x y", "z w"]}), "swap", fields=["text"])


def test_perturb_warns_about_dropped_rows():
    dataset = datasets.Dataset.from_dict({"id": ["a", "b"], "text": ["brilliant", "it is a dull , slow film"]})
    with pytest.warns(UserWarning, match=r"dropped 1 of 2 rows \(1 shuffle: no order"):
        out = nc.perturb(dataset, "shuffle", fields=["text"])
    assert out["id"] == ["b"]


def test_build_in_python_is_what_the_cli_builds(tmp_path):
    built = nc.build("demo", noise=["keyboard", "swap(rate=0.1)"], out=tmp_path / "py", seed=2, progress=False)
    cli = subprocess.run([sys.executable, "-m", "noisecraft.cli", "build", "--source", "demo", "--noise", "keyboard",
                          "--noise", "swap(rate=0.1)", "--seed", "2", "--out", str(tmp_path / "cli"), "--no-progress"],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    for b in built:
        assert b.path.read_bytes() == (tmp_path / "cli" / b.name / b.path.name).read_bytes()
    assert (tmp_path / "py" / "README.md").read_text() == (tmp_path / "cli" / "README.md").read_text()


# --- declared parameters ----------------------------------------------------------------------


def test_a_parameter_the_model_does_not_take_is_an_error():
    with pytest.raises(ConfigError, match="swap@2 takes no parameter 'mode'"):
        nc.noise("swap", mode="coles")
    with pytest.raises(ConfigError, match="must be one of noiseqa, coles"):
        nc.noise("keyboard", mode="typewriter")
    with pytest.raises(ConfigError, match="must be float"):
        nc.noise("keyboard(rate=lots)")
    with pytest.raises(ConfigError, match="keyboard@7 is not available"):
        nc.noise("keyboard@7")


def test_every_model_declares_every_parameter_with_help():
    for cls in NOISE_MODELS.values():
        for spec in cls.param_specs():
            assert spec.help and spec.base_type in (bool, int, float, str), (cls.name, spec.name)


SPECS = ["keyboard", "keyboard(mode=coles, rate=0.1)", "keyboard(layout=azerty-fr)", "swap(rate=1)", "sort", "reverse",
         "shuffle(max_tries=5)", "copysort", f"wikiedit(dictionary={PAIRS}, only_typos=false, rate=0.5)",
         f"misspelling(dictionary='{PAIRS}', where=function)", f"reduplication(dictionary={PAIRS}, extra_letters=2)",
         "reduplication", f"misspelling(dictionary={PAIRS}, rate=1) | keyboard(rate=0.5) | swap"]


@pytest.mark.parametrize("text", SPECS)
def test_text_form_round_trips(text):
    model = parse_noise(text)
    assert parse_noise(format_noise(model)) == model or format_noise(parse_noise(format_noise(model))) == format_noise(model)
    assert parse_noise(format_noise(model)).digest() == model.digest()


@settings(max_examples=40, deadline=None)
@given(rate=st.floats(0, 1, allow_nan=False), mode=st.sampled_from(["noiseqa", "coles"]),
       layout=st.sampled_from(["qwerty", "qwertz-de", "greek", "kedmanee-th"]))
def test_keyboard_text_form_round_trips_any_value(rate, mode, layout):
    model = nc.noise("keyboard", rate=rate, mode=mode, layout=layout)
    again = parse_noise(format_noise(model))
    assert again == model and again.digest() == model.digest()


def test_files_enter_the_seed_by_content_not_path(tmp_path):
    layout = (REPO / "builders" / "keyboards" / "qwerty.toml").read_text(encoding="utf-8")
    a, b = tmp_path / "a.toml", tmp_path / "elsewhere" / "b.toml"
    b.parent.mkdir()
    a.write_text(layout, encoding="utf-8")
    b.write_text(layout, encoding="utf-8")
    text = ["the quick brown fox jumps over the lazy dog"] * 5
    first = nc.noise("keyboard", layout=str(a), rate=0.5)
    second = nc.noise("keyboard", layout=str(b), rate=0.5)
    assert first.digest() == second.digest() and first.augment(text, 3) == second.augment(text, 3)
    b.write_text(layout.replace('name = "qwerty"', 'name = "qwerty-copy"'), encoding="utf-8")
    assert nc.noise("keyboard", layout=str(b), rate=0.5).digest() != first.digest()
    words = tmp_path / "words.txt"
    words.write_text("the\nwhich\n", encoding="utf-8")
    moved = tmp_path / "moved.txt"
    moved.write_text("the\nwhich\n", encoding="utf-8")
    listed = [nc.noise("misspelling", dictionary=str(PAIRS), where="listed", word_list=str(p)) for p in (words, moved)]
    assert listed[0].digest() == listed[1].digest()


def test_the_spec_is_cheap_to_send_and_loads_its_runtime_once_per_process(monkeypatch):
    model = nc.noise("misspelling", dictionary=str(PAIRS))
    assert len(pickle.dumps(model)) < 1000  # no dictionary inside
    loads = []
    original = type(model).load
    monkeypatch.setattr(type(model), "load", lambda self: loads.append(1) or original(self))
    monkeypatch.setattr(base, "_RUNTIMES", {})
    for _ in range(3):
        model.augment(["the government of the city"], seed=1)
    assert len(loads) == 1


def test_deterministic_models_compute_each_distinct_input_once(monkeypatch, tmp_path):
    seen = []
    sort = nc.noise("sort")
    original = type(sort).apply
    monkeypatch.setattr(type(sort), "apply", lambda self, batch: seen.append(len(batch)) or original(self, batch))
    build_all(tmp_path, [ConfigRequest(source="demo", noise=sort, fields=("question",))], progress=False)
    data = load_source("demo", "en")
    assert sum(seen) == len({row["question"] for row in data.rows})


def test_a_model_made_for_another_language_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="made for lang='de' but the build is in 'en'"):
        nc.build("demo", noise=nc.noise("keyboard", lang="de"), out=tmp_path, progress=False)
    built = nc.build("demo", noise=nc.noise("keyboard", layout="qwertz-de"), out=tmp_path, progress=False)
    assert "qwertz-de" in read_manifest(built[0].path.parent.parent)[
        "configs"][built[0].name]["card"]["params_json"]


# --- chains -------------------------------------------------------------------------------------


def test_a_chain_logs_edits_against_the_original_and_keeps_answers_valid(tmp_path):
    chain = nc.noise(f"misspelling(dictionary={PAIRS}, rate=1) | keyboard(rate=0.5) | swap(rate=0.5)")
    [built] = nc.build("demo", noise=chain, out=tmp_path, fields=["question", "context"], progress=False)
    rows = pq.read_table(built.path).to_pylist()
    kinds = set()
    for row in rows:
        for name in ("question", "context"):
            assert apply_edits(row[f"original_{name}"], edits_of(row, name)) == row[name]
            kinds.update(e.kind for e in edits_of(row, name))
        for text, start in zip(row["answers"]["text"], row["answers"]["answer_start"]):
            assert row["context"][start: start + len(text)] == text
    assert {"misspelling", "keyboard", "swap"} <= {k for kind in kinds for k in kind.split("+")}
    assert rows[0]["noise_name"] == "chain" and json.loads(rows[0]["noise_params"])["steps"][1]["noise"] == "keyboard@2"
    card = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "misspelling@1(rate=1.0" in card and "| keyboard@2(rate=0.5, layout=qwerty) | swap@2(rate=0.5)" in card
    assert "| misspelling.where | all |" in card  # every declared parameter, with its help


def test_each_chain_step_draws_its_own_stream():
    text = ["the government of the city definitely received the separate report"] * 20
    first = nc.noise("keyboard(rate=0.5)")
    twice = nc.noise("keyboard(rate=0.5) | keyboard(rate=0.5)")
    once = first(text, seed=1)
    both = twice(text, seed=1)
    # step 0 is exactly the single model; step 1 adds typos of its own
    assert all(len(b.edits) >= 1 for b in both) and [o.text for o in once] != [b.text for b in both]
    with pytest.raises(ConfigError, match="cannot be chained"):
        nc.noise("keyboard | copysort")


# --- output layout --------------------------------------------------------------------------------


def test_shards_and_row_groups_do_not_depend_on_batching(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline, "ROW_GROUP_ROWS", 5)
    monkeypatch.setattr(pipeline, "SHARD_ROWS", 15)
    outputs = []
    for name, num_proc, batch_size in (("a", 1, 1000), ("b", 2, 7), ("c", 1, 1)):
        [built] = build_all(tmp_path / name, [ConfigRequest(source="demo", noise="keyboard", seed=1)],
                            num_proc=num_proc, batch_size=batch_size, progress=False)
        outputs.append([p.read_bytes() for p in built.paths])
        assert [re.sub(r"-[0-9a-f]{12}-", "-", p.name) for p in built.paths] == [
            f"validation-0000{i}-of-00003.parquet" for i in range(3)]
        assert [pq.ParquetFile(p).metadata.num_row_groups for p in built.paths] == [3, 3, 3]
    assert outputs[0] == outputs[1] == outputs[2]
    loaded = datasets.load_dataset(str(tmp_path / "a"), "demo-en-keyboard-seed1", split="validation")
    assert loaded.num_rows == 41


def test_manifest_pins_the_input_rows_and_the_command_regenerates_the_bytes(tmp_path):
    [built] = nc.build("xquad", lang="de", noise="keyboard(mode=coles)", data_file=corpus("xquad/xquad.de.json"),
                       out=tmp_path / "a", seed=9, progress=False)
    manifest = read_manifest(tmp_path / "a")
    entry = manifest["configs"][built.name]
    assert entry["input"]["rows"] == 1190 and len(entry["input"]["rows_digest"]) == 32
    command = shlex.split(entry["card"]["command"])
    assert command[:2] == ["noisecraft", "build"]
    data = corpus("xquad/xquad.de.json").parent  # the file lies outside the build's folder: DATA is the one holding it
    args = [str(tmp_path / "b") if a == "OUT" else str(data) if a == "DATA" else a for a in command[1:]]
    assert args[args.index("--data-file") + 1] == "xquad.de.json"
    rebuilt = subprocess.run([sys.executable, "-m", "noisecraft.cli", *args, "--no-progress"], capture_output=True,
                             text=True, timeout=120)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert (tmp_path / "b" / built.name / built.path.name).read_bytes() == built.path.read_bytes()


def test_hub_revision_is_passed_on(monkeypatch, tmp_path):
    calls = []
    data = load_source("glue/mrpc", "en", data_file=corpus("glue/MRPC/dev.tsv"))
    hub_rows = [{k: v for k, v in row.items() if k != "id"} for row in data.rows]
    features = datasets.Features({k: v for k, v in data.features.items() if k != "id"})

    def fake(path, name=None, split=None, revision=None, **kwargs):
        calls.append(revision)
        return datasets.Dataset.from_list(hub_rows, features=features)

    monkeypatch.setattr(datasets, "load_dataset", fake)
    [built] = nc.build("glue/mrpc", noise="swap", revision="v1.2", out=tmp_path, progress=False)
    assert calls == ["v1.2"]
    spec = read_manifest(tmp_path)["configs"][built.name]["spec"]
    assert spec["revision"] == "v1.2"
    with pytest.raises(ConfigError, match="revision= / --revision pins a Hub dataset"):
        nc.build("glue/mrpc", noise="swap", revision="v1", data_file=REPO / "README.md", out=tmp_path / "x", progress=False)


def test_noises_lists_every_model_and_parameter():
    result = subprocess.run([sys.executable, "-m", "noisecraft.cli", "noises"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    for cls in NOISE_MODELS.values():
        assert f"{cls.name}@{cls.version}:" in result.stdout
        for spec in cls.param_specs():
            assert f"  {spec.name} (" in result.stdout


def test_keyboard_spec_is_not_changed_by_its_runtime():
    model = KeyboardTypos(rate=0.5)
    model.augment(["some words to type"])
    assert pickle.loads(pickle.dumps(model)) == model
