"""The fast path of the Moses tokenizer the wiki-edit miner uses (``_moses_class().tokenize(text, escape=False)``)
gives sacremoses' own tokens: on every sentence of the shared dumps, on text built from the pieces each of its
shortcuts rests on, and for every other combination of arguments; and the facts about characters its shortcuts
rely on hold for every code point."""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_mining_wikiedits import READABLE_DUMPS

from noisecraft.mining.mediawiki import Revision, read_dump
from noisecraft.mining.wiki_text import LanguageText, _char_ranges, _moses_class, strip_markup

from conftest import corpus

#: en and fr/it have their own apostrophe rules, the others share one; ko widens sacremoses' letter classes.
LANGUAGES = ("en", "fr", "it", "de", "hi", "fi", "ko")

#: What each shortcut of the fast path depends on: commas next to digits and to each other, apostrophes in every
#: context and at every distance, dots and the multi-dot markers, ASCII junk and every kind of whitespace
#: (\x1c-\x1f and \x85 are whitespace to ``\s`` and ``str.split``), non-breaking prefixes before digits, words and
#: the end, quotes, brackets, letters that are numbers (Ⅻ) and digits of other scripts.
PIECES = [
    "a", "b", "s", "S", "x", "the", "Smith", "cannot", "gonna", "1", "5", "12", "1,000", "3.5", ",", ",,", ", ",
    "'", "''", "'s", "'S", "n't", "N'T", "'ll", "'re", "'ve", "'tis", "l'", "d'", "qu'", "'x'", ".", "..", "...",
    ".'", "'.", "DOTMULTI", "MULTI", "DOTDOTMULTI", "DOT", " ", "  ", "\t", "\n", "\r\n", "\x00", "\x01", "\x0b",
    "\x1b", "\x1c", "\x1d", "\x1e", "\x1f", "\x7f", "\x85", "\xa0", "\u2028", "\u3000", "\"", "``", "`", "(", ")",
    "[", "]", "{", "<", ">", "-", "--", "@", "$", "%", "&", "|", "/", ";", ":", "?", "!", "Dr.", "No.", "No. 5",
    "Nr.", "z.B.", "U.S.", "e.g.", "Mr.", "M.", "Art.", "é", "É", "Ⅻ", "٣", "\u0301", "日本", "한국", "हिंदी", "।",
]
#: Pieces side by side, and every short arrangement of the marks themselves (where one mark is next to another).
TEXTS = st.one_of(st.lists(st.sampled_from(PIECES), max_size=16).map("".join),
                  st.text(alphabet=" ',.a1sDMULTI\t\x01\xa0", max_size=12))
#: Texts the shortcuts were written for, and the near misses next to them.
EXAMPLES = [
    "a,,b", "a,,1", "1,,,1", "a,,", "5,", "a,", ",a", "1,000, 2,", "x' 'y", "1' '1", "1'  '1", "'x'", "''",
    "rock'n'roll", "l'''eau", "\x01 ' \x01 ' \x01", "a \x01 'b", "Dr. No. 5 is here.", "No. 5.", "It is U.S. policy.",
    "He said 'no.'", "Wait...'", "a..b", "DOTDOTMULTI.", "  padded\t", "\x1ctab\x1fsep\x85", "\u2028a\xa0b\u3000",
    "l'eau d'été", "isn't it's o'clock 90's", "", " ", "\x00", "end.", "Ⅻ's", "٣'s",
]


@functools.cache
def _pair(lang: str):
    """Our tokenizer and sacremoses' own for one language."""
    from sacremoses import MosesTokenizer

    return _moses_class()(lang=lang), MosesTokenizer(lang=lang)


def _dump_sentences(lang: str) -> set[str]:
    """Every sentence of every revision of the shared dumps, split as the miner splits them (line by line, markup
    stripped)."""
    lines = {line for name in READABLE_DUMPS for item in read_dump(corpus(f"mediawiki/{name}"))
             if isinstance(item, Revision) and item.text for line in item.text.split("\n")}
    text = LanguageText(lang)
    return {sentence for line in lines for sentence in text.sentences(strip_markup(line))}


def test_every_sentence_of_the_shared_dumps_gets_sacremoses_tokens():
    for lang in LANGUAGES:
        ours, shipped = _pair(lang)
        sentences = _dump_sentences(lang)
        assert len(sentences) > 800
        for sentence in sorted(sentences):
            assert ours.tokenize(sentence, escape=False) == shipped.tokenize(sentence, escape=False), (lang, sentence)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_texts_the_shortcuts_were_written_for_get_sacremoses_tokens(lang):
    ours, shipped = _pair(lang)
    for text in EXAMPLES:
        assert ours.tokenize(text, escape=False) == shipped.tokenize(text, escape=False), text


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(LANGUAGES), TEXTS)
def test_text_from_adversarial_pieces_gets_sacremoses_tokens(lang, text):
    ours, shipped = _pair(lang)
    assert ours.tokenize(text, escape=False) == shipped.tokenize(text, escape=False)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(LANGUAGES), TEXTS, st.sampled_from([
    {}, {"escape": True}, {"escape": False, "return_str": True}, {"escape": False, "aggressive_dash_splits": True},
    {"escape": False, "protected_patterns": [r"\S+'\S+", r"\(\S*\)", r"\d+"]},
    {"return_str": True, "aggressive_dash_splits": True},
]))
def test_every_other_combination_of_arguments_gets_sacremoses_result(lang, text, arguments):
    ours, shipped = _pair(lang)
    assert ours.tokenize(text, **arguments) == shipped.tokenize(text, **arguments)
    # on any text, whitespace of every kind included, not only on the text tokenize hands it
    assert ours.handles_nonbreaking_prefixes(text) == shipped.handles_nonbreaking_prefixes(text)


def test_the_facts_about_characters_the_fast_path_rests_on_hold_for_every_code_point():
    from sacremoses import MosesTokenizer

    every = "".join(map(chr, range(0x110000)))
    # re's \s is what str.split() splits at
    assert re.findall(r"\s", every) == [char for char in every if char.isspace()]
    # in printable text the only whitespace is the space, and there is no ASCII junk (\x00-\x1f)
    printable = {char for char in every if char.isprintable()}
    assert printable & (set(re.findall(r"\s", every)) | set(map(chr, range(0x20)))) == {" "}
    # sacremoses' classes written as ranges match the same characters as sacremoses' own text of them
    letters, numbers = MosesTokenizer.IsAlpha, MosesTokenizer.IsN
    for ours, theirs in ((_char_ranges(letters), letters), (_char_ranges(numbers), numbers),
                         (_char_ranges(letters) + _char_ranges(numbers), letters + numbers)):
        assert re.findall(f"[{ours}]", every) == re.findall(f"[{theirs}]", every)
