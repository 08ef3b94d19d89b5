"""The compiled sweep behind :func:`splitpoker.envs.dominance.split_classes` (see that
module for the definitions): per hand, the last rows from the strongest down; the frontier
of the stronger last rows kept, per flag pattern, as the best first-row key over the middle
rows of each strength rank or stronger (a non-decreasing array, so that checking a split is
one read); splits of equal last rows compared pairwise."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def sweep(k1: np.ndarray, k2: np.ndarray, k3: np.ndarray, c1: np.ndarray, c2: np.ndarray, c3: np.ndarray,
          strict: bool, f1: np.ndarray, f2: np.ndarray, f3: np.ndarray, n_patterns: np.int64, reduce: bool,
          split_of: np.ndarray, first_of: np.ndarray, middle_of: np.ndarray, shared: bool,
          out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Classify every split of every hand into ``out`` (hands, n_actions): 0 invalid, 1
    valid and beaten, 2 a candidate. ``k*``, ``c*``, ``f*``: per hand and subset of the
    first, middle and last row, the key, the validity value and the flag bits.
    ``split_of``, ``first_of``, ``middle_of`` (last-row subsets, splits per last row): the
    split index and its first and middle rows' subsets, grouped by the last row; ``shared``:
    the middle and last rows' keys are one array (Thirteen's 5-card rows), sorted once."""
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
    for h in range(n_hands):
        k1h, k2h, c1h, c2h, f1h, f2h, outh = k1[h], k2[h], c1[h], c2[h], f1[h], f2[h], out[h]
        outh[:] = 0
        middle_order = np.argsort(-k2[h], kind="mergesort")
        r = -1
        previous = lowest
        for i in range(n_middle):
            u = middle_order[i]
            if i == 0 or k2[h, u] != previous:
                r += 1
                previous = k2[h, u]
            rank[u] = r
        best[:, :] = lowest
        last_order = middle_order if shared else np.argsort(-k3[h], kind="mergesort")
        start = 0
        while start < n_last:
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
                        outh[a] = 2
                        continue
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
                out[h, g_split[x]] = 2
                q, value = g_flag[x], g_k1[x]
                i = g_rank[x]
                while i < n_middle and best[q, i] < value:
                    best[q, i] = value
                    i += 1
            start = stop
