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
  kind, with a value head of zeros (a value is never played).

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
from typing import Any

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
from ...envs.table import deal
from ...runtime.arguments import is_whole
from ...runtime.files import output_path
from .checkpoint import META_MEMBER, POLICY_MEMBER, _policy_archive, policy_meta, write_policy_file
from .networks import SplitScorerPolicy, action_logits, build_policy
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

#: a function from a batch of observations to the model's logits, to compare with the file
Reference = Callable[[np.ndarray], np.ndarray]


def export_policy(model: Any, path: str | os.PathLike[str], game: str | Game = "thirteen", num_players: int = 4,
                  preset: str = "classic", *, step: int | None = None, **switches: Any) -> Path:
    """Save ``model`` as a policy file at ``path`` (a ``.zip`` with its ``splitpoker.json``),
    which ``checkpoint:PATH`` plays, and return the path.

    ``model``: a Stable-Baselines3 ``PPO`` or ``MaskablePPO`` model or its policy, the path
    of such a model's ``.zip``, or an ``nn.Sequential`` of linear layers (see the module
    text). ``game``, ``num_players``, ``preset`` and rule ``switches`` name the table it was
    trained for, as :func:`~splitpoker.agents.load_agent` takes them (or a
    :class:`~splitpoker.envs.game.Game`); ``step`` is recorded as the training step (default:
    the model's ``num_timesteps``, else 0). The file is written whole, never through a link,
    and read back with the checks of every policy file. ValueError, naming the model and
    what to change, for a network no policy kind describes, one for another game or table,
    or weights that are not finite."""
    the_game, recorded = _game(game, preset, switches)
    num_players = the_game.check_players(num_players)
    target = output_path(path, "export path")
    kind, arch, state, found_step, reference, where = _describe(model, the_game)
    meta = policy_meta(the_game, num_players, kind, arch, step=found_step if step is None else _step(step),
                       **recorded)
    policy = _rebuilt(meta, state, where)
    if reference is not None:
        _check_same(reference, policy, the_game, num_players, where)
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


def _describe(model: Any, game: Game) -> tuple[str, dict[str, Any], dict[str, th.Tensor], int, Reference | None,
                                                 str]:
    """The policy kind, its settings, the weights (float32, on the CPU), the training step,
    a function giving the model's own logits (None for a file) and how to name the model."""
    if isinstance(model, (str, os.PathLike)):
        return _from_file(Path(model), game)
    step = 0
    if isinstance(model, BaseAlgorithm):
        step = int(model.num_timesteps)
        model = model.policy
    name = type(model).__name__
    if isinstance(model, SplitScorerPolicy):
        kind, arch, where = "split_scorer", _scorer_arch(model, game, name), f"the {name}"
    elif isinstance(model, (MaskableActorCriticPolicy, ActorCriticPolicy)):
        kind, arch, where = "mlp", _policy_arch(model, game, name), f"the {name}"
    elif isinstance(model, (nn.Sequential, nn.Linear)):
        kind, arch, state = "mlp", *_sequential(model, game)
        return kind, arch, state, step, _module_reference(model), f"the {name}"
    else:
        raise ValueError(f"cannot export a {name}: export_policy saves a PPO or MaskablePPO model, its policy, the "
                         "path of its .zip, or an nn.Sequential of Linear layers with ReLU or Tanh between them; "
                         "play another network as an agent of your own (package.module:attr:weights=PATH)")
    return kind, arch, _weights(model.state_dict(), where), step, _policy_reference(model), where


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
    """ValueError unless ``policy`` reads the flat observation of ``game`` and chooses a split."""
    size, n = observation_size(game), game.n_actions
    obs, act = policy.observation_space, policy.action_space
    if not isinstance(obs, spaces.Box) or tuple(obs.shape) != (size,):
        raise ValueError(f"{where} observes {obs}; a {game.name} policy reads the flat observation of "
                         f"{size} values (SelfPlayEnv's, or a PettingZoo env's 'observation' entry)")
    if not isinstance(act, spaces.Discrete) or int(act.n) != n:
        raise ValueError(f"{where} acts in {act}; a {game.name} policy chooses one of its {n:,} splits "
                         f"(Discrete({n}))")


def _policy_arch(policy: Any, game: Game, name: str) -> dict[str, Any]:
    """The ``mlp`` settings of an SB3 actor-critic policy; ValueError for one they do not describe."""
    where = f"the {name}"
    _check_spaces(policy, game, where)
    extractors = {getattr(policy, a, None) for a in ("features_extractor", "pi_features_extractor",
                                                     "vf_features_extractor")} - {None}
    odd = [type(e).__name__ for e in extractors if not isinstance(e, FlattenExtractor)]
    if odd:
        raise ValueError(f"{where} reads its observation through a {odd[0]}; an exported mlp reads it as it is "
                         "(SB3's FlattenExtractor, the default of MlpPolicy)")
    activation = getattr(policy, "activation_fn", None)
    if activation not in ACTIVATION_NAMES:
        shown = getattr(activation, "__name__", repr(activation))
        raise ValueError(f"{where} has {shown} activations; an exported mlp has ReLU or Tanh (activation_fn=nn.ReLU "
                         "or nn.Tanh in policy_kwargs)")
    extractor = policy.mlp_extractor
    if not isinstance(extractor, MlpExtractor):
        raise ValueError(f"{where} has a {type(extractor).__name__} where an mlp has SB3's MlpExtractor")
    widths = {}
    for part in ("policy_net", "value_net"):
        layers = list(getattr(extractor, part))
        if any(not isinstance(m, (nn.Linear, activation)) for m in layers):
            raise ValueError(f"{where}'s {part} holds layers other than Linear and {activation.__name__}")
        widths[part] = [m.out_features for m in layers if isinstance(m, nn.Linear)]
    pi, vf = widths["policy_net"], widths["value_net"]
    net_arch: Any = pi if pi == vf else {"pi": pi, "vf": vf}
    return {"net_arch": net_arch, "activation": ACTIVATION_NAMES[activation]}


def _scorer_arch(policy: SplitScorerPolicy, game: Game, name: str) -> dict[str, Any]:
    _check_spaces(policy, game, f"the {name}")
    if policy.game_name != game.name:
        raise ValueError(f"the {name} scores {policy.game_name} splits, not {game.name}")
    return {"subset_hidden": policy.subset_hidden, "embed_dim": policy.embed_dim,
            "split_hidden": policy.split_hidden, "value_hidden": policy.value_hidden}


def _sequential(module: nn.Module, game: Game) -> tuple[dict[str, Any], dict[str, th.Tensor]]:
    """The ``mlp`` settings and weights of an ``nn.Sequential`` (or one ``nn.Linear``) from the
    observation to the logits: its hidden layers are the policy net, its last layer the
    action net, and the value net is zeros."""
    name = type(module).__name__
    layers = [m for m in _flattened(module) if not isinstance(m, _PASSIVE)]
    kinds = {type(m) for m in layers if not isinstance(m, nn.Linear)}
    if any(k not in ACTIVATION_NAMES for k in kinds) or len(kinds) > 1:
        shown = ", ".join(sorted(k.__name__ for k in kinds))
        raise ValueError(f"the {name} holds {shown} layers; an exported nn.Sequential holds Linear layers with one "
                         "of ReLU or Tanh between them")
    linears = [m for m in layers[::2] if isinstance(m, nn.Linear)]
    if not layers or len(layers) % 2 == 0 or len(linears) != len(layers[::2]) or any(
            isinstance(m, nn.Linear) for m in layers[1::2]):
        raise ValueError(f"the {name} is not Linear layers with an activation between each two (and none after "
                         "the last); export_policy reads that form of nn.Sequential")
    size, n = observation_size(game), game.n_actions
    first, last = linears[0], linears[-1]
    if first.in_features != size:
        raise ValueError(f"the {name} reads {first.in_features} values; a {game.name} policy reads the flat "
                         f"observation of {size} values (SelfPlayEnv's, or a PettingZoo env's 'observation' entry)")
    if last.out_features != n:
        raise ValueError(f"the {name} gives {last.out_features} outputs; a {game.name} policy gives one logit "
                         f"for each of its {n:,} splits")
    hidden = linears[:-1]
    activation = ACTIVATION_NAMES[next(iter(kinds))] if kinds else "relu"
    state: dict[str, Any] = {}
    for i, layer in enumerate(hidden):
        state[f"mlp_extractor.policy_net.{2 * i}.weight"] = layer.weight
        state[f"mlp_extractor.policy_net.{2 * i}.bias"] = _bias(layer)
    state["action_net.weight"], state["action_net.bias"] = last.weight, _bias(last)
    state["value_net.weight"], state["value_net.bias"] = th.zeros(1, size), th.zeros(1)
    arch = {"net_arch": {"pi": [m.out_features for m in hidden], "vf": []}, "activation": activation}
    return arch, _weights(state, f"the {name}")


def _flattened(module: nn.Module) -> list[nn.Module]:
    if isinstance(module, nn.Sequential):
        return [m for inner in module for m in _flattened(inner)]
    return [module]


def _bias(layer: nn.Linear) -> th.Tensor:
    return layer.bias if layer.bias is not None else th.zeros(layer.out_features)


def _from_file(path: Path, game: Game) -> tuple[str, dict[str, Any], dict[str, th.Tensor], int, None, str]:
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
    kwargs = data.get("policy_kwargs") if isinstance(data, Mapping) else None
    kwargs = kwargs if isinstance(kwargs, Mapping) else {}
    if any(key.startswith("mlp_extractor.card_layers.") for key in state):
        kind, arch = "split_scorer", _scorer_shapes(state, where)
    else:
        kind, arch = "mlp", _mlp_shapes(state, kwargs, game, where)
    steps: Any = data.get("num_timesteps") if isinstance(data, Mapping) else None
    step = steps if is_whole(steps) and steps >= 0 else 0
    return kind, arch, _weights(state, where), step, None, where


def _mlp_shapes(state: Mapping[str, Any], kwargs: Mapping[str, Any], game: Game, where: str) -> dict[str, Any]:
    """The ``mlp`` settings of an SB3 MlpPolicy's weights: the layer sizes from their shapes,
    the activation from the saved ``policy_kwargs`` (Tanh, SB3's default, when it names none)."""
    layers: dict[str, dict[int, int]] = {"policy_net": {}, "value_net": {}}
    for key, value in state.items():
        match = _MLP_WEIGHT.fullmatch(key)
        if match and match[3] == "weight" and isinstance(value, th.Tensor) and value.ndim == 2:
            layers[match[1]][int(match[2])] = int(value.shape[0])
        elif not match and key not in _MLP_HEADS:
            raise ValueError(f"{where} holds {key}, a weight of no network export_policy saves (an MlpPolicy of PPO "
                             "or MaskablePPO over the flat observation, or the split scorer)")
    if "action_net.weight" not in state:
        raise ValueError(f"{where} holds no action_net: not an actor-critic policy (PPO or MaskablePPO)")
    extractor = kwargs.get("features_extractor_class")
    if extractor is not None and "FlattenExtractor" not in str(extractor):
        raise ValueError(f"{where} reads its observation through {extractor}; an exported mlp reads it as it is "
                         "(SB3's FlattenExtractor, the default of MlpPolicy)")
    shown = kwargs.get("activation_fn")
    found = re.search(r"\.(\w+)'>$", shown) if isinstance(shown, str) else None
    names = {cls.__name__: name for cls, name in ACTIVATION_NAMES.items()}
    if shown is not None and (found is None or found[1] not in names):
        raise ValueError(f"{where} was trained with activation_fn {shown}; an exported mlp has ReLU or Tanh")
    pi = [layers["policy_net"][i] for i in sorted(layers["policy_net"])]
    vf = [layers["value_net"][i] for i in sorted(layers["value_net"])]
    weight = state["action_net.weight"]
    inputs = state[f"mlp_extractor.policy_net.{min(layers['policy_net'])}.weight"] if pi else weight
    size, n = observation_size(game), game.n_actions
    if isinstance(inputs, th.Tensor) and inputs.ndim == 2 and inputs.shape[1] != size:
        raise ValueError(f"{where} reads {inputs.shape[1]} values; a {game.name} policy reads the flat observation "
                         f"of {size} values (SelfPlayEnv's, or a PettingZoo env's 'observation' entry)")
    if isinstance(weight, th.Tensor) and weight.ndim == 2 and weight.shape[0] != n:
        raise ValueError(f"{where} chooses among {weight.shape[0]} actions; a {game.name} policy chooses one of "
                         f"its {n:,} splits")
    return {"net_arch": pi if pi == vf else {"pi": pi, "vf": vf},
            "activation": names[found[1]] if found else "tanh"}


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


def _policy_reference(policy: Any) -> Reference:
    def logits(observations: np.ndarray) -> np.ndarray:
        parameter = next(iter(policy.parameters()))
        with th.inference_mode():
            obs = th.as_tensor(observations, device=parameter.device, dtype=parameter.dtype)
            return action_logits(policy, obs).float().cpu().numpy()
    return logits


def _module_reference(module: nn.Module) -> Reference:
    def logits(observations: np.ndarray) -> np.ndarray:
        parameter = next(iter(module.parameters()))
        training = module.training
        module.eval()
        try:
            with th.inference_mode():
                obs = th.as_tensor(observations, device=parameter.device, dtype=parameter.dtype)
                return module(obs).float().cpu().numpy()
        finally:
            module.train(training)
    return logits


def _check_same(reference: Reference, policy: MaskableActorCriticPolicy, game: Game, num_players: int,
                where: str) -> None:
    """ValueError unless the rebuilt ``policy`` gives the logits of the model (``reference``)
    on the seats of a few dealt tables, up to float32 rounding."""
    tables = deal(game, num_players, np.random.default_rng(0), batch=_CHECK_TABLES)
    observations = np.stack([tables.observation(b, s) for b in range(_CHECK_TABLES) for s in range(num_players)])
    theirs = reference(observations)
    with th.inference_mode():
        ours = action_logits(policy, th.as_tensor(observations)).numpy()
    scale = max(1.0, float(np.abs(theirs).max(initial=0.0)))
    gap = float(np.abs(theirs - ours).max(initial=0.0)) if theirs.shape == ours.shape else float("inf")
    if not gap <= _CHECK_TOLERANCE * scale:
        raise ValueError(f"the policy saved from {where} does not give its logits (they differ by up to {gap:.3g}): "
                         "it computes something the saved policy kind does not; play it as an agent of your own "
                         "(package.module:attr:weights=PATH)")
