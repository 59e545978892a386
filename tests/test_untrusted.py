"""What cannot be trusted is refused in one line, never recorded as a result: a model with NaN weights (its
logits, gradients and embeddings), a model that predicts one class for every row (reported, not silently scored),
a challenge-set folder whose files no longer match its manifest, and recipe or dictionary paths that are no
regular file (``/dev/zero``, a FIFO) or are larger than a read may take."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import noisecraft as nc
from noisecraft.cli import main
from noisecraft.errors import ConfigError, InputError

from conftest import corpus
from tiny_models import tiny_model

needs_torch = pytest.mark.skipif(any(importlib.util.find_spec(m) is None for m in ("torch", "transformers")),
                                 reason="torch and transformers are not installed")


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache"))


def one_error(capsys) -> str:
    [message] = capsys.readouterr().err.strip().splitlines()
    assert message.startswith("noisecraft: error: ")
    return message


def sst2(tmp_path: Path, rows: int = 12) -> Path:
    lines = corpus("glue/SST-2/dev.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    tsv = tmp_path / "dev.tsv"
    tsv.write_text("".join(lines[: rows + 1]), encoding="utf-8")
    return tsv


# --- NaN weights -----------------------------------------------------------------------------------------------------


def edited_classifier(folder: Path, edit: Callable[[Any], None]) -> str:
    """``cls-one-word-sst2`` with its weights changed by ``edit`` (under ``torch.no_grad``), saved to ``folder`` and
    loaded back through ``from_pretrained`` as any model folder is."""
    import torch
    import transformers

    source = tiny_model("cls-one-word-sst2")
    model = transformers.AutoModelForSequenceClassification.from_pretrained(source)
    with torch.no_grad():
        edit(model)
    model.save_pretrained(folder)
    transformers.AutoTokenizer.from_pretrained(source).save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def nan_classifier(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``cls-one-word-sst2`` with every weight set to NaN."""
    def to_nan(model: Any) -> None:
        for weight in model.parameters():
            weight.fill_(float("nan"))

    return edited_classifier(tmp_path_factory.mktemp("nan") / "nan-classifier", to_nan)


@needs_torch
@pytest.mark.parametrize("what", ["probabilities", "embeddings", "importance"])
def test_nan_weights_are_refused_naming_the_model(nan_classifier, what):
    from noisecraft.runtime.heads import load_head

    head = load_head(nan_classifier, device="cpu", cache=False)
    with pytest.raises(ConfigError, match=r"model .*nan-classifier gives NaN or infinite"):
        getattr(head, what)([("the river is old",), ("a city",)])


@needs_torch
def test_drop_with_a_nan_classifier_is_one_line_and_writes_nothing(nan_classifier, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["build", "--source", "glue/sst2", "--data-file", str(sst2(tmp_path)), "--noise",
                 f"drop(model={nan_classifier})", "--out", str(out), "--no-progress"]) == 2
    assert "nan-classifier gives NaN or infinite" in one_error(capsys)
    assert not (out / "README.md").exists()


@needs_torch
def test_evaluate_with_a_nan_classifier_is_refused(nan_classifier, tmp_path):
    nc.build("glue/sst2", "keyboard", tmp_path / "set", data_file=sst2(tmp_path), progress=False)
    with pytest.raises(ConfigError, match="gives NaN or infinite logits"):
        nc.evaluate(tmp_path / "set", models=[nan_classifier], progress=False, resamples=0)


# --- recipe and dictionary paths that are no regular file, or too large --------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a child process with a timeout: a read that blocks (a FIFO) or never ends (/dev/zero) fails the
    test instead of hanging the suite."""
    return subprocess.run([sys.executable, "-m", "noisecraft.cli", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "recipe.toml"
    os.mkfifo(path)
    return path


@pytest.mark.skipif(not Path("/dev/zero").exists() or not hasattr(os, "mkfifo"), reason="needs /dev/zero and FIFOs")
@pytest.mark.parametrize("which", ["/dev/zero", "fifo"])
def test_a_recipe_that_is_no_regular_file_is_one_line(which, fifo, tmp_path):
    path = str(fifo) if which == "fifo" else which
    result = run_cli("build", path, "--out", str(tmp_path / "out"), "--no-progress")
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line == f"noisecraft: error: {path}: cannot read recipe: not a regular file (a device, FIFO or socket)"
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not Path("/dev/zero").exists() or not hasattr(os, "mkfifo"), reason="needs /dev/zero and FIFOs")
@pytest.mark.parametrize("which", ["/dev/zero", "fifo"])
def test_a_dictionary_that_is_no_regular_file_is_one_line(which, fifo, tmp_path):
    path = str(fifo) if which == "fifo" else which
    result = run_cli("build", "--source", "demo", "--noise", f"wikiedit(dictionary={path})", "--out",
                     str(tmp_path / "out"), "--no-progress")
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.endswith(f"{path}: cannot read noise dictionary: not a regular file (a device, FIFO or socket)")


def test_recipes_and_dictionaries_larger_than_their_cap_are_refused(tmp_path, monkeypatch):
    from noisecraft.building import recipe
    from noisecraft.dataset import noise_dictionary

    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * recipe.RECIPE_LIMIT + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"big\.toml: cannot read recipe: 1,048,579 bytes, more than the 1,048,576"):
        recipe.load_recipe(big)
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text("the\tteh\n" * 10, encoding="utf-8")
    assert len(noise_dictionary.load_dictionary(str(tsv))) == 1
    monkeypatch.setattr(noise_dictionary, "DICTIONARY_LIMIT", 79)  # the file holds 80 bytes
    with pytest.raises(InputError, match=r"pairs\.tsv: cannot read noise dictionary: 80 bytes, more than the 79"):
        noise_dictionary.load_dictionary(str(tsv))


# --- evaluate verifies the folder it reads, as publish does ---------------------------------------------------------


@needs_torch
def test_evaluate_refuses_a_config_cut_after_the_build(tmp_path, capsys):
    import pyarrow.parquet as pq

    folder = tmp_path / "set"
    nc.build("glue/sst2", "keyboard", folder, data_file=sst2(tmp_path, rows=40), progress=False)
    [config] = [p for p in folder.iterdir() if p.is_dir()]
    [parquet] = config.glob("*.parquet")
    pq.write_table(pq.read_table(parquet).slice(0, 10), parquet)
    model = str(tiny_model("cls-one-word-sst2"))
    cut = rf"{config.name}/{parquet.name}: its content is not what its name addresses"
    with pytest.raises(ConfigError, match=rf"does not verify, nothing evaluated: {cut}"):
        nc.evaluate(folder, models=[model], progress=False, resamples=0)
    capsys.readouterr()  # what building the tiny model printed
    assert main(["evaluate", "--dataset", str(folder), "--model", model, "--out", str(tmp_path / "report"), "--no-progress"]) == 2
    assert "its content is not what its name addresses" in one_error(capsys)
    parquet.unlink()
    (folder / "stray").mkdir()
    (folder / "stray" / "x.parquet").write_bytes(b"")  # a file no card names is not part of the set: not the error
    with pytest.raises(ConfigError, match=rf"does not verify, nothing evaluated: {config.name}/{parquet.name}: missing$"):
        nc.evaluate(folder, models=[model], progress=False, resamples=0)


# --- a model that predicts one class for every row ------------------------------------------------------------------


@pytest.fixture(scope="module")
def constant_classifier(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``cls-one-word-sst2`` whose classification layer ignores the text: always the first label."""
    import torch

    def constant(model: Any) -> None:
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([5.0, -5.0]))

    return edited_classifier(tmp_path_factory.mktemp("constant") / "constant-classifier", constant)


@needs_torch
def test_a_model_that_predicts_one_class_is_warned_about_in_the_output_and_the_report(constant_classifier, tmp_path,
                                                                                      capsys):
    folder = tmp_path / "set"
    nc.build("glue/sst2", "keyboard", folder, data_file=sst2(tmp_path, rows=20), progress=False)
    result = nc.evaluate(folder, models=[constant_classifier], progress=False, resamples=0).to_dict()
    [entry] = result["results"]
    assert entry["metrics"]["one_class"] == "negative"
    [warning] = result["warnings"]
    assert warning.startswith(f"constant-classifier predicts 'negative' for every row of {entry['config']}")
    capsys.readouterr()
    report = tmp_path / "report"
    assert main(["evaluate", "--dataset", str(folder), "--model", constant_classifier, "--out", str(report),
                 "--no-progress", "--bootstrap", "0", "--no-plots"]) == 0
    captured = capsys.readouterr()
    assert [line for line in captured.err.splitlines() if "warning" in line] == [f"noisecraft: warning: {warning}"]
    assert "(predicts one class)" in captured.out
    readme = (report / "README.md").read_text(encoding="utf-8")
    assert f"## Warnings\n\n- **{warning}**" in readme and "(predicts one class)" in readme


# --- grammar-attack: a label to attack, inputs the victim can take ---------------------------------------------------


@pytest.fixture(scope="module")
def attack_files() -> dict[str, str]:
    return {"confusions": str(tiny_model("gec-confusions-sample")), "nltk_data": str(tiny_model("nltk-data-sample")),
            "tagger": "nltk"}


@needs_torch
def test_grammar_attack_on_a_source_without_class_labels_is_one_line(attack_files, tmp_path, capsys):
    noise = nc.noise("grammar-attack", **attack_files, victim=str(tiny_model("cls-mrpc")))
    with pytest.raises(ConfigError, match=r"grammar-attack@1: demo .* has no class-label column, so a row has no label"):
        nc.build("demo", noise, tmp_path / "out", progress=False)
    assert not (tmp_path / "out" / "README.md").exists()
    chain = nc.chain(nc.noise("keyboard", rate=0.1), noise)
    with pytest.raises(ConfigError, match="has no class-label column"):
        nc.perturb(datasets_of({"id": ["a"], "text": ["The teacher gives homework ."]}), chain, ["text"])


@needs_torch
def test_grammar_attack_refuses_a_row_without_a_label(attack_files):
    import datasets

    features = datasets.Features({"id": datasets.Value("string"), "text": datasets.Value("string"),
                                  "label": datasets.ClassLabel(names=["not_equivalent", "equivalent"])})
    data = datasets.Dataset.from_dict({"id": ["a", "b"], "text": ["The teacher gives homework ."] * 2,
                                       "label": [1, -1]}, features=features)
    noise = nc.noise("grammar-attack", **attack_files, victim=str(tiny_model("cls-mrpc")))
    with pytest.raises(ConfigError, match=r"row b has no label \(-1, a test split\?\)"):
        nc.perturb(data, noise, ["text"], labels=nc.LabelLayout(class_label="label"))


def datasets_of(columns: dict[str, list[str]]):
    import datasets

    return datasets.Dataset.from_dict(columns)


@pytest.fixture(scope="module")
def short_victim(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A classifier with a 32-position table whose tokenizer states 128 tokens (as a mis-saved checkpoint can)."""
    import torch
    import transformers

    folder = tmp_path_factory.mktemp("short") / "short-victim"
    source = tiny_model("cls-mrpc")
    config = transformers.AutoConfig.from_pretrained(source)
    config.max_position_embeddings = 32
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = transformers.BertForSequenceClassification(config)
    model.save_pretrained(folder)
    transformers.AutoTokenizer.from_pretrained(source).save_pretrained(folder)
    return str(folder)


@needs_torch
def test_victim_inputs_are_cut_to_the_victims_own_limit(short_victim, attack_files):
    from noisecraft.runtime.heads import load_head

    long_text = " ".join(["the old teacher often gives the students very difficult homework ."] * 8)
    head = load_head(short_victim, device="cpu", cache=False)
    assert head.max_length == 32 and head.truncated(128).max_length == 32  # the position table, not the tokenizer
    [probabilities] = head.truncated(128).probabilities([(long_text,)])
    assert len(probabilities) == 2
    [noised] = nc.noise("grammar-attack", **attack_files, victim=short_victim)([long_text])
    assert noised.columns["attack_status"] in ("succeeded", "failed", "skipped")


# --- Ray: an unreachable address, a component that dies ---------------------------------------------------------------


ray_installed = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs the [ray] extra")


@ray_installed
def test_an_unreachable_ray_address_fails_in_seconds_with_one_line(tmp_path):
    import socket

    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    result = run_cli("build", "--source", "demo", "--engine", "ray", "--ray-address", f"127.0.0.1:{port}", "--out",
                     str(tmp_path / "out"), "--no-progress")
    assert result.returncode == 2
    assert result.stderr.strip() == (f"noisecraft: error: no Ray cluster at 127.0.0.1:{port} (Connection refused within "
                                     "5 s): start it (`ray start --head`) or give the address it printed")
    assert not (tmp_path / "out").exists()
    with pytest.raises(ConfigError, match="expected host:port"):
        nc.build("demo", out=tmp_path / "b", engine="ray", ray_address="headnode")


@ray_installed
def test_a_ray_worker_or_actor_that_keeps_dying_is_one_noisecraft_line(ray_cluster):
    from noisecraft.building.executors import RayExecutor, RayFailed

    def _die(x: int) -> int:  # defined here: Ray ships it by value
        os._exit(1)  # the process running it dies, every time (as a node lost for good would)

    with RayExecutor(max_retries=0) as executor, pytest.raises(RayFailed) as task:
        list(executor.imap(_die, [1]))
    with RayExecutor(max_retries=0) as executor, pytest.raises(RayFailed) as actor:
        list(executor.map_chunks(lambda chunk: [_die(x) for x in chunk], [[1]]))
    for raised in (task, actor):
        message = str(raised.value)
        assert message.startswith("Ray lost the work (") and "\n" not in message, message
