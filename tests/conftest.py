"""Shared fixtures: offline Hub settings and the read-only real corpora in ../shared/corpora."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Without these a missing Hub file costs 20-45 s of retries; tests must never reach the network.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
# pytest-xdist runs a worker per core (up to 4): each worker, and every process it starts (the CLI, build workers, Ray
# actors), gets its share of the cores for torch's and BLAS's thread pools. Without a share, each of them spins
# cores-many threads, and on 2 cores the model tests ran 3-6x slower than alone.
if "PYTEST_XDIST_WORKER_COUNT" in os.environ:
    _share = str(max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"])))
    for _pool in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_pool, _share)

REPO_ROOT = Path(__file__).resolve().parents[1]

# No property of this suite is about time: Hypothesis's 200 ms deadline only fails tests on a loaded machine. The
# profile is every test's default (an explicit @settings inherits it); loaded here, before any test module.
settings.register_profile("noisecraft", deadline=None)
settings.load_profile("noisecraft")


class OnFirstUse:
    """A module imported on its first attribute access: a test module can name torch or polars at the top
    without making every collection of the suite pay their import (seconds for torch)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):  # pytest's collection probes objects for its markers: no import for those
            raise AttributeError(attribute)
        return getattr(importlib.import_module(self.name), attribute)


CORPORA = Path(os.environ.get("NOISECRAFT_CORPORA", REPO_ROOT.parent / "shared" / "corpora"))


@pytest.fixture(autouse=True)
def _isolated_hf_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``load_dataset`` caches a local folder's configs by folder name and config name, so two tests that
    build ``out/`` with the same config would read each other's rows: one cache per test, outside
    ~/.cache. ``datasets`` reads the variable at import, so its config is patched too."""
    import datasets

    cache = tmp_path / "hf-datasets-cache"
    monkeypatch.setenv("HF_DATASETS_CACHE", str(cache))
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", cache)
    # model outputs (translations, transcripts, predictions): computed afresh in every test, never in ~/.cache
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "noisecraft-cache"))


def corpus(relative: str) -> Path:
    """A file of the shared real corpora. Missing, the test fails in CI (``CI`` set, as .ci/run runs) and is
    skipped with the reason elsewhere (a fresh clone without the corpora still runs every contract test
    on the data the repository ships)."""
    path = CORPORA / relative
    if not path.exists():
        message = f"real corpus {relative} not found under {CORPORA} (set NOISECRAFT_CORPORA to its folder)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for a module: tiny models gain nothing from threads, and on a shared 2-core machine two
    threads contend (5x slower)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def without_segmenters(monkeypatch: pytest.MonkeyPatch):
    """As if pythainlp, jieba and SudachiPy were not installed (segmenter caches emptied before and after)."""
    from noisecraft.core import text_units

    for lang in text_units.SEGMENTED_LANGUAGES:
        monkeypatch.setitem(text_units.SEGMENTER_LOADERS, lang, lambda: None)
    text_units.segmenter.cache_clear()
    text_units._run_lengths.cache_clear()
    yield
    monkeypatch.undo()
    text_units.segmenter.cache_clear()
    text_units._run_lengths.cache_clear()


def beside_the_corpora(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """``<tmp>/noisecraft`` (``scripts`` linked from the checkout) beside ``<tmp>/shared/corpora`` (the real
    corpora), as a reader's checkout sits: the folder the README's and the docs' blocks run in."""
    corpus("MANIFEST.tsv")  # skips (fails in CI) without the corpora
    root = tmp_path_factory.mktemp(name)
    (root / "shared").mkdir()
    (root / "shared" / "corpora").symlink_to(CORPORA.resolve(), target_is_directory=True)
    work = root / "noisecraft"
    work.mkdir()
    (work / "scripts").symlink_to(REPO_ROOT / "scripts", target_is_directory=True)
    return work


@pytest.fixture(scope="module")
def ray_cluster():
    """A local two-CPU Ray for the module (the executors use it rather than starting their own)."""
    ray = pytest.importorskip("ray", reason="the Ray engine tests need the [ray] extra (part of [test])")
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024**2, logging_level="ERROR")
    yield ray
    ray.shutdown()
