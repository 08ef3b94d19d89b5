"""Compiled kernels of Thirteen: the strongest back and middle rows of many hands at once
(what the greedy agent and the solver's greedy opponent model play).

The row strength is the rules' own: the kernel reads the rules' rank tables
(:func:`.rules.rank_tables`) and packs strengths with :func:`.rules.pack_strength`, compiled
here by numba; the tests check it against :func:`splitpoker.envs.strength.strongest_rows`
over :func:`.rules.row_strengths`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import RANK, SUIT
from ..splits import THIRTEEN
from ..strength import disjoint_subsets
from .rules import K5, ThirteenRules, pack_strength, rank_tables

_RANK64 = RANK.astype(np.int64)
_SUIT64 = SUIT.astype(np.int64)
_pack = njit(cache=True)(pack_strength)
_SUBSETS5 = np.ascontiguousarray(THIRTEEN.subsets(5), dtype=np.int64)


@njit(cache=True)
def _strongest5(hands: np.ndarray, ranks_of: np.ndarray, suits_of: np.ndarray, subsets: np.ndarray,
                disjoint: np.ndarray, plain5: np.ndarray, flush5: np.ndarray, top5: np.ndarray,
                suit_values: np.ndarray, suit_first: bool, tiebreak: bool,
                k5: np.int64) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Per hand: the id of the strongest 5-card subset (first of equals), then of the strongest
    5-card subset disjoint from it. Strengths as in ``rules.row_strengths``."""
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
            value = _pack(kind, flush_suit, rank_key, top_suit)
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


def strongest_rows(hands: np.ndarray, rules: ThirteenRules) -> tuple[np.ndarray, np.ndarray]:
    """Per 13-card hand ``(H, 13)`` in slot order: the subset id of the strongest back row
    (first of equals) and of the strongest middle row disjoint from it."""
    tables = rank_tables(rules.wheel)
    return _strongest5(
        np.ascontiguousarray(hands, dtype=np.int64), _RANK64, _SUIT64,
        _SUBSETS5, disjoint_subsets(THIRTEEN),
        tables["plain5"], tables["flush5"], tables["top5"], rules.suit_values.astype(np.int64),
        rules.flush_compare == "suit_first", bool(rules.suit_tiebreak), np.int64(K5))

