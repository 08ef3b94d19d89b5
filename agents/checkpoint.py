"""The file format of a saved policy: reading it (older formats upgraded), checking its
description, writing it, and finding the file a ``checkpoint:REF`` or ``pretrained:NAME``
names.

A saved policy is a zip holding ``policy.pth`` (:data:`POLICY_MEMBER`, the state dict) and
``splitpoker.json`` (:data:`META_MEMBER`, the :data:`CHECKPOINT_FORMAT` document of
:func:`policy_meta`: game, players, rules, policy kind and architecture, step, and under
:data:`STAMP_KEY` the :func:`~splitpoker.agents.version.stamp` of the code that wrote it,
which older files lack). The checkpoints written by training are SB3 model zips with that
member added, so the same file resumes training and plays as an agent. Format 1 files are
read as format 2 (:func:`read_meta`, :func:`read_policy_state`). Building the network a file
describes is :func:`.networks.build_policy`; loading it, :func:`.policy.load_policy`.
"""

from __future__ import annotations

import io
import json
import numbers
import warnings
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch as th

from ..envs.game import Game
from ..envs.games import GAMES, game_class
from ..envs.observation import observation_size
from .policy_kinds import POLICY_KINDS, BadSetting, check_arch, check_kind, check_width
from .version import stamp

CHECKPOINT_FORMAT = "splitpoker-policy/2"
#: format 1 predates the seat-role observation features (``Game.seat_features``); its
#: policies are read by giving those new, trailing inputs zero weights (same decisions)
_FORMAT_1 = "splitpoker-policy/1"
#: the weights that read the observation (or its context part, which ends it), per policy kind
_INPUT_WEIGHTS = {"split_scorer": ("mlp_extractor.context_layers.", "mlp_extractor.value_layer.0.weight"),
                  "mlp": ("mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight")}
META_MEMBER = "splitpoker.json"
POLICY_MEMBER = "policy.pth"
#: the key of ``splitpoker.json`` that records what wrote the file (version, commit;
#: :func:`~splitpoker.agents.version.stamp`); absent from files written before it
STAMP_KEY = "splitpoker"
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"


def policy_meta(game: Game, num_players: int, kind: str, arch: Mapping[str, Any], step: int = 0,
                **extra: Any) -> dict[str, Any]:
    """The ``splitpoker.json`` document of a saved policy."""
    return {"format": CHECKPOINT_FORMAT, "game": game.name, "num_players": int(num_players),
            "rules": game.rules.to_dict(), "observation_size": observation_size(game),
            "n_actions": game.n_actions, "policy": {"kind": check_kind(kind), "arch": dict(arch)},
            "step": int(step), **extra}


def read_meta(path: str | Path) -> dict[str, Any]:
    """The ``splitpoker.json`` of a saved policy; ValueError when the file is not one."""
    path = Path(path)
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise ValueError(f"{path} is not a splitpoker policy (not a zip file, or a truncated one)") from None
    with archive:
        if META_MEMBER not in archive.namelist():
            raise ValueError(f"{path} is not a splitpoker policy, or a truncated one (no {META_MEMBER} inside)")
        try:
            meta = json.loads(archive.read(META_MEMBER).decode())
        except Exception as error:  # a damaged member: CRC, zlib, text or JSON errors
            raise damaged(path, META_MEMBER, error) from None
    required = ("format", "game", "num_players", "rules", "observation_size", "n_actions", "policy")
    if not isinstance(meta, dict) or any(key not in meta for key in required):
        raise ValueError(f"{path} is damaged: its {META_MEMBER} lacks the policy description")
    if meta.get("format") in (CHECKPOINT_FORMAT, _FORMAT_1):
        try:
            _check_description(meta)
        except BadSetting as error:
            raise ValueError(f"{path} is damaged: its {META_MEMBER} {error.detail}") from None
    if meta.get("format") == _FORMAT_1:
        return {**meta, "format": CHECKPOINT_FORMAT, "upgraded_from": _FORMAT_1,
                "observation_size": int(meta["observation_size"]) + _new_inputs(meta)}
    if meta.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} has policy format {meta.get('format')!r}; this version reads "
                         f"{CHECKPOINT_FORMAT} and {_FORMAT_1}")
    return meta


def _check_description(meta: Mapping[str, Any]) -> None:
    """BadSetting unless the policy description of a ``splitpoker.json`` holds values of the
    right types and in range: a known game, its number of splits, a table size, a rules
    mapping, an observation and layers at most :data:`~.policy_kinds.MAX_WIDTH` wide."""
    game = meta["game"]
    if not isinstance(game, str) or game not in GAMES:
        raise BadSetting("game", game, f"games: {', '.join(GAMES)}")
    players = meta["num_players"]
    if not isinstance(players, numbers.Integral) or isinstance(players, bool) or players < 1:
        raise BadSetting("num_players", players, "not a number of players")
    if not isinstance(meta["rules"], Mapping):
        raise BadSetting("rules", meta["rules"], "not a mapping of rule switches")
    check_width("observation_size", meta["observation_size"])
    n_actions = game_class(game).split_index.n_actions
    if meta["n_actions"] != n_actions or isinstance(meta["n_actions"], bool):
        raise BadSetting("n_actions", meta["n_actions"], f"{game} has {n_actions} splits")
    policy = meta["policy"]
    if not isinstance(policy, Mapping):
        raise BadSetting("policy", policy, "not a mapping of kind and arch")
    for key, why in (("kind", f"the policy kind: {', '.join(POLICY_KINDS)}"), ("arch", "the layer sizes")):
        if key not in policy:
            raise BadSetting(f"policy.{key}", None, why, missing=True)
    if policy["kind"] not in POLICY_KINDS:
        raise BadSetting("policy.kind", policy["kind"], f"policies: {', '.join(POLICY_KINDS)}")
    check_arch(policy["kind"], policy["arch"], prefix="policy.arch.")


def damaged(path: str | Path, member: str, error: BaseException) -> ValueError:
    """The error of a saved policy whose ``member`` cannot be read."""
    first = str(error).splitlines()[0] if str(error).strip() else ""
    return ValueError(f"{path} is damaged: its {member} cannot be read ({type(error).__name__}"
                      f"{': ' + first if first else ''})")


def _new_inputs(meta: Mapping[str, Any]) -> int:
    """Observation entries added since format 1: the game's seat-role features."""
    return len(game_class(str(meta.get("game"))).seat_feature_labels())


def read_policy_state(path: str | Path) -> dict[str, th.Tensor]:
    """The policy state dict stored in a saved policy (a format-1 policy's input weights
    padded with zero columns for the observation entries added since)."""
    with zipfile.ZipFile(path) as archive:
        state = th.load(io.BytesIO(archive.read(POLICY_MEMBER)), map_location="cpu", weights_only=True)
        raw = json.loads(archive.read(META_MEMBER).decode())
    if raw.get("format") == _FORMAT_1 and _new_inputs(raw):
        names = _INPUT_WEIGHTS[raw["policy"]["kind"]]
        for key, value in state.items():
            if value.ndim == 2 and key.startswith(names) and key.endswith(".weight"):
                state[key] = th.cat([value, value.new_zeros(value.shape[0], _new_inputs(raw))], dim=1)
    return state


def stamped(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` with the stamp of this code (:data:`STAMP_KEY`), as a file written now records it."""
    return {**meta, STAMP_KEY: stamp()}


def write_policy_file(path: str | Path, meta: Mapping[str, Any], state: Mapping[str, th.Tensor]) -> Path:
    """Write a policy-only file (no optimizer; e.g. for ``agents/pretrained``), its
    ``splitpoker.json`` stamped (:func:`stamped`)."""
    path = Path(path)
    buffer = io.BytesIO()
    th.save(dict(state), buffer)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(META_MEMBER, json.dumps(stamped(meta), indent=1))
        archive.writestr(POLICY_MEMBER, buffer.getvalue())
    return path


def pretrained_names() -> list[str]:
    """Names usable as ``pretrained:NAME``."""
    return sorted(p.stem for p in PRETRAINED_DIR.glob("*.zip")) if PRETRAINED_DIR.is_dir() else []


def pretrained_path(name: str) -> Path:
    """The file of ``pretrained:NAME``; ValueError listing the names usable when ``name`` is
    none of them (a name, never a path: ``../x``, ``/abs/x``)."""
    names = pretrained_names()
    if name not in names:
        raise ValueError(f"no pretrained policy {name!r}; available: {', '.join(names) if names else 'none'}")
    return PRETRAINED_DIR / f"{name}.zip"


def resolve_checkpoint(ref: str | Path) -> Path:
    """The policy file named by ``checkpoint:REF``: a file, a run folder or its ``checkpoints/`` folder
    (then the latest checkpoint recorded there)."""
    path = Path(ref).expanduser()
    if path.is_dir():
        folder = path / "checkpoints" if (path / "checkpoints").is_dir() else path
        state = folder / "state.json"
        if state.is_file():
            try:
                name = json.loads(state.read_text())["checkpoint"]
                if not isinstance(name, str) or not name:
                    raise TypeError
            except Exception as error:
                raise ValueError(f"{state} is damaged: {type(error).__name__} {error}; name a checkpoint file "
                                 f"of {folder} instead") from None
            if not (folder / name).is_file():
                raise ValueError(f"{state} names {name}, which is not in {folder}")
            return folder / name
        candidates = sorted(folder.glob("*.zip"))
        if not candidates:
            raise ValueError(f"checkpoint folder {path} holds no checkpoint")
        return candidates[-1]
    if not path.is_file():
        raise ValueError(f"checkpoint {str(ref)!r} does not exist")
    return path


def check_meta(meta: Mapping[str, Any], game: Game, num_players: int, where: str) -> None:
    """ValueError unless a saved policy fits the table (game, players, observation size)."""
    if meta["game"] != game.name:
        raise ValueError(f"{where} was trained for {meta['game']}, not {game.name}")
    if int(meta["num_players"]) != int(num_players):
        raise ValueError(f"{where} was trained for {meta['num_players']} players, not {num_players}")
    if int(meta["observation_size"]) != observation_size(game):
        raise ValueError(f"{where} expects observations of {meta['observation_size']} values; "
                         f"this {game.name} table gives {observation_size(game)}")
    here = game.rules.to_dict()
    trained = dict(meta.get("rules") or {})
    differ = [k for k in here if k in trained and trained[k] != here[k]]
    if differ:
        shown = ", ".join(f"{k}={trained[k]} (here {here[k]})" for k in differ[:3])
        more = f" and {len(differ) - 3} more" if len(differ) > 3 else ""
        warnings.warn(RulesMismatchWarning(
            f"{where} was trained under {game.name} rules {rules_name(game, trained, meta.get('preset'))} and plays "
            f"here under {rules_name(game, here)}: {shown}{more}"), stacklevel=2)


class RulesMismatchWarning(UserWarning):
    """A saved policy plays under rules other than those it was trained on."""


def rules_name(game: Game, rules: Mapping[str, Any], preset: Any = None) -> str:
    """The preset whose switches are ``rules`` (``"custom"`` when none is)."""
    cls = type(game.rules)
    for name in cls.PRESETS:
        if cls.preset(name).to_dict() == dict(rules):
            return name
    return f"custom (from {preset})" if preset else "custom"
