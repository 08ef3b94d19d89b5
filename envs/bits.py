"""Bit sets over samples: boolean flags packed into uint64 words and counted, for the
solver's terms that need a whole split at once. Pure: NumPy."""

from __future__ import annotations

import numpy as np


def pack_bits(flags: np.ndarray) -> np.ndarray:
    """Boolean array (..., B) with B a multiple of 64 → uint64 words (..., B // 64)."""
    packed = np.packbits(flags, axis=-1, bitorder="little")
    return np.ascontiguousarray(packed).view(np.uint64)


def popcount_rows(words: np.ndarray) -> np.ndarray:
    """Set bits per row of a (..., W) uint64 array → (...,) int64."""
    return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)
