"""The learner's files in a run's ``checkpoints/`` folder, and the policy network of a config.

``checkpoints/`` holds:

* ``step_<N>.zip`` and ``final.zip``: Stable-Baselines3 model zips (``policy.pth``, the
  optimizer state ``policy.optimizer.pth``, the counters and settings in ``data``) with a
  ``splitpoker.json`` member (:func:`splitpoker.agents.learned.checkpoint.policy_meta`, stamped with the
  version and commit that wrote it: :func:`splitpoker.agents.learned.checkpoint.stamped`), so each one
  resumes training and loads as ``checkpoint:PATH``;
* ``<checkpoint>.pool.pt``: the self-play pool (snapshot policy states) of the latest
  checkpoint (older ones are removed once ``state.json`` names the newer);
* ``state.json`` (:mod:`splitpoker.train.run`): the latest checkpoint and its pool file, its
  step, the rounds done, and whether the run finished.

A resume runs nothing a run folder holds: the learner is built afresh from the run's
``config.yaml`` (:func:`build_policy` here, :func:`splitpoker.train.ppo.load_learner` for
PPO), its weights and optimizer state are read as tensors only, its counters as JSON numbers
(:func:`checkpoint_counters`: the checkpoint's pickled ``data`` entries, which
Stable-Baselines3's own ``load`` would unpickle, are never read), and the pool file as
tensors, numbers and strings only (:func:`load_pool`).

Every file is written to a temporary name and moved into place with ``os.replace``
(:func:`splitpoker.runtime.files.write_owned`), the checkpoint and its pool before
``state.json``: a process killed at any moment leaves ``state.json`` naming a complete
checkpoint.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.save_util import save_to_zip_file
from stable_baselines3.common.utils import FloatSchedule, get_device, set_random_seed

from ..agents.learned.checkpoint import META_MEMBER, check_weights, policy_meta, stamped
from ..agents.learned.networks import policy_class, policy_kwargs
from ..envs.games import Game
from ..envs.offered_env import action_form
from ..runtime.arguments import is_whole
from ..runtime.files import write_owned
from .config import TrainConfig

POOL_FILE = "pool.pt"
#: the learning rate of the optimizer a policy is built with (:func:`build_policy`; a fit makes
#: its own, and a checkpoint records it)
POLICY_LEARNING_RATE = 3e-4
#: the learner's counters a resume takes from a checkpoint's ``data`` member
COUNTERS = ("num_timesteps", "_n_updates", "_episode_num")


class Saveable(Protocol):
    def save(self, path: io.BufferedIOBase) -> None: ...


def policy_spec(config: TrainConfig) -> tuple[type[MaskableActorCriticPolicy], dict[str, Any]]:
    """The policy class and keyword arguments of the config's network."""
    return (policy_class(config.policy.kind),
            policy_kwargs(config.policy.kind, config.policy.arch(), config.game))


def learner_spaces(config: TrainConfig, game: Game) -> tuple[spaces.Box, spaces.Discrete]:
    """The observation and action spaces the config's policy is built over, those of the
    learner's form of action (:meth:`~splitpoker.train.config.TrainConfig.actions`): the
    game's (:func:`~splitpoker.envs.observation.spaces_of`), or for a policy over offered
    splits the seat vector with ``policy.offer`` feature rows and a slot of them; unbounded,
    as the learner's environments give them."""
    form = action_form(game=game, mask=None, **config.actions())
    return form.box(config.num_players, finite=None), spaces.Discrete(form.width)


def build_policy(config: TrainConfig, game: Game) -> MaskableActorCriticPolicy:
    """A fresh policy network of the config, with its optimizer, on ``config.device``: the
    weights MaskablePPO gives its policy for the same config and seed (the generators
    seeded from ``config.seed``, then the network built)."""
    device = get_device(config.device)
    set_random_seed(config.seed, using_cuda=device.type == th.device("cuda").type)
    cls, kwargs = policy_spec(config)
    observation_space, action_space = learner_spaces(config, game)
    policy = cls(observation_space, action_space, FloatSchedule(POLICY_LEARNING_RATE), **kwargs)
    return policy.to(device)


def run_meta(config: TrainConfig, game: Game, step: int) -> dict[str, Any]:
    """The ``splitpoker.json`` of a checkpoint of this run."""
    offer = {"offer": config.policy.offer} if config.policy.offered else {}
    return policy_meta(game, config.num_players, config.policy.kind, config.policy.arch(), step=step,
                       preset=config.preset, seed=config.seed, **offer)


def _with_meta(buffer: io.BytesIO, path: Path, meta: Mapping[str, Any]) -> Path:
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr(META_MEMBER, json.dumps(stamped(meta), indent=1))
    return write_owned(path, buffer.getvalue())


def save_checkpoint(model: Saveable, path: Path, meta: Mapping[str, Any]) -> Path:
    """Save a Stable-Baselines3 model (with optimizer state) and its ``splitpoker.json``,
    stamped with the version and commit of this code, atomically."""
    buffer = io.BytesIO()
    model.save(buffer)
    return _with_meta(buffer, path, meta)


def save_policy_checkpoint(policy: MaskableActorCriticPolicy, counters: Mapping[str, int], config: TrainConfig,
                           path: Path, meta: Mapping[str, Any]) -> Path:
    """Save a policy trained without a Stable-Baselines3 model in the same zip: ``policy.pth``,
    ``policy.optimizer.pth``, ``data`` (the counters, the seed, the policy class and its
    spaces) and the stamped ``splitpoker.json``, atomically."""
    cls, kwargs = policy_spec(config)
    data = {"policy_class": cls, "policy_kwargs": kwargs, "observation_space": policy.observation_space,
            "action_space": policy.action_space, "seed": config.seed, "learning_rate": POLICY_LEARNING_RATE,
            **{key: int(counters.get(key, 0)) for key in COUNTERS}}
    buffer = io.BytesIO()
    save_to_zip_file(buffer, data=data, params={"policy": policy.state_dict(),
                                                "policy.optimizer": policy.optimizer.state_dict()},
                     pytorch_variables={})
    return _with_meta(buffer, path, meta)


def save_pool(state: Mapping[str, Any], path: Path) -> Path:
    buffer = io.BytesIO()
    th.save(dict(state), buffer)
    return write_owned(path, buffer.getvalue())


def load_pool(path: Path) -> dict[str, Any]:
    """A pool file, read as tensors, numbers, strings and containers only (torch's
    ``weights_only``): a file holding anything else is refused, never run. Each snapshot's
    weights are checked (:func:`~splitpoker.agents.learned.checkpoint.check_weights`): a NaN or an
    infinity is a :class:`~splitpoker.agents.learned.checkpoint.BadWeights` naming the file and the
    snapshot."""
    state = th.load(path, map_location="cpu", weights_only=True)
    if not isinstance(state, dict) or not isinstance(state.get("snapshots"), list):
        raise ValueError("not a pool: no list of snapshots")
    for i, snapshot in enumerate(state["snapshots"]):
        if not isinstance(snapshot, dict) or "state" not in snapshot:
            raise ValueError(f"not a pool: its snapshot {i} holds no weights")
        check_weights(path, snapshot["state"], member=f"snapshot {str(snapshot.get('name', i))[:60]}")
    return state


def checkpoint_counters(path: Path) -> dict[str, int]:
    """:data:`COUNTERS` of a checkpoint, read from its ``data`` member as JSON numbers;
    ValueError naming the entry when one is missing or not a count."""
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    if not isinstance(data, dict):
        raise ValueError("its data member is not a JSON object")
    for key in COUNTERS:
        value: Any = data.get(key)
        if not is_whole(value) or value < 0:
            raise ValueError(f"its data member's {key} is {value!r}, not a count (an integer of at least 0)")
    return {key: data[key] for key in COUNTERS}


def checkpoint_params(path: Path, device: Any = "cpu") -> dict[str, Any]:
    """The learner's tensors in checkpoint ``path``, read as tensors only: its policy weights
    (``policy``, checked by :func:`~splitpoker.agents.learned.checkpoint.check_weights`: a NaN or an
    infinity is a :class:`~splitpoker.agents.learned.checkpoint.BadWeights` naming the file) and its
    optimizer state (``policy.optimizer``), on ``device``."""
    device = get_device(device)
    params = {}
    with zipfile.ZipFile(path) as archive:
        members = set(archive.namelist())
        for name in ("policy", "policy.optimizer"):
            if f"{name}.pth" not in members:
                raise ValueError(f"it has no {name}.pth member")
            params[name] = th.load(io.BytesIO(archive.read(f"{name}.pth")), map_location=device, weights_only=True)
    params["policy"] = check_weights(path, params["policy"])
    return params


def load_policy_checkpoint(config: TrainConfig, game: Game, path: Path) -> tuple[MaskableActorCriticPolicy,
                                                                                 dict[str, int]]:
    """The policy (weights and optimizer state: :func:`checkpoint_params`) and the
    :func:`checkpoint_counters` of checkpoint ``path``, built from ``config``
    (:func:`build_policy`)."""
    counters = checkpoint_counters(path)
    policy = build_policy(config, game)
    params = checkpoint_params(path, config.device)
    policy.load_state_dict(params["policy"])
    policy.optimizer.load_state_dict(params["policy.optimizer"])
    return policy, counters
