"""Miners by name, as ``noisecraft mine NAME`` and Python reach them: one interface, one dispatch.

A :class:`Miner` turns input files of one language into a :class:`~noisecraft.mining.output.MinedDictionary`;
:func:`mine` runs it and writes the dictionary config into a Hub repo folder. A miner that ``writes="model"``
(``typing``) returns a fitted model instead, which writes itself (its file and card) into the folder. The
checkpoint policy lives here, not in the CLI: a resumable miner (Wikipedia dumps take hours) keeps one result
per finished input file under ``OUT/.checkpoints/<config>/``, so an interrupted run resumes with what it had
finished, and the folder is removed once the dictionary is written. Miner modules are imported when a miner runs, so the
CLI can list miners without loading them.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noisecraft.dataset.repo import check_name
from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.version import DEFAULT_DATASET_VERSION

if TYPE_CHECKING:
    from noisecraft.mining.output import MinedDictionary


def _wikiedits_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--namespaces", type=int, nargs="+", default=[0],
                        help="page namespaces to mine (default: 0, articles)")
    parser.add_argument("--keep-going", action="store_true",
                        help="skip dump files that are not readable MediaWiki dumps (not XML, other XML, tar, unreadable, "
                             "missing) instead of stopping; the card lists them under skipped_files")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _wikiedits_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"progress": not args.no_progress, "namespaces": tuple(args.namespaces), "keep_going": args.keep_going}


def _misspellings_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--layout", default="qwerty", help="layout for adjacent-key errors (default: %(default)s)")
    parser.add_argument("--keyboard-only", action="store_true", help="NoiseQA's filter: keep only errors a keyboard produces")
    parser.add_argument("--no-phonetic-filter", action="store_true",
                        help="keep sound-alike pairs even when a G2P package (epitran) is installed")


def _misspellings_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"layout": args.layout, "keyboard_only": args.keyboard_only, "phonetic_filter": not args.no_phonetic_filter}


def _reduplication_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lexicon", nargs="+", type=Path, required=True, metavar="WORDS",
                        help="word lists (one word a line; ';' comments as in the Hu & Liu opinion lexicon)")


def _gec_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict", action="store_true",
                        help="stop at the first bad annotation (malformed, offsets outside the sentence, unknown tag) "
                             "instead of skipping and counting it")


def _typing_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--layout", help="keyboard layout the text was typed on (default: the language's native layout)")
    parser.add_argument("--min-similarity", type=float, default=0.5,
                        help="pairs less similar (normalised Levenshtein) are different texts, skipped (default: %(default)s)")
    parser.add_argument("--description", help="what the data is, for the model file and its card (default: the inputs)")


def _typing_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {"layout": args.layout, "min_similarity": args.min_similarity, "description": args.description}


@dataclass(frozen=True)
class Miner:
    """A miner: ``function(inputs, lang, **options)`` (plus ``checkpoints=`` when ``resumable``) in ``module``, with
    what ``noisecraft mine NAME`` shows and accepts: its help, the metavar of its inputs, its own options and how they
    become the function's keyword arguments. Every miner also gets ``--lang``, ``--out`` and the naming options
    (:mod:`noisecraft.mining.command`); ``files_per_task`` miners get ``--num-proc`` and the engine options, and
    miners of text files ``--encoding``."""

    name: str
    module: str
    function: str
    help: str
    description: str
    inputs: tuple[str, str]
    #: ``--lang``'s default (``None``: required).
    lang: str | None = "en"
    #: Keeps one result per finished input file under a checkpoint folder, and resumes from it.
    resumable: bool = False
    #: Maps its input files over the engine's workers, one file a task (``--num-proc``, ``--engine``).
    files_per_task: bool = False
    #: Reads text files whose encoding ``--encoding`` decides (dumps carry their own).
    encoding: bool = True
    #: Import that must be installed, and the extra that installs it.
    needs: tuple[str, str] | None = None
    #: ``dictionary`` (a Hub repo config, by :func:`~noisecraft.mining.output.write_dictionary`) or ``model``
    #: (a result with ``write(out, overwrite)``, such as :class:`~noisecraft.mining.typing.FittedTyping`).
    writes: str = "dictionary"
    add_options: Callable[[argparse.ArgumentParser], None] | None = None
    kwargs: Callable[[argparse.Namespace], dict[str, Any]] | None = None

    def load(self) -> Callable[..., MinedDictionary]:
        if self.needs:
            require(*self.needs)
        return getattr(importlib.import_module(f"noisecraft.mining.{self.module}"), self.function)


MINERS: dict[str, Miner] = {miner.name: miner for miner in (
    Miner("wikiedits", "wikiedits", "mine_wikiedits",
          help="word pairs from consecutive revisions of MediaWiki history dumps",
          description="Mine (noisy -> correct) word pairs from consecutive revisions in MediaWiki XML exports or "
                      "pages-meta-history dumps (plain, .gz, .bz2, .7z), streamed; one checkpoint per finished file.",
          inputs=("DUMP", "MediaWiki XML export/dump files"), lang=None, resumable=True, files_per_task=True, encoding=False,
          add_options=_wikiedits_options, kwargs=_wikiedits_kwargs),
    Miner("misspellings", "misspellings", "misspelling_dictionary",
          help="classified pairs from misspelling lists (Wikipedia 'For machines', Birkbeck, Belinkov & Bisk)",
          description="Read misspelling lists, count (correct, misspelling) pairs across files and classify each by "
                      "edit type (insertion, deletion, transposition, adjacent-key substitution on --layout, "
                      "substitution, other).",
          inputs=("LIST", "misspelling list files"), add_options=_misspellings_options, kwargs=_misspellings_kwargs),
    Miner("reduplication", "reduplication", "reduplication_dictionary",
          help="emphatic letter reduplications (baaaad) in Sentiment140-format tweets, mapped to a lexicon",
          description="Find emphatic letter reduplications in Sentiment140-format tweet CSVs (6 quoted columns, "
                      "latin-1 or UTF-8) and map each to its canonical lexicon word, with counts, extra letters and "
                      "which letters were repeated.",
          inputs=("TWEETS.csv", "Sentiment140-format CSV files"), files_per_task=True, needs=("polars", "mining"),
          add_options=_reduplication_options, kwargs=lambda args: {"lexicon_files": args.lexicon}),
    Miner("gec", "gec", "gec_dictionary",
          help="learner error types and confusion sets from GEC corpora in M2 format (CoNLL-2013/2014, BEA-2019)",
          description="Read M2 files (NUCLE or ERRANT tags, several annotators), map the tags onto the eight learner "
                      "error types of Yin et al. (2020), and estimate the error-type distribution and the confusion "
                      "weights of articles, prepositions and linking words from minimal edits.",
          inputs=("M2FILE", "M2 files"), add_options=_gec_options, kwargs=lambda args: {"strict": args.strict}),
    Miner("typing", "typing", "mine_typing",
          help="a typing model (which words people hit, and how) from parallel clean/noisy text, M2 or word lists",
          description="Fit a typing model for --noise 'typing(model=OUT)' from parallel text (TSV clean<TAB>noisy, "
                      "JSONL with clean/noisy, or SQuAD-format JSON files given in pairs, clean then noisy, paired by "
                      "question id), GEC M2 files (their spelling and orthography edits) or misspelling lists "
                      "(per-word statistics only). Pairs that are different texts are skipped and counted.",
          inputs=("INPUT", "parallel text, M2 files, misspelling lists"), writes="model",
          add_options=_typing_options, kwargs=_typing_kwargs),
)}


def checkpoint_folder(out: Path, config_name: str) -> Path:
    """Where a resumable miner keeps its per-file results for ``config_name`` (one folder per config)."""
    return out / ".checkpoints" / config_name


def mine(name: str, inputs: Sequence[Path], out: str | Path, *, lang: str, config_name: str | None = None,
         version: str = DEFAULT_DATASET_VERSION, pretty_name: str | None = None, overwrite: bool = False,
         **options: Any) -> tuple[Any, Path]:
    """Run miner ``name`` on ``inputs`` and write its dictionary into ``out``; returns it and its parquet path
    (a model miner: the fitted model and its file). ``options`` are the miner's own (e.g. ``layout=`` for
    misspellings, ``lexicon_files=`` for reduplication)."""
    from noisecraft.mining.output import write_dictionary

    if name not in MINERS:
        raise ConfigError(f"unknown miner {name!r}; available: {', '.join(MINERS)}")
    if config_name is not None:  # before anything is created (a resumable miner's checkpoints live under the name)
        check_name("config", config_name)
    miner, out = MINERS[name], Path(out)
    function = miner.load()
    checkpoints = checkpoint_folder(out, config_name or f"{name}-{lang}") if miner.resumable else None
    if checkpoints is not None:
        options["checkpoints"] = checkpoints
    mined = function(list(inputs), lang=lang, **options)
    if miner.writes == "model":
        return mined, mined.write(out, overwrite=overwrite)
    path = write_dictionary(out, mined, config_name=config_name, version=version, pretty_name=pretty_name,
                            overwrite=overwrite)
    if checkpoints is not None:  # the dictionary is written: the per-file results are no longer needed
        shutil.rmtree(checkpoints, ignore_errors=True)
        if not any(checkpoints.parent.iterdir()):
            checkpoints.parent.rmdir()
    return mined, path
