"""What Gupta, Kvernadze & Srikumar (AAAI 2021, "BERT & Family Eat Word Salad") measure, from evaluated configs.

For a destroyed input a reliable classifier should not keep its prediction, nor be confident. The paper reports,
per transformation and task:

* **agreement**: the share of examples whose prediction on the destroyed text equals the prediction on the
  original; for the transformations that copy one text into the other (``copysort``, ``copyone``) the pair
  becomes lexically identical, so agreement is measured against the **default label** that copying makes
  true instead (NLI: entailment; paraphrase: equivalent/duplicate), found by name among the set's labels;
* **confidence**: the mean probability of the predicted label on the destroyed text, to read next to ``1/N``
  (N labels: what a model that knows it cannot tell would say).

:func:`word_salad_rows` turns the per-config results of an evaluation into the paper's Tables 6-7: one row per
transformation, one column per task; a transformation built under several seeds (shuffle) is averaged over
them (mean ± sample sd, each seed's value kept). Which configs count is read from the noise models themselves:
those that cite the paper.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from noisecraft.core.citations import WORD_SALAD_CITATION
from noisecraft.core.stats import format_table
from noisecraft.errors import ConfigError
from noisecraft.harness.display import noise_name
from noisecraft.harness.tasks import CLASSIFICATION
from noisecraft.noise_models.registry import model_class

#: Transformations that make the pair's texts share their words: measured against the default label.
DEFAULT_LABEL_NOISES = ("copysort", "copyone")
#: Label names a copied pair is "by default" (GLUE/XNLI NLI, MRPC, QQP, PAWS), matched exactly (case-insensitive).
DEFAULT_LABEL_NAMES = ("entailment", "equivalent", "duplicate", "paraphrase")


def _steps(noise_id: str) -> list[str]:
    """The ``name@version`` steps of a noise id (steps joined by ``|``)."""
    return [step.strip() for step in noise_id.split("|") if step.strip()]


def is_word_salad(noise_id: str) -> bool:
    """Whether a step of the noise is a model of the word-salad paper (it cites it); unknown models are not."""
    try:
        return any(model_class(step).citation == WORD_SALAD_CITATION for step in _steps(noise_id))
    except ConfigError:  # a noise this noisecraft does not know (a set built by a newer one)
        return False


def transformation(result: dict[str, Any]) -> str:
    """A result's noise as a row of the table: ``name@version`` and the parameters that differ from their declared
    defaults, except the classifier an importance-guided model ranks words with (and its revision): each task has
    its own, and drop on MRPC and drop on SST-2 are one transformation. A chain, or a model this noisecraft does
    not know, is named with all its parameters."""
    noise_id, params = result.get("noise_id", ""), result.get("params", {})
    try:
        (step,) = _steps(noise_id)
        specs = model_class(step).param_specs()
    except (ConfigError, ValueError):
        return noise_name(result)
    shown = [f"{spec.name}={params[spec.name]}" for spec in specs
             if spec.name in params and params[spec.name] != spec.default and spec.file != "model"
             and spec.name != "revision"]
    return " ".join([step, *shown])


def default_label(config: str, noise_id: str, label_names: Sequence[str]) -> int | None:
    """The index of the label a copy transformation is measured against, or None when the config's noise is
    measured against the original prediction. A copy transformation on labels with no default name is an error."""
    copying = [step for step in _steps(noise_id) if step.partition("@")[0] in DEFAULT_LABEL_NOISES]
    if not copying:
        return None
    found = [i for i, name in enumerate(label_names) if name.casefold() in DEFAULT_LABEL_NAMES]
    if len(found) != 1:
        raise ConfigError(f"config {config}: {copying[0]} is measured against the label copying makes true, but "
                          f"{'none' if not found else 'more than one'} of its labels ({', '.join(label_names)}) is one of "
                          f"{', '.join(DEFAULT_LABEL_NAMES)}")
    return found[0]


def _spread(values: list[float]) -> dict[str, Any]:
    """Mean, sample standard deviation (None for one value) and the values."""
    array = np.asarray(values, dtype=float)
    return {"mean": float(array.mean()), "sd": float(array.std(ddof=1)) if len(array) > 1 else None,
            "values": [float(v) for v in array]}


def word_salad_rows(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per model x transformation x task (source) x destroyed fields, over the classification results
    of word-salad noises: agreement (against the default label where the transformation has one), the mean
    confidence of the noisy predictions and ``1/N``, each a mean over the seeds the folder holds."""
    cells: dict[tuple[str, str, str, tuple[str, ...]], list[dict[str, Any]]] = {}
    for r in results:
        if r["task"] == CLASSIFICATION and is_word_salad(r.get("noise_id", "")):
            key = (r["model"], transformation(r), r.get("source") or r["config"], tuple(r.get("fields", ())))
            cells.setdefault(key, []).append(r)
    rows = []
    for (model, name, task, fields), members in cells.items():
        members = sorted(members, key=lambda r: r.get("seed", 0))
        seeds = [r.get("seed", 0) for r in members]
        if len(set(seeds)) != len(seeds):
            configs = ", ".join(r["config"] for r in members)
            raise ConfigError(f"configs {configs} are the same transformation, task, fields and seed: evaluate one of them")
        against = {r["metrics"].get("default_label", {}).get("label") for r in members}
        if len(against) != 1:
            raise ConfigError(f"configs {', '.join(r['config'] for r in members)} disagree on their default label")
        label = against.pop()
        agreement = [r["metrics"]["default_label"]["agreement"] if label else r["metrics"]["agreement"] for r in members]
        rows.append({"model": model, "transformation": name, "task": task, "fields": list(fields),
                     "configs": [r["config"] for r in members], "seeds": seeds, "n": [r["n"] for r in members],
                     "agreement_with": f"default label {label}" if label else "original prediction",
                     "agreement": _spread(agreement),
                     "confidence": _spread([r["metrics"]["confidence"]["noisy"] for r in members]),
                     "clean_confidence": _spread([r["metrics"]["confidence"]["clean"] for r in members]),
                     "chance": 1 / members[0]["metrics"]["classes"]})
    return rows


def _cell(spread: dict[str, Any]) -> str:
    if spread["sd"] is None:
        return f"{100 * spread['mean']:.1f}"
    return f"{100 * spread['mean']:.1f} ± {100 * spread['sd']:.1f}"


def word_salad_table(rows: Sequence[dict[str, Any]], model: str, markdown: bool = True) -> str:
    """The paper's layout for one model: a row per transformation, agreement and confidence per task (%)."""
    return format_table(*word_salad_cells(rows, model), markdown=markdown)


def word_salad_cells(rows: Sequence[dict[str, Any]], model: str) -> tuple[list[str], list[list[str]]]:
    """:func:`word_salad_table`'s header and cells."""
    mine = [r for r in rows if r["model"] == model]
    tasks = list(dict.fromkeys(r["task"] for r in mine))
    # a transformation applied to different fields of one task gets a row per field set
    fields_of: dict[tuple[str, str], set[tuple[str, ...]]] = {}
    for r in mine:
        fields_of.setdefault((r["transformation"], r["task"]), set()).add(tuple(r["fields"]))
    split = {key for key, found in fields_of.items() if len(found) > 1}

    def row_name(r: dict[str, Any]) -> str:
        seeds = f" ({len(r['seeds'])} seeds)" if len(r["seeds"]) > 1 else ""
        fields = f" [{', '.join(r['fields'])}]" if (r["transformation"], r["task"]) in split else ""
        return r["transformation"] + fields + seeds

    names = list(dict.fromkeys(row_name(r) for r in mine))
    found = {(row_name(r), r["task"]): r for r in mine}
    header = ["transformation"]
    for task in tasks:
        chance = next(r["chance"] for r in mine if r["task"] == task)
        header += [f"{task} agreement", f"{task} confidence (1/N = {100 * chance:.1f})"]
    table = []
    for name in names:
        line = [name]
        for task in tasks:
            r = found.get((name, task))
            if r is None:
                line += ["", ""]
                continue
            against = "" if r["agreement_with"] == "original prediction" else f" (vs {r['agreement_with'].split()[-1]})"
            line += [_cell(r["agreement"]) + against, _cell(r["confidence"])]
        table.append(line)
    return header, table
