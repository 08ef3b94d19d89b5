"""Thirteen's dominance keys (envs/thirteen/RULES.md section 12): the three rows' strengths.

Every payment of Thirteen that depends on the arrangement is monotone in the rows'
strengths: a row's points against another seat's row (the royalty of the winning row,
±1 under two-four), the majority point, the scoop and the home run only grow as a row gets
stronger; special hands (报到) and the hand-level tests behind them are paid from the 13
cards alone, the same for every split. So the key is the strength of each row, with two
refinements from the royalty table of the rules (:func:`row_keys`):

* a row that is never paid (``counted_rows=back`` leaves out the front and middle) gets the
  key 0: its strength cannot change a payoff, only whether the split fouls;
* a royalty table whose values fall as a row's type rises, or are negative, has no
  monotone key: every valid split stays a candidate.
"""

from __future__ import annotations

import functools

import numpy as np

from ..dominance import DominanceRows
from .rules import HandType, ThirteenRules
from .scoring import value_table

#: the types a row of each position can have (a 3-card front is high card, a pair or trips)
ROW_TYPES = (np.array([HandType.HIGH_CARD, HandType.PAIR, HandType.TRIPS]), np.arange(len(HandType)),
             np.arange(len(HandType)))


@functools.cache  # per rules: read for every batch of hands
def row_keys(rules: ThirteenRules) -> tuple[bool, tuple[bool, bool, bool]]:
    """Whether the payoff is monotone in the rows' strengths under ``rules``, and for each
    row position whether it is paid at all."""
    values = value_table(rules)
    paid = [bool(v) for v in np.asarray(values.any(axis=1)).tolist()]
    return monotone_values(values), (paid[0], paid[1], paid[2])


def monotone_values(values: np.ndarray) -> bool:
    """Whether row values by position and type (``(3, types)``) are non-negative and never
    fall as the type rises, over the types each row can have: then a stronger row is never
    paid less."""
    return all(bool((row[types] >= 0).all() and (np.diff(row[types]) >= 0).all())
               for row, types in zip(values, ROW_TYPES))


def dominance_rows(hands: np.ndarray, rules: ThirteenRules) -> DominanceRows:
    """The keys and validity values of every subset of hands ``(H, 13)`` in slot order."""
    from .kernels import subset_strengths  # compiled with numba, loaded on first use

    s3, r3, s5, r5 = subset_strengths(hands, rules)
    monotone, paid = row_keys(rules)
    keys = tuple(k if row_paid else np.zeros_like(k) for k, row_paid in zip((s3, s5, s5), paid))
    return DominanceRows(keys=(keys[0], keys[1], keys[2]), checks=(r3, r5, r5), strict=False, reduce=monotone)
