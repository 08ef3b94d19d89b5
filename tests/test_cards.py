"""Cards and notation (section 1 of the games' RULES.md): parsing, formatting, decks, canonical slot order."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitpoker.envs.cards import (
    BLACK_JOKER,
    N_IDS,
    RANK,
    RED_JOKER,
    SUIT,
    canonical_slots,
    card_id,
    check_hand,
    deck,
    format_card,
    format_cards,
    parse_cards,
    parse_rows,
    pretty_card,
)

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
ALL_CARDS = [r + s for r in RANKS for s in SUITS]


def one(text: str) -> int:
    (card,) = parse_cards(text)
    return card


# ----------------------------------------------------------------------------- accepted notation

@pytest.mark.parametrize("text", ["As", "as", "AS", "aS", "sA", "Sa", "♠A", "A♠", "♤A", "a♠", "♠a"])
def test_ace_of_spades_in_every_notation(text: str) -> None:
    assert format_card(one(text)) == "As"


@pytest.mark.parametrize("text, expected", [
    ("10h", "Th"), ("h10", "Th"), ("10♥", "Th"), ("♥10", "Th"), ("Th", "Th"), ("tH", "Th"),
    ("2c", "2c"), ("♣2", "2c"), ("c2", "2c"), ("9♦", "9d"), ("d9", "9d"), ("Qd", "Qd"), ("♦q", "Qd"),
])
def test_ranks_suits_and_ten(text: str, expected: str) -> None:
    assert format_card(one(text)) == expected


@pytest.mark.parametrize("text, expected", [("BJ", BLACK_JOKER), ("bj", BLACK_JOKER), ("Bj", BLACK_JOKER),
                                            ("RJ", RED_JOKER), ("rj", RED_JOKER), ("rJ", RED_JOKER)])
def test_jokers(text: str, expected: int) -> None:
    assert one(text) == expected
    assert format_card(expected) == text.upper()


def test_rule_text_example_and_canonical_output() -> None:
    assert format_cards(parse_cards("♠A 10h td 2C")) == "As Th Td 2c"
    assert format_cards(parse_cards("As Td 2c")) == "As Td 2c"


def test_concatenated_and_separated_forms() -> None:
    expected = [one("As"), one("Kd"), one("Th"), one("BJ")]
    assert parse_cards("AsKd10hBJ") == expected
    assert parse_cards("As Kd 10h BJ") == expected
    assert parse_cards("As,Kd, 10h ,BJ") == expected
    assert parse_cards("  As\tKd\n10h  BJ ") == expected
    assert parse_cards(["As", "Kd", "10h", "BJ"]) == expected
    assert parse_cards(["AsKd", "10hBJ"]) == expected
    assert parse_cards("♠A♦K") == expected[:2]


def test_empty_input_is_no_cards() -> None:
    assert parse_cards("") == []
    assert parse_cards([]) == []


def test_parse_keeps_the_given_order() -> None:
    assert format_cards(parse_cards("2c As Td RJ")) == "2c As Td RJ"


@given(st.lists(st.sampled_from(ALL_CARDS + ["BJ", "RJ"]), unique=True, max_size=20), st.data())
@settings(max_examples=60)
def test_any_notation_round_trips(cards: list[str], data: st.DataObject) -> None:
    """Each card written in a random accepted form parses back to the canonical card."""
    written = []
    for card in cards:
        if card in ("BJ", "RJ"):
            form = data.draw(st.sampled_from([card, card.lower(), card.capitalize()]))
        else:
            rank = data.draw(st.sampled_from(["T", "10"])) if card[0] == "T" else card[0]
            rank = data.draw(st.sampled_from([rank, rank.lower()]))
            suit = data.draw(st.sampled_from([card[1], card[1].upper(), SYMBOLS[card[1]]]))
            form = data.draw(st.sampled_from([rank + suit, suit + rank]))
        written.append(form)
    sep = data.draw(st.sampled_from([" ", ", ", "  "]))
    assert format_cards(parse_cards(sep.join(written))) == " ".join(cards)
    assert format_cards(parse_cards(written)) == " ".join(cards)


# ----------------------------------------------------------------------------- ids, formatting, decks

def test_card_ids_follow_the_canonical_order() -> None:
    assert format_cards(range(N_IDS)).split() == ["BJ", "RJ"] + ALL_CARDS
    for rank in range(13):
        for suit in range(4):
            card = card_id(rank, suit)
            assert RANK[card] == rank and SUIT[card] == suit
            assert format_card(card) == RANKS[rank] + SUITS[suit]
    assert RANK[BLACK_JOKER] == RANK[RED_JOKER] == -1 == SUIT[BLACK_JOKER] == SUIT[RED_JOKER]


def test_pretty_cards_use_suit_symbols() -> None:
    assert [pretty_card(c) for c in parse_cards("As Th 2c 9d BJ RJ")] == ["A♠", "T♥", "2♣", "9♦", "BJ", "RJ"]


@pytest.mark.parametrize("card", [-1, N_IDS, 100])
def test_format_rejects_unknown_ids(card: int) -> None:
    with pytest.raises(ValueError, match=str(card)):
        format_card(card)


def test_decks() -> None:
    plain, full = deck(), deck(jokers=True)
    assert len(plain) == 52 and len(full) == 54
    assert len(set(plain.tolist())) == 52 and len(set(full.tolist())) == 54
    assert format_cards(plain) == " ".join(ALL_CARDS)
    assert format_cards(full) == "BJ RJ " + " ".join(ALL_CARDS)
    assert BLACK_JOKER not in plain and RED_JOKER not in plain
    assert np.all(np.diff(full) > 0)


def test_canonical_slot_order() -> None:
    """Rank ascending, jokers lowest (BJ before RJ), ties clubs < diamonds < hearts < spades."""
    hand = parse_cards("As 2s RJ Td 2c BJ 2h Ts 2d Ac")
    assert format_cards(canonical_slots(hand)) == "BJ RJ 2c 2d 2h 2s Td Ts Ac As"
    assert format_cards(canonical_slots(parse_cards("As Td 2c"))) == "2c Td As"


@given(st.permutations(list(range(N_IDS))))
@settings(max_examples=30)
def test_sorting_ids_is_the_canonical_order(ids: list[int]) -> None:
    def key(text: str) -> tuple[int, int]:
        if text in ("BJ", "RJ"):
            return (-1, ("BJ", "RJ").index(text))
        return (RANKS.index(text[0]), SUITS.index(text[1]))

    hand = ids[:13]
    assert format_cards(canonical_slots(hand)).split() == sorted(format_cards(hand).split(), key=key)


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("text, token", [
    ("1x", "1x"), ("Zs", "Zs"), ("As Zs Kd", "Zs"), ("As 1x", "1x"), ("A", "A"), ("10", "10"), ("s", "s"),
    ("Ax", "Ax"), ("11h", "11h"), ("AsK", "AsK"), ("XJ", "XJ"), ("As Ks Q♠ Jz", "Jz"),
])
def test_unreadable_cards_name_the_token(text: str, token: str) -> None:
    with pytest.raises(ValueError, match=f"'{token}'"):
        parse_cards(text)


@pytest.mark.parametrize("text, card", [("As as", "As"), ("As Kd sA", "As"), ("10h Th", "Th"),
                                       ("bj BJ", "BJ"), ("AsAs", "As"), ("♠A A♠", "As")])
def test_duplicates_name_the_card(text: str, card: str) -> None:
    with pytest.raises(ValueError, match=f"duplicate card {card}"):
        parse_cards(text)


def test_non_string_tokens_are_rejected() -> None:
    with pytest.raises(ValueError, match="12"):
        parse_cards(["As", 12])  # type: ignore[list-item]


def test_rows() -> None:
    rows = parse_rows("As Kd Qc | 2c 3c 4c 5c 6c | 7d 8d 9d Td Jd")
    assert [format_cards(r) for r in rows] == ["As Kd Qc", "2c 3c 4c 5c 6c", "7d 8d 9d Td Jd"]
    assert parse_rows(["As Kd", ["Qc", "2c"]]) == [parse_cards("As Kd"), parse_cards("Qc 2c")]
    with pytest.raises(ValueError, match="duplicate card As"):
        parse_rows("As Kd | Qc As")
    with pytest.raises(ValueError, match="'Zz'"):
        parse_rows("As Kd | Zz")


def test_check_hand() -> None:
    check_hand(parse_cards("As Kd Qc"), 3, jokers=False)
    check_hand(parse_cards("BJ Kd Qc"), 3, jokers=True)
    with pytest.raises(ValueError, match="has 2 cards.*expected 3"):
        check_hand(parse_cards("As Kd"), 3, jokers=False)
    with pytest.raises(ValueError, match="joker RJ"):
        check_hand(parse_cards("As RJ Qc"), 3, jokers=False)
    for bad in (-1, 54, 2.0, True, "As"):
        with pytest.raises(ValueError, match=f"holds {bad!r}, which is not a card id"):
            check_hand([bad, 10, 20], 3, jokers=True)
