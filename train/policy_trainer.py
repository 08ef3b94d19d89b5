"""A trainer whose learner is a bare policy network, with no Stable-Baselines3 model around it.

:class:`PolicyTrainer` builds the network of the config (:func:`.learner.build_policy`),
loads it and its counters from a checkpoint (:func:`.learner.load_policy_checkpoint`),
counts the run's step as ``num_timesteps`` and saves both as a checkpoint zip
(:func:`.learner.save_policy_checkpoint`). A subclass implements
:meth:`~.run.Trainer.learn_until` and :meth:`~.run.Trainer.algorithm_hparams`: fictitious
play (:mod:`.fictitious`) is one, and so may be a trainer of one's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from .learner import build_policy, load_policy_checkpoint, save_policy_checkpoint
from .run import Trainer

__all__ = ["PolicyTrainer"]


class PolicyTrainer(Trainer):
    """The run base with a policy network as its learner (:attr:`network`) and the counters
    a checkpoint records (:attr:`counters`)."""

    def build(self) -> None:
        self.network = build_policy(self.config, self.game)
        self.counters = {"num_timesteps": 0}

    def load(self, path: Path) -> None:
        self.network, self.counters = load_policy_checkpoint(self.config, self.game, path)

    @property
    def step(self) -> int:
        return int(self.counters["num_timesteps"])

    @step.setter
    def step(self, value: int) -> None:
        self.counters["num_timesteps"] = value

    @property
    def policy(self) -> MaskableActorCriticPolicy:
        return self.network

    def save_learner(self, path: Path, meta: Mapping[str, Any]) -> Path:
        return save_policy_checkpoint(self.network, self.counters, self.config, path, meta)
