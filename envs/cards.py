"""Cards, notation, decks and the canonical slot order (envs/thirteen/RULES.md and envs/biji/RULES.md, section 1).

A card is an integer id whose natural order *is* the canonical slot order: the jokers
first (``BJ`` = 0, ``RJ`` = 1), then ``2c 2d 2h 2s 3c ... As`` (2 … 53): rank ascending,
ties broken clubs < diamonds < hearts < spades. Sorting ids sorts a hand into slots.

>>> format_cards(parse_cards("10h sA ♠2 bj"))
'Th As 2s BJ'
>>> format_cards(canonical_slots(parse_cards("As Td 2c")))
'2c Td As'
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

import numpy as np

from ..runtime.arguments import is_whole, shown

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"  # the canonical suit order of slots: clubs < diamonds < hearts < spades
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = "♣♦♥♠"
JOKERS = ("BJ", "RJ")
BLACK_JOKER, RED_JOKER = 0, 1
N_IDS = 54

_SUIT_ALIASES = {"c": 0, "d": 1, "h": 2, "s": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3,
                 "♧": 0, "♢": 1, "♡": 2, "♤": 3}
_RANK_ALIASES = {c: i for i, c in enumerate(RANK_CHARS.lower())} | {"10": 8}
_RANK_RE = "10|[2-9tjqka]"
_SUIT_RE = "[cdhs♣♦♥♠♧♢♡♤]"
_CARD_RE = re.compile(rf"(?P<rs>(?:{_RANK_RE})(?:{_SUIT_RE}))|(?P<sr>(?:{_SUIT_RE})(?:{_RANK_RE}))|(?P<j>bj|rj)")

#: rank index 0..12 (2..A) of every id; -1 for the jokers
RANK = np.array([-1, -1] + [r for r in range(13) for _ in range(4)], dtype=np.int8)
#: suit index 0..3 (c, d, h, s) of every id; -1 for the jokers
SUIT = np.array([-1, -1] + [s for _ in range(13) for s in range(4)], dtype=np.int8)


def card_id(rank: int, suit: int) -> int:
    """Id of the card of rank index ``rank`` (0 = '2' … 12 = 'A') and suit index ``suit``."""
    return 2 + 4 * rank + suit


def is_joker(card: int) -> bool:
    return card < 2


def format_card(card: int) -> str:
    """Canonical text of one card id: ``'As'``, ``'Td'``, ``'BJ'``."""
    if not 0 <= card < N_IDS:
        raise ValueError(f"card id {card!r} is out of range 0..{N_IDS - 1}")
    if card < 2:
        return JOKERS[card]
    return RANK_CHARS[RANK[card]] + SUIT_CHARS[SUIT[card]]


#: each card's canonical text to its id: the common case of :func:`parse_cards`, read without the parser
_CANONICAL = {format_card(card): card for card in range(N_IDS)}


def format_cards(cards: Iterable[int]) -> str:
    """Canonical text of several cards, separated by single spaces."""
    return " ".join(format_card(int(c)) for c in cards)


def pretty_card(card: int) -> str:
    """One card with its suit symbol (``A♠``), for rendering."""
    if card < 2:
        return JOKERS[card]
    return RANK_CHARS[RANK[card]] + SUIT_SYMBOLS[SUIT[card]]


def _parse_token(token: str) -> list[int]:
    """The cards of one token in any accepted notation."""
    text = token.lower()
    cards: list[int] = []
    pos = 0
    while pos < len(text):
        match = _CARD_RE.match(text, pos)
        if match is None:
            raise ValueError(
                f"cannot read card {token!r}: expected a rank of {' '.join(RANK_CHARS)} "
                f"(or 10) with a suit of c d h s (or ♣ ♦ ♥ ♠), in either order, or a joker BJ/RJ"
            )
        if match.group("j"):
            cards.append(BLACK_JOKER if match.group("j") == "bj" else RED_JOKER)
        else:
            part = match.group("rs") or match.group("sr")
            suit_char = next(ch for ch in part if ch in _SUIT_ALIASES)
            rank_text = part.replace(suit_char, "", 1)
            cards.append(card_id(_RANK_ALIASES[rank_text], _SUIT_ALIASES[suit_char]))
        pos = match.end()
    return cards


def parse_cards(text: str | Sequence[str]) -> list[int]:
    """Read cards in any accepted notation: a string (``"As 10h ♠2"``, ``"AsKd"``) or a
    sequence of card strings. Duplicates are an error naming the card."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards: list[int] = []
    for token in tokens:
        if not isinstance(token, str):
            raise ValueError(f"cannot read card {token!r}: expected a card string such as 'As'")
        card = _CANONICAL.get(token)
        if card is None:
            cards.extend(_parse_token(token.strip()))
        else:
            cards.append(card)
    seen: set[int] = set()
    for card in cards:
        if card in seen:
            raise ValueError(f"duplicate card {format_card(card)} in {_show(text)}")
        seen.add(card)
    return cards


def parse_rows(text: str | Sequence[str | Sequence[str]]) -> list[list[int]]:
    """Read an arrangement written as ``"front | middle | back"`` (or a sequence of rows).
    Duplicates across rows are an error."""
    rows_text = text.split("|") if isinstance(text, str) else list(text)
    rows = [parse_cards(row) for row in rows_text]
    flat = [c for row in rows for c in row]
    if len(set(flat)) != len(flat):
        dup = next(c for c in flat if flat.count(c) > 1)
        raise ValueError(f"duplicate card {format_card(dup)} in {_show(text)}")
    return rows


def _show(text: object) -> str:
    return repr(text if isinstance(text, str) else " ".join(map(str, text)))  # type: ignore[call-overload]


def canonical_slots(cards: Iterable[int]) -> list[int]:
    """The hand sorted into canonical slots (rank ascending, jokers first, then c<d<h<s)."""
    return sorted(int(c) for c in cards)


def deck(jokers: bool = False) -> np.ndarray:
    """The card ids of a 52-card deck, or 54 with ``jokers``, in canonical order."""
    return np.arange(0 if jokers else 2, N_IDS, dtype=np.int16)


def check_hand(cards: Sequence[int] | np.ndarray, size: int, *, jokers: bool, what: str = "hand") -> None:
    """Raise a ValueError naming the problem when ``cards`` is not a hand of ``size``
    distinct cards of the game's deck."""
    for card in cards:
        if not is_whole(card) or not 0 <= card < N_IDS:
            raise ValueError(f"{what} holds {shown(card)}, which is not a card id (an integer 0..{N_IDS - 1})")
    if len(cards) != size:
        raise ValueError(f"{what} has {len(cards)} cards ({format_cards(cards)}); expected {size}")
    if not jokers:
        bad = [c for c in cards if c < 2]
        if bad:
            raise ValueError(f"{what} holds joker {format_card(bad[0])}, which this deck does not have")
    if len(set(cards)) != len(cards):
        listed = [int(c) for c in cards]
        dup = next(c for c in listed if listed.count(c) > 1)
        raise ValueError(f"{what} holds {format_card(dup)} twice")


def repeats(rows: np.ndarray) -> np.ndarray:
    """Whether each row of card ids ``rows`` (R, K), ids 0..53, holds a card twice: bool
    ``(R,)``. One pass over the ids: the sum of the rows' card bits equals their OR exactly
    when no bit is added twice (the bits of one row sum to less than 2**60, so no sum wraps
    round to its OR)."""
    bits = np.left_shift(np.uint64(1), np.asarray(rows).astype(np.uint64))
    return np.asarray(bits.sum(axis=-1, dtype=np.uint64) != np.bitwise_or.reduce(bits, axis=-1))


def check_card_ids(cards: np.ndarray, *, jokers: bool, what: str, group: int = 1) -> None:
    """Raise a ValueError naming ``what`` unless ``cards`` is an integer array of card ids of
    the deck (``jokers``: with the two jokers) in which no card appears twice within a group
    of its last ``group`` axes (1: a hand; 2: a table of hands). One vectorised pass: for
    the batched functions that take many hands or tables at once."""
    array = np.asarray(cards)
    if array.size == 0:
        return
    if array.dtype.kind not in "iu":
        raise ValueError(f"{what} of type {array.dtype} are not card ids (integers 0..{N_IDS - 1})")
    low = 0 if jokers else 2
    if array.min() < low or array.max() >= N_IDS:
        at = np.argwhere((array < low) | (array >= N_IDS))[0].tolist()
        raise ValueError(f"{what}[{', '.join(map(str, at))}] is {int(array[tuple(at)])}, not a card of the deck "
                         f"(card ids {low}..{N_IDS - 1})")
    size = math.prod(array.shape[array.ndim - group:]) if array.ndim >= group else array.size
    rows = array.reshape(-1, size)
    if repeats(rows).any():
        ordered = np.sort(rows, axis=1)
        row, k = np.argwhere(ordered[:, 1:] == ordered[:, :-1])[0].tolist()
        place = np.unravel_index(row, array.shape[:array.ndim - group]) if array.ndim > group else ()
        where = f"{what}[{', '.join(str(int(i)) for i in place)}]" if len(place) else what
        raise ValueError(f"{where} holds {format_card(int(ordered[row, k]))} twice")


def check_table_cards(hands: Iterable[Iterable[int]]) -> None:
    """Raise a ValueError naming the first card that appears twice at a table (within one
    seat's hand or in two seats' hands)."""
    seen: dict[int, int] = {}
    for seat, hand in enumerate(hands):
        for card in hand:
            card = int(card)
            if card in seen:
                where = f"seat {seat} hand" if seen[card] == seat else f"the hands of seats {seen[card]} and {seat}"
                raise ValueError(f"card {format_card(card)} is in {where}")
            seen[card] = seat
