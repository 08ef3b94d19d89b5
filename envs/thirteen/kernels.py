"""Compiled kernels of Thirteen: the strongest back and middle rows of many hands at once
(what the greedy agent and the solver's greedy opponent model play), and the value of every
split for the heuristic agent (:mod:`.heuristic`). The heuristic's best split is searched back
row by back row, passing over the backs whose splits a bound shows cannot beat the best
found (:func:`_best_by_back`): about 60 of the 1,287 on average on random classic hands.

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
from ..reference import ReferenceRows, search_tables
from ..splits import THIRTEEN
from ..strength import disjoint_subsets
from .rules import K5, ThirteenRules, pack_strength, rank_tables
from .scoring import MAJORITY_SCORING

_RANK64 = RANK.astype(np.int64)
_SUIT64 = SUIT.astype(np.int64)
_pack = njit(cache=True)(pack_strength)
_SUBSETS3 = np.ascontiguousarray(THIRTEEN.subsets(3), dtype=np.int64)
_SUBSETS5 = np.ascontiguousarray(THIRTEEN.subsets(5), dtype=np.int64)
#: the reference rows are searched in buckets of 2**_SHIFT strengths (about 50 at most in one)
_SHIFT = 9


@njit(cache=True)
def _strengths3(r: np.ndarray, s: np.ndarray, subsets: np.ndarray, plain: np.ndarray, top: np.ndarray,
                suit_values: np.ndarray, tiebreak: bool, k5: np.int64, strengths: np.ndarray,
                rank_only: np.ndarray) -> None:  # pragma: no cover - compiled
    """Strengths (as ``rules.row_strengths``) and rank-only strengths of the 3-card rows
    ``subsets`` (slots) of one hand whose slots have ranks ``r`` and suits ``s`` (a 3-card
    row is never a flush)."""
    for u in range(subsets.shape[0]):
        key = np.int64(0)
        for c in range(3):
            key = key * 13 + r[subsets[u, c]]
        value = plain[key]
        kind = value // k5
        top_suit = 0
        if tiebreak:
            high = top[key]
            top_suit = -1
            for c in range(3):
                slot = subsets[u, c]
                if r[slot] == high and suit_values[s[slot]] > top_suit:
                    top_suit = suit_values[s[slot]]
        strengths[u] = _pack(kind, 0, value - kind * k5, top_suit)
        rank_only[u] = value


@njit(cache=True)
def _strongest5(hands: np.ndarray, ranks_of: np.ndarray, suits_of: np.ndarray, subsets: np.ndarray,
                disjoint: np.ndarray, plain5: np.ndarray, flush5: np.ndarray, top5: np.ndarray,
                suit_values: np.ndarray, suit_first: bool, tiebreak: bool,
                k5: np.int64) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Per hand: the id of the strongest 5-card subset (first of equals), then of the strongest
    5-card subset disjoint from it. Strengths as in ``rules.row_strengths``.

    The subsets are visited in id order (:func:`itertools.combinations` order) by five nested
    loops that carry each prefix's rank key and suit, so a subset costs one step of each; the
    suit parts of a strength (the flush's suit, the top card's suit) are read only for a
    subset whose type and ranks could reach the strongest found so far."""
    n_hands = hands.shape[0]
    back = np.empty(n_hands, np.int64)
    middle = np.empty(n_hands, np.int64)
    lowest = np.int64(-1) << np.int64(62)
    for h in range(n_hands):
        r = ranks_of[hands[h]]
        s = suits_of[hands[h]]
        best = lowest
        best_coarse = lowest
        best_value = lowest
        best_id = np.int64(-1)
        u = np.int64(0)
        for a in range(9):
            ka = r[a]
            for b in range(a + 1, 10):
                kb = ka * 13 + r[b]
                fb = s[b] == s[a]
                for c in range(b + 1, 11):
                    kc = kb * 13 + r[c]
                    fc = fb and s[c] == s[a]
                    for d in range(c + 1, 12):
                        kd = kc * 13 + r[d]
                        fd = fc and s[d] == s[a]
                        for e in range(d + 1, 13):
                            key = kd * 13 + r[e]
                            is_flush = fd and s[e] == s[a]
                            value = flush5[key] if is_flush else plain5[key]
                            # without a flush's suit in the strength, the coarse strength below
                            # orders as the value: a lower value cannot win
                            if suit_first or value >= best_value:
                                kind = value // k5
                                flush_suit = suit_values[s[a]] if (suit_first and is_flush) else 0
                                # the strength without its top suit: a lower one cannot win
                                coarse = (kind * 4 + flush_suit) * k5 + value - kind * k5
                                if coarse >= best_coarse:
                                    top_suit = 0
                                    if tiebreak:
                                        high = top5[key]
                                        top_suit = -1
                                        for slot in (a, b, c, d, e):
                                            if r[slot] == high and suit_values[s[slot]] > top_suit:
                                                top_suit = suit_values[s[slot]]
                                    strength = coarse * 4 + top_suit
                                    if strength > best:
                                        best = strength
                                        best_coarse = coarse
                                        best_value = value
                                        best_id = u
                            u += 1
        back[h] = best_id
        # the strongest middle row of the other 8 cards (first of equals); as above, a row of a
        # lower value cannot win unless a flush's suit counts first
        best_mid = -1
        best_strength = np.int64(-1)
        mid_value = lowest
        for t in range(disjoint.shape[1]):
            m = disjoint[best_id, t]
            key = np.int64(0)
            is_flush = True
            s0 = s[subsets[m, 0]]
            for c in range(5):
                slot = subsets[m, c]
                key = key * 13 + r[slot]
                if s[slot] != s0:
                    is_flush = False
            value = flush5[key] if is_flush else plain5[key]
            if suit_first or value >= mid_value:  # its strength, as _strengths5 computes it
                kind = value // k5
                flush_suit = suit_values[s0] if (suit_first and is_flush) else 0
                top_suit = 0
                if tiebreak:
                    high = top5[key]
                    top_suit = -1
                    for c in range(5):
                        slot = subsets[m, c]
                        if r[slot] == high and suit_values[s[slot]] > top_suit:
                            top_suit = suit_values[s[slot]]
                strength = _pack(kind, flush_suit, value - kind * k5, top_suit)
                if strength > best_strength:
                    best_strength = strength
                    best_mid = m
                    mid_value = value
        middle[h] = best_mid
    return back, middle


def strongest_rows(hands: np.ndarray, rules: ThirteenRules) -> tuple[np.ndarray, np.ndarray]:
    """Per 13-card hand ``(H, 13)`` in slot order: the subset id of the strongest back row
    (first of equals) and of the strongest middle row disjoint from it."""
    return _strongest5(np.ascontiguousarray(hands, dtype=np.int64), _RANK64, _SUIT64, _SUBSETS5,
                       disjoint_subsets(THIRTEEN), *_rule_arrays(rules)[2:])


@njit(cache=True)
def _strengths5(r: np.ndarray, s: np.ndarray, plain: np.ndarray, flush: np.ndarray, top: np.ndarray,
                suit_values: np.ndarray, suit_first: bool, tiebreak: bool, k5: np.int64, strengths: np.ndarray,
                rank_only: np.ndarray) -> None:  # pragma: no cover - compiled
    """Strengths (as ``rules.row_strengths``) and rank-only strengths of the 1,287 five-card
    subsets of one 13-card hand (ranks ``r``, suits ``s`` by slot), visited in id order
    (:func:`itertools.combinations` order) by five nested loops that carry each prefix's rank
    key and whether its suits agree, so that a subset costs one step of each."""
    u = 0
    for a in range(9):
        ka = r[a]
        for b in range(a + 1, 10):
            kb = ka * 13 + r[b]
            fb = s[b] == s[a]
            for c in range(b + 1, 11):
                kc = kb * 13 + r[c]
                fc = fb and s[c] == s[a]
                for d in range(c + 1, 12):
                    kd = kc * 13 + r[d]
                    fd = fc and s[d] == s[a]
                    for e in range(d + 1, 13):
                        key = kd * 13 + r[e]
                        is_flush = fd and s[e] == s[a]
                        value = flush[key] if is_flush else plain[key]
                        kind = value // k5
                        flush_suit = suit_values[s[a]] if (suit_first and is_flush) else 0
                        top_suit = 0
                        if tiebreak:
                            high = top[key]
                            top_suit = -1
                            for slot in (a, b, c, d, e):
                                if r[slot] == high and suit_values[s[slot]] > top_suit:
                                    top_suit = suit_values[s[slot]]
                        strengths[u] = _pack(kind, flush_suit, value - kind * k5, top_suit)
                        rank_only[u] = value
                        u += 1


@njit(cache=True)
def _subset_strengths(hands: np.ndarray, ranks_of: np.ndarray, suits_of: np.ndarray, subsets3: np.ndarray,
                      plain3: np.ndarray, top3: np.ndarray, plain5: np.ndarray,
                      flush5: np.ndarray, top5: np.ndarray, suit_values: np.ndarray, suit_first: bool,
                      tiebreak: bool, k5: np.int64, s3: np.ndarray, r3: np.ndarray, s5: np.ndarray,
                      r5: np.ndarray) -> None:  # pragma: no cover - compiled
    """Per hand: the strengths and rank-only strengths of every 3- and 5-card subset."""
    for h in range(hands.shape[0]):
        r = ranks_of[hands[h]]
        s = suits_of[hands[h]]
        _strengths3(r, s, subsets3, plain3, top3, suit_values, tiebreak, k5, s3[h], r3[h])
        _strengths5(r, s, plain5, flush5, top5, suit_values, suit_first, tiebreak, k5, s5[h], r5[h])


def subset_strengths(hands: np.ndarray, rules: ThirteenRules) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per 13-card hand ``(H, 13)`` in slot order: the strengths (as ``rules.row_strengths``)
    and the rank-only strengths of its 286 three-card and 1,287 five-card subsets:
    ``(strengths3, rank_only3, strengths5, rank_only5)``."""
    hands = np.ascontiguousarray(hands, dtype=np.int64)
    n = len(hands)
    s3, r3 = np.empty((n, len(_SUBSETS3)), np.int64), np.empty((n, len(_SUBSETS3)), np.int64)
    s5, r5 = np.empty((n, len(_SUBSETS5)), np.int64), np.empty((n, len(_SUBSETS5)), np.int64)
    kernel: Any = _subset_strengths
    kernel(hands, _RANK64, _SUIT64, _SUBSETS3, *_rule_arrays(rules), s3, r3, s5, r5)
    return s3, r3, s5, r5


@njit(cache=True)
def _odds(strengths: np.ndarray, kinds: np.ndarray, values: np.ndarray, weaker: np.ndarray, first: np.ndarray,
          distinct: np.int64, shift: np.int64, tails: np.ndarray, royalties: np.ndarray,
          out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Per row: ``v p - G``, ``p``, ``q``, ``G``, ``v`` into ``out`` (rows, 5) (see :mod:`.heuristic`),
    the row found among the reference rows of its position by their
    :func:`~splitpoker.envs.reference.search_tables`."""
    size = weaker[distinct]
    last_bucket = first.shape[0] - 1
    for u in range(strengths.shape[0]):
        x = strengths[u]
        bucket = x >> shift
        if bucket >= last_bucket:
            j = distinct
        else:
            j, hi = first[bucket], first[bucket + 1]
            while j < hi:  # the first distinct strength not below x
                mid = (j + hi) >> 1
                if values[mid] < x:
                    j = mid + 1
                else:
                    hi = mid
        below = weaker[j]
        not_above = weaker[j + 1] if j < distinct and values[j] == x else below
        p = below / size
        g = tails[not_above]
        v = royalties[kinds[u]]
        out[u, 0] = v * p - g
        out[u, 1] = p
        out[u, 2] = 1.0 - not_above / size
        out[u, 3] = g
        out[u, 4] = v


@njit(cache=True)
def _top(values: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """The ids of the ``len(out)`` largest ``values`` into ``out``, in decreasing value."""
    k = out.shape[0]
    n = 0
    for i in range(values.shape[0]):
        x = values[i]
        if n == k and x <= values[out[k - 1]]:
            continue
        j = n if n < k else k - 1
        while j > 0 and values[out[j - 1]] < x:
            out[j] = out[j - 1]
            j -= 1
        out[j] = i
        if n < k:
            n += 1


@njit(cache=True)
def _best_avoiding(values: np.ndarray, top: np.ndarray, masks: np.ndarray,
                   taken: np.int64) -> float:  # pragma: no cover - compiled
    """The highest value of a subset whose cards (bits ``masks``) avoid the cards ``taken``,
    or, when none of the ``top`` subsets does, an upper bound of it: the last one's value."""
    for i in range(top.shape[0]):
        if not masks[top[i]] & taken:
            return values[top[i]]
    return values[top[top.shape[0] - 1]]


@njit(cache=True)
def _caps(rows: np.ndarray, kinds: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Over the rows of each kind or a lower one (``rows`` as :func:`_odds` writes them), into
    ``out`` (kinds, 5): the highest ``v p - G``, the highest ``p``, the lowest ``q``, the
    lowest ``G``, the highest ``v``."""
    out[:, 0] = -np.inf
    out[:, 1] = -np.inf
    out[:, 2] = np.inf
    out[:, 3] = np.inf
    out[:, 4] = -np.inf
    for u in range(rows.shape[0]):
        k = kinds[u]
        out[k, 0] = max(out[k, 0], rows[u, 0])
        out[k, 1] = max(out[k, 1], rows[u, 1])
        out[k, 2] = min(out[k, 2], rows[u, 2])
        out[k, 3] = min(out[k, 3], rows[u, 3])
        out[k, 4] = max(out[k, 4], rows[u, 4])
    for k in range(1, out.shape[0]):
        for c in (0, 1, 4):
            out[k, c] = max(out[k, c], out[k - 1, c])
        for c in (2, 3):
            out[k, c] = min(out[k, c], out[k - 1, c])


@njit(cache=True, inline="always")
def _majority_step(dist: np.ndarray, step: np.ndarray, p: float, q: float) -> None:  # pragma: no cover - compiled
    """One more row into the distribution of rows won minus rows lost (shifted by 3)."""
    t = 1.0 - p - q
    for d in range(7):
        step[d] = dist[d] * t + (dist[d - 1] * p if d > 0 else 0.0) + (dist[d + 1] * q if d < 6 else 0.0)
    dist[:] = step


@njit(cache=True, inline="always")
def _add_nonlinear(value: float, f: np.ndarray, m: np.ndarray, b: np.ndarray, scoop: bool, majority: bool,
                   dist: np.ndarray, step: np.ndarray) -> float:  # pragma: no cover - compiled
    """``value`` plus the scoop and majority terms (:mod:`.heuristic`) of rows whose ``p``,
    ``q``, ``G``, ``v`` are ``f[1:5]``, ``m[1:5]``, ``b[1:5]``. Each term grows with the rows'
    ``p`` and ``v`` and falls with their ``q`` and ``G``, so the same function bounds it."""
    if scoop:
        value += f[1] * m[1] * b[1] * (f[4] + m[4] + b[4]) \
            - (f[3] * m[2] * b[2] + f[2] * m[3] * b[2] + f[2] * m[2] * b[3])
    if majority:
        dist[:] = 0.0
        dist[3] = 1.0
        _majority_step(dist, step, f[1], f[2])
        _majority_step(dist, step, m[1], m[2])
        _majority_step(dist, step, b[1], b[2])
        value += dist[4] + dist[5] + dist[6] - dist[0] - dist[1] - dist[2]
    return value


#: what a bound is allowed to fall short of the value it bounds by rounding
_SLACK = 1e-9


@njit(cache=True)
def _best_by_back(front: np.ndarray, middle: np.ndarray, back: np.ndarray, ro3: np.ndarray, ro5: np.ndarray,
                  kinds3: np.ndarray, kinds5: np.ndarray, middle_of: np.ndarray, repeat: int, by_back: np.ndarray,
                  masks3: np.ndarray, masks5: np.ndarray, scoop: bool, majority: bool,
                  work: tuple[np.ndarray, ...]) -> int:  # pragma: no cover - compiled
    """The valid split of highest value (the lowest index of equals), rows as :func:`_odds`
    writes them. The splits of a back row are scanned only when a bound of their values
    reaches the best split found, the strongest backs first. The bound takes for the front
    and the middle the lower of the best value of a row avoiding the back's cards and of a row
    of the back's kind or lower (a valid split never has a middle or a front of a higher kind
    than its back), and the scoop and majority terms of the best ``p``, ``q``, ``G``, ``v`` of
    a row of the back's kind or lower."""
    front_value, middle_value, back_value, top_fronts, top_middles, top_backs, front_cap, middle_cap, dist, step = work
    front_value[:] = front[:, 0]
    middle_value[:] = middle[:, 0]
    back_value[:] = back[:, 0]
    _top(front_value, top_fronts)
    _top(middle_value, top_middles)
    _top(back_value, top_backs)
    _caps(front, kinds3, front_cap)
    _caps(middle, kinds5, middle_cap)
    best_value = -np.inf
    best_action = -1
    n_top = top_backs.shape[0]
    for i in range(n_top + back_value.shape[0]):
        if i < n_top:
            b = top_backs[i]
        else:
            b = i - n_top
            seen = False
            for j in range(n_top):
                seen |= top_backs[j] == b
            if seen:
                continue
        taken = masks5[b]
        kind = kinds5[b]
        bound = min(_best_avoiding(front_value, top_fronts, masks3, taken), front_cap[kind, 0]) \
            + min(_best_avoiding(middle_value, top_middles, masks5, taken), middle_cap[kind, 0]) + back_value[b]
        if scoop or majority:
            bound = _add_nonlinear(bound, front_cap[kind], middle_cap[kind], back[b], scoop, majority, dist, step)
        if bound + _SLACK < best_value:
            continue
        back_rank = ro5[b]
        for t in range(by_back.shape[1]):
            a = by_back[b, t]
            m = middle_of[a]
            f = a // repeat
            if ro3[f] > ro5[m] or ro5[m] > back_rank:
                continue
            value = front_value[f] + middle_value[m] + back_value[b]
            if scoop or majority:
                value = _add_nonlinear(value, front[f], middle[m], back[b], scoop, majority, dist, step)
            if value > best_value or (value == best_value and a < best_action):
                best_value = value
                best_action = a
    return best_action


@njit(cache=True)
def _heuristic_values(hands: np.ndarray, ranks_of: np.ndarray, suits_of: np.ndarray, subsets3: np.ndarray,
                      subsets5: np.ndarray, middle_of: np.ndarray, back_of: np.ndarray, by_back: np.ndarray,
                      masks3: np.ndarray, masks5: np.ndarray, plain3: np.ndarray,
                      top3: np.ndarray, plain5: np.ndarray, flush5: np.ndarray, top5: np.ndarray,
                      suit_values: np.ndarray, suit_first: bool, tiebreak: bool, k5: np.int64,
                      values: np.ndarray, weaker: np.ndarray, first: np.ndarray, distinct: np.ndarray,
                      shift: np.int64, tails: np.ndarray, royalties: np.ndarray, scoop: bool,
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
    n_kinds = royalties.shape[1]
    work = (np.empty(n_front), np.empty(n_five), np.empty(n_five), np.empty(8, np.int64), np.empty(8, np.int64),
            np.empty(4, np.int64), np.empty((n_kinds, 5)), np.empty((n_kinds, 5)), np.empty(7), np.empty(7))
    dist, step = work[8], work[9]
    for h in range(hands.shape[0]):
        r = ranks_of[hands[h]]
        s = suits_of[hands[h]]
        _strengths3(r, s, subsets3, plain3, top3, suit_values, tiebreak, k5, s3, ro3)
        _strengths5(r, s, plain5, flush5, top5, suit_values, suit_first, tiebreak, k5, s5, ro5)
        kinds3 = ro3 // k5
        kinds5 = ro5 // k5
        _odds(s3, kinds3, values[0], weaker[0], first[0], distinct[0], shift, tails[0], royalties[0], front)
        _odds(s5, kinds5, values[1], weaker[1], first[1], distinct[1], shift, tails[1], royalties[1], middle)
        _odds(s5, kinds5, values[2], weaker[2], first[2], distinct[2], shift, tails[2], royalties[2], back)
        if not keep:  # search by bounds
            best[h] = _best_by_back(front, middle, back, ro3, ro5, kinds3, kinds5, middle_of, repeat, by_back,
                                    masks3, masks5, scoop, majority, work)
            continue
        best_value = -np.inf
        best_action = -1
        for a in range(middle_of.shape[0]):
            f = a // repeat
            m = middle_of[a]
            b = back_of[a]
            if ro3[f] > ro5[m] or ro5[m] > ro5[b]:
                out[h, a] = -np.inf
                continue
            value = front[f, 0] + middle[m, 0] + back[b, 0]
            if scoop or majority:
                value = _add_nonlinear(value, front[f], middle[m], back[b], scoop, majority, dist, step)
            out[h, a] = value
            if value > best_value:
                best_value = value
                best_action = a
        best[h] = best_action


def heuristic_values(hands: np.ndarray, rules: ThirteenRules, reference: ReferenceRows, tails: np.ndarray,
                     royalties: np.ndarray, values: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """The heuristic's best split of hands ``(H, 13)`` and, when ``values``, the value of
    every split (:func:`.heuristic.split_values`): ``reference`` the reference rows,
    ``tails`` (3, M + 1) their row values as
    :meth:`~splitpoker.envs.reference.ReferenceRows.tail_sums`, ``royalties`` (3, 9) float."""
    best = np.empty(len(hands), dtype=np.int64)
    out = np.empty((len(hands) if values else 0, THIRTEEN.n_actions))
    kernel: Any = _heuristic_values
    kernel(np.ascontiguousarray(hands, dtype=np.int64), _RANK64, _SUIT64, _SUBSETS3, _SUBSETS5,
           *_columns32(), *_by_back(),
           *_rule_arrays(rules), *search_tables(reference, _SHIFT), np.int64(_SHIFT), tails, royalties,
           rules.scoop == "double", rules.scoring in MAJORITY_SCORING,
           best, out)
    return best, out if values else None


@cache
def _rule_arrays(rules: ThirteenRules) -> tuple[Any, ...]:
    """The kernel's arguments that depend on the rules alone: rank tables, suit values, switches."""
    tables = rank_tables(rules.wheel, rules.rank_compare)
    return (tables["plain3"], tables["top3"], tables["plain5"], tables["flush5"], tables["top5"],
            rules.suit_values.astype(np.int64), rules.flush_compare == "suit_first", bool(rules.suit_tiebreak),
            np.int64(K5))


@cache
def _columns32() -> tuple[np.ndarray, np.ndarray]:
    """The middle and back rows' subset ids of every split, as int32."""
    from ..strength import split_columns

    columns = split_columns(THIRTEEN)
    return columns[1].astype(np.int32), columns[2].astype(np.int32)


@cache
def _by_back() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The splits of each back row, ``(1287, 56)`` split ids in increasing order, and the
    cards of every 3- and 5-card subset as bits of the slots."""
    from ..strength import split_columns

    back = split_columns(THIRTEEN)[2]
    order = np.argsort(back, kind="stable").astype(np.int32)
    by_back = np.ascontiguousarray(order.reshape(_SUBSETS5.shape[0], -1))
    return by_back, THIRTEEN.subset_masks(3), THIRTEEN.subset_masks(5)
