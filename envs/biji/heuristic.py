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
every split and left out). Splits whose pots are not strictly increasing get ``-inf``. Pure: standard
library and NumPy.
"""

from __future__ import annotations

import numpy as np

from ..reference import ReferenceRows
from ..splits import BIJI
from ..strength import split_columns
from .rules import BijiRules, GroupType, group_strengths, increasing_pots, strength_type

_SUB3 = BIJI.subsets(3).astype(np.intp)


def split_values(hands: np.ndarray, rules: BijiRules, reference: ReferenceRows, num_players: int) -> np.ndarray:
    """Values ``(H, 1680)`` of every split of hands ``(H, 9)`` (slot order) at a table of
    ``num_players``; ``-inf`` where the pots are not strictly increasing."""
    return np.stack([_hand_values(hand, rules, reference, num_players)
                     for hand in np.asarray(hands, dtype=np.intp)]) if len(hands) else np.zeros((0, BIJI.n_actions))


_TRIPS, _STRAIGHT_FLUSH = int(GroupType.TRIPS), int(GroupType.STRAIGHT_FLUSH)


def best_splits(hands: np.ndarray, rules: BijiRules, reference: ReferenceRows, num_players: int) -> np.ndarray:
    """The split of highest value of each hand ``(H, 9)`` (the lowest index of equals)."""
    return np.argmax(split_values(hands, rules, reference, num_players), axis=1).astype(np.int64)


_TRIPS, _STRAIGHT_FLUSH = int(GroupType.TRIPS), int(GroupType.STRAIGHT_FLUSH)


def _hand_values(hand: np.ndarray, rules: BijiRules, reference: ReferenceRows, n: int) -> np.ndarray:
    per_subset = group_strengths(hand[_SUB3], rules)
    kinds = strength_type(per_subset)
    columns = split_columns(BIJI)
    others = n - 1
    # per subset and pot: the chance of first place and the pot's expected payment
    weaker = np.stack([reference.below(k, per_subset) for k in range(3)])
    first = weaker**others
    pots = first * (others * n / 2) - others * (1.0 - weaker)
    pots[0] += others * others * rules.xi_straight_flush_head * (kinds == _STRAIGHT_FLUSH)
    trips = (kinds == _TRIPS).astype(float)
    values = pots[0].take(columns[0]) + pots[1].take(columns[1]) + pots[2].take(columns[2])
    xi = rules.xi_sweep * first[0].take(columns[0]) * first[1].take(columns[1]) * first[2].take(columns[2]) \
        + rules.xi_three_trips * trips.take(columns[0]) * trips.take(columns[1]) * trips.take(columns[2])
    values += others * others * xi
    valid = increasing_pots(per_subset.take(columns[0]), per_subset.take(columns[1]), per_subset.take(columns[2]))
    return np.where(valid, values, -np.inf)
