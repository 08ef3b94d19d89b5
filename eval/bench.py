"""``splitpoker bench``: the project's speed figures, each the median, min and max over
repeated runs, pinned to one core.

A *run* times a batch of calls and reports the time per call (or hands per second for the
environment figures); a figure repeats the run several times.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..agents.base import load_agent
from ..envs.cards import format_cards
from ..envs.games import Game, make_game
from ..envs.observation import encode_observation

SOLVER_SCALING = (64, 256, 1024)


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
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        cards = rng.permutation(game.deck())[: num_players * game.hand_size]
        out.append([np.sort(cards[s * game.hand_size:(s + 1) * game.hand_size]).astype(np.intp)
                    for s in range(num_players)])
    return out


def _per_call_ms(calls: list[Callable[[], Any]]) -> float:
    start = time.perf_counter()
    for call in calls:
        call()
    return (time.perf_counter() - start) / len(calls) * 1e3


def _decision_calls(game: Game, agent: Any, num_players: int, count: int) -> list[Callable[[], Any]]:
    """One call of ``agent.act`` per random hand (seat 0), inputs prepared beforehand."""
    calls = []
    for table in _hands(game, count, num_players, seed=3):
        hand = table[0]
        obs = encode_observation(game, hand, 0, num_players)
        mask = game.valid_mask(hand).astype(np.int8)
        info = {"hand": format_cards(hand).split(), "seat": 0, "num_players": num_players}
        calls.append(lambda obs=obs, mask=mask, info=info: agent.act(obs, mask, info))
    return calls


def _spec_ms(game: Game, spec: str, num_players: int, count: int) -> float:
    return _per_call_ms(_decision_calls(game, load_agent(spec, game, num_players=num_players, seed=0),
                                        num_players, count))


def _figures(quick: bool) -> list[tuple[str, str, str, Callable[[], float]]]:
    """(name, unit, what, one run) of every figure."""
    n_calls = 20 if quick else 100
    figures: list[tuple[str, str, str, Callable[[], float]]] = []
    for name, players, score_players in (("thirteen", 4, 4), ("biji", 4, 5)):
        game = make_game(name)
        tables = _hands(game, n_calls, score_players, seed=1)
        slots = [t[0] for t in tables]
        figures.append((f"{name}.mask_ms", "ms", "valid-split mask of one random hand",
                        lambda g=game, s=slots: _per_call_ms([lambda h=h: g.valid_mask(h) for h in s])))
        from ..agents.baselines import greedy_index

        arrangements = [[game.arrangement(h, greedy_index(game, h)) for h in t] for t in tables]
        figures.append((f"{name}.score_ms", "ms", f"scoring a {score_players}-player table",
                        lambda g=game, a=arrangements: _per_call_ms([lambda t=t: g.score(t) for t in a])))
        figures.append((f"{name}.env_hands_per_s", "hands/s", f"{players}-player hands through the AEC API, "
                        "random legal actions", lambda n=name, p=players: _env_rate(n, p, 0.5 if quick else 2.0)))
        figures.append((f"{name}.greedy_ms", "ms", "greedy decision",
                        lambda g=game, p=players: _spec_ms(g, "greedy", p, n_calls)))
        solver_calls = 3 if quick else 10
        for samples in SOLVER_SCALING:
            label = f"{name}.solver_ms" if samples == 256 else f"{name}.solver_ms@{samples}"
            if quick and samples == 1024 and name == "thirteen":
                continue
            figures.append((label, "ms", f"solver decision, {players} players, {samples} samples, greedy opponents",
                            lambda g=game, p=players, k=samples, c=solver_calls: _spec_ms(
                                g, f"solver:samples={k}", p, c)))
        figures.append((f"{name}.policy_ms", "ms", "split_scorer policy decision (untrained weights)",
                        lambda g=game, p=players: _policy_ms(g, p, n_calls)))
    return figures


def _env_rate(game: str, players: int, seconds: float) -> float:
    from ..envs.arrange_env import hands_per_second

    return hands_per_second(game, players, seconds)


def _policy_ms(game: Game, players: int, count: int) -> float:
    from ..agents.policy import PolicyAgent, build_policy, policy_meta

    meta = policy_meta(game, players, "split_scorer", {})
    return _per_call_ms(_decision_calls(game, PolicyAgent(build_policy(meta), meta, name="split_scorer"), players, count))


def run_bench(quick: bool = False, only: str | None = None, progress: bool = True) -> dict[str, Any]:
    """Measure every figure (those whose name starts with ``only``)."""
    figures = [f for f in _figures(quick) if not only or f[0].startswith(only)]
    if not figures:
        raise ValueError(f"no figure name starts with {only!r}")
    pinned, restore = _pin_one_core()
    try:
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
    except ImportError:
        torch, threads = None, 0
    try:
        out = _measure(figures, repeats=3 if quick else 7, progress=progress)
    finally:
        if restore is not None:
            os.sched_setaffinity(0, restore)
        if torch is not None:
            torch.set_num_threads(threads)
    return {"machine": machine() | {"affinity": pinned}, "figures": out}


def _measure(figures: list[tuple[str, str, str, Callable[[], float]]], repeats: int,
             progress: bool) -> list[dict[str, Any]]:
    out = []
    iterator: Any = figures
    if progress:
        from .progress import track

        iterator = track(figures, description="bench")
    for name, unit, what, once in iterator:
        once()  # warm-up: caches, numba compilation, lazy tables
        values = [once() for _ in range(repeats)]
        out.append({"name": name, "median": float(np.median(values)), "min": float(min(values)),
                    "max": float(max(values)), "unit": unit, "what": what, "runs": repeats})
    return out


def print_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"splitpoker bench — {report['machine']['cpu']} ({report['machine']['affinity']})")
    for column in ("figure", "median", "min", "max", "unit", "what"):
        table.add_column(column, justify="right" if column in ("median", "min", "max") else "left",
                         no_wrap=column != "what")
    for f in report["figures"]:
        table.add_row(f["name"], f"{f['median']:.4g}", f"{f['min']:.4g}", f"{f['max']:.4g}", f["unit"], f["what"])
    Console(width=max(Console().width, 150)).print(table)
