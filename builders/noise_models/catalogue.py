"""Which noise models exist and what they take, without importing them.

``noisecraft --help``, ``build --help`` and ``noisecraft noises`` run on every start: importing thirty
models (and NLTK, the grammar machinery, the model runtime behind them) to print their names took
0.40 s of CPU. :data:`MODELS` says where each class lives, and ``catalogue.json`` (package data) holds
the text ``noisecraft noises`` prints: summary, capabilities and declared parameters. The file is derived
from the classes by ``python -m noisecraft.noise_models.catalogue``; a test checks it still matches them.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any

#: Every buildable ``(name, version)`` -> (module of :mod:`noisecraft.noise_models`, class name).
#: An old version stays here when a new one is added.
MODELS: dict[tuple[str, int], tuple[str, str]] = {
    ("keyboard", 1): ("keyboard", "KeyboardTypos"),
    ("keyboard", 2): ("keyboard", "KeyboardTyposV2"),
    ("swap", 1): ("typos", "SwapTypos"),
    ("swap", 2): ("typos", "SwapTyposV2"),
    ("wikiedit", 1): ("natural", "WikiEditNoise"),
    ("wikiedit", 2): ("natural", "WikiEditNoiseV2"),
    ("misspelling", 1): ("natural", "MisspellingNoise"),
    ("reduplication", 1): ("natural", "ReduplicationNoise"),
    ("reduplication", 2): ("natural", "ReduplicationNoiseV2"),
    ("sort", 1): ("destructive", "SortWords"),
    ("sort", 2): ("destructive", "SortWordsV2"),
    ("reverse", 1): ("destructive", "ReverseWords"),
    ("reverse", 2): ("destructive", "ReverseWordsV2"),
    ("shuffle", 1): ("destructive", "ShuffleWords"),
    ("shuffle", 2): ("destructive", "ShuffleWordsV2"),
    ("copysort", 1): ("destructive", "CopySort"),
    ("copysort", 2): ("destructive", "CopySortV2"),
    ("translation", 1): ("translation", "RoundTripTranslation"),
    ("natural-translation", 1): ("translation", "NaturalTranslation"),
    ("asr", 1): ("speech", "SpeechInterfaceNoise"),
    ("drop-punctuation", 1): ("interface_artefacts", "DropPunctuation"),
    ("drop-question-mark", 1): ("interface_artefacts", "DropQuestionMark"),
    ("drop-function-words", 1): ("interface_artefacts", "DropFunctionWords"),
    ("drop-content-words", 1): ("interface_artefacts", "DropContentWords"),
    ("lowercase-start", 1): ("interface_artefacts", "LowercaseStart"),
    ("replace-entity", 1): ("interface_artefacts", "ReplaceEntity"),
    ("grammar", 1): ("grammar", "GrammarErrors"),
    ("grammar", 2): ("grammar", "GrammarErrorsV2"),
    ("grammar-attack", 1): ("grammar_attack", "GrammarAttack"),
    ("drop", 1): ("word_salad_importance", "DropWords"),
    ("drop", 2): ("word_salad_importance", "DropWordsV2"),
    ("repeat", 1): ("word_salad_importance", "RepeatWords"),
    ("repeat", 2): ("word_salad_importance", "RepeatWordsV2"),
    ("replace", 1): ("word_salad_importance", "ReplaceWords"),
    ("replace", 2): ("word_salad_importance", "ReplaceWordsV2"),
    ("copyone", 1): ("word_salad_importance", "CopyOne"),
    ("copyone", 2): ("word_salad_importance", "CopyOneV2"),
    ("pbsmt", 1): ("word_salad_pbsmt", "WordSaladPBSMT"),
    ("pbsmt", 2): ("word_salad_pbsmt", "WordSaladPBSMTV2"),
    ("typing", 1): ("typing", "TypingNoise"),
}
#: The newest version of each model, by name.
LATEST: dict[str, int] = {name: max(v for n, v in MODELS if n == name) for name, _ in sorted(MODELS)}

CATALOGUE = Path(__file__).with_name("catalogue.json")
#: The entry-point group in which an installed package declares its noise models, so that the CLI, recipes and
#: ``nc.noise`` know them by name: ``[project.entry-points."noisecraft.noise_models"]`` (see
#: :func:`noisecraft.noise_models.registry.load_plugins`).
PLUGIN_GROUP = "noisecraft.noise_models"


@cache
def plugin_points() -> tuple[EntryPoint, ...]:
    """The entry points installed noise model plugins declare (read once per process: ``noisecraft noises`` and
    :func:`~noisecraft.noise_models.registry.load_plugins` both ask); reading them imports no plugin."""
    return tuple(entry_points(group=PLUGIN_GROUP))


def describe(cls: Any) -> dict[str, Any]:
    """What ``noisecraft noises`` prints of one model class (its catalogue entry)."""
    caps = cls.capabilities
    return {
        "summary": cls.headline(),
        "input": caps.input, "edit_log": caps.edit_log, "protects_spans": caps.protects_spans,
        "deterministic": caps.deterministic,
        "params": [{"name": s.name, "type": s.type_text(), "default": repr(s.default), "help": s.help}
                   for s in cls.param_specs()],
    }


@cache
def entries() -> dict[str, dict[str, Any]]:
    """The catalogue: ``name@version`` -> :func:`describe` of its class, read from the package data."""
    return json.loads(CATALOGUE.read_text(encoding="utf-8"))


def generate() -> dict[str, dict[str, Any]]:
    """The catalogue computed from the classes themselves (imports every model)."""
    import importlib

    return {f"{name}@{version}": describe(getattr(importlib.import_module(f"noisecraft.noise_models.{module}"), cls))
            for (name, version), (module, cls) in sorted(MODELS.items())}


if __name__ == "__main__":
    CATALOGUE.write_text(json.dumps(generate(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {CATALOGUE}")
