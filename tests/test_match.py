"""The match module: dealing order, who is dealt first, the moving bank, totals, the
payoff items and the refusal of bad input."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from splitpoker.envs.cards import format_cards
from splitpoker.envs.games import GAMES, game_class, make_game
from splitpoker.envs.match import Match, deal_in_order
from splitpoker.envs.table import from_hands

PRESETS = [(name, preset) for name in GAMES for preset in game_class(name).rules_class.PRESETS]


def last_valid(match: Match) -> list[int]:
    """Every seat plays its valid split of highest index (a fixed, non-trivial choice)."""
    assert match.current is not None
    return [int(np.flatnonzero(v.mask)[-1]) for v in match.current.tables.views()]


def test_cards_go_round_the_table_from_the_first_seat() -> None:
    game = make_game("biji")
    hands = deal_in_order(game, 4, first=2, rng=np.random.default_rng(5))
    cards = np.random.default_rng(5).permutation(game.deck())[:36]
    for turn, seat in enumerate([2, 3, 0, 1]):
        assert hands[seat].tolist() == sorted(cards[turn::4].tolist())


def test_pinned_first_hand() -> None:
    """A fixed seed deals a fixed match (regression)."""
    match = Match(make_game("thirteen"), num_players=2, hands=1, rng=11)
    assert match.current is not None and match.current.first == 0
    assert format_cards(match.current.hand(0)) == "2s 3c 3d 4d 4s 8c 8h Th Jc Jd Jh Ad Ah"
    record = match.play(last_valid(match))
    assert record.payoffs.tolist() == [3.0, -3.0]


def test_biji_deals_from_the_seat_after_the_third_pot_winner() -> None:
    match = Match(make_game("biji"), num_players=4, hands=12, rng=3)
    firsts = []
    while not match.finished:
        record = match.play(last_valid(match))
        firsts.append(record.deal.first)
        winner = int(np.flatnonzero(np.asarray(record.score.places)[:, 2] == 1)[0])  # type: ignore[attr-defined]
        if match.current is not None:
            assert match.current.first == (winner + 1) % 4
    assert len(set(firsts)) > 1


def test_thirteen_moves_the_deal_on_one_seat() -> None:
    match = Match(make_game("thirteen"), num_players=3, hands=5, rng=1)
    firsts = []
    while not match.finished:
        firsts.append(match.play(last_valid(match)).deal.first)
    assert firsts == [(firsts[0] + k) % 3 for k in range(5)]
    assert all(r.deal.banker is None for r in match.history)


@pytest.mark.parametrize("term, bankers", [(None, [0, 0, 0, 0, 1, 1, 1, 1, 2]), (2, [0, 0, 1, 1, 2, 2, 0, 0, 1])])
def test_the_bank_moves_every_term(term: int | None, bankers: list[int]) -> None:
    """Thirteen's banker preset: each seat keeps the bank four hands (每人坐庄四盘), or the
    term given; every hand is scored with its banker."""
    match = Match(make_game("thirteen", "banker"), num_players=3, hands=9, rng=2, banker_term=term)
    while not match.finished:
        record = match.play(last_valid(match))
        rules = record.deal.game.rules
        assert rules.banker_seat == record.deal.banker  # type: ignore[attr-defined]
        rows = [record.rows(s) for s in range(3)]
        expected = make_game("thirteen", "banker", banker_seat=record.deal.banker).score(rows).payoffs
        assert record.payoffs.tolist() == expected.tolist()
    assert [r.deal.banker for r in match.history] == bankers


@pytest.mark.parametrize("game_name, preset", PRESETS)
def test_totals_and_payoff_items_add_up(game_name: str, preset: str) -> None:
    game = make_game(game_name, preset)
    match = Match(game, num_players=4, hands=6, rng=9)
    while not match.finished:
        record = match.play(last_valid(match))
        sums = np.zeros(4)
        for item in game.payoff_items(record.score):
            sums[item["seat"]] += item["amount"]
        assert np.allclose(sums, record.payoffs)
        assert np.isclose(record.payoffs.sum(), 0)
    assert np.allclose(match.totals, sum(r.payoffs for r in match.history))
    played = match.to_dict()
    assert len(played["played"]) == 6 and played["finished"] and played["totals"] == match.totals.tolist()


def test_thirteen_items_known_answer() -> None:
    """Trips in front (3), four of a kind in the middle (8), a straight flush in the back (5)
    against a weak hand, scoop doubled: rows 3, royalties 2 + 7 + 4, scoop 16."""
    game = make_game("thirteen", "classic", scoop="double")
    strong = "Ac Ad Ah | Kc Kd Kh Ks 2c | Qc Jc Tc 9c 8c"
    weak = "2d 3h 4s | 5d 6h 8s 9d Js | 7c 7d 3c 3d Td"
    score = game.score([game.parse_arrangement(strong), game.parse_arrangement(weak)])
    items = [(i["kind"], i["row"], i["amount"]) for i in game.payoff_items(score) if i["seat"] == 0]
    assert items == [("row", 0, 1.0), ("royalty", 0, 2.0), ("row", 1, 1.0), ("royalty", 1, 7.0),
                     ("row", 2, 1.0), ("royalty", 2, 4.0), ("scoop", None, 16.0)]
    assert score.payoffs.tolist() == [32, -32]


def test_biji_items_known_answer() -> None:
    """The rule text's example: pots won by A, B and C in turn; A's 全黑 makes B and C pay 2 more each."""
    game = make_game("biji")
    hands = ["9s 9c 2s | 3s 4c 5s | Ks Js 7s", "8h 8d 3c | Th 6h 4h | Qd 9d 5d", "2h 5c Jc | 6c 7d 8c | Ac Ad Ah"]
    score = game.score([game.parse_arrangement(h) for h in hands])
    items = game.payoff_items(score)
    assert [(i["kind"], i["row"], i["detail"], i["amount"]) for i in items if i["seat"] == 0] == [
        ("pot", 0, "place 1", 3.0), ("pot", 1, "place 3", -2.0), ("pot", 2, "place 2", -1.0),
        ("xi", None, "all_black ×1", 4.0)]
    assert [(i["against"], i["amount"]) for i in items if i["kind"] == "xi" and i["seat"] != 0] == [(0, -2.0),
                                                                                                   (0, -2.0)]


def test_row_places() -> None:
    game = make_game("biji")
    tables = from_hands(game, ["9s 9c 2s 3s 4c 5s Ks Js 7s", "8h 8d 3c Th 6h 4h Qd 9d 5d",
                               "2h 5c Jc 6c 7d 8c Ac Ad Ah"])
    match = Match(game, 3, 1, rng=0)
    assert match.current is not None
    match.current = dataclasses.replace(match.current, tables=tables)
    actions = [game.index_of(tables.slots[0, s], game.parse_arrangement(h)) for s, h in enumerate(
        ["9s 9c 2s | 3s 4c 5s | Ks Js 7s", "8h 8d 3c | Th 6h 4h | Qd 9d 5d", "2h 5c Jc | 6c 7d 8c | Ac Ad Ah"])]
    record = match.play(actions)
    assert record.row_places() == [[1, 2, 3], [3, 1, 2], [2, 3, 1]]
    assert record.to_dict()["seats"][0]["rows"][2] == ["7s", "Js", "Ks"]


def test_bad_input_changes_nothing() -> None:
    match = Match(make_game("thirteen"), num_players=2, hands=1, rng=4)
    deal = match.current
    assert deal is not None
    invalid = int(np.flatnonzero(~deal.tables.mask(0, 0))[0])
    with pytest.raises(ValueError, match="fouls"):
        match.play([invalid, last_valid(match)[1]])
    with pytest.raises(ValueError, match="one split index for each of the 2 seats"):
        match.play([0])
    assert match.current is deal and match.history == [] and match.totals.tolist() == [0, 0]
    match.play(last_valid(match))
    with pytest.raises(ValueError, match="the match is over"):
        match.play([0, 0])


@pytest.mark.parametrize("kwargs, message", [({"hands": 0}, "hands=0"), ({"hands": True}, "hands=True"),
                                             ({"hands": 2, "banker_term": 0}, "banker_term=0"),
                                             ({"hands": 2, "banker_term": 3},
                                              "banker_term=3: these thirteen rules have no banker"),
                                             ({"hands": 2, "num_players": 6}, "num_players=6")])
def test_bad_settings(kwargs: dict, message: str) -> None:
    arguments = {"num_players": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        Match(make_game("thirteen"), rng=0, **arguments)


def test_no_bank_without_banker_rules() -> None:
    with pytest.raises(ValueError, match="has no banker"):
        make_game("biji").with_banker(1)
