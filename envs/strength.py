"""Shared machinery of row strengths: per-subset strengths gathered into every split.

A game supplies one vectorised function that maps a batch of rows (card ids, each row in
canonical slot order) to one integer strength per row. This module applies it to every
subset of a hand's slots once, and gathers the results into the ``(n_actions, 3)`` table of
all splits (DESIGN.md's one data flow).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import numpy as np

from .splits import SplitIndex

RowStrength = Callable[[np.ndarray], np.ndarray]


@cache
def _subsets(index: SplitIndex, size: int) -> np.ndarray:
    return index.subsets(size).astype(np.intp)


@cache
def _columns(index: SplitIndex) -> tuple[np.ndarray, ...]:
    table = index.table
    return tuple(np.ascontiguousarray(table[:, k], dtype=np.intp) for k in range(3))


def subset_strengths(slots: np.ndarray, index: SplitIndex, strength: RowStrength) -> dict[int, np.ndarray]:
    """Strength of every subset of the hand for each row size: ``{size: (C(n, size),)}``."""
    return {size: strength(slots[_subsets(index, size)]) for size in sorted(set(index.row_sizes))}


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
    cols = _columns(index)
    sizes = index.row_sizes
    a = np.repeat(np.asarray(per_subset[sizes[0]]), _first_row_repeats(index))  # a repeat is ~10x a gather
    b = np.asarray(per_subset[sizes[1]]).take(cols[1])  # take is ~1.5x faster than fancy indexing
    c = np.asarray(per_subset[sizes[2]]).take(cols[2])
    return a, b, c


def hand_slots(cards: Sequence[int]) -> np.ndarray:
    """A hand as a sorted int array of card ids (its canonical slots)."""
    return np.sort(np.asarray(cards, dtype=np.intp))
