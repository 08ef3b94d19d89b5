"""Subcommand of splitpoker.play: ``play``."""

from __future__ import annotations

import argparse
import ipaddress
import secrets
import socket
import sys
from typing import Any

from ..envs.commands import GAME_CHOICES

INSTALL_HINT = "browser play needs the [play] extra: pip install 'splitpoker[play]'"


def _play(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from .server import create_app
    except ImportError:
        raise ValueError(INSTALL_HINT) from None
    from ..envs.switches import parse_assignments
    from ..eval.commands import split_agent_specs
    from .session import PlaySettings

    settings = PlaySettings(game=args.game, preset=args.preset, switches=parse_assignments(args.switches),
                            players=args.players, against=tuple(split_agent_specs(args.against)),
                            hands=args.hands, time_limit=args.time_limit, seed=args.seed,
                            banker_term=args.banker_hands, hint_samples=args.hint_samples).check()
    sock = bind(args.host, args.port)
    host, port = sock.getsockname()[:2]
    address = ipaddress.ip_address(host.split("%", 1)[0])
    # the server answers only its own names, so that a name rebound to it is refused
    names = ("localhost", "127.0.0.1", "::1", host, *args.allow_host)
    if address.is_loopback:
        token = None
        app = create_app(settings, reveal_seed=args.reveal_seed, allowed_hosts=names)
        shown = host
    else:  # reachable from other machines: every request needs the token printed once below
        token = secrets.token_urlsafe(16)
        any_ip = address.is_unspecified  # an IP literal is never a rebound name
        app = create_app(settings, reveal_seed=args.reveal_seed, allowed_hosts=names + _machine_names(),
                         any_ip=any_ip, token=token)
        shown = _outward_address() if any_ip else host
        print(f"splitpoker play: warning: listening on {host}, reachable from other machines: every request "
              "needs the token in the URL below; share it only with the people you play with",
              file=sys.stderr, flush=True)
    url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{port}/" + (f"?token={token}" if token else "")
    print(f"splitpoker play: {settings.game} ({settings.preset}), {settings.players} players, "
          f"{settings.hands} hands against {', '.join(settings.against)}", flush=True)
    print(f"open {url}  (Ctrl-C stops the server)", flush=True)
    if args.open:
        import threading
        import webbrowser

        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])
    return 0


def _machine_names() -> tuple[str, ...]:
    """This machine's host names."""
    return tuple(name for name in {socket.gethostname(), socket.getfqdn()} if name)


def _outward_address() -> str:
    """The address other machines reach this one at (the source address of a route out;
    nothing is sent), else its host name."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            return str(probe.getsockname()[0])
    except OSError:
        return socket.gethostname()


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host`` and ``port`` (0: a free port); ValueError naming them."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port {port} is not a port number (0 to 65535)")
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(info[0], socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(info[4])
    except OSError as error:
        raise ValueError(f"cannot listen on {host}:{port} ({error.strerror or error})") from None
    sock.listen(64)
    return sock


def register(sub: argparse._SubParsersAction) -> None:
    """Add this package's subcommand."""
    from ..envs.commands import add_rules_options
    from ..runtime.arguments import decimal_number, whole_number

    p: Any = sub.add_parser(
        "play", help="play against agents in the browser",
        description="Start a local web server with a page to play a match against agents, on a phone or a "
        "desktop, in Chinese or English: arrange your hand by taps, drag and drop, swaps, pickers (pair, "
        "straight, flush, ...) or the keyboard, see a special hand (报到) announced and a foul's rows named, ask "
        "the solver for suggested arrangements (5 a hand), read the rules in play, see every row compared and "
        "the payoffs broken down (打枪 and 全垒打 highlighted), review earlier hands, keep the totals over the "
        "match and download it as JSON. A match belongs to the "
        "browser that created it (a secret cookie) and survives a reload; cross-site requests are refused. "
        "Needs the [play] extra.")
    p.add_argument("game", choices=GAME_CHOICES, help="the game")
    add_rules_options(p)
    p.add_argument("--players", type=whole_number, default=4, help="seats at the table, yours included (default 4)")
    p.add_argument("--against", default="greedy", metavar="SPEC[,SPEC...]",
                   help="the opponents' agent spec, or one per seat 1..N-1 (default greedy), "
                        "e.g. pretrained:thirteen_classic_4p")
    p.add_argument("--hands", type=whole_number, default=8, help="hands in the match, 1 to 10,000 (default 8)")
    p.add_argument("--time-limit", type=decimal_number, default=None, metavar="S",
                   help="seconds to arrange each hand, above 0 and at most a day (86400); when the clock runs "
                        "out your arrangement is played if it is complete and valid, else the hand is arranged "
                        "automatically (default: no clock)")
    p.add_argument("--seed", type=whole_number, default=None,
                   help="seed of the deals and the agents, 0 to 4294967295: the server's k-th match is dealt from "
                        "(seed, k) (default: random)")
    p.add_argument("--banker-hands", type=whole_number, default=None, metavar="K",
                   help="hands a banker keeps the bank under banker rules, 1 to 10,000 (default: the rule text's 4)")
    p.add_argument("--hint-samples", type=whole_number, default=256, metavar="K",
                   help="opponent deals the solver's hint samples, 1 to 65,536 (default 256)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only). Any other address "
                        "(e.g. 0.0.0.0) prints a warning and a URL with a token, ?token=..., generated "
                        "for this run and shown once: every request needs it (the page keeps it in a cookie)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="a further host name the server answers to (repeatable); requests naming any "
                        "other host are refused (DNS rebinding). Answered anyway: localhost, the address "
                        "listened on (any IP address under 0.0.0.0 or ::) and, beyond loopback, the machine's "
                        "host names")
    p.add_argument("--port", type=whole_number, default=0, help="the port, 0 to 65535 (default 0: a free one)")
    p.add_argument("--open", action="store_true", help="open the page in a browser")
    p.add_argument("--reveal-seed", action="store_true",
                   help="show the seed in /api/settings and the matches' states and records (hidden by "
                        "default: it tells the deals)")
    p.set_defaults(run=_play)
