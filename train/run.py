"""The run base: what every trainer's run shares, whatever its algorithm.

A :class:`Trainer` subclass, registered by name in :mod:`.trainers` (the ``algorithm`` of
the config), implements the learner; this base owns the rest of the run:

* the files of ``checkpoints/``: atomic checkpoints with their pool file, then
  ``state.json`` (:func:`write_state`, :func:`read_state`), the latest checkpoint as the
  resume point (:meth:`Trainer.save`), each checkpoint's ``splitpoker.json`` with the
  ``cpu_seconds`` the run has spent to reach it (this process and its labelling and
  evaluation workers, summed over resumes; the compute axis of method comparisons), and on
  resume the learner, pool and counters loaded and checked before anything in the folder
  changes;
* the schedules (:func:`next_multiple`: periodic evaluations and checkpoints);
* the signals: Ctrl-C or SIGTERM stops at once while the learner plays or labels hands, and
  waits for the next boundary while it updates or saves (:meth:`Trainer.boundary`), then
  saves the resume point and says how to resume (:meth:`Trainer.stopped`);
* the imitation warm start (:meth:`Trainer.imitation_round`);
* the periodic evaluation (``eval/step_N.json``, ``eval/`` in TensorBoard) and the final one
  (``final.zip``, ``eval/final.json``, ``eval/final.md``, ``final/`` in TensorBoard), after
  which the run is marked finished (:meth:`Trainer.finish`).

A trainer implements :meth:`~Trainer.build` and :meth:`~Trainer.load` (a fresh learner or
the one of a checkpoint), :attr:`~Trainer.step` and :attr:`~Trainer.policy`,
:meth:`~Trainer.save_learner`, :meth:`~Trainer.learn_until` and
:meth:`~Trainer.algorithm_hparams`; it may also implement :meth:`~Trainer.reached`,
:meth:`~Trainer.starting`, :meth:`~Trainer.attach`, :meth:`~Trainer.pool_settings`,
:meth:`~Trainer.checkpoint_every`, :meth:`~Trainer.pool_changed` and
:meth:`~Trainer.close_learner`. Its own keys of a config are its config class's, registered
with it (:mod:`.trainers`).
Starting and resuming runs (the run folder, its stamp and lock, the checks) is
:mod:`.launch`'s.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.logger import HParam

from ..agents.learned.checkpoint import BadWeights, read_meta
from ..agents.learned.policy import PolicyAgent
from ..agents.loading import first_line
from ..envs.games import make_game
from ..runtime.arguments import is_whole
from ..runtime.files import owned_folder, write_owned
from ..runtime.interrupts import Interrupted, handled, signal_of, unmasked
from . import evaluation, tensorboard
from .config import SelfPlayConfig, TrainConfig
from .learner import POOL_FILE, load_pool, run_meta, save_pool
from .selfplay import OpponentPool

STATE_FILE = "state.json"


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


# --------------------------------------------------------------------------- state.json
def write_state(folder: Path, state: Mapping[str, Any]) -> Path:
    return write_owned(folder / STATE_FILE, (json.dumps(dict(state), indent=1) + "\n").encode(), within=folder.parent)


def read_state(folder: Path) -> dict[str, Any]:
    """``checkpoints/state.json`` of a run; ValueError when the run has no checkpoint."""
    path = folder / STATE_FILE
    if not path.is_file():
        raise ValueError(f"{folder} has no {STATE_FILE}: the run stopped before its first checkpoint; "
                         "start it again")
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as error:
        raise ValueError(f"{path} is damaged ({type(error).__name__}: {error}); "
                         "it records the run's latest checkpoint") from None
    missing = [k for k in ("checkpoint", "pool", "step") if not isinstance(state, dict) or k not in state]
    if missing:
        raise ValueError(f"{path} is damaged: it has no {missing[0]!r} entry")
    step = state["step"]
    if not is_whole(step) or step < 0:
        raise ValueError(f"{path} is damaged: its step {step!r} is not a number of hands (an integer of at least 0)")
    for key in ("checkpoint", "pool"):
        name = state[key]
        if not isinstance(name, str) or not name or Path(name).name != name:
            raise ValueError(f"{path} is damaged: its {key} {name!r} is not a file name in the checkpoints folder")
    for key in ("checkpoint", "pool"):
        if not (folder / str(state[key])).is_file():
            raise ValueError(f"{path} names {key} {state[key]!r}, which is missing from {folder}")
    return state


# --------------------------------------------------------------------------- schedules
def cpu_seconds() -> float:
    """The CPU seconds of this process and of its child processes that have ended (the labelling
    and evaluation workers; not Ray's)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def next_multiple(step: int, every: int) -> int | None:
    """The next multiple of ``every`` after ``step`` (None when ``every`` is 0: never)."""
    return (step // every + 1) * every if every > 0 else None


# --------------------------------------------------------------------------- the base
class Trainer:
    """One run: the learner (the subclass's), the pool, schedules, signals and files."""

    #: the metrics TensorBoard's hparams view shows beside the final evaluation's
    hparam_metrics: ClassVar[tuple[str, ...]] = ()
    #: what the learner does between two boundaries, as a divergence message names it
    update_name: ClassVar[str] = "the update"
    #: what the learner does in its phase "round" (a signal stops it at once), as a stop message names it
    round_name: ClassVar[str] = "a round"

    def __init__(self, config: TrainConfig, run_dir: Path, resume: bool, emit: Callable[[str], None]) -> None:
        self.config = config
        self.run_dir = run_dir
        self.emit = emit
        self.checkpoints = run_dir / "checkpoints"
        self.eval_dir = run_dir / "eval"
        owned_folder(self.checkpoints, within=run_dir)  # made here, never followed where a link stands
        owned_folder(self.eval_dir, within=run_dir)
        if config.torch_threads:
            th.set_num_threads(config.torch_threads)
        th.distributions.Distribution.set_default_validate_args(False)  # 72,072-way categoricals
        self.game = make_game(config.game, **config.game_kwargs())
        self.pool = OpponentPool(self.game, config.num_players, run_meta(config, self.game, 0), self.pool_settings(),
                                 seed=config.seed)
        self.state: dict[str, Any] = {"imitation_rounds_done": 0, "imitation_epochs": 0, "finished": False}
        self.hands_per_s = float("nan")
        self.last_eval: dict[str, Any] = {}
        self.progress: Any = None  # the trainer's progress display, stopped when a signal stops the run
        if resume:
            self._resume()
        else:
            self.build()
        self.logger = tensorboard.run_logger(run_dir)
        self.attach(self.logger)
        self.latest_checkpoint: Path | None = (self.checkpoints / self.state["checkpoint"]) if resume else None
        #: the CPU seconds spent up to the latest checkpoint (its ``cpu_seconds``), and the clock's reading then
        self.cpu_before = float(read_meta(self.latest_checkpoint).get("cpu_seconds", 0.0)) if resume else 0.0
        self.cpu_from = cpu_seconds()
        self.resumed = resume
        #: what the run is doing: a signal stops "collect", "imitation", "round" (:attr:`round_name`), "final"
        #: and "setup" at once (the latest checkpoint, or the boundary the rollout began at, is the resume
        #: point) and waits in "update", "boundary", "save" and "stopping" for the next boundary
        self.phase = "setup"
        self.pending_signal: int | None = None
        #: the step of the latest boundary: the learner is as it was there until the next one
        self.boundary_step = self.step
        self._imitation_writer: Any = None
        self.schedule(self.step)

    def _resume(self) -> None:
        """Load the learner and pool of the latest checkpoint, and check them, before anything in
        the folder changes; then drop what the stopped process logged after that checkpoint."""
        self.state = read_state(self.checkpoints)
        loads: tuple[tuple[str, Callable[[Path], None]], ...] = (
            (self.state["checkpoint"], self.load),
            (self.state["pool"], lambda path: self.pool.load_state(load_pool(path))))
        for name, load in loads:
            try:
                load(self.checkpoints / name)
            except BadWeights:  # its message names the file and the bad weights
                self.close_learner()
                raise
            except Exception as error:  # CRC, zlib, torch or pickle errors of a damaged file
                self.close_learner()
                raise ValueError(f"{self.checkpoints / name} is damaged and cannot be resumed from "
                                 f"({first_line(error)})") from None
        if self.step != self.state["step"]:
            self.close_learner()
            raise ValueError(f"{self.checkpoints / 'state.json'} is damaged: it records step {self.state['step']} "
                             f"but checkpoint {self.state['checkpoint']} holds step {self.step}")
        self.pool_changed()
        self.state.setdefault("imitation_epochs", 0)
        tensorboard.drop_events_after(self.run_dir, self.step, self.state["imitation_epochs"],
                                      finished=bool(self.state.get("finished")))

    # ------------------------------------------------------------------ what a trainer implements
    def build(self) -> None:
        """Build a fresh learner for the config (a new run)."""
        raise NotImplementedError

    def load(self, path: Path) -> None:
        """Build the learner of checkpoint ``path`` (a resume), reading nothing but tensors and numbers."""
        raise NotImplementedError

    @property
    def step(self) -> int:
        """The hands the learner has trained on (the run's step)."""
        raise NotImplementedError

    @step.setter
    def step(self, value: int) -> None:
        raise NotImplementedError

    @property
    def policy(self) -> MaskableActorCriticPolicy:
        """The policy network the learner trains."""
        raise NotImplementedError

    def save_learner(self, path: Path, meta: Mapping[str, Any]) -> Path:
        """Write the learner's checkpoint (weights, optimizer, counters and ``meta``) atomically."""
        raise NotImplementedError

    def learn_until(self, bound: int) -> None:
        """Train until the step reaches ``bound`` (the end of the run, or the next imitation round)."""
        raise NotImplementedError

    def algorithm_hparams(self) -> dict[str, Any]:
        """The algorithm's own settings, for TensorBoard's hparams view."""
        raise NotImplementedError

    def pool_settings(self) -> SelfPlayConfig:
        """The opponent pool's settings (by default the pool keeps snapshots only, and draws for no learner)."""
        return SelfPlayConfig()

    def checkpoint_every(self) -> int:
        """Hands between the checkpoints written at the learner's boundaries (0: none)."""
        return 0

    def reached(self, bound: int) -> bool:
        """Whether the learner is done with the phase that ends at step ``bound``."""
        return self.step >= bound

    def starting(self) -> None:
        """Before the run's first checkpoint is written (each start and resume)."""

    def attach(self, logger: Any) -> None:
        """Give the learner the run's logger."""

    def pool_changed(self) -> None:
        """The pool has changed (a snapshot added or the pool loaded)."""

    def close_learner(self) -> None:
        """Release what the learner holds (environments, processes)."""

    # ------------------------------------------------------------------ schedules
    def schedule(self, step: int) -> None:
        self.next_eval = next_multiple(step, self.config.eval.every)
        self.next_checkpoint = next_multiple(step, self.checkpoint_every())

    def eval_if_due(self, step: int) -> None:
        """The periodic evaluation, when ``step`` has reached its schedule."""
        if self.next_eval is not None and step >= self.next_eval:
            self.periodic_eval(step)
            self.next_eval = next_multiple(step, self.config.eval.every)

    # ------------------------------------------------------------------ boundaries and signals
    def boundary(self, step: int) -> None:
        """A boundary of the learner (the model, optimizer and pool are what a checkpoint saves):
        the pending log values are written at ``step``, the weights checked, a checkpoint written
        when due, and a deferred Ctrl-C or SIGTERM stops the run here."""
        self.phase = "boundary"
        if self.logger.name_to_value:  # the losses of the update that just ended, at the step of its rollout
            self.logger.dump(step)
        self.check_finite(step, self.update_name)
        if self.next_checkpoint is not None and step >= self.next_checkpoint:
            self.save(f"step_{step:09d}.zip")
            self.next_checkpoint = next_multiple(step, self.checkpoint_every())
        self.boundary_step = step
        if self.pending_signal is not None:
            raise Interrupted(self.pending_signal)

    def check_finite(self, step: int, update: str) -> None:
        """ValueError, in one line, when ``update`` (ending at ``step``) left a weight of the
        policy NaN or infinite (a loss that was not finite does): the run stops before
        anything saves those weights, and its latest checkpoint stays the resume point."""
        bad = next((name for name, p in self.policy.named_parameters() if not bool(th.isfinite(p).all())), None)
        if bad is None:
            return
        self.close()
        raise ValueError(f"training diverged at step {step}: {update} left the policy's {bad} not finite (a "
                         f"NaN or infinite loss); {self.run_dir} resumes from its checkpoint of step "
                         f"{self.state.get('step', 0)} (--resume RUN_DIR; a lower learning rate may be needed)")

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

    # ------------------------------------------------------------------ pool and policy
    def add_snapshot(self, step: int) -> None:
        self.pool.add(self.policy.state_dict(), step)
        self.pool_changed()

    def policy_agent(self) -> PolicyAgent:
        return PolicyAgent(self.policy, run_meta(self.config, self.game, self.step), name="policy")

    # ------------------------------------------------------------------ evaluation
    def record_interval(self, tag: str, prefix: str, mean: float, ci95: Any) -> None:
        """Record ``mean`` as ``tag`` and its 95% CI as ``prefix_ci_lo`` and ``prefix_ci_hi``."""
        tensorboard.record_interval(self.logger, tag, prefix, mean, ci95)

    def periodic_eval(self, step: int) -> None:
        results = evaluation.evaluate_policy(self.policy_agent(), self.game, self.config, self.config.eval.hands)
        self.policy.set_training_mode(False)
        notes = []
        for spec, r in results.items():
            p = r["policy"]
            tag = spec.replace(":", "_").replace("/", "_")
            self.record_interval(f"eval/{tag}_mean", f"eval/{tag}", p["mean"], p["ci95"])
            notes.append(f"{spec} {p['mean']:+.2f}")
        gain = evaluation.best_response(self.policy_agent(), self.game, self.config, self.config.eval.br_hands)
        if gain is not None:
            self.record_interval("eval/br_gain", "eval/br_gain", gain["gain"], gain["ci95"])
            notes.append(f"br gain {gain['gain']:+.2f}")
            results = {**results, "best_response": gain}
        self.last_eval = results
        write_owned(self.eval_dir / f"step_{step:09d}.json", (json.dumps(results, indent=1) + "\n").encode(),
                    within=self.run_dir)
        if self.progress is not None:
            self.progress.note("eval: " + ", ".join(notes))

    def final_eval(self, checkpoint: Path) -> tuple[dict[str, Any], dict[str, Any] | None, Path]:
        hands = self.config.eval.final_hands
        self.emit(f"final evaluation: {hands} duplicate deals against {', '.join(self.config.eval.opponents)}")
        results = evaluation.evaluate_policy(self.policy_agent(), self.game, self.config, hands,
                                             progress=self.config.progress)
        for r in results.values():
            r["deals"] = hands
        if self.config.eval.br_final_hands:
            self.emit(f"final best-response gain: {self.config.eval.br_final_hands} duplicate deals, "
                      f"solver:samples={self.config.eval.br_samples} answering the policy")
        gain = evaluation.best_response(self.policy_agent(), self.game, self.config, self.config.eval.br_final_hands)
        with self._during("save"):  # the final evaluation has its own tags: final/…, once
            for spec, r in results.items():
                tag = spec.replace(":", "_").replace("/", "_")
                self.record_interval(f"final/{tag}_mean", f"final/{tag}", r["policy"]["mean"], r["policy"]["ci95"])
            self.logger.record("final/deals", hands)
            if gain is not None:
                self.record_interval("final/br_gain", "final/br_gain", gain["gain"], gain["ci95"])
            self.logger.dump(self.step)
        document = {"steps": self.step, "checkpoint": str(checkpoint), "hands": hands,
                    "seed": self.config.eval.seed, "hands_per_s": self.hands_per_s, "results": results,
                    "best_response": gain}
        write_owned(self.eval_dir / "final.json", (json.dumps(document, indent=1) + "\n").encode(), within=self.run_dir)
        report = self.eval_dir / "final.md"
        markdown = evaluation.eval_markdown(results, self.config, self.step, checkpoint)
        line = f"\nThe {evaluation.br_line(gain)}.\n" if gain is not None else ""
        write_owned(report, (markdown + line).encode(), within=self.run_dir)
        return results, gain, report

    # ------------------------------------------------------------------ files
    def save(self, name: str) -> Path:
        """Write a checkpoint, its pool file and then ``state.json`` (each atomically; a signal
        waits until all three are written). A kill at any moment leaves ``state.json`` naming a
        complete checkpoint and pool."""
        with self._during("save"):
            step = self.step
            pool_name = f"{Path(name).stem}.{POOL_FILE}"
            try:
                spent = round(self.cpu_before + cpu_seconds() - self.cpu_from, 3)
                path = self.save_learner(self.checkpoints / name,
                                         {**run_meta(self.config, self.game, step), "cpu_seconds": spent})
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

    def save_first(self) -> None:
        """The run's first resume point, unless it has one."""
        if self.latest_checkpoint is None:
            self.save(f"step_{self.step:09d}.zip")

    # ------------------------------------------------------------------ imitation
    def learnable(self, data: Any) -> Any:
        """Labelled hands (:class:`.imitation.LabelledHands`) as the policy learns them: as they
        are, or for a policy over offered splits in its slots (:func:`.imitation.in_slots`),
        saying how many hands were left out because the teacher's split was not offered."""
        if not self.config.policy.offered:
            return data
        from .imitation import in_slots

        assert self.config.policy.offer is not None
        moved, left_out = in_slots(data, self.game, self.config.num_players, self.config.policy.offer)
        if left_out:
            self.emit(f"  {left_out} of {len(data)} hands left out: the teacher's split is not among their "
                      f"{self.config.policy.offer} offered splits")
        return moved

    def imitation_round(self, round_index: int) -> None:
        """Clone the solver (``imitation``), the solver answering the latest checkpoint after the first round."""
        from .imitation import behaviour_clone, label_hands, teacher_against

        cfg = self.config.imitation
        spec = cfg.solver
        step = self.step
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
        data = self.learnable(data)
        epochs_before = int(self.state.get("imitation_epochs", 0))

        def log_epoch(stats: Mapping[str, float]) -> None:  # on their own axis: epochs over all rounds
            writer = self.imitation_writer()
            epoch = epochs_before + int(stats["epoch"])
            writer.add_scalar("imitation/loss", stats["loss"], epoch)
            writer.add_scalar("imitation/accuracy", stats["accuracy"], epoch)
            writer.add_scalar("imitation/round", round_index + 1, epoch)
            writer.flush()
            self.emit(f"  epoch {int(stats['epoch'])}: loss {stats['loss']:.3f}, accuracy {stats['accuracy']:.1%}")

        behaviour_clone(self.policy, data, self.game, cfg.epochs, cfg.batch_size, cfg.learning_rate,
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
            self._imitation_writer = tensorboard.imitation_writer(self.run_dir)
        return self._imitation_writer

    # ------------------------------------------------------------------ run
    def hparams(self) -> dict[str, Any]:
        """The run's settings as TensorBoard's hparams view shows them."""
        c = self.config
        hparams: dict[str, Any] = {"game": c.game, "num_players": c.num_players, "preset": c.preset,
                                   "policy": c.policy.kind, "seed": c.seed, "total_timesteps": c.total_timesteps}
        hparams.update({f"policy/{k}": str(v) if isinstance(v, list) else v for k, v in c.policy.arch().items()})
        hparams["imitation"] = c.imitation.enabled
        return {**hparams, **self.algorithm_hparams()}

    def log_hparams(self) -> None:
        tag = self.config.eval.opponents[-1].replace(":", "_").replace("/", "_")
        metrics = {f"eval/{tag}_mean": 0.0, **{name: 0.0 for name in self.hparam_metrics}}
        self.logger.record("hparams", HParam(self.hparams(), metrics), exclude=("stdout", "log", "json", "csv"))
        self.logger.dump(self.step)

    def run(self) -> RunResult:
        """The imitation rounds and the trainer's learning up to ``total_timesteps``, then
        ``final.zip`` and its evaluation; the run is finished only once that evaluation is
        written. Ctrl-C or SIGTERM stops it resumably (:meth:`stopped`)."""
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
        if not self.resumed:
            self.log_hparams()
        self.starting()
        self.save_first()
        for r, bound in enumerate(bounds):
            if config.imitation.enabled and self.state["imitation_rounds_done"] <= r:
                if self.reached(bound):
                    continue
                self.imitation_round(r)
            if self.reached(bound):
                continue
            self.learn_until(bound)
        return self.finish()

    def finish(self) -> RunResult:
        """``final.zip``, its evaluation and the run marked finished (the end of every algorithm's run)."""
        if self.state.get("checkpoint") == "final.zip" and self.state.get("step") == self.step:
            path = self.checkpoints / "final.zip"  # resumed after an interrupted final evaluation
        else:
            path = self.save("final.zip")
        self.phase = "final"
        results, gain, report = self.final_eval(path)
        self.phase = "done"  # the report is written: a signal from here on changes nothing
        self.state["finished"] = True
        write_state(self.checkpoints, self.state)
        self.close()
        return RunResult(self.run_dir, self.step, path, results=results,
                         hands_per_s=self.hands_per_s, report=report, best_response=gain)

    def stopped(self, stop: KeyboardInterrupt) -> RunResult:
        """After Ctrl-C or SIGTERM: save the resume point and say how to resume. Stopped while
        the learner played hands (or at a boundary), the learner is as it was at the latest
        boundary: it is saved at that step (the hands played since are neither kept nor
        counted). Stopped in an imitation round or the trainer's own, before the first checkpoint
        or in the final evaluation, the latest checkpoint already is the resume point."""
        phase, self.phase = self.phase, "stopping"
        signum = signal_of(stop)
        name = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
        if self.progress is not None:
            self.progress.progress.stop()
        path = self.latest_checkpoint
        if phase in ("collect", "boundary"):
            self.step = self.boundary_step
            wanted = f"step_{self.boundary_step:09d}.zip"
            if path is None or path.name != wanted or self.state.get("step") != self.boundary_step:
                path = self.save(wanted)
        step = self.state.get("step", self.step)
        self.close()
        if path is None:  # a new run stopped before its first checkpoint: it leaves no folder behind
            shutil.rmtree(self.run_dir, ignore_errors=True)
            self.emit(f"{name} before the first checkpoint; nothing to resume ({self.run_dir} is removed)")
            return RunResult(self.run_dir, 0, self.run_dir, interrupted=True, signal=signal.Signals(signum).name)
        where = {"final": "during the final evaluation", "imitation": "during an imitation round",
                 "round": f"during {self.round_name}"}.get(phase, "")
        self.emit(f"{name} {where + ' ' if where else ''}at step {step}; resume point: {path}")
        self.emit(f"resume with: splitpoker train --resume {self.run_dir}")
        return RunResult(self.run_dir, step, path, interrupted=True, hands_per_s=self.hands_per_s,
                         signal=signal.Signals(signum).name)

    def close(self) -> None:
        self.close_learner()
        self.logger.close()
        if self._imitation_writer is not None:
            self._imitation_writer.close()
