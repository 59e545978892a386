"""Any table (CSV, TSV, JSONL, Parquet) or Hub dataset as a source, with a declared layout.

Each table is written here from real rows of ../shared/corpora (GLUE MRPC, XQuAD, WikiANN), built from the command
line, loaded with ``datasets.load_dataset``, checked for valid labels, and rebuilt byte for byte from the card's
regenerate command. Bad input is one line naming the file and the row; a Hub dataset that cannot be reached is one
line too.
"""

from __future__ import annotations

import csv
import json
from itertools import islice
from pathlib import Path

import datasets
import pytest
from test_regenerate_command import regenerate, same_parquet

import noisecraft as nc
from noisecraft.building.recipe import load_recipe, requests
from noisecraft.cli import main
from noisecraft.dataset.repo import read_manifest
from noisecraft.errors import ConfigError
from noisecraft.sources.glue import glue_rows
from noisecraft.sources.registry import source_info
from noisecraft.sources.squad import squad_rows
from noisecraft.sources.table import TableLayout, content_id
from noisecraft.sources.wikiann import TAGS, rahimi_rows

from conftest import corpus
from test_cli import noisecraft

MRPC_NAMES = ["not_equivalent", "equivalent"]


def mrpc_rows(count: int = 20) -> list[dict]:
    """The first MRPC dev pairs, with their labels by name."""
    return [{"label": MRPC_NAMES[row["label"]], "sentence1": row["sentence1"], "sentence2": row["sentence2"]}
            for row in islice(glue_rows("mrpc", corpus("glue/MRPC/dev.tsv")), count)]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def write_csv(path: Path, rows: list[dict]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_tsv(path: Path, rows: list[dict]) -> Path:
    """The GLUE release's own first lines (BOM, tabs, no quoting; labels as 0/1)."""
    lines = corpus("glue/MRPC/dev.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[: len(rows) + 1]), encoding="utf-8")
    return path


def write_parquet(path: Path, rows: list[dict]) -> Path:
    """A Parquet file written by ``datasets``: its label is a ClassLabel with the GLUE names."""
    features = datasets.Features({"label": datasets.ClassLabel(names=MRPC_NAMES), "sentence1": datasets.Value("string"),
                                  "sentence2": datasets.Value("string")})
    encoded = [{**row, "label": MRPC_NAMES.index(row["label"])} for row in rows]
    datasets.Dataset.from_list(encoded, features=features).to_parquet(str(path))
    return path


def built(out: Path) -> tuple[str, dict]:
    """The only config of a built folder and its manifest entry."""
    [(name, entry)] = read_manifest(out)["configs"].items()
    return name, entry


def build_and_regenerate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, file: Path, *args: str) -> datasets.Dataset:
    """Build ``file`` (in ``tmp_path/work``) from the command line, check the card's command rebuilds it byte for
    byte, and return the split as ``load_dataset`` reads it."""
    result = noisecraft("build", "--data-file", file.name, *args, "--out", "out", "--no-progress", cwd=file.parent)
    assert result.returncode == 0, result.stderr
    out = file.parent / "out"
    same_parquet(out, regenerate(out, file.parent, tmp_path / "elsewhere", monkeypatch))
    name, entry = built(out)
    return datasets.load_dataset(str(out), name, split=entry["spec"]["split"])


CLASS_TABLES = [
    ("csv", write_csv, ["--label-names", "not_equivalent,equivalent"], "label", "sentence1", MRPC_NAMES),
    ("tsv", write_tsv, ["--label-names", "not_equivalent,equivalent"], "Quality", "#1 String", MRPC_NAMES),
    ("jsonl", write_jsonl, [], "label", "sentence1", sorted(MRPC_NAMES)),  # no names given: sorted labels
    ("parquet", write_parquet, [], "label", "sentence1", MRPC_NAMES),  # the file's ClassLabel names
]


@pytest.mark.parametrize(("source", "write", "names", "label", "field", "classes"), CLASS_TABLES,
                         ids=[t[0] for t in CLASS_TABLES])
def test_a_table_with_a_class_label_builds_loads_and_regenerates(tmp_path, monkeypatch, source, write, names, label,
                                                                  field, classes):
    rows = mrpc_rows()
    (tmp_path / "work").mkdir()
    file = write(tmp_path / "work" / f"mrpc.{source}", rows)
    dataset = build_and_regenerate(tmp_path, monkeypatch, file, "--source", source, "--fields", field,
                                   "--label-field", label, *names, "--noise", "keyboard(rate=0.3)", "--seed", "2")
    assert dataset.features[label].names == classes
    assert [classes[i] for i in dataset[label]] == [row["label"] for row in rows]  # every label kept, by name
    assert dataset[f"original_{field}"] == [row["sentence1"] for row in rows]
    assert dataset[field] != dataset[f"original_{field}"]
    assert len(set(dataset["id"])) == len(rows)
    _, entry = built(file.parent / "out")
    assert entry["spec"]["layout"]["label_field"] == label and entry["spec"]["data_file"] == file.name
    card = (file.parent / "out" / "README.md").read_text(encoding="utf-8")
    assert f"- **Declared layout**: class label `{label}` (classes: {', '.join(classes)})" in card


def test_squad_style_answers_stay_in_their_noised_context(tmp_path, monkeypatch):
    rows = [{key: row[key] for key in ("id", "title", "context", "question", "answers")}
            for row in islice(squad_rows(corpus("xquad/xquad.en.json")), 30)]
    (tmp_path / "work").mkdir()
    file = write_jsonl(tmp_path / "work" / "qa.jsonl", rows)
    dataset = build_and_regenerate(tmp_path, monkeypatch, file, "--source", "jsonl", "--fields", "question", "context",
                                   "--span-labels", "context:answers", "--id-field", "id", "--noise", "keyboard(rate=0.5)")
    assert dataset["id"] == [row["id"] for row in rows]  # no answer can be broken: keyboard noise protects spans
    assert sum(row["context"] != row["original_context"] for row in dataset) > 0
    for row in dataset:
        for text, start in zip(row["answers"]["text"], row["answers"]["answer_start"]):
            assert row["context"][start : start + len(text)] == text


def test_token_tags_keep_one_tag_per_token_and_protected_entities(tmp_path, monkeypatch):
    rows = [{"tokens": row["tokens"], "tags": [TAGS[t] for t in row["ner_tags"]]}
            for row in rahimi_rows(corpus("wikiann/rahimi_format_slices/en/test"), "en")]
    (tmp_path / "work").mkdir()
    file = write_jsonl(tmp_path / "work" / "ner.jsonl", rows)
    dataset = build_and_regenerate(tmp_path, monkeypatch, file, "--source", "jsonl", "--fields", "tokens",
                                   "--token-labels", "tokens:tags", "--protect-entities", "--noise", "keyboard(rate=1.0)")
    names = dataset.features["tags"].feature.names
    assert names[0] == "O" and set(names) == {"O"} | {tag for row in rows for tag in row["tags"]}
    assert [[names[t] for t in row["tags"]] for row in dataset] == [row["tags"] for row in rows]
    assert any(row["tokens"] != row["original_tokens"] for row in dataset)
    for row in dataset:
        assert len(row["tokens"]) == len(row["tags"])
        for token, original, tag in zip(row["tokens"], row["original_tokens"], row["tags"]):
            assert tag == 0 or token == original  # entity tokens are left alone


def test_ids_and_bytes_do_not_depend_on_workers_or_batches(tmp_path):
    file = write_csv(tmp_path / "mrpc.csv", mrpc_rows())
    for out, options in (("one", {}), ("two", {"num_proc": 2, "batch_size": 3})):
        nc.build("csv", "keyboard", tmp_path / out, data_file=file, fields=["sentence1"], label_field="label",
                 progress=False, **options)
    same_parquet(tmp_path / "one", tmp_path / "two")


def test_perturb_gives_a_dataset_without_ids_the_ids_and_noise_of_a_build(tmp_path):
    rows = [{"text": row["sentence1"], "other": row["sentence2"]} for row in mrpc_rows(12)]
    file = write_jsonl(tmp_path / "pairs.jsonl", rows)
    nc.build("jsonl", "keyboard(rate=0.5)", tmp_path / "out", data_file=file, fields=["text"], seed=4, progress=False)
    name, entry = built(tmp_path / "out")
    from_build = datasets.load_dataset(str(tmp_path / "out"), name, split="test")
    table = datasets.load_dataset("json", data_files=str(file), split="train")
    once = nc.perturb(table, nc.noise("keyboard", rate=0.5), ["text"], seed=4)
    again = nc.perturb(table, nc.noise("keyboard", rate=0.5), ["text"], seed=4, num_proc=2, batch_size=5)
    assert once["id"] == [content_id(row, position) for position, row in enumerate(rows)] == from_build["id"]
    assert once["text"] == again["text"] == from_build["text"] and once["id"] == again["id"]


def test_a_recipe_declares_a_table_layout(tmp_path):
    mrpc = corpus("glue/MRPC/dev.tsv")
    recipe = tmp_path / "mrpc.toml"
    recipe.write_text('version = "1.0.0"\n\n[[configs]]\nsource = "tsv"\ndata_file = "MRPC/dev.tsv"\n'
                      'fields = ["#1 String"]\nlabel_field = "Quality"\nlabel_names = ["not_equivalent", "equivalent"]\n'
                      'noise = ["keyboard"]\n', encoding="utf-8")
    [request] = requests(load_recipe(recipe), mrpc.parents[1])
    assert request.layout.label_names == ("not_equivalent", "equivalent") and request.fields == ("#1 String",)
    with pytest.raises(ConfigError, match="'label_names' must be a non-empty list of strings"):
        load_recipe(recipe, sets=['configs.0.label_names="not_equivalent,equivalent"'])


def test_a_layout_is_declared_for_tables_only(tmp_path):
    with pytest.raises(ConfigError, match="--label-field: only a table or Hub source"):
        nc.build("demo", "keyboard", tmp_path / "out", label_field="answers", progress=False)
    with pytest.raises(ConfigError, match="a csv source needs fields= / --fields"):
        nc.build("csv", "keyboard", tmp_path / "out", data_file=tmp_path / "x.csv", progress=False)
    with pytest.raises(ConfigError, match="span_labels= / --span-labels takes two column names as A:B"):
        nc.build("jsonl", "keyboard", tmp_path / "out", fields=["q"], span_labels="context", progress=False)
    assert not (tmp_path / "out").exists()


# --- bad input: one line naming the file and the row ------------------------------------------------------------

BAD_TABLES = [
    ("csv", "text,label\nfine text,pos\nmore text,neg\n", ["--label-field", "sentiment"],
     "header: no column 'sentiment' (--label-field); columns: text, label"),
    ("csv", "text,label\nfine text,pos\nmore text,neg\nodd text,meh\n", ["--label-field", "label", "--label-names",
                                                                           "pos,neg"],
     "row 3: label 'meh' in column 'label' is not one of its 2 classes (pos, neg)"),
    ("jsonl", [{"text": "a b", "ctx": "the cat sat", "ans": {"text": ["cat"], "answer_start": [4]}},
               {"text": "c d", "ctx": "the dog ran", "ans": {"text": ["dog"], "answer_start": [5]}}],
     ["--span-labels", "ctx:ans"], "row 2: answer 'dog' does not match its context: answer_start 5 gives 'og '"),
    ("jsonl", [{"text": "a b", "toks": ["a", "b"], "tags": ["O", "O"]}, {"text": "c", "toks": ["c", "d", "e"],
                                                                         "tags": ["O", "B-PER"]}],
     ["--token-labels", "toks:tags"], "row 2: 3 tokens but 2 tags: one tag per token"),
    ("jsonl", [{"uid": "a", "text": "x y"}, {"uid": "b", "text": "y z"}, {"uid": "a", "text": "z w"}],
     ["--id-field", "uid"], "rows 1, 3: duplicate id 'a' in column 'uid': every row needs its own id"),
    ("jsonl", '{"text": "fine"}\n{"text": "broken"\n', [], "line 2: not a JSON object"),
    ("csv", "text,label\nfine,pos\nragged,neg,extra\n", [], "Expected 2 fields in line 3, saw 3"),
]


@pytest.mark.parametrize(("source", "content", "args", "message"), BAD_TABLES,
                         ids=["missing-column", "label-outside-names", "answer-mismatch", "ragged-tokens",
                              "duplicate-ids", "bad-json-line", "ragged-csv"])
def test_bad_input_is_one_line_naming_the_file_and_the_row(tmp_path, capsys, source, content, args, message):
    file = tmp_path / f"bad.{source}"
    if isinstance(content, str):
        file.write_text(content, encoding="utf-8")
    else:
        write_jsonl(file, content)
    code = main(["build", "--source", source, "--data-file", str(file), "--fields", "text", *args,
                 "--out", str(tmp_path / "out"), "--no-progress"])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and line.startswith(f"noisecraft: error: {file}") and message in line, line
    assert not any((tmp_path / "out").rglob("*.parquet"))


# --- the Hub ----------------------------------------------------------------------------------------------------


def test_a_hub_dataset_offline_fails_at_once_in_one_line(tmp_path):
    result = noisecraft("build", "--source", "hub:noisecraft-tests/no-such-set", "--hub-config", "plain",
                        "--fields", "text", "--out", str(tmp_path / "out"))
    [line] = result.stderr.strip().splitlines()
    assert result.returncode == 2 and "cannot be reached" in line and "noisecraft-tests/no-such-set (plain)" in line
    assert "--source parquet --data-file" in line and not (tmp_path / "out").exists()


def test_a_hub_dataset_builds_with_its_features_and_a_regenerate_command(tmp_path, monkeypatch):
    rows = [{"sentence1": row["sentence1"], "label": MRPC_NAMES.index(row["label"]), "idx": n}
            for n, row in enumerate(mrpc_rows(8))]
    features = datasets.Features({"sentence1": datasets.Value("string"),
                                  "label": datasets.ClassLabel(names=MRPC_NAMES), "idx": datasets.Value("int32")})
    calls = []

    def fake_load_dataset(path, name=None, split=None, revision=None, **kwargs):
        calls.append((path, name, split, revision))
        return datasets.Dataset.from_list(rows, features=features)

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    nc.build("hub:nyu-mll/glue", "keyboard", tmp_path / "out", hub_config="mrpc", split="validation",
             fields=["sentence1"], label_field="label", id_field="idx", progress=False)
    assert calls == [("nyu-mll/glue", "mrpc", "validation", None)]
    name, entry = built(tmp_path / "out")
    assert name == "hub-nyu-mll-glue-mrpc-en-keyboard" and entry["input"]["hub_commit"] is None
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "--source hub:nyu-mll/glue" in card and "--label-field label --id-field idx --hub-config mrpc" in card
    assert "extended|nyu-mll/glue" in card
    info = source_info(entry["spec"]["source"], TableLayout.declare(**entry["spec"]["layout"]))  # from the manifest
    assert info.hub_id == "nyu-mll/glue" and info.class_label == "label" and info.task_category == "text-classification"
    monkeypatch.undo()
    dataset = datasets.load_dataset(str(tmp_path / "out"), name, split="validation")
    assert dataset.features["label"].names == MRPC_NAMES and dataset["id"] == [str(n) for n in range(8)]
    with pytest.raises(ConfigError, match="a local file is --source csv, tsv, jsonl or parquet"):
        nc.build("hub:nyu-mll/glue", "keyboard", tmp_path / "b", data_file=tmp_path / "x.csv", fields=["s"],
                 progress=False)
