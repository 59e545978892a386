"""``noisecraft probe``: the CoLeS probe's commands (wired into :mod:`noisecraft.cli`).

* ``probe type``: segmentation-corruption typing of a CoLeS dataset for tokenizers (no model weights);
* ``probe measure``: similarity on encoders and downstream accuracy on sentiment classifiers, with a report.

Defining the options imports nothing heavy; transformers and torch load when a command runs.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

EXAMPLES = """examples:
  noisecraft probe type coles/ --tokenizer google-bert/bert-base-uncased --tokenizer FacebookAI/roberta-base --out typing/
  noisecraft probe measure coles/ --model google-bert/bert-base-uncased \\
      --classifier distilbert/distilbert-base-uncased-finetuned-sst-2-english --out coles-report/
"""


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """The ``probe`` subcommand and its two actions."""
    probe = commands.add_parser(
        "probe", help="the CoLeS probe: how noise corrupts subword segmentation, and what that costs models",
        description="The CoLeS probe (Li, Liu & Gao, 2023) on a dataset built by scripts/recipes/coles.toml: type every "
                    "(canonical, noisy) pair by what the noise does to a tokenizer's segmentation, and measure how "
                    "close models keep noisy words to their canonical ones.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = probe.add_subparsers(dest="probe_action", required=True, metavar="ACTION")
    typing = actions.add_parser("type", help="type every pair for tokenizers: a parquet table and markdown shares each")
    typing.add_argument("--tokenizer", action="append", required=True, metavar="ID[@REV]|FOLDER",
                        help="Hub model id (optionally @revision) or a saved folder (repeatable)")
    measure = actions.add_parser("measure", help="similarity (encoders) and downstream accuracy (classifiers) per type")
    measure.add_argument("--model", action="append", default=[], metavar="ID[@REV]|FOLDER",
                         help="encoder for the similarity measurement (repeatable)")
    measure.add_argument("--classifier", action="append", default=[], metavar="ID[@REV]|FOLDER",
                         help="sentiment classifier for the downstream measurement (repeatable)")
    measure.add_argument("--label-map", metavar="MAP", help="'MODEL_LABEL=negative,...' for every --classifier whose "
                                                            "labels are not named negative/positive")
    measure.add_argument("--device", default="auto", help="auto, cuda, cuda:N, mps or cpu (default: %(default)s)")
    measure.add_argument("--dtype", default="auto", help="auto (bfloat16/float16 on GPU, float32 on CPU), float32, ...")
    measure.add_argument("--token-budget", type=int, metavar="N", help="padded tokens per batch (default by device)")
    for action in (typing, measure):
        action.add_argument("dataset", help="CoLeS dataset: a folder made by noisecraft build, or a Hub dataset id")
        action.add_argument("--config", action="append", default=[], dest="configs", metavar="CONFIG",
                            help="config to use (repeatable; default: all)")
        action.add_argument("--revision", help="Hub revision of the dataset")
        action.add_argument("--out", type=Path, required=True, help="output folder")
    return probe


def run(args: argparse.Namespace) -> int:
    """Run ``noisecraft probe type`` or ``noisecraft probe measure``."""
    from noisecraft.harness.models import ModelRequest
    from noisecraft.harness.probe.pairs import load_pairs

    start = time.perf_counter()
    pairs = load_pairs(args.dataset, args.configs, args.revision)
    if args.probe_action == "type":
        from noisecraft.harness.probe.segmentation import load_segmenter
        from noisecraft.harness.probe.typing_table import type_pairs, write_typing

        for text in args.tokenizer:
            request = ModelRequest.parse(text)
            segmenter = load_segmenter(request.name, request.revision)
            parquet, markdown = write_typing(args.out, segmenter, type_pairs(segmenter, pairs))
            print(markdown.read_text(encoding="utf-8"))
            print(f"{len(pairs)} pairs -> {parquet}")
        print(f"typed in {time.perf_counter() - start:.1f} s")
        return 0
    from noisecraft.errors import ConfigError
    from noisecraft.harness.coles import measure
    from noisecraft.harness.coles_report import write_coles_report
    from noisecraft.runtime.heads import load_head
    from noisecraft.runtime.labels import parse_label_map

    if not args.model and not args.classifier:
        raise ConfigError("give at least one --model (similarity) or --classifier (downstream)")

    def head(text: str) -> Any:
        request = ModelRequest.parse(text)
        return load_head(request.name, request.revision, args.device, args.dtype, token_budget=args.token_budget,
                         progress=True)

    label_map = parse_label_map(args.label_map) if args.label_map else None
    results = measure(pairs, [head(m) for m in args.model], [(head(c), label_map) for c in args.classifier])
    report = write_coles_report(args.out, args.dataset, results)
    print(report.read_text(encoding="utf-8"))
    print(f"measured {len(results)} model(s) on {len(pairs)} pairs in {time.perf_counter() - start:.1f} s; report: {report}")
    return 0
