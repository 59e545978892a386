"""Content-addressed on-disk cache of model outputs.

A cache is one SQLite file per *fingerprint*: everything besides the input that decides a model's
output (model ids and resolved revisions, decode settings, precision, library versions that change
numerics; never the device or the batch size). Entries are keyed by a digest of the input, so a new
seed, another config of the same recipe, or a re-run after an interruption asks the model nothing it has answered before.

SQLite gives the safety the build needs without a home-made format: each stored batch is one
transaction (an interrupted run loses at most the batch in flight, never a half-written entry),
readers in worker processes never see a partial write, and two builds sharing a cache serialise
their writes. The root is ``$NOISECRAFT_CACHE`` or ``~/.cache/noisecraft``. A cache the disk refuses (full, read-only,
corrupt) is a one-line :class:`~noisecraft.errors.ConfigError` naming the file: the batches stored before are kept,
and the build's own files are staged, so nothing is lost.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from noisecraft.core.seeding import canonical_json
from noisecraft.errors import ConfigError


def cache_root() -> Path:
    """Where caches live: ``$NOISECRAFT_CACHE``, else ``$XDG_CACHE_HOME/noisecraft`` or ``~/.cache/noisecraft``."""
    if os.environ.get("NOISECRAFT_CACHE"):
        return Path(os.environ["NOISECRAFT_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "noisecraft"


def input_key(value: Any) -> str:
    """Digest of one input (a text, or any JSON value such as a pair or an audio cache key)."""
    material = value if isinstance(value, str) else canonical_json(value)
    return hashlib.blake2b(material.encode("utf-8"), digest_size=20).hexdigest()


class ResultCache:
    """Outputs of one fingerprint, stored as JSON values under input digests."""

    def __init__(self, kind: str, fingerprint: Mapping[str, Any], root: Path | None = None) -> None:
        self.fingerprint = dict(fingerprint)
        self.digest = hashlib.blake2b(canonical_json(self.fingerprint).encode("utf-8"), digest_size=12).hexdigest()
        folder = (root or cache_root()) / kind
        self.path = folder / f"{self.digest}.sqlite"
        described = folder / f"{self.digest}.json"
        with self._refused():
            folder.mkdir(parents=True, exist_ok=True)
            if not described.exists():  # what the opaque file name stands for (written atomically)
                tmp = described.with_suffix(f".json.{os.getpid()}.tmp")
                try:
                    tmp.write_text(json.dumps(self.fingerprint, indent=2, sort_keys=True, ensure_ascii=False) + "\n",
                                   encoding="utf-8")
                    os.replace(tmp, described)
                finally:
                    tmp.unlink(missing_ok=True)
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            with self._refused():
                db = sqlite3.connect(self.path, timeout=60)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("CREATE TABLE IF NOT EXISTS outputs (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                db.commit()
            self._db = db
        return self._db

    @contextmanager
    def _refused(self) -> Iterator[None]:
        """SQLite's or the OS's refusal (``database or disk is full``, a read-only or corrupt file) as one line; the
        connection is closed, so that a later call (space freed) opens it again."""
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            self.close()
            raise ConfigError(f"model cache {self.path}: {exc}; the outputs cached before are kept and nothing was "
                              "written: free space (or set NOISECRAFT_CACHE to another disk) and run again") from exc

    def get_many(self, inputs: Sequence[Any]) -> dict[str, Any]:
        """Stored outputs by input key, for the inputs that have one."""
        keys = sorted({input_key(value) for value in inputs})
        found: dict[str, Any] = {}
        db = self._connect()
        with self._refused():
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for key, value in db.execute(f"SELECT key, value FROM outputs WHERE key IN ({marks})", chunk):
                    found[key] = json.loads(value)
        return found

    def put_many(self, pairs: Sequence[tuple[Any, Any]]) -> None:
        """Store ``(input, output)`` pairs in one transaction (all or nothing)."""
        db = self._connect()
        with self._refused(), db:
            db.executemany("INSERT OR REPLACE INTO outputs (key, value) VALUES (?, ?)",
                           [(input_key(i), json.dumps(o, ensure_ascii=False)) for i, o in pairs])

    def __len__(self) -> int:
        db = self._connect()
        with self._refused():
            return db.execute("SELECT COUNT(*) FROM outputs").fetchone()[0]

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __getstate__(self) -> dict[str, Any]:  # a connection never crosses a process boundary
        return {**self.__dict__, "_db": None}


class CurrentCache:
    """The :class:`ResultCache` of one fingerprint under the *current* :func:`cache_root`, read on every use (so
    ``NOISECRAFT_CACHE`` set after a model is loaded still applies); one cache object per root, made once."""

    def __init__(self, kind: str, fingerprint: Callable[[], Mapping[str, Any]]) -> None:
        self.kind, self.fingerprint = kind, fingerprint
        self._by_root: dict[Path, ResultCache] = {}

    def get(self) -> ResultCache:
        root = cache_root()
        if root not in self._by_root:
            self._by_root[root] = ResultCache(self.kind, self.fingerprint(), root)
        return self._by_root[root]


def cached_map(cache: ResultCache | None, inputs: Sequence[Any],
               compute: Callable[[list[Any], Callable[[list[Any], Sequence[Any]], None]], Sequence[Any]]) -> list[Any]:
    """The output of every input: distinct inputs are looked up in ``cache`` and only the missing ones
    are computed, once each.

    ``compute(missing, store)`` returns one output per missing input, in order, and should call
    ``store(inputs, outputs)`` after each batch so an interruption keeps finished work.
    """
    distinct: dict[str, Any] = {}
    for value in inputs:
        distinct.setdefault(input_key(value), value)
    found = cache.get_many(list(distinct.values())) if cache is not None else {}
    missing_keys = [key for key in distinct if key not in found]
    if missing_keys:
        missing = [distinct[key] for key in missing_keys]

        def store(batch_inputs: list[Any], batch_outputs: Sequence[Any]) -> None:
            if cache is not None:
                cache.put_many(list(zip(batch_inputs, batch_outputs)))

        outputs = compute(missing, store)
        if len(outputs) != len(missing):
            raise RuntimeError(f"model returned {len(outputs)} outputs for {len(missing)} inputs")
        # through JSON, as a cached value would come back: a fresh run and a re-run return the same types
        found.update(zip(missing_keys, json.loads(json.dumps(list(outputs), ensure_ascii=False))))
    return [found[input_key(value)] for value in inputs]
