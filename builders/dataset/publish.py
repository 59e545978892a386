"""Publish a challenge repo folder to the Hugging Face Hub and tag its version.

The folder is first verified locally (every config loads; manifest, card and files agree). It is
then uploaded as one commit that also deletes remote files which are not part of this version;
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
from noisecraft.dataset.repo import JOURNAL, MANIFEST, NOISE_DICTIONARY, check_name, read_manifest
from noisecraft.errors import ConfigError, NoisecraftError


def git_blob_id(data: bytes) -> str:
    """The git object id of a file's content, as the Hub reports for non-LFS files."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _local_files(folder: Path) -> dict[str, Path]:
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)}


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
        card = (folder / "README.md").read_text(encoding="utf-8")
        expected = render(manifest)
    except (OSError, UnicodeDecodeError, KeyError, TypeError) as exc:
        raise ConfigError(f"{folder / 'README.md'}: cannot check the card against {MANIFEST} "
                          f"({type(exc).__name__}: {exc})") from None
    if card != expected:
        line = next(i for i, (a, b) in enumerate(zip([*card.splitlines(), ""], [*expected.splitlines(), ""]), 1) if a != b)
        raise ConfigError(f"{folder / 'README.md'}, line {line}: the card differs from what {MANIFEST} renders (edited "
                          "or stale), nothing uploaded: rebuild into the folder to re-render it")


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

    Every config of the manifest is in the card's metadata and has parquet files, every parquet file
    belongs to a config of the manifest, no commit is half done, and each config loads with
    ``datasets.load_dataset`` with the row count the manifest records.
    """
    from huggingface_hub import DatasetCard

    if not (folder / MANIFEST).is_file() and not (folder / JOURNAL).exists():
        raise ConfigError(f"{folder} holds no {MANIFEST}: build it with `noisecraft build` first")
    manifest = read_manifest(folder)
    configs = set(manifest["configs"])
    outside = _links_outside(folder)
    if outside:
        raise ConfigError(f"{folder} does not verify, nothing uploaded: {outside[0]} is a symlink to "
                          f"{os.path.realpath(folder / outside[0])}, outside the folder (the upload would publish that "
                          "file): replace it with the file itself or remove it")
    try:
        card = DatasetCard.load(folder / "README.md")
    except Exception as exc:  # missing file or bad YAML: huggingface_hub raises several types
        raise ConfigError(f"{folder / 'README.md'}: no readable dataset card: {exc}") from exc
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
    """What is wrong with a folder's parquet files against its manifest (empty: nothing): a file of no config of
    the manifest, a config without files. Checked before a folder is published and before it is evaluated."""
    configs = set(manifest["configs"])
    problems = [f"{path} belongs to no config of the manifest" for path in _local_files(folder)
                if path.endswith(".parquet") and path.split("/")[0] not in configs]
    for name in sorted(configs):
        check_name("config", name)
        if not list((folder / name).glob("*.parquet")):
            problems.append(f"config {name} has no parquet file")
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
    files = _local_files(folder)
    commit = api.upload_folder(repo_id=repo_id, folder_path=folder, repo_type="dataset",
                               commit_message=f"noisecraft: dataset version {version}",
                               ignore_patterns=[".*", "**/.*"], delete_patterns=["*", "**/*"])
    problems = verify_upload(api, repo_id, commit.oid, files)
    remote = set(api.list_repo_files(repo_id, revision=commit.oid, repo_type="dataset")) - {".gitattributes"}
    problems += [f"{path}: on the Hub but not in this version" for path in sorted(remote - set(files))]
    if problems:
        raise NoisecraftError(f"upload of {folder} to {repo_id} ({commit.oid}) did not verify, no tag created: "
                              + "; ".join(problems))
    api.create_tag(repo_id, tag=tag, revision=commit.oid, repo_type="dataset",
                   tag_message=f"noisecraft dataset version {version}")
    return tag
