"""``noisecraft mine MINER``: the subcommand of every miner in :data:`~noisecraft.mining.registry.MINERS`.

Each miner declares its help and its own options in the registry; this module adds what every miner shares (inputs,
``--lang``, the output folder and naming, the engine of miners that map files, the encoding of text inputs) and turns
the parsed arguments into one :func:`~noisecraft.mining.registry.mine` call.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from noisecraft.building.executors import NUM_PROC_DEFAULT, add_engine_options, num_proc_of
from noisecraft.mining.registry import MINERS, Miner, mine
from noisecraft.version import DEFAULT_DATASET_VERSION


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """The ``mine`` subcommand with one sub-subcommand per miner (a miner that fits a model writes a model folder,
    not a dataset config, so it takes no naming options)."""
    parser = commands.add_parser(
        "mine", help="mine natural-noise dictionaries from real corpora (Wikipedia history, tweets, misspelling lists, GEC M2)",
        description="Turn real corpora into natural-noise dictionaries (correct -> noisy forms with counts and "
                    "probabilities), written as a Hub dataset repo on disk with a card.",
    )
    miners = parser.add_subparsers(dest="miner", required=True, metavar="MINER")
    for miner in MINERS.values():
        _add_miner(miners, miner)
    return parser


def _add_miner(miners: Any, miner: Miner) -> None:
    parser = miners.add_parser(miner.name, help=miner.help, description=miner.description)
    metavar, help_text = miner.inputs
    parser.add_argument("inputs", nargs="+", type=Path, metavar=metavar, help=help_text)
    if miner.lang is None:
        parser.add_argument("--lang", required=True, help="language of the inputs (sentence splitting, tokenisation)")
    else:
        parser.add_argument("--lang", default=miner.lang, help="language of the inputs (default: %(default)s)")
    if miner.add_options is not None:
        miner.add_options(parser)
    if miner.writes == "model":
        parser.add_argument("--out", type=Path, required=True, help="model folder (the model file and its README.md)")
        parser.add_argument("--overwrite", action="store_true", help="replace a model already in --out")
    else:
        parser.add_argument("--out", type=Path, required=True, help="output folder (a Hub dataset repo on disk)")
        parser.add_argument("--config-name", help="config name (default: <miner>-<lang>)")
        parser.add_argument("--dataset-version", default=DEFAULT_DATASET_VERSION,
                            help="version of the dataset in --out (default: %(default)s)")
        parser.add_argument("--name", help="pretty name of the dataset for its card")
        parser.add_argument("--overwrite", action="store_true", help="replace a config of the same name mined differently")
    if miner.encoding:
        parser.add_argument("--encoding", default="auto",
                            help="input encoding: auto (UTF-8; lines that are not UTF-8 are read as latin-1 and "
                                 "reported) or a codec such as latin-1 or cp1252 (default: %(default)s)")
    if miner.files_per_task:
        parser.add_argument("--num-proc", type=int, help=f"worker processes, one input file each {NUM_PROC_DEFAULT}")
        add_engine_options(parser)


def miner_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The parsed options of ``noisecraft mine MINER`` as the miner function's keyword arguments."""
    miner = MINERS[args.miner]
    kwargs = miner.kwargs(args) if miner.kwargs is not None else {}
    if miner.encoding:
        kwargs["encoding"] = args.encoding
    if miner.files_per_task:
        kwargs.update(num_proc=max(num_proc_of(args), 1), engine=args.engine, ray_address=args.ray_address)
    return kwargs


def run(args: argparse.Namespace) -> int:
    """Mine, write the dictionary config (or the model), and print what was found."""
    if MINERS[args.miner].writes == "model":
        fitted, path = mine(args.miner, args.inputs, args.out, lang=args.lang, overwrite=args.overwrite,
                            **miner_kwargs(args))
        print(fitted.summary())
        print(f"model: {path}\ncard: {args.out / 'README.md'}")
        return 0
    mined, path = mine(args.miner, args.inputs, args.out, lang=args.lang, config_name=args.config_name,
                       version=args.dataset_version, pretty_name=args.name, overwrite=args.overwrite,
                       **miner_kwargs(args))
    print(f"{len(mined.rows)} pairs -> {path}")
    for key, value in mined.stats.items():
        print(f"  {key}: {value}")
    print(f"card: {args.out / 'README.md'}")
    return 0
