"""Thirteen's special hands 报到 (envs/thirteen/RULES.md section 7): which special the 13
cards qualify for under the table in play, its value and what it is paid, and the keys that
settle two specials of equal value. Pure: standard library and NumPy.

>>> from ..cards import parse_cards
>>> special_hand(parse_cards("2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d 8s"), ThirteenRules.preset("classic"))
('six_pairs', 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement
from typing import Any

import numpy as np

from ..cards import (
    RANK,
    SUIT,
    card_id,
)
from .rules import (
    SPECIAL_TABLES,
    HandType,
    ThirteenRules,
    _straight_key,
    pack_strength,
    row_strengths,
)
from .variants import (
    RANKED_TESTS,
    SpecialEntry,
)

__all__ = [
    "special_hand", "SPECIAL_VALUES", "special_hands", "special_flags", "special_payments", "special_keys",
]


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
