"""Seeds and random generators: every layer takes its randomness through these helpers, so
that nothing touches the global RNG and a bad seed is one line naming it.

:func:`as_generator` turns a seed (or a Generator) into a ``numpy.random.Generator``,
:func:`check_seed` checks a seed before it is stored, and :func:`derived_seed` derives
independent seeds from a run's seed and counters (a step, a chunk, a deal)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .arguments import is_bool, is_whole, shown

__all__ = ["as_generator", "check_seed", "derived_seed"]


def as_generator(rng: Any) -> np.random.Generator:
    """``rng`` when it is a Generator, else a new one seeded by it; ValueError for a bad seed.

    >>> int(as_generator(0).integers(10)) == int(as_generator(np.random.default_rng(0)).integers(10))
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    bad = ValueError(f"seed {shown(rng)} is not a Generator, a non-negative integer or a sequence of them")
    if is_bool(rng):
        raise bad
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError):
        raise bad from None


def check_seed(seed: Any) -> None:
    """ValueError unless ``seed`` is None or a non-negative integer."""
    if seed is not None and not (is_whole(seed) and seed >= 0):
        raise ValueError(f"seed {shown(seed)} must be None or a non-negative integer")


def derived_seed(*keys: int) -> int:
    """A 64-bit seed derived from integer ``keys`` (a run's seed, a step, a chunk, ...): the
    same keys give the same seed, different keys independent ones.

    >>> derived_seed(0, 1) == derived_seed(0, 1) != derived_seed(0, 2)
    True

    ValueError naming the keys unless each is a non-negative integer.
    """
    if not all(is_whole(key) and key >= 0 for key in keys):
        raise ValueError(f"seed keys {shown(keys)} must be non-negative integers")
    return int(np.random.SeedSequence([int(key) for key in keys]).generate_state(1)[0])
