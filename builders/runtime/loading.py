"""Model ids and revisions resolved to what is loaded and recorded; each model loaded once per process.

A model is named by a Hub id (``Helsinki-NLP/opus-mt-en-de``) with an optional revision (branch, tag
or commit), or by a local folder. Either way the output depends on the exact weights, so the
resolved identity is recorded in the card and enters every cache key: the **commit** of a Hub
snapshot, or ``sha256:<digest>`` of a local folder's files. Loading is always the library's own
``from_pretrained(name, revision=...)``: the tests exercise that path with folders they build.

Without network, a Hub id is served from the local Hugging Face cache or fails in seconds with a
message saying how to get the model; nothing waits for retries.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from noisecraft.core.hub import UNREACHABLE, hub_available
from noisecraft.errors import ConfigError
from noisecraft.runtime.device import Placement


@dataclass(frozen=True)
class ModelRef:
    """A resolved model: ``name`` as the user gave it, ``revision`` as recorded (a commit, or
    ``sha256:...`` for a local folder), and how to load it."""

    name: str
    revision: str
    local: bool

    @property
    def load_from(self) -> str:
        """What ``from_pretrained`` is given: the folder, or the Hub id."""
        return self.name

    @property
    def hub_revision(self) -> str | None:
        """What ``from_pretrained`` gets as ``revision``: the resolved commit (``None`` for a folder)."""
        return None if self.local else self.revision

    def fingerprint(self) -> dict[str, str]:
        """The model's part of a fingerprint (what decides an output): its name and resolved revision; a
        local folder by its last part (cards are shared), its content by the digest."""
        return {"model": Path(self.name).name if self.local else self.name, "revision": self.revision}


#: Seconds within which a file changed too recently for its stat stamp to be trusted (file systems keep
#: coarse timestamps): such a folder is hashed again instead of read from the memo.
_DOUBT_SECONDS = 2.0


def folder_digest(folder: Path) -> str:
    """``sha256:`` of a folder's files (relative names and contents), in a stable order.

    Hashing gigabytes of weights on every call would be slow, so digests are memoised per process by each
    file's inode, size, mtime **and ctime**: a file replaced by another of the same size and mtime (copied
    over, or renamed into place) changes its inode or ctime, which ``os.utime`` cannot set back. A folder
    with a file changed in the last :data:`_DOUBT_SECONDS` seconds is hashed again (timestamps too coarse to
    tell two writes apart).
    """
    import time

    folder = folder.resolve()
    files = [(p, p.stat()) for p in sorted(folder.rglob("*")) if p.is_file()]
    stamps = tuple((str(p), info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns) for p, info in files)
    newest = max((max(info.st_mtime_ns, info.st_ctime_ns) for _, info in files), default=0)
    if time.time_ns() - newest < _DOUBT_SECONDS * 1e9:
        return _hash_folder(folder, stamps)
    return _memoised_folder_digest(folder, stamps)


def _hash_folder(folder: Path, stamps: tuple[tuple[Any, ...], ...]) -> str:
    digest = hashlib.sha256()
    for name, *_ in stamps:
        path = Path(name)
        digest.update(str(path.relative_to(folder)).encode("utf-8") + b"\0")
        _feed(digest, path)
    return f"sha256:{digest.hexdigest()}"


def _feed(digest: Any, path: Path) -> None:
    """A file's bytes into ``digest``, a megabyte at a time (weights can be gigabytes)."""
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)


def file_sha256(path: Path) -> str:
    """``sha256:`` of one file's bytes (a checkpoint or language model file, as its provenance records it)."""
    digest = hashlib.sha256()
    _feed(digest, path)
    return f"sha256:{digest.hexdigest()}"


_memoised_folder_digest = functools.cache(_hash_folder)


def resolve_model(name: str, revision: str | None = None) -> ModelRef:
    """Resolve a Hub id (+ revision) or a local folder; a model that cannot be had is a clear error."""
    folder = Path(name).expanduser()
    if folder.is_dir():  # a relative folder is made absolute first: its files are named relative to it
        folder = folder.resolve()
        if revision:
            raise ConfigError(f"{name} is a local folder: it has no revision (its files' digest is recorded instead)")
        if not (folder / "config.json").is_file():
            raise ConfigError(f"{name} is a folder without config.json: not a saved model")
        return ModelRef(str(folder), folder_digest(folder), local=True)
    if name.count("/") > 1 or name.startswith((".", "/", "~")) or folder.parent.is_dir() and folder.parent.name:
        # ``models/opus-mt-en-de`` beside a ``models/`` folder names a folder, not the Hub's user "models"
        raise ConfigError(f"model {name!r}: no such folder ({folder.resolve()} does not exist), and not a Hugging Face "
                          "Hub id")
    return ModelRef(name, _hub_commit(name, revision), local=False)


def _hub_commit(name: str, revision: str | None) -> str:
    """The commit ``revision`` of Hub model ``name`` resolves to: asked of the Hub when it can be reached,
    else read from the local Hugging Face cache."""
    from huggingface_hub import try_to_load_from_cache

    if hub_available():
        from huggingface_hub import HfApi  # only with network: importing the Hub client alone takes ~1-4 s

        try:
            sha = HfApi().model_info(name, revision=revision, timeout=10).sha
        except Exception as exc:
            raise ConfigError(f"model {name!r}{f' at revision {revision!r}' if revision else ''} cannot be found on "
                              f"the Hugging Face Hub: {' '.join(str(exc).split())}") from exc
        if sha:
            return sha
    cached = try_to_load_from_cache(name, "config.json", revision=revision or "main")
    if isinstance(cached, str):  # .../models--org--name/snapshots/<commit>/config.json
        return Path(cached).parent.name
    raise ConfigError(f"model {name!r}: there is no folder {name} here ({Path.cwd()}), {UNREACHABLE} and the Hub id "
                      f"{name}{f' at revision {revision!r}' if revision else ''} is not in the local Hugging Face cache: "
                      f"download it where there is network (hf download {name}) or pass a local folder saved with "
                      "save_pretrained()")


_LOADED: dict[tuple[Any, ...], Any] = {}
#: Weights a loaded model did not find in its checkpoint (newly initialised), by ``id`` of the model.
_NEW_WEIGHTS: dict[int, tuple[str, ...]] = {}


def load_pretrained(loader: Any, ref: ModelRef, placement: Placement | None = None, **kwargs: Any) -> Any:
    """``loader.from_pretrained(ref.load_from, revision=...)``, once per process and placement.

    With a ``placement`` the result is a model: put on that device, in that precision, in eval mode.
    Without, it is returned as loaded (tokenizers, processors, feature extractors).
    """
    key = (getattr(loader, "__qualname__", repr(loader)), ref, placement, tuple(sorted(kwargs.items())))
    if key in _LOADED:
        return _LOADED[key]
    options = dict(kwargs)
    if not ref.local:
        options["revision"] = ref.hub_revision
        options["local_files_only"] = not hub_available()
    if placement is not None:
        options["dtype"] = placement.torch_dtype
        options["output_loading_info"] = True  # which weights the checkpoint lacked (see newly_initialised)
    try:
        loaded = loader.from_pretrained(ref.load_from, **options)
    except ConfigError:
        raise
    except Exception as exc:  # OSError, and what a damaged file raises: SafetensorError, JSONDecodeError, tokenizers'
        what = "" if isinstance(exc, OSError) else f" ({getattr(loader, '__name__', loader)}, {type(exc).__name__})"
        raise ConfigError(f"cannot load {ref.name} ({ref.revision}){what}: {' '.join(str(exc).split())}") from exc
    if placement is None:
        _check_tokenizer(loaded, ref)
    else:
        loaded, info = loaded
        loaded = loaded.to(placement.device).eval()
        _NEW_WEIGHTS[id(loaded)] = tuple(sorted({*info.get("missing_keys", ()),
                                                 *(str(m[0]) if isinstance(m, tuple) else str(m)
                                                   for m in info.get("mismatched_keys", ()))}))
    _LOADED[key] = loaded
    return loaded


def _check_tokenizer(loaded: Any, ref: ModelRef) -> None:
    """Refuse a tokenizer that loads but cannot tokenise (an empty vocabulary, no unknown token): it would fail on
    the first batch, deep in a build, or give every text no tokens at all."""
    from transformers import PreTrainedTokenizerBase

    if not isinstance(loaded, PreTrainedTokenizerBase):
        return
    backend = getattr(loaded, "backend_tokenizer", None)
    if backend is not None and backend.get_vocab_size(with_added_tokens=False) == 0:
        raise ConfigError(f"cannot load {ref.name} ({ref.revision}): its tokenizer's vocabulary is empty")
    try:
        loaded("a")
    except Exception as exc:  # tokenizers raises a bare Exception ("WordPiece error: Missing [UNK] token ...")
        raise ConfigError(f"cannot load {ref.name} ({ref.revision}): its tokenizer cannot encode text: "
                          f"{' '.join(str(exc).split())}") from exc


def newly_initialised(model: Any) -> tuple[str, ...]:
    """Names of the weights of a model from :func:`load_pretrained` that its checkpoint did not have (or had
    in another shape): they were drawn at random, so outputs that read them mean nothing."""
    return _NEW_WEIGHTS.get(id(model), ())


def library_versions(*names: str) -> dict[str, str]:
    """Installed versions of the libraries whose numerics shape a model's output (recorded in cards and
    cache keys; read once per process: the installed versions do not change under it)."""
    return dict(_installed_versions(names or ("torch", "transformers")))


@functools.cache
def _installed_versions(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    versions = []
    for name in names:
        try:
            versions.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            continue
    return tuple(versions)
