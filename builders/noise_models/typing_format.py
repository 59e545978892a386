"""The fitted typing model's file (``typing-model.json``): its vocabulary of edit kinds and bins, and its reader.

``noisecraft mine typing`` writes the file (:mod:`noisecraft.mining.typing`); ``typing@1``
(:mod:`noisecraft.noise_models.typing`) samples it. Both read the names and bins from here, so a
figure the miner counts is the figure the sampler draws from. The file holds counts, not probabilities:
a user sees how much data supports each figure, and the sampler turns them into rates.

Format (``format_version`` 1; every count is an integer):

* ``edit_mix``: edits by kind (:data:`WORD_KINDS` and :data:`TEXT_KINDS`);
* ``hit_by_length``: ``{length bucket: [words, words hit]}`` (buckets :data:`LENGTH_BUCKETS`);
* ``hit_by_position``: ``{first|middle|last: [words, words hit]}``, the word's place in its text;
* ``edits_per_hit_word``: ``{"1"|"2"|"3+": words}``;
* ``position_in_word``: ``{kind: [count per fifth of the word]}``;
* ``key_distance``: substitutions by the distance between the intended and the typed key (:data:`DISTANCE_BINS`);
* ``text_events``: ``{kind: [eligible, happened]}`` for the text-level kinds, and ``punctuation_added_chars``;
* ``dispersion``: the negative-binomial fit of per-text hit counts (``inverse_k``; 0 is no extra dispersion) and
  ``rate_multipliers``, equal-probability quantiles of the Gamma(k, 1/k) per-text factor the sampler draws from;
* ``counts`` and ``provenance``: texts, words, skipped pairs by reason; inputs with their sha256;
* ``description``: what the data is (the card opens with it).

The built-in model (:data:`BUILTIN_MODEL`) is fitted from the spelling and orthography edits of learner essays
(W&I+LOCNESS and CoNLL-2014 M2 files): learner writing, not typing. It was made with::

    noisecraft mine typing gec/wi+locness/m2/ABCN.dev.gold.bea19.m2 gec/wi+locness/m2/C.train.gold.bea19.m2 \
        gec/conll14st-test-data/noalt/official-2014.combined.m2 --description "..." --out DIR

(paths under the shared corpora) and ``DIR/typing-model.json`` copied here.

A model fitted from misspelling lists alone has no ``hit_by_length`` (every listed word is misspelt, so
no hit rate can be estimated): ``typing@1`` then needs ``word_rate=``.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from noisecraft.errors import ConfigError
from noisecraft.noise_models.keyboard_layouts import KeyboardLayout

FORMAT = "noisecraft-typing-model"
FORMAT_VERSION = 1
#: The model file inside a model folder.
MODEL_FILE = "typing-model.json"
#: The model shipped with the package (fitted from learner writing's spelling edits: see its card).
BUILTIN_MODEL = "typing-learner-en.json"

#: Edits that hit a word (they count towards the word's hit rate).
WORD_KINDS = ("deletion", "insertion-doubling", "insertion-neighbour", "insertion-other", "substitution-neighbour",
              "substitution-other", "transposition", "case", "whitespace-merge", "whitespace-split",
              "word-replacement")
#: Edits of the text around the words.
TEXT_KINDS = ("final-question-dropped", "punctuation-dropped", "punctuation-added", "whitespace-trim")
#: Word kinds the sampler cannot make from a word alone (counted, shown, never drawn).
UNSAMPLED_KINDS = ("word-replacement",)
LENGTH_BUCKETS = tuple(str(n) for n in range(1, 13)) + ("13+",)
POSITIONS = ("first", "middle", "last")
POSITION_BINS = 5
EDITS_PER_WORD = ("1", "2", "3+")
DISTANCE_BINS = ("1", "2", "3+", "off-layout")


def is_punctuation(char: str) -> bool:
    """Punctuation or symbol (Unicode categories P and S): what the punctuation kinds drop and add."""
    return unicodedata.category(char)[0] in "PS"


def length_bucket(length: int) -> str:
    """The :data:`LENGTH_BUCKETS` entry of a word of ``length`` characters."""
    return str(length) if length < 13 else "13+"


def position_bin(index: int, length: int) -> int:
    """Which fifth of a word of ``length`` characters ``index`` falls in (an insertion after the end: the last)."""
    return min(POSITION_BINS * index // max(length, 1), POSITION_BINS - 1)


def word_place(index: int, words: int) -> str:
    """``first``, ``middle`` or ``last`` word of a text of ``words`` words (a one-word text's word is ``first``)."""
    return "first" if index == 0 else "last" if index == words - 1 else "middle"


def key_positions(layout: KeyboardLayout) -> dict[str, tuple[int, float]]:
    """Row and x of every single-character key text, both layers, lower-case letters included for upper-case."""
    positions: dict[str, tuple[int, float]] = {}
    for key in layout.keys:
        for char in (key.base, key.shift):
            if len(char) == 1:
                positions.setdefault(char, (key.row, key.x))
    return positions


def distance_bin(intended: str, typed: str, positions: dict[str, tuple[int, float]]) -> str:
    """:data:`DISTANCE_BINS` entry of two keys: Chebyshev distance of their rows and x (1: neighbours)."""
    a, b = positions.get(intended) or positions.get(intended.lower()), positions.get(typed) or positions.get(typed.lower())
    if a is None or b is None:
        return "off-layout"
    distance = max(abs(a[0] - b[0]), abs(a[1] - b[1]))
    return "1" if distance <= 1 else "2" if distance <= 2 else "3+"


def model_path(value: str) -> Path:
    """The JSON file a ``model=`` value names: a folder's :data:`MODEL_FILE`, a file, or the built-in model."""
    if not value:
        return Path(str(resources.files("noisecraft.noise_models").joinpath(BUILTIN_MODEL)))
    path = Path(value).expanduser()
    return path / MODEL_FILE if path.is_dir() else path


@cache
def _read(path: str, stamp: tuple[int, int]) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read typing model {path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ConfigError(f"{path} is not a typing model (no \"format\": \"{FORMAT}\"); fit one with "
                          "`noisecraft mine typing INPUT --out DIR`")
    if data.get("format_version") != FORMAT_VERSION:
        raise ConfigError(f"{path}: typing model format {data.get('format_version')!r}; this noisecraft reads "
                          f"format {FORMAT_VERSION}")
    return data


def read_model(value: str) -> dict[str, Any]:
    """The model file a ``model=`` value names, checked (cached while the file is unchanged)."""
    path = model_path(value)
    if not path.is_file():
        raise ConfigError(f"typing model {value!r}: no {path.name} there (a folder written by `noisecraft mine typing`, "
                          "or its JSON file)")
    info = path.stat()
    return _read(str(path), (info.st_size, info.st_mtime_ns))
