"""Round four of the attack (issue 35): every command that writes is a transaction, and what still ended in a
traceback is one line naming its cause."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

import noisecraft as nc
from noisecraft.building.noising import NoiseJob
from noisecraft.cli import main
from noisecraft.core.labels import LabelLayout
from noisecraft.errors import ConfigError
from noisecraft.grammar import nltk_data
from noisecraft.grammar.nltk_data import COMPLETE, debian_wordnet_missing

from conftest import corpus
from tiny_models import POS_SAMPLE, tiny_model

needs_torch = pytest.mark.skipif(any(importlib.util.find_spec(m) is None for m in ("torch", "transformers")),
                                 reason="torch and transformers are not installed")


def one_error(capsys) -> str:
    """The command's one error line (the progress bars transformers draws as it loads a model aside)."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [message] = [line for line in err.splitlines() if line.startswith("noisecraft")]
    assert message.startswith("noisecraft: error: ")
    return message


@pytest.fixture
def wordnet() -> None:
    if debian_wordnet_missing():
        pytest.skip(debian_wordnet_missing())


def _fail_after_tagger(monkeypatch, exc: BaseException) -> None:
    """The tagger is written, then the next step (WordNet's copy) fails."""
    def copy_wordnet(root, source=nltk_data.DEBIAN_WORDNET):
        assert (root / "taggers").is_dir()
        raise exc
    monkeypatch.setattr(nltk_data, "copy_wordnet", copy_wordnet)


@pytest.mark.parametrize("exc", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_setup_nltk_data_stopped_midway_leaves_no_folder_and_a_rerun_succeeds(tmp_path, capsys, monkeypatch,
                                                                               wordnet, exc):
    out = tmp_path / "nltk_data"
    with monkeypatch.context() as patch:
        _fail_after_tagger(patch, exc)
        if isinstance(exc, KeyboardInterrupt):
            assert main(["setup", "nltk-data", str(out), "--tagged", str(POS_SAMPLE)]) == 130
        else:
            assert main(["setup", "nltk-data", str(out), "--tagged", str(POS_SAMPLE)]) == 2
            assert one_error(capsys) == (f"noisecraft: error: cannot write {out}: No space left on device; {out} is "
                                         "as it was: free space and run the command again")
    assert sorted(tmp_path.iterdir()) == []  # nothing half-written, no staging folder left
    assert main(["setup", "nltk-data", str(out), "--tagged", str(POS_SAMPLE)]) == 0
    assert (out / COMPLETE).is_file() and (out / "corpora" / "wordnet" / "lexnames").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nltk_data"]


def test_setup_nltk_data_repairs_a_folder_an_older_run_left_half_written(tmp_path, capsys, wordnet):
    out = tmp_path / "nltk_data"
    (out / "taggers" / "averaged_perceptron_tagger_eng").mkdir(parents=True)  # killed after the tagger: no WordNet
    assert main(["setup", "nltk-data", str(out), "--tagged", str(POS_SAMPLE)]) == 0
    assert (out / COMPLETE).is_file() and (out / "corpora" / "wordnet" / "lexnames").is_file()
    assert main(["setup", "nltk-data", str(out), "--tagged", str(POS_SAMPLE)]) == 2  # a complete one is kept
    assert "already exists (a complete NLTK data folder)" in one_error(capsys)


def test_setup_nltk_data_never_replaces_a_folder_of_other_files(tmp_path, capsys, wordnet):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n", encoding="utf-8")
    assert main(["setup", "nltk-data", str(out), "--tagged", str(POS_SAMPLE)]) == 2
    assert "already exists and holds other files (notes.txt)" in one_error(capsys)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("text, line, why", [
    ("The cat sat on the mat .\nShe walks to school .\n", 1, "'cat' is not a part-of-speech tag"),
    ("The DT\ncat NN\nsat on the mat\n", 3, "'on' is not a part-of-speech tag"),
    ("".join(f"w{i} T{i}\n" for i in range(101)), 101, "more than 100 distinct tags"),
])
def test_setup_nltk_data_refuses_a_second_column_that_is_not_a_tag_set(tmp_path, capsys, wordnet, text, line, why):
    tagged = tmp_path / "prose.txt"
    tagged.write_text(text, encoding="utf-8")
    assert main(["setup", "nltk-data", str(tmp_path / "out"), "--tagged", str(tagged)]) == 2
    message = one_error(capsys)
    assert message.startswith(f"noisecraft: error: {tagged}, line {line}: ") and why in message
    assert not (tmp_path / "out").exists()


def test_setup_nltk_data_takes_a_real_tag_set(tmp_path, wordnet):
    """Penn Treebank tags, punctuation tags and CoNLL-2003's own (``-X-``, ``NN|SYM``) are tags."""
    tagged = tmp_path / "tagged.txt"
    tagged.write_text("-DOCSTART- -X- O O\n\nThe DT B-NP O\nEU NNP I-NP B-ORG\n's POS B-NP O\nx NN|SYM O O\n"
                      "$ $ O O\n( ( O O\n. . O O\n", encoding="utf-8")
    assert main(["setup", "nltk-data", str(tmp_path / "out"), "--tagged", str(tagged)]) == 0


def _drop_build(tmp_path: Path, model: Path, out: Path) -> list[str]:
    """``noisecraft build`` of ``drop(model=...)`` on 8 rows of SST-2."""
    tsv = tmp_path / "dev.tsv"
    tsv.write_text("".join(corpus("glue/SST-2/dev.tsv").read_text(encoding="utf-8").splitlines(True)[:9]),
                   encoding="utf-8")
    return ["build", "--source", "glue/sst2", "--data-file", str(tsv), "--noise", f"drop(model={model})",
            "--out", str(out), "--no-progress"]


class _FullDisk:
    """A SQLite connection whose writes fail as on a full disk (reads and everything else are the real one's)."""

    def __init__(self, real: sqlite3.Connection) -> None:
        self.real = real

    def __getattr__(self, name: str) -> object:
        return getattr(self.real, name)

    def __enter__(self) -> _FullDisk:
        self.real.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.real.__exit__(*exc)

    def executemany(self, *args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")


@needs_torch
def test_a_model_cache_on_a_full_disk_is_one_line_and_loses_nothing(tmp_path, capsys, monkeypatch):
    from noisecraft.runtime import cache

    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "out"
    build = _drop_build(tmp_path, tiny_model("cls-one-word-sst2"), out)
    real_connect = sqlite3.connect
    with monkeypatch.context() as patch:
        patch.setattr(cache.sqlite3, "connect", lambda *a, **k: _FullDisk(real_connect(*a, **k)))
        assert main(build) == 2
    message = one_error(capsys)
    assert message.startswith(f"noisecraft: error: model cache {tmp_path / 'cache'}") and \
        "database or disk is full; the outputs cached before are kept" in message
    assert not (out / "README.md").exists()
    assert main(build) == 0 and (out / "README.md").exists()


def _truncate_weights(model: Path) -> None:
    weights = model / "model.safetensors"
    os.truncate(weights, weights.stat().st_size // 2)


def _corrupt_tokenizer(model: Path) -> None:
    (model / "tokenizer.json").write_text('{"version": "1.0", trunc', encoding="utf-8")


def _empty_vocabulary(model: Path) -> None:
    tokenizer = json.loads((model / "tokenizer.json").read_text(encoding="utf-8"))
    tokenizer["model"]["vocab"], tokenizer["added_tokens"] = {}, []
    (model / "tokenizer.json").write_text(json.dumps(tokenizer), encoding="utf-8")


@needs_torch
@pytest.mark.parametrize("damage, why", [
    (_truncate_weights, "(AutoModelForSequenceClassification, SafetensorError): Error while deserializing header"),
    (_corrupt_tokenizer, "(AutoTokenizer, JSONDecodeError): Expecting property name"),
    (_empty_vocabulary, "its tokenizer's vocabulary is empty"),
])
def test_a_damaged_model_folder_is_one_line_naming_it(tmp_path, capsys, monkeypatch, damage, why):
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache"))
    model = tmp_path / "model"
    shutil.copytree(tiny_model("cls-one-word-sst2"), model)
    damage(model)
    out = tmp_path / "out"
    assert main(_drop_build(tmp_path, model, out)) == 2
    message = one_error(capsys)
    assert f"cannot load {model} (sha256:" in message and why in message  # after the noise's name, where it says it
    assert not (out / "README.md").exists()


@pytest.mark.parametrize("dataset, why", [
    ("{tmp}/no-such-folder", "{tmp}/no-such-folder: no such folder"),
    ("{tmp}/afile", "{tmp}/afile is a file: give a CoLeS dataset folder"),
    ("no-such-coles", "no-such-coles: no such folder, and not a Hub dataset that can be loaded: "),
])
def test_probe_type_on_a_missing_folder_is_one_line(tmp_path, capsys, monkeypatch, dataset, why):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    (tmp_path / "afile").write_text("x\n", encoding="utf-8")
    dataset = dataset.format(tmp=tmp_path)
    assert main(["probe", "type", dataset, "--tokenizer", "bert-base-uncased", "--out", str(tmp_path / "typing")]) == 2
    assert one_error(capsys).startswith(f"noisecraft: error: {why.format(tmp=tmp_path)}")
    assert not (tmp_path / "typing").exists()


@pytest.mark.parametrize("command", [
    ["probe", "type", "coles", "--tokenizer", "bert-base-uncased"],
    ["probe", "measure", "coles", "--model", "bert-base-uncased"],
    ["evaluate", "--dataset", "coles", "--model", "bert-base-uncased"],
    ["build", "--source", "demo", "--noise", "keyboard"],
])
def test_an_out_that_is_a_file_is_one_line_before_any_work(tmp_path, capsys, command):
    out = tmp_path / "report.txt"
    out.write_text("mine\n", encoding="utf-8")
    assert main([*command, "--out", str(out)]) == 2
    assert one_error(capsys) == f"noisecraft: error: {out} is a file, not a folder: give a folder for the output"
    assert out.read_text(encoding="utf-8") == "mine\n"


def test_perturb_of_a_dataset_dict_says_to_pass_a_split():
    import datasets

    splits = datasets.DatasetDict({"validation": datasets.Dataset.from_dict({"id": ["a"], "text": ["Hello there"]})})
    with pytest.raises(ConfigError, match=r"^perturb takes a datasets.Dataset, not a DatasetDict: pass one split "
                                          r"\(dataset\['validation'\]\), or perturb each split"):
        nc.perturb(splits, "keyboard", ["text"])
    with pytest.raises(ConfigError, match=r"^perturb takes a datasets.Dataset, not a list$"):
        nc.perturb([{"id": "a", "text": "Hello"}], "keyboard", ["text"])


@pytest.mark.parametrize("labels, message", [
    (LabelLayout(span_labels={"context": "answers"}), "the labels name 'answers' as the span labels of field 'context'"),
    (LabelLayout(pair_fields=("context", "sentence2")), "the labels name 'sentence2' as the pair of field 'context'"),
    (LabelLayout(token_tags=("context", "ner_tags")), "the labels name 'ner_tags' as the tags of field 'context'"),
])
def test_labels_on_a_missing_column_are_refused_before_any_row(labels, message):
    import datasets

    rows = datasets.Dataset.from_dict({"id": ["a", "b"], "context": ["Hello there world", "Another text here"]})
    with pytest.raises(ConfigError, match=f"^{message}, but it is not a column of the dataset; columns: id, context$"):
        nc.perturb(rows, "keyboard", ["context"], labels=labels)


@pytest.mark.parametrize("argument, what", [("f\udcff.jsonl", "byte 0xFF"), ("x\ud800", "lone surrogate U+D800")])
def test_an_argument_that_is_not_utf8_is_one_line(tmp_path, capsys, argument, what):
    """Undecodable bytes of a file name reach Python as lone surrogates; they used to fail the manifest's or the
    card's write after the whole build."""
    assert main(["build", "--source", "jsonl", "--data-file", argument, "--id-field", "id", "--fields", "text",
                 "--noise", "keyboard", "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert one_error(capsys) == (f"noisecraft: error: argument {argument!r} is not valid UTF-8 ({what} at character 1): "
                                 "rename the file, or give the text in UTF-8")
    assert not (tmp_path / "out").exists()


def test_a_lone_surrogate_in_a_column_that_is_not_noised_names_its_row():
    from noisecraft.building.pipeline import process_batch
    from noisecraft.errors import InputError

    job = NoiseJob(nc.noise("drop-punctuation"), 0, ("text",), LabelLayout(), False, "t")
    rows = [{"id": "a", "text": "Hello, world", "note": "fine"}, {"id": "b", "text": "Hi, there", "note": "x\ud800"}]
    with pytest.raises(InputError, match=r"^rows.jsonl, row 12 \(id 'b'\): 'note' holds a lone surrogate U\+D800 at "
                                         r"offset 1 \(not valid Unicode\)$"):
        process_batch(job, None, "rows.jsonl", 10, rows)


def test_coles_word_lists_are_read_as_utf8_with_latin1_lines_as_the_miners_read_them(tmp_path):
    from noisecraft.sources.wordlist import read_lexicon_file

    lexicon = tmp_path / "positive-words.txt"
    lexicon.write_bytes(";comment\nnaïve\n".encode() + "café\n".encode("latin-1") + b"good\n")
    assert read_lexicon_file(lexicon) == [(2, "naïve"), (3, "café"), (4, "good")]  # latin-1 read "naÃ¯ve"


def test_an_identical_mine_wikiedits_rerun_succeeds_and_another_spec_is_still_refused(tmp_path, capsys):
    dump, out = corpus("mediawiki/hiwiki_main_page_13revs.xml"), tmp_path / "out"
    command = ["mine", "wikiedits", str(dump), "--lang", "hi", "--out", str(out), "--no-progress"]
    assert main(command) == 0
    [parquet] = (out / "wikiedits-hi").glob("*.parquet")
    first = parquet.read_bytes()
    assert main(command) == 0  # its namespaces (a tuple) used to compare unequal to the manifest's list
    assert parquet.read_bytes() == first
    capsys.readouterr()
    assert main([*command, "--namespaces", "0", "1"]) == 2
    assert "config 'wikiedits-hi' in " in one_error(capsys)


def test_setup_nltk_data_removes_the_staging_folder_of_a_run_killed_outright(tmp_path, wordnet):
    import subprocess
    import sys

    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                           check=True)
    stale = tmp_path / f".nltk_data.staging-{ended.stdout.strip()}"  # kill -9 after the tagger: no cleanup ran
    (stale / "taggers").mkdir(parents=True)
    assert main(["setup", "nltk-data", str(tmp_path / "nltk_data"), "--tagged", str(POS_SAMPLE)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nltk_data"]
