"""Noise models by registry name, built from the options a user gives on the command line."""

from __future__ import annotations

from builders.errors import ConfigError
from builders.noise.base import NoiseModel
from builders.noise.destructive import CopySort, ReverseWords, ShuffleWords, SortWords
from builders.noise.keyboard import KeyboardTypos
from builders.noise.keyboard_layouts import layout_for_language
from builders.noise.typos import SwapTypos

NOISE_MODELS: dict[str, type[NoiseModel]] = {
    model.name: model for model in (KeyboardTypos, SwapTypos, SortWords, ReverseWords, ShuffleWords, CopySort)
}


def create(
    name: str,
    *,
    lang: str = "en",
    rate: float = 0.25,
    layout: str | None = None,
    mode: str = "noiseqa",
) -> NoiseModel:
    """Instantiate a noise model; ``name`` may carry a version (``keyboard@1``), which must exist."""
    base, _, version = name.partition("@")
    model = NOISE_MODELS.get(base)
    if model is None:
        raise ConfigError(f"unknown noise {name!r}; available: {', '.join(sorted(NOISE_MODELS))}")
    if version and version != str(model.version):
        raise ConfigError(f"{base}@{version} is not available; this noisecraft provides {base}@{model.version}")
    if model is KeyboardTypos:
        return KeyboardTypos(rate=rate, layout=layout or layout_for_language(lang).name, mode=mode)  # type: ignore[arg-type]
    if model is SwapTypos:
        return SwapTypos(rate=rate)
    return model()
