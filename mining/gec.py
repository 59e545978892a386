"""GEC corpora (M2) -> learner error types and confusion sets, as a noise dictionary (``noisecraft mine gec``).

Yin et al. (ACL 2020) inject eight types of learner errors, with the type drawn from its frequency in
a GEC corpus and, for the closed-class types, the replacement drawn from confusion weights w_ij (how
often learners wrote j where i was correct) mined from the same corpus. This miner reads M2 files
(:mod:`noisecraft.mining.gec_m2`) with either tag set and maps each tag onto the eight types:

========  =============================  =====================================
type      NUCLE (CoNLL-2013/2014)        ERRANT (BEA-2019)
========  =============================  =====================================
ArtOrDet  ArtOrDet                       M/R/U:DET
Prep      Prep                           M/R/U:PREP
Trans     Trans (linking words/phrases)  M/R/U:CONJ
Nn        Nn (noun number)               R:NOUN:NUM
SVA       SVA                            R:VERB:SVA
Vform     Vform, Vt (tense)              M/R/U:VERB:FORM, M/R/U:VERB:TENSE
Wchoice   Wci (collocation/idiom)        R:OTHER, R:NOUN, R:VERB, R:ADJ
Worder    WOinc, WOadv                   R:WO
========  =============================  =====================================

Why: most rows are the same category under two names. ERRANT has no linking-word type, and its
conjunctions (CONJ) are the closest. The paper counts verb tense (Vt) with verb form (Vform), so ERRANT's
VERB:TENSE goes there too. Word choice is a word replaced by another lemma: NUCLE's Wci, and ERRANT's
replacements of open-class words (OTHER, NOUN, VERB, ADJ); a missing or extra word (M:, U:) is not a choice.

Every other tag (spelling, punctuation, pronouns, word form, sentence structure, ``UNK``, ...) is
outside the eight types: counted, not mined. Annotations are merged across annotators and files: the
same edit (sentence, offsets, type, correction) marked twice is one learner error.

**Minimal edits** are what the weights are estimated from, because the noise models make only such
edits: one token (or none) on each side for ArtOrDet, Prep, Trans, Nn, SVA, Vform and Wchoice, and two
adjacent tokens swapped for Worder. The **error-type distribution**, though, counts every edit of a type
(anything but a case or spacing change), as the paper takes the types' frequencies in the corpus: linking
words (Trans) and word order (Worder) are mostly phrases (``on the other hand``, a clause moved), and
counting minimal edits only put them at half their share of the same file (CoNLL-2014: Trans 2.2 % instead
of 5.2 %, Worder 1.0 % instead of 3.5 %). Edits that are not minimal are rows of operation ``type-only``:
they count towards the distribution and never towards w_ij (:mod:`noisecraft.grammar.confusions` reads
them so; a table mined before has no such rows and reads as before). For the closed-class types the pair
(correct i, learner's j) counts towards w_ij only when both words are in the paper's reference set
(Table 1, :data:`~noisecraft.grammar.error_types.REFERENCE_SETS`; ``∅`` for an inserted or missing word);
pairs outside it are counted in the card. Words are lower-cased.

The result is a noise dictionary (``lang``, ``correct``, ``noisy``, ``count``, ``probability``) with the
columns ``error_type``, ``operation`` and ``tags``; ``∅`` stands for "no word". Its card shows the type
distribution and the w_ij tables.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noisecraft.core.citations import BEA2019_CITATION, CONLL2014_CITATION, ERRANT_CITATION, YIN2020_CITATION
from noisecraft.core.schema import value
from noisecraft.core.text_files import AUTO, unique_files
from noisecraft.dataset.noise_dictionary import with_probabilities
from noisecraft.errors import ConfigError, InputError
from noisecraft.grammar.error_types import CLOSED_CLASS, EMPTY, ERROR_TYPES, REFERENCE_SETS, TYPE_ONLY
from noisecraft.mining.gec_m2 import SHOWN_PROBLEMS, M2Edit, M2File, M2Problem, read_m2
from noisecraft.mining.output import MinedDictionary

NUCLE_TO_TYPE = {"ArtOrDet": "ArtOrDet", "Prep": "Prep", "Trans": "Trans", "Nn": "Nn", "SVA": "SVA", "Vform": "Vform",
                 "Vt": "Vform", "Wci": "Wchoice", "WOinc": "Worder", "WOadv": "Worder"}
#: ERRANT type (without the operation) -> error type, for every operation (M, R, U) ...
ERRANT_TO_TYPE = {"DET": "ArtOrDet", "PREP": "Prep", "CONJ": "Trans", "NOUN:NUM": "Nn", "VERB:SVA": "SVA",
                  "VERB:FORM": "Vform", "VERB:TENSE": "Vform", "WO": "Worder"}
#: ... and the ERRANT types that are word choice only as replacements (a missing or extra word is not a choice).
ERRANT_WORD_CHOICE = frozenset({"OTHER", "NOUN", "VERB", "ADJ"})
CASE_OR_SPACING = "case or spacing only"
#: The mapping as the card prints it: (type, NUCLE tags, ERRANT tags).
MAPPING_TABLE = (
    ("ArtOrDet", "ArtOrDet", "M/R/U:DET"), ("Prep", "Prep", "M/R/U:PREP"), ("Trans", "Trans", "M/R/U:CONJ"),
    ("Nn", "Nn", "R:NOUN:NUM"), ("SVA", "SVA", "R:VERB:SVA"), ("Vform", "Vform, Vt", "M/R/U:VERB:FORM, M/R/U:VERB:TENSE"),
    ("Wchoice", "Wci", "R:OTHER, R:NOUN, R:VERB, R:ADJ"), ("Worder", "WOinc, WOadv", "R:WO"),
)

GEC_COLUMNS: dict[str, Any] = {
    "error_type": value("string"),
    "operation": value("string"),
    "tags": value("string"),
}
GEC_COLUMN_DOCS = {
    "error_type": f"one of {', '.join(ERROR_TYPES)} (Yin et al., 2020); the sum of `count` per type is the mined "
                  "error-type distribution",
    "operation": "what the noise does to the correct text: `substitution`, `insertion` (correct is ∅: the learner "
                 "added a word), `deletion` (noisy is ∅: the learner left a word out) or `swap` (two words in the "
                 "wrong order); `type-only`: an edit that is not minimal (a phrase, a word outside the reference "
                 "set), counted in the type distribution only",
    "tags": "the corpus tags the pair was annotated with (NUCLE and/or ERRANT)",
}


def error_type(tag: str) -> str | None:
    """The learner error type of a NUCLE or ERRANT tag (``None``: outside the eight types)."""
    if tag in NUCLE_TO_TYPE:
        return NUCLE_TO_TYPE[tag]
    operation, _, kind = tag.partition(":")
    if operation not in ("M", "R", "U"):
        return None
    if kind in ERRANT_TO_TYPE:
        return ERRANT_TO_TYPE[kind]
    if operation == "R" and kind in ERRANT_WORD_CHOICE:
        return "Wchoice"
    return None


@dataclass(frozen=True)
class MinimalPair:
    """What one minimal edit teaches: in ``error_type``, learners wrote ``noisy`` where ``correct`` belongs."""

    error_type: str
    correct: str
    noisy: str
    operation: str


def minimal_pair(kind: str, written: Sequence[str], correction: str) -> MinimalPair | str:
    """The pair of a minimal edit of type ``kind`` (learner wrote ``written``; the annotator's first
    correction is ``correction``), or why the edit is not one (a reason counted in the card)."""
    fixed = correction.split()
    noisy = [w.lower() for w in written]
    correct = [w.lower() for w in fixed]
    if kind == "Worder":
        if len(noisy) == 2 and correct == noisy[::-1] and noisy[0] != noisy[1]:
            return MinimalPair(kind, " ".join(correct), " ".join(noisy), "swap")
        return CASE_OR_SPACING if correct == noisy else "not two swapped words"
    if len(noisy) > 1 or len(correct) > 1:
        return "more than one word on a side"
    if kind not in CLOSED_CLASS and (not noisy or not correct):
        return "a word inserted or deleted (only substitutions make this type)"
    pair = MinimalPair(kind, correct[0] if correct else EMPTY, noisy[0] if noisy else EMPTY,
                       "insertion" if not correct else "deletion" if not noisy else "substitution")
    if pair.correct == pair.noisy:
        return CASE_OR_SPACING
    if kind in CLOSED_CLASS and not {pair.correct, pair.noisy} <= REFERENCE_SETS[kind]:
        return "outside the reference set"
    return pair


@dataclass
class GecCounts:
    """What mining found, mergeable across files."""

    pairs: Counter[MinimalPair] = field(default_factory=Counter)
    tags: dict[MinimalPair, set[str]] = field(default_factory=lambda: defaultdict(set))
    by_type: Counter[str] = field(default_factory=Counter)  # every (deduplicated) edit of the eight types
    not_minimal: Counter[tuple[str, str]] = field(default_factory=Counter)  # (type, reason)
    outside_types: Counter[str] = field(default_factory=Counter)  # tags outside the eight types
    merged: int = 0


def _count_file(m2: M2File, counts: GecCounts, seen: set[tuple[Any, ...]]) -> None:
    for sentence in m2.sentences:
        for edit in sentence.edits:
            _count_edit(sentence.tokens, edit, counts, seen)


def _count_edit(tokens: tuple[str, ...], edit: M2Edit, counts: GecCounts, seen: set[tuple[Any, ...]]) -> None:
    kind = error_type(edit.tag)
    if kind is None:
        counts.outside_types[edit.tag] += 1
        return
    correction = edit.corrections[0] if edit.corrections else ""
    key = (tokens, edit.start, edit.end, kind, correction.lower())
    if key in seen:
        counts.merged += 1
        return
    seen.add(key)
    counts.by_type[kind] += 1
    written = tokens[edit.start : edit.end]
    found = minimal_pair(kind, written, correction)
    if isinstance(found, str):
        counts.not_minimal[kind, found] += 1
        if found != CASE_OR_SPACING:  # still an error of the type: it counts towards the distribution
            found = MinimalPair(kind, correction.lower() or EMPTY, " ".join(written).lower() or EMPTY, TYPE_ONLY)
            counts.pairs[found] += 1
            counts.tags[found].add(edit.tag)
        return
    counts.pairs[found] += 1
    counts.tags[found].add(edit.tag)


def mine_gec(paths: Sequence[Path], lang: str = "en", *, strict: bool = False,
             encoding: str = AUTO) -> tuple[list[dict[str, Any]], dict[str, Any], list[M2File]]:
    """Rows of the confusion dictionary, the statistics, and the files as read."""
    if lang != "en":
        raise ConfigError(f"the learner error types and their reference sets are English: --lang {lang} is not supported")
    files, repeats = unique_files(paths)
    counts = GecCounts()
    seen: set[tuple[Any, ...]] = set()
    read: list[M2File] = []
    for path in files:
        m2 = read_m2(path, strict=strict, encoding=encoding)
        _count_file(m2, counts, seen)
        read.append(m2)
    rows = [{"lang": lang, "correct": pair.correct, "noisy": pair.noisy, "count": n, "error_type": pair.error_type,
             "operation": pair.operation, "tags": ", ".join(sorted(counts.tags[pair]))}
            for pair, n in sorted(counts.pairs.items(), key=lambda item: (ERROR_TYPES.index(item[0].error_type),
                                                                          -item[1], item[0].correct, item[0].noisy))]
    if not rows:
        names = ", ".join(p.name for p in files)
        raise InputError(names, "no minimal edit of the eight learner error types was found: nothing to mine")
    return with_probabilities(rows), _stats(read, counts, repeats), read


def _stats(read: list[M2File], counts: GecCounts, repeats: list[str]) -> dict[str, Any]:
    problems: list[M2Problem] = [p for m2 in read for p in m2.problems]
    by_reason = Counter(p.reason for p in problems)
    minimal: Counter[str] = Counter()
    type_only: Counter[str] = Counter()
    for pair, n in counts.pairs.items():
        (type_only if pair.operation == TYPE_ONLY else minimal)[pair.error_type] += n
    return {
        "files": [f"{m2.path.name}: {len(m2.sentences)} sentences, {m2.annotations} annotations, "
                  f"{'+'.join(sorted(m2.tag_sets))} tags, {m2.decoding}" for m2 in read],
        "repeated_inputs": repeats,
        "sentences": sum(len(m2.sentences) for m2 in read),
        "annotations": sum(m2.annotations for m2 in read),
        "tag_sets": sorted({t for m2 in read for t in m2.tag_sets}),
        "merged_duplicates": counts.merged,
        "edits_by_type": {t: counts.by_type[t] for t in ERROR_TYPES},
        "minimal_by_type": {t: minimal[t] for t in ERROR_TYPES},
        "type_only_by_type": {t: type_only[t] for t in ERROR_TYPES},
        "distribution_by_type": {t: minimal[t] + type_only[t] for t in ERROR_TYPES},
        "not_minimal": {f"{t}: {reason}": n for (t, reason), n in sorted(counts.not_minimal.items())},
        "outside_types": sum(counts.outside_types.values()),
        "skipped_lines": dict(sorted(by_reason.items())),
        "skip_examples": [str(p) for reason in sorted(by_reason)
                          for p in [q for q in problems if q.reason == reason][:SHOWN_PROBLEMS]],
    }


# --- the card ----------------------------------------------------------------------------------


def distribution_table(stats: dict[str, Any]) -> str:
    """Markdown: per type, the minimal edits, the other edits (type only), the share of the distribution the noise
    samples types from, every edit of that type, and the tags mapped onto it."""
    minimal, longer, counted = stats["minimal_by_type"], stats["type_only_by_type"], stats["distribution_by_type"]
    total = sum(counted.values()) or 1
    lines = ["| type | minimal edits | other edits (type only) | share | all edits of the type | NUCLE tags | ERRANT tags |",
             "|---|---|---|---|---|---|---|"]
    for (kind, nucle, errant) in MAPPING_TABLE:
        lines.append(f"| {kind} | {minimal[kind]} | {longer[kind]} | {counted[kind] / total:.1%} | "
                     f"{stats['edits_by_type'][kind]} | {nucle} | {errant} |")
    return "\n".join(lines)


def confusion_tables(rows: Sequence[dict[str, Any]]) -> str:
    """Markdown: w_ij of each closed-class type, one line per correct word i (row-normalised within the type)."""
    blocks = []
    for kind in CLOSED_CLASS:
        table: dict[str, Counter[str]] = defaultdict(Counter)
        for row in rows:
            if row["error_type"] == kind and row["operation"] != TYPE_ONLY:
                table[row["correct"]][row["noisy"]] += row["count"]
        if not table:
            blocks.append(f"**{kind}**: no minimal edit found.")
            continue
        lines = [f"**{kind}** (correct word i -> what learners wrote, w_ij):", "",
                 "| correct i | count | learners wrote j (w_ij) |", "|---|---|---|"]
        for correct, forms in sorted(table.items(), key=lambda item: (-sum(item[1].values()), item[0])):
            total = sum(forms.values())
            shown = ", ".join(f"{noisy} {n / total:.2f}" for noisy, n in sorted(forms.items(), key=lambda kv: (-kv[1], kv[0])))
            lines.append(f"| {correct} | {total} | {shown} |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _source(tag_sets: Sequence[str]) -> tuple[str, str, str]:
    """(description, licence, citations) of the corpora the tag sets come from."""
    parts, citations = [], [YIN2020_CITATION]
    if "NUCLE" in tag_sets:
        parts.append("CoNLL-2013/2014 shared-task test data (NUCLE annotation; distributed freely, (C) Ng et al.)")
        citations.append(CONLL2014_CITATION)
    if "ERRANT" in tag_sets:
        parts.append("BEA-2019 W&I+LOCNESS (ERRANT annotation; W&I licensed for non-commercial research)")
        citations += [BEA2019_CITATION, ERRANT_CITATION]
    return "; ".join(parts), "other", "\n\n".join(citations)


def gec_dictionary(paths: Sequence[Path], lang: str = "en", *, strict: bool = False,
                   encoding: str = AUTO) -> MinedDictionary:
    """Mine M2 files into a confusion dictionary ready for :func:`noisecraft.mining.output.write_dictionary`."""
    rows, stats, read = mine_gec(paths, lang, strict=strict, encoding=encoding)
    description, licence, citation = _source(stats["tag_sets"])
    counted = stats["distribution_by_type"]
    total = sum(counted.values())
    card_stats = {
        "files": "; ".join(stats["files"]),
        "repeated_inputs": "; ".join(stats["repeated_inputs"]) or "none",
        "sentences": stats["sentences"], "annotations": stats["annotations"],
        "duplicate annotations merged": stats["merged_duplicates"],
        "type distribution (every edit but case or spacing)": ", ".join(
            f"{t} {counted[t] / total:.1%}" for t in ERROR_TYPES),
        "edits outside the eight types": stats["outside_types"],
        "edits of the eight types not minimal": ", ".join(f"{k} {v}" for k, v in stats["not_minimal"].items()) or "none",
        "skipped lines": ", ".join(f"{k} {v}" for k, v in stats["skipped_lines"].items()) or "none",
        "skip examples": " | ".join(stats["skip_examples"]) or "none",
    }
    names = [m2.path.name for m2 in read]
    command = ["noisecraft", "mine", "gec", *names, "--lang", lang, *(["--strict"] if strict else []),
               *([] if encoding == AUTO else ["--encoding", encoding]), "--out", "OUT"]
    return MinedDictionary(
        miner="gec", lang=lang, inputs=names, params={"strict": strict, "encoding": encoding},
        rows=rows, columns=GEC_COLUMNS, column_docs=GEC_COLUMN_DOCS, stats=card_stats,
        description=("learner errors read from M2 files, their NUCLE/ERRANT tags mapped onto the eight types of Yin et "
                     "al. (2020) (table below); duplicate annotations merged; the error-type distribution and the "
                     "confusion weights w_ij of ArtOrDet, Prep and Trans (within the paper's reference sets, ∅ = no "
                     "word) estimated from minimal edits (one word or none on each side; two swapped words for Worder), "
                     "the type distribution from every edit of the type (the others are rows of operation type-only)."),
        source_description=description, license=licence, citation=citation, command=command,
        use_command="noisecraft build --source glue/sst2 --noise 'grammar(confusions={out}, confusions_config={config})' "
                    "--out CHALLENGE",
        top_extra=("error_type", "operation"),
        sections=(("Error-type distribution and tag mapping", distribution_table(stats)),
                  ("Confusion weights of the closed-class types", confusion_tables(rows))),
    )
