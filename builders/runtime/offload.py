"""Where a model's missing outputs are computed: in this process (the default), or on a pool of model actors
elsewhere (a Ray build's ``prepare`` pass, see :meth:`noisecraft.building.executors.RayExecutor.map_chunks`).

The model layer cuts the inputs it has to compute into chunks that depend on the inputs only (sorted by content
digest, fixed size: the same steps a local run computes), so a chunk computed by an actor gives the same outputs as
the same chunk computed here. A runner maps a picklable ``function(chunk) -> outputs`` over the chunks and yields
``(chunk index, outputs)`` as they finish; the caller stores each chunk in the content-addressed cache in this
process, so the cache has one writer whatever the number of actors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableSequence, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

#: ``map_chunks(function, chunks)`` -> ``(index, outputs)`` per chunk, in any order.
ChunkRunner = Callable[[Callable[[list[Any]], list[Any]], Sequence[list[Any]]], Iterator[tuple[int, list[Any]]]]

_RUNNER: ContextVar[ChunkRunner | None] = ContextVar("noisecraft_chunk_runner", default=None)
_ON_ACTOR: ContextVar[bool] = ContextVar("noisecraft_on_model_actor", default=False)


@contextmanager
def running_chunks_with(runner: ChunkRunner | None) -> Iterator[None]:
    """Within the block, models compute their missing outputs with ``runner`` (``None``: here)."""
    token = _RUNNER.set(runner)
    try:
        yield
    finally:
        _RUNNER.reset(token)


def chunk_runner() -> ChunkRunner | None:
    """The runner set by the enclosing :func:`running_chunks_with`, if any."""
    return _RUNNER.get()


@contextmanager
def computing_on_actor() -> Iterator[None]:
    """Within the block, this process is a model actor computing a chunk for a driver elsewhere (see
    :func:`on_model_actor`)."""
    token = _ON_ACTOR.set(True)
    try:
        yield
    finally:
        _ON_ACTOR.reset(token)


def on_model_actor() -> bool:
    """Whether a chunk is being computed on a model actor: there, an input the driver should have put in a cache
    (a speech clip) and that is missing means the actor cannot see the driver's cache, an error, not work to redo."""
    return _ON_ACTOR.get()


def run_here(function: Callable[[list[Any]], list[Any]], chunks: Sequence[list[Any]]) -> Iterator[tuple[int, list[Any]]]:
    """The chunk runner of a local run: every chunk in this process, in order."""
    for k, chunk in enumerate(chunks):
        yield k, function(chunk)


def gather_chunks(runner: ChunkRunner, function: Callable[[list[Any]], list[Any]], chunks: Sequence[list[Any]],
                  positions: Sequence[Sequence[int]], store: Callable[[list[Any], list[Any]], Any],
                  results: MutableSequence[Any], what: str) -> Iterator[int]:
    """``function`` over ``chunks`` by ``runner``: each finished chunk's outputs are checked (one per input), stored
    (``store(chunk, outputs)``: the cache's one writer is this process) and put at ``positions[k]`` of ``results``;
    yields each finished chunk's size, for a progress bar. ``what`` names the work in the error."""
    for k, done in runner(function, chunks):
        if len(done) != len(chunks[k]):
            raise RuntimeError(f"{what}: {len(done)} outputs for a batch of {len(chunks[k])} inputs")
        store(chunks[k], done)
        for i, value in zip(positions[k], done):
            results[i] = value
        yield len(done)
