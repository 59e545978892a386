"""Local source files are streamed: a build reads rows as it hands out batches, every row is checked as it is read,
and the rows and one-line errors are those of a whole-file read."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from recording_model import SEEN, Recorder

import noisecraft as nc
from noisecraft.building.noising import NoiseJob, prepare_field
from noisecraft.building.pipeline import output_features, run_batches
from noisecraft.core.schema import arrow_schema
from noisecraft.errors import InputError
from noisecraft.sources import squad
from noisecraft.sources.base import FileRows, SourceData
from noisecraft.sources.glue import glue_features, glue_info
from noisecraft.sources.registry import demo_file, load_source

from conftest import corpus

QNLI_HEADER = "index\tquestion\tsentence\tlabel"


def qnli_file(path: Path, rows: int, bad_line: int | None = None) -> Path:
    """A QNLI dev file of ``rows`` rows; line ``bad_line`` (if given) has an unknown label."""
    lines = [QNLI_HEADER]
    for i in range(rows):
        label = "maybe" if i + 2 == bad_line else "entailment"
        lines.append(f"{i}\tWhat is row {i}?\tRow {i} is a sentence.\t{label}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_build_reads_rows_as_it_hands_out_batches(tmp_path):
    path = qnli_file(tmp_path / "dev.tsv", 500)
    read = []

    def counted():
        for row in load_source("glue/qnli", "en", data_file=path).rows:
            read.append(row["id"])
            yield row

    data = SourceData(glue_info("qnli"), "en", "validation", str(path), FileRows(counted), glue_features("qnli"))
    model = nc.noise("keyboard")
    job = NoiseJob(model, 0, ("sentence",), data.info.labels)
    results = run_batches(job, data, arrow_schema(output_features(data.feature_spec, job.fields, model)), 1, 10,
                          progress=False)
    first = next(results)
    assert first.stats.rows_in == 10 and len(read) <= 20  # the batch handed out, and the one read to see a second
    assert sum(r.stats.rows_in for r in results) == 490 and len(read) == 500


def test_a_streamed_file_is_checked_at_load_from_its_start_and_by_the_build_to_its_end(tmp_path):
    with pytest.raises(InputError, match=r"dev\.tsv, line 2: unknown label 'maybe'"):
        load_source("glue/qnli", "en", data_file=qnli_file(tmp_path / "dev.tsv", 50, bad_line=2))
    late = qnli_file(tmp_path / "late.tsv", 3000, bad_line=2900)
    data = load_source("glue/qnli", "en", data_file=late)  # the first rows are fine: nothing is read beyond them yet
    with pytest.raises(InputError) as exc:
        nc.build("glue/qnli", "keyboard", tmp_path / "out", data_file=late, num_proc=2, batch_size=100, progress=False)
    assert str(exc.value) == f"{late}, line 2900: unknown label 'maybe'; expected one of entailment, not_entailment"
    assert not (tmp_path / "out" / "glue-qnli-en-keyboard").exists()  # nothing half-written is left
    with pytest.raises(InputError, match="line 2900"):
        list(data.rows)


def test_every_iteration_reads_the_file_again_in_file_order(tmp_path):
    data = load_source("glue/qnli", "en", data_file=qnli_file(tmp_path / "dev.tsv", 25))
    assert not hasattr(data.rows, "__len__")  # counting would read the file: a build never does
    first, second = list(data.rows), list(data.rows)
    assert first == second and [r["idx"] for r in first] == list(range(25))


def test_a_streamed_file_gives_the_same_bytes_for_any_num_proc_and_batch_size(tmp_path):
    path = qnli_file(tmp_path / "dev.tsv", 1200)
    paths = []
    for name, num_proc, batch_size in (("a", 1, 5000), ("b", 2, 97), ("c", 2, 1000)):
        [built] = nc.build("glue/qnli", "keyboard", tmp_path / name, data_file=path, num_proc=num_proc,
                           batch_size=batch_size, progress=False)
        paths.append(built.path)
    tables = [pq.read_table(p) for p in paths]
    assert tables[0].num_rows == 1200 and all(t.equals(tables[0]) for t in tables[1:])
    assert len({p.read_bytes() for p in paths}) == 1


def test_a_models_first_pass_reads_a_stream_once_and_sees_every_input_in_order(tmp_path):
    path = qnli_file(tmp_path / "dev.tsv", 2500)
    rows = load_source("glue/qnli", "en", data_file=path).rows
    whole = list(rows)
    job = NoiseJob(Recorder(), 0, ("sentence",), glue_info("qnli").labels)
    SEEN.clear()
    prepare_field(job, rows, "sentence", progress=False)
    prepare_field(job, whole, "sentence", progress=False)
    [(kind, streamed), (_, listed)] = SEEN
    fields = ("texts", "ids", "protected", "labels", "pairs")
    assert kind == "prepare" and [getattr(streamed, f) for f in fields] == [getattr(listed, f) for f in fields]
    assert list(streamed.texts) == [r["sentence"] for r in whole] and list(streamed.ids) == [r["id"] for r in whole]
    assert list(streamed.labels) == [0] * 2500 and streamed.pairs[1].first == whole[1]["question"]


# --- SQuAD: the plain path (no error locations composed) and the checked path agree -----------------------------

def _outcome(path: Path) -> tuple[str, object]:
    try:
        return "rows", squad.parse_squad_json(path)
    except InputError as exc:
        return "error", str(exc)


def _both_paths(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple[str, object], tuple[str, object]]:
    plain = _outcome(path)
    with monkeypatch.context() as patch:
        patch.setattr(squad, "_plain_paragraph_rows", lambda *args: None)  # every paragraph on the checked path
        checked = _outcome(path)
    return plain, checked


VALUES = [None, 0, 1, True, -1, 2**31, 1.5, "", " ", "x", "\ud800", "a\udc00b", [], {}, [1], {"text": "x"}]


def _places(node: object) -> list[tuple[object, object]]:
    """Every ``(container, key)`` of a JSON document, depth first."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    return [place for key, value in items for place in [(node, key), *_places(value)]]


def _mutated(doc: dict, rng: random.Random) -> dict:
    """``doc`` with one to three random changes: a value replaced or deleted, a span shifted, an id repeated."""
    ids = [qa["id"] for article in doc["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]
    doc = copy.deepcopy(doc)
    for _ in range(rng.choice((1, 1, 2, 3))):
        parent, key = rng.choice(_places(doc))
        value, roll = parent[key], rng.random()
        if roll < 0.15 and isinstance(parent, dict):
            del parent[key]
        elif roll < 0.3 and key == "id":
            parent[key] = rng.choice(ids)
        elif roll < 0.4 and key == "answer_start" and type(value) is int:
            parent[key] = value + rng.choice((-1, 1))
        elif roll < 0.45 and isinstance(value, str):
            parent[key] = value + "\udc80"
        elif roll < 0.5 and isinstance(parent, dict):
            parent["is_impossible"] = True
        else:
            parent[key] = copy.deepcopy(rng.choice(VALUES))
    return doc


def test_the_plain_and_checked_squad_paths_give_the_same_rows_and_errors(tmp_path, monkeypatch):
    doc = json.loads(demo_file().read_text(encoding="utf-8"))
    rng = random.Random(22)
    path = tmp_path / "squad.json"
    kinds = set()
    for _ in range(300):
        path.write_text(json.dumps(_mutated(doc, rng)), encoding="utf-8")
        plain, checked = _both_paths(path, monkeypatch)
        assert plain == checked
        kinds.add(plain[0] if plain[0] == "rows" else plain[1].split(": ", 1)[1][:25])
    assert "rows" in kinds and len(kinds) > 15  # many different problems were met, and some files were fine


@pytest.mark.parametrize("name", ["xquad/xquad.en.json", "xquad/xquad.th.json", "xquad/xquad.zh.json",
                                  "squad/allennlp_fixture_squad_v1.1.json"])
def test_real_squad_files_read_the_same_on_both_paths(monkeypatch, name):
    plain, checked = _both_paths(corpus(name), monkeypatch)
    assert plain == checked and plain[0] == "rows"


def test_a_duplicate_question_id_names_where_it_was_first_seen(tmp_path):
    doc = json.loads(demo_file().read_text(encoding="utf-8"))
    first = doc["data"][0]["paragraphs"][0]["qas"][0]
    doc["data"][-1]["paragraphs"][-1]["qas"][-1]["id"] = first["id"]
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    title = doc["data"][0]["title"]
    with pytest.raises(InputError, match=rf"duplicate question id \(first at article 1 \({title!r}\), paragraph 1, "
                                         rf"question 1 \(id {first['id']!r}\)\)"):
        squad.parse_squad_json(path)



# --- SQuAD: articles parsed one at a time give what a whole-document parse gives ---------------------------------

def _whole_document(path: Path) -> tuple[str, object]:
    """The reference: ``json.loads`` of the whole text, then the same checks and rows (what squad_rows did before it
    parsed article by article)."""
    text = path.read_text(encoding="utf-8")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        return "error", f"{path}, line {exc.lineno} column {exc.colno}: not valid JSON (truncated or corrupt?): {exc.msg}"
    if not (isinstance(doc, dict) and isinstance(doc.get("data"), list)):
        return "error", f"{path}, top level: not a SQuAD file: expected an object with a 'data' list"
    seen: dict = {}
    try:
        rows = [row for a, article in enumerate(doc["data"], start=1) for row in squad._article_rows(path, a, article, seen)]
    except InputError as exc:
        return "error", str(exc)
    return ("rows", rows) if rows else ("error", f"{path}, top level: no questions found")


def _texts(rng: random.Random) -> list[str]:
    """SQuAD texts that are valid, truncated, or corrupted by one character, and other top levels."""
    full = demo_file().read_text(encoding="utf-8")
    doc = json.loads(full)
    small = {"data": doc["data"][:2], "version": "1.1"}
    texts = [json.dumps(small), json.dumps({"version": "1.1", **small}), json.dumps(small, indent=2),
             " \n" + json.dumps(small) + " \n", json.dumps({"data": []}), "{}", "[]", "{ }", '{"data": 3}',
             '{"data": [], "data": []}', json.dumps(small) + " x", json.dumps(small) + "{}", '"text"', "",
             '{"data": [1, 2]', '{"data": [{}], "v": [}', '{"data" [', '{"data": [] "x": 1}', '{"a": 1,}', '{,}',
             "\t{\r\n}\n"]
    compact = json.dumps(small)
    for _ in range(150):
        cut = rng.randrange(len(compact))
        texts.append(compact[:cut])
        char = rng.choice('{}[],:" x0\n')
        texts.append(compact[:cut] + char + compact[cut + rng.choice((0, 1)):])
    return texts


def test_articles_parsed_one_at_a_time_read_as_the_whole_document(tmp_path):
    path = tmp_path / "s.json"
    kinds = set()
    for text in _texts(random.Random(25)):
        path.write_text(text, encoding="utf-8")
        expected = _whole_document(path)
        try:
            got: tuple[str, object] = ("rows", squad.parse_squad_json(path))
        except InputError as exc:
            got = ("error", str(exc))
        if expected[0] == "error" and "not valid JSON" in str(expected[1]) and got[0] == "error":
            # an error of the SQuAD structure met in an article before the text goes wrong comes first now
            assert got == expected or "not valid JSON" not in str(got[1]), (text, got, expected)
        elif text.count('"data"') > 1 and got[0] == "error":
            assert "has 'data' twice" in str(got[1]), text
        else:
            assert got == expected, text
        kinds.add(got[0] if got[0] == "rows" else str(got[1]).split(": ", 1)[1][:30])
    assert "rows" in kinds and len(kinds) > 8, kinds
