"""The undominated splits (the candidates): the compiled sweep against a plain pairwise
reference, the payoff never falling from a dominated split to the candidate that beats it
(every preset and every switch that changes payments), the solver's best value, the table
core and the environments' ``mask="undominated"``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import splitpoker.envs as envs
from splitpoker.agents.solver import split_evs
from splitpoker.envs.biji.rules import BijiRules, GroupType
from splitpoker.envs.dominance import (
    CANDIDATE,
    INVALID,
    LISTED,
    DominanceRows,
    beats,
    candidate_lists,
    dominance_keys,
    promote,
    split_classes,
)
from splitpoker.envs.games import GAMES, game_names, make_game
from splitpoker.envs.registration import env_name
from splitpoker.envs.table import Tables, deal, deal_around, from_hands
from splitpoker.envs.thirteen.dominance import monotone_values
from splitpoker.envs.thirteen.rules import ThirteenRules
from splitpoker.envs.thirteen.scoring import value_table

#: (game, preset, switches): every preset, and each switch that changes what is paid
RULES = [("thirteen", name, {}) for name in ThirteenRules.PRESETS] + [
    ("thirteen", "classic", {"royalties": "none"}),
    ("thirteen", "classic", {"scoop": "double"}),
    ("thirteen", "shisanshui", {"home_run": False}),
    ("thirteen", "classic", {"specials": "off"}),
    ("thirteen", "classic", {"special_pays": 3}),
    ("thirteen", "classic", {"counted_rows": "back"}),
    ("thirteen", "classic", {"scoring": "banker", "banker_seat": 1}),
    ("thirteen", "banker", {"tie_winner": "banker", "suit_tiebreak": False}),
    ("thirteen", "classic", {"suit_tiebreak": False}),
    ("thirteen", "classic", {"flush_compare": "suit_first"}),
    ("thirteen", "classic", {"wheel": "lowest"}),
    ("thirteen", "western", {"wheel": "none"}),
] + [("biji", name, {}) for name in BijiRules.PRESETS] + [
    ("biji", "classic", {"xi_straight_flush_head": 0}),
    ("biji", "classic", {"xi_three_trips": 5, "xi_sweep": 0}),
    ("biji", "classic", {"xi_sweep": 4}),
    ("biji", "classic", {"pair_tiebreak": "pair_suit"}),
    ("biji", "no-jokers", {"flush_compare": "all_ranks"}),
]
IDS = [f"{g}-{p}-" + ",".join(f"{k}={v}" for k, v in s.items()) for g, p, s in RULES]


def plain_keys(game, slots: np.ndarray) -> np.ndarray:
    """The key of every split written out from the rules, independently of the games'
    dominance modules: the rows' strengths (0 for a row the rules never pay) and, in Biji
    when 顺清打头 pays, the flag of a straight flush in pot 1."""
    first, middle, last = game.split_strengths(slots)
    keys = np.stack([first, middle, last, np.zeros_like(first)], axis=1)
    if game.name == "thirteen":
        paid = value_table(game.rules).any(axis=1)
        keys[:, :3] *= paid
    elif game.rules.xi_straight_flush_head:
        keys[:, 3] = game.strength_type(first) == GroupType.STRAIGHT_FLUSH
    return keys


def plain_candidates(game, slots: np.ndarray, reference_pool: np.ndarray | None = None) -> np.ndarray:
    """The candidates by the definition: valid splits that no valid split beats, each
    compared with every split of ``reference_pool`` (all valid splits by default), in
    blocks of splits."""
    keys = plain_keys(game, slots)
    valid = np.flatnonzero(game.valid_mask(slots))
    pool = valid if reference_pool is None else np.asarray(reference_pool)
    theirs, out = keys[pool], np.zeros(game.n_actions, dtype=bool)
    for start in range(0, len(valid), 2048):
        x = valid[start:start + 2048]
        mine = keys[x][:, None, :]
        at_least = ((theirs[None, :, :3] >= mine[..., :3]).all(axis=2)
                    & ((theirs[None, :, 3] & mine[..., 3]) == mine[..., 3]))
        equal = (theirs[None] == mine).all(axis=2)
        beaten = at_least & (~equal | (pool[None, :] < x[:, None])) & (pool[None, :] != x[:, None])
        out[x] = ~beaten.any(axis=1)
    return out


def test_plain_candidates_agree_with_beats() -> None:
    """The blocked reference against :func:`beats` applied split by split."""
    game = make_game("biji")
    hand = deal(game, 2, np.random.default_rng(9)).slots[0, 0]
    keys = plain_keys(game, hand)
    valid = np.flatnonzero(game.valid_mask(hand))
    one_by_one = np.zeros(game.n_actions, dtype=bool)
    for x in valid:
        one_by_one[x] = not beats(keys[valid], valid, keys[x], x).any()
    assert np.array_equal(one_by_one, plain_candidates(game, hand))


@pytest.mark.parametrize("game_name,preset,switches", RULES, ids=IDS)
def test_sweep_matches_the_definition(game_name: str, preset: str, switches: dict) -> None:
    """The compiled candidates are the valid splits no valid split beats. Biji: every pair of
    valid splits compared. Thirteen (22,000 valid splits): every valid split compared with
    the candidates, which decides the set exactly (a split is beaten by some valid split iff
    it is beaten by an unbeaten one); the full pairwise check runs in the slow tests."""
    game = make_game(game_name, preset, **switches)
    players = min(4, game.players[1])
    tables = deal(game, players, np.random.default_rng(7), batch=2 if game_name == "thirteen" else 6)
    hands = tables.slots.reshape(-1, game.hand_size)
    classes = game.split_classes(hands)
    assert np.array_equal(classes > 0, game.valid_masks(hands))
    for hand, row in zip(hands, classes):
        found = np.flatnonzero(row == 2)
        assert len(found) >= 1
        pool = None if game_name == "biji" else found
        assert np.array_equal(plain_candidates(game, hand, pool), row == 2)


@pytest.mark.parametrize("game_name,preset,switches", RULES, ids=IDS)
def test_early_stopping_sweep_and_compiled_masks_agree(game_name: str, preset: str, switches: dict) -> None:
    """The sweep that only looks for the candidates (and stops early) finds the same
    candidates as the full classification, also when it lists them as indices, and the
    batched valid masks equal the rules' own mask hand by hand, on 40 random hands of every
    preset and switch."""
    game = make_game(game_name, preset, **switches)
    hands = deal(game, 4, np.random.default_rng(17), batch=10).slots.reshape(-1, game.hand_size)
    classes = game.split_classes(hands)
    assert np.array_equal(game.candidate_masks(hands), classes == CANDIDATE)
    listed = game.candidate_lists(hands)
    assert [row.tolist() for row in listed] == [np.flatnonzero(row == CANDIDATE).tolist() for row in classes]
    assert all(row.dtype == np.int64 for row in listed)
    masks = game.valid_masks(hands)
    assert np.array_equal(masks, classes != INVALID)
    for hand, mask in zip(hands, masks):
        assert np.array_equal(mask, game.valid_mask(hand))


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic", "western"])
def test_thirteen_sweep_matches_every_pair(preset: str) -> None:
    game = make_game("thirteen", preset)
    hand = deal(game, 4, np.random.default_rng(3)).slots[0, 0]
    assert np.array_equal(plain_candidates(game, hand), game.candidate_mask(hand))


@pytest.mark.parametrize("game_name,preset,switches", RULES, ids=IDS)
def test_no_dominated_split_scores_more(game_name: str, preset: str, switches: dict) -> None:
    """On random hands against random valid arrangements of the other seats, scored by the
    rules engine table by table: a dominated split never scores more than the candidate
    that beats it (:func:`promote`)."""
    game = make_game(game_name, preset, **switches)
    rng = np.random.default_rng(11)
    players = int(rng.integers(game.players[0], min(game.players[1], 4) + 1))
    if game.banker() is not None and game.banker() >= players:
        players = game.banker() + 1
    tables = deal(game, players, rng, batch=6)
    for b in range(tables.batch):
        hand = tables.slots[b, 0]
        classes = game.split_classes(hand[None])[0]
        rows = game.dominance_rows(hand[None])
        candidates = np.flatnonzero(classes == 2)
        dominated = np.flatnonzero(classes == 1)
        tried = rng.choice(dominated, size=min(12, len(dominated)), replace=False) if len(dominated) else []
        others = [rng.choice(np.flatnonzero(tables.valid_mask(b, s)), size=4) for s in range(1, players)]
        for x in tried:
            c = promote(rows, game.split_index, 0, int(x), candidates)
            assert c in candidates and c != x
            for k in range(4):
                actions = np.array([[x, *(o[k] for o in others)], [c, *(o[k] for o in others)]])
                payoffs = _score(game, hand, tables.slots[b], actions)
                assert payoffs[1] >= payoffs[0] - 1e-9, (x, c, payoffs)


def _score(game, hand: np.ndarray, seats: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Seat 0's payoff at two copies of one table, one row of ``actions`` each."""
    return Tables(game, np.stack([seats, seats])).score(actions).payoffs[:, 0]


@pytest.mark.parametrize("game_name,preset,switches", RULES, ids=IDS)
def test_solver_best_value_is_a_candidates(game_name: str, preset: str, switches: dict) -> None:
    """The best expected value over the candidates equals the best over every valid split,
    on the same sampled tables; and every dominated split's value is at most its
    candidate's."""
    game = make_game(game_name, preset, **switches)
    rng = np.random.default_rng(5)
    players = min(4, game.players[1])
    if game.banker() is not None and game.banker() >= players:
        players = game.banker() + 1
    hand = deal(game, players, rng).slots[0, 0]
    around = deal_around(game, hand, 0, players, 24, rng)
    opponents = np.stack([np.stack([game.arranged(around.slots[b, s], rng.choice(np.flatnonzero(
        around.valid_mask(b, s)))) for s in range(1, players)]) for b in range(24)])
    valid, evs = split_evs(game, hand, opponents)
    candidates = game.candidate_mask(hand)
    assert np.isclose(evs[candidates[valid]].max(), evs.max(), rtol=0, atol=1e-9)
    rows = game.dominance_rows(hand[None])
    ev_of = dict(zip(valid.tolist(), evs.tolist()))
    cands = np.flatnonzero(candidates)
    for x in rng.choice(valid[~candidates[valid]], size=min(20, int((~candidates[valid]).sum())), replace=False):
        assert ev_of[promote(rows, game.split_index, 0, int(x), cands)] >= ev_of[int(x)] - 1e-9


def test_counted_rows_back_leaves_the_best_backs() -> None:
    """寶馬會 pays the back row only: a candidate per strongest back row, the lowest index."""
    game = make_game("thirteen", "baomahui")
    hand = deal(game, 4, np.random.default_rng(0)).slots[0, 0]
    candidates = np.flatnonzero(game.candidate_mask(hand))
    _, _, last = game.split_strengths(hand)
    valid = game.valid_mask(hand)
    assert len(candidates) == 1
    assert last[candidates[0]] == last[valid].max()
    assert candidates[0] == np.flatnonzero(valid & (last == last[valid].max()))[0]


def test_biji_straight_flush_head_keeps_a_weaker_split() -> None:
    """顺清打头 pays a straight flush in pot 1 though trips there are stronger: 567 in three
    suits keeps the three straight flushes (flagged) beside the three trips, which are
    stronger in every pot; with the 喜 off the straight flushes are dominated."""
    game = make_game("biji")
    off = make_game("biji", xi_straight_flush_head=0)
    hand = from_hands(game, ["5h 5s 5d 6h 6s 6d 7h 7s 7d", "2c 3c 4d 8d Tc Jd Qs As Ah"]).slots[0, 0]
    rows = game.dominance_rows(hand[None])
    keys = dominance_keys(rows, game.split_index)
    candidates = np.flatnonzero(game.candidate_mask(hand))
    flagged = [c for c in candidates if keys[c, 3]]
    assert flagged, "the straight flush in pot 1 must stay a candidate"
    plain = keys[candidates, :3]
    assert any(((plain >= keys[c, :3]).all(axis=1) & (plain != keys[c, :3]).any(axis=1)).any() for c in flagged)
    assert not set(flagged) & set(np.flatnonzero(off.candidate_mask(hand)))


def test_a_rule_without_a_monotone_key_keeps_every_valid_split() -> None:
    """A royalty table whose values fall as the type rises has no monotone key (every valid
    split stays a candidate); the classic and empty tables do."""
    values = value_table(ThirteenRules.preset("classic")).copy()
    assert monotone_values(values) and monotone_values(value_table(ThirteenRules.preset("classic", royalties="none")))
    values[2, 7] = 0  # a back four of a kind paid less than a back full house
    assert not monotone_values(values)
    game = make_game("thirteen")
    hand = deal(game, 4, np.random.default_rng(1)).slots[0, 0]
    rows = dataclasses.replace(game.dominance_rows(hand[None]), reduce=False)
    classes = split_classes(rows, game.split_index)[0]
    assert np.array_equal(classes == 2, game.valid_mask(hand))
    # more than the sweep lists (LISTED): classified in full instead, the same splits
    assert np.array_equal(candidate_lists(rows, game.split_index)[0], np.flatnonzero(game.valid_mask(hand)))


def test_listed_candidates_beyond_the_lists_capacity() -> None:
    """Hands of more candidates than the sweep lists (LISTED) beside hands of fewer, in one
    batch: each hand's list is its candidates, in order."""
    game = make_game("thirteen")
    hands = deal(game, 4, np.random.default_rng(2), batch=50).slots.reshape(-1, game.hand_size)
    masks = game.candidate_masks(hands)
    sizes = masks.sum(axis=1)
    assert (sizes > LISTED).any() and (sizes <= LISTED).any()
    assert [row.tolist() for row in game.candidate_lists(hands)] == [np.flatnonzero(m).tolist() for m in masks]


def test_flags_are_bounded() -> None:
    keys = (np.zeros((1, 84), dtype=np.int64),) * 3
    with pytest.raises(ValueError, match="at most 3 flags"):
        DominanceRows(keys=keys, checks=keys, strict=True, n_flags=4)


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=25, deadline=None)
def test_candidates_of_random_biji_hands(seed: int) -> None:
    game = make_game("biji")
    hand = deal(game, 2, np.random.default_rng(seed)).slots[0, 0]
    assert np.array_equal(plain_candidates(game, hand), game.candidate_mask(hand))


# ---------------------------------------------------------------------- the table core and the envs

@pytest.mark.parametrize("game_name", game_names())
def test_tables_give_candidates(game_name: str) -> None:
    game = make_game(game_name)
    tables = deal(game, 3, np.random.default_rng(2), batch=4, mask="undominated")
    plain = deal(game, 3, np.random.default_rng(2), batch=4)
    for b in range(4):
        for s in range(3):
            candidates = tables.mask(b, s)
            assert np.array_equal(candidates, game.candidate_mask(tables.slots[b, s]))
            assert np.array_equal(tables.valid_mask(b, s), plain.mask(b, s))
            assert not (candidates & ~plain.mask(b, s)).any()
            assert np.array_equal(tables.candidate_indices(b, s), np.flatnonzero(candidates))
    with pytest.raises(ValueError, match="mask='all' is not a kind of action mask"):
        deal(game, 3, 0, mask="all")


@pytest.mark.parametrize("module", [getattr(envs, env_name(cls)) for cls in GAMES.values()])
def test_env_undominated_mask(module) -> None:
    from pettingzoo.test import api_test

    api_test(module.env(num_players=3, mask="undominated"), num_cycles=3)
    raw = module.raw_env(num_players=3, mask="undominated")
    raw.reset(seed=4)
    game = raw.game
    for seat, agent in enumerate(raw.possible_agents):
        mask = raw.observe(agent)["action_mask"].astype(bool)
        assert np.array_equal(mask, game.candidate_mask(raw._tables.slots[0, seat]))
    valid = raw._tables.valid_mask(0, 0)
    dominated = int(np.flatnonzero(valid & ~raw.observe("player_0")["action_mask"].astype(bool))[0])
    with pytest.raises(ValueError, match="is dominated"):
        raw.step(dominated)
    with pytest.raises(ValueError, match="mask='x' is not a kind of action mask"):
        module.env(mask="x")


# ---------------------------------------------------------------------- the solver over the candidates

@pytest.mark.parametrize("game_name,preset", [("thirteen", "classic"), ("thirteen", "shisanshui"),
                                              ("thirteen", "western"), ("biji", "classic")])
def test_solver_over_candidates_finds_the_same_value(game_name: str, preset: str) -> None:
    """``splits=candidates`` measures the candidates only, on the same sampled tables as
    ``splits=valid``: the same best value, a split of that value, and any other split's value
    on demand (:meth:`SolveResult.ev_of`)."""
    from splitpoker.agents import load_agent

    game = make_game(game_name, preset)
    fast = load_agent("solver:samples=32,splits=candidates", game, num_players=2 if preset == "western" else 4)
    full = load_agent("solver:samples=32,splits=valid", game, num_players=2 if preset == "western" else 4)
    rng = np.random.default_rng(2)
    for _ in range(3):
        hand = rng.permutation(game.deck())[:game.hand_size]
        a, b = fast.solve(hand, seed=8), full.solve(hand, seed=8)
        assert a.measured == "candidates" and np.array_equal(a.valid, np.flatnonzero(game.candidate_mask(a.hand)))
        assert a.ev == pytest.approx(b.ev, abs=1e-12)
        assert b.evs[a.action] == pytest.approx(b.ev, abs=1e-12)
        dominated = int(np.flatnonzero(np.isnan(a.evs) & ~np.isnan(b.evs))[0])
        assert a.ev_of(dominated) == pytest.approx(b.evs[dominated], abs=1e-12)
        assert [i for i, _ in a.ranking(3)] == [i for i, _ in b.ranking() if i in a.valid][:3]


def test_solver_splits_option_is_checked() -> None:
    from splitpoker.agents import load_agent

    with pytest.raises(ValueError, match="splits=some is not allowed; use candidates or valid"):
        load_agent("solver:splits=some", make_game("biji"), num_players=4)


# ---------------------------------------------------------------------- learned policies over the candidates

@pytest.mark.parametrize("name,preset,players", [("thirteen_western_2p", "western", 2),
                                                 ("thirteen", "shisanshui", 3),
                                                 ("biji", "classic", 4)])
def test_policy_decides_sparse_masks_as_the_dense_kernels(name: str, preset: str, players: int,
                                                          tmp_path: Path) -> None:
    """A split scorer (shipped, or a small one as training writes it) given the candidates as
    its mask: the sparse path (the subsets the candidates use, nothing else) chooses what the
    dense kernels choose over the same mask, the most likely split and the draws of fixed
    uniforms, and every choice is a candidate."""
    import splitpoker.agents.learned.split_inference as inference
    from splitpoker.agents import load_agent
    from tests.helpers import policy_file

    game = make_game(name.split("_")[0], preset)
    spec = (f"pretrained:{name}" if "_" in name
            else f"checkpoint:{policy_file(tmp_path / 'policy.zip', preset, name, players)}")
    agent = load_agent(spec, game, num_players=players, seed=0)
    tables = deal(game, players, np.random.default_rng(5), batch=24, mask="undominated")
    views = tables.views(seats=[0])
    observations, masks = np.stack([v.observation for v in views]), np.stack([v.mask for v in views])
    assert (masks.sum(axis=1) <= masks.shape[1] * inference.SPARSE_SHARE).mean() > 0.9
    uniforms = np.random.default_rng(1).random(len(views))
    sparse = [inference.choices(agent.policy, observations, masks, u) for u in (None, uniforms)]
    share = inference.SPARSE_SHARE
    try:
        inference.SPARSE_SHARE = 0.0
        dense = [inference.choices(agent.policy, observations, masks, u) for u in (None, uniforms)]
    finally:
        inference.SPARSE_SHARE = share
    for got, expected in zip(sparse, dense):
        assert np.array_equal(got, expected)
        assert masks[np.arange(len(got)), got].all()


def test_evaluation_over_the_candidates() -> None:
    """``EvalSettings(mask="undominated")``: every seat of every deal plays a candidate; a bad
    mask is refused before any deal."""
    from splitpoker.eval.duplicate import deal_group
    from splitpoker.eval.runner import EvalSettings, run

    settings = EvalSettings(game="thirteen", agents=["greedy", "random", "heuristic"], hands=3, players=3, seed=2,
                            regret=False, mask="undominated")
    _, decisions = run(settings, progress=False)
    game = make_game("thirteen")
    for d in decisions:
        hand = deal_group(game, 3, 2, d.group).slots[0, d.seat]
        assert game.candidate_mask(hand)[d.action]
    with pytest.raises(ValueError, match="mask='some' is not a kind of action mask"):
        EvalSettings(game="biji", agents=["greedy"], mask="some")


def test_solver_opponents_over_their_candidates() -> None:
    """``opponent_mask=undominated``: the opponent model decides over its candidates (every
    sampled opponent split is one); a bad value is refused."""
    from splitpoker.agents import load_agent

    game = make_game("thirteen")
    solver = load_agent("solver:samples=8,opponent=random,opponent_mask=undominated,splits=candidates", game,
                        num_players=3, seed=1)
    result = solver.solve(deal(game, 3, np.random.default_rng(4)).slots[0, 0], seed=2)
    for s in range(result.samples):
        for j in range(2):
            assert game.candidate_mask(result.opponent_hands[s, j])[result.opponent_actions[s, j]]
    assert "opponent_mask=undominated" in solver.name
    with pytest.raises(ValueError, match="opponent_mask=some is not allowed"):
        load_agent("solver:opponent_mask=some", game, num_players=3)


@pytest.mark.parametrize("preset,switches", [("classic", {}), ("no-jokers", {}),
                                             ("classic", {"pair_tiebreak": "pair_suit"}),
                                             ("classic", {"flush_compare": "all_ranks"})])
def test_biji_group_kernel_equals_the_rules(preset: str, switches: dict) -> None:
    """The compiled group strengths of the dominance keys equal the rules' ``group_strengths``."""
    from splitpoker.envs.biji.kernels import group_strengths_of_hands
    from splitpoker.envs.biji.rules import group_strengths
    from splitpoker.envs.splits import BIJI

    game = make_game("biji", preset, **switches)
    hands = deal(game, 5, np.random.default_rng(8), batch=40).slots.reshape(-1, 9)
    expected = group_strengths(hands[:, BIJI.subsets(3).astype(np.intp)].reshape(-1, 3),
                               game.rules).reshape(len(hands), -1)
    assert np.array_equal(group_strengths_of_hands(hands, game.rules), expected)
