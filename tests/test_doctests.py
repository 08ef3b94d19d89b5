"""Every docstring example runs: each module of the package (``envs``, ``agents``, ``train``,
``eval``, ``play``, ``runtime``) and of the slow references in ``tests/reference`` that
holds a ``>>>`` line is a test of its own. Each ``>>>`` line written must be an example
that doctest collects (none hidden where doctest does not look), and each example must
give what it shows (``...`` and runs of white space match loosely).

A module that needs an extra that is not installed (``[train]``: torch …, ``[play]``:
Starlette …) is skipped, naming the extra.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path
from types import ModuleType

import pytest

from splitpoker.agents.loading import TRAINING_PACKAGES

PACKAGES = ("envs", "agents", "train", "eval", "play", "runtime")
ROOT = Path(__file__).resolve().parents[1]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
#: the extra that installs each optional package a module may import
EXTRAS = {**dict.fromkeys(TRAINING_PACKAGES, "train"), "starlette": "play", "uvicorn": "play"}


def _prompts(path: Path) -> int:
    """The ``>>>`` lines written in the file at ``path``."""
    return sum(line.lstrip().startswith(">>>") for line in path.read_text(encoding="utf-8").splitlines())


def _modules_with_examples() -> list[str]:
    """The dotted names of the modules with at least one ``>>>`` line, package by package."""
    folders = [(f"splitpoker.{name}", Path(importlib.import_module(f"splitpoker.{name}").__path__[0]))
               for name in PACKAGES]
    folders.append(("tests.reference", ROOT / "tests" / "reference"))
    names = []
    for prefix, folder in folders:
        for path in sorted(folder.rglob("*.py")):
            if _prompts(path):
                parts = path.relative_to(folder).with_suffix("").parts
                names.append(".".join((prefix, *parts[: -1 if parts[-1] == "__init__" else None])))
    return names


MODULES = _modules_with_examples()


def _import(name: str) -> ModuleType:
    """The module ``name``; the test is skipped when it needs an extra that is not installed."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        extra = EXTRAS.get((error.name or "").partition(".")[0])
        if extra is None:
            raise
        pytest.skip(f"{name} needs the [{extra}] extra ({error.name} is not installed)")


def test_the_package_has_examples() -> None:
    assert len(MODULES) >= 20 and "splitpoker.envs.table" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_examples(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = _import(name)
    tests = [test for test in doctest.DocTestFinder().find(module) if test.examples]
    written = _prompts(Path(module.__file__ or ""))
    collected = sum(len(test.examples) for test in tests)
    assert collected == written, f"{name}: {written} '>>>' lines written, {collected} examples collected"
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    for test in tests:
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
