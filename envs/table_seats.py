"""The views of the table core's seats: :class:`TableSeatView`, one seat of one of a
:class:`~splitpoker.envs.table.Tables` batch, and :class:`SeatViews`, the views of many
seats, which an agent deciding a whole batch reads as arrays. Both read everything from
their tables, which compute masks and observations on first use, for all the seats asked for
in one batched call (:meth:`~splitpoker.envs.table.Tables.prepare`). Pure: standard library
and NumPy.

>>> import numpy as np
>>> from splitpoker.envs.games import make_game
>>> from splitpoker.envs.table import deal
>>> views = deal(make_game("biji"), num_players=3, rng=0, batch=2).views()
>>> len(views), views.slots.shape, views.masks.shape
(6, (6, 9), (6, 1680))
>>> view = views[4]
>>> (view.table, view.seat), bool(np.array_equal(view.mask, views.masks[4]))
((1, 1), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .seat_view import SeatView

if TYPE_CHECKING:
    from .offered import Offered
    from .table import Tables

__all__ = ["SeatViews", "TableSeatView", "around", "listed", "stacked_slots"]


class TableSeatView(SeatView):
    """Seat ``seat`` of table ``table`` of ``tables``: its hand, and its mask and observation,
    computed by the tables on first read together with those of ``group`` (the seats whose
    views one :meth:`~splitpoker.envs.table.Tables.views` call made)."""

    __slots__ = ("_slots", "_tables", "_table", "_group", "_mask", "_observation")

    def __init__(self, tables: Tables, table: int, seat: int,
                 group: Sequence[tuple[int, int]] | np.ndarray = ()) -> None:
        self._slots = tables.slots[table, seat]
        self.seat = seat
        self.num_players = tables.num_players
        self._tables = tables
        self._table = table
        self._group = group
        self._mask: np.ndarray | None = None
        self._observation: np.ndarray | None = None

    @property
    def slots(self) -> np.ndarray:
        return self._slots

    @property
    def tables(self) -> Tables:
        return self._tables

    @property
    def table(self) -> int:
        return self._table

    @property
    def mask_kind(self) -> str:
        """What :attr:`mask` holds: the tables' kind of mask."""
        return self._tables.mask_kind

    @property
    def n_actions(self) -> int:
        """The number of splits of the tables' game."""
        return self._tables.game.n_actions

    @property
    def mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._tables.mask(self._table, self.seat, self._group)
        return self._mask

    @property
    def observation(self) -> np.ndarray:
        if self._observation is None:
            self._observation = self._tables.observation(self._table, self.seat, self._group)
        return self._observation

    @property
    def _listed_by_tables(self) -> bool:
        """Whether the seat's splits are read off the table core's list of its candidates
        (tables dealt with ``mask="undominated"``, before the mask is made)."""
        return self._mask is None and self._tables.mask_kind == "undominated"

    @property
    def allowed(self) -> np.ndarray:
        """The splits the seat may play as indices (int64, ascending): :attr:`mask`'s marked
        entries; under ``mask="undominated"`` the table core's list of the candidates, read
        without making the mask."""
        if self._listed_by_tables:
            return self._tables.candidate_indices(self._table, self.seat, self._group)
        return np.flatnonzero(self.mask)

    def leaves_out(self, split: int) -> bool:
        if self._listed_by_tables:
            return 0 <= split < self._tables.game.n_actions and not listed(self.allowed, split)
        return super().leaves_out(split)


class SeatViews(Sequence[SeatView]):
    """The views of ``(table, seat)`` pairs of one :class:`~splitpoker.envs.table.Tables`
    (what :meth:`~splitpoker.envs.table.Tables.views_at` returns): a sequence whose
    :class:`TableSeatView` items are made when first read, and whose hands (:attr:`slots`),
    observations (:attr:`observations`), masks (:attr:`masks`) and mask kind
    (:attr:`mask_kind`) an agent deciding a whole batch reads at once, as arrays, without
    making the views. A slice is views of the same group: their masks and observations are
    still computed together. ``pairs``: ``(table, seat)`` pairs or a ``(K, 2)`` integer array
    of them."""

    __slots__ = ("tables", "pair_array", "group", "_pairs", "_items")

    def __init__(self, tables: Tables, pairs: Sequence[tuple[int, int]] | np.ndarray,
                 group: np.ndarray | None = None) -> None:
        self.tables = tables
        #: the views' ``(table, seat)`` pairs, ``(len(self), 2)`` intp (a slice's were checked
        #: when its group was made)
        self.pair_array: np.ndarray = tables.pair_index(pairs) if group is None else np.asarray(pairs)
        #: the pairs whose masks and observations are computed together (the views' own, or
        #: those of the views a slice was cut from)
        self.group = self.pair_array if group is None else group
        self._pairs: tuple[tuple[int, int], ...] | None = None
        self._items: list[TableSeatView | None] = [None] * len(self.pair_array)

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        """The views' ``(table, seat)`` pairs, as int pairs."""
        if self._pairs is None:
            self._pairs = tuple((table, seat) for table, seat in self.pair_array.tolist())
        return self._pairs

    def __len__(self) -> int:
        return len(self.pair_array)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return SeatViews(self.tables, self.pair_array[index], self.group)
        item = self._items[index]
        if item is None:
            table, seat = self.pair_array[index].tolist()
            item = self._items[index] = TableSeatView(self.tables, table, seat, self.group)
        return item

    @property
    def slots(self) -> np.ndarray:
        """The views' hands, ``(len(self), hand size)`` card ids in slot order."""
        return self.tables.slots[self.pair_array[:, 0], self.pair_array[:, 1]]

    @property
    def mask_kind(self) -> str:
        """What every view's mask holds (:data:`~splitpoker.envs.checks.MASKS`)."""
        return self.tables.mask_kind

    @property
    def observations(self) -> np.ndarray:
        """The views' observations, ``(len(self), observation size)`` float32 in the views'
        order: each row the view's :attr:`SeatView.observation`, those not yet known computed
        together with the group's (:meth:`~splitpoker.envs.table.Tables.observations_at`)."""
        return self.tables.observations_at(self.pair_array, self.group)

    def offered(self, offer: Any) -> Offered:
        """The views' offers of ``offer`` slots each (:mod:`splitpoker.envs.offered`), rows in
        the views' order, their candidates computed together with the group's
        (:meth:`~splitpoker.envs.table.Tables.offered_at`)."""
        return self.tables.offered_at(self.pair_array, offer, self.group)

    @property
    def masks(self) -> np.ndarray:
        """The views' masks, ``(len(self), n_actions)`` bool in the views' order: each row the
        view's :attr:`SeatView.mask` (the valid splits, or the candidates under
        ``mask="undominated"``), those not yet known computed together with the group's
        (:meth:`~splitpoker.envs.table.Tables.masks_at`)."""
        return self.tables.masks_at(self.pair_array, self.group)


def around(table: Any, seat: Any, group: Sequence[tuple[int, int]] | np.ndarray) -> Any:
    """The pair ``(table, seat)`` then those of ``group``: the seats a seat's first read computes."""
    if isinstance(group, np.ndarray) and len(group):
        return np.concatenate((np.array([[table, seat]]), group))
    return [(table, seat), *group]


def listed(splits: np.ndarray, split: int) -> bool:
    """Whether ``split`` is among the ascending ``splits``."""
    at = int(np.searchsorted(splits, split))
    return at < len(splits) and int(splits[at]) == split


def stacked_slots(views: Sequence[SeatView]) -> np.ndarray:
    """The hands of ``views`` as one ``(len(views), hand size)`` array (read at once from
    the tables of :class:`SeatViews`)."""
    if isinstance(views, SeatViews):
        return views.slots
    return np.stack([view.slots for view in views])
