"""Golden outputs per noise model (tests/golden/<noise>@<version>.jsonl): a diff is a version bump.

Each line holds an input (text, language, parameters, seed, id, protected spans) and the exact
output and edit log the model gave when the file was written. The inputs cover every built-in
layout and script, both keyboard modes, protected spans, and dictionary-based placement. The files
are written by :mod:`noisecraft.noise_models.golden` (``scripts/write_golden.py``): the test runs that writer on each
file's own inputs and wants the file back byte for byte, and replays every edit log.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noisecraft.core.edits import Edit, apply_edits
from noisecraft.noise_models.golden import INPUT_KEYS, OPTIONAL_INPUT_KEYS, golden_lines
from noisecraft.noise_models.registry import VERSIONS

from tiny_models import resolve_tiny

GOLDEN = Path(__file__).parent / "golden"
REPO = Path(__file__).resolve().parents[1]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_noise_model_version_has_a_golden_file():
    assert {f"{n}@{v}" for n, v in VERSIONS} == {p.stem for p in GOLDEN.glob("*.jsonl")}


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.jsonl")), ids=lambda p: p.stem)
def test_golden_outputs_are_reproduced_exactly(path, monkeypatch):
    monkeypatch.chdir(REPO)  # dictionary paths in the golden files are relative to the repository
    want = records(path)
    inputs = [{k: v for k, v in record.items() if k in INPUT_KEYS + OPTIONAL_INPUT_KEYS} for record in want]
    got = golden_lines(inputs, resolve_tiny)
    for mine, theirs in zip(got.splitlines(), want):
        assert json.loads(mine) == theirs, (theirs["noise"], theirs["params"], theirs["text"])
    assert got == path.read_text(encoding="utf-8")  # the writer gives the file back byte for byte
    for record in want:
        replaced = record["text"][1] if isinstance(record["text"], list) else record["text"]
        if isinstance(record["text"], list) and len(record["text"]) == 3:  # a pair task's field: its target side
            replaced = record["text"][record["text"][2]]
        assert apply_edits(replaced, [Edit(*e) for e in record["edits"]]) == record["output"]


def test_the_golden_writer_writes_a_new_file_from_inputs_and_checks_an_existing_one(tmp_path):
    """A new model's golden file comes from its inputs through scripts/write_golden.py, never by hand."""
    import subprocess
    import sys

    source = GOLDEN / "keyboard@2.jsonl"
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text("".join(json.dumps({k: v for k, v in r.items() if k in INPUT_KEYS}, ensure_ascii=False) + "\n"
                              for r in records(source)[:3]), encoding="utf-8")
    target = tmp_path / "keyboard@2.jsonl"
    script = [sys.executable, str(REPO / "scripts" / "write_golden.py")]
    written = subprocess.run([*script, str(target), "--inputs", str(inputs)], capture_output=True, text=True, cwd=REPO)
    assert written.returncode == 0, written.stderr
    assert target.read_text(encoding="utf-8").splitlines() == source.read_text(encoding="utf-8").splitlines()[:3]
    assert subprocess.run([*script, str(target), "--check"], cwd=REPO, capture_output=True).returncode == 0
    target.write_text(target.read_text(encoding="utf-8").replace('"output": "', '"output": "x', 1), encoding="utf-8")
    changed = subprocess.run([*script, str(target), "--check"], cwd=REPO, capture_output=True, text=True)
    assert changed.returncode == 1 and "DIFFERS" in changed.stdout
    wrong = subprocess.run([*script, str(tmp_path / "swap@1.jsonl"), "--inputs", str(inputs)], cwd=REPO,
                           capture_output=True, text=True)
    assert wrong.returncode == 2 and "record of 'keyboard@2' in the golden file of 'swap@1'" in wrong.stderr
