"""Baseline agents: ``random`` (uniform over valid splits) and ``greedy`` (strongest last
row, then strongest middle row among the valid splits)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..envs.games import Game
from ..envs.strength import gather_rows
from .base import hand_of


class RandomAgent:
    """Uniform over the valid splits of the mask; seeded, independent of the global RNG."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def seed(self, value: int | None) -> None:
        """Restart the generator (matches reseed agents per deal for reproducible sharding)."""
        self.rng = np.random.default_rng(value)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        valid = np.flatnonzero(action_mask)
        if len(valid) == 0:
            raise ValueError("the action mask has no valid split")
        return int(valid[self.rng.integers(len(valid))])


def greedy_index(game: Game, slots: np.ndarray) -> int:
    """The valid split with the strongest last row, then the strongest middle row.

    Taking the strongest last row of the hand, then the strongest middle row of the rest,
    works on the per-subset strengths alone and is valid, except under Thirteen's
    ``flush_compare=suit_first``, where a flush of a stronger suit can be weaker by ranks
    than the middle row (a foul); then the best valid split is searched among all splits."""
    index = game.split_index
    per_subset = game.subset_strengths(slots)
    sizes = index.row_sizes
    last_subsets, middle_subsets = index.subsets(sizes[2]), index.subsets(sizes[1])
    last = last_subsets[int(np.argmax(per_subset[sizes[2]]))]
    free = ~np.isin(middle_subsets, last).any(axis=1)
    middle = middle_subsets[np.flatnonzero(free)[int(np.argmax(per_subset[sizes[1]][free]))]]
    first = [s for s in range(index.n_slots) if s not in set(last) | set(middle)]
    rows = [slots[first], slots[middle], slots[last]]
    strengths = [game.row_strengths(np.asarray(r)[None])[0] for r in rows]
    if game.valid_rows(*strengths):
        return index.encode([first, middle.tolist(), last.tolist()])
    first_s, middle_s, last_s = gather_rows(per_subset, index)
    valid = np.flatnonzero(game.valid_rows(first_s, middle_s, last_s))
    return int(valid[np.lexsort((-valid, middle_s[valid], last_s[valid]))[-1]])


class GreedyAgent:
    """Deterministic: the strongest last row (Thirteen back, Biji pot 3), then the strongest middle."""

    name = "greedy"

    def __init__(self, game: Game) -> None:
        self.game = game

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        return greedy_index(self.game, self.game.slots(hand_of(info)))
