"""Thirteen's variants as data (envs/thirteen/RULES.md section 9): the preset records and
tables of ``variants.json``, their validation, ``splitpoker rules thirteen --list``, the
observation that new switches leave unchanged, and for each regional preset (baomahui,
baodao, mianbai, baibian, shaoxing) known answers from its rule text, the slow reference
against the engine, the solver's exactness and its use by the environments, the command
line and training configs."""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitpoker.envs.cards import card_id
from splitpoker.envs.games import make_game
from splitpoker.envs.observation import observation_labels
from splitpoker.envs.splits import THIRTEEN
from splitpoker.envs.thirteen import rules as T
from splitpoker.envs.thirteen import scoring as thirteen_scoring
from splitpoker.envs.thirteen import specials as thirteen_specials
from splitpoker.envs.thirteen.rules import HandType, ThirteenRules
from splitpoker.envs.thirteen.variants import VARIANTS_FILE, parse_variants
from splitpoker.train.cli import main

ORIGINAL_PRESETS = ("classic", "shisanshui", "banker", "western")


def document() -> dict[str, Any]:
    return json.loads(VARIANTS_FILE.read_text(encoding="utf-8"))


def parse(data: Any) -> Any:
    return parse_variants(data, types=[t.name.lower() for t in HandType], tests=T.SPECIAL_TESTS,
                          switches=ThirteenRules.switch_names(), source="variants.json")


# ----------------------------------------------------------------------------- the four original presets

def test_original_presets_are_the_switch_bundles_they_were() -> None:
    """The records spell out the same switches as the bundles the presets were before."""
    assert ThirteenRules.preset("classic") == ThirteenRules()
    assert ThirteenRules.preset("shisanshui") == ThirteenRules(scoop="double", home_run=True, specials="shisanshui")
    assert ThirteenRules.preset("banker") == ThirteenRules(wheel="ace_equal", flush_compare="suit_first",
                                                           scoring="banker", royalties="none", specials="banker")
    assert ThirteenRules.preset("western") == ThirteenRules(wheel="lowest", scoring="two_four", royalties="none",
                                                            specials="off", suit_tiebreak=False)
    assert list(ThirteenRules.PRESETS)[:4] == list(ORIGINAL_PRESETS)


def test_tables_hold_the_documented_values() -> None:
    """Royalties (section 6.3) and specials (section 7.2) read from the data file."""
    classic = thirteen_scoring.royalty_table("classic")
    assert classic[0, HandType.TRIPS] == 3 and classic[1, HandType.FULL_HOUSE] == 2
    assert classic[1, HandType.FOUR_OF_A_KIND] == 8 and classic[2, HandType.FOUR_OF_A_KIND] == 4
    assert classic[1, HandType.STRAIGHT_FLUSH] == 10 and classic[2, HandType.STRAIGHT_FLUSH] == 5
    assert classic.sum() == 27 - 6 + 3 + 2 + 8 + 4 + 10 + 5
    assert (thirteen_scoring.royalty_table("none") == 1).all()
    assert thirteen_specials.SPECIAL_VALUES["classic"] == {"dragon": 13, "clean_dragon": 13, "three_straights": 3,
                                           "three_flushes": 3, "six_pairs": 3}
    assert thirteen_specials.SPECIAL_VALUES["banker"] == {"dragon": 13, "clean_dragon": 13}
    assert T.SPECIAL_TABLES["banker"].both == "banker_pays" and T.SPECIAL_TABLES["classic"].both == "higher_wins"
    assert thirteen_specials.SPECIAL_VALUES["off"] == {}
    assert (sum(thirteen_specials.SPECIAL_VALUES["shisanshui"].values())
            == 108 + 36 + 24 + 20 + 20 + 10 * 3 + 6 + 4 + 4 + 3)


def test_observation_of_the_original_presets_is_unchanged() -> None:
    """Saved policies keep their input width: the rule features are the ones they were
    trained with, whatever switches or tables the data file adds."""
    rule_labels = ["wheel=second", "wheel=lowest", "wheel=ace_equal", "wheel=none", "flush_compare=rank_first",
                   "flush_compare=suit_first", "suit_tiebreak", "suit_value_c", "suit_value_d", "suit_value_h",
                   "suit_value_s", "scoring=pairwise", "scoring=banker", "scoring=two_four", "royalties=classic",
                   "royalties=none", "scoop=none", "scoop=double", "home_run", "specials=classic",
                   "specials=shisanshui", "specials=banker", "specials=off", "banker_offset_0", "banker_offset_1",
                   "banker_offset_2", "banker_offset_3"]
    for preset in ThirteenRules.PRESETS:
        labels = observation_labels(make_game("thirteen", preset))
        assert len(labels) == 281 and labels[-len(rule_labels):] == rule_labels, preset


# ----------------------------------------------------------------------------- validation

def edited(path: str, value: Any, delete: bool = False) -> dict[str, Any]:
    """The data file with the field at ``path`` (dot separated, ``[k]`` for list items) set or deleted."""
    data = copy.deepcopy(document())
    parts = path.replace("[", ".").replace("]", "").split(".")
    node: Any = data
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last: Any = int(parts[-1]) if isinstance(node, list) else parts[-1]
    if delete:
        del node[last]
    else:
        node[last] = value
    return data


def test_the_data_file_parses() -> None:
    variants = parse(document())
    assert list(variants.presets) == list(ThirteenRules.PRESETS)
    assert variants.descriptions == ThirteenRules.PRESET_DESCRIPTIONS


@pytest.mark.parametrize("data, message", [
    (edited("presets.classic.wheel", None, delete=True), "presets.classic is missing the field 'wheel'"),
    (edited("presets.classic.colour", "red"), "presets.classic.colour is not a field; fields: description, wheel"),
    (edited("presets.western.description", ""), "presets.western.description must be one line of text"),
    (edited("royalties.classic.middle.five_of_a_kind", 9), "royalties.classic.middle.five_of_a_kind is not a row type"),
    (edited("royalties.classic.back.flush", -1), "royalties.classic.back.flush must be a whole number of points"),
    (edited("royalties.classic.top", {}), "royalties.classic.top is not a field; fields: front, middle, back"),
    (edited("specials.classic.both", "split"), "specials.classic.both 'split' is not allowed; allowed: higher_wins"),
    (edited("specials.classic.hands[2].test", "rainbow"),
     "specials.classic.hands[2].test 'rainbow' is not a special-hand test"),
    (edited("specials.classic.hands[2].value", 30),
     "specials.classic.hands[2].value 30 is above the value listed before it"),
    (edited("specials.classic.hands[1].name", "dragon"), "specials.classic.hands[1].name 'dragon' is listed twice"),
    (edited("specials.shisanshui.hands[2].low", "1"), "specials.shisanshui.hands[2].low must be a rank"),
    (edited("specials.shisanshui.hands[2].high", None, delete=True),
     "specials.shisanshui.hands[2] is missing the field 'high'"),
    (edited("specials.classic.hands[0].low", "2"), "specials.classic.hands[0].low is not a field"),
    (edited("specials.off.hands", {}), "specials.off.hands must be a list"),
    (edited("presets", {}), "presets holds no preset"),
    (edited("specials.classic.equal", "coin"),
     "specials.classic.equal 'coin' is not allowed; allowed: tie, stronger_cards"),
    (edited("specials.classic.equal", "stronger_cards"),
     "specials.classic.equal stronger_cards needs tests that name cards"),
    (edited("specials.mianbai.equal", None, delete=True), "specials.mianbai is missing the field 'equal'"),
    ([], "the document must be an object"),
])
def test_malformed_records_are_named(data: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", "\\[").replace("]", "\\]")):
        parse(data)


def test_bad_switch_values_in_a_record_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(T, "_DOCUMENT", edited("presets.banker.wheel", "sideways"))
    with pytest.raises(ValueError, match="presets.banker: thirteen switch wheel='sideways' is not allowed"):
        T._preset_records()


def test_load_reports_bad_json(tmp_path: Any) -> None:
    from splitpoker.envs.thirteen.variants import read_document

    path = tmp_path / "variants.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="variants.json: not valid JSON"):
        read_document(path)


# ----------------------------------------------------------------------------- rules --list

def test_rules_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "thirteen", "--list"]) in (0, None)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(ThirteenRules.PRESETS)
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)
    assert main(["rules", "thirteen", "--list", "--json"]) in (0, None)
    listed = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in listed["presets"]] == list(ThirteenRules.PRESETS)
    assert listed["presets"][1]["rules"] == ThirteenRules.preset("shisanshui").to_dict()
    assert main(["rules", "biji", "--list"]) in (0, None)
    assert "no-jokers  jokers=none" in capsys.readouterr().out


def test_rules_list_takes_no_preset(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(["rules", "thirteen", "--list", "--preset", "banker"])
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    assert "give no --preset or --set" in capsys.readouterr().err


# ----------------------------------------------------------------------------- shared checks of a new preset

def check_against_reference(preset: str, rng: Any, tables: int = 60) -> None:
    """Random tables (fouls included) scored by the engine and by the slow reference."""
    from tests.reference import thirteen_ref as ref
    from tests.test_thirteen_rules import assert_score_matches_reference, random_table

    rules, r = ThirteenRules.preset(preset), ref.rules(preset)
    assert rules.to_dict() == r
    game = make_game("thirteen", preset)
    for _ in range(tables):
        assert_score_matches_reference(random_table(rng, game, int(rng.integers(2, 5))), rules, r)


def check_solver_exactness(preset: str, players: int, rng: Any, plant: tuple[str, ...] = ("dragon", "six_pairs"),
                           hero: tuple[list[int], ...] = (), **switches: Any) -> None:
    """The solver's expected values equal the mean of ``score_table`` over the same tables
    (the preset with ``switches`` overridden)."""
    from splitpoker.agents.solver import split_evs
    from tests.test_solver import _random_tables, engine_mean, random_hand

    game = make_game("thirteen", preset, **switches)
    hands = [random_hand(game, rng) for _ in range(2)] + [np.sort(np.array(h, dtype=np.int64)) for h in hero]
    for hand in hands:
        seat = int(rng.integers(players))
        opp = _random_tables(game, hand, players, 6, rng, plant=plant)
        valid, evs = split_evs(game, hand, opp, seat=seat)
        assert np.array_equal(valid, np.flatnonzero(game.valid_mask(hand)))
        for i in rng.choice(len(valid), 6, replace=False):
            assert evs[i] == pytest.approx(engine_mean(game, hand, int(valid[i]), opp, seat), abs=1e-9)


def payoffs(preset: str, *hands: str, **switches: Any) -> list[float]:
    rules = ThirteenRules.preset(preset, **switches)
    return [float(p) for p in thirteen_scoring.score_table([T.parse_arrangement(h) for h in hands], rules).payoffs]


# ----------------------------------------------------------------------------- baomahui 寶馬會

QUADS = "Kh Kd 2s | 5s 5h 5d 9c 9d | 7h 7s 7c 7d 3c"      # pair, full house, four of a kind
FLUSH_BACK = "Ah Qd 3d | 2h 2d 4h 4d 6s | Ts Js Qs Ks As"  # high card, two pair, straight flush
FOULED = "9h 9s 4c | 4s 5c 6d 8h Kc | 6h Td Th Jh Qh"      # a pair in front of a high card
WHEEL = "2h 3h 7d | 8c 8d 9s Tc Kd | Ac 2d 3c 4s 5c"       # back A-2-3-4-5
SIX_HIGH = "4h 5h 9h | Jc Jd Qs Ks Ad | 2c 3d 4d 5d 6s"    # back 2-3-4-5-6, stronger front and middle


def test_baomahui_compares_the_backs_only() -> None:
    assert payoffs("classic", QUADS, FLUSH_BACK) == [-2.0, 2.0]     # +1 front, +2 middle, -5 back
    assert payoffs("baomahui", QUADS, FLUSH_BACK) == [-1.0, 1.0]    # the back only, one unit


def test_baomahui_wheel_is_the_lowest_straight() -> None:
    rules = ThirteenRules.preset("baomahui")
    assert T.compare_rows(T.parse_cards("Ac 2d 3c 4s 5c"), T.parse_cards("2c 3d 4d 5d 6s"), rules) == -1
    assert T.compare_rows(T.parse_cards("Ac 2d 3c 4s 5c"), T.parse_cards("Kc Kd Ks 4h 5h"), rules) == 1
    assert payoffs("baomahui", WHEEL, SIX_HIGH) == [-1.0, 1.0]
    assert payoffs("classic", WHEEL, SIX_HIGH) == [-1.0, 1.0]       # fronts and middles lost, the back won
    assert payoffs("classic", WHEEL, SIX_HIGH, wheel="lowest") == [-3.0, 3.0]


def test_baomahui_foul_loses_one_unit() -> None:
    assert payoffs("classic", QUADS, FOULED) == [7.0, -7.0]
    assert payoffs("baomahui", QUADS, FOULED) == [1.0, -1.0]
    also_fouled = "8s 8d 2c | 3c 4d 6c Jc Ks | 2d 3d 5d 9d As"
    assert payoffs("baomahui", FOULED, also_fouled) == [0.0, 0.0]


def test_baomahui_has_no_specials_or_royalties() -> None:
    dragon = "2c 3d 4h | 5s 6c 7s 8h 9s | Tc Jd Qh Ks Ac"
    full_house = "Kh Kc 2s | 5h 5d 9c 9d 3c | 7h 7c 7d Qs Qc"
    score = thirteen_scoring.score_table([T.parse_arrangement(dragon), T.parse_arrangement(full_house)],
                          ThirteenRules.preset("baomahui"))
    assert score.specials == [0, 0] and score.special_names == ["", ""]
    assert [float(p) for p in score.payoffs] == [-1.0, 1.0]         # a straight loses to a full house
    assert payoffs("classic", dragon, full_house) == [13.0, -13.0]  # a dragon elsewhere


def test_baomahui_four_players_pay_by_back_rank() -> None:
    """Four royal flushes: equal ranks, the suit decides (spades > hearts > clubs > diamonds)."""
    hands = [" ".join(f"{r}{s}" for r in "234") + " | " + " ".join(f"{r}{s}" for r in "56789") + " | "
             + " ".join(f"{r}{s}" for r in "TJQKA") for s in "cdhs"]
    assert payoffs("baomahui", *hands) == [-1.0, -3.0, 1.0, 3.0]


def test_baomahui_against_reference(rng: Any) -> None:
    check_against_reference("baomahui", rng)


@pytest.mark.parametrize("players", (2, 3, 4))
def test_baomahui_solver_is_exact(players: int, rng: Any) -> None:
    check_solver_exactness("baomahui", players, rng)


def test_baomahui_switch_combinations() -> None:
    with pytest.raises(ValueError, match="counted_rows=back pays single rows"):
        ThirteenRules.preset("baomahui", scoop="double")
    with pytest.raises(ValueError, match="counted_rows=back pays single rows"):
        ThirteenRules.preset("western", counted_rows="back")
    assert payoffs("classic", QUADS, FLUSH_BACK, counted_rows="back") == [-5.0, 5.0]  # royalties still apply


# ----------------------------------------------------------------------------- every added preset everywhere

ADDED_PRESETS = [name for name in ThirteenRules.PRESETS if name not in ORIGINAL_PRESETS]
HAND = "As Ks Qs Js Ts 9h 9d 4c 4d 7s 2h 3h 5c"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    try:
        code = main(list(argv))
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    assert code in (0, None), err
    return json.loads(out) if "--json" in argv else out


@pytest.mark.parametrize("preset", ADDED_PRESETS)
def test_added_preset_in_the_environments(preset: str) -> None:
    from splitpoker.envs import thirteen_v0

    env = thirteen_v0.env(num_players=3, preset=preset)
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        assert obs["observation"].shape == (281,)
        env.step(None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"]))
    assert sum(env.rewards.values()) == pytest.approx(0.0)
    parallel = thirteen_v0.parallel_env(num_players=2, preset=preset, suit_order="h>s>d>c")
    observations, infos = parallel.reset(seed=2)
    actions = {a: parallel.action_space(a).sample(observations[a]["action_mask"]) for a in parallel.agents}
    _, rewards, *_ = parallel.step(actions)
    assert sum(rewards.values()) == pytest.approx(0.0)


@pytest.mark.parametrize("preset", ADDED_PRESETS)
def test_added_preset_on_the_command_line(preset: str, capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    rules = cli(capsys, "rules", "thirteen", "--preset", preset, "--set", "suit_order=h>s>d>c", "--json")
    assert rules == ThirteenRules.preset(preset, suit_order="h>s>d>c").to_dict()
    assert cli(capsys, "compare", "thirteen", "As Ks Qs", "Ad Kd Qd", "--preset", preset,
               "--json")["result"] in (-1, 0, 1)
    score = cli(capsys, "score", "thirteen", "--hand", QUADS, "--hand", FLUSH_BACK, "--preset", preset, "--json")
    assert sum(score["payoffs"]) == 0
    splits = cli(capsys, "splits", "thirteen", HAND, "--preset", preset, "--json")
    assert len(splits["valid"]) > 0
    solved = cli(capsys, "solve", "thirteen", HAND, "--players", "3", "--samples", "4", "--preset", preset, "--json")
    assert solved["action"] in splits["valid"]
    summary = cli(capsys, "eval", "thirteen", "--agents", "greedy,random", "--hands", "2", "--players", "2",
                  "--preset", preset, "--no-regret", "--no-plots", "--out", str(tmp_path / "eval"), "--json")
    assert summary["hands"] == 2


@pytest.mark.parametrize("preset", ADDED_PRESETS)
def test_added_preset_in_a_training_config(preset: str) -> None:
    from splitpoker.train.config import load_config_dict

    config = load_config_dict({"game": "thirteen", "num_players": 2, "preset": preset, "total_timesteps": 512,
                               "rules": {"suit_order": "s>h>d>c"}})
    assert config.preset == preset


# ----------------------------------------------------------------------------- baodao 報到十三張

def arranged_text(cards: list[int], preset: str) -> str:
    """The cards as ``front | middle | back`` at their first valid split."""
    game = make_game("thirteen", preset)
    slots = game.slots(cards)
    rows = game.arrangement(slots, int(np.flatnonzero(game.valid_mask(slots))[0]))
    return " | ".join(T.format_cards(r) for r in rows)


def special_table_payoffs(preset: str, *hands: str, **switches: Any) -> list[float]:
    """Payoffs of 13-card hands (specials, or plain hands played at their first valid split)."""
    return payoffs(preset, *[h if "|" in h else arranged_text(T.parse_cards(h), preset) for h in hands], **switches)


def plain_hand_without(*hands: str) -> str:
    """13 cards outside ``hands`` that form no special hand of any table."""
    used = {c for h in hands for c in T.parse_cards(h.replace("|", " "))}
    free = np.array([c for c in range(2, 54) if c not in used])
    rng = np.random.default_rng(0)
    while True:
        cards = sorted(rng.choice(free, 13, replace=False).tolist())
        if all(thirteen_specials.special_hand(cards, ThirteenRules.preset(p))[1] == 0 for p in ThirteenRules.PRESETS):
            return T.format_cards(cards)


MIXED_DRAGON = "2c 3d 4h 5c 6d 7h 8c 9d Th Jc Qd Kh Ac"
CLEAN_DRAGON = "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As"
SIX_PAIRS = "2c 2d 5c 5d 9c 9d Jc Jd Kc Kd Ac Ad 7h"
THREE_FLUSHES = "3h 4h 6h 3d 4d 6d 8d Td 3s 4s 6s 8s Ts"
SMALL_TO_TEN = "2h 3h 4h 5h 6h 7h 8h 9h Th 2s 3s 4s 5s"
TIE_BANKER = "Ah Kd 5c | 2c 2d 7h 8s 9c | 3c 3d 3h Jc Qd"   # front equal by ranks to TIE_PLAYER's
TIE_PLAYER = "As Kc 5d | 4c 4d 7s 8h 9d | 6c 6d 6h Js Qh"


def test_baodao_straights() -> None:
    """10-J-Q-K-A highest, A-2-3-4-5 second, 2-3-4-5-6 lowest."""
    rules = ThirteenRules.preset("baodao")
    order = ["2c 3d 4h 5s 6c", "5d 6h 7s 8c 9d", "9h Td Js Qc Kd", "Ah 2d 3s 4c 5h", "Td Jh Qs Kc Ad"]
    strengths = [T.row_strength(T.parse_cards(row), rules) for row in order]
    assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)


def test_baodao_row_units() -> None:
    table = thirteen_scoring.value_table(ThirteenRules.preset("baodao"))
    assert table[1, HandType.STRAIGHT_FLUSH] == 10 and table[2, HandType.STRAIGHT_FLUSH] == 5
    assert table[1, HandType.FOUR_OF_A_KIND] == 8 and table[2, HandType.FOUR_OF_A_KIND] == 4
    assert table[0, HandType.TRIPS] == 3
    assert table[1, HandType.FULL_HOUSE] == 2 and table[2, HandType.FULL_HOUSE] == 1
    assert table.sum() == 27 - 7 + 10 + 5 + 8 + 4 + 3 + 2 + 1
    assert payoffs("baodao", QUADS, FLUSH_BACK) == [-2.0, 2.0]      # +1 front, +2 full house, -5 straight flush


def test_baodao_equal_rows_go_to_the_banker() -> None:
    assert payoffs("baodao", TIE_BANKER, TIE_PLAYER) == [-1.0, 1.0]                 # front to the banker
    assert payoffs("baodao", TIE_BANKER, TIE_PLAYER, banker_seat=1) == [-3.0, 3.0]  # the other seat banks
    assert payoffs("classic", TIE_BANKER, TIE_PLAYER) == [-3.0, 3.0]                # ♠A beats ♥A
    assert payoffs("classic", TIE_BANKER, TIE_PLAYER, suit_tiebreak=False) == [-2.0, 2.0]
    assert payoffs("baodao", TIE_PLAYER, TIE_BANKER) == [3.0, -3.0]                 # the banker wins all three


def test_baodao_special_hands() -> None:
    rules = ThirteenRules.preset("baodao")
    expected = {MIXED_DRAGON: ("dragon", 7), CLEAN_DRAGON: ("clean_dragon", 7), SIX_PAIRS: ("six_pairs", 4),
                THREE_FLUSHES: ("three_flushes", 4), SMALL_TO_TEN: ("all_small", 4),
                "2c 3d 4h 3c 4d 5h 6s 7c 5c 6d 7h 8s 9c": ("three_straights", 4)}
    for hand, want in expected.items():
        assert thirteen_specials.special_hand(T.parse_cards(hand), rules) == want, hand
    assert thirteen_specials.special_hand(T.parse_cards("2h 3h 4h 5h 6h 7h 8h 9h Jh 2s 3s 4s 5s"),
                                          rules) == ("", 0)  # a J


def test_baodao_special_payments() -> None:
    plain = plain_hand_without(MIXED_DRAGON, CLEAN_DRAGON)
    assert special_table_payoffs("baodao", MIXED_DRAGON, plain) == [7.0, -7.0]
    assert special_table_payoffs("baodao", plain, CLEAN_DRAGON) == [-7.0, 7.0]
    assert special_table_payoffs("baodao", MIXED_DRAGON, CLEAN_DRAGON) == [0.0, 0.0]   # every dragon ties
    assert special_table_payoffs("baodao", SIX_PAIRS, THREE_FLUSHES) == [0.0, 0.0]     # 報到 hands tie
    assert special_table_payoffs("baodao", SIX_PAIRS, CLEAN_DRAGON) == [-7.0, 7.0]
    plain = plain_hand_without(SIX_PAIRS, THREE_FLUSHES)
    # the banker (seat 0) against two players; the players are not compared with each other
    assert special_table_payoffs("baodao", plain, SIX_PAIRS, THREE_FLUSHES) == [-8.0, 4.0, 4.0]
    assert special_table_payoffs("baodao", SIX_PAIRS, plain, THREE_FLUSHES) == [4.0, -4.0, 0.0]


def test_baodao_against_reference(rng: Any) -> None:
    check_against_reference("baodao", rng)


def test_baodao_specials_against_reference(rng: Any) -> None:
    from tests.reference import thirteen_ref as ref

    rules, r = ThirteenRules.preset("baodao"), ref.rules("baodao")
    found = set()
    for _ in range(300):
        ranks = rng.choice(13, int(rng.integers(7, 14)), replace=False)
        suits = rng.choice(4, int(rng.integers(2, 5)), replace=False)
        pool = [card_id(int(x), int(s)) for x in ranks for s in suits]
        if len(pool) < 13:
            continue
        hand = rng.choice(pool, 13, replace=False).tolist()
        name, value = thirteen_specials.special_hand(hand, rules)
        assert value == ref.special(ref.parse(T.format_cards(hand)), r), T.format_cards(sorted(hand))
        found.add(name)
    assert {"six_pairs", "three_flushes", "all_small"} <= found


@pytest.mark.parametrize("players", (2, 3, 4))
def test_baodao_solver_is_exact(players: int, rng: Any) -> None:
    check_solver_exactness("baodao", players, rng, hero=(T.parse_cards(SIX_PAIRS),))


def test_baodao_switch_combinations() -> None:
    with pytest.raises(ValueError, match="tie_winner=banker needs scoring=banker and suit_tiebreak=false"):
        ThirteenRules.preset("baodao", suit_tiebreak=True)
    with pytest.raises(ValueError, match="tie_winner=banker needs scoring=banker"):
        ThirteenRules.preset("baodao", scoring="pairwise")
    assert payoffs("banker", TIE_BANKER, TIE_PLAYER, suit_tiebreak=False, tie_winner="banker") == [-1.0, 1.0]


@pytest.mark.parametrize("switches", ({}, {"scoop": "double"}), ids=("baodao", "baodao-scoop"))
@pytest.mark.parametrize("seat", (0, 1))
def test_baodao_solver_is_exact_with_equal_rows(seat: int, switches: dict[str, Any], rng: Any) -> None:
    """The opponent holds the hero's ranks in the other two suits and plays splits the hero
    may play too: many rows are equal, and the banker wins them (also toward a scoop)."""
    from splitpoker.agents.solver import split_evs
    from tests.test_solver import engine_mean

    game = make_game("thirteen", "baodao", **switches)
    while True:  # five pairs and three single cards in two suits (7 + 6 cards): no special hand
        chosen = rng.choice(13, 8, replace=False)
        cards = [(int(r), s) for r in chosen[:5] for s in (0, 1)] + [(int(chosen[5]), 0), (int(chosen[6]), 0),
                                                                     (int(chosen[7]), 1)]
        hand = np.sort(np.array([card_id(r, s) for r, s in cards], dtype=np.int64))
        mirror = np.sort(np.array([card_id(r, s + 2) for r, s in cards], dtype=np.int64))
        if (thirteen_specials.special_hand(hand.tolist(), game.rules)[1] == 0
                == thirteen_specials.special_hand(mirror.tolist(), game.rules)[1]):
            break
    valid = np.flatnonzero(game.valid_mask(hand))
    assert np.array_equal(valid, np.flatnonzero(game.valid_mask(mirror)))
    played = rng.choice(valid, 6, replace=False)
    opp = np.stack([game.arranged(mirror, np.array(a))[None] for a in played])
    got_valid, evs = split_evs(game, hand, opp, seat=seat)
    assert np.array_equal(got_valid, valid)
    for action in [*played, *rng.choice(valid, 4)]:
        i = int(np.searchsorted(valid, action))
        assert evs[i] == pytest.approx(engine_mean(game, hand, int(action), opp, seat), abs=1e-9)
    mine = thirteen_scoring.table_strengths(game.arranged(np.tile(hand, (len(played), 1)), played), game.rules)
    assert (mine == thirteen_scoring.table_strengths(opp[:, 0], game.rules)).all()  # every row of these tables is equal


# ----------------------------------------------------------------------------- mianbai 免擺

SF_HEARTS = "5h 6h 7h 8h 9h 2c 3d 4d Jc Qd Ac 3s Td"          # a 9-high straight flush
SF_SPADES = "5s 6s 7s 8s 9s 2d 4c Jd Qc Kd Ad 3c Th"          # the same straight flush in spades
FOUR_TENS = "Tc Td Th Ts 2s 4s 6d 8c Jh Qh Kc Ac 2d"
FOUR_KINGS = "Kc Kd Kh Ks 2h 3h 4c 6c 7s 8d Jh Qs Ah"
FOUR_NINES_AND_THREES = "9c 9d 9h 9s 3c 3d 3h 3s 5d 7c Jd Qs Kh"
WHEEL_FLUSH = "Ac 2c 3c 4c 5c 7d 9h Jd Qh Ks 8s 6h Td"        # A-2-3-4-5 of clubs


def test_mianbai_free_hands() -> None:
    rules = ThirteenRules.preset("mianbai")
    for hand, name in ((SF_HEARTS, "straight_flush"), (FOUR_TENS, "four_of_a_kind"), (WHEEL_FLUSH, "straight_flush"),
                       ("Tc Td Th Ts 2s 3s 4s 5s 6s 8c Jh Qh Kc", "straight_flush"), (MIXED_DRAGON, "")):
        assert thirteen_specials.special_hand(T.parse_cards(hand), rules) == (name, 3 if name else 0), hand
    assert thirteen_specials.special_hand(T.parse_cards(WHEEL_FLUSH), rules.replace(wheel="none")) == ("", 0)


def test_mianbai_free_hand_beats_every_arranged_hand() -> None:
    plain = plain_hand_without(SF_HEARTS)
    assert special_table_payoffs("mianbai", SF_HEARTS, plain) == [3.0, -3.0]
    fouled = "3d 3s 7h | 5h 6h 8h 9h 2c | 4d Jc Qd Ac Td"   # the free hand is not arranged: no foul
    score = thirteen_scoring.score_table([T.parse_arrangement(fouled),
                                          T.parse_arrangement(arranged_text(T.parse_cards(plain), "mianbai"))],
                          ThirteenRules.preset("mianbai"))
    assert [float(p) for p in score.payoffs] == [3.0, -3.0] and score.fouled == [False, False]
    assert special_table_payoffs("mianbai", plain_hand_without(FOUR_TENS), FOUR_TENS) == [-3.0, 3.0]
    assert special_table_payoffs("mianbai", SF_HEARTS, plain, special_pays=6) == [6.0, -6.0]


def test_mianbai_between_free_hands() -> None:
    """The better straight flush or four of a kind wins; a straight flush beats four of a kind."""
    assert special_table_payoffs("mianbai", SF_HEARTS, FOUR_KINGS) == [3.0, -3.0]
    assert special_table_payoffs("mianbai", FOUR_TENS, FOUR_NINES_AND_THREES) == [3.0, -3.0]  # four 10s > four 9s
    assert special_table_payoffs("mianbai", SF_HEARTS, SF_SPADES) == [-3.0, 3.0]              # same ranks: ♠ > ♥
    assert special_table_payoffs("mianbai", SF_HEARTS, SF_SPADES, suit_tiebreak=False) == [0.0, 0.0]
    wheel, king_high = "Ac 2c 3c 4c 5c 6d 7d 8d Jh Qh Kh 9s Ts", "9d Td Jd Qd Kd 2h 3h 4h 5s 6s 7s 8s As"
    assert special_table_payoffs("mianbai", wheel, king_high) == [3.0, -3.0]                # the wheel is second best
    plain = plain_hand_without(FOUR_TENS, FOUR_NINES_AND_THREES)
    assert special_table_payoffs("mianbai", FOUR_TENS, FOUR_NINES_AND_THREES, plain) == [6.0, 0.0, -6.0]


def test_mianbai_special_pays_is_checked() -> None:
    with pytest.raises(ValueError, match="special_pays=-1 is not allowed"):
        ThirteenRules.preset("mianbai", special_pays=-1)
    assert ThirteenRules.preset("mianbai", special_pays="4").special_pays == 4
    assert ThirteenRules.preset("mianbai").to_dict()["specials"] == "mianbai"
    assert "special_pays" not in ThirteenRules.preset("mianbai").to_dict()


def test_mianbai_arranged_hands_pay_one_unit_a_row() -> None:
    assert payoffs("mianbai", TIE_BANKER, TIE_PLAYER) == [-3.0, 3.0]
    assert payoffs("mianbai", WHEEL, SIX_HIGH) == [-1.0, 1.0]      # the wheel (second best) wins the back


def test_mianbai_against_reference(rng: Any) -> None:
    check_against_reference("mianbai", rng, tables=40)


def free_tables(game: Any, hand: np.ndarray, players: int, samples: int, rng: Any) -> np.ndarray:
    """Opponent arrangements from the unseen cards, about half of them holding a planted
    four of a kind or straight flush, each at a random split (fouls included)."""
    out = np.empty((samples, players - 1, 13), dtype=np.int64)
    for s in range(samples):
        pool = [int(c) for c in rng.permutation(np.setdiff1d(game.deck(), hand))]
        for j in range(players - 1):
            plant: list[int] = []
            if rng.random() < 0.6:
                groups = [[card_id(r, u) for u in range(4)] for r in range(13)]
                groups += [[card_id(r, u) for r in range(low, low + 5)] for low in range(9) for u in range(4)]
                options = [g for g in groups if all(c in pool for c in g)]
                plant = [int(c) for c in options[int(rng.integers(len(options)))]] if options else []
            rest = [c for c in pool if c not in plant][:13 - len(plant)]
            cards = np.sort(np.array(plant + rest, dtype=np.int64))
            pool = [c for c in pool if c not in cards]
            action = int(rng.integers(game.n_actions)) if rng.random() < 0.3 else \
                int(rng.choice(np.flatnonzero(game.valid_mask(cards))))
            out[s, j] = game.arranged(cards, np.array(action))
    return out


@pytest.mark.parametrize("players", (2, 3, 4))
def test_mianbai_solver_is_exact(players: int, rng: Any) -> None:
    from splitpoker.agents.solver import split_evs
    from tests.test_solver import engine_mean, random_hand

    game = make_game("thirteen", "mianbai")
    hands = [random_hand(game, rng), np.sort(np.array(T.parse_cards(FOUR_TENS))),
             np.sort(np.array(T.parse_cards(SF_HEARTS)))]
    for hand in hands:
        seat = int(rng.integers(players))
        opp = free_tables(game, hand, players, 6, rng)
        assert thirteen_specials.special_hands(opp.reshape(-1, 13), game.rules)[1].any()
        valid, evs = split_evs(game, hand, opp, seat=seat)
        for i in rng.choice(len(valid), 5, replace=False):
            assert evs[i] == pytest.approx(engine_mean(game, hand, int(valid[i]), opp, seat), abs=1e-9)


def test_mianbai_keys_against_reference(rng: Any) -> None:
    """Two free hands at a table: the engine's winner is the reference's."""
    from tests.reference import thirteen_ref as ref

    game = make_game("thirteen", "mianbai")
    r = ref.rules("mianbai")
    checked = 0
    for _ in range(40):
        table = free_tables(game, np.array([], dtype=np.int64), 3, 1, rng)[0]
        arrangements = [[t[:3].tolist(), t[3:8].tolist(), t[8:].tolist()] for t in table]
        got = thirteen_scoring.score_table(arrangements, game.rules)
        want = ref.score([tuple(ref.parse(T.format_cards(row)) for row in hand) for hand in arrangements], r)
        assert [float(p) for p in got.payoffs] == want["payoffs"]
        checked += int((np.asarray(got.specials) > 0).sum() == 2)
    assert checked >= 5


# ----------------------------------------------------------------------------- baibian 百變 and shaoxing 紹興

TIER_HANDS = {  # hand -> (name, tier)
    "2c 3c 4c 5c 6c 7c 8c 9s Ts Js Qs Ks 2h": ("black_one_red", 1),
    "2h 3h 4h 5h 6h 7h 8h 9d Td Jd Qd Kd 2c": ("red_one_black", 1),
    MIXED_DRAGON: ("dragon", 1),
    CLEAN_DRAGON: ("clean_dragon", 1),
    "2c 2d 2h 5c 5d 9c 9d Jc Jd Kc Kd Ac Ad": ("five_pairs_trips", 1),
    "2c 2d 2h 2s 5c 5d 5h 9c 9h Jc Jd Kc Kd": ("five_pairs_trips", 1),   # a four counts as two pairs
    "6c 6d 7h 8s 9c Tc Td Jh Qs Kc Kd 7c 8d": ("all_big", 2),
    SMALL_TO_TEN: ("all_small", 2),
    SIX_PAIRS: ("six_pairs", 2),
    "6c 7d 8h 9s Tc Jd Qh Ks Ac Ad 6d 7h 9c": ("half_big", 3),
    "Ac 2d 3h 4s 5c 6d 7h 8s 9c Td Ah 2c 3d": ("half_small", 3),
    "9c Td Jh Tc Jd Qh Ks Ac 2d 3h 4s 5c 6d": ("three_straights", 3),
    "3h 4h Kh 3d 4d 6d 8d Jd 3s 4s 6s 8s Qs": ("three_flushes", 3),
}
SF_PLAIN = "5h 6h 7h 8h 9h 2c 3c Jc Qd Kd Ks 3s Js"   # a straight flush, three pairs, no tier
TIER_VALUES = {"baibian": {1: 6, 2: 5, 3: 4}, "shaoxing": {1: 8, 2: 7, 3: 6}}


@pytest.mark.parametrize("preset", ("baibian", "shaoxing"))
def test_tiers(preset: str) -> None:
    rules = ThirteenRules.preset(preset)
    for hand, (name, tier) in TIER_HANDS.items():
        assert thirteen_specials.special_hand(T.parse_cards(hand), rules) == (name, TIER_VALUES[preset][tier]), hand
    no_tier = "2c 2d 5h 7s 8c 9d Tc Th Js Qd Kc Ah As"   # pairs only (a J-Q-K in it: no range)
    assert thirteen_specials.special_hand(T.parse_cards(no_tier), rules) == ("", 0)
    assert thirteen_specials.special_hand(T.parse_cards("Ac 2d 3h 4s 5c 6d 7h 8s 9c Td Jh 2c 3d"),
                                          rules)[0] != "half_small"


def test_baibian_below_the_tiers_is_arranged() -> None:
    rules = ThirteenRules.preset("baibian")
    for hand in (SF_PLAIN, FOUR_TENS, "Tc Td Th 2s 4s 6d 8c Jh Qh Kc Ac 2d 5s"):
        assert thirteen_specials.special_hand(T.parse_cards(hand), rules) == ("", 0), hand
    assert payoffs("baibian", TIE_BANKER, TIE_PLAYER) == [-3.0, 3.0]
    assert payoffs("baibian", QUADS, FLUSH_BACK) == [1.0, -1.0]     # one unit a row, no royalties: 2 rows to 1


@pytest.mark.parametrize("preset", ("baibian", "shaoxing"))
def test_tier_payments(preset: str) -> None:
    value = TIER_VALUES[preset]
    one, two, three = CLEAN_DRAGON, SMALL_TO_TEN, "3h 4h Kh 3d 4d 6d 8d Jd 3s 4s 6s 8s Qs"
    assert special_table_payoffs(preset, one, plain_hand_without(one)) == [value[1], -value[1]]
    assert special_table_payoffs(preset, three, plain_hand_without(three)) == [value[3], -value[3]]
    assert special_table_payoffs(preset, one, SIX_PAIRS) == [value[1], -value[1]]
    two_other = "6c 6d 7s 8s 9c Tc Td Jh Qs Kc Kd 7c 8d"          # tier 2 too: equal
    assert special_table_payoffs(preset, two, two_other) == [0.0, 0.0]
    half_small = "Ac 2d 3c 5c 6c 7h 8c 9c Tc Ah 2c 5h 9h"
    assert special_table_payoffs(preset, three, half_small) == [0.0, 0.0]           # tier 3 both: equal
    half_big = "6c 7d 8c 9s Tc Jd Qc Ks Ac Ad 6d 7c 9c"
    assert special_table_payoffs(preset, two, half_big) == [value[2], -value[2]]


def test_shaoxing_best_cards_anywhere() -> None:
    """Below the tiers: a straight flush (5), then four of a kind (4), then trips (3) anywhere,
    each told apart by the best one (the text's examples: four 10s beat four 3s and four 9s;
    three 10s beat three 3s and three 9s)."""
    rules = ThirteenRules.preset("shaoxing")
    assert thirteen_specials.special_hand(T.parse_cards(SF_PLAIN), rules) == ("straight_flush", 5)
    assert thirteen_specials.special_hand(T.parse_cards(FOUR_TENS), rules) == ("four_of_a_kind", 4)
    assert special_table_payoffs("shaoxing", FOUR_TENS, FOUR_NINES_AND_THREES) == [4.0, -4.0]
    tens, threes_and_nines = "Tc Td Th 2s 4s 6d 8c Jh Qh Kc Ac 2d 5s", "3c 3d 3h 9c 9d 9h 5d 7c Jd Qs Kh 4d 6s"
    assert thirteen_specials.special_hand(T.parse_cards(tens), rules) == ("trips", 3)
    assert special_table_payoffs("shaoxing", tens, threes_and_nines) == [3.0, -3.0]
    assert special_table_payoffs("shaoxing", SF_PLAIN, FOUR_TENS) == [5.0, -5.0]
    assert special_table_payoffs("shaoxing", FOUR_KINGS, "Tc Td Th 2s 4s 6d 8c Jc Qh 9c Ac 2d 5s") == [4.0, -4.0]
    pairs_only = "2c 2d 5h 7s 8c 9d Tc Th Js Qd Kc Ah As"
    assert thirteen_specials.special_hand(T.parse_cards(pairs_only), rules) == ("", 0)
    assert special_table_payoffs("shaoxing", pairs_only, plain_hand_without(pairs_only)) in \
        [[x, -x] for x in (-3.0, -1.0, 1.0, 3.0)]


@pytest.mark.parametrize("preset", ("baibian", "shaoxing"))
def test_tiers_against_reference(preset: str, rng: Any) -> None:
    from tests.reference import thirteen_ref as ref

    check_against_reference(preset, rng, tables=30)
    rules, r = ThirteenRules.preset(preset), ref.rules(preset)
    found = set()
    for hand in [*TIER_HANDS, SF_PLAIN, FOUR_TENS]:
        assert thirteen_specials.special_hand(T.parse_cards(hand), rules)[1] == ref.special(ref.parse(hand), r), hand
    for _ in range(200):
        ranks = rng.choice(13, int(rng.integers(6, 14)), replace=False)
        suits = rng.choice(4, int(rng.integers(2, 5)), replace=False)
        pool = [card_id(int(x), int(s)) for x in ranks for s in suits]
        if len(pool) < 13:
            continue
        hand = rng.choice(pool, 13, replace=False).tolist()
        name, value = thirteen_specials.special_hand(hand, rules)
        assert value == ref.special(ref.parse(T.format_cards(hand)), r), T.format_cards(sorted(hand))
        found.add(name)
    assert len(found) >= 5


@pytest.mark.parametrize("preset", ("baibian", "shaoxing"))
@pytest.mark.parametrize("players", (2, 3, 4))
def test_tiers_solver_is_exact(preset: str, players: int, rng: Any) -> None:
    from splitpoker.agents.solver import split_evs
    from tests.test_solver import _random_tables, engine_mean, random_hand

    game = make_game("thirteen", preset)
    hands = [random_hand(game, rng), np.sort(np.array(T.parse_cards(SIX_PAIRS)))]
    for hand in hands:
        seat = int(rng.integers(players))
        opp = free_tables(game, hand, players, 4, rng) if preset == "shaoxing" else \
            _random_tables(game, hand, players, 4, rng, plant=("dragon", "six_pairs", "one_colour"))
        valid, evs = split_evs(game, hand, opp, seat=seat)
        for i in rng.choice(len(valid), 5, replace=False):
            assert evs[i] == pytest.approx(engine_mean(game, hand, int(valid[i]), opp, seat), abs=1e-9)


# ----------------------------------------------------------------------------- invariants (hypothesis)

@given(st.sampled_from(ADDED_PRESETS), st.permutations(list(range(2, 54))), st.integers(2, 4), st.data())
@settings(max_examples=60)
def test_added_presets_zero_sum_and_reference(preset: str, deck: list[int], n: int, data: st.DataObject) -> None:
    """Any deal and any splits (fouls included): payoffs sum to zero, a special hand is never
    fouled, and the reference agrees."""
    from tests.reference import thirteen_ref as ref

    rules = ThirteenRules.preset(preset)
    table = []
    for seat in range(n):
        hand = sorted(deck[13 * seat: 13 * seat + 13])
        index = data.draw(st.integers(0, THIRTEEN.n_actions - 1))
        table.append([[hand[s] for s in row] for row in THIRTEEN.decode(index)])
    score = thirteen_scoring.score_table(table, rules)
    assert float(score.payoffs.sum()) == 0.0
    assert not any(f and v for f, v in zip(score.fouled, score.specials))
    want = ref.score([tuple(ref.parse(T.format_cards(row)) for row in hand) for hand in table], ref.rules(preset))
    assert [float(p) for p in score.payoffs] == want["payoffs"]


@pytest.mark.parametrize(("preset", "first", "second", "expected"), [
    # 全黑一張紅 (the top tier of 百變) against six pairs (the second): the higher tier wins
    ("baibian", "3c 4c 6c | 5s 7s 8c Tc Ah | 9s Js Qs Ks As", "Ac Ad Kc | Kd Qc Qd Jc Jd | 9c 9d 2h 2s 5h", [3, -3]),
    # 紹興: the top tier against a straight flush (the fourth tier)
    ("shaoxing", "3c 4c 6c | 5s 7s 8c Tc Ah | 9s Js Qs Ks As", "2h 3h 4h 5h 6h 9c Jd Kd 8s 7c 7d Qd 2d", [3, -3]),
    # classic: a dragon (13) against six pairs (3)
    ("classic", "2d 3c 4d 5d 6d 7c 8d 9h Th Jh Qs Ks Ah", "Ac Ad Kc | Kd Qc Qd Jc Jd | 9c 9d 2h 2s 5h", [3, -3]),
    # 紹興, equal tiers (two straight flushes): the stronger cards win, paid special_pays
    ("shaoxing", "2h 3h 4h 5h 6h 9c Jc Kc 8s 7c 7d Qd Ad", "9s Ts Js Qs Ks 2c 3c 4s 8c 8h 7s Qc 2s", [-3, 3]),
])
def test_special_pays_sets_the_payment_not_the_ranking(preset: str, first: str, second: str,
                                                       expected: list[int]) -> None:
    """``special_pays`` is what every special is paid; specials still rank by their values
    (tiers) in the table, so the higher one wins, as without the switch."""
    assert special_table_payoffs(preset, first, second, special_pays=3) == expected
    listed = special_table_payoffs(preset, first, second)
    assert np.sign(listed).tolist() == np.sign(expected).tolist()
    score = thirteen_scoring.score_table([T.parse_arrangement(h if "|" in h
                                                              else arranged_text(T.parse_cards(h), preset))
                           for h in (first, second)], ThirteenRules.preset(preset, special_pays=3))
    assert score.specials == [3, 3]
