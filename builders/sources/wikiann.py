"""WikiANN NER: tokens with IOB2 tags, from the Hub or Rahimi et al.'s ``lang:token<TAB>tag`` files."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from noisecraft.core.citations import WIKIANN_CITATION
from noisecraft.core.labels import entity_strings
from noisecraft.core.schema import FeatureSpec, class_label, list_of, value
from noisecraft.core.text_files import text_lines
from noisecraft.errors import InputError
from noisecraft.sources.base import SourceAdapter, SourceInfo

TAGS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC")

WIKIANN = SourceInfo(
    name="wikiann", hub_id="unimelb-nlp/wikiann", task_category="token-classification", license="unknown",
    citation=WIKIANN_CITATION, default_split="test", default_fields=("tokens",), token_tags=("tokens", "ner_tags"),
    entity_strings="spans", tag_names=TAGS,
    languages=("ar", "de", "el", "en", "es", "fr", "hi", "ja", "ru", "th", "tr", "vi", "zh"),
    pretty="WikiANN",
)


def wikiann_features() -> FeatureSpec:
    """The Hub features of WikiANN, plus the stable ``id``."""
    return {"tokens": list_of(value("string")), "ner_tags": list_of(class_label(TAGS)),
            "langs": list_of(value("string")), "spans": list_of(value("string")), "id": value("string")}


def entity_spans(tokens: list[str], tags: list[int]) -> list[str]:
    """``"PER: Ada Lovelace"`` strings of the entities, as the Hub copy lists them."""
    return entity_strings(tokens, tags, TAGS)


def tagged_sentences(path: Path, lang: str | None = None,
                     tags: Sequence[str] | None = None) -> Iterator[list[tuple[int, str, str]]]:
    """``(line number, token, tag)`` of each token of each sentence of a token-tag file, streamed by lines
    (:func:`text_lines`: only LF/CRLF end a line, so a U+2028 in a token is that token's error).

    The one reader of the two formats: WikiANN (Rahimi et al.'s ``lang:token<TAB>tag``) and, when no ``lang``
    is given, also CoNLL (``token ... tag``, whitespace-separated, tag last; ``-DOCSTART-`` lines end a
    sentence). A blank line ends a sentence. With ``lang`` every token must carry its ``lang:`` prefix;
    without it a WikiANN prefix (``en:``) is dropped. ``tags`` is the tag set, when it is fixed.
    """
    sentence: list[tuple[int, str, str]] = []
    prefix = f"{lang}:" if lang is not None else None
    for number, line in text_lines(path):
        if not line.strip() or (prefix is None and line.startswith("-DOCSTART-")):
            if sentence:
                yield sentence
            sentence = []
            continue
        token, sep, tag = line.rpartition("\t")
        if sep and prefix is not None:
            if not token.startswith(prefix):
                raise InputError(path, f"token {token!r} lacks the language prefix {prefix!r}", f"line {number}")
            token = token[len(prefix):]
        elif sep:
            token = token.split(":", 1)[1] if ":" in token[:4] else token
        elif prefix is not None:
            raise InputError(path, "expected 'lang:token<TAB>tag'", f"line {number}")
        else:
            parts = line.split()
            if len(parts) < 2:
                raise InputError(path, "expected 'token<TAB>tag' (WikiANN) or 'token ... tag' (CoNLL)", f"line {number}")
            token, tag = parts[0], parts[-1]
        tag = tag.strip()
        if tags is not None and tag not in tags:
            raise InputError(path, f"unknown tag {tag!r}; expected one of {', '.join(tags)}", f"line {number}")
        if not token or any(ch.isspace() for ch in token):
            raise InputError(path, f"empty token or token with whitespace: {token!r}", f"line {number}")
        sentence.append((number, token, tag))
    if sentence:
        yield sentence


def rahimi_rows(path: Path, lang: str) -> Iterator[dict[str, Any]]:
    """Rows of a ``lang:token<TAB>tag`` file (:func:`tagged_sentences`), with WikiANN's columns and ids, streamed
    in file order."""
    count = 0
    for sentence in tagged_sentences(path, lang, TAGS):
        tokens = [token for _, token, _ in sentence]
        tags = [TAGS.index(tag) for _, _, tag in sentence]
        yield {"tokens": tokens, "ner_tags": tags, "langs": [lang] * len(tokens),
               "spans": entity_spans(tokens, tags), "id": str(count)}
        count += 1
    if not count:
        raise InputError(path, "no sentences found")


def parse_rahimi(path: Path, lang: str) -> list[dict[str, Any]]:
    """Every row of a ``lang:token<TAB>tag`` file (:func:`rahimi_rows`), checked."""
    return list(rahimi_rows(path, lang))


class WikiannAdapter(SourceAdapter):
    """WikiANN in one language; ids are sentence positions in the split."""

    info = WIKIANN

    def feature_spec(self) -> FeatureSpec:
        return wikiann_features()

    def read_file(self, path: Path, lang: str, split: str) -> Iterator[dict[str, Any]]:
        # every split of the release is tagged, so there is nothing to relax for a test split
        return rahimi_rows(path, lang)

    def hub_config(self, lang: str) -> str | None:
        return lang
