"""The table core: ``B`` tables of one game at once, from the deal to the payoffs.

Every driver of the project is a thin layer over this module: the PettingZoo environments
(one table), self-play training, duplicate matches, imitation labelling, the solver's
opponent sampling and the benchmarks. Nothing else deals, builds masks or observations, or
scores. Pure: standard library and NumPy.

The one data flow::

    deal (a Generator, or scripted hands)  →  Tables.slots (B, players, hand size)
    Tables.view(b, seat) / views()        →  SeatView: slots, seat, mask, observation
                                              (SeatViews: slots, observations, masks as arrays)
    Tables.decide(seated)                  →  actions (B, players) split indices: each agent
                                              decides all its seats in one batch, checked once
    Tables.score(actions)                  →  TableResult: payoffs (B, players), typed
                                              Outcomes, and each table's Score

This module holds :class:`Tables`, its results and the deals. The seats' views are in
:mod:`splitpoker.envs.table_seats` (the :class:`SeatView` protocol agents read, and the view
of an environment's seat, in :mod:`splitpoker.envs.seat_view`), the checks of what the core
is given in :mod:`splitpoker.envs.checks`; their names in :data:`__all__` are importable from here.

Masks and observations are computed on first use, for all the seats asked for in one call
(:meth:`Tables.prepare`), and kept. A seat's mask is its valid splits, or with
``mask="undominated"`` its *candidates*, the valid splits no other split dominates
(:mod:`splitpoker.envs.dominance`): a median of 76 of Thirteen's 72,072 and 4 of Biji's 1,680,
among which a best response always lies. A research loop can deal and score thousands of tables
without the per-step overhead of an environment API:

>>> import numpy as np
>>> from splitpoker.envs.games import make_game
>>> game = make_game("biji")
>>> tables = deal(game, num_players=4, rng=np.random.default_rng(0), batch=256)
>>> tables.slots.shape
(256, 4, 9)
>>> actions = np.array([[int(np.flatnonzero(v.mask)[0]) for v in tables.views(b)] for b in range(256)])
>>> result = tables.score(actions)
>>> result.payoffs.shape, bool(np.allclose(result.payoffs.sum(axis=1), 0))
((256, 4), True)
>>> result.outcomes.rows_won.shape
(256, 4, 3)

The views of many seats read as arrays, computed in one batched call each:

>>> views = tables.views()
>>> views.slots.shape, views.observations.shape, views.masks.shape
((1024, 9), (1024, 197), (1024, 1680))
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import time
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..runtime import seeding
from . import offered
from .cards import format_card, format_cards, parse_cards
from .checks import (
    ILLEGAL_ACTIONS,
    MASKS,
    check_illegal,
    check_mask,
    check_seat,
    check_tables,
    checked_slots,
    int_pairs,
    is_card_ids,
    split_choices,
)
from .dominance import CANDIDATE, INVALID
from .game import Game, Outcomes, Score
from .messages import cut
from .observation import encode_observations, observation_size
from .seat_rows import SeatRows
from .seat_view import SeatView
from .table_seats import SeatViews, TableSeatView, around, listed, stacked_slots

__all__ = ["ILLEGAL_ACTIONS", "MASKS", "MASK_CHUNK", "SeatView", "SeatViews", "TableSeatView", "Tables",
           "TableResult", "check_illegal", "check_mask", "check_seat", "deal", "deal_around", "from_hands",
           "split_choices", "stacked_slots"]

#: ``(table, seat)`` pairs: int pairs, or a ``(K, 2)`` integer array of them (read in one pass)
Pairs = Sequence[tuple[int, int]] | np.ndarray
#: seats whose masks and observations a batch read computes in one call (the computation's
#: scratch arrays grow with it)
MASK_CHUNK = 1024

#: the seeding helpers that moved to :mod:`splitpoker.runtime.seeding`
_SEEDING = ("as_generator", "check_seed", "derived_seed")


def __getattr__(name: str) -> Any:
    """A seeding helper (:data:`_SEEDING`): found in :mod:`splitpoker.runtime.seeding`, with a
    DeprecationWarning that says where."""
    if name not in _SEEDING:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"{__name__}.{name} is splitpoker.runtime.seeding.{name}; import it from there",
                  DeprecationWarning, stacklevel=2)
    return getattr(seeding, name)


@dataclasses.dataclass
class TableResult:
    """The scoring of B tables: ``payoffs`` (B, players), the typed per-seat ``outcomes``
    (arrays with a leading B axis) and each table's :class:`~splitpoker.envs.game.Score`
    (the game's full breakdown, ``scores``: computed table by table when first read).
    ``arranged`` holds the tables' cards row by row (B, players, hand size)."""

    payoffs: np.ndarray
    outcomes: Outcomes
    game: Game = dataclasses.field(repr=False)
    arranged: np.ndarray = dataclasses.field(repr=False)

    @functools.cached_property
    def scores(self) -> list[Score]:
        """Each table's full breakdown (:meth:`Game.score`), the same payoffs."""
        cuts = np.cumsum(self.game.split_index.row_sizes)[:-1]
        return [self.game.score([[row.tolist() for row in np.split(hand, cuts)] for hand in table])
                for table in self.arranged]


class Tables:
    """B tables of ``num_players`` seats of one game: ``slots`` (B, players, hand size), each
    hand's card ids in slot order. Build them with :func:`deal`, :func:`deal_around` or
    :func:`from_hands`."""

    def __init__(self, game: Game, slots: np.ndarray, mask: str = "valid") -> None:
        slots = checked_slots(game, slots)
        self._hold(game, slots, game.check_players(slots.shape[1]), check_mask(mask))

    @classmethod
    def _dealt(cls, game: Game, slots: np.ndarray, mask: str) -> Tables:
        """Tables of ``slots`` a deal drew (intp, hands in slot order, size and ``mask`` checked): unchecked."""
        tables = cls.__new__(cls)
        tables._hold(game, slots, slots.shape[1], mask)
        return tables

    def _hold(self, game: Game, slots: np.ndarray, num_players: int, mask: str) -> None:
        self.game, self.num_players, self.slots = game, num_players, slots
        #: the mask the seats are given (:data:`MASKS`)
        self.mask_kind = mask
        seats = slots.shape[:2]
        self._masks = SeatRows(seats)
        #: the candidates of each seat as split indices, and as masks (made from those when read)
        self._listed = SeatRows(seats)
        self._candidates: dict[tuple[int, int], np.ndarray] = {}
        self._observations = SeatRows(seats)
        #: the tables and the seats, each index below its bound
        self._bounds = np.array(seats, dtype=np.uintp)
        #: seconds spent computing masks and observations (:meth:`prepare`), so that a timed
        #: decision can leave out what it did not compute itself
        self.preparing_s = 0.0
        #: the choices :meth:`decide` checked, by table and seat (-1: none), which
        #: :meth:`score` does not check again
        self._decided = np.full(slots.shape[:2], -1, dtype=np.int64)

    @functools.cached_property
    def _every_seat(self) -> np.ndarray:
        return np.indices(self.slots.shape[:2], dtype=np.intp).reshape(2, -1).T

    @property
    def batch(self) -> int:
        return len(self.slots)

    def __len__(self) -> int:
        return len(self.slots)

    # ------------------------------------------------------------------ seats

    def prepare(self, seats: Iterable[tuple[int, int]] | np.ndarray, masks: bool = True, observations: bool = True,
                candidates: bool | None = None) -> None:
        """Compute and keep the masks and observations of the ``(table, seat)`` pairs not yet
        known, each kind in one batched call; ``candidates`` (by default: when the seats' mask
        is theirs) the candidates, with the valid masks from the same pass."""
        self._prepare_at(self.pair_index(seats if isinstance(seats, np.ndarray) else list(seats)),
                         masks, observations, candidates)

    def prepare_all(self, masks: bool = True, observations: bool = True, candidates: bool | None = None) -> None:
        """:meth:`prepare` every seat of every table (no pairs to read or check)."""
        self._prepare_at(self._every_seat, masks, observations, candidates)

    def _prepare_at(self, index: np.ndarray, masks: bool, observations: bool, candidates: bool | None) -> None:
        start = time.perf_counter()
        if candidates is None:
            candidates, masks = masks and self.mask_kind == "undominated", masks and self.mask_kind == "valid"
        wanted = [kept for kept, kind in ((self._listed, candidates), (self._masks, masks),
                                          (self._observations, observations)) if kind and not kept.full()]
        tables, at = index[:, 0], index[:, 1]
        if any(kept.missing(tables, at).any() for kept in wanted):
            codes = tables * self.num_players + at
            if len(set(codes.tolist())) < len(codes):  # each seat once, in order
                index = index[np.sort(np.unique(codes, return_index=True)[1])]
            self._prepare(index, masks, observations, candidates)
        self.preparing_s += time.perf_counter() - start

    def _prepare(self, pairs: np.ndarray, masks: bool, observations: bool, candidates: bool) -> None:
        tables, seats = pairs[:, 0], pairs[:, 1]
        if candidates:
            t, s = self._listed.unknown(tables, seats)
            if len(t):
                both = self._masks.missing(t, s) if masks else np.zeros(len(t), dtype=bool)
                if both.any():  # told apart in the same pass
                    classes = self.game.split_classes(self.slots[t, s])
                    lists = [np.flatnonzero(row == CANDIDATE) for row in classes]
                    self._masks.keep(t[both], s[both], classes[both] != INVALID)
                else:
                    lists = self.game.candidate_lists(self.slots[t, s])
                for splits in lists:
                    splits.setflags(write=False)  # handed to agents as they are (SeatView.allowed)
                self._listed.keep(t, s, lists)
        if masks:
            t, s = self._masks.unknown(tables, seats)
            if len(t):
                self._masks.keep(t, s, self.game.valid_masks(self.slots[t, s]))
        if observations:
            t, s = self._observations.unknown(tables, seats)
            if len(t):
                self._observations.keep(t, s, self._encoded(t, s))

    def _encoded(self, tables: np.ndarray, seats: np.ndarray) -> np.ndarray:
        return encode_observations(self.game, self.slots[tables, seats], seats, self.num_players)

    def mask(self, table: int, seat: int, group: Pairs = ()) -> np.ndarray:
        """The seat's mask (bool): :meth:`valid_mask`, or :meth:`candidates` under
        ``mask="undominated"`` (computed with those of ``group`` when unknown)."""
        if self.mask_kind == "undominated":
            return self.candidates(table, seat, group)
        return self.valid_mask(table, seat, group)

    def valid_mask(self, table: int, seat: int, group: Pairs = ()) -> np.ndarray:
        """The valid splits (bool) of a seat's hand (computed with those of ``group`` when unknown)."""
        return self._seat_row(self._masks, table, seat, group, observations=False, candidates=False)

    def candidates(self, table: int, seat: int, group: Pairs = ()) -> np.ndarray:
        """The candidates (bool): the valid splits of a seat's hand that no other valid split
        dominates (:mod:`splitpoker.envs.dominance`; computed with those of ``group`` when unknown)."""
        mask = self._candidates.get((table, seat))
        if mask is None:
            mask = self._candidates[(table, seat)] = np.zeros(self.game.n_actions, dtype=bool)
            mask[self.candidate_indices(table, seat, group)] = True
        return mask

    def candidate_indices(self, table: int, seat: int, group: Pairs = ()) -> np.ndarray:
        """The candidates of a seat's hand as split indices (int64, ascending; computed with
        those of ``group`` when unknown, listed by the sweep without a mask)."""
        return self._seat_row(self._listed, table, seat, group, masks=False, observations=False, candidates=True)

    def observation(self, table: int, seat: int, group: Pairs = ()) -> np.ndarray:
        """The observation (float32) of a seat (computed with those of ``group`` when unknown)."""
        return self._seat_row(self._observations, table, seat, group, masks=False)

    def _seat_row(self, kept: SeatRows, table: int, seat: int, group: Pairs, **kinds: bool) -> np.ndarray:
        """The row ``kept`` holds for the seat, computed first (:meth:`prepare` with ``kinds``,
        with the seats of ``group``) when unknown."""
        row = kept.get(table, seat)
        if row is None:
            self.prepare(around(table, seat, group), **kinds)
            row = kept.get(table, seat)
        return row  # type: ignore[no-any-return]

    def observations_at(self, pairs: Pairs, group: Pairs = (), keep: bool = True) -> np.ndarray:
        """The observations of ``(table, seat)`` pairs as one array, the caller's own,
        ``(len(pairs), observation size)`` float32: row i is :meth:`observation` of
        ``pairs[i]``. Those not yet known are computed in one call, with those of ``group``,
        and kept; with ``keep=False`` (seats read once, as a batch: the learner seats of
        :class:`~splitpoker.envs.learner_seat.LearnerSeats`) straight into the array returned,
        :data:`MASK_CHUNK` seats a call, and not kept. ValueError naming the first pair that
        is not a table and a seat of these tables."""
        index = self.pair_index(pairs)
        if keep:
            self._keep_missing(index, group, self._observations, masks=False)
        return self._rows(index, self._observations, observation_size(self.game), np.float32, self._encoded)

    def masks_at(self, pairs: Pairs, group: Pairs = (), keep: bool = True) -> np.ndarray:
        """The masks of ``(table, seat)`` pairs as one array, the caller's own, ``(len(pairs),
        n_actions)`` bool: row i is :meth:`mask` of ``pairs[i]``, the valid splits or under
        ``mask="undominated"`` the candidates (made from their lists, always kept); computed,
        kept or not, as :meth:`observations_at` computes the observations."""
        index = self.pair_index(pairs)
        if self.mask_kind == "undominated":
            if keep:
                self._keep_missing(index, group, self._listed, masks=True, observations=False)
            else:
                for start in range(0, len(index), MASK_CHUNK):
                    self.prepare(index[start:start + MASK_CHUNK], observations=False)
            return self._listed_masks(index)
        if keep:
            self._keep_missing(index, group, self._masks, observations=False)
        return self._rows(index, self._masks, self.game.n_actions, bool,
                          lambda tables, seats: self.game.valid_masks(self.slots[tables, seats]))

    def offered_at(self, pairs: Pairs, offer: Any, group: Pairs = ()) -> offered.Offered:
        """The offers of ``(table, seat)`` pairs, rows in pair order (:mod:`splitpoker.envs.offered`):
        their candidates computed in one call, with those of ``group``, when unknown, and kept."""
        index = self.pair_index(pairs)
        self._keep_missing(index, group, self._listed, masks=False, observations=False, candidates=True)
        tables, seats = index[:, 0], index[:, 1]
        return offered.offer(self.game, self.slots[tables, seats], self._listed.rows_at(tables, seats),
                             self.num_players, offer)

    def _keep_missing(self, index: np.ndarray, group: Pairs, kept: SeatRows, **kinds: bool) -> None:
        """Compute and keep (:meth:`prepare` with ``kinds``) the rows of ``kept`` that the pairs
        ``index`` lack, with those of ``group``."""
        missing = kept.missing(index[:, 0], index[:, 1])
        if missing.any():
            self.prepare(np.concatenate((index[missing], self.pair_index(group))), **kinds)

    def _rows(self, index: np.ndarray, kept: SeatRows, width: int, dtype: Any, compute: Any) -> np.ndarray:
        """The rows of the pairs ``index``: those ``kept`` copied, the others ``compute(tables,
        seats)``, :data:`MASK_CHUNK` seats a call (when none is kept and one call computes them
        all, its array as it is)."""
        tables, seats = index[:, 0], index[:, 1]
        missing = kept.missing(tables, seats)
        if not missing.any():
            return kept.gather(tables, seats, np.empty((len(index), width), dtype=dtype))
        start = time.perf_counter()
        if missing.all() and len(index) <= MASK_CHUNK:
            out = compute(tables, seats)
        else:
            out = kept.gather(tables, seats, np.empty((len(index), width), dtype=dtype))
            todo = np.flatnonzero(missing)
            for first in range(0, len(todo), MASK_CHUNK):
                part = todo[first:first + MASK_CHUNK]
                out[part] = compute(tables[part], seats[part])
        self.preparing_s += time.perf_counter() - start
        return out  # type: ignore[no-any-return]

    def _listed_masks(self, index: np.ndarray) -> np.ndarray:
        """The candidates of the pairs ``index`` (each listed) as masks, ``(len(index), n_actions)``."""
        lists = self._listed.rows_at(index[:, 0], index[:, 1])
        out = np.zeros((len(index), self.game.n_actions), dtype=bool)
        if lists:
            out[np.repeat(np.arange(len(lists)), [len(splits) for splits in lists]), np.concatenate(lists)] = True
        return out

    def seat_pairs(self, pairs: Any) -> tuple[tuple[int, int], ...]:
        """``(table, seat)`` pairs as a tuple of int pairs; ValueError naming the first pair that
        is not a table and a seat of these tables (integers, tables 0..B-1, seats 0..players-1)."""
        array = int_pairs(pairs)
        if array is not None:  # read by NumPy as one integer array: checked in one pass
            return tuple(map(tuple, self._pair_array(array).tolist()))  # type: ignore[arg-type]
        try:
            converted = tuple((operator.index(table), operator.index(seat)) for table, seat in pairs)
        except (TypeError, ValueError):  # not pairs, or not of integers
            raise ValueError(f"seats {cut(repr(pairs), 80)} are not (table, seat) pairs of integers") from None
        if converted:
            self._pair_array(np.fromiter(itertools.chain.from_iterable(converted), dtype=np.int64,
                                         count=2 * len(converted)).reshape(-1, 2))
        return converted

    def pair_index(self, pairs: Any) -> np.ndarray:
        """``(table, seat)`` pairs, or a ``(K, 2)`` integer array of them, as a ``(K, 2)`` intp
        array, checked as :meth:`seat_pairs` checks them."""
        array = int_pairs(pairs)
        if array is None:
            array = np.array(self.seat_pairs(pairs), dtype=np.intp).reshape(-1, 2)
        return self._pair_array(array)

    def _pair_array(self, pairs: Any) -> np.ndarray:
        """``(table, seat)`` pairs, an array ``(K, 2)``, as intp, checked (:meth:`seat_pairs`)
        in one vectorised pass."""
        array = np.asarray(pairs)
        if array.size == 0:
            return np.zeros((0, 2), dtype=np.intp)
        if array.ndim != 2 or array.shape[1] != 2 or array.dtype.kind not in "iu":
            raise ValueError(f"seats {cut(repr(pairs), 80)} are not (table, seat) pairs of integers")
        index = array.astype(np.intp, copy=False)
        if (index.view(np.uintp) >= self._bounds).any():  # a negative index reads as a large one
            tables, seats = array[:, 0], array[:, 1]
            outside = (tables < 0) | (tables >= self.batch) | (seats < 0) | (seats >= self.num_players)
            table, seat = array[np.flatnonzero(outside)[0]].tolist()
            raise ValueError(f"(table, seat) ({table}, {seat}) is not a seat of these tables (tables "
                             f"0..{self.batch - 1}, seats 0..{self.num_players - 1})")
        return index

    def view(self, table: int, seat: int) -> TableSeatView:
        """The view of one seat; ValueError unless ``table`` and ``seat`` are integers naming a
        table and a seat of these tables."""
        if not (type(table) is int and type(seat) is int and 0 <= table < self.batch and 0 <= seat < self.num_players):
            ((table, seat),) = self.seat_pairs([(table, seat)])
        return TableSeatView(self, table, seat)

    def views(self, table: int | None = None, seats: Sequence[int] | None = None) -> SeatViews:
        """The views of ``seats`` (all by default) of one table, or of every table (table-major)."""
        tables = range(self.batch) if table is None else [table]
        chosen = range(self.num_players) if seats is None else seats
        return self.views_at([(b, s) for b in tables for s in chosen])

    def views_at(self, pairs: Pairs) -> SeatViews:
        """The views of ``(table, seat)`` pairs; their masks and observations are computed
        together, each kind in one batched call, when the first is read. ValueError naming the
        first pair that is not a table and a seat of these tables."""
        return SeatViews(self, pairs)

    # ------------------------------------------------------------------ decisions

    def arranged(self, actions: np.ndarray) -> np.ndarray:
        """Card ids row by row (rows in slot order) of every seat played as ``actions`` (B, players)."""
        return self.game.arranged(self.slots, actions)

    def valid_choices(self, tables: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Whether each ``actions[i]`` is a split seat ``seats[i]`` of table ``tables[i]`` may
        play: a valid split, from the rows it forms (no mask needed), and under
        ``mask="undominated"`` a candidate: bool array."""
        actions = np.asarray(actions, dtype=np.int64)
        tables, seats = np.asarray(tables), np.asarray(seats)
        pairs = self._pair_array(np.stack(np.broadcast_arrays(tables, seats), axis=-1).reshape(-1, 2))  # in range
        inside = (actions >= 0) & (actions < self.game.n_actions)
        cards = self.game.arranged(self.slots[tables, seats], np.where(inside, actions, 0))
        ok = inside & self.game.valid_arrangements(cards)
        if self.mask_kind == "undominated":
            self.prepare(pairs, masks=False, observations=False, candidates=True)
            lists = self._listed.rows_at(pairs[:, 0], pairs[:, 1])
            chosen = np.where(inside, actions, 0).tolist()
            ok &= np.array([listed(splits, a) for splits, a in zip(lists, chosen)], dtype=bool)
        return ok

    def decide(self, seated: Iterable[tuple[int, int, Any]], actions: np.ndarray | None = None,
               times: np.ndarray | None = None) -> np.ndarray:
        """The splits of the ``(table, seat, agent)`` entries, written into ``actions`` (B,
        players; a new zero array when None) and returned. Each agent (anything with a
        ``name`` and ``act_batch(views)``, :class:`splitpoker.agents.base.Agent`) decides all
        its seats, of every table, in one ``act_batch`` call (calls of at most its
        ``batch_size`` views). Its choices are checked here, once: each must be a valid split,
        and a candidate under ``mask="undominated"`` (ValueError naming the agent, the choice
        and the hand); :meth:`score` does not check them again. ``times`` (B, players), when
        given, receives each seat's share of its agent's own time in seconds (without the
        masks and observations the table computed for it)."""
        groups: dict[int, tuple[Any, list[tuple[int, int]]]] = {}
        for table, seat, agent in seated:
            groups.setdefault(id(agent), (agent, []))[1].append((table, seat))
        return self.decide_groups(list(groups.values()), actions, times)

    def decide_groups(self, groups: Sequence[tuple[Any, Pairs]], actions: np.ndarray | None = None,
                      times: np.ndarray | None = None) -> np.ndarray:
        """:meth:`decide`, given each agent with the ``(table, seat)`` pairs it plays, in the
        order its views list them: the agents decide in the order given."""
        out = np.zeros(self._decided.shape, dtype=np.int64) if actions is None else actions
        for agent, _ in groups:
            if not callable(getattr(agent, "act_batch", None)):
                raise ValueError(f"{cut(repr(agent), 60)} is not an agent (it has no act_batch); build agents from "
                                 "specs with splitpoker.agents.load_agent")
        for agent, given in groups:
            views = self.views_at(given)  # the pairs checked
            if not len(views):
                continue
            size = getattr(agent, "batch_size", None) or len(views)
            start, preparing = time.perf_counter(), self.preparing_s
            parts = [agent.act_batch(views[i:i + size]) for i in range(0, len(views), size)]
            elapsed = time.perf_counter() - start - (self.preparing_s - preparing)
            rows, seats = views.pair_array[:, 0], views.pair_array[:, 1]
            chosen = self._checked_choices(agent, rows, seats, parts)
            out[rows, seats] = chosen
            self._decided[rows, seats] = chosen
            if times is not None:
                times[rows, seats] = elapsed / len(views)
        return out

    def _checked_choices(self, agent: Any, tables: np.ndarray, seats: np.ndarray, parts: list[Any]) -> np.ndarray:
        """An agent's choices for the seats ``(tables[i], seats[i])`` as int64; ValueError unless
        each is a split the seat may play (:meth:`valid_choices`)."""
        name = getattr(agent, "name", type(agent).__name__)
        chosen = np.concatenate([split_choices(part, f"agent {name!r}") for part in parts] or [np.zeros(0, np.int64)])
        if len(chosen) != len(tables):
            raise ValueError(f"agent {name!r} returned {len(chosen)} splits for {len(tables)} seats")
        self.refuse_invalid(name, tables, seats, chosen)
        return chosen

    def refuse_invalid(self, name: str, tables: np.ndarray, seats: np.ndarray, chosen: np.ndarray) -> None:
        """ValueError naming agent ``name``, the choice and the hand unless each ``chosen[i]`` is
        a split seat ``seats[i]`` of table ``tables[i]`` may play (:meth:`valid_choices`)."""
        valid = self.valid_choices(tables, seats, chosen)
        if not valid.all():
            i = int(np.flatnonzero(~valid)[0])
            what = "a candidate" if self.mask_kind == "undominated" else "a valid split"
            raise ValueError(f"agent {name!r} chose {int(chosen[i])}, not {what} of seat {int(seats[i])}'s hand "
                             f"{format_cards(self.slots[tables[i], seats[i]])}")

    def check_actions(self, actions: Any) -> np.ndarray:
        """``actions`` as an int64 (B, players) array of valid split indices; ValueError naming
        the first bad one. Choices :meth:`decide` made and checked are not checked again."""
        array = np.asarray(actions)
        if array.shape != (self.batch, self.num_players) or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"actions of shape {array.shape} and type {array.dtype} are not integer split indices "
                             f"of shape ({self.batch}, {self.num_players})")
        array = array.astype(np.int64)
        n_actions = self.game.n_actions
        outside = (array < 0) | (array >= n_actions)
        if outside.any():
            b, s = np.argwhere(outside)[0]
            raise ValueError(f"action {array[b, s]} of seat {s} (table {b}) is out of range 0..{n_actions - 1}")
        valid = np.ones(array.shape, dtype=bool)
        unchecked = array != self._decided
        if unchecked.any():
            at = np.nonzero(unchecked)
            valid[at] = self.game.valid_arrangements(self.game.arranged(self.slots[at], array[at]))
        if not np.all(valid):
            b, s = np.argwhere(~np.asarray(valid))[0]
            rows = self.game.arrangement(self.slots[b, s], int(array[b, s]))
            shown = " | ".join(format_cards(r) for r in rows)
            raise ValueError(f"action {array[b, s]} of seat {s} (table {b}) is not a valid split: {shown} "
                             f"{self.game.invalid_reason}")
        return array

    def score(self, actions: Any) -> TableResult:
        """Score every table's decisions ``actions`` (B, players) of valid split indices."""
        array = self.check_actions(actions)
        cards = self.arranged(array)
        payoffs, outcomes = self.game.score_batch(cards)
        return TableResult(payoffs=payoffs, outcomes=outcomes, game=self.game, arranged=cards)


# ---------------------------------------------------------------------- dealing

def deal(game: Game, num_players: int, rng: Any, batch: int = 1, mask: str = "valid") -> Tables:
    """Deal ``batch`` tables: for each, one permutation of the deck drawn from ``rng`` (a
    Generator, or a seed for one), its first ``players × hand size`` cards dealt seat by
    seat in order. ``mask``: the seats' masks (:data:`MASKS`)."""
    check_mask(mask)
    n = game.check_players(num_players)
    batch = check_tables(batch, 8 * n * game.hand_size)  # the hands, intp
    generator = seeding.as_generator(rng)
    deck, size = game.deck(), game.hand_size
    slots = np.empty((batch, n, size), dtype=np.intp)
    for b in range(batch):
        slots[b] = generator.permutation(deck)[: n * size].reshape(n, size)
    slots.sort(axis=2)
    return Tables._dealt(game, slots, mask)


def deal_around(game: Game, hand: np.ndarray, seat: int, num_players: int, batch: int, rng: Any,
                mask: str = "valid") -> Tables:
    """``batch`` tables where ``seat`` holds ``hand`` (slot order) and the other seats' hands
    are dealt, independently per table, from the cards not in ``hand``. ``mask``: the
    seats' masks (:data:`MASKS`)."""
    check_mask(mask)
    n = game.check_players(num_players)
    check_seat(seat, n)
    # the uniforms and their order (8 bytes each, a card not in the hand), then the hands, intp, twice
    batch = check_tables(batch, 16 * (len(game.deck()) - game.hand_size) + 16 * n * game.hand_size)
    generator = seeding.as_generator(rng)
    if isinstance(hand, str) or not isinstance(hand, (Sequence, np.ndarray)):
        raise ValueError(f"hand {hand!r} is not a sequence of card ids")
    hand = game.slots(list(hand)).astype(np.int64)
    unseen = np.setdiff1d(game.deck().astype(np.int64), hand)
    need = (n - 1) * game.hand_size
    if need > len(unseen):
        raise ValueError(f"{n} players need {need} unseen cards for the other hands; "
                         f"the {game.name} deck leaves {len(unseen)}")
    order = np.argsort(generator.random((batch, len(unseen))), axis=1)[:, :need]
    others = np.sort(unseen[order].reshape(batch, n - 1, game.hand_size), axis=2)
    slots = np.insert(others, seat, hand, axis=1)
    return Tables(game, slots, mask)


def from_hands(game: Game, hands: Any, num_players: int | None = None, what: str = "hands",
               mask: str = "valid") -> Tables:
    """One table of scripted hands, one per seat: each a string of cards (``"As Kd 10h …"``),
    a list of card strings or a list of card ids. ``num_players`` (optional) is the number
    of hands expected; ``what`` names the input in errors; ``mask`` the seats' masks
    (:data:`MASKS`)."""
    check_mask(mask)
    count = "" if num_players is None else f"{num_players} "
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence):
        raise ValueError(f"{what} must be a list of {count}hands (one per seat), got {hands!r}")
    if num_players is not None and len(hands) != num_players:
        raise ValueError(f"{what} has {len(hands)} hands; this table has {num_players} seats")
    lo, hi = game.players
    if not lo <= len(hands) <= hi:
        raise ValueError(f"{what} has {len(hands)} hands; a {game.name} table has {lo} to {hi} seats")
    slots: list[np.ndarray] = []
    owner: dict[int, int] = {}
    for seat, hand in enumerate(hands):
        if not isinstance(hand, (str, Sequence, np.ndarray)):
            raise ValueError(f"{what}[{seat}] is {hand!r}, not a hand: give a string of cards such as "
                             f"'As Kd 10h ...' or a list of card strings")
        try:
            cards = [int(c) for c in hand] if is_card_ids(hand) else parse_cards(hand)  # type: ignore[arg-type]
            seat_slots = game.slots(cards)
        except (ValueError, TypeError) as error:
            raise ValueError(f"{what}[{seat}] {hand!r}: {error}") from None
        for card in seat_slots.tolist():
            if card in owner:
                raise ValueError(f"{what}: card {format_card(card)} is dealt to seats {owner[card]} and {seat}")
            owner[card] = seat
        slots.append(seat_slots)
    return Tables(game, np.stack(slots)[None], mask)

