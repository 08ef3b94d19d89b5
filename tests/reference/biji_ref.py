"""Slow, plain reference implementation of Biji (envs/biji/RULES.md).

Written straight from the rule text, independent of the project's engine, for tests that
compare the fast engine against it. Clarity over speed: strengths are tuples compared
lexicographically, higher is stronger.

Cards are ``(rank, suit)`` with rank 2..14 (A = 14) and suit one of ``"cdhs"``; the jokers
are ``(0, "BJ")`` (small / black) and ``(0, "RJ")`` (big / red).

>>> r = rules("classic")
>>> group_type(parse("BJ 5s 9s"), r)
'flush'
>>> compare(parse("RJ 7d 7c"), parse("7h 7s BJ"), r)
1
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

Card = tuple[int, str]
Rules = dict[str, Any]

RANK_CHARS = "23456789TJQKA"
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
SUIT_SYMBOLS = {"♠": "s", "♤": "s", "♥": "h", "♡": "h", "♦": "d", "♢": "d", "♣": "c", "♧": "c"}
CANONICAL_SUIT_ORDER = "cdhs"  # slot order of section 1: clubs < diamonds < hearts < spades
BJ: Card = (0, "BJ")
RJ: Card = (0, "RJ")
JOKER_SUITS = {"BJ": ("s", "c"), "RJ": ("h", "d")}  # the suits a joker may stand for

TYPES = ("high_card", "pair", "straight", "flush", "straight_flush", "trips")
TYPE_INDEX = {name: i for i, name in enumerate(TYPES)}

# ---------------------------------------------------------------------------- cards


def parse_card(token: str) -> Card:
    """One card from text: ``As``, ``sA``, ``♠A``, ``A♠``, ``10h``, ``BJ``, ``RJ``."""
    text = token.strip()
    for symbol, letter in SUIT_SYMBOLS.items():
        text = text.replace(symbol, letter)
    text = text.upper().replace("10", "T")
    if text in ("BJ", "RJ"):
        return (0, text)
    if len(text) != 2:
        raise ValueError(f"not a card: {token!r}")
    for rank_char, suit_char in ((text[0], text[1]), (text[1], text[0])):
        if rank_char in RANK_CHARS and suit_char.lower() in SUIT_NAMES:
            return (RANK_CHARS.index(rank_char) + 2, suit_char.lower())
    raise ValueError(f"not a card: {token!r}")


def parse(text: str) -> list[Card]:
    """Cards from whitespace-separated text, e.g. ``"BJ As Td 2c"``."""
    return [parse_card(token) for token in text.split()]


def card_str(card: Card) -> str:
    """Canonical notation of one card, e.g. ``As`` or ``RJ``."""
    rank, suit = card
    if is_joker(card):
        return suit
    return RANK_CHARS[rank - 2] + suit


def fmt(cards: Sequence[Card]) -> str:
    """Canonical notation of several cards, in the given order."""
    return " ".join(card_str(c) for c in cards)


def is_joker(card: Card) -> bool:
    """BJ or RJ."""
    return card[1] in JOKER_SUITS


def canonical_slots(cards: Sequence[Card]) -> list[Card]:
    """Section 1 slot order: BJ, RJ, then rank ascending, ties clubs < diamonds < hearts < spades."""

    def key(card: Card) -> tuple[int, int]:
        if card == BJ:
            return (0, 0)
        if card == RJ:
            return (0, 1)
        return (card[0], CANONICAL_SUIT_ORDER.index(card[1]))

    return sorted(cards, key=key)


# ---------------------------------------------------------------------------- switches

XI_DEFAULTS: dict[str, int] = dict(
    xi_all_black=1,
    xi_all_red=1,
    xi_nine_straight=1,
    xi_four_of_a_kind=1,
    xi_sweep=1,
    xi_straight_flush_head=2,
    xi_three_trips=3,
)

PRESETS: dict[str, Rules] = {
    "classic": dict(
        jokers="rank0",
        suit_order="hearts>spades>diamonds>clubs",
        pair_tiebreak="kicker_suit",
        flush_compare="top_card",
        **XI_DEFAULTS,
    ),
    "no-jokers": dict(
        jokers="none",
        suit_order="hearts>spades>diamonds>clubs",
        pair_tiebreak="kicker_suit",
        flush_compare="top_card",
        **XI_DEFAULTS,
    ),
}

ALLOWED: dict[str, tuple[str, ...]] = {
    "jokers": ("rank0", "none"),
    "pair_tiebreak": ("kicker_suit", "pair_suit"),
    "flush_compare": ("top_card", "all_ranks"),
}


def rules(preset: str = "classic", **overrides: Any) -> Rules:
    """The switch dict of a preset (section 2.6) with single switches overridden."""
    preset = preset.replace("_", "-")
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}")
    result = dict(PRESETS[preset])
    for name, value in overrides.items():
        if name not in result:
            raise ValueError(f"unknown switch {name!r}")
        if name in ALLOWED and value not in ALLOWED[name]:
            raise ValueError(f"bad value {value!r} for switch {name!r}")
        if name.startswith("xi_") and (not isinstance(value, int) or value < 0):
            raise ValueError(f"bad value {value!r} for switch {name!r}")
        result[name] = value
    suit_strength(result)  # validates suit_order
    return result


def suit_strength(r: Rules) -> dict[str, int]:
    """Suit letter -> strength (higher is stronger) from ``suit_order``, strongest first."""
    names = [name.strip() for name in r["suit_order"].split(">")]
    letters = {name: letter for letter, name in SUIT_NAMES.items()}
    if sorted(names) != sorted(letters):
        raise ValueError(f"bad suit_order {r['suit_order']!r}")
    return {letters[name]: len(names) - i for i, name in enumerate(names)}


def card_order(card: Card) -> tuple[int, int]:
    """Rank of a card for comparisons: BJ (0, 0) < RJ (0, 1) < 2 < ... < A (2.2)."""
    return (card[0], 1 if card == RJ else 0)


def card_suit_strength(card: Card, r: Rules) -> int:
    """Strength of a card's own suit; a joker has no fixed suit and gets 0 (below all)."""
    if is_joker(card):
        return 0
    return suit_strength(r)[card[1]]


# ---------------------------------------------------------------------------- group types (2.1, 2.2)


def check_group(cards: Sequence[Card], r: Rules) -> None:
    """Raise on a group that is not 3 cards, or holds jokers when ``jokers: none``."""
    if len(cards) != 3:
        raise ValueError("a group has 3 cards")
    if r["jokers"] == "none" and any(is_joker(c) for c in cards):
        raise ValueError("jokers are not in play")


def flush_suit(cards: Sequence[Card]) -> str | None:
    """The suit of a flush (a joker standing for a suit of its colour), else None."""
    jokers = [c for c in cards if is_joker(c)]
    others = [c for c in cards if not is_joker(c)]
    suits = {suit for _, suit in others}
    if len(suits) != 1:
        return None  # two jokers, or mixed suits
    (suit,) = suits
    if all(suit in JOKER_SUITS[joker[1]] for joker in jokers):
        return suit
    return None


def straight_top(cards: Sequence[Card]) -> int | None:
    """Top rank of a 3-card straight (A-2-3 has top 3, Q-K-A top 14), else None; no jokers."""
    if any(is_joker(c) for c in cards):
        return None
    ranks = sorted(rank for rank, _ in cards)
    if ranks == [2, 3, 14]:
        return 3
    if ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1:
        return ranks[2]
    return None


def group_type(cards: Sequence[Card], r: Rules) -> str:
    """Type of a 3-card group (2.1): high_card, pair, straight, flush, straight_flush, trips."""
    check_group(cards, r)
    jokers = [c for c in cards if is_joker(c)]
    ranks = [rank for rank, _ in cards if rank != 0]
    if len(jokers) == 2:
        return "pair"  # BJ + RJ: the lowest pair, the third card its kicker
    if not jokers and len(set(ranks)) == 1:
        return "trips"
    if len(set(ranks)) < len(ranks):
        return "pair"  # two of a rank (with a joker: the joker is the kicker)
    straight = straight_top(cards) is not None
    flush = flush_suit(cards) is not None
    if straight and flush:
        return "straight_flush"
    if flush:
        return "flush"
    if straight:
        return "straight"
    return "high_card"


def top_card(cards: Sequence[Card]) -> Card:
    """Highest card of a straight or flush (the 3 in A-2-3; never a joker)."""
    if straight_top(cards) == 3:
        return next(c for c in cards if c[0] == 3)
    return max(cards, key=card_order)


def group_key(cards: Sequence[Card], r: Rules) -> tuple[int, ...]:
    """Strength of a group as a tuple, type index first (2.3)."""
    kind = group_type(cards, r)
    index = TYPE_INDEX[kind]
    by_rank = sorted(cards, key=card_order, reverse=True)
    if kind == "trips":
        return (index, cards[0][0])
    if kind == "pair":
        orders = Counter(card_order(c)[0] for c in cards)
        pair_rank = next(rank for rank, n in orders.items() if n == 2)
        pair = [c for c in cards if c[0] == pair_rank]
        kicker = next(c for c in cards if c[0] != pair_rank)
        if r["pair_tiebreak"] == "kicker_suit":
            suit = card_suit_strength(kicker, r)
        else:
            suit = max(card_suit_strength(c, r) for c in pair)
        return (index, pair_rank, *card_order(kicker), suit)
    if kind in ("straight", "straight_flush"):
        top = top_card(cards)
        return (index, straight_top(cards) or 0, card_suit_strength(top, r))
    if kind == "flush":
        top = top_card(cards)
        if r["flush_compare"] == "all_ranks":
            all_orders = [part for c in by_rank for part in card_order(c)]
            return (index, *all_orders, card_suit_strength(top, r))
        return (index, *card_order(top), card_suit_strength(top, r))
    # high card: all ranks from the top down (RJ above BJ), then the top card's suit
    all_orders = [part for c in by_rank for part in card_order(c)]
    return (index, *all_orders, card_suit_strength(by_rank[0], r))


def compare(a: Sequence[Card], b: Sequence[Card], r: Rules) -> int:
    """1 if group ``a`` is stronger, -1 if ``b`` is, 0 if equal (2.3)."""
    key_a, key_b = group_key(a, r), group_key(b, r)
    return (key_a > key_b) - (key_a < key_b)


def is_valid(p1: Sequence[Card], p2: Sequence[Card], p3: Sequence[Card], r: Rules) -> bool:
    """Pot 1 < pot 2 < pot 3 strictly (2.4)."""
    return compare(p1, p2, r) < 0 and compare(p2, p3, r) < 0


# ---------------------------------------------------------------------------- scoring (2.5)

Hand = tuple[Sequence[Card], Sequence[Card], Sequence[Card]]


def places(groups: Sequence[Sequence[Card]], r: Rules) -> list[int]:
    """Place per player in one pot: 1 + number of players with a stronger group."""
    return [1 + sum(1 for other in groups if compare(other, mine, r) > 0) for mine in groups]


def pot_payments(groups: Sequence[Sequence[Card]], r: Rules) -> list[float]:
    """Net payments of one pot: each player pays (place - 1), split among first places."""
    place = places(groups, r)
    winners = [seat for seat, p in enumerate(place) if p == 1]
    result = [0.0] * len(groups)
    for seat, p in enumerate(place):
        owed = p - 1
        result[seat] -= owed
        for winner in winners:
            result[winner] += owed / len(winners)
    return result


def is_all_black(cards: Sequence[Card]) -> bool:
    """All 9 cards spades / clubs or BJ."""
    return all(c[1] in ("s", "c", "BJ") for c in cards)


def is_all_red(cards: Sequence[Card]) -> bool:
    """All 9 cards hearts / diamonds or RJ."""
    return all(c[1] in ("h", "d", "RJ") for c in cards)


def is_nine_straight(cards: Sequence[Card]) -> bool:
    """9 consecutive ranks, ace low or high, no joker."""
    if any(is_joker(c) for c in cards):
        return False
    ranks = sorted(c[0] for c in cards)
    ace_low = sorted(1 if rank == 14 else rank for rank in ranks)
    return any(len(set(rs)) == 9 and rs[-1] - rs[0] == 8 for rs in (ranks, ace_low))


def fours_count(cards: Sequence[Card]) -> int:
    """How many ranks (jokers excluded) have all 4 cards in the 9."""
    counts = Counter(c[0] for c in cards if not is_joker(c))
    return sum(1 for n in counts.values() if n == 4)


def xi_count(hand: Hand, swept: bool, r: Rules) -> int:
    """喜 held by one hand under the ``xi_*`` table; ``swept``: first in all three pots."""
    cards = [*hand[0], *hand[1], *hand[2]]
    total = 0
    if is_all_black(cards):
        total += int(r["xi_all_black"])
    if is_all_red(cards):
        total += int(r["xi_all_red"])
    if is_nine_straight(cards):
        total += int(r["xi_nine_straight"])
    total += fours_count(cards) * int(r["xi_four_of_a_kind"])
    if swept:
        total += int(r["xi_sweep"])
    if group_type(hand[0], r) == "straight_flush":
        total += int(r["xi_straight_flush_head"])
    if all(group_type(group, r) == "trips" for group in hand):
        total += int(r["xi_three_trips"])
    return total


def score(hands: Sequence[Hand], r: Rules) -> dict[str, list[Any]]:
    """Payoffs of one deal (base stake 1) and the 喜 count per seat (2.5)."""
    n = len(hands)
    payoffs = [0.0] * n
    first_everywhere = [True] * n
    for pot in range(3):
        groups = [hand[pot] for hand in hands]
        for seat, amount in enumerate(pot_payments(groups, r)):
            payoffs[seat] += amount
        for seat, p in enumerate(places(groups, r)):
            if p != 1:
                first_everywhere[seat] = False
    xi = [xi_count(hands[seat], first_everywhere[seat], r) for seat in range(n)]
    unit = n - 1  # one 喜 = base x (players - 1)
    for holder in range(n):
        for payer in range(n):
            if payer != holder:
                payoffs[holder] += xi[holder] * unit
                payoffs[payer] -= xi[holder] * unit
    return dict(payoffs=payoffs, xi=xi)
