"""Thirteen (十三张 / 十三水) rules: switches and presets, row strength, fouls and the valid-split
mask (envs/thirteen/RULES.md). Special hands are :mod:`.specials`, scoring :mod:`.scoring`.
Pure: standard library and NumPy.

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
from itertools import combinations_with_replacement
from typing import Any

import numpy as np

from ..cards import (
    RANK,
    SUIT,
    check_hand,
    format_cards,
    parse_cards,
)
from ..splits import THIRTEEN
from ..strength import gather_rows, subset_strengths
from ..switches import RuleSwitches, choice, parse_suit_order
from .variants import (
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
    "HandType", "ThirteenRules", "row_strengths", "row_strength", "row_type", "rank_only", "compare_rows",
    "is_valid", "valid_mask", "split_strengths", "parse_cards",
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
    """The switches of Thirteen (envs/thirteen/RULES.md sections 8 and 9). Build with
    ``ThirteenRules.preset(name, **overrides)``."""

    GAME = "thirteen"

    wheel: str = choice("second", ("second", "lowest", "ace_equal", "none"),
                        "where A-2-3-4-5 ranks among straights")
    flush_compare: str = choice("rank_first", ("rank_first", "suit_first"),
                                "flushes by ranks first, or by suit first (as banker-style rules do)")
    suit_tiebreak: bool = choice(True, None, "rows equal by rank are told apart by the most significant card's suit")
    suit_order: str = choice("spades>hearts>clubs>diamonds", None, "suit strength, strongest first")
    scoring: str = choice("pairwise", ("pairwise", "banker", "two_four", "majority"),
                          "who is compared with whom, and how",
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
                             f"can be equal (got scoring={self.scoring}, "
                             f"suit_tiebreak={str(self.suit_tiebreak).lower()})")
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
            "royalties": {"table": self.royalties,
                          **{row: dict(values) for row, values in
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
def rank_tables(wheel: str, rank_compare: str = "all") -> dict[str, np.ndarray]:
    """The tables behind :func:`row_strengths` (``plain5``, ``flush5``, ``top5``, ``plain3``,
    ``top3``): rank-only strengths of every sorted 3- and 5-rank tuple, indexed by the row's
    ranks in ascending order read as base-13 digits (lowest rank most significant); for
    kernels that evaluate many rows with the same result. Under ``rank_compare="top"`` a row's ranks count by the most
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


_POW = {5: 13 ** np.arange(4, -1, -1, dtype=np.int64), 3: 13 ** np.arange(2, -1, -1, dtype=np.int64)}


def row_strengths(rows: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Strengths of a batch of rows of one size, shape ``(N, 3)`` or ``(N, 5)`` card ids in
    canonical slot order, as an int64 array ``(N,)``."""
    size = rows.shape[-1]
    tables = rank_tables(rules.wheel, rules.rank_compare)
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
    tables = rank_tables(rules.wheel, rules.rank_compare)
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


def split_strengths(hand: Sequence[int] | np.ndarray,
                    rules: ThirteenRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Front, middle and back strength of every one of the 72,072 splits, from 286 + 1,287
    subset strengths computed once."""
    per_subset = subset_strengths(hand_slots(hand), THIRTEEN, lambda rows: row_strengths(rows, rules))
    return gather_rows(per_subset, THIRTEEN)


def valid_mask(hand: Sequence[int] | np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """Boolean mask over the 72,072 splits: True where the split does not foul."""
    per_subset = subset_strengths(hand_slots(hand), THIRTEEN, lambda rows: rank_only_strengths(rows, rules))
    return no_foul(*gather_rows(per_subset, THIRTEEN))


def parse_arrangement(text: str | Sequence[Any]) -> list[list[int]]:
    """Read ``"front | middle | back"`` into three rows of card ids (validated)."""
    from ..cards import parse_rows

    rows = parse_rows(text)
    check_arrangement(rows, what=f"hand {text!r}" if isinstance(text, str) else "hand")
    return rows


__all__ += [
    "parse_arrangement", "rank_only_strengths", "K5", "ROW_SIZES", "ROW_NAMES", "HAND_SIZE", "PLAYERS",
    "strength_type", "is_valid", "check_arrangement", "arrangement_strengths", "hand_slots",
    "valid_strengths", "no_foul", "pack_strength", "SPECIAL_TABLES", "ROYALTY_TABLES", "SPECIAL_TESTS",
]
