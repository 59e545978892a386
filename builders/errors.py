"""Errors that reach the user: each names the file, the row/line and what is wrong."""

from __future__ import annotations

from pathlib import Path


class NoisecraftError(Exception):
    """Base class for errors the CLI reports as a one-line message (no traceback)."""


class InputError(NoisecraftError):
    """Bad input data: names the file, the row or line, and the problem."""

    def __init__(self, path: str | Path, problem: str, row: str | int | None = None) -> None:
        self.path = str(path)
        self.row = row
        self.problem = problem
        where = f"{self.path}" if row is None else f"{self.path}, {row}"
        super().__init__(f"{where}: {problem}")


class ConfigError(NoisecraftError):
    """A request that cannot be honoured (unknown layout, unsupported language, clash in the output repo)."""
