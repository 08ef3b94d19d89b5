"""What browser play's server gives the page to speak for itself and to help arrange: a
stable code and values for every refusal (and the page's words for each, in both
languages), the pickers' groups of the hand (jokers included), the two rows whose exchange
mends an invalid arrangement, suggestions that differ in structure, and the page's
Chinese font."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette")

from splitpoker.envs.cards import canonical_slots, parse_cards  # noqa: E402
from splitpoker.envs.games import make_game  # noqa: E402
from splitpoker.play import make_font  # noqa: E402
from splitpoker.play.pickers import groups, pickers  # noqa: E402
from splitpoker.play.session import different_structures, fixing_swap  # noqa: E402
from tests.test_play_api import client_for, new_match  # noqa: E402

PLAY = Path(__file__).resolve().parents[1] / "play"


# ---------------------------------------------------------------------------- codes

def refusals() -> dict[str, set[str]]:
    """Every code the server's modules refuse with (``RequestError(status, message, code,
    **params)`` and ``_error(status, message, code, **params)``), with its params' names."""
    found: dict[str, set[str]] = {}
    for name in ("session.py", "server.py"):
        for node in ast.walk(ast.parse((PLAY / name).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("RequestError", "_error"):
                if node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "status":
                    continue  # the one that forwards a refusal made elsewhere
                assert len(node.args) >= 3 and isinstance(node.args[2], ast.Constant), ast.unparse(node)
                found.setdefault(node.args[2].value, set()).update(k.arg for k in node.keywords if k.arg != "headers")
    return found


def page_errors() -> dict[str, dict[str, str]]:
    """The page's words for each code, by language (``ERRORS`` in ``static/words.js``)."""
    text = (PLAY / "static" / "words.js").read_text(encoding="utf-8")
    block = text[text.index("const ERRORS = {"):]
    words: dict[str, dict[str, str]] = {}
    for lang in ("en", "zh"):
        part = block[block.index(f"  {lang}: {{"):]
        part = part[:part.index("\n  },")]
        words[lang] = dict(re.findall(r'^\s+(\w+): "((?:[^"\\]|\\.)*)",$', part, flags=re.M))
    return words


def test_every_refusal_has_a_code_the_page_says_in_both_languages() -> None:
    codes = refusals()
    assert {"stale_hand", "time_not_up", "no_more_hints", "match_over", "not_your_match", "internal"} <= set(codes)
    words = page_errors()
    for code, params in codes.items():
        for lang in ("en", "zh"):
            assert code in words[lang], (code, lang)
            named = set(re.findall(r"\{(\w+)\}", words[lang][code]))
            assert named <= params | {"message"}, (code, lang, named - params)
    for lang in ("en", "zh"):  # nothing the server does not send, but the page's own "offline"
        assert set(words[lang]) == set(codes) | {"offline"}
    assert not any(re.search(r"[A-Za-z]{2,}", re.sub(r"\{\w+\}", "", text)) for text in words["zh"].values())


@pytest.mark.parametrize("path, body, status, code, params", [
    ("auto", {"hand": 1}, 409, "stale_hand", {"hand": 1, "current": 0}),
    ("submit", {"hand": 0, "rows": [["3d"], [], []]}, 400, "row_size", {"row": 0, "cards": 1, "size": 3}),
    ("submit", {"hand": 0}, 400, "missing_field", {"field": "rows"}),
    ("hint", {"hand": "0"}, 400, "not_a_hand", {}),
    ("timeout", {"hand": 0}, 409, "no_time_limit", {}),
    ("dance", {"hand": 0}, 404, "unknown_action", {}),
])
def test_a_refusal_answers_its_code_and_values(path: str, body: Any, status: int, code: str,
                                               params: dict[str, Any]) -> None:
    client = client_for(game="thirteen", players=2, hands=2, seed=3)
    match_id = new_match(client)["id"]
    response = client.post(f"/api/matches/{match_id}/{path}", json=body)
    assert response.status_code == status
    answer = response.json()
    assert answer["code"] == code and answer["params"] == params and answer["error"]
    assert client.get("/api/matches/nope").json()["code"] == "unknown_match"
    assert client.get("/nowhere").json()["code"] == "no_such_page"
    assert client.delete("/").json()["code"] == "method_not_allowed"


def test_the_rows_given_are_named_by_code() -> None:
    client = client_for(game="thirteen", hands=2, seed=3)
    state = new_match(client)
    cards = state["hand"]["cards"]  # 3d 6c 6d 6s 7c 7d 7h Tc Td Jd Qh Kd Kh
    rows = [cards[:3], cards[3:8], cards[8:]]
    rows[0][0] = "As"
    answer = client.post(f"/api/matches/{state['id']}/check", json={"hand": 0, "rows": rows}).json()
    assert answer["code"] == "card_not_in_hand" and answer["params"] == {"card": "As"}
    foul = [["Kd", "Kh", "3d"], ["6c", "7c", "Tc", "Jd", "Qh"], ["6d", "6s", "7d", "7h", "Td"]]
    answer = client.post(f"/api/matches/{state['id']}/submit", json={"hand": 0, "rows": foul}).json()
    assert answer["code"] == "invalid_submit" and answer["params"] == {"invalid": "foul (倒水)"}


# ---------------------------------------------------------------------------- helping to arrange

def test_pickers_offer_every_row_type_a_row_can_hold() -> None:
    thirteen = pickers(make_game("thirteen"))
    assert {"full_house", "four_of_a_kind", "straight_flush"} <= set(thirteen[1]) == set(thirteen[2])
    assert thirteen[0] == ["pair", "trips"]
    assert pickers(make_game("biji"))[0] == ["pair", "straight", "flush", "straight_flush", "trips"]


def test_groups_hold_the_cards_that_make_each_type_jokers_included() -> None:
    thirteen = groups(make_game("thirteen"), parse_cards("2c 2d 2h 2s 5c 5d 5h Kc Kd 9s Ts Js Qs"))
    assert thirteen[5]["four_of_a_kind"] == [["2c", "2d", "2h", "2s"]]
    assert ["5c", "5d", "5h", "Kc", "Kd"] in thirteen[5]["full_house"]
    assert thirteen[3]["trips"][0] == ["5c", "5d", "5h"]
    assert thirteen[5]["pair"][0] == ["Kc", "Kd"]  # the strongest first, one a rank
    biji = make_game("biji")
    hand = parse_cards("BJ RJ 4d 9d 2c 7s 7h Kc Qh")
    found = groups(biji, hand)[3]
    assert ["BJ", "RJ"] in found["pair"]  # the joker pair
    assert ["RJ", "4d", "9d"] in found["flush"]  # a joker stands in a flush of its colour
    # what the solver suggests with a joker flush, the flush picker finds
    rows = [parse_cards("2c 7s 7h"), parse_cards("Kc Qh BJ"), parse_cards("RJ 4d 9d")]
    assert biji.describe_rows(rows)[2] == "flush"


def test_the_state_carries_the_groups_by_row_size() -> None:
    client = client_for(game="thirteen", seed=3)
    hand = new_match(client)["hand"]
    assert set(hand["groups"]) == {"3", "5"}
    assert hand["groups"]["5"]["full_house"][0] == ["7c", "7d", "7h", "Kd", "Kh"]
    assert hand["groups"]["3"]["pair"][0] == ["Kd", "Kh"]
    biji = new_match(client_for(game="biji", players=3, seed=1))["hand"]
    assert set(biji["groups"]) == {"3"} and set(biji["groups"]["3"]) == set(pickers(make_game("biji"))[0])


def test_an_exchange_of_two_rows_that_mends_the_arrangement_is_named() -> None:
    thirteen = make_game("thirteen")
    swapped = [parse_cards("3d Tc Jd"), parse_cards("6c 6d 6s 7h Td"), parse_cards("7c 7d Kd Kh Qh")]
    assert fixing_swap(thirteen, swapped, {"rows": [1, 2], "relation": "beats"}) == [1, 2]
    front = [parse_cards("Kd Kh 3d"), parse_cards("6c 7c Tc Jd Qh"), parse_cards("6d 6s 7d 7h Td")]
    assert fixing_swap(thirteen, front, {"rows": [0, 1], "relation": "beats"}) is None  # 3 cards and 5
    biji = make_game("biji")
    assert fixing_swap(biji, [parse_cards("5c 5d 2h"), parse_cards("3c 4d 9h"), parse_cards("Ac Ad Ah")],
                       {"rows": [0, 1], "relation": "beats"}) == [0, 1]
    assert fixing_swap(biji, [parse_cards("Ac Ad Ah"), parse_cards("5c 5d 2h"), parse_cards("3c 4d 9h")],
                       {"rows": [0, 1], "relation": "beats"}) is None  # pot 1 would still beat pot 3
    client = client_for(game="thirteen", seed=3)
    state = new_match(client)
    rows = [["3d", "Tc", "Jd"], ["6c", "6d", "6s", "7h", "Td"], ["7c", "7d", "Kd", "Kh", "Qh"]]
    check = client.post(f"/api/matches/{state['id']}/check", json={"hand": 0, "rows": rows}).json()
    assert not check["valid"] and check["order"]["rows"] == [1, 2] and check["swap"] == [1, 2]


def test_suggestions_keep_the_best_split_of_each_structure() -> None:
    game = make_game("thirteen")
    slots = np.array(canonical_slots(parse_cards("3d 6c 6d 6s 7c 7d 7h Tc Td Jd Qh Kd Kh")))
    valid = np.flatnonzero(game.valid_mask(slots))
    ranking = [(int(split), float(-k)) for k, split in enumerate(valid[:400])]
    first: dict[tuple[str, ...], tuple[int, float]] = {}
    for split, ev in ranking:  # the first split of each structure, in the ranking's order
        first.setdefault(tuple(game.describe_rows(game.arrangement(slots.tolist(), split))), (split, ev))
    assert len(first) > 5
    assert different_structures(game, slots, ranking, 5) == list(first.values())[:5]
    assert different_structures(game, slots, [], 5) == []


# ---------------------------------------------------------------------------- the font

def test_the_font_holds_every_chinese_character_shown() -> None:
    pytest.importorskip("brotli")
    from fontTools.ttLib import TTFont

    font = TTFont(str(make_font.FONT))
    covered = set(chr(code) for code in font.getBestCmap())
    missing = [char for char in make_font.shown_characters() if char not in covered]
    assert not missing, f"run python -m splitpoker.play.make_font: {''.join(missing)} missing from the font"
    assert font["name"].getDebugName(1) == make_font.FAMILY  # renamed, as the licence asks of a modified version
    assert make_font.FONT.stat().st_size < 300_000
    assert "SIL OPEN FONT LICENSE Version 1.1" in (make_font.STATIC / "OFL.txt").read_text(encoding="utf-8")
    css = (make_font.STATIC / "play.css").read_text(encoding="utf-8")
    assert 'url("/static/cjk.woff2")' in css and f'font-family: "{make_font.FAMILY}"' in css
    assert "十" in make_font.shown_characters() and "头" in make_font.shown_characters()
