"""The agent interface.

An agent decides splits for seats. Its primary method is batched: :meth:`Agent.act_batch`
takes typed seat views (:class:`~splitpoker.envs.table.SeatView`: the hand's card ids in
slot order, the seat, the table size, the valid mask and the observation) and returns one
split index per view. :meth:`Agent.act` takes what a PettingZoo environment gives for one
seat (``observation``, ``action_mask``, ``infos[agent]``) and wraps ``act_batch``.
:meth:`Agent.seed` restarts whatever randomness the agent has (evaluation reseeds agents
per deal, so results do not depend on how deals are shared among workers); a deterministic
agent ignores it.

Agents are built from spec strings by :func:`splitpoker.agents.load_agent` (the grammar is
:mod:`splitpoker.agents.specs`).
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..envs.table import SeatView

__all__ = ["Agent", "SeatView", "check_choices"]


class Agent(abc.ABC):
    """Base of every agent: ``name``, batched :meth:`act_batch`, :meth:`act` and :meth:`seed`."""

    name: str = "agent"

    @abc.abstractmethod
    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        """One split index per seat view (int64 array), each valid under the view's mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The split of one seat from an environment's observation, mask and ``infos`` entry."""
        return int(self.act_batch([SeatView.from_env(observation, action_mask, info)])[0])

    def seed(self, seed: int | None) -> None:
        """Restart the agent's randomness from ``seed`` (nothing to do for a deterministic agent)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def check_choices(agent: Agent, views: Sequence[SeatView], actions: Any) -> np.ndarray:
    """``actions`` as int64 when there is one valid split per view; else ValueError naming the
    agent, the choice and the hand."""
    try:
        chosen = np.asarray(actions, dtype=np.int64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(f"agent {agent.name!r} returned {actions!r}, not split indices") from None
    if len(chosen) != len(views):
        raise ValueError(f"agent {agent.name!r} returned {len(chosen)} splits for {len(views)} seats")
    for action, view in zip(chosen.tolist(), views):
        mask = view.mask
        if not (0 <= action < len(mask) and mask[action]):
            raise ValueError(f"agent {agent.name!r} chose {action!r}, not a valid split of seat {view.seat}'s "
                             f"hand {' '.join(view.hand)}")
    return chosen
