"""Bench figures of outside RL libraries' PettingZoo wrappers around the environments, under
``actions="offered"`` (the default offer, K): hands per second of random valid slots, to set
beside ``<game>.env_offered_hands_per_s`` (the parallel environment alone).

* ``<game>.torchrl_hands_per_s``: TorchRL's ``PettingZooWrapper`` around ``parallel_env``
  (``infos="arrays"``, ``use_mask=True``; every step is one hand), played by
  ``rollout(..., break_when_any_done=False)`` with no policy: TorchRL draws each seat's slot
  inside the action mask it takes off the ``Dict`` observation (its action spec's mask).
* ``<game>.tianshou_hands_per_s``: Tianshou's ``PettingZooEnv`` around ``env()`` (one step
  per seat), each seat drawing among the slots of the observation's ``"mask"``, the list of
  booleans Tianshou's masked policies read.
* ``<game>.rllib_hands_per_s``: RLlib's ``PettingZooEnv`` around ``env()`` (a
  ``MultiAgentEnv``, one step per seat), each seat drawing among the slots of its
  observation's ``"action_mask"``.

A run builds the wrapper, plays one hand untimed and then plays hands for the given seconds
of this process's CPU time, as :func:`~splitpoker.eval.speed.parallel_hands_per_second`
times the environment alone. :data:`LIBRARIES` describes the figures, which
:mod:`splitpoker.eval.speed` lists: each library is imported by its figure's run
(:meth:`Library.missing`), and where it cannot be, the bench lists the figure as skipped,
naming the extra that installs it.
"""

from __future__ import annotations

import dataclasses
import importlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..envs.games import game_class
from ..envs.registration import ENVIRONMENTS, env_name

#: hands of one TorchRL rollout (each step of the parallel environment is one hand)
ROLLOUT = 16


def cpu_rate(play: Callable[[], int], seconds: float) -> float:
    """Hands per second of this process's CPU time: ``play()`` plays hands and returns how
    many, once untimed, then again until ``seconds`` have passed."""
    play()
    hands, start = 0, time.process_time()
    while True:
        hands += play()
        if time.process_time() - start >= seconds:
            return hands / (time.process_time() - start)


def _environment(game_name: str, parallel: bool, **kwargs: Any) -> Any:
    """The game's ``parallel_env`` (or ``env``) under ``actions="offered"``, with ``kwargs``."""
    module = ENVIRONMENTS[env_name(game_class(game_name))]
    return (module.parallel_env if parallel else module.env)(actions="offered", **kwargs)


def _draw(mask: Any, rng: np.random.Generator) -> int:
    """A slot drawn uniformly from those ``mask`` marks (an array or list of booleans or 0/1)."""
    slots = np.flatnonzero(np.asarray(mask))
    return int(slots[int(rng.integers(len(slots)))])


def torchrl_hands_per_second(game_name: str, num_players: int = 4, seconds: float = 2.0, *, seed: int = 0,
                             offer: int | None = None) -> float:
    """Hands per second through TorchRL's ``PettingZooWrapper`` around ``parallel_env``
    (``actions="offered"``, ``infos="arrays"``, ``use_mask=True``): rollouts of
    :data:`ROLLOUT` hands of random slots inside the masks, drawn by TorchRL from torch's
    generator, seeded by ``seed`` and restored afterwards."""
    import torch
    from torchrl.envs import PettingZooWrapper

    environment = _environment(game_name, True, num_players=num_players, offer=offer, infos="arrays")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        env = PettingZooWrapper(env=environment, use_mask=True, seed=seed)

        def play() -> int:
            rollout = env.rollout(ROLLOUT, break_when_any_done=False)
            return int(rollout["next", "done"].sum())

        return cpu_rate(play, seconds)


def tianshou_hands_per_second(game_name: str, num_players: int = 4, seconds: float = 2.0, *, seed: int = 0,
                              offer: int | None = None) -> float:
    """Hands per second through Tianshou's ``PettingZooEnv`` around ``env()``
    (``actions="offered"``): each seat plays a slot drawn among those its observation's
    ``"mask"`` marks."""
    from tianshou.env import PettingZooEnv

    env = PettingZooEnv(_environment(game_name, False, num_players=num_players, offer=offer))
    rng = np.random.default_rng(seed)
    env.seed(seed)

    def play() -> int:
        observation, _ = env.reset()
        while True:
            observation, _, terminated, truncated, _ = env.step(_draw(observation["mask"], rng))
            if terminated or truncated:
                return 1

    return cpu_rate(play, seconds)


def rllib_hands_per_second(game_name: str, num_players: int = 4, seconds: float = 2.0, *, seed: int = 0,
                           offer: int | None = None) -> float:
    """Hands per second through RLlib's ``PettingZooEnv`` around ``env()``
    (``actions="offered"``): each seat plays a slot drawn among those its observation's
    ``"action_mask"`` marks."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    env = PettingZooEnv(_environment(game_name, False, num_players=num_players, offer=offer))
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def play() -> int:
        observations, _ = env.reset()
        while True:
            actions = {agent: _draw(observation["action_mask"], rng) for agent, observation in observations.items()}
            observations, _, terminateds, truncateds, _ = env.step(actions)
            if terminateds["__all__"] or truncateds["__all__"]:
                return 1

    return cpu_rate(play, seconds)


@dataclasses.dataclass(frozen=True)
class Library:
    """One library's figure: ``<game>.{figure}``, timed by ``rate(game_name, num_players,
    seconds)`` once ``module`` imports (``extra``: the extra of splitpoker that installs it)."""

    figure: str
    name: str
    module: str
    extra: str
    rate: Callable[..., float]

    def what(self, num_players: int) -> str:
        """What the figure measures, for the bench's table."""
        return (f"{num_players}-player hands through {self.name}'s PettingZoo wrapper with actions='offered', "
                f"random valid slots (the {self.extra} extra)")

    def missing(self) -> str:
        """Why the figure cannot be measured here (its library does not import), or ""."""
        try:
            importlib.import_module(self.module)
        except ImportError as error:
            return f"{self.name} is not installed: pip install 'splitpoker[{self.extra}]' ({error})"
        return ""


#: the libraries whose wrappers the bench times, in the order of their figures
LIBRARIES = (
    Library("torchrl_hands_per_s", "TorchRL", "torchrl.envs", "ecosystem", torchrl_hands_per_second),
    Library("tianshou_hands_per_s", "Tianshou", "tianshou.env", "ecosystem", tianshou_hands_per_second),
    Library("rllib_hands_per_s", "RLlib", "ray.rllib.env.wrappers.pettingzoo_env", "rllib", rllib_hands_per_second),
)
