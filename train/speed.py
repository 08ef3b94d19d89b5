"""Training figures of ``splitpoker bench``: self-play hands per second of each game's full
training config, and one decision of its policy.

``<game>.train_hands_per_s`` trains with the policy, PPO and self-play settings of the
game's PPO self-play config among the packaged ones (:func:`bench_config`:
``<game>_classic_ppo_4p.yaml`` where the game has one, else ``<game>_classic_4p.yaml``;
:data:`~splitpoker.train.config.PACKAGED_CONFIGS`: ``configs/`` in a checkout), with
imitation, evaluation and checkpoints off: one rollout
and update of warm-up, then whole rollouts and their PPO updates timed, with the processes
and torch threads the config asks for. A config that trains in one process is timed by
that process's CPU time (all its threads), as ``<game>.env_hands_per_s`` is, so that other
load on the machine does not distort the ratio of the two; on an idle machine with one
torch thread it equals the wall clock. ``vec_env: subproc`` is timed on the wall clock.
The opponent pool holds a snapshot of the learner beside the config's baselines, as in
steady-state self-play.

``<game>.policy_ms`` is one decision of that config's policy (untrained weights), on one
core, to compare with ``<game>.greedy_ms``; ``<game>.policy_per_greedy`` is that ratio
measured directly, the two agents taking turns on the same hands
(:func:`~splitpoker.eval.speed.relative_time`). The policy is built once and kept for the
runs of both figures, so that they time its decisions, not its construction.
"""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path

import torch as th

from ..agents import load_agent
from ..agents.learned.networks import build_policy
from ..agents.learned.policy import PolicyAgent
from ..envs.game import Game
from ..envs.games import GAMES, make_game
from ..eval.speed import Figure, agent_ms, relative_time
from .config import PACKAGED_CONFIGS, TrainConfig, load_config
from .learner import run_meta
from .selfplay import OpponentPool

#: the configs whose settings the figures train with, by game name: the packaged ones
CONFIG_DIR = PACKAGED_CONFIGS
BENCH_OVERRIDES = ("imitation.enabled=false", "eval.every=0", "checkpoint.every=0", "progress=false")
#: the names a game's PPO self-play config may have, in the order they are looked for: a
#: config named after a shipped policy (``<game>_classic_4p``) is the one that makes it, by
#: whatever algorithm; where that is not PPO, the PPO config is ``<game>_classic_ppo_4p``
BENCH_NAMES = ("{game}_classic_ppo_4p.yaml", "{game}_classic_4p.yaml")


def bench_config(game: str) -> Path:
    """The full PPO self-play config of a game that the figures train with: the first of
    :data:`BENCH_NAMES` that exists (the last one when none does)."""
    paths = [CONFIG_DIR / name.format(game=game) for name in BENCH_NAMES]
    return next((path for path in paths if path.is_file()), paths[-1])


def train_hands_per_second(config: TrainConfig, rollouts: int) -> float:
    """Self-play hands per second over ``rollouts`` rollouts and updates, after one of warm-up
    (``config`` is a PPO config: :class:`~splitpoker.train.ppo_config.PPOTrainConfig`)."""
    from .ppo import build_model, make_vec_env, sync_pool
    from .ppo_config import PPOTrainConfig

    if not isinstance(config, PPOTrainConfig):
        raise ValueError(f"the training figure times PPO self-play; algorithm {config.algorithm} is not PPO")
    if config.torch_threads:
        th.set_num_threads(config.torch_threads)
    th.distributions.Distribution.set_default_validate_args(False)
    game = make_game(config.game, **config.game_kwargs())
    pool = OpponentPool(game, config.num_players, run_meta(config, game, 0), config.selfplay, seed=config.seed)
    env = make_vec_env(config, game, pool)
    try:
        model = build_model(config, env)
        pool.add(model.policy.state_dict(), 0)
        sync_pool(env, pool)
        rollout = config.ppo.n_steps * config.n_envs
        model.learn(total_timesteps=rollout, reset_num_timesteps=False)
        clock = time.perf_counter if config.vec_env == "subproc" else time.process_time
        start, hands = clock(), model.num_timesteps
        model.learn(total_timesteps=rollouts * rollout, reset_num_timesteps=False)
        return (model.num_timesteps - hands) / (clock() - start)
    finally:
        env.close()


@cache
def config_policy(name: str) -> tuple[Game, PolicyAgent, int]:
    """The game, the policy (untrained weights, as an agent) and the table size of a game's
    full config, built at the first call."""
    config = load_config(bench_config(name), BENCH_OVERRIDES)
    game = make_game(config.game, **config.game_kwargs())
    meta = run_meta(config, game, 0)
    return game, PolicyAgent(build_policy(meta), meta, name=config.policy.kind), config.num_players


def policy_ms(name: str, count: int) -> float:
    """Milliseconds per decision of the policy of a game's full config (untrained weights)."""
    game, agent, players = config_policy(name)
    return agent_ms(game, agent, players, count)


def policy_per_greedy(name: str, count: int, mask: str = "valid") -> float:
    """The decision time of the policy of a game's full config (given the action masks of
    ``mask``) over greedy's, taking turns on the same hands."""
    game, agent, players = config_policy(name)
    return relative_time(game, agent, load_agent("greedy", game, num_players=players, seed=0), players, count,
                         mask=mask)


def policy_candidates_per_greedy(name: str, count: int) -> float:
    """The decision time of the policy of a game's full config, given the candidates as its
    action mask (``mask="undominated"``), over greedy's, taking turns on the same hands."""
    return policy_per_greedy(name, count, mask="undominated")


def training_figures(quick: bool) -> list[Figure]:
    """``<game>.train_hands_per_s``, ``<game>.policy_ms`` and ``<game>.policy_per_greedy`` of
    every registered game whose full config is present."""
    figures = []
    calls = 20 if quick else 100
    for name in GAMES:
        path = bench_config(name)
        if not path.is_file():
            continue
        config = load_config(path, BENCH_OVERRIDES)
        figures.append(Figure(f"{name}.policy_ms", "ms", f"policy decision of {path.name} (untrained weights)",
                              lambda n=name: policy_ms(n, calls)))
        figures.append(Figure(f"{name}.policy_per_greedy", "x",
                              f"policy decision of {path.name} over greedy's, taking turns on the same hands",
                              lambda n=name: policy_per_greedy(n, calls)))
        figures.append(Figure(f"{name}.policy_candidates_per_greedy", "x",
                              f"policy decision of {path.name} over the candidates (mask='undominated') over "
                              "greedy's, taking turns on the same hands",
                              lambda n=name: policy_candidates_per_greedy(n, calls)))
        figures.append(Figure(
            f"{name}.train_hands_per_s", "hands/s",
            f"self-play MaskablePPO of {path.name} (imitation off), its own processes and threads",
            lambda c=config: train_hands_per_second(c, rollouts=1 if quick else 2), pinned=False,
            repeats=2 if quick else 3, warm_up=False))
    return figures
