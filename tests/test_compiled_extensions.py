"""The optional C extensions are built where the suite runs in CI.

``noisecraft._twister`` (seeding) and ``noisecraft._counting`` (statistics) are optional: without a C compiler
``pip install`` goes on without them and the pure-Python paths give the same bytes. The tests of the compiled paths
therefore skip when an extension is missing, which on CI would hide them: there (``CI`` set, as .ci/run runs, with
gcc installed) a missing extension is a failure, like a missing corpus.
"""

from __future__ import annotations

import importlib
import os

import pytest

EXTENSIONS = ["noisecraft._twister", "noisecraft._counting"]


@pytest.mark.parametrize("name", EXTENSIONS)
def test_the_compiled_extension_is_built_in_ci(name):
    try:
        importlib.import_module(name)
    except ImportError as exc:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{name} is not built ({exc}): install with a C compiler, or its tests skip")
        pytest.skip(f"{name} is not built (no C compiler when the package was installed)")


def test_every_declared_extension_is_checked():
    import tomllib
    from pathlib import Path

    declared = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    names = [module["name"] for module in declared["tool"]["setuptools"]["ext-modules"]]
    assert sorted(names) == sorted(EXTENSIONS)
