"""No import cycles: every module of the package imports on its own in a fresh interpreter,
and the pure modules (rules, cards, splits, the game interface, the registry and the table
core) import nothing beyond the standard library and NumPy (see test_purity)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import splitpoker.agents
import splitpoker.envs
import splitpoker.eval
import splitpoker.play
import splitpoker.train

OPTIONAL = ("ray", "starlette", "uvicorn")


def _modules() -> list[str]:
    names = []
    for package in (splitpoker.envs, splitpoker.agents, splitpoker.eval, splitpoker.train, splitpoker.play):
        names.append(package.__name__)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return sorted(names)


def test_every_module_imports_on_its_own() -> None:
    code = ("import importlib, sys\n"
            "failed = []\n"
            f"for name in {_modules()!r}:\n"
            "    for loaded in [m for m in sys.modules if m.startswith('splitpoker')]:\n"
            "        del sys.modules[loaded]\n"
            "    try:\n"
            "        importlib.import_module(name)\n"
            "    except ImportError as error:\n"
            f"        if getattr(error, 'name', None) not in {OPTIONAL!r}:\n"
            "            failed.append(f'{name}: {error}')\n"
            "print('\\n'.join(failed))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", done.stdout


@pytest.mark.parametrize("layer,forbidden", [("envs", ("agents", "eval", "train", "play")),
                                             ("agents", ("eval", "train", "play")), ("eval", ("train", "play"))])
def test_layers_import_only_downwards(layer: str, forbidden: tuple[str, ...]) -> None:
    """envs ← agents ← eval ← train, and browser play on top: importing a layer never loads
    a layer above it."""
    modules = [m for m in _modules() if m.startswith(f"splitpoker.{layer}")]
    code = ("import importlib, json, sys\n"
            f"for name in {modules!r}:\n"
            "    importlib.import_module(name)\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('splitpoker'))))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.strip().splitlines()[-1]
    for above in forbidden:
        assert f'"splitpoker.{above}' not in loaded, f"splitpoker.{layer} loads splitpoker.{above}"
