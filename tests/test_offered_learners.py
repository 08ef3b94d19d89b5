"""Learners over the offered splits: :class:`OfferedSplitsPolicy` scores every slot with the
same weights and never plays an empty one, ``checkpoint:`` agents of the ``offered`` kind
decide from the views' offers (of tables, or of an environment's data), and
``export_policy`` / ``splitpoker export`` save a MaskablePPO model of that policy (in
memory or its zip) and an ``nn.Sequential`` slot scorer as policy files that decide as the
model does and play in ``splitpoker eval``; a bad ``offer`` and mismatched widths are one
line each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch as th
from gymnasium import spaces
from torch import nn

from splitpoker.agents import export_policy, load_agent
from splitpoker.agents.learned.checkpoint import read_meta
from splitpoker.agents.learned.offered_policy import OfferedSplitsPolicy, feature_scale
from splitpoker.agents.learned.policy_kinds import POLICY_KINDS, check_arch
from splitpoker.envs.games import make_game
from splitpoker.envs.observation import observation_size
from splitpoker.envs.offered import offered_width, split_observation
from splitpoker.envs.offered_env import ActionForm
from splitpoker.envs.seat_view import SeatView
from splitpoker.envs.table import Tables, deal
from tests.helpers import run_cli

GAME, K = "biji", 8


def spaces_of(offer: int = K, game: str = GAME) -> tuple[spaces.Box, spaces.Discrete]:
    size = observation_size(make_game(game)) + offer * offered_width(make_game(game))
    return spaces.Box(-np.inf, np.inf, (size,), np.float32), spaces.Discrete(offer)


def dealt(batch: int = 6, seed: int = 3) -> tuple[Tables, list[tuple[int, int]]]:
    tables = deal(make_game(GAME), 4, np.random.default_rng(seed), batch=batch)
    return tables, [(b, s) for b in range(batch) for s in range(4)]


def offered_observations(tables: Tables, pairs: list[tuple[int, int]], offer: int = K) -> tuple[np.ndarray, Any]:
    offered = tables.offered_at(pairs, offer)
    return ActionForm.observations(tables.views_at(pairs).observations, offered), offered


@pytest.fixture(scope="module")
def trained() -> Any:
    """A MaskablePPO model of the offered policy trained for a few hundred steps against greedy."""
    from sb3_contrib import MaskablePPO

    from splitpoker.train.selfplay import SelfPlayEnv

    env = SelfPlayEnv(GAME, 4, opponents="greedy", actions="offered", offer=K)
    model = MaskablePPO(OfferedSplitsPolicy, env, n_steps=128, batch_size=64, n_epochs=2, seed=0, device="cpu",
                        policy_kwargs={"net_arch": {"pi": [16, 8], "vf": [16]}, "activation_fn": nn.Tanh})
    return model.learn(256)


def test_the_policy_scores_slots_with_shared_weights_and_never_plays_an_empty_one() -> None:
    assert POLICY_KINDS["offered"] is OfferedSplitsPolicy
    assert check_arch("offered", {"net_arch": [8]}) == {"net_arch": [8], "activation": "relu"}
    th.manual_seed(0)
    policy = OfferedSplitsPolicy(*spaces_of(), lambda _: 1e-3, net_arch=[16, 16])
    assert (policy.game_name, policy.offer) == (GAME, K)  # read off the spaces
    tables, pairs = dealt()
    obs, offered = offered_observations(tables, pairs)
    logits = policy.slot_logits(obs)
    seat, rows = split_observation(obs, make_game(GAME), K)
    permutation = np.random.default_rng(0).permutation(K)
    shuffled = np.concatenate([seat, rows[:, permutation].reshape(len(obs), -1)], 1)
    assert np.allclose(policy.slot_logits(shuffled), logits[:, permutation], atol=1e-6)
    values = policy.predict_values(th.as_tensor(obs)).detach()
    assert th.allclose(policy.predict_values(th.as_tensor(shuffled)).detach(), values, atol=1e-5)
    assert not offered.mask.all() and offered.mask.any(1).all()  # some empty slots, none a hand without one
    masks = np.repeat(offered.mask, 20, axis=0)
    actions, _ = policy.predict(np.repeat(obs, 20, axis=0), action_masks=masks)
    assert masks[np.arange(len(masks)), actions].all()
    best, _ = policy.predict(obs, action_masks=offered.mask, deterministic=True)
    assert (best == np.where(offered.mask, logits, -np.inf).argmax(1)).all()
    assert feature_scale(GAME).shape == (offered_width(make_game(GAME)),)


@pytest.mark.parametrize("activation", [nn.ReLU, nn.Tanh, nn.ELU])
def test_slot_scores_are_the_logits_of_the_allowed_slots_and_follow_the_weights(activation: type[nn.Module]) -> None:
    th.manual_seed(1)
    policy = OfferedSplitsPolicy(*spaces_of(), lambda _: 1e-3, net_arch=[16, 8], activation_fn=activation)
    tables, pairs = dealt()
    obs, offered = offered_observations(tables, pairs)
    allowed = offered.mask & (np.random.default_rng(1).random(offered.mask.shape) < 0.7)

    def check() -> None:
        scores = policy.slot_scores(offered.features, allowed)
        assert scores.dtype == np.float64 and np.isneginf(scores[~allowed]).all()
        assert np.allclose(scores[allowed], policy.slot_logits(obs)[allowed], atol=1e-5)

    check()
    for parameter in policy.parameters():  # changed in place, as an optimizer's step does
        with th.no_grad():
            parameter.add_(0.5)
    check()
    policy.load_state_dict({key: value * -1 for key, value in policy.state_dict().items()})
    check()


def test_the_policy_refuses_spaces_of_another_form() -> None:
    box, _ = spaces_of()
    with pytest.raises(ValueError, match=r"not the offered form over 9 splits"):
        OfferedSplitsPolicy(box, spaces.Discrete(9), lambda _: 1e-3)
    with pytest.raises(ValueError, match=rf"thirteen: {observation_size(make_game('thirteen'))} \+ 8 x \d+"):
        OfferedSplitsPolicy(box, spaces.Discrete(K), lambda _: 1e-3, game="thirteen")
    with pytest.raises(ValueError, match=r"net_arch\[1\] = 'wide'"):
        OfferedSplitsPolicy(box, spaces.Discrete(K), lambda _: 1e-3, net_arch=[8, "wide"])


def test_an_exported_maskable_ppo_decides_as_the_model_and_plays_in_eval(
        trained: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = export_policy(trained, tmp_path / "offered.zip", game=GAME, num_players=4)
    meta = read_meta(path)
    assert meta["offer"] == K and meta["policy"] == {
        "kind": "offered", "arch": {"net_arch": {"pi": [16, 8], "vf": [16]}, "activation": "tanh"}}
    agent = load_agent(f"checkpoint:{path}", GAME, 4)
    tables, pairs = dealt(seed=11)
    obs, offered = offered_observations(tables, pairs)
    slots, _ = trained.predict(obs, action_masks=offered.mask, deterministic=True)
    assert (agent.act_batch(tables.views_at(pairs)) == offered.choose(slots)).all()
    # the same decisions from an environment's data (no tables): observation, mask of every valid split, info
    views = [SeatView.from_env(v.observation, v.action_mask, v.info()) for v in tables.views_at(pairs)]
    assert (agent.act_batch(views) == offered.choose(slots)).all()

    model = tmp_path / "model.zip"
    trained.save(model)
    code, out, err = run_cli(capsys, "export", GAME, str(model), "--out", str(tmp_path / "cli.zip"), "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["offer"] == K and document["policy"]["kind"] == "offered"
    again = load_agent(f"checkpoint:{tmp_path / 'cli.zip'}", GAME, 4)
    assert (again.act_batch(tables.views_at(pairs)) == offered.choose(slots)).all()
    code, _, err = run_cli(capsys, "export", GAME, str(model), "--offer", "16", "--out", str(tmp_path / "x.zip"))
    assert code == 2 and "offer=16, but" in err and "decides over 8 offered splits" in err and err.count("\n") == 1
    code, out, err = run_cli(capsys, "eval", GAME, "--agents", f"checkpoint:{path},greedy", "--hands", "4",
                             "--no-regret", "--no-plots", "--json", "--out", str(tmp_path / "eval"))
    assert code == 0, err
    assert json.loads(out)["agents"][0]["spec"] == f"checkpoint:{path}"


def test_an_exported_sequential_slot_scorer_decides_as_the_module_and_plays_in_eval(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    th.manual_seed(1)
    width = offered_width(make_game(GAME))
    scorer = nn.Sequential(nn.Linear(width, 12), nn.ReLU(), nn.Linear(12, 1))
    path = export_policy(scorer, tmp_path / "scorer.zip", game=GAME, num_players=4, offer=K)
    assert read_meta(path)["offer"] == K
    agent = load_agent(f"checkpoint:{path}", GAME, 4)
    tables, pairs = dealt(seed=7)
    offered = tables.offered_at(pairs, K)
    with th.no_grad():
        scores = scorer(th.as_tensor(offered.features)).squeeze(-1).numpy()
    expected = offered.choose(np.where(offered.mask, scores, -np.inf).argmax(1))
    assert (agent.act_batch(tables.views_at(pairs)) == expected).all()
    code, out, err = run_cli(capsys, "eval", GAME, "--agents", f"checkpoint:{path},greedy", "--hands", "4",
                             "--no-regret", "--no-plots", "--json", "--out", str(tmp_path / "eval"))
    assert code == 0, err


def test_bad_offers_and_mismatched_widths_are_one_line_errors(trained: Any, tmp_path: Path) -> None:
    width = offered_width(make_game(GAME))
    scorer = nn.Sequential(nn.Linear(width, 4), nn.ReLU(), nn.Linear(4, 1))
    cases: list[tuple[Any, dict[str, Any], str]] = [
        (scorer, {"offer": 0}, "offer=0 must be an integer of at least 1"),
        (scorer, {"offer": "8"}, "offer='8'"),
        (scorer, {}, f"is a slot scorer ({width} features of one offered split to 1 score): give offer=K"),
        (nn.Sequential(nn.Linear(width + 1, 4), nn.ReLU(), nn.Linear(4, 1)), {"offer": K},
         f"maps {width + 1} values to 1; a biji slot scorer maps the {width} features"),
        (nn.Sequential(nn.Linear(observation_size(make_game(GAME)), 1680)), {"offer": K},
         "chooses among split indices: leave offer out"),
        (trained, {"offer": 16}, "offer=16, but the OfferedSplitsPolicy decides over 8 offered splits"),
    ]
    for model, options, message in cases:
        with pytest.raises(ValueError) as caught:
            export_policy(model, tmp_path / "bad.zip", game=GAME, num_players=4, **options)
        assert message in str(caught.value) and "\n" not in str(caught.value), (message, str(caught.value))
    with pytest.raises(ValueError, match="scores biji splits, not thirteen"):
        export_policy(trained, tmp_path / "bad.zip", game="thirteen", num_players=4)
    assert not (tmp_path / "bad.zip").exists()


def test_an_mlp_policy_over_the_offered_slots_is_refused_in_one_line_naming_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sb3_contrib import MaskablePPO

    from splitpoker.train.selfplay import SelfPlayEnv

    env = SelfPlayEnv(GAME, 4, opponents="greedy", actions="offered", offer=16)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0, device="cpu")
    model.save(tmp_path / "mlp_off.zip")
    size = observation_size(make_game(GAME)) + 16 * offered_width(make_game(GAME))
    why = ("is a model over the 16 offered slots (Discrete(16)) with an MlpPolicy, which cannot be exported: only an "
           "OfferedSplitsPolicy (policy kind offered")
    sequential = nn.Sequential(nn.Linear(size, 8), nn.ReLU(), nn.Linear(8, 16))
    for given in (model, model.policy, tmp_path / "mlp_off.zip", sequential):
        with pytest.raises(ValueError) as caught:
            export_policy(given, tmp_path / "mo.zip", game=GAME, num_players=4)
        text = str(caught.value)
        assert why in text and "slot scorer export for the offered action space" in text, text
        assert "\n" not in text and "Box(" not in text and len(text) < 400, text
    code, _, err = run_cli(capsys, "export", GAME, str(tmp_path / "mlp_off.zip"), "--out", str(tmp_path / "x.zip"))
    assert code == 2 and why in err and "reads the flat observation" not in err, err
    assert not (tmp_path / "mo.zip").exists() and not (tmp_path / "x.zip").exists()


def test_a_space_of_another_shape_is_named_by_its_shape_never_written_out(tmp_path: Path) -> None:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    box = spaces.Box(0.0, 1.0, (500,), np.float32)
    policy = MaskableActorCriticPolicy(box, spaces.Discrete(7), lambda _: 1e-3)
    with pytest.raises(ValueError) as caught:
        export_policy(policy, tmp_path / "p.zip", game=GAME, num_players=4)
    text = str(caught.value)
    assert text.startswith("the MaskableActorCriticPolicy observes a Box of shape (500,); a biji policy reads"), text
    assert "\n" not in text and len(text) < 300
