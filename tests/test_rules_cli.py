"""The rules subcommands of the ``splitpoker`` console script: ``rules``, ``compare``,
``score`` and ``splits`` for both games; JSON shapes, errors, ``--help``."""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np
import pytest

from splitpoker.envs.cards import format_cards, parse_cards
from splitpoker.envs.games import make_game
from splitpoker.envs.thirteen.rules import ThirteenRules
from splitpoker.train.cli import build_parser
from tests.helpers import run_cli

THIRTEEN_HAND = "2c 5d 5h 7s 8c 9d Tc Th Js Qd Kc Ah As"
BIJI_HAND = "RJ 9d Kh Th BJ 6h 9h 8c 2d"
MIXED_A = "5c 5d 5h | 6c 7d 8h 9s Tc | 2h 4h 7h Jh Kh"
MIXED_B = "Ac Kd Ts | 3c 3d 3h 4c 4d | Qc Qd Qh Qs 6s"
SEED_A = "9s 9c 2s | 3s 4c 5s | Ks Js 7s"
SEED_B = "8h 8d 3c | Th 6h 4h | Qd 9d 5d"
SEED_C = "2h 5c Jc | 6c 7d 8c | Ac Ad Ah"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 0, err
    assert out.endswith("\n") and out.count("\n") == 1, "one JSON document on one line"
    return json.loads(out)


# ----------------------------------------------------------------------------- rules

def test_rules_json(capsys: pytest.CaptureFixture[str]) -> None:
    document = run_json(capsys, "rules", "thirteen")
    assert document == make_game("thirteen").rules.to_dict()
    document = run_json(capsys, "rules", "thirteen", "--preset", "western", "--set", "wheel=none",
                        "--set", "suit_tiebreak=on")
    assert document["wheel"] == "none" and document["suit_tiebreak"] is True and document["scoring"] == "two_four"
    document = run_json(capsys, "rules", "biji", "--preset", "no-jokers", "--set", "xi_sweep=2")
    assert document["jokers"] == "none" and document["xi_sweep"] == 2


def test_rules_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "rules", "biji")
    assert code == 0 and err == ""
    assert "suit_order" in out and "hearts>spades>diamonds>clubs" in out


# ----------------------------------------------------------------------------- compare

@pytest.mark.parametrize("game, a, b, result, types", [
    ("thirteen", "Ah 2d 3c 4s 5h", "9s Td Jc Qs Kh", 1, ("straight", "straight")),
    ("thirteen", "8s 8d 9c", "8h 8c 4d", 1, ("pair", "pair")),
    ("thirteen", "♠A ♠Q ♦5", "♦A ♦Q ♣6", -1, ("high_card", "high_card")),
    ("biji", "BJ RJ 4c", "2h 2d 3c", -1, ("pair", "pair")),
    ("biji", "RJ 5h 9h", "Qs Kh Ad", 1, ("flush", "straight")),
])
def test_compare_json(capsys: pytest.CaptureFixture[str], game: str, a: str, b: str, result: int,
                      types: tuple[str, str]) -> None:
    document = run_json(capsys, "compare", game, a, b)
    assert set(document) == {"result", "a", "b"}
    assert document["result"] == result
    for key, kind in zip(("a", "b"), types):
        assert {"type", "strength"} <= set(document[key])
        assert document[key]["type"] == kind and isinstance(document[key]["strength"], int)
    assert ((document["a"]["strength"] > document["b"]["strength"])
            - (document["a"]["strength"] < document["b"]["strength"]) == result)
    swapped = run_json(capsys, "compare", game, b, a)
    assert swapped["result"] == -result


def test_compare_with_rules_options(capsys: pytest.CaptureFixture[str]) -> None:
    wheel, broadway_low = "Ad 2c 3s 4h 5d", "9c Td Jh Qs Kd"
    assert run_json(capsys, "compare", "thirteen", wheel, broadway_low)["result"] == 1
    assert run_json(capsys, "compare", "thirteen", wheel, broadway_low, "--set", "wheel=lowest")["result"] == -1
    assert run_json(capsys, "compare", "thirteen", "9s 9d Ac 7s 4h", "9h 9c Ad 7d 4c",
                    "--preset", "western")["result"] == 0
    assert run_json(capsys, "compare", "biji", "5h 5d 9c", "5s 5c 9h",
                    "--set", "pair_tiebreak=pair_suit")["result"] == 1


def test_compare_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "compare", "thirteen", "As Ks Qs", "Ah Kh Qh")
    assert code == 0 and err == ""
    assert "A is stronger" in out and "high_card" in out


# ----------------------------------------------------------------------------- score

def test_score_thirteen_json(capsys: pytest.CaptureFixture[str]) -> None:
    document = run_json(capsys, "score", "thirteen", "--hand", MIXED_A, "--hand", MIXED_B)
    assert {"payoffs", "fouled", "specials", "pairs"} <= set(document)
    assert document["payoffs"] == [-3, 3]
    assert document["fouled"] == [False, False] and document["specials"] == [0, 0]
    assert len(document["pairs"]) == 1
    assert run_json(capsys, "score", "thirteen", "--hand", MIXED_A, "--hand", MIXED_B,
                    "--preset", "western")["payoffs"] == [-2, 2]


def test_score_thirteen_fouled_and_special(capsys: pytest.CaptureFixture[str]) -> None:
    dragon = "2c 3d 4h | 5s 6c 7d 8h 9s | Tc Jd Qh Ks Ac"
    fouled = "Ah Ad 2s | 3s 4c 6d 8c Td | 5c 5h 9c 9h Kc"
    document = run_json(capsys, "score", "thirteen", "--hand", dragon, "--hand", fouled)
    assert document["payoffs"] == [13, -13]
    assert document["fouled"] == [False, True] and document["specials"] == [13, 0]
    code, out, _ = run_cli(capsys, "score", "thirteen", "--hand", dragon, "--hand", fouled)
    assert code == 0 and ["(the arrangement fouls)" in line for line in out.splitlines()] == [False, True]
    # what each seat was paid beyond its rows is named: here the special hand
    assert [line.rsplit("  ", 1)[-1] for line in out.splitlines()] == ["(special dragon +13)", "(special dragon -13)"]


def test_score_biji_json(capsys: pytest.CaptureFixture[str]) -> None:
    document = run_json(capsys, "score", "biji", "--hand", SEED_A, "--hand", SEED_B, "--hand", SEED_C)
    assert {"payoffs", "xi", "pots"} <= set(document)
    assert document["payoffs"] == [4, -2, -2] and document["xi"] == [1, 0, 0]
    assert len(document["pots"]) == 3


def test_score_biji_sort(capsys: pytest.CaptureFixture[str]) -> None:
    shuffled = "Ks Js 7s | 9s 9c 2s | 3s 4c 5s"
    code, _, err = run_cli(capsys, "score", "biji", "--hand", shuffled, "--hand", SEED_B, "--json")
    assert code == 2 and "not strictly increasing" in err
    document = run_json(capsys, "score", "biji", "--hand", shuffled, "--hand", SEED_B, "--sort")
    ordered = run_json(capsys, "score", "biji", "--hand", SEED_A, "--hand", SEED_B)
    assert document["payoffs"] == ordered["payoffs"]


def test_score_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "score", "thirteen", "--hand", MIXED_A, "--hand", MIXED_B)
    assert code == 0 and err == ""
    assert out.count("seat ") == 2 and "-3" in out and "+3" in out


# ----------------------------------------------------------------------------- splits

@pytest.mark.parametrize("game, hand, preset", [
    ("thirteen", THIRTEEN_HAND, "classic"),
    ("thirteen", THIRTEEN_HAND, "banker"),
    ("biji", BIJI_HAND, "classic"),
    ("biji", "2c 3d 4h 5s 6c 7d 8h 9s Tc", "no-jokers"),
])
def test_splits_json(capsys: pytest.CaptureFixture[str], game: str, hand: str, preset: str) -> None:
    document = run_json(capsys, "splits", game, hand, "--preset", preset)
    assert set(document) >= {"slots", "actions", "valid"}
    engine = make_game(game, preset)
    slots = engine.slots(parse_cards(hand))
    assert document["slots"] == format_cards(slots).split()
    assert document["actions"] == engine.n_actions
    assert document["valid"] == np.flatnonzero(engine.valid_mask(slots)).tolist()
    if game == "biji":
        assert len(document["valid"]) == 280


@pytest.mark.parametrize("game, hand", [("thirteen", THIRTEEN_HAND), ("biji", BIJI_HAND)])
def test_splits_decode(capsys: pytest.CaptureFixture[str], game: str, hand: str) -> None:
    engine = make_game(game)
    slots = engine.slots(parse_cards(hand))
    mask = engine.valid_mask(slots)
    for index in (0, int(np.flatnonzero(mask)[0]), engine.n_actions - 1):
        document = run_json(capsys, "splits", game, hand, "--decode", str(index))
        rows = engine.arrangement(slots, index)
        assert document["index"] == index
        assert document["arrangement"] == [format_cards(r) for r in rows]
        assert document["valid"] == bool(mask[index])
        assert len(document["types"]) == 3
    code, out, err = run_cli(capsys, "splits", game, hand, "--decode", "0")
    assert code == 0 and "|" in out and err == ""


def test_splits_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "splits", "biji", BIJI_HAND)
    assert code == 0 and err == "" and "280 of 1680" in out


# ----------------------------------------------------------------------------- errors

ERRORS = [
    (("compare", "thirteen", "As Ks Zs", "Ah Kh Qh"), "'Zs'"),
    (("compare", "thirteen", "As 1x Qs", "Ah Kh Qh"), "'1x'"),
    (("compare", "thirteen", "As Ks Qs Js", "Ah Kh Qh Jh"), "4 cards"),
    (("compare", "thirteen", "As Ks Qs", "Ah Kh Qh Jh Th"), "differ in size"),
    (("compare", "thirteen", "BJ Ks Qs", "Ah Kh Qh"), "joker BJ"),
    (("compare", "thirteen", "As Ks Qs", "As Kh Qh"), "share a card"),
    (("compare", "biji", "BJ 2c 3c", "Ah Kh Qh", "--preset", "no-jokers"), "joker BJ"),
    (("compare", "biji", "As Ks Qs Js", "Ah Kh Qh Jh"), "4 cards"),
    (("compare", "biji", "As As Qs", "Ah Kh Qh"), "duplicate card As"),
    (("rules", "thirteen", "--preset", "chinese"),
     "unknown thirteen preset 'chinese'; presets: classic, shisanshui, banker, western"),
    (("rules", "biji", "--preset", "western"), "unknown biji preset 'western'; presets: classic, no-jokers"),
    (("rules", "thirteen", "--set", "wheels=lowest"), "unknown thirteen switch 'wheels'"),
    (("rules", "thirteen", "--set", "wheel=highest"),
     "wheel='highest' is not allowed; allowed: second, lowest, ace_equal, none"),
    (("rules", "thirteen", "--set", "wheel"), "cannot read --set 'wheel'"),
    (("rules", "biji", "--set", "xi_sweep=-1"), "xi_sweep=-1"),
    (("score", "thirteen"), "--hand"),
    (("score", "thirteen", "--hand", MIXED_A), "2 to 4 players, got 1"),
    (("score", "thirteen", "--hand", MIXED_A, "--hand", MIXED_A), "card 5c"),
    (("score", "thirteen", "--hand", MIXED_A, "--hand", "Ac Kd | 3c 3d 3h 4c 4d Ts | Qc Qd Qh Qs 6s"), "2/6/5"),
    (("score", "biji", *sum((("--hand", SEED_A),) * 6, ())), "2 to 5 players, got 6"),
    (("score", "biji", "--hand", SEED_A, "--hand", "8h 8d 3c | Th 6h 4h | Qd 9s 5d"),
     "card 9s is in the hands of seats 0 and 1"),
    (("score", "biji", "--hand", SEED_A, "--hand", "8h 8d 3c | Th 6h 4h | Qd 9d"), "3/3/2"),
    (("score", "biji", "--hand", SEED_A, "--hand", "Th 6h 4h | 8h 8d 3c | Qd 9d 5d"), "seat 1 pots"),
    (("splits", "thirteen", "2c 3d"), "2 cards"),
    (("splits", "biji", BIJI_HAND, "--decode", "1680"), "split index 1680 is out of range 0..1679"),
    (("splits", "biji", BIJI_HAND, "--decode", "x"), "'x'"),
    (("splits", "biji", BIJI_HAND, "--preset", "no-jokers"), "joker"),
    (("splits", "chess", BIJI_HAND), "'chess'"),
]


@pytest.mark.parametrize("argv, message", ERRORS, ids=[" ".join(a)[:60] for a, _ in ERRORS])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_errors(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str, as_json: bool) -> None:
    code, out, err = run_cli(capsys, *argv, *(["--json"] if as_json else []))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert message in err
    assert "Traceback" not in err


# ----------------------------------------------------------------------------- help

def subcommands() -> list[str]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(actions[0].choices)


def test_rules_subcommands_are_registered() -> None:
    assert {"rules", "compare", "score", "splits"} <= set(subcommands())


@pytest.mark.parametrize("command", subcommands())
def test_help(capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, _ = run_cli(capsys, command, "--help")
    assert code == 0
    assert out.startswith("usage: splitpoker " + command)


def test_top_level_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and "rules" in out and "splits" in out
    code, _, err = run_cli(capsys)
    assert code == 2 and err.count("\n") == 1


def test_closed_and_broken_standard_output() -> None:
    """With standard output closed a command does no work and says so (status 2); a reader
    that goes away (``| head``) stops it silently with the status of SIGPIPE (141)."""
    import subprocess
    import sys

    command = f"{sys.executable} -c 'import sys; from splitpoker.train.cli import main; sys.exit(main(sys.argv[1:]))'"
    closed = subprocess.run(["bash", "-c", f"{command} rules biji >&-"], capture_output=True, text=True)
    assert closed.returncode == 2
    assert closed.stderr.strip() == ("splitpoker rules: error: standard output is closed; "
                                     "nothing it prints could be read")
    hand = "As Ks Qs Js Ts 9h 9d 4c 4d 7s 2h 3h 5c"  # its 22,000 valid splits fill the pipe
    broken = subprocess.run(["bash", "-c",
                             f"{command} splits thirteen '{hand}' --json | head -c 1; exit ${{PIPESTATUS[0]}}"],
                            capture_output=True, text=True)
    assert broken.returncode == 141 and broken.stderr == "" and broken.stdout == "{"


@pytest.mark.parametrize("preset", list(ThirteenRules.preset_descriptions()))
@pytest.mark.parametrize("special_pays", [0, 3])
def test_rules_tables_are_what_thirteen_pays(preset: str, special_pays: int,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``rules --tables --json``: each row's royalty values are the engine's royalty table
    (a type not listed pays 1) and each special hand is paid what the engine pays it."""
    from splitpoker.envs.thirteen.rules import HandType
    from splitpoker.envs.thirteen.scoring import royalty_table
    from splitpoker.envs.thirteen.specials import special_payments

    sets = ["--set", f"special_pays={special_pays}"] if special_pays else []
    document = run_json(capsys, "rules", "thirteen", "--preset", preset, "--tables", *sets)
    rules = ThirteenRules.preset(preset, **({"special_pays": special_pays} if special_pays else {}))
    assert document["rules"] == rules.to_dict()
    royalties = document["tables"]["royalties"]
    expected = royalty_table(rules.royalties)
    for row, name in enumerate(("front", "middle", "back")):
        for kind in HandType:
            assert royalties[name].get(kind.name.lower(), 1) == expected[row, kind]
    hands = document["tables"]["specials"]["hands"]
    assert list(hands) == [e.name for e in rules.special_table.hands]
    for entry in rules.special_table.hands:
        assert hands[entry.name]["value"] == entry.value
        assert hands[entry.name]["paid"] == int(special_payments(np.array([entry.value]), rules)[0])


def test_rules_tables_text_and_biji(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "rules", "thirteen", "--tables")
    assert code == 0 and "royalties.back.four_of_a_kind" in out and "specials.hands.dragon.value" in out
    document = run_json(capsys, "rules", "biji", "--set", "xi_sweep=2", "--tables")
    # RULES.md 6.3's example: places 1, 2, 2, 4 in a pot: the second places pay 1 each, the last 3
    assert document["tables"]["pot_payments"] == {"place_2": 1, "place_3": 2, "place_4": 3, "place_5": 4}
    assert document["tables"]["xi"]["sweep"] == 2 and document["tables"]["xi"]["three_trips"] == 3
