"""Words in every script: compounds kept whole, Thai/Chinese/Japanese segmented, offsets into the original text."""

import subprocess
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisecraft.core import text_units
from noisecraft.core.text_units import (
    SEGMENTED_LANGUAGES,
    compound_word_pattern,
    join_tokens,
    segmentation_note,
    segmenter,
    token_spans,
    whitespace_token_spans,
    word_spans,
    word_tokens,
)
from noisecraft.noise_models.registry import create

THAI = "รัฐบาลได้รับรายงานฉบับแรกเมื่อใด"
CHINESE = "北京大学的学生在2010年有多少人？"
JAPANESE = "東京都庁の職員は国会議事堂へ行きました。"


def _words(text: str, lang: str) -> list[str]:
    return [text[a:b] for a, b in word_spans(text, lang)]


@pytest.fixture
def without_segmenters(monkeypatch: pytest.MonkeyPatch):
    """As if pythainlp, jieba and SudachiPy were not installed."""
    for lang in SEGMENTED_LANGUAGES:
        monkeypatch.setitem(text_units.SEGMENTER_LOADERS, lang, lambda: None)
    segmenter.cache_clear()
    text_units._run_lengths.cache_clear()
    yield
    segmenter.cache_clear()
    text_units._run_lengths.cache_clear()


# --- contractions, compounds, abbreviations ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "words"), [
    ("It doesn't matter.", ["It", "doesn't", "matter"]),
    ("a long-term plan", ["a", "long-term", "plan"]),
    ("the U.S. and e.g. this", ["the", "U.S.", "and", "e.g.", "this"]),
    ("3.5 times 1,000 people", ["3.5", "times", "1,000", "people"]),
    ("rock'n'roll l'homme O’Neill", ["rock'n'roll", "l'homme", "O’Neill"]),
    ("'Hello' students' -x- 2010.", ["Hello", "students", "x", "2010"]),
    ("हिन्दी और ไทย", ["हिन्दी", "और", "ไทย"]),
])
def test_compound_words_stay_whole(text, words):
    assert [m.group() for m in compound_word_pattern().finditer(text)] == words
    assert _words(text, "en") == words


def test_word_order_tokens_keep_contractions_and_punctuation_apart():
    assert word_tokens("Why doesn't the U.S. use long-term plans?", "en") == [
        "Why", "doesn't", "the", "U.S.", "use", "long-term", "plans", "?"]
    assert text_units.tokenize("doesn't") == ["doesn", "'", "t"]  # version 1 is unchanged


def test_whitespace_tokens_are_noiseqa_units():
    text = "the best-known (a) year,  really"
    assert [text[a:b] for a, b in whitespace_token_spans(text, "en")] == ["the", "best-known", "(a)", "year,", "really"]


# --- segmenters ----------------------------------------------------------------------------------------------------

def test_thai_words_come_from_pythainlp_newmm():
    pytest.importorskip("pythainlp")
    assert _words(THAI, "th") == ["รัฐบาล", "ได้รับ", "รายงาน", "ฉบับ", "แรก", "เมื่อใด"]
    assert "pythainlp" in segmentation_note("th") and "newmm" in segmentation_note("th")
    mixed = "ในปี 2010 (NFL) รัฐบาลได้รับ"
    assert _words(mixed, "th") == ["ใน", "ปี", "2010", "NFL", "รัฐบาล", "ได้รับ"]
    assert [mixed[a:b] for a, b in whitespace_token_spans(mixed, "th")] == ["ใน", "ปี", "2010", "(NFL)", "รัฐบาล", "ได้รับ"]


def test_chinese_words_come_from_jieba():
    pytest.importorskip("jieba")
    assert _words(CHINESE, "zh") == ["北京大学", "的", "学生", "在", "2010", "年", "有", "多少", "人"]
    assert word_tokens(CHINESE, "zh")[-1] == "？" and "jieba" in segmentation_note("zh")


def test_japanese_words_come_from_sudachi():
    pytest.importorskip("sudachipy")
    pytest.importorskip("sudachidict_core")
    assert _words(JAPANESE, "ja") == ["東京", "都庁", "の", "職員", "は", "国会", "議事堂", "へ", "行き", "まし", "た"]
    assert "SudachiPy" in segmentation_note("ja")


def test_a_segmenter_works_with_no_network():
    """pythainlp's newmm dictionary and jieba's dictionary ship in their packages: no download at first use."""
    pytest.importorskip("pythainlp")
    pytest.importorskip("jieba")
    code = ("import socket\n"
            "def no(*a, **k): raise OSError('network disabled')\n"
            "socket.socket.connect = no; socket.create_connection = no\n"
            "from noisecraft.core.text_units import word_spans\n"
            f"print(len(word_spans({THAI!r}, 'th')), len(word_spans({CHINESE!r}, 'zh')))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.split() == ["6", "9"], result.stderr


def test_segmenters_are_imported_only_when_a_language_needs_one():
    code = ("import sys, noisecraft, noisecraft.core.text_units as t, noisecraft.noise_models.registry as r\n"
            "r.create('keyboard@2').augment(['some words'])\n"
            "print(sorted(m for m in ('pythainlp', 'jieba', 'sudachipy') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "[]", result.stderr


def test_without_a_segmenter_words_are_characters_and_the_card_says_so(without_segmenters):
    assert _words("ที่นี่", "th") == ["ที่", "นี่"]  # each character keeps its marks
    assert _words("北京大学", "zh") == ["北", "京", "大", "学"]
    note = segmentation_note("th")
    assert "per character" in note and "not installed" in note and "noisecraft[segment]" in note
    for name in ("keyboard@2", "swap@2", "sort@2", "shuffle@2", "reverse@2", "copysort@2"):
        assert "not installed" in create(name, lang="th").describe(), name
    assert "not installed" not in create("swap@2", lang="en").describe()


def test_a_segmenter_that_changes_the_text_falls_back_to_characters(monkeypatch):
    fake = text_units.Segmenter("th", "fake", lambda run: [run.upper() + "x"])
    monkeypatch.setitem(text_units.SEGMENTER_LOADERS, "th", lambda: fake)
    segmenter.cache_clear()
    text_units._run_lengths.cache_clear()
    try:
        assert _words("ที่นี่", "th") == ["ที่", "นี่"]
    finally:
        segmenter.cache_clear()
        text_units._run_lengths.cache_clear()


def test_rejoining_puts_spaces_only_between_latin_or_numeric_tokens():
    assert join_tokens(["北京", "NFL", "2010", "年", "？"], "zh") == "北京NFL 2010年？"
    assert join_tokens(["a", "b"], "en") == "a b"


# --- offsets cover the text exactly --------------------------------------------------------------------------------

SCRIPTS = st.sampled_from(list("abc xyz-'.,?！，。 ") + list(THAI) + list(CHINESE) + list(JAPANESE) + ["\u0301", "é", "1"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=40), st.text(SCRIPTS, max_size=40)), st.sampled_from(["en", "th", "zh", "ja"]))
def test_segmentation_offsets_cover_the_text_exactly(text, lang):
    for spans in (token_spans(text, lang), whitespace_token_spans(text, lang), word_spans(text, lang)):
        cursor = 0
        for start, end in spans:
            assert cursor <= start < end <= len(text)
            assert not any(ch.isspace() for ch in text[start:end])
            cursor = end
    tokens = token_spans(text, lang)
    rebuilt, cursor = [], 0
    for start, end in tokens:  # what lies between tokens is whitespace only: tokens + gaps give the text back
        assert not text[cursor:start].strip()
        rebuilt.append(text[cursor:end])
        cursor = end
    assert not text[cursor:].strip() and "".join(rebuilt) + text[cursor:] == text
    chunks = whitespace_token_spans(text, lang)
    assert "".join(text[a:b] for a, b in chunks) == "".join(text.split())  # every non-space character, once
    in_words = {i for start, end in word_spans(text, lang) for i in range(start, end)}
    letters = {i for i, ch in enumerate(text) if ch.isalnum() or unicodedata.category(ch)[0] == "M"}
    assert letters <= in_words  # every letter, digit and mark belongs to a word


@settings(max_examples=100, deadline=None)
@given(st.text(SCRIPTS, max_size=40), st.sampled_from(["th", "zh", "ja"]))
def test_segmentation_offsets_cover_the_text_exactly_per_character_too(text, lang):
    segmenter.cache_clear()
    text_units._run_lengths.cache_clear()
    original = dict(text_units.SEGMENTER_LOADERS)
    text_units.SEGMENTER_LOADERS[lang] = lambda: None
    try:
        tokens = token_spans(text, lang)
        assert "".join(text[a:b] for a, b in tokens) == "".join(text.split())
    finally:
        text_units.SEGMENTER_LOADERS.update(original)
        segmenter.cache_clear()
        text_units._run_lengths.cache_clear()
