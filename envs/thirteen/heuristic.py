"""The value of every split of a Thirteen hand for the ``heuristic`` agent: its expected
payoff against one opponent whose rows are drawn, position by position, from the rows a
greedy player sets (:mod:`splitpoker.envs.reference`).

For a row of strength ``s`` at position ``k`` (front, middle, back), with ``p`` the share of
reference rows it beats, ``q`` the share that beat it and ``G`` the mean row value
(:func:`.scoring.row_values`, royalties included) of the reference rows that beat it, the
row is worth ``v(s) * p - G``: the row's own value when it wins, minus what the stronger
rows are paid. A split is worth the sum over its three rows, plus, treating the rows as
independent:

* ``scoop=double``: the pair's total doubled when one side wins all three rows,
  ``p0 p1 p2 (v0 + v1 + v2) - (G0 q1 q2 + q0 G1 q2 + q0 q1 G2)`` (a home run is not
  counted);
* ``scoring=two_four`` and ``majority``: the majority point, the chance of winning more
  rows than losing minus the chance of the reverse (under ``majority`` the rows themselves
  are worth 0).

Fouling splits get ``-inf``. The values are the same for every opponent of a pairwise or
banker table, so the number of players does not change the choice. Special hands (报到)
are paid whatever the arrangement. The values are combined split by split by a compiled
kernel (:mod:`.kernels`, imported on first use, so this module stays pure: standard library
and NumPy), which also computes the rows' strengths from the rules' own rank tables.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..reference import ReferenceRows
from .rules import ThirteenRules, strength_type
from .scoring import royalty_table


def _row_table(rules: ThirteenRules) -> np.ndarray:
    """What a won row is worth by position and type: the royalty table, 0 under
    ``scoring=majority`` (only the majority point is paid)."""
    return royalty_table(rules.royalties) * (rules.scoring != "majority")


@cache
def _tails(reference: ReferenceRows, rules: ThirteenRules) -> np.ndarray:
    """Per position, the row values of the reference rows as :meth:`ReferenceRows.tail_sums`:
    ``(3, M + 1)``."""
    table = _row_table(rules)
    return np.stack([reference.tail_sums(table[k, strength_type(reference.strengths[k])].astype(float))
                     for k in range(3)])


@cache
def _royalties(rules: ThirteenRules) -> np.ndarray:
    return _row_table(rules).astype(np.float64)


def split_values(hands: np.ndarray, rules: ThirteenRules, reference: ReferenceRows,
                 num_players: int) -> np.ndarray:
    """Values ``(H, 72072)`` of every split of hands ``(H, 13)`` (slot order); ``-inf``
    where the split fouls. The same at every table size. Computed by a compiled kernel (:mod:`.kernels`, loaded on first
    use) from the rules' own rank tables."""
    from . import kernels

    _, values = kernels.heuristic_values(np.asarray(hands), rules, reference,
                                         _tails(reference, rules), _royalties(rules))
    assert values is not None
    return values


def best_splits(hands: np.ndarray, rules: ThirteenRules, reference: ReferenceRows, num_players: int) -> np.ndarray:
    """The split of highest value of each hand ``(H, 13)`` (the lowest index of equals),
    without keeping every split's value."""
    from . import kernels

    best, _ = kernels.heuristic_values(np.asarray(hands), rules, reference,
                                       _tails(reference, rules), _royalties(rules),
                                       values=False)
    return best
