"""Keyboard typos: golden examples per layout and mode, layout data, and invariants (keyboard@1 and keyboard@2)."""

import json
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisecraft.core.edits import Edit, Noised, apply_edits
from noisecraft.core.seeding import ExampleRng, example_rng, example_rngs
from noisecraft.core.text_units import whitespace_token_spans, word_pattern, word_spans
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import NoiseInput
from noisecraft.noise_models.keyboard import KeyboardTypos
from noisecraft.noise_models.keyboard_layouts import INPUT_METHODS, builtin_layouts, layout_for_language, load_layout
from noisecraft.noise_models.per_word import noise_each_word
from noisecraft.noise_models.registry import create

from conftest import corpus

GOLDEN = [
    ("en", "noiseqa", "When did Beyonce start becoming popular?", "Whem did Bryonce syart beconing popular?"),
    ("en", "coles", "Which NFL team represented the AFC at Super Bowl 50?",
     "Wyich NFL team represented the AFC at Super Bowl 50?"),
    ("de", "noiseqa", "Wie viele Einwohner hat die Stadt Köln heute?", "Wie viele Einwohnet hat diw Stadt Köln heute?"),
    ("ru", "noiseqa", "Когда был основан университет?", "Когда бвл основан университет?"),
    # ớ is o + horn + acute: the typo hits the o key and keeps both marks
    ("vi", "coles", "Thành phố nào được thành lập trước?", "Tyành phố nào được thành lập trư\u1e55\u031bc?"),
    ("hi", "noiseqa", "भारत की राजधानी क्या है?", "भापत री राजधानी क्या बै?"),
]


def _noise(model, texts, example_ids=None, field="question", seed=7):
    ids = example_ids or ["golden"] * len(texts)
    rngs = [example_rng(seed, model.noise_id, model.digest(), i, field) for i in ids]
    return model.apply(NoiseInput(texts, rngs))


@pytest.mark.parametrize(("lang", "mode", "text", "expected"), GOLDEN)
def test_golden(lang, mode, text, expected):
    model = create("keyboard@1", lang=lang, mode=mode, rate=0.5)
    [noised] = _noise(model, [text])
    assert noised.text == expected
    assert apply_edits(text, noised.edits) == expected


def test_qwerty_neighbours_come_from_coordinates():
    qwerty = load_layout("qwerty")
    assert set(qwerty.distance_neighbours()["s"]) == set("weadzx")
    assert set(qwerty.row_neighbours()["s"]) == {"a", "d"}
    assert set(qwerty.row_neighbours()["q"]) == {"w"}
    assert set(qwerty.distance_neighbours()["S"]) == set("WEADZX")


def test_every_builtin_layout_has_letters_and_a_language():
    layouts = builtin_layouts()
    assert {"qwerty", "qwertz-de", "azerty-fr", "spanish-es", "romanian-ro", "turkish-q", "russian-jcuken",
            "greek", "arabic", "inscript-hi", "kedmanee-th"} <= set(layouts)
    for layout in layouts.values():
        assert layout.languages, layout.name
        assert len(layout.row_neighbours()) >= 20, layout.name


LATIN_SCRIPT = {"de", "en", "es", "ro", "tr", "vi"}


@pytest.mark.parametrize("lang", ["ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi"])
def test_native_layout_covers_the_letters_of_xquad_questions(lang):
    """Letters of the language's script in real questions have neighbours (Latin words in
    non-Latin text are not the layout's business)."""
    data = json.loads(corpus(f"xquad/xquad.{lang}.json").read_text(encoding="utf-8"))
    table = layout_for_language(lang).distance_neighbours()
    questions = (q["question"] for a in data["data"] for p in a["paragraphs"] for q in p["qas"])
    letters = [ch for q in questions for ch in q
               if unicodedata.category(ch)[0] in "LM" and (lang in LATIN_SCRIPT or not ch.isascii())]
    covered = sum(1 for ch in letters if table[ch])
    assert covered / len(letters) > 0.96, f"{lang}: {covered}/{len(letters)}"


def test_case_is_preserved_in_coles_mode():
    model = KeyboardTypos(rate=1.0, layout="qwerty", mode="coles")
    [noised] = _noise(model, ["WORLDWIDE MOUNTAINS"])
    assert noised.edits
    for edit in noised.edits:
        assert edit.replacement.isupper() and edit.replacement.isalpha()


def test_noiseqa_mode_changes_only_lower_case_letters_to_row_neighbours():
    model = KeyboardTypos(rate=1.0, layout="qwerty", mode="noiseqa")
    table = load_layout("qwerty").row_neighbours()
    texts = ["Which NFL team represented the AFC at Super Bowl 50?"] * 50
    for noised in _noise(model, texts, [str(i) for i in range(50)]):
        for edit in noised.edits:
            assert edit.original.islower() and edit.replacement in table[edit.original]


def test_rate_zero_changes_nothing_and_rate_one_changes_every_eligible_word():
    text = "the quick brown fox jumps over lazy dogs"
    assert _noise(KeyboardTypos(rate=0.0), [text])[0].edits == ()
    assert len(_noise(KeyboardTypos(rate=1.0), [text])[0].edits) == len(text.split())


def test_coles_keeps_first_and_last_and_skips_short_words():
    model = KeyboardTypos(rate=1.0, mode="coles")
    text = "cat dogs horses elephants"
    [noised] = _noise(model, [text])
    words = [m for m in word_pattern().finditer(text)]
    assert len(noised.edits) == 2  # only the words longer than 4 characters
    for edit in noised.edits:
        word = next(m for m in words if m.start() <= edit.start < m.end())
        assert word.start() < edit.start < word.end() - 1


def test_protected_spans_are_untouched():
    model = KeyboardTypos(rate=1.0)
    text = "Notre Dame was founded in eighteen fortytwo"
    spans = [(0, 10)]
    [noised] = model.apply(NoiseInput([text], [ExampleRng(1)], protected=[spans]))
    assert noised.edits and all(edit.start >= 10 for edit in noised.edits)


def test_unknown_layout_and_unsupported_language_are_clear_errors():
    with pytest.raises(ConfigError, match="unknown keyboard layout 'dvorak'.*qwerty"):
        create("keyboard", layout="dvorak")
    with pytest.raises(ConfigError, match="zh is not supported yet"):
        create("keyboard", lang="zh")
    with pytest.raises(ConfigError, match="no keyboard layout for language 'xx'"):
        create("keyboard", lang="xx")
    with pytest.raises(ConfigError, match="rate"):
        create("keyboard", rate=1.5)


def test_a_layout_file_adds_a_layout_without_code(tmp_path: Path):
    path = tmp_path / "abc.toml"
    path.write_text('name = "abc"\nlanguages = ["xx"]\n[[rows]]\noffset = 0.0\nbase = ["a", "b", "c"]\n'
                    'shift = ["A", "B", "C"]\n', encoding="utf-8")
    model = KeyboardTypos(rate=1.0, layout=str(path))
    [noised] = _noise(model, ["abc cab"])
    assert noised.text != "abc cab" and set(noised.text) <= set("abc ")


def test_a_malformed_layout_file_names_the_file_and_row(tmp_path: Path):
    path = tmp_path / "bad.toml"
    path.write_text('[[rows]]\noffset = 0.0\nbase = ["a", "b"]\nshift = ["A"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.toml: row 1: 'base' and 'shift'"):
        load_layout(str(path))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.integers(min_value=0), st.sampled_from(["noiseqa", "coles"]),
       st.sampled_from(["qwerty", "russian-jcuken", "inscript-hi", "kedmanee-th", "greek"]))
def test_typos_are_single_neighbour_substitutions(text, seed, mode, layout):
    model = KeyboardTypos(rate=0.5, layout=layout, mode=mode)
    table = model.runtime().table
    [noised] = model.apply(NoiseInput([text], [ExampleRng(seed)]))
    assert apply_edits(text, noised.edits) == noised.text
    for edit in noised.edits:
        assert edit.end - edit.start == 1
        assert edit.replacement in table[edit.original]
        assert edit.replacement != edit.original


# --- keyboard@2: NoiseQA's units, only what the layout types ------------------------------------------------------

def _v2(lang="en", mode="noiseqa", rate=1.0, **params):
    return create("keyboard@2", lang=lang, mode=mode, rate=rate, **params)


def _edits_over_seeds(model, text, seeds=60):
    return [edit for seed in range(seeds) for edit in model([text], seed=seed)[0].edits]


def test_v2_is_registered_beside_v1_and_records_its_language():
    assert create("keyboard@1").version == 1 and _v2().version == 2
    model = _v2(lang="de", rate=0.25)
    assert model.params() == {"rate": 0.25, "layout": "qwertz-de", "mode": "noiseqa", "lang": "de"}
    assert model.uses_lang() and _v2(lang="de", layout="qwerty").digest() != _v2(lang="en", layout="qwerty").digest()


def test_v2_noiseqa_never_changes_one_letter_tokens_and_gives_a_compound_one_typo():
    model = _v2()
    for seed in range(40):
        [noised] = model(["A a I x of the best-known year, a."], seed=seed)
        assert noised.text.startswith("A a I x ") and noised.text.endswith(", a.")
        in_compound = [e for e in noised.edits if 15 <= e.start < 25]  # best-known
        assert len(in_compound) == 1  # one whitespace token: one typo at rate 1
    assert _v2(mode="noiseqa")(["doesn't"], seed=3)[0].edits[0].original in "doesnt"


def test_v2_spanish_dead_key_keeps_the_accent_only_where_it_composes():
    edits = _edits_over_seeds(_v2("es"), "camión acción dió")
    from_o = {e.replacement for e in edits if e.original == "ó"}
    assert from_o == {"í"}  # o's row neighbours are i and p: ´ + p is not typed, so never ṕ
    coles = _edits_over_seeds(_v2("es", "coles"), "camión estación corazón")
    assert all(len(unicodedata.normalize("NFC", e.replacement)) == 1 for e in coles)
    assert {e.replacement for e in coles if e.original == "ó"} <= {"í"}


def test_v2_german_umlauts_are_keys_and_letters_off_the_layout_are_left_alone():
    edits = _edits_over_seeds(_v2("de"), "ähnlich möglich Tschüss")
    assert {e.replacement for e in edits if e.original == "ä"} == {"ö"}
    assert not any(unicodedata.combining(ch) for e in edits for ch in unicodedata.normalize("NFD", e.replacement)
                   if e.original in "aou")
    assert not [e for e in _edits_over_seeds(_v2("en"), "café naïve résumé") if e.original in "éï"]  # US: no dead keys


def test_v2_vietnamese_telex_keeps_diacritics_only_on_vietnamese_letters():
    vietnamese = INPUT_METHODS["telex"][0]
    edits = _edits_over_seeds(_v2("vi"), "Thủ tục bịt được")
    for edit in edits:
        nfc = unicodedata.normalize("NFC", edit.replacement)
        assert len(nfc) == 1 and (nfc.isascii() or nfc in vietnamese), edit
    assert {e.replacement for e in edits if e.original == "ụ"} == {"ị", "ỵ"}  # u's row neighbours: y, i
    assert not [e for e in edits if e.original in "ưđ"]  # no neighbour makes a Vietnamese letter: left alone


def test_v2_decomposed_text_stays_decomposed_and_never_gets_a_stray_mark():
    text = unicodedata.normalize("NFD", "canción según camión")
    for edit in _edits_over_seeds(_v2("es", "coles"), text):
        assert edit.replacement == unicodedata.normalize("NFD", edit.replacement)
        assert len(unicodedata.normalize("NFC", edit.replacement)) == 1


def test_v2_mark_keys_replace_only_marks_and_nukta_letters_keep_their_nukta():
    for lang, text in (("hi", "रिपोर्ट ज़मीन क़ानून"), ("th", "เมื่อใดที่รัฐบาลได้รับ"), ("ar", "مَتَى حَصَلَتْ")):
        model = _v2(lang, "coles")
        for edit in _edits_over_seeds(model, text):
            assert unicodedata.category(edit.replacement[0])[0] == "M" or not unicodedata.combining(edit.replacement[0])
            assert (unicodedata.category(edit.replacement[0])[0] == "M") == (unicodedata.category(edit.original[0])[0] == "M")
    for qa in ("\u0958", "\u0915\u093c"):  # क़ precomposed (as some XQuAD-hi questions have it) and decomposed
        outputs = [n.text for seed in range(40) for n in _v2("hi")([f"{qa}ानून"], seed=seed) if n.edits[0].start == 0]
        assert outputs and all(unicodedata.normalize("NFD", out)[1] == "\u093c" for out in outputs)  # nukta kept
    assert _v2("hi", "noiseqa").runtime().table.candidates("\u0929") == ("\u092e\u093c", "\u0935\u093c")  # ऩ = न + ़


def test_v2_chinese_and_japanese_need_a_layout_and_then_only_latin_words_change():
    with pytest.raises(ConfigError, match="zh is not supported"):
        _v2("zh")
    [noised] = _v2("zh", layout="qwerty")(["北京大学的学生 lived in Beijing"], seed=0)
    assert noised.text.startswith("北京大学的学生 ") and noised.edits


def test_v2_describe_says_how_the_layout_types():
    assert "dead key ´ (acute)" in _v2("es").describe() and "never ṕ" in _v2("es").describe()
    assert "Telex" in _v2("vi").describe() and "one token" in _v2().describe()
    assert "only ever replaces a combining mark" in _v2("hi").describe()


def _combining(text: str) -> Counter:
    return Counter(ch for ch in unicodedata.normalize("NFC", text) if unicodedata.combining(ch)
                   or unicodedata.category(ch)[0] == "M")


ACCENTED = "aeiouyAEIOUYnsclzg" + "áéíóúýàèìòùâêîôûäëïöüÿñçšžăâîșțşğıİ" + "άέήίόύώϊΐσςαο" + "ịụọỵếớđư" + "\u0301\u0308\u0323 "
# no lone surrogates: the model rightly refuses them (InputError), which is not what these tests are about
TEXTS = st.text(alphabet=st.sampled_from(list(ACCENTED)) | st.characters(exclude_categories=("Cs",)), max_size=60)
MARK_FREE = ["qwerty", "qwertz-de", "azerty-fr", "spanish-es", "romanian-ro", "turkish-q", "russian-jcuken", "greek"]


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.integers(min_value=0, max_value=2**32), st.sampled_from(["noiseqa", "coles"]),
       st.sampled_from(sorted(builtin_layouts())), st.sampled_from(["en", "vi", "th"]))
def test_v2_typos_replay_and_never_add_a_combining_mark(text, seed, mode, layout, lang):
    model = _v2(lang, mode, rate=0.7, layout=layout)
    [noised] = model([text], seed=seed)
    assert apply_edits(text, noised.edits) == noised.text
    key_marks = model.runtime().table.key_marks
    for edit in noised.edits:
        assert edit.replacement != edit.original
        assert edit.replacement in model.runtime().table.candidates(edit.original)
        is_mark = unicodedata.category(edit.replacement[0])[0] == "M"
        assert is_mark == (unicodedata.category(edit.original[0])[0] == "M")
        new_marks = _combining(edit.replacement) - _combining(edit.original)
        assert all(mark in key_marks for mark in new_marks), edit  # only a mark that a key types
    if layout in MARK_FREE:
        assert not _combining(noised.text) - _combining(text)  # NFC(output) has no new combining character


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "I", "x", "é", "a,", "(a)", "ok", "the", "best-known", "don't", "ụ", "5a"]),
                min_size=1, max_size=12), st.integers(min_value=0, max_value=2**32), st.sampled_from(["en", "vi", "es"]))
def test_v2_noiseqa_one_letter_tokens_never_change(tokens, seed, lang):
    text = " ".join(tokens)
    [noised] = _v2(lang, rate=1.0)([text], seed=seed)
    after = noised.text.split(" ")
    assert len(after) == len(tokens)
    for before, now in zip(tokens, after):
        if sum(ch.isalpha() for ch in before) < 2:
            assert now == before
        assert sum(a != b for a, b in zip(before, now)) <= 1


def test_v2_native_layout_types_most_letters_of_xquad_questions():
    """Share of letters that keyboard@2 (CoLeS neighbours) can change in real questions. Dead-key letters whose
    neighbours do not compose (Spanish é á, Greek ά έ ώ) and most Vietnamese letters with diacritics (and đ) are
    left alone by design; everything else of each language's script is typed."""
    floors = {"ar": 0.97, "de": 0.99, "el": 0.94, "en": 0.99, "es": 0.96, "hi": 0.99, "ro": 0.99, "ru": 0.99, "th": 0.99,
              "tr": 0.99, "vi": 0.7}
    for lang, floor in floors.items():
        data = json.loads(corpus(f"xquad/xquad.{lang}.json").read_text(encoding="utf-8"))
        table = _v2(lang, "coles").runtime().table
        questions = [q["question"] for a in data["data"] for p in a["paragraphs"] for q in p["qas"]]
        units = [w[i:j] for q in questions for w in q.split() for i, j in table.units(w)
                 if unicodedata.category(w[i])[0] in "LM" and (lang in LATIN_SCRIPT or not w[i].isascii())]
        covered = sum(1 for u in units if table.candidates(u))
        assert covered / len(units) > floor, f"{lang}: {covered}/{len(units)}"


@pytest.mark.slow
def test_v2_noiseqa_matches_the_published_noiseqa_statistics():
    """NoiseQA's synthetic keyboard set: CER 4.11 %, WER 23.93 % on the 1190 XQuAD-en questions."""
    from noisecraft.core.stats import FieldScores

    data = json.loads(corpus("xquad/xquad.en.json").read_text(encoding="utf-8"))
    qas = [q for a in data["data"] for p in a["paragraphs"] for q in p["qas"]]
    texts = [q["question"] for q in qas]
    scores = FieldScores()
    for text, noised in zip(texts, _v2(rate=0.25)(texts, seed=0, ids=[q["id"] for q in qas], field="question")):
        scores.add(text, noised.text)
    figures = scores.exact_scores()
    assert abs(figures["cer"] - 4.11) < 0.3 and abs(figures["wer"] - 23.93) < 1.5, figures


SPACES = st.sampled_from([" ", "  ", "\t", "\u00a0", " \n", "\u3000"])


def _reference_loop(texts, rngs, protected, rate, word_edit, spans_of):
    """The per-word loop written plainly, as an oracle: ``spans_of(text)`` gives the words' spans."""
    results = []
    for text, rng, spans in zip(texts, rngs, protected, strict=True):
        edits = []
        for start, end in spans_of(text):
            if rng.random() >= rate or any(start < e and s < end for s, e in spans):
                continue
            found = word_edit(text[start:end], rng)
            if found is not None:
                i, j, replacement = found
                edits.append(Edit(start + i, start + j, text[start + i:start + j], replacement, "keyboard"))
        results.append(Noised(apply_edits(text, edits), tuple(edits)))
    return results


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXTS, SPACES), min_size=0, max_size=8), st.integers(min_value=0, max_value=2**32),
       st.sampled_from([0.25, 0.9]), st.sampled_from(["en", "vi", "th", None]), st.sampled_from(["word", "whitespace"]),
       st.booleans())
def test_the_per_word_loop_visits_the_words_of_text_units(pieces, seed, rate, lang, unit, protect):
    # noise_each_word finds words with str.split or a pattern's findall and works their offsets out only for a text
    # that needs one: the same edits, in the same draws, as a loop over text_units' spans of each unit.
    if lang is None and unit == "whitespace":
        unit = "word"  # version-1 words only
    text = "".join(word + space for word, space in pieces)
    texts = [text, text.strip(), " ".join(text.split()), ""]
    protected = [[(1, 4), (9, 12)] if protect else [] for _ in texts]
    runtime = _v2(lang or "en", rate=rate).runtime()
    spans_of = {None: lambda t: [m.span() for m in word_pattern().finditer(t)],
                "word": lambda t: word_spans(t, lang), "whitespace": lambda t: whitespace_token_spans(t, lang)}
    ids = ["a", "b", "c", "d"]
    loop = noise_each_word(texts, example_rngs(seed, "k", "d", ids, "f"), protected if protect else None, rate,
                           runtime.typo, "keyboard", lang=lang, unit=unit)
    reference = _reference_loop(texts, example_rngs(seed, "k", "d", ids, "f"), protected, rate, runtime.typo,
                                spans_of[unit if lang else None])
    assert loop == reference
    assert all(type(noised) is Noised and all(type(edit) is Edit for edit in noised.edits) for noised in loop)
