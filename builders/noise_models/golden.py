"""Golden records: the exact output of a noise model version on fixed inputs (``tests/golden/<noise>@<v>.jsonl``).

A golden file is written by this module, never by hand: :func:`golden_lines` runs each input record
(``noise``, ``params``, ``lang``, ``seed``, ``id``, ``field``, ``text``, ``protected``) through the
registered model exactly as ``tests/test_golden.py`` replays it, and appends ``output``, ``edits`` and
``failure``. Re-running it on a golden file's own inputs gives the file back byte for byte (the test
checks that), so a diff after a change is the version bump it announces. ``scripts/write_golden.py`` is
the command line (it also resolves the tests' ``tiny:<name>`` models).

A ``text`` is a string, a ``[first, second]`` pair for pair models (copy-sort), or ``[first, second,
target]`` for a field of a pair task (the model noises ``target`` and may read the other side). An optional
``label`` is the row's class label, for models that read it (per-label generators).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from noisecraft.errors import InputError
from noisecraft.noise_models.base import PairText
from noisecraft.noise_models.registry import create

INPUT_KEYS = ("noise", "params", "lang", "seed", "id", "field", "text", "protected")
#: Input keys a record may leave out.
OPTIONAL_INPUT_KEYS = ("label",)
OUTPUT_KEYS = ("output", "edits", "failure")


def model_input(text: Any) -> Any:
    """A record's ``text`` as the model takes it: a string, a ``(first, second)`` pair, or a :class:`PairText`."""
    if isinstance(text, list):
        return PairText(*text) if len(text) == 3 else tuple(text)
    return text


def golden_record(inputs: Mapping[str, Any], resolve: Callable[[Any], Any] = lambda value: value) -> dict[str, Any]:
    """The input record (keys in its own order) with the model's ``output``, ``edits`` and ``failure``.
    ``resolve`` maps parameter values before the model is made (e.g. ``tiny:<name>`` -> a model folder)."""
    missing = [key for key in INPUT_KEYS if key not in inputs]
    if missing:
        raise InputError(f"golden input {inputs.get('id', '?')!r}: missing {', '.join(missing)}")
    record = {key: value for key, value in inputs.items() if key not in OUTPUT_KEYS}
    model = create(inputs["noise"], lang=inputs["lang"], **{k: resolve(v) for k, v in inputs["params"].items()})
    protected = [[tuple(s) for s in inputs["protected"]]] if inputs["protected"] else None
    [noised] = model([model_input(inputs["text"])], seed=inputs["seed"], ids=[inputs["id"]], field=inputs["field"],
                     protected=protected, labels=[inputs["label"]] if "label" in inputs else None)
    return {**record, "output": noised.text, "edits": [list(e) for e in noised.edits], "failure": noised.failure}


def golden_lines(records: Iterable[Mapping[str, Any]], resolve: Callable[[Any], Any] = lambda value: value) -> str:
    """The golden file's text for these input records (one JSON object per line, UTF-8 characters as they are)."""
    return "".join(json.dumps(golden_record(r, resolve), ensure_ascii=False) + "\n" for r in records)
