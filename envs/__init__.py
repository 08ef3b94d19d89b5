"""Cards, rules engines and PettingZoo environments of Thirteen (十三张) and Biji (比机).

The environment modules load on first use, so importing the pure modules (``cards``,
``splits``, the rules engines) never imports gymnasium, pettingzoo or torch::

    from splitpoker.envs import thirteen_v0, biji_v0

    env = thirteen_v0.env(num_players=4, preset="classic")

:func:`register_envs` adds ``splitpoker/thirteen_v0`` and ``splitpoker/biji_v0`` to
PettingZoo's registry (``pettingzoo.make("aec", "splitpoker/thirteen_v0")``); importing an
environment module registers them too.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .registration import ENV_MODULES, REGISTRY_NAMESPACE, register_envs

__all__ = [*ENV_MODULES, "ENV_MODULES", "REGISTRY_NAMESPACE", "register_envs"]


def __getattr__(name: str) -> ModuleType:
    if name in ENV_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(ENV_MODULES))
