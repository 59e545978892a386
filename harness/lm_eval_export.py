"""``noisecraft export lm-eval``: a challenge set as lm-evaluation-harness tasks, so any LLM can be scored on it.

Each config becomes two tasks, ``<group>.<config>.clean`` (the ``original_<field>`` columns) and
``<group>.<config>.noisy`` (the perturbed fields), read straight from the set's parquet files
(``dataset_path: parquet`` with absolute ``data_files``: nothing is copied), and one group, ``<group>``
(``noisecraft-<folder name>`` unless named), holds every task of the set. Prompts per task family:

* extractive QA: ``generate_until`` (greedy, up to the first newline), scored with SQuAD exact match and F1 by
  noisecraft's own scorer (the ``utils.py`` written beside the tasks), so lm-eval's numbers are the report's;
* classification and NLI: ``multiple_choice`` over the label names (``not_equivalent`` read as
  ``not equivalent``): the prediction is the name the model gives the highest log-likelihood.

``prompt`` replaces the prompt of every task: a Jinja template (lm-eval's ``doc_to_text``) over the config's
columns that names each perturbed field as itself (``{{question}}``); the clean task reads ``original_<field>``
in its place. Token classification (WikiANN) is not exported: a sequence of per-token tags has no prompt whose
free-text answer can be scored soundly against them.

Every task's ``metadata.noisecraft`` names its set (the folder's name), config and side, which lm-eval copies
into its results file, and
every logged sample keeps its row (its ``doc``, with the row ``id``): ``noisecraft evaluate --lm-eval-samples``
matches the samples back to the set's rows by id (:mod:`noisecraft.harness.lm_eval_samples`).

Defining the command's options imports nothing heavy, so ``noisecraft --help`` stays instant.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from noisecraft.dataset.repo import data_files
from noisecraft.errors import ConfigError

SIDES = ("clean", "noisy")
#: lm-eval's task settings for each family (beside the prompt, the data and the target).
QA_SETTINGS = {
    "output_type": "generate_until",
    "generation_kwargs": {"until": ["\n"], "max_gen_toks": 32, "do_sample": False, "temperature": 0.0},
    "process_results": "utils.squad_scores",
    "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True},
                    {"metric": "f1", "aggregation": "mean", "higher_is_better": True}],
}
CHOICE_SETTINGS = {"output_type": "multiple_choice", "metric_list": [{"metric": "acc", "aggregation": "mean",
                                                                      "higher_is_better": True}]}
#: The ``utils.py`` of a set with QA configs: lm-eval scores each generated answer with noisecraft's SQuAD EM/F1.
UTILS = '''"""Written by `noisecraft export lm-eval`: SQuAD exact match and F1 of a generated answer against every gold
answer, computed by noisecraft's scorer, so lm-eval's numbers equal the report of `noisecraft evaluate`."""

from noisecraft.harness.squad_metric import exact_match, f1


def squad_scores(doc, results):
    answer, gold = results[0], doc["answers"]["text"]
    return {"exact_match": exact_match(answer, gold), "f1": f1(answer, gold)}
'''
EXAMPLES = """examples:
  noisecraft export lm-eval xquad-noisy/ --out tasks/
  lm_eval --model hf --model_args pretrained=Qwen/Qwen2.5-0.5B --tasks noisecraft-xquad-noisy --include_path tasks/ \\
      --log_samples --output_path run/
  noisecraft evaluate --lm-eval-samples run/ --dataset xquad-noisy/ --out report/
  noisecraft export lm-eval mrpc-noisy/ --out tasks/ --prompt 'A: {{sentence1}} B: {{sentence2}} Are A and B equivalent?'
"""


@dataclass
class Export:
    """What an export wrote: the group's name, the task names, the files, and a line per config left out."""

    group: str
    tasks: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def export_lm_eval(dataset: str | Path, out: str | Path, configs: list[str] | None = None, *,
                   prompt: str | None = None, group: str | None = None) -> Export:
    """Write lm-evaluation-harness tasks for ``configs`` (default: all) of the local challenge set ``dataset`` into
    the new folder ``out``: one YAML per config and side, the group's YAML and, for QA, ``utils.py``."""
    from noisecraft.harness.challenge_set import open_challenge_set

    challenge = open_challenge_set(dataset)
    if challenge.folder is None:
        raise ConfigError(f"{dataset} is not a local folder: lm-eval tasks read a set's parquet files, so export a "
                          "folder made by noisecraft build (or a downloaded copy of the Hub repo)")
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(f"{out} exists and is not an empty folder: give a new folder for the tasks")
    folder = challenge.folder.resolve()
    # prefixed, so a set named like one of lm-eval's own tasks (mrpc, xquad) never overrides it
    result = Export(group or re.sub(r"[^A-Za-z0-9_.+-]+", "-", f"noisecraft-{folder.name}"))
    tasks: dict[str, dict[str, Any]] = {}
    for config in dict.fromkeys(configs or challenge.config_names):
        if config not in challenge.manifest["configs"]:
            raise ConfigError(f"{dataset} has no config {config!r}; its configs: {', '.join(challenge.config_names)}")
        made = _config_tasks(folder, config, challenge.manifest, result.group, prompt)
        if isinstance(made, str):
            result.skipped.append(made)
        else:
            tasks.update(made)
    if not tasks:
        raise ConfigError(f"nothing to export from {dataset}: {'; '.join(result.skipped)}")
    out.mkdir(parents=True, exist_ok=True)
    for name, task in tasks.items():
        result.files.append(_write_yaml(out / f"{name}.yaml", task))
    result.tasks = list(tasks)
    result.files.append(_write_yaml(out / f"{result.group}.yaml",
                                    {"group": result.group, "task": result.tasks, "metadata": {"version": 1}}))
    if any(task["output_type"] == "generate_until" for task in tasks.values()):
        (out / "utils.py").write_text(UTILS, encoding="utf-8")
        result.files.append(out / "utils.py")
    return result


def _config_tasks(folder: Path, config: str, manifest: dict[str, Any], group: str,
                  prompt: str | None) -> dict[str, dict[str, Any]] | str:
    """The clean and noisy task of a config by name, or the line saying why the config is not exported."""
    import datasets
    import pyarrow.parquet as pq

    from noisecraft.harness.tasks import QA, TOKENS, task_of

    spec = manifest["configs"][config]["spec"]
    split = spec["split"]
    files = [folder / path for path in data_files(manifest, config).get(split, [])]
    if not files:
        raise ConfigError(f"{folder}: config {config} has no parquet files of split {split!r}")
    features = datasets.Features.from_arrow_schema(pq.read_schema(files[0]))
    task = task_of(config, spec, features)
    if task.kind == TOKENS:
        return (f"{config} is not exported: token classification has no prompt whose free-text answer can be scored "
                "soundly against per-token tags")
    fields = list(spec["fields"])
    choices = [name.replace("_", " ") for name in task.label_names]
    template = prompt if prompt is not None else default_prompt(task.kind, task.inputs, choices)
    _check_prompt(template, config, set(features), fields)
    settings: dict[str, Any] = (
        {**QA_SETTINGS, "doc_to_target": f"{{{{{task.target}.text[0]}}}}"} if task.kind == QA
        else {**CHOICE_SETTINGS, "doc_to_choice": choices, "doc_to_target": task.target})
    tasks = {}
    for side in SIDES:
        # the clean side reads each perturbed field's original in its place
        originals = "".join(f"{{% set {f} = original_{f} -%}}\n" for f in fields) if side == "clean" else ""
        name = f"{group}.{config}.{side}"
        tasks[name] = {"task": name, "dataset_path": "parquet",
                       "dataset_kwargs": {"data_files": {split: [str(f) for f in files]}},
                       "test_split": split, "doc_to_text": originals + template, **settings,
                       "metadata": {"version": 1, "noisecraft": {"set": folder.name, "config": config, "side": side}}}
    return tasks


def default_prompt(kind: str, inputs: tuple[str, ...], choices: list[str]) -> str:
    """The prompt of a task family, as a Jinja template over the input columns: QA (question, context) asks for a
    span of the passage; classification shows each input under its column's name and asks for one of the labels."""
    from noisecraft.harness.tasks import QA

    if kind == QA:
        question, context = inputs
        return ("Answer the question with a short span copied from the passage.\n\n"
                f"Passage: {{{{{context}}}}}\nQuestion: {{{{{question}}}}}\nAnswer:")
    shown = "".join(f"{name.replace('_', ' ').capitalize()}: {{{{{name}}}}}\n" for name in inputs)
    options = f"{', '.join(choices[:-1])} or {choices[-1]}"
    return f"{shown}Question: Which label fits {'the pair' if len(inputs) > 1 else 'the text'}: {options}?\nAnswer:"


def _check_prompt(template: str, config: str, columns: set[str], fields: list[str]) -> None:
    """A prompt must parse and name only columns of the config, each perturbed field as itself (the clean task
    puts the original in its place), never an ``original_`` column (both tasks would then read the same text)."""
    from noisecraft.extras import require

    meta = require("jinja2.meta", "llm")
    from jinja2 import Environment, TemplateSyntaxError

    try:
        names = meta.find_undeclared_variables(Environment().parse(template))
    except TemplateSyntaxError as exc:
        raise ConfigError(f"the prompt is not a valid Jinja template: {exc}") from exc
    originals = sorted(n for n in names if n.startswith("original_"))
    if originals:
        raise ConfigError(f"the prompt names {', '.join(originals)}: name the field itself ({originals[0][9:]}); the "
                          "clean task reads the original in its place")
    unknown = sorted(names - columns)
    if unknown:
        raise ConfigError(f"the prompt names {', '.join(unknown)}, which config {config} does not have; its columns: "
                          f"{', '.join(sorted(columns))}")
    if not names & set(fields):
        raise ConfigError(f"the prompt names none of the perturbed fields of {config} ({', '.join(fields)}): its "
                          "clean and noisy tasks would be the same")


class _Function(str):
    """A ``!function module.name`` value of lm-eval's YAML."""


def _text(dumper: Any, value: str) -> Any:
    """A prompt as a block of lines (``|``), a whitespace stop sequence in double quotes (``"\\n"``)."""
    style = '"' if not value.strip() else "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


def _write_yaml(path: Path, data: dict[str, Any]) -> Path:
    """``data`` as YAML, prompts as blocks of lines, the tasks' ``process_results`` as lm-eval's ``!function`` tag."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    Dumper.add_representer(str, _text)
    Dumper.add_representer(_Function, lambda dumper, value: dumper.represent_scalar("!function", str(value)))
    if "process_results" in data:
        data = {**data, "process_results": _Function(data["process_results"])}
    path.write_text(yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8")
    return path


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """The ``export`` subcommand and its one target, ``lm-eval``."""
    export = commands.add_parser("export", help="export a challenge set for another evaluation engine (lm-eval)",
                                 description="Export a challenge set for another evaluation engine.")
    targets = export.add_subparsers(dest="target", required=True, metavar="TARGET")
    lm_eval = targets.add_parser(
        "lm-eval", help="write lm-evaluation-harness tasks (clean and noisy per config) to score LLMs",
        description="Write lm-evaluation-harness task YAMLs for a challenge set folder: per config a clean task (the "
                    "original_<field> columns) and a noisy one, grouped under one name, reading the set's parquet files "
                    "where they are. QA is generate_until scored with SQuAD EM/F1, classification and NLI "
                    "multiple_choice over the label names; token classification is not exported. Run them with "
                    "lm_eval --include_path TASKS_DIR --log_samples, then read the samples back with noisecraft "
                    "evaluate --lm-eval-samples. Needs noisecraft[llm] to run lm_eval.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    lm_eval.add_argument("dataset", type=Path, metavar="DATASET_FOLDER", help="folder made by noisecraft build")
    lm_eval.add_argument("--out", type=Path, required=True, metavar="TASKS_DIR", help="new folder for the task files")
    lm_eval.add_argument("--config", action="append", dest="configs", metavar="CONFIG",
                         help="config to export (repeatable; default: every config of the set)")
    lm_eval.add_argument("--group", help="the group (and task name prefix) lm_eval --tasks runs (default: "
                                         "noisecraft-FOLDER_NAME)")
    lm_eval.add_argument("--prompt", metavar="TEMPLATE",
                         help="Jinja template replacing every task's prompt (lm-eval's doc_to_text), naming columns as "
                              "{{question}}; the clean task reads original_<field> in place of each perturbed field")
    return lm_eval


def run(args: argparse.Namespace) -> int:
    """Run ``noisecraft export lm-eval`` and say what to run next."""
    result = export_lm_eval(args.dataset, args.out, args.configs, prompt=args.prompt, group=args.group)
    for line in result.skipped:
        print(f"noisecraft: note: {line}")
    print(f"wrote {len(result.tasks)} lm-eval task(s) of group {result.group} to {args.out}; run them with:\n"
          f"  lm_eval --model hf --model_args pretrained=MODEL --tasks {result.group} --include_path {args.out} "
          f"--log_samples --output_path RUN\n"
          f"  noisecraft evaluate --lm-eval-samples RUN --dataset {args.dataset} --out REPORT")
    return 0
