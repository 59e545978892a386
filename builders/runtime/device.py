"""Where a model runs and in which precision.

``auto`` picks cuda, then mps, then cpu. On a GPU the default precision is bfloat16 where the device
supports it (float16 otherwise, and on mps); on CPU it is float32, the only precision whose results
a CPU and a test can reproduce. Precision changes outputs, so it is part of every cache key and of
the provenance a card records; the device is recorded too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from noisecraft.errors import ConfigError
from noisecraft.extras import require

DEVICES = ("auto", "cuda", "mps", "cpu")
DTYPES = ("auto", "float32", "bfloat16", "float16")


@dataclass(frozen=True)
class Placement:
    """A resolved device (``cuda``, ``cuda:1``, ``mps``, ``cpu``) and precision (``float32``, ...)."""

    device: str
    dtype: str

    @property
    def torch_dtype(self) -> Any:
        """The ``torch.dtype`` of :attr:`dtype`."""
        import torch

        return getattr(torch, self.dtype)

    @property
    def kind(self) -> str:
        """``cuda``, ``mps`` or ``cpu`` (without the device index)."""
        return self.device.split(":")[0]


def pick_placement(device: str = "auto", dtype: str = "auto", extra: str = "mt") -> Placement:
    """Resolve ``device`` and ``dtype`` (each ``auto`` or explicit); an unavailable device is an error."""
    torch = require("torch", extra)
    kind = device.split(":")[0]
    if kind not in DEVICES:
        raise ConfigError(f"unknown device {device!r}; use one of {', '.join(DEVICES)} (cuda:N for one GPU)")
    if dtype not in DTYPES:
        raise ConfigError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}")
    mps = getattr(torch.backends, "mps", None)
    has_mps = bool(mps and mps.is_available())
    if kind == "auto":
        device = "cuda" if torch.cuda.is_available() else "mps" if has_mps else "cpu"
    elif kind == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"device {device!r} was asked for, but torch sees no CUDA GPU (torch {torch.__version__})")
    elif kind == "mps" and not has_mps:
        raise ConfigError("device 'mps' was asked for, but this torch build cannot use it")
    if dtype == "auto":
        if device.startswith("cuda"):
            dtype = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
        elif device == "mps":
            dtype = "float16"
        else:
            dtype = "float32"
    return Placement(device, dtype)
