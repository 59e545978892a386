"""The (canonical, noisy) word pairs of a CoLeS dataset, read as any challenge set is read.

A CoLeS dataset is the folder ``noisecraft build scripts/recipes/coles.toml`` writes, or its Hub copy.
A local folder's configs and splits come from its manifest and are loaded through a throw-away cache
(:func:`noisecraft.dataset.publish.load_fresh`: a rebuilt folder is never read stale); a Hub dataset is loaded
at a revision (:func:`noisecraft.core.hub.load_hub_dataset`). Each row gives one pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noisecraft.dataset.repo import manifest_or_none
from noisecraft.errors import ConfigError

REQUIRED = ("id", "canonical", "noisy", "noise", "label")


@dataclass(frozen=True)
class WordPair:
    """One row of a CoLeS dataset: which config, the row id, both words, the noise kind and the label name."""

    config: str
    id: str
    canonical: str
    noisy: str
    noise: str
    label: str


def _splits(dataset: str, revision: str | None) -> dict[str, Any]:
    """``{config: loaded split}`` of every config of a local folder (manifest) or a Hub dataset."""
    folder = Path(dataset).expanduser()
    if folder.is_dir():
        from noisecraft.dataset.publish import load_fresh

        manifest = manifest_or_none(folder)
        if manifest is None:
            raise ConfigError(f"{folder} holds no noisecraft dataset: build it with noisecraft build scripts/recipes/coles.toml")
        configs = manifest["configs"]
        return {name: (lambda n=name, s=entry["spec"]["split"]: load_fresh(folder, n, s)) for name, entry in configs.items()}
    if folder.exists():
        raise ConfigError(f"{dataset} is a file: give a CoLeS dataset folder made by noisecraft build, or a Hub id")
    if dataset.startswith((".", "/", "~")) or dataset.count("/") > 1:
        raise ConfigError(f"{dataset}: no such folder (a CoLeS dataset folder made by noisecraft build, or a Hub id)")
    import datasets

    from noisecraft.core.hub import load_hub_dataset

    try:
        names = datasets.get_dataset_config_names(dataset, revision=revision)
    except Exception as exc:  # datasets raises many types: offline, not found, connection
        raise ConfigError(f"{dataset}: no such folder, and not a Hub dataset that can be loaded: "
                          f"{' '.join(str(exc).split())}") from exc
    return {name: (lambda n=name: next(iter(load_hub_dataset(dataset, n, None, revision).values()))) for name in names}


def load_pairs(dataset: str, configs: Sequence[str] = (), revision: str | None = None) -> list[WordPair]:
    """Every pair of the chosen configs (default: all) of a CoLeS dataset folder or Hub id, config by config."""
    loaders = _splits(dataset, revision)
    unknown = [c for c in configs if c not in loaders]
    if unknown:
        raise ConfigError(f"{dataset} has no config {unknown[0]!r}; it has {', '.join(loaders)}")
    pairs: list[WordPair] = []
    for config in configs or list(loaders):
        try:
            rows = loaders[config]()
        except ConfigError:
            raise
        except Exception as exc:  # datasets raises many types for a missing split or unreadable files
            raise ConfigError(f"{dataset}: config {config} does not load: {exc}") from exc
        missing = [c for c in REQUIRED if c not in rows.column_names]
        if missing:
            raise ConfigError(f"{dataset} config {config!r} is not a CoLeS dataset: it lacks column(s) {', '.join(missing)}")
        names = rows.features["label"].names
        pairs += [WordPair(config, i, c, n, kind, names[label]) for i, c, n, kind, label in
                  zip(rows["id"], rows["canonical"], rows["noisy"], rows["noise"], rows["label"])]
    return pairs
