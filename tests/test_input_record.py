"""One input record for every noise model (``apply(batch: NoiseInput)``), and chains that forward it.

A chain gives each step the whole record (ids, class labels, joined text; spans and pair context carried
from the previous step) and keeps the last step's per-row columns, so ``keyboard | grammar-attack`` attacks
the gold label of the whole pair and keeps the attack's status; what cannot work in a chain is refused
with a reason; a model-based step after the first is prepared with the previous steps' outputs."""

from __future__ import annotations

import inspect

import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st
from recording_model import SEEN, Recorder

import noisecraft as nc
from noisecraft.core.edits import Edit, apply_edits
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import NoiseModel, model_input, prepare_steps, run_steps
from noisecraft.noise_models.registry import VERSIONS, model_class

from tiny_models import tiny_model

MRPC_HEADER = "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
MRPC_ROWS = [(1, "The old teacher often gives the students very difficult homework .", "The teacher gives homework ."),
             (0, "She walks to the old school every morning .", "She goes to school ."),
             (1, "The children were playing in the park when it started to rain .", "Children played in the park ."),
             (0, "My brother plays football with his friends on Sundays .", "He plays football .")]


@pytest.mark.parametrize("noise_id", sorted(f"{n}@{v}" for n, v in VERSIONS))
def test_every_model_takes_the_one_record(noise_id):
    cls = model_class(noise_id)
    assert list(inspect.signature(cls.apply).parameters) == ["self", "batch"], noise_id
    if cls.prepare is not NoiseModel.prepare:
        assert list(inspect.signature(cls.prepare).parameters) == ["self", "batch", "progress"], noise_id


@pytest.fixture(scope="module")
def attack_params() -> dict[str, str]:
    return {"confusions": str(tiny_model("gec-confusions-sample")), "nltk_data": str(tiny_model("nltk-data-sample")),
            "tagger": "nltk", "victim": str(tiny_model("cls-mrpc")), "budget": 0.3}


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache"))


class SpyVictim:
    """The real victim, with every input it is asked about recorded."""

    def __init__(self, victim) -> None:
        self.victim = victim
        self.inputs: list[tuple[str, ...]] = []

    def run(self, inputs):
        self.inputs.extend(inputs)
        return self.victim.run(inputs)

    def provenance(self):
        return self.victim.provenance()

    def label_mapping(self, dataset_labels, remedy=None):
        return self.victim.label_mapping(dataset_labels, remedy)


def test_a_chain_ending_in_grammar_attack_keeps_labels_pair_context_and_status_columns(attack_params, tmp_path,
                                                                                       monkeypatch):
    tsv = tmp_path / "dev.tsv"
    tsv.write_text(MRPC_HEADER + "".join(f"{q}\t{i}\t{i + 100}\t{a}\t{b}\n" for i, (q, a, b) in enumerate(MRPC_ROWS)),
                   encoding="utf-8")
    attack = nc.noise("grammar-attack", **attack_params)
    spy = SpyVictim(attack.runtime().head)
    monkeypatch.setitem(attack.runtime().__dict__, "head", spy)
    chain = nc.chain(nc.noise("keyboard", rate=0.3), attack)
    [built] = nc.build("glue/mrpc", chain, tmp_path / "out", data_file=tsv, config_name="attack-chain", progress=False)
    table = pq.read_table(built.path).to_pylist()
    assert [r["id"] for r in table] == ["0", "1", "2", "3"]
    assert sum(built.stats["columns"]["attack_status"].values()) == 4
    for row, (label, first, second) in zip(table, MRPC_ROWS):
        assert row["noise_attack_label"] == row["label"] == label  # the gold label, not the victim's prediction
        assert row["noise_attack_status"] in ("succeeded", "failed", "skipped")
        assert row["original_sentence1"] == first and row["sentence2"] == second
        edits = [Edit(e["start"], e["end"], e["original"], e["replacement"], e["kind"]) for e in row["noise_edits"]]
        assert apply_edits(first, edits) == row["sentence1"]  # one log against the clean text
    # the victim read whole pairs: the noisy first sentence with its clean second one
    assert spy.inputs and all(len(item) == 2 and item[1] in {b for _, _, b in MRPC_ROWS} for item in spy.inputs)
    assert {item[0] for item in spy.inputs} & {row["sentence1"] for row in table}


def test_a_step_with_row_columns_must_be_the_last(attack_params):
    with pytest.raises(ConfigError, match="grammar-attack@1 reports per-row columns .* only be the last step"):
        nc.chain(nc.noise("grammar-attack", **attack_params), nc.noise("keyboard"))
    with pytest.raises(ConfigError, match="cannot be chained"):
        nc.chain(nc.noise("keyboard"), nc.noise("copysort"))


def test_a_model_based_step_after_the_first_is_prepared_with_the_previous_outputs():
    chain = nc.chain(nc.noise("keyboard", rate=1.0), Recorder())
    texts, ids = ["the first question", "the second question"], ["q1", "q2"]
    SEEN.clear()
    prepare_steps(chain, model_input(chain, texts, 3, ids, "question", labels=[1, 0]), 3, "question", progress=False)
    out = run_steps(chain, model_input(chain, texts, 3, ids, "question", labels=[1, 0]), 3, "question")
    [(first, prepared), (second, applied)] = SEEN
    assert (first, second) == ("prepare", "apply")
    assert prepared.texts == applied.texts != tuple(texts)  # the keyboard's output, known before the batches run
    assert [n.text for n in out] == [t + "!" for t in applied.texts] and [n.columns for n in out] == [
        {"seen_label": 1}, {"seen_label": 0}]



@given(st.lists(st.one_of(st.text(), st.text(alphabet=st.characters(min_codepoint=0xD700, max_codepoint=0xE000)),
                          st.integers(), st.none()), max_size=6))
def test_all_plain_texts_is_text_problem_for_every_value(values):
    # model(texts, ...) checks all texts in one C pass and goes row by row only when that pass finds a problem.
    from noisecraft.noise_models.record import all_plain_texts, text_problem

    assert all_plain_texts(values) == all(text_problem(value) is None for value in values)
