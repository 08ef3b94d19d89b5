"""``splitpoker bench``: the project's speed figures, each the median, min and max over
repeated runs.

A *run* times a batch of calls and reports the time per call (or hands per second for the
environment and training figures); a figure repeats the run several times. Figures are
measured pinned to one core with one torch thread, except those that measure a whole job
using the cores the way that job does (``pinned=False``: training's hands per second), and
timed by the process's CPU time, so that other load on the machine does not distort them.
Each figure's first run is a warm-up (compiling, caches, lazy tables), left out of the
figure and reported as such (``warmup``, in the figure's unit). The report is stamped with
the splitpoker version and commit and the versions of Python and the packages
(:func:`~splitpoker.agents.version.report_stamp`).
"""

from __future__ import annotations

import importlib
import os
import platform
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..agents import load_agent
from ..agents.base import Agent
from ..agents.version import report_stamp
from ..envs.game import Game
from ..envs.games import GAMES, game_class, make_game
from ..envs.table import deal
from .wrapper_speed import LIBRARIES, Library, cpu_rate

SOLVER_SCALING = (64, 256, 1024)
#: tables scored in one call by the ``tables_score_us`` figures
SCORE_BATCH = 1024
#: tables of the vector environment in the ``vector_hands_per_s`` figures
VECTOR_BATCH = 256


@dataclass(frozen=True)
class Figure:
    """One bench figure: ``once()`` is one run; ``repeats`` overrides the bench's count."""

    name: str
    unit: str
    what: str
    #: called with no arguments (a lambda may bind its inputs as defaults)
    once: Callable[..., float]
    pinned: bool = True
    repeats: int | None = None
    #: an untimed first run (off for figures that warm up inside each run)
    warm_up: bool = True


class FigureUnavailable(Exception):
    """Raised by a figure's run when the figure cannot be measured on this installation (a
    library it times is not installed): the bench lists the figure under ``skipped`` with
    this message instead of measuring it."""


def _pin_one_core() -> tuple[str, set[int] | None]:
    """Pin this process to one CPU; return a description and the CPUs to restore."""
    try:
        before = os.sched_getaffinity(0)
        cpu = min(before)
        os.sched_setaffinity(0, {cpu})
        return f"pinned to cpu {cpu}", before
    except (AttributeError, OSError):
        return "not pinned (no sched_setaffinity)", None


def machine() -> dict[str, Any]:
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            cpu = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {"platform": platform.platform(), "python": platform.python_version(), "numpy": np.__version__,
            "cpu": cpu, "cpus": os.cpu_count()}


def _hands(game: Game, count: int, num_players: int, seed: int) -> list[list[np.ndarray]]:
    return [list(table) for table in deal(game, num_players, np.random.default_rng(seed), batch=count).slots]


def _per_call_ms(calls: Sequence[Callable[..., Any]]) -> float:
    """Milliseconds of this process's CPU time per call: the figure is pinned to one core and
    one torch thread, so on an idle machine that is the wall clock, and other load on the
    machine does not distort it."""
    start = time.process_time()
    for call in calls:
        call()
    return (time.process_time() - start) / len(calls) * 1e3


def _decision_calls(game: Game, agent: Agent, num_players: int, count: int,
                    mask: str = "valid") -> list[Callable[..., Any]]:
    """One call of ``agent.act`` per random hand (seat 0), inputs prepared beforehand (the
    action mask of ``mask``: every valid split, or the candidates)."""
    calls: list[Callable[..., Any]] = []
    tables = deal(game, num_players, np.random.default_rng(3), batch=count, mask=mask)
    for b in range(count):
        view = tables.view(b, 0)
        obs, mask, info = view.observation, view.action_mask, view.info()
        calls.append(lambda obs=obs, mask=mask, info=info: agent.act(obs, mask, info))
    return calls


def _spec_ms(game: Game, spec: str, num_players: int, count: int) -> float:
    return agent_ms(game, load_agent(spec, game, num_players=num_players, seed=0), num_players, count)


def agent_ms(game: Game, agent: Agent, num_players: int, count: int, mask: str = "valid") -> float:
    """Milliseconds per decision of ``agent.act`` over ``count`` random hands (given the
    action mask of ``mask``)."""
    return _per_call_ms(_decision_calls(game, agent, num_players, count, mask))


def relative_time(game: Game, agent: Agent, reference: Agent, num_players: int, count: int, block: int = 10,
                  mask: str = "valid") -> float:
    """``agent``'s time per decision over ``reference``'s, on the same ``count`` random hands:
    the two take turns, ``block`` calls each, so that both are timed in the same state of
    the machine (its speed drifts between runs and within one), and the ratio is read off
    one run rather than off two figures measured minutes apart. ``agent`` is given the
    action masks of ``mask`` (the reference every valid split)."""
    mine = _decision_calls(game, agent, num_players, count, mask)
    theirs = _decision_calls(game, reference, num_players, count)
    return alternating_ratio(mine, theirs, block)


def alternating_ratio(mine: Sequence[Callable[..., Any]], theirs: Sequence[Callable[..., Any]],
                      block: int = 10) -> float:
    """The CPU time of the calls ``mine`` over that of the calls ``theirs`` (as many), the two
    taking turns, ``block`` calls each, so that both are timed in the same state of the
    machine."""
    spent = [0.0, 0.0]
    for start in range(0, len(mine), block):
        for side, calls in enumerate((mine, theirs)):
            turn = calls[start:start + block]
            spent[side] += _per_call_ms(turn) * len(turn)
    return spent[0] / spent[1]


def _offered_calls(game: Game, hands: Sequence[np.ndarray], num_players: int) -> list[Callable[..., Any]]:
    """One call of :func:`~splitpoker.envs.offered.offer_hands` per hand, of the game's
    default number of slots: the candidates and their offered features."""
    from ..envs.offered import offer_hands

    return [lambda h=hand[None]: offer_hands(game, h, num_players, game.default_offer) for hand in hands]


def _figures(quick: bool) -> list[Figure]:
    """Every figure of the engines, environments and agents."""
    n_calls = 20 if quick else 100
    figures: list[Figure] = []
    for name in GAMES:
        game = make_game(name)
        players, score_players = min(4, game.players[1]), game.players[1]
        tables = _hands(game, n_calls, score_players, seed=1)
        slots = [t[0] for t in tables]
        figures.append(Figure(f"{name}.mask_ms", "ms", "valid-split mask of one random hand",
                        lambda g=game, s=slots: _per_call_ms([lambda h=h: g.valid_mask(h) for h in s])))
        figures.append(Figure(f"{name}.candidates_ms", "ms", "candidates (undominated valid splits) of one random hand",
                        lambda g=game, s=slots: _per_call_ms([lambda h=h: g.candidate_mask(h) for h in s])))
        figures.append(Figure(f"{name}.offered_ms", "ms", "candidates and their offered features of one random hand "
                              f"(offer_hands, {game.default_offer} slots, {players} players)",
                              lambda g=game, s=slots, p=players: _per_call_ms(_offered_calls(g, s, p))))
        figures.append(Figure(f"{name}.offered_per_candidates", "x", "offered_ms over candidates_ms, the two timed "
                              "in turns on the same hands", lambda g=game, s=slots, p=players: alternating_ratio(
                                  _offered_calls(g, s, p), [lambda h=h: g.candidate_mask(h) for h in s])))
        from ..agents.baselines import greedy_index

        arrangements = [[game.arrangement(h, greedy_index(game, h)) for h in t] for t in tables]
        figures.append(Figure(f"{name}.score_ms", "ms", f"scoring a {score_players}-player table",
                        lambda g=game, a=arrangements: _per_call_ms([lambda t=t: g.score(t) for t in a])))
        figures.append(Figure(f"{name}.tables_score_us", "us", f"Tables.score of {SCORE_BATCH:,} {players}-player "
                              "tables in one call, per table", lambda g=game, p=players: _tables_score_us(g, p)))
        figures.append(Figure(f"{name}.env_hands_per_s", "hands/s", f"{players}-player hands through the AEC API, "
                        "random legal actions", lambda n=name, p=players: _env_rate(n, p, 0.5 if quick else 2.0)))
        figures.append(Figure(f"{name}.env_undominated_hands_per_s", "hands/s",
                        f"{players}-player hands through the AEC API with mask='undominated', random candidates",
                        lambda n=name, p=players: _env_rate(n, p, 0.5 if quick else 2.0, mask="undominated")))
        figures.append(Figure(f"{name}.env_offered_hands_per_s", "hands/s",
                        f"{players}-player hands through the parallel API with actions='offered', random offered "
                        "slots", lambda n=name, p=players: _env_rate(n, p, 0.5 if quick else 2.0, parallel=True,
                                                                       actions="offered")))
        for library in LIBRARIES:  # outside libraries' wrappers, skipped where the library is not installed
            figures.append(Figure(f"{name}.{library.figure}", "hands/s", library.what(players),
                                  lambda n=name, p=players, w=library: _wrapper_rate(w, n, p, 0.5 if quick else 2.0)))
        figures.append(Figure(f"{name}.vector_hands_per_s", "hands/s", f"{players}-player hands through "
                              f"ArrangeVectorEnv, {VECTOR_BATCH} tables, random learner and opponents",
                              lambda n=name, p=players: vector_hands_per_second(n, p, 0.5 if quick else 2.0)))
        figures.append(Figure(f"{name}.greedy_ms", "ms", "greedy decision",
                        lambda g=game, p=players: _spec_ms(g, "greedy", p, n_calls)))
        figures.append(Figure(f"{name}.heuristic_ms", "ms", "heuristic decision",
                        lambda g=game, p=players: _spec_ms(g, "heuristic", p, n_calls)))
        solver_calls = 3 if quick else 10
        for samples in SOLVER_SCALING:
            label = f"{name}.solver_ms" if samples == 256 else f"{name}.solver_ms@{samples}"
            if quick and samples == 1024 and game.n_actions > 10_000:  # the slowest figure
                continue
            figures.append(Figure(label, "ms",
                            f"solver decision, {players} players, {samples} samples, greedy opponents",
                            lambda g=game, p=players, k=samples, c=solver_calls: _spec_ms(
                                g, f"solver:samples={k}", p, c)))
        figures.append(Figure(f"{name}.solver_valid_ms", "ms",
                        f"solver decision over every valid split (splits=valid), {players} players, 256 samples, "
                        "greedy opponents",
                        lambda g=game, p=players, c=solver_calls: _spec_ms(
                            g, "solver:samples=256,splits=valid", p, c)))
    return figures


def _wrapper_rate(library: Library, game: str, players: int, seconds: float) -> float:
    """Hands per second through ``library``'s PettingZoo wrapper
    (:mod:`splitpoker.eval.wrapper_speed`); :class:`FigureUnavailable` where it is not installed."""
    why = library.missing()
    if why:
        raise FigureUnavailable(why)
    return library.rate(game, players, seconds)


def _tables_score_us(game: Game, players: int) -> float:
    """Microseconds per table of one :meth:`Tables.score` call over ``SCORE_BATCH`` tables
    of greedy splits (decided beforehand)."""
    tables = deal(game, players, np.random.default_rng(2), batch=SCORE_BATCH)
    actions = load_agent("greedy", game, players).act_batch(tables.views()).reshape(SCORE_BATCH, players)
    return _per_call_ms([lambda: tables.score(actions)]) * 1e3 / SCORE_BATCH


def vector_hands_per_second(game_name: str, num_players: int = 4, seconds: float = 2.0,
                            batch: int = 0, seed: int = 0) -> float:
    """Hands per second of CPU time through :class:`~splitpoker.envs.vector.ArrangeVectorEnv`
    of ``batch`` tables (``VECTOR_BATCH`` when 0), the learner drawing uniformly among its
    valid splits and the opponents playing random valid splits."""
    from ..envs.vector import ArrangeVectorEnv, random_valid_splits

    env = ArrangeVectorEnv(game_name, num_envs=batch or VECTOR_BATCH, num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    env.step(random_valid_splits(env.game, None, rng, masks=env.action_masks()))  # warm-up
    hands, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        env.step(random_valid_splits(env.game, None, rng, masks=env.action_masks()))
        hands += env.num_envs
    return hands / (time.process_time() - start)


def _env_rate(game: str, players: int, seconds: float, parallel: bool = False, **kwargs: Any) -> float:
    """Hands per second through the AEC API (:func:`hands_per_second`), or with ``parallel``
    through the parallel API (:func:`parallel_hands_per_second`); ``kwargs`` go to the environment."""
    rate = parallel_hands_per_second if parallel else hands_per_second
    return rate(game, players, seconds, **kwargs)


def parallel_hands_per_second(game_name: str, num_players: int = 4, seconds: float = 2.0, *, seed: int = 0,
                              **kwargs: Any) -> float:
    """Hands played per second through the parallel API (``parallel_env``, the environment
    outside wrappers drive) by random agents drawing from their masks, timed as
    :func:`hands_per_second` times them; ``kwargs`` go to the environment (``actions``,
    ``preset``, switches)."""
    environment = env_module(game_name).parallel_env(num_players=num_players, **kwargs)
    rng = np.random.default_rng(seed)

    def play() -> int:
        environment.step({agent: random_valid_action(observation["action_mask"], rng)
                          for agent, observation in observations[0].items()})
        observations[0] = environment.reset()[0]
        return 1

    observations = [environment.reset(seed=seed)[0]]
    return cpu_rate(play, seconds)  # a first hand untimed: the rules' tables are built on first use


def random_valid_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A split drawn uniformly from the valid ones of ``mask``: by rejection sampling for
    large masks (about a third of Thirteen's 72,072 splits are valid), else directly; a
    one-byte mask is scanned eight entries at a time (the candidates of
    ``mask="undominated"`` are about 100 of 72,072)."""
    n = len(mask)
    if n > 8192:
        draws = (rng.random(32) * n).astype(np.intp)
        hits = draws[mask[draws] != 0]
        if len(hits):
            return int(hits[0])
    if mask.itemsize == 1 and n % 8 == 0 and mask.flags.c_contiguous:
        words = np.flatnonzero(mask.view(np.uint64))
        entries = (words[:, None] * 8 + np.arange(8)).ravel()
        valid = entries[mask[entries] != 0]
    else:
        valid = mask.nonzero()[0]
    if not len(valid):
        raise ValueError("the action mask has no valid split")
    return int(valid[int(rng.random() * len(valid))])


def env_module(game_name: str) -> Any:
    """The versioned PettingZoo module (``thirteen_v0`` / ``biji_v0``) of a registered game."""
    return importlib.import_module(f"splitpoker.envs.{game_class(game_name).env_module}")


def hands_per_second(game_name: str, num_players: int = 4, seconds: float = 2.0, *, wrapped: bool = True,
                     seed: int = 0, **kwargs: Any) -> float:
    """Hands played per second through the AEC API by random agents drawing valid splits
    from the mask, on one core: seconds of this process's CPU time (``time.process_time``),
    so other load on the machine does not distort it. ``wrapped`` uses ``env()`` (else
    ``raw_env``); ``kwargs`` go to the environment (``preset``, switches)."""
    module = env_module(game_name)
    environment = (module.env if wrapped else module.raw_env)(num_players=num_players, **kwargs)
    rng = np.random.default_rng(seed)

    def play() -> int:
        for _agent in environment.agent_iter():
            observation, _reward, terminated, truncated, _info = environment.last()
            environment.step(None if terminated or truncated
                             else random_valid_action(observation["action_mask"], rng))
        environment.reset()
        return 1

    environment.reset(seed=seed)
    return cpu_rate(play, seconds)  # a first hand untimed: the rules' strength tables are built on first use


def run_bench(quick: bool = False, only: str | None = None, progress: bool = True,
              extra: Sequence[Figure] = (), missing: str = "") -> dict[str, Any]:
    """Measure every figure, and ``extra`` ones (only those whose name starts with one of
    the comma-separated prefixes of ``only``; ValueError for an empty prefix or one that no
    figure's name starts with). ``missing`` says which figures are left out and why (the
    training figures without the ``[train]`` extra): the ValueError of a prefix that
    matches no figure says it instead of listing the figures. A figure that cannot be
    measured here (:class:`FigureUnavailable`) is listed under ``skipped`` with why."""
    every = [*_figures(quick), *extra]
    prefixes = tuple(p.strip() for p in only.split(",")) if only is not None else ()
    if any(not p for p in prefixes):
        raise ValueError(f"--only {only!r} holds an empty prefix; give figure name prefixes separated by commas")
    unmatched = [p for p in prefixes if not any(f.name.startswith(p) for f in every)]
    if unmatched and missing:
        raise ValueError(f"no figure name starts with {unmatched[0]!r} here: {missing}")
    if unmatched:
        raise ValueError(f"no figure name starts with {unmatched[0]!r}; figures: {', '.join(f.name for f in every)}")
    figures = [f for f in every if not prefixes or f.name.startswith(prefixes)]
    skipped: list[dict[str, str]] = []
    out = _measure(figures, repeats=3 if quick else 7, progress=progress, skipped=skipped)
    pinning = ("one core per figure, except unpinned ones" if hasattr(os, "sched_setaffinity")
               else "not pinned (no sched_setaffinity)")
    return {"machine": machine() | {"affinity": pinning}, "splitpoker": report_stamp(), "figures": out,
            "skipped": skipped}


def _measure_one(figure: Figure, repeats: int) -> tuple[float | None, list[float]]:
    """Warm-up (caches, numba compilation, lazy tables), then the runs: pinned to one core
    with one torch thread unless the figure measures a whole job. Returns the warm-up run's
    value (None without one) and the runs'."""
    restore, threads = None, 0
    torch: Any = None
    if figure.pinned:
        _, restore = _pin_one_core()
        try:
            import torch as imported

            torch = imported
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
        except ImportError:
            torch = None
    try:
        warm = float(figure.once()) if figure.warm_up else None
        return warm, [figure.once() for _ in range(figure.repeats or repeats)]
    finally:
        if restore is not None:
            os.sched_setaffinity(0, restore)
        if torch is not None:
            torch.set_num_threads(threads)


def _measure(figures: Sequence[Figure], repeats: int, progress: bool,
             skipped: list[dict[str, str]] | None = None) -> list[dict[str, Any]]:
    """Each figure's summary; ``skipped`` collects the name and the reason of each figure
    that cannot be measured here (:class:`FigureUnavailable`, which propagates without it)."""
    out = []
    iterator: Any = figures
    if progress:
        from ..runtime.progress import track

        iterator = track(figures, description="bench")
    for figure in iterator:
        try:
            warm, values = _measure_one(figure, repeats)
        except FigureUnavailable as why:
            if skipped is None:
                raise
            skipped.append({"name": figure.name, "why": str(why)})
            continue
        out.append({"name": figure.name, "median": float(np.median(values)), "min": float(min(values)),
                    "max": float(max(values)), "unit": figure.unit, "what": figure.what, "runs": len(values),
                    "pinned": figure.pinned, "warmup": warm})
    return out


def print_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"splitpoker bench — {report['machine']['cpu']} ({report['machine']['affinity']})")
    for column in ("figure", "median", "min", "max", "warm-up", "unit", "what"):
        table.add_column(column, justify="right" if column in ("median", "min", "max", "warm-up") else "left",
                         no_wrap=column != "what")
    for f in report["figures"]:
        warm = "–" if f.get("warmup") is None else f"{f['warmup']:.4g}"
        table.add_row(f["name"], f"{f['median']:.4g}", f"{f['min']:.4g}", f"{f['max']:.4g}", warm, f["unit"],
                      f["what"])
    console = Console(width=max(Console().width, 160))
    console.print(table)
    console.print("warm-up: the untimed first run of each figure (compiling, caches), left out of median, min and max")
    for skipped in report.get("skipped", ()):
        console.print(f"skipped {skipped['name']}: {skipped['why']}")
