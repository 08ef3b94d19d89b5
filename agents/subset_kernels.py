"""Compiled kernels of the split scorer's first layer: every 3-card and 5-card subset of a
hand's slots gets a hidden vector from its cards and its shape.

The layer is ``relu(base + sum_p projected[p, slot_p] + shape @ weight)`` per subset: the
part linear in the cards is a sum of per-card projections (one per position in the subset),
the shape features (count profile, one suit, full straight windows) are few and mostly
zero. Built from tensors, the sum over positions is a dense product with the subsets'
incidence matrix (1,287 x 65 for Thirteen's 5-card subsets) and the hidden layer is written
three times; :func:`subset_hidden` reads each card's projection through the subset table,
computes the shape features on the way and writes each hidden vector once, and
:func:`subset_hidden_gradients` is its backward pass. :func:`subset_layer` is the same layer
from the parameters themselves, for decisions without torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..envs.observation import SLOT_FEATURES


@njit(cache=True)
def slot_ids(slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Each slot's rank (0 … 12) and suit (0 … 3) id from its one-hots ``(B, n, 19)``, -1 for
    jokers and empty slots, as int64 arrays ``(B, n)``: the input of :func:`subset_shapes`."""
    hands, n, _ = slots.shape
    ranks = np.full((hands, n), -1, dtype=np.int64)
    suits = np.full((hands, n), -1, dtype=np.int64)
    for b in range(hands):
        for s in range(n):
            for r in range(13):
                if slots[b, s, r] > 0.0:
                    ranks[b, s] = r
                    break
            if ranks[b, s] >= 0:
                for u in range(4):
                    if slots[b, s, 13 + u] > 0.0:
                        suits[b, s] = u
                        break
    return ranks, suits


def first_layer_weights(weight: Any, k: int) -> tuple[Any, Any]:
    """The first layer's weight ``(h, k*19 + 19 + f)`` of k-card subsets (a tensor or an array)
    as per-position card weights ``(h, k, 19)`` (each position's one-hot weights plus the
    weights of the rank, suit and joker counts, which are sums over the cards) and the shape
    features' weights ``(f, h)``."""
    counts = k * SLOT_FEATURES
    per_position = weight[:, :counts].reshape(-1, k, SLOT_FEATURES) + weight[:, None, counts:counts + SLOT_FEATURES]
    return per_position, weight[:, counts + SLOT_FEATURES:].T


#: the shape features: rank-count profile (4), one suit (1), then the straight windows
_ONE_SUIT, _WINDOWS = 4, 5


def _window_table(k: int) -> np.ndarray:
    """For each set of ranks (a 13-bit mask, bit r for rank r, 0 = deuce … 12 = ace): the
    index among the shape features of the full straight window it is, or -1. Window w
    covers ranks w-1 … w+k-2, rank -1 being the ace: window 0 is the wheel (A 2 3 …)."""
    table = np.full(1 << 13, -1, dtype=np.int64)
    run = (1 << k) - 1
    for low in range(13 - k + 1):
        table[run << low] = _WINDOWS + low + 1
    table[(1 << 12) | (run >> 1)] = _WINDOWS
    return table


#: :func:`_window_table` of each subset size (rows 0 … 5)
_WINDOW_TABLES = np.stack([_window_table(k) if k else np.full(1 << 13, -1, dtype=np.int64) for k in range(6)])
#: the layout of a subset's shape state (:func:`_add_slot`): rank counts, the count profile
#: (how many ranks appear c times, at _PROFILE + c), suit counts and the mask of ranks present
_PROFILE, _SUITS, _MASK = 13, 18, 22
_STATE = 23


@njit(cache=True, inline="always")
def _add_slot(state: np.ndarray, rank: int, suit: int, step: int) -> None:  # pragma: no cover - compiled
    """Add (``step`` 1) or remove (-1) a card of ``rank`` and ``suit`` to a subset's shape
    state; jokers (rank -1) take no part in the shape features."""
    if rank < 0:
        return
    count = state[rank]
    state[_PROFILE + count] -= 1
    state[_PROFILE + count + step] += 1
    state[rank] = count + step
    state[_SUITS + suit] += step
    if count + step == 0:
        state[_MASK] &= ~(1 << rank)
    elif count == 0:
        state[_MASK] |= 1 << rank


@njit(cache=True, inline="always")
def _move_to(state: np.ndarray, ranks: np.ndarray, suits: np.ndarray, b: int, subsets: np.ndarray,
             i: int, same: int) -> None:  # pragma: no cover - compiled
    """The shape state of subset ``i`` of hand ``b`` from that of subset ``i - 1``, which
    shares its first ``same`` slots (a state of zeros and ``same`` 0 for the first)."""
    k = subsets.shape[1]
    if i > 0:
        for p in range(same, k):
            _add_slot(state, ranks[b, subsets[i - 1, p]], suits[b, subsets[i - 1, p]], -1)
    for p in range(same, k):
        _add_slot(state, ranks[b, subsets[i, p]], suits[b, subsets[i, p]], 1)


@njit(cache=True, inline="always")
def _shared_prefix(subsets: np.ndarray, i: int) -> int:  # pragma: no cover - compiled
    """How many first slots subset ``i`` shares with subset ``i - 1`` (at most k - 1)."""
    same = 0
    while i > 0 and same < subsets.shape[1] - 1 and subsets[i, same] == subsets[i - 1, same]:
        same += 1
    return same


@njit(cache=True, inline="always")
def _one_suit(state: np.ndarray, k: int) -> bool:  # pragma: no cover - compiled
    return (state[_SUITS] == k or state[_SUITS + 1] == k or state[_SUITS + 2] == k
            or state[_SUITS + 3] == k)


@njit(cache=True)
def subset_shapes(ranks: np.ndarray, suits: np.ndarray, subsets: np.ndarray) -> np.ndarray:  # pragma: no cover
    """The shape features of every subset ``(m, k)`` of every hand, from each slot's rank
    (0 … 12, -1 for a joker) and suit (0 … 3, -1 for a joker), ``(hands, n)``: how many
    ranks appear once, twice, three and four times, whether all k cards share a suit, and
    which straight windows of k ranks (ace low, then 2 … A) are full: ``(hands, m, 20 - k)``
    float32, the nonlinear part of the split scorer's subset features. Each subset's counts
    are updated from the previous one's, by the slots in which the two differ."""
    hands = ranks.shape[0]
    m, k = subsets.shape
    out = np.zeros((hands, m, 20 - k), dtype=np.float32)
    windows = _WINDOW_TABLES[k]
    for b in range(hands):
        state = np.zeros(_STATE, dtype=np.int64)
        for i in range(m):
            _move_to(state, ranks, suits, b, subsets, i, _shared_prefix(subsets, i))
            for c in range(4):
                out[b, i, c] = state[_PROFILE + 1 + c]
            if _one_suit(state, k):
                out[b, i, _ONE_SUIT] = 1.0
            window = windows[state[_MASK]]
            if window >= 0:
                out[b, i, window] = 1.0
    return out


@njit(cache=True)
def subset_hidden(projected: np.ndarray, subsets: np.ndarray, ranks: np.ndarray, suits: np.ndarray,
                  weight: np.ndarray, base: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``(hands, m, h)`` float32: ``relu(base[b] + sum_p projected[p, subsets[i, p], b] +
    shapes[b, i] @ weight)`` for every hand ``b`` and subset ``i``, the shape features
    (:func:`subset_shapes`) computed on the way from the slots' ``ranks`` and ``suits``
    ``(hands, n)``; ``projected`` is ``(k, n, hands, h)``, ``weight`` ``(f, h)`` and ``base``
    ``(hands, h)``. The sum over positions is kept for each prefix of the subset, so a subset
    that shares its first slots with the one before (in lexicographic order, all but the
    last, mostly) adds only the projections of the slots that differ; the sums are the same,
    added in the same order, and so are the shape features' counts."""
    k, _, hands, h = projected.shape
    m = subsets.shape[0]
    out = np.empty((hands, m, h), dtype=np.float32)
    windows = _WINDOW_TABLES[k]
    partial = np.empty((k, h), dtype=np.float32)  # partial[p]: base + the first p positions' projections
    row = np.empty(h, dtype=np.float32)
    for b in range(hands):
        state = np.zeros(_STATE, dtype=np.int64)
        for c in range(h):
            partial[0, c] = base[b, c]
        for i in range(m):
            same = _shared_prefix(subsets, i)
            for p in range(same, k - 1):
                slot = subsets[i, p]
                for c in range(h):
                    partial[p + 1, c] = partial[p, c] + projected[p, slot, b, c]
            slot = subsets[i, k - 1]
            for c in range(h):
                row[c] = partial[k - 1, c] + projected[k - 1, slot, b, c]
            _move_to(state, ranks, suits, b, subsets, i, same)
            for j in range(4):  # the shape features that are not zero, in order
                value = np.float32(state[_PROFILE + 1 + j])
                if value != 0.0:
                    for c in range(h):
                        row[c] += value * weight[j, c]
            if _one_suit(state, k):
                for c in range(h):
                    row[c] += np.float32(1.0) * weight[_ONE_SUIT, c]
            window = windows[state[_MASK]]
            if window >= 0:
                for c in range(h):
                    row[c] += np.float32(1.0) * weight[window, c]
            for c in range(h):
                out[b, i, c] = max(row[c], np.float32(0.0))
    return out


@njit(cache=True)
def subset_layer(slots: np.ndarray, context: np.ndarray, weight: np.ndarray, bias: np.ndarray,
                 context_weight: np.ndarray, subsets: np.ndarray, ranks: np.ndarray,
                 suits: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`subset_hidden` from the layer's parameters: the hands' slots ``(hands, n, 19)``
    and context ``(hands, c)``, the layer's weight ``(h, k*19 + 19 + f)`` (read as
    :func:`first_layer_weights` splits it) and bias ``(h,)``, and the context layer's weight
    ``(h, c)``. The projections and the per-hand bias are sums over the few nonzero inputs."""
    hands, n, features = slots.shape
    h = weight.shape[0]
    k = subsets.shape[1]
    counts = k * features
    projected = np.zeros((k, n, hands, h), dtype=np.float32)
    base = np.empty((hands, h), dtype=np.float32)
    for b in range(hands):
        for s in range(n):
            for q in range(features):
                value = slots[b, s, q]
                if value != 0.0:
                    for p in range(k):
                        for c in range(h):
                            projected[p, s, b, c] += value * (weight[c, p * features + q] + weight[c, counts + q])
        for c in range(h):
            base[b, c] = bias[c]
        for q in range(context.shape[1]):
            value = context[b, q]
            if value != 0.0:
                for c in range(h):
                    base[b, c] += value * context_weight[c, q]
    return subset_hidden(projected, subsets, ranks, suits, np.ascontiguousarray(weight[:, counts + features:].T),
                         base)


@njit(cache=True)
def subset_hidden_gradients(grad: np.ndarray, hidden: np.ndarray, subsets: np.ndarray, shapes: np.ndarray,
                            n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """The gradients of :func:`subset_hidden` with respect to ``projected`` ``(k, n, hands,
    h)``, ``weight`` ``(f, h)`` and ``base`` ``(hands, h)``, from the gradient ``grad`` of its
    output ``hidden`` (whose zeros mark where the relu cut)."""
    hands, m, h = hidden.shape
    k = subsets.shape[1]
    f = shapes.shape[2]
    g_projected = np.zeros((k, n, hands, h), dtype=np.float32)
    g_weight = np.zeros((f, h), dtype=np.float32)
    g_base = np.zeros((hands, h), dtype=np.float32)
    g = np.empty(h, dtype=np.float32)
    for b in range(hands):
        for i in range(m):
            for c in range(h):
                g[c] = grad[b, i, c] if hidden[b, i, c] > 0.0 else 0.0
            for c in range(h):
                g_base[b, c] += g[c]
            for p in range(k):
                target = g_projected[p, subsets[i, p], b]
                for c in range(h):
                    target[c] += g[c]
            for j in range(f):
                value = shapes[b, i, j]
                if value != 0.0:
                    for c in range(h):
                        g_weight[j, c] += value * g[c]
    return g_projected, g_weight, g_base
