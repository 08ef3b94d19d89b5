"""Thirteen's scoring (envs/thirteen/RULES.md section 6): row values and royalties, the
pairs a table compares, one table scored with its itemised payments and many tables at
once. Pure: standard library and NumPy.

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
from typing import Any

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
        n = len(self.payoffs)
        specials = np.asarray(self.specials)
        fouled = np.asarray(self.fouled, dtype=bool)
        beats = (self.strengths[:, None, :] > self.strengths[None, :, :]).astype(float)
        beats = np.where(fouled[None, :, None], 1.0, beats)
        counted = (~np.eye(n, dtype=bool) & (specials[:, None] == 0) & (specials[None, :] == 0)
                   & ~fouled[:, None])
        rows_won = (beats * counted[:, :, None]).sum(axis=1) / (n - 1)
        return Outcomes(payoffs=np.asarray(self.payoffs, dtype=float), rows_won=rows_won, fouled=fouled,
                        special=specials.astype(np.int64), xi=np.zeros(n, dtype=np.int64))


def table_strengths(table: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Row strengths of arrangements ``(..., 13)`` (front, middle, back card ids, each row
    sorted) → ``(..., 3)``."""
    flat = np.asarray(table).reshape(-1, HAND_SIZE)
    strengths = np.empty((len(flat), 3), dtype=np.int64)
    strengths[:, 0] = row_strengths(flat[:, :3], rules)
    strengths[:, 1:] = row_strengths(flat[:, 3:].reshape(-1, 5), rules).reshape(-1, 2)
    return strengths.reshape(*np.shape(table)[:-1], 3)


def special_pair_total(first: Any, second: Any, first_is_banker: bool, rules: ThirteenRules,
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
        total = np.where((vi != 0) & (vj != 0), -pj if first_is_banker else pi, total)
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


def _pair_rows(i: int, j: int, strengths: Sequence[Sequence[int]], values: Sequence[Sequence[int]],
               fouled: Sequence[bool],
               rules: ThirteenRules) -> tuple[list[int], int]:
    """Per-row points to seat i against seat j (no specials), and who won more rows (+1, -1, 0;
    a row the banker takes under ``tie_winner`` counts as won). Rows pay nothing under
    ``scoring=majority``, one point each under ``two_four``."""
    if fouled[i] and fouled[j]:
        return [0, 0, 0], 0
    if fouled[i] or fouled[j]:
        sign = -1 if fouled[i] else 1
        results = [sign] * 3
    else:
        tie = tie_sign(i, j, rules)
        results = [tie if a == b else (1 if a > b else -1) for a, b in zip(strengths[i], strengths[j])]
    if rules.scoring == "majority":
        points = [0, 0, 0]
    elif rules.scoring == "two_four":
        points = results
    else:
        points = [values[i][k] if r > 0 else -values[j][k] if r < 0 else 0 for k, r in enumerate(results)]
    wins = sum(results)
    return points, (wins > 0) - (wins < 0)


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
    table[:, :3].sort(axis=1)
    table[:, 3:8].sort(axis=1)
    table[:, 8:].sort(axis=1)
    return table


def score_table(arrangements: Sequence[Sequence[Sequence[int]]], rules: ThirteenRules) -> ThirteenScore:
    """Score 2–4 arrangements (front, middle, back per seat, seat order) into payoffs."""
    n = len(arrangements)
    if not PLAYERS[0] <= n <= PLAYERS[1]:
        raise ValueError(f"a Thirteen table has 2 to 4 players, got {n} hands")
    table = check_table(arrangements)
    strengths = table_strengths(table, rules)
    values = row_values(strengths, rules).tolist()
    fouled = (~valid_strengths(strengths[:, 0], strengths[:, 1], strengths[:, 2])).tolist()
    special_names, special_values = special_hands(table, rules)
    special_value = special_values.tolist()
    special_key = special_keys(table, rules).tolist()
    pairs = compared_pairs(n, rules)
    strength_rows = strengths.tolist()
    totals: dict[tuple[int, int], float] = {}
    total: float
    details: dict[tuple[int, int], dict[str, Any]] = {}
    scooped: dict[int, int] = {i: 0 for i in range(n)}
    for i, j in pairs:
        detail: dict[str, Any] = {"seats": [i, j], "rows": [0, 0, 0], "special": 0, "majority": 0, "scoop": 0,
                                  "home_run": 0}
        if special_value[i] or special_value[j]:
            total = int(special_pair_total(special_value[i], special_value[j], i == rules.banker_seat, rules,
                                           special_key[i], special_key[j]))
            detail["special"] = total
        else:
            row_points, winner = _pair_rows(i, j, strength_rows, values, fouled, rules)
            detail["rows"] = row_points
            total = sum(row_points)
            if rules.scoring in MAJORITY_SCORING:
                detail["majority"] = winner
                total += winner
            swept = all(p > 0 for p in row_points) or all(p < 0 for p in row_points)
            if rules.scoop == "double" and swept and total:
                detail["scoop"] = total
                total *= 2
                scooped[i if total > 0 else j] += 1
        totals[(i, j)] = total
        details[(i, j)] = detail
    if rules.home_run and n == 4:
        for seat, count in scooped.items():
            if count == n - 1:
                for (i, j), total in totals.items():
                    if seat in (i, j):
                        details[(i, j)]["home_run"] = total
                        totals[(i, j)] = 2 * total
    payoffs = np.zeros(n)
    out_pairs = []
    for (i, j), total in totals.items():
        payoffs[i] += total
        payoffs[j] -= total
        out_pairs.append({**details[(i, j)], "total": total})
    return ThirteenScore(payoffs=payoffs, fouled=[f and not v for f, v in zip(fouled, special_value)],
                         specials=special_payments(special_values, rules).tolist(), special_names=special_names,
                         strengths=strengths, pairs=out_pairs)


def score_tables(cards: np.ndarray, rules: ThirteenRules) -> tuple[np.ndarray, Outcomes]:
    """:func:`score_table` of B tables at once, vectorised over the tables: ``cards``
    (B, players, 13) valid card ids row by row (front, middle, back) → the payoffs
    (B, players) and the typed outcomes (leading B axis), the same numbers as
    ``score_table(...).outcomes()`` table by table. ValueError for an id that is not a card
    of the deck, or a card twice at a table."""
    check_card_ids(cards, jokers=False, what="cards", group=2)
    table = np.array(cards, dtype=np.int64)
    batch, n, _ = table.shape
    table[..., :3].sort(axis=-1)
    table[..., 3:8].sort(axis=-1)
    table[..., 8:].sort(axis=-1)
    strengths = table_strengths(table, rules)
    fouled = ~valid_strengths(strengths[..., 0], strengths[..., 1], strengths[..., 2])
    values = row_values(strengths, rules)
    flat = table.reshape(-1, HAND_SIZE)
    special = special_hands(flat, rules)[1].reshape(batch, n)
    keys = special_keys(flat, rules).reshape(batch, n)
    scoop = rules.scoop == "double"
    totals: dict[tuple[int, int], np.ndarray] = {}
    scooped = np.zeros((batch, n), dtype=np.int64)
    for i, j in compared_pairs(n, rules):
        si, sj, fi, fj = strengths[:, i], strengths[:, j], fouled[:, i, None], fouled[:, j, None]
        results = np.where(si == sj, tie_sign(i, j, rules), np.where(si > sj, 1, -1))
        results = np.where(fi & fj, 0, np.where(fi, -1, np.where(fj, 1, results)))
        if rules.scoring == "majority":
            points = np.zeros_like(results)
        else:
            points = results if rules.scoring == "two_four" else np.where(
                results > 0, values[:, i], np.where(results < 0, -values[:, j], 0))
        total = points.sum(axis=1) + (np.sign(results.sum(axis=1)) if rules.scoring in MAJORITY_SCORING else 0)
        decided = (special[:, i] != 0) | (special[:, j] != 0)
        if scoop:
            doubled = ~decided & (total != 0) & ((points > 0).all(axis=1) | (points < 0).all(axis=1))
            scooped[:, i] += doubled & (total > 0)
            scooped[:, j] += doubled & (total < 0)
            total = np.where(doubled, 2 * total, total)
        totals[(i, j)] = np.where(decided, special_pair_total(special[:, i], special[:, j], i == rules.banker_seat,
                                                              rules, keys[:, i], keys[:, j]), total)
    if rules.home_run and n == 4:
        for seat in range(n):
            home = scooped[:, seat] == n - 1
            for pair in totals:
                if seat in pair:
                    totals[pair] = np.where(home, 2 * totals[pair], totals[pair])
    payoffs = np.zeros((batch, n))
    for (i, j), total in totals.items():
        payoffs[:, i] += total
        payoffs[:, j] -= total
    paid = np.asarray(special_payments(special, rules)).astype(np.int64)
    fouled &= special == 0
    beats = np.where(fouled[:, None, :, None], 1.0, (strengths[:, :, None, :] > strengths[:, None, :, :]).astype(float))
    counted = (~np.eye(n, dtype=bool) & (paid[:, :, None] == 0) & (paid[:, None, :] == 0) & ~fouled[:, :, None])
    rows_won = (beats * counted[..., None]).sum(axis=2) / (n - 1)
    return payoffs, Outcomes(payoffs=payoffs, rows_won=rows_won, fouled=fouled, special=paid,
                             xi=np.zeros((batch, n), dtype=np.int64))
