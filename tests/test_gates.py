"""``--fail-if`` bounds on hand-made results: what each bound reads, point vs interval, and what breaks a gate."""

from __future__ import annotations

import pytest

from noisecraft.errors import ConfigError
from noisecraft.harness.gates import parse_bound, violations


def result(config: str, accuracy: tuple[float, float, float, float] | None = None, agreement: float | None = 0.9,
           f1: tuple[float, float, float, float] | None = None) -> dict:
    """A results.json entry: each score as (clean, noisy, ci low, ci high), fractions."""
    metrics: dict = {}
    for name, score in (("accuracy", accuracy), ("f1", f1)):
        if score is not None:
            clean, noisy, low, high = score
            metrics[name] = {"clean": clean, "noisy": noisy, "difference": None if clean is None else clean - noisy,
                             "ci": [low, high]}
    if accuracy is not None:
        metrics["agreement"] = agreement
    return {"model": "m", "config": config, "primary_metric": "f1" if f1 else "accuracy", "metrics": metrics}


RECORD = {"results": [result("a", (0.80, 0.74, 0.02, 0.10), agreement=0.91),   # drop 6 points, interval [2, 10]
                      result("b", (0.80, 0.77, -0.01, 0.07), agreement=0.95)]}  # drop 3 points, interval [-1, 7]


def test_a_drop_bound_reads_the_point_estimate_by_default():
    assert violations(RECORD, [parse_bound("accuracy_drop>5")]) == ["m on a: accuracy drop 6.0 breaks accuracy_drop>5"]
    assert violations(RECORD, [parse_bound("accuracy_drop>6.5")]) == []
    assert len(violations(RECORD, [parse_bound("accuracy_drop>2.9")])) == 2


def test_on_the_interval_a_drop_breaks_only_when_its_lower_end_is_above_the_bound():
    assert violations(RECORD, [parse_bound("accuracy_drop>1")], on="interval") == [
        "m on a: accuracy drop, interval's lower end 2.0 breaks accuracy_drop>1"]
    assert violations(RECORD, [parse_bound("accuracy_drop>2")], on="interval") == []  # 2.0 is not above 2


def test_agreement_is_a_floor_and_bounds_combine():
    bounds = [parse_bound("agreement<93"), parse_bound("accuracy_drop>5")]
    assert violations(RECORD, bounds) == ["m on a: agreement 91.0 breaks agreement<93",
                                          "m on a: accuracy drop 6.0 breaks accuracy_drop>5"]


def test_an_undefined_score_breaks_the_gate():
    record = {"results": [result("empty", (None, None, None, None), agreement=None)]}
    assert violations(record, [parse_bound("accuracy_drop>5")]) == [
        "m on empty: accuracy drop undefined breaks accuracy_drop>5"]
    assert violations(record, [parse_bound("agreement<50")]) == ["m on empty: agreement undefined breaks agreement<50"]


def test_a_bound_no_config_has_is_an_error_not_a_pass():
    with pytest.raises(ConfigError, match="no evaluated config has f1"):
        violations(RECORD, [parse_bound("f1_drop>5")])
    qa = {"results": [result("q", f1=(0.7, 0.6, 0.05, 0.15))]}
    assert violations(qa, [parse_bound("f1_drop>9")]) == ["m on q: f1 drop 10.0 breaks f1_drop>9"]


@pytest.mark.parametrize("text", ["acc>5", "accuracy_drop<5", "agreement>90", "accuracy_drop>", "f1_drop>-1",
                                  "agreement_drop>5", "accuracy_drop>5%"])
def test_malformed_bounds_are_one_line_errors(text):
    with pytest.raises(ConfigError, match="write METRIC_drop>N"):
        parse_bound(text)


def test_em_is_exact_match():
    assert parse_bound(" em_drop > 3 ").metric == "exact_match"


def test_the_python_face_reads_bounds_as_the_cli_does():
    from noisecraft.harness.result import EvaluationResult

    assert EvaluationResult(RECORD, []).violations("accuracy_drop>1", on="interval") == [
        "m on a: accuracy drop, interval's lower end 2.0 breaks accuracy_drop>1"]
