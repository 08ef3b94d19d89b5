"""Readings of the variant text as switch values (envs/thirteen/RULES.md sections 4.5, 6.11,
7.2 and 9.2): ``rank_compare=top``, ``scoring=majority``, the special tables ``suit_dragon``,
``classic_big_small``, ``shisanshui_strict``, ``baibian_complete`` and
``shaoxing_distinct``, and the presets ``bidaxiao``, ``banker_top`` and
``shisanshui_strict``. Known answers worked from the rule text, switch checks, and the
solver's exactness under each; the slow reference's agreement is in
``test_reference_readings.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from splitpoker.envs.thirteen import rules as T
from splitpoker.envs.thirteen import scoring as thirteen_scoring
from splitpoker.envs.thirteen import specials as thirteen_specials
from splitpoker.envs.thirteen.rules import ThirteenRules
from tests.test_thirteen_variants import check_solver_exactness, payoffs


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261204)


def special(hand: str, preset: str, **switches: Any) -> tuple[str, int]:
    return thirteen_specials.special_hand(T.parse_cards(hand), ThirteenRules.preset(preset, **switches))


# ----------------------------------------------------------------------------- rank_compare=top

#: front A-K-3, middle a pair of 2s with 9 high, back trips 4s
ACE_KING = "Ah Kd 3c | 2c 2d 5h 7s 9c | 4h 4d 4s Jc Qd"
#: front A-Q-4 (the A of spades), middle a pair of 2s (the 2 of spades) with 8 high, back trips 3s
ACE_QUEEN = "As Qs 4c | 2h 2s 5d 7c 8c | 3h 3d 3s Tc Kh"


def test_top_card_only_equal_rows_go_to_the_banker() -> None:
    """只比點數最大的一只牌。倘若相同，一律由莊家勝: the fronts (both A high) and the middles
    (both a pair of 2s) are equal, so the banker wins them; trips 4s beat trips 3s."""
    assert payoffs("banker_top", ACE_KING, ACE_QUEEN) == [3.0, -3.0]
    assert payoffs("banker_top", ACE_QUEEN, ACE_KING) == [1.0, -1.0]
    # every rank in turn: K beats Q in front, 9 beats 8 in the middle
    assert payoffs("banker", ACE_QUEEN, ACE_KING) == [-3.0, 3.0]


def test_top_card_only_then_the_suit_of_that_card() -> None:
    """With the suit tie-break the top card's suit decides: the A of spades beats the A of
    hearts in front, the 2 of spades the 2 of clubs in the middle."""
    assert payoffs("classic", ACE_KING, ACE_QUEEN, rank_compare="top") == [-1.0, 1.0]
    assert payoffs("classic", ACE_KING, ACE_QUEEN) == [3.0, -3.0]
    # no tie-break and no banker: the equal rows are worth nothing
    assert payoffs("classic", ACE_KING, ACE_QUEEN, rank_compare="top", suit_tiebreak=False) == [1.0, -1.0]


def test_top_card_only_in_the_foul_order() -> None:
    """The rows' order uses the same comparison: a front K-K-J is not above a middle
    K-K-7-5-2 when only the pair counts."""
    rows = T.parse_arrangement("Kc Kd Jh | Kh Ks 7d 5h 2c | 9h 9s 9c 6c 6d")
    assert not T.is_valid(rows, ThirteenRules.preset("banker"))
    assert T.is_valid(rows, ThirteenRules.preset("banker_top"))


def test_top_card_only_keeps_the_order_of_straights_and_types() -> None:
    rules = ThirteenRules.preset("classic", rank_compare="top")
    order = ["2c 3d 4h 5s 7c", "8c 8d 2h 3s 4c", "Ah Ad Kc 3s 2c", "8h 8s 3h 3d 5c", "Ac Ad Ah 2d 3d",
             "2d 3h 4c 5d 6s", "9c Td Jh Qs Kd", "Tc Js Qd Kh As", "2h 5h 7h 9h Jh", "2c 4c 6c 8c Kc"]
    strengths = [T.row_strength(T.parse_cards(row), rules) for row in order]
    assert strengths == sorted(strengths)
    # two pair by the higher pair only, a flush by its top card only
    assert T.compare_rows(T.parse_cards("Kh Kd 3c 3s 2d"), T.parse_cards("Kc Ks Qh Qs Ad"), rules) == -1
    assert T.compare_rows(T.parse_cards("Kh Kd 3c 3s 2d"), T.parse_cards("Kc Ks Qh Qs Ad"),
                          ThirteenRules.preset("classic", rank_compare="top", suit_tiebreak=False)) == 0
    assert T.compare_rows(T.parse_cards("2s 5s 7s 9s Ks"), T.parse_cards("Qd Jd Td 8d Kd"), rules) == 1


# ----------------------------------------------------------------------------- scoring=majority

#: the back four 10s beats trips 4s; fronts and middles as ACE_QUEEN
FOUR_TENS = "As Qs 4c | 2h 2s 5d 7c 8c | Th Td Ts Tc Kh"
FOULED = "Kc Kd Jh | 8h 8s 7d 5h 2c | 9h 9s 9c 6c 6d"


def test_majority_pays_one_point_to_the_winner_of_two_rows() -> None:
    """贏兩墩以上者為贏: 3-0 and 2-1 are both one point; rows and royalties pay nothing."""
    assert payoffs("bidaxiao", ACE_KING, ACE_QUEEN) == [1.0, -1.0]
    assert payoffs("bidaxiao", ACE_KING, FOUR_TENS) == [1.0, -1.0]
    assert payoffs("classic", ACE_KING, FOUR_TENS) == [-2.0, 2.0]  # 1 + 1 - 4 (four of a kind in the back)
    assert payoffs("bidaxiao", FOULED, ACE_QUEEN) == [-1.0, 1.0]
    score = thirteen_scoring.score_table([T.parse_arrangement(h) for h in (ACE_KING, FOUR_TENS)],
                                         ThirteenRules.preset("bidaxiao"))
    assert score.pairs[0]["rows"] == [0, 0, 0] and score.pairs[0]["majority"] == 1


def test_majority_with_special_hands() -> None:
    """免擺 read with the majority: four of a kind anywhere is paid its 3 units, unarranged."""
    assert payoffs("mianbai", ACE_KING, FOUR_TENS, scoring="majority") == [-3.0, 3.0]
    assert payoffs("mianbai", ACE_KING, ACE_QUEEN, scoring="majority") == [1.0, -1.0]
    assert payoffs("mianbai", ACE_KING, ACE_QUEEN) == [3.0, -3.0]


def test_majority_refuses_row_payments() -> None:
    for switches, named in (({"royalties": "classic"}, "royalties=classic"), ({"scoop": "double"}, "scoop=double"),
                            ({"counted_rows": "back"}, "counted_rows=back")):
        with pytest.raises(ValueError, match=named):
            ThirteenRules.preset("bidaxiao", **switches)


# ----------------------------------------------------------------------------- special tables

#: can be set as three straights only with a Q-K-A front
QKA_FRONT = "Qh Kc Ad 3c 4d 5h 6s 7c 3d 4h 5s 6c 7d"
#: three straights with an A-2-3 front
A23_FRONT = "As 2h 3d 4c 5s 6h 7c 8h 8s 9h Ts Jc Qh"
SIX_PAIRS = "2c 2d 5c 5d 7h 7s 9c 9d Jh Js Kc Kd Ah"
#: every card 8 to A (and six pairs); all black
ALL_BIG = "8c 8d 9h 9s Tc Jd Qh Ks Ac Ad Kh Qd Jc"
ALL_BLACK = "2c 4c 6c 9c Qc 3s 5s 7s 8s Js Ts 2s 3c"


def test_three_straights_without_a_qka_front() -> None:
    """三順子: 首道亦為三張連續數字（QKA, KA2不算在內）."""
    assert special(QKA_FRONT, "shisanshui") == ("three_straights", 4)
    assert special(QKA_FRONT, "shisanshui_strict") == ("", 0)
    assert special(A23_FRONT, "shisanshui_strict") == ("three_straights", 4)


def test_equal_specials_by_precedence() -> None:
    """可抽走: 全大 takes 湊一色 and 六對半 takes 三順子 at equal value; the 十三水 table ties them."""
    assert payoffs("shisanshui", "8c 8d 9h | 9s Tc Jd Qh Ks | Ac Ad Kh Qd Jc",
                   "2c 4c 6c | 9c Qc 3s 5s 7s | 8s Js Ts 2s 3c") == [0.0, 0.0]
    assert special(ALL_BIG, "shisanshui_strict") == ("all_big", 10)
    assert special(ALL_BLACK, "shisanshui_strict") == ("one_colour", 10)
    assert payoffs("shisanshui_strict", "8c 8d 9h | 9s Tc Jd Qh Ks | Ac Ad Kh Qd Jc",
                   "2c 4c 6c | 9c Qc 3s 5s 7s | 8s Js Ts 2s 3c") == [10.0, -10.0]
    six, three = "2c 2d 5c | 5d 7h 7s 9c 9d | Jh Js Kc Kd Ah", "As 2h 3d | 4c 5s 6h 7c 8h | 8s 9h Ts Jc Qh"
    assert payoffs("shisanshui", three, six) == [0.0, 0.0]
    assert payoffs("shisanshui_strict", three, six) == [-4.0, 4.0]
    assert payoffs("shisanshui_strict", three, six, special_pays=2) == [-2.0, 2.0]
    # the same special on both sides still ties
    assert payoffs("shisanshui_strict", six, "2h 2s 5h | 5s 7c 7d 9h 9s | Jc Jd Kh Ks Ad") == [0.0, 0.0]


def test_one_suit_dragon_above_a_dragon() -> None:
    """規則三: 同花十三水 > 十三水 > 報到."""
    clean = "2h 3h 4h | 5h 6h 7h 8h 9h | Th Jh Qh Kh Ah"
    plain = "2c 3d 4c | 5d 6c 7d 8c 9d | Tc Jd Qc Kd Ac"
    assert payoffs("classic", clean, plain) == [0.0, 0.0]
    assert payoffs("classic", clean, plain, specials="suit_dragon") == [26.0, -26.0]
    assert special(SIX_PAIRS, "classic", specials="suit_dragon") == ("six_pairs", 3)


def test_classic_all_big_and_all_small() -> None:
    """"全大";"全小": A 到十; 5到J,Q,K,A 亦"報到"勝三注."""
    ace_to_ten = "Ac Ad 2c 3d 4c 5h 7c 7d 8h 9c Tc Th 3s"
    five_to_ace = "5c 5d 5h 7s 8c 9c Jd Jh Qs Kc Ac Ad 9h"
    assert special(ace_to_ten, "classic") == ("", 0)
    assert special(ace_to_ten, "classic", specials="classic_big_small") == ("all_small", 3)
    assert special(five_to_ace, "classic", specials="classic_big_small") == ("all_big", 3)
    assert special("5c 5d 5h 7s 8c 9c Jd Jh Qs Kc Ac Ad 4h", "classic", specials="classic_big_small") == ("", 0)


def test_all_small_needs_every_rank() -> None:
    """百變: 全小2到10（不能缺）; 半小A到10（不能缺）."""
    missing_nine = "2c 2d 3c 4c 5h 6c 7c 8c Tc 2h 3h 4h 5c"
    every_rank = "2c 3c 4c 5c 6c 7c 8c 9c Tc 2d 3d 4d 5d"
    assert special(missing_nine, "baibian") == ("all_small", 5)
    assert special(missing_nine, "baibian", specials="baibian_complete") == ("", 0)
    assert special(every_rank, "baibian", specials="baibian_complete") == ("all_small", 5)
    ace_to_ten = "Ac 2d 3c 4c 5h 6c 7c 8c 9c Tc Ah 2h 3d"
    assert special(ace_to_ten, "baibian", specials="baibian_complete") == ("half_small", 4)  # every rank A to 10
    assert special("Ac 2d 3c 4c 5h 6c 7c 8c 8d Tc Ah 2h 3d", "baibian", specials="baibian_complete") == ("", 0)
    assert special("Ac 2d 3c 4c 5h 6c 7c 8c 8d Tc Ah 2h 3d", "baibian") == ("half_small", 4)


def test_three_flushes_of_three_suits() -> None:
    """紹興: 三花色 只要是3個不同的花色."""
    two_suits = "2c 4c 6c 8c Tc Qc 3c 7c 5d 7d 9d Jd Kd"
    three_suits = "2h 9h Kh 3c 5c 8c Jc Kc 4d 6d Td Qd 9d"
    assert special(two_suits, "shaoxing") == ("three_flushes", 6)
    assert special(two_suits, "shaoxing", specials="shaoxing_distinct") == ("", 0)
    assert special(three_suits, "shaoxing", specials="shaoxing_distinct") == ("three_flushes", 6)


def test_two_one_suit_dragons_by_suit() -> None:
    """規則三: 若巧遇別家也有同花十三水時，以花色大小輪輸贏, 黑桃>紅心>梅花>方塊; two dragons tie."""
    hearts = "2h 3h 4h | 5h 6h 7h 8h 9h | Th Jh Qh Kh Ah"
    spades = "2s 3s 4s | 5s 6s 7s 8s 9s | Ts Js Qs Ks As"
    assert payoffs("classic", hearts, spades) == [0.0, 0.0]
    assert payoffs("classic", hearts, spades, specials="suit_dragon") == [-26.0, 26.0]
    assert payoffs("classic", hearts, spades, specials="suit_dragon", suit_order="hearts>spades>clubs>diamonds") == [
        26.0, -26.0]
    plain = ["2c 3d 4c | 5d 6c 7d 8c 9d | Tc Jd Qc Kd Ac", "2d 3c 4d | 5c 6d 7c 8d 9c | Td Jc Qd Kc Ad"]
    assert payoffs("classic", *plain, specials="suit_dragon") == [0.0, 0.0]
    # under 紹興 tier 1 hands are equal: two one-suit dragons still tie there
    assert payoffs("shaoxing", hearts, spades) == [0.0, 0.0]


# ----------------------------------------------------------------------------- the solver stays exact

@pytest.mark.parametrize("preset,switches", [
    ("bidaxiao", {}), ("banker_top", {}), ("classic", {"rank_compare": "top"}),
    ("mianbai", {"scoring": "majority"}), ("shisanshui_strict", {}),
])
@pytest.mark.parametrize("players", (2, 4))
def test_solver_is_exact(preset: str, switches: dict[str, Any], players: int, rng: np.random.Generator) -> None:
    check_solver_exactness(preset, players, rng, plant=("dragon", "six_pairs", "one_colour"), **switches)


def test_the_readings_are_listed_and_observed_as_before() -> None:
    from splitpoker.envs.games import make_game
    from splitpoker.envs.observation import observation_labels

    assert {"bidaxiao", "banker_top", "shisanshui_strict"} <= set(ThirteenRules.PRESETS)
    labels = observation_labels(make_game("thirteen", "classic"))
    assert labels == observation_labels(make_game("thirteen", "bidaxiao"))
    assert not any("rank_compare" in label or "majority" in label for label in labels)
    assert ThirteenRules.preset("classic").to_dict() == ThirteenRules.preset("classic", rank_compare="all").to_dict()
    assert "rank_compare" not in ThirteenRules.preset("classic").to_dict()
