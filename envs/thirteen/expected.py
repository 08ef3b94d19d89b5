"""The solver's exact expected-value path for Thirteen: every valid split's payoff summed
over sampled tables, without scoring a table.

Scoring between two players is a sum over rows, so the points a row earns depend only on
which cards form it: they are computed once for each of the 286 three-card and 1,287
five-card subsets of the hand (counting and summing the opponents' row values with
``searchsorted`` over their sorted row strengths) and gathered into the splits. The terms
that need a whole split at once (the majority point, scoop, home run) are counted on bit sets
over (opponent, sample), again built per subset. Every scoring rule comes from
:mod:`.rules` (row strengths, fouls, royalties, specials and their pair rule, compared
pairs): the tests check the result against the mean of ``score_table`` over the same
tables. Pure: NumPy.
"""

from __future__ import annotations

import numpy as np

from ..bits import pack_bits, popcount_rows
from ..splits import THIRTEEN
from ..strength import split_columns
from .rules import ThirteenRules, no_foul, rank_only, strength_type, valid_strengths
from .scoring import (
    MAJORITY_SCORING,
    compared_pairs,
    row_values,
    special_pair_total,
    table_strengths,
    tie_sign,
    value_table,
)
from .specials import special_hand, special_hands, special_keys

#: valid splits per chunk of the bit-set pass (bounds memory)
_CHUNK = 8192


def split_totals(per: dict[int, np.ndarray], slots: np.ndarray, seat: int, n: int, opp_seats: tuple[int, ...],
                 opp: np.ndarray, rules: ThirteenRules,
                 splits: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Valid splits of the hand (or the valid ``splits``, ascending, such as the candidates)
    and their payoffs to ``seat`` summed over the sampled tables: ``per`` holds the
    strengths of the hand's 3- and 5-card subsets, ``opp`` (samples, players - 1, 13) the
    other seats' arrangements (card ids row by row, rows sorted)."""
    samples, n_opp, _ = opp.shape
    majority = rules.scoring in MAJORITY_SCORING
    rows_paid = rules.scoring != "majority"
    scoop = rules.scoop == "double"
    pairs = compared_pairs(n, rules)
    pair_set = set(pairs)

    strengths = table_strengths(opp, rules)
    fouled = ~valid_strengths(strengths[..., 0], strengths[..., 1], strengths[..., 2])
    royal = value_table(rules)
    values = row_values(strengths, rules)
    special = special_hands(opp.reshape(samples * n_opp, 13), rules)[1].reshape(samples, n_opp)
    special_key = special_keys(opp.reshape(samples * n_opp, 13), rules).reshape(samples, n_opp)
    hero_special = special_hand(slots.tolist(), rules)[1]
    hero_key = int(special_keys(slots[None], rules)[0])
    compared = np.array([(seat, s) in pair_set or (s, seat) in pair_set for s in opp_seats])

    f_all, m_all, b_all = split_columns(THIRTEEN)
    if splits is None:
        ro3, ro5 = rank_only(per[3]), rank_only(per[5])
        valid = np.flatnonzero(no_foul(ro3[f_all], ro5[m_all], ro5[b_all]))
    else:
        valid = np.asarray(splits, dtype=np.intp)
    ids = (f_all[valid], m_all[valid], b_all[valid])
    row_subsets = (per[3], per[5], per[5])
    hero_values = [royal[k, strength_type(row_subsets[k])] for k in range(3)]

    # pairs decided by special hands: the same for every split
    constant = 0
    for j in np.flatnonzero(compared):
        other, other_key = special[:, j], special_key[:, j]
        hero_first = (seat, opp_seats[j]) in pair_set
        vi, vj = ((np.full_like(other, hero_special), other) if hero_first
                  else (other, np.full_like(other, hero_special)))
        ki, kj = (hero_key, other_key) if hero_first else (other_key, hero_key)
        first_seat = seat if hero_first else opp_seats[j]
        total = special_pair_total(vi, vj, first_seat == rules.banker_seat, rules, ki, kj)
        constant += int(total.sum()) * (1 if hero_first else -1)
    if hero_special:
        return valid, np.full(len(valid), float(constant))

    plain = (special == 0) & compared[None, :]
    good = plain & ~fouled
    vx = (hero_values[0][ids[0]] + hero_values[1][ids[1]] + hero_values[2][ids[2]] if rows_paid
          else np.zeros(len(valid), dtype=np.int64)) + int(majority)
    totals = float(constant) + float((plain & fouled).sum() * (1 + scoop)) * vx
    # who wins an equal row against each opponent (tie_winner): opponents grouped by it
    tie = np.array([tie_sign(seat, s, rules) for s in opp_seats])
    groups = [(0, good)] if not tie.any() else [(t, good & (tie == t)[None, :]) for t in np.unique(tie[compared])]
    for k in range(3):
        if not rows_paid or not royal[k].any():  # a row that is not paid (counted_rows, majority)
            continue
        mine = row_subsets[k]
        for t, live in groups:
            order = np.argsort(strengths[..., k][live], kind="stable")
            theirs = strengths[..., k][live][order]
            paid = np.concatenate([[0], np.cumsum(values[..., k][live][order])])
            below = np.searchsorted(theirs, mine, side="left")
            not_above = np.searchsorted(theirs, mine, side="right")
            won, lost_from = (not_above if t > 0 else below), (below if t < 0 else not_above)
            row_total = won * hero_values[k] - (paid[-1] - paid[lost_from])
            totals = totals + row_total[ids[k]]
    if majority or scoop:
        totals = totals + _joint_terms(rules, n, seat, opp_seats, pairs, row_subsets, ids, vx, strengths,
                                          values, special, fouled, good, plain, compared, tie)
    return valid, totals


def _joint_terms(rules: ThirteenRules, n: int, seat: int, opp_seats: tuple[int, ...],
                    pairs: list[tuple[int, int]], row_subsets: tuple[np.ndarray, ...],
                    ids: tuple[np.ndarray, ...], vx: np.ndarray, strengths: np.ndarray, values: np.ndarray,
                    special: np.ndarray, fouled: np.ndarray, good: np.ndarray, plain: np.ndarray,
                    compared: np.ndarray, tie: np.ndarray) -> np.ndarray:
    """The terms that need all three rows of a split at once, summed over the samples:
    the majority point (``two_four``, ``majority``), the scoop (打枪) doubling and the home
    run (全垒打). ``tie``: per opponent, who wins an equal row (:func:`.scoring.tie_sign`)."""
    majority = rules.scoring in MAJORITY_SCORING
    scoop = rules.scoop == "double"
    home_run = scoop and rules.home_run and n == 4
    samples, n_opp, _ = strengths.shape
    cols = np.flatnonzero(compared)
    padded = -(-samples // 64) * 64

    def block(a: np.ndarray) -> np.ndarray:
        """(samples, opponents) → (compared opponents · padded samples,), zero padded."""
        out = np.zeros((len(cols), padded), dtype=a.dtype)
        out[:, :samples] = a[:, cols].T
        return out.reshape(-1)

    live = block(good)
    tie_block = block(np.broadcast_to(tie, good.shape)) if tie.any() else None
    wins, losses = [], []
    # the bit sets of the subsets the splits use only (all of them when every valid split is
    # measured; a few hundred for the candidates), indexed through ``ids`` renumbered
    used = [np.unique(ids[k], return_inverse=True) for k in range(3)] if len(vx) < len(row_subsets[1]) else None
    if used is not None:
        ids = tuple(inverse for _, inverse in used)
    for k in range(3):
        theirs = block(strengths[..., k])
        mine = (row_subsets[k] if used is None else row_subsets[k][used[k][0]])[:, None]
        won, lost = mine > theirs, mine < theirs
        if tie_block is not None:
            equal = mine == theirs
            won, lost = won | (equal & (tie_block > 0)), lost | (equal & (tie_block < 0))
        wins.append(pack_bits(won & live))
        losses.append(pack_bits(lost & live))
    weight = block((values.sum(axis=2) + int(majority)) * good)
    planes = [pack_bits((weight >> p) & 1 == 1) for p in range(int(weight.max()).bit_length())]
    hero_home_run = home_run and len(cols) == n - 1
    swept_free = pack_bits(block(plain & fouled)) if hero_home_run else None
    their_home_run = _opponent_home_runs(n, opp_seats, pairs, strengths, special, fouled, good) if home_run else None
    their_bits = pack_bits(block(their_home_run)) if their_home_run is not None and their_home_run.any() else None

    out = np.zeros(len(vx))
    for start in range(0, len(vx), _CHUNK):
        part = slice(start, start + _CHUNK)
        wf, wm, wb = (wins[k][ids[k][part]] for k in range(3))
        lf, lm, lb = (losses[k][ids[k][part]] for k in range(3))
        if majority:
            ahead = (wf & wm) | (wf & wb) | (wm & wb) | ((wf | wm | wb) & ~(lf | lm | lb))
            behind = (lf & lm) | (lf & lb) | (lm & lb) | ((lf | lm | lb) & ~(wf | wm | wb))
            out[part] += popcount_rows(ahead) - popcount_rows(behind)
        if not scoop:
            continue
        swept, lost = wf & wm & wb, lf & lm & lb
        out[part] += popcount_rows(swept) * vx[part]
        out[part] -= sum((1 << p) * popcount_rows(lost & plane) for p, plane in enumerate(planes))
        if swept_free is not None:
            every = np.bitwise_and.reduce((swept | swept_free).reshape(len(swept), len(cols), -1), axis=1)
            out[part] += popcount_rows(every) * (2 * len(cols)) * vx[part]
        if their_bits is not None:
            lost_all = lost & their_bits
            out[part] -= 2 * sum((1 << p) * popcount_rows(lost_all & plane) for p, plane in enumerate(planes))
    return out


def _opponent_home_runs(n: int, opp_seats: tuple[int, ...], pairs: list[tuple[int, int]], strengths: np.ndarray,
                        special: np.ndarray, fouled: np.ndarray, good: np.ndarray) -> np.ndarray:
    """(samples, opponents): the opponent is compared with every seat and scoops every other
    opponent, so that scooping this seat too makes its home run."""
    out = np.zeros(good.shape, dtype=bool)
    for j, s in enumerate(opp_seats):
        if sum(s in p for p in pairs) != n - 1:
            continue
        ok = good[:, j].copy()
        for k in range(len(opp_seats)):
            if k != j:
                ok &= (special[:, k] == 0) & (fouled[:, k] | (strengths[:, j] > strengths[:, k]).all(axis=1))
        out[:, j] = ok
    return out
