"""No import cycles: every module of the package imports on its own in a fresh interpreter,
no chain of imports leads back to where it started (counting imports inside functions, not
those only for type checkers), and the pure modules (rules, cards, splits, the game
interface, the registry and the table core) import nothing beyond the standard library and
NumPy (see test_purity)."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import splitpoker.agents
import splitpoker.envs
import splitpoker.eval
import splitpoker.play
import splitpoker.runtime
import splitpoker.train

OPTIONAL = ("ray", "starlette", "uvicorn")


def _modules() -> list[str]:
    names = []
    for package in (splitpoker.runtime, splitpoker.envs, splitpoker.agents, splitpoker.eval, splitpoker.train,
                    splitpoker.play):
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


#: the longest a module of the package may be: past it, a module does more than one job
MAX_MODULE_LINES = 600


def test_no_module_is_longer_than_600_lines() -> None:
    root = Path(splitpoker.envs.__file__).resolve().parents[1]
    lengths = {str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines())
               for package in ("runtime", "envs", "agents", "eval", "train", "play")
               for path in (root / package).rglob("*.py")}
    assert len(lengths) > 100
    assert {name: n for name, n in lengths.items() if n > MAX_MODULE_LINES} == {}


@pytest.mark.parametrize("layer,forbidden", [("runtime", ("envs", "agents", "eval", "train", "play")),
                                             ("envs", ("agents", "eval", "train", "play")),
                                             ("agents", ("eval", "train", "play")), ("eval", ("train", "play"))])
def test_layers_import_only_downwards(layer: str, forbidden: tuple[str, ...]) -> None:
    """runtime ← envs ← agents ← eval ← train, and browser play on top: importing a layer
    never loads a layer above it."""
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


def _imported(module: str, tree: ast.AST, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``module`` imports anywhere in its code (functions
    included), except under ``if TYPE_CHECKING:``; ``from . import x`` counts as importing
    the submodule ``x``, not the package."""
    is_package = modules[module].name == "__init__.py"
    skipped = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
               and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = module if is_package else module.rpartition(".")[0]
            if node.level:
                base = ".".join(base.split(".")[: len(base.split(".")) - node.level + 1])
            target = ".".join(p for p in (base if node.level else "", node.module or "") if p)
            subs = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in modules]
            found.update(subs)
            if len(subs) < len(node.names):
                found.add(target)
    return {name for name in found if name in modules and name != module}


def test_no_import_cycles_counting_imports_inside_functions() -> None:
    """The import graph of the package's own modules has no cycle: a module imported inside
    a function to dodge a circular import at load time still counts."""
    modules: dict[str, Path] = {}
    for name in _modules():
        package = __import__(name, fromlist=["_"])
        modules[name] = Path(package.__file__ or "")
    graph = {name: _imported(name, ast.parse(path.read_text(encoding="utf-8")), modules)
             for name, path in modules.items() if path.suffix == ".py"}
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for nxt in sorted(graph.get(name, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (cycle := visit(name)):
            raise AssertionError("import cycle: " + " -> ".join(cycle))


def test_every_registered_trainer_is_a_class_a_config_may_name() -> None:
    from splitpoker.train.config import load_config_dict
    from splitpoker.train.run import Trainer
    from splitpoker.train.trainers import TRAINERS, trainer_class

    assert {"ppo", "fictitious_play"} <= set(TRAINERS)
    for name in TRAINERS:
        assert issubclass(trainer_class(name), Trainer)
        data = {"game": "biji", "algorithm": name} | ({} if name == "fictitious_play" else {"total_timesteps": 8})
        assert load_config_dict(data).algorithm == name


def test_names_the_run_base_took_from_ppo_still_work_with_a_warning_that_says_where() -> None:
    import splitpoker.train.launch as launch
    import splitpoker.train.ppo as ppo

    with pytest.warns(DeprecationWarning, match="splitpoker.train.launch.train"):
        assert ppo.train is launch.train
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        ppo.nothing  # noqa: B018


def test_the_seeding_helpers_the_table_core_held_still_import_from_there_with_a_warning() -> None:
    import splitpoker.envs.table as table
    import splitpoker.runtime.seeding as seeding

    for name in ("as_generator", "check_seed", "derived_seed"):
        with pytest.warns(DeprecationWarning, match=f"splitpoker.runtime.seeding.{name}"):
            assert getattr(table, name) is getattr(seeding, name)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        table.nothing  # noqa: B018
