"""Share of a build's CPU spent on statistics (CER/WER/BLEU counting, :class:`noisecraft.core.stats.ConfigStats`).

Builds a synthetic SQuAD file (XQuAD-en paragraphs repeated, as ``build_scaling.py`` makes them) in one process with
``keyboard`` noise on ``question`` and on ``question context``, and times ``ConfigStats.add`` (CPU time,
``time.process_time``) inside the whole build. The statistics are counted batch by batch by rapidfuzz, jiwer's word
split and sacrebleu. A warm-up build runs first (imports); every build starts with the statistics' memos empty, as
in a fresh process. Each setting runs ``--rounds`` times, interleaved; medians are printed.

Usage: python benchmarks/stats_share.py [--rows 10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_scaling import DEFAULT_WORKDIR, DEFAULT_XQUAD, synthetic_squad  # noqa: E402
from results_page import publish  # noqa: E402

import noisecraft.core.stats as stats_module  # noqa: E402
from noisecraft.building.pipeline import ConfigRequest, build_all  # noqa: E402

#: The statistics' memos, emptied before every build.
MEMOS = ("_word_count", "_bleu")


def share(data_file: Path, fields: tuple[str, ...]) -> tuple[float, float]:
    """CPU seconds of the whole build and of its statistics."""
    spent = [0.0]
    add = stats_module.ConfigStats.add
    for memo in MEMOS:
        getattr(stats_module, memo).cache_clear()

    def timed(self, *args, **kwargs):
        start = time.process_time()
        try:
            return add(self, *args, **kwargs)
        finally:
            spent[0] += time.process_time() - start

    out = Path(tempfile.mkdtemp(prefix="noisecraft-stats-"))
    stats_module.ConfigStats.add = timed
    try:
        start = time.process_time()
        build_all(out / "repo", [ConfigRequest(source="squad", noise="keyboard", data_file=data_file, fields=fields)],
                  progress=False)
        return time.process_time() - start, spent[0]
    finally:
        stats_module.ConfigStats.add = add
        shutil.rmtree(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    DEFAULT_WORKDIR.mkdir(parents=True, exist_ok=True)
    data_file = DEFAULT_WORKDIR / f"squad-{args.rows}.json"
    if not data_file.is_file():
        synthetic_squad(DEFAULT_XQUAD, args.rows, data_file)
    runs: dict[str, list[tuple[float, float]]] = {fields: [] for fields in ("question context", "question")}
    share(data_file, ("question",))  # warm-up, not counted: imports and first-use setup
    for _ in range(args.rounds):
        for fields in runs:
            runs[fields].append(share(data_file, tuple(fields.split())))
    rows = []
    for fields, results in runs.items():
        total = statistics.median(t for t, _ in results)
        spent = statistics.median(s for _, s in results)
        rows.append((fields, f"{total:.2f}", f"{spent:.2f}", f"{100 * spent / total:.0f} %"))
    print(f"{args.rows:,} rows, keyboard noise, one process, CPU seconds, median of {args.rounds}\n")
    print(publish("stats_share", ("fields", "build s", "statistics s", "share"), rows,
                  notes=f"{args.rows:,} rows, keyboard noise, one process, CPU seconds, median of {args.rounds}."))


if __name__ == "__main__":
    main()
