"""The arrange action index (section 11 of the games' RULES.md): decode/encode, the subset tables, the counts."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitpoker.envs.games import GAMES
from splitpoker.envs.splits import BIJI, THIRTEEN, SplitIndex

#: every registered game's split index, by the game's name
INDEXES = {name: cls.split_index for name, cls in GAMES.items()}


def spec_decode(index: int, n: int, sizes: tuple[int, int, int]) -> tuple[tuple[int, ...], ...]:
    """Section 11 of the games' RULES.md written out plainly: index = F * C(n - a, b) + M."""
    a, b, _ = sizes
    f, m = divmod(index, comb(n - a, b))
    first = list(combinations(range(n), a))[f]
    rest = [s for s in range(n) if s not in first]
    second = tuple(rest[i] for i in list(combinations(range(n - a), b))[m])
    third = tuple(s for s in rest if s not in second)
    return tuple(first), second, third


def test_counts() -> None:
    assert THIRTEEN.n_actions == 72_072 == 286 * 252
    assert BIJI.n_actions == 1_680 == 84 * 20
    assert THIRTEEN.row_sizes == (3, 5, 5) and THIRTEEN.n_slots == 13
    assert BIJI.row_sizes == (3, 3, 3) and BIJI.n_slots == 9


def test_rule_examples() -> None:
    """The first and last index; F * 252 + M and P1 * 20 + P2 for hand-picked rows."""
    assert THIRTEEN.decode(0) == ((0, 1, 2), (3, 4, 5, 6, 7), (8, 9, 10, 11, 12))
    assert THIRTEEN.decode(72_071) == ((10, 11, 12), (5, 6, 7, 8, 9), (0, 1, 2, 3, 4))
    assert THIRTEEN.decode(1) == ((0, 1, 2), (3, 4, 5, 6, 8), (7, 9, 10, 11, 12))
    assert THIRTEEN.decode(252) == ((0, 1, 3), (2, 4, 5, 6, 7), (8, 9, 10, 11, 12))
    # front (0, 1, 3) is the 2nd 3-subset (F = 1); the middle holds positions (0, 2, 3, 4, 5) of
    # the remaining slots (2, 4, 5, 6, ...), which follow the C(8, 3) = 56 subsets (0, 1, ...): M = 56
    assert THIRTEEN.encode(((0, 1, 3), (2, 5, 6, 7, 8), (4, 9, 10, 11, 12))) == 252 + 56
    assert BIJI.decode(0) == ((0, 1, 2), (3, 4, 5), (6, 7, 8))
    assert BIJI.decode(1) == ((0, 1, 2), (3, 4, 6), (5, 7, 8))
    assert BIJI.decode(20) == ((0, 1, 3), (2, 4, 5), (6, 7, 8))
    assert BIJI.decode(1_679) == ((6, 7, 8), (3, 4, 5), (0, 1, 2))
    assert BIJI.encode(((6, 7, 8), (3, 4, 5), (0, 1, 2))) == 1_679


def test_biji_decode_matches_the_rule_text_everywhere() -> None:
    for index in range(BIJI.n_actions):
        assert BIJI.decode(index) == spec_decode(index, 9, (3, 3, 3))


@given(st.integers(0, THIRTEEN.n_actions - 1))
@settings(max_examples=200)
def test_thirteen_decode_matches_the_rule_text(index: int) -> None:
    assert THIRTEEN.decode(index) == spec_decode(index, 13, (3, 5, 5))


@pytest.mark.parametrize("index", list(INDEXES.values()), ids=list(INDEXES))
def test_decode_is_a_split(index: SplitIndex) -> None:
    for i in np.random.default_rng(4).integers(0, index.n_actions, 500):
        rows = index.decode(int(i))
        assert tuple(len(r) for r in rows) == index.row_sizes
        assert sorted(s for r in rows for s in r) == list(range(index.n_slots))
        assert all(list(r) == sorted(r) for r in rows)


@given(st.data())
@settings(max_examples=200)
def test_encode_decode_round_trip(data: st.DataObject) -> None:
    index = data.draw(st.sampled_from(list(INDEXES.values())))
    i = data.draw(st.integers(0, index.n_actions - 1))
    assert index.encode(index.decode(i)) == i
    # any order inside a row names the same split
    rows = [data.draw(st.permutations(list(r))) for r in index.decode(i)]
    assert index.encode(rows) == i


@given(st.permutations(list(range(13))))
@settings(max_examples=200)
def test_every_split_has_an_index(slots: list[int]) -> None:
    rows = (slots[:3], slots[3:8], slots[8:])
    i = THIRTEEN.encode(rows)
    assert [sorted(r) for r in THIRTEEN.decode(i)] == [sorted(r) for r in rows]


def test_every_index_once() -> None:
    seen = {BIJI.encode(BIJI.decode(i)) for i in range(BIJI.n_actions)}
    assert seen == set(range(BIJI.n_actions))


@pytest.mark.parametrize("index", list(INDEXES.values()), ids=list(INDEXES))
def test_table_agrees_with_decode(index: SplitIndex) -> None:
    table, slot_table = index.table, index.slot_table
    assert table.shape == (index.n_actions, 3) and slot_table.shape == (index.n_actions, index.n_slots)
    subsets = {size: index.subsets(size) for size in set(index.row_sizes)}
    for size, subset in subsets.items():
        assert subset.shape == (comb(index.n_slots, size), size)
        assert [tuple(r) for r in subset.tolist()] == list(combinations(range(index.n_slots), size))
    for i in np.random.default_rng(5).integers(0, index.n_actions, 2_000):
        rows = index.decode(int(i))
        for k, size in enumerate(index.row_sizes):
            assert tuple(subsets[size][table[i, k]]) == rows[k]
        assert tuple(slot_table[i]) == sum(rows, ())


def test_biji_table_agrees_with_decode_everywhere() -> None:
    subsets = BIJI.subsets(3)
    decoded = np.array([sum(BIJI.decode(i), ()) for i in range(BIJI.n_actions)])
    assert np.array_equal(subsets[BIJI.table].reshape(-1, 9), decoded)
    assert np.array_equal(BIJI.slot_table, decoded)


def test_thirteen_table_is_every_split_once() -> None:
    masks = (1 << THIRTEEN.slot_table.astype(np.int64))
    fronts = masks[:, :3].sum(axis=1)
    middles = masks[:, 3:8].sum(axis=1)
    assert (masks.sum(axis=1) == (1 << 13) - 1).all()
    assert len(np.unique(fronts * (1 << 13) + middles)) == THIRTEEN.n_actions
    # index order: F major, M minor
    assert (np.diff(THIRTEEN.table[:, 0]) >= 0).all()


@pytest.mark.parametrize("bad", [-1, 72_072, 10**9])
def test_decode_out_of_range(bad: int) -> None:
    with pytest.raises(ValueError, match=f"split index {bad} is out of range 0..72071"):
        THIRTEEN.decode(bad)


@pytest.mark.parametrize("rows", [
    ((0, 1, 2), (3, 4, 5), (6, 7, 8, 9)),            # wrong sizes
    ((0, 1, 2), (3, 4, 5), (6, 7, 7)),               # a slot twice
    ((0, 1, 2), (3, 4, 5), (6, 7, 9)),               # a slot out of range
    ((0, 1, 2), (3, 4, 5)),                           # two rows
])
def test_encode_rejects_non_splits(rows: tuple[tuple[int, ...], ...]) -> None:
    with pytest.raises(ValueError, match="not a split"):
        BIJI.encode(rows)


def test_split_index_needs_three_rows() -> None:
    with pytest.raises(ValueError, match="three rows"):
        SplitIndex((3, 3))


@pytest.mark.parametrize("index", [THIRTEEN, BIJI, SplitIndex((2, 3, 4))])
def test_the_splits_of_one_first_row_are_consecutive_and_equally_many(index):
    """The layout the compiled argmaxes read the table in: split ``j``'s first row is
    ``j // C(n - a, b)``."""
    a, b, _ = index.row_sizes
    block = comb(index.n_slots - a, b)
    assert np.array_equal(index.table[:, 0], np.arange(index.n_actions) // block)
