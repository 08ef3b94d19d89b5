"""Worker pools: results in order or as they come, a worker's error raised in the parent, a
worker that dies named, and an interrupt that stops the pool at once whatever the workers
are doing (idle, or in the middle of sending a large result)."""

import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from splitpoker.runtime.workers import WorkerDied, worker_pool

SPAWN = multiprocessing.get_context("spawn")


def test_map_and_imap_keep_the_order_of_the_items_and_imap_unordered_has_every_result():
    with worker_pool(SPAWN, 2) as pool:
        assert pool.map(abs, [-3, 1, -2, 5, -8]) == [3, 1, 2, 5, 8]
        assert list(pool.imap(str, range(7))) == [str(i) for i in range(7)]
        assert sorted(pool.imap_unordered(abs, range(-5, 0))) == [1, 2, 3, 4, 5]
        assert pool.map(abs, []) == []
    assert not multiprocessing.active_children()


def test_a_workers_error_is_raised_in_the_parent_and_the_workers_are_stopped():
    with pytest.raises(ValueError, match="invalid literal for int"), worker_pool(SPAWN, 2) as pool:
        pool.map(int, ["1", "x", "3"])
    assert not multiprocessing.active_children()


def test_a_result_that_does_not_pickle_is_an_error_naming_why():
    with pytest.raises(RuntimeError, match="TypeError: cannot pickle '_io.TextIOWrapper'"), \
            worker_pool(SPAWN, 1) as pool:
        pool.map(open, [os.devnull])
    assert not multiprocessing.active_children()


def test_a_worker_that_dies_is_named_instead_of_waited_for():
    with worker_pool(SPAWN, 2) as pool:
        pids = [process.pid for process in multiprocessing.active_children()]
        killer = threading.Timer(1.0, os.kill, (pids[0], signal.SIGKILL))
        killer.start()
        started = time.monotonic()
        with pytest.raises(WorkerDied, match=rf"pid {pids[0]}\) ended with exit code -9 while it held a task"):
            pool.map(time.sleep, [60, 60])
        assert time.monotonic() - started < 30
    assert not multiprocessing.active_children()


_INTERRUPTED = """
import multiprocessing, sys, time
from splitpoker.runtime.workers import worker_pool
try:
    with worker_pool(multiprocessing.get_context("spawn"), 2) as pool:
        if sys.argv[1] == "idle":
            pool.map(abs, [1, 2])
            time.sleep(0.5)
        else:  # the workers are sending 40 MB results that nobody reads: both stop mid-message
            for _ in pool.imap_unordered(bytes, [40_000_000] * 20):
                time.sleep(0.5)
                break
        raise KeyboardInterrupt
except KeyboardInterrupt:
    print("stopped", len(multiprocessing.active_children()))
"""


@pytest.mark.parametrize("doing", ["idle", "sending"])
def test_an_interrupted_pool_stops_at_once_and_leaves_no_process(doing):
    """The workers are killed on an interrupt whatever they were doing, and the parent goes on
    (a worker killed while it held a shared queue's lock used to leave the parent waiting)."""
    done = subprocess.run([sys.executable, "-c", _INTERRUPTED, doing], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["stopped", "0"]
    assert "Traceback" not in done.stderr
