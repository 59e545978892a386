"""The output folder is a transaction: one writer at a time, staged configs, one card switched in, leftovers removed.

A commit killed at any step is tested in tests/test_atomic_view.py."""

from __future__ import annotations

import errno
import json

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import noisecraft as nc
from noisecraft.dataset import repo as repo_module
from noisecraft.dataset.repo import CARD, DatasetRepo, card_with_manifest, read_manifest, split_card
from noisecraft.errors import ConfigError, NoisecraftError


def files(root):
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file() and p.name != ".noisecraft.lock"}


def test_a_second_writer_is_refused_while_the_first_holds_the_folder(tmp_path):
    nc.build("demo", noise="keyboard", out=tmp_path, progress=False)
    with DatasetRepo(tmp_path, "1.0.0"):
        with pytest.raises(ConfigError, match="another noisecraft is writing to"):
            nc.build("demo", noise="swap", out=tmp_path, progress=False)
    nc.build("demo", noise="swap", out=tmp_path, progress=False)  # the lock went with the first writer
    assert {"demo-en-keyboard", "demo-en-swap"} <= {p.name for p in tmp_path.iterdir()}


def test_a_failing_later_config_leaves_the_folder_as_it_was(tmp_path):
    nc.build("demo", noise="keyboard", out=tmp_path, progress=False)
    before = files(tmp_path)
    with pytest.raises(ConfigError, match="destroy the 'answers' spans"):
        nc.build("demo", noise=["swap", "sort"], fields=["context"], out=tmp_path, progress=False)
    assert files(tmp_path) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".staging")]


@pytest.mark.parametrize("name", ["../escape", "README.md", ".hidden", "a/b", "x" * 101])
def test_config_names_are_checked(tmp_path, name):
    with pytest.raises(ConfigError, match="invalid config name"):
        nc.build("demo", out=tmp_path, config_name=name, progress=False)
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_a_failed_first_build_leaves_no_folder(tmp_path):
    out = tmp_path / "new"
    with pytest.raises(ConfigError):
        nc.build("demo", noise="sort", fields=["context"], out=out, progress=False)
    assert not out.exists()


def test_out_that_is_a_file_is_a_clear_error(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="exists and is not a folder"):
        nc.build("demo", out=tmp_path / "file", progress=False)


def test_a_build_that_drops_every_row_writes_nothing(tmp_path):
    tsv = tmp_path / "dev.tsv"
    tsv.write_text("sentence\tlabel\nbrilliant\t1\nawful awful awful\t0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"every row of .*dev.tsv was dropped \(2 shuffle"):
        nc.build("glue/sst2", noise="shuffle", data_file=tsv, out=tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()


SCHEMA = datasets.Features({"id": datasets.Value("string"), "question": datasets.Value("string")}).arrow_schema


def write(root, rate: float) -> None:
    with DatasetRepo(root, "1.0.0") as repo:
        repo.write_split("a", "validation", [pa.table({"id": ["q1"], "question": [f"a at rate {rate}"]})], SCHEMA)
        repo.record_config("a", {"spec": {"source": "demo", "noise": f"keyboard(rate={rate})"}, "stats": {}})
        repo.commit(f"card of rate {rate}\n")


def state(root) -> dict:
    """What a reader sees: the card and the rows of the files it names."""
    manifest = read_manifest(root)
    rows = {name: [r["question"] for paths in entry["files"].values() for p in paths
                   for r in pq.read_table(root / p).to_pylist()] for name, entry in manifest["configs"].items()}
    return {"card": (root / CARD).read_text(encoding="utf-8"), "rows": rows}


def test_leftovers_of_a_killed_writer_are_removed_by_the_next_writer(tmp_path):
    write(tmp_path, 0.25)
    (tmp_path / ".staging-a.x1").mkdir()
    (tmp_path / ".staging-a.x1" / "00000.parquet").write_bytes(b"half")
    (tmp_path / ".README.md.abc.tmp").write_text("half")
    unnamed = [tmp_path / "a" / "validation-0123456789ab-00000-of-00001.parquet", tmp_path / "b" / "validation-"
               "0123456789ab-00000-of-00001.parquet"]  # moved in by a commit killed before its card
    for path in unnamed:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"PAR1")
    (tmp_path / "a" / "notes.txt").write_text("not a data file noisecraft names: kept")
    before = state(tmp_path)
    DatasetRepo(tmp_path, "1.0.0").close()
    assert {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")} == {
        ".noisecraft.lock", "README.md", "a", *read_manifest(tmp_path)["configs"]["a"]["files"]["validation"], "a/notes.txt"}
    assert state(tmp_path) == before == {"card": before["card"], "rows": {"a": ["a at rate 0.25"]}}


@pytest.mark.parametrize("manifest, problem", [
    ([1, 2], "expected a JSON object, got list"),
    ({"configs": 5}, "'configs' must be an object of configs, got int"),
    ({"configs": {"a": 1}}, "config 'a' must be an object with a 'spec' object"),
    ({"configs": {}, "kind": 3}, "'kind' and 'version' must be strings"),
])
def test_a_manifest_of_the_wrong_shape_is_a_one_line_error(tmp_path, manifest, problem):
    write(tmp_path, 0.25)
    (tmp_path / CARD).write_text(card_with_manifest("a card\n", manifest), encoding="utf-8")
    for action in (lambda: read_manifest(tmp_path), lambda: DatasetRepo(tmp_path, "1.0.0").close()):
        with pytest.raises(NoisecraftError) as exc:
            action()
        assert str(exc.value) == f"{tmp_path / CARD}: not a noisecraft manifest: {problem}"


@pytest.mark.parametrize("damage, problem", [
    (lambda text: text.replace('"configs"', '"configs" "'), "unreadable manifest: Expecting ':' delimiter"),
    (lambda text: text.rstrip("\n-> "), "unreadable manifest: the comment that carries it is not closed"),
    (lambda text: text + "more text\n", "unreadable manifest: the comment that carries it is not closed"),
])
def test_a_card_whose_manifest_does_not_read_is_a_one_line_error(tmp_path, damage, problem):
    write(tmp_path, 0.25)
    (tmp_path / CARD).write_text(damage((tmp_path / CARD).read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        DatasetRepo(tmp_path, "1.0.0")
    assert str(exc.value).startswith(f"{tmp_path / CARD}: {problem}") and "\n" not in str(exc.value)


def test_the_manifest_in_the_card_reads_back_whatever_its_text(tmp_path):
    manifest = {"configs": {"a": {"spec": {"text": "--> <!-- & \u2028 -->"}}}, "kind": "x", "version": "1"}
    card = card_with_manifest("# card\n", manifest)
    assert split_card(card, tmp_path) == ("# card\n", manifest)
    assert card.count("-->") == 1 and json.dumps(manifest) not in card


def test_a_folder_of_another_tool_is_refused_not_cleaned(tmp_path):
    (tmp_path / CARD).write_text("# someone else's dataset\n", encoding="utf-8")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train-0123456789ab-00000-of-00001.parquet").write_bytes(b"PAR1")
    with pytest.raises(ConfigError, match="is not empty and holds no noisecraft dataset"):
        DatasetRepo(tmp_path, "1.0.0")
    with pytest.raises(ConfigError, match="holds no noisecraft dataset"):
        read_manifest(tmp_path)


@pytest.mark.parametrize("where", ["parquet", "card"])
def test_disk_full_is_a_one_line_error_and_the_folder_is_safe(tmp_path, monkeypatch, capsys, where):
    from noisecraft.cli import main

    out = tmp_path / "out"
    assert main(["build", "--source", "demo", "--out", str(out), "--no-progress"]) == 0
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    card = (out / CARD).read_bytes()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    if where == "parquet":
        monkeypatch.setattr(pq.ParquetWriter, "write_table", full)
    else:
        monkeypatch.setattr(repo_module.tempfile, "mkstemp", full)
    assert main(["build", "--source", "demo", "--noise", "swap", "--out", str(out), "--no-progress"]) == 2
    [message] = capsys.readouterr().err.strip().splitlines()
    assert message.startswith(f"noisecraft: error: cannot write {out}") and "No space left on device" in message
    monkeypatch.undo()
    assert (out / CARD).read_bytes() == card and sorted(p.relative_to(out) for p in out.rglob("*")) == before
