"""Miners by name, as ``noisecraft mine NAME`` and Python reach them: one interface, one dispatch.

A :class:`Miner` turns input files of one language into a :class:`~noisecraft.mining.output.MinedDictionary`;
:func:`mine` runs it and writes the dictionary config into a Hub repo folder. A miner that ``writes="model"``
(``typing``) returns a fitted model instead, which writes itself (its file and card) into the folder. The checkpoint policy lives
here, not in the CLI: a resumable miner (Wikipedia dumps take hours) keeps one result per finished input file
under ``OUT/.checkpoints/<config>/``, so an interrupted run resumes with what it had finished, and the
folder is removed once the dictionary is written. Miner modules are imported when a miner runs, so the
CLI can list miners without loading them.
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class Miner:
    """A miner: ``function(inputs, lang, **options)`` (plus ``checkpoints=`` when ``resumable``) in ``module``."""

    name: str
    module: str
    function: str
    #: Keeps one result per finished input file under a checkpoint folder, and resumes from it.
    resumable: bool = False
    #: Import that must be installed, and the extra that installs it.
    needs: tuple[str, str] | None = None
    #: ``dictionary`` (a Hub repo config, by :func:`~noisecraft.mining.output.write_dictionary`) or ``model``
    #: (a result with ``write(out, overwrite)``, such as :class:`~noisecraft.mining.typing.FittedTyping`).
    writes: str = "dictionary"

    def load(self) -> Callable[..., MinedDictionary]:
        if self.needs:
            require(*self.needs)
        return getattr(importlib.import_module(f"noisecraft.mining.{self.module}"), self.function)


MINERS: dict[str, Miner] = {miner.name: miner for miner in (
    Miner("wikiedits", "wikiedits", "mine_wikiedits", resumable=True),
    Miner("misspellings", "misspellings", "misspelling_dictionary"),
    Miner("reduplication", "reduplication", "reduplication_dictionary", needs=("polars", "mining")),
    Miner("gec", "gec", "gec_dictionary"),
    Miner("typing", "typing", "mine_typing", writes="model"),
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
