"""The compiled passes behind the offered splits (``splitpoker.envs.offer_kernels``): one hand
at a time offers what a batch offers, bit for bit, whatever the passes a batch is cut into;
the dense read of the row tables and their search find the same rows; and the search is
NumPy's ``searchsorted``."""

from __future__ import annotations

import numpy as np
import pytest

from splitpoker.envs import offer_kernels, offered
from splitpoker.envs.game import Game
from splitpoker.envs.games import make_game
from splitpoker.envs.offered import Offered, offer, offer_hands
from splitpoker.envs.table import deal

FIELDS = ("splits", "mask", "features", "counts")


def dealt(game_name: str, preset: str, players: int, seed: int, tables: int = 12) -> tuple[Game, np.ndarray]:
    game = make_game(game_name, preset)
    return game, deal(game, players, np.random.default_rng(seed), batch=tables).slots.reshape(-1, game.hand_size)


def assert_same(mine: Offered, theirs: Offered) -> None:
    for field in FIELDS:
        a, b = getattr(mine, field), getattr(theirs, field)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), field


@pytest.mark.parametrize(("game_name", "preset", "players"),
                         [("thirteen", "classic", 4), ("thirteen", "shisanshui", 2), ("thirteen", "western", 4),
                          ("biji", "classic", 4), ("biji", "no-jokers", 2)])
@pytest.mark.parametrize("k", [4, 256])
def test_one_hand_at_a_time_offers_what_the_batch_offers(game_name: str, preset: str, players: int, k: int) -> None:
    game, hands = dealt(game_name, preset, players, seed=11)
    batch = offer_hands(game, hands, players, k)
    for i, hand in enumerate(hands):
        assert_same(offer_hands(game, hand[None], players, k), Offered(*(getattr(batch, f)[i:i + 1] for f in FIELDS)))
    lists = game.candidate_lists(hands)
    assert_same(offer(game, hands, [part.tolist() for part in lists], players, k), batch)


@pytest.mark.parametrize("game_name", ["thirteen", "biji"])
def test_a_batch_cut_into_passes_offers_what_one_pass_offers(game_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    game, hands = dealt(game_name, "classic", 4, seed=12)
    whole = offer_hands(game, hands, 4, 16)
    monkeypatch.setattr(offered, "OFFER_CHUNK", 7)
    assert_same(offer_hands(game, hands, 4, 16), whole)


def test_the_dense_read_and_the_search_find_the_same_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    game, hands = dealt("biji", "classic", 4, seed=13)
    assert len(offered._row_tables(type(game), game.rules).dense)  # Biji's strengths span few numbers
    dense = offer_hands(game, hands, 4, 64)
    offered._row_tables.cache_clear()
    offered._offer_tables.cache_clear()
    monkeypatch.setattr(offered, "_DENSE", 0)
    try:
        assert not len(offered._row_tables(type(game), game.rules).dense)
        assert_same(offer_hands(game, hands, 4, 64), dense)
    finally:
        offered._row_tables.cache_clear()
        offered._offer_tables.cache_clear()


def test_the_search_is_numpys_searchsorted() -> None:
    rng = np.random.default_rng(14)
    for size in (1, 2, 3, 7, 64, 1000):
        keys = np.unique(rng.integers(-50, 5000, size=size * 2))[:size].astype(np.int64)
        queries = np.concatenate([keys, keys - 1, keys + 1, [keys[0] - 10, keys[-1] + 10]]).astype(np.int64)
        found = [offer_kernels._lower_bound(keys, np.int64(q)) for q in queries]
        assert found == np.searchsorted(keys, queries).tolist()
