"""The largest resource-sized values a command, a config or an evaluation may ask for, each
checked before any work starts, so that a typing slip (``--workers 100000``, ``n_envs: 2e8``)
is one line naming the value and the limit instead of a machine run out of memory.

Every path applies them through the same checks: :func:`check_count` (an integer in a range),
:func:`check_workers` (processes: evaluation, exploitation, labelling, one-process-per-env
training), :func:`check_threads` and :func:`check_batch` (a number of tables bounded by the
bytes their arrays take, :data:`MAX_BATCH_BYTES`), and :func:`check_bytes` (the same bound on
bytes several values ask for together: a training run's rollout)."""

from __future__ import annotations

import os
from typing import Any

from .arguments import check_whole, named

#: worker processes (evaluation, labelling, one-process-per-env training): each is a process with
#: its own copy of the agents
MAX_WORKERS = max(64, 4 * (os.cpu_count() or 1))
#: deals of one evaluation, or hands labelled in one go
MAX_HANDS = 10_000_000
#: self-play tables of one run, or tables of one vector environment
MAX_ENVS = 65_536
#: torch CPU threads of one run
MAX_THREADS = max(64, 4 * (os.cpu_count() or 1))
#: hands a run plays or labels in all
MAX_TIMESTEPS = 10**12
#: bytes the arrays of one batch of tables may take (a vector environment's masks and
#: observations, the hands of one deal): each table's share times the tables
MAX_BATCH_BYTES = 4 * 2**30


def check_count(value: Any, what: str, least: int = 1, most: int | None = None) -> int:
    """``value`` as an int when it is an integer (numpy's included; not a bool, not a float)
    from ``least`` to ``most`` (None: no most); else ValueError naming ``what`` (an option,
    ``--workers``, or a keyword, ``num_envs=``), the value and what is allowed
    (:func:`~splitpoker.runtime.arguments.check_whole`)."""
    return check_whole(value, what, least, most)


def check_workers(value: Any, what: str = "--workers") -> int:
    """``value`` as an int when it is a number of worker processes from 1 to :data:`MAX_WORKERS`;
    else ValueError naming ``what``."""
    return check_count(value, what, 1, MAX_WORKERS)


def check_threads(value: Any, what: str = "threads") -> int:
    """``value`` as an int when it is a number of threads from 1 to :data:`MAX_THREADS`; else
    ValueError naming ``what``."""
    return check_count(value, what, 1, MAX_THREADS)


def _bytes(size: float) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{int(size)} bytes"


def most_within_bytes(bytes_each: int, most: int | None = None) -> int:
    """The most items of ``bytes_each`` bytes each that :data:`MAX_BATCH_BYTES` holds (and
    at most ``most``)."""
    fit = MAX_BATCH_BYTES // max(1, int(bytes_each))
    return fit if most is None else min(fit, most)


def check_bytes(total: int, what: str, do: str) -> int:
    """``total`` when it is at most :data:`MAX_BATCH_BYTES`; else ValueError saying that
    ``what`` (the values that ask for it, named as the user gives them) would take ``total``
    bytes, more than the most allowed, and what to ``do``."""
    if total > MAX_BATCH_BYTES:
        raise ValueError(f"{what} would take about {_bytes(total)}, more than the most allowed, "
                         f"{_bytes(MAX_BATCH_BYTES)}; {do}")
    return total


def check_batch(value: Any, what: str, bytes_each: int, least: int = 1, most: int | None = None,
                items: str = "tables") -> int:
    """``value`` as an int when it is a number of ``items`` (:func:`check_count` from ``least``
    to ``most``) whose arrays, ``bytes_each`` bytes an item, fit in :data:`MAX_BATCH_BYTES`;
    else ValueError naming ``what``, the value, the bytes it would take and the most allowed."""
    count = check_count(value, what, least, most)
    fit = most_within_bytes(bytes_each, most)
    if count > fit:
        raise ValueError(f"{named(what, count)} is more than the most allowed, {fit:,}: {count:,} {items} would take "
                         f"{_bytes(count * bytes_each)} ({_bytes(bytes_each)} each), more than "
                         f"{_bytes(MAX_BATCH_BYTES)}")
    return count
