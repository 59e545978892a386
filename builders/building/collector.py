"""The cyclic garbage collector, kept off what a build or a mining run holds for its whole length.

A build holds hundreds of thousands of long-lived objects: the modules it imported (pandas, pyarrow, the noise's
own), its tables and memos. Python's collector walks every one of them at each full collection, and a build's own
allocations trigger many: 18 while noising 100k SQuAD questions in one process, 1.7 s of its 10.7 s.
:func:`gc.freeze` moves every object tracked now into a permanent generation that collections skip.
:func:`long_lived` does that for the length of a block and undoes it when the outermost such block ends, so a
notebook that runs a build gets its collector back as it was.

Only the collector's bookkeeping changes: objects are still freed by reference counting as soon as nothing holds
them, outputs are the same, and a cycle among frozen objects is found by the first full collection after the block.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_depth = 0  # blocks open now: only the outermost one's end unfreezes
_unfreeze_at_end = True  # False when objects were frozen before the outermost block (by the caller: theirs to undo)


@contextmanager
def long_lived() -> Iterator[None]:
    """Everything the process holds when the block starts is out of the collector's walks until the outermost
    block ends (nested and interleaved blocks, e.g. a source's rows read inside a build, are counted; meant for the
    thread that runs the build). A process that had frozen objects itself before the outermost block keeps them
    frozen, with what the blocks added: :func:`gc.unfreeze` cannot tell whose they are."""
    global _depth, _unfreeze_at_end
    if _depth == 0:
        _unfreeze_at_end = gc.get_freeze_count() == 0
    gc.freeze()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and _unfreeze_at_end:
            gc.unfreeze()
