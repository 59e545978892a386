"""Words and tokens of any script, found without changing the text.

Python's ``\\w`` leaves out combining marks (Devanagari matras, Thai vowel signs, the marks of
decomposed Vietnamese), so a word here is a run of ``\\w`` characters *or* marks: ``हिन्दी`` and
``ที่`` stay whole. Offsets index the original string, so edits made on words apply to the text
as it is (no tokenise/detokenise round trip).

Two generations of "word" live here. :func:`word_pattern` and :func:`tokenize` are what the
version-1 models (and the Wikipedia miner) use, and never change. Version-2 models use
:func:`word_spans`, :func:`whitespace_token_spans` and :func:`token_spans`: contractions,
hyphenated compounds, abbreviations and numbers stay whole (``doesn't``, ``long-term``, ``U.S.``,
``3.5``), and Thai, Chinese and Japanese, written without spaces, are segmented by a maintained
segmenter (pythainlp ``newmm``, jieba, SudachiPy with SudachiDict-core), imported on first use from
the optional ``segment`` extra. Where it is not installed each character (with its marks) is a
word, and :func:`segmentation_note` gives the sentence the dataset card must print about it.
"""

from __future__ import annotations

import logging
import re
import sys
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache


def class_ranges(codepoints: list[int]) -> str:
    """Regex character-class body for a sorted list of code points, as ranges (a class of thousands of characters
    written out compiles several times slower)."""
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
    return class_ranges(marks)


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


# --- words of version-2 models: contractions and compounds whole, Thai/Chinese/Japanese segmented -------------------
#
# Version-1 models keep using :func:`word_pattern` and :func:`tokenize` above (their outputs are frozen).
# Everything below is what the version-2 models (keyboard@2, swap@2, sort@2, ...) call a word.

#: Languages written without spaces between words: their script runs go through a segmenter.
SEGMENTED_LANGUAGES = ("th", "zh", "ja")

#: The extra that installs the segmenters (``pip install 'noisecraft[segment]'``).
SEGMENT_EXTRA = "segment"

# Script runs handed to the segmenter (everything else in the text is split by the word regex).
# Thai: letters, vowel signs, tone marks, ๆ ฯ and Thai digits (not ฿ ๏ ๚ ๛, which are symbols/punctuation).
# Chinese: Han ideographs (CJK unified + extension A-H, compatibility) and 〇. Japanese: Han plus hiragana,
# katakana (full and half width), the prolonged sound mark ー and the iteration marks 々 〆 ゝ ゞ ヽ ヾ.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_SCRIPT_RUN = {
    "th": "[\u0e01-\u0e3a\u0e40-\u0e4e\u0e50-\u0e59]+",
    "zh": f"[\u3007{_HAN}]+",
    "ja": f"[\u3005-\u3007\u303b\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f{_HAN}]+",
}
_SCRIPT_NAME = {"th": "Thai", "zh": "Chinese", "ja": "Japanese"}

_APOSTROPHES_AND_HYPHENS = "'\u2019\u02bc\\-\u2010\u2011"


@cache
def compound_word_pattern() -> re.Pattern[str]:
    """A word that keeps contractions, hyphenated compounds, abbreviations and numbers whole.

    * ``U.S.``, ``e.g.``: two or more single letters each followed by a period (the final period stays);
    * ``3.5``, ``1,000``: digits joined by ``.`` or ``,``;
    * ``doesn't``, ``long-term``, ``rock'n'roll``, ``l'homme``: runs of word characters and marks
      joined by one apostrophe (``'`` ``’`` ``ʼ``) or hyphen (``-`` ``‐`` ``‑``) between them.

    A leading or trailing apostrophe or hyphen is punctuation (``'Hello'``, ``students'``).
    """
    word = f"[\\w{_mark_class()}]"
    atom = f"(?:\\d+(?:[.,]\\d+)+|{word}+)"
    return re.compile(f"(?:[^\\W\\d_]\\.){{2,}}|{atom}(?:[{_APOSTROPHES_AND_HYPHENS}]{atom})*")


@cache
def _script_run(lang: str) -> re.Pattern[str]:
    return re.compile(_SCRIPT_RUN[lang])


@cache
def _mark_or_word() -> re.Pattern[str]:
    return re.compile(f"[\\w{_mark_class()}]")


# --- segmenters (optional, imported on first use) -----------------------------------------------------------------

SplitRun = Callable[[str], list[str]]


@dataclass(frozen=True)
class Segmenter:
    """How one language's script runs are split into words: ``split`` (``None``: per character) and
    ``name``, the sentence a dataset card prints."""

    lang: str
    name: str
    split: SplitRun | None

    @property
    def per_character(self) -> bool:
        """Whether words fall back to single characters (the segmenter is not installed)."""
        return self.split is None


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "?"


def _thai() -> Segmenter | None:
    """pythainlp's ``word_tokenize`` with the dictionary-based ``newmm`` engine (its dictionary ships in the wheel)."""
    try:
        from pythainlp.tokenize import word_tokenize
    except ImportError:
        return None

    def split(run: str) -> list[str]:
        return word_tokenize(run, engine="newmm", keep_whitespace=True)

    return Segmenter("th", f"pythainlp {_version('pythainlp')} `word_tokenize` (engine newmm)", split)


def _chinese() -> Segmenter | None:
    """jieba's default dictionary and HMM, in a private ``Tokenizer`` (words a user adds to jieba's global
    tokenizer cannot change a build)."""
    try:
        import jieba
    except ImportError:
        return None
    logging.getLogger("jieba").setLevel(logging.WARNING)  # jieba logs its dictionary loading at DEBUG to stderr
    tokenizer = jieba.Tokenizer()

    def split(run: str) -> list[str]:
        return list(tokenizer.cut(run, HMM=True))

    return Segmenter("zh", f"jieba {_version('jieba')} (default dictionary, HMM on)", split)


def _japanese() -> Segmenter | None:
    """SudachiPy with the SudachiDict core dictionary (a PyPI wheel), split mode B (middle units: 国会 / 議事堂
    stays 議事堂, 東京都庁 is 東京 / 都庁)."""
    try:
        from sudachipy import Dictionary, SplitMode
        dictionary = Dictionary(dict="core")
    except Exception:  # noqa: BLE001 - not installed, or installed without its dictionary: fall back
        return None
    make = getattr(dictionary, "tokenizer", None) or dictionary.create  # .create before SudachiPy 0.6.9
    tokenizer = make(mode=SplitMode.B)

    def split(run: str) -> list[str]:
        return [m.surface() for m in tokenizer.tokenize(run)]

    name = (f"SudachiPy {_version('sudachipy')} with SudachiDict-core {_version('sudachidict-core')} "
            "(split mode B)")
    return Segmenter("ja", name, split)


#: The loader of each segmented language; each returns ``None`` when its package is not installed.
SEGMENTER_LOADERS: dict[str, Callable[[], Segmenter | None]] = {"th": _thai, "zh": _chinese, "ja": _japanese}
_SEGMENTER_PACKAGE = {"th": "pythainlp", "zh": "jieba", "ja": "sudachipy and sudachidict-core"}


@cache
def segmenter(lang: str) -> Segmenter:
    """The segmenter of ``lang`` (one of :data:`SEGMENTED_LANGUAGES`), loaded once per process; per character
    when its package is not installed."""
    loaded = SEGMENTER_LOADERS[lang]()
    if loaded is not None:
        return loaded
    return Segmenter(lang, f"per character ({_SEGMENTER_PACKAGE[lang]} not installed: "
                           f"pip install 'noisecraft[{SEGMENT_EXTRA}]')", None)


def segmentation_note(lang: str) -> str:
    """The sentence a dataset card needs about words in ``lang`` ("" for languages written with spaces)."""
    if lang not in SEGMENTED_LANGUAGES:
        return ""
    seg = segmenter(lang)
    if seg.per_character:
        return (f"{_SCRIPT_NAME[lang]} is written without spaces and its segmenter is not installed, so each "
                f"{_SCRIPT_NAME[lang]} character (with its combining marks) counts as one word: {seg.name}.")
    return f"{_SCRIPT_NAME[lang]} words come from {seg.name}."


def _per_character(run: str) -> tuple[int, ...]:
    """Lengths of the characters of ``run``, each with the combining marks that follow it."""
    lengths: list[int] = []
    for ch in run:
        if lengths and unicodedata.category(ch)[0] == "M":
            lengths[-1] += 1
        else:
            lengths.append(1)
    return tuple(lengths)


@lru_cache(maxsize=65_536)
def _run_lengths(lang: str, run: str) -> tuple[int, ...]:
    """Word lengths of one script run; per character when there is no segmenter or its words do not
    spell the run exactly (offsets must index the original text)."""
    split = segmenter(lang).split
    if split is None:
        return _per_character(run)
    words = [w for w in split(run) if w]
    if "".join(words) != run:
        return _per_character(run)
    return tuple(len(w) for w in words)


def _segment_runs(text: str, lang: str, rest: Callable[[int, int], list[tuple[int, int]]]) -> list[tuple[int, int]]:
    """Spans of ``text``: script runs of ``lang`` split by its segmenter, the text between them by ``rest``."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for run in _script_run(lang).finditer(text):
        start, end = run.span()
        if start > pos:
            spans.extend(rest(pos, start))
        for length in _run_lengths(lang, run.group()):
            spans.append((start, start + length))
            start += length
        pos = end
    if pos < len(text):
        spans.extend(rest(pos, len(text)))
    return spans


def word_spans(text: str, lang: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each word of ``text`` (:func:`compound_word_pattern`; Thai, Chinese and Japanese
    script runs segmented when ``lang`` is th, zh or ja). Offsets index ``text`` itself."""
    finditer = compound_word_pattern().finditer
    if lang not in SEGMENTED_LANGUAGES:
        return [m.span() for m in finditer(text)]
    return _segment_runs(text, lang, lambda a, b: [m.span() for m in finditer(text, a, b)])


@cache
def non_space_pattern() -> re.Pattern[str]:
    """Whitespace-separated tokens (``str.split``'s tokens, with their offsets)."""
    return re.compile(r"\S+")


def whitespace_token_spans(text: str, lang: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each whitespace-separated token (``best-known,`` is one), with Thai, Chinese and
    Japanese script runs segmented into words when ``lang`` is th, zh or ja (they have no spaces to split on)."""
    finditer = non_space_pattern().finditer
    if lang not in SEGMENTED_LANGUAGES:
        return [m.span() for m in finditer(text)]
    return _segment_runs(text, lang, lambda a, b: [m.span() for m in finditer(text, a, b)])


def token_spans(text: str, lang: str) -> list[tuple[int, int]]:
    """Words (:func:`word_spans`) and, between them, every other non-space character as its own token:
    what word-order noise reorders. Every character of ``text`` outside these spans is whitespace."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for start, end in word_spans(text, lang) + [(len(text), len(text))]:
        spans.extend((i, i + 1) for i in range(pos, start) if not text[i].isspace())
        if end > start:
            spans.append((start, end))
        pos = end
    return spans


def word_tokens(text: str, lang: str) -> list[str]:
    """The tokens of :func:`token_spans` as strings."""
    return [text[a:b] for a, b in token_spans(text, lang)]


def _spaced(ch: str, lang: str) -> bool:
    """A word character of a script written with spaces (Latin letters and digits inside Chinese text)."""
    return bool(_mark_or_word().match(ch)) and not _script_run(lang).match(ch)


def join_tokens(tokens: Sequence[str], lang: str) -> str:
    """Tokens as one text: separated by spaces, except in Thai, Chinese and Japanese, which are written without
    them: there a space is put only between two tokens that would otherwise run together as one Latin or
    numeric word (``NFL 2010``), never around the language's own words or punctuation."""
    if lang not in SEGMENTED_LANGUAGES:
        return " ".join(tokens)
    pieces: list[str] = []
    for token in tokens:
        if pieces and _spaced(pieces[-1][-1], lang) and _spaced(token[0], lang):
            pieces.append(" ")
        pieces.append(token)
    return "".join(pieces)


@cache
def letter_script(ch: str) -> str:
    """The script of a letter, as the first word of its Unicode name: ``LATIN``, ``CYRILLIC``, ``ARABIC``, ``CJK``,
    ``HIRAGANA``, ``HANGUL`` ... (``UNNAMED`` for a character without a name)."""
    return unicodedata.name(ch, "UNNAMED").split(" ", 1)[0]


def letter_scripts(text: str) -> frozenset[str]:
    """The scripts (:func:`letter_script`) of the letters of ``text``; digits, marks and punctuation have none."""
    return frozenset(letter_script(ch) for ch in text if ch.isalpha())


def match_case(original: str, replacement: str) -> str:
    """Give ``replacement`` the case pattern of ``original`` (lower, Capitalised or UPPER)."""
    if original.isupper() and len(original) > 1:
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement
