"""A Hub dataset repo on disk: ``README.md`` card, ``<config>/<split>-*.parquet``, and a manifest.

Challenge sets (``noisecraft build``) and mined noise dictionaries (``noisecraft mine``) are both
written this way. ``noisecraft.json`` records the repo's kind and version and, per config,
everything needed to regenerate it (its spec) and its statistics; the card is rendered from it.

The folder is a transaction. A writer holds ``.noisecraft.lock`` (a second writer gets a clear
error); new splits are staged in hidden folders; :meth:`DatasetRepo.commit` first writes a journal
of what it will do (staged config folders, the new manifest and card), then swaps the configs in and
writes manifest and card, then deletes the journal. An interruption before the journal leaves the
folder as it was; one after it is rolled forward the next time the folder is opened for writing, which
also removes what killed writers left (``.staging-*`` and ``.old-*`` folders, ``.*.tmp`` files). Between
the journal and its deletion the folder mixes old and new files, so every reader (evaluate, publish,
noise dictionaries) goes through :func:`read_manifest`, which refuses a folder with a pending journal. A
folder made by another kind, dataset version or toolkit version is refused rather than mixed.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from noisecraft.errors import ConfigError
from noisecraft.version import __version__

MANIFEST = "noisecraft.json"
FORMAT = 1


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class WriteError(ConfigError, OSError):
    """A write the OS refused, as one line for the CLI (a :class:`ConfigError`); still an ``OSError`` for callers."""


def write_failed(target: Path, exc: OSError, safe: str = "the previous file is intact") -> WriteError:
    """The one-line error for a write the OS refused (disk full, quota, read-only): what came before is intact."""
    reason = "No space left on device" if exc.errno == errno.ENOSPC or "No space left" in str(exc) else \
        (exc.strerror or " ".join(str(exc).split()) or type(exc).__name__)
    return WriteError(f"cannot write {target}: {reason}; {safe}: free space and run the command again")


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp: Path | None = None
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600 files; published files are ordinary ones
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise write_failed(path, exc) from exc
    except BaseException:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Atomically write UTF-8 text."""
    atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


CHALLENGE_SET = "challenge-set"
NOISE_DICTIONARY = "noise-dictionary"


#: Config and split names: what ``datasets`` accepts as a folder name in a Hub repo, nothing hidden.
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}")
#: Dataset versions are semantic versions: the Hub tag is ``v<version>``.
SEMVER = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?")
JOURNAL = ".noisecraft-commit.json"
LOCK = ".noisecraft.lock"


def check_manifest(manifest: Any, path: Path) -> dict[str, Any]:
    """``manifest`` if it has the shape noisecraft writes (an object whose ``configs`` maps names to objects
    with a ``spec`` object); else a one-line error naming the file."""
    problem = None
    if not isinstance(manifest, dict):
        problem = f"expected a JSON object, got {type(manifest).__name__}"
    elif not isinstance(manifest.get("configs"), dict):
        problem = f"'configs' must be an object of configs, got {type(manifest.get('configs')).__name__}"
    elif not all(isinstance(k, str) for k in (manifest.get("kind", ""), manifest.get("version", ""))):
        problem = "'kind' and 'version' must be strings"
    else:
        for name, entry in manifest["configs"].items():
            if not isinstance(entry, dict) or not isinstance(entry.get("spec"), dict):
                problem = f"config {name!r} must be an object with a 'spec' object"
                break
    if problem:
        raise ConfigError(f"{path}: not a noisecraft manifest: {problem}")
    return manifest


def _load_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: unreadable {what}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None


def read_manifest(root: Path) -> dict[str, Any]:
    """The manifest of a folder for a reader: refused while a commit is pending (the folder then mixes old and
    new files) and checked for shape. Raises :class:`ConfigError` (one line) naming the folder or file."""
    root = Path(root)
    if (root / JOURNAL).exists():
        raise ConfigError(f"{root} has an unfinished commit ({JOURNAL}: a build was interrupted while swapping "
                          "files in): the next `noisecraft build` into it finishes it; until then it is not read")
    path = root / MANIFEST
    if not path.is_file():
        raise ConfigError(f"{root} holds no {MANIFEST}")
    return check_manifest(_load_json(path, "manifest"), path)


#: ``datasets``' own rule for split names (``datasets.naming._split_re``): word characters in dot-separated parts.
SPLIT_NAME = re.compile(r"\w+(\.\w+)*")


def check_name(kind: str, name: str) -> str:
    """A config or split name that is safe as a folder name and loadable by ``datasets``."""
    if kind == "split":
        if not SPLIT_NAME.fullmatch(name) or len(name) > 100:
            raise ConfigError(f"invalid split name {name!r}: datasets loads only letters, digits and _ in parts "
                              "separated by single dots (validation, validation_matched; not my-split)")
        return name
    if not NAME.fullmatch(name) or name in (MANIFEST, "README.md") or ".." in name:
        raise ConfigError(f"invalid {kind} name {name!r}: use letters, digits and _ . + - (not starting with "
                          "a dot or dash, at most 100 characters)")
    return name


def valid_config_name(generated: str, limit: int = 100) -> str:
    """A generated config name made valid (a name the user gave is checked, never changed): characters a folder
    name cannot hold become ``-``, and a name over ``limit`` characters keeps its start plus a digest of the
    whole, so two long names stay apart."""
    import hashlib

    name = re.sub(r"[^A-Za-z0-9_.+-]+", "-", generated)
    name = re.sub(r"\.{2,}", ".", name).lstrip(".-_+") or "config"
    if len(name) > limit:
        digest = hashlib.blake2b(generated.encode("utf-8"), digest_size=5).hexdigest()
        name = f"{name[:limit - len(digest) - 1].rstrip('.-_+')}-{digest}"
    return name


class DatasetRepo:
    """The output folder of one dataset version of one kind; configs are staged, then committed together.

    Use it as a context manager (or call :meth:`close`) to release the writer's lock.
    """

    def __init__(self, root: Path, version: str, pretty_name: str | None = None, kind: str = CHALLENGE_SET) -> None:
        self.root = Path(root)
        self.manifest_path = self.root / MANIFEST
        if not SEMVER.fullmatch(version):
            raise ConfigError(f"dataset version {version!r} is not a semantic version like 1.0.0 (it becomes the tag v<version>)")
        if self.root.exists() and not self.root.is_dir():
            raise ConfigError(f"{self.root} exists and is not a folder")
        self._created = not self.root.exists()
        self._lock = self._acquire_lock()
        try:
            self._roll_forward()
            self._remove_leftovers()
            self.manifest = self._open(version, pretty_name, kind)
        except BaseException:
            self.close()
            raise
        self._staged: dict[str, Path] = {}

    def __enter__(self) -> DatasetRepo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Drop staged splits that were never committed and release the lock."""
        for staging in getattr(self, "_staged", {}).values():
            shutil.rmtree(staging, ignore_errors=True)
        self._staged = {}
        if self._lock is not None:
            self._lock.close()  # closing the descriptor releases the flock
            self._lock = None
            if [p.name for p in self.root.iterdir()] == [LOCK]:  # a failed first build leaves the folder as it was
                (self.root / LOCK).unlink(missing_ok=True)
                if self._created:
                    self.root.rmdir()

    def _acquire_lock(self) -> Any:
        import fcntl

        try:
            self.root.mkdir(parents=True, exist_ok=True)
            handle = open(self.root / LOCK, "a")  # noqa: SIM115 (held until close)
        except OSError as exc:
            raise ConfigError(f"cannot write to the output folder {self.root}: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise ConfigError(f"another noisecraft is writing to {self.root} (it holds {self.root / LOCK}); "
                              "wait for it to finish or use another folder") from None
        return handle

    def _remove_leftovers(self) -> None:
        """What killed writers left: staged or replaced config folders and temporary files (the lock is held and
        no commit is pending, so none of them is in use)."""
        for path in self.root.iterdir():
            if path.is_dir() and not path.is_symlink() and path.name.startswith((".staging-", ".old-")):
                shutil.rmtree(path, ignore_errors=True)
            elif path.is_file() and path.name.startswith(".") and path.name.endswith(".tmp"):
                path.unlink(missing_ok=True)

    def _open(self, version: str, pretty_name: str | None, kind: str) -> dict[str, Any]:
        if self.manifest_path.is_file():
            manifest = check_manifest(_load_json(self.manifest_path, "manifest"), self.manifest_path)
            if manifest.get("kind", CHALLENGE_SET) != kind:
                raise ConfigError(f"{self.root} holds a {manifest.get('kind')} dataset, not a {kind}: use another folder")
            held = (manifest.get("version"), manifest.get("toolkit_version"))
            if held != (version, __version__):
                raise ConfigError(
                    f"{self.root} holds version {held[0]} built by noisecraft {held[1]}; this build is version "
                    f"{version} with noisecraft {__version__}. Use another out= / --out folder (or the same "
                    "version= / --dataset-version and toolkit) so that one repo never mixes versions."
                )
            if pretty_name:
                manifest["pretty_name"] = pretty_name
            return manifest
        if self.root.exists() and any(not p.name.startswith(".") for p in self.root.iterdir()):
            raise ConfigError(f"{self.root} is not empty and holds no {MANIFEST}: refusing to write a dataset into it")
        return {"format": FORMAT, "kind": kind, "version": version, "toolkit_version": __version__,
                "pretty_name": pretty_name, "configs": {}}

    def check_config(self, name: str, spec: dict[str, Any], overwrite: bool) -> None:
        """Refuse to replace a config built with a different spec unless asked to."""
        held = self.manifest["configs"].get(name)
        if held is not None and held["spec"] != spec and not overwrite:
            raise ConfigError(
                f"config {name!r} in {self.root} was built with a different spec ({held['spec']}); "
                "pass config_name= / --config-name to add it under another name, or overwrite=True / --overwrite to replace it"
            )

    def write_split(self, config: str, split: str, tables: Iterable[Any], schema: Any,
                    row_group_rows: int = 10_000, shard_rows: int = 200_000,
                    check: Callable[[], None] | None = None) -> list[Path]:
        """Write Arrow tables (in order) as ``<config>/<split>-NNNNN-of-NNNNN.parquet`` of the Arrow ``schema``
        (whose ``huggingface`` metadata holds the ``datasets`` features: :func:`noisecraft.core.schema.arrow_schema`),
        and return the shard paths.

        Rows are regrouped into row groups of exactly ``row_group_rows`` and shards of ``shard_rows``
        whatever the incoming table sizes, so the bytes do not depend on how the rows were batched.
        Shards are staged in a hidden folder and swapped in only when all are written and ``check``
        (called after the last table) passes: an interruption leaves the previous files.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        if shard_rows % row_group_rows:
            raise ValueError("shard_rows must be a multiple of row_group_rows")
        check_name("config", config)
        check_name("split", split)
        staging = Path(tempfile.mkdtemp(prefix=f".staging-{config}.", dir=self.root))
        try:
            shards: list[Path] = []
            writer = None
            in_shard = 0
            buffered: list[Any] = []
            buffered_rows = 0

            def flush(group: Any) -> None:
                nonlocal writer, in_shard
                if writer is None:
                    shards.append(staging / f"{len(shards):05d}.parquet")
                    writer = pq.ParquetWriter(shards[-1], schema, compression="zstd")
                writer.write_table(group, row_group_size=row_group_rows)
                in_shard += group.num_rows
                if in_shard >= shard_rows:
                    writer.close()
                    writer, in_shard = None, 0

            for table in tables:
                if table.num_rows:
                    buffered.append(table)
                    buffered_rows += table.num_rows
                while buffered_rows >= row_group_rows:
                    joined = pa.concat_tables(buffered).combine_chunks()
                    flush(joined.slice(0, row_group_rows))
                    rest = joined.slice(row_group_rows)
                    buffered, buffered_rows = ([rest] if rest.num_rows else []), rest.num_rows
            if buffered_rows:
                flush(pa.concat_tables(buffered).combine_chunks())
            if writer is not None:
                writer.close()
            if check is not None:
                check()
            if not shards:
                raise ConfigError(f"{config}: no rows to write")
            final = [f"{split}-{i:05d}-of-{len(shards):05d}.parquet" for i in range(len(shards))]
            for shard, name in zip(shards, final):
                os.chmod(shard, 0o666 & ~_umask())
                shard.rename(staging / name)
        except OSError as exc:  # disk full while staging: the folder itself was not touched
            shutil.rmtree(staging, ignore_errors=True)
            raise write_failed(self.root / config, exc, "nothing in the folder was changed") from exc
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if config in self._staged:
            shutil.rmtree(self._staged[config], ignore_errors=True)
        self._staged[config] = staging
        return [self.root / config / name for name in final]

    def commit(self, card: str) -> None:
        """Swap every staged config in and write the manifest and ``card`` together (see the module)."""
        journal = {"configs": {name: path.name for name, path in self._staged.items()},
                   "manifest": self.manifest, "card": card}
        atomic_write_text(self.root / JOURNAL, json.dumps(journal, ensure_ascii=False))
        self._staged = {}
        self._roll_forward()

    def _roll_forward(self) -> None:
        """Finish a commit whose journal was written (after an interruption, on the next open)."""
        path = self.root / JOURNAL
        if not path.is_file():
            return
        journal = _load_json(path, "commit journal (remove it to continue)")
        # a journal is written atomically: another shape means a foreign file, never half of ours
        if not (isinstance(journal, dict) and isinstance(journal.get("configs"), dict)
                and all(isinstance(k, str) and isinstance(v, str) and v.startswith(".staging-")
                        for k, v in journal["configs"].items())
                and isinstance(journal.get("card"), str)):
            raise ConfigError(f"{path}: not a noisecraft commit journal (expected configs, manifest and card); "
                              "remove it to continue")
        check_manifest(journal.get("manifest"), path)
        for config, staged_name in journal["configs"].items():
            check_name("config", config)
            staged = self.root / staged_name
            if not staged.is_dir():
                continue  # already swapped in
            target = self.root / config
            if target.exists():
                trash = Path(tempfile.mkdtemp(prefix=f".old-{config}.", dir=self.root))
                os.replace(target, trash / config)
                os.replace(staged, target)
                shutil.rmtree(trash, ignore_errors=True)
            else:
                os.replace(staged, target)
        atomic_write_text(self.manifest_path, json.dumps(journal["manifest"], indent=1, ensure_ascii=False) + "\n")
        atomic_write_text(self.root / "README.md", journal["card"])
        path.unlink()

    def record_recipe(self, recipe: dict[str, Any]) -> None:
        """Keep the resolved recipe that built this folder (printed in the card; saved by :meth:`commit`)."""
        self.manifest["recipe"] = recipe

    def record_config(self, name: str, entry: dict[str, Any]) -> None:
        """Add or replace a config in the manifest (saved by :meth:`commit`)."""
        self.manifest["configs"][name] = entry
        self.manifest["configs"] = dict(sorted(self.manifest["configs"].items()))
