"""noisecraft: clean benchmark + noise model + seed -> shareable robustness challenge set.

```python
import noisecraft as nc
kb = nc.noise("keyboard", lang="de", rate=0.25)
kb.augment(["Wie viele Punkte?"], seed=0)
ds2 = nc.perturb(ds, kb, fields=["question"], seed=0)
nc.build("xquad", lang="de", noise=kb, out="xquad-noisy/")
nc.evaluate("xquad-noisy/", models=["deepset/roberta-base-squad2"])   # needs noisecraft[eval]
```

Importing this package is cheap (no torch, no datasets): the API is loaded on first use, and the
CLI and the rule-based noise models stay usable on a bare install.
"""

from __future__ import annotations

from typing import Any

from noisecraft.version import __version__ as __version__

_API = ("noise", "perturb", "build", "build_recipe", "chain", "register_noise", "LabelLayout")


def __getattr__(name: str) -> Any:
    if name in _API:
        from noisecraft import api

        return getattr(api, name)
    if name == "evaluate":  # the harness builds on the library: reached lazily, never imported by it
        from noisecraft.harness import evaluate

        return evaluate
    raise AttributeError(f"module 'noisecraft' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API, "evaluate"])
