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
are paid whatever the arrangement. The values of every split are combined split by split
by a compiled kernel (:mod:`.kernels`, imported on first use, so this module stays pure:
standard library and NumPy), which also computes the rows' strengths from the rules' own
rank tables. The values of given splits are computed here in NumPy, the same numbers, in
two steps the game exposes (:meth:`~splitpoker.envs.game.Game.heuristic_values_of`): each
row's terms ``v p - G``, ``p``, ``q``, ``G``, ``v`` from its strength and position
(:func:`row_terms`), then the split's value from its three rows' terms (:func:`combined`).

>>> from splitpoker.envs.games import make_game
>>> from splitpoker.envs.reference import reference_rows
>>> game = make_game("thirteen")
>>> hands = game.hands_array([game.slots(range(2, 15)), game.slots(range(20, 33))])
>>> splits = game.candidate_lists(hands)[1][:3]
>>> exact = split_values(hands[1:], game.rules, reference_rows(game), 4)[0, splits]
>>> given = game.heuristic_values_at(hands[[1, 1, 1]], splits, 4)
>>> bool(np.array_equal(exact, given))
True
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..reference import ReferenceRows
from .rules import ThirteenRules, strength_type
from .scoring import MAJORITY_SCORING, royalty_table


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


def row_terms(position: int, strengths: np.ndarray, rules: ThirteenRules, reference: ReferenceRows) -> np.ndarray:
    """The terms ``(..., 5)`` of rows of ``strengths`` ``(...)`` at row ``position``, as the
    kernel lays them out: ``v p - G``, ``p``, ``q``, ``G``, ``v`` (the module docstring)."""
    strengths = np.asarray(strengths, dtype=np.int64)
    below = np.searchsorted(reference.strengths[position], strengths, side="left")
    not_above = np.searchsorted(reference.strengths[position], strengths, side="right")
    terms = np.empty((*strengths.shape, 5))
    terms[..., 1] = p = below / reference.size
    terms[..., 2] = 1.0 - not_above / reference.size
    terms[..., 3] = g = _tails(reference, rules)[position].take(not_above)
    terms[..., 4] = v = _royalties(rules)[position].take(strength_type(strengths))
    terms[..., 0] = v * p - g
    return terms


def combined(front: np.ndarray, middle: np.ndarray, back: np.ndarray, rules: ThirteenRules) -> np.ndarray:
    """The values of splits that do not foul, from their rows' :func:`row_terms` ``(..., 5)``
    each, combined as the kernel combines them: the rows' ``v p - G``, then the scoop and
    majority terms of the rules."""
    value = front[..., 0] + middle[..., 0] + back[..., 0]
    scoop, majority = rules.scoop == "double", rules.scoring in MAJORITY_SCORING
    if not (scoop or majority):
        return value
    (p0, q0, g0, v0), (p1, q1, g1, v1), (p2, q2, g2, v2) = ((r[..., 1], r[..., 2], r[..., 3], r[..., 4])
                                                            for r in (front, middle, back))
    if scoop:
        value = value + (p0 * p1 * p2 * (v0 + v1 + v2) - (g0 * q1 * q2 + q0 * g1 * q2 + q0 * q1 * g2))
    if majority:
        value = value + _majority(((p0, q0), (p1, q1), (p2, q2)))
    return value


def _majority(rows: tuple[tuple[np.ndarray, np.ndarray], ...]) -> np.ndarray:
    """The majority term of rows that win with chance ``p`` and lose with chance ``q`` (the
    pairs of ``rows``): the chance of winning more rows than losing minus the chance of the
    reverse, the distribution of rows won minus rows lost (shifted by 3) built row by row as
    the kernel builds it."""
    dist = np.zeros((7, *np.shape(rows[0][0])))
    dist[3] = 1.0
    for p, q in rows:
        step = dist * (1.0 - p - q)
        step[1:] += dist[:-1] * p
        step[:-1] += dist[1:] * q
        dist = step
    return dist[4] + dist[5] + dist[6] - dist[0] - dist[1] - dist[2]


def value_bounds(rules: ThirteenRules) -> tuple[float, float]:
    """The lowest and highest value a valid split can have under ``rules`` (at any table
    size): each row's ``v p - G`` lies within ``±R``, ``R`` the spread of the row's values
    and 0, the scoop term within the sum of those, the majority term within ±1."""
    table = _royalties(rules)
    spread = float((np.maximum(table.max(axis=1), 0) - np.minimum(table.min(axis=1), 0)).sum())
    bound = spread * (2 if rules.scoop == "double" else 1) + (rules.scoring in MAJORITY_SCORING)
    return -bound, bound
