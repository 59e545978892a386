"""One of each: the IOB module, the token-tag file reader and the file-decoding module, as every caller uses them."""

from __future__ import annotations

import pytest

from noisecraft.core.iob import entity_runs, is_valid_bio
from noisecraft.core.labels import entity_strings
from noisecraft.core.text_files import AUTO, LineDecoder, read_text, text_lines
from noisecraft.errors import InputError
from noisecraft.harness.entity_metrics import entities
from noisecraft.noise_models.entity_spans import TaggedSentences, sentence_entities
from noisecraft.noise_models.natural import _word_list
from noisecraft.noise_models.speech_asr import arpa_words
from noisecraft.sources.wikiann import TAGS, parse_rahimi, tagged_sentences

# --- IOB ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("tags", "runs"), [
    (["B-PER", "I-PER", "O", "B-LOC"], [("PER", 0, 1), ("LOC", 3, 3)]),
    (["O", "I-LOC", "I-LOC"], [("LOC", 1, 2)]),  # IOB1: a stray I- starts an entity
    (["B-PER", "I-LOC"], [("PER", 0, 0), ("LOC", 1, 1)]),
    (["B-PER", "B-PER"], [("PER", 0, 0), ("PER", 1, 1)]),
    ([], []),
])
def test_every_reader_of_tags_sees_the_same_entities(tags, runs):
    assert entity_runs(tags) == runs
    assert entities(tags) == set(runs)  # the harness's entity scores
    tokens = [f"w{i}" for i in range(len(tags))]
    names = tuple(dict.fromkeys(["O", *TAGS, *tags]))
    assert entity_strings(tokens, [names.index(t) for t in tags], names) == \
        [f"{kind}: {' '.join(tokens[a:b + 1])}" for kind, a, b in runs]  # WikiANN's spans column
    starts = [3 * i for i in range(len(tags))]  # "w0 w1 ...": every token is two characters and a space
    assert sentence_entities(tokens, tags) == [(starts[a], starts[b] + 2, kind) for kind, a, b in runs]  # replace-entity


def test_tag_files_map_their_types_before_reading_entities():
    tokens = ["Ada", "went", "to", "New", "York", "on", "Monday"]
    tags = ["B-PERSON", "O", "O", "B-GPE", "I-GPE", "O", "B-DATE"]
    assert sentence_entities(tokens, tags) == [(0, 3, "PER"), (12, 20, "LOC")]
    assert entity_runs(["S-PER", "E-PER", "O"]) == []  # other schemes' tags are outside an IOB entity, but a
    assert sentence_entities(["Ada", "Byron"], ["S-PER", "E-PER"]) == [(0, 3, "PER"), (4, 9, "PER")]  # file's begin one


def test_valid_bio_is_checked_on_tag_names():
    assert is_valid_bio(["B-PER", "I-PER", "O", "B-LOC", "I-LOC"])
    assert not is_valid_bio(["O", "I-PER"])
    assert not is_valid_bio(["B-PER", "I-LOC"])
    assert is_valid_bio([])


# --- one reader per token-tag format -------------------------------------------------------------------------------


def test_one_reader_serves_wikiann_conll_and_the_tags_files(tmp_path):
    wikiann = tmp_path / "wikiann.txt"
    wikiann.write_bytes(b"en:Ada\tB-PER\r\nen:Lovelace\tI-PER\r\nen:wrote\tO\r\n\r\nen:London\tB-LOC\n")
    assert [[(n, t, g) for n, t, g in s] for s in tagged_sentences(wikiann, "en", TAGS)] == \
        [[(1, "Ada", "B-PER"), (2, "Lovelace", "I-PER"), (3, "wrote", "O")], [(5, "London", "B-LOC")]]
    assert [r["spans"] for r in parse_rahimi(wikiann, "en")] == [["PER: Ada Lovelace"], ["LOC: London"]]
    conll = tmp_path / "eng.testa"
    conll.write_text("-DOCSTART- -X- -X- O\n\nAda NNP B-NP I-PER\nwrote VBD B-VP O\n", encoding="utf-8")
    assert [[t for _, t, _ in s] for s in tagged_sentences(conll)] == [["Ada", "wrote"]]
    assert TaggedSentences(conll).entities(["Ada wrote", "unknown"]) == [[(0, 3, "PER")], None]
    assert TaggedSentences(wikiann).entities(["Ada Lovelace wrote"]) == [[(0, 12, "PER")]]


def test_tag_file_errors_name_the_line(tmp_path):
    bad = tmp_path / "tags.txt"
    bad.write_text("Ada B-PER\nlonely\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"tags\.txt, line 2: expected 'token<TAB>tag' \(WikiANN\)"):
        TaggedSentences(bad)
    with pytest.raises(InputError, match=r"tags\.txt, line 1: expected 'lang:token<TAB>tag'"):
        parse_rahimi(bad, "en")
    odd = tmp_path / "odd.txt"
    odd.write_text("en:Ada\tB-PER\nen:x\u2028y\tO\n", encoding="utf-8")  # a line separator is text, never a line end
    with pytest.raises(InputError, match=r"odd\.txt, line 2: empty token or token with whitespace"):
        parse_rahimi(odd, "en")


# --- one decoding module, one policy switch -----------------------------------------------------------------------


def test_lines_end_only_at_lf(tmp_path):
    path = tmp_path / "words.txt"
    path.write_bytes("\ufeffone\u2028two\r\nthree\x0cfour\u0085five\nsix".encode())
    assert list(text_lines(path)) == [(1, "one\u2028two"), (2, "three\x0cfour\u0085five"), (3, "six")]
    assert read_text(path) == "one\u2028two\r\nthree\x0cfour\u0085five\nsix"
    assert _word_list(path) == {"one\u2028two", "three\x0cfour\u0085five", "six"}  # natural noise's word lists
    lm = tmp_path / "lm.arpa"
    lm.write_bytes("\\data\\\r\nngram 1=3\r\n\r\n\\1-grams:\r\n-1.0 <s>\r\n-1.0 caf\u00e9\r\n-1.0 </s>\r\n\\end\\\r\n"
                   .encode())
    assert arpa_words(lm) == {"caf\u00e9"}  # asr's language models


def test_the_policy_switch(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"caf\xc3\xa9\nna\xefve\n")
    with pytest.raises(InputError, match=r"mixed\.txt, line 2: not UTF-8 text \(byte 8, 0xef; latin-1 or cp1252\?\): "
                                         "convert the file to UTF-8"):
        list(text_lines(path))  # strict by default: published bytes are never guessed
    assert list(text_lines(path, AUTO)) == [(1, "café"), (2, "na\u00efve")]  # the miners' policy, said in the card
    decoder = LineDecoder(path, AUTO)
    decoder.decode(path.read_bytes())
    assert decoder.describe() == "utf-8, 1 line(s) not UTF-8 read as latin-1 (line(s) 2)"
    assert list(text_lines(path, "latin-1")) == [(1, "cafÃ©"), (2, "na\u00efve")]
    utf16 = tmp_path / "utf16.txt"
    utf16.write_bytes("x\n".encode("utf-16"))
    with pytest.raises(InputError, match=r"line 1: not UTF-8 text \(byte 0, 0xff; the file starts with a UTF-16 byte"):
        read_text(utf16)
    with pytest.raises(InputError, match=r"missing\.txt: cannot read word list: No such file"):
        _word_list(tmp_path / "missing.txt")
