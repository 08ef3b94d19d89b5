"""``python -m splitpoker.eval.rare_rows``: the seats that can make a rare strong row, checked
against every valid split of each hand, and the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from splitpoker.envs.games import make_game
from splitpoker.envs.table import deal
from splitpoker.eval.rare_rows import main, rare_rows


def _reference_can_make(game_name: str, tables: int, players: int, seed: int, category: str) -> int:
    """Seats with a valid split holding a row of ``category`` or stronger, split by split: a
    candidate dominates every other split row by row, so the candidates hold one exactly when
    some valid split does."""
    game = make_game(game_name)
    least = game.type_names.index(category)
    dealt = deal(game, players, np.random.default_rng(seed), batch=tables, mask="undominated")
    cuts = np.cumsum((0, *game.split_index.row_sizes))
    count = 0
    for hand in dealt.slots.reshape(-1, game.hand_size):
        splits = np.flatnonzero(game.valid_mask(hand))
        cards = game.arranged(np.repeat(hand[None], len(splits), axis=0), splits)
        count += any((np.asarray(game.strength_type(game.row_strengths(np.ascontiguousarray(cards[:, a:b]))))
                      >= least).any() for a, b in zip(cuts[:-1], cuts[1:]))
    return count


@pytest.mark.parametrize("category", ["straight", "straight_flush"])
def test_the_seats_that_can_make_a_row_are_those_of_every_valid_split(category: str) -> None:
    result = rare_rows("biji", ["greedy"], tables=12, players=4, seed=5, samples=4, category=category)
    assert result.can_make == _reference_can_make("biji", 12, 4, 5, category) > 0
    assert result.seats == 48 and 0 <= result.made["greedy"] <= result.solver_makes <= result.can_make


def test_the_command_prints_the_counts_and_a_bad_category_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["greedy", "--game", "biji", "--tables", "6", "--samples", "4", "--category", "straight",
                 "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["category"] == "straight" and set(printed["made"]) == {"greedy"} and printed["seats"] == 24
    assert main(["greedy", "--game", "biji", "--category", "royal"]) == 2
    err = capsys.readouterr().err
    assert err == ("python -m splitpoker.eval.rare_rows: error: --category 'royal' is not a row type of biji; its "
                   "types, weakest first: high_card, pair, straight, flush, straight_flush, trips\n")
