"""The environments under ``actions="offered"``: PettingZoo's API and seed tests on both games
(with an offer small enough that hands have more candidates than slots), a hand played by
slots scoring as the same splits played by index, the observation's layout, the vector
environments and the learner-seat core matching the AEC environment on the same hands,
self-play with sb3-contrib's MaskablePPO, and every bad setting as one clear ValueError."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import splitpoker.envs as envs
from splitpoker.envs.cards import format_cards
from splitpoker.envs.games import GAMES, make_game
from splitpoker.envs.observation import encode_observation, observation_size
from splitpoker.envs.offered import offered_width, split_observation
from splitpoker.envs.registration import env_name
from splitpoker.envs.table_seats import SeatViews
from splitpoker.envs.vector import ArrangeVectorEnv, TableBatchEnv

MODULES = {name: getattr(envs, env_name(cls)) for name, cls in GAMES.items()}
#: a small offer for each game: Thirteen's hands have a median of 76 candidates, Biji's 4
OFFER = {"thirteen": 16, "biji": 4}
#: (game, num_players) of the tests
TABLES = [("thirteen", 4), ("biji", 4), ("biji", 2)]


def cases() -> list[Any]:
    return [pytest.param(game, players, id=f"{game}-{players}") for game, players in TABLES]


def random_slots(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A filled slot drawn uniformly from each row of ``masks`` (..., K)."""
    flat = masks.reshape(-1, masks.shape[-1]).astype(bool)
    return np.array([rng.choice(np.flatnonzero(row)) for row in flat], dtype=np.int64).reshape(masks.shape[:-1])


def first_offered(offer: int) -> Any:
    """An opponent that plays the split in the first slot of its offer (slot 0 of ``offer``)."""

    class FirstOffered:
        name = "first-offered"

        def act_batch(self, views: SeatViews) -> np.ndarray:
            return views.offered(offer).splits[:, 0]

        def seed(self, seed: int | None) -> None:
            pass

    return FirstOffered()


def quiet(test: Any) -> Any:
    """``test`` with warnings silenced (PettingZoo's advice on ``Dict`` observation spaces)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return test(*args, **kwargs)

    return run


# ---------------------------------------------------------------------- PettingZoo's tests

@pytest.mark.parametrize(("game", "players"), cases())
@quiet
def test_pettingzoo_tests_pass_over_the_offered_slots(game: str, players: int) -> None:
    module, offer = MODULES[game], OFFER[game]
    api_test(module.env(num_players=players, actions="offered", offer=offer), num_cycles=5)
    seed_test(functools.partial(module.env, num_players=players, actions="offered", offer=offer), num_cycles=3)
    parallel_api_test(module.parallel_env(num_players=players, actions="offered", offer=offer), num_cycles=5)
    parallel_seed_test(functools.partial(module.parallel_env, num_players=players, actions="offered", offer=offer,
                                         illegal_action="penalty"))
    api_test(module.env(num_players=players, actions="offered", offer=offer, observation="flat", infos="arrays"),
             num_cycles=3)


def test_the_spaces_and_the_layout_of_an_observation(rng: np.random.Generator) -> None:
    game_name, offer = "thirteen", OFFER["thirteen"]
    env = MODULES[game_name].raw_env(num_players=4, actions="offered", offer=offer)
    game, width = env.game, offered_width(env.game)
    size = observation_size(game) + offer * width
    assert env.mask_kind == "undominated" and env.action_space("player_0").n == offer
    assert env.observation_space("player_0")["observation"].shape == (size,)
    assert env.observation_space("player_0")["action_mask"].shape == (offer,)
    truncated = 0
    for seed in range(6):
        env.reset(seed=seed)
        offered = env.unwrapped._tables.offered_at([(0, s) for s in range(4)], offer)
        for seat, agent in enumerate(env.agents):
            observation = env.observe(agent)
            assert env.observation_space(agent).contains(observation)
            vector, features = split_observation(observation["observation"], game, offer)
            hand = env._tables.slots[0, seat]
            assert np.array_equal(vector, encode_observation(game, hand, seat, 4))
            assert np.array_equal(features, offered.features[seat])
            assert np.array_equal(observation["action_mask"], offered.mask[seat].astype(np.int8))
            assert env.infos[agent]["offered"] == offered.splits[seat].tolist()
            candidates = game.candidate_lists(hand[None])[0]
            chosen = offered.splits[seat][offered.mask[seat]]
            assert set(chosen.tolist()) <= set(candidates.tolist())
            assert len(chosen) == min(offer, len(candidates))
            truncated += len(candidates) > offer
    assert truncated  # some hands have more candidates than slots


@pytest.mark.parametrize(("game", "players"), cases())
def test_slots_score_as_the_same_splits_played_by_index(game: str, players: int, rng: np.random.Generator) -> None:
    module, offer = MODULES[game], OFFER[game]
    for infos in ("text", "arrays"):
        for seed in range(3):
            slotted = module.env(num_players=players, actions="offered", offer=offer, infos=infos)
            indexed = module.env(num_players=players, mask="undominated", infos=infos)
            slotted.reset(seed=seed)
            indexed.reset(seed=seed)
            offered = {agent: np.asarray(slotted.infos[agent]["offered"]) for agent in slotted.agents}
            slots = {agent: int(random_slots(slotted.observe(agent)["action_mask"], rng)) for agent in slotted.agents}
            for agent in slotted.agents:
                slotted.step(slots[agent])
                indexed.step(int(offered[agent][slots[agent]]))
            for agent in slotted.agents:
                assert slotted.rewards[agent] == indexed.rewards[agent]
                assert slotted.infos[agent]["payoff"] == indexed.infos[agent]["payoff"]
                if infos == "arrays":
                    assert slotted.infos[agent]["split"] == offered[agent][slots[agent]]
                    assert slotted.infos[agent]["offered"].dtype == np.int64
                    assert slotted.infos[agent]["offered"].shape == (offer,)
                else:
                    assert slotted.infos[agent]["arrangement"] == indexed.infos[agent]["arrangement"]


def test_the_parallel_env_plays_slots(rng: np.random.Generator) -> None:
    env = MODULES["biji"].parallel_env(num_players=3, actions="offered", offer=6, observation="flat")
    observations, infos = env.reset(seed=4)
    assert all(obs.shape == (observation_size(env.unwrapped.game) + 6 * offered_width(env.unwrapped.game),)
               for obs in observations.values())
    slots = {agent: int(random_slots(infos[agent]["action_mask"], rng)) for agent in env.agents}
    _, rewards, terminations, _, infos = env.step(slots)
    assert all(terminations.values()) and abs(sum(rewards.values())) < 1e-9
    assert {agent: infos[agent]["payoff"] for agent in rewards} == rewards


# ---------------------------------------------------------------------- illegal slots

def empty_slot(mask: np.ndarray) -> int | None:
    empty = np.flatnonzero(np.asarray(mask) == 0)
    return int(empty[0]) if len(empty) else None


def dealt_with_an_empty_slot(make: Any, **kwargs: Any) -> tuple[Any, int]:
    """An environment made by ``make`` dealt a hand whose first seat has an empty slot, and that slot."""
    env = make(num_players=4, actions="offered", offer=8, **kwargs)
    for seed in range(50):
        env.reset(seed=seed)
        slot = empty_slot(env.observe("player_0")["action_mask"])
        if slot is not None:
            return env, slot
    raise AssertionError("no hand with an empty slot in 50 deals")


def test_an_empty_slot_raises_or_ends_the_hand() -> None:
    module = MODULES["biji"]
    env, slot = dealt_with_an_empty_slot(module.raw_env)
    hand = format_cards(env._tables.slots[0, 0])
    filled = int(env.observe("player_0")["action_mask"].sum())
    with pytest.raises(ValueError, match=rf"^slot {slot} of player_0 is empty: its hand {hand} is offered "
                                         rf"{filled} splits \(slots 0..{filled - 1}\)$"):
        env.step(slot)
    for kind in ("text", "arrays"):
        env, slot = dealt_with_an_empty_slot(module.raw_env, illegal_action="penalty", illegal_reward=-3.0, infos=kind)
        env.step(slot)
        assert env.rewards["player_0"] == -3.0 and all(env.terminations.values())
        assert env.infos["player_0"]["illegal_action"] == slot
    wrapped, slot = dealt_with_an_empty_slot(module.env)  # PettingZoo's wrapper: reward -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(slot)
    assert wrapped.rewards["player_0"] == -1 and all(wrapped.terminations.values())


def test_a_slot_out_of_range_always_raises_naming_the_agent_and_the_hand() -> None:
    for illegal in ("raise", "penalty"):
        env = MODULES["thirteen"].env(num_players=2, actions="offered", offer=16, illegal_action=illegal)
        env.reset(seed=1)
        hand = format_cards(env.unwrapped._tables.slots[0, 0])
        for slot in (16, -1):
            with pytest.raises(ValueError, match=rf"^slot {slot} of player_0 is out of range 0..15 \(hand {hand}\)$"):
                env.step(slot)
        with pytest.raises(ValueError, match=r"^action 1.5 of player_0 is not an integer slot"):
            env.step(1.5)
    parallel = MODULES["thirteen"].parallel_env(num_players=2, actions="offered", offer=16, illegal_action="penalty")
    parallel.reset(seed=1)
    with pytest.raises(ValueError, match=r"^slot 99 of player_1 is out of range 0..15"):
        parallel.step({"player_0": 0, "player_1": 99})
    assert parallel.agents == ["player_0", "player_1"]  # nothing played


# ---------------------------------------------------------------------- vector environments

def aec_at(game: str, hands: np.ndarray, offer: int) -> Any:
    """A raw AEC env under ``actions="offered"`` dealt ``hands`` (players, hand size)."""
    env = MODULES[game].raw_env(num_players=len(hands), actions="offered", offer=offer, infos="arrays")
    env.reset(options={"hands": [hand.tolist() for hand in hands]})
    return env


@pytest.mark.parametrize("game", ["thirteen", "biji"])
def test_the_vector_env_matches_the_aec_env_on_the_same_hands(game: str, rng: np.random.Generator) -> None:
    offer, batch = OFFER[game], 6
    env = ArrangeVectorEnv(game, num_envs=batch, num_players=4, opponents=first_offered(offer), actions="offered",
                           offer=offer)
    assert env.single_action_space.n == offer
    obs, infos = env.reset(seed=3)
    assert env.observation_space.contains(obs) and env.action_masks().shape == (batch, offer)
    assert infos["offered"].shape == (batch, offer) and infos["offered"].dtype == np.int64
    slots_dealt, seats = env.core.dealt().slots.copy(), env.core.seats.copy()
    learner = random_slots(env.action_masks(), rng)
    _, rewards, _, _, step_infos = env.step(learner)
    for b in range(batch):
        aec = aec_at(game, slots_dealt[b], offer)
        agent = f"player_{seats[b]}"
        observation = aec.observe(agent)
        assert np.array_equal(observation["observation"], obs["observation"][b])
        assert np.array_equal(observation["action_mask"], obs["action_mask"][b])
        assert np.array_equal(aec.infos[agent]["offered"], infos["offered"][b])
        for other in aec.agents:
            aec.step(int(learner[b]) if other == agent else 0)
        assert np.array_equal([aec.rewards[a] for a in aec.possible_agents], step_infos["payoffs"][b])
        assert rewards[b] == np.float32(aec.rewards[agent])


def test_the_vector_env_under_offered_refuses_bad_slots_or_penalises_them(rng: np.random.Generator) -> None:
    env = ArrangeVectorEnv("biji", num_envs=40, num_players=4, actions="offered", offer=8, observation="flat")
    _, infos = env.reset(seed=0)
    masks = env.action_masks()
    assert np.array_equal(infos["action_mask"].astype(bool), masks)
    row = int(np.flatnonzero(~masks.all(axis=1))[0])
    slots = random_slots(masks, rng)
    slots[row] = int(np.flatnonzero(~masks[row])[0])
    with pytest.raises(ValueError, match=rf"^slot {slots[row]} of the learner \(env {row}, seat \d\) is empty"):
        env.step(slots)
    penalty = ArrangeVectorEnv("biji", num_envs=40, num_players=4, actions="offered", offer=8,
                               illegal_action="penalty", illegal_reward=-4.0)
    penalty.reset(seed=0)
    _, rewards, _, _, step_infos = penalty.step(slots)
    assert rewards[row] == -4.0 and step_infos["illegal"][row] and step_infos["illegal"].sum() == 1
    penalty.reset(seed=0)
    slots[row] = 8
    with pytest.raises(ValueError, match=rf"^slot 8 of the learner \(env {row}, seat \d\) is out of range 0..7"):
        penalty.step(slots)
    with pytest.raises(ValueError, match="integer slots"):
        penalty.step(slots.astype(float))


@pytest.mark.parametrize("game", ["thirteen", "biji"])
def test_the_table_batch_env_matches_the_aec_env_on_the_same_hands(game: str, rng: np.random.Generator) -> None:
    offer, batch, players = OFFER[game], 3, 3
    env = TableBatchEnv(game, num_envs=batch, num_players=players, actions="offered", offer=offer)
    observations, masks, infos = env.reset(seed=5)
    width = observation_size(env.game) + offer * offered_width(env.game)
    assert observations.shape == (batch, players, width) and masks.shape == (batch, players, offer)
    assert infos["offered"].shape == (batch, players, offer)
    slots = random_slots(masks, rng)
    dealt = infos["slots"]
    _, _, rewards, _, step_infos = env.step(slots)
    assert step_infos["offered"].shape == (batch, players, offer)
    for b in range(batch):
        aec = aec_at(game, dealt[b], offer)
        for seat, agent in enumerate(aec.possible_agents):
            observation = aec.observe(agent)
            assert np.array_equal(observation["observation"], observations[b, seat])
            assert np.array_equal(observation["action_mask"].astype(bool), masks[b, seat])
            assert np.array_equal(aec.infos[agent]["offered"], infos["offered"][b, seat])
        for seat in range(players):
            aec.step(int(slots[b, seat]))
        assert np.allclose([aec.rewards[a] for a in aec.possible_agents], rewards[b])
    env.reset(seed=5)
    bad = random_slots(env._masks, rng)
    bad[1, 2] = offer
    with pytest.raises(ValueError, match=rf"^slot {offer} of seat 2 \(table 1\) is out of range 0..{offer - 1}"):
        env.step(bad)


def test_the_learner_seat_core_plays_slots_as_the_splits_in_them(rng: np.random.Generator) -> None:
    from splitpoker.envs.learner_seat import LearnerSeats

    game = make_game("biji")
    core = LearnerSeats(game, num_tables=5, num_players=4, actions="offered", offer=4)
    opponents = first_offered(4)
    core.deal(np.random.default_rng(0), [[opponents] * 3] * 5)
    assert core.masks.shape == (5, 4)
    assert core.observations.shape == (5, observation_size(game) + 4 * offered_width(game))
    slots = random_slots(core.masks, rng)
    assert core.legal(slots).all() and not core.legal(np.full(5, 4)).any()
    tables, seats = core.dealt(), core.seats
    splits = core.offered.splits[np.arange(5), slots]  # type: ignore[union-attr]
    payoffs = core.play(slots)
    actions = np.stack([views.offered(4).splits[:, 0] for views in (tables.views(b) for b in range(5))])
    actions[np.arange(5), seats] = splits
    assert np.array_equal(payoffs, tables.score(actions).payoffs)


# ---------------------------------------------------------------------- self-play

def test_selfplay_env_under_offered_trains_with_maskable_ppo() -> None:
    from gymnasium.utils.env_checker import check_env
    from sb3_contrib import MaskablePPO

    from splitpoker.train.selfplay import SelfPlayEnv

    env = SelfPlayEnv("biji", 3, opponents="greedy", actions="offered", offer=8, illegal_action="penalty")
    width = observation_size(env.game) + 8 * offered_width(env.game)
    assert env.observation_space.shape == (width,) and env.action_space.n == 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=2)
    assert env.action_masks().shape == (8,) and len(info["offered"]) == 8
    slot = int(np.flatnonzero(env.action_masks())[-1])
    _, reward, terminated, _, step_info = env.step(slot)
    assert terminated and step_info["payoff"] == reward
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=64)
    assert model.num_timesteps == 64


def test_selfplay_vec_env_under_offered() -> None:
    from splitpoker.train.config import load_config_dict
    from splitpoker.train.selfplay import OpponentPool, SelfPlayVecEnv

    game = make_game("thirteen")
    config = load_config_dict({"game": "thirteen", "total_timesteps": 1})
    env = SelfPlayVecEnv(game, 4, OpponentPool(game, 4, {}, config.selfplay), 3, actions="offered", offer=16)
    env.seed(0)
    obs = env.reset()
    assert obs.shape == (3, observation_size(game) + 16 * offered_width(game)) == (3, env.observation_space.shape[0])
    masks = np.stack(env.env_method("action_masks"))
    assert masks.shape == (3, 16) and env.action_space.n == 16
    env.step(np.zeros(3, dtype=np.int64))
    bad = np.zeros(3, dtype=np.int64)
    bad[2] = 16
    with pytest.raises(ValueError, match=r"^slot 16 of the learner \(env 2\) is out of range 0..15"):
        env.step(bad)


@pytest.mark.parametrize("actions", ["index", "offered"])
def test_the_selfplay_envs_take_integer_actions_and_refuse_others_naming_them(actions: str) -> None:
    from stable_baselines3.common.vec_env import DummyVecEnv

    from splitpoker.train.config import load_config_dict
    from splitpoker.train.selfplay import OpponentPool, SelfPlayEnv, SelfPlayVecEnv

    offer = 4 if actions == "offered" else None
    noun = "slot" if actions == "offered" else "split index"
    env = SelfPlayEnv("biji", 4, opponents="greedy", actions=actions, offer=offer)
    env.reset(seed=0)
    slot = int(np.flatnonzero(env.action_masks())[0])
    for bad in (slot + 0.5, str(slot), True, np.float32(slot), np.array([slot]), [slot], None, 2**70):
        with pytest.raises(ValueError, match=rf"^action .* (is not an integer {noun}|is out of range)$") as caught:
            env.step(bad)
        assert "\n" not in str(caught.value)
    for good in (slot, np.int64(slot), np.int32(slot), np.uint8(slot), np.array(slot)):
        env.reset(seed=0)
        assert env.step(good)[2]
    # what SB3 hands the single env: DummyVecEnv indexes its int64 batch (numpy integer scalars)
    wrapped = DummyVecEnv([lambda: SelfPlayEnv("biji", 4, opponents="greedy", actions=actions, offer=offer)] * 2)
    wrapped.reset()
    masks = np.stack(wrapped.env_method("action_masks"))
    wrapped.step(masks.argmax(axis=1).astype(np.int64))

    game = make_game("biji")
    config = load_config_dict({"game": "biji", "total_timesteps": 1})
    vec = SelfPlayVecEnv(game, 4, OpponentPool(game, 4, {}, config.selfplay), 3, actions=actions, offer=offer)
    vec.seed(0)
    vec.reset()
    plural = "slots" if actions == "offered" else "split indices"
    for bad in (np.full(3, 0.5), np.zeros(3, dtype=bool), np.zeros((3, 1), dtype=np.int64), np.zeros(2, dtype=np.int64),
                ["0", "0", "0"], 0):
        with pytest.raises(ValueError, match=rf"^actions .* are not 3 integer {plural}$") as caught:
            vec.step(bad)
        assert "\n" not in str(caught.value)
    vec.step(vec.action_masks().argmax(axis=1).astype(np.int32))


# ---------------------------------------------------------------------- bad settings

def one_line_error(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message) as caught:
        make()
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"actions": "offered", "offer": 0}, r"^offer=0 must be an integer of at least 1"),
    ({"actions": "offered", "offer": 2.5}, r"^offer=2.5 must be an integer"),
    ({"actions": "offered", "offer": True}, r"^offer=True must be an integer"),
    ({"actions": "offered", "offer": 5000}, r"^offer=5000 is more than the most allowed, 4,096"),
    ({"offer": 16}, r"^offer=16 goes with actions='offered' only"),
    ({"actions": "index", "offer": 16}, r"^offer=16 goes with actions='offered' only"),
    ({"actions": "offered", "mask": "valid"}, r"^mask='valid' does not go with actions='offered'"),
    ({"actions": "offered", "mask": "all"}, r"mask='all'"),
    ({"actions": "slots"}, r"^actions='slots' is not one of 'index', 'offered'$"),
    ({"actions": None}, r"^actions=None is not one of"),
])
def test_bad_settings_are_one_line_value_errors(kwargs: dict[str, Any], message: str) -> None:
    from splitpoker.train.selfplay import SelfPlayEnv

    for make in (lambda: MODULES["biji"].env(**kwargs), lambda: MODULES["thirteen"].parallel_env(**kwargs),
                 lambda: ArrangeVectorEnv("biji", **kwargs), lambda: TableBatchEnv("biji", **kwargs),
                 lambda: SelfPlayEnv("biji", 3, opponents="random", **kwargs)):
        one_line_error(make, message)


def test_the_index_form_is_unchanged_by_default() -> None:
    env = MODULES["biji"].raw_env(num_players=3)
    assert env.mask_kind == "valid" and env.action_space("player_0").n == env.game.n_actions
    env.reset(seed=0)
    assert "offered" not in env.infos["player_0"]
    assert MODULES["biji"].raw_env(mask="undominated").mask_kind == "undominated"
    vector = ArrangeVectorEnv("biji", num_envs=2)
    assert vector.mask == "valid" and "offered" not in vector.reset(seed=0)[1]


def test_split_observation_reads_the_layout_back() -> None:
    game = make_game("biji")
    env = ArrangeVectorEnv(game, num_envs=3, num_players=4, actions="offered", offer=5)
    obs, _ = env.reset(seed=1)
    vectors, features = split_observation(obs["observation"], game, 5)
    assert vectors.shape == (3, observation_size(game)) and features.shape == (3, 5, offered_width(game))
    assert np.array_equal(features, env.core.offered.features)  # type: ignore[union-attr]
    one_line_error(lambda: split_observation(obs["observation"], game, 6), r"followed by 6 offered splits")


def test_the_bench_figure_plays_offered_hands_through_the_parallel_api() -> None:
    from splitpoker.eval.speed import _figures, parallel_hands_per_second

    names = {figure.name for figure in _figures(quick=True)}
    assert {f"{game}.env_offered_hands_per_s" for game in GAMES} <= names
    assert parallel_hands_per_second("biji", 4, 0.05, actions="offered", offer=8) > 0
