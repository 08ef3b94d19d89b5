"""The web layer of browser play: a Starlette application that serves the page and
translates HTTP requests into calls of :class:`~splitpoker.play.session.PlaySession`.

It holds no rules. Routes (every answer JSON; an error is ``{"error": "…"}`` with a 4xx
status and changes nothing):

=========================================  ===========================================
``GET  /``                                 the page (``static/index.html``)
``GET  /static/{file}``                    the page's script, style sheet and icon
``GET  /api/settings``                     what the server was started with
``POST /api/matches``                      a new match (201): its state
``GET  /api/matches/{id}``                 the state; starts the clock of a new hand
``POST /api/matches/{id}/check``           ``{"hand", "rows"}``: valid? row types
``POST /api/matches/{id}/submit``          ``{"hand", "rows"}``: play the hand: the reveal
``POST /api/matches/{id}/timeout``         ``{"hand"}``: the clock ran out: play the automatic arrangement
``POST /api/matches/{id}/auto``            ``{"hand"}``: the automatic arrangement
``POST /api/matches/{id}/hint``            ``{"hand"}``: the solver's best splits and their EVs
``GET  /api/matches/{id}/record``          the match as a JSON download
=========================================  ===========================================

Needs the optional ``[play]`` extra (Starlette and uvicorn).
"""

from __future__ import annotations

import collections
import itertools
import json
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .session import PlaySession, PlaySettings, RequestError

__all__ = ["MAX_BODY", "MAX_MATCHES", "Matches", "create_app", "STATIC"]

#: the folder of the page's files, shipped with the package
STATIC = Path(__file__).resolve().parent / "static"
#: the largest request body accepted (bytes)
MAX_BODY = 16_384
#: matches kept in memory; the oldest is dropped beyond
MAX_MATCHES = 64
ACTIONS = ("check", "submit", "timeout", "auto", "hint")


class Matches:
    """The matches of one server: ``settings`` for all of them; match ``k`` is dealt from
    the seed sequence ``(seed, k)`` (fresh entropy without a seed)."""

    def __init__(self, settings: PlaySettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self._sessions: collections.OrderedDict[str, PlaySession] = collections.OrderedDict()
        self._count = itertools.count()
        self._lock = threading.Lock()

    def create(self) -> PlaySession:
        with self._lock:
            k = next(self._count)
            seed = (np.random.SeedSequence([self.settings.seed, k]) if self.settings.seed is not None
                    else np.random.SeedSequence())
            session = PlaySession(secrets.token_hex(8), self.settings, seed, clock=self.clock)
            self._sessions[session.id] = session
            while len(self._sessions) > MAX_MATCHES:
                self._sessions.popitem(last=False)
            return session

    def get(self, match_id: str) -> PlaySession:
        with self._lock:
            session = self._sessions.get(match_id)
        if session is None:
            raise RequestError(404, f"unknown match {match_id[:40]!r}")
        return session


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _json_body(request: Request) -> Any:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise RequestError(413, f"the body is larger than {MAX_BODY} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise RequestError(413, f"the body is larger than {MAX_BODY} bytes")
    try:
        return json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, ValueError) as error:
        raise RequestError(400, f"the body is not JSON: {str(error).splitlines()[0]}") from None


def create_app(settings: PlaySettings, clock: Callable[[], float] = time.monotonic) -> Starlette:
    """The application for matches under ``settings`` (checked first)."""
    matches = Matches(settings.check(), clock)

    def guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestError as error:
                return _error(error.status, str(error))
            except Exception as error:  # a failing agent: the page gets a message, the match is unchanged
                first_line = str(error).splitlines()[0] if str(error) else ""
                return _error(500, f"internal error: {type(error).__name__}: {first_line}")
        return endpoint

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def show_settings(request: Request) -> Response:
        return JSONResponse(matches.settings.to_dict())

    async def create(request: Request) -> Response:
        body = await _json_body(request)
        if body not in (None, {}):
            raise RequestError(400, "a new match takes no fields (the server's settings apply)")
        session = await run_in_threadpool(matches.create)
        return JSONResponse(session.state(start_clock=False), status_code=201)

    async def state(request: Request) -> Response:
        session = matches.get(request.path_params["match_id"])

        def run() -> Any:
            with session.lock:
                return session.state()

        return JSONResponse(await run_in_threadpool(run))

    async def action(request: Request) -> Response:
        session = matches.get(request.path_params["match_id"])
        name = request.path_params["action"]
        if name not in ACTIONS:
            raise RequestError(404, f"unknown action {name[:40]!r}; actions: {', '.join(ACTIONS)}")
        body = await _json_body(request)

        def run() -> Any:
            with session.lock:
                return getattr(session, name)(body)

        return JSONResponse(await run_in_threadpool(run))

    async def record(request: Request) -> Response:
        session = matches.get(request.path_params["match_id"])

        def run() -> Any:
            with session.lock:
                return session.record()

        data = await run_in_threadpool(run)
        name = f"{session.game.name}-match-{session.id}.json"
        return Response(json.dumps(data, ensure_ascii=False, indent=1), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    routes = [
        Route("/", guarded(page)),
        Route("/api/settings", guarded(show_settings)),
        Route("/api/matches", guarded(create), methods=["POST"]),
        Route("/api/matches/{match_id}", guarded(state)),
        Route("/api/matches/{match_id}/record", guarded(record)),
        Route("/api/matches/{match_id}/{action}", guarded(action), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.matches = matches
    return app
