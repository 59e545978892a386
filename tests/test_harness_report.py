"""The evaluation report: what its statistics claim (interval level, calibration bins, agreement, significance,
clustered pooling, tiny samples), its breakdowns (whole-field noise, one CER) and views (model comparison,
language x noise, rate sweeps, reliability), its plots, and the harness's import graph."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pytest

import noisecraft as nc
from noisecraft.core.stats import FieldScores
from noisecraft.harness.breakdowns import noise_breakdowns
from noisecraft.harness.challenge_set import ConfigData, character_error_rate
from noisecraft.harness.classification_metrics import expected_calibration_error, reliability_bins
from noisecraft.harness.display import MIN_ROWS
from noisecraft.harness.paired_stats import bootstrap_draws, clustered_bootstrap, compare, mean_of, paired_bootstrap
from noisecraft.harness.plots import rate_sweeps, wrap_name
from noisecraft.harness.report import difference, language_noise_table, summary_rows
from noisecraft.harness.scoring import StatsSettings, score_classification
from noisecraft.harness.tasks import CLASSIFICATION, TaskSpec
from noisecraft.runtime.labels import class_mapping

from conftest import REPO_ROOT

# --- statistics: each test catches one mutation that the older suite let through --------------------


def test_a_95_percent_interval_holds_95_percent_of_the_resampled_differences():
    rng = np.random.default_rng(3)
    clean = rng.random(300)
    noisy = clean - rng.normal(0.05, 0.2, 300)
    cleans, noisies = bootstrap_draws(mean_of(clean), mean_of(noisy), 300, resamples=2000, seed=5)
    differences = cleans - noisies
    for level in (0.95, 0.9):
        low, high = paired_bootstrap(mean_of(clean), mean_of(noisy), 300, resamples=2000, confidence=level, seed=5)
        assert (low, high) == tuple(np.percentile(differences, [50 * (1 - level), 50 * (1 + level)]))
        inside = ((differences >= low) & (differences <= high)).mean()
        assert inside == pytest.approx(level, abs=0.002)
    # the tables name the level the settings asked for
    record = {"settings": {"confidence": 0.9},
              "results": [{"model": "m", "config": "c", "n": 300, "primary_metric": "accuracy",
                           "metrics": {"accuracy": {"clean": 0.8, "noisy": 0.7, "difference": 0.1, "ci": [0.05, 0.15],
                                                    "significant": True, "n": 300}}}]}
    assert "clean - noisy [90% CI]" in summary_rows(record)[0]


def test_calibration_bins_are_closed_on_the_right():
    # two bins (0, 0.5] and (0.5, 1]: a confidence of exactly 0.5 belongs to the first
    conf, correct = np.array([0.5, 0.9]), np.array([1.0, 0.0])
    assert expected_calibration_error(conf, correct, bins=2) == pytest.approx(0.5 * 0.5 + 0.5 * 0.9)
    edge = np.linspace(0.0, 1.0, 16)[4]  # the edge 4/15 of the default 15 bins, as the bins compute it
    bins = reliability_bins(np.array([edge, 1.0]), np.array([1.0, 1.0]))
    assert [(b["low"], b["high"], b["n"]) for b in bins] == [(np.linspace(0, 1, 16)[3], edge, 1), (14 / 15, 1.0, 1)]


def test_agreement_is_clean_vs_noisy_prediction_not_noisy_accuracy():
    task = TaskSpec(CLASSIFICATION, ("sentence",), "label", ("negative", "positive"))
    mapping = class_mapping("m", {0: "negative", 1: "positive"}, task.label_names)
    gold = [0, 0, 0, 0]
    data = ConfigData(name="c", split="validation", lang="en", noise="keyboard", fields=("sentence",), task=task,
                      ids=["0", "1", "2", "3"], clean=[["x"]] * 4, noisy=[["y"]] * 4, gold=gold, edit_counts=[1] * 4,
                      cer=[0.1] * 4)
    clean = [[0.2, 0.8], [0.3, 0.7], [0.9, 0.1], [0.8, 0.2]]  # predicts 1, 1, 0, 0
    noisy = [[0.2, 0.8], [0.3, 0.7], [0.4, 0.6], [0.8, 0.2]]  # predicts 1, 1, 1, 0
    metrics = score_classification(data, clean, noisy, mapping, StatsSettings(resamples=20)).metrics
    assert metrics["accuracy"]["noisy"] == 0.25
    assert metrics["agreement"] == 0.75 and metrics["flip_rate"] == 0.25


def test_an_interval_entirely_below_zero_is_significant():
    clean = np.linspace(0.1, 0.5, 50)
    result = compare(mean_of(clean), mean_of(clean + 0.2), 50, resamples=200, confidence=0.95, seed=0, alpha=0.05)
    assert result["ci"][1] < 0 and result["significant"]
    above = compare(mean_of(clean + 0.2), mean_of(clean), 50, resamples=200, confidence=0.95, seed=0, alpha=0.05)
    assert above["ci"][0] > 0 and above["significant"]
    mixed = np.tile([0.3, -0.3], 25)
    around = compare(mean_of(clean + mixed), mean_of(clean), 50, resamples=200, confidence=0.95, seed=0, alpha=0.05)
    assert around["ci"][0] < 0 < around["ci"][1] and not around["significant"]


# --- pooling configs that share rows ------------------------------------------------------------------


def test_configs_sharing_rows_are_resampled_by_example_not_by_row():
    rng = np.random.default_rng(0)
    clean = (rng.random(120) < 0.8).astype(float)
    noisy = np.where(rng.random(120) < 0.1, 1 - clean, clean)
    ids = np.array([str(i) for i in range(120)])
    one = clustered_bootstrap(clean, noisy, ids, resamples=500, seed=1)
    # four configs that happen to be identical: the same 120 examples, not 480 independent ones
    four = clustered_bootstrap(np.tile(clean, 4), np.tile(noisy, 4), np.tile(ids, 4), resamples=500, seed=1)
    assert four == pytest.approx(one)
    naive = paired_bootstrap(mean_of(np.tile(clean, 4)), mean_of(np.tile(noisy, 4)), 480, resamples=500, seed=1)
    assert (naive[1] - naive[0]) < 0.7 * (one[1] - one[0])  # what pooling rows used to claim
    counts = np.array([[2, 3, 4], [0, 1, 1]], dtype=float)  # F1 parts: pooled counts, not a mean of rows
    low, high = clustered_bootstrap(counts, counts, np.array(["a", "b"]), resamples=50, seed=0)
    assert low == high == 0.0


def test_tiny_samples_are_shown_but_not_tested():
    comparison = {"difference": 1.0, "ci": [1.0, 1.0], "significant": False, "n": 1}
    assert difference(comparison) == "+100.0 [+100.0, +100.0] (too few rows: n = 1)"
    assert "too few" not in difference({**comparison, "n": MIN_ROWS})
    assert difference({**comparison, "n": MIN_ROWS}).endswith("n.s.")


# --- breakdowns ---------------------------------------------------------------------------------------


def test_a_whole_field_rewrite_is_one_category_not_one_edit():
    parts = np.array([1.0, 0.0, 1.0, 1.0])
    rows = noise_breakdowns([0, 1, 1, 1], [0.0, 0.5, 0.4, 0.3], parts, parts, whole_field=True)["edits"]
    assert [(r["bucket"], r["n"]) for r in rows] == [("0", 1), ("whole field", 3)]
    rows = noise_breakdowns([0, 1, 1, 3], [0.0] * 4, parts, parts, settings=StatsSettings(resamples=100))["edits"]
    assert [(r["bucket"], r["n"]) for r in rows] == [("0", 1), ("1", 2), ("3-4", 1)]
    assert rows[1]["noisy_ci"][0] <= rows[1]["noisy"] <= rows[1]["noisy_ci"][1]


def test_the_breakdown_cer_is_the_cards_cer():
    pairs = [(" Where is it? ", "Whree is it?"), ("a b", "a  b"), ("", "x")]
    for original, noisy in pairs:
        card = FieldScores()
        card.add(original, noisy)
        assert character_error_rate([original], [noisy]) == card.exact_scores()["cer"] / 100
    card = FieldScores()
    card.add("ab", "ac")
    card.add("cd", "cd")
    assert character_error_rate(["ab", "cd"], ["ac", "cd"]) == card.exact_scores()["cer"] / 100 == 0.25


# --- views --------------------------------------------------------------------------------------------


def _result(model: str, config: str, lang: str, noise: str, params: dict, clean: float, noisy: float, n: int = 100):
    comparison = {"clean": clean, "noisy": noisy, "difference": clean - noisy, "ci": [clean - noisy - 0.02,
                  clean - noisy + 0.02], "significant": True, "n": n, "clean_ci": [clean - 0.03, clean + 0.03],
                  "noisy_ci": [noisy - 0.03, noisy + 0.03]}
    return {"model": model, "config": config, "lang": lang, "noise_id": noise, "params": params, "n": n,
            "primary_metric": "accuracy", "task": CLASSIFICATION, "metrics": {"accuracy": comparison}}


def test_language_by_noise_table_and_rate_sweeps():
    results = [_result("m", f"xnli-{lang}-{noise}", lang, noise, {"rate": 0.1}, 0.8, 0.7 if lang == "en" else 0.6)
               for lang in ("en", "de") for noise in ("keyboard@2", "swap@2")]
    table = language_noise_table(results)
    assert table.splitlines()[0] == "| model | lang | clean | keyboard@2 rate=0.1 | swap@2 rate=0.1 |"
    assert "| m | de | 80.0 | 60.0 (-20.0) | 60.0 (-20.0) |" in table
    sweep = [_result("m", f"k{rate}", "en", "keyboard@2", {"rate": rate, "mode": "noiseqa"}, 0.8, 0.8 - rate)
             for rate in (0.4, 0.1, 0.2)]
    other = [_result("m", "k-other", "en", "keyboard@2", {"rate": 0.3, "mode": "uniform"}, 0.8, 0.5)]
    [found] = rate_sweeps(sweep + other + results[:1])
    assert found["param"] == "rate" and [value for value, _ in found["points"]] == [0.1, 0.2, 0.4]


def test_long_config_names_wrap_and_are_never_cut():
    name = "xquad-en-asr-espeak-en-gb-scotland-f3-whisper-base-lowercase-start"
    wrapped = wrap_name(name, 18)
    assert wrapped.replace("\n", "") == name and max(len(line) for line in wrapped.splitlines()) <= 18
    assert wrapped.splitlines()[0] == "xquad-en-asr-"  # broken after a hyphen, not inside a word


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two tiny classifiers on SST-2-like rows: keyboard noise at three rates and a shuffle, with plots."""
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    from tiny_models import CORPUS_EN, tiny_model

    root = tmp_path_factory.mktemp("report")
    lines = ["sentence\tlabel"] + [f"{CORPUS_EN[i % len(CORPUS_EN)]} number {i} of a rather long sentence\t{i % 2}"
                                   for i in range(60)]
    (root / "dev.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    nc.build("glue/sst2", ["keyboard(rate=0.05)", "keyboard(rate=0.2)", "keyboard(rate=0.4)", "shuffle"],
             root / "set", data_file=root / "dev.tsv", progress=False)
    models = [str(tiny_model("cls-mrpc")), str(tiny_model("cls-unnamed"))]
    maps = {models[0]: {"not_equivalent": "negative", "equivalent": "positive"},
            models[1]: {"LABEL_0": "negative", "LABEL_1": "positive"}}
    nc.evaluate(root / "set", models=models, label_maps=maps, resamples=200, progress=False, out=root / "out")
    return root / "out"


def test_report_compares_models_and_draws_every_plot(report: Path):
    record = json.loads((report / "results.json").read_text(encoding="utf-8"))
    comparisons = record["model_comparisons"]
    assert len(comparisons) == 4 and {c["first"] for c in comparisons} == {"cls-mrpc"}
    for c in comparisons:
        assert c["n"] == 60 and {"first", "second", "difference", "ci", "mcnemar"} <= set(c["noisy"])
        assert c["noisy"]["difference"] == pytest.approx(c["noisy"]["first"] - c["noisy"]["second"])
    [language] = [r for r in record["by_language"] if r["model"] == "cls-mrpc"]
    assert language["test"] == "clustered bootstrap" and language["n"] == 240 and language["examples"] == 60
    shuffled = next(r for r in record["results"] if r["noise_id"].startswith("shuffle"))
    assert {b["bucket"] for b in shuffled["breakdowns"]["edits"]} <= {"0", "whole field"}
    readme = (report / "README.md").read_text(encoding="utf-8")
    for text in ("## Models compared", "cls-mrpc (clean → noisy)", "clustered bootstrap",
                 "![score_vs_rate.png](plots/score_vs_rate.png)", "![reliability.png](plots/reliability.png)"):
        assert text in readme, text
    assert "## Language × noise" not in readme  # one language
    for plot in ("clean_vs_noisy.png", "score_vs_noise.png", "score_vs_rate.png", "reliability.png"):
        data = (report / "plots" / plot).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 10_000, plot


# --- structure ----------------------------------------------------------------------------------------


def _imports(path: Path, package: str) -> set[str]:
    """Modules of ``package`` that ``path`` imports anywhere (module or function level)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(package + "."):
            found.add(node.module.removeprefix(package + ".").split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix(package + ".").split(".")[0] for a in node.names
                         if a.name.startswith(package + "."))
    return found


def test_the_harness_has_no_import_circle():
    folder = REPO_ROOT / "harness"
    graph = {p.stem: _imports(p, "noisecraft.harness") for p in folder.glob("*.py")}

    def reaches(start: str, target: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == target or (nxt not in seen and reaches(nxt, target, seen | {nxt})):
                return True
        return False

    circles = sorted(module for module in graph if reaches(module, module, {module}))
    assert not circles, f"import circle through {circles}"


def test_score_vs_noise_leaves_out_buckets_of_too_few_rows_and_draws_intervals(monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    import noisecraft.harness.plots as plots

    drawn = {}
    monkeypatch.setattr(plots, "_save", lambda figure, path: drawn.setdefault("figure", figure) and path)
    result = _result("m", "c", "en", "keyboard@2", {"rate": 0.1}, 0.8, 0.7)
    result["breakdowns"] = {key: [{"bucket": label, "n": n, "clean": 0.8, "noisy": 0.6, "noisy_ci": [0.5, 0.7]}
                                  for label, n in buckets]
                            for key, buckets in (("edits", (("0", 40), ("1", 1), ("2", 30))),
                                                 ("cer", (("0%", 40), ("0-5%", 31))))}
    plots.score_vs_noise({"settings": {"confidence": 0.95}, "results": [result]}, tmp_path / "p.png")
    edits, cer = drawn["figure"].axes[:2]
    assert [t.get_text() for t in edits.get_xticklabels()] == ["0", "2"]  # the 1-row bucket is not a point
    assert "1 bucket(s) under 20 rows not shown" in edits.get_title() and "not shown" not in cer.get_title()
    assert edits.containers and edits.containers[0].has_yerr  # error bars from each bucket's interval


def _drawn(monkeypatch) -> dict:
    """The figure each plot of :mod:`noisecraft.harness.plots` draws, instead of its PNG."""
    pytest.importorskip("matplotlib")
    import noisecraft.harness.plots as plots

    drawn: dict = {}
    monkeypatch.setattr(plots, "_save", lambda figure, path: drawn.setdefault("figure", figure) and path)
    return drawn


def test_clean_vs_noisy_labels_its_whisker_and_draws_word_salad_as_agreement(monkeypatch, tmp_path):
    import noisecraft.harness.plots as plots

    drawn = _drawn(monkeypatch)
    salad = {"model": "m", "transformation": "drop@2", "task": "glue/sst2", "fields": ["sentence"],
             "configs": ["sst2-drop"], "seeds": [0], "n": [100], "agreement_with": "original prediction",
             "agreement": {"mean": 0.75, "sd": None, "values": [0.75]}, "chance": 0.5}
    record = {"settings": {"confidence": 0.9}, "word_salad": [salad],
              "results": [_result("m", "sst2-keyboard", "en", "keyboard@2", {}, 0.9, 0.8),
                          _result("m", "sst2-drop", "en", "drop@2", {}, 0.9, 0.6)]}
    plots.clean_vs_noisy(record, tmp_path / "p.png")
    figure = drawn["figure"]
    accuracy, agreement = figure.axes
    assert [t.get_text() for t in accuracy.get_xticklabels()] == ["sst2-keyboard"]  # no salad config drawn as accuracy
    assert accuracy.get_ylabel() == "accuracy (%)" and agreement.get_ylabel() == "agreement (%)"
    assert [round(bar.get_height(), 6) for bar in agreement.patches] == [75.0]
    assert [t.get_text() for t in agreement.get_xticklabels()] == [wrap_name("drop@2 glue/sst2", 18)]
    legend = figure.legends[0]
    assert legend.get_title().get_text() == "whiskers: noisy bars: 90 % paired bootstrap interval of clean − noisy"
    assert {t.get_text() for t in legend.get_texts()} == {"m agreement", "chance (1/N labels)", "m clean", "m noisy"}


def test_reliability_markers_grow_with_the_rows_of_their_bin_and_labels_clear_them(monkeypatch, tmp_path):
    import noisecraft.harness.plots as plots

    drawn = _drawn(monkeypatch)
    bins = {"clean": [{"confidence": 0.3, "accuracy": 0.5, "n": 1}, {"confidence": 0.9, "accuracy": 0.85, "n": 140}],
            "noisy": [{"confidence": 0.31, "accuracy": 0.5, "n": 70}, {"confidence": 0.88, "accuracy": 0.8, "n": 71}]}
    result = _result("m", "c", "en", "keyboard@2", {}, 0.8, 0.7)
    result["metrics"] |= {"reliability": bins, "ece": {"clean": 0.05, "noisy": 0.1}}
    plots.reliability({"settings": {"confidence": 0.95}, "results": [result]}, tmp_path / "r.png")
    [ax] = [a for a in drawn["figure"].axes if a.get_visible()]
    clean, noisy = ax.collections
    assert list(clean.get_sizes()) == [plots.marker_area(1, 140), plots.marker_area(140, 140)]
    assert clean.get_sizes()[0] < 10 < 100 < clean.get_sizes()[1]  # a 1-row bin is not drawn like a 140-row one
    labels = {(a.get_text(), a.get_color()): a for a in ax.texts}
    for (text, _), label in labels.items():
        radius = plots.marker_area(int(text), 140) ** 0.5 / 2
        assert abs(label.xyann[0]) > radius and abs(label.xyann[1]) > radius  # the number sits clear of its marker
    assert labels["1", plots.COLOURS[0]].xyann[1] > 0 > labels["70", plots.COLOURS[1]].xyann[1]  # clean above, noisy below


def test_the_results_table_prints_no_clean_score_a_model_does_not_have():
    from noisecraft.harness.report import NO_SHARED_CLEAN_NOTE, wide_table

    same = [_result("m", c, "en", "keyboard@2", {}, 0.8, 0.7) for c in ("a", "b")]
    assert "| m | 80.0 | 70.0 | 70.0 |" in wide_table(same, CLASSIFICATION) and "¹" not in wide_table(same, CLASSIFICATION)
    differ = [_result("m", "a", "en", "keyboard@2", {}, 0.8, 0.7), _result("m", "b", "en", "swap@2", {}, 0.9, 0.7)]
    table = wide_table(differ, CLASSIFICATION)
    assert "varies" not in table and "| m | –¹ | 80.0 → 70.0 | 90.0 → 70.0 |" in table
    assert table.endswith("\n\n" + NO_SHARED_CLEAN_NOTE)
