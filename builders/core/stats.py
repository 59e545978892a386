"""Per-config statistics: rows, rows changed, drops by reason, and CER/WER/BLEU vs the original.

CER and WER are jiwer's corpus-level figures (total edits over total reference characters/words),
BLEU is sacrebleu's corpus BLEU (default ``13a`` tokenisation), all against the original field.
Token fields (WikiANN) are compared as space-joined token sequences.

They are not computed by calling jiwer/sacrebleu on the whole corpus at the end of a build: that held
every row in memory. :class:`FieldScores` keeps only the sufficient statistics (summed edit distances
and lengths, BLEU n-gram match counts), counted a batch at a time where the batch is noised (a worker
process) and merged; its figures are identical to ``jiwer.cer``/``jiwer.wer``/``corpus_bleu``. Each
batch is counted by the libraries: rapidfuzz's paired Levenshtein distances (``rapidfuzz.process.cpdist``,
one call) over characters and over jiwer's words, and sacrebleu's BLEU statistics of each pair over
sacrebleu's 13a tokens.
"""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from functools import cache, lru_cache
from itertools import compress, repeat
from operator import eq, itemgetter, ne
from typing import TYPE_CHECKING, Any

from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist

if TYPE_CHECKING:
    from sacrebleu.metrics import BLEU

# sacrebleu's defaults for corpus_bleu: n-grams up to order 4, "exp" smoothing, no effective order.
BLEU_MAX_ORDER = 4
BLEU_SMOOTH_METHOD = "exp"

_ORIGINAL, _REPLACEMENT, _KIND, _FIELD = map(itemgetter, ("original", "replacement", "kind", "field"))


def _as_text(value: Any) -> str:
    return " ".join(value) if isinstance(value, list) else value


@lru_cache(maxsize=256)  # the original context of every question of a paragraph
def _word_count(text: str) -> int:
    """Words of ``text`` as the per-word noise models count them (runs of word characters and marks)."""
    from noisecraft.core.text_units import word_pattern

    return len(word_pattern().findall(text))


@cache
def _bleu() -> BLEU:
    """sacrebleu's corpus BLEU with ``corpus_bleu``'s defaults, scoring lines tokenized beforehand by
    :func:`_tokenized` (``tokenize="none"``; ``force``: sacrebleu would warn that the lines look tokenized, which
    they are, by its own 13a tokenizer). sacrebleu is imported on first use (it is slow to import)."""
    from sacrebleu.metrics import BLEU

    return BLEU(smooth_method=BLEU_SMOOTH_METHOD, max_ngram_order=BLEU_MAX_ORDER, tokenize="none", force=True)


@cache
def _tokenizer_13a() -> Callable[[str], str]:
    """sacrebleu's 13a tokenizer, one instance: it memoises its calls (``lru_cache``)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def _tokenized(line: str) -> str:
    """sacrebleu's 13a tokenization of ``line.rstrip()`` (what ``corpus_bleu`` scores), word by word.

    13a's rules look at a character and its neighbours, and every whitespace character is the same to them (not a
    digit, not ``.``/``,``; sacrebleu puts a space around the line), so a line's tokens are those of its
    whitespace-separated words, each tokenized alone by sacrebleu's 13a tokenizer, whose memo then serves every repeat
    of a word: a noisy paragraph costs a split, memo hits and a join instead of 13a's regular expressions over it (their
    templates run in Python on 3.11). Only ``-\\n`` joins two words: a line holding a newline is tokenized whole.
    tests/test_stats.py compares the result with sacrebleu's on whole lines."""
    tokenize = _tokenizer_13a()
    line = line.rstrip()
    if "\n" in line:
        return tokenize(line)
    return " ".join(filter(None, map(tokenize, line.split())))  # a word may tokenize to nothing (<skipped>)


def _numbered_words(refs: list[str], hyps: list[str]) -> tuple[list[list[int]], list[list[int]]]:
    """The words of each text as jiwer's ``wer_default`` splits them, numbered over the batch as jiwer numbers them
    (``jiwer.process._word2int``), so that rapidfuzz compares words exactly: given lists of strings it would compare
    their hashes."""
    from jiwer.transformations import wer_default

    ids: defaultdict[str, int] = defaultdict()
    ids.default_factory = ids.__len__
    number = ids.__getitem__
    return ([list(map(number, words)) for words in wer_default(refs)],
            [list(map(number, words)) for words in wer_default(hyps)])


def _summed_distances(refs: Sequence[Any], hyps: Sequence[Any], hint: int | None = None) -> int:
    """Summed Levenshtein distances of the pairs, by one paired rapidfuzz call."""
    return int(cpdist(refs, hyps, scorer=Levenshtein.distance, score_hint=hint).sum())


def _bleu_statistics(refs: list[str], hyps: list[str]) -> list[int]:
    """sacrebleu's BLEU statistics of the pairs, summed: hypothesis and reference lengths, then clipped n-gram matches
    and n-gram totals (n = 1..4): the public fields of one ``BLEU.corpus_score`` over the batch."""
    score = _bleu().corpus_score(list(map(_tokenized, hyps)), [list(map(_tokenized, refs))])
    return [score.sys_len, score.ref_len, *score.counts, *score.totals]


@dataclass
class FieldScores:
    """Mergeable sufficient statistics of CER, WER and BLEU for one perturbed field.

    ``add_all`` scores a batch of (original, noisy) pairs and keeps only integer sums, so memory is
    constant and accumulators of different shards (e.g. in worker processes) can be ``merge``d, or sent
    back as ``to_dict`` and rebuilt with ``from_dict``. The figures equal jiwer's and sacrebleu's
    corpus-level ones on the same pairs because the sums are the very ones those libraries build:

    - CER/WER (jiwer 4 defaults): per sentence, the Levenshtein distance over characters of the stripped
      text, or over its words (whitespace runs collapsed, stripped, split on ``" "``); errors summed over
      sentences are divided by the summed reference length. With no reference character/word at all,
      jiwer returns the number of insertions, i.e. the summed distance, and so does this class.
    - BLEU (sacrebleu 2 ``corpus_bleu`` defaults): sacrebleu's per-sentence statistics, 13a-tokenised
      n-gram matches (clipped by the reference counts) and totals for n = 1..4, and hypothesis/reference
      lengths, summed (:func:`_bleu_statistics`); the sums go through
      ``sacrebleu.metrics.BLEU.compute_bleu`` with ``exp`` smoothing.
    """

    sentences: int = 0
    char_errors: int = 0
    ref_chars: int = 0
    word_errors: int = 0
    ref_words: int = 0
    bleu_sys_len: int = 0
    bleu_ref_len: int = 0
    bleu_correct: list[int] = field(default_factory=lambda: [0] * BLEU_MAX_ORDER)
    bleu_total: list[int] = field(default_factory=lambda: [0] * BLEU_MAX_ORDER)

    def add(self, original: str | list[str], noisy: str | list[str], likely_distance: int | None = None) -> None:
        """Score one noisy value against its original (see :meth:`add_all`)."""
        self.add_all([original], [noisy], None if likely_distance is None else [likely_distance])

    def add_all(self, originals: Sequence[str | list[str]], noisy: Sequence[str | list[str]],
                likely_distances: Sequence[int] | None = None) -> None:
        """Score a batch of noisy values against their originals (token lists are compared as space-joined text).

        ``likely_distances`` (e.g. the characters each row's edit log touched) is passed on to rapidfuzz as the
        batch's ``score_hint`` (their largest), which lets it start with its banded algorithm, linear in the text
        for few edits: a 188,601-character context with 3,000 edits takes hundredths of a second instead of seconds. The result is
        exact either way: rapidfuzz widens the band until the distance is found.
        """
        refs, hyps = list(map(_as_text, originals)), list(map(_as_text, noisy))
        if len(refs) != len(hyps):
            raise ValueError(f"{len(refs)} originals but {len(hyps)} noisy values")
        if not refs:
            return
        self.sentences += len(refs)
        stripped_refs = [ref.strip() for ref in refs]
        self.ref_chars += sum(map(len, stripped_refs))
        self.char_errors += _summed_distances(stripped_refs, [hyp.strip() for hyp in hyps],
                                              max(likely_distances) if likely_distances else None)
        ref_words, hyp_words = _numbered_words(refs, hyps)
        self.ref_words += sum(map(len, ref_words))
        self.word_errors += _summed_distances(ref_words, hyp_words)
        sys_len, ref_len, *counts = _bleu_statistics(refs, hyps)
        self.bleu_sys_len += sys_len
        self.bleu_ref_len += ref_len
        self.bleu_correct = list(map(int.__add__, self.bleu_correct, counts[:BLEU_MAX_ORDER]))
        self.bleu_total = list(map(int.__add__, self.bleu_total, counts[BLEU_MAX_ORDER:]))

    def merge(self, other: FieldScores) -> None:
        """Add another accumulator's pairs (e.g. another shard's) to this one."""
        for name in (f.name for f in fields(self)):
            mine, theirs = getattr(self, name), getattr(other, name)
            if isinstance(mine, list):  # per n-gram order BLEU counts
                setattr(self, name, [a + b for a, b in zip(mine, theirs, strict=True)])
            else:
                setattr(self, name, mine + theirs)

    def to_dict(self) -> dict[str, Any]:
        """The statistics as plain ints (and lists of ints), JSON-able and cheap to return from a worker."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FieldScores:
        """Rebuild an accumulator from :meth:`to_dict`'s output."""
        scores = cls(**data)
        if len(scores.bleu_correct) != BLEU_MAX_ORDER or len(scores.bleu_total) != BLEU_MAX_ORDER:
            raise ValueError(f"BLEU counts must have {BLEU_MAX_ORDER} n-gram orders: {data}")
        return scores

    def exact_scores(self) -> dict[str, float]:
        """CER, WER and BLEU in percent, unrounded (bit-identical to jiwer/sacrebleu times 100)."""
        if not self.sentences:
            return {"cer": 0.0, "wer": 0.0, "bleu": 100.0}
        from sacrebleu.metrics import BLEU

        bleu = BLEU.compute_bleu(list(self.bleu_correct), list(self.bleu_total), self.bleu_sys_len, self.bleu_ref_len,
                                 smooth_method=BLEU_SMOOTH_METHOD, max_ngram_order=BLEU_MAX_ORDER)
        return {
            "cer": 100 * (self.char_errors / self.ref_chars if self.ref_chars else float(self.char_errors)),
            "wer": 100 * (self.word_errors / self.ref_words if self.ref_words else float(self.word_errors)),
            "bleu": bleu.score,
        }

    def scores(self) -> dict[str, float]:
        """CER, WER and BLEU in percent, 2 decimals, as recorded in the manifest and shown in the card."""
        return {name: round(value, 2) for name, value in self.exact_scores().items()}


def field_scores(originals: Sequence[Any], noisy: Sequence[Any]) -> dict[str, float]:
    """CER, WER and BLEU (percent, 2 decimals) of noisy texts against their originals."""
    scores = FieldScores()
    scores.add_all(originals, noisy)
    return scores.scores()


def _edit_spans(log: Sequence[dict[str, Any]], fields: Sequence[str], kinds: Counter[str]) -> tuple[int, list[int]]:
    """For one row's edit log: the edits that change text (their kinds counted into ``kinds``), and per field the
    summed spans (``max(len(original), len(replacement))``) of its edits, a likely bound on its character distance.
    Per edit, C iterators (map, compress) rather than Python steps: contexts carry dozens."""
    originals, replacements = list(map(_ORIGINAL, log)), list(map(_REPLACEMENT, log))
    changed = list(map(ne, originals, replacements))  # only edits that change text count
    kinds.update(compress(map(_KIND, log), changed))
    spans = list(map(max, map(len, originals), map(len, replacements)))
    edited_fields = list(map(_FIELD, log))
    return sum(changed), [sum(compress(spans, map(eq, repeat(name), edited_fields))) for name in fields]


@dataclass
class ConfigStats:
    """Mergeable statistics of a config: row counts, drops by reason, edits, words, per-field scores.

    Each batch is counted where it is noised (a worker process) and the results are merged, so no
    split is ever held whole for its statistics. With ``per_word`` (word-level noise), ``edit_rate``
    is the achieved share of words edited: edits over the words of the original fields, to compare
    with the requested ``rate``.
    """

    fields: tuple[str, ...]
    per_word: bool
    rows_in: int = 0
    rows: int = 0
    rows_changed: int = 0
    edits: int = 0
    words: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    #: Text-changing edits per noise kind; an edit merged from several chain steps counts for each.
    edits_by_kind: Counter[str] = field(default_factory=Counter)
    scores: dict[str, FieldScores] = field(default_factory=dict)
    #: The same scores with case and punctuation removed from both sides (model-based noise: NoiseQA scores
    #: MT and ASR output uncased and detokenised, and a recogniser's casing is not the text's).
    normalised: dict[str, FieldScores] = field(default_factory=dict)

    @classmethod
    def empty(cls, fields_: Sequence[str], per_word: bool, normalised: bool = False) -> ConfigStats:
        return cls(tuple(fields_), per_word, scores={name: FieldScores() for name in fields_},
                   normalised={name: FieldScores() for name in fields_} if normalised else {})

    def add(self, rows_in: int, kept: Sequence[dict[str, Any]], dropped: Counter[str]) -> None:
        """Count one batch: ``rows_in`` source rows, the ``kept`` output rows, the drop reasons."""
        self.rows_in += rows_in
        self.rows += len(kept)
        self.dropped.update(dropped)
        kinds: Counter[str] = Counter()  # the batch's changed edits by kind ("a+b" for a chained edit), split at the end
        spans = []  # per row, per field: the characters its edits touched
        for row in kept:
            edits, touched = _edit_spans(row["noise_edits"], self.fields, kinds)
            self.rows_changed += edits > 0
            self.edits += edits
            spans.append(touched)
        for name, touched in zip(self.fields, zip(*spans)):
            originals = [_as_text(row[f"original_{name}"]) for row in kept]
            noisy = [_as_text(row[name]) for row in kept]
            self.scores[name].add_all(originals, noisy, [span + 2 for span in touched])  # +2: stripping may add a little
            if name in self.normalised:
                self.normalised[name].add_all(list(map(without_case_and_punctuation, originals)),
                                              list(map(without_case_and_punctuation, noisy)))
            if self.per_word:
                self.words += sum(map(_word_count, originals))
        for joined, times in kinds.items():  # each distinct kind string split once a batch
            for kind in dict.fromkeys(joined.split("+")):
                self.edits_by_kind[kind] += times

    def merge(self, other: ConfigStats) -> None:
        """Add another batch's or shard's counts."""
        self.rows_in += other.rows_in
        self.rows += other.rows
        self.rows_changed += other.rows_changed
        self.edits += other.edits
        self.words += other.words
        self.dropped.update(other.dropped)
        self.edits_by_kind.update(other.edits_by_kind)
        for name, scores in other.scores.items():
            self.scores[name].merge(scores)
        for name, scores in other.normalised.items():
            self.normalised[name].merge(scores)

    def to_dict(self) -> dict[str, Any]:
        """The statistics block recorded in the manifest, printed on the console and shown in the card."""
        stats: dict[str, Any] = {
            "rows_in": self.rows_in,
            "rows": self.rows,
            "rows_changed": self.rows_changed,
            "edits": self.edits,
            "edits_by_kind": dict(sorted(self.edits_by_kind.items())),
            "dropped": dict(sorted(self.dropped.items())),
            "fields": {name: self.scores[name].scores() for name in self.fields},
        }
        if self.normalised:
            stats["fields_normalised"] = {name: self.normalised[name].scores() for name in self.fields}
        if self.per_word:
            stats["edit_rate"] = round(self.edits / self.words, 4) if self.words else 0.0
        return stats


STATS_HEADER = ("config", "split", "rows", "changed", "dropped", "field", "CER %", "WER %", "BLEU")


def stats_table_rows(config: str, split: str, stats: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Table rows (one per perturbed field) for the console and the card."""
    dropped = sum(stats["dropped"].values())
    scored = list(stats["fields"].items())
    scored += [(f"{name} (uncased, no punctuation)", s) for name, s in stats.get("fields_normalised", {}).items()]
    return [
        (config, split, stats["rows"], stats["rows_changed"], dropped, name,
         f"{s['cer']:.2f}", f"{s['wer']:.2f}", f"{s['bleu']:.2f}")
        for name, s in scored
    ]


def without_case_and_punctuation(text: str) -> str:
    """Case-folded, punctuation (Unicode category P) removed, whitespace collapsed: how NoiseQA compares
    machine-translated or recognised text with its source (uncased, detokenised)."""
    kept = "".join(ch for ch in text.casefold() if not unicodedata.category(ch).startswith("P"))
    return " ".join(kept.split())


def format_table(header: Sequence[str], rows: Sequence[Sequence[Any]], markdown: bool = False) -> str:
    """Plain-text (console) or Markdown (card) table."""
    cells = [list(map(str, header))] + [list(map(str, r)) for r in rows]
    if markdown:
        lines = ["| " + " | ".join(cells[0]) + " |", "|" + "|".join("---" for _ in header) + "|"]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in cells[1:]])
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def normalised_scores(originals: Sequence[str], noisy: Sequence[str]) -> dict[str, float]:
    """CER, WER and BLEU of ``noisy`` against ``originals`` after :func:`without_case_and_punctuation`."""
    return field_scores([without_case_and_punctuation(t) for t in originals],
                        [without_case_and_punctuation(t) for t in noisy])
