"""Segmentation-corruption typing of a whole CoLeS dataset for one tokenizer: a table per model.

:func:`type_pairs` segments every distinct word once (batched) and types each pair
(:mod:`noisecraft.harness.probe.corruption`); :func:`type_shares` gives the share of each type per noise
kind, over the pairs whose segmentation changed; :func:`write_typing` writes the table as parquet
and the shares as markdown, named after the tokenizer (a local folder by its name and content digest).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from noisecraft.dataset.repo import atomic_write, atomic_write_text
from noisecraft.harness.probe.corruption import TYPES, UNCHANGED, corruption
from noisecraft.harness.probe.pairs import WordPair
from noisecraft.harness.probe.segmentation import Segmenter


def type_pairs(segmenter: Segmenter, pairs: Sequence[WordPair]) -> list[dict[str, Any]]:
    """One row per pair: the pair, both segmentations, the type and ``|A|``, ``|M|``, ``|O|``."""
    words = sorted({p.canonical for p in pairs} | {p.noisy for p in pairs})
    pieces = dict(zip(words, segmenter.segment(words)))
    rows = []
    for pair in pairs:
        s, t = pieces[pair.canonical], pieces[pair.noisy]
        kind = corruption(s, t)
        rows.append({"config": pair.config, "id": pair.id, "canonical": pair.canonical, "noisy": pair.noisy,
                     "noise": pair.noise, "label": pair.label, "canonical_subwords": s, "noisy_subwords": t,
                     "type": kind.type, "added": kind.added, "missing": kind.missing, "overlap": kind.overlap})
    return rows


def type_shares(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per noise kind (and ``all``): pairs, unchanged pairs, and the share of each type among the changed ones."""
    out: dict[str, dict[str, Any]] = {}
    for kind in sorted({r["noise"] for r in rows}) + ["all"]:
        counts = Counter(r["type"] for r in rows if kind in ("all", r["noise"]))
        changed = sum(counts.values()) - counts[UNCHANGED]
        out[kind] = {"pairs": sum(counts.values()), "unchanged": counts[UNCHANGED],
                     "shares": {t: counts[t] / changed if changed else 0.0 for t in TYPES}}
    return out


def shares_markdown(segmenter: Segmenter, shares: dict[str, dict[str, Any]]) -> str:
    """The shares as a markdown table (one row per noise kind)."""
    lines = [f"# Segmentation corruption: {slug(segmenter.name, segmenter.revision)}", "",
             f"Revision: `{segmenter.revision}`", "",
             "| noise | pairs | unchanged | " + " | ".join(TYPES) + " |", "|---" * (len(TYPES) + 3) + "|"]
    for kind, entry in shares.items():
        lines.append(f"| {kind} | {entry['pairs']} | {entry['unchanged']} | "
                     + " | ".join(f"{entry['shares'][t]:.3f}" for t in TYPES) + " |")
    return "\n".join(lines) + "\n"


def slug(name: str, revision: str) -> str:
    """A file name for a model: a Hub id as itself (``bert-base-uncased``, ``org--model``); a local folder, whose
    revision is its content digest (``sha256:...``), as its folder name and the digest's first 12 hex digits
    (``model-3f2a9c0e1b7d``), so that two tokenizers saved in folders both called ``model`` never share a file."""
    local = revision.startswith("sha256:")
    base = f"{Path(name).name}-{revision.removeprefix('sha256:')[:12]}" if local else name.replace("/", "--")
    return re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip("-")


def write_typing(out: Path, segmenter: Segmenter, rows: Sequence[dict[str, Any]]) -> tuple[Path, Path]:
    """``out/<model>.parquet`` (every typed pair) and ``out/<model>.md`` (the shares), each written atomically
    (``<model>``: :func:`slug`)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = slug(segmenter.name, segmenter.revision)
    table = pa.Table.from_pylist(list(rows)).replace_schema_metadata(
        {"tokenizer": segmenter.name, "revision": segmenter.revision})
    parquet, markdown = out / f"{name}.parquet", out / f"{name}.md"
    atomic_write(parquet, lambda tmp: pq.write_table(table, tmp))
    atomic_write_text(markdown, shares_markdown(segmenter, type_shares(rows)))
    return parquet, markdown
