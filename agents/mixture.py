"""``mixture:SPEC;SPEC;...``: the uniform mixture of agents, drawn afresh for every seat.

Each decision (one seat of one table) is made by one member drawn uniformly at random, so
the mixture plays the average of its members' strategies: in a game of one decision per
hand, a mixture of snapshot policies is exactly their average policy. Members are any
agent specs (separated by ``;``); as the opponent model of a solver
(``solver:opponent=mixture:checkpoint:a.zip;checkpoint:b.zip``) a member may not hold a
comma, which separates the solver's options.

>>> from splitpoker.envs.games import make_game
>>> from splitpoker.agents.specs import parse_spec
>>> mixture_agent(parse_spec("mixture:greedy;random"), make_game("biji"), 4, seed=0).name
'mixture(greedy;random)'
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..envs.game import Game
from ..envs.messages import cut
from ..envs.table import SeatView, split_choices
from ..runtime.seeding import as_generator, derived_seed
from .base import Agent
from .loading import load_agent
from .specs import AgentSpec

__all__ = ["MixtureAgent", "mixture_agent"]


class MixtureAgent(Agent):
    """Plays each seat view with one of ``members`` drawn uniformly by its generator."""

    def __init__(self, members: Sequence[Agent], names: Sequence[str], seed: int | None = None) -> None:
        if not members:
            raise ValueError("a mixture needs at least one member")
        self.members = list(members)
        self.names = list(names)
        self.name = f"mixture({';'.join(names)})"
        self.rng = as_generator(seed)
        sizes = [m.batch_size for m in self.members if m.batch_size]
        self.batch_size = min(sizes) if sizes else None

    def seed(self, seed: int | None) -> None:
        self.rng = as_generator(seed)
        for i, member in enumerate(self.members):
            member.seed(None if seed is None else derived_seed(seed, i))

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        """Draw a member per view, then let each member decide its views in one batch. Each
        member's choices are read as split indices here (a float that is no whole number is
        refused, never truncated: :func:`~splitpoker.envs.table.split_choices`); whether each
        is a split its seat may play is checked where the table takes them,
        :meth:`Tables.decide`."""
        drawn = self.rng.integers(len(self.members), size=len(views))
        out = np.empty(len(views), dtype=np.int64)
        for m in np.unique(drawn):
            idx = np.flatnonzero(drawn == m)
            name = self.names[int(m)] if int(m) < len(self.names) else str(int(m))
            who = f"mixture member {cut(repr(name), 60)}"
            chosen = split_choices(self.members[int(m)].act_batch([views[i] for i in idx.tolist()]), who)
            if len(chosen) != len(idx):
                raise ValueError(f"{who} returned {len(chosen)} splits for {len(idx)} seats")
            out[idx] = chosen
        return out


def mixture_agent(spec: AgentSpec, game: Game, num_players: int, seed: int | None) -> MixtureAgent:
    """The agent of a ``mixture:SPEC;SPEC;...`` spec (each member seeded from ``seed``)."""
    names = [member.text for member in spec.members]
    members = []
    for i, member in enumerate(spec.members):
        member_seed = None if seed is None else derived_seed(seed, i)
        try:
            members.append(load_agent(member, game, num_players=num_players, seed=member_seed))
        except ValueError as error:
            raise ValueError(f"mixture member {member.text!r}: {str(error).splitlines()[0]}") from None
    return MixtureAgent(members, names, seed=seed)
