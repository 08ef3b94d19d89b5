"""Thirteen rules engine (envs/thirteen/RULES.md): worked examples, strength counts, the slow
reference implementation against the fast engine, specials, scoring, invariants, bad input."""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache
from math import comb
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitpoker.envs.cards import RANK, card_id, format_cards, parse_cards
from splitpoker.envs.games import make_game
from splitpoker.envs.splits import THIRTEEN
from splitpoker.envs.thirteen import rules as T
from splitpoker.envs.thirteen import scoring as thirteen_scoring
from splitpoker.envs.thirteen import specials as thirteen_specials
from splitpoker.envs.thirteen.rules import HandType, ThirteenRules
from tests.reference import thirteen_ref as ref

#: every preset and a few single-switch overrides: (preset, overrides)
RULE_SETS: list[tuple[str, dict[str, Any]]] = [
    ("classic", {}),
    ("shisanshui", {}),
    ("banker", {}),
    ("western", {}),
    ("classic", {"wheel": "lowest"}),
    ("classic", {"wheel": "none"}),
    ("classic", {"wheel": "ace_equal"}),
    ("classic", {"flush_compare": "suit_first"}),
    ("classic", {"suit_tiebreak": False}),
    ("classic", {"scoop": "double"}),
    ("classic", {"suit_order": "hearts>spades>diamonds>clubs"}),
    ("shisanshui", {"suit_tiebreak": False, "wheel": "lowest"}),
    ("banker", {"banker_seat": 1, "flush_compare": "rank_first"}),
    ("classic", {"royalties": "none", "specials": "shisanshui"}),
]
RULE_IDS = [p + "".join(f"-{k}={v}" for k, v in o.items()) for p, o in RULE_SETS]
#: how much of a random sweep to run: the default run, and ten times more under ``-m slow``
ROUNDS = [pytest.param(1, id="quick"), pytest.param(10, id="sweep", marks=pytest.mark.slow)]


def cards(text: str) -> list[int]:
    return parse_cards(text)


def engine_rules(preset: str = "classic", **overrides: Any) -> ThirteenRules:
    return ThirteenRules.preset(preset, **overrides)


def to_ref(ids: Any) -> list[ref.Card]:
    return ref.parse(format_cards(ids))


def compare(a: str, b: str, rules: ThirteenRules) -> int:
    return T.compare_rows(cards(a), cards(b), rules)


# ----------------------------------------------------------------------------- random deals

def narrow_deck(rng: np.random.Generator) -> np.ndarray:
    """A deck cut down so that deals are rich in pairs, straights, flushes and near-ties."""
    kind = rng.integers(4)
    if kind == 0:  # a run of ranks (the ace may sit low), all suits
        low = int(rng.integers(-1, 7))
        ranks = [r % 13 for r in range(low, low + int(rng.integers(5, 8)))]
        suits = list(range(4))
    elif kind == 1:  # two suits, all ranks
        ranks, suits = list(range(13)), rng.choice(4, 2, replace=False).tolist()
    elif kind == 2:  # few ranks, few suits
        ranks, suits = rng.choice(13, 7, replace=False).tolist(), rng.choice(4, 3, replace=False).tolist()
    else:
        ranks, suits = list(range(13)), list(range(4))
    return np.array([card_id(r, s) for r in ranks for s in suits])


def deal_cards(rng: np.random.Generator, n: int) -> list[int]:
    """n distinct cards, from a narrowed deck when it holds enough."""
    pool = narrow_deck(rng)
    if len(pool) < n:
        pool = np.arange(2, 54)
    return rng.choice(pool, n, replace=False).tolist()


def same_rank_rows(rng: np.random.Generator, size: int) -> tuple[list[int], list[int]]:
    """Two disjoint rows with the same ranks (each rank at most twice): ties but for suits."""
    while True:
        ranks = rng.integers(0, 13, size)
        counts = np.bincount(ranks, minlength=13)
        if counts.max() <= 2:
            break
    a: list[int] = []
    b: list[int] = []
    for rank in np.flatnonzero(counts):
        suits = rng.permutation(4)
        n = int(counts[rank])
        a += [card_id(int(rank), int(s)) for s in suits[:n]]
        b += [card_id(int(rank), int(s)) for s in suits[n:2 * n]]
    return a, b


def row_pair(rng: np.random.Generator) -> tuple[list[int], list[int]]:
    size = int(rng.choice([3, 5]))
    if rng.random() < 0.3:
        return same_rank_rows(rng, size)
    drawn = deal_cards(rng, 2 * size)
    return drawn[:size], drawn[size:]


# ------------------------------------------------------------------ envs/thirteen/RULES.md section 4.4 worked examples

SEED_EXAMPLES = [
    ("♠A ♠Q ♦5", "♦A ♦Q ♣6", -1),
    ("♠K ♠Q ♦6", "♦A ♦Q ♣5", -1),
    ("As Kd Jc", "Ah 9d 5c", 1),        # A-K-J > A-9-5
    ("8s 8d 9c", "8h 8c 4d", 1),        # 8-8-9 > 8-8-4
    ("Qs Qd 2c 3h 4s", "Qh Qc 7d 8s 9h", -1),  # QQ234 < QQ789
]


@pytest.mark.parametrize("preset", ["classic", "shisanshui", "banker", "western"])
@pytest.mark.parametrize("a, b, result", SEED_EXAMPLES)
def test_seed_examples(preset: str, a: str, b: str, result: int) -> None:
    rules = engine_rules(preset)
    assert compare(a, b, rules) == result
    assert compare(b, a, rules) == -result
    assert ref.compare(ref.parse(a), ref.parse(b), ref.rules(preset)) == result


@pytest.mark.parametrize("preset, result", [("classic", 1), ("shisanshui", 1), ("banker", 1), ("western", 0)])
def test_seed_suit_tiebreak_examples(preset: str, result: int) -> None:
    """♠Q ♥J ♥8 > ♥Q ♦J ♠8, and the pair of 9s holding ♠9 wins: suit tie-breaks (off in western)."""
    rules = engine_rules(preset)
    assert compare("♠Q ♥J ♥8", "♥Q ♦J ♠8", rules) == result
    assert compare("9s 9d Ac 7s 4h", "9h 9c Ad 7d 4c", rules) == result
    assert compare("9h 9c Ad 7d 4c", "9s 9d Ac 7s 4h", rules) == -result


def test_suit_order_switch_reverses_a_tiebreak() -> None:
    rules = engine_rules(suit_order="hearts>spades>clubs>diamonds")
    assert compare("♠Q ♥J ♥8", "♥Q ♦J ♠8", rules) == -1
    rules = engine_rules(suit_tiebreak=False)
    assert compare("♠Q ♥J ♥8", "♥Q ♦J ♠8", rules) == 0


def test_most_significant_card() -> None:
    """By rank-group size first: in two pair the higher pair's best suit, in a full house the
    three's; in a wheel the ace."""
    rules = engine_rules()
    assert compare("Ks Kd 5s 5d 2c", "Kh Kc 5h 5c 2d", rules) == 1          # ♠K in the high pair
    assert compare("7s 7d 2h 2c 3d", "7h 7c 2s 2d 3h", rules) == 1          # ♠7 beats ♥7; the ♠2 does not count
    assert compare("As 2d 3c 4h 5d", "Ad 2s 3h 4c 5s", engine_rules(wheel="lowest")) == 1  # the ace, not the 5
    assert compare("Ac Kd Qh Js 9c", "Ad Kh Qs Jc 9d", rules) == 1          # ♣ beats ♦ (s>h>c>d)


# ----------------------------------------------------------------------------- types and their order

FIVE_BY_TYPE = {
    HandType.HIGH_CARD: "Ac Qd 9h 7s 3c",
    HandType.PAIR: "2c 2d 4h 6s 8c",
    HandType.TWO_PAIR: "3c 3d 4h 4s 2c",
    HandType.TRIPS: "2c 2d 2h 5s 6c",
    HandType.STRAIGHT: "2c 3d 4h 5s 6c",
    HandType.FLUSH: "2h 3h 4h 5h 7h",
    HandType.FULL_HOUSE: "2c 2d 2h 3s 3c",
    HandType.FOUR_OF_A_KIND: "2c 2d 2h 2s 3c",
    HandType.STRAIGHT_FLUSH: "2s 3s 4s 5s 6s",
}


@pytest.mark.parametrize("preset", ["classic", "shisanshui", "banker", "western"])
def test_five_card_types_in_order(preset: str) -> None:
    rules = engine_rules(preset)
    strengths = []
    for kind, text in FIVE_BY_TYPE.items():
        assert T.row_type(cards(text), rules) is kind
        assert ref.row_type(ref.parse(text), ref.rules(preset)) == kind.name.lower()
        strengths.append(T.row_strength(cards(text), rules))
    assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)


def test_three_card_types() -> None:
    rules = engine_rules()
    assert T.row_type(cards("Ac Kd 9h"), rules) is HandType.HIGH_CARD
    assert T.row_type(cards("2h 3h 4h"), rules) is HandType.HIGH_CARD   # suited and consecutive: high card
    assert T.row_type(cards("Qs Ks As"), rules) is HandType.HIGH_CARD
    assert T.row_type(cards("5c 5d Ah"), rules) is HandType.PAIR
    assert T.row_type(cards("5c 5d 5h"), rules) is HandType.TRIPS
    assert compare("2c 3d 5h", "Ah Kh Jh", rules) == -1
    assert compare("Ah Kh Qh", "2c 2d 3c", rules) == -1
    assert compare("Ac Ad Kh", "2c 2d 2h", rules) == -1


# ----------------------------------------------------------------------------- wheel, flush_compare

BROADWAY, WHEEL, NINE_HIGH_K = "Ts Jd Qc Ks Ah", "Ad 2c 3s 4h 5d", "9c Td Jh Qs Kd"
SIX_HIGH = "2d 3c 4s 5h 6d"


def test_wheel_second() -> None:
    rules = engine_rules(wheel="second")
    assert compare(WHEEL, BROADWAY, rules) == -1
    assert compare(WHEEL, NINE_HIGH_K, rules) == 1
    assert T.row_type(cards(WHEEL), rules) is HandType.STRAIGHT
    assert compare("As 2s 3s 4s 5s", "9h Th Jh Qh Kh", rules) == 1      # also for straight flushes


def test_wheel_lowest() -> None:
    rules = engine_rules(wheel="lowest")
    assert compare(WHEEL, SIX_HIGH, rules) == -1
    assert compare(WHEEL, "Kc Kh Qh Js Tc", rules) == 1                  # still a straight
    assert compare("As 2s 3s 4s 5s", "2h 3h 4h 5h 6h", rules) == -1


def test_wheel_ace_equal() -> None:
    """Straights holding an ace are equal by rank; the ace's suit tells them apart."""
    rules = engine_rules(wheel="ace_equal")
    assert compare("Ad 2c 3s 4h 5d", "Ts Jd Qc Ks Ah", rules) == -1      # ♥A > ♦A
    assert compare("As 2c 3s 4h 5d", "Th Jd Qc Ks Ah", rules) == 1       # ♠A > ♥A
    assert compare(WHEEL, NINE_HIGH_K, rules) == 1
    untied = engine_rules(wheel="ace_equal", suit_tiebreak=False)
    assert compare("As 2c 3s 4h 5d", "Th Jd Qc Ks Ah", untied) == 0
    assert T.is_valid([cards("2h 3h 7d"), cards("As 2c 3s 4h 5d"), cards("Th Jd Qc Ks Ah")], rules)
    assert T.is_valid([cards("2h 3h 7d"), cards("Th Jd Qc Ks Ah"), cards("As 2c 3s 4h 5d")], rules)


def test_wheel_none() -> None:
    rules = engine_rules(wheel="none")
    assert T.row_type(cards(WHEEL), rules) is HandType.HIGH_CARD
    assert T.row_type(cards("As 2s 3s 4s 5s"), rules) is HandType.FLUSH
    assert compare(WHEEL, "2h 2s 3c 4d 6c", rules) == -1
    assert compare(WHEEL, "Kc Qd Jh 9s 8c", rules) == 1                  # an ace-high high card


def test_no_wrap_around_straights() -> None:
    for wheel in ("second", "lowest", "ace_equal", "none"):
        rules = engine_rules(wheel=wheel)
        assert T.row_type(cards("Qc Kd Ah 2s 3c"), rules) is HandType.HIGH_CARD
        assert T.row_type(cards("Kc Ad 2h 3s 4c"), rules) is HandType.HIGH_CARD


def test_flush_compare() -> None:
    low_spades, high_hearts = "2s 4s 6s 8s Ts", "Ah Kh Qh Jh 9h"
    assert compare(low_spades, high_hearts, engine_rules()) == -1
    suit_first = engine_rules(flush_compare="suit_first")
    assert compare(low_spades, high_hearts, suit_first) == 1
    assert compare("2s 3s 4s 5s 6s", "9h Th Jh Qh Kh", suit_first) == 1     # straight flushes too
    assert compare("2s 4s 6s 8s Ts", "3c 3d 3h 2c 2d", suit_first) == -1    # the type still comes first
    assert compare("2s 4s 6s 8s Ts", "Ac Kc Qc Jc 9c", suit_first) == 1
    # suits never foul: a strong-suited flush may sit below a weak-suited one
    hand = [cards("2c 3d 4h"), cards("2s 4s 6s 8s Ts"), cards("3h 5h 7h 9h Jh")]
    assert T.is_valid(hand, suit_first)
    assert T.is_valid(hand, engine_rules("banker"))


# ----------------------------------------------------------------------------- strength counts

@cache
def all_rows(size: int) -> np.ndarray:
    """Every row of ``size`` cards from the 52-card deck, shape (C(52, size), size)."""
    flat = itertools.chain.from_iterable(itertools.combinations(range(2, 54), size))
    return np.fromiter(flat, dtype=np.int8).reshape(-1, size)


def expected_counts(size: int, wheel: str, tiebreak: bool, suit_first: bool) -> tuple[int, int]:
    """(rank-only classes, distinct full strengths) counted from the rule text.

    Rank classes are those of standard poker (kickers of trips included; 7,462 five-card
    classes with the wheel a straight). With ``suit_tiebreak`` a class splits by the suit of
    its most significant card: 4 ways for a single top card, 3 for a pair (the better suit
    of two), 2 for a three, 1 for a four. ``suit_first`` splits flushes and straight flushes
    by suit.
    """
    if size == 3:
        classes = {"high": comb(13, 3), "pair": 13 * 12, "trips": 13}
        ways = {"high": 4, "pair": 3, "trips": 2}
    else:
        straight_sets = 9 if wheel == "none" else 10             # rank sets that are straights
        straights = 9 if wheel in ("none", "ace_equal") else 10  # distinct straight values
        high = comb(13, 5) - straight_sets
        classes = {"high": high, "pair": 13 * comb(12, 3), "two_pair": comb(13, 2) * 11,
                   "trips": 13 * comb(12, 2), "straight": straights, "flush": high, "full_house": 13 * 12,
                   "four": 13 * 12, "straight_flush": straights}
        ways = {"high": 4, "pair": 3, "two_pair": 3, "trips": 2, "straight": 4, "flush": 4,
                "full_house": 2, "four": 1, "straight_flush": 4}
    rank_classes = sum(classes.values())
    if tiebreak:
        full = sum(n * ways[k] for k, n in classes.items())
    elif suit_first and size == 5:
        full = rank_classes + 3 * (classes["flush"] + classes["straight_flush"])
    else:
        full = rank_classes
    return rank_classes, full


def test_expected_counts_are_the_known_ones() -> None:
    assert expected_counts(5, "lowest", False, False) == (7462, 7462)
    assert expected_counts(3, "lowest", False, False) == (455, 455)


COUNT_CASES = [
    ("classic", {}), ("banker", {}), ("western", {}), ("classic", {"wheel": "lowest"}),
    ("classic", {"wheel": "none"}), ("classic", {"wheel": "ace_equal", "suit_tiebreak": False}),
    ("banker", {"suit_tiebreak": False}),
]


@pytest.mark.parametrize("preset, overrides", COUNT_CASES, ids=[p + str(o) for p, o in COUNT_CASES])
@pytest.mark.parametrize("size", [3, 5])
def test_distinct_strength_counts(size: int, preset: str, overrides: dict[str, Any]) -> None:
    rules = engine_rules(preset, **overrides)
    strengths = T.row_strengths(all_rows(size), rules)
    rank_classes, full = expected_counts(size, rules.wheel, rules.suit_tiebreak, rules.flush_compare == "suit_first")
    assert len(np.unique(T.rank_only(strengths))) == rank_classes
    assert len(np.unique(strengths)) == full
    assert len(np.unique(T.strength_type(strengths))) == (3 if size == 3 else 9)


def consecutive_classes(strengths: np.ndarray, rows: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """One row per distinct strength, in increasing order, as consecutive pairs."""
    values, first = np.unique(strengths, return_index=True)
    reps = rows[first]
    return list(zip(reps[:-1], reps[1:]))


def only_kickers_differ(a: np.ndarray, b: np.ndarray) -> bool:
    """Trips, full houses and fours of one rank: envs/thirteen/RULES.md section 4.1 compares them by the three / four
    only; the engine also orders them by the other cards. Such rows never meet (one deck)."""
    ca, cb = Counter(RANK[a].tolist()), Counter(RANK[b].tolist())
    (ra, na), (rb, nb) = ca.most_common(1)[0], cb.most_common(1)[0]
    return na >= 3 and nb >= 3 and ra == rb


@pytest.mark.parametrize("preset, overrides", [("classic", {}), ("banker", {}), ("western", {}),
                                               ("classic", {"wheel": "none"})])
def test_three_card_order_equals_the_reference(preset: str, overrides: dict[str, Any]) -> None:
    """Sorting all 22,100 three-card rows by engine strength: consecutive distinct strengths
    are strictly increasing for the reference too, and equal strengths are equal for it."""
    rules, r = engine_rules(preset, **overrides), ref.rules(preset, **overrides)
    rows = all_rows(3)
    strengths = T.row_strengths(rows, rules)
    for a, b in consecutive_classes(strengths, rows):
        assert ref.compare(to_ref(a), to_ref(b), r) == -1, (format_cards(a), format_cards(b))
    order = np.argsort(strengths, kind="stable")
    same = np.flatnonzero(np.diff(strengths[order]) == 0)
    for k in same[:: max(1, len(same) // 500)]:
        a, b = rows[order[k]], rows[order[k + 1]]
        assert ref.compare(to_ref(a), to_ref(b), r) == 0, (format_cards(a), format_cards(b))


FIVE_ORDER_CASES = [
    ("classic", {}),
    pytest.param("banker", {}, marks=pytest.mark.slow),
    pytest.param("western", {}, marks=pytest.mark.slow),
    pytest.param("classic", {"wheel": "none"}, marks=pytest.mark.slow),
    ("classic", {"flush_compare": "suit_first", "suit_tiebreak": False}),
]


@pytest.mark.parametrize("preset, overrides", FIVE_ORDER_CASES)
def test_five_card_class_order_equals_the_reference(preset: str, overrides: dict[str, Any]) -> None:
    """One row per distinct engine strength (23,634 classes in classic), in engine order: each
    is stronger than the one before for the reference too."""
    rules, r = engine_rules(preset, **overrides), ref.rules(preset, **overrides)
    rows = all_rows(5)
    for a, b in consecutive_classes(T.row_strengths(rows, rules), rows):
        if only_kickers_differ(a, b):
            continue
        assert ref.compare(to_ref(a), to_ref(b), r) == -1, (format_cards(a), format_cards(b))


# ----------------------------------------------------------------------------- engine against reference

@pytest.mark.parametrize("rounds", ROUNDS)
@pytest.mark.parametrize("preset, overrides", RULE_SETS, ids=RULE_IDS)
def test_compare_against_reference(preset: str, overrides: dict[str, Any], rounds: int,
                                   rng: np.random.Generator) -> None:
    rules, r = engine_rules(preset, **overrides), ref.rules(preset, **overrides)
    for _ in range(1_500 * rounds):
        a, b = row_pair(rng)
        expected = ref.compare(to_ref(a), to_ref(b), r)
        assert T.compare_rows(a, b, rules) == expected, (format_cards(a), format_cards(b))
        assert T.row_type(a, rules).name.lower() == ref.row_type(to_ref(a), r)


@pytest.mark.parametrize("preset, overrides", RULE_SETS, ids=RULE_IDS)
def test_validity_against_reference(preset: str, overrides: dict[str, Any], rng: np.random.Generator) -> None:
    """Random arrangements of rich deals, and random splits of each hand through the valid mask."""
    rules, r = engine_rules(preset, **overrides), ref.rules(preset, **overrides)
    game = make_game("thirteen", preset, **overrides)
    for _ in range(40):
        slots = game.slots(deal_cards(rng, 13))
        mask = game.valid_mask(slots)
        assert mask.dtype == bool and mask.shape == (THIRTEEN.n_actions,)
        hand = to_ref(slots)
        for index in rng.integers(0, THIRTEEN.n_actions, 40):
            rows = THIRTEEN.decode(int(index))
            expected = ref.is_valid(*([hand[s] for s in row] for row in rows), r)
            assert bool(mask[index]) == expected, (format_cards(slots), int(index))
            assert T.is_valid(game.arrangement(slots, int(index)), rules) == expected


def reference_mask(slots: np.ndarray, r: dict[str, Any]) -> np.ndarray:
    hand = to_ref(slots)
    return np.array([ref.is_valid([hand[s] for s in row[:3]], [hand[s] for s in row[3:8]],
                                  [hand[s] for s in row[8:]], r) for row in THIRTEEN.slot_table])


def test_full_mask_against_reference() -> None:
    slots = np.sort(parse_cards("2c 5d 5h 7s 8c 9d Tc Th Js Qd Kc Ah As"))
    mask = T.valid_mask(slots, engine_rules())
    assert np.array_equal(mask, reference_mask(slots, ref.rules()))
    assert 0 < mask.sum() < THIRTEEN.n_actions


@pytest.mark.slow
@pytest.mark.parametrize("preset, overrides", RULE_SETS[:8], ids=RULE_IDS[:8])
def test_full_masks_against_reference(preset: str, overrides: dict[str, Any], rng: np.random.Generator) -> None:
    rules, r = engine_rules(preset, **overrides), ref.rules(preset, **overrides)
    for _ in range(2):
        slots = np.sort(deal_cards(rng, 13))
        assert np.array_equal(T.valid_mask(slots, rules), reference_mask(slots, r)), format_cards(slots)


def random_table(rng: np.random.Generator, game: Any, n: int, foul_rate: float = 0.2) -> list[list[list[int]]]:
    """n seats dealt from one deck (rich in patterns), each arranged at a random valid split or,
    with probability ``foul_rate``, at any split."""
    drawn = deal_cards(rng, 13 * n)
    table = []
    for seat in range(n):
        slots = game.slots(drawn[13 * seat: 13 * seat + 13])
        valid = np.flatnonzero(game.valid_mask(slots))
        index = rng.integers(game.n_actions) if rng.random() < foul_rate or not len(valid) else rng.choice(valid)
        table.append(game.arrangement(slots, int(index)))
    return table


def assert_score_matches_reference(table: list[list[list[int]]], rules: ThirteenRules, r: dict[str, Any]) -> None:
    got = thirteen_scoring.score_table(table, rules)
    want = ref.score([tuple(to_ref(row) for row in hand) for hand in table], r)
    shown = [" | ".join(format_cards(row) for row in hand) for hand in table]
    assert [float(p) for p in got.payoffs] == want["payoffs"], shown
    assert list(got.fouled) == want["fouled"], shown
    assert list(got.specials) == want["specials"], shown
    assert abs(float(np.sum(got.payoffs))) < 1e-9


@pytest.mark.parametrize("rounds", ROUNDS)
@pytest.mark.parametrize("preset, overrides", RULE_SETS, ids=RULE_IDS)
def test_scores_against_reference(preset: str, overrides: dict[str, Any], rounds: int,
                                  rng: np.random.Generator) -> None:
    rules, r = engine_rules(preset, **overrides), ref.rules(preset, **overrides)
    game = make_game("thirteen", preset, **overrides)
    low = rules.banker_seat + 1 if rules.scoring == "banker" else 2
    for _ in range(40 * rounds):
        n = int(rng.integers(max(2, low), 5))
        assert_score_matches_reference(random_table(rng, game, n), rules, r)


@pytest.mark.parametrize("table_name", ["classic", "shisanshui", "banker"])
def test_specials_against_reference(table_name: str, rng: np.random.Generator) -> None:
    """Special detection on hands dealt from small decks (where specials are common)."""
    rules, r = engine_rules(specials=table_name), ref.rules(specials=table_name)
    found = Counter()
    for _ in range(400):
        if rng.random() < 0.2:  # one card of each rank: dragons
            suits = rng.choice(4, 13) if rng.random() < 0.8 else np.full(13, rng.integers(4))
            hand = [card_id(r, int(s)) for r, s in enumerate(suits)]
        else:
            ranks = rng.choice(13, int(rng.integers(7, 14)), replace=False)
            suits = rng.choice(4, int(rng.integers(2, 5)), replace=False)
            pool = [card_id(int(x), int(s)) for x in ranks for s in suits]
            if len(pool) < 13:
                continue
            hand = rng.choice(pool, 13, replace=False).tolist()
        name, value = thirteen_specials.special_hand(hand, rules)
        assert value == ref.special(to_ref(hand), r), format_cards(sorted(hand))
        found[name] += 1
    assert sum(n for name, n in found.items() if name) > 0


# ----------------------------------------------------------------------------- special hands

SPECIAL_HANDS = {
    "dragon": "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac",
    "clean_dragon": "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As",
    "six_pairs": "2c 2d 5c 5d 9c 9d Jc Jd Kc Kd Ac Ad 7h",
    "six_pairs_with_a_four": "2c 2d 2h 2s 5c 5d 9c 9d Jc Jd Kc Kd 7h",
    "three_flushes": "2h 5h 9h 2c 6c 8c Jc Kc 4s 7s Ts Qs As",
    "three_straights": "2c 3d 4h 3c 4d 5h 6s 7c 5c 6d 7h 8s 9c",
    "four_trips": "2c 2d 2h 5c 5d 5h 9c 9d 9h Jc Jd Jh Ks",
    "one_colour": "2h 4h 6h 8h Th Qh 2d 5d 7d 9d Jd Kd Ad",
    "all_small": "2c 2d 2h 3c 3d 3h 4c 4d 4h 5s 6s 7s 8d",
    "all_big": "8c 8d 8h 9c 9d 9h Tc Td Th Js Qs Ks Ad",
    "three_fours": "2c 2d 2h 2s 5c 5d 5h 5s 9c 9d 9h 9s Kd",
    "three_straight_flushes": "2h 3h 4h 2s 3s 4s 5s 6s 9c Tc Jc Qc Kc",
    "royals": "Jc Jd Jh Qc Qd Qh Kc Kd Kh Ac Ad Ah Js",
    "nothing": "2c 3c 5d 6h 8s 9s Tc Jd Jh Kc Ks Ad 4c",
}

# (table, hand) -> (name, value) of the best special it qualifies for (envs/thirteen/RULES.md section 7.2)
EXPECTED_SPECIALS = {
    "classic": {"dragon": ("dragon", 13), "clean_dragon": (None, 13), "six_pairs": ("six_pairs", 3),
                "six_pairs_with_a_four": ("six_pairs", 3), "three_flushes": ("three_flushes", 3),
                "three_straights": ("three_straights", 3), "four_trips": ("", 0), "one_colour": ("", 0),
                "all_small": ("", 0), "all_big": ("", 0), "three_fours": ("six_pairs", 3),
                "three_straight_flushes": (None, 3), "royals": ("", 0), "nothing": ("", 0)},
    "shisanshui": {"dragon": ("dragon", 36), "clean_dragon": ("clean_dragon", 108), "six_pairs": ("six_pairs", 4),
                   "six_pairs_with_a_four": ("six_pairs", 4), "three_flushes": ("three_flushes", 3),
                   "three_straights": ("three_straights", 4), "four_trips": ("four_trips", 6),
                   "one_colour": ("one_colour", 10), "all_small": ("all_small", 10), "all_big": ("all_big", 10),
                   "three_fours": ("three_fours", 20), "three_straight_flushes": ("three_straight_flushes", 20),
                   "royals": ("royals", 24), "nothing": ("", 0)},
    "banker": {"dragon": (None, 13), "clean_dragon": (None, 13), "six_pairs": ("", 0), "three_flushes": ("", 0),
               "three_straights": ("", 0), "royals": ("", 0), "nothing": ("", 0),
               "three_straight_flushes": ("", 0)},
    "off": {name: ("", 0) for name in SPECIAL_HANDS},
}
SPECIAL_CASES = [(table, hand) for table, hands in EXPECTED_SPECIALS.items() for hand in hands]


@pytest.mark.parametrize("table_name, hand_name", SPECIAL_CASES)
def test_special_hand(table_name: str, hand_name: str) -> None:
    hand = cards(SPECIAL_HANDS[hand_name])
    assert len(hand) == 13 and len(set(hand)) == 13
    rules = engine_rules(specials=table_name)
    name, value = thirteen_specials.special_hand(hand, rules)
    want_name, want_value = EXPECTED_SPECIALS[table_name][hand_name]
    assert value == want_value
    if want_name is not None:
        assert name == want_name
    assert ref.special(to_ref(hand), ref.rules(specials=table_name)) == want_value


def arrange(text: str) -> list[list[int]]:
    return [cards(part) for part in text.split("|")]


def as_table(*hands: str) -> list[list[list[int]]]:
    return [arrange(h) for h in hands]


def split13(text: str) -> str:
    """A 13-card hand written as front | middle | back (in the given order)."""
    ids = cards(text)
    return " | ".join(format_cards(r) for r in (ids[:3], ids[3:8], ids[8:]))


def test_special_scores_from_every_opponent_fouled_or_not() -> None:
    """The holder gets the value from each opponent without a special; the arrangement of a
    special hand is ignored (this dragon is set front-heavy, which would foul)."""
    dragon = "Ac Ks Qh | 7d 8h 9s Tc Jd | 2c 3d 4h 5s 6c"
    plain = "2d 3c 4d | 5c 5d 6d 7c 8c | 9c 9d Td Ts 3s"
    fouled = "Ah Ad 2s | 3h 4s 6h 7h 8d | 9h Th Jc Jh Js"
    score = thirteen_scoring.score_table(as_table(dragon, plain, fouled), engine_rules())
    assert score.specials[0] == 13 and score.special_names[0] == "dragon"
    assert score.fouled == [False, False, True]
    # seat 1 against the fouled seat 2: seat 1's row values, all 1
    assert list(score.payoffs) == [26, -13 + 3, -13 - 3]
    shisanshui = thirteen_scoring.score_table(as_table(dragon, plain, fouled), engine_rules("shisanshui"))
    # shisanshui: seat 1 scoops the fouled seat 2 (doubled); specials never count as scoops
    assert list(shisanshui.payoffs) == [72, -36 + 6, -36 - 6]


def test_special_against_special() -> None:
    dragon = split13(SPECIAL_HANDS["dragon"])
    six_pairs = split13("2s 2h 5c 5h 9c 9h Js Jh Kc Kh As Ah 7h")
    other_six = split13("3c 3d 6c 6d Tc Td Qc Qd 8c 8d 4s 4h 7c")
    assert list(thirteen_scoring.score_table(as_table(dragon, six_pairs), engine_rules()).payoffs) == [13, -13]
    assert list(thirteen_scoring.score_table(as_table(six_pairs, other_six), engine_rules()).payoffs) == [0, 0]
    assert list(thirteen_scoring.score_table(as_table(six_pairs, dragon),
                                             engine_rules("shisanshui")).payoffs) == [-36, 36]


def test_banker_specials_banker_pays_when_both_hold_one() -> None:
    dragon_a = split13(SPECIAL_HANDS["dragon"])
    dragon_b = split13("2d 3c 4s 5h 6d 7c 8s 9h Td Jc Qs Kh Ad")
    plain = split13("2h 2s 3h 3s 4c 5c 5d 6h 6s 7h 7s 8c 8d")
    score = thirteen_scoring.score_table(as_table(dragon_a, dragon_b, plain), engine_rules("banker"))
    # seat 0 banks: pays 13 to the other dragon, gets 13 from the plain hand; seats 1 and 2 never meet
    assert list(score.payoffs) == [0, 13, -13]
    score = thirteen_scoring.score_table(as_table(plain, dragon_a, dragon_b), engine_rules("banker"))
    assert list(score.payoffs) == [-26, 13, 13]


# ----------------------------------------------------------------------------- scoring by hand

STRONG = "Ac Ad Ah | Kc Kd Kh Ks 2c | Qc Jc Tc 9c 8c"     # trips front 3, four in middle 8, straight flush in back 5
WEAK = "2d 3h 4s | 5d 6h 8s 9d Js | 7c 7d 3c 3d Td"
FOUL_1 = "Qd Qh 2d | 3c 4d 6h 8s Td | 5c 5d 7c 7d Jd"
FOUL_2 = "Jh Js 2h | 3d 4h 6s 8d Th | 5h 5s 7h 7s 9d"
FOUL_3 = "9h 9s Qs | 2s 3h 4c 6c 8h | As Ts 6d 4s 3s"
FOUL_W = "Ah Ad 2s | 3s 4c 6c 8c Tc | 5c 5h 9c 9h Kc"     # fouls, and shares no card with WEAK
MIXED_A = "5c 5d 5h | 6c 7d 8h 9s Tc | 2h 4h 7h Jh Kh"    # wins front (trips: 3), loses middle and back
MIXED_B = "Ac Kd Ts | 3c 3d 3h 4c 4d | Qc Qd Qh Qs 6s"    # full house middle 2, four in back 4


@pytest.mark.parametrize("preset, overrides, hands, payoffs", [
    ("classic", {}, (STRONG, WEAK), [16, -16]),
    ("classic", {"scoop": "double"}, (STRONG, WEAK), [32, -32]),
    ("shisanshui", {}, (STRONG, WEAK), [32, -32]),
    ("banker", {}, (STRONG, WEAK), [3, -3]),
    ("western", {}, (STRONG, WEAK), [4, -4]),
    ("classic", {}, (MIXED_A, MIXED_B), [-3, 3]),
    ("shisanshui", {}, (MIXED_A, MIXED_B), [-3, 3]),
    ("banker", {}, (MIXED_A, MIXED_B), [-1, 1]),
    ("western", {}, (MIXED_A, MIXED_B), [-2, 2]),
    ("classic", {}, (STRONG, FOUL_1, FOUL_2, FOUL_3), [48, -16, -16, -16]),
    ("classic", {"scoop": "double"}, (STRONG, FOUL_1, FOUL_2, FOUL_3), [96, -32, -32, -32]),
    ("shisanshui", {}, (STRONG, FOUL_1, FOUL_2, FOUL_3), [192, -64, -64, -64]),   # home run
    ("shisanshui", {"home_run": False}, (STRONG, FOUL_1, FOUL_2, FOUL_3), [96, -32, -32, -32]),
    ("shisanshui", {}, (STRONG, FOUL_1, FOUL_2), [64, -32, -32]),                  # home run needs 4 players
    ("banker", {}, (STRONG, FOUL_1, FOUL_2, FOUL_3), [9, -3, -3, -3]),
    ("banker", {"banker_seat": 1}, (STRONG, FOUL_1, FOUL_2, FOUL_3), [3, -3, 0, 0]),
    ("western", {}, (STRONG, FOUL_1, FOUL_2, FOUL_3), [12, -4, -4, -4]),
    ("classic", {}, (FOUL_1, FOUL_2), [0, 0]),
    ("classic", {}, (WEAK, FOUL_W), [3, -3]),
    ("shisanshui", {}, (FOUL_W, WEAK), [-6, 6]),
])
def test_scores_worked_by_hand(preset: str, overrides: dict[str, Any], hands: tuple[str, ...],
                               payoffs: list[int]) -> None:
    table = as_table(*hands)
    score = thirteen_scoring.score_table(table, engine_rules(preset, **overrides))
    assert list(score.payoffs) == payoffs
    assert score.fouled == [h in (FOUL_1, FOUL_2, FOUL_3, FOUL_W) for h in hands]
    assert score.specials == [0] * len(hands)
    assert_score_matches_reference(table, engine_rules(preset, **overrides), ref.rules(preset, **overrides))


def test_score_breakdown() -> None:
    score = thirteen_scoring.score_table(as_table(MIXED_A, MIXED_B), engine_rules())
    document = score.to_dict()
    assert set(document) >= {"payoffs", "fouled", "specials", "pairs"}
    (pair,) = document["pairs"]
    assert pair["seats"] == [0, 1] and pair["rows"] == [3, -2, -4] and pair["total"] == -3


def test_equal_rows_tie_without_suit_tiebreak() -> None:
    a = "As Kd 9c | 2h 2s 5h 7s Jc | 3h 3s 8d 8h Qs"
    b = "Ah Kc 9d | 2c 2d 5c 7d Jd | 3c 3d 8c 8s Qh"
    assert list(thirteen_scoring.score_table(as_table(a, b), engine_rules("western")).payoffs) == [0, 0]
    assert list(thirteen_scoring.score_table(as_table(a, b), engine_rules(suit_tiebreak=False)).payoffs) == [0, 0]
    # with suit tie-breaks ♠A beats ♥A and ♠2 (the pair's best suit) beats ♣2, but ♠8 beats ♥8
    assert list(thirteen_scoring.score_table(as_table(a, b), engine_rules()).payoffs) == [1, -1]


def test_fouls_follow_rule_3_3() -> None:
    rules = engine_rules()
    valid = lambda text: T.is_valid(arrange(text), rules)  # noqa: E731
    assert valid("Ac Kd Qh | Ah Kc Qd 3s 2s | 4c 4d 5h 6s 7c")       # A-K-Q front ≤ A-K-Q-3-2 middle
    assert not valid("Ac Kd Jh | Ah Kc Td 9s 8s | 4c 4d 5h 6s 7c")   # top three ranks A-K-J > A-K-T
    assert valid("8c 8d Kh | 8h 8s Ac 3d 2c | 9c 9d 5h 6s 7c")       # pair 8 + K ≤ pair 8 + A
    assert valid("8c 8d Ah | 8h 8s Ac 3d 2c | 9c 9d 5h 6s 7c")       # equal by ranks: allowed
    assert not valid("8c 8d Ah | 8h 8s Kc 3d 2c | 9c 9d 5h 6s 7c")   # pair 8 + A > pair 8 + K
    assert not valid("5c 5d 5h | 2c 2d 3h 3s 4c | 9c 9d 8h 8s 7c")   # trips front over two pair
    assert valid("5c 5d 5h | 6c 6d 6h 3s 4c | 9c 9d 8h 8s 8c")       # trips front under higher trips
    assert not valid("2c 3d 5h | 9c 9d 8h 8s 7c | 6c 6d 4h 4s Ac")   # middle two pair over back
    assert valid("2c 3d 4h | 6c 7d 8h 9s Tc | 6d 7h 8s 9c Ts")       # equal middle and back: allowed


# ----------------------------------------------------------------------------- invariants (hypothesis)

rule_sets = st.sampled_from(RULE_SETS)
decks = st.permutations(list(range(2, 54)))


@given(rule_sets, decks, st.sampled_from([3, 5]))
@settings(max_examples=150)
def test_comparison_is_a_total_order(case: tuple[str, dict[str, Any]], deck: list[int], size: int) -> None:
    rules = engine_rules(case[0], **case[1])
    a, b, c = deck[:size], deck[size:2 * size], deck[2 * size:3 * size]
    ab, bc, ac = T.compare_rows(a, b, rules), T.compare_rows(b, c, rules), T.compare_rows(a, c, rules)
    assert ab == -T.compare_rows(b, a, rules)
    assert T.compare_rows(a, a, rules) == 0
    if ab >= 0 and bc >= 0:
        assert ac >= 0 and (ac > 0 or ab == bc == 0)
    if ab <= 0 and bc <= 0:
        assert ac <= 0 and (ac < 0 or ab == bc == 0)
    if ab == bc == 0:
        assert ac == 0
    if rules.suit_tiebreak:  # rows of one deck never tie
        assert ab != 0 and bc != 0 and ac != 0


@given(rule_sets, decks, st.integers(2, 4), st.data())
@settings(max_examples=60)
def test_payoffs_are_zero_sum(case: tuple[str, dict[str, Any]], deck: list[int], n: int, data: st.DataObject) -> None:
    preset, overrides = case
    rules = engine_rules(preset, **overrides)
    if rules.scoring == "banker":
        n = max(n, rules.banker_seat + 1)
    table = []
    for seat in range(n):
        hand = deck[13 * seat: 13 * seat + 13]
        index = data.draw(st.integers(0, THIRTEEN.n_actions - 1))
        table.append([[hand[s] for s in row] for row in THIRTEEN.decode(index)])
    score = thirteen_scoring.score_table(table, rules)
    assert score.payoffs.shape == (n,)
    assert abs(float(score.payoffs.sum())) < 1e-9
    assert float(score.payoffs.sum()) == sum(float(p) for p in score.payoffs)


@given(rule_sets, decks, st.lists(st.integers(0, THIRTEEN.n_actions - 1), min_size=1, max_size=20))
@settings(max_examples=40)
def test_mask_equals_validity(case: tuple[str, dict[str, Any]], deck: list[int], indices: list[int]) -> None:
    game = make_game("thirteen", case[0], **case[1])
    slots = game.slots(deck[:13])
    mask = game.valid_mask(slots)
    front, middle, back = game.split_strengths(slots)
    assert np.array_equal(mask, game.valid_rows(front, middle, back))
    for index in indices:
        rows = game.arrangement(slots, index)
        assert bool(mask[index]) == T.is_valid(rows, game.rules)
        strengths = T.arrangement_strengths(rows, game.rules)
        assert list(strengths) == [front[index], middle[index], back[index]]
        assert game.index_of(slots, rows) == index
        assert game.index_of(slots, [row[::-1] for row in rows]) == index


def test_masks_are_plausible(rng: np.random.Generator) -> None:
    """envs/thirteen/RULES.md section 11.3: about 22,000 of the 72,072 splits are valid for a typical hand."""
    rules = engine_rules()
    counts = [int(T.valid_mask(rng.choice(np.arange(2, 54), 13, replace=False), rules).sum()) for _ in range(20)]
    assert 15_000 < float(np.median(counts)) < 30_000


# ----------------------------------------------------------------------------- bad input

def test_bad_rows() -> None:
    rules = engine_rules()
    with pytest.raises(ValueError, match="4 cards; a Thirteen row has 3 or 5"):
        T.row_strength(cards("As Kd Qc Js"), rules)
    with pytest.raises(ValueError, match="4 cards"):
        T.compare_rows(cards("As Kd Qc Js"), cards("Ah Kh Qh Jh"), rules)
    with pytest.raises(ValueError, match="differ in size"):
        T.compare_rows(cards("As Kd Qc"), cards("Ah Kh Qh Jh Th"), rules)
    with pytest.raises(ValueError, match="joker BJ"):
        T.row_strength(cards("BJ Kd Qc"), rules)
    with pytest.raises(ValueError, match="joker RJ"):
        T.valid_mask(cards("RJ 2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc"), rules)


def test_bad_hands() -> None:
    rules = engine_rules()
    with pytest.raises(ValueError, match="12 cards"):
        T.valid_mask(cards("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc"), rules)
    with pytest.raises(ValueError, match="2c twice"):
        T.valid_mask(cards("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc") + cards("2c"), rules)
    with pytest.raises(ValueError, match="3 \\| 5 \\| 5"):
        T.is_valid(arrange("As Kd | Qc Jc Tc 9c 8c 7c | 2d 3d 4d 5d 6d"), rules)


def test_bad_tables() -> None:
    rules = engine_rules()
    with pytest.raises(ValueError, match="card Ac is in the hands of seats 0 and 1"):
        thirteen_scoring.score_table(as_table(STRONG, "Ac 3h 4s | 5d 6h 8s 9d Js | 7c 7d 3c 3d Td"), rules)
    with pytest.raises(ValueError, match="2 to 4 players, got 1"):
        thirteen_scoring.score_table(as_table(STRONG), rules)
    with pytest.raises(ValueError, match="2 to 4 players, got 5"):
        thirteen_scoring.score_table(as_table(STRONG, WEAK, FOUL_1, FOUL_2, FOUL_3), rules)
    with pytest.raises(ValueError, match="seat 1"):
        thirteen_scoring.score_table(as_table(STRONG, "2d 3h 4s | 5d 6h 8s 9d | 7c 7d 3c 3d Td Js"), rules)
    with pytest.raises(ValueError, match="seat 1.*BJ|BJ.*seat 1"):
        thirteen_scoring.score_table(as_table(STRONG, "BJ 3h 4s | 5d 6h 8s 9d Js | 7c 7d 3c 3d Td"), rules)
    with pytest.raises(ValueError, match="banker_seat 3"):
        thirteen_scoring.score_table(as_table(STRONG, WEAK), engine_rules("banker", banker_seat=3))


@pytest.mark.parametrize("call, message", [
    (lambda: ThirteenRules.preset("chinese"),
     "unknown thirteen preset 'chinese'; presets: classic, shisanshui, banker, western"),
    (lambda: ThirteenRules.preset("classic", wheels="lowest"), "unknown thirteen switch 'wheels'; switches: wheel, "),
    (lambda: ThirteenRules.preset("classic", wheel="highest"),
     "wheel='highest' is not allowed; allowed: second, lowest, ace_equal, none"),
    (lambda: ThirteenRules.preset("classic", scoop="triple"), "scoop='triple' is not allowed; allowed: none, double"),
    (lambda: ThirteenRules.preset("classic", suit_tiebreak="maybe"),
     "suit_tiebreak='maybe' is not allowed; use true or false"),
    (lambda: ThirteenRules.preset("classic", suit_order="spades>hearts>clubs"),
     "suit_order 'spades>hearts>clubs' must name each of"),
    (lambda: ThirteenRules.preset("classic", banker_seat=7), "banker_seat=7 is not allowed; allowed: 0, 1, 2, 3"),
    (lambda: ThirteenRules.preset("western", royalties="classic"), "royalties=none"),
    (lambda: ThirteenRules.preset("western", scoop="double"), "has no royalties, specials or scoop"),
    (lambda: ThirteenRules.preset("classic", home_run=True), "home_run=true needs scoop=double and scoring=pairwise"),
    (lambda: ThirteenRules.preset("banker", scoop="double", home_run=True),
     "home_run=true needs scoop=double and scoring=pairwise (got scoop=double, scoring=banker)"),
    (lambda: engine_rules().replace(specials="everything"),
     "specials='everything' is not allowed; allowed: classic, shisanshui, banker, off"),
    (lambda: ThirteenRules.from_mapping({"preset": "classic", "scoring": "bank"}), "scoring='bank' is not allowed"),
    (lambda: make_game("thirteen", "classic", dragon=1), "unknown thirteen switch 'dragon'"),
    (lambda: make_game("thirteen", "biji"), "unknown thirteen preset 'biji'"),
    (lambda: make_game("fourteen"), "unknown game 'fourteen'; games: thirteen, biji"),
])
def test_bad_rules(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", "\\(").replace(")", "\\)")):
        call()


def test_rules_from_strings() -> None:
    """Overrides from YAML or the command line arrive as strings; booleans and ints are read."""
    rules = ThirteenRules.from_mapping({"preset": "shisanshui", "suit_tiebreak": "off", "banker_seat": "2"})
    assert rules.suit_tiebreak is False and rules.banker_seat == 2 and rules.scoop == "double"
    assert engine_rules("banker").to_dict() == ref.rules("banker")
    for preset in ("classic", "shisanshui", "western"):
        assert engine_rules(preset).to_dict() == ref.rules(preset)


@pytest.mark.parametrize("preset,switches", [
    ("classic", {}), ("western", {}), ("shisanshui", {}), ("classic", {"suit_tiebreak": False}),
    ("classic", {"flush_compare": "suit_first"}), ("classic", {"wheel": "lowest"}), ("western", {"wheel": "none"}),
    ("classic", {"rank_compare": "top"})])
def test_subset_strengths_are_the_rules_row_strengths(preset: str, switches: dict) -> None:
    """The compiled strengths of every 3- and 5-card subset of a hand (the 5-card ones by
    nested loops over the slots) are the rules' own row strengths, and the rank-only values
    the rules' rank tables give, on 20 random hands of each rule set."""
    from splitpoker.envs.cards import SUIT
    from splitpoker.envs.table import deal
    from splitpoker.envs.thirteen.kernels import subset_strengths

    game = make_game("thirteen", preset, **switches)
    hands = deal(game, 4, np.random.default_rng(11), batch=5).slots.reshape(-1, 13)
    tables = T.rank_tables(game.rules.wheel, game.rules.rank_compare)
    s3, r3, s5, r5 = subset_strengths(hands, game.rules)
    for size, strengths, rank_only in ((3, s3, r3), (5, s5, r5)):
        rows = hands[:, np.array(list(itertools.combinations(range(13), size)))].reshape(-1, size)
        assert np.array_equal(strengths.ravel(), T.row_strengths(rows, game.rules))
        key = RANK[rows].astype(np.int64) @ 13 ** np.arange(size - 1, -1, -1, dtype=np.int64)
        flush = (SUIT[rows] == SUIT[rows][:, :1]).all(axis=1) & (size == 5)
        expected = np.where(flush, tables["flush5"][key], tables["plain5"][key]) if size == 5 else tables["plain3"][key]
        assert np.array_equal(rank_only.ravel(), expected)
