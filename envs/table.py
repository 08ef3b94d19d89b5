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
import numbers
import operator
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..runtime.limits import MAX_HANDS, check_batch
from .cards import N_IDS, format_card, format_cards, parse_cards, repeats
from .dominance import CANDIDATE, INVALID
from .game import Game, Outcomes, Score
from .games import GAMES, make_game
from .messages import cut
from .observation import decode_hand, decode_seat, encode_observations, observation_size

__all__ = ["MASKS", "SeatView", "SeatViews", "Tables", "TableResult", "as_generator", "check_mask", "deal",
           "derived_seed", "deal_around", "from_hands", "split_choices", "stacked_slots"]

_CARD_TEXT = tuple(format_card(c) for c in range(N_IDS))


#: the masks a table can give its seats: every valid split, or the undominated ones
MASKS = ("valid", "undominated")


#: what an environment does with a split outside the action mask: raise a ValueError, or end
#: the hand with an ``illegal_reward`` for the seat that played it
ILLEGAL_ACTIONS = ("raise", "penalty")


def check_illegal(illegal_action: Any, illegal_reward: Any) -> tuple[str, float]:
    """``(illegal_action, illegal_reward)`` when the first is one of :data:`ILLEGAL_ACTIONS`
    and the second a finite number; else ValueError naming the bad value."""
    if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action={illegal_action!r} is not one of {', '.join(map(repr, ILLEGAL_ACTIONS))}")
    if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float)) or not np.isfinite(
            illegal_reward):
        raise ValueError(f"illegal_reward={illegal_reward!r} is not a finite number")
    return illegal_action, float(illegal_reward)


def split_choices(values: Any, who: str) -> np.ndarray:
    """``values``, the splits ``who`` (an agent, named in errors) returned, as a flat int64
    array: integers of any type, or floats that are whole numbers (``40.0``); else ValueError
    naming ``who`` and the first value that is neither (``40.9``, ``nan``, ``True``, ``None``).
    Whether each is a split its seat may play is checked elsewhere."""
    try:
        array = np.asarray(values)
    except Exception:  # a ragged or otherwise unconvertible value
        raise ValueError(f"{who} returned {cut(repr(values), 80)}, not split indices") from None
    kind = array.dtype.kind
    if kind in "iu":  # the common case: read as it is
        return array.astype(np.int64, copy=False).reshape(-1)
    flat = array.reshape(-1)
    if not len(flat):
        return np.zeros(0, dtype=np.int64)
    if kind == "f":
        whole = np.isfinite(flat) & (flat == np.trunc(flat)) & (np.abs(flat) < 2.0**63)
        if whole.all():
            return flat.astype(np.int64)
        bad: Any = flat[np.flatnonzero(~whole)[0]].item()
    elif kind == "O":
        items = flat.tolist()
        ok = [isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
              or isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer() and abs(v) < 2.0**63
              for v in items]
        if all(ok):
            return np.array([int(v) for v in items], dtype=np.int64)
        bad = items[ok.index(False)]
    else:  # bools, strings, complex numbers, ...
        bad = flat[0].item()
    raise ValueError(f"{who} returned {cut(repr(bad), 40)}, not a split index (an integer, or a float that is a "
                     "whole number)")


def check_mask(mask: Any) -> str:
    """``mask`` when it names a kind of mask (:data:`MASKS`); else ValueError listing them."""
    if not isinstance(mask, str) or mask not in MASKS:
        raise ValueError(f"mask={mask!r} is not a kind of action mask; use {' or '.join(map(repr, MASKS))}")
    return mask


@dataclasses.dataclass(frozen=True)
class _EnvGame:
    """What tells a registered game apart in an environment's seat data (rule switches
    change none of it): its hand size, the length of its observations and its number of
    splits (the length of its action mask)."""

    name: str
    hand_size: int
    observation_size: int
    n_actions: int


def _check_distinct(games: Sequence[_EnvGame]) -> tuple[_EnvGame, ...]:
    """``games``, unless two of them have the same hand size, observation length and number
    of splits (no seat data could tell them apart): then ValueError naming both."""
    seen: dict[tuple[int, int, int], str] = {}
    for g in games:
        key = (g.hand_size, g.observation_size, g.n_actions)
        if key in seen:
            raise ValueError(f"games {seen[key]!r} and {g.name!r} have the same hand size, observation length and "
                             f"number of splits {key}: an environment's seat data cannot tell them apart")
        seen[key] = g.name
    return tuple(games)


@functools.lru_cache(maxsize=1)
def _env_games() -> tuple[_EnvGame, ...]:
    """Every registered game's :class:`_EnvGame`; ValueError when two cannot be told apart."""
    games = {name: make_game(name) for name in GAMES}
    return _check_distinct([_EnvGame(name, g.hand_size, observation_size(g), g.n_actions)
                            for name, g in games.items()])


def _narrow(games: Sequence[_EnvGame], hand_size: int | None = None,
            observation_size: int | None = None) -> tuple[_EnvGame, ...]:
    """The games of ``games`` that fit the seat data: those of the hand's size, then of
    those, the ones of the observation's length; a clue that fits none is ignored (so the
    hand's size wins over an observation of another game's length)."""
    found = tuple(games)
    for attr, value in (("hand_size", hand_size), ("observation_size", observation_size)):
        if value is not None:
            fit = tuple(g for g in found if getattr(g, attr) == value)
            found = fit or found
    return found


def _env_game(observation: np.ndarray, info: Mapping[str, Any]) -> tuple[_EnvGame, ...]:
    """The games an environment's seat data may be of: by the size of ``info["hand"]`` and
    the length of the observation; every registered game when neither tells."""
    hand = info.get("hand")
    hand_size = len(hand) if isinstance(hand, Sequence) and not isinstance(hand, str) else None
    return _narrow(_env_games(), hand_size, observation.shape[0] if observation.ndim == 1 else None)


def _env_mask(action_mask: Any, games: Sequence[_EnvGame]) -> np.ndarray:
    """An environment's ``action_mask`` as bool ``(n_actions,)``: ValueError unless it is one
    0/1 entry per split of one of ``games`` (the games the seat data may be of) with at
    least one 1."""
    try:
        mask = np.asarray(action_mask)
    except Exception:  # a ragged or otherwise unconvertible value
        raise ValueError(f"action_mask {cut(repr(action_mask), 80)} is not an array of 0/1 entries") from None
    sizes: dict[int, list[str]] = {}
    for g in games:
        sizes.setdefault(g.n_actions, []).append(g.name)
    if mask.ndim != 1 or mask.shape[0] not in sizes:
        wanted = " or ".join(f"({n},) for {'/'.join(names)}" for n, names in sorted(sizes.items()))
        raise ValueError(f"action_mask has shape {mask.shape}; a seat's mask has one entry per split: {wanted}")
    if mask.dtype in (np.int8, np.uint8) and mask.flags.c_contiguous and (top := int(mask.view(np.uint8).max())) <= 1:
        mask, marked = mask.view(bool), top == 1  # what the environments give: read as it is, in one pass
    else:
        if mask.dtype != bool:
            if not (np.issubdtype(mask.dtype, np.integer) or np.issubdtype(mask.dtype, np.floating)):
                raise ValueError(f"action_mask has entries of type {mask.dtype}, not 0/1")
            integer = np.issubdtype(mask.dtype, np.integer)
            bad = (np.empty(0, dtype=np.intp) if integer and mask.min() >= 0 and mask.max() <= 1
                   else np.flatnonzero((mask != 0) & (mask != 1)))
            if len(bad):
                raise ValueError(f"action_mask[{int(bad[0])}] is {mask[bad[0]].item()!r}; its entries are 0 or 1")
            mask = mask.astype(bool)
        marked = bool(mask.any())
    if not marked:
        raise ValueError("action_mask has no 1: no split of the hand is marked playable")
    return mask


class SeatView:
    """One seat of one table as an agent sees it: the hand's card ids in slot order, the
    seat, the table size, the mask (bool: the valid splits, or the candidates under
    ``mask="undominated"``) and the observation (float32).

    Views made by :class:`Tables` compute their mask and observation on first read (see
    :meth:`Tables.prepare`): the views made by one :meth:`Tables.views` call compute theirs
    together, in one batched call, when the first of them is read. :meth:`from_env` wraps
    what a PettingZoo environment gives."""

    __slots__ = ("_slots", "seat", "num_players", "_tables", "_table", "_mask", "_observation", "_group", "_text")

    def __init__(self, slots: np.ndarray | None, seat: int, num_players: int, *, mask: np.ndarray | None = None,
                 observation: np.ndarray | None = None, tables: Tables | None = None, table: int = 0,
                 group: Sequence[tuple[int, int]] = ()) -> None:
        self._slots = slots
        self.seat = seat
        self.num_players = num_players
        self._tables = tables
        self._table = table
        self._mask = mask
        self._observation = observation
        self._group = group
        self._text: list[str] | None = None

    @classmethod
    def from_env(cls, observation: np.ndarray, action_mask: np.ndarray, info: Any) -> SeatView:
        """The view of an environment's ``observation``, ``action_mask`` and ``infos[agent]``
        (``"hand"``: card strings in slot order, ``"seat"``, ``"num_players"``). The hand is
        read when an agent first reads :attr:`slots` (an agent that decides from the
        observation alone never parses it); without ``"hand"`` it is read off the
        observation, which encodes it, and so are the seat and the table size without
        ``"seat"`` and ``"num_players"``: ``info`` is optional.

        ``action_mask`` must be one 0/1 entry per split of the seat's game (the game of the
        hand's size, or of the observation's length), with at least one 1: ValueError naming
        what is wrong otherwise."""
        info = info if isinstance(info, Mapping) else {}
        observation = np.asarray(observation)
        seat, players = info.get("seat"), info.get("num_players")
        if (seat is None or players is None) and observation.ndim == 1:
            try:  # the observation encodes both
                decoded: tuple[Any, Any] = decode_seat(observation)
            except ValueError:  # not an observation of a game's: the seat and size stay unknown
                decoded = (None, None)
            seat = decoded[0] if seat is None else seat
            players = decoded[1] if players is None else players
        # an agent called without a mask (one that decides from the hand alone) gets an empty one
        mask = np.zeros((), dtype=bool) if action_mask is None else _env_mask(action_mask, _env_game(observation, info))
        view = cls(None, int(seat or 0), int(players or 0), mask=mask, observation=observation)
        if "hand" in info:
            view._text = list(info["hand"])
        return view

    @property
    def n_actions(self) -> int | None:
        """The number of splits of the seat's game: of its tables, its mask's length, or for a
        view made from an environment's data without a mask, that of the game of the hand's
        size (and of the observation's length); None when no game, or games with different
        numbers of splits, fit."""
        if self._tables is not None:
            return self._tables.game.n_actions
        if self._mask is not None and self._mask.ndim == 1:
            return len(self._mask)
        size = len(self.slots)
        length = self._observation.shape[0] if self._observation is not None and self._observation.ndim == 1 else None
        fit = {g.n_actions for g in _narrow(_env_games(), size, length) if g.hand_size == size}
        return fit.pop() if len(fit) == 1 else None

    @property
    def tables(self) -> Tables | None:
        """The tables the view belongs to (None for a view made from an environment's data)."""
        return self._tables

    @property
    def mask_kind(self) -> str | None:
        """What :attr:`mask` holds (:data:`MASKS`), None for a mask an environment gave."""
        return None if self._tables is None else self._tables.mask_kind

    @property
    def table(self) -> int:
        """The view's table in :attr:`tables`."""
        return self._table

    @property
    def slots(self) -> np.ndarray:
        """The hand's card ids in slot order."""
        if self._slots is None:
            if self._text is not None:
                self._slots = np.asarray(parse_cards(self._text), dtype=np.intp)
            elif self._observation is not None and self._observation.ndim == 1:
                self._slots = decode_hand(self._observation)  # the observation encodes the hand
            else:
                raise ValueError("the agent needs the seat's observation or info['hand'] (the seat's infos "
                                 "entry from the env)")
        return self._slots

    @property
    def mask(self) -> np.ndarray:
        """The splits the seat may play (bool, ``(n_actions,)``): the valid ones, or the
        candidates of tables dealt with ``mask="undominated"``."""
        if self._mask is None:
            if self._tables is None:
                raise ValueError("this seat view has no mask")
            self._mask = self._tables.mask(self._table, self.seat, self._group)
        return self._mask

    @property
    def _listed_by_tables(self) -> bool:
        """Whether the seat's splits are read off the table core's list of its candidates
        (tables dealt with ``mask="undominated"``, before the mask is made)."""
        return self._mask is None and self._tables is not None and self._tables.mask_kind == "undominated"

    @property
    def allowed(self) -> np.ndarray:
        """The splits the seat may play as indices (int64, ascending): :attr:`mask`'s marked
        entries; under ``mask="undominated"`` the table core's list of the candidates, read
        without making the mask."""
        if self._listed_by_tables:
            assert self._tables is not None
            return self._tables.candidate_indices(self._table, self.seat, self._group)
        return np.flatnonzero(self.mask)

    def leaves_out(self, split: int) -> bool:
        """Whether the seat's mask leaves out ``split``, a split index of its game; False for
        a view without a mask (one made from an environment's data without it)."""
        if self._listed_by_tables:
            assert self._tables is not None
            return 0 <= split < self._tables.game.n_actions and not _listed(self.allowed, split)
        mask = self.mask
        return mask.ndim == 1 and 0 <= split < len(mask) and not mask[split]

    @property
    def action_mask(self) -> np.ndarray:
        """The mask as the environments give it (int8)."""
        return self.mask.view(np.int8)

    @property
    def observation(self) -> np.ndarray:
        if self._observation is None:
            if self._tables is None:
                raise ValueError("this seat view has no observation")
            self._observation = self._tables.observation(self._table, self.seat, self._group)
        return self._observation

    @property
    def hand(self) -> list[str]:
        """The hand as card strings in slot order."""
        return [_CARD_TEXT[c] for c in self.slots.tolist()]

    def info(self) -> dict[str, Any]:
        """The seat's ``infos`` entry as the environments give it."""
        return {"hand": self.hand, "seat": self.seat, "num_players": self.num_players}

    def __repr__(self) -> str:
        hand = format_cards(self._slots) if self._slots is not None else " ".join(self._text or "?")
        return f"SeatView(seat={self.seat} of {self.num_players}, hand={hand!r})"


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


class SeatViews(Sequence[SeatView]):
    """The views of ``(table, seat)`` pairs of one :class:`Tables` (what :meth:`Tables.views_at`
    returns): a sequence whose :class:`SeatView` items are made when first read, and whose
    hands (:attr:`slots`), observations (:attr:`observations`), masks (:attr:`masks`) and mask
    kind (:attr:`mask_kind`) an agent deciding a whole batch reads at once, as arrays, without
    making the views. A slice is views of the same group: their masks and observations are
    still computed together."""

    __slots__ = ("tables", "pairs", "group", "_items")

    def __init__(self, tables: Tables, pairs: Sequence[tuple[int, int]],
                 group: tuple[tuple[int, int], ...] | None = None) -> None:
        self.tables = tables
        # a slice's pairs (given with their group) were checked when the group was made
        self.pairs = tables.seat_pairs(pairs) if group is None else tuple(pairs)
        self.group = self.pairs if group is None else group
        self._items: list[SeatView | None] = [None] * len(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return SeatViews(self.tables, self.pairs[index], self.group)
        item = self._items[index]
        if item is None:
            table, seat = self.pairs[index]
            item = self._items[index] = SeatView(self.tables.slots[table, seat], seat, self.tables.num_players,
                                                 tables=self.tables, table=table, group=self.group)
        return item

    @property
    def slots(self) -> np.ndarray:
        """The views' hands, ``(len(self), hand size)`` card ids in slot order."""
        pairs = np.array(self.pairs, dtype=np.intp).reshape(-1, 2)
        return self.tables.slots[pairs[:, 0], pairs[:, 1]]

    @property
    def mask_kind(self) -> str:
        """What every view's mask holds (:data:`MASKS`)."""
        return self.tables.mask_kind

    @property
    def observations(self) -> np.ndarray:
        """The views' observations, ``(len(self), observation size)`` float32 in the views'
        order: each row the view's :attr:`SeatView.observation`, those not yet known computed
        together with the group's (:meth:`Tables.observations_at`)."""
        return self.tables.observations_at(self.pairs, self.group)

    @property
    def masks(self) -> np.ndarray:
        """The views' masks, ``(len(self), n_actions)`` bool in the views' order: each row the
        view's :attr:`SeatView.mask` (the valid splits, or the candidates under
        ``mask="undominated"``), those not yet known computed together with the group's
        (:meth:`Tables.masks_at`)."""
        return self.tables.masks_at(self.pairs, self.group)


def _listed(splits: np.ndarray, split: int) -> bool:
    """Whether ``split`` is among the ascending ``splits``."""
    at = int(np.searchsorted(splits, split))
    return at < len(splits) and int(splits[at]) == split


def stacked_slots(views: Sequence[SeatView]) -> np.ndarray:
    """The hands of ``views`` as one ``(len(views), hand size)`` array (read at once from
    the tables of :class:`SeatViews`)."""
    if isinstance(views, SeatViews):
        return views.slots
    return np.stack([view.slots for view in views])


class Tables:
    """B tables of ``num_players`` seats of one game: ``slots`` (B, players, hand size), each
    hand's card ids in slot order. Build them with :func:`deal`, :func:`deal_around` or
    :func:`from_hands`."""

    def __init__(self, game: Game, slots: np.ndarray, mask: str = "valid") -> None:
        slots = _checked_slots(game, slots)
        self.game = game
        self.num_players = game.check_players(slots.shape[1])
        self.slots = slots
        #: the mask the seats are given (:data:`MASKS`)
        self.mask_kind = check_mask(mask)
        self._masks: dict[tuple[int, int], np.ndarray] = {}
        #: the candidates of each seat as split indices, and as masks (made from those when read)
        self._listed: dict[tuple[int, int], np.ndarray] = {}
        self._candidates: dict[tuple[int, int], np.ndarray] = {}
        self._observations: dict[tuple[int, int], np.ndarray] = {}
        #: seconds spent computing masks and observations (:meth:`prepare`), so that a timed
        #: decision can leave out what it did not compute itself
        self.preparing_s = 0.0
        #: the choices :meth:`decide` checked, by table and seat (-1: none), which
        #: :meth:`score` does not check again
        self._decided = np.full(slots.shape[:2], -1, dtype=np.int64)

    @property
    def batch(self) -> int:
        return len(self.slots)

    def __len__(self) -> int:
        return len(self.slots)

    # ------------------------------------------------------------------ seats

    def prepare(self, seats: Iterable[tuple[int, int]], masks: bool = True, observations: bool = True,
                candidates: bool | None = None) -> None:
        """Compute the masks and observations of the ``(table, seat)`` pairs not yet known,
        each kind in one batched call; ``candidates`` (by default: when the seats' mask is
        theirs) the candidates, with the valid masks from the same pass."""
        start = time.perf_counter()
        if candidates is None:
            candidates, masks = masks and self.mask_kind == "undominated", masks and self.mask_kind == "valid"
        self._prepare(list(dict.fromkeys(self.seat_pairs(list(seats)))), masks, observations, candidates)
        self.preparing_s += time.perf_counter() - start

    def _prepare(self, pairs: list[tuple[int, int]], masks: bool, observations: bool, candidates: bool) -> None:
        if candidates:
            todo = [p for p in pairs if p not in self._listed]
            if todo:
                index = np.array(todo).T
                slots = self.slots[index[0], index[1]]
                if masks and any(p not in self._masks for p in todo):  # told apart in the same pass
                    lists = []
                    for pair, classes in zip(todo, self.game.split_classes(slots)):
                        lists.append(np.flatnonzero(classes == CANDIDATE))
                        self._masks.setdefault(pair, classes != INVALID)
                else:
                    lists = self.game.candidate_lists(slots)
                for pair, splits in zip(todo, lists):
                    splits.setflags(write=False)  # handed to agents as they are (SeatView.allowed)
                    self._listed[pair] = splits
        if masks:
            todo = [p for p in pairs if p not in self._masks]
            if todo:
                index = np.array(todo).T
                for pair, mask in zip(todo, self.game.valid_masks(self.slots[index[0], index[1]])):
                    self._masks[pair] = mask
        if observations:
            todo = [p for p in pairs if p not in self._observations]
            if todo:
                index = np.array(todo).T
                encoded = encode_observations(self.game, self.slots[index[0], index[1]], index[1], self.num_players)
                for pair, observation in zip(todo, encoded):
                    self._observations[pair] = observation

    def mask(self, table: int, seat: int, group: Sequence[tuple[int, int]] = ()) -> np.ndarray:
        """The seat's mask (bool): :meth:`valid_mask`, or :meth:`candidates` under
        ``mask="undominated"`` (computed with those of ``group`` when unknown)."""
        if self.mask_kind == "undominated":
            return self.candidates(table, seat, group)
        return self.valid_mask(table, seat, group)

    def valid_mask(self, table: int, seat: int, group: Sequence[tuple[int, int]] = ()) -> np.ndarray:
        """The valid splits (bool) of a seat's hand (computed with those of ``group`` when unknown)."""
        if (table, seat) not in self._masks:
            self.prepare([(table, seat), *group], observations=False, candidates=False)
        return self._masks[(table, seat)]

    def candidates(self, table: int, seat: int, group: Sequence[tuple[int, int]] = ()) -> np.ndarray:
        """The candidates (bool): the valid splits of a seat's hand that no other valid split
        dominates (:mod:`splitpoker.envs.dominance`; computed with those of ``group`` when unknown)."""
        mask = self._candidates.get((table, seat))
        if mask is None:
            mask = self._candidates[(table, seat)] = np.zeros(self.game.n_actions, dtype=bool)
            mask[self.candidate_indices(table, seat, group)] = True
        return mask

    def candidate_indices(self, table: int, seat: int, group: Sequence[tuple[int, int]] = ()) -> np.ndarray:
        """The candidates of a seat's hand as split indices (int64, ascending; computed with
        those of ``group`` when unknown, listed by the sweep without a mask)."""
        if (table, seat) not in self._listed:
            self.prepare([(table, seat), *group], masks=False, observations=False, candidates=True)
        return self._listed[(table, seat)]

    def observation(self, table: int, seat: int, group: Sequence[tuple[int, int]] = ()) -> np.ndarray:
        """The observation (float32) of a seat (computed with those of ``group`` when unknown)."""
        if (table, seat) not in self._observations:
            self.prepare([(table, seat), *group], masks=False)
        return self._observations[(table, seat)]

    def observations_at(self, pairs: Sequence[tuple[int, int]], group: Sequence[tuple[int, int]] = ()) -> np.ndarray:
        """The observations of ``(table, seat)`` pairs as one array, ``(len(pairs), observation
        size)`` float32: row i is :meth:`observation` of ``pairs[i]`` (those not yet known
        computed in one call, with those of ``group``). ValueError naming the first pair that
        is not a table and a seat of these tables."""
        pairs = self.seat_pairs(pairs)
        missing = [pair for pair in pairs if pair not in self._observations]
        if missing:
            self.prepare([*missing, *group], masks=False)
        out = np.empty((len(pairs), observation_size(self.game)), dtype=np.float32)
        for i, pair in enumerate(pairs):
            out[i] = self._observations[pair]
        return out

    def masks_at(self, pairs: Sequence[tuple[int, int]], group: Sequence[tuple[int, int]] = ()) -> np.ndarray:
        """The masks of ``(table, seat)`` pairs as one array, ``(len(pairs), n_actions)`` bool:
        row i is :meth:`mask` of ``pairs[i]``, the valid splits or under ``mask="undominated"``
        the candidates (those not yet known computed in one call, with those of ``group``).
        ValueError naming the first pair that is not a table and a seat of these tables."""
        pairs = self.seat_pairs(pairs)
        together = (*pairs, *group)
        out = np.empty((len(pairs), self.game.n_actions), dtype=bool)
        for i, (table, seat) in enumerate(pairs):
            out[i] = self.mask(table, seat, together)
        return out

    def seat_pairs(self, pairs: Any) -> tuple[tuple[int, int], ...]:
        """``(table, seat)`` pairs as a tuple of int pairs; ValueError naming the first pair that
        is not a table and a seat of these tables (integers, tables 0..B-1, seats 0..players-1)."""
        try:
            converted = tuple((operator.index(table), operator.index(seat)) for table, seat in pairs)
        except (TypeError, ValueError):  # not pairs, or not of integers
            raise ValueError(f"seats {cut(repr(pairs), 80)} are not (table, seat) pairs of integers") from None
        if converted:
            self._pair_array(np.fromiter(itertools.chain.from_iterable(converted), dtype=np.int64,
                                         count=2 * len(converted)).reshape(-1, 2))
        return converted

    def _pair_array(self, pairs: Any) -> np.ndarray:
        """``(table, seat)`` pairs, an array ``(K, 2)``, as intp, checked (:meth:`seat_pairs`)
        in one vectorised pass."""
        array = np.asarray(pairs)
        if array.size == 0:
            return np.zeros((0, 2), dtype=np.intp)
        if array.ndim != 2 or array.shape[1] != 2 or array.dtype.kind not in "iu":
            raise ValueError(f"seats {cut(repr(pairs), 80)} are not (table, seat) pairs of integers")
        tables, seats = array[:, 0], array[:, 1]
        outside = (tables < 0) | (tables >= self.batch) | (seats < 0) | (seats >= self.num_players)
        if outside.any():
            table, seat = array[np.flatnonzero(outside)[0]].tolist()
            raise ValueError(f"(table, seat) ({table}, {seat}) is not a seat of these tables (tables "
                             f"0..{self.batch - 1}, seats 0..{self.num_players - 1})")
        return array.astype(np.intp, copy=False)

    def view(self, table: int, seat: int) -> SeatView:
        """The view of one seat; ValueError unless ``table`` and ``seat`` are integers naming a
        table and a seat of these tables."""
        ((table, seat),) = self.seat_pairs([(table, seat)])
        return SeatView(self.slots[table, seat], seat, self.num_players, tables=self, table=table)

    def views(self, table: int | None = None, seats: Sequence[int] | None = None) -> SeatViews:
        """The views of ``seats`` (all by default) of one table, or of every table (table-major)."""
        tables = range(self.batch) if table is None else [table]
        chosen = range(self.num_players) if seats is None else seats
        return self.views_at([(b, s) for b in tables for s in chosen])

    def views_at(self, pairs: Sequence[tuple[int, int]]) -> SeatViews:
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
        self._pair_array(np.stack(np.broadcast_arrays(tables, seats), axis=-1).reshape(-1, 2))  # in range
        inside = (actions >= 0) & (actions < self.game.n_actions)
        cards = self.game.arranged(self.slots[tables, seats], np.where(inside, actions, 0))
        ok = inside & self.game.valid_arrangements(cards)
        if self.mask_kind == "undominated":
            pairs = list(zip(np.asarray(tables).tolist(), np.asarray(seats).tolist()))
            chosen = np.where(inside, actions, 0).tolist()
            ok &= np.array([_listed(self.candidate_indices(t, s, pairs), a) for (t, s), a in zip(pairs, chosen)],
                           dtype=bool)
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
        out = np.zeros(self._decided.shape, dtype=np.int64) if actions is None else actions
        groups: dict[int, tuple[Any, list[tuple[int, int]]]] = {}
        for table, seat, agent in seated:
            groups.setdefault(id(agent), (agent, []))[1].append((table, seat))
        for agent, _ in groups.values():
            if not callable(getattr(agent, "act_batch", None)):
                raise ValueError(f"{cut(repr(agent), 60)} is not an agent (it has no act_batch); build agents from "
                                 "specs with splitpoker.agents.load_agent")
        for agent, given in groups.values():
            views = self.views_at(given)  # the pairs checked
            pairs = list(views.pairs)
            size = getattr(agent, "batch_size", None) or len(views)
            start, preparing = time.perf_counter(), self.preparing_s
            parts = [agent.act_batch(views[i:i + size]) for i in range(0, len(views), size)]
            elapsed = time.perf_counter() - start - (self.preparing_s - preparing)
            chosen = self._checked_choices(agent, pairs, parts)
            rows, seats = np.array(pairs, dtype=np.intp).T
            out[rows, seats] = chosen
            self._decided[rows, seats] = chosen
            if times is not None:
                times[rows, seats] = elapsed / len(pairs)
        return out

    def _checked_choices(self, agent: Any, pairs: list[tuple[int, int]], parts: list[Any]) -> np.ndarray:
        """An agent's choices for ``pairs`` as int64; ValueError unless each is a split the seat
        may play (:meth:`valid_choices`)."""
        name = getattr(agent, "name", type(agent).__name__)
        chosen = np.concatenate([split_choices(part, f"agent {name!r}") for part in parts] or [np.zeros(0, np.int64)])
        if len(chosen) != len(pairs):
            raise ValueError(f"agent {name!r} returned {len(chosen)} splits for {len(pairs)} seats")
        tables, seats = np.array(pairs, dtype=np.intp).T
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

def as_generator(rng: Any) -> np.random.Generator:
    """``rng`` when it is a Generator, else a new one seeded by it; ValueError for a bad seed."""
    if isinstance(rng, np.random.Generator):
        return rng
    bad = ValueError(f"seed {rng!r} is not a Generator, a non-negative integer or a sequence of them")
    if isinstance(rng, (bool, np.bool_)):
        raise bad
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError):
        raise bad from None


def check_seed(seed: Any) -> None:
    """ValueError unless ``seed`` is None or a non-negative integer."""
    if seed is None:
        return
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed {seed!r} must be None or a non-negative integer")


def derived_seed(*keys: int) -> int:
    """A 64-bit seed derived from integer ``keys`` (a run's seed, a step, a chunk, ...): the
    same keys give the same seed, different keys independent ones.

    >>> derived_seed(0, 1) == derived_seed(0, 1) != derived_seed(0, 2)
    True

    ValueError naming the keys unless each is a non-negative integer.
    """
    bad = ValueError(f"seed keys {keys!r} must be non-negative integers")
    if any(isinstance(key, (bool, np.bool_)) for key in keys):
        raise bad
    try:
        return int(np.random.SeedSequence(list(keys)).generate_state(1)[0])
    except (TypeError, ValueError):
        raise bad from None


def deal(game: Game, num_players: int, rng: Any, batch: int = 1, mask: str = "valid") -> Tables:
    """Deal ``batch`` tables: for each, one permutation of the deck drawn from ``rng`` (a
    Generator, or a seed for one), its first ``players × hand size`` cards dealt seat by
    seat in order. ``mask``: the seats' masks (:data:`MASKS`)."""
    check_mask(mask)
    n = game.check_players(num_players)
    batch = _check_batch(batch, 8 * n * game.hand_size)  # the hands, intp
    generator = as_generator(rng)
    deck, size = game.deck(), game.hand_size
    slots = np.empty((batch, n, size), dtype=np.intp)
    for b in range(batch):
        slots[b] = generator.permutation(deck)[: n * size].reshape(n, size)
    slots.sort(axis=2)
    return Tables(game, slots, mask)


def check_seat(seat: Any, num_players: int) -> int:
    """``seat`` as an int when it is a seat of a ``num_players``-seat table; else ValueError."""
    if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < num_players:
        raise ValueError(f"seat {seat!r} is not a seat of a {num_players}-player table "
                         f"(seats 0..{num_players - 1})")
    return int(seat)


def _check_batch(batch: Any, bytes_each: int) -> int:
    """``batch`` as an int when it is a number of tables (0 to :data:`MAX_HANDS`) whose
    arrays, ``bytes_each`` bytes a table, fit in :data:`~splitpoker.runtime.limits.MAX_BATCH_BYTES`."""
    if isinstance(batch, (bool, np.bool_)) or not isinstance(batch, (int, np.integer)) or batch < 0:
        raise ValueError(f"batch {batch!r} is not a number of tables (an integer of at least 0)")
    return check_batch(batch, "batch=", bytes_each, least=0, most=MAX_HANDS)


def _checked_slots(game: Game, slots: Any) -> np.ndarray:
    """``slots`` as an intp ``(tables, players, hand size)`` array of card ids; ValueError
    naming the first entry that is not a card of the game's deck, the first hand not in
    slot order (ascending ids) or the first card dealt twice at a table (checked in one
    vectorised pass)."""
    try:
        array = np.asarray(slots)
    except Exception:  # ragged
        raise ValueError(f"slots {cut(repr(slots), 80)} are not an array of card ids") from None
    if array.ndim != 3 or array.shape[2] != game.hand_size:
        raise ValueError(f"slots of shape {array.shape} are not (tables, players, {game.hand_size})")
    if array.size == 0:
        return np.asarray(array, dtype=np.intp)
    if array.dtype.kind not in "iu":
        raise ValueError(f"slots of type {array.dtype} are not card ids (integers)")
    low = 0 if game.jokers else 2
    if array.min() < low or array.max() >= N_IDS:
        b, s, k = np.argwhere((array < low) | (array >= N_IDS))[0].tolist()
        raise ValueError(f"slots[{b}, {s}, {k}] is {array[b, s, k]}, not a card of the {game.name} deck "
                         f"(card ids {low}..{N_IDS - 1})")
    array = np.asarray(array, dtype=np.intp)
    unordered = (array[:, :, 1:] <= array[:, :, :-1]).any(axis=2)  # a card twice in a hand is out of order too
    if unordered.any():
        b, s = np.argwhere(unordered)[0].tolist()
        raise ValueError(f"slots[{b}, {s}] ({', '.join(map(str, array[b, s].tolist()))}) are not in slot order: "
                         "each hand's card ids ascending, each card once")
    tables = array.reshape(len(array), -1)
    if repeats(tables).any():
        ordered = np.sort(tables, axis=1)
        b, k = np.argwhere(ordered[:, 1:] == ordered[:, :-1])[0].tolist()
        card = int(ordered[b, k])
        seats = np.flatnonzero((array[b] == card).any(axis=1)).tolist()  # two: a hand holds each card once
        raise ValueError(f"slots: card {format_card(card)} is dealt to seats {seats[0]} and {seats[1]} at table {b}")
    return array


def deal_around(game: Game, hand: np.ndarray, seat: int, num_players: int, batch: int, rng: Any,
                mask: str = "valid") -> Tables:
    """``batch`` tables where ``seat`` holds ``hand`` (slot order) and the other seats' hands
    are dealt, independently per table, from the cards not in ``hand``. ``mask``: the
    seats' masks (:data:`MASKS`)."""
    check_mask(mask)
    n = game.check_players(num_players)
    check_seat(seat, n)
    # the uniforms and their order (8 bytes each, a card not in the hand), then the hands, intp, twice
    batch = _check_batch(batch, 16 * (len(game.deck()) - game.hand_size) + 16 * n * game.hand_size)
    generator = as_generator(rng)
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
            cards = [int(c) for c in hand] if _is_ids(hand) else parse_cards(hand)  # type: ignore[arg-type]
            seat_slots = game.slots(cards)
        except (ValueError, TypeError) as error:
            raise ValueError(f"{what}[{seat}] {hand!r}: {error}") from None
        for card in seat_slots.tolist():
            if card in owner:
                raise ValueError(f"{what}: card {_CARD_TEXT[card]} is dealt to seats {owner[card]} and {seat}")
            owner[card] = seat
        slots.append(seat_slots)
    return Tables(game, np.stack(slots)[None], mask)


def _is_ids(hand: Any) -> bool:
    if isinstance(hand, np.ndarray):
        return np.issubdtype(hand.dtype, np.integer)
    return (isinstance(hand, Sequence) and not isinstance(hand, str) and len(hand) > 0
            and all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in hand))

