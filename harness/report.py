"""The report folder: results.json (every number), README.md (tables), per-example parquet, plots.

Files are written atomically (temporary file, then rename), so an interrupted report never leaves a
half-written file where an older one was. Table cells are percentages with one decimal; differences
are clean - noisy with their bootstrap interval; a difference that is not significant says **n.s.**, one
on fewer than :data:`~noisecraft.harness.display.MIN_ROWS` rows says **too few rows** (it is not tested).
Rows of different configs are never pooled into one paired test: the per-language summary resamples
source examples as clusters (see :func:`noisecraft.harness.evaluation._by_language`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from noisecraft.core.stats import format_table
from noisecraft.dataset.repo import atomic_write, atomic_write_text
from noisecraft.harness.breakdowns import CER_BUCKETS, EDIT_BUCKETS, WHOLE_FIELD
from noisecraft.harness.display import METRIC_NAMES, MIN_ROWS, TASK_TITLES, noise_name, pct
from noisecraft.harness.plots import write_plots
from noisecraft.harness.salad import word_salad_table
from noisecraft.harness.tasks import CLASSIFICATION, QA, TOKENS


def too_few(comparison: dict[str, Any]) -> bool:
    """Whether a comparison rests on fewer than :data:`MIN_ROWS` rows (then it is shown, not tested)."""
    return comparison.get("n") is not None and comparison["n"] < MIN_ROWS


def verdict(comparison: dict[str, Any]) -> str:
    """``''`` (significant), `` n.s.`` or `` (too few rows: n = 3)``."""
    if too_few(comparison):
        return f" (too few rows: n = {comparison['n']})"
    return "" if comparison["significant"] else " n.s."


def difference(comparison: dict[str, Any]) -> str:
    """``+4.2 [+2.0, +6.3]``, with ``n.s.`` when not significant and a warning when there are too few rows."""
    low, high = comparison["ci"]
    interval = f" [{100 * low:+.1f}, {100 * high:+.1f}]" if low is not None else ""
    return f"{100 * comparison['difference']:+.1f}{interval}{verdict(comparison)}"


def one_class_mark(result: dict[str, Any]) -> str:
    """`` (predicts one class)`` for a result whose model predicted one class for every row (see the warnings)."""
    return " (predicts one class)" if result["metrics"].get("one_class") is not None else ""


def p_value(comparison: dict[str, Any]) -> str:
    if "mcnemar" not in comparison:
        return "-"
    p = comparison["mcnemar"]["p_value"]
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def arrow(pair: dict[str, Any], fmt: str = "pct") -> str:
    """``clean -> noisy`` of a measure (percentages, or three decimals for entropy)."""
    show = pct if fmt == "pct" else (lambda v: "-" if v is None else f"{v:.3f}")
    return f"{show(pair['clean'])} → {show(pair['noisy'])}"


def ci_level(record: dict[str, Any]) -> int:
    """The interval level of a record's settings in percent (``95``)."""
    return round(100 * record["settings"]["confidence"])


def summary_rows(record: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Console summary: the main score of every model x config."""
    header = ["model", "config", "n", "metric", "clean", "noisy", f"clean - noisy [{ci_level(record)}% CI]", "McNemar p"]
    rows = []
    for r in record["results"]:
        comparison = r["metrics"][r["primary_metric"]]
        rows.append([r["model"], r["config"], r["n"], METRIC_NAMES[r["primary_metric"]], pct(comparison["clean"]),
                     pct(comparison["noisy"]), difference(comparison) + one_class_mark(r), p_value(comparison)])
    return header, rows


def comparison_rows(record: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Console table of the model comparisons: per config and pair, each side's difference first - second."""
    level = ci_level(record)
    header = ["config", "first", "second", "metric", f"clean: first - second [{level}% CI]",
              f"noisy: first - second [{level}% CI]", "noisy McNemar p"]
    rows = [[c["config"], c["first"], c["second"], METRIC_NAMES[c["primary_metric"]], difference(c["clean"]),
             difference(c["noisy"]), p_value(c["noisy"])] for c in record.get("model_comparisons") or []]
    return header, rows


#: The wide table's clean cell of a model whose configs hold different rows, and the note under the table.
NO_SHARED_CLEAN = "–¹"
NO_SHARED_CLEAN_NOTE = ("¹ The model's configs hold different rows, so they share no clean score: each cell gives its "
                        "config's own clean → noisy.")


def wide_table(results: list[dict[str, Any]], task: str) -> str:
    """NoiseQA-style comparison: one row per model, its clean score, then its noisy score per config (a model whose
    configs have different clean scores: a dash and a note, and clean → noisy in each cell)."""
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
        row = [model, next(iter(cleans)) if shared else NO_SHARED_CLEAN]
        for config in configs:
            r = mine.get(config)
            if r is None:
                row.append("")
                continue
            comparison = r["metrics"][r["primary_metric"]]
            noisy = cell(r, "noisy") + ("" if comparison["significant"] and not too_few(comparison) else
                                        f" ({verdict(comparison).strip()})")
            row.append(noisy if shared else f"{cell(r, 'clean')} → {noisy}")
        rows.append(row)
    table = format_table(["model", "clean", *configs], rows, markdown=True)
    return table + (f"\n\n{NO_SHARED_CLEAN_NOTE}" if any(row[1] == NO_SHARED_CLEAN for row in rows) else "")


def _long_table(results: list[dict[str, Any]], task: str, level: int) -> str:
    if task == QA:
        header = ["model", "config", "lang", "n", "EM clean", "EM noisy", f"ΔEM [{level}% CI]", "McNemar p",
                  "F1 clean", "F1 noisy", f"ΔF1 [{level}% CI]"]
        rows = [[r["model"], r["config"], r["lang"], r["n"], pct(m["exact_match"]["clean"]), pct(m["exact_match"]["noisy"]),
                 difference(m["exact_match"]), p_value(m["exact_match"]), pct(m["f1"]["clean"]), pct(m["f1"]["noisy"]),
                 difference(m["f1"])] for r in results for m in [r["metrics"]]]
    elif task == CLASSIFICATION:
        header = ["model", "config", "lang", "n", "acc. clean", "acc. noisy", f"Δacc. [{level}% CI]", "McNemar p",
                  "agreement", "flip rate", "attack success", "confidence", "entropy (nats)", "ECE"]
        rows = [[r["model"], r["config"], r["lang"], r["n"], pct(m["accuracy"]["clean"]), pct(m["accuracy"]["noisy"]),
                 difference(m["accuracy"]) + one_class_mark(r), p_value(m["accuracy"]), pct(m["agreement"]), pct(m["flip_rate"]),
                 pct(m["attack_success_rate"]), arrow(m["confidence"]), arrow(m["entropy"], "nats"), arrow(m["ece"])]
                for r in results for m in [r["metrics"]]]
    else:
        header = ["model", "config", "lang", "n", "F1 clean", "F1 noisy", f"ΔF1 [{level}% CI]", "precision", "recall"]
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


def _language_table(rows: list[dict[str, Any]], level: int) -> str:
    return format_table(
        ["model", "lang", "configs", "rows (examples)", "score", "clean", "noisy", f"clean - noisy [{level}% CI]"],
        [[r["model"], r["lang"], len(r["configs"]), f"{r['n']} ({r.get('examples', '?')})",
          METRIC_NAMES[r["primary_metric"]], pct(r["clean"]), pct(r["noisy"]), difference(r)] for r in rows],
        markdown=True)


def language_noise_table(results: list[dict[str, Any]]) -> str:
    """Language x noise: per model and language, the noisy main score and its drop under each noise (each
    cell one config, tested on its own rows)."""
    noises = list(dict.fromkeys(noise_name(r) for r in results))
    rows = []
    for model in dict.fromkeys(r["model"] for r in results):
        for lang in dict.fromkeys(r["lang"] for r in results if r["model"] == model):
            found = {noise_name(r): r for r in results if r["model"] == model and r["lang"] == lang}
            cells = []
            for noise in noises:
                r = found.get(noise)
                comparison = r["metrics"][r["primary_metric"]] if r else None
                cells.append("" if comparison is None else
                             f"{pct(comparison['noisy'])} ({100 * -comparison['difference']:+.1f}{verdict(comparison)})")
            clean = {pct(r["metrics"][r["primary_metric"]]["clean"]) for r in found.values()}
            rows.append([model, lang, " / ".join(sorted(clean)), *cells])
    return format_table(["model", "lang", "clean", *noises], rows, markdown=True)


def compare_table(comparisons: list[dict[str, Any]], level: int) -> str:
    """Two models on the same rows: each side's scores, the difference first - second with its interval and
    McNemar's p, and the difference of their drops."""
    def cell(c: dict[str, Any]) -> str:
        return f"{pct(c['first'])} vs {pct(c['second'])}: {difference(c)}" + (
            f", p = {p_value(c)}" if "mcnemar" in c else "")

    return format_table(
        ["config", "n", "first", "second", "score", f"clean: first vs second, Δ [{level}% CI]",
         f"noisy: first vs second, Δ [{level}% CI]", f"drop of first - drop of second [{level}% CI]"],
        [[c["config"], c["n"], c["first"], c["second"], METRIC_NAMES[c["primary_metric"]], cell(c["clean"]),
          cell(c["noisy"]), difference(c["drop"])] for c in comparisons], markdown=True)


def side_by_side(results: list[dict[str, Any]], task: str) -> str:
    """The table papers print: one row per config, each model's clean and noisy main score."""
    models = list(dict.fromkeys(r["model"] for r in results))
    rows = []
    for config in dict.fromkeys(r["config"] for r in results):
        found = {r["model"]: r for r in results if r["config"] == config}
        row: list[Any] = [config]
        for model in models:
            r = found.get(model)
            row.append("" if r is None else arrow(r["metrics"][r["primary_metric"]]))
        rows.append(row)
    return format_table(["config", *(f"{m} (clean → noisy)" for m in models)], rows, markdown=True)


def _models_table(models: list[dict[str, Any]]) -> str:
    """Each model, what ran it and where; for the runtime's models, its inputs and how many the cache held (a model
    lm-eval ran has no such counts: ``-``)."""
    def counts(m: dict[str, Any]) -> list[Any]:
        inputs = m.get("inputs")
        return [inputs["distinct"], inputs["computed"], inputs["from_cache"]] if inputs else ["-", "-", "-"]

    return format_table(
        ["model", "revision", "task", "device / dtype", "inputs (distinct)", "computed", "from cache"],
        [[m["model"], f"`{m['revision'][:19]}`", m["task"], f"{m['device']} / {m['dtype']}", *counts(m)]
         for m in models], markdown=True)


def _dataset_line(dataset: dict[str, Any]) -> str:
    where = (f"Hub revision `{dataset.get('revision') or 'main'}` (commit `{dataset.get('commit') or 'unknown offline'}`)"
             if "files_sha256" not in dataset else f"parquet files sha256 `{dataset['files_sha256'][:16]}…`")
    return (f"Dataset **{dataset['name']}** version {dataset.get('version')} (built by noisecraft "
            f"{dataset.get('toolkit_version')}), {where}.")


def render_readme(record: dict[str, Any], plots: Sequence[str]) -> str:
    """README.md of the report: the settings, a section per task, word salad, plots, model comparisons, the
    breakdowns, the models and their label mappings, notes and the files."""
    level = ci_level(record)
    results = record["results"]
    tasks = [t for t in (QA, CLASSIFICATION, TOKENS) if any(r["task"] == t for r in results)]
    parts = _intro(record, level)
    if record.get("warnings"):
        parts += ["## Warnings", "", *(f"- **{warning}**" for warning in record["warnings"]), ""]
    parts += _task_sections(record, tasks, level) + _word_salad_section(record)
    for name in plots:
        parts += [f"![{name}](plots/{name})", ""]
    parts += _comparison_section(record, tasks, level) + _breakdown_sections(record, level) + _mapping_lines(record)
    if record["notes"]:
        parts += ["## Notes", "", *(f"- {note}" for note in record["notes"]), ""]
    parts += ["## Files", "", "- `results.json`: every number above and more (per-example breakdowns, McNemar counts, "
              "versions, model and dataset revisions);",
              "- `predictions/<model>/<config>.parquet`: one row per example, clean and noisy inputs, predictions and "
              "scores;", "- `plots/*.png`.", "",
              *_engine_lines(record)]
    return "\n".join(parts)


def _intro(record: dict[str, Any], level: Any) -> list[str]:
    s = record["settings"]
    versions = ", ".join(f"{k} {v}" for k, v in record["versions"].items())
    return [
        f"# Robustness evaluation: {record['dataset']['name']}", "",
        _dataset_line(record["dataset"]) + f" Evaluated with noisecraft {record['noisecraft_version']} ({versions}) on "
        f"{s['device']} in {s['dtype']}" + (f", first {s['max_examples']} rows of each config" if s["max_examples"] else "")
        + ".", "",
        "Scores are percentages on the same rows: **clean** reads the `original_<field>` columns, **noisy** the "
        f"perturbed fields. Δ = clean − noisy (positive: the noise costs score) with its {level} % paired bootstrap "
        f"interval ({s['bootstrap_resamples']} resamples of the examples, seed {s['seed']}); McNemar p is the exact "
        "test on per-example right/wrong (accuracy, EM). **n.s.**: not significant at "
        f"α = {s['alpha']} (McNemar's test for accuracy and EM, otherwise an interval that contains 0); "
        f"**too few rows**: fewer than {MIN_ROWS} rows, not tested.", "",
    ]


def _task_sections(record: dict[str, Any], tasks: Sequence[str], level: Any) -> list[str]:
    s, results = record["settings"], record["results"]
    parts: list[str] = []
    for task in tasks:
        mine = [r for r in results if r["task"] == task]
        scored = "EM / F1" if task == QA else METRIC_NAMES[mine[0]["primary_metric"]]
        parts += [f"## {TASK_TITLES[task]}", "", f"Noisy {scored} per config (clean: the same rows before noise).", "",
                  wide_table(mine, task), "", _long_table(mine, task, level), ""]
        if task == QA:
            parts += [f"Answers are normalised as the `{s['qa_normalisation']}` script does (see "
                      "`noisecraft.harness.squad_metric`).", ""]
        if task == CLASSIFICATION:
            parts += ["Agreement: share of rows whose noisy prediction equals the clean one (flip rate = 1 − agreement). "
                      "Attack success: among rows right on the clean side, the share wrong on the noisy side "
                      "(TextAttack/ProbeGrammar count). Confidence: mean probability of the predicted class; ECE: "
                      "expected calibration error over 15 equal-width bins.", ""]
    return parts


def _word_salad_section(record: dict[str, Any]) -> list[str]:
    parts: list[str] = []
    if record.get("word_salad"):
        parts += ["## Word salad", "", "As Gupta, Kvernadze & Srikumar (2021, Tables 6–7) report it: per transformation "
                  "and task, **agreement** (share of rows whose prediction on the destroyed text equals the one on the "
                  "original; for copy transformations, marked *vs LABEL*, the share predicted as the label copying makes "
                  "true) and **confidence** (mean probability of the predicted label on the destroyed text), in %; a model "
                  "that knew it cannot tell would agree by chance and say 1/N. Several seeds of one transformation: "
                  "mean ± sample sd over the seeds.", ""]
        for model in dict.fromkeys(r["model"] for r in record["word_salad"]):
            parts += [f"**{model}**", "", word_salad_table(record["word_salad"], model), ""]
    return parts


def _comparison_section(record: dict[str, Any], tasks: Sequence[str], level: Any) -> list[str]:
    results = record["results"]
    parts: list[str] = []
    comparisons = record.get("model_comparisons") or []
    if comparisons:
        parts += ["## Models compared", "", "The same rows for every model. Δ = first − second (positive: the first "
                  f"model scores higher) with its {level} % paired bootstrap interval; McNemar's exact test for "
                  "accuracy and EM; the last column compares the two models' drops (clean − noisy).", ""]
        for task in tasks:
            parts += [side_by_side([r for r in results if r["task"] == task], task), ""]
        parts += [compare_table(comparisons, level), ""]
    return parts


def _breakdown_sections(record: dict[str, Any], level: Any) -> list[str]:
    results = record["results"]
    parts: list[str] = []
    langs = {r["lang"] for r in results}
    if len(langs) > 1:
        parts += ["## Language × noise", "", "Noisy main score and its change (noisy − clean) per language and noise; "
                  "each cell is one config, tested on its own rows.", "", language_noise_table(results), ""]
    return parts + ["## By number of edits", "", "Main score, clean → noisy (rows), by how many edits the noise made "
              f"(`{WHOLE_FIELD[2]}`: the changed rows of a noise that rewrites the whole field, one category whatever "
              "it did).", "",
              _breakdown_table(results, "edits", (*EDIT_BUCKETS, WHOLE_FIELD)), "",
              "## By character error rate", "", "Main score, clean → noisy (rows), by the row's CER against the original.",
              "", _breakdown_table(results, "cer", CER_BUCKETS), "",
              "## By language", "", "All rows of a model's configs in the language. Configs share their source "
              "rows, so the interval is a **clustered bootstrap** that resamples source examples (a row id with all "
              "its configs) and a difference is significant when that interval excludes 0 (no McNemar test: "
              "the rows are not independent pairs).", "",
              _language_table(record["by_language"], level), "",
              "## Models", "", _models_table(record["models"]), ""]


def _mapping_lines(record: dict[str, Any]) -> list[str]:
    """Label mappings (model label -> dataset label); configs that share a mapping are listed together."""
    mappings = []
    for m in record["models"]:  # configs that share a mapping are listed together
        shared: dict[str, list[str]] = {}
        for config, mapping in m["label_mappings"].items():
            pairs = ", ".join(f"{k}→{v if v is not None else 'O (type not in the dataset)'}" for k, v in mapping["map"].items())
            shared.setdefault(f"{mapping['how']}: {pairs}", []).append(config)
        mappings += [f"- {m['model']} on {', '.join(configs)}: {described}" for described, configs in shared.items()]
    return ["Label mappings (model label → dataset label):", "", *mappings, ""] if mappings else []


def _engine_lines(record: dict[str, Any]) -> list[str]:
    """What the report says about how predictions were made: the runtime's cache, or lm-eval's logged samples."""
    if "lm_eval_samples" in record["settings"]:
        return [f"Predictions are the samples lm-evaluation-harness logged in `{record['settings']['lm_eval_samples']}` "
                "on the tasks of `noisecraft export lm-eval`, matched to the set's rows by id: a QA answer is the "
                "generated text, scored as above; a class is the label name of highest log-likelihood, and its "
                "confidence the softmax of the label names' log-likelihoods.", ""]
    return ["Predictions are cached per (model, revision, settings, precision, input): a re-run computes only new inputs. "
            "On CPU in float32 a batch's padding can move logits in the last bits; predictions (argmax, best span) do "
            "not change with the batch size.", ""]


def model_slug(label: str) -> str:
    """A model name as a folder name (``org/name`` -> ``org--name``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", label.replace("/", "--")).strip("-") or "model"


def _write_parquet(path: Path, columns: dict[str, list[Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(columns)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression="zstd"))


def write_report(record: dict[str, Any], predictions: Sequence[tuple[str, str, dict[str, list[Any]]]], record_json: str,
                 out: Path, plots: bool = True) -> list[Path]:
    """Write the report folder from an evaluation's record (and its JSON text) and per-example columns; returns
    the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    slugs: dict[str, str] = {}
    for label, config, columns in predictions:
        slug = slugs.setdefault(label, model_slug(label) if model_slug(label) not in slugs.values()
                                else f"{model_slug(label)}-{len(slugs) + 1}")
        path = out / "predictions" / slug / f"{config}.parquet"
        _write_parquet(path, columns)
        written.append(path)
    images: list[str] = []
    if plots:
        for path in write_plots(record, out / "plots"):
            written.append(path)
            images.append(path.name)
    atomic_write_text(out / "results.json", record_json)
    atomic_write_text(out / "README.md", render_readme(record, images))
    return [*written, out / "results.json", out / "README.md"]
