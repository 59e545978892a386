"""The one way noisecraft reaches the Hugging Face Hub: ask first whether it can be reached at all.

Without network and without ``HF_HUB_OFFLINE=1``, ``datasets.load_dataset`` retries its HEAD requests
for ~25 s before it gives up (build machines and CI have no network). So every Hub call goes through
here: :func:`hub_available` says in at most ``timeout`` seconds (one probe per process, started while
``datasets`` is imported) whether the Hub endpoint takes a TCP connection; when it does not, datasets
are loaded in offline mode (from the local caches only), and one that is not cached is a one-line
:class:`ConfigError` at once.
"""

from __future__ import annotations

import functools
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from noisecraft.errors import ConfigError

#: Seconds the reachability probe may take (connect, DNS included): a build that cannot reach the
#: Hub must fail in well under 3 s, start-up included.
PROBE_TIMEOUT = 1.5
UNREACHABLE = "the Hugging Face Hub cannot be reached (offline?)"
LOCAL_COPY_HINT = "pass data_file= / --data-file with a local copy in the original release format"
_TRUE = {"1", "ON", "YES", "TRUE"}


def offline_by_setting() -> bool:
    """Whether the user switched the Hub off (``HF_HUB_OFFLINE``/``HF_DATASETS_OFFLINE``): no probe then."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE) or os.environ.get("HF_DATASETS_OFFLINE", "").upper() in _TRUE


def endpoint_address() -> tuple[str, int]:
    """``(host, port)`` a Hub request first connects to: the HTTPS proxy when one applies, else the
    endpoint itself (``HF_ENDPOINT``, default ``https://huggingface.co``)."""
    import urllib.request  # here, not at the top: it costs `noisecraft --help` 25 ms (http.client, email)

    from huggingface_hub import constants

    endpoint = urlsplit(constants.ENDPOINT)
    host = endpoint.hostname or "huggingface.co"
    proxy = urllib.request.getproxies().get(endpoint.scheme or "https")
    if proxy and not urllib.request.proxy_bypass(host):
        proxied = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        if proxied.hostname:
            return proxied.hostname, proxied.port or (443 if proxied.scheme == "https" else 80)
    return host, endpoint.port or (443 if endpoint.scheme == "https" else 80)


class _Probe:
    """A TCP connection attempt running in a daemon thread, with a deadline: started early (it
    overlaps ``import datasets``) and read when needed. The thread also bounds a slow DNS lookup,
    which the socket timeout does not cover."""

    def __init__(self, address: tuple[str, int], timeout: float) -> None:
        self.address = address
        self.deadline = time.monotonic() + timeout
        self.finished = threading.Event()
        self.reachable = False
        threading.Thread(target=self._connect, args=(timeout,), name="noisecraft-hub-probe", daemon=True).start()

    def _connect(self, timeout: float) -> None:
        try:
            with socket.create_connection(self.address, timeout=timeout):
                self.reachable = True
        except Exception:  # OSError, or UnicodeError for a host name IDNA cannot encode: not reachable either way
            pass
        finally:
            self.finished.set()

    def result(self) -> bool:
        """Whether the connection succeeded before the deadline (waits at most until then)."""
        self.finished.wait(max(0.0, self.deadline - time.monotonic()))
        return self.finished.is_set() and self.reachable


@functools.cache
def probe(address: tuple[str, int], timeout: float) -> _Probe:
    """The probe of ``address``, started on the first call: one per process."""
    return _Probe(address, timeout)


def endpoint_reachable(address: tuple[str, int], timeout: float) -> bool:
    """Whether ``address`` accepted a TCP connection within ``timeout`` seconds of the first ask."""
    return probe(address, timeout).result()


def hub_available(timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether Hub requests can be made now: not switched off by the user and the endpoint reachable."""
    if offline_by_setting():
        return False
    return endpoint_reachable(endpoint_address(), timeout)


def start_probe(timeout: float = PROBE_TIMEOUT) -> None:
    """Start the reachability probe now, so that it runs while slow imports do."""
    if not offline_by_setting():
        probe(endpoint_address(), timeout)


@contextmanager
def offline_mode() -> Iterator[None]:
    """``datasets`` and ``huggingface_hub`` read only their local caches inside this block.

    Both libraries read ``HF_HUB_OFFLINE`` once, at import; their module flags are what they consult
    on every request, so those are switched for the block and restored after it (process-wide for
    that time: builds load their sources from one thread, before any worker process starts).
    """
    import datasets.config
    from huggingface_hub import constants

    saved = constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE, datasets.config.HF_DATASETS_OFFLINE
    constants.HF_HUB_OFFLINE = datasets.config.HF_HUB_OFFLINE = datasets.config.HF_DATASETS_OFFLINE = True
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE, datasets.config.HF_HUB_OFFLINE, datasets.config.HF_DATASETS_OFFLINE = saved


def describe(hub_id: str, config: str | None, split: str | None) -> str:
    """``nyu-mll/glue (mrpc) split 'validation'``: how messages name a Hub dataset or split."""
    return f"{hub_id}{f' ({config})' if config else ''}{f' split {split!r}' if split else ''}"


def load_hub_dataset(hub_id: str, config: str | None, split: str | None, revision: str | None,
                     hint: str = LOCAL_COPY_HINT) -> Any:
    """``datasets.load_dataset(hub_id, config, split=split, revision=revision)`` (a ``Dataset``, or a
    ``DatasetDict`` when ``split`` is ``None``), failing fast and clearly.

    Hub reachable: the real call. Not reachable: the same call in offline mode, which serves a copy
    from the local datasets/Hub caches and fails at once (no retries) when there is none. ``hint``
    says what to do instead (sources: pass a local data file).
    """
    start_probe()
    import datasets  # ~1 s: the probe runs meanwhile

    online = hub_available()
    try:
        if online:
            return datasets.load_dataset(hub_id, config, split=split, revision=revision)
        with offline_mode():
            return datasets.load_dataset(hub_id, config, split=split, revision=revision)
    except Exception as exc:  # datasets raises many types (ConnectionError, ValueError, FileNotFoundError...)
        reason = " ".join(str(exc).split()) or type(exc).__name__
        if not online:
            raise ConfigError(f"{UNREACHABLE} and {describe(hub_id, config, split)} cannot be loaded from the local "
                              f"datasets cache: {hint} (datasets said: {reason})") from exc
        raise ConfigError(f"cannot load {describe(hub_id, config, split)} from the Hugging Face Hub: {reason}. "
                          f"Offline? {hint[0].upper()}{hint[1:]}.") from exc


def dataset_commit(hub_id: str, revision: str | None) -> str | None:
    """The commit sha ``revision`` (default branch when ``None``) resolves to, or ``None`` when the Hub
    cannot be asked: the caller then relies on what it has (a manifest keeps a digest of the rows)."""
    if not hub_available():
        return None
    from huggingface_hub import HfApi

    try:
        return HfApi().dataset_info(hub_id, revision=revision, timeout=10).sha
    except Exception:  # network or auth errors: the dataset itself may have come from the local cache
        return None
