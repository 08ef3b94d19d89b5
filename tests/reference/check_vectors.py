"""Run every rule vector in ``tests/data/*.jsonl`` through the reference implementations.

Usage, from the repository root::

    python -m tests.reference.check_vectors [VECTOR_DIR]
    python tests/reference/check_vectors.py [VECTOR_DIR]

Prints each mismatch and a summary per file and kind; exits 1 if anything mismatched.
The vector directory defaults to ``$SPLITPOKER_VECTORS`` or ``tests/data``.
"""

from __future__ import annotations

import importlib
import itertools
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

if __package__ in (None, ""):  # run as a plain script: make `tests.reference` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

DEFAULT_DIR = Path(os.environ.get("SPLITPOKER_VECTORS", Path(__file__).resolve().parents[1] / "data"))
#: every game's reference implementation, by name: each ``tests/reference/<game>_ref.py`` (written from
#: the game's RULES.md, independent of the project's code)
GAMES: dict[str, ModuleType] = {
    path.stem.removesuffix("_ref"): importlib.import_module(f"tests.reference.{path.stem}")
    for path in sorted(Path(__file__).resolve().parent.glob("*_ref.py"))
}
#: the row sizes of the split index (section 4) of the games whose reference module names none (``ROW_SIZES``)
ROW_SIZES: dict[str, tuple[int, int, int]] = {"thirteen": (3, 5, 5), "biji": (3, 3, 3)}


def parse_hand(game: ModuleType, text: str) -> tuple[list[Any], ...]:
    """``"row | row | row"`` into three card lists."""
    return tuple(game.parse(part) for part in text.split("|"))


def valid_split_indices(game_name: str, slots: Sequence[Any], r: dict[str, Any]) -> list[int]:
    """All action indices of section 4 whose split is valid, by brute force."""
    game = GAMES[game_name]
    n = len(slots)
    first_size, second_size, _ = getattr(game, "ROW_SIZES", None) or ROW_SIZES[game_name]
    second_count = len(list(itertools.combinations(range(n - first_size), second_size)))
    valid = []
    for first_pos, first in enumerate(itertools.combinations(range(n), first_size)):
        rest = [i for i in range(n) if i not in first]
        for second_pos, second_local in enumerate(
            itertools.combinations(range(len(rest)), second_size)
        ):
            second = [rest[i] for i in second_local]
            third = [i for i in rest if i not in second]
            rows = ([slots[i] for i in part] for part in (first, second, third))
            if game.is_valid(*rows, r):
                valid.append(first_pos * second_count + second_pos)
    return valid


def check_one(vector: dict[str, Any]) -> list[str]:
    """Problems found for one vector (empty list when it passes)."""
    game_name = vector["game"]
    if game_name not in GAMES:
        return [f"no reference implementation of game {game_name!r} (tests/reference/{game_name}_ref.py)"]
    game = GAMES[game_name]
    r = game.rules(vector["preset"])
    kind = vector["kind"]
    problems: list[str] = []

    def expect(what: str, got: Any, want: Any) -> None:
        if got != want:
            problems.append(f"{what}: reference {got!r}, vector {want!r}")

    if kind == "compare":
        a, b = game.parse(vector["a"]), game.parse(vector["b"])
        expect("compare(a, b)", game.compare(a, b, r), vector["result"])
        expect("compare(b, a)", game.compare(b, a, r), -vector["result"])
    elif kind == "valid":
        expect("is_valid", game.is_valid(*parse_hand(game, vector["hand"]), r), vector["valid"])
    elif kind == "score":
        hands = [parse_hand(game, text) for text in vector["hands"]]
        result = game.score(hands, r)
        expect("payoffs", [float(x) for x in result["payoffs"]], vector["payoffs"])
        for field in ("fouled", "specials", "xi"):
            if field in vector:
                expect(field, result[field], vector[field])
        expect("zero-sum", abs(sum(result["payoffs"])) < 1e-9, True)
    elif kind == "splits":
        slots = game.canonical_slots(game.parse(vector["hand"]))
        expect("slots", [game.card_str(c) for c in slots], vector["slots"])
        valid = valid_split_indices(game_name, slots, r)
        if "valid" in vector:
            expect("valid indices", valid, vector["valid"])
        if "valid_count" in vector:
            expect("valid count", len(valid), vector["valid_count"])
            expect("first 20", valid[:20], vector["valid_first"])
            expect("last 20", valid[-20:], vector["valid_last"])
    else:
        problems.append(f"unknown kind {kind!r}")
    return problems


def run(directory: Path, out: Callable[[str], None] = print) -> int:
    """Check every vector file in ``directory``; returns the number of failing vectors."""
    failures = 0
    files = sorted(directory.glob("*.jsonl"))
    if not files:
        out(f"no *.jsonl files in {directory}")
        return 1
    for path in files:
        passed: Counter[str] = Counter()
        failed: Counter[str] = Counter()
        with path.open(encoding="utf-8") as handle:
            for line_number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                vector = json.loads(line)
                tag = f"{vector['kind']}/{vector['preset']}"
                problems = check_one(vector)
                if problems:
                    failed[tag] += 1
                    failures += 1
                    out(
                        f"MISMATCH {path.name}:{line_number} {json.dumps(vector, ensure_ascii=False)[:300]}"
                    )
                    for problem in problems:
                        out(f"    {problem}")
                else:
                    passed[tag] += 1
        for tag in sorted(set(passed) | set(failed)):
            out(f"{path.name:16} {tag:22} passed {passed[tag]:3}  failed {failed[tag]:3}")
    out("all vectors pass" if failures == 0 else f"{failures} vector(s) mismatched")
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    directory = Path(args[0]) if args else DEFAULT_DIR
    return 1 if run(directory) else 0


if __name__ == "__main__":
    sys.exit(main())
