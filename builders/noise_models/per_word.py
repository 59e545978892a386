"""The loop every per-word noise model shares: each word, with probability ``rate``, gets an edit.

A model supplies ``word_edit(word, rng) -> (start, end, replacement) | None`` (offsets inside the
word; ``None`` when the word cannot take this noise). The loop draws one number per word before
anything else, so a word's fate never depends on what earlier words were, and the common case
(no noise for this word) costs one random number. Words touching a protected span are left alone.

What a word is depends on the model's version. Version-1 models call the loop without ``lang``: a
word is a run of word characters and combining marks (:func:`noisecraft.core.text_units.word_pattern`;
``doesn't`` is ``doesn`` and ``t``), and their outputs stay exactly as published. Version-2 models
pass their ``lang``: a word keeps contractions, hyphenated compounds and abbreviations whole and Thai,
Chinese and Japanese are segmented (:func:`noisecraft.core.text_units.word_spans`); with
``unit="whitespace"`` the unit is the whitespace-separated token instead (NoiseQA's unit, with the
same segmentation of the languages written without spaces).

Cost. Keyboard noise on a short question is dominated by this loop and the example's generator, so the
loop does per word only what every word needs: the words come from one C call (``str.split`` or a
pattern's ``findall``), a text's word offsets are worked out only when a word of it is drawn, and records
are made with ``tuple.__new__`` (a named tuple's own constructor is a Python function).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import accumulate, count
from operator import add
from typing import Literal

from noisecraft.core.edits import Edit, Noised, Span
from noisecraft.core.seeding import ExampleRng
from noisecraft.core.text_units import (
    SEGMENTED_LANGUAGES,
    compound_word_pattern,
    non_space_pattern,
    whitespace_token_spans,
    word_pattern,
    word_spans,
)

WordEdit = Callable[[str, ExampleRng], "tuple[int, int, str] | None"]
Unit = Literal["word", "whitespace"]
#: A text's words, and their offsets when the segmentation gives them anyway (else ``None``: see :data:`Locate`).
Split = Callable[[str], "tuple[list[str], list[int] | None]"]
#: The offsets of a text's words (the list :data:`Split` gave), for a text one of whose words was drawn.
Locate = Callable[[str, list[str]], list[int]]

#: The defaulted fields of a :class:`Noised` (failure, columns), for building one with ``tuple.__new__``.
_NOISED_DEFAULTS = Noised("", ())[2:]


def noise_each_word(texts: Sequence[str], rngs: Sequence[ExampleRng], protected: Sequence[Sequence[Span]] | None,
                    rate: float, word_edit: WordEdit, kind: str, lang: str | None = None,
                    unit: Unit = "word") -> list[Noised]:
    """Apply ``word_edit`` to each word of each text with probability ``rate``; edits logged as ``kind``.

    Without ``lang`` (version-1 models) words are runs of word characters and marks, as they always were.
    With ``lang``, words are those of :func:`~noisecraft.core.text_units.word_spans` (``unit="word"``) or
    :func:`~noisecraft.core.text_units.whitespace_token_spans` (``unit="whitespace"``) in that language.
    """
    split, locate = _segmentation(lang, unit)
    new = tuple.__new__
    results: list[Noised] = []
    for index, text in enumerate(texts):
        words, starts = split(text)
        rng = rngs[index]
        random = rng.random if words else None  # a text without words never seeds its generator
        spans = protected[index] if protected else ()
        edits: list[Edit] = []
        pieces: list[str] = []
        cursor = 0
        for k, word in enumerate(words):
            if random() >= rate:
                continue
            if spans:
                if starts is None:
                    starts = locate(text, words)
                start = starts[k]
                if any(start < e and s < start + len(word) for s, e in spans):
                    continue
            found = word_edit(word, rng)
            if found is None:
                continue
            if starts is None:
                starts = locate(text, words)
            start = starts[k]
            i, j, replacement = found
            edits.append(new(Edit, (start + i, start + j, word[i:j], replacement, kind)))
            pieces += (text[cursor : start + i], replacement)
            cursor = start + j
        if edits:
            pieces.append(text[cursor:])
            results.append(new(Noised, ("".join(pieces), tuple(edits), *_NOISED_DEFAULTS)))
        else:
            results.append(new(Noised, (text, (), *_NOISED_DEFAULTS)))
    return results


def _segmentation(lang: str | None, unit: Unit) -> tuple[Split, Locate]:
    """How texts are cut into words for ``lang`` and ``unit`` (see :func:`noise_each_word`): the same words as
    the :mod:`noisecraft.core.text_units` function named there, from the same pattern."""
    if lang is None and unit != "word":
        raise ValueError("unit='whitespace' needs the language (lang=...) to segment Thai, Chinese and Japanese")
    if lang in SEGMENTED_LANGUAGES:
        spans_of = word_spans if unit == "word" else whitespace_token_spans

        def split_spans(text: str) -> tuple[list[str], list[int] | None]:
            spans = spans_of(text, lang)
            return [text[a:b] for a, b in spans], [a for a, _ in spans]

        return split_spans, lambda text, words: [a for a, _ in spans_of(text, lang)]
    if unit == "whitespace":
        return _split_whitespace, _whitespace_starts
    pattern = word_pattern() if lang is None else compound_word_pattern()
    findall, finditer = pattern.findall, pattern.finditer
    return (lambda text: (findall(text), None)), (lambda text, words: [m.start() for m in finditer(text)])


def _split_whitespace(text: str) -> tuple[list[str], None]:
    """Whitespace tokens: ``str.split``'s tokens are the ``\\S+`` pattern's (both split on ``str.isspace``)."""
    return text.split(), None


def _whitespace_starts(text: str, tokens: list[str]) -> list[int]:
    """Where each whitespace token of ``text`` starts (``tokens`` is ``text.split()``)."""
    if " ".join(tokens) == text:  # single-spaced: offsets add up
        return list(map(add, accumulate(map(len, tokens), initial=0), count()))
    return [m.start() for m in non_space_pattern().finditer(text)]
