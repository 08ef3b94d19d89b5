"""Fictitious play by best-response distillation (``algorithm: fictitious_play``).

Each round ``r`` of :class:`FictitiousPlayTrainer`:

1. the population is the latest policy (``population: latest``) or the uniform mixture of
   the policies every round so far started from (``population: mixture``: the initial or
   imitated policy and each round's result, played as ``mixture:checkpoint:…;…``, one
   snapshot drawn per opponent seat and sample, which in a game of one decision per hand
   is their average strategy);
2. the solver (``fictitious_play.solver`` with the population as its opponent model) labels
   ``fictitious_play.hands`` fresh hands dealt from a seed derived from ``(seed, r)``
   (:func:`~splitpoker.train.imitation.label_hands`, in local processes or on Ray: the
   labels do not depend on either);
3. the policy is fitted to the labels: the solver's split (``target: split``), the soft
   target ``softmax(EV / temperature)`` over each hand's ``top_k`` best splits
   (``target: values``), or a step of magnetic mirror descent from the policy towards
   that target (``target: mirror``: ``softmax((log pi + step_size * EV) / (1 + step_size *
   temperature))`` over the same splits, :func:`~splitpoker.train.imitation.mirror_targets`;
   its fixed point is the values target's logit equilibrium, which the damped steps
   approach instead of chasing each round's best response), for ``epochs`` passes with a
   fresh Adam optimizer, over the round's hands (``fit: round``: the policy follows the
   best response, or with ``mirror`` steps towards it) or over every
   round's hands so far (``fit: all``: the policy learns the average of the best responses,
   the strategy fictitious play converges with; each round's labels are kept as
   ``labels/round_NNN.npz`` in the run folder), every hand alike (``weighting: uniform``)
   or each by the policy's regret on it before the fit (``weighting: regret``:
   :func:`~splitpoker.train.imitation.regret_weights`, so that the rare hands it plays far
   below its best split count most);
4. its step (hands labelled so far) advances by ``hands``; TensorBoard gets the round's
   loss, accuracy, the solver's mean payoff against the population (with ``weighting:
   regret``, the policy's mean regret against the labels), the labelling rate,
   the round and its phase, the periodic evaluation runs when due, and a checkpoint is
   written, then ``state.json`` with the round done and the population.

The rounds may come in phases (``fictitious_play.phases``), run in order, each with its
own rounds and any of the per-round settings above (population, hands, solver, target,
temperature, top_k, step_size, weighting, fit, epochs, batch_size, learning_rate; the rest are the
section's): round ``r`` counts over every phase, its seed stays ``(seed, r)``, and its
phase follows from ``r``
(:meth:`~splitpoker.train.fictitious_config.FictitiousPlayConfig.phase_of`). So a run of
two phases trains the weights of the first phase's run resumed with ``--set`` of the
second's settings and rounds, bit for bit, and a resumed run continues in its phase.

The run starts with a checkpoint at step 0 (after the optional imitation warm start, a
second one), and ends like every run with ``final.zip`` and its evaluation
(:meth:`~splitpoker.train.run.Trainer.finish`). The policy network is built from the config
by :func:`~splitpoker.train.learner.build_policy` (the weights a PPO run of the same config
and seed starts from) and saved in the same checkpoint zips. Everything a round does follows from the
config seed, the round and the checkpoints it reads, so ``--resume`` continues at the next
round with exactly the weights an uninterrupted run has. Ctrl-C or SIGTERM during a round
stops at once; the round restarts from the latest checkpoint.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..agents.specs import AgentSpec, checkpoint_spec, mixture_spec, parse_spec
from ..runtime.progress import progress_bar
from ..runtime.seeding import derived_seed
from .fictitious_config import FictitiousPlayConfig, FictitiousPlayTrainConfig
from .imitation import (
    LabelledHands,
    behaviour_clone,
    concatenate,
    hand_regrets,
    label_hands,
    mirror_targets,
    policy_log_probs,
    read_labels,
    regret_weights,
    write_labels,
)
from .policy_trainer import PolicyTrainer


def round_seed(seed: int, round_index: int) -> int:
    """The seed of round ``round_index``'s deals, solver and fit."""
    return derived_seed(seed, round_index, 0xF1C7)


class FictitiousPlayTrainer(PolicyTrainer):
    """A run of fictitious play: the run base's folder, checkpoints, evaluation, signals and
    warm start, with rounds of best-response distillation as the learner."""

    hparam_metrics: ClassVar[tuple[str, ...]] = ("fictitious_play/loss",)
    update_name: ClassVar[str] = "the round's fit"
    round_name: ClassVar[str] = "a fictitious-play round"

    config: FictitiousPlayTrainConfig

    def algorithm_hparams(self) -> dict[str, Any]:
        fp = self.config.fictitious_play
        hparams = {f"fictitious_play/{k}": v for k, v in fp.model_dump().items() if v is not None and k != "phases"}
        if fp.phases is not None:  # the rounds in all, and each phase's own settings
            hparams["fictitious_play/rounds"] = fp.total_rounds
            for i, phase in enumerate(fp.phases):
                hparams.update({f"fictitious_play/phases.{i}.{k}": v
                                for k, v in phase.model_dump(exclude_none=True).items()})
        return {"algorithm": self.config.algorithm, **hparams}

    def reached(self, bound: int) -> bool:
        return int(self.state.get("fp_rounds_done", 0)) >= self.config.fictitious_play.total_rounds

    def learn_until(self, bound: int) -> None:
        """The rounds not done yet, phase after phase (``bound`` is the hands labelled in all);
        the phase of a round follows from its index, so a resumed run continues in its phase."""
        for r in range(int(self.state.get("fp_rounds_done", 0)), self.config.fictitious_play.total_rounds):
            self.fictitious_round(r)

    def settings(self, round_index: int) -> FictitiousPlayConfig:
        """The fictitious-play settings of round ``round_index``: those of its phase."""
        return self.config.fictitious_play.phase_of(round_index).settings

    def population(self) -> list[str]:
        """The checkpoints (names in ``checkpoints/``) each round so far started from, oldest first."""
        assert self.latest_checkpoint is not None
        return list(self.state.get("fp_population") or [self.latest_checkpoint.name])

    def opponent_model(self, population: list[str], round_index: int) -> AgentSpec:
        """The agent spec round ``round_index``'s solver answers: the latest policy, or the
        mixture of the population (a spec tree: the run folder's path may hold any character)."""
        chosen = population if self.settings(round_index).population == "mixture" else population[-1:]
        return mixture_spec(checkpoint_spec((self.checkpoints / name).resolve()) for name in chosen)

    def labels_path(self, round_index: int) -> Path:
        """Where round ``round_index``'s labels are kept (``fit: all``)."""
        return self.run_dir / "labels" / f"round_{round_index + 1:03d}.npz"

    def earlier_labels(self, round_index: int) -> list[Path]:
        """The labels of the rounds before ``round_index`` that it fits (``fit: all``; none
        with ``fit: round``); ValueError, before anything is labelled, when one is missing."""
        if self.settings(round_index).fit == "round":
            return []
        earlier = [self.labels_path(r) for r in range(round_index)]
        missing = [path.name for path in earlier if not path.is_file()]
        if missing:
            raise ValueError(f"fictitious_play.fit all: the labels of earlier rounds are missing from "
                             f"{self.run_dir / 'labels'} ({', '.join(missing)}); resume with --set "
                             "fictitious_play.fit=round, or start a new run")
        return earlier

    def fitted_hands(self, round_index: int, data: LabelledHands, earlier: list[Path]) -> LabelledHands:
        """The hands round ``round_index`` fits: its own, or with ``fit: all`` every round's so
        far (this round's are saved first, beside the ``earlier`` rounds')."""
        if self.settings(round_index).fit == "round":
            return data
        write_labels(self.labels_path(round_index), data)
        if not earlier:
            return data
        every = concatenate([*(read_labels(path) for path in earlier), data])
        self.emit(f"  fitting the {len(every)} hands of rounds 1-{round_index + 1}")
        return every

    def fictitious_round(self, round_index: int) -> None:
        """Label fresh hands with the best response to the population, fit the policy, log and save."""
        config, fp_phase = self.config, self.config.fictitious_play.phase_of(round_index)
        fp = fp_phase.settings
        earlier = self.earlier_labels(round_index)
        population = self.population()
        spec = parse_spec(fp.solver).with_options(opponent=self.opponent_model(population, round_index))
        seed = round_seed(config.seed, round_index)
        self.phase = "round"  # a signal stops the round; it restarts from the latest checkpoint
        answered = (f"the mixture of {len(population)} policies" if fp.population == "mixture" and len(population) > 1
                    else f"the policy {population[-1]}")
        rounds = config.fictitious_play.total_rounds
        where = f" ({fp_phase.describe()})" if config.fictitious_play.phases is not None else ""
        self.emit(f"round {round_index + 1}/{rounds}{where}: labelling {fp.hands} hands with {fp.solver} answering "
                  f"{answered}")
        start = time.perf_counter()
        with progress_bar(transient=True, disable=not config.progress) as bar:
            task = bar.add_task("labelling", total=fp.hands)
            data, _ = label_hands(self.game, config.num_players, spec, fp.hands, seed=seed, workers=fp.workers,
                                  progress=lambda done, total: bar.update(task, completed=done),
                                  top_k=1 if fp.target == "split" else fp.top_k, backend=fp.backend,
                                  address=fp.address)
        seconds = time.perf_counter() - start
        self.hands_per_s = fp.hands / max(seconds, 1e-9)
        data = self.learnable(data)
        assert data.top_evs is not None
        solver_ev = float(np.mean(data.top_evs[:, 0]))
        self.emit(f"  labelled in {seconds:.1f} s ({self.hands_per_s:.1f} hands/s); the solver's mean payoff "
                  f"against it: {solver_ev:+.3f}")

        targets = packed = prior = weights = None
        if fp.target == "mirror":  # the step from the policy the round starts from, on the round's hands
            packed = data.packed_masks(self.game)  # the fit reads the same masks (mirror fits the round only)
            prior = policy_log_probs(self.policy, data, self.game, packed=packed)
            targets = mirror_targets(data.top_evs, prior, fp.temperature, fp.step_size)
        fitted = self.fitted_hands(round_index, data, earlier)
        if fp.target != "split" and fp.weighting == "regret":  # the policy's regret before the fit
            if prior is None or fitted is not data:
                packed = fitted.packed_masks(self.game)
                prior = policy_log_probs(self.policy, fitted, self.game, packed=packed)
            assert fitted.top_evs is not None
            regrets = hand_regrets(fitted.top_evs, prior)
            weights = regret_weights(regrets)
            self.emit(f"  weighted by regret: the policy loses {regrets.mean():.3f} a hand against the labels; "
                      f"the heaviest hand weighs {weights.max():.1f}")
            self.logger.record("fictitious_play/policy_regret", float(regrets.mean()))
        data = fitted

        def log_epoch(stats: Any) -> None:
            self.emit(f"  epoch {int(stats['epoch'])}: loss {stats['loss']:.3f}, accuracy {stats['accuracy']:.1%}")

        start = time.perf_counter()
        history = behaviour_clone(self.policy, data, self.game, fp.epochs, fp.batch_size, fp.learning_rate,
                                  seed=seed, on_epoch=log_epoch,
                                  temperature=fp.temperature if fp.target == "values" else None, targets=targets,
                                  packed=packed, weights=weights)
        self.emit(f"  fitted in {time.perf_counter() - start:.1f} s")
        self.check_finite(self.step + fp.hands, f"round {round_index + 1}'s fit")
        with self._during("save"):  # the round's points, its evaluation when due, then its checkpoint
            step = self.step + fp.hands
            self.step = self.boundary_step = step
            self.logger.record("fictitious_play/loss", history[-1]["loss"])
            self.logger.record("fictitious_play/accuracy", history[-1]["accuracy"])
            self.logger.record("fictitious_play/solver_mean_payoff", solver_ev)
            self.logger.record("fictitious_play/round", round_index + 1)
            self.logger.record("fictitious_play/phase", fp_phase.index + 1)
            self.logger.record("charts/hands_per_s", self.hands_per_s)
            self.eval_if_due(step)
            self.logger.dump(step)
            name = f"step_{step:09d}.zip"
            self.state["fp_rounds_done"] = round_index + 1
            self.state["fp_population"] = population + [name]
            self.save(name)
