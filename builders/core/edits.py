"""Character-span edit logs: what a noise model changed, recorded rather than guessed.

An :class:`Edit` replaces ``original == text[start:end]`` by ``replacement``; offsets are against
the *original* text, edits are sorted and never overlap. Everything outside the edits is left
byte-identical, so :func:`apply_edits` replays a log exactly and :func:`remap_span` carries
labelled spans (SQuAD answers, NER tokens) from the original text to the noisy one.
"""

from __future__ import annotations

import sys
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from rapidfuzz.distance import Levenshtein


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
    rows and counts them by reason. ``columns`` are the values of the per-row output columns the
    model declares (:attr:`~noisecraft.noise_models.base.NoiseModel.row_columns`), e.g. an attack's
    status: a row an attack failed on is kept, and says so.
    """

    text: str
    edits: tuple[Edit, ...]
    failure: str | None = None
    columns: Mapping[str, Any] | None = None


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


def align(original: str, noisy: str, kind: str) -> tuple[Edit, ...]:
    """A minimal character edit log, all of ``kind``, that turns ``original`` into ``noisy``.

    Model-based noise (machine translation, speech recognition) returns a text rather than the
    edits that made it, so its log is recovered afterwards from a Levenshtein alignment
    (rapidfuzz, linear memory even for long fields). Each run of consecutive non-equal opcodes
    becomes one edit; since the alignment is minimal, every edit changes text, and equal texts
    give an empty log.
    """
    edits: list[Edit] = []
    run: list[int] | None = None  # [src_start, src_end, dest_start, dest_end] of the open run
    for op in Levenshtein.opcodes(original, noisy):
        if op.tag == "equal":
            if run is not None:
                edits.append(Edit(run[0], run[1], original[run[0] : run[1]], noisy[run[2] : run[3]], kind))
                run = None
        elif run is None:
            run = [op.src_start, op.src_end, op.dest_start, op.dest_end]
        else:
            run[1], run[3] = op.src_end, op.dest_end
    if run is not None:
        edits.append(Edit(run[0], run[1], original[run[0] : run[1]], noisy[run[2] : run[3]], kind))
    return tuple(edits)


def compose(original: str, first: Sequence[Edit], second: Sequence[Edit]) -> tuple[Edit, ...]:
    """The exact edit log against ``original`` of two noise steps applied one after the other.

    ``first`` is a log against ``original``; ``second`` is a log against the intermediate text
    ``apply_edits(original, first)``. Stacking noise models must keep one log against the source
    text, so that :func:`remap_span` still carries labelled spans from the original to the final
    text; re-aligning the two texts would lose the kinds and may blame the wrong characters.

    Boundary rule: in intermediate-text offsets, an edit of ``second`` covering ``[a, b)`` and an
    edit of ``first`` whose replacement occupies ``[s, e)`` interact when ``a <= e`` and ``s <= b``,
    i.e. when they intersect *or touch*; an insertion at either end of a replacement, or an edit
    ending where a replacement starts (or starting where it ends), interacts with it. Each group of
    edits linked this way (transitively) becomes one edit covering the union of their ranges, with
    ``original`` the slice of the original text and ``replacement`` the slice of the final text;
    merging touching edits is what keeps the result free of overlaps, since an edit next to a
    replacement (e.g. an insertion next to an inserted word) has no position of its own in
    original offsets. Its ``kind`` is the distinct kinds, split on ``+`` so that composed logs can
    be composed again, joined with ``+`` in step order (``"misspelling+keyboard"``). An edit of
    either step that interacts with nothing is kept as is, shifted back to original offsets for
    ``second``. Edits that change nothing (``original == replacement``), including a group whose
    second step undid the first, are dropped; so the result is sorted, non-overlapping, and
    every edit changes text. Raises ``ValueError`` if either log does not match its text.
    """
    steps = _TwoSteps(original, first, second)
    groups, loose_second = steps.linked_groups()
    keyed: list[tuple[int, int, Edit]] = []  # (intermediate offset, index into ``second``, edit) to sort by
    absorbed_first: set[int] = set()
    for (low, high), members in groups:
        absorbed_first.update(range(low, high + 1))
        merged = steps.merged(low, high, members)
        if merged.original != merged.replacement:
            keyed.append((min(steps.starts[low], steps.second[members[0]].start), members[0], merged))
    for i, edit in enumerate(steps.first):
        if i not in absorbed_first:
            keyed.append((steps.starts[i], -1, edit))
    for j in loose_second:
        keyed.append((steps.second[j].start, j, steps.shifted_back(j)))
    keyed.sort(key=lambda item: item[:2])
    return tuple(edit for _, _, edit in keyed)


class _TwoSteps:
    """Two edit logs of :func:`compose` placed in the intermediate text: where each edit of ``first`` sits there
    (``[starts[i], ends[i])``) and how far ``second`` has shifted the text before each of its edits. Both logs are
    checked against their texts, then edits that change nothing are left out."""

    def __init__(self, original: str, first: Sequence[Edit], second: Sequence[Edit]) -> None:
        self.original = original
        self.intermediate = apply_edits(original, first)
        self.final = apply_edits(self.intermediate, second)
        self.first = [edit for edit in first if edit.original != edit.replacement]
        self.second = [edit for edit in second if edit.original != edit.replacement]
        first, second = self.first, self.second
        self.starts: list[int] = []
        self.ends: list[int] = []
        shift = 0
        for edit in first:
            self.starts.append(edit.start + shift)
            shift += len(edit.replacement) - len(edit.original)
            self.ends.append(edit.end + shift)
        self.second_shift = [0]  # of ``second`` before its edit j, against the intermediate text
        for edit in second:
            self.second_shift.append(self.second_shift[-1] + len(edit.replacement) - len(edit.original))

    def linked_groups(self) -> tuple[list[tuple[list[int], list[int]]], list[int]]:
        """Groups as ``[lowest, highest]`` index into ``first`` and the indices into ``second`` they absorbed, and
        the edits of ``second`` linked to none; both bounds are monotone in the (sorted) edits of ``second``, so
        linked edits form runs."""
        groups: list[tuple[list[int], list[int]]] = []
        loose_second: list[int] = []
        for j, edit in enumerate(self.second):
            low = bisect_left(self.ends, edit.start)  # first edit of ``first`` with ends >= a
            high = bisect_right(self.starts, edit.end) - 1  # last edit of ``first`` with starts <= b
            if low > high:
                loose_second.append(j)
            elif groups and low <= groups[-1][0][1]:
                groups[-1][0][1] = max(groups[-1][0][1], high)
                groups[-1][1].append(j)
            else:
                groups.append(([low, high], [j]))
        return groups, loose_second

    def merged(self, low: int, high: int, members: list[int]) -> Edit:
        """One edit covering the edits ``first[low..high]`` and ``second[members]``, in original offsets."""
        first, second, starts, ends = self.first, self.second, self.starts, self.ends
        head, tail = second[members[0]], second[members[-1]]
        # outside the replacements of ``first``, intermediate offsets differ from original ones by a fixed shift
        start = first[low].start + min(0, head.start - starts[low])
        end = first[high].end + max(0, tail.end - ends[high])
        final_start = min(starts[low], head.start) + self.second_shift[members[0]]
        final_end = max(ends[high], tail.end) + self.second_shift[members[-1] + 1]
        kinds = [edit.kind for edit in first[low : high + 1]] + [second[j].kind for j in members]
        # interned: every "a+b" of a build is then one object, not one string per edit
        kind = sys.intern("+".join(dict.fromkeys(part for k in kinds for part in k.split("+"))))
        return Edit(start, end, self.original[start:end], self.final[final_start:final_end], kind)

    def shifted_back(self, j: int) -> Edit:
        """Loose edit ``second[j]`` in original offsets: it lies strictly between two replacements of ``first``,
        so it shifts back by those before it."""
        edit = self.second[j]
        back = bisect_left(self.ends, edit.start)
        if back < len(self.first):
            offset = self.starts[back] - self.first[back].start
        else:
            offset = len(self.intermediate) - len(self.original)
        return edit._replace(start=edit.start - offset, end=edit.end - offset)
