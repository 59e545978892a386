"""Share of a build's CPU spent on statistics (CER/WER/BLEU counting, :class:`noisecraft.stats.ConfigStats`).

Builds a synthetic SQuAD file (XQuAD-en paragraphs repeated, as ``build_scaling.py`` makes them) in one process with
``keyboard`` noise on ``question`` and on ``question context``, and times ``ConfigStats.add`` (CPU time,
``time.process_time``) inside the whole build. The statistics are counted by ``noisecraft._counting`` (the C
extension, where built) and, with ``--python``, also by the pure-Python path a machine without a C compiler uses.
A warm-up build runs first (imports); every build starts with the statistics' memos empty, as in a fresh process.
Each setting runs ``--rounds`` times, interleaved; medians are printed beside the last session's figures (37 % with
contexts, 34 % for questions, at load ~1.5) and issue 22's before any of this work (67 %, 40 %).

Usage: python benchmarks/stats_share.py [--rows 10000] [--rounds 3] [--python]
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

import noisecraft.stats as stats_module  # noqa: E402
from noisecraft.pipeline import ConfigRequest, build_all  # noqa: E402
from noisecraft.stats import format_table  # noqa: E402

#: Statistics' share of a build's CPU: the last session's (edit logs summed and references tokenized in Python), and
#: issue 22's.
PREVIOUS = {"question context": 37, "question": 34}
BEFORE = {"question context": 67, "question": 40}

#: The statistics' memos, emptied before every build.
MEMOS = ("_word_count", "_word_flags", "_reference_words", "_reference_ngrams", "_compiled_reference", "_bleu_tokenizer",
         "_fast_13a")


def share(data_file: Path, fields: tuple[str, ...], compiled: bool) -> tuple[float, float]:
    """CPU seconds of the whole build and of its statistics, counted in C (``compiled``) or in Python."""
    spent = [0.0]
    add = stats_module.ConfigStats.add
    compiled_names = ("_CompiledReference", "_bounded_distance", "_count_runs", "_edit_spans", "_tokenize_13a")
    counting = [getattr(stats_module, name) for name in compiled_names]
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
    if not compiled:
        for name in compiled_names:
            setattr(stats_module, name, None)
    try:
        start = time.process_time()
        build_all(out / "repo", [ConfigRequest(source="squad", noise="keyboard", data_file=data_file, fields=fields)],
                  progress=False)
        return time.process_time() - start, spent[0]
    finally:
        stats_module.ConfigStats.add = add
        for name, value in zip(compiled_names, counting):
            setattr(stats_module, name, value)
        shutil.rmtree(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--python", action="store_true", help="also count in Python (no C extension), interleaved")
    args = parser.parse_args()
    if stats_module._CompiledReference is None:
        sys.exit("noisecraft._counting is not built (no C compiler at install): reinstall with one")
    DEFAULT_WORKDIR.mkdir(parents=True, exist_ok=True)
    data_file = DEFAULT_WORKDIR / f"squad-{args.rows}.json"
    if not data_file.is_file():
        synthetic_squad(DEFAULT_XQUAD, args.rows, data_file)
    paths = ("C", "Python") if args.python else ("C",)
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {(f, p): [] for f in PREVIOUS for p in paths}
    share(data_file, ("question",), compiled=True)  # warm-up, not counted: imports and first-use setup
    for _ in range(args.rounds):
        for fields, path in runs:
            runs[fields, path].append(share(data_file, tuple(fields.split()), compiled=path == "C"))
    rows = []
    for (fields, path), results in runs.items():
        total = statistics.median(t for t, _ in results)
        spent = statistics.median(s for _, s in results)
        rows.append((fields, path, f"{total:.2f}", f"{spent:.2f}", f"{100 * spent / total:.0f} %",
                     f"{PREVIOUS[fields]} %", f"{BEFORE[fields]} %"))
    print(f"{args.rows:,} rows, keyboard noise, one process, CPU seconds, median of {args.rounds}\n")
    print(format_table(("fields", "counted in", "build s", "statistics s", "share", "last session",
                        "issue 22"), rows))


if __name__ == "__main__":
    main()
