"""Thirteen's scoring (envs/thirteen/RULES.md section 6): row values and royalties, the
pairs a table compares, the rules of a compared pair, and one scoring core for B tables,
read as one table's itemised payments (:func:`score_table`) or as many tables' payoffs
(:func:`score_tables`). Pure: standard library and NumPy.

Each rule of a pair is written once, here, and the solver's exact path (:mod:`.expected`)
applies the same functions to counts and bit sets: :func:`row_keys` (fouls, equal rows),
:func:`points_table` (royalties), :func:`more_rows` and :func:`majority_point`,
:func:`all_rows` (scoop), :func:`home_run`, :func:`pair_factor`, :func:`rows_decide` and
:func:`special_pair_total` (special hands).

>>> from ..cards import parse_rows
>>> score = score_table([parse_rows("Ah Ad 3c | 9s 9d 4c 4h 2s | Kh Qh Jh Th 9h"),
...                      parse_rows("2c 5d 7h | 8c 8d Jc Js 6s | Qs Qd Qc 3s 3h")], ThirteenRules.preset("classic"))
>>> score.payoffs.tolist()
[5.0, -5.0]
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence
from functools import cache, reduce
from itertools import combinations
from typing import Any, NamedTuple

import numpy as np

from ..cards import (
    N_IDS,
    check_card_ids,
    check_table_cards,
)
from ..game import Outcomes, Score
from .rules import (
    HAND_SIZE,
    PLAYERS,
    ROYALTY_TABLES,
    HandType,
    ThirteenRules,
    check_arrangement,
    row_strengths,
    strength_type,
    valid_strengths,
)
from .specials import (
    special_hands,
    special_keys,
    special_payments,
)

__all__ = [
    "ThirteenScore", "row_values", "score_table", "compared_pairs", "royalty_table", "value_table",
    "tie_sign", "COUNTED_ROWS", "table_strengths", "special_pair_total", "MAJORITY_SCORING", "score_tables",
    "points_table", "majority_point", "row_keys", "rows_decide", "more_rows", "all_rows", "home_run", "pair_factor",
    "pair_results", "scoop_signs", "seat_scoops",
]


@cache
def royalty_table(royalties: str) -> np.ndarray:
    """Row value by row position and type, shape ``(3, 9)``: what the winner of that row
    receives (the royalty table ``royalties`` of ``variants.json``; 1 where it lists none)."""
    table = np.ones((3, len(HandType)), dtype=np.int64)
    for row, values in enumerate(ROYALTY_TABLES[royalties]):
        for kind, value in values.items():
            table[row, HandType[kind.upper()]] = value
    table.flags.writeable = False
    return table


#: the ``scoring`` values that pay a point to the player who won more rows of a pair
MAJORITY_SCORING = ("two_four", "majority")
#: the rows each ``counted_rows`` value compares and pays (front, middle, back)
COUNTED_ROWS = {"all": (1, 1, 1), "back": (0, 0, 1)}


@cache
def _value_table(royalties: str, counted_rows: str, rows_paid: bool = True) -> np.ndarray:
    table = royalty_table(royalties) * np.array(COUNTED_ROWS[counted_rows], dtype=np.int64)[:, None] * rows_paid
    table.flags.writeable = False
    return table


def value_table(rules: ThirteenRules) -> np.ndarray:
    """Row value by row position and type under the rules, shape ``(3, 9)``: the royalty
    table, 0 in the rows that ``counted_rows`` leaves out (a row that is not paid)."""
    return _value_table(rules.royalties, rules.counted_rows)


def row_values(strengths: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Row values of arrangements: ``strengths`` of shape ``(..., 3)`` → values ``(..., 3)``."""
    return value_table(rules)[np.arange(3), strength_type(strengths)]


def points_table(rules: ThirteenRules) -> np.ndarray:
    """What winning a row pays by row position and type, shape ``(3, 9)``: its value
    (:func:`value_table`; one point under ``two_four``, which has no royalties), nothing
    under ``scoring=majority``, which pays the majority point only."""
    return _value_table(rules.royalties, rules.counted_rows, rules.scoring != "majority")


def majority_point(rules: ThirteenRules) -> int:
    """The point to the seat of a pair that won more rows than it lost (:func:`more_rows`):
    1 under the ``MAJORITY_SCORING`` values, else 0."""
    return int(rules.scoring in MAJORITY_SCORING)


@dataclasses.dataclass
class ThirteenScore(Score):
    """Payoffs of a table and their breakdown."""

    payoffs: np.ndarray
    fouled: list[bool]
    specials: list[int]
    special_names: list[str]
    strengths: np.ndarray
    pairs: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"payoffs": [float(p) for p in self.payoffs], "fouled": self.fouled, "specials": self.specials,
                "special_names": self.special_names, "pairs": self.pairs}

    def seat_breakdown(self, seat: int) -> dict[str, Any]:
        return {"fouled": self.fouled[seat], "special": self.special_names[seat],
                "special_value": self.specials[seat], "pairs": [p for p in self.pairs if seat in p["seats"]]}

    def outcomes(self) -> Outcomes:
        """Rows won: the share of the other seats whose row the seat's row beats (a fouled
        other seat counts as beaten); none for a fouled seat or between special hands."""
        return _outcomes(np.asarray(self.payoffs, dtype=float), self.strengths, np.asarray(self.fouled, dtype=bool),
                         np.asarray(self.specials, dtype=np.int64))


def _outcomes(payoffs: np.ndarray, strengths: np.ndarray, fouled: np.ndarray, paid: np.ndarray) -> Outcomes:
    """The typed outcomes of tables with any leading axes: ``payoffs`` (..., n), row
    ``strengths`` (..., n, 3), ``fouled`` (..., n) (a special hand is not fouled) and the
    specials ``paid`` (..., n)."""
    n = payoffs.shape[-1]
    beats = fouled[..., None, :, None] | (strengths[..., :, None, :] > strengths[..., None, :, :])
    counted = ~np.eye(n, dtype=bool) & (paid[..., :, None] == 0) & (paid[..., None, :] == 0) & ~fouled[..., :, None]
    rows_won = (beats & counted[..., None]).sum(axis=-2) / (n - 1)
    return Outcomes(payoffs=payoffs, rows_won=rows_won, fouled=fouled, special=paid,
                    xi=np.zeros(payoffs.shape, dtype=np.int64))


def table_strengths(table: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Row strengths of arrangements ``(..., 13)`` (front, middle, back card ids, each row
    sorted) → ``(..., 3)``."""
    flat = np.asarray(table).reshape(-1, HAND_SIZE)
    strengths = np.empty((len(flat), 3), dtype=np.int64)
    strengths[:, 0] = row_strengths(flat[:, :3], rules)
    strengths[:, 1:] = row_strengths(flat[:, 3:].reshape(-1, 5), rules).reshape(-1, 2)
    return strengths.reshape(*np.shape(table)[:-1], 3)


def special_pair_total(first: Any, second: Any, first_is_banker: Any, rules: ThirteenRules,
                       first_key: Any = 0, second_key: Any = 0) -> Any:
    """Points to the first seat of a compared pair from the two seats' special-hand values
    in the table (0: none), vectorised: the higher special wins and is paid
    (:func:`special_payments`: its value, or ``special_pays``); equal specials tie, or,
    under a table whose ``equal`` rule is ``stronger_cards`` or ``precedence``, the one with
    the higher :func:`special_keys` key is paid; under a table whose ``both`` rule is ``banker_pays``
    (``specials=banker``), when both seats hold one, the player (not the banker) is paid for
    its own special. 0 where neither seat holds a special (the rows decide)."""
    vi, vj = np.asarray(first), np.asarray(second)
    pi, pj = special_payments(vi, rules), special_payments(vj, rules)
    total = np.where(vi > vj, pi, np.where(vj > vi, -pj, 0))
    if rules.special_table.equal != "tie":
        ki, kj = np.asarray(first_key), np.asarray(second_key)
        total = np.where(vi == vj, np.where(ki > kj, pi, np.where(kj > ki, -pj, 0)), total)
    if rules.special_table.both == "banker_pays":
        total = np.where((vi != 0) & (vj != 0), np.where(first_is_banker, -pj, pi), total)
    return np.where(rows_decide(vi, vj), 0, total)


def rows_decide(first: Any, second: Any) -> Any:
    """Whether the rows decide a compared pair, from the two seats' special-hand values
    (vectorised): neither holds a special hand (报到); otherwise :func:`special_pair_total`
    pays the pair and its rows count for nothing."""
    return (np.asarray(first) == 0) & (np.asarray(second) == 0)


_FOULED_KEY = -3  # every row of a fouled hand (row_keys): below the key of any row


def row_keys(strengths: Any, fouled: Any, ties: Any = 0) -> np.ndarray:
    """The rule of a row between seats i and j, fouls (倒水) and equal rows included, as
    keys (vectorised; ``fouled`` broadcasts against ``strengths``): seat i wins the row when
    ``row_keys(its strength, its foul)`` is larger than ``row_keys(j's strength, j's foul,
    tie_sign(i, j))``, seat j when it is smaller, nobody when they are equal. The stronger
    row wins; an equal row goes to the seat :func:`tie_sign` names; a fouled hand loses
    every row to a hand that did not foul and ties every row with a fouled one."""
    return np.where(fouled, _FOULED_KEY, 2 * np.asarray(strengths) - ties)


def more_rows(wins: Sequence[Any], losses: Sequence[Any]) -> tuple[Any, Any]:
    """The majority rule (``two_four``, ``majority``): from whether a seat won and whether
    it lost each of the three rows against another (boolean arrays or bit sets alike),
    whether it won more rows than it lost, and whether it lost more than it won.

    >>> [bool(side) for side in more_rows(np.array([True, False, True]), np.array([False, False, False]))]
    [True, False]
    """
    (wf, wm, wb), (lf, lm, lb) = wins, losses
    won, lost = wf | wm | wb, lf | lm | lb
    return ((wf & wm) | (wf & wb) | (wm & wb) | (won & ~lost),
            (lf & lm) | (lf & lb) | (lm & lb) | (lost & ~won))


def all_rows(rows: Sequence[Any]) -> Any:
    """The scoop condition (打枪): a seat won all three ``rows`` against another (boolean
    arrays or bit sets alike; a row tied is not won)."""
    return rows[0] & rows[1] & rows[2]


def home_run(scooped: Sequence[Any], n: int, rules: ThirteenRules) -> Any:
    """The home-run condition (全垒打) of a seat at an ``n``-player table, from whether it
    scooped each seat it is compared with (boolean arrays or bit sets alike): ``home_run``
    is on, the table has 4 players and the seat scooped all n - 1 others. False where no
    home run is paid."""
    if not rules.home_run or n != PLAYERS[1] or len(scooped) != n - 1:
        return False
    return reduce(operator.and_, scooped)


def pair_factor(scooped: Any, home: Any) -> Any:
    """What a compared pair's total (its rows and majority point) is multiplied by: doubled
    when either seat scooped the other (:func:`all_rows`), doubled again when either made a
    home run (:func:`home_run`)."""
    return (1 + np.asarray(scooped, dtype=np.int64)) * (1 + np.asarray(home, dtype=np.int64))


def compared_pairs(n: int, rules: ThirteenRules) -> list[tuple[int, int]]:
    """The pairs of seats that are compared: all pairs, or the banker with each player."""
    if rules.scoring == "banker":
        if rules.banker_seat >= n:
            raise ValueError(f"banker_seat {rules.banker_seat} is not a seat of a {n}-player table (seats 0..{n - 1})")
        return [(rules.banker_seat, j) for j in range(n) if j != rules.banker_seat]
    return list(combinations(range(n), 2))


def tie_sign(i: int, j: int, rules: ThirteenRules) -> int:
    """Who wins a row that seats i and j hold equal (``tie_winner``): 1 seat i, -1 seat j,
    0 nobody."""
    if rules.tie_winner == "banker":
        return (i == rules.banker_seat) - (j == rules.banker_seat)
    return 0


def check_table(arrangements: Sequence[Sequence[Sequence[int]]]) -> np.ndarray:
    """Validate a table of 2–4 arrangements; return card ids (players, 13): front, middle
    and back, each row sorted."""
    n = len(arrangements)
    if not PLAYERS[0] <= n <= PLAYERS[1]:
        raise ValueError(f"a Thirteen table has 2 to 4 players, got {n} hands")
    try:
        rows = [np.asarray(r, dtype=np.int64) for a in arrangements for r in a]
        table = np.concatenate(rows).reshape(n, HAND_SIZE) if [len(r) for r in rows] == [3, 5, 5] * n else None
    except ValueError:
        table = None
    counts = np.bincount(table.reshape(-1), minlength=N_IDS) if table is not None and table.min() >= 0 else None
    if counts is None or len(counts) > N_IDS or counts[:2].any():
        for seat, a in enumerate(arrangements):  # find and name the bad seat
            check_arrangement(a, what=f"seat {seat} hand")
    assert table is not None and counts is not None
    if counts.max() > 1:
        check_table_cards(table.reshape(n, -1))
    return sort_rows(table)


class _Scored(NamedTuple):
    """B tables of n seats scored (leading B axis): per seat the row ``strengths``
    (B, n, 3), ``fouled`` (a special hand is not fouled), the specials ``paid`` and the
    ``payoffs``; per compared pair of ``pairs`` (seats i, j) the points to seat i: ``rows``
    (B, P, 3), the ``majority`` point, the ``special`` payment, what ``scoop`` and
    ``home_run`` add and the ``total``."""

    pairs: list[tuple[int, int]]
    strengths: np.ndarray
    fouled: np.ndarray
    paid: np.ndarray
    payoffs: np.ndarray
    rows: np.ndarray
    majority: np.ndarray
    special: np.ndarray
    scoop: np.ndarray
    home_run: np.ndarray
    total: np.ndarray


@cache
def _pair_layout(n: int, rules: ThirteenRules) -> tuple[list[tuple[int, int]], np.ndarray, np.ndarray, np.ndarray,
                                                        np.ndarray]:
    """The compared pairs of an n-seat table: the pairs, their seats i and j (P,), the
    incidence (P, n) (+1 at seat i, -1 at seat j) and who wins an equal row (P, 1, 1)."""
    pairs = compared_pairs(n, rules)
    i, j = np.array(pairs).T
    incidence = (i[:, None] == np.arange(n)).astype(np.int64) - (j[:, None] == np.arange(n))
    return pairs, i, j, incidence, np.array([[[tie_sign(a, b, rules)]] for a, b in pairs])


def pair_results(by_seat: np.ndarray, fouled: np.ndarray, special: np.ndarray, i: np.ndarray, j: np.ndarray,
                 ties: Any) -> np.ndarray:
    """Who wins each row of each compared pair over B tables, (P, 3, B): 1 seat ``i``, -1
    seat ``j``, 0 nobody (:func:`row_keys`), and 0 in every row of a pair that special hands
    decide (:func:`rows_decide`); from the seats' row strengths ``by_seat`` (n, 3, B), their
    fouls (n, 1, B), their special-hand values (n, B), the pairs' seats (P,) and who wins
    their equal rows (:func:`tie_sign`, broadcast to (P, 1, 1))."""
    results = np.sign(row_keys(by_seat[i], fouled[i]) - row_keys(by_seat[j], fouled[j], ties))
    return results * rows_decide(special[i], special[j])[:, None]


def scoop_signs(results: np.ndarray) -> np.ndarray:
    """Scoops (:func:`all_rows`) from :func:`pair_results` (P, 3, B): (P, B) 1 where seat i
    scooped seat j, -1 where seat j scooped seat i, 0 where neither did."""
    rows = results.swapaxes(0, 1)
    return all_rows(rows > 0).astype(np.int64) - all_rows(rows < 0)


def seat_scoops(signs: np.ndarray, pairs: Sequence[tuple[int, int]], seat: int) -> list[np.ndarray]:
    """Whether ``seat`` scooped each seat it is compared with, in the order of ``pairs``,
    from their :func:`scoop_signs` (P, B): the argument of :func:`home_run`."""
    return [signs[p] == (1 if seat == a else -1) for p, (a, b) in enumerate(pairs) if seat in (a, b)]


def _score(table: np.ndarray, special: np.ndarray, rules: ThirteenRules) -> _Scored:
    """The scoring of B tables (RULES.md section 6) by the rules of a pair, vectorised over
    tables and compared pairs: ``table`` (B, n, 13) card ids row by row, each row sorted,
    ``special`` (B, n) the seats' special-hand values in the table. The pairs' arrays are
    worked out pair and row first, tables last (P, 3, B), so that each is a run of B
    values."""
    batch, n, _ = table.shape
    pairs, i, j, incidence, ties = _pair_layout(n, rules)
    strengths = table_strengths(table, rules)
    fouled = ~valid_strengths(strengths[..., 0], strengths[..., 1], strengths[..., 2])
    keys = special_keys(table.reshape(-1, HAND_SIZE), rules).reshape(batch, n).T
    by_seat, seat_special = strengths.transpose(1, 2, 0).copy(), special.T
    results = pair_results(by_seat, fouled.T[:, None], seat_special, i, j, ties)
    won, lost = results > 0, results < 0
    values = points_table(rules)[np.arange(3), strength_type(strengths)].transpose(1, 2, 0).copy()
    rows = won * values[i] - lost * values[j]
    zero = np.zeros((len(pairs), batch), dtype=np.int64)
    point = majority_point(rules)
    majority = (point * np.subtract(*more_rows(won.swapaxes(0, 1), lost.swapaxes(0, 1)), dtype=np.int64)
                if point else zero)
    total = rows.sum(axis=1) + majority
    scoop = home_points = zero
    if rules.scoop == "double":
        signs = scoop_signs(results)
        home = np.zeros((n, batch), dtype=bool)
        if rules.home_run:
            for seat in range(n):
                home[seat] = home_run(seat_scoops(signs, pairs, seat), n, rules)
        doubled = pair_factor(signs != 0, False)
        scoop, home_points = total * (doubled - 1), total * (pair_factor(signs != 0, home[i] | home[j]) - doubled)
        total = total + scoop + home_points
    special_points = np.asarray(special_pair_total(seat_special[i], seat_special[j], (i == rules.banker_seat)[:, None],
                                                   rules, keys[i], keys[j]), dtype=np.int64)
    total = total + special_points
    return _Scored(pairs=pairs, strengths=strengths, fouled=fouled & (special == 0),
                   paid=np.asarray(special_payments(special, rules), dtype=np.int64),
                   payoffs=(total.T @ incidence).astype(float), rows=rows.transpose(2, 0, 1), majority=majority.T,
                   special=special_points.T, scoop=scoop.T, home_run=home_points.T, total=total.T)


def sort_rows(table: np.ndarray) -> np.ndarray:
    """Sort each row of arrangements ``(..., 13)`` (front, middle, back card ids) in place."""
    for row in (slice(0, 3), slice(3, 8), slice(8, HAND_SIZE)):
        table[..., row].sort(axis=-1)
    return table


def score_table(arrangements: Sequence[Sequence[Sequence[int]]], rules: ThirteenRules) -> ThirteenScore:
    """Score 2–4 arrangements (front, middle, back per seat, seat order) into payoffs."""
    table = check_table(arrangements)
    names, special = special_hands(table, rules)
    scored = _score(table[None], special[None], rules)
    fields = ("rows", "special", "majority", "scoop", "home_run", "total")
    pairs = [{"seats": [i, j], **dict(zip(fields, items))}
             for (i, j), *items in zip(scored.pairs, *(getattr(scored, f)[0].tolist() for f in fields))]
    return ThirteenScore(payoffs=scored.payoffs[0], fouled=scored.fouled[0].tolist(), specials=scored.paid[0].tolist(),
                         special_names=names, strengths=scored.strengths[0], pairs=pairs)


def score_tables(cards: np.ndarray, rules: ThirteenRules) -> tuple[np.ndarray, Outcomes]:
    """:func:`score_table` of B tables at once, vectorised over the tables: ``cards``
    (B, players, 13) valid card ids row by row (front, middle, back) → the payoffs
    (B, players) and the typed outcomes (leading B axis), the same numbers as
    ``score_table(...).outcomes()`` table by table. ValueError for an id that is not a card
    of the deck, or a card twice at a table."""
    check_card_ids(cards, jokers=False, what="cards", group=2)
    table = sort_rows(np.array(cards, dtype=np.int64))
    batch, n, _ = table.shape
    scored = _score(table, special_hands(table.reshape(-1, HAND_SIZE), rules)[1].reshape(batch, n), rules)
    return scored.payoffs, _outcomes(scored.payoffs, scored.strengths, scored.fouled, scored.paid)
