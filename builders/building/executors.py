"""The executor seam: one small interface that maps a pure per-shard function over shards, two engines behind it.

Builds map :func:`~noisecraft.building.pipeline.process_batch` over batches of rows; miners map their per-file function
over dump or tweet files. Both only need "``function(item)`` for every item, in input order, with a bounded
number in flight", which is :meth:`Executor.imap`. Two engines give it:

* ``local`` (the default): :class:`~noisecraft.building.workers.LocalExecutor`, the standard library's
  :class:`~concurrent.futures.ProcessPoolExecutor` on this machine;
* ``ray``: :class:`RayExecutor`, one Ray task per item on a Ray cluster (``ray_address``) or on a Ray started
  here. Ray does the scheduling, the transport and the retries.

Either way this module only keeps a window of items in flight and hands results back in input order, so every
engine and ``num_proc`` writes the same bytes (every item carries its own seeds, see :mod:`noisecraft.core.seeding`).
An exception raised *by the function* (bad input) reaches the caller as the original exception, so a bad row is
still a one-line error. A local worker process that dies (killed, out of memory) is a one-line
:class:`~noisecraft.building.workers.WorkerDied` naming its exit status; on Ray it fails its task with a system
error, which Ray retries (``max_retries``). Nothing is dropped silently: a task that still fails after its retries, or
an actor or node Ray lost, is a one-line :class:`RayFailed`. A ``ray_address`` nothing answers at is refused within
:data:`CONNECT_TIMEOUT` seconds (``ray.init`` would retry it for minutes).

On a multi-node cluster every node needs noisecraft (same version) and the inputs at the same path (a shared
file system): the items carry paths and rows, not the files. Ray is behind the ``[ray]`` extra.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import socket
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

from noisecraft.building.workers import LocalExecutor, check_in_flight
from noisecraft.errors import ConfigError, NoisecraftError
from noisecraft.extras import require
from noisecraft.runtime.device import ACCELERATOR_VARIABLE, Accelerator, check_actor_accelerator, local_accelerator, models_run_on
from noisecraft.runtime.offload import computing_on_actor

T = TypeVar("T")
R = TypeVar("R")

ENGINES = ("local", "ray")
#: Retries of a task whose worker process died (Ray's ``max_retries``); a failure of the function itself is final.
MAX_RETRIES = 3
#: Environment variables (by prefix) that say where models and outputs are cached and how the Hub is reached
#: (``NOISECRAFT_CACHE``, ``HF_HUB_OFFLINE``, ...): every Ray task and model actor runs with the driver's values,
#: since Ray workers start with the environment of the cluster, not of the process that submits the work.
FORWARDED_PREFIXES = ("NOISECRAFT_", "HF_")
#: Seconds within which the address of a Ray cluster must accept a connection.
CONNECT_TIMEOUT = 5.0
#: Ray addresses that name no host and port (Ray finds the cluster itself).
NAMED_ADDRESSES = ("auto", "local")
#: Chunks queued on one model actor at a time: one computing, one waiting (so an actor never idles between chunks).
CHUNKS_PER_ACTOR = 2


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


def _probe(environment: dict[str, str]) -> str:
    """A Ray task placed as a model actor is: what its torch sees (:class:`Accelerator` as text)."""
    _use_environment(environment)
    return local_accelerator().to_text()


class _ModelActor:
    """A model actor of a Ray build (a Ray actor class, made remote by :meth:`RayExecutor.map_chunks`). It keeps its
    process, so the models its functions load on their first chunk (once per process) serve every later chunk of
    every call; each function arrives once, by reference, and is kept by its digest."""

    def __init__(self, environment: dict[str, str]) -> None:
        _use_environment(environment)
        self.functions: dict[str, Callable[[list[Any]], list[Any]]] = {}
        self.checked = False

    def run(self, digest: str, function_ref: list[Any], chunk: list[Any]) -> list[Any]:
        """``function(chunk)``; ``function_ref`` is a one-item list, so Ray hands the reference over unresolved and
        only an actor that has not met the function yet fetches it."""
        import ray

        if not self.checked:  # here, not in __init__: an error in a method reaches the driver as itself
            check_actor_accelerator()
            self.checked = True
        if digest not in self.functions:
            self.functions[digest] = ray.get(function_ref[0])
        with computing_on_actor():
            return self.functions[digest](chunk)


class Executor(Protocol):
    """What builds and miners need from an engine (both :class:`LocalExecutor` and :class:`RayExecutor` are one)."""

    #: Whether :meth:`imap` runs items elsewhere than in this process (else a caller may skip starting it).
    parallel: bool

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
        if ray_address is not None:
            check_reachable(ray_address)


class RayFailed(NoisecraftError):
    """Ray lost what ran the work (a worker, an actor or a node, after its retries), or could not connect: one line."""


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Refuse, within ``timeout`` seconds, a Ray address (``host:port`` or ``ray://host:port``) that accepts no
    connection: ``ray.init`` retries an unreachable cluster for minutes, which looks like a hang."""
    if address in NAMED_ADDRESSES:
        return
    host, colon, port = address.split("://", 1)[-1].rpartition(":")
    if not colon or not host or not port.isdigit():
        raise ConfigError(f"--ray-address {address!r}: expected host:port (the head node's address, as `ray start "
                          "--head` prints it), ray://host:port or auto")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or type(exc).__name__)
        raise ConfigError(f"no Ray cluster at {address} ({reason} within {timeout:g} s): start it (`ray start --head`) "
                          "or give the address it printed") from None


def default_num_proc(engine: str, ray_address: str | None = None) -> int:
    """``--num-proc`` when the command line does not give it: 1 for the local engine, and every CPU of this machine
    for a Ray started here (``--engine ray`` without ``--ray-address``), whose CPUs are all the cluster there is; a
    cluster joined at an address brings its own CPUs, so it is not used there."""
    return (os.cpu_count() or 1) if engine == "ray" and ray_address is None else 1


#: How ``--num-proc`` defaults (:func:`num_proc_of`), as every command's help says it.
NUM_PROC_DEFAULT = "(default: 1; with --engine ray and no --ray-address, every CPU of this machine)"


def add_engine_options(group: argparse._ActionsContainer) -> None:
    """``--engine`` and ``--ray-address`` of a command (builds map batches, miners map files): declared with the
    engines they choose between, so that every command offers them the same way."""
    group.add_argument("--engine", choices=ENGINES, default="local",
                       help="local: this machine's process pool; ray: Ray tasks (pip install 'noisecraft[ray]'), "
                            "the same output (default: %(default)s)")
    group.add_argument("--ray-address", metavar="ADDR",
                       help="with --engine ray: the cluster to join (e.g. ray://head:10001 or auto; default: start a "
                            "local Ray with --num-proc CPUs, all of this machine's unless given)")


def num_proc_of(args: argparse.Namespace) -> int:
    """``--num-proc`` as given, else the engine's default (:func:`default_num_proc`)."""
    return args.num_proc if args.num_proc is not None else default_num_proc(args.engine, args.ray_address)


def make_executor(engine: str, num_proc: int, ray_address: str | None = None) -> Executor:
    """The executor of ``engine``: a :class:`LocalExecutor` of ``num_proc`` processes, or a :class:`RayExecutor`
    (on the cluster at ``ray_address``, else on a Ray started here with ``num_proc`` CPUs)."""
    check_engine(engine, ray_address)
    if engine == "ray":
        return RayExecutor(ray_address, num_proc)
    return LocalExecutor(num_proc)


class RayExecutor:
    """Ray tasks over items, ordered and windowed, and a pool of model actors. Uses the Ray this process is already
    connected to (a test's or a notebook's ``ray.init``), else connects to ``address`` or starts a local Ray with
    ``num_cpus`` CPUs; only a connection it made is shut down by :meth:`close`.

    Within ``with RayExecutor(...)``, models resolve ``device``/``dtype`` for the model actors' hardware, not this
    process's (:func:`~noisecraft.runtime.device.models_run_on`): the first model that resolves a placement makes
    the executor probe one actor-shaped task (:meth:`actor_accelerator`), and tasks and actors get the result in
    their environment, so every process of the build keys model outputs on what the actors compute with."""

    parallel = True

    def __init__(self, address: str | None = None, num_cpus: int = 1, max_retries: int = MAX_RETRIES) -> None:
        self.address, self.num_cpus, self.max_retries = address, num_cpus, max_retries
        self._ray: Any = None
        self._owned = False
        self._remote: Any = None
        self._accelerator: Accelerator | None = None
        self._scope: AbstractContextManager[None] | None = None
        self._actors: list[Any] = []
        self._shipped: dict[str, Any] = {}  # function digest -> its object reference, while the actor pool lives

    def __enter__(self) -> RayExecutor:
        self._scope = models_run_on(self.actor_accelerator, f"ray executor {id(self)}")
        self._scope.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> Any:
        """Connect (once) and return the ``ray`` module."""
        if self._ray is None:
            ray = require("ray", "ray")
            if not ray.is_initialized():
                options: dict[str, Any] = {"address": self.address} if self.address else {"num_cpus": self.num_cpus}
                try:
                    ray.init(**options, include_dashboard=False, logging_level="ERROR", log_to_driver=True)
                except (ConnectionError, RuntimeError, ValueError) as exc:
                    where = f"the Ray cluster at {self.address}" if self.address else "a local Ray"
                    raise RayFailed(f"cannot start or connect to {where}: {_first_line(exc)}") from None
                self._owned = True
            self._ray = ray
        return self._ray

    def cluster_cpus(self) -> int:
        """CPUs of the cluster (the default window is twice this many tasks)."""
        return max(1, int(self.start().cluster_resources().get("CPU", 1)))

    def cluster_gpus(self) -> int:
        """GPUs of the cluster: model actors take one each when there are any."""
        return int(self.start().cluster_resources().get("GPU", 0))

    def _actor_resources(self) -> dict[str, Any]:
        """What one model actor (and the probe standing in for one) asks Ray for."""
        return {"num_cpus": 1, "num_gpus": 1 if self.cluster_gpus() else 0}

    def actor_accelerator(self) -> Accelerator:
        """What torch sees on a model actor of this cluster (probed once, by a task with an actor's resources)."""
        if self._accelerator is None:
            ray = self.start()
            probe = ray.remote(**self._actor_resources(), max_retries=self.max_retries)(_probe)
            self._accelerator = Accelerator.from_text(ray.get(probe.remote(driver_environment())))
        return self._accelerator

    def _environment(self) -> dict[str, str]:
        """The driver's forwarded variables, plus the actors' accelerator once known (tasks and actors resolve model
        placements for it, as the driver did)."""
        environment = driver_environment()
        if self._accelerator is not None:
            environment[ACCELERATOR_VARIABLE] = self._accelerator.to_text()
        return environment

    def imap(self, function: Callable[[T], R], items: Iterable[T], in_flight: int | None = None) -> Iterator[R]:
        """``function(item)`` for every item as a Ray task, in input order; at most ``in_flight`` (default: twice the
        cluster's CPUs) tasks submitted and not yet consumed, so the driver's memory holds a window, not the input.
        The model actors are released first: they hold the CPUs the tasks need."""
        check_in_flight(in_flight)
        ray = self.start()
        self.release_actors()
        if self._remote is None:
            self._remote = ray.remote(max_retries=self.max_retries, retry_exceptions=False)(_call)
        limit = in_flight or 2 * self.cluster_cpus()
        environment = self._environment()
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
        """``function(chunk)`` for every chunk of model inputs on the executor's model actors, as ``(chunk index,
        outputs)`` in the order they finish. A :data:`~noisecraft.runtime.offload.ChunkRunner`.

        The actors (one per CPU, or one per GPU with ``num_gpus=1`` each when the cluster has GPUs) are started on the
        first call and kept for the following ones, so a translation round trip's two directions and a config's
        fields share them and every model loads once per actor; :meth:`imap` (the batches) and :meth:`close` release
        them. Each actor has at most :data:`CHUNKS_PER_ACTOR` chunks queued (backpressure). An actor whose process
        dies is restarted and its chunks retried (``max_restarts``/``max_task_retries``); an exception raised by the
        model fails the build as itself."""
        if not chunks:
            return
        ray = self.start()
        actors = self._actor_pool(min(len(chunks), self.cluster_gpus() or self.cluster_cpus()))
        digest, function_ref = self._ship(ray, function)
        todo = deque(enumerate(chunks))
        running: dict[Any, tuple[Any, int]] = {}

        def submit(actor: Any) -> None:
            k, chunk = todo.popleft()
            running[actor.run.remote(digest, [function_ref], chunk)] = (actor, k)

        for _ in range(CHUNKS_PER_ACTOR):
            for actor in actors:
                if todo:
                    submit(actor)
        try:
            while running:
                [done], _ = ray.wait(list(running), num_returns=1)
                actor, k = running.pop(done)
                outputs = self._get(ray, done)
                if todo:
                    submit(actor)
                yield k, outputs
        finally:
            for ref in running:  # abandoned: drop the queued chunks
                ray.cancel(ref, force=False)

    def _actor_pool(self, size: int) -> list[Any]:
        """The kept model actors, grown to ``size`` (never beyond the cluster: the caller caps ``size``)."""
        if len(self._actors) < size:
            ray = self.start()
            actor_class = ray.remote(max_restarts=self.max_retries, max_task_retries=self.max_retries,
                                     **self._actor_resources())(_ModelActor)
            environment = self._environment()
            self._actors += [actor_class.remote(environment) for _ in range(size - len(self._actors))]
        return self._actors[:size]

    def _ship(self, ray: Any, function: Callable[[list[Any]], list[Any]]) -> tuple[str, Any]:
        """``function`` in the object store once, under the digest of its pickle (the same model, the same digest)."""
        from ray import cloudpickle

        digest = hashlib.sha256(cloudpickle.dumps(function)).hexdigest()
        if digest not in self._shipped:
            self._shipped[digest] = ray.put(function)
        return digest, self._shipped[digest]

    def release_actors(self) -> None:
        """End the model actors (their models with them) and forget the shipped functions."""
        if self._actors:
            for actor in self._actors:
                self._ray.kill(actor)
        self._actors, self._shipped = [], {}

    @staticmethod
    def _get(ray: Any, ref: Any) -> Any:
        """The result of one task; the function's own exception is raised as itself (a one-line error stays one), and
        what Ray lost (a worker or an actor that died after its retries, a node, an object) is a :class:`RayFailed`."""
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, Exception) and not isinstance(cause, ray.exceptions.RayError):
                raise cause from None
            raise RayFailed(f"a Ray task failed: {_first_line(cause or exc)}") from None
        except ray.exceptions.RayError as exc:
            raise RayFailed(f"Ray lost the work ({type(exc).__name__}: {_first_line(exc)}): the Ray logs "
                            "(/tmp/ray/session_latest/logs on the node) say why") from None

    def close(self) -> None:
        """Release the model actors, end the placement scope of ``with``, and shut Ray down if this executor started
        or connected it."""
        if self._ray is not None:
            self.release_actors()
            if self._owned:
                self._ray.shutdown()
        if self._scope is not None:
            self._scope.__exit__(None, None, None)
        self._ray, self._owned, self._remote, self._scope, self._accelerator = None, False, None, None, None


def _first_line(exc: BaseException) -> str:
    """The first non-empty line of an exception's message (Ray's carry tracebacks and hints on the following lines)."""
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)
