"""Biji (比机) as a :class:`~splitpoker.envs.game.Game`: the rules engine of :mod:`.rules`
bound to the split index, with the solver's expected-value path (:mod:`.expected`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dominance import DominanceRows
from ..game import Game, Outcomes, Score
from ..reference import reference_rows
from ..splits import BIJI
from . import dominance, expected, heuristic
from . import rules as engine


class BijiGame(Game):
    name = "biji"
    env_module = "biji.env"
    rules_class = engine.BijiRules
    split_index = BIJI
    hand_size = engine.HAND_SIZE
    players = engine.PLAYERS
    row_names = engine.ROW_NAMES
    type_names = tuple(t.name.lower() for t in engine.GroupType)
    invalid_reason = "is not strictly increasing (pot 1 < pot 2 < pot 3)"
    invalid_name = "pots not increasing"
    summary = "比机 / 比鸡: 9 cards into three pots of 3"
    default_offer = 64

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

    def subset_strengths(self, slots: np.ndarray) -> dict[int, np.ndarray]:
        # the compiled kernel of the dominance keys: every group of many hands in one pass
        from .kernels import group_strengths_of_hands  # compiled with numba: loaded on first use

        hands = np.asarray(slots)
        return {3: group_strengths_of_hands(hands.reshape(-1, engine.HAND_SIZE), self.rules)
                .reshape(*hands.shape[:-1], -1)}

    def dominance_rows(self, slots: np.ndarray) -> DominanceRows:
        return dominance.dominance_rows(slots, self.rules)

    def heuristic_actions(self, hands: np.ndarray, num_players: int) -> np.ndarray:
        return heuristic.best_splits(hands, self.rules, reference_rows(self), num_players)

    def heuristic_row_terms(self, position: int, strengths: np.ndarray, num_players: int) -> np.ndarray:
        return heuristic.row_terms(position, strengths, self.rules, reference_rows(self), num_players)

    def heuristic_combined(self, first: np.ndarray, middle: np.ndarray, last: np.ndarray,
                           num_players: int) -> np.ndarray:
        return heuristic.combined(first, middle, last, self.rules, num_players)

    def heuristic_value_bounds(self, num_players: int) -> tuple[float, float]:
        return heuristic.value_bounds(self.rules, num_players)

    def row_bonuses(self, position: int, strengths: np.ndarray) -> np.ndarray:
        """The 喜 a pot earns by itself (顺清打头: a straight flush in pot 1), in 喜."""
        return heuristic.pot_bonuses(position, strengths, self.rules)

    def held_bonuses(self, rows: Sequence[Sequence[int]]) -> dict[str, int]:
        cards = np.sort(np.asarray(rows, dtype=np.int64).reshape(3, 3), axis=1)
        strengths = engine.group_strengths(cards, self.rules)[None]
        not_first = np.full((1, 3), 2, dtype=np.int64)  # the sweep (first in every pot) depends on the table
        held = engine.xi_table(cards.reshape(1, 9), strengths, not_first, self.rules)[0]
        return {name: int(count) for name, count in zip(engine.XI_NAMES, held) if count}

    def score(self, arrangements: Sequence[Sequence[Sequence[int]]]) -> engine.BijiScore:
        return engine.score_table(arrangements, self.rules)

    def score_batch(self, cards: np.ndarray) -> tuple[np.ndarray, Outcomes]:
        return engine.score_tables(cards, self.rules)

    def parse_arrangement(self, text: str | Sequence[Any]) -> list[list[int]]:
        return engine.parse_arrangement(text, self.rules)

    def split_totals(self, slots: np.ndarray, seat: int, num_players: int, opponent_seats: tuple[int, ...],
                     opponents: np.ndarray, splits: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        return expected.split_totals(self.subset_strengths(slots)[3], slots, num_players, opponents, self.rules,
                                     splits)

    def payoff_items(self, score: Score) -> list[dict[str, Any]]:
        """Per seat and pot: what its place paid or won; per 喜 bonus held: what every other
        seat pays its holder."""
        assert isinstance(score, engine.BijiScore)
        n = len(score.payoffs)
        items: list[dict[str, Any]] = []
        for seat in range(n):
            for k in range(3):
                amount = float(score.pot_payoffs[seat, k])
                if amount:
                    items.append({"seat": seat, "kind": "pot", "row": k, "against": None,
                                  "detail": f"place {int(score.places[seat, k])}", "amount": amount})
        unit = n - 1  # one 喜 = base × (players − 1)
        for holder, bonuses in enumerate(score.bonuses):
            for name, count in bonuses.items():
                for seat in range(n):
                    if seat != holder:
                        items.append({"seat": seat, "kind": "xi", "row": None, "against": holder,
                                      "detail": f"{name} ×{count}", "amount": -float(count * unit)})
                items.append({"seat": holder, "kind": "xi", "row": None, "against": None,
                              "detail": f"{name} ×{count}", "amount": float(count * unit * (n - 1))})
        return items

    def next_first_seat(self, first: int, score: Score, num_players: int) -> int:
        """The next hand is dealt from the seat after the winner of the third pot (of tied
        winners, the first counted from ``first``)."""
        assert isinstance(score, engine.BijiScore)
        winners = {int(s) for s in np.flatnonzero(score.places[:, 2] == 1)}
        winner = next(s % num_players for s in range(first, first + num_players) if s % num_players in winners)
        return (winner + 1) % num_players
