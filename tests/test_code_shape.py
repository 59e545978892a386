"""The shape the code keeps (README "How we work"): no function of the library, the miners or the harness is longer
than 60 lines, so each can be read on one screen; a longer one is split into named steps."""

from __future__ import annotations

import ast
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 60


def long_functions(folder: Path, limit: int = MAX_LINES) -> list[str]:
    """``path:line name (n lines)`` of every function or method over ``limit`` lines (its docstring included)."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > limit:
                    found.append(f"{path.relative_to(folder.parent)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_the_counter_counts_a_function_from_def_to_its_last_line(tmp_path):
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "m.py").write_text("def short():\n    return 1\n\n\ndef long():\n" + "    x = 1\n" * 4 + "    return x\n")
    assert long_functions(folder, limit=6) == []
    assert [line.split(" ", 1)[1] for line in long_functions(folder, limit=5)] == ["long (6 lines)"]


def test_no_function_is_longer_than_60_lines():
    found = [f for folder in ("builders", "mining", "harness") for f in long_functions(REPO_ROOT / folder)]
    assert not found, "split these into named steps: " + "; ".join(found)
