"""Biji (比机) as a :class:`~splitpoker.envs.game.Game`: the rules engine of :mod:`.rules`
bound to the split index, with the solver's expected-value path (:mod:`.expected`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..game import Game
from ..splits import BIJI
from . import expected
from . import rules as engine


class BijiGame(Game):
    name = "biji"
    env_module = "biji_v0"
    rules_class = engine.BijiRules
    split_index = BIJI
    hand_size = engine.HAND_SIZE
    players = engine.PLAYERS
    row_names = engine.ROW_NAMES
    type_names = tuple(t.name.lower() for t in engine.GroupType)
    invalid_reason = "is not strictly increasing (pot 1 < pot 2 < pot 3)"
    summary = "比机 / 比鸡: 9 cards into three pots of 3"

    rules: engine.BijiRules

    @property
    def jokers(self) -> bool:
        return self.rules.has_jokers

    def slots(self, hand: Sequence[int]) -> np.ndarray:
        return engine.hand_slots(hand, self.rules)

    def valid_mask(self, slots: np.ndarray) -> np.ndarray:
        return engine.valid_mask(slots, self.rules)

    def row_strengths(self, rows: np.ndarray) -> np.ndarray:
        return engine.group_strengths(rows, self.rules)

    def strength_type(self, strengths: Any) -> Any:
        return engine.strength_type(strengths)

    def valid_rows(self, first: Any, middle: Any, last: Any) -> Any:
        return engine.increasing_pots(first, middle, last)

    def score(self, arrangements: Sequence[Sequence[Sequence[int]]]) -> engine.BijiScore:
        return engine.score_table(arrangements, self.rules)

    def parse_arrangement(self, text: str | Sequence[Any]) -> list[list[int]]:
        return engine.parse_arrangement(text, self.rules)

    def split_totals(self, slots: np.ndarray, seat: int, num_players: int, opponent_seats: tuple[int, ...],
                     opponents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return expected.split_totals(self.subset_strengths(slots)[3], slots, num_players, opponents, self.rules)
