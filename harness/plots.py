"""PNG plots of a report: clean vs noisy bars per model x config, and score against noise level.

Drawn with matplotlib's object API on an Agg canvas (no pyplot, so no global state and no display is
touched, whatever backend the user's session has).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noisecraft.harness.breakdowns import CER_BUCKETS, EDIT_BUCKETS
from noisecraft.harness.report import METRIC_NAMES, TASK_TITLES
from noisecraft.harness.tasks import CLASSIFICATION, QA, TOKENS
from noisecraft.repo import atomic_write

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22")


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure: Any, path: Path) -> Path:
    atomic_write(path, lambda tmp: figure.savefig(tmp, format="png"))
    return path


def _short(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clean_vs_noisy(record: dict[str, Any], path: Path) -> Path:
    """Grouped bars: per config, each model's clean (light, hatched) and noisy (solid) main score; the noisy
    bar carries the paired bootstrap interval of the difference, drawn around it."""
    tasks = [t for t in (QA, CLASSIFICATION, TOKENS) if any(r["task"] == t for r in record["results"])]
    models = list(dict.fromkeys(r["model"] for r in record["results"]))
    widest = max(len({r["config"] for r in record["results"] if r["task"] == t}) for t in tasks)
    figure = _figure(max(6.5, 1.5 + widest * (0.6 + 0.55 * len(models))), 4.2 * len(tasks))
    axes = figure.subplots(len(tasks), 1, squeeze=False)[:, 0]
    for ax, task in zip(axes, tasks):
        results = [r for r in record["results"] if r["task"] == task]
        configs = list(dict.fromkeys(r["config"] for r in results))
        mine = list(dict.fromkeys(r["model"] for r in results))
        bar = 0.8 / (2 * len(mine))
        for m, model in enumerate(mine):
            colour = COLOURS[models.index(model) % len(COLOURS)]
            for c, config in enumerate(configs):
                found = [r for r in results if r["model"] == model and r["config"] == config]
                if not found:
                    continue
                comparison = found[0]["metrics"][found[0]["primary_metric"]]
                x = c - 0.4 + bar * (2 * m + 0.5)
                clean, noisy = 100 * comparison["clean"], 100 * comparison["noisy"]
                ax.bar(x, clean, bar, color=colour, alpha=0.35, hatch="//", edgecolor=colour,
                       label=f"{_short(model)} clean" if c == 0 else None)
                low, high = comparison["ci"]
                drop = clean - noisy
                error = None if low is None else [[max(0.0, 100 * high - drop)], [max(0.0, drop - 100 * low)]]
                ax.bar(x + bar, noisy, bar, color=colour, yerr=error, capsize=3, ecolor="black",
                       label=f"{_short(model)} noisy" if c == 0 else None)
                above = error[1][0] if error else 0.0  # the noisy label sits above its interval
                for offset, value, top in ((0, clean, clean), (bar, noisy, noisy + above)):
                    ax.text(x + offset, top + 1, f"{value:.1f}", ha="center", va="bottom", fontsize=7)
        metric = METRIC_NAMES[results[0]["primary_metric"]]
        ax.set_title(f"{TASK_TITLES[task]}: {metric}, clean vs noisy", fontsize=11)
        ax.set_ylabel(f"{metric} (%)")
        ax.set_ylim(0, 109)
        ax.set_xticks(range(len(configs)), [_short(c, 34) for c in configs], rotation=20 if len(configs) > 3 else 0,
                      ha="right" if len(configs) > 3 else "center", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8, ncols=min(4, 2 * len(mine)), loc="upper center", frameon=False,
                  bbox_to_anchor=(0.5, -0.18 if len(configs) > 3 else -0.1))
    return _save(figure, path)


def score_vs_noise(record: dict[str, Any], path: Path) -> Path:
    """One row per model: the main score by number of edits (left) and by CER (right); solid lines are the
    noisy side, dotted lines the same rows clean, one colour per config, dots sized by the rows in the bucket."""
    models = list(dict.fromkeys(r["model"] for r in record["results"]))
    configs = list(dict.fromkeys(r["config"] for r in record["results"]))
    figure = _figure(11, 3.4 * len(models) + 0.6)
    axes = figure.subplots(len(models), 2, squeeze=False)
    for row, model in enumerate(models):
        results = [r for r in record["results"] if r["model"] == model]
        metric = METRIC_NAMES[results[0]["primary_metric"]]
        for ax, key, buckets, title in ((axes[row, 0], "edits", EDIT_BUCKETS, "number of edits"),
                                        (axes[row, 1], "cer", CER_BUCKETS, "character error rate")):
            present = {b["bucket"] for r in results for b in r["breakdowns"][key]}
            labels = [label for _, _, label in buckets if label in present]
            largest = max(b["n"] for r in results for b in r["breakdowns"][key])
            for r in results:
                colour = COLOURS[configs.index(r["config"]) % len(COLOURS)]
                points = [(labels.index(b["bucket"]), b) for b in r["breakdowns"][key]]
                xs = [x for x, _ in points]
                sizes = [12 + 100 * b["n"] / largest for _, b in points]  # a bucket of few rows is a small dot
                ax.plot(xs, [100 * b["noisy"] for _, b in points], color=colour, label=_short(r["config"], 34))
                ax.scatter(xs, [100 * b["noisy"] for _, b in points], s=sizes, color=colour, zorder=3)
                ax.plot(xs, [100 * b["clean"] for _, b in points], linestyle=":", color=colour, alpha=0.7)
            ax.set_xticks(range(len(labels)), labels, fontsize=8)
            ax.set_ylim(-3, 103)
            ax.set_xlabel(title, fontsize=9)
            ax.set_ylabel(f"{metric} (%)", fontsize=9)
            ax.set_title(f"{_short(model, 40)}: {metric} by {title}", fontsize=10)
            ax.grid(alpha=0.3)
        axes[row, 1].legend(fontsize=7, title="config (solid: noisy, dotted: clean;\ndot area: rows in the bucket)",
                            title_fontsize=7, loc="best")
    return _save(figure, path)


def write_plots(record: dict[str, Any], folder: Path) -> list[Path]:
    """Both plots into ``folder``."""
    return [clean_vs_noisy(record, folder / "clean_vs_noisy.png"), score_vs_noise(record, folder / "score_vs_noise.png")]
