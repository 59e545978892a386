"""How the report names and shows things: task titles, metric and noise names, percentages, the small-sample threshold.

Both the tables (:mod:`.report`) and the plots (:mod:`.plots`) read these, so neither imports the other
for them and the two always agree.
"""

from __future__ import annotations

from typing import Any

from noisecraft.harness.tasks import CLASSIFICATION, QA, TOKENS

TASK_TITLES = {QA: "Extractive question answering", CLASSIFICATION: "Classification", TOKENS: "Token classification"}
METRIC_NAMES = {"f1": "F1", "exact_match": "EM", "accuracy": "accuracy", "entity_f1": "entity F1"}
#: Below this many rows a difference is not tested in the tables ("too few rows"), and a noise-level bucket is
#: left out of the score-vs-noise curves: a bootstrap of 1-10 rows says nothing (a WikiANN config of 1 row
#: read "n.s." before, as if it had been tested).
MIN_ROWS = 20


def pct(value: float | None) -> str:
    """A fraction as a percentage with one decimal (``-`` when undefined)."""
    return "-" if value is None else f"{100 * value:.1f}"


def noise_name(result: dict[str, Any]) -> str:
    """A result's noise as a column title: its ``name@version`` and parameters (``keyboard@2 rate=0.1``)."""
    params = " ".join(f"{k}={v}" for k, v in sorted(result.get("params", {}).items()) if not isinstance(v, dict | list))
    return " ".join(filter(None, (result.get("noise_id") or result["config"], params)))
