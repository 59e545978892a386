"""Where a model runs and in which precision.

``auto`` picks cuda, then mps, then cpu. On a GPU the default precision is bfloat16 where the device
supports it (float16 otherwise, and on mps); on CPU it is float32, the only precision whose results
a CPU and a test can reproduce. Precision changes outputs, so it is part of every cache key and of
the provenance a card records; the device is recorded too.

A placement is resolved for the machine the model will run on, described by an :class:`Accelerator` (what torch
sees there). That is this process's torch, except where model work runs elsewhere: a Ray build resolves against its
model actors (the executor probes one, :func:`models_run_on`), and its tasks and actors get that description in
:data:`ACCELERATOR_VARIABLE`, so every process of the build keys the cache on the placement the actors compute with.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from noisecraft.errors import ConfigError
from noisecraft.extras import require

DEVICES = ("auto", "cuda", "mps", "cpu")
DTYPES = ("auto", "float32", "bfloat16", "float16")
#: The :class:`Accelerator` (JSON) a process resolves placements against instead of its own torch: set by the
#: Ray engine for its tasks and model actors, so they resolve as the driver did, for the actors' hardware.
ACCELERATOR_VARIABLE = "NOISECRAFT_MODEL_ACCELERATOR"


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


@dataclass(frozen=True)
class Accelerator:
    """What torch sees on the machine a model runs on: all that resolving a placement reads."""

    cuda: bool = False
    #: Whether the (first) CUDA GPU computes in bfloat16.
    bf16: bool = False
    mps: bool = False
    torch: str = ""

    def describe(self) -> str:
        """A few words for an error: ``cuda (bf16)``, ``mps``, ``cpu only``, with torch's version."""
        kind = "cuda (bf16)" if self.cuda and self.bf16 else "cuda (no bf16)" if self.cuda else "mps" if self.mps \
            else "cpu only"
        return f"{kind}, torch {self.torch or 'not installed'}"

    def to_text(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_text(cls, text: str) -> Accelerator:
        try:
            return cls(**json.loads(text))
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"{ACCELERATOR_VARIABLE}={text!r} is not an accelerator description: {exc}") from None


@cache
def local_accelerator() -> Accelerator:
    """What this process's torch sees (read once; a process without torch sees a CPU only)."""
    try:
        import torch
    except ImportError:
        return Accelerator()
    mps = getattr(torch.backends, "mps", None)
    cuda = torch.cuda.is_available()
    return Accelerator(cuda, bool(cuda and torch.cuda.is_bf16_supported()), bool(mps and mps.is_available()),
                       torch.__version__)


#: The accelerator of the machines models run on when that is not this process (a Ray build's driver), read lazily,
#: and a name for that scope (see :func:`placement_scope`).
_REMOTE: ContextVar[tuple[Callable[[], Accelerator], str] | None] = ContextVar("noisecraft_model_accelerator",
                                                                               default=None)


@contextmanager
def models_run_on(accelerator: Callable[[], Accelerator], scope: str) -> Iterator[None]:
    """Within the block, placements resolve for ``accelerator()`` (called when a model first needs it); ``scope``
    names those machines (one executor's actors), so runtimes loaded for them are kept apart."""
    token = _REMOTE.set((accelerator, scope))
    try:
        yield
    finally:
        _REMOTE.reset(token)


def placement_scope() -> str:
    """Which machines placements resolve for now, without probing them: ``""`` for this process's torch, else the
    scope of :func:`models_run_on` or the accelerator :data:`ACCELERATOR_VARIABLE` names. A model's runtime (which
    holds its placement) is kept per scope, so a spec loaded before a Ray build is loaded again for its actors."""
    remote = _REMOTE.get()
    if remote is not None:
        return remote[1]
    return os.environ.get(ACCELERATOR_VARIABLE, "")


def model_accelerator() -> tuple[Accelerator, str]:
    """The accelerator placements resolve against, and where it is (for errors): a remote one set by
    :func:`models_run_on`, else the one :data:`ACCELERATOR_VARIABLE` names, else this process's."""
    remote = _REMOTE.get()
    if remote is not None:
        return remote[0](), "the cluster's model actors"
    text = os.environ.get(ACCELERATOR_VARIABLE)
    if text:
        return Accelerator.from_text(text), "the cluster's model actors"
    return local_accelerator(), "this machine"


def resolve_placement(device: str, dtype: str, accelerator: Accelerator, where: str = "this machine") -> Placement:
    """``device`` and ``dtype`` (each ``auto`` or explicit) for ``accelerator``; one it lacks is a one-line error."""
    kind = device.split(":")[0]
    if kind not in DEVICES:
        raise ConfigError(f"unknown device {device!r}; use one of {', '.join(DEVICES)} (cuda:N for one GPU)")
    if dtype not in DTYPES:
        raise ConfigError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}")
    if kind == "auto":
        device = "cuda" if accelerator.cuda else "mps" if accelerator.mps else "cpu"
    elif kind == "cuda" and not accelerator.cuda:
        raise ConfigError(f"device {device!r} was asked for, but torch on {where} sees no CUDA GPU "
                          f"({accelerator.describe()})")
    elif kind == "mps" and not accelerator.mps:
        raise ConfigError(f"device 'mps' was asked for, but torch on {where} cannot use it ({accelerator.describe()})")
    if dtype == "auto":
        if device.startswith("cuda"):
            dtype = "bfloat16" if accelerator.bf16 else "float16"
        elif device == "mps":
            dtype = "float16"
        else:
            dtype = "float32"
    elif dtype == "bfloat16" and device.startswith("cuda") and not accelerator.bf16:
        raise ConfigError(f"dtype 'bfloat16' was asked for, but the GPU on {where} does not support it "
                          f"({accelerator.describe()}); use float16 or auto")
    return Placement(device, dtype)


def pick_placement(device: str = "auto", dtype: str = "auto", extra: str = "mt") -> Placement:
    """Resolve ``device`` and ``dtype`` for the machine the model runs on (see :func:`model_accelerator`)."""
    require("torch", extra)
    return resolve_placement(device, dtype, *model_accelerator())


def check_actor_accelerator() -> None:
    """On a model actor: refuse to compute when this process's torch differs from the accelerator the build resolved
    its placements for (:data:`ACCELERATOR_VARIABLE`): outputs are keyed by those placements, so an actor never falls
    back to another device or precision."""
    text = os.environ.get(ACCELERATOR_VARIABLE)
    if not text:
        return
    expected, here = Accelerator.from_text(text), local_accelerator()
    if (expected.cuda, expected.bf16, expected.mps) != (here.cuda, here.bf16, here.mps):
        raise ConfigError(f"a model actor on {os.uname().nodename} sees {here.describe()}, but the build resolved its "
                          f"models for {expected.describe()}: every model actor of a Ray build needs the same kind of "
                          "accelerator (or pass an explicit device=/dtype= every node has)")
