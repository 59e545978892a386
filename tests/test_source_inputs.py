"""Inputs are read by the rules of their format, and every bad input is a one-line error naming the
file, the row/line and the problem; nothing is silently wrong.

1. TSV (GLUE, XNLI) by Python's csv under GLUE's convention; only LF/CRLF end a row.
2. A labelled split must have its labels; only a test split may be unlabelled.
3. Values that would crash the parquet write are refused at load time.
4. A file that is not UTF-8 is an error with the line and the byte.
5. Duplicate ids are refused, for every source family.
6. An unreachable Hub is a clear error at once (no ~25 s of retries); tests never touch the network.
"""

from __future__ import annotations

import inspect
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import datasets
import huggingface_hub.constants
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisecraft.building.pipeline import ConfigRequest, build_config
from noisecraft.core import hub
from noisecraft.core.schema import to_features
from noisecraft.core.text_files import text_lines
from noisecraft.dataset.repo import DatasetRepo
from noisecraft.errors import ConfigError, InputError
from noisecraft.sources.base import tsv_rows
from noisecraft.sources.glue import TASKS, parse_glue_tsv
from noisecraft.sources.registry import ADAPTERS, demo_file, load_source
from noisecraft.sources.squad import parse_squad_json
from noisecraft.sources.wikiann import parse_rahimi
from noisecraft.sources.xnli import parse_xnli_tsv

from conftest import corpus

QNLI_HEADER = "index\tquestion\tsentence\tlabel"
XNLI_HEADER = ("language\tgold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\tsentence2_parse\t"
               "sentence1\tsentence2\tpromptID\tpairID\tgenre\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\t"
               "sentence1_tokenized\tsentence2_tokenized\tmatch")
#: Characters that ``str.splitlines`` treats as line breaks but a TSV row does not.
NOT_LINE_BREAKS = ["\u2028", "\u2029", "\x85", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e"]


def write(tmp_path: Path, name: str, text: str) -> Path:
    """A file with exactly these characters (no newline translation), UTF-8."""
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def qnli_file(tmp_path: Path, rows: list[tuple[str, str]], name: str = "dev.tsv", newline: str = "\n") -> Path:
    lines = [QNLI_HEADER] + [f"{i}\t{q}\t{s}\tentailment" for i, (q, s) in enumerate(rows)]
    return write(tmp_path, name, newline.join(lines) + newline)


def xnli_line(lang: str, premise: str, hypothesis: str, label: str = "neutral") -> str:
    return "\t".join([lang, label, "", "", "", "", premise, hypothesis, "1", "1", "fiction", label, "", "", "", "",
                      premise, hypothesis, "True"])


def one_line(exc: pytest.ExceptionInfo) -> str:
    """The error message, checked to be a single line (the CLI prints it as is)."""
    message = str(exc.value)
    assert "\n" not in message and "\r" not in message
    return message


# --- 1. TSV by the rules of the format ---------------------------------------------------------

sentences = st.builds(
    lambda before, breaks, after: f"x{before}{breaks}{after}",
    st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\t\n\r"), max_size=20),
    st.lists(st.sampled_from(NOT_LINE_BREAKS + ["\ufeff", '"', "'", "\\", "\x00"]), min_size=1, max_size=4).map("".join),
    st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\t\n\r"), max_size=20),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(sentences, min_size=1, max_size=5), newline=st.sampled_from(["\n", "\r\n"]))
def test_glue_sentences_round_trip_with_any_character_but_tab_and_line_ends(tmp_path, texts, newline):
    """U+2028, U+0085, form feeds, quotes, NUL... inside a sentence are text: every sentence comes
    back exactly, and an error after them still names the right line."""
    path = qnli_file(tmp_path, [(f"Q{i}?", text) for i, text in enumerate(texts)], newline=newline)
    rows = parse_glue_tsv("qnli", path)
    assert [r["sentence"] for r in rows] == texts
    assert [r["id"] for r in rows] == [str(i) for i in range(len(texts))]
    bad = path.read_bytes() + f"{len(texts)}\tWhy?{newline}".encode()
    path.write_bytes(bad)
    with pytest.raises(InputError, match=rf", line {len(texts) + 2}: 2 tab-separated fields, the header has 4$"):
        parse_glue_tsv("qnli", path)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(premise=sentences, hypothesis=sentences)
def test_xnli_sentences_round_trip(tmp_path, premise, hypothesis):
    path = write(tmp_path, "xnli.dev.tsv", "\n".join([XNLI_HEADER, xnli_line("de", "a", "b"),
                                                      xnli_line("en", premise, hypothesis), xnli_line("en", "c", "d")]))
    rows = parse_xnli_tsv(path, "en")
    assert [(r["premise"], r["hypothesis"]) for r in rows] == [(premise, hypothesis), ("c", "d")]


def test_line_numbers_stay_right_in_a_real_file(tmp_path):
    """The real QNLI dev set with a U+2028 and a U+0085 put into an early sentence: it reads whole, and a
    tab put into a late sentence is named by its own line (``splitlines`` drifted by one per such character)."""
    lines = corpus("glue/QNLI/dev.tsv").read_bytes().decode("utf-8").split("\n")
    lines[10] = lines[10].replace(" ", " \u2028", 1).replace(".", ".\x85", 1)
    rows = parse_glue_tsv("qnli", write(tmp_path, "dev.tsv", "\n".join(lines)))
    assert len(rows) == 5463 and rows[9]["question"] + "\t" + rows[9]["sentence"] in lines[10]
    assert "\u2028" in rows[9]["question"] + rows[9]["sentence"]
    lines[4000] = lines[4000].replace(" ", "\t", 1)
    with pytest.raises(InputError) as exc:
        parse_glue_tsv("qnli", write(tmp_path, "dev.tsv", "\n".join(lines)))
    assert one_line(exc).endswith("dev.tsv, line 4001: 5 tab-separated fields, the header has 4 (a tab inside a text?)")


def test_the_real_files_read_as_before():
    """Quotes are text (no quoting): MRPC's sentences that open a quotation keep it; the BOM of the
    real MRPC dev.tsv is not part of the first column name."""
    mrpc = parse_glue_tsv("mrpc", corpus("glue/MRPC/dev.tsv"))
    assert len(mrpc) == 408 and mrpc[0]["sentence2"].startswith('"The foodservice pie business')
    assert corpus("glue/MRPC/dev.tsv").read_bytes().startswith(b"\xef\xbb\xbfQuality\t")
    assert len(parse_glue_tsv("mrpc", corpus("glue/MRPC/test.tsv"), "test")) == 1725
    assert len(parse_glue_tsv("qnli", corpus("glue/QNLI/test.tsv"), "test")) == 5463
    assert len(parse_xnli_tsv(corpus("xnli/hf_dummy_XNLI-1.0/xnli.test.tsv"), "hi")) >= 1


def test_a_tab_inside_a_sentence_or_a_missing_field_names_the_line(tmp_path):
    path = write(tmp_path, "dev.tsv", f"{QNLI_HEADER}\n0\tWho?\tHim.\tentailment\n1\tWhat?\tA\tb.\tentailment\n")
    with pytest.raises(InputError, match=r"dev\.tsv, line 3: 5 tab-separated fields, the header has 4 \(a tab inside"):
        parse_glue_tsv("qnli", path)
    path = write(tmp_path, "x.tsv", f"{XNLI_HEADER}\n{xnli_line('en', 'a', 'b')[:-5]}\n")
    with pytest.raises(InputError, match=r"x\.tsv, line 2: 18 tab-separated fields, the header has 19$"):
        parse_xnli_tsv(path, "en")


def test_crlf_files_read_like_lf_files_and_a_stray_cr_is_an_error(tmp_path):
    rows = [("Who?", "Him."), ("What?", "That.")]
    crlf, lf = qnli_file(tmp_path, rows, "a.tsv", "\r\n"), qnli_file(tmp_path, rows, "b.tsv")
    assert parse_glue_tsv("qnli", crlf) == parse_glue_tsv("qnli", lf)
    path = qnli_file(tmp_path, [("Who?", "Him."), ("What?", "Th\rat.")], "c.tsv")
    with pytest.raises(InputError) as exc:
        parse_glue_tsv("qnli", path)
    assert one_line(exc).endswith("c.tsv, line 3: a carriage return (CR) inside the row: only LF or CRLF end a row")


def test_bom_blank_lines_and_header_problems(tmp_path):
    path = write(tmp_path, "bom.tsv", f"\ufeff{QNLI_HEADER}\n\n0\tWho?\tHim.\tentailment\n\n1\tWhat?\tThat.\tentailment\n\n")
    assert [r["idx"] for r in parse_glue_tsv("qnli", path)] == [0, 1]
    with pytest.raises(InputError, match=r"line 1: wrong header: column\(s\) question appear more than once"):
        parse_glue_tsv("qnli", write(tmp_path, "twice.tsv", f"{QNLI_HEADER}\tquestion\n"))
    with pytest.raises(InputError, match=r"empty\.tsv: empty file: expected a header line"):
        parse_glue_tsv("qnli", write(tmp_path, "empty.tsv", ""))
    with pytest.raises(InputError, match=r"gap\.tsv, line 1: empty first line"):
        parse_glue_tsv("qnli", write(tmp_path, "gap.tsv", f"\n{QNLI_HEADER}\n"))
    with pytest.raises(InputError, match=r"head\.tsv: no rows after the header"):
        parse_glue_tsv("qnli", write(tmp_path, "head.tsv", f"{QNLI_HEADER}\n"))


def test_tsv_rows_are_streamed(tmp_path):
    """Rows come one by one: those before a broken line are given before the error is raised."""
    path = write(tmp_path, "s.tsv", "a\tb\n1\t2\n3\t4\n5\n")
    rows = tsv_rows(path, ("a", "b"))
    assert next(rows) == (2, {"a": "1", "b": "2"}) and next(rows) == (3, {"a": "3", "b": "4"})
    with pytest.raises(InputError, match="line 4"):
        next(rows)


def test_text_lines_split_only_at_line_feeds(tmp_path):
    path = write(tmp_path, "t.txt", "\ufeffa\u2028b\r\nc\x85d\x0ce\rf\n\ng")
    assert list(text_lines(path)) == [(1, "a\u2028b"), (2, "c\x85d\x0ce\rf"), (3, ""), (4, "g")]


def test_wikiann_line_numbers_and_odd_characters(tmp_path):
    """A U+2028 or form feed inside a token is that line's error (a token holds no whitespace), and
    the lines after it keep their numbers."""
    with pytest.raises(InputError) as exc:
        parse_rahimi(write(tmp_path, "a", "en:Hello\tO\nen:Wor\u2028ld\tO\n"), "en")
    assert one_line(exc).endswith("a, line 2: empty token or token with whitespace: 'Wor\\u2028ld'")
    with pytest.raises(InputError, match=r"b, line 4: unknown tag 'B-XYZ'"):
        parse_rahimi(write(tmp_path, "b", "en:Hello\tO\r\nen:World\tO\r\n\r\nen:Bad\tB-XYZ\r\n"), "en")
    rows = parse_rahimi(write(tmp_path, "c", "en:Ada\tB-PER\r\nen:Lovelace\tI-PER\r\n\r\nen:Hi\tO\r\n"), "en")
    assert [r["tokens"] for r in rows] == [["Ada", "Lovelace"], ["Hi"]]


# --- 2. a labelled split needs its labels -------------------------------------------------------

def _glue_file(tmp_path: Path, task: str, label_column: str | None) -> Path:
    spec = TASKS[task]
    columns = list(spec.tsv_columns) + ([label_column] if label_column else [])
    values = [f"Text {i}." for i in range(len(spec.tsv_columns))] + (["1"] if label_column else [])
    return write(tmp_path, f"{task}.tsv", "\t".join(columns) + "\n" + "\t".join(values) + "\n")


@pytest.mark.parametrize("task", sorted(TASKS))
def test_a_renamed_label_column_is_an_error_for_a_labelled_split(tmp_path, task):
    label = TASKS[task].tsv_label
    assert [r["label"] for r in parse_glue_tsv(task, _glue_file(tmp_path, task, label))] == [1]
    path = _glue_file(tmp_path, task, "labels")
    with pytest.raises(InputError) as exc:
        load_source(f"glue/{task}", "en", data_file=path)
    message = one_line(exc)
    assert f"{task}.tsv, line 1: wrong header: missing column(s) {label};" in message
    assert f"the {TASKS[task].default_split!r} split must be labelled; only a test split may come without" in message


@pytest.mark.parametrize("split", ["test", "test_matched", "test_mismatched"])
def test_only_a_test_split_may_be_unlabelled(tmp_path, split):
    data = load_source("glue/mnli", "en", split, data_file=_glue_file(tmp_path, "mnli", None))
    assert [r["label"] for r in data.rows] == [-1] and data.split == split


def test_the_real_unlabelled_test_file_needs_split_test():
    path = corpus("glue/SST-2/test.tsv")
    assert {r["label"] for r in load_source("glue/sst2", "en", "test", data_file=path).rows} == {-1}
    with pytest.raises(InputError, match=r"test\.tsv, line 1: wrong header: missing column\(s\) label; .*--split test"):
        load_source("glue/sst2", "en", data_file=path)
    with pytest.raises(InputError, match="'train' split must be labelled"):
        load_source("glue/sst2", "en", "train", data_file=path)


def test_xnli_needs_its_gold_label(tmp_path):
    path = write(tmp_path, "x.tsv", XNLI_HEADER.replace("gold_label", "gold") + "\n")
    with pytest.raises(InputError, match=r"x\.tsv, line 1: wrong header: missing column\(s\) gold_label"):
        load_source("xnli", "en", "test", data_file=path)


def test_every_adapter_reads_files_for_a_split():
    for name, adapter in ADAPTERS.items():
        assert list(inspect.signature(adapter.read_file).parameters) == ["path", "lang", "split"], name


# --- 3. values that would crash the parquet write -----------------------------------------------

def squad_doc(**qa_changes) -> dict:
    qa = {"id": "q1", "question": "Who?", "answers": [{"text": "Ada", "answer_start": 0}], **qa_changes}
    return {"version": "1.1", "data": [{"title": "T", "paragraphs": [{"context": "Ada wrote it.", "qas": [qa]}]}]}


def squad_file(tmp_path: Path, doc: object, name: str = "s.json") -> Path:
    return write(tmp_path, name, json.dumps(doc))


QA_WHERE = r"s\.json, article 1 \('T'\), paragraph 1, question 1 \(id 'q1'\)"


@pytest.mark.parametrize(("start", "problem"), [
    (True, "expected 'text' (string) and 'answer_start' (integer), got str and bool"),
    (2**31, "answer_start 2147483648 is not an offset in [0, 2**31)"),
    (-1, "answer_start -1 is not an offset in [0, 2**31)"),
    ("0", "expected 'text' (string) and 'answer_start' (integer), got str and str"),
    (0.0, "expected 'text' (string) and 'answer_start' (integer), got str and float"),
])
def test_answer_start_must_be_an_int32_offset(tmp_path, start, problem):
    path = squad_file(tmp_path, squad_doc(answers=[{"text": "", "answer_start": start}]))
    with pytest.raises(InputError) as exc:
        parse_squad_json(path)
    assert one_line(exc).endswith(f"question 1 (id 'q1'), answer 1: {problem}")


def test_answer_start_out_of_int32_would_crash_the_write():
    """Why the check is there: the int32 column refuses it, far from the file and row."""
    with pytest.raises((pa.ArrowInvalid, OverflowError)):
        pa.array([2**31], type=pa.int32())
    with pytest.raises(UnicodeEncodeError):
        pa.array(["\ud800"])


def test_empty_answer_text(tmp_path):
    with pytest.raises(InputError, match=QA_WHERE + ", answer 1: empty answer text"):
        parse_squad_json(squad_file(tmp_path, squad_doc(answers=[{"text": "", "answer_start": 99}])))


@pytest.mark.parametrize("where", ["question", "context", "title", "answer", "id"])
def test_a_lone_surrogate_is_refused_with_its_place(tmp_path, where):
    doc = squad_doc()
    article = doc["data"][0]
    qa = article["paragraphs"][0]["qas"][0]
    if where == "question":
        qa["question"] = "Who\ud800?"
    elif where == "context":
        article["paragraphs"][0]["context"] = "Ada wrote it.\udfff"
    elif where == "title":
        article["title"] = "T\ud83d"
    elif where == "answer":
        article["paragraphs"][0]["context"] = "Ada\udc00 wrote it."
        qa["answers"] = [{"text": "Ada\udc00", "answer_start": 0}]
    else:
        qa["id"] = "q\ud800"
    path = write(tmp_path, "s.json", json.dumps(doc))  # json.dumps writes them as \udXXX escapes, as in the wild
    assert "\\ud" in path.read_text(encoding="utf-8")
    with pytest.raises(InputError, match=r"s\.json, .*holds a lone surrogate U\+D[89A-F][0-9A-F]{2} at character \d+") as exc:
        parse_squad_json(path)
    one_line(exc)


def test_deeply_nested_json_is_an_error_with_its_place(tmp_path):
    """200,000 nested arrays (RecursionError inside ``json``): named by the place where the nesting
    passes 64 levels, the 62nd '[' on line 2 (three levels are open before it)."""
    depth, prefix = 200_000, '{"title": "T", "paragraphs": '
    path = write(tmp_path, "deep.json", '{"data": [\n' + prefix + "[" * depth + "]" * depth + "}]}")
    with pytest.raises(InputError) as exc:
        parse_squad_json(path)
    assert one_line(exc).startswith(f"{path}, line 2 column {len(prefix) + 62}: JSON nested too deeply to read")


@pytest.mark.parametrize(("doc", "where", "problem"), [
    ([1, 2], "top level", "not a SQuAD file: expected an object with a 'data' list"),
    ({"data": [["x"]]}, "article 1", "expected an object with a 'paragraphs' list"),
    ({"data": [{"title": "T", "paragraphs": ["text"]}]}, "article 1 ('T'), paragraph 1",
     "expected an object with 'context' and a 'qas' list"),
    ({"data": [{"title": "T", "paragraphs": [{"context": "c", "qas": [7]}]}]}, "article 1 ('T'), paragraph 1, question 1",
     "expected an object, got int"),
    (squad_doc(answers=["Ada"]), "question 1 (id 'q1'), answer 1",
     "expected an object with 'text' and 'answer_start', got str"),
    (squad_doc(answers={"text": "Ada"}), "question 1 (id 'q1')", "missing 'answers' list"),
    ({"data": [{"title": ["T"], "paragraphs": []}]}, "article 1", "'title' must be a string, got list"),
    (squad_doc(is_impossible=True, answers=[]), "question 1 (id 'q1')", "unanswerable question (SQuAD 2.0"),
])
def test_a_non_object_where_an_object_is_expected(tmp_path, doc, where, problem):
    with pytest.raises(InputError) as exc:
        parse_squad_json(squad_file(tmp_path, doc))
    message = one_line(exc)
    assert f"{where}: {problem}" in message and message.startswith(str(tmp_path / "s.json"))


@pytest.mark.parametrize(("value", "problem"), [
    ("x", "'index' must be a non-negative integer below 2**31, got 'x'"),
    ("2147483648", "'index' must be a non-negative integer below 2**31, got '2147483648'"),
    ("\u00b2", "'index' must be a non-negative integer below 2**31, got '\u00b2'"),
])
def test_glue_index_must_fit_the_int32_idx(tmp_path, value, problem):
    path = write(tmp_path, "dev.tsv", f"{QNLI_HEADER}\n0\tWho?\tHim.\tentailment\n{value}\tWhat?\tThat.\tentailment\n")
    with pytest.raises(InputError) as exc:
        parse_glue_tsv("qnli", path)
    assert one_line(exc).endswith(f"dev.tsv, line 3: {problem}")


def test_a_unicode_digit_label_is_an_error_not_a_crash(tmp_path):
    path = write(tmp_path, "dev.tsv", "sentence\tlabel\nfine .\t\u00b9\n")
    with pytest.raises(InputError, match=r"dev\.tsv, line 2: unknown label '\u00b9'"):
        parse_glue_tsv("sst2", path)


def test_every_real_squad_file_still_reads():
    for lang in ("en", "de", "th", "zh"):
        assert len(parse_squad_json(corpus(f"xquad/xquad.{lang}.json"))) == 1190
    assert len(parse_squad_json(corpus("squad/allennlp_fixture_squad_v1.1.json"))) >= 1
    assert len(parse_squad_json(demo_file())) == 41


# --- 4. encodings: decided per file and said ------------------------------------------------------

def test_a_latin1_tsv_is_an_error_with_line_and_byte(tmp_path):
    path = tmp_path / "latin1.tsv"
    data = "sentence\tlabel\nfine .\t1\ncaf\xe9 .\t1\n".encode("latin-1")
    path.write_bytes(data)
    with pytest.raises(InputError) as exc:
        parse_glue_tsv("sst2", path)
    assert one_line(exc).endswith(f"latin1.tsv, line 3: not UTF-8 text (byte {data.index(0xE9)}, 0xe9; latin-1 or "
                                  "cp1252?): convert the file to UTF-8")


def test_byte_offsets_count_the_bom_and_every_reader_says_it(tmp_path):
    data = "\ufeffen:Hello\tO\nen:Caf".encode() + b"\xe9\tO\n"
    path = tmp_path / "wikiann"
    path.write_bytes(data)
    with pytest.raises(InputError, match=rf"wikiann, line 2: not UTF-8 text \(byte {data.index(0xE9)}, 0xe9"):
        parse_rahimi(path, "en")
    json_path = tmp_path / "s.json"
    data = b'\xef\xbb\xbf{"data": [\n{"title": "Caf\xe9"}]}'
    json_path.write_bytes(data)
    with pytest.raises(InputError, match=rf"s\.json, line 2: not UTF-8 text \(byte {data.index(0xE9)}, 0xe9"):
        parse_squad_json(json_path)
    xnli = tmp_path / "x.tsv"
    xnli.write_bytes(f"{XNLI_HEADER}\n{xnli_line('en', 'a', 'b')}\n".encode() + xnli_line("en", "\x00", "b").encode()
                     .replace(b"\x00", b"\x93quoted\x94"))
    with pytest.raises(InputError, match=r"x\.tsv, line 3: not UTF-8 text \(byte \d+, 0x93; latin-1 or cp1252\?\)"):
        parse_xnli_tsv(xnli, "en")


def test_a_utf16_file_is_named_as_such(tmp_path):
    path = tmp_path / "dev.tsv"
    path.write_bytes("sentence\tlabel\nfine .\t1\n".encode("utf-16"))
    with pytest.raises(InputError, match=r"dev\.tsv, line 1: not UTF-8 text \(byte 0, 0xff; the file starts with a UTF-16 "
                                         "byte order mark\\)"):
        parse_glue_tsv("sst2", path)


# --- 5. duplicate ids, per source family ----------------------------------------------------------

def _build(tmp_path: Path, source: str, data_file: Path | None = None, lang: str = "en", split: str | None = None):
    request = ConfigRequest(source=source, lang=lang, noise="swap", data_file=data_file, split=split)
    return build_config(DatasetRepo(tmp_path / "out", "1.0.0"), request, progress=False)


def _fake_hub(monkeypatch: pytest.MonkeyPatch, rows: list[dict], features: datasets.Features) -> None:
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: datasets.Dataset.from_list(rows, features=features))


def test_glue_repeated_index_in_a_file(tmp_path):
    path = write(tmp_path, "dev.tsv", f"{QNLI_HEADER}\n0\tWho?\tHim.\tentailment\n1\tWhy?\tSo.\tentailment\n"
                                      f"1\tWhat?\tThat.\tentailment\n")
    with pytest.raises(InputError) as exc:
        _build(tmp_path, "glue/qnli", path)
    assert one_line(exc).endswith("dev.tsv, line 4: duplicate index 1 (first on line 3): every row needs its own id")


def test_glue_repeated_idx_on_the_hub(tmp_path, monkeypatch):
    data = load_source("glue/qnli", "en", data_file=corpus("glue_slices_fastnlp/QNLI/dev.tsv"))
    rows = [{k: v for k, v in r.items() if k != "id"} for r in data.rows]
    rows[2]["idx"] = rows[1]["idx"]
    _fake_hub(monkeypatch, rows, datasets.Features({k: v for k, v in data.features.items() if k != "id"}))
    with pytest.raises(InputError) as exc:
        _build(tmp_path, "glue/qnli")
    assert one_line(exc).endswith("nyu-mll/glue, row 3: duplicate id '1': every row needs its own random stream")


def test_squad_repeated_id_in_a_file_and_on_the_hub(tmp_path, monkeypatch):
    doc = json.loads(demo_file().read_text(encoding="utf-8"))
    qas = doc["data"][0]["paragraphs"][0]["qas"]
    qas[1]["id"] = qas[0]["id"]
    with pytest.raises(InputError) as exc:
        _build(tmp_path, "squad", squad_file(tmp_path, doc))
    assert f"question 2 (id {qas[0]['id']!r}): duplicate question id (first at article 1" in one_line(exc)
    rows = [{k: r[k] for k in ("id", "title", "context", "question", "answers")}
            for r in parse_squad_json(demo_file())]
    rows[5]["id"] = rows[4]["id"]
    _fake_hub(monkeypatch, rows, to_features(ADAPTERS["squad"].feature_spec()))
    with pytest.raises(InputError) as exc:
        _build(tmp_path, "squad")
    assert one_line(exc).endswith(f"rajpurkar/squad, row 6: duplicate id {rows[4]['id']!r}: every row needs its own "
                                  "random stream")


def test_xnli_and_wikiann_ids_are_positions_so_repeated_rows_stay_distinct(tmp_path):
    """Neither release has an id column: ids are positions (as on the Hub), so a repeated row is two
    rows with their own random streams, never a clash."""
    same = xnli_line("en", "A premise here.", "A hypothesis here.")
    xnli = write(tmp_path, "x.tsv", f"{XNLI_HEADER}\n{same}\n{same}\n")
    assert [r["id"] for r in load_source("xnli", "en", "test", data_file=xnli).rows] == ["0", "1"]
    assert _build(tmp_path / "x", "xnli", xnli, split="test").stats["rows_in"] == 2
    wikiann = write(tmp_path, "wikiann.txt", "en:Same\tO\nen:words\tO\n\nen:Same\tO\nen:words\tO\n")
    assert [r["id"] for r in load_source("wikiann", "en", data_file=wikiann).rows] == ["0", "1"]
    assert _build(tmp_path / "w", "wikiann", wikiann).stats["rows_in"] == 2


# --- 6. the Hub: fail fast and clearly when it cannot be reached -----------------------------------

def fake_probe(monkeypatch: pytest.MonkeyPatch, reachable: bool, calls: list | None = None) -> None:
    """Replace the one function that touches the network (the TCP probe) by a given answer."""

    class Answer:
        def result(self) -> bool:
            return reachable

    def probe(address, timeout):
        if calls is not None:
            calls.append((address, timeout))
        return Answer()

    monkeypatch.setattr(hub, "probe", probe)


@pytest.fixture
def no_probe(monkeypatch):
    """Any attempt to probe the network fails the test."""

    def forbidden(*args, **kwargs):
        raise AssertionError("the network must not be probed here")

    monkeypatch.setattr(hub, "probe", forbidden)


@pytest.fixture
def online_settings(monkeypatch):
    """As on a user's machine: HF_HUB_OFFLINE not set (the probe decides)."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)


def no_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """A retry waits between attempts: any sleep fails the test (no timing, so a loaded machine cannot fail it)."""

    def sleep(seconds: float) -> None:
        raise AssertionError(f"slept {seconds} s: retrying instead of failing fast")

    monkeypatch.setattr(time, "sleep", sleep)


def test_offline_setting_means_no_probe_and_a_fast_clear_error(no_probe, monkeypatch):
    assert hub.offline_by_setting() and not hub.hub_available()
    no_retries(monkeypatch)
    with pytest.raises(ConfigError) as exc:
        load_source("glue/mrpc", "en")
    assert one_line(exc).startswith("the Hugging Face Hub cannot be reached (offline?) and nyu-mll/glue (mrpc) split "
                                    "'validation' cannot be loaded from the local datasets cache: pass data_file= / --data-file")


def test_unreachable_hub_loads_in_offline_mode_and_fails_fast(monkeypatch, online_settings):
    probes: list = []
    fake_probe(monkeypatch, False, probes)
    seen = []

    def fake_load_dataset(*args, **kwargs):
        seen.append((huggingface_hub.constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE))
        raise ConnectionError("Couldn't reach 'nyu-mll/glue' on the Hub (OfflineModeIsEnabled)")

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    no_retries(monkeypatch)
    with pytest.raises(ConfigError) as exc:
        load_source("glue/mrpc", "en")
    assert "cannot be reached (offline?)" in one_line(exc) and "--data-file" in str(exc.value)
    assert seen == [(True, True)] and set(probes) == {(("huggingface.co", 443), hub.PROBE_TIMEOUT)}
    assert (huggingface_hub.constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE) == (False, False)  # restored


def test_unreachable_hub_still_serves_the_local_datasets_cache(tmp_path, monkeypatch, online_settings):
    """A dataset in the local datasets cache loads with the Hub unreachable (really loaded by
    ``datasets`` from a cache laid out as it lays one out), and another is the clear error."""
    from datasets.packaged_modules.json.json import Json

    fake_probe(monkeypatch, False)
    source = write(tmp_path, "rows.jsonl", json.dumps({"sentence1": "A b.", "sentence2": "C d.", "label": 1, "idx": 0}))
    cache = tmp_path / "cache"
    Json(dataset_name="glue", config_name="mrpc", data_files={"validation": str(source)}, cache_dir=str(cache),
         hash="0123abcd").download_and_prepare()
    [built] = (cache / "glue").iterdir()
    built.rename(cache / "glue" / "mrpc")
    (cache / "glue").rename(cache / "nyu-mll___glue")
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache)
    data = load_source("glue/mrpc", "en")
    assert [r["sentence1"] for r in data.rows] == ["A b."] and data.commit is None
    with pytest.raises(ConfigError, match=r"cannot be reached .* nyu-mll/glue \(qnli\) split 'validation' cannot be "
                                          r"loaded from the local datasets cache: pass data_file= / --data-file"):
        load_source("glue/qnli", "en")


def test_reachable_hub_uses_the_real_calls(monkeypatch, online_settings):
    fake_probe(monkeypatch, True)
    data = load_source("glue/mrpc", "en", data_file=corpus("glue/MRPC/dev.tsv"))
    features = datasets.Features({k: v for k, v in data.features.items() if k != "id"})
    modes = []

    def fake_load_dataset(*args, **kwargs):
        modes.append(huggingface_hub.constants.HF_HUB_OFFLINE)
        return datasets.Dataset.from_list([{k: v for k, v in r.items() if k != "id"} for r in data.rows], features=features)

    class FakeApi:
        def dataset_info(self, hub_id, revision=None, timeout=None):
            return type("Info", (), {"sha": f"sha-of-{hub_id}-{revision}"})()

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    loaded = load_source("glue/mrpc", "en", revision="v1")
    assert modes == [False] and loaded.commit == "sha-of-nyu-mll/glue-v1" and len(loaded.rows) == 408


def test_probe_connects_once_per_process_and_is_bounded(monkeypatch):
    hub.probe.cache_clear()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        address = server.getsockname()
        assert hub.endpoint_reachable(address, 1.0) is True
    assert hub.endpoint_reachable(address, 1.0) is True  # cached: the server is gone
    hub.probe.cache_clear()
    assert hub.endpoint_reachable(address, 1.0) is False  # nothing listens there now

    release = threading.Event()

    def hanging(*args, **kwargs):
        release.wait(60)  # a DNS lookup or a dropped SYN that the socket timeout does not cut short
        raise OSError("timed out")

    monkeypatch.setattr(socket, "create_connection", hanging)
    # the answer comes while the connection attempt still hangs (it is released only afterwards)
    assert hub.endpoint_reachable(("hub.invalid", 443), 0.2) is False and not release.is_set()
    release.set()
    hub.probe.cache_clear()


def test_probe_address_follows_endpoint_and_proxy(monkeypatch):
    for name in ("https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", "https://hub.example.org:8443")
    assert hub.endpoint_address() == ("hub.example.org", 8443)
    monkeypatch.setenv("https_proxy", "http://proxy.example.org:3128")
    assert hub.endpoint_address() == ("proxy.example.org", 3128)
    monkeypatch.setenv("no_proxy", "example.org")
    assert hub.endpoint_address() == ("hub.example.org", 8443)


def test_cli_without_offline_setting_fails_fast_when_the_hub_is_unreachable(tmp_path):
    """The whole command, with HF_HUB_OFFLINE unset and the Hub endpoint a closed local port (so no
    real network is touched): a clear one-line error well before datasets' ~25 s of retries."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again when the block ends: connections are refused
    env = {k: v for k, v in os.environ.items()
           if k not in {"HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"} and "proxy" not in k.lower()}
    env.update(HF_ENDPOINT=f"http://127.0.0.1:{port}", HF_HOME=str(tmp_path / "hf-home"))
    result = subprocess.run([sys.executable, "-m", "noisecraft.cli", "build", "--source", "glue/mrpc", "--out",
                             str(tmp_path / "out"), "--no-progress"], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode != 0 and not (tmp_path / "out").exists()
    [message] = result.stderr.strip().splitlines()
    assert message.startswith("noisecraft: error: the Hugging Face Hub cannot be reached (offline?) and nyu-mll/glue (mrpc) "
                              "split 'validation' cannot be loaded from the local datasets cache: pass data_file= / --data-file "
                              "with a local copy in the original release format")
    # no retries: the in-process tests above forbid sleeping; here the 120 s limit only guards against a hang
