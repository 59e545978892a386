"""The local engine (noisecraft.building.workers): the standard library's process pool behind the executor seam. Its contract
(input order, a bounded window, one pool reused, errors as themselves, a dead worker as one line), and what a
``--num-proc 2`` build does when a worker is killed, on Ctrl-C, on SIGTERM and when the build itself is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from noisecraft.building.workers import LocalExecutor, WorkerDied
from noisecraft.errors import InputError

from conftest import corpus


def _square(x: int) -> int:
    return x * x


def _pid(_: object) -> int:
    return os.getpid()


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (an ended orphan may stay a zombie where nothing reaps it, e.g. a container's init)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_the_pool_keeps_input_order_bounds_work_in_flight_and_is_reused():
    submitted = []

    def items():
        for i in range(20):
            submitted.append(i)
            yield i

    with LocalExecutor(2) as pool:
        results = pool.imap(_square, items(), in_flight=3)
        assert next(results) == 0
        assert len(submitted) <= 3  # the rest is not submitted before it is needed
        assert [0, *results] == [i * i for i in range(20)]
        workers = set(pool.imap(_pid, range(20))) | set(pool.imap(_pid, range(20)))
        assert os.getpid() not in workers and len(workers) <= 2  # the same two workers serve every map
    assert not any(map(_running, workers))  # closed: the workers have ended
    assert list(LocalExecutor(1).imap(_pid, range(3))) == [os.getpid()] * 3  # one process: here


#: Changed by the test below in this process only: a spawned worker imports this module afresh.
_STATE = "as imported"


def _state(_: object) -> str:
    return _STATE


def test_workers_are_spawned_so_they_inherit_no_thread_or_lock_of_this_process(monkeypatch):
    """A forked worker would copy this process's memory (and any lock a native thread held in it); a spawned one
    starts a fresh interpreter: it sees the module as imported, not as changed here."""
    monkeypatch.setattr(sys.modules[__name__], "_STATE", "changed in the parent")
    with LocalExecutor(2) as pool:
        assert set(pool.imap(_state, range(4))) == {"as imported"}


def _fail_on_three(x: int) -> int:
    if x == 3:
        raise InputError("data.json", "a bad value", f"row {x}")
    return x


def test_a_worker_error_is_raised_as_itself_and_the_pool_stays_usable():
    with LocalExecutor(2) as pool:
        with pytest.raises(InputError, match="a bad value") as raised:
            list(pool.imap(_fail_on_three, range(8)))
        assert "_fail_on_three" in str(raised.value.__cause__)  # the worker's traceback
        assert list(pool.imap(_fail_on_three, range(3))) == [0, 1, 2]


class _NeedsTwo(Exception):
    def __init__(self, first: str, second: str) -> None:
        super().__init__(f"{first} and {second}")  # pickles as (message,): rebuilding it here is a TypeError


def _raise_needs_two(x: int) -> int:
    if x == 1:
        raise _NeedsTwo("this", "that")
    return x


def test_an_exception_that_does_not_unpickle_here_still_says_what_it_was():
    with LocalExecutor(2) as pool:
        with pytest.raises(RuntimeError, match="_NeedsTwo: this and that") as raised:
            list(pool.imap(_raise_needs_two, range(3)))
        assert "_raise_needs_two" in str(raised.value.__cause__)
        assert list(pool.imap(_square, range(3))) == [0, 1, 4]  # not a broken pool


def test_a_dead_worker_is_an_error_naming_its_exit_not_a_hang():
    with LocalExecutor(2) as pool:
        with pytest.raises(WorkerDied, match=r"^worker process \d+ exited with status 7$"):
            list(pool.imap(os._exit, [7, 7, 7]))
        assert list(pool.imap(_square, range(4))) == [0, 1, 4, 9]  # a new pool


def test_a_worker_that_died_between_maps_fails_one_map_not_every_later_one():
    with LocalExecutor(2) as pool:
        dead = next(pool.imap(_pid, [0]))
        os.kill(dead, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{dead}").exists() and time.monotonic() < deadline:  # until the pool has reaped it
            time.sleep(0.01)
        with pytest.raises(WorkerDied, match=f"worker process {dead} was killed by signal 9 \\(out of memory?"):
            list(pool.imap(_square, range(4)))
        assert list(pool.imap(_square, range(4))) == [0, 1, 4, 9]


def test_a_pool_made_while_another_thread_runs_gives_the_same_answers():
    stop = threading.Event()
    waiter = threading.Thread(target=stop.wait)
    waiter.start()
    try:
        with LocalExecutor(2) as pool:
            assert list(pool.imap(abs, range(-6, 0))) == [6, 5, 4, 3, 2, 1]
            with pytest.raises(ValueError, match="invalid literal"):
                list(pool.imap(int, ["1", "x"]))
    finally:
        stop.set()
        waiter.join()


def test_maps_of_one_pool_may_interleave_and_each_gets_its_own_results():
    with LocalExecutor(2) as pool:
        assert list(zip(pool.imap(abs, range(-6, 0)), pool.imap(str, range(6)))) == [
            (6, "0"), (5, "1"), (4, "2"), (3, "3"), (2, "4"), (1, "5")]
        kept, stopped = pool.imap(abs, range(-10, 0)), pool.imap(str, range(10))
        assert (next(kept), next(stopped)) == (10, "0")
        stopped.close()  # its items are dropped; the other map's are not
        assert list(kept) == list(range(9, 0, -1))
        assert list(pool.imap(str, range(20, 23))) == ["20", "21", "22"]


def test_closing_the_pool_under_a_running_map_raises_instead_of_hanging():
    pool = LocalExecutor(2)
    submitting, submitted = pool.imap(abs, range(-9, 0)), pool.imap(time.sleep, [0, 5, 5], in_flight=4)
    assert (next(submitting), next(submitted)) == (9, None)
    pool.close()  # the sleeps are stopped
    for results in (submitting, submitted):  # its next item not submitted yet, or every item submitted
        with pytest.raises(RuntimeError, match="pool was closed while this map was running"):
            list(results)
    assert list(pool.imap(abs, range(-3, 0))) == [3, 2, 1]  # a new pool
    pool.close()


def test_closing_after_a_map_stopped_early_raises_nothing_in_the_pools_thread(monkeypatch):
    # a map stopped early cancels its pending items; the pool's manager thread must not then try to fail them as the
    # workers are stopped (Python 3.11 printed an InvalidStateError from that thread: it did so on every try here)
    raised: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))
    for _ in range(3):
        pool = LocalExecutor(2)
        results = pool.imap(time.sleep, [0.3] * 20, in_flight=12)
        next(results)
        results.close()
        pool.close()
    assert raised == []


def test_in_flight_below_one_is_an_error_not_an_empty_map():
    from noisecraft.building.executors import RayExecutor

    for num_proc in (1, 2):
        with LocalExecutor(num_proc) as pool:
            with pytest.raises(ValueError, match="in_flight must be at least 1"):
                list(pool.imap(_square, range(3), in_flight=-1))
    with pytest.raises(ValueError, match="in_flight must be at least 1"):  # the same rule on Ray, before it starts
        list(RayExecutor().imap(_square, range(3), in_flight=0))


# --- a `--num-proc 2` build from the command line, stopped while its workers run ---------------------------------

#: A module (the spawned workers import it too, to run what the pool sends them) whose ``slow`` runs a batch after
#: announcing on stdout the process that runs it and taking its time.
SLOW_BATCHES = """
import os, time
from noisecraft.building import pipeline
def slow(item):
    os.write(1, b"%d\\n" % os.getpid())
    time.sleep(0.5)
    return pipeline.process_batch(*item)
"""
#: The CLI, every batch handed to the workers as ``slow_batches.slow``.
SLOW_CLI = """
import slow_batches
from noisecraft.building import pipeline
pipeline._process_item = slow_batches.slow
from noisecraft.cli import run
run()
"""


def _slow_build(tmp_path: Path) -> tuple[subprocess.Popen, Path, set[int]]:
    """A ``--num-proc 2`` build in a session of its own (as a terminal's foreground job), returned once both of its
    workers are running a batch, with its output folder and the workers' process ids."""
    out = tmp_path / "out"
    (tmp_path / "slow_batches.py").write_text(SLOW_BATCHES, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    build = subprocess.Popen(
        [sys.executable, "-c", SLOW_CLI, "build", "--source", "xquad", "--data-file", str(corpus("xquad/xquad.en.json")),
         "--noise", "keyboard", "--out", str(out), "--num-proc", "2", "--batch-size", "50", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)
    workers: set[int] = set()
    while len(workers) < 2:
        line = build.stdout.readline()
        if not line:
            pytest.fail(f"the build ended before its workers ran: {build.communicate()[1]}")
        workers.add(int(line))
    return build, out, workers


def _ended(build: subprocess.Popen, workers: set[int]) -> tuple[int, str]:
    """The build's exit status and stderr, once it and its workers have ended (they hold its pipes too)."""
    try:
        _, stderr = build.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # hung, or orphans hold its pipes: fail below, leaving nothing running
        build.kill()
        stderr = "timed out"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(map(_running, workers)):
        time.sleep(0.1)
    orphans = [pid for pid in workers if _running(pid)]
    for pid in orphans:
        os.kill(pid, signal.SIGKILL)
    assert orphans == []
    return build.returncode, stderr


linux_only = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


@linux_only
def test_a_killed_worker_stops_the_build_with_one_line_and_writes_nothing(tmp_path):
    build, out, workers = _slow_build(tmp_path)
    dead = min(workers)
    os.kill(dead, signal.SIGKILL)
    status, stderr = _ended(build, workers)
    assert status == 2
    assert stderr.splitlines() == [f"noisecraft: error: worker process {dead} was killed by signal 9 (out of memory? "
                                   "try a smaller --batch-size or fewer --num-proc)"]
    assert not out.exists()


@linux_only
@pytest.mark.parametrize(("sent", "status", "said"), [(signal.SIGINT, 130, "interrupted"),
                                                      (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_or_sigterm_stops_the_build_and_its_workers_and_writes_nothing(tmp_path, sent, status, said):
    build, out, workers = _slow_build(tmp_path)
    if sent == signal.SIGINT:  # Ctrl-C reaches the terminal's whole foreground group, workers included
        os.killpg(build.pid, sent)
    else:
        os.kill(build.pid, sent)
    assert _ended(build, workers) == (status, f"noisecraft: {said}; files already written are complete (each is "
                                              "renamed into place).\n")
    assert not out.exists()


@linux_only
def test_a_build_killed_outright_leaves_no_orphan_workers(tmp_path):
    build, _, workers = _slow_build(tmp_path)
    os.kill(build.pid, signal.SIGKILL)
    status, stderr = _ended(build, workers)  # they find themselves adopted within a second and end
    # the only words: Python's resource tracker, which outlives the build to remove the pool's named semaphores
    said = [line for line in stderr.splitlines() if "resource_tracker" not in line and "warnings.warn" not in line]
    assert status == -signal.SIGKILL and said == [], stderr
