"""Thirteen's exact expected-value path (``Game.split_totals``) against scoring tables:
every valid split's payoff summed over sampled tables equals scoring each of those tables
(``Game.score_batch`` for every valid split, ``Game.score`` one table at a time for the
candidates), exactly, under scoops, home runs, 2-4 and majority scoring, banker tables
whose banker wins equal rows, the back only, and special hands and fouls among the
opponents."""

from __future__ import annotations

import numpy as np
import pytest

from splitpoker.envs.games import make_game
from tests.test_solver import _random_tables, random_hand

#: preset, switches, players, and a breakdown field that the candidates' tables must pay somewhere
CASES = [
    ("shisanshui", {}, 4, "home_run"),  # scoop=double, home run, specials
    ("classic", {"scoop": "double"}, 3, "scoop"),
    ("western", {}, 4, "majority"),  # scoring=two_four
    ("bidaxiao", {}, 3, "majority"),  # scoring=majority
    ("baodao", {}, 4, "special"),  # banker scoring, the banker wins equal rows, specials
    ("classic", {"scoring": "banker", "banker_seat": 1, "scoop": "double"}, 3, "scoop"),
    ("baomahui", {}, 2, "rows"),  # counted_rows=back
]


BREAKDOWN = ("rows", "majority", "special", "scoop", "home_run")


@pytest.mark.parametrize("preset,switches,players,paid", CASES)
def test_split_totals_equal_every_split_scored(preset: str, switches: dict, players: int, paid: str,
                                               rng: np.random.Generator) -> None:
    game = make_game("thirteen", preset, **switches)
    hand = random_hand(game, rng)
    seat = int(rng.integers(players))
    others = [s for s in range(players) if s != seat]
    opp = _random_tables(game, hand, players, 3, rng, plant=("dragon", "six_pairs", "one_colour"), foul_rate=0.6)
    slots = game.slots(hand)
    valid, totals = game.split_totals(slots, seat, players, tuple(others), opp)
    assert np.array_equal(valid, np.flatnonzero(game.valid_mask(slots)))

    # every valid split at every sampled table, scored in one batch
    tables = np.empty((len(valid), len(opp), players, game.hand_size), dtype=np.int64)
    tables[:, :, seat] = game.arranged(np.tile(slots, (len(valid), 1)), valid)[:, None]
    tables[:, :, others] = opp[None]
    payoffs, _ = game.score_batch(tables.reshape(-1, players, game.hand_size))
    assert np.array_equal(payoffs[:, seat].reshape(len(valid), len(opp)).sum(axis=1), totals)

    # the candidates: the same totals measured alone, and each table scored by Game.score
    candidates = np.flatnonzero(game.candidate_mask(slots))
    measured, candidate_totals = game.split_totals(slots, seat, players, tuple(others), opp, candidates)
    assert np.array_equal(measured, candidates)
    assert np.array_equal(candidate_totals, totals[np.searchsorted(valid, candidates)])
    fields = set()
    for split, total in zip(candidates, candidate_totals):
        at = np.searchsorted(valid, split)
        scores = [game.score([np.split(hand_cards, [3, 8]) for hand_cards in table]) for table in tables[at]]
        assert sum(float(score.payoffs[seat]) for score in scores) == total
        fields |= {field for score in scores for pair in score.pairs for field in BREAKDOWN if np.any(pair[field])}
    assert paid in fields
