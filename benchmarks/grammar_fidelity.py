"""Fidelity of ``grammar`` to Yin et al. (2020): the share of words its probabilistic transformation modifies
on the GLUE dev files, to compare with the paper's 14.38 % (SST-2) and 14.53 % (MRPC), rate 0.15.

It mines the confusion table from the CoNLL-2014 test M2 (the paper's source), builds NLTK data offline
(Debian's WordNet, a perceptron tagger trained on the POS column of CoNLL-2003 ``eng.train``), builds the
challenge configs as ``noisecraft build`` does and prints, per task:

* words modified, the paper's measure as its code counts it: per sentence, the whitespace tokens an error
  touches over the sentence's whitespace tokens, averaged over sentences
  (:func:`noisecraft.noise_models.grammar.whitespace_tokens_modified`);
* the same per sentence with the tagger's words (punctuation split off), the unit ``grammar@1`` budgets in;
* the achieved edit rate (edits over words of the whole split), the rows changed, the errors by type;
* the wall time of the build (tagging included).

Usage: python benchmarks/grammar_fidelity.py [--corpora ../shared/corpora] [--tagger-file eng.train] [--seed 0]
       [--version 1 2] [--work DIR (keeps the mined table and NLTK data for the next run)]
Needs the [grammar] extra and Debian's wordnet-base + wordnet-sense-index. Takes about two minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq
from results_page import publish

import noisecraft as nc
from noisecraft.core.edits import Edit
from noisecraft.grammar.nltk_data import prepare_nltk_data
from noisecraft.grammar.tagging import word_spans
from noisecraft.mining.gec import gec_dictionary
from noisecraft.mining.output import write_dictionary
from noisecraft.noise_models.grammar import whitespace_tokens_modified

DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
#: (source, data file, field the paper perturbs, the paper's words modified in %)
TASKS = (("glue/sst2", "glue/SST-2/dev.tsv", "sentence", 14.38),
         ("glue/mrpc", "glue/MRPC/dev.tsv", "sentence1", 14.53))


def paper_share(original: str, edits: list[dict]) -> float:
    """The paper's measure for one sentence: whitespace tokens modified over whitespace tokens."""
    modified, tokens = whitespace_tokens_modified(original, [Edit(e["start"], e["end"], e["original"], e["replacement"],
                                                                  e["kind"]) for e in edits])
    return modified / max(tokens, 1)


def tagger_word_share(original: str, edits: list[dict]) -> float:
    """Edits over the tagger's words (``grammar@1``'s unit; a swap is two edits)."""
    return len(edits) / max(len(word_spans(original)), 1)


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--tagger-file", default="eng.train", help="CoNLL-2003 file whose POS column trains the tagger")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--version", type=int, nargs="+", default=[1, 2], help="grammar versions to measure")
    parser.add_argument("--work", type=Path, help="folder for the mined table and NLTK data (kept; reused when there)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="noisecraft-grammar-fidelity-"))
    if args.work is None:  # a folder of our own: removed when the benchmark ends
        atexit.register(shutil.rmtree, work, ignore_errors=True)
    start = time.perf_counter()
    confusions = work / "gec-confusions"
    if not confusions.exists():
        write_dictionary(confusions, gec_dictionary([args.corpora / "gec/conll14st-test-data/noalt/official-2014.combined.m2"]))
    nltk_data = work / "nltk_data"
    if not (nltk_data / "taggers").exists():
        prepare_nltk_data(nltk_data, args.corpora / "conll2003/original_iob1_crlf" / args.tagger_file, iterations=5)
    print(f"prepared confusions (CoNLL-2014) and NLTK data (tagger on {args.tagger_file}) in "
          f"{time.perf_counter() - start:.1f} s")
    rows = []
    for version in args.version:
        model = nc.noise(f"grammar@{version}", confusions=str(confusions), nltk_data=str(nltk_data), tagger="nltk",
                         rate=0.15)
        for source, data_file, field, paper in TASKS:
            start = time.perf_counter()
            out = work / f"out-{version}-{source.replace('/', '-')}"
            [built] = nc.build(source, model, out, data_file=args.corpora / data_file, seed=args.seed,
                               fields=[field], progress=False, overwrite=True)
            seconds = time.perf_counter() - start
            data = pq.read_table(built.path).to_pydict()  # read directly: datasets caches a folder's configs by name
            pairs = list(zip(data[f"original_{field}"], data["noise_edits"]))
            ours = 100 * mean([paper_share(original, edits) for original, edits in pairs])
            stats = built.stats
            by_type = ", ".join(f"{k} {v}" for k, v in sorted(stats["edits_by_kind"].items(), key=lambda kv: -kv[1]))
            rows.append((f"grammar@{version}", source, field, stats["rows"], f"{ours:.2f} %", f"{paper:.2f} %",
                         f"{ours - paper:+.2f}", f"{100 * mean([tagger_word_share(o, e) for o, e in pairs]):.1f} %",
                         stats["rows_changed"], f"{seconds:.1f}", by_type))
    print(publish(
        "grammar_fidelity", ("noise", "task", "field", "rows", "words modified (paper's count)", "paper", "ours - paper",
                        "edits / tagger words", "rows changed", "build s", "errors by type"), rows, markdown=True))


if __name__ == "__main__":
    main()
