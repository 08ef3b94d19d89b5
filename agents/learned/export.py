"""Saving a policy trained elsewhere as a ``checkpoint:`` file: :func:`export_policy`.

A policy file holds weights and a description, never code (:mod:`.checkpoint`): loading it
builds the network its description names, one of the policy kinds of
:mod:`.policy_kinds`, and loads the weights into it. So a policy trained outside
``splitpoker train`` is saved by describing its network as one of those kinds, which holds
for these:

* a Stable-Baselines3 ``PPO`` or sb3-contrib ``MaskablePPO`` model, or its ``.policy``, over
  the flat observation of :mod:`splitpoker.envs.observation` (what
  :class:`splitpoker.train.selfplay.SelfPlayEnv` and the PettingZoo environments'
  ``"observation"`` entry give) with one action per split: its MLP (``net_arch``, ReLU or
  Tanh between the layers, SB3's ``FlattenExtractor``) is the ``mlp`` kind, a
  :class:`~.networks.SplitScorerPolicy` the ``split_scorer`` kind;
* the ``.zip`` such a model's ``save`` wrote, given by its path: its ``policy.pth`` is read
  as tensors only and its ``data`` as JSON (nothing in it is unpickled), the layer sizes
  come from the weights and the activation from the saved ``policy_kwargs``;
* a torch ``nn.Sequential`` of ``nn.Linear`` layers with ``nn.ReLU`` or ``nn.Tanh`` (one of
  them throughout) between them, from the observation to one logit per split: the ``mlp``
  kind, with a value head of zeros (a value is never played);
* over the offered splits (``actions="offered"``, :mod:`splitpoker.envs.offered`): a
  ``MaskablePPO`` model whose policy is an :class:`~.offered_policy.OfferedSplitsPolicy`,
  its ``.policy``, or its ``.zip``, and an ``nn.Sequential`` *slot scorer* of the form above
  from one offered split's ``F`` features (:func:`~splitpoker.envs.offered.offered_width`) to
  one score, which the file applies to every slot (the features as the environment gives
  them, a value head of zeros): the ``offered`` kind.

``offer=K`` is the number of offered splits a model over them decides over, recorded in the
file. A slot scorer needs it: its weights do not depend on ``K``, so nothing else tells it,
and a scorer given without it is refused with a line asking for it rather than given the
game's default. A MaskablePPO model's ``K`` is its ``Discrete(K)`` action space: ``offer``
may be left out and, given, must match it. For a model over split indices an ``offer`` is
refused, as is a slot scorer of another width than ``F``. A model over the offered slots
with SB3's ``MlpPolicy`` (one MLP over the whole offered observation) is refused in one
line: no policy kind describes it.

Weights are saved as float32, and an in-memory model is checked to give the same logits as
the policy rebuilt from the file on a few dealt hands. Any other network (one with layers
of its own, an observation of another shape) is refused in one line: play it instead as an
agent of your own, ``package.module:attr:weights=PATH`` (see :mod:`.loading`).

For example (not run as a doctest: it trains a model and writes ``mine.zip``):

>>> from sb3_contrib import MaskablePPO                                      # doctest: +SKIP
>>> from splitpoker.agents import export_policy, load_agent                  # doctest: +SKIP
>>> from splitpoker.train.selfplay import SelfPlayEnv                        # doctest: +SKIP
>>> model = MaskablePPO("MlpPolicy", SelfPlayEnv("biji", 4)).learn(2048)    # doctest: +SKIP
>>> export_policy(model, "mine.zip", game="biji", num_players=4)            # doctest: +SKIP
>>> agent = load_agent("checkpoint:mine.zip", "biji", num_players=4)        # doctest: +SKIP
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.base_class import BaseAlgorithm
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor, MlpExtractor
from torch import nn

from ...envs.game import Game
from ...envs.games import make_game
from ...envs.observation import observation_size
from ...envs.offered import check_offer, offered_width
from ...envs.offered_env import ActionForm
from ...envs.table import deal
from ...runtime.arguments import is_whole
from ...runtime.files import output_path
from .checkpoint import META_MEMBER, POLICY_MEMBER, _policy_archive, policy_meta, write_policy_file
from .networks import SplitScorerPolicy, action_logits, build_policy
from .offered_policy import OfferedExtractor, OfferedSplitsPolicy, offered_layout
from .policy import load_policy
from .policy_kinds import WEIGHT_DTYPE

__all__ = ["export_policy", "ACTIVATION_NAMES"]

#: the activations an exported ``mlp`` may have, by torch class: the ``activation`` setting
ACTIVATION_NAMES: dict[type[nn.Module], str] = {nn.ReLU: "relu", nn.Tanh: "tanh"}
#: layers of an ``nn.Sequential`` that compute nothing at play (dropout plays as the identity)
_PASSIVE = (nn.Identity, nn.Flatten, nn.Dropout)
#: the hands dealt to compare an in-memory model with the policy saved from it
_CHECK_TABLES = 8
#: how far apart their logits may be, relative to the largest logit (float32 rounding)
_CHECK_TOLERANCE = 1e-4
_MLP_WEIGHT = re.compile(r"mlp_extractor\.(policy_net|value_net)\.(\d+)\.(weight|bias)")
_MLP_HEADS = ("action_net.weight", "action_net.bias", "value_net.weight", "value_net.bias")
_OFFERED_WEIGHT = re.compile(r"mlp_extractor\.(scorer|value_layers)\.(\d+)\.(weight|bias)")
_OFFERED_OTHERS = ("mlp_extractor.feature_scale", "action_net.score.weight", "action_net.score.bias",
                   "value_net.weight", "value_net.bias")

#: a function from a batch of observations to the model's logits, to compare with the file
Reference = Callable[[np.ndarray], np.ndarray]


class _Described(NamedTuple):
    """What :func:`_describe` reads of a model: the policy kind, its settings, the weights
    (float32, on the CPU), the training step, a function giving the model's own logits (None
    for a file), how to name the model, and the number of offered splits it decides over
    (None for the kinds that choose among split indices)."""

    kind: str
    arch: dict[str, Any]
    state: dict[str, th.Tensor]
    step: int
    reference: Reference | None
    where: str
    offer: int | None = None


def export_policy(model: Any, path: str | os.PathLike[str], game: str | Game = "thirteen", num_players: int = 4,
                  preset: str = "classic", *, step: int | None = None, offer: int | None = None,
                  **switches: Any) -> Path:
    """Save ``model`` as a policy file at ``path`` (a ``.zip`` with its ``splitpoker.json``),
    which ``checkpoint:PATH`` plays, and return the path.

    ``model``: a Stable-Baselines3 ``PPO`` or ``MaskablePPO`` model or its policy, the path
    of such a model's ``.zip``, or an ``nn.Sequential`` of linear layers (see the module
    text), or a model over the offered splits: an :class:`~.offered_policy.OfferedSplitsPolicy`
    model, its policy or its ``.zip``, or an ``nn.Sequential`` slot scorer with ``offer``.
    ``game``, ``num_players``, ``preset`` and rule ``switches`` name the table it was
    trained for, as :func:`~splitpoker.agents.load_agent` takes them (or a
    :class:`~splitpoker.envs.game.Game`); ``step`` is recorded as the training step (default:
    the model's ``num_timesteps``, else 0); ``offer``, the number of offered splits ``K`` a
    model over them decides over: needed for a slot scorer, checked against an
    ``OfferedSplitsPolicy``'s (which its spaces give), refused for a model over split indices.
    The file is written whole, never through a link, and read back with the checks of every
    policy file. ValueError, naming the model and what to change, for a network no policy kind
    describes, one for another game or table, or weights that are not finite."""
    the_game, recorded = _game(game, preset, switches)
    num_players = the_game.check_players(num_players)
    target = output_path(path, "export path")
    wanted = None if offer is None else check_offer(offer)
    found = _describe(model, the_game, wanted)
    extra = {} if found.offer is None else {"offer": found.offer}
    meta = policy_meta(the_game, num_players, found.kind, found.arch,
                       step=found.step if step is None else _step(step), **recorded, **extra)
    policy = _rebuilt(meta, found.state, found.where)
    if found.reference is not None:
        _check_same(found.reference, policy, the_game, num_players, found.where, found.offer)
    write_policy_file(target, meta, policy.state_dict())
    load_policy(target)  # what checkpoint: reads: the description and weights, checked
    return target


def _game(game: str | Game, preset: str, switches: Mapping[str, Any]) -> tuple[Game, dict[str, Any]]:
    """The game of the table, and what the file records of how it was named (the preset)."""
    if isinstance(game, Game):
        if switches:
            raise ValueError(f"pass rule switches through the Game, not beside it: {sorted(switches)}")
        return game, {}
    return make_game(game, preset, **switches), {"preset": preset}


def _step(step: Any) -> int:
    if not is_whole(step) or step < 0:
        raise ValueError(f"step={step!r} is not a training step (an integer of at least 0)")
    return int(step)


def _describe(model: Any, game: Game, offer: int | None) -> _Described:
    """What a model is, as a policy file describes it (:class:`_Described`); ``offer``: the
    number of offered splits given, None when none is."""
    if isinstance(model, (str, os.PathLike)):
        return _from_file(Path(model), game, offer)
    step = 0
    if isinstance(model, BaseAlgorithm):
        step, model = int(model.num_timesteps), model.policy
    name = type(model).__name__
    where = f"the {name}"
    if isinstance(model, (nn.Sequential, nn.Linear)):
        linears, activation = _linear_stack(model, where)
        shape = (linears[0].in_features, linears[-1].out_features)
        if shape == (observation_size(game), game.n_actions):
            _refuse_offer(offer, where, game)
        elif offer is not None or shape == (offered_width(game), 1):
            arch, state, offer = _slot_scorer(linears, activation, game, offer, where)
            return _Described("offered", arch, state, step, _slot_reference(model, game, offer), where, offer)
        arch, state = _sequential(linears, activation, game, where)
        return _Described("mlp", arch, state, step, _module_reference(model), where)
    if isinstance(model, OfferedSplitsPolicy):
        kind, arch = "offered", _offered_arch(model, game, where, offer)
    elif isinstance(model, SplitScorerPolicy):
        kind, arch = "split_scorer", _scorer_arch(model, game, where)
    elif isinstance(model, (MaskableActorCriticPolicy, ActorCriticPolicy)):
        kind, arch = "mlp", _policy_arch(model, game, where)
    else:
        raise ValueError(f"cannot export a {name}: export_policy saves a PPO or MaskablePPO model, its policy, the "
                         "path of its .zip, or an nn.Sequential of Linear layers with ReLU or Tanh between them; "
                         "play another network as an agent of your own (package.module:attr:weights=PATH)")
    if kind != "offered":
        _refuse_offer(offer, where, game)
    return _Described(kind, arch, _weights(model.state_dict(), where), step, _module_reference(model, action_logits),
                      where, model.offer if kind == "offered" else None)


def _refuse_offer(offer: int | None, where: str, game: Game) -> None:
    """ValueError when an ``offer`` is given for a model over split indices."""
    if offer is not None:
        raise ValueError(f"offer={offer} is for a model over offered splits (an OfferedSplitsPolicy, or an "
                         f"nn.Sequential slot scorer of {offered_width(game)} inputs and 1 output); {where} chooses "
                         "among split indices: leave offer out")


def _weights(state: Mapping[str, Any], where: str) -> dict[str, th.Tensor]:
    """``state`` as float32 tensors on the CPU; ValueError naming the first tensors that hold a
    NaN or an infinity."""
    out = {}
    for key, value in state.items():
        if not isinstance(value, th.Tensor):
            raise ValueError(f"{where} holds {key}, a {type(value).__name__}, where a policy holds tensors")
        value = value.detach().cpu()
        out[key] = value.to(getattr(th, WEIGHT_DTYPE)) if value.is_floating_point() else value
    bad = [key for key, value in out.items() if value.is_floating_point() and not bool(th.isfinite(value).all())]
    if bad:
        raise ValueError(f"{where} holds NaN or infinite weights ({', '.join(bad[:4])}); a saved policy's weights "
                         "are finite")
    return out


def _check_spaces(policy: Any, game: Game, where: str) -> None:
    """ValueError unless ``policy`` reads the flat observation of ``game`` and chooses a split
    (a space is named by its kind and shape, never written out)."""
    size, n = observation_size(game), game.n_actions
    obs, act = policy.observation_space, policy.action_space
    if isinstance(obs, spaces.Box) and len(obs.shape) == 1 and isinstance(act, spaces.Discrete):
        _refuse_offered_mlp(int(obs.shape[0]), int(act.n), game, where)
    if not isinstance(obs, spaces.Box) or tuple(obs.shape) != (size,):
        raise ValueError(f"{where} observes {_space(obs)}; a {game.name} policy reads the flat observation of "
                         f"{size} values (SelfPlayEnv's, or a PettingZoo env's 'observation' entry)")
    if not isinstance(act, spaces.Discrete) or int(act.n) != n:
        raise ValueError(f"{where} acts in {_space(act)}; a {game.name} policy chooses one of its {n:,} splits "
                         f"(Discrete({n}))")


def _space(space: Any) -> str:
    """A gymnasium space as a message names it: ``Discrete(n)``, else its kind and shape."""
    if isinstance(space, spaces.Discrete):
        return f"Discrete({int(space.n)})"
    return f"a {type(space).__name__} of shape {getattr(space, 'shape', None)}"


def _refuse_offered_mlp(inputs: int, outputs: int, game: Game, where: str) -> None:
    """ValueError when a network of ``inputs`` values and ``outputs`` logits is a plain MLP
    over the offered splits (``D + K*F`` values, ``K`` slots): no policy kind describes one."""
    if outputs >= 1 and inputs == observation_size(game) + outputs * offered_width(game):
        raise ValueError(f"{where} is a model over the {outputs} offered slots (Discrete({outputs})) with an "
                         "MlpPolicy, which cannot be exported: only an OfferedSplitsPolicy (policy kind offered, "
                         "MaskablePPO(OfferedSplitsPolicy, env)) or an nn.Sequential slot scorer export for the "
                         "offered action space")


def _policy_arch(policy: Any, game: Game, where: str) -> dict[str, Any]:
    """The ``mlp`` settings of an SB3 actor-critic policy; ValueError for one they do not describe."""
    _check_spaces(policy, game, where)
    named, activation = _activation_name(policy, where, "mlp"), policy.activation_fn
    widths = {}
    for part in ("policy_net", "value_net"):
        layers = list(getattr(policy.mlp_extractor, part))
        if any(not isinstance(m, (nn.Linear, activation)) for m in layers):
            raise ValueError(f"{where}'s {part} holds layers other than Linear and {activation.__name__}")
        widths[part] = [m.out_features for m in layers if isinstance(m, nn.Linear)]
    return {"net_arch": _net_arch(widths["policy_net"], widths["value_net"]), "activation": named}


#: each kind an SB3 policy exports as: its name in messages, its extractor's class and name, the extractor's default
_EXPORTED = {"mlp": ("mlp", MlpExtractor, "SB3's MlpExtractor", "the default of MlpPolicy"),
             "offered": ("offered policy", OfferedExtractor, "its OfferedExtractor", "the default")}


def _activation_name(policy: Any, where: str, kind: str) -> str:
    """The activation of an SB3 ``policy`` exported as ``kind``; ValueError for what the kind
    cannot describe (a feature extractor of its own, another activation or ``mlp_extractor``)."""
    what, extractor, extractor_name, default = _EXPORTED[kind]
    odd = [type(e).__name__ for e in (getattr(policy, f"{a}features_extractor", None) for a in ("", "pi_", "vf_"))
           if e is not None and not isinstance(e, FlattenExtractor)]
    if odd:
        raise ValueError(f"{where} reads its observation through a {odd[0]}; an exported {what} reads it as it is "
                         f"(SB3's FlattenExtractor, {default})")
    activation = getattr(policy, "activation_fn", None)
    if activation not in ACTIVATION_NAMES:
        raise ValueError(f"{where} has {getattr(activation, '__name__', repr(activation))} activations; an exported "
                         f"{what} has ReLU or Tanh (activation_fn=nn.ReLU or nn.Tanh in policy_kwargs)")
    if not isinstance(policy.mlp_extractor, extractor):
        raise ValueError(f"{where} has a {type(policy.mlp_extractor).__name__} where an {what} has {extractor_name}")
    return ACTIVATION_NAMES[activation]


def _net_arch(pi: list[int], vf: list[int]) -> Any:
    return pi if pi == vf else {"pi": pi, "vf": vf}


def _scorer_arch(policy: SplitScorerPolicy, game: Game, where: str) -> dict[str, Any]:
    _check_spaces(policy, game, where)
    if policy.game_name != game.name:
        raise ValueError(f"{where} scores {policy.game_name} splits, not {game.name}")
    return {"subset_hidden": policy.subset_hidden, "embed_dim": policy.embed_dim,
            "split_hidden": policy.split_hidden, "value_hidden": policy.value_hidden}


def _linear_stack(module: nn.Module, where: str) -> tuple[list[nn.Linear], str]:
    """The linear layers of an ``nn.Sequential`` (or one ``nn.Linear``) and the activation
    between them (``relu`` when there is none); ValueError for any other form."""
    layers = [m for m in _flattened(module) if not isinstance(m, _PASSIVE)]
    kinds = {type(m) for m in layers if not isinstance(m, nn.Linear)}
    if any(k not in ACTIVATION_NAMES for k in kinds) or len(kinds) > 1:
        shown = ", ".join(sorted(k.__name__ for k in kinds))
        raise ValueError(f"{where} holds {shown} layers; an exported nn.Sequential holds Linear layers with one "
                         "of ReLU or Tanh between them")
    linears = [m for m in layers[::2] if isinstance(m, nn.Linear)]
    if not layers or len(layers) % 2 == 0 or len(linears) != len(layers[::2]) or any(
            isinstance(m, nn.Linear) for m in layers[1::2]):
        raise ValueError(f"{where} is not Linear layers with an activation between each two (and none after "
                         "the last); export_policy reads that form of nn.Sequential")
    return linears, ACTIVATION_NAMES[next(iter(kinds))] if kinds else "relu"


def _sequential(linears: list[nn.Linear], activation: str, game: Game,
                where: str) -> tuple[dict[str, Any], dict[str, th.Tensor]]:
    """The ``mlp`` settings and weights of an ``nn.Sequential`` (or one ``nn.Linear``) from the
    observation to the logits (its ``linears`` and ``activation``, :func:`_linear_stack`): its
    hidden layers are the policy net, its last layer the action net, and the value net is zeros."""
    size, n = observation_size(game), game.n_actions
    first, last = linears[0], linears[-1]
    _refuse_offered_mlp(first.in_features, last.out_features, game, where)
    if first.in_features != size:
        raise ValueError(f"{where} reads {first.in_features} values; a {game.name} policy reads the flat "
                         f"observation of {size} values (SelfPlayEnv's, or a PettingZoo env's 'observation' entry)")
    if last.out_features != n:
        raise ValueError(f"{where} gives {last.out_features} outputs; a {game.name} policy gives one logit "
                         f"for each of its {n:,} splits")
    arch, state = _stacked(linears, activation, "mlp_extractor.policy_net", "action_net")
    state["value_net.weight"], state["value_net.bias"] = th.zeros(1, size), th.zeros(1)
    return arch, _weights(state, where)


def _stacked(linears: list[nn.Linear], activation: str, hidden: str,
             last: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The settings (no critic layers) and weights of ``linears`` as a policy names them: each
    hidden layer ``hidden.{2i}`` (an activation between each two), the last ``last``."""
    state = {f"{hidden}.{2 * i}.{part}" if i < len(linears) - 1 else f"{last}.{part}": value
             for i, layer in enumerate(linears) for part, value in (("weight", layer.weight), ("bias", _bias(layer)))}
    return {"net_arch": {"pi": [m.out_features for m in linears[:-1]], "vf": []}, "activation": activation}, state


def _slot_scorer(linears: list[nn.Linear], activation: str, game: Game, offer: int | None,
                 where: str) -> tuple[dict[str, Any], dict[str, th.Tensor], int]:
    """The ``offered`` settings and weights of an ``nn.Sequential`` slot scorer (its
    ``linears`` and ``activation``) from one offered split's feature row to its score, over
    ``offer`` splits: its hidden layers are the scorer's, its last layer the score, the
    features read as they are (a scale of 1) and the critic a zero value over the seat vector
    and the pooled rows."""
    width = offered_width(game)
    first, last = linears[0], linears[-1]
    if first.in_features != width or last.out_features != 1:
        raise ValueError(f"{where} maps {first.in_features} values to {last.out_features}; a {game.name} slot "
                         f"scorer maps the {width} features of one offered split (envs.offered.offered_labels) to "
                         "1 score")
    if offer is None:
        raise ValueError(f"{where} is a slot scorer ({width} features of one offered split to 1 score): give "
                         f"offer=K, the number of offered splits it decides over (e.g. offer={game.default_offer}, "
                         f"{game.name}'s default)")
    arch, state = _stacked(linears, activation, "mlp_extractor.scorer", "action_net.score")
    pooled = observation_size(game) + 2 * width
    state = {"mlp_extractor.feature_scale": th.ones(width), **state, "value_net.weight": th.zeros(1, pooled),
             "value_net.bias": th.zeros(1)}
    return arch, _weights(state, where), offer


def _offered_arch(policy: OfferedSplitsPolicy, game: Game, where: str, offer: int | None) -> dict[str, Any]:
    """The ``offered`` settings of an :class:`~.offered_policy.OfferedSplitsPolicy`; ValueError
    for one of another game, another ``offer`` than the one given, or what the kind cannot
    describe (another activation, a feature extractor of its own)."""
    if policy.game_name != game.name:
        raise ValueError(f"{where} scores {policy.game_name} splits, not {game.name}")
    if offer is not None and offer != policy.offer:
        raise ValueError(f"offer={offer}, but {where} decides over {policy.offer} offered splits (Discrete("
                         f"{policy.offer})); leave offer out or give offer={policy.offer}")
    activation = _activation_name(policy, where, "offered")
    return {"net_arch": _net_arch(policy.scorer_arch, policy.value_arch), "activation": activation}


def _flattened(module: nn.Module) -> list[nn.Module]:
    if isinstance(module, nn.Sequential):
        return [m for inner in module for m in _flattened(inner)]
    return [module]


def _bias(layer: nn.Linear) -> th.Tensor:
    return layer.bias if layer.bias is not None else th.zeros(layer.out_features)


def _from_file(path: Path, game: Game, offer: int | None) -> _Described:
    """What :func:`_describe` gives for the ``.zip`` of a Stable-Baselines3 model, read
    without unpickling: ``policy.pth`` as tensors only, ``data`` as JSON."""
    with _policy_archive(path, "Stable-Baselines3 model") as archive:
        names = archive.namelist()
        if META_MEMBER in names:
            raise ValueError(f"{path} is a splitpoker policy already (it holds {META_MEMBER}): play it as "
                             f"checkpoint:{path}")
        if POLICY_MEMBER not in names:
            raise ValueError(f"{path} is not a Stable-Baselines3 model: no {POLICY_MEMBER} inside (a model's "
                             "save() writes one)")
        try:
            state = th.load(io.BytesIO(archive.read(POLICY_MEMBER)), map_location="cpu", weights_only=True)
            data = json.loads(archive.read("data").decode()) if "data" in names else {}
        except Exception as error:  # a damaged member, or one holding more than tensors
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise ValueError(f"{path} cannot be read as a Stable-Baselines3 model ({type(error).__name__}"
                             f"{': ' + first[:120] if first else ''})") from None
    where = str(path)
    if not isinstance(state, Mapping) or not all(isinstance(k, str) for k in state):
        raise ValueError(f"{path}'s {POLICY_MEMBER} is not a state dict (a mapping of weight names to tensors)")
    data = data if isinstance(data, Mapping) else {}
    kwargs = data.get("policy_kwargs")
    kwargs = kwargs if isinstance(kwargs, Mapping) else {}
    found = None
    if any(key.startswith(("mlp_extractor.scorer.", "mlp_extractor.feature_scale")) for key in state):
        _, pi, vf = _file_layers(state, kwargs, where, "offered")  # ReLU: the policy's default activation
        kind, arch = "offered", {"net_arch": _net_arch(pi, vf), "activation": _activation_of(kwargs, "relu", where)}
        found = _file_offer(data, kwargs, game, offer, where)
    elif any(key.startswith("mlp_extractor.card_layers.") for key in state):
        kind, arch = "split_scorer", _scorer_shapes(state, where)
    else:
        kind, arch = "mlp", _mlp_shapes(state, kwargs, game, where)
    if found is None:
        _refuse_offer(offer, where, game)
    steps: Any = data.get("num_timesteps")
    step = steps if is_whole(steps) and steps >= 0 else 0
    return _Described(kind, arch, _weights(state, where), step, None, where, found)


def _mlp_shapes(state: Mapping[str, Any], kwargs: Mapping[str, Any], game: Game, where: str) -> dict[str, Any]:
    """The ``mlp`` settings of an SB3 MlpPolicy's weights: the layer sizes from their shapes,
    the activation from the saved ``policy_kwargs`` (Tanh, SB3's default, when it names none)."""
    first, pi, vf = _file_layers(state, kwargs, where, "mlp")
    if "action_net.weight" not in state:
        raise ValueError(f"{where} holds no action_net: not an actor-critic policy (PPO or MaskablePPO)")
    activation = _activation_of(kwargs, "tanh", where)
    weight = state["action_net.weight"]
    inputs = state[f"mlp_extractor.policy_net.{first}.weight"] if pi else weight
    size, n = observation_size(game), game.n_actions
    if isinstance(inputs, th.Tensor) and inputs.ndim == 2 and isinstance(weight, th.Tensor) and weight.ndim == 2:
        _refuse_offered_mlp(int(inputs.shape[1]), int(weight.shape[0]), game, where)
    if isinstance(inputs, th.Tensor) and inputs.ndim == 2 and inputs.shape[1] != size:
        raise ValueError(f"{where} reads {inputs.shape[1]} values; a {game.name} policy reads the flat observation "
                         f"of {size} values (SelfPlayEnv's, or a PettingZoo env's 'observation' entry)")
    if isinstance(weight, th.Tensor) and weight.ndim == 2 and weight.shape[0] != n:
        raise ValueError(f"{where} chooses among {weight.shape[0]} actions; a {game.name} policy chooses one of "
                         f"its {n:,} splits")
    return {"net_arch": _net_arch(pi, vf), "activation": activation}


#: what a saved model's weights of each kind are named: its layers (part, position), its other weights, its network
_FILE_LAYERS = {"mlp": (_MLP_WEIGHT, ("policy_net", "value_net"), _MLP_HEADS, "an MlpPolicy of PPO or MaskablePPO "
                        "over the flat observation, or the split scorer"),
                "offered": (_OFFERED_WEIGHT, ("scorer", "value_layers"), _OFFERED_OTHERS,
                            "it seems to hold an OfferedSplitsPolicy")}


def _file_layers(state: Mapping[str, Any], kwargs: Mapping[str, Any], where: str,
                 kind: str) -> tuple[int | None, list[int], list[int]]:
    """The position of a saved model's first hidden layer and its two parts' hidden widths (from the
    weights' shapes); ValueError for a weight of another network, or a feature extractor of its own."""
    pattern, parts, others, network = _FILE_LAYERS[kind]
    layers: dict[str, dict[int, int]] = {part: {} for part in parts}
    for key, value in state.items():
        match = pattern.fullmatch(key)
        if match and match[3] == "weight" and isinstance(value, th.Tensor) and value.ndim == 2:
            layers[match[1]][int(match[2])] = int(value.shape[0])
        elif not match and key not in others:
            raise ValueError(f"{where} holds {key}, a weight of no network export_policy saves ({network})")
    extractor = kwargs.get("features_extractor_class")
    if extractor is not None and "FlattenExtractor" not in str(extractor):
        what, _, _, default = _EXPORTED[kind]
        raise ValueError(f"{where} reads its observation through {extractor}; an exported {what} reads it as it is "
                         f"(SB3's FlattenExtractor, {default})")
    actor, critic = layers.values()
    return min(actor, default=None), [actor[i] for i in sorted(actor)], [critic[i] for i in sorted(critic)]


def _activation_of(kwargs: Mapping[str, Any], default: str, where: str) -> str:
    """The activation a model's saved ``policy_kwargs`` name (``default`` when they name none);
    ValueError for one other than ReLU or Tanh."""
    shown = kwargs.get("activation_fn")
    found = re.search(r"\.(\w+)'>$", shown) if isinstance(shown, str) else None
    names = {cls.__name__: name for cls, name in ACTIVATION_NAMES.items()}
    if shown is not None and (found is None or found[1] not in names):
        raise ValueError(f"{where} was trained with activation_fn {shown}; an exported policy has ReLU or Tanh")
    return names[found[1]] if found else default


def _file_offer(data: Mapping[str, Any], kwargs: Mapping[str, Any], game: Game, offer: int | None,
                where: str) -> int:
    """The number of offered splits of an :class:`~.offered_policy.OfferedSplitsPolicy` model
    saved at ``where``: its action space's ``n`` (``offer`` when the file does not record
    it), checked against ``offer`` and its observation's size against the game's offered
    layout; ValueError saying what differs."""
    space = data.get("action_space")
    recorded = space.get("n") if isinstance(space, Mapping) else None
    found = int(recorded) if isinstance(recorded, str) and recorded.isdigit() else recorded
    if not is_whole(found):
        if offer is None:
            raise ValueError(f"{where} does not record its action space; give the number of offered splits it "
                             "decides over (offer=K, --offer K)")
        found = offer
    found = check_offer(found)
    if offer is not None and offer != found:
        raise ValueError(f"offer={offer}, but {where} decides over {found} offered splits (Discrete({found})); "
                         f"leave offer out or give offer={found}")
    trained = kwargs.get("game")
    if trained is not None and trained != game.name:
        raise ValueError(f"{where} scores {trained} splits, not {game.name}")
    shape = data.get("observation_space", {}).get("_shape") if isinstance(data.get("observation_space"),
                                                                           Mapping) else None
    if isinstance(shape, list) and len(shape) == 1 and is_whole(shape[0]):
        offered_layout(int(shape[0]), found, game.name)
    return found


def _scorer_shapes(state: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The ``split_scorer`` settings of a split scorer's weights, from their shapes."""
    def rows(key: str) -> int:
        value = state.get(key)
        if not isinstance(value, th.Tensor) or value.ndim != 2:
            raise ValueError(f"{where} lacks {key}, a weight of the split scorer it seems to hold")
        return int(value.shape[0])

    size = min(int(k.split(".")[2]) for k in state if k.startswith("mlp_extractor.card_layers."))
    return {"subset_hidden": rows(f"mlp_extractor.card_layers.{size}.weight"),
            "embed_dim": rows(f"mlp_extractor.embed_layers.{size}.weight"),
            "split_hidden": rows("action_net.row_vectors.0.weight") if "action_net.row_vectors.0.weight" in state
            else 0, "value_hidden": rows("mlp_extractor.value_layer.0.weight")}


def _rebuilt(meta: Mapping[str, Any], state: Mapping[str, th.Tensor], where: str) -> MaskableActorCriticPolicy:
    """The policy the file describes, with ``state`` loaded; ValueError when the weights do not fit it."""
    policy = build_policy(meta, initialise=False)
    try:
        policy.load_state_dict(dict(state))
    except RuntimeError as error:
        detail = " ".join(str(error).split())
        raise ValueError(f"{where}'s weights do not fit the {meta['policy']['kind']} policy they describe "
                         f"({detail[:200]})") from None
    return policy.eval()


def _module_reference(module: nn.Module, forward: Callable[..., th.Tensor] | None = None) -> Reference:
    """The logits of ``module`` (``forward(module, obs)`` when given), in evaluation mode."""
    def logits(observations: np.ndarray) -> np.ndarray:
        parameter = next(iter(module.parameters()))
        training = module.training
        module.eval()
        try:
            with th.inference_mode():
                obs = th.as_tensor(observations, device=parameter.device, dtype=parameter.dtype)
                return (module(obs) if forward is None else forward(module, obs)).float().cpu().numpy()
        finally:
            module.train(training)
    return logits


def _slot_reference(module: nn.Module, game: Game, offer: int) -> Reference:
    """The logits ``(N, K)`` of a slot scorer: ``module`` applied to each offered split's
    feature row of offered observations."""
    seat, width = observation_size(game), offered_width(game)
    return _module_reference(module, lambda m, obs: m(obs[:, seat:].reshape(-1, width)).reshape(len(obs), offer))


def _check_same(reference: Reference, policy: MaskableActorCriticPolicy, game: Game, num_players: int,
                where: str, offer: int | None = None) -> None:
    """ValueError unless the rebuilt ``policy`` gives the logits of the model (``reference``)
    on the seats of a few dealt tables (over ``offer`` offered splits, when given), up to
    float32 rounding."""
    tables = deal(game, num_players, np.random.default_rng(0), batch=_CHECK_TABLES)
    pairs = [(b, s) for b in range(_CHECK_TABLES) for s in range(num_players)]
    observations = tables.views_at(pairs).observations
    if offer is not None:
        observations = ActionForm.observations(observations, tables.offered_at(pairs, offer))
    theirs = reference(observations)
    with th.inference_mode():
        ours = action_logits(policy, th.as_tensor(observations)).numpy()
    scale = max(1.0, float(np.abs(theirs).max(initial=0.0)))
    gap = float(np.abs(theirs - ours).max(initial=0.0)) if theirs.shape == ours.shape else float("inf")
    if not gap <= _CHECK_TOLERANCE * scale:
        raise ValueError(f"the policy saved from {where} does not give its logits (they differ by up to {gap:.3g}): "
                         "it computes something the saved policy kind does not; play it as an agent of your own "
                         "(package.module:attr:weights=PATH)")
