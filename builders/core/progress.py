"""Progress of the libraries a command drives: the bars of huggingface_hub, transformers and datasets, which
``--no-progress`` hides as it hides the package's own (``tqdm.auto`` bars with ``disable=``)."""

from __future__ import annotations

import os
import sys


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
