"""Later rule readings of Thirteen in the slow reference (tests/reference/thirteen_ref.py) and
the fast engine against it: ``rank_compare=top`` (rows, and the foul order, by their most
significant rank only), ``scoring=majority`` (比大小 規則一: one unit to whoever wins more
rows), the special-hand tests ``three_straights_no_qka``, ``three_flushes_distinct`` and
``all_ranks``, the ``precedence`` rule between equal specials, the tables ``suit_dragon``,
``classic_big_small``, ``shisanshui_strict``, ``baibian_complete``, ``shaoxing_distinct`` and
the presets ``bidaxiao``, ``banker_top`` and ``shisanshui_strict``.

The known answers are worked from the rule text and checked on the reference alone; the
same cases, and random tables with planted special hands, then check the engine."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from splitpoker.envs.cards import card_id, format_cards, parse_cards
from splitpoker.envs.games import make_game
from splitpoker.envs.splits import THIRTEEN
from splitpoker.envs.thirteen import rules as T
from splitpoker.envs.thirteen import scoring as thirteen_scoring
from splitpoker.envs.thirteen import specials as thirteen_specials
from splitpoker.envs.thirteen.rules import ThirteenRules
from tests.reference import thirteen_ref as ref
from tests.test_thirteen_rules import (
    FOUL_1,
    FOUL_2,
    FOUL_3,
    MIXED_A,
    MIXED_B,
    ROUNDS,
    STRONG,
    WEAK,
    assert_score_matches_reference,
    deal_cards,
    random_table,
    row_pair,
    same_rank_rows,
    split13,
    to_ref,
)
from tests.test_thirteen_variants import CLEAN_DRAGON, MIXED_DRAGON, SF_HEARTS, SIX_PAIRS


def ref_table(*hands: str) -> list[ref.Hand]:
    """Hands written ``front | middle | back`` as the reference takes them."""
    return [tuple(ref.parse(row) for row in hand.split("|")) for hand in hands]  # type: ignore[misc]


def ref_payoffs(preset: str, *hands: str, **switches: Any) -> list[float]:
    return ref.score(ref_table(*hands), ref.rules(preset, **switches))["payoffs"]


def engine_payoffs(preset: str, *hands: str, **switches: Any) -> list[float]:
    score = thirteen_scoring.score_table([T.parse_arrangement(h) for h in hands],
                                         ThirteenRules.preset(preset, **switches))
    return [float(p) for p in score.payoffs]


# ----------------------------------------------------------------------------- hands

QKA_STRAIGHTS = "Qc Kd Ah 3c 4d 5h 6s 7c 9d Th Js Qs Kc"   # three straights only with a Q-K-A front
A23_STRAIGHTS = "Ac 2d 3h 3c 4d 5h 6s 7c 5c 6d 7h 8s 9c"   # front A-2-3
JQK_STRAIGHTS = "Jc Qd Kh 9c Td Js Qs Kc 3d 4h 5s 6c 7d"   # front J-Q-K
CLEAN_HEARTS = "2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah"     # a one-suit dragon in hearts (CLEAN_DRAGON: spades)
OTHER_DRAGON = "2d 3c 4s 5d 6c 7s 8d 9c Ts Jd Qc Ks Ad"     # a plain dragon, no card of MIXED_DRAGON
THREE_FLUSHES = "3h 4h Kh 3d 4d 6d 8d Jd 3s 4s 6s 8s Qs"    # three flushes in three suits (3 + 5 + 5)
FLUSHES_8_5 = "2h 4h 6h 8h Th Qh Kh Ah 2s 4s 6s 8s Ts"      # three flushes, two rows in hearts
FLUSHES_10_3 = "2h 3h 4h 6h 7h 9h Th Jh Qh Ah 2s 5s 9s"     # three flushes, a 10 + 3 split
THREE_SF = "2h 3h 4h 2s 3s 4s 5s 6s 9c Tc Jc Qc Kc"         # three straight flushes (20)
THREE_FOURS = "7c 7d 7h 7s 8c 8d 8h 8s Ac Ad Ah As 5d"      # three fours (20), also six pairs
BIG_8_A = "8c 8d 9h 9s Tc Td Jh Js Qc Qd Kh Ks Ah"          # all big 8-A (10), also six pairs
SMALL_2_8 = "2c 2d 3h 3s 4c 4d 5h 5s 6c 6d 7h 7s 8h"        # all small 2-8 (10), also six pairs
STRAIGHTS_4 = "2h 3h 4s 3s 4h 5h 6s 7s 5s 6h 7d 8h 9s"      # three straights (4), no pairs to speak of
OTHER_SIX = "3c 3d 6c 6d Tc Td Qc Qd 8c 8d 4s 4h 7c"        # six pairs, disjoint from SIX_PAIRS
TWO_TO_TEN = "2c 3c 4c 5c 6c 7c 8c 9c Tc 2d 3d 4d 5d"       # every rank 2-10
TWO_TO_NINE = "2c 3c 4c 5c 6c 7c 8c 9c 2d 3d 4d 5d 6h"      # 2-9, no 10 (also three straights)
ACE_TO_TEN = "Ac Ad 2c 3d 4h 5s 6c 7d 8h 9s Tc Td 9h"       # every rank A-10
SMALL_A_T = "Ah 2h 3h 4h 2s 3s 4d 5s 6s 7s 8d 9d Td"        # A-10; shares no card with FIVE_TO_ACE
ACE_TO_NINE = "Ac 2d 3h 4s 5c 6d 7h 8s 9c Ah 2c 3d 4h"      # A-9, no 10
FIVE_TO_ACE = "5c 6d 7h 8s 9c Tc Jd Qh Ks Ac Ad Kd 5h"      # every rank 5-A
PLAIN_B = "2c 3d 4h | 2d 6c 8c Jh Qc | 7c 7d 7s 9d Js"     # no special of any table here;
                                                           # shares no card with FIVE_TO_ACE
PLAIN_M = "2h 3h 4s | 5d 6d 8s 9d Js | 7c 7d Kc Kd Ks"     # no straight flush or four; shares none with SF_HEARTS
FOUL_M = "Ah Ad 2s | 3c 4h 6c 8d Tc | 5s 6s 7s 9s Qs"      # a pair over a high card; shares none with the two above
EQ_A = "As Kd 9c | 2h 2s 5h 7s Jc | 3h 3s 8d 8h Qs"        # every row equal by ranks to EQ_B's
EQ_B = "Ah Kc 9d | 2c 2d 5c 7d Jd | 3c 3d 8c 8s Qh"
EQ_C = "Ah Qc 9d | 2c 2d 5c 7d Jd | 3c 3d 8c 8s Qh"        # EQ_B with a lower front
TOP_BANKER = "Ac 3c 2d | Kc Kd 4h 5s 6c | 7c 8d 9h Tc Js"  # each row equal to TOP_PLAYER's by its top rank
TOP_PLAYER = "Ah Qh Jd | Kh Ks Qc Ts 2h | 7d 8h 9c Th Jc"


# ----------------------------------------------------------------------------- rank_compare=top: rows

TOP = dict(rank_compare="top")
#: (switches over classic, row a, row b, result under rank_compare=all, result under top)
TOP_COMPARES: list[tuple[dict[str, Any], str, str, int, int]] = [
    ({}, "Ah Kd 3c 4h 6s", "As Qd Jc 9h 8s", 1, -1),            # high card: A = A, then ♠A > ♥A
    ({"suit_tiebreak": False}, "Ah Kd 3c 4h 6s", "As Qd Jc 9h 8s", 1, 0),
    ({}, "Kh Ks 3s", "Kc Kd 7c", -1, 1),                          # pair: the kicker no longer counts
    ({"suit_tiebreak": False}, "Kh Ks 3s", "Kc Kd 7c", -1, 0),
    ({}, "Qh Qs 5c 5d 2h", "Qc Qd Jc Jd As", -1, 1),              # two pair: the higher pair only
    ({}, "As 4s 6s 8s Ts", "Ah 5h 7h 9h Kh", -1, 1),              # flush: the highest card only
    ({"flush_compare": "suit_first"}, "Ah 4h 6h 8h Th", "Ks 5s 7s 9s Qs", -1, -1),  # the suit first
    ({}, "9c Td Jh Qs Kc", "8d 9h Tc Js Qd", 1, 1),               # straights as before
    ({"wheel": "ace_equal"}, "Ac 2d 3h 4s 5c", "Td Jh Qs Kc Ad", 1, 1),  # equal straights, ♣A > ♦A
    ({"wheel": "ace_equal", "suit_tiebreak": False}, "Ac 2d 3h 4s 5c", "Td Jh Qs Kc Ad", 0, 0),
    ({"wheel": "lowest"}, "Ac 2d 3h 4s 5c", "2c 3d 4h 5s 6c", -1, -1),
    ({}, "Qc Qd Qh 2c 2d", "Jc Jd Jh As Ah", 1, 1),               # full house by the three
    ({}, "Ac 3d 2h", "Ad Kc Qs", -1, 1),                          # 3-card high card: ♣A > ♦A
    ({}, "2c 2d 2h", "As Ks Qs", 1, 1),                           # types first
]


@pytest.mark.parametrize("switches, a, b, result_all, result_top", TOP_COMPARES)
def test_top_rank_compare_reference(switches: dict[str, Any], a: str, b: str, result_all: int,
                                    result_top: int) -> None:
    assert ref.compare(ref.parse(a), ref.parse(b), ref.rules("classic", **switches)) == result_all
    assert ref.compare(ref.parse(a), ref.parse(b), ref.rules("classic", **switches, **TOP)) == result_top
    assert ref.compare(ref.parse(b), ref.parse(a), ref.rules("classic", **switches, **TOP)) == -result_top


#: (arrangement, valid under rank_compare=all, valid under top)
TOP_FOULS: list[tuple[str, bool, bool]] = [
    ("Kc Kd 3s | Kh Ks 7c 5d 2h | Ac Ad Ah 3c 3d", True, True),    # the rule text's example
    ("Kc Kd Qs | Kh Ks 7c 5d 2h | Ac Ad Ah 3c 3d", False, True),   # the front's kicker Q > 7 no longer fouls
    ("Ac Kd 2h | Ad Qc Jh 9s 8c | 2c 2d 3h 3s 4c", False, True),   # A-K-2 front, A-Q-J-9-8 middle
    ("2c 3d 4c | As Ks 9s 5s 2s | Ah Qh Jh 9h 3h", False, True),   # flush middle A-K over flush back A-Q
    ("Ac Ad 2h | Kc Kd 5s 6h 7c | Qs Qh Qd 8s 8h", False, False),  # pair A over pair K
    ("2c 3d 4c | Kc Kd 5s 5h 7c | Ac Ad 9s 8h 6c", False, False),  # two pair over a pair
    ("Qc Qd 2h | Qh Qs 9d 8h 7c | 2c 3d 4h 5s 6c", True, True),    # pair Q = pair Q, then a straight
    ("Qc Qd Ah | Qh Qs 9d 8h 7c | 2c 3d 4h 5s 6c", False, True),   # the front's kicker A > 9 no longer fouls
]


@pytest.mark.parametrize("arrangement, valid_all, valid_top", TOP_FOULS)
def test_top_rank_foul_order_reference(arrangement: str, valid_all: bool, valid_top: bool) -> None:
    rows = [ref.parse(row) for row in arrangement.split("|")]
    assert ref.is_valid(*rows, ref.rules("classic")) is valid_all
    assert ref.is_valid(*rows, ref.rules("classic", **TOP)) is valid_top
    assert ref.is_valid(*rows, ref.rules("banker_top")) is valid_top   # suits never foul, suit_first or not


# ----------------------------------------------------------------------------- known scores

#: (preset, switches, hands, payoffs), worked from the rule text
KNOWN_SCORES: list[tuple[str, dict[str, Any], tuple[str, ...], list[float]]] = [
    # rank_compare=top: all three rows equal by their top rank; banker_top gives them to the banker
    ("banker_top", {}, (TOP_BANKER, TOP_PLAYER), [3, -3]),
    ("banker_top", {}, (TOP_PLAYER, TOP_BANKER), [3, -3]),
    ("banker", {"suit_tiebreak": False, "tie_winner": "banker"}, (TOP_BANKER, TOP_PLAYER), [-1, 1]),
    ("banker", {}, (TOP_BANKER, TOP_PLAYER), [-1, 1]),                 # front and middle by kickers; ♠J > ♣J
    ("banker", TOP, (TOP_BANKER, TOP_PLAYER), [-1, 1]),                # ♥A > ♣A, ♠K > ♣K, ♠J > ♣J
    ("classic", TOP, (TOP_BANKER, TOP_PLAYER), [-1, 1]),
    ("classic", {**TOP, "suit_tiebreak": False}, (TOP_BANKER, TOP_PLAYER), [0, 0]),
    ("classic", {"suit_tiebreak": False}, (TOP_BANKER, TOP_PLAYER), [-2, 2]),
    # scoring=majority (bidaxiao): one unit to whoever won more rows
    ("bidaxiao", {}, (MIXED_A, MIXED_B), [-1, 1]),                     # 1 row to 2
    ("bidaxiao", {}, (STRONG, WEAK), [1, -1]),                         # 3 rows to 0: still one unit
    ("bidaxiao", {}, (STRONG, FOUL_1, FOUL_2, FOUL_3), [3, -1, -1, -1]),  # fouls: 1 each, 0 between them
    ("bidaxiao", {}, (FOUL_1, FOUL_2), [0, 0]),
    ("bidaxiao", {}, (EQ_A, EQ_B), [1, -1]),                           # ♠A, ♠2 win; ♠8 loses: 2 to 1
    ("bidaxiao", {"suit_tiebreak": False}, (EQ_A, EQ_B), [0, 0]),      # three tied rows
    ("bidaxiao", {"suit_tiebreak": False}, (EQ_A, EQ_C), [1, -1]),     # one row won, two tied
    ("mianbai", {"scoring": "majority"}, (split13(SF_HEARTS), PLAIN_M, FOUL_M), [6, -2, -4]),
    ("mianbai", {}, (split13(SF_HEARTS), PLAIN_M, FOUL_M), [6, 0, -6]),
    # shisanshui_strict: equal values go to the special listed first
    ("shisanshui_strict", {}, (split13(THREE_SF), split13(THREE_FOURS)), [20, -20]),
    ("shisanshui_strict", {}, (split13(THREE_FOURS), split13(THREE_SF)), [-20, 20]),
    ("shisanshui", {}, (split13(THREE_SF), split13(THREE_FOURS)), [0, 0]),
    ("shisanshui_strict", {}, (split13(BIG_8_A), split13(SMALL_2_8)), [10, -10]),
    ("shisanshui_strict", {"special_pays": 2}, (split13(BIG_8_A), split13(SMALL_2_8)), [2, -2]),
    ("shisanshui", {}, (split13(BIG_8_A), split13(SMALL_2_8)), [0, 0]),
    ("shisanshui_strict", {}, (split13(STRAIGHTS_4), split13(SIX_PAIRS)), [-4, 4]),
    ("shisanshui_strict", {}, (split13(SIX_PAIRS), split13(OTHER_SIX)), [0, 0]),   # the same special ties
    # suit_dragon and classic_big_small
    ("classic", {"specials": "suit_dragon"}, (split13(CLEAN_DRAGON), split13(MIXED_DRAGON)), [26, -26]),
    ("classic", {}, (split13(CLEAN_DRAGON), split13(MIXED_DRAGON)), [0, 0]),
    # 規則三: two one-suit dragons by their suit (suit_order); two plain dragons tie
    ("classic", {"specials": "suit_dragon"}, (split13(CLEAN_HEARTS), split13(CLEAN_DRAGON)), [-26, 26]),
    ("classic", {"specials": "suit_dragon", "suit_order": "hearts>spades>clubs>diamonds"},
     (split13(CLEAN_HEARTS), split13(CLEAN_DRAGON)), [26, -26]),
    ("classic", {"specials": "suit_dragon", "special_pays": 5}, (split13(CLEAN_HEARTS), split13(CLEAN_DRAGON)),
     [-5, 5]),
    ("classic", {"specials": "suit_dragon"}, (split13(CLEAN_HEARTS), split13(OTHER_DRAGON)), [26, -26]),
    ("classic", {"specials": "suit_dragon"}, (split13(MIXED_DRAGON), split13(OTHER_DRAGON)), [0, 0]),
    ("classic", {}, (split13(CLEAN_HEARTS), split13(CLEAN_DRAGON)), [0, 0]),
    ("classic", {"specials": "classic_big_small"}, (split13(CLEAN_DRAGON), split13(MIXED_DRAGON)), [0, 0]),
    ("classic", {"specials": "classic_big_small"}, (split13(CLEAN_DRAGON), split13(TWO_TO_TEN)), [13, -13]),
    ("classic", {"specials": "classic_big_small"}, (split13(FIVE_TO_ACE), PLAIN_B), [3, -3]),
    ("classic", {"specials": "classic_big_small"}, (split13(SMALL_A_T), split13(FIVE_TO_ACE)), [0, 0]),
]


@pytest.mark.parametrize("preset, switches, hands, expected", KNOWN_SCORES)
def test_known_scores_reference(preset: str, switches: dict[str, Any], hands: tuple[str, ...],
                                expected: list[float]) -> None:
    assert ref_payoffs(preset, *hands, **switches) == expected


def test_majority_needs_plain_switches_reference() -> None:
    for switch, value in (("royalties", "classic"), ("scoop", "double"), ("home_run", True),
                          ("counted_rows", "back")):
        with pytest.raises(ValueError, match=f"scoring=majority needs {switch}"):
            ref.rules("bidaxiao", **{switch: value})
    with pytest.raises(ValueError, match="scoring=majority needs royalties"):
        ref.rules("classic", scoring="majority")
    assert ref.rules("mianbai", scoring="majority")["specials"] == "mianbai"


# ----------------------------------------------------------------------------- special tests and tables

def test_new_special_tests_reference() -> None:
    hand = ref.parse
    assert ref.is_three_straights(hand(QKA_STRAIGHTS)) and not ref.is_three_straights_no_qka(hand(QKA_STRAIGHTS))
    for text in (A23_STRAIGHTS, JQK_STRAIGHTS, STRAIGHTS_4):
        assert ref.is_three_straights_no_qka(hand(text)), text
    assert ref.is_three_flushes_distinct(hand(THREE_FLUSHES))
    for text in (FLUSHES_8_5, FLUSHES_10_3, CLEAN_DRAGON):
        assert ref.is_three_flushes(hand(text)) and not ref.is_three_flushes_distinct(hand(text)), text
    assert ref.all_ranks(hand(TWO_TO_TEN), "2", "T") and not ref.all_ranks(hand(TWO_TO_NINE), "2", "T")
    assert ref.ranks_within(hand(TWO_TO_NINE), "2", "T")
    assert ref.all_ranks(hand(ACE_TO_TEN), "A", "T") and not ref.all_ranks(hand(ACE_TO_NINE), "A", "T")
    assert not ref.all_ranks(hand(TWO_TO_TEN), "A", "T") and ref.ranks_within(hand(TWO_TO_TEN), "A", "T")
    assert not ref.ranks_within(hand(ACE_TO_TEN), "2", "T")             # the ace is low only from an A
    assert ref.all_ranks(hand(FIVE_TO_ACE), "5", "A") and not ref.ranks_within(hand(ACE_TO_TEN), "5", "A")


#: (table, hand, name, value); the names of the last two tables are the reference's own
TABLE_CASES: list[tuple[str, str, str, int]] = [
    ("suit_dragon", CLEAN_DRAGON, "clean_dragon", 26),
    ("suit_dragon", MIXED_DRAGON, "dragon", 13),
    ("suit_dragon", SIX_PAIRS, "six_pairs", 3),
    ("suit_dragon", QKA_STRAIGHTS, "three_straights", 3),
    ("suit_dragon", THREE_FLUSHES, "three_flushes", 3),
    ("classic_big_small", CLEAN_DRAGON, "clean_dragon", 13),            # a dragon is not all one suit
    ("classic_big_small", MIXED_DRAGON, "dragon", 13),
    ("classic_big_small", TWO_TO_TEN, "all_small", 3),
    ("classic_big_small", ACE_TO_NINE, "all_small", 3),
    ("classic_big_small", FIVE_TO_ACE, "all_big", 3),
    ("classic_big_small", THREE_FOURS, "six_pairs", 3),
    ("shisanshui_strict", CLEAN_DRAGON, "clean_dragon", 108),
    ("shisanshui_strict", MIXED_DRAGON, "dragon", 36),
    ("shisanshui_strict", THREE_SF, "three_straight_flushes", 20),
    ("shisanshui_strict", THREE_FOURS, "three_fours", 20),
    ("shisanshui_strict", BIG_8_A, "all_big", 10),
    ("shisanshui_strict", SMALL_2_8, "all_small", 10),
    ("shisanshui_strict", STRAIGHTS_4, "three_straights", 4),
    ("shisanshui_strict", A23_STRAIGHTS, "three_straights", 4),
    ("shisanshui_strict", QKA_STRAIGHTS, "", 0),                        # a Q-K-A front is not allowed
    ("shisanshui_strict", THREE_FLUSHES, "three_flushes", 3),
    ("baibian_complete", TWO_TO_TEN, "all_small_to_ten", 5),
    ("baibian_complete", TWO_TO_NINE, "three_straights", 4),            # baibian: all small (5)
    ("baibian_complete", ACE_TO_TEN, "all_ace_to_ten", 4),
    ("baibian_complete", ACE_TO_NINE, "", 0),                           # baibian: half small (4)
    ("shaoxing_distinct", THREE_FLUSHES, "three_flushes", 6),
    ("shaoxing_distinct", FLUSHES_8_5, "", 0),                          # shaoxing: three flushes (6)
]
#: tables whose special names the rule text gives (the reference's names are the engine's there)
NAMED_TABLES = ("suit_dragon", "classic_big_small", "shisanshui_strict")
TABLE_PRESET = {"suit_dragon": "classic", "classic_big_small": "classic", "shisanshui_strict": "shisanshui_strict",
                "baibian_complete": "baibian", "shaoxing_distinct": "shaoxing"}


@pytest.mark.parametrize("table, hand, name, value", TABLE_CASES)
def test_new_special_tables_reference(table: str, hand: str, name: str, value: int) -> None:
    r = ref.rules(TABLE_PRESET[table], specials=table)
    assert (ref.special_name(ref.parse(hand), r), ref.special(ref.parse(hand), r)) == (name, value)


def test_changed_tests_change_only_their_specials_reference() -> None:
    """The tables a reading derives from: the same hands there score as before."""
    old = {"baibian_complete": "baibian", "shaoxing_distinct": "shaoxing", "shisanshui_strict": "shisanshui"}
    assert ref.special(ref.parse(TWO_TO_NINE), ref.rules("baibian")) == 5
    assert ref.special(ref.parse(ACE_TO_NINE), ref.rules("baibian")) == 4
    assert ref.special(ref.parse(FLUSHES_8_5), ref.rules("shaoxing")) == 6
    assert ref.special(ref.parse(STRAIGHTS_4), ref.rules("shisanshui")) == 4
    for new, before in old.items():
        for hand in (CLEAN_DRAGON, MIXED_DRAGON, SIX_PAIRS, THREE_FLUSHES, TWO_TO_TEN, THREE_SF):
            assert ref.special(ref.parse(hand), ref.rules(specials=new)) == \
                ref.special(ref.parse(hand), ref.rules(specials=before)), (new, hand)


def test_new_presets_reference() -> None:
    assert ref.rules("bidaxiao") == dict(
        wheel="second", flush_compare="rank_first", suit_tiebreak=True, suit_order="spades>hearts>clubs>diamonds",
        scoring="majority", banker_seat=0, royalties="none", scoop="none", home_run=False, specials="off")
    assert ref.rules("banker_top") == {**ref.rules("banker"), "suit_tiebreak": False, "tie_winner": "banker",
                                       "rank_compare": "top"}
    assert ref.rules("shisanshui_strict") == {**ref.rules("shisanshui"), "specials": "shisanshui_strict"}
    with pytest.raises(ValueError, match="bad value"):
        ref.rules("classic", rank_compare="middle")


# ----------------------------------------------------------------------------- the engine: known answers

@pytest.mark.parametrize("switches, a, b, result_all, result_top", TOP_COMPARES)
def test_top_rank_compare_engine(switches: dict[str, Any], a: str, b: str, result_all: int,
                                 result_top: int) -> None:
    rules = ThirteenRules.preset("classic", **switches, **TOP)
    assert T.compare_rows(parse_cards(a), parse_cards(b), rules) == result_top
    assert T.compare_rows(parse_cards(b), parse_cards(a), rules) == -result_top


@pytest.mark.parametrize("arrangement, valid_all, valid_top", TOP_FOULS)
def test_top_rank_foul_order_engine(arrangement: str, valid_all: bool, valid_top: bool) -> None:
    rows = T.parse_arrangement(arrangement)
    assert T.is_valid(rows, ThirteenRules.preset("classic", **TOP)) is valid_top
    assert T.is_valid(rows, ThirteenRules.preset("banker_top")) is valid_top


@pytest.mark.parametrize("preset, switches, hands, expected", KNOWN_SCORES)
def test_known_scores_engine(preset: str, switches: dict[str, Any], hands: tuple[str, ...],
                             expected: list[float]) -> None:
    assert engine_payoffs(preset, *hands, **switches) == expected


@pytest.mark.parametrize("table, hand, name, value", TABLE_CASES)
def test_new_special_tables_engine(table: str, hand: str, name: str, value: int) -> None:
    got = thirteen_specials.special_hand(parse_cards(hand), ThirteenRules.preset(TABLE_PRESET[table], specials=table))
    assert got[1] == value
    if table in NAMED_TABLES:
        assert got[0] == name


@pytest.mark.parametrize("preset, switches", [
    ("bidaxiao", {}), ("banker_top", {}), ("shisanshui_strict", {}), ("classic", {"specials": "suit_dragon"}),
    ("classic", {"specials": "classic_big_small"}), ("baibian", {"specials": "baibian_complete"}),
    ("shaoxing", {"specials": "shaoxing_distinct"}), ("mianbai", {"scoring": "majority"}), ("classic", TOP),
    ("banker", TOP),
])
def test_switches_match_the_reference(preset: str, switches: dict[str, Any]) -> None:
    assert ThirteenRules.preset(preset, **switches).to_dict() == ref.rules(preset, **switches)


def test_majority_needs_plain_switches_engine() -> None:
    for switch, value in (("royalties", "classic"), ("scoop", "double"), ("home_run", True),
                          ("counted_rows", "back")):
        with pytest.raises(ValueError):
            ThirteenRules.preset("bidaxiao", **{switch: value})


# ----------------------------------------------------------------------------- random tables with planted specials

RANK_INDEX = {ch: i for i, ch in enumerate("23456789TJQKA")}


def rank_span(low: str, high: str) -> list[int]:
    """Rank indices ``low``..``high``; an ace as ``low`` is the ace below the 2."""
    if low == "A":
        return [12, *range(RANK_INDEX[high] + 1)]
    return list(range(RANK_INDEX[low], RANK_INDEX[high] + 1))


def run(low: int, length: int) -> list[int]:
    """Rank indices of consecutive ranks from ``low`` (-1 is the ace below the 2)."""
    return [r % 13 for r in range(low, low + length)]


def with_suits(ranks: list[int], rng: np.random.Generator) -> list[int]:
    """A card for each entry of ``ranks`` (a rank at most four times), in random suits."""
    return [card_id(r, int(s)) for r, n in Counter(ranks).items() for s in rng.permutation(4)[:n]]


def planted_cards(kind: str, rng: np.random.Generator) -> list[int]:
    """Cards that hold (or, for ``ranks:`` ranges, often just miss) a special of ``kind``: 13
    cards, or a few (a straight flush, four or trips) for the rest of the deck to complete."""
    if kind == "dragon":
        suits = rng.integers(4, size=13)
        suits[0] = (suits[1] + 1) % 4
        return [card_id(r, int(s)) for r, s in enumerate(suits)]
    if kind == "clean_dragon":
        suit = int(rng.integers(4))
        return [card_id(r, suit) for r in range(13)]
    if kind in ("six_pairs", "five_pairs_trips", "four_trips"):
        size, groups = {"six_pairs": (2, 6), "five_pairs_trips": (2, 5), "four_trips": (3, 4)}[kind]
        ranks = [int(r) for r in rng.choice(13, groups + 1, replace=False)]
        last = [ranks[-1]] * (3 if kind == "five_pairs_trips" else 1)
        return with_suits([r for r in ranks[:-1] for _ in range(size)] + last, rng)
    if kind in ("three_straights", "three_straights_qka"):
        front = run(10 if kind.endswith("qka") else int(rng.integers(-1, 10)), 3)
        return with_suits(front + run(int(rng.integers(-1, 9)), 5) + run(int(rng.integers(-1, 9)), 5), rng)
    if kind == "three_flushes":          # three different suits
        suits = rng.permutation(4)[:3]
        return [card_id(int(r), int(s)) for s, n in zip(suits, (3, 5, 5)) for r in rng.choice(13, n, replace=False)]
    if kind == "three_flushes_shared":   # two rows of one suit: 8 + 5 or 10 + 3
        first, second = (int(s) for s in rng.permutation(4)[:2])
        n = 8 if rng.random() < 0.5 else 10
        return ([card_id(int(r), first) for r in rng.choice(13, n, replace=False)]
                + [card_id(int(r), second) for r in rng.choice(13, 13 - n, replace=False)])
    if kind == "three_straight_flushes":
        suits = rng.permutation(4)[:3]
        rows = [run(int(rng.integers(-1, 10)), 3), run(int(rng.integers(-1, 9)), 5), run(int(rng.integers(-1, 9)), 5)]
        return [card_id(r, int(s)) for row, s in zip(rows, suits) for r in row]
    if kind == "three_fours":
        ranks = [int(r) for r in rng.choice(13, 4, replace=False)]
        return [card_id(r, s) for r in ranks[:3] for s in range(4)] + [card_id(ranks[3], int(rng.integers(4)))]
    if kind in ("one_colour", "black_one_red"):
        colour = (1, 2) if rng.random() < 0.5 else (0, 3)
        same = [card_id(r, s) for r in range(13) for s in colour]
        cards = [int(c) for c in rng.choice(same, 13 if kind == "one_colour" else 12, replace=False)]
        if kind == "black_one_red":      # twelve of one colour, one of the other
            cards.append(card_id(int(rng.integers(13)), int(rng.choice([s for s in range(4) if s not in colour]))))
        return cards
    if kind.startswith(("ranks:", "all_ranks:")):
        test, low, high = kind.split(":")
        span = rank_span(low, high)
        cards = [card_id(r, int(rng.integers(4))) for r in span] if test == "all_ranks" else []
        rest = [card_id(r, s) for r in span for s in range(4) if card_id(r, s) not in cards]
        return cards + [int(c) for c in rng.choice(rest, 13 - len(cards), replace=False)]
    if kind == "straight_flush":
        suit = int(rng.integers(4))
        return [card_id(r, suit) for r in run(int(rng.integers(-1, 9)), 5)]
    if kind in ("four_of_a_kind", "trips"):
        rank = int(rng.integers(13))
        return [card_id(rank, int(s)) for s in rng.permutation(4)[:4 if kind == "four_of_a_kind" else 3]]
    raise AssertionError(kind)


def arranged(rng: np.random.Generator, game: Any, cards: list[int], foul_rate: float,
             index: int | None = None) -> tuple[list[list[int]], int]:
    """The cards at split ``index``, else at a random valid split or, with probability
    ``foul_rate``, at any split; with the index played."""
    slots = game.slots(cards)
    if index is None:
        valid = np.flatnonzero(game.valid_mask(slots))
        index = int(rng.integers(game.n_actions) if rng.random() < foul_rate or not len(valid) else rng.choice(valid))
    return game.arrangement(slots, index), index


def planted_table(rng: np.random.Generator, game: Any, n: int, kinds: tuple[str, ...],
                  rivals: tuple[tuple[str, str], ...] = (), foul_rate: float = 0.2) -> list[list[list[int]]]:
    """n seats dealt from one deck; each, with probability 0.6, first given the cards of a random
    kind of ``kinds`` (completed to 13 cards from the rest of the deck). Half the time seats 0
    and 1 are first given the two kinds of a random pair of ``rivals`` instead."""
    wanted: list[str | None] = [None] * n
    if rivals and rng.random() < 0.5:
        wanted[0], wanted[1] = rivals[int(rng.integers(len(rivals)))]
    used: set[int] = set()
    cores: list[list[int]] = []
    for seat in range(n):
        core: list[int] = []
        if wanted[seat] or (kinds and rng.random() < 0.6):
            for _ in range(12):
                candidate = planted_cards(wanted[seat] or str(rng.choice(kinds)), rng)
                if not used.intersection(candidate):
                    core = candidate
                    break
        used.update(core)
        cores.append(core)
    rest = [int(c) for c in rng.permutation(np.arange(2, 54)) if int(c) not in used]
    table = []
    for core in cores:
        cards, rest = core + rest[:13 - len(core)], rest[13 - len(core):]
        table.append(arranged(rng, game, cards, foul_rate)[0])
    return table


def mirrored_table(rng: np.random.Generator, game: Any, n: int) -> list[list[list[int]]]:
    """Seats 0 and 1 hold the same ranks in other suits and, half the time, play the same
    split: rows equal by rank (and by top rank) everywhere. Further seats are dealt at random."""
    first, second = same_rank_rows(rng, 13)
    rest = [int(c) for c in rng.permutation(np.setdiff1d(np.arange(2, 54), first + second))]
    row0, index = arranged(rng, game, first, 0.1)
    row1, _ = arranged(rng, game, second, 0.1, index if rng.random() < 0.5 else None)
    return [row0, row1] + [arranged(rng, game, rest[13 * i: 13 * i + 13], 0.2)[0] for i in range(n - 2)]


DRAGONS = ("dragon", "clean_dragon")
#: (preset, switches, kinds planted, reference special names the planted tables must show)
CASES: list[tuple[str, dict[str, Any], tuple[str, ...], set[str]]] = [
    ("bidaxiao", {}, (), set()),
    ("banker_top", {}, DRAGONS, {"dragon"}),
    ("shisanshui_strict", {},
     ("clean_dragon", "dragon", "ranks:J:A", "three_straight_flushes", "three_fours", "ranks:8:A", "ranks:2:8",
      "one_colour", "four_trips", "six_pairs", "three_straights", "three_straights_qka", "three_flushes",
      "three_flushes_shared"),
     {"clean_dragon", "dragon", "royals", "three_straight_flushes", "three_fours", "all_big", "all_small",
      "one_colour", "four_trips", "six_pairs", "three_straights", "three_flushes"}),
    ("classic", {"specials": "suit_dragon"},
     (*DRAGONS, "six_pairs", "three_straights", "three_flushes", "three_flushes_shared"),
     {"clean_dragon", "dragon", "six_pairs", "three_straights", "three_flushes"}),
    ("classic", {"specials": "classic_big_small"},
     (*DRAGONS, "six_pairs", "three_straights", "three_flushes", "ranks:A:T", "ranks:5:A", "all_ranks:5:A"),
     {"dragon", "six_pairs", "three_straights", "three_flushes", "all_small", "all_big"}),
    ("baibian", {"specials": "baibian_complete"},
     ("ranks:2:T", "all_ranks:2:T", "ranks:A:T", "all_ranks:A:T", "ranks:6:K", "ranks:6:A", "black_one_red",
      "five_pairs_trips", "six_pairs", "three_straights", "three_flushes"),
     {"all_small_to_ten", "all_ace_to_ten", "all_six_to_king", "all_six_to_ace", "black_one_red",
      "five_pairs_trips", "six_pairs"}),
    ("shaoxing", {"specials": "shaoxing_distinct"},
     ("three_flushes", "three_flushes_shared", "straight_flush", "four_of_a_kind", "trips", "black_one_red",
      "six_pairs", "all_ranks:2:T"),
     {"three_flushes", "holds_straight_flush", "holds_four_of_a_kind", "holds_trips", "black_one_red"}),
    ("mianbai", {"scoring": "majority"}, ("straight_flush", "four_of_a_kind"),
     {"holds_straight_flush", "holds_four_of_a_kind"}),
    ("classic", TOP, (*DRAGONS, "six_pairs", "three_flushes"), {"dragon", "six_pairs"}),
    ("banker", TOP, DRAGONS, {"dragon"}),
]
#: per special table, pairs of kinds planted together: specials of one value that meet
RIVALS: dict[str, tuple[tuple[str, str], ...]] = {
    "shisanshui_strict": (("three_straight_flushes", "three_fours"), ("ranks:8:A", "ranks:2:8"),
                          ("ranks:8:A", "one_colour"), ("ranks:2:8", "one_colour"), ("six_pairs", "three_straights"),
                          ("six_pairs", "six_pairs")),
    "suit_dragon": (("clean_dragon", "clean_dragon"), ("clean_dragon", "dragon"), ("dragon", "dragon")),
    "classic_big_small": (("ranks:A:T", "ranks:5:A"), ("clean_dragon", "dragon")),
    "baibian_complete": (("all_ranks:2:T", "ranks:6:K"), ("ranks:A:T", "ranks:6:A"), ("ranks:2:T", "six_pairs")),
    "shaoxing_distinct": (("three_flushes", "three_flushes_shared"), ("straight_flush", "straight_flush"),
                          ("four_of_a_kind", "four_of_a_kind"), ("trips", "trips")),
    "mianbai": (("straight_flush", "four_of_a_kind"), ("four_of_a_kind", "four_of_a_kind")),
    "banker": (("dragon", "dragon"),),
}
CASE_IDS = [p + "".join(f"-{k}={v}" for k, v in s.items()) for p, s, _, _ in CASES]
TABLES = 70  # of each sort (random, planted, mirrored) in the quick run


def shown(table: list[list[list[int]]]) -> list[str]:
    return [" | ".join(format_cards(row) for row in hand) for hand in table]


@pytest.mark.parametrize("rounds", ROUNDS)
@pytest.mark.parametrize("preset, switches, kinds, must_see", CASES, ids=CASE_IDS)
def test_scores_against_reference(preset: str, switches: dict[str, Any], kinds: tuple[str, ...],
                                  must_see: set[str], rounds: int, rng: np.random.Generator) -> None:
    """Random deals rich in near ties, deals with planted special hands and mirrored deals (2-4
    seats, fouls included): payoffs, fouled flags and special payments equal the reference's;
    the special names too where the rule text names them."""
    rules, r = ThirteenRules.preset(preset, **switches), ref.rules(preset, **switches)
    game = make_game("thirteen", preset, **switches)
    seen: Counter[str] = Counter()
    precedence_pairs = 0
    for i in range(3 * TABLES * rounds):
        n = int(rng.integers(2, 5))
        sort = i % 3
        table = (random_table(rng, game, n) if sort == 0 else mirrored_table(rng, game, n) if sort == 2
                 else planted_table(rng, game, n, kinds, RIVALS.get(r["specials"], ())))
        assert_score_matches_reference(table, rules, r)
        if sort != 1 or r["specials"] == "off":
            continue
        hands13 = [to_ref([c for row in hand for c in row]) for hand in table]
        names = [ref.special_name(h, r) for h in hands13]
        seen.update(names)
        if r["specials"] in NAMED_TABLES:
            assert thirteen_scoring.score_table(table, rules).special_names == names, shown(table)
        values = [ref.SPECIAL_VALUES[r["specials"]][name] if name else 0 for name in names]
        precedence_pairs += sum(values[a] == values[b] > 0 and names[a] != names[b]
                                for a in range(n) for b in range(a + 1, n))
    assert must_see <= set(seen), must_see - set(seen)
    if r["specials"] in ref.BY_PRECEDENCE:
        assert precedence_pairs >= 5 * rounds


@pytest.mark.parametrize("preset, switches", [
    ("classic", TOP), ("banker_top", {}), ("classic", {**TOP, "suit_tiebreak": False}),
    ("classic", {**TOP, "flush_compare": "suit_first", "wheel": "ace_equal"}), ("classic", {**TOP, "wheel": "lowest"}),
], ids=["classic-top", "banker_top", "top-no-tiebreak", "top-suit_first-ace_equal", "top-wheel_lowest"])
def test_top_rows_and_fouls_against_reference(preset: str, switches: dict[str, Any],
                                              rng: np.random.Generator) -> None:
    """Under rank_compare=top: random rows (many equal but for kickers or suits) compared, and
    random splits of rich deals judged valid, as the reference does."""
    rules, r = ThirteenRules.preset(preset, **switches), ref.rules(preset, **switches)
    for _ in range(600):
        a, b = row_pair(rng)
        assert T.compare_rows(a, b, rules) == ref.compare(to_ref(a), to_ref(b), r), (format_cards(a), format_cards(b))
    game = make_game("thirteen", preset, **switches)
    for _ in range(15):
        slots = game.slots(deal_cards(rng, 13))
        mask = game.valid_mask(slots)
        hand = to_ref(slots)
        for index in rng.integers(0, THIRTEEN.n_actions, 40):
            rows = THIRTEEN.decode(int(index))
            expected = ref.is_valid(*([hand[s] for s in row] for row in rows), r)
            assert bool(mask[index]) == expected, (format_cards(slots), int(index))


@pytest.mark.parametrize("table", list(TABLE_PRESET))
def test_special_hands_against_reference(table: str, rng: np.random.Generator) -> None:
    """Planted hands of every kind the new tables test: the engine's special (value, and name
    where the rule text names it) is the reference's."""
    kinds = sorted({k for _, _, ks, _ in CASES for k in ks} - {"straight_flush", "four_of_a_kind", "trips"})
    kinds += ["straight_flush", "four_of_a_kind", "trips"]
    rules, r = ThirteenRules.preset(TABLE_PRESET[table], specials=table), ref.rules(TABLE_PRESET[table], specials=table)
    found: Counter[str] = Counter()
    for i in range(160):
        cards = planted_cards(kinds[i % len(kinds)], rng)
        rest = [int(c) for c in rng.permutation(np.setdiff1d(np.arange(2, 54), cards))]
        hand = cards + rest[:13 - len(cards)]
        name, value = thirteen_specials.special_hand(hand, rules)
        want = (ref.special_name(to_ref(hand), r), ref.special(to_ref(hand), r))
        assert value == want[1], format_cards(sorted(hand))
        if table in NAMED_TABLES:
            assert name == want[0], format_cards(sorted(hand))
        found[want[0]] += 1
    assert len(found) >= 5
