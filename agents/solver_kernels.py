"""Batched kernels of the exhaustive solver: the greedy arrangement of many hands at once,
Thirteen special hands and Biji hand bonuses over many hands, and bit-set counting.

Every function here gives exactly what the one-hand reference gives (``greedy_index``,
``special_hand``, ``xi_table``), only for a whole batch of hands; the tests check that.

>>> from splitpoker.envs.games import make_game
>>> from splitpoker.agents.baselines import greedy_index
>>> game = make_game("biji")
>>> hands = np.array([game.slots(game.deck()[:9]), game.slots(game.deck()[9:18])])
>>> greedy_actions(game, hands).tolist() == [greedy_index(game, h) for h in hands]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement

import numpy as np
from numba import njit

from ..envs.biji import rules as biji
from ..envs.cards import RANK, SUIT
from ..envs.games import Game
from ..envs.splits import SplitIndex
from ..envs.thirteen import rules as thirteen

__all__ = ["greedy_actions", "split_lookup", "thirteen_special_values", "biji_hand_xi", "pack_bits",
           "popcount_rows"]

K5 = thirteen.K5
_RANK64 = RANK.astype(np.int64)
_SUIT64 = SUIT.astype(np.int64)


# ----------------------------------------------------------------------------- split lookups

class SplitLookup:
    """Tables that turn subset ids back into split indices, for one :class:`SplitIndex`."""

    def __init__(self, index: SplitIndex) -> None:
        n = index.n_slots
        sizes = index.row_sizes
        self.masks: dict[int, np.ndarray] = {}
        self.mask_to_id: dict[int, np.ndarray] = {}
        for size in set(sizes):
            masks = (np.int64(1) << index.subsets(size).astype(np.int64)).sum(axis=1)
            to_id = np.full(1 << n, -1, dtype=np.int64)
            to_id[masks] = np.arange(len(masks))
            self.masks[size], self.mask_to_id[size] = masks, to_id
        table = index.table.astype(np.int64)
        #: split index by (first row's subset id, second row's subset id)
        self.action_of = np.full((len(self.masks[sizes[0]]), len(self.masks[sizes[1]])), -1, dtype=np.int64)
        self.action_of[table[:, 0], table[:, 1]] = np.arange(index.n_actions)
        self.full = (1 << n) - 1
        last, middle = self.masks[sizes[2]], self.masks[sizes[1]]
        #: for every last-row subset, the middle-row subsets disjoint from it, in subset order
        disjoint = (last[:, None] & middle[None, :]) == 0
        self.disjoint = np.array([np.flatnonzero(row) for row in disjoint], dtype=np.int64)
        self.columns = tuple(np.ascontiguousarray(table[:, k]) for k in range(3))

    def action(self, middle_ids: np.ndarray, last_ids: np.ndarray, sizes: tuple[int, int, int]) -> np.ndarray:
        """Split indices of the splits whose middle and last rows are these subsets."""
        first_mask = self.full ^ self.masks[sizes[1]][middle_ids] ^ self.masks[sizes[2]][last_ids]
        return self.action_of[self.mask_to_id[sizes[0]][first_mask], middle_ids]


@cache
def split_lookup(index: SplitIndex) -> SplitLookup:
    """The (cached) :class:`SplitLookup` of a split index."""
    return SplitLookup(index)


# ----------------------------------------------------------------------------- greedy

@njit(cache=True)
def _greedy13_kernel(hands: np.ndarray, ranks_of: np.ndarray, suits_of: np.ndarray, subsets: np.ndarray,
                     disjoint: np.ndarray, plain5: np.ndarray, flush5: np.ndarray, top5: np.ndarray,
                     suit_values: np.ndarray, suit_first: bool, tiebreak: bool,
                     k5: np.int64) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Per hand: the id of the strongest 5-card subset (first of equals), then of the strongest
    5-card subset disjoint from it. Strengths as in ``thirteen.row_strengths``."""
    n_hands = hands.shape[0]
    n_sub = subsets.shape[0]
    back = np.empty(n_hands, np.int64)
    middle = np.empty(n_hands, np.int64)
    strengths = np.empty(n_sub, np.int64)
    r = np.empty(13, np.int64)
    s = np.empty(13, np.int64)
    for h in range(n_hands):
        for i in range(13):
            r[i] = ranks_of[hands[h, i]]
            s[i] = suits_of[hands[h, i]]
        best = -1
        best_value = np.int64(-1)
        for u in range(n_sub):
            key = np.int64(0)
            flush = True
            s0 = s[subsets[u, 0]]
            for c in range(5):
                slot = subsets[u, c]
                key = key * 13 + r[slot]
                if s[slot] != s0:
                    flush = False
            rank_only = flush5[key] if flush else plain5[key]
            kind = rank_only // k5
            rank_key = rank_only - kind * k5
            flush_suit = suit_values[s0] if (suit_first and flush) else 0
            top_suit = 0
            if tiebreak:
                top = top5[key]
                top_suit = -1
                for c in range(5):
                    slot = subsets[u, c]
                    if r[slot] == top and suit_values[s[slot]] > top_suit:
                        top_suit = suit_values[s[slot]]
            value = ((kind * 4 + flush_suit) * k5 + rank_key) * 4 + top_suit
            strengths[u] = value
            if value > best_value:
                best_value = value
                best = u
        back[h] = best
        best_mid = -1
        best_value = np.int64(-1)
        for t in range(disjoint.shape[1]):
            u = disjoint[best, t]
            if strengths[u] > best_value:
                best_value = strengths[u]
                best_mid = u
        middle[h] = best_mid
    return back, middle


def _greedy_thirteen(game: Game, hands: np.ndarray) -> np.ndarray:
    rules = game.rules
    index = game.split_index
    lookup = split_lookup(index)
    tables = thirteen.rank_tables(rules.wheel)
    back, middle = _greedy13_kernel(
        np.ascontiguousarray(hands, dtype=np.int64), _RANK64, _SUIT64,
        np.ascontiguousarray(index.subsets(5), dtype=np.int64), lookup.disjoint,
        tables["plain5"], tables["flush5"], tables["top5"], rules.suit_values.astype(np.int64),
        rules.flush_compare == "suit_first", bool(rules.suit_tiebreak), np.int64(K5))
    return lookup.action(middle, back, index.row_sizes)


def _greedy_biji(game: Game, hands: np.ndarray) -> np.ndarray:
    index = game.split_index
    lookup = split_lookup(index)
    subsets = index.subsets(3).astype(np.intp)
    strengths = biji.group_strengths(hands[:, subsets].reshape(-1, 3), game.rules).reshape(len(hands), -1)
    rows = np.arange(len(hands))
    last = np.argmax(strengths, axis=1)
    candidates = lookup.disjoint[last]
    middle = candidates[rows, np.argmax(strengths[rows[:, None], candidates], axis=1)]
    return lookup.action(middle, last, index.row_sizes)


def greedy_actions(game: Game, hands: np.ndarray) -> np.ndarray:
    """The greedy split (:func:`~splitpoker.agents.baselines.greedy_index`) of every hand of a
    batch: ``hands`` (H, hand size) card ids in slot order → (H,) split indices."""
    hands = np.asarray(hands, dtype=np.int64)
    if hands.ndim != 2 or hands.shape[1] != game.hand_size:
        raise ValueError(f"hands of shape {hands.shape} are not a batch of {game.hand_size}-card {game.name} hands")
    if len(hands) == 0:
        return np.empty(0, dtype=np.int64)
    return _greedy_thirteen(game, hands) if game.name == "thirteen" else _greedy_biji(game, hands)


# ----------------------------------------------------------------------------- Thirteen specials

_STRAIGHTS3 = [(12, 0, 1)] + [(r, r + 1, r + 2) for r in range(11)]
_STRAIGHTS5 = [(12, 0, 1, 2, 3)] + [tuple(range(r, r + 5)) for r in range(9)]
_THREE_FLUSH_SHAPES = np.array([(13, 0, 0, 0), (10, 3, 0, 0), (8, 5, 0, 0), (5, 5, 3, 0)], dtype=np.int64)
_BASE5 = 5 ** np.arange(13, dtype=np.int64)


@cache
def _three_straight_keys() -> np.ndarray:
    """Rank-count keys (base 5, rank r digit r) of every 13-card hand that is three straights."""
    keys = set()
    for s3 in _STRAIGHTS3:
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


def thirteen_special_values(hands: np.ndarray, rules: thirteen.ThirteenRules) -> np.ndarray:
    """The special-hand value (``special_hand(hand, rules)[1]``) of every 13-card hand of a
    batch ``(H, 13)``; 0 where none qualifies."""
    table = thirteen.SPECIAL_VALUES[rules.specials]
    hands = np.asarray(hands, dtype=np.int64)
    out = np.zeros(len(hands), dtype=np.int64)
    if not table or len(hands) == 0:
        return out
    ranks, suits = _RANK64[hands], _SUIT64[hands]
    counts = (ranks[:, :, None] == np.arange(13)).sum(axis=1)
    suit_counts = (suits[:, :, None] == np.arange(4)).sum(axis=1)
    shape = -np.sort(-suit_counts, axis=1)
    three_flushes = (shape[:, None, :] == _THREE_FLUSH_SHAPES[None]).all(axis=2).any(axis=1)
    dragon = (counts > 0).all(axis=1)
    one_suit = suit_counts.max(axis=1) == 13
    held = {
        "clean_dragon": dragon & one_suit,
        "dragon": dragon & ~one_suit,
        "six_pairs": (counts // 2).sum(axis=1) == 6,
        "three_flushes": three_flushes,
        "three_straights": np.isin(counts @ _BASE5, _three_straight_keys()),
        "four_trips": (counts // 3).sum(axis=1) == 4,
        "one_colour": np.isin(suits, (0, 3)).all(axis=1) | np.isin(suits, (1, 2)).all(axis=1),
        "all_small": ranks.max(axis=1) <= 6,
        "all_big": ranks.min(axis=1) >= 6,
        "three_fours": (counts // 4).sum(axis=1) == 3,
        "royals": ranks.min(axis=1) >= 9,
    }
    if "three_straight_flushes" in table:
        card_masks = (np.int64(1) << hands).sum(axis=1)
        held["three_straight_flushes"] = three_flushes & np.isin(card_masks, _three_straight_flush_masks())
    for name, value in table.items():
        out = np.maximum(out, np.where(held[name], value, 0))
    return out


# ----------------------------------------------------------------------------- Biji bonuses

def biji_hand_xi(arrangements: np.ndarray, strengths: np.ndarray, rules: biji.BijiRules) -> np.ndarray:
    """喜 every arrangement holds without the sweep (通锅, which depends on the table):
    ``arrangements`` (H, 9) card ids pot by pot, ``strengths`` (H, 3) → (H,) 喜 counts."""
    not_first = np.full(strengths.shape, 2, dtype=np.int64)
    return biji.xi_table(arrangements, strengths, not_first, rules).sum(axis=1)


# ----------------------------------------------------------------------------- bit sets

def pack_bits(flags: np.ndarray) -> np.ndarray:
    """Boolean array (..., B) with B a multiple of 64 → uint64 words (..., B // 64)."""
    packed = np.packbits(flags, axis=-1, bitorder="little")
    return np.ascontiguousarray(packed).view(np.uint64)


def popcount_rows(words: np.ndarray) -> np.ndarray:
    """Set bits per row of a (..., W) uint64 array → (...,) int64."""
    return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)
