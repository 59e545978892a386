"""The CoLeS report: per-model tables like the paper's Tables 4-6, the similarity-vs-|A| figure, the rows.

``write_coles_report`` writes, into one folder: ``README.md`` (a similarity table and a downstream table per
model, by noise kind and corruption type), ``results.json`` (every number and each model's provenance),
``<model>.similarity.parquet`` / ``<model>.downstream.parquet`` (every pair; ``<model>`` a Hub id, or a local folder's
name and content digest) and ``similarity-vs-added.png`` (the paper's Figure 1, one line per model and noise kind, each
point labelled with its pairs and left out under :data:`MIN_ROWS` pairs, with each model's mean baseline). Every file
is written atomically.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from noisecraft.dataset.repo import atomic_write, atomic_write_text
from noisecraft.harness.coles import ModelResult, downstream_summary, similarity_curve, similarity_summary
from noisecraft.harness.display import MIN_ROWS

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
STYLES = ("-", "--", ":", "-.")
FIGURE = "similarity-vs-added.png"


def _number(value: float, digits: int = 3) -> str:
    return "–" if isinstance(value, float) and math.isnan(value) else f"{value:.{digits}f}"


def by_noise(rows: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Rows per noise kind (``typo``, ``reduplication``, ...), then ``all`` kinds together (the paper's tables
    are per noise kind)."""
    kinds = sorted({r["noise"] for r in rows})
    return {**{k: [r for r in rows if r["noise"] == k] for k in kinds}, **({"all": list(rows)} if len(kinds) > 1 else {})}


def similarity_table(result: ModelResult) -> list[str]:
    """Markdown rows: per noise kind and type, pairs, mean cosine, mean baseline (vs ``the``), share above it."""
    lines = ["| noise | type | pairs | similarity | baseline (vs `the`) | above baseline |", "|---|---|---|---|---|---|"]
    for noise, rows in by_noise(result.similarity).items():
        for kind, entry in similarity_summary(rows).items():
            lines.append(f"| {noise} | {kind} | {entry['pairs']} | {_number(entry['similarity'])} | "
                         f"{_number(entry['baseline'])} | {_number(entry['above_baseline'])} |")
    return lines


def downstream_table(result: ModelResult) -> list[str]:
    """Markdown rows: per noise kind and type, pairs, canonical words classified right, accuracy on their noisy forms."""
    lines = ["| noise | type | pairs | canonical correct | noisy accuracy |", "|---|---|---|---|---|"]
    for noise, rows in by_noise(result.downstream).items():
        for kind, entry in downstream_summary(rows).items():
            lines.append(f"| {noise} | {kind} | {entry['pairs']} | {entry['canonical_correct']} | "
                         f"{_number(entry['noisy_accuracy'])} |")
    return lines


def plot_similarity(results: Sequence[ModelResult], path: Path) -> Path:
    """:func:`similarity_figure` as a PNG at ``path`` (written atomically)."""
    figure = similarity_figure(results)
    atomic_write(path, lambda tmp: figure.savefig(tmp, format="png"))
    return path


def similarity_figure(results: Sequence[ModelResult]) -> Any:
    """Mean similarity against the number of added subwords |A|, a line per model and noise kind, each point
    labelled with its pairs; points of fewer than :data:`MIN_ROWS` pairs are left out (a mean of 3 pairs looks like
    signal), as ``evaluate``'s plots leave out small buckets, and the title says how many."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.5, 4.5), dpi=110, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    hidden = 0
    for m, result in enumerate(r for r in results if r.similarity):
        colour, name = COLOURS[m % len(COLOURS)], result.slug
        for k, (kind, curve) in enumerate(similarity_curve(result.similarity).items()):
            points = [p for p in curve if p[2] >= MIN_ROWS]
            hidden += len(curve) - len(points)
            if not points:
                continue
            axes.plot([p[0] for p in points], [p[1] for p in points], STYLES[k % len(STYLES)], marker="o", markersize=3,
                      color=colour, label=f"{name}: {kind}")
            for added, similarity, pairs in points:
                axes.annotate(f"n={pairs}", (added, similarity), fontsize=6, color=colour, textcoords="offset points",
                              xytext=(3, 4))
        baseline = similarity_summary(result.similarity)["all"]["baseline"]
        axes.axhline(baseline, color=colour, linewidth=0.8, alpha=0.5, label=f"{name}: baseline (vs 'the')")
    axes.set_xlabel("added subwords |A|")
    axes.set_ylabel("cosine(canonical, noisy)")
    note = f"\n({hidden} point(s) of fewer than {MIN_ROWS} pairs not shown)" if hidden else ""
    axes.set_title(f"CoLeS: similarity of noisy to canonical words by added subwords{note}", fontsize=10)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=7, title="n: pairs per point", title_fontsize=7)
    return figure


def _parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))


def write_coles_report(out: Path, dataset: str, results: Sequence[ModelResult]) -> Path:
    """The report folder (see the module docstring); returns the path of ``README.md``."""
    lines = [f"# CoLeS probe: {Path(dataset).name or dataset}", "",
             "Similarity: cosine of the mean-pooled encoder outputs of the canonical and the noisy word; baseline: "
             "cosine of the canonical word and `the`. Downstream: accuracy on the noisy forms of the canonical words "
             "the classifier gets right. Types by each model's own tokenizer; `all` is every changed pair.", ""]
    record: dict[str, Any] = {"dataset": str(dataset), "models": {}}
    for result in results:
        name = result.slug
        entry: dict[str, Any] = {"provenance": result.provenance}
        lines += [f"## {name}", ""]
        if result.similarity:
            lines += ["### Similarity", "", *similarity_table(result), ""]
            entry["similarity"] = {noise: similarity_summary(rows) for noise, rows in by_noise(result.similarity).items()}
            entry["curve"] = similarity_curve(result.similarity)
            _parquet(out / f"{name}.similarity.parquet", result.similarity)
        if result.downstream:
            lines += ["### Downstream", "", f"Labels: {result.label_mapping}", "", *downstream_table(result), ""]
            entry["downstream"] = {noise: downstream_summary(rows) for noise, rows in by_noise(result.downstream).items()}
            entry["label_mapping"] = result.label_mapping
            _parquet(out / f"{name}.downstream.parquet", result.downstream)
        record["models"][name] = entry
    if any(r.similarity for r in results):
        plot_similarity(results, out / FIGURE)
        lines += [f"![similarity vs added subwords]({FIGURE})", ""]
    atomic_write_text(out / "results.json", json.dumps(record, indent=2, sort_keys=True, default=str) + "\n")
    atomic_write_text(out / "README.md", "\n".join(lines))
    return out / "README.md"
