"""Thirteen (十三张 / 十三水) rules: switches and presets, row strength, fouls, the valid-split
mask, special hands and scoring (envs/thirteen/RULES.md). Pure: standard library and NumPy.

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
from functools import cache
from itertools import combinations, combinations_with_replacement
from typing import Any

import numpy as np

from ..cards import (
    N_IDS,
    RANK,
    SUIT,
    card_id,
    check_hand,
    check_table_cards,
    format_cards,
    parse_cards,
)
from ..game import Outcomes, Score
from ..splits import THIRTEEN
from ..strength import gather_rows, subset_strengths
from ..switches import RuleSwitches, choice, parse_suit_order
from .variants import (
    RANKED_TESTS,
    SpecialEntry,
    SpecialTable,
    parse_presets,
    parse_tables,
    read_document,
)

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


#: the tests a special-hand table may use (section 7.2), with their parameters
SPECIAL_TESTS: dict[str, tuple[str, ...]] = {
    "dragon": (), "clean_dragon": (), "six_pairs": (), "three_flushes": (), "three_straights": (),
    "four_trips": (), "one_colour": (), "ranks": ("low", "high"), "three_fours": (),
    "three_straight_flushes": (), "holds_straight_flush": (), "holds_four_of_a_kind": (), "holds_trips": (),
    "black_one_red": (), "red_one_black": (), "five_pairs_trips": (),
    "three_straights_no_qka": (), "three_flushes_distinct": (), "all_ranks": ("low", "high"),
    "clean_dragon_by_suit": (),
}
_DOCUMENT, _SOURCE = read_document()
#: the royalty tables and special-hand tables of ``variants.json``, by name
ROYALTY_TABLES, SPECIAL_TABLES = parse_tables(_DOCUMENT, _SOURCE, types=[t.name.lower() for t in HandType],
                                              tests=SPECIAL_TESTS)


@dataclasses.dataclass(frozen=True)
class ThirteenRules(RuleSwitches):
    """The switches of Thirteen (envs/thirteen/RULES.md sections 8 and 9). Build with ``ThirteenRules.preset(name, **overrides)``."""

    GAME = "thirteen"

    wheel: str = choice("second", ("second", "lowest", "ace_equal", "none"),
                        "where A-2-3-4-5 ranks among straights")
    flush_compare: str = choice("rank_first", ("rank_first", "suit_first"),
                                "flushes by ranks first, or by suit first (seed 002)")
    suit_tiebreak: bool = choice(True, None, "rows equal by rank are told apart by the most significant card's suit")
    suit_order: str = choice("spades>hearts>clubs>diamonds", None, "suit strength, strongest first")
    scoring: str = choice("pairwise", ("pairwise", "banker", "two_four", "majority"), "who is compared with whom, and how",
                          features=("pairwise", "banker", "two_four"))
    banker_seat: int = choice(0, (0, 1, 2, 3), "the banker's seat under scoring=banker")
    royalties: str = choice("classic", tuple(ROYALTY_TABLES), "row values of strong rows (a royalty table)",
                            features=("classic", "none"))
    scoop: str = choice("none", ("none", "double"), "打枪: winning all three rows doubles the pair's total")
    home_run: bool = choice(False, None, "全垒打: scooping all three opponents at a 4-player table doubles again")
    specials: str = choice("classic", tuple(SPECIAL_TABLES), "the table of special hands 报到",
                           features=("classic", "shisanshui", "banker", "off"))
    counted_rows: str = choice("all", ("all", "back"), "the rows that are compared and paid (寶馬會: the back only)",
                               features=(), omit_default=True)
    tie_winner: str = choice("none", ("none", "banker"), "who wins a row still equal after every comparison: "
                             "nobody (0), or the banker (報到十三張)", features=(), omit_default=True)
    special_pays: int = choice(0, None, "units every special hand is paid instead of its table value "
                               "(0: the table's values)", features=(), omit_default=True)
    rank_compare: str = choice("all", ("all", "top"), "rows of one type compared by every rank in turn, or by the "
                               "top rank only (只比點數最大的一只牌)", features=(), omit_default=True)

    def _check(self) -> None:
        """Switch combinations without a meaning are errors, not silently ignored."""
        royalties = any(ROYALTY_TABLES[self.royalties])
        if self.scoring == "majority" and (royalties or self.scoop != "none" or self.counted_rows != "all"):
            raise ValueError("thirteen scoring=majority pays one point for winning more rows, not rows; set "
                             f"royalties=none, scoop=none and counted_rows=all (got royalties={self.royalties}, "
                             f"scoop={self.scoop}, counted_rows={self.counted_rows})")
        if self.scoring == "two_four" and (royalties or self.special_table.hands or self.scoop != "none"):
            raise ValueError("thirteen scoring=two_four has no royalties, specials or scoop; set royalties=none, "
                             f"specials=off and scoop=none (got royalties={self.royalties}, specials={self.specials}, "
                             f"scoop={self.scoop})")
        if self.counted_rows != "all" and (self.scoring == "two_four" or self.scoop != "none"):
            raise ValueError(f"thirteen counted_rows={self.counted_rows} pays single rows: it takes no majority "
                             f"point or scoop (got scoring={self.scoring}, scoop={self.scoop})")
        if self.special_pays < 0:
            raise ValueError(f"thirteen switch special_pays={self.special_pays} is not allowed; use 0 (the table's "
                             "values) or a positive number of units")
        if self.tie_winner == "banker" and (self.scoring != "banker" or self.suit_tiebreak):
            raise ValueError("thirteen tie_winner=banker needs scoring=banker and suit_tiebreak=false, where rows "
                             f"can be equal (got scoring={self.scoring}, suit_tiebreak={str(self.suit_tiebreak).lower()})")
        if self.home_run and (self.scoop != "double" or self.scoring != "pairwise"):
            raise ValueError("thirteen home_run=true needs scoop=double and scoring=pairwise "
                             f"(got scoop={self.scoop}, scoring={self.scoring})")

    @property
    def suit_values(self) -> np.ndarray:
        """Suit strength (0 weakest … 3 strongest) indexed by suit id c, d, h, s."""
        return np.array(parse_suit_order(self.suit_order), dtype=np.int64)

    @property
    def special_table(self) -> SpecialTable:
        """The special-hand table that ``specials`` names."""
        return SPECIAL_TABLES[self.specials]

    def tables(self) -> dict[str, Any]:
        """The royalty values per row and type (``royalties``; a type not listed pays 1), and the
        special hands (``specials``) in precedence order: the value each ranks by, the units
        it is paid (``special_pays`` when set), and the rules between two specials."""
        special = self.special_table
        return {
            "royalties": {"table": self.royalties, **{row: dict(values) for row, values in
                                                      zip(("front", "middle", "back"), ROYALTY_TABLES[self.royalties])}},
            "specials": {"table": special.name, "between_two": special.both, "equal_values": special.equal,
                         "hands": {e.name: {"value": e.value, "paid": self.special_pays or e.value}
                                   for e in special.hands}},
        }


def _preset_records() -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The preset records of ``variants.json``, each checked by building its rules."""
    presets, descriptions = parse_presets(_DOCUMENT, _SOURCE, switches=ThirteenRules.switch_names())
    for name, switches in presets.items():
        try:
            ThirteenRules(**switches)
        except ValueError as error:
            raise ValueError(f"{_SOURCE}: presets.{name}: {error}") from None
    return presets, descriptions


ThirteenRules.PRESETS, ThirteenRules.PRESET_DESCRIPTIONS = _preset_records()


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
def _tables(wheel: str, rank_compare: str = "all") -> dict[str, np.ndarray]:
    """Rank-only strengths of every sorted 3- and 5-rank tuple, keyed base 13 (lowest rank
    most significant). Under ``rank_compare="top"`` a row's ranks count by the most
    significant one only (a straight's order is already one number)."""
    def key_of(digits: Sequence[int]) -> int:
        return _key(digits[:1] if rank_compare == "top" else digits)

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
        plain5[key] = kind * K5 + key_of(digits)
        flush5[key] = HandType.FLUSH * K5 + key_of(digits)
    plain3 = np.zeros(13**3, dtype=np.int64)
    top3 = np.zeros(13**3, dtype=np.int64)
    for triple in combinations_with_replacement(range(13), 3):
        key = sum(r * 13 ** (2 - i) for i, r in enumerate(triple))
        digits = _digits(triple)
        kind = {3: HandType.HIGH_CARD, 2: HandType.PAIR, 1: HandType.TRIPS}[len(digits)]
        plain3[key] = kind * K5 + key_of(digits)
        top3[key] = digits[0]
    return {"plain5": plain5, "flush5": flush5, "top5": top5, "plain3": plain3, "top3": top3}


def rank_tables(wheel: str, rank_compare: str = "all") -> dict[str, np.ndarray]:
    """The tables behind :func:`row_strengths` (``plain5``, ``flush5``, ``top5``, ``plain3``,
    ``top3``), indexed by the row's ranks in ascending order read as base-13 digits; for
    kernels that evaluate many rows with the same result."""
    return _tables(wheel, rank_compare)


_POW = {5: 13 ** np.arange(4, -1, -1, dtype=np.int64), 3: 13 ** np.arange(2, -1, -1, dtype=np.int64)}


def row_strengths(rows: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Strengths of a batch of rows of one size, shape ``(N, 3)`` or ``(N, 5)`` card ids in
    canonical slot order, as an int64 array ``(N,)``."""
    size = rows.shape[-1]
    tables = _tables(rules.wheel, rules.rank_compare)
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
    return pack_strength(kind, flush_suit, rank_key, top_suit)


def pack_strength(kind: Any, flush_suit: Any, rank_key: Any, top_suit: Any) -> Any:
    """The strength formula (module docstring), for scalars and arrays alike; the solver's
    compiled kernels compile this same function."""
    return ((kind * 4 + flush_suit) * K5 + rank_key) * 4 + top_suit


def rank_only_strengths(rows: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """``rank_only(row_strengths(rows, rules))`` without computing the suit parts: the
    type-and-rank strength of a batch of rows of one size, for the valid mask."""
    tables = _tables(rules.wheel, rules.rank_compare)
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


def no_foul(front: Any, middle: Any, back: Any) -> Any:
    """The foul rule (倒水) on rank-only strengths: front ≤ middle ≤ back (vectorised)."""
    return (front <= middle) & (middle <= back)


def valid_strengths(front: np.ndarray | int, middle: np.ndarray | int, back: np.ndarray | int) -> Any:
    """No foul, from full row strengths: :func:`no_foul` on their rank-only parts."""
    return no_foul(rank_only(front), rank_only(middle), rank_only(back))


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
    return no_foul(*gather_rows(per_subset, THIRTEEN))


# ----------------------------------------------------------------------------- specials

#: special-hand values by table and name (from :data:`SPECIAL_TABLES`)
SPECIAL_VALUES: dict[str, dict[str, int]] = {name: {e.name: e.value for e in table.hands}
                                             for name, table in SPECIAL_TABLES.items()}

_STRAIGHTS3 = [(12, 0, 1)] + [(r, r + 1, r + 2) for r in range(11)]
_STRAIGHTS5 = [(12, 0, 1, 2, 3)] + [tuple(range(r, r + 5)) for r in range(9)]
_THREE_FLUSH_SHAPES = np.array([(13, 0, 0, 0), (10, 3, 0, 0), (8, 5, 0, 0), (5, 5, 3, 0)], dtype=np.int64)
_BASE5 = 5 ** np.arange(13, dtype=np.int64)
_RANK64 = RANK.astype(np.int64)
_SUIT64 = SUIT.astype(np.int64)


@cache
def _three_straight_keys(qka_front: bool = True) -> np.ndarray:
    """Rank-count keys (base 5, rank r digit r) of every 13-card hand that can be set as a
    3-card straight and two 5-card straights: at most 12 × 55 of them, enumerated once.
    ``qka_front=False`` leaves out the Q-K-A front (三順子 of the 十三水 list)."""
    keys = set()
    for s3 in _STRAIGHTS3 if qka_front else _STRAIGHTS3[:-1]:
        for s5a, s5b in combinations_with_replacement(_STRAIGHTS5, 2):
            counts = np.zeros(13, dtype=np.int64)
            for r in (*s3, *s5a, *s5b):
                counts[r] += 1
            keys.add(int(counts @ _BASE5))
    return np.array(sorted(keys), dtype=np.int64)


@cache
def _three_straight_flush_masks() -> np.ndarray:
    """Card bit masks of every 13-card hand made of a 3-card and two 5-card straight flushes."""
    def masks(straights: Sequence[tuple[int, ...]]) -> np.ndarray:
        return np.array([sum(1 << (2 + 4 * r + s) for r in ranks) for s in range(4) for ranks in straights],
                        dtype=np.int64)

    m3, m5 = masks(_STRAIGHTS3), masks(_STRAIGHTS5)
    pair = (m5[:, None] | m5[None, :])[np.triu((m5[:, None] & m5[None, :]) == 0, 1)]
    full = (pair[:, None] | m3[None, :])[(pair[:, None] & m3[None, :]) == 0]
    return np.unique(full)


def _member(values: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``np.isin(values, table)`` for a sorted table of distinct values, by binary search:
    ``isin`` sorts the table again at every call, which costs milliseconds for the tables
    above however few the values."""
    at = np.minimum(np.searchsorted(table, values), len(table) - 1)
    return table[at] == values


@cache
def _straight_flush_rows(wheel: str) -> np.ndarray:
    """Card ids ``(N, 5)`` of every straight flush under ``wheel`` (sorted rows)."""
    rows = [sorted(card_id(r, suit) for r in ranks) for ranks in _STRAIGHTS5 for suit in range(4)
            if _straight_key(tuple(sorted(ranks)), wheel) is not None]
    return np.array(rows, dtype=np.intp)


def _holds_straight_flush(hands: np.ndarray, wheel: str) -> np.ndarray:
    """``(H, N)`` bool: which straight flushes of :func:`_straight_flush_rows` each hand holds."""
    rows = _straight_flush_rows(wheel)
    masks = (np.int64(1) << rows.astype(np.int64)).sum(axis=1)
    held = (np.int64(1) << hands).sum(axis=1)
    return (held[:, None] & masks[None, :]) == masks[None, :]


def special_flags(hands: np.ndarray, entries: Sequence[SpecialEntry], wheel: str = "second") -> list[np.ndarray]:
    """Which of the special hands ``entries`` (报到) each 13-card hand of a batch ``(H, 13)``
    qualifies for: one ``(H,)`` bool array per entry (``wheel`` decides whether a suited
    A-2-3-4-5 is a straight flush)."""
    hands = np.asarray(hands, dtype=np.int64)
    ranks, suits = _RANK64[hands], _SUIT64[hands]
    counts = (ranks[:, :, None] == np.arange(13)).sum(axis=1)
    suit_counts = (suits[:, :, None] == np.arange(4)).sum(axis=1)

    @cache
    def three_flushes() -> np.ndarray:
        shape = -np.sort(-suit_counts, axis=1)
        return (shape[:, None, :] == _THREE_FLUSH_SHAPES[None]).all(axis=2).any(axis=1)

    @cache
    def dragon() -> np.ndarray:
        return (counts > 0).all(axis=1)

    one_suit = suit_counts.max(axis=1) == 13

    def in_range(entry: SpecialEntry) -> np.ndarray:
        low_ranks = np.where(ranks == 12, -1, ranks) if entry.low < 0 else ranks  # an ace below the 2
        return (low_ranks.min(axis=1) >= entry.low) & (low_ranks.max(axis=1) <= entry.high)

    def every_rank(entry: SpecialEntry) -> np.ndarray:
        """Every card in the range and every rank of the range held (不能缺)."""
        needed = [12 if r < 0 else r for r in range(entry.low, entry.high + 1)]
        return in_range(entry) & (counts[:, needed] > 0).all(axis=1)

    tests: dict[str, Any] = {
        "clean_dragon": lambda e: dragon() & one_suit,
        "clean_dragon_by_suit": lambda e: dragon() & one_suit,
        "dragon": lambda e: dragon() & ~one_suit,
        "six_pairs": lambda e: (counts // 2).sum(axis=1) == 6,
        "three_flushes": lambda e: three_flushes(),
        "three_straights": lambda e: _member(counts @ _BASE5, _three_straight_keys()),
        "four_trips": lambda e: (counts // 3).sum(axis=1) == 4,
        "one_colour": lambda e: np.isin(suits, (0, 3)).all(axis=1) | np.isin(suits, (1, 2)).all(axis=1),
        "ranks": lambda e: in_range(e),
        "three_fours": lambda e: (counts // 4).sum(axis=1) == 3,
        "three_straight_flushes": lambda e: three_flushes() & _member((np.int64(1) << hands).sum(axis=1),
                                                                       _three_straight_flush_masks()),
        "holds_straight_flush": lambda e: _holds_straight_flush(hands, wheel).any(axis=1),
        "holds_four_of_a_kind": lambda e: (counts == 4).any(axis=1),
        "holds_trips": lambda e: (counts >= 3).any(axis=1),
        "black_one_red": lambda e: np.isin(suits, (0, 3)).sum(axis=1) == 12,
        "red_one_black": lambda e: np.isin(suits, (1, 2)).sum(axis=1) == 12,
        "five_pairs_trips": lambda e: ((counts == 3).sum(axis=1) == 1)
        & ((counts == 2).sum(axis=1) + 2 * (counts == 4).sum(axis=1) == 5),
        "three_straights_no_qka": lambda e: _member(counts @ _BASE5, _three_straight_keys(False)),
        "three_flushes_distinct": lambda e: (np.sort(suit_counts, axis=1) == (0, 3, 5, 5)).all(axis=1),
        "all_ranks": lambda e: every_rank(e),
    }
    return [tests[entry.test](entry) for entry in entries]


def _chosen_specials(hands: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Per hand of a batch, the position in the table of the special it counts as (the first
    listed it qualifies for), -1 for none."""
    entries = rules.special_table.hands
    chosen = np.full(len(hands), -1)
    if not entries or len(hands) == 0:
        return chosen
    flags = special_flags(hands, entries, rules.wheel)
    for position in range(len(entries) - 1, -1, -1):  # the first listed wins
        chosen = np.where(flags[position], position, chosen)
    return chosen


def special_hands(hands: np.ndarray, rules: ThirteenRules) -> tuple[list[str], np.ndarray]:
    """The special hand each 13-card hand of a batch qualifies for under ``rules.specials``
    and its value in the table: the first of the table's list (the highest value), ``""``
    and 0 where none qualifies. The value ranks the specials against each other; what one
    is paid is :func:`special_payments` of it (``special_pays`` when set)."""
    entries = rules.special_table.hands
    hands = np.asarray(hands, dtype=np.int64)
    if not entries or len(hands) == 0:
        return [""] * len(hands), np.zeros(len(hands), dtype=np.int64)
    chosen = _chosen_specials(hands, rules)
    listed = np.array([e.value for e in entries])
    values = np.where(chosen >= 0, listed[chosen], 0)
    return [entries[i].name if i >= 0 else "" for i in chosen.tolist()], values


def special_payments(values: Any, rules: ThirteenRules) -> Any:
    """What specials of table values ``values`` (0: none) are paid (vectorised): their value,
    or ``special_pays`` units each when that is set. The value still ranks them."""
    values = np.asarray(values)
    return np.where(values != 0, rules.special_pays, 0) if rules.special_pays else values


def _card_keys(hands: np.ndarray, test: str, rules: ThirteenRules) -> np.ndarray:
    """The strength of each hand's best qualifying cards for a test of ``RANKED_TESTS``,
    on the scale of row strengths (a straight flush above four of a kind above trips); for
    ``clean_dragon_by_suit`` the suit's value (1 the weakest suit … 4 the strongest)."""
    if test == "clean_dragon_by_suit":
        return rules.suit_values[_SUIT64[hands[:, 0]]] + 1
    if test == "holds_straight_flush":
        held = _holds_straight_flush(hands, rules.wheel)
        strengths = row_strengths(_straight_flush_rows(rules.wheel), rules)
        return np.where(held, strengths[None, :], -1).max(axis=1, initial=-1)
    least, kind = {"holds_four_of_a_kind": (4, HandType.FOUR_OF_A_KIND), "holds_trips": (3, HandType.TRIPS)}[test]
    counts = (_RANK64[hands][:, :, None] == np.arange(13)).sum(axis=1)
    best = np.where(counts >= least, np.arange(13), -1).max(axis=1)
    return np.where(best >= 0, pack_strength(kind, 0, np.maximum(best, 0) * 13**4, 0), -1)


def special_keys(hands: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """What settles two special hands of equal value, per hand of a batch: under a table whose
    ``equal`` rule is ``stronger_cards``, for a special of a test of ``RANKED_TESTS``, the
    strength of the hand's best straight flush, four of a kind or trips (on the scale of
    row strengths), 0 for other specials; under ``precedence``, the special's place counted
    from the end of the table (the first listed highest); 0 for hands without one and under
    other tables."""
    table = rules.special_table
    hands = np.asarray(hands, dtype=np.int64)
    keys = np.zeros(len(hands), dtype=np.int64)
    if table.equal == "tie" or len(hands) == 0:
        return keys
    chosen = _chosen_specials(hands, rules)
    if table.equal == "precedence":
        return np.where(chosen >= 0, len(table.hands) - chosen, 0).astype(np.int64)
    for position, entry in enumerate(table.hands):
        if entry.test in RANKED_TESTS and (chosen == position).any():
            keys = np.where(chosen == position, _card_keys(hands, entry.test, rules), keys)
    return keys


def special_hand(hand: Sequence[int], rules: ThirteenRules) -> tuple[str, int]:
    """The special hand 报到 the 13 cards qualify for under ``rules.specials`` and its value
    in the table: the highest-valued one, or ``("", 0)``."""
    names, values = special_hands(np.asarray(hand, dtype=np.int64)[None], rules)
    return names[0], int(values[0])


# ----------------------------------------------------------------------------- scoring

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
        detail: dict[str, Any] = {"seats": [i, j], "rows": [0, 0, 0], "special": 0, "majority": 0, "scoop": 0, "home_run": 0}
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
    ``score_table(...).outcomes()`` table by table."""
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


def parse_arrangement(text: str | Sequence[Any]) -> list[list[int]]:
    """Read ``"front | middle | back"`` into three rows of card ids (validated)."""
    from ..cards import parse_rows

    rows = parse_rows(text)
    check_arrangement(rows, what=f"hand {text!r}" if isinstance(text, str) else "hand")
    return rows


__all__ += ["parse_arrangement", "rank_only_strengths", "K5", "ROW_SIZES", "ROW_NAMES", "HAND_SIZE", "PLAYERS", "SPECIAL_VALUES",
            "strength_type", "is_valid", "check_arrangement", "arrangement_strengths", "compared_pairs",
            "royalty_table", "value_table", "tie_sign", "COUNTED_ROWS", "hand_slots", "valid_strengths", "no_foul", "special_hands", "special_flags",
            "table_strengths", "special_pair_total", "special_payments", "pack_strength", "special_keys", "SPECIAL_TABLES", "ROYALTY_TABLES",
            "SPECIAL_TESTS", "MAJORITY_SCORING", "score_tables"]
