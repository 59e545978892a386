"""Evaluation of models on clean vs noisy pairs (``noisecraft evaluate``); imports the library, never the reverse.

```python
import noisecraft as nc
result = nc.evaluate("xquad-noisy/", models=["deepset/roberta-base-squad2"], configs=["xquad-en-keyboard"],
                     out="report/")
result.to_dict()["results"][0]["metrics"]["f1"]   # {"clean": ..., "noisy": ..., "difference": ..., "ci": [...], ...}
```

LLMs are run by lm-evaluation-harness: ``export_lm_eval`` writes a set's tasks, ``evaluate_lm_eval`` reads the
samples ``lm_eval --log_samples`` logged on them into the same report (the ``[llm]`` extra).

Needs the ``[eval]`` extra (torch, transformers, matplotlib); importing this package is cheap, the heavy
libraries load when an evaluation starts.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {"evaluate": "noisecraft.harness.evaluation", "EvaluationResult": "noisecraft.harness.result",
            "ModelRequest": "noisecraft.harness.models", "export_lm_eval": "noisecraft.harness.lm_eval_export",
            "evaluate_lm_eval": "noisecraft.harness.lm_eval_samples"}


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'noisecraft.harness' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
