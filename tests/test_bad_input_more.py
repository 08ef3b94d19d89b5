"""More bad input, each one clear line: an agent's action mask of the wrong shape, values or
with no valid split; a YAML alias bomb or a huge value given through ``--set``; a bool as
``banker_term``; a resume after ``config.yaml`` was edited or ``state.json``'s step no
longer matches the checkpoint.

* Python API: a ValueError whose message names the value.
* Command line: exit status 2 and one short line on stderr, no traceback.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from tests.helpers import refused, tiny_config, tiny_run

#: aliases of aliases: six levels of nine, half a million values from a line of 200 characters
BOMB = ("seed=[&a [1,1,1,1,1,1,1,1,1],&b [*a,*a,*a,*a,*a,*a,*a,*a,*a],&c [*b,*b,*b,*b,*b,*b,*b,*b,*b],"
        "&d [*c,*c,*c,*c,*c,*c,*c,*c,*c],&e [*d,*d,*d,*d,*d,*d,*d,*d,*d],&f [*e,*e,*e,*e,*e,*e,*e,*e,*e]]")


# --------------------------------------------------------------------------- action masks
@pytest.fixture(scope="module")
def seat() -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """A Biji seat as the environment gives it: observation, int8 mask of 1,680 splits, info."""
    from splitpoker.envs import biji_v0

    env = biji_v0.env(num_players=4)
    env.reset(seed=1)
    observation, *_, info = env.last()
    return observation["observation"], observation["action_mask"], dict(info)


MASK_CASES: list[tuple[str, Callable[[np.ndarray], Any], str]] = [
    ("short", lambda m: m[:100], r"action_mask has shape \(100,\); .*\(1680,\) for biji"),
    ("twice as long", lambda m: np.concatenate([m, m]), r"action_mask has shape \(3360,\); .*\(1680,\) for biji"),
    ("2-D", lambda m: m[None], r"action_mask has shape \(1, 1680\)"),
    ("all zero", lambda m: np.zeros_like(m), "action_mask has no 1"),
    ("halves", lambda m: m.astype(np.float64) * 0.5, r"action_mask\[\d+\] is 0.5; its entries are 0 or 1"),
    ("text", lambda m: m.astype(str), "action_mask has entries of type <U"),
]


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic"])
@pytest.mark.parametrize(("case", "bad", "expected"), MASK_CASES, ids=[c[0] for c in MASK_CASES])
def test_act_refuses_a_bad_mask(seat: tuple[np.ndarray, np.ndarray, dict[str, Any]], spec: str, case: str,
                                bad: Callable[[np.ndarray], Any], expected: str) -> None:
    from splitpoker.agents import load_agent

    observation, mask, info = seat
    agent = load_agent(spec, "biji", 4, seed=0)
    assert mask[agent.act(observation, mask, info)]  # the env's own mask is played
    with pytest.raises(ValueError, match=expected):
        agent.act(observation, bad(mask), info)


def test_act_without_info_checks_the_mask_against_the_observations_game(
        seat: tuple[np.ndarray, np.ndarray, dict[str, Any]]) -> None:
    from splitpoker.agents import load_agent

    observation, mask, _ = seat
    with pytest.raises(ValueError, match=r"action_mask has shape \(72072,\); .*\(1680,\) for biji"):
        load_agent("random", "biji", 4, seed=0).act(observation, np.ones(72072, dtype=np.int8), {})


def test_check_choices_refuses_a_split_past_the_games_splits(
        seat: tuple[np.ndarray, np.ndarray, dict[str, Any]]) -> None:
    """A view without a mask (an agent called with ``action_mask=None``): the choice is still
    held to the game's number of splits."""
    from splitpoker.agents import load_agent
    from splitpoker.agents.base import check_choices
    from splitpoker.envs.table import SeatView

    observation, _, info = seat
    view = SeatView.from_env(observation, None, info)
    agent = load_agent("greedy", "biji", 4)
    assert check_choices(agent, [view], [5]).tolist() == [5]
    with pytest.raises(ValueError, match=r"chose 1824, not a split index .*\(0 to 1679\)"):
        check_choices(agent, [view], [1824])


# --------------------------------------------------------------------------- --set values
def test_set_alias_bomb_is_refused_by_the_api() -> None:
    from splitpoker.train.config import parse_override

    with pytest.raises(ValueError, match="aliases expand to more than 100,000 values"):
        parse_override(BOMB)


def test_set_alias_bomb_is_one_short_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(tiny_config(tmp_path)))
    line = refused(capsys, "train", str(tmp_path / "tiny.yaml"), "--set", BOMB)
    assert "aliases expand to more than 100,000 values" in line and len(line) < 1000, line[:2000]
    assert not (tmp_path / "runs").exists()


def test_set_huge_value_is_echoed_cut_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(tiny_config(tmp_path)))
    value = "[" + ",".join(["1"] * 20000) + "]"
    line = refused(capsys, "train", str(tmp_path / "tiny.yaml"), "--set", f"seed={value}")
    assert "seed: Input should be a valid integer (got [1, 1, 1" in line and "...)" in line, line[:2000]
    assert len(line) < 1000, len(line)


# --------------------------------------------------------------------------- play settings
def test_play_banker_term_refuses_a_bool() -> None:
    from splitpoker.play.session import PlaySettings

    with pytest.raises(ValueError, match="banker_term=True is not a whole number of at least 1"):
        PlaySettings(preset="banker", banker_term=True).check()


# --------------------------------------------------------------------------- resume
@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 64-hand run (its resume point: checkpoints/final.zip at step 64)."""
    return tiny_run(tmp_path_factory.mktemp("run"))


def copy_run(finished_run: Path, tmp_path: Path, config: dict[str, Any] | None = None,
             state: dict[str, Any] | None = None) -> Path:
    """A copy of the finished run with ``config.yaml`` and ``state.json`` entries changed."""
    run = Path(shutil.copytree(finished_run, tmp_path / "run"))
    data = yaml.safe_load((run / "config.yaml").read_text())
    for key, value in (config or {}).items():
        data[key] = {**data[key], **value} if isinstance(value, dict) else value
    (run / "config.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    path = run / "checkpoints" / "state.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **(state or {})}))
    return run


def files_of(run: Path) -> dict[Path, bytes]:
    return {p.relative_to(run): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


RESUME_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("game", {"game": "thirteen", "num_players": 4},
     "game is 'thirteen' but checkpoint final.zip was trained with 'biji'"),
    ("num_players", {"num_players": 3}, "num_players is 3 but checkpoint final.zip was trained with 4"),
    ("network size", {"policy": {"embed_dim": 8}}, "policy.embed_dim is 8 but checkpoint final.zip was trained with 4"),
    ("preset", {"preset": "no-jokers"}, "preset is 'no-jokers' but checkpoint final.zip was trained with 'classic'"),
]


@pytest.mark.parametrize(("case", "change", "expected"), RESUME_CASES, ids=[c[0] for c in RESUME_CASES])
def test_resume_refuses_an_edited_config(finished_run: Path, tmp_path: Path, case: str, change: dict[str, Any],
                                         expected: str) -> None:
    from splitpoker.train.launch import resume_run

    run = copy_run(finished_run, tmp_path, config=change)
    before = files_of(run)
    with pytest.raises(ValueError) as raised:
        resume_run(run, ["total_timesteps=128"], "again", emit=lambda line: None)
    message = str(raised.value)
    assert message.startswith(f"{run / 'config.yaml'}: ") and expected in message, message
    assert message.endswith("a run resumes with the settings it was started with") and "\n" not in message
    assert files_of(run) == before


def test_resume_of_an_edited_config_is_one_line(finished_run: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_run(finished_run, tmp_path, config={"num_players": 3})
    line = refused(capsys, "train", "--resume", str(run), "--set", "total_timesteps=128")
    assert "num_players is 3 but checkpoint final.zip was trained with 4" in line, line


@pytest.mark.parametrize("step", [10_000_000_000_000, 32])
def test_resume_refuses_a_state_step_other_than_the_checkpoints(finished_run: Path, tmp_path: Path,
                                                                step: int) -> None:
    from splitpoker.train.launch import resume_run

    run = copy_run(finished_run, tmp_path, state={"step": step, "finished": False})
    before = files_of(run)
    with pytest.raises(ValueError) as raised:
        resume_run(run, ["total_timesteps=128"], "again", emit=lambda line: None)
    assert str(raised.value) == (f"{run / 'checkpoints' / 'state.json'} is damaged: it records step {step} but "
                                 "checkpoint final.zip holds step 64")
    assert files_of(run) == before
