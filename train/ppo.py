"""Self-play training with MaskablePPO: the run folder, callbacks, evaluation and resume.

:func:`train` runs a :class:`~splitpoker.train.config.TrainConfig`:

1. checks everything the run needs (:func:`check_run`), then creates
   ``runs/<game>__<config>__<seed>__<timestamp>/`` with ``config.yaml`` (resolved),
   ``command.txt`` and ``splitpoker.json`` (the version and commit that started the run and
   each resume, :func:`write_run_stamp`), or reopens it with :func:`resume_run`;
2. builds the vectorised :class:`~splitpoker.train.selfplay.SelfPlayEnv` views sharing one
   opponent pool, and the MaskablePPO learner (or loads the latest checkpoint);
3. optionally clones the solver (:mod:`splitpoker.train.imitation`) before self-play, and
   with ``imitation.rounds > 1`` again between equal self-play phases, the solver then
   answering the latest checkpoint;
4. learns, adding snapshots to the pool, evaluating, checkpointing and logging to
   TensorBoard (``charts/``, ``losses/``, ``selfplay/``, ``eval/`` and the hyper-parameters;
   imitation epochs under ``imitation/`` on their own axis) with a rich progress bar on stderr;
5. saves ``checkpoints/final.zip`` and evaluates it against each ``eval.opponents`` spec
   over duplicate deals (``final/`` in TensorBoard), writing ``eval/final.md`` and
   ``eval/final.json``; only then is the run marked finished.

Ctrl-C or SIGTERM saves the resume point and returns; :func:`resume_run` continues the step
count, pool and optimizer exactly (see :meth:`Trainer.at_boundary` and "Interrupts and
resume" in docs/training.md).

The run folder, checkpoints, signals, evaluations, warm start and :meth:`Trainer.finish`
serve fictitious play too: :func:`trainer_class` picks the trainer of ``config.algorithm``
from the registry of :mod:`.trainers`,
:class:`~splitpoker.train.fictitious.FictitiousPlayTrainer` (a subclass whose rounds
replace the PPO phases) for ``fictitious_play``.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import shlex
import shutil
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import HParam, KVWriter, Logger, TensorBoardOutputFormat
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from ..agents import load_agent
from ..agents.policy import PolicyAgent, read_meta
from ..agents.version import stamp
from ..envs.games import Game, make_game
from ..envs.messages import cut
from ..envs.table import derived_seed
from ..runtime.files import atomic_write_bytes, exclusive_lock
from ..runtime.interrupts import Interrupted, handled, signal_of, spawning_deaf, unmasked
from . import trainers
from .config import SHOWN_CHARS, TrainConfig, find_config, load_config, model_keys
from .policies import (
    POOL_FILE,
    build_model,
    load_learner,
    load_pool,
    read_state,
    run_meta,
    save_checkpoint,
    save_pool,
    write_state,
)
from .selfplay import OpponentPool, SelfPlayEnv, SelfPlayVecEnv

#: settings a resumed run may change with --set (the rest define the model and the table)
RESUMABLE = ("total_timesteps", "eval", "checkpoint", "progress", "torch_threads", "selfplay", "imitation",
             "fictitious_play", "output_dir")
#: SB3 logger keys → TensorBoard tags
_RENAMES = {"time/fps": "charts/steps_per_s", "time/time_elapsed": "charts/time_elapsed",
            "time/total_timesteps": "charts/total_timesteps", "time/iterations": "charts/iterations"}


class GroupedTensorBoard(KVWriter):
    """TensorBoard writer that files SB3's ``train/`` values under ``losses/`` and ``time/`` under ``charts/``."""

    def __init__(self, folder: str | Path) -> None:
        self.inner = TensorBoardOutputFormat(str(folder))

    @staticmethod
    def rename(key: str) -> str:
        if key in _RENAMES:
            return _RENAMES[key]
        if key.startswith("train/"):
            return "losses/" + key[len("train/"):]
        if key.startswith("rollout/"):
            return "charts/" + key[len("rollout/"):]
        return key

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, tuple[str, ...]], step: int = 0) -> None:
        key_values = {k: v for k, v in key_values.items() if k != "time/iterations"}  # restarts with each learn()
        key_excluded = {k: v for k, v in key_excluded.items() if k in key_values}
        self.inner.write({self.rename(k): v for k, v in key_values.items()},
                         {self.rename(k): v for k, v in key_excluded.items()}, step)

    def close(self) -> None:
        self.inner.close()


@dataclass
class RunResult:
    """What a training run produced."""

    run_dir: Path
    steps: int
    checkpoint: Path
    interrupted: bool = False
    results: dict[str, Any] = field(default_factory=dict)
    hands_per_s: float = float("nan")
    report: Path | None = None
    #: what stopped an interrupted run: "SIGINT" (Ctrl-C) or "SIGTERM"
    signal: str | None = None
    #: the final best-response gain (``eval.br_final_hands`` > 0)
    best_response: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"run_dir": str(self.run_dir), "steps": self.steps, "checkpoint": str(self.checkpoint),
                "interrupted": self.interrupted, "signal": self.signal, "hands_per_s": self.hands_per_s,
                "report": str(self.report) if self.report else None, "eval": self.results,
                "best_response": self.best_response}


# --------------------------------------------------------------------------- environments
def _subproc_env(config_data: dict[str, Any], index: int) -> SelfPlayEnv:
    from .config import load_config_dict

    config = load_config_dict(config_data)
    th.set_num_threads(1)
    game = make_game(config.game, **config.game_kwargs())
    pool = OpponentPool(game, config.num_players, run_meta(config, game, 0), config.selfplay,
                        seed=config.seed + 1000 * (index + 1))
    return SelfPlayEnv(game, config.num_players, pool, config.reward_scale, seat_offset=index,
                       mask=config.selfplay.mask)


def make_vec_env(config: TrainConfig, game: Game, pool: OpponentPool) -> VecEnv:
    """The learner's vectorised envs: batched over the table core (sharing ``pool``), one
    env each in this process (sharing ``pool``), or one process each."""
    if config.vec_env == "batched":
        return SelfPlayVecEnv(game, config.num_players, pool, config.n_envs, config.reward_scale,
                              mask=config.selfplay.mask)
    if config.vec_env == "subproc":
        from functools import partial

        data = config.resolved()
        with spawning_deaf():  # Ctrl-C reaches the trainer only; closing the envs stops the workers
            return SubprocVecEnv([partial(_subproc_env, data, i) for i in range(config.n_envs)],
                                 start_method="spawn")
    envs = [SelfPlayEnv(game, config.num_players, pool, config.reward_scale, seat_offset=i, mask=config.selfplay.mask)
            for i in range(config.n_envs)]
    return DummyVecEnv([(lambda env=env: env) for env in envs])


def sync_pool(env: VecEnv, pool: OpponentPool) -> None:
    """Copy the pool's snapshots to envs in other processes (shared already in this process)."""
    if isinstance(env, SubprocVecEnv):
        env.env_method("set_pool_state", {"snapshots": pool.state()["snapshots"]})


# --------------------------------------------------------------------------- evaluation
def evaluate_policy(agent: PolicyAgent, game: Game, config: TrainConfig, hands: int,
                    progress: bool = False) -> dict[str, dict[str, Any]]:
    """Duplicate matches of the policy against each ``eval.opponents`` spec."""
    from ..eval.match import evaluate

    out = {}
    for i, spec in enumerate(config.eval.opponents):
        opponent = load_agent(spec, game=game, num_players=config.num_players, seed=config.eval.seed + i)
        results = evaluate(game, [agent, opponent], config.num_players, hands, config.eval.seed, progress=progress,
                           specs=["policy", spec])
        out[spec] = {"policy": results[0].to_dict(), "opponent": results[1].to_dict()}
    return out


def best_response(agent: PolicyAgent, game: Game, config: TrainConfig, hands: int) -> dict[str, Any] | None:
    """The policy's best-response gain over ``hands`` duplicate deals (None when ``hands`` is 0)."""
    if hands == 0:
        return None
    from ..eval.exploit import agent_gain

    return agent_gain(game, agent, config.num_players, samples=config.eval.br_samples, hands=hands,
                      seed=config.eval.seed)


def br_line(gain: dict[str, Any]) -> str:
    """One line: the best-response gain, its CI, samples and deals."""
    return (f"best-response gain {gain['gain']:+.3f} [{gain['ci95'][0]:+.3f}, {gain['ci95'][1]:+.3f}] "
            f"(solver:samples={gain['samples']} answering the policy, {gain['deals']} deals)")


def eval_table(results: dict[str, dict[str, Any]]) -> str:
    """A plain-text table: the policy's mean payoff and 95% CI against each opponent."""
    header = ["opponent", "policy mean", "95% CI", "opponent mean", "deals", "policy foul rate", "ms/decision"]
    rows = []
    for spec, r in results.items():
        p, o = r["policy"], r["opponent"]
        rows.append([spec, f"{p['mean']:+.3f}", f"[{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}]", f"{o['mean']:+.3f}",
                     str(r.get("deals", "")), f"{p['foul_rate']:.1%}", f"{p['ms_per_decision']:.2f}"])
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def eval_markdown(results: dict[str, dict[str, Any]], config: TrainConfig, steps: int, checkpoint: Path) -> str:
    lines = [f"# {config.game} policy evaluation: {config.num_players} players, preset {config.preset}", "",
             f"Checkpoint `{checkpoint}` after {steps} training hands, policy `{config.policy.kind}`.",
             f"Duplicate deals (each replayed in all {config.num_players} seat rotations; seats alternate policy "
             f"and opponent), seed {config.eval.seed}. Mean payoff per hand with the 95% CI over deals.", "",
             "| opponent | policy mean | 95% CI | opponent mean | deals | policy foul rate | ms/decision |",
             "|---|---|---|---|---|---|---|"]
    for spec, r in results.items():
        p, o = r["policy"], r["opponent"]
        lines.append(f"| {spec} | {p['mean']:+.3f} | [{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}] | {o['mean']:+.3f} "
                     f"| {r.get('deals', '')} | {p['foul_rate']:.1%} | {p['ms_per_decision']:.2f} |")
    return "\n".join(lines) + "\n"


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

    def __init__(self, trainer: Trainer) -> None:
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
def rollout_size(config: TrainConfig) -> int:
    """Hands of one rollout: ``ppo.n_steps * n_envs``."""
    return config.ppo.n_steps * config.n_envs


def planned_steps(config: TrainConfig) -> int:
    """The hands a run plays: ``total_timesteps`` rounded up to whole rollouts (PPO updates on
    whole rollouts; an interrupted rollout is neither kept nor counted)."""
    size = rollout_size(config)
    return -(-config.total_timesteps // size) * size


def drop_events_after(run_dir: Path, step: int, imitation_epochs: int, finished: bool) -> None:
    """Before a resume from the checkpoint at ``step``: drop what the stopped process logged
    after it, so that no step is logged twice: TensorBoard points beyond ``step``, the
    ``final/`` points of an unfinished run, imitation epochs beyond ``imitation_epochs`` and
    periodic evaluation files beyond ``step``."""
    for path in run_dir.glob("events.out.tfevents.*"):
        _rewrite_events(path, lambda tag, at: at <= step and (finished or not tag.startswith("final/")))
    for path in (run_dir / "imitation").glob("events.out.tfevents.*"):
        _rewrite_events(path, lambda tag, at: at <= imitation_epochs)
    for path in (run_dir / "eval").glob("step_*.json"):
        if path.stem[5:].isdigit() and int(path.stem[5:]) > step:
            path.unlink()


def _rewrite_events(path: Path, keep: Callable[[str, int], bool]) -> None:
    """Rewrite a TensorBoard event file without the summary values ``keep(tag, step)`` refuses."""
    from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.summary.writer.record_writer import RecordWriter

    kept, dropped = [], 0
    for record in RawEventFileLoader(str(path)).Load():
        event = Event.FromString(record)
        if event.HasField("summary"):
            values = [v for v in event.summary.value if keep(v.tag, event.step)]
            if len(values) != len(event.summary.value):
                dropped += len(event.summary.value) - len(values)
                if not values:
                    continue
                del event.summary.value[:]
                event.summary.value.extend(values)
                record = event.SerializeToString()
        kept.append(record)
    if not dropped:
        return
    buffer = io.BytesIO()
    writer = RecordWriter(buffer)
    for record in kept:
        writer.write(record)
    atomic_write_bytes(path, buffer.getvalue())


def next_multiple(step: int, every: int) -> int | None:
    return (step // every + 1) * every if every > 0 else None


def run_name(config: TrainConfig, stem: str) -> str:
    return f"{config.game}__{stem}__{config.seed}__{datetime.now().strftime('%Y%m%d-%H%M%S')}"


class Trainer:
    """One run: environments, learner, pool, schedules and files."""

    def __init__(self, config: TrainConfig, run_dir: Path, resume: bool, emit: Callable[[str], None]) -> None:
        self.config = config
        self.run_dir = run_dir
        self.emit = emit
        self.checkpoints = run_dir / "checkpoints"
        self.eval_dir = run_dir / "eval"
        self.checkpoints.mkdir(parents=True, exist_ok=True)
        self.eval_dir.mkdir(parents=True, exist_ok=True)
        if config.torch_threads:
            th.set_num_threads(config.torch_threads)
        th.distributions.Distribution.set_default_validate_args(False)  # 72,072-way categoricals
        self.game = make_game(config.game, **config.game_kwargs())
        self.pool = OpponentPool(self.game, config.num_players, run_meta(config, self.game, 0), config.selfplay,
                                 seed=config.seed)
        self.env = make_vec_env(config, self.game, self.pool)
        self.state: dict[str, Any] = {"imitation_rounds_done": 0, "imitation_epochs": 0, "finished": False}
        if resume:
            self.state = read_state(self.checkpoints)
            for name, load in ((self.state["checkpoint"], self._load_model), (self.state["pool"], self._load_pool)):
                try:
                    load(self.checkpoints / name)
                except Exception as error:  # CRC, zlib, torch or pickle errors of a damaged file
                    self.env.close()
                    first = str(error).splitlines()[0] if str(error).strip() else ""
                    raise ValueError(f"{self.checkpoints / name} is damaged and cannot be resumed from "
                                     f"({type(error).__name__}{': ' + first if first else ''})") from None
            if self.model.num_timesteps != self.state["step"]:  # before anything in the folder changes
                self.env.close()
                raise ValueError(f"{self.checkpoints / 'state.json'} is damaged: it records step {self.state['step']} "
                                 f"but checkpoint {self.state['checkpoint']} holds step {self.model.num_timesteps}")
            sync_pool(self.env, self.pool)
            self.state.setdefault("imitation_epochs", 0)
            drop_events_after(run_dir, self.model.num_timesteps, self.state["imitation_epochs"],
                              finished=bool(self.state.get("finished")))
        else:
            self.model = build_model(config, self.env)
        self.logger = Logger(str(run_dir), [GroupedTensorBoard(run_dir)])
        self.model.set_logger(self.logger)
        self.hands_per_s = float("nan")
        self.last_eval: dict[str, Any] = {}
        self.progress: ProgressCallback | None = None
        self.latest_checkpoint: Path | None = (self.checkpoints / self.state["checkpoint"]) if resume else None
        self.resumed = resume
        #: what the run is doing: a signal stops "collect", "imitation", "round" (of fictitious play), "final"
        #: and "setup" at once (the
        #: latest checkpoint, or the boundary the rollout began at, is the resume point) and waits in
        #: "update", "boundary", "save" and "stopping" for the next boundary
        self.phase = "setup"
        self.pending_signal: int | None = None
        #: the step at the start of the current rollout: the model is as it was there until the rollout ends
        self.boundary_step = self.model.num_timesteps
        self._imitation_writer: Any = None
        self._schedule(self.model.num_timesteps)

    def _load_model(self, path: Path) -> None:
        self.model = load_learner(self.config, self.env, path)

    def _load_pool(self, path: Path) -> None:
        self.pool.load_state(load_pool(path))

    # ------------------------------------------------------------------ schedules
    def _schedule(self, step: int) -> None:
        self.next_snapshot = next_multiple(step, self.config.selfplay.snapshot_interval)
        self.next_eval = next_multiple(step, self.config.eval.every)
        self.next_checkpoint = next_multiple(step, self.config.checkpoint.every)

    def on_rollout_end(self, step: int) -> None:
        if self.next_snapshot is not None and step >= self.next_snapshot:
            self.add_snapshot(step)
            self.next_snapshot = next_multiple(step, self.config.selfplay.snapshot_interval)
        if self.next_eval is not None and step >= self.next_eval:
            self.periodic_eval(step)
            self.next_eval = next_multiple(step, self.config.eval.every)

    # ------------------------------------------------------------------ boundaries and signals
    def at_boundary(self, step: int, reseed: bool) -> None:
        """Between two rollouts (after the update, before the next collection; also when
        ``learn`` returns): the model, optimizer and pool are what a checkpoint saves, so this
        is where checkpoints are written and where a deferred Ctrl-C or SIGTERM stops the run.
        With ``reseed``, every random stream of the next rollout (torch, NumPy, the envs' deals
        and seats, the pool's draws, the baselines) restarts from ``(seed, step)``: a run resumed
        from this checkpoint plays exactly what an uninterrupted run plays."""
        self.phase = "boundary"
        if self.logger.name_to_value:  # the losses of the update that just ended, at the step of its rollout
            self.logger.dump(step)
        self.check_finite(step, "the PPO update")
        if self.next_checkpoint is not None and step >= self.next_checkpoint:
            self.save(f"step_{step:09d}.zip")
            self.next_checkpoint = next_multiple(step, self.config.checkpoint.every)
        self.boundary_step = step
        if self.pending_signal is not None:
            raise Interrupted(self.pending_signal)
        if reseed:
            self._reseed(step)
        self.phase = "collect"

    def check_finite(self, step: int, update: str) -> None:
        """ValueError, in one line, when ``update`` (ending at ``step``) left a weight of the
        policy NaN or infinite (a loss that was not finite does): the run stops before
        anything saves those weights, and its latest checkpoint stays the resume point."""
        bad = next((name for name, p in self.model.policy.named_parameters() if not bool(th.isfinite(p).all())), None)
        if bad is None:
            return
        self.close()
        raise ValueError(f"training diverged at step {step}: {update} left the policy's {bad} not finite (a "
                         f"NaN or infinite loss); {self.run_dir} resumes from its checkpoint of step "
                         f"{self.state.get('step', 0)} (--resume RUN_DIR; a lower learning rate may be needed)")

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

    def _on_signal(self, signum: int) -> bool:
        """Whether a signal stops the run now (else it is kept for the next boundary)."""
        if self.phase in ("collect", "imitation", "round", "final", "setup"):
            return True
        if self.pending_signal is None and self.phase != "stopping":
            self.emit(f"{signal.Signals(signum).name}: stopping at the end of this update")
        self.pending_signal = signum
        return False

    @contextlib.contextmanager
    def _during(self, phase: str) -> Iterator[None]:
        """Run a block in ``phase``; a signal kept meanwhile is raised after it when the phase
        the run returns to stops at once."""
        before, self.phase = self.phase, phase
        try:
            yield
        finally:
            self.phase = before
        if self.pending_signal is not None and self._on_signal(self.pending_signal):
            raise Interrupted(self.pending_signal)

    def add_snapshot(self, step: int) -> None:
        self.pool.add(self.model.policy.state_dict(), step)
        sync_pool(self.env, self.pool)

    def policy_agent(self) -> PolicyAgent:
        return PolicyAgent(self.model.policy, run_meta(self.config, self.game, self.model.num_timesteps),
                           name="policy")

    def record_interval(self, tag: str, prefix: str, mean: float, ci95: Sequence[float]) -> None:
        """Record ``mean`` as ``tag`` and its 95% CI as ``prefix_ci_lo`` and ``prefix_ci_hi``."""
        self.logger.record(tag, mean)
        self.logger.record(f"{prefix}_ci_lo", ci95[0])
        self.logger.record(f"{prefix}_ci_hi", ci95[1])

    def periodic_eval(self, step: int) -> None:
        results = evaluate_policy(self.policy_agent(), self.game, self.config, self.config.eval.hands)
        self.model.policy.set_training_mode(False)
        notes = []
        for spec, r in results.items():
            p = r["policy"]
            tag = spec.replace(":", "_").replace("/", "_")
            self.record_interval(f"eval/{tag}_mean", f"eval/{tag}", p["mean"], p["ci95"])
            notes.append(f"{spec} {p['mean']:+.2f}")
        gain = best_response(self.policy_agent(), self.game, self.config, self.config.eval.br_hands)
        if gain is not None:
            self.record_interval("eval/br_gain", "eval/br_gain", gain["gain"], gain["ci95"])
            notes.append(f"br gain {gain['gain']:+.2f}")
            results = {**results, "best_response": gain}
        self.last_eval = results
        atomic_write_bytes(self.eval_dir / f"step_{step:09d}.json", (json.dumps(results, indent=1) + "\n").encode())
        if self.progress is not None:
            self.progress.note("eval: " + ", ".join(notes))

    # ------------------------------------------------------------------ files
    def save(self, name: str) -> Path:
        """Write a checkpoint, its pool file and then ``state.json`` (each atomically; a signal
        waits until all three are written). A kill at any moment leaves ``state.json`` naming a
        complete checkpoint and pool."""
        with self._during("save"):
            step = self.model.num_timesteps
            pool_name = f"{Path(name).stem}.{POOL_FILE}"
            try:
                path = save_checkpoint(self.model, self.checkpoints / name, run_meta(self.config, self.game, step))
                save_pool(self.pool.state(), self.checkpoints / pool_name)
                write_state(self.checkpoints, {**self.state, "checkpoint": name, "pool": pool_name, "step": step})
            except OSError as error:
                self.close()
                how = (f"the run resumes from its checkpoint of step {self.state['step']} once there is room "
                       f"(--resume {self.run_dir})" if "step" in self.state else
                       "the run stopped before its first checkpoint: start it again once there is room")
                raise ValueError(f"cannot write {error.filename} ({error.strerror or error}) at step {step}; "
                                 f"{how}") from None
            self.state.update(checkpoint=name, pool=pool_name, step=step)
            for stale in self.checkpoints.glob(f"*{POOL_FILE}"):
                if stale.name != pool_name:
                    stale.unlink(missing_ok=True)
            self.latest_checkpoint = path
        return path

    # ------------------------------------------------------------------ imitation
    def imitation_round(self, round_index: int) -> None:
        from .imitation import behaviour_clone, label_hands, teacher_against

        cfg = self.config.imitation
        spec = cfg.solver
        step = self.model.num_timesteps
        if round_index > 0:  # the solver answers the current policy, saved first (the round's resume point)
            saved = self.latest_checkpoint
            if saved is None or saved.name != f"step_{step:09d}.zip" or self.state.get("step") != step:
                saved = self.save(f"step_{step:09d}.zip")
            spec = teacher_against(cfg.solver, saved)
        self.phase = "imitation"  # a signal stops the round; it restarts from the latest checkpoint
        self.emit(f"imitation round {round_index + 1}/{cfg.rounds}: labelling {cfg.hands} hands with {spec}")
        start = time.perf_counter()
        data, cached = label_hands(self.game, self.config.num_players, spec, cfg.hands,
                                   seed=self.config.seed * 1000 + round_index, workers=cfg.workers,
                                   cache_dir=cfg.cache_dir, backend=cfg.backend, address=cfg.address)
        self.emit(f"  {'loaded from cache' if cached else 'labelled'} in {time.perf_counter() - start:.1f} s")
        epochs_before = int(self.state.get("imitation_epochs", 0))

        def log_epoch(stats: dict[str, float]) -> None:  # on their own axis: epochs over all rounds
            writer = self.imitation_writer()
            epoch = epochs_before + int(stats["epoch"])
            writer.add_scalar("imitation/loss", stats["loss"], epoch)
            writer.add_scalar("imitation/accuracy", stats["accuracy"], epoch)
            writer.add_scalar("imitation/round", round_index + 1, epoch)
            writer.flush()
            self.emit(f"  epoch {int(stats['epoch'])}: loss {stats['loss']:.3f}, accuracy {stats['accuracy']:.1%}")

        behaviour_clone(self.model.policy, data, self.game, cfg.epochs, cfg.batch_size, cfg.learning_rate,
                        seed=self.config.seed + round_index, on_epoch=log_epoch)
        self.check_finite(step, f"imitation round {round_index + 1}'s fit")
        with self._during("save"):
            self.state["imitation_rounds_done"] = round_index + 1
            self.state["imitation_epochs"] = epochs_before + cfg.epochs
            self.add_snapshot(step)
            self.save(f"step_{step:09d}_imitated.zip")  # a new name: the round's resume point stays whole

    def imitation_writer(self) -> Any:
        """The TensorBoard writer of imitation epochs (``imitation/`` beside the run's events)."""
        if self._imitation_writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._imitation_writer = SummaryWriter(str(self.run_dir / "imitation"))
        return self._imitation_writer

    # ------------------------------------------------------------------ run
    #: the metrics TensorBoard's hparams view shows beside the final evaluation's
    hparam_metrics: tuple[str, ...] = ("charts/mean_payoff",)

    def hparams(self) -> dict[str, Any]:
        """The run's settings as TensorBoard's hparams view shows them."""
        c = self.config
        hparams: dict[str, Any] = {"game": c.game, "num_players": c.num_players, "preset": c.preset,
                                   "policy": c.policy.kind, "seed": c.seed, "total_timesteps": c.total_timesteps}
        hparams.update({f"policy/{k}": str(v) if isinstance(v, list) else v for k, v in c.policy.arch().items()})
        hparams["imitation"] = c.imitation.enabled
        return {**hparams, **self.algorithm_hparams()}

    def algorithm_hparams(self) -> dict[str, Any]:
        """The algorithm's own settings: PPO's and the self-play schedule's."""
        c = self.config
        hparams: dict[str, Any] = {"n_envs": c.n_envs, "reward_scale": c.reward_scale}
        hparams.update({f"ppo/{k}": v for k, v in c.ppo.model_dump().items() if v is not None})
        hparams.update({f"selfplay/{k}": ",".join(v) if isinstance(v, list) else v
                        for k, v in c.selfplay.model_dump().items()})
        return hparams

    def log_hparams(self) -> None:
        tag = self.config.eval.opponents[-1].replace(":", "_").replace("/", "_")
        metrics = {f"eval/{tag}_mean": 0.0, **{name: 0.0 for name in self.hparam_metrics}}
        self.logger.record("hparams", HParam(self.hparams(), metrics), exclude=("stdout", "log", "json", "csv"))
        self.logger.dump(self.model.num_timesteps)

    def run(self) -> RunResult:
        """Imitation rounds and self-play phases up to ``total_timesteps`` (rounded up to whole
        rollouts), then ``final.zip`` and its evaluation; the run is finished only once that
        evaluation is written. Ctrl-C or SIGTERM stops it resumably (:meth:`stopped`)."""
        with handled(self._on_signal):
            try:
                with unmasked():  # stopped() below saves the run with the signals still deferred
                    return self._run()
            except KeyboardInterrupt as stop:
                return self.stopped(stop)

    def _run(self) -> RunResult:
        config = self.config
        rounds = config.imitation.rounds if config.imitation.enabled else 1
        bounds = [config.total_timesteps * (r + 1) // rounds for r in range(rounds)]
        planned = planned_steps(config)
        if not self.resumed:
            self.log_hparams()
            if planned != config.total_timesteps:
                self.emit(f"total_timesteps {config.total_timesteps} is played as {planned} hands: whole rollouts of "
                          f"ppo.n_steps * n_envs = {rollout_size(config)}")
        if len(self.pool) == 0 and not (config.imitation.enabled and self.state["imitation_rounds_done"] == 0):
            self.add_snapshot(self.model.num_timesteps)
        if self.latest_checkpoint is None:
            self.save(f"step_{self.model.num_timesteps:09d}.zip")  # the first resume point
        for r, bound in enumerate(bounds):
            if config.imitation.enabled and self.state["imitation_rounds_done"] <= r:
                if self.model.num_timesteps >= bound:
                    continue
                self.imitation_round(r)
            if self.model.num_timesteps >= bound:
                continue
            self.progress = ProgressCallback(planned, self.model.num_timesteps, enabled=config.progress)
            callbacks = [SelfPlayCallback(self), self.progress]
            self.model.learn(total_timesteps=bound - self.model.num_timesteps, callback=callbacks,
                             reset_num_timesteps=False, progress_bar=False)
            self.at_boundary(self.model.num_timesteps, reseed=False)
        return self.finish()

    def finish(self) -> RunResult:
        """``final.zip``, its evaluation and the run marked finished (the end of every algorithm's run)."""
        if self.state.get("checkpoint") == "final.zip" and self.state.get("step") == self.model.num_timesteps:
            path = self.checkpoints / "final.zip"  # resumed after an interrupted final evaluation
        else:
            path = self.save("final.zip")
        self.phase = "final"
        results, gain, report = self.final_eval(path)
        self.phase = "done"  # the report is written: a signal from here on changes nothing
        self.state["finished"] = True
        write_state(self.checkpoints, self.state)
        self.close()
        return RunResult(self.run_dir, self.model.num_timesteps, path, results=results,
                         hands_per_s=self.hands_per_s, report=report, best_response=gain)

    def stopped(self, stop: KeyboardInterrupt) -> RunResult:
        """After Ctrl-C or SIGTERM: save the resume point and say how to resume. Stopped while
        collecting a rollout (or at a boundary), the model is as it was when the rollout began:
        it is saved at that step (the partial rollout is neither kept nor counted). Stopped in
        an imitation round, before the first checkpoint or in the final evaluation, the latest
        checkpoint already is the resume point."""
        phase, self.phase = self.phase, "stopping"
        signum = signal_of(stop)
        name = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
        if self.progress is not None:
            self.progress.progress.stop()
        path = self.latest_checkpoint
        if phase in ("collect", "boundary"):
            self.model.num_timesteps = self.boundary_step
            wanted = f"step_{self.boundary_step:09d}.zip"
            if path is None or path.name != wanted or self.state.get("step") != self.boundary_step:
                path = self.save(wanted)
        step = self.state.get("step", self.model.num_timesteps)
        self.close()
        if path is None:  # a new run stopped before its first checkpoint: it leaves no folder behind
            shutil.rmtree(self.run_dir, ignore_errors=True)
            self.emit(f"{name} before the first checkpoint; nothing to resume ({self.run_dir} is removed)")
            return RunResult(self.run_dir, 0, self.run_dir, interrupted=True, signal=signal.Signals(signum).name)
        where = {"final": "during the final evaluation", "imitation": "during an imitation round",
                 "round": "during a fictitious-play round"}.get(phase, "")
        self.emit(f"{name} {where + ' ' if where else ''}at step {step}; resume point: {path}")
        self.emit(f"resume with: splitpoker train --resume {self.run_dir}")
        return RunResult(self.run_dir, step, path, interrupted=True, hands_per_s=self.hands_per_s,
                         signal=signal.Signals(signum).name)

    def final_eval(self, checkpoint: Path) -> tuple[dict[str, Any], dict[str, Any] | None, Path]:
        hands = self.config.eval.final_hands
        self.emit(f"final evaluation: {hands} duplicate deals against {', '.join(self.config.eval.opponents)}")
        results = evaluate_policy(self.policy_agent(), self.game, self.config, hands, progress=self.config.progress)
        for r in results.values():
            r["deals"] = hands
        if self.config.eval.br_final_hands:
            self.emit(f"final best-response gain: {self.config.eval.br_final_hands} duplicate deals, "
                      f"solver:samples={self.config.eval.br_samples} answering the policy")
        gain = best_response(self.policy_agent(), self.game, self.config, self.config.eval.br_final_hands)
        with self._during("save"):  # the final evaluation has its own tags: final/…, once
            for spec, r in results.items():
                tag = spec.replace(":", "_").replace("/", "_")
                self.record_interval(f"final/{tag}_mean", f"final/{tag}", r["policy"]["mean"], r["policy"]["ci95"])
            self.logger.record("final/deals", hands)
            if gain is not None:
                self.record_interval("final/br_gain", "final/br_gain", gain["gain"], gain["ci95"])
            self.logger.dump(self.model.num_timesteps)
        document = {"steps": self.model.num_timesteps, "checkpoint": str(checkpoint), "hands": hands,
                    "seed": self.config.eval.seed, "hands_per_s": self.hands_per_s, "results": results,
                    "best_response": gain}
        atomic_write_bytes(self.eval_dir / "final.json", (json.dumps(document, indent=1) + "\n").encode())
        report = self.eval_dir / "final.md"
        markdown = eval_markdown(results, self.config, self.model.num_timesteps, checkpoint)
        atomic_write_bytes(report, (markdown + (f"\nThe {br_line(gain)}.\n" if gain is not None else "")).encode())
        return results, gain, report

    def close(self) -> None:
        self.env.close()
        self.logger.close()
        if self._imitation_writer is not None:
            self._imitation_writer.close()


# --------------------------------------------------------------------------- entry points
def new_run_dir(config: TrainConfig, stem: str) -> Path:
    base = Path(config.output_dir)
    name = run_name(config, stem)
    path, n = base / name, 1
    while path.exists():
        n += 1
        path = base / f"{name}-{n}"
    path.mkdir(parents=True)
    return path


#: the run folder's record of the splitpoker that started it and resumed it
RUN_STAMP_FILE = "splitpoker.json"


def write_run_stamp(run_dir: Path, resumed: bool = False) -> Path:
    """Write ``splitpoker.json`` in a run folder: ``{"started": STAMP, "resumes": [STAMP, ...]}``,
    each the :func:`~splitpoker.agents.version.stamp` (version, and the commit when run from
    a git checkout) of the code that started the run or resumed it. A resume appends to the
    list; a run folder from before the file (or with a damaged one) gets one that lists
    the resume only."""
    path = run_dir / RUN_STAMP_FILE
    record: dict[str, Any] = {}
    if resumed:
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = {}
        if not isinstance(record, dict):
            record = {}
        resumes = record.get("resumes")
        record["resumes"] = [*(resumes if isinstance(resumes, list) else []), stamp()]
    else:
        record = {"started": stamp(), "resumes": []}
    return atomic_write_bytes(path, (json.dumps(record, indent=1) + "\n").encode())


def command_line(argv: Sequence[str] | None = None) -> str:
    return shlex.join(["splitpoker", *(sys.argv[1:] if argv is None else argv)])


def check_device(device: str) -> None:
    """ValueError unless ``device`` names a torch device that this machine has."""
    try:
        parsed = th.device(device)
    except (RuntimeError, ValueError, TypeError):
        raise ValueError(f"device: {device!r} is not a torch device; use cpu, cuda, cuda:N or mps") from None
    if parsed.type == "cuda":
        count = th.cuda.device_count() if th.cuda.is_available() else 0
        if count == 0:
            raise ValueError(f"device: {device!r}, but this machine (this torch build) has no CUDA device; use cpu")
        if parsed.index is not None and parsed.index >= count:
            raise ValueError(f"device: {device!r}, but this machine has {count} CUDA device(s): cuda:0 to "
                             f"cuda:{count - 1}")
    elif parsed.type == "mps":
        if not th.backends.mps.is_available():
            raise ValueError(f"device: {device!r}, but MPS is not available on this machine; use cpu")
    elif parsed.type != "cpu":
        raise ValueError(f"device: {device!r} is not supported; use cpu, cuda, cuda:N or mps")


def check_run(config: TrainConfig, source: str = "config") -> None:
    """Everything a run needs, checked before any folder is made or any work is done: the
    device, the output and cache folders, and every agent spec (evaluation opponents,
    self-play baselines, the imitation teacher with its opponent model), each loaded once.
    ValueError naming ``source`` and the key."""
    from ..runtime.files import check_writable_folder

    try:
        check_device(config.device)
        check_writable_folder(config.output_dir, "output_dir")
        if config.imitation.enabled:
            check_writable_folder(config.imitation.cache_dir, "imitation.cache_dir")
        fictitious = config.algorithm == "fictitious_play"
        for key, backend in (("imitation", config.imitation.enabled and config.imitation.backend),
                             ("fictitious_play", fictitious and config.fictitious_play.backend)):
            if backend == "ray":
                try:
                    import ray  # noqa: F401
                except ImportError:
                    raise ValueError(f"{key}.backend: ray needs Ray: install the extra with  "
                                     "pip install 'splitpoker[ray]'") from None
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    game = make_game(config.game, **config.game_kwargs())
    specs = [(f"eval.opponents[{i}]", spec) for i, spec in enumerate(config.eval.opponents)]
    if config.selfplay.baseline_share > 0 and config.algorithm == "ppo":
        specs += [(f"selfplay.baselines[{i}]", spec) for i, spec in enumerate(config.selfplay.baselines)]
    if config.imitation.enabled:
        specs.append(("imitation.solver", config.imitation.solver))
    if config.algorithm == "fictitious_play":  # its opponent model, the policy, is checked by the run
        specs.append(("fictitious_play.solver", config.fictitious_play.solver))
    for key, spec in specs:
        try:
            load_agent(spec, game=game, num_players=config.num_players, seed=0)
        except ValueError as error:
            raise ValueError(f"{source}: {key}: {str(error).splitlines()[0]}") from None


def trainer_class(config: TrainConfig) -> type[Trainer]:
    """The trainer of the config's algorithm (:mod:`.trainers`): :class:`Trainer` (PPO) or
    :class:`~splitpoker.train.fictitious.FictitiousPlayTrainer`, a subclass."""
    cls: type[Trainer] = trainers.trainer_class(config.algorithm)
    return cls


def start_run(config: TrainConfig, stem: str, command: str, emit: Callable[[str], None] = print,
              source: str = "config") -> RunResult:
    """Train a new run from a validated config (checked by :func:`check_run` first; a run
    whose set-up fails leaves no folder behind)."""
    check_run(config, source)
    run_dir = new_run_dir(config, stem)
    try:
        (run_dir / "config.yaml").write_text(config.to_yaml(), encoding="utf-8")
        (run_dir / "command.txt").write_text(command + "\n", encoding="utf-8")
        write_run_stamp(run_dir)
        trainer = trainer_class(config)(config, run_dir, resume=False, emit=emit)
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    emit(f"run folder: {run_dir}")
    with exclusive_lock(run_dir, "run folder") as claim:
        claim()
        return trainer.run()


def resume_run(run_dir: str | Path, overrides: Sequence[str], command: str,
               emit: Callable[[str], None] = print) -> RunResult:
    """Continue a run from its latest checkpoint (step count, pool, optimizer); refused while
    another process trains the same folder (:func:`exclusive_lock`)."""
    run_dir = Path(run_dir)
    if not (run_dir / "config.yaml").is_file():
        raise ValueError(f"{run_dir} is not a run folder (no config.yaml)")
    with exclusive_lock(run_dir, "run folder") as claim:
        return _resume_locked(run_dir, overrides, command, emit, claim)


def check_resume_meta(config: TrainConfig, meta: Mapping[str, Any], state: Mapping[str, Any], run_dir: Path) -> None:
    """ValueError unless the checkpoint ``state.json`` names (its ``splitpoker.json``,
    ``meta``) was trained with the game, preset, rules, table size and network of the
    run's ``config.yaml`` as it reads now (an edited ``config.yaml`` would otherwise fail to
    load the weights, or train them at another table). The step ``state.json`` records is
    checked against the checkpoint's own once its counters are loaded (:class:`Trainer`)."""
    name = str(state["checkpoint"])
    game = make_game(config.game, **config.game_kwargs())
    here, trained = _as_json(game.rules.to_dict()), meta.get("rules") or {}
    policy = meta.get("policy") or {}
    arch, trained_arch = _as_json(config.policy.arch()), policy.get("arch") or {}
    pairs: list[tuple[str, Any, Any]] = [("game", config.game, meta.get("game"))]
    pairs += [("num_players", config.num_players, meta.get("num_players"))]
    if meta.get("preset") is not None:
        pairs.append(("preset", config.preset, meta["preset"]))
    pairs += [(f"rules.{key}", here.get(key), trained[key]) for key in trained if key in here]
    pairs.append(("policy.kind", config.policy.kind, policy.get("kind")))
    pairs += [(f"policy.{key}", arch[key], trained_arch[key]) for key in arch if key in trained_arch]
    for key, now, then in pairs:
        if now != then:
            raise ValueError(f"{run_dir / 'config.yaml'}: {key} is {_setting(now)} but checkpoint {name} was trained "
                             f"with {_setting(then)}; a run resumes with the settings it was started with")


def _as_json(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists), to compare with a checkpoint's record."""
    return json.loads(json.dumps(value))


def _setting(value: Any) -> str:
    """A setting's value in a message: numbers as they are, anything else as its repr, cut short."""
    return cut(str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else repr(value),
               SHOWN_CHARS)


def _resume_locked(run_dir: Path, overrides: Sequence[str], command: str, emit: Callable[[str], None],
                   claim: Callable[[], None]) -> RunResult:
    before = load_config(run_dir / "config.yaml")
    config = load_config(run_dir / "config.yaml", overrides)
    changed = [k for k, v in model_keys(config).items() if model_keys(before)[k] != v]
    changed += [k for k in ("algorithm", "ppo", "n_envs", "vec_env", "seed", "reward_scale", "device")
                if getattr(before, k) != getattr(config, k)]
    if changed:
        raise ValueError(f"--resume cannot change {changed[0]}; a resumed run may change: {', '.join(RESUMABLE)}")
    check_run(config, f"{run_dir / 'config.yaml'}" + (" with --set " + " ".join(overrides) if overrides else ""))
    state = read_state(run_dir / "checkpoints")
    meta = read_meta(run_dir / "checkpoints" / state["checkpoint"])  # a damaged checkpoint is found before any change
    check_resume_meta(config, meta, state, run_dir)
    if state.get("finished") and state.get("step", 0) >= config.total_timesteps:
        key = "fictitious_play.rounds" if config.algorithm == "fictitious_play" else "total_timesteps"
        raise ValueError(f"{run_dir} finished at step {state['step']}; raise it with --set {key}=N")
    trainer = trainer_class(config)(config, run_dir, resume=True, emit=emit)  # loads everything before anything changes
    claim()  # every check has passed: from here on the run writes its folder
    trainer.state["finished"] = False
    write_state(run_dir / "checkpoints", trainer.state)
    if overrides:
        (run_dir / "config.yaml").write_text(config.to_yaml(), encoding="utf-8")
    with open(run_dir / "command.txt", "a", encoding="utf-8") as handle:
        handle.write(command + "\n")
    write_run_stamp(run_dir, resumed=True)
    emit(f"resuming {run_dir} at step {state['step']}")
    return trainer.run()


def train(config: TrainConfig | str | Path, overrides: Sequence[str] = (), command: str | None = None,
          emit: Callable[[str], None] = print) -> RunResult:
    """Train from a config object, a config file or the name of a packaged config
    (:func:`~splitpoker.train.config.find_config`), with ``--set`` overrides."""
    if isinstance(config, (str, Path)):
        config = find_config(config)
        stem = config.stem
        source = str(config) + (" with --set " + " ".join(overrides) if overrides else "")
        config = load_config(config, overrides)
    else:
        stem = source = "config"
    return start_run(config, stem, command or command_line(), emit=emit, source=source)

