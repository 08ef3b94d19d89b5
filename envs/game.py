"""The interface every game implements: :class:`Game`, its table :class:`Score` and the typed
per-seat :class:`Outcomes`.

A :class:`Game` binds a rules configuration to the split index and answers the questions of
the one data flow: the slots of a hand, the strength of rows, the valid masks, the
arrangement of an index, the scores of a table and the expected payoffs the solver needs.
Each game is one package under ``envs/`` (``envs/thirteen``, ``envs/biji``) whose ``game``
module subclasses :class:`Game`; :mod:`splitpoker.envs.games` registers them. Pure:
standard library and NumPy.

>>> from splitpoker.envs.games import make_game
>>> game = make_game("biji", preset="no-jokers")
>>> game.n_actions, game.hand_size, game.players
(1680, 9, (2, 5))
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..runtime.arguments import is_whole
from .cards import RANK, check_card_ids, deck, format_cards
from .dominance import CANDIDATE, DominanceRows, candidate_lists, split_classes
from .splits import SplitIndex
from .strength import gather_rows, split_values, subset_strengths
from .switches import RuleSwitches


@dataclasses.dataclass(frozen=True)
class Outcomes:
    """What happened to each seat of a scored table, beyond its payoff (arrays over seats).

    ``rows_won[s, k]``: the share of the seat's opponents it beat in row ``k`` (Thirteen), or
    1.0 where it took first place in pot ``k`` (Biji); ``fouled``: the arrangement fouled;
    ``special``: the value of the special hand (报到) it was paid for, 0 for none;
    ``xi``: its 喜 count (Biji), 0 elsewhere."""

    payoffs: np.ndarray
    rows_won: np.ndarray
    fouled: np.ndarray
    special: np.ndarray
    xi: np.ndarray

    def seat(self, seat: int) -> dict[str, Any]:
        """One seat's outcome as plain values."""
        return {"payoff": float(self.payoffs[seat]), "rows_won": [float(x) for x in self.rows_won[seat]],
                "fouled": bool(self.fouled[seat]), "special": int(self.special[seat]), "xi": int(self.xi[seat])}


class Score(abc.ABC):
    """The scoring of one table: payoffs (summing to zero), each seat's row strengths and the
    game's breakdown."""

    payoffs: np.ndarray
    strengths: np.ndarray

    @abc.abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The whole breakdown as plain values (``payoffs`` first)."""

    @abc.abstractmethod
    def seat_breakdown(self, seat: int) -> dict[str, Any]:
        """The seat's part of :meth:`to_dict` (what the environments put in ``infos[agent]["score"]``)."""

    @abc.abstractmethod
    def outcomes(self) -> Outcomes:
        """The typed per-seat outcomes."""


class Game(abc.ABC):
    """A game under one rules configuration (see the module docstring)."""

    #: the registered name, e.g. ``"thirteen"``
    name: ClassVar[str]
    #: the game's PettingZoo module (``env``, ``raw_env``, ``parallel_env``), relative to
    #: ``splitpoker.envs`` (``"thirteen.env"``): served as ``splitpoker.envs.<name>_v0`` and
    #: registered as ``splitpoker/<name>_v0`` (:mod:`splitpoker.envs.registration`)
    env_module: ClassVar[str]
    #: the frozen rules dataclass of the game
    rules_class: ClassVar[type[RuleSwitches]]
    split_index: ClassVar[SplitIndex]
    hand_size: ClassVar[int]
    players: ClassVar[tuple[int, int]]
    row_names: ClassVar[tuple[str, str, str]]
    type_names: ClassVar[tuple[str, ...]]
    #: why a split outside the mask is invalid, for error messages
    invalid_reason: ClassVar[str] = "is not valid"
    #: what an invalid arrangement is called, for people
    invalid_name: ClassVar[str] = "invalid"
    #: a one-line description for listings
    summary: ClassVar[str] = ""
    #: how many of a hand's candidates are offered by default under the offered-splits
    #: action space (:mod:`splitpoker.envs.offered`)
    default_offer: ClassVar[int] = 256
    rules: RuleSwitches

    def __init__(self, rules: RuleSwitches) -> None:
        if not isinstance(rules, self.rules_class):
            raise TypeError(f"{type(self).__name__} needs {self.rules_class.__name__}, got {type(rules).__name__}")
        self.rules = rules

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.rules!r})"

    @property
    def n_actions(self) -> int:
        return self.split_index.n_actions

    @property
    def jokers(self) -> bool:
        """Whether the deck holds the two jokers."""
        return False

    def deck(self) -> np.ndarray:
        return deck(jokers=self.jokers)

    def check_players(self, n: Any) -> int:
        """``n`` as an int when a table of ``n`` seats is allowed; else ValueError."""
        lo, hi = self.players
        if not is_whole(n) or not lo <= n <= hi:
            raise ValueError(f"num_players={n!r} is not allowed for {self.name}; use {lo} to {hi}")
        self.check_table(int(n))
        return int(n)

    def check_table(self, num_players: int) -> None:
        """Raise ValueError when the rules do not fit a table of ``num_players`` seats."""
        return None

    def hands_array(self, slots: Any, what: str = "slots") -> np.ndarray:
        """Hands ``(N, hand size)`` of card ids as an intp array; ValueError naming ``what`` for
        another shape, an id that is not a card of the deck or a card twice in a hand (one
        vectorised pass, for the methods that take many hands at once)."""
        array = np.asarray(slots)
        if array.size == 0 and array.ndim <= 2:
            return np.zeros((0, self.hand_size), dtype=np.intp)
        if array.ndim != 2 or array.shape[1] != self.hand_size:
            raise ValueError(f"{what} of shape {array.shape} are not hands (N, {self.hand_size}) of card ids")
        check_card_ids(array, jokers=self.jokers, what=what)
        return np.asarray(array, dtype=np.intp)

    # ------------------------------------------------------------------ hands and rows

    @abc.abstractmethod
    def slots(self, hand: Sequence[int]) -> np.ndarray:
        """The hand validated and sorted into canonical slots."""

    @abc.abstractmethod
    def row_strengths(self, rows: np.ndarray) -> np.ndarray:
        """Strengths of a batch of rows of one size (card ids, sorted) → int64 ``(N,)``."""

    @abc.abstractmethod
    def strength_type(self, strengths: Any) -> Any:
        """The type (an index of :attr:`type_names`) of row strengths, vectorised."""

    @abc.abstractmethod
    def valid_rows(self, first: Any, middle: Any, last: Any) -> Any:
        """Validity of arrangements from their rows' strengths (vectorised): the one
        definition of a valid arrangement (Thirteen: no foul; Biji: increasing pots)."""

    def valid_arrangements(self, cards: np.ndarray) -> np.ndarray:
        """Validity of arranged hands ``(..., hand size)`` (card ids row by row, each row in
        slot order) → bool ``(...)``: :meth:`valid_rows` of their rows' strengths."""
        strengths = self.arranged_strengths(cards)
        return np.asarray(self.valid_rows(strengths[..., 0], strengths[..., 1], strengths[..., 2]), dtype=bool)

    def arranged_strengths(self, cards: np.ndarray) -> np.ndarray:
        """The rows' strengths of arranged hands ``(..., hand size)`` (card ids row by row,
        each row in slot order) → int64 ``(..., 3)``."""
        bounds = np.cumsum((0, *self.split_index.row_sizes))
        shape = cards.shape[:-1]
        return np.stack([self.row_strengths(cards[..., a:b].reshape(-1, b - a)).reshape(shape)
                         for a, b in zip(bounds[:-1], bounds[1:])], axis=-1)

    def split_row_strengths(self, hands: np.ndarray, splits: np.ndarray) -> np.ndarray:
        """The rows' strengths of hands ``(..., hand size)`` (slot order) played as split
        indices ``(...)`` → int64 ``(..., 3)``: :meth:`arranged_strengths` of :meth:`arranged`."""
        return self.arranged_strengths(self.arranged(hands, splits))

    def subset_strengths(self, slots: np.ndarray) -> dict[int, np.ndarray]:
        """Strength of every subset of the hand's slots, per row size: ``{size: (subsets,)}``;
        of hands ``(H, hand size)``, ``{size: (H, subsets)}``."""
        return subset_strengths(slots, self.split_index, self.row_strengths)

    def split_strengths(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three rows' strengths of every split (from :meth:`subset_strengths`)."""
        return gather_rows(self.subset_strengths(slots), self.split_index)

    def valid_mask(self, slots: np.ndarray) -> np.ndarray:
        """Boolean mask over the splits of one hand: True where the split is valid."""
        return self.valid_rows(*self.split_strengths(slots))

    def valid_masks(self, slots: np.ndarray) -> np.ndarray:
        """Masks of many hands ``(N, hand size)`` → ``(N, n_actions)`` bool, equal to
        :meth:`valid_mask` hand by hand: every subset of every hand in one
        :meth:`row_strengths` call per row size, gathered into every split (no hands: an
        empty ``(0, n_actions)`` array)."""
        slots = self.hands_array(slots)
        if len(slots) == 0:
            return np.zeros((0, self.n_actions), dtype=bool)
        return self.valid_rows(*split_values(slots, self.split_index, self.row_strengths))

    @abc.abstractmethod
    def dominance_rows(self, slots: np.ndarray) -> DominanceRows:
        """The dominance keys of hands ``(N, hand size)`` (slot order), per subset of each row
        position (each game's ``dominance`` module; :mod:`splitpoker.envs.dominance`)."""

    def split_classes(self, slots: np.ndarray, valid: bool = True) -> np.ndarray:
        """Every split of hands ``(N, hand size)`` classified in one compiled pass: int8
        ``(N, n_actions)``, 0 invalid, 1 valid but dominated, 2 a candidate (undominated).
        ``valid=False`` tells only the candidates apart (2; every other split 0 or 1), faster."""
        slots = self.hands_array(slots)
        if len(slots) == 0:
            return np.zeros((0, self.n_actions), dtype=np.int8)
        return split_classes(self.dominance_rows(slots), self.split_index, valid)

    def candidate_masks(self, slots: np.ndarray) -> np.ndarray:
        """The candidates (undominated valid splits) of hands ``(N, hand size)``: bool
        ``(N, n_actions)``."""
        return self.split_classes(slots, valid=False) == CANDIDATE

    def candidate_lists(self, slots: np.ndarray) -> list[np.ndarray]:
        """The candidates of hands ``(N, hand size)`` as split indices (int64, ascending), one
        array per hand: :meth:`candidate_masks` without the ``(N, n_actions)`` array."""
        slots = self.hands_array(slots)
        if len(slots) == 0:
            return []
        return candidate_lists(self.dominance_rows(slots), self.split_index)

    def candidate_mask(self, slots: np.ndarray) -> np.ndarray:
        """The candidates of one hand (slot order): bool ``(n_actions,)``."""
        return self.candidate_masks(np.asarray(slots)[None])[0]

    def strongest_rows(self, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per hand of a batch ``(H, hand size)``: the subset id of the strongest last row
        (first of equals) and of the strongest middle row disjoint from it."""
        from .strength import strongest_rows

        return strongest_rows(np.asarray(hands, dtype=np.intp), self.split_index, self.row_strengths)

    def compares_rows(self, hands: np.ndarray) -> np.ndarray:
        """Whether each hand of a batch ``(H, hand size)`` is paid by comparing its rows (not,
        say, a special hand whose arrangement is ignored): bool ``(H,)``."""
        return np.ones(len(hands), dtype=bool)

    @abc.abstractmethod
    def heuristic_actions(self, hands: np.ndarray, num_players: int) -> np.ndarray:
        """The ``heuristic`` agent's splits of hands ``(H, hand size)`` (slot order) at a table
        of ``num_players``: per hand, the valid split of the highest value, its expected
        payoff against rows drawn from :func:`splitpoker.envs.reference.reference_rows`
        (each game's ``heuristic`` module defines the value)."""

    @abc.abstractmethod
    def heuristic_row_terms(self, position: int, strengths: np.ndarray, num_players: int) -> np.ndarray:
        """The terms ``(..., m)`` (float) of rows of ``strengths`` ``(...)`` standing at row
        ``position`` that the ``heuristic`` agent's value of a split combines
        (:meth:`heuristic_combined`; each game's ``heuristic`` module says which): a
        function of the row's strength and position alone, so a table of them per strength
        serves every split."""

    @abc.abstractmethod
    def heuristic_combined(self, first: np.ndarray, middle: np.ndarray, last: np.ndarray,
                           num_players: int) -> np.ndarray:
        """The ``heuristic`` agent's value (float ``(...)``) of valid splits whose three rows
        have the :meth:`heuristic_row_terms` ``first``, ``middle`` and ``last`` ``(..., m)``."""

    def heuristic_values_of(self, strengths: np.ndarray, num_players: int) -> np.ndarray:
        """The ``heuristic`` agent's value (float ``(...)``) of splits whose rows have
        ``strengths`` ``(..., 3)`` at a table of ``num_players``, the value
        :meth:`heuristic_actions` maximises: :meth:`heuristic_combined` of the rows'
        :meth:`heuristic_row_terms`, ``-inf`` where the split is invalid."""
        rows = [np.asarray(strengths, dtype=np.int64)[..., k] for k in range(3)]
        first, middle, last = (self.heuristic_row_terms(k, row, num_players) for k, row in enumerate(rows))
        return np.where(self.valid_rows(*rows), self.heuristic_combined(first, middle, last, num_players), -np.inf)

    def heuristic_values_at(self, hands: np.ndarray, splits: np.ndarray, num_players: int) -> np.ndarray:
        """The ``heuristic`` agent's value of hands ``(..., hand size)`` (slot order) played
        as split indices ``(...)``, computed at those splits only: float ``(...)``."""
        return self.heuristic_values_of(self.split_row_strengths(hands, splits), num_players)

    @abc.abstractmethod
    def heuristic_value_bounds(self, num_players: int) -> tuple[float, float]:
        """The lowest and highest :meth:`heuristic_values_of` of a valid split at a table of
        ``num_players`` (finite bounds, not necessarily reached)."""

    def row_bonuses(self, position: int, strengths: np.ndarray) -> np.ndarray:
        """What rows of ``strengths`` ``(...)`` standing at row ``position`` are paid beyond
        a plain win when they win, under these rules, in the game's units: float ``(...)``
        (0 in a game without row bonuses)."""
        return np.zeros(np.shape(strengths))

    # ------------------------------------------------------------------ arrangements and scores

    @abc.abstractmethod
    def score(self, arrangements: Sequence[Sequence[Sequence[int]]]) -> Score:
        """Score a table of arrangements (rows of card ids per seat, seat order)."""

    def score_batch(self, cards: np.ndarray) -> tuple[np.ndarray, Outcomes]:
        """The payoffs (B, players) and typed outcomes (leading B axis) of B tables of valid
        arrangements, ``cards`` (B, players, hand size) row by row: the numbers of
        :meth:`score` table by table. This default scores table by table; a game overrides it
        with its engine's vectorised scoring."""
        cuts = np.cumsum(self.split_index.row_sizes)[:-1]
        outcomes = [self.score([[row.tolist() for row in np.split(hand, cuts)] for hand in table]).outcomes()
                    for table in np.asarray(cards)]
        stacked = Outcomes(**{field.name: np.stack([getattr(o, field.name) for o in outcomes])
                              for field in dataclasses.fields(Outcomes)})
        return stacked.payoffs, stacked

    @abc.abstractmethod
    def parse_arrangement(self, text: str | Sequence[Any]) -> list[list[int]]:
        """Read ``"row | row | row"`` into three rows of card ids (validated)."""

    @abc.abstractmethod
    def split_totals(self, slots: np.ndarray, seat: int, num_players: int, opponent_seats: tuple[int, ...],
                     opponents: np.ndarray, splits: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The solver's exact expected-value path: the valid splits of ``slots`` (ascending;
        or ``splits``, valid split indices in ascending order, such as the candidates) and,
        for each, the sum over the sampled tables of ``score(table).payoffs[seat]``.
        ``opponents`` (samples, players - 1, hand size) are the other seats' arrangements,
        card ids row by row, each row sorted."""

    def type_name(self, strength: int) -> str:
        return self.type_names[int(self.strength_type(strength))]

    def arrangement(self, slots: Sequence[int], index: int) -> list[list[int]]:
        """The rows of card ids that split ``index`` makes of a hand in slot order."""
        return [[int(slots[s]) for s in row] for row in self.split_index.decode(index)]

    def arranged(self, hands: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Card ids row by row (each row in slot order) of hands ``(..., hand size)`` played as
        split indices ``(...)``: the batched :meth:`arrangement`."""
        slot_rows = self.split_index.slot_table[np.asarray(actions)].astype(np.intp)
        return np.take_along_axis(np.asarray(hands), slot_rows, axis=-1)

    def index_of(self, slots: Sequence[int], rows: Sequence[Sequence[int]]) -> int:
        """The split index of an arrangement of the hand whose slots are given."""
        position = {int(c): i for i, c in enumerate(slots)}
        missing = [c for r in rows for c in r if int(c) not in position]
        if missing:
            raise ValueError(f"card {format_cards(missing[:1])} is not in the hand {format_cards(slots)}")
        return self.split_index.encode([[position[int(c)] for c in r] for r in rows])

    def describe_rows(self, rows: Sequence[Sequence[int]]) -> list[str]:
        """The type name of each row of an arrangement."""
        return [self.type_name(int(self.row_strengths(np.sort(np.asarray(r, dtype=np.intp))[None])[0])) for r in rows]

    def held_bonuses(self, rows: Sequence[Sequence[int]]) -> dict[str, int]:
        """The bonuses a valid arrangement (rows of card ids) is paid whatever the other
        seats hold, by name, each with its count (Biji's 喜 but the sweep, which depends on
        the table); none in a game without such bonuses."""
        return {}

    @staticmethod
    def role_order(row: Sequence[int]) -> list[int]:
        """The cards of a row in the order a player reads what it makes: the jokers first,
        then the ranks by the size of their group and by rank, highest first (the order in
        which rows of one type are compared); a run with the ace low ends with the ace.

        >>> from splitpoker.envs.cards import format_cards, parse_cards
        >>> format_cards(Game.role_order(parse_cards("2c 2h Kc Kh Ks")))
        'Ks Kh Kc 2h 2c'
        >>> format_cards(Game.role_order(parse_cards("Ah 2c 3d 4s 5h")))
        '5h 4s 3d 2c Ah'
        """
        ranks = [int(RANK[c]) for c in row]
        count = {r: ranks.count(r) for r in ranks}
        low_ace = len(count) == len(ranks) > 1 and set(count) == {12, *range(len(ranks) - 1)}

        def key(card: int) -> tuple[int, int, int]:
            rank = int(RANK[card])
            if rank < 0:
                return (0, 0, -card)
            return (1, -count[rank], 1 if low_ace and rank == 12 else -rank)

        return sorted((int(c) for c in row), key=lambda c: (*key(c), -c))

    @abc.abstractmethod
    def payoff_items(self, score: Score) -> list[dict[str, Any]]:
        """The payoffs of a scored table item by item, each from one seat's side: ``seat``,
        ``kind`` (Thirteen: ``row``, ``royalty``, ``majority``, ``special``, ``scoop``,
        ``home_run``; Biji: ``pot``, ``xi``), ``row`` (an index, or None), ``against`` (the
        other seat of a pairwise item, or None), ``detail`` (text) and ``amount``. The
        amounts of a seat sum to its payoff; items of amount 0 are left out."""

    # ------------------------------------------------------------------ the flow of a match

    #: hands in a row that one seat keeps the bank (under rules with a banker)
    banker_term: ClassVar[int] = 1

    def banker(self) -> int | None:
        """The banker's seat under these rules; None when no seat is the banker."""
        return None

    def with_banker(self, seat: int) -> Game:
        """The same game with the bank at ``seat`` (only under rules with a banker)."""
        raise ValueError(f"{self.name} under these rules has no banker")

    def next_first_seat(self, first: int, score: Score, num_players: int) -> int:
        """The seat dealt the first card of the next hand of a match, after a hand dealt
        first to ``first`` and scored ``score``: by default the next seat round the table."""
        return (first + 1) % num_players

    # ------------------------------------------------------------------ observations

    def seat_features(self, seat: int, num_players: int) -> tuple[float, ...]:
        """Observation values about the seat's role at the table (e.g. who the banker is),
        one per label of :meth:`seat_feature_labels`."""
        return ()

    @classmethod
    def seat_feature_labels(cls) -> tuple[str, ...]:
        return ()
