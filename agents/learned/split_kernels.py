"""Compiled kernels of the split scorer's distribution over the split index.

A split's logit is the sum of its three rows' scores, ``s0[rows0[j]] + s1[rows1[j]] +
s2[rows2[j]]``, plus, for a scorer with an interaction term, a full-width ``extra[j]``. A
Thirteen hand has 72,072 splits: built as tensors, the logits, the mask, the softmax,
the entropy and their gradients are a dozen full-width passes per hand and their
temporaries. These kernels make one pass over the valid splits per quantity instead, reading
the row scores through the split table, never holding a full-width logit array:

* :func:`split_statistics`: per hand, ``logsumexp`` of the valid logits, their mean under
  the policy (so the entropy is ``logsumexp - mean``) and the log probability of an action;
* :func:`split_gradients`: the gradient of ``sum(g_logp * log p(action) + g_entropy *
  entropy)`` with respect to the row scores (and ``extra``);
* :func:`split_choices`: a sample (inverse CDF of one uniform per hand), with the
  statistics of the drawn splits from the same pass, or the argmax, which skips every first
  row whose bound (:func:`first_row_bounds`: its score plus the best second and third rows
  its cards leave free) is below a logit already found;
* :func:`interacting_argmax`: the argmax of a scorer with an interaction term, which it
  computes only for the valid splits that an upper bound of the term does not rule out,
  rather than reading a full-width ``extra``.

Masks are bool ``(hands, splits)``; the split table's columns ``r0, r1, r2`` any integer
type (uint16 keeps Thirteen's table at 432 KB), in the index's order, where the splits of
one first row are consecutive, equally many each, first row ``f``'s the ``f``-th such block
(the argmaxes read the first row's score once for all of them, and the argmax of a scorer
without an interaction term skips them together); accumulations are in float64, except the
argmax's logits, which are float32 sums like the policy's own logits.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _logit(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, r0: np.ndarray, r1: np.ndarray, r2: np.ndarray,
           extra: np.ndarray, has_extra: bool, b: int, j: int) -> float:  # pragma: no cover - compiled
    value = np.float64(s0[b, r0[j]]) + s1[b, r1[j]] + s2[b, r2[j]]
    if has_extra:
        value += extra[b, j]
    return value


@njit(cache=True)
def _bound(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, extra: np.ndarray, has_extra: bool,
           b: int) -> float:  # pragma: no cover - compiled
    """An upper bound of hand ``b``'s logits (the sum of each part's maximum): the shift that
    keeps every ``exp`` at most 1 in one pass, exact enough since logits never spread by
    hundreds."""
    top = np.float64(s0[b].max()) + s1[b].max() + s2[b].max()
    if has_extra:
        top += extra[b].max()
    return top


@njit(cache=True)
def split_statistics(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, r0: np.ndarray, r1: np.ndarray,
                     r2: np.ndarray, extra: np.ndarray, has_extra: bool, mask: np.ndarray,
                     actions: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``(hands, 3)``: logsumexp of the valid logits, their mean under the policy, and the
    log probability of ``actions`` (``-inf`` where the action is not valid)."""
    hands, n = mask.shape
    out = np.empty((hands, 3))
    for b in range(hands):
        top = _bound(s0, s1, s2, extra, has_extra, b)
        total = 0.0
        weighted = 0.0
        for j in range(n):
            if mask[b, j]:
                value = _logit(s0, s1, s2, r0, r1, r2, extra, has_extra, b, j)
                e = np.exp(value - top)
                total += e
                weighted += e * value
        log_z = top + np.log(total)
        out[b, 0] = log_z
        out[b, 1] = weighted / total
        a = actions[b]
        out[b, 2] = _logit(s0, s1, s2, r0, r1, r2, extra, has_extra, b, a) - log_z if mask[b, a] else -np.inf
    return out


@njit(cache=True)
def split_gradients(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, r0: np.ndarray, r1: np.ndarray,
                    r2: np.ndarray, extra: np.ndarray, has_extra: bool, mask: np.ndarray, actions: np.ndarray,
                    statistics: np.ndarray, g_logp: np.ndarray, g_entropy: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Gradients of ``g_logp * log p(action) + g_entropy * entropy`` (per hand) with respect
    to ``s0``, ``s1``, ``s2`` and ``extra`` (zeros of shape (1, 1) without ``extra``):
    ``d log p(a) / d l_j = [j = a] - p_j`` and ``d entropy / d l_j = -p_j (l_j - mean)``."""
    hands, n = mask.shape
    g0 = np.zeros(s0.shape, dtype=np.float32)
    g1 = np.zeros(s1.shape, dtype=np.float32)
    g2 = np.zeros(s2.shape, dtype=np.float32)
    gx = np.zeros(extra.shape if has_extra else (1, 1), dtype=np.float32)
    for b in range(hands):
        log_z, mean, gl, ge = statistics[b, 0], statistics[b, 1], g_logp[b], g_entropy[b]
        a0 = np.zeros(s0.shape[1])
        a1 = np.zeros(s1.shape[1])
        a2 = np.zeros(s2.shape[1])
        for j in range(n):
            if mask[b, j]:
                value = _logit(s0, s1, s2, r0, r1, r2, extra, has_extra, b, j)
                p = np.exp(value - log_z)
                grad = -gl * p - ge * p * (value - mean)
                if j == actions[b]:
                    grad += gl
                a0[r0[j]] += grad
                a1[r1[j]] += grad
                a2[r2[j]] += grad
                if has_extra:
                    gx[b, j] = grad
        g0[b] = a0
        g1[b] = a1
        g2[b] = a2
    return g0, g1, g2, gx


@njit(cache=True, inline="always")
def _first_row_block(r0: np.ndarray) -> int:  # pragma: no cover - compiled
    """How many consecutive splits share each first row: the split index numbers the splits
    of one first row together (:class:`~splitpoker.envs.splits.SplitIndex`), equally many each."""
    n = len(r0)
    return n // (int(r0[n - 1]) + 1)


@njit(cache=True, inline="always")
def _valid_in(mask: np.ndarray, b: int, start: int, stop: int, found: np.ndarray) -> int:  # pragma: no cover
    """The valid splits of ``start:stop`` written to the front of ``found``; their count. Each
    split is written and the count advanced by its mask bit, without a branch on it: a scan
    that branches on an unpredictable mask loses more time to mispredicted branches than it
    spends on the valid splits."""
    count = 0
    for j in range(start, stop):
        found[count] = j
        count += mask[b, j]
    return count


#: how many of a row position's highest-scoring subsets :func:`first_row_bounds` searches for
#: one disjoint from a first row (a 3-card first row leaves a fifth of the 5-card subsets of
#: 13 slots free, so one of the 32 highest is free for all but about one first row in a
#: thousand)
DEPTH = 32


@njit(cache=True, inline="always")
def _highest(scores: np.ndarray, ids: np.ndarray, values: np.ndarray) -> int:  # pragma: no cover - compiled
    """The ``len(ids)`` highest of ``scores`` (fewer if there are fewer) into ``values``, in
    descending order, and their subset ids into ``ids``, in one pass; how many."""
    depth = min(len(ids), len(scores))
    count = 0
    for i in range(len(scores)):
        x = scores[i]
        if count == depth and x <= values[depth - 1]:
            continue
        k = count if count < depth else depth - 1
        while k > 0 and values[k - 1] < x:
            values[k] = values[k - 1]
            ids[k] = ids[k - 1]
            k -= 1
        values[k] = x
        ids[k] = i
        count = min(count + 1, depth)
    return count


@njit(cache=True)
def _highest_disjoint(scores: np.ndarray, masks: np.ndarray, first_masks: np.ndarray, ids: np.ndarray,
                      values: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Into ``out[f]``: the highest of ``scores`` over the subsets (slot bit ``masks``)
    disjoint from first row ``f`` (``first_masks``), searched among the :data:`DEPTH` highest
    (``ids`` and ``values`` are scratch); where none of those is disjoint, the lowest of them,
    which is at least as high."""
    count = _highest(scores, ids, values)
    for f in range(len(first_masks)):
        out[f] = values[count - 1]
        for t in range(count):
            if masks[ids[t]] & first_masks[f] == 0:
                out[f] = values[t]
                break


@njit(cache=True, inline="always")
def _hand_bounds(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, m0: np.ndarray, m1: np.ndarray, m2: np.ndarray,
                 b: int, ids: np.ndarray, values: np.ndarray, best: np.ndarray,
                 out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Hand ``b``'s :func:`first_row_bounds` into ``out`` (``ids``, ``values`` and ``best``
    are scratch)."""
    _highest_disjoint(s1[b], m1, m0, ids, values, out)
    _highest_disjoint(s2[b], m2, m0, ids, values, best)
    for f in range(len(out)):
        out[f] = s0[b, f] + out[f] + best[f]


@njit(cache=True)
def first_row_bounds(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, m0: np.ndarray, m1: np.ndarray,
                     m2: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """``(hands, C(n, k0))`` float32: for each first row, an upper bound of the row-score sum
    of every split that has it, ``s0[f] + best1 + best2`` with ``best1`` and ``best2`` the
    highest second- and third-row scores of a subset disjoint from it (``m0, m1, m2``: each
    position's subsets as slot bit masks). Added in float32 in the logits' order: rounding
    to nearest is monotonic, so the bound holds for the float32 logits too."""
    hands, n0 = s0.shape
    out = np.empty((hands, n0), dtype=np.float32)
    best = np.empty(n0, dtype=np.float32)
    ids = np.empty(DEPTH, dtype=np.int64)
    values = np.empty(DEPTH, dtype=np.float32)
    for b in range(hands):
        _hand_bounds(s0, s1, s2, m0, m1, m2, b, ids, values, best, out[b])
    return out


#: the row masks of an argmax without first-row bounds
NO_ROW_MASKS = (np.zeros(0, dtype=np.int64),) * 3
#: the fewest splits of one first row for which an argmax computes first-row bounds: one of
#: Thirteen's 286 first rows has 252 splits, and skipping most of them saves several times
#: what the bounds cost; one of Biji's 84 has 20, fewer than the bounds cost to skip
BOUNDED_BLOCK = 64


def _bounding(tables: tuple[np.ndarray, ...], row_masks: tuple[np.ndarray, ...] | None) -> tuple[np.ndarray, ...]:
    """``row_masks`` where an argmax over this split table gains by first-row bounds, else
    :data:`NO_ROW_MASKS`."""
    if row_masks is None or _first_row_block(tables[0]) < BOUNDED_BLOCK:
        return NO_ROW_MASKS
    return row_masks


@njit(cache=True, inline="always")
def _visiting_order(bounds: np.ndarray, order: np.ndarray) -> None:  # pragma: no cover - compiled
    """Into ``order``: the first rows in index order, except that the one of the highest of
    ``bounds`` (one per first row, or none) comes first, so that the best logit found early
    rules out most of the others."""
    blocks = len(order)
    first = int(np.argmax(bounds)) if len(bounds) else 0
    order[0] = first
    k = 1
    for f in range(blocks):
        if f != first:
            order[k] = f
            k += 1


@njit(cache=True)
def _first_highest(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, r0: np.ndarray, r1: np.ndarray,
                   r2: np.ndarray, extra: np.ndarray, has_extra: bool, mask: np.ndarray, m0: np.ndarray,
                   m1: np.ndarray, m2: np.ndarray) -> np.ndarray:  # pragma: no cover
    """Each hand's first valid split of the highest logit, -1 for a hand without a valid split.
    The logits are float32 sums added in the order of the policy's logits (``(s0 + s1) + s2 +
    extra``), so that the argmax is that of the logits a torch forward pass gives. One first
    row at a time: its score read once, its valid splits gathered by :func:`_valid_in`. Given
    the row positions' subsets as slot bit masks (``m0, m1, m2``; empty for none, as for a
    scorer with ``extra``), the first row of the highest :func:`first_row_bounds` is scanned
    first and every first row whose bound is below the best logit found is skipped, mask and
    all; a tie goes to the lower index, so the choice is that of the full scan in index
    order."""
    hands, n = mask.shape
    out = np.full(hands, -1, dtype=np.int64)
    block = _first_row_block(r0)
    found = np.empty(block, dtype=np.int64)
    order = np.empty(n // block, dtype=np.int64)
    bounded = len(m0) > 0 and not has_extra  # the bounds leave ``extra`` out
    hand_bounds = np.empty(len(m0) if bounded else 0, dtype=np.float32)
    best = np.empty_like(hand_bounds)
    ids = np.empty(DEPTH, dtype=np.int64)
    values = np.empty(DEPTH, dtype=np.float32)
    for b in range(hands):
        top = np.float32(-np.inf)
        if bounded:
            _hand_bounds(s0, s1, s2, m0, m1, m2, b, ids, values, best, hand_bounds)
        _visiting_order(hand_bounds, order)
        for f in order:
            if len(hand_bounds) and hand_bounds[f] < top:
                continue
            start = f * block
            first = s0[b, r0[start]]
            for t in range(_valid_in(mask, b, start, start + block, found)):
                j = found[t]
                value = first + s1[b, r1[j]] + s2[b, r2[j]]
                if has_extra:
                    value += extra[b, j]
                if value > top or (value == top and j < out[b]):
                    top, out[b] = value, j
    return out


@njit(cache=True)
def split_choices(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, r0: np.ndarray, r1: np.ndarray,
                  r2: np.ndarray, extra: np.ndarray, has_extra: bool, mask: np.ndarray, m0: np.ndarray,
                  m1: np.ndarray, m2: np.ndarray, uniforms: np.ndarray,
                  sample: bool) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """One valid split per hand: drawn by the inverse CDF of ``uniforms`` (``sample``), else
    the first of the highest logits (:func:`_first_highest`, with the row masks ``m0, m1,
    m2``); -1 for a hand without a valid split. With ``sample``, also the
    :func:`split_statistics` of the drawn splits, from the same pass (``(hands, 3)``; empty
    without ``sample``): one ``exp`` per valid split, whose running sums are kept and
    searched for the draw."""
    if not sample:
        return _first_highest(s0, s1, s2, r0, r1, r2, extra, has_extra, mask, m0, m1, m2), np.empty((0, 3))
    hands, n = mask.shape
    out = np.full(hands, -1, dtype=np.int64)
    statistics = np.empty((hands, 3))
    running = np.empty(n)
    valid = np.empty(n, dtype=np.int64)
    for b in range(hands):
        shift = _bound(s0, s1, s2, extra, has_extra, b)
        total = 0.0
        weighted = 0.0
        count = 0
        for j in range(n):
            if mask[b, j]:
                value = _logit(s0, s1, s2, r0, r1, r2, extra, has_extra, b, j)
                e = np.exp(value - shift)
                total += e
                weighted += e * value
                running[count] = total
                valid[count] = j
                count += 1
        if count == 0:
            statistics[b] = -np.inf
            continue
        target = uniforms[b] * total
        lo, hi = 0, count - 1  # the first running sum above the target (the last split if none is)
        while lo < hi:
            mid = (lo + hi) >> 1
            if running[mid] > target:
                hi = mid
            else:
                lo = mid + 1
        a = valid[lo]
        out[b] = a
        log_z = shift + np.log(total)
        statistics[b, 0] = log_z
        statistics[b, 1] = weighted / total
        statistics[b, 2] = _logit(s0, s1, s2, r0, r1, r2, extra, has_extra, b, a) - log_z
    return out, statistics


@njit(cache=True)
def sparse_pick(scores: np.ndarray, vectors: np.ndarray, out: np.ndarray, uniform: float) -> int:  # pragma: no cover
    """The position among a hand's few splits of the one chosen from their row scores
    ``(3, m)`` and, when ``out`` (the interaction term's output weights ``(v,)``) is not
    empty, their vectors ``(3, m, v)``: the splits read as one hand whose every row position
    has m subsets, split ``j`` made of the ``j``-th of each, so that the dense kernels' own
    logit and interaction term (:func:`_logit`, :func:`_interaction`) and draw
    (:func:`split_choices`) serve; the first of the highest logits when ``uniform < 0``."""
    m = scores.shape[1]
    own = np.arange(m)
    s0, s1, s2 = scores[0:1], scores[1:2], scores[2:3]
    has_extra = out.shape[0] > 0
    extra = np.zeros((1, m), dtype=np.float32)
    if has_extra:
        for j in range(m):
            extra[0, j] = _interaction(vectors[0:1], vectors[1:2], vectors[2:3], own, own, own, out, 0, j)
    if uniform >= 0.0:
        every = np.ones((1, m), dtype=np.bool_)
        return split_choices(s0, s1, s2, own, own, own, extra, has_extra, every, own, own, own,
                             np.array([uniform]), True)[0][0]
    best, best_value = 0, _logit(s0, s1, s2, own, own, own, extra, has_extra, 0, 0)
    for j in range(1, m):
        value = _logit(s0, s1, s2, own, own, own, extra, has_extra, 0, j)
        if value > best_value:
            best, best_value = j, value
    return best


#: the ``extra`` argument of a scorer without an interaction term
NO_EXTRA = np.zeros((1, 1), dtype=np.float32)


def choose_splits(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, tables: tuple[np.ndarray, ...],
                  extra: np.ndarray | None, masks: np.ndarray, uniforms: np.ndarray | None,
                  row_masks: tuple[np.ndarray, ...] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`split_choices` of row scores (and ``extra``, None without an interaction term):
    samples by ``uniforms``, or the argmax without them, which, given each row position's
    subsets as slot bit masks (``row_masks``) and no ``extra``, skips the first rows that
    :func:`first_row_bounds` rules out; ValueError when a hand has no valid split."""
    sample = uniforms is not None
    # a compiled kernel: numba's dispatcher is untyped for mypy
    chosen, statistics = split_choices(s0, s1, s2, *tables,  # type: ignore[call-arg, arg-type]
                                       NO_EXTRA if extra is None else extra, extra is not None,
                                       np.ascontiguousarray(masks, dtype=bool),
                                       *_bounding(tables, None if sample or extra is not None else row_masks),
                                       uniforms if uniforms is not None else np.zeros(len(s0)), sample)
    return _checked(chosen), statistics


def choose_interacting(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, vectors: list[np.ndarray],
                       tables: tuple[np.ndarray, ...], weight: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """:func:`interacting_argmax` of row scores and each row position's vectors: the argmax
    :func:`choose_splits` gives with their full-width interaction term; ValueError when a
    hand has no valid split."""
    return _checked(interacting_argmax(s0, s1, s2, *vectors, *tables, weight,  # type: ignore[call-arg]
                                       np.ascontiguousarray(masks, dtype=bool)))


def _checked(chosen: np.ndarray) -> np.ndarray:
    """``chosen`` from a kernel that marks a hand without a valid split by -1; ValueError
    when there is one."""
    if (chosen < 0).any():
        raise ValueError("the action mask has no valid split")
    return chosen


@njit(cache=True, inline="always")
def _interaction(v0: np.ndarray, v1: np.ndarray, v2: np.ndarray, r0: np.ndarray, r1: np.ndarray,
                 r2: np.ndarray, weight: np.ndarray, b: int, j: int) -> float:  # pragma: no cover - compiled
    """Split ``j``'s interaction term, as :func:`split_interactions` computes it."""
    a0, a1, a2 = v0[b, r0[j]], v1[b, r1[j]], v2[b, r2[j]]
    total = np.float32(0.0)
    for c in range(len(weight)):
        x = a0[c] + a1[c] + a2[c]
        if x > 0.0:
            total += weight[c] * x
    return total


@njit(cache=True)
def split_interactions(v0: np.ndarray, v1: np.ndarray, v2: np.ndarray, r0: np.ndarray, r1: np.ndarray,
                       r2: np.ndarray, weight: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """The interaction term of every split ``(hands, splits)`` float32: ``weight ·
    relu(v0[r0[j]] + v1[r1[j]] + v2[r2[j]])`` from each row position's vectors ``(hands,
    C(n, k), h)``, without the ``(hands, splits, h)`` temporary."""
    hands = v0.shape[0]
    n = r0.shape[0]
    out = np.empty((hands, n), dtype=np.float32)
    for b in range(hands):
        for j in range(n):
            out[b, j] = _interaction(v0, v1, v2, r0, r1, r2, weight, b, j)
    return out


@njit(cache=True)
def _column_extremes(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """Each column's maximum and largest magnitude of ``v`` ``(m, h)``, in one pass over its rows."""
    h = v.shape[1]
    most = np.full(h, -np.inf)
    largest = np.zeros(h)
    for i in range(v.shape[0]):
        for c in range(h):
            x = np.float64(v[i, c])
            most[c] = max(most[c], x)
            largest[c] = max(largest[c], abs(x))
    return most, largest


@njit(cache=True)
def _row_bounds(v: np.ndarray, others: np.ndarray, weight: np.ndarray) -> np.ndarray:  # pragma: no cover
    """For each subset ``i`` of one row position (``v`` ``(C(n, k), h)``): ``sum_c max(weight[c],
    0) * max(v[i, c] + others[c], 0)``, an upper bound of the interaction term of every split
    with ``i`` in that position when ``others[c]`` bounds the other two positions' ``c``."""
    m, h = v.shape
    out = np.zeros(m)
    for i in range(m):
        total = 0.0
        for c in range(h):
            if weight[c] > 0.0:
                x = np.float64(v[i, c]) + others[c]
                if x > 0.0:
                    total += weight[c] * x
        out[i] = total
    return out


#: the margin of :func:`interacting_argmax`'s bounds, relative to the magnitudes summed: a
#: hundred times float32's rounding of the few additions and products a logit is made of
ROUNDING = 1e-5


@njit(cache=True)
def interacting_argmax(s0: np.ndarray, s1: np.ndarray, s2: np.ndarray, v0: np.ndarray, v1: np.ndarray,
                       v2: np.ndarray, r0: np.ndarray, r1: np.ndarray, r2: np.ndarray, weight: np.ndarray,
                       mask: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`split_choices`' argmax for a scorer with an interaction term, given each row
    position's vectors ``(hands, C(n, k), h)`` instead of the full-width ``extra``: the first
    highest of the logits :func:`split_interactions` makes. -1 for a hand without a valid split.

    The term is computed only for the valid splits that can still beat the best logit found
    so far: the sum of a split's row scores plus an upper bound of its term (the smaller of
    its front's and its back's :func:`_row_bounds`, the other positions at their maxima) and
    a rounding margin must reach it. For the shipped policies that is a median of a few dozen
    of a Thirteen hand's 22,000 valid splits; a split skipped is strictly below a logit
    already found, so the choice is that of the full scan."""
    hands, n = mask.shape
    out = np.full(hands, -1, dtype=np.int64)
    block = _first_row_block(r0)
    found = np.empty(block, dtype=np.int64)
    for b in range(hands):
        most0, largest0 = _column_extremes(v0[b])
        most1, largest1 = _column_extremes(v1[b])
        most2, largest2 = _column_extremes(v2[b])
        front = _row_bounds(v0[b], most1 + most2, weight)
        back = _row_bounds(v2[b], most0 + most1, weight)
        scale = (1.0 + np.abs(s0[b]).max() + np.abs(s1[b]).max() + np.abs(s2[b]).max()
                 + (np.abs(weight) * (largest0 + largest1 + largest2)).sum())
        margin = ROUNDING * scale
        top = np.float32(-np.inf)
        floor = -np.inf  # the best logit so far, less the margin
        for start in range(0, n, block):
            first = s0[b, r0[start]]
            first_bound = front[r0[start]]
            for t in range(_valid_in(mask, b, start, start + block, found)):
                j = found[t]
                value = first + s1[b, r1[j]] + s2[b, r2[j]]
                if value + min(first_bound, back[r2[j]]) >= floor:
                    value += _interaction(v0, v1, v2, r0, r1, r2, weight, b, j)
                    if value > top:
                        top, out[b] = value, j
                        floor = np.float64(value) - margin
    return out
