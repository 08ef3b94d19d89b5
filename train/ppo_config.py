"""The settings of the PPO trainer (``algorithm: ppo``, :mod:`.ppo`): its keys of a training config.

:class:`PPOTrainConfig` is the config of a PPO run: the shared settings
(:class:`~splitpoker.train.config.TrainConfig`) and the trainer's own keys, written where
they always stood in a config: ``n_envs`` (the tables the learner plays at once, one seat
each), ``vec_env`` and ``reward_scale`` after ``total_timesteps``; the ``ppo``
hyper-parameters and the ``selfplay`` opponent pool after ``policy``; the ``checkpoint``
schedule after ``eval``. A resumed run may change ``selfplay`` and ``checkpoint``; the
rollout (``ppo``, ``n_envs``, ``vec_env``, ``reward_scale``) stays as the run was started.
A rollout that would take more than
:data:`~splitpoker.runtime.limits.MAX_BATCH_BYTES` (:func:`rollout_bytes`) is refused when
the config is read.

>>> from splitpoker.train.config import load_config_dict
>>> config = load_config_dict({"game": "biji", "total_timesteps": 1000, "n_envs": 4})
>>> type(config).__name__, config.ppo.n_steps * config.n_envs
('PPOTrainConfig', 256)
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from ..runtime.limits import MAX_ENVS, MAX_WORKERS, check_bytes
from .config import SelfPlayConfig, TrainConfig
from .sections import Section


class PPOConfig(Section):
    """MaskablePPO hyper-parameters (one hand is one timestep).

    A rollout holds ``n_steps * n_envs`` hands, and its buffer keeps one float32 mask per
    hand: 288 KB for Thirteen's 72,072 splits (512 hands: 148 MB, plus a flattened copy
    while training), 6.7 KB for Biji's 1,680. ``n_steps`` with ``n_envs`` is refused when the
    config is read where the rollout would take more than
    :data:`~splitpoker.runtime.limits.MAX_BATCH_BYTES` (:func:`rollout_bytes`)."""

    learning_rate: float = Field(3e-4, gt=0)
    n_steps: int = Field(64, gt=0, description="hands per env per rollout")
    batch_size: int = Field(64, gt=0)
    n_epochs: int = Field(4, gt=0)
    gamma: float = Field(1.0, gt=0, le=1)
    gae_lambda: float = Field(1.0, ge=0, le=1)
    clip_range: float = Field(0.2, gt=0)
    ent_coef: float = Field(0.01, ge=0)
    vf_coef: float = Field(0.5, ge=0)
    max_grad_norm: float = Field(0.5, gt=0)
    target_kl: float | None = Field(None, gt=0)
    normalize_advantage: bool = True


class CheckpointConfig(Section):
    """The checkpoint schedule: checkpoints between the run's first and ``final.zip``."""

    every: int = Field(0, ge=0, description="hands between checkpoints (0: only at the end)")


class PPOTrainConfig(TrainConfig):
    """A run of self-play PPO (``algorithm: ppo``): the shared settings, the vectorised
    tables the learner plays at, the PPO hyper-parameters, the opponent pool and the
    checkpoint schedule."""

    placed_after: ClassVar[dict[str, str]] = {"n_envs": "total_timesteps", "ppo": "policy", "checkpoint": "eval"}
    resumable: ClassVar[tuple[str, ...]] = ("checkpoint", "selfplay")

    n_envs: int = Field(8, gt=0, le=MAX_ENVS)
    vec_env: Literal["batched", "dummy", "subproc"] = Field(
        "batched", description="batched: all envs' tables dealt, decided and scored together in this process; "
        "dummy: one SelfPlayEnv per env in this process; subproc: one process per env")
    reward_scale: float = Field(1.0, gt=0, description="reward = payoff * reward_scale")
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    selfplay: SelfPlayConfig = Field(default_factory=SelfPlayConfig)
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig)

    def trainer_checks(self) -> None:
        if self.policy.offered:  # the offered splits are a seat's candidates: every seat decides among them
            if "mask" in self.selfplay.model_fields_set and self.selfplay.mask != "undominated":
                raise ValueError(f"selfplay.mask: {self.selfplay.mask} does not go with the {self.policy.kind} policy: "
                                 "the splits offered are the candidates (mask undominated, its default)")
            self.selfplay.mask = "undominated"
        if self.vec_env == "subproc" and self.n_envs > MAX_WORKERS:  # one process per env
            raise ValueError(f"n_envs: {self.n_envs} is more than the most allowed under vec_env: subproc (one "
                             f"process per env), {MAX_WORKERS}; use vec_env: batched for more envs")
        rollout = self.ppo.n_steps * self.n_envs
        if self.ppo.batch_size > rollout:
            raise ValueError(f"ppo.batch_size: {self.ppo.batch_size} exceeds a rollout of ppo.n_steps * n_envs "
                             f"= {rollout} hands")
        check_bytes(rollout_bytes(self), f"n_envs: {self.n_envs} with ppo.n_steps: {self.ppo.n_steps} "
                    f"({rollout:,} {self.game} hands a rollout)",
                    "lower n_envs or ppo.n_steps (the rollout buffer keeps every hand's mask and observation)")

    def trainer_agent_specs(self) -> list[tuple[str, str]]:
        """The self-play baselines, when they get seats."""
        if self.selfplay.baseline_share == 0:
            return []
        return [(f"selfplay.baselines[{i}]", spec) for i, spec in enumerate(self.selfplay.baselines)]


#: the float32 values the rollout buffer keeps for each hand beside its observation and mask:
#: the action, reward, value, log-probability, advantage, return and episode start
_BUFFER_SCALARS = 7


def rollout_bytes(config: PPOTrainConfig) -> int:
    """About the most bytes a PPO run's rollout takes: the rollout buffer (each hand's mask as
    bits, its float32 observation and :data:`_BUFFER_SCALARS` float32 values) twice, as
    Stable-Baselines3 flattens a copy of it to train, and the vector env's tables (each seat's
    bool mask, float32 observation, offered splits under a policy over them, and hand). A hand's
    mask and observation are those of the learner's form of action
    (:meth:`~splitpoker.train.config.TrainConfig.actions`)."""
    from ..envs.games import make_game
    from ..envs.offered_env import action_form

    game = make_game(config.game, config.preset, **config.rules)
    form = action_form(game=game, mask=config.selfplay.mask, **config.actions())
    per_hand = (form.width + 7) // 8 + 4 * form.observation_size + 4 * _BUFFER_SCALARS
    per_table = config.num_players * (form.seat_bytes() + 8 * game.hand_size)
    return 2 * config.ppo.n_steps * config.n_envs * per_hand + config.n_envs * per_table
