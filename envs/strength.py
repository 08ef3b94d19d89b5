"""Shared machinery of row strengths: per-subset strengths gathered into every split.

A game supplies one vectorised function that maps a batch of rows (card ids, each row in
canonical slot order) to one integer strength per row. This module applies it to every
subset of a hand's slots once, and gathers the results into the ``(n_actions, 3)`` table of
all splits: the one path by which every game's strengths reach its splits.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import cache
from math import comb

import numpy as np

from .splits import SplitIndex

RowStrength = Callable[[np.ndarray], np.ndarray]


@cache
def _subsets(index: SplitIndex, size: int) -> np.ndarray:
    return index.subsets(size).astype(np.intp)


@cache
def split_columns(index: SplitIndex) -> tuple[np.ndarray, ...]:
    """The subset id of each row of every split: three ``(n_actions,)`` arrays."""
    table = index.table
    return tuple(np.ascontiguousarray(table[:, k], dtype=np.intp) for k in range(3))


def subset_strengths(slots: np.ndarray, index: SplitIndex, strength: RowStrength) -> dict[int, np.ndarray]:
    """Strength of every subset of the hand for each row size: ``{size: (C(n, size),)}``;
    of hands ``(..., n)``, ``{size: (..., C(n, size))}`` in one ``strength`` call per size."""
    lead = slots.shape[:-1]
    return {size: strength(slots[..., _subsets(index, size)].reshape(-1, size)).reshape(*lead, -1)
            for size in sorted(set(index.row_sizes))}


def deck_strengths(deck: np.ndarray, size: int, strength: RowStrength,
                   chunk: int = 1 << 18) -> tuple[np.ndarray, np.ndarray]:
    """Every row of ``size`` cards that ``deck`` (card ids, ascending) can make, measured:
    the distinct strengths, ascending, and how many rows have each (int64 arrays). The rows
    are enumerated by their first card, at most ``chunk`` rows a ``strength`` call, so the
    memory stays bounded (2,598,960 rows of five of a 52-card deck).

    >>> from splitpoker.envs.cards import deck
    >>> distinct, counts = deck_strengths(deck(), 2, lambda rows: rows[:, 0] % 2, chunk=100)
    >>> distinct.tolist(), int(counts.sum())
    ([0, 1], 1326)
    """
    ids = np.asarray(deck, dtype=np.intp)
    n = len(ids)
    if not 1 <= size <= n:
        raise ValueError(f"rows of {size} cards cannot be made of a deck of {n}")
    tails = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n), size - 1)), dtype=np.intp,
                        count=comb(n, size - 1) * (size - 1)).reshape(comb(n, size - 1), size - 1)
    # the tails of first card a are those whose own first card comes after a: a suffix of ``tails``
    starts = np.searchsorted(tails[:, 0], np.arange(n), side="right") if size > 1 else np.zeros(n, dtype=np.intp)
    found, counted = [], []
    for first in range(n - size + 1):
        for at in range(int(starts[first]), len(tails), chunk):
            rest = tails[at:at + chunk]
            rows = ids[np.concatenate((np.full((len(rest), 1), first, dtype=np.intp), rest), axis=1)]
            values, counts = np.unique(strength(rows), return_counts=True)
            found.append(values)
            counted.append(counts)
    distinct, inverse = np.unique(np.concatenate(found), return_inverse=True)
    return distinct.astype(np.int64), np.bincount(inverse, weights=np.concatenate(counted)).astype(np.int64)


@cache
def _first_row_repeats(index: SplitIndex) -> int:
    """How many consecutive splits share each first row: the index is ``F * n_second + M``,
    so the first row's column is ``repeat(arange(n_first), n_second)`` (checked once)."""
    first = index.table[:, 0]
    n_first = len(index.subsets(index.row_sizes[0]))
    repeats = index.n_actions // n_first
    if not np.array_equal(first, np.repeat(np.arange(n_first), repeats)):
        raise AssertionError(f"{index!r}: the first row's subset is not index // {repeats}")
    return repeats


def gather_rows(per_subset: dict[int, np.ndarray], index: SplitIndex) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three rows' values for every split, from per-subset values: three ``(n_actions,)`` arrays."""
    cols = split_columns(index)
    sizes = index.row_sizes
    a = np.repeat(np.asarray(per_subset[sizes[0]]), _first_row_repeats(index))  # a repeat is ~10x a gather
    b = np.asarray(per_subset[sizes[1]]).take(cols[1])  # take is ~1.5x faster than fancy indexing
    c = np.asarray(per_subset[sizes[2]]).take(cols[2])
    return a, b, c


@cache
def _flat_indices(index: SplitIndex, hand_size: int, n: int) -> tuple[dict[int, np.ndarray], list[np.ndarray]]:
    """Flat take-indices for ``n`` hands: each row size's subsets of every hand, and the
    middle and last rows' columns into every hand's per-subset values."""
    sizes = index.row_sizes
    rows = {size: (np.arange(n)[:, None, None] * hand_size + _subsets(index, size)).reshape(-1)
            for size in sorted(set(sizes))}
    columns = [(np.arange(n)[:, None] * len(_subsets(index, size)) + split_columns(index)[k]).reshape(-1)
               for k, size in ((1, sizes[1]), (2, sizes[2]))]
    return rows, columns


def split_values(slots: np.ndarray, index: SplitIndex,
                 strength: RowStrength) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three rows' values of every split of many hands at once: ``slots`` (N, hand size)
    → three ``(N, n_actions)`` arrays, with one ``strength`` call per row size for all hands."""
    n = len(slots)
    rows, columns = _flat_indices(index, slots.shape[1], n)
    flat = slots.ravel()
    per_subset = {size: strength(flat.take(ids).reshape(-1, size)).reshape(n, -1) for size, ids in rows.items()}
    sizes = index.row_sizes
    first = np.repeat(per_subset[sizes[0]], _first_row_repeats(index), axis=1)
    middle = per_subset[sizes[1]].ravel().take(columns[0]).reshape(n, -1)
    last = per_subset[sizes[2]].ravel().take(columns[1]).reshape(n, -1)
    return first, middle, last


@cache
def disjoint_subsets(index: SplitIndex) -> np.ndarray:
    """For every last-row subset, the middle-row subsets disjoint from it, in subset order:
    ``(n_last_subsets, n_disjoint)`` subset ids."""
    sizes = index.row_sizes
    last = index.subset_masks(sizes[2])
    middle = index.subset_masks(sizes[1])
    return np.array([np.flatnonzero(row) for row in (last[:, None] & middle[None, :]) == 0], dtype=np.int64)


def strongest_rows(hands: np.ndarray, index: SplitIndex, strength: RowStrength) -> tuple[np.ndarray, np.ndarray]:
    """Per hand ``(H, hand size)``: the subset id of the strongest last row (first of equals)
    and of the strongest middle row disjoint from it (first of equals)."""
    sizes = index.row_sizes
    if sizes[1] != sizes[2]:
        raise ValueError(f"{index!r}: strongest_rows needs middle and last rows of one size")
    subsets = _subsets(index, sizes[2])
    strengths = strength(hands[:, subsets].reshape(-1, sizes[2])).reshape(len(hands), -1)
    rows = np.arange(len(hands))
    last = np.argmax(strengths, axis=1)
    candidates = disjoint_subsets(index)[last]
    middle = candidates[rows, np.argmax(strengths[rows[:, None], candidates], axis=1)]
    return last, middle


@cache
def _split_of_subsets(index: SplitIndex) -> tuple[dict[int, np.ndarray], np.ndarray, dict[int, np.ndarray]]:
    """Subset id by bit mask of slots, per row size, split index by (first, middle) subset ids,
    and each subset's bit mask, per row size."""
    to_id = {size: index.subset_ids_by_mask(size) for size in set(index.row_sizes)}
    masks = {size: index.subset_masks(size) for size in set(index.row_sizes)}
    table = index.table.astype(np.int64)
    action_of = np.full((len(_subsets(index, index.row_sizes[0])), len(_subsets(index, index.row_sizes[1]))), -1,
                        dtype=np.int64)
    action_of[table[:, 0], table[:, 1]] = np.arange(index.n_actions)
    return to_id, action_of, masks


def split_of_rows(index: SplitIndex, middle_ids: np.ndarray, last_ids: np.ndarray) -> np.ndarray:
    """Split indices of the splits whose middle and last rows are these subset ids (the first
    row is the rest)."""
    to_id, action_of, masks = _split_of_subsets(index)
    sizes = index.row_sizes
    first_mask = (1 << index.n_slots) - 1 ^ masks[sizes[1]][middle_ids] ^ masks[sizes[2]][last_ids]
    return action_of[to_id[sizes[0]][first_mask], middle_ids]
