"""Wikipedia edit-mining throughput and memory, next to the bare cost of reading the dump.

Builds a synthetic full-history dump by repeating the real pages of the sample exports
(``enwiki-20140102.tiny.xml.gz``: 2 pages, 106 revisions; ``hiwiki_kahani_94revs.xml``) under new
titles until it reaches ``--mb`` MB of XML, writes it plain and gzip-compressed, then measures in
fresh processes (one core each):

* bare: decompress + parse every revision's text (``mining.mediawiki.read_dump``), no mining;
* before: ``WikiEditMiner.mine_file`` with the slow paths the miner used to take put back (mwparserfromhell's
  full node tree for every stripped paragraph, sacremoses' tokenizer as shipped, pure-Python difflib, rapidfuzz's
  ``process.extractOne`` for pairing), so the speed-up is measured on this machine, now, next to the same parse;
* after: ``WikiEditMiner.mine_file`` as it is.

Each process first mines a small real export, so that library imports and regex compilation
(about 0.5 s, once per process) are not counted: the numbers are steady-state throughput. Times are the
child's CPU seconds (``time.process_time``; one thread, so on an idle core they equal wall seconds): on a
machine shared with other jobs, wall time measures the neighbours. The three jobs are interleaved
``--repeat`` times (the bare parse, then mining now, then mining before) and the medians reported, with the load
average before and after. The ratio to the bare parse is the median of each repeat's own ratio: the speed of a
shared machine moves by up to 2x from one minute to the next, and runs seconds apart see the same speed, where
medians taken job by job may come from different minutes.

Prints pages/s, MB/s of decompressed XML, the ratio to the bare parse (beside the ratio the previous measurement of
"mining, now" gave, :data:`PREVIOUS`), the word pairs found (before and after must agree), and each process's peak
RSS.

Usage: python benchmarks/wikiedits_mining.py [--mb 200] [--repeat 3] [--corpora ../shared/corpora]
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
PAGE = re.compile(rb"<page>.*?</page>", re.DOTALL)


def synthetic_dump(corpora: Path, target_mb: float, out: Path) -> tuple[int, int]:
    """Write a dump of repeated real pages (each copy retitled); returns (pages, bytes)."""
    sources = [gzip.decompress((corpora / "mediawiki/enwiki-20140102.tiny.xml.gz").read_bytes()),
               (corpora / "mediawiki/hiwiki_kahani_94revs.xml").read_bytes()]
    pages = [p for source in sources for p in PAGE.findall(source)]
    header = b'<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">\n'
    written, count = 0, 0
    with out.open("wb") as handle:
        handle.write(header)
        while written < target_mb * 1e6:
            page = pages[count % len(pages)].replace(b"<title>", b"<title>Copy %d of " % count, 1)
            handle.write(page + b"\n")
            written += len(page)
            count += 1
        handle.write(b"</mediawiki>\n")
    return count, out.stat().st_size


CHILD = """
import sys, time
from pathlib import Path
from noisecraft.mining.mediawiki import read_dump
from noisecraft.mining.wikiedits import WikiEditMiner
path, mode = Path(sys.argv[1]), sys.argv[2]
if mode == "before":  # the slow paths the speed-ups replaced (same output, tested)
    import difflib
    import sacremoses
    from noisecraft.mining import wiki_markup, wiki_text, wikiedits
    def full_parse(text):
        raise wiki_markup.Unsupported("benchmark: the full node tree, as before")
    wiki_text.strip_tokens = full_parse
    from rapidfuzz import process
    wiki_text._moses_class = lambda: sacremoses.MosesTokenizer
    wikiedits.SequenceMatcher = difflib.SequenceMatcher
    def extract_one(query, choices, cutoff=0.0):
        found = process.extractOne(query, choices, scorer=wikiedits.Levenshtein.normalized_similarity,
                                   score_cutoff=cutoff or None)
        return found[0] if found else None
    wikiedits._most_similar = extract_one
# steady state: load the lazily imported libraries and build the regexes before timing (the small export gives no
# sentence pair that reaches the tokenizers, so the quick tokens' pattern, a class of every combining mark, and the
# patterns of Moses' fast path are built here)
WikiEditMiner(sys.argv[3]).mine_file(Path(sys.argv[4]))
from noisecraft.mining.wiki_text import LanguageText
from noisecraft.text_units import tokenize
tokenize("warm")
LanguageText(sys.argv[3]).tokens("Warm-up: it's Dr. Smith's 3,000, 'dots'... done.")
start = time.process_time()
if mode == "bare":
    pages = sum(1 for item in read_dump(path) if not hasattr(item, "text"))
    pairs = 0
else:
    result = WikiEditMiner(sys.argv[3]).mine_file(path)
    pages, pairs = result.stats["pages"], result.stats["word_pairs"]
elapsed = time.process_time() - start
# VmHWM: this process's own peak RSS (ru_maxrss would include the parent's, inherited at fork)
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(elapsed, pages, pairs, peak_kb)
"""
MODES = ("bare", "before", "after")
RUN_ORDER = ("bare", "after", "before")  # mining now right after the bare parse it is divided by
#: "mining, now" vs the bare parse as measured (README, --mb 50, idle machine) before the last round of speed-ups
#: (Moses' fast path, the C strip walk, the sentence pattern, the filter order, pairing cutoffs, changed lines on the
#: text): the column this run's ratio is read against.
PREVIOUS = {"plain": "4.72x", "gzip": "4.20x"}


def run(path: Path, mode: str, warm_up: Path, lang: str = "en") -> tuple[float, int, int, float]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), mode, lang, str(warm_up)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), int(out[1]), int(out[2]), int(out[3]) / 1024


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=200, help="size of the synthetic dump in MB of XML")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved runs of each job (medians reported)")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="noisecraft-wikibench-") as tmp:
        plain = Path(tmp) / "history.xml"
        pages, size = synthetic_dump(args.corpora, args.mb, plain)
        packed = Path(tmp) / "history.xml.gz"
        with plain.open("rb") as src, gzip.open(packed, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst)
        mb = size / 1e6
        warm_up = args.corpora / "mediawiki/pywikibot_article-pear_export-0.3.xml"
        print(f"synthetic history dump: {pages:,} pages, {mb:.0f} MB of XML (real pages repeated), one core; {load()}")
        rows = []
        for label, path in (("plain", plain), ("gzip", packed)):
            runs: dict[str, list[tuple[float, int, int, float]]] = {mode: [] for mode in MODES}
            for _ in range(args.repeat):
                for mode in RUN_ORDER:
                    runs[mode].append(run(path, mode, warm_up))
            seconds = {mode: statistics.median(r[0] for r in runs[mode]) for mode in MODES}
            ratios = {mode: statistics.median(r[0] / bare[0] for r, bare in zip(runs[mode], runs["bare"]))
                      for mode in MODES}
            for mode in MODES:
                _, n_pages, pairs, _ = runs[mode][0]
                rss = max(r[3] for r in runs[mode])
                job = {"bare": "bare parse", "before": "mining, before", "after": "mining, now"}[mode]
                rows.append((label, job, f"{seconds[mode]:.2f}", f"{n_pages / seconds[mode]:,.0f}",
                             f"{mb / seconds[mode]:.1f}", f"{ratios[mode]:.2f}x",
                             PREVIOUS[label] if mode == "after" else "", pairs, f"{rss:.0f}"))
            if len({r[2] for mode in ("before", "after") for r in runs[mode]}) != 1:
                raise SystemExit("before and after found different word pairs: the speed-ups changed the output")
        from noisecraft.stats import format_table

        print(f"median of {args.repeat} interleaved runs, CPU seconds (vs bare: median of the runs' own ratios); "
              f"{load()}\n")
        print(format_table(("file", "job", "CPU s", "pages/s", "MB/s", "vs bare", "previously", "word pairs",
                           "peak RSS MB"), rows))


if __name__ == "__main__":
    main()
