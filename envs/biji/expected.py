"""The solver's exact expected-value path for Biji: every valid split's payoff summed over
sampled tables, without scoring a table.

Pots are handled per group of the hand and per sample (84 groups): the places and payments
of each pot against the sampled opponents, gathered into the splits; the 喜 of the hand and
of the opponents from :func:`.rules.xi_table`, and the sweep (通锅) of this seat and of every
opponent counted on whole splits. The tests check the result against the mean of
``score_table`` over the same tables. Pure: NumPy.
"""

from __future__ import annotations

import numpy as np

from ..cards import format_cards
from ..splits import BIJI
from ..strength import split_columns
from .rules import BijiRules, group_strengths, hand_xi, increasing_pots, xi_payoff


def split_totals(per: np.ndarray, slots: np.ndarray, n: int, opp: np.ndarray,
                 rules: BijiRules, splits: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Valid splits of the hand (or the valid ``splits``, ascending, such as the candidates)
    and their payoffs summed over the sampled tables: ``per``
    holds the strengths of the hand's 84 groups, ``opp`` (samples, players - 1, 9) the other
    seats' arrangements (card ids pot by pot, pots sorted). Every seat meets every other in
    each pot, so the seat's place at the table does not matter."""
    samples, n_opp, _ = opp.shape
    strengths = group_strengths(opp.reshape(-1, 3), rules).reshape(samples, n_opp, 3)
    increasing = increasing_pots(strengths[..., 0], strengths[..., 1], strengths[..., 2])
    if not increasing.all():
        s, j = np.argwhere(~increasing)[0]
        raise ValueError(f"sample {s} opponent {j}: pots "
                         f"{' | '.join(format_cards(g) for g in opp[s, j].reshape(3, 3))} "
                         "are not strictly increasing")
    f_all, m_all, b_all = split_columns(BIJI)
    if splits is None:
        valid = np.flatnonzero(increasing_pots(per[f_all], per[m_all], per[b_all]))
    else:
        valid = np.asarray(splits, dtype=np.intp)
    ids = (f_all[valid], m_all[valid], b_all[valid])
    # opponents stronger than each opponent's pot, among the opponents
    above_them = (strengths[:, None, :, :] > strengths[:, :, None, :]).sum(axis=2)
    totals = np.zeros(len(valid))
    mine = per[:, None, None]
    hero_first, their_first = [], []
    for k in range(3):
        theirs = strengths[None, :, :, k]
        above, below = theirs > mine, theirs < mine
        n_above = above.sum(axis=2)
        collected = (below * (1 + above_them[None, :, :, k])).sum(axis=2)
        sharing = 1 + (theirs == mine).sum(axis=2)
        pot = np.where(n_above > 0, -n_above, collected / sharing)
        totals += pot.sum(axis=1)[ids[k]]
        hero_first.append(n_above == 0)
        their_first.append((above_them[None, :, :, k] == 0) & ~below)
    cards = slots[BIJI.slot_table[valid].astype(np.intp)]
    hero_xi = hand_xi(cards, np.stack([per[i] for i in ids], axis=1), rules)
    their_xi = hand_xi(opp.reshape(-1, 9), strengths.reshape(-1, 3), rules)
    totals += xi_payoff(hero_xi * samples, int(their_xi.sum()), n)
    if rules.xi_sweep:
        mine_swept = (hero_first[0][ids[0]] & hero_first[1][ids[1]] & hero_first[2][ids[2]]).sum(axis=1)
        theirs_swept = (their_first[0][ids[0]] & their_first[1][ids[1]] & their_first[2][ids[2]]).sum(axis=(1, 2))
        totals += xi_payoff(rules.xi_sweep * mine_swept, rules.xi_sweep * theirs_swept, n)
    return valid, totals
