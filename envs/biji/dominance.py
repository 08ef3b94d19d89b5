"""Biji's dominance keys (envs/biji/RULES.md section 12): the three pots' strengths and,
when 顺清打头 pays, one flag for a straight flush in pot 1.

A pot's payment only grows as the pot gets stronger (fewer seats above it, a first place,
then an unshared one), and so does every 喜 that depends on the arrangement but one: 通锅
(first place in all three pots) and 全三 (three trips, the strongest type, so a pot
stronger than trips is trips too) are monotone in the pots' strengths. 顺清打头 (pot 1 a
straight flush) is not: trips in pot 1 are stronger, yet do not pay it, so a split with it
is only beaten by splits that have it too. The other 喜 (全黑, 全红, 全顺, 四张) are read
from the nine cards alone and are the same for every split.
"""

from __future__ import annotations

import numpy as np

from ..dominance import DominanceRows
from .rules import BijiRules, GroupType, strength_type


def dominance_rows(hands: np.ndarray, rules: BijiRules) -> DominanceRows:
    """The keys, validity values and flags of every 3-card subset of hands ``(H, 9)``."""
    from .kernels import group_strengths_of_hands  # compiled with numba, loaded on first use

    strengths = group_strengths_of_hands(hands, rules)
    keys = (strengths, strengths, strengths)
    if not rules.xi_straight_flush_head:
        return DominanceRows(keys=keys, checks=keys, strict=True)
    head = (strength_type(strengths) == GroupType.STRAIGHT_FLUSH).astype(np.uint8)
    none = np.zeros_like(head)
    return DominanceRows(keys=keys, checks=keys, strict=True, flags=(head, none, none), n_flags=1)
