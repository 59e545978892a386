"""The dataset card (README.md with YAML metadata) of a challenge repo, rendered from its manifest.

The metadata comes from ``huggingface_hub.DatasetCardData`` (``configs``, ``language``, licence
inherited from the sources, ...); the prose comes from ``dataset_cards/templates/challenge_set.md``.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from noisecraft.core.stats import STATS_HEADER, format_table, stats_table_rows
from noisecraft.dataset.repo import data_files
from noisecraft.errors import ConfigError

#: The split a noise-dictionary repo holds its pairs in.
DICTIONARY_SPLIT = "train"

SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"))


def size_category(rows: int) -> str:
    """The Hub's ``size_categories`` bucket of a row count."""
    for limit, name in SIZE_CATEGORIES:
        if rows < limit:
            return name
    return "1M<n<10M"


def cell(text: Any) -> str:
    """Text safe inside a Markdown table cell."""
    value = " ".join(text) if isinstance(text, list) else str(text)
    value = value.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
    return value if len(value) <= 300 else value[:297] + "..."


def unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def card_data_files(manifest: dict[str, Any], config: str) -> list[dict[str, Any]]:
    """The card's ``data_files`` of a config: exactly the files its manifest entry names (a list of paths, no glob),
    so that a card names its own version's files and never the files of another (see :mod:`noisecraft.dataset.repo`)."""
    return [{"split": split, "path": paths} for split, paths in data_files(manifest, config).items()]


def card_text(card_data: Any, template: str, **values: Any) -> str:
    """A card's text: the jinja2 ``template`` rendered with the metadata's YAML as ``card_data`` and the metadata's
    fields and ``values`` as variables, which is what ``str(DatasetCard.from_template(card_data, template_str=...,
    **values))`` gives (tests/test_card_text.py compares them on the cards the tests build). ``DatasetCard`` itself
    is not imported: its module loads ``huggingface_hub``'s upload API, 0.35 s of CPU, a quarter of a whole build
    of XQuAD; ``card_data`` (a ``huggingface_hub.DatasetCardData``) holds the Hub's metadata rules."""
    import jinja2

    return jinja2.Template(template).render(card_data=card_data.to_yaml(), **{**card_data.to_dict(), **values})


def render_card(manifest: dict[str, Any], repo_hint: str = "ORG/NAME") -> str:
    """README.md text for the repo described by ``manifest``."""
    from huggingface_hub import DatasetCardData

    configs = manifest["configs"]
    entries = []
    all_rows: list[tuple[Any, ...]] = []
    for name, entry in configs.items():
        table_rows = stats_table_rows(name, entry["spec"]["split"], entry["stats"])
        all_rows.extend(table_rows)
        entries.append({
            **entry["card"],
            "name": name,
            "split": entry["spec"]["split"],
            "seed": entry["spec"]["seed"],
            "fields": entry["spec"]["fields"],
            "lang": entry["spec"]["lang"],
            "source": entry["spec"]["source"],
            "stats": entry["stats"],
            "warnings": entry.get("warnings", []),
            "stats_table": format_table(STATS_HEADER, table_rows, markdown=True),
            "examples": [{k: cell(v) for k, v in e.items()} for e in entry["examples"]],
            "param_rows": [{k: cell(v) for k, v in p.items()} for p in entry["card"].get("param_rows", [])],
        })
    card_data = DatasetCardData(
        language=sorted({e["lang"] for e in entries}),
        license=unique([e["license"] for e in entries]) if len({e["license"] for e in entries}) > 1 else entries[0]["license"],
        annotations_creators=["machine-generated"],
        language_creators=["machine-generated"],
        multilinguality="multilingual" if len({e["lang"] for e in entries}) > 1 else "monolingual",
        size_categories=size_category(max(e["stats"]["rows"] for e in entries)),
        source_datasets=unique([f"extended|{e['hub_id']}" if e["hub_id"] else "original" for e in entries]),
        task_categories=unique([e["task_category"] for e in entries]),
        pretty_name=manifest.get("pretty_name") or "noisecraft challenge set",
        tags=["robustness", "noise", "challenge-set", "noisecraft", *unique([e["noise_name"] for e in entries])],
        configs=[{"config_name": name, "data_files": card_data_files(manifest, name)} for name in configs],
    )
    template = (resources.files("noisecraft.dataset_cards") / "templates" / "challenge_set.md").read_text(encoding="utf-8")
    citations = "\n\n".join(unique([c for e in entries for c in (e["source_citation"], e["noise_citation"])]))
    return card_text(
        card_data,
        template,
        pretty_name=card_data.pretty_name,
        version=manifest["version"],
        toolkit_version=manifest["toolkit_version"],
        configs=entries,
        stats_table=format_table(STATS_HEADER, all_rows, markdown=True),
        repo_hint=repo_hint,
        citations=citations,
        recipe=format_recipe(manifest["recipe"]) if manifest.get("recipe") else "",
    )


def format_recipe(table: dict[str, Any]) -> str:
    """The resolved recipe as TOML (for the card): scalars first, then each ``[[configs]]`` table."""
    lines = [f"{k} = {_toml(v)}" for k, v in table.items() if k != "configs"]
    for group in table.get("configs", []):
        lines += ["", "[[configs]]"] + [f"{k} = {_toml(v)}" for k, v in group.items()]
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    raise ConfigError(f"cannot write {value!r} in a recipe")


def render_dictionary_card(manifest: dict[str, Any], repo_hint: str = "ORG/NAME") -> str:
    """README.md of a noise-dictionary repo."""
    from huggingface_hub import DatasetCardData

    entries = [{**entry["card"], "name": name, "inputs": entry["spec"]["inputs"], "lang": entry["spec"]["lang"],
                "params_json": json.dumps(entry["spec"]["params"], sort_keys=True, ensure_ascii=False),
                "rows": entry["stats"]["pairs"], "stats": {k: v for k, v in entry["stats"].items() if k != "pairs"}}
               for name, entry in manifest["configs"].items()]
    licenses = unique([e["license"] for e in entries])
    card_data = DatasetCardData(
        language=sorted({e["lang"] for e in entries}),
        license=licenses[0] if len(licenses) == 1 else licenses,
        annotations_creators=["machine-generated"],
        language_creators=["found"],
        multilinguality="multilingual" if len({e["lang"] for e in entries}) > 1 else "monolingual",
        size_categories=size_category(max(e["rows"] for e in entries)),
        source_datasets=["original"],
        pretty_name=manifest.get("pretty_name") or "noisecraft natural-noise dictionary",
        tags=["robustness", "noise", "natural-noise", "noise-dictionary", "noisecraft"],
        configs=[{"config_name": name, "data_files": card_data_files(manifest, name)} for name in manifest["configs"]],
    )
    template = (resources.files("noisecraft.dataset_cards") / "templates" / "noise_dictionary.md").read_text(encoding="utf-8")
    return card_text(
        card_data, template, pretty_name=card_data.pretty_name, version=manifest["version"],
        toolkit_version=manifest["toolkit_version"], configs=entries, repo_hint=repo_hint,
        citations="\n\n".join(unique([e["citation"] for e in entries])),
    )
