"""``load_agent``: an agent built from its spec (the grammar and the registry of kinds are
:mod:`splitpoker.agents.specs`), and :func:`training_extra`, which turns a missing package
of the ``[train]`` extra into one line naming the extra.

A plain ``pip install splitpoker`` brings the rules, the environments, the agents that
learn nothing and the evaluation; learned policies (``checkpoint:``, ``pretrained:``) and
training need ``pip install 'splitpoker[train]'`` (torch, Stable-Baselines3, sb3-contrib,
TensorBoard, pydantic). Their modules import those packages at the top, and are imported
only when a learned agent is asked for.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..envs.game import Game
from ..envs.games import make_game
from ..envs.table import SeatView, split_choices
from ..runtime.seeding import check_seed
from .base import Agent, one_split
from .specs import AGENT_BUILDERS, TABLE_KEYWORDS, AgentSpec, SpecLike, bad_spec, import_keywords, parse_spec

__all__ = ["TRAINING_PACKAGES", "TRAIN_INSTALL", "MissingExtra", "load_agent", "training_extra"]

#: the packages (import names) that only the ``[train]`` extra installs
TRAINING_PACKAGES = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "pydantic")
TRAIN_INSTALL = "pip install 'splitpoker[train]'"


class MissingExtra(ValueError):
    """Something that needs the ``[train]`` extra was asked for, and ``package`` of it is not
    installed (a ValueError: one line on the command line)."""

    def __init__(self, what: str, package: str) -> None:
        super().__init__(f"{what} needs the training extra: {TRAIN_INSTALL} ({package} is not installed)")
        self.package = package


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@contextlib.contextmanager
def training_extra(what: str) -> Iterator[None]:
    """Run the body; an ImportError of a package of the ``[train]`` extra that is not
    installed becomes :class:`MissingExtra`, saying that ``what`` needs the extra."""
    try:
        yield
    except ImportError as error:
        missing = (error.name or "").partition(".")[0]
        if missing not in TRAINING_PACKAGES or _installed(missing):
            raise
        raise MissingExtra(what, missing) from None


def load_agent(spec: SpecLike, game: str | Game = "thirteen", num_players: int = 4, seed: int | None = None,
               **env_kwargs: Any) -> Agent:
    """Build the agent named by ``spec`` (text, read here, or an
    :class:`~splitpoker.agents.specs.AgentSpec`) for ``game`` (a name plus env keyword arguments such
    as ``preset`` and rule switches, or a :class:`~splitpoker.envs.game.Game`) at a table of
    ``num_players``, seeded by ``seed``."""
    parsed = parse_spec(spec)
    check_seed(seed)
    if isinstance(game, Game):
        if env_kwargs:
            raise ValueError(f"pass rule switches through the Game, not beside it: {sorted(env_kwargs)}")
        the_game = game
    else:
        the_game = make_game(game, **env_kwargs)
    num_players = the_game.check_players(num_players)
    if parsed.kind == "import":
        return _import_agent(parsed, the_game, num_players, seed)
    with training_extra(parsed.text):  # a learned agent's module imports torch and SB3
        return AGENT_BUILDERS[parsed.kind](parsed, the_game, num_players, seed)


class _ActOnly(Agent):
    """An outside agent that has only ``act(observation, action_mask, info)``, deciding a
    batch one view at a time (and, without a ``seed`` method, never reseeded)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = str(agent.name)

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        # one split a view: an integer, or a float that is a whole number (40.9 is refused, not played as 40)
        chosen = [self.agent.act(v.observation, v.action_mask, v.info()) for v in views]
        return split_choices(chosen, f"agent {self.name!r}")

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Any) -> int:
        return one_split(split_choices([self.agent.act(observation, action_mask, info)], f"agent {self.name!r}"),
                         self.name)

    def seed(self, seed: int | None) -> None:
        reseed = getattr(self.agent, "seed", None)
        if callable(reseed):
            reseed(seed)


def _import_agent(spec: AgentSpec, game: Game, num_players: int, seed: int | None) -> Agent:
    text = spec.text
    module_name, _, attr = spec.argument.partition(":")
    keywords = import_keywords(spec)
    module = _import_module(module_name, text)
    if not hasattr(module, attr):
        raise bad_spec(text, f"module {module_name!r} has no attribute {attr!r}")
    factory = getattr(module, attr)
    call = ", ".join(["game=...", "num_players=...", "seed=...", *(f"{k}={v!r}" for k, v in keywords.items())])
    if callable(factory):
        _check_call(factory, attr, spec, keywords)
        try:
            agent = factory(game=game, num_players=num_players, seed=seed, **keywords)
        except Exception as error:  # outside code: any failure is a bad spec, named
            raise bad_spec(text, f"{attr}({call}) failed: {first_line(error)}") from None
    elif keywords:
        raise bad_spec(text, f"{attr} is no class or factory, so it takes no options: write {spec.argument}")
    else:
        agent = factory
    if isinstance(agent, Agent):
        return agent
    if isinstance(getattr(agent, "name", None), str) and callable(getattr(agent, "act", None)):
        return _ActOnly(agent)
    raise bad_spec(text, f"{attr} did not give an Agent (or an object with a name and "
                   "act(observation, action_mask, info))")


def _check_call(factory: Any, attr: str, spec: AgentSpec, keywords: dict[str, Any]) -> None:
    """ValueError naming ``spec`` unless ``factory`` can be called with the table's keyword
    arguments (:data:`~.specs.TABLE_KEYWORDS`) and ``keywords``: one the factory does not take
    is named, with those it takes; one it needs and the spec lacks is named too."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return  # no signature to inspect (a builtin): try the call
    given = {**dict.fromkeys(TABLE_KEYWORDS), **keywords}
    try:
        signature.bind(**given)
        return
    except TypeError as error:
        why = str(error)
    params = signature.parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    named = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if not takes_any and any(k not in named for k in TABLE_KEYWORDS):
        raise bad_spec(spec.text, f"{attr} is not an agent class or factory: it cannot be called as "
                       f"{attr}(game=..., num_players=..., seed=...)")
    own = [n for n in named if n not in TABLE_KEYWORDS]
    unknown = [] if takes_any else [k for k in keywords if k not in named]
    if unknown:
        takes = f"its keywords: {', '.join(own)}" if own else f"it takes only {', '.join(TABLE_KEYWORDS)}"
        raise bad_spec(spec.text, f"{attr} takes no keyword argument {unknown[0]!r} ({takes})")
    needed = [n for n in own if params[n].default is params[n].empty and n not in keywords]
    if needed:
        raise bad_spec(spec.text, f"{attr} needs the option {needed[0]!r}: write {spec.argument}:{needed[0]}=VALUE")
    raise bad_spec(spec.text, f"{attr} is not an agent class or factory: it cannot be called with "
                   f"{', '.join(given)} ({why})")


def _import_module(name: str, spec: str) -> Any:
    """The module of an import spec. One that is not installed is looked for in the working
    folder too, as ``python -m`` and ``python -c`` find the modules of the folder they run
    in: when the working folder holds its top-level package (or module) and the import path
    does not, the working folder joins the end of the import path, where it shadows no
    installed package. ValueError naming ``spec`` when the module cannot be imported,
    saying where it was looked for."""
    top = name.partition(".")[0]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != top:  # a module it imports, or a part of an installed package
            raise _bad_import(spec, f"cannot import module {name!r} ({error}){_shadowed(top, error)}") from None
        missing = error
    except Exception as error:  # outside code: any failure is a bad spec, named
        raise _bad_import(spec, f"cannot import module {name!r} ({first_line(error)})") from None
    try:
        folder = os.getcwd()
    except OSError:
        folder = ""
    if not folder or importlib.machinery.PathFinder.find_spec(top, [folder]) is None:
        where = f"the working folder {folder}" if folder else "the working folder (gone)"
        raise _bad_import(spec, f"cannot import module {name!r} ({missing}): {top} is neither installed nor in "
                          f"{where}; run the command in the folder that holds {top}, or add that folder "
                          "to PYTHONPATH")
    if getattr(sys.flags, "safe_path", False):
        raise _bad_import(spec, f"cannot import module {name!r} ({missing}): the working folder {folder} holds "
                          f"{top}, but Python runs with -P or PYTHONSAFEPATH, which keeps the working folder off "
                          "the import path; add it to PYTHONPATH")
    if folder not in sys.path:
        sys.path.append(folder)
    importlib.invalidate_caches()
    try:
        return importlib.import_module(name)
    except Exception as error:  # outside code: any failure is a bad spec, named
        raise _bad_import(spec, f"cannot import module {name!r} from the working folder {folder} "
                          f"({first_line(error)})") from None


def _shadowed(top: str, error: ModuleNotFoundError) -> str:
    """What to add to the error of a module missing from the installed package ``top`` when
    the working folder holds a ``top`` of its own, which the installed one hides."""
    installed = sys.modules.get(top)
    try:
        local = importlib.machinery.PathFinder.find_spec(top, [os.getcwd()])
    except OSError:
        return ""
    if installed is None or local is None or not str(error.name or "").startswith(f"{top}."):
        return ""
    where = getattr(installed, "__file__", None) or list(getattr(installed, "__path__", []))
    if local.origin == where or (local.submodule_search_locations and list(local.submodule_search_locations) == where):
        return ""
    return (f"; the working folder's {top} is hidden by the {top} on the import path ({where}): rename yours, "
            "or put its folder first on PYTHONPATH")


def first_line(error: BaseException) -> str:
    """``error`` as its type and the first line of its message."""
    first = str(error).splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}{': ' + first if first else ''}"


def _bad_import(spec: str, why: str) -> ValueError:
    """The error of an import spec whose module cannot be imported (``why`` in full: it says
    where the module was looked for)."""
    shown = repr(spec) if len(spec) <= 80 else f"{spec[:40]!r}...{spec[-20:]!r} ({len(spec):,} characters)"
    return ValueError(f"bad agent spec {shown}: {why}")
