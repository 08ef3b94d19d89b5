"""The ``heuristic`` agent: a fast hand-written arranger that plays the valid split of the
highest value, a split's value being its expected payoff against opponents whose rows are
drawn, position by position, from the rows a greedy player sets (each game's
:meth:`~splitpoker.envs.game.Game.heuristic_actions`: envs/thirteen/heuristic.py and
envs/biji/heuristic.py).

So it sets the strongest back and middle it can without wasting strength, keeps a pair for
the front when the back and middle hold without it, and chases the royalties, the scoop,
the majority point and the 喜 bonuses the rules pay. Deterministic (ties: the lowest
index).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..envs.game import Game
from ..envs.table import SeatView, stacked_slots
from .base import Agent, check_table_size, within_masks
from .specs import AgentSpec

__all__ = ["HeuristicAgent", "heuristic_actions"]


def heuristic_actions(game: Game, hands: np.ndarray, num_players: int) -> np.ndarray:
    """The heuristic split of every hand of a batch: ``hands`` (H, hand size) card ids in slot
    order → (H,) split indices."""
    num_players = game.check_players(num_players)
    hands = np.asarray(hands, dtype=np.intp)
    if hands.ndim != 2 or hands.shape[1] != game.hand_size:
        raise ValueError(f"hands of shape {hands.shape} are not a batch of {game.hand_size}-card {game.name} hands")
    if len(hands) == 0:
        return np.empty(0, dtype=np.int64)
    return np.asarray(game.heuristic_actions(hands, num_players), dtype=np.int64)


class HeuristicAgent(Agent):
    """Deterministic: the valid split of the highest heuristic value (where a view's mask
    holds only the candidates and leaves it out, the candidate that beats it)."""

    name = "heuristic"

    def __init__(self, game: Game, num_players: int) -> None:
        self.game = game
        self.num_players = game.check_players(num_players)
        # build the reference rows and load the compiled kernel now, so decisions are timed alone
        heuristic_actions(game, game.slots(game.deck()[:game.hand_size])[None], self.num_players)

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        if not views:
            return np.empty(0, dtype=np.int64)
        check_table_size(self, self.num_players, views)
        return within_masks(self.game, views,
                            heuristic_actions(self.game, stacked_slots(views), self.num_players))


def heuristic_agent(spec: AgentSpec, game: Game, num_players: int, seed: int | None) -> HeuristicAgent:
    return HeuristicAgent(game, num_players)
