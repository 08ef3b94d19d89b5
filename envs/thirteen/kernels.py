"""Compiled kernels of Thirteen: the strongest back and middle rows of many hands at once
(what the greedy agent and the solver's greedy opponent model play), and the value of every
split for the heuristic agent (:mod:`.heuristic`).

The row strength is the rules' own: the kernel reads the rules' rank tables
(:func:`.rules.rank_tables`) and packs strengths with :func:`.rules.pack_strength`, compiled
here by numba; the tests check it against :func:`splitpoker.envs.strength.strongest_rows`
over :func:`.rules.row_strengths`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from numba import njit

from ..cards import RANK, SUIT
from ..splits import THIRTEEN
from ..strength import disjoint_subsets
from .rules import K5, ThirteenRules, pack_strength, rank_tables

_RANK64 = RANK.astype(np.int64)
_SUIT64 = SUIT.astype(np.int64)
_pack = njit(cache=True)(pack_strength)
_SUBSETS3 = np.ascontiguousarray(THIRTEEN.subsets(3), dtype=np.int64)
_SUBSETS5 = np.ascontiguousarray(THIRTEEN.subsets(5), dtype=np.int64)


@njit(cache=True)
def _row_strengths(r: np.ndarray, s: np.ndarray, subsets: np.ndarray, plain: np.ndarray, flush: np.ndarray,
                   top: np.ndarray, suit_values: np.ndarray, suit_first: bool, tiebreak: bool, k5: np.int64,
                   strengths: np.ndarray, rank_only: np.ndarray) -> None:  # pragma: no cover - compiled
    """Strengths (as ``rules.row_strengths``) and rank-only strengths of the rows ``subsets``
    (slots) of one hand whose slots have ranks ``r`` and suits ``s``. Rows of 3 cards are
    never flushes (``flush`` is not read)."""
    size = subsets.shape[1]
    for u in range(subsets.shape[0]):
        key = np.int64(0)
        is_flush = size == 5
        s0 = s[subsets[u, 0]]
        for c in range(size):
            slot = subsets[u, c]
            key = key * 13 + r[slot]
            if s[slot] != s0:
                is_flush = False
        value = flush[key] if is_flush else plain[key]
        kind = value // k5
        flush_suit = suit_values[s0] if (suit_first and is_flush) else 0
        top_suit = 0
        if tiebreak:
            high = top[key]
            top_suit = -1
            for c in range(size):
                slot = subsets[u, c]
                if r[slot] == high and suit_values[s[slot]] > top_suit:
                    top_suit = suit_values[s[slot]]
        strengths[u] = _pack(kind, flush_suit, value - kind * k5, top_suit)
        rank_only[u] = value


@njit(cache=True)
def _strongest5(hands: np.ndarray, ranks_of: np.ndarray, suits_of: np.ndarray, subsets: np.ndarray,
                disjoint: np.ndarray, plain5: np.ndarray, flush5: np.ndarray, top5: np.ndarray,
                suit_values: np.ndarray, suit_first: bool, tiebreak: bool,
                k5: np.int64) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Per hand: the id of the strongest 5-card subset (first of equals), then of the strongest
    5-card subset disjoint from it. Strengths as in ``rules.row_strengths``."""
    n_hands = hands.shape[0]
    back = np.empty(n_hands, np.int64)
    middle = np.empty(n_hands, np.int64)
    strengths = np.empty(subsets.shape[0], np.int64)
    rank_only = np.empty(subsets.shape[0], np.int64)
    for h in range(n_hands):
        r = ranks_of[hands[h]]
        s = suits_of[hands[h]]
        _row_strengths(r, s, subsets, plain5, flush5, top5, suit_values, suit_first, tiebreak, k5,
                       strengths, rank_only)
        best = np.int64(np.argmax(strengths))
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


@njit(cache=True)
def _count_below(reference: np.ndarray, value: np.int64) -> int:  # pragma: no cover - compiled
    """How many of the sorted ``reference`` are below ``value``."""
    lo, hi = 0, reference.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if reference[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _odds(strengths: np.ndarray, kinds: np.ndarray, reference: np.ndarray, tails: np.ndarray,
          royalties: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Per row: ``v p - G``, ``p``, ``q``, ``G``, ``v`` into ``out`` (rows, 5) (see :mod:`.heuristic`)."""
    size = reference.shape[0]
    for u in range(strengths.shape[0]):
        below = _count_below(reference, strengths[u])
        not_above = below
        while not_above < size and reference[not_above] == strengths[u]:
            not_above += 1
        p = below / size
        g = tails[not_above]
        v = royalties[kinds[u]]
        out[u, 0] = v * p - g
        out[u, 1] = p
        out[u, 2] = 1.0 - not_above / size
        out[u, 3] = g
        out[u, 4] = v


@njit(cache=True)
def _heuristic_values(hands: np.ndarray, ranks_of: np.ndarray, suits_of: np.ndarray, subsets3: np.ndarray,
                      subsets5: np.ndarray, middle_of: np.ndarray, back_of: np.ndarray, plain3: np.ndarray,
                      top3: np.ndarray, plain5: np.ndarray, flush5: np.ndarray, top5: np.ndarray,
                      suit_values: np.ndarray, suit_first: bool, tiebreak: bool, k5: np.int64,
                      reference: np.ndarray, tails: np.ndarray, royalties: np.ndarray, scoop: bool,
                      majority: bool, best: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """The best split of every hand into ``best`` (H,) (the first of equal values) and, when
    ``out`` has a row per hand, the value of every split into ``out`` (H, 72072)."""
    keep = out.shape[0] > 0
    n_front, n_five = subsets3.shape[0], subsets5.shape[0]
    repeat = middle_of.shape[0] // n_front
    s3 = np.empty(n_front, np.int64)
    ro3 = np.empty(n_front, np.int64)
    s5 = np.empty(n_five, np.int64)
    ro5 = np.empty(n_five, np.int64)
    front = np.empty((n_front, 5))
    middle = np.empty((n_five, 5))
    back = np.empty((n_five, 5))
    p = np.empty(3)
    q = np.empty(3)
    g = np.empty(3)
    v = np.empty(3)
    dist = np.empty(7)
    step = np.empty(7)
    for h in range(hands.shape[0]):
        r = ranks_of[hands[h]]
        s = suits_of[hands[h]]
        _row_strengths(r, s, subsets3, plain3, plain3, top3, suit_values, suit_first, tiebreak, k5, s3, ro3)
        _row_strengths(r, s, subsets5, plain5, flush5, top5, suit_values, suit_first, tiebreak, k5, s5, ro5)
        _odds(s3, ro3 // k5, reference[0], tails[0], royalties[0], front)
        _odds(s5, ro5 // k5, reference[1], tails[1], royalties[1], middle)
        _odds(s5, ro5 // k5, reference[2], tails[2], royalties[2], back)
        middle_value = np.ascontiguousarray(middle[:, 0])
        back_value = np.ascontiguousarray(back[:, 0])
        best_value = -np.inf
        best_action = -1
        # fronts in decreasing value: without the nonlinear terms, once a front's value plus
        # the best middle and back values cannot reach the best split found, no later one can
        bound = middle_value.max() + back_value.max()
        prune = not (keep or scoop or majority)
        for f in np.argsort(-front[:, 0], kind="mergesort"):
            front_value = front[f, 0]
            if prune and front_value + bound < best_value:
                break
            front_rank = ro3[f]
            if prune:  # the values add up: the best valid split of this front, value first
                for a in range(f * repeat, (f + 1) * repeat):
                    m = middle_of[a]
                    b = back_of[a]
                    value = front_value + middle_value[m] + back_value[b]
                    if (value > best_value or (value == best_value and a < best_action)) \
                            and front_rank <= ro5[m] and ro5[m] <= ro5[b]:
                        best_value = value
                        best_action = a
                continue
            for a in range(f * repeat, (f + 1) * repeat):
                m = middle_of[a]
                b = back_of[a]
                if front_rank > ro5[m] or ro5[m] > ro5[b]:
                    if keep:
                        out[h, a] = -np.inf
                    continue
                value = front_value + middle_value[m] + back_value[b]
                if scoop or majority:
                    p[0], q[0], g[0], v[0] = front[f, 1], front[f, 2], front[f, 3], front[f, 4]
                    p[1], q[1], g[1], v[1] = middle[m, 1], middle[m, 2], middle[m, 3], middle[m, 4]
                    p[2], q[2], g[2], v[2] = back[b, 1], back[b, 2], back[b, 3], back[b, 4]
                if scoop:
                    value += p[0] * p[1] * p[2] * (v[0] + v[1] + v[2]) \
                        - (g[0] * q[1] * q[2] + q[0] * g[1] * q[2] + q[0] * q[1] * g[2])
                if majority:
                    dist[:] = 0.0
                    dist[3] = 1.0  # rows won minus rows lost, shifted by 3
                    for k in range(3):
                        t = 1.0 - p[k] - q[k]
                        for d in range(7):
                            step[d] = dist[d] * t + (dist[d - 1] * p[k] if d > 0 else 0.0) \
                                + (dist[d + 1] * q[k] if d < 6 else 0.0)
                        dist[:] = step
                    value += dist[4] + dist[5] + dist[6] - dist[0] - dist[1] - dist[2]
                if keep:
                    out[h, a] = value
                if value > best_value or (value == best_value and a < best_action):
                    best_value = value
                    best_action = a
        best[h] = best_action


def heuristic_values(hands: np.ndarray, rules: ThirteenRules, reference: np.ndarray, tails: np.ndarray,
                     royalties: np.ndarray, values: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """The heuristic's best split of hands ``(H, 13)`` and, when ``values``, the value of
    every split (:func:`.heuristic.split_values`): ``reference`` (3, M) sorted strengths,
    ``tails`` (3, M + 1) their row values as
    :meth:`~splitpoker.envs.reference.ReferenceRows.tail_sums`, ``royalties`` (3, 9) float."""
    best = np.empty(len(hands), dtype=np.int64)
    out = np.empty((len(hands) if values else 0, THIRTEEN.n_actions))
    kernel: Any = _heuristic_values
    kernel(np.ascontiguousarray(hands, dtype=np.int64), _RANK64, _SUIT64, _SUBSETS3, _SUBSETS5, *_columns32(),
           *_rule_arrays(rules), reference, tails, royalties, rules.scoop == "double", rules.scoring == "two_four",
           best, out)
    return best, out if values else None


@cache
def _rule_arrays(rules: ThirteenRules) -> tuple[Any, ...]:
    """The kernel's arguments that depend on the rules alone: rank tables, suit values, switches."""
    tables = rank_tables(rules.wheel)
    return (tables["plain3"], tables["top3"], tables["plain5"], tables["flush5"], tables["top5"],
            rules.suit_values.astype(np.int64), rules.flush_compare == "suit_first", bool(rules.suit_tiebreak),
            np.int64(K5))


@cache
def _columns32() -> tuple[np.ndarray, np.ndarray]:
    """The middle and back rows' subset ids of every split, as int32."""
    from ..strength import split_columns

    columns = split_columns(THIRTEEN)
    return columns[1].astype(np.int32), columns[2].astype(np.int32)
