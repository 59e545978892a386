"""Tiny randomly initialised models, saved with ``save_pretrained`` (or the engine's own format) to a
folder, so that tests load them through the real ``from_pretrained(path)`` code path.

Each builder is registered under a name; :func:`tiny_model` builds it once per test session into a
shared folder. Golden files name a model as ``"tiny:<name>"`` in their parameters. Builders seed
torch inside ``torch.random.fork_rng()``, so the process's global generator is left as it was, and
the weights are the same on every run.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

BUILDERS: dict[str, Callable[[Path], None]] = {}
_ROOT = Path(tempfile.mkdtemp(prefix="noisecraft-tiny-models-"))


def builder(name: str) -> Callable[[Callable[[Path], None]], Callable[[Path], None]]:
    """Register ``fn(folder)`` as the builder of tiny model ``name``."""

    def register(fn: Callable[[Path], None]) -> Callable[[Path], None]:
        BUILDERS[name] = fn
        return fn

    return register


def tiny_model(name: str) -> Path:
    """The folder of tiny model ``name``, built on first use in this session."""
    folder = _ROOT / name
    if not folder.exists():
        partial = _ROOT / f"{name}.partial"
        partial.mkdir(parents=True, exist_ok=True)
        BUILDERS[name](partial)
        partial.rename(folder)
    return folder


def resolve_tiny(value: object) -> object:
    """``"tiny:<name>"`` -> the model's folder (as a string); anything else unchanged."""
    if isinstance(value, str) and value.startswith("tiny:"):
        return str(tiny_model(value.removeprefix("tiny:")))
    return value


# --- sentences to train tokenizers on ------------------------------------------------------------

CORPUS_EN = [
    "When did Beyonce start becoming popular?", "What is the capital city of France?",
    "Who wrote the novel Pride and Prejudice?", "How many people live in the city?",
    "Which river flows through the capital?", "What year did the war end?",
    "Where was the first university founded?", "Why did the company change its name?",
]
CORPUS_DE = [
    "Wann wurde Beyonce bekannt?", "Was ist die Hauptstadt von Frankreich?",
    "Wer schrieb den Roman Stolz und Vorurteil?", "Wie viele Menschen leben in der Stadt?",
    "Welcher Fluss fließt durch die Hauptstadt?", "In welchem Jahr endete der Krieg?",
    "Wo wurde die erste Universität gegründet?", "Warum hat die Firma ihren Namen geändert?",
]
