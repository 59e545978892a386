"""The result of an evaluation: every number as a plain dict (JSON-ready, no pandas), plus per-example rows."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

from noisecraft.core.stats import format_table
from noisecraft.harness.report import comparison_rows, summary_rows, write_report
from noisecraft.harness.salad import word_salad_table


def _finite(value: Any) -> Any:
    """NaN/inf -> None throughout, so the JSON is standard (no ``NaN`` tokens)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


class EvaluationResult:
    """What :func:`noisecraft.harness.evaluate` returns.

    ``to_dict()``/``to_json()`` give everything results.json holds: dataset provenance, settings, library
    versions, models (ids, revisions, label mappings, cache use), one entry per model x config with its
    metrics, paired statistics and breakdowns, the per-language summary (clustered bootstrap), the paired
    comparisons between models (``model_comparisons``) and the word-salad rows (``word_salad``). ``predictions``
    holds the per-example columns of each model x config; ``save(out)`` writes the full report.
    """

    def __init__(self, record: dict[str, Any], predictions: list[tuple[str, str, dict[str, list[Any]]]]) -> None:
        self._record = _finite(record)
        self.predictions = predictions

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of every number (NaN written as ``None``)."""
        return copy.deepcopy(self._record)

    def to_json(self) -> str:
        return json.dumps(self._record, indent=1, ensure_ascii=False, allow_nan=False) + "\n"

    @property
    def results(self) -> list[dict[str, Any]]:
        """One entry per model x config (a copy)."""
        return copy.deepcopy(self._record["results"])

    def table(self) -> str:
        """The main score of every model x config, as a console table."""
        header, rows = summary_rows(self._record)
        return format_table(header, rows)

    def comparison(self) -> str:
        """The paired tests between models (when several were evaluated), as a console table ('' otherwise)."""
        header, rows = comparison_rows(self._record)
        return format_table(header, rows) if rows else ""

    def word_salad(self) -> str:
        """The word-salad tables (agreement and confidence per transformation and task), one per model, as console
        tables ('' when no config is a word-salad transformation)."""
        rows = self._record.get("word_salad") or []
        return "\n\n".join(f"{model}:\n{word_salad_table(rows, model, markdown=False)}"
                            for model in dict.fromkeys(r["model"] for r in rows))

    def violations(self, *bounds: str, on: str = "point") -> list[str]:
        """The ``--fail-if`` bounds (``"accuracy_drop>5"``, ``"agreement<90"``) this result breaks, one line each
        (empty: the gate passes); see :mod:`noisecraft.harness.gates` for what ``on`` reads."""
        from noisecraft.harness.gates import parse_bound, violations

        return violations(self._record, [parse_bound(b) for b in bounds], on)

    def save(self, out: str | Path, plots: bool = True) -> list[Path]:
        """Write results.json, README.md, predictions/*.parquet and (with ``plots``) plots/*.png into ``out``."""
        return write_report(self.to_dict(), self.predictions, self.to_json(), Path(out), plots=plots)
