"""Thirteen's scoring (envs/thirteen/RULES.md section 6): row values and royalties, the
pairs a table compares, and one scoring core for B tables, read as one table's itemised
payments (:func:`score_table`) or as many tables' payoffs (:func:`score_tables`). Pure:
standard library and NumPy.

>>> from ..cards import parse_rows
>>> score = score_table([parse_rows("Ah Ad 3c | 9s 9d 4c 4h 2s | Kh Qh Jh Th 9h"),
...                      parse_rows("2c 5d 7h | 8c 8d Jc Js 6s | Qs Qd Qc 3s 3h")], ThirteenRules.preset("classic"))
>>> score.payoffs.tolist()
[5.0, -5.0]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import cache
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
def _value_table(royalties: str, counted_rows: str) -> np.ndarray:
    table = royalty_table(royalties) * np.array(COUNTED_ROWS[counted_rows], dtype=np.int64)[:, None]
    table.flags.writeable = False
    return table


def value_table(rules: ThirteenRules) -> np.ndarray:
    """Row value by row position and type under the rules, shape ``(3, 9)``: the royalty
    table, 0 in the rows that ``counted_rows`` leaves out (a row that is not paid)."""
    return _value_table(rules.royalties, rules.counted_rows)


def row_values(strengths: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Row values of arrangements: ``strengths`` of shape ``(..., 3)`` → values ``(..., 3)``."""
    return value_table(rules)[np.arange(3), strength_type(strengths)]


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
    return np.where((vi != 0) | (vj != 0), total, 0)


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


def _score(table: np.ndarray, special: np.ndarray, rules: ThirteenRules) -> _Scored:
    """The scoring of B tables (RULES.md section 6), every rule written once and vectorised
    over tables and compared pairs: ``table`` (B, n, 13) card ids row by row, each row
    sorted, ``special`` (B, n) the seats' special-hand values in the table. The pairs'
    arrays are worked out pair and row first, tables last (P, 3, B), so that each is a run
    of B values."""
    batch, n, _ = table.shape
    pairs, i, j, incidence, ties = _pair_layout(n, rules)
    strengths = table_strengths(table, rules)
    fouled = ~valid_strengths(strengths[..., 0], strengths[..., 1], strengths[..., 2])
    keys = special_keys(table.reshape(-1, HAND_SIZE), rules).reshape(batch, n).T
    by_seat, seat_fouled, seat_special = strengths.transpose(1, 2, 0).copy(), fouled.T[:, None], special.T
    si, sj, fi, fj = by_seat[i], by_seat[j], seat_fouled[i], seat_fouled[j]
    decided = (seat_special[i] != 0) | (seat_special[j] != 0)  # special hands replace the rows
    # per row: 1 seat i wins it, -1 seat j, 0 nobody; a fouled hand loses every row to one that is not
    results = np.where(fi | fj, fj.astype(np.int64) - fi, np.sign(si - sj) + (si == sj) * ties) * ~decided[:, None]
    if rules.scoring in ("majority", "two_four"):
        rows = results if rules.scoring == "two_four" else np.zeros_like(results)
    else:
        values = row_values(strengths, rules).transpose(1, 2, 0).copy()
        rows = (results > 0) * values[i] - (results < 0) * values[j]
    zero = np.zeros((len(pairs), batch), dtype=np.int64)
    majority = np.sign(results.sum(axis=1)) if rules.scoring in MAJORITY_SCORING else zero
    total = rows.sum(axis=1) + majority
    scoop = home_run = zero
    if rules.scoop == "double":
        scoop = np.where((rows > 0).all(axis=1) | (rows < 0).all(axis=1), total, 0)
        total = total + scoop
    if rules.home_run and n == 4:
        home = incidence.T @ np.sign(scoop) == n - 1  # a seat that scooped every opponent
        home_run = np.where(home[i] | home[j], total, 0)
    special_points = np.asarray(special_pair_total(seat_special[i], seat_special[j], (i == rules.banker_seat)[:, None],
                                                   rules, keys[i], keys[j]), dtype=np.int64)
    total = total + home_run + special_points
    return _Scored(pairs=pairs, strengths=strengths, fouled=fouled & (special == 0),
                   paid=np.asarray(special_payments(special, rules), dtype=np.int64),
                   payoffs=(total.T @ incidence).astype(float), rows=rows.transpose(2, 0, 1), majority=majority.T,
                   special=special_points.T, scoop=scoop.T, home_run=home_run.T, total=total.T)


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
