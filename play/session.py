"""A person playing a match against agents: the seat, the agents, the clock and the hint.

One :class:`PlaySession` holds a :class:`~splitpoker.envs.match.Match` whose seat 0 is the
person and whose other seats are agents built by :func:`~splitpoker.agents.load_agent`
(one per seat, for each bank position the rules give). Every request from the page is a
plain mapping, validated here in full before anything changes: a bad request raises
:class:`RequestError` with an HTTP status and a one-line message, and leaves the match as
it was. The rules stay in the game: this module asks it for validity, row types, the
automatic arrangement and the payoffs.

* the **clock** (``time_limit``): it starts when the hand is first shown (:meth:`state`);
  when it has run out, :meth:`timeout` (or a late :meth:`submit`) plays the person's
  arrangement if a valid one arrived in time (sent with the time-out, or kept by
  :meth:`save`), else the automatic one;
* the **automatic arrangement**: the first registered agent kind of :data:`AUTO_KINDS`;
* the **hint**: the exhaustive solver's best splits with their expected payoffs, the best
  one of each structure (the types of its rows) only, worked out once a hand; a repeat of
  a request is answered again for free, at most :data:`HINT_LIMIT` different ones a hand;
* what the page shows beside the cards, read from the game: a special hand (报到) the
  person's cards are paid as (:meth:`PlaySession.special`), the bonuses (Biji's 喜) a
  valid arrangement holds by itself, each revealed row's cards in the order of what they
  make (``rows_by_role``), the rows that break the order of an invalid arrangement (and
  the two rows to exchange when that makes it valid), the row types each row can hold
  and the groups of the hand that make each (for the page's pickers, :mod:`.pickers`)
  and the rules in play with their payment tables.

Every refusal carries a stable ``code`` and its ``params`` beside the English message, for
the page to say in its own words (:class:`RequestError`).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..agents import Agent, load_agent
from ..agents.solver import SolverAgent
from ..agents.specs import AGENT_KINDS, check_spec
from ..envs.cards import format_card, format_cards, parse_cards
from ..envs.game import Game
from ..envs.games import check_game, make_game
from ..envs.match import Match
from ..runtime.arguments import is_number, is_whole
from .pickers import groups, pickers

__all__ = ["AUTO_KINDS", "HINT_LIMIT", "HUMAN", "MAX_HINT_SAMPLES", "MAX_MATCH_HANDS", "MAX_SEED", "PlaySession",
           "PlaySettings", "RequestError", "auto_kind"]

#: the seat of the person at the table
HUMAN = 0
#: agent kinds for the automatic arrangement, best first: the first one registered is used
AUTO_KINDS = ("heuristic", "greedy")
#: seconds a submission may arrive after the clock ran out and still count (network delay)
GRACE_S = 1.0
#: the most splits a hint lists
HINT_TOP = 5
#: the most opponent deals a hint may sample (a Biji hint of that many takes a few seconds
#: and about a gigabyte; the solver's own bound, a million, most of a minute and some 14 GB)
MAX_HINT_SAMPLES = 65_536
#: the most hands of a match (a person plays one hand in half a minute or so)
MAX_MATCH_HANDS = 10_000
#: the largest seed of the deals
MAX_SEED = 2**32 - 1
#: different hint requests a hand answers; beyond, 429 (the solver runs once a hand, and a
#: repeat of a request is answered again from the same splits without counting)
HINT_LIMIT = 5


def rules_view(game: Game, preset: str) -> dict[str, Any]:
    """The rules in play for the page's rules panel: the preset, every switch with its
    value and its one-line description, and the payment tables
    (``splitpoker rules GAME --tables``)."""
    described = type(game.rules).describe()
    return {"preset": preset, "summary": game.summary,
            "switches": {name: {"value": value, "doc": described.get(name, {}).get("doc", "")}
                         for name, value in game.rules.to_dict().items()},
            "tables": game.rules.tables()}


def auto_kind() -> str:
    """The agent kind that arranges a hand automatically."""
    return next(kind for kind in AUTO_KINDS if kind in AGENT_KINDS)


def broken_order(game: Game, rows: list[list[int]]) -> dict[str, Any] | None:
    """The first two neighbouring rows of an invalid arrangement that break the game's order
    (:meth:`Game.valid_rows` asked of the two with the third row left out of the question:
    the weakest possible before them, or the strongest after), and whether the earlier
    row ``beats`` or ``ties`` the later one by their strengths; None when no pair alone
    breaks it."""
    strengths = _strengths(game, rows)
    low, high = -(2**62), 2**62  # below and above every row strength
    for a in range(len(rows) - 1):
        question = [low] * a + strengths[a:a + 2] + [high] * (len(rows) - a - 2)
        if not bool(game.valid_rows(*question)):
            relation = "ties" if strengths[a] == strengths[a + 1] else "beats"
            return {"rows": [a, a + 1], "relation": relation}
    return None


def different_structures(game: Game, slots: np.ndarray, ranking: list[tuple[int, float]],
                         top: int) -> list[tuple[int, float]]:
    """The first ``top`` splits of ``ranking`` (``(split, ev)``, best first) whose row types
    differ: the best split of each structure (the type of each row), not one kicker
    exchanged for another."""
    if not ranking:
        return []
    splits = np.array([split for split, _ in ranking], dtype=np.intp)
    kinds = len(game.type_names)
    signature = np.zeros(len(splits), dtype=np.int64)
    for strengths in game.split_strengths(np.asarray(slots)):
        signature = signature * kinds + np.asarray(game.strength_type(strengths[splits]), dtype=np.int64)
    first = np.sort(np.unique(signature, return_index=True)[1])[:top]
    return [ranking[i] for i in first.tolist()]


def fixing_swap(game: Game, rows: list[list[int]], order: dict[str, Any] | None) -> list[int] | None:
    """The two rows out of order (``order``, :func:`broken_order`) when they hold as many
    cards and exchanging them makes the arrangement valid; None otherwise."""
    if order is None:
        return None
    a, b = order["rows"]
    if len(rows[a]) != len(rows[b]):
        return None
    swapped = [rows[b] if k == a else rows[a] if k == b else row for k, row in enumerate(rows)]
    return [a, b] if bool(game.valid_rows(*_strengths(game, swapped))) else None


def _strengths(game: Game, rows: list[list[int]]) -> list[int]:
    """The strength of each row of an arrangement."""
    return [int(game.row_strengths(np.sort(np.asarray(r, dtype=np.intp))[None])[0]) for r in rows]


class RequestError(ValueError):
    """A request the session refuses: ``status`` is the HTTP status (400 malformed, 404
    unknown, 409 out of turn or stale, 422 an invalid split, 429 too many hints), the
    message says why in English, ``code`` names the refusal for good and ``params`` are its
    values (hand numbers from 0, rows by index, cards as text), for the page to say it in
    its own words."""

    def __init__(self, status: int, message: str, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.params = params

    def to_dict(self) -> dict[str, Any]:
        """The answer's body: ``{"error", "code", "params"}``."""
        return {"error": str(self), "code": self.code, "params": self.params}


@dataclasses.dataclass(frozen=True)
class PlaySettings:
    """What ``splitpoker play`` was started with (validated by :meth:`check`)."""

    game: str = "thirteen"
    preset: str = "classic"
    switches: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    players: int = 4
    against: tuple[str, ...] = ("greedy",)
    hands: int = 8
    time_limit: float | None = None
    seed: int | None = None
    banker_term: int | None = None
    hint_samples: int = 256

    def check(self) -> PlaySettings:
        """These settings, or a ValueError naming the first bad one. Builds the game (the
        preset and table size are checked) and loads each agent spec once."""
        game = make_game(check_game(self.game), self.preset, **self.switches)
        game.check_players(self.players)
        specs = tuple(check_spec(s) for s in self.against)
        if len(specs) not in (1, self.players - 1):
            raise ValueError(f"--against has {len(specs)} specs; give one for every opponent or "
                             f"{self.players - 1} (one per seat 1..{self.players - 1})")
        bounds: tuple[tuple[str, str, Any, int, int], ...] = (
            ("hands", "--hands", self.hands, 1, MAX_MATCH_HANDS),
            ("hint_samples", "--hint-samples", self.hint_samples, 1, MAX_HINT_SAMPLES),
            ("seed", "--seed", self.seed, 0, MAX_SEED),
            ("banker_term", "--banker-hands", self.banker_term, 1, MAX_MATCH_HANDS))
        counts: dict[str, Any] = {}
        for name, option, value, least, most in bounds:
            if value is None and name in ("seed", "banker_term"):
                continue  # a random seed; the rules' own banker term
            if not is_whole(value) or not least <= value <= most:
                raise ValueError(f"{name}={value!r} is not a whole number of at least {least} and at most {most:,} "
                                 f"({option})")
            counts[name] = int(value)  # a numpy integer, too, is written to JSON as a plain int
        if self.banker_term is not None and game.banker() is None:
            raise ValueError(f"banker_term={self.banker_term!r}: these {game.name} rules have no banker "
                             "(--banker-hands applies under rules with one)")
        if self.time_limit is not None and not (is_number(self.time_limit) and 0 < self.time_limit <= 24 * 3600):
            raise ValueError(f"time_limit={self.time_limit!r} is not a number of seconds above 0 (at most a day)")
        checked = dataclasses.replace(self, against=specs, switches=dict(self.switches), **counts)
        for spec in dict.fromkeys(specs):  # a missing checkpoint is found now, not at the first hand
            load_agent(spec, game, num_players=self.players, seed=0)
        return checked

    def spec(self, seat: int) -> str:
        """The agent spec of an opponent's seat (1 … players − 1)."""
        return self.against[0] if len(self.against) == 1 else self.against[seat - 1]

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "against": list(self.against), "switches": dict(self.switches)}


class PlaySession:
    """One match of a person (seat :data:`HUMAN`) against agents (see the module docstring).
    ``seed`` seeds the deal and the agents; ``clock`` gives seconds (monotonic)."""

    def __init__(self, match_id: str, settings: PlaySettings, seed: np.random.SeedSequence,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.id = match_id
        self.settings = settings
        self.game = make_game(settings.game, settings.preset, **settings.switches)
        deal_seed, self._agent_seed, self._hint_seed = seed.spawn(3)
        self.match = Match(self.game, settings.players, settings.hands, np.random.default_rng(deal_seed),
                           banker_term=settings.banker_term)
        self.clock = clock
        self.lock = threading.Lock()
        self.timed_out: list[bool] = []
        self._agents: dict[tuple[int, int | None], Agent] = {}
        self._hints: dict[int, list[dict[str, Any]]] = {}
        self._hint_asks: dict[int, set[str]] = {}  # the different hint requests answered, by hand
        self._groups: tuple[int, dict[int, dict[str, list[list[str]]]]] | None = None  # the pickers' groups
        self._saved: int | None = None  # the split kept by save() for the hand in play
        self._deadline: float | None = None
        self._specials: dict[int, dict[str, Any] | None] = {}  # the person's special hand, by hand
        self._pickers = pickers(self.game)
        self._rules = rules_view(self.game, settings.preset)

    # ------------------------------------------------------------------ agents

    def _agent(self, seat: int, game: Game, banker: int | None) -> Agent:
        """The agent of a seat (the opponents' specs, or the automatic arrangement for the
        person's seat) for a hand's game, built once per bank position."""
        key = (seat, banker)
        if key not in self._agents:
            spec = auto_kind() if seat == HUMAN else self.settings.spec(seat)
            seed = int(np.random.default_rng(self._agent_seed.spawn(1)[0]).integers(2**31))
            self._agents[key] = load_agent(spec, game, num_players=self.settings.players, seed=seed)
        return self._agents[key]

    def _decide(self, seats: list[int]) -> dict[int, int]:
        """The agents' splits of ``seats`` (the table core's decide step: checked once)."""
        deal = self.match.current
        assert deal is not None
        deal.tables.prepare([(0, seat) for seat in seats])  # the seats' masks and observations in one call
        actions = deal.tables.decide([(0, seat, self._agent(seat, deal.game, deal.banker)) for seat in seats])
        return {seat: int(actions[0, seat]) for seat in seats}

    # ------------------------------------------------------------------ requests

    def seat_names(self) -> list[str]:
        """``you``, then each opponent's agent spec and seat."""
        return ["you"] + [f"{self.settings.spec(s)} (seat {s})" for s in range(1, self.settings.players)]

    def special(self) -> dict[str, Any] | None:
        """The special hand (报到) the person's cards of the hand in play are paid as, when
        the game pays them so rather than by comparing rows: ``{"name", "paid"}`` (what each
        opponent without one pays; the name and payment as the game's scoring reports them,
        None where it reports none); None for a hand whose rows are compared."""
        deal = self._deal()
        if deal.number not in self._specials:
            game = deal.game
            mine = deal.hand(HUMAN).tolist()
            found: dict[str, Any] | None = None
            if not bool(np.asarray(game.compares_rows(np.asarray([mine])))[0]):
                # the scoring names it: a table of these cards and another seat's (any splits)
                other = deal.hand(1 if HUMAN == 0 else 0).tolist()
                score = game.score([game.arrangement(mine, 0), game.arrangement(other, 0)])
                breakdown = score.seat_breakdown(0)
                paid = breakdown.get("special_value")
                found = {"name": breakdown.get("special") or None,
                         "paid": None if paid is None else float(paid)}
            self._specials[deal.number] = found
        return self._specials[deal.number]

    def state(self, start_clock: bool = True) -> dict[str, Any]:
        """The match as the page shows it; starts the clock of a hand shown for the first
        time (unless ``start_clock`` is false)."""
        deal = self.match.current
        hand: dict[str, Any] | None = None
        if deal is not None:
            if start_clock and self.settings.time_limit is not None and self._deadline is None:
                self._deadline = self.clock() + self.settings.time_limit
            hand = {"number": deal.number, "first": deal.first, "banker": deal.banker,
                    "cards": [format_card(c) for c in deal.hand(HUMAN).tolist()], "remaining": self._remaining(),
                    "saved": None if self._saved is None else self._split_view(self._saved)["rows"],
                    "special": self.special(), "hints_left": HINT_LIMIT - len(self._hint_asks.get(deal.number, ())),
                    "groups": self._hand_groups(deal)}
        history = [{"hand": r.deal.number, "payoffs": r.payoffs.tolist(), "totals": r.totals.tolist(),
                    "timed_out": t} for r, t in zip(self.match.history, self.timed_out)]
        last = self._hand_view(len(self.match.history) - 1) if self.match.history else None
        return {"id": self.id, "settings": self.settings.to_dict(), "game": self.game.name,
                "row_names": list(self.game.row_names), "row_sizes": list(self.game.split_index.row_sizes),
                "invalid_name": self.game.invalid_name, "type_names": list(self.game.type_names),
                "pickers": self._pickers, "rules": self._rules, "hint_limit": HINT_LIMIT,
                "agents": [None] + [self.settings.spec(s) for s in range(1, self.settings.players)],
                "seats": self.seat_names(), "auto": auto_kind(), "hand": hand, "played": len(self.match.history),
                "finished": self.match.finished, "totals": self.match.totals.tolist(), "history": history,
                "last": last}

    def check(self, body: Any) -> dict[str, Any]:
        """Whether an arrangement of the hand is valid, and its rows' types (changes nothing).
        An invalid one also names the rows out of order: ``order`` is ``{"rows": [a, b],
        "relation"}``, row ``a`` ``beats`` or ``ties`` the later row ``b`` (see
        :func:`broken_order`)."""
        split, rows = self._read_split(body)
        valid = self._valid(split)
        game = self._deal().game
        answer = {"valid": valid, "reason": None if valid else f"{' | '.join(format_cards(r) for r in rows)} "
                  f"{game.invalid_reason}", "split": split, "types": game.describe_rows(rows)}
        if not valid:
            answer["order"] = broken_order(game, rows)
            answer["swap"] = fixing_swap(game, rows, answer["order"])
        answer["bonuses"] = game.held_bonuses(rows) if valid else {}
        return answer

    def save(self, body: Any) -> dict[str, Any]:
        """Keep a valid arrangement of the hand (checked as a submission is), to be played if
        the clock runs out before one is submitted; changes nothing else."""
        split, rows = self._read_split(body)
        if self._expired(GRACE_S):
            raise RequestError(409, "the time is up: an arrangement saved now is not played", "time_up")
        if not self._valid(split):
            raise RequestError(422, f"{' | '.join(format_cards(r) for r in rows)} "
                               f"{self._deal().game.invalid_reason}: only a valid arrangement is kept", "invalid_kept",
                               invalid=self._deal().game.invalid_name)
        self._saved = split
        return {"saved": True, "split": split, "types": self._deal().game.describe_rows(rows)}

    def submit(self, body: Any) -> dict[str, Any]:
        """Play the person's arrangement (or, past the clock, the one saved in time or the
        automatic one) with the agents' splits; the reveal of the hand and the new state."""
        split, rows = self._read_split(body)
        if self._expired(GRACE_S):
            return self._play(None, ran_out=True)
        if not self._valid(split):
            raise RequestError(422, f"{' | '.join(format_cards(r) for r in rows)} "
                               f"{self._deal().game.invalid_reason}: rearrange before you submit", "invalid_submit",
                               invalid=self._deal().game.invalid_name)
        return self._play(split)

    def timeout(self, body: Any) -> dict[str, Any]:
        """The clock has run out: play the arrangement sent with it (``{"hand", "rows"}``)
        when it is valid and arrived within the grace, else the one saved, else the
        automatic one."""
        split: int | None = None
        if isinstance(body, Mapping) and "rows" in body:
            split, _ = self._read_split(body)
        else:
            self._read_hand(body, ("hand",))
        if self.settings.time_limit is None:
            raise RequestError(409, "this match has no time limit", "no_time_limit")
        remaining = self._remaining()
        if remaining is None:
            raise RequestError(409, "the clock of this hand has not started: it starts when the hand is shown",
                               "clock_not_started")
        if not self._expired(-GRACE_S):
            raise RequestError(409, f"the time is not up: {remaining:.1f} s left", "time_not_up",
                               remaining=round(remaining, 1))
        if split is not None and (self._expired(GRACE_S) or not self._valid(split)):
            split = None  # too late, or not valid: not played
        return self._play(split, ran_out=True)

    def auto(self, body: Any) -> dict[str, Any]:
        """The automatic arrangement of the hand (changes nothing)."""
        self._read_hand(body, ("hand",))
        split = self._decide([HUMAN])[HUMAN]
        return {"agent": auto_kind(), **self._split_view(split)}

    def hint(self, body: Any) -> dict[str, Any]:
        """The solver's best splits of the hand with their expected payoffs, at most
        :data:`HINT_TOP`, the best of each structure (the row types of its rows) only:
        worked out once a hand. A repeat of a request is answered again and counts nothing
        (``repeat``); at most :data:`HINT_LIMIT` different requests a hand, then 429."""
        deal = self._read_hand(body, ("hand",))
        request = repr(sorted(body.items()))
        asked = self._hint_asks.setdefault(deal.number, set())
        if request not in asked and len(asked) >= HINT_LIMIT:
            raise RequestError(429, f"no more hints for hand {deal.number}: {HINT_LIMIT} a hand", "no_more_hints",
                               hand=deal.number, limit=HINT_LIMIT)
        if deal.number not in self._hints:
            solver = SolverAgent(deal.game, self.settings.players, samples=self.settings.hint_samples)
            seed = np.random.default_rng(self._hint_seed.spawn(1)[0])
            result = solver.solve(deal.hand(HUMAN), seed=seed, seat=HUMAN)
            self._hints[deal.number] = [{**self._split_view(split), "ev": ev}
                                        for split, ev in different_structures(deal.game, deal.hand(HUMAN),
                                                                              result.ranking(), HINT_TOP)]
        repeat = request in asked
        asked.add(request)
        return {"samples": self.settings.hint_samples, "splits": self._hints[deal.number],
                "hints_left": HINT_LIMIT - len(asked), "repeat": repeat}

    def record(self) -> dict[str, Any]:
        """The whole match so far: settings, every hand, split and payoff, the totals."""
        played = self.match.to_dict()
        played["played"] = [self._hand_view(k) for k in range(len(self.match.history))]
        return {"id": self.id, "settings": self.settings.to_dict(), "seats": self.seat_names(), **played}

    def _hand_view(self, k: int, ran_out: bool | None = None) -> dict[str, Any]:
        """Hand ``k`` played, as the reveal shows it: the record's values, whether it was
        arranged automatically when the clock ran out (``timed_out``), and each seat's
        special hand by name (``special_name``, from the game's breakdown; None for none)."""
        record = self.match.history[k]
        view = record.to_dict()
        view["timed_out"] = self.timed_out[k]
        if ran_out is not None:
            view["clock_ran_out"] = ran_out
        for seat in view["seats"]:
            breakdown = record.score.seat_breakdown(seat["seat"])
            name = breakdown.get("special")
            seat["special_name"] = name if seat["special"] and isinstance(name, str) and name else None
            bonuses = breakdown.get("bonuses")
            seat["bonuses"] = dict(bonuses) if isinstance(bonuses, Mapping) else {}
            seat["rows_by_role"] = [[format_card(c) for c in record.deal.game.role_order(row)]
                                    for row in record.rows(seat["seat"])]
        return view

    # ------------------------------------------------------------------ helpers

    def _deal(self) -> Any:
        deal = self.match.current
        if deal is None:
            raise RequestError(409, f"the match is over: all {self.match.hands} hands are played", "match_over",
                               hands=self.match.hands)
        return deal

    def _hand_groups(self, deal: Any) -> dict[int, dict[str, list[list[str]]]]:
        """The pickers' groups of the person's cards of ``deal`` (:func:`.pickers.groups`),
        worked out once a hand."""
        if self._groups is None or self._groups[0] != deal.number:
            self._groups = (deal.number, groups(deal.game, deal.hand(HUMAN).tolist()))
        return self._groups[1]

    def _remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - self.clock())

    def _expired(self, grace: float) -> bool:
        return self._deadline is not None and self.clock() > self._deadline + grace

    def _valid(self, split: int) -> bool:
        return bool(self._deal().tables.mask(0, HUMAN)[split])

    def _split_view(self, split: int) -> dict[str, Any]:
        deal = self._deal()
        rows = deal.game.arrangement(deal.hand(HUMAN).tolist(), split)
        return {"split": split, "rows": [[format_card(c) for c in row] for row in rows],
                "types": deal.game.describe_rows(rows)}

    def _play(self, split: int | None, ran_out: bool = False) -> dict[str, Any]:
        """Play the hand: ``split`` for the person, or when the clock ``ran_out`` without
        one, the saved split, else the automatic one (``timed_out``)."""
        if split is None and ran_out:
            split = self._saved
        seats = list(range(1, self.settings.players)) + ([HUMAN] if split is None else [])
        chosen = self._decide(seats)
        if split is not None:
            chosen[HUMAN] = split
        self.match.play([chosen[s] for s in range(self.settings.players)])
        self.timed_out.append(split is None)
        self._deadline = None
        self._saved = None
        return {"timed_out": split is None, "clock_ran_out": ran_out,
                "reveal": self._hand_view(len(self.match.history) - 1, ran_out),
                "state": self.state(start_clock=False)}

    def _read_hand(self, body: Any, keys: tuple[str, ...]) -> Any:
        """The current deal, when ``body`` is an object with exactly ``keys`` whose
        ``hand`` is the current hand's number."""
        if not isinstance(body, Mapping):
            raise RequestError(400, f"the body must be a JSON object with {', '.join(keys)}", "not_an_object",
                               fields=list(keys))
        unknown = sorted(set(body) - set(keys))
        missing = [k for k in keys if k not in body]
        if unknown or missing:
            if unknown:
                raise RequestError(400, f"unknown field {unknown[0]!r}", "unknown_field", field=str(unknown[0])[:40])
            raise RequestError(400, f"missing field {missing[0]!r}", "missing_field", field=missing[0])
        number = body["hand"]
        if not is_whole(number):
            raise RequestError(400, f"hand {number!r} is not a hand number", "not_a_hand")
        deal = self._deal()
        if number != deal.number:
            raise RequestError(409, f"hand {number} is not the hand in play (hand {deal.number})", "stale_hand",
                               hand=number, current=deal.number)
        return deal

    def _read_split(self, body: Any) -> tuple[int, list[list[int]]]:
        """The split index and rows of ``{"hand": n, "rows": [[card, …], …]}``: the rows
        must hold exactly the cards of the person's hand, in the row sizes of the game."""
        deal = self._read_hand(body, ("hand", "rows"))
        sizes = deal.game.split_index.row_sizes
        names = deal.game.row_names
        rows_in = body["rows"]
        if not isinstance(rows_in, list) or len(rows_in) != len(sizes):
            raise RequestError(400, f"rows must be a list of {len(sizes)} rows ({', '.join(names)})", "rows_not_a_list",
                               count=len(sizes))
        rows: list[list[int]] = []
        for k, (name, size, row) in enumerate(zip(names, sizes, rows_in)):
            if not isinstance(row, list) or not all(isinstance(c, str) for c in row):
                raise RequestError(400, f"the {name} row must be a list of card strings, got {row!r}"[:200],
                                   "row_not_cards", row=k)
            if len(row) != size:
                raise RequestError(400, f"the {name} row has {len(row)} cards; it needs {size}", "row_size",
                                   row=k, cards=len(row), size=size)
            try:
                cards = [parse_cards(c) for c in row]
            except ValueError as error:
                raise RequestError(400, str(error), "bad_card") from None
            if any(len(c) != 1 for c in cards):
                bad = next(text for text, c in zip(row, cards) if len(c) != 1)
                raise RequestError(400, f"{bad!r} is not one card", "not_one_card")
            rows.append([c[0] for c in cards])
        hand = sorted(deal.hand(HUMAN).tolist())
        given = sorted(c for row in rows for c in row)
        if given != hand:
            extra = [c for c in given if given.count(c) > hand.count(c)]
            lacking = [c for c in hand if c not in given]
            if extra:
                raise RequestError(400, f"the rows are not your hand: card {format_card(extra[0])} is not in your "
                                        "hand (or is given twice)", "card_not_in_hand", card=format_card(extra[0]))
            raise RequestError(400, f"the rows are not your hand: card {format_card(lacking[0])} of your hand is "
                                    "missing", "card_missing", card=format_card(lacking[0]))
        return deal.game.index_of(deal.hand(HUMAN).tolist(), rows), rows
