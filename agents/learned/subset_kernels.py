"""Compiled kernels of the split scorer's first layer: every 3-card and 5-card subset of a
hand's slots gets a hidden vector from its cards and its shape.

The layer is ``relu(base + sum_p projected[p, slot_p] + shape @ weight)`` per subset: the
part linear in the cards is a sum of per-card projections (one per position in the subset),
the shape features (count profile, one suit, full straight windows) are few and mostly
zero. Built from tensors, the sum over positions is a dense product with the subsets'
incidence matrix (1,287 x 65 for Thirteen's 5-card subsets) and the hidden layer is written
three times; :func:`subset_hidden` reads each card's projection through the subset table,
computes the shape features on the way and writes each hidden vector once, and
:func:`subset_hidden_gradients` is its backward pass. Subsets come in lexicographic order,
so most share all but their last slot with the one before: both the projections' sums and
the shape features' ingredients (bit masks of the slots, ranks and suits taken, the count
of equal-rank pairs) are kept per prefix and recomputed only from the first slot that
differs. :func:`subset_layer` is the same layer from the parameters themselves (laid out
by :func:`first_layer_tables`), for decisions without torch.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from numba import njit

from ...envs.observation import SLOT_FEATURES


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
#: the largest subset the shape tables cover (k cards hold at most C(k, 2) pairs of equal
#: rank), and the most slots a hand's bit masks hold
MAX_SUBSET, MAX_SLOTS = 5, 32


def _window_table(k: int) -> np.ndarray:
    """For each set of ranks (a 13-bit mask, bit r for rank r, 0 = deuce … 12 = ace): the
    index among the shape features of the full straight window of k ranks it is, or -1.
    Window w covers ranks w-1 … w+k-2, rank -1 being the ace: window 0 is the wheel."""
    table = np.full(1 << 13, -1, dtype=np.int8)
    run = (1 << k) - 1
    for low in range(13 - k + 1):
        table[run << low] = _WINDOWS + low + 1
    table[(1 << 12) | (run >> 1)] = _WINDOWS
    return table


def _profile_table() -> np.ndarray:
    """``(cards, pairs, 4)``: the count profile (how many ranks appear once, twice, three and
    four times) of ``cards`` cards of which ``pairs`` pairs share a rank. Up to five cards of
    one deck the two numbers fix the profile (a pair is 1 pair, two pairs 2, trips 3, a full
    house 4, quads 6)."""
    table = np.zeros((MAX_SUBSET + 1, MAX_SUBSET * (MAX_SUBSET - 1) // 2 + 1, 4), dtype=np.float32)
    seen: dict[tuple[int, int], tuple[int, ...]] = {}
    for cards in range(MAX_SUBSET + 1):
        for ranks in range(cards + 1):  # the multiplicities of the ranks present, largest first
            for counts in itertools.combinations_with_replacement(range(4, 0, -1), ranks):
                if sum(counts) != cards:
                    continue
                pairs = sum(c * (c - 1) // 2 for c in counts)
                profile = tuple(counts.count(c) for c in (1, 2, 3, 4))
                assert seen.setdefault((cards, pairs), profile) == profile, "pairs do not fix the profile"
                table[cards, pairs] = profile
    return table


#: :func:`_window_table` of each subset size (row k; rows for sizes never used stay -1)
_WINDOW_TABLES = np.stack([_window_table(k) if 2 <= k <= MAX_SUBSET else np.full(1 << 13, -1, dtype=np.int8)
                           for k in range(MAX_SUBSET + 1)])
_PROFILES = _profile_table()
#: a slot's columns in :func:`_slot_bits`, and a prefix's in :func:`_extend`
_RANK_BIT, _SUIT_BIT, _REAL, _SAME_RANK = 0, 1, 2, 3
_SLOTS, _PAIRS, _RANKS, _SUITS, _CARDS = 0, 1, 2, 3, 4


@njit(cache=True, inline="always")
def _slot_bits(ranks: np.ndarray, suits: np.ndarray, b: int, bits: np.ndarray,
               by_rank: np.ndarray) -> None:  # pragma: no cover - compiled
    """Into ``bits`` ``(n, 4)``, for hand ``b``: each slot's rank bit, suit bit, whether it is
    a card (not a joker or empty), and the mask of the other slots of its rank
    (``by_rank`` (13) is scratch: each rank's slots)."""
    n = ranks.shape[1]
    by_rank[:] = 0
    for s in range(n):
        if ranks[b, s] >= 0:
            by_rank[ranks[b, s]] |= 1 << s
    for s in range(n):
        rank = ranks[b, s]
        if rank >= 0:
            bits[s, _RANK_BIT] = 1 << rank
            bits[s, _SUIT_BIT] = 1 << suits[b, s]
            bits[s, _REAL] = 1
            bits[s, _SAME_RANK] = by_rank[rank] & ~(1 << s)
        else:
            bits[s] = 0


@njit(cache=True, inline="always")
def _popcount(x: int) -> int:  # pragma: no cover - compiled
    """The set bits of a mask of at most 32 slots."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) >> 24) & 0xFF


@njit(cache=True, inline="always")
def _extend(prefix: np.ndarray, p: int, bits: np.ndarray, slot: int) -> None:  # pragma: no cover - compiled
    """``prefix[p + 1]`` from ``prefix[p]`` and one more slot: the slots taken, the pairs of
    them of equal rank, the ranks and suits present (bit masks) and the number of cards."""
    prefix[p + 1, _SLOTS] = prefix[p, _SLOTS] | (1 << slot)
    prefix[p + 1, _PAIRS] = prefix[p, _PAIRS] + _popcount(bits[slot, _SAME_RANK] & prefix[p, _SLOTS])
    prefix[p + 1, _RANKS] = prefix[p, _RANKS] | bits[slot, _RANK_BIT]
    prefix[p + 1, _SUITS] = prefix[p, _SUITS] | bits[slot, _SUIT_BIT]
    prefix[p + 1, _CARDS] = prefix[p, _CARDS] + bits[slot, _REAL]


@njit(cache=True, inline="always")
def _advance(prefix: np.ndarray, bits: np.ndarray, subsets: np.ndarray, i: int) -> int:  # pragma: no cover
    """Bring ``prefix`` from subset ``i - 1`` (any prefix, for the first) to subset ``i``: only
    from the first slot in which the two differ (:func:`_extend`). Returns how many first
    slots they share (at most k - 1)."""
    k = subsets.shape[1]
    same = 0
    while i > 0 and same < k - 1 and subsets[i, same] == subsets[i - 1, same]:
        same += 1
    for p in range(same, k):
        _extend(prefix, p, bits, subsets[i, p])
    return same


@njit(cache=True, inline="always")
def _shape(prefix: np.ndarray, k: int) -> tuple[np.ndarray, bool, int]:  # pragma: no cover - compiled
    """The shape features of the subset whose whole prefix is ``prefix[k]``: its count
    profile (4 values), whether its k slots are cards of one suit, and the index of its
    straight window among the features (-1 for none)."""
    whole = prefix[k]
    suits = whole[_SUITS]
    one_suit = whole[_CARDS] == k and suits & (suits - 1) == 0
    return _PROFILES[whole[_CARDS], whole[_PAIRS]], one_suit, _WINDOW_TABLES[k, whole[_RANKS]]


@njit(cache=True)
def subset_shapes(ranks: np.ndarray, suits: np.ndarray, subsets: np.ndarray) -> np.ndarray:  # pragma: no cover
    """The shape features of every subset ``(m, k)`` of every hand, from each slot's rank
    (0 … 12, -1 for a joker) and suit (0 … 3, -1 for a joker), ``(hands, n)``: how many
    ranks appear once, twice, three and four times, whether all k cards share a suit, and
    which straight windows of k ranks (ace low, then 2 … A) are full: ``(hands, m, 20 - k)``
    float32, the nonlinear part of the split scorer's subset features. They are read off bit
    masks of the subset's slots, ranks and suits and its count of equal-rank pairs, kept for
    each prefix of the subset: a subset recomputes them only from the first slot in which
    it differs from the one before."""
    hands = ranks.shape[0]
    m, k = subsets.shape
    out = np.zeros((hands, m, 20 - k), dtype=np.float32)
    prefix = np.zeros((k + 1, 5), dtype=np.int64)
    bits = np.empty((ranks.shape[1], 4), dtype=np.int64)
    by_rank = np.empty(13, dtype=np.int64)
    for b in range(hands):
        _slot_bits(ranks, suits, b, bits, by_rank)
        for i in range(m):
            _advance(prefix, bits, subsets, i)
            profile, one_suit, window = _shape(prefix, k)
            out[b, i, :4] = profile
            if one_suit:
                out[b, i, _ONE_SUIT] = 1.0
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
    ``(hands, h)``. The sum over positions is kept for each prefix of the subset, like the
    shape features' masks and counts, so a subset that shares its first slots with the one
    before (in lexicographic order, all but the last, mostly) adds only the projections of
    the slots that differ; the sums are the same, added in the same order."""
    k, _, hands, h = projected.shape
    out = np.empty((hands, subsets.shape[0], h), dtype=np.float32)
    subset_hidden_into(out, projected, subsets, ranks, suits, weight, base)
    return out


@njit(cache=True)
def subset_hidden_into(out: np.ndarray, projected: np.ndarray, subsets: np.ndarray, ranks: np.ndarray,
                       suits: np.ndarray, weight: np.ndarray, base: np.ndarray) -> None:  # pragma: no cover
    """:func:`subset_hidden` written into ``out`` ``(hands, m, h)`` float32 (an array to reuse:
    a fresh one of a Thirteen minibatch's 5-card subsets, 42 MB, costs the kernel's own time
    again in page faults)."""
    k, _, hands, h = projected.shape
    m = subsets.shape[0]
    prefix = np.zeros((k + 1, 5), dtype=np.int64)
    partial = np.empty((k, h), dtype=np.float32)  # partial[p]: base + the first p positions' projections
    row = np.empty(h, dtype=np.float32)
    bits = np.empty((ranks.shape[1], 4), dtype=np.int64)
    by_rank = np.empty(13, dtype=np.int64)
    for b in range(hands):
        _slot_bits(ranks, suits, b, bits, by_rank)
        for c in range(h):
            partial[0, c] = base[b, c]
        for i in range(m):
            same = _advance(prefix, bits, subsets, i)
            for p in range(same, k - 1):
                slot = subsets[i, p]
                for c in range(h):
                    partial[p + 1, c] = partial[p, c] + projected[p, slot, b, c]
            slot = subsets[i, k - 1]
            for c in range(h):
                row[c] = partial[k - 1, c] + projected[k - 1, slot, b, c]
            profile, one_suit, window = _shape(prefix, k)
            for j in range(4):  # the shape features that are not zero, in order
                value = profile[j]
                if value != 0.0:
                    for c in range(h):
                        row[c] += value * weight[j, c]
            if one_suit:
                for c in range(h):
                    row[c] += weight[_ONE_SUIT, c]
            if window >= 0:
                for c in range(h):
                    row[c] += weight[window, c]
            for c in range(h):
                out[b, i, c] = max(row[c], np.float32(0.0))


def first_layer_tables(weight: np.ndarray, bias: np.ndarray, context_weight: np.ndarray,
                       k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The first layer's parameters as :func:`subset_layer` reads them, each contiguous along
    the hidden units: from the layer's weight ``(h, k*19 + 19 + f)`` (read as
    :func:`first_layer_weights` splits it) and bias ``(h,)`` and the context layer's weight
    ``(h, c)``, the projection of each slot feature at each subset position ``(k, 19, h)``
    (its own weight plus the shared one), the shape weights ``(f, h)``, the bias and the
    context weights ``(c, h)``. Made once per parameter update, not per decision."""
    features = SLOT_FEATURES
    counts = k * features
    per_position = np.stack([weight[:, p * features:(p + 1) * features].T for p in range(k)])
    slot_weight = np.ascontiguousarray(per_position + weight[:, counts:counts + features].T[None], dtype=np.float32)
    return (slot_weight, np.ascontiguousarray(weight[:, counts + features:].T), bias,
            np.ascontiguousarray(context_weight.T))


@njit(cache=True)
def subset_layer(slots: np.ndarray, context: np.ndarray, slot_weight: np.ndarray, shape_weight: np.ndarray,
                 bias: np.ndarray, context_weight: np.ndarray, subsets: np.ndarray, ranks: np.ndarray,
                 suits: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`subset_hidden` from the layer's parameters as :func:`first_layer_tables` lays
    them out: the hands' slots ``(hands, n, 19)`` and context ``(hands, c)``. The
    projections and the per-hand bias are sums over the few nonzero inputs."""
    hands, n, features = slots.shape
    k, _, h = slot_weight.shape
    projected = np.zeros((k, n, hands, h), dtype=np.float32)
    base = np.empty((hands, h), dtype=np.float32)
    for b in range(hands):
        for s in range(n):
            for q in range(features):
                value = slots[b, s, q]
                if value != 0.0:
                    for p in range(k):
                        for c in range(h):
                            projected[p, s, b, c] += value * slot_weight[p, q, c]
        for c in range(h):
            base[b, c] = bias[c]
        for q in range(context.shape[1]):
            value = context[b, q]
            if value != 0.0:
                for c in range(h):
                    base[b, c] += value * context_weight[q, c]
    return subset_hidden(projected, subsets, ranks, suits, shape_weight, base)


@njit(cache=True)
def subset_hidden_gradients(grad: np.ndarray, hidden: np.ndarray, subsets: np.ndarray, shapes: np.ndarray,
                            n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """The gradients of :func:`subset_hidden` with respect to ``projected`` ``(k, n, hands,
    h)``, ``weight`` ``(f, h)`` and ``base`` ``(hands, h)``, from the gradient ``grad`` of its
    output ``hidden`` (whose zeros mark where the relu cut)."""
    return first_layer_gradients_into(grad.copy(), hidden, subsets, shapes, n)


@njit(cache=True, inline="always")
def _first_layer_gradients(g: np.ndarray, b: int, i: int, subsets: np.ndarray, shapes: np.ndarray,
                           g_projected: np.ndarray, g_weight: np.ndarray,
                           g_base: np.ndarray) -> None:  # pragma: no cover - compiled
    """Add the gradient ``g`` ``(h,)`` of subset ``i`` of hand ``b``'s first-layer output
    (after the relu's cut) to the gradients of its inputs: ``base``, each slot's projected
    features and the shape features' weights."""
    h = g.shape[0]
    for c in range(h):
        g_base[b, c] += g[c]
    for p in range(subsets.shape[1]):
        target = g_projected[p, subsets[i, p], b]
        for c in range(h):
            target[c] += g[c]
    for j in range(shapes.shape[2]):
        value = shapes[b, i, j]
        if value != 0.0:
            for c in range(h):
                g_weight[j, c] += value * g[c]


@njit(cache=True, fastmath=True)
def embedded_heads(hidden: np.ndarray, embed_weight: np.ndarray, embed_bias: np.ndarray, rows: np.ndarray,
                   scalar_weight: np.ndarray, scalar_bias: np.ndarray, vector_weight: np.ndarray,
                   vector_bias: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """For a few subsets of one hand, hidden vectors ``(m, h)`` through the embedding layer
    (``relu(embed_weight @ x + embed_bias)``, ``(e, h)`` and ``(e,)``), then through the head
    of each row position of ``rows``: its score (``scalar_weight`` ``(3, e)``,
    ``scalar_bias`` ``(3,)``) and, when ``vector_weight`` ``(3, v, e)`` has ``v > 0``
    columns, its vector of the interaction term (``vector_bias`` ``(3, v)``). Returns the
    scores ``(len(rows), m)`` and the vectors ``(len(rows), m, v)``, float32."""
    m, h = hidden.shape[0], hidden.shape[1]
    e = embed_weight.shape[0]
    v = vector_weight.shape[1]
    scores = np.empty((len(rows), m), dtype=np.float32)
    vectors = np.empty((len(rows), m, v), dtype=np.float32)
    x = np.empty(e, dtype=np.float32)
    for i in range(m):
        for j in range(e):
            total = embed_bias[j]
            for c in range(h):
                total += embed_weight[j, c] * hidden[i, c]
            x[j] = max(total, np.float32(0.0))
        for p in range(len(rows)):
            r = rows[p]
            total = scalar_bias[r]
            for j in range(e):
                total += scalar_weight[r, j] * x[j]
            scores[p, i] = total
            for w in range(v):
                total = vector_bias[r, w]
                for j in range(e):
                    total += vector_weight[r, w, j] * x[j]
                vectors[p, i, w] = total
    return scores, vectors


@njit(cache=True)
def sparse_row_scores(slots: np.ndarray, context: np.ndarray, slot_weight: np.ndarray, shape_weight: np.ndarray,
                      bias: np.ndarray, context_weight: np.ndarray, subsets: np.ndarray, ranks: np.ndarray,
                      suits: np.ndarray,
                      columns: np.ndarray, splits: np.ndarray, rows: np.ndarray, embed_weight: np.ndarray,
                      embed_bias: np.ndarray, scalar_weight: np.ndarray, scalar_bias: np.ndarray,
                      vector_weight: np.ndarray, vector_bias: np.ndarray, scores: np.ndarray,
                      vectors: np.ndarray) -> None:  # pragma: no cover - compiled
    """The row scores (and interaction vectors) of a few splits of one hand, for the row
    positions ``rows`` whose subsets are of this layer's size: ``columns[p]`` is the split
    table's column of position ``rows[p]``, ``splits`` the split indices. Each subset those
    splits use is computed once, in subset order (:func:`subset_layer`, then
    :func:`embedded_heads`), and its score written to ``scores[rows[p], j]`` (and its vector
    to ``vectors[rows[p], j]``) for every split ``j`` that uses it."""
    n_subsets = subsets.shape[0]
    place = np.full(n_subsets, -1, dtype=np.int64)
    for p in range(rows.shape[0]):
        for j in range(splits.shape[0]):
            place[columns[p, splits[j]]] = 0
    count = 0
    for u in range(n_subsets):
        if place[u] >= 0:
            place[u] = count
            count += 1
    table = np.empty((count, subsets.shape[1]), dtype=subsets.dtype)
    for u in range(n_subsets):
        if place[u] >= 0:
            table[place[u]] = subsets[u]
    hidden = subset_layer(slots, context, slot_weight, shape_weight, bias, context_weight, table, ranks, suits)[0]
    got, vec = embedded_heads(hidden, embed_weight, embed_bias, rows, scalar_weight, scalar_bias, vector_weight,
                              vector_bias)
    for p in range(rows.shape[0]):
        r = rows[p]
        for j in range(splits.shape[0]):
            i = place[columns[p, splits[j]]]
            scores[r, j] = got[p, i]
            for w in range(vec.shape[2]):
                vectors[r, j, w] = vec[p, i, w]


@njit(cache=True, fastmath=True)
def pooled_pre_gradients(g_pre: np.ndarray, emb: np.ndarray, argmax: np.ndarray, g_mean: np.ndarray,
                         g_max: np.ndarray, g_proj: np.ndarray, proj: np.ndarray) -> None:  # pragma: no cover
    """The first step of the backward pass of :func:`pooled_embeddings` over embeddings ``emb
    = relu(pre)`` ``(hands, m, e)``, read three ways: their mean over the subsets (gradient
    ``g_mean`` ``(hands, e)``), their maximum (gradient ``g_max`` ``(hands, e)``, reaching the
    subset ``argmax`` ``(hands, e)`` only) and their projections ``emb @ proj.T`` (``proj``
    ``(q, e)``, gradient ``g_proj`` ``(hands, m, q)``): the gradient of the pre-activations
    ``pre``, the relu's cut applied, written to ``g_pre`` ``(hands, m, e)``, hand by hand while
    its rows stay in cache."""
    hands, m, e = emb.shape
    q = proj.shape[0]
    share = np.empty(e, dtype=np.float32)
    for b in range(hands):
        for j in range(e):
            share[j] = g_mean[b, j] / m
        for i in range(m):
            row = g_pre[b, i]
            for j in range(e):
                row[j] = share[j]
            for t in range(q):
                value = g_proj[b, i, t]
                for j in range(e):
                    row[j] += value * proj[t, j]
            for j in range(e):
                if emb[b, i, j] <= 0.0:
                    row[j] = 0.0
        for j in range(e):
            i = argmax[b, j]
            if emb[b, i, j] > 0.0:
                g_pre[b, i, j] += g_max[b, j]


@njit(cache=True, fastmath=True)
def first_layer_gradients_into(grad: np.ndarray, hidden: np.ndarray, subsets: np.ndarray, shapes: np.ndarray,
                               n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """:func:`subset_hidden_gradients` of a gradient ``grad`` ``(hands, m, h)`` that may be
    overwritten: the relu's cut is applied to it in place (no copy per subset)."""
    hands, m, h = hidden.shape
    k = subsets.shape[1]
    f = shapes.shape[2]
    g_projected = np.zeros((k, n, hands, h), dtype=np.float32)
    g_weight = np.zeros((f, h), dtype=np.float32)
    g_base = np.zeros((hands, h), dtype=np.float32)
    for b in range(hands):
        for i in range(m):
            g = grad[b, i]
            for c in range(h):
                if hidden[b, i, c] <= 0.0:
                    g[c] = 0.0
            _first_layer_gradients(g, b, i, subsets, shapes, g_projected, g_weight, g_base)
    return g_projected, g_weight, g_base


@njit(cache=True, fastmath=True)
def pooled_embeddings(emb: np.ndarray, proj: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """In one pass over embeddings ``(hands, m, e)``: their mean and maximum over the subsets
    ``(hands, e)`` each, the first subset of each maximum ``(hands, e)`` (int64), and their
    projections ``emb @ proj.T`` ``(hands, m, q)`` onto ``proj`` ``(q, e)``."""
    hands, m, e = emb.shape
    q = proj.shape[0]
    mean = np.empty((hands, e), dtype=np.float32)
    most = np.empty((hands, e), dtype=np.float32)
    argmax = np.zeros((hands, e), dtype=np.int64)
    projections = np.empty((hands, m, q), dtype=np.float32)
    total = np.empty(e, dtype=np.float64)
    for b in range(hands):
        for i in range(e):
            total[i] = 0.0
            most[b, i] = emb[b, 0, i]
        for s in range(m):
            for i in range(e):
                value = emb[b, s, i]
                total[i] += value
                if value > most[b, i]:
                    most[b, i] = value
                    argmax[b, i] = s
            for t in range(q):
                dot = np.float32(0.0)
                for i in range(e):
                    dot += emb[b, s, i] * proj[t, i]
                projections[b, s, t] = dot
        for i in range(e):
            mean[b, i] = total[i] / m
    return mean, most, argmax, projections
