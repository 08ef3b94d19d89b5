"""The PPO trainer (``algorithm: ppo``): self-play with MaskablePPO.

:class:`PPOTrainer` builds the vectorised :class:`~splitpoker.train.selfplay.SelfPlayEnv`
views sharing one opponent pool (:func:`make_vec_env`) and the MaskablePPO learner
(:func:`build_model`, or :func:`load_learner` from the latest checkpoint), and learns in
whole rollouts (:func:`planned_steps`), adding snapshots to the pool and logging to
TensorBoard (``charts/``, ``losses/``, ``selfplay/``) with a rich progress bar on stderr
(:class:`SelfPlayCallback`, :class:`ProgressCallback`). With ``imitation.rounds > 1`` the
run base clones the solver again between equal self-play phases, the solver then answering
the latest checkpoint.

Between two rollouts (:meth:`PPOTrainer.at_boundary`) the model, optimizer and pool are what
a checkpoint saves: checkpoints are written and a deferred Ctrl-C or SIGTERM stops the run
there, and every random stream of the next rollout restarts from ``(seed, step)``, so that a
resumed run plays exactly what an uninterrupted run plays (see "Interrupts and resume" in
docs/training.md).

The run folder, checkpoints, signals, evaluations and warm start are the run base's
(:mod:`.run`); starting and resuming runs are :mod:`.launch`'s, whose entry points
(:func:`train`, :func:`resume_run`, ...) this module also offers under their old names.
"""

from __future__ import annotations

import importlib
import random
import time
import warnings
from collections import Counter
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from ..envs.games import Game, make_game
from ..runtime.interrupts import spawning_deaf
from ..runtime.limits import check_workers
from ..runtime.seeding import derived_seed
from .buffers import PackedMaskRolloutBuffer
from .config import SelfPlayConfig
from .learner import checkpoint_counters, checkpoint_params, policy_spec, run_meta, save_checkpoint
from .ppo_config import PPOTrainConfig
from .run import Trainer as BaseTrainer
from .run import next_multiple
from .selfplay import OpponentPool, SelfPlayEnv, SelfPlayVecEnv

__all__ = ["PPOTrainer", "ProgressCallback", "SelfPlayCallback", "build_model", "load_learner", "make_vec_env",
           "planned_steps", "rollout_size", "sync_pool"]

#: names this module offered before the run base (:mod:`.run`, :mod:`.launch`) took them: where they are now
_MOVED = {**dict.fromkeys(("RESUMABLE", "RUN_STAMP_FILE", "check_device", "check_resume_meta", "check_run",
                           "command_line", "new_run_dir", "resume_run", "start_run", "train", "trainer_class",
                           "write_run_stamp"), "launch"),
          **dict.fromkeys(("RunResult", "next_multiple"), "run"),
          **dict.fromkeys(("GroupedTensorBoard", "drop_events_after"), "tensorboard"),
          **dict.fromkeys(("best_response", "br_line", "eval_markdown", "eval_table", "evaluate_policy"), "evaluation")}


def __getattr__(name: str) -> Any:
    """A name that moved to the run base: found there, with a DeprecationWarning that says where."""
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"splitpoker.train.ppo.{name} is splitpoker.train.{_MOVED[name]}.{name}; import it from there",
                  DeprecationWarning, stacklevel=2)
    return getattr(importlib.import_module(f"{__package__}.{_MOVED[name]}"), name)


# --------------------------------------------------------------------------- the learner
def build_model(config: PPOTrainConfig, env: VecEnv) -> MaskablePPO:
    """A fresh MaskablePPO learner for the config."""
    ppo = config.ppo
    cls, kwargs = policy_spec(config)
    return MaskablePPO(
        cls, env,
        learning_rate=ppo.learning_rate, n_steps=ppo.n_steps, batch_size=ppo.batch_size, n_epochs=ppo.n_epochs,
        gamma=ppo.gamma, gae_lambda=ppo.gae_lambda, clip_range=ppo.clip_range, ent_coef=ppo.ent_coef,
        vf_coef=ppo.vf_coef, max_grad_norm=ppo.max_grad_norm, target_kl=ppo.target_kl,
        normalize_advantage=ppo.normalize_advantage, policy_kwargs=kwargs,
        rollout_buffer_class=PackedMaskRolloutBuffer,
        rollout_buffer_kwargs={"lists_read": getattr(cls, "reads_marked_lists", False)},
        seed=config.seed, device=config.device, verbose=0,
    )


def load_learner(config: PPOTrainConfig, env: VecEnv, path: Path) -> MaskablePPO:
    """The learner saved in checkpoint ``path``, without running anything the file holds:
    built from ``config`` (:func:`build_model`, the settings a resume may not change), then
    given the checkpoint's weights and optimizer state (read as tensors only, the weights
    checked: :func:`~splitpoker.train.learner.checkpoint_params`) and its
    :func:`~splitpoker.train.learner.checkpoint_counters`."""
    counters = checkpoint_counters(path)
    params = checkpoint_params(path, config.device)
    model = build_model(config, env)
    model.set_parameters(params, exact_match=True, device=config.device)
    for key, value in counters.items():
        setattr(model, key, value)
    return model


def rollout_size(config: PPOTrainConfig) -> int:
    """Hands of one rollout: ``ppo.n_steps * n_envs``."""
    return config.ppo.n_steps * config.n_envs


def planned_steps(config: PPOTrainConfig) -> int:
    """The hands a run plays: ``total_timesteps`` rounded up to whole rollouts (PPO updates on
    whole rollouts; an interrupted rollout is neither kept nor counted)."""
    size = rollout_size(config)
    return -(-config.total_timesteps // size) * size


# --------------------------------------------------------------------------- environments
def _subproc_env(config_data: dict[str, Any], index: int) -> SelfPlayEnv:
    from .config import load_config_dict

    config = load_config_dict(config_data)
    assert isinstance(config, PPOTrainConfig)
    th.set_num_threads(1)
    game = make_game(config.game, **config.game_kwargs())
    pool = OpponentPool(game, config.num_players, run_meta(config, game, 0), config.selfplay,
                        seed=config.seed + 1000 * (index + 1))
    return SelfPlayEnv(game, config.num_players, pool, config.reward_scale, seat_offset=index,
                       mask=config.selfplay.mask, **config.actions())


def _same(env: SelfPlayEnv) -> SelfPlayEnv:
    return env


def make_vec_env(config: PPOTrainConfig, game: Game, pool: OpponentPool) -> VecEnv:
    """The learner's vectorised envs: batched over the table core (sharing ``pool``), one
    env each in this process (sharing ``pool``), or one process each; the learner acts in the
    config's form of action (:meth:`~splitpoker.train.config.TrainConfig.actions`: a split
    index, or a slot of its offered splits)."""
    if config.vec_env == "batched":
        return SelfPlayVecEnv(game, config.num_players, pool, config.n_envs, config.reward_scale,
                              mask=config.selfplay.mask, **config.actions())
    if config.vec_env == "subproc":
        check_workers(config.n_envs, "n_envs (vec_env: subproc, one process each)")
        data = config.resolved()
        with spawning_deaf():  # Ctrl-C reaches the trainer only; closing the envs stops the workers
            return SubprocVecEnv([partial(_subproc_env, data, i) for i in range(config.n_envs)],
                                 start_method="spawn")
    envs = [SelfPlayEnv(game, config.num_players, pool, config.reward_scale, seat_offset=i, mask=config.selfplay.mask,
                        **config.actions()) for i in range(config.n_envs)]
    return DummyVecEnv([partial(_same, env) for env in envs])


def sync_pool(env: VecEnv, pool: OpponentPool) -> None:
    """Copy the pool's snapshots to envs in other processes (shared already in this process)."""
    if isinstance(env, SubprocVecEnv):
        env.env_method("set_pool_state", {"snapshots": pool.state()["snapshots"]})


# --------------------------------------------------------------------------- callbacks
class ProgressCallback(BaseCallback):
    """A rich progress bar (steps, hands/s, ETA, last evaluation) on stderr."""

    def __init__(self, total: int, start: int, enabled: bool) -> None:
        super().__init__()
        from rich.progress import TextColumn

        from ..runtime.progress import progress_bar

        self.progress = progress_bar(TextColumn("{task.fields[rate]} hands/s"), TextColumn("{task.fields[note]}"),
                                     disable=not enabled)
        self.task = self.progress.add_task("training", total=total, completed=start, rate="-", note="")
        self._t0 = time.perf_counter()
        self._n0 = start

    def note(self, text: str) -> None:
        self.progress.update(self.task, note=text)

    def _on_training_start(self) -> None:
        self.progress.start()
        self._t0, self._n0 = time.perf_counter(), self.num_timesteps

    def _on_step(self) -> bool:
        elapsed = time.perf_counter() - self._t0
        rate = (self.num_timesteps - self._n0) / elapsed if elapsed > 0 else 0.0
        self.progress.update(self.task, completed=self.num_timesteps, rate=f"{rate:.1f}")
        return True

    def _on_training_end(self) -> None:
        self.progress.update(self.task, completed=self.num_timesteps)
        self.progress.stop()


class SelfPlayCallback(BaseCallback):
    """Metrics of the hands played, snapshots, periodic evaluation and checkpoints."""

    def __init__(self, trainer: PPOTrainer) -> None:
        super().__init__()
        self.trainer = trainer
        self.payoffs: list[float] = []
        self.opponents: Counter[str] = Counter()
        self._t = time.perf_counter()
        self._n = 0

    def _on_training_start(self) -> None:
        self._t, self._n = time.perf_counter(), self.num_timesteps

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            if "payoff" in info:
                self.payoffs.append(info["payoff"])
                self.opponents.update("snapshot" if n.startswith("snapshot@") else n for n in info["opponents"])
        return True

    def _on_rollout_start(self) -> None:
        self.trainer.at_boundary(self.num_timesteps, reseed=True)

    def _on_rollout_end(self) -> None:
        trainer, step = self.trainer, self.num_timesteps
        trainer.phase = "update"  # from here to the next rollout, a signal waits for the next boundary
        now = time.perf_counter()
        rate = (step - self._n) / max(now - self._t, 1e-9)
        self._t, self._n = now, step
        trainer.hands_per_s = rate
        if self.payoffs:
            self.logger.record("charts/mean_payoff", float(np.mean(self.payoffs)))
            self.logger.record("charts/mean_reward", float(np.mean(self.payoffs)) * trainer.config.reward_scale)
        self.logger.record("charts/hands_per_s", rate)
        seats = sum(self.opponents.values())
        for name, count in sorted(self.opponents.items()):
            self.logger.record(f"selfplay/share_{name}", count / seats)
        self.logger.record("selfplay/pool_size", len(trainer.pool))
        self.payoffs.clear()
        self.opponents.clear()
        trainer.on_rollout_end(step)


# --------------------------------------------------------------------------- trainer
class PPOTrainer(BaseTrainer):
    """A run of self-play PPO: the run base (:class:`~splitpoker.train.run.Trainer`) with
    MaskablePPO learning in whole rollouts against the pool."""

    hparam_metrics: ClassVar[tuple[str, ...]] = ("charts/mean_payoff",)
    update_name: ClassVar[str] = "the PPO update"
    config: PPOTrainConfig

    def build(self) -> None:
        self.env = make_vec_env(self.config, self.game, self.pool)
        self.model = build_model(self.config, self.env)

    def load(self, path: Path) -> None:
        if getattr(self, "env", None) is None:
            self.env = make_vec_env(self.config, self.game, self.pool)
        self.model = load_learner(self.config, self.env, path)

    @property
    def step(self) -> int:
        return int(self.model.num_timesteps)

    @step.setter
    def step(self, value: int) -> None:
        self.model.num_timesteps = value

    @property
    def policy(self) -> MaskableActorCriticPolicy:
        return self.model.policy

    def save_learner(self, path: Path, meta: Mapping[str, Any]) -> Path:
        return save_checkpoint(self.model, path, meta)

    def attach(self, logger: Any) -> None:
        self.model.set_logger(logger)

    def pool_changed(self) -> None:
        sync_pool(self.env, self.pool)

    def close_learner(self) -> None:
        if getattr(self, "env", None) is not None:
            self.env.close()

    def pool_settings(self) -> SelfPlayConfig:
        return self.config.selfplay

    def checkpoint_every(self) -> int:
        return self.config.checkpoint.every

    def algorithm_hparams(self) -> dict[str, Any]:
        """PPO's settings and the self-play schedule's."""
        c = self.config
        hparams: dict[str, Any] = {"n_envs": c.n_envs, "reward_scale": c.reward_scale}
        hparams.update({f"ppo/{k}": v for k, v in c.ppo.model_dump().items() if v is not None})
        hparams.update({f"selfplay/{k}": ",".join(v) if isinstance(v, list) else v
                        for k, v in c.selfplay.model_dump().items()})
        return hparams

    # ------------------------------------------------------------------ schedules
    def schedule(self, step: int) -> None:
        super().schedule(step)
        self.next_snapshot = next_multiple(step, self.config.selfplay.snapshot_interval)

    def on_rollout_end(self, step: int) -> None:
        if self.next_snapshot is not None and step >= self.next_snapshot:
            self.add_snapshot(step)
            self.next_snapshot = next_multiple(step, self.config.selfplay.snapshot_interval)
        self.eval_if_due(step)

    # ------------------------------------------------------------------ run
    def starting(self) -> None:
        config = self.config
        planned = planned_steps(config)
        if not self.resumed and planned != config.total_timesteps:
            self.emit(f"total_timesteps {config.total_timesteps} is played as {planned} hands: whole rollouts of "
                      f"ppo.n_steps * n_envs = {rollout_size(config)}")
        if len(self.pool) == 0 and not (config.imitation.enabled and self.state["imitation_rounds_done"] == 0):
            self.add_snapshot(self.step)

    def learn_until(self, bound: int) -> None:
        self.progress = ProgressCallback(planned_steps(self.config), self.step, enabled=self.config.progress)
        callbacks = [SelfPlayCallback(self), self.progress]
        self.model.learn(total_timesteps=bound - self.step, callback=callbacks, reset_num_timesteps=False,
                         progress_bar=False)
        self.at_boundary(self.step, reseed=False)

    def at_boundary(self, step: int, reseed: bool) -> None:
        """Between two rollouts (after the update, before the next collection; also when
        ``learn`` returns): the run base's :meth:`~splitpoker.train.run.Trainer.boundary`
        (checkpoints when due, a deferred Ctrl-C or SIGTERM stops the run here). With
        ``reseed``, every random stream of the next rollout (torch, NumPy, the envs' deals
        and seats, the pool's draws, the baselines) restarts from ``(seed, step)``: a run resumed
        from this checkpoint plays exactly what an uninterrupted run plays."""
        self.boundary(step)
        if reseed:
            self._reseed(step)
        self.phase = "collect"

    def _reseed(self, step: int) -> None:
        for snapshot in self.pool.snapshots:  # built now, not mid-rollout: building draws from torch's generator
            self.pool.agent(snapshot)
        seed = derived_seed(self.config.seed, step, 0x5EED)
        th.manual_seed(seed)
        np.random.seed(seed)  # SB3 shuffles minibatches with NumPy's global generator
        random.seed(seed)
        self.pool.rng.bit_generator.state = np.random.default_rng([seed, 7]).bit_generator.state
        for i, agent in enumerate(self.pool.baselines):
            agent.seed(seed + i)
        n = self.config.n_envs
        self.env.env_method("restart_at", step // n)  # the learner's seat rotates from a point fixed by the step
        self.env.seed(seed)
        self.model._last_obs = self.env.reset()  # type: ignore[assignment]
        self.model._last_episode_starts = np.ones((n,), dtype=bool)
