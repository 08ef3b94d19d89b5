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


@njit(cache=True, inline="always")
def _shape_features(ranks: np.ndarray, suits: np.ndarray, b: int, subsets: np.ndarray, i: int, rank_count: np.ndarray,
                    suit_count: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """The shape features of subset ``subsets[i]`` of hand ``b`` into ``out`` (length ``20 -
    k``), from the slots' ranks and suits ``(hands, n)``, with ``rank_count`` (13) and
    ``suit_count`` (4) as scratch: zeros on entry, zeros again on return."""
    k = subsets.shape[1]
    out[:] = 0.0
    distinct = 0
    low, high = 13, -1
    for p in range(k):
        rank, suit = ranks[b, subsets[i, p]], suits[b, subsets[i, p]]
        if rank >= 0:
            if rank_count[rank] == 0:
                distinct += 1
                low, high = min(low, rank), max(high, rank)
            rank_count[rank] += 1
            suit_count[suit] += 1
            if suit_count[suit] == k:
                out[4] = 1.0
    if distinct == k:  # a full straight window: w covers ranks w-1 … w+k-2, rank -1 being the ace
        if high - low == k - 1:
            out[5 + low + 1] = 1.0
        elif high == 12 and low == 0:
            wheel = True
            for r in range(k - 1):
                wheel = wheel and rank_count[r] > 0
            if wheel:
                out[5] = 1.0
    for p in range(k):  # the count profile; the counts back to zero for the next subset
        rank = ranks[b, subsets[i, p]]
        if rank >= 0:
            if rank_count[rank] > 0:
                out[rank_count[rank] - 1] += 1.0
                rank_count[rank] = 0
            suit_count[suits[b, subsets[i, p]]] = 0


@njit(cache=True)
def subset_shapes(ranks: np.ndarray, suits: np.ndarray, subsets: np.ndarray) -> np.ndarray:  # pragma: no cover
    """The shape features of every subset ``(m, k)`` of every hand, from each slot's rank
    (0 … 12, -1 for a joker) and suit (0 … 3, -1 for a joker), ``(hands, n)``: how many
    ranks appear once, twice, three and four times, whether all k cards share a suit, and
    which straight windows of k ranks (ace low, then 2 … A) are full: ``(hands, m, 20 - k)``
    float32, the nonlinear part of the split scorer's subset features."""
    hands = ranks.shape[0]
    m, k = subsets.shape
    out = np.empty((hands, m, 20 - k), dtype=np.float32)
    shape = np.empty(20 - k, dtype=np.float32)
    rank_count = np.zeros(13, dtype=np.int64)
    suit_count = np.zeros(4, dtype=np.int64)
    for b in range(hands):
        for i in range(m):
            _shape_features(ranks, suits, b, subsets, i, rank_count, suit_count, shape)
            out[b, i] = shape
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
    added in the same order."""
    k, _, hands, h = projected.shape
    m = subsets.shape[0]
    f = weight.shape[0]
    out = np.empty((hands, m, h), dtype=np.float32)
    shape = np.empty(f, dtype=np.float32)
    rank_count = np.zeros(13, dtype=np.int64)
    suit_count = np.zeros(4, dtype=np.int64)
    partial = np.empty((k, h), dtype=np.float32)  # partial[p]: base + the first p positions' projections
    row = np.empty(h, dtype=np.float32)
    for b in range(hands):
        for c in range(h):
            partial[0, c] = base[b, c]
        for i in range(m):
            same = 0  # the positions shared with the subset before
            while i > 0 and same < k - 1 and subsets[i, same] == subsets[i - 1, same]:
                same += 1
            for p in range(same, k - 1):
                slot = subsets[i, p]
                for c in range(h):
                    partial[p + 1, c] = partial[p, c] + projected[p, slot, b, c]
            slot = subsets[i, k - 1]
            for c in range(h):
                row[c] = partial[k - 1, c] + projected[k - 1, slot, b, c]
            _shape_features(ranks, suits, b, subsets, i, rank_count, suit_count, shape)
            for j in range(f):
                value = shape[j]
                if value != 0.0:
                    for c in range(h):
                        row[c] += value * weight[j, c]
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
