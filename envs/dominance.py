"""The undominated splits of a hand: the candidates every decision needs to consider.

A split is *dominated* when another valid split of the same hand is at least as good in
every quantity the payoff is monotone in: its *dominance key*, the three rows' strengths
plus one 0/1 flag for each arrangement-dependent bonus that is not monotone in the rows'
strengths (each game says which, in its ``dominance`` module and its RULES.md). Against any
arrangement of the other seats, a dominated split then scores no more than a split that
dominates it, so a best response never needs one, and restricting every seat to the
*candidates* (the undominated valid splits) keeps every equilibrium.

Of several valid splits with equal keys (equal payoffs against anything), the one of the
lowest index is the candidate: split ``y`` *beats* split ``x`` when ``key(y) >= key(x)``
component by component (flags as sets: ``y`` holds every flag ``x`` holds) and either the
keys differ or ``y < x``. The candidates are the valid splits no valid split beats.

The sweep (:func:`split_classes`) runs over the last row's subsets from the strongest
down, keeping the frontier found so far as, per flag pattern, the best first-row key over
the middle rows of each strength rank or stronger (a non-decreasing array, raised as
candidates are found), so that checking a valid split is one read; splits whose last rows
are equal are checked against each other pairwise. It reads each game's per-subset strengths
(:class:`DominanceRows`), so it computes
the valid mask in the same pass. The sweep is compiled with numba (:mod:`.frontier`, loaded
on first use); this module is pure: standard library and NumPy.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

import numpy as np

from .splits import SplitIndex

#: codes of :func:`split_classes`: an invalid split, a valid dominated one, a candidate
INVALID, DOMINATED, CANDIDATE = 0, 1, 2
#: at most this many bonus flags in a key (the sweep keeps a frontier per pattern of them)
MAX_FLAGS = 3


@dataclasses.dataclass(frozen=True)
class DominanceRows:
    """Per hand of a batch and per subset of the hand for each row position (first, middle,
    last): ``keys`` the strength the payoff is monotone in (int64 ``(H, subsets)`` each),
    ``checks`` the values the validity rule compares (``first <= middle <= last``, or ``<``
    when ``strict``), ``flags`` per subset a bit set of bonus flags (uint8, or None for no
    flags: a split's flags are those of its three rows together), ``n_flags`` how many
    bits they use, and ``reduce``: False where these rules have no monotone key, so that
    every valid split stays a candidate."""

    keys: tuple[np.ndarray, np.ndarray, np.ndarray]
    checks: tuple[np.ndarray, np.ndarray, np.ndarray]
    strict: bool
    flags: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    n_flags: int = 0
    reduce: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.n_flags <= MAX_FLAGS:
            raise ValueError(f"a dominance key has at most {MAX_FLAGS} flags, got {self.n_flags}")


@cache
def _tables(index: SplitIndex) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The splits grouped by their last row's subset: ``(n_last_subsets, splits per last
    row)`` arrays of the split index and of its first and middle rows' subset ids; and the
    last row's subset of every split."""
    table = index.table.astype(np.int64)
    last = table[:, 2]
    order = np.argsort(last, kind="stable")
    per = index.n_actions // (int(last.max()) + 1)
    split_of = order.reshape(-1, per)
    if not (last[split_of] == np.arange(len(split_of))[:, None]).all():
        raise AssertionError(f"{index!r}: the splits do not share each last row equally")
    # the sweep streams these three tables once per hand: the narrowest types that hold them
    # (subset ids below 2**15, split indices below 2**31), 8 bytes a split instead of 24
    return (np.ascontiguousarray(split_of, dtype=np.int32), np.ascontiguousarray(table[split_of, 0], dtype=np.int16),
            np.ascontiguousarray(table[split_of, 1], dtype=np.int16), np.ascontiguousarray(last))


@cache
def _bits(index: SplitIndex) -> tuple[np.ndarray, np.ndarray]:
    """Each subset of the first and middle row positions as a bit set of the slots."""
    return (np.ascontiguousarray(index.subset_masks(index.row_sizes[0]), dtype=np.int64),
            np.ascontiguousarray(index.subset_masks(index.row_sizes[1]), dtype=np.int64))


def split_classes(rows: DominanceRows, index: SplitIndex, valid: bool = True) -> np.ndarray:
    """Every split of every hand of a batch classified: int8 ``(H, n_actions)`` of
    :data:`INVALID`, :data:`DOMINATED` or :data:`CANDIDATE`. ``valid=False`` tells only the
    candidates apart (:data:`CANDIDATE`; every other split :data:`INVALID` or
    :data:`DOMINATED`, not telling which), which the sweep finds faster."""
    out = np.empty((len(rows.keys[0]), index.n_actions), dtype=np.int8)
    _sweep(rows, index, out, valid, np.empty((0, 0), dtype=np.int32), np.empty(0, dtype=np.int64))
    return out


#: the candidates :func:`candidate_lists` lists per hand from the sweep itself; a hand of more
#: (about one random Thirteen hand in a hundred; every valid split where no key is monotone)
#: is classified in full instead
LISTED = 1024


def candidate_lists(rows: DominanceRows, index: SplitIndex) -> list[np.ndarray]:
    """The candidates of every hand of a batch as split indices (int64, ascending), as
    :func:`split_classes` marks them, listed by the sweep without the ``(H, n_actions)``
    array: what a decision over the candidates reads."""
    n = len(rows.keys[0])
    found = np.empty((n, LISTED), dtype=np.int32)
    counts = np.empty(n, dtype=np.int64)
    _sweep(rows, index, np.empty((n, 0), dtype=np.int8), False, found, counts)
    lists = [found[h, :c].astype(np.int64) for h, c in enumerate(counts.tolist())]
    over = np.flatnonzero(counts < 0)
    if len(over):
        part = dataclasses.replace(rows, keys=_taken(rows.keys, over), checks=_taken(rows.checks, over),
                                   flags=None if rows.flags is None else _taken(rows.flags, over))
        for h, classes in zip(over.tolist(), split_classes(part, index, valid=False)):
            lists[h] = np.flatnonzero(classes == CANDIDATE)
    return lists


def _taken(arrays: tuple[np.ndarray, np.ndarray, np.ndarray], hands: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of ``hands`` of each array; arrays shared between row positions stay shared."""
    first, middle = arrays[0][hands], arrays[1][hands]
    return first, middle, middle if arrays[2] is arrays[1] else arrays[2][hands]


def _sweep(rows: DominanceRows, index: SplitIndex, out: np.ndarray, valid: bool, found: np.ndarray,
           counts: np.ndarray) -> None:
    """:func:`.frontier.sweep` of ``rows``: into ``out``, or when it has no columns into
    ``found`` and ``counts``."""
    split_of, first_of, middle_of, _ = _tables(index)
    keys = [np.ascontiguousarray(k, dtype=np.int64) for k in rows.keys]
    checks = [np.ascontiguousarray(c, dtype=np.int64) for c in rows.checks]
    n = len(keys[0])
    if rows.flags is None:
        flags = [np.zeros((n, k.shape[1]), dtype=np.uint8) for k in keys]
    else:
        flags = [np.ascontiguousarray(f, dtype=np.uint8) for f in rows.flags]
    from . import frontier  # compiled with numba: loaded on first use, so this module stays pure

    sweep: Any = frontier.sweep
    sweep(*keys, *checks, rows.strict, *flags, np.int64(1 << rows.n_flags), rows.reduce,
          split_of, first_of, middle_of, rows.keys[1] is rows.keys[2], out, valid, *_bits(index), found, counts)


def valid_splits(rows: DominanceRows, index: SplitIndex) -> np.ndarray:
    """The valid splits of every hand of a batch, from the validity values of ``rows``: bool
    ``(H, n_actions)``, in one compiled pass (what :func:`split_classes` tells apart from the
    candidates, without the sweep)."""
    checks = [np.ascontiguousarray(c, dtype=np.int64) for c in rows.checks]
    from . import frontier  # compiled with numba: loaded on first use, so this module stays pure

    kernel: Any = frontier.valid_splits
    split_of, first_of, middle_of, _ = _tables(index)
    out = np.empty((len(checks[0]), index.n_actions), dtype=bool)
    kernel(*checks, rows.strict, split_of, first_of, middle_of, out)
    return out


def candidate_indices(classes: np.ndarray) -> list[np.ndarray]:
    """The candidates of each hand of :func:`split_classes`' output, ascending."""
    return [np.flatnonzero(row == CANDIDATE) for row in np.atleast_2d(classes)]


def dominance_keys(rows: DominanceRows, index: SplitIndex, hand: int = 0,
                   splits: np.ndarray | None = None) -> np.ndarray:
    """The dominance keys of splits of one hand of the batch (all by default): int64
    ``(splits, 4)``, the three rows' key strengths and the flag bits."""
    table = index.table if splits is None else index.table[np.asarray(splits, dtype=np.intp)]
    out = np.empty((len(table), 4), dtype=np.int64)
    flags = np.zeros(len(table), dtype=np.int64)
    for k in range(3):
        column = table[:, k].astype(np.intp)
        out[:, k] = rows.keys[k][hand][column]
        if rows.flags is not None:
            flags |= rows.flags[k][hand][column].astype(np.int64)
    out[:, 3] = flags
    return out


def beats(keys: np.ndarray, splits: np.ndarray, key: np.ndarray, split: int) -> np.ndarray:
    """Which of the splits ``splits`` (keys ``(N, 4)``) beat the split ``split`` of key
    ``key`` (the definition in the module docstring): bool ``(N,)``."""
    at_least = (keys[:, :3] >= key[:3]).all(axis=1) & ((keys[:, 3] & key[3]) == key[3])
    equal = (keys == key).all(axis=1)
    return at_least & (~equal | (splits < split)) & (splits != split)


def promote(rows: DominanceRows, index: SplitIndex, hand: int, split: int, candidates: np.ndarray) -> int:
    """The lowest-index candidate (of the ascending ``candidates``) that beats ``split``, a
    valid split of hand ``hand`` of the batch: a split that scores at least as much against
    any arrangement of the other seats; ``split`` itself when it is a candidate."""
    candidates = np.asarray(candidates, dtype=np.int64)
    if split in candidates or not rows.reduce:
        return int(split)
    keys = dominance_keys(rows, index, hand, candidates)
    key = dominance_keys(rows, index, hand, np.array([split]))[0]
    winners = np.flatnonzero(beats(keys, candidates, key, split))
    if not len(winners):
        raise ValueError(f"split {split} is neither a candidate nor beaten by one: not a valid split of the hand")
    return int(candidates[winners[0]])
