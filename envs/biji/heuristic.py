"""The value of every split of a Biji hand for the ``heuristic`` agent: its expected payoff
at a table of ``n`` players whose pots are drawn, pot by pot, from the pots a greedy player
sets (:mod:`splitpoker.envs.reference`), the opponents independent of each other.

For a pot that beats a share ``F`` of the reference pots at its position, every opponent is
weaker with probability ``F``: the pot takes first place with probability ``F**(n-1)`` and
is then paid ``1 + 2 + … + (n-1)``; otherwise it pays one for each stronger opponent,
``(n-1)(1-F)`` on average. A split is worth its three pots plus its 喜 bonuses
(顺清打头, pot 1 a straight flush, and 全三, three trips) and the chance of a
sweep (通锅, first place in all three pots), each 喜 paid ``(n-1)`` by each of the
``n-1`` others (the 喜 of the hand's cards alone, 全黑 and the like, are the same for
every split and left out). Splits whose pots are not strictly increasing get ``-inf``. The
value is computed in two steps the game exposes
(:meth:`~splitpoker.envs.game.Game.heuristic_values_of`): each pot's terms from its strength
and position (:func:`row_terms`), then the split's value from its three pots' terms
(:func:`combined`); :func:`split_values` computes the terms once per subset of a hand and
gathers them into every split. Pure: standard library and NumPy.

>>> from splitpoker.envs.games import make_game
>>> from splitpoker.envs.reference import reference_rows
>>> game = make_game("biji")
>>> hands = game.hands_array([game.slots(range(2, 11))])
>>> every = split_values(hands, game.rules, reference_rows(game), 4)[0]
>>> splits = game.candidate_lists(hands)[0]
>>> bool(np.array_equal(every[splits], game.heuristic_values_at(hands[[0] * len(splits)], splits, 4)))
True
"""

from __future__ import annotations

import numpy as np

from ..reference import ReferenceRows
from ..splits import BIJI
from ..strength import split_columns, subset_strengths
from .rules import BijiRules, GroupType, group_strengths, increasing_pots, strength_type

_TRIPS, _STRAIGHT_FLUSH = int(GroupType.TRIPS), int(GroupType.STRAIGHT_FLUSH)
#: hands valued in one pass by :func:`split_values` (its arrays are ``(hands, 1680)``)
_CHUNK = 256


def split_values(hands: np.ndarray, rules: BijiRules, reference: ReferenceRows, num_players: int) -> np.ndarray:
    """Values ``(H, 1680)`` of every split of hands ``(H, 9)`` (slot order) at a table of
    ``num_players``; ``-inf`` where the pots are not strictly increasing."""
    hands = np.asarray(hands, dtype=np.intp)
    if not len(hands):
        return np.zeros((0, BIJI.n_actions))
    return np.concatenate([_hand_values(hands[at:at + _CHUNK], rules, reference, num_players)
                           for at in range(0, len(hands), _CHUNK)])


def best_splits(hands: np.ndarray, rules: BijiRules, reference: ReferenceRows, num_players: int) -> np.ndarray:
    """The split of highest value of each hand ``(H, 9)`` (the lowest index of equals)."""
    return np.argmax(split_values(hands, rules, reference, num_players), axis=1).astype(np.int64)


def pot_bonuses(position: int, strengths: np.ndarray, rules: BijiRules) -> np.ndarray:
    """The 喜 pots of ``strengths`` ``(...)`` earn by themselves at ``position`` (0: pot 1):
    顺清打头, a straight flush in pot 1; float ``(...)``."""
    if position:
        return np.zeros(np.shape(strengths))
    return rules.xi_straight_flush_head * (strength_type(strengths) == _STRAIGHT_FLUSH).astype(float)


def value_bounds(rules: BijiRules, num_players: int) -> tuple[float, float]:
    """The lowest and highest value a valid split can have at a table of ``num_players``:
    each pot pays at most ``n - 1`` and wins at most ``(n - 1) n / 2``, and the 喜 terms
    (all non-negative) add at most their values, each paid ``(n - 1)`` by ``n - 1`` others."""
    others = num_players - 1
    xi = rules.xi_straight_flush_head + rules.xi_sweep + rules.xi_three_trips
    return -3.0 * others, 3.0 * others * num_players / 2 + others * others * xi


def _hand_values(hands: np.ndarray, rules: BijiRules, reference: ReferenceRows, n: int) -> np.ndarray:
    """:func:`split_values` of hands ``(H, 9)``: each pot's terms per subset (84 a hand),
    gathered into the 1,680 splits."""
    per_subset = subset_strengths(hands, BIJI, lambda groups: group_strengths(groups, rules))[3]
    columns = split_columns(BIJI)
    first, second, third = (row_terms(k, per_subset, rules, reference, n).take(columns[k], axis=-2) for k in range(3))
    valid = increasing_pots(*(per_subset.take(columns[k], axis=-1) for k in range(3)))
    return np.where(valid, combined(first, second, third, rules, n), -np.inf)


def row_terms(position: int, strengths: np.ndarray, rules: BijiRules, reference: ReferenceRows, n: int) -> np.ndarray:
    """The terms ``(..., 3)`` of pots of ``strengths`` ``(...)`` at ``position`` at a table
    of ``n``: the chance of first place, the pot's expected payment (with the 喜 it earns by
    itself) and whether it is trips."""
    others = n - 1
    weaker = reference.below(position, strengths)
    terms = np.empty((*np.shape(strengths), 3))
    terms[..., 0] = chance = weaker**others
    terms[..., 1] = chance * (others * n / 2) - others * (1.0 - weaker)
    if position == 0:
        terms[..., 1] += others * others * pot_bonuses(position, strengths, rules)
    terms[..., 2] = strength_type(strengths) == _TRIPS
    return terms


def combined(first: np.ndarray, second: np.ndarray, third: np.ndarray, rules: BijiRules, n: int) -> np.ndarray:
    """The values of splits whose pots are strictly increasing, from their pots'
    :func:`row_terms` ``(..., 3)`` each: the three payments, then the 喜 of a sweep and of
    three trips."""
    others = n - 1
    values = first[..., 1] + second[..., 1] + third[..., 1]
    xi = rules.xi_sweep * first[..., 0] * second[..., 0] * third[..., 0] \
        + rules.xi_three_trips * first[..., 2] * second[..., 2] * third[..., 2]
    return values + others * others * xi
