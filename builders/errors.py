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

    def __reduce__(self) -> tuple[type, tuple[str, str, str | int | None]]:
        # rebuilt from its parts, so that it crosses process boundaries (multiprocessing pools)
        return type(self), (self.path, self.problem, self.row)


class ConfigError(NoisecraftError):
    """A request that cannot be honoured (unknown layout, unsupported language, clash in the output repo)."""
