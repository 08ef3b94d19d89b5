"""What the browser page reads from the server beyond the play itself: the special hand
(报到) of a dealt hand, the rows an invalid arrangement breaks, suggestions that differ by
more than a suit swap, the pickers each row offers, the rules panel's tables, seat agents
and special hands named in the reveal and the record."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")

from splitpoker.envs.cards import parse_cards  # noqa: E402
from splitpoker.envs.games import make_game  # noqa: E402
from splitpoker.play.session import broken_order, pickers  # noqa: E402
from tests.test_play_api import client_for, new_match  # noqa: E402

#: a server seed whose first match deals seat 0 six pairs (六对半) in its first hand
#: (thirteen, classic, two players)
SPECIAL_SEED = 251


def test_a_special_hand_is_announced_and_named_in_the_reveal() -> None:
    client = client_for(game="thirteen", players=2, hands=2, seed=SPECIAL_SEED, against=("random",))
    state = new_match(client)
    assert state["hand"]["special"] == {"name": "six_pairs", "paid": 3.0}
    match_id = state["id"]
    auto = client.post(f"/api/matches/{match_id}/auto", json={"hand": 0}).json()
    played = client.post(f"/api/matches/{match_id}/submit", json={"hand": 0, "rows": auto["rows"]}).json()
    seat = played["reveal"]["seats"][0]
    assert seat["special_name"] == "six_pairs" and seat["special"] == 3
    assert played["reveal"]["seats"][1]["special_name"] is None
    assert played["state"]["last"]["seats"][0]["special_name"] == "six_pairs"
    record = client.get(f"/api/matches/{match_id}/record").json()
    assert record["played"][0]["seats"][0]["special_name"] == "six_pairs"
    assert record["played"][0]["timed_out"] is False


def test_hands_without_a_special_and_games_without_specials() -> None:
    assert new_match(client_for(game="thirteen", players=2, seed=3))["hand"]["special"] is None
    assert new_match(client_for(game="thirteen", preset="classic", switches={"specials": "off"}, players=2,
                                seed=SPECIAL_SEED, against=("random",)))["hand"]["special"] is None
    assert new_match(client_for(game="biji", players=3, seed=1))["hand"]["special"] is None


def test_an_invalid_arrangement_names_the_rows_out_of_order() -> None:
    thirteen = make_game("thirteen")
    front_beats = [parse_cards("Kc Kd 2h"), parse_cards("2c 2d 5h 7s 9c"), parse_cards("Ac Ad Ah 3s 3c")]
    assert broken_order(thirteen, front_beats) == {"rows": [0, 1], "relation": "beats"}
    middle_beats = [parse_cards("3c 4d 2h"), parse_cards("Qc Qd 5h 7s 9c"), parse_cards("Ac Kd Jh 6s 8c")]
    assert broken_order(thirteen, middle_beats) == {"rows": [1, 2], "relation": "beats"}
    biji = make_game("biji")
    assert broken_order(biji, [parse_cards("Ac Ad Ah"), parse_cards("3d 4c 2s"), parse_cards("Kc Kd 5h")]) == \
        {"rows": [0, 1], "relation": "beats"}
    # through the check route: the same answer for the rows of a hand
    client = client_for(game="thirteen", seed=3)
    state = new_match(client)
    cards = state["hand"]["cards"]  # 3d 6c 6d 6s 7c 7d 7h Tc Td Jd Qh Kd Kh
    foul = [["Kd", "Kh", "3d"], ["6c", "7c", "Tc", "Jd", "Qh"], ["6d", "6s", "7d", "7h", "Td"]]
    assert sorted(sum(foul, [])) == sorted(cards)
    check = client.post(f"/api/matches/{state['id']}/check", json={"hand": 0, "rows": foul}).json()
    assert not check["valid"] and check["order"] == {"rows": [0, 1], "relation": "beats"}
    valid = client.post(f"/api/matches/{state['id']}/check",
                        json={"hand": 0, "rows": [["3d", "Tc", "Jd"], ["7c", "7d", "Kd", "Kh", "Qh"],
                                                  ["6c", "6d", "6s", "7h", "Td"]]}).json()
    assert valid["valid"] and "order" not in valid


def test_suggestions_differ_in_structure() -> None:
    client = client_for(game="thirteen", players=4, seed=3, hint_samples=64)
    state = new_match(client)
    hint = client.post(f"/api/matches/{state['id']}/hint", json={"hand": 0}).json()
    structures = [tuple(s["types"]) for s in hint["splits"]]
    assert 1 <= len(structures) <= 5 and len(set(structures)) == len(structures)  # no kicker swaps
    evs = [s["ev"] for s in hint["splits"]]
    assert evs == sorted(evs, reverse=True) and all(len(s["types"]) == 3 for s in hint["splits"])
    assert client.get(f"/api/matches/{state['id']}").json()["hand"]["hints_left"] == hint["hints_left"] == 4


def test_pickers_follow_the_row_types_each_row_can_hold() -> None:
    assert pickers(make_game("thirteen")) == [["pair", "trips"]] + [["pair", "two_pair", "trips", "straight", "flush",
                                                                    "full_house", "four_of_a_kind",
                                                                    "straight_flush"]] * 2
    assert pickers(make_game("biji")) == [["pair", "straight", "flush", "straight_flush", "trips"]] * 3


def test_the_state_carries_the_rules_and_the_agents() -> None:
    client = client_for(game="thirteen", preset="classic", switches={"scoop": "double"}, players=3,
                        against=("greedy", "random"), seed=1)
    state = new_match(client)
    rules = state["rules"]
    game = make_game("thirteen", "classic", scoop="double")
    assert rules["preset"] == "classic" and rules["tables"] == game.rules.tables()
    assert rules["switches"]["scoop"]["value"] == "double" and "打枪" in rules["switches"]["scoop"]["doc"]
    assert state["agents"] == [None, "greedy", "random"]
    assert state["type_names"] == list(game.type_names) and state["hint_limit"] == 5
    biji = new_match(client_for(game="biji", players=3, seed=1))["rules"]["tables"]
    assert biji["pot_payments"]["place_2"] == 1 and "all_black" in biji["xi"]
