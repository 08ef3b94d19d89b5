"""The page's 理牌 pickers: the row types each row can hold, and the groups of a hand's cards
that make each type, strongest first. The rules stay in the game: a type is offered for a
row when the game names an example row of that size so, and a group is read off a row of
the hand that the game types so.

>>> from splitpoker.envs.games import make_game
>>> pickers(make_game("thirteen"))[0]
['pair', 'trips']
>>> from splitpoker.envs.cards import parse_cards
>>> groups(make_game("biji"), parse_cards("BJ RJ 4d 9d 2c 7s 7h Kc Qh"))[3]["pair"][:2]
[['7h', '7s'], ['BJ', 'RJ']]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ..envs.cards import RANK, format_card, parse_cards
from ..envs.game import Game

__all__ = ["PICKERS", "groups", "key_cards", "pickers"]

#: row types the page can pull from the unplaced cards, with a row of each, by size, whose
#: type the game is asked: a type is offered for a row when the game names its example so
PICKERS: dict[str, dict[int, str]] = {
    "pair": {3: "9c 9d 2h", 5: "9c 9d 2h 4s 6c"},
    "two_pair": {5: "9c 9d 5h 5s 2c"},
    "trips": {3: "9c 9d 9h", 5: "9c 9d 9h 2s 4c"},
    "straight": {3: "5c 6d 7h", 5: "5c 6d 7h 8s 9c"},
    "flush": {3: "2h 5h 9h", 5: "2h 5h 9h Jh Kh"},
    "full_house": {5: "9c 9d 9h 2s 2c"},
    "four_of_a_kind": {5: "9c 9d 9h 9s 2c"},
    "straight_flush": {3: "5h 6h 7h", 5: "5h 6h 7h 8h 9h"},
}


def pickers(game: Game) -> list[list[str]]:
    """For each row of ``game``, the row types of :data:`PICKERS` a row of its size can be
    (the game types the example row of that size as the picker's name), weakest first."""
    offered = []
    for size in game.split_index.row_sizes:
        kinds = [kind for kind, examples in PICKERS.items() if size in examples
                 and game.describe_rows([parse_cards(examples[size])])[0] == kind]
        offered.append(sorted(kinds, key=game.type_names.index))
    return offered


def key_cards(row: Sequence[int]) -> list[int]:
    """The cards that make a row's type: those of a rank held more than once (the jokers
    count as one rank), else the whole row (a straight, a flush).

    >>> key_cards(parse_cards("9c 9d 2h 4s 6c")) == parse_cards("9c 9d")
    True
    """
    ranks = [int(RANK[card]) for card in row]
    repeated = [card for card, rank in zip(row, ranks) if ranks.count(rank) > 1]
    return repeated or list(row)


def groups(game: Game, hand: Sequence[int]) -> dict[int, dict[str, list[list[str]]]]:
    """By row size, for each type :func:`pickers` offers rows of that size, the groups of
    ``hand`` that make it: the :func:`key_cards` of every row of that size and type drawn
    from the hand, strongest row first, each pattern of ranks once."""
    offered: dict[int, list[str]] = {}
    for size, kinds in zip(game.split_index.row_sizes, pickers(game)):
        offered.setdefault(size, kinds)
    found: dict[int, dict[str, list[list[str]]]] = {}
    for size, kinds in offered.items():
        rows = np.array(list(itertools.combinations(sorted(hand), size)), dtype=np.intp).reshape(-1, size)
        strengths = np.asarray(game.row_strengths(rows))
        types = np.asarray(game.strength_type(strengths))
        order = np.argsort(-strengths, kind="stable")
        found[size] = {}
        for kind in kinds:
            seen: set[tuple[int, ...]] = set()
            cores: list[list[str]] = []
            for i in order[types[order] == game.type_names.index(kind)]:
                core = key_cards(rows[i].tolist())
                pattern = tuple(sorted(int(RANK[card]) for card in core))
                if pattern not in seen:
                    seen.add(pattern)
                    cores.append([format_card(card) for card in core])
            found[size][kind] = cores
    return found
