"""``splitpoker eval``: a duplicate match of agent specs, sharded over worker processes or
Ray tasks, with solver regret, written as a report.

Deal groups are cut into chunks; each chunk is played by a worker that builds the game and
the agents from their specs. A group's numbers depend only on the seed and the group index,
so one worker, many workers and Ray give the same figures.

Decision times measure deciding: before its first deal a worker has each agent make untimed
decisions (:func:`warm_up`), so that compiling kernels, loading them from numba's cache and
filling caches is reported apart (``warmup_ms``), not averaged into the decision time. The
warm-up is made by a copy of the agent on deals of its own, so that the match's deals,
decisions and payoffs are those played without it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import multiprocessing
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..agents import load_agent
from ..agents.base import Agent
from ..agents.learned.policy_files import weights
from ..agents.solver import MAX_SAMPLES
from ..agents.specs import parse_spec
from ..agents.version import report_stamp
from ..envs.game import Game
from ..envs.games import make_game
from ..envs.table import Tables, check_mask, deal
from ..runtime.distributed import ray_chunks
from ..runtime.files import free_path
from ..runtime.interrupts import Interrupted, handled, signal_of
from ..runtime.limits import MAX_HANDS, MAX_WORKERS, check_count
from ..runtime.workers import worker_pool
from .duplicate import Decision, Tally, check_lineup, decision_order, play_group, seating
from .summary import AgentSummary, EvalSummary

#: the seed of the deals the warm-up decisions are made on (:func:`warm_up`), apart from every match's deals
WARMUP_SEED = 0x5EED_0FF
#: the deals :func:`warm_up` draws, to find the hand with the most candidates among them
WARMUP_POOL = 64
#: the warm-up deals already found in this process, by game, rules and table size
_WARMUP_DEALS: dict[tuple[str, str, int], tuple[np.ndarray, np.ndarray, int]] = {}


@dataclasses.dataclass
class EvalSettings:
    """Everything that fixes a match."""

    game: str
    agents: list[str]
    hands: int = 200
    players: int = 4
    preset: str = "classic"
    switches: dict[str, Any] = dataclasses.field(default_factory=dict)
    seed: int = 0
    workers: int = 1
    backend: str = "local"
    address: str | None = None
    regret: bool = True
    regret_samples: int = 64
    regret_opponent: str = "greedy"
    #: the seats' action masks: every valid split, or the candidates (the undominated ones)
    mask: str = "valid"
    out: str | None = None

    def __post_init__(self) -> None:
        game = make_game(self.game, self.preset, **self.switches)
        game.check_players(self.players)
        if isinstance(self.agents, str) or not isinstance(self.agents, (list, tuple)):
            raise ValueError(f"agents {self.agents!r} must be a list of agent specs")
        if not self.agents:
            raise ValueError("give at least one agent with --agents A,B,...")
        check_lineup(len(self.agents), self.players)
        for name, value, least, most in (("hands", self.hands, 1, MAX_HANDS), ("workers", self.workers, 1, MAX_WORKERS),
                                         ("regret_samples", self.regret_samples, 1, MAX_SAMPLES),
                                         ("seed", self.seed, 0, None)):
            setattr(self, name, check_count(value, f"--{name.replace('_', '-')}", least, most))
        if self.backend not in ("local", "ray"):
            raise ValueError(f"backend {self.backend!r} is not allowed; backends: local, ray")
        if self.address is not None and self.backend != "ray":
            raise ValueError(f"--address {self.address!r} needs --backend ray (the backend is {self.backend})")
        check_mask(self.mask)
        if not isinstance(self.regret, bool):
            raise ValueError(f"regret {self.regret!r} must be true or false")
        for spec in self.agents:  # fail fast, with the spec named, before any worker starts
            load_agent(spec, game, num_players=self.players, seed=self.seed)
        if self.regret:
            try:
                load_agent(self.regret_spec, game, num_players=self.players, seed=self.seed)
            except ValueError as error:
                from ..envs.messages import cut

                raise ValueError(f"--regret-opponent {cut(repr(self.regret_opponent), 60)}: {error}") from None

    @property
    def regret_spec(self) -> str:
        """The regret solver's spec (its opponent model in parentheses where it holds a comma)."""
        return parse_spec("solver").with_options(samples=self.regret_samples, opponent=self.regret_opponent).text

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _oracle(settings: EvalSettings, game: Any) -> Any:
    if not settings.regret:
        return None
    solver = load_agent(settings.regret_spec, game, num_players=settings.players, seed=settings.seed)

    def regret(hand: np.ndarray, seat: int, group: int) -> tuple[int, Callable[[int], float]]:
        result = solver.solve(hand, seat=seat, seed=[settings.seed, group, seat, 7919])  # type: ignore[attr-defined]
        return result.action, result.ev_of

    return regret


def warm_up_deals(game: Game, num_players: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The deals of :func:`warm_up`, fixed by the game, its rules and the table size: of
    :data:`WARMUP_POOL` deals seeded by :data:`WARMUP_SEED`, the first (a common deal) and the
    one holding the hand with the most candidates (rare: one hand in a hundred or more has so
    many that an agent takes another path for it, a learned policy's dense kernels), each
    ``(players, hand size)``, with that hand's seat. Found once per process."""
    key = (game.name, json.dumps(game.rules.to_dict(), sort_keys=True, default=str), num_players)
    if key not in _WARMUP_DEALS:
        pool = deal(game, num_players, np.random.default_rng(WARMUP_SEED), batch=WARMUP_POOL).slots
        counts = np.array([len(c) for c in game.candidate_lists(pool.reshape(-1, pool.shape[-1]))])
        table, seat = divmod(int(np.argmax(counts)), num_players)
        _WARMUP_DEALS[key] = (pool[0], pool[table], seat)
    return _WARMUP_DEALS[key]


def warm_up(game: Game, agents: Sequence[Agent], num_players: int, mask: str = "valid") -> list[float | None]:
    """Each agent's warm-up, untimed in the match: milliseconds (its own time, as
    :meth:`~splitpoker.envs.table.Tables.decide` measures it) of its decisions for the seats
    it holds in the first rotation, on each of two deals of its own (:func:`warm_up_deals`:
    a common one, and one whose seats are turned so that the hand with the most candidates is
    the agent's), made by a copy of the agent (``copy.deepcopy``, the game shared), so that
    nothing of the agent, its random generator above all, moves: the match's decisions are
    those made without it. What it warms is shared by the process (compiled kernels, numba's
    cache, torch's start-up, the game's tables). None for an agent that cannot be copied (no
    warm-up: its first decisions are timed as any other)."""
    common, hardest, at = warm_up_deals(game, num_players)
    order = seating(len(agents), num_players, 0)
    out: list[float | None] = []
    for index, agent in enumerate(agents):
        try:
            stand_in = copy.deepcopy(agent, {id(game): game})
        except Exception:  # an outside agent holding what cannot be copied: left cold, left as it is
            out.append(None)
            continue
        seats = [seat for seat, holder in enumerate(order) if holder == index]
        tables = Tables(game, np.stack([common, np.roll(hardest, seats[0] - at, axis=0)]), mask=mask)
        times = np.zeros((2, num_players))
        for table in (0, 1):  # one call a deal, each the size of the agent's calls in the match
            tables.decide([(table, seat, stand_in) for seat in seats], times=times)
        out.append(float(times.sum() * 1e3))
    return out


@dataclasses.dataclass
class Played:
    """What :func:`play_chunk` returns: the decisions of its deal groups, in the order of
    ``(group, rotation, seat)``, and each agent's warm-up in milliseconds (:func:`warm_up`)."""

    decisions: list[Decision]
    warmup_ms: list[float | None]


def play_chunk(settings_dict: dict[str, Any], groups: Sequence[int]) -> Played:
    """Play some deal groups in this process (the unit of work of both backends), after each
    agent's untimed warm-up (:func:`warm_up`)."""
    with warnings.catch_warnings():  # the parent process has shown the agents' warnings already
        warnings.simplefilter("ignore")
        settings = EvalSettings(**settings_dict)
        game = make_game(settings.game, settings.preset, **settings.switches)
        agents = [load_agent(spec, game, num_players=settings.players, seed=settings.seed)
                  for spec in settings.agents]
    if "torch" in sys.modules:  # a learned policy decides one hand at a time: threads only contend
        sys.modules["torch"].set_num_threads(1)
    warmed = warm_up(game, agents, settings.players, settings.mask)
    oracle = _oracle(settings, game)
    out: list[Decision] = []
    for group in groups:
        out += play_group(game, agents, settings.players, settings.seed, group, oracle, settings.mask)
    return Played(out, warmed)


def chunks(hands: int, workers: int) -> list[list[int]]:
    """Deal groups cut into chunks (several per worker, for progress and balance)."""
    size = max(1, min(25, hands // (workers * 4) or 1))
    return [list(range(start, min(start + size, hands))) for start in range(0, hands, size)]


def _local(settings: EvalSettings, work: list[list[int]]) -> Iterator[Played]:
    payload = settings.to_dict()
    if settings.workers == 1:
        for chunk in work:
            yield play_chunk(payload, chunk)
        return
    context = multiprocessing.get_context("spawn")
    with worker_pool(context, settings.workers) as pool:  # Ctrl-C: the parent kills the workers
        yield from pool.imap_unordered(_play_star, [(payload, chunk) for chunk in work])


def _play_star(args: tuple[dict[str, Any], list[int]]) -> Played:
    return play_chunk(*args)


def _ray(settings: EvalSettings, work: list[list[int]]) -> Iterator[Played]:
    yield from ray_chunks(play_chunk, settings.to_dict(), work, settings.workers, settings.address)


class DecisionSink(Protocol):
    """What :func:`run` hands each part of the decisions to as it is played (a report table
    being built, :class:`.report.DecisionsTable`): ``start(names)`` once before play with
    the agents' names by lineup index, then ``add(part)`` for each part, whole deal groups in
    the order of ``(group, rotation, seat)``."""

    def start(self, names: Sequence[str]) -> None: ...

    def add(self, part: Sequence[Decision]) -> None: ...


def run(settings: EvalSettings, progress: bool = True, task: str = "eval",
        sink: DecisionSink | None = None) -> tuple[EvalSummary, list[Decision]]:
    """Play the match; on Ctrl-C or SIGTERM keep what was played (``summary.partial`` and
    ``summary.interrupted_by`` say so). ``task`` names the work on the progress bar;
    ``sink`` gets each part of the decisions as it arrives. Returns the summary
    (:class:`.summary.EvalSummary`) and the decisions, in the order of ``(group, rotation, seat)``.

    The figures are tallied as the parts arrive (:class:`.duplicate.Tally`), so that an interrupted
    match is summed up at once, whatever its size. Each agent's ``warmup_ms`` is the longest of
    its warm-ups (:func:`warm_up`, one in each chunk of deals: the first in a process holds
    the compiling), left out of ``ms_per_decision``; ``weights`` holds the sha256 of each
    policy file the agents play (:func:`~splitpoker.agents.learned.policy_files.weights`)."""
    work = chunks(settings.hands, settings.workers)
    game = make_game(settings.game, settings.preset, **settings.switches)
    names = [load_agent(spec, game, num_players=settings.players, seed=settings.seed).name for spec in settings.agents]
    if sink is not None:
        sink.start(names)
    played_weights = weights(settings.agents)  # the files as the match starts, before any worker loads them
    tally = Tally(len(settings.agents))
    warmups: list[list[float]] = [[] for _ in settings.agents]
    stopped_by = None
    deferred: list[int] = []  # a signal that came while a part was being tallied, raised once it is
    receiving = [True]
    source = _ray(settings, work) if settings.backend == "ray" else _local(settings, work)
    start = time.perf_counter()

    def take(played: Played) -> None:
        receiving[0] = False
        part = played.decisions
        for index, ms in enumerate(played.warmup_ms):
            if ms is not None:
                warmups[index].append(ms)
        part.sort(key=decision_order)
        tally.add(part)
        if sink is not None:
            sink.add(part)
        receiving[0] = True
        if deferred:
            raise Interrupted(deferred[0])

    def decide(signum: int) -> bool:
        if not receiving[0]:
            deferred.append(signum)
        return receiving[0]

    try:
        with handled(decide):
            _play(settings, source, take, progress, task)
    except KeyboardInterrupt as stop:
        stopped_by = signal.Signals(signal_of(stop)).name
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()  # the pool of a generator interrupted in the middle is terminated here
    if not len(tally):
        raise Interrupted(signal.Signals[stopped_by]) if stopped_by else ValueError("no deal was played")
    results = tally.results(settings.agents, names)
    summary = EvalSummary(
        game=settings.game, players=settings.players, preset=settings.preset,
        switches=game.rules.to_dict(), hands=tally.hands, seed=settings.seed,
        agents=[AgentSummary.of(r, max(w) if w else None) for r, w in zip(results, warmups)],
        regret_model=settings.regret_spec if settings.regret else None,
        partial=stopped_by is not None, interrupted_by=stopped_by, hands_planned=settings.hands,
        elapsed_s=round(time.perf_counter() - start, 3), splitpoker=report_stamp(),
        weights=played_weights,
    )
    return summary, tally.decisions()


def _play(settings: EvalSettings, source: Iterator[Played], take: Callable[[Played], None],
          progress: bool, task: str) -> None:
    from ..runtime.progress import progress_bar

    with progress_bar(disable=not progress) as bar:
        bar_task = bar.add_task(f"{settings.game} {task}", total=settings.hands)
        for part in source:
            take(part)
            bar.advance(bar_task, len({d.group for d in part.decisions}))


def default_out(settings: EvalSettings) -> Path:
    """``runs/eval/<game>__<players>p__<seed>__<time>``, with ``_2``, ``_3``, ... added when a
    match started in the same second already has that folder."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return free_path(Path("runs") / "eval" / f"{settings.game}__{settings.players}p__{settings.seed}__{stamp}")
