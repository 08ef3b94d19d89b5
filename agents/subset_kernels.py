"""Compiled kernels of the split scorer's first layer: every 3-card and 5-card subset of a
hand's slots gets a hidden vector from its cards and its shape.

The layer is ``relu(base + sum_p projected[p, slot_p] + shape @ weight)`` per subset: the
part linear in the cards is a sum of per-card projections (one per position in the subset),
the shape features (count profile, one suit, full straight windows) are few and mostly
zero. Built from tensors, the sum over positions is a dense product with the subsets'
incidence matrix (1,287 x 65 for Thirteen's 5-card subsets) and the hidden layer is written
three times; :func:`subset_hidden` reads each card's projection through the subset table
and writes each hidden vector once, and :func:`subset_hidden_gradients` is its backward pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..envs.observation import SLOT_FEATURES


def slot_ids(slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each slot's rank (0 … 12) and suit (0 … 3) id from its one-hots ``(B, n, 19)``, -1 for
    jokers and empty slots, as int64 arrays ``(B, n)``: the input of :func:`subset_shapes`."""
    real = slots[..., :13].sum(-1) > 0
    ranks = np.where(real, slots[..., :13].argmax(-1), -1)
    suits = np.where(real, slots[..., 13:17].argmax(-1), -1)
    return ranks.astype(np.int64), suits.astype(np.int64)


def first_layer_weights(weight: Any, k: int) -> tuple[Any, Any]:
    """The first layer's weight ``(h, k*19 + 19 + f)`` of k-card subsets (a tensor or an array)
    as per-position card weights ``(h, k, 19)`` (each position's one-hot weights plus the
    weights of the rank, suit and joker counts, which are sums over the cards) and the shape
    features' weights ``(f, h)``."""
    counts = k * SLOT_FEATURES
    per_position = weight[:, :counts].reshape(-1, k, SLOT_FEATURES) + weight[:, None, counts:counts + SLOT_FEATURES]
    return per_position, weight[:, counts + SLOT_FEATURES:].T


@njit(cache=True)
def subset_shapes(ranks: np.ndarray, suits: np.ndarray, subsets: np.ndarray) -> np.ndarray:  # pragma: no cover
    """The shape features of every subset ``(m, k)`` of every hand, from each slot's rank
    (0 … 12, -1 for a joker) and suit (0 … 3, -1 for a joker), ``(hands, n)``: how many
    ranks appear once, twice, three and four times, whether all k cards share a suit, and
    which straight windows of k ranks (ace low, then 2 … A) are full: ``(hands, m, 20 - k)``
    float32, the nonlinear part of the split scorer's subset features."""
    hands = ranks.shape[0]
    m, k = subsets.shape
    windows = 15 - k
    out = np.zeros((hands, m, 5 + windows), dtype=np.float32)
    rank_count = np.zeros(13, dtype=np.int64)
    suit_count = np.zeros(4, dtype=np.int64)
    for b in range(hands):
        for i in range(m):
            rank_count[:] = 0
            suit_count[:] = 0
            for p in range(k):
                slot = subsets[i, p]
                if ranks[b, slot] >= 0:
                    rank_count[ranks[b, slot]] += 1
                    suit_count[suits[b, slot]] += 1
            for r in range(13):
                c = rank_count[r]
                if c > 0:
                    out[b, i, c - 1] += 1.0
            for s in range(4):
                if suit_count[s] == k:
                    out[b, i, 4] = 1.0
            for w in range(windows):  # window w covers ranks w-1 … w+k-2, rank -1 being the ace
                full = True
                for r in range(w - 1, w + k - 1):
                    if rank_count[r if r >= 0 else 12] == 0:
                        full = False
                        break
                if full:
                    out[b, i, 5 + w] = 1.0
    return out


@njit(cache=True)
def subset_hidden(projected: np.ndarray, subsets: np.ndarray, shapes: np.ndarray, weight: np.ndarray,
                  base: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``(hands, m, h)`` float32: ``relu(base[b] + sum_p projected[p, subsets[i, p], b] +
    shapes[b, i] @ weight)`` for every hand ``b`` and subset ``i``; ``projected`` is ``(k, n,
    hands, h)``, ``shapes`` ``(hands, m, f)`` (from :func:`subset_shapes`), ``weight`` ``(f,
    h)`` and ``base`` ``(hands, h)``."""
    k, _, hands, h = projected.shape
    m = subsets.shape[0]
    f = shapes.shape[2]
    out = np.empty((hands, m, h), dtype=np.float32)
    for b in range(hands):
        for i in range(m):
            row = out[b, i]
            row[:] = base[b]
            for p in range(k):
                card = projected[p, subsets[i, p], b]
                for c in range(h):
                    row[c] += card[c]
            for j in range(f):
                value = shapes[b, i, j]
                if value != 0.0:
                    w = weight[j]
                    for c in range(h):
                        row[c] += value * w[c]
            for c in range(h):
                if row[c] < 0.0:
                    row[c] = 0.0
    return out


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
