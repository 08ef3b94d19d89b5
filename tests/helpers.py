"""Helpers the command-line and training tests share: the ``splitpoker`` command run in this
process (:func:`exit_status`, :func:`run_cli`), the one line of a refusal (:func:`refusal`,
:func:`refused`), a tiny training run (:func:`tiny_config`, :func:`tiny_run`) and a small
saved policy (:func:`policy_file`), and a PPO run stopped by Ctrl-C at a given step
(:func:`interrupt_at`), with the run of four rollouts the fault tests stop and resume
(:func:`rollouts_config`, :func:`write_config`, :func:`train_config`)."""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from splitpoker.train.cli import main

#: the split scorer of the tiny runs and policy files: small enough to train in seconds
ARCH = {"subset_hidden": 8, "embed_dim": 4, "split_hidden": 2, "value_hidden": 4}


def exit_status(argv: Sequence[str]) -> int:
    """The exit status of ``splitpoker ARGV`` run in this process (argparse's exits included)."""
    try:
        return main(list(argv))
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 1


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``splitpoker ARGV``."""
    code = exit_status(argv)
    out, err = capsys.readouterr()
    return code, out, err


def refusal(capsys: pytest.CaptureFixture[str], status: Any) -> str:
    """The one line a refused command printed on stderr: exit status 2, one line naming the
    command, no traceback."""
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == 2, err[:2000]
    assert len(lines) == 1, err[:2000]
    assert not any(text in err for text in ("Traceback", "internal error", "Recursion")), err[:2000]
    assert lines[0].startswith("splitpoker"), lines[0][:2000]
    return lines[0]


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one line of ``splitpoker ARGV``, refused (:func:`refusal`)."""
    return refusal(capsys, exit_status(argv))


def tiny_config(tmp: Path) -> dict[str, Any]:
    """A Biji run of 64 hands (two rollouts of 32) that trains in a few seconds, in ``tmp / "runs"``."""
    return {"game": "biji", "num_players": 4, "total_timesteps": 64, "n_envs": 2, "progress": False,
            "output_dir": str(tmp / "runs"), "policy": {"kind": "split_scorer", **ARCH},
            "ppo": {"n_steps": 16, "batch_size": 32, "n_epochs": 1},
            "eval": {"hands": 1, "final_hands": 1, "opponents": ["random"]}}


def tiny_run(tmp: Path) -> Path:
    """The folder of the :func:`tiny_config` run, trained to its end (``checkpoints/final.zip``
    at step 64)."""
    from splitpoker.train.config import load_config_dict
    from splitpoker.train.launch import train

    result = train(load_config_dict(tiny_config(tmp)), command="test", emit=lambda line: None)
    assert result.steps == 64
    return Path(result.run_dir)


def policy_file(path: Path, preset: str = "classic", game: str = "biji", players: int = 4) -> Path:
    """A small split-scorer policy file at ``path`` (by default four-player Biji), written as
    training writes one."""
    from splitpoker.agents.learned.checkpoint import policy_meta, write_policy_file
    from splitpoker.agents.learned.networks import build_policy
    from splitpoker.envs.games import make_game

    meta = policy_meta(make_game(game, preset), players, "split_scorer", ARCH, preset=preset)
    return write_policy_file(path, meta, build_policy(meta).state_dict())


def interrupt_at(monkeypatch: pytest.MonkeyPatch, timesteps: int) -> None:
    """Make a PPO run send this process SIGINT (Ctrl-C) once, from its callback, when it has
    played ``timesteps`` steps; ``monkeypatch.undo()`` takes it back."""
    from splitpoker.train.ppo import SelfPlayCallback

    step_of = SelfPlayCallback._on_step

    def on_step(self: SelfPlayCallback) -> bool:
        if self.num_timesteps == timesteps and not getattr(self, "sent", False):
            self.sent = True
            os.kill(os.getpid(), signal.SIGINT)
        return step_of(self)

    monkeypatch.setattr(SelfPlayCallback, "_on_step", on_step)


def rollouts_config(tmp: Path, policy: dict[str, Any] | None = None, **changes: Any) -> dict[str, Any]:
    """Four rollouts of 32 hands (Biji, 4 players), a checkpoint, snapshot and evaluation after
    each, in ``tmp / "runs"``: ``policy`` (by default a tiny split scorer) replaces the policy
    section; each of ``changes`` updates its section (a dict) or sets its key."""
    data: dict[str, Any] = {
        "game": "biji", "num_players": 4, "total_timesteps": 128, "n_envs": 2, "progress": False,
        "output_dir": str(tmp / "runs"), "policy": policy or {"kind": "split_scorer", **ARCH},
        "ppo": {"n_steps": 16, "batch_size": 16, "n_epochs": 2},
        "selfplay": {"snapshot_interval": 32, "pool_size": 2, "baselines": ["random", "greedy"]},
        "eval": {"every": 32, "hands": 2, "final_hands": 2, "opponents": ["random"]},
        "checkpoint": {"every": 32}}
    for key, value in changes.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and isinstance(data.get(key), dict) else value
    return data


def write_config(tmp: Path, data: dict[str, Any]) -> Path:
    """``data`` written as ``tmp / "tiny.yaml"``."""
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "tiny.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def train_config(tmp: Path, data: dict[str, Any]) -> Any:
    """The result of training ``data`` (:func:`write_config`) as ``splitpoker train tiny.yaml`` does."""
    from splitpoker.train.launch import train

    return train(write_config(tmp, data), command="splitpoker train tiny.yaml", emit=lambda line: None)
