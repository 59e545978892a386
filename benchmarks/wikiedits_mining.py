"""Wikipedia edit-mining throughput and memory, next to the bare cost of reading the dump.

Builds a synthetic full-history dump by repeating the real pages of the sample exports
(``enwiki-20140102.tiny.xml.gz``: 2 pages, 106 revisions; ``hiwiki_kahani_94revs.xml``) under new
titles until it reaches ``--mb`` MB of XML, writes it plain and gzip-compressed, then measures in
fresh processes (one core each):

* bare: decompress + parse every revision's text (``mining.mediawiki.read_dump``), no mining;
* mining: ``WikiEditMiner.mine_file``, with the time spent in the two libraries that do the text work timed
  around their calls: mwparserfromhell (``strip_markup``: parse, then ``strip_code``) and sacremoses
  (``LanguageText.tokens``: Moses tokens). A timer call costs well under a microsecond, a library call hundreds.

Each process first mines a small real export, so that library imports and regex compilation
(about 0.5 s, once per process) are not counted: the numbers are steady-state throughput. Times are the
child's CPU seconds (``time.process_time``; one thread, so on an idle core they equal wall seconds): on a
machine shared with other jobs, wall time measures the neighbours. The jobs are interleaved ``--repeat`` times
(the bare parse, then mining) and the medians reported, with the load average before and after. The ratio to the
bare parse is the median of each repeat's own ratio: the speed of a shared machine moves by up to 2x from one
minute to the next, and runs seconds apart see the same speed, where medians taken job by job may come from
different minutes.

Prints pages/s, MB/s of decompressed XML, the ratio to the bare parse, the word pairs found, each process's peak
RSS, and mining's seconds in each library.

Usage: python benchmarks/wikiedits_mining.py [--mb 200] [--repeat 3] [--corpora ../shared/corpora]
"""

from __future__ import annotations

import argparse
import gzip
import json
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
import json, sys, time
from pathlib import Path
from noisecraft.mining import wiki_text, wikiedits
from noisecraft.mining.mediawiki import read_dump
from noisecraft.mining.wikiedits import WikiEditMiner
from noisecraft.core.text_units import tokenize
path, mode, lang = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
# steady state: load the lazily imported libraries and build the regexes before timing (the small export gives no
# sentence pair that reaches the tokenizers, so the quick tokens' pattern, a class of every combining mark, and
# Moses' patterns are built here)
WikiEditMiner(lang).mine_file(Path(sys.argv[4]))
tokenize("warm")
wiki_text.LanguageText(lang).tokens("Warm-up: it's Dr. Smith's 3,000, 'dots'... done.")
libraries = {"mwparserfromhell": 0.0, "sacremoses": 0.0}
def timed(name, function):
    def call(*args):
        start = time.process_time()
        try:
            return function(*args)
        finally:
            libraries[name] += time.process_time() - start
    return call
wikiedits.strip_markup = timed("mwparserfromhell", wiki_text.strip_markup)
wiki_text.LanguageText.tokens = timed("sacremoses", wiki_text.LanguageText.tokens)
start = time.process_time()
if mode == "bare":
    pages, pairs = sum(1 for item in read_dump(path) if not hasattr(item, "text")), 0
else:
    result = WikiEditMiner(lang).mine_file(path)
    pages, pairs = result.stats["pages"], result.stats["word_pairs"]
elapsed = time.process_time() - start
# VmHWM: this process's own peak RSS (ru_maxrss would include the parent's, inherited at fork)
peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"seconds": elapsed, "pages": pages, "pairs": pairs, "rss_mb": peak_kb / 1024, **libraries}))
"""
MODES = ("bare", "mining")  # mining right after the bare parse it is divided by
LIBRARIES = ("mwparserfromhell", "sacremoses")


def run(path: Path, mode: str, warm_up: Path, lang: str = "en") -> dict[str, float]:
    """One child's CPU seconds, pages, word pairs, peak RSS (MB) and seconds in each library."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), mode, lang, str(warm_up)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)  # type: ignore[no-any-return]


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def rows_of(label: str, mb: float, runs: dict[str, list[dict[str, float]]]) -> list[tuple[object, ...]]:
    """The table rows of one file: each job's medians, and mining's ratio to the bare parse (median of ratios)."""
    rows = []
    for mode in MODES:
        seconds = statistics.median(r["seconds"] for r in runs[mode])
        ratio = statistics.median(r["seconds"] / bare["seconds"] for r, bare in zip(runs[mode], runs["bare"]))
        parts = [f"{statistics.median(r[name] for r in runs[mode]):.2f}" if mode == "mining" else ""
                 for name in LIBRARIES]
        rows.append((label, mode, f"{seconds:.2f}", f"{runs[mode][0]['pages'] / seconds:,.0f}", f"{mb / seconds:.1f}",
                     f"{ratio:.2f}x", *parts, runs[mode][0]["pairs"], f"{max(r['rss_mb'] for r in runs[mode]):.0f}"))
    return rows


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
            runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
            for _ in range(args.repeat):
                for mode in MODES:
                    runs[mode].append(run(path, mode, warm_up))
            rows += rows_of(label, mb, runs)
        from results_page import publish

        print(f"median of {args.repeat} interleaved runs, CPU seconds (vs bare: median of the runs' own ratios); "
              f"{load()}\n")
        print(publish("wikiedits_mining", ("file", "job", "CPU s", "pages/s", "MB/s", "vs bare", "of which mwparserfromhell s",
                            "sacremoses s", "word pairs", "peak RSS MB"), rows))


if __name__ == "__main__":
    main()
