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


def gather_rows(per_subset: dict[int, np.ndarray], index: SplitIndex) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three rows' values for every split, from per-subset values: three ``(n_actions,)`` arrays."""
    cols = _columns(index)
    a, b, c = (per_subset[size][cols[k]] for k, size in enumerate(index.row_sizes))
    return a, b, c


def hand_slots(cards: Sequence[int]) -> np.ndarray:
    """A hand as a sorted int array of card ids (its canonical slots)."""
    return np.sort(np.asarray(cards, dtype=np.intp))
