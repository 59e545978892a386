"""Joins of two sources by row id: a source-level operation (a model declares a
:class:`Join`, defined here; this layer loads the other source and pairs its rows).

XQuAD's ids are parallel across its 12 languages, so the question with the same id in another language
is that row's counterpart (natural-translation noise reads it). The other source is loaded once per
process and loaded again when its local file changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from noisecraft.errors import ConfigError
from noisecraft.sources.registry import load_source


@dataclass(frozen=True)
class Join:
    """A source-level join a model needs: for each row, ``field`` of the row with the same id in ``source``
    (language ``lang``, split ``split``; a local ``data_file`` in the original format, or the Hub copy)."""

    source: str
    lang: str
    split: str
    field: str
    data_file: str = ""


#: Join -> (stamp of its local file, origin, id -> joined text).
_LOADED: dict[Join, tuple[tuple[int, int] | None, str, Mapping[str, str]]] = {}


def _stamp(join: Join) -> tuple[int, int] | None:
    if not join.data_file:
        return None
    info = Path(join.data_file).stat()
    return info.st_size, info.st_mtime_ns


def parallel_texts(join: Join) -> tuple[str, Mapping[str, str]]:
    """The joined source's origin and its ``field`` by row id (loaded once per process)."""
    stamp = _stamp(join)
    held = _LOADED.get(join)
    if held is None or held[0] != stamp:
        data = load_source(join.source, join.lang, join.split, Path(join.data_file) if join.data_file else None)
        if join.field not in data.feature_spec:
            raise ConfigError(f"join: {data.origin} has no column {join.field!r}; columns: {', '.join(data.feature_spec)}")
        held = _LOADED[join] = (stamp, data.origin, {str(row["id"]): row[join.field] for row in data.rows})
    return held[1], held[2]


def joined_texts(join: Join, ids: Sequence[str]) -> list[str]:
    """``join.field`` of the joined row with each id; an id without a counterpart is an error naming it."""
    origin, texts = parallel_texts(join)
    missing = [i for i in ids if str(i) not in texts]
    if missing:
        raise ConfigError(f"join with {join.source} ({join.lang}): id {missing[0]!r} has no {join.field} in {origin} "
                          f"({len(missing)} of {len(ids)} ids missing); the rows must be {join.source} rows whose ids "
                          f"exist in every language")
    return [texts[str(i)] for i in ids]
