"""Batched access for research code: the hands in the vector environments' infos, the
observations and masks of many seats as arrays (``SeatViews``), the solver's value of every
split as ``docs/agents.md`` shows it, and ``SelfPlayEnv``'s observation space, whose finite
bounds pass gymnasium's ``check_env`` without a warning."""

from __future__ import annotations

import doctest
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from splitpoker.agents import load_agent
from splitpoker.envs.games import GAMES, make_game
from splitpoker.envs.observation import decode_hand, observation_size
from splitpoker.envs.table import Tables, deal, from_hands
from splitpoker.envs.vector import ArrangeVectorEnv, TableBatchEnv, random_valid_splits

ROOT = Path(__file__).resolve().parents[1]
BIJI = make_game("biji")
THIRTEEN = make_game("thirteen")


def _presets(name: str) -> list[str]:
    return list(GAMES[name].rules_class.PRESETS)


# ---------------------------------------------------------------------- the hands in the infos

@pytest.mark.parametrize("name", ["biji", "thirteen"])
@pytest.mark.parametrize("observation", ["dict", "flat"])
def test_arrange_vector_env_infos_hold_the_learners_hands(name: str, observation: str) -> None:
    """``infos["hand_ids"]``: the learner's hand at each table, card ids in slot order, int64
    ``(num_envs, hand size)``, the hand the observation encodes, at reset and after every
    step; ``infos["final_hand_ids"]``: the hands just played."""
    env = ArrangeVectorEnv(name, num_envs=5, num_players=4, observation=observation)
    game = env.game
    obs, infos = env.reset(seed=7)
    for step in range(3):
        hands = infos["hand_ids"]
        assert hands.shape == (5, game.hand_size) and hands.dtype == np.int64
        vectors = obs if observation == "flat" else obs["observation"]
        assert [decode_hand(v).tolist() for v in vectors] == hands.tolist()
        assert env.core.tables is not None
        assert np.array_equal(hands, env.core.tables.slots[np.arange(5), infos["seat"]])
        actions = random_valid_splits(game, None, np.random.default_rng(step), masks=env.action_masks())
        obs, _, _, _, after = env.step(actions)
        assert np.array_equal(after["final_hand_ids"], hands)
        assert not np.array_equal(after["hand_ids"], hands)
        infos = after


def test_the_hands_in_the_infos_change_nothing_else() -> None:
    """The same seed gives the same observations, rewards and other infos whether or not the
    hands are read, and a hand handed out is the caller's own array."""
    def run() -> tuple[list, list]:
        env = ArrangeVectorEnv("biji", num_envs=4, num_players=3)
        obs, infos = env.reset(seed=3)
        seen, hands = [obs["observation"].copy()], [infos["hand_ids"].copy()]
        infos["hand_ids"][:] = -1  # the caller's own array
        for step in range(2):
            actions = random_valid_splits(env.game, None, np.random.default_rng(step), masks=env.action_masks())
            obs, rewards, _, _, infos = env.step(actions)
            seen += [obs["observation"], rewards, infos["payoffs"], infos["seat"]]
            hands.append(infos["hand_ids"])
        return seen, hands

    (a, hands_a), (b, hands_b) = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert all(np.array_equal(x, y) for x, y in zip(hands_a, hands_b)) and (hands_a[0] >= 0).all()


def test_table_batch_env_infos_hold_every_seats_hand() -> None:
    """``TableBatchEnv``: ``infos["slots"]`` every seat's hand ``(B, players, hand size)``, the
    hands the observations encode; after a step the played ones in ``final_slots``."""
    env = TableBatchEnv("thirteen", num_envs=3, num_players=4)
    observations, masks, infos = env.reset(seed=1)
    slots = infos["slots"]
    assert slots.shape == (3, 4, 13)
    assert [[decode_hand(o).tolist() for o in table] for table in observations] == slots.tolist()
    actions = random_valid_splits(env.game, None, np.random.default_rng(0), masks=masks.reshape(-1, 72072))
    *_, after = env.step(actions.reshape(3, 4))
    assert np.array_equal(after["final_slots"], slots) and after["slots"].shape == (3, 4, 13)


# ---------------------------------------------------------------------- SeatViews as arrays

@pytest.mark.parametrize("game", [BIJI, THIRTEEN], ids=["biji", "thirteen"])
@pytest.mark.parametrize("mask", ["valid", "undominated"])
def test_seat_views_give_observations_and_masks_as_arrays(game, mask: str) -> None:
    """``SeatViews.observations`` (n, observation size) float32 and ``.masks`` (n, n_actions)
    bool: row i is view i's observation and mask, bit for bit, for any pairs (out of order,
    repeated), slices and no views at all."""
    tables = deal(game, 4, np.random.default_rng(5), batch=6, mask=mask)
    pairs = [(5, 3), (0, 0), (2, 1), (0, 0), (4, 2)]
    views = tables.views_at(pairs)
    observations, masks = views.observations, views.masks
    assert observations.shape == (5, observation_size(game)) and observations.dtype == np.float32
    assert masks.shape == (5, game.n_actions) and masks.dtype == bool
    fresh = Tables(game, tables.slots, mask)  # the views one by one, on tables that computed nothing yet
    for i, (table, seat) in enumerate(pairs):
        view = fresh.view(table, seat)
        assert np.array_equal(observations[i], view.observation) and np.array_equal(masks[i], view.mask)
        assert np.array_equal(observations[i], views[i].observation) and np.array_equal(masks[i], views[i].mask)
    assert np.array_equal(views[1:4].masks, masks[1:4]) and np.array_equal(views[1:4].observations, observations[1:4])
    every = tables.views()
    assert every.observations.shape == (24, observation_size(game)) and every.masks.shape == (24, game.n_actions)
    empty = tables.views_at([])
    assert empty.observations.shape == (0, observation_size(game)) and empty.masks.shape == (0, game.n_actions)
    if mask == "undominated":
        assert np.array_equal(masks, game.candidate_masks(views.slots))
    else:
        assert np.array_equal(masks, game.valid_masks(views.slots))
    observations[:] = -1  # the caller's own arrays
    assert (views.observations >= 0).all()


def test_seat_views_arrays_are_computed_in_one_batched_call_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table core computes the views' observations and masks, each kind in one call for
    the whole group, and keeps them: reading the views one by one afterwards computes nothing."""
    tables = deal(BIJI, 4, np.random.default_rng(0), batch=8)
    calls: list[tuple[int, bool, bool]] = []
    prepare = Tables._prepare

    def counted(self, pairs, masks, observations, candidates):  # type: ignore[no-untyped-def]
        calls.append((len(pairs), masks, observations))
        return prepare(self, pairs, masks, observations, candidates)

    monkeypatch.setattr(Tables, "_prepare", counted)
    views = tables.views()
    observations, masks = views.observations, views.masks
    assert calls == [(32, False, True), (32, True, False)]
    for i, view in enumerate(views):
        assert np.array_equal(view.observation, observations[i]) and np.array_equal(view.mask, masks[i])
    assert len(calls) == 2


def test_seat_views_arrays_check_their_pairs() -> None:
    tables = from_hands(BIJI, ["As Ah Ad Ks Kh Kd Qs Qh Qd", "2c 3c 4c 5d 6d 7d 8h 9h 10h"])
    with pytest.raises(ValueError, match=r"\(table, seat\) \(0, 2\) is not a seat of these tables"):
        tables.masks_at([(0, 2)])
    with pytest.raises(ValueError, match=r"\(table, seat\) \(1, 0\)"):
        tables.observations_at([(1, 0)])


@pytest.mark.parametrize("mask", ["valid", "undominated"])
def test_batch_reads_not_kept_give_the_kept_rows(monkeypatch: pytest.MonkeyPatch, mask: str) -> None:
    """``keep=False`` (seats read once, as a batch): row for row the arrays of the kept reads,
    whatever mix of seats is already known, computed ``MASK_CHUNK`` seats a call, the caller's
    own arrays; on fresh tables no seat's mask or observation is kept (the candidates' lists
    are). Pairs may be given as a ``(K, 2)`` integer array, checked the same way."""
    from splitpoker.envs import table

    tables = deal(BIJI, 4, np.random.default_rng(3), batch=6, mask=mask)
    pairs = np.array([(b, s) for b in range(6) for s in (3, 0, 1)])
    kept = Tables(BIJI, tables.slots, mask)
    masks, observations = kept.masks_at(pairs), kept.observations_at(pairs)
    assert np.array_equal(masks, tables.masks_at([tuple(p) for p in pairs.tolist()], keep=False))
    part = tables.views_at(pairs[::4])
    assert part.masks.shape == (5, BIJI.n_actions) and part.observations.shape == (5, observation_size(BIJI))
    monkeypatch.setattr(table, "MASK_CHUNK", 5)
    got_masks, got_observations = tables.masks_at(pairs, keep=False), tables.observations_at(pairs, keep=False)
    assert np.array_equal(got_masks, masks) and np.array_equal(got_observations, observations)
    got_observations[:] = -1  # the caller's own
    assert np.array_equal(tables.observations_at(pairs[::4]), observations[::4])
    fresh = Tables(BIJI, tables.slots, mask)
    calls: list[tuple[bool, bool, bool]] = []
    prepare = Tables._prepare

    def counted(self, pairs, masks, observations, candidates):  # type: ignore[no-untyped-def]
        calls.append((masks, observations, candidates))
        return prepare(self, pairs, masks, observations, candidates)

    monkeypatch.setattr(Tables, "_prepare", counted)
    assert np.array_equal(fresh.masks_at(pairs, keep=False), masks)
    assert np.array_equal(fresh.observations_at(pairs, keep=False), observations)
    assert calls == ([(False, False, True)] * 4 if mask == "undominated" else [])
    with pytest.raises(ValueError, match=r"\(table, seat\) \(6, 0\) is not a seat of these tables"):
        fresh.masks_at(np.array([[0, 1], [6, 0]]), keep=False)


# ---------------------------------------------------------------------- the solver's per-split values

def _section(path: Path, title: str) -> str:
    """The text of a ``###`` section of a Markdown page, to the next heading."""
    text = path.read_text(encoding="utf-8")
    found = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^#)", text, re.M | re.S)
    assert found, f"{path.name} has no section {title!r}"
    return found.group(1)


def test_the_solver_values_example_runs_as_documented() -> None:
    """``docs/agents.md``, "The value of every split": the worked example's every line gives
    what the page shows."""
    section = _section(ROOT / "docs" / "agents.md", "The value of every split")
    blocks = re.findall(r"^```pycon\n(.*?)^```", section, re.M | re.S)
    assert len(blocks) == 1, "the section holds one pycon block"
    parser = doctest.DocTestParser()
    test = parser.get_doctest(blocks[0], {}, "agents.md: The value of every split", "docs/agents.md", 0)
    assert len(test.examples) >= 10
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_the_solver_values_cover_the_candidates_or_every_valid_split() -> None:
    """``solve().evs``: one value a split index, finite exactly for the measured splits (the
    candidates, or with ``splits=valid`` every valid split), the same values on both for the
    same seed; the best of them is the split played."""
    hand = "2c 5c 7d 9d Jh Qs Ks Ad 3h 6s 8c 10c 4h"
    candidates = load_agent("solver:samples=16", THIRTEEN, num_players=3, seed=0).solve(hand, seed=2, seat=1)
    every = load_agent("solver:samples=16,splits=valid", THIRTEEN, num_players=3, seed=0).solve(hand, seed=2, seat=1)
    slots = candidates.hand
    assert candidates.evs.shape == every.evs.shape == (THIRTEEN.n_actions,)
    assert np.array_equal(np.flatnonzero(np.isfinite(candidates.evs)), np.flatnonzero(THIRTEEN.candidate_mask(slots)))
    assert np.array_equal(np.flatnonzero(np.isfinite(every.evs)), np.flatnonzero(THIRTEEN.valid_mask(slots)))
    assert np.array_equal(candidates.evs[candidates.valid], every.evs[candidates.valid])
    assert candidates.ev == every.ev == np.nanmax(every.evs)
    assert candidates.evs[candidates.action] == candidates.ev


# ---------------------------------------------------------------------- SelfPlayEnv's observation space

@pytest.mark.parametrize("name", ["biji", "thirteen"])
def test_selfplay_env_passes_check_env_with_warnings_as_errors(name: str) -> None:
    from gymnasium.utils.env_checker import check_env

    from splitpoker.train.selfplay import SelfPlayEnv

    env = SelfPlayEnv(name, 3, opponents=["random", "greedy"], illegal_action="penalty")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, skip_render_check=True)


@pytest.mark.parametrize("name", ["biji", "thirteen"])
def test_selfplay_env_observation_space_bounds_every_preset_s_observations(name: str) -> None:
    """The ``Box`` is finite, from 0, and holds every seat's observation under every preset;
    each entry's upper bound is reached or is 1 (a one-hot's)."""
    from splitpoker.train.selfplay import SelfPlayEnv

    for preset in _presets(name):
        game = make_game(name, preset)
        players = game.players[1]
        env = SelfPlayEnv(game, players, opponents="random")
        space = env.observation_space
        assert np.isfinite(space.low).all() and np.isfinite(space.high).all() and (space.low == 0).all()
        seen = []
        for seed in range(players):
            obs, _ = env.reset(seed=seed, options={"seat": seed})
            assert space.contains(obs), (preset, seed)
            seen.append(obs)
        reached = np.max(seen, axis=0)
        assert ((reached == space.high) | (space.high == 1)).all(), preset
