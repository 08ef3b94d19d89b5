"""Browser play's server refuses what a shared or hostile client could do: evicting a match
in play, cross-site and DNS-rebound requests, reading the seed, over-deep JSON; and every
error, an unknown path or a wrong method included, is JSON."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from splitpoker.play import server  # noqa: E402
from splitpoker.play.server import create_app  # noqa: E402
from splitpoker.play.session import PlaySettings  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


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
