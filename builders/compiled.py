"""The optional C extensions (``noisecraft._twister``, ``noisecraft._counting``, ``noisecraft._wikistrip``), for the
modules that use them.

``pip install`` builds each one where a C compiler is present. Without one, the modules that would use it run their
Python code instead, with the same results, only slower: silent by design, nothing is wrong. An extension that was
built but cannot give a module what it needs (an editable install whose C source changed after it was compiled, or
a build for another Python) is different: the module falls back all the same, several times slower, so that is
said once, with the rebuild that mends it, rather than left for someone to find in a benchmark.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Sequence
from typing import Any


class StaleExtensionWarning(RuntimeWarning):
    """A built C extension is unusable (older than the package, or broken): its Python fallback runs, slower."""


def compiled(module: str, names: Sequence[str]) -> tuple[Any, ...] | None:
    """``names`` from the extension ``module``, or ``None`` when it was not built (silently) or cannot give them
    all (with a :class:`StaleExtensionWarning`): a caller uses all of them or none."""
    try:
        extension = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None  # not built: no C compiler at install
        problem = str(exc)
    except ImportError as exc:  # built, but does not load (another Python, a missing symbol)
        problem = str(exc)
    else:
        missing = [name for name in names if not hasattr(extension, name)]
        if not missing:
            return tuple(getattr(extension, name) for name in names)
        problem = f"it lacks {', '.join(missing)}: it was built from an older noisecraft"
    warnings.warn(f"{module} is unusable ({problem}); its Python fallback runs instead, with the same results, several "
                  "times slower. Rebuild it: pip install -e . in a checkout, else reinstall noisecraft",
                  StaleExtensionWarning, stacklevel=2)
    return None
