"""Fidelity of ``grammar@1`` to Yin et al. (2020): the share of words its probabilistic transformation modifies
on the GLUE dev files, to compare with the paper's 14.4-14.5 % (SST-2 and MRPC, rate 0.15).

It mines the confusion table from the CoNLL-2014 test M2 (the paper's source), builds NLTK data offline
(Debian's WordNet, a perceptron tagger trained on the POS column of CoNLL-2003 ``eng.train``), builds the
challenge configs as ``noisecraft build`` does and prints, per task:

* words modified, the paper's measure: per sentence, modified words (an inserted, deleted or replaced word
  is one; a swap is two) over the sentence's words, averaged over sentences;
* the achieved edit rate (edits over words of the whole split), the rows changed, the errors by type;
* the wall time of the build (tagging included).

Usage: python benchmarks/grammar_fidelity.py [--corpora ../shared/corpora] [--tagger-file eng.train] [--seed 0]
Needs the [grammar] extra and Debian's wordnet-base + wordnet-sense-index. Takes about a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

import noisecraft as nc
from noisecraft.grammar.nltk_data import prepare_nltk_data
from noisecraft.grammar.tagging import word_spans
from noisecraft.mining.gec import gec_dictionary
from noisecraft.mining.output import write_dictionary
from noisecraft.stats import format_table

DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
#: (source, data file, field the paper perturbs, the paper's words modified)
TASKS = (("glue/sst2", "glue/SST-2/dev.tsv", "sentence", "14.4-14.5 %"),
         ("glue/mrpc", "glue/MRPC/dev.tsv", "sentence1", "14.4-14.5 %"))


def words_modified(original: str, edits: list[dict]) -> float:
    """The paper's measure for one sentence: edits (one per word modified) over its words."""
    return len(edits) / max(len(word_spans(original)), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--tagger-file", default="eng.train", help="CoNLL-2003 file whose POS column trains the tagger")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="noisecraft-grammar-fidelity-"))
    start = time.perf_counter()
    confusions = work / "gec-confusions"
    write_dictionary(confusions, gec_dictionary([args.corpora / "gec/conll14st-test-data/noalt/official-2014.combined.m2"]))
    nltk_data = work / "nltk_data"
    prepare_nltk_data(nltk_data, args.corpora / "conll2003/original_iob1_crlf" / args.tagger_file, iterations=5)
    print(f"prepared confusions (CoNLL-2014) and NLTK data (tagger on {args.tagger_file}) in "
          f"{time.perf_counter() - start:.1f} s")
    model = nc.noise("grammar", confusions=str(confusions), nltk_data=str(nltk_data), tagger="nltk", rate=0.15)
    rows = []
    for source, data_file, field, paper in TASKS:
        start = time.perf_counter()
        [built] = nc.build(source, model, work / "out", data_file=args.corpora / data_file, seed=args.seed,
                           fields=[field], progress=False, overwrite=True)
        seconds = time.perf_counter() - start
        data = pq.read_table(built.path).to_pydict()  # read directly: datasets caches a folder's configs by name
        shares = [words_modified(original, edits) for original, edits in zip(data[f"original_{field}"], data["noise_edits"])]
        stats = built.stats
        by_type = ", ".join(f"{k} {v}" for k, v in sorted(stats["edits_by_kind"].items(), key=lambda kv: -kv[1]))
        rows.append((source, field, stats["rows"], f"{100 * sum(shares) / len(shares):.1f} %", paper,
                     f"{100 * stats['edit_rate']:.1f} %", stats["rows_changed"], f"{seconds:.1f}", by_type))
    print(format_table(("task", "field", "rows", "words modified", "paper", "edit rate", "rows changed", "build s",
                        "errors by type"), rows, markdown=True))


if __name__ == "__main__":
    main()
