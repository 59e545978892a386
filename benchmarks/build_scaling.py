"""Wall time and peak memory of ``noisecraft build`` on SQuAD files of growing size, per ``--num-proc``.

Makes synthetic SQuAD v1.1 files of ``--sizes`` questions by repeating the paragraphs of XQuAD
English (240 paragraphs, 1190 questions; copy k gets question ids ``<id>-r<k>`` and article
titles ``<title> (copy k)``), written once into ``--workdir`` and reused by later runs. Then each
build runs as the user runs it, in its own process::

    python -m noisecraft.cli build --source squad --data-file FILE --noise keyboard \\
        --fields question context --out OUT --no-progress --num-proc N

Each build is started by a fresh wrapper process (``CHILD`` below) that times it and reports its
peak RSS three ways:

* main: the build process's own ``VmHWM`` (peak RSS of its address space), read from /proc every
  50 ms while it runs (a peak in the last 50 ms before exit can be missed);
* workers: the largest ``VmHWM`` among its descendants (the ``spawn`` pool workers, and
  multiprocessing's small resource tracker), read the same way once they have exec'd (a child
  caught between fork and exec still shows its parent's memory);
* all: ``getrusage(RUSAGE_CHILDREN).ru_maxrss`` of the wrapper once the build has been reaped:
  the exact maximum over the build and every descendant it reaped (an upper bound for each,
  since a forked child may be charged the pages it shared with its parent at fork time);
* tree RSS and tree PSS: the peak, over the 50 ms samples, of the *sum* over the build and all its
  descendants of their RSS (``VmRSS``: pages a forked worker shares with its parent count in both)
  and, sampled every second, of their PSS (``Pss`` of ``/proc/PID/smaps_rollup``: a shared page is split between
  the processes sharing it, so the sum is the memory the whole tree really holds). Reading ``smaps_rollup`` walks a
  process's page tables: at every 50 ms tick it kept a quarter of a core busy, which a one-process build leaves to
  the idle core but a two-process build takes from its workers (its speed-up measured 1.02-1.19x that way against
  1.17-1.36x without, interleaved); once a second it costs about 1 %. The tree's PSS is the figure to compare
  with the machine's memory.

Seconds are the wall time of the whole command (interpreter start, imports, JSON parse, noise,
parquet, card); "cli s" is the time the CLI itself prints (from the start of the build command);
"cpu s" is user + system CPU of the build and its workers (``RUSAGE_CHILDREN``), which other
load on the machine inflates much less than wall time: compare it when the machine is shared.
"others" is how many cores other processes kept busy on average during the run (CPU time of the
whole machine from /proc/stat, minus the build's): above ~0.1 the wall times are not clean.
A run that takes more than ``--timeout`` seconds is killed (the whole process group); when that
happens to a run perturbing more than ``question``, that size is run again with
``--fields question`` only, and the table says so.

With ``--old-rows N`` (default 100000) the same runs are made on N rows with the implementation
of ``--old-commit`` (default 4519515, the package then named ``builders``): it is checked out with
``git worktree add /tmp/nc-old COMMIT``, run as ``PYTHONPATH=/tmp/nc-old python -m builders.cli
build ...`` from the work folder (never from the repo root, whose ``builders/`` would shadow it),
and the worktree is removed afterwards. ``--profile`` adds a cProfile of the smallest size at
``--num-proc 1`` (top 15 functions by cumulative time, then top 10 by own time; main process only).

Usage: python benchmarks/build_scaling.py [--sizes 10000 100000 500000] [--num-proc 1 2]
           [--fields question context] [--old-rows 100000] [--timeout 360] [--profile]
Quick: python benchmarks/build_scaling.py --sizes 10000 --num-proc 1 2 --old-rows 0
(the default run takes about 25 minutes on 2 cores, 6 of them for the 500k build that times out)
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_XQUAD = REPO.parent / "shared" / "corpora" / "xquad" / "xquad.en.json"
DEFAULT_WORKDIR = Path(tempfile.gettempdir()) / "noisecraft-build-scaling"
OLD_TREE = Path("/tmp/nc-old")


def synthetic_squad(source: Path, n: int, out: Path) -> None:
    """Write a SQuAD v1.1 file of exactly ``n`` questions: the source's paragraphs repeated, each
    copy ``k`` with question ids suffixed ``-r<k>`` and article titles suffixed ``(copy k)``."""
    doc = json.loads(source.read_text(encoding="utf-8"))
    articles, count, k = [], 0, 0
    while count < n:
        for article in doc["data"]:
            paragraphs = []
            for paragraph in article["paragraphs"]:
                qas = [dict(qa, id=f"{qa['id']}-r{k}") for qa in paragraph["qas"][: n - count]]
                count += len(qas)
                if qas:
                    paragraphs.append({"context": paragraph["context"], "qas": qas})
            if paragraphs:
                articles.append({"title": f"{article['title']} (copy {k})", "paragraphs": paragraphs})
            if count == n:
                break
        k += 1
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps({"version": "1.1", "data": articles}, ensure_ascii=False), encoding="utf-8")
    tmp.rename(out)  # an interrupted generation never leaves a truncated file to be reused


# The wrapper: run the command (argv[1], JSON) in its own process group, sample VmHWM of it and of
# its descendants every 50 ms, kill the group after argv[2] seconds; print one JSON line.
CHILD = r"""
import json, os, resource, signal, subprocess, sys, time
cmd, timeout, log = json.loads(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
PSS_EVERY = 20  # ticks of 50 ms between PSS samples (1 s)

def status_kb(pid, key="VmHWM:"):
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(l.split()[1]) for l in f if l.startswith(key)), 0)
    except OSError:
        return 0

def hwm_kb(pid):
    return status_kb(pid)

def pss_kb(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            return next((int(l.split()[1]) for l in f if l.startswith("Pss:")), 0)
    except OSError:
        return 0

def busy_seconds():  # CPU seconds all processes of the machine have used since boot (/proc/stat)
    with open("/proc/stat") as f:
        ticks = [int(v) for v in f.readline().split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # minus idle and iowait

def descendants(pid):
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/task/{p}/children") as f:
                kids = [int(c) for c in f.read().split()]
        except OSError:
            kids = []
        found += kids
        todo += kids
    return found

with open(log, "w") as out:
    busy_start, start = busy_seconds(), time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    main_kb, workers, timed_out, tree_rss, tree_pss, tick = 0, {}, False, 0, 0, 0
    while proc.poll() is None:
        tick += 1
        main_kb = max(main_kb, hwm_kb(proc.pid))
        kids = descendants(proc.pid)
        for pid in kids:
            workers[pid] = max(workers.get(pid, 0), hwm_kb(pid))
        tree = [proc.pid] + kids
        tree_rss = max(tree_rss, sum(status_kb(pid, "VmRSS:") for pid in tree))
        if tick % PSS_EVERY == 1:  # smaps_rollup walks each process's page tables: too dear to read every tick
            tree_pss = max(tree_pss, sum(pss_kb(pid) for pid in tree))
        if time.perf_counter() - start > timeout:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            break
        time.sleep(0.05)
    seconds, busy = time.perf_counter() - start, busy_seconds() - busy_start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
all_kb, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
print(json.dumps({"rc": proc.returncode, "seconds": seconds, "cpu": cpu, "others": (busy - cpu) / seconds,
                  "timed_out": timed_out, "main_kb": main_kb,
                  "workers_kb": max(workers.values(), default=0), "n_workers": len(workers), "all_kb": all_kb,
                  "tree_rss_kb": tree_rss, "tree_pss_kb": tree_pss}))
"""


def build_command(module: str, data_file: Path, out: Path, fields: list[str], num_proc: int) -> list[str]:
    return [sys.executable, "-m", module, "build", "--source", "squad", "--data-file", str(data_file),
            "--noise", "keyboard", "--fields", *fields, "--out", str(out), "--no-progress", "--num-proc", str(num_proc)]


def measure(cmd: list[str], workdir: Path, timeout: float, env: dict[str, str] | None = None) -> dict:
    """Run one build through a fresh wrapper process; its numbers, the CLI's own seconds, shards."""
    out = Path(cmd[cmd.index("--out") + 1])
    shutil.rmtree(out, ignore_errors=True)
    log = workdir / "last-build.log"
    wrapper = subprocess.run([sys.executable, "-c", CHILD, json.dumps(cmd), str(timeout), str(log)], cwd=workdir,
                             env=env, check=True, capture_output=True, text=True)
    result = json.loads(wrapper.stdout.strip().splitlines()[-1])
    text = log.read_text(encoding="utf-8", errors="replace")
    cli = re.search(r"config\(s\) to .* in ([0-9.]+) s", text)
    result["cli_seconds"] = float(cli.group(1)) if cli else None
    result["shards"] = len(list(out.rglob("*.parquet")))
    if result["rc"] != 0 and not result["timed_out"]:
        result["error"] = text.strip().splitlines()[-1] if text.strip() else f"exit status {result['rc']}"
    shutil.rmtree(out, ignore_errors=True)
    return result


def run_series(label: str, module: str, sizes: list[int], num_procs: list[int], fields: list[str],
               files: dict[int, Path], args: argparse.Namespace, env: dict[str, str] | None = None) -> list[dict]:
    """Every (size, num_proc) run of one implementation; a size whose run times out with more
    fields than ``question`` is continued (that num_proc again, then the rest) with ``question`` only."""
    runs = []
    for size in sizes:
        size_fields = list(fields)
        todo = list(num_procs)
        while todo:
            num_proc = todo[0]
            cmd = build_command(module, files[size], args.workdir / "out", size_fields, num_proc)
            result = measure(cmd, args.workdir, args.timeout, env)
            runs.append(dict(result, impl=label, rows=size, fields=" ".join(size_fields), num_proc=num_proc))
            note = " (killed: timeout)" if result["timed_out"] else f" ERROR {result['error']}" if "error" in result else ""
            print(f"  {label} {size:,} rows, {' '.join(size_fields)}, num_proc {num_proc}: {result['seconds']:.1f} s{note}",
                  file=sys.stderr, flush=True)
            if result["timed_out"] and size_fields != ["question"]:
                size_fields = ["question"]  # too slow with the other fields: same num_proc again, questions only
                continue
            todo.pop(0)
    return runs


def paired_base(runs: list[dict], k: int) -> float | None:
    """Seconds of the num_proc 1 run that ``runs[k]`` is compared with: of the same implementation, size and fields,
    the nearest one before it (else after it). Repeated ``--num-proc 1 2 1 2`` series thus compare each run with its
    neighbour, not with a run made minutes apart, when the machine's own speed moved in between."""
    key = (runs[k]["impl"], runs[k]["rows"], runs[k]["fields"])
    singles = [j for j, r in enumerate(runs) if r["num_proc"] == 1 and r["rc"] == 0
               and (r["impl"], r["rows"], r["fields"]) == key]
    before = [j for j in singles if j < k]
    pick = before[-1] if before else min(singles, default=None, key=lambda j: abs(j - k))
    return runs[pick]["seconds"] if pick is not None else None


def speedup_summary(runs: list[dict]) -> list[str]:
    """Per implementation, size, fields and num_proc > 1: the median and range of the paired speedups."""
    found: dict[tuple, list[float]] = {}
    for k, r in enumerate(runs):
        base = paired_base(runs, k)
        if r["num_proc"] > 1 and r["rc"] == 0 and base:
            found.setdefault((r["impl"], r["rows"], r["fields"], r["num_proc"]), []).append(base / r["seconds"])
    return [f"{impl} {rows:,} rows, {fields}, num_proc {n}: speedup median {statistics.median(v):.2f}x over {len(v)} "
            f"pair(s) (min {min(v):.2f}x, max {max(v):.2f}x)" for (impl, rows, fields, n), v in found.items()]


def table_rows(runs: list[dict]) -> list[tuple]:
    """One printed row per run; the speedup is against the paired num_proc 1 run (:func:`paired_base`)."""
    rows = []
    for k, r in enumerate(runs):
        ok = r["rc"] == 0
        base = paired_base(runs, k)
        seconds = f"{r['seconds']:.1f}" if ok else (f">{r['seconds']:.0f} killed" if r["timed_out"] else "error")
        rows.append((r["impl"], f"{r['rows']:,}", r["fields"], r["num_proc"], seconds,
                     f"{r['cli_seconds']:.1f}" if r["cli_seconds"] is not None else "-",
                     f"{r['cpu']:.0f}" if ok else "-", f"{r['others']:.2f}" if ok else "-",
                     f"{r['rows'] / r['seconds']:,.0f}" if ok else "-",
                     f"{r['main_kb'] / 1024:.0f}", f"{r['workers_kb'] / 1024:.0f}" if r["n_workers"] else "-",
                     f"{r['all_kb'] / 1024:.0f}", f"{r['tree_rss_kb'] / 1024:.0f}", f"{r['tree_pss_kb'] / 1024:.0f}",
                     r["shards"] if ok else "-",
                     f"{base / r['seconds']:.2f}x" if ok and base and r["num_proc"] > 1 else ""))
    return rows


def profile(files: dict[int, Path], args: argparse.Namespace) -> None:
    """cProfile of the main process of the smallest build at num_proc 1: top 15 by cumulative time, top 10 by own."""
    import pstats

    size = min(files)
    stats_file = args.workdir / "build.prof"
    cmd = build_command("noisecraft.cli", files[size], args.workdir / "out", args.fields, 1)
    shutil.rmtree(args.workdir / "out", ignore_errors=True)
    subprocess.run([sys.executable, "-m", "cProfile", "-o", str(stats_file), *cmd[1:]], cwd=args.workdir, check=True,
                   capture_output=True)
    shutil.rmtree(args.workdir / "out", ignore_errors=True)
    print(f"\ncProfile, {size:,} rows, fields {' '.join(args.fields)}, num_proc 1: top 15 by cumulative time, "
          "then top 10 by own time\n")
    stats = pstats.Stats(str(stats_file), stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats(15)
    stats.sort_stats("tottime").print_stats(10)


def old_worktree(commit: str) -> None:
    if OLD_TREE.exists():
        subprocess.run(["git", "worktree", "remove", "--force", str(OLD_TREE)], cwd=REPO, capture_output=True)
    subprocess.run(["git", "worktree", "add", str(OLD_TREE), commit], cwd=REPO, check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 500_000], help="questions per file")
    parser.add_argument("--num-proc", type=int, nargs="+", default=[1, 2], dest="num_procs")
    parser.add_argument("--fields", nargs="+", default=["question", "context"], help="fields to perturb")
    parser.add_argument("--timeout", type=float, default=360, help="seconds before a run is killed")
    parser.add_argument("--old-commit", default="4519515", help="commit of the old implementation (package builders)")
    parser.add_argument("--old-rows", type=int, default=100_000, help="size to run the old implementation on (0: skip)")
    parser.add_argument("--xquad", type=Path, default=DEFAULT_XQUAD, help="SQuAD-format file whose paragraphs are repeated")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help="synthetic files (kept) and outputs")
    parser.add_argument("--profile", action="store_true", help="also cProfile the smallest size at num_proc 1")
    args = parser.parse_args()
    args.workdir = args.workdir.resolve()
    args.workdir.mkdir(parents=True, exist_ok=True)

    sizes = sorted(set(args.sizes) | ({args.old_rows} if args.old_rows else set()))
    files = {}
    for size in sizes:
        files[size] = args.workdir / f"squad-{size}.json"
        if not files[size].is_file():
            print(f"writing {files[size]}", file=sys.stderr, flush=True)
            synthetic_squad(args.xquad, size, files[size])

    # as an installed package runs: the modules' bytecode compiled once, not on every start (PYTHONDONTWRITEBYTECODE, if
    # set here, would make every build compile the package again: about 0.3 s of each run, all of it serial)
    compileall.compile_dir(str(REPO / "builders"), quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    runs = run_series("new", "noisecraft.cli", sorted(args.sizes), args.num_procs, args.fields, files, args, env)
    if args.old_rows:
        old_worktree(args.old_commit)
        try:
            env = dict(env, PYTHONPATH=os.pathsep.join(filter(None, [str(OLD_TREE), os.environ.get("PYTHONPATH")])))
            runs += run_series(f"old {args.old_commit}", "builders.cli", [args.old_rows], args.num_procs, args.fields,
                               files, args, env)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(OLD_TREE)], cwd=REPO, check=True)

    from results_page import publish

    print(f"noisecraft build, keyboard noise, synthetic SQuAD (XQuAD-en paragraphs repeated), {os.cpu_count()} cores; "
          f"peak RSS: main = build process, workers = largest descendant, all = ru_maxrss over both; tree = peak of "
          f"the sum over all processes (PSS: shared pages split)\n")
    print(publish(
        "build_scaling", ("impl", "rows", "fields", "num_proc", "seconds", "cli s", "cpu s", "others", "rows/s", "main MB",
                        "workers MB", "all MB", "tree RSS MB", "tree PSS MB", "shards", "speedup"), table_rows(runs)))
    print("\n" + "\n".join(speedup_summary(runs)))
    for r in runs:
        if "error" in r:
            print(f"\n{r['impl']} {r['rows']:,} rows num_proc {r['num_proc']}: {r['error']}")
    if args.profile:
        profile(files, args)


if __name__ == "__main__":
    main()
