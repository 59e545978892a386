"""GEC miner (``noisecraft mine gec``): M2 reading with both tag sets and several annotators, the mapping onto
the eight learner error types, minimal edits and confusion weights, bad M2 files, the published dataset and
its card; then the real CoNLL-2013/2014, BEA-2019 and JFLEG files."""

from __future__ import annotations

from pathlib import Path

import datasets
import pytest

from noisecraft.dataset.noise_dictionary import read_dictionary_rows
from noisecraft.errors import InputError
from noisecraft.grammar.confusions import load_confusions
from noisecraft.grammar.error_types import EMPTY, ERROR_TYPES, REFERENCE_SETS
from noisecraft.mining.gec import MinimalPair, error_type, gec_dictionary, mine_gec, minimal_pair
from noisecraft.mining.gec_m2 import read_m2, tag_set
from noisecraft.mining.output import write_dictionary

from conftest import REPO_ROOT, corpus
from test_cli import noisecraft

SAMPLE = REPO_ROOT / "tests" / "data" / "learner_sample.m2"


def _write(tmp_path: Path, text: str, name: str = "bad.m2") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- reading -----------------------------------------------------------------------------------


def test_sample_is_read_with_alternatives_annotators_and_noop():
    m2 = read_m2(SAMPLE)
    assert len(m2.sentences) == 10 and m2.tag_sets == {"NUCLE", "ERRANT"} and not m2.problems
    first, second, third = m2.sentences[:3]
    assert first.tokens[3] == "on" and [e.annotator for e in first.edits] == [0, 0, 1]
    assert second.edits[2].corrections == ("the", "his")  # alternatives separated by ||
    assert [e.tag for e in third.edits] == ["Vt", "Vform"]  # the noop annotation is no edit
    assert m2.sentences[3].edits[1].corrections == ("",)  # an empty correction deletes the word


@pytest.mark.parametrize(("tag", "expected_set", "expected_type"), [
    ("ArtOrDet", "NUCLE", "ArtOrDet"), ("Prep", "NUCLE", "Prep"), ("Trans", "NUCLE", "Trans"), ("Nn", "NUCLE", "Nn"),
    ("SVA", "NUCLE", "SVA"), ("Vform", "NUCLE", "Vform"), ("Vt", "NUCLE", "Vform"), ("Wci", "NUCLE", "Wchoice"),
    ("WOinc", "NUCLE", "Worder"), ("WOadv", "NUCLE", "Worder"), ("Mec", "NUCLE", None), ("Wform", "NUCLE", None),
    ("M:DET", "ERRANT", "ArtOrDet"), ("U:DET", "ERRANT", "ArtOrDet"), ("R:PREP", "ERRANT", "Prep"),
    ("R:CONJ", "ERRANT", "Trans"), ("R:NOUN:NUM", "ERRANT", "Nn"), ("R:VERB:SVA", "ERRANT", "SVA"),
    ("R:VERB:FORM", "ERRANT", "Vform"), ("M:VERB:TENSE", "ERRANT", "Vform"), ("R:OTHER", "ERRANT", "Wchoice"),
    ("R:NOUN", "ERRANT", "Wchoice"), ("R:VERB", "ERRANT", "Wchoice"), ("R:ADJ", "ERRANT", "Wchoice"),
    ("M:NOUN", "ERRANT", None), ("R:ADV", "ERRANT", None), ("R:WO", "ERRANT", "Worder"), ("R:SPELL", "ERRANT", None),
    ("UNK", "ERRANT", None), ("NN", None, None), ("#Rp#", None, None), ("X:DET", None, None),
])
def test_tags_map_onto_the_eight_types(tag, expected_set, expected_type):
    assert tag_set(tag) == expected_set
    assert error_type(tag) == expected_type


@pytest.mark.parametrize(("kind", "written", "correction", "expected"), [
    ("ArtOrDet", ["a"], "the", MinimalPair("ArtOrDet", "the", "a", "substitution")),
    ("ArtOrDet", [], "the", MinimalPair("ArtOrDet", "the", EMPTY, "deletion")),  # the learner left "the" out
    ("ArtOrDet", ["The"], "", MinimalPair("ArtOrDet", EMPTY, "the", "insertion")),  # ... or added one (lower-cased)
    ("ArtOrDet", ["this"], "the", "outside the reference set"),
    ("ArtOrDet", ["The"], "the", "case or spacing only"),
    ("Prep", ["on"], "in", MinimalPair("Prep", "in", "on", "substitution")),
    ("Prep", ["in", "the"], "at", "more than one word on a side"),
    ("Nn", ["friend"], "friends", MinimalPair("Nn", "friends", "friend", "substitution")),
    ("Vform", [], "be", "a word inserted or deleted (only substitutions make this type)"),
    ("Worder", ["always", "is"], "is always", MinimalPair("Worder", "is always", "always is", "swap")),
    ("Worder", ["a", "b", "c"], "c b a", "not two swapped words"),
    ("Worder", ["a", "b", "c"], "c a b", "not two swapped words"),  # a permutation is not a swap of two words
    ("Worder", ["b", "a", "c"], "a c b", "not two swapped words"),
    ("Worder", ["Is", "always"], "is always", "case or spacing only"),
])
def test_minimal_pairs(kind, written, correction, expected):
    assert minimal_pair(kind, written, correction) == expected


def test_sample_mines_types_and_confusions_with_annotators_merged():
    rows, stats, _ = mine_gec([SAMPLE])
    by_pair = {(r["error_type"], r["correct"], r["noisy"]): r for r in rows}
    assert by_pair["Prep", "in", "on"]["count"] == 1  # annotators 0 and 1 marked the same edit: one learner error
    assert stats["merged_duplicates"] == 1
    assert by_pair["ArtOrDet", "the", EMPTY]["tags"] == "ArtOrDet, M:DET"  # NUCLE and ERRANT evidence together
    assert by_pair["Worder", "is always", "always is"]["operation"] == "swap"
    assert stats["minimal_by_type"] == {"ArtOrDet": 7, "Prep": 2, "Trans": 2, "Nn": 2, "SVA": 3, "Vform": 2, "Wchoice": 3,
                                        "Worder": 2}
    assert stats["not_minimal"] == {"Vform: more than one word on a side": 1}  # "have seen" -> "saw"
    # ... which still counts towards the type distribution (a row of its own), never towards w_ij
    assert by_pair["Vform", "saw", "have seen"]["operation"] == "type-only"
    assert stats["distribution_by_type"] == {**stats["minimal_by_type"], "Vform": 3}
    assert stats["outside_types"] == 3  # Mec, M:PUNCT, UNK
    the = [r for r in rows if r["correct"] == "the"]
    assert sum(r["probability"] for r in the) == pytest.approx(1.0)


def test_passing_a_file_twice_or_two_copies_counts_each_edit_once(tmp_path):
    copy = _write(tmp_path, SAMPLE.read_text(encoding="utf-8"), "copy.m2")
    once, _, _ = mine_gec([SAMPLE])
    twice, stats, _ = mine_gec([SAMPLE, SAMPLE, copy])
    assert once == twice
    assert stats["repeated_inputs"] == ["learner_sample.m2 (listed twice)"]
    assert stats["merged_duplicates"] == 1 + 25  # the sample's duplicate, then the copy's 25 edits of the eight types


# --- bad M2 ------------------------------------------------------------------------------------


BAD_LINES = [
    ("S A cat sat .\nA 0 1|||ArtOrDet|||The|||REQ", "malformed annotation", "4 of 6"),  # truncated
    ("S A cat sat .\nA 2 9|||Prep|||on|||REQUIRED|||-NONE-|||0\n", "offsets outside the sentence", "2 9"),
    ("S A cat sat .\nA 3 1|||Prep|||on|||REQUIRED|||-NONE-|||0\n", "offsets outside the sentence", "3 1"),
    ("S A cat sat .\nA x 1|||Prep|||on|||REQUIRED|||-NONE-|||0\n", "malformed annotation", "'x 1'"),
    ("S A cat sat .\nA 0 1|||Prep|||on|||REQUIRED|||-NONE-|||zero\n", "malformed annotation", "annotator id"),
    ("S A cat sat .\nA 0 1|||Blah|||the|||REQUIRED|||-NONE-|||0\n", "unknown error tag", "'Blah'"),
    ("S A cat sat .\nsomething else\n", "not an M2 line", "something else"),
]


@pytest.mark.parametrize(("text", "reason", "detail"), BAD_LINES, ids=[b[1] + str(i) for i, b in enumerate(BAD_LINES)])
def test_bad_annotations_are_counted_skips_naming_the_line_or_strict_errors(tmp_path, text, reason, detail):
    good = "S The dog sat .\nA 1 2|||Nn|||dogs|||REQUIRED|||-NONE-|||0\n\n"
    path = _write(tmp_path, good + text)
    m2 = read_m2(path)
    [problem] = m2.problems
    assert (problem.line, problem.reason) == (5, reason) and detail in problem.detail
    assert str(problem).startswith("bad.m2, line 5: " + reason)
    assert m2.annotations == 1  # the good edit is kept
    with pytest.raises(InputError, match=rf"bad\.m2, line 5: {reason}"):
        read_m2(path, strict=True)


def test_skips_reach_the_statistics_and_card(tmp_path):
    path = _write(tmp_path, SAMPLE.read_text(encoding="utf-8") + "\nS A cat .\nA 0 9|||Prep|||on|||REQUIRED|||-NONE-|||0\n")
    mined = gec_dictionary([path])
    assert mined.stats["skipped lines"] == "offsets outside the sentence 1"
    assert "bad.m2, line 51: offsets outside the sentence (0 9 in a sentence of 3 tokens)" in mined.stats["skip examples"]


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty file"),
    ("\n\nA 0 1|||Nn|||x|||REQUIRED|||-NONE-|||0\n", r"line 3: not an M2 file: the first line should be an 'S'"),
    ("correct\tnoisy\n", r"line 1: not an M2 file"),
    ("S a b .\nA 0 1|||#Rp#|||c|||REQUIRED|||-NONE-|||0\nA 1 2|||#Del#|||d|||REQUIRED|||-NONE-|||0\n",
     r"no annotation carries a NUCLE or ERRANT error tag \(found #Rp#, #Del#|#Del#, #Rp#\)"),
    ("S a\x00b\n", "binary data"),
])
def test_files_that_are_not_m2_are_errors_naming_them(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_m2(_write(tmp_path, text))


def test_a_file_with_no_minimal_edit_of_the_eight_types_is_an_error(tmp_path):
    path = _write(tmp_path, "S A cat sat .\nA 0 1|||Mec|||a|||REQUIRED|||-NONE-|||0\n")
    with pytest.raises(InputError, match="no minimal edit of the eight learner error types"):
        mine_gec([path])


# --- the published dataset -----------------------------------------------------------------------


def test_cli_writes_a_loadable_dictionary_with_a_card(tmp_path):
    out = tmp_path / "gec"
    result = noisecraft("mine", "gec", str(SAMPLE), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "22 pairs" in result.stdout
    assert "type distribution (every edit but case or spacing): ArtOrDet 29.2%" in result.stdout
    loaded = datasets.load_dataset(str(out), "gec-en", split="train")
    assert loaded.num_rows == 22
    assert {"error_type", "operation", "tags", "count", "probability"} <= set(loaded.column_names)
    assert set(loaded["error_type"]) == set(ERROR_TYPES)
    assert len(read_dictionary_rows(str(out)).rows) == 22  # the noise models' loader reads it
    card = (out / "README.md").read_text(encoding="utf-8")
    for needed in ("#### Error-type distribution and tag mapping", "| ArtOrDet | 7 | 0 | 29.2% | 7 | ArtOrDet | M/R/U:DET |",
                   "#### Confusion weights of the closed-class types", "| the | 4 | a 0.50, ∅ 0.50 |",
                   "license: other", "noisecraft mine gec learner_sample.m2 --lang en --out OUT", "yin-etal-2020-robustness",
                   "BEA-2019 W&I+LOCNESS", "CoNLL-2013/2014"):
        assert needed in card, needed


def test_cli_reports_a_bad_file_in_one_line(tmp_path):
    bad = _write(tmp_path, "S a .\nA 0 1|||Nn|||x|||REQ\n")
    result = noisecraft("mine", "gec", str(bad), "--strict", "--out", str(tmp_path / "o"))
    assert result.returncode == 2
    assert result.stderr.strip().endswith("bad.m2, line 2: malformed annotation (4 of 6 '|||'-separated fields: truncated line?)")
    assert not (tmp_path / "o").exists()


# --- real corpora --------------------------------------------------------------------------------


def test_conll2014_gives_the_papers_types_and_article_confusions(tmp_path):
    mined = gec_dictionary([corpus("gec/conll14st-test-data/noalt/official-2014.combined.m2")])
    assert mined.stats["sentences"] == 1312 and mined.stats["skipped lines"] == "none"
    key = "type distribution (every edit but case or spacing)"
    distribution = dict(part.rsplit(" ", 1) for part in mined.stats[key].split(", "))
    # the shares of the file's edits: Trans and Worder (mostly phrases) are no longer at half their share
    assert distribution == {"ArtOrDet": "19.6%", "Prep": "16.1%", "Trans": "5.2%", "Nn": "10.8%", "SVA": "6.5%",
                            "Vform": "13.4%", "Wchoice": "25.1%", "Worder": "3.5%"}
    write_dictionary(tmp_path / "gec", mined)
    confusions = load_confusions(str(tmp_path / "gec"), every_edit=True)  # grammar@2
    assert confusions.type_weights["Trans"] == 160 and confusions.type_weights["Worder"] == 108
    before = load_confusions(str(tmp_path / "gec"))  # grammar@1 and grammar-attack@1: minimal edits, as before
    assert before.type_weights["Trans"] == 48 and before.type_weights["Worder"] == 22
    assert set(confusions.rows["Trans"]) <= REFERENCE_SETS["Trans"]  # w_ij from minimal edits only
    rows = {(r["error_type"], r["correct"], r["noisy"]): r["count"] for r in mined.rows}
    # learners most often add "the" where no article belongs and drop "a" where one does
    assert rows["ArtOrDet", EMPTY, "the"] > rows["ArtOrDet", EMPTY, "a"] > 0
    assert rows["ArtOrDet", "a", EMPTY] > rows["ArtOrDet", "a", "the"] > 0
    assert {r["error_type"] for r in mined.rows} == set(ERROR_TYPES)


def test_conll2013_and_bea2019_errant_files_are_read_together():
    files = [corpus("gec/conll13st-test-release2.3.1/revised/official-preprocessed.m2"),
             corpus("gec/wi+locness/m2/ABCN.dev.gold.bea19.m2")]
    rows, stats, read = mine_gec(files)
    assert [m2.tag_sets for m2 in read] == [{"NUCLE"}, {"ERRANT"}]
    assert stats["sentences"] == 1381 + 4384 and not stats["skipped_lines"]
    assert all(stats["minimal_by_type"][t] > 0 for t in ERROR_TYPES)
    errant_only = {r["tags"] for r in rows if r["error_type"] == "Trans"}
    assert any("CONJ" in tags for tags in errant_only)


def test_jfleg_m2_has_no_error_types_and_is_refused():
    with pytest.raises(InputError, match="dev.ref.m2: no annotation carries a NUCLE or ERRANT error tag"):
        read_m2(corpus("gec/jfleg/dev.ref.m2"))


def test_m2scorer_example_skips_its_nonstandard_tag_and_reads_none_as_deletion():
    m2 = read_m2(corpus("gec/m2scorer_example/source_gold"))
    assert [(p.line, p.reason) for p in m2.problems] == [(6, "unknown error tag"), (12, "unknown error tag"),
                                                         (13, "unknown error tag")]
    assert m2.sentences[2].edits[1].corrections == ("",)  # "A 3 4|||ArtOrDet|||-NONE-": delete "an"
