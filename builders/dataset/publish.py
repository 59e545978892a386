"""Publish a challenge repo folder to the Hugging Face Hub and tag its version.

The folder is first verified locally (every config loads; manifest, card and files agree). Its card and the
data files the card names are then uploaded as one commit that also deletes remote files which are not part of
this version (data files no card names, left by an interrupted local commit, are neither checked nor uploaded);
every file is checked against what the Hub reports for that commit (size, and the LFS sha256 or
git blob id) and the commit holds no other file; only when all match is the version tag
``v<version>`` created on that commit. A failed check leaves no tag, so a tag always names a
complete, verified upload.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from noisecraft.dataset.card import render_card, render_dictionary_card
from noisecraft.dataset.repo import (
    CARD,
    NOISE_DICTIONARY,
    SHARD,
    check_name,
    data_files,
    read_manifest,
    shards_digest,
    split_card,
)
from noisecraft.errors import ConfigError, NoisecraftError


def git_blob_id(data: bytes) -> str:
    """The git object id of a file's content, as the Hub reports for non-LFS files."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _local_files(folder: Path, manifest: dict[str, Any]) -> dict[str, Path]:
    """What a version is: its card and the data files the card names (relative path -> local path)."""
    named = sorted(path for config in manifest["configs"] for paths in data_files(manifest, config).values()
                   for path in paths)
    return {CARD: folder / CARD, **{path: folder / path for path in named}}


def _links_outside(folder: Path) -> list[str]:
    """Relative paths of symlinks under ``folder`` whose targets lie outside it."""
    root = os.path.realpath(folder)
    found = []
    for directory, subdirs, names in os.walk(folder):
        for name in sorted(subdirs + names):
            path = os.path.join(directory, name)
            if os.path.islink(path) and os.path.commonpath([root, os.path.realpath(path)]) != root:
                found.append(os.path.relpath(path, folder))
    return sorted(found)


def _check_card_matches_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    """The card is rendered from the manifest: a card that differs (edited by hand, or left from another build)
    would publish text that contradicts the data's provenance."""
    render = render_dictionary_card if manifest.get("kind") == NOISE_DICTIONARY else render_card
    try:
        card = split_card((folder / CARD).read_text(encoding="utf-8"), folder / CARD)[0]
        expected = render(manifest)
    except (OSError, UnicodeDecodeError, KeyError, TypeError) as exc:
        raise ConfigError(f"{folder / CARD}: cannot check the card against its manifest "
                          f"({type(exc).__name__}: {exc})") from None
    if card != expected:
        line = next(i for i, (a, b) in enumerate(zip([*card.splitlines(), ""], [*expected.splitlines(), ""]), 1) if a != b)
        raise ConfigError(f"{folder / CARD}, line {line}: the card differs from what its manifest renders (edited "
                          "or stale), nothing uploaded: rebuild into the folder to re-render it")


def _data_file_problems(folder: Path, config: str, files: dict[str, list[str]]) -> list[str]:
    """What is wrong with the data files a config's manifest entry names: none, missing, or not the content their
    names address (changed after the commit)."""
    if not files:
        return [f"config {config} names no data file"]
    problems = []
    for paths in files.values():
        missing = [path for path in paths if not (folder / path).is_file()]
        names = [SHARD.fullmatch(Path(path).name) for path in paths]
        if missing:
            problems.append(f"{missing[0]}: missing")
        elif not all(names) or len({m["digest"] for m in names if m}) != 1:
            problems.append(f"{paths[0]}: not a data file name noisecraft writes")
        elif shards_digest(folder / path for path in paths) != names[0]["digest"]:
            problems.append(f"{paths[0]}: its content is not what its name addresses (changed after it was written)")
    return problems


def verify_upload(api: Any, repo_id: str, revision: str, files: dict[str, Path]) -> list[str]:
    """Problems found comparing local files with the Hub's view of ``revision`` (empty: all good)."""
    remote = {info.path: info for info in api.get_paths_info(repo_id, list(files), revision=revision, repo_type="dataset")}
    problems = []
    for path, local in files.items():
        data = local.read_bytes()
        info = remote.get(path)
        if info is None:
            problems.append(f"{path}: missing on the Hub")
        elif info.size != len(data):
            problems.append(f"{path}: {info.size} bytes on the Hub, {len(data)} locally")
        elif info.lfs is not None and info.lfs.sha256 != hashlib.sha256(data).hexdigest():
            problems.append(f"{path}: sha256 differs")
        elif info.lfs is None and info.blob_id != git_blob_id(data):
            problems.append(f"{path}: content differs")
    return problems


def load_fresh(folder: Path, config: str, split: str) -> Any:
    """``datasets.load_dataset`` of a local folder through a throw-away cache: ``datasets`` caches a local
    folder's config by folder and config name, so a rebuilt folder could otherwise be read stale."""
    import tempfile

    import datasets

    with tempfile.TemporaryDirectory(prefix="noisecraft-load-") as cache:
        return datasets.load_dataset(str(folder), config, split=split, cache_dir=cache, keep_in_memory=True)


def verify_local(folder: Path) -> dict[str, Any]:
    """Check that ``folder`` is a complete, loadable dataset before anything is uploaded; returns its manifest.

    Every config of the manifest is in the card's metadata, the files the card names are there with the content
    their names address, and each config loads with ``datasets.load_dataset`` with the row count the manifest records.
    """
    from huggingface_hub import DatasetCard

    manifest = read_manifest(folder)
    configs = set(manifest["configs"])
    outside = _links_outside(folder)
    if outside:
        raise ConfigError(f"{folder} does not verify, nothing uploaded: {outside[0]} is a symlink to "
                          f"{os.path.realpath(folder / outside[0])}, outside the folder (the upload would publish that "
                          "file): replace it with the file itself or remove it")
    try:
        card = DatasetCard.load(folder / CARD)
    except Exception as exc:  # bad YAML: huggingface_hub raises several types
        raise ConfigError(f"{folder / CARD}: no readable dataset card: {exc}") from exc
    in_card = {c.get("config_name") for c in (card.data.to_dict().get("configs") or [])}
    problems = []
    if in_card != configs:
        problems.append(f"card configs {sorted(in_card)} differ from the manifest's {sorted(configs)}")
    problems += file_problems(folder, manifest)
    if problems:
        raise ConfigError(f"{folder} does not verify, nothing uploaded: " + "; ".join(problems))
    for name, entry in manifest["configs"].items():
        split = entry["spec"].get("split", "train")
        try:
            rows = load_fresh(folder, name, split).num_rows
        except Exception as exc:  # datasets raises many types for an unloadable folder
            raise ConfigError(f"{folder}: config {name} does not load: {exc}") from exc
        check_rows(str(folder), name, entry, rows)
    _check_card_matches_manifest(folder, manifest)
    return manifest


def file_problems(folder: Path, manifest: dict[str, Any]) -> list[str]:
    """What is wrong with the data files the manifest's configs name (empty: nothing): none, missing, or not the
    content their names address. Checked before a folder is published and before it is evaluated; files no config
    names are not part of the set (a later write removes them) and are neither checked nor uploaded."""
    problems = []
    for name in sorted(manifest["configs"]):
        check_name("config", name)
        problems += _data_file_problems(folder, name, data_files(manifest, name))
    return problems


def check_rows(where: str, config: str, entry: dict[str, Any], rows: int) -> None:
    """Refuse a config that loads another number of rows than its manifest entry records (files cut, replaced or
    left from another build): published or evaluated, it would be reported as the set the card describes."""
    expected = entry["stats"].get("rows", entry["stats"].get("pairs"))
    if rows != expected:
        raise ConfigError(f"{where}: config {config} loads {rows} rows, the manifest says {expected} (its files changed "
                          "after the build: rebuild it)")


def publish(folder: Path, repo_id: str, *, private: bool = False, api: Any = None) -> str:
    """Verify ``folder``, upload it to the dataset repo ``repo_id`` (deleting remote files that are not
    part of this version), verify the Hub's copy against it in both directions, tag ``v<version>``."""
    manifest = verify_local(folder)
    version = manifest["version"]
    tag = f"v{version}"
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    if any(ref.name == tag for ref in api.list_repo_refs(repo_id, repo_type="dataset").tags):
        raise ConfigError(f"{repo_id} already has tag {tag}: a published version is never rewritten; "
                          "build a new version= / --dataset-version")
    files = _local_files(folder, manifest)
    commit = api.upload_folder(repo_id=repo_id, folder_path=folder, repo_type="dataset",
                               commit_message=f"noisecraft: dataset version {version}",
                               allow_patterns=list(files), delete_patterns=["*", "**/*"])
    problems = verify_upload(api, repo_id, commit.oid, files)
    remote = set(api.list_repo_files(repo_id, revision=commit.oid, repo_type="dataset")) - {".gitattributes"}
    problems += [f"{path}: on the Hub but not in this version" for path in sorted(remote - set(files))]
    if problems:
        raise NoisecraftError(f"upload of {folder} to {repo_id} ({commit.oid}) did not verify, no tag created: "
                              + "; ".join(problems))
    api.create_tag(repo_id, tag=tag, revision=commit.oid, repo_type="dataset",
                   tag_message=f"noisecraft dataset version {version}")
    return tag
