"""NLTK's averaged-perceptron tagger trained to the same weights, about 3x faster.

``PerceptronTagger.train`` scores every word of every iteration in a Python loop over each feature's labels; on
CoNLL-2003's training file (204 k words, 5 iterations) that is about a minute, the longest step of
``noisecraft setup nltk-data``. :func:`train_tagger` runs the same training with each feature's weights as a
numpy vector over the labels, so a word's scores are one vector sum. The result is the same, weight for weight:

* the features are NLTK's own (``tagger._get_features``, ``tagger.normalize``, ``tagger._make_tagdict``), visited
  in NLTK's order, with the sentences shuffled by the global ``random`` after each iteration as NLTK does;
* while training, every weight is a whole number (it only moves by 1.0), so a score is exact in any summation
  order; NLTK picks the highest score and, among ties, the highest label: the last of the tied in sorted labels;
* an update and the final averaging repeat NLTK's arithmetic on the same Python floats, and only the labels NLTK
  would have stored for a feature are kept (an averaged weight of 0 is dropped, a feature left with no label stays
  as an empty entry).

Used only with the NLTK releases whose training code this follows (:data:`CHECKED_NLTK`: the training functions
of each were compared); with any other release NLTK trains. tests/test_perceptron_training.py compares the weights
with NLTK's on generated corpora and on CoNLL-2003.
"""

from __future__ import annotations

import random
from importlib.metadata import version
from typing import Any

import numpy as np

#: NLTK releases whose perceptron training (``train``, ``_get_features``, ``normalize``, ``_make_tagdict`` and the
#: model's ``predict``, ``update``, ``average_weights``) is the one :func:`train_tagger` follows: the same code in all.
CHECKED_NLTK = frozenset({"3.9", "3.9.1", "3.9.2", "3.9.3", "3.9.4", "3.10.0", "3.10.1", "3.10.2", "3.10.3", "3.10.4"})


def train_tagger(tagger: Any, sentences: list[list[tuple[str, str]]], iterations: int) -> None:
    """``tagger.train(sentences, nr_iter=iterations)`` for a fresh ``PerceptronTagger(load=False)``: the same
    tag dictionary, classes and averaged weights (the global ``random`` is used as NLTK uses it)."""
    if version("nltk") not in CHECKED_NLTK:
        tagger.train(sentences, nr_iter=iterations)
        return
    tagger._sentences = []  # NLTK's own tag dictionary, which also fills this list
    tagger._make_tagdict(sentences)
    tagger.model.classes = tagger.classes
    labels = sorted(tagger.classes)
    index = {label: k for k, label in enumerate(labels)}
    size = len(labels)
    weights: dict[str, np.ndarray] = {}  # feature -> its weight for each label (the order of ``labels``)
    totals: dict[str, dict[int, float]] = {}  # NLTK's _totals and _tstamps, per feature and label index
    stamps: dict[str, dict[int, int]] = {}
    no_scores = np.zeros(size)
    seen = 0  # NLTK's model.i: the words scored so far
    for _ in range(iterations):
        for sentence in tagger._sentences:
            words, tags = zip(*sentence)
            prev, prev2 = tagger.START
            context = tagger.START + [tagger.normalize(word) for word in words] + tagger.END
            for position, word in enumerate(words):
                guess = tagger.tagdict.get(word)
                if not guess:
                    features = tagger._get_features(position, word, context, prev, prev2)
                    rows = [weights[feature] for feature in features if feature in weights]
                    scores = np.add.reduce(rows) if rows else no_scores
                    best = size - 1 - int(scores[::-1].argmax())  # the last of the highest
                    guess = labels[best]
                    seen += 1
                    if tags[position] != guess:
                        _update(weights, totals, stamps, features, index[tags[position]], best, seen, size)
                prev2, prev = prev, guess
        random.shuffle(tagger._sentences)
    tagger._sentences = None
    tagger.model.weights = _averaged(weights, totals, stamps, labels, seen)


def _update(weights: dict[str, np.ndarray], totals: dict[str, dict[int, float]], stamps: dict[str, dict[int, int]],
            features: dict[str, int], truth: int, guess: int, seen: int, size: int) -> None:
    """NLTK's ``AveragedPerceptron.update`` after a wrong guess: +1 to the truth, -1 to the guess, every feature."""
    for feature in features:
        row = weights.get(feature)
        if row is None:
            row = weights[feature] = np.zeros(size)
            totals[feature], stamps[feature] = {}, {}
        total, stamp = totals[feature], stamps[feature]
        for label, change in ((truth, 1.0), (guess, -1.0)):
            weight = float(row[label])
            total[label] = total.get(label, 0) + (seen - stamp.get(label, 0)) * weight
            stamp[label] = seen
            row[label] = weight + change


def _averaged(weights: dict[str, np.ndarray], totals: dict[str, dict[int, float]], stamps: dict[str, dict[int, int]],
              labels: list[str], seen: int) -> dict[str, dict[str, float]]:
    """NLTK's ``average_weights``: over the labels each feature was updated for, rounded to 3 places, zeros dropped."""
    averaged = {}
    for feature, row in weights.items():
        kept = {}
        for label, total in totals[feature].items():
            value = round((total + (seen - stamps[feature][label]) * float(row[label])) / seen, 3)
            if value:
                kept[labels[label]] = value
        averaged[feature] = kept
    return averaged
