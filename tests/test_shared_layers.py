"""The newest shared layers on numbers written by hand: each test fails under the mutant named in its comment.

End-to-end tests through tiny random models cannot show an off-by-one (their outputs are whatever the weights
give), so each rule below is checked on inputs small enough to compute by hand: the QA span search, the word
labels and entity groups of token classification, a chain's forwarding and determinism, a ``-1`` label (GLUE and
XNLI test splits) and the one significance rule of the report's rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import datasets
import numpy as np
import pytest

import noisecraft as nc
from noisecraft.building.noising import NoiseJob, perturb_rows
from noisecraft.core.edits import Edit, Noised
from noisecraft.core.labels import LabelLayout
from noisecraft.errors import ConfigError
from noisecraft.harness.challenge_set import paired_examples
from noisecraft.harness.evaluation import _by_language
from noisecraft.harness.paired_stats import compare, mean_of, significant
from noisecraft.harness.scoring import ScoredConfig, StatsSettings, word_tags
from noisecraft.noise_models.base import Capabilities, NoiseInput, NoiseModel, model_input, run_steps
from noisecraft.noise_models.record import PairText
from noisecraft.runtime.labels import tag_mapping
from noisecraft.runtime.postprocess import best_of_windows, best_span, entity_spans, first_subtoken_labels

# --- extractive QA: the best span of a window, the best window ---------------------------------------------

#: Token 0 is outside the context (the question); tokens 1-4 are the four words of CONTEXT.
CONTEXT = "ab cd ef gh"
OFFSETS = [None, (0, 2), (3, 5), (6, 8), (9, 11)]
START = np.array([9.0, 5.0, 0.0, 0.0, 0.0])  # the best start (token 0) is outside the context
END = np.array([0.0, 0.0, 0.0, 4.0, 0.0])


def test_an_answer_of_exactly_max_answer_length_tokens_is_allowed():
    # tokens 1..3 ("ab cd ef"): 3 tokens, start 5 + end 4 = 9; mutant: length < max_answer_length
    assert best_span(START, END, OFFSETS, CONTEXT, n_best=5, max_answer_length=3) == {"text": "ab cd ef", "score": 9.0}


def test_a_longer_answer_is_refused_and_equal_scores_go_to_the_first_candidate():
    # with 2 tokens at most, 1..3 is out; (1, 1) and (1, 2) both score 5 + 0 and (1, 1) comes first in end rank
    # (end logits 0 tie: stable order 0, 1, 2, 4; token 0 is outside the context). Mutants: a length without
    # the + 1 (1..3 would count 2 tokens), the last of equal scores
    assert best_span(START, END, OFFSETS, CONTEXT, n_best=5, max_answer_length=2) == {"text": "ab", "score": 5.0}
    # the best start (token 3, 6) is after the best end (token 2, 5): start 3 with its own token, 6 + 0, wins
    # over 2..2 (0 + 5); mutant: a length of 0 allowed (3..2 would score 11 and give "")
    after = np.array([0.0, 0.0, 0.0, 6.0, 0.0]), np.array([0.0, 0.0, 5.0, 0.0, 0.0])
    assert best_span(*after, OFFSETS, CONTEXT, n_best=5, max_answer_length=30) == {"text": "ef", "score": 6.0}
    # no valid pair among the candidates: n_best = 1 keeps start 0 only, which is outside the context
    assert best_span(START, END, OFFSETS, CONTEXT, n_best=1, max_answer_length=30) is None


def test_between_equal_scoring_windows_the_first_wins():
    windows = [None, {"text": "first", "score": 1.5}, {"text": "second", "score": 1.5}, {"text": "low", "score": 0.5}]
    assert best_of_windows(windows) == {"text": "first", "score": 1.5}  # mutant: >= (the last of equal scores)
    assert best_of_windows([None, {"text": "a", "score": -2.0}, {"text": "b", "score": -1.0}])["text"] == "b"
    assert best_of_windows([None, None]) == {"text": "", "score": None}


# --- token classification: a word's label, entity groups -----------------------------------------------------


def test_a_words_label_is_read_at_its_first_sub_token():
    # [CLS] w0 w0 w1 w2 w2 w2 [SEP], word 3 cut off by the length limit
    word_ids = [None, 0, 0, 1, 2, 2, 2, None]
    label_ids = [9, 1, 2, 3, 4, 5, 6, 9]
    # mutant: the last sub-token ([2, 3, 6, -1]), or special tokens read as words
    assert first_subtoken_labels(label_ids, word_ids, 4) == [1, 3, 4, -1]


def test_a_b_tag_always_starts_a_new_entity_and_special_tokens_are_skipped():
    text = "Ann Lee Bob Rome Oslo x IBM"
    labels = ["O", "B-PER", "I-PER", "B-PER", "I-LOC", "I-LOC", "O", "B-ORG", "I-ORG"]
    offsets = [(0, 0), (0, 3), (4, 7), (8, 11), (12, 16), (17, 21), (22, 23), (24, 27), (0, 0)]
    special = [True, False, False, False, False, False, False, False, True]  # [CLS] ... [SEP]
    spans = entity_spans(labels, offsets, special)
    # mutants: B- joins a group of its type (Ann Lee Bob as one PER), a special token joins the last group
    # (IBM would end at 0), O groups kept
    assert spans == [(0, 7, "PER"), (8, 11, "PER"), (12, 21, "LOC"), (24, 27, "ORG")]
    assert [text[s:e] for s, e, _ in spans] == ["Ann Lee", "Bob", "Rome Oslo", "IBM"]


def test_a_word_the_model_did_not_reach_is_o():
    mapping = tag_mapping("m", {0: "O", 1: "B-PER", 2: "I-PER"}, ["O", "B-PER", "I-PER"])
    # mutant: -1 read as an index (the last model label, I-PER)
    assert word_tags([[1, 2, -1], [0]], mapping) == [["B-PER", "I-PER", "O"], ["O"]]


# --- chains: what a later step receives, when rows may be deduplicated --------------------------------------

#: Every record given to a Suffix model's ``apply``, in call order.
APPLIED: list[NoiseInput] = []


@dataclass(frozen=True)
class Suffix(NoiseModel):
    """Appends ``?`` and records the record it was given; its output depends on the text only."""

    name: ClassVar[str] = "suffix"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = ""
    capabilities: ClassVar[Capabilities] = Capabilities(deterministic=True)

    def describe(self) -> str:
        return "Appends a question mark (a test model)."

    def apply(self, batch: NoiseInput) -> list[Noised]:
        APPLIED.append(batch)
        return [Noised(text + "?", (Edit(len(text), len(text), "", "?", "suffix"),)) for text in batch.texts]


@dataclass(frozen=True)
class DrawnSuffix(Suffix):
    """The same, declared not deterministic (as a model that draws from its stream is)."""

    name: ClassVar[str] = "drawn-suffix"
    capabilities: ClassVar[Capabilities] = Capabilities(deterministic=False)


def test_a_later_step_reads_the_pair_with_the_previous_steps_output():
    APPLIED.clear()
    pairs = [PairText("p1", "h1", 1), PairText("p2", "h2", 0)]
    chain = nc.chain(Suffix(), Suffix())
    out = run_steps(chain, model_input(chain, ["h1", "p2"], 0, ["a", "b"], "text", pairs=pairs), 0, "text")
    first, second = APPLIED
    assert first.pairs == tuple(pairs)
    # mutant: the pair left with the original text after the first step changed it (or the other side replaced)
    assert second.pairs == (PairText("p1", "h1?", 1), PairText("p2?", "h2", 0)) and second.texts == ("h1?", "p2?")
    # one edit log against the original text
    assert [(n.text, n.edits) for n in out] == [(t + "??", (Edit(2, 2, "", "??", "suffix"),)) for t in ("h1", "p2")]


def test_a_chain_is_deterministic_only_if_every_step_is():
    assert nc.chain(Suffix(), Suffix()).capabilities.deterministic
    # mutant: any() instead of all()
    assert not nc.chain(Suffix(), DrawnSuffix()).capabilities.deterministic
    assert not nc.chain(DrawnSuffix(), Suffix()).capabilities.deterministic


@pytest.mark.parametrize(("steps", "rows_seen"), [((Suffix, Suffix), 1), ((Suffix, DrawnSuffix), 2),
                                                   ((DrawnSuffix, Suffix), 2)])
def test_identical_rows_are_computed_once_only_by_a_deterministic_chain(steps, rows_seen):
    rows = [{"id": "a", "sentence": "same text", "label": 1}, {"id": "b", "sentence": "same text", "label": 1}]
    job = NoiseJob(nc.chain(*(step() for step in steps)), 0, ("sentence",), LabelLayout(class_label="label"))
    APPLIED.clear()
    kept, _ = perturb_rows(job, rows)
    assert [len(batch) for batch in APPLIED] == [rows_seen, rows_seen]  # mutant: a chain of any() deduplicated
    assert [r["sentence"] for r in kept] == ["same text??", "same text??"]


# --- a label of -1 (GLUE and XNLI test splits) is never gold -------------------------------------------------


def test_a_negative_label_reaches_a_model_as_no_label():
    batch = NoiseInput(["a", "b", "c", "d"], [None] * 4, labels=[1, -1, 0, None])
    assert [batch.label(i) for i in range(4)] == [1, None, 0, None]  # mutant: -1 passed on as a class


def _sst2_split(labels: Sequence[int]) -> datasets.Dataset:
    """A built SST-2 config of ``len(labels)`` rows with these labels (-1: none)."""
    n = len(labels)
    features = datasets.Features({"id": datasets.Value("string"), "sentence": datasets.Value("string"),
                                  "original_sentence": datasets.Value("string"),
                                  "noise_edits": datasets.Sequence(datasets.Value("string")),
                                  "label": datasets.ClassLabel(names=["negative", "positive"])})
    return datasets.Dataset.from_dict({"id": [str(i) for i in range(n)], "sentence": ["a b?"] * n,
                                       "original_sentence": ["a b"] * n, "noise_edits": [["?"]] * n,
                                       "label": list(labels)}, features=features)


def test_the_harness_refuses_rows_without_a_label():
    spec = {"source": "glue/sst2", "fields": ["sentence"], "lang": "en"}
    assert paired_examples("c", "validation", spec, _sst2_split([1, 0])).gold == [1, 0]
    # mutant: -1 taken as gold (label < -1, or no check): a model would be scored against a class that is not there
    with pytest.raises(ConfigError, match=r"config c split 'test': 1 row\(s\) have no label \(first id '1'\)"):
        paired_examples("c", "test", spec, _sst2_split([1, -1, 0]))


# --- significance: one rule, for the per-config and the pooled rows -----------------------------------------


def test_a_difference_is_significant_when_its_interval_excludes_zero():
    assert significant(0.1, 0.3) and significant(-0.3, -0.1)
    # mutants: >= / <= (an interval touching 0 counted), nan counted
    assert not significant(-0.1, 0.1) and not significant(0.0, 0.2) and not significant(-0.2, 0.0)
    assert not significant(math.nan, math.nan)


@pytest.mark.parametrize(("noisy", "expected"), [(0.0, True), (1.0, False)])
def test_per_config_and_pooled_rows_use_the_one_rule(noisy, expected):
    # every resample of all-right vs all-right (or all-wrong) rows gives the same difference: the interval is
    # [0, 0] (touches 0: not significant) or [1, 1]
    clean_parts, noisy_parts = np.ones(6), np.full(6, noisy)
    per_config = compare(mean_of(clean_parts), mean_of(noisy_parts), 6, resamples=20, confidence=0.95, seed=0,
                         alpha=0.05)
    assert per_config["ci"] == [1.0 - noisy] * 2 and per_config["significant"] is expected
    data = paired_examples("c", "validation", {"source": "glue/sst2", "fields": ["sentence"], "lang": "en"},
                           _sst2_split([1] * 6))
    scored: list[tuple[str, Any, ScoredConfig]] = [("m", data, ScoredConfig({}, {}, clean_parts, noisy_parts))]
    [pooled] = _by_language(scored, StatsSettings(resamples=20))
    assert pooled["ci"] == [1.0 - noisy] * 2 and pooled["significant"] is expected
