"""Decoding: NLTK's phrase-based :class:`~nltk.translate.stack_decoder.StackDecoder` with kenlm as its language model.

NLTK's decoder scores a hypothesis by the phrase scores (:mod:`.phrase_table`), the language model's log probability of the
target words, and ``log(distortion_factor)`` per source word jumped over; it keeps ``stack_size`` hypotheses per
number of covered source words and never samples, so decoding is deterministic. Two things NLTK leaves to the
caller are set here as Moses does them:

* a source word no phrase covers is dropped (Moses's ``-drop-unknown``): removed before decoding, or, when it
  is covered only inside longer phrases, given an empty translation at a fixed log score of
  :data:`UNKNOWN_LOG_PROB`; so the output consists only of target phrases of the label's training data;
* the language model is kenlm, whose base-10 scores are converted to natural logs like the phrase scores; the
  context of a new phrase is the hypothesis's last ``order - 1`` words, from ``<s>`` while it is shorter.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from noisecraft.extras import require

#: Natural-log score of dropping a source word that no phrase covers (Moses's unknown-word penalty, -100).
UNKNOWN_LOG_PROB = -100.0
#: The extra that installs the decoder's parts.
EXTRA = "salad"
_LN10 = math.log(10)


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence the process's stderr: kenlm's C++ prints a hint about binary models on every ARPA load, once per label
    and worker (its errors still arrive, as Python exceptions)."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


class KenlmScorer:
    """The language-model interface NLTK's decoder calls (``probability``, ``probability_change``), on a kenlm model."""

    def __init__(self, arpa: Path) -> None:
        kenlm = require("kenlm", EXTRA)
        config = kenlm.Config()
        config.show_progress = False
        self._kenlm = kenlm
        with _quiet_stderr():
            self.model = kenlm.Model(str(arpa), config)
        self.order: int = self.model.order
        self._memo: dict[tuple[tuple[str, ...], bool, tuple[str, ...]], float] = {}

    def _score(self, context: tuple[str, ...], from_start: bool, phrase: tuple[str, ...]) -> float:
        """Natural-log probability of ``phrase`` after ``context`` (which follows ``<s>`` when ``from_start``)."""
        key = (context, from_start, phrase)
        if key not in self._memo:
            state, out = self._kenlm.State(), self._kenlm.State()
            (self.model.BeginSentenceWrite if from_start else self.model.NullContextWrite)(state)
            for word in context:  # only to reach the context's state
                self.model.BaseScore(state, word, out)
                state, out = out, state
            total = 0.0
            for word in phrase:
                total += self.model.BaseScore(state, word, out)
                state, out = out, state
            self._memo[key] = total * _LN10
        return self._memo[key]

    def probability(self, phrase: Sequence[str]) -> float:
        """Log probability of ``phrase`` with no context (the decoder's future-cost estimate)."""
        return self._score((), False, tuple(phrase)) if phrase else 0.0

    def probability_change(self, hypothesis: Any, phrase: Sequence[str]) -> float:
        """Log probability of ``phrase`` following the translation of ``hypothesis``."""
        if not phrase:
            return 0.0
        words = tuple(hypothesis.translation_so_far())
        keep = self.order - 1
        from_start = len(words) < keep
        return self._score(words if from_start else words[len(words) - keep:], from_start, tuple(phrase))

    def forget(self) -> None:
        """Drop memoised scores (called between sentences, so memory stays bounded)."""
        self._memo.clear()


def _phrase_table(table: dict[tuple[str, ...], list[tuple[tuple[str, ...], float]]]) -> Any:
    """NLTK's :class:`~nltk.translate.api.PhraseTable` of a stored table (targets already most likely first)."""
    from nltk.translate.api import PhraseTable, PhraseTableEntry

    phrases = PhraseTable()
    phrases.src_phrases = {src: [PhraseTableEntry(trg_phrase=trg, log_prob=lp) for trg, lp in options]
                           for src, options in table.items()}
    return phrases


class PhraseDecoder:
    """One label's decoder: its phrase table and language model behind NLTK's stack decoder."""

    def __init__(self, table: dict[tuple[str, ...], list[tuple[tuple[str, ...], float]]], arpa: Path,
                 stack_size: int, distortion_factor: float) -> None:
        from nltk.translate.stack_decoder import StackDecoder

        self.scorer = KenlmScorer(arpa)
        self.phrases = _phrase_table(table)
        self.max_phrase_length = max((len(src) for src in table), default=0)
        self.decoder = StackDecoder(self.phrases, self.scorer)
        self.decoder.stack_size = stack_size
        self.decoder.distortion_factor = distortion_factor

    def translate(self, source: Sequence[str]) -> list[str]:
        """The best target tokens for ``source`` (empty when no phrase of it is in the phrase table).

        Words that no phrase of the table covers are removed before decoding (NLTK's decoder has no distortion
        limit, so every word left in costs a stack and an expansion per hypothesis); a word covered only inside
        longer phrases keeps a drop entry, so the decoder can always cover the whole sentence."""
        from nltk.translate.api import PhraseTableEntry

        kept = self._coverable(source)
        if not kept:
            return []
        unknown = {(word,) for word in kept if (word,) not in self.phrases}
        for word in unknown:  # dropped, as Moses's -drop-unknown does; removed again below
            self.phrases.src_phrases[word] = [PhraseTableEntry(trg_phrase=(), log_prob=UNKNOWN_LOG_PROB)]
        try:
            return list(self.decoder.translate(kept))
        finally:
            for word in unknown:
                del self.phrases.src_phrases[word]
            self.scorer.forget()

    def _coverable(self, source: Sequence[str]) -> list[str]:
        """The words of ``source`` inside at least one of its phrases that the table holds, in order."""
        covered = [False] * len(source)
        for start in range(len(source)):
            for end in range(start + 1, min(start + self.max_phrase_length, len(source)) + 1):
                if tuple(source[start:end]) in self.phrases:
                    covered[start:end] = [True] * (end - start)
        return [word for word, keep in zip(source, covered) if keep]
