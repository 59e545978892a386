"""``noisecraft evaluate``: its options and what it runs (wired into :mod:`noisecraft.cli`).

Models are run by noisecraft's runtime (``--model``), or were run by lm-evaluation-harness on the tasks of
``noisecraft export lm-eval`` and their logged samples are read (``--lm-eval-samples``); the report is the same.
Defining the options imports nothing heavy, so ``noisecraft --help`` stays instant; torch and transformers
load when the command runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from noisecraft.errors import ConfigError
from noisecraft.harness.gates import GATE_ON, parse_bound

EXAMPLES = """examples (several --model: the report compares them on the same rows, with paired tests between them):
  noisecraft evaluate --dataset xquad-noisy/ --config xquad-en-keyboard --model deepset/roberta-base-squad2 \\
      --model distilbert/distilbert-base-cased-distilled-squad --out report/
  noisecraft evaluate --dataset my-org/glue-salad --revision v1.0.0 --model textattack/bert-base-uncased-MRPC --out report/
  noisecraft evaluate --dataset mnli-noisy/ --model some-org/mnli-model \\
      --label-map 'LABEL_0=contradiction,LABEL_1=entailment,LABEL_2=neutral' --out report/
  noisecraft evaluate --dataset glue-noisy/ --model textattack/bert-base-uncased-MRPC --out report/ \
      --fail-if 'accuracy_drop>5' --fail-if 'agreement<90'     # a CI gate: exit 1 when a bound is broken
  noisecraft export lm-eval glue-noisy/ --out tasks/           # LLMs: lm-eval runs them, noisecraft reads its samples
  lm_eval --model hf --model_args pretrained=Qwen/Qwen2.5-0.5B --tasks noisecraft-glue-noisy --include_path tasks/ \
      --log_samples --output_path run/
  noisecraft evaluate --dataset glue-noisy/ --lm-eval-samples run/ --out report/
"""


class _Model(argparse.Action):
    """``--model NAME[@REVISION]``: appends a model (each may get its own ``--label-map`` after it)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        namespace.models = [*(namespace.models or []), {"name": values, "label_map": None}]


class _LabelMap(argparse.Action):
    """``--label-map 'MODEL_LABEL=DATASET_LABEL,...'``: the label map of the ``--model`` before it."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        from noisecraft.runtime.labels import parse_label_map

        if not namespace.models:
            raise ConfigError("--label-map applies to the --model given before it: put it after that --model")
        if namespace.models[-1]["label_map"] is not None:
            raise ConfigError(f"two --label-map for model {namespace.models[-1]['name']}: give one")
        namespace.models[-1]["label_map"] = parse_label_map(values)


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """The ``evaluate`` subcommand and its options."""
    evaluate = commands.add_parser(
        "evaluate", help="run models on the clean and noisy sides of a challenge set and report what robustness they lose",
        description="Evaluate models on every row of a challenge set twice, on the original fields (clean) and on the "
                    "perturbed ones (noisy), and write a report: results.json with every number, README.md with tables, "
                    "per-example predictions as parquet and PNG plots. The task (extractive QA, classification, token "
                    "classification) comes from the set's manifest. Needs noisecraft[eval]. For LLMs, score the samples "
                    "lm-evaluation-harness logged on the tasks of noisecraft export lm-eval (--lm-eval-samples).",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    data = evaluate.add_argument_group("data")
    data.add_argument("--dataset", required=True, help="folder made by noisecraft build, or a Hub dataset id (org/name)")
    data.add_argument("--revision", help="Hub revision (tag such as v1.0.0, branch or commit) of the dataset")
    data.add_argument("--config", action="append", dest="configs", metavar="CONFIG",
                      help="config to evaluate (repeatable; default: every config of the set)")
    data.add_argument("--split", help="split to evaluate (default: the split each config was built from)")
    data.add_argument("--max-examples", type=int, metavar="N", help="evaluate only the first N rows of each config")
    models = evaluate.add_argument_group("models")
    models.add_argument("--model", action=_Model, dest="models", metavar="MODEL",
                        help="Hub model id, optionally @revision (org/name@v1.0), or a folder saved with save_pretrained "
                             "(repeatable)")
    models.add_argument("--lm-eval-samples", type=Path, metavar="RUN",
                        help="instead of --model: the --output_path of lm_eval --log_samples run on the tasks of "
                             "noisecraft export lm-eval; its samples are matched to the set's rows by id and scored "
                             "(every model in RUN)")
    models.add_argument("--label-map", action=_LabelMap, metavar="MAP",
                        help="for the --model before it: 'MODEL_LABEL=DATASET_LABEL,...' where label names differ "
                             "(labels are matched by name by default)")
    models.add_argument("--device", default="auto", help="auto, cuda, cuda:N, mps or cpu (default: %(default)s)")
    models.add_argument("--dtype", default="auto",
                        help="auto (bfloat16/float16 on GPU, float32 on CPU), float32, bfloat16 or float16")
    models.add_argument("--token-budget", type=int, metavar="N",
                        help="padded tokens per batch (default: 4096 on CPU, 131072 on CUDA)")
    stats = evaluate.add_argument_group("statistics")
    stats.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                       help="bootstrap resamples for confidence intervals (default: %(default)s)")
    stats.add_argument("--confidence", type=float, default=0.95, help="interval level (default: %(default)s)")
    stats.add_argument("--alpha", type=float, default=0.05, help="significance level (default: %(default)s)")
    stats.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    stats.add_argument("--qa-normalisation", choices=("squad", "mlqa"), default="squad",
                       help="answer normalisation for EM/F1: squad (official SQuAD v1.1, as XQuAD is scored) or mlqa "
                            "(language-aware: Unicode punctuation, per-language articles, per-character zh/ja/th) "
                            "(default: %(default)s)")
    gate = evaluate.add_argument_group("gates (for CI: exit status 1 when a bound is broken; the report is written)")
    gate.add_argument("--fail-if", action="append", dest="fail_if", type=parse_bound, metavar="BOUND", default=[],
                      help="fail when a model x config breaks BOUND: METRIC_drop>N (accuracy, f1, exact_match or em, "
                           "entity_f1; clean - noisy in points) or agreement<N (in %%); repeatable")
    gate.add_argument("--fail-on", choices=GATE_ON, default="point",
                      help="what a drop bound reads: point (the drop's estimate) or interval (the lower end of its "
                           "bootstrap interval: fails only when the drop is shown to exceed N) (default: %(default)s)")
    out = evaluate.add_argument_group("output")
    out.add_argument("--out", type=Path, required=True, help="report folder")
    out.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    out.add_argument("--no-progress", action="store_true", help="hide progress bars")
    return evaluate


def run(args: argparse.Namespace) -> int:
    """Run ``noisecraft evaluate`` and print the summary table."""
    if bool(args.models) == (args.lm_eval_samples is not None):
        raise ConfigError("give --model (models to run) or --lm-eval-samples RUN (samples lm-eval logged), one of them")
    if args.token_budget is not None and args.token_budget < 1:
        raise ConfigError("--token-budget must be at least 1")
    import datasets

    datasets.disable_progress_bars()  # loading a config is quick; its "Generating split" bars are noise here
    start = time.perf_counter()
    result = _from_samples(args) if args.lm_eval_samples is not None else _from_models(args)
    print(result.table())
    if result.comparison():
        print(f"\nmodels compared on the same rows:\n{result.comparison()}")
    if result.word_salad():
        print(f"\nword salad (agreement and confidence, %):\n{result.word_salad()}")
    for note in result.to_dict()["notes"]:
        print(f"noisecraft: note: {note}", file=sys.stderr)
    for warning in result.to_dict()["warnings"]:
        print(f"noisecraft: warning: {warning}", file=sys.stderr)
    print(f"\nevaluated {len(result.to_dict()['models'])} model(s) on {len(result.to_dict()['configs'])} config(s) in "
          f"{time.perf_counter() - start:.1f} s; report: {args.out / 'README.md'} (every number: "
          f"{args.out / 'results.json'})")
    return _gate(result.to_dict(), args.fail_if, args.fail_on)


def _from_models(args: argparse.Namespace) -> Any:
    """``--model``: run the models through noisecraft's runtime."""
    from noisecraft.harness.evaluation import evaluate
    from noisecraft.harness.models import ModelRequest

    requests = [ModelRequest.parse(m["name"], m["label_map"]) for m in args.models]
    return evaluate(args.dataset, requests, args.configs, revision=args.revision, split=args.split,
                    device=args.device, dtype=args.dtype, token_budget=args.token_budget,
                    max_examples=args.max_examples, resamples=args.bootstrap, confidence=args.confidence,
                    alpha=args.alpha, seed=args.seed, qa_normalisation=args.qa_normalisation, out=args.out,
                    plots=not args.no_plots, progress=not args.no_progress)


def _from_samples(args: argparse.Namespace) -> Any:
    """``--lm-eval-samples``: score what lm-eval logged (the options that run models do not apply)."""
    from noisecraft.harness.lm_eval_samples import evaluate_lm_eval

    given = [option for option, value in (("--split", args.split), ("--max-examples", args.max_examples),
                                          ("--token-budget", args.token_budget), ("--device", args.device != "auto"),
                                          ("--dtype", args.dtype != "auto")) if value]
    if given:
        raise ConfigError(f"{given[0]} applies to --model: lm-eval's samples are scored as they were run (its --limit "
                          "and --device decide those)")
    return evaluate_lm_eval(args.lm_eval_samples, args.dataset, args.configs, revision=args.revision,
                            resamples=args.bootstrap, confidence=args.confidence, alpha=args.alpha, seed=args.seed,
                            qa_normalisation=args.qa_normalisation, out=args.out, plots=not args.no_plots)


def _gate(record: dict[str, Any], bounds: list[Any], on: str) -> int:
    """0 when every ``--fail-if`` bound holds, else 1 with one line naming each broken bound."""
    from noisecraft.harness.gates import violations

    broken = violations(record, bounds, on)
    if broken:
        print(f"noisecraft: robustness gate failed ({len(broken)} bound(s) broken, read on the {on}): "
              f"{'; '.join(broken)}", file=sys.stderr)
        return 1
    if bounds:
        print(f"noisecraft: robustness gate passed: {', '.join(b.text for b in bounds)} (read on the {on})")
    return 0
