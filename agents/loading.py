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
import importlib.util
import inspect
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..envs.game import Game
from ..envs.games import make_game
from ..envs.table import SeatView, check_seed, split_choices
from .base import Agent, one_split
from .specs import AGENT_KINDS, SpecLike, bad_spec, parse_spec

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
        return _import_agent(parsed.text, the_game, num_players, seed)
    module_name, _, function = AGENT_KINDS[parsed.kind].builder.partition(":")
    with training_extra(parsed.text):  # a learned agent's module imports torch and SB3
        builder = getattr(importlib.import_module(f"{__package__}.{module_name}"), function)
        return builder(parsed, the_game, num_players, seed)


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


def _import_agent(spec: str, game: Game, num_players: int, seed: int | None) -> Agent:
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise bad_spec(spec, f"cannot import module {module_name!r} ({error})") from None
    if not hasattr(module, attr):
        raise bad_spec(spec, f"module {module_name!r} has no attribute {attr!r}")
    factory = getattr(module, attr)
    if callable(factory):
        try:
            inspect.signature(factory).bind(game=game, num_players=num_players, seed=seed)
        except TypeError:
            raise bad_spec(spec, f"{attr} is not an agent class or factory: it cannot be called as "
                           f"{attr}(game=..., num_players=..., seed=...)") from None
        except ValueError:
            pass  # no signature to inspect (a builtin): try the call
        try:
            agent = factory(game=game, num_players=num_players, seed=seed)
        except Exception as error:  # outside code: any failure is a bad spec, named
            first = str(error).splitlines()[0] if str(error).strip() else ""
            raise bad_spec(spec, f"{attr}(game=..., num_players=..., seed=...) failed: "
                           f"{type(error).__name__}{': ' + first if first else ''}") from None
    else:
        agent = factory
    if isinstance(agent, Agent):
        return agent
    if isinstance(getattr(agent, "name", None), str) and callable(getattr(agent, "act", None)):
        return _ActOnly(agent)
    raise bad_spec(spec, f"{attr} did not give an Agent (or an object with a name and "
                   "act(observation, action_mask, info))")
