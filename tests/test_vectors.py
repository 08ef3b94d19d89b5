"""Known-answer rule vectors (``tests/data/*.jsonl``) against
the engine: compare, valid, score and splits vectors of both games."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from splitpoker.envs.cards import format_cards, parse_cards
from splitpoker.envs.games import make_game
from splitpoker.envs.thirteen import rules as thirteen

HERE = Path(__file__).resolve().parent
#: the vector files that travel with the repository
FOLDERS = (HERE / "data",)
FILES = ("thirteen.jsonl", "biji.jsonl")


def load_vectors() -> list[Any]:
    """Every vector (a vector present twice counts once)."""
    seen: set[str] = set()
    params = []
    for folder in FOLDERS:
        for name in FILES:
            path = folder / name
            if not path.is_file():
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if not line.strip() or line in seen:
                    continue
                seen.add(line)
                params.append(pytest.param(json.loads(line), id=f"{folder.name}/{name}:{number}"))
    return params


VECTORS = load_vectors()


def test_vectors_are_present() -> None:
    assert (HERE / "data" / "thirteen.jsonl").is_file() and (HERE / "data" / "biji.jsonl").is_file()
    kinds = {(v.values[0]["game"], v.values[0]["kind"]) for v in VECTORS}
    assert kinds >= {("thirteen", "compare"), ("thirteen", "valid"), ("thirteen", "score"), ("thirteen", "splits"),
                     ("biji", "compare"), ("biji", "score"), ("biji", "splits")}


def strength(game: Any, text: str) -> int:
    return int(game.row_strengths(np.sort(np.asarray(parse_cards(text), dtype=np.intp))[None])[0])


@pytest.mark.parametrize("vector", VECTORS)
def test_vector(vector: dict[str, Any]) -> None:
    game = make_game(vector["game"], vector["preset"])
    kind = vector["kind"]
    if kind == "compare":
        a, b = strength(game, vector["a"]), strength(game, vector["b"])
        assert (a > b) - (a < b) == vector["result"]
    elif kind == "valid":
        assert thirteen.is_valid(game.parse_arrangement(vector["hand"]), game.rules) == vector["valid"]
    elif kind == "score":
        result = game.score([game.parse_arrangement(hand) for hand in vector["hands"]])
        assert [float(p) for p in result.payoffs] == vector["payoffs"]
        for field in ("fouled", "specials", "xi"):
            if field in vector:
                assert list(getattr(result, field)) == vector[field], field
    elif kind == "splits":
        slots = game.slots(parse_cards(vector["hand"]))
        assert format_cards(slots).split() == vector["slots"]
        valid = np.flatnonzero(game.valid_mask(slots)).tolist()
        if "valid" in vector:
            assert valid == vector["valid"]
        if "valid_count" in vector:
            assert len(valid) == vector["valid_count"]
            assert valid[:20] == vector["valid_first"] and valid[-20:] == vector["valid_last"]
    else:
        pytest.fail(f"unknown vector kind {kind!r}")
