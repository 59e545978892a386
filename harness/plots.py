"""PNG plots of a report: clean vs noisy bars per model x config, score against noise level (with error bars,
buckets of too few rows left out), score against a swept noise parameter (with confidence bands), and
reliability diagrams of classifiers.

Drawn with matplotlib's object API on an Agg canvas (no pyplot, so no global state and no display is
touched, whatever backend the user's session has).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from noisecraft.dataset.repo import atomic_write
from noisecraft.harness.breakdowns import CER_BUCKETS, EDIT_BUCKETS, WHOLE_FIELD
from noisecraft.harness.display import METRIC_NAMES, MIN_ROWS, TASK_TITLES
from noisecraft.harness.tasks import CLASSIFICATION, QA, TOKENS

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22")


def _figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=110, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _panels(count: int, most_columns: int, width: float, height: float) -> tuple[Any, Any]:
    """A figure of ``count`` panels of ``width`` x ``height`` inches, at most ``most_columns`` a row, and its axes
    (flat; the unused ones are the caller's to hide)."""
    columns = min(most_columns, count)
    rows = -(-count // columns)
    figure = _figure(width * columns, height * rows)
    return figure, figure.subplots(rows, columns, squeeze=False).ravel()


def _save(figure: Any, path: Path) -> Path:
    atomic_write(path, lambda tmp: figure.savefig(tmp, format="png"))
    return path


def wrap_name(text: str, width: int = 24) -> str:
    """A long name on several lines, broken after ``-``, ``_``, ``/`` or a space where it can be (a part longer
    than a line is cut at ``width``), never cut off."""
    lines: list[str] = []
    for part in re.split(r"(?<=[-_/ ])", text):
        while len(part) > width:
            lines.append(part[:width])
            part = part[width:]
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        elif part:
            lines.append(part)
    return "\n".join(line.rstrip() for line in lines) or text


def clean_vs_noisy(record: dict[str, Any], path: Path) -> Path:
    """Grouped bars: per config, each model's clean (light, hatched) and noisy (solid) main score; the noisy
    bar carries the paired bootstrap interval of the difference, drawn around it (the legend's title says so). Word-salad
    configs are measured by agreement, as the report's word-salad table says, not by accuracy: they get a panel of
    their own (:func:`_salad_panel`)."""
    salad = record.get("word_salad") or []
    in_salad = {(row["model"], config) for row in salad for config in row["configs"]}
    scored = [r for r in record["results"] if (r["model"], r["config"]) not in in_salad]
    tasks = [t for t in (QA, CLASSIFICATION, TOKENS) if any(r["task"] == t for r in scored)]
    models = list(dict.fromkeys(r["model"] for r in record["results"]))
    columns = [len({r["config"] for r in scored if r["task"] == t}) for t in tasks] + ([len(salad)] if salad else [])
    lines = max(wrap_name(r["config"], 18).count("\n") + 1 for r in record["results"])
    figure = _figure(max(6.5, 1.5 + max(columns) * (0.6 + 0.55 * len(models))), (4.2 + 0.25 * lines) * len(columns))
    axes = figure.subplots(len(columns), 1, squeeze=False)[:, 0]
    for ax, task in zip(axes, tasks):
        _clean_noisy_panel(ax, [r for r in scored if r["task"] == task], models)
    if salad:
        _salad_panel(axes[-1], salad, models)
    handles: dict[str, Any] = {}
    for ax in axes:  # one legend for the figure, below the bars, whatever the length of the tick labels
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    whiskers = [f"noisy bars: {ci_text(record)} paired bootstrap interval of clean − noisy"] if tasks else []
    if any(row["agreement"]["sd"] is not None for row in salad):
        whiskers.append("agreement: sd over seeds")
    figure.legend(list(handles.values()), list(handles), fontsize=8, ncols=min(2, len(handles)),  # a narrow figure
                  loc="outside lower center", frameon=False, title=f"whiskers: {'; '.join(whiskers)}" if whiskers else None,
                  title_fontsize=8)
    return _save(figure, path)


def _clean_noisy_panel(ax: Any, results: list[dict[str, Any]], models: list[str]) -> None:
    """One task's bars of :func:`clean_vs_noisy`: each model's clean and noisy main score per config."""
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
                   label=f"{model} clean" if c == 0 else None)
            low, high = comparison["ci"]
            drop = clean - noisy
            error = None if low is None else [[max(0.0, 100 * high - drop)], [max(0.0, drop - 100 * low)]]
            ax.bar(x + bar, noisy, bar, color=colour, yerr=error, capsize=3, ecolor="black",
                   label=f"{model} noisy" if c == 0 else None)
            above = error[1][0] if error else 0.0  # the noisy label sits above its interval
            for offset, value, top in ((0, clean, clean), (bar, noisy, noisy + above)):
                ax.text(x + offset, top + 1, f"{value:.1f}", ha="center", va="bottom", fontsize=7)
    metric = METRIC_NAMES[results[0]["primary_metric"]]
    ax.set_title(f"{TASK_TITLES[results[0]['task']]}: {metric}, clean vs noisy", fontsize=11)
    ax.set_ylabel(f"{metric} (%)")
    ax.set_ylim(0, 109)
    ax.set_xticks(range(len(configs)), [wrap_name(c, 18) for c in configs], fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def _salad_panel(ax: Any, rows: list[dict[str, Any]], models: list[str]) -> None:
    """Word salad (the report's word-salad rows): each model's agreement per transformation and task (with the
    sd over seeds), and chance, 1/N, as a dotted tick on each bar (what a model that knew it cannot tell would
    agree by)."""
    bar = 0.8
    for x, row in enumerate(rows):
        colour = COLOURS[models.index(row["model"]) % len(COLOURS)]
        agreement, sd = 100 * row["agreement"]["mean"], row["agreement"]["sd"]
        ax.bar(x, agreement, bar, color=colour, yerr=None if sd is None else 100 * sd, capsize=3, ecolor="black",
               label=f"{row['model']} agreement")
        ax.hlines(100 * row["chance"], x - bar / 2, x + bar / 2, colors="black", linestyles=":",
                  label="chance (1/N labels)")
        against = "" if row["agreement_with"] == "original prediction" else f" (vs {row['agreement_with'].split()[-1]})"
        top = agreement + (0.0 if sd is None else 100 * sd)  # the label sits above the whisker
        ax.text(x, top + 1, f"{agreement:.1f}{against}", ha="center", va="bottom", fontsize=7)
    ax.set_title("Word salad: agreement with the prediction on the original text (copy transformations: with the "
                 "label copying makes true)", fontsize=10, wrap=True)
    ax.set_ylabel("agreement (%)")
    ax.set_ylim(0, 109)
    ax.set_xticks(range(len(rows)), [wrap_name(f"{r['transformation']} {r['task']}", 18) for r in rows], fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def score_vs_noise(record: dict[str, Any], path: Path) -> Path:
    """One row per model: the main score by number of edits (left) and by CER (right); solid lines are the
    noisy side with the bootstrap interval of each bucket as error bars, dotted lines the same rows clean,
    one colour per config. Buckets of fewer than :data:`MIN_ROWS` rows are left out (a 1-row bucket looks like
    signal), and the axis title says how many."""
    models = list(dict.fromkeys(r["model"] for r in record["results"]))
    configs = list(dict.fromkeys(r["config"] for r in record["results"]))
    figure = _figure(12, 3.8 * len(models) + 0.8)
    axes = figure.subplots(len(models), 2, squeeze=False)
    for row, model in enumerate(models):
        results = [r for r in record["results"] if r["model"] == model]
        metric = METRIC_NAMES[results[0]["primary_metric"]]
        for ax, key, buckets, title in ((axes[row, 0], "edits", (*EDIT_BUCKETS, WHOLE_FIELD), "number of edits"),
                                        (axes[row, 1], "cer", CER_BUCKETS, "character error rate")):
            shown = {b["bucket"] for r in results for b in r["breakdowns"][key] if b["n"] >= MIN_ROWS}
            labels = [label for _, _, label in buckets if label in shown]
            hidden = sum(1 for r in results for b in r["breakdowns"][key] if b["n"] < MIN_ROWS)
            for r in results:
                colour = COLOURS[configs.index(r["config"]) % len(COLOURS)]
                points = [(labels.index(b["bucket"]), b) for b in r["breakdowns"][key] if b["bucket"] in labels
                          and b["n"] >= MIN_ROWS]
                if not points:
                    continue
                spread = 0.3 / max(len(configs) - 1, 1)  # configs side by side in a bucket, so bars do not hide
                xs = [x + (configs.index(r["config"]) - (len(configs) - 1) / 2) * spread for x, _ in points]
                noisy = [100 * b["noisy"] for _, b in points]
                errors = [[max(0.0, y - 100 * b["noisy_ci"][0]) for y, (_, b) in zip(noisy, points)],
                          [max(0.0, 100 * b["noisy_ci"][1] - y) for y, (_, b) in zip(noisy, points)]] \
                    if all(b.get("noisy_ci") and b["noisy_ci"][0] is not None for _, b in points) else None
                ax.errorbar(xs, noisy, yerr=errors, color=colour, marker="o", markersize=4, capsize=3,
                            label=wrap_name(r["config"], 40))
                ax.plot(xs, [100 * b["clean"] for _, b in points], linestyle=":", color=colour, alpha=0.7)
            ax.set_xticks(range(len(labels)), labels, fontsize=8)
            ax.set_xlim(-0.5, max(len(labels) - 0.5, 0.5))
            ax.set_ylim(-3, 103)
            ax.set_xlabel(title, fontsize=9)
            ax.set_ylabel(f"{metric} (%)", fontsize=9)
            note = f" ({hidden} bucket(s) under {MIN_ROWS} rows not shown)" if hidden else ""
            ax.set_title(f"{model}: {metric} by {title}{note}", fontsize=9, wrap=True)
            ax.grid(alpha=0.3)
        if axes[row, 1].get_legend_handles_labels()[0]:  # every bucket under MIN_ROWS rows: no line, no legend
            axes[row, 1].legend(fontsize=7, title=f"config (solid: noisy with {ci_text(record)} interval; dotted: clean)",
                                title_fontsize=7, loc="best")
    return _save(figure, path)


def ci_text(record: dict[str, Any]) -> str:
    return f"{round(100 * record['settings']['confidence'])} %"


def rate_sweeps(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Groups of results of one model and one noise (same ``name@version``, language and every parameter but one
    number) at two or more values of that number: ``{"model", "noise", "lang", "param", "points"}`` with the
    points sorted by value."""
    groups: dict[tuple[Any, ...], list[tuple[float, dict[str, Any]]]] = {}
    for r in results:
        params = r.get("params") or {}
        for name, value in params.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            rest = tuple(sorted((k, repr(v)) for k, v in params.items() if k != name))
            groups.setdefault((r["model"], r.get("noise_id"), r["lang"], name, rest), []).append((float(value), r))
    sweeps = []
    for (model, noise, lang, name, _), members in groups.items():
        if len({value for value, _ in members}) >= 2:
            sweeps.append({"model": model, "noise": noise, "lang": lang, "param": name,
                           "points": sorted(members, key=lambda item: item[0])})
    return sweeps


def score_vs_rate(record: dict[str, Any], path: Path) -> Path | None:
    """Main score against a swept noise parameter (e.g. ``rate``), one panel per model x noise: the noisy score
    with its bootstrap band and the clean score of the same rows with its own. None when nothing was swept."""
    sweeps = rate_sweeps(record["results"])
    if not sweeps:
        return None
    figure, axes = _panels(len(sweeps), 2, 6, 3.8)
    for ax, sweep in zip(axes, sweeps):
        xs = [value for value, _ in sweep["points"]]
        for side, colour, style in (("noisy", COLOURS[1], "-"), ("clean", COLOURS[0], ":")):
            metric = [r["metrics"][r["primary_metric"]] for _, r in sweep["points"]]
            ys = [100 * m[side] for m in metric]
            ax.plot(xs, ys, style, marker="o", color=colour, label=side)
            bands = [m.get(f"{side}_ci") for m in metric]
            if all(b and b[0] is not None for b in bands):
                ax.fill_between(xs, [100 * b[0] for b in bands], [100 * b[1] for b in bands], color=colour, alpha=0.2,
                                linewidth=0)
        name = METRIC_NAMES[sweep["points"][0][1]["primary_metric"]]
        ax.set_xlabel(sweep["param"], fontsize=9)
        ax.set_ylabel(f"{name} (%)", fontsize=9)
        ax.set_ylim(-3, 103)
        ax.set_title(wrap_name(f"{sweep['model']}: {sweep['noise']} ({sweep['lang']}) by {sweep['param']}", 60), fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, title=f"bands: {ci_text(record)} bootstrap", title_fontsize=7)
    for ax in axes[len(sweeps):]:
        ax.set_visible(False)
    return _save(figure, path)


def reliability(record: dict[str, Any], path: Path) -> Path | None:
    """Reliability diagrams of the classifiers: per config, accuracy against mean confidence in each
    confidence bin, clean and noisy, with the diagonal of perfect calibration. A bin's marker area grows with its
    rows (a 1-row bin is a dot, not a point like a 140-row one), and its row count is written beside the marker,
    clear of it: above for clean, below for noisy."""
    results = [r for r in record["results"] if "reliability" in r["metrics"]]
    if not results:
        return None
    figure, axes = _panels(len(results), 3, 4.3, 4.3)
    for ax, r in zip(axes, results):
        ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1)
        most = max((b["n"] for side in ("clean", "noisy") for b in r["metrics"]["reliability"][side]), default=1)
        for side, colour, below in (("clean", COLOURS[0], False), ("noisy", COLOURS[1], True)):
            bins = r["metrics"]["reliability"][side]
            ece = r["metrics"]["ece"][side]
            xs, ys = [b["confidence"] for b in bins], [b["accuracy"] for b in bins]
            ax.plot(xs, ys, color=colour, linewidth=1, alpha=0.6)
            sizes = [marker_area(b["n"], most) for b in bins]
            ax.scatter(xs, ys, s=sizes, color=colour, alpha=0.8, zorder=3,
                       label=f"{side} (ECE {100 * ece:.1f})" if ece is not None else side)
            for b, size in zip(bins, sizes):
                gap = size ** 0.5 / 2 + 2  # the marker's radius in points, and a little more
                ax.annotate(str(b["n"]), (b["confidence"], b["accuracy"]), fontsize=6, color=colour,
                            textcoords="offset points", xytext=(gap, -gap if below else gap),
                            va="top" if below else "bottom")
        ax.set_xlim(0, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("mean confidence in the bin", fontsize=8)
        ax.set_ylabel("accuracy in the bin", fontsize=8)
        ax.set_title(wrap_name(f"{r['model']} on {r['config']}", 40), fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, title="numbers and marker area: rows per bin", title_fontsize=6, loc="upper left")
    for ax in axes[len(results):]:
        ax.set_visible(False)
    return _save(figure, path)


def marker_area(rows: int, most: int) -> float:
    """A reliability bin's marker area (points²), in proportion to its rows (the area is what the eye reads): 120
    for the fullest bin, down to 4 (still visible) for an empty one."""
    return 4 + 116 * rows / max(most, 1)


def write_plots(record: dict[str, Any], folder: Path) -> list[Path]:
    """Every plot that applies into ``folder``."""
    drawn = [clean_vs_noisy(record, folder / "clean_vs_noisy.png"), score_vs_noise(record, folder / "score_vs_noise.png"),
             score_vs_rate(record, folder / "score_vs_rate.png"), reliability(record, folder / "reliability.png")]
    return [path for path in drawn if path is not None]
