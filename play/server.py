"""The web layer of browser play: a Starlette application that serves the page and
translates HTTP requests into calls of :class:`~splitpoker.play.session.PlaySession`.

It holds no rules. Routes (every answer JSON; an error, an unknown path and a wrong method
included, is ``{"error": "…"}`` with a 4xx status and changes nothing):

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

Matches are dropped by last use: beyond :data:`MAX_MATCHES`, the least recently used one
if it has been idle for :data:`IDLE_S` seconds; otherwise a new match is refused (503), so
creating matches never evicts one in play. A request whose ``Origin`` is not the page's own
(a cross-site form or script, or a DNS-rebound name) is refused with 403, and so is one
whose ``Host`` is not the address served (``allowed_hosts``) when the server is given
them. ``/api/settings`` leaves out the seed unless ``reveal_seed``. A JSON body nested too
deeply is a 400.

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
from starlette.exceptions import HTTPException
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
#: matches kept in memory; beyond, the least recently used is dropped if it has been idle
#: for ``IDLE_S`` seconds, else a new match is refused (503) until one is
MAX_MATCHES = 64
IDLE_S = 1800.0
ACTIONS = ("check", "submit", "timeout", "auto", "hint")


class Matches:
    """The matches of one server: ``settings`` for all of them; match ``k`` is dealt from
    the seed sequence ``(seed, k)`` (fresh entropy without a seed)."""

    def __init__(self, settings: PlaySettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self._sessions: collections.OrderedDict[str, PlaySession] = collections.OrderedDict()
        self._used: dict[str, float] = {}  # when each match was last asked for
        self._count = itertools.count()
        self._lock = threading.Lock()

    def create(self) -> PlaySession:
        with self._lock:
            k = next(self._count)
            seed = (np.random.SeedSequence([self.settings.seed, k]) if self.settings.seed is not None
                    else np.random.SeedSequence())
            if len(self._sessions) >= MAX_MATCHES:
                oldest = next(iter(self._sessions))
                if self.clock() - self._used[oldest] < IDLE_S:
                    raise RequestError(503, f"the server holds {MAX_MATCHES} matches in play; "
                                            "try again when one has been idle for a while")
                del self._sessions[oldest], self._used[oldest]
            session = PlaySession(secrets.token_hex(8), self.settings, seed, clock=self.clock)
            self._sessions[session.id] = session
            self._used[session.id] = self.clock()
            return session

    def get(self, match_id: str) -> PlaySession:
        """The match ``match_id``, now its most recently used; 404 when unknown."""
        with self._lock:
            session = self._sessions.get(match_id)
            if session is not None:
                self._sessions.move_to_end(match_id)
                self._used[match_id] = self.clock()
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
    except RecursionError:
        raise RequestError(400, "the body is JSON nested too deeply") from None


def _check_origin(request: Request, allowed_hosts: tuple[str, ...]) -> None:
    """403 for a request from another site: an ``Origin`` header whose host is not the
    request's own ``Host``, or, when ``allowed_hosts`` is given, a ``Host`` not among them
    (a name rebound to this address)."""
    host = request.headers.get("host", "")
    if allowed_hosts and host.rsplit(":", 1)[0].strip("[]") not in allowed_hosts:
        raise RequestError(403, f"requests for host {host[:60]!r} are refused; this server answers "
                                f"{', '.join(allowed_hosts)}")
    origin = request.headers.get("origin")
    if origin is not None and origin.split("://", 1)[-1].rstrip("/") != host:
        raise RequestError(403, f"cross-origin request from {origin[:60]!r} refused")


def create_app(settings: PlaySettings, clock: Callable[[], float] = time.monotonic, *,
               reveal_seed: bool = False, allowed_hosts: tuple[str, ...] = ()) -> Starlette:
    """The application for matches under ``settings`` (checked first). ``reveal_seed``:
    ``/api/settings`` shows the seed; ``allowed_hosts``: the only ``Host`` names answered
    (none: any)."""
    matches = Matches(settings.check(), clock)

    def guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                _check_origin(request, allowed_hosts)
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
        shown = matches.settings.to_dict()
        if not reveal_seed:
            shown.pop("seed")
        return JSONResponse(shown)

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
    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        message = {404: f"no such page {request.url.path[:60]!r}",
                   405: f"{request.method} is not allowed on {request.url.path[:60]!r}"}.get(error.status_code,
                                                                                        str(error.detail))
        return JSONResponse({"error": message}, status_code=error.status_code, headers=error.headers)

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app.state.matches = matches
    return app
