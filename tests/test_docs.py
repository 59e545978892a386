"""The documentation site builds strictly, its references are complete, and every code block runs as printed.

``mkdocs build --strict`` (warnings are errors: a broken link or anchor, a reference mkdocstrings cannot collect)
builds the site into a temporary folder once per module. The generated references must name every public name
of ``noisecraft``, every CLI command and every noise model parameter. The ``bash`` and ``python`` blocks of the
pages run as the README's do (``tests/test_readme.py``'s runner), in nav order in one working folder beside the
real corpora; a block whose first line is ``# not run by tests/test_docs.py: REASON`` (the Hub, a GPU, a cluster,
the install itself) is skipped with that reason. Without MkDocs (the ``[docs]`` extra) the tests skip, and fail
under ``CI=true``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_readme import Block, _bash, _python, code_blocks

from conftest import REPO_ROOT

DOCS = REPO_ROOT / "docs"
SKIP_MARK = "# not run by tests/test_docs.py:"


def _require_mkdocs() -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings_handlers") is None:
        message = 'MkDocs is not installed: pip install -e ".[docs]"'
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)


def _nav_pages() -> list[str]:
    """The pages of mkdocs.yml's nav, in order."""
    text = (REPO_ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    return re.findall(r":\s*([\w/-]+\.md)\s*$", text.split("\nnav:", 1)[1], re.MULTILINE)


def _blocks() -> list[tuple[str, Block]]:
    return [(page, block) for page in _nav_pages() for block in code_blocks((DOCS / page).read_text(encoding="utf-8"))]


BLOCKS = _blocks()


def _skip_reason(block: Block) -> str | None:
    first = block.code.splitlines()[0] if block.code else ""
    return first.removeprefix(SKIP_MARK).strip() if first.startswith(SKIP_MARK) else None


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built with warnings as errors."""
    _require_mkdocs()
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                            cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr[-5000:]}"
    return out


def _page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text(encoding="utf-8")


def test_every_page_is_in_the_nav() -> None:
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert pages == set(_nav_pages())


def test_every_public_name_is_in_the_python_reference(site: Path) -> None:
    import noisecraft
    from noisecraft import _API

    html = _page(site, "reference/python")
    for name in (*_API, "evaluate"):
        assert callable(getattr(noisecraft, name))
        assert re.search(rf'id="noisecraft\.[\w.]*\b{name}"', html), f"nc.{name} is not in the Python reference"


def test_every_cli_command_is_in_the_cli_reference(site: Path) -> None:
    import argparse

    from noisecraft.cli import _parser

    html = _page(site, "reference/cli")

    def walk(parser: argparse.ArgumentParser, path: str) -> list[str]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return [path] + [p for action in subs for name, sub in action.choices.items() for p in walk(sub, f"{path} {name}")]

    commands = walk(_parser(), "noisecraft")
    assert len(commands) > 15
    for command in commands:
        assert f"<code>{command}</code>" in html, f"{command} is not in the CLI reference"
    for option in ("--noise", "--fail-if", "--engine", "--lm-eval-samples"):
        assert option in html


def test_every_noise_parameter_is_in_the_noise_reference(site: Path) -> None:
    from noisecraft.noise_models.catalogue import MODELS, generate

    html = _page(site, "reference/noise-models")
    catalogue = generate()
    assert len(catalogue) == len(MODELS)
    for noise_id, entry in catalogue.items():
        section = html.split(f"<code>{noise_id}</code>", 1)
        assert len(section) == 2, f"{noise_id} is not in the noise reference"
        following = section[1].split("<h3", 1)[0]
        for param in entry["params"]:
            assert f"<code>{param['name']}</code>" in following, f"{noise_id}: parameter {param['name']} missing"


def test_recipes_layouts_and_results_are_generated(site: Path) -> None:
    from noisecraft.building.recipe import catalogue
    from noisecraft.noise_models.keyboard_layouts import builtin_layouts

    recipes, layouts, results = _page(site, "reference/recipes"), _page(site, "reference/layouts"), _page(site, "results")
    assert all(f"<code>{name}</code>" in recipes for name in catalogue())
    assert all(f"<code>{name}</code>" in layouts for name in builtin_layouts())
    for data in sorted((DOCS / "results").glob("*.json")):
        assert data.stem in (DOCS / "results.md").read_text(encoding="utf-8"), f"{data.name} is not shown"
        machine = json.loads(data.read_text(encoding="utf-8"))["machine"]
        assert machine and machine in results
    pages = "".join(path.read_text(encoding="utf-8") for path in [*DOCS.rglob("*.md"), DOCS.parent / "README.md"])
    for figure in sorted((DOCS / "results" / "figures").glob("*.png")):
        assert f"results/figures/{figure.name}" in pages, f"{figure.name} is shipped but no page shows it"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reader's checkout beside the real corpora (:func:`conftest.beside_the_corpora`), the blocks' cwd."""
    from conftest import beside_the_corpora

    return beside_the_corpora(tmp_path_factory, "docs")


@pytest.mark.slow
@pytest.mark.parametrize("page_block", BLOCKS, ids=lambda pb: f"{pb[0]}:{pb[1].line}")
def test_docs_block_runs_as_printed(page_block: tuple[str, Block], workdir: Path) -> None:
    page, block = page_block
    reason = _skip_reason(block)
    if reason:
        pytest.skip(f"docs/{page}:{block.line}: {reason}")
    try:
        (_python if block.language == "python" else _bash)(block, workdir)
    except AssertionError as error:
        raise AssertionError(f"docs/{page}: {error}") from None


def test_every_docs_block_is_run_or_says_why_not() -> None:
    assert len(BLOCKS) >= 20
    for page, block in BLOCKS:
        first = block.code.splitlines()[0]
        assert not first.startswith("# not run") or first.startswith(SKIP_MARK), f"docs/{page}:{block.line}: {first}"
        assert _skip_reason(block) != "", f"docs/{page}:{block.line}: a skipped block must say why"
