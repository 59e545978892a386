"""Per-config statistics: rows, rows changed, drops by reason, and CER/WER/BLEU vs the original.

CER and WER are jiwer's corpus-level figures (total edits over total reference characters/words),
BLEU is sacrebleu's corpus BLEU (default ``13a`` tokenisation), all against the original field.
Token fields (WikiANN) are compared as space-joined token sequences.

They are not computed by calling jiwer/sacrebleu on every row at the end of a build: that held the
whole corpus in memory and dominated a build's CPU. :class:`FieldScores` keeps only the sufficient
statistics (summed edit distances and lengths, BLEU n-gram match counts), so shards can be scored in
worker processes and merged; its figures are identical to ``jiwer.cer``/``jiwer.wer``/``corpus_bleu``.

A row's word distance and BLEU n-gram matches are counted by the optional C extension ``noisecraft._counting``
(builders/_counting.c) where pip built it, against a memoised reference; without it, by :func:`_python_counts`,
the reference implementation, to the same integers (tests/test_stats.py runs both). The extension also tokenizes a
new reference, sums a row's edit log (:func:`_python_edit_spans` in Python) and searches the character distance
under the edit log's bound (rapidfuzz in Python), with the same results.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from functools import cache, lru_cache
from itertools import compress, count, repeat
from operator import add, eq, itemgetter, mul, ne
from typing import Any, NamedTuple

from rapidfuzz.distance import Levenshtein

from noisecraft.compiled import compiled

# built only where pip found a C compiler; without it, the same figures counted in Python (slower)
_CompiledReference, _bounded_distance, _count_runs, _edit_spans, _tokenize_13a = compiled(
    "noisecraft._counting", ("Reference", "bounded_distance", "count_runs", "edit_spans", "tokenize_13a")) or (None,) * 5

# sacrebleu's defaults for corpus_bleu: n-grams up to order 4, "exp" smoothing, no effective order.
BLEU_MAX_ORDER = 4
BLEU_SMOOTH_METHOD = "exp"

_ORIGINAL, _REPLACEMENT, _KIND, _FIELD = map(itemgetter, ("original", "replacement", "kind", "field"))

# jiwer's default word transform (wer_default) first collapses runs of whitespace into one space.
_MULTIPLE_SPACES = re.compile(r"\s\s+")


def _as_text(value: Any) -> str:
    return " ".join(value) if isinstance(value, list) else value


def _jiwer_words(text: str) -> list[str]:
    """Words as jiwer's ``wer_default`` sees them: whitespace runs collapsed, stripped, split on spaces.

    A single tab or newline between two words is *not* a separator for jiwer, so neither is it here.
    """
    return [word for word in _MULTIPLE_SPACES.sub(" ", text).strip().split(" ") if word]


@lru_cache(maxsize=256)  # the original context of every question of a paragraph
def _word_count(text: str) -> int:
    """Words of ``text`` as the per-word noise models count them (runs of word characters and marks): by
    ``noisecraft._counting.count_runs`` over :func:`_word_flags` where built and the text stays in the Basic
    Multilingual Plane, else by the pattern (imported only then: an import statement costs a few microseconds a
    question)."""
    if _count_runs is not None:
        runs = _count_runs(text, _word_flags())
        if runs >= 0:
            return runs
    from noisecraft.text_units import word_pattern

    return len(word_pattern().findall(text))


@cache
def _word_flags() -> bytes:
    """One flag per code point of the Basic Multilingual Plane: whether the word pattern matches it, i.e. a word
    character of ``re`` (``str.isalnum()`` or ``_``) or a combining mark (category M). Read off the characters
    directly (~30 ms once) rather than through the pattern, whose mark class takes a scan of all of Unicode
    (~0.25 s, once per process); tests/test_stats.py checks the two agree on every code point of the plane."""
    return bytes(ch.isalnum() or ch == "_" or unicodedata.category(ch)[0] == "M" for ch in map(chr, range(0x10000)))


@lru_cache(maxsize=256)
def _reference_words(text: str) -> list[str]:
    """:func:`_jiwer_words` of a reference, memoised like :func:`_word_count` (callers never change the list)."""
    return _jiwer_words(text)


def _word_ids(ref: list[str], hyp: list[str]) -> tuple[list[int], list[int]]:
    """The two word sequences as integer ids, so the edit distance compares words exactly.

    jiwer does the same; rapidfuzz given lists of strings would compare their hashes instead.
    """
    ids = dict(zip(dict.fromkeys(ref + hyp), count())).__getitem__  # C iterators: no Python step per word
    return list(map(ids, ref)), list(map(ids, hyp))


#: sacrebleu 2's 13a rules (``TokenizerRegexp``), each a pattern and its template. The first puts a space on both
#: sides of punctuation; it matches every space too, so ``re.sub`` runs its template once per word, and Python 3.11
#: expands templates in Python. Here that rule is one ``str.replace`` per punctuation character present, leaving
#: spaces as they are (the later rules see a space as one ``[^0-9]`` character whether it is one space or three,
#: and the result is split on whitespace), and the other rules get replacement functions.
_13A_RULES = [
    (r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", r" \1 "),
    (r"([^0-9])([\.,])", r"\1 \2 "),
    (r"([\.,])([^0-9])", r" \1 \2"),
    (r"([0-9])(-)", r"\1 \2 "),
]


#: The characters some 13a rule acts on (the first rule's class, "." and "," of the next two, "-" of the last): a
#: chunk holding none is its own tokenization (most words, and the typos made in them).
_13A_ACTED_ON = re.compile(r"[\{-\~\[-\` -\&\(-\+\:-\@\/.,\-]")


def _spaced_after(match: re.Match[str]) -> str:
    return f"{match[1]} {match[2]} "


def _spaced_before(match: re.Match[str]) -> str:
    return f" {match[1]} {match[2]}"


class _Fast13a(NamedTuple):
    """The pieces of the fast 13a tokenizer that the compiled counting shares (see :func:`_fast_13a`)."""

    #: Each whitespace-separated chunk seen and its tokenization (bounded).
    memo: dict[str, str]
    #: The tokenization of one chunk, through the memo.
    chunk: Callable[[str], str]
    #: The rules applied to a whole line (lines holding a newline).
    whole: Callable[[str], str]


#: For ``noisecraft._counting``, one byte per ASCII character: 1 where 13a's first rule puts spaces around it, 2 where
#: only another rule acts on it (``.``, ``,``, ``-``), 0 where none does (:data:`_13A_ACTED_ON`).
_13A_ACTED_FLAGS = bytes(1 if re.fullmatch(_13A_RULES[0][0], ch) else 2 if _13A_ACTED_ON.match(ch) else 0
                         for ch in map(chr, range(128)))


@cache
def _fast_13a() -> _Fast13a | None:
    """sacrebleu's 13a rules applied faster, chunk by chunk, when the installed sacrebleu has the rules this module
    knows (None otherwise: then sacrebleu's own tokenizer is used). sacrebleu is imported on first use (it is slow
    to import).

    The rules look at a character and its neighbours only, and every whitespace character is the same to them
    (not a digit, not ``.``/``,``), so a line's tokens are the tokens of its whitespace-separated chunks, each
    tokenized alone between two spaces. Chunks (words) repeat, so each is tokenized once (a bounded memo). Lines
    holding a newline (``-\\n`` joins two chunks) go through the rules whole."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    rules = Tokenizer13a()._post_tokenizer._re
    if [(pattern.pattern, template) for pattern, template in rules] != _13A_RULES:
        return None
    spaced = [(ch, f" {ch} ") for ch in map(chr, range(128)) if ch != " " and rules[0][0].fullmatch(ch)]
    rest = [(rules[1][0].sub, _spaced_after), (rules[2][0].sub, _spaced_before), (rules[3][0].sub, _spaced_after)]

    def whole(line: str) -> str:
        line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
        if "&" in line:
            line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        line = f" {line} "
        for ch, replacement in spaced:
            if ch in line:
                line = line.replace(ch, replacement)
        for sub, replace in rest:
            line = sub(replace, line)
        return " ".join(line.split())

    memo: dict[str, str] = {}
    acted_on = _13A_ACTED_ON.search

    def chunk(word: str) -> str:
        found = memo.get(word)
        if found is None:
            if len(memo) > 20_000:  # bound memory (~3 MB a process): typos fill it with words seen once
                memo.clear()
            found = memo[word] = whole(word) if acted_on(word) else word
        return found

    return _Fast13a(memo, chunk, whole)


@cache
def _bleu_tokenizer() -> Callable[[str], str]:
    """sacrebleu's 13a tokenizer, by :func:`_fast_13a`'s chunks where it applies (a noisy paragraph then costs a
    split, dictionary lookups and a join), else sacrebleu's own. The output is sacrebleu's, character for character
    (tests/test_stats.py compares them)."""
    fast = _fast_13a()
    if fast is None:
        from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

        return Tokenizer13a()
    memo, chunk, whole = fast

    @lru_cache(maxsize=1024)  # originals repeat (SQuAD contexts); noisy lines rarely do
    def tokenize(line: str) -> str:
        if "\n" in line:
            return whole(line)
        words = line.split()
        pieces = list(map(memo.get, words))
        if None in pieces:
            for index, piece in enumerate(pieces):
                if piece is None:
                    pieces[index] = chunk(words[index])
        return " ".join(filter(None, pieces))  # a chunk may tokenize to nothing (<skipped>)

    return tokenize


def _ngram_keys(ids: list[int], base: int) -> list[list[int]]:
    """The n-grams (n = 1..4) of a sequence of token ids below ``base``, each n-gram as one integer (its ids as
    digits in base ``base``), computed by C iterators (``map`` over shifted views): no tuple and no Python step
    per n-gram."""
    keys = [ids]
    for n in range(2, BLEU_MAX_ORDER + 1):
        keys.append(list(map(add, map(mul, keys[-1], repeat(base)), ids[n - 1 :])))
    return keys


class _ReferenceNgrams:
    """A tokenized reference's length, vocabulary (token ids from 1) and, per n-gram order, its n-grams as a list
    and as a set (fewer members than the list: some repeat), and their counts, made on first need."""

    __slots__ = ("length", "vocabulary", "keys", "sets", "counts")

    def __init__(self, tokenized: str) -> None:
        tokens = tokenized.split()
        self.length = len(tokens)
        self.vocabulary = dict(zip(dict.fromkeys(tokens), count(1)))
        self.keys = _ngram_keys(list(map(self.vocabulary.__getitem__, tokens)), len(self.vocabulary) + 1)
        self.sets = [set(keys) for keys in self.keys]
        self.counts: list[Counter[int] | None] = [None] * BLEU_MAX_ORDER

    def count_of(self, order: int) -> Counter[int]:
        """Counts of the n-grams of one order (index 0: unigrams)."""
        found = self.counts[order]
        if found is None:
            found = self.counts[order] = Counter(self.keys[order])
        return found


@lru_cache(maxsize=256)  # rows of a paragraph come together; a few MB at most
def _reference_ngrams(tokenized: str) -> _ReferenceNgrams:
    """:class:`_ReferenceNgrams` of a tokenized reference, memoised: every question row of a SQuAD paragraph
    carries the same original context."""
    return _ReferenceNgrams(tokenized)


def bleu_matches(ref: str, hyp: str) -> tuple[int, int, list[int]]:
    """Reference length, hypothesis length and sacrebleu's clipped n-gram matches (n = 1..4) of one pair of
    13a-tokenized lines: per order, ``min(hyp count, ref count)`` summed over the n-grams they share, as
    ``sacrebleu.metrics.BLEU`` counts them (an unchanged line matches all its n-grams).

    Tokens are numbered by the reference's vocabulary; a hypothesis token the reference lacks is 0, so every
    n-gram holding one is absent from the reference's counts and matches nothing, exactly as the word itself.
    Where one side has no repeated n-gram of an order, every shared n-gram has ``min(...) = 1``, so the matches
    are the size of the two sets' intersection; counts are made only when both sides repeat one (unigrams of
    a paragraph, mostly)."""
    reference = _reference_ngrams(ref)
    ref_len = reference.length
    if hyp == ref:
        return ref_len, ref_len, [max(ref_len - n + 1, 0) for n in range(1, BLEU_MAX_ORDER + 1)]
    hyp_tokens = hyp.split()
    vocabulary = reference.vocabulary
    hyp_keys = _ngram_keys(list(map(vocabulary.get, hyp_tokens, repeat(0))), len(vocabulary) + 1)
    matches = []
    for order, (keys, ref_keys, ref_set) in enumerate(zip(hyp_keys, reference.keys, reference.sets)):
        hyp_set = set(keys)
        common = hyp_set & ref_set
        if len(hyp_set) == len(keys) or len(ref_set) == len(ref_keys):
            matches.append(len(common))
            continue
        theirs, mine = Counter(keys), reference.count_of(order)
        matches.append(sum(map(min, map(theirs.__getitem__, common), map(mine.__getitem__, common))))
    return ref_len, len(hyp_tokens), matches


@dataclass
class FieldScores:
    """Mergeable sufficient statistics of CER, WER and BLEU for one perturbed field.

    ``add`` scores one (original, noisy) pair and keeps only integer sums, so memory is constant and
    accumulators of different shards (e.g. in worker processes) can be ``merge``d, or sent back as
    ``to_dict`` and rebuilt with ``from_dict``. The figures equal jiwer's and sacrebleu's corpus-level
    ones on the same pairs because the sums are the very ones those libraries build internally:

    - CER/WER (jiwer 4 defaults): per sentence, the Levenshtein distance over characters of the stripped
      text, or over its words (whitespace runs collapsed, stripped, split on ``" "``); errors summed over
      sentences are divided by the summed reference length. With no reference character/word at all,
      jiwer returns the number of insertions, i.e. the summed distance, and so does this class.
    - BLEU (sacrebleu 2 ``corpus_bleu`` defaults): per sentence, 13a-tokenised n-gram matches
      (clipped by the reference counts) and totals for n = 1..4, and hypothesis/reference lengths;
      the summed counts go through ``sacrebleu.metrics.BLEU.compute_bleu`` with ``exp`` smoothing.
      A row is counted by :func:`_compiled_counts` (C) or :func:`_python_counts` (see the module's docstring).
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
        """Score one noisy value against its original (token lists are compared as space-joined text).

        ``likely_distance`` (e.g. the characters an edit log touched) lets rapidfuzz use its banded
        algorithm, linear in the text for few edits: a 188,601-character context with 3,000 edits
        takes 0.05 s instead of 1 s. The result is exact either way: past the bound it recomputes.
        """
        ref, hyp = _as_text(original), _as_text(noisy)
        self.sentences += 1
        ref_chars, hyp_chars = ref.strip(), hyp.strip()
        self.ref_chars += len(ref_chars)
        if hyp != ref:  # an unchanged field (most rows of a low rate): no distance to compute
            self.char_errors += _char_distance(ref_chars, hyp_chars, likely_distance)
        counts = _python_counts if _CompiledReference is None else _compiled_counts
        word_errors, ref_words, ref_len, hyp_len, matches = counts(ref, hyp)
        self.word_errors += word_errors
        self.ref_words += ref_words
        self.bleu_sys_len += hyp_len
        self.bleu_ref_len += ref_len
        correct, total = self.bleu_correct, self.bleu_total
        for n in range(1, min(hyp_len, BLEU_MAX_ORDER) + 1):
            total[n - 1] += hyp_len - n + 1  # every position starts one n-gram
            correct[n - 1] += matches[n - 1]

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


#: A row's word errors, reference words, reference and hypothesis 13a tokens, and clipped BLEU matches (n = 1..4).
RowCounts = tuple[int, int, int, int, list[int]]


def _python_counts(ref: str, hyp: str) -> RowCounts:
    """:data:`RowCounts` of one pair, in Python: the reference implementation (words as jiwer splits them,
    rapidfuzz's Levenshtein over their ids, :func:`bleu_matches` over 13a tokens)."""
    tokenize = _bleu_tokenizer()
    ref_tokenized = tokenize(ref.rstrip())
    if hyp == ref:
        ref_len, hyp_len, matches = bleu_matches(ref_tokenized, ref_tokenized)
        return 0, len(_reference_words(ref)), ref_len, hyp_len, matches
    ref_ids, hyp_ids = _word_ids(_reference_words(ref), _jiwer_words(hyp))
    ref_len, hyp_len, matches = bleu_matches(ref_tokenized, tokenize(hyp.rstrip()))
    return Levenshtein.distance(ref_ids, hyp_ids), len(ref_ids), ref_len, hyp_len, matches


@lru_cache(maxsize=256)  # rows of a paragraph come together; ~20 KB a paragraph
def _compiled_reference(ref: str) -> Any:
    """``noisecraft._counting.Reference`` of a reference: its words, 13a tokens and n-gram counts, memoised (every
    question row of a SQuAD paragraph carries the same original context). The 13a tokens are cut in C as a
    hypothesis's are (``tokenize_13a``, the same string as :func:`_bleu_tokenizer`'s), except in lines holding a
    newline: every new question is a new reference, and tokenizing it in Python was a third of its cost."""
    line = ref.rstrip()
    fast = _fast_13a()
    if fast is None or "\n" in line:
        return _CompiledReference(ref, _bleu_tokenizer()(line))
    return _CompiledReference(ref, _tokenize_13a(line, _13A_ACTED_FLAGS, fast.memo, fast.chunk))


def _compiled_counts(ref: str, hyp: str) -> RowCounts:
    """:data:`RowCounts` of one pair by ``noisecraft._counting`` (the same integers as :func:`_python_counts`):
    the hypothesis is split, looked up in the memoised reference's tables, n-gram matched and word-aligned in C;
    Python only tokenizes the 13a chunks that hold punctuation (memoised) and lines holding a newline."""
    reference = _compiled_reference(ref)
    if hyp == ref:
        tokens = reference.tokens
        return 0, reference.words, tokens, tokens, [max(tokens - n + 1, 0) for n in range(1, BLEU_MAX_ORDER + 1)]
    line = hyp.rstrip()
    fast = _fast_13a()
    if fast is None or "\n" in line:
        distance, hyp_len, *matches = reference.counts(hyp, _bleu_tokenizer()(line), None, None, None)
    else:
        distance, hyp_len, *matches = reference.counts(hyp, line, _13A_ACTED_FLAGS, fast.memo, fast.chunk)
    if distance < 0:  # past the C bit table's bound (thousands of distinct words): rapidfuzz's banded search
        distance = Levenshtein.distance(*_word_ids(_reference_words(ref), _jiwer_words(hyp)))
    return distance, reference.words, reference.tokens, hyp_len, matches


def _char_distance(a: str, b: str, likely: int | None) -> int:
    """Levenshtein distance; with a likely upper bound, first a search under that bound: ``noisecraft._counting``'s
    diagonal search where built (twice as fast as rapidfuzz's banded one on a paragraph with a few dozen typos) and
    the bound is small enough for it to pay (-2 otherwise), else rapidfuzz's. Past the bound, the full distance."""
    if likely is not None:
        found = -2 if _bounded_distance is None else _bounded_distance(a, b, likely)
        if found == -2:
            found = Levenshtein.distance(a, b, score_cutoff=likely)  # likely + 1 past the bound
        if 0 <= found <= likely:
            return found
    return Levenshtein.distance(a, b)


def field_scores(originals: Sequence[Any], noisy: Sequence[Any]) -> dict[str, float]:
    """CER, WER and BLEU (percent, 2 decimals) of noisy texts against their originals."""
    scores = FieldScores()
    for original, noised in zip(originals, noisy, strict=True):
        scores.add(original, noised)
    return scores.scores()


def _python_edit_spans(log: Sequence[dict[str, Any]], fields: Sequence[str], kinds: Counter[str]) -> tuple[int, list[int]]:
    """For one row's edit log: the edits that change text (their kinds counted into ``kinds``), and per field the
    summed spans (``max(len(original), len(replacement))``) of its edits, a likely bound on its character distance.
    The reference implementation of ``noisecraft._counting.edit_spans`` (tests/test_stats.py compares them); per edit,
    C iterators (map, compress) rather than Python steps: contexts carry dozens."""
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
        per_field = [(name, f"original_{name}", self.scores[name].add,
                      self.normalised[name].add if name in self.normalised else None) for name in self.fields]
        spans_of = _python_edit_spans if _edit_spans is None else _edit_spans
        for row in kept:
            edits, spans = spans_of(row["noise_edits"], self.fields, kinds)
            self.rows_changed += edits > 0
            self.edits += edits
            for (name, original_key, score, normalised), touched in zip(per_field, spans):
                original = row[original_key]
                score(original, row[name], touched + 2)  # +2: stripping may add a little
                if normalised is not None:
                    normalised(without_case_and_punctuation(_as_text(original)),
                               without_case_and_punctuation(_as_text(row[name])))
                if self.per_word:
                    self.words += _word_count(_as_text(original))
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
