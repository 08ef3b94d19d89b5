"""Slow, plain reference implementation of Thirteen (envs/thirteen/RULES.md).

Written straight from the rule text, independent of the project's engine, for tests that
compare the fast engine against it. Clarity over speed: strengths are tuples compared
lexicographically, higher is stronger.

Cards are ``(rank, suit)`` with rank 2..14 (A = 14) and suit one of ``"cdhs"``.

>>> r = rules("classic")
>>> compare(parse("Ks Kd Ac"), parse("Kh Kc Ad"), r)
1
>>> row_type(parse("As 2d 3c 4s 5h"), r)
'straight'
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

Card = tuple[int, str]
Rules = dict[str, Any]

RANK_CHARS = "23456789TJQKA"
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
SUIT_SYMBOLS = {"♠": "s", "♤": "s", "♥": "h", "♡": "h", "♦": "d", "♢": "d", "♣": "c", "♧": "c"}
CANONICAL_SUIT_ORDER = "cdhs"  # slot order of section 1: clubs < diamonds < hearts < spades

TYPES = (
    "high_card",
    "pair",
    "two_pair",
    "trips",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
)
TYPE_INDEX = {name: i for i, name in enumerate(TYPES)}

# ---------------------------------------------------------------------------- cards


def parse_card(token: str) -> Card:
    """One card from text: ``As``, ``sA``, ``♠A``, ``A♠``, ``10h`` (case-insensitive)."""
    text = token.strip()
    for symbol, letter in SUIT_SYMBOLS.items():
        text = text.replace(symbol, letter)
    text = text.upper().replace("10", "T")
    if len(text) != 2:
        raise ValueError(f"not a card: {token!r}")
    for rank_char, suit_char in ((text[0], text[1]), (text[1], text[0])):
        if rank_char in RANK_CHARS and suit_char.lower() in SUIT_NAMES:
            return (RANK_CHARS.index(rank_char) + 2, suit_char.lower())
    raise ValueError(f"not a card: {token!r}")


def parse(text: str) -> list[Card]:
    """Cards from whitespace-separated text, e.g. ``"As Td 2c"``."""
    return [parse_card(token) for token in text.split()]


def card_str(card: Card) -> str:
    """Canonical notation of one card, e.g. ``As``."""
    rank, suit = card
    return RANK_CHARS[rank - 2] + suit


def fmt(cards: Sequence[Card]) -> str:
    """Canonical notation of several cards, in the given order."""
    return " ".join(card_str(c) for c in cards)


def canonical_slots(cards: Sequence[Card]) -> list[Card]:
    """Section 1 slot order: rank ascending, ties by suit clubs < diamonds < hearts < spades."""
    return sorted(cards, key=lambda c: (c[0], CANONICAL_SUIT_ORDER.index(c[1])))


# ---------------------------------------------------------------------------- switches

PRESETS: dict[str, Rules] = {
    "classic": dict(
        wheel="second",
        flush_compare="rank_first",
        suit_tiebreak=True,
        suit_order="spades>hearts>clubs>diamonds",
        scoring="pairwise",
        banker_seat=0,
        royalties="classic",
        scoop="none",
        home_run=False,
        specials="classic",
    ),
    "shisanshui": dict(
        wheel="second",
        flush_compare="rank_first",
        suit_tiebreak=True,
        suit_order="spades>hearts>clubs>diamonds",
        scoring="pairwise",
        banker_seat=0,
        royalties="classic",
        scoop="double",
        home_run=True,
        specials="shisanshui",
    ),
    "banker": dict(
        wheel="ace_equal",
        flush_compare="suit_first",
        suit_tiebreak=True,
        suit_order="spades>hearts>clubs>diamonds",
        scoring="banker",
        banker_seat=0,
        royalties="none",
        scoop="none",
        home_run=False,
        specials="banker",
    ),
    "western": dict(
        wheel="lowest",
        flush_compare="rank_first",
        suit_tiebreak=False,
        suit_order="spades>hearts>clubs>diamonds",
        scoring="two_four",
        banker_seat=0,
        royalties="none",
        scoop="none",
        home_run=False,
        specials="off",
    ),
    # 寶馬會 (section 9): the back rows only, one unit; wheel lowest; nothing else
    "baomahui": dict(
        wheel="lowest",
        flush_compare="rank_first",
        suit_tiebreak=True,
        suit_order="spades>hearts>clubs>diamonds",
        scoring="pairwise",
        banker_seat=0,
        royalties="none",
        scoop="none",
        home_run=False,
        specials="off",
        counted_rows="back",
    ),
    # 報到十三張 (section 9): banker scoring, equal rows to the banker, its own special table
    "baodao": dict(
        wheel="second",
        flush_compare="rank_first",
        suit_tiebreak=False,
        suit_order="spades>hearts>clubs>diamonds",
        scoring="banker",
        banker_seat=0,
        royalties="classic",
        scoop="none",
        home_run=False,
        specials="baodao",
        tie_winner="banker",
    ),
    # 免擺 (section 9): a straight flush or four of a kind anywhere wins unarranged; 1 a row
    "mianbai": dict(
        wheel="second",
        flush_compare="rank_first",
        suit_tiebreak=True,
        suit_order="spades>hearts>clubs>diamonds",
        scoring="pairwise",
        banker_seat=0,
        royalties="none",
        scoop="none",
        home_run=False,
        specials="mianbai",
    ),
    # 百變 and 紹興 (section 9): whole-hand tiers, else one unit a row
    "baibian": dict(
        wheel="second",
        flush_compare="rank_first",
        suit_tiebreak=True,
        suit_order="spades>hearts>clubs>diamonds",
        scoring="pairwise",
        banker_seat=0,
        royalties="none",
        scoop="none",
        home_run=False,
        specials="baibian",
    ),
    "shaoxing": dict(
        wheel="second",
        flush_compare="rank_first",
        suit_tiebreak=True,
        suit_order="spades>hearts>clubs>diamonds",
        scoring="pairwise",
        banker_seat=0,
        royalties="none",
        scoop="none",
        home_run=False,
        specials="shaoxing",
    ),
}
# 比大小 規則一: every pair compared, one unit to whoever wins more rows (scoring=majority)
PRESETS["bidaxiao"] = dict(PRESETS["classic"], scoring="majority", royalties="none", specials="off")
# banker, rows compared by their most significant rank only, equal rows to the banker
PRESETS["banker_top"] = dict(PRESETS["banker"], suit_tiebreak=False, tie_winner="banker", rank_compare="top")
# shisanshui with the strict special table (equal values: the one listed first wins)
PRESETS["shisanshui_strict"] = dict(PRESETS["shisanshui"], specials="shisanshui_strict")

ALLOWED: dict[str, tuple[Any, ...]] = {
    "wheel": ("second", "lowest", "ace_equal", "none"),
    "flush_compare": ("rank_first", "suit_first"),
    "suit_tiebreak": (True, False),
    "scoring": ("pairwise", "banker", "two_four", "majority"),
    "royalties": ("classic", "none"),
    "scoop": ("none", "double"),
    "home_run": (True, False),
    "specials": ("classic", "shisanshui", "banker", "off", "baodao", "mianbai", "baibian", "shaoxing",
                 "suit_dragon", "classic_big_small", "shisanshui_strict", "baibian_complete", "shaoxing_distinct"),
    "counted_rows": ("all", "back"),
    "tie_winner": ("none", "banker"),
    "special_pays": tuple(range(0, 100)),
    "rank_compare": ("all", "top"),
}


def rules(preset: str = "classic", **overrides: Any) -> Rules:
    """The switch dict of a preset (section 3.6) with single switches overridden."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}")
    result = dict(PRESETS[preset])
    for name, value in overrides.items():
        if name not in result and name not in ALLOWED:
            raise ValueError(f"unknown switch {name!r}")
        if name in ALLOWED and value not in ALLOWED[name]:
            raise ValueError(f"bad value {value!r} for switch {name!r}")
        result[name] = value
    suit_strength(result)  # validates suit_order
    if not isinstance(result["banker_seat"], int) or result["banker_seat"] < 0:
        raise ValueError("banker_seat must be a non-negative int")
    if result["scoring"] == "majority":
        needs = dict(royalties="none", scoop="none", home_run=False, counted_rows="all")
        for name, value in needs.items():
            if result.get(name, value) != value:
                raise ValueError(f"scoring=majority needs {name}={value}")
    return result


def suit_strength(r: Rules) -> dict[str, int]:
    """Suit letter -> strength (higher is stronger) from ``suit_order``, strongest first."""
    names = [name.strip() for name in r["suit_order"].split(">")]
    letters = {name: letter for letter, name in SUIT_NAMES.items()}
    if sorted(names) != sorted(letters):
        raise ValueError(f"bad suit_order {r['suit_order']!r}")
    return {letters[name]: len(names) - i for i, name in enumerate(names)}


# ---------------------------------------------------------------------------- row types (3.1)


def rank_counts(cards: Sequence[Card]) -> Counter[int]:
    """How many cards of each rank."""
    return Counter(rank for rank, _ in cards)


def is_wheel(cards: Sequence[Card]) -> bool:
    """A-2-3-4-5 ranks (regardless of the ``wheel`` switch)."""
    return sorted(rank for rank, _ in cards) == [2, 3, 4, 5, 14]


def straight_value(cards: Sequence[Card], r: Rules) -> float | None:
    """Strength of a 5-card straight by its top card, or None if the ranks are no straight.

    Normal straights score their top rank (6..14). The wheel A-2-3-4-5 per ``wheel``:
    ``second`` 13.5 (between 9-T-J-Q-K and T-J-Q-K-A), ``lowest`` 5, ``ace_equal`` 14
    (equal to T-J-Q-K-A), ``none`` no straight.
    """
    if len(cards) != 5:
        return None
    ranks = sorted(rank for rank, _ in cards)
    if len(set(ranks)) == 5 and ranks[4] - ranks[0] == 4:
        return ranks[4]
    if is_wheel(cards):
        return {"second": 13.5, "lowest": 5, "ace_equal": 14, "none": None}[r["wheel"]]
    return None


def is_flush(cards: Sequence[Card]) -> bool:
    """Five cards of one suit (3-card rows are never flushes)."""
    return len(cards) == 5 and len({suit for _, suit in cards}) == 1


def row_type(cards: Sequence[Card], r: Rules) -> str:
    """Hand type of a 3-card or 5-card row (a 3-card row: high_card, pair or trips)."""
    if len(cards) not in (3, 5):
        raise ValueError("a row has 3 or 5 cards")
    counts = sorted(rank_counts(cards).values(), reverse=True)
    straight = straight_value(cards, r) is not None
    flush = is_flush(cards)
    if straight and flush:
        return "straight_flush"
    if counts[0] == 4:
        return "four_of_a_kind"
    if counts[:2] == [3, 2]:
        return "full_house"
    if flush:
        return "flush"
    if straight:
        return "straight"
    if counts[0] == 3:
        return "trips"
    if counts[:2] == [2, 2]:
        return "two_pair"
    if counts[0] == 2:
        return "pair"
    return "high_card"


def ranks_by_group(cards: Sequence[Card]) -> list[int]:
    """Distinct ranks ordered by group size, then rank, both descending."""
    counts = rank_counts(cards)
    return sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)


def rank_key(cards: Sequence[Card], r: Rules) -> tuple[float, ...]:
    """Type and ranks only, no suits (3.2 without suit rules; the yardstick of 3.3).

    After the type index: high card and flush all ranks from the top; pair the pair then
    kickers from the top; two pair high pair, low pair, kicker; trips, full house and four of
    a kind the rank of the three / four; straight and straight flush the straight value.

    Under ``rank_compare: top`` only the most significant rank follows the type: the highest
    card (high card, flush), the pair, the higher pair, the three, the four; straights keep
    their straight value.
    """
    kind = row_type(cards, r)
    index = TYPE_INDEX[kind]
    if kind in ("straight", "straight_flush"):
        value = straight_value(cards, r)
        assert value is not None
        return (index, value)
    if r.get("rank_compare", "all") == "top":
        return (index, ranks_by_group(cards)[0])
    if kind in ("trips", "full_house", "four_of_a_kind"):
        return (index, ranks_by_group(cards)[0])
    # high card, pair, two pair, flush: groups first, then ranks, all descending
    return (index, *ranks_by_group(cards))


def full_key(cards: Sequence[Card], r: Rules) -> tuple[float, ...]:
    """``rank_key`` with ``flush_compare: suit_first`` applied (flush suit right after type)."""
    key = rank_key(cards, r)
    kind = row_type(cards, r)
    if r["flush_compare"] == "suit_first" and kind in ("flush", "straight_flush"):
        flush_suit = cards[0][1]
        return (key[0], suit_strength(r)[flush_suit], *key[1:])
    return key


def most_significant_card(cards: Sequence[Card], r: Rules) -> Card:
    """First card by rank-group size, then rank (A high, also in a wheel), then suit strength."""
    counts = rank_counts(cards)
    strength = suit_strength(r)
    return max(cards, key=lambda c: (counts[c[0]], c[0], strength[c[1]]))


def sign(x: float) -> int:
    """-1, 0 or 1."""
    return (x > 0) - (x < 0)


def compare_tuples(a: tuple[float, ...], b: tuple[float, ...]) -> int:
    """Lexicographic comparison as -1 / 0 / 1."""
    return (a > b) - (a < b)


def compare(a: Sequence[Card], b: Sequence[Card], r: Rules) -> int:
    """Full comparison of two rows of one size (3.2): 1 if ``a`` is stronger, -1 if ``b``, 0 tie.

    Meant for rows from one deck (no card in both): trips, full house and four of a kind are
    compared by the three / four only, as envs/thirteen/RULES.md section 4.1 says, which is complete for such rows.
    """
    if len(a) != len(b):
        raise ValueError("rows of different sizes")
    result = compare_tuples(full_key(a, r), full_key(b, r))
    if result != 0 or not r["suit_tiebreak"]:
        return result
    strength = suit_strength(r)
    return sign(strength[most_significant_card(a, r)[1]] - strength[most_significant_card(b, r)[1]])


# ---------------------------------------------------------------------------- fouls (3.3)


def compare_front_with_row(front: Sequence[Card], row: Sequence[Card], r: Rules) -> int:
    """A 3-card front against a 5-card row by types and ranks only (3.3).

    Different types: the type decides. Same type: a high-card front's 3 ranks against the
    row's top three ranks; a pair front's pair and kicker against the row's pair and highest
    kicker; trips front against the row's trips rank. Under ``rank_compare: top`` the keys
    hold the top rank only, so that alone is compared.
    """
    front_key = rank_key(front, r)
    row_key = rank_key(row, r)
    if front_key[0] != row_key[0]:
        return sign(front_key[0] - row_key[0])
    length = len(front_key)  # high card 1+3, pair 1+2, trips 1+1
    return compare_tuples(front_key, row_key[:length])


def is_valid(front: Sequence[Card], middle: Sequence[Card], back: Sequence[Card], r: Rules) -> bool:
    """Front <= middle <= back by types and ranks only; suits never foul (3.3)."""
    if (len(front), len(middle), len(back)) != (3, 5, 5):
        raise ValueError("rows of 3, 5 and 5 cards")
    front_ok = compare_front_with_row(front, middle, r) <= 0
    middle_ok = compare_tuples(rank_key(middle, r), rank_key(back, r)) <= 0
    return front_ok and middle_ok


# ---------------------------------------------------------------------------- specials (3.5)

SPECIAL_VALUES: dict[str, dict[str, int]] = {
    "classic": dict(dragon=13, clean_dragon=13, six_pairs=3, three_flushes=3, three_straights=3),
    "shisanshui": dict(
        dragon=36,
        clean_dragon=108,
        six_pairs=4,
        three_flushes=3,
        three_straights=4,
        four_trips=6,
        one_colour=10,
        all_small=10,
        all_big=10,
        three_fours=20,
        three_straight_flushes=20,
        royals=24,
    ),
    "banker": dict(dragon=13),
    "off": {},
    # 報到十三張: any dragon 7; six pairs, three straights, three flushes, all 2-10: 4
    "baodao": dict(dragon=7, six_pairs=4, three_straights=4, three_flushes=4, all_small_to_ten=4),
    # 免擺: a straight flush or four of a kind among the 13 cards; between two, the better cards win
    "mianbai": dict(holds_straight_flush=3, holds_four_of_a_kind=3),
    # 百變: three tiers of whole hands, each hand of a tier equal to the others
    "baibian": dict(black_one_red=6, red_one_black=6, dragon=6, five_pairs_trips=6,
                    all_six_to_king=5, all_small_to_ten=5, six_pairs=5,
                    all_six_to_ace=4, all_ace_to_ten=4, three_straights=4, three_flushes=4),
    # 紹興: the same tiers, then the best straight flush, four of a kind, trips anywhere
    "shaoxing": dict(black_one_red=8, red_one_black=8, dragon=8, five_pairs_trips=8,
                     all_six_to_king=7, all_small_to_ten=7, six_pairs=7,
                     all_six_to_ace=6, all_ace_to_ten=6, three_straights=6, three_flushes=6,
                     holds_straight_flush=5, holds_four_of_a_kind=4, holds_trips=3),
}
# Tables of the later rule readings. The order of a table is its precedence: a hand counts as
# the first special listed that it qualifies for (values never increase down a table).
SPECIAL_VALUES.update({
    # 規則三: a one-suit dragon above a dragon; two one-suit dragons by their suit (DRAGONS_BY_SUIT)
    "suit_dragon": dict(clean_dragon=26, dragon=13, six_pairs=3, three_straights=3, three_flushes=3),
    # classic with 全小 (A-10, the ace low) and 全大 (5-A)
    "classic_big_small": dict(dragon=13, clean_dragon=13, three_straights=3, three_flushes=3, six_pairs=3,
                              all_small=3, all_big=3),
    # shisanshui in its precedence order; equal values go to the one listed first
    "shisanshui_strict": dict(clean_dragon=108, dragon=36, royals=24, three_straight_flushes=20, three_fours=20,
                              all_big=10, all_small=10, one_colour=10, four_trips=6, six_pairs=4,
                              three_straights=4, three_flushes=3),
    # 百變 with 全小 and 半小 needing every rank of their range
    "baibian_complete": dict(SPECIAL_VALUES["baibian"]),
    # 紹興 with 三花色 in three different suits
    "shaoxing_distinct": dict(SPECIAL_VALUES["shaoxing"]),
})
#: tables under which two specials of equal value are told apart by their best cards
COMPARED_BY_CARDS = {"mianbai", "shaoxing", "shaoxing_distinct"}
#: tables under which two different specials of equal value go to the one listed first
BY_PRECEDENCE = {"shisanshui_strict"}
#: tables under which two one-suit dragons are told apart by their suit (``suit_order``)
DRAGONS_BY_SUIT = {"suit_dragon"}
#: the specials whose cards are compared there, and the row type of those cards
CARD_KINDS = {"holds_straight_flush": "straight_flush", "holds_four_of_a_kind": "four_of_a_kind",
              "holds_trips": "trips"}


def is_dragon(hand: Sequence[Card]) -> bool:
    """13 different ranks."""
    return len(rank_counts(hand)) == 13


def is_clean_dragon(hand: Sequence[Card]) -> bool:
    """A dragon in one suit."""
    return is_dragon(hand) and len({suit for _, suit in hand}) == 1


def is_mixed_dragon(hand: Sequence[Card]) -> bool:
    """A dragon not all in one suit (section 7.2's `dragon`; the tables of the first readings
    let `dragon` cover the clean one too, which changes no value there)."""
    return is_dragon(hand) and not is_clean_dragon(hand)


def is_six_pairs(hand: Sequence[Card]) -> bool:
    """Six pairs + one card; a four counts as two pairs (and trips as a pair + the card)."""
    return sum(n // 2 for n in rank_counts(hand).values()) == 6


def is_three_flushes(hand: Sequence[Card]) -> bool:
    """Can be set as a one-suit 3-card front and two 5-card flushes.

    Tries every suit for front, middle and back and checks the suit counts match.
    """
    counts = Counter(suit for _, suit in hand)
    for front_suit, middle_suit, back_suit in itertools.product("cdhs", repeat=3):
        needed = Counter({front_suit: 0, middle_suit: 0, back_suit: 0})
        needed[front_suit] += 3
        needed[middle_suit] += 5
        needed[back_suit] += 5
        if all(counts[s] == needed[s] for s in "cdhs"):
            return True
    return False


def runs(length: int) -> list[list[int]]:
    """All runs of consecutive ranks of a length, ace low (A-2-3..) through ace high (..K-A)."""
    result = []
    for low in range(1, 16 - length):  # 1 stands for the ace played low
        result.append([14 if rank == 1 else rank for rank in range(low, low + length)])
    return result


def is_three_straights(hand: Sequence[Card], fronts: Sequence[list[int]] | None = None) -> bool:
    """Can be set as a 3-card straight front (A-2-3 .. Q-K-A) and two 5-card straights.

    A-2-3-4-5 counts whatever the ``wheel`` switch. Searches over rank multisets: every two
    5-card straights the ranks hold, and whether the ranks left are an allowed front
    (``fronts`` narrows the 3-card straights allowed there).
    """
    counts = rank_counts(hand)
    allowed = [sorted(front) for front in (runs(3) if fronts is None else fronts)]
    for middle, back in itertools.combinations_with_replacement(runs(5), 2):
        used = Counter(middle + back)
        held = all(counts[rank] >= n for rank, n in used.items())
        if held and sorted((counts - used).elements()) in allowed:
            return True
    return False


def is_three_straights_no_qka(hand: Sequence[Card]) -> bool:
    """Three straights whose front is A-2-3 .. J-Q-K (no Q-K-A front)."""
    return is_three_straights(hand, [run for run in runs(3) if run != [12, 13, 14]])


def is_three_flushes_distinct(hand: Sequence[Card]) -> bool:
    """Three flushes in three different suits: suit counts 5, 5, 3 and 0."""
    counts = Counter(suit for _, suit in hand)
    return sorted(counts[s] for s in "cdhs") == [0, 3, 5, 5]


def rank_range(low: str, high: str) -> list[int]:
    """The ranks ``low``..``high`` (rank characters); an ace as ``low`` is the ace below the 2, as 1."""
    first = 1 if low == "A" else RANK_CHARS.index(low) + 2
    return list(range(first, RANK_CHARS.index(high) + 3))


def low_ranks(hand: Sequence[Card], low: str) -> list[int]:
    """The hand's ranks, an ace counted as 1 when the range starts at the ace."""
    return [1 if rank == 14 and low == "A" else rank for rank, _ in hand]


def ranks_within(hand: Sequence[Card], low: str, high: str) -> bool:
    """Every card's rank lies in ``low``..``high`` (the ``ranks`` test)."""
    allowed = set(rank_range(low, high))
    return all(rank in allowed for rank in low_ranks(hand, low))


def all_ranks(hand: Sequence[Card], low: str, high: str) -> bool:
    """Every card's rank lies in ``low``..``high`` and every rank of it is held (不能缺)."""
    return ranks_within(hand, low, high) and set(low_ranks(hand, low)) == set(rank_range(low, high))


def is_three_straight_flushes(hand: Sequence[Card]) -> bool:
    """Can be set as a 3-card straight-flush front and two 5-card straight flushes."""
    cards = set(hand)
    candidates3 = [{(rank, suit) for rank in run} for run in runs(3) for suit in "cdhs"]
    candidates5 = [{(rank, suit) for rank in run} for run in runs(5) for suit in "cdhs"]
    fronts = [c for c in candidates3 if c <= cards]
    fives = [c for c in candidates5 if c <= cards]
    for front in fronts:
        for middle, back in itertools.combinations(fives, 2):
            if front | middle | back == cards and len(front) + len(middle) + len(back) == 13:
                return True
    return False


def is_four_trips(hand: Sequence[Card]) -> bool:
    """Four trips + one card (a four counts as trips + the card)."""
    return sum(1 for n in rank_counts(hand).values() if n >= 3) == 4


def is_one_colour(hand: Sequence[Card]) -> bool:
    """All red or all black."""
    suits = {suit for _, suit in hand}
    return suits <= {"h", "d"} or suits <= {"s", "c"}


def is_all_small(hand: Sequence[Card]) -> bool:
    """All ranks 2-8."""
    return all(2 <= rank <= 8 for rank, _ in hand)


def is_all_big(hand: Sequence[Card]) -> bool:
    """All ranks 8-A."""
    return all(8 <= rank <= 14 for rank, _ in hand)


def is_three_fours(hand: Sequence[Card]) -> bool:
    """Three fours of a kind."""
    return sum(1 for n in rank_counts(hand).values() if n == 4) == 3


def is_royals(hand: Sequence[Card]) -> bool:
    """All 13 cards J, Q, K or A."""
    return all(rank >= 11 for rank, _ in hand)


def is_all_small_to_ten(hand: Sequence[Card]) -> bool:
    """All 13 cards 2 to 10 (報到十三張's 全小)."""
    return all(rank <= 10 for rank, _ in hand)


def holds_straight_flush(hand: Sequence[Card]) -> bool:
    """Five consecutive ranks of one suit among the cards (A-2-3-4-5 counts)."""
    for suit in "cdhs":
        ranks = {rank for rank, s in hand if s == suit}
        if 14 in ranks:
            ranks.add(1)
        if any(all(x in ranks for x in range(low, low + 5)) for low in range(1, 11)):
            return True
    return False


def holds_four_of_a_kind(hand: Sequence[Card]) -> bool:
    """Four cards of one rank among the cards."""
    return 4 in rank_counts(hand).values()


def best_cards(hand13: Sequence[Card], kinds: set[str], r: Rules) -> Sequence[Card]:
    """The strongest row of one of ``kinds`` among 13 cards (every 5 of them tried; trips as
    3-card rows)."""
    size = 3 if kinds == {"trips"} else 5
    found = [c for c in itertools.combinations(hand13, size) if row_type(c, r) in kinds]
    return max(found, key=functools.cmp_to_key(lambda a, b: compare(a, b, r)))


def holds_trips(hand: Sequence[Card]) -> bool:
    """Three or more cards of one rank among the cards."""
    return max(rank_counts(hand).values()) >= 3


def is_black_one_red(hand: Sequence[Card]) -> bool:
    """Twelve black cards and one red (全黑一張紅)."""
    return sum(1 for _, s in hand if s in "cs") == 12


def is_red_one_black(hand: Sequence[Card]) -> bool:
    """Twelve red cards and one black (全紅一張黑)."""
    return sum(1 for _, s in hand if s in "dh") == 12


def is_five_pairs_trips(hand: Sequence[Card]) -> bool:
    """One rank three times and five pairs (a rank four times is two pairs) (五對三個頭)."""
    counts = list(rank_counts(hand).values())
    return counts.count(3) == 1 and counts.count(2) + 2 * counts.count(4) == 5


def is_all_six_to_king(hand: Sequence[Card]) -> bool:
    return all(6 <= rank <= 13 for rank, _ in hand)


def is_all_six_to_ace(hand: Sequence[Card]) -> bool:
    return all(rank >= 6 for rank, _ in hand)


def is_all_ace_to_ten(hand: Sequence[Card]) -> bool:
    return all(rank <= 10 or rank == 14 for rank, _ in hand)


SPECIAL_TESTS = {
    "holds_trips": holds_trips,
    "black_one_red": is_black_one_red,
    "red_one_black": is_red_one_black,
    "five_pairs_trips": is_five_pairs_trips,
    "all_six_to_king": is_all_six_to_king,
    "all_six_to_ace": is_all_six_to_ace,
    "all_ace_to_ten": is_all_ace_to_ten,
    "holds_straight_flush": holds_straight_flush,
    "holds_four_of_a_kind": holds_four_of_a_kind,
    "all_small_to_ten": is_all_small_to_ten,
    "dragon": is_dragon,
    "clean_dragon": is_clean_dragon,
    "six_pairs": is_six_pairs,
    "three_flushes": is_three_flushes,
    "three_straights": is_three_straights,
    "four_trips": is_four_trips,
    "one_colour": is_one_colour,
    "all_small": is_all_small,
    "all_big": is_all_big,
    "three_fours": is_three_fours,
    "three_straight_flushes": is_three_straight_flushes,
    "royals": is_royals,
}


#: per table, the specials whose test is not the one of their name in SPECIAL_TESTS
TABLE_TESTS: dict[str, dict[str, Callable[[Sequence[Card]], bool]]] = {
    "suit_dragon": {"dragon": is_mixed_dragon},
    "classic_big_small": {
        "dragon": is_mixed_dragon,
        "all_small": lambda hand: ranks_within(hand, "A", "T"),
        "all_big": lambda hand: ranks_within(hand, "5", "A"),
    },
    "shisanshui_strict": {"dragon": is_mixed_dragon, "three_straights": is_three_straights_no_qka},
    "baibian_complete": {
        "all_small_to_ten": lambda hand: all_ranks(hand, "2", "T"),
        "all_ace_to_ten": lambda hand: all_ranks(hand, "A", "T"),
    },
    "shaoxing_distinct": {"three_flushes": is_three_flushes_distinct},
}


def special_test(table: str, name: str) -> Callable[[Sequence[Card]], bool]:
    """The test of special ``name`` in table ``table``."""
    return TABLE_TESTS.get(table, {}).get(name, SPECIAL_TESTS[name])


def specials_held(hand13: Sequence[Card], r: Rules) -> list[str]:
    """Names of all specials of the active table that the 13 cards qualify for, in table order."""
    if len(hand13) != 13:
        raise ValueError("a special needs the 13 cards")
    table = SPECIAL_VALUES[r["specials"]]
    return [name for name in table if special_test(r["specials"], name)(hand13)]


def special_name(hand13: Sequence[Card], r: Rules) -> str:
    """The special the hand counts as: the first listed of those of the highest value it
    qualifies for (in a table listed in precedence order, the first it qualifies for); ""
    if none."""
    table = SPECIAL_VALUES[r["specials"]]
    held = specials_held(hand13, r)
    best = max((table[name] for name in held), default=0)
    return next((name for name in held if table[name] == best), "")


def special(hand13: Sequence[Card], r: Rules) -> int:
    """Value of the hand's special in the ``specials`` table (highest if several), 0 if none.
    The value says which special is the larger; what it is paid is :func:`paid`."""
    name = special_name(hand13, r)
    return SPECIAL_VALUES[r["specials"]][name] if name else 0


def paid(value: int, r: Rules) -> int:
    """What a special of table value ``value`` is paid: ``special_pays`` units when that is
    set (one fixed payment for every special), else its value; 0 for no special."""
    return (r.get("special_pays", 0) or value) if value else 0


# ---------------------------------------------------------------------------- scoring (3.4)

ROW_NAMES = ("front", "middle", "back")


def row_value(cards: Sequence[Card], row: int, r: Rules) -> int:
    """What a winning row is worth (``royalties``); row 0 front, 1 middle, 2 back."""
    if r["royalties"] == "none":
        return 1
    kind = row_type(cards, r)
    table = {
        ("front", "trips"): 3,
        ("middle", "full_house"): 2,
        ("middle", "four_of_a_kind"): 8,
        ("back", "four_of_a_kind"): 4,
        ("middle", "straight_flush"): 10,
        ("back", "straight_flush"): 5,
    }
    return table.get((ROW_NAMES[row], kind), 1)


Hand = tuple[Sequence[Card], Sequence[Card], Sequence[Card]]


def row_results(hand_a: Hand, hand_b: Hand, fouled_a: bool, fouled_b: bool, r: Rules) -> list[int]:
    """Per row, 1 if ``a`` wins it, -1 if ``b`` does, 0 if neither (tie, or both fouled)."""
    if fouled_a and fouled_b:
        return [0, 0, 0]
    if fouled_a:
        return [-1, -1, -1]
    if fouled_b:
        return [1, 1, 1]
    return [compare(hand_a[row], hand_b[row], r) for row in range(3)]


def row_total(hand_a: Hand, hand_b: Hand, results: list[int], r: Rules) -> int:
    """Points ``a`` gets from ``b`` for the rows: the winner's row value per row won."""
    total = 0
    for row, result in enumerate(results):
        if r.get("counted_rows", "all") == "back" and ROW_NAMES[row] != "back":
            continue  # 寶馬會: only the backs are paid
        if result > 0:
            total += row_value(hand_a[row], row, r)
        elif result < 0:
            total -= row_value(hand_b[row], row, r)
    return total


def majority_total(results: list[int]) -> int:
    """``majority``: one point to whoever won more rows (ties in a row count for neither)."""
    return sign(results.count(1) - results.count(-1))


def two_four_total(results: list[int]) -> int:
    """``two_four``: one point per row won, plus one to whoever won more rows."""
    won_a = results.count(1)
    won_b = results.count(-1)
    return won_a - won_b + sign(won_a - won_b)


def special_total(seat_a: int, seat_b: int, value_a: int, value_b: int, r: Rules,
                  names: tuple[str, str] = ("", "")) -> int:
    """Points ``a`` gets from ``b`` when at least one of them holds a special (3.5): the
    larger special (by its table value) wins and is paid :func:`paid`. Under a table of
    ``BY_PRECEDENCE`` two different specials of equal value go to the one listed first."""
    if value_a != value_b:
        return paid(value_a, r) if value_a > value_b else -paid(value_b, r)
    if r["specials"] in BY_PRECEDENCE and value_a > 0 and names[0] != names[1]:
        order = list(SPECIAL_VALUES[r["specials"]])
        return paid(value_a, r) if order.index(names[0]) < order.index(names[1]) else -paid(value_b, r)
    # equal values (both hold one): 0, except the `banker` table where the banker pays
    if r["specials"] == "banker" and value_a > 0:
        if seat_a == r["banker_seat"]:
            return -paid(value_b, r)
        if seat_b == r["banker_seat"]:
            return paid(value_a, r)
    return 0


def pairs_to_compare(n: int, r: Rules) -> list[tuple[int, int]]:
    """Seat pairs that settle with each other: all pairs, or banker against each player."""
    if r["scoring"] == "banker":
        banker = r["banker_seat"]
        if banker >= n:
            raise ValueError("banker_seat outside the table")
        return [(banker, seat) for seat in range(n) if seat != banker]
    return list(itertools.combinations(range(n), 2))


def score(hands: Sequence[Hand], r: Rules) -> dict[str, list[Any]]:
    """Payoffs of one deal (3.3-3.5) with the fouled flags and special values per seat.

    A hand holding a special is never fouled (its arrangement is ignored). ``two_four``
    ignores royalties, specials, scoop and home run; ``majority`` pays one unit a pair.
    """
    n = len(hands)
    two_four = r["scoring"] == "two_four"
    specials_on = r["specials"] != "off" and not two_four
    names = [special_name([*h[0], *h[1], *h[2]], r) if specials_on else "" for h in hands]
    specials = [SPECIAL_VALUES[r["specials"]][name] if name else 0 for name in names]
    fouled = [specials[s] == 0 and not is_valid(*hands[s], r) for s in range(n)]

    totals: dict[tuple[int, int], int] = {}  # (a, b) -> points a gets from b
    scooped: set[tuple[int, int]] = set()  # (a, b): a scooped b
    for a, b in pairs_to_compare(n, r):
        if specials[a] or specials[b]:
            totals[(a, b)] = special_total(a, b, specials[a], specials[b], r, (names[a], names[b]))
            if specials[a] == specials[b] and r["specials"] in COMPARED_BY_CARDS:
                cards = [[*hands[s][0], *hands[s][1], *hands[s][2]] for s in (a, b)]
                table = SPECIAL_VALUES[r["specials"]]
                kinds = {CARD_KINDS[name] for c in cards for name in specials_held(c, r)
                         if table[name] == specials[a] and name in CARD_KINDS}
                if kinds:  # both hold the same tier: compare their best such cards
                    best = [best_cards(c, kinds, r) for c in cards]
                    totals[(a, b)] = compare(best[0], best[1], r) * paid(specials[a], r)
            if r["specials"] in DRAGONS_BY_SUIT and names[a] == names[b] == "clean_dragon":
                strength = suit_strength(r)
                suit_a, suit_b = hands[a][0][0][1], hands[b][0][0][1]  # each hand is one suit
                totals[(a, b)] = sign(strength[suit_a] - strength[suit_b]) * paid(specials[a], r)
            continue
        results = row_results(hands[a], hands[b], fouled[a], fouled[b], r)
        if r.get("tie_winner", "none") == "banker" and not (fouled[a] or fouled[b]):
            # 報到十三張: the banker wins a row that is equal (a is the banker, pairs_to_compare)
            results = [x if x else (1 if a == r["banker_seat"] else -1) for x in results]
        if two_four:
            totals[(a, b)] = two_four_total(results)
            continue
        if r["scoring"] == "majority":
            totals[(a, b)] = majority_total(results)
            continue
        total = row_total(hands[a], hands[b], results, r)
        if results == [1, 1, 1]:
            scooped.add((a, b))
        if results == [-1, -1, -1]:
            scooped.add((b, a))
        if r["scoop"] == "double" and results in ([1, 1, 1], [-1, -1, -1]):
            total *= 2
        totals[(a, b)] = total

    if r["home_run"] and not two_four and r["scoring"] == "pairwise" and n == 4:
        for seat in range(n):
            opponents = [o for o in range(n) if o != seat]
            if all((seat, o) in scooped for o in opponents):
                for o in opponents:
                    key = (seat, o) if (seat, o) in totals else (o, seat)
                    totals[key] *= 2

    payoffs = [0.0] * n
    for (a, b), points in totals.items():
        payoffs[a] += points
        payoffs[b] -= points
    return dict(payoffs=payoffs, fouled=fouled, specials=[paid(v, r) for v in specials], names=names)
