"""Reference rows: the rows a greedy player sets, position by position, as a yardstick for
the strength of a row (what the ``heuristic`` agent's split values are built on).

A fixed sample of hands is dealt from a seeded generator and arranged the greedy way (the
strongest last row, then the strongest middle row of the rest: :meth:`Game.strongest_rows`);
hands whose greedy arrangement is invalid are left out, and so are hands the game pays
without comparing rows (a special hand, under :meth:`Game.compares_rows`). The sorted row
strengths at each position answer, for any row, the share of reference rows it beats
(:meth:`ReferenceRows.below`) and the share that beat it (:meth:`ReferenceRows.above`).
Pure: standard library and NumPy.

>>> from splitpoker.envs.games import make_game
>>> ref = reference_rows(make_game("biji"), hands=2000)
>>> ref.strengths.shape
(3, 2000)
>>> bool((ref.below(2, ref.strengths[1]) <= ref.below(1, ref.strengths[1])).all())  # pot 3 is stronger
True
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from .strength import split_of_rows

if TYPE_CHECKING:
    from .game import Game
    from .switches import RuleSwitches

#: hands in the reference sample, and the seed of its deal
REFERENCE_HANDS = 5_000
REFERENCE_SEED = 20_240


@dataclasses.dataclass(frozen=True, eq=False)
class ReferenceRows:
    """The reference rows' strengths, sorted ascending at each position: ``(3, M)`` int64."""

    strengths: np.ndarray

    @property
    def size(self) -> int:
        return int(self.strengths.shape[1])

    def below(self, row: int, strengths: np.ndarray) -> np.ndarray:
        """The share of reference rows at position ``row`` strictly weaker than each strength."""
        return np.searchsorted(self.strengths[row], strengths, side="left") / self.size

    def above(self, row: int, strengths: np.ndarray) -> np.ndarray:
        """The share of reference rows at position ``row`` strictly stronger than each strength."""
        return 1.0 - self.not_above(row, strengths) / self.size

    def tail_sums(self, weights: np.ndarray) -> np.ndarray:
        """For the reference rows of one position with ``weights`` (M,) in sorted order:
        ``sums[c] = sum(weights[c:]) / M``, so ``sums[self.not_above(row, s)]`` is the
        weight of the rows stronger than ``s``, per reference row."""
        return np.concatenate([np.cumsum(weights[::-1])[::-1], [0.0]]) / self.size

    def not_above(self, row: int, strengths: np.ndarray) -> np.ndarray:
        """How many reference rows at position ``row`` are not stronger than each strength."""
        return np.searchsorted(self.strengths[row], strengths, side="right")


@cache
def search_tables(reference: ReferenceRows, shift: int = 9) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tables that find a strength among the reference rows of a position in a few steps, for
    compiled kernels. Per position: ``values`` (3, U) its distinct strengths, ascending;
    ``weaker`` (3, U + 1) how many rows are weaker than each of them, then the count of rows;
    ``first`` (3, B + 1) for each bucket of ``2**shift`` strengths, the first distinct
    strength not below the bucket's start (past the strongest row: the count of distinct
    strengths); ``distinct`` (3,) that count. Positions with fewer distinct strengths are
    padded."""
    unique = [np.unique(row) for row in reference.strengths]
    distinct = np.array([len(u) for u in unique], dtype=np.int64)
    buckets = max(int(u[-1]) >> shift for u in unique) + 2
    values = np.zeros((3, distinct.max()), dtype=np.int64)
    weaker = np.zeros((3, distinct.max() + 1), dtype=np.int64)
    first = np.zeros((3, buckets), dtype=np.int64)
    for k, (row, u) in enumerate(zip(reference.strengths, unique)):
        values[k, :len(u)] = u
        weaker[k, :len(u)] = np.searchsorted(row, u, side="left")
        weaker[k, len(u):] = len(row)
        first[k] = np.searchsorted(u, np.arange(buckets, dtype=np.int64) << shift, side="left")
    return values, weaker, first, distinct


def greedy_rows(game: Game, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The row strengths ``(H, 3)`` of hands ``(H, hand size)`` (slot order) arranged the
    greedy way, and whether each arrangement is valid ``(H,)``."""
    last, middle = game.strongest_rows(hands)
    strengths = game.arranged_strengths(game.arranged(hands, split_of_rows(game.split_index, middle, last)))
    return strengths, np.asarray(game.valid_rows(*strengths.T), dtype=bool)


@cache
def _reference(game_class: type[Game], rules: RuleSwitches, hands: int, seed: int) -> ReferenceRows:
    game = game_class(rules)
    rng = np.random.default_rng(seed)
    deck = game.deck()
    dealt = np.sort(rng.permuted(np.broadcast_to(deck, (hands, len(deck))), axis=1)[:, :game.hand_size], axis=1)
    strengths, valid = greedy_rows(game, dealt.astype(np.intp))
    kept = strengths[valid & game.compares_rows(dealt)]
    return ReferenceRows(np.ascontiguousarray(np.sort(kept, axis=0).T))


def reference_rows(game: Game, hands: int = REFERENCE_HANDS, seed: int = REFERENCE_SEED) -> ReferenceRows:
    """The reference rows of ``game``'s rules (computed once per rules, then cached)."""
    return _reference(type(game), game.rules, hands, seed)
