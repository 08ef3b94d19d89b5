"""The vectorised scoring of B tables (``Game.score_batch``, each engine's ``score_tables``,
``Tables.score``) gives exactly the numbers of ``score_table`` table by table: payoffs and
every typed outcome, under every preset of both games and the switches that change
payments, with fouls and special hands planted."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from splitpoker.envs.biji.rules import BijiRules
from splitpoker.envs.game import Game, Outcomes
from splitpoker.envs.games import game_names, make_game
from splitpoker.envs.table import deal
from splitpoker.envs.thirteen.rules import ThirteenRules
from tests.test_biji_rules import random_table as biji_table
from tests.test_solver import _plant
from tests.test_thirteen_rules import random_table as thirteen_table

THIRTEEN_RULES: list[tuple[str, dict[str, Any]]] = [
    *[(name, {}) for name in ThirteenRules.PRESETS],
    ("classic", {"scoop": "double"}), ("classic", {"suit_tiebreak": False}),
    ("classic", {"rank_compare": "top", "suit_tiebreak": False}), ("baodao", {"scoop": "double"}),
    ("shisanshui", {"special_pays": 2}), ("mianbai", {"scoring": "majority"}),
    ("banker", {"banker_seat": 2}), ("classic", {"specials": "suit_dragon"}),
    ("banker", {"specials": "banker", "scoring": "pairwise"}),
]
BIJI_RULES: list[tuple[str, dict[str, Any]]] = [
    *[(name, {}) for name in BijiRules.PRESETS],
    ("classic", {"xi_sweep": 0, "pair_tiebreak": "pair_suit", "flush_compare": "all_ranks"}),
]


def per_table(game: Game, tables: list[list[list[list[int]]]]) -> Outcomes:
    outcomes = [game.score(t).outcomes() for t in tables]
    return Outcomes(**{f.name: np.stack([getattr(o, f.name) for o in outcomes]) for f in dataclasses.fields(Outcomes)})


def assert_same(got: Outcomes, want: Outcomes) -> None:
    for field in dataclasses.fields(Outcomes):
        a, b = getattr(got, field.name), getattr(want, field.name)
        assert a.shape == b.shape and a.dtype.kind == b.dtype.kind, field.name
        assert np.array_equal(a, b), (field.name, np.argwhere(a != b)[:3])


def with_specials(rng: np.random.Generator, game: Game, n: int) -> list[list[list[int]]]:
    """A table (fouls included) where one seat holds a planted special hand half the time."""
    table = thirteen_table(rng, game, n)
    if rng.random() < 0.5:
        seat = int(rng.integers(n))
        pool = [c for c in range(2, 54) if all(c not in row for s, h in enumerate(table) if s != seat for row in h)]
        cards = _plant(str(rng.choice(["dragon", "six_pairs", "one_colour"])), pool, rng)
        if cards is not None:
            slots = game.slots(cards)
            table[seat] = game.arrangement(slots, int(rng.integers(game.n_actions)))
    return table


#: random tables (fouls included; Thirteen's with planted special hands) by game
TABLE_MAKERS = {"thirteen": with_specials, "biji": biji_table}
CASES = [("thirteen", p, s) for p, s in THIRTEEN_RULES] + [("biji", p, s) for p, s in BIJI_RULES]


@pytest.mark.parametrize("name, preset, switches", CASES,
                         ids=[f"{g}-{p}" + "".join(f"-{k}={v}" for k, v in s.items()) for g, p, s in CASES])
def test_tables_score_as_one_table_at_a_time(name: str, preset: str, switches: dict[str, Any]) -> None:
    rng = np.random.default_rng(7)
    game = make_game(name, preset, **switches)
    lo, hi = game.players
    for n in range(max(lo, getattr(game.rules, "banker_seat", 0) + 1), hi + 1):
        tables = [TABLE_MAKERS[name](rng, game, n) for _ in range(60)]
        cards = np.array([[np.concatenate(hand) for hand in t] for t in tables])
        payoffs, outcomes = game.score_batch(cards)
        want = per_table(game, tables)
        assert np.array_equal(payoffs, want.payoffs)
        assert_same(outcomes, want)
        assert np.array_equal(Game.score_batch(game, cards)[0], payoffs)  # the base class's loop


@pytest.mark.parametrize("name", game_names())
def test_the_table_core_scores_in_one_call(name: str) -> None:
    """``Tables.score``: the batched numbers, and each table's breakdown when it is read."""
    from splitpoker.agents import load_agent

    game = make_game(name)
    tables = deal(game, 4, np.random.default_rng(3), batch=64)
    actions = load_agent("greedy", game, 4).act_batch(tables.views()).reshape(64, 4)
    result = tables.score(actions)
    assert np.array_equal(result.payoffs, np.stack([s.payoffs for s in result.scores]))
    assert len(result.scores) == 64 and result.scores is result.scores
    assert_same(result.outcomes, per_table(game, [[game.arrangement(tables.slots[b, s], int(actions[b, s]))
                                                   for s in range(4)] for b in range(64)]))
