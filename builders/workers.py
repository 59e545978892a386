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
  model-based noise does): forking a process with threads can deadlock on a lock another thread held. The
  package's progress bars start no thread (:mod:`noisecraft.progress`).

Why not :class:`multiprocessing.pool.Pool`: its worker-maintenance thread waits on the results pipe too, so while
a result is in the pipe and not yet read it wakes without sleeping (10,853 wake-ups in a 5-second build of 100k
questions, 0.4 s of CPU) and takes the interpreter lock from the thread that reads the rows and the two that
pickle tasks and unpickle results. Here the calling thread does all of it, with no thread of its own: each worker
has a pipe for its tasks and one for its results, and the caller writes and reads them without blocking
(:func:`select.poll`), so it can never wait on a worker that waits on it. A worker that dies (killed, out of
memory) is an error naming its exit status, not a build that hangs.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, NoReturn, TypeVar

from noisecraft.collector import long_lived
from noisecraft.errors import ConfigError

T = TypeVar("T")
R = TypeVar("R")


#: Modules whose native thread pools (invisible to :mod:`threading`) do not survive a fork (OpenMP, MKL, rayon: polars).
FORK_UNSAFE_MODULES = ("torch", "tensorflow", "jax", "tokenizers", "polars")
#: A frame on the pipes: its length, then its bytes (a pickle).
_HEADER = struct.Struct("!Q")
#: Pipe capacity asked for (Linux; the default 64 KiB makes a 2 MB batch 32 writes and wake-ups): the unprivileged
#: maximum, ``/proc/sys/fs/pipe-max-size``, by default.
PIPE_BYTES = 1 << 20


def start_method() -> str:
    """``fork`` where it is safe (Linux, a single Python thread, no native thread pool loaded), else ``spawn``."""
    if sys.platform != "linux" or threading.active_count() > 1:
        return "spawn"
    return "spawn" if any(name in sys.modules for name in FORK_UNSAFE_MODULES) else "fork"


def check_in_flight(in_flight: int | None) -> None:
    """Refuse an ``in_flight`` below 1 (``None`` is an executor's default): every executor's one rule."""
    if in_flight is not None and in_flight < 1:
        raise ValueError(f"in_flight must be at least 1, not {in_flight}")


class WorkerDied(RuntimeError):
    """A worker process ended while items it was given were still running (killed, out of memory, a crash)."""


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, attached as the cause of the exception re-raised here."""

    def __str__(self) -> str:
        return str(self.args[0])


def _widen(fd: int) -> None:
    """Ask for a :data:`PIPE_BYTES` pipe (fewer writes and wake-ups per frame); a refusal keeps the default."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)  # type: ignore[attr-defined]
    except (ImportError, AttributeError, OSError):
        pass


def _read_exactly(fd: int, size: int) -> bytearray | None:
    """``size`` bytes from a blocking ``fd``; ``None`` at end of file before the first byte."""
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        count = os.readv(fd, [view[got:]])
        if count == 0:
            if got == 0:
                return None
            raise EOFError("the pipe closed in the middle of a frame")
        got += count
    return buffer


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _outcome(function: Callable[[Any], Any], item: Any) -> bytes:
    """The pickled ``(True, result)`` of ``function(item)``, or ``(False, (exception, traceback text))``; a result
    that does not pickle is sent as the error that says so, and an exception that does not pickle or unpickle as a
    :class:`RuntimeError` that names it."""
    from multiprocessing.reduction import ForkingPickler

    try:
        return ForkingPickler.dumps((True, function(item)), pickle.HIGHEST_PROTOCOL)
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the caller, who raises it
        text = traceback.format_exc()
        try:
            data = ForkingPickler.dumps((False, (exc, text)), pickle.HIGHEST_PROTOCOL)
            pickle.loads(data)  # an exception whose class does not rebuild from its args would raise a TypeError
            return data  # there, hiding this one
        except Exception:  # noqa: BLE001 - the exception does not pickle or unpickle: send what it said
            return pickle.dumps((False, (RuntimeError(f"{type(exc).__name__}: {exc}"), text)), pickle.HIGHEST_PROTOCOL)


def _raise(exc: BaseException) -> NoReturn:
    """Raise ``exc``: the function of a task that did not unpickle in the worker, so its error is that item's."""
    raise exc


def _serve(tasks: Any, results: Any, inherited: tuple[int, ...]) -> None:
    """A worker's life: read a task frame, run it, write its outcome frame, until the task pipe closes.

    ``inherited`` are the pool's ends of the pipes that a forked worker got from its parent: closed first, so the
    task pipe ends when the parent does (it exits, or is killed) and the worker with it. Ctrl-C is the parent's to
    handle (it stops the workers): a worker ignores it rather than print a traceback of its own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for fd in inherited:
        os.close(fd)
    tasks_fd, results_fd = tasks.fileno(), results.fileno()
    while True:
        header = _read_exactly(tasks_fd, _HEADER.size)
        if header is None:
            return
        frame = _read_exactly(tasks_fd, _HEADER.unpack(header)[0])
        if frame is None:
            raise EOFError("the task pipe closed in the middle of a frame")
        try:
            function, item = pickle.loads(frame)
        except Exception as exc:  # noqa: BLE001 - e.g. a spawning parent's __main__ function: the item's error,
            function, item = _raise, exc  # not the worker's death
        del frame
        outcome = _outcome(function, item)
        try:
            _write_all(results_fd, _HEADER.pack(len(outcome)) + outcome)
        except BrokenPipeError:  # the parent is gone (killed mid-item): no one to answer, nothing to print
            return


@dataclass
class _Worker:
    """One worker process and this side of its two pipes, with what it was given and what it sent back so far."""

    process: Any
    tasks: Any  # the Connection this process writes tasks to (its fd is non-blocking)
    results: Any  # the Connection this process reads outcomes from (non-blocking)
    running: deque[int] = field(default_factory=deque)  # sequence numbers given and not yet answered, in order
    outbox: deque[memoryview] = field(default_factory=deque)  # task bytes not yet written
    header: bytearray = field(default_factory=bytearray)  # the outcome frame's header, as read so far
    frame: bytearray | None = None  # the outcome frame being read
    got: int = 0  # bytes of ``frame`` read

    def fds(self) -> tuple[int, int]:
        """This process's ends of the worker's two pipes."""
        return self.tasks.fileno(), self.results.fileno()

    def submit(self, sequence: int, data: bytes) -> None:
        self.running.append(sequence)
        self.outbox.append(memoryview(_HEADER.pack(len(data))))
        self.outbox.append(memoryview(data))
        self.flush()

    def flush(self) -> None:
        """Write what the task pipe takes now."""
        fd = self.tasks.fileno()
        while self.outbox:
            try:
                written = os.write(fd, self.outbox[0])
            except BlockingIOError:
                return
            except BrokenPipeError:
                raise self._died() from None
            if written == len(self.outbox[0]):
                self.outbox.popleft()
            else:
                self.outbox[0] = self.outbox[0][written:]

    def receive(self, done: dict[int, bytearray]) -> None:
        """Read what the results pipe holds now; each outcome completed goes into ``done`` by sequence number."""
        fd = self.results.fileno()
        while self.running:
            try:
                if self.frame is None:
                    count = len(chunk := os.read(fd, _HEADER.size - len(self.header)))
                    self.header += chunk
                else:
                    count = os.readv(fd, [memoryview(self.frame)[self.got:]])
                    self.got += count
            except BlockingIOError:
                return
            if count == 0:
                raise self._died()
            if self.frame is None and len(self.header) == _HEADER.size:
                self.frame, self.got = bytearray(_HEADER.unpack(self.header)[0]), 0
                self.header = bytearray()
            if self.frame is not None and self.got == len(self.frame):
                done[self.running.popleft()] = self.frame
                self.frame = None

    def _died(self) -> WorkerDied:
        self.process.join(timeout=5)
        code = self.process.exitcode
        how = f"was killed by signal {-code}" if code is not None and code < 0 else f"exited with status {code}"
        hint = " (out of memory? try a smaller --batch-size or fewer --num-proc)" if code == -9 else ""
        return WorkerDied(f"worker process {self.process.pid} {how} while running {len(self.running)} item(s){hint}")


class WorkerPool:
    """``num_proc`` worker processes, started on first use and reused until :meth:`close` (or the ``with`` block
    ends); ``num_proc=1`` runs everything in this process. One thread at a time may use a pool."""

    def __init__(self, num_proc: int) -> None:
        if num_proc < 1:
            raise ValueError("num_proc must be at least 1")
        self.num_proc = num_proc
        self._workers: list[_Worker] = []
        self._frozen: ExitStack | None = None
        self._submitted = 0  # items ever submitted: the next item's number (never reused, so maps cannot mix)
        self._done: dict[int, bytearray] = {}  # outcomes read and not yet consumed, by item number
        self._abandoned: set[int] = set()  # items of stopped maps still running: their outcomes are dropped
        self._closes = 0  # how many times the workers were closed

    @property
    def parallel(self) -> bool:
        """Whether items run in worker processes (more than one process), not here."""
        return self.num_proc > 1

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> list[_Worker]:
        """Start the workers now (once; :meth:`imap` starts them when needed)."""
        if not self._workers:
            import multiprocessing

            if not hasattr(select, "poll"):
                raise ConfigError("num_proc / --num-proc above 1 needs Linux or macOS (the worker pool polls pipes); "
                                  "here use 1, or --engine ray")

            method = start_method()
            if method == "fork":  # inherited objects stay shared: a worker's collections do not touch them
                self._frozen = ExitStack()
                self._frozen.enter_context(long_lived())
            context = multiprocessing.get_context(method)
            for _ in range(self.num_proc):
                task_reader, task_writer = context.Pipe(duplex=False)
                result_reader, result_writer = context.Pipe(duplex=False)
                for connection in (task_writer, result_writer):
                    _widen(connection.fileno())
                ours = (task_writer.fileno(), result_reader.fileno())
                inherited = (*(fd for worker in self._workers for fd in worker.fds()), *ours) if method == "fork" else ()
                process = context.Process(target=_serve, args=(task_reader, result_writer, inherited), daemon=True,
                                          name=f"noisecraft-worker-{len(self._workers) + 1}")
                process.start()
                task_reader.close()  # the worker's ends: its copies are the only ones, so its death reads as an end of file
                result_writer.close()
                os.set_blocking(task_writer.fileno(), False)
                os.set_blocking(result_reader.fileno(), False)
                self._workers.append(_Worker(process, task_writer, result_reader))
        return self._workers

    def imap(self, function: Callable[[T], R], items: Iterable[T], in_flight: int | None = None) -> Iterator[R]:
        """``function(item)`` for every item, in input order; at most ``in_flight`` (default ``2 * num_proc``) items
        are submitted and not yet consumed. With one process it runs here. An exception raised by ``function`` in a
        worker is raised here (its traceback there as its cause); the pool is then closed, its workers' unfinished
        items abandoned, and the next map starts new workers. Maps of one pool may be interleaved (each item has a
        number unique in the pool): a map stopped while another has items out only drops its own outcomes, and a
        map whose items the pool abandoned (closed under it) raises :class:`RuntimeError` instead of waiting."""
        check_in_flight(in_flight)
        if self.num_proc == 1:
            yield from map(function, items)
            return
        from multiprocessing.reduction import ForkingPickler

        limit = in_flight or 2 * self.num_proc
        pending = iter(items)
        mine: deque[int] = deque()  # this map's items submitted and not yet consumed, in input order
        closes = self._closes  # the pool's closes when ``mine`` last filled: another one means its items are gone
        finished = False
        try:
            while True:
                while not finished and len(mine) < limit:
                    try:
                        item = next(pending)
                    except StopIteration:
                        finished = True
                        break
                    data = ForkingPickler.dumps((function, item), pickle.HIGHEST_PROTOCOL)
                    worker = min(self.start(), key=lambda w: len(w.running))
                    if not mine:
                        closes = self._closes
                    mine.append(self._submitted)  # counted before it is written: a failed write still closes
                    self._submitted += 1
                    worker.submit(mine[-1], data)
                if not mine:
                    return
                while mine[0] not in self._done:
                    if closes != self._closes:
                        raise RuntimeError(f"the worker pool was closed while {len(mine)} item(s) of this map were "
                                           "running (close() or another map's error); they are lost")
                    self._exchange()
                ok, value = pickle.loads(self._done.pop(mine.popleft()))
                if not ok:
                    exc, text = value
                    exc.__cause__ = RemoteTraceback(f'\n"""\n{text}"""')
                    raise exc
                yield value
        except WorkerDied:  # the items of every map on that worker are lost: no map may use it again
            self.close()
            raise
        finally:
            if mine and closes == self._closes:  # an error, or the consumer stopped early
                self._abandon(mine)

    def _abandon(self, sequences: deque[int]) -> None:
        """Let go of a stopped map's unconsumed items: when no other map has items out, close the workers (no worker
        may answer a later map; they stop now), else drop these items' outcomes, now or when they arrive."""
        ours = set(sequences)
        out = chain(self._done, *(worker.running for worker in self._workers))
        if not any(sequence not in ours and sequence not in self._abandoned for sequence in out):
            self.close()
            return
        for sequence in sequences:
            if self._done.pop(sequence, None) is None:
                self._abandoned.add(sequence)

    def _exchange(self) -> None:
        """Wait until some pipe can be written or read, then write and read what they take now."""
        poller = select.poll()
        by_fd: dict[int, _Worker] = {}
        for worker in self._workers:
            if worker.outbox:
                by_fd[worker.tasks.fileno()] = worker
                poller.register(worker.tasks.fileno(), select.POLLOUT)
            if worker.running:
                by_fd[worker.results.fileno()] = worker
                poller.register(worker.results.fileno(), select.POLLIN)
        for fd, event in poller.poll():
            worker = by_fd[fd]
            if fd == worker.tasks.fileno():
                if event & (select.POLLERR | select.POLLHUP):
                    raise worker._died()
                worker.flush()
            else:
                worker.receive(self._done)
        for sequence in self._abandoned.intersection(self._done):
            del self._done[sequence]
            self._abandoned.remove(sequence)

    def close(self) -> None:
        """Stop the workers (they finish nothing more: every result was consumed or is abandoned)."""
        workers, self._workers = self._workers, []
        self._closes += 1
        self._done.clear()
        self._abandoned.clear()
        for worker in workers:
            worker.process.terminate()
        for worker in workers:
            worker.process.join(timeout=10)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.tasks.close()
            worker.results.close()
        if self._frozen is not None:
            self._frozen.close()
            self._frozen = None
