"""Wiki markup to sentences and tokens, per language.

Markup is stripped with mwparserfromhell. Sentences end at ``. ! ?`` and the full stops of other
scripts (``। ॥ ؟ 。 ！ ？``); for the languages that Moses has non-breaking prefixes for (``Dr.``,
``z.B.``...) those do not end a sentence. Tokens come from the Moses tokenizer (sacremoses) for
languages written with spaces. Chinese, Japanese and Thai, written without spaces between words, are
tokenised by :func:`noisecraft.text_units.word_tokens`: the segmenter the version-2 noise models use
(pythainlp newmm, jieba, SudachiPy mode B), so the words a dictionary is mined on are the words
``wikiedit@2`` looks up. Without the ``segment`` extra that function falls back to single characters
(pairs are then character edits); :meth:`LanguageText.segmenter_name` says which, for the card.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.metadata import version

from noisecraft import text_units
from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.mining.wiki_markup import Unsupported, strip_tokens

#: Written without spaces between words: tokenised by the version-2 models' segmenter (:mod:`noisecraft.text_units`).
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
_ASCII_DIGITS = frozenset("0123456789")
#: sacremoses releases whose MosesTokenizer internals the faster subclass (:func:`_moses_class`) was compared with.
CHECKED_SACREMOSES = frozenset({"0.2.0"})
_REFERENCES = re.compile(r"<ref[^>/]*/>|<ref[^>]*>.*?</ref\s*>", re.IGNORECASE | re.DOTALL)


def strip_markup(wikitext: str) -> str:
    """Plain text of wikitext: templates, references, tags and link syntax removed.

    mwparserfromhell's ``strip_code(normalize=True, collapse=True)``, read off its token stream
    (:func:`~noisecraft.mining.wiki_markup.strip_tokens`, the same string without the node tree); the few
    streams that walk leaves alone go through the full parse.
    """
    # references are citations, not prose: drop them before mwparserfromhell keeps their text
    text = _REFERENCES.sub("", wikitext)
    try:
        return strip_tokens(text)
    except Unsupported:
        return require("mwparserfromhell", "mining").parse(text).strip_code(normalize=True, collapse=True)


@cache
def _nonbreaking_prefixes(lang: str) -> frozenset[str]:
    prefixes = require("sacremoses._data_nonbreaking_prefixes", "mining").NONBREAKING_PREFIXES
    text = prefixes.get(f"nonbreaking_prefix.{lang}", "")
    return frozenset(line.split("#")[0].strip() for line in text.splitlines() if line.split("#")[0].strip())


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
        segmenter with each other non-space character as its own token (:func:`~noisecraft.text_units.word_tokens`)."""
        if self.segmented:
            return text_units.word_tokens(sentence, self.lang)
        if self._moses is None:
            self._moses = _moses_class()(lang=self.lang)
        return self._moses.tokenize(sentence, escape=False)


#: Two apostrophes at most two characters apart (``'x'``, ``''``): there sacremoses' apostrophe patterns, which consume
#: the characters on both sides of an apostrophe, can skip one; such texts take sacremoses' own patterns.
_CLOSE_APOSTROPHES = re.compile(r"'[\s\S]?'")
#: A full stop followed by whitespace: a token before the last one that ends in a full stop.
_STOP_THEN_SPACE = re.compile(r"\.\s")


def _char_ranges(chars: str) -> str:
    """The inside of a regex class of exactly the characters of ``chars``, written as ranges.

    sacremoses builds its classes as ``"[" + chars + "]"``: thousands of characters; an apostrophe rule with two
    letter classes takes about 28 ms to compile, 4 ms with the classes as ranges. Ranges match the same characters
    as sacremoses' text as long as that text holds no character special in a class (``\\ ] [ ^ -``; its sets hold
    none, tested).
    """
    return text_units.class_ranges(sorted({ord(char) for char in chars}))


def _in_context(mark: str, before: str | None, after: str | None) -> re.Pattern[str]:
    r"""``mark`` preceded by a character of the class ``before`` and followed by one of ``after`` (``None``: anything
    or nothing), the context looked at but not matched.

    sacremoses writes these rules as ``([B])[,]([A])`` with ``r"\1 , \2"``: a pattern that starts with a class is tried
    at every position, and Python 3.11 expands such a template in Python for every match. This form starts with the
    literal mark, which the regex engine searches for directly, and the replacement is a literal string (no
    template). It gives the same string wherever no two marks are closer than the context the rule reads (the
    callers check: no ``,,`` for a rule of one side, no ``''`` or ``'x'`` for a rule of two): then no two matches of
    sacremoses' pattern share a character, so both forms match at the same marks, and replacing ``B,A`` by ``B , A``
    is replacing ``,`` by `` , ``.
    """
    behind = f"(?<={before}{re.escape(mark)})" if before else ""
    ahead = f"(?={after})" if after else ""
    return re.compile(re.escape(mark) + behind + ahead)


@cache
def _moses_class() -> type:
    """sacremoses' ``MosesTokenizer`` with an exact fast path for the miner's call and its membership tests answered
    from sets built once: the same tokens.

    For every token that ends in a full stop, sacremoses scans its non-breaking prefix lists and builds
    ``set(self.IsLower)`` / ``set(self.IsAlpha)`` (thousands of characters) anew; those lists and strings are only
    ever tested for membership once the tokenizer is built. ``tokenize(text, escape=False)`` runs the steps of
    sacremoses' ``tokenize`` in their order, each skipped where the text lacks a character it needs
    (:meth:`MosesTokenizer.plain_tokens`).

    The methods replaced here are sacremoses internals, so they are used only with the sacremoses releases whose
    code they were compared with (:data:`CHECKED_SACREMOSES`; tests/test_moses_fast_path.py and
    tests/test_mining_wikiedits.py compare the tokens); with any other release the tokenizer is sacremoses' own:
    slower, never different.
    """
    base = require("sacremoses", "mining").MosesTokenizer
    if version("sacremoses") not in CHECKED_SACREMOSES:  # internals not compared with ours: the tokenizer as shipped
        return base  # type: ignore[no-any-return]

    # sacremoses' comma and apostrophe rules in the form of :func:`_in_context`, from the classes its patterns were
    # built from: the pattern, then the replacement of the mark its template amounts to
    letters, numbers = _char_ranges(base.IsAlpha), _char_ranges(base.IsN)
    alpha, not_alpha, not_number = f"[{letters}]", f"[^{letters}]", f"[^{numbers}]"
    commas = [  # COMMA_SEPARATE_1 ([^N])[,] -> \1 , ; COMMA_SEPARATE_2 [,]([^N]) ->  , \1
        (_in_context(",", not_number, None), " , "), (_in_context(",", None, not_number), " , ")]
    english = [  # EN_SPECIFIC_1 to 5, ([B])[']([A]) -> \1 ' \2 (1 to 3), \1 '\2 (4 and 5)
        (_in_context("'", not_alpha, not_alpha), " ' "),
        (_in_context("'", f"[^{letters}{numbers}]", alpha), " ' "),
        (_in_context("'", alpha, not_alpha), " ' "),
        (_in_context("'", alpha, alpha), " '"),
        (_in_context("'", f"[{numbers}]", "[s]"), " '")]
    french_italian = english[:1] + [  # FR_IT_SPECIFIC_1 to 4: \1 ' \2 (1 to 3), \1' \2 (4)
        (_in_context("'", not_alpha, alpha), " ' "),
        english[2],
        (_in_context("'", alpha, alpha), "' ")]

    class MosesTokenizer(base):  # type: ignore[misc, valid-type]
        _COMMAS = commas
        _APOSTROPHES = {"en": english, "fr": french_italian, "it": french_italian}
        _SHIPPED_APOSTROPHES = {"en": base.ENGLISH_SPECIFIC_APOSTROPHE, "fr": base.FR_IT_SPECIFIC_APOSTROPHE,
                                "it": base.FR_IT_SPECIFIC_APOSTROPHE}

        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            self.NONBREAKING_PREFIXES = frozenset(self.NONBREAKING_PREFIXES)
            self.NUMERIC_ONLY_PREFIXES = frozenset(self.NUMERIC_ONLY_PREFIXES)
            self._lower, self._alpha = frozenset(self.IsLower), frozenset(self.IsAlpha)

        def islower(self, text: str) -> bool:
            return not set(text).difference(self._lower)

        def isanyalpha(self, text: str) -> bool:
            return not self._alpha.isdisjoint(text)

        def tokenize(self, text: object, aggressive_dash_splits: object = False, return_str: object = False,
                     escape: object = True, protected_patterns: object = None) -> list[str] | str:
            """sacremoses' ``tokenize``; without escaping, protected patterns, dash splits or a string result (the
            miner's call) by :meth:`plain_tokens`, the same tokens faster."""
            if aggressive_dash_splits or return_str or escape or protected_patterns:
                return super().tokenize(text, aggressive_dash_splits=aggressive_dash_splits, return_str=return_str,
                                        escape=escape, protected_patterns=protected_patterns)
            return self.plain_tokens(str(text))

        def plain_tokens(self, text: str) -> list[str]:
            """``tokenize(text, escape=False)`` of sacremoses, step by step in its order; why each step is exact:

            1. ``\\s+`` to one space, ASCII junk ``[\\000-\\037]`` removed, ``strip()``: as sacremoses does, unless the
               text is printable: then its only whitespace is the space and it holds no junk (\\x00-\\x1f are control
               characters, every other ``\\s`` character is a control character or a separator: not printable;
               tested over every code point), so the three steps are ``" ".join(text.split())``, or ``strip()``
               where no two spaces follow each other.
               From here on the only whitespace is the space, and no line feed is left for ``$`` to stop before.
            2. Special characters padded: ``pattern.sub(r" \\1 ", text)`` of a pattern of one group that matches one
               character is ``" ".join(pattern.split(text))``: split yields the pieces between matches and each
               match's group, in order, and the join puts the template's spaces around every group.
            3. Multi-dots to ``DOTMULTI``: the pattern needs "..".
            4. Commas: the three patterns need a comma, the third one at the end (``$``: no line feed is left). The
               first two in the form of :func:`_in_context` unless the text holds ``,,``; neither makes a ``,,``.
            5. Apostrophes, as sacremoses branches: the en or the fr and it patterns, in the form of
               :func:`_in_context` unless two apostrophes are at most two characters apart (the patterns only add
               spaces, so apostrophes never come closer); other languages ``"'"`` to ``" ' "`` (a literal
               replacement: ``str.replace``). Every pattern needs an apostrophe.
            6. Non-breaking prefixes (:meth:`nonbreaking_tokens`: the words of sacremoses' result). They are non-empty
               and hold no whitespace, so sacremoses' next steps, ``\\s+`` to a space and ``strip()``, change nothing
               in their join, and the final ``split()`` gives them back, unless one of the last two steps applies:
            7. a trailing ``.'`` split (``\\.' ?$``: the join has no trailing space and no line feed, so it can match
               only a last token ending in ``.'``) and the multi-dots restored (the marker holds "MULTI"; step 6 only
               puts a space before a token's last full stop, so it neither makes nor breaks "MULTI"): run as
               sacremoses runs them on the join, then ``split()``.
            """
            if text.isprintable():
                text = " ".join(text.split()) if "  " in text else text.strip()
            else:
                for pattern, replacement in (self.DEDUPLICATE_SPACE, self.ASCII_JUNK):
                    text = pattern.sub(replacement, text)
                text = text.strip()
            text = " ".join(self.PAD_NOT_ISALNUM[0].split(text))
            if ".." in text:
                text = self.replace_multidots(text)
            if "," in text:
                if ",," in text:
                    for pattern, template in (self.COMMA_SEPARATE_1, self.COMMA_SEPARATE_2):
                        text = pattern.sub(template, text)
                else:
                    for pattern, replacement in self._COMMAS:
                        text = pattern.sub(replacement, text)
                if text.endswith(","):
                    pattern, template = self.COMMA_SEPARATE_3
                    text = pattern.sub(template, text)
            if "'" in text:
                if self.lang not in self._APOSTROPHES:
                    text = text.replace("'", " ' ")
                elif _CLOSE_APOSTROPHES.search(text):
                    for pattern, template in self._SHIPPED_APOSTROPHES[self.lang]:
                        text = pattern.sub(template, text)
                else:
                    for pattern, replacement in self._APOSTROPHES[self.lang]:
                        text = pattern.sub(replacement, text)
            tokens = self.nonbreaking_tokens(text)
            if "MULTI" not in text and not (tokens and tokens[-1].endswith(".'")):
                return tokens
            pattern, replacement = self.TRAILING_DOT_APOSTROPHE
            return self.restore_multidots(pattern.sub(replacement, " ".join(tokens))).split()

        def handles_nonbreaking_prefixes(self, text: str) -> str:
            """sacremoses' method, by :meth:`nonbreaking_tokens`."""
            return " ".join(self.nonbreaking_tokens(text))

        def nonbreaking_tokens(self, text: str) -> list[str]:
            """The tokens of sacremoses' ``handles_nonbreaking_prefixes`` (the words of its result: a token it
            writes as ``prefix + " ."`` is two here), its two per-token ``re.search`` calls answered by string tests.

            The tokens come from ``str.split()``, so they are non-empty and hold no whitespace: ``^(\\S+)\\.$``
            matches exactly the tokens of two or more characters that end in a full stop (its group is the token
            without that stop), and ``^[0-9]+`` exactly the tokens whose first character is an ASCII digit. Without a
            full stop in the text no token changes, and without one followed by whitespace (``\\s`` is what
            ``str.split()`` splits at, tested) only the last token can end in one.
            """
            tokens = text.split()
            if "." not in text:
                return tokens
            last, split = len(tokens) - 1, []
            # a token before the last ends in a full stop only where one is followed by whitespace
            for i in range(last + 1) if _STOP_THEN_SPACE.search(text) else (last,):
                token = tokens[i]
                if token[-1] != "." or len(token) < 2:
                    continue
                prefix = token[:-1]
                if ("." in prefix and self.isanyalpha(prefix)) or (
                        prefix in self.NONBREAKING_PREFIXES and prefix not in self.NUMERIC_ONLY_PREFIXES) or (
                        i != last and tokens[i + 1][0] in self._lower):
                    continue
                if prefix in self.NUMERIC_ONLY_PREFIXES and i < last and tokens[i + 1][0] in _ASCII_DIGITS:
                    continue
                split.append(i)
            for i in reversed(split):  # from the end, so the indices before stay valid
                tokens[i : i + 1] = tokens[i][:-1], "."
            return tokens

    return MosesTokenizer
