"""Recipes: a whole challenge dataset declared in one TOML file, built by one command.

```toml
name = "NoiseQA synthetic keyboard noise"      # pretty name of the dataset (card title)
version = "1.0.0"                              # dataset version (semver); the Hub tag is v<version>

[[configs]]                                    # one table per group of configs
source = "xquad"                               # a registered source (noisecraft build --help lists them)
langs = ["en"]                                 # one config per language x noise x seed
split = "validation"                           # optional: the source's evaluation split
fields = ["question"]                          # optional: the source's default fields
data_file = "xquad/xquad.{lang}.json"          # optional: original release file, under --data-dir
revision = "main"                              # optional: Hub revision when built from the Hub
seeds = [0]                                    # optional, default [0]
protect_entities = false                       # optional (token-tag tasks)
noise = ["keyboard", { name = "keyboard", mode = "coles" }, "misspelling(dictionary=d/) | keyboard"]
config_name = "xquad-en-keyboard"              # optional, only for a group that makes one config

[[configs]]                                    # a table (csv, tsv, jsonl, parquet) or hub:ORG/NAME, its layout declared
source = "tsv"
data_file = "glue/MRPC/dev.tsv"
fields = ["#1 String"]                         # required for a table
label_field = "Quality"                        # optional: a class label, kept and checked
label_names = ["not_equivalent", "equivalent"] # optional: its class names, in order
noise = ["keyboard"]
# also optional: span_labels = "context:answers", token_labels = "tokens:tags", id_field = "id",
# hub_config = "mrpc" (hub: sources)
```

``data_file`` paths are relative to a folder of original releases given with ``--data-dir`` (absolute
paths are used as they are); without ``--data-dir`` relative ones are ignored and the sources come from
the Hub. Noise parameters that name such a file (``natural-translation``'s ``data_file``) follow the
same rule; other relative file parameters (a dictionary, a layout file) are read under ``--data-dir``
when they are there, as in ``--source`` builds. ``--seed`` and ``--set key=value`` override what the file says;
the manifest and the card keep the resolved recipe.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from noisecraft.building.config_request import ConfigRequest
from noisecraft.core.text_files import read_text
from noisecraft.dataset.repo import SEMVER
from noisecraft.errors import ConfigError
from noisecraft.noise_models.registry import model_class, noise_from_table
from noisecraft.sources.table import LAYOUT_KEYS, TableLayout

#: Most bytes a recipe file may hold (the catalogue's are a few KB): a path naming something else is refused.
RECIPE_LIMIT = 1 << 20
TOP_KEYS = {"name", "version", "description", "configs"}
GROUP_KEYS = {"source", "langs", "split", "fields", "data_file", "revision", "seeds", "protect_entities", "noise",
              "config_name", *LAYOUT_KEYS}


@dataclass(frozen=True)
class Recipe:
    """A parsed recipe: the resolved table (after overrides) and where it came from."""

    path: Path
    table: dict[str, Any]

    @property
    def pretty_name(self) -> str | None:
        return self.table.get("name")

    @property
    def version(self) -> str:
        return self.table["version"]


def _toml_value(text: str) -> Any:
    """A ``--set`` value: TOML (numbers, booleans, arrays, quoted strings) or else a bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_override(table: dict[str, Any], assignment: str) -> None:
    """``key=value`` with a dotted key (``version=1.1.0``, ``configs.0.langs=["de"]``)."""
    key, sep, value = assignment.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"sets= / --set expects key=value, got {assignment!r}")
    node: Any = table
    parts = key.strip().split(".")
    for part in parts[:-1]:
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise ConfigError(f"override {key}: the recipe has no {part!r} there")
    last = parts[-1]
    if isinstance(node, list):
        if not last.isdigit() or int(last) >= len(node):
            raise ConfigError(f"override {key}: index {last!r} is out of range")
        node[int(last)] = _toml_value(value)
    elif isinstance(node, dict):
        node[last] = _toml_value(value)
    else:
        raise ConfigError(f"--set {key}: {'.'.join(parts[:-1])} is a {_type_name(node)}, not a table: it has no {last!r}")


def _type_name(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "list", dict: "table"}.get(
        type(value), type(value).__name__)


#: The TOML type of every recipe value (the noise tables are checked by the models' declared parameters).
TOP_TYPES: dict[str, type] = {"name": str, "description": str}
GROUP_TYPES: dict[str, type] = {"source": str, "split": str, "data_file": str, "revision": str, "config_name": str,
                                "protect_entities": bool, "label_field": str, "span_labels": str, "token_labels": str,
                                "id_field": str, "hub_config": str}
GROUP_LISTS: dict[str, type] = {"langs": str, "fields": str, "seeds": int, "label_names": str}


def _check_types(where: str, table: dict[str, Any], types: dict[str, type], lists: dict[str, type]) -> None:
    """Each value has its declared type, exactly (``protect_entities = "false"`` is a string, not false)."""
    for key, kind in types.items():
        value = table.get(key)
        if key in table and (type(value) is not kind):
            raise ConfigError(f"{where}: {key!r} must be a {_type_name(kind())}, got {_type_name(value)} {value!r}")
    for key, kind in lists.items():
        if key not in table:
            continue
        value = table[key]
        if not isinstance(value, list) or not value or not all(type(v) is kind for v in value):
            raise ConfigError(f"{where}: {key!r} must be a non-empty list of {_type_name(kind())}s, got {value!r}")


def catalogue() -> dict[str, Path]:
    """The recipes that ship with noisecraft (``scripts/recipes/`` in a checkout, ``noisecraft/recipes/`` installed),
    by name: the file name without ``.toml``."""
    folder = files("noisecraft.recipes")
    return {entry.name.removesuffix(".toml"): Path(str(entry))
            for entry in sorted(folder.iterdir(), key=lambda e: e.name) if entry.name.endswith(".toml")}


def catalogue_lines() -> list[str]:
    """One line per shipped recipe: its name and its ``description`` (what ``noisecraft recipes`` prints)."""
    recipes = catalogue()
    width = max(map(len, recipes), default=0)
    return [f"{name:{width}}  {tomllib.loads(path.read_text(encoding='utf-8')).get('description', '')}"
            for name, path in recipes.items()]


def find_recipe(name_or_path: str | Path) -> Path:
    """The recipe file a user named: an existing file as it is, else a recipe of the catalogue by name (with or
    without ``.toml``), so ``noisecraft build noiseqa-keyboard`` works from any folder, even one holding an output
    folder of that name. A path wins over a name: a local file called like a catalogue recipe is the user's."""
    path = Path(name_or_path)
    if path.is_file() or len(path.parts) > 1:
        return path
    recipes = catalogue()
    found = recipes.get(path.name.removesuffix(".toml"))
    if found is None:
        raise ConfigError(f"{name_or_path}: no such recipe file, and no recipe of that name in the catalogue "
                          f"({', '.join(recipes)}; noisecraft recipes describes them)")
    return found


def load_recipe(path: Path, seed: int | None = None, sets: Sequence[str] = ()) -> Recipe:
    """Read and check a recipe, apply ``--seed`` and ``--set`` overrides."""
    text = read_text(path, what="recipe", limit=RECIPE_LIMIT)
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not a TOML recipe: {exc}") from exc
    table = copy.deepcopy(table)
    for assignment in sets:
        apply_override(table, assignment)
    if seed is not None:
        for group in table.get("configs", []):
            group["seeds"] = [seed]
    _check(path, table)
    return Recipe(path, table)


def _check(path: Path, table: dict[str, Any]) -> None:
    unknown = set(table) - TOP_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; a recipe has {', '.join(sorted(TOP_KEYS))}")
    _check_types(str(path), table, TOP_TYPES, {})
    if not isinstance(table.get("version"), str) or not SEMVER.fullmatch(table["version"]):
        raise ConfigError(f"{path}: 'version' must be a semantic version like \"1.0.0\", got {table.get('version')!r}")
    groups = table.get("configs")
    if not isinstance(groups, list) or not groups or not all(isinstance(g, dict) for g in groups):
        raise ConfigError(f"{path}: a recipe needs at least one [[configs]] table")
    for number, group in enumerate(groups, start=1):
        where = f"{path}, [[configs]] {number}"
        unknown = set(group) - GROUP_KEYS
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(sorted(GROUP_KEYS))}")
        for key in ("source", "noise"):
            if key not in group:
                raise ConfigError(f"{where}: missing {key!r}")
        if not isinstance(group["noise"], list) or not group["noise"]:
            raise ConfigError(f"{where}: 'noise' must be a non-empty list")
        _check_types(where, group, GROUP_TYPES, GROUP_LISTS)


def requests(recipe: Recipe, data_dir: Path | None = None) -> list[ConfigRequest]:
    """Every config of the recipe (language x noise x seed per group), in file order."""
    out: list[ConfigRequest] = []
    for number, group in enumerate(recipe.table["configs"], start=1):
        langs = group.get("langs", ["en"])
        seeds = group.get("seeds", [0])
        noises = group["noise"]
        if "config_name" in group and len(langs) * len(noises) * len(seeds) > 1:
            raise ConfigError(f"{recipe.path}, [[configs]] {number}: config_name names a single config, "
                              "but this group makes several")
        layout = TableLayout.declare(**{key: group[key] for key in LAYOUT_KEYS if key in group})
        for lang in langs:
            data_file = _data_file(group.get("data_file"), lang, data_dir)
            for entry in noises:
                model = noise_from_table(entry if data_dir is not None else _without_sources(entry), lang, data_dir)
                for seed in seeds:
                    out.append(ConfigRequest(
                        source=group["source"], noise=model, lang=lang, split=group.get("split"), data_file=data_file,
                        data_dir=data_dir if data_file is not None else None,
                        revision=group.get("revision") if data_file is None else None, seed=seed,
                        fields=tuple(group["fields"]) if "fields" in group else None,
                        config_name=group.get("config_name"), protect_entities=group.get("protect_entities", False),
                        layout=layout,
                    ))
    names = [r.config_name for r in out if r.config_name]
    if len(names) != len(set(names)):
        raise ConfigError(f"{recipe.path}: two groups give the same config_name")
    return out


def _without_sources(entry: Any) -> Any:
    """A noise entry of a recipe built without ``--data-dir``: its relative ``source`` file parameters (original
    release files a model reads, such as the parallel XQuAD file of natural translation) are dropped, so the model
    reads the Hub copy, as a group's ``data_file`` is; with ``--data-dir`` they are read under it
    (:func:`~noisecraft.noise_models.registry.files_under`)."""
    if isinstance(entry, dict) and "chain" in entry:
        return {**entry, "chain": [_without_sources(step) for step in entry["chain"]]}
    if not isinstance(entry, dict) or "name" not in entry:
        return entry
    sources = {spec.name for spec in model_class(str(entry["name"])).param_specs() if spec.file == "source"}
    return {key: value for key, value in entry.items()
            if not (key in sources and not Path(str(value)).is_absolute())}


def _data_file(template: str | None, lang: str, data_dir: Path | None) -> Path | None:
    if template is None:
        return None
    path = Path(template.replace("{lang}", lang))
    if path.is_absolute():
        return path
    return data_dir / path if data_dir is not None else None
