"""noisecraft is pure Python: its wheel is ``py3-none-any``, holds no C source or binary of ours, and carries the
package data a user needs away from a checkout (the recipe catalogue, layouts, the demo sample, card templates)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_wheel_is_pure_python_and_carries_its_data(tmp_path):
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(tmp_path),
                            str(REPO_ROOT)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    [wheel] = tmp_path.glob("noisecraft-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.endswith((".c", ".so", ".pyd", ".dylib"))]
    recipes = {p.name for p in (REPO_ROOT / "scripts" / "recipes").glob("*.toml")}
    assert recipes and {n.rsplit("/", 1)[-1] for n in names if n.startswith("noisecraft/recipes/")} >= recipes
    for data in ("noisecraft/keyboards/qwerty.toml", "noisecraft/samples/demo_squad.json",
                 "noisecraft/noise_models/catalogue.json", "noisecraft/noise_models/typing-learner-en.json",
                 "noisecraft/mining/__init__.py",
                 "noisecraft/harness/__init__.py"):
        assert data in names, data


def test_no_c_source_is_tracked():
    tracked = subprocess.run(["git", "ls-files", "*.c", "*.h", "*.pyx"], capture_output=True, text=True, cwd=REPO_ROOT)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    assert tracked.stdout == ""
