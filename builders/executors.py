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

import json
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.workers import WorkerPool

T = TypeVar("T")
R = TypeVar("R")

ENGINES = ("local", "ray")
#: Retries of a task whose worker process died (Ray's ``max_retries``); a failure of the function itself is final.
MAX_RETRIES = 3
#: Environment variables (by prefix) that say where models and outputs are cached and how the Hub is reached
#: (``NOISECRAFT_CACHE``, ``HF_HUB_OFFLINE``, ...): every Ray task and model actor runs with the driver's values,
#: since Ray workers start with the environment of the cluster, not of the process that submits the work.
FORWARDED_PREFIXES = ("NOISECRAFT_", "HF_")


def driver_environment() -> dict[str, str]:
    """The forwarded variables as this process has them."""
    return {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_PREFIXES)}


def _use_environment(environment: dict[str, str]) -> None:
    """Make this (worker) process's forwarded variables exactly ``environment``: set them, drop the others."""
    for key in [k for k in os.environ if k.startswith(FORWARDED_PREFIXES) and k not in environment]:
        del os.environ[key]
    os.environ.update(environment)


def _call(environment: dict[str, str], function: Callable[[T], R], item: T) -> R:
    """One Ray task: ``function(item)`` under the driver's forwarded environment."""
    _use_environment(environment)
    return function(item)


class _ModelActor:
    """A Ray Data actor of a model-based build: it keeps its process, so the model that ``function`` loads on its
    first chunk (models are loaded once per process) serves every later chunk."""

    def __init__(self, function: Callable[[list[Any]], list[Any]], environment: dict[str, str]) -> None:
        _use_environment(environment)
        self.function = function

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        outputs = [json.dumps(self.function(json.loads(chunk)), ensure_ascii=False) for chunk in batch["chunk"]]
        return {"index": list(batch["index"]), "outputs": outputs}


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
        self._remote: Any = None

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

    def imap(self, function: Callable[[T], R], items: Iterable[T], in_flight: int | None = None) -> Iterator[R]:
        """``function(item)`` for every item as a Ray task, in input order; at most ``in_flight`` (default: twice the
        cluster's CPUs) tasks submitted and not yet consumed, so the driver's memory holds a window, not the input."""
        ray = self.start()
        if self._remote is None:
            self._remote = ray.remote(max_retries=self.max_retries, retry_exceptions=False)(_call)
        limit = in_flight or 2 * self.cluster_cpus()
        environment = driver_environment()
        function_ref = ray.put(function)  # shipped once, not with every task
        pending: deque[Any] = deque()
        try:
            for item in items:
                pending.append(self._remote.remote(environment, function_ref, item))
                if len(pending) >= limit:
                    yield self._get(ray, pending.popleft())
            while pending:
                yield self._get(ray, pending.popleft())
        finally:
            for ref in pending:  # abandoned (an error, or the consumer stopped): free the cluster
                ray.cancel(ref, force=False)

    def map_chunks(self, function: Callable[[list[Any]], list[Any]],
                   chunks: Sequence[list[Any]]) -> Iterator[tuple[int, list[Any]]]:
        """``function(chunk)`` for every chunk of model inputs on a pool of Ray Data actors (``map_batches``, one
        chunk per batch; one actor per CPU, or per GPU with ``num_gpus=1`` each when the cluster has GPUs), as
        ``(chunk index, outputs)`` in the order they finish. Inputs and outputs cross as JSON, as the cache keeps
        them. A :data:`~noisecraft.runtime.offload.ChunkRunner` (see :mod:`noisecraft.runtime.offload`)."""
        ray = self.start()
        data = require("ray.data", "ray")
        context = data.DataContext.get_current()
        context.enable_progress_bars = False  # the model layer's caller shows progress; Ray's bars would interleave
        gpus = int(ray.cluster_resources().get("GPU", 0))
        actors = max(1, min(len(chunks), gpus or self.cluster_cpus()))
        dataset = data.from_items([{"index": k, "chunk": json.dumps(chunk, ensure_ascii=False)}
                                   for k, chunk in enumerate(chunks)], override_num_blocks=max(1, len(chunks)))
        # Ray Data restarts an actor that dies and retries its chunk (its defaults: max_restarts=-1,
        # max_task_retries=-1); an exception raised by the model itself fails the build
        results = dataset.map_batches(_ModelActor, fn_constructor_args=(function, driver_environment()), batch_size=1,
                                      compute=data.ActorPoolStrategy(size=actors), num_gpus=1 if gpus else 0)
        for row in results.iter_rows():
            yield int(row["index"]), json.loads(row["outputs"])

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
        self._ray, self._owned, self._remote = None, False, None
