"""The faster perceptron training (grammar/perceptron_training.py) gives NLTK's tagger, weight for weight."""

from __future__ import annotations

import json
import random
from importlib.metadata import version

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.tag.perceptron import PerceptronTagger

from noisecraft.grammar.nltk_data import tagged_sentences
from noisecraft.grammar.perceptron_training import CHECKED_NLTK, train_tagger

from conftest import corpus
from tiny_models import POS_SAMPLE


def trained(train, sentences: list[list[tuple[str, str]]], iterations: int) -> tuple[str, dict, list[str], object]:
    """What the tagger files hold (weights as written, tag dictionary, classes) and the generator's state after."""
    random.seed(0)
    tagger = PerceptronTagger(load=False)
    train(tagger, [list(sentence) for sentence in sentences], iterations)
    weights, tagdict, classes = tagger.encode_json_obj()
    return json.dumps(weights, sort_keys=True), tagdict, sorted(classes), random.getstate()


def nltk_train(tagger: PerceptronTagger, sentences: list, iterations: int) -> None:
    tagger.train(sentences, nr_iter=iterations)


def test_the_installed_nltk_is_one_whose_training_was_compared() -> None:
    assert version("nltk") in CHECKED_NLTK  # else the fast path is off and these tests compare NLTK with itself


def test_the_repository_sample_gives_nltks_weights() -> None:
    sentences = tagged_sentences(POS_SAMPLE)
    assert trained(train_tagger, sentences, 8) == trained(nltk_train, sentences, 8)


def test_conll2003_gives_nltks_weights() -> None:
    """Real text: frequent words go through the tag dictionary, the rest are scored and updated."""
    sentences = tagged_sentences(corpus("conll2003/original_iob1_crlf/eng.testa"))[:700]
    fast = trained(train_tagger, sentences, 2)
    assert fast == trained(nltk_train, sentences, 2)
    assert len(json.loads(fast[0])) > 5_000 and fast[1]


WORDS = st.sampled_from(["a", "the", "run", "runs", "Run", "2024", "12", "x-y", "-z", "", "dog", "dogs", "is", "."])
TAGS = st.sampled_from(["DT", "NN", "NNS", "VB", "VBZ", "CD", "JJ", "."])
SENTENCES = st.lists(st.lists(st.tuples(WORDS, TAGS), min_size=1, max_size=8), min_size=1, max_size=30)


@settings(max_examples=80, deadline=None)
@given(SENTENCES, st.integers(1, 4))
def test_generated_corpora_give_nltks_weights(sentences: list, iterations: int) -> None:
    """Few labels and words that carry several tags: tied scores, wrong guesses and weights that average to 0."""
    assert trained(train_tagger, sentences, iterations) == trained(nltk_train, sentences, iterations)


def test_another_nltk_release_trains_with_nltk(monkeypatch: pytest.MonkeyPatch) -> None:
    import noisecraft.grammar.perceptron_training as module

    calls = []
    monkeypatch.setattr(module, "version", lambda name: "99.0")
    monkeypatch.setattr(PerceptronTagger, "train", lambda self, s, nr_iter: calls.append(nr_iter))
    train_tagger(PerceptronTagger(load=False), [[("a", "DT")]], 3)
    assert calls == [3]
