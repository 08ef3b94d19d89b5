"""Thirteen's variants as data (envs/thirteen/RULES.md section 9): the preset records and
tables of ``variants.json``, their validation, ``splitpoker rules thirteen --list``, and
the observation that new switches leave unchanged."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from splitpoker.envs.games import make_game
from splitpoker.envs.observation import observation_labels
from splitpoker.envs.thirteen import rules as T
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
    classic = T.royalty_table("classic")
    assert classic[0, HandType.TRIPS] == 3 and classic[1, HandType.FULL_HOUSE] == 2
    assert classic[1, HandType.FOUR_OF_A_KIND] == 8 and classic[2, HandType.FOUR_OF_A_KIND] == 4
    assert classic[1, HandType.STRAIGHT_FLUSH] == 10 and classic[2, HandType.STRAIGHT_FLUSH] == 5
    assert classic.sum() == 27 - 6 + 3 + 2 + 8 + 4 + 10 + 5
    assert (T.royalty_table("none") == 1).all()
    assert T.SPECIAL_VALUES["classic"] == {"dragon": 13, "clean_dragon": 13, "three_straights": 3,
                                           "three_flushes": 3, "six_pairs": 3}
    assert T.SPECIAL_VALUES["banker"] == {"dragon": 13, "clean_dragon": 13}
    assert T.SPECIAL_TABLES["banker"].both == "banker_pays" and T.SPECIAL_TABLES["classic"].both == "higher_wins"
    assert T.SPECIAL_VALUES["off"] == {}
    assert sum(T.SPECIAL_VALUES["shisanshui"].values()) == 108 + 36 + 24 + 20 + 20 + 10 * 3 + 6 + 4 + 4 + 3


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
    (edited("specials.classic.hands[2].test", "rainbow"), "specials.classic.hands[2].test 'rainbow' is not a special-hand test"),
    (edited("specials.classic.hands[2].value", 30), "specials.classic.hands[2].value 30 is above the value listed before it"),
    (edited("specials.classic.hands[1].name", "dragon"), "specials.classic.hands[1].name 'dragon' is listed twice"),
    (edited("specials.shisanshui.hands[2].low", "1"), "specials.shisanshui.hands[2].low must be a rank"),
    (edited("specials.shisanshui.hands[2].high", None, delete=True), "specials.shisanshui.hands[2] is missing the field 'high'"),
    (edited("specials.classic.hands[0].low", "2"), "specials.classic.hands[0].low is not a field"),
    (edited("specials.off.hands", {}), "specials.off.hands must be a list"),
    (edited("presets", {}), "presets holds no preset"),
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
