"""Progress bars of the package: tqdm's, without tqdm's monitor thread.

tqdm starts a monitor thread (a watchdog that refreshes a bar whose updates slowed down) with the first bar a
process makes, **even a disabled one** (``disable=True``, as ``--no-progress`` and ``progress=False`` give), and a
disabled bar never stops it. A running thread makes forking unsafe, so every later worker pool in that process
(:mod:`noisecraft.building.workers`: the next build in a notebook, the second ``mine_dumps`` of a script) was spawned
instead of forked: each worker importing the package again, hundreds of MB and about a second each. Our bars are
updated once per batch, file or page, so they do without the watchdog; a user's own tqdm bars keep theirs.
"""

from __future__ import annotations

import os
import sys
from functools import cache
from typing import Any


@cache
def _bar_class() -> type:
    from tqdm.auto import tqdm

    class ProgressBar(tqdm):  # type: ignore[misc,valid-type]
        """``tqdm.auto.tqdm`` that starts no monitor thread."""

        monitor_interval = 0

    return ProgressBar


def progress_bar(*args: Any, **kwargs: Any) -> Any:
    """A ``tqdm.auto.tqdm`` bar (same arguments) that starts no thread, enabled or not."""
    return _bar_class()(*args, **kwargs)


def disable_library_bars() -> None:
    """Hide the bars of the libraries a command drives (``--no-progress``): huggingface_hub's downloads,
    transformers' ("Loading weights", "Writing model shards") and datasets'. Through their environment switches,
    which they read when imported, so a command that never imports them pays no import; a library already imported
    is told directly."""
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"  # transformers starts with hub bars' state
    os.environ["HF_DATASETS_DISABLE_PROGRESS_BARS"] = "1"
    if "datasets" in sys.modules:
        sys.modules["datasets"].disable_progress_bars()
    if "transformers" in sys.modules:
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
