"""The card's regenerate command runs as printed: from any folder, once DATA and OUT are replaced.

Each test builds a config, reads the command and the sentence saying what ``DATA`` stands for back from the
card, runs the command from another folder with ``DATA`` replaced by that folder, and compares the parquet
bytes with the first build's.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

import noisecraft as nc
from noisecraft.cli import main
from noisecraft.dataset.repo import read_manifest
from noisecraft.errors import ConfigError
from noisecraft.sources.registry import demo_file

from conftest import REPO_ROOT, corpus


def card_commands(out: Path) -> list[tuple[list[str], str]]:
    """Every config's regenerate command (as argv) and what its DATA stands for ("" when it has no DATA)."""
    card = (out / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"Regenerate:\n\n```bash\n(.+?)\n```\n\n(.+?)\n", card)
    assert found, "the card prints no regenerate command"
    commands = []
    for command, note in found:
        data = re.match(r"`DATA` stands for (.+), and `OUT` for the output folder", note)
        assert data or note.startswith("`OUT` stands for the output folder"), note
        commands.append((shlex.split(command), data.group(1) if data else ""))
    return commands


def regenerate(out: Path, data: Path | None, elsewhere: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run the card's only command from ``elsewhere`` with DATA -> ``data`` and OUT -> ``elsewhere/again``."""
    [(argv, _)] = card_commands(out)
    assert argv[:2] == ["noisecraft", "build"] and "OUT" in argv
    assert ("DATA" in argv) == (data is not None)
    again = elsewhere / "again"
    args = [str(data) if a == "DATA" else str(again) if a == "OUT" else a for a in argv[1:]]
    elsewhere.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(elsewhere)
    assert main([*args, "--no-progress"]) == 0
    return again


def same_parquet(first: Path, second: Path) -> None:
    files = sorted(p.relative_to(first) for p in first.rglob("*.parquet"))
    assert files and files == sorted(p.relative_to(second) for p in second.rglob("*.parquet"))
    for file in files:
        assert (first / file).read_bytes() == (second / file).read_bytes(), file


def manifest_file(out: Path) -> dict:
    [entry] = read_manifest(out)["configs"].values()
    return entry["input"]["file"]


def test_a_build_from_the_shipped_sample_under_a_data_dir(tmp_path, monkeypatch):
    root = demo_file().parent
    out = tmp_path / "out"
    assert main(["build", "--source", "squad", "--data-dir", str(root), "--data-file", demo_file().name,
                 "--noise", "keyboard(rate=0.5)", "--seed", "4", "--out", str(out), "--no-progress"]) == 0
    [(argv, data)] = card_commands(out)
    assert argv[argv.index("--data-dir") + 1] == "DATA" and argv[argv.index("--data-file") + 1] == demo_file().name
    assert "--data-dir" in data and str(root) not in (out / "README.md").read_text(encoding="utf-8")
    assert manifest_file(out)["path"] == demo_file().name
    same_parquet(out, regenerate(out, root, tmp_path / "elsewhere", monkeypatch))


def test_a_relative_data_file_without_a_data_dir_is_under_the_folder_the_build_ran_in(tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    shutil.copy(demo_file(), work / "data" / "squad.json")
    monkeypatch.chdir(work)
    out = tmp_path / "out"
    assert main(["build", "--source", "squad", "--data-file", "data/squad.json", "--out", str(out), "--no-progress"]) == 0
    [(argv, data)] = card_commands(out)
    assert argv[argv.index("--data-file") + 1] == "data/squad.json" and data == "the folder the build was run in"
    same_parquet(out, regenerate(out, work, tmp_path / "elsewhere", monkeypatch))


def test_an_absolute_data_file_is_named_under_the_build_folder_or_its_own(tmp_path, monkeypatch):
    inside = tmp_path / "work" / "sets" / "squad.json"
    inside.parent.mkdir(parents=True)
    shutil.copy(demo_file(), inside)
    monkeypatch.chdir(tmp_path / "work")
    nc.build("squad", "swap", tmp_path / "a", data_file=inside, progress=False)
    [(argv, data)] = card_commands(tmp_path / "a")
    assert argv[argv.index("--data-file") + 1] == "sets/squad.json" and data == "the folder the build was run in"

    monkeypatch.chdir(tmp_path / "work" / "sets")
    outside = tmp_path / "elsewhere" / "squad.json"  # outside the build's folder: by its name, DATA holds it
    outside.parent.mkdir()
    shutil.copy(demo_file(), outside)
    nc.build("squad", "swap", tmp_path / "b", data_file=outside, progress=False)
    [(argv, data)] = card_commands(tmp_path / "b")
    assert argv[argv.index("--data-file") + 1] == "squad.json" and data == "the folder that holds `squad.json`"
    assert str(tmp_path) not in (tmp_path / "b" / "README.md").read_text(encoding="utf-8")
    same_parquet(tmp_path / "b", regenerate(tmp_path / "b", outside.parent, tmp_path / "third", monkeypatch))


def test_a_hub_build_prints_no_data_dir(tmp_path):
    nc.build("demo", "keyboard", tmp_path / "out", progress=False)
    [(argv, data)] = card_commands(tmp_path / "out")
    assert "--data-dir" not in argv and "--data-file" not in argv and data == ""


@pytest.mark.parametrize("source, lang, relative", [("glue/mrpc", "en", "glue/MRPC/dev.tsv"),
                                                    ("xquad", "de", "xquad/xquad.de.json")])
def test_a_build_from_the_shared_corpora(source, lang, relative, tmp_path, monkeypatch):
    root = corpus(relative).parents[relative.count("/")]
    out = tmp_path / "out"
    nc.build(source, "keyboard(rate=0.1)", out, lang=lang, data_dir=root, data_file=relative, seed=3, progress=False)
    [(argv, _)] = card_commands(out)
    assert argv[argv.index("--data-file") + 1] == relative and manifest_file(out)["path"] == relative
    same_parquet(out, regenerate(out, root, tmp_path / "elsewhere", monkeypatch))


def test_a_recipe_build_prints_its_files_under_its_data_dir(tmp_path, monkeypatch):
    root = corpus("xquad/xquad.en.json").parents[1]
    out = tmp_path / "out"
    nc.build_recipe(REPO_ROOT / "scripts" / "recipes" / "noiseqa-keyboard.toml", out, data_dir=root, progress=False)
    [(argv, _)] = card_commands(out)
    assert argv[argv.index("--data-file") + 1] == "xquad/xquad.en.json"
    same_parquet(out, regenerate(out, root, tmp_path / "elsewhere", monkeypatch))


def test_a_data_dir_needs_a_data_file_and_must_exist(tmp_path, capsys):
    with pytest.raises(ConfigError, match="give the file too"):
        nc.build("demo", "keyboard", tmp_path / "out", data_dir=tmp_path, progress=False)
    assert main(["build", "--source", "squad", "--data-dir", str(tmp_path / "missing"), "--data-file", "x.json",
                 "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    [message] = capsys.readouterr().err.strip().splitlines()
    assert "--data-dir" in message and "missing: no such folder" in message
    assert not (tmp_path / "out").exists()


PAIRS = REPO_ROOT / "tests" / "data" / "natural_pairs.tsv"


def noise_of(argv: list[str]) -> str:
    return argv[argv.index("--noise") + 1]


def test_a_dictionary_under_the_data_dir_is_read_there_and_printed_under_data(tmp_path, monkeypatch):
    root = tmp_path / "releases"
    (root / "dicts").mkdir(parents=True)
    shutil.copy(demo_file(), root / "squad.json")
    shutil.copy(PAIRS, root / "dicts" / "pairs.tsv")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")  # no dicts/ here: --data-dir alone finds the dictionary
    out = tmp_path / "out"
    assert main(["build", "--source", "squad", "--data-dir", str(root), "--data-file", "squad.json",
                 "--noise", "misspelling(dictionary=dicts/pairs.tsv, rate=1.0)", "--seed", "2", "--out", str(out),
                 "--no-progress"]) == 0
    [(argv, data)] = card_commands(out)
    assert "dictionary=dicts/pairs.tsv" in noise_of(argv) and data.startswith("the folder of original release files")
    assert str(tmp_path) not in (out / "README.md").read_text(encoding="utf-8")
    same_parquet(out, regenerate(out, root, tmp_path / "elsewhere", monkeypatch))


def test_a_dictionary_in_the_build_folder_moves_with_data(tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    (work / "dicts").mkdir()
    shutil.copy(demo_file(), work / "data" / "squad.json")
    shutil.copy(PAIRS, work / "dicts" / "pairs.tsv")
    monkeypatch.chdir(work)
    nc.build("squad", f"misspelling(dictionary={work / 'dicts' / 'pairs.tsv'}, rate=1.0)", tmp_path / "out",
             data_file="data/squad.json", progress=False)
    [(argv, data)] = card_commands(tmp_path / "out")
    assert "dictionary=dicts/pairs.tsv" in noise_of(argv) and data == "the folder the build was run in"
    moved = tmp_path / "moved"  # the whole build folder elsewhere: DATA is where it now lies
    shutil.copytree(work, moved)
    shutil.rmtree(work)
    same_parquet(tmp_path / "out", regenerate(tmp_path / "out", moved, tmp_path / "elsewhere", monkeypatch))


def test_a_dictionary_outside_data_is_printed_by_name_and_placed_in_data(tmp_path, monkeypatch):
    root = tmp_path / "releases"
    root.mkdir()
    shutil.copy(demo_file(), root / "squad.json")
    far = tmp_path / "far" / "pairs.tsv"
    far.parent.mkdir()
    shutil.copy(PAIRS, far)
    out = tmp_path / "out"
    nc.build("squad", f"misspelling(dictionary={far}, rate=1.0)", out, data_dir=root, data_file="squad.json",
             progress=False)
    card = (out / "README.md").read_text(encoding="utf-8")
    [(argv, _)] = card_commands(out)
    assert "dictionary=pairs.tsv" in noise_of(argv) and str(tmp_path) not in card
    assert "The noise names `pairs.tsv` by file name: place it in `DATA` too." in card
    again = tmp_path / "again-data"  # DATA as the card asks for it: the release file and the dictionary
    again.mkdir()
    shutil.copy(demo_file(), again / "squad.json")
    shutil.copy(PAIRS, again / "pairs.tsv")
    same_parquet(out, regenerate(out, again, tmp_path / "elsewhere", monkeypatch))


def test_a_hub_build_names_its_dictionary_under_the_folder_it_runs_from(tmp_path, monkeypatch):
    work = tmp_path / "work"
    (work / "dicts").mkdir(parents=True)
    shutil.copy(PAIRS, work / "dicts" / "pairs.tsv")
    monkeypatch.chdir(work)
    nc.build("demo", "misspelling(dictionary=dicts/pairs.tsv, rate=1.0)", tmp_path / "out", progress=False)
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    [(argv, data)] = card_commands(tmp_path / "out")
    assert "dictionary=dicts/pairs.tsv" in noise_of(argv) and data == ""
    assert "Run it from a folder that holds `dicts/pairs.tsv`" in card
    shutil.copytree(work, tmp_path / "elsewhere")
    same_parquet(tmp_path / "out", regenerate(tmp_path / "out", None, tmp_path / "elsewhere", monkeypatch))


def test_a_data_dir_reads_a_relative_dictionary_of_a_recipe_and_a_build_alike(tmp_path):
    from noisecraft.noise_models.registry import noise_from_table, parse_noise

    (tmp_path / "dicts").mkdir()
    shutil.copy(PAIRS, tmp_path / "dicts" / "pairs.tsv")
    text = parse_noise("misspelling(dictionary=dicts/pairs.tsv) | keyboard(layout=qwerty)", "en", tmp_path)
    table = noise_from_table({"chain": [{"name": "misspelling", "dictionary": "dicts/pairs.tsv"},
                                        {"name": "keyboard", "layout": "qwerty"}]}, "en", tmp_path)
    assert text == table and text.steps()[0].dictionary == str(tmp_path / "dicts" / "pairs.tsv")
    assert text.steps()[1].layout == "qwerty"  # a built-in layout is no file under the data dir


def test_a_source_file_or_folder_keeps_the_manifest_digest_it_always_had(tmp_path):
    """One digest implementation (runtime.loading's) serves the manifest's ``input.file``, whose ``sha256`` stays the
    bare hex of sha256 over the folder's ``relative name NUL bytes`` in name order, so folders built before compare
    equal."""
    import hashlib

    from noisecraft.building.pipeline import _file_identity

    folder = tmp_path / "lexicon"
    (folder / "b").mkdir(parents=True)
    (folder / "a.txt").write_text("alpha\n", encoding="utf-8")
    (folder / "b" / "c.txt").write_text("gamma\n", encoding="utf-8")
    expected = hashlib.sha256(b"a.txt\0alpha\nb/c.txt\0gamma\n").hexdigest()
    assert _file_identity(folder) == {"name": "lexicon/", "sha256": expected}
    assert _file_identity(folder / "a.txt") == {"name": "a.txt", "sha256": hashlib.sha256(b"alpha\n").hexdigest()}


def test_a_file_parameter_is_recorded_the_same_however_its_path_is_spelled(tmp_path, monkeypatch):
    """``dictionary=misspellings-en/`` and ``dictionary=../misspellings-en``, ``model=models/mrpc-model`` and
    ``model=mrpc-model``, from two working folders: the same rows, byte for byte (the name and the content digest
    are recorded, not the path), and the card's command rebuilds them."""
    from noisecraft.mining.misspellings import misspelling_dictionary
    from noisecraft.mining.output import write_dictionary

    from tiny_models import tiny_model

    work = tmp_path / "work"
    (work / "models").mkdir(parents=True)
    wikipedia_list = tmp_path / "list.txt"
    wikipedia_list.write_text("teh->the\nadn->and\nwich->which\n", encoding="utf-8")
    write_dictionary(work / "misspellings-en", misspelling_dictionary([wikipedia_list], lang="en"))
    shutil.copytree(tiny_model("cls-mrpc"), work / "models" / "mrpc-model")
    data = tmp_path / "mrpc.tsv"
    data.write_text("".join(corpus("glue/MRPC/dev.tsv").read_text(encoding="utf-8").splitlines(keepends=True)[:13]),
                    encoding="utf-8")
    spellings = {work: ("misspellings-en/", "models/mrpc-model"), work / "models": ("../misspellings-en", "mrpc-model")}
    outs = []
    for folder, (dictionary, model) in spellings.items():
        monkeypatch.chdir(folder)
        outs.append(tmp_path / f"out-{len(outs)}")
        nc.build("glue/mrpc", [f"misspelling(dictionary={dictionary}, rate=1.0)", f"drop(model={model}, r=0.5)"],
                 outs[-1], data_file=data, progress=False)
    same_parquet(*outs)
    import pyarrow.parquet as pq

    params = [json.loads(pq.read_table(p).column("noise_params")[0].as_py()) for p in sorted(outs[0].rglob("*.parquet"))]
    recorded = {k: v for p in params for k, v in p.items()}
    assert recorded["dictionary"] == "misspellings-en" and recorded["model"] == "mrpc-model"
    assert recorded["dictionary_digest"] and recorded["model_digest"].startswith("sha256:")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    for argv, data in card_commands(outs[1]):  # each config's command: its files are under DATA (the data's folder)
        assert "mrpc.tsv" in data
        again = tmp_path / "again"
        shutil.rmtree(again, ignore_errors=True)
        assert main([{"DATA": str(tmp_path), "OUT": str(again)}.get(a, a) for a in argv[1:]] + ["--no-progress"]) == 0
        for file in again.rglob("*.parquet"):
            assert file.read_bytes() == (outs[0] / file.relative_to(again)).read_bytes(), argv
