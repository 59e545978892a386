"""A mined confusion table (``noisecraft mine gec``) as the grammar models use it.

The table is a noise dictionary with an ``error_type`` column (:mod:`noisecraft.mining.gec`). It is read
with :func:`~noisecraft.dataset.noise_dictionary.read_dictionary_rows` (a mined folder, a Hub repo id or a parquet
file), so the dictionary checks apply. From it:

* the **type distribution**: the summed ``count`` of each error type;
* the **confusion weights** of the closed-class types: for each correct word i (``∅`` for "no word") the
  words j learners wrote instead, weighted by count (w_ij is count over the row's total within the type);
  the row total is how likely i is to be the word that goes wrong.

Open-class rows (Nn, SVA, Vform, Wchoice, Worder) count towards the distribution only: those errors are
made by inflection, WordNet and word order, on any word where the type applies; so do rows of operation
``type-only`` (edits that are not minimal: phrases, words outside the reference sets; mined since the type
mix counts every edit of a type), for ``grammar@2`` only: older versions read a table as before.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from noisecraft.dataset.noise_dictionary import read_dictionary_rows
from noisecraft.errors import ConfigError, InputError
from noisecraft.grammar.error_types import CLOSED_CLASS, ERROR_TYPES, REFERENCE_SETS, TYPE_ONLY


@dataclass(frozen=True)
class ConfusionRow:
    """What learners write instead of one correct word of a closed-class type."""

    forms: tuple[str, ...]
    weights: tuple[float, ...]

    @property
    def total(self) -> float:
        return sum(self.weights)


@dataclass(frozen=True)
class GrammarConfusions:
    """Type weights and closed-class confusion rows, with the digest of what was loaded."""

    source: str
    type_weights: Mapping[str, float]
    rows: Mapping[str, Mapping[str, ConfusionRow]]
    digest: str

    def row(self, error_type: str, correct: str) -> ConfusionRow | None:
        """The confusion row of ``correct`` (lower-cased, or ``∅``) in a closed-class type."""
        return self.rows.get(error_type, {}).get(correct)


def load_confusions(spec: str, config: str | None = None, types: tuple[str, ...] = ERROR_TYPES,
                    every_edit: bool = False) -> GrammarConfusions:
    """Load a confusion table and keep the error types in ``types``; with ``every_edit`` the ``type-only`` rows
    count towards the type distribution (``grammar@2``), else they are left out and the table reads as one mined
    before they existed (``grammar@1``, ``grammar-attack@1``: their outputs do not change)."""
    if not spec:
        raise ConfigError("the grammar noise needs confusions=: a folder made by `noisecraft mine gec`, a Hub dataset "
                          "repo id (org/name) or a parquet file with an error_type column")
    table = read_dictionary_rows(spec, config)
    weights: dict[str, float] = defaultdict(float)
    cells: dict[str, dict[str, dict[str, float]]] = {t: defaultdict(dict) for t in CLOSED_CLASS}
    for row, (path, where) in zip(table.rows, table.locations):
        kind = row.get("error_type")
        if kind is None:
            raise InputError(path, "not a GEC confusion table: no error_type column (mine one with noisecraft mine gec)",
                             where)
        if kind not in ERROR_TYPES:
            raise InputError(path, f"unknown error_type {kind!r}; expected one of {', '.join(ERROR_TYPES)}", where)
        if row.get("lang", "en") != "en":
            continue
        if kind not in types or (row.get("operation") == TYPE_ONLY and not every_edit):
            continue
        count = float(row["count"])
        weights[kind] += count
        if kind in CLOSED_CLASS and row.get("operation") != TYPE_ONLY:  # w_ij from minimal edits only
            correct, noisy = row["correct"].lower(), row["noisy"].lower()
            if not {correct, noisy} <= REFERENCE_SETS[kind]:
                raise InputError(path, f"{kind} pair {correct!r} -> {noisy!r} is outside the type's reference set", where)
            cells[kind][correct][noisy] = cells[kind][correct].get(noisy, 0.0) + count
    if not weights:
        raise ConfigError(f"confusion table {table.source} has no English row of the error types {', '.join(types)}")
    rows = {kind: {correct: ConfusionRow(tuple(sorted(forms)), tuple(forms[f] for f in sorted(forms)))
                   for correct, forms in sorted(by_correct.items())}
            for kind, by_correct in cells.items()}
    digest = hashlib.blake2b(repr((sorted(weights.items()), sorted((k, sorted((c, r.forms, r.weights) for c, r in v.items()))
                                                                   for k, v in rows.items()))).encode("utf-8"),
                             digest_size=8).hexdigest()
    return GrammarConfusions(table.source, {t: weights[t] for t in ERROR_TYPES if weights.get(t)}, rows, digest)
