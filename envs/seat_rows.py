"""What a :class:`~splitpoker.envs.table.Tables` batch keeps of its seats: the arrays (or lists)
computed for many seats in one call, each seat's row left in the block it was computed in
and found by ``(table, seat)`` through two ``(B, players)`` index arrays, so that asking
which of many seats are known, keeping a block and gathering rows are NumPy operations, not
loops over seats. Pure: NumPy.

>>> import numpy as np
>>> rows = SeatRows((2, 3))
>>> tables, seats = np.array([0, 1]), np.array([2, 0])
>>> rows.missing(tables, seats).tolist()
[True, True]
>>> [part.tolist() for part in rows.unknown(tables, seats)]
[[0, 1], [2, 0]]
>>> rows.keep(tables, seats, np.array([[1, 2], [3, 4]]))
>>> rows.full()
False
>>> rows.get(1, 0).tolist(), rows.get(0, 0) is None, rows.get(5, 0) is None
([3, 4], True, True)
>>> [row.tolist() for row in rows.rows_at(np.array([1, 0]), np.array([0, 2]))]
[[3, 4], [1, 2]]
>>> rows.gather(np.array([1, 0, 0]), np.array([0, 2, 1]), np.zeros((3, 2), dtype=int)).tolist()
[[3, 4], [1, 2], [0, 0]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SeatRows"]


class SeatRows:
    """The rows kept for the seats of ``shape`` ``(B, players)`` tables: each seat's row is
    row ``r`` of kept block ``k`` (an array, or a list of arrays), or unknown."""

    __slots__ = ("_at", "_blocks", "_full")

    #: a seat's place, ``(k << ROW_BITS) | r``; -1 for none
    ROW_BITS = 32

    def __init__(self, shape: tuple[int, int]) -> None:
        self._at = np.full(shape, -1, dtype=np.int64)
        self._blocks: list[Any] = []
        self._full = False

    def full(self) -> bool:
        """Whether every seat has a row kept (rows are never dropped: once True, kept)."""
        if not self._full:
            self._full = bool((self._at >= 0).all())
        return self._full

    def missing(self, tables: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """Whether each seat ``(tables[i], seats[i])`` (checked indices) has no row kept: bool."""
        return self._at[tables, seats] < 0

    def unknown(self, tables: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The seats of :meth:`missing` as ``(tables, seats)`` arrays, in order (those given when all are)."""
        todo = self.missing(tables, seats)
        return (tables, seats) if todo.all() else (tables[todo], seats[todo])

    def keep(self, tables: np.ndarray, seats: np.ndarray, block: Any) -> None:
        """Keep ``block``, row ``i`` the row of seat ``(tables[i], seats[i])`` (distinct seats)."""
        self._at[tables, seats] = (len(self._blocks) << self.ROW_BITS) + np.arange(len(tables))
        self._blocks.append(block)

    def get(self, table: Any, seat: Any) -> Any:
        """The row kept for seat ``seat`` of table ``table``; None when none is, or when the
        two are not integers naming a seat of the tables."""
        batch, players = self._at.shape
        if not (isinstance(table, (int, np.integer)) and isinstance(seat, (int, np.integer))
                and 0 <= table < batch and 0 <= seat < players):
            return None
        at = self._at.item(table, seat)
        return None if at < 0 else self._blocks[at >> self.ROW_BITS][at & ((1 << self.ROW_BITS) - 1)]

    def rows_at(self, tables: np.ndarray, seats: np.ndarray) -> list[Any]:
        """The kept rows of seats ``(tables[i], seats[i])``, each kept, as a list."""
        mask = (1 << self.ROW_BITS) - 1
        return [self._blocks[at >> self.ROW_BITS][at & mask] for at in self._at[tables, seats].tolist()]

    def gather(self, tables: np.ndarray, seats: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``out`` with row ``i`` the kept row of seat ``(tables[i], seats[i])`` where one is
        kept (others left as they are), one fancy-indexed copy per block read."""
        at = self._at[tables, seats]
        blocks, rows = at >> self.ROW_BITS, at & ((1 << self.ROW_BITS) - 1)
        for block in np.unique(blocks[at >= 0]).tolist():
            where = np.flatnonzero((blocks == block) & (at >= 0))
            out[where] = self._blocks[block][rows[where]]
        return out
