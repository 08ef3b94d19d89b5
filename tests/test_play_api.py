"""Browser play's HTTP API through Starlette's test client: whole matches, the clock, and
every kind of bad request (a 4xx with a clear message that changes nothing)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from splitpoker.agents import Agent, specs  # noqa: E402
from splitpoker.play import session as play_session  # noqa: E402
from splitpoker.play.server import MAX_BODY, create_app  # noqa: E402
from splitpoker.play.session import PlaySettings, auto_kind  # noqa: E402


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def client_for(clock: Clock | None = None, **settings: Any) -> TestClient:
    return TestClient(create_app(PlaySettings(**settings), clock=clock or Clock()))


def new_match(client: TestClient) -> dict[str, Any]:
    response = client.post("/api/matches")
    assert response.status_code == 201, response.text
    return response.json()


def test_a_whole_biji_match() -> None:
    client = client_for(game="biji", players=3, hands=3, seed=5, against=("greedy", "random"))
    state = new_match(client)
    assert (state["seats"] == ["you", "greedy (seat 1)", "random (seat 2)"]
            and state["row_names"] == ["pot 1", "pot 2", "pot 3"])
    match_id = state["id"]
    payoffs = []
    for number in range(3):
        state = client.get(f"/api/matches/{match_id}").json()
        hand = state["hand"]
        assert hand["number"] == number and len(hand["cards"]) == 9
        auto = client.post(f"/api/matches/{match_id}/auto", json={"hand": number}).json()
        assert auto["agent"] == "heuristic" and sorted(sum(auto["rows"], [])) == sorted(hand["cards"])
        check = client.post(f"/api/matches/{match_id}/check", json={"hand": number, "rows": auto["rows"]}).json()
        assert check == {"valid": True, "reason": None, "split": auto["split"], "types": auto["types"],
                         "bonuses": check["bonuses"]}
        hint = client.post(f"/api/matches/{match_id}/hint", json={"hand": number}).json()
        evs = [s["ev"] for s in hint["splits"]]
        assert hint["samples"] == 256 and 1 <= len(evs) <= 5 and evs == sorted(evs, reverse=True)
        played = client.post(f"/api/matches/{match_id}/submit",
                             json={"hand": number, "rows": hint["splits"][0]["rows"]})
        assert played.status_code == 200, played.text
        reveal = played.json()["reveal"]
        assert reveal["seats"][0]["split"] == hint["splits"][0]["split"] and not reveal["timed_out"]
        assert reveal["first"] == hand["first"]
        payoffs.append([s["payoff"] for s in reveal["seats"]])
        for seat in reveal["seats"]:  # every seat's payoff is the sum of its items
            items = [i["amount"] for i in reveal["items"] if i["seat"] == seat["seat"]]
            assert np.isclose(sum(items), seat["payoff"])
    state = played.json()["state"]
    assert state["finished"] and state["hand"] is None and state["played"] == 3
    assert np.allclose(state["totals"], np.sum(payoffs, axis=0))
    # the next hand is dealt from the seat after the third pot's winner
    record = client.get(f"/api/matches/{match_id}/record")
    assert record.headers["content-disposition"].startswith("attachment; filename=")
    saved = record.json()
    assert [[s["payoff"] for s in h["seats"]] for h in saved["played"]] == payoffs
    for before, after in zip(saved["played"], saved["played"][1:]):
        winner = before["row_places"][2].index(1)
        assert after["first"] == (winner + 1) % 3
    assert all(len(h["seats"]) == 3 and all("split" in s and "rows" in s for s in h["seats"]) for h in saved["played"])
    over = client.post(f"/api/matches/{match_id}/submit", json={"hand": 3, "rows": [[], [], []]})
    assert over.status_code == 409 and "the match is over" in over.json()["error"]


def test_the_bank_moves_in_a_thirteen_banker_match() -> None:
    client = client_for(game="thirteen", preset="banker", players=3, hands=3, seed=2, banker_term=1)
    match_id = new_match(client)["id"]
    bankers = []
    for number in range(3):
        state = client.get(f"/api/matches/{match_id}").json()
        bankers.append(state["hand"]["banker"])
        auto = client.post(f"/api/matches/{match_id}/auto", json={"hand": number}).json()
        reveal = client.post(f"/api/matches/{match_id}/submit", json={"hand": number, "rows": auto["rows"]}).json()
        assert reveal["reveal"]["banker"] == bankers[-1]
    assert bankers == [0, 1, 2]


def test_the_same_seed_deals_the_same_match() -> None:
    first = new_match(client_for(game="thirteen", seed=3))
    again = new_match(client_for(game="thirteen", seed=3))
    assert first["hand"]["cards"] == again["hand"]["cards"]
    assert first["hand"]["cards"] == ["3d", "6c", "6d", "6s", "7c", "7d", "7h", "Tc", "Td", "Jd", "Qh", "Kd", "Kh"]


def test_the_clock_runs_out() -> None:
    clock = Clock()
    client = client_for(clock, game="thirteen", players=2, hands=2, time_limit=20, seed=1)
    match_id = new_match(client)["id"]
    clock.now += 100  # the clock starts when the hand is shown, not when it is dealt
    unstarted = client.post(f"/api/matches/{match_id}/timeout", json={"hand": 0})
    assert unstarted.status_code == 409 and "has not started" in unstarted.json()["error"]
    hand = client.get(f"/api/matches/{match_id}").json()["hand"]
    assert hand["remaining"] == 20
    early = client.post(f"/api/matches/{match_id}/timeout", json={"hand": 0})
    assert early.status_code == 409 and early.json()["error"] == "the time is not up: 20.0 s left"
    clock.now += 19.5  # within the grace of a second: the clock counts as run out
    auto = client.post(f"/api/matches/{match_id}/auto", json={"hand": 0}).json()
    out = client.post(f"/api/matches/{match_id}/timeout", json={"hand": 0}).json()
    assert out["timed_out"] and out["reveal"]["seats"][0]["split"] == auto["split"]
    # a submission that arrives too late is played as the automatic arrangement
    hand = client.get(f"/api/matches/{match_id}").json()["hand"]
    auto = client.post(f"/api/matches/{match_id}/auto", json={"hand": 1}).json()
    rows = hand["cards"][:3], hand["cards"][3:8], hand["cards"][8:]
    clock.now += 25
    late = client.post(f"/api/matches/{match_id}/submit", json={"hand": 1, "rows": list(rows)}).json()
    assert late["timed_out"] and late["reveal"]["seats"][0]["split"] == auto["split"]
    assert [h["timed_out"] for h in late["state"]["history"]] == [True, True]


def test_no_timeout_without_a_time_limit() -> None:
    client = client_for(game="biji", players=2, hands=1, seed=0)
    match_id = new_match(client)["id"]
    response = client.post(f"/api/matches/{match_id}/timeout", json={"hand": 0})
    assert response.status_code == 409 and response.json()["error"] == "this match has no time limit"


def _rows_of(cards: list[str]) -> list[list[str]]:
    return [cards[:3], cards[3:8], cards[8:]]


BAD_REQUESTS = [
    # (path suffix, body (raw bytes or JSON), status, message part)
    ("check", b"{not json", 400, "the body is not JSON"),
    ("submit", b"\xff\xfe", 400, "the body is not JSON"),
    ("submit", [1, 2], 400, "must be a JSON object with hand, rows"),
    ("submit", {"hand": 0}, 400, "missing field 'rows'"),
    ("submit", {"hand": 0, "rows": [], "cards": []}, 400, "unknown field 'cards'"),
    ("hint", {"hand": "0"}, 400, "hand '0' is not a hand number"),
    ("auto", {"hand": 1}, 409, "hand 1 is not the hand in play (hand 0)"),
    ("submit", {"hand": 0, "rows": "As Ks"}, 400, "rows must be a list of 3 rows (front, middle, back)"),
    ("submit", {"hand": 0, "rows": [[1, 2, 3], [], []]}, 400, "the front row must be a list of card strings"),
    ("submit", {"hand": 0, "rows": [["3d"], [], []]}, 400, "the front row has 1 cards; it needs 3"),
    ("submit", "TAMPER_UNKNOWN_CARD", 400, "cannot read card 'Zz'"),
    ("submit", "TAMPER_TWO_CARDS", 400, "is not one card"),
    ("submit", "TAMPER_FOREIGN_CARD", 400, "the rows are not your hand: card FOREIGN is not in your hand"),
    ("submit", "TAMPER_DUPLICATE", 400,
     "the rows are not your hand: card FIRST is not in your hand (or is given twice)"),
    ("submit", "FOUL", 422, "fouls: rearrange before you submit"),
    ("timeout", {"hand": 0}, 409, "the time is not up"),
    ("dance", {"hand": 0}, 404, "unknown action 'dance'"),
    ("submit", b"[" + b" " * MAX_BODY + b"]", 413, f"larger than {MAX_BODY} bytes"),
]


def foreign(cards: list[str]) -> str:
    """The first card of the deck that is not in ``cards``."""
    return next(f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs" if f"{r}{s}" not in cards)


def _body(kind: Any, cards: list[str]) -> Any:
    rows = _rows_of(cards)
    if kind == "TAMPER_UNKNOWN_CARD":
        rows[0][0] = "Zz"
    elif kind == "TAMPER_TWO_CARDS":
        rows[0][0] = f"{rows[0][0]} {rows[0][1]}"
    elif kind == "TAMPER_FOREIGN_CARD":
        rows[0][0] = foreign(cards)
    elif kind == "TAMPER_DUPLICATE":
        rows[0][1] = rows[0][0]
    elif kind == "FOUL":  # slot order: the weakest cards in front, the strongest in the back is valid; reversed fouls
        rows = [cards[10:], cards[5:10], cards[:5]]
    else:
        return kind
    return {"hand": 0, "rows": rows}


@pytest.mark.parametrize("action, kind, status, message", BAD_REQUESTS)
def test_bad_requests_change_nothing(action: str, kind: Any, status: int, message: str) -> None:
    client = client_for(game="thirteen", players=2, hands=2, seed=3, time_limit=60)
    match_id = new_match(client)["id"]
    before = client.get(f"/api/matches/{match_id}").json()
    cards = before["hand"]["cards"]
    body = _body(kind, cards)
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = client.post(f"/api/matches/{match_id}/{action}", content=raw,
                           headers={"content-type": "application/json"})
    assert response.status_code == status, response.text
    assert message.replace("FOREIGN", foreign(cards)).replace("FIRST", cards[0]) in response.json()["error"]
    after = client.get(f"/api/matches/{match_id}").json()
    assert after == before


def test_unknown_match_and_static_files() -> None:
    client = client_for(game="biji", players=2, hands=1)
    for response in (client.get("/api/matches/0123abcd"), client.post("/api/matches/nope/submit", json={}),
                     client.get("/api/matches/nope/record")):
        assert response.status_code == 404 and response.json()["error"].startswith("unknown match")
    bad = client.post("/api/matches", json={"game": "thirteen"})
    assert bad.status_code == 400 and "takes no fields" in bad.json()["error"]
    assert client.get("/").status_code == 200 and "<html" in client.get("/").text.lower()
    assert client.get("/static/play.js").status_code == 200
    for path in ("/static/../session.py", "/static/%2e%2e/session.py", "/static/..%2fsession.py",
                 "/static/%2e%2e%2fserver.py", "/static//etc/passwd"):
        response = client.get(path)
        assert response.status_code == 404, path
    assert client.get("/api/settings").json()["game"] == "biji"


@pytest.mark.parametrize("settings, message", [
    ({"game": "poker"}, "unknown game 'poker'"),
    ({"game": "biji", "players": 7}, "num_players=7 is not allowed for biji"),
    ({"game": "biji", "players": 4, "against": ("greedy", "random")}, "--against has 2 specs"),
    ({"game": "biji", "against": ("dragon",)}, "unknown kind 'dragon'"),
    ({"game": "biji", "hands": 0}, "hands=0"),
    ({"game": "biji", "time_limit": -1}, "time_limit=-1"),
    ({"game": "thirteen", "preset": "nope"}, "nope"),
])
def test_bad_settings(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PlaySettings(**settings).check()


def test_auto_arrangement_takes_a_heuristic_agent_once_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    assert auto_kind() == ("heuristic" if "heuristic" in specs.AGENT_KINDS else "greedy")
    monkeypatch.setattr(play_session, "AGENT_KINDS", {**specs.AGENT_KINDS, "heuristic": specs.AGENT_KINDS["greedy"]})
    assert play_session.auto_kind() == "heuristic"


def test_the_command() -> None:
    """``--help``; a bad setting is one line with status 2; the server prints its URL and
    serves the page on 127.0.0.1."""
    run = [sys.executable, "-m", "splitpoker.train.cli", "play"]
    done = subprocess.run([*run, "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "--time-limit" in done.stdout and "--against" in done.stdout
    done = subprocess.run([*run, "biji", "--players", "9"], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == "splitpoker play: error: num_players=9 is not allowed for biji; use 2 to 5"
    import urllib.request

    server = subprocess.Popen([*run, "biji", "--players", "3", "--seed", "1"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        server.stdout.readline()
        line = server.stdout.readline()
        url = line.split()[1]
        assert url.startswith("http://127.0.0.1:"), line
        with urllib.request.urlopen(url, timeout=30) as page:
            assert b"<html" in page.read().lower()
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_missing_extra_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from splitpoker.train import cli

    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn now raises ImportError
    assert cli.main(["play", "biji"]) == 2
    assert capsys.readouterr().err == ("splitpoker play: error: browser play needs the [play] extra: "
                                       "pip install 'splitpoker[play]'\n")


class BrokenAgent(Agent):
    """An agent that fails to decide."""

    name = "broken"

    def act_batch(self, views: Any) -> np.ndarray:
        raise RuntimeError("no decision today")


def broken_agent(game: Any, num_players: int, seed: Any) -> BrokenAgent:
    return BrokenAgent()


def test_a_failing_agent_is_a_500_that_changes_nothing() -> None:
    client = client_for(game="biji", players=2, hands=1, seed=0, against=("tests.test_play_api:broken_agent",))
    match_id = new_match(client)["id"]
    before = client.get(f"/api/matches/{match_id}").json()
    auto = client.post(f"/api/matches/{match_id}/auto", json={"hand": 0}).json()
    response = client.post(f"/api/matches/{match_id}/submit", json={"hand": 0, "rows": auto["rows"]})
    assert response.status_code == 500
    assert response.json() == {"error": "internal error: RuntimeError: no decision today", "code": "internal",
                               "params": {}}
    assert client.get(f"/api/matches/{match_id}").json() == before


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3)
                    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=4),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=12)
CARD_TEXT = st.sampled_from(["As", "Kd", "10h", "BJ", "2c", "Zz", "", "As Kd", "♠A", "3d"])
ROWS_BODY = st.fixed_dictionaries({"hand": st.integers(-1, 2) | st.text(max_size=2),
                                   "rows": st.lists(st.lists(CARD_TEXT, max_size=6) | JSON, max_size=4) | JSON})


@pytest.fixture(scope="module")
def fuzzed() -> tuple[TestClient, str]:
    client = client_for(game="biji", players=3, hands=1000, seed=6, time_limit=600)
    return client, new_match(client)["id"]


@settings(max_examples=60, deadline=None)
@given(action=st.sampled_from(["check", "submit", "timeout", "auto", "hint"]), body=JSON | ROWS_BODY)
def test_any_body_is_an_answer_never_a_crash(fuzzed: tuple[TestClient, str], action: str, body: Any) -> None:
    """Whatever JSON arrives, the answer is a 2xx or a 4xx with one error message and its
    code; only a valid submission changes the match."""
    client, match_id = fuzzed
    before = client.get(f"/api/matches/{match_id}").json()
    response = client.post(f"/api/matches/{match_id}/{action}", json=body)
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        answer = response.json()
        assert list(answer) == ["error", "code", "params"] and answer["error"] and isinstance(answer["code"], str)
    if response.status_code >= 400 or action in ("check", "auto", "hint"):
        assert client.get(f"/api/matches/{match_id}").json() == before
