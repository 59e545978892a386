"""Machine-translation noise (``translation``, ``natural-translation``) and the model runtime under it.

Real code paths on tiny random Marian models built by tests/tiny_models.py (their output is gibberish,
but it depends on the input, which is all these contracts need): ``from_pretrained`` on a folder and
on a simulated Hugging Face cache, batching that never changes outputs or their order, the on-disk
cache (a rebuild with another seed asks the model nothing), byte-identical builds for any num_proc,
id pairing of natural translation across the 12 XQuAD files, and clear errors offline.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import datasets
import pytest

import noisecraft as nc
from noisecraft.core.edits import Edit, apply_edits
from noisecraft.dataset.repo import read_manifest
from noisecraft.errors import ConfigError
from noisecraft.runtime import length_batches, resolve_model
from noisecraft.runtime.seq2seq import Seq2SeqGenerator

from conftest import corpus
from tiny_models import tiny_model

DATA = Path(__file__).parent / "data"
QUESTIONS = ["When did Beyonce start becoming popular?", "What is the capital city of France?",
             "Who wrote the novel Pride and Prejudice?", "How many people live in the city?",
             "Which river flows through the capital?", "Why?"]
XQUAD_LANGS = ("ar", "de", "el", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test starts with an empty model-output cache of its own."""
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "nc-cache"))
    return tmp_path / "nc-cache"


def round_trip(**params) -> nc.noise:
    return nc.noise("translation", forward_model=str(tiny_model("marian-en-de")),
                    backward_model=str(tiny_model("marian-de-en")), max_new_tokens=12, **params)


class CountingCalls:
    """Counts the texts each generator sends through its model."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.texts: list[str] = []
        original = Seq2SeqGenerator._compute

        def counted(generator, texts, *args, **kwargs):
            self.texts.extend(texts)
            return original(generator, texts, *args, **kwargs)

        monkeypatch.setattr(Seq2SeqGenerator, "_compute", counted)


# --- batching ----------------------------------------------------------------------------------


def test_length_batches_respect_the_budget_and_cover_every_item_once():
    lengths = [5, 3, 300, 4, 10, 5, 7, 7, 1]
    batches = length_batches(lengths, token_budget=20, max_batch=3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= 20
    assert batches[0] == [2]  # the longest first: an out-of-memory error shows at once


def test_batched_outputs_equal_one_at_a_time_in_input_order(monkeypatch, tmp_path):
    counting = CountingCalls(monkeypatch)
    whole = round_trip().augment(QUESTIONS)
    first_run = len(counting.texts)
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "second-cache"))  # compute everything again
    alone = round_trip(token_budget=1)  # a budget of one token: every text alone in its batch
    one_by_one = [alone.augment([question])[0] for question in reversed(QUESTIONS)][::-1]
    assert whole == one_by_one
    assert len(set(whole)) > 1  # the tiny model's output depends on its input
    assert len(counting.texts) == 2 * first_run


def test_edit_log_is_an_alignment_that_replays_the_output():
    model = round_trip()
    for question, noised in zip(QUESTIONS, model(QUESTIONS, seed=3)):
        assert noised.failure is None
        assert apply_edits(question, list(noised.edits)) == noised.text
        assert all(isinstance(e, Edit) and e.kind == "translation" for e in noised.edits)


# --- the cache ---------------------------------------------------------------------------------


def test_cache_answers_a_second_seed_and_a_new_spec_without_model_calls(monkeypatch, _own_cache):
    counting = CountingCalls(monkeypatch)
    first = round_trip().augment(QUESTIONS, seed=0)
    calls = len(counting.texts)
    assert calls >= len(QUESTIONS)
    assert round_trip().augment(QUESTIONS, seed=1) == first  # deterministic: the seed changes nothing
    assert round_trip(device="cpu", token_budget=64).augment(QUESTIONS[::-1]) == first[::-1]  # runtime settings neither
    assert len(counting.texts) == calls
    # decode settings are part of the key: another beam width computes again
    round_trip(num_beams=1).augment(QUESTIONS[:2])
    assert len(counting.texts) > calls
    assert {".sqlite", ".json"} <= {p.suffix for p in (_own_cache / "seq2seq").iterdir()}


def test_an_interrupted_run_keeps_the_batches_it_finished(monkeypatch):
    """The cache stores each batch as it completes: after a crash in the third batch, a re-run computes
    only what was not finished."""
    original = Seq2SeqGenerator._compute
    seen: list[str] = []

    def crash_on_third_batch(generator, texts, store, *args, **kwargs):
        def failing_store(inputs, outputs):
            seen.extend(inputs)
            if len(seen) >= 3:
                raise KeyboardInterrupt
            store(inputs, outputs)
        return original(generator, texts, failing_store, *args, **kwargs)

    monkeypatch.setattr(Seq2SeqGenerator, "_compute", crash_on_third_batch)
    with pytest.raises(KeyboardInterrupt):
        round_trip(token_budget=1).augment(QUESTIONS)
    monkeypatch.setattr(Seq2SeqGenerator, "_compute", original)
    counting = CountingCalls(monkeypatch)
    round_trip(token_budget=1).augment(QUESTIONS)
    forward = [t for t in counting.texts if t in QUESTIONS]
    assert sorted(forward) == sorted(set(QUESTIONS) - set(seen[:2]))


# --- loading -------------------------------------------------------------------------------------


def test_a_local_folder_is_recorded_by_content_digest_and_its_name():
    ref = resolve_model(str(tiny_model("marian-en-de")))
    assert ref.local and ref.revision.startswith("sha256:") and ref.hub_revision is None
    assert ref.fingerprint()["model"] == "marian-en-de"
    provenance = round_trip().provenance()
    assert provenance["forward"]["model"] == ref.fingerprint()
    assert provenance["forward"]["dtype"] == "float32" and provenance["forward"]["device"] == "cpu"
    assert provenance["forward"]["decode"]["num_beams"] == 4
    assert "transformers" in provenance["forward"]["libraries"]


def test_a_hub_id_loads_from_the_local_hub_cache_at_its_resolved_commit(monkeypatch, tmp_path):
    """The Hub code path, offline: ``from_pretrained(id, revision=<commit>)`` served from a Hugging Face
    cache laid out as ``hf download`` leaves it."""
    import huggingface_hub.constants

    commit = "0123456789abcdef0123456789abcdef01234567"
    hub_cache = tmp_path / "hub"
    for name, source in (("opus-mt-en-de", "marian-en-de"), ("opus-mt-de-en", "marian-de-en")):
        repo = hub_cache / f"models--Helsinki-NLP--{name}"
        snapshot = repo / "snapshots" / commit
        snapshot.mkdir(parents=True)
        for file in tiny_model(source).iterdir():
            (snapshot / file.name).write_bytes(file.read_bytes())
        (repo / "refs").mkdir()
        (repo / "refs" / "main").write_text(commit)
    monkeypatch.setenv("HF_HUB_CACHE", str(hub_cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(hub_cache))
    model = nc.noise("translation", max_new_tokens=12)  # the NoiseQA default: opus-mt-en-de and -de-en
    assert model.provenance()["forward"]["model"] == {"model": "Helsinki-NLP/opus-mt-en-de", "revision": commit}
    assert model.augment(QUESTIONS[:2]) == round_trip().augment(QUESTIONS[:2])


def test_a_model_that_is_not_available_offline_fails_at_once_with_the_way_out(monkeypatch):
    def sleep(seconds: float) -> None:  # a retry waits between attempts (no timing: a loaded machine cannot fail it)
        raise AssertionError(f"slept {seconds} s: retrying instead of failing at once")

    monkeypatch.setattr(time, "sleep", sleep)
    with pytest.raises(ConfigError, match=r"opus-mt-en-xx.*not in the local Hugging Face cache.*hf download"):
        nc.noise("translation", pivot="xx")


def test_bad_requests_are_one_line_errors(tmp_path):
    with pytest.raises(ConfigError, match="pivot must differ"):
        nc.noise("translation", pivot="en")
    with pytest.raises(ConfigError, match="both lang_code and pivot_code"):
        nc.noise("translation", lang_code="eng_Latn", forward_model=str(tiny_model("marian-en-de")))
    with pytest.raises(ConfigError, match="without config.json"):
        nc.noise("translation", forward_model=str(tmp_path), backward_model=str(tiny_model("marian-de-en")))
    with pytest.raises(ConfigError, match="no such folder"):
        nc.noise("translation", forward_model="./missing-model")


def test_text_longer_than_the_model_input_is_a_counted_failure_not_a_truncation():
    long_text = " ".join(["capital"] * 400)  # the tiny model takes 256 positions
    [noised] = round_trip()([long_text])
    assert noised.failure == "longer than the translation model's input limit" and noised.edits == ()


# --- builds ---------------------------------------------------------------------------------------


def build(out: Path, noise, num_proc: int = 1, batch_size: int = 1000, seed: int = 0,
          data_file: Path = DATA / "xquad_slice.en.json", fields=("question",)):
    return nc.build("xquad", lang="en", noise=noise, data_file=data_file, out=out, fields=list(fields), seed=seed,
                    num_proc=num_proc, batch_size=batch_size, progress=False)


def parquet_bytes(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.parquet"))}


@pytest.mark.slow
def test_build_is_byte_identical_for_any_num_proc_and_batch_size_and_records_the_models(tmp_path):
    model = round_trip()
    build(tmp_path / "a", model)
    build(tmp_path / "b", model, num_proc=2, batch_size=1)
    assert parquet_bytes(tmp_path / "a") == parquet_bytes(tmp_path / "b")
    manifest = read_manifest(tmp_path / "a")
    [(name, entry)] = manifest["configs"].items()
    # local model folders are named by content, never by folder name
    assert re.fullmatch(r"xquad-en-translation-maxnewtokens12-forwardmodel-[0-9a-f]{8}-backwardmodel-[0-9a-f]{8}", name)
    assert entry["provenance"]["forward"]["model"]["model"] == "marian-en-de"
    card = (tmp_path / "a" / "README.md").read_text(encoding="utf-8")
    assert "Models and settings" in card and "marian-de-en" in card and "sha256:" in card
    assert set(entry["stats"]["fields_normalised"]) == {"question"}  # NoiseQA's uncased scores beside the raw ones
    assert "| question (uncased, no punctuation) |" in card
    rows = datasets.load_dataset(str(tmp_path / "a"), name, split="validation")
    assert rows.num_rows == 4
    for row in rows:
        edits = [Edit(e["start"], e["end"], e["original"], e["replacement"], e["kind"]) for e in row["noise_edits"]]
        assert apply_edits(row["original_question"], edits) == row["question"]


def test_answers_in_translated_contexts_are_kept_only_when_they_come_out_verbatim(monkeypatch):
    """Through ``nc.perturb``: a context whose translation keeps the answer verbatim keeps its row (span
    moved through the alignment); the others are dropped with the reason counted, never kept wrong."""
    model = round_trip()
    contexts = ["Paris is the capital of France.", "The river flows through the city."]
    outputs = model.augment(contexts)
    dataset = datasets.Dataset.from_dict({
        "id": ["a", "b"], "context": contexts,
        "answers": [{"text": [outputs[0].split()[0]], "answer_start": [0]}, {"text": ["river"], "answer_start": [4]}],
    })
    # row "a": its answer is made to be the first word of the model's output, and the same word starts
    # the original context; row "b": "river" does not survive the tiny model
    dataset = dataset.map(lambda row: {"context": row["answers"]["text"][0] + " " + row["context"]} if row["id"] == "a"
                          else {}, load_from_cache_file=False)
    with pytest.warns(UserWarning, match="dropped"):
        result = nc.perturb(dataset, model, fields=["context"], labels=nc.LabelLayout(span_labels={"context": "answers"}))
    for row in result:
        answer = row["answers"]["text"][0]
        start = row["answers"]["answer_start"][0]
        assert row["context"][start:start + len(answer)] == answer


# --- natural translation -----------------------------------------------------------------------


def natural(**params) -> nc.noise:
    return nc.noise("natural-translation", from_lang="de", data_file=str(DATA / "xquad_slice.de.json"),
                    model=str(tiny_model("marian-de-en")), max_new_tokens=12, **params)


def slice_questions(lang: str) -> dict[str, str]:
    doc = json.loads((DATA / f"xquad_slice.{lang}.json").read_text(encoding="utf-8"))
    return {q["id"]: q["question"] for q in doc["data"][0]["paragraphs"][0]["qas"]}


def test_natural_translation_translates_the_parallel_question_with_the_same_id(monkeypatch):
    counting = CountingCalls(monkeypatch)
    english, german = slice_questions("en"), slice_questions("de")
    ids = list(english)[::-1]
    out = natural()([english[i] for i in ids], ids=ids)
    assert set(counting.texts) == {german[i] for i in ids}  # the German questions went in
    direct = round_trip().runtime()[1].generate([german[i] for i in ids], progress=False)  # the same de->en model
    assert [n.text for n in out] == direct
    for i, noised in zip(ids, out):
        assert apply_edits(english[i], list(noised.edits)) == noised.text


def test_natural_translation_fails_clearly_for_an_id_without_a_counterpart():
    with pytest.raises(ConfigError, match=r"id 'not-an-xquad-id' has no question in .*xquad_slice.de.json"):
        natural()(["What?"], ids=["not-an-xquad-id"])


def test_natural_translation_builds_rows_paired_by_id(tmp_path):
    build(tmp_path / "nat", natural())
    manifest = read_manifest(tmp_path / "nat")
    [(name, entry)] = manifest["configs"].items()
    assert entry["stats"]["rows"] == 4 and entry["provenance"]["questions"] == "xquad.de"
    rows = datasets.load_dataset(str(tmp_path / "nat"), name, split="validation")
    english = slice_questions("en")
    assert [row["original_question"] for row in rows] == [english[row["id"]] for row in rows]


@pytest.mark.parametrize("lang", XQUAD_LANGS)
def test_every_xquad_language_pairs_every_english_id(lang):
    """XQuAD ids are parallel: each of the 1190 English questions has its counterpart in every language."""
    from noisecraft.sources.join import joined_texts
    from noisecraft.sources.registry import load_source

    english = list(load_source("xquad", "en", "validation", corpus("xquad/xquad.en.json")).rows)
    model = nc.noise("natural-translation", from_lang=lang, data_file=str(corpus(f"xquad/xquad.{lang}.json")),
                     model=str(tiny_model("marian-de-en")))
    questions = joined_texts(model.join(), [row["id"] for row in english])
    assert len(questions) == len(english) == 1190
    assert sum(q == row["question"] for q, row in zip(questions, english)) < 20  # another language, not a copy
