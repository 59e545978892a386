"""Reduplication mining at Sentiment140 scale: time and peak memory, and the CoLeS regex loop.

The two real training samples (20,000 original rows + 10,000 pandas-resaved rows) are repeated up
to ``--tweets`` rows (default 1.6 M, the size of the full corpus) and written once, in the original
fully-quoted CRLF format, to a temporary file. Then, each in a fresh process, ``--repeat`` times,
interleaved:

1. ``reduplication_dictionary`` on that file with the Hu & Liu opinion lexicon: read + mine, what
   ``noisecraft mine reduplication`` does. Time, and peak RSS from ``resource.getrusage`` (with the
   RSS after imports, the floor: polars, pyarrow and datasets);
2. the same with ``--baseline FILE``, another copy of ``mining/reduplication.py`` (an earlier
   version: ``git show REV:mining/reduplication.py > /tmp/reduplication_old.py``), and how many
   (correct, noisy) pairs the two give differently;
3. ``mine_naive`` (one regex per lexicon word) on the first ``--naive-tweets`` rows, with the
   polars miner on the same rows to check they agree; its time is extrapolated linearly to
   ``--tweets`` (it scans every tweet once per lexicon word, so time is proportional to tweets).

Every step runs in its own process started from this small one: Linux keeps ``ru_maxrss`` across
``exec``, so a process started by one that holds the tweets would report that one's peak.
Polars runs on ``--threads`` threads (default 1: the scale requirement is for one core).
Replicated tweets repeat their words, so "variants found" is that of the 30,000 distinct tweets.
The table reports the fastest run and the largest peak of each miner (timings on a shared machine
only ever get slower).

Usage: python benchmarks/reduplication_mining.py [CORPORA] [--tweets 1600000] [--repeat 3]
       [--baseline /tmp/reduplication_old.py] [--naive-tweets 20000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
TRAINING = ("training.1600000.processed.noemoticon.head10k_tail10k.csv", "training.random10k.pandas_resaved.csv")
LEXICON = ("positive-words.txt", "negative-words.txt")


def timed(fn):
    """``fn()`` and the seconds it took."""
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def _lexicon_files(corpora: Path) -> list[Path]:
    return [corpora / "opinion_lexicon" / name for name in LEXICON]


def build(corpora: Path, tweets: int, out: Path, naive_tweets: int) -> dict:
    """Child: write the ``tweets``-row CSV to ``out`` and the first ``naive_tweets`` texts beside it."""
    import polars as pl

    from noisecraft.mining.reduplication import read_tweets

    sample = pl.concat([read_tweets(corpora / "sentiment140" / name) for name in TRAINING])
    rows = sample[pl.int_range(tweets, eager=True) % sample.height]
    rows.write_csv(out, include_header=False, quote_style="always", line_terminator="\r\n")
    subset = rows["text"].head(naive_tweets).to_list()
    out.with_suffix(".subset.json").write_text(json.dumps(subset), encoding="utf-8")
    return {"sample": sample.height, "mb": out.stat().st_size / 2**20}


def mine(module_file: str, tweets: Path, corpora: Path, pairs_out: Path) -> dict:
    """Child: mine ``tweets`` with the miner in ``module_file`` (the installed one when empty); time and
    RSS, and the pairs written to ``pairs_out``."""
    import resource

    if module_file:
        import importlib.util

        spec = importlib.util.spec_from_file_location("reduplication_under_test", module_file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
        spec.loader.exec_module(module)
    else:
        from noisecraft.mining import reduplication as module
    floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    mined, seconds = timed(lambda: module.reduplication_dictionary([tweets], _lexicon_files(corpora)))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    pairs_out.write_text(json.dumps([[r["correct"], r["noisy"], r["count"]] for r in mined.rows]), encoding="utf-8")
    return {"seconds": seconds, "peak_mb": peak / 1024, "floor_mb": floor / 1024, "rows": len(mined.rows)}


def naive(corpora: Path, subset_file: Path) -> dict:
    """Child: the regex loop on the subset, timed, and whether the polars miner agrees with it."""
    from collections import Counter

    import polars as pl

    from noisecraft.mining.reduplication import mine_naive, mine_reduplications, read_lexicon

    lexicon = read_lexicon(_lexicon_files(corpora))
    subset = json.loads(subset_file.read_text(encoding="utf-8"))
    found, seconds = timed(lambda: mine_naive(subset, lexicon))
    fast = Counter({(r["correct"], r["noisy"]): r["count"] for r in mine_reduplications(pl.Series(subset), lexicon)})
    return {"seconds": seconds, "variants": len(found), "agree": found == fast, "lexicon": len(lexicon),
            "threads": pl.thread_pool_size()}


def run_child(threads: int, *args: str) -> dict:
    """One fresh process of this script doing one step; its JSON answer."""
    env = {**os.environ, "POLARS_MAX_THREADS": str(threads)}
    done = subprocess.run([sys.executable, __file__, "--child", *args], env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"the {args[0]} step failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        step, rest = sys.argv[2], sys.argv[3:]
        if step == "build":
            answer = build(Path(rest[0]), int(rest[1]), Path(rest[2]), int(rest[3]))
        elif step == "mine":
            answer = mine(rest[0], Path(rest[1]), Path(rest[2]), Path(rest[3]))
        else:
            answer = naive(Path(rest[0]), Path(rest[1]))
        print(json.dumps(answer))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpora", nargs="?", type=Path, default=DEFAULT_CORPORA,
                        help="folder with sentiment140/ and opinion_lexicon/")
    parser.add_argument("--tweets", type=int, default=1_600_000)
    parser.add_argument("--naive-tweets", type=int, default=20_000)
    parser.add_argument("--threads", type=int, default=1, help="polars threads")
    parser.add_argument("--repeat", type=int, default=3, help="fresh-process runs of each miner")
    parser.add_argument("--baseline", type=Path, help="another copy of mining/reduplication.py to measure beside this one")
    args = parser.parse_args()
    corpora = str(args.corpora.resolve())
    miners = {"current": ""} | ({"baseline": str(args.baseline.resolve())} if args.baseline else {})
    runs: dict[str, list[dict]] = {name: [] for name in miners}
    with tempfile.TemporaryDirectory(prefix="noisecraft-bench-") as folder:
        path = Path(folder) / "tweets.csv"
        built = run_child(args.threads, "build", corpora, str(args.tweets), str(path), str(args.naive_tweets))
        for _ in range(args.repeat):
            for name, module_file in miners.items():
                runs[name].append(run_child(args.threads, "mine", module_file, str(path), corpora,
                                            str(Path(folder) / f"{name}.json")))
        pairs = {name: {(c, n): k for c, n, k in json.loads((Path(folder) / f"{name}.json").read_text(encoding="utf-8"))}
                 for name in miners}
        regex = run_child(args.threads, "naive", corpora, str(path.with_suffix(".subset.json")))

    from results_page import publish

    subset = min(args.naive_tweets, args.tweets)
    extrapolated = regex["seconds"] * args.tweets / subset
    print(f"{built['sample']:,} real tweets repeated to {args.tweets:,} ({built['mb']:,.0f} MB of CSV); lexicon "
          f"{regex['lexicon']:,} words; polars threads: {regex['threads']}; {args.repeat} fresh-process run(s) each\n")
    table = []
    for name, found in runs.items():
        best = min(run["seconds"] for run in found)
        peak = max(run["peak_mb"] for run in found)
        table.append((f"read + mine ({name})", f"{args.tweets:,}", f"{best:,.2f}", f"{args.tweets / best:,.0f}",
                      f"{peak:,.0f} MB (imports {found[0]['floor_mb']:,.0f} MB)", found[0]["rows"]))
    table.append(("naive regex loop (measured)", f"{subset:,}", f"{regex['seconds']:,.2f}",
                  f"{subset / regex['seconds']:,.0f}", "-", regex["variants"]))
    table.append(("naive regex loop (extrapolated)", f"{args.tweets:,}", f"{extrapolated:,.2f}",
                  f"{args.tweets / extrapolated:,.0f}", "-", "-"))
    print(publish(
        "reduplication_mining", ("method", "tweets", "seconds (best)", "tweets/s", "peak RSS", "variants found"), table))
    every = "; ".join(f"{name}: " + ", ".join(f"{run['seconds']:.2f} s {run['peak_mb']:.0f} MB" for run in found)
                      for name, found in runs.items())
    print(f"\nall runs: {every}")
    if args.baseline:
        current, baseline = pairs["current"], pairs["baseline"]
        recounted = [k for k in set(current) & set(baseline) if current[k] != baseline[k]]
        differ = sorted(set(current) ^ set(baseline)) + sorted(recounted)
        print(f"pairs: current {len(current)}, baseline {len(baseline)}; {len(differ)} (correct, noisy) pair(s) differ "
              f"(added, removed or counted differently)")
    best = min(run["seconds"] for run in runs["current"])
    print(f"naive and polars agree on the {subset:,}-tweet subset: {regex['agree']}; "
          f"speed-up of read + mine over the naive loop: {extrapolated / best:,.0f}x")


if __name__ == "__main__":
    main()
