"""The PettingZoo environments of every registered game (thirteen_v0, biji_v0 …): PettingZoo's API, seed, parallel and
render tests; rewards against the rules engine; masks against rules validity; seeding and
the global random state; illegal actions; bad input; registration and rendering."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pickle
import random
import re
import subprocess
import sys
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, render_test, seed_test

import splitpoker.envs as envs
from splitpoker.envs import biji_v0, thirteen_v0
from splitpoker.envs.biji import rules as B
from splitpoker.envs.cards import format_cards, parse_cards, parse_rows
from splitpoker.envs.games import GAMES, make_game
from splitpoker.envs.observation import encode_observation, observation_labels, observation_size
from splitpoker.envs.registration import env_name
from splitpoker.envs.thirteen import rules as T
from splitpoker.eval.speed import hands_per_second, random_valid_action

#: every registered game's environment module, by the game's name
MODULES = {name: getattr(envs, env_name(cls)) for name, cls in GAMES.items()}
GAME_NAMES = list(MODULES)

#: (game, num_players, preset): tables and presets PettingZoo's tests run on
TABLES = [("thirteen", 2, "classic"), ("thirteen", 3, "banker"), ("thirteen", 4, "shisanshui"),
          ("thirteen", 4, "western"), ("biji", 2, "no-jokers"), ("biji", 3, "classic"), ("biji", 4, "classic"),
          ("biji", 5, "no-jokers")]
THIRTEEN_HANDS = [  # two seats whose arrangements below are valid; seat 0 wins front and middle
    "Ah Ad 3c Kc Kd Qs Qh 5d Jc Jd Jh 6s 7s",
    "2c 4d 6h 8c 8d 9s Th 2h 9c 9d 9h Tc Ts",
]
THIRTEEN_ROWS = ["Ah Ad 3c | Kc Kd Qs Qh 5d | Jc Jd Jh 6s 7s", "2c 4d 6h | 8c 8d 9s Th 2h | 9c 9d 9h Tc Ts"]
BIJI_ROWS = ["Kc Kd 2h | Ac Ad 3h | 5s 5h 5d", "2c 4d 7s | 3c 6d 9s | 8c Td Qs"]  # seat 0 sweeps: +3 and 1 喜


def cases(tables: list[tuple[str, int, str]]) -> list[Any]:
    return [pytest.param(*case, id="-".join(map(str, case))) for case in tables]


def play(env: Any, rng: np.random.Generator, actions: dict[str, int] | None = None) -> dict[str, float]:
    """Play one hand through the AEC API; random valid splits unless ``actions`` names them.
    Returns each seat's reward from ``last()`` when it is done."""
    rewards = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            rewards[agent] = reward
            env.step(None)
        elif actions is not None:
            env.step(actions[agent])
        else:
            env.step(random_valid_action(observation["action_mask"], rng))
    return rewards


def arrangement_actions(game_name: str, texts: list[str], **kwargs: Any) -> tuple[Any, dict[str, int], list[Any]]:
    """A raw env dealt the hands of ``texts`` (arrangements) and the split index of each."""
    env = MODULES[game_name].env(num_players=len(texts), **kwargs)
    rows = [parse_rows(text) for text in texts]
    env.reset(options={"hands": [" ".join(format_cards(r) for r in seat_rows) for seat_rows in rows]})
    game = env.unwrapped.game
    actions = {}
    for seat, seat_rows in enumerate(rows):
        slots = game.slots(parse_cards(env.infos[f"player_{seat}"]["hand"]))
        actions[f"player_{seat}"] = game.index_of(slots, seat_rows)
    return env, actions, rows


# ---------------------------------------------------------------------- PettingZoo's tests

@pytest.mark.parametrize(("game", "players", "preset"), cases(TABLES))
def test_pettingzoo_api(game: str, players: int, preset: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice on Dict observation spaces
        api_test(MODULES[game].env(num_players=players, preset=preset), num_cycles=10)


@pytest.mark.parametrize(("game", "players", "preset"), cases(TABLES))
def test_pettingzoo_seed(game: str, players: int, preset: str) -> None:
    seed_test(functools.partial(MODULES[game].env, num_players=players, preset=preset), num_cycles=5)


@pytest.mark.parametrize(("game", "players", "preset"), cases(TABLES))
def test_pettingzoo_parallel_api(game: str, players: int, preset: str) -> None:
    parallel_api_test(MODULES[game].parallel_env(num_players=players, preset=preset), num_cycles=10)


@pytest.mark.parametrize(("game", "players", "preset"), cases(TABLES))
def test_pettingzoo_parallel_seed_with_penalties(game: str, players: int, preset: str) -> None:
    """PettingZoo's parallel seed test samples actions without the mask: with
    ``illegal_action="penalty"`` the hands it plays end as they should, the same for a seed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice on Dict observation spaces
        parallel_seed_test(functools.partial(MODULES[game].parallel_env, num_players=players, preset=preset,
                                             illegal_action="penalty"))
        api_test(MODULES[game].raw_env(num_players=players, preset=preset, illegal_action="penalty"), num_cycles=5)


#: every preset of every game, at the largest table it allows up to 4 (slow: PettingZoo's four tests each)
EVERY_PRESET = [(name, min(4, max(cls.players)), preset) for name, cls in GAMES.items()
                for preset in cls.rules_class.PRESETS]


@pytest.mark.slow
@pytest.mark.parametrize(("game", "players", "preset"), cases(EVERY_PRESET))
def test_pettingzoo_tests_on_every_preset(game: str, players: int, preset: str) -> None:
    """PettingZoo's api, seed, parallel_api and parallel_seed tests on every preset."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice on Dict observation spaces
        api_test(MODULES[game].env(num_players=players, preset=preset), num_cycles=5)
        seed_test(functools.partial(MODULES[game].env, num_players=players, preset=preset), num_cycles=3)
        parallel_api_test(MODULES[game].parallel_env(num_players=players, preset=preset), num_cycles=5)
        parallel_seed_test(functools.partial(MODULES[game].parallel_env, num_players=players, preset=preset,
                                             illegal_action="penalty"))


@pytest.mark.parametrize(("game", "players", "preset"), cases(TABLES))
def test_flat_observation_is_the_vector_with_the_mask_in_the_infos(game: str, players: int, preset: str) -> None:
    """``observation="flat"``: a ``Box`` of finite bounds (a rule's value bounded by itself),
    the same vector as the ``Dict``'s and the same mask, in ``infos[agent]["action_mask"]``;
    PettingZoo's tests pass (the parallel ones, which sample without a mask beside a ``Box``,
    with penalties)."""
    flat, full = (MODULES[game].env(num_players=players, preset=preset, observation=kind) for kind in ("flat", "dict"))
    flat.reset(seed=5)
    full.reset(seed=5)
    space = flat.observation_space("player_0")
    assert isinstance(space, gymnasium.spaces.Box) and np.isfinite(space.high).all()
    for agent in flat.possible_agents:
        vector, expected = flat.observe(agent), full.observe(agent)
        assert space.contains(vector) and np.array_equal(vector, expected["observation"])
        assert np.array_equal(flat.infos[agent]["action_mask"], expected["action_mask"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(MODULES[game].env(num_players=players, preset=preset, observation="flat"), num_cycles=5)
        parallel_api_test(MODULES[game].parallel_env(num_players=players, preset=preset, observation="flat",
                                                     illegal_action="penalty"), num_cycles=5)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_NAMES)
def test_supersuit_observation_wrappers_take_the_flat_observation(game: str) -> None:
    """SuperSuit's observation wrappers on ``observation="flat"``, with no glue: each hand
    plays to the end with the masks from the infos."""
    ss = pytest.importorskip("supersuit")
    wrappers = {"dtype": lambda e: ss.dtype_v0(e, np.float64), "flatten": ss.flatten_v0,
                "normalize": ss.normalize_obs_v0, "frame_stack": lambda e: ss.frame_stack_v1(e, 2),
                "pad": ss.pad_observations_v0}
    for name, wrap in wrappers.items():
        env = wrap(MODULES[game].env(num_players=3, observation="flat"))
        env.reset(seed=2)
        rewards = {}
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            assert env.observation_space(agent).contains(observation), name
            if terminated or truncated:
                rewards[agent] = reward
                env.step(None)
            else:
                env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert sum(rewards.values()) == pytest.approx(0.0) and len(rewards) == 3, name


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_NAMES)
def test_supersuit_vector_wrappers_take_the_parallel_env(game: str) -> None:
    """SuperSuit's ``pettingzoo_env_to_vec_env_v1`` and ``concat_vec_envs_v1`` on the flat
    parallel env, with no glue: every step is a whole hand of every table (each seat one
    env), legal when drawn from the infos' masks, and each table's payoffs sum to zero."""
    ss = pytest.importorskip("supersuit")
    env = MODULES[game].parallel_env(num_players=4, observation="flat", illegal_action="penalty")
    vector = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 2, num_cpus=0, base_class="gymnasium")
    observations, infos = vector.reset(seed=0)
    assert observations.shape[0] == 8
    rng = np.random.default_rng(0)
    for _ in range(4):
        actions = np.array([rng.choice(np.flatnonzero(info["action_mask"])) for info in infos])
        observations, rewards, terminations, _, infos = vector.step(actions)
        assert terminations.all() and np.allclose(rewards.reshape(2, 4).sum(axis=1), 0)
        assert all(info.get("illegal_action") is None for info in infos)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_pettingzoo_render(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(functools.partial(MODULES[game].env, num_players=3),
                custom_tests={"ansi": lambda text: "player_2" in text})
    assert "player_0" in capsys.readouterr().out  # human mode printed the table


def test_parallel_env_plays_one_simultaneous_round(rng: np.random.Generator) -> None:
    env = biji_v0.parallel_env(num_players=3)
    observations, infos = env.reset(seed=5)
    assert set(observations) == set(infos) == {"player_0", "player_1", "player_2"}
    actions = {a: random_valid_action(o["action_mask"], rng) for a, o in observations.items()}
    _, rewards, terminations, _, infos = env.step(actions)
    assert all(terminations.values()) and not env.agents
    assert sum(rewards.values()) == pytest.approx(0.0)
    assert [rewards[a] for a in sorted(rewards)] == [infos[a]["payoff"] for a in sorted(infos)]


# ---------------------------------------------------------------------- play

@pytest.mark.parametrize(("game", "players", "preset", "hands"), [
    ("thirteen", 4, "classic", 40), ("thirteen", 2, "western", 40), ("thirteen", 3, "banker", 40),
    ("thirteen", 4, "shisanshui", 40), ("biji", 5, "classic", 300), ("biji", 2, "no-jokers", 300),
])
def test_many_hands(game: str, players: int, preset: str, hands: int, rng: np.random.Generator) -> None:
    env = MODULES[game].env(num_players=players, preset=preset)
    env.reset(seed=int(rng.integers(2**31)))
    for _ in range(hands):
        rewards = {}
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                rewards[agent] = reward
                assert set(info) >= {"hand", "seat", "num_players", "arrangement", "types", "score", "payoff"}
                assert info["payoff"] == reward == info["score"]["payoff"]
                env.step(None)
            else:
                assert observation["action_mask"].dtype == np.int8 and observation["action_mask"].any()
                assert observation["observation"].dtype == np.float32
                env.step(random_valid_action(observation["action_mask"], rng))
        assert len(rewards) == players and not env.agents
        assert sum(rewards.values()) == pytest.approx(0.0)
        env.reset()


def test_rewards_equal_game_score_on_random_hands(rng: np.random.Generator) -> None:
    for game_name, players in (("thirteen", 4), ("biji", 5), ("thirteen", 2), ("biji", 3)):
        env = MODULES[game_name].raw_env(num_players=players)
        for _ in range(15):
            env.reset(seed=int(rng.integers(2**31)))
            infos = {}
            for agent in env.agent_iter():
                observation, _, terminated, _, info = env.last()
                if terminated:
                    infos[agent] = info
                env.step(None if terminated else random_valid_action(observation["action_mask"], rng))
            arrangements = [parse_rows(" | ".join(infos[f"player_{s}"]["arrangement"])) for s in range(players)]
            expected = make_game(game_name).score(arrangements).payoffs
            assert [infos[f"player_{s}"]["payoff"] for s in range(players)] == list(expected)


@pytest.mark.slow
@pytest.mark.parametrize(("game_name", "players", "preset"), cases(
    [(g, n, p) for g, top, presets in (("thirteen", 4, ("classic", "shisanshui", "banker", "western")),
                                       ("biji", 5, ("classic", "no-jokers")))
     for n in range(2, top + 1) for p in presets]))
def test_soak_rewards_equal_game_score(game_name: str, players: int, preset: str, rng: np.random.Generator) -> None:
    env = MODULES[game_name].env(num_players=players, preset=preset)
    game = make_game(game_name, preset)
    env.reset(seed=int(rng.integers(2**31)))
    for _ in range(300 if game_name == "thirteen" else 1500):
        infos = {}
        for agent in env.agent_iter():
            observation, _, terminated, _, info = env.last()
            if terminated:
                infos[agent] = info
            env.step(None if terminated else random_valid_action(observation["action_mask"], rng))
        arrangements = [parse_rows(" | ".join(infos[f"player_{s}"]["arrangement"])) for s in range(players)]
        assert [infos[f"player_{s}"]["payoff"] for s in range(players)] == list(game.score(arrangements).payoffs)
        env.reset()


def test_scripted_thirteen_hand_scores_like_the_rules() -> None:
    env, actions, rows = arrangement_actions("thirteen", THIRTEEN_ROWS)
    rewards = play(env, np.random.default_rng(0), actions)
    assert rewards == {"player_0": 1.0, "player_1": -1.0}  # front and middle to seat 0, back to seat 1
    assert list(make_game("thirteen").score(rows).payoffs) == [1.0, -1.0]
    # the same deal given as lists of card strings, and under royalties=none with scoop=double
    env, actions, rows = arrangement_actions("thirteen", THIRTEEN_ROWS, preset="shisanshui")
    assert play(env, np.random.default_rng(0), actions) == dict(
        zip(["player_0", "player_1"], make_game("thirteen", "shisanshui").score(rows).payoffs.tolist()))


def test_scripted_biji_hand_scores_like_the_rules() -> None:
    env, actions, rows = arrangement_actions("biji", BIJI_ROWS)
    rewards = play(env, np.random.default_rng(0), actions)
    assert rewards == {"player_0": 4.0, "player_1": -4.0}  # three pots + sweep 喜
    assert list(make_game("biji").score(rows).payoffs) == [4.0, -4.0]


def test_infos_hold_the_hand_and_the_breakdown() -> None:
    env, actions, _ = arrangement_actions("biji", BIJI_ROWS)
    assert env.infos["player_0"] == {"hand": ["2h", "3h", "5d", "5h", "5s", "Kc", "Kd", "Ac", "Ad"], "seat": 0,
                                     "num_players": 2}
    play(env, np.random.default_rng(0), actions)
    assert env.unwrapped.infos == {} and env.unwrapped.agents == []  # every seat removed after its last step
    env, actions, _ = arrangement_actions("biji", BIJI_ROWS)
    env.step(actions["player_0"])
    env.step(actions["player_1"])
    info = env.infos["player_0"]
    assert info["arrangement"] == ["2h Kc Kd", "3h Ac Ad", "5d 5h 5s"]
    assert info["types"] == ["pair", "pair", "trips"]
    assert info["score"] == {"places": [1, 1, 1], "pot_payoffs": [1.0, 1.0, 1.0], "xi": 1, "bonuses": {"sweep": 1},
                             "bonus_payoff": 1.0, "payoff": 4.0}
    assert info["payoff"] == 4.0
    env, actions, _ = arrangement_actions("thirteen", THIRTEEN_ROWS)
    env.step(actions["player_0"])
    env.step(actions["player_1"])
    score = env.infos["player_1"]["score"]
    assert score["fouled"] is False and score["special"] == "" and score["payoff"] == -1.0
    assert [p["seats"] for p in score["pairs"]] == [[0, 1]] and score["pairs"][0]["rows"] == [1, 1, -1]
    assert env.infos["player_1"]["types"] == ["high_card", "pair", "full_house"]


def test_thirteen_special_hand_gets_its_mask_but_its_choice_does_not_count(rng: np.random.Generator) -> None:
    dragon = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"
    other = "2d 2h 3c 4c 5c 6d 7c 8c 9c Td Jc Qd Kd"
    results = set()
    for _ in range(3):
        env = thirteen_v0.env(num_players=2)
        env.reset(options={"hands": [dragon, other.split()]})
        mask = env.observe("player_0")["action_mask"]
        slots = np.asarray(parse_cards(env.infos["player_0"]["hand"]))
        assert np.array_equal(mask, T.valid_mask(slots, T.ThirteenRules.preset()).astype(np.int8))
        rewards = play(env, rng)
        results.add((rewards["player_0"], rewards["player_1"]))
    assert results == {(13.0, -13.0)}


# ---------------------------------------------------------------------- masks and observations

@pytest.mark.parametrize(("game_name", "preset"), [("thirteen", "classic"), ("thirteen", "western"),
                                                   ("biji", "classic"), ("biji", "no-jokers")])
def test_masks_and_observations_match_the_rules(game_name: str, preset: str, rng: np.random.Generator) -> None:
    env = MODULES[game_name].raw_env(num_players=3, preset=preset)
    game = make_game(game_name, preset)
    for _ in range(3):
        env.reset(seed=int(rng.integers(2**31)))
        for seat, agent in enumerate(env.agents):
            observation = env.observe(agent)
            slots = np.asarray(parse_cards(env.infos[agent]["hand"]))
            assert list(slots) == sorted(slots)
            mask = observation["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (game.n_actions,)
            assert np.array_equal(mask, game.valid_mask(slots).astype(np.int8))
            assert np.array_equal(observation["observation"], encode_observation(game, slots, seat, 3))
            assert env.observation_space(agent).contains(observation)
            for index in rng.integers(game.n_actions, size=40):
                rows = game.arrangement(slots, int(index))
                valid = T.is_valid(rows, game.rules) if game_name == "thirteen" else B.is_valid(rows, game.rules)
                assert bool(mask[index]) == valid


@pytest.mark.parametrize(("game_name", "preset", "tables"), [("biji", "classic", 60), ("biji", "no-jokers", 60),
                                                           ("thirteen", "classic", 2), ("thirteen", "banker", 2)])
def test_batched_masks_equal_valid_mask_seat_by_seat(game_name: str, preset: str, tables: int,
                                                   rng: np.random.Generator) -> None:
    game = make_game(game_name, preset)
    from splitpoker.envs.game import Game

    def masks_of(slots: np.ndarray) -> np.ndarray:  # the batched data flow, whatever the game overrides
        return Game.valid_masks(game, slots)

    for _ in range(tables):
        players = int(rng.integers(game.players[0], game.players[1] + 1))
        cards = rng.permutation(game.deck())[: players * game.hand_size].reshape(players, -1)
        slots = np.sort(cards, axis=1).astype(np.intp)
        masks = masks_of(slots)
        assert masks.shape == (players, game.n_actions)
        for seat in range(players):
            assert np.array_equal(masks[seat], game.valid_mask(slots[seat]))


def test_observation_docstring_matches_the_encoding() -> None:
    for name, module, first_rule in (("thirteen", thirteen_v0, (254, "wheel=second")),
                                     ("biji", biji_v0, (180, "jokers=rank0"))):
        game = make_game(name)
        size = observation_size(game)
        assert f"({size},)" in module.__doc__ and f"Discrete({game.n_actions})" in module.__doc__
        labels = observation_labels(game)
        assert labels[first_rule[0]] == first_rule[1] and f"{first_rule[0]} - " in module.__doc__
        assert f"{size - 1}" in module.__doc__
        assert module.raw_env().observation_space("player_0")["observation"].shape == (size,)


# ---------------------------------------------------------------------- seeding

def test_seeded_deals_are_reproducible_and_differ_between_seeds() -> None:
    def hands(seed: int | None, env: Any = None) -> list[list[str]]:
        env = env or biji_v0.env(num_players=5)
        env.reset(seed=seed)
        return [env.infos[a]["hand"] for a in env.agents]

    assert hands(3) == hands(3)
    assert hands(3) != hands(4)
    assert hands(None) != hands(None)
    env = thirteen_v0.env()
    first = hands(11, env)
    second = hands(None, env)  # continues the seeded stream
    assert first != second and hands(11, env) == first and hands(None, env) == second
    cards = [c for hand in first for c in hand]
    assert len(set(cards)) == 52


def test_global_random_state_is_untouched(rng: np.random.Generator) -> None:
    random.seed(1234)
    np.random.seed(1234)
    python_state, numpy_state = random.getstate(), np.random.get_state()
    for module in MODULES.values():
        env = module.env(num_players=3)
        env.reset()
        play(env, rng)
        env.reset(seed=2)
        play(env, rng)
        parallel = module.parallel_env(num_players=2)
        parallel.reset(seed=1)
    assert random.getstate() == python_state
    after = np.random.get_state()
    assert after[0] == numpy_state[0] and np.array_equal(after[1], numpy_state[1]) and after[2:] == numpy_state[2:]


# ---------------------------------------------------------------------- illegal actions

@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_illegal_action_under_env_ends_the_hand_with_minus_one(game_name: str, rng: np.random.Generator) -> None:
    env = MODULES[game_name].env(num_players=3)
    env.reset(seed=9)
    env.step(random_valid_action(env.observe("player_0")["action_mask"], rng))
    illegal = int(np.flatnonzero(env.observe("player_1")["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's illegal-move warning
        env.step(illegal)
    assert all(env.terminations.values())
    rewards = play(env, rng)
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_illegal_action_under_raw_env_is_a_clear_value_error(game_name: str) -> None:
    env = MODULES[game_name].raw_env(num_players=2)
    env.reset(seed=9)
    illegal = int(np.flatnonzero(env.observe("player_0")["action_mask"] == 0)[0])
    why = re.escape(GAMES[game_name].invalid_reason)  # thirteen: "fouls"; biji: "is not strictly increasing …"
    with pytest.raises(ValueError, match=rf"action {illegal} of player_0 is not a valid split: .* {why}"):
        env.step(illegal)
    n = env.game.n_actions
    with pytest.raises(ValueError, match=rf"action {n} of player_0 is out of range 0\.\.{n - 1}"):
        env.step(n)
    with pytest.raises(ValueError, match="not an integer split index"):
        env.step(1.5)
    with pytest.raises(ValueError, match="needs a split index of its hand .*, not None"):
        env.step(None)
    env.step(np.int64(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))  # NumPy integers are fine
    assert env.agent_selection == "player_1"


def test_illegal_action_under_parallel_env_is_a_clear_value_error() -> None:
    env = thirteen_v0.parallel_env(num_players=2)
    observations, _ = env.reset(seed=4)
    illegal = int(np.flatnonzero(observations["player_0"]["action_mask"] == 0)[0])
    legal = int(np.flatnonzero(observations["player_1"]["action_mask"])[0])
    with pytest.raises(ValueError, match=f"action {illegal} of player_0 is not a valid split"):
        env.step({"player_0": illegal, "player_1": legal})


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_penalty_ends_the_hand_unscored_with_the_illegal_reward(game_name: str, rng: np.random.Generator) -> None:
    """``illegal_action="penalty"``: a split outside the mask ends the hand at once, the seat
    that played it gets ``illegal_reward`` and the index in its infos, the others 0; in the
    parallel env every seat that played one is penalised and nothing is scored."""
    env = MODULES[game_name].raw_env(num_players=3, illegal_action="penalty", illegal_reward=-2.5)
    env.reset(seed=9)
    env.step(random_valid_action(env.observe("player_0")["action_mask"], rng))
    illegal = int(np.flatnonzero(env.observe("player_1")["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values()) and env.infos["player_1"]["illegal_action"] == illegal
    assert "score" not in env.infos["player_0"]
    assert play(env, rng) == {"player_0": 0.0, "player_1": -2.5, "player_2": 0.0} and env.agents == []
    with pytest.raises(ValueError, match="out of range"):  # an action outside the action space still raises
        env.reset(seed=9)
        env.step(env.game.n_actions)

    parallel = MODULES[game_name].parallel_env(num_players=3, illegal_action="penalty")
    observations, _ = parallel.reset(seed=4)
    masks = {a: observations[a]["action_mask"] for a in parallel.agents}
    actions = {"player_0": int(np.flatnonzero(masks["player_0"] == 0)[0]),
               "player_1": int(np.flatnonzero(masks["player_1"])[0]),
               "player_2": int(np.flatnonzero(masks["player_2"] == 0)[-1])}
    _, rewards, terminations, truncations, infos = parallel.step(actions)
    assert rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": -1.0} and type(rewards) is dict
    assert all(terminations.values()) and not any(truncations.values()) and parallel.agents == []
    assert infos["player_2"]["illegal_action"] == actions["player_2"] and "illegal_action" not in infos["player_1"]


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_env_takes_the_illegal_reward_or_raises(game_name: str, rng: np.random.Generator) -> None:
    env = MODULES[game_name].env(num_players=2, illegal_reward=-4)
    env.reset(seed=9)
    illegal = int(np.flatnonzero(env.observe("player_0")["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's illegal-move warning
        env.step(illegal)
    assert play(env, rng) == {"player_0": -4.0, "player_1": 0.0}
    env = MODULES[game_name].env(num_players=2, illegal_action="raise")
    env.reset(seed=9)
    with pytest.raises(ValueError, match=f"action {illegal} of player_0 is not a valid split"):
        env.step(illegal)


# ---------------------------------------------------------------------- bad input

@pytest.mark.parametrize(("module", "kwargs", "message"), [
    (biji_v0, {"illegal_action": "skip"}, "illegal_action='skip' is not one of 'raise', 'penalty'"),
    (biji_v0, {"observation": "box"}, "observation='box' is not one of 'dict', 'flat'"),
    (thirteen_v0, {"illegal_reward": float("inf")}, "illegal_reward=inf is not a finite number"),
    (thirteen_v0, {"illegal_reward": "-1"}, "illegal_reward='-1' is not a finite number"),
    (thirteen_v0, {"num_player": 3}, "unknown thirteen_v0 keyword or switch 'num_player'"),
    (biji_v0, {"wheel": "second"}, "unknown biji_v0 keyword or switch 'wheel'"),
    (thirteen_v0, {"wheel": "sometimes"}, "wheel='sometimes' is not allowed"),
    (thirteen_v0, {"preset": "vegas"}, "unknown thirteen preset 'vegas'"),
    (thirteen_v0, {"num_players": 5}, "num_players=5 is not allowed for thirteen; use 2 to 4"),
    (thirteen_v0, {"num_players": 1}, "num_players=1 is not allowed"),
    (biji_v0, {"num_players": 6}, "num_players=6 is not allowed for biji; use 2 to 5"),
    (biji_v0, {"num_players": "4"}, "num_players='4' is not allowed"),
    (biji_v0, {"render_mode": "rgb_array"}, "render_mode='rgb_array' is not supported"),
    (thirteen_v0, {"preset": "banker", "banker_seat": 3, "num_players": 2}, "banker_seat 3 is not a seat"),
])
def test_bad_keywords_are_clear_value_errors(module: Any, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        module.env(**kwargs)


@pytest.mark.parametrize(("module", "hands", "message"), [
    (biji_v0, ["2c 3c 4c 5c 6c 7c 8c 9c Tc"], r"options\['hands'\] has 1 hands; this table has 2 seats"),
    (biji_v0, "2c 3c 4c 5c 6c 7c 8c 9c Tc", r"options\['hands'\] must be a list of 2 hands"),
    (biji_v0, ["2c 3c 4c 5c 6c 7c 8c 9c 2c", "2d 3d 4d 5d 6d 7d 8d 9d Td"],
     r"options\['hands'\]\[0\] .*duplicate card 2c"),
    (biji_v0, ["2c 3c 4c 5c 6c 7c 8c 9c Tc", "2c 3d 4d 5d 6d 7d 8d 9d Td"], r"card 2c is dealt to seats 0 and 1"),
    (biji_v0, ["2c 3c 4c 5c 6c 7c 8c 9c Xc", "2d 3d 4d 5d 6d 7d 8d 9d Td"],
     r"options\['hands'\]\[0\] .*cannot read card 'Xc'"),
    (biji_v0, ["2c 3c 4c 5c 6c 7c 8c 9c", "2d 3d 4d 5d 6d 7d 8d 9d Td"], r"options\['hands'\]\[0\] .*has 8 cards"),
    (thirteen_v0, ["BJ 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc", "2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd Ad"],
     r"options\['hands'\]\[0\] .*joker BJ"),
])
def test_bad_hands_are_clear_value_errors(module: Any, hands: Any, message: str) -> None:
    env = module.env(num_players=2)
    with pytest.raises(ValueError, match=message):
        env.reset(options={"hands": hands})


def test_given_hands_accept_lists_of_card_strings_and_jokers() -> None:
    env = biji_v0.env(num_players=2)
    env.reset(options={"hands": [["RJ", "BJ", "As", "10h", "♠2", "3c", "4c", "5c", "6c"],
                                 "2d 3d 4d 5d 6d 7d 8d 9d Td"]})
    assert env.infos["player_0"]["hand"] == ["BJ", "RJ", "2s", "3c", "4c", "5c", "6c", "Th", "As"]
    with pytest.raises(ValueError, match="joker"):
        biji_v0.env(num_players=2, preset="no-jokers").reset(
            options={"hands": [["RJ", "BJ", "As", "Th", "2s", "3c", "4c", "5c", "6c"], "2d 3d 4d 5d 6d 7d 8d 9d Td"]})


# ---------------------------------------------------------------------- rendering

def test_ansi_render_shows_the_table(rng: np.random.Generator) -> None:
    env, actions, _ = arrangement_actions("biji", BIJI_ROWS, render_mode="ansi")
    before = env.render()
    assert "0 of 2 arranged" in before and "K♣ K♦" not in before.split("player_0")[0]
    env.step(actions["player_0"])
    assert "player_0  arranged" in env.render() and "player_1  to act" in env.render()
    env.step(actions["player_1"])
    text = env.render()
    assert "hand over" in text and "2♥ K♣ K♦" in text and "trips" in text and "+4" in text and "-4" in text
    assert "喜 1: sweep" in text and "1st" in text
    thirteen = thirteen_v0.env(num_players=2, render_mode="ansi")
    thirteen.reset(options={"hands": ["2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac",
                                      "2d 2h 3c 4c 5c 6d 7c 8c 9c Td Jc Qd Kd"]})
    play(thirteen, rng)
    text = thirteen.render()
    assert "special dragon (13)" in text and "+13" in text and "front" in text


def test_render_module_examples() -> None:
    import doctest

    import splitpoker.envs.render as render

    assert doctest.testmod(render).failed == 0


def test_render_without_a_mode_warns_and_returns_none() -> None:
    env = biji_v0.env()
    env.reset(seed=0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert env.render() is None


# ---------------------------------------------------------------------- packaging

def test_importing_the_pure_modules_does_not_import_the_env_stack() -> None:
    code = ("import sys; import splitpoker.envs, splitpoker.envs.cards, splitpoker.envs.games, "
            "splitpoker.envs.observation, splitpoker.envs.render, splitpoker.envs.registration, "
            + ", ".join(cls.rules_class.__module__ for cls in GAMES.values()) + "; "
            "heavy = {'gymnasium', 'pettingzoo', 'torch'} & set(sys.modules); assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_environment_modules_load_lazily_from_the_package() -> None:
    if getattr(envs, "__file__", None) is None:
        pytest.skip("splitpoker.envs is a namespace package here (an editable install older than "
                    "envs/__init__.py); reinstall with `pip install -e .`")
    assert envs.thirteen_v0 is thirteen_v0 and envs.biji_v0 is biji_v0
    assert "thirteen_v0" in dir(envs)
    with pytest.raises(AttributeError):
        envs.nothing_v0  # noqa: B018
    import splitpoker.envs.biji_v0

    assert splitpoker.envs.biji_v0 is biji_v0


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_every_game_serves_its_environment_module(game_name: str) -> None:
    """``splitpoker.envs.<game>_v0`` is the game's own environment module (``Game.env_module``,
    in its package), or a module of that name that shares its functions."""
    cls = GAMES[game_name]
    name = env_name(cls)
    assert name == f"{game_name}_v0" and name in envs.ENV_MODULES and name in dir(envs)
    own = importlib.import_module(f"splitpoker.envs.{cls.env_module}")
    module = getattr(envs, name)
    assert module.env is own.env and module.parallel_env is own.parallel_env and module.raw_env is own.raw_env
    assert own.raw_env.game_name == game_name and own.raw_env.metadata["name"] == name


def test_a_game_needs_no_module_of_its_own_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game whose environment module lives only in its package is served all the same."""
    from splitpoker.runtime.registry import Registry

    environments: Registry[Any] = Registry("environment")
    environments.register("other_v0", "splitpoker.envs.biji.env")
    monkeypatch.setattr(envs, "ENVIRONMENTS", environments)
    try:
        assert envs.other_v0 is importlib.import_module("splitpoker.envs.biji.env")
    finally:
        vars(envs).pop("other_v0", None)


def test_registered_with_pettingzoo() -> None:
    import pettingzoo

    from splitpoker.envs.registration import register_envs

    ids = register_envs()
    assert ids == [f"splitpoker/{env_name(cls)}" for cls in GAMES.values()]
    assert ids[:2] == ["splitpoker/thirteen_v0", "splitpoker/biji_v0"]
    env = pettingzoo.make("aec", "splitpoker/biji_v0", num_players=3)
    env.reset(seed=0)
    assert env.agents == ["player_0", "player_1", "player_2"] and env.unwrapped.game.name == "biji"
    parallel = pettingzoo.make("parallel", "splitpoker/thirteen-v0", num_players=2)
    observations, _ = parallel.reset(seed=0)
    assert observations["player_1"]["action_mask"].shape == (72072,)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_every_game_is_made_through_pettingzoo(game_name: str) -> None:
    import pettingzoo

    from splitpoker.envs.registration import register_envs

    register_envs()
    env_id = f"splitpoker/{env_name(GAMES[game_name])}"
    players = GAMES[game_name].players[0]
    env = pettingzoo.make("aec", env_id, num_players=players)
    env.reset(seed=0)
    assert env.unwrapped.game.name == game_name and len(env.agents) == players
    parallel = pettingzoo.make("parallel", env_id, num_players=players)
    observations, _ = parallel.reset(seed=0)
    assert observations["player_0"]["action_mask"].shape == (GAMES[game_name].split_index.n_actions,)


def test_raw_env_pickles_with_its_configuration() -> None:
    env = thirteen_v0.raw_env(num_players=3, preset="banker", banker_seat=2)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.num_players == 3 and copy.game.rules == env.game.rules and copy.preset == "banker"
    assert copy.metadata["is_parallelizable"] and copy.metadata["name"] == "thirteen_v0"


def test_state_cannot_be_read_before_reset() -> None:
    for env in (thirteen_v0.env(), biji_v0.raw_env()):
        for name in ("agents", "agent_selection", "rewards", "infos", "num_agents"):
            with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
                getattr(env, name)
        assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
        env.reset(seed=0)
        assert env.agent_selection == "player_0" and env.num_agents == 4


def test_spaces_are_built_once_per_agent() -> None:
    env = thirteen_v0.env(num_players=2)
    space = env.observation_space("player_0")
    assert space is env.observation_space("player_0") and space is not env.observation_space("player_1")
    assert env.action_space("player_1").n == 72072 and biji_v0.env().action_space("player_0").n == 1680
    assert space["observation"].high.max() == 1.0
    biji_high = biji_v0.env().observation_space("player_0")["observation"].high
    assert np.isinf(biji_high[190:]).all() and (biji_high[:190] == 1.0).all()


def test_hands_per_second_measures_both_games() -> None:
    assert hands_per_second("biji", 3, seconds=0.05) > 0
    assert hands_per_second("thirteen", 2, seconds=0.05, wrapped=False, preset="western") > 0
    with pytest.raises(ValueError, match="unknown game"):
        hands_per_second("poker", 2, seconds=0.05)


def test_random_valid_action_draws_only_valid_splits(rng: np.random.Generator) -> None:
    for size, valid in ((72072, [5, 70000]), (1680, [0, 1679]), (72072, list(range(0, 72072, 3)))):
        mask = np.zeros(size, dtype=np.int8)
        mask[valid] = 1
        draws = {random_valid_action(mask, rng) for _ in range(300)}
        assert draws <= set(valid) and (len(valid) > 300 or draws == set(valid))
    with pytest.raises(ValueError, match="no valid split"):
        random_valid_action(np.zeros(100, dtype=np.int8), rng)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_agents_decide_from_the_observation_alone(game_name: str) -> None:
    """The observation encodes the hand, the seat and the table size: agents that read the
    hand decide from the observation and mask alone as with the seat's ``infos`` entry."""
    from splitpoker.agents import load_agent
    from splitpoker.envs.observation import decode_hand, decode_seat
    from splitpoker.envs.table import SeatView

    env = MODULES[game_name].raw_env(num_players=3)
    env.reset(seed=5)
    for seat, agent_name in enumerate(env.possible_agents):
        obs, info = env.observe(agent_name), env.infos[agent_name]
        assert decode_hand(obs["observation"]).tolist() == env._tables.slots[0, seat].tolist()
        assert decode_seat(obs["observation"]) == (seat, 3)
        view = SeatView.from_env(obs["observation"], obs["action_mask"], {})
        assert (view.seat, view.num_players, view.hand) == (seat, 3, info["hand"])
        for spec in ("greedy", "heuristic", "solver:samples=4"):
            agent = load_agent(spec, env.game, num_players=3, seed=0)
            chosen = agent.act(obs["observation"], obs["action_mask"], info)
            agent.seed(0)
            assert agent.act(obs["observation"], obs["action_mask"], {}) == chosen
    with pytest.raises(ValueError, match=r"an observation of shape \(5,\) is not one of a game's"):
        decode_hand(np.zeros(5, dtype=np.float32))
    with pytest.raises(ValueError, match="slot 0 of the observation encodes no card"):
        decode_hand(np.zeros_like(env.observe("player_0")["observation"]))


def test_seat_data_tells_games_of_one_hand_size_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """An environment's seat data names no game: the table core tells the registered games
    apart by hand size, observation length and number of splits together, so a game with
    another's hand size does not take its place; two games alike in all three are refused."""
    from splitpoker.envs import seat_games
    from splitpoker.envs.seat_games import SeatGame, check_distinct, checked_mask
    from splitpoker.envs.table import SeatView

    real = seat_games.registered()  # the registered games are told apart
    assert [g.name for g in real] == GAME_NAMES
    biji = next(g for g in real if g.name == "biji")
    twin = SeatGame("twin", biji.hand_size, biji.observation_size + 7, 20)  # biji's hand size
    with pytest.raises(ValueError, match="games 'biji' and 'copy' have the same hand size"):
        check_distinct([*real, dataclasses.replace(biji, name="copy")])
    monkeypatch.setattr(seat_games, "registered", lambda: (*real, twin))

    env = biji_v0.raw_env(num_players=2)
    env.reset(seed=3)
    obs, info = env.observe("player_0"), env.infos["player_0"]
    view = SeatView.from_env(obs["observation"], obs["action_mask"], info)
    assert view.n_actions == 1680 and view.mask.sum() == obs["action_mask"].sum()
    assert SeatView.from_env(obs["observation"], None, info).n_actions == 1680  # by the observation's length
    assert SeatView.from_env(np.zeros(5), None, info).n_actions is None  # the hand alone fits both
    twin_mask = np.ones(20, dtype=np.int8)
    assert SeatView.from_env(np.zeros(twin.observation_size), twin_mask, info).n_actions == 20
    with pytest.raises(ValueError, match=r"one entry per split: \(1680,\) for biji$"):
        SeatView.from_env(obs["observation"], twin_mask, info)
    with pytest.raises(ValueError, match=r"\(20,\) for twin or \(1680,\) for biji"):
        checked_mask(np.ones(3), (biji, twin))


def test_seat_data_reads_the_game_off_the_hand_in_array_infos(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``infos="arrays"`` the seat's ``infos`` entry holds the hand as ``"hand_ids"``:
    its size tells the game before the observation's length does."""
    from splitpoker.envs import seat_games
    from splitpoker.envs.seat_games import SeatGame
    from splitpoker.envs.table import SeatView

    real = seat_games.registered()
    biji = next(g for g in real if g.name == "biji")
    thirteen = next(g for g in real if g.name == "thirteen")
    twin = SeatGame("twin", thirteen.hand_size, biji.observation_size, 20)  # biji's observation length
    monkeypatch.setattr(seat_games, "registered", lambda: (*real, twin))

    env = biji_v0.raw_env(num_players=2, infos="arrays")
    env.reset(seed=3)
    obs, info = env.observe("player_0"), env.infos["player_0"]
    assert "hand" not in info and len(info["hand_ids"]) == biji.hand_size
    assert SeatView.from_env(obs["observation"], obs["action_mask"], info).n_actions == 1680
    twin_mask = np.ones(20, dtype=np.int8)
    assert SeatView.from_env(obs["observation"], twin_mask, {}).n_actions == 20  # the observation fits both
    with pytest.raises(ValueError, match=r"one entry per split: \(1680,\) for biji$"):
        SeatView.from_env(obs["observation"], twin_mask, info)


def test_seat_views_of_tables_and_of_environments_share_one_protocol() -> None:
    """A seat of the table core's tables and a seat an environment gives are two classes of
    the one :class:`SeatView` protocol, and read the same."""
    from splitpoker.envs.seat_view import EnvSeatView
    from splitpoker.envs.table import SeatView, TableSeatView, deal

    tables = deal(make_game("biji"), num_players=3, rng=0, batch=2)
    of_tables = tables.view(1, 2)
    of_env = SeatView.from_env(of_tables.observation, of_tables.action_mask, of_tables.info())
    assert isinstance(of_tables, TableSeatView) and isinstance(of_env, EnvSeatView)
    assert isinstance(of_tables, SeatView) and isinstance(of_env, SeatView)
    assert (of_tables.tables, of_tables.table, of_tables.mask_kind) == (tables, 1, "valid")
    assert (of_env.tables, of_env.table, of_env.mask_kind) == (None, 0, None)
    for view in (of_tables, of_env):
        assert view.hand == of_tables.hand and view.n_actions == 1680
        assert view.allowed.tolist() == np.flatnonzero(of_tables.mask).tolist()
        assert repr(view) == f"SeatView(seat=2 of 3, hand={' '.join(of_tables.hand)!r})"
    with pytest.raises(TypeError):
        SeatView()  # type: ignore[abstract]


def test_parallel_rewards_are_a_plain_dict() -> None:
    env = biji_v0.parallel_env(num_players=3)
    observations, _ = env.reset(seed=2)
    actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    _, rewards, terminations, _, _ = env.step(actions)
    assert type(rewards) is dict and set(rewards) == set(actions) and all(terminations.values())
