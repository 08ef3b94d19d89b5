"""The settings of the fictitious-play trainer (``algorithm: fictitious_play``,
:mod:`.fictitious`): its section of a training config.

:class:`FictitiousPlayTrainConfig` is the config of a fictitious-play run: the shared
settings (:class:`~splitpoker.train.config.TrainConfig`) and the ``fictitious_play``
section (:class:`FictitiousPlayConfig`, written after ``imitation``), which a resumed run may
change. Its ``total_timesteps`` is the hands labelled in all, ``rounds * hands`` summed
over the phases (:meth:`FictitiousPlayConfig.total_hands`): left out, it is derived; given, it
must be that; a run's ``config.yaml`` leaves it out. The run's imitation is a warm start only
(``imitation.rounds: 1``), and it takes no periodic checkpoints: each round ends with one.

>>> from splitpoker.train.config import load_config_dict
>>> config = load_config_dict({"game": "biji", "algorithm": "fictitious_play",
...                            "fictitious_play": {"rounds": 3, "hands": 64}})
>>> type(config).__name__, config.total_timesteps
('FictitiousPlayTrainConfig', 192)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from ..agents.specs import parse_spec
from ..runtime.limits import MAX_HANDS
from .config import Labelling, TrainConfig
from .sections import Section, shown


def _check_fp_solver(value: str) -> str:
    """A fictitious-play best response: a solver spec without opponent= (the population is its opponent)."""
    spec = parse_spec(value)
    if spec.kind != "solver":
        raise ValueError(f"{shown(value)} is not a solver spec (solver[:samples=N,seed=S])")
    if "opponent" in spec.options:
        raise ValueError(f"{shown(value)} names an opponent; fictitious play sets it to the population: "
                         "leave opponent= out")
    return spec.text


class FictitiousPlayPhase(Section):
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


class FictitiousPlayConfig(Labelling):
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


class FictitiousPlayTrainConfig(TrainConfig):
    """A run of fictitious play (``algorithm: fictitious_play``): the shared settings and
    the ``fictitious_play`` section."""

    placed_after: ClassVar[dict[str, str]] = {"fictitious_play": "imitation"}
    resumable: ClassVar[tuple[str, ...]] = ("fictitious_play",)

    fictitious_play: FictitiousPlayConfig = Field(default_factory=FictitiousPlayConfig)

    @classmethod
    def derived_total(cls, data: Mapping[str, Any]) -> int | None:
        """rounds * hands, summed over the phases."""
        try:
            section = FictitiousPlayConfig.model_validate(data.get("fictitious_play") or {})
        except ValidationError:
            return 1  # the section's own error comes first
        return section.total_hands()

    def trainer_checks(self) -> None:
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

    def trainer_agent_specs(self) -> list[tuple[str, str]]:
        """The best response (its opponent model, the policy, is checked by the run)."""
        return [("fictitious_play.solver", self.fictitious_play.solver)]

    def trainer_backends(self) -> list[tuple[str, str]]:
        return [("fictitious_play", self.fictitious_play.backend)]

    def finished_key(self) -> str:
        """The rounds: of the section, or of its last phase."""
        phases = self.fictitious_play.phases
        return "fictitious_play.rounds" if phases is None else f"fictitious_play.phases.{len(phases) - 1}.rounds"

    def resolved(self) -> dict[str, Any]:
        """The shared settings' and the section's, without total_timesteps (rounds * hands),
        the target settings no round's target reads, and either rounds or phases: with
        phases, each phase lists the settings it gives itself."""
        data = super().resolved()
        del data["total_timesteps"]
        section = data["fictitious_play"]
        for key in TARGET_KEYS - self.fictitious_play.target_settings():
            del section[key]
        if self.fictitious_play.phases is None:
            del section["phases"]
        else:
            del section["rounds"]
            section["phases"] = [phase.model_dump(mode="json", exclude_none=True)
                                 for phase in self.fictitious_play.phases]
        return data
