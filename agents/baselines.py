"""Baseline agents: ``random`` (uniform over valid splits) and ``greedy`` (strongest last
row, then strongest middle row among the valid splits)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..envs.game import Game
from ..envs.strength import gather_rows, split_of_rows
from ..envs.table import SeatView, stacked_slots
from ..runtime.seeding import as_generator
from .base import Agent, within_masks
from .specs import AgentSpec

__all__ = ["RandomAgent", "GreedyAgent", "greedy_actions", "greedy_index"]


class RandomAgent(Agent):
    """Uniform over the valid splits of the mask; seeded, independent of the global RNG."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = as_generator(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = as_generator(seed)

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        out = np.empty(len(views), dtype=np.int64)
        for i, view in enumerate(views):
            valid = view.allowed
            if len(valid) == 0:
                raise ValueError("the action mask has no valid split")
            out[i] = valid[self.rng.integers(len(valid))]
        return out


def greedy_actions(game: Game, hands: np.ndarray) -> np.ndarray:
    """The greedy split of every hand of a batch: ``hands`` (H, hand size) card ids in slot
    order → (H,) split indices.

    The strongest last row of the hand, then the strongest middle row of the rest
    (:meth:`Game.strongest_rows`), is valid, except under Thirteen's
    ``flush_compare=suit_first``, where a flush of a stronger suit can be weaker by ranks
    than the middle row (a foul); for such a hand the valid split with the strongest last
    row, then middle row (then the lowest index) is searched among all splits."""
    hands = np.asarray(hands, dtype=np.intp)
    if hands.ndim != 2 or hands.shape[1] != game.hand_size:
        raise ValueError(f"hands of shape {hands.shape} are not a batch of {game.hand_size}-card {game.name} hands")
    if len(hands) == 0:
        return np.empty(0, dtype=np.int64)
    index = game.split_index
    last, middle = game.strongest_rows(hands)
    actions = split_of_rows(index, middle, last)
    for i in np.flatnonzero(~game.valid_arrangements(game.arranged(hands, actions))):
        first_s, middle_s, last_s = gather_rows(game.subset_strengths(hands[i]), index)
        valid = np.flatnonzero(game.valid_rows(first_s, middle_s, last_s))
        actions[i] = valid[np.lexsort((-valid, middle_s[valid], last_s[valid]))[-1]]
    return actions


def greedy_index(game: Game, slots: np.ndarray) -> int:
    """The greedy split of one hand (slot order): :func:`greedy_actions` of a batch of one."""
    return int(greedy_actions(game, np.asarray(slots)[None])[0])


class GreedyAgent(Agent):
    """Deterministic: the strongest last row (Thirteen back, Biji pot 3), then the strongest
    middle; where a view's mask holds only the candidates and leaves that split out, the
    candidate that beats it."""

    name = "greedy"

    def __init__(self, game: Game) -> None:
        self.game = game

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        if not views:
            return np.empty(0, dtype=np.int64)
        return within_masks(self.game, views, greedy_actions(self.game, stacked_slots(views)))


def random_agent(spec: AgentSpec, game: Game, num_players: int, seed: int | None) -> RandomAgent:
    return RandomAgent(seed=seed)


def greedy_agent(spec: AgentSpec, game: Game, num_players: int, seed: int | None) -> GreedyAgent:
    return GreedyAgent(game)
