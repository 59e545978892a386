"""The optional C extensions are built where the suite runs in CI.

``noisecraft._twister`` (seeding), ``noisecraft._counting`` (statistics) and ``noisecraft._wikistrip`` (wikitext
stripping) are optional: without a C compiler ``pip install`` goes on without them and the pure-Python paths give
the same bytes. The tests of the compiled paths therefore skip when an extension is missing, which on CI would hide
them: there (``CI`` set, as .ci/run runs, with gcc installed) a missing extension is a failure, like a missing corpus.
"""

from __future__ import annotations

import importlib
import os

import pytest

EXTENSIONS = ["noisecraft._twister", "noisecraft._counting", "noisecraft._wikistrip"]


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


def test_an_extension_not_built_is_silently_left_out():
    import warnings

    from noisecraft.compiled import compiled

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled("noisecraft._no_such_extension", ("anything",)) is None


def test_a_stale_or_broken_extension_is_said_not_silently_slow(tmp_path, monkeypatch):
    """Built but older than the package (a function missing), or not loadable (another Python, a damaged file): the
    Python fallback runs, with a warning that names the rebuild."""
    import sys
    import sysconfig
    import types

    from noisecraft.compiled import StaleExtensionWarning, compiled

    old = types.ModuleType("noisecraft._old_counting")
    old.Reference = object
    monkeypatch.setitem(sys.modules, "noisecraft._old_counting", old)
    with pytest.warns(StaleExtensionWarning, match=r"lacks edit_spans: it was built from an older noisecraft.*pip install -e"):
        assert compiled("noisecraft._old_counting", ("Reference", "edit_spans")) is None
    assert compiled("noisecraft._old_counting", ("Reference",)) == (object,)

    (tmp_path / f"noisecraft_damaged{sysconfig.get_config_var('EXT_SUFFIX')}").write_bytes(b"not a shared object")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.warns(StaleExtensionWarning, match="noisecraft_damaged is unusable"):
        assert compiled("noisecraft_damaged", ("anything",)) is None
