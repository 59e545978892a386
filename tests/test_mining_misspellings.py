"""Misspelling-list miner: golden edit types, the three real formats, bad lines, files that are not
misspelling lists, per-file formats and encodings, and the filters."""

import os
import random
import sys
from pathlib import Path

import datasets
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from noisecraft.core.schema import to_features
from noisecraft.dataset.noise_dictionary import dictionary_features, load_dictionary
from noisecraft.errors import ConfigError, InputError
from noisecraft.mining import misspellings
from noisecraft.mining.misspellings import (
    EDIT_TYPES,
    KEYBOARD_TYPES,
    MISSPELLING_COLUMNS,
    classify_edit,
    drop_sound_alikes,
    load_g2p,
    mine_misspellings,
    misspelling_dictionary,
    parse_misspelling_file,
    phones,
    read_misspelling_file,
    sound_alike,
)
from noisecraft.noise_models.keyboard_layouts import load_layout

from conftest import corpus

QWERTY = load_layout("qwerty").distance_neighbours()

GOLDEN = [
    ("receive", "recieve", "transposition"),
    ("the", "teh", "transposition"),
    ("able", "abel", "transposition"),
    ("the", "thw", "keyboard"),  # w is beside e
    ("The", "Rhe", "keyboard"),  # r is beside t, whatever the case
    ("the", "thx", "substitution"),  # x is nowhere near e
    ("definitely", "definately", "substitution"),
    ("The", "the", "substitution"),  # Shift is the same key, not a neighbour
    ("hall", "ha;l", "keyboard"),  # ';' lists l as a neighbour; the letter l lists only letters
    ("the", "thee", "insertion"),
    ("a lot", "alot", "deletion"),  # a missed space bar is a deletion too
    ("acquire", "aquire", "deletion"),
    ("necessary", "neccesary", "other"),  # one c more and one s fewer
    ("ca", "abc", "other"),  # OSA 3: restricted Damerau never edits a transposed pair again
]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- classification ----------------------------------------------------------------------------


@pytest.mark.parametrize(("correct", "noisy", "expected"), GOLDEN)
def test_golden_edit_types(correct, noisy, expected):
    assert classify_edit(correct, noisy, QWERTY) == expected


def test_keyboard_depends_on_the_layout():
    """z sits beside t on QWERTZ but in the bottom-left corner on QWERTY."""
    assert classify_edit("zeit", "teit", load_layout("qwertz-de").distance_neighbours()) == "keyboard"
    assert classify_edit("zeit", "teit", QWERTY) == "substitution"


def test_identical_strings_have_no_edit_type():
    with pytest.raises(ValueError, match="identical"):
        classify_edit("word", "word", QWERTY)


LETTERS = "abcdefghijklmnopqrstuvwxyz"
words = st.text(alphabet=LETTERS, min_size=1, max_size=12)


@given(words, st.data())
def test_single_insertion_or_deletion_is_labelled_so(word, data):
    i = data.draw(st.integers(0, len(word)))
    char = data.draw(st.sampled_from(LETTERS))
    assert classify_edit(word, word[:i] + char + word[i:], QWERTY) == "insertion"
    j = data.draw(st.integers(0, len(word) - 1))
    assert classify_edit(word, word[:j] + word[j + 1 :], QWERTY) == "deletion"


@given(st.text(alphabet=LETTERS, min_size=2, max_size=12), st.data())
def test_single_transposition_is_labelled_so(word, data):
    i = data.draw(st.integers(0, len(word) - 2))
    assume(word[i] != word[i + 1])  # swapping equal letters changes nothing
    assert classify_edit(word, word[:i] + word[i + 1] + word[i] + word[i + 2 :], QWERTY) == "transposition"


@given(words, st.data())
def test_single_substitution_is_keyboard_exactly_for_neighbouring_keys(word, data):
    i = data.draw(st.integers(0, len(word) - 1))
    near = QWERTY[word[i]]
    far = sorted(set(LETTERS) - set(near) - {word[i]})
    typo = data.draw(st.sampled_from(near))
    assert classify_edit(word, word[:i] + typo + word[i + 1 :], QWERTY) == "keyboard"
    other = data.draw(st.sampled_from(far))
    assert classify_edit(word, word[:i] + other + word[i + 1 :], QWERTY) == "substitution"


# --- parsing the real files ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relative", "pairs"),
    [
        ("misspellings/wikipedia_for_machines.txt", 4515),
        ("misspellings/wikipedia_for_machines_raw.txt", 4516),
        ("misspellings/wikipedia_for_machines_2011snapshot.dat", 4188),
        ("misspellings/birkbeck_missp.dat", 36133),
        ("charnmt_noise/en.natural", 53334),
        ("charnmt_noise/de.natural", 1988),
        ("charnmt_noise/fr.natural", 108677),
        ("charnmt_noise/cs.natural", 9425),
    ],
)
def test_real_files_parse_completely(relative, pairs):
    found, skips = parse_misspelling_file(corpus(relative))
    assert len(found) == pairs and skips == []


def test_wikipedia_gives_one_pair_per_correction():
    path = corpus("misspellings/wikipedia_for_machines.txt")
    pairs, _ = parse_misspelling_file(path)
    text = path.read_text(encoding="utf-8")
    assert len(pairs) == text.count("->") + text.count(",")  # 4279 lines, 236 extra corrections
    assert pairs[40:42] == [("accession", "accension"), ("ascension", "accension")]
    assert ("countries'", "countrie's") in pairs  # an apostrophe is part of the word


def test_birkbeck_targets_and_multiword_entries():
    path = corpus("misspellings/birkbeck_missp.dat")
    pairs, _ = parse_misspelling_file(path)
    assert pairs[:3] == [("Albert", "Ab"), ("America", "Ameraca"), ("America", "Amercia")]
    assert len({correct for correct, _ in pairs}) == 6136  # one per '$' line
    assert ("a lot", "alot") in pairs and ("about", "a bout") in pairs  # '_' read as a space
    assert sum(" " in correct or " " in noisy for correct, noisy in pairs) == 710


def test_belinkov_lines_and_repeats():
    pairs, _ = parse_misspelling_file(corpus("charnmt_noise/en.natural"))
    assert pairs[:3] == [("hierarchically", "hierachically"), ("esteem", "estime"), ("esteem", "esstem")]
    assert pairs.count(("alone", "along")) == 3  # the same pair on several lines is counted


# --- parsing edge cases and bad input -----------------------------------------------------------


def test_wikipedia_oddities_and_malformed_lines(tmp_path):
    path = _write(tmp_path, "wiki.txt", "# comment\n\nabilty->ability  \nnoarrow\nx->y->z\ncmoputer->\n"
                                        "availabe-> available\nachive->achieve, archive\n")
    pairs, skips = parse_misspelling_file(path)
    assert pairs == [("ability", "abilty"), ("available", "availabe"), ("achieve", "achive"), ("archive", "achive")]
    assert skips == [
        f"{path}, line 4: no '->' between misspelling and correction",
        f"{path}, line 5: more than one '->'",
        f"{path}, line 6: empty misspelling or correction",
    ]


def test_birkbeck_malformed_lines(tmp_path):
    path = _write(tmp_path, "missp.dat", "orphan\n$\nlost\n$a_lot\nalot\nto much\n")
    pairs, skips = parse_misspelling_file(path, fmt="birkbeck")
    assert pairs == [("a lot", "alot")]
    assert [s.split(": ", 1)[0] for s in skips] == [f"{path}, line {n}" for n in (1, 2, 3, 6)]
    assert "no valid '$correct' line" in skips[0] and "spaces as '_'" in skips[3]


def test_belinkov_line_without_errors_is_skipped(tmp_path):
    path = _write(tmp_path, "xx.natural", "luck lock luke\nalone\n\nthe teh\n")
    pairs, skips = parse_misspelling_file(path)
    assert pairs == [("luck", "lock"), ("luck", "luke"), ("the", "teh")]
    assert skips == [f"{path}, line 2: a correct word with no misspelling after it"]


def test_latin1_bom_and_crlf(tmp_path):
    latin = tmp_path / "latin.natural"
    latin.write_bytes("café cafe\r\n".encode("latin-1"))
    assert parse_misspelling_file(latin) == ([("café", "cafe")], [])
    assert read_misspelling_file(latin).encoding == "latin-1 (not UTF-8: 1 line(s) with non-ASCII bytes, none UTF-8: line(s) 1)"
    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeffteh->the\r\n".encode())
    assert parse_misspelling_file(bom) == ([("the", "teh")], [])
    assert read_misspelling_file(bom).encoding == "utf-8 (with BOM)"


def test_one_bad_byte_costs_one_line_not_the_file(tmp_path):
    """A UTF-8 list with one latin-1 byte: the other lines stay UTF-8 (no 'cafÃ©'), the line is named."""
    path = tmp_path / "mixed.natural"
    path.write_bytes("café caffé\n".encode() + "naïve naive\n".encode("latin-1") + "déjà dejà\n".encode())
    parsed = read_misspelling_file(path)
    assert parsed.pairs == [("café", "caffé"), ("naïve", "naive"), ("déjà", "dejà")]
    assert parsed.encoding == "utf-8, 1 line(s) not UTF-8 read as latin-1 (line(s) 2)"
    with pytest.raises(InputError, match=r"mixed\.natural, line 2: not UTF-8 text \(byte \d+, 0xef; latin-1 or cp1252\?\)"):
        parse_misspelling_file(path, encoding="utf-8")
    assert read_misspelling_file(path, encoding="latin-1").pairs[0] == ("cafÃ©", "caffÃ©")  # asked for, so done


def test_empty_file_and_file_without_pairs(tmp_path):
    with pytest.raises(InputError, match=r"empty\.txt: empty misspelling file"):
        parse_misspelling_file(_write(tmp_path, "empty.txt", " \n\n"))
    with pytest.raises(InputError, match=r"bad\.txt: no \(correct, misspelling\) pair in wikipedia format \(2 malformed "
                                         r"line\(s\) skipped; first: line 1: empty misspelling or correction\)"):
        parse_misspelling_file(_write(tmp_path, "bad.txt", "a->\nb->c->d\n"))
    with pytest.raises(InputError, match=r"missing\.txt: cannot read misspelling file: No such file or directory"):
        parse_misspelling_file(tmp_path / "missing.txt")
    with pytest.raises(InputError, match=r"cannot read misspelling file: Is a directory"):
        mine_misspellings([tmp_path])
    with pytest.raises(InputError, match=r"lonely\.natural: no \(correct, misspelling\) pair in belinkov format"):
        mine_misspellings([_write(tmp_path, "good.txt", "teh->the\n"), _write(tmp_path, "lonely.natural", "alone\nsolo\n")])


# --- files that are not misspelling lists -------------------------------------------------------


def test_random_bytes_are_not_a_misspelling_list(tmp_path):
    path = tmp_path / "noise.dat"
    path.write_bytes(random.Random(0).randbytes(4096))
    with pytest.raises(InputError, match=r"noise\.dat, line 1: binary data, not a misspelling list: \d+ of \d+ lines hold "
                                         r"control characters \(first: U\+0007\)"):
        parse_misspelling_file(path)


def test_prose_is_not_a_misspelling_list(tmp_path):
    path = _write(tmp_path, "novel.txt", "It was the best of times, it was the worst of times,\n"
                                         "it was the age of wisdom, it was the age of foolishness.\n")
    with pytest.raises(InputError, match=r"novel\.txt, line 1: not a misspelling list: 20 of 22 pairs read in belinkov "
                                         r"format do not resemble each other \(first: 'It' -> 'was'\)"):
        parse_misspelling_file(path)
    arrows = _write(tmp_path, "arrows.txt", "cat->dog\nhouse->river\nteh->the\n")  # '->' lines that are not typos
    with pytest.raises(InputError, match=r"arrows\.txt, line 1: not a misspelling list: 2 of 3 pairs read in wikipedia"):
        parse_misspelling_file(arrows)


@pytest.mark.parametrize(("relative", "line"), [
    ("gec/m2scorer_example/source_gold", 2),
    ("gec/jfleg/dev.ref.m2", 2),
    ("gec/conll14st-test-data/noalt/official-2014.combined.m2", 6),
    ("gec/wi+locness/m2/A.dev.gold.bea19.m2", 2),
])
def test_an_m2_file_is_not_a_misspelling_list(relative, line):
    path = corpus(relative)
    with pytest.raises(InputError, match=rf"{path.name}, line {line}: an M2 grammatical-error annotation line"):
        parse_misspelling_file(path)


@pytest.mark.parametrize("relative", [
    "gec/jfleg/dev/dev.src",  # learner sentences
    "gec/conll14st-test-data/README",
    "opinion_lexicon/positive-words.txt",  # a word list
    "sentiment140/testdata.manual.2009.06.14.csv",
    "mediawiki/hiwiki_main_page_13revs.xml",
    "mediawiki/enwiki-20140102.tiny.xml.gz",  # compressed: binary
])
def test_real_files_that_are_not_misspelling_lists_are_refused(relative):
    with pytest.raises(InputError, match=r"line \d+: (not a misspelling list|binary data)"):
        parse_misspelling_file(corpus(relative))


def test_a_few_stray_control_characters_are_data(tmp_path):
    """Belinkov & Bisk's fr.natural has DEL in 5 of 65,157 lines; a stray control character is a typo, not binary."""
    lines = "".join(f"word{i} wrod{i}\n" for i in range(200)) + "Palazzo Palazz\x7fo\nfille fi\x08lle\n"
    pairs, _ = parse_misspelling_file(_write(tmp_path, "x.natural", lines))
    assert ("Palazzo", "Palazz\x7fo") in pairs and ("fille", "fi\x08lle") in pairs
    with pytest.raises(InputError, match="binary data"):
        parse_misspelling_file(_write(tmp_path, "nul.natural", "teh the\nab a\x00b\n"))


def test_explicit_and_unknown_formats(tmp_path):
    path = _write(tmp_path, "list.txt", "teh the\n")
    assert parse_misspelling_file(path, fmt="belinkov")[0] == [("teh", "the")]
    with pytest.raises(InputError, match="in wikipedia format"):
        parse_misspelling_file(path, fmt="wikipedia")
    with pytest.raises(ConfigError, match="unknown misspelling file format 'csv'"):
        parse_misspelling_file(path, fmt="csv")


# --- mining -------------------------------------------------------------------------------------


def test_rows_count_deduplicate_and_follow_the_dictionary_format(tmp_path):
    one = _write(tmp_path, "one.natural", "the teh thw the\nthe teh\n")
    two = _write(tmp_path, "two.txt", "teh->the\nrecieve->receive\n")
    rows, stats = mine_misspellings([one, two], phonetic_filter=False)
    assert [(r["correct"], r["noisy"], r["count"], r["sources"]) for r in rows] == [
        ("receive", "recieve", 1, "two.txt"),
        ("the", "teh", 3, "one.natural,two.txt"),
        ("the", "thw", 1, "one.natural"),
    ]
    assert [r["probability"] for r in rows] == [1.0, 0.75, 0.25]
    assert [r["edit_type"] for r in rows] == ["transposition", "transposition", "keyboard"]
    assert {r["distance"] for r in rows} == {1}
    assert stats["pairs_read"] == 6 and stats["identical_dropped"] == 1 and stats["pairs_kept"] == 3
    assert list(stats["by_type"]) == list(EDIT_TYPES)
    dataset = datasets.Dataset.from_list(rows, features=to_features(dictionary_features(MISSPELLING_COLUMNS)))
    dataset.to_parquet(str(tmp_path / "dictionary.parquet"))
    loaded = load_dictionary(str(tmp_path / "dictionary.parquet"), keep={"multiword": False})
    assert loaded.entries["the"][0] == ("teh", "thw")


def test_formats_and_encodings_are_recorded_per_file(tmp_path):
    wiki = corpus("misspellings/wikipedia_for_machines.txt")
    latin = tmp_path / "latin.natural"
    latin.write_bytes("café cafe caffe\n".encode("latin-1"))
    birkbeck = _write(tmp_path, "missp.dat", "$the\nteh\nhte\nbroken line\n")
    rows, stats = mine_misspellings([wiki, latin, birkbeck], phonetic_filter=False)
    assert stats["files"] == [
        "wikipedia_for_machines.txt: wikipedia, utf-8, 4515 pairs, 0 lines skipped",
        "latin.natural: belinkov, latin-1 (not UTF-8: 1 line(s) with non-ASCII bytes, none UTF-8: line(s) 1), 2 pairs, "
        "0 lines skipped",
        "missp.dat: birkbeck, utf-8, 2 pairs, 1 lines skipped",
    ]
    assert stats["formats"] == ["belinkov", "birkbeck", "wikipedia"]
    card = misspelling_dictionary([latin, birkbeck], phonetic_filter=False).stats
    assert card["files"] == "; ".join(stats["files"][1:]) and card["formats"] == "belinkov, birkbeck"
    assert card["skip_examples"] == "missp.dat, line 4: expected one entry per line (Birkbeck writes spaces as '_')"


def test_a_file_listed_twice_is_read_once(tmp_path):
    path = _write(tmp_path, "one.natural", "the teh\n")
    link = tmp_path / "link.natural"
    os.symlink(path, link)
    rows, stats = mine_misspellings([path, path, link], phonetic_filter=False)
    assert [(r["correct"], r["noisy"], r["count"]) for r in rows] == [("the", "teh", 1)]
    assert stats["pairs_read"] == 1 and len(stats["files"]) == 1
    assert stats["repeated_inputs"] == ["one.natural (listed twice)", "link.natural (same file as one.natural)"]
    mined = misspelling_dictionary([path, link], phonetic_filter=False)
    assert mined.inputs == ["one.natural"] and mined.command.count("one.natural") == 1


def test_skips_are_counted_across_files(tmp_path):
    good = _write(tmp_path, "good.txt", "teh->the\n")
    bad = _write(tmp_path, "bad.txt", "abel->able\noops\n")
    _, stats = mine_misspellings([good, bad], phonetic_filter=False)
    assert stats["skipped"] == 1 and stats["skip_examples"] == [f"{bad}, line 2: no '->' between misspelling and correction"]


def test_keyboard_only_keeps_the_four_keyboard_types():
    path = corpus("misspellings/wikipedia_for_machines.txt")
    rows, stats = mine_misspellings([path], phonetic_filter=False)
    assert stats["by_type"] == {"insertion": 806, "deletion": 1545, "transposition": 558, "keyboard": 116,
                                "substitution": 780, "other": 710}
    kept, kept_stats = mine_misspellings([path], keyboard_only=True, phonetic_filter=False)
    assert {r["edit_type"] for r in kept} == KEYBOARD_TYPES
    pairs = [(r["correct"], r["noisy"]) for r in kept]
    assert pairs == [(r["correct"], r["noisy"]) for r in rows if r["edit_type"] in KEYBOARD_TYPES]
    assert kept_stats["pairs_kept"] == 3025 and kept_stats["keyboard_dropped"] == 1490
    assert kept_stats["keyboard_only"] is True and kept_stats["layout"] == "qwerty"
    assert pairs == sorted(pairs)


def test_unknown_layout_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="unknown keyboard layout 'dvorak'"):
        mine_misspellings([_write(tmp_path, "a.txt", "teh->the\n")], layout="dvorak")


# --- phonetic filter ----------------------------------------------------------------------------


FAKE_IPA = {"their": "ðɛɹ", "there": "ðɛɹ", "thier": "θiɹ", "luck": "lʌk", "lock": "lɑk",
            "definitely": "dɛfənətli", "definately": "dɪfənətli"}


def test_phones_keep_marks_with_their_base():
    assert phones("ˈt͡ʃiːz ɹ̩") == ["t͡ʃ", "iː", "z", "ɹ̩"]


def test_sound_alike_threshold():
    assert sound_alike("ðɛɹ", "ðɛɹ")
    assert sound_alike("dɛfənətli", "dɪfənətli")  # one phone in nine
    assert not sound_alike("lʌk", "lɑk")  # one phone in three: another word
    assert not sound_alike("", "")  # nothing known, nothing dropped


def test_drop_sound_alikes_with_a_mocked_g2p():
    rows = [{"correct": c, "noisy": n} for c, n in [("their", "there"), ("their", "thier"), ("luck", "lock"),
                                                    ("definitely", "definately")]]
    calls = []

    def g2p(word):
        calls.append(word)
        return FAKE_IPA[word]

    kept = drop_sound_alikes(rows, g2p)
    assert [(r["correct"], r["noisy"]) for r in kept] == [("their", "thier"), ("luck", "lock")]
    assert sorted(calls) == sorted(FAKE_IPA)  # each word transcribed once


def test_mining_applies_the_filter_when_a_g2p_loads(tmp_path, monkeypatch):
    path = _write(tmp_path, "x.natural", "their there thier\nluck lock\n")
    monkeypatch.setattr(misspellings, "load_g2p", lambda lang: (FAKE_IPA.__getitem__, "fake-g2p"))
    rows, stats = mine_misspellings([path])
    assert [(r["correct"], r["noisy"]) for r in rows] == [("luck", "lock"), ("their", "thier")]
    assert stats["phonetic_dropped"] == 1
    assert stats["phonetic_filter"].startswith("applied: fake-g2p IPA, dropped 1 pair(s)")


def test_filter_is_reported_when_no_g2p_is_installed(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "epitran", None)  # makes `import epitran` fail
    assert load_g2p("en") == (None, "no G2P package installed")
    _, stats = mine_misspellings([_write(tmp_path, "a.txt", "teh->the\n")])
    assert stats["phonetic_filter"] == "not applied (no G2P package installed)"
    _, stats = mine_misspellings([_write(tmp_path, "b.txt", "teh->the\n")], phonetic_filter=False)
    assert stats["phonetic_filter"] == "not applied (disabled)"
