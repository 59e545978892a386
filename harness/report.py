"""The report folder: results.json (every number), README.md (tables), per-example parquet, plots.

Files are written atomically (temporary file, then rename), so an interrupted report never leaves a
half-written file where an older one was. Table cells are percentages with one decimal; differences
are clean - noisy with their bootstrap interval; a difference that is not significant says **n.s.**
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noisecraft.harness.breakdowns import CER_BUCKETS, EDIT_BUCKETS
from noisecraft.harness.tasks import CLASSIFICATION, QA, TOKENS
from noisecraft.repo import atomic_write, atomic_write_text
from noisecraft.stats import format_table

if TYPE_CHECKING:
    from noisecraft.harness.result import EvaluationResult

TASK_TITLES = {QA: "Extractive question answering", CLASSIFICATION: "Classification", TOKENS: "Token classification"}
METRIC_NAMES = {"f1": "F1", "exact_match": "EM", "accuracy": "accuracy", "entity_f1": "entity F1"}


def pct(value: float | None) -> str:
    """A fraction as a percentage with one decimal (``-`` when undefined)."""
    return "-" if value is None else f"{100 * value:.1f}"


def difference(comparison: dict[str, Any]) -> str:
    """``+4.2 [+2.0, +6.3]``, with ``n.s.`` when not significant."""
    low, high = comparison["ci"]
    interval = f" [{100 * low:+.1f}, {100 * high:+.1f}]" if low is not None else ""
    return f"{100 * comparison['difference']:+.1f}{interval}{'' if comparison['significant'] else ' n.s.'}"


def p_value(comparison: dict[str, Any]) -> str:
    if "mcnemar" not in comparison:
        return "-"
    p = comparison["mcnemar"]["p_value"]
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def arrow(pair: dict[str, Any], fmt: str = "pct") -> str:
    """``clean -> noisy`` of a measure (percentages, or three decimals for entropy)."""
    show = pct if fmt == "pct" else (lambda v: "-" if v is None else f"{v:.3f}")
    return f"{show(pair['clean'])} → {show(pair['noisy'])}"


def summary_rows(record: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Console summary: the main score of every model x config."""
    header = ["model", "config", "n", "metric", "clean", "noisy", "clean - noisy [95% CI]", "McNemar p"]
    rows = []
    for r in record["results"]:
        comparison = r["metrics"][r["primary_metric"]]
        rows.append([r["model"], r["config"], r["n"], METRIC_NAMES[r["primary_metric"]], pct(comparison["clean"]),
                     pct(comparison["noisy"]), difference(comparison), p_value(comparison)])
    return header, rows


def _wide_table(results: list[dict[str, Any]], task: str) -> str:
    """NoiseQA-style comparison: one row per model, its clean score, then its noisy score per config."""
    configs = list(dict.fromkeys(r["config"] for r in results))
    models = list(dict.fromkeys(r["model"] for r in results))

    def cell(r: dict[str, Any], side: str) -> str:
        if task == QA:
            return f"{pct(r['metrics']['exact_match'][side])} / {pct(r['metrics']['f1'][side])}"
        return pct(r["metrics"][r["primary_metric"]][side])

    rows = []
    for model in models:
        mine = {r["config"]: r for r in results if r["model"] == model}
        cleans = {cell(r, "clean") for r in mine.values()}
        shared = len(cleans) == 1
        row = [model, next(iter(cleans)) if shared else "varies"]
        for config in configs:
            r = mine.get(config)
            if r is None:
                row.append("")
                continue
            noisy = cell(r, "noisy") + ("" if r["metrics"][r["primary_metric"]]["significant"] else " (n.s.)")
            row.append(noisy if shared else f"{cell(r, 'clean')} → {noisy}")
        rows.append(row)
    return format_table(["model", "clean", *configs], rows, markdown=True)


def _long_table(results: list[dict[str, Any]], task: str) -> str:
    if task == QA:
        header = ["model", "config", "lang", "n", "EM clean", "EM noisy", "ΔEM [95% CI]", "McNemar p",
                  "F1 clean", "F1 noisy", "ΔF1 [95% CI]"]
        rows = [[r["model"], r["config"], r["lang"], r["n"], pct(m["exact_match"]["clean"]), pct(m["exact_match"]["noisy"]),
                 difference(m["exact_match"]), p_value(m["exact_match"]), pct(m["f1"]["clean"]), pct(m["f1"]["noisy"]),
                 difference(m["f1"])] for r in results for m in [r["metrics"]]]
    elif task == CLASSIFICATION:
        header = ["model", "config", "lang", "n", "acc. clean", "acc. noisy", "Δacc. [95% CI]", "McNemar p",
                  "agreement", "flip rate", "attack success", "confidence", "entropy (nats)", "ECE"]
        rows = [[r["model"], r["config"], r["lang"], r["n"], pct(m["accuracy"]["clean"]), pct(m["accuracy"]["noisy"]),
                 difference(m["accuracy"]), p_value(m["accuracy"]), pct(m["agreement"]), pct(m["flip_rate"]),
                 pct(m["attack_success_rate"]), arrow(m["confidence"]), arrow(m["entropy"], "nats"), arrow(m["ece"])]
                for r in results for m in [r["metrics"]]]
    else:
        header = ["model", "config", "lang", "n", "F1 clean", "F1 noisy", "ΔF1 [95% CI]", "precision", "recall"]
        rows = [[r["model"], r["config"], r["lang"], r["n"], pct(m["entity_f1"]["clean"]), pct(m["entity_f1"]["noisy"]),
                 difference(m["entity_f1"]), arrow(m["entity_precision"]), arrow(m["entity_recall"])]
                for r in results for m in [r["metrics"]]]
    return format_table(header, rows, markdown=True)


def _breakdown_table(results: list[dict[str, Any]], key: str, buckets: Sequence[tuple[Any, Any, str]]) -> str:
    """Clean -> noisy main score (and examples) per noise-level bucket, one row per model x config."""
    labels = [label for _, _, label in buckets if any(b["bucket"] == label for r in results for b in r["breakdowns"][key])]
    rows = []
    for r in results:
        found = {b["bucket"]: b for b in r["breakdowns"][key]}
        rows.append([r["model"], r["config"], METRIC_NAMES[r["primary_metric"]],
                     *(f"{pct(found[label]['clean'])} → {pct(found[label]['noisy'])} ({found[label]['n']})"
                       if label in found else "" for label in labels)])
    return format_table(["model", "config", "score", *labels], rows, markdown=True)


def _language_table(rows: list[dict[str, Any]]) -> str:
    return format_table(
        ["model", "lang", "configs", "n", "score", "clean", "noisy", "clean - noisy [95% CI]", "McNemar p"],
        [[r["model"], r["lang"], len(r["configs"]), r["n"], METRIC_NAMES[r["primary_metric"]], pct(r["clean"]),
          pct(r["noisy"]), difference(r), p_value(r)] for r in rows], markdown=True)


def _models_table(models: list[dict[str, Any]]) -> str:
    return format_table(
        ["model", "revision", "task", "device / dtype", "inputs (distinct)", "computed", "from cache"],
        [[m["model"], f"`{m['revision'][:19]}`", m["task"], f"{m['device']} / {m['dtype']}", m["inputs"]["distinct"],
          m["inputs"]["computed"], m["inputs"]["from_cache"]] for m in models], markdown=True)


def _dataset_line(dataset: dict[str, Any]) -> str:
    where = (f"Hub revision `{dataset.get('revision') or 'main'}` (commit `{dataset.get('commit') or 'unknown offline'}`)"
             if "files_sha256" not in dataset else f"parquet files sha256 `{dataset['files_sha256'][:16]}…`")
    return (f"Dataset **{dataset['name']}** version {dataset.get('version')} (built by noisecraft "
            f"{dataset.get('toolkit_version')}), {where}.")


def render_readme(record: dict[str, Any], plots: Sequence[str]) -> str:
    """README.md of the report."""
    s = record["settings"]
    versions = ", ".join(f"{k} {v}" for k, v in record["versions"].items())
    level = round(100 * s["confidence"])
    parts = [
        f"# Robustness evaluation: {record['dataset']['name']}", "",
        _dataset_line(record["dataset"]) + f" Evaluated with noisecraft {record['noisecraft_version']} ({versions}) on "
        f"{s['device']} in {s['dtype']}" + (f", first {s['max_examples']} rows of each config" if s["max_examples"] else "")
        + ".", "",
        "Scores are percentages on the same rows: **clean** reads the `original_<field>` columns, **noisy** the "
        f"perturbed fields. Δ = clean − noisy (positive: the noise costs score) with its {level} % paired bootstrap "
        f"interval ({s['bootstrap_resamples']} resamples of the examples, seed {s['seed']}); McNemar p is the exact "
        "test on per-example right/wrong (accuracy, EM). **n.s.**: not significant at "
        f"α = {s['alpha']} (McNemar's test for accuracy and EM, otherwise an interval that contains 0).", "",
    ]
    results = record["results"]
    tasks = [t for t in (QA, CLASSIFICATION, TOKENS) if any(r["task"] == t for r in results)]
    for task in tasks:
        mine = [r for r in results if r["task"] == task]
        scored = "EM / F1" if task == QA else METRIC_NAMES[mine[0]["primary_metric"]]
        parts += [f"## {TASK_TITLES[task]}", "", f"Noisy {scored} per config (clean: the same rows before noise).", "",
                  _wide_table(mine, task), "", _long_table(mine, task), ""]
        if task == QA:
            parts += [f"Answers are normalised as the `{s['qa_normalisation']}` script does (see "
                      "`noisecraft.harness.squad_metric`).", ""]
        if task == CLASSIFICATION:
            parts += ["Agreement: share of rows whose noisy prediction equals the clean one (flip rate = 1 − agreement). "
                      "Attack success: among rows right on the clean side, the share wrong on the noisy side "
                      "(TextAttack/ProbeGrammar count). Confidence: mean probability of the predicted class; ECE: "
                      "expected calibration error over 15 equal-width bins.", ""]
    for name in plots:
        parts += [f"![{name}](plots/{name})", ""]
    parts += ["## By number of edits", "", "Main score, clean → noisy (rows), by how many edits the noise made.", "",
              _breakdown_table(results, "edits", EDIT_BUCKETS), "",
              "## By character error rate", "", "Main score, clean → noisy (rows), by the row's CER against the original.",
              "", _breakdown_table(results, "cer", CER_BUCKETS), "",
              "## By language", "", "Rows of every config in the language pooled.", "",
              _language_table(record["by_language"]), "",
              "## Models", "", _models_table(record["models"]), ""]
    mappings = []
    for m in record["models"]:  # configs that share a mapping are listed together
        shared: dict[str, list[str]] = {}
        for config, mapping in m["label_mappings"].items():
            pairs = ", ".join(f"{k}→{v if v is not None else 'O (type not in the dataset)'}" for k, v in mapping["map"].items())
            shared.setdefault(f"{mapping['how']}: {pairs}", []).append(config)
        mappings += [f"- {m['model']} on {', '.join(configs)}: {described}" for described, configs in shared.items()]
    if mappings:
        parts += ["Label mappings (model label → dataset label):", "", *mappings, ""]
    if record["notes"]:
        parts += ["## Notes", "", *(f"- {note}" for note in record["notes"]), ""]
    parts += ["## Files", "", "- `results.json`: every number above and more (per-example breakdowns, McNemar counts, "
              "versions, model and dataset revisions);",
              "- `predictions/<model>/<config>.parquet`: one row per example, clean and noisy inputs, predictions and "
              "scores;", "- `plots/*.png`.", "",
              "Predictions are cached per (model, revision, settings, precision, input): a re-run computes only new inputs. "
              "On CPU in float32 a batch's padding can move logits in the last bits; predictions (argmax, best span) do "
              "not change with the batch size.", ""]
    return "\n".join(parts)


def model_slug(label: str) -> str:
    """A model name as a folder name (``org/name`` -> ``org--name``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label.replace("/", "--")).strip("-") or "model"


def _write_parquet(path: Path, columns: dict[str, list[Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(columns)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))


def write_report(result: EvaluationResult, out: Path, plots: bool = True) -> list[Path]:
    """Write the report folder; returns the files written."""
    record = result.to_dict()
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    slugs: dict[str, str] = {}
    for label, config, columns in result.predictions:
        slug = slugs.setdefault(label, model_slug(label) if model_slug(label) not in slugs.values()
                                else f"{model_slug(label)}-{len(slugs) + 1}")
        path = out / "predictions" / slug / f"{config}.parquet"
        _write_parquet(path, columns)
        written.append(path)
    images: list[str] = []
    if plots:
        from noisecraft.harness.plots import write_plots

        for path in write_plots(record, out / "plots"):
            written.append(path)
            images.append(path.name)
    atomic_write_text(out / "results.json", result.to_json())
    atomic_write_text(out / "README.md", render_readme(record, images))
    return [*written, out / "results.json", out / "README.md"]
