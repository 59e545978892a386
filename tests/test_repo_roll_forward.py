"""An --overwrite rebuild killed at any step of its commit is never read half done.

The commit writes a journal, then swaps config folders in one ``os.replace`` at a time, then writes manifest and
card. A crash is injected at every one of those steps: after it, either the folder is exactly as before, or the
journal is there and every reader (evaluate, publish, noise dictionaries) refuses the folder; the next writer
finishes the commit and removes what the killed one left. A commit that could be seen half done fails here.
"""

from __future__ import annotations

import json
import os

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from noisecraft.dataset import repo as repo_module
from noisecraft.dataset.repo import JOURNAL, MANIFEST, DatasetRepo, read_manifest
from noisecraft.errors import ConfigError, NoisecraftError

SCHEMA = datasets.Features({"id": datasets.Value("string"), "question": datasets.Value("string")}).arrow_schema


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs in the writer."""


def write(root, rate: float, configs=("a",)) -> None:
    with DatasetRepo(root, "1.0.0") as repo:
        for name in configs:
            table = pa.table({"id": ["q1"], "question": [f"{name} at rate {rate}"]})
            repo.write_split(name, "validation", [table], SCHEMA)
            repo.record_config(name, {"spec": {"source": "demo", "noise": f"keyboard(rate={rate})"}, "stats": {}})
        repo.commit(f"card of rate {rate}\n")


def state(root) -> dict:
    """What a reader would see: manifest specs, card and the rows of every config folder."""
    manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    rows = {sub.name: [r["question"] for f in sorted(sub.glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
            for sub in sorted(root.iterdir()) if sub.is_dir() and not sub.name.startswith(".")}
    return {"specs": {k: v["spec"] for k, v in manifest["configs"].items()}, "card": (root / "README.md").read_text(),
            "rows": rows}


def leftovers(root) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith((".staging-", ".old-")) or p.name.endswith(".tmp"))


def count_replaces(tmp_path) -> int:
    root = tmp_path / "count"
    write(root, 0.25)
    calls = []
    real = os.replace
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(repo_module.os, "replace", lambda *a: (calls.append(a), real(*a))[1])
        write(root, 0.9, configs=("a", "b"))
    return len(calls)


def test_a_commit_killed_at_any_step_is_never_read_half_done(tmp_path, monkeypatch):
    steps = count_replaces(tmp_path)
    assert steps >= 5  # journal, old a out, new a in, b in, manifest, card
    for crash_at in range(1, steps + 1):
        root = tmp_path / f"crash-{crash_at}"
        write(root, 0.25)
        before = state(root)
        calls = []
        real = os.replace

        def replace(*args, calls=calls, crash_at=crash_at, real=real):
            calls.append(args)
            if len(calls) == crash_at:
                raise Killed
            return real(*args)

        monkeypatch.setattr(repo_module.os, "replace", replace)
        with pytest.raises(Killed):
            write(root, 0.9, configs=("a", "b"))
        monkeypatch.setattr(repo_module.os, "replace", real)
        if (root / JOURNAL).exists():
            with pytest.raises(ConfigError, match="unfinished commit"):
                read_manifest(root)
            from noisecraft.dataset.publish import verify_local

            with pytest.raises(ConfigError, match="unfinished commit"):
                verify_local(root)
        else:
            assert state(root) == before, f"crash at replace {crash_at}: the folder changed without a journal"
        # the next writer finishes the commit and cleans up what the killed one left
        DatasetRepo(root, "1.0.0").close()
        after = state(root)
        if crash_at > 1:  # the journal was written: the new build is what the folder holds now
            assert after["rows"] == {"a": ["a at rate 0.9"], "b": ["b at rate 0.9"]} and after["card"] == "card of rate 0.9\n"
        else:
            assert after == before
        assert leftovers(root) == [] and not (root / JOURNAL).exists()


def test_leftovers_of_a_killed_writer_are_removed_by_the_next_writer(tmp_path):
    write(tmp_path, 0.25)
    (tmp_path / ".staging-a.x1").mkdir()
    (tmp_path / ".staging-a.x1" / "00000.parquet").write_bytes(b"half")
    (tmp_path / ".old-a.x2").mkdir()
    (tmp_path / ".README.md.abc.tmp").write_text("half")
    DatasetRepo(tmp_path, "1.0.0").close()
    assert leftovers(tmp_path) == [] and state(tmp_path)["rows"] == {"a": ["a at rate 0.25"]}


def test_evaluate_refuses_a_folder_with_a_pending_commit(tmp_path):
    pytest.importorskip("noisecraft.harness.challenge_set")
    from noisecraft.harness.challenge_set import open_challenge_set

    write(tmp_path, 0.25)
    (tmp_path / JOURNAL).write_text("{}")
    with pytest.raises(ConfigError, match="unfinished commit"):
        open_challenge_set(tmp_path)


@pytest.mark.parametrize("manifest, problem", [
    ([1, 2], "expected a JSON object, got list"),
    ({"configs": 5}, "'configs' must be an object of configs, got int"),
    ({"configs": {"a": 1}}, "config 'a' must be an object with a 'spec' object"),
    ({"configs": {}, "kind": 3}, "'kind' and 'version' must be strings"),
])
def test_a_manifest_of_the_wrong_shape_is_a_one_line_error(tmp_path, manifest, problem):
    write(tmp_path, 0.25)
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    for action in (lambda: read_manifest(tmp_path), lambda: DatasetRepo(tmp_path, "1.0.0").close()):
        with pytest.raises(NoisecraftError) as exc:
            action()
        assert str(exc.value) == f"{tmp_path / MANIFEST}: not a noisecraft manifest: {problem}"


@pytest.mark.parametrize("journal", [[1, 2], {"configs": 5}, {"configs": {"a": "../elsewhere"}, "card": "x"},
                                     {"configs": {}, "card": "x", "manifest": [1]}, "not json"])
def test_a_journal_of_the_wrong_shape_is_a_one_line_error(tmp_path, journal):
    write(tmp_path, 0.25)
    (tmp_path / JOURNAL).write_text(journal if isinstance(journal, str) else json.dumps(journal))
    with pytest.raises(ConfigError) as exc:
        DatasetRepo(tmp_path, "1.0.0")
    message = str(exc.value)
    assert message.startswith(str(tmp_path / JOURNAL)) and "\n" not in message
    assert "remove it" in message or "not a noisecraft manifest" in message
    assert state(tmp_path)["rows"] == {"a": ["a at rate 0.25"]}  # nothing was touched


@pytest.mark.parametrize("where", ["parquet", "journal"])
def test_disk_full_is_a_one_line_error_and_the_folder_is_safe(tmp_path, monkeypatch, capsys, where):
    import errno

    from noisecraft.cli import main

    out = tmp_path / "out"
    assert main(["build", "--source", "demo", "--out", str(out), "--no-progress"]) == 0
    before = state(out)

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
    assert state(out) == before and leftovers(out) == [] and not (out / JOURNAL).exists()
