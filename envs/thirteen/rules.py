"""Thirteen (十三张 / 十三水) rules: switches and presets, row strength, fouls, the valid-split
mask, special hands and scoring (RULES.md section 3). Pure: standard library and NumPy.

Row strength is one integer per row, larger is stronger::

    strength = ((type * 4 + flush_suit) * 13**5 + rank_key) * 4 + top_suit

``rank_key`` orders rows of one type by rank (wheel placement included); ``flush_suit`` is
the flush's suit value under ``flush_compare=suit_first`` (else 0); ``top_suit`` is the suit
value of the most significant card under ``suit_tiebreak`` (else 0). Dropping the two suit
parts gives the rank-only strength used for fouls, comparable across 3- and 5-card rows.

>>> rules = ThirteenRules.preset("classic")
>>> compare_rows(parse_cards("Ah 2d 3c 4s 5h"), parse_cards("9s Td Jc Qs Kh"), rules)
1
>>> row_type(parse_cards("8h 8d 9c"), rules).name
'PAIR'
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from enum import IntEnum
from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement
from typing import Any

import numpy as np

from ..cards import (
    N_IDS,
    RANK,
    SUIT,
    check_hand,
    check_table_cards,
    format_cards,
    parse_cards,
)
from ..splits import THIRTEEN
from ..strength import gather_rows, subset_strengths
from ..switches import RuleSwitches, choice, parse_suit_order

K5 = 13**5
ROW_SIZES = (3, 5, 5)
ROW_NAMES = ("front", "middle", "back")
HAND_SIZE = 13
PLAYERS = (2, 4)

__all__ = [
    "HandType", "ThirteenRules", "ThirteenScore", "row_strengths", "row_strength", "row_type",
    "rank_only", "compare_rows", "is_valid", "valid_mask", "split_strengths", "special_hand",
    "row_values", "score_table", "parse_cards",
]


class HandType(IntEnum):
    """Row types, weakest first."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


@dataclasses.dataclass(frozen=True)
class ThirteenRules(RuleSwitches):
    """The switches of Thirteen (RULES.md 3). Build with ``ThirteenRules.preset(name, **overrides)``."""

    GAME = "thirteen"

    wheel: str = choice("second", ("second", "lowest", "ace_equal", "none"),
                        "where A-2-3-4-5 ranks among straights")
    flush_compare: str = choice("rank_first", ("rank_first", "suit_first"),
                                "flushes by ranks first, or by suit first (seed 002)")
    suit_tiebreak: bool = choice(True, None, "rows equal by rank are told apart by the most significant card's suit")
    suit_order: str = choice("spades>hearts>clubs>diamonds", None, "suit strength, strongest first")
    scoring: str = choice("pairwise", ("pairwise", "banker", "two_four"), "who is compared with whom, and how")
    banker_seat: int = choice(0, (0, 1, 2, 3), "the banker's seat under scoring=banker")
    royalties: str = choice("classic", ("classic", "none"), "row values of strong rows")
    scoop: str = choice("none", ("none", "double"), "打枪: winning all three rows doubles the pair's total")
    home_run: bool = choice(False, None, "全垒打: scooping all three opponents at a 4-player table doubles again")
    specials: str = choice("classic", ("classic", "shisanshui", "banker", "off"), "the table of special hands 报到")

    PRESETS = {
        "classic": {},
        "shisanshui": {"scoop": "double", "home_run": True, "specials": "shisanshui"},
        "banker": {"wheel": "ace_equal", "flush_compare": "suit_first", "scoring": "banker",
                   "royalties": "none", "specials": "banker"},
        "western": {"wheel": "lowest", "scoring": "two_four", "royalties": "none", "specials": "off",
                    "suit_tiebreak": False},
    }

    def _check(self) -> None:
        """Switch combinations without a meaning are errors, not silently ignored."""
        if self.scoring == "two_four" and (self.royalties != "none" or self.specials != "off" or self.scoop != "none"):
            raise ValueError("thirteen scoring=two_four has no royalties, specials or scoop; set royalties=none, "
                             f"specials=off and scoop=none (got royalties={self.royalties}, specials={self.specials}, "
                             f"scoop={self.scoop})")
        if self.home_run and (self.scoop != "double" or self.scoring != "pairwise"):
            raise ValueError("thirteen home_run=true needs scoop=double and scoring=pairwise "
                             f"(got scoop={self.scoop}, scoring={self.scoring})")

    @property
    def suit_values(self) -> np.ndarray:
        """Suit strength (0 weakest … 3 strongest) indexed by suit id c, d, h, s."""
        return np.array(parse_suit_order(self.suit_order), dtype=np.int64)


# ----------------------------------------------------------------------------- strength

def _digits(ranks: Sequence[int]) -> list[int]:
    """Ranks by group size, then rank, from the most significant down (one digit per group)."""
    counts = Counter(ranks)
    return sorted(counts, key=lambda r: (-counts[r], -r))


def _key(digits: Sequence[int]) -> int:
    padded = list(digits) + [0] * (5 - len(digits))
    return sum(d * 13 ** (4 - i) for i, d in enumerate(padded))


def _straight_key(ranks: tuple[int, ...], wheel: str) -> int | None:
    """Order value of a 5-card straight, or None when the ranks are not one."""
    if len(set(ranks)) != 5:
        return None
    if ranks[-1] - ranks[0] == 4:
        return 24 if (ranks[-1] == 12 and wheel == "ace_equal") else 2 * ranks[-1]
    if ranks == (0, 1, 2, 3, 12):
        return {"second": 23, "lowest": 6, "ace_equal": 24, "none": None}[wheel]
    return None


@cache
def _tables(wheel: str) -> dict[str, np.ndarray]:
    """Rank-only strengths of every sorted 3- and 5-rank tuple, keyed base 13 (lowest rank most significant)."""
    plain5 = np.zeros(K5, dtype=np.int64)
    flush5 = np.zeros(K5, dtype=np.int64)
    top5 = np.zeros(K5, dtype=np.int64)
    for ranks in combinations_with_replacement(range(13), 5):
        if len(set(ranks)) == 1:
            continue
        key = sum(r * 13 ** (4 - i) for i, r in enumerate(ranks))
        digits = _digits(ranks)
        top5[key] = digits[0]
        shape = sorted(Counter(ranks).values(), reverse=True)
        straight = _straight_key(ranks, wheel)
        if straight is not None:
            plain5[key] = HandType.STRAIGHT * K5 + straight
            flush5[key] = HandType.STRAIGHT_FLUSH * K5 + straight
            continue
        kind = {(1, 1, 1, 1, 1): HandType.HIGH_CARD, (2, 1, 1, 1): HandType.PAIR, (2, 2, 1): HandType.TWO_PAIR,
                (3, 1, 1): HandType.TRIPS, (3, 2): HandType.FULL_HOUSE, (4, 1): HandType.FOUR_OF_A_KIND}[tuple(shape)]
        plain5[key] = kind * K5 + _key(digits)
        flush5[key] = HandType.FLUSH * K5 + _key(digits)
    plain3 = np.zeros(13**3, dtype=np.int64)
    top3 = np.zeros(13**3, dtype=np.int64)
    for triple in combinations_with_replacement(range(13), 3):
        key = sum(r * 13 ** (2 - i) for i, r in enumerate(triple))
        digits = _digits(triple)
        kind = {3: HandType.HIGH_CARD, 2: HandType.PAIR, 1: HandType.TRIPS}[len(digits)]
        plain3[key] = kind * K5 + _key(digits)
        top3[key] = digits[0]
    return {"plain5": plain5, "flush5": flush5, "top5": top5, "plain3": plain3, "top3": top3}


def rank_tables(wheel: str) -> dict[str, np.ndarray]:
    """The tables behind :func:`row_strengths` (``plain5``, ``flush5``, ``top5``, ``plain3``,
    ``top3``), indexed by the row's ranks in ascending order read as base-13 digits; for
    kernels that evaluate many rows with the same result."""
    return _tables(wheel)


_POW = {5: 13 ** np.arange(4, -1, -1, dtype=np.int64), 3: 13 ** np.arange(2, -1, -1, dtype=np.int64)}


def row_strengths(rows: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Strengths of a batch of rows of one size, shape ``(N, 3)`` or ``(N, 5)`` card ids in
    canonical slot order, as an int64 array ``(N,)``."""
    size = rows.shape[-1]
    tables = _tables(rules.wheel)
    ranks = RANK[rows].astype(np.int64)
    suits = SUIT[rows]
    key = ranks @ _POW[size]
    if size == 5:
        flush = (suits == suits[:, :1]).all(axis=1)
        rank_only = np.where(flush, tables["flush5"][key], tables["plain5"][key])
        top = tables["top5"][key]
    else:
        flush = np.zeros(len(rows), dtype=bool)
        rank_only = tables["plain3"][key]
        top = tables["top3"][key]
    kind, rank_key = np.divmod(rank_only, K5)
    values = rules.suit_values
    flush_suit = values[suits[:, 0]] * flush if rules.flush_compare == "suit_first" else 0
    if rules.suit_tiebreak:
        top_suit = np.where(ranks == top[:, None], values[suits], -1).max(axis=1)
    else:
        top_suit = 0
    return ((kind * 4 + flush_suit) * K5 + rank_key) * 4 + top_suit


def rank_only_strengths(rows: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """``rank_only(row_strengths(rows, rules))`` without computing the suit parts: the
    type-and-rank strength of a batch of rows of one size, for the valid mask."""
    tables = _tables(rules.wheel)
    key = RANK[rows].astype(np.int64) @ _POW[rows.shape[-1]]
    if rows.shape[-1] == 5:
        suits = SUIT[rows]
        return np.where((suits == suits[:, :1]).all(axis=1), tables["flush5"][key], tables["plain5"][key])
    return tables["plain3"][key]


def rank_only(strength: Any) -> Any:
    """The rank-only part of a strength (types and ranks, no suits), for fouls."""
    kind_suit, rest = np.divmod(np.asarray(strength) // 4, K5)
    return (kind_suit // 4) * K5 + rest


def strength_type(strength: Any) -> Any:
    """The :class:`HandType` value of a strength."""
    return np.asarray(strength) // 4 // K5 // 4


def _check_row(cards: Sequence[int], what: str = "row") -> np.ndarray:
    if len(cards) not in (3, 5):
        raise ValueError(f"{what} {format_cards(cards)!r} has {len(cards)} cards; a Thirteen row has 3 or 5")
    check_hand(cards, len(cards), jokers=False, what=what)
    return np.sort(np.asarray(cards, dtype=np.intp))[None, :]


def row_strength(cards: Sequence[int], rules: ThirteenRules) -> int:
    """Strength of one 3- or 5-card row."""
    return int(row_strengths(_check_row(cards), rules)[0])


def row_type(cards: Sequence[int], rules: ThirteenRules) -> HandType:
    return HandType(int(strength_type(row_strength(cards, rules))))


def compare_rows(a: Sequence[int], b: Sequence[int], rules: ThirteenRules) -> int:
    """1 when row ``a`` is stronger, -1 when ``b`` is, 0 when they tie. Rows of one size."""
    if len(a) != len(b):
        raise ValueError(f"rows {format_cards(a)!r} and {format_cards(b)!r} differ in size; compare rows of one size")
    sa, sb = row_strength(a, rules), row_strength(b, rules)
    return (sa > sb) - (sa < sb)


# ----------------------------------------------------------------------------- arrangements

def check_arrangement(rows: Sequence[Sequence[int]], what: str = "hand") -> list[np.ndarray]:
    """Validate a front/middle/back arrangement; return each row sorted."""
    if len(rows) != 3 or tuple(len(r) for r in rows) != ROW_SIZES:
        sizes = "/".join(str(len(r)) for r in rows)
        raise ValueError(f"{what} has rows of {sizes} cards; a Thirteen arrangement is 3 | 5 | 5 cards")
    flat = [c for r in rows for c in r]
    check_hand(flat, HAND_SIZE, jokers=False, what=what)
    return [np.sort(np.asarray(r, dtype=np.intp)) for r in rows]


def arrangement_strengths(rows: Sequence[Sequence[int]], rules: ThirteenRules) -> np.ndarray:
    """Strengths of front, middle and back."""
    front, middle, back = check_arrangement(rows)
    return np.concatenate([row_strengths(front[None], rules), row_strengths(np.stack([middle, back]), rules)])


def valid_strengths(front: np.ndarray | int, middle: np.ndarray | int, back: np.ndarray | int) -> Any:
    """No foul: front ≤ middle ≤ back by rank-only strength (vectorised over arrangements)."""
    f, m, b = rank_only(front), rank_only(middle), rank_only(back)
    return (f <= m) & (m <= b)


def is_valid(rows: Sequence[Sequence[int]], rules: ThirteenRules) -> bool:
    """True when the arrangement does not foul: front ≤ middle ≤ back by types and ranks."""
    s = arrangement_strengths(rows, rules)
    return bool(valid_strengths(s[0], s[1], s[2]))


def hand_slots(hand: Sequence[int] | np.ndarray) -> np.ndarray:
    check_hand(hand, HAND_SIZE, jokers=False)
    return np.sort(np.asarray(hand, dtype=np.intp))


def split_strengths(hand: Sequence[int] | np.ndarray, rules: ThirteenRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Front, middle and back strength of every one of the 72,072 splits, from 286 + 1,287
    subset strengths computed once."""
    per_subset = subset_strengths(hand_slots(hand), THIRTEEN, lambda rows: row_strengths(rows, rules))
    return gather_rows(per_subset, THIRTEEN)


def valid_mask(hand: Sequence[int] | np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Boolean mask over the 72,072 splits: True where the split does not foul."""
    per_subset = subset_strengths(hand_slots(hand), THIRTEEN, lambda rows: rank_only_strengths(rows, rules))
    front, middle, back = gather_rows(per_subset, THIRTEEN)
    return (front <= middle) & (middle <= back)


# ----------------------------------------------------------------------------- specials

SPECIAL_VALUES: dict[str, dict[str, int]] = {
    "classic": {"clean_dragon": 13, "dragon": 13, "six_pairs": 3, "three_flushes": 3, "three_straights": 3},
    "shisanshui": {"clean_dragon": 108, "dragon": 36, "royals": 24, "three_straight_flushes": 20,
                   "three_fours": 20, "one_colour": 10, "all_small": 10, "all_big": 10, "four_trips": 6,
                   "six_pairs": 4, "three_straights": 4, "three_flushes": 3},
    "banker": {"dragon": 13, "clean_dragon": 13},
    "off": {},
}

_STRAIGHTS3 = [(12, 0, 1)] + [(r, r + 1, r + 2) for r in range(11)]
_STRAIGHTS5 = [(12, 0, 1, 2, 3)] + [tuple(range(r, r + 5)) for r in range(9)]


@cache
def _three_straight_counts() -> frozenset[tuple[int, ...]]:
    """Every rank multiset (counts per rank) that can be set as a 3-card straight and two
    5-card straights: at most 12 × 55 of them, enumerated once."""
    out = set()
    for s3 in _STRAIGHTS3:
        for i, s5 in enumerate(_STRAIGHTS5):
            for t5 in _STRAIGHTS5[i:]:
                counts = [0] * 13
                for r in (*s3, *s5, *t5):
                    counts[r] += 1
                out.add(tuple(counts))
    return frozenset(out)


def _three_straights(counts: tuple[int, ...]) -> bool:
    """Can a rank multiset (counts per rank) be set as a 3-card straight and two 5-card straights?"""
    return counts in _three_straight_counts()


def _one_colour(suits: np.ndarray) -> bool:
    black = (suits == 0) | (suits == 3)
    return bool(black.all() or not black.any())


def _qualifying(hand: Sequence[int]) -> list[str]:
    cards = np.asarray(hand, dtype=np.intp)
    ranks, suits = RANK[cards], SUIT[cards]
    per_rank = tuple(np.bincount(ranks, minlength=13).tolist())
    counts = {r: n for r, n in enumerate(per_rank) if n}
    suit_counts = sorted((n for n in np.bincount(suits, minlength=4).tolist() if n), reverse=True)
    names = []
    if len(counts) == 13:
        names.append("clean_dragon" if len(suit_counts) == 1 else "dragon")
    if sum(n // 2 for n in counts.values()) == 6:
        names.append("six_pairs")
    if tuple(suit_counts) in {(13,), (10, 3), (8, 5), (5, 5, 3)}:
        names.append("three_flushes")
        by_suit = [tuple(sum(1 for c in hand if SUIT[c] == s and RANK[c] == r) for r in range(13)) for s in range(4)]
        if _three_straight_flushes(tuple(by_suit)):
            names.append("three_straight_flushes")
    if _three_straights(per_rank):
        names.append("three_straights")
    if sum(n // 3 for n in counts.values()) == 4:
        names.append("four_trips")
    if len(suit_counts) <= 2 and _one_colour(suits):
        names.append("one_colour")
    if ranks.max() <= 6:
        names.append("all_small")
    if ranks.min() >= 6:
        names.append("all_big")
    if sum(n // 4 for n in counts.values()) == 3:
        names.append("three_fours")
    if ranks.min() >= 9:
        names.append("royals")
    return names


@lru_cache(maxsize=4096)
def _three_straight_flushes(by_suit: tuple[tuple[int, ...], ...]) -> bool:
    """Can the hand (rank counts per suit) be set as a 3-card straight flush and two 5-card ones?"""
    rows3 = [(s, t) for s in range(4) for t in _STRAIGHTS3]
    rows5 = [(s, t) for s in range(4) for t in _STRAIGHTS5]

    def take(c: tuple[tuple[int, ...], ...], row: tuple[int, tuple[int, ...]]) -> tuple[tuple[int, ...], ...] | None:
        suit, ranks = row
        counts = list(c[suit])
        for r in ranks:
            if counts[r] == 0:
                return None
            counts[r] -= 1
        return c[:suit] + (tuple(counts),) + c[suit + 1:]

    for r3 in rows3:
        rest = take(by_suit, r3)
        if rest is None:
            continue
        for i, r5 in enumerate(rows5):
            rest2 = take(rest, r5)
            if rest2 is not None and any(take(rest2, r) is not None for r in rows5[i:]):
                return True
    return False


def special_hand(hand: Sequence[int], rules: ThirteenRules) -> tuple[str, int]:
    """The special hand 报到 the 13 cards qualify for under ``rules.specials`` and its value:
    the highest-valued one, or ``("", 0)``."""
    table = SPECIAL_VALUES[rules.specials]
    if not table:
        return "", 0
    found = [(table[name], name) for name in _qualifying(hand) if name in table]
    if not found:
        return "", 0
    value, name = max(found)
    return name, value


# ----------------------------------------------------------------------------- scoring

_ROYALTY = {
    0: {HandType.TRIPS: 3},
    1: {HandType.FULL_HOUSE: 2, HandType.FOUR_OF_A_KIND: 8, HandType.STRAIGHT_FLUSH: 10},
    2: {HandType.FOUR_OF_A_KIND: 4, HandType.STRAIGHT_FLUSH: 5},
}


@cache
def royalty_table(royalties: str) -> np.ndarray:
    """Row value by row position and type, shape ``(3, 9)``: what the winner of that row receives."""
    table = np.ones((3, len(HandType)), dtype=np.int64)
    if royalties == "classic":
        for row, values in _ROYALTY.items():
            for kind, value in values.items():
                table[row, kind] = value
    return table


def row_values(strengths: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Row values of arrangements: ``strengths`` of shape ``(..., 3)`` → values ``(..., 3)``."""
    return royalty_table(rules.royalties)[np.arange(3), strength_type(strengths)]


@dataclasses.dataclass
class ThirteenScore:
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


def compared_pairs(n: int, rules: ThirteenRules) -> list[tuple[int, int]]:
    """The pairs of seats that are compared: all pairs, or the banker with each player."""
    if rules.scoring == "banker":
        if rules.banker_seat >= n:
            raise ValueError(f"banker_seat {rules.banker_seat} is not a seat of a {n}-player table (seats 0..{n - 1})")
        return [(rules.banker_seat, j) for j in range(n) if j != rules.banker_seat]
    return list(combinations(range(n), 2))


def _pair_rows(i: int, j: int, strengths: Sequence[Sequence[int]], values: Sequence[Sequence[int]],
               fouled: Sequence[bool],
               rules: ThirteenRules) -> tuple[list[int], int]:
    """Per-row points to seat i against seat j (no specials), and who won more rows (+1, -1, 0)."""
    if fouled[i] and fouled[j]:
        return [0, 0, 0], 0
    if fouled[i] or fouled[j]:
        sign = -1 if fouled[i] else 1
        winner = j if fouled[i] else i
        points = [1] * 3 if rules.scoring == "two_four" else list(values[winner])
        return [sign * p for p in points], sign
    rows = []
    for k in range(3):
        a, b = strengths[i][k], strengths[j][k]
        if a == b:
            rows.append(0)
        elif rules.scoring == "two_four":
            rows.append(1 if a > b else -1)
        else:
            rows.append(values[i][k] if a > b else -values[j][k])
    wins = sum(r > 0 for r in rows) - sum(r < 0 for r in rows)
    return rows, (wins > 0) - (wins < 0)


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
    strengths = np.empty((n, 3), dtype=np.int64)
    strengths[:, 0] = row_strengths(table[:, :3], rules)
    strengths[:, 1:] = row_strengths(table[:, 3:].reshape(2 * n, 5), rules).reshape(n, 2)
    values = row_values(strengths, rules).tolist()
    fouled = (~valid_strengths(strengths[:, 0], strengths[:, 1], strengths[:, 2])).tolist()
    specials = [special_hand(hand, rules) for hand in table] if rules.specials != "off" else [("", 0)] * n
    special_value = [v for _, v in specials]
    pairs = compared_pairs(n, rules)
    strength_rows = strengths.tolist()
    totals: dict[tuple[int, int], float] = {}
    total: float
    details: dict[tuple[int, int], dict[str, Any]] = {}
    scooped: dict[int, int] = {i: 0 for i in range(n)}
    for i, j in pairs:
        detail: dict[str, Any] = {"seats": [i, j], "rows": [0, 0, 0], "special": 0, "majority": 0, "scoop": 0, "home_run": 0}
        if special_value[i] or special_value[j]:
            vi, vj = special_value[i], special_value[j]
            if rules.specials == "banker" and vi and vj:
                total = -vj if i == rules.banker_seat else vi
            else:
                total = vi if vi > vj else (-vj if vj > vi else 0)
            detail["special"] = total
        else:
            row_points, winner = _pair_rows(i, j, strength_rows, values, fouled, rules)
            detail["rows"] = row_points
            total = sum(row_points)
            if rules.scoring == "two_four":
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
                         specials=special_value, special_names=[name for name, _ in specials],
                         strengths=strengths, pairs=out_pairs)


def parse_arrangement(text: str | Sequence[Any]) -> list[list[int]]:
    """Read ``"front | middle | back"`` into three rows of card ids (validated)."""
    from ..cards import parse_rows

    rows = parse_rows(text)
    check_arrangement(rows, what=f"hand {text!r}" if isinstance(text, str) else "hand")
    return rows


__all__ += ["parse_arrangement", "rank_only_strengths", "K5", "ROW_SIZES", "ROW_NAMES", "HAND_SIZE", "PLAYERS", "SPECIAL_VALUES",
            "strength_type", "is_valid", "check_arrangement", "arrangement_strengths", "compared_pairs",
            "royalty_table", "hand_slots", "valid_strengths"]
