"""The offered-splits action space (``splitpoker.envs.offered``): the slots, the truncation
rule, the feature columns and their bounds, the table core's offers, the heuristic's values
at given splits, and the loss the truncation rule costs (``splitpoker.eval.offered_loss``)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitpoker.envs.biji import heuristic as biji_heuristic
from splitpoker.envs.cards import parse_cards
from splitpoker.envs.game import Game
from splitpoker.envs.games import make_game
from splitpoker.envs.observation import observation_size
from splitpoker.envs.offered import (
    MAX_OFFER,
    Offered,
    check_offer,
    offer,
    offer_hands,
    offered_bounds,
    offered_labels,
    offered_width,
    split_observation,
)
from splitpoker.envs.offered_env import slot_message
from splitpoker.envs.reference import reference_rows
from splitpoker.envs.table import deal
from splitpoker.envs.thirteen import heuristic as thirteen_heuristic

HEURISTICS = {"thirteen": thirteen_heuristic, "biji": biji_heuristic}


def dealt(game_name: str, players: int, tables: int, seed: int, preset: str = "classic") -> tuple[Game, np.ndarray]:
    game = make_game(game_name, preset)
    return game, deal(game, players, np.random.default_rng(seed), batch=tables).slots.reshape(-1, game.hand_size)


def heuristic_values(game: Game, hands: np.ndarray, players: int) -> np.ndarray:
    """Every split's heuristic value (the compiled kernel for Thirteen), hand by hand."""
    return HEURISTICS[game.name].split_values(hands, game.rules, reference_rows(game), players)  # type: ignore[no-any-return, arg-type]


def column(game: Game, label: str) -> int:
    return offered_labels(game).index(label)


# ----------------------------------------------------------------------------- known answers

def test_a_straight_flush_back_row_reads_as_one_and_takes_its_royalty() -> None:
    game = make_game("thirteen")
    hand = game.slots(parse_cards("9s Ts Js Qs Ks 2h 2d 7c 8c 4d 5h 6h 3c"))
    offered = offer_hands(game, hand[None], num_players=4, offer=256)
    rows = game.arrangement(hand, int(offered.splits[0, 0]))
    assert sorted(rows[2]) == sorted(parse_cards("9s Ts Js Qs Ks"))
    features = offered.features[0, 0]
    back = [column(game, f"back:{name}") for name in game.type_names]
    assert features[back].tolist() == [0.0] * 8 + [1.0]
    assert features[column(game, "back:bonus")] == 4.0  # the classic back straight flush is worth 5: 4 above a win
    assert features[column(game, "middle:straight")] == 1.0 and features[column(game, "middle:bonus")] == 0.0
    assert features[column(game, "front:pair")] == 1.0
    # 8 five-card rows beat it: the four royal flushes and, the wheel ranking second, the four A-2-3-4-5 ones
    assert features[column(game, "back:rank")] == np.float32(1 - 8.5 / 2_598_960)
    assert features[column(game, "value_gap")] == 0.0


def test_a_straight_flush_in_pot_one_is_paid_its_xi() -> None:
    game = make_game("biji")
    hand = game.slots(parse_cards("2h 3h 4h 5s 6s 7s Ac Ad Ah"))
    offered = offer_hands(game, hand[None], num_players=4, offer=64)
    assert int(offered.counts[0]) == 1 and offered.mask[0].tolist() == [True] + [False] * 63
    features = offered.features[0, 0]
    assert features[column(game, "pot 1:straight_flush")] == 1.0
    assert features[column(game, "pot 1:bonus")] == game.rules.xi_straight_flush_head == 2
    assert features[column(game, "pot 2:bonus")] == 0.0  # a straight flush in pot 2 earns nothing by itself
    assert features[column(game, "pot 3:trips")] == 1.0


@pytest.mark.parametrize(("game_name", "players"), [("thirteen", 4), ("thirteen", 2), ("biji", 5), ("biji", 3)])
def test_slot_zero_is_the_heuristics_choice_and_the_slots_follow_its_values(game_name: str, players: int) -> None:
    game, hands = dealt(game_name, players, tables=10, seed=4)
    offered = offer_hands(game, hands, players, offer=MAX_OFFER)
    values = heuristic_values(game, hands, players)
    for i, candidates in enumerate(game.candidate_lists(hands)):
        mine = values[i, candidates]
        order = candidates[np.lexsort((candidates, -mine))]
        assert offered.splits[i, :len(order)].tolist() == order.tolist()
        assert int(offered.splits[i, 0]) == int(candidates[np.argmax(mine)])
        np.testing.assert_allclose(offered.features[i, :len(order), -2], np.sort(mine)[::-1], rtol=1e-6)
        at = game.heuristic_values_at(hands[[i] * len(order)], order, players)
        np.testing.assert_array_equal(offered.features[i, :len(order), -2], at.astype(np.float32))


# ----------------------------------------------------------------------------- the slots

@pytest.mark.parametrize("game_name", ["thirteen", "biji"])
def test_every_candidate_is_offered_when_k_covers_them_and_the_rest_is_padding(game_name: str) -> None:
    game, hands = dealt(game_name, 4, tables=10, seed=5)
    lists = game.candidate_lists(hands)
    k = max(len(c) for c in lists)
    offered = offer_hands(game, hands, 4, offer=k)
    assert offered.counts.tolist() == [len(c) for c in lists]
    assert len(offered) == len(hands) and offered.features.dtype == np.float32 and offered.splits.dtype == np.int64
    for i, candidates in enumerate(lists):
        filled = len(candidates)
        assert offered.mask[i].tolist() == [True] * filled + [False] * (k - filled)
        assert sorted(offered.splits[i, :filled].tolist()) == candidates.tolist()
        assert (offered.splits[i, filled:] == -1).all() and (offered.features[i, filled:] == 0).all()


def test_truncation_keeps_the_k_candidates_of_the_highest_value() -> None:
    game, hands = dealt("thirteen", 4, tables=10, seed=6)
    k = 8
    offered = offer_hands(game, hands, 4, offer=k)
    every = offer_hands(game, hands, 4, offer=MAX_OFFER)
    values = heuristic_values(game, hands, 4)
    assert (offered.counts > k).sum() > 20
    for i in range(len(hands)):
        kept = offered.splits[i][offered.mask[i]]
        assert kept.tolist() == every.splits[i, :min(k, int(offered.counts[i]))].tolist()
        dropped = np.setdiff1d(every.splits[i][every.mask[i]], kept)
        if len(dropped):
            assert values[i, kept].min() >= values[i, dropped].max()
        # the gap is measured from the best of every candidate, kept or not
        np.testing.assert_array_equal(offered.features[i, :len(kept)], every.features[i, :len(kept)])


def test_choose_maps_slots_to_splits_and_refuses_bad_slots_in_one_line() -> None:
    game, hands = dealt("biji", 4, tables=2, seed=7)
    offered = offer_hands(game, hands, 4, offer=64)
    slots = np.zeros(len(hands), dtype=np.int64)
    slots[0] = int(offered.counts[0]) - 1
    chosen = offered.choose(slots)
    assert chosen.dtype == np.int64
    assert chosen.tolist() == [int(offered.splits[0, slots[0]])] + offered.splits[1:, 0].tolist()
    assert offered.choose(list(slots)).tolist() == chosen.tolist()
    filled = int(offered.counts[3])
    empty = slots.copy()
    empty[3] = filled
    bad = [(empty, f"slot {filled} of row 3 is empty: the hand is offered {filled} splits (slots 0..{filled - 1})"),
           (np.where(np.arange(len(hands)) == 2, 64, 0), "slot 64 of row 2 is out of range 0..63"),
           (np.where(np.arange(len(hands)) == 1, -1, 0), "slot -1 of row 1 is out of range 0..63"),
           ([0.0] * len(hands), "slot 0.0 of row 0 is not an integer"),
           ([0] * (len(hands) - 1) + ["1"], "slot '1' of row 7 is not an integer"),
           (np.zeros((len(hands), 1), dtype=int), "slots of shape (8, 1) are not one slot per offered hand (8,)")]
    for slots_given, message in bad:
        with pytest.raises(ValueError) as error:
            offered.choose(slots_given)
        assert str(error.value) == message


@pytest.mark.parametrize("game_name", ["thirteen", "biji"])
def test_the_labels_name_every_column(game_name: str) -> None:
    game = make_game(game_name)
    labels = offered_labels(game)
    types = len(game.type_names)
    assert len(labels) == offered_width(game) == 3 * (types + 4) + 2 == len(set(labels))
    assert labels[types:types + 4] == tuple(f"{game.row_names[0]}:{c}" for c in ("rank", "beats", "beaten", "bonus"))
    assert offer_hands(game, deal(game, 2, 0).slots[0], 2, 4).features.shape == (2, 4, len(labels))


@pytest.mark.parametrize(("game_name", "players"), [("thirteen", 2), ("thirteen", 4), ("biji", 2), ("biji", 4)])
def test_the_bounds_hold_every_feature_of_500_dealt_hands(game_name: str, players: int) -> None:
    game, hands = dealt(game_name, players, tables=500 // players, seed=8)
    low, high = offered_bounds(game, players)
    assert low.dtype == high.dtype == np.float32 and low.shape == high.shape == (offered_width(game),)
    assert np.isfinite(low).all() and np.isfinite(high).all() and (low <= high).all()
    features = offer_hands(game, hands, players, offer=game.default_offer).features
    assert ((features >= low) & (features <= high)).all()


def test_the_table_core_offers_what_offer_hands_offers() -> None:
    game = make_game("thirteen")
    tables = deal(game, 4, np.random.default_rng(9), batch=6)
    pairs = [(b, seat) for b in range(6) for seat in (2, 0)]
    from_tables = tables.offered_at(pairs, 16)
    direct = offer_hands(game, tables.slots[[b for b, _ in pairs], [s for _, s in pairs]], 4, 16)
    views = tables.views_at(pairs[3:7]).offered(16)
    for field in ("splits", "mask", "features", "counts"):
        np.testing.assert_array_equal(getattr(from_tables, field), getattr(direct, field))
        np.testing.assert_array_equal(getattr(views, field), getattr(direct, field)[3:7])
    np.testing.assert_array_equal(np.sort(from_tables.splits[1][from_tables.mask[1]]), tables.candidate_indices(0, 0)
                                  if from_tables.counts[1] <= 16 else np.sort(from_tables.splits[1]))
    with pytest.raises(ValueError, match=r"^offer=0 must be an integer"):
        tables.offered_at(pairs, 0)
    with pytest.raises(ValueError, match=r"^\(table, seat\) \(6, 0\) is not a seat"):
        tables.offered_at([(6, 0)], 16)


@given(st.integers(0, 2**32 - 1), st.sampled_from(["thirteen", "biji"]), st.integers(2, 4), st.integers(1, 80))
@settings(max_examples=25)
def test_offered_features_keep_their_invariants(seed: int, game_name: str, players: int, k: int) -> None:
    game, hands = dealt(game_name, players, tables=2, seed=seed)
    offered = offer_hands(game, hands, players, offer=k)
    labels = offered_labels(game)
    filled = offered.features[offered.mask]
    assert offered.mask.sum(axis=1).tolist() == np.minimum(offered.counts, k).tolist()
    assert (filled[:, labels.index("value_gap")] <= 0).all()
    assert (offered.features[:, 0, labels.index("value_gap")][offered.counts > 0] == 0).all()
    for row in game.row_names:
        for name in ("rank", "beats", "beaten"):
            values = filled[:, labels.index(f"{row}:{name}")]
            assert ((values >= 0) & (values <= 1)).all()
        one_hot = filled[:, [labels.index(f"{row}:{name}") for name in game.type_names]]
        assert set(np.unique(one_hot).tolist()) <= {0.0, 1.0} and (one_hot.sum(axis=1) == 1).all()
    assert (offered.features[~offered.mask] == 0).all() and (offered.splits[~offered.mask] == -1).all()


# ----------------------------------------------------------------------------- the checks

def test_check_offer_reads_whole_numbers_from_1_to_the_most() -> None:
    assert check_offer(1) == 1 and check_offer(np.int64(MAX_OFFER)) == MAX_OFFER
    assert check_offer(None, make_game("thirteen")) == 256 and check_offer(None, make_game("biji")) == 64
    assert check_offer(None, make_game("biji"), "--offer") == 64
    for bad, message in [(0, "offer=0 must be an integer of at least 1 (at most 4,096)"),
                         (4097, "offer=4097 is more than the most allowed, 4,096"),
                         (2.0, "offer=2.0 must be an integer of at least 1 (at most 4,096)"),
                         (True, "offer=True must be an integer of at least 1 (at most 4,096)"),
                         (None, "offer=None must be an integer of at least 1 (at most 4,096)")]:
        with pytest.raises(ValueError) as error:
            check_offer(bad)
        assert str(error.value) == message


def test_offer_refuses_lists_that_do_not_match_the_hands() -> None:
    game, hands = dealt("biji", 2, tables=1, seed=10)
    lists = game.candidate_lists(hands)
    assert offer(game, hands, lists, 2, 4).counts.tolist() == [len(c) for c in lists]
    assert offer(game, hands, [c.tolist() for c in lists], 2, 4).features.shape == (2, 4, 32)
    assert offer(game, hands, [[], []], 2, 4).mask.sum() == 0
    cases = [(lists[:1], "1 candidate lists for 2 hands; give one list of split indices a hand"),
             ([lists[0], lists[1][::-1]] if len(lists[1]) > 1 else [lists[0], [5, 5]], "lists[1] "),
             ([lists[0], [1680]], "lists[1] [1680] is not a list of ascending split indices from 0 to 1679"),
             ([lists[0], [0.5]], "lists[1] [0.5] is not a list"),
             ([lists[0], [[1, 2]]], "lists[1] [[1, 2]] is not a list"),
             (5, "lists 5 for 2 hands")]
    for lists_given, message in cases:
        with pytest.raises(ValueError) as error:
            offer(game, hands, lists_given, 2, 4)  # type: ignore[arg-type]
        assert str(error.value).startswith(message) and "\n" not in str(error.value)
    with pytest.raises(ValueError, match=r"^num_players=9 is not allowed for biji"):
        offer_hands(game, hands, 9, 4)
    with pytest.raises(ValueError, match=r"^hands of shape \(2, 8\) are not hands"):
        offer_hands(game, hands[:, :8], 2, 4)


def test_hands_not_in_slot_order_are_refused_in_one_line() -> None:
    game = make_game("thirteen")
    cards = parse_cards("9h Th Jh Qh Kh 5s 5d 5c 2s 2d 3c 4c 7d")
    hand = game.slots(cards)
    assert offer_hands(game, hand[None], 4, 8).splits.shape == (1, 8)
    unordered = np.stack([hand, np.array(cards)])
    expected = ("hands[1] (9h Th Jh Qh Kh 5s 5d 5c 2s 2d 3c 4c 7d) is not in slot order (card ids ascending); "
                "pass game.slots(cards)")
    for call in (lambda: offer_hands(game, unordered, 4, 8),
                 lambda: offer(game, unordered, game.candidate_lists(np.stack([hand, hand])), 4, 8)):
        with pytest.raises(ValueError) as error:
            call()
        assert str(error.value) == expected
    twice = hand.copy()
    twice[1] = twice[0]
    with pytest.raises(ValueError, match=r"^hands\[0\] holds \S+ twice$"):
        offer_hands(game, twice[None], 4, 8)
    with pytest.raises(ValueError, match=r"^hands of shape \(1, 3\) are not hands \(N, 13\)"):
        offer_hands(game, hand[None, :3], 4, 8)


@pytest.mark.parametrize("game_name", ["thirteen", "biji"])
def test_a_registered_name_means_the_game_under_its_default_preset(game_name: str) -> None:
    game, hands = dealt(game_name, 4, tables=1, seed=3)
    assert offered_labels(game_name) == offered_labels(game)
    assert offered_width(game_name) == offered_width(game)
    for got, want in zip(offered_bounds(game_name, 4), offered_bounds(game, 4), strict=True):
        np.testing.assert_array_equal(got, want)
    by_name, by_game = offer_hands(game_name, hands, 4, 8), offer_hands(game, hands, 4, 8)
    np.testing.assert_array_equal(by_name.splits, by_game.splits)
    np.testing.assert_array_equal(by_name.features, by_game.features)
    listed = offer(game_name, hands, game.candidate_lists(hands), 4, 8)
    np.testing.assert_array_equal(listed.features, by_game.features)
    observations = np.zeros((2, observation_size(game) + 8 * offered_width(game)), dtype=np.float32)
    assert split_observation(observations, game_name, 8)[1].shape == (2, 8, offered_width(game))


@pytest.mark.parametrize("given", [None, "poker", 3, make_game])
def test_anything_but_a_game_or_its_name_is_refused_in_one_line(given: object) -> None:
    hands = make_game("biji").slots(parse_cards("As Ks Qs 2h 2d 7c 8c 9d Jh"))[None]
    calls = [lambda: offered_labels(given), lambda: offered_width(given),  # type: ignore[arg-type]
             lambda: offered_bounds(given, 4), lambda: offer_hands(given, hands, 4, 4),  # type: ignore[arg-type]
             lambda: offer(given, hands, [np.array([60])], 4, 4),  # type: ignore[arg-type]
             lambda: split_observation(np.zeros(10), given, 4)]  # type: ignore[arg-type]
    for call in calls:
        with pytest.raises(ValueError) as error:
            call()
        message = str(error.value)
        assert message.startswith("game ") and "is neither a Game nor a registered game's name (" in message
        assert "thirteen" in message and "\n" not in message


def test_a_single_offered_split_is_named_in_the_singular() -> None:
    offered = Offered(np.array([[4, -1, -1], [5, 6, -1]]), np.array([[True, False, False], [True, True, False]]),
                      np.zeros((2, 3, 1), np.float32), np.array([1, 2]))
    with pytest.raises(ValueError) as error:
        offered.choose([1, 0])
    assert str(error.value) == "slot 1 of row 0 is empty: the hand is offered 1 split (slot 0)"
    assert slot_message(2, "player_0", offered, 0, "2s 3s") == \
        "slot 2 of player_0 is empty: its hand 2s 3s is offered 1 split (slot 0)"
    assert slot_message(2, "player_1", offered, 1) == "slot 2 of player_1 is empty: its hand is offered 2 splits " \
        "(slots 0..1)"


def test_split_observation_reads_the_layout_back() -> None:
    game = make_game("biji")
    size, width = observation_size(game), offered_width(game)
    observations = np.arange(3 * 2 * (size + 4 * width), dtype=np.float32).reshape(3, 2, -1)
    seat, features = split_observation(observations, game, 4)
    assert seat.shape == (3, 2, size) and features.shape == (3, 2, 4, width)
    np.testing.assert_array_equal(np.concatenate([seat, features.reshape(3, 2, -1)], axis=-1), observations)
    with pytest.raises(ValueError, match=r"^observations of shape \(3, 2, \d+\) are not seat vectors"):
        split_observation(observations, game, 5)


def test_offered_is_a_frozen_record() -> None:
    offered = Offered(np.array([[3]]), np.array([[True]]), np.zeros((1, 1, 2), np.float32), np.array([1]))
    with pytest.raises(AttributeError):
        offered.splits = np.array([[4]])  # type: ignore[misc]


# ----------------------------------------------------------------------------- heuristic values and ranks

@pytest.mark.parametrize(("game_name", "preset", "players"),
                         [("thirteen", "classic", 4), ("thirteen", "shisanshui", 4), ("thirteen", "western", 2),
                          ("thirteen", "bidaxiao", 4), ("thirteen", "banker", 3), ("biji", "classic", 5),
                          ("biji", "no-jokers", 2)])
def test_heuristic_values_at_given_splits_are_the_heuristics_values(game_name: str, preset: str, players: int) -> None:
    """``western`` scores two-four (the majority point), ``bidaxiao`` the majority alone,
    ``shisanshui`` doubles a scoop: every term of the formula is met."""
    game, hands = dealt(game_name, players, tables=300 // players, seed=11, preset=preset)
    lists = game.candidate_lists(hands)
    owner = np.repeat(np.arange(len(hands)), [len(c) for c in lists])
    splits = np.concatenate(lists)
    every = heuristic_values(game, hands, players)
    given = game.heuristic_values_at(hands[owner], splits, players)
    np.testing.assert_allclose(given, every[owner, splits], rtol=0, atol=1e-9)
    low, high = game.heuristic_value_bounds(players)
    assert low <= given.min() and given.max() <= high
    # splits of every kind, the invalid ones at -inf
    drawn = np.random.default_rng(0).integers(0, game.n_actions, size=(len(hands), 8))
    at = game.heuristic_values_at(np.repeat(hands, 8, axis=0), drawn.ravel(), players).reshape(drawn.shape)
    expected = np.take_along_axis(every, drawn, axis=1)
    np.testing.assert_array_equal(np.isinf(at), np.isinf(expected))
    np.testing.assert_allclose(at[np.isfinite(at)], expected[np.isfinite(expected)], rtol=0, atol=1e-9)


def test_the_exact_rank_counts_every_row_of_the_deck() -> None:
    game = make_game("biji", "no-jokers")
    rows = np.array(list(itertools.combinations(game.deck().tolist(), 3)))
    strengths = game.row_strengths(rows)
    distinct, counts = np.unique(strengths, return_counts=True)
    expected = {int(s): (np.cumsum(counts)[i] - counts[i] / 2) / len(rows) for i, s in enumerate(distinct)}
    _, hands = dealt("biji", 3, tables=5, seed=12, preset="no-jokers")
    offered = offer_hands(game, hands, 3, offer=64)
    for i, hand in enumerate(hands):
        for slot in range(int(offered.mask[i].sum())):
            pots = game.split_row_strengths(hand, offered.splits[i, slot])
            for k, row in enumerate(game.row_names):
                rank = offered.features[i, slot, column(game, f"{row}:rank")]
                assert rank == np.float32(expected[int(pots[k])])


# ----------------------------------------------------------------------------- the loss of truncation

def test_offered_loss_measures_the_value_truncation_drops() -> None:
    from splitpoker.eval.offered_loss import offered_loss

    small = offered_loss("biji", hands=10, offer=1, players=4, seed=3, samples=16)
    assert small.hands == 10 and 0 < small.truncated <= 10 and small.offer == 1
    assert small.mean_loss >= 0 and small.max_loss >= small.mean_truncated_loss >= small.mean_loss
    assert offered_loss("biji", hands=10, offer=1, players=4, seed=3, samples=16) == small  # reproducible
    covered = offered_loss("biji", hands=10, offer=small.max_candidates, players=4, seed=3, samples=16)
    assert (covered.truncated, covered.mean_loss, covered.max_loss) == (0, 0.0, 0.0)
    thirteen = offered_loss("thirteen", hands=3, offer=2, players=2, seed=1, samples=8)
    assert thirteen.truncated == 3 and thirteen.mean_loss >= 0
    with pytest.raises(ValueError, match=r"^--offer 0 must be an integer"):
        offered_loss("biji", hands=2, offer=0, options=True)


def test_offered_loss_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from splitpoker.eval.offered_loss import main

    assert main(["--game", "biji", "--hands", "4", "--offer", "2", "--players", "3", "--samples", "4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["hands"] == 4 and report["offer"] == 2 and report["players"] == 3
    assert main(["--game", "biji", "--hands", "0"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "python -m splitpoker.eval.offered_loss: error: --hands 0 must be an integer of at least 1 (at most "
        "10,000,000)"]
