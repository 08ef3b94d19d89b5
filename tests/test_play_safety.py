"""Browser play's server refuses what a shared or hostile client could do: evicting a match
in play, cross-site and DNS-rebound requests, reading the seed, over-deep JSON; and every
error, an unknown path or a wrong method included, is JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from splitpoker.play import server  # noqa: E402
from splitpoker.play.server import create_app  # noqa: E402
from splitpoker.play.session import PlaySettings  # noqa: E402
from tests.test_play_api import Clock  # noqa: E402


def client(clock: Clock | None = None, **kwargs: Any) -> TestClient:
    return TestClient(create_app(PlaySettings(game="biji", players=2, hands=2, seed=4), clock=clock or Clock(),
                                 **kwargs))


def test_creating_matches_never_evicts_one_in_play(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "MAX_MATCHES", 4)
    clock = Clock()
    app = client(clock)
    mine = app.post("/api/matches").json()["id"]
    for _ in range(3):
        assert app.post("/api/matches").status_code == 201
    refused = app.post("/api/matches")
    assert refused.status_code == 503 and "matches in play" in refused.json()["error"]
    assert app.get(f"/api/matches/{mine}").status_code == 200
    clock.now += server.IDLE_S + 1  # every match idle: the least recently used one goes
    app.get(f"/api/matches/{mine}")  # ... but not this one, just used
    assert app.post("/api/matches").status_code == 201
    assert app.get(f"/api/matches/{mine}").status_code == 200


def test_cross_site_requests_are_refused() -> None:
    app = client()
    evil = app.post("/api/matches", content="{}", headers={"Origin": "http://evil.example",
                                                          "Content-Type": "text/plain"})
    assert evil.status_code == 403 and "cross-origin" in evil.json()["error"]
    own = app.post("/api/matches", headers={"Origin": "http://testserver"})
    assert own.status_code == 201


def test_a_rebound_host_name_is_refused() -> None:
    app = client(allowed_hosts=("localhost", "127.0.0.1"))
    rebound = app.get("/api/settings", headers={"Host": "attacker.example:8000"})
    assert rebound.status_code == 403 and "attacker.example" in rebound.json()["error"]
    assert app.get("/api/settings", headers={"Host": "127.0.0.1:8000"}).status_code == 200


def test_the_seed_is_hidden_unless_revealed() -> None:
    assert "seed" not in client().get("/api/settings").json()
    assert client(reveal_seed=True).get("/api/settings").json()["seed"] == 4


def test_errors_are_json() -> None:
    app = client()
    missing = app.get("/no/such/page")
    assert missing.status_code == 404 and "no such page" in missing.json()["error"]
    wrong = app.get("/api/matches")
    assert wrong.status_code == 405 and "GET is not allowed" in wrong.json()["error"]
    mine = app.post("/api/matches").json()["id"]
    deep = app.post(f"/api/matches/{mine}/check", content="[" * 16_000, headers={"Content-Type": "application/json"})
    assert deep.status_code in (400, 413) and "error" in deep.json()
    nested = app.post(f"/api/matches/{mine}/check", content="[" * 5_000 + "]" * 5_000)
    assert nested.status_code == 400 and "nested too deeply" in nested.json()["error"]


def test_the_command_line_flag(capsys: pytest.CaptureFixture[str]) -> None:
    from splitpoker.train.cli import main

    with pytest.raises(SystemExit):
        main(["play", "--help"])
    assert "--reveal-seed" in capsys.readouterr().out


# ---------------------------------------------------------------- matches belong to their creator


def app_for(clock: Clock | None = None, settings: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    return create_app(PlaySettings(**{"game": "biji", "players": 2, "hands": 2, "seed": 4, **(settings or {})}),
                      clock=clock or Clock(), **kwargs)


def test_a_match_answers_only_the_client_that_created_it() -> None:
    app = app_for()
    mine, other = TestClient(app), TestClient(app)
    created = mine.post("/api/matches")
    match_id, secret = created.json()["id"], created.json()["secret"]
    assert len(secret) >= 24 and "secret" not in mine.get(f"/api/matches/{match_id}").json()
    cookie = created.headers["set-cookie"]
    assert f"Path=/api/matches/{match_id}" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    cards = mine.get(f"/api/matches/{match_id}").json()["hand"]["cards"]
    rows = [cards[:3], cards[3:6], cards[6:]]
    for response in (other.get(f"/api/matches/{match_id}"), other.get(f"/api/matches/{match_id}/record"),
                     other.post(f"/api/matches/{match_id}/hint", json={"hand": 0}),
                     other.post(f"/api/matches/{match_id}/submit", json={"hand": 0, "rows": rows}),
                     other.post(f"/api/matches/{match_id}/auto", json={"hand": 0},
                                headers={"X-Match-Secret": "guess"})):
        assert response.status_code == 403 and "belongs to the client that created it" in response.json()["error"]
    assert other.get("/api/matches/0123456789abcdef").status_code == 404
    # the secret as a header (a script, or the same browser after a reload with the cookie) works
    assert other.get(f"/api/matches/{match_id}", headers={"X-Match-Secret": secret}).status_code == 200
    assert mine.get(f"/api/matches/{match_id}").json()["played"] == 0


def test_a_foreign_request_does_not_keep_a_match_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "MAX_MATCHES", 2)
    clock = Clock()
    app = app_for(clock)
    mine, other = TestClient(app), TestClient(app)
    first, second = (mine.post("/api/matches").json()["id"] for _ in range(2))
    clock.now += server.IDLE_S + 1
    assert other.get(f"/api/matches/{first}").status_code == 403  # no use: the first stays the least recent
    assert mine.post("/api/matches").status_code == 201
    assert mine.get(f"/api/matches/{first}").status_code == 404
    assert mine.get(f"/api/matches/{second}").status_code == 200


def test_a_refused_match_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new match refused (503) takes no seed: the next one is dealt as if it had not been asked for."""
    monkeypatch.setattr(server, "MAX_MATCHES", 2)
    clock = Clock()
    full = TestClient(app_for(clock))
    for _ in range(2):
        full.post("/api/matches")
    assert full.post("/api/matches").status_code == 503
    clock.now += server.IDLE_S + 1
    third = full.post("/api/matches").json()["hand"]["cards"]
    monkeypatch.setattr(server, "MAX_MATCHES", 64)
    fresh = TestClient(app_for())
    assert [fresh.post("/api/matches").json()["hand"]["cards"] for _ in range(3)][2] == third


# ---------------------------------------------------------------- the clock plays your arrangement


def timed(clock: Clock) -> tuple[TestClient, str, list[str]]:
    app = TestClient(app_for(clock, {"game": "thirteen", "hands": 3, "time_limit": 30, "seed": 2, "hint_samples": 8}))
    match_id = app.post("/api/matches").json()["id"]
    return app, match_id, app.get(f"/api/matches/{match_id}").json()["hand"]["cards"]


def other_valid_rows(app: TestClient, match_id: str, hand: int) -> tuple[list[list[str]], int]:
    """A valid arrangement that is not the automatic one, and its split."""
    auto = app.post(f"/api/matches/{match_id}/auto", json={"hand": hand}).json()["split"]
    split = next(s for s in app.post(f"/api/matches/{match_id}/hint", json={"hand": hand}).json()["splits"]
                 if s["split"] != auto)
    return split["rows"], split["split"]


def foul_rows(app: TestClient, match_id: str, hand: int) -> list[list[str]]:
    """An arrangement of the hand that fouls: the automatic one's back row partly in front."""
    auto = app.post(f"/api/matches/{match_id}/auto", json={"hand": hand}).json()["rows"]
    rows = [auto[2][:3], auto[1], auto[0] + auto[2][3:]]
    assert not app.post(f"/api/matches/{match_id}/check", json={"hand": hand, "rows": rows}).json()["valid"]
    return rows


def test_a_time_out_plays_the_arrangement_sent_with_it() -> None:
    clock = Clock()
    app, match_id, cards = timed(clock)
    rows, split = other_valid_rows(app, match_id, 0)
    clock.now += 30.2
    out = app.post(f"/api/matches/{match_id}/timeout", json={"hand": 0, "rows": rows})
    assert out.status_code == 200, out.text
    played = out.json()
    assert played["reveal"]["seats"][0]["split"] == split
    assert not played["timed_out"] and played["clock_ran_out"] and played["reveal"]["clock_ran_out"]
    # sent too late (past the second of grace): the automatic arrangement
    app.get(f"/api/matches/{match_id}")
    rows, split = other_valid_rows(app, match_id, 1)
    clock.now += 40
    late = app.post(f"/api/matches/{match_id}/timeout", json={"hand": 1, "rows": rows}).json()
    assert late["timed_out"] and late["reveal"]["seats"][0]["split"] != split
    # a foul sent with the time-out is not played either
    app.get(f"/api/matches/{match_id}")
    rows = foul_rows(app, match_id, 2)
    clock.now += 30
    foul = app.post(f"/api/matches/{match_id}/timeout", json={"hand": 2, "rows": rows})
    assert foul.status_code == 200 and foul.json()["timed_out"]


def test_a_saved_arrangement_is_played_when_the_clock_runs_out() -> None:
    clock = Clock()
    app, match_id, cards = timed(clock)
    before = app.get(f"/api/matches/{match_id}").json()
    # checked like a submission: a foul or cards not yours are refused and change nothing
    foul = app.post(f"/api/matches/{match_id}/save", json={"hand": 0, "rows": foul_rows(app, match_id, 0)})
    assert foul.status_code == 422 and "only a valid arrangement is kept" in foul.json()["error"]
    bad = app.post(f"/api/matches/{match_id}/save", json={"hand": 0, "rows": [cards[:3], cards[3:8], cards[3:8]]})
    assert bad.status_code == 400
    assert app.get(f"/api/matches/{match_id}").json() == before
    rows, split = other_valid_rows(app, match_id, 0)
    saved = app.post(f"/api/matches/{match_id}/save", json={"hand": 0, "rows": rows})
    assert saved.status_code == 200 and saved.json()["split"] == split
    assert app.get(f"/api/matches/{match_id}").json()["hand"]["saved"] == rows
    clock.now += 31
    out = app.post(f"/api/matches/{match_id}/timeout", json={"hand": 0}).json()
    assert out["reveal"]["seats"][0]["split"] == split and not out["timed_out"]
    # a late submission plays the arrangement saved in time, not the one it brings
    app.get(f"/api/matches/{match_id}")
    rows, split = other_valid_rows(app, match_id, 1)
    assert app.post(f"/api/matches/{match_id}/save", json={"hand": 1, "rows": rows}).status_code == 200
    auto = app.post(f"/api/matches/{match_id}/auto", json={"hand": 1}).json()["rows"]
    clock.now += 40
    too_late = app.post(f"/api/matches/{match_id}/save", json={"hand": 1, "rows": auto})
    assert too_late.status_code == 409 and "the time is up" in too_late.json()["error"]
    late = app.post(f"/api/matches/{match_id}/submit", json={"hand": 1, "rows": auto}).json()
    assert late["reveal"]["seats"][0]["split"] == split and late["clock_ran_out"]
    assert app.get(f"/api/matches/{match_id}").json()["hand"]["saved"] is None


# ---------------------------------------------------------------- safe to share


def test_a_token_is_needed_on_every_request() -> None:
    app = TestClient(app_for(token="t0k3n", allowed_hosts=("localhost", "testserver")), follow_redirects=False)
    for path in ("/", "/api/settings", "/static/play.js", "/no/such/page"):
        refused = app.get(path)
        assert refused.status_code == 401 and "token" in refused.json()["error"], path
    assert app.post("/api/matches").status_code == 401
    assert app.get("/?token=wrong").status_code == 401
    assert app.get("/api/settings", headers={"Authorization": "Bearer t0k3n"}).status_code == 200
    first = app.get("/?token=t0k3n")  # the URL printed: sets the cookie, then the page without the token
    assert first.status_code == 303 and first.headers["location"] == "/"
    assert server.token_cookie("t0k3n") in first.headers["set-cookie"] and "HttpOnly" in first.headers["set-cookie"]
    assert app.get("/").status_code == 200 and app.post("/api/matches").status_code == 201
    evil = app.post("/api/matches", content="{}",
                    headers={"Origin": "http://evil.example", "Content-Type": "text/plain"})
    assert evil.status_code == 403


def test_any_ip_literal_but_no_other_name_when_listening_everywhere() -> None:
    app = TestClient(app_for(allowed_hosts=("localhost",), any_ip=True))
    assert app.get("/api/settings", headers={"Host": "192.168.1.7:8000"}).status_code == 200
    assert app.get("/api/settings", headers={"Host": "[fe80::1]:8000"}).status_code == 200
    rebound = app.get("/api/settings", headers={"Host": "rebound.evil.example:8000"})
    assert rebound.status_code == 403 and "rebound.evil.example" in rebound.json()["error"]


def test_the_seed_is_hidden_from_states_and_records() -> None:
    app = TestClient(app_for())
    created = app.post("/api/matches").json()
    assert "seed" not in created["settings"]
    match_id = created["id"]
    assert "seed" not in app.get(f"/api/matches/{match_id}").json()["settings"]
    assert "seed" not in app.get(f"/api/matches/{match_id}/record").json()["settings"]
    revealed = TestClient(app_for(reveal_seed=True))
    assert revealed.post("/api/matches").json()["settings"]["seed"] == 4


def test_hints_are_limited_per_hand_and_a_repeat_is_free() -> None:
    from splitpoker.play.session import HINT_LIMIT

    app = TestClient(app_for(settings={"hint_samples": 8}))
    match_id = app.post("/api/matches").json()["id"]
    answers = [app.post(f"/api/matches/{match_id}/hint", json={"hand": 0}) for _ in range(HINT_LIMIT + 2)]
    assert [a.json()["hints_left"] for a in answers] == [HINT_LIMIT - 1] * (HINT_LIMIT + 2)
    assert [a.json()["repeat"] for a in answers] == [False] + [True] * (HINT_LIMIT + 1)
    assert len({json.dumps(a.json()["splits"]) for a in answers}) == 1  # worked out once
    assert app.get(f"/api/matches/{match_id}").json()["hand"]["hints_left"] == HINT_LIMIT - 1
    # different requests count: once HINT_LIMIT different ones are answered, a new one is refused
    session = next(iter(app.app.state.matches._sessions.values()))
    session._hint_asks[0] = {f"another request {k}" for k in range(HINT_LIMIT)}
    before = app.get(f"/api/matches/{match_id}").json()
    refused = app.post(f"/api/matches/{match_id}/hint", json={"hand": 0})
    assert refused.status_code == 429 and "no more hints for hand 0" in refused.json()["error"]
    assert refused.json()["code"] == "no_more_hints" and refused.json()["params"] == {"hand": 0, "limit": HINT_LIMIT}
    assert app.get(f"/api/matches/{match_id}").json() == before
    rows = app.post(f"/api/matches/{match_id}/auto", json={"hand": 0}).json()["rows"]
    app.post(f"/api/matches/{match_id}/submit", json={"hand": 0, "rows": rows})
    assert app.post(f"/api/matches/{match_id}/hint", json={"hand": 1}).status_code == 200


def test_deep_and_large_bodies_are_refused() -> None:
    app = TestClient(app_for())
    match_id = app.post("/api/matches").json()["id"]
    before = app.get(f"/api/matches/{match_id}").json()
    deep = app.post(f"/api/matches/{match_id}/check", content="[" * 16_000,
                    headers={"Content-Type": "application/json"})
    assert deep.status_code == 400 and "nested too deeply" in deep.json()["error"]
    rows = "[" * 900 + "]" * 900
    nested = app.post(f"/api/matches/{match_id}/submit", content=f'{{"hand": 0, "rows": [{rows}, [], []]}}')
    assert nested.status_code == 400 and "nested too deeply" in nested.json()["error"]
    strings = app.post(f"/api/matches/{match_id}/check", json={"hand": 0, "rows": ["[" * 100, [], []]})
    assert strings.status_code == 400 and "nested" not in strings.json()["error"]  # brackets in strings are text
    large = app.post("/api/matches", content=b" " * (server.MAX_BODY + 1))
    assert large.status_code == 413 and "larger than" in large.json()["error"]
    assert app.get(f"/api/matches/{match_id}").json() == before


def test_listening_everywhere_warns_and_needs_the_token() -> None:
    import http.client
    import subprocess
    import sys

    command = [sys.executable, "-m", "splitpoker.train.cli", "play", "biji", "--players", "2", "--seed", "1",
               "--host", "0.0.0.0", "--port", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stderr is not None
        warning = process.stderr.readline()
        assert warning.startswith("splitpoker play: warning: listening on 0.0.0.0") and "token" in warning
        process.stdout.readline()
        url = process.stdout.readline().split()[1]
        assert "?token=" in url, url
        port, token = int(url.split(":")[2].split("/")[0]), url.split("?token=")[1]

        def ask(path: str, headers: dict[str, str]) -> tuple[int, Any]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            connection.close()
            return response.status, json.loads(body) if body.startswith(b"{") else body

        assert ask("/api/settings", {})[0] == 401
        status, shown = ask("/api/settings", {"Authorization": f"Bearer {token}"})
        assert status == 200 and "seed" not in shown
        assert ask(f"/?token={token}", {})[0] == 303
        assert ask("/api/settings", {"Authorization": f"Bearer {token}", "Host": "evil.example"})[0] == 403
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_help_names_the_sharing_options(capsys: pytest.CaptureFixture[str]) -> None:
    from splitpoker.train.cli import main

    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = capsys.readouterr().out
    assert "--allow-host" in out and "?token=" in out
