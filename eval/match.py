"""Duplicate matches: every deal is replayed with the agents rotated through the seats.

The agents fill the table in turn (lineup ``A B A B`` for two agents at four seats) and the
lineup is rotated through all ``n`` seats, so every hand of a deal is played once by each
lineup position and the luck of the cards cancels. A *deal group* (one deal, ``n``
rotations) depends only on ``(seed, group)``: results do not depend on how groups are shared
among workers.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..agents.base import Agent, check_choices
from ..envs.game import Game
from ..envs.table import Tables, deal, derived_seed
from .stats import mean_ci

#: a function returning (best EV, EVs indexed by split) for a seat's hand, or None without regret
#: the regret oracle of a seat's hand: the best split and the expected payoff of any split
RegretOracle = Callable[[np.ndarray, int, int], tuple[int, Callable[[int], float]]]


@dataclasses.dataclass
class Decision:
    """One seat's decision in one rotation of one deal group (a row of ``decisions.csv``)."""

    group: int
    rotation: int
    seat: int
    agent: int
    action: int
    payoff: float
    ms: float
    fouled: bool
    special: int
    xi: int
    rows_won: tuple[float, float, float]
    regret: float = float("nan")
    agreement: float = float("nan")

    def to_row(self) -> dict[str, Any]:
        row = dataclasses.asdict(self)
        row["rows_won"] = " ".join(f"{x:.4g}" for x in self.rows_won)
        return row


@dataclasses.dataclass
class AgentResult:
    """One agent's figures over a match."""

    spec: str
    name: str
    hands: int
    mean: float
    ci95: tuple[float, float]
    row_win_rate: list[float]
    foul_rate: float
    special_rate: float
    xi_rate: float
    ms_per_decision: float  # the agent's own time, without the masks and observations it read
    regret: dict[str, float] | None = None
    agreement: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"ci95": list(self.ci95)}


def lineup(num_agents: int, num_players: int) -> list[int]:
    """Agent index by lineup position: the agents fill the table in turn."""
    return [i % num_agents for i in range(num_players)]


def check_lineup(num_agents: int, num_players: int) -> None:
    """ValueError unless every one of ``num_agents`` agents gets a seat at a table of ``num_players``."""
    if num_agents < 1:
        raise ValueError("give at least one agent")
    if num_agents > num_players:
        raise ValueError(f"{num_agents} agents for {num_players} seats; give at most {num_players} agents "
                         "(each agent needs a seat)")


def seating(num_agents: int, num_players: int, rotation: int) -> list[int]:
    """Agent index by seat in one rotation of the lineup."""
    order = lineup(num_agents, num_players)
    return [order[(seat + rotation) % num_players] for seat in range(num_players)]


def deal_group(game: Game, num_players: int, seed: int, group: int, mask: str = "valid") -> Tables:
    """The table of deal group ``group``: dealt from a fresh Generator seeded by ``(seed, group)``
    (the seats' masks: ``mask``, every valid split or the candidates)."""
    return deal(game, num_players, np.random.default_rng([seed, group]), mask=mask)


def play_group(game: Game, agents: Sequence[Agent], num_players: int, seed: int, group: int,
               regret: RegretOracle | None = None, mask: str = "valid") -> list[Decision]:
    """Play deal group ``group``: the same deal under every rotation of the lineup. In each
    rotation every agent decides all of its seats in one batch, from the seats' masks of
    ``mask`` (every valid split, or the candidates)."""
    tables = deal_group(game, num_players, seed, group, mask)
    hands = tables.slots[0]
    oracle = [regret(hand, seat, group) if regret else None for seat, hand in enumerate(hands)]
    decisions = []
    for rotation in range(num_players):
        seats = seating(len(agents), num_players, rotation)
        for index, agent in enumerate(agents):
            agent.seed(derived_seed(seed, group, rotation, index))
        actions = np.zeros(num_players, dtype=np.int64)
        times = np.zeros(num_players)
        for index, agent in enumerate(agents):
            mine = [seat for seat in range(num_players) if seats[seat] == index]
            if not mine:
                continue
            views = tables.views(0, mine)
            start, preparing = time.perf_counter(), tables.preparing_s
            chosen = agent.act_batch(views)
            # the agent's own time: the masks and observations it read first are the table's
            elapsed = time.perf_counter() - start - (tables.preparing_s - preparing)
            actions[mine] = check_choices(agent, views, chosen)
            times[mine] = elapsed / len(mine)
        result = tables.score(actions[None])
        outcomes = result.outcomes
        for seat, index in enumerate(seats):
            decision = Decision(group, rotation, seat, index, int(actions[seat]), float(result.payoffs[0, seat]),
                                times[seat] * 1e3, bool(outcomes.fouled[0, seat]), int(outcomes.special[0, seat]),
                                int(outcomes.xi[0, seat]), tuple(float(x) for x in outcomes.rows_won[0, seat]))
            if oracle[seat] is not None:
                best, ev_of = oracle[seat]
                decision.regret = float(ev_of(best) - ev_of(int(actions[seat])))
                decision.agreement = float(actions[seat] == best)
            decisions.append(decision)
    return decisions


def summarise(specs: Sequence[str], names: Sequence[str], decisions: Sequence[Decision]) -> list[AgentResult]:
    """Per-agent figures; the CI of the mean is over deal groups (each group's mean payoff per hand)."""
    results = []
    for index, (spec, name) in enumerate(zip(specs, names)):
        mine = [d for d in decisions if d.agent == index]
        if not mine:
            raise ValueError("no decisions to summarise: play at least one deal group")
        # each group's decisions in their order, by one stable sort: linear in the decisions
        group_of = np.array([d.group for d in mine])
        order = np.argsort(group_of, kind="stable")
        payoffs = np.array([d.payoff for d in mine])[order]
        starts = np.flatnonzero(np.r_[True, group_of[order][1:] != group_of[order][:-1]])
        per_group = np.array([np.mean(part) for part in np.split(payoffs, starts[1:])])
        regrets = np.array([d.regret for d in mine])
        has_regret = not np.isnan(regrets).all()
        results.append(AgentResult(
            spec=spec, name=name, hands=len(mine), mean=float(per_group.mean()), ci95=mean_ci(per_group),
            row_win_rate=[float(np.mean([d.rows_won[k] for d in mine])) for k in range(3)],
            foul_rate=float(np.mean([d.fouled for d in mine])),
            special_rate=float(np.mean([d.special > 0 for d in mine])),
            xi_rate=float(np.mean([d.xi > 0 for d in mine])),
            ms_per_decision=float(np.mean([d.ms for d in mine])),
            regret={"mean": float(np.mean(regrets)), "median": float(np.median(regrets)),
                    "p90": float(np.quantile(regrets, 0.9))} if has_regret else None,
            agreement=float(np.mean([d.agreement for d in mine])) if has_regret else None,
        ))
    return results


def evaluate(game: Game, agents: Sequence[Agent], num_players: int, hands: int, seed: int,
             progress: bool = False, specs: Sequence[str] | None = None) -> list[AgentResult]:
    """A duplicate match of agent objects in this process: ``hands`` deal groups."""
    game.check_players(num_players)
    check_lineup(len(agents), num_players)
    if isinstance(hands, bool) or not isinstance(hands, (int, np.integer)) or hands < 1:
        raise ValueError(f"hands={hands!r} must be an integer of at least 1")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed={seed!r} must be a non-negative integer")
    bad = [a for a in agents if not isinstance(a, Agent)]
    if bad:
        raise ValueError(f"{bad[0]!r} is not an agent; build agents with load_agent(spec, game)")
    decisions: list[Decision] = []
    groups = range(hands)
    if progress:
        from .progress import track

        groups = track(groups, description="evaluating")  # type: ignore[assignment]
    for group in groups:
        decisions += play_group(game, agents, num_players, seed, group)
    return summarise(specs or [a.name for a in agents], [a.name for a in agents], decisions)
