"""What a build writes on stderr: in a terminal, a bar per config with its total and final count; under
``--no-progress``, nothing (the libraries' own bars included); at the exit of a model command, no
``nanobind: leaked ...`` lines (triton, which transformers imports, is a nanobind extension)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import noisecraft as nc

from conftest import corpus
from tiny_models import tiny_model


class Terminal(io.StringIO):
    """A stderr that says it is a terminal, as tqdm asks, and keeps what was drawn on it."""

    def isatty(self) -> bool:
        return True


def _mrpc_rows(tmp_path: Path, rows: int) -> Path:
    """The header and the first ``rows`` rows of MRPC dev, as a file read row by row (no ``len`` ahead)."""
    lines = corpus("glue/MRPC/dev.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "mrpc.tsv"
    path.write_text("".join(lines[: rows + 1]), encoding="utf-8")
    return path


def _last_draw(drawn: str, desc: str) -> str:
    """The last state of the bar named ``desc`` on a terminal (each redraw starts with a carriage return)."""
    states = [s for s in re.split(r"[\r\n]", drawn) if s.startswith(f"{desc}:")]
    assert states, drawn
    return states[-1]


@pytest.mark.parametrize("noise", ["keyboard", "drop(model=MODEL, r=0.5)"])
def test_bar_in_a_terminal_ends_on_the_row_count(noise: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    data = _mrpc_rows(tmp_path, 23)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    [built] = nc.build("glue/mrpc", noise.replace("MODEL", str(tiny_model("cls-mrpc"))), tmp_path / "out",
                       data_file=data, batch_size=10, progress=True)
    last = _last_draw(terminal.getvalue(), built.name)
    if "model" in noise:  # the model's first pass has read the file: the bar knows its total
        assert "23/23" in last and "100%" in last, last
    else:
        assert "23row" in last, last


def test_model_command_under_no_progress_writes_nothing_on_stderr(tmp_path: Path) -> None:
    data = _mrpc_rows(tmp_path, 12)
    model = tiny_model("cls-mrpc")
    env = {k: v for k, v in os.environ.items() if "PROGRESS_BARS" not in k}
    result = subprocess.run([sys.executable, "-m", "noisecraft.cli", "build", "--source", "glue/mrpc",
                             "--data-file", str(data), "--noise", f"drop(model={model}, r=0.5)",
                             "--out", str(tmp_path / "out"), "--no-progress"],
                            capture_output=True, text=True, env={**env, "HF_HUB_OFFLINE": "1"}, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "nanobind" not in result.stderr
    assert result.stderr == ""  # no bar of ours, none of transformers' ("Loading weights") or datasets'
