"""Thirteen's one-table breakdown (``score_table``: the pairs, fouls and specials that
rendering and browser play read, and ``payoff_items``) adds up to the batched payoffs and
outcomes of ``score_tables`` on random deals, under every preset and the switches that
change payments, with fouls and special hands planted."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from splitpoker.envs.games import make_game
from splitpoker.envs.thirteen import scoring
from tests.test_score_batch import THIRTEEN_RULES, with_specials

CASES: list[tuple[str, dict[str, Any]]] = [
    *THIRTEEN_RULES, ("classic", {"scoop": "double", "home_run": True}), ("shisanshui", {"home_run": True}),
    ("banker", {"tie_winner": "banker", "suit_tiebreak": False}),
]


@pytest.mark.parametrize("preset, switches", CASES,
                         ids=[p + "".join(f"-{k}={v}" for k, v in s.items()) for p, s in CASES])
def test_breakdown_adds_up_to_the_batched_scores(preset: str, switches: dict[str, Any]) -> None:
    rng = np.random.default_rng(5)
    game = make_game("thirteen", preset, **switches)
    lo, hi = game.players
    for n in range(max(lo, game.rules.banker_seat + 1), hi + 1):
        tables = [with_specials(rng, game, n) for _ in range(40)]
        payoffs, outcomes = scoring.score_tables(np.array([[np.concatenate(h) for h in t] for t in tables]),
                                                 game.rules)
        for b, table in enumerate(tables):
            score = scoring.score_table(table, game.rules)
            assert score.payoffs.tolist() == payoffs[b].tolist()
            assert score.fouled == outcomes.fouled[b].tolist() and score.specials == outcomes.special[b].tolist()
            assert [p["seats"] for p in score.pairs] == [list(pair) for pair in scoring.compared_pairs(n, game.rules)]
            paid = np.zeros(n)
            for pair in score.pairs:
                i, j = pair["seats"]
                parts = sum(pair["rows"]) + pair["majority"] + pair["special"] + pair["scoop"] + pair["home_run"]
                assert parts == pair["total"], pair
                assert not pair["special"] or pair["rows"] == [0, 0, 0] and not pair["scoop"], pair
                paid[i] += pair["total"]
                paid[j] -= pair["total"]
            assert paid.tolist() == payoffs[b].tolist()
            items = game.payoff_items(score)
            assert [sum(x["amount"] for x in items if x["seat"] == s) for s in range(n)] == payoffs[b].tolist()
