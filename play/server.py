"""The web layer of browser play: a Starlette application that serves the page and
translates HTTP requests into calls of :class:`~splitpoker.play.session.PlaySession`.

It holds no rules. Routes (every answer JSON; an error, an unknown path and a wrong method
included, is ``{"error": "…", "code": "…", "params": {…}}`` with a 4xx status and changes
nothing: the English message, a stable name of the refusal and its values, from which the
page says it in either language):

=========================================  ===========================================
``GET  /``                                 the page (``static/index.html``)
``GET  /static/{file}``                    the page's script, style sheet, icon and font
``GET  /api/settings``                     what the server was started with
``POST /api/matches``                      a new match (201): its state and its ``secret``
``GET  /api/matches/{id}``                 the state; starts the clock of a new hand
``POST /api/matches/{id}/check``           ``{"hand", "rows"}``: valid? row types
``POST /api/matches/{id}/save``            ``{"hand", "rows"}``: keep a valid arrangement for a time-out
``POST /api/matches/{id}/submit``          ``{"hand", "rows"}``: play the hand: the reveal
``POST /api/matches/{id}/timeout``         ``{"hand"[, "rows"]}``: the clock ran out: play the rows sent
                                           (valid, in time), else the saved ones, else the automatic ones
``POST /api/matches/{id}/auto``            ``{"hand"}``: the automatic arrangement
``POST /api/matches/{id}/hint``            ``{"hand"}``: the solver's best splits of different structures
                                           and their EVs (a repeat is free; :data:`~.session.HINT_LIMIT`
                                           different requests a hand, then 429)
``GET  /api/matches/{id}/record``          the match as a JSON download
=========================================  ===========================================

**A match belongs to the client that created it.** Its creation answers a ``secret`` once,
and sets it as the cookie :data:`SECRET_COOKIE` (``HttpOnly``, ``SameSite=Strict``, path
``/api/matches/{id}``, so a browser sends it with that match's requests only); every
request of the match must carry it, as that cookie or as the header :data:`SECRET_HEADER`,
else 403 (404 for an unknown match). Matches are dropped by last use: beyond
:data:`MAX_MATCHES`, the least recently used one if it has been idle for :data:`IDLE_S`
seconds; otherwise a new match is refused (503), so creating matches never evicts one in
play. Only a request that succeeds counts as a use.

**Every request** (the page and static files included) passes :class:`Guard` first: a
``Host`` that is not one of ``allowed_hosts`` (when given; an IP literal too when
``any_ip``) is refused with 403 (a name rebound to this address), and so is an ``Origin``
that is not the page's own, ``http://`` or ``https://`` and the request's ``Host`` (a
cross-site form or script, or a page of another scheme); when the app has a ``token``
it must come with every request, as ``?token=`` (``GET /?token=…`` sets the cookie and
redirects to ``/``), the cookie, or ``Authorization: Bearer``, else 401. The seed is left
out of every answer (``/api/settings``, a match's state and record) unless
``reveal_seed``. A body over :data:`MAX_BODY` bytes is a 413, JSON nested more than
:data:`MAX_DEPTH` deep a 400.

Needs the optional ``[play]`` extra (Starlette and uvicorn).
"""

from __future__ import annotations

import collections
import hashlib
import ipaddress
import itertools
import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from .session import PlaySession, PlaySettings, RequestError

__all__ = ["Guard", "MAX_BODY", "MAX_DEPTH", "MAX_MATCHES", "Matches", "SECRET_COOKIE", "SECRET_HEADER",
           "STATIC", "create_app", "token_cookie"]

#: the folder of the page's files, shipped with the package
STATIC = Path(__file__).resolve().parent / "static"
#: the largest request body accepted (bytes)
MAX_BODY = 16_384
#: the deepest nesting of JSON arrays and objects accepted in a body
MAX_DEPTH = 32
#: matches kept in memory; beyond, the least recently used is dropped if it has been idle
#: for ``IDLE_S`` seconds, else a new match is refused (503) until one is
MAX_MATCHES = 64
IDLE_S = 1800.0
ACTIONS = ("check", "save", "submit", "timeout", "auto", "hint")
#: the cookie (path ``/api/matches/{id}``) and the header that carry a match's secret
SECRET_COOKIE = "splitpoker_match"
SECRET_HEADER = "X-Match-Secret"
#: how long a browser keeps a match's secret cookie (seconds)
SECRET_MAX_AGE = 7 * 24 * 3600


class Matches:
    """The matches of one server: ``settings`` for all of them; match ``k`` is dealt from
    the seed sequence ``(seed, k)`` (fresh entropy without a seed). Each has a secret that
    every request of it must give."""

    def __init__(self, settings: PlaySettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self._sessions: collections.OrderedDict[str, PlaySession] = collections.OrderedDict()
        self._secrets: dict[str, str] = {}
        self._used: dict[str, float] = {}  # when each match was last used
        self._count = itertools.count()
        self._lock = threading.Lock()

    def create(self) -> tuple[PlaySession, str]:
        """A new match and its secret; 503 (and nothing changed) when the server is full of
        matches used within ``IDLE_S`` seconds."""
        with self._lock:
            if len(self._sessions) >= MAX_MATCHES:
                oldest = next(iter(self._sessions))
                if self.clock() - self._used[oldest] < IDLE_S:
                    raise RequestError(503, f"the server holds {MAX_MATCHES} matches in play; "
                                            "try again when one has been idle for a while", "server_full",
                                       matches=MAX_MATCHES)
            k = next(self._count)
            seed = (np.random.SeedSequence([self.settings.seed, k]) if self.settings.seed is not None
                    else np.random.SeedSequence())
            session = PlaySession(secrets.token_hex(8), self.settings, seed, clock=self.clock)
            if len(self._sessions) >= MAX_MATCHES:
                oldest = next(iter(self._sessions))
                del self._sessions[oldest], self._used[oldest], self._secrets[oldest]
            secret = secrets.token_urlsafe(24)
            self._sessions[session.id] = session
            self._secrets[session.id] = secret
            self._used[session.id] = self.clock()
            return session, secret

    def get(self, match_id: str, secret: str | None) -> PlaySession:
        """The match ``match_id`` when ``secret`` is its secret: 404 when unknown, 403 when
        the secret is missing or wrong. Changes nothing (see :meth:`touch`)."""
        with self._lock:
            session = self._sessions.get(match_id)
            expected = self._secrets.get(match_id, "")
        if session is None:
            raise RequestError(404, f"unknown match {match_id[:40]!r}", "unknown_match")
        if not secret or not secrets.compare_digest(secret.encode(), expected.encode()):
            raise RequestError(403, f"match {match_id!r} belongs to the client that created it: "
                                    f"{'a wrong' if secret else 'no'} secret was given (the {SECRET_COOKIE} "
                                    f"cookie set when it was created, or the {SECRET_HEADER} header)", "not_your_match")
        return session

    def touch(self, match_id: str) -> None:
        """Count a use of the match: it is now the most recently used."""
        with self._lock:
            if match_id in self._sessions:
                self._sessions.move_to_end(match_id)
                self._used[match_id] = self.clock()


def _error(status: int, message: str, code: str, headers: Mapping[str, str] | None = None,
           **params: Any) -> JSONResponse:
    """A refusal: ``{"error": message, "code": code, "params": params}`` (see
    :class:`~.session.RequestError`)."""
    return JSONResponse(RequestError(status, message, code, **params).to_dict(), status_code=status, headers=headers)


def _depth(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest (strings skipped); stops
    counting past :data:`MAX_DEPTH`."""
    depth = peak = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > peak:
                peak = depth
                if peak > MAX_DEPTH:
                    break
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return peak


async def _json_body(request: Request) -> Any:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise RequestError(413, f"the body is larger than {MAX_BODY} bytes", "body_too_large", bytes=MAX_BODY)
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise RequestError(413, f"the body is larger than {MAX_BODY} bytes", "body_too_large", bytes=MAX_BODY)
    if _depth(body) > MAX_DEPTH:
        raise RequestError(400, f"the body is JSON nested too deeply (more than {MAX_DEPTH} levels)", "body_too_deep")
    try:
        return json.loads(body.decode("utf-8")) if body else None
    except (UnicodeDecodeError, ValueError) as error:
        raise RequestError(400, f"the body is not JSON: {str(error).splitlines()[0]}", "not_json") from None
    except RecursionError:
        raise RequestError(400, "the body is JSON nested too deeply", "body_too_deep") from None


def _host_name(host: str) -> str:
    """The name or address of a ``Host`` header, without the port and brackets."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _same_origin(origin: str, host: str) -> bool:
    """Whether an ``Origin`` header names the page's own origin: ``http://`` or ``https://``
    and the request's ``Host``, exactly (no other scheme, no path; ``null`` is none)."""
    scheme, sep, rest = origin.strip().lower().partition("://")
    return bool(sep) and scheme in ("http", "https") and bool(rest) and rest == host.strip().lower()


def token_cookie(token: str) -> str:
    """The name of the cookie that carries ``token`` (named after it, so that servers on
    other ports of the same host keep their own)."""
    return f"splitpoker_token_{hashlib.sha256(token.encode()).hexdigest()[:8]}"


class Guard:
    """ASGI middleware run before every HTTP request: refuses (JSON, nothing changed) a
    ``Host`` not among ``allowed_hosts`` (when given; any IP literal too when ``any_ip``:
    a DNS-rebound name is never an IP literal), an ``Origin`` other than ``http://`` or
    ``https://`` and the request's own ``Host``, and, when ``token`` is set, a request
    without it (``?token=``, the cookie :func:`token_cookie` or ``Authorization: Bearer``).
    ``GET /?token=…`` sets the cookie and redirects to ``/``."""

    def __init__(self, app: ASGIApp, allowed_hosts: tuple[str, ...] = (), any_ip: bool = False,
                 token: str | None = None) -> None:
        self.app = app
        self.allowed_hosts = tuple(h.lower() for h in allowed_hosts)
        self.any_ip = any_ip
        self.token = token

    def check(self, request: Request) -> Response | None:
        """The answer refusing ``request``, or ``None`` to let it through."""
        host = request.headers.get("host", "")
        name = _host_name(host)
        if self.allowed_hosts and name not in self.allowed_hosts and not (self.any_ip and _is_ip(name)):
            return _error(403, f"requests for host {host[:60]!r} are refused; this server answers "
                               f"{', '.join(self.allowed_hosts)}{' and its IP addresses' if self.any_ip else ''}",
                          "host_refused")
        origin = request.headers.get("origin")
        if origin is not None and not _same_origin(origin, host):
            return _error(403, f"cross-origin request from {origin[:60]!r} refused", "cross_origin")
        if self.token is None:
            return None
        expected = self.token.encode()
        from_query = parse_qs(request.url.query).get("token", [""])[-1]
        authorization = request.headers.get("authorization", "")
        given = (from_query or request.cookies.get(token_cookie(self.token), "")
                 or (authorization[7:].strip() if authorization.lower().startswith("bearer ") else ""))
        if not secrets.compare_digest(given.encode(), expected):
            return _error(401, f"{'a wrong' if given else 'no'} token: this server needs the token it printed "
                               "(open the URL it printed, with ?token=…)", "token",
                          headers={"WWW-Authenticate": "Bearer"})
        if from_query and request.method in ("GET", "HEAD") and request.url.path == "/":
            redirect = RedirectResponse("/", status_code=303)
            redirect.set_cookie(token_cookie(self.token), self.token, httponly=True, samesite="lax")
            return redirect
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self.check(Request(scope))
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _without_seed(answer: Any) -> Any:
    """``answer`` (a state, a record, an action's answer) with the seed left out of its
    settings."""
    if isinstance(answer, dict):
        answer = {k: _without_seed(v) if k == "state" else v for k, v in answer.items()}
        if isinstance(answer.get("settings"), dict):
            answer["settings"] = {k: v for k, v in answer["settings"].items() if k != "seed"}
    return answer


def create_app(settings: PlaySettings, clock: Callable[[], float] = time.monotonic, *,
               reveal_seed: bool = False, allowed_hosts: tuple[str, ...] = (), any_ip: bool = False,
               token: str | None = None) -> Starlette:
    """The application for matches under ``settings`` (checked first). ``reveal_seed``:
    answers show the seed; ``allowed_hosts``: the only ``Host`` names answered (none: any),
    IP literals too with ``any_ip``; ``token``: the token every request must bring (none:
    no token). See :class:`Guard`."""
    matches = Matches(settings.check(), clock)
    shown: Callable[[Any], Any] = (lambda answer: answer) if reveal_seed else _without_seed

    def guarded(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestError as error:
                return JSONResponse(error.to_dict(), status_code=error.status)
            except Exception as error:  # a failing agent: the page gets a message, the match is unchanged
                first_line = str(error).splitlines()[0] if str(error) else ""
                return _error(500, f"internal error: {type(error).__name__}: {first_line}", "internal")
        return endpoint

    def owned(request: Request) -> PlaySession:
        secret = request.headers.get(SECRET_HEADER) or request.cookies.get(SECRET_COOKIE)
        return matches.get(request.path_params["match_id"], secret)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def show_settings(request: Request) -> Response:
        return JSONResponse(shown({"settings": matches.settings.to_dict()})["settings"])

    async def create(request: Request) -> Response:
        body = await _json_body(request)
        if body not in (None, {}):
            raise RequestError(400, "a new match takes no fields (the server's settings apply)", "no_fields")
        session, secret = await run_in_threadpool(matches.create)
        response = JSONResponse({**shown(session.state(start_clock=False)), "secret": secret}, status_code=201,
                                headers={"Cache-Control": "no-store"})
        response.set_cookie(SECRET_COOKIE, secret, max_age=SECRET_MAX_AGE, path=f"/api/matches/{session.id}",
                            httponly=True, samesite="strict")
        return response

    async def state(request: Request) -> Response:
        session = owned(request)

        def run() -> Any:
            with session.lock:
                return session.state()

        answer = await run_in_threadpool(run)
        matches.touch(session.id)
        return JSONResponse(shown(answer))

    async def action(request: Request) -> Response:
        session = owned(request)
        name = request.path_params["action"]
        if name not in ACTIONS:
            raise RequestError(404, f"unknown action {name[:40]!r}; actions: {', '.join(ACTIONS)}", "unknown_action")
        body = await _json_body(request)

        def run() -> Any:
            with session.lock:
                return getattr(session, name)(body)

        answer = await run_in_threadpool(run)
        matches.touch(session.id)
        return JSONResponse(shown(answer))

    async def record(request: Request) -> Response:
        session = owned(request)

        def run() -> Any:
            with session.lock:
                return session.record()

        data = shown(await run_in_threadpool(run))
        matches.touch(session.id)
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
        if error.status_code == 404:
            return _error(404, f"no such page {request.url.path[:60]!r}", "no_such_page", headers=error.headers)
        if error.status_code == 405:
            return _error(405, f"{request.method} is not allowed on {request.url.path[:60]!r}", "method_not_allowed",
                          headers=error.headers)
        return _error(error.status_code, str(error.detail), "http", headers=error.headers)

    async def server_error(request: Request, error: Exception) -> Response:
        return _error(500, f"internal error: {type(error).__name__}", "internal")

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error, Exception: server_error})
    app.add_middleware(Guard, allowed_hosts=allowed_hosts, any_ip=any_ip, token=token)
    app.state.matches = matches
    return app
