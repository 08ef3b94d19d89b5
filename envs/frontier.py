"""The compiled sweep behind :func:`splitpoker.envs.dominance.split_classes` (see that
module for the definitions): per hand, the last rows from the strongest down; the frontier
of the stronger last rows kept, per flag pattern, as the best first-row key over the middle
rows of each strength rank or stronger (a non-decreasing array, so that checking a split is
one read); splits of equal last rows compared pairwise.

When only the candidates are asked for (``valid=False``), the sweep stops at the first
last row from which on the frontier beats every split that could still be valid. Each
middle row, strongest first, is settled once for good: when its validity value is above
what the remaining last rows allow, or when the frontier at its rank beats the strongest
first row that shares no card with it and fits under it. When every middle row is settled,
no split left escapes the frontier. (With one flag pattern, as in Thirteen; on random
Thirteen hands about 170 of the 1,287 last rows are visited.)"""

from __future__ import annotations

import numpy as np
from numba import njit

#: the widest digit of :func:`_descending`'s passes
DIGIT_BITS = 9


@njit(cache=True)
def sweep(k1: np.ndarray, k2: np.ndarray, k3: np.ndarray, c1: np.ndarray, c2: np.ndarray, c3: np.ndarray,
          strict: bool, f1: np.ndarray, f2: np.ndarray, f3: np.ndarray, n_patterns: np.int64, reduce: bool,
          split_of: np.ndarray, first_of: np.ndarray, middle_of: np.ndarray, shared: bool,
          out: np.ndarray, valid: bool, bits1: np.ndarray, bits2: np.ndarray, found: np.ndarray,
          counts: np.ndarray) -> None:  # pragma: no cover - compiled
    """Classify every split of every hand into ``out`` (hands, n_actions): 0 invalid, 1
    valid and beaten, 2 a candidate; or, when ``out`` has no columns (``valid`` False), list
    each hand's candidates instead, ascending, in ``found[h, :counts[h]]`` (``counts[h]``
    -1 when they are more than ``found`` has columns). ``k*``, ``c*``, ``f*``: per hand and subset of the
    first, middle and last row, the key, the validity value and the flag bits.
    ``split_of``, ``first_of``, ``middle_of`` (last-row subsets, splits per last row): the
    split index and its first and middle rows' subsets, grouped by the last row; ``shared``:
    the middle and last rows' keys are one array (Thirteen's 5-card rows), sorted once;
    ``valid``: tell invalid splits from dominated ones (else only the candidates are 2, and
    the sweep may stop early, leaving the splits it did not reach 0); ``bits1``, ``bits2``:
    each subset of the first and middle rows as a bit set of the hand's slots."""
    n_hands = k1.shape[0]
    n_last, per = split_of.shape
    n_middle = k2.shape[1]
    lowest = np.iinfo(np.int64).min
    step = np.int64(1) if strict else np.int64(0)
    # best[q, r]: the highest first-row key of a frontier split of flags q whose middle row
    # has rank r or better (rank 0 the strongest)
    best = np.empty((n_patterns, n_middle), np.int64)
    g_split = np.empty(n_last * per, np.int64)
    g_k1 = np.empty(n_last * per, np.int64)
    g_k2 = np.empty(n_last * per, np.int64)
    g_rank = np.empty(n_last * per, np.int64)
    g_flag = np.empty(n_last * per, np.int64)
    g_out = np.empty(n_last * per, np.bool_)
    rank = np.empty(n_middle, np.int64)
    n_first = k1.shape[1]
    # the highest validity value of a last row from each position of the order on
    remaining = np.empty(n_last, np.int64)
    first_values = np.empty(n_first, np.int64)  # the first rows' validity values, by key
    stop_early = reduce and n_patterns == 1 and not valid
    listed = out.shape[1] == 0
    capacity = found.shape[1]
    for h in range(n_hands):
        k1h, k2h, c1h, c2h, f1h, f2h, outh = k1[h], k2[h], c1[h], c2[h], f1[h], f2[h], out[h]
        outh[:] = 0
        count = 0
        middle_order = _descending(k2h)
        r = -1
        previous = lowest
        for i in range(n_middle):
            u = middle_order[i]
            if i == 0 or k2[h, u] != previous:
                r += 1
                previous = k2[h, u]
            rank[u] = r
        best[:, :] = lowest
        last_order = middle_order if shared else _descending(k3[h])
        if stop_early:
            first_order = _descending(k1h)
            highest = lowest
            for i in range(n_last - 1, -1, -1):
                highest = max(highest, c3[h, last_order[i]])
                remaining[i] = highest
            ordered = True
            for i in range(n_first):
                first_values[i] = c1h[first_order[i]]
                if i > 0 and first_values[i] > first_values[i - 1]:
                    ordered = False
            # middle rows by key by validity value too: the first rows above them only grow
            middles_ordered = True
            for i in range(1, n_middle):
                if c2h[middle_order[i]] > c2h[middle_order[i - 1]]:
                    middles_ordered = False
                    break
            above = 0
            settled = 0
            escape = lowest  # the first-row key by which the middle row at settled escapes, once found
        start = 0
        while start < n_last:
            if stop_early:
                # a middle row (strongest first) is settled for good once no split left can use it
                # (its validity value is above what the last rows left allow) or the frontier
                # beats it beside every first row that fits beside it and under it; when every
                # one is, the frontier beats every split left
                ceiling = remaining[start] - step
                while settled < n_middle:
                    m = middle_order[settled]
                    if c2h[m] <= ceiling:
                        bar = best[0, rank[m]]
                        if escape == lowest:  # the strongest first row beside it and under it
                            j0 = 0
                            if ordered:  # first rows by key are by validity value too: skip those above
                                if not middles_ordered:
                                    above = 0
                                while above < n_first and first_values[above] + step > c2h[m]:
                                    above += 1
                                j0 = above
                            for j in range(j0, n_first):
                                f = first_order[j]
                                if k1h[f] <= bar:
                                    break  # the frontier beats every first row left
                                if (bits1[f] & bits2[m]) == 0 and c1h[f] + step <= c2h[m]:
                                    escape = k1h[f]
                                    break
                        if escape > bar:
                            break  # a split may still escape the frontier
                    settled += 1
                    escape = lowest
                if settled == n_middle:
                    break
            stop = start + 1
            while stop < n_last and k3[h, last_order[stop]] == k3[h, last_order[start]]:
                stop += 1
            size = 0
            for g in range(start, stop):
                last = last_order[g]
                ceiling = c3[h, last] - step
                flag3 = f3[h, last]
                for j in range(per):
                    m = middle_of[last, j]
                    cm = c2h[m]
                    if cm > ceiling:
                        continue
                    f = first_of[last, j]
                    if c1h[f] + step > cm:
                        continue
                    a = split_of[last, j]
                    if not reduce:
                        if listed:
                            if count < capacity:
                                found[h, count] = a
                            count += 1
                        else:
                            outh[a] = 2
                        continue
                    if valid:
                        outh[a] = 1
                    key1 = k1h[f]
                    position = rank[m]
                    if n_patterns == 1:
                        if best[0, position] >= key1:
                            continue
                        flag = np.int64(0)
                    else:
                        flag = np.int64(f1h[f] | f2h[m] | flag3)
                        beaten = False
                        for q in range(flag, n_patterns):
                            if (q & flag) == flag and best[q, position] >= key1:
                                beaten = True
                                break
                        if beaten:
                            continue
                    g_split[size] = a
                    g_k1[size] = key1
                    g_k2[size] = k2h[m]
                    g_rank[size] = position
                    g_flag[size] = flag
                    size += 1
            # equal last rows: pairwise among the splits the frontier does not beat
            for x in range(size):
                g_out[x] = True
                for y in range(size):
                    if y == x or g_k2[y] < g_k2[x] or g_k1[y] < g_k1[x] or (g_flag[y] & g_flag[x]) != g_flag[x]:
                        continue
                    if g_k2[y] != g_k2[x] or g_k1[y] != g_k1[x] or g_flag[y] != g_flag[x] or g_split[y] < g_split[x]:
                        g_out[x] = False
                        break
            for x in range(size):
                if not g_out[x]:
                    continue
                if listed:
                    if count < capacity:
                        found[h, count] = g_split[x]
                    count += 1
                else:
                    out[h, g_split[x]] = 2
                q, value = g_flag[x], g_k1[x]
                i = g_rank[x]
                while i < n_middle and best[q, i] < value:
                    best[q, i] = value
                    i += 1
            start = stop
        if listed:
            if count > capacity:
                counts[h] = -1
            else:
                found[h, :count].sort()
                counts[h] = count


@njit(cache=True)
def _descending(keys: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """The positions of ``keys`` from the highest key down, equal keys by position: a stable
    least-significant-digit radix sort of how far each key lies below the highest, in as
    few passes of at most :data:`DIGIT_BITS` bits as the span needs, the bits shared evenly
    among them (several times faster than numba's sorts for the thousand-odd rows of a
    hand; a Thirteen hand's 26-bit span of 5-card keys takes three passes of 9 bits)."""
    n = keys.shape[0]
    high = keys.max()
    below = np.empty(n, np.int64)
    for i in range(n):
        below[i] = high - keys[i]
    bits = 0
    span = high - keys.min()
    while (span >> bits) > 0:
        bits += 1
    passes = (bits + DIGIT_BITS - 1) // DIGIT_BITS
    width = (bits + passes - 1) // passes if passes else 0
    digits = np.int64(1) << width
    mask = digits - 1
    order = np.arange(n)
    spare = np.empty(n, np.int64)
    counts = np.empty(digits + 1, np.int64)
    shift = np.int64(0)
    for _ in range(passes):
        counts[:] = 0
        for i in range(n):
            counts[((below[i] >> shift) & mask) + 1] += 1
        for d in range(digits):
            counts[d + 1] += counts[d]
        for i in range(n):
            u = order[i]
            d = (below[u] >> shift) & mask
            spare[counts[d]] = u
            counts[d] += 1
        order, spare = spare, order
        shift += width
    return order


@njit(cache=True)
def valid_splits(c1: np.ndarray, c2: np.ndarray, c3: np.ndarray, strict: bool, split_of: np.ndarray,
                 first_of: np.ndarray, middle_of: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """The valid splits of every hand into ``out`` (hands, n_actions) bool: ``c*`` the
    validity values of each hand's subsets for the first, middle and last row (``first <=
    middle <= last``, ``<`` when ``strict``); the splits grouped by their last row as
    :func:`sweep` reads them."""
    step = np.int64(1) if strict else np.int64(0)
    n_last, per = split_of.shape
    for h in range(out.shape[0]):
        c1h, c2h, c3h, outh = c1[h], c2[h], c3[h], out[h]
        for last in range(n_last):
            ceiling = c3h[last] - step
            for j in range(per):
                cm = c2h[middle_of[last, j]]
                outh[split_of[last, j]] = cm <= ceiling and c1h[first_of[last, j]] + step <= cm
