"""Source adapters on the real release formats, and clear errors on bad input."""

import json
from pathlib import Path

import pytest

from noisecraft.core.iob import is_valid_bio
from noisecraft.errors import ConfigError, InputError
from noisecraft.sources.glue import parse_glue_tsv
from noisecraft.sources.registry import demo_file, load_source
from noisecraft.sources.squad import parse_squad_json
from noisecraft.sources.wikiann import TAGS, parse_rahimi
from noisecraft.sources.xnli import parse_xnli_tsv

from conftest import corpus


def test_xquad_json_rows_and_answers():
    rows = parse_squad_json(corpus("xquad/xquad.de.json"))
    assert len(rows) == 1190
    assert len({r["id"] for r in rows}) == 1190
    for row in rows:
        for text, start in zip(row["answers"]["text"], row["answers"]["answer_start"]):
            assert row["context"][start : start + len(text)] == text


def test_demo_sample_is_valid_squad():
    rows = parse_squad_json(demo_file())
    assert 30 <= len(rows) <= 60


def test_glue_tsvs_in_their_original_formats():
    mrpc = parse_glue_tsv("mrpc", corpus("glue/MRPC/dev.tsv"))  # UTF-8 BOM in the header
    assert len(mrpc) == 408 and set(mrpc[0]) == {"sentence1", "sentence2", "label", "idx", "id"}
    assert {r["label"] for r in mrpc} == {0, 1}
    assert len(parse_glue_tsv("qnli", corpus("glue/QNLI/dev.tsv"))) == 5463
    sst = parse_glue_tsv("sst2", corpus("glue/SST-2/dev.tsv"))
    assert len(sst) == 872 and sst[3]["idx"] == 3
    sst_test = parse_glue_tsv("sst2", corpus("glue/SST-2/test.tsv"), "test")
    assert {r["label"] for r in sst_test} == {-1}
    mnli = parse_glue_tsv("mnli", corpus("glue_slices_fastnlp/MNLI/dev_matched.tsv"))
    assert mnli[0]["premise"] == "The new rights are nice enough"
    assert {r["label"] for r in mnli} <= {0, 1, 2}


def test_xnli_rows_of_one_language():
    rows = parse_xnli_tsv(corpus("xnli/fastnlp_slice_dev.txt"), "zh")
    assert rows and all(r["premise"] and r["hypothesis"] for r in rows)
    assert [r["id"] for r in rows] == [str(i) for i in range(len(rows))]
    with pytest.raises(InputError, match="no rows for language 'xx'"):
        parse_xnli_tsv(corpus("xnli/hf_dummy_XNLI-1.0/xnli.dev.tsv"), "xx")


@pytest.mark.parametrize("lang", ["en", "th", "zh"])
def test_wikiann_rahimi_files(lang):
    rows = parse_rahimi(corpus(f"wikiann/rahimi_format_slices/{lang}/test"), lang)
    assert rows
    for row in rows:
        assert len(row["tokens"]) == len(row["ner_tags"]) == len(row["langs"])
        assert all(0 <= t < len(TAGS) for t in row["ner_tags"])


def test_bio_check_on_real_data():
    """The Thai release writes spaces as '#' tagged O, even inside names: I-PER after O is
    in the source, and the builder keeps tags as they are rather than 'fixing' them."""
    english = parse_rahimi(corpus("wikiann/rahimi_format_slices/en/test"), "en")
    assert all(is_valid_bio([TAGS[t] for t in r["ner_tags"]]) for r in english)
    th = parse_rahimi(corpus("wikiann/rahimi_format_slices/th/test"), "th")
    assert not is_valid_bio([TAGS[t] for t in th[0]["ner_tags"]]) and th[0]["tokens"][5] == "#"


# --- bad input: each error names the file, the place and the problem -------------------------

def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_truncated_squad_json(tmp_path):
    full = demo_file().read_text(encoding="utf-8")
    path = _write(tmp_path, "cut.json", full[: len(full) // 2])
    with pytest.raises(InputError, match=r"cut\.json, line \d+ column \d+: not valid JSON \(truncated"):
        parse_squad_json(path)


def test_squad_json_that_is_not_squad(tmp_path):
    with pytest.raises(InputError, match="expected an object with a 'data' list"):
        parse_squad_json(_write(tmp_path, "x.json", "[1, 2]"))


def test_answer_span_that_does_not_match_its_context(tmp_path):
    doc = json.loads(demo_file().read_text(encoding="utf-8"))
    qa = doc["data"][1]["paragraphs"][0]["qas"][2]
    qa["answers"][0]["answer_start"] += 3
    path = _write(tmp_path, "shifted.json", json.dumps(doc))
    with pytest.raises(InputError, match=rf"shifted\.json, article 2 .*question 3 \(id '{qa['id']}'\), answer 1: "
                                         "answer span does not match its context"):
        parse_squad_json(path)


def test_empty_question(tmp_path):
    doc = {"data": [{"title": "T", "paragraphs": [{"context": "Some text.", "qas": [
        {"id": "q1", "question": "  ", "answers": [{"text": "Some", "answer_start": 0}]}]}]}]}
    with pytest.raises(InputError, match=r"question 1 \(id 'q1'\): empty or missing 'question'"):
        parse_squad_json(_write(tmp_path, "empty.json", json.dumps(doc)))


def test_tsv_with_a_wrong_header(tmp_path):
    path = _write(tmp_path, "dev.tsv", "sentence\tlabel\nok\t1\n")
    with pytest.raises(InputError, match=r"dev\.tsv, line 1: wrong header: missing column\(s\) #1 String"):
        parse_glue_tsv("mrpc", path)


def test_tsv_row_with_missing_fields_and_unknown_label(tmp_path):
    path = _write(tmp_path, "dev.tsv", "index\tquestion\tsentence\tlabel\n0\tWho?\tHim.\tentailment\n1\tWhat?\n")
    with pytest.raises(InputError, match=r"dev\.tsv, line 3: 2 tab-separated fields, the header has 4"):
        parse_glue_tsv("qnli", path)
    path = _write(tmp_path, "dev2.tsv", "index\tquestion\tsentence\tlabel\n0\tWho?\tHim.\tmaybe\n")
    with pytest.raises(InputError, match=r"line 2: unknown label 'maybe'"):
        parse_glue_tsv("qnli", path)


def test_wikiann_bad_lines(tmp_path):
    with pytest.raises(InputError, match=r"line 2: unknown tag 'B-XYZ'"):
        parse_rahimi(_write(tmp_path, "a", "en:Hello\tO\nen:World\tB-XYZ\n"), "en")
    with pytest.raises(InputError, match=r"line 1: token 'de:Hallo' lacks the language prefix 'en:'"):
        parse_rahimi(_write(tmp_path, "b", "de:Hallo\tO\n"), "en")


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.tsv"
    path.write_bytes("sentence\tlabel\ncaf\xe9\t1\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1\.tsv, line 2: not UTF-8"):
        parse_glue_tsv("sst2", path)


def test_unknown_language_and_source():
    with pytest.raises(ConfigError, match="xquad has no language 'xx'"):
        load_source("xquad", "xx", data_file=demo_file())
    with pytest.raises(ConfigError, match="unknown source"):
        load_source("squad2", "en")


def test_hub_path_offline_gives_a_clear_error():
    with pytest.raises(ConfigError, match=r"Hub cannot be reached \(offline\?\) and rajpurkar/squad .*--data-file"):
        load_source("squad", "en")
