"""Misspelling lists -> a natural-noise dictionary whose pairs are classified by edit type.

NoiseQA (Ravichander et al., 2021) draws natural noise from lists of real misspellings and keeps
only the errors a keyboard interface can produce, dropping those that merely sound like the
correct word. This miner reads three published list formats, counts each ``(correct, noisy)``
pair across the files, labels it with its optimal-string-alignment (restricted Damerau) edit
type, and optionally applies both NoiseQA filters:

* ``wikipedia``: Wikipedia's "Lists of common misspellings/For machines", ``typo->correct`` or
  ``typo->correct1, correct2`` (one pair per correction); ``#`` lines are comments.
* ``birkbeck``: Mitton's Birkbeck ``missp.dat``, a ``$correct`` line followed by its
  misspellings, one per line. Its underscores stand for spaces: multi-word entries (``$a_lot``,
  ``a_bout``) are kept with real spaces and flagged in the ``multiword`` column, because word
  splits and merges are real noise and a consumer can drop them with ``keep={"multiword": False}``.
* ``belinkov``: Belinkov & Bisk's ``*.natural`` files, ``correct err1 err2 ...`` per line.

Malformed lines are skipped, logged and returned as ``"path, line N: problem"`` messages. A file
that is not a misspelling list is an :class:`~noisecraft.errors.InputError` naming it and the line
that shows it: binary data (control characters), an M2 grammatical-error annotation file (``S``
and ``A start end|||type|||correction|||...`` lines, see :data:`M2_ANNOTATION`), a file with no
valid pair, or one whose pairs mostly do not resemble each other (prose, a word list, a CSV: see
:data:`RESEMBLANCE`). Each file is decoded on its own (UTF-8, latin-1 for the lines that are not)
and its format, encoding and counts are recorded in the stats.
"""

from __future__ import annotations

import logging
import re
import shutil
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from rapidfuzz.distance import OSA, Levenshtein

from noisecraft.core.citations import NOISEQA_CITATION, WIKIPEDIA_MISSPELLINGS_CITATION
from noisecraft.core.schema import value
from noisecraft.core.text_files import AUTO, decode_file, unique_files
from noisecraft.dataset.noise_dictionary import with_probabilities
from noisecraft.errors import ConfigError, InputError
from noisecraft.mining.output import MinedDictionary
from noisecraft.noise_models.keyboard_layouts import load_layout

logger = logging.getLogger(__name__)

FORMATS = ("wikipedia", "birkbeck", "belinkov")
EDIT_TYPES = ("insertion", "deletion", "transposition", "keyboard", "substitution", "other")
KEYBOARD_TYPES = frozenset({"insertion", "deletion", "transposition", "keyboard"})

MISSPELLING_COLUMNS: dict[str, Any] = {
    "edit_type": value("string"),
    "distance": value("int64"),
    "multiword": value("bool"),
    "sources": value("string"),
}

# Two transcriptions are "sound-alike" when at most one phone in six differs (phone-level
# Levenshtein distance over the longer length <= 1/6). Measured on Wikipedia's list with
# epitran's English: pairs below 1/6 are nearly all spelling-by-sound (definately, harrasing,
# Sacremento), pairs around 0.2 are half keyboard slips that flite's letter-to-sound rules
# re-voweled (abbout /æbawt/, refedendum), and one phone in a short word (lock /lɑk/ vs luck
# /lʌk/, 0.33) is a different word. Requiring identical IPA would miss most sound-alikes: the
# letter-to-sound rules transcribe non-words unevenly (recieve /ɹət͡ʃiv/), and only 674 of the
# list's 4515 pairs come out identical.
PHONETIC_THRESHOLD = Fraction(1, 6)  # exact, so 2 phones in 12 sit on the bound too

# ISO 639-1 -> epitran language-script codes, for the languages with misspelling data here and
# a few more with rule-based epitran mappings that need no external binary.
EPITRAN_CODES = {
    "en": "eng-Latn",
    "de": "deu-Latn",
    "fr": "fra-Latn",
    "cs": "ces-Latn",
    "es": "spa-Latn",
    "it": "ita-Latn",
    "nl": "nld-Latn",
    "pl": "pol-Latn",
}

Pair = tuple[str, str]

#: An edit annotation line of the M2 format used by GEC corpora (CoNLL-2013/14, BEA-2019, JFLEG's
#: converter): ``A start end|||type|||correction|||REQUIRED|||-NONE-|||annotator``.
M2_ANNOTATION = re.compile(r"^A -?\d+ -?\d+\|\|\|")
#: A misspelling resembles its word: on every real list here (Wikipedia, Birkbeck, Belinkov & Bisk
#: en/de/fr/cs) 86-100 % of pairs have an OSA similarity (1 - distance / longer length, ignoring
#: case) of at least 1/3; on prose, GEC source/M2 files, READMEs, CSVs and word lists read as lists,
#: 0-23 % do. A file where fewer than half do is refused.
RESEMBLANCE = Fraction(1, 3)
MIN_RESEMBLING_SHARE = Fraction(1, 2)
# C0 control characters other than tab, line feed, form feed and carriage return. Random bytes hold one
# every ten bytes or so; real lists almost none (Belinkov & Bisk's fr.natural has DEL, a typed key, in
# 5 of 65,157 lines, so DEL is not one of them, and a few stray ones are tolerated: see BINARY_LINE_SHARE).
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f]")
BINARY_LINE_SHARE = Fraction(1, 100)  # more lines than this with a control character (or any NUL): binary
LOGGED_SKIPS = 10  # skipped lines logged one by one per file; all are counted and returned


# --- reading -----------------------------------------------------------------------------------


def _read_lines(path: Path, encoding: str = AUTO) -> tuple[list[str], str]:
    """The file's lines and how it was decoded (UTF-8, BOM allowed; latin-1 for the lines that are not)."""
    text, read_as = decode_file(path, encoding, "misspelling file")
    if read_as != "utf-8" and read_as != "utf-8 (with BOM)":
        logger.info("%s read as %s", path, read_as)
    if not text.strip():
        raise InputError(path, "empty misspelling file")
    return [line.rstrip("\r") for line in text.split("\n")], read_as


def check_not_other_format(path: Path, lines: Sequence[str]) -> None:
    """Refuse, naming the line, text that is visibly something else: binary data or an M2 annotation file."""
    controlled: list[tuple[int, str]] = []
    nul = False
    for number, line in enumerate(lines, start=1):
        control = _CONTROL.search(line)
        if control:
            controlled.append((number, control.group()))
            nul = nul or "\x00" in line
        if M2_ANNOTATION.match(line):
            raise InputError(path, "an M2 grammatical-error annotation line ('A start end|||type|||correction|||...'), "
                                   "not a misspelling list (formats: " + ", ".join(FORMATS) + ")", f"line {number}")
    text_lines = sum(1 for line in lines if line.strip())
    if controlled and (nul or Fraction(len(controlled), max(text_lines, 1)) > BINARY_LINE_SHARE):
        number, char = controlled[0]
        raise InputError(path, f"binary data, not a misspelling list: {len(controlled)} of {text_lines} lines hold control "
                               f"characters (first: U+{ord(char):04X})", f"line {number}")


def resembles(correct: str, noisy: str) -> bool:
    """Whether ``noisy`` could be a misspelling of ``correct``: OSA similarity >= :data:`RESEMBLANCE`, ignoring case."""
    a, b = correct.lower(), noisy.lower()
    longer = max(len(a), len(b), 1)
    # (longer - distance) / longer >= RESEMBLANCE, in integers: exact, and fast on 100,000-pair lists
    return (longer - OSA.distance(a, b)) * RESEMBLANCE.denominator >= RESEMBLANCE.numerator * longer


def detect_format(lines: Sequence[str]) -> str:
    """``birkbeck`` when the first entry is a ``$word`` line, ``wikipedia`` when at least half of
    the first 200 entries hold ``->``, else ``belinkov``; blank and ``#`` lines are not entries."""
    entries = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")][:200]
    if entries and entries[0].startswith("$"):
        return "birkbeck"
    if 2 * sum("->" in entry for entry in entries) >= len(entries):
        return "wikipedia"
    return "belinkov"


def _parse_wikipedia(lines: Sequence[str]) -> Iterable[tuple[int, Pair | None, str]]:
    """``typo->correct[, correct...]``: one pair per correction; spaces around parts are dropped."""
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        typo, arrow, corrections = text.partition("->")
        targets = [target.strip() for target in corrections.split(",")]
        if not arrow:
            yield number, None, "no '->' between misspelling and correction"
        elif "->" in corrections:
            yield number, None, "more than one '->'"
        elif not typo.strip() or not all(targets):
            yield number, None, "empty misspelling or correction"
        else:
            for target in targets:
                yield number, (target, typo.strip()), ""


def _parse_birkbeck(lines: Sequence[str]) -> Iterable[tuple[int, Pair | None, str]]:
    """``$correct`` then its misspellings, one per line; ``_`` becomes a space."""
    target: str | None = None
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text:
            continue
        word = text.removeprefix("$")
        if not word or any(ch.isspace() for ch in word):
            yield number, None, "expected one entry per line (Birkbeck writes spaces as '_')"
            if text.startswith("$"):
                target = None
        elif text.startswith("$"):
            target = word.replace("_", " ")
        elif target is None:
            yield number, None, "misspelling with no valid '$correct' line before it"
        else:
            yield number, (target, word.replace("_", " ")), ""


def _parse_belinkov(lines: Sequence[str]) -> Iterable[tuple[int, Pair | None, str]]:
    """``correct err1 err2 ...``: one pair per error (repeats on a line are repeated pairs)."""
    for number, line in enumerate(lines, start=1):
        tokens = line.split()
        if len(tokens) == 1:
            yield number, None, "a correct word with no misspelling after it"
        for error in tokens[1:]:
            yield number, (tokens[0], error), ""


PARSERS: dict[str, Callable[[Sequence[str]], Iterable[tuple[int, Pair | None, str]]]] = {
    "wikipedia": _parse_wikipedia,
    "birkbeck": _parse_birkbeck,
    "belinkov": _parse_belinkov,
}


@dataclass
class MisspellingFile:
    """One parsed list: its pairs in file order, the skipped lines, and how it was read."""

    path: Path
    format: str
    encoding: str
    pairs: list[Pair]
    skips: list[str]

    def describe(self) -> str:
        """``"list.txt: wikipedia, utf-8, 4515 pairs, 0 lines skipped"`` for the stats."""
        return f"{self.path.name}: {self.format}, {self.encoding}, {len(self.pairs)} pairs, {len(self.skips)} lines skipped"


def read_misspelling_file(path: Path, fmt: str = "auto", encoding: str = AUTO) -> MisspellingFile:
    """Parse one list (see :func:`parse_misspelling_file`), keeping its format and encoding."""
    if fmt != "auto" and fmt not in PARSERS:
        raise ConfigError(f"unknown misspelling file format {fmt!r}: use auto, {', '.join(FORMATS)}")
    path = Path(path)
    lines, read_as = _read_lines(path, encoding)
    check_not_other_format(path, lines)
    fmt = detect_format(lines) if fmt == "auto" else fmt
    pairs, skips = _parse_lines(path, lines, fmt)
    return MisspellingFile(path, fmt, read_as, pairs, skips)


def parse_misspelling_file(path: Path, fmt: str = "auto", encoding: str = AUTO) -> tuple[list[Pair], list[str]]:
    """``(correct, noisy)`` pairs in file order, and one ``"path, line N: problem"`` per skipped line.

    ``fmt`` is ``auto`` (see :func:`detect_format`) or one of :data:`FORMATS`. Pairs are returned
    as the file gives them, identical ones included; the miner decides what to drop. A file that is
    not a misspelling list raises :class:`InputError` (see the module documentation).
    """
    parsed = read_misspelling_file(path, fmt, encoding)
    return parsed.pairs, parsed.skips


def _parse_lines(path: Path, lines: Sequence[str], fmt: str) -> tuple[list[Pair], list[str]]:
    pairs: list[Pair] = []
    lines_of: list[int] = []
    skips: list[str] = []
    for number, pair, problem in PARSERS[fmt](lines):
        if pair is None:
            skips.append(f"{path}, line {number}: {problem}")
        else:
            pairs.append(pair)
            lines_of.append(number)
    if not pairs:
        first = f"; first: {skips[0].removeprefix(f'{path}, ')}" if skips else ""
        raise InputError(path, f"no (correct, misspelling) pair in {fmt} format ({len(skips)} malformed line(s) skipped{first})")
    unlike = [(number, pair) for number, pair in zip(lines_of, pairs) if pair[0] != pair[1] and not resembles(*pair)]
    if Fraction(len(pairs) - len(unlike), len(pairs)) < MIN_RESEMBLING_SHARE:
        number, (correct, noisy) = unlike[0]
        raise InputError(path, f"not a misspelling list: {len(unlike)} of {len(pairs)} pairs read in {fmt} format do not "
                               f"resemble each other (first: {correct!r} -> {noisy!r}); prose, a word list or another "
                               f"format?", f"line {number}")
    # logged once the file is accepted, and a few: a file refused above would flood the terminal
    for skip in skips[:LOGGED_SKIPS]:
        logger.warning("skipped %s", skip)
    if len(skips) > LOGGED_SKIPS:
        logger.warning("skipped %d more malformed line(s) of %s", len(skips) - LOGGED_SKIPS, path)
    return pairs, skips


# --- classification ----------------------------------------------------------------------------


def _keys_near(char: str, neighbours: Mapping[str, Sequence[str]]) -> set[str]:
    """Lower-cased neighbours of ``char`` (indexing, so a NeighbourTable resolves accented keys)."""
    try:
        return {key.lower() for key in neighbours[char]}
    except KeyError:
        return set()


def _adjacent(intended: str, typed: str, neighbours: Mapping[str, Sequence[str]]) -> bool:
    """Whether two keys are physical neighbours, case-insensitively and in either direction
    (a layout table lists only letters next to a letter, but ``;`` is still beside ``l``)."""
    a, b = intended.lower(), typed.lower()
    return b in _keys_near(a, neighbours) or a in _keys_near(b, neighbours)


def classify_edit(correct: str, noisy: str, neighbours: Mapping[str, Sequence[str]]) -> str:
    """The OSA (restricted Damerau) edit that turns ``correct`` into ``noisy``.

    One of :data:`EDIT_TYPES`: ``insertion`` / ``deletion`` (one character more / fewer),
    ``transposition`` (two adjacent characters swapped), ``keyboard`` (one substitution by a key
    within distance 1 of the intended one in ``neighbours``, e.g. a layout's
    ``distance_neighbours()``, compared case-insensitively), ``substitution`` (any other single
    substitution, case-only changes included: Shift is the same key) or ``other`` (two or more
    edits). Raises ``ValueError`` for identical strings, which are not an error at all.
    """
    distance = OSA.distance(correct, noisy)
    if distance == 0:
        raise ValueError(f"{correct!r} and its noisy form are identical: no edit to classify")
    if distance > 1:
        return "other"
    if len(noisy) != len(correct):
        return "insertion" if len(noisy) > len(correct) else "deletion"
    differing = [i for i, (a, b) in enumerate(zip(correct, noisy)) if a != b]
    if len(differing) == 2:
        return "transposition"
    i = differing[0]
    return "keyboard" if _adjacent(correct[i], noisy[i], neighbours) else "substitution"


# --- phonetic filter ---------------------------------------------------------------------------


def phones(ipa: str) -> list[str]:
    """IPA split into phones: combining marks, modifier letters (``ː``, ``ʰ``) and tie-barred
    sequences (``t͡ʃ``) stay with their base; stress marks and spaces are dropped."""
    segments: list[str] = []
    for char in ipa:
        if char.isspace() or char in "ˈˌ":
            continue
        attaches = unicodedata.combining(char) or unicodedata.category(char) == "Lm"
        if segments and (attaches or segments[-1].endswith("\u0361")):
            segments[-1] += char
        else:
            segments.append(char)
    return segments


def sound_alike(correct_ipa: str, noisy_ipa: str, threshold: Fraction | float = PHONETIC_THRESHOLD) -> bool:
    """Identical transcriptions, or phone-level Levenshtein distance over the longer phone count
    <= ``threshold``. An empty transcription (the G2P knew nothing of the word) is never judged
    sound-alike."""
    a, b = phones(correct_ipa), phones(noisy_ipa)
    return bool(a and b) and Fraction(Levenshtein.distance(a, b), max(len(a), len(b))) <= threshold


def drop_sound_alikes(
    rows: list[dict[str, Any]], g2p: Callable[[str], str], threshold: Fraction | float = PHONETIC_THRESHOLD
) -> list[dict[str, Any]]:
    """The rows whose ``noisy`` form does not sound like ``correct`` (each word transcribed once)."""
    transcriptions: dict[str, str] = {}

    def ipa(word: str) -> str:
        if word not in transcriptions:
            transcriptions[word] = g2p(word)
        return transcriptions[word]

    return [row for row in rows if not sound_alike(ipa(row["correct"]), ipa(row["noisy"]), threshold)]


def load_g2p(lang: str) -> tuple[Callable[[str], str] | None, str]:
    """An epitran word -> IPA function for ``lang`` and its name, or ``None`` and why not.

    epitran is optional and not a project dependency. Its English needs flite's ``lex_lookup``
    binary, which Debian's ``flite`` package does not ship, so English is checked for it.
    """
    try:
        import epitran
    except ImportError:
        return None, "no G2P package installed"
    code = EPITRAN_CODES.get(lang)
    if code is None:
        return None, f"no epitran code known for language {lang!r}"
    if code == "eng-Latn" and shutil.which("lex_lookup") is None:
        return None, "epitran's English needs flite's lex_lookup binary, not found on PATH"
    return epitran.Epitran(code).transliterate, f"epitran {code}"


# --- mining ------------------------------------------------------------------------------------


def _read_all(paths: Sequence[Path], encoding: str = AUTO) -> tuple[Counter[Pair], dict[Pair, set[str]], list[MisspellingFile]]:
    """Pair counts and source file names over all files (each file once), and the parsed files."""
    counts: Counter[Pair] = Counter()
    sources: dict[Pair, set[str]] = defaultdict(set)
    files = [read_misspelling_file(path, encoding=encoding) for path in paths]
    for parsed in files:
        counts.update(parsed.pairs)
        for pair in parsed.pairs:
            sources[pair].add(parsed.path.name)
    return counts, sources, files


def _phonetic(rows: list[dict[str, Any]], lang: str, enabled: bool) -> tuple[list[dict[str, Any]], str]:
    """Rows after the sound-alike filter, and the stats line saying whether and how it ran."""
    if not enabled:
        return rows, "not applied (disabled)"
    g2p, name = load_g2p(lang)
    if g2p is None:
        return rows, f"not applied ({name})"
    kept = drop_sound_alikes(rows, g2p)
    return kept, (
        f"applied: {name} IPA, dropped {len(rows) - len(kept)} pair(s) whose phone-level normalised "
        f"Levenshtein distance is <= {PHONETIC_THRESHOLD} (identical or at most one phone in six differs)"
    )


def mine_misspellings(
    paths: Sequence[Path],
    lang: str = "en",
    layout: str = "qwerty",
    keyboard_only: bool = False,
    phonetic_filter: bool = True,
    encoding: str = AUTO,
) -> tuple[list[dict], dict]:
    """Dictionary rows for every distinct ``(correct, noisy)`` pair of the files, and stats.

    Rows carry ``lang, correct, noisy, count`` (occurrences across all files), ``probability``,
    ``edit_type`` (:func:`classify_edit` on ``layout``), ``distance`` (OSA), ``multiword`` (a
    space on either side) and ``sources`` (the file names, comma-separated); identical pairs are
    dropped and rows are sorted by ``(correct, noisy)``.

    ``keyboard_only`` is NoiseQA's filter: it keeps ``insertion``, ``deletion``,
    ``transposition`` and ``keyboard`` pairs, the slips a keyboard produces (an extra or missed
    key press, two keys hit out of order, a neighbouring key hit), and drops other substitutions
    and multi-edit rewrites, which come from not knowing the spelling rather than from typing.
    ``phonetic_filter`` drops sound-alike pairs (:func:`sound_alike`) when a G2P is available
    (:func:`load_g2p`); the stats say whether it ran.

    Each file is read once, however often it is listed; the stats record each file's format,
    encoding, pairs and skipped lines (``files``) and the repeats (``repeated_inputs``).
    """
    neighbours = load_layout(layout).distance_neighbours()
    unique, repeats = unique_files(paths)
    counts, sources, files = _read_all(unique, encoding)
    skips = [skip for parsed in files for skip in parsed.skips]
    rows = _pair_rows(counts, sources, lang, neighbours)
    distinct = len(rows)
    if keyboard_only:
        rows = [row for row in rows if row["edit_type"] in KEYBOARD_TYPES]
    after_keyboard = len(rows)
    rows, phonetic = _phonetic(rows, lang, phonetic_filter)
    by_type = Counter(row["edit_type"] for row in rows)
    stats = {
        "pairs_read": sum(counts.values()),
        "distinct_pairs": distinct,
        "identical_dropped": len(counts) - distinct,
        "keyboard_dropped": distinct - after_keyboard,
        "phonetic_dropped": after_keyboard - len(rows),
        "pairs_kept": len(rows),
        "by_type": {edit_type: by_type[edit_type] for edit_type in EDIT_TYPES},
        "skipped": len(skips),
        "skip_examples": skips[:10],
        "keyboard_only": keyboard_only,
        "phonetic_filter": phonetic,
        "layout": layout,
        **_input_stats(files, repeats),
    }
    return with_probabilities(rows), stats


def _pair_rows(counts: Mapping[tuple[str, str], int], sources: Mapping[tuple[str, str], Any], lang: str,
               neighbours: Any) -> list[dict[str, Any]]:
    """One row per distinct pair whose sides differ, sorted by ``(correct, noisy)``."""
    return [
        {
            "lang": lang,
            "correct": correct,
            "noisy": noisy,
            "count": count,
            "probability": 0.0,
            "edit_type": classify_edit(correct, noisy, neighbours),
            "distance": OSA.distance(correct, noisy),
            "multiword": " " in correct or " " in noisy,
            "sources": ",".join(sorted(sources[correct, noisy])),
        }
        for (correct, noisy), count in sorted(counts.items())
        if correct != noisy
    ]


def _input_stats(files: Sequence[Any], repeats: Any) -> dict[str, Any]:
    """What the stats say of the input files: their formats, each file's description, the files given twice."""
    return {"formats": sorted({parsed.format for parsed in files}), "files": [parsed.describe() for parsed in files],
            "repeated_inputs": repeats}


MISSPELLING_COLUMN_DOCS = {
    "edit_type": "insertion, deletion, transposition, keyboard (a key within distance 1 on the layout), "
                 "substitution (another single substitution) or other (more than one edit)",
    "distance": "optimal-string-alignment (restricted Damerau) distance between correct and noisy",
    "multiword": "either side contains a space (word splits and merges)",
    "sources": "the input files the pair came from",
}


def _by_name(message: str, paths: Sequence[Path]) -> str:
    """``"list.txt, line 3: ..."`` from ``"/some/folder/list.txt, line 3: ..."``: cards name files, not folders."""
    for path in paths:
        if message.startswith(f"{path}, "):
            return Path(path).name + message[len(str(path)):]
    return message


def misspelling_dictionary(paths: Sequence[Path], lang: str = "en", layout: str = "qwerty",
                           keyboard_only: bool = False, phonetic_filter: bool = True,
                           encoding: str = AUTO) -> MinedDictionary:
    """Mine misspelling lists into a dictionary ready for :func:`noisecraft.mining.output.write_dictionary`."""
    rows, stats = mine_misspellings(paths, lang, layout, keyboard_only, phonetic_filter, encoding)
    card_stats = {**{k: v for k, v in stats.items() if k not in ("by_type", "skip_examples", "formats", "files",
                                                                  "repeated_inputs")},
                  "formats": ", ".join(stats["formats"]),
                  "files": "; ".join(stats["files"]),
                  "repeated_inputs": "; ".join(stats["repeated_inputs"]) or "none",
                  "by_type": ", ".join(f"{k} {v}" for k, v in stats["by_type"].items()),
                  "skip_examples": " | ".join(_by_name(skip, paths) for skip in stats["skip_examples"]) or "none"}
    names = [Path(p).name for p in unique_files(paths)[0]]
    command = ["noisecraft", "mine", "misspellings", *names, "--lang", lang,
               "--layout", layout, *(["--keyboard-only"] if keyboard_only else []),
               *([] if phonetic_filter else ["--no-phonetic-filter"]),
               *([] if encoding == AUTO else ["--encoding", encoding]), "--out", "OUT"]
    filters = "kept only keyboard-producible errors (NoiseQA's filter)" if keyboard_only else "all edit types kept"
    return MinedDictionary(
        miner="misspellings", lang=lang, inputs=names,
        params={"layout": layout, "keyboard_only": keyboard_only, "phonetic_filter": phonetic_filter, "encoding": encoding},
        rows=rows, columns=MISSPELLING_COLUMNS, column_docs=MISSPELLING_COLUMN_DOCS, stats=card_stats,
        description=(f"pairs read from misspelling lists (Wikipedia 'For machines', Birkbeck missp.dat or "
                     f"Belinkov & Bisk .natural formats), counted across files and classified by edit type on the "
                     f"`{layout}` layout; {filters}; sound-alike filter: {stats['phonetic_filter']}."),
        source_description="lists of real misspellings; Wikipedia's lists are CC BY-SA, the others carry their "
                           "authors' terms (Birkbeck: free for research)",
        license="cc-by-sa-4.0" if stats["formats"] == ["wikipedia"] else "other",
        citation=WIKIPEDIA_MISSPELLINGS_CITATION + "\n\n" + NOISEQA_CITATION,
        command=command,
        use_command="noisecraft build --source xquad --lang " + lang
                    + " --noise 'misspelling(dictionary={out}, dictionary_config={config}, where=content)' --out CHALLENGE",
        top_extra=("edit_type",),
    )
