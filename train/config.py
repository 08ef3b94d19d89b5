"""Training configs: YAML files validated into typed models.

A config names the game, table size and rules, the policy and its architecture, the
algorithm (``ppo``: the PPO hyper-parameters and the self-play schedule; ``fictitious_play``:
its rounds of best-response distillation), an optional imitation warm start, the evaluation
and checkpoint schedules, the total number of hands (timesteps) and the seed. Every section
forbids unknown keys, and a section or key the chosen algorithm does not use is an error.
:func:`load_config` reads a file, applies ``--set key.sub=value`` overrides (values read as
YAML scalars; a key given twice is an error) and validates; any problem is one ``ValueError``
line naming the file, the key and what is allowed. Values are read exactly: a whole number
in decimal digits (not ``010``, which YAML reads as octal 8, ``0x10``, ``1_000``, ``8.0`` or
the text ``'10'``), a bool as true or false (not ``yes`` or 1). :func:`find_config` resolves what
``splitpoker train`` is given: a file, or the bare name of a config shipped with the
package (:data:`PACKAGED_CONFIGS`, e.g. ``quickstart``).

>>> config = load_config_dict({"game": "biji", "total_timesteps": 1000}, source="inline")
>>> config.policy.kind, config.num_players
('split_scorer', 4)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, get_args, get_origin

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..agents.policy_kinds import POLICY_KINDS as POLICY_KINDS
from ..agents.solver import MAX_SAMPLES
from ..agents.specs import check_spec, parse_spec
from ..envs.games import check_game, game_class, game_names, make_rules
from ..envs.messages import cut
from ..runtime.files import load_yaml, loose_scalar, read_mapping
from ..runtime.limits import MAX_ENVS, MAX_HANDS, MAX_THREADS, MAX_TIMESTEPS, MAX_WORKERS, check_bytes
from .trainers import TRAINERS

#: the configs shipped with the package, ``splitpoker.configs`` (the top-level ``configs/``
#: folder of a checkout, which an installed package holds beside ``splitpoker.train``)
PACKAGED_CONFIGS = Path(__file__).resolve().parents[1] / "configs"


class _Section(BaseModel):
    # allow_inf_nan: .inf, -.inf and .nan are no number of a config (a run would train on NaN)
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        """A number is never given as true or false (pydantic would read them as 1 and 0)."""
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, bool) for v in values) and info.field_name is not None \
                and _numeric(cls.model_fields[info.field_name].annotation):
            raise ValueError("true or false is not a number")
        return value

    @field_validator("*", mode="before")
    @classmethod
    def _exact(cls, value: Any, info: ValidationInfo) -> Any:
        """A whole number is an integer (not 8.0 or the text '10'), true or false a bool (not
        'yes' or 1), and a number given as text is plain decimal (``3e-4``, which YAML reads as
        text); pydantic would read each of those loosely."""
        kind = None if info.field_name is None else _scalar_kind(cls.model_fields[info.field_name].annotation)
        for item in value if isinstance(value, list) else [value]:
            problem = None if kind is None or item is None else _inexact(item, kind)
            if problem:
                raise ValueError(problem)
        return value


#: the float32 values the rollout buffer keeps for each hand beside its observation and mask:
#: the action, reward, value, log-probability, advantage, return and episode start
_BUFFER_SCALARS = 7


def rollout_bytes(config: TrainConfig) -> int:
    """About the most bytes a PPO run's rollout takes: the rollout buffer (each hand's mask as
    bits, its float32 observation and :data:`_BUFFER_SCALARS` float32 values) twice, as
    Stable-Baselines3 flattens a copy of it to train, and the vector env's tables (each seat's
    bool mask, float32 observation and hand)."""
    from ..envs.games import make_game
    from ..envs.observation import observation_size

    game = make_game(config.game, config.preset, **config.rules)
    observation = 4 * observation_size(game)
    per_hand = (game.n_actions + 7) // 8 + observation + 4 * _BUFFER_SCALARS
    per_table = config.num_players * (game.n_actions + observation + 8 * game.hand_size)
    return 2 * config.ppo.n_steps * config.n_envs * per_hand + config.n_envs * per_table


def _numeric(annotation: Any) -> bool:
    """Whether a field's type takes numbers and not bools: int or float, optional or in a list."""
    if annotation in (int, float):
        return True
    args = get_args(annotation)
    return bool(args) and bool not in args and any(_numeric(a) for a in args)


def _scalar_kind(annotation: Any) -> type | None:
    """``int``, ``float`` or ``bool`` for a field of that type (optional or in a list), else None."""
    if annotation in (int, float, bool):
        return annotation
    kinds = {kind for kind in map(_scalar_kind, get_args(annotation)) if kind is not None}
    return kinds.pop() if len(kinds) == 1 else None


#: how a number given as text must read: decimal digits, a point and an exponent
_PLAIN_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _inexact(value: Any, kind: type) -> str | None:
    """Why ``value`` is no exact value of a ``kind`` setting (None when it is one, or when
    pydantic's own check says better what is wrong with it)."""
    if isinstance(value, bool):
        return None if kind is bool else "true or false is not a number"
    if kind is bool:
        return "write true or false"
    if kind is int and isinstance(value, float):
        return "a whole number is written without a point or an exponent, in decimal digits"
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return None  # not a number at all: pydantic says so
        if kind is int:
            return "a whole number is written unquoted, in decimal digits"
        if not _PLAIN_FLOAT.fullmatch(value):
            return "a number is written in decimal digits, with a point and an exponent if any (such as 0.0003 or 3e-4)"
    return None


def _check_agent_spec(spec: str) -> str:
    return check_spec(spec)


class PolicyConfig(_Section):
    """The policy network."""

    kind: Literal["mlp", "split_scorer"] = Field("split_scorer", description="policy network kind")
    net_arch: list[int] = Field(default_factory=lambda: [64, 64], description="mlp: hidden layer sizes")
    activation: Literal["relu", "tanh"] = Field("relu", description="mlp: activation")
    subset_hidden: int = Field(64, gt=0, description="split_scorer: hidden size of the subset encoder")
    embed_dim: int = Field(32, gt=0, description="split_scorer: subset embedding size")
    split_hidden: int = Field(8, ge=0, description="split_scorer: per-split interaction size (0: additive rows)")
    value_hidden: int = Field(64, gt=0, description="split_scorer: value head hidden size")

    @field_validator("net_arch")
    @classmethod
    def _positive_layers(cls, value: list[int]) -> list[int]:
        if any(v <= 0 for v in value):
            raise ValueError(f"layer sizes must be positive, got {value}")
        return value

    @model_validator(mode="after")
    def _only_own_settings(self) -> PolicyConfig:
        own = {"mlp": {"net_arch", "activation"},
               "split_scorer": {"subset_hidden", "embed_dim", "split_hidden", "value_hidden"}}
        other = own["mlp" if self.kind == "split_scorer" else "split_scorer"]
        stray = sorted(other & self.model_fields_set)
        if stray:
            raise ValueError(f"policy.{stray[0]} does not apply to the {self.kind} policy; its settings: "
                             f"{', '.join(sorted(own[self.kind]))}")
        return self

    def arch(self) -> dict[str, Any]:
        """The architecture settings of the chosen kind (stored in checkpoints)."""
        if self.kind == "mlp":
            return {"net_arch": list(self.net_arch), "activation": self.activation}
        return {"subset_hidden": self.subset_hidden, "embed_dim": self.embed_dim,
                "split_hidden": self.split_hidden, "value_hidden": self.value_hidden}


class PPOConfig(_Section):
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


class SelfPlayConfig(_Section):
    """Opponents of the learner: frozen snapshots of itself and baseline agents."""

    snapshot_interval: int = Field(10_000, gt=0, description="hands between snapshots added to the pool")
    pool_size: int = Field(8, gt=0, description="snapshots kept (oldest dropped)")
    opponent_sampling: Literal["uniform", "latest", "mixed"] = Field(
        "mixed", description="which snapshot an opponent seat gets: any, the newest, or the newest with "
        "probability latest_share and any otherwise")
    latest_share: float = Field(0.5, ge=0, le=1)
    baseline_share: float = Field(0.25, ge=0, le=1, description="share of opponent seats given to baselines")
    baselines: list[str] = Field(default_factory=lambda: ["greedy", "random"])
    snapshot_play: Literal["sample", "argmax"] = Field("sample", description="how a snapshot picks its split")
    mask: Literal["valid", "undominated"] = Field(
        "valid", description="the action mask of every seat: every valid split, or the candidates (the undominated "
        "valid splits; the learner and its opponents then choose among them only)")

    @field_validator("baselines")
    @classmethod
    def _specs(cls, value: list[str]) -> list[str]:
        return [_check_agent_spec(v) for v in value]

    @model_validator(mode="after")
    def _some_baseline(self) -> SelfPlayConfig:
        if self.baseline_share > 0 and not self.baselines:
            raise ValueError("selfplay.baselines is empty but selfplay.baseline_share > 0")
        return self


LABEL_BACKENDS = ("local", "ray")


class _Labelling(_Section):
    """The settings shared by every section that labels hands with the solver and fits the
    policy to its answers."""

    #: the section's key in a config, for error messages
    section: ClassVar[str]
    workers: int = Field(2, gt=0, le=MAX_WORKERS, description="labelling processes (backend local) or Ray CPUs of a "
                         "local Ray")
    backend: Literal["local", "ray"] = Field("local", description="where hands are labelled: local processes "
                                             "or Ray tasks")
    address: str | None = Field(None, description="backend ray: the cluster to join (auto, ray://HOST:10001); "
                                "None starts a local Ray")
    epochs: int = Field(4, gt=0, description="passes over each round's hands")
    batch_size: int = Field(64, gt=0)
    learning_rate: float = Field(1e-3, gt=0)

    @model_validator(mode="after")
    def _address(self) -> _Labelling:
        if self.address is not None and self.backend != "ray":
            raise ValueError(f"{self.section}.address applies to backend ray only (backend is {self.backend!r})")
        return self


class ImitationConfig(_Labelling):
    """Behaviour cloning of the solver before (and between) self-play phases."""

    section: ClassVar[str] = "imitation"
    enabled: bool = False
    solver: str = Field("solver:samples=64,opponent=greedy", description="the teacher's agent spec")
    hands: int = Field(2000, gt=0, le=MAX_HANDS, description="labelled hands per round")
    rounds: int = Field(1, gt=0, description="1: warm start only; more: the solver answers the current "
                        "policy between equal self-play phases")
    cache_dir: str = ".cache/splitpoker/imitation"

    @field_validator("solver")
    @classmethod
    def _solver_spec(cls, value: str) -> str:
        if value.partition(":")[0] != "solver":
            raise ValueError(f"{_shown(value)} is not a solver spec (solver[:samples=N,opponent=SPEC])")
        return value


def _check_fp_solver(value: str) -> str:
    """A fictitious-play best response: a solver spec without opponent= (the population is its opponent)."""
    spec = parse_spec(value)
    if spec.kind != "solver":
        raise ValueError(f"{_shown(value)} is not a solver spec (solver[:samples=N,seed=S])")
    if "opponent" in spec.options:
        raise ValueError(f"{_shown(value)} names an opponent; fictitious play sets it to the population: "
                         "leave opponent= out")
    return spec.text


class FictitiousPlayPhase(_Section):
    """One phase of fictitious play (an item of ``fictitious_play.phases``): its rounds, and
    the per-round settings it changes; every key left out is the ``fictitious_play``
    section's own value (not the phase before's)."""

    rounds: int = Field(gt=0, description="rounds of the phase")
    hands: int | None = Field(None, gt=0, le=MAX_HANDS, description="hands labelled per round")
    solver: str | None = Field(None, description="the best response: a solver spec without opponent=")
    population: Literal["latest", "mixture"] | None = Field(None, description="what the solver answers")
    target: Literal["split", "values", "mirror"] | None = Field(None, description="the fitting target")
    temperature: float | None = Field(None, gt=0, description="targets values and mirror: the softmax temperature")
    top_k: int | None = Field(None, gt=0, description="targets values and mirror: the best splits kept per hand")
    step_size: float | None = Field(None, gt=0, description="target mirror: the step, per payoff point")
    weighting: Literal["uniform", "regret"] | None = Field(
        None, description="targets values and mirror: how much each hand weighs in the fit")
    fit: Literal["round", "all"] | None = Field(None, description="what each round fits")
    epochs: int | None = Field(None, gt=0, description="passes over each round's hands")
    batch_size: int | None = Field(None, gt=0, description="minibatch size of the fit")
    learning_rate: float | None = Field(None, gt=0, description="Adam learning rate of the fit")

    @field_validator("hands", "solver", "population", "target", "temperature", "top_k", "step_size", "weighting",
                     "fit", "epochs", "batch_size", "learning_rate", mode="before")
    @classmethod
    def _no_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("null is not a setting; leave the key out to keep the fictitious_play section's")
        return value

    @field_validator("solver")
    @classmethod
    def _solver_spec(cls, value: str | None) -> str | None:
        return None if value is None else _check_fp_solver(value)


#: the fictitious-play settings each fitting target reads, besides the labels
TARGET_SETTINGS: dict[str, set[str]] = {"split": set(), "values": {"temperature", "top_k", "weighting"},
                                         "mirror": {"temperature", "top_k", "step_size", "weighting"}}
#: every setting some target reads
TARGET_KEYS: set[str] = set().union(*TARGET_SETTINGS.values())


def _check_target(key: str, settings: FictitiousPlayConfig, given: set[str], what: str) -> None:
    """ValueError for a setting ``given`` at ``key`` that the target of ``settings`` does not
    read, or for the mirror target fitting every round's hands (its steps are from the policy
    each round starts from, so only the round's own hands have them)."""
    stray = sorted((TARGET_KEYS & given) - TARGET_SETTINGS[settings.target])
    if stray:
        readers = " and ".join(t for t, used in TARGET_SETTINGS.items() if stray[0] in used)
        raise ValueError(f"{key}.{stray[0]} applies to target {readers} only ({what} is {settings.target})")
    if settings.target == "mirror" and settings.fit == "all":
        raise ValueError(f"{key}.fit: all fits earlier rounds' hands, but target mirror steps from the policy each "
                         "round starts from; use fit: round")


class FictitiousPlayConfig(_Labelling):
    """Fictitious play by best-response distillation (``algorithm: fictitious_play``): each
    round the solver answers the population (the latest policy, or the uniform mixture of
    every round's starting policy) on fresh hands, and the policy is fitted to its answers."""

    section: ClassVar[str] = "fictitious_play"
    rounds: int = Field(4, gt=0, description="rounds of labelling and fitting")
    hands: int = Field(512, gt=0, le=MAX_HANDS, description="hands labelled per round")
    solver: str = Field("solver:samples=64", description="the best response: a solver spec without opponent= "
                        "(its opponent model is the population)")
    population: Literal["latest", "mixture"] = Field(
        "latest", description="what the solver answers: the latest policy, or the uniform mixture of the policies "
        "each round started from")
    target: Literal["split", "values", "mirror"] = Field(
        "values", description="split: the solver's split; values: softmax(EV / temperature) over its top_k splits; "
        "mirror: a step of magnetic mirror descent from the policy towards that target, softmax((log pi + "
        "step_size * EV) / (1 + step_size * temperature)) over the same splits")
    temperature: float = Field(0.5, gt=0, description="targets values and mirror: the softmax temperature, in payoff "
                               "units")
    top_k: int = Field(32, gt=0, description="targets values and mirror: the best splits kept per hand")
    step_size: float = Field(1.0, gt=0, description="target mirror: the step, per payoff point (the larger, the "
                             "closer to the values target)")
    weighting: Literal["uniform", "regret"] = Field(
        "uniform", description="targets values and mirror: how much each hand weighs in the fit: uniform, or regret: "
        "by how much the policy loses on it against its best split before the fit (1 + its regret / the mean "
        "regret, halved), so that the rare hands it gets badly wrong count most")
    fit: Literal["round", "all"] = Field(
        "round", description="what each round fits: its own hands (the policy follows the best response), or "
        "every round's hands so far, kept in the run folder (the policy learns the average of the best "
        "responses, fictitious play's average strategy; epochs are then passes over all of them)")

    phases: list[FictitiousPlayPhase] | None = Field(
        None, description="the rounds in phases, run in order: each a mapping with its rounds and the settings "
        "it changes (hands, solver, population, target, temperature, top_k, step_size, weighting, fit, epochs, "
        "batch_size, learning_rate; the others are the section's); the run's rounds are their sum, and rounds is "
        "then left out. Left out: one phase of the section's own values")

    @field_validator("solver")
    @classmethod
    def _solver_spec(cls, value: str) -> str:
        return _check_fp_solver(value)

    @field_validator("phases")
    @classmethod
    def _some_phase(cls, value: list[FictitiousPlayPhase] | None) -> list[FictitiousPlayPhase] | None:
        if value is not None and not value:
            raise ValueError("fictitious_play.phases is empty: give at least one phase (a mapping with its rounds), "
                             "or leave phases out")
        return value

    @model_validator(mode="after")
    def _own_settings(self) -> FictitiousPlayConfig:
        if self.phases is None:
            _check_target("fictitious_play", self, self.model_fields_set, "target")
            return self
        if "rounds" in self.model_fields_set:
            raise ValueError(f"fictitious_play.rounds: {self.rounds} is given with fictitious_play.phases, whose "
                             f"rounds ({self.total_rounds} in all) are the run's; leave rounds out")
        kept = True  # whether every round so far keeps its labels (fit: all)
        for phase in self.schedule():
            given, settings = self.phases[phase.index], phase.settings
            key = f"fictitious_play.phases.{phase.index}"
            _check_target(key, settings, given.model_fields_set, "the phase's target")
            if settings.fit == "all" and not kept:
                raise ValueError(f"{key}.fit: all fits the labels of every round so far, but an earlier phase fits "
                                 "round and keeps none; set fit: all for the earlier phases too")
            kept = kept and settings.fit == "all"
        stray = sorted((TARGET_KEYS & self.model_fields_set) - self.target_settings())
        if stray:
            targets = ", ".join(sorted({phase.settings.target for phase in self.schedule()}))
            raise ValueError(f"fictitious_play.{stray[0]} is read by no phase's target (the phases' targets: "
                             f"{targets})")
        return self

    def target_settings(self) -> set[str]:
        """The target settings (temperature, top_k, step_size, weighting) some round's target reads."""
        return set().union(*(TARGET_SETTINGS[phase.settings.target] for phase in self.schedule()))

    @property
    def total_rounds(self) -> int:
        """The run's rounds: ``rounds``, or the sum of the phases' rounds."""
        return self.rounds if self.phases is None else sum(phase.rounds for phase in self.phases)

    def total_hands(self) -> int:
        """The hands labelled in all (the run's ``total_timesteps``): rounds times hands, phase by phase."""
        return sum(phase.settings.rounds * phase.settings.hands for phase in self.schedule())

    def schedule(self) -> list[Phase]:
        """The phases, in order, each with its settings: without ``phases``, one phase of the
        section itself."""
        if self.phases is None:
            return [Phase(0, 1, 0, self)]
        out, first = [], 0
        for i, phase in enumerate(self.phases):
            given = phase.model_dump(exclude_none=True)
            settings = self.model_copy(update={**given, "phases": None})
            out.append(Phase(i, len(self.phases), first, settings, tuple(k for k in given if k != "rounds")))
            first += phase.rounds
        return out

    def phase_of(self, round_index: int) -> Phase:
        """The phase of round ``round_index`` (counted from 0 over every phase); past the last
        round, the last phase."""
        phases = self.schedule()
        return next((phase for phase in phases if round_index < phase.first_round + phase.settings.rounds),
                    phases[-1])


@dataclass(frozen=True)
class Phase:
    """A phase of fictitious play as the run follows it."""

    #: its position, from 0, and the number of phases
    index: int
    count: int
    #: the index (from 0, over every phase) of its first round
    first_round: int
    #: the section's settings with the phase's own (``rounds`` is the phase's; no ``phases``)
    settings: FictitiousPlayConfig
    #: the settings the phase gives itself, besides its rounds
    given: tuple[str, ...] = ()

    def describe(self) -> str:
        """``phase 2/2: latest, lr 0.0003`` (and any other setting the phase gives itself)."""
        s = self.settings
        rest = [f"{key} {getattr(s, key)}" for key in self.given if key not in ("population", "learning_rate")]
        return f"phase {self.index + 1}/{self.count}: " + ", ".join([s.population, f"lr {s.learning_rate:g}", *rest])


class EvalConfig(_Section):
    """Duplicate evaluation against fixed opponents."""

    every: int = Field(0, ge=0, description="hands between evaluations (0: only at the end)")
    hands: int = Field(200, gt=0, le=MAX_HANDS, description="deals per periodic evaluation")
    final_hands: int = Field(1000, gt=0, le=MAX_HANDS, description="deals of the final evaluation")
    opponents: list[str] = Field(default_factory=lambda: ["random", "greedy"])
    seed: int = Field(2024, ge=0, description="seed of the evaluation deals")
    br_hands: int = Field(0, ge=0, description="deals of the best-response gain at each periodic evaluation "
                          "(eval/br_gain; 0: not measured)")
    br_final_hands: int = Field(0, ge=0, description="deals of the best-response gain in the final evaluation "
                                "(0: not measured)")
    br_samples: int = Field(16, gt=0, le=MAX_SAMPLES, description="the best response's samples per decision "
                            "(solver:samples=K with the policy as its opponent model)")

    @field_validator("opponents")
    @classmethod
    def _specs(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("name at least one opponent")
        return [_check_agent_spec(v) for v in value]


class CheckpointConfig(_Section):
    every: int = Field(0, ge=0, description="hands between checkpoints (0: only at the end)")


class TrainConfig(_Section):
    """One training run."""

    game: str = Field(description="a registered game: " + ", ".join(game_names()))
    num_players: int = 4
    preset: str = "classic"
    rules: dict[str, Any] = Field(default_factory=dict, description="rule switches over the preset")
    seed: int = Field(0, ge=0, lt=2**32, description="the run's seed: deals, training and evaluation")
    algorithm: str = Field(
        "ppo", description="the trainer (registered in splitpoker.train.trainers): ppo, self-play with MaskablePPO; "
        "fictitious_play, best-response distillation")
    total_timesteps: int = Field(gt=0, le=MAX_TIMESTEPS,
                                 description="ppo: hands the learner plays; fictitious_play: hands labelled in all, "
                                 "fictitious_play.rounds * fictitious_play.hands, summed over its phases (the default)")
    n_envs: int = Field(8, gt=0, le=MAX_ENVS)
    vec_env: Literal["batched", "dummy", "subproc"] = Field(
        "batched", description="batched: all envs' tables dealt, decided and scored together in this process; "
        "dummy: one SelfPlayEnv per env in this process; subproc: one process per env")
    reward_scale: float = Field(1.0, gt=0, description="reward = payoff * reward_scale")
    device: str = "cpu"
    torch_threads: int | None = Field(1, gt=0, le=MAX_THREADS, description="torch CPU threads (None: torch default)")
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    selfplay: SelfPlayConfig = Field(default_factory=SelfPlayConfig)
    imitation: ImitationConfig = Field(default_factory=ImitationConfig)
    fictitious_play: FictitiousPlayConfig = Field(default_factory=FictitiousPlayConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig)
    output_dir: str = Field("runs", min_length=1, description="the folder the run folder is made in")
    progress: bool = True

    @field_validator("algorithm")
    @classmethod
    def _registered(cls, value: str) -> str:
        if value not in TRAINERS:
            raise ValueError(f"{_shown(value)} is not a registered trainer; algorithms: {', '.join(TRAINERS)}")
        return value

    @model_validator(mode="before")
    @classmethod
    def _fictitious_play_total(cls, data: Any) -> Any:
        """Under fictitious play, total_timesteps defaults to rounds * hands (summed over the phases)."""
        if not (isinstance(data, Mapping) and data.get("algorithm") == "fictitious_play"
                and "total_timesteps" not in data):
            return data
        try:
            section = FictitiousPlayConfig.model_validate(data.get("fictitious_play") or {})
        except ValidationError:
            return {**data, "total_timesteps": 1}  # the section's own error comes first
        return {**data, "total_timesteps": section.total_hands()}

    @model_validator(mode="after")
    def _cross_checks(self) -> TrainConfig:
        try:
            check_game(self.game)
        except ValueError as error:
            raise ValueError(f"game: {error}") from None
        try:
            make_rules(self.game, self.preset, self.rules)
        except ValueError as error:
            raise ValueError(f"rules: {error}") from None
        stray = [k for k in self.unused_keys() if k in self.model_fields_set]
        if stray:
            hint = (f"it does not use {', '.join(self.unused_keys())}" if self.algorithm == "fictitious_play"
                    else "set algorithm: fictitious_play to use it")
            raise ValueError(f"{stray[0]} does not apply to algorithm {self.algorithm}; {hint}")
        lo, hi = game_class(self.game).players
        if not lo <= self.num_players <= hi:
            raise ValueError(f"num_players: {self.num_players} is not allowed for {self.game}; use {lo} to {hi}")
        if self.vec_env == "subproc" and self.n_envs > MAX_WORKERS:  # one process per env
            raise ValueError(f"n_envs: {self.n_envs} is more than the most allowed under vec_env: subproc (one "
                             f"process per env), {MAX_WORKERS}; use vec_env: batched for more envs")
        rollout = self.ppo.n_steps * self.n_envs
        if self.ppo.batch_size > rollout:
            raise ValueError(f"ppo.batch_size: {self.ppo.batch_size} exceeds a rollout of ppo.n_steps * n_envs "
                             f"= {rollout} hands")
        if "ppo" not in self.unused_keys():
            check_bytes(rollout_bytes(self), f"n_envs: {self.n_envs} with ppo.n_steps: {self.ppo.n_steps} "
                        f"({rollout:,} {self.game} hands a rollout)",
                        "lower n_envs or ppo.n_steps (the rollout buffer keeps every hand's mask and observation)")
        if self.algorithm == "fictitious_play":
            fp = self.fictitious_play
            if self.total_timesteps != fp.total_hands():
                what = ("fictitious_play.rounds * fictitious_play.hands" if fp.phases is None
                        else "the sum of rounds * hands over fictitious_play.phases")
                raise ValueError(f"total_timesteps: {self.total_timesteps} is not {what} = {fp.total_hands()}, "
                                 "the hands labelled in all under algorithm fictitious_play; leave it out or set it "
                                 "to that")
            if self.imitation.rounds != 1:
                raise ValueError(f"imitation.rounds: {self.imitation.rounds}, but under algorithm fictitious_play "
                                 "imitation is a warm start only; use 1")
        return self

    def unused_keys(self) -> tuple[str, ...]:
        """The top-level keys the chosen algorithm does not use (an error when given)."""
        if self.algorithm == "fictitious_play":
            return ("n_envs", "vec_env", "reward_scale", "ppo", "selfplay", "checkpoint")
        return ("fictitious_play",)

    def game_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``make_game`` / ``load_agent``: the preset and switches."""
        return {"preset": self.preset, **self.rules}

    def resolved(self) -> dict[str, Any]:
        """Every setting the run uses as plain values (the policy section holds only its kind's
        settings; under fictitious play total_timesteps, which follows from its section, is left out)."""
        data = self.model_dump(mode="json")
        data["policy"] = {"kind": self.policy.kind, **self.policy.arch()}
        for key in self.unused_keys():
            del data[key]
        if self.algorithm == "fictitious_play":
            del data["total_timesteps"]  # rounds * hands
            section = data["fictitious_play"]
            for key in TARGET_KEYS - self.fictitious_play.target_settings():
                del section[key]  # read by no round's target
            if self.fictitious_play.phases is None:
                del section["phases"]
            else:  # the phases' rounds are the run's; each phase lists the settings it gives itself
                del section["rounds"]
                section["phases"] = [phase.model_dump(mode="json", exclude_none=True)
                                     for phase in self.fictitious_play.phases]
        return data

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.resolved(), sort_keys=False, allow_unicode=True)


# --------------------------------------------------------------------------- loading
def _key(loc: Sequence[Any]) -> str:
    return ".".join(str(p) for p in loc)


def _section_model(loc: Sequence[Any]) -> type[BaseModel] | None:
    """The model of the section at ``loc`` (through lists of sections: ``fictitious_play.phases.1``)."""
    model: type[BaseModel] = TrainConfig
    listed = False  # whether the part before was a list of sections, whose item comes next
    for part in loc:
        if listed and isinstance(part, int):
            listed = False
            continue
        field = model.model_fields.get(str(part))
        annotation = getattr(field, "annotation", None)
        inner = [a for a in get_args(annotation) if a is not type(None)]
        if len(inner) == 1 and get_origin(inner[0]) is list:  # list[Section] | None
            annotation, listed = get_args(inner[0])[0], True
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        model = annotation
    return None if listed else model


#: the most characters of a value an error message echoes
SHOWN_CHARS = 200


def _shown(value: Any, quote: bool = True) -> str:
    """``repr(value)`` (``str`` with ``quote=False``) cut to :data:`SHOWN_CHARS` characters
    with an ellipsis, so that no error line echoes a huge value whole."""
    return cut(repr(value) if quote else str(value), SHOWN_CHARS)


def _explain(error: Mapping[str, Any]) -> str:
    loc = tuple(error.get("loc", ()))
    key = _key(loc)
    kind = error.get("type", "")
    message = str(error.get("msg", ""))
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    if kind == "extra_forbidden":
        section = _section_model(loc[:-1])
        allowed = ", ".join(section.model_fields) if section else "none"
        where = f" of {_key(loc[:-1])}" if loc[:-1] else ""
        return f"unknown key {_shown(key)}; allowed keys{where}: {allowed}"
    if kind == "missing":
        return f"{key} is required"
    if kind == "model_type" or kind == "dict_type":
        return f"{key or 'the config'} must be a mapping of keys, got {_shown(error.get('input'))}"
    if not key:
        return message
    if message.startswith(f"{key}:") or message.startswith(f"{key.split('.')[0]}."):
        return message
    return f"{key}: {message} (got {_shown(error.get('input'))})"


def load_config_dict(data: Mapping[str, Any], source: str = "config") -> TrainConfig:
    """Validate a config mapping; ValueError naming ``source`` and the key on any problem."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{source}: a config is a mapping of keys, got {type(data).__name__}")
    try:
        return TrainConfig.model_validate(dict(data))
    except ValidationError as error:
        errors = error.errors()
        more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
        raise ValueError(f"{source}: {_explain(errors[0])}{more}") from None


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"ppo.n_steps=128"`` → (["ppo", "n_steps"], 128); the value is read as a YAML scalar."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"cannot read --set {_shown(text)}; expected key.sub=value")
    parts = [p.strip() for p in key.split(".")]
    if any(not p for p in parts):
        raise ValueError(f"cannot read --set {_shown(text)}; the key {_shown(key)} has an empty part")
    try:  # the loader of config files: no key twice, no aliases expanding past a bound
        parsed = load_yaml(value) if value.strip() else None
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ValueError(f"cannot read the value of --set {_shown(text)} as YAML: {problem}") from None
    loose = loose_scalar(value, lines=False) if value.strip() else None
    if loose:
        inner, problem = loose
        where = f"{_shown('.'.join([*parts, inner]), quote=False)}: " if inner else ""
        raise ValueError(f"--set {_shown(text)}: {where}{problem}")
    return parts, parsed


def apply_overrides(data: Mapping[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """A copy of ``data`` with ``key.sub=value`` assignments applied. A part of the key after
    a list is a position in it, from 0 (``fictitious_play.phases.1.learning_rate``); the
    position just past the end adds an item. A key given twice, or a section given after a
    key inside it (which it would replace), is a ValueError naming it."""
    out: dict[str, Any] = _deep_copy(data)
    given: dict[tuple[str, ...], str] = {}  # each key set so far, and the --set that set it
    for text in overrides:
        parts, value = parse_override(text)
        _check_not_set(tuple(parts), text, given)
        node: dict[str, Any] | list[Any] = out
        for i, part in enumerate(parts):
            if isinstance(node, list):
                position = _position(part)
                if position is None or position > len(node):
                    where = _shown(".".join(parts[:i]), quote=False)
                    positions = f"its positions are 0 to {len(node) - 1} ({len(node)} adds one)" if node else \
                        "0 adds an item"
                    raise ValueError(f"--set {_shown(text)}: {where} is a list of {len(node)}; {positions}")
                key: Any = position
                if key == len(node):
                    node.append(None)
            else:
                key = part
            if i == len(parts) - 1:
                node[key] = value
                break
            child = node[key] if isinstance(node, list) else node.get(key)
            if child is None and _position(parts[i + 1]) not in (None, 0):
                section = _shown(".".join(parts[: i + 1]), quote=False)
                raise ValueError(f"--set {_shown(text)}: {section} is not set; a new list starts at position 0 "
                                 f"({section}.0)")
            if child is None:  # a missing section; a list when the next part is a position
                child = node[key] = [] if parts[i + 1] == "0" else {}
            elif not isinstance(child, (dict, list)):
                section = _shown(".".join(parts[: i + 1]), quote=False)
                raise ValueError(f"--set {_shown(text)}: {section} is not a section")
            node = child
    return out


def _position(part: str) -> int | None:
    """The list position a part of a --set key names: plain decimal digits (``1``, not ``01``)."""
    return int(part) if re.fullmatch(r"0|[1-9][0-9]*", part) else None


def _check_not_set(parts: tuple[str, ...], text: str, given: dict[tuple[str, ...], str]) -> None:
    """ValueError when ``parts`` was set by an earlier --set (``given``), or is a section
    holding a key set earlier (it would replace that key's value); else records it."""
    key = _shown(".".join(parts), quote=False)
    for earlier, by in given.items():
        if earlier == parts:
            raise ValueError(f"--set {key} is given twice (--set {_shown(by, quote=False)} and --set "
                             f"{_shown(text, quote=False)}); give each key once")
        if earlier[:len(parts)] == parts:
            raise ValueError(f"--set {_shown(text, quote=False)} replaces {_shown('.'.join(earlier), quote=False)}, "
                             f"set before by --set {_shown(by, quote=False)}; give each key once, a section before "
                             "the keys inside it")
    given[parts] = text


def _deep_copy(data: Any) -> Any:
    if isinstance(data, Mapping):
        return {k: _deep_copy(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_deep_copy(v) for v in data]
    return data


def read_yaml(path: str | Path) -> dict[str, Any]:
    """The mapping in a YAML file; ValueError when missing, a folder, unreadable, not valid
    YAML, holding a key twice or not a mapping, or writing a number or a bool loosely (``010``,
    ``0x10``, ``1_000``, ``yes``: :func:`~splitpoker.runtime.files.loose_scalar`, as every
    settings file)."""
    return read_mapping(path, what="config file")


def packaged_configs() -> list[str]:
    """The names of the configs shipped with the package (``quickstart``, ...)."""
    return sorted(p.stem for p in PACKAGED_CONFIGS.glob("*.yaml")) if PACKAGED_CONFIGS.is_dir() else []


def packaged_config(name: str) -> Path:
    """The file of the packaged config ``name``; ValueError listing the names when there is none."""
    names = packaged_configs()
    if name not in names:
        raise ValueError(f"config {name!r} is neither a file nor a packaged config; packaged configs: "
                         f"{', '.join(names) or 'none'}")
    return PACKAGED_CONFIGS / f"{name}.yaml"


def find_config(ref: str | Path) -> Path:
    """The config file ``ref`` names: an existing path as it is; else a bare name (no folder,
    no ``.yaml``), such as ``quickstart``, as the packaged config of that name
    (:func:`packaged_config`; ValueError listing the names when unknown); else the path as
    it is (reading it says what is wrong)."""
    path = Path(ref)
    text = str(ref)
    if path.exists() or not text or any(sep in text for sep in ("/", "\\")) \
            or path.suffix.lower() in (".yaml", ".yml"):
        return path
    return packaged_config(text)


def load_config(path: str | Path, overrides: Iterable[str] = ()) -> TrainConfig:
    """Read, override and validate a config file."""
    overrides = list(overrides)
    data = apply_overrides(read_yaml(path), overrides)
    source = str(path) + (" with --set " + " ".join(_shown(o, quote=False) for o in overrides) if overrides else "")
    return load_config_dict(data, source=source)


def check_saved_config(path: str | Path, config: TrainConfig) -> None:
    """ValueError naming the first key (in the order :meth:`TrainConfig.to_yaml` writes them)
    that the run folder's ``config.yaml`` at ``path``, read as ``config``, lacks: a run writes
    every setting it uses there, so a missing key means the file was cut short or edited, and
    a resume would take that key's default instead of the run's value."""
    missing = _first_missing(config.resolved(), read_yaml(path))
    if missing is not None:
        raise ValueError(f"{path}: {missing} is missing, but a run's config.yaml holds every setting the run uses "
                         "(was it cut short?); restore the file, or write the key back with the value the run "
                         "was started with")


def _first_missing(written: Any, saved: Any, where: str = "") -> str | None:
    """The dotted key of the first key of ``written`` (mappings and lists of them, nested)
    that ``saved`` lacks."""
    if isinstance(written, Mapping) and isinstance(saved, Mapping):
        for key, value in written.items():
            inner = f"{where}.{key}" if where else str(key)
            if key not in saved:
                return inner
            found = _first_missing(value, saved[key], inner)
            if found is not None:
                return found
    elif isinstance(written, list) and isinstance(saved, list) and len(written) == len(saved):
        for i, (value, kept) in enumerate(zip(written, saved)):
            found = _first_missing(value, kept, f"{where}.{i}")
            if found is not None:
                return found
    return None


def model_keys(config: TrainConfig) -> dict[str, Any]:
    """The settings a resumed run may not change (they define the model and the table)."""
    return {"game": config.game, "num_players": config.num_players, "preset": config.preset,
            "rules": config.rules, "policy": {"kind": config.policy.kind, **config.policy.arch()}}
