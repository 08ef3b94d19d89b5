"""Training configs: YAML files validated into typed models.

A config names the game, table size and rules, the policy and its architecture, the
algorithm (the trainer, from the registry of :mod:`.trainers`) and that trainer's own keys,
an optional imitation warm start, the evaluation schedule, the total number of hands
(timesteps) and the seed. :class:`TrainConfig` holds the settings every trainer reads; each
trainer's subclass of it (registered with the trainer: :func:`config_class`) adds its own
keys, its checks and what a run of it needs, so this module names no algorithm. Every
section forbids unknown keys (:class:`~splitpoker.train.sections.Section`), and a key of
another trainer is an error that names the algorithm. :func:`load_config` reads a file,
applies ``--set key.sub=value`` overrides (values read as YAML scalars; a key given twice is
an error) and validates; any problem is one ``ValueError`` line naming the file, the key and
what is allowed. Values are read exactly: a whole number in decimal digits (not ``010``,
which YAML reads as octal 8, ``0x10``, ``1_000``, ``8.0`` or the text ``'10'``), a bool as
true or false (not ``yes`` or 1). :func:`find_config` resolves what ``splitpoker train`` is
given: a file, or the bare name of a config shipped with the package
(:data:`PACKAGED_CONFIGS`, e.g. ``quickstart``).

>>> config = load_config_dict({"game": "biji", "total_timesteps": 1000}, source="inline")
>>> config.policy.kind, config.num_players, config.algorithm == DEFAULT_ALGORITHM
('split_scorer', 4, True)
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal, get_args, get_origin

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from ..agents.learned.policy_kinds import MLP_ARCH_KINDS, OFFER_KINDS
from ..agents.learned.policy_kinds import POLICY_KINDS as POLICY_KINDS
from ..agents.solver import MAX_SAMPLES
from ..agents.specs import check_spec
from ..envs.games import check_game, game_class, game_names, make_rules
from ..envs.offered import MAX_OFFER, check_offer
from ..runtime.limits import MAX_HANDS, MAX_THREADS, MAX_TIMESTEPS, MAX_WORKERS
from ..runtime.settings import load_yaml, loose_scalar, read_mapping
from . import trainers
from .sections import SHOWN_CHARS as SHOWN_CHARS
from .sections import Section, shown
from .trainers import DEFAULT_ALGORITHM, TRAINERS

#: the configs shipped with the package, ``splitpoker.configs`` (the top-level ``configs/``
#: folder of a checkout, which an installed package holds beside ``splitpoker.train``)
PACKAGED_CONFIGS = Path(__file__).resolve().parents[1] / "configs"
#: each policy kind's settings of the ``policy`` section (besides ``kind``)
KIND_SETTINGS: dict[str, set[str]] = {"mlp": {"net_arch", "activation"},
                                      "split_scorer": {"subset_hidden", "embed_dim", "split_hidden", "value_hidden"},
                                      "offered": {"net_arch", "activation", "offer"}}


class PolicyConfig(Section):
    """The policy network: its kind (:data:`POLICY_KINDS`) and that kind's settings
    (:data:`KIND_SETTINGS`; a setting of another kind is an error naming it)."""

    kind: Literal["mlp", "split_scorer", "offered"] = Field("split_scorer", description="policy network kind")
    net_arch: list[int] = Field(default_factory=lambda: [64, 64], description="mlp: hidden layer sizes; offered: "
                                "the hidden layer sizes of the slot scorer and of the critic")
    activation: Literal["relu", "tanh"] = Field("relu", description="mlp, offered: activation")
    subset_hidden: int = Field(64, gt=0, description="split_scorer: hidden size of the subset encoder")
    embed_dim: int = Field(32, gt=0, description="split_scorer: subset embedding size")
    split_hidden: int = Field(8, ge=0, description="split_scorer: per-split interaction size (0: additive rows)")
    value_hidden: int = Field(64, gt=0, description="split_scorer: value head hidden size")
    offer: int | None = Field(None, gt=0, le=MAX_OFFER, description="offered: the candidate splits offered to each "
                              "seat, the slots the policy chooses among (null: the game's default_offer; the run "
                              "writes the value it used)")

    @field_validator("offer", mode="before")
    @classmethod
    def _offer(cls, value: Any) -> int | None:
        # the message every other reader of an offer gives (check_offer), naming the key
        return None if value is None else check_offer(value, what="policy.offer=")

    @field_validator("net_arch")
    @classmethod
    def _positive_layers(cls, value: list[int]) -> list[int]:
        if any(v <= 0 for v in value):
            raise ValueError(f"layer sizes must be positive, got {value}")
        return value

    @model_validator(mode="after")
    def _only_own_settings(self) -> PolicyConfig:
        own = KIND_SETTINGS[self.kind]
        stray = sorted((set().union(*KIND_SETTINGS.values()) - own) & self.model_fields_set)
        if stray:
            raise ValueError(f"policy.{stray[0]} does not apply to the {self.kind} policy; its settings: "
                             f"{', '.join(sorted(own))}")
        return self

    @property
    def offered(self) -> bool:
        """Whether the policy chooses a slot among a seat's offered splits, not a split index."""
        return self.kind in OFFER_KINDS

    def arch(self) -> dict[str, Any]:
        """The architecture settings of the chosen kind (stored in checkpoints)."""
        if self.kind in MLP_ARCH_KINDS:
            return {"net_arch": list(self.net_arch), "activation": self.activation}
        return {"subset_hidden": self.subset_hidden, "embed_dim": self.embed_dim,
                "split_hidden": self.split_hidden, "value_hidden": self.value_hidden}

    def settings(self) -> dict[str, Any]:
        """The kind and every setting of it: :meth:`arch`, and the ``offer`` of a kind over
        offered splits (a checkpoint records it beside the architecture)."""
        return {"kind": self.kind, **self.arch(), **({"offer": self.offer} if self.offered else {})}


class SelfPlayConfig(Section):
    """Opponents of the learner: frozen snapshots of itself and baseline agents (the opponent
    pool of the run, :class:`~splitpoker.train.selfplay.OpponentPool`; its ``selfplay`` key is
    declared by the trainers whose learner plays against it)."""

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
        "valid splits; the learner and its opponents then choose among them only; always under the offered "
        "policy, whose offered splits are candidates)")

    @field_validator("baselines")
    @classmethod
    def _specs(cls, value: list[str]) -> list[str]:
        return [check_spec(v) for v in value]

    @model_validator(mode="after")
    def _some_baseline(self) -> SelfPlayConfig:
        if self.baseline_share > 0 and not self.baselines:
            raise ValueError("selfplay.baselines is empty but selfplay.baseline_share > 0")
        return self


class Labelling(Section):
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
    def _address(self) -> Labelling:
        if self.address is not None and self.backend != "ray":
            raise ValueError(f"{self.section}.address applies to backend ray only (backend is {self.backend!r})")
        return self


class ImitationConfig(Labelling):
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
            raise ValueError(f"{shown(value)} is not a solver spec (solver[:samples=N,opponent=SPEC])")
        return value


class EvalConfig(Section):
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
        return [check_spec(v) for v in value]


class TrainConfig(Section):
    """One training run: the settings every trainer reads.

    A trainer's own keys are the fields of its subclass of this class, registered with it
    (:func:`~splitpoker.train.trainers.register_trainer`); :func:`load_config_dict` validates a
    config with the class of its ``algorithm``. The subclass says where its keys stand in a
    written config (:attr:`placed_after`), which of them a resumed run may change
    (:attr:`resumable`), and may implement the hooks below: its ``total_timesteps`` when left
    out, its checks across keys, the agent specs and labelling backends a run loads before it
    starts, the key that bounds a finished run, and what ``config.yaml`` keeps."""

    #: where the trainer's keys stand in a config as written: a key of the subclass → the key it
    #: follows; a key not named here follows the trainer's key before it (the first: the last key)
    placed_after: ClassVar[dict[str, str]] = {}
    #: the trainer's keys a resumed run may change with --set (besides the shared ones; the
    #: others define its learner)
    resumable: ClassVar[tuple[str, ...]] = ()

    game: str = Field(description="a registered game: " + ", ".join(game_names()))
    num_players: int = 4
    preset: str = "classic"
    rules: dict[str, Any] = Field(default_factory=dict, description="rule switches over the preset")
    seed: int = Field(0, ge=0, lt=2**32, description="the run's seed: deals, training and evaluation")
    algorithm: str = Field(DEFAULT_ALGORITHM, description="the trainer, by its name in the registry of "
                           "splitpoker.train.trainers; its section of the config is below")
    total_timesteps: int = Field(gt=0, le=MAX_TIMESTEPS,
                                 description="the hands the run trains on (a trainer may derive it from its own "
                                 "section, and then leaves it out by default)")
    device: str = "cpu"
    torch_threads: int | None = Field(1, gt=0, le=MAX_THREADS, description="torch CPU threads (None: torch default)")
    policy: PolicyConfig = Field(default_factory=PolicyConfig)
    imitation: ImitationConfig = Field(default_factory=ImitationConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    output_dir: str = Field("runs", min_length=1, description="the folder the run folder is made in")
    progress: bool = True

    @field_validator("algorithm")
    @classmethod
    def _registered(cls, value: str) -> str:
        if value not in TRAINERS:
            raise ValueError(f"{shown(value)} is not a registered trainer; algorithms: {', '.join(TRAINERS)}")
        return value

    @model_validator(mode="before")
    @classmethod
    def _trainer_keys(cls, data: Any) -> Any:
        """Refuse the keys of other trainers by name, and derive ``total_timesteps`` when the
        trainer does and it is left out."""
        algorithm = data.get("algorithm", DEFAULT_ALGORITHM) if isinstance(data, Mapping) else None
        if not (isinstance(algorithm, str) and algorithm in TRAINERS):
            return data  # no mapping, or an algorithm the field's check refuses
        if cls is not config_class(algorithm):
            raise ValueError(f"algorithm {algorithm}'s config is {config_class(algorithm).__name__}, not "
                             f"{cls.__name__}: read a config with load_config_dict")
        others: dict[str, str] = {}  # each key of another trainer this one lacks → the first trainer with it
        for name in TRAINERS:
            for key in config_class(name).model_fields:
                if key not in cls.model_fields:
                    others.setdefault(key, name)
        stray = next((key for key in others if key in data), None)
        if stray is not None:
            hint = (f"it does not use {', '.join(others)}" if len(others) > 1
                    else f"set algorithm: {others[stray]} to use it")
            raise ValueError(f"{stray} does not apply to algorithm {algorithm}; {hint}")
        total = None if "total_timesteps" in data else cls.derived_total(data)
        return data if total is None else {**data, "total_timesteps": total}

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
        lo, hi = game_class(self.game).players
        if not lo <= self.num_players <= hi:
            raise ValueError(f"num_players: {self.num_players} is not allowed for {self.game}; use {lo} to {hi}")
        if self.policy.offered and self.policy.offer is None:
            self.policy.offer = game_class(self.game).default_offer
        self.trainer_checks()
        return self

    # ------------------------------------------------------------------ what a trainer's config implements
    @classmethod
    def derived_total(cls, data: Mapping[str, Any]) -> int | None:
        """``total_timesteps`` of a config ``data`` that leaves it out (None: it is required)."""
        return None

    def trainer_checks(self) -> None:
        """The trainer's checks across keys, after the shared ones: ValueError naming the key."""

    def trainer_agent_specs(self) -> list[tuple[str, str]]:
        """The agent specs of the trainer's keys a run loads before it starts: (key, spec)."""
        return []

    def trainer_backends(self) -> list[tuple[str, str]]:
        """The labelling backends of the trainer's keys (``ray`` needs Ray): (section, backend)."""
        return []

    def finished_key(self) -> str:
        """The key a finished run raises to train on (``--set KEY=N`` on resume)."""
        return "total_timesteps"

    # ------------------------------------------------------------------ shared
    @classmethod
    def layout(cls) -> list[str]:
        """The config's keys in the order a config is written (:attr:`placed_after`)."""
        order = list(TrainConfig.model_fields)
        previous = order[-1]
        for key in (key for key in cls.model_fields if key not in TrainConfig.model_fields):
            previous = cls.placed_after.get(key, previous)
            order.insert(order.index(previous) + 1, key)
            previous = key
        return order

    def actions(self) -> dict[str, Any]:
        """The learner's form of action as the environments take it (``actions`` and ``offer``,
        :func:`~splitpoker.envs.offered_env.action_form`): a slot of the ``policy.offer``
        offered splits for a policy kind over them, else a split index."""
        if self.policy.offered:
            return {"actions": "offered", "offer": self.policy.offer}
        return {"actions": "index", "offer": None}

    def game_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``make_game`` / ``load_agent``: the preset and switches."""
        return {"preset": self.preset, **self.rules}

    def resolved(self) -> dict[str, Any]:
        """Every setting the run uses as plain values, in :meth:`layout` order (the policy
        section holds only its kind's settings; a trainer's config may leave out more)."""
        data = self.model_dump(mode="json")
        data["policy"] = self.policy.settings()
        return {key: data[key] for key in self.layout()}

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.resolved(), sort_keys=False, allow_unicode=True)


def config_class(algorithm: str) -> type[TrainConfig]:
    """The config class of ``algorithm``'s trainer, from the registry of :mod:`.trainers`."""
    cls = trainers.config_class(algorithm)
    if not (isinstance(cls, type) and issubclass(cls, TrainConfig)):
        raise TypeError(f"the config of algorithm {algorithm!r}, {cls!r}, is no subclass of TrainConfig")
    return cls


# --------------------------------------------------------------------------- loading
def _key(loc: Sequence[Any]) -> str:
    return ".".join(str(p) for p in loc)


def _section_model(config: type[TrainConfig], loc: Sequence[Any]) -> type[BaseModel] | None:
    """The model of the section at ``loc`` of a ``config`` (through lists of sections: the
    key of an item ends with its position)."""
    model: type[BaseModel] = config
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


def _explain(config: type[TrainConfig], error: Mapping[str, Any]) -> str:
    loc = tuple(error.get("loc", ()))
    key = _key(loc)
    kind = error.get("type", "")
    message = str(error.get("msg", "")).removeprefix("Value error, ")
    if kind == "extra_forbidden":
        section = _section_model(config, loc[:-1])
        keys = config.layout() if section is config else list(section.model_fields) if section else []
        allowed = ", ".join(keys) or "none"
        where = f" of {_key(loc[:-1])}" if loc[:-1] else ""
        return f"unknown key {shown(key)}; allowed keys{where}: {allowed}"
    if kind == "missing":
        return f"{key} is required"
    if kind == "model_type" or kind == "dict_type":
        return f"{key or 'the config'} must be a mapping of keys, got {shown(error.get('input'))}"
    if not key or message.startswith((f"{key}:", f"{key.split('.')[0]}.")):
        return message
    return f"{key}: {message} (got {shown(error.get('input'))})"


def load_config_dict(data: Mapping[str, Any], source: str = "config") -> TrainConfig:
    """Validate a config mapping; ValueError naming ``source`` and the key on any problem."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{source}: a config is a mapping of keys, got {type(data).__name__}")
    algorithm = data.get("algorithm", DEFAULT_ALGORITHM)
    model = config_class(algorithm) if isinstance(algorithm, str) and algorithm in TRAINERS else TrainConfig
    try:
        return model.model_validate(dict(data))
    except ValidationError as error:
        errors = error.errors()
        more = f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
        raise ValueError(f"{source}: {_explain(model, errors[0])}{more}") from None


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"eval.hands=128"`` → (["eval", "hands"], 128); the value is read as a YAML scalar."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"cannot read --set {shown(text)}; expected key.sub=value")
    parts = [p.strip() for p in key.split(".")]
    if any(not p for p in parts):
        raise ValueError(f"cannot read --set {shown(text)}; the key {shown(key)} has an empty part")
    try:  # the loader of config files: no key twice, no aliases expanding past a bound
        parsed = load_yaml(value) if value.strip() else None
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ValueError(f"cannot read the value of --set {shown(text)} as YAML: {problem}") from None
    loose = loose_scalar(value, lines=False) if value.strip() else None
    if loose:
        inner, problem = loose
        where = f"{shown('.'.join([*parts, inner]), quote=False)}: " if inner else ""
        raise ValueError(f"--set {shown(text)}: {where}{problem}")
    return parts, parsed


def apply_overrides(data: Mapping[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """A copy of ``data`` with ``key.sub=value`` assignments applied. A part of the key after
    a list is a position in it, from 0 (``eval.opponents.1``); the position just past the end
    adds an item. A key given twice, or a section given after a
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
                    where = shown(".".join(parts[:i]), quote=False)
                    positions = f"its positions are 0 to {len(node) - 1} ({len(node)} adds one)" if node else \
                        "0 adds an item"
                    raise ValueError(f"--set {shown(text)}: {where} is a list of {len(node)}; {positions}")
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
                section = shown(".".join(parts[: i + 1]), quote=False)
                raise ValueError(f"--set {shown(text)}: {section} is not set; a new list starts at position 0 "
                                 f"({section}.0)")
            if child is None:  # a missing section; a list when the next part is a position
                child = node[key] = [] if parts[i + 1] == "0" else {}
            elif not isinstance(child, (dict, list)):
                section = shown(".".join(parts[: i + 1]), quote=False)
                raise ValueError(f"--set {shown(text)}: {section} is not a section")
            node = child
    return out


def _position(part: str) -> int | None:
    """The list position a part of a --set key names: plain decimal digits (``1``, not ``01``)."""
    return int(part) if re.fullmatch(r"0|[1-9][0-9]*", part) else None


def _check_not_set(parts: tuple[str, ...], text: str, given: dict[tuple[str, ...], str]) -> None:
    """ValueError when ``parts`` was set by an earlier --set (``given``), or is a section
    holding a key set earlier (it would replace that key's value); else records it."""
    key = shown(".".join(parts), quote=False)
    for earlier, by in given.items():
        if earlier == parts:
            raise ValueError(f"--set {key} is given twice (--set {shown(by, quote=False)} and --set "
                             f"{shown(text, quote=False)}); give each key once")
        if earlier[:len(parts)] == parts:
            raise ValueError(f"--set {shown(text, quote=False)} replaces {shown('.'.join(earlier), quote=False)}, "
                             f"set before by --set {shown(by, quote=False)}; give each key once, a section before "
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
    source = str(path) + (" with --set " + " ".join(shown(o, quote=False) for o in overrides) if overrides else "")
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
            "rules": config.rules, "policy": config.policy.settings()}


def __getattr__(name: str) -> Any:
    """A name that moved to the config module of a registered trainer: found there, with a
    DeprecationWarning that says where."""
    for algorithm in TRAINERS if not name.startswith("__") else ():
        module = importlib.import_module(config_class(algorithm).__module__)
        if module.__name__ != __name__ and name in vars(module):
            warnings.warn(f"{__name__}.{name} is {module.__name__}.{name}; import it from there",
                          DeprecationWarning, stacklevel=2)
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
