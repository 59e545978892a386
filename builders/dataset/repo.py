"""A Hub dataset repo on disk: a ``README.md`` card that carries its manifest, and ``<config>/<split>-<digest>-*.parquet``.

Challenge sets (``noisecraft build``) and mined noise dictionaries (``noisecraft mine``) are both
written this way. The manifest records the repo's kind and version and, per config, everything needed
to regenerate it (its spec), its statistics and its data files; the card is rendered from it.

**One atomic view.** Most readers of a folder are plain ``datasets``, which reads the card's YAML
``configs:`` and the files it names, and knows nothing else. So the card is the one switch:

1. data files are written under content-addressed names, ``<config>/<split>-<digest>-NNNNN-of-NNNNN.parquet``
   (``digest``: the first 12 hex digits of the sha256 of the config's shards, :func:`shards_digest`), which no
   card in place names yet (the same content gives the same name and the same bytes, so an unchanged config
   replaces its files by identical ones);
2. the card, whose YAML names exactly these files (a list of paths, no glob) and whose last lines carry the
   manifest as JSON in an HTML comment (:func:`card_with_manifest`), replaces ``README.md`` in one ``os.replace``;
3. data files no card names any more are deleted.

A kill before step 2 leaves the old card, which names only old files, all still there; a kill after it leaves
the new card and its files; a kill in step 3 leaves files no card names, which readers ignore (they read the
files the manifest names) and the next writer deletes. The manifest cannot disagree with the card because it is
inside it (a manifest file beside the card would be a second rename, and between the two a reader would see a card
of one version and a manifest of another): every reader gets it through :func:`read_manifest`, and ``publish``
uploads the card and the files it names, nothing else. A folder that was never committed has no card:
``load_dataset`` of a config is then an error, never a half view.

A writer holds ``.noisecraft.lock`` (a second writer gets a clear error); opening a folder for writing also
removes what killed writers left (``.staging-*`` folders, ``.*.tmp`` files, data files no card names). A folder
made by another kind, dataset version or toolkit version is refused rather than mixed.
"""

from __future__ import annotations

import copy
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

#: The card: ``datasets`` reads its YAML ``configs:``; noisecraft reads the manifest at its end.
CARD = "README.md"
FORMAT = 2
#: Opens the HTML comment that carries the manifest, the card's last lines (invisible where the card is rendered).
MANIFEST_MARK = "<!-- noisecraft manifest (what built this dataset; read by noisecraft, rendered above)"
#: The name of a data file a commit writes: split, content digest, shard number and count.
SHARD = re.compile(r"(?P<split>\w+(?:\.\w+)*)-(?P<digest>[0-9a-f]{12})-\d{5}-of-\d{5}\.parquet")


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


def card_with_manifest(card: str, manifest: dict[str, Any]) -> str:
    """``card`` with ``manifest`` appended as JSON in an HTML comment (``<``, ``>`` and ``&`` escaped, so the JSON
    can never close the comment), so that one file, replaced in one step, holds both."""
    text = json.dumps(manifest, indent=1, ensure_ascii=False)
    text = text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return f"{card}\n{MANIFEST_MARK}\n{text}\n-->\n"


def split_card(text: str, path: Path) -> tuple[str, dict[str, Any] | None]:
    """The card's text before its manifest, and the manifest (``None`` when the card carries none: not written by
    noisecraft); a manifest that does not parse or has the wrong shape is a one-line error naming ``path``."""
    start = text.rfind(f"\n{MANIFEST_MARK}\n")
    if start < 0:
        return text, None
    body, block = text[:start], text[start + len(MANIFEST_MARK) + 2:]
    if not block.endswith("\n-->\n"):
        raise ConfigError(f"{path}: unreadable manifest: the comment that carries it is not closed at the card's end")
    try:
        manifest = json.loads(block[:-len("-->\n")])
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: unreadable manifest: {str(exc).splitlines()[0]}") from None
    return body, check_manifest(manifest, path)


def manifest_or_none(root: Path) -> dict[str, Any] | None:
    """The manifest the card of ``root`` carries, ``None`` when there is no card or it carries none."""
    path = Path(root) / CARD
    if not path.is_file():
        return None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: unreadable card: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    return split_card(text, path)[1]


def read_manifest(root: Path) -> dict[str, Any]:
    """The manifest of a folder, from its card: what ``datasets`` reads is always the version it describes.
    Raises :class:`ConfigError` (one line) naming the folder or card when there is none or it is malformed."""
    manifest = manifest_or_none(root)
    if manifest is None:
        raise ConfigError(f"{root} holds no noisecraft dataset ({CARD} with the manifest noisecraft writes at its end): "
                          "give a folder made by `noisecraft build` or `noisecraft mine`")
    return manifest


def data_files(manifest: dict[str, Any], config: str) -> dict[str, list[str]]:
    """``{split: [paths relative to the folder]}``: the files of ``config`` that its card names."""
    return manifest["configs"][config].get("files") or {}


def shards_digest(paths: Iterable[Path]) -> str:
    """The content address of a split's shards (in order): 12 hex digits of the sha256 of their bytes."""
    import hashlib

    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()[:12]


#: ``datasets``' own rule for split names (``datasets.naming._split_re``): word characters in dot-separated parts.
SPLIT_NAME = re.compile(r"\w+(\.\w+)*")


def check_name(kind: str, name: str) -> str:
    """A config or split name that is safe as a folder name and loadable by ``datasets``."""
    if kind == "split":
        if not SPLIT_NAME.fullmatch(name) or len(name) > 100:
            raise ConfigError(f"invalid split name {name!r}: datasets loads only letters, digits and _ in parts "
                              "separated by single dots (validation, validation_matched; not my-split)")
        return name
    if not NAME.fullmatch(name) or name == CARD or ".." in name:
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
        if not SEMVER.fullmatch(version):
            raise ConfigError(f"dataset version {version!r} is not a semantic version like 1.0.0 (it becomes the tag v<version>)")
        if self.root.exists() and not self.root.is_dir():
            raise ConfigError(f"{self.root} exists and is not a folder")
        self._created = not self.root.exists()
        self._staged: dict[str, tuple[Path, str, list[str]]] = {}
        written_before = (self.root / LOCK).exists()  # a writer left its lock: a build killed before its first card
        self._lock = self._acquire_lock()
        try:
            self._committed = manifest_or_none(self.root)
            if self._committed is not None or (written_before and not (self.root / CARD).exists()):
                self._remove_unreferenced()  # never in a folder noisecraft did not write
            self.manifest = self._open(version, pretty_name, kind)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> DatasetRepo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Drop staged splits that were never committed and release the lock."""
        self._drop_staged()
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

    def _remove_unreferenced(self) -> None:
        """Delete what killed or failed writers left (the lock is held, so none of it is in use): staging folders,
        temporary files, and data files (named as commits name them) that the card in place does not name."""
        committed = self._committed or {"configs": {}}
        named = {path for config in committed["configs"] for paths in data_files(committed, config).values()
                 for path in paths}
        for path in self.root.iterdir():
            if path.is_dir() and not path.is_symlink() and path.name.startswith(".staging-"):
                shutil.rmtree(path, ignore_errors=True)
            elif path.is_file() and path.name.startswith(".") and path.name.endswith(".tmp"):
                path.unlink(missing_ok=True)
            elif path.is_dir() and not path.is_symlink() and NAME.fullmatch(path.name):
                for file in path.iterdir():
                    if SHARD.fullmatch(file.name) and file.is_file() and f"{path.name}/{file.name}" not in named:
                        file.unlink()
                if not any(path.iterdir()):  # a config folder a killed commit made, or one whose files all went
                    path.rmdir()

    def _open(self, version: str, pretty_name: str | None, kind: str) -> dict[str, Any]:
        if self._committed is not None:
            manifest = copy.deepcopy(self._committed)
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
        if any(not p.name.startswith(".") for p in self.root.iterdir()):
            raise ConfigError(f"{self.root} is not empty and holds no noisecraft dataset ({CARD} with its manifest): "
                              "refusing to write a dataset into it")
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
        """Write Arrow tables (in order) as ``<config>/<split>-<digest>-NNNNN-of-NNNNN.parquet`` of the Arrow
        ``schema`` (whose ``huggingface`` metadata holds the ``datasets`` features:
        :func:`noisecraft.core.schema.arrow_schema`), and return the paths the shards will have once committed.

        Rows are regrouped into row groups of exactly ``row_group_rows`` and shards of ``shard_rows``
        whatever the incoming table sizes, so the bytes (and so the names) do not depend on how the rows were
        batched. Shards are staged in a hidden folder until :meth:`commit`, and only when all are written and
        ``check`` (called after the last table) passes: an interruption leaves the folder as it was.
        """
        check_name("config", config)
        check_name("split", split)
        staging = Path(tempfile.mkdtemp(prefix=f".staging-{config}.", dir=self.root))
        try:
            shards = _write_shards(staging, tables, schema, row_group_rows, shard_rows)
            if check is not None:
                check()
            if not shards:
                raise ConfigError(f"{config}: no rows to write")
            digest = shards_digest(shards)
            final = [f"{split}-{digest}-{i:05d}-of-{len(shards):05d}.parquet" for i in range(len(shards))]
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
            shutil.rmtree(self._staged[config][0], ignore_errors=True)
        self._staged[config] = (staging, split, final)
        if config in self.manifest["configs"]:
            self.manifest["configs"][config]["files"] = self._files(config)
        return [self.root / config / name for name in final]

    def _files(self, config: str) -> dict[str, list[str]]:
        _, split, names = self._staged[config]
        return {split: [f"{config}/{name}" for name in names]}

    def commit(self, card: str) -> None:
        """Move the staged files in beside the old ones, switch ``README.md`` to ``card`` carrying the manifest
        (the one step that changes what readers see), then delete the files no card names (see the module)."""
        unnamed = [name for name, entry in self.manifest["configs"].items() if not entry.get("files")]
        if unnamed:
            raise ValueError(f"config(s) {', '.join(unnamed)} were recorded without data files (write_split first)")
        try:
            for config, (staging, _, names) in self._staged.items():
                (self.root / config).mkdir(exist_ok=True)
                for name in names:
                    os.replace(staging / name, self.root / config / name)
            atomic_write_text(self.root / CARD, card_with_manifest(card, self.manifest))
        except Exception:
            self._remove_unreferenced()  # the card in place is the old one: the moved files are unnamed
            raise
        self._committed = copy.deepcopy(self.manifest)
        self._remove_unreferenced()
        self._drop_staged()

    def _drop_staged(self) -> None:
        """Remove the staging folders (what they still hold was never committed)."""
        for staging, _, _ in self._staged.values():
            shutil.rmtree(staging, ignore_errors=True)
        self._staged = {}

    def record_recipe(self, recipe: dict[str, Any]) -> None:
        """Keep the resolved recipe that built this folder (printed in the card; saved by :meth:`commit`)."""
        self.manifest["recipe"] = recipe

    def record_config(self, name: str, entry: dict[str, Any]) -> None:
        """Add or replace a config in the manifest (saved by :meth:`commit`); its data files are those
        :meth:`write_split` staged for it, or else the ones it had."""
        held = self.manifest["configs"].get(name, {})
        files = self._files(name) if name in self._staged else held.get("files")
        self.manifest["configs"][name] = {**entry, "files": files} if files else entry
        self.manifest["configs"] = dict(sorted(self.manifest["configs"].items()))


def _write_shards(staging: Path, tables: Iterable[Any], schema: Any, row_group_rows: int, shard_rows: int) -> list[Path]:
    """Write ``tables`` into ``staging`` as numbered parquet shards of ``shard_rows`` rows in row groups of exactly
    ``row_group_rows`` (the last of each may be shorter); returns the shards in order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if shard_rows % row_group_rows:
        raise ValueError("shard_rows must be a multiple of row_group_rows")
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
    return shards
