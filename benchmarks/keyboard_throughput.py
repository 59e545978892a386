"""Keyboard-noise throughput on XQuAD questions, and the time of a whole multilingual build.

Prints two tables:

1. the noise itself (``KeyboardTypos.apply`` on pre-built per-example RNGs, best of ``--repeat``)
   and the per-example RNG derivation, in words/s and rows/s, per XQuAD language;
2. the whole build (load JSON -> noise -> parquet -> card) of all languages into one repo, as
   ``noisecraft build`` runs it, in one process.

Usage: python benchmarks/keyboard_throughput.py [--corpora ../shared/corpora/xquad] [--repeat 5] [--version 2]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from results_page import publish

from noisecraft.building.pipeline import ConfigRequest, build_all
from noisecraft.core.seeding import example_rngs
from noisecraft.core.text_units import word_pattern
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import NoiseInput, NoiseModel
from noisecraft.noise_models.registry import create

LANGS = ("ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")
DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "xquad"


def questions(path: Path) -> tuple[list[str], list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    qas = [q for a in data["data"] for p in a["paragraphs"] for q in p["qas"]]
    return [q["id"] for q in qas], [q["question"] for q in qas]


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(model: NoiseModel, ids: list[str], texts: list[str], repeat: int) -> tuple[float, float]:
    """Seconds to derive and seed the per-example RNGs as a build does (:func:`~noisecraft.core.seeding.example_rngs`),
    and to noise the texts (derivation and seeding excluded: the generators seed lazily, so each is seeded here by
    touching its ``random``)."""
    noise_id, digest = model.noise_id, model.digest()

    def rngs() -> list:
        made = example_rngs(0, noise_id, digest, ids, "question")
        for rng in made:
            rng.random  # noqa: B018 - seeds a lazy generator now
        return made

    rngs_time = best_of(repeat, rngs)
    return rngs_time, best_of(repeat, lambda: model.apply(NoiseInput(texts, rngs()))) - rngs_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA, help="folder with xquad.<lang>.json")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mode", default="noiseqa", choices=("noiseqa", "coles"))
    parser.add_argument("--version", type=int, default=2, help="keyboard@VERSION (default: %(default)s)")
    args = parser.parse_args()
    word_pattern()  # built once per process; not part of the per-row cost

    rows = []
    total_words = total_rows = total_noise = 0.0
    for lang in LANGS:
        ids, texts = questions(args.corpora / f"xquad.{lang}.json")
        words = sum(len(word_pattern().findall(t)) for t in texts)
        try:
            model = create(f"keyboard@{args.version}", lang=lang, mode=args.mode)
            model.augment(["warm up the segmenter"])  # dictionaries load once per process, not per row
        except ConfigError as exc:
            rows.append((lang, len(texts), words, "-", "-", "-", "-", f"not supported: {str(exc)[:40]}..."))
            continue
        rngs_time, noise_time = measure(model, ids, texts, args.repeat)
        total_words += words
        total_rows += len(texts)
        total_noise += noise_time
        rows.append((lang, len(texts), words, f"{words / noise_time:,.0f}", f"{len(texts) / noise_time:,.0f}",
                     f"{len(texts) / rngs_time:,.0f}", f"{noise_time * 1000:.1f}", model.resolved_layout()))
    rows.append(("all", int(total_rows), int(total_words), f"{total_words / total_noise:,.0f}",
                 f"{total_rows / total_noise:,.0f}", "", f"{total_noise * 1000:.1f}", ""))
    print(f"keyboard@{args.version} ({args.mode}, rate 0.25) on XQuAD questions, noise only, best of {args.repeat}, "
          "one core\n")
    print(publish(
        "keyboard_throughput", ("lang", "rows", "words", "words/s", "rows/s", "rng rows/s", "noise ms", "layout"), rows))

    out = Path(tempfile.mkdtemp(prefix="noisecraft-bench-"))
    try:
        supported = [lang for lang in LANGS if lang != "zh"]
        start = time.perf_counter()
        build_all(out, [ConfigRequest(source="xquad", lang=lang, noise=f"keyboard@{args.version}(mode={args.mode})",
                                      data_file=args.corpora / f"xquad.{lang}.json") for lang in supported], progress=False)
        elapsed = time.perf_counter() - start
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        print(f"\nwhole build, {len(supported)} XQuAD languages (load -> noise -> parquet -> stats -> card), one process:"
              f" {elapsed:.2f} s, {len(supported) * 1190} rows, {size / 1e6:.1f} MB written")
    finally:
        shutil.rmtree(out)


if __name__ == "__main__":
    main()
