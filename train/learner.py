"""Building the MaskablePPO model of a config, and the files of a run's ``checkpoints/`` folder.

``checkpoints/`` holds:

* ``step_<N>.zip`` and ``final.zip``: SB3 model zips (policy, optimizer state, PPO
  settings) with a ``splitpoker.json`` member (:func:`splitpoker.agents.policy.policy_meta`,
  stamped with the version and commit that wrote it: :func:`splitpoker.agents.policy.stamped`),
  so each one resumes training and loads as ``checkpoint:PATH``;
* ``<checkpoint>.pool.pt``: the self-play pool (snapshot policy states) of the latest
  checkpoint (older ones are removed once ``state.json`` names the newer);
* ``state.json``: the latest checkpoint and its pool file, its step, the imitation rounds and
  epochs done, and whether the run finished (set only once the final evaluation is written).

A resume runs nothing a run folder holds: the learner is built afresh from the run's
``config.yaml`` (:func:`load_learner`), its weights and optimizer state are read as tensors
only, its counters as JSON numbers (the checkpoint's pickled ``data`` entries, which
Stable-Baselines3's own ``load`` would unpickle, are never read), and the pool file as
tensors, numbers and strings only (:func:`load_pool`).

Every file is written to a temporary name and moved into place with ``os.replace``
(:func:`splitpoker.runtime.files.atomic_write_bytes`), the
checkpoint and its pool before ``state.json``: a process killed at any moment leaves
``state.json`` naming a complete checkpoint.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch as th
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecEnv

from ..agents.policy import META_MEMBER, policy_class, policy_kwargs, policy_meta, stamped
from ..envs.games import Game
from ..runtime.files import atomic_write_bytes
from .buffers import PackedMaskRolloutBuffer
from .config import TrainConfig

STATE_FILE = "state.json"
POOL_FILE = "pool.pt"


def build_model(config: TrainConfig, env: VecEnv) -> MaskablePPO:
    """A fresh MaskablePPO learner for the config."""
    ppo = config.ppo
    return MaskablePPO(
        policy_class(config.policy.kind), env,
        learning_rate=ppo.learning_rate, n_steps=ppo.n_steps, batch_size=ppo.batch_size, n_epochs=ppo.n_epochs,
        gamma=ppo.gamma, gae_lambda=ppo.gae_lambda, clip_range=ppo.clip_range, ent_coef=ppo.ent_coef,
        vf_coef=ppo.vf_coef, max_grad_norm=ppo.max_grad_norm, target_kl=ppo.target_kl,
        normalize_advantage=ppo.normalize_advantage,
        policy_kwargs=policy_kwargs(config.policy.kind, config.policy.arch(), config.game),
        rollout_buffer_class=PackedMaskRolloutBuffer, seed=config.seed, device=config.device, verbose=0,
    )


def run_meta(config: TrainConfig, game: Game, step: int) -> dict[str, Any]:
    """The ``splitpoker.json`` of a checkpoint of this run."""
    return policy_meta(game, config.num_players, config.policy.kind, config.policy.arch(), step=step,
                       preset=config.preset, seed=config.seed)


def save_checkpoint(model: MaskablePPO, path: Path, meta: Mapping[str, Any]) -> Path:
    """Save the model (with optimizer state) and its ``splitpoker.json``, stamped with the
    version and commit of this code, atomically."""
    buffer = io.BytesIO()
    model.save(buffer)
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr(META_MEMBER, json.dumps(stamped(meta), indent=1))
    return atomic_write_bytes(path, buffer.getvalue())


def save_pool(state: Mapping[str, Any], path: Path) -> Path:
    buffer = io.BytesIO()
    th.save(dict(state), buffer)
    return atomic_write_bytes(path, buffer.getvalue())


def load_pool(path: Path) -> dict[str, Any]:
    """A pool file, read as tensors, numbers, strings and containers only (torch's
    ``weights_only``): a file holding anything else is refused, never run."""
    state = th.load(path, map_location="cpu", weights_only=True)
    if not isinstance(state, dict) or not isinstance(state.get("snapshots"), list):
        raise ValueError("not a pool: no list of snapshots")
    return state


#: the learner's counters a resume takes from a checkpoint's ``data`` member
COUNTERS = ("num_timesteps", "_n_updates", "_episode_num")


def checkpoint_counters(path: Path) -> dict[str, int]:
    """:data:`COUNTERS` of a checkpoint, read from its ``data`` member as JSON numbers;
    ValueError naming the entry when one is missing or not a count."""
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    if not isinstance(data, dict):
        raise ValueError("its data member is not a JSON object")
    counters = {}
    for key in COUNTERS:
        value = data.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"its data member's {key} is {value!r}, not a count (an integer of at least 0)")
        counters[key] = value
    return counters


def load_learner(config: TrainConfig, env: VecEnv, path: Path) -> MaskablePPO:
    """The learner saved in checkpoint ``path``, without running anything the file holds:
    built from ``config`` (:func:`build_model`, the settings a resume may not change), then
    given the checkpoint's weights and optimizer state (read as tensors only) and its
    :func:`checkpoint_counters`."""
    counters = checkpoint_counters(path)
    model = build_model(config, env)
    model.set_parameters(str(path), exact_match=True, device=config.device)
    for key, value in counters.items():
        setattr(model, key, value)
    return model


def write_state(folder: Path, state: Mapping[str, Any]) -> Path:
    return atomic_write_bytes(folder / STATE_FILE, (json.dumps(dict(state), indent=1) + "\n").encode())


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
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise ValueError(f"{path} is damaged: its step {step!r} is not a number of hands (an integer of at least 0)")
    for key in ("checkpoint", "pool"):
        name = state[key]
        if not isinstance(name, str) or not name or Path(name).name != name:
            raise ValueError(f"{path} is damaged: its {key} {name!r} is not a file name in the checkpoints folder")
    for key in ("checkpoint", "pool"):
        if not (folder / str(state[key])).is_file():
            raise ValueError(f"{path} names {key} {state[key]!r}, which is missing from {folder}")
    return state
