"""One interface over the two games' rules, for environments, agents and evaluation.

A :class:`Game` binds a rules configuration to the split index and answers the questions of
the one data flow: the slots of a hand, every split's row strengths, the valid mask, the
arrangement of an index, and the scores of a table. Pure: standard library and NumPy.

>>> game = make_game("biji", preset="no-jokers")
>>> game.n_actions, game.hand_size, game.players
(1680, 9, (2, 5))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from .biji import rules as biji
from .cards import deck, format_cards
from .splits import BIJI, THIRTEEN, SplitIndex
from .strength import gather_rows, subset_strengths
from .switches import RuleSwitches
from .thirteen import rules as thirteen

GAMES = ("thirteen", "biji")


class Game:
    """A game under one rules configuration."""

    name: ClassVar[str]
    split_index: ClassVar[SplitIndex]
    hand_size: ClassVar[int]
    players: ClassVar[tuple[int, int]]
    row_names: ClassVar[tuple[str, str, str]]
    type_names: ClassVar[tuple[str, ...]]
    rules: RuleSwitches

    def __init__(self, rules: RuleSwitches) -> None:
        self.rules = rules

    @property
    def n_actions(self) -> int:
        return self.split_index.n_actions

    @property
    def jokers(self) -> bool:
        return False

    def deck(self) -> np.ndarray:
        return deck(jokers=self.jokers)

    def check_players(self, n: int) -> int:
        lo, hi = self.players
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not lo <= n <= hi:
            raise ValueError(f"num_players={n!r} is not allowed for {self.name}; use {lo} to {hi}")
        return int(n)

    def slots(self, hand: Sequence[int]) -> np.ndarray:
        """The hand validated and sorted into canonical slots."""
        raise NotImplementedError

    def subset_strengths(self, slots: np.ndarray) -> dict[int, np.ndarray]:
        """Strength of every subset of the hand's slots, per row size."""
        return subset_strengths(slots, self.split_index, self.row_strengths)

    def split_strengths(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The three rows' strengths of every split (from :meth:`subset_strengths`)."""
        return gather_rows(self.subset_strengths(slots), self.split_index)

    def valid_mask(self, slots: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def row_strengths(self, rows: np.ndarray) -> np.ndarray:
        """Strengths of a batch of rows of one size (card ids, sorted)."""
        raise NotImplementedError

    def valid_rows(self, first: np.ndarray, middle: np.ndarray, last: np.ndarray) -> np.ndarray:
        """Validity of arrangements from their rows' strengths (vectorised)."""
        raise NotImplementedError

    def score(self, arrangements: Sequence[Sequence[Sequence[int]]]) -> Any:
        """Score a table; the result has ``payoffs`` and ``to_dict()``."""
        raise NotImplementedError

    def parse_arrangement(self, text: str | Sequence[Any]) -> list[list[int]]:
        raise NotImplementedError

    def type_name(self, strength: int) -> str:
        raise NotImplementedError

    def arrangement(self, slots: Sequence[int], index: int) -> list[list[int]]:
        """The rows of card ids that split ``index`` makes of a hand in slot order."""
        return [[int(slots[s]) for s in row] for row in self.split_index.decode(index)]

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


class ThirteenGame(Game):
    name = "thirteen"
    split_index = THIRTEEN
    hand_size = thirteen.HAND_SIZE
    players = thirteen.PLAYERS
    row_names = thirteen.ROW_NAMES
    type_names = tuple(t.name.lower() for t in thirteen.HandType)

    rules: thirteen.ThirteenRules

    def slots(self, hand: Sequence[int]) -> np.ndarray:
        return thirteen.hand_slots(hand)

    def valid_mask(self, slots: np.ndarray) -> np.ndarray:
        return thirteen.valid_mask(slots, self.rules)

    def row_strengths(self, rows: np.ndarray) -> np.ndarray:
        return thirteen.row_strengths(rows, self.rules)

    def valid_rows(self, first: np.ndarray, middle: np.ndarray, last: np.ndarray) -> np.ndarray:
        return thirteen.valid_strengths(first, middle, last)

    def score(self, arrangements: Sequence[Sequence[Sequence[int]]]) -> thirteen.ThirteenScore:
        return thirteen.score_table(arrangements, self.rules)

    def parse_arrangement(self, text: str | Sequence[Any]) -> list[list[int]]:
        return thirteen.parse_arrangement(text)

    def type_name(self, strength: int) -> str:
        return self.type_names[int(thirteen.strength_type(strength))]


class BijiGame(Game):
    name = "biji"
    split_index = BIJI
    hand_size = biji.HAND_SIZE
    players = biji.PLAYERS
    row_names = biji.ROW_NAMES
    type_names = tuple(t.name.lower() for t in biji.GroupType)

    rules: biji.BijiRules

    @property
    def jokers(self) -> bool:
        return self.rules.has_jokers

    def slots(self, hand: Sequence[int]) -> np.ndarray:
        return biji.hand_slots(hand, self.rules)

    def valid_mask(self, slots: np.ndarray) -> np.ndarray:
        return biji.valid_mask(slots, self.rules)

    def row_strengths(self, rows: np.ndarray) -> np.ndarray:
        return biji.group_strengths(rows, self.rules)

    def valid_rows(self, first: np.ndarray, middle: np.ndarray, last: np.ndarray) -> np.ndarray:
        return (first < middle) & (middle < last)

    def score(self, arrangements: Sequence[Sequence[Sequence[int]]]) -> biji.BijiScore:
        return biji.score_table(arrangements, self.rules)

    def parse_arrangement(self, text: str | Sequence[Any]) -> list[list[int]]:
        return biji.parse_arrangement(text, self.rules)

    def type_name(self, strength: int) -> str:
        return self.type_names[int(biji.strength_type(strength))]


RULES_CLASSES: dict[str, type[RuleSwitches]] = {"thirteen": thirteen.ThirteenRules, "biji": biji.BijiRules}
GAME_CLASSES: dict[str, type[Game]] = {"thirteen": ThirteenGame, "biji": BijiGame}


def check_game(name: str) -> str:
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    return name


def make_rules(game: str, preset: str = "classic", switches: Mapping[str, Any] | None = None) -> RuleSwitches:
    """The rules of ``game``: a preset with switches overridden."""
    return RULES_CLASSES[check_game(game)].preset(preset, **dict(switches or {}))


def make_game(game: str, preset: str = "classic", **switches: Any) -> Game:
    """A :class:`Game` for ``game`` ("thirteen" or "biji") under a preset and switch overrides."""
    rules = make_rules(game, preset, switches)
    return GAME_CLASSES[game](rules)


def game_of(rules: RuleSwitches) -> Game:
    """The :class:`Game` of a rules object."""
    return GAME_CLASSES[rules.GAME](rules)
