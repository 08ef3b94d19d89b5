"""Bad input, table-driven: every case is one clear line, found before any work.

* Command line: exit status 2, exactly one line on stderr that names the file, option or
  value, no traceback, and no run folder left behind by a ``train`` that failed.
* Python API: the exception type and its message.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from gymnasium.error import ResetNeeded

from splitpoker.train.cli import main
from tests.helpers import policy_file, refused, tiny_config


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files the cases refer to, as ``{tmp}/NAME``."""
    tmp = tmp_path_factory.mktemp("bad")
    (tmp / "tiny.yaml").write_text(yaml.safe_dump(tiny_config(tmp)))
    (tmp / "dup.yaml").write_text("game: biji\ngame: thirteen\ntotal_timesteps: 5\n")
    (tmp / "dup_nested.yaml").write_text("game: biji\ntotal_timesteps: 5\nppo:\n  n_steps: 4\n  n_steps: 8\n")
    (tmp / "list.yaml").write_text("- game\n")
    (tmp / "latin1.yaml").write_bytes("game: bij\xe9\n".encode("latin-1"))
    (tmp / "afile").write_text("a file, not a folder\n")
    (tmp / "notazip.zip").write_text("hello\n")
    (tmp / "folder").mkdir()
    (tmp / "maybe.yaml").write_text("game: biji\nagents: [greedy]\nregret: maybe\n")
    (tmp / "nogame.yaml").write_text("agents: [greedy]\n")
    good = policy_file(tmp / "good.zip")
    data = good.read_bytes()
    (tmp / "truncated.zip").write_bytes(data[: len(data) // 2])
    with zipfile.ZipFile(good) as archive:  # overwrite bytes inside the weights member
        info = archive.getinfo("policy.pth")
    start = info.header_offset + 30 + len(info.filename) + 40
    damaged = bytearray(data)
    damaged[start:start + 200] = bytes(200)
    (tmp / "damaged.zip").write_bytes(bytes(damaged))
    with zipfile.ZipFile(tmp / "nometa.zip", "w") as archive:
        archive.writestr("policy.pth", b"x")
    # run folders to resume: a damaged state.json, a missing checkpoint, a damaged checkpoint
    for name, state in (("corrupt_state", '{"checkpoint": '), ("no_checkpoint", None), ("damaged_run", None)):
        run = tmp / name
        (run / "checkpoints").mkdir(parents=True)
        (run / "config.yaml").write_text(yaml.safe_dump(tiny_config(tmp)))
        if state is not None:
            (run / "checkpoints" / "state.json").write_text(state)
    (tmp / "no_checkpoint" / "checkpoints" / "state.json").write_text(
        json.dumps({"checkpoint": "step_000000016.zip", "pool": "pool.pt", "step": 16}))
    (tmp / "damaged_run" / "checkpoints" / "state.json").write_text(
        json.dumps({"checkpoint": "step_000000016.zip", "pool": "pool.pt", "step": 16}))
    os.mkfifo(tmp / "fifo.yaml")
    (tmp / "loop_a.yaml").symlink_to(tmp / "loop_b.yaml")
    (tmp / "loop_b.yaml").symlink_to(tmp / "loop_a.yaml")
    for name, state_data in (("bad_step", {"checkpoint": "step_000000016.zip", "pool": "pool.pt", "step": "abc"}),
                             ("negative_step", {"checkpoint": "step_000000016.zip", "pool": "pool.pt", "step": -64}),
                             ("outside", {"checkpoint": "../../x.zip", "pool": "pool.pt", "step": 16})):
        (tmp / name / "checkpoints").mkdir(parents=True)
        (tmp / name / "config.yaml").write_text(yaml.safe_dump(tiny_config(tmp)))
        (tmp / name / "checkpoints" / "state.json").write_text(json.dumps(state_data))
    shutil.copy(tmp / "damaged.zip", tmp / "damaged_run" / "checkpoints" / "step_000000016.zip")
    (tmp / "damaged_run" / "checkpoints" / "pool.pt").write_bytes(b"\x80garbage")
    return tmp


TRAIN = ["train", "{tmp}/tiny.yaml"]

#: (command line, what the one line on stderr says)
CLI_CASES: list[tuple[list[str], str]] = [
    # devices, folders, seeds
    (TRAIN + ["--set", "device=banana"], "device: 'banana' is not a torch device"),
    (TRAIN + ["--set", "device=cuda:banana"], "is not a torch device"),
    (TRAIN + ["--set", "device=meta"], "device: 'meta' is not supported"),
    (TRAIN + ["--set", "output_dir={tmp}/afile/runs"],
     "output_dir '{tmp}/afile/runs' is under {tmp}/afile, which is a file"),
    (TRAIN + ["--set", "output_dir={tmp}/afile"], "output_dir '{tmp}/afile' is a file"),
    (TRAIN + ["--set", "imitation.enabled=true", "--set", "imitation.cache_dir={tmp}/afile/c"],
     "imitation.cache_dir '{tmp}/afile/c' is under"),
    (TRAIN + ["--set", "seed=-1"], "seed: Input should be greater than or equal to 0 (got -1)"),
    (TRAIN + ["--set", "eval.seed=-5"], "eval.seed: Input should be greater than or equal to 0 (got -5)"),
    (TRAIN + ["--set", "seed=abc"], "seed: Input should be a valid integer"),
    (TRAIN + ["--set", "total_timesteps=0"], "total_timesteps: Input should be greater than 0"),
    # agent specs of a config, loaded before any work
    (TRAIN + ["--set", "eval.opponents=[checkpoint:/nonexistent.zip]"],
     "eval.opponents[0]: checkpoint '/nonexistent.zip' does not exist"),
    (TRAIN + ["--set", "eval.opponents=[random, checkpoint:{tmp}/damaged.zip]"],
     "eval.opponents[1]: {tmp}/damaged.zip is damaged"),
    (TRAIN + ["--set", "selfplay.baselines=[os.path:join]"],
     "selfplay.baselines[0]: bad agent spec 'os.path:join': join is not an agent class or factory"),
    (TRAIN + ["--set", "selfplay.baselines=[pretrained:nothing]"], "no pretrained policy 'nothing'"),
    (TRAIN + ["--set", "imitation.enabled=true", "--set", "imitation.solver=solver:opponent=checkpoint:/nope.zip"],
     "imitation.solver: checkpoint '/nope.zip' does not exist"),
    (TRAIN + ["--set", "imitation.enabled=true", "--set", "imitation.solver=solver:samples=0"],
     "imitation.solver: "),
    (TRAIN + ["--set", "eval.opponents=[]"], "name at least one opponent"),
    # config files
    (["train", "{tmp}/dup.yaml"], "{tmp}/dup.yaml: duplicate key 'game' at line 2 (first given at line 1)"),
    (["train", "{tmp}/dup_nested.yaml"], "duplicate key 'n_steps' at line 5 (first given at line 4)"),
    (["train", "{tmp}/folder"], "config file '{tmp}/folder' is a folder, not a YAML file"),
    (["train", "{tmp}/missing.yaml"], "config file '{tmp}/missing.yaml' does not exist"),
    (["train", "{tmp}/list.yaml"], "a config is a mapping of keys, got list"),
    (["train", "{tmp}/latin1.yaml"], "not a YAML text file (not UTF-8)"),
    (["train"], "give a config file or --resume RUN_DIR"),
    # resume
    (["train", "--resume", "{tmp}/folder"], "{tmp}/folder is not a run folder (no config.yaml)"),
    (["train", "--resume", "{tmp}/corrupt_state"], "{tmp}/corrupt_state/checkpoints/state.json is damaged"),
    (["train", "--resume", "{tmp}/no_checkpoint"], "names checkpoint 'step_000000016.zip', which is missing"),
    (["train", "--resume", "{tmp}/damaged_run"], "step_000000016.zip is damaged"),
    (["train", "--resume", "{tmp}/bad_step"], "state.json is damaged: its step 'abc' is not a number of hands"),
    (["train", "--resume", "{tmp}/negative_step"], "state.json is damaged: its step -64 is not a number of hands"),
    (["train", "--resume", "{tmp}/outside"], "its checkpoint '../../x.zip' is not a file name in the checkpoints"),
    (TRAIN + ["--set", "seed=4294967296"], "seed: Input should be less than 4294967296"),
    (["train", "{tmp}/fifo.yaml"], "config file '{tmp}/fifo.yaml' is a FIFO (named pipe), not a YAML file"),
    (["train", "{tmp}/loop_a.yaml"], "cannot be read (Too many levels of symbolic links)"),
    (["train", "/dev/null"], "config file '/dev/null' is a device, not a YAML file"),
    (["eval", "biji", "--agents", "pretrained:../../x"], "no pretrained policy '../../x'; available:"),
    (["eval", "biji", "--agents", "pretrained:/tmp/x"], "no pretrained policy '/tmp/x'; available:"),
    (["train", "--resume", "{tmp}/damaged_run", "--set", "policy.embed_dim=8"], "--resume cannot change policy"),
    # eval
    (["eval", "biji", "--agents", "greedy,random", "--seed", "-1"], "--seed -1 must be an integer of at least 0"),
    (["eval", "biji", "--agents", "greedy,random", "--hands", "0"], "--hands 0 must be an integer of at least 1"),
    (["eval", "biji", "--agents", "greedy", "--workers", "0"], "--workers 0 must be"),
    (["eval", "biji", "--agents", "greedy", "--workers", "100000"], "--workers 100000 is more than the most allowed"),
    (["eval", "biji", "--agents", "greedy", "--hands", "1000000000"],
     "--hands 1000000000 is more than the most allowed"),
    (["solve", "biji", "As Ah Ad Ks Kh Kd Qs Qh Qd", "--samples", "1000000000000"],
     "solver option samples=1000000000000 is more than the most allowed, 1,000,000"),
    (["eval", "biji", "--agents", "checkpoint:{tmp}/damaged.zip,random"],
     "{tmp}/damaged.zip is damaged: its policy.pth cannot be read"),
    (["eval", "biji", "--agents", "checkpoint:{tmp}/truncated.zip,random"], "truncated"),
    (["eval", "biji", "--agents", "checkpoint:{tmp}/notazip.zip"], "is not a splitpoker policy (not a zip file"),
    (["eval", "biji", "--agents", "checkpoint:{tmp}/nometa.zip"], "no splitpoker.json inside"),
    (["eval", "biji", "--agents", "checkpoint:{tmp}/corrupt_state"], "state.json is damaged"),
    (["eval", "biji", "--agents", "os.path:join,random"], "join is not an agent class or factory"),
    (["eval", "biji", "--agents", "os.path:sep"], "sep did not give an Agent"),
    (["eval", "biji", "--agents", "nosuchmodule.x:agent"], "cannot import module 'nosuchmodule.x'"),
    (["eval", "biji", "--agents", "solver:samples=-2"], "samples"),
    (["eval", "biji", "--agents", "greedy", "--out", "{tmp}/afile/x"], "--out '{tmp}/afile/x' is under"),
    (["eval", "biji", "--agents", "greedy", "--regret-opponent", "banana"],
     "--regret-opponent 'banana': bad agent spec"),
    (["eval", "biji", "--agents", "greedy", "--regret-samples", "0"], "--regret-samples 0 must be"),
    (["eval", "thirteen", "--agents", "pretrained:biji_classic_4p"], "was trained for biji, not thirteen"),
    (TRAIN + ["--set", "eval.opponents=[pretrained:thirteen_classic_4p]"], "eval.opponents[0]: pretrained"),
    (["eval", "--config", "{tmp}/dup.yaml", "--agents", "greedy"], "duplicate key 'game'"),
    (["eval", "--config", "{tmp}/folder"], "eval config '{tmp}/folder' is a folder"),
    (["eval", "biji", "--agents", "greedy", "--players", "9"], "9"),
    (["eval", "biji", "--agents", "greedy", "--preset", "fancy"], "unknown biji preset 'fancy'"),
    (["eval", "biji", "--agents", "greedy", "--set", "wheel=lowest"], "unknown biji switch 'wheel'"),
    # rules commands
    (["score", "biji", "--hand", "As Ks"], "As Ks"),
    (["compare", "biji", "As Ks Qs", "As Kd Qd"], "share a card"),
    (["splits", "biji", "As Ks Qs Js Ts 9s 8s 7s 6s", "--decode", "99999"], "99999"),
    (["solve", "biji", "As Ks Qs Js Ts 9s 8s 7s 6s", "--seed", "-1"], "--seed -1 must be an integer of at least 0"),
    (["eval", "biji", "--agents", "random,,greedy", "--no-regret"], "agent specs 'random,,greedy' hold an empty spec"),
    (["eval", "biji", "--agents", "greedy,random", "--address", "auto"], "--address 'auto' needs --backend ray"),
    (["eval", "biji", "--agents", "greedy,random,heuristic", "--players", "2"], "3 agents for 2 seats"),
    (["eval", "--config", "{tmp}/maybe.yaml"], "regret 'maybe' must be true or false"),
    (["eval", "--config", "{tmp}/nogame.yaml"], "nogame.yaml names no game"),
    (["solve", "biji", "As Ks", "--samples", "4"], "As Ks"),
    (TRAIN + ["--set", "n_envs=true"], "n_envs: true or false is not a number (got True)"),
    (TRAIN + ["--set", "policy.net_arch=[8,true]"], "policy.net_arch: true or false is not a number"),
    # infinite and undefined numbers would train on NaN weights until the final evaluation failed
    (TRAIN + ["--set", "ppo.learning_rate=.inf"], "ppo.learning_rate: Input should be a finite number (got inf)"),
    (TRAIN + ["--set", "ppo.ent_coef=1e400"], "ppo.ent_coef: Input should be a finite number"),
    (TRAIN + ["--set", "reward_scale=.inf"], "reward_scale: Input should be a finite number (got inf)"),
    (TRAIN + ["--set", "ppo.clip_range=.nan"], "ppo.clip_range: Input should be a finite number (got nan)"),
    # resource-sized values are bounded before any work starts
    (TRAIN + ["--set", "n_envs=200000000"], "n_envs: Input should be less than or equal to 65536"),
    (TRAIN + ["--set", "torch_threads=100000"], "torch_threads: Input should be less than or equal to"),
    (TRAIN + ["--set", "eval.final_hands=1000000000000"], "eval.final_hands: Input should be less than or equal to"),
    (TRAIN + ["--set", "total_timesteps=100000000000000000000000000000"], "total_timesteps: Input should be less"),
    (["bench", "--quick", "--only", "biji.,bogus"], "no figure name starts with 'bogus'"),
    (["bench", "--only", ","], "--only ',' holds an empty prefix"),
    # argparse's own errors
    (["eval", "biji", "--hands", "ten"], "argument --hands: invalid int value: 'ten'"),
    (["nosuchcommand"], "invalid choice: 'nosuchcommand'"),
]


@pytest.mark.parametrize(("argv", "expected"), CLI_CASES, ids=[" ".join(c[0])[:60] for c in CLI_CASES])
def test_cli_bad_input_is_one_line_and_status_2(files: Path, capsys: pytest.CaptureFixture[str], monkeypatch,
                                                argv: list[str], expected: str) -> None:
    monkeypatch.chdir(files)
    argv = [a.replace("{tmp}", str(files)) for a in argv]
    runs_before = sorted(p.name for p in (files / "runs").iterdir()) if (files / "runs").is_dir() else []
    line = refused(capsys, *argv)
    assert expected.replace("{tmp}", str(files)) in line, line
    runs_after = sorted(p.name for p in (files / "runs").iterdir()) if (files / "runs").is_dir() else []
    assert runs_after == runs_before, "a failed train left a run folder"


def test_failed_resume_changes_nothing(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = files / "damaged_run"
    before = {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()}
    assert main(["train", "--resume", str(run), "--set", "total_timesteps=128"]) == 2
    after = {p.relative_to(run): p.read_bytes() for p in run.rglob("*") if p.is_file()}
    assert after == before
    capsys.readouterr()


def test_rules_mismatch_is_one_warning_line(files: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.chdir(files)
    policy_file(files / "classic.zip")
    status = main(["eval", "biji", "--agents", f"checkpoint:{files}/classic.zip,greedy", "--preset", "no-jokers",
                   "--hands", "2", "--no-regret", "--no-plots", "--out", str(files / "mismatch"), "--json"])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert status == 0
    assert len(err) == 1, err
    assert err[0].startswith("splitpoker eval: warning: checkpoint ")
    assert "was trained under biji rules classic and plays here under no-jokers: jokers=rank0 (here none)" in err[0]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"splitpoker {version('splitpoker')}"


def test_eval_help_prints_a_plain_percent(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    out = capsys.readouterr().out
    assert "95% CI" in out and "%%" not in out


def test_biji_score_text_shows_the_xi_bonus(capsys: pytest.CaptureFixture[str]) -> None:
    hands = ["2c 2d 2h | 3c 3d 3h | 4c 4d 4h", "5c 6c 7c | 8h 9h Th | Jc Jd Jh"]
    assert main(["score", "biji", "--hand", hands[0], "--hand", hands[1]]) in (0, None)
    text = capsys.readouterr().out.splitlines()
    assert main(["score", "biji", "--hand", hands[0], "--hand", hands[1], "--json"]) in (0, None)
    document = json.loads(capsys.readouterr().out)
    assert document["xi"] == [3, 2]
    assert "喜 3: three_trips 3; 喜 payments +1" in text[0]
    assert "喜 2: straight_flush_head 2; 喜 payments -1" in text[1]


# --------------------------------------------------------------------------- Python API
def _aec(action: Any) -> None:
    from splitpoker.envs import biji_v0

    env = biji_v0.env()
    env.reset(seed=1)
    env.step(action)


def _parallel(change: str) -> None:
    from splitpoker.envs import biji_v0

    env = biji_v0.parallel_env()
    observations, _ = env.reset(seed=1)
    actions: dict[Any, Any] = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    if change == "missing":
        del actions["player_0"]
    elif change == "unknown":
        actions["player_9"] = 0
    elif change == "not a dict":
        actions = [0, 1, 2, 3]  # type: ignore[assignment]
    elif change == "after the hand":
        env.step(actions)
    elif change == "last seat invalid":
        actions["player_3"] = int(np.flatnonzero(observations["player_3"]["action_mask"] == 0)[0])
    env.step(actions)


def _deal_around(hand: Any, batch: Any = 2, rng: Any = 0) -> None:
    from splitpoker.envs.games import make_game
    from splitpoker.envs.table import deal_around

    deal_around(make_game("biji"), hand, 0, 4, batch, rng)


def _env(kind: str) -> Any:
    from splitpoker.envs import biji_v0

    return getattr(biji_v0, kind)()


#: nine levels of nine aliases: 9**9 values once expanded, from 600 characters
ALIAS_BOMB = "game: biji\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefg", "bcdefgh")) + \
    f"seed: [{', '.join(['*h'] * 9)}]\n"


def _config(tmp: Path, text: str) -> None:
    from splitpoker.train.config import load_config

    (tmp / "c.yaml").write_text(text)
    load_config(tmp / "c.yaml")


def _train(tmp: Path, **changes: Any) -> None:
    from splitpoker.train.config import load_config_dict
    from splitpoker.train.launch import train

    data = tiny_config(tmp)
    data.update(changes)
    train(load_config_dict(data), command="test", emit=lambda line: None)


def _greedy_act(info: dict[str, Any], observation: Any = None) -> None:
    """An agent that reads the hand, given an env's mask and observation (or ``observation``)
    and ``info``."""
    from splitpoker.agents import load_agent

    env = _env("env")
    env.reset(seed=1)
    seen, *_ = env.last()
    load_agent("greedy", "biji").act(seen["observation"] if observation is None else observation,
                                     seen["action_mask"], info)


def _evaluate(hands: Any = 1, agents: Any = None) -> None:
    from splitpoker.agents import load_agent
    from splitpoker.envs.games import make_game
    from splitpoker.eval.duplicate import evaluate

    game = make_game("biji")
    evaluate(game, agents or [load_agent("greedy", game)], 4, hands=hands, seed=0)


def _heuristic_act(changes: dict[str, Any], drop: str = "") -> int:
    from splitpoker.agents import load_agent

    env = _env("env")
    env.reset(seed=1)
    observation, *_ = env.last()
    info = {k: v for k, v in {**env.infos["player_0"], **changes}.items() if k != drop}
    return load_agent("heuristic", "biji").act(observation["observation"], observation["action_mask"], info)


HAND = r"\(hand [2-9TJQKA][cdhs]"
#: (what, call taking the tmp folder, exception type, message regex)
API_CASES: list[tuple[str, Any, type[BaseException], str]] = [
    ("env() out-of-range action", lambda t: _aec(99999), ValueError,
     rf"action 99999 of player_0 is out of range 0\.\.1679 {HAND}"),
    ("env() negative action", lambda t: _aec(-1), ValueError, r"action -1 of player_0 is out of range"),
    ("env() float action", lambda t: _aec(1.5), ValueError,
     rf"action 1\.5 of player_0 is not an integer split index {HAND}"),
    ("env() string action", lambda t: _aec("3"), ValueError, r"action '3' of player_0 is not an integer split index"),
    ("env() None action", lambda t: _aec(None), ValueError,
     r"player_0 has not acted yet; it needs a split index of its hand"),
    ("raw_env float action", lambda t: (lambda e: (e.reset(seed=1), e.step(1.5)))(_env("raw_env")), ValueError,
     r"action 1\.5 of player_0 is not an integer split index"),
    ("parallel_env seat missing", lambda t: _parallel("missing"), ValueError, r"actions has no split for 'player_0'"),
    ("parallel_env unknown agent", lambda t: _parallel("unknown"), ValueError,
     r"actions name an unknown agent 'player_9'; live agents: player_0"),
    ("parallel_env list of actions", lambda t: _parallel("not a dict"), ValueError, r"actions must be a dict"),
    ("parallel_env step after the hand", lambda t: _parallel("after the hand"), ValueError, r"the hand is over"),
    ("parallel_env last seat's split invalid", lambda t: _parallel("last seat invalid"), ValueError,
     r"action \d+ of player_3 is not a valid split"),
    ("a card id out of range in a hand", lambda t: _env("raw_env").reset(
        options={"hands": [[-1, *range(2, 10)], *(list(range(10 + 9 * s, 19 + 9 * s)) for s in range(3))]}),
     ValueError, r"options\['hands'\]\[0\] .*: hand holds -1, which is not a card id \(an integer 0\.\.53\)"),
    ("deal_around a hand holding a card twice", lambda t: _deal_around([2, 2, 3, 4, 5, 6, 7, 8, 9]), ValueError,
     r"hand holds 2c twice"),
    ("deal_around a hand of text", lambda t: _deal_around("As Kd"), ValueError, r"hand 'As Kd' is not a sequence"),
    ("deal_around a negative batch", lambda t: _deal_around(list(range(2, 11)), batch=-2), ValueError,
     r"batch -2 is not a number of tables"),
    ("deal_around seeded by a bool", lambda t: _deal_around(list(range(2, 11)), rng=True), ValueError,
     r"seed True is not a Generator"),
    ("solve a hand holding a float", lambda t: __import__("splitpoker.agents", fromlist=["load_agent"]).load_agent(
        "solver:samples=2", "biji").solve([2.7, *range(3, 11)]), ValueError,
     r"hand holds 2\.7, which is not a card id"),
    ("split_evs of a hand holding a float", lambda t: __import__("splitpoker.agents.solver", fromlist=["x"]).split_evs(
        __import__("splitpoker.envs.games", fromlist=["x"]).make_game("biji"), [2.7, *range(3, 11)],
        np.array([[list(range(20, 29))]])), ValueError, r"hand holds 2\.7, which is not a card id"),
    ("heuristic at a table of another size", lambda t: _heuristic_act({"num_players": 2}), ValueError,
     r"heuristic was built for 4 players; the table has 2"),
    ("an integer switch given a numpy fraction", lambda t: __import__("splitpoker.envs.biji.rules", fromlist=["x"])
     .BijiRules.preset("classic", xi_sweep=np.float32(2.5)), ValueError,
     r"biji switch xi_sweep=np\.float32\(2\.5\) is not allowed; use an integer"),
    ("play with a negative seed", lambda t: __import__("splitpoker.play.session", fromlist=["x"]).PlaySettings(
        seed=-1).check(), ValueError, r"seed=-1 is not a whole number of at least 0"),
    ("more agents than seats", lambda t: __import__("splitpoker.eval.runner", fromlist=["x"]).EvalSettings(
        "biji", ["greedy", "random", "heuristic"], players=2), ValueError, r"3 agents for 2 seats"),
    ("agents as one string", lambda t: __import__("splitpoker.eval.runner", fromlist=["x"]).EvalSettings(
        "biji", "greedy"), ValueError, r"agents 'greedy' must be a list of agent specs"),
    ("evaluate with a fraction of a hand", lambda t: _evaluate(hands=2.5), ValueError,
     r"hands=2\.5 must be an integer of at least 1"),
    ("evaluate with a spec instead of an agent", lambda t: _evaluate(agents=["greedy"]), ValueError,
     r"'greedy' is not an agent; build agents with load_agent"),
    ("load_agent with a negative seed", lambda t: __import__("splitpoker.agents", fromlist=["x"]).load_agent(
        "greedy", "biji", seed=-1), ValueError, r"seed -1 must be None or a non-negative integer"),
    ("None as a hand", lambda t: _env("env").reset(options={"hands": [None] * 4}), ValueError,
     r"options\['hands'\]\[0\] is None, not a hand"),
    ("a number as a hand", lambda t: _env("env").reset(options={"hands": [5] * 4}), ValueError,
     r"options\['hands'\]\[0\] is 5, not a hand"),
    ("reset option typo", lambda t: _env("env").reset(options={"hand": ["As"]}), ValueError,
     r"unknown reset option 'hand'; options: hands"),
    ("parallel reset option typo", lambda t: _env("parallel_env").reset(options={"seat": 1}), ValueError,
     r"unknown reset option 'seat'"),
    ("reset(seed='abc')", lambda t: _env("env").reset(seed="abc"), ValueError,
     r"seed 'abc' must be None or a non-negative integer"),
    ("reset(seed=-1)", lambda t: _env("raw_env").reset(seed=-1), ValueError, r"seed -1 must be None"),
    ("reset(seed=1.5)", lambda t: _env("parallel_env").reset(seed=1.5), ValueError, r"seed 1\.5 must be None"),
    ("env() step before reset", lambda t: _env("env").step(0), ResetNeeded,
     r"biji_v0: step\(\) before the first reset"),
    ("raw_env step before reset", lambda t: _env("raw_env").step(0), ResetNeeded, r"step\(\) before the first reset"),
    ("parallel step before reset", lambda t: _env("parallel_env").step({"player_0": 0}), ResetNeeded,
     r"step\(\) before the first reset"),
    ("observe before reset", lambda t: _env("env").observe("player_0"), ResetNeeded, r"observe\(\) before"),
    ("last before reset", lambda t: _env("env").last(), ResetNeeded, r"last\(\) before"),
    ("observe an unknown agent", lambda t: (lambda e: (e.reset(), e.observe("player_9")))(_env("raw_env")),
     ValueError, r"unknown agent 'player_9'; agents: player_0"),
    ("duplicate key in a config", lambda t: _config(t, "game: biji\ntotal_timesteps: 4\ngame: biji\n"), ValueError,
     r"c\.yaml: duplicate key 'game' at line 3 \(first given at line 1\)"),
    ("aliases of aliases in a config (billion laughs)", lambda t: _config(t, ALIAS_BOMB), ValueError,
     r"c\.yaml: not valid YAML at line 1: its aliases expand to more than 100,000 values"),
    ("load_agent of a function", lambda t: __import__("splitpoker.agents", fromlist=["load_agent"]).load_agent(
        "os.path:join", "biji"), ValueError, r"join is not an agent class or factory"),
    ("load_agent of a factory that fails", lambda t: __import__("splitpoker.agents", fromlist=["x"]).load_agent(
        "json:loads", "biji"), ValueError, r"bad agent spec 'json:loads'"),
    ("greedy act on a hand it cannot read", lambda t: _greedy_act({"hand": ["Zz"] * 9}), ValueError,
     r"cannot read card 'Zz'"),
    ("greedy act without the hand, on no game's observation", lambda t: _greedy_act({}, np.zeros(5)), ValueError,
     r"an observation of shape \(5,\) is not one of a game's"),
    ("greedy act without the hand or an observation", lambda t: _greedy_act({}, np.zeros((2, 2))), ValueError,
     r"the agent needs the seat's observation or info\['hand'\]"),
    ("train() with a bad device", lambda t: _train(t, device="banana"), ValueError, r"device: 'banana'"),
    ("train() with a missing opponent", lambda t: _train(t, eval={"opponents": ["checkpoint:/x.zip"]}),
     ValueError, r"eval\.opponents\[0\]: checkpoint '/x\.zip' does not exist"),
]


@pytest.mark.parametrize(("what", "call", "kind", "message"), API_CASES, ids=[c[0] for c in API_CASES])
def test_api_bad_input_raises_a_clear_error(tmp_path: Path, what: str, call: Any, kind: type[BaseException],
                                            message: str) -> None:
    with pytest.raises(kind, match=message) as error:
        call(tmp_path)
    assert "\n" not in str(error.value)
    assert not (tmp_path / "runs").exists()


def test_rules_mismatch_warns_naming_both(tmp_path: Path) -> None:
    from splitpoker.agents import load_agent
    from splitpoker.agents.learned.checkpoint import RulesMismatchWarning

    policy_file(tmp_path / "p.zip")
    with pytest.warns(RulesMismatchWarning, match=r"trained under biji rules classic and plays here under "
                      r"no-jokers: jokers=rank0 \(here none\)"):
        load_agent(f"checkpoint:{tmp_path}/p.zip", "biji", preset="no-jokers")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_agent(f"checkpoint:{tmp_path}/p.zip", "biji")  # the same rules: no warning


def test_a_rejected_parallel_step_changes_nothing() -> None:
    from splitpoker.envs import biji_v0

    env = biji_v0.parallel_env()
    observations, _ = env.reset(seed=1)
    actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    with pytest.raises(ValueError, match="player_3 is out of range"):
        env.step({**actions, "player_3": 99999})
    _, rewards, terminations, _, _ = env.step(actions)
    assert all(terminations.values()) and sum(rewards.values()) == 0


def test_an_observation_is_the_callers_copy() -> None:
    from splitpoker.envs import biji_v0

    env = biji_v0.raw_env()
    env.reset(seed=1)
    observation = env.observe("player_0")
    invalid = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    observation["action_mask"][invalid] = 1
    observation["observation"][:] = 0
    again = env.observe("player_0")
    assert again["action_mask"][invalid] == 0 and again["observation"].any()
    with pytest.raises(ValueError, match=f"action {invalid} of player_0 is not a valid split"):
        env.step(invalid)


def test_the_heuristic_reads_its_own_table_size_when_the_info_has_none() -> None:
    assert _heuristic_act({}) == _heuristic_act({}, drop="num_players")
