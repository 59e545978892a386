"""MkDocs hook: the reference pages are generated from the code, never written twice.

A page holds a marker such as ``<!-- generated: cli -->``; :func:`on_page_markdown` replaces it with markdown
made from what the code declares: the CLI from the argument parser (``format_help`` of every command), the
noise models' parameters from their ``ParamSpec``s, the recipe catalogue from ``scripts/recipes/``, the
keyboard layouts from their TOML files, and the results tables from the data files the benchmark scripts
write into ``docs/results/``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

DOCS = Path(__file__).parent
REPO = DOCS.parent
#: Where the API reference reads the package from: ``noisecraft`` laid out as installed (pyproject's
#: ``package-dir``: ``builders/`` with ``harness/``, ``mining/`` ... inside it), as links into the checkout.
API_SOURCE = REPO / "build" / "api-src"
PACKAGE_DIRS = {"": "builders", "harness": "harness", "mining": "mining", "dataset_cards": "dataset_cards",
                "recipes": "scripts/recipes"}
MARKER = re.compile(r"<!-- generated: ([\w-]+)((?: [^ >]+)*) -->")


def _escape(text: str) -> str:
    """A table cell: pipes escaped, newlines as spaces."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_escape(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _commands(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every command and subcommand of ``parser``, depth first, with its full name."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, f"{path} {name}")


def cli() -> str:
    """One section per command: its ``--help`` as argparse prints it at 100 columns."""
    from noisecraft.cli import _parser

    os.environ["COLUMNS"] = "100"
    sections = []
    for name, parser in _commands(_parser(), "noisecraft"):
        level = "#" * min(2 + name.count(" "), 4)
        sections.append(f"{level} `{name}`\n\n```text\n{parser.format_help().rstrip()}\n```\n")
    return "\n".join(sections)


def noise_params(*noise_ids: str) -> str:
    """The declared parameters of the named models (all when none is named), from their classes."""
    from noisecraft.noise_models.catalogue import LATEST, generate

    catalogue = generate()
    sections = []
    for noise_id in noise_ids or tuple(catalogue):
        entry = catalogue[noise_id]
        name, _, version = noise_id.partition("@")
        older = "" if LATEST[name] == int(version) else " (older version, still buildable)"
        caps = (f"input {entry['input']}; edit log {entry['edit_log']}; "
                f"{'protects' if entry['protects_spans'] else 'cannot protect'} labelled spans; "
                f"{'deterministic' if entry['deterministic'] else 'random'}")
        rows = [[f"`{p['name']}`", f"`{p['type']}`", f"`{p['default']}`", p["help"]] for p in entry["params"]]
        params = _table(["parameter", "type", "default", "meaning"], rows) if rows else "No parameters."
        sections.append(f"### `{noise_id}`{older}\n\n{entry['summary']}\n\n*{caps}.*\n\n{params}\n")
    return "\n".join(sections)


def _recipe_comment(text: str) -> str:
    """The comment block a recipe file opens with (what it follows, where it differs, how to build it)."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[2:] if line.startswith("# ") else line[1:])
    return "\n".join(lines).strip()


def recipes() -> str:
    """Every recipe of the catalogue: its description, its own notes and the file."""
    from noisecraft.building.recipe import catalogue

    sections = []
    for name, path in catalogue().items():
        text = path.read_text(encoding="utf-8")
        description = tomllib.loads(text).get("description", "")
        sections.append(f"## `{name}`\n\n{description}\n\n```text\n{_recipe_comment(text)}\n```\n\n"
                        f"??? note \"{path.name}\"\n\n    ```toml\n" +
                        "\n".join(f"    {line}" if line else "" for line in text.rstrip().splitlines()) + "\n    ```\n")
    return "\n".join(sections)


def layouts() -> str:
    """Every built-in keyboard layout: languages, source, and its rows as the file gives them."""
    from noisecraft.noise_models.keyboard_layouts import _layout_dir, builtin_layouts

    sections = []
    for layout in builtin_layouts().values():
        data = tomllib.loads((_layout_dir() / f"{layout.name}.toml").read_text(encoding="utf-8"))
        rows = [" ".join(key or "·" for key in row.get("base", [])) for row in data.get("rows", [])]
        shifted = [" ".join(key or "·" for key in row.get("shift", [])) for row in data.get("rows", [])]
        sections.append(
            f"## `{layout.name}`\n\n{layout.description}. Languages: {', '.join(layout.languages)}; "
            f"{len(layout.keys)} keys.\n\n{layout.source}\n\n"
            f"```text\n{chr(10).join(rows)}\n\n{chr(10).join(shifted)}\n```\n")
    return "\n".join(sections)


def results(name: str) -> str:
    """A benchmark's table from ``docs/results/NAME.json``, with the command, machine and date it ran on."""
    data = json.loads((DOCS / "results" / f"{name}.json").read_text(encoding="utf-8"))
    notes = f"\n\n{data['notes']}" if data.get("notes") else ""
    return (f"{_table(data['header'], data['rows'])}\n\n"
            f"*`{data['command']}` on {data['machine']}, {data['date']}.*{notes}\n")


GENERATORS: dict[str, Callable[..., str]] = {"cli": cli, "noise-params": noise_params, "recipes": recipes,
                                              "layouts": layouts, "results": results}


def link_package() -> None:
    """Lay ``noisecraft`` out under :data:`API_SOURCE` as the installed package is (mkdocs.yml's ``paths``), so
    mkdocstrings reads the sources statically, subpackages mapped from other folders included."""
    root = API_SOURCE / "noisecraft"
    root.mkdir(parents=True, exist_ok=True)
    links = {entry.name: entry for entry in (REPO / "builders").iterdir() if entry.name != "__pycache__"}
    links.update({name: REPO / folder for name, folder in PACKAGE_DIRS.items() if name})
    for name, target in links.items():
        link = root / name
        if link.is_symlink() and link.resolve() != target.resolve():
            link.unlink()
        if not link.is_symlink():
            link.symlink_to(target.resolve(), target_is_directory=target.is_dir())


def on_startup(**_: Any) -> None:
    """Link the package for the API reference at start-up, before any plugin reads its configuration (mkdocstrings
    collects from the linked folder: linked later, in ``on_config``, the first build of a fresh checkout missed
    the subpackages mapped from other folders)."""
    link_package()


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each ``<!-- generated: KIND ARGS -->`` marker with what :data:`GENERATORS` makes of it."""
    return MARKER.sub(lambda m: GENERATORS[m.group(1)](*m.group(2).split()), markdown)
