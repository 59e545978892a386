"""Wikipedia edit-mining throughput and memory, next to the bare cost of reading the dump.

Builds a synthetic full-history dump by repeating the real pages of the sample exports
(``enwiki-20140102.tiny.xml.gz``: 2 pages, 106 revisions; ``hiwiki_kahani_94revs.xml``) under new
titles until it reaches ``--mb`` MB of XML, writes it plain and gzip-compressed, then measures in
fresh processes (one core each):

* bare: decompress + parse every revision's text (``mining.mediawiki.read_dump``), no mining;
* before: ``WikiEditMiner.mine_file`` with the slow paths the miner used to take put back (mwparserfromhell's
  full node tree for every stripped paragraph, sacremoses' tokenizer as shipped, pure-Python difflib, rapidfuzz's
  ``process.extractOne`` for pairing), so the speed-up is measured on this machine, now, next to the same parse;
* after: ``WikiEditMiner.mine_file`` as it is;
* floor (plain file only): the calls mining makes into compiled libraries, recorded during one mining run and
  replayed alone (:data:`FLOOR_DOC`): what mining costs beyond the parse however the code around those calls is
  written. Issue 21 asked for mining within 2x the bare parse: the bare parse plus this floor is the least ratio
  any rewrite of that code can reach.

Each process first mines a small real export, so that library imports and regex compilation
(about 0.5 s, once per process) are not counted: the numbers are steady-state throughput. Times are the
child's CPU seconds (``time.process_time``; one thread, so on an idle core they equal wall seconds): on a
machine shared with other jobs, wall time measures the neighbours. The jobs are interleaved ``--repeat`` times
(the bare parse, then mining now, then mining before, then the floor) and the medians reported, with the load
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
import textwrap
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
if mode == "floor":  # mine once, recording the compiled calls; then time those calls alone (FLOOR_DOC)
    import gc
    from cydifflib import SequenceMatcher
    from rapidfuzz.distance import Levenshtein, Postfix, Prefix
    from noisecraft.mining import wiki_markup, wiki_text, wikiedits
    from noisecraft.text_units import token_pattern
    calls = {name: [] for name in ("tokenizer", "similarity", "distance", "changed", "lines", "difflib", "quick")}
    def recorded(name, function, args=lambda *a: a):
        def call(*a, **k):
            calls[name].append(args(*a, **k))
            return function(*a, **k)
        return call
    class RecordedLevenshtein:
        normalized_similarity = staticmethod(recorded("similarity", Levenshtein.normalized_similarity,
                                                      lambda a, b, score_cutoff=None: (a, b, score_cutoff)))
        distance = staticmethod(recorded("distance", Levenshtein.distance))
    text_class, sentences = wiki_text.LanguageText, wiki_text.LanguageText.sentences
    wiki_text.strip_tokens = recorded("tokenizer", wiki_markup.strip_tokens)
    wikiedits.Levenshtein = RecordedLevenshtein
    wikiedits.changed_lines = recorded("changed", wikiedits.changed_lines)
    wikiedits.SequenceMatcher = recorded("difflib", SequenceMatcher, lambda junk, a, b, autojunk: (a, b))
    wikiedits.tokenize = recorded("quick", wikiedits.tokenize)
    text_class.sentences = lambda self, text: calls["lines"].extend(text.splitlines()) or sentences(self, text)
    result = WikiEditMiner(sys.argv[3]).mine_file(path)
    tokenizer, walk = wiki_markup._stripper()
    stop, words = wiki_text._SENTENCE_END, token_pattern()
    # each library's call, its recorded arguments, and empty arguments: the same loop with empty arguments is the
    # loop's and the calls' own overhead, taken off (the calls' work on empty input goes with it: a lower bound)
    replays = {
        "tokenizer": (lambda text: tokenizer().tokenize(text, 0, False), calls["tokenizer"], ("",)),
        "walk": (walk, [(tokenizer().tokenize(text, 0, False),) for (text,) in calls["tokenizer"]], ([],)),
        "similarity": (lambda a, b, c: Levenshtein.normalized_similarity(a, b, score_cutoff=c), calls["similarity"],
                       ("", "", 0.5)),
        "distance": (Levenshtein.distance, calls["distance"], ("", "")),
        "prefix/postfix": (lambda a, b: (Prefix.similarity(a, b), Postfix.similarity(a, b)), calls["changed"],
                           ("", "")),
        "sentence regex": (lambda line: list(stop.finditer(line)), [(line,) for line in calls["lines"]], ("",)),
        "difflib": (lambda a, b: SequenceMatcher(None, a, b, autojunk=False).get_opcodes(), calls["difflib"],
                    ([], [])),
        "regex tokens": (words.findall, calls["quick"], ("",)),
    }
    def replay_seconds(call, arguments):
        gc.collect()
        gc.disable()  # the recorded calls are many live objects: collections would be timed with the calls
        start = time.process_time()
        for args in arguments:
            call(*args)
        elapsed = time.process_time() - start
        gc.enable()
        return elapsed
    parts = {name: max(0.0, replay_seconds(call, arguments) - replay_seconds(call, [empty] * len(arguments)))
             for name, (call, arguments, empty) in replays.items()}
    print(sum(parts.values()), result.stats["pages"], result.stats["word_pairs"], 0,  # no peak RSS of its own
          *(f"{name.replace(' ', '_')}={seconds}" for name, seconds in parts.items()))
    raise SystemExit
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
#: What the floor job measures, printed with it.
FLOOR_DOC = ("Floor: the calls mining makes into compiled libraries (mwparserfromhell's tokenizer, the C strip walk, "
             "rapidfuzz, cydifflib, the sentence and token regexes), recorded during one mining run and replayed "
             "alone in tight loops (garbage collection off), less the same loops' time on empty arguments (the calls' "
             "own overhead). Moses' regexes are left out. Mining that makes these calls costs at least "
             "the bare parse plus this, whatever the code around them (Python or C); below it only fewer or cheaper "
             "calls go.")
MODES = ("bare", "before", "after")
RUN_ORDER = ("bare", "after", "before")  # mining now right after the bare parse it is divided by
#: "mining, now" vs the bare parse as measured (README, --mb 50, idle machine) before the last round of speed-ups
#: (Moses' fast path, the C strip walk, the sentence pattern, the filter order, pairing cutoffs, changed lines on the
#: text): the column this run's ratio is read against.
PREVIOUS = {"plain": "4.72x", "gzip": "4.20x"}


def run(path: Path, mode: str, warm_up: Path, lang: str = "en") -> tuple[float, int, int, float]:
    return run_with_parts(path, mode, warm_up, lang)[0]


def run_with_parts(path: Path, mode: str, warm_up: Path,
                   lang: str = "en") -> tuple[tuple[float, int, int, float], dict[str, float]]:
    """(CPU seconds, pages, word pairs, peak RSS MB) of one child, and for the floor its seconds per library."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), mode, lang, str(warm_up)], check=True,
                         capture_output=True, text=True).stdout.split()
    parts = {name.replace("_", " "): float(seconds) for name, seconds in (part.split("=") for part in out[4:])}
    return (float(out[0]), int(out[1]), int(out[2]), int(out[3]) / 1024), parts


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
        floors: list[tuple[float, float, dict[str, float]]] = []  # (floor, the bare parse before it, per library)
        for label, path in (("plain", plain), ("gzip", packed)):
            runs: dict[str, list[tuple[float, int, int, float]]] = {mode: [] for mode in MODES}
            for _ in range(args.repeat):
                for mode in RUN_ORDER:
                    runs[mode].append(run(path, mode, warm_up))
                if label == "plain":  # the floor, added to this repeat's bare parse
                    floor, parts = run_with_parts(path, "floor", warm_up)
                    floors.append((floor[0], runs["bare"][-1][0], parts))
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
        print("\n" + textwrap.fill(FLOOR_DOC, 118) + "\n")
        floor_rows = [(name, f"{statistics.median(parts[name] for _, _, parts in floors) * 1000:.1f}")
                      for name in floors[0][2]]
        floor_rows.append(("all of them", f"{statistics.median(f for f, _, _ in floors) * 1000:.1f}"))
        print(format_table(("compiled calls of mining the plain file", "CPU ms (median)"), floor_rows))
        print("\nthe bare parse plus these calls alone: "
              f"{statistics.median((bare + floor) / bare for floor, bare, _ in floors):.2f}x the bare parse "
              "(median of each run's own ratio)")


if __name__ == "__main__":
    main()
