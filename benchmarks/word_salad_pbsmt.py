"""pbsmt@1 training and decoding cost per label, and what it means for the MNLI-matched config.

The paper's setting is MNLI train (393k pairs) and dev (9815); neither is in the offline corpora. The largest real
stand-in is Sentiment140 (``training.1600000...head10k_tail10k.csv``: 10k negative + 10k positive tweets): each
tweet is cut into halves, first half -> second half, exactly as pbsmt's SST-2 task does, and ``--pairs`` of them
per label are written as a GLUE SST-2 file so training runs the real path (adapter, tokeniser, stored systems).
Each label is trained in a fresh process (``spawn``) that reports its stages (IBM Model 1 in both directions +
grow-diag-final-and, phrase extraction and scoring, the Kneser-Ney ARPA) and its peak RSS; then ``--decode``
held-out first halves and ``--decode`` whole tweets (longer sources, closer to MNLI premises) are decoded
through the trained decoder, one process, one core.

The extrapolation to MNLI is printed with its assumptions: alignment is EM over every (source word, target word)
pair, so it scales with ``pairs x source length x target length`` (MNLI premise 22 and hypothesis 11 words on
average: Williams et al., 2018's statistics, rounded); phrase extraction and the LM scale with pairs; decoding
time per sentence is taken from the whole-tweet sources scaled linearly to 22 words (it grows faster than
linearly, so this is a lower bound).

Usage: python benchmarks/word_salad_pbsmt.py [--pairs 5000] [--decode 200] [--corpora ../shared/corpora]
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from results_page import publish

DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
TWEETS = "sentiment140/training.1600000.processed.noemoticon.head10k_tail10k.csv"
MNLI_PAIRS, MNLI_DEV, MNLI_PREMISE, MNLI_HYPOTHESIS, MNLI_LABELS = 393_000, 9815, 22, 11, 3


def tweets(corpora: Path) -> dict[int, list[str]]:
    """Tweets by SST-2 label (Sentiment140's 0 -> 0, 4 -> 1), whitespace normalised, tabs removed."""
    out: dict[int, list[str]] = {0: [], 1: []}
    with (corpora / TWEETS).open(encoding="latin-1", newline="") as handle:
        for row in csv.reader(handle):
            text = " ".join(row[5].split())
            if len(text.split()) >= 4:
                out[0 if row[0] == "0" else 1].append(text)
    return out


def train_label(train_file: str, label: int, cache: str, queue: multiprocessing.Queue) -> None:
    """Child process: train one label's system stage by stage; report times, sizes and peak RSS."""
    os.environ["NOISECRAFT_CACHE"] = cache
    from noisecraft.pbsmt.arpa import write_arpa
    from noisecraft.pbsmt.generator import LabelGenerators, Settings
    from noisecraft.pbsmt.phrase_table import score_phrases, symmetrised_alignments, write_table

    settings = Settings(ibm_iterations=5, max_phrase_length=4, translations=10, lm_order=3)
    generators = LabelGenerators("sst2", "en", train_file, settings, 20, 0.5, "benchmark")
    start = time.perf_counter()
    pairs = generators.pairs()[label]
    read = time.perf_counter()
    alignments = symmetrised_alignments(pairs, settings.ibm_iterations)
    aligned = time.perf_counter()
    table = score_phrases(pairs, alignments, settings.max_phrase_length, settings.translations)
    scored = time.perf_counter()
    folder = generators.stored(label)
    tmp = folder.with_name(folder.name + ".tmp")
    tmp.mkdir(parents=True)
    write_table(table, tmp / "phrases.tsv")
    write_arpa([second for _, second in pairs], settings.lm_order, tmp / "lm.arpa")
    os.replace(tmp, folder)
    done = time.perf_counter()
    queue.put({"label": label, "pairs": len(pairs), "read_s": read - start, "align_s": aligned - read,
               "phrases_s": scored - aligned, "lm_s": done - scored, "source_phrases": len(table),
               "mean_src": statistics.mean(len(s) for s, _ in pairs), "mean_trg": statistics.mean(len(t) for _, t in pairs),
               "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024})


def decode(train_file: str, cache: str, sources: dict[str, list[tuple[int, str]]], queue: multiprocessing.Queue) -> None:
    """Child process: decode each set of ``(label, text)`` sources through the trained systems; report seconds."""
    os.environ["NOISECRAFT_CACHE"] = cache
    from noisecraft.core.text_units import word_tokens
    from noisecraft.pbsmt.generator import LabelGenerators, Settings, halves

    settings = Settings(ibm_iterations=5, max_phrase_length=4, translations=10, lm_order=3)
    generators = LabelGenerators("sst2", "en", train_file, settings, 20, 0.5, "benchmark")
    for label in (0, 1):
        generators.decoder(label)  # loading (table + ARPA) is not decoding
    report = {}
    for name, items in sources.items():
        tokens = [word_tokens(text, "en") for _, text in items]
        if name == "halves":
            tokens = [halves(t)[0] for t in tokens]
        start = time.perf_counter()
        empty = sum(not generators.decoder(label).translate(t) for (label, _), t in zip(items, tokens))
        report[name] = {"sentences": len(items), "seconds": time.perf_counter() - start, "empty": empty,
                        "mean_len": statistics.mean(len(t) for t in tokens)}
    report["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    queue.put(report)


def run(target, *args):  # noqa: ANN001, ANN201
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=target, args=(*args, queue))
    process.start()
    result = queue.get()
    process.join()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5000, help="training pairs per label")
    parser.add_argument("--decode", type=int, default=200, help="held-out sources per decoding run")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    args = parser.parse_args()
    by_label = tweets(args.corpora)
    with tempfile.TemporaryDirectory() as tmp:
        train_file = Path(tmp) / "train.tsv"
        with train_file.open("w", encoding="utf-8") as out:
            out.write("sentence\tlabel\n")
            for label, texts in by_label.items():
                out.writelines(f"{text}\t{label}\n" for text in texts[:args.pairs])
        cache = str(Path(tmp) / "cache")
        stages = [run(train_label, str(train_file), label, cache) for label in (0, 1)]
        held_out = [(label, text) for label, texts in by_label.items()
                    for text in texts[args.pairs:args.pairs + args.decode // 2]]
        decoded = run(decode, str(train_file), cache, {"halves": held_out, "whole": held_out})

    print(report(args.pairs, stages, decoded))


def report(pairs: int, stages: list[dict], decoded: dict) -> str:
    """The per-label training stages and the decoding runs as one published table, with the MNLI-matched
    extrapolation (3 labels of ~131k pairs; dev 9815 premises of ~22 words) in its notes."""
    rows = [(f"train label {s['label']}", s["pairs"], f"{s['mean_src']:.1f}/{s['mean_trg']:.1f}", f"{s['align_s']:.1f}",
             f"{s['phrases_s']:.1f}", f"{s['lm_s']:.1f}", s["source_phrases"], f"{s['peak_rss_mb']:.0f}") for s in stages]
    for name in ("halves", "whole"):
        d = decoded[name]
        rows.append((f"decode {name} ({d['empty']} empty)", d["sentences"], f"{d['mean_len']:.1f}",
                     f"{d['seconds']:.1f} s = {d['sentences'] / d['seconds']:.2f} sentences/s", "", "", "",
                     f"{decoded['peak_rss_mb']:.0f}"))
    per_label = MNLI_PAIRS / MNLI_LABELS
    align = sum(s["align_s"] / (s["pairs"] * s["mean_src"] * s["mean_trg"]) for s in stages) / len(stages)
    rest = sum((s["phrases_s"] + s["lm_s"]) / s["pairs"] for s in stages) / len(stages)
    align_mnli = align * per_label * MNLI_PREMISE * MNLI_HYPOTHESIS
    rest_mnli = rest * per_label * (MNLI_PREMISE / statistics.mean(s["mean_src"] for s in stages))
    whole = decoded["whole"]
    decode_mnli = whole["seconds"] / whole["sentences"] * (MNLI_PREMISE / whole["mean_len"]) * MNLI_DEV
    train_mnli = MNLI_LABELS * (align_mnli + rest_mnli)
    notes = (f"Stand-in: {pairs:,} Sentiment140 tweets per label cut in halves; one core per process. MNLI-matched "
             f"estimate, one core: training {train_mnli / 60:.0f} min (alignment {MNLI_LABELS * align_mnli / 60:.0f}, "
             f"phrases + LM {MNLI_LABELS * rest_mnli / 60:.0f}), decoding dev {decode_mnli / 60:.0f} min (a lower "
             f"bound); on 2 cores (labels in parallel, decoding split) about {(train_mnli + decode_mnli) / 120:.0f} min.")
    table = publish("word_salad_pbsmt", ("step", "pairs / sources", "src/trg words", "alignment s (IBM Model 1)",
                                         "phrases s", "LM s (kenlm)", "source phrases", "peak RSS MB"), rows, notes=notes)
    return f"{table}\n\n{notes}"


if __name__ == "__main__":
    main()
