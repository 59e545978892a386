"""The output folder is a transaction: one writer at a time, staged configs, a journal rolled forward."""

from __future__ import annotations

import datasets
import pytest

import noisecraft as nc
from noisecraft.dataset.repo import JOURNAL, DatasetRepo
from noisecraft.errors import ConfigError


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


def test_an_interrupted_commit_is_rolled_forward_on_the_next_open(tmp_path, monkeypatch):
    nc.build("demo", noise="keyboard", out=tmp_path, progress=False, config_name="kb")
    calls = []
    original = DatasetRepo._roll_forward

    def crash_once(self):
        if (self.root / JOURNAL).is_file() and not calls:
            calls.append(1)
            raise KeyboardInterrupt  # the journal is written, nothing swapped in yet
        return original(self)

    monkeypatch.setattr(DatasetRepo, "_roll_forward", crash_once)
    with pytest.raises(KeyboardInterrupt):
        nc.build("demo", noise="keyboard(rate=1)", out=tmp_path, progress=False, config_name="kb", overwrite=True)
    assert (tmp_path / JOURNAL).is_file()
    monkeypatch.setattr(DatasetRepo, "_roll_forward", original)
    DatasetRepo(tmp_path, "1.0.0").close()  # any open finishes the commit
    assert not (tmp_path / JOURNAL).exists()
    rows = datasets.load_dataset(str(tmp_path), "kb", split="validation")
    assert all(r["question"] != r["original_question"] for r in rows)  # rate 1: the new config is in place
    assert '"rate": 1.0' in (tmp_path / "noisecraft.json").read_text()
    assert "| rate | 1.0 |" in (tmp_path / "README.md").read_text()


@pytest.mark.parametrize("name", ["../escape", "README.md", ".hidden", "a/b", "x" * 101, "noisecraft.json"])
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
