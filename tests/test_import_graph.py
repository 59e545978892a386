"""No import circles in the package, not even behind function-level imports (DESIGN.md).

A circle hidden in a function still couples two modules both ways: neither can be understood, tested or
moved alone, and which half loads first decides whether a name exists yet. The test reads every module's
source (module-level and function-level ``import`` statements alike; only ``if TYPE_CHECKING:`` blocks are
left out, since they never run), builds the graph of ``noisecraft.*`` imports and fails on any cycle,
naming it. It also checks that every module imports, so a module the graph reads is one Python can load.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Import name -> folder, as pyproject.toml's package-dir maps them.
PACKAGES = {"noisecraft": "builders", "noisecraft.mining": "mining", "noisecraft.harness": "harness"}


def package_modules() -> dict[str, Path]:
    """Every module of the package by import name."""
    modules = {}
    for package, folder in PACKAGES.items():
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            parts = [p for p in path.relative_to(REPO_ROOT / folder).with_suffix("").parts if p != "__init__"]
            modules[".".join([package, *parts])] = path
    return modules


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name | ast.Attribute) and \
        ast.unparse(node.test).endswith("TYPE_CHECKING")


def _imported_names(name: str, path: Path) -> set[str]:
    """Fully qualified names the module's import statements reach (``from a import b`` gives ``a.b``)."""
    names: set[str] = set()
    stack: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"), str(path))]
    while stack:
        node = stack.pop()
        if _type_checking_only(node):
            stack.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                package = package[:len(package) - node.level + 1]
                base = ".".join([*package, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            # ``from a import b`` reaches module ``a.b`` when there is one, else module ``a``
            names.update(f"{base}.{alias.name}" for alias in node.names)
        stack.extend(ast.iter_child_nodes(node))
    return names


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (a name resolves to its longest module prefix)."""
    modules = package_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imported_names(name, path):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert cycles(graph) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_are_read_at_every_level(tmp_path: Path) -> None:
    source = tmp_path / "mod.py"
    source.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import hidden\n"
                      "def f():\n    from . import sibling\n    from .other import thing\n    import deep.er\n")
    names = _imported_names("pkg.mod", source)
    assert {"pkg.sibling", "pkg.other.thing", "deep.er"} <= names
    assert "hidden" not in names


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph()
    assert len(graph) > 80 and "noisecraft.building.pipeline" in graph["noisecraft.api"]
    unexpected = [sorted(c) for c in cycles(graph)]
    assert not unexpected, "import cycles: " + "; ".join(" <-> ".join(c) for c in unexpected)


@pytest.mark.parametrize("module", sorted(package_modules()))
def test_every_module_imports(module: str) -> None:
    importlib.import_module(module)


#: The layers, bottom first: a module imports only from its own part or from parts of a lower rank. Two parts of one
#: rank do not import each other (the sources never import the runtime, mining never imports the harness).
LAYERS: dict[str, int] = {
    "foundation": 0,
    "core": 1,
    "dataset": 2,
    "runtime": 3, "sources": 3,
    "grammar": 4, "pbsmt": 4,
    "noise_models": 5,
    "building": 6,
    "api": 7,
    "mining": 8, "harness": 8,
    "": 9,
    "cli": 10,
}


def part(module: str) -> str:
    """The part of the architecture a module belongs to: the folder under ``noisecraft``, a root module, or the
    foundation every part may use (errors, optional imports, the version)."""
    name = module.split(".")[1] if "." in module else ""
    return "foundation" if name in {"errors", "extras", "version"} else name


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Imports that go up the layers, or sideways between two parts of one rank."""
    found = []
    for module, targets in graph.items():
        for target in targets:
            here, there = part(module), part(target)
            if here != there and LAYERS[there] >= LAYERS[here]:
                found.append(f"{module} -> {target}")
    return sorted(found)


def test_every_part_has_a_layer() -> None:
    assert {part(m) for m in package_modules()} == set(LAYERS)


def test_the_layer_rule_finds_upward_and_sideways_imports() -> None:
    graph = {"noisecraft.core.a": {"noisecraft.dataset.b"}, "noisecraft.sources.c": {"noisecraft.runtime.d"},
             "noisecraft.building.e": {"noisecraft.core.a", "noisecraft.building.f"}}
    assert layer_violations(graph) == ["noisecraft.core.a -> noisecraft.dataset.b",
                                       "noisecraft.sources.c -> noisecraft.runtime.d"]


def test_imports_go_down_the_layers() -> None:
    """The library never imports mining or the harness (only the CLI and the Python face do); the sources never
    import the noise models; the primitives import nothing above them."""
    assert layer_violations(import_graph()) == []
