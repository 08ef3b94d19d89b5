"""The agent protocol and :func:`load_agent`, which builds an agent from a spec string.

An agent is any object with a ``name`` and ``act(observation, action_mask, info) -> int``:
``observation`` is the env's ``obs["observation"]`` array, ``action_mask`` its int8 mask
and ``info`` the seat's ``infos`` entry (``"hand"``: the hand as canonical card strings in
slot order, ``"seat"``, ``"num_players"``).

Specs::

    random                          uniform over valid splits
    greedy                          strongest last row, then strongest middle row
    solver[:samples=256,opponent=greedy,seed=0]   the exhaustive solver
    checkpoint:PATH                 a trained policy saved by ``splitpoker train``
    pretrained:NAME                 a policy shipped with the package
    package.module:attr             any importable agent class or factory
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..envs.cards import parse_cards
from ..envs.games import Game, make_game

SPEC_FORMS = ("random", "greedy", "solver[:samples=256,opponent=greedy,seed=0]", "checkpoint:PATH",
              "pretrained:NAME", "package.module:attr")


@runtime_checkable
class Agent(Protocol):
    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int: ...


def hand_of(info: Mapping[str, Any]) -> list[int]:
    """The hand (card ids, slot order) of an ``infos`` entry."""
    if "hand" not in info:
        raise ValueError("the agent needs info['hand'] (the seat's infos entry from the env)")
    return parse_cards(list(info["hand"]))


def parse_options(text: str) -> dict[str, str]:
    """``"samples=256,opponent=greedy"`` → dict. An option value may itself hold ``:`` (a spec)."""
    out: dict[str, str] = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"cannot read agent option {item!r}; expected key=value")
        out[key.strip()] = value.strip()
    return out


def _bad_spec(spec: str, why: str) -> ValueError:
    return ValueError(f"bad agent spec {spec!r}: {why}; valid forms: {', '.join(SPEC_FORMS)}")


def load_agent(spec: str, game: str | Game = "thirteen", num_players: int = 4, seed: int | None = None,
               **env_kwargs: Any) -> Agent:
    """Build the agent named by ``spec`` for ``game`` (a name plus env keyword arguments such
    as ``preset`` and rule switches, or a :class:`Game`)."""
    if not isinstance(spec, str) or not spec.strip():
        raise _bad_spec(str(spec), "empty")
    spec = spec.strip()
    if isinstance(game, Game):
        if env_kwargs:
            raise ValueError(f"pass rule switches through the Game, not beside it: {sorted(env_kwargs)}")
        the_game = game
    else:
        the_game = make_game(game, **env_kwargs)
    the_game.check_players(num_players)
    kind, _, rest = spec.partition(":")
    if kind == "random":
        if rest:
            raise _bad_spec(spec, "random takes no options")
        from .baselines import RandomAgent

        return RandomAgent(seed=seed)
    if kind == "greedy":
        if rest:
            raise _bad_spec(spec, "greedy takes no options")
        from .baselines import GreedyAgent

        return GreedyAgent(the_game)
    if kind == "solver":
        from .solver import SolverAgent

        options = parse_options(rest)
        return SolverAgent.from_options(the_game, num_players, options, seed=seed)
    if kind in ("checkpoint", "pretrained"):
        if not rest:
            raise _bad_spec(spec, f"{kind} needs a {'path' if kind == 'checkpoint' else 'name'}")
        from .policy import load_policy_agent

        return load_policy_agent(kind, rest, the_game, num_players)
    if ":" in spec and "." in kind:
        return _import_agent(spec, the_game, num_players, seed)
    raise _bad_spec(spec, f"unknown kind {kind!r}")


def _import_agent(spec: str, game: Game, num_players: int, seed: int | None) -> Agent:
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise _bad_spec(spec, f"cannot import module {module_name!r} ({error})") from None
    if not hasattr(module, attr):
        raise _bad_spec(spec, f"module {module_name!r} has no attribute {attr!r}")
    factory = getattr(module, attr)
    agent = factory(game=game, num_players=num_players, seed=seed) if callable(factory) else factory
    if not isinstance(agent, Agent):
        raise _bad_spec(spec, f"{attr} did not give an object with a name and act(observation, action_mask, info)")
    return agent
