"""Every code block of README.md runs as printed.

The blocks run in README order in one working folder laid out like a checkout beside the shared corpora
(``noisecraft/`` with the repository's ``scripts/``, and ``shared/corpora`` beside it), so later blocks can use
what earlier ones built, as a reader would. ``bash`` blocks run with ``set -euo pipefail``; ``python`` blocks
are executed, and a line ``EXPRESSION  # -> VALUE`` must give ``VALUE`` (its ``repr``). A block whose first line
is ``# not run by tests/test_readme.py: REASON`` is skipped with that reason (the Hub, uploads, the set-up
itself); the set-up block is instead checked against .ci/run, which runs it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
CI_RUN = REPO_ROOT / ".ci" / "run"
SKIP_MARK = "# not run by tests/test_readme.py:"
SETUP_MODELS = "noisecraft setup example-models models/ --corpora ../shared/corpora"


@dataclass(frozen=True)
class Block:
    language: str
    line: int  # of the opening fence
    code: str

    @property
    def skip_reason(self) -> str | None:
        first = self.code.splitlines()[0] if self.code else ""
        return first.removeprefix(SKIP_MARK).strip() if first.startswith(SKIP_MARK) else None


def code_blocks(text: str) -> list[Block]:
    """The fenced ``bash`` and ``python`` blocks (other fences, such as a folder layout, are not code)."""
    blocks = []
    for match in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL):
        if match.group(1) in ("bash", "python"):
            blocks.append(Block(match.group(1), text.count("\n", 0, match.start()) + 1, match.group(2)))
    return blocks


BLOCKS = code_blocks(README.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reader's checkout beside the real corpora (:func:`conftest.beside_the_corpora`), the blocks' cwd."""
    from conftest import beside_the_corpora

    return beside_the_corpora(tmp_path_factory, "readme")


def _python(block: Block, work: Path) -> None:
    """Run the block as a script would: a module of its own (a dataclass defined in it finds its module), compiled
    without this file's ``from __future__`` flags (annotations are evaluated as a reader's Python does)."""
    module = types.ModuleType("__readme__")
    namespace = module.__dict__
    previous, saved = Path.cwd(), sys.modules.get("__readme__")
    os.chdir(work)
    sys.modules["__readme__"] = module
    try:
        code = compile(block.code, f"README.md:{block.line}", "exec", dont_inherit=True)
        exec(code, namespace)  # noqa: S102 - the README's own code
        for number, line in enumerate(block.code.splitlines(), block.line + 1):
            shown = re.match(r"^(\S.*?)\s+# -> (.+)$", line)
            if shown:
                got = repr(eval(shown.group(1), namespace))  # noqa: S307
                assert got == shown.group(2), f"README.md:{number}: {shown.group(1)} gives {got}, README says {shown.group(2)}"
    finally:
        os.chdir(previous)
        if saved is None:
            sys.modules.pop("__readme__", None)
        else:
            sys.modules["__readme__"] = saved


def _bash(block: Block, work: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", block.code], cwd=work, env=env, capture_output=True,
                            text=True, timeout=1200)
    assert result.returncode == 0, f"README.md:{block.line}: exit {result.returncode}\n{result.stderr[-3000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: f"{b.language}-line{b.line}")
def test_readme_block_runs_as_printed(block: Block, workdir: Path) -> None:
    if block.skip_reason:
        pytest.skip(f"README.md:{block.line}: {block.skip_reason}")
    (_python if block.language == "python" else _bash)(block, workdir)  # nothing stood in: the reader's run


def test_the_models_the_readme_names_are_made_by_its_first_model_block() -> None:
    """Every ``models/NAME`` a run block uses is a folder ``noisecraft setup example-models`` makes, and the first
    block that uses one makes them all: a reader with a checkout and the corpora runs every block as printed."""
    from noisecraft.runtime.example_models import example_models

    run = [b for b in BLOCKS if not b.skip_reason]
    named = {m for b in run for m in re.findall(r"models/([A-Za-z0-9._-]+)", b.code)}
    assert named and named <= set(example_models(Path("corpora"), 1)), named
    first = next(b for b in run if re.search(r"models/[A-Za-z0-9._-]+", b.code))
    assert SETUP_MODELS in first.code, f"README.md:{first.line}: the first block using models/ must make them"


def test_every_block_is_run_or_says_why_not() -> None:
    assert len(BLOCKS) >= 10
    for block in BLOCKS:
        first = block.code.splitlines()[0]
        assert not first.startswith("# not run") or first.startswith(SKIP_MARK), f"README.md:{block.line}: {first}"
        assert block.skip_reason != "", f"README.md:{block.line}: a skipped block must say why"


def test_ci_runs_exactly_the_readme_set_up() -> None:
    """The README's set-up block and its system packages are what .ci/run runs, so CI proves the README."""
    readme = README.read_text(encoding="utf-8")
    [setup] = [b for b in BLOCKS if "python -m pytest" in b.code]
    commands = [line.split("#")[0].strip() for line in setup.code.splitlines()[1:] if line.strip()]
    assert 'pip install -e ".[test]" && python -m pytest' in commands
    run = CI_RUN.read_text(encoding="utf-8")
    steps = [line.strip() for line in run.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    installs = [s for s in steps if "pip install" in s]
    assert [re.sub(r"--\S+ ?", "", s.replace("python3 -m ", "")).strip() for s in installs] == ['pip install -e ".[test]"']
    assert steps[-1] == "python3 -m pytest"
    [packages] = re.findall(r"`apt-get install -y ([a-z0-9 .-]+)`", readme)
    [ci_packages] = re.findall(r"apt-get install -y -qq ([a-z0-9 .-]+?) >", run)
    assert packages.split() == ci_packages.split()
