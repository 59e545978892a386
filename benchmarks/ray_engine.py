"""The Ray engine next to the local pool: build rows/s, Ray's cost per task, mining MB/s per core.

Everything runs on this machine: the local engine with 1 and ``--cpus`` processes, and Ray as a local cluster
of ``--cpus`` CPUs (``ray.init(num_cpus=...)``, started once before any timing; its start-up is printed on its
own). Each Ray measurement follows one untimed warm-up run, so worker processes exist and have imported the
package, as they would in a long cluster run. Measured:

* build, rule-based: ``keyboard`` on the 5,463 QNLI dev questions (``--batch-size`` rows per batch/task);
* build, model-based: ``replace-entity`` with the tiny random BERT tagger of ``tests/tiny_models.py`` on CPU,
  fresh output cache each run: the ``prepare`` pass runs the model (locally in the build's process; on Ray in a
  pool of model actors), then the batches read the cache; ``cached`` is a rebuild with the cache full (the batch
  pass alone);
* model work on actors, on the 41-row ``demo`` source, fresh output caches each run: ``translation`` (a round trip
  through the tiny random Marian models of ``tests/tiny_models.py``: two models, so two rounds of actor work) and
  ``asr`` (espeak-ng speech recognised by pocketsphinx with a small domain language model); local x1 against Ray;
* overhead per task: a function that returns its argument, over ``--tasks`` items, per item;
* mining: ``mine wikiedits`` on ``--files`` synthetic history dumps of ``--mb`` MB each (real pages repeated,
  as in ``benchmarks/wikiedits_mining.py``), next to the bare parse (decompress + ``iterparse``) of one file in
  this process, the limit a miner can reach. MB/s per core = MB/s / processes (or Ray CPUs).

The machine is shared: the load average at the start and the end is printed; read the numbers as ±30 %.

Usage: python benchmarks/ray_engine.py [--cpus 2] [--mb 20] [--files 4] [--corpora ../shared/corpora]
       [--jobs rule,mining,overhead,model,mt,asr] (a subset: e.g. ``--jobs mt,asr``)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_CORPORA = HERE.parents[1] / "shared" / "corpora"
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]  # synthetic_dump (wikiedits_mining) and the tiny models


def timed(function: Callable[[], Any]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _identity(x: Any) -> Any:
    return x


def build_rows(corpora: Path, out: Path, noise: str, engine: str, num_proc: int, batch_size: int) -> int:
    import noisecraft as nc

    [built] = nc.build("glue/qnli", noise, out, data_file=corpora / "glue/QNLI/dev.tsv", split="validation",
                       fields=["question"], num_proc=num_proc, batch_size=batch_size, engine=engine, progress=False,
                       overwrite=True)
    return int(built.stats["rows_in"])


#: The measurements, selectable with ``--jobs``.
JOBS = ("rule", "mining", "overhead", "model", "mt", "asr")


def demo_rows(out: Path, noise: str, engine: str) -> int:
    import noisecraft as nc

    [built] = nc.build("demo", noise, out, engine=engine, progress=False, overwrite=True)
    return int(built.stats["rows_in"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpus", type=int, default=2, help="processes of the local pool and CPUs of the Ray cluster")
    parser.add_argument("--mb", type=float, default=20, help="MB of XML per synthetic dump file")
    parser.add_argument("--files", type=int, default=4, help="synthetic dump files to mine")
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--tasks", type=int, default=400, help="items of the overhead measurement")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--jobs", default=",".join(JOBS), help=f"comma-separated subset of {', '.join(JOBS)}")
    args = parser.parse_args()
    jobs = set(args.jobs.split(","))
    if jobs - set(JOBS):
        parser.error(f"--jobs: unknown {', '.join(sorted(jobs - set(JOBS)))}; choose from {', '.join(JOBS)}")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

    from results_page import publish
    from wikiedits_mining import synthetic_dump

    from noisecraft.building.executors import RayExecutor
    from noisecraft.building.workers import LocalExecutor
    from noisecraft.mining.mediawiki import read_dump
    from noisecraft.mining.wikiedits import WikiEditMiner, dictionary_rows, mine_dumps

    load_start = os.getloadavg()[0]
    results: dict[tuple[str, str], tuple[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="noisecraft-raybench-") as tmp_name:
        tmp = Path(tmp_name)
        dumps = []
        for i in range(args.files if "mining" in jobs else 0):
            dumps.append(tmp / f"history-{i}.xml")
            synthetic_dump(args.corpora, args.mb, dumps[-1])
        total_mb = sum(p.stat().st_size for p in dumps) / 1e6
        miner = WikiEditMiner("en")
        reference: list[Any] = []

        def record(job: str, engine: str, seconds: str, throughput: str) -> None:
            results[job, engine] = (seconds, throughput)
            print(f"{job} | {engine} | {seconds} | {throughput}", file=sys.stderr, flush=True)

        def build(label: str, noise: str, engine: str, procs: int) -> None:
            def run(cache: str) -> int:
                os.environ["NOISECRAFT_CACHE"] = str(tmp / cache)
                return build_rows(args.corpora, tmp / "out", noise, engine, procs, args.batch_size)

            if engine == "ray":
                run(f"warm-{label}")  # workers started, imports done (a long cluster run pays this once)
            counted: list[int] = []
            seconds = timed(lambda: counted.append(run(f"{label}-{engine}-{procs}")))
            record(f"build {label}", f"{engine} x{procs}", f"{seconds:.1f}", f"{counted[0] / seconds:,.0f} rows/s")
            if label.startswith("model"):  # the batch pass alone: the cache now holds every model output
                cached = timed(lambda: run(f"{label}-{engine}-{procs}"))
                record(f"build {label}, cache full", f"{engine} x{procs}", f"{cached:.1f}",
                       f"{counted[0] / cached:,.0f} rows/s")

        def demo(label: str, noise: str, engine: str) -> None:
            def run(cache: str) -> int:
                os.environ["NOISECRAFT_CACHE"] = str(tmp / cache)
                return demo_rows(tmp / "out-demo", noise, engine)

            if engine == "ray":
                run(f"warm-{label}")  # workers started, imports done
            counted: list[int] = []
            seconds = timed(lambda: counted.append(run(f"{label}-{engine}")))
            record(f"build {label}", f"{engine} x{1 if engine == 'local' else args.cpus}", f"{seconds:.1f}",
                   f"{counted[0] / seconds:,.1f} rows/s")

        def overhead(executor: Any, engine: str) -> None:
            with executor:
                list(executor.imap(_identity, range(args.cpus * 4)))
                per_task = timed(lambda: list(executor.imap(_identity, range(args.tasks)))) / args.tasks
            record("overhead per task (no-op)", f"{engine} x{args.cpus}", f"{per_task * 1e3:.2f} ms", "")

        def mining(engine: str, procs: int) -> None:
            if engine == "ray":
                mine_dumps(miner, dumps[:procs], tmp / "ck-warm", procs, progress=False, engine="ray")
            mined: list[Any] = []
            seconds = timed(lambda: mined.extend(mine_dumps(miner, dumps, tmp / f"ck-{engine}-{procs}", procs,
                                                            progress=False, engine=engine)[0]))
            rows = dictionary_rows("en", mined)
            reference[:] = reference or [rows]
            same = "same dictionary" if rows == reference[0] else "DIFFERENT DICTIONARY"
            record(f"mine wikiedits ({args.files} files, {total_mb:.0f} MB)", f"{engine} x{procs}", f"{seconds:.1f}",
                   f"{total_mb / seconds:.1f} MB/s = {total_mb / seconds / procs:.1f} per core; {same}")

        # 1. the local engine (its pool spawns its workers), rule-based noise and mining
        if "mining" in jobs:
            miner.mine_file(args.corpora / "mediawiki/pywikibot_article-pear_export-0.3.xml")  # imports, regexes
            bare = timed(lambda: sum(1 for _ in read_dump(dumps[0])))
            record("bare parse (1 file, this process)", "x1", f"{bare:.1f}",
                   f"{dumps[0].stat().st_size / 1e6 / bare:.1f} MB/s per core")
        for procs in (1, args.cpus):
            if "rule" in jobs:
                build("rule-based (keyboard)", "keyboard", "local", procs)
            if "mining" in jobs:
                mining("local", procs)
        if "overhead" in jobs:
            overhead(LocalExecutor(args.cpus), "local")
        # 2. model-based, local
        from noisecraft.noise_models.speech_asr import write_domain_lm

        from tiny_models import CORPUS_EN, tiny_model

        tagger = f"replace-entity(tagger={tiny_model('ner-tagger')})"
        model_label = "model-based (replace-entity, tiny BERT)"
        mt = (f"translation(forward_model={tiny_model('marian-en-de')},backward_model={tiny_model('marian-de-en')},"
              "max_new_tokens=12,token_budget=1600)")
        mt_label = "translation round trip (demo, tiny Marian)"
        asr = f"asr(tts=espeak,asr=pocketsphinx,lm={write_domain_lm(CORPUS_EN, tmp / 'questions.arpa')})"
        asr_label = "asr (demo, espeak + pocketsphinx)"
        if "model" in jobs:
            for procs in (1, args.cpus):
                build(model_label, tagger, "local", procs)
        if "mt" in jobs:
            demo(mt_label, mt, "local")
        if "asr" in jobs:
            demo(asr_label, asr, "local")
        # 3. Ray, a local cluster of --cpus CPUs started once
        import ray

        start_ray = timed(lambda: ray.init(num_cpus=args.cpus, include_dashboard=False, logging_level="ERROR",
                                           object_store_memory=200 * 1024**2))
        if "rule" in jobs:
            build("rule-based (keyboard)", "keyboard", "ray", args.cpus)
        if "mining" in jobs:
            mining("ray", args.cpus)
        if "overhead" in jobs:
            overhead(RayExecutor(), "ray")
        if "model" in jobs:
            build(model_label, tagger, "ray", args.cpus)
        if "mt" in jobs:
            demo(mt_label, mt, "ray")
        if "asr" in jobs:
            demo(asr_label, asr, "ray")
        ray.shutdown()
    setting = (f"{args.cpus} CPUs; Ray local cluster start-up {start_ray:.1f} s (not counted below); load average "
               f"{load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(setting + "\n")
    print(publish("ray_engine", ("job", "engine", "seconds", "throughput"),
                  [(job, engine, *values) for (job, engine), values in results.items()],
                  notes=f"{setting}. Each local run starts its pool (spawned workers that import the package), as a "
                        "build does; each Ray run follows an untimed warm-up, as in a long cluster session."))


if __name__ == "__main__":
    main()
