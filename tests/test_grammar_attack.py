"""``grammar-attack@1`` (Yin et al., 2020, worst case): the three searches find the one word a toy classifier
decides by, respect the budget, skip rows the victim already gets wrong, score every candidate of a step in
one batch, count queries, cache the victim's answers; then builds on GLUE-format files keep every row with
its status, read the pair side and the label, and report the results in the card."""

from __future__ import annotations

from collections.abc import Sequence

import datasets
import pyarrow.parquet as pq
import pytest

import noisecraft as nc
from noisecraft.building.noising import NoiseJob, field_input
from noisecraft.core.labels import LabelLayout
from noisecraft.core.seeding import ExampleRng
from noisecraft.dataset.repo import read_manifest
from noisecraft.errors import ConfigError
from noisecraft.grammar.search import AttackProblem, beam, genetic, greedy, operations, run_searches
from noisecraft.grammar.tagging import Word, word_spans
from noisecraft.noise_models.base import PairText
from noisecraft.runtime.heads import BoundHead, Probabilities, load_head
from noisecraft.runtime.labels import LabelMapping, class_mapping

from conftest import corpus
from tiny_models import tiny_model

SENTENCE = "The old teacher often gives the students very difficult homework ."
TAGS = "DT JJ NN RB VBZ DT NNS RB JJ NN ."


class ToyVictim:
    """A deterministic "model" whose decision depends on one word: class 1 while ``word`` is in the last text of
    its input (the perturbed one), class 0 otherwise. Records every call."""

    def __init__(self, word: str) -> None:
        self.word = word
        self.calls: list[int] = []

    def run(self, inputs: Sequence[tuple[str, ...]]) -> list[list[float]]:
        self.calls.append(len(inputs))
        return [[0.2, 0.8] if self.word in item[-1].split() else [0.7, 0.3] for item in inputs]

    def provenance(self) -> dict:
        return {"model": {"model": f"toy:{self.word}", "revision": "none"}}

    def label_mapping(self, dataset_labels: Sequence[str], remedy: str | None = None) -> LabelMapping:
        return class_mapping(f"toy:{self.word}", {0: "LABEL_0", 1: "LABEL_1"}, dataset_labels)


def load_victim(name: str, revision: str | None, device: str, dtype: str, max_length: int, token_budget: int,
                max_batch: int = 512, disk_cache: bool = True) -> BoundHead:
    """A victim as the attack makes it (a head bound to class probabilities), with its batching settings."""
    head = load_head(name, revision, device, dtype, max_length=max_length, token_budget=token_budget,
                     max_batch=max_batch, cache=disk_cache)
    return BoundHead(head, Probabilities(), "victim")


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def shared() -> dict[str, str]:
    return {"confusions": str(tiny_model("gec-confusions-sample")), "nltk_data": str(tiny_model("nltk-data-sample")),
            "tagger": "nltk", "victim": str(tiny_model("cls-mrpc"))}


@pytest.fixture(scope="module")
def attack(shared):
    return nc.noise("grammar-attack", **shared)


def problem_for(attack, text: str, tags: str, budget: float = 0.15, label: int = 1) -> AttackProblem:
    spans, labels = word_spans(text), tags.split()
    words = [Word(s, e, text[s:e], t) for (s, e), t in zip(spans, labels)]
    sites = attack.finder().sites(text, words)
    return AttackProblem(text, (text,), 0, [(w.start, w.end) for w in words], operations(sites), budget, label)


def solve(search, victim):
    [(outcome, queries)] = run_searches([search], victim)
    return outcome, queries


# --- the searches ------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["greedy", "beam", "genetic"])
def test_every_search_finds_the_word_the_toy_model_decides_by(attack, method):
    problem = problem_for(attack, SENTENCE, TAGS)
    victim = ToyVictim("students")
    clean = victim.run([problem.clean_input])[0]
    search = {"greedy": lambda: greedy(problem, clean), "beam": lambda: beam(problem, clean, 5),
              "genetic": lambda: genetic(problem, clean, 10, 5, ExampleRng(0))}[method]()
    outcome, queries = solve(search, victim)
    assert outcome.status == "succeeded"
    changed = problem.perturbed(outcome.state)
    assert "students" not in changed.split() and len(problem.used(outcome.state)) == 1
    assert [e.original for e in problem.edits(outcome.state)] in (["students"], ["the "], ["the"])  # the word or its article
    assert 0 < queries <= sum(victim.calls)  # distinct inputs asked about


def test_greedy_ranks_words_by_deletion_then_tries_the_best_word_first(attack):
    problem = problem_for(attack, SENTENCE, TAGS)
    victim = ToyVictim("students")
    outcome, queries = solve(greedy(problem, [0.2, 0.8]), victim)
    anchors = problem.anchors()
    # one call for the deletions (every anchor word), one for the operations at "students" (word 6), and done
    assert victim.calls == [len(anchors), len(anchors[6])]
    assert queries == len(anchors) + len(anchors[6])  # every input asked about is distinct
    assert outcome.status == "succeeded" and min(problem.used(outcome.state)) == 6


def test_the_budget_bounds_the_words_modified_and_a_failed_search_keeps_its_best_attempt(attack):
    class TwoWords(ToyVictim):
        def run(self, inputs):
            self.calls.append(len(inputs))
            return [[0.7, 0.3] if not {"students", "teacher"} & set(i[-1].split()) else
                    [0.45, 0.55] if len({"students", "teacher"} & set(i[-1].split())) == 1 else [0.2, 0.8] for i in inputs]

    problem = problem_for(attack, SENTENCE, TAGS)  # 11 words x 0.15: one word may change, both would be needed
    assert problem.budget == 1
    for search in (greedy(problem, [0.2, 0.8]), beam(problem, [0.2, 0.8], 5),
                   genetic(problem, [0.2, 0.8], 8, 3, ExampleRng(1))):
        outcome, _ = solve(search, TwoWords("-"))
        assert outcome.status == "failed" and len(problem.used(outcome.state)) == 1
        assert outcome.probabilities == [0.45, 0.55]  # the best it could do
    wider = problem_for(attack, SENTENCE, TAGS, budget=0.2)
    assert wider.budget == 2 and solve(greedy(wider, [0.2, 0.8]), TwoWords("-"))[0].status == "succeeded"


def test_all_examples_of_a_step_are_scored_in_one_call_and_lockstep_equals_one_by_one(attack):
    texts = [SENTENCE, "The teachers are happy with the progress of their students .",
             "Students must always submit their essays before the deadline ."]
    tags = [TAGS, "DT NNS VBP JJ IN DT NN IN PRP$ NNS .", "NNS MD RB VB PRP$ NNS IN DT NN ."]
    victim = ToyVictim("students")
    problems = [problem_for(attack, t, g) for t, g in zip(texts, tags)]
    together = run_searches([greedy(p, [0.2, 0.8]) for p in problems], victim)
    assert len(victim.calls) == 2  # importance of every row's words, then every row's candidates
    alone = [solve(greedy(p, [0.2, 0.8]), ToyVictim("students")) for p in problems]
    assert [(o.status, o.state, q) for o, q in together] == [(o.status, o.state, q) for o, q in alone]
    assert [o.status for o, _ in together] == ["succeeded"] * 3


# --- the victim -----------------------------------------------------------------------------------


def test_victim_batches_caches_and_keeps_pair_order(shared, tmp_path):
    victim = load_victim(shared["victim"], None, "cpu", "auto", 64, 4096)
    pairs = [("a cat sat .", "the dog sat ."), ("the dog sat .", "a cat sat ."), ("a cat sat .", "the dog sat .")]
    first = victim.run(pairs)
    assert victim.computed == 2 and first[0] == first[2] and first[0] != first[1]  # (a, b) is not (b, a)
    assert all(abs(sum(p) - 1) < 1e-5 and p == [round(x, 6) for x in p] for p in first)
    again = load_victim(shared["victim"], None, "cpu", "auto", 64, 4096)
    assert again.run(pairs) == first and again.computed == 0  # from the disk cache
    one_by_one = load_victim(shared["victim"], None, "cpu", "auto", 64, 4096, max_batch=1, disk_cache=False)
    alone = [one_by_one.run([p])[0] for p in pairs]  # padding in a batch moves the last digits only
    assert all(a == pytest.approx(b, abs=1e-5) for x, y in zip(alone, first) for a, b in zip(x, y))
    assert victim.provenance()["model"]["revision"].startswith("sha256:")
    assert victim.provenance() == {**victim.fingerprint(), "device": "cpu"}


def test_the_victims_truncation_length_decides_its_cache(shared):
    long_input = [("the old teacher often gives the students very difficult homework and the students do it .",)]
    full = load_victim(shared["victim"], None, "cpu", "auto", 64, 4096)
    first = full.run(long_input)
    short = load_victim(shared["victim"], None, "cpu", "auto", 8, 4096)
    assert short.fingerprint()["max_length"] == 8 and full.fingerprint()["max_length"] == 64
    truncated = short.run(long_input)
    assert short.computed == 1 and truncated != first  # not served the untruncated answer from the disk cache


def test_a_victim_without_a_trained_classification_head_is_refused(shared, tmp_path):
    victim = load_victim(str(tiny_model("qa-bert")), None, "cpu", "auto", 64, 4096)
    with pytest.raises(ConfigError, match=r"qa-bert .*no trained weights for .*classifier\.weight.*not a checkpoint"):
        victim.run([("a question ?",)])


def test_victim_labels_are_matched_to_the_datasets_by_name(shared):
    mnli = nc.noise("grammar-attack", **{**shared, "victim": str(tiny_model("cls-mnli"))})
    names = ("entailment", "neutral", "contradiction")
    mapped = mnli.for_labels(names)
    assert mapped.label_mapping().targets == (2, 0, 1) and mapped.label_mapping().how == "by name"
    victim = mapped.runtime().head
    pairs = [PairText("The teacher gives homework .", SENTENCE, 1), PairText("A cat sat .", "She walks to school .", 1)]
    out = mapped(pairs, labels=[0, 2])
    for pair, noised, gold in zip(pairs, out, [0, 2]):
        assert noised.columns["attack_label"] == gold  # in the dataset's label space
        if noised.columns["attack_status"] == "skipped":  # the victim's own argmax, mapped by name
            clean = victim.run([(pair.first, pair.second)])[0]
            assert noised.columns["attack_prediction"] == (2, 0, 1)[clean.index(max(clean))]
    two_labels = nc.noise("grammar-attack", **{**shared, "victim": str(tiny_model("cls-unnamed"))})
    with pytest.raises(ConfigError, match=r"grammar-attack@1 victim=.*cls-unnamed.*it has 2 labels and the dataset 3"):
        two_labels.for_labels(names)
    assert two_labels.for_labels(("no", "yes")).label_mapping().how.startswith("by position")
    mrpc = nc.noise("grammar-attack", **shared)
    with pytest.raises(ConfigError, match=r"cls-mrpc \(not_equivalent, equivalent\) do not fit the dataset's "
                                          r"\(negative, positive\): cannot match .* by name\. Attack it with a victim"):
        mrpc.for_labels(("negative", "positive"))
    assert mrpc.for_labels(("not_equivalent", "equivalent")).label_mapping().targets == (0, 1)


# --- the noise model ------------------------------------------------------------------------------------


def test_attack_statuses_and_columns(attack, monkeypatch):
    monkeypatch.setitem(attack.runtime().__dict__, "head", ToyVictim("students"))
    texts = [SENTENCE, "The students like the students .", PairText("premise", SENTENCE, 1)]
    out = attack(texts, labels=[1, 1, 0])
    assert [n.columns["attack_status"] for n in out] == ["succeeded", "failed", "skipped"]
    succeeded, failed, skipped = out
    assert "students" not in succeeded.text.split() and succeeded.columns["attack_prediction"] == 0
    assert succeeded.columns["attack_words_modified"] == round(1 / 11, 4)
    assert failed.columns["attack_words_modified"] is None and failed.columns["attack_prediction"] == 1
    assert (skipped.text, skipped.edits, skipped.columns["attack_queries"]) == (SENTENCE, (), 1)
    without_labels = attack(texts[:1])  # no gold label: the clean prediction is attacked
    assert without_labels[0].columns["attack_label"] == 1 and without_labels[0].text == succeeded.text


def test_spec_errors(shared):
    with pytest.raises(ConfigError, match="needs victim="):
        nc.noise("grammar-attack", **{**shared, "victim": ""})
    with pytest.raises(ConfigError, match="search"):
        nc.noise("grammar-attack", **shared, search="random")
    with pytest.raises(ConfigError, match="one field"):
        NoiseJob(nc.noise("grammar-attack", **shared), 0, ("sentence1", "sentence2"),
                 LabelLayout(pair_fields=("sentence1", "sentence2"), class_label="label"))


def test_pair_fields_reach_the_model_with_their_side(attack):
    layout = LabelLayout(pair_fields=("premise", "hypothesis"), class_label="label")
    rows = [{"id": "1", "premise": "p .", "hypothesis": "h .", "label": 0}]
    for field, target in (("premise", 0), ("hypothesis", 1)):
        batch = field_input(NoiseJob(attack, 0, (field,), layout), rows, field)
        assert batch.pairs == (PairText("p .", "h .", target),) and batch.texts == (rows[0][field],)
        assert batch.labels == (0,)


MRPC_HEADER = "\ufeffQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"


def test_build_keeps_every_row_with_status_and_reports_results(shared, tmp_path):
    rows = [(1, "The old teacher often gives the students very difficult homework .", "The teacher gives homework ."),
            (0, "She walks to the old school every morning .", "She goes to school ."),
            (1, "The children were playing in the park when it started to rain .", "Children played in the park ."),
            (0, "My brother plays football with his friends on Sundays .", "He plays football .")]
    tsv = tmp_path / "dev.tsv"
    tsv.write_text(MRPC_HEADER + "".join(f"{q}\t{i}\t{i + 100}\t{a}\t{b}\n" for i, (q, a, b) in enumerate(rows)),
                   encoding="utf-8")
    noise = nc.noise("grammar-attack", **shared, budget=0.3)
    [built] = nc.build("glue/mrpc", noise, tmp_path / "out", data_file=tsv, progress=False)
    table = pq.read_table(built.path).to_pylist()
    assert [r["id"] for r in table] == ["0", "1", "2", "3"]  # every row, aligned with the clean set
    assert built.stats["rows"] == 4 and sum(built.stats["columns"]["attack_status"].values()) == 4
    assert [r["sentence2"] for r in table] == [b for _, _, b in rows]  # sentence1 is the side perturbed (the paper's)
    for row in table:
        assert row["noise_attack_status"] in ("succeeded", "failed", "skipped")
        assert row["noise_attack_label"] == row["label"]
        assert (row["noise_attack_status"] == "skipped") == (row["noise_attack_prediction"] != row["label"] and
                                                              not row["noise_edits"])
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "- **Results**: attack success rate " in card and "victim `cls-mrpc` at revision `sha256:" in card
    loaded = datasets.load_dataset(str(tmp_path / "out"), built.name, split=built.split)
    assert loaded.features["noise_attack_status"].dtype == "string" and loaded.num_rows == 4
    manifest = read_manifest(tmp_path / "out")
    assert manifest["configs"][built.name]["provenance"]["victim"]["model"]["model"] == "cls-mrpc"


def test_perturb_a_dataset_with_its_label_and_pair_layout(shared):
    dataset = datasets.Dataset.from_dict({"id": ["a", "b"], "premise": ["The teacher gives homework ."] * 2,
                                          "hypothesis": [SENTENCE, "She walks to the old school every morning ."],
                                          "label": [1, 0]})
    layout = nc.LabelLayout(pair_fields=("premise", "hypothesis"), class_label="label")
    out = nc.perturb(dataset, nc.noise("grammar-attack", **shared), ["hypothesis"], labels=layout)
    assert out.num_rows == 2 and out["premise"] == dataset["premise"]
    assert out["noise_attack_label"] == [1, 0]


def test_greedy_attack_on_real_mrpc_rows(shared, tmp_path):
    """Real corpus: the first 30 MRPC dev pairs, the tiny classifier, confusions mined from CoNLL-2014."""
    lines = corpus("glue/MRPC/dev.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    tsv = tmp_path / "dev.tsv"
    tsv.write_text("".join(lines[:31]), encoding="utf-8")
    noise = nc.noise("grammar-attack", **{**shared, "confusions": str(tiny_model("gec-confusions-conll2014"))})
    [built] = nc.build("glue/mrpc", noise, tmp_path / "out", data_file=tsv, progress=False)
    status = built.stats["columns"]["attack_status"]
    assert sum(status.values()) == 30 and status.get("succeeded", 0) > 0
    for row in pq.read_table(built.path).to_pylist():
        words = len(word_spans(row["original_sentence1"]))
        touched = {e["start"] for e in row["noise_edits"]}
        assert len(touched) <= max(1, int(0.15 * words)) * 2  # a swap is two edits of one operation
        assert row["noise_attack_queries"] >= 1


def test_a_build_refuses_a_victim_trained_on_other_labels(shared, tmp_path):
    tsv = tmp_path / "dev.tsv"
    tsv.write_text("sentence\tlabel\nThe old teacher often gives the students homework .\t1\n", encoding="utf-8")
    noise = nc.noise("grammar-attack", **shared)  # an MRPC victim on SST-2
    with pytest.raises(ConfigError, match=r"victim=.*cls-mrpc.*\(not_equivalent, equivalent\) do not fit the "
                                          r"dataset's \(negative, positive\)"):
        nc.build("glue/sst2", noise, tmp_path / "out", data_file=tsv, progress=False)
    assert not (tmp_path / "out" / "README.md").exists()


def test_a_chain_ending_in_an_attack_checks_its_victims_labels(shared):
    chain = nc.chain(nc.noise("keyboard"), nc.noise("grammar-attack", **{**shared, "victim": str(tiny_model("cls-mnli"))}))
    mapped = chain.for_labels(("entailment", "neutral", "contradiction"))
    assert mapped.steps()[-1].label_mapping().targets == (2, 0, 1) and mapped.steps()[0] == chain.steps()[0]
    with pytest.raises(ConfigError, match=r"grammar-attack@1 victim=.*cls-mnli.*do not fit"):
        chain.for_labels(("negative", "positive"))
