"""One end-to-end test per CLI command, run as a user runs it (a subprocess)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from conftest import corpus


def noisecraft(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "noisecraft.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


def test_help_lists_every_command_and_option():
    top = noisecraft("--help")
    assert top.returncode == 0
    for command in ("demo", "build", "publish", "layouts"):
        assert command in top.stdout
    build = noisecraft("build", "--help").stdout
    for option in ("--source", "--lang", "--data-file", "--data-dir", "--revision", "--set", "RECIPE", "--split",
                   "--fields", "--noise", "--seed", "--out", "--num-proc", "--config-name", "--dataset-version", "--overwrite",
                   "--protect-entities", "glue/mrpc", "keyboard@2", "copysort@2"):
        assert option in build, option


def test_demo_builds_loads_back_and_prints_statistics(tmp_path):
    result = noisecraft("demo", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "loading them back with datasets.load_dataset" in result.stdout
    for config in ("keyboard-noiseqa", "keyboard-coles", "swap", "shuffle"):
        assert config in result.stdout
    assert "CER %" in result.stdout and "BLEU" in result.stdout
    out = tmp_path / "noisecraft-demo"
    assert datasets.load_dataset(str(out), "swap", split="validation").num_rows == 41
    again = noisecraft("demo", cwd=tmp_path)  # re-running rebuilds the same bytes in place
    assert again.returncode == 0, again.stderr


def test_build_several_languages_and_noises_into_one_repo(tmp_path):
    xquad = corpus("xquad")
    result = noisecraft("build", "--source", "xquad", "--lang", "de", "--lang", "ru", "--noise", "keyboard",
                        "--noise", "swap@1", "--data-file", str(xquad / "xquad.{lang}.json"), "--out",
                        str(tmp_path / "out"), "--seed", "5", "--num-proc", "2", "--batch-size", "400")
    assert result.returncode == 0, result.stderr
    names = ["xquad-de-keyboard-seed5", "xquad-de-swap-seed5", "xquad-ru-keyboard-seed5", "xquad-ru-swap-seed5"]
    for name in names:
        assert name in result.stdout
        assert datasets.load_dataset(str(tmp_path / "out"), name, split="validation").num_rows == 1190
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert all(f"config_name: {name}" in card for name in names)


def test_layouts_lists_native_layouts():
    result = noisecraft("layouts")
    assert result.returncode == 0
    assert "qwertz-de" in result.stdout and "kedmanee-th" in result.stdout and "en,vi" in result.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--source", "xquad", "--lang", "de", "--data-file", "missing.json"], "missing.json does not exist"),
    (["--source", "demo", "--lang", "zh"], "zh is not supported yet"),
    (["--source", "demo", "--noise", "keyboard(layout=dvorak)"], "unknown keyboard layout 'dvorak'"),
    (["--source", "demo", "--noise", "swap(mode=coles)"], "swap@2 takes no parameter 'mode'; it takes: lang, rate"),
    (["--source", "demo", "--noise", "keyboard(rate=2)"], "parameter 'rate' must be between 0.0 and 1.0"),
    (["--source", "demo", "--noise", "keyboard(rate=0.1"], "expected ',' or ')'"),
    (["--source", "demo", "--rate", "0.1"], "--rate is now a parameter of the noise model: --noise 'NAME(rate=0.1)'"),
    (["--source", "demo", "--noise", "sort", "--fields", "context"], "destroy the 'answers' spans"),
])
def test_build_errors_are_one_clear_line(tmp_path, args, message):
    result = noisecraft("build", *args, "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_mine_misspellings_then_build(tmp_path):
    mined = noisecraft("mine", "misspellings", str(corpus("misspellings/wikipedia_for_machines.txt")),
                       "--keyboard-only", "--out", str(tmp_path / "dict"))
    assert mined.returncode == 0, mined.stderr
    assert "pairs_kept: 3025" in mined.stdout and "phonetic_filter: not applied" in mined.stdout
    card = (tmp_path / "dict" / "README.md").read_text(encoding="utf-8")
    assert "license: cc-by-sa-4.0" in card and "config_name: misspellings-en" in card
    spec = f"misspelling(dictionary={tmp_path / 'dict'}, where=content, rate=1)"
    built = noisecraft("build", "--source", "demo", "--noise", spec,
                       "--config-name", "demo-en-misspelling", "--out", str(tmp_path / "set"), "--no-progress")
    assert built.returncode == 0, built.stderr
    rows = datasets.load_dataset(str(tmp_path / "set"), "demo-en-misspelling", split="validation")
    edits = [e for row in rows for e in row["noise_edits"]]
    assert edits and all(e["kind"] == "misspelling" for e in edits)


def test_mine_reduplication_then_build(tmp_path):
    mined = noisecraft("mine", "reduplication", str(corpus("sentiment140/testdata.manual.2009.06.14.csv")),
                       "--lexicon", str(corpus("opinion_lexicon/positive-words.txt")),
                       str(corpus("opinion_lexicon/negative-words.txt")), "--out", str(tmp_path / "dict"))
    assert mined.returncode == 0, mined.stderr
    assert "tweets: 498" in mined.stdout
    pairs = datasets.load_dataset(str(tmp_path / "dict"), "reduplication-en", split="train")
    assert ("love", "loooooooovvvvvveee") in set(zip(pairs["correct"], pairs["noisy"]))
    built = noisecraft("build", "--source", "demo", "--noise", f"reduplication(dictionary={tmp_path / 'dict'})",
                       "--out", str(tmp_path / "set"), "--no-progress")
    assert built.returncode == 0, built.stderr


def test_a_dictionary_that_matched_nothing_is_a_loud_warning(tmp_path):
    unused = tmp_path / "unused.tsv"
    unused.write_text("zyzzyva\tzyzzyvaa\t1\n", encoding="utf-8")
    result = noisecraft("build", "--source", "demo", "--noise", f"misspelling(dictionary={unused})", "--out",
                        str(tmp_path / "out"), "--no-progress", "--config-name", "unused")
    assert result.returncode == 0, result.stderr
    assert "noisecraft: WARNING: unused: misspelling@1: the dictionary" in result.stderr
    assert "matched no word" in (tmp_path / "out" / "README.md").read_text(encoding="utf-8")


def test_mine_wikiedits_keep_going_skips_what_is_not_a_dump(tmp_path):
    junk = tmp_path / "notes.xml"
    junk.write_text("these are my notes, not a MediaWiki export\n", encoding="utf-8")
    dump = str(corpus("mediawiki/enwiki-20140102.tiny.xml.gz"))
    refused = noisecraft("mine", "wikiedits", dump, str(junk), "--lang", "en", "--out", str(tmp_path / "a"),
                         "--no-progress")
    assert refused.returncode == 2 and "notes.xml" in refused.stderr and "Traceback" not in refused.stderr
    kept = noisecraft("mine", "wikiedits", dump, str(junk), "--lang", "en", "--keep-going", "--out", str(tmp_path / "b"),
                      "--no-progress")
    assert kept.returncode == 0, kept.stderr
    assert "notes.xml" in (tmp_path / "b" / "README.md").read_text(encoding="utf-8")


# --- one face: the CLI parses arguments and calls the Python API, which holds the checks ---------------------


RECIPE = 'name = "r"\nversion = "1.0.0"\n[[configs]]\nsource = "demo"\nnoise = ["swap"]\n'


@pytest.mark.parametrize(("args", "call"), [
    (["--source", "xquad", "--lang", "de", "--lang", "fr", "--data-file", "x.json"],
     lambda nc: nc.build("xquad", lang=["de", "fr"], data_file="x.json", out="out")),
    (["--source", "demo", "--noise", "swap", "--noise", "sort", "--config-name", "one"],
     lambda nc: nc.build("demo", noise=["swap", "sort"], config_name="one", out="out")),
    (["--source", "demo", "--noise", "swap(mode=coles)"], lambda nc: nc.build("demo", "swap(mode=coles)", "out")),
    (["--source", "xquad", "--lang", "de", "--data-file", "missing.json"],
     lambda nc: nc.build("xquad", lang="de", data_file="missing.json", out="out")),
    (["--source", "glue/mrpc", "--data-file", "dev.tsv", "--revision", "v1"],
     lambda nc: nc.build("glue/mrpc", data_file="dev.tsv", revision="v1", out="out")),
    (["--source", "demo", "--num-proc", "0"], lambda nc: nc.build("demo", out="out", num_proc=0)),
    (["--source", "demo", "--revision", "main"], lambda nc: nc.build("demo", out="out", revision="main")),
    (["no-such-recipe"], lambda nc: nc.build_recipe("no-such-recipe", "out")),
    (["recipe.toml", "--set", "version"], lambda nc: nc.build_recipe("recipe.toml", "out", sets=["version"])),
    (["recipe.toml", "--set", 'configs.3.langs=["de"]'],
     lambda nc: nc.build_recipe("recipe.toml", "out", sets=['configs.3.langs=["de"]'])),
])
def test_the_cli_and_python_refuse_the_same_input_with_the_same_line(tmp_path, monkeypatch, args, call):
    import noisecraft as nc
    from noisecraft.errors import NoisecraftError

    (tmp_path / "recipe.toml").write_text(RECIPE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    cli = noisecraft("build", *args, "--out", "out", "--no-progress", cwd=tmp_path)
    with pytest.raises(NoisecraftError) as python:
        call(nc)
    assert cli.returncode == 2 and "Traceback" not in cli.stderr
    assert cli.stderr.strip() == f"noisecraft: error: {python.value}"
    # a Python caller is never told about a command-line option alone: it comes with the parameter that means it
    assert not re.search(r"(?<!= / )--[a-z]", str(python.value)), python.value
    assert not (tmp_path / "out").exists()


def test_recipes_lists_the_catalogue_and_builds_one_by_name_from_any_folder(tmp_path):
    """The catalogue ships as package data: ``noisecraft recipes`` names every file of scripts/recipes/ with its
    description, and ``noisecraft build NAME`` builds that recipe from a folder that is not a checkout."""
    import tomllib

    catalogue = sorted(Path(__file__).parents[1].joinpath("scripts", "recipes").glob("*.toml"))
    listed = noisecraft("recipes", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [path.stem for path in catalogue]
    for line, path in zip(lines, catalogue, strict=True):
        assert line.endswith(tomllib.loads(path.read_text(encoding="utf-8"))["description"])
    xquad = corpus("xquad/xquad.en.json")
    built = noisecraft("build", "noiseqa-keyboard", "--data-dir", str(xquad.parents[1]), "--out", "out",
                       "--no-progress", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert datasets.load_dataset(str(tmp_path / "out"), "xquad-en-keyboard", split="validation").num_rows == 1190


def test_mining_from_python_is_what_the_cli_mines(tmp_path):
    from noisecraft.mining.registry import mine

    lists = tmp_path / "list.txt"
    lists.write_text("acheive->achieve\nbeleive->believe\nrecieve->receive\nteh->the\nadn->and\n", encoding="utf-8")
    cli = noisecraft("mine", "misspellings", str(lists), "--keyboard-only", "--out", str(tmp_path / "cli"))
    assert cli.returncode == 0, cli.stderr
    mined, path = mine("misspellings", [lists], tmp_path / "py", lang="en", keyboard_only=True)
    assert f"{len(mined.rows)} pairs ->" in cli.stdout and mined.rows
    assert path.read_bytes() == (tmp_path / "cli" / path.relative_to(tmp_path / "py")).read_bytes()


def test_an_unknown_miner_is_one_line():
    from noisecraft.errors import ConfigError
    from noisecraft.mining.registry import mine

    with pytest.raises(ConfigError, match="unknown miner 'typos'; available: wikiedits, misspellings"):
        mine("typos", [], "out", lang="en")


def test_a_resumable_miner_checkpoints_per_file_and_cleans_up(tmp_path, monkeypatch):
    """The checkpoint policy is the mining package's: the folder is per config and removed once written."""
    from noisecraft.mining import registry

    seen = {}

    def fake_wikiedits(inputs, lang, checkpoints, **options):
        checkpoints.mkdir(parents=True)
        (checkpoints / "done-0.json").write_text("{}")
        seen["checkpoints"] = checkpoints
        return "mined"

    monkeypatch.setattr(registry.Miner, "load", lambda self: fake_wikiedits)
    monkeypatch.setattr("noisecraft.mining.output.write_dictionary", lambda out, mined, **kw: seen.setdefault("wrote", mined))
    registry.mine("wikiedits", [tmp_path / "dump.xml"], tmp_path / "out", lang="hi", config_name="edits")
    assert seen["checkpoints"] == tmp_path / "out" / ".checkpoints" / "edits"
    assert seen["wrote"] == "mined" and not (tmp_path / "out" / ".checkpoints").exists()


def test_help_and_noises_import_no_noise_model():
    code = ("import sys\nfrom noisecraft.cli import main\n"
            "for argv in (['--help'], ['build', '--help'], ['mine', '--help']):\n"
            "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
            "main(['noises'])\n"
            "print(sorted(m for m in sys.modules if m.startswith('noisecraft.noise_models.') and not m.endswith('catalogue')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_the_noise_catalogue_is_what_the_models_declare():
    from noisecraft.noise_models.catalogue import entries, generate

    assert entries() == generate(), "the catalogue is stale: run python -m noisecraft.noise_models.catalogue"
