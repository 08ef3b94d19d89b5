"""The compiled steps of :func:`splitpoker.envs.offered.offer` (see that module for the
definitions), one pass each over a batch of (hand, candidate) pairs, so that one hand's
offer costs a few calls rather than dozens of small NumPy ones: each pair's rows found in
the row tables with their heuristic terms (:func:`pair_rows`), and, once the game has
combined the terms into values, each hand's candidates ordered by value and the first K
written with their feature rows (:func:`place_offers`). Compiled with numba and loaded on
first use, so that :mod:`.offered` stays pure."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _lower_bound(keys: np.ndarray, key: np.int64) -> np.int64:  # pragma: no cover - compiled
    """The first position of ``keys`` (ascending, not empty) whose key is not below ``key``:
    ``np.searchsorted(keys, key)``, without branches that depend on the keys."""
    base, size = 0, keys.shape[0]
    while size > 1:
        half = size >> 1
        base = base + half if keys[base + half - 1] < key else base
        size -= half
    return base + (keys[base] < key)


@njit(cache=True)
def pair_rows(flat: np.ndarray, counts: np.ndarray, splits: np.ndarray, columns: np.ndarray, widths: np.ndarray,
              bases: np.ndarray, shifts: np.ndarray, dense: np.ndarray, keys: np.ndarray, terms: np.ndarray,
              found: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """Per pair ``p`` (hand after hand, ``counts[h]`` pairs of hand ``h``, split
    ``splits[p]``) and row position ``k``: the row's strength read from ``flat``, the
    subset strengths of the hands size after size, hand after hand (at ``bases[k]`` times
    the hands, plus the hand times ``widths[k]``, plus the split's subset ``columns[s, k]``),
    its key (plus ``shifts[k]``) looked up in ``dense`` (empty: searched in ``keys``) into
    ``found[p, k]``, and the row's terms, ``terms`` at that row, into ``out[k, p]``."""
    n_hands = counts.shape[0]
    m = terms.shape[1]
    p = 0
    for h in range(n_hands):
        for _ in range(counts[h]):
            s = splits[p]
            for k in range(3):
                key = flat[bases[k] * n_hands + h * widths[k] + columns[s, k]] + shifts[k]
                row = np.int64(dense[key]) if dense.shape[0] else _lower_bound(keys, key)
                found[p, k] = row
                for j in range(m):
                    out[k, p, j] = terms[row, j]
            p += 1


@njit(cache=True)
def place_offers(values: np.ndarray, found: np.ndarray, splits: np.ndarray, counts: np.ndarray,
                 features: np.ndarray, splits_out: np.ndarray, features_out: np.ndarray) -> None:  # pragma: no cover
    """Per hand ``h`` (its pairs as in :func:`pair_rows`): its pairs by ``values``
    descending, equal values in pair order (a stable sort), the first ``K`` (the columns of
    ``splits_out``) written into slots ``0..``: the split into ``splits_out[h]``, and into
    ``features_out[h]`` (float32) the three rows' ``features`` (rows ``found[p]``), side by
    side, then the value and the value minus the hand's highest."""
    k = splits_out.shape[1]
    width = features.shape[1]
    at = 3 * width
    start = 0
    for h in range(counts.shape[0]):
        c = counts[h]
        if c:
            order = np.argsort(-values[start:start + c], kind="mergesort")
            best = values[start + order[0]]
            for slot in range(min(k, c)):
                p = start + order[slot]
                splits_out[h, slot] = splits[p]
                for r in range(3):
                    row = found[p, r]
                    for j in range(width):
                        features_out[h, slot, r * width + j] = features[row, j]
                features_out[h, slot, at] = values[p]
                features_out[h, slot, at + 1] = values[p] - best
        start += c
