"""The vector environments over the table core (``splitpoker.envs.vector``): shapes and
spaces from 1 to 4,096 tables, the payoffs of the table core, SAME_STEP autoreset, seeding,
opponents as agents, illegal splits, and gymnasium's vector wrappers on top."""

from __future__ import annotations

import re
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest

from splitpoker.agents import load_agent
from splitpoker.envs.games import make_game
from splitpoker.envs.table import Tables
from splitpoker.envs.vector import ArrangeVectorEnv, TableBatchEnv, random_valid_splits


def random_actions(env: ArrangeVectorEnv, seed: int = 1) -> np.ndarray:
    return random_valid_splits(env.game, None, np.random.default_rng(seed), masks=env.action_masks())


@pytest.mark.parametrize("name, batches", [("biji", (1, 7, 4096)), ("thirteen", (1, 5, 64))])
def test_shapes_and_spaces(name: str, batches: tuple[int, ...]) -> None:
    for batch in batches:
        for observation in ("dict", "flat"):
            env = ArrangeVectorEnv(name, num_envs=batch, num_players=4, observation=observation)
            obs, infos = env.reset(seed=batch)
            assert env.observation_space.contains(obs)
            obs, rewards, terminations, truncations, infos = env.step(random_actions(env))
            assert env.observation_space.contains(obs)
            assert rewards.shape == (batch,) and rewards.dtype == np.float32
            assert terminations.all() and not truncations.any()
            masks = infos["action_mask"] if observation == "flat" else obs["action_mask"]
            assert np.array_equal(masks.astype(bool), env.action_masks())
            assert masks.shape == (batch, env.game.n_actions)


def test_rewards_are_the_table_core_payoffs() -> None:
    """The step scores the very hands it dealt, with the learner's and the opponents' splits."""
    greedy = load_agent("greedy", make_game("biji"), 4)
    env = ArrangeVectorEnv("biji", num_envs=32, num_players=4, opponents=greedy)
    env.reset(seed=3)
    assert env._tables is not None
    slots, seats = env._tables.slots.copy(), env._seats.copy()
    learner = random_actions(env)
    _, rewards, _, _, infos = env.step(learner)
    tables = Tables(env.game, slots)
    actions = np.stack([greedy.act_batch(tables.views(b)) for b in range(32)]).astype(np.int64)
    actions[np.arange(32), seats] = learner
    payoffs = tables.score(actions).payoffs
    assert np.array_equal(infos["payoffs"], payoffs)
    assert np.array_equal(rewards, payoffs[np.arange(32), seats].astype(np.float32))
    assert np.array_equal(infos["played_seat"], seats)


def test_autoreset_in_the_same_step_and_the_seat_rotation() -> None:
    env = ArrangeVectorEnv("thirteen", num_envs=4, num_players=3)
    first, infos = env.reset(seed=0)
    assert infos["seat"].tolist() == [0, 1, 2, 0]
    second, _, _, _, infos = env.step(random_actions(env))
    assert infos["_final_obs"].all()
    for b in range(4):
        assert np.array_equal(infos["final_obs"][b]["observation"], first["observation"][b])
    assert infos["seat"].tolist() == [1, 2, 0, 1]
    assert not np.array_equal(second["observation"], first["observation"])
    fixed = ArrangeVectorEnv("thirteen", num_envs=4, num_players=3, seat=2)
    assert fixed.reset(seed=0)[1]["seat"].tolist() == [2, 2, 2, 2]


@pytest.mark.parametrize("opponents", [None, "heuristic"])
def test_a_seed_fixes_deals_and_play(opponents: str | None) -> None:
    def run() -> list[Any]:
        agent = None if opponents is None else load_agent(opponents, make_game("biji"), 4)
        env = ArrangeVectorEnv("biji", num_envs=6, num_players=4, opponents=agent)
        out = [env.reset(seed=11)[0]["observation"]]
        for step in range(3):
            obs, rewards, _, _, infos = env.step(random_actions(env, step))
            out += [obs["observation"], rewards, infos["payoffs"]]
        return out

    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    env = ArrangeVectorEnv("biji", num_envs=6, num_players=4)
    assert not np.array_equal(env.reset(seed=12)[0]["observation"], a[0])


def test_one_agent_per_other_seat() -> None:
    game = make_game("biji")
    agents = [load_agent("greedy", game, 3), load_agent("random", game, 3, seed=0)]
    env = ArrangeVectorEnv(game, num_envs=5, num_players=3, opponents=agents)
    env.reset(seed=0)
    _, rewards, _, _, infos = env.step(random_actions(env))
    assert np.allclose(infos["payoffs"].sum(axis=1), 0)
    with pytest.raises(ValueError, match="3 agents for the 2 other seats"):
        ArrangeVectorEnv(game, num_envs=5, num_players=3, opponents=agents + agents[:1])
    with pytest.raises(ValueError, match="not an agent"):
        ArrangeVectorEnv(game, num_envs=5, num_players=3, opponents="greedy")  # type: ignore[arg-type]


def test_illegal_splits_raise_or_end_the_hand() -> None:
    env = ArrangeVectorEnv("biji", num_envs=3, num_players=4)
    env.reset(seed=0)
    bad = random_actions(env)
    bad[1] = int(np.flatnonzero(~env.action_masks()[1])[0])
    with pytest.raises(ValueError, match=r"not in the action mask .*env 1"):
        env.step(bad)
    penalty = ArrangeVectorEnv("biji", num_envs=3, num_players=4, illegal_action="penalty", illegal_reward=-5.0)
    penalty.reset(seed=0)
    bad[1] = int(np.flatnonzero(~penalty.action_masks()[1])[0])
    _, rewards, terminations, _, infos = penalty.step(bad)
    assert rewards[1] == -5.0 and terminations.all() and infos["illegal"].tolist() == [False, True, False]
    assert not infos["payoffs"][1].any() and np.allclose(infos["payoffs"].sum(axis=1), 0)
    with pytest.raises(ValueError, match="integer split indices"):
        penalty.step(bad.astype(float))


def test_bad_arguments_are_named() -> None:
    for kwargs, message in (({"num_envs": 0}, "num_envs=0"), ({"num_envs": True}, "num_envs=True"),
                            ({"seat": 4}, "seat=4"), ({"observation": "grid"}, "observation='grid'"),
                            ({"mask": "all"}, "mask='all'"), ({"wheel": "top"}, "wheel")):
        with pytest.raises(ValueError, match=message):
            ArrangeVectorEnv("thirteen", **kwargs)
    with pytest.raises(ValueError, match="call reset"):
        ArrangeVectorEnv("biji").step(np.zeros(1, dtype=np.int64))


def test_undominated_masks() -> None:
    env = ArrangeVectorEnv("thirteen", num_envs=4, num_players=4, mask="undominated")
    obs, _ = env.reset(seed=0)
    assert env._tables is not None
    want = env.game.candidate_masks(env._tables.slots[np.arange(4), env._seats])
    assert np.array_equal(obs["action_mask"].astype(bool), want)
    assert (want.sum(axis=1) < 2000).all()
    env.step(random_actions(env))


def test_random_splits_are_valid_and_spread() -> None:
    game = make_game("biji")
    hand = np.sort(np.random.default_rng(0).permutation(game.deck())[:9])
    draws = random_valid_splits(game, np.repeat(hand[None], 6000, axis=0), np.random.default_rng(1))
    valid = np.flatnonzero(game.valid_mask(hand))
    assert np.isin(draws, valid).all()
    assert set(draws.tolist()) == set(valid.tolist())  # every valid split drawn (about 20 times each)


STATISTICS_WARNING = (rf"gymnasium {re.escape(gymnasium.__version__)}'s vector RecordEpisodeStatistics ignores "
                      r"ArrangeVectorEnv's SAME_STEP autoreset: .*\(pip install 'gymnasium>=1\.4'.* infos\['payoff'\]")


def test_gymnasium_vector_wrappers(monkeypatch: pytest.MonkeyPatch) -> None:
    """gymnasium's RecordEpisodeStatistics reads SAME_STEP autoreset from the metadata: from
    1.4 on every hand is an episode of length 1 whose return is the step's reward, and the
    environment says nothing. Releases before 1.4 record each table's first hand right and
    every later one with return 0 and length 0: the environment warns once, naming the
    release and what to do."""
    from splitpoker.envs import vector

    monkeypatch.setattr(vector, "_statistics_warned", False, raising=False)
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(ArrangeVectorEnv("biji", num_envs=4, num_players=2))
    fixed = tuple(int(part) for part in re.findall(r"\d+", gymnasium.__version__)[:2]) >= (1, 4)
    if fixed:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            env.reset(seed=0)
            for step in range(3):
                _, rewards, _, _, infos = env.step(random_actions(env.unwrapped, step))  # type: ignore[arg-type]
                assert infos["episode"]["l"].tolist() == [1, 1, 1, 1]
                assert np.allclose(infos["episode"]["r"], rewards)
        assert vector.RECORDS_SAME_STEP
        return
    with pytest.warns(UserWarning, match=STATISTICS_WARNING) as caught:
        env.reset(seed=0)
        for step in range(2):
            _, rewards, _, _, infos = env.step(random_actions(env.unwrapped, step))  # type: ignore[arg-type]
            recorded = (1, rewards) if step == 0 else (0, np.zeros(4))
            assert infos["episode"]["l"].tolist() == [recorded[0]] * 4
            assert np.allclose(infos["episode"]["r"], recorded[1])
    assert sum("RecordEpisodeStatistics" in str(w.message) for w in caught) == 1
    assert not vector.RECORDS_SAME_STEP


def test_a_statistics_wrapper_that_ignores_same_step_is_warned_of_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """As under gymnasium before 1.4: an environment no such wrapper drives says nothing; one
    that it drives, directly or through other wrappers, warns once a process, at the line
    that called the wrapper."""
    from splitpoker.envs import vector

    monkeypatch.setattr(vector, "RECORDS_SAME_STEP", False)
    monkeypatch.setattr(vector, "_statistics_warned", False)
    bare = ArrangeVectorEnv("biji", num_envs=2, num_players=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bare.reset(seed=0)
        bare.step(random_actions(bare))
        gymnasium.vector.VectorWrapper(bare).reset(seed=1)
    record = gymnasium.wrappers.vector.RecordEpisodeStatistics
    with pytest.warns(UserWarning, match=STATISTICS_WARNING) as caught:
        wrapped = record(gymnasium.vector.VectorWrapper(ArrangeVectorEnv("biji", num_envs=2, num_players=4)))
        wrapped.reset(seed=0)
        wrapped.step(random_actions(wrapped.unwrapped))  # type: ignore[arg-type]
        record(ArrangeVectorEnv("biji", num_envs=2, num_players=4)).reset(seed=1)
    (warning,) = [w for w in caught if "RecordEpisodeStatistics" in str(w.message)]
    assert warning.filename == __file__
    monkeypatch.setattr(vector, "_statistics_warned", False)
    stepped = ArrangeVectorEnv("biji", num_envs=2, num_players=4)
    stepped.reset(seed=2)  # reset directly, then stepped through the wrapper
    with pytest.warns(UserWarning, match=STATISTICS_WARNING):
        record(stepped).step(random_actions(stepped))


def test_every_seat_in_one_batch() -> None:
    env = TableBatchEnv("thirteen", num_envs=3, num_players=4, preset="shisanshui")
    observations, masks, infos = env.reset(seed=5)
    assert observations.shape[:2] == (3, 4) and masks.shape == (3, 4, 72072)
    slots = infos["slots"]
    rng = np.random.default_rng(0)
    actions = random_valid_splits(env.game, slots.reshape(-1, 13), rng, masks=masks.reshape(-1, 72072))
    actions = actions.reshape(3, 4)
    bad = actions.copy()
    bad[2, 1] = int(np.flatnonzero(~masks[2, 1])[0])
    with pytest.raises(ValueError, match=r"seat 1 \(table 2\)"):
        env.step(bad)
    _, _, rewards, terminations, infos = env.step(actions)  # the same hands: nothing changed
    want = Tables(env.game, slots).score(actions).payoffs
    assert np.array_equal(rewards, want.astype(np.float32)) and terminations.all()
    assert np.array_equal(infos["final_slots"], slots) and not np.array_equal(infos["slots"], slots)
    assert infos["rows_won"].shape == (3, 4, 3)
