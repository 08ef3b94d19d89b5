"""Cards, rules engines and PettingZoo environments of the arrangement games (Thirteen 十三张,
Biji 比机, and every game registered in :mod:`splitpoker.envs.games`).

The environment modules load on first use, so importing the pure modules (``cards``,
``splits``, the rules engines) never imports gymnasium, pettingzoo or torch::

    from splitpoker.envs import thirteen_v0, biji_v0

    env = thirteen_v0.env(num_players=4, preset="classic")

Each registered game's environment module lives in its own package (``Game.env_module``,
e.g. ``splitpoker.envs.biji.env``) and is served here as ``<game>_v0``.
:func:`register_envs` adds ``splitpoker/thirteen_v0``, ``splitpoker/biji_v0`` … to
PettingZoo's registry (``pettingzoo.make("aec", "splitpoker/thirteen_v0")``); importing an
environment module registers them too.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from .registration import ENV_MODULES, ENV_PATHS, ENVIRONMENTS, REGISTRY_NAMESPACE, register_envs

__all__ = [*ENV_MODULES, "ENV_MODULES", "ENV_PATHS", "ENVIRONMENTS", "REGISTRY_NAMESPACE", "register_envs"]


def __getattr__(name: str) -> ModuleType:
    if name in ENVIRONMENTS:
        # a module of that name here (the shims thirteen_v0.py and biji_v0.py, kept so that
        # ``import splitpoker.envs.biji_v0`` works), else the game's own environment module
        own = f"{__name__}.{name}"
        module = importlib.import_module(own) if importlib.util.find_spec(own) is not None else ENVIRONMENTS[name]
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(ENV_MODULES))
