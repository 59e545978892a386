"""M2 files (the CoNLL-2013/2014 and BEA-2019 grammatical-error-correction format), read and checked.

An M2 file is a series of blocks, one per learner sentence, separated by blank lines::

    S The cat sat at mat .
    A 3 4|||Prep|||on|||REQUIRED|||-NONE-|||0
    A 4 4|||ArtOrDet|||the||a|||REQUIRED|||-NONE-|||0

``S`` holds the learner's tokenised sentence. Each ``A`` line is one annotator's edit: token offsets
``start end`` into that sentence (the learner wrote ``tokens[start:end]``), the error tag, the
correction (alternatives separated by ``||``; empty, or ``-NONE-`` as in m2scorer's example, for a
deletion), ``REQUIRED``, a comment, and the annotator id. ``A -1 -1|||noop|||...`` says an annotator found no error.

Error tags come in two sets, told apart per tag (:func:`tag_set`): NUCLE's 28 categories (CoNLL-2013/
2014: ``ArtOrDet``, ``Prep``, ``Nn``, ...) and ERRANT's ``OP:TYPE[:SUBTYPE]`` (BEA-2019 W&I+LOCNESS:
``M:DET``, ``R:VERB:SVA``, ...), plus ``noop`` and ERRANT's ``UNK``.

What is wrong is said, never guessed:

* a file that is not M2 at all (its first line is not an ``S`` line, or no annotation of it carries a
  NUCLE or ERRANT tag, such as the JFLEG converter's ``#Rp#``/``#Del#``) is an
  :class:`~noisecraft.errors.InputError` naming the file and line;
* a bad annotation (too few fields, as in a truncated file; offsets outside the sentence; an
  annotator id that is not a number; an unknown tag) or a line that is neither ``S``, ``A`` nor blank is
  an :class:`M2Problem` naming file, line and problem: it is skipped and counted, or, with
  ``strict``, raised as an ``InputError``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from noisecraft.core.text_files import AUTO, decode_file
from noisecraft.errors import InputError

TagSet = Literal["NUCLE", "ERRANT"]

#: NUCLE 3.x error categories (CoNLL-2013/2014 shared tasks), including ``Wtone`` and ``Cit`` of the test sets.
NUCLE_TAGS = frozenset({
    "Vt", "Vm", "V0", "Vform", "SVA", "ArtOrDet", "Nn", "Npos", "Pform", "Pref", "Prep", "Wci", "Wa", "Wform", "Wtone",
    "Srun", "Smod", "Spar", "Sfrag", "Ssub", "WOinc", "WOadv", "Trans", "Mec", "Rloc-", "Cit", "Others", "Um",
})
#: ERRANT's part-of-speech and other error types (Bryant et al., 2017), and the subtyped ones.
ERRANT_TYPES = frozenset({"ADJ", "ADV", "CONJ", "CONTR", "DET", "NOUN", "NOUN:POSS", "OTHER", "PART", "PREP", "PRON",
                          "PUNCT", "VERB", "VERB:FORM", "VERB:TENSE", "MORPH", "ORTH", "SPELL", "WO", "ADJ:FORM",
                          "NOUN:INFL", "NOUN:NUM", "VERB:INFL", "VERB:SVA"})
#: Tags that mark "no error" (an annotator's empty annotation) rather than an edit.
NO_ERROR_TAGS = frozenset({"noop"})
#: ERRANT's "an error, but of no type" (the annotator's edit could not be classified).
UNCLASSIFIED = "UNK"
#: How many problems of each reason a report names (the count is always complete).
SHOWN_PROBLEMS = 5

_A_OFFSETS = re.compile(r"^(-?\d+) (-?\d+)$")


def tag_set(tag: str) -> TagSet | None:
    """Which set ``tag`` belongs to (``None``: neither, or a no-error tag)."""
    if tag in NUCLE_TAGS:
        return "NUCLE"
    if tag == UNCLASSIFIED:
        return "ERRANT"
    operation, _, kind = tag.partition(":")
    if operation in ("M", "R", "U") and kind in ERRANT_TYPES:
        return "ERRANT"
    return None


@dataclass(frozen=True)
class M2Edit:
    """One annotator's edit: the learner wrote ``tokens[start:end]``; ``corrections`` are the
    annotator's alternatives, first the preferred one (``""`` deletes the words)."""

    start: int
    end: int
    tag: str
    corrections: tuple[str, ...]
    annotator: int
    line: int


@dataclass(frozen=True)
class M2Sentence:
    """A learner sentence (tokens as written) and its edits, with the line of its ``S``."""

    tokens: tuple[str, ...]
    edits: tuple[M2Edit, ...]
    line: int


@dataclass(frozen=True)
class M2Problem:
    """A line the reader skipped, and why."""

    path: str
    line: int
    reason: str
    detail: str

    def __str__(self) -> str:
        return f"{Path(self.path).name}, line {self.line}: {self.reason} ({self.detail})"


@dataclass
class M2File:
    """A read M2 file: its sentences, the tag sets its annotations use, and what was skipped."""

    path: Path
    sentences: list[M2Sentence]
    tag_sets: set[str]
    problems: list[M2Problem] = field(default_factory=list)
    decoding: str = "utf-8"

    @property
    def annotations(self) -> int:
        """Edits kept (no-error annotations and skipped lines excluded)."""
        return sum(len(s.edits) for s in self.sentences)


def _parse_annotation(path: Path, number: int, text: str, length: int) -> M2Edit | M2Problem | None:
    """One ``A`` line of a sentence of ``length`` tokens: an edit, a problem, or ``None`` for ``noop``."""
    parts = text[2:].split("|||")
    if len(parts) < 6:
        return M2Problem(str(path), number, "malformed annotation",
                         f"{len(parts)} of 6 '|||'-separated fields: truncated line?")
    offsets, tag, correction, annotator = parts[0].strip(), parts[1].strip(), parts[2], parts[-1].strip()
    if tag in NO_ERROR_TAGS:
        return None
    matched = _A_OFFSETS.match(offsets)
    if not matched:
        return M2Problem(str(path), number, "malformed annotation", f"offsets {offsets!r} are not 'start end'")
    start, end = int(matched.group(1)), int(matched.group(2))
    if not 0 <= start <= end <= length:
        return M2Problem(str(path), number, "offsets outside the sentence",
                         f"{start} {end} in a sentence of {length} tokens")
    if not annotator.isdigit():
        return M2Problem(str(path), number, "malformed annotation", f"annotator id {annotator!r} is not a number")
    if tag_set(tag) is None:
        return M2Problem(str(path), number, "unknown error tag", f"{tag!r} is neither a NUCLE nor an ERRANT tag")
    # m2scorer's own example writes a deletion as -NONE- (the released files use an empty correction)
    corrections = ("",) if correction.strip() == "-NONE-" else tuple(c.strip() for c in correction.split("||"))
    return M2Edit(start, end, tag, corrections, int(annotator), number)


def _lines(path: Path, encoding: str) -> tuple[list[str], str]:
    text, decoding = decode_file(path, encoding, what="M2 file")
    if "\x00" in text:
        raise InputError(path, "binary data (NUL bytes): not an M2 file", "line 1")
    return text.removeprefix("\ufeff").split("\n"), decoding


def _blocks(path: Path, lines: list[str]) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of the lines that are not blank, after checking the file starts like M2."""
    first = next(((n, line) for n, line in enumerate(lines, start=1) if line.strip()), None)
    if first is None:
        raise InputError(path, "empty file: no 'S' sentence line")
    if not (first[1].startswith("S ") or first[1].rstrip("\r") == "S"):
        raise InputError(path, f"not an M2 file: the first line should be an 'S' sentence, found {first[1][:60]!r}",
                         f"line {first[0]}")
    for number, line in enumerate(lines, start=1):
        line = line.rstrip("\r")
        if line.strip():
            yield number, line


def read_m2(path: Path, *, strict: bool = False, encoding: str = AUTO) -> M2File:
    """Read and check one M2 file (see the module docstring for what is an error and what a counted skip)."""
    path = Path(path)
    lines, decoding = _lines(path, encoding)
    sentences: list[M2Sentence] = []
    problems: list[M2Problem] = []
    found_tags: dict[str, int] = {}
    tokens: tuple[str, ...] = ()
    edits: list[M2Edit] = []
    sentence_line = 0

    def problem(found: M2Problem) -> None:
        if strict:
            raise InputError(path, f"{found.reason} ({found.detail})", f"line {found.line}")
        problems.append(found)

    def close() -> None:
        if sentence_line:
            sentences.append(M2Sentence(tokens, tuple(edits), sentence_line))

    for number, line in _blocks(path, lines):
        if line.startswith("S ") or line == "S":
            close()
            tokens, edits, sentence_line = tuple(line[2:].split()), [], number
        elif line.startswith("A "):
            tag = line[2:].split("|||")[1].strip() if line.count("|||") else ""
            if tag:
                found_tags[tag] = found_tags.get(tag, 0) + 1
            parsed = _parse_annotation(path, number, line, len(tokens))
            if isinstance(parsed, M2Problem):
                problem(parsed)
            elif parsed is not None:
                edits.append(parsed)
        else:
            problem(M2Problem(str(path), number, "not an M2 line", f"neither 'S', 'A' nor blank: {line[:40]!r}"))
    close()
    known = {tag_set(tag) for tag in found_tags} - {None}
    unknown = sorted(t for t in found_tags if tag_set(t) is None and t not in NO_ERROR_TAGS)
    if not known and unknown:
        shown = ", ".join(sorted(unknown, key=lambda t: -found_tags[t])[:6])
        raise InputError(path, f"no annotation carries a NUCLE or ERRANT error tag (found {shown}): its error types "
                               "are unspecified, so it cannot be mapped onto the learner error types")
    return M2File(path, sentences, {str(k) for k in known}, problems, decoding)
