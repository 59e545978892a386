"""``noisecraft evaluate --lm-eval-samples RUN``: lm-evaluation-harness's per-sample logs -> the paired report.

lm-eval writes, per run, ``results_<date>.json`` (its settings, and the config of every task with the
``metadata.noisecraft`` that ``noisecraft export lm-eval`` put there: the set, the config and the side) and, with
``--log_samples``, ``samples_<task>_<date>.jsonl`` beside it: one line per row, with the row itself (``doc``)
and the model's filtered responses. Each run names its model; several runs of one model (other tasks, another
day) are read together, and several models are compared on the rows they share, as encoders are. Samples of
other tasks (another set's, or lm-eval's own benchmarks run alongside) are not read, and the report says so.

Per model and config the clean and noisy samples are matched to the set's rows by id, and each sample's
perturbed fields and gold label are checked against its row (samples of a set rebuilt after the run are
refused, not scored). An id the config does not have, a duplicate id, a side without the other, or rows that
one side has and the other lacks is a one-line error: nothing is dropped. The predictions are then scored as an
encoder's are (:meth:`~noisecraft.harness.evaluation.ModelRun.add`):

* QA: the generated answer, with noisecraft's SQuAD EM/F1 (or the MLQA normalisation);
* multiple choice: the label names' log-likelihoods as probabilities (their softmax), so accuracy (the highest
  log-likelihood, lm-eval's ``acc``), confidence, entropy and calibration are all measured.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from noisecraft.errors import ConfigError
from noisecraft.harness.challenge_set import ConfigData, open_challenge_set
from noisecraft.harness.evaluation import ModelRun, assemble
from noisecraft.harness.result import EvaluationResult
from noisecraft.harness.scoring import StatsSettings
from noisecraft.harness.tasks import CLASSIFICATION, QA
from noisecraft.runtime.labels import LabelMapping

SIDES = ("clean", "noisy")


@dataclass
class LmEvalModel:
    """One model's samples in a run folder: ``(config, side)`` -> the samples file and its lines."""

    label: str
    record: dict[str, Any]
    samples: dict[tuple[str, str], tuple[Path, list[dict[str, Any]]]] = field(default_factory=dict)


def evaluate_lm_eval(run: str | Path, dataset: str | Path, configs: Sequence[str] | None = None, *,
                     revision: str | None = None, resamples: int = 1000, confidence: float = 0.95, alpha: float = 0.05,
                     seed: int = 0, qa_normalisation: str = "squad", out: str | Path | None = None,
                     plots: bool = True) -> EvaluationResult:
    """Score the samples lm-eval logged under ``run`` (``--output_path`` of ``lm_eval ... --log_samples`` on tasks of
    ``noisecraft export lm-eval``) against the challenge set ``dataset``: the same report as :func:`evaluate`
    writes for encoders, one model per lm-eval model, on ``configs`` (default: every config the samples cover)."""
    settings = StatsSettings(resamples, confidence, seed, alpha, qa_normalisation)
    challenge = open_challenge_set(dataset, revision)
    models, notes = read_run(Path(run), Path(challenge.name).name if challenge.folder is None else
                             challenge.folder.resolve().name)
    covered = {config for model in models for config, _ in model.samples}
    unknown = sorted(covered - set(challenge.config_names))
    if unknown:
        raise ConfigError(f"{run} holds samples of config(s) {', '.join(unknown)} of {dataset}, which has no such config: "
                          "was the set rebuilt after the export? Export and run it again")
    absent = [c for c in configs or () if c not in covered]
    if absent:
        raise ConfigError(f"{run} holds no samples of config {absent[0]!r}; it has samples of {', '.join(sorted(covered))}")
    names = [c for c in dict.fromkeys(configs or challenge.config_names) if c in covered]
    loaded = {name: challenge.load(name) for name in names}
    runs = [_score(model, loaded, settings) for model in models if any(c in loaded for c, _ in model.samples)]
    runs[0].notes[:0] = notes
    used: dict[str, ConfigData] = {}  # each config's rows as the first model that ran it ran them
    for model_run in runs:
        for _, data, _ in model_run.scored:
            used.setdefault(data.name, data)
    records = [model_run.record for model_run in runs]
    versions = {library: _joined(m["lm_eval"][f"{library}_version"] for m in records) for library in ("lm_eval", "transformers")}
    result = assemble(challenge, names, [used[name] for name in names], settings,
                      {"split": None, "max_examples": None, "device": _joined(m["device"] for m in records),
                       "dtype": _joined(m["dtype"] for m in records), "lm_eval_samples": str(run)}, versions, runs)
    if out is not None:
        result.save(out, plots=plots)
    return result


def _joined(values: Iterable[Any]) -> str:
    """The distinct values, in order, joined by commas (the device of every model, say)."""
    return ", ".join(dict.fromkeys(str(value) for value in values))


def _score(model: LmEvalModel, loaded: dict[str, ConfigData], settings: StatsSettings) -> ModelRun:
    """One model's samples matched to the rows of each loaded config it ran, and scored."""
    run = ModelRun(model.record)
    for name, data in loaded.items():
        if not any((name, side) in model.samples for side in SIDES):
            run.notes.append(f"{model.label} was not run on {name} (no samples)")
            continue
        rows, samples = _matched(model, data)
        if len(rows.ids) < len(data.ids):
            run.notes.append(f"{model.label} on {name}: lm-eval ran {len(rows.ids)} of its {len(data.ids)} rows (--limit)")
        clean, noisy, mapping = _outputs(rows, samples)
        run.add({"model": model.label, "revision": model.record["revision"]}, rows, clean, noisy, mapping, settings)
    return run


def read_run(run: Path, name: str) -> tuple[list[LmEvalModel], list[str]]:
    """The models of an lm-eval output folder with their samples of the tasks exported from the set ``name`` (a
    folder's name), and a note naming the tasks whose samples were not read (another set's, or not exported)."""
    if not run.is_dir():
        raise ConfigError(f"{run} is not a folder: give lm_eval's --output_path")
    models: dict[str, LmEvalModel] = {}
    other: set[str] = set()
    read: set[Path] = set()
    for results_path in sorted(run.rglob("results_*.json")):
        results = _json(results_path)
        date = results_path.stem.removeprefix("results_")
        model = _model(results, results_path.parent.name, models)
        for task, config in (results.get("configs") or {}).items():
            exported = (config.get("metadata") or {}).get("noisecraft")
            path = results_path.parent / f"samples_{task}_{date}.jsonl"
            read.add(path)
            if not exported or exported.get("set") != name:
                other.add(task if not exported else f"{task} (set {exported.get('set')})")
                continue
            if not path.is_file():
                raise ConfigError(f"{results_path} ran task {task} but {path.name} is not beside it: run lm_eval with "
                                  "--log_samples")
            key = (exported["config"], exported["side"])
            if key in model.samples:
                raise ConfigError(f"two runs of {key[0]} ({key[1]}) by {model.label}: {model.samples[key][0]} and "
                                  f"{path}; keep one of them in {run}")
            model.samples[key] = (path, _lines(path))
            model.record["lm_eval"]["runs"].append(results_path.name)
    orphans = sorted(str(p) for p in run.rglob("samples_*.jsonl") if p not in read)
    if orphans:
        raise ConfigError(f"{orphans[0]} has no results_<date>.json of its run beside it (lm-eval writes both; was the "
                          "run interrupted?): it cannot be matched to a config")
    found = [m for m in models.values() if m.samples]
    if not found:
        found = f"; it holds samples of {', '.join(sorted(other)[:5])}" if other else ""
        raise ConfigError(f"{run} holds no samples of tasks exported from {name} by noisecraft export lm-eval (run "
                          f"lm_eval on them with --log_samples --output_path){found}")
    labels = [model_label(m.record["lm_eval"]["model_name"]) for m in found]
    for model, label in zip(found, labels):  # two folders of one name keep their whole paths apart
        model.label = model.record["model"] = label if labels.count(label) == 1 else model.record["lm_eval"]["model_name"]
    notes = [f"not read: samples of {', '.join(sorted(other))}, not tasks of {name}"] if other else []
    return found, notes


def _json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: unreadable lm-eval results file: {exc}") from exc


def _lines(path: Path) -> list[dict[str, Any]]:
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: unreadable lm-eval samples file: {exc}") from exc


def model_label(name: str) -> str:
    """How tables name an lm-eval model: a local folder by its last part (as for encoders), a Hub id as it is."""
    path = Path(name).expanduser()
    if path.is_dir() or not re.fullmatch(r"[\w.-]+/[\w.-]+", name) or name.startswith("."):
        return path.name or name
    return name


def _model(results: dict[str, Any], folder: str, models: dict[str, LmEvalModel]) -> LmEvalModel:
    """The model of a results file (lm-eval's ``model_name``, else the run folder it wrote: a model already seen in
    another run of the folder is that one), labelled by its whole name until :func:`read_run` shortens it."""
    config = results.get("config") or {}
    name = str(results.get("model_name") or folder)
    if name not in models:
        revision = config.get("model_sha") or config.get("model_revision") or "-"
        models[name] = LmEvalModel(name, {
            "model": name, "revision": str(revision), "task": f"lm-eval ({results.get('model_source', config.get('model'))})",
            "device": config.get("device") or "-", "dtype": str(config.get("model_dtype") or "-"), "label_mappings": {},
            "lm_eval": {"model_name": name, "model_args": config.get("model_args"), "batch_size": config.get("batch_size"),
                        "limit": config.get("limit"), "gen_kwargs": config.get("gen_kwargs"),
                        "lm_eval_version": results.get("lm_eval_version"),
                        "transformers_version": results.get("transformers_version"), "runs": []}})
    return models[name]


def _matched(model: LmEvalModel, data: ConfigData) -> tuple[ConfigData, dict[str, list[dict[str, Any]]]]:
    """The rows of ``data`` the model's clean and noisy samples cover (in the set's order) and each side's samples in
    that order, after checking that each side has every such row once and that each sample is its row."""
    sides = {}
    for side in SIDES:
        if (data.name, side) not in model.samples:
            other = "noisy" if side == "clean" else "clean"
            raise ConfigError(f"{model.label} has {other} samples of {data.name} but no {side} ones: run both tasks of "
                              "the config (the exported group runs them all)")
        path, lines = model.samples[(data.name, side)]
        ids = [str((line.get("doc") or {}).get("id")) for line in lines]
        repeated = next((i for i in ids if ids.count(i) > 1), None)
        if repeated is not None:
            raise ConfigError(f"{path}: row id {repeated!r} has more than one sample (one filter per task, please)")
        sides[side] = dict(zip(ids, lines))
    position = {row_id: i for i, row_id in enumerate(data.ids)}
    for side, by_id in sides.items():
        stray = next((i for i in by_id if i not in position), None)
        if stray is not None:
            raise ConfigError(f"{model.samples[(data.name, side)][0]}: sample id {stray!r} is not a row of {data.name}")
    if sides["clean"].keys() != sides["noisy"].keys():
        missing = sorted(sides["clean"].keys() ^ sides["noisy"].keys())[0]
        raise ConfigError(f"{model.label} on {data.name}: row {missing!r} has a sample on one side only; run the clean "
                          "and the noisy task on the same rows (the same --limit)")
    rows = data.rows(sorted(position[i] for i in sides["clean"]))
    ordered = {side: [sides[side][row_id] for row_id in rows.ids] for side in SIDES}
    for side, samples in ordered.items():
        for i, sample in enumerate(samples):
            _check_row(sample["doc"], rows, i, model.samples[(data.name, side)][0])
    return rows, ordered


def _check_row(doc: dict[str, Any], data: ConfigData, i: int, path: Path) -> None:
    """The logged row must be the set's row ``i``: the same perturbed fields, originals and gold label or answers."""
    expected = {"gold": data.gold[i]}
    for position, name in enumerate(data.task.inputs):
        if name in data.fields:
            expected[name], expected[f"original_{name}"] = data.noisy[i][position], data.clean[i][position]
    logged = {name: doc.get(name) for name in expected if name != "gold"}
    target = doc.get(data.task.target)
    logged["gold"] = target.get("text") if data.task.kind == QA and isinstance(target, dict) else target
    differ = [name for name in expected if logged[name] != expected[name]]
    if differ:
        raise ConfigError(f"{path}: the sample of row {data.ids[i]!r} is not the set's row ({', '.join(differ)} "
                          "differ): was the set rebuilt after the lm-eval run? Export and run it again")


def _outputs(data: ConfigData, samples: dict[str, list[dict[str, Any]]]) -> tuple[list[Any], list[Any], LabelMapping | None]:
    """Each side's predictions as the scorers take them (QA answers, class probabilities) and the label mapping:
    the choices are the dataset's label names, in its order."""
    if data.task.kind == QA:
        return *(_answers(samples[side]) for side in SIDES), None
    if data.task.kind != CLASSIFICATION:
        raise ConfigError(f"{data.name} is {data.task.kind}: lm-eval samples of it cannot be scored")
    names = data.task.label_names
    mapping = LabelMapping(names, names, tuple(range(len(names))), "the choices are the label names")
    return *(_probabilities(samples[side], len(names)) for side in SIDES), mapping


def _answers(samples: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The generated answer of each sample (lm-eval's filtered response)."""
    answers = []
    for sample in samples:
        response = (sample.get("filtered_resps") or [None])[0]
        if not isinstance(response, str):
            raise ConfigError(f"row {sample['doc'].get('id')!r}: its sample has no generated answer "
                              f"({str(response)[:60]}): not a generate_until task of noisecraft export lm-eval")
        answers.append({"text": response})
    return answers


def _probabilities(samples: list[dict[str, Any]], classes: int) -> np.ndarray:
    """The softmax of each sample's choice log-likelihoods (lm-eval logs ``[log-likelihood, is_greedy]`` per choice)."""
    rows = []
    for sample in samples:
        responses = sample.get("filtered_resps") or []
        if len(responses) != classes:
            raise ConfigError(f"row {sample['doc'].get('id')!r}: its sample scores {len(responses)} choices and the "
                              f"config has {classes} labels: not a multiple_choice task of noisecraft export lm-eval")
        rows.append([float(response[0]) for response in responses])
    logits = np.array(rows, dtype=float).reshape(len(rows), classes)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)
