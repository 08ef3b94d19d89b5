"""Thirteen (十三张) as a :class:`~splitpoker.envs.game.Game`: the rules engine of
:mod:`.rules` bound to the split index, with the solver's expected-value path
(:mod:`.expected`) and the compiled strongest-rows kernel (:mod:`.kernels`, which needs
numba and is imported on first use: importing the game imports only NumPy)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..dominance import DominanceRows, valid_splits
from ..game import Game, Outcomes, Score
from ..reference import reference_rows
from ..splits import THIRTEEN
from . import dominance, expected, heuristic, scoring, specials
from . import rules as engine


class ThirteenGame(Game):
    name = "thirteen"
    env_module = "thirteen.env"
    rules_class = engine.ThirteenRules
    split_index = THIRTEEN
    hand_size = engine.HAND_SIZE
    players = engine.PLAYERS
    row_names = engine.ROW_NAMES
    type_names = tuple(t.name.lower() for t in engine.HandType)
    invalid_reason = "fouls"
    invalid_name = "foul (倒水)"
    summary = "十三张 / 十三水, Chinese poker: 13 cards into rows of 3, 5 and 5"
    default_offer = 256

    rules: engine.ThirteenRules

    def check_table(self, num_players: int) -> None:
        scoring.compared_pairs(num_players, self.rules)  # a banker seat outside the table

    def slots(self, hand: Sequence[int]) -> np.ndarray:
        return engine.hand_slots(hand)

    def valid_mask(self, slots: np.ndarray) -> np.ndarray:
        return engine.valid_mask(slots, self.rules)

    def valid_masks(self, slots: np.ndarray) -> np.ndarray:
        # the subsets' validity values of the dominance rows, compared split by split in one compiled pass
        slots = self.hands_array(slots)
        if not len(slots):
            return np.zeros((0, self.n_actions), dtype=bool)
        return valid_splits(self.dominance_rows(slots), self.split_index)

    def row_strengths(self, rows: np.ndarray) -> np.ndarray:
        return engine.row_strengths(rows, self.rules)

    def strength_type(self, strengths: Any) -> Any:
        return engine.strength_type(strengths)

    def valid_rows(self, first: Any, middle: Any, last: Any) -> Any:
        return engine.valid_strengths(first, middle, last)

    def valid_arrangements(self, cards: np.ndarray) -> np.ndarray:
        # fouls compare types and ranks only: the cheaper rank-only strengths suffice
        shape = cards.shape[:-1]
        flat = cards.reshape(-1, engine.HAND_SIZE)
        front = engine.rank_only_strengths(flat[:, :3], self.rules)
        middle, back = engine.rank_only_strengths(flat[:, 3:].reshape(-1, 5), self.rules).reshape(-1, 2).T
        return np.asarray(engine.no_foul(front, middle, back), dtype=bool).reshape(shape)

    def subset_strengths(self, slots: np.ndarray) -> dict[int, np.ndarray]:
        # the compiled kernel of the candidates' sweep: every subset of many hands in one pass
        from . import kernels  # compiled with numba: loaded on first use, so the game stays pure

        hands = np.asarray(slots)
        s3, _, s5, _ = kernels.subset_strengths(hands.reshape(-1, engine.HAND_SIZE), self.rules)
        return {3: s3.reshape(*hands.shape[:-1], -1), 5: s5.reshape(*hands.shape[:-1], -1)}

    def strongest_rows(self, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        from . import kernels  # compiled with numba: loaded on first use, so the game stays pure

        return kernels.strongest_rows(hands, self.rules)

    def dominance_rows(self, slots: np.ndarray) -> DominanceRows:
        return dominance.dominance_rows(slots, self.rules)

    def compares_rows(self, hands: np.ndarray) -> np.ndarray:
        return specials.special_hands(hands, self.rules)[1] == 0

    def heuristic_actions(self, hands: np.ndarray, num_players: int) -> np.ndarray:
        return heuristic.best_splits(hands, self.rules, reference_rows(self), num_players)

    def heuristic_row_terms(self, position: int, strengths: np.ndarray, num_players: int) -> np.ndarray:
        return heuristic.row_terms(position, strengths, self.rules, reference_rows(self))

    def heuristic_combined(self, first: np.ndarray, middle: np.ndarray, last: np.ndarray,
                           num_players: int) -> np.ndarray:
        return heuristic.combined(first, middle, last, self.rules)

    def heuristic_value_bounds(self, num_players: int) -> tuple[float, float]:
        return heuristic.value_bounds(self.rules)

    def row_bonuses(self, position: int, strengths: np.ndarray) -> np.ndarray:
        """The row's royalty: its value at that position above the 1 point of a plain win
        (:func:`.scoring.value_table`; 0 for a row that is not paid)."""
        values = scoring.value_table(self.rules)[position].take(engine.strength_type(strengths))
        return np.maximum(values - 1, 0).astype(float)

    def score(self, arrangements: Sequence[Sequence[Sequence[int]]]) -> scoring.ThirteenScore:
        return scoring.score_table(arrangements, self.rules)

    def score_batch(self, cards: np.ndarray) -> tuple[np.ndarray, Outcomes]:
        return scoring.score_tables(cards, self.rules)

    def parse_arrangement(self, text: str | Sequence[Any]) -> list[list[int]]:
        return engine.parse_arrangement(text)

    def split_totals(self, slots: np.ndarray, seat: int, num_players: int, opponent_seats: tuple[int, ...],
                     opponents: np.ndarray, splits: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        return expected.split_totals(self.subset_strengths(slots), slots, seat, num_players, opponent_seats,
                                     opponents, self.rules, splits)

    def payoff_items(self, score: Score) -> list[dict[str, Any]]:
        """Per compared pair and row: the row's base point and its royalty (the row value
        above 1); the majority point (``two_four``), a special hand's value, and what a
        scoop and a home run add."""
        assert isinstance(score, scoring.ThirteenScore)
        items: list[dict[str, Any]] = []

        def add(i: int, j: int, kind: str, row: int | None, detail: str, amount: float) -> None:
            if amount:
                items.append({"seat": i, "kind": kind, "row": row, "against": j, "detail": detail,
                              "amount": float(amount)})
                items.append({"seat": j, "kind": kind, "row": row, "against": i, "detail": detail,
                              "amount": -float(amount)})

        for pair in score.pairs:
            i, j = pair["seats"]
            for k, points in enumerate(pair["rows"]):
                base = (points > 0) - (points < 0)
                add(i, j, "row", k, self.row_names[k], base)
                add(i, j, "royalty", k, self.row_names[k], points - base)
            add(i, j, "majority", None, "more rows won", pair["majority"])
            holder = i if pair["special"] > 0 else j
            add(i, j, "special", None, score.special_names[holder], pair["special"])
            add(i, j, "scoop", None, "all three rows", pair["scoop"])
            add(i, j, "home_run", None, "scooped every opponent", pair["home_run"])
        return items

    banker_term = 4  # 每人坐庄四盘: each player keeps the bank four hands

    def banker(self) -> int | None:
        return self.rules.banker_seat if self.rules.scoring == "banker" else None

    def with_banker(self, seat: int) -> ThirteenGame:
        if self.banker() is None:
            return super().with_banker(seat)  # type: ignore[return-value]
        return ThirteenGame(self.rules.replace(banker_seat=seat))

    def seat_features(self, seat: int, num_players: int) -> tuple[float, ...]:
        """Under banker scoring, where the banker sits relative to the seat (one-hot: 0 the
        seat itself, 1 the next seat, …); all zero under other scoring."""
        features = [0.0] * self.players[1]
        if self.rules.scoring == "banker":
            features[(self.rules.banker_seat - seat) % num_players] = 1.0
        return tuple(features)

    @classmethod
    def seat_feature_labels(cls) -> tuple[str, ...]:
        return tuple(f"banker_offset_{k}" for k in range(cls.players[1]))
