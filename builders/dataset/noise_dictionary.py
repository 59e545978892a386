"""Natural-noise dictionaries: ``correct -> [(noisy, weight)]``.

This is the one format every miner writes (``mining/``) and every natural-noise model reads
(:mod:`noisecraft.noise_models.natural`). On disk a dictionary is a table with at least the columns
``lang``, ``correct``, ``noisy``, ``count`` (how often the pair was seen) and ``probability``
(``count`` over all counts of the same ``lang`` and ``correct`` word); miners add their own columns
(edit type, flags, provenance).

**The sampling weight is ``count``** (a TSV's third column, 1 when absent): a noisy form of a word is
drawn with probability proportional to its count among the forms kept for that word. ``probability``
is derived data, kept so that the table reads on its own; it is never sampled from. So that the two
cannot disagree silently, loading recomputes ``count / total count of (lang, correct)`` over the
whole table and a row whose ``probability`` differs from it (by more than 1e-6) is an error naming
the file and row. A count must be a finite positive number (``nan``, ``inf``, zero and negative
counts are errors naming the file and row or line), and ``correct`` and ``noisy`` must be different,
non-empty words. Nothing is dropped silently: a row the loader cannot use is an error.

A dictionary loads from

* a folder written by ``noisecraft mine``: the manifest its card carries (``"kind": "noise-dictionary"``)
  lists its configs and their parquet files (:mod:`noisecraft.dataset.repo`). A folder with one config is used as is; one with
  several needs ``config`` (the models' ``dictionary_config=``), and the error lists them. A folder
  holding another kind of dataset (a challenge set) is an error saying so, and so is a folder with
  neither a manifest nor a parquet file with the dictionary columns. A config subfolder itself
  (parquet files, no manifest) reads as one config.
* a Hub dataset repo id (``org/name``, with ``config`` or as ``org/name:config``), through ``datasets``,
* a ``.parquet`` file with the columns above,
* a plain UTF-8 TSV: ``correct<TAB>noisy[<TAB>count]``, ``#`` comments allowed (no ``lang`` column:
  its rows serve any language).
"""

from __future__ import annotations

import math
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import accumulate
from numbers import Real
from pathlib import Path
from typing import Any

from noisecraft.core.schema import FeatureSpec, value
from noisecraft.core.seeding import ExampleRng
from noisecraft.core.text_files import read_bytes, regular_file
from noisecraft.dataset.repo import NOISE_DICTIONARY, data_files, manifest_or_none
from noisecraft.errors import ConfigError, InputError

REQUIRED_COLUMNS = ("lang", "correct", "noisy", "count", "probability")
#: How far a stored ``probability`` may be from ``count / total`` (rounding, float32 storage).
PROBABILITY_TOLERANCE = 1e-6
#: Most bytes one dictionary file (a TSV, a parquet file) may hold: the rows become Python objects many times
#: that size, and a path naming a device or a wrong file is refused in one line instead of filling the memory.
DICTIONARY_LIMIT = 256 << 20


def dictionary_features(extra: Mapping[str, Any] | None = None) -> FeatureSpec:
    """The features of a dictionary table (JSON form, :mod:`noisecraft.core.schema`): the required columns plus a
    miner's own."""
    columns: FeatureSpec = {
        "lang": value("string"),
        "correct": value("string"),
        "noisy": value("string"),
        "count": value("int64"),
        "probability": value("float64"),
    }
    columns.update(extra or {})
    return columns


def with_probabilities(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Set ``probability`` = count / total count of the row's ``correct`` word (rows edited in place)."""
    totals: dict[tuple[str, str], int] = defaultdict(int)
    for row in rows:
        totals[row["lang"], row["correct"]] += row["count"]
    for row in rows:
        row["probability"] = row["count"] / totals[row["lang"], row["correct"]]
    return rows


@dataclass(frozen=True)
class NoiseDictionary:
    """Noisy forms of each correct word, with cumulative probabilities for sampling."""

    source: str
    entries: dict[str, tuple[tuple[str, ...], tuple[float, ...]]]

    @classmethod
    def from_pairs(cls, source: str, pairs: Iterable[tuple[str, str, float]]) -> NoiseDictionary:
        """Build from ``(correct, noisy, weight)``; weights of a word are normalised, identical pairs merged."""
        weights: dict[str, dict[str, float]] = defaultdict(dict)
        for correct, noisy, weight in pairs:
            if correct and noisy and noisy != correct and weight > 0:
                weights[correct][noisy] = weights[correct].get(noisy, 0.0) + weight
        entries = {}
        for correct, forms in sorted(weights.items()):
            ordered = sorted(forms.items(), key=lambda kv: (-kv[1], kv[0]))
            total = sum(w for _, w in ordered)
            cumulative = tuple(c / total for c in accumulate(w for _, w in ordered))
            entries[correct] = (tuple(n for n, _ in ordered), cumulative)
        if not entries:
            raise ConfigError(f"noise dictionary {source} has no usable (correct, noisy) pair")
        return cls(source, entries)

    def __contains__(self, word: str) -> bool:
        return word in self.entries

    def __len__(self) -> int:
        return len(self.entries)

    def sample(self, word: str, rng: ExampleRng) -> str:
        """A noisy form of ``word`` (which must be in the dictionary), drawn by probability."""
        forms, cumulative = self.entries[word]
        u = rng.random()
        for form, bound in zip(forms, cumulative):
            if u < bound:
                return form
        return forms[-1]

    def weighted_forms(self, word: str) -> list[tuple[str, float]]:
        """The noisy forms of ``word`` with their probabilities (most probable first)."""
        forms, cumulative = self.entries[word]
        return [(form, bound - previous) for form, bound, previous in zip(forms, cumulative, (0.0, *cumulative))]


@dataclass
class DictionaryTable:
    """The rows of one dictionary source, and where each came from (file and row or line) for errors."""

    source: str
    rows: list[dict[str, Any]]
    locations: list[tuple[str, str]]
    #: The miner that made it (``misspellings``, ``wikiedits``, ``reduplication``, ``gec``), from a mined folder's
    #: manifest or, for a file or Hub copy, ``gec`` when it has a confusion table's columns; ``None``: plain pairs.
    kind: str | None = None

    def languages(self) -> list[str]:
        """The distinct ``lang`` values of the rows (none for a TSV)."""
        return sorted({str(row["lang"]) for row in self.rows if "lang" in row})


# --- readers ----------------------------------------------------------------------------------


def _read_tsv(path: Path) -> DictionaryTable:
    data = read_bytes(path, "noise dictionary", DICTIONARY_LIMIT)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(path, f"not UTF-8 (byte 0x{data[exc.start]:02x}): save the dictionary as UTF-8",
                         f"line {line}") from None
    rows, locations = [], []
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) not in (2, 3) or not parts[0] or not parts[1]:
            raise InputError(path, "expected 'correct<TAB>noisy[<TAB>count]'", f"line {number}")
        try:
            count = float(parts[2]) if len(parts) == 3 else 1.0
        except ValueError:
            raise InputError(path, f"count {parts[2]!r} is not a number", f"line {number}") from None
        rows.append({"correct": parts[0], "noisy": parts[1], "count": count})
        locations.append((str(path), f"line {number}"))
    return DictionaryTable(str(path), rows, locations)


def _missing_columns(columns: Iterable[str]) -> list[str]:
    present = set(columns)
    return [c for c in REQUIRED_COLUMNS if c not in present]


def _read_parquet(path: Path) -> DictionaryTable:
    import pyarrow as pa
    import pyarrow.parquet as pq

    regular_file(path, "noise dictionary", DICTIONARY_LIMIT)
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(path, f"cannot read parquet: {' '.join(str(exc).split())}") from exc
    missing = _missing_columns(table.column_names)
    if missing:
        raise InputError(path, f"not a noise dictionary: missing column(s) {', '.join(missing)}")
    rows = table.to_pylist()
    return DictionaryTable(str(path), rows, [(str(path), f"row {i}") for i in range(1, len(rows) + 1)])


def _join(source: str, tables: list[DictionaryTable], kind: str | None = None) -> DictionaryTable:
    return DictionaryTable(source, [r for t in tables for r in t.rows], [w for t in tables for w in t.locations], kind)


#: Columns only a ``noisecraft mine gec`` confusion table has (its ``∅`` marks a missing or extra word).
GEC_COLUMNS = ("error_type", "operation")


def check_kind(table: DictionaryTable, accepted: Iterable[str], model: str) -> None:
    """Refuse a dictionary mined for another model (a gec confusion table is not a misspelling list: its
    ``∅`` would be inserted as text). Plain pairs (a TSV) serve any model."""
    accepted = tuple(accepted)
    if table.kind is not None and table.kind not in accepted:
        raise ConfigError(f"noise dictionary {table.source} is a {table.kind} dictionary (`noisecraft mine "
                          f"{table.kind}`), not one {model} uses: give a {' or '.join(accepted)} dictionary or a TSV "
                          "'correct<TAB>noisy[<TAB>count]'")


def _parquet_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.parquet") if not any(part.startswith(".") for part in p.relative_to(folder).parts))


def _dictionary_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest of a folder written by ``noisecraft mine`` (``None`` without one); another kind is an error."""
    manifest = manifest_or_none(folder)
    if manifest is None:
        return None
    kind = manifest.get("kind")
    if kind != NOISE_DICTIONARY:
        what = f"a {kind} dataset" if kind else "a dataset of unknown kind"
        raise ConfigError(f"{folder} holds {what} (its manifest's kind is {kind!r}), not a noise dictionary: give a "
                          "folder written by `noisecraft mine`")
    return manifest


def _rows_from_folder(folder: Path, config: str | None) -> DictionaryTable:
    manifest = _dictionary_manifest(folder)
    if manifest is None:  # no manifest: config subfolders of parquet, or a config folder itself
        files = _parquet_files(folder)
        if not any(not _missing_columns(_schema_names(f)) for f in files):
            raise ConfigError(f"{folder} is not a noise dictionary: it holds no noisecraft manifest and no parquet file "
                              f"with the columns {', '.join(REQUIRED_COLUMNS)}")
        if any(folder.glob("*.parquet")):
            if config is not None:
                raise ConfigError(f"noise dictionary {folder} is a single config folder: it has no config {config!r}")
            return _join(str(folder), [_read_parquet(f) for f in files])
        configs = sorted(sub.name for sub in folder.iterdir()
                         if sub.is_dir() and not sub.name.startswith(".") and _parquet_files(sub))
    else:
        configs = sorted(manifest["configs"])
    if config is None:
        if not configs:
            raise ConfigError(f"noise dictionary {folder} holds no config (its manifest lists none)")
        if len(configs) > 1:
            raise ConfigError(f"noise dictionary {folder} holds {len(configs)} configs ({', '.join(configs)}): "
                              "choose one with dictionary_config=")
        config = configs[0]
    if config not in configs:
        raise ConfigError(f"noise dictionary {folder} has no config {config!r}; its configs: {', '.join(configs) or 'none'}")
    if manifest is None:
        files = _parquet_files(folder / config) if (folder / config).is_dir() else []
        kind = None
    else:  # the files its card names: files of an interrupted commit beside them are not read
        files = [folder / path for paths in data_files(manifest, config).values() for path in paths]
        miner = manifest["configs"][config]["spec"].get("miner")
        kind = miner if isinstance(miner, str) else None
    if not files:
        raise ConfigError(f"noise dictionary {folder}: config {config!r} has no parquet file under {folder / config}")
    return _join(f"{folder} config {config}", [_read_parquet(f) for f in files], kind)


def _schema_names(path: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return list(pq.read_schema(path).names)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(path, f"cannot read parquet: {' '.join(str(exc).split())}") from exc


def _rows_from_hub(repo_id: str, config: str | None) -> DictionaryTable:
    from noisecraft.core.hub import load_hub_dataset

    spec = f"{repo_id}:{config}" if config else repo_id
    dataset = load_hub_dataset(repo_id, config, None, None,
                               hint=f"pass dictionary= a local copy of noise dictionary {spec!r} (a folder, parquet or TSV)")
    rows, locations = [], []
    for split, table in dataset.items():
        missing = _missing_columns(table.column_names)
        if missing:
            raise ConfigError(f"{spec} (split {split}) is not a noise dictionary: missing column(s) {', '.join(missing)}")
        for number, row in enumerate(table, start=1):
            rows.append(row)
            locations.append((spec, f"split {split}, row {number}"))
    return DictionaryTable(spec, rows, locations)


# --- checks -----------------------------------------------------------------------------------


def _check_rows(table: DictionaryTable) -> None:
    """Every row is usable, and every ``probability`` agrees with the counts (see the module docstring)."""
    totals: dict[tuple[Any, str], float] = defaultdict(float)
    for row, (path, where) in zip(table.rows, table.locations):
        correct, noisy, count = row.get("correct"), row.get("noisy"), row.get("count")
        if not isinstance(correct, str) or not correct or not isinstance(noisy, str) or not noisy:
            raise InputError(path, f"correct and noisy must be non-empty words, got {correct!r} -> {noisy!r}", where)
        if noisy == correct:
            raise InputError(path, f"noisy form {noisy!r} is the correct word itself", where)
        controls = sorted({c for c in correct + noisy if unicodedata.category(c) == "Cc"})
        if controls:
            raise InputError(path, f"control character(s) {', '.join(repr(c) for c in controls)} in {correct!r} -> "
                                   f"{noisy!r}: a pair holds words, never line breaks or tabs", where)
        if count is None or isinstance(count, bool) or not isinstance(count, Real):
            raise InputError(path, f"count {count!r} is not a number", where)
        if not math.isfinite(count) or count <= 0:
            raise InputError(path, f"count {count!r} must be a finite positive number", where)
        totals[row.get("lang"), correct] += float(count)
    for row, (path, where) in zip(table.rows, table.locations):
        if "probability" not in row:
            continue
        stored = row["probability"]
        total = totals[row.get("lang"), row["correct"]]
        expected = float(row["count"]) / total
        if (stored is None or isinstance(stored, bool) or not isinstance(stored, Real) or not math.isfinite(stored)
                or abs(stored - expected) > PROBABILITY_TOLERANCE):
            raise InputError(path, f"probability {stored!r} contradicts the counts: count {row['count']} of {total:g} "
                                   f"for {row['correct']!r} gives {expected:.6g} (sampling uses count; recompute "
                                   "probability as count / total count of the word)", where)


def read_dictionary_rows(spec: str, config: str | None = None) -> DictionaryTable:
    """The checked rows of a dictionary in a folder, a ``.parquet`` or ``.tsv`` file, or a Hub repo id
    (``config`` picks one config of a folder or Hub repo; ``org/name:config`` also does)."""
    path = Path(spec)
    if path.exists() and not path.is_dir():
        regular_file(path, "noise dictionary", DICTIONARY_LIMIT)  # a device or FIFO is refused, never read
    if path.is_file():
        if config is not None:
            raise ConfigError(f"noise dictionary {spec} is a single file: it has no config {config!r}")
        table = _read_parquet(path) if path.suffix == ".parquet" else _read_tsv(path)
    elif path.is_dir():
        table = _rows_from_folder(path, config)
    elif "/" in spec and not spec.startswith((".", "/")) and not spec.endswith("/") and spec.count("/") == 1:
        repo_id, _, named = spec.partition(":")
        if named and config is not None and named != config:
            raise ConfigError(f"noise dictionary {spec!r} names config {named!r} but dictionary_config is {config!r}")
        table = _rows_from_hub(repo_id, config or named or None)
    else:
        raise ConfigError(f"noise dictionary {spec!r} is neither a file, a folder nor a Hub repo id (org/name)")
    if table.kind is None and table.rows and all(c in table.rows[0] for c in GEC_COLUMNS):
        table.kind = "gec"
    _check_rows(table)
    return table


def dictionary_from_rows(table: DictionaryTable, lang: str | None = None,
                         keep: Mapping[str, bool] | None = None) -> NoiseDictionary:
    """Select rows (``lang``; boolean columns equal to ``keep``'s values) and build the dictionary.

    A dictionary with a ``lang`` column but no row in ``lang`` is an error naming the languages it has
    (a TSV has no ``lang`` column: its rows serve every language)."""
    rows = table.rows
    if lang is not None:
        rows = [r for r in rows if r.get("lang", lang) == lang]
        if table.rows and not rows:
            raise ConfigError(f"noise dictionary {table.source} has no row in language {lang!r}; its language(s): "
                              f"{', '.join(table.languages())}")
    for column, wanted in (keep or {}).items():
        if rows and column not in rows[0]:
            raise ConfigError(f"noise dictionary {table.source} has no column {column!r} to filter on")
        kept = [r for r in rows if bool(r[column]) == wanted]
        if rows and not kept:
            raise ConfigError(f"noise dictionary {table.source} has no row with {column}={wanted} "
                              f"(of {len(rows)} rows{f' in {lang!r}' if lang else ''})")
        rows = kept
    return NoiseDictionary.from_pairs(table.source, ((r["correct"], r["noisy"], float(r["count"])) for r in rows))


def load_dictionary(spec: str, lang: str | None = None, keep: Mapping[str, bool] | None = None,
                    config: str | None = None) -> NoiseDictionary:
    """Load a dictionary (see :func:`read_dictionary_rows`), keeping rows of ``lang`` and, with
    ``keep``, rows whose boolean columns have the given values, e.g. ``{"likely_typo": True}``."""
    return dictionary_from_rows(read_dictionary_rows(spec, config), lang, keep)
