"""Words and tokens of any script, found without changing the text.

Python's ``\\w`` leaves out combining marks (Devanagari matras, Thai vowel signs, the marks of
decomposed Vietnamese), so a word here is a run of ``\\w`` characters *or* marks: ``हिन्दी`` and
``ที่`` stay whole. Offsets index the original string, so edits made on words apply to the text
as it is (no tokenise/detokenise round trip).
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import cache


def _ranges(codepoints: list[int]) -> str:
    """Regex character-class body for a sorted list of code points, as ranges."""
    parts: list[str] = []
    first = prev = codepoints[0]
    for cp in codepoints[1:] + [-1]:
        if cp == prev + 1:
            prev = cp
            continue
        parts.append(re.escape(chr(first)) if first == prev else f"{re.escape(chr(first))}-{re.escape(chr(prev))}")
        first = prev = cp
    return "".join(parts)


@cache
def _mark_class() -> str:
    marks = [cp for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp))[0] == "M"]
    return _ranges(marks)


@cache
def word_pattern() -> re.Pattern[str]:
    """Maximal runs of word characters and combining marks (built once, ~0.1 s)."""
    return re.compile(f"[\\w{_mark_class()}]+")


@cache
def token_pattern() -> re.Pattern[str]:
    """Words, or single characters that are neither space nor word: punctuation splits off."""
    return re.compile(f"[\\w{_mark_class()}]+|[^\\s\\w{_mark_class()}]")


def tokenize(text: str) -> list[str]:
    """Word and punctuation tokens of ``text`` (used by whole-field word-order noise)."""
    return token_pattern().findall(text)
