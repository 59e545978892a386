"""Write a mined dictionary as a Hub dataset repo on disk (``train`` split), with its card."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noisecraft.core.schema import arrow_schema
from noisecraft.dataset.card import DICTIONARY_SPLIT, cell, render_dictionary_card
from noisecraft.dataset.noise_dictionary import dictionary_features
from noisecraft.dataset.repo import NOISE_DICTIONARY, DatasetRepo
from noisecraft.errors import ConfigError

SPLIT = DICTIONARY_SPLIT


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
        # as the manifest holds it (JSON: a tuple parameter is a list), so an identical re-run is the same spec
        spec = json.loads(json.dumps({"miner": mined.miner, "lang": mined.lang, "inputs": mined.inputs,
                                      "params": mined.params}))
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
