"""The rules layer is pure: importing the cards, the split index, both
rules engines and the game interface pulls in only the standard library and NumPy, never
gymnasium, pettingzoo or torch. Their docstring examples run as doctests."""

from __future__ import annotations

import doctest
import importlib
import json
import subprocess
import sys

import pytest

from splitpoker.envs.games import GAMES

#: every registered game's rules engine (its ``rules_class``'s module: ``splitpoker.envs.<game>.rules``)
RULES_MODULES = tuple(cls.rules_class.__module__ for cls in GAMES.values())
PURE_MODULES = (
    "splitpoker.envs.cards",
    "splitpoker.envs.splits",
    *RULES_MODULES,
    "splitpoker.envs.thirteen.specials",
    "splitpoker.envs.thirteen.scoring",
    "splitpoker.envs.games",
    "splitpoker.envs.game",
    "splitpoker.envs.registration",
    "splitpoker.envs.table",
    "splitpoker.envs.table_seats",
    "splitpoker.envs.seat_rows",
    "splitpoker.envs.seat_view",
    "splitpoker.envs.seat_games",
    "splitpoker.envs.checks",
    "splitpoker.envs.match",
    "splitpoker.envs.offered",
    "splitpoker.envs.offered_env",
    "splitpoker.runtime.seeding",
)
HEAVY = ("gymnasium", "pettingzoo", "torch")


def modules_after(statement: str) -> set[str]:
    """Top-level names of the modules loaded by a fresh interpreter that runs ``statement``."""
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return {name.split(".")[0] for name in json.loads(done.stdout.strip().splitlines()[-1])}


@pytest.fixture(scope="module")
def baseline() -> set[str]:
    return modules_after("pass")


@pytest.mark.parametrize("module", PURE_MODULES)
def test_no_heavy_imports(module: str, baseline: set[str]) -> None:
    loaded = modules_after(f"import {module}")
    assert not loaded & set(HEAVY), f"{module} imports {sorted(loaded & set(HEAVY))}"
    new = loaded - baseline
    stdlib = set(sys.stdlib_module_names)
    foreign = sorted(name for name in new if name not in stdlib and name not in ("numpy", "splitpoker")
                     and not name.startswith("_"))
    assert not foreign, f"{module} imports modules outside the standard library and NumPy: {foreign}"


def test_all_pure_modules_together() -> None:
    loaded = modules_after("\n".join(f"import {m}" for m in PURE_MODULES))
    assert not loaded & set(HEAVY)


@pytest.mark.parametrize("module", PURE_MODULES)
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} doctest(s) of {module} failed"
    assert result.attempted > 0, f"{module} has no doctest examples"
