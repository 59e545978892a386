"""The harness's measures against values computed by hand (no model, no torch)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from noisecraft.errors import ConfigError
from noisecraft.harness.breakdowns import CER_BUCKETS, EDIT_BUCKETS, by_buckets
from noisecraft.harness.challenge_set import ConfigData
from noisecraft.harness.classification_metrics import attack_success_rate, entropy, expected_calibration_error
from noisecraft.harness.entity_metrics import entities, entity_counts, precision_recall_f1
from noisecraft.harness.paired_stats import f1_of, mcnemar_exact, mean_of, paired_bootstrap
from noisecraft.harness.scoring import StatsSettings, score_classification, score_tokens
from noisecraft.harness.squad_metric import answer_tokens, exact_match, f1
from noisecraft.harness.tasks import CLASSIFICATION, TOKENS, TaskSpec
from noisecraft.runtime.labels import class_mapping, parse_label_map, tag_mapping

# --- extractive QA --------------------------------------------------------------------------------


def test_squad_normalisation_is_the_official_one():
    assert answer_tokens("The  Eiffel Tower!") == ["eiffel", "tower"]
    assert answer_tokens("an apple, a pear") == ["apple", "pear"]
    assert answer_tokens("«Paris»") == ["«paris»"]  # only ASCII punctuation is dropped by the v1.1 script
    assert answer_tokens("theory") == ["theory"]  # articles are whole words


def test_squad_exact_match_and_f1_take_the_best_gold_answer():
    assert exact_match("the Eiffel tower", ["Louvre", "Eiffel Tower."]) == 1.0
    assert exact_match("Eiffel", ["Eiffel Tower"]) == 0.0
    # prediction {cat, sat}; gold {cat, sat, down}: precision 1, recall 2/3 -> F1 0.8
    assert f1("the cat sat", ["a cat sat down"]) == pytest.approx(0.8)
    assert f1("the cat sat", ["a cat sat down", "cat sat"]) == 1.0
    assert f1("dog", ["cat"]) == 0.0
    assert f1("", ["cat"]) == 0.0
    # repeated tokens count once per occurrence: {the x2 dropped}, {one, one} vs {one}: P 1/2, R 1 -> 2/3
    assert f1("one one", ["one"]) == pytest.approx(2 / 3)


def test_mlqa_normalisation_is_language_aware():
    assert exact_match("der Hund", ["Hund"], "mlqa", "de") == 1.0
    assert exact_match("der Hund", ["Hund"], "squad", "de") == 0.0
    assert exact_match("«Paris»", ["Paris"], "mlqa", "fr") == 1.0
    # Chinese is scored per character: {北 京 大 学} vs {北 京}: P 1/2, R 1 -> 2/3; whitespace tokens give 0
    assert f1("北京大学", ["北京"], "mlqa", "zh") == pytest.approx(2 / 3)
    assert f1("北京大学", ["北京"], "squad", "zh") == 0.0
    assert answer_tokens("กรุงเทพ 2020", "mlqa", "th") == ["ก", "ร", "ุ", "ง", "เ", "ท", "พ", "2020"]


# --- classification ---------------------------------------------------------------------------------


def test_entropy_and_calibration_by_hand():
    assert entropy(np.array([[0.5, 0.5], [1.0, 0.0]])) == pytest.approx([math.log(2), 0.0])
    # bins of width 1/15: {0.9, 0.9} (accuracy 1/2) and {0.58, 0.55} (accuracy 1, confidence 0.565)
    conf, correct = np.array([0.9, 0.9, 0.58, 0.55]), np.array([1.0, 0.0, 1.0, 1.0])
    assert expected_calibration_error(conf, correct) == pytest.approx(0.5 * 0.4 + 0.5 * 0.435)
    assert attack_success_rate(np.array([1, 1, 0, 1]), np.array([0, 1, 1, 1])) == pytest.approx(1 / 3)
    assert math.isnan(attack_success_rate(np.array([0, 0]), np.array([1, 1])))


def _config(task: TaskSpec, gold: list, n: int | None = None) -> ConfigData:
    n = len(gold) if n is None else n
    text = [["x"]] * n if task.kind == CLASSIFICATION else [["w"] * len(g) for g in gold]
    return ConfigData(name="c", split="validation", lang="en", noise="keyboard@2", fields=(task.inputs[0],), task=task,
                      ids=[str(i) for i in range(n)], clean=text, noisy=text, gold=gold, edit_counts=[1] * n, cer=[0.1] * n)


def test_classification_scores_by_hand_through_a_permuted_label_map():
    task = TaskSpec(CLASSIFICATION, ("hypothesis",), "label", ("entailment", "neutral", "contradiction"))
    mapping = class_mapping("m", {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}, task.label_names)
    assert mapping.targets == (2, 0, 1) and mapping.how == "by name"
    # model-label probabilities (contradiction, entailment, neutral); gold: entailment, neutral, contradiction, entailment
    clean = [[0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.7, 0.2, 0.1], [0.3, 0.6, 0.1]]
    noisy = [[0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.7, 0.2, 0.1], [0.5, 0.4, 0.1]]
    scored = score_classification(_config(task, [0, 1, 2, 0]), clean, noisy, mapping, StatsSettings(resamples=50))
    m = scored.metrics
    assert m["accuracy"]["clean"] == 1.0 and m["accuracy"]["noisy"] == 0.5
    assert m["agreement"] == 0.5 and m["flip_rate"] == 0.5 and m["attack_success_rate"] == 0.5
    assert m["confidence"]["clean"] == pytest.approx((0.8 + 0.6 + 0.7 + 0.6) / 4)
    assert m["confidence"]["noisy"] == pytest.approx((0.6 + 0.6 + 0.7 + 0.5) / 4)
    assert m["accuracy"]["mcnemar"] == {"b": 2, "c": 0, "p_value": 0.5}
    assert scored.columns["noisy_prediction"] == ["contradiction", "neutral", "contradiction", "contradiction"]


def test_label_maps_by_name_by_position_given_or_a_clear_error():
    unnamed = class_mapping("m", {0: "LABEL_0", 1: "LABEL_1"}, ("not_equivalent", "equivalent"))
    assert unnamed.targets == (0, 1) and unnamed.how.startswith("by position")
    suggestion = r"cannot match NEUTRAL, CONTRADICTION by name.*--label-map 'ENTAILMENT=entailment,NEUTRAL=\.\.\.,"
    with pytest.raises(ConfigError, match=suggestion):
        class_mapping("m", {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}, ("entailment", "not_entailment"))
    given = class_mapping("m", {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}, ("entailment", "not_entailment"),
                          parse_label_map("ENTAILMENT=entailment, NEUTRAL=not_entailment, CONTRADICTION=not_entailment"))
    assert given.targets == (0, 1, 1) and given.how == "given"
    with pytest.raises(ConfigError, match="leaves model label"):
        class_mapping("m", {0: "A", 1: "B"}, ("x", "y"), {"A": "x"})
    with pytest.raises(ConfigError, match="expected MODEL_LABEL=DATASET_LABEL"):
        parse_label_map("LABEL_0")


def test_tag_map_drops_types_the_dataset_lacks():
    dataset = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC")
    mapping = tag_mapping("m", dict(enumerate(["O", "B-MISC", "I-MISC", "B-PERSON", "I-PERSON", "B-LOC", "I-LOC"])), dataset)
    assert mapping.targets == (0, None, None, 1, 2, 5, 6)
    with pytest.raises(ConfigError, match="not IOB2"):
        tag_mapping("m", {0: "O", 1: "PER"}, dataset)


# --- token classification -----------------------------------------------------------------------------


def test_entities_follow_seqeval_conventions():
    assert entities(["B-PER", "I-PER", "O", "B-LOC"]) == {("PER", 0, 1), ("LOC", 3, 3)}
    assert entities(["O", "I-LOC", "I-LOC"]) == {("LOC", 1, 2)}  # a stray I- starts an entity
    assert entities(["B-PER", "I-LOC"]) == {("PER", 0, 0), ("LOC", 1, 1)}
    assert entities(["B-PER", "B-PER"]) == {("PER", 0, 0), ("PER", 1, 1)}
    assert entity_counts(["B-PER", "I-PER", "O", "B-LOC"], ["B-PER", "I-PER", "O", "I-LOC"]) == (2, 2, 2)
    assert entity_counts(["B-PER", "I-PER", "O"], ["B-PER", "O", "B-ORG"]) == (0, 2, 1)
    assert precision_recall_f1(2, 4, 3) == pytest.approx({"precision": 0.5, "recall": 2 / 3, "f1": 4 / 7})
    assert precision_recall_f1(0, 0, 3) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_token_scores_are_micro_averaged_over_sentences():
    tags = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC")
    task = TaskSpec(TOKENS, ("tokens",), "ner_tags", tags)
    mapping = tag_mapping("m", dict(enumerate(tags)), tags)
    gold = [["B-PER", "I-PER", "O"], ["B-LOC", "O"]]
    clean = [[1, 2, 0], [3, 0]]  # both right
    noisy = [[1, 0, 0], [3, 3]]  # PER cut short (wrong), LOC right plus a spurious LOC: TP 1, predicted 3, gold 2
    m = score_tokens(_config(task, gold), clean, noisy, mapping, StatsSettings(resamples=20)).metrics
    assert m["entity_f1"]["clean"] == 1.0
    assert m["entity_f1"]["noisy"] == pytest.approx(2 * 1 / (3 + 2))
    assert m["entity_precision"]["noisy"] == pytest.approx(1 / 3) and m["entity_recall"]["noisy"] == 0.5


# --- paired statistics -----------------------------------------------------------------------------


def test_mcnemar_exact_p_values():
    def test(b: int, c: int) -> float:
        return mcnemar_exact(np.array([1] * b + [0] * c + [1] * 3), np.array([0] * b + [1] * c + [1] * 3))["p_value"]

    assert test(1, 5) == pytest.approx(2 * (1 + 6) / 2**6)  # 0.21875
    assert test(0, 10) == pytest.approx(2 / 2**10)
    assert test(0, 0) == 1.0 and test(4, 4) == 1.0
    exact = 2 * sum(math.comb(100, k) for k in range(31)) / 2**100  # stdlib big integers: the exact tail
    assert test(30, 70) == pytest.approx(exact, rel=1e-9)


def test_paired_bootstrap_is_seeded_and_paired():
    rng = np.random.default_rng(1)
    clean = rng.random(200)
    assert paired_bootstrap(mean_of(clean), mean_of(clean), 200) == (0.0, 0.0)
    assert paired_bootstrap(mean_of(clean + 1), mean_of(clean), 200) == pytest.approx((1.0, 1.0))  # pairing kept
    noisy = clean - rng.random(200) * 0.1
    first = paired_bootstrap(mean_of(clean), mean_of(noisy), 200, resamples=300, seed=7)
    assert first == paired_bootstrap(mean_of(clean), mean_of(noisy), 200, resamples=300, seed=7)
    assert first[0] < float((clean - noisy).mean()) < first[1]
    counts = np.array([[2, 3, 4], [0, 1, 1], [1, 1, 2]], dtype=float)
    statistic = f1_of(counts[:, 0], counts[:, 1], counts[:, 2])
    assert statistic(np.arange(3)[None, :])[0] == pytest.approx(precision_recall_f1(3, 5, 7)["f1"])


def test_noise_level_buckets():
    parts = np.arange(10, dtype=float) / 10
    rows = by_buckets([0, 1, 2, 3, 4, 5, 8, 9, 30, 0], EDIT_BUCKETS, parts, parts * 0, closed_low=True)
    assert [(r["bucket"], r["n"]) for r in rows] == [("0", 2), ("1", 1), ("2", 1), ("3-4", 2), ("5-8", 2), ("9+", 2)]
    assert rows[0]["clean"] == pytest.approx((0.0 + 0.9) / 2) and rows[0]["noisy"] == 0.0
    cer = [0.0, 0.05, 0.0500001, 0.1, 0.2, 0.21, 0.4, 0.41, 1.5, 0.01]
    rows = by_buckets(cer, CER_BUCKETS, parts, parts, closed_low=False)
    assert [(r["bucket"], r["n"]) for r in rows] == [("0%", 1), ("0-5%", 2), ("5-10%", 2), ("10-20%", 1),
                                                     ("20-40%", 2), (">40%", 2)]
