"""``splitpoker train`` with the ``offered`` policy kind: a tiny Biji run over a few offered
splits self-plays against snapshots of the same kind, writes checkpoints that record their
``offer``, resumes to the weights of an uninterrupted run bit for bit, and its final
checkpoint plays in ``splitpoker eval``; a setting that does not fit the kind is one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from splitpoker.agents.learned.checkpoint import read_meta, read_policy_state
from splitpoker.agents.learned.policy import PolicyAgent
from splitpoker.envs.games import game_class, make_game
from splitpoker.train.config import load_config, load_config_dict
from splitpoker.train.learner import load_pool, run_meta
from splitpoker.train.selfplay import OpponentPool
from tests.helpers import interrupt_at, rollouts_config, run_cli
from tests.helpers import train_config as train

OFFER = 6


def config(tmp: Path, **changes: Any) -> dict[str, Any]:
    """Four rollouts of 32 hands over 6 offered splits, a checkpoint, snapshot and evaluation after each."""
    return rollouts_config(tmp, policy={"kind": "offered", "net_arch": [8], "offer": OFFER}, **changes)


def weights(path: Path) -> dict[str, np.ndarray]:
    return {key: value.numpy() for key, value in read_policy_state(path).items()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("offered_reference")
    return train(tmp, config(tmp)).run_dir


def test_a_tiny_run_trains_over_the_offered_splits_and_plays_in_eval(
        reference: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = reference / "checkpoints"
    assert {p.name for p in folder.iterdir()} >= {"final.zip", "final.pool.pt", "state.json", "step_000000032.zip",
                                                  "step_000000128.zip"}
    meta = read_meta(folder / "final.zip")
    assert (meta["step"], meta["offer"], meta["policy"]) == (
        128, OFFER, {"kind": "offered", "arch": {"net_arch": [8], "activation": "relu"}})
    saved = load_config(reference / "config.yaml")
    assert saved.policy.offer == OFFER and saved.selfplay.mask == "undominated"
    # the pool's snapshots play as agents of the same kind, deciding over the same offer
    game = make_game("biji")
    pool = OpponentPool(game, 4, run_meta(saved, game, 0), saved.selfplay)
    pool.load_state(load_pool(folder / "final.pool.pt"))
    assert [s.name for s in pool.snapshots] == ["snapshot@96", "snapshot@128"]
    agent = pool.agent(pool.snapshots[-1])
    assert isinstance(agent, PolicyAgent) and agent.offer == OFFER

    code, out, err = run_cli(capsys, "eval", "biji", "--agents", f"checkpoint:{folder / 'final.zip'},greedy",
                             "--hands", "4", "--no-regret", "--no-plots", "--json", "--out",
                             str(reference.parent / "eval"))
    assert code == 0, err
    assert json.loads(out)["agents"][0]["spec"] == f"checkpoint:{folder / 'final.zip'}"


def test_a_stopped_run_resumes_to_the_weights_of_an_uninterrupted_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: Path) -> None:
    from splitpoker.train.launch import resume_run

    interrupt_at(monkeypatch, 80)
    stopped = train(tmp_path, config(tmp_path))
    monkeypatch.undo()
    assert stopped.interrupted and stopped.steps == 64 and stopped.checkpoint.name == "step_000000064.zip"
    with pytest.raises(ValueError, match="--resume cannot change policy"):
        resume_run(stopped.run_dir, ["policy.offer=7"], "again", emit=lambda line: None)
    resumed = resume_run(stopped.run_dir, [], "splitpoker train --resume", emit=lambda line: None)
    assert resumed.steps == 128 and not resumed.interrupted
    state = json.loads((stopped.run_dir / "checkpoints" / "state.json").read_text())
    assert state == json.loads((reference / "checkpoints" / "state.json").read_text())
    final, want = weights(resumed.checkpoint), weights(reference / "checkpoints" / "final.zip")
    assert final.keys() == want.keys() and all(np.array_equal(final[k], want[k]) for k in want)


@pytest.mark.parametrize(("change", "expected"), [
    ({"policy": {"kind": "offered", "subset_hidden": 16}},
     "policy.subset_hidden does not apply to the offered policy; its settings: activation, net_arch, offer"),
    ({"policy": {"kind": "offered", "offer": 0}}, "policy.offer=0 must be an integer of at least 1 (at most 4,096)"),
    ({"policy": {"kind": "offered", "offer": 5000}}, "policy.offer=5000 is more than the most allowed, 4,096"),
    ({"policy": {"kind": "mlp", "offer": 8}}, "policy.offer does not apply to the mlp policy; its settings: "
     "activation, net_arch"),
    ({"policy": {"kind": "offered"}, "selfplay": {"mask": "valid"}},
     "selfplay.mask: valid does not go with the offered policy"),
])
def test_a_setting_that_does_not_fit_the_offered_kind_is_one_line(change: dict[str, Any], expected: str) -> None:
    data: dict[str, Any] = {"game": "biji", "total_timesteps": 64, **change}
    if data.get("algorithm") == "fictitious_play":
        data.pop("total_timesteps")
    with pytest.raises(ValueError) as caught:
        load_config_dict(data, source="tiny.yaml")
    message = str(caught.value)
    assert message.startswith("tiny.yaml: ") and expected in message and "\n" not in message, message


def test_the_offer_defaults_to_the_games_and_is_written_with_the_run() -> None:
    for game in ("biji", "thirteen"):
        loaded = load_config_dict({"game": game, "total_timesteps": 64, "num_players": 4,
                                   "policy": {"kind": "offered"}})
        assert loaded.policy.offer == game_class(game).default_offer
        assert loaded.resolved()["policy"] == {"kind": "offered", "net_arch": [64, 64], "activation": "relu",
                                               "offer": game_class(game).default_offer}
        assert loaded.actions() == {"actions": "offered", "offer": game_class(game).default_offer}
        assert load_config_dict(yaml.safe_load(loaded.to_yaml())) == loaded
    index = load_config_dict({"game": "biji", "total_timesteps": 64})
    assert index.actions() == {"actions": "index", "offer": None} and "offer" not in index.resolved()["policy"]
