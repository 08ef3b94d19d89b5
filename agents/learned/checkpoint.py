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

Reading checks what it reads: a path that is no regular file (a folder, a FIFO, a device)
is refused without a byte read from it (opened without blocking, if at all); the
description holds only known keys (:data:`META_KEYS`, the rule switches of its game,
:data:`~.policy_kinds.POLICY_KEYS` and the settings of its policy kind), each of the right
type and in range (an ``offered`` policy's ``offer`` among them: its observation is the
``observation_size`` values of the seat vector, then ``offer`` rows of the offered splits'
features, :mod:`splitpoker.envs.offered`); and the weights are a mapping of names to tensors of
:data:`~.policy_kinds.WEIGHT_DTYPE` whose values are all finite (:func:`check_weights`).
Each is a ValueError naming the file and what is wrong.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import stat
import warnings
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import torch as th

from ...envs.game import Game
from ...envs.games import GAMES, game_class
from ...envs.observation import observation_size
from ...envs.offered import MAX_OFFER, check_offer
from ...runtime.arguments import is_whole
from ...runtime.files import write_owned
from ...runtime.reading import file_kind, open_regular
from ..loading import first_line
from ..version import stamp
from .policy_kinds import (
    OFFER_KINDS,
    POLICY_KEYS,
    POLICY_KINDS,
    WEIGHT_DTYPE,
    BadSetting,
    check_arch,
    check_kind,
    check_width,
)

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
#: every key a ``splitpoker.json`` may hold: the policy description (all required), then what
#: training records (step, preset, seed, CPU seconds), the stamp, ``source``, the command
#: that trained a format-1 file, and ``offer``, the number of offered splits a policy of the
#: kinds of :data:`~.policy_kinds.OFFER_KINDS` decides over (those kinds' files hold it, no
#: other file does); any other key is refused when the file is read
META_KEYS = ("format", "game", "num_players", "rules", "observation_size", "n_actions", "policy",
             "step", "preset", "seed", "cpu_seconds", STAMP_KEY, "source", "offer")
_REQUIRED = META_KEYS[:7]
PRETRAINED_DIR = Path(__file__).resolve().parents[1] / "pretrained"


def policy_meta(game: Game, num_players: int, kind: str, arch: Mapping[str, Any], step: int = 0,
                **extra: Any) -> dict[str, Any]:
    """The ``splitpoker.json`` document of a saved policy."""
    return {"format": CHECKPOINT_FORMAT, "game": game.name, "num_players": int(num_players),
            "rules": game.rules.to_dict(), "observation_size": observation_size(game),
            "n_actions": game.n_actions, "policy": {"kind": check_kind(kind), "arch": dict(arch)},
            "step": int(step), **extra}


def _not_a_policy_file(mode: int) -> str:
    """Why a path of ``mode`` (not a regular file) is no policy file, in words."""
    return f"is {file_kind(mode)}, not a policy file (a .zip written by splitpoker train)"


@contextlib.contextmanager
def _policy_archive(path: Path, kind: str = "splitpoker policy") -> Iterator[zipfile.ZipFile]:
    """The zip archive of the file ``path``, read when it is a regular file
    (:func:`~splitpoker.runtime.reading.open_regular`); else ValueError saying what it is, or
    that it is no zip (a ``kind``)."""
    try:
        handle = open_regular(path, lambda mode: ValueError(f"{path} {_not_a_policy_file(mode)}"))
    except FileNotFoundError:
        raise ValueError(f"{path} does not exist") from None
    except OSError as error:
        raise ValueError(f"{path} cannot be read ({error.strerror or error})") from None
    with handle:
        try:
            archive = zipfile.ZipFile(handle)
        except (zipfile.BadZipFile, EOFError, OSError):
            raise ValueError(f"{path} is not a {kind} (not a zip file, or a truncated one)") from None
        with archive:
            yield archive


def read_meta(path: str | Path) -> dict[str, Any]:
    """The ``splitpoker.json`` of a saved policy; ValueError when the file is not one, or its
    description holds a key not in :data:`META_KEYS` or a value out of range."""
    path = Path(path)
    with _policy_archive(path) as archive:
        names = archive.namelist()
        if META_MEMBER not in names and POLICY_MEMBER in names and "data" in names:
            raise ValueError(f"{path} is a Stable-Baselines3 model without the {META_MEMBER} of a splitpoker policy; "
                             f"save it as one with: splitpoker export GAME {path} --players N --out policy.zip "
                             "(or splitpoker.agents.export_policy)")
        if META_MEMBER not in names:
            raise ValueError(f"{path} is not a splitpoker policy, or a truncated one (no {META_MEMBER} inside)")
        try:
            meta = json.loads(archive.read(META_MEMBER).decode())
        except Exception as error:  # a damaged member: CRC, zlib, text or JSON errors
            raise damaged(path, META_MEMBER, error) from None
    if not isinstance(meta, dict) or any(key not in meta for key in _REQUIRED):
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
    mapping, an observation and layers at most :data:`~.policy_kinds.MAX_WIDTH` wide, and no
    key but those of :data:`META_KEYS`, the game's rule switches and the policy's settings."""
    unknown = [key for key in meta if key not in META_KEYS]
    if unknown:
        raise _unknown(unknown[0], meta, "a policy description", META_KEYS)
    game = meta["game"]
    if not isinstance(game, str) or game not in GAMES:
        raise BadSetting("game", game, f"games: {', '.join(GAMES)}")
    players = meta["num_players"]
    if not is_whole(players) or players < 1:
        raise BadSetting("num_players", players, "not a number of players")
    _check_rules(game, meta["rules"])
    check_width("observation_size", meta["observation_size"])
    n_actions = game_class(game).split_index.n_actions
    if not is_whole(meta["n_actions"]) or meta["n_actions"] != n_actions:
        raise BadSetting("n_actions", meta["n_actions"], f"{game} has {n_actions} splits")
    policy = meta["policy"]
    if not isinstance(policy, Mapping):
        raise BadSetting("policy", policy, "not a mapping of kind and arch")
    unknown = [key for key in policy if key not in POLICY_KEYS]
    if unknown:
        raise _unknown(unknown[0], policy, "the policy mapping", POLICY_KEYS, prefix="policy.")
    for key, why in (("kind", f"the policy kind: {', '.join(POLICY_KINDS)}"), ("arch", "the layer sizes")):
        if key not in policy:
            raise BadSetting(f"policy.{key}", None, why, missing=True)
    if policy["kind"] not in POLICY_KINDS:
        raise BadSetting("policy.kind", policy["kind"], f"policies: {', '.join(POLICY_KINDS)}")
    check_arch(policy["kind"], policy["arch"], prefix="policy.arch.")
    if policy["kind"] in OFFER_KINDS:
        if "offer" not in meta:
            raise BadSetting("offer", None, f"the number of offered splits a {policy['kind']} policy decides over",
                             missing=True)
        try:
            check_offer(meta["offer"])
        except ValueError:
            raise BadSetting("offer", meta["offer"], f"not a number of offered splits (1 to {MAX_OFFER})") from None
    elif "offer" in meta:
        raise BadSetting("offer", meta["offer"], f"a {policy['kind']} policy chooses among split indices, "
                         "not among offered splits")


def _unknown(key: Any, mapping: Mapping[Any, Any], what: str, known: tuple[str, ...], prefix: str = "") -> BadSetting:
    """The error of ``key`` of ``mapping``, not one of the keys ``known`` of ``what``."""
    return BadSetting(f"{prefix}{key}", mapping[key], f"not a key of {what} (keys: {', '.join(known)})")


def _check_rules(game: str, rules: Any) -> None:
    """BadSetting unless ``rules`` maps switches of ``game`` to values they allow (a file
    names only the switches it was trained under; those it omits are the defaults)."""
    if not isinstance(rules, Mapping):
        raise BadSetting("rules", rules, "not a mapping of rule switches")
    cls = game_class(game).rules_class
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name, value in rules.items():
        if name not in fields:
            raise BadSetting(f"rules.{name}", value, f"not a {game} rule switch; switches: {', '.join(fields)}")
        try:
            cls._coerce(fields[name], value)
        except (ValueError, TypeError) as error:
            raise BadSetting(f"rules.{name}", value, str(error).split("; ")[-1]) from None
    try:
        cls.from_mapping(dict(rules))
    except (ValueError, TypeError) as error:
        raise BadSetting("rules", dict(rules), str(error)) from None


def damaged(path: str | Path, member: str, error: BaseException) -> ValueError:
    """The error of a saved policy whose ``member`` cannot be read."""
    return ValueError(f"{path} is damaged: its {member} cannot be read ({first_line(error)})")


def _new_inputs(meta: Mapping[str, Any]) -> int:
    """Observation entries added since format 1: the game's seat-role features."""
    return len(game_class(str(meta.get("game"))).seat_feature_labels())


class BadWeights(ValueError):
    """The weights of a saved policy are not what its policy kind reads (the message names
    the file and each bad tensor)."""


def read_policy_state(path: str | Path) -> dict[str, th.Tensor]:
    """The policy state dict stored in a saved policy (a format-1 policy's input weights
    padded with zero columns for the observation entries added since), checked by
    :func:`check_weights`: :class:`BadWeights` for weights a policy cannot use."""
    path = Path(path)
    with _policy_archive(path) as archive:
        state = th.load(io.BytesIO(archive.read(POLICY_MEMBER)), map_location="cpu", weights_only=True)
        raw = json.loads(archive.read(META_MEMBER).decode())
    state = check_weights(path, state)
    if raw.get("format") == _FORMAT_1 and _new_inputs(raw):
        names = _INPUT_WEIGHTS[raw["policy"]["kind"]]
        for key, value in state.items():
            if value.ndim == 2 and key.startswith(names) and key.endswith(".weight"):
                state[key] = th.cat([value, value.new_zeros(value.shape[0], _new_inputs(raw))], dim=1)
    return state


#: the most bad tensors one message names
_NAMED = 4


def check_weights(path: str | Path, state: Any, member: str = POLICY_MEMBER) -> dict[str, th.Tensor]:
    """``state`` as a dict when it maps names to tensors of :data:`~.policy_kinds.WEIGHT_DTYPE`
    whose values are all finite; else :class:`BadWeights` naming ``path``, the ``member`` of
    it that holds them, and each bad tensor (the first few, and how many more). Which names
    and shapes the policy needs is checked when they are loaded into it."""
    if not isinstance(state, Mapping):
        raise BadWeights(f"{path} is damaged: its {member} holds a {type(state).__name__}, not a "
                         "state dict (a mapping of weight names to tensors)")
    dtype = getattr(th, WEIGHT_DTYPE)
    bad = []
    for key, value in state.items():
        if not isinstance(value, th.Tensor):
            bad.append(f"{key} (a {type(value).__name__}, not a tensor)")
        elif value.dtype != dtype:
            bad.append(f"{key} ({str(value.dtype).removeprefix('torch.')}, not {WEIGHT_DTYPE})")
        else:
            count = int(value.numel() - th.isfinite(value).sum())
            if count:
                bad.append(f"{key} ({count:,} NaN or infinite value{'s' if count > 1 else ''})")
    if bad:
        more = f" and {len(bad) - _NAMED} more" if len(bad) > _NAMED else ""
        raise BadWeights(f"{path} is damaged: its {member} holds weights no policy can use: "
                         f"{', '.join(bad[:_NAMED])}{more}; weights are finite {WEIGHT_DTYPE} values")
    return dict(state)


def stamped(meta: Mapping[str, Any]) -> dict[str, Any]:
    """``meta`` with the stamp of this code (:data:`STAMP_KEY`), as a file written now records it."""
    return {**meta, STAMP_KEY: stamp()}


def write_policy_file(path: str | Path, meta: Mapping[str, Any], state: Mapping[str, th.Tensor]) -> Path:
    """Write a policy-only file (no optimizer; e.g. for ``agents/pretrained``, or
    :func:`.export.export_policy`), its ``splitpoker.json`` stamped (:func:`stamped`): whole
    (to a temporary file beside it, then renamed into place) and never through a link
    (:func:`~splitpoker.runtime.files.write_owned`)."""
    path = Path(path)
    weights, archive_bytes = io.BytesIO(), io.BytesIO()
    th.save(dict(state), weights)
    with zipfile.ZipFile(archive_bytes, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(META_MEMBER, json.dumps(stamped(meta), indent=1))
        archive.writestr(POLICY_MEMBER, weights.getvalue())
    return write_owned(path, archive_bytes.getvalue())


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
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        why = "is a broken symbolic link" if path.is_symlink() else "does not exist"
        raise ValueError(f"checkpoint {str(ref)!r} {why}") from None
    except OSError as error:
        raise ValueError(f"checkpoint {str(ref)!r} cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(mode):
        raise ValueError(f"checkpoint {str(ref)!r} {_not_a_policy_file(mode)}")
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
    return next((name for name in cls.PRESETS if cls.preset(name).to_dict() == dict(rules)),
                f"custom (from {preset})" if preset else "custom")
