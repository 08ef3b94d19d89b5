"""The solver's exact expected-value path for Thirteen: every valid split's payoff summed
over sampled tables, without scoring a table.

Scoring between two players is a sum over rows, so the points a row earns depend only on
which cards form it: they are computed once for each of the 286 three-card and 1,287
five-card subsets of the hand (counting and summing the opponents' row points with
``searchsorted`` over their sorted row keys) and gathered into the splits. The terms that
need a whole split at once (the majority point, scoop, home run) are counted on bit sets
over (opponent, sample), again built per subset. Every rule is the scoring core's
(:mod:`.scoring`: row keys for fouls and equal rows, row points, the majority, scoop and
home-run rules and what they pay, special hands, compared pairs), applied here to counts
and bit sets; the tests check the result against ``score_table`` on the same tables.
Pure: NumPy.
"""

from __future__ import annotations

import numpy as np

from ..bits import pack_bits, popcount_rows
from ..splits import THIRTEEN
from ..strength import split_columns
from .rules import HAND_SIZE, ThirteenRules, no_foul, rank_only, strength_type, valid_strengths
from .scoring import (
    all_rows,
    compared_pairs,
    home_run,
    majority_point,
    more_rows,
    pair_factor,
    pair_results,
    points_table,
    row_keys,
    rows_decide,
    scoop_signs,
    seat_scoops,
    special_pair_total,
    table_strengths,
    tie_sign,
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
    pairs = compared_pairs(n, rules)
    first = np.array([(seat, s) in pairs for s in opp_seats])  # this seat is the pair's seat i
    compared = first | np.array([(s, seat) in pairs for s in opp_seats])

    strengths = table_strengths(opp, rules)
    fouled = ~valid_strengths(strengths[..., 0], strengths[..., 1], strengths[..., 2])
    hands = opp.reshape(samples * n_opp, HAND_SIZE)
    special = special_hands(hands, rules)[1].reshape(samples, n_opp)
    special_key = special_keys(hands, rules).reshape(samples, n_opp)
    hero_special = np.full_like(special, special_hand(slots.tolist(), rules)[1])
    hero_key = np.full_like(special_key, special_keys(slots[None], rules)[0])

    f_all, m_all, b_all = split_columns(THIRTEEN)
    if splits is None:
        ro3, ro5 = rank_only(per[3]), rank_only(per[5])
        valid = np.flatnonzero(no_foul(ro3[f_all], ro5[m_all], ro5[b_all]))
    else:
        valid = np.asarray(splits, dtype=np.intp)
    ids = (f_all[valid], m_all[valid], b_all[valid])

    # pairs decided by special hands: the same for every split
    specials = np.where(first, special_pair_total(hero_special, special, seat == rules.banker_seat, rules,
                                                  hero_key, special_key),
                        -special_pair_total(special, hero_special, np.array(opp_seats) == rules.banker_seat, rules,
                                            special_key, hero_key))
    totals = np.full(len(valid), float(int((specials * compared).sum())))
    plain = rows_decide(hero_special, special) & compared  # the pairs the rows decide
    if not plain.any():
        return valid, totals

    points = points_table(rules)
    tie = np.array([tie_sign(seat, s, rules) for s in opp_seats])
    theirs = row_keys(strengths, fouled[..., None], tie[:, None])  # (samples, opponents, 3) against this seat's rows
    their_points = points[np.arange(3), strength_type(strengths)]
    subsets = (per[3], per[5], per[5])
    mine = [row_keys(subsets[k], False) for k in range(3)]
    my_points = [points[k, strength_type(subsets[k])] for k in range(3)]
    # per row and subset: it wins the points of its own row from every opponent's key below
    # its own (a fouled hand's are below all) and pays each key above it that row's points
    for k in range(3):
        if not points[k].any():  # a row that is not paid (counted_rows, majority)
            continue
        keys = theirs[..., k][plain]
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        paid = np.concatenate([[0], np.cumsum(their_points[..., k][plain][order])])
        below = np.searchsorted(keys, mine[k], side="left")
        not_above = np.searchsorted(keys, mine[k], side="right")
        totals = totals + (below * my_points[k] - (paid[-1] - paid[not_above]))[ids[k]]
    if majority_point(rules) or rules.scoop == "double":
        their_home_runs = _opponent_home_runs(n, seat, opp_seats, pairs, strengths, fouled, special, rules)
        totals = totals + _joint_terms(rules, n, mine, my_points, ids, theirs, their_points, plain, compared,
                                       their_home_runs)
    return valid, totals


def _joint_terms(rules: ThirteenRules, n: int, mine: list[np.ndarray], my_points: list[np.ndarray],
                 ids: tuple[np.ndarray, ...], theirs: np.ndarray, their_points: np.ndarray, plain: np.ndarray,
                 compared: np.ndarray, their_home_runs: np.ndarray) -> np.ndarray:
    """The terms that need all three rows of a split at once, summed over the samples: the
    majority point (``two_four``, ``majority``), the scoop (打枪) and the home run (全垒打).
    ``mine``: this seat's row keys per subset, ``theirs`` the opponents' (samples,
    opponents, 3); ``plain``: the pairs the rows decide; ``their_home_runs``:
    :func:`_opponent_home_runs`."""
    point = majority_point(rules)
    scoop = rules.scoop == "double"
    samples = len(theirs)
    cols = np.flatnonzero(compared)
    padded = -(-samples // 64) * 64

    def block(a: np.ndarray) -> np.ndarray:
        """(samples, opponents) → (compared opponents · padded samples,), zero padded."""
        out = np.zeros((len(cols), padded), dtype=a.dtype)
        out[:, :samples] = a[:, cols].T
        return out.reshape(-1)

    live = block(plain)
    # a pair's total before a scoop doubles it: the points of every row and the majority point
    mine_total = my_points[0][ids[0]] + my_points[1][ids[1]] + my_points[2][ids[2]] + point
    # the bit sets of the subsets the splits use only (all of them when every valid split is
    # measured; a few hundred for the candidates), indexed through ``ids`` renumbered
    used = [np.unique(ids[k], return_inverse=True) for k in range(3)] if len(ids[0]) < len(mine[1]) else None
    if used is not None:
        ids = tuple(inverse for _, inverse in used)
    wins, losses = [], []
    for k in range(3):
        keys = block(theirs[..., k])
        row = (mine[k] if used is None else mine[k][used[k][0]])[:, None]
        wins.append(pack_bits((row > keys) & live))
        losses.append(pack_bits((row < keys) & live))
    weight = block((their_points.sum(axis=2) + point) * plain)  # the opponents' totals before a scoop
    planes = [pack_bits((weight >> p) & 1 == 1) for p in range(int(weight.max()).bit_length())]
    scooped, home = int(pair_factor(True, False)) - 1, int(pair_factor(True, True) - pair_factor(True, False))
    their_bits = pack_bits(block(their_home_runs)) if their_home_runs.any() else None

    out = np.zeros(len(mine_total))
    for start in range(0, len(mine_total), _CHUNK):
        part = slice(start, start + _CHUNK)
        won = [wins[k][ids[k][part]] for k in range(3)]
        lost = [losses[k][ids[k][part]] for k in range(3)]
        if point:
            ahead, behind = more_rows(won, lost)
            out[part] += point * (popcount_rows(ahead) - popcount_rows(behind))
        if not scoop:
            continue
        swept, swept_by = all_rows(won), all_rows(lost)
        out[part] += scooped * popcount_rows(swept) * mine_total[part]
        out[part] -= scooped * sum((1 << p) * popcount_rows(swept_by & plane) for p, plane in enumerate(planes))
        every = home_run(list(swept.reshape(len(swept), len(cols), -1).swapaxes(0, 1)), n, rules)
        if every is not False:
            out[part] += home * popcount_rows(every) * len(cols) * mine_total[part]
        if their_bits is not None:
            their_home = swept_by & their_bits
            out[part] -= home * sum((1 << p) * popcount_rows(their_home & plane) for p, plane in enumerate(planes))
    return out


def _opponent_home_runs(n: int, seat: int, opp_seats: tuple[int, ...], pairs: list[tuple[int, int]],
                        strengths: np.ndarray, fouled: np.ndarray, special: np.ndarray,
                        rules: ThirteenRules) -> np.ndarray:
    """(samples, opponents): the opponent scooped every other opponent, so that scooping
    this seat too is its home run (:func:`.scoring.home_run`)."""
    out = np.zeros(fouled.shape, dtype=bool)
    if not rules.home_run:
        return out
    index = {s: c for c, s in enumerate(opp_seats)}
    among = [(index[a], index[b]) for a, b in pairs if seat not in (a, b)]
    if not among:
        return out
    i, j = np.array(among).T
    ties = np.array([[[tie_sign(opp_seats[a], opp_seats[b], rules)]] for a, b in among])
    signs = scoop_signs(pair_results(strengths.transpose(1, 2, 0), fouled.T[:, None], special.T, i, j, ties))
    for c in range(len(opp_seats)):
        out[:, c] = home_run([*seat_scoops(signs, among, c), True], n, rules)
    return out
