"""Exact match and F1 of extractive answers, as the official SQuAD v1.1 script computes them.

``squad`` normalisation is the official script's, byte for byte: lower-case, drop ASCII punctuation
(``string.punctuation``), drop the English articles *a/an/the*, collapse whitespace; F1 is over
whitespace tokens. XQuAD's authors (and XTREME) score every XQuAD language with this script, so it is
the default for all languages: numbers stay comparable with the papers.

``mlqa`` is the language-aware choice of the MLQA evaluation script (Lewis et al., 2020): Unicode
punctuation (every ``P*`` character, plus ``string.punctuation``) is dropped, each language's own
articles are removed (MLQA's lists for en, es, de, vi, ar; none for the others), and text in scripts
written without spaces is split per character for F1 (MLQA's "mixed segmentation" for Chinese;
noisecraft applies it to Japanese kana/kanji and Thai as well, where whitespace tokens would make F1
all-or-nothing). Pick it for zh/th, where ``squad`` F1 degenerates to exact match.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Sequence

NORMALISATIONS = ("squad", "mlqa")

_SQUAD_PUNCTUATION = set(string.punctuation)
_SQUAD_ARTICLES = re.compile(r"\b(a|an|the)\b")
_MLQA_ARTICLES = {
    "en": re.compile(r"\b(a|an|the)\b"),
    "es": re.compile(r"\b(un|una|unos|unas|el|la|los|las)\b"),
    "vi": re.compile(r"\b(của|là|cái|chiếc|những)\b"),
    "de": re.compile(r"\b(ein|eine|einen|einem|eines|einer|der|die|das|den|dem|des)\b"),
    "ar": re.compile(r"\sال^|ال"),
}
#: Characters scored one by one under ``mlqa``: CJK ideographs (MLQA's range), kana, Thai.
_PER_CHARACTER = re.compile(r"[\u4e00-\u9fa5\u3040-\u30ff\u0e00-\u0e7f]")


def _squad_normalise(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in _SQUAD_PUNCTUATION)
    return " ".join(_SQUAD_ARTICLES.sub(" ", text).split())


def _is_punctuation(ch: str) -> bool:
    return ch in _SQUAD_PUNCTUATION or unicodedata.category(ch).startswith("P")


def _mixed_segmentation(text: str) -> list[str]:
    """MLQA's segmentation: per-character pieces for characters of unsegmented scripts, whitespace tokens
    for the rest."""
    tokens: list[str] = []
    pending = ""
    for ch in text:
        if _PER_CHARACTER.match(ch) or _is_punctuation(ch):
            tokens.extend(pending.split())
            pending = ""
            tokens.append(ch)
        else:
            pending += ch
    tokens.extend(pending.split())
    return tokens


def _mlqa_tokens(text: str, lang: str) -> list[str]:
    text = "".join(ch for ch in text.lower() if not _is_punctuation(ch))
    articles = _MLQA_ARTICLES.get(lang)
    if articles is not None:
        text = articles.sub(" ", text)
    return [t for t in _mixed_segmentation(text) if t.strip()]


def answer_tokens(text: str, normalisation: str = "squad", lang: str = "en") -> list[str]:
    """The normalised tokens of an answer, which EM compares and F1 counts."""
    if normalisation == "squad":
        return _squad_normalise(text).split()
    if normalisation == "mlqa":
        return _mlqa_tokens(text, lang)
    raise ValueError(f"unknown answer normalisation {normalisation!r}; use one of {', '.join(NORMALISATIONS)}")


def exact_match(prediction: str, gold: Sequence[str], normalisation: str = "squad", lang: str = "en") -> float:
    """1.0 when the normalised prediction equals some normalised gold answer, else 0.0."""
    predicted = answer_tokens(prediction, normalisation, lang)
    return float(any(predicted == answer_tokens(g, normalisation, lang) for g in gold))


def _f1(predicted: list[str], gold: list[str]) -> float:
    common = sum((Counter(predicted) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision = common / len(predicted)
    recall = common / len(gold)
    return 2 * precision * recall / (precision + recall)


def f1(prediction: str, gold: Sequence[str], normalisation: str = "squad", lang: str = "en") -> float:
    """Token-overlap F1 against the best-matching gold answer (the official maximum over answers)."""
    predicted = answer_tokens(prediction, normalisation, lang)
    return max((_f1(predicted, answer_tokens(g, normalisation, lang)) for g in gold), default=0.0)
