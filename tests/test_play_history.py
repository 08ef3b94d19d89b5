"""What browser play's API gives the page to read a hand and to replay it: each row's cards
in the order of what they make, 喜 by name before and after a hand, row values that are the
rules' table, the hand in play after another client played one, and a record that holds
every step of a hand (the deal, the rows, the places and the payments)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from splitpoker.envs.cards import format_card, parse_cards, parse_rows  # noqa: E402
from splitpoker.envs.game import Game  # noqa: E402
from splitpoker.envs.games import make_game  # noqa: E402
from splitpoker.play.server import create_app  # noqa: E402
from splitpoker.play.session import PlaySettings  # noqa: E402

#: the first match of a server with this seed deals seat 0 two full houses (thirteen,
#: classic, four players, greedy opponents; the automatic arrangement plays them)
FULL_HOUSE_SEED = 3
#: the first match of a server with this seed deals seat 0 four kings, a 喜 (biji, classic,
#: four players)
XI_SEED = 292


def play_hands(count: int, **settings: Any) -> tuple[TestClient, dict[str, Any], list[dict[str, Any]]]:
    """A match whose first ``count`` hands seat 0 plays automatically: the client, the state
    and the reveals."""
    client = TestClient(create_app(PlaySettings(**settings)))
    state = client.post("/api/matches").json()
    reveals = []
    for number in range(count):
        auto = client.post(f"/api/matches/{state['id']}/auto", json={"hand": number}).json()
        answer = client.post(f"/api/matches/{state['id']}/submit", json={"hand": number, "rows": auto["rows"]}).json()
        reveals.append(answer["reveal"])
        state = answer["state"]
    return client, state, reveals


def test_role_order_reads_what_a_row_makes() -> None:
    def order(text: str) -> str:
        return " ".join(format_card(c) for c in Game.role_order(parse_cards(text)))

    assert order("2c 2h Kc Kh Ks") == "Ks Kh Kc 2h 2c"      # a full house: KKK22
    assert order("3d 9c 9s Jh Jd") == "Jh Jd 9s 9c 3d"      # two pair, then the kicker
    assert order("4c 7c 7d 7h 7s") == "7s 7h 7d 7c 4c"      # four of a kind, then the kicker
    assert order("Ah 2c 3d 4s 5h") == "5h 4s 3d 2c Ah"      # the wheel: the ace plays low
    assert order("Ac 2d 3h") == "3h 2d Ac"
    assert order("Tc Jd Qh Ks Ac") == "Ac Ks Qh Jd Tc"      # an ace-high straight keeps the ace first
    assert order("5d RJ 9d") == "RJ 9d 5d"                  # jokers first


def test_the_reveal_and_the_record_give_the_rows_by_role_and_keep_the_rows() -> None:
    client, state, reveals = play_hands(2, game="thirteen", players=4, hands=2, seed=FULL_HOUSE_SEED,
                                        against=("greedy",))
    record = client.get(f"/api/matches/{state['id']}/record").json()
    for reveal, played in zip(reveals, record["played"]):
        for seat, kept in zip(reveal["seats"], played["seats"]):
            assert seat["rows_by_role"] == kept["rows_by_role"]
            assert seat["rows_by_role"] == [[format_card(c) for c in Game.role_order(parse_cards(" ".join(row)))]
                                            for row in seat["rows"]]
            assert all(parse_cards(" ".join(row)) == sorted(parse_cards(" ".join(row))) for row in kept["rows"])
    middle = reveals[0]["seats"][0]["rows_by_role"][1]
    assert reveals[0]["seats"][0]["types"][1] == "full_house"
    assert len({c[0] for c in middle[:3]}) == 1 and len({c[0] for c in middle[3:]}) == 1


def test_row_values_in_the_breakdown_are_the_rules_table() -> None:
    """A won row pays its value from the royalty table (1 for a type not listed), whether
    the payment items give it as one row item or a row item and a royalty."""
    _, state, reveals = play_hands(3, game="thirteen", players=4, hands=3, seed=FULL_HOUSE_SEED, against=("greedy",))
    table = state["rules"]["tables"]["royalties"]
    royalties = 0
    for reveal in reveals:
        paid: dict[tuple[int, int, int], float] = {}
        for item in reveal["items"]:
            if item["kind"] in ("row", "royalty"):
                key = (item["seat"], item["against"], item["row"])
                paid[key] = paid.get(key, 0.0) + item["amount"]
                royalties += item["kind"] == "royalty"
        for (seat, _, k), amount in paid.items():
            if amount > 0:
                name = reveal["row_names"][k]
                assert amount == table[name].get(reveal["seats"][seat]["types"][k], 1), (name, seat)
    assert royalties and table["front"]["trips"] == 3 and table["middle"]["full_house"] == 2


def test_xi_is_named_in_the_check_and_the_reveal() -> None:
    client = TestClient(create_app(PlaySettings(game="biji", players=4, hands=1, seed=XI_SEED, against=("random",))))
    state = client.post("/api/matches").json()
    auto = client.post(f"/api/matches/{state['id']}/auto", json={"hand": 0}).json()
    check = client.post(f"/api/matches/{state['id']}/check", json={"hand": 0, "rows": auto["rows"]}).json()
    assert check["valid"] and check["bonuses"] == {"four_of_a_kind": 1}
    broken = client.post(f"/api/matches/{state['id']}/check", json={"hand": 0, "rows": auto["rows"][::-1]}).json()
    assert not broken["valid"] and broken["bonuses"] == {}
    reveal = client.post(f"/api/matches/{state['id']}/submit", json={"hand": 0, "rows": auto["rows"]}).json()["reveal"]
    mine = reveal["seats"][0]
    assert mine["bonuses"]["four_of_a_kind"] == 1 and mine["xi"] == sum(mine["bonuses"].values())
    assert all(seat["xi"] == sum(seat["bonuses"].values()) for seat in reveal["seats"])


def test_held_bonuses_leave_out_what_depends_on_the_table() -> None:
    biji = make_game("biji", "classic")
    assert biji.held_bonuses(parse_rows("2c 2d 2h | 5c 5d 5h | 9c 9d 9h")) == {"three_trips": 3}
    assert biji.held_bonuses(parse_rows("2c 3s 5c | 7s 8s 9c | Jc Qs Kc")) == {"all_black": 1}
    thirteen = make_game("thirteen", "classic")
    assert thirteen.held_bonuses(parse_rows("2c 2d 2h | 5c 5d 5h 6c 6d | 9c 9d 9h 9s As")) == {}


def test_a_client_behind_the_match_is_refused_and_finds_the_hand_in_play() -> None:
    client, state, _ = play_hands(1, game="biji", players=3, hands=3, seed=8, against=("random",))
    stale = client.post(f"/api/matches/{state['id']}/check", json={"hand": 0, "rows": [[], [], []]})
    assert stale.status_code == 409
    again = client.get(f"/api/matches/{state['id']}").json()
    assert again["played"] == 1 and again["hand"]["number"] == 1 and again["history"][0]["hand"] == 0


def test_the_record_holds_every_step_of_a_hand() -> None:
    """The replay's steps: the deal (every seat's cards), each seat's rows, each row compared
    (places and payments), the payoffs."""
    client, state, _ = play_hands(2, game="thirteen", players=3, hands=2, seed=4, against=("greedy",))
    record = client.get(f"/api/matches/{state['id']}/record").json()
    for played in record["played"]:
        assert 0 <= played["first"] < 3
        for seat in played["seats"]:
            assert sorted(seat["hand"].split()) == sorted(sum(seat["rows"], []))
            assert len(seat["rows_by_role"]) == len(seat["types"]) == 3
        assert [len(places) for places in played["row_places"]] == [3, 3, 3]
        assert sum(item["amount"] for item in played["items"]) == pytest.approx(0.0)
        assert [seat["payoff"] for seat in played["seats"]] == pytest.approx(
            [sum(i["amount"] for i in played["items"] if i["seat"] == s) for s in range(3)])
