"""Golden outputs per noise model (tests/golden/<noise>@<version>.jsonl): a diff is a version bump.

Each line holds an input (text, language, parameters, seed, id, protected spans) and the exact
output and edit log the model gave when the file was written. The inputs cover every built-in
layout and script, both keyboard modes, protected spans, and dictionary-based placement.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from noisecraft.edits import Edit, apply_edits
from noisecraft.noise_models.registry import VERSIONS, create

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
    for record in records(path):
        params = {key: resolve_tiny(value) for key, value in record["params"].items()}  # "tiny:<name>" models
        model = create(record["noise"], lang=record["lang"], **params)
        protected = [[tuple(s) for s in record["protected"]]] if record["protected"] else None
        text = tuple(record["text"]) if isinstance(record["text"], list) else record["text"]  # pair models
        [noised] = model([text], seed=record["seed"], ids=[record["id"]], field=record["field"],
                         protected=protected)
        got = {"output": noised.text, "edits": [list(e) for e in noised.edits], "failure": noised.failure}
        want = {k: record[k] for k in ("output", "edits", "failure")}
        assert got == want, (record["noise"], record["params"], record["text"])
        replaced = text[1] if isinstance(text, tuple) else text
        assert apply_edits(replaced, [Edit(*e) for e in record["edits"]]) == record["output"]
