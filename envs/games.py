"""The registry of games: the one place that lists them.

Every game is a package under ``envs/`` whose ``game`` module defines a
:class:`~splitpoker.envs.game.Game` subclass; :data:`GAMES` registers it by name, and
everything that needs the list of games reads it from here: the command line's choices,
config validation, policy lookups, the solver's engine and the PettingZoo registration. A
third game is one new package (``rules``, ``game``, ``env`` modules and RULES.md, with the
package and RULES.md declared in pyproject.toml) and one :meth:`~splitpoker.runtime.registry.Registry.register`
line below. Pure: standard library and NumPy; a game's modules are imported when it is first asked for.

>>> {'biji', 'thirteen'} <= set(GAMES)
True
>>> game = make_game("biji", preset="no-jokers")
>>> game.n_actions, game.hand_size, game.players
(1680, 9, (2, 5))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..runtime.registry import Registry
from .game import Game, Outcomes, Score
from .switches import RuleSwitches

__all__ = ["GAMES", "Game", "Outcomes", "Score", "check_game", "game_class", "game_names", "make_rules",
           "make_game", "game_of"]

#: every game by name: its :class:`Game` subclass, imported when first asked for
GAMES: Registry[type[Game]] = Registry("game")
GAMES.register("thirteen", "splitpoker.envs.thirteen.game:ThirteenGame")
GAMES.register("biji", "splitpoker.envs.biji.game:BijiGame")


def game_names() -> tuple[str, ...]:
    """The registered games' names."""
    return GAMES.names


def check_game(name: Any) -> str:
    """``name`` when it names a registered game; else ValueError listing the games."""
    return GAMES.check(name)


def game_class(name: str) -> type[Game]:
    """The :class:`Game` subclass registered as ``name``."""
    return GAMES[name]


def make_rules(game: str, preset: str = "classic", switches: Mapping[str, Any] | None = None) -> RuleSwitches:
    """The rules of ``game``: a preset with switches overridden."""
    return game_class(game).rules_class.preset(preset, **dict(switches or {}))


def make_game(game: str, preset: str = "classic", **switches: Any) -> Game:
    """A :class:`Game` for ``game`` under a preset and switch overrides."""
    return game_class(game)(make_rules(game, preset, switches))


def game_of(rules: RuleSwitches) -> Game:
    """The :class:`Game` of a rules object."""
    return game_class(rules.GAME)(rules)
