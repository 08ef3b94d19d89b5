"""The vector environments over the table core (``splitpoker.envs.vector``) and the
learner-seat core under them (``splitpoker.envs.learner_seat``): shapes and spaces from 1 to
4,096 tables, the payoffs of the table core, SAME_STEP autoreset, seeding, opponents as
agents deciding through the tables, illegal splits, and gymnasium's vector wrappers on top."""

from __future__ import annotations

import re
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest

from splitpoker.agents import load_agent
from splitpoker.envs import learner_seat
from splitpoker.envs.games import make_game
from splitpoker.envs.learner_seat import LearnerSeats
from splitpoker.envs.table import Tables
from splitpoker.envs.vector import ArrangeVectorEnv, RandomSplits, TableBatchEnv, random_valid_splits


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
    slots, seats = env.core.dealt().slots.copy(), env.core.seats.copy()
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
    want = env.game.candidate_masks(env.core.dealt().slots[np.arange(4), env.core.seats])
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


# --------------------------------------------------------------------------- the learner-seat core
class Counting:
    """An opponent that plays each seat's first playable split and records its calls."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: list[list[tuple[int, int]]] = []

    def act_batch(self, views: Any) -> list[int]:
        self.calls.append([(view.table, view.seat) for view in views])
        return [int(view.allowed[0]) for view in views]


@pytest.mark.parametrize("mask", ["valid", "undominated"])
def test_the_core_reads_the_learners_masks_and_observations_from_the_tables(mask: str) -> None:
    game = make_game("biji")
    core = LearnerSeats(game, num_tables=7, num_players=3, mask=mask)
    with pytest.raises(ValueError, match="call reset"):
        core.dealt()
    for hand in range(2):
        core.deal(np.random.default_rng(hand), [[Counting("a"), Counting("b")]] * 7)
        assert core.seats.tolist() == [(hand + i) % 3 for i in range(7)] and core.hands == hand + 1
        learners = list(zip(range(7), core.seats.tolist()))
        fresh = Tables(game, core.dealt().slots, mask).views_at(learners)  # computed anew, seat by seat
        assert np.array_equal(core.masks, fresh.masks) and np.array_equal(core.observations, fresh.observations)
        assert np.array_equal(core.hand_ids(), fresh.slots) and core.hand_ids().dtype == np.int64
    fixed = LearnerSeats(game, num_tables=4, num_players=3, seat=2)
    fixed.deal(np.random.default_rng(0), [[]] * 4)
    assert fixed.seats.tolist() == [2, 2, 2, 2]


def test_masks_and_observations_are_prepared_in_chunks_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    game = make_game("thirteen")
    whole = LearnerSeats(game, num_tables=5, num_players=4, mask="undominated")
    whole.deal(np.random.default_rng(3), [[]] * 5)
    monkeypatch.setattr(learner_seat, "MASK_CHUNK", 2)
    chunked = LearnerSeats(game, num_tables=5, num_players=4, mask="undominated")
    chunked.deal(np.random.default_rng(3), [[]] * 5)
    assert np.array_equal(whole.masks, chunked.masks)
    assert np.array_equal(whole.observations, chunked.observations)


def test_opponents_decide_through_the_tables_each_agent_once() -> None:
    """Each distinct opponent decides all its seats of every table in one call, and its
    choices are checked by the table core, naming it."""
    game = make_game("biji")
    first, second = Counting("first"), Counting("second")
    core = LearnerSeats(game, num_tables=4, num_players=4)
    core.deal(np.random.default_rng(0), [[first, second, first]] * 2 + [[second] * 3] * 2)
    learner = np.array([int(np.flatnonzero(m)[-1]) for m in core.masks])
    payoffs = core.play(learner)
    assert len(first.calls) == len(second.calls) == 1
    assert len(first.calls[0]) == 4 and len(second.calls[0]) == 8
    assert not {pair for call in first.calls + second.calls for pair in call} & set(enumerate(core.seats.tolist()))
    actions = np.zeros((4, 4), dtype=np.int64)
    core.decide(actions)
    actions[np.arange(4), core.seats] = learner
    assert np.array_equal(payoffs, Tables(game, core.dealt().slots).score(actions).payoffs)

    class Wrong(Counting):
        def act_batch(self, views: Any) -> list[int]:
            return [int(np.flatnonzero(~view.mask)[0]) for view in views]

    core.deal(np.random.default_rng(1), [[Wrong("wrong")] * 3] * 4)
    with pytest.raises(ValueError, match="agent 'wrong' chose"):
        core.play(np.array([int(np.flatnonzero(m)[0]) for m in core.masks]))


def test_an_illegal_learner_split_leaves_its_table_unscored() -> None:
    game = make_game("biji")
    core = LearnerSeats(game, num_tables=3, num_players=4)
    core.deal(np.random.default_rng(0), [[Counting("c")] * 3] * 3)
    learner = np.array([int(np.flatnonzero(m)[0]) for m in core.masks])
    learner[1] = int(np.flatnonzero(~core.masks[1])[0])
    legal = core.legal(learner)
    assert legal.tolist() == [True, False, True]
    assert core.legal(np.array([-1, game.n_actions, learner[2]])).tolist() == [False, False, True]
    payoffs = core.play(learner, legal)
    assert not payoffs[1].any() and payoffs[[0, 2]].any() and np.allclose(payoffs.sum(axis=1), 0)


def test_the_vector_env_is_the_core_with_gymnasium_around_it() -> None:
    """ArrangeVectorEnv deals, seats and scores as the core does from the same generator."""
    game = make_game("thirteen")
    greedy = load_agent("greedy", game, 3)
    env = ArrangeVectorEnv(game, num_envs=4, num_players=3, opponents=greedy)
    obs, infos = env.reset(seed=2)
    core = LearnerSeats(game, num_tables=4, num_players=3)
    rng = np.random.default_rng([2, 11])
    core.deal(rng, [[greedy] * 2] * 4)
    assert np.array_equal(obs["observation"], core.observations) and np.array_equal(infos["hand_ids"], core.hand_ids())
    learner = random_actions(env)
    _, rewards, _, _, infos = env.step(learner)
    assert np.array_equal(infos["payoffs"], core.play(learner))
    assert np.array_equal(rewards, infos["payoffs"][np.arange(4), core.seats].astype(np.float32))


def test_the_random_opponents_draw_from_the_environments_generator() -> None:
    game = make_game("biji")
    env = ArrangeVectorEnv(game, num_envs=3, num_players=4, mask="undominated")
    env.reset(seed=0)
    (random,) = set(env._others[0])
    assert isinstance(random, RandomSplits) and random.rng() is env.rng
    views = env.core.dealt().views()
    state = env.rng.bit_generator.state
    chosen = random.act_batch(views)
    env.rng.bit_generator.state = state
    assert np.array_equal(chosen, random_valid_splits(game, views.slots, env.rng, views.masks))
    assert views.masks[np.arange(len(views)), chosen].all()


def test_seat_masks_is_deprecated() -> None:
    from splitpoker.envs import vector

    slots = Tables(make_game("biji"), np.array([[[2, 3, 4, 5, 6, 7, 8, 9, 10], [15, 16, 17, 18, 19, 20, 21, 22, 23]]]))
    with pytest.warns(DeprecationWarning, match="seat_masks is deprecated"):
        masks = vector.seat_masks(slots.game, slots.slots[0], "valid")
    assert np.array_equal(masks, slots.views(0).masks)
