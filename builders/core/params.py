"""Declared parameters: a noise model's frozen dataclass *is* its parameter schema.

Each field is made with :func:`param` (default, help, choices or range, whether it names a file).
The CLI's ``--noise 'name(key=value, ...)'`` parser, validation, config names, the card's parameter
table and "regenerate" command, ``noisecraft noises`` and the Python API all read that schema, so a
model with six parameters declares them once, in its own module, and a parameter it does not take
is an error everywhere.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import typing
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from noisecraft.errors import ConfigError

#: How a file parameter enters the seed: by the digest of its content, never by its path.
FileKind = Literal["file", "source", "dictionary", "model"]


def param(default: Any, help: str, *, choices: tuple[Any, ...] | None = None, min: float | None = None,
          max: float | None = None, file: FileKind | None = None, init_only: bool = False) -> Any:
    """A declared parameter (use as a dataclass field default).

    ``file`` marks a parameter that names a file whose *content* shapes the output (``source``: a
    benchmark file in its original release format, read under a recipe's ``--data-dir`` like a
    group's ``data_file``, the Hub copy when empty; ``model``: a Hugging Face model id, or a saved
    model folder, which enters the seed by its content); ``init_only``
    marks a parameter that only selects another parameter's value (keyboard ``lang`` picks the
    layout) and is not part of the spec itself.
    """
    metadata = {"help": help, "choices": choices, "min": min, "max": max, "file": file, "init_only": init_only}
    return dataclasses.field(default=default, metadata=metadata)


@dataclass(frozen=True)
class ParamSpec:
    """One declared parameter of a noise model."""

    name: str
    type: Any
    default: Any
    help: str
    choices: tuple[Any, ...] | None
    min: float | None
    max: float | None
    file: FileKind | None
    init_only: bool

    @property
    def base_type(self) -> type:
        """``float``, ``int``, ``bool`` or ``str`` (``X | None`` and ``Literal[...]`` unwrapped)."""
        args = [a for a in get_args(self.type) if a is not type(None)]
        if get_origin(self.type) is Literal:
            return type(get_args(self.type)[0])
        if args:
            return args[0]
        return self.type

    @property
    def optional(self) -> bool:
        return type(None) in get_args(self.type)

    def type_text(self) -> str:
        """Human-readable type for ``noisecraft noises``."""
        if self.choices:
            return "|".join(map(str, self.choices))
        name = self.base_type.__name__
        if self.min is not None or self.max is not None:
            name += f" in [{self.min if self.min is not None else '-inf'}, {self.max if self.max is not None else 'inf'}]"
        return name + (" or none" if self.optional else "")

    def coerce(self, value: Any, model: str) -> Any:
        """``value`` as this parameter's type, checked against its choices and range."""
        where = f"{model}: parameter {self.name!r}"
        if value is None:
            if self.optional:
                return None
            raise ConfigError(f"{where} needs a value")
        kind = self.base_type
        if isinstance(value, str) and kind is not str:
            value = _from_text(value, kind, where)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            raise ConfigError(f"{where} must be {kind.__name__}, got {value!r}")
        if kind is float and not math.isfinite(value):
            raise ConfigError(f"{where} must be a finite number, got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise ConfigError(f"{where} must be one of {', '.join(map(str, self.choices))}, got {value!r}")
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            raise ConfigError(f"{where} must be between {self.min} and {self.max}, got {value!r}")
        return value


def _from_text(text: str, kind: type, where: str) -> Any:
    """Parse a value given as text (the CLI's ``key=value``) into ``kind``."""
    try:
        if kind is bool:
            lowered = text.strip().lower()
            if lowered in ("true", "yes", "1", "on"):
                return True
            if lowered in ("false", "no", "0", "off"):
                return False
            raise ValueError(text)
        return kind(text.strip())
    except ValueError as exc:
        raise ConfigError(f"{where} must be {kind.__name__}, got {text!r}") from exc


@cache
def schema(cls: type) -> tuple[ParamSpec, ...]:
    """The declared parameters of a noise model class, in declaration order (private fields excluded)."""
    hints = typing.get_type_hints(cls)
    specs = []
    for f in dataclasses.fields(cls):
        if f.name.startswith("_"):
            continue
        if "help" not in f.metadata:
            raise TypeError(f"{cls.__name__}.{f.name} is not declared with noisecraft.core.params.param()")
        m = f.metadata
        specs.append(ParamSpec(f.name, hints[f.name], f.default, m["help"], m["choices"], m["min"], m["max"],
                               m["file"], m["init_only"]))
    return tuple(specs)


def file_digest(path: str | Path) -> str:
    """blake2b digest of a file's bytes: how a file that shapes output enters the seed."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return hashlib.blake2b(data, digest_size=8).hexdigest()
