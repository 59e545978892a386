"""What ``datasets.load_dataset`` reads from an output folder is always one committed version (issue 35 §1).

A writer is killed at every ``os.replace``, ``os.rename``, ``os.unlink``, ``os.rmdir`` and ``shutil.rmtree`` it
makes in the folder, for a first build, a config added to a built folder, an ``--overwrite`` rebuild that changes
the rate, and an overwriting ``mine``. After each kill, every config the card names loads with plain ``datasets``
and gives what the manifest in that card says (its rows, its noise parameters), the card is the one that manifest
renders, and ``publish`` verifies and uploads exactly that version; a folder never committed has no config to load.
Then the next writer removes what the killed one left.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_publish import FakeHub

import noisecraft as nc
from noisecraft.dataset.card import render_card, render_dictionary_card
from noisecraft.dataset.publish import load_fresh, publish
from noisecraft.dataset.repo import CARD, LOCK, NOISE_DICTIONARY, SHARD, DatasetRepo, data_files, read_manifest, split_card

OPS = ("replace", "rename", "unlink", "rmdir")


class Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs in the writer."""


@contextmanager
def killed_at(root: Path, k: int, calls: list[tuple[str, str]]) -> Iterator[None]:
    """Record every call of :data:`OPS` and ``shutil.rmtree`` on a path in ``root``; the ``k``-th raises
    :class:`Killed` before it acts (``k`` = 0: none does)."""
    inside = str(root) + os.sep

    def wrap(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def op(path: Any, *args: Any, **kwargs: Any) -> Any:
            target = args[0] if name in ("replace", "rename") else path  # a rename is named by where it lands
            if isinstance(target, (str, os.PathLike)) and os.fspath(target).startswith(inside):
                calls.append((name, os.fspath(target)[len(inside):]))
                if len(calls) == k:
                    raise Killed
            return real(path, *args, **kwargs)
        return op

    with pytest.MonkeyPatch.context() as patch:
        for name in OPS:
            patch.setattr(os, name, wrap(name, getattr(os, name)))
        patch.setattr(shutil, "rmtree", wrap("rmtree", shutil.rmtree))
        yield


def view(root: Path) -> dict[str, Any] | None:
    """The version a reader sees, checked for agreement: ``{config: spec}``, or ``None`` where nothing was ever
    committed (and then ``load_dataset`` of a config is an error)."""
    import datasets

    if not (root / CARD).exists():
        with pytest.raises(Exception):  # noqa: B017 (datasets raises several types for a config it cannot find)
            datasets.load_dataset(str(root), "kb", cache_dir=str(root.parent / "cache"))
        return None
    manifest = read_manifest(root)
    for name, entry in manifest["configs"].items():
        split = entry["spec"].get("split", "train")
        rows = load_fresh(root, name, split)
        assert rows.num_rows == entry["stats"].get("rows", entry["stats"].get("pairs")), name
        if "noise_params" in rows.column_names:  # the rate that made the rows is the one the manifest says
            assert {json.dumps(json.loads(p), sort_keys=True) for p in rows["noise_params"]} == {
                json.dumps(entry["spec"]["params"], sort_keys=True)}, name
    render = render_dictionary_card if manifest["kind"] == NOISE_DICTIONARY else render_card
    assert split_card((root / CARD).read_text(encoding="utf-8"), root / CARD)[0] == render(manifest)
    hub = FakeHub()
    publish(root, "org/set", api=hub)
    named = {path for name in manifest["configs"] for paths in data_files(manifest, name).values() for path in paths}
    assert set(hub.commits["commit0"]) == {CARD, *named}
    return {name: entry["spec"] for name, entry in manifest["configs"].items()}


def clean(root: Path) -> bool:
    """Nothing but the committed version: no hidden leftovers, no data file the card does not name."""
    manifest = read_manifest(root)
    named = {path for name in manifest["configs"] for paths in data_files(manifest, name).values() for path in paths}
    shards = {p.relative_to(root).as_posix() for p in root.glob("*/*") if SHARD.fullmatch(p.name)}
    return shards == named and [p.name for p in root.iterdir() if p.name.startswith(".")] in ([], [LOCK])


def build(rate: float, config: str = "kb", noise: str = "keyboard") -> Callable[[Path], Any]:
    return lambda root: nc.build("demo", noise=f"{noise}(rate={rate})", out=root, config_name=config,
                                 overwrite=True, progress=False)


def mine(keyboard_only: bool) -> Callable[[Path], Any]:
    def run(root: Path) -> Any:
        from noisecraft.mining.registry import mine

        lists = root.parent / "list.txt"
        lists.write_text("acheive->achieve\nbeleive->believe\nrecieve->receive\nteh->the\nadn->and\nwich->which\n",
                         encoding="utf-8")
        return mine("misspellings", [lists], root, lang="en", config_name="kb", keyboard_only=keyboard_only,
                    overwrite=True)
    return run


SCENARIOS = {
    "first build": (None, build(0.25)),
    "add-config": (build(0.25), build(0.5, "sw", "swap")),
    "overwrite changing the rate": (build(0.25), build(0.9)),
    "mine overwriting": (mine(True), mine(False)),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_a_writer_killed_at_any_step_leaves_one_loadable_version(tmp_path, scenario):
    before_op, op = SCENARIOS[scenario]
    template = tmp_path / "template" / "out"
    template.parent.mkdir()
    if before_op is not None:
        before_op(template)
    old = view(template) if before_op is not None else None
    counted = tmp_path / "count" / "out"
    shutil.copytree(template.parent, counted.parent) if before_op else counted.parent.mkdir()
    calls: list[tuple[str, str]] = []
    with killed_at(counted, 0, calls):
        op(counted)
    new = view(counted)
    assert new != old and clean(counted)
    assert ("replace", CARD) in calls, calls
    seen = []
    for k in range(1, len(calls) + 1):
        root = tmp_path / f"kill-{k}" / "out"
        shutil.copytree(template.parent, root.parent) if before_op else root.parent.mkdir()
        with pytest.raises(Killed), killed_at(root, k, []):
            op(root)
        seen.append(view(root))
        assert seen[-1] in (old, new), f"killed at {calls[k - 1]}: a version that was never committed"
        kind = read_manifest(root)["kind"] if seen[-1] else "challenge-set"
        DatasetRepo(root, "1.0.0", kind=kind).close()  # the next writer removes what the killed one left
        if seen[-1] is None:
            assert not root.exists() or not any(root.iterdir())
        else:
            assert clean(root) and view(root) == seen[-1]
    card = calls.index(("replace", CARD))
    assert seen[:card + 1] == [old] * (card + 1) and seen[card + 1:] == [new] * (len(calls) - card - 1)
