"""The executor seam: one small interface that maps a pure per-shard function over shards, two engines behind it.

Builds map :func:`~noisecraft.pipeline.process_batch` over batches of rows; miners map their per-file function
over dump or tweet files. Both only need "``function(item)`` for every item, in input order, with a bounded
number in flight", which is :meth:`Executor.imap`. Two engines give it:

* ``local`` (the default): :class:`~noisecraft.workers.WorkerPool`, this machine's bounded process pool;
* ``ray``: :class:`RayExecutor`, one Ray task per item on a Ray cluster (``ray_address``) or on a Ray started
  here. Ray does the scheduling, the transport and the retries; this module only keeps a window of tasks in
  flight and hands results back in input order, so a Ray run writes the same bytes as a local one (every item
  carries its own seeds, see :mod:`noisecraft.seeding`).

A worker process that dies (killed, out of memory, a lost node) fails its task with a system error, which Ray
retries (``max_retries``); an exception raised *by the function* (bad input) is not retried and reaches the
caller as the original exception, so a bad row is still a one-line error. Nothing is dropped silently: a task
that still fails after its retries raises here.

On a multi-node cluster every node needs noisecraft (same version) and the inputs at the same path (a shared
file system): the items carry paths and rows, not the files. Ray is behind the ``[ray]`` extra.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.workers import WorkerPool

T = TypeVar("T")
R = TypeVar("R")

ENGINES = ("local", "ray")
#: Retries of a task whose worker process died (Ray's ``max_retries``); a failure of the function itself is final.
MAX_RETRIES = 3


class Executor(Protocol):
    """What builds and miners need from an engine (both :class:`WorkerPool` and :class:`RayExecutor` are one)."""

    #: Whether :meth:`imap` runs items elsewhere than in this process (else a caller may skip starting it).
    parallel: bool

    def start(self) -> Any:
        """Start the workers (or connect to the cluster) now, before anything starts a thread."""

    def imap(self, function: Callable[[T], R], items: Iterable[T], in_flight: int | None = None) -> Iterator[R]:
        """``function(item)`` for every item, in input order, at most ``in_flight`` submitted and not yet consumed."""

    def close(self) -> None:
        """Release the workers (or the Ray connection this executor made)."""

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...


def check_engine(engine: str, ray_address: str | None = None) -> None:
    """Refuse an unknown engine, an address without Ray, or Ray when it is not installed (one-line errors,
    before any work starts)."""
    if engine not in ENGINES:
        raise ConfigError(f"unknown engine {engine!r}; available: {', '.join(ENGINES)}")
    if ray_address is not None and engine != "ray":
        raise ConfigError("--ray-address (ray_address=) applies to --engine ray (engine='ray')")
    if engine == "ray":
        require("ray", "ray")


def make_executor(engine: str, num_proc: int, ray_address: str | None = None) -> Executor:
    """The executor of ``engine``: a :class:`WorkerPool` of ``num_proc`` processes, or a :class:`RayExecutor`
    (on the cluster at ``ray_address``, else on a Ray started here with ``num_proc`` CPUs)."""
    check_engine(engine, ray_address)
    if engine == "ray":
        return RayExecutor(ray_address, num_proc)
    return WorkerPool(num_proc)


class RayExecutor:
    """Ray tasks over items, ordered and windowed. Uses the Ray this process is already connected to (a test's
    or a notebook's ``ray.init``), else connects to ``address`` or starts a local Ray with ``num_cpus`` CPUs;
    only a connection it made is shut down by :meth:`close`."""

    parallel = True

    def __init__(self, address: str | None = None, num_cpus: int = 1, max_retries: int = MAX_RETRIES) -> None:
        self.address, self.num_cpus, self.max_retries = address, num_cpus, max_retries
        self._ray: Any = None
        self._owned = False
        self._remotes: dict[Callable[..., Any], Any] = {}

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> Any:
        """Connect (once) and return the ``ray`` module."""
        if self._ray is None:
            ray = require("ray", "ray")
            if not ray.is_initialized():
                options: dict[str, Any] = {"address": self.address} if self.address else {"num_cpus": self.num_cpus}
                ray.init(**options, include_dashboard=False, logging_level="ERROR", log_to_driver=True)
                self._owned = True
            self._ray = ray
        return self._ray

    def cluster_cpus(self) -> int:
        """CPUs of the cluster (the default window is twice this many tasks)."""
        return max(1, int(self.start().cluster_resources().get("CPU", 1)))

    def _remote(self, function: Callable[..., Any]) -> Any:
        if function not in self._remotes:
            self._remotes[function] = self.start().remote(max_retries=self.max_retries, retry_exceptions=False)(function)
        return self._remotes[function]

    def imap(self, function: Callable[[T], R], items: Iterable[T], in_flight: int | None = None) -> Iterator[R]:
        """``function(item)`` for every item as a Ray task, in input order; at most ``in_flight`` (default: twice the
        cluster's CPUs) tasks submitted and not yet consumed, so the driver's memory holds a window, not the input."""
        ray = self.start()
        remote = self._remote(function)
        limit = in_flight or 2 * self.cluster_cpus()
        pending: deque[Any] = deque()
        try:
            for item in items:
                pending.append(remote.remote(item))
                if len(pending) >= limit:
                    yield self._get(ray, pending.popleft())
            while pending:
                yield self._get(ray, pending.popleft())
        finally:
            for ref in pending:  # abandoned (an error, or the consumer stopped): free the cluster
                ray.cancel(ref, force=False)

    @staticmethod
    def _get(ray: Any, ref: Any) -> Any:
        """The result of one task; the function's own exception is raised as itself (a one-line error stays one)."""
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, Exception):
                raise cause from None
            raise

    def close(self) -> None:
        """Shut Ray down if this executor started or connected it."""
        if self._ray is not None and self._owned:
            self._ray.shutdown()
        self._ray, self._owned = None, False
        self._remotes.clear()
