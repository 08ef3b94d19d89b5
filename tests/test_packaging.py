"""The wheel holds every package: pyproject.toml's hand-written ``[tool.setuptools] packages``
and ``package-data`` declare every folder with an ``__init__.py`` of the installed packages,
and every registered game's package with its RULES.md, so that a new package or game cannot
be left out of the wheel."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from splitpoker.envs.games import GAMES

tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")

ROOT = Path(__file__).resolve().parents[1]
#: the source folders of the installed packages
SOURCES = ("envs", "agents", "eval", "train", "play", "runtime")


@pytest.fixture(scope="module")
def setuptools() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]


def folder_of(package: str, package_dir: dict[str, str]) -> Path:
    """The source folder of a dotted package name, through ``package-dir``."""
    parts = package.split(".")
    for k in range(len(parts), 0, -1):
        top = ".".join(parts[:k])
        if top in package_dir:
            return ROOT / package_dir[top] / Path(*parts[k:])
    return ROOT / Path(*parts)


def package_of(folder: Path, package_dir: dict[str, str]) -> str:
    """The dotted package name of a source folder, through ``package-dir``."""
    relative = folder.relative_to(ROOT)
    for name, path in package_dir.items():
        try:
            rest = relative.relative_to(path)
        except ValueError:
            continue
        return ".".join((name, *rest.parts))
    return ".".join(relative.parts)


def test_package_dir_maps_the_source_folders(setuptools: dict[str, Any]) -> None:
    package_dir = setuptools["package-dir"]
    for source in SOURCES:
        assert f"splitpoker.{source}" in package_dir and package_dir[f"splitpoker.{source}"] == source


def test_every_folder_with_init_is_a_declared_package(setuptools: dict[str, Any]) -> None:
    packages, package_dir = set(setuptools["packages"]), setuptools["package-dir"]
    found = {package_of(init.parent, package_dir)
             for source in SOURCES for init in (ROOT / source).rglob("__init__.py")}
    assert {f"splitpoker.{source}" for source in SOURCES} <= found
    missing = sorted(found - packages)
    assert not missing, f"folders with an __init__.py missing from [tool.setuptools] packages: {missing}"


def test_every_declared_package_exists(setuptools: dict[str, Any]) -> None:
    package_dir = setuptools["package-dir"]
    for package in setuptools["packages"]:
        assert folder_of(package, package_dir).is_dir(), f"{package} is declared but has no folder"


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_package_and_its_rules_are_declared(game: str, setuptools: dict[str, Any]) -> None:
    package = GAMES[game].__module__.rpartition(".")[0]
    assert package.startswith("splitpoker.envs."), package
    assert package in setuptools["packages"], f"{package} is missing from [tool.setuptools] packages"
    data = setuptools.get("package-data", {}).get(package, [])
    assert "RULES.md" in data, f"{package}'s RULES.md is missing from [tool.setuptools.package-data]"
    folder = folder_of(package, setuptools["package-dir"])
    assert (folder / "RULES.md").is_file(), f"{folder / 'RULES.md'} does not exist"

