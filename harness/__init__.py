"""Evaluation of models on clean vs noisy pairs (``noisecraft evaluate``); imports the library, never the reverse.

```python
import noisecraft as nc
result = nc.evaluate("xquad-noisy/", models=["deepset/roberta-base-squad2"], configs=["xquad-en-keyboard"],
                     out="report/")
result.to_dict()["results"][0]["metrics"]["f1"]   # {"clean": ..., "noisy": ..., "difference": ..., "ci": [...], ...}
```

Needs the ``[eval]`` extra (torch, transformers, matplotlib); importing this package is cheap, the heavy
libraries load when an evaluation starts.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {"evaluate": "noisecraft.harness.evaluation", "EvaluationResult": "noisecraft.harness.result",
            "ModelRequest": "noisecraft.harness.models"}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'noisecraft.harness' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
