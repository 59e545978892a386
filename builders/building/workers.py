"""The local engine: the standard library's :class:`~concurrent.futures.ProcessPoolExecutor` behind the executor seam.

:class:`LocalExecutor` maps a picklable function over items in worker processes and yields the results **in input
order**, with at most ``in_flight`` items submitted ahead of the one being consumed, so memory stays bounded by a
few items, never by the input. Outputs never depend on which worker did what: every item carries its own seeds.
Builds (batches of rows) and miners (dump files) both run through it.

The pool is made on first use (a build whose splits fit in one batch never starts a process) and kept until
:meth:`LocalExecutor.close`, so a build reuses its workers across all its configs. Workers are **spawned** (a fresh
interpreter that imports what the first item needs), never forked: a fork copies only the calling thread, and the
native threads of libraries (Ray's after ``ray.shutdown()``, OpenMP's, a test runner's I/O thread), which
:mod:`threading` does not see, may hold a lock that the child then waits on forever. Spawning is what Python does on
macOS and Windows; it costs each worker its imports (about a second and a few hundred MB), once per build.

Every worker ignores Ctrl-C (the parent handles it and stops the workers). On Linux each worker asks the kernel to
end it when its parent dies (``prctl(PR_SET_PDEATHSIG)``, through the C library): a parent killed outright
(``kill -9``) leaves no orphan waiting forever on a task queue it still holds open itself. macOS and Windows have
no such request: there, end the whole process group rather than the parent alone.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from noisecraft.errors import NoisecraftError

T = TypeVar("T")
R = TypeVar("R")

#: ``prctl``'s option that makes the kernel signal a process when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def check_in_flight(in_flight: int | None) -> None:
    """Refuse an ``in_flight`` below 1 (``None`` is an executor's default): every executor's one rule."""
    if in_flight is not None and in_flight < 1:
        raise ValueError(f"in_flight must be at least 1, not {in_flight}")


class WorkerDied(NoisecraftError):
    """A worker process ended while the pool had items for it (killed, out of memory, a crash): a one-line error."""


def _worker_start(parent: int) -> None:
    """Every worker's first step. Ctrl-C reaches the whole terminal's process group: the parent handles it (and
    stops the workers), so a worker ignores it rather than print a traceback of its own. Then, on Linux, the kernel
    is asked to send SIGKILL when the parent dies: the pool's queues stay open in the worker itself, so a parent
    killed outright would not end it otherwise. A parent that died before the request (the worker has been adopted:
    another parent pid) ends the worker at once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)


def _call(function: Callable[[T], R], item: T) -> R:
    """``function(item)`` in a worker. An exception whose class does not rebuild from its pickle (an ``__init__``
    with other arguments than its ``args``) would fail in the parent as it is read back, breaking the pool: it is
    sent as a :class:`RuntimeError` that names it instead (its traceback still in the worker's, as the cause)."""
    try:
        return function(item)
    except Exception as exc:
        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:  # noqa: BLE001 - any failure to round-trip
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from exc
        raise


def _processes(pool: ProcessPoolExecutor) -> list[Any]:
    """The worker processes of a pool not yet shut down. :class:`ProcessPoolExecutor` keeps them in its
    ``_processes`` table (pid to process) until then; Python 3.14's ``terminate_workers()`` reads the same table."""
    return list(pool._processes.values())  # type: ignore[attr-defined]


def _death(processes: list[Any]) -> WorkerDied:
    """The one-line error of a broken pool whose workers have all ended: it names the first whose end was not the
    SIGTERM with which the pool stops the others (or the first of all, when every one ended so)."""
    dead = [p for p in processes if p.exitcode != -signal.SIGTERM] or processes
    code = dead[0].exitcode
    how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
    hint = " (out of memory? try a smaller --batch-size or fewer --num-proc)" if code == -9 else ""  # SIGKILL
    return WorkerDied(f"worker process {dead[0].pid} {how}{hint}")


class LocalExecutor:
    """``num_proc`` worker processes (a :class:`ProcessPoolExecutor`), made on first use and reused until
    :meth:`close` (or the ``with`` block ends); ``num_proc=1`` runs everything in this process."""

    def __init__(self, num_proc: int) -> None:
        if num_proc < 1:
            raise ValueError("num_proc must be at least 1")
        self.num_proc = num_proc
        self._pool: ProcessPoolExecutor | None = None

    @property
    def parallel(self) -> bool:
        """Whether items run in worker processes (more than one process), not here."""
        return self.num_proc > 1

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> ProcessPoolExecutor:
        """The pool (made on the first call); its workers are spawned with the first item submitted to it."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.num_proc, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_worker_start, initargs=(os.getpid(),))
        return self._pool

    def imap(self, function: Callable[[T], R], items: Iterable[T], in_flight: int | None = None) -> Iterator[R]:
        """``function(item)`` for every item, in input order; at most ``in_flight`` (default ``2 * num_proc``) items
        are submitted and not yet consumed. With one process it runs here. An exception raised by ``function`` in a
        worker is raised here as itself (its traceback there as its cause); a worker that dies is a
        :class:`WorkerDied`, after which the next map gets a new pool. A map stopped early cancels its items not
        yet started; maps of one pool may be interleaved."""
        check_in_flight(in_flight)
        if not self.parallel:
            yield from map(function, items)
            return
        limit = in_flight or 2 * self.num_proc
        pool = self.start()
        window: deque[Future[R]] = deque()
        try:
            for item in items:
                window.append(pool.submit(_call, function, item))
                if len(window) >= limit:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()
        except (BrokenProcessPool, RuntimeError) as exc:  # the latter also submit's to a pool shut down
            if pool is not self._pool:
                raise RuntimeError("the worker pool was closed while this map was running (close(), or a worker died "
                                   "in another map); its items are lost") from exc
            if isinstance(exc, BrokenProcessPool):
                raise self._broken(pool) from None
            raise
        finally:
            for future in window:  # an error, or the consumer stopped early
                future.cancel()

    def _broken(self, pool: ProcessPoolExecutor) -> WorkerDied:
        """Close ``pool`` (this executor's), a worker of which died, and say which worker and how."""
        processes = _processes(pool)
        self.close()
        return _death(processes)

    def close(self) -> None:
        """Stop the workers now (an item still running is abandoned: nothing will read its result) and wait until
        the pool's threads and processes have ended. The pool is shut down with its pending items cancelled before
        its workers are stopped, so that its manager thread has dropped them when it sees the workers end: Python
        3.11 would otherwise try to fail a future already cancelled, and print an ``InvalidStateError`` from that
        thread (cpython gh-107219, fixed in 3.12)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            processes, manager = _processes(pool), pool._executor_manager_thread  # type: ignore[attr-defined]
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            if manager is not None:
                manager.join()
