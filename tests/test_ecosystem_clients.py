"""Outside RL libraries on the environments, with no glue: TorchRL's ``PettingZooWrapper``
(``check_env_specs``), a Tianshou collector over ``PettingZooEnv`` and RLlib's
``PettingZooEnv`` / ``ParallelPettingZooEnv``, plus the ``infos="arrays"`` contract that
tensor-converting wrappers rely on.

The clients' tests are slow (``make test-slow``, which installs the ``[ecosystem]`` extra and,
for RLlib, the ``[rllib]`` extra) and are skipped, saying which, when their library is not
installed; the ``infos="arrays"`` contract runs in the default suite. Tables are 3 seats and
a few hands: the machines have 2 cores. Under ``actions="offered"`` each library plays hands
of random valid slots at 4 seats, the table the bench times them at
(:mod:`splitpoker.eval.wrapper_speed`), and the bench's skip of a library that is not
installed runs in the default suite.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import splitpoker.envs as envs
from splitpoker.envs import biji_v0
from splitpoker.envs.games import GAMES
from splitpoker.envs.registration import env_name

#: every registered game's environment module, by the game's name
MODULES = {name: getattr(envs, env_name(cls)) for name, cls in GAMES.items()}
PLAYERS = 3
MISSING = "not installed: `make test-slow` installs the [ecosystem] extra (pip install -e '.[ecosystem]')"
MISSING_RLLIB = "not installed: `make test-slow` installs the [rllib] extra (pip install -e '.[rllib]')"


def _array_infos_signature(info: dict[str, Any]) -> dict[str, Any]:
    """What must stay fixed from reset to the end: each key's kind, shape and dtype."""
    signature = {}
    for key, value in info.items():
        if isinstance(value, np.ndarray):
            signature[key] = ("array", value.shape, value.dtype)
        else:
            assert isinstance(value, (int, float)) and not isinstance(value, bool), (key, value)
            signature[key] = (type(value).__name__,)
    return signature


# ---------------------------------------------------------------------- infos="arrays"

@pytest.mark.parametrize("game", sorted(MODULES))
@pytest.mark.parametrize("observation", ["dict", "flat"])
def test_array_infos_keep_their_keys_shapes_and_dtypes_from_reset_to_the_end(game: str, observation: str) -> None:
    """``infos="arrays"``: numbers and NumPy arrays only, the same keys, shapes and dtypes at
    every step of the AEC and parallel APIs; the ids match the text infos of the same deal;
    a project agent acts on them as on the text infos (it reads the hand off the observation)."""
    from splitpoker.agents import load_agent
    from splitpoker.envs.cards import parse_cards, parse_rows

    module = MODULES[game]
    names = module.raw_env().game.type_names
    agent = load_agent("greedy", game=game, num_players=PLAYERS)
    # the AEC API, seat by seat
    env = module.env(num_players=PLAYERS, infos="arrays", observation=observation)
    text = module.env(num_players=PLAYERS, observation=observation)
    env.reset(seed=3)
    text.reset(seed=3)
    signature = {a: _array_infos_signature(env.infos[a]) for a in env.agents}
    for name in env.agent_iter():
        observation_, _, terminated, _, info = env.last()
        assert _array_infos_signature(info) == signature[name]
        if terminated:
            final = text.infos[name]
            assert info["payoff"] == final["payoff"] and info["illegal_action"] == -1
            assert info["arrangement_ids"].tolist() == [c for row in parse_rows(final["arrangement"]) for c in row]
            assert [names[t] for t in info["type_ids"]] == final["types"]
            env.step(None)
            text.step(None)
            continue
        assert info["split"] == -1 and (info["arrangement_ids"] == -1).all() and (info["type_ids"] == -1).all()
        assert info["hand_ids"].tolist() == parse_cards(text.infos[name]["hand"])
        mask = info["action_mask"] if observation == "flat" else observation_["action_mask"]
        vector = observation_ if observation == "flat" else observation_["observation"]
        action = agent.act(vector, mask, info)
        assert action == agent.act(vector, mask, text.infos[name])
        env.step(action)
        text.step(action)
    # the parallel API, and a hand ended by an illegal split
    parallel = module.parallel_env(num_players=PLAYERS, infos="arrays", observation=observation,
                                   illegal_action="penalty")
    for illegal in (False, True):
        observations, infos = parallel.reset(seed=4)
        signature = {a: _array_infos_signature(i) for a, i in infos.items()}
        masks = {a: infos[a]["action_mask"] if observation == "flat" else observations[a]["action_mask"]
                 for a in infos}
        actions = {a: int(np.flatnonzero(masks[a])[0]) for a in parallel.agents}
        if illegal:
            actions["player_1"] = int(np.flatnonzero(masks["player_1"] == 0)[0])
        _, rewards, terminations, _, infos = parallel.step(actions)
        assert all(terminations.values())
        for a, info in infos.items():
            assert _array_infos_signature(info) == signature[a]
            assert info["payoff"] == rewards[a]
            assert info["illegal_action"] == (actions[a] if illegal and a == "player_1" else -1)
            assert info["split"] == (-1 if illegal else actions[a])


def test_array_infos_is_a_checked_keyword() -> None:
    with pytest.raises(ValueError, match="infos='json' is not one of 'text', 'arrays'"):
        biji_v0.parallel_env(infos="json")


# ---------------------------------------------------------------------- TorchRL

@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(MODULES))
@pytest.mark.parametrize("api", ["aec", "parallel"])
@pytest.mark.parametrize("observation", ["dict", "flat"])
def test_torchrl_pettingzoo_wrapper_passes_check_env_specs(game: str, api: str, observation: str) -> None:
    """TorchRL's ``PettingZooWrapper`` as TorchRL documents it (``use_mask=True``; an AEC env
    gets one group per seat, a parallel one group ``player``), with ``infos="arrays"``:
    ``check_env_specs`` passes, and a rollout of random actions, which TorchRL draws inside
    the action mask (from the ``Dict`` observation, or under ``"flat"`` from the infos),
    plays whole legal hands whose rewards are the infos' payoffs."""
    pytest.importorskip("torchrl", reason=f"TorchRL {MISSING}")
    import torch
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    module = MODULES[game]
    make = module.env if api == "aec" else module.parallel_env
    env = PettingZooWrapper(env=make(num_players=PLAYERS, infos="arrays", observation=observation),
                            use_mask=True, seed=0)
    agents = [f"player_{seat}" for seat in range(PLAYERS)]
    assert env.group_map == ({a: [a] for a in agents} if api == "aec" else {"player": agents})
    check_env_specs(env, seed=0)
    rollout = env.rollout(2 * PLAYERS, break_when_any_done=False)  # two hands (AEC), or six
    done = rollout["next", "done"].squeeze(-1)
    assert int(done.sum()) == (2 if api == "aec" else 2 * PLAYERS)
    rewards, payoffs = [], []
    for group in env.group_map:
        acting = rollout[group, "mask"]
        actions, masks = rollout[group, "action"], rollout[group, "action_mask"]
        assert masks.gather(-1, actions.unsqueeze(-1)).squeeze(-1)[acting].all()  # inside the mask
        info = rollout["next", group, "info"]
        assert (info["illegal_action"] == -1).all()
        assert info["hand_ids"].shape[-1] == module.raw_env().game.hand_size
        rewards.append(rollout["next", group, "reward"].squeeze(-1)[done])
        payoffs.append(info["payoff"][done])
    assert torch.equal(torch.cat(rewards, dim=-1), torch.cat(payoffs, dim=-1))
    assert torch.allclose(torch.cat(rewards, dim=-1).sum(dim=-1), torch.zeros(()))  # every hand scored


# ---------------------------------------------------------------------- Tianshou

def _tianshou_collect(make_env: Any, hands: int) -> tuple[Any, Any, Any]:
    """``hands`` hands of Tianshou 2's ``PettingZooEnv`` around ``make_env()`` in a ``Collector``
    of masked random policies, one a seat (``MARLRandomDiscreteMaskedOffPolicyAlgorithm``
    under ``MultiAgentOffPolicyAlgorithm``): the collect's statistics, its buffer and one
    wrapped environment."""
    pytest.importorskip("tianshou", reason=f"Tianshou {MISSING}")
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    env = PettingZooEnv(make_env())
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents],
        env=env)
    envs = DummyVectorEnv([lambda: PettingZooEnv(make_env())])
    envs.seed(0)
    buffer = VectorReplayBuffer(hands * len(env.agents), 1)
    state = np.random.get_state()  # the random policy draws from NumPy's global generator
    np.random.seed(0)
    try:
        stats = Collector(algorithm, envs, buffer).collect(n_episode=hands, reset_before_collect=True)
    finally:
        np.random.set_state(state)
    return stats, buffer, env


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(MODULES))
@pytest.mark.parametrize("infos", ["text", "arrays"])
def test_tianshou_collector_plays_hands_with_masked_random_policies(game: str, infos: str) -> None:
    """Tianshou 2's ``PettingZooEnv`` over the AEC env in a ``Collector``, one masked random
    policy per seat (``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` under
    ``MultiAgentOffPolicyAlgorithm``): each hand is one step per seat, every action inside the
    mask, and each hand's returns sum to zero."""
    hands = 3
    stats, buffer, _ = _tianshou_collect(lambda: MODULES[game].env(num_players=PLAYERS, infos=infos), hands)
    assert list(stats.lens) == [PLAYERS] * hands  # no hand ended early on an illegal split
    assert np.allclose(np.asarray(stats.returns).sum(axis=-1), 0)
    batch, _ = buffer.sample(0)
    assert len(batch) == hands * PLAYERS
    assert batch.obs.mask[np.arange(len(batch)), batch.act].all()
    assert list(batch.obs.agent_id) == [f"player_{seat}" for seat in range(PLAYERS)] * hands
    if infos == "arrays":
        assert (batch.info.illegal_action == -1).all()
        final = batch.terminated  # the info of the last step is that of player_0, the next to move
        assert np.array_equal(batch.rew[final, 0], batch.info.payoff[final])


# ---------------------------------------------------------------------- RLlib

@pytest.mark.slow
@pytest.mark.ray
@pytest.mark.parametrize("game", sorted(MODULES))
@pytest.mark.parametrize("api", ["aec", "parallel"])
def test_rllib_pettingzoo_envs_pass_the_multiagent_check_and_play_hands(game: str, api: str) -> None:
    """RLlib's ``PettingZooEnv`` (AEC) and ``ParallelPettingZooEnv`` around the environments:
    RLlib's own ``check_multiagent_environments`` passes (it steps a sampled, unmasked action,
    so the parallel env is built with ``illegal_action="penalty"``, the AEC ``env()``'s
    default), and hands played through the ``MultiAgentEnv`` API with masked random actions
    return the infos' payoffs, summing to zero."""
    pytest.importorskip("ray.rllib", reason=f"RLlib (ray[rllib]) {MISSING_RLLIB}")
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    module = MODULES[game]
    if api == "aec":
        env: Any = PettingZooEnv(module.env(num_players=PLAYERS))
    else:
        env = ParallelPettingZooEnv(module.parallel_env(num_players=PLAYERS, illegal_action="penalty"))
    check_multiagent_environments(env)
    rng = np.random.default_rng(0)
    for hand in range(3):
        observations, _ = env.reset(seed=hand)
        totals: dict[str, float] = {}
        payoffs: dict[str, float] = {}
        steps = 0
        while True:
            actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()}
            observations, rewards, terminateds, truncateds, infos = env.step(actions)
            steps += 1
            for a, reward in rewards.items():
                totals[a] = totals.get(a, 0.0) + reward
            payoffs.update({a: info["payoff"] for a, info in infos.items() if "payoff" in info})
            if terminateds["__all__"] or truncateds["__all__"]:
                break
        assert steps == (PLAYERS if api == "aec" else 1)
        assert totals == payoffs and len(payoffs) == PLAYERS
        assert sum(totals.values()) == pytest.approx(0)


# ---------------------------------------------------------------------- the offered action space

#: the table of the offered-slot rollouts: the size the bench times the wrappers at
OFFERED_PLAYERS = 4


def _offered_play_is_valid(game: Any, hands: np.ndarray, offered: np.ndarray, slots: np.ndarray,
                           splits: np.ndarray) -> None:
    """Each seat's slot ``slots[i]`` holds the split it played, ``splits[i]``, in its offer
    ``offered[i]``, and that split is one of the candidates of its hand ``hands[i]``."""
    hands, offered, slots, splits = (np.asarray(a, dtype=np.int64) for a in (hands, offered, slots, splits))
    assert ((slots >= 0) & (slots < offered.shape[-1])).all()
    assert np.array_equal(np.take_along_axis(offered, slots[:, None], axis=-1)[:, 0], splits)
    assert all(game.candidate_mask(hand)[split] for hand, split in zip(hands, splits))


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(MODULES))
@pytest.mark.parametrize("api", ["aec", "parallel"])
def test_torchrl_rollout_plays_random_offered_slots(game: str, api: str) -> None:
    """TorchRL's ``PettingZooWrapper`` under ``actions="offered"`` (4 seats, the default
    offer): ``check_env_specs`` passes, and a rollout of random actions, which TorchRL draws
    inside the slot mask of the ``Dict`` observation, plays whole hands in which each seat's
    slot holds a candidate of its hand (the split the infos say it played) and the rewards,
    the infos' payoffs, sum to zero."""
    pytest.importorskip("torchrl", reason=f"TorchRL {MISSING}")
    import torch
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    module = MODULES[game]
    make = module.env if api == "aec" else module.parallel_env
    raw = make(num_players=OFFERED_PLAYERS, actions="offered", infos="arrays")
    offer = raw.action_space("player_0").n
    assert offer == raw.unwrapped.game.default_offer
    env = PettingZooWrapper(env=raw, use_mask=True, seed=0)
    check_env_specs(env, seed=0)
    hands = 3
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        rollout = env.rollout(hands * (OFFERED_PLAYERS if api == "aec" else 1), break_when_any_done=False)
    done = rollout["next", "done"].squeeze(-1)
    assert int(done.sum()) == hands
    rewards, slots, infos = [], [], []
    for group in env.group_map:
        acting, actions, masks = rollout[group, "mask"], rollout[group, "action"], rollout[group, "action_mask"]
        assert masks.shape[-1] == offer
        assert masks.gather(-1, actions.unsqueeze(-1)).squeeze(-1)[acting].all()  # inside the slot mask
        info = rollout["next", group, "info"]
        assert (info["illegal_action"] == -1).all()
        rewards.append(rollout["next", group, "reward"].squeeze(-1)[done])
        assert torch.equal(rewards[-1], info["payoff"][done])
        slots.append(actions[acting].reshape(hands, -1))  # each seat acts once a hand
        infos.append(info[done])
    reward = torch.cat(rewards, dim=-1)
    assert torch.allclose(reward.sum(dim=-1), torch.zeros(hands))  # every hand scored, zero-sum
    slot = torch.cat(slots, dim=-1).reshape(-1)
    final = {key: torch.cat([i[key] for i in infos], dim=-2 if key != "split" else -1)
             for key in ("hand_ids", "offered", "split")}
    _offered_play_is_valid(raw.unwrapped.game, final["hand_ids"].reshape(-1, final["hand_ids"].shape[-1]).numpy(),
                           final["offered"].reshape(-1, offer).numpy(), slot.numpy(),
                           final["split"].reshape(-1).numpy())


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(MODULES))
def test_tianshou_collector_plays_random_offered_slots(game: str) -> None:
    """Tianshou 2's ``PettingZooEnv`` under ``actions="offered"`` (4 seats): a ``Collector``
    of masked random policies plays whole hands, one step per seat, each slot inside the
    observation's ``mask``; the observation holds the offered splits' features; each seat's
    slot holds the split it played, a candidate of its hand; each hand's returns sum to zero."""
    hands = 3
    stats, buffer, env = _tianshou_collect(
        lambda: MODULES[game].env(num_players=OFFERED_PLAYERS, actions="offered", infos="arrays"), hands)
    assert list(stats.lens) == [OFFERED_PLAYERS] * hands  # no hand ended early on an empty slot
    assert np.allclose(np.asarray(stats.returns).sum(axis=-1), 0)
    batch, _ = buffer.sample(0)
    assert batch.obs.obs.shape == (hands * OFFERED_PLAYERS, env.observation_space["observation"].shape[0])
    assert batch.obs.mask[np.arange(len(batch)), batch.act].all()
    assert (batch.info.illegal_action == -1).all()
    # the info of a hand's last step is that of player_0, the next to move: its hand, offer and split
    final, first = batch.terminated, np.arange(0, len(batch), OFFERED_PLAYERS)
    assert np.array_equal(batch.rew[final, 0], batch.info.payoff[final])
    _offered_play_is_valid(env.env.unwrapped.game, batch.info.hand_ids[final], batch.info.offered[final],
                           batch.act[first], batch.info.split[final])


@pytest.mark.slow
@pytest.mark.ray
@pytest.mark.parametrize("game", sorted(MODULES))
@pytest.mark.parametrize("api", ["aec", "parallel"])
def test_rllib_pettingzoo_envs_play_random_offered_slots(game: str, api: str) -> None:
    """RLlib's ``PettingZooEnv`` (AEC) and ``ParallelPettingZooEnv`` under
    ``actions="offered"`` (4 seats): RLlib's multi-agent check passes, and hands of random
    slots drawn from each observation's ``action_mask`` play, in each seat's slot, the split
    the infos name, a candidate of its hand; the rewards are the payoffs and sum to zero."""
    pytest.importorskip("ray.rllib", reason=f"RLlib (ray[rllib]) {MISSING_RLLIB}")
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    module = MODULES[game]
    kwargs: dict[str, Any] = {"num_players": OFFERED_PLAYERS, "actions": "offered", "infos": "arrays"}
    if api == "aec":
        env: Any = PettingZooEnv(module.env(**kwargs))
    else:
        env = ParallelPettingZooEnv(module.parallel_env(**kwargs, illegal_action="penalty"))
    check_multiagent_environments(env)
    game_ = module.raw_env().game
    rng = np.random.default_rng(0)
    for hand in range(3):
        observations, _ = env.reset(seed=hand)
        totals: dict[str, float] = {}
        played: dict[str, int] = {}
        final: dict[str, dict[str, Any]] = {}
        while True:
            actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()}
            played.update(actions)
            observations, rewards, terminateds, truncateds, infos = env.step(actions)
            for a, reward in rewards.items():
                totals[a] = totals.get(a, 0.0) + reward
            final.update({a: info for a, info in infos.items() if info.get("split", -1) != -1})
            if terminateds["__all__"] or truncateds["__all__"]:
                break
        agents = sorted(final)
        assert len(agents) == OFFERED_PLAYERS and sorted(played) == agents
        assert totals == {a: final[a]["payoff"] for a in agents}
        assert sum(totals.values()) == pytest.approx(0)
        _offered_play_is_valid(game_, np.stack([final[a]["hand_ids"] for a in agents]),
                               np.stack([final[a]["offered"] for a in agents]), np.array([played[a] for a in agents]),
                               np.array([final[a]["split"] for a in agents]))


@pytest.mark.parametrize(("figure", "module", "extra"), [
    ("torchrl_hands_per_s", "torchrl", "ecosystem"),
    ("tianshou_hands_per_s", "tianshou", "ecosystem"),
    ("rllib_hands_per_s", "ray", "rllib"),
])
def test_bench_skips_a_wrapper_figure_whose_library_is_missing(figure: str, module: str, extra: str,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``splitpoker bench``'s wrapper figures of a library that cannot be imported are listed
    under ``skipped`` with the extra that installs it (the table says so under it), not measured."""
    import sys

    from splitpoker.train.cli import main

    for name in [m for m in sys.modules if m == module or m.startswith(f"{module}.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # importing it raises ImportError
    names = [f"{game}.{figure}" for game in sorted(MODULES)]
    assert main(["bench", "--quick", "--only", ",".join(names), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["figures"] == []
    assert sorted(s["name"] for s in report["skipped"]) == names
    assert all(f"pip install 'splitpoker[{extra}]'" in s["why"] for s in report["skipped"])
    assert main(["bench", "--quick", "--only", names[0]]) == 0
    assert f"skipped {names[0]}: " in capsys.readouterr().out
