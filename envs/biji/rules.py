"""Biji (比机 / 比鸡) rules: switches and presets, group strength (jokers included), the
valid-split mask and scoring with places and 喜 bonuses (envs/biji/RULES.md). Pure:
standard library and NumPy.

Group strength is one integer per 3-card group, larger is stronger::

    strength = (type * 16**3 + rank_key) * 4 + suit_part

``rank_key`` holds up to three rank digits (BJ 0, RJ 1, 2 … A = 2 … 14), ``suit_part`` the
suit value of the card that breaks ties (2.3). The strength of every one of the 24,804
three-card groups of the 54-card deck is tabulated once per rules and looked up.

>>> rules = BijiRules.preset("classic")
>>> compare_groups(parse_cards("BJ RJ 4c"), parse_cards("2h 2d 3c"), rules)
-1
>>> group_type(parse_cards("RJ 5h 9h"), rules).name
'FLUSH'
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from enum import IntEnum
from functools import cache
from itertools import combinations
from math import comb
from typing import Any

import numpy as np

from ..cards import (
    BLACK_JOKER,
    N_IDS,
    RANK,
    RED_JOKER,
    SUIT,
    check_card_ids,
    check_hand,
    check_table_cards,
    format_cards,
    parse_cards,
)
from ..game import Outcomes, Score
from ..splits import BIJI
from ..strength import gather_rows, subset_strengths
from ..switches import RuleSwitches, choice, parse_suit_order

HAND_SIZE = 9
ROW_SIZES = (3, 3, 3)
ROW_NAMES = ("pot 1", "pot 2", "pot 3")
PLAYERS = (2, 5)
XI_NAMES = ("all_black", "all_red", "nine_straight", "four_of_a_kind", "sweep", "straight_flush_head", "three_trips")

__all__ = ["GroupType", "BijiRules", "BijiScore", "group_strengths", "group_strength", "group_type",
           "compare_groups", "is_valid", "valid_mask", "split_strengths", "score_table", "score_tables", "parse_cards",
           "parse_arrangement", "HAND_SIZE", "ROW_SIZES", "ROW_NAMES", "PLAYERS", "XI_NAMES", "hand_slots",
           "check_arrangement", "group_table", "xi_table", "check_table", "strength_type", "increasing_pots", "hand_xi",
           "xi_payoff", "pot_payments"]


class GroupType(IntEnum):
    """Three-card group types, weakest first."""

    HIGH_CARD = 0
    PAIR = 1
    STRAIGHT = 2
    FLUSH = 3
    STRAIGHT_FLUSH = 4
    TRIPS = 5


@dataclasses.dataclass(frozen=True)
class BijiRules(RuleSwitches):
    """The switches of Biji (envs/biji/RULES.md sections 8 and 9). Build with
    ``BijiRules.preset(name, **overrides)``."""

    GAME = "biji"

    jokers: str = choice("rank0", ("rank0", "none"), "54 cards with two jokers of rank 0, or 52 cards")
    suit_order: str = choice("hearts>spades>diamonds>clubs", None, "suit strength, strongest first")
    pair_tiebreak: str = choice("kicker_suit", ("kicker_suit", "pair_suit"),
                                "equal pairs and kickers: the kicker's suit, or the best suit in the pair")
    flush_compare: str = choice("top_card", ("top_card", "all_ranks"),
                                "flushes and straights: top card rank then its suit, or all ranks first")
    xi_all_black: int = choice(1, None, "喜 for 全黑: all nine cards black (♠ ♣ BJ); 0 switches it off")
    xi_all_red: int = choice(1, None, "喜 for 全红: all nine cards red (♥ ♦ RJ)")
    xi_nine_straight: int = choice(1, None, "喜 for 全顺: nine consecutive ranks, no joker")
    xi_four_of_a_kind: int = choice(1, None, "喜 for 四张: each rank held four times")
    xi_sweep: int = choice(1, None, "喜 for 通锅: first place in all three pots")
    xi_straight_flush_head: int = choice(2, None, "喜 for 顺清打头: pot 1 is a straight flush")
    xi_three_trips: int = choice(3, None, "喜 for 全三: all three pots are trips")

    PRESETS = {"classic": {}, "no-jokers": {"jokers": "none"}}

    def _check(self) -> None:
        for name in XI_NAMES:
            if getattr(self, f"xi_{name}") < 0:
                raise ValueError(f"biji switch xi_{name}={getattr(self, f'xi_{name}')} is not allowed; use 0 or more")

    @property
    def has_jokers(self) -> bool:
        return self.jokers == "rank0"

    def xi_values(self) -> dict[str, int]:
        return {name: getattr(self, f"xi_{name}") for name in XI_NAMES}

    def tables(self) -> dict[str, Any]:
        """What each place pays the pot's winner ((place − 1) units), and each 喜's value
        (envs/biji/RULES.md sections 6 and 7)."""
        return {"pot_payments": {f"place_{place}": place - 1 for place in range(2, PLAYERS[1] + 1)},
                "xi": self.xi_values()}


# ----------------------------------------------------------------------------- strength

def _rank(card: int) -> int:
    """Rank digit: BJ 0, RJ 1, 2 … A = 2 … 14."""
    return card if card < 2 else int(RANK[card]) + 2


def _joker_suits(card: int) -> tuple[int, int]:
    """The suits a joker may stand for in a flush: BJ ♠/♣, RJ ♥/♦."""
    return (0, 3) if card == BLACK_JOKER else (1, 2)


def _scalar_strength(group: tuple[int, int, int], rules: BijiRules) -> int:
    """Strength of one group of three card ids (sorted), straight from envs/biji/RULES.md sections 3 and 4."""
    values = parse_suit_order(rules.suit_order)
    jokers = [c for c in group if c < 2]
    real = sorted((c for c in group if c >= 2), key=lambda c: (_rank(c), values[SUIT[c]]), reverse=True)
    ranks = [_rank(c) for c in real]
    counts = Counter(ranks)
    if len(jokers) == 2:  # BJ + RJ: the lowest pair, the real card its kicker
        return ((GroupType.PAIR * 4096 + 0 * 256 + ranks[0] * 16) * 4
                + values[SUIT[real[0]]] * (rules.pair_tiebreak == "kicker_suit"))
    if not jokers and len(counts) == 1:
        return (GroupType.TRIPS * 4096 + ranks[0] * 256) * 4
    if 2 in counts.values():  # a pair of real cards, the kicker real or a joker
        pair_rank = next(r for r, n in counts.items() if n == 2)
        pair_cards = [c for c in real if _rank(c) == pair_rank]
        kicker = jokers[0] if jokers else next(c for c in real if _rank(c) != pair_rank)
        if rules.pair_tiebreak == "kicker_suit":
            suit = 0 if kicker < 2 else values[SUIT[kicker]]
        else:
            suit = max(values[SUIT[c]] for c in pair_cards)
        return (GroupType.PAIR * 4096 + pair_rank * 256 + _rank(kicker) * 16) * 4 + suit
    suits = {int(SUIT[c]) for c in real}
    flush = len(suits) == 1 and (not jokers or next(iter(suits)) in _joker_suits(jokers[0]))
    straight = not jokers and (ranks[0] - ranks[2] == 2 or ranks == [14, 3, 2])
    top = real[1] if ranks == [14, 3, 2] else real[0]  # A-2-3: the 3 is the highest card
    top_suit = values[SUIT[top]]
    if straight:
        kind = GroupType.STRAIGHT_FLUSH if flush else GroupType.STRAIGHT
        return (kind * 4096 + _rank(top) * 256) * 4 + top_suit
    digits = ranks + [_rank(j) for j in jokers]
    if flush and rules.flush_compare == "top_card":
        return (GroupType.FLUSH * 4096 + digits[0] * 256) * 4 + top_suit
    kind = GroupType.FLUSH if flush else GroupType.HIGH_CARD
    return (kind * 4096 + digits[0] * 256 + digits[1] * 16 + digits[2]) * 4 + top_suit


def combo_index(a: Any, b: Any, c: Any) -> Any:
    """Position of the card-id triple ``a < b < c`` among all 3-subsets of the 54 ids
    (combinatorial number system), for scalars and arrays alike; :mod:`.kernels` compiles
    this same function."""
    return a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6


def _combo_index(groups: np.ndarray) -> np.ndarray:
    """Position of sorted card-id triples ``(..., 3)`` among all 3-subsets of the 54 ids."""
    return combo_index(groups[..., 0], groups[..., 1], groups[..., 2])


@cache
def group_table(rules: BijiRules) -> np.ndarray:
    """The strength of every group of three of the 54 card ids under ``rules``, at the
    group's :func:`combo_index`: built once."""
    groups = np.array(list(combinations(range(N_IDS), 3)), dtype=np.int64)
    table = np.empty(comb(N_IDS, 3), dtype=np.int64)
    table[_combo_index(groups)] = [_scalar_strength((int(a), int(b), int(c)), rules) for a, b, c in groups]
    return table


def group_strengths(groups: np.ndarray, rules: BijiRules) -> np.ndarray:
    """Strengths of a batch of groups, shape ``(N, 3)`` card ids each sorted ascending → ``(N,)`` int64."""
    return group_table(rules)[_combo_index(np.asarray(groups, dtype=np.int64))]


def strength_type(strength: Any) -> Any:
    """The :class:`GroupType` value of a strength."""
    return np.asarray(strength) // 4 // 4096


def _check_group(cards: Sequence[int], rules: BijiRules, what: str = "group") -> np.ndarray:
    check_hand(cards, 3, jokers=rules.has_jokers, what=f"{what} {format_cards(cards)!r}")
    return np.sort(np.asarray(cards, dtype=np.int64))


def group_strength(cards: Sequence[int], rules: BijiRules) -> int:
    return int(group_strengths(_check_group(cards, rules)[None], rules)[0])


def group_type(cards: Sequence[int], rules: BijiRules) -> GroupType:
    return GroupType(int(strength_type(group_strength(cards, rules))))


def compare_groups(a: Sequence[int], b: Sequence[int], rules: BijiRules) -> int:
    """1 when group ``a`` is stronger, -1 when ``b`` is, 0 when equal."""
    sa, sb = group_strength(a, rules), group_strength(b, rules)
    return (sa > sb) - (sa < sb)


# ----------------------------------------------------------------------------- arrangements

def hand_slots(hand: Sequence[int] | np.ndarray, rules: BijiRules, what: str = "hand") -> np.ndarray:
    check_hand(hand, HAND_SIZE, jokers=rules.has_jokers, what=what)
    return np.sort(np.asarray(hand, dtype=np.intp))


def check_arrangement(rows: Sequence[Sequence[int]], rules: BijiRules, what: str = "hand") -> list[np.ndarray]:
    """Validate three pots of three cards; return each pot sorted."""
    if len(rows) != 3 or any(len(r) != 3 for r in rows):
        sizes = "/".join(str(len(r)) for r in rows)
        raise ValueError(f"{what} has pots of {sizes} cards; a Biji arrangement is 3 | 3 | 3 cards")
    hand_slots([c for r in rows for c in r], rules, what)
    return [np.sort(np.asarray(r, dtype=np.int64)) for r in rows]


def is_valid(rows: Sequence[Sequence[int]], rules: BijiRules) -> bool:
    """True when pot 1 < pot 2 < pot 3 strictly."""
    s = group_strengths(np.stack(check_arrangement(rows, rules)), rules)
    return bool(increasing_pots(s[0], s[1], s[2]))


def split_strengths(hand: Sequence[int] | np.ndarray, rules: BijiRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Strengths of the three pots of every one of the 1,680 splits (84 group strengths gathered)."""
    per_subset = subset_strengths(hand_slots(hand, rules), BIJI, lambda groups: group_strengths(groups, rules))
    return gather_rows(per_subset, BIJI)


def increasing_pots(first: Any, second: Any, third: Any) -> Any:
    """The validity rule on pot strengths: pot 1 < pot 2 < pot 3 strictly (vectorised)."""
    return (first < second) & (second < third)


def valid_mask(hand: Sequence[int] | np.ndarray, rules: BijiRules) -> np.ndarray:
    """Boolean mask over the 1,680 splits: True where pot 1 < pot 2 < pot 3."""
    return increasing_pots(*split_strengths(hand, rules))


# ----------------------------------------------------------------------------- scoring

_IDS = np.arange(N_IDS)
_BLACK_CARD = (_IDS == BLACK_JOKER) | ((_IDS >= 2) & np.isin(SUIT, (0, 3)))
_RED_CARD = (_IDS == RED_JOKER) | ((_IDS >= 2) & np.isin(SUIT, (1, 2)))
#: per card: its rank's bit (bits 0-12; jokers none), black flag (bit 13), red flag (bit 14)
_RANK0 = np.maximum(RANK, 0).astype(np.int64)
_CARD_BITS = (np.where(_IDS >= 2, 1 << _RANK0, 0) | (_BLACK_CARD.astype(np.int64) << 13)
              | (_RED_CARD.astype(np.int64) << 14))
#: per card: 8**rank, so a sum over a hand holds the count of each rank in one octal digit
_RANK_OCTAL = np.where(_IDS >= 2, 8 ** _RANK0, 0)
_OCTAL_SHIFTS = 3 * np.arange(13, dtype=np.int64)
#: the rank sets of nine consecutive ranks: 2…T up to 6…A, and A-2…9 (ace low)
_NINE_RUNS = np.array([0b111111111 << r for r in range(5)] + [(1 << 12) | 0b11111111], dtype=np.int64)
_STRAIGHT_FLUSH, _TRIPS = int(GroupType.STRAIGHT_FLUSH), int(GroupType.TRIPS)


@cache
def _xi_values(rules: BijiRules) -> np.ndarray:
    return np.array([getattr(rules, f"xi_{name}") for name in XI_NAMES], dtype=np.int64)


def xi_table(cards: np.ndarray, strengths: np.ndarray, places: np.ndarray, rules: BijiRules) -> np.ndarray:
    """喜 held by each seat, bonus by bonus: ``cards`` (players, 9) ids, ``strengths`` and
    ``places`` (players, 3) → int array (players, 7) in the order of :data:`XI_NAMES`."""
    bits = _CARD_BITS[cards]
    every = np.bitwise_and.reduce(bits, axis=1)
    ranks_held = np.bitwise_or.reduce(bits, axis=1) & 0x1FFF
    rank_counts = (_RANK_OCTAL[cards].sum(axis=1)[:, None] >> _OCTAL_SHIFTS) & 7
    types = strength_type(strengths)
    held = np.empty((len(cards), len(XI_NAMES)), dtype=np.int64)
    held[:, 0] = (every >> 13) & 1
    held[:, 1] = (every >> 14) & 1
    held[:, 2] = (ranks_held[:, None] == _NINE_RUNS).any(axis=1)  # nine real cards of nine ranks in a run
    held[:, 3] = (rank_counts == 4).sum(axis=1)
    held[:, 4] = (places == 1).all(axis=1)
    held[:, 5] = types[:, 0] == _STRAIGHT_FLUSH
    held[:, 6] = (types == _TRIPS).all(axis=1)
    return held * _xi_values(rules)


def hand_xi(arrangements: np.ndarray, strengths: np.ndarray, rules: BijiRules) -> np.ndarray:
    """喜 every arrangement holds without the sweep (通锅, which depends on the table):
    ``arrangements`` (H, 9) card ids pot by pot, ``strengths`` (H, 3) → (H,) 喜 counts."""
    not_first = np.full(strengths.shape, 2, dtype=np.int64)
    return xi_table(arrangements, strengths, not_first, rules).sum(axis=1)


def xi_payoff(own: Any, others: Any, num_players: int) -> Any:
    """What 喜 pay a seat: every other seat pays it ``players − 1`` for each of its own 喜,
    and it pays each other seat the same for theirs (``others``: their 喜 summed)."""
    return (num_players - 1) * ((num_players - 1) * own - others)


@dataclasses.dataclass
class BijiScore(Score):
    """Payoffs of a table and their breakdown."""

    payoffs: np.ndarray
    xi_held: np.ndarray  # (players, 7): 喜 per bonus, in the order of XI_NAMES
    places: np.ndarray  # (players, 3)
    pot_payoffs: np.ndarray  # (players, 3)
    strengths: np.ndarray  # (players, 3)

    @property
    def xi(self) -> list[int]:
        """喜 count of each seat."""
        return [int(x) for x in self.xi_held.sum(axis=1)]

    @property
    def bonuses(self) -> list[dict[str, int]]:
        """The non-zero 喜 bonuses of each seat, by name."""
        return [{name: int(v) for name, v in zip(XI_NAMES, row) if v} for row in self.xi_held]

    def to_dict(self) -> dict[str, Any]:
        n, xi = len(self.payoffs), self.xi
        return {
            "payoffs": [float(p) for p in self.payoffs],
            "xi": xi,
            "pots": [{"pot": k + 1, "places": [int(p) for p in self.places[:, k]],
                      "payoffs": [float(p) for p in self.pot_payoffs[:, k]]} for k in range(3)],
            "bonuses": [{"seat": s, "xi": b, "payoff": float(xi_payoff(xi[s], sum(xi) - xi[s], n))}
                        for s, b in enumerate(self.bonuses)],
        }

    def seat_breakdown(self, seat: int) -> dict[str, Any]:
        table = self.to_dict()
        bonus = table["bonuses"][seat]
        return {"places": [pot["places"][seat] for pot in table["pots"]],
                "pot_payoffs": [pot["payoffs"][seat] for pot in table["pots"]],
                "xi": table["xi"][seat], "bonuses": bonus["xi"], "bonus_payoff": bonus["payoff"]}

    def outcomes(self) -> Outcomes:
        """Rows won: first place (shared or not) in each pot."""
        n = len(self.payoffs)
        return Outcomes(payoffs=np.asarray(self.payoffs, dtype=float), rows_won=(self.places == 1).astype(float),
                        fouled=np.zeros(n, dtype=bool), special=np.zeros(n, dtype=np.int64),
                        xi=self.xi_held.sum(axis=1).astype(np.int64))


def pot_payments(strengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Places and payments in each pot: ``strengths`` (..., players, pots) → (places,
    payoffs), for one table or a batch. Each player pays the winner (place − 1); shared
    first places split the payments."""
    stronger = (strengths[..., None, :, :] > strengths[..., :, None, :]).sum(axis=-2)
    places = 1 + stronger
    paid = (places - 1).astype(float)
    winners = places == 1
    payoffs = np.where(winners, paid.sum(axis=-2, keepdims=True) / winners.sum(axis=-2, keepdims=True), -paid)
    return places, payoffs


def check_table(arrangements: Sequence[Sequence[Sequence[int]]], rules: BijiRules) -> np.ndarray:
    """Validate a table of arrangements; return card ids of shape (players, 3, 3), each pot sorted."""
    n = len(arrangements)
    if not PLAYERS[0] <= n <= PLAYERS[1]:
        raise ValueError(f"a Biji table has 2 to 5 players, got {n} hands")
    try:
        table = np.asarray(arrangements, dtype=np.int64)
        counts = np.bincount(table.reshape(-1), minlength=N_IDS) if table.shape == (n, 3, 3) else None
    except ValueError:  # ragged rows or negative ids
        table, counts = np.empty(0, dtype=np.int64), None
    if counts is None or len(counts) > N_IDS or (not rules.has_jokers and counts[:2].any()):
        for seat, rows in enumerate(arrangements):  # find and name the bad seat
            check_arrangement(rows, rules, what=f"seat {seat} hand")
    if counts is not None and counts.max() > 1:
        check_table_cards(table.reshape(n, -1))
    return np.sort(table, axis=2)


def score_table(arrangements: Sequence[Sequence[Sequence[int]]], rules: BijiRules) -> BijiScore:
    """Score 2–5 arrangements (pot 1, pot 2, pot 3 per seat, seat order) into payoffs.
    Each seat's pots must be strictly increasing (a ValueError names the seat)."""
    table = check_table(arrangements, rules)
    n = len(table)
    strengths = group_strengths(table.reshape(-1, 3), rules).reshape(n, 3)
    increasing = increasing_pots(strengths[:, 0], strengths[:, 1], strengths[:, 2])
    if not increasing.all():
        seat = int(np.flatnonzero(~increasing)[0])
        raise ValueError(f"seat {seat} pots {' | '.join(format_cards(g) for g in table[seat])} are not "
                         "strictly increasing (pot 1 < pot 2 < pot 3)")
    places, pot_payoffs = pot_payments(strengths)
    held = xi_table(table.reshape(n, 9), strengths, places, rules)
    xi = held.sum(axis=1)
    payoffs = pot_payoffs.sum(axis=1) + xi_payoff(xi, xi.sum() - xi, n)
    return BijiScore(payoffs=payoffs, xi_held=held, places=places, pot_payoffs=pot_payoffs, strengths=strengths)


def score_tables(cards: np.ndarray, rules: BijiRules) -> tuple[np.ndarray, Outcomes]:
    """:func:`score_table` of B tables at once, vectorised over the tables: ``cards``
    (B, players, 9) valid card ids pot by pot → the payoffs (B, players) and the typed
    outcomes (leading B axis), the same numbers as ``score_table(...).outcomes()`` table by
    table. ValueError for an id that is not a card of the deck, or a card twice at a table."""
    check_card_ids(cards, jokers=rules.has_jokers, what="cards", group=2)
    table = np.sort(np.asarray(cards, dtype=np.int64).reshape(*np.shape(cards)[:2], 3, 3), axis=-1)
    batch, n = table.shape[:2]
    strengths = group_strengths(table.reshape(-1, 3), rules).reshape(batch, n, 3)
    places, pot_payoffs = pot_payments(strengths)
    xi = xi_table(table.reshape(-1, 9), strengths.reshape(-1, 3), places.reshape(-1, 3), rules).sum(axis=1)
    xi = xi.reshape(batch, n)
    payoffs = pot_payoffs.sum(axis=-1) + xi_payoff(xi, xi.sum(axis=1, keepdims=True) - xi, n)
    return payoffs, Outcomes(payoffs=payoffs, rows_won=(places == 1).astype(float),
                             fouled=np.zeros((batch, n), dtype=bool), special=np.zeros((batch, n), dtype=np.int64),
                             xi=xi.astype(np.int64))


def parse_arrangement(text: str | Sequence[Any], rules: BijiRules) -> list[list[int]]:
    """Read ``"pot 1 | pot 2 | pot 3"`` into three groups of card ids (validated)."""
    from ..cards import parse_rows

    rows = parse_rows(text)
    check_arrangement(rows, rules, what=f"hand {text!r}" if isinstance(text, str) else "hand")
    return rows
