"""Wiki markup to sentences and tokens, per language.

Markup is stripped with mwparserfromhell. Sentences end at ``. ! ?`` and the full stops of other
scripts (``। ॥ ؟ 。 ！ ？``); for the languages that Moses has non-breaking prefixes for (``Dr.``,
``z.B.``...) those do not end a sentence. Tokens come from the Moses tokenizer (sacremoses) for
languages written with spaces. Chinese, Japanese and Thai, written without spaces between words, are
tokenised by :func:`noisecraft.core.text_units.word_tokens`: the segmenter the version-2 noise models use
(pythainlp newmm, jieba, SudachiPy mode B), so the words a dictionary is mined on are the words
``wikiedit@2`` looks up. Without the ``segment`` extra that function falls back to single characters
(pairs are then character edits); :meth:`LanguageText.segmenter_name` says which, for the card.
"""

from __future__ import annotations

import re
from functools import cache

from noisecraft.core import text_units
from noisecraft.errors import ConfigError
from noisecraft.extras import require

#: Written without spaces between words: tokenised by the version-2 models' segmenter (:mod:`noisecraft.core.text_units`).
SEGMENTED_LANGUAGES = frozenset(text_units.SEGMENTED_LANGUAGES)
#: Written with spaces; Moses tokenisation applies (language-specific rules where Moses has them).
SPACE_LANGUAGES = frozenset({
    "af", "ar", "as", "bg", "bn", "ca", "cs", "cy", "da", "de", "el", "en", "es", "et", "eu", "fa", "fi", "fr",
    "ga", "gl", "gu", "he", "hi", "hr", "hu", "id", "is", "it", "kn", "ko", "lt", "lv", "ml", "mr", "ms", "nl",
    "no", "or", "pa", "pl", "pt", "ro", "ru", "sk", "sl", "sr", "sv", "sw", "ta", "te", "tl", "tr", "uk", "ur", "vi",
})
SUPPORTED_LANGUAGES = SEGMENTED_LANGUAGES | SPACE_LANGUAGES

#: Where a sentence ends: stops of the spaced scripts (then closing quotes and the space that must follow), or of
#: Chinese and Japanese (then closing quotes). Written to start with one class of every stop, so that ``re`` skips
#: to the next stop in C (an alternation at the start makes it try the pattern at every character: 4x slower); each
#: branch then checks which script's stop it started on, so it matches what
#: ``[.!?।॥؟]+["'”’»)\]]*\s+|[。！？]+[”’」』）]*`` matches, at the same places (tested).
_SENTENCE_END = re.compile(r"[.!?।॥؟。！？](?:(?<=[.!?।॥؟])[.!?।॥؟]*[\"'”’»)\]]*\s+|(?<=[。！？])[。！？]*[”’」』）]*)")
#: A word before a full stop and closing quotes, matched against a candidate sentence's last word.
_WORD_BEFORE_STOP = re.compile(r"(\S+)\.[\"'”’»)\]]*")
_REFERENCES = re.compile(r"<ref[^>/]*/>|<ref[^>]*>.*?</ref\s*>", re.IGNORECASE | re.DOTALL)


def strip_markup(wikitext: str) -> str:
    """Plain text of wikitext: references dropped, then mwparserfromhell's ``strip_code(normalize=True,
    collapse=True)`` (templates, comments and tag syntax removed, links as their text, entities as characters)."""
    # references are citations, not prose: drop them before mwparserfromhell keeps their text
    text = _REFERENCES.sub("", wikitext)
    return require("mwparserfromhell", "mining").parse(text).strip_code(normalize=True, collapse=True)


@cache
def _nonbreaking_prefixes(lang: str) -> frozenset[str]:
    """Moses' non-breaking prefixes of ``lang`` (``Dr``, ``z.B``; a numeric-only one, ``No #NUMERIC_ONLY#``, as its
    word), from sacremoses' public reader of its lists; none for a language without a list (the reader would give
    English's)."""
    prefixes = require("sacremoses.corpus", "mining").NonbreakingPrefixes()
    if lang not in prefixes.available_langs:
        return frozenset()
    return frozenset(word.split("#")[0].strip() for word in prefixes.words(lang))


class LanguageText:
    """Sentence splitting and tokenisation for one language."""

    def __init__(self, lang: str) -> None:
        if lang not in SUPPORTED_LANGUAGES:
            raise ConfigError(
                f"language {lang!r} is not supported for mining; supported: {', '.join(sorted(SUPPORTED_LANGUAGES))}"
            )
        self.lang = lang
        self.segmented = lang in SEGMENTED_LANGUAGES
        self._prefixes = _nonbreaking_prefixes(lang)
        self._moses = None

    def sentences(self, text: str) -> list[str]:
        """Sentences of plain text, line by line (a paragraph never continues a sentence)."""
        out: list[str] = []
        for line in text.splitlines():
            start = 0
            for match in _SENTENCE_END.finditer(line):
                candidate = line[start : match.end()].strip()
                # the candidate ends with the match's stops and closing quotes, and a stop is never a closing
                # quote: without a full stop in the match, no "word." can end the candidate. Whatever ends the
                # candidate with "word." and quotes holds no space, so it lies in the last whitespace-free word,
                # and matches from that word's start whenever it matches at all: the same word as
                # ``re.search(r"(\S+)\.["'”’»)\]]*$", candidate)`` finds, without trying every position.
                last = _WORD_BEFORE_STOP.fullmatch(candidate.rsplit(None, 1)[-1]) if "." in match.group() else None
                if last and (last.group(1) in self._prefixes or len(last.group(1)) == 1):
                    continue  # "Dr." or an initial: the sentence goes on
                if candidate:
                    out.append(candidate)
                start = match.end()
            if line[start:].strip():
                out.append(line[start:].strip())
        return out

    def segmenter_name(self) -> str | None:
        """The segmenter (name and version) that splits zh, ja and th into words, or per character when it is not
        installed; ``None`` for languages Moses tokenises."""
        return text_units.segmenter(self.lang).name if self.segmented else None

    def tokens(self, sentence: str) -> list[str]:
        """Word and punctuation tokens: Moses tokens, or for zh, ja and th the words of the version-2 models'
        segmenter with each other non-space character as its own token (:func:`~noisecraft.core.text_units.word_tokens`)."""
        if self.segmented:
            return text_units.word_tokens(sentence, self.lang)
        if self._moses is None:
            self._moses = require("sacremoses", "mining").MosesTokenizer(lang=self.lang)
        return self._moses.tokenize(sentence, escape=False)

