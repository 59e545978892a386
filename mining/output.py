"""Write a mined dictionary as a Hub dataset repo on disk (``train`` split), with its card."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from noisecraft.card import card_text, cell, size_category, unique
from noisecraft.errors import ConfigError
from noisecraft.noise_dictionary import dictionary_features
from noisecraft.repo import NOISE_DICTIONARY, DatasetRepo
from noisecraft.schema import arrow_schema

SPLIT = "train"


@dataclass
class MinedDictionary:
    """A miner's result and everything its card says about it."""

    miner: str
    lang: str
    inputs: list[str]
    params: dict[str, Any]
    rows: list[dict[str, Any]]
    columns: dict[str, Any]
    column_docs: dict[str, str]
    stats: dict[str, Any]
    description: str
    source_description: str
    license: str
    citation: str
    command: list[str]
    use_command: str
    top_extra: tuple[str, ...] = ()
    #: Extra card sections as ``(title, Markdown)``, after the most frequent pairs (e.g. confusion tables).
    sections: tuple[tuple[str, str], ...] = ()


def write_dictionary(out: Path, mined: MinedDictionary, *, config_name: str | None = None, version: str = "1.0.0",
                     pretty_name: str | None = None, overwrite: bool = False) -> Path:
    """Write (or replace) one dictionary config in ``out`` and re-render the card; returns the parquet path."""
    if not mined.rows:
        causes = [f"{key.replace('_', ' ')}: {mined.stats[key]}" for key in ("damaged_files", "skipped_files")
                  if mined.stats.get(key) not in (None, "none", "", [], 0)]
        raise ConfigError(f"the {mined.miner} miner found no pairs in {', '.join(mined.inputs) or 'its input'}"
                          f"{' (' + '; '.join(causes) + ')' if causes else ''}: nothing written")
    with DatasetRepo(out, version, pretty_name, kind=NOISE_DICTIONARY) as repo:
        name = config_name or f"{mined.miner}-{mined.lang}"
        spec = {"miner": mined.miner, "lang": mined.lang, "inputs": mined.inputs, "params": mined.params}
        repo.check_config(name, spec, overwrite)
        import pyarrow as pa

        schema = arrow_schema(dictionary_features(mined.columns))
        [path] = repo.write_split(name, SPLIT, [pa.Table.from_pylist(mined.rows, schema=schema)], schema)
        top = sorted(mined.rows, key=lambda r: (-r["count"], r["correct"], r["noisy"]))[:15]
        repo.record_config(name, {
            "spec": spec,
            "stats": {"pairs": len(mined.rows), **mined.stats},
            "card": {
                "description": mined.description, "source_description": mined.source_description,
                "license": mined.license, "citation": mined.citation, "columns": mined.column_docs,
                "command": shlex.join([*mined.command, "--config-name", name, "--dataset-version", version]),
                "use_command": mined.use_command.format(out="OUT", config=name),
                "top_extra": list(mined.top_extra),
                "sections": [{"title": title, "text": text} for title, text in mined.sections],
                "top": [{k: cell(round(v, 4) if isinstance(v, float) else v) for k, v in r.items() if k != "examples"}
                        for r in top],
                "correct_words": len({r["correct"] for r in mined.rows}),
            },
        })
        repo.commit(render_dictionary_card(repo.manifest))
    return path


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
        configs=[{"config_name": e["name"], "data_files": [{"split": SPLIT, "path": f"{e['name']}/{SPLIT}-*.parquet"}]}
                 for e in entries],
    )
    template = (resources.files("noisecraft.dataset_cards") / "templates" / "noise_dictionary.md").read_text(encoding="utf-8")
    return card_text(
        card_data, template, pretty_name=card_data.pretty_name, version=manifest["version"],
        toolkit_version=manifest["toolkit_version"], configs=entries, repo_hint=repo_hint,
        citations="\n\n".join(unique([e["citation"] for e in entries])),
    )
