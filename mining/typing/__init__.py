"""``noisecraft mine typing``: fit a typing model (how people's typed text differs from what they meant) from
parallel clean/noisy text, GEC M2 spelling edits or misspelling lists.

:mod:`.inputs` reads the inputs into pairs, :mod:`.classify` aligns and classifies each pair's edits, :mod:`.fit`
counts them into the model, :mod:`.card` writes its card. Pairs that are not the same text (normalised Levenshtein
similarity below ``min_similarity``, or an empty side) are skipped and counted by reason, never fitted.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rapidfuzz.distance import Levenshtein

from noisecraft.core.text_files import AUTO
from noisecraft.errors import ConfigError, InputError
from noisecraft.mining.typing.card import card, summary
from noisecraft.mining.typing.fit import count_pairs, model_counts
from noisecraft.mining.typing.inputs import FitInput, Pair, read_inputs
from noisecraft.noise_models.keyboard_layouts import layout_for_language, load_layout
from noisecraft.noise_models.typing_format import FORMAT, FORMAT_VERSION, MODEL_FILE, key_positions
from noisecraft.version import __version__

#: Pairs less similar than this (rapidfuzz's normalised Levenshtein similarity) are different texts, not noise.
MIN_SIMILARITY = 0.5


@dataclass(frozen=True)
class FittedTyping:
    """A fitted typing model: the content of ``typing-model.json`` (its ``description`` opens the card)."""

    model: dict[str, Any]

    def summary(self) -> str:
        """The table ``mine typing`` prints."""
        return summary(self.model)

    def write(self, out: str | Path, overwrite: bool = False) -> Path:
        """Write ``typing-model.json`` and ``README.md`` into ``out``; returns the model file."""
        out = Path(out)
        path = out / MODEL_FILE
        if path.exists() and not overwrite:
            raise ConfigError(f"{out} already holds a typing model: give --overwrite to replace it")
        out.mkdir(parents=True, exist_ok=True)
        staged = out / f".{MODEL_FILE}.tmp"
        staged.write_text(json.dumps(self.model, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        (out / "README.md").write_text(card(self.model), encoding="utf-8")
        shutil.move(staged, path)
        return path


def _usable(pairs: Sequence[Pair], skipped: Counter[str], min_similarity: float, words: bool) -> list[Pair]:
    """The pairs that are the same text (word), the others counted by reason."""
    kept = []
    for clean, noisy in pairs:
        if not clean.strip() or not noisy.strip():
            skipped["empty text"] += 1
        elif words and clean == noisy:
            skipped["listed word identical to its correction"] += 1
        elif Levenshtein.normalized_similarity(clean, noisy) < min_similarity:
            skipped[f"different texts (similarity below {min_similarity})"] += 1
        else:
            kept.append((clean, noisy))
    return kept


def _pairs(inputs: list[FitInput], min_similarity: float) -> tuple[list[Pair], list[Pair], Counter[str]]:
    skipped: Counter[str] = Counter()
    texts: list[Pair] = []
    words: list[Pair] = []
    for read in inputs:
        skipped.update(read.skipped)
        listed = read.kind == "list"
        (words if listed else texts).extend(_usable(read.pairs, skipped, min_similarity, listed))
    return texts, words, skipped


def mine_typing(paths: Sequence[Path], lang: str = "en", layout: str | None = None,
                min_similarity: float = MIN_SIMILARITY, encoding: str = AUTO,
                description: str | None = None) -> FittedTyping:
    """Fit a typing model from ``paths`` (see :mod:`.inputs` for what each may be) on ``layout`` (default: the
    native layout of ``lang``); ``description`` (what the data is) opens the card, else one naming the inputs.
    An input set with no usable edit is an :class:`InputError` naming it."""
    layout = layout or layout_for_language(lang).name
    positions = key_positions(load_layout(layout))
    inputs = read_inputs(paths, encoding)
    texts, words, skipped = _pairs(inputs, min_similarity)
    counts = count_pairs(texts, words, positions, lang)
    fitted = model_counts(counts)
    edits = sum(fitted["edit_mix"].values())
    names = ", ".join(str(p) for p in paths)
    if not edits:
        reasons = "; ".join(f"{reason}: {n}" for reason, n in skipped.items()) or "every pair is unchanged"
        raise InputError(names, f"no usable edit to fit a typing model from ({len(texts) + len(words)} pairs kept; "
                                f"{reasons})")
    words_seen = sum(w for w, _ in counts.hit_by_length.values())
    model = {
        "format": FORMAT, "format_version": FORMAT_VERSION, "lang": lang, "layout": layout,
        "provenance": {"toolkit_version": __version__, "min_similarity": min_similarity,
                       "inputs": [entry for read in inputs for entry in read.provenance()]},
        "counts": {"texts": len(counts.texts), "texts_changed": counts.texts_changed, "words": words_seen,
                   "words_hit": sum(h for _, h in counts.texts), "list_pairs": counts.list_pairs, "edits": edits,
                   "skipped": dict(sorted(skipped.items()))},
        **fitted,
    }
    kinds = sorted({read.kind for read in inputs})
    model["description"] = description or (f"A typing model fitted from {', '.join(kinds)} input: "
                                            f"{', '.join(Path(p).name for p in paths)}.")
    return FittedTyping(model)
