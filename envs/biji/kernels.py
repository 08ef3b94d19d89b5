"""Compiled kernels of Biji: the strength of every 3-card group of many hands at once, for the
dominance keys (:mod:`.dominance`). The strength is the rules' own: the kernel reads the
rules' table of every group of the 54 card ids (:func:`.rules.group_table`) at the group's
:func:`.rules.combo_index`, compiled here, as :func:`.rules.group_strengths` does; the tests check the two agree.
Imported on first use, so that the game stays pure."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..splits import BIJI
from .rules import BijiRules, combo_index, group_table

_SUB3 = np.ascontiguousarray(BIJI.subsets(3), dtype=np.int64)
_combo_index = njit(cache=True)(combo_index)


@njit(cache=True)
def _group_strengths(hands: np.ndarray, subsets: np.ndarray, table: np.ndarray,
                     out: np.ndarray) -> None:  # pragma: no cover - compiled
    for h in range(hands.shape[0]):
        for u in range(subsets.shape[0]):
            a, b, c = hands[h, subsets[u, 0]], hands[h, subsets[u, 1]], hands[h, subsets[u, 2]]
            out[h, u] = table[_combo_index(a, b, c)]


def group_strengths_of_hands(hands: np.ndarray, rules: BijiRules) -> np.ndarray:
    """The strength of each of the 84 groups of every hand ``(H, 9)`` (slot order): ``(H, 84)``."""
    hands = np.ascontiguousarray(hands, dtype=np.int64)
    out = np.empty((len(hands), len(_SUB3)), dtype=np.int64)
    _group_strengths(hands, _SUB3, group_table(rules), out)
    return out
