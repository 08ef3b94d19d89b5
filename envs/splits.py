"""The arrange action: one index over every ordered split of a hand (section 11 of
envs/thirteen/RULES.md and envs/biji/RULES.md).

A split of an ``n``-slot hand into rows of sizes ``(a, b, c)`` has the index
``F * C(n - a, b) + M``: ``F`` is the position of the first row's slots among the
``a``-subsets of ``range(n)`` in :func:`itertools.combinations` order, ``M`` the position of
the second row's slots among the ``b``-subsets of the remaining slots (taken in increasing
order); the third row is the rest.

:class:`SplitIndex` also holds vectorised tables: every split as three *subset ids*, where
a subset id is the position of the row's slots among the subsets of ``range(n)`` of that
size. A caller computes one value per subset of a hand (286 + 1,287 for Thirteen, 84 for
Biji) and gathers them into all splits at once.

>>> THIRTEEN.n_actions, BIJI.n_actions
(72072, 1680)
>>> THIRTEEN.decode(0)
((0, 1, 2), (3, 4, 5, 6, 7), (8, 9, 10, 11, 12))
>>> BIJI.encode(((6, 7, 8), (3, 4, 5), (0, 1, 2)))
1679
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from itertools import combinations
from math import comb

import numpy as np


def _subset_table(n: int, k: int) -> np.ndarray:
    """All k-subsets of range(n), lexicographic, as an int8 array of shape (C(n,k), k)."""
    return np.array(list(combinations(range(n), k)), dtype=np.int8).reshape(-1, k)


def _masks(subsets: np.ndarray) -> np.ndarray:
    """Subsets of slots (last axis) as the bits of their slots, int64."""
    return (np.int64(1) << subsets.astype(np.int64)).sum(axis=-1)


class SplitIndex:
    """The index of ordered splits of an ``n``-slot hand into rows of the given sizes."""

    def __init__(self, row_sizes: Sequence[int]) -> None:
        if len(row_sizes) != 3:
            raise ValueError(f"a split has three rows, got sizes {tuple(row_sizes)}")
        self.row_sizes = tuple(int(s) for s in row_sizes)
        self.n_slots = sum(self.row_sizes)
        a, b, _ = self.row_sizes
        self._first = list(combinations(range(self.n_slots), a))
        self._second = list(combinations(range(self.n_slots - a), b))
        self._first_pos = {s: i for i, s in enumerate(self._first)}
        self._second_pos = {s: i for i, s in enumerate(self._second)}
        self.n_actions = len(self._first) * len(self._second)

    def __repr__(self) -> str:
        return f"SplitIndex({self.row_sizes}, n_actions={self.n_actions})"

    def decode(self, index: int) -> tuple[tuple[int, ...], ...]:
        """The three rows of slots of split ``index``."""
        index = int(index)
        if not 0 <= index < self.n_actions:
            raise ValueError(f"split index {index} is out of range 0..{self.n_actions - 1}")
        f, m = divmod(index, len(self._second))
        first = self._first[f]
        rest = [s for s in range(self.n_slots) if s not in first]
        second = tuple(rest[i] for i in self._second[m])
        third = tuple(s for s in rest if s not in second)
        return first, second, third

    def encode(self, rows: Sequence[Sequence[int]]) -> int:
        """The index of the split whose rows hold these slots (any order inside a row)."""
        sizes = tuple(len(r) for r in rows)
        flat = sorted(int(s) for r in rows for s in r)
        if sizes != self.row_sizes or flat != list(range(self.n_slots)):
            raise ValueError(
                f"rows {[list(r) for r in rows]} are not a split of slots 0..{self.n_slots - 1} "
                f"into rows of {self.row_sizes}"
            )
        first = tuple(sorted(int(s) for s in rows[0]))
        rest = [s for s in range(self.n_slots) if s not in first]
        second = tuple(rest.index(int(s)) for s in sorted(rows[1]))
        return self._first_pos[first] * len(self._second) + self._second_pos[second]

    def subsets(self, size: int) -> np.ndarray:
        """All ``size``-subsets of the slots, shape ``(C(n, size), size)``; row ``i`` is subset id ``i``."""
        return _subset_table(self.n_slots, size)

    def subset_masks(self, size: int) -> np.ndarray:
        """Each ``size``-subset of :meth:`subsets` as the bits of its slots, int64 ``(C(n, size),)``."""
        return _masks(self.subsets(size))

    def subset_ids_by_mask(self, size: int) -> np.ndarray:
        """The subset id of every bit mask of slots, -1 where the mask is not a ``size``-subset:
        int64 ``(2 ** n_slots,)``, the inverse of :meth:`subset_masks`."""
        masks = self.subset_masks(size)
        ids = np.full(1 << self.n_slots, -1, dtype=np.int64)
        ids[masks] = np.arange(len(masks))
        return ids

    @cached_property
    def table(self) -> np.ndarray:
        """Every split as three subset ids, shape ``(n_actions, 3)``, int16; column ``k``
        indexes :meth:`subsets` of size ``row_sizes[k]``."""
        n = self.n_slots
        a, b, c = self.row_sizes
        first = self.subsets(a)
        first_mask = self.subset_masks(a)
        all_mask = (1 << n) - 1
        second_local = _subset_table(n - a, b)
        # remaining slots of every first row, in increasing order: shape (n_first, n - a)
        slots = np.arange(n)
        remaining = np.array([slots[(all_mask >> slots) & 1 & ~(fm >> slots) & 1 == 1] for fm in first_mask])
        second = remaining[:, second_local]  # (n_first, n_second, b)
        second_mask = _masks(second)
        third_mask = all_mask ^ first_mask[:, None] ^ second_mask
        out = np.empty((len(first), len(second_local), 3), dtype=np.int16)
        out[:, :, 0] = np.arange(len(first))[:, None]
        ids = {size: self.subset_ids_by_mask(size) for size in {b, c}}
        out[:, :, 1] = ids[b][second_mask]
        out[:, :, 2] = ids[c][third_mask]
        return out.reshape(-1, 3)

    @cached_property
    def slot_table(self) -> np.ndarray:
        """Every split as its slots, row by row: shape ``(n_actions, n_slots)``, int8."""
        parts = [self.subsets(size)[self.table[:, k]] for k, size in enumerate(self.row_sizes)]
        return np.concatenate(parts, axis=1)


THIRTEEN = SplitIndex((3, 5, 5))
BIJI = SplitIndex((3, 3, 3))
assert THIRTEEN.n_actions == comb(13, 3) * comb(10, 5) and BIJI.n_actions == comb(9, 3) * comb(6, 3)
