"""The one process pool of the package: builds (batches of rows) and miners (dump files) both run through it.

:class:`WorkerPool` maps a picklable function over items in worker processes and yields the results **in input
order**, with at most ``in_flight`` items submitted ahead of the one being consumed, so memory stays bounded by a
few items, never by the input. Outputs never depend on which worker did what: every item carries its own seeds.

Workers are started lazily (a build whose splits fit in one batch never starts them) and kept for the pool's
life, so a build reuses them across all its configs. How they start:

* ``fork`` on Linux when this process runs no other thread: the workers share the parent's imported modules
  (copy-on-write; frozen first, :func:`~noisecraft.collector.long_lived`, so a collection in a worker does not
  copy every inherited object) instead of importing the package again, which made each spawned worker cost
  230-380 MB and a second of start-up;
* ``spawn`` otherwise (macOS; threads running; torch or another library with native thread pools loaded, as
  model-based noise does): forking a process with threads can deadlock on a lock another thread held. Start the
  pool (:meth:`WorkerPool.start`) before anything starts a thread, e.g. before a progress bar's monitor.
"""

from __future__ import annotations

import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from typing import Any, TypeVar

from noisecraft.collector import long_lived

T = TypeVar("T")
R = TypeVar("R")


#: Modules whose native thread pools (invisible to :mod:`threading`) do not survive a fork (OpenMP, MKL, rayon: polars).
FORK_UNSAFE_MODULES = ("torch", "tensorflow", "jax", "tokenizers", "polars")


def start_method() -> str:
    """``fork`` where it is safe (Linux, a single Python thread, no native thread pool loaded), else ``spawn``."""
    if sys.platform != "linux" or threading.active_count() > 1:
        return "spawn"
    return "spawn" if any(name in sys.modules for name in FORK_UNSAFE_MODULES) else "fork"


class WorkerPool:
    """``num_proc`` worker processes, started on first use and reused until :meth:`close` (or the ``with`` block
    ends); ``num_proc=1`` runs everything in this process."""

    def __init__(self, num_proc: int) -> None:
        if num_proc < 1:
            raise ValueError("num_proc must be at least 1")
        self.num_proc = num_proc
        self._pool: Any = None
        self._frozen: ExitStack | None = None

    @property
    def parallel(self) -> bool:
        """Whether items run in worker processes (more than one process), not here."""
        return self.num_proc > 1

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> Any:
        """Start the workers now (once), e.g. before a progress bar starts its monitor thread."""
        if self._pool is None:
            import multiprocessing

            method = start_method()
            if method == "fork":  # inherited objects stay shared: a worker's collections do not touch them
                self._frozen = ExitStack()
                self._frozen.enter_context(long_lived())
            self._pool = multiprocessing.get_context(method).Pool(self.num_proc)
        return self._pool

    def imap(self, function: Callable[[T], R], items: Iterable[T], in_flight: int | None = None) -> Iterator[R]:
        """``function(item)`` for every item, in input order; at most ``in_flight`` (default ``2 * num_proc``) items
        are submitted and not yet consumed. With one process, or one item, it runs here."""
        if self.num_proc == 1:
            yield from map(function, items)
            return
        limit = in_flight or 2 * self.num_proc
        pending: deque[Any] = deque()
        pool = None
        for item in items:
            if pool is None:
                pool = self.start()
            pending.append(pool.apply_async(function, (item,)))
            if len(pending) >= limit:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()

    def close(self) -> None:
        """Stop the workers (they finish nothing more: every result was consumed or is abandoned)."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None
        if self._frozen is not None:
            self._frozen.close()
            self._frozen = None
