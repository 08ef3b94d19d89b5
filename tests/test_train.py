"""Training: configs, the self-play view, the opponent pool, imitation, runs, checkpoints, resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from splitpoker.agents import load_agent
from splitpoker.agents.baselines import GreedyAgent, greedy_index
from splitpoker.agents.learned.checkpoint import read_meta, read_policy_state
from splitpoker.envs.cards import format_cards
from splitpoker.envs.games import make_game
from splitpoker.envs.observation import encode_observation
from splitpoker.train.cli import main
from splitpoker.train.config import apply_overrides, load_config, load_config_dict
from splitpoker.train.selfplay import OpponentPool, SelfPlayEnv

ROOT = Path(__file__).resolve().parents[1]


def tiny(tmp_path: Path, game: str = "biji", kind: str = "split_scorer", **extra: Any) -> dict[str, Any]:
    """A config that trains for a few seconds."""
    policy = ({"kind": kind, "subset_hidden": 16, "embed_dim": 8, "split_hidden": 2, "value_hidden": 8}
              if kind == "split_scorer" else {"kind": kind, "net_arch": [8]})
    data = {"game": game, "num_players": 4 if game == "biji" else 3, "total_timesteps": 128, "n_envs": 2,
            "output_dir": str(tmp_path / "runs"), "progress": False, "policy": policy,
            "ppo": {"n_steps": 32, "batch_size": 32, "n_epochs": 1},
            "selfplay": {"snapshot_interval": 64, "pool_size": 2},
            "eval": {"every": 64, "hands": 1, "final_hands": 1, "opponents": ["random"]},
            "checkpoint": {"every": 64}}
    for key, value in extra.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and isinstance(data.get(key), dict) else value
    return data


def write(tmp_path: Path, data: dict[str, Any], name: str = "tiny.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data))
    return path


def run(tmp_path: Path, data: dict[str, Any], name: str = "tiny.yaml"):
    from splitpoker.train.launch import train

    return train(write(tmp_path, data, name), command="splitpoker train test", emit=lambda line: None)


# --------------------------------------------------------------------------- configs
@pytest.mark.parametrize(("change", "expected"), [
    ({"ppo": {"n_stepz": 3}}, "unknown key 'ppo.n_stepz'; allowed keys of ppo: learning_rate, n_steps"),
    ({"colour": "red"}, "unknown key 'colour'; allowed keys: game, num_players"),
    ({"ppo": {"n_steps": "many"}}, "ppo.n_steps: Input should be a valid integer"),
    ({"ppo": {"n_steps": 0}}, "ppo.n_steps: Input should be greater than 0 (got 0)"),
    ({"game": "go"}, "game: unknown game 'go'; games: thirteen, biji"),
    ({"policy": {"kind": "transformer"}}, "policy.kind: Input should be 'mlp', 'split_scorer' or 'offered'"),
    ({"policy": {"kind": "mlp", "embed_dim": 4}}, "policy.embed_dim does not apply to the mlp policy"),
    ({"rules": {"wheel": "lowest"}}, "rules: unknown biji switch 'wheel'; switches: jokers"),
    ({"rules": {"jokers": "many"}}, "rules: biji switch jokers='many' is not allowed; allowed:"),
    ({"preset": "fancy"}, "rules: unknown biji preset 'fancy'; presets: classic, no-jokers"),
    ({"num_players": 6}, "num_players: 6 is not allowed for biji; use 2 to 5"),
    ({"ppo": {"batch_size": 4096}}, "ppo.batch_size: 4096 exceeds a rollout"),
    ({"selfplay": {"baselines": ["grandmaster"]}}, "bad agent spec 'grandmaster': unknown kind 'grandmaster'"),
    ({"imitation": {"solver": "greedy"}}, "'greedy' is not a solver spec"),
    ({"ppo": 3}, "ppo must be a mapping of keys, got 3"),
])
def test_config_errors_name_the_file_the_key_and_what_is_allowed(tmp_path, change, expected):
    data = apply_overrides(tiny(tmp_path), [])
    for key, value in change.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and isinstance(data.get(key), dict) else value
    with pytest.raises(ValueError) as error:
        load_config(write(tmp_path, data))
    message = str(error.value)
    assert "\n" not in message and message.startswith(str(tmp_path / "tiny.yaml")), message
    assert expected in message, message


def test_missing_key_and_bad_files(tmp_path):
    with pytest.raises(ValueError, match="total_timesteps is required"):
        load_config_dict({"game": "biji"}, source="x.yaml")
    with pytest.raises(ValueError, match="does not exist"):
        load_config(tmp_path / "nothing.yaml")
    (tmp_path / "bad.yaml").write_text("game: [biji\n")
    with pytest.raises(ValueError, match="bad.yaml: not valid YAML at line"):
        load_config(tmp_path / "bad.yaml")
    (tmp_path / "list.yaml").write_text("- biji\n")
    with pytest.raises(ValueError, match="a config is a mapping of keys, got list"):
        load_config(tmp_path / "list.yaml")


def test_overrides_set_nested_keys_as_yaml_values(tmp_path):
    path = write(tmp_path, tiny(tmp_path))
    config = load_config(path, ["ppo.n_steps=16", "eval.opponents=[greedy, random]", "rules.jokers=none",
                                "ppo.learning_rate=1e-3", "progress=true"])
    assert config.ppo.n_steps == 16 and config.eval.opponents == ["greedy", "random"]
    assert config.rules == {"jokers": "none"} and config.ppo.learning_rate == 1e-3 and config.progress is True
    for bad, match in (("ppo.n_steps", "expected key.sub=value"), ("ppo..x=1", "empty part"),
                       ("game.x=1", "game is not a section")):
        with pytest.raises(ValueError, match=match):
            load_config(path, [bad])
    with pytest.raises(ValueError, match=r"with --set ppo.nope=1: unknown key 'ppo.nope'"):
        load_config(path, ["ppo.nope=1"])


def test_shipped_configs_are_valid():
    names = {p.name for p in (ROOT / "configs").glob("*.yaml")}
    assert {"quickstart.yaml", "thirteen_classic_4p.yaml", "biji_classic_4p.yaml", "thirteen_western_2p.yaml",
            "thirteen_shisanshui_4p.yaml", "thirteen_shisanshui_3p.yaml", "thirteen_classic_ppo_4p.yaml",
            "thirteen_western_ppo_2p.yaml",
            "thirteen_shisanshui_ppo_4p.yaml", "biji_classic_ppo_4p.yaml", "biji_fp_4p.yaml",
            "biji_offered_ppo_4p.yaml", "thirteen_offered_ppo_4p.yaml"} <= names
    for name in names:
        config = load_config(ROOT / "configs" / name)
        assert config.total_timesteps > 0
    assert load_config(ROOT / "configs" / "quickstart.yaml").game == "biji"


def test_resolved_config_reloads_unchanged(tmp_path):
    config = load_config(write(tmp_path, tiny(tmp_path)))
    again = load_config_dict(yaml.safe_load(config.to_yaml()), source="resolved")
    assert again == config


# --------------------------------------------------------------------------- self-play view
def _greedy_payoff(game, hands, seat, action, scale=1.0):
    slots = [game.slots(h) for h in hands]
    actions = [greedy_index(game, s) for s in slots]
    actions[seat] = action
    return game.score([game.arrangement(s, a) for s, a in zip(slots, actions)]).payoffs[seat] * scale


@pytest.mark.parametrize("game_name", ["biji", "thirteen"])
def test_reward_is_the_learners_payoff_on_scripted_hands(game_name, rng):
    game = make_game(game_name)
    env = SelfPlayEnv(game, 3, pool=None, reward_scale=0.5)
    greedy = GreedyAgent(game)
    for seat in range(3):
        deck = rng.permutation(game.deck())
        hands = [format_cards(deck[i * game.hand_size:(i + 1) * game.hand_size]) for i in range(3)]
        obs, info = env.reset(options={"hands": hands, "seat": seat, "opponents": [greedy, greedy]})
        slots = game.slots(deck[seat * game.hand_size:(seat + 1) * game.hand_size])
        assert info["seat"] == seat and info["hand"] == format_cards(slots).split()
        assert np.array_equal(obs, encode_observation(game, slots, seat, 3))
        assert np.array_equal(env.action_masks(), game.valid_mask(slots))
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, terminated, truncated, step_info = env.step(action)
        expected = _greedy_payoff(game, [deck[i * game.hand_size:(i + 1) * game.hand_size] for i in range(3)],
                                  seat, action)
        assert reward == pytest.approx(0.5 * expected) and step_info["payoff"] == pytest.approx(expected)
        assert terminated and not truncated and step_info["opponents"] == ["greedy", "greedy"]
        assert sum(step_info["payoffs"]) == pytest.approx(0.0)
        with pytest.raises(ValueError, match="call reset"):
            env.step(action)


def test_env_rejects_invalid_splits_and_options(rng):
    game = make_game("biji")
    greedy = GreedyAgent(game)
    env = SelfPlayEnv(game, 2, pool=None)
    env.reset(seed=1, options={"opponents": [greedy]})
    invalid = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match=f"split {invalid} is not valid"):
        env.step(invalid)
    with pytest.raises(ValueError, match="unknown reset option 'colour'"):
        env.reset(options={"colour": 1, "opponents": [greedy]})
    with pytest.raises(ValueError, match="seat 5 is not a seat"):
        env.reset(options={"seat": 5, "opponents": [greedy]})
    with pytest.raises(ValueError, match="is dealt to seats 0 and 1"):
        env.reset(options={"hands": ["As Ks Qs Js Ts 9s 8s 7s 6s"] * 2, "opponents": [greedy]})
    with pytest.raises(ValueError, match="no opponent pool"):
        env.reset()


def test_learner_seat_rotates_and_deals_are_seeded():
    game = make_game("biji")
    config = load_config_dict({"game": "biji", "total_timesteps": 1, "selfplay": {"baseline_share": 1.0}})
    pool = OpponentPool(game, 4, {}, config.selfplay, seed=0)
    env = SelfPlayEnv(game, 4, pool, seat_offset=1)
    seats = [env.reset(seed=3 if i == 0 else None)[1]["seat"] for i in range(5)]
    assert seats == [1, 2, 3, 0, 1]
    first = [SelfPlayEnv(game, 4, pool).reset(seed=9)[0] for _ in range(2)]
    assert np.array_equal(first[0], first[1])


@pytest.mark.parametrize("game_name", ["biji", "thirteen"])
def test_selfplay_env_from_specs_passes_gymnasium_s_checks_and_is_deterministic(game_name):
    """Built from a game name and opponent specs, with penalties for splits outside the mask,
    ``SelfPlayEnv`` passes gymnasium's ``check_env``; ``reset(seed)`` gives the same deal,
    seat and opponent play every time."""
    import warnings

    from gymnasium.utils.env_checker import check_env

    env = SelfPlayEnv(game_name, 3, opponents=["random", "greedy"], illegal_action="penalty", illegal_reward=-2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice on unbounded observation entries (the rules' values)
        check_env(env, skip_render_check=True)

    def hand(seed: int) -> tuple[Any, ...]:
        obs, info = env.reset(seed=seed)
        action = int(np.flatnonzero(env.action_masks())[0])
        _, reward, _, _, step_info = env.step(action)
        return obs.tobytes(), info["seat"], reward, tuple(step_info["payoffs"])

    assert hand(123) == hand(123) and hand(123) != hand(124)
    env.reset(seed=5)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert reward == -2.0 and terminated and info["illegal_action"] == illegal
    with pytest.raises(ValueError, match="call reset"):
        env.step(illegal)


def test_selfplay_env_constructor_errors():
    game = make_game("biji")
    config = load_config_dict({"game": "biji", "total_timesteps": 1})
    pool = OpponentPool(game, 3, {}, config.selfplay)
    for kwargs, message in (({"opponents": ["greedy"]}, "opponents has 1 agents for the 2 other seats"),
                            ({"opponents": [3, 4]}, "opponent 3 is neither an agent spec nor an Agent"),
                            ({"opponents": "greedy", "pool": pool}, "give the opponents or a pool, not both"),
                            ({"opponents": "nonsense"}, "nonsense"),
                            ({"opponents": "greedy", "illegal_action": "ignore"}, "illegal_action='ignore'"),
                            ({"opponents": "greedy", "illegal_reward": float("nan")}, "illegal_reward=nan")):
        with pytest.raises(ValueError, match=message):
            SelfPlayEnv("biji", 3, **kwargs)
    with pytest.raises(ValueError, match="unknown game"):
        SelfPlayEnv("chess", 3, opponents="greedy")


def test_pool_keeps_the_newest_snapshots_and_mixes_baselines(tmp_path):
    from splitpoker.agents.learned.checkpoint import policy_meta
    from splitpoker.agents.learned.networks import build_policy

    game = make_game("biji")
    meta = policy_meta(game, 4, "split_scorer", {"subset_hidden": 8, "embed_dim": 4, "split_hidden": 0,
                                                 "value_hidden": 4})
    state = build_policy(meta).state_dict()
    config = load_config_dict(tiny(tmp_path)).selfplay
    pool = OpponentPool(game, 4, meta, config.model_copy(update={"pool_size": 2, "baseline_share": 0.0}))
    assert [a.name for a in pool.draw(3)] in (["greedy"] * 3, ["random"] * 3) or len(pool) == 0
    for step in (10, 20, 30):
        pool.add(state, step)
    assert [s.name for s in pool.snapshots] == ["snapshot@20", "snapshot@30"]
    assert {a.name for a in pool.draw(20)} <= {"snapshot@20", "snapshot@30"}
    latest = OpponentPool(game, 4, meta, config.model_copy(update={"opponent_sampling": "latest",
                                                                    "baseline_share": 0.0}))
    latest.load_state(pool.state())
    assert {a.name for a in latest.draw(10)} == {"snapshot@30"}
    baselines = OpponentPool(game, 4, meta, config.model_copy(update={"baseline_share": 1.0}))
    baselines.load_state(pool.state())
    assert {a.name for a in baselines.draw(30)} == {"greedy", "random"}


# --------------------------------------------------------------------------- runs
def _plays_legally(spec: str, game_name: str, num_players: int, rng) -> None:
    game = make_game(game_name)
    agent = load_agent(spec, game=game_name, num_players=num_players)
    for seat in range(2):
        slots = game.slots(rng.permutation(game.deck())[: game.hand_size])
        mask = game.valid_mask(slots)
        info = {"hand": format_cards(slots).split(), "seat": seat, "num_players": num_players}
        obs = encode_observation(game, slots, seat, num_players)
        action = agent.act(obs, mask.astype(np.int8), info)
        assert mask[action] and agent.act(obs, mask.astype(np.int8), info) == action


@pytest.mark.parametrize(("game_name", "kind"), [("biji", "split_scorer"), ("biji", "mlp"),
                                                 ("thirteen", "split_scorer"), ("thirteen", "mlp")])
def test_tiny_run_writes_a_checkpoint_that_plays(tmp_path, rng, game_name, kind):
    result = run(tmp_path, tiny(tmp_path, game_name, kind))
    folder = result.run_dir
    assert folder.parent == tmp_path / "runs" and folder.name.startswith(f"{game_name}__tiny__0__")
    assert (folder / "command.txt").read_text() == "splitpoker train test\n"
    assert load_config(folder / "config.yaml") == load_config(tmp_path / "tiny.yaml")
    assert list(folder.glob("events.out.tfevents.*"))
    assert {p.name for p in (folder / "checkpoints").iterdir()} == {
        "final.zip", "final.pool.pt", "state.json", "step_000000000.zip", "step_000000064.zip", "step_000000128.zip"}
    assert (folder / "eval" / "final.md").is_file() and (folder / "eval" / "step_000000064.json").is_file()
    assert result.steps == 128 and "random" in result.results
    meta = read_meta(result.checkpoint)
    assert (meta["game"], meta["num_players"], meta["step"], meta["policy"]["kind"]) == (
        game_name, 4 if game_name == "biji" else 3, 128, kind)
    _plays_legally(f"checkpoint:{result.checkpoint}", game_name, meta["num_players"], rng)
    _plays_legally(f"checkpoint:{folder}", game_name, meta["num_players"], rng)
    with pytest.raises(ValueError, match="trained for"):
        load_agent(f"checkpoint:{result.checkpoint}", game="thirteen" if game_name == "biji" else "biji",
                   num_players=3)


def test_tensorboard_tags_are_grouped(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    result = run(tmp_path, tiny(tmp_path))
    tags: set[str] = set()
    hparams: set[str] = set()
    for events in result.run_dir.glob("events.out.tfevents.*"):
        accumulator = EventAccumulator(str(events))
        accumulator.Reload()
        tags |= set(accumulator.Tags()["scalars"])
        hparams |= set(accumulator.PluginTagToContent("hparams"))
    assert "_hparams_/experiment" in hparams
    groups = {t.split("/")[0] for t in tags}
    assert groups <= {"charts", "losses", "selfplay", "eval", "final"}, tags
    assert {"charts/mean_payoff", "charts/hands_per_s", "losses/value_loss", "selfplay/pool_size",
            "eval/random_mean", "eval/random_ci_lo", "final/random_mean", "final/deals"} <= tags


def test_resume_continues_the_step_count_and_pool(tmp_path):
    from splitpoker.train.launch import resume_run

    first = run(tmp_path, tiny(tmp_path, total_timesteps=64))
    assert first.steps == 64
    pool_before = json.loads((first.run_dir / "checkpoints" / "state.json").read_text())
    with pytest.raises(ValueError, match="finished at step 64"):
        resume_run(first.run_dir, [], "again", emit=lambda line: None)
    with pytest.raises(ValueError, match="--resume cannot change policy"):
        resume_run(first.run_dir, ["total_timesteps=128", "policy.embed_dim=4"], "again", emit=lambda line: None)
    second = resume_run(first.run_dir, ["total_timesteps=128"], "splitpoker train --resume X",
                        emit=lambda line: None)
    assert second.steps == 128 and read_meta(second.checkpoint)["step"] == 128
    assert (first.run_dir / "command.txt").read_text().splitlines() == ["splitpoker train test",
                                                                       "splitpoker train --resume X"]
    assert load_config(first.run_dir / "config.yaml").total_timesteps == 128
    assert pool_before["step"] == 64
    import torch as th

    pool = th.load(first.run_dir / "checkpoints" / "final.pool.pt", weights_only=False)
    assert [s["name"] for s in pool["snapshots"]] == ["snapshot@64", "snapshot@128"]


def test_seeded_runs_repeat(tmp_path):
    a = run(tmp_path / "a", tiny(tmp_path / "a"))
    b = run(tmp_path / "b", tiny(tmp_path / "b"))
    wa, wb = read_policy_state(a.checkpoint), read_policy_state(b.checkpoint)
    assert wa.keys() == wb.keys() and all(np.array_equal(wa[k].numpy(), wb[k].numpy()) for k in wa)
    assert a.results["random"]["policy"]["mean"] == b.results["random"]["policy"]["mean"]
    c = run(tmp_path / "c", tiny(tmp_path / "c", seed=1))
    wc = read_policy_state(c.checkpoint)
    assert not all(np.array_equal(wa[k].numpy(), wc[k].numpy()) for k in wa)


@pytest.mark.parametrize(("game_name", "weights", "mean"), [
    ("biji", (-0.9280629611930014, 381.198780148926), 5.875),
    ("thirteen", (-17.025874642515014, 760.2720194791732), 3.0),
])
def test_seeded_run_reproduces_its_recorded_weights(tmp_path, game_name, weights, mean):
    """Regression: a tiny seeded run (two rollouts and updates, snapshots, a split scorer with
    an interaction term) ends with the weights recorded from the code as it was (their sum
    and sum of magnitudes, to float rounding across machines: a millionth of the sum of
    magnitudes, which the signed sum, mostly cancelled, is held to as well) and the same
    evaluation. A change in what a rollout plays, samples or learns moves them far more than
    that. (Recorded with the snapshot opponents and the evaluated policy deciding among the
    candidates; over every valid split, ``PolicyAgent.over = "mask"``, the run gives the
    sums (-0.89301, 381.23797) and (-17.12021, 760.16204) and means 1.0 and 3.0.)"""
    result = run(tmp_path, tiny(tmp_path, game_name, policy={"split_hidden": 2}))
    state = read_policy_state(result.checkpoint)
    floats = [v.double() for v in state.values() if v.is_floating_point()]
    total, magnitude = sum(float(v.sum()) for v in floats), sum(float(v.abs().sum()) for v in floats)
    assert magnitude == pytest.approx(weights[1], rel=1e-6)
    assert total == pytest.approx(weights[0], abs=1e-6 * weights[1])
    assert result.steps == 128 and result.results["random"]["policy"]["mean"] == mean


def test_ctrl_c_saves_a_checkpoint_at_the_start_of_the_rollout(tmp_path, monkeypatch):
    from sb3_contrib import MaskablePPO

    def interrupted_learn(self, *args, **kwargs):
        self.num_timesteps = 40  # in the middle of a rollout: neither kept nor counted
        raise KeyboardInterrupt

    monkeypatch.setattr(MaskablePPO, "learn", interrupted_learn)
    result = run(tmp_path, tiny(tmp_path))
    assert result.interrupted and result.steps == 0 and result.checkpoint.name == "step_000000000.zip"
    assert result.signal == "SIGINT"
    state = json.loads((result.run_dir / "checkpoints" / "state.json").read_text())
    assert state["finished"] is False and state["checkpoint"] == "step_000000000.zip" and state["step"] == 0


def test_grouped_tensorboard_names():
    from splitpoker.train.tensorboard import GroupedTensorBoard

    assert GroupedTensorBoard.rename("train/value_loss") == "losses/value_loss"
    assert GroupedTensorBoard.rename("time/fps") == "charts/steps_per_s"
    assert GroupedTensorBoard.rename("eval/greedy_mean") == "eval/greedy_mean"


# --------------------------------------------------------------------------- imitation
def test_labels_are_cached_valid_and_cloned(tmp_path):
    import torch as th

    from splitpoker.agents.learned.checkpoint import policy_meta
    from splitpoker.agents.learned.networks import build_policy
    from splitpoker.train.imitation import behaviour_clone, label_hands, teacher_against

    game = make_game("biji")
    spec = "solver:samples=4,opponent=greedy"
    data, cached = label_hands(game, 4, spec, 40, seed=3, cache_dir=tmp_path)
    assert not cached and len(data) == 40 and len(list(tmp_path.glob("*.npz"))) == 1
    again, cached = label_hands(game, 4, spec, 40, seed=3, cache_dir=tmp_path)
    assert cached and np.array_equal(again.labels, data.labels)
    for slots, label in zip(data.slots, data.labels):
        assert game.valid_mask(slots.astype(np.intp))[label]
    assert sorted(set(data.seats.tolist())) == [0, 1, 2, 3]
    th.manual_seed(0)
    policy = build_policy(policy_meta(game, 4, "split_scorer", {"subset_hidden": 16, "embed_dim": 8,
                                                                 "split_hidden": 2, "value_hidden": 8}))
    history = behaviour_clone(policy, data, game, epochs=6, batch_size=8, learning_rate=3e-3, seed=0)
    assert history[-1]["loss"] < history[0]["loss"] and history[-1]["accuracy"] > history[0]["accuracy"]
    assert teacher_against("solver:samples=8,opponent=greedy", "r/c.zip").text == \
        "solver:samples=8,opponent=checkpoint:r/c.zip"
    with pytest.raises(ValueError, match="must be a solver spec"):
        label_hands(game, 4, "greedy", 4, seed=0)


def test_run_with_imitation_rounds(tmp_path):
    data = tiny(tmp_path, imitation={"enabled": True, "solver": "solver:samples=2,opponent=greedy", "hands": 16,
                                     "workers": 1, "epochs": 1, "batch_size": 8, "rounds": 2,
                                     "cache_dir": str(tmp_path / "cache")})
    result = run(tmp_path, data)
    state = json.loads((result.run_dir / "checkpoints" / "state.json").read_text())
    assert state["imitation_rounds_done"] == 2 and result.steps == 128
    caches = list((tmp_path / "cache").glob("*.npz"))
    assert len(caches) == 2  # round 2's teacher answers the checkpoint, a different key


@pytest.mark.slow
def test_labels_do_not_depend_on_the_number_of_workers(tmp_path):
    from splitpoker.train.imitation import label_hands

    game = make_game("biji")
    one, _ = label_hands(game, 3, "solver:samples=4", 80, seed=5, workers=1)
    two, _ = label_hands(game, 3, "solver:samples=4", 80, seed=5, workers=2)
    assert np.array_equal(one.labels, two.labels) and np.array_equal(one.observations, two.observations)


# --------------------------------------------------------------------------- command line
def test_cli_errors_are_one_line(tmp_path, capsys):
    assert main(["train", str(tmp_path / "missing.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err
    assert main(["train"]) == 2
    assert "give a config file or --resume" in capsys.readouterr().err
    path = write(tmp_path, tiny(tmp_path))
    assert main(["train", str(path), "--set", "policy.kind=rnn"]) == 2
    assert "policy.kind: Input should be 'mlp', 'split_scorer' or 'offered'" in capsys.readouterr().err


def test_cli_json_prints_one_document(tmp_path, capsys):
    path = write(tmp_path, tiny(tmp_path, total_timesteps=64))
    assert main(["train", str(path), "--json"]) == 0
    out = capsys.readouterr().out
    document = json.loads(out)
    assert document["steps"] == 64 and Path(document["checkpoint"]).is_file()
    assert out.strip().count("\n") == 0


# --------------------------------------------------------------------------- batched self-play
def _vec_env(game_name: str = "biji", n_envs: int = 6, seed: int = 0, share: float = 1.0):
    from splitpoker.train.selfplay import SelfPlayVecEnv

    game = make_game(game_name)
    config = load_config_dict({"game": game_name, "total_timesteps": 1, "selfplay": {"baseline_share": share}})
    pool = OpponentPool(game, 4, {}, config.selfplay, seed=seed)
    env = SelfPlayVecEnv(game, 4, pool, n_envs, reward_scale=0.5)
    env.seed(seed)
    return game, env


def test_batched_env_deals_decides_and_scores_every_table_together():
    game, env = _vec_env()
    obs = env.reset()
    assert obs.shape == (6, env.observation_space.shape[0]) and obs.dtype == np.float32
    masks = np.stack(env.env_method("action_masks"))
    assert masks.shape == (6, game.n_actions) and masks.any(axis=1).all()
    seats = env.core.seats.copy()
    assert seats.tolist() == [0, 1, 2, 3, 0, 1]  # env i starts at seat i, then rotates hand by hand
    hands = env.core.tables.slots.copy()
    actions = np.array([greedy_index(game, hands[b, seats[b]]) for b in range(6)])
    new_obs, rewards, dones, infos = env.step(actions)
    assert dones.all() and new_obs.shape == obs.shape
    for b, info in enumerate(infos):
        assert np.array_equal(info["terminal_observation"], obs[b])
        assert info["seat"] == seats[b] and rewards[b] == pytest.approx(0.5 * info["payoff"])
        assert sum(info["payoffs"]) == pytest.approx(0.0) and info["payoffs"][seats[b]] == info["payoff"]
        assert len(info["opponents"]) == 3
    assert env.core.seats.tolist() == [1, 2, 3, 0, 1, 2]
    # the payoffs are those of the table core on the same hands and decisions
    from splitpoker.envs.table import Tables

    _, again = _vec_env()
    again.reset()
    all_actions = np.zeros((6, 4), dtype=np.int64)
    again._opponent_actions(all_actions)
    all_actions[np.arange(6), seats] = actions
    expected = Tables(game, hands).score(all_actions).payoffs
    assert np.allclose([info["payoffs"] for info in infos], expected)


def test_batched_env_is_seeded_and_rejects_invalid_splits():
    game, first = _vec_env(seed=4)
    _, second = _vec_env(seed=4)
    assert np.array_equal(first.reset(), second.reset())
    _, other = _vec_env(seed=5)
    assert not np.array_equal(first.core.tables.slots, (other.reset(), other.core.tables.slots)[1])
    bad = np.array([int(np.flatnonzero(~m)[0]) for m in first.action_masks()])
    with pytest.raises(ValueError, match=r"split \d+ is not valid for the learner's hand .* \(env 0\)"):
        first.step(bad)


def test_batched_env_groups_opponents_by_agent(monkeypatch):
    """Each opponent agent decides all its seats of all tables in one call."""
    game, env = _vec_env(n_envs=8)
    calls = []
    for baseline in env.pool.baselines:
        original = baseline.act_batch
        monkeypatch.setattr(baseline, "act_batch", lambda views, original=original: (calls.append(len(views)),
                                                                                      original(views))[1])
    env.reset()
    env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
    assert len(calls) <= len(env.pool.baselines) and sum(calls) == 8 * 3


def test_packed_mask_buffer_returns_the_masks_it_was_given(rng):
    from gymnasium import spaces

    from splitpoker.train.buffers import PackedMaskRolloutBuffer

    n_actions, n_envs, steps = 1001, 3, 4
    buffer = PackedMaskRolloutBuffer(steps, spaces.Box(-1, 1, (2,)), spaces.Discrete(n_actions), "cpu", n_envs=n_envs)
    masks = rng.random((steps, n_envs, n_actions)) < 0.3
    for t in range(steps):
        buffer.add(np.zeros((n_envs, 2)), np.zeros((n_envs, 1)), np.zeros(n_envs), np.zeros(n_envs, dtype=bool),
                   th_zeros(n_envs), th_zeros(n_envs), action_masks=masks[t])
    assert buffer.action_masks.nbytes == steps * n_envs * 126  # one bit per split
    buffer.compute_returns_and_advantage(th_zeros(n_envs), np.zeros(n_envs, dtype=bool))
    (batch,) = list(buffer.get(batch_size=None))
    expected = masks.swapaxes(0, 1).reshape(-1, n_actions)  # SB3's env-major flattening
    got = batch.action_masks.numpy()
    assert got.dtype == bool and sorted(map(bytes, got)) == sorted(map(bytes, expected))


def th_zeros(n: int):
    import torch

    return torch.zeros(n)


def test_best_response_gain_is_logged_and_matches_exploit(tmp_path):
    """Training's best-response gain is ``splitpoker exploit``'s figure for the same checkpoint."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from splitpoker.eval.exploit import best_response_gain

    result = run(tmp_path, tiny(tmp_path, eval={"br_hands": 1, "br_final_hands": 2, "br_samples": 4}))
    tags: set[str] = set()
    for events in result.run_dir.glob("events.out.tfevents.*"):
        accumulator = EventAccumulator(str(events))
        accumulator.Reload()
        tags |= set(accumulator.Tags()["scalars"])
    assert {"eval/br_gain", "eval/br_gain_ci_lo", "eval/br_gain_ci_hi", "final/br_gain"} <= tags
    final = json.loads((result.run_dir / "eval" / "final.json").read_text())["best_response"]
    assert final == result.best_response and (final["samples"], final["deals"]) == (4, 2)
    periodic = json.loads((result.run_dir / "eval" / "step_000000064.json").read_text())["best_response"]
    assert periodic["deals"] == 1
    exploit = best_response_gain("biji", f"checkpoint:{result.checkpoint}", samples=4, hands=2, players=4, seed=2024)
    assert (exploit.gain, list(exploit.ci95)) == (final["gain"], final["ci95"])
    assert "best-response gain" in (result.run_dir / "eval" / "final.md").read_text()


@pytest.mark.parametrize("vec_env", ["batched", "dummy"])
def test_selfplay_over_the_candidates(tmp_path, vec_env):
    """``selfplay.mask: undominated``: every learner mask is its hand's candidates, every
    seat's choice is one, and a tiny run trains and writes its checkpoint."""
    from splitpoker.train.learner import run_meta
    from splitpoker.train.ppo import make_vec_env

    data = tiny(tmp_path, "thirteen", selfplay={"mask": "undominated"}, vec_env=vec_env)
    config = load_config_dict(data)
    game = make_game("thirteen")
    pool = OpponentPool(game, 3, run_meta(config, game, 0), config.selfplay, seed=0)
    env = make_vec_env(config, game, pool)
    env.seed(0)
    env.reset()
    masks = np.stack(env.env_method("action_masks"))
    if vec_env == "batched":
        tables, seats = env.core.tables, env.core.seats
        for b in range(2):
            assert np.array_equal(masks[b], game.candidate_mask(tables.slots[b, seats[b]]))
            assert tables.mask_kind == "undominated"
    assert (masks.sum(axis=1) < 2_000).all()
    env.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    env.close()
    result = run(tmp_path, data)
    assert result.steps == 128 and (result.run_dir / "checkpoints" / "final.zip").is_file()
    with pytest.raises(ValueError, match="mask"):
        load_config_dict(tiny(tmp_path, "thirteen", selfplay={"mask": "all"}))


def test_a_run_folder_is_trained_by_one_process_at_a_time(tmp_path):
    """While a process holds a run folder, ``--resume`` of it is refused with one line naming
    the holder, and nothing in the folder changes; once the holder is done it resumes."""
    from splitpoker.runtime.files import exclusive_lock
    from splitpoker.train.launch import resume_run

    result = run(tmp_path, tiny(tmp_path, total_timesteps=64, checkpoint={"every": 64}))
    folder = result.run_dir
    state = (folder / "checkpoints" / "state.json").read_text()
    with exclusive_lock(folder, "run folder") as claim:
        claim()
        with pytest.raises(ValueError, match=rf"{folder} is in use by process \d+ \(since .*\); a run folder is "
                                             "written by one process at a time"):
            resume_run(folder, ["total_timesteps=128"], "splitpoker train --resume", emit=lambda line: None)
        assert (folder / "checkpoints" / "state.json").read_text() == state
        # another process is refused the same way
        import subprocess
        import sys

        probe = subprocess.run([sys.executable, "-c",
                                "import sys; from splitpoker.runtime.files import exclusive_lock\n"
                                "with exclusive_lock(sys.argv[1], 'run folder'): pass", str(folder)],
                               capture_output=True, text=True)
        assert probe.returncode == 1 and "is in use by process" in probe.stderr
    again = resume_run(folder, ["total_timesteps=128"], "splitpoker train --resume", emit=lambda line: None)
    assert again.steps == 128 and not (folder / ".holder").exists()
