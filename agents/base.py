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

from ..envs.dominance import promote
from ..envs.game import Game
from ..envs.table import SeatView, SeatViews, split_choices

__all__ = ["Agent", "SeatView", "check_choices", "check_table_size", "one_split", "within_masks"]


class Agent(abc.ABC):
    """Base of every agent: ``name``, batched :meth:`act_batch`, :meth:`act` and :meth:`seed`."""

    name: str = "agent"
    #: the most views the agent wants in one ``act_batch`` call (None: any number)
    batch_size: int | None = None

    @abc.abstractmethod
    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        """One split index per seat view (int64 array), each valid under the view's mask."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The split of one seat from an environment's observation, mask and ``infos`` entry."""
        return one_split(split_choices(self.act_batch([SeatView.from_env(observation, action_mask, info)]),
                                       f"agent {self.name!r}"), self.name)

    def seed(self, seed: int | None) -> None:
        """Restart the agent's randomness from ``seed`` (nothing to do for a deterministic agent)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def check_table_size(agent: Agent, num_players: int, views: Sequence[SeatView]) -> None:
    """ValueError when a view's table has another number of seats than ``num_players``, the
    number ``agent`` was built for (a view made from an environment's data without
    ``"num_players"`` in its info, which reads 0, is taken to be the agent's table)."""
    for view in views:
        if view.num_players and view.num_players != num_players:
            raise ValueError(f"{agent.name} was built for {num_players} players; the table has {view.num_players}")


def check_choices(agent: Agent, views: Sequence[SeatView], actions: Any) -> np.ndarray:
    """``actions`` as int64 when there is one valid split per view; else ValueError naming the
    agent, the choice and the hand. Views of one :class:`~splitpoker.envs.table.Tables` are
    checked in one batch from the rows the splits form; others against their masks."""
    chosen = split_choices(actions, f"agent {agent.name!r}")  # a float only when it is a whole number
    if len(chosen) != len(views):
        raise ValueError(f"agent {agent.name!r} returned {len(chosen)} splits for {len(views)} seats")
    tables = {id(view.tables): view.tables for view in views}
    if len(tables) == 1 and views and views[0].tables is not None:  # the table core's own check
        views[0].tables.refuse_invalid(agent.name, np.array([v.table for v in views]),
                                       np.array([v.seat for v in views]), chosen)
        return chosen
    for a, view in zip(chosen.tolist(), views):
        n_actions = view.n_actions
        if n_actions is None or not 0 <= a < n_actions:
            raise ValueError(f"agent {agent.name!r} chose {a!r}, not a split index of seat {view.seat}'s hand "
                             f"{' '.join(view.hand)}" + ("" if n_actions is None else f" (0 to {n_actions - 1})"))
    # a view made from an environment's data without a mask holds no mask to check against
    valid = np.array([not v.leaves_out(a) for a, v in zip(chosen.tolist(), views)], dtype=bool)
    if not valid.all():
        i = int(np.flatnonzero(~valid)[0])
        raise ValueError(f"agent {agent.name!r} chose {chosen[i]!r}, not a valid split of seat {views[i].seat}'s "
                         f"hand {' '.join(views[i].hand)}")
    return chosen


def one_split(chosen: np.ndarray, name: str) -> int:
    """The one split of ``chosen``; ValueError naming agent ``name`` when there are more or none."""
    if len(chosen) != 1:
        raise ValueError(f"agent {name!r} returned {len(chosen)} splits for 1 seat")
    return int(chosen[0])


def within_masks(game: Game, views: Sequence[SeatView], actions: np.ndarray) -> np.ndarray:
    """``actions`` (valid splits an agent chose from the hands alone), each replaced, where
    its view's mask leaves it out (a mask of candidates, ``mask="undominated"``), by the
    candidate that beats it (:func:`splitpoker.envs.dominance.promote`): a split that scores
    at least as much against anything. Views whose mask is every valid split cost nothing."""
    actions = np.asarray(actions, dtype=np.int64)
    if isinstance(views, SeatViews) and views.mask_kind == "valid":
        return actions
    outside = [i for i, (view, a) in enumerate(zip(views, actions.tolist()))
               if view.mask_kind != "valid" and view.leaves_out(a)]
    if not outside:
        return actions
    actions = actions.copy()
    rows = game.dominance_rows(np.stack([views[i].slots for i in outside]))
    for j, i in enumerate(outside):
        actions[i] = promote(rows, game.split_index, j, int(actions[i]), views[i].allowed)
    return actions
