"""Duplicate matches: every deal is replayed with the agents rotated through the seats.

The agents fill the table in turn (lineup ``A B A B`` for two agents at four seats) and the
lineup is rotated through all ``n`` seats, so every hand of a deal is played once by each
lineup position and the luck of the cards cancels. A *deal group* (one deal, ``n``
rotations) depends only on ``(seed, group)``: results do not depend on how groups are shared
among workers.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..agents.base import Agent
from ..envs.game import Game
from ..envs.table import Tables, deal
from ..runtime.arguments import check_whole
from ..runtime.seeding import derived_seed
from .stats import mean_ci

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
        times = np.zeros((1, num_players))
        actions = tables.decide([(0, seat, agents[index]) for seat, index in enumerate(seats)], times=times)[0]
        times = times[0]
        result = tables.score(actions[None])
        outcomes = result.outcomes
        for seat, index in enumerate(seats):
            decision = Decision(group, rotation, seat, index, int(actions[seat]), float(result.payoffs[0, seat]),
                                times[seat] * 1e3, bool(outcomes.fouled[0, seat]), int(outcomes.special[0, seat]),
                                int(outcomes.xi[0, seat]), _three(outcomes.rows_won[0, seat]))
            answer = oracle[seat]
            if answer is not None:
                best, ev_of = answer
                decision.regret = float(ev_of(best) - ev_of(int(actions[seat])))
                decision.agreement = float(actions[seat] == best)
            decisions.append(decision)
    return decisions


def _three(values: np.ndarray) -> tuple[float, float, float]:
    """A seat's three row figures as floats."""
    return float(values[0]), float(values[1]), float(values[2])


def decision_order(decision: Decision) -> tuple[int, int, int]:
    """The order of a match's decisions (of ``decisions.csv``): by deal group, rotation, seat."""
    return decision.group, decision.rotation, decision.seat


_NUMBERS = operator.attrgetter("group", "agent", "payoff", "fouled", "special", "xi", "ms", "regret", "agreement")
_ROWS_WON = operator.attrgetter("rows_won")
#: the rows of a :class:`_Part`'s columns
_COLUMNS = ("payoff", "row0", "row1", "row2", "fouled", "special", "xi", "ms", "regret", "agreement")


@dataclasses.dataclass
class _Part:
    """One part of a :class:`Tally`: its decisions, its deal groups' range and each agent's columns."""

    decisions: list[Decision]
    first: int
    last: int
    #: by agent: a row of each of :data:`_COLUMNS`, a column of each of its decisions
    columns: list[np.ndarray]
    #: by agent: the mean payoff per hand of each deal group of the part, the groups ascending
    per_group: list[np.ndarray]


class Tally:
    """A match's decisions gathered as they are played, one part (say a worker's chunk of deal
    groups) at a time, with each agent's figures kept as columns of numbers, so that the
    summary at any moment (an interrupt above all) costs little more than joining them.

    :meth:`results` gives exactly :func:`summarise` of :meth:`decisions`, bit for bit: parts
    are taken in the order of their deal groups, and their columns and per-group means are
    those ``summarise`` computes from the same decisions in the same order. Give each part as
    whole deal groups in the order of ``(group, rotation, seat)`` (the order of
    :func:`play_group` and of :func:`.runner.play_chunk`); parts whose deal groups interleave
    are put in that order at the end, at the cost of a full sort.
    """

    def __init__(self, num_agents: int) -> None:
        self.num_agents = num_agents
        self._parts: list[_Part] = []
        self._groups: set[int] = set()
        self._count = 0

    def __len__(self) -> int:
        return self._count

    @property
    def hands(self) -> int:
        """The number of deal groups played."""
        return len(self._groups)

    def add(self, part: Sequence[Decision]) -> None:
        """Tally one part of the match."""
        if not part:
            return
        decisions = list(part)
        numbers = np.array(list(map(_NUMBERS, decisions)), dtype=float).T  # exact: integers, bools, floats
        rows_won = np.array(list(map(_ROWS_WON, decisions)), dtype=float).reshape(len(decisions), 3).T
        group, agent = numbers[0].astype(np.int64), numbers[1]
        every = np.concatenate([numbers[2:3], rows_won, numbers[3:]])  # in the order of _COLUMNS
        columns, per_group = [], []
        for index in range(self.num_agents):
            mine = agent == index
            columns.append(every[:, mine])  # each row contiguous
            per_group.append(_group_means(group[mine], columns[-1][0]))
        self._parts.append(_Part(decisions, int(group.min()), int(group.max()), columns, per_group))
        self._groups.update(group.tolist())
        self._count += len(decisions)

    def _ordered(self) -> list[_Part]:
        """The parts in the order of their deal groups (merged into one by a full sort where
        their groups interleave)."""
        parts = sorted(self._parts, key=lambda p: p.first)
        if any(a.last >= b.first for a, b in zip(parts, parts[1:])):
            merged = Tally(self.num_agents)
            merged.add(sorted((d for p in parts for d in p.decisions), key=decision_order))
            self._parts = parts = merged._parts
        return parts

    def decisions(self) -> list[Decision]:
        """Every decision tallied, parts in the order of their deal groups."""
        return [decision for part in self._ordered() for decision in part.decisions]

    def results(self, specs: Sequence[str], names: Sequence[str]) -> list[AgentResult]:
        """Per-agent figures; the CI of the mean is over deal groups (each group's mean payoff per hand)."""
        parts = self._ordered()
        results = []
        for index, (spec, name) in enumerate(zip(specs, names)):
            hands = sum(p.columns[index].shape[1] for p in parts)
            if not hands:
                raise ValueError("no decisions to summarise: play at least one deal group")
            every = np.concatenate([p.columns[index] for p in parts], axis=1)
            column = dict(zip(_COLUMNS, every))  # each a contiguous row: NumPy sums it as the list it was
            per_group = np.concatenate([p.per_group[index] for p in parts])
            regrets = column["regret"]
            has_regret = not np.isnan(regrets).all()
            results.append(AgentResult(
                spec=spec, name=name, hands=hands, mean=float(per_group.mean()), ci95=mean_ci(per_group),
                row_win_rate=[float(np.mean(column[f"row{k}"])) for k in range(3)],
                foul_rate=float(np.mean(column["fouled"])),  # 0 and 1: sums exact, as of the booleans
                special_rate=float(np.mean(column["special"] > 0)),
                xi_rate=float(np.mean(column["xi"] > 0)),
                ms_per_decision=float(np.mean(column["ms"])),
                regret={"mean": float(np.mean(regrets)), "median": float(np.median(regrets)),
                        "p90": float(np.quantile(regrets, 0.9))} if has_regret else None,
                agreement=float(np.mean(column["agreement"])) if has_regret else None,
            ))
        return results


def _group_means(group_of: np.ndarray, payoffs: np.ndarray) -> np.ndarray:
    """Each deal group's mean payoff, the groups ascending: each group's payoffs in their
    order, by one stable sort (linear in the decisions)."""
    if not len(group_of):
        return np.zeros(0)
    order = np.argsort(group_of, kind="stable")
    ordered = payoffs[order]
    starts = np.flatnonzero(np.r_[True, group_of[order][1:] != group_of[order][:-1]])
    return np.array([np.mean(part) for part in np.split(ordered, starts[1:])])


def summarise(specs: Sequence[str], names: Sequence[str], decisions: Sequence[Decision]) -> list[AgentResult]:
    """Per-agent figures; the CI of the mean is over deal groups (each group's mean payoff per hand)."""
    tally = Tally(len(specs))
    tally.add(decisions)
    return tally.results(specs, names)


def evaluate(game: Game, agents: Sequence[Agent], num_players: int, hands: int, seed: int,
             progress: bool = False, specs: Sequence[str] | None = None) -> list[AgentResult]:
    """A duplicate match of agent objects in this process: ``hands`` deal groups."""
    game.check_players(num_players)
    check_lineup(len(agents), num_players)
    check_whole(hands, "hands=", least=1)
    check_whole(seed, "seed=", least=0)
    bad = [a for a in agents if not isinstance(a, Agent)]
    if bad:
        raise ValueError(f"{bad[0]!r} is not an agent; build agents with load_agent(spec, game)")
    decisions: list[Decision] = []
    groups = range(hands)
    if progress:
        from ..runtime.progress import track

        groups = track(groups, description="evaluating")  # type: ignore[assignment]
    for group in groups:
        decisions += play_group(game, agents, num_players, seed, group)
    return summarise(specs or [a.name for a in agents], [a.name for a in agents], decisions)
