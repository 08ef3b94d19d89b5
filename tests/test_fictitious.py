"""Fictitious play by best-response distillation: the sparse soft targets, labels with their
top-k splits (the same whatever the backend), the mixture agent, the config, and runs that
resume exactly."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from splitpoker.agents import load_agent
from splitpoker.agents.learned.checkpoint import policy_meta
from splitpoker.agents.learned.networks import build_policy
from splitpoker.envs.games import make_game
from splitpoker.envs.table import deal
from splitpoker.train.config import load_config_dict
from splitpoker.train.imitation import (
    behaviour_clone,
    hand_regrets,
    label_hands,
    mirror_targets,
    policy_log_probs,
    read_labels,
    regret_weights,
    soft_targets,
)
from tests.test_faults import points, same_run

TINY = Path(__file__).parent / "data" / "biji_fp_tiny.yaml"
ARCH = {"subset_hidden": 8, "embed_dim": 4, "split_hidden": 2, "value_hidden": 4}


@pytest.fixture(scope="module")
def labelled() -> Any:
    """24 Biji hands labelled by a 4-sample solver against greedy over every valid split, with
    their 8 best splits."""
    return label_hands(make_game("biji"), 4, "solver:samples=4,opponent=greedy,splits=valid", 24, seed=7, top_k=8)[0]


# --------------------------------------------------------------------------- targets
def test_top_splits_are_valid_ranked_and_led_by_the_label(labelled):
    game = make_game("biji")
    plain, _ = label_hands(game, 4, "solver:samples=4,opponent=greedy,splits=valid", 24, seed=7)
    assert np.array_equal(plain.labels, labelled.labels)  # the top-k do not change the labels
    # by default the solver measures the candidates only: the same best values, the rest padded
    over, _ = label_hands(game, 4, "solver:samples=4,opponent=greedy", 24, seed=7, top_k=8)
    assert over.top_evs is not None and labelled.top_evs is not None
    assert np.array_equal(over.top_evs[:, 0], labelled.top_evs[:, 0])
    for slots, actions, evs in zip(over.slots, over.top_actions, over.top_evs):
        candidates = np.flatnonzero(game.candidate_mask(slots.astype(np.intp)))
        measured = min(8, len(candidates))
        assert set(actions[:measured].tolist()) <= set(candidates.tolist()) and np.isnan(evs[measured:]).all()
    assert np.array_equal(labelled.top_actions[:, 0], labelled.labels)
    for slots, actions, evs in zip(labelled.slots, labelled.top_actions, labelled.top_evs):
        assert game.valid_mask(slots.astype(np.intp))[actions].all() and len(set(actions.tolist())) == 8
        assert (np.diff(evs.astype(np.float64)) <= 0).all()


def test_labels_and_targets_of_a_fixed_seed(labelled):
    """Pinned: the labels, one hand's top splits (ties in index order) and its soft target."""
    assert labelled.labels[:6].tolist() == [1642, 1493, 420, 1504, 144, 569]
    assert labelled.top_actions[0].tolist() == [1642, 9, 116, 569, 1181, 1381, 1602, 401]
    assert labelled.top_evs[0].tolist() == [1.25, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -1.5]
    assert np.allclose(soft_targets(labelled.top_evs, 0.5)[0],
                       [0.897682] + [0.016442] * 6 + [0.003669], atol=1e-6)


def test_the_sparse_target_is_a_distribution_over_valid_splits(labelled):
    probs = soft_targets(labelled.top_evs, temperature=0.5)
    assert probs.shape == (24, 8) and (probs >= 0).all() and np.allclose(probs.sum(axis=1), 1)
    # softmax over all valid splits, cut to the top k and renormalised: ratios are exp(ΔEV / T)
    assert np.allclose(probs[:, 1] / probs[:, 0], np.exp((labelled.top_evs[:, 1] - labelled.top_evs[:, 0]) / 0.5),
                       rtol=1e-5)
    padded = soft_targets(np.array([[2.0, 1.0, np.nan]]), temperature=1.0)
    assert padded[0, 2] == 0 and np.isclose(padded[0, 0], np.e / (np.e + 1))
    with pytest.raises(ValueError, match="temperature must be positive"):
        soft_targets(labelled.top_evs, temperature=0)


def test_k_1_and_a_cold_temperature_give_the_split_labels(labelled):
    assert np.array_equal(soft_targets(labelled.top_evs[:, :1], temperature=0.5), np.ones((24, 1)))
    cold = soft_targets(labelled.top_evs, temperature=1e-9)
    best = labelled.top_actions[np.arange(24), cold.argmax(axis=1)]
    assert np.array_equal(best, labelled.labels)
    unique = labelled.top_evs[:, 0] > labelled.top_evs[:, 1]  # no tie for the best split: all the mass on it
    assert unique.any() and np.array_equal(cold[unique, 0], np.ones(unique.sum()))


def test_a_fit_to_the_soft_targets_lowers_the_loss(labelled):
    import torch as th

    game = make_game("biji")
    th.manual_seed(0)
    policy = build_policy(policy_meta(game, 4, "split_scorer", ARCH))
    history = behaviour_clone(policy, labelled, game, epochs=8, batch_size=8, learning_rate=3e-3, seed=0,
                              temperature=0.5)
    assert history[-1]["loss"] < history[0]["loss"] - 0.1
    with pytest.raises(ValueError, match="top-k splits"):
        plain, _ = label_hands(game, 4, "solver:samples=2", 4, seed=0)
        behaviour_clone(policy, plain, game, epochs=1, batch_size=4, learning_rate=1e-3, seed=0, temperature=1.0)


def test_a_mirror_step_settles_at_the_values_target_and_becomes_it_as_the_step_grows(labelled):
    evs = labelled.top_evs.astype(np.float64)
    uniform = np.zeros_like(evs)
    goal = soft_targets(evs, temperature=0.5)
    # the fixed point: stepping from the values target gives it back
    assert np.allclose(mirror_targets(evs, np.log(goal), temperature=0.5, step_size=0.7), goal)
    assert np.allclose(mirror_targets(evs, uniform, temperature=0.5, step_size=1e9), goal)
    # from the uniform policy, a step of eta gives softmax(eta EV / (1 + eta T)): the values target at a warmer
    # temperature, and repeated steps approach the fixed point
    assert np.allclose(mirror_targets(evs, uniform, temperature=0.5, step_size=2.0), soft_targets(evs, 1.0))
    prior = uniform
    gaps = []
    for _ in range(20):  # each step shrinks the log-ratio to the fixed point by 1 / (1 + step_size * T)
        prior = np.log(mirror_targets(evs, prior, temperature=0.5, step_size=1.0))
        gaps.append(np.abs(np.exp(prior) - goal).max())
    assert all(b < a for a, b in zip(gaps, gaps[1:])) and gaps[-1] < 1e-3
    # a constant per hand in the policy's log probabilities changes nothing; the padding gets nothing
    shifted = mirror_targets(evs, uniform + np.arange(24)[:, None], temperature=0.5, step_size=2.0)
    assert np.allclose(shifted, mirror_targets(evs, uniform, temperature=0.5, step_size=2.0))
    padded = mirror_targets(np.array([[1.0, 0.0, np.nan]]), np.array([[0.0, np.log(3.0), 0.0]]), 1.0, 1.0)
    assert padded[0, 2] == 0 and np.allclose(padded[0, :2], [np.sqrt(np.e), np.sqrt(3)] / (np.sqrt(np.e) + np.sqrt(3)))
    for bad, message in [({"step_size": 0.0}, "step_size must be positive"),
                         ({"temperature": -1.0}, "temperature must be positive"),
                         ({"prior": uniform[:, :3]}, "log probabilities of shape"),
                         ({"prior": np.full_like(evs, -np.inf)}, "gives one of the kept splits no probability")]:
        args = {"step_size": 1.0, "temperature": 0.5, "prior": uniform, **bad}
        with pytest.raises(ValueError, match=message):
            mirror_targets(evs, args["prior"], args["temperature"], args["step_size"])


def test_a_fit_to_a_mirror_step_moves_the_policy_towards_the_solver(labelled):
    import torch as th

    game = make_game("biji")
    th.manual_seed(0)
    policy = build_policy(policy_meta(game, 4, "split_scorer", ARCH))
    before = policy_log_probs(policy, labelled, game, batch_size=5)
    assert before.shape == (24, 8) and (before <= 0).all() and not policy.training
    assert np.allclose(before, policy_log_probs(policy, labelled, game))  # the batch size changes nothing
    targets = mirror_targets(labelled.top_evs, before, temperature=0.5, step_size=1.0)
    behaviour_clone(policy, labelled, game, epochs=12, batch_size=8, learning_rate=1e-2, seed=0, targets=targets)
    after = policy_log_probs(policy, labelled, game)
    # within the kept splits the policy comes closer to the target, with more of their mass on the best
    kept = [p - np.logaddexp.reduce(p, axis=1, keepdims=True) for p in (before, after)]
    divergence = [float(np.sum(targets * (np.log(targets) - k), axis=1).mean()) for k in kept]
    assert divergence[1] < divergence[0] - 0.03
    assert np.exp(kept[1][:, 0]).mean() > np.exp(kept[0][:, 0]).mean() + 0.01
    # targets given are fitted as the values target is: the same weights, bit for bit
    fitted = []
    for given in ({"temperature": 0.5}, {"targets": soft_targets(labelled.top_evs, 0.5)}):
        th.manual_seed(0)
        fresh = build_policy(policy_meta(game, 4, "split_scorer", ARCH))
        behaviour_clone(fresh, labelled, game, epochs=2, batch_size=8, learning_rate=1e-2, seed=0, **given)
        fitted.append(fresh.state_dict())
    assert all(th.equal(fitted[0][k], fitted[1][k]) for k in fitted[0])
    with pytest.raises(ValueError, match="a temperature or targets, not both"):
        behaviour_clone(policy, labelled, game, 1, 8, 1e-3, seed=0, temperature=0.5, targets=targets)
    with pytest.raises(ValueError, match=r"targets of shape \(24, 3\)"):
        behaviour_clone(policy, labelled, game, 1, 8, 1e-3, seed=0, targets=targets[:, :3])


def test_regrets_weigh_the_hands_the_policy_plays_worst():
    evs = np.array([[3.0, 2.0, 0.0], [1.0, 1.0, np.nan], [5.0, -4.0, -5.0]])
    on_best = np.log([[1.0, 1e-300, 1e-300], [0.5, 0.5, 1.0], [1.0, 1e-300, 1e-300]])
    assert np.allclose(hand_regrets(evs, on_best), 0.0)  # no regret where all the mass is on a best split
    spread = np.log([[0.5, 0.25, 0.25], [0.25, 0.25, 1.0], [0.1, 0.1, 0.3]])
    # hand 1: 0.25 * 1 + 0.25 * 3; hand 2: the half outside its two kept splits at their worst, 1.0, so 0;
    # hand 3: 0.1 * 9 + 0.3 * 10, and the 0.5 outside its top 3 at its worst kept payoff, -5: 0.5 * 10
    assert np.allclose(hand_regrets(evs, spread), [1.0, 0.0, 8.9])
    weights = regret_weights(hand_regrets(evs, spread))
    assert weights.dtype == np.float32 and np.isclose(weights.mean(), 1.0)
    assert np.allclose(weights, (1 + np.array([1.0, 0.0, 8.9]) / (9.9 / 3)) / 2)  # none under a half
    assert np.array_equal(regret_weights(np.zeros(4)), np.ones(4, dtype=np.float32))
    with pytest.raises(ValueError, match="log probabilities of shape"):
        hand_regrets(evs, spread[:, :2])


def test_a_weighted_fit_weighs_each_hand_by_its_weight(labelled):
    import torch as th

    game = make_game("biji")
    fitted = []
    for weights in (None, np.ones(len(labelled)), np.r_[np.full(4, 6.0), np.zeros(len(labelled) - 4)]):
        th.manual_seed(0)
        policy = build_policy(policy_meta(game, 4, "split_scorer", ARCH))
        behaviour_clone(policy, labelled, game, epochs=12, batch_size=8, learning_rate=1e-2, seed=0, temperature=0.5,
                        weights=weights)
        fitted.append(policy)
    states = [policy.state_dict() for policy in fitted]
    assert all(th.equal(states[0][k], states[1][k]) for k in states[0])  # weights of 1: the plain fit, bit for bit
    # all the weight on the first four hands: the policy fits them closer than the plain fit does
    targets = soft_targets(labelled.top_evs, 0.5)
    def loss(policy: Any, rows: slice) -> float:  # the cross-entropy to the targets, as fitted
        return float(-np.sum(targets[rows] * policy_log_probs(policy, labelled, game)[rows], axis=1).mean())

    assert loss(fitted[2], slice(0, 4)) < loss(fitted[0], slice(0, 4)) - 0.5  # and the others, unweighted, worse
    assert loss(fitted[2], slice(4, None)) > loss(fitted[0], slice(4, None)) + 0.5
    for bad in (np.ones(3), np.full(len(labelled), -1.0), np.full(len(labelled), np.nan)):
        with pytest.raises(ValueError, match=f"weights must be {len(labelled)} finite non-negative numbers"):
            behaviour_clone(fitted[0], labelled, game, 1, 8, 1e-3, seed=0, temperature=0.5, weights=bad)


# --------------------------------------------------------------------------- the mixture agent
def test_a_mixture_plays_each_seat_as_one_member_drawn_from_its_seed():
    game = make_game("biji")
    views = deal(game, 4, np.random.default_rng(0), batch=50).views()
    greedy = load_agent("greedy", game, 4).act_batch(views)
    uniform = load_agent("random", game, 4, seed=3)
    mixture = load_agent("mixture:greedy;random", game, 4, seed=3)
    chosen = mixture.act_batch(views)
    assert np.array_equal(chosen, load_agent("mixture:greedy;random", game, 4, seed=3).act_batch(views))
    as_greedy = chosen == greedy
    assert 0.3 < as_greedy.mean() < 0.9  # about half the seats are greedy's (random rarely agrees)
    assert uniform.name == "random" and mixture.name == "mixture(greedy;random)"
    assert np.array_equal(load_agent("mixture:greedy", game, 4).act_batch(views), greedy)
    solver = load_agent("solver:samples=4,opponent=mixture:greedy;random", game, 4, seed=1)
    again = load_agent("solver:samples=4,opponent=mixture:greedy;random", game, 4, seed=1)
    assert np.array_equal(solver.act_batch(views[:6]), again.act_batch(views[:6]))
    with pytest.raises(ValueError, match="an empty member"):
        load_agent("mixture:greedy;;random", game, 4)


# --------------------------------------------------------------------------- config
def base(**changes: Any) -> dict[str, Any]:
    data = yaml.safe_load(TINY.read_text())
    for key, value in changes.items():
        data[key] = {**data[key], **value} if isinstance(value, dict) and isinstance(data.get(key), dict) else value
    return data


def test_the_tiny_config_and_total_timesteps():
    config = load_config_dict(base())
    assert config.algorithm == "fictitious_play" and config.total_timesteps == 32
    assert "total_timesteps" not in config.resolved() and "ppo" not in config.resolved()
    assert load_config_dict(yaml.safe_load(config.to_yaml())) == config
    # a run folder's config.yaml keeps the target settings its target reads, and loads again alike
    for target, read in [("split", set()), ("values", {"temperature", "top_k", "weighting"}),
                         ("mirror", {"temperature", "top_k", "step_size", "weighting"})]:
        data = base(fictitious_play={"target": target})
        data["fictitious_play"] = {k: v for k, v in data["fictitious_play"].items()
                                   if target != "split" or k not in ("temperature", "top_k")}
        chosen = load_config_dict(data)
        section = chosen.resolved()["fictitious_play"]
        assert {"temperature", "top_k", "step_size", "weighting"} & set(section) == read
        assert load_config_dict(yaml.safe_load(chosen.to_yaml())) == chosen
    assert load_config_dict({"game": "biji", "total_timesteps": 10}).algorithm == "ppo"
    assert "fictitious_play" not in load_config_dict({"game": "biji", "total_timesteps": 10}).resolved()


@pytest.mark.parametrize(("change", "expected"), [
    ({"total_timesteps": 100}, "total_timesteps: 100 is not fictitious_play.rounds * fictitious_play.hands = 32"),
    ({"ppo": {"n_steps": 8}}, "ppo does not apply to algorithm fictitious_play; it does not use n_envs"),
    ({"n_envs": 2}, "n_envs does not apply to algorithm fictitious_play"),
    ({"algorithm": "ppo", "total_timesteps": 10}, "fictitious_play does not apply to algorithm ppo; set algorithm"),
    ({"algorithm": "dqn"}, "algorithm: 'dqn' is not a registered trainer; algorithms: ppo, fictitious_play"),
    ({"fictitious_play": {"population": "all"}}, "fictitious_play.population: Input should be 'latest' or 'mixture'"),
    ({"fictitious_play": {"target": "logits"}},
     "fictitious_play.target: Input should be 'split', 'values' or 'mirror'"),
    ({"fictitious_play": {"step_size": 2}},
     "fictitious_play.step_size applies to target mirror only (target is values)"),
    ({"fictitious_play": {"target": "mirror", "fit": "all"}}, "fictitious_play.fit: all fits earlier rounds' hands, "
                                                              "but target mirror steps from the policy"),
    ({"fictitious_play": {"target": "mirror", "step_size": 0}}, "fictitious_play.step_size: Input should be greater"),
    ({"fictitious_play": {"target": "split"}}, "fictitious_play.temperature applies to target values and mirror only"),
    ({"fictitious_play": {"weighting": "loss"}}, "fictitious_play.weighting: Input should be 'uniform' or 'regret'"),
    ({"fictitious_play": {"solver": "solver:opponent=greedy"}}, "names an opponent; fictitious play sets it"),
    ({"fictitious_play": {"solver": "greedy"}}, "'greedy' is not a solver spec"),
    ({"fictitious_play": {"backend": "spark"}}, "fictitious_play.backend: Input should be 'local' or 'ray'"),
    ({"fictitious_play": {"address": "auto"}}, "fictitious_play.address applies to backend ray only"),
    ({"fictitious_play": {"rounds": 0}}, "fictitious_play.rounds: Input should be greater than 0"),
    ({"fictitious_play": {"fit": "last"}}, "fictitious_play.fit: Input should be 'round' or 'all'"),
    ({"fictitious_play": {"temperatur": 1}}, "unknown key 'fictitious_play.temperatur'; allowed keys of "
                                             "fictitious_play: workers, backend, address, epochs"),
    ({"imitation": {"enabled": True, "rounds": 2}}, "imitation.rounds: 2, but under algorithm fictitious_play"),
    ({"imitation": {"address": "auto"}}, "imitation.address applies to backend ray only"),
])
def test_config_errors_are_one_line_naming_the_key(change, expected):
    with pytest.raises(ValueError) as error:
        load_config_dict(base(**change), source="fp.yaml")
    message = str(error.value)
    assert "\n" not in message and message.startswith("fp.yaml: ") and expected in message, message


# --------------------------------------------------------------------------- runs
def write(tmp: Path, data: dict[str, Any]) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "fp_tiny.yaml"
    path.write_text(yaml.safe_dump({**data, "output_dir": str(tmp / "runs")}))
    return path


def train(tmp: Path, data: dict[str, Any]) -> Any:
    from splitpoker.train.launch import train as start

    return start(write(tmp, data), command="splitpoker train fp_tiny.yaml", emit=lambda line: None)


@pytest.mark.slow
@pytest.mark.parametrize(("hands_fitted", "target", "weighting"),
                         [("round", "values", "uniform"), ("all", "values", "regret"), ("round", "mirror", "regret")])
def test_a_run_stopped_in_its_second_round_resumes_to_the_same_weights(tmp_path, monkeypatch, hands_fitted, target,
                                                                       weighting):
    from splitpoker.agents.learned.checkpoint import read_meta
    from splitpoker.train import fictitious
    from splitpoker.train.launch import resume_run

    config = base(fictitious_play={"fit": hands_fitted, "target": target, "weighting": weighting})
    reference = train(tmp_path / "straight", config)
    state = json.loads((reference.run_dir / "checkpoints" / "state.json").read_text())
    assert state["fp_rounds_done"] == 2 and state["step"] == 32 and reference.steps == 32
    assert state["fp_population"] == ["step_000000000.zip", "step_000000016.zip", "step_000000032.zip"]
    assert read_meta(reference.run_dir / "checkpoints" / "final.zip")["step"] == 32
    tags = points(reference.run_dir)
    assert {("fictitious_play/loss", 16), ("fictitious_play/loss", 32), ("eval/random_mean", 16),
            ("final/random_mean", 32)} <= set(tags)
    assert (("fictitious_play/policy_regret", 32) in tags) == (weighting == "regret")

    calls = []

    def fit(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGTERM)  # in round 2's fit: the round stops at once
        return behaviour_clone(*args, **kwargs)

    monkeypatch.setattr(fictitious, "behaviour_clone", fit)
    stopped = train(tmp_path / "stopped", config)
    monkeypatch.undo()
    assert stopped.interrupted and stopped.signal == "SIGTERM" and stopped.steps == 16
    assert stopped.checkpoint.name == "step_000000016.zip"
    resumed = resume_run(stopped.run_dir, [], "splitpoker train --resume", emit=lambda line: None)
    assert resumed.steps == 32 and not resumed.interrupted
    # the CPU seconds continue from the checkpoint resumed from
    assert (read_meta(stopped.run_dir / "checkpoints" / "step_000000032.zip")["cpu_seconds"]
            > read_meta(stopped.run_dir / "checkpoints" / "step_000000016.zip")["cpu_seconds"] > 0)
    same_run(stopped.run_dir, reference.run_dir)
    kept = sorted(p.name for p in (stopped.run_dir / "labels").glob("*.npz")) if hands_fitted == "all" else []
    assert kept == sorted(p.name for p in (reference.run_dir / "labels").glob("*.npz"))
    assert kept == (["round_001.npz", "round_002.npz"] if hands_fitted == "all" else [])
    for name in kept:  # round 2's labels, written before the stop, written again alike
        got, want = (read_labels(run / "labels" / name).arrays() for run in (stopped.run_dir, reference.run_dir))
        assert all(np.array_equal(got[k], want[k], equal_nan=True) for k in want)
    more = resume_run(stopped.run_dir, ["fictitious_play.rounds=3"], "resume", emit=lambda line: None)
    assert more.steps == 48  # a finished run continues with more rounds
    with pytest.raises(ValueError, match="raise it with --set fictitious_play.rounds=N"):
        resume_run(stopped.run_dir, [], "resume", emit=lambda line: None)


def test_labels_in_slots_are_the_same_splits_and_payoffs_over_the_offered_ones(labelled):
    from splitpoker.envs.observation import observation_size
    from splitpoker.envs.offered import offer_hands, offered_width
    from splitpoker.train.imitation import in_slots

    game = make_game("biji")
    moved, left_out = in_slots(labelled, game, 4, 3)
    offered = offer_hands(game, labelled.slots, 4, 3)
    keep = np.array([label in row for label, row in zip(labelled.labels, offered.splits)])
    assert left_out == int((~keep).sum()) > 0 and len(moved) == int(keep.sum())  # 3 slots: some labels not offered
    size = observation_size(game)
    assert moved.observations.shape == (len(moved), size + 3 * offered_width(game))
    assert np.array_equal(moved.observations[:, :size], labelled.observations[keep])
    assert np.array_equal(moved.observations[:, size:].reshape(-1, 3, offered_width(game)), offered.features[keep])
    assert np.array_equal(np.unpackbits(moved.slot_masks, axis=1, count=3).astype(bool), offered.mask[keep])
    assert np.array_equal(moved.packed_masks(game), moved.slot_masks)
    splits, actions, evs = offered.splits[keep], labelled.top_actions[keep], labelled.top_evs[keep]
    rows = np.arange(len(moved))[:, None]
    assert np.array_equal(splits[np.arange(len(moved)), moved.labels], labelled.labels[keep])
    there = splits[rows, moved.top_actions] == actions  # a top split offered: its slot and its payoff
    assert np.array_equal(moved.top_evs[there], evs[there])
    assert np.isnan(moved.top_evs[~there]).all() and (moved.top_actions[~there] ==
                                                      np.broadcast_to(moved.labels[:, None], there.shape)[~there]).all()
    assert (~there).any() and there[:, 0].all()
    # the solver choosing among the candidates, all of them offered: every hand kept
    over, _ = label_hands(game, 4, "solver:samples=4,opponent=greedy", 12, seed=7, top_k=8)
    whole, none_left = in_slots(over, game, 4, 90)
    assert none_left == 0 and len(whole) == len(over)


def test_fictitious_play_trains_the_offered_kind_from_the_solvers_labels(tmp_path):
    from splitpoker.agents.learned.checkpoint import read_meta

    data = base(policy={"kind": "offered", "net_arch": [8], "offer": 6},
                imitation={"enabled": True, "solver": "solver:samples=2,opponent=greedy", "hands": 8, "epochs": 1,
                           "batch_size": 8, "workers": 1},
                fictitious_play={"weighting": "regret"})
    data["policy"] = {"kind": "offered", "net_arch": [8], "offer": 6}
    result = train(tmp_path, data)
    final = result.run_dir / "checkpoints" / "final.zip"
    meta = read_meta(final)
    assert (meta["step"], meta["offer"], meta["policy"]["kind"]) == (32, 6, "offered")
    agent = load_agent(f"checkpoint:{final}", make_game("biji"), 4)
    assert agent.act_batch(deal(make_game("biji"), 4, np.random.default_rng(1), batch=2).views()).shape == (8,)


def test_evaluating_on_the_way_leaves_the_weights_as_they_are(tmp_path):
    """The evaluations during a run (duplicate deals and a best-response gain each round)
    read the policy and draw from their own seeds: the run trains the same weights without them."""
    from splitpoker.agents.learned.checkpoint import read_policy_state

    data = base(policy={"kind": "offered", "net_arch": [8], "offer": 6},
                imitation={"enabled": True, "solver": "solver:samples=2,opponent=greedy", "hands": 8, "epochs": 1,
                           "batch_size": 8, "workers": 1},
                fictitious_play={"weighting": "regret"})
    data["policy"] = {"kind": "offered", "net_arch": [8], "offer": 6}
    finals = [read_policy_state(train(tmp_path / name, {**data, "eval": evaluation}).run_dir / "checkpoints" /
                                "final.zip")
              for name, evaluation in (("each", {"every": 16, "hands": 2, "final_hands": 2, "opponents": ["random"],
                                                 "br_hands": 1, "br_samples": 2}),
                                       ("none", {"every": 10**6, "hands": 1, "final_hands": 1,
                                                 "opponents": ["greedy"], "seed": 5}))]
    assert finals[0].keys() == finals[1].keys()
    assert all(np.array_equal(finals[0][k].numpy(), finals[1][k].numpy()) for k in finals[0])


def test_cli_runs_fictitious_play_and_its_checkpoint_plays(tmp_path, capsys):
    from splitpoker.train.cli import main

    data = base(fictitious_play={"rounds": 2, "hands": 8, "population": "mixture", "target": "split"})
    for key in ("temperature", "top_k"):  # target split has neither
        del data["fictitious_play"][key]
    # any run folder: the solver's opponent model is a spec tree, never a path read as grammar
    assert main(["train", str(write(tmp_path / "runs,with;odd (chars", data)), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["steps"] == 16 and result["eval"]["random"]["deals"] == 2
    agent = load_agent(f"checkpoint:{result['checkpoint']}", make_game("biji"), 4)
    assert agent.act_batch(deal(make_game("biji"), 4, np.random.default_rng(1), batch=2).views()).shape == (8,)
    # each checkpoint records the CPU seconds spent to reach it, rising round by round
    from splitpoker.agents.learned.checkpoint import read_meta

    folder = Path(result["checkpoint"]).parent
    spent = [read_meta(folder / name)["cpu_seconds"] for name in
             ("step_000000000.zip", "step_000000008.zip", "step_000000016.zip", "final.zip")]
    assert 0 <= spent[0] < spent[1] < spent[2] <= spent[3], spent


# --------------------------------------------------------------------------- labels on Ray
@pytest.fixture
def policy_file(tmp_path) -> Path:
    """A tiny untrained Biji policy saved as a checkpoint."""
    import torch as th

    from splitpoker.agents.learned.checkpoint import write_policy_file

    game = make_game("biji")
    th.manual_seed(1)
    meta = policy_meta(game, 3, "split_scorer", ARCH)
    return write_policy_file(tmp_path / "policy.zip", meta, build_policy(meta).state_dict())


def test_a_ray_task_carries_the_checkpoints_its_solver_answers(policy_file, tmp_path):
    from splitpoker.train.imitation import _label_chunk, _label_ray_chunk, _opponent_checkpoints

    game = make_game("biji")
    spec = f"solver:samples=2,opponent=mixture:checkpoint:{policy_file};greedy"
    assert _opponent_checkpoints(spec)[0] == [str(policy_file)]
    assert _opponent_checkpoints(spec, {str(policy_file): "/x.zip"})[1].text == \
        "solver:samples=2,opponent=mixture:checkpoint:/x.zip;greedy"
    here = _label_chunk((game.rules, 3, spec, 4, 3, 1, 5))
    gone = str(tmp_path / "elsewhere.zip")  # a path the node does not have: the bytes travel with the task
    chunk, there = _label_ray_chunk((game.rules, 3, spec.replace(str(policy_file), gone), 4, 3,
                                     {gone: policy_file.read_bytes()}), [1, 5])
    assert chunk == 1 and all(np.array_equal(here[k], there[k], equal_nan=True) for k in here)


@pytest.mark.slow
@pytest.mark.ray
def test_ray_labels_are_the_local_labels(policy_file):
    pytest.importorskip("ray")
    game = make_game("biji")
    spec = f"solver:samples=4,opponent=mixture:checkpoint:{policy_file};greedy"
    local, _ = label_hands(game, 3, spec, 80, seed=5, workers=1, top_k=4)
    remote, _ = label_hands(game, 3, spec, 80, seed=5, workers=2, top_k=4, backend="ray")
    for key, array in local.arrays().items():
        assert np.array_equal(array, remote.arrays()[key], equal_nan=key == "top_evs"), key


def test_fit_all_fits_every_rounds_labels_kept_in_the_run_folder(tmp_path):
    from splitpoker.train.launch import resume_run
    from splitpoker.train.launch import train as start

    lines: list[str] = []
    result = start(write(tmp_path, base(fictitious_play={"fit": "all", "population": "latest"})),
                   command="splitpoker train fp_tiny.yaml", emit=lines.append)
    assert result.steps == 32 and not result.interrupted
    first, second = (read_labels(result.run_dir / "labels" / f"round_00{r}.npz") for r in (1, 2))
    assert len(first) == len(second) == 16 and not np.array_equal(first.slots, second.slots)
    assert "  fitting the 32 hands of rounds 1-2" in lines
    assert not any("fitting the 16 hands" in line for line in lines)  # round 1 fits its own hands
    (result.run_dir / "labels" / "round_001.npz").unlink()
    with pytest.raises(ValueError, match=r"labels of earlier rounds are missing .*\(round_001.npz\)"):
        resume_run(result.run_dir, ["fictitious_play.rounds=3"], "resume", emit=lines.append)
    assert not any("round 3/3" in line for line in lines)  # found before the round labels anything
