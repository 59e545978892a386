"""Swap typos and word-order destruction: golden examples and invariants (versions 1 and 2)."""

import unicodedata
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from noisecraft.core.edits import apply_edits
from noisecraft.core.seeding import ExampleRng, example_rng
from noisecraft.core.text_units import tokenize, word_pattern, word_spans, word_tokens
from noisecraft.noise_models.base import NoiseInput
from noisecraft.noise_models.destructive import CopySort, ReverseWords, ShuffleWords, SortWords
from noisecraft.noise_models.registry import create
from noisecraft.noise_models.typos import SwapTypos

SENTENCE = "Which NFL team represented the AFC at Super Bowl 50?"


def _one(model, text, seed=7):
    return model.apply(NoiseInput([text], [example_rng(seed, model.noise_id, model.digest(), "golden", "question")]))[0]


def test_swap_golden():
    assert _one(SwapTypos(rate=0.5), SENTENCE).text == "Whcih NFL team rperesented the AFC at Suepr Bowl 50?"


def test_sort_reverse_golden():
    assert _one(SortWords(), SENTENCE).text == "50 ? AFC at Bowl NFL represented Super team the Which"
    assert _one(ReverseWords(), SENTENCE).text == "? 50 Bowl Super at AFC the represented team NFL Which"


def test_shuffle_golden_and_no_bigram_survives():
    noised = _one(ShuffleWords(), SENTENCE)
    assert noised.text == "team Which Super ? 50 at the NFL Bowl AFC represented"
    before = tokenize(SENTENCE)
    after = noised.text.split(" ")
    assert sorted(after) == sorted(before)
    assert not set(zip(before, before[1:])) & set(zip(after, after[1:]))


def test_shuffle_reports_when_it_cannot():
    for text in ("Hello", "a a a a"):
        noised = _one(ShuffleWords(), text)
        assert noised.failure and "bigram" in noised.failure and noised.text == text


def test_copysort_replaces_the_second_text_with_the_sorted_first():
    [noised] = CopySort().apply(NoiseInput([("The cat sat.", "A dog ran.")], [ExampleRng(0)]))
    assert noised.text == ". cat sat The"
    assert noised.edits[0].original == "A dog ran." and noised.edits[0].kind == "copysort"


def test_whole_field_models_log_one_replacement():
    for name in ("sort", "reverse", "shuffle"):
        noised = _one(create(name), SENTENCE)
        assert len(noised.edits) == 1 and noised.edits[0].start == 0 and noised.edits[0].end == len(SENTENCE)


@given(st.text(max_size=60), st.integers(min_value=0))
def test_swap_never_returns_the_same_word_and_keeps_ends(text, seed):
    [noised] = SwapTypos(rate=1.0).apply(NoiseInput([text], [ExampleRng(seed)]))
    assert apply_edits(text, noised.edits) == noised.text
    words = list(word_pattern().finditer(text))
    for edit in noised.edits:
        word = next(m for m in words if m.start() <= edit.start < m.end())
        assert word.start() < edit.start and edit.end < word.end()
        assert edit.replacement == edit.original[::-1] != edit.original


@given(st.text(max_size=60), st.integers(min_value=0))
def test_word_order_keeps_the_multiset_of_tokens(text, seed):
    for model in (SortWords(), ReverseWords(), ShuffleWords()):
        [noised] = model.apply(NoiseInput([text], [ExampleRng(seed)]))
        if noised.failure is None:
            assert sorted(tokenize(noised.text)) == sorted(tokenize(text))
            assert apply_edits(text, noised.edits) == noised.text


@pytest.mark.parametrize("name", ["keyboard@9", "nonsense"])
def test_unknown_noise_or_version_is_a_clear_error(name):
    from noisecraft.errors import ConfigError

    with pytest.raises(ConfigError, match="not available|unknown noise"):
        create(name)


# --- version 2: real words (contractions and compounds whole, Thai/Chinese/Japanese segmented) ----------------------

COMPOUNDS = "Why doesn't the U.S. use long-term plans, e.g. 3.5 times more?"


def test_v2_word_order_keeps_contractions_compounds_and_abbreviations_whole():
    assert _one(create("sort@2"), COMPOUNDS).text == ", 3.5 ? doesn't e.g. long-term more plans the times U.S. use Why"
    assert _one(create("reverse@2"), COMPOUNDS).text == "? more times 3.5 e.g. , plans long-term use U.S. the doesn't Why"
    shuffled = _one(create("shuffle@2"), COMPOUNDS).text.split(" ")
    assert {"doesn't", "U.S.", "long-term", "e.g.", "3.5"} <= set(shuffled)
    [noised] = create("copysort@2").apply(NoiseInput([("It's a long-term plan.", "No.")], [ExampleRng(0)]))
    assert noised.text == ". a It's long-term plan"


def test_v2_word_order_segments_languages_written_without_spaces():
    pytest.importorskip("jieba")
    pytest.importorskip("pythainlp")
    assert _one(create("sort@2", lang="zh"), "北京大学的学生在2010年有多少人？").text == "2010人北京大学在多少学生年有的？"
    assert _one(create("reverse@2", lang="th"), "รัฐบาลได้รับรายงาน ในปี 2010").text == "2010ปีในรายงานได้รับรัฐบาล"
    v1 = _one(create("sort@1"), "北京大学的学生在2010年有多少人？").text
    assert v1 == "北京大学的学生在2010年有多少人 ？"  # version 1: the whole clause is one "word"


def test_v2_swap_treats_a_compound_as_one_word_and_swaps_inside_thai_words():
    for seed in range(30):
        [noised] = create("swap@2", rate=1.0)(["long-term doesn't"], seed=seed)
        assert len(noised.edits) == 2 and noised.text[0] == "l" and noised.text.endswith("t")
    pytest.importorskip("pythainlp")
    [noised] = create("swap@2", lang="th", rate=1.0)(["รัฐบาลได้รับรายงาน"], seed=0)
    words = [(0, 6), (6, 12), (12, 18)]  # รัฐบาล ได้รับ รายงาน
    assert noised.edits and all(any(a < e.start and e.end < b for a, b in words) for e in noised.edits)


def test_v2_models_declare_lang_and_describe_their_tokens():
    for name in ("swap@2", "sort@2", "reverse@2", "shuffle@2", "copysort@2"):
        model = create(name, lang="de")
        assert model.lang == "de" and model.uses_lang() and "lang" in model.params()
        assert "doesn't" in model.describe()
        assert not create(name.replace("@2", "@1")).uses_lang()


@given(st.text(max_size=60), st.integers(min_value=0))
def test_v2_swap_stays_inside_words_and_keeps_ends(text, seed):
    [noised] = create("swap@2", rate=1.0)([text], seed=seed)
    assert apply_edits(text, noised.edits) == noised.text
    words = word_spans(text, "en")
    for edit in noised.edits:
        start, end = next((a, b) for a, b in words if a <= edit.start < b)
        assert start < edit.start and edit.end < end
        assert sorted(edit.replacement) == sorted(edit.original) and edit.replacement != edit.original
        assert unicodedata.category(edit.replacement[0])[0] != "M"  # a letter moves with its marks
    assert Counter(noised.text) == Counter(text)


def test_v2_swap_moves_a_letter_with_its_marks():
    nfd = unicodedata.normalize("NFD", "ganó canción")
    outputs = {unicodedata.normalize("NFC", create("swap@2", rate=1.0)([nfd], seed=s)[0].text) for s in range(30)}
    assert outputs and all(set(out) <= set("ganó canción") for out in outputs)  # never gaoń: the accent stays on o
    assert "gaoń" in unicodedata.normalize("NFC", " ".join(SwapTypos(rate=1.0).augment([nfd] * 30)))  # swap@1 moved it
    [hindi] = create("swap@2", rate=1.0)(["रिपोर्ट"], seed=0)
    assert hindi.text == "रिर्पोट"  # पो and र् trade places, each with its vowel sign / virama


@given(st.text(max_size=60), st.integers(min_value=0), st.sampled_from(["en", "zh", "th", "ja"]))
def test_v2_word_order_keeps_the_multiset_of_tokens(text, seed, lang):
    for name in ("sort@2", "reverse@2", "shuffle@2"):
        [noised] = create(name, lang=lang).apply(NoiseInput([text], [ExampleRng(seed)]))
        if noised.failure is not None:
            continue
        assert apply_edits(text, noised.edits) == noised.text
        assert sorted("".join(noised.text.split())) == sorted("".join(text.split()))
        if lang == "en":  # space-joined tokens are found again exactly
            assert sorted(word_tokens(noised.text, lang)) == sorted(word_tokens(text, lang))
