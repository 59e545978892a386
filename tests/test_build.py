"""Build contracts: determinism, recorded edits, valid labels, safe writes (DESIGN.md 2-7)."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard

from noisecraft.building.pipeline import BuiltConfig, ConfigRequest, build_config, write_card
from noisecraft.core.edits import Edit, apply_edits
from noisecraft.core.iob import is_valid_bio
from noisecraft.dataset.repo import DatasetRepo
from noisecraft.errors import ConfigError, InputError
from noisecraft.noise_models.destructive import sort_tokens
from noisecraft.sources.glue import parse_glue_tsv
from noisecraft.sources.wikiann import TAGS, entity_spans, parse_rahimi

from conftest import corpus


def build(out: Path, version: str = "1.0.0", num_proc: int = 1, batch_size: int = 1000, overwrite: bool = False,
          **request) -> BuiltConfig:
    repo = DatasetRepo(out, version)
    built = build_config(repo, ConfigRequest(**request), num_proc=num_proc, batch_size=batch_size,
                         overwrite=overwrite, progress=False)
    write_card(repo)
    return built


def rows_of(built: BuiltConfig) -> list[dict]:
    return pq.read_table(built.path).to_pylist()


def edits_of(row: dict, field: str) -> list[Edit]:
    return [Edit(e["start"], e["end"], e["original"], e["replacement"], e["kind"])
            for e in row["noise_edits"] if e["field"] == field]


def xquad_en(**extra) -> dict:
    return dict(source="xquad", lang="en", data_file=corpus("xquad/xquad.en.json"), noise="keyboard@1", **extra)


@pytest.mark.slow
def test_same_seed_is_byte_identical_for_any_num_proc_and_batch_size(tmp_path):
    one = build(tmp_path / "a", **xquad_en(seed=3))
    two = build(tmp_path / "b", num_proc=2, batch_size=97, **xquad_en(seed=3))
    small = build(tmp_path / "c", batch_size=1, **xquad_en(seed=3))
    assert one.path.read_bytes() == two.path.read_bytes() == small.path.read_bytes()
    assert (tmp_path / "a" / "README.md").read_text() == (tmp_path / "b" / "README.md").read_text()


def test_different_seed_gives_a_different_set(tmp_path):
    a = rows_of(build(tmp_path / "a", source="demo", noise="keyboard", seed=1))
    b = rows_of(build(tmp_path / "b", source="demo", noise="keyboard", seed=2))
    assert [r["question"] for r in a] != [r["question"] for r in b]
    assert [r["original_question"] for r in a] == [r["original_question"] for r in b]


def test_edit_logs_replay_and_provenance_columns(tmp_path):
    built = build(tmp_path, **xquad_en(seed=0))
    rows = rows_of(built)
    assert len(rows) == 1190
    for row in rows:
        assert apply_edits(row["original_question"], edits_of(row, "question")) == row["question"]
        assert row["noise_name"] == "keyboard" and row["noise_version"] == 1 and row["noise_seed"] == 0
        assert json.loads(row["noise_params"]) == {"layout": "qwerty", "mode": "noiseqa", "rate": 0.25}
    stats = built.stats
    assert stats["rows"] == 1190 and 900 < stats["rows_changed"] < 1190
    # close to NoiseQA's synthetic keyboard set (CER 4.11 %, WER 23.93 %)
    assert 3.0 < stats["fields"]["question"]["cer"] < 5.5
    assert 20.0 < stats["fields"]["question"]["wer"] < 28.0


def test_perturbed_contexts_keep_every_answer_valid(tmp_path):
    built = build(tmp_path, **{**xquad_en(seed=0, fields=("question", "context")), "noise": "keyboard@1(rate=1)"})
    rows = rows_of(built)
    assert len(rows) == 1190 and built.stats["dropped"] == {}
    changed = 0
    for row in rows:
        changed += row["context"] != row["original_context"]
        for text, start in zip(row["answers"]["text"], row["answers"]["answer_start"]):
            assert row["context"][start : start + len(text)] == text
        assert apply_edits(row["original_context"], edits_of(row, "context")) == row["context"]
    assert changed == 1190


@pytest.mark.parametrize("lang", ["en", "th"])
def test_wikiann_keeps_one_tag_per_token_and_bio(tmp_path, lang):
    path = corpus(f"wikiann/rahimi_format_slices/{lang}/test")
    source_rows = parse_rahimi(path, lang)
    # keyboard@2 never edits one-letter tokens, and this Thai slice has one character per token
    built = build(tmp_path, source="wikiann", lang=lang, data_file=path, noise="keyboard@1(rate=1)",
                  protect_entities=True)
    rows = rows_of(built)
    assert len(rows) == len(source_rows)
    for row, source in zip(rows, source_rows):
        assert row["ner_tags"] == source["ner_tags"]
        assert len(row["tokens"]) == len(row["ner_tags"])
        assert is_valid_bio([TAGS[t] for t in row["ner_tags"]]) == is_valid_bio([TAGS[t] for t in source["ner_tags"]])
        for token, original, tag in zip(row["tokens"], source["tokens"], source["ner_tags"]):
            assert token and not any(ch.isspace() for ch in token)
            if tag != 0:
                assert token == original  # --protect-entities
    assert any(r["tokens"] != r["original_tokens"] for r in rows)


def test_word_order_noise_is_refused_where_it_would_break_labels(tmp_path):
    with pytest.raises(ConfigError, match="destroy the 'answers' spans"):
        build(tmp_path / "a", source="demo", noise="sort", fields=("context",))
    with pytest.raises(ConfigError, match="one-tag-per-token"):
        build(tmp_path / "b", source="wikiann", lang="en", noise="shuffle",
              data_file=corpus("wikiann/rahimi_format_slices/en/test"))
    with pytest.raises(ConfigError, match="needs a text-pair task"):
        build(tmp_path / "c", source="demo", noise="copysort")


def test_copysort_on_mrpc(tmp_path):
    built = build(tmp_path, source="glue/mrpc", noise="copysort@1", data_file=corpus("glue/MRPC/dev.tsv"))
    rows = rows_of(built)
    assert len(rows) == 408 and built.stats["fields"].keys() == {"sentence2"}
    source = parse_glue_tsv("mrpc", corpus("glue/MRPC/dev.tsv"))
    for row, clean in zip(rows, source):
        assert row["sentence1"] == clean["sentence1"] and "original_sentence1" not in row
        assert row["sentence2"] == sort_tokens(clean["sentence1"])
        assert row["original_sentence2"] == clean["sentence2"]
        assert [e["kind"] for e in row["noise_edits"]] == ["copysort"]


def test_failed_shuffles_are_dropped_and_counted(tmp_path):
    tsv = tmp_path / "dev.tsv"
    tsv.write_text("sentence\tlabel\nbrilliant\t1\nit is a dull , slow film\t0\nawful awful awful\t0\n", encoding="utf-8")
    built = build(tmp_path / "out", source="glue/sst2", noise="shuffle", data_file=tsv)
    assert built.stats["rows"] == 1 and sum(built.stats["dropped"].values()) == 2
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "2 (shuffle: no order without an original bigram in 100 tries)" in card


def test_load_dataset_reads_the_repo_folder_offline(tmp_path):
    build(tmp_path, source="glue/mrpc", noise="swap", data_file=corpus("glue/MRPC/dev.tsv"))
    build(tmp_path, source="demo", noise="keyboard")
    mrpc = datasets.load_dataset(str(tmp_path), "glue-mrpc-en-swap", split="validation")
    assert mrpc.num_rows == 408
    assert mrpc.features["label"].names == ["not_equivalent", "equivalent"]
    demo = datasets.load_dataset(str(tmp_path), "demo-en-keyboard")
    assert list(demo) == ["validation"] and "original_question" in demo["validation"].column_names


def test_a_folder_with_another_version_is_refused(tmp_path):
    build(tmp_path, source="demo", noise="keyboard")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    with pytest.raises(ConfigError, match="holds version 1.0.0 .* this build is version 2.0.0"):
        build(tmp_path, version="2.0.0", source="demo", noise="swap")
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_a_foreign_non_empty_folder_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ConfigError, match="not empty and holds no noisecraft dataset"):
        build(tmp_path, source="demo", noise="keyboard")


def test_a_config_name_clash_needs_overwrite(tmp_path):
    build(tmp_path, source="demo", noise="keyboard", seed=1, config_name="kb")
    build(tmp_path, source="demo", noise="keyboard", seed=1, config_name="kb")  # same spec: rebuilt in place
    with pytest.raises(ConfigError, match="built with a different spec"):
        build(tmp_path, source="demo", noise="keyboard", seed=2, config_name="kb")
    assert build(tmp_path, source="demo", noise="keyboard", seed=2, config_name="kb", overwrite=True).stats["rows"] == 41


def test_default_config_names_are_unique_per_spec(tmp_path):
    names = {build(tmp_path, source="demo", noise=noise, seed=seed).name
             for noise, seed in [("keyboard", 0), ("keyboard(mode=coles)", 0), ("keyboard(rate=0.1)", 0), ("keyboard", 3),
                                 ("swap | keyboard", 0)]}
    assert names == {"demo-en-keyboard", "demo-en-keyboard-coles", "demo-en-keyboard-rate0.1", "demo-en-keyboard-seed3",
                     "demo-en-swap_keyboard"}


def test_an_interrupted_write_leaves_the_previous_files(tmp_path, monkeypatch):
    first = build(tmp_path, source="demo", noise="keyboard", seed=1, config_name="kb")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}

    def crash(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pq.ParquetWriter, "write_table", crash)
    with pytest.raises(KeyboardInterrupt):
        build(tmp_path, source="demo", noise="keyboard", seed=2, config_name="kb", overwrite=True)
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before and first.path.exists()


def test_card_metadata_and_prose(tmp_path):
    build(tmp_path, source="glue/mrpc", noise="keyboard", data_file=corpus("glue/MRPC/dev.tsv"))
    build(tmp_path, source="xquad", lang="de", noise="keyboard", data_file=corpus("xquad/xquad.de.json"))
    parsed = DatasetCard.load(tmp_path / "README.md")
    meta = parsed.data.to_dict()
    assert meta["annotations_creators"] == ["machine-generated"]
    assert meta["language"] == ["de", "en"]
    assert set(meta["license"]) == {"other", "cc-by-sa-4.0"}
    assert meta["source_datasets"] == ["extended|nyu-mll/glue", "extended|google/xquad"]
    assert set(meta["task_categories"]) == {"text-classification", "question-answering"}
    assert meta["size_categories"] == "1K<n<10K"
    assert {c["config_name"] for c in meta["configs"]} == {"glue-mrpc-en-keyboard", "xquad-de-keyboard"}
    text = parsed.text
    assert "`qwertz-de` layout" in text and "noisecraft build --source xquad --lang de" in text
    assert "@inproceedings{artetxe-etal-2020-cross" in text and "ravichander-etal-2021-noiseqa" in text
    assert "load_dataset(" in text and text.count("| xquad-de-keyboard |") >= 1


def test_an_empty_field_from_the_hub_is_a_clear_error(tmp_path, monkeypatch):
    rows = [{"sentence": "fine", "label": 1, "idx": 0}, {"sentence": " ", "label": 0, "idx": 1}]
    features = datasets.Features({"sentence": datasets.Value("string"), "idx": datasets.Value("int32"),
                                  "label": datasets.ClassLabel(names=["negative", "positive"])})
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: datasets.Dataset.from_list(rows, features=features))
    with pytest.raises(InputError, match=r"hf://datasets/nyu-mll/glue, row 2 \(id '1'\): empty 'sentence'"):
        build(tmp_path, source="glue/sst2", noise="keyboard")
    with pytest.raises(ConfigError, match="field 'premise' is not a column of glue/sst2"):
        build(tmp_path, source="glue/sst2", noise="keyboard", fields=("premise",))


def test_wikiann_spans_are_rebuilt_from_the_noisy_tokens(tmp_path):
    path = corpus("wikiann/rahimi_format_slices/en/test")
    built = build(tmp_path, source="wikiann", lang="en", data_file=path, noise="keyboard@1(rate=1)")
    rows = rows_of(built)
    changed = [r for r in rows if r["tokens"] != r["original_tokens"]]
    assert changed
    for row in rows:
        assert row["spans"] == entity_spans(row["tokens"], row["ner_tags"])
    assert any(row["spans"] != entity_spans(row["original_tokens"], row["ner_tags"]) for row in changed)


def test_token_tags_stay_valid_on_the_shipped_sample(tmp_path):
    """Runs in a fresh clone (no corpora): one tag per token, valid IOB2, entity tokens untouched, and the
    same bytes for any num_proc and batch size."""
    sample = Path(__file__).parent / "data" / "wikiann_sample_en.txt"
    source_rows = parse_rahimi(sample, "en")
    outputs = []
    for name, num_proc, batch_size in (("a", 1, 1000), ("b", 2, 1)):
        built = build(tmp_path / name, source="wikiann", lang="en", data_file=sample, noise="keyboard(rate=1)",
                      protect_entities=True, num_proc=num_proc, batch_size=batch_size)
        outputs.append(built.path.read_bytes())
        rows = rows_of(built)
        assert len(rows) == len(source_rows) == 4
        for row, clean in zip(rows, source_rows):
            assert row["ner_tags"] == clean["ner_tags"] and len(row["tokens"]) == len(row["ner_tags"])
            assert is_valid_bio([TAGS[t] for t in row["ner_tags"]])
            for token, original, tag in zip(row["tokens"], clean["tokens"], clean["ner_tags"]):
                assert token and not any(ch.isspace() for ch in token)
                assert tag == 0 or token == original
        assert any(r["tokens"] != r["original_tokens"] for r in rows)
    assert outputs[0] == outputs[1]


def test_long_lived_blocks_nest_and_give_the_collector_back_as_it_was():
    import gc

    from noisecraft.building.collector import long_lived

    assert gc.get_freeze_count() == 0  # nothing of the test process is frozen between tests
    kept = [[]]  # a container the collector tracks
    with long_lived():
        outer = gc.get_freeze_count()
        assert outer > 0 and not any(o is kept for o in gc.get_objects())
        # made inside the outer block: frozen by the inner one (many, so that frozen objects another thread of the
        # test process frees meanwhile, e.g. pytest-xdist's, cannot hide them from the count)
        made = [[] for _ in range(10_000)]
        with long_lived():
            assert gc.get_freeze_count() > outer
        assert gc.get_freeze_count() > outer  # the inner end thaws nothing: the outer block is still open
        del made
    assert gc.get_freeze_count() == 0 and any(o is kept for o in gc.get_objects())
    # objects the caller froze itself stay frozen: unfreeze cannot tell whose they are
    gc.freeze()
    try:
        held = gc.get_freeze_count()
        with long_lived():
            pass
        assert gc.get_freeze_count() >= held > 0
    finally:
        gc.unfreeze()


def test_a_parallel_build_noises_every_batch_in_its_workers_and_writes_the_same_bytes(tmp_path, monkeypatch):
    import os

    from noisecraft.building import pipeline

    where = []
    process_batch = pipeline.process_batch

    def recording(job, schema, origin, start, rows):
        where.append((start, os.getpid()))
        return process_batch(job, schema, origin, start, rows)

    monkeypatch.setattr(pipeline, "process_batch", recording)
    built = build(tmp_path / "out", source="xquad", lang="en", data_file=corpus("xquad/xquad.en.json"),
                  noise="keyboard", num_proc=2, batch_size=400)
    assert where == []  # the spawned workers run the module's own process_batch, never this process's
    one = build(tmp_path / "one", source="xquad", lang="en", data_file=corpus("xquad/xquad.en.json"),
                noise="keyboard", num_proc=1, batch_size=400)
    assert built.path.read_bytes() == one.path.read_bytes()
