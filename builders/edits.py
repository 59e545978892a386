"""Character-span edit logs: what a noise model changed, recorded rather than guessed.

An :class:`Edit` replaces ``original == text[start:end]`` by ``replacement``; offsets are against
the *original* text, edits are sorted and never overlap. Everything outside the edits is left
byte-identical, so :func:`apply_edits` replays a log exactly and :func:`remap_span` carries
labelled spans (SQuAD answers, NER tokens) from the original text to the noisy one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple


class Edit(NamedTuple):
    """One replacement of ``text[start:end]`` (which equals ``original``) by ``replacement``."""

    start: int
    end: int
    original: str
    replacement: str
    kind: str


class Noised(NamedTuple):
    """A noise model's output for one text: the noisy text and the edit log that produced it.

    ``failure`` is set (and ``edits`` empty) when the model could not noise this text as its
    definition requires, e.g. a shuffle that cannot break every bigram; the builder drops such
    rows and counts them by reason.
    """

    text: str
    edits: tuple[Edit, ...]
    failure: str | None = None


Span = tuple[int, int]


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """Replay an edit log on the original text; raises ``ValueError`` on an inconsistent log."""
    pieces: list[str] = []
    cursor = 0
    for edit in edits:
        if edit.start < cursor or edit.end < edit.start or edit.end > len(text):
            raise ValueError(f"edit {edit!r} overlaps an earlier edit or leaves the text")
        if text[edit.start : edit.end] != edit.original:
            raise ValueError(f"edit {edit!r} does not match the text {text[edit.start:edit.end]!r}")
        pieces.append(text[cursor : edit.start])
        pieces.append(edit.replacement)
        cursor = edit.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def noised_from_edits(text: str, edits: list[Edit]) -> Noised:
    """Build a :class:`Noised` from edits sorted by start (no copy of the text when unchanged)."""
    if not edits:
        return Noised(text, ())
    return Noised(apply_edits(text, edits), tuple(edits))


def whole_field(text: str, replacement: str, kind: str) -> Noised:
    """A rewrite of the whole field, logged as one replacement (word-order destruction)."""
    if replacement == text:
        return Noised(text, ())
    return Noised(replacement, (Edit(0, len(text), text, replacement, kind),))


def overlaps(start: int, end: int, spans: Iterable[Span]) -> bool:
    """Whether the edit range ``[start, end)`` intersects a protected span.

    An insertion (``start == end``) at a span's first or last offset stays outside it, the same
    rule :func:`remap_span` uses, so a protected span is always carried over intact.
    """
    return any(start < e and s < end for s, e in spans)


def remap_span(start: int, end: int, edits: Sequence[Edit]) -> Span | None:
    """Offsets of ``text[start:end]`` in the noisy text, or ``None`` if an edit changed inside it."""
    shift = 0
    for edit in edits:
        if edit.end <= start:
            shift += len(edit.replacement) - (edit.end - edit.start)
        elif edit.start >= end:
            break
        else:
            return None
    return start + shift, end + shift
