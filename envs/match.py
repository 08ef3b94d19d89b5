"""A match: hands in a row at one table, with the flow of the rule texts.

The table core scores one hand; a match adds what happens from hand to hand:

* **dealing order**: the shuffled deck is dealt one card at a time round the table
  (in seat order), starting from the seat dealt first; the rest of the deck is not used;
* **who is dealt first**: a seat drawn at random for the first hand, then the game decides
  (:meth:`~splitpoker.envs.game.Game.next_first_seat`): Biji deals the next hand from the
  seat after the winner of the third pot; Thirteen moves the deal on one seat;
* **the bank** (rules with a banker, e.g. Thirteen's ``banker`` preset): the preset's
  banker seat holds it first and it moves to the next seat every
  :attr:`~splitpoker.envs.game.Game.banker_term` hands (每人坐庄四盘: four);
* **settlement**: every seat's running total over the hands.

Who decides the splits is not the match's business: :meth:`Match.play` takes one split
index per seat. Pure: standard library and NumPy.

>>> from splitpoker.envs.games import make_game
>>> match = Match(make_game("biji"), num_players=3, hands=2, rng=7)
>>> deal = match.current
>>> deal.number, deal.first
(0, 2)
>>> first_valid = [int(v.mask.argmax()) for v in deal.tables.views()]
>>> record = match.play(first_valid)
>>> record.payoffs.tolist(), record.row_places()[2], match.current.first
([13.0, -6.0, -7.0], [1, 3, 2], 1)
>>> match.play([int(v.mask.argmax()) for v in match.current.tables.views()]).totals.tolist()
[13.0, -7.0, -6.0]
>>> match.finished
True
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..runtime.arguments import is_whole
from ..runtime.seeding import as_generator
from .cards import format_card, format_cards
from .game import Game, Score
from .table import Tables

__all__ = ["Deal", "HandRecord", "Match", "deal_in_order"]


def deal_in_order(game: Game, num_players: int, first: int, rng: np.random.Generator) -> np.ndarray:
    """One shuffled deck dealt a card at a time round the table from seat ``first``:
    the hands (players, hand size), each in slot order."""
    n, size = num_players, game.hand_size
    cards = rng.permutation(game.deck())[: n * size]
    hands = np.empty((n, size), dtype=np.intp)
    for turn in range(n):
        hands[(first + turn) % n] = cards[turn::n]
    hands.sort(axis=1)
    return hands


@dataclasses.dataclass(frozen=True)
class Deal:
    """A hand of a match as dealt: its ``number`` (from 0), the seat dealt ``first``, the
    ``banker`` (None without a bank), the ``game`` under this hand's rules (the bank's
    seat) and the one-table :class:`~splitpoker.envs.table.Tables` of the hands."""

    number: int
    first: int
    banker: int | None
    game: Game
    tables: Tables

    def hand(self, seat: int) -> np.ndarray:
        """The card ids of a seat's hand, in slot order."""
        return self.tables.slots[0, seat]


@dataclasses.dataclass(frozen=True)
class HandRecord:
    """A played hand: the deal, every seat's split index, the table's
    :class:`~splitpoker.envs.game.Score`, the payoffs and the totals after the hand."""

    deal: Deal
    actions: np.ndarray
    score: Score
    payoffs: np.ndarray
    totals: np.ndarray

    def rows(self, seat: int) -> list[list[int]]:
        """The card ids of a seat's rows, first row first."""
        return self.deal.game.arrangement(self.deal.hand(seat).tolist(), int(self.actions[seat]))

    def row_places(self) -> list[list[int]]:
        """Row by row, each seat's place among the seats' rows (1 + the number of seats
        whose row is stronger)."""
        strengths = np.asarray(self.score.strengths)
        places = 1 + (strengths[None, :, :] > strengths[:, None, :]).sum(axis=1)
        return places.T.tolist()

    def to_dict(self) -> dict[str, Any]:
        """The hand as plain values: the deal, every seat's hand, split, rows and their
        types, payoff and total, the row places, the payoff items and the game's breakdown."""
        game = self.deal.game
        outcomes = self.score.outcomes()
        seats = []
        for seat in range(len(self.payoffs)):
            rows = self.rows(seat)
            seats.append({"seat": seat, "hand": format_cards(self.deal.hand(seat)),
                          "split": int(self.actions[seat]),
                          "rows": [[format_card(c) for c in row] for row in rows],
                          "types": game.describe_rows(rows), "fouled": bool(outcomes.fouled[seat]),
                          "special": int(outcomes.special[seat]), "xi": int(outcomes.xi[seat]),
                          "payoff": float(self.payoffs[seat]), "total": float(self.totals[seat])})
        return {"hand": self.deal.number, "first": self.deal.first, "banker": self.deal.banker,
                "row_names": list(game.row_names), "seats": seats, "row_places": self.row_places(),
                "items": game.payoff_items(self.score), "score": self.score.to_dict()}


class Match:
    """``hands`` hands of ``game`` at a table of ``num_players`` seats, dealt from ``rng`` (a
    Generator or a seed). ``banker_term`` overrides the hands a banker keeps the bank."""

    def __init__(self, game: Game, num_players: int, hands: int, rng: Any = None,
                 banker_term: int | None = None) -> None:
        self.game = game
        self.num_players = game.check_players(num_players)
        self.hands = _positive("hands", hands)
        self.banker_term = game.banker_term if banker_term is None else _positive("banker_term", banker_term)
        if banker_term is not None and game.banker() is None:
            raise ValueError(f"banker_term={banker_term!r}: these {game.name} rules have no banker")
        self.rng = as_generator(rng)
        self.totals = np.zeros(self.num_players)
        self.history: list[HandRecord] = []
        self._first = int(self.rng.integers(self.num_players))
        self._banker = game.banker()
        self.current: Deal | None = self._deal()

    @property
    def finished(self) -> bool:
        return len(self.history) >= self.hands

    def _deal(self) -> Deal:
        game = self.game if self._banker is None else self.game.with_banker(self._banker)
        hands = deal_in_order(game, self.num_players, self._first, self.rng)
        return Deal(len(self.history), self._first, self._banker, game, Tables(game, hands[None]))

    def play(self, actions: Any) -> HandRecord:
        """Score the current hand played as ``actions`` (one valid split index per seat),
        add it to the totals and deal the next hand. A ValueError (an invalid split, a
        finished match) changes nothing."""
        deal = self.current
        if deal is None:
            raise ValueError(f"the match is over: all {self.hands} hands are played")
        array = np.asarray(actions)
        if array.shape != (self.num_players,):
            raise ValueError(f"actions {actions!r} are not one split index for each of the {self.num_players} seats")
        result = deal.tables.score(array[None])
        payoffs = result.payoffs[0]
        self.totals = self.totals + payoffs
        record = HandRecord(deal, array.astype(np.int64), result.scores[0], payoffs, self.totals.copy())
        self.history.append(record)
        self._first = deal.game.next_first_seat(deal.first, record.score, self.num_players)
        if self._banker is not None and len(self.history) % self.banker_term == 0:
            self._banker = (self._banker + 1) % self.num_players
        self.current = None if self.finished else self._deal()
        return record

    def to_dict(self) -> dict[str, Any]:
        """The match as plain values: the game, its rules, every hand played and the totals."""
        return {"game": self.game.name, "rules": self.game.rules.to_dict(), "players": self.num_players,
                "hands": self.hands, "banker_term": self.banker_term if self._banker is not None else None,
                "played": [record.to_dict() for record in self.history],
                "totals": [float(t) for t in self.totals], "finished": self.finished}


def _positive(name: str, value: Any) -> int:
    if not is_whole(value) or value < 1:
        raise ValueError(f"{name}={value!r} is not a whole number of at least 1")
    return int(value)
