"""The offered-splits action space: a seat is offered up to ``K`` of its candidates (the
undominated valid splits, :mod:`splitpoker.envs.dominance`), each with a row of features,
and acts by choosing a slot ``0..K-1``. Pure: standard library and NumPy.

**Slot order and truncation.** A hand's candidates are ordered by their value to the
``heuristic`` agent (:meth:`Game.heuristic_values_at`), highest first, equal values by the
lower split index; slot 0 holds the heuristic's choice among the candidates. When the hand
has more than ``K`` candidates the first ``K`` in that order are offered and the rest are
dropped (``counts`` keeps how many there were); when ``K`` covers them every candidate is
offered. Slots past the last offered split are empty: split -1, mask False, features 0.

**Games.** Every function takes a :class:`Game` or a registered game's name; a name means
the game under its default preset (``make_game(name)``), whose rules the values and
bounds follow. The hands are in slot order, card ids ascending along each hand, as
:meth:`Game.slots` gives them.

**Feature columns** (``F`` = :func:`offered_width`, named by :func:`offered_labels`), for each
row ``r`` of ``game.row_names`` in order, then two of the split:

* ``"{r}:{t}"`` for each type ``t`` of ``game.type_names``: 1 for the row's type, else 0;
* ``"{r}:rank"``: the row's exact strength rank among every row of its size the game's deck
  can make, in [0, 1]: (rows strictly weaker + half the rows equal to it) / all rows, read
  from a table of the deck's distinct strengths built once per rules
  (:func:`splitpoker.envs.strength.deck_strengths`);
* ``"{r}:beats"``, ``"{r}:beaten"``: the share of the reference rows at that position it
  beats, and that beat it (:func:`splitpoker.envs.reference.reference_rows`);
* ``"{r}:bonus"``: what the row is paid beyond a plain win when it wins
  (:meth:`Game.row_bonuses`: Thirteen its royalty, Biji the 喜 a pot earns by itself);
* ``"value"``: the split's heuristic value in points;
* ``"value_gap"``: its value minus the highest value among the hand's candidates (0 in
  slot 0, below 0 elsewhere but for equal values).

Every row feature, and every term of the heuristic's value (:meth:`Game.heuristic_row_terms`),
depends only on the row's strength and position, so each is read from a table of the deck's
distinct strengths, built once per rules, at the row's place in it (one read where the
strengths span few numbers, else one search); the values are the heuristic's own
combination of the terms (:meth:`Game.heuristic_combined`, what
:meth:`Game.heuristic_values_at` computes), for every (hand, candidate) pair of a batch at
once, and the features are read for the kept pairs only. The finding and the ordering are
two compiled passes over the pairs (:mod:`.offer_kernels`, loaded on first use), so that
one hand's offer is a few calls, not dozens of small NumPy ones.

>>> from splitpoker.envs.cards import parse_cards
>>> from splitpoker.envs.games import make_game
>>> game = make_game("biji")
>>> hand = game.slots(parse_cards("As Ks Qs 2h 2d 7c 8c 9d Jh"))
>>> offered = offer_hands(game, hand[None], num_players=4, offer=4)
>>> offered.features.shape, int(offered.counts[0]), offered.mask[0].tolist(), offered.splits[0].tolist()
((1, 4, 32), 2, [True, True, False, False], [60, 120, -1, -1])
>>> labels = offered_labels(game)
>>> labels[:7], labels[-2:]
(('pot 1:high_card', 'pot 1:pair', 'pot 1:straight', 'pot 1:flush', 'pot 1:straight_flush', 'pot 1:trips', \
'pot 1:rank'), ('value', 'value_gap'))
>>> int(offered.choose([0])[0]) == int(game.heuristic_actions(hand[None], 4)[0])
True
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..runtime.arguments import check_whole, is_whole, shown
from .cards import format_cards
from .dominance import candidate_lists
from .game import Game
from .reference import reference_rows
from .strength import deck_strengths, split_columns

if TYPE_CHECKING:
    from .splits import SplitIndex
    from .switches import RuleSwitches

__all__ = ["MAX_OFFER", "OFFER_CHUNK", "Offered", "check_offer", "offer", "offer_hands", "offered_bounds",
           "offered_labels", "offered_splits", "offered_width", "split_observation"]

#: the most splits a seat may be offered
MAX_OFFER = 4096
#: hands whose offers one pass computes (its arrays grow with the hands' candidates; below 2**16)
OFFER_CHUNK = 1024
#: the columns of each row after its type one-hot
_ROW_COLUMNS = ("rank", "beats", "beaten", "bonus")


def check_offer(offer: Any, game: Game | None = None, what: str = "offer=") -> int:
    """``offer`` as an int when it is a whole number from 1 to :data:`MAX_OFFER`; None gives
    ``game.default_offer`` when ``game`` is given. ValueError naming ``what`` (a keyword,
    ``offer=``, or an option, ``--offer``) and the value otherwise.

    >>> check_offer(64)
    64
    >>> check_offer(0)
    Traceback (most recent call last):
    ...
    ValueError: offer=0 must be an integer of at least 1 (at most 4,096)
    """
    if type(offer) is int and 1 <= offer <= MAX_OFFER:
        return offer
    if offer is None and game is not None:
        return int(game.default_offer)
    return check_whole(offer, what, least=1, most=MAX_OFFER)


def offered_labels(game: Game | str) -> tuple[str, ...]:
    """The names of the ``F`` feature columns of ``game`` (a :class:`Game` or a game's name),
    in order (the module docstring)."""
    return _labels(type(_game(game)))


@functools.cache
def _labels(game_class: type[Game]) -> tuple[str, ...]:
    return (*(f"{row}:{name}" for row in game_class.row_names for name in (*game_class.type_names, *_ROW_COLUMNS)),
            "value", "value_gap")


def offered_width(game: Game | str) -> int:
    """``F``, the number of feature columns of ``game`` (a :class:`Game` or a game's name)."""
    return len(offered_labels(game))


def offered_bounds(game: Game | str, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Finite float32 bounds ``(F,)`` low and high of every feature column of ``game`` (a
    :class:`Game`, or a game's name: its default preset's rules) at a table of
    ``num_players``: 0 and 1 for the one-hots, ranks and shares, the lowest and highest
    bonus of any row of the deck at each position, the heuristic's value bounds
    (:meth:`Game.heuristic_value_bounds`) and the gap they allow."""
    game = _game(game)
    n = game.check_players(num_players)
    rows = _row_tables(type(game), game.rules)
    low, high = [], []
    for table in np.split(rows.features, rows.starts[1:-1]):
        low.append(table.min(axis=0))
        high.append(table.max(axis=0))
        low[-1][:-1], high[-1][:-1] = 0.0, 1.0  # the type one-hot, rank and shares
    least, most = game.heuristic_value_bounds(n)
    low.append(np.array([least, least - most], dtype=np.float32))
    high.append(np.array([most, 0.0], dtype=np.float32))
    return np.concatenate(low).astype(np.float32), np.concatenate(high).astype(np.float32)


@dataclasses.dataclass(frozen=True, eq=False)
class _RowTables:
    """Per row size: the distinct strengths of the deck's rows, ascending (``strengths``);
    per row position ``k``: the row features (type one-hot, rank, beats, beaten, bonus) of
    each of those strengths, rows ``starts[k]`` to ``starts[k + 1]`` of ``features``, so
    that one gather reads the three rows' features of many splits. ``keys`` are those
    strengths stacked the same way, each position's moved by ``shifts[k]`` past the last's
    (from 0), so that one search of ``strengths + shifts`` finds the rows of every
    position; where the keys span at most :data:`_DENSE` numbers, ``dense`` holds the row
    of each key (at the key), so that one read finds them (else it is empty)."""

    strengths: dict[int, np.ndarray]
    features: np.ndarray
    starts: np.ndarray
    keys: np.ndarray
    shifts: np.ndarray
    dense: np.ndarray


#: the most numbers the row tables' keys may span to be read from a dense table
_DENSE = 1 << 20


@dataclasses.dataclass(frozen=True, eq=False)
class _OfferTables:
    """What an offer at a table of a number of players reads, once per rules and number:
    the row tables, the heuristic's row terms (:meth:`Game.heuristic_row_terms`) of every
    strength a row of the deck can have at each position, laid out as the row tables'
    features (``terms``), and where the rows of every split are among a hand's subsets."""

    num_players: int
    rows: _RowTables
    terms: np.ndarray
    layout: _Layout

    @property
    def width(self) -> int:
        """``F``: the three rows' features, the value and its gap."""
        return 3 * self.rows.features.shape[1] + 2


@functools.cache
def _offer_tables(game_class: type[Game], rules: RuleSwitches, num_players: int) -> _OfferTables:
    """The :class:`_OfferTables` of ``rules`` at a table of ``num_players``; ValueError
    when the game does not allow that table."""
    game = game_class(rules)
    n = game.check_players(num_players)
    tables = _row_tables(game_class, rules)
    terms = np.concatenate([game.heuristic_row_terms(k, tables.strengths[size], n)
                            for k, size in enumerate(game.split_index.row_sizes)])
    terms.flags.writeable = False
    return _OfferTables(num_players=n, rows=tables, terms=terms, layout=_subset_layout(game.split_index))


@functools.cache
def _row_tables(game_class: type[Game], rules: RuleSwitches) -> _RowTables:
    """The row features of every strength a row of the deck can have, once per rules."""
    game = game_class(rules)
    sizes = game.split_index.row_sizes
    reference = reference_rows(game)
    strengths, ranks = {}, {}
    for size in sorted(set(sizes)):
        distinct, counts = deck_strengths(game.deck(), size, game.row_strengths)
        strengths[size] = distinct
        ranks[size] = (np.cumsum(counts) - counts / 2) / counts.sum()
    features: list[np.ndarray] = []
    keys: list[np.ndarray] = []
    shifts: list[int] = []
    for k, size in enumerate(sizes):
        distinct = strengths[size]
        types = len(game.type_names)
        table = np.zeros((len(distinct), types + len(_ROW_COLUMNS)), dtype=np.float32)
        table[np.arange(len(distinct)), np.asarray(game.strength_type(distinct), dtype=np.intp)] = 1.0
        table[:, types:] = np.stack((ranks[size], reference.below(k, distinct), reference.above(k, distinct),
                                     game.row_bonuses(k, distinct)), axis=1)
        features.append(table)
        shifts.append((int(keys[-1][-1]) + 1 if keys else 0) - int(distinct[0]))
        keys.append(distinct + shifts[-1])
    stacked, stacked_keys = np.concatenate(features), np.concatenate(keys)
    dense = np.zeros(0, dtype=np.int16)
    if stacked_keys[-1] < _DENSE:
        dense = np.full(stacked_keys[-1] + 1, -1, dtype=np.int16 if len(stacked_keys) < 1 << 15 else np.int32)
        dense[stacked_keys] = np.arange(len(stacked_keys))
    dense.flags.writeable = False
    stacked.flags.writeable = stacked_keys.flags.writeable = False
    return _RowTables(strengths=strengths, features=stacked,
                      starts=np.cumsum([0, *(len(table) for table in features)]).astype(np.intp),
                      keys=stacked_keys, shifts=np.array(shifts, dtype=np.int64), dense=dense)


@dataclasses.dataclass(frozen=True, eq=False)
class Offered:
    """The offers of ``N`` hands, ``K`` slots each (the module docstring): ``splits``
    ``(N, K)`` int64 the split index in each slot (-1 in empty slots), ``mask`` ``(N, K)``
    bool the filled slots, ``features`` ``(N, K, F)`` float32 each offered split's feature
    row (0 in empty slots) and ``counts`` ``(N,)`` int64 how many candidates each hand has
    (before keeping ``K``)."""

    splits: np.ndarray
    mask: np.ndarray
    features: np.ndarray
    counts: np.ndarray

    def __len__(self) -> int:
        return len(self.splits)

    def choose(self, slots: Any) -> np.ndarray:
        """The split indices ``(N,)`` int64 of one slot ``(N,)`` per hand; ValueError naming
        the first slot that is not an integer, is out of range ``0..K-1`` or is empty.

        >>> offered = Offered(np.array([[4, 9, -1]]), np.array([[True, True, False]]), np.zeros((1, 3, 1)),
        ...                   np.array([2]))
        >>> offered.choose([1]).tolist()
        [9]
        >>> offered.choose([2])
        Traceback (most recent call last):
        ...
        ValueError: slot 2 of row 0 is empty: the hand is offered 2 splits (slots 0..1)
        """
        n, k = self.splits.shape
        array = np.asarray(slots)
        if array.shape != (n,):
            raise ValueError(f"slots of shape {array.shape} are not one slot per offered hand ({n},)")
        if array.dtype.kind not in "iu":
            given = array.tolist() if isinstance(slots, np.ndarray) else list(slots)
            row = next((i for i, slot in enumerate(given) if not is_whole(slot)), 0)
            raise ValueError(f"slot {shown(given[row])} of row {row} is not an integer")
        outside = (array < 0) | (array >= k)
        if outside.any():
            row = int(np.flatnonzero(outside)[0])
            raise ValueError(f"slot {int(array[row])} of row {row} is out of range 0..{k - 1}")
        rows = np.arange(n)
        chosen = self.splits[rows, array]
        if (chosen < 0).any():
            row = int(np.flatnonzero(chosen < 0)[0])
            filled = int(self.mask[row].sum())
            raise ValueError(f"slot {int(array[row])} of row {row} is empty: the hand is offered "
                             f"{offered_splits(filled)}")
        return chosen.astype(np.int64)


def offered_splits(filled: int) -> str:
    """How many splits a hand is offered and in which slots, as messages say it.

    >>> offered_splits(1), offered_splits(3), offered_splits(0)
    ('1 split (slot 0)', '3 splits (slots 0..2)', '0 splits (no slot)')
    """
    if filled == 1:
        return "1 split (slot 0)"
    return f"{filled} splits ({f'slots 0..{filled - 1}' if filled else 'no slot'})"


def offer(game: Game | str, hands: np.ndarray, lists: Sequence[np.ndarray], num_players: int,
          offer: int) -> Offered:
    """The offers of hands ``(N, hand size)`` (card ids in slot order, :meth:`Game.slots`)
    whose candidates are ``lists[i]`` (split indices, ascending, as
    :meth:`Game.candidate_lists` gives them) at a table of ``num_players``, ``offer`` slots
    each; ``game`` is a :class:`Game` or a game's name (its default preset). ValueError for
    a bad ``offer``, hands that are not hands of the game or not in slot order, or lists
    that do not match them."""
    game = _game(game)
    k = check_offer(offer)
    tables = _tables_at(game, num_players)
    hands = _hands_in_order(game, hands)
    if isinstance(lists, (str, bytes)) or not isinstance(lists, (Sequence, np.ndarray)) or len(lists) != len(hands):
        given = f"{len(lists)} candidate lists" if isinstance(lists, (Sequence, np.ndarray)) else f"lists {lists!r}"
        raise ValueError(f"{given} for {len(hands)} hands; give one list of split indices a hand")
    return _offers(game, tables, hands, lists, k, checked=False)


def offer_hands(game: Game | str, hands: np.ndarray, num_players: int, offer: int) -> Offered:
    """:func:`offer` of hands ``(N, hand size)`` (card ids in slot order, :meth:`Game.slots`)
    with their candidates computed here (:meth:`Game.candidate_lists`), for callers without
    tables; ``game`` is a :class:`Game` or a game's name (its default preset)."""
    game = _game(game)
    k = check_offer(offer)
    tables = _tables_at(game, num_players)
    hands = _hands_in_order(game, hands)
    # Game.candidate_lists of the hands checked here, without checking them twice
    lists = candidate_lists(game.dominance_rows(hands), game.split_index) if len(hands) else []
    return _offers(game, tables, hands, lists, k, checked=True)


def _game(game: Any) -> Game:
    """``game`` itself, or the game a registered name names under its default preset;
    ValueError for anything else."""
    if isinstance(game, Game):
        return game
    from .games import game_names

    if isinstance(game, str) and game in game_names():
        return _default_game(game)
    raise ValueError(f"game {shown(game)} is neither a Game nor a registered game's name "
                     f"({', '.join(game_names())})")


@functools.cache
def _default_game(name: str) -> Game:
    """The game ``name`` under its default preset, once."""
    from .games import make_game

    return make_game(name)


def _hands_in_order(game: Game, hands: Any) -> np.ndarray:
    """Hands ``(N, hand size)`` of the game as an intp array (:meth:`Game.hands_array`);
    ValueError naming the first hand whose card ids are not ascending (not in slot order)."""
    hands = game.hands_array(hands, what="hands")
    if hands.shape[1] > 1:
        ascending = hands[:, 1:] > hands[:, :-1]
        if not ascending.all():
            bad = int(np.flatnonzero(~ascending.all(axis=1))[0])
            raise ValueError(f"hands[{bad}] ({format_cards(hands[bad])}) is not in slot order (card ids ascending); "
                             "pass game.slots(cards)")
    return hands


def _tables_at(game: Game, num_players: Any) -> _OfferTables:
    """The :class:`_OfferTables` of ``game`` at a table of ``num_players``; ValueError when
    the game does not allow it (:meth:`Game.check_players`, which an int meets on its first
    look-up, when the tables are built)."""
    if type(num_players) is not int:
        num_players = game.check_players(num_players)
    return _offer_tables(type(game), game.rules, num_players)


def _offers(game: Game, tables: _OfferTables, hands: np.ndarray, lists: Sequence[np.ndarray], k: int,
            checked: bool) -> Offered:
    """The offers of checked hands, :data:`OFFER_CHUNK` hands a pass."""
    size = len(hands)
    splits = np.full((size, k), -1, dtype=np.int64)
    features = np.zeros((size, k, tables.width), dtype=np.float32)
    if size == 1:
        counts = np.array([len(lists[0])], dtype=np.int64)
    else:
        counts = np.fromiter(map(len, lists), dtype=np.int64, count=size)
    for start in range(0, size, OFFER_CHUNK):
        part = slice(start, start + OFFER_CHUNK)
        _fill(game, tables, hands[part], lists[part], counts[part], checked, splits[part], features[part])
    return Offered(splits=splits, mask=splits >= 0, features=features, counts=counts)


def _fill(game: Game, tables: _OfferTables, hands: np.ndarray, lists: Sequence[np.ndarray], counts: np.ndarray,
          checked: bool, splits_out: np.ndarray, features_out: np.ndarray) -> None:
    """Write the offers of hands whose candidates are ``lists`` into ``splits_out`` (H, K)
    and ``features_out`` (H, K, F): every (hand, candidate) pair's rows found in the row
    tables with their heuristic terms, the pairs valued at once by the game, and each
    hand's first K in slot order written with their features (the two compiled passes of
    :mod:`.offer_kernels` around the game's NumPy)."""
    if checked:
        splits = lists[0] if len(lists) == 1 else np.concatenate(lists)
    else:
        splits = _checked_lists(game, counts, lists)
    if not len(splits):
        return
    kernels = _kernels()
    layout, rows = tables.layout, tables.rows
    # the rows' strengths come from the hands' subsets, all sizes in one array
    per_subset = game.subset_strengths(hands)
    flat = (per_subset[layout.sizes[0]].ravel() if len(layout.sizes) == 1
            else np.concatenate([per_subset[size].ravel() for size in layout.sizes]))
    found = np.empty((len(splits), 3), dtype=np.intp)
    terms = np.empty((3, len(splits), tables.terms.shape[1]))  # position by position
    kernels.pair_rows(flat, counts, splits, layout.columns, layout.widths, layout.bases, rows.shifts, rows.dense,
                      rows.keys, tables.terms, found, terms)
    values = game.heuristic_combined(terms[0], terms[1], terms[2], tables.num_players)  # the candidates are valid
    kernels.place_offers(values, found, splits, counts, rows.features, splits_out, features_out)


@functools.cache
def _kernels() -> Any:
    """:mod:`.offer_kernels`, compiled with numba: loaded on first use, so this module stays pure."""
    from . import offer_kernels

    return offer_kernels


@dataclasses.dataclass(frozen=True, eq=False)
class _Layout:
    """Where the rows of every split are among the subsets of a batch of hands whose subset
    strengths are laid out size after size (``sizes``, ascending), hand after hand: each
    split's subset id at each row position (``columns``, ``(n_actions, 3)``), per position
    the subsets of a hand of its size (``widths``) and the subsets of a hand of the smaller
    sizes (``bases``, times the hands)."""

    sizes: tuple[int, ...]
    columns: np.ndarray
    widths: np.ndarray
    bases: np.ndarray


@functools.cache
def _subset_layout(index: SplitIndex) -> _Layout:
    """The :class:`_Layout` of the splits of ``index``."""
    sizes = sorted(set(index.row_sizes))
    counts = {size: len(index.subsets(size)) for size in sizes}
    before = {size: sum(counts[other] for other in sizes[:at]) for at, size in enumerate(sizes)}
    return _Layout(sizes=tuple(sizes), columns=np.stack(split_columns(index), axis=1),
                   widths=np.array([counts[size] for size in index.row_sizes], dtype=np.intp),
                   bases=np.array([before[size] for size in index.row_sizes], dtype=np.intp))


def _checked_lists(game: Game, counts: np.ndarray, lists: Sequence[np.ndarray]) -> np.ndarray:
    """The candidate lists given to :func:`offer` (``counts`` long) as one intp array;
    ValueError naming the first that is not ascending split indices of the game."""
    owner = np.repeat(np.arange(len(counts)), counts)
    try:
        splits = np.concatenate([np.asarray(part) for part in lists])
    except (ValueError, TypeError):
        splits = np.zeros((0, 0))
    bad: int | None = None
    if splits.ndim != 1 or len(splits) != len(owner):  # a part that is not a list of numbers
        bad = next((i for i, part in enumerate(lists) if np.ndim(part) != 1), 0)
    elif splits.dtype.kind not in "iu":  # numbers that are not integers (an empty list reads as floats)
        bad = next((i for i, part in enumerate(lists) if len(part) and np.asarray(part).dtype.kind not in "iu"), None)
        splits = splits.astype(np.int64) if bad is None else splits
    if bad is None:
        wrong = (splits < 0) | (splits >= game.n_actions)
        wrong[1:] |= (np.diff(splits) <= 0) & (owner[1:] == owner[:-1])
        bad = int(owner[np.flatnonzero(wrong)[0]]) if wrong.any() else None
    if bad is not None:
        raise ValueError(f"lists[{bad}] {shown(lists[bad], 60)} is not a list of ascending split indices from 0 to "
                         f"{game.n_actions - 1}")
    return splits.astype(np.intp, copy=False)


def split_observation(observation: Any, game: Game | str, offer: int) -> tuple[np.ndarray, np.ndarray]:
    """The seat vector ``(..., D)`` and the offered features ``(..., K, F)`` of observations
    ``(..., D + K*F)`` of the offered-splits action space (any leading batch shape, views of
    ``observation``; ``game`` a :class:`Game` or a game's name); ValueError when the width
    does not match ``game`` and ``offer``."""
    from .observation import observation_size

    game = _game(game)
    k = check_offer(offer, game)
    array = np.asarray(observation)
    size, width = observation_size(game), offered_width(game)
    if array.ndim < 1 or array.shape[-1] != size + k * width:
        raise ValueError(f"observations of shape {array.shape} are not seat vectors ({size}) followed by {k} "
                         f"offered splits of {width} features ({size + k * width} values)")
    return array[..., :size], array[..., size:].reshape(*array.shape[:-1], k, width)
