"""Registration of the environments with PettingZoo's registry (PettingZoo 1.27 and later),
by entry-point strings: nothing heavy is imported until an environment is made.

Each registered game's environment module lives in its own package (``Game.env_module``,
e.g. ``"biji.env"``); it is served as ``splitpoker.envs.<game>_v0`` (the package's lazy
attributes) and registered as ``splitpoker/<game>_v0``:

>>> ENV_MODULES[:2]
('thirteen_v0', 'biji_v0')
>>> ENV_PATHS["biji_v0"]
'splitpoker.envs.biji.env'

Registering changes PettingZoo's registry for the whole process (and needs PettingZoo 1.27),
so these two are not run as doctests:

>>> ids = register_envs()  # doctest: +SKIP
>>> import pettingzoo; env = pettingzoo.make("aec", "splitpoker/thirteen_v0")  # doctest: +SKIP
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType, ModuleType

from ..runtime.registry import Registry
from .game import Game
from .games import GAMES

#: the version of every environment: the suffix of its public name
ENV_VERSION = 0
_PACKAGE = __name__.rpartition(".")[0]


def env_name(game: type[Game]) -> str:
    """The public, versioned name of a game's environment (``thirteen_v0``)."""
    return f"{game.name}_v{ENV_VERSION}"


#: each registered game's environment module by its public name, imported when first asked for
ENVIRONMENTS: Registry[ModuleType] = Registry("environment")
for _game in GAMES.values():
    ENVIRONMENTS.register(env_name(_game), f"{_PACKAGE}.{_game.env_module}")
#: the full module path of each registered game's environment, by its public name (read-only)
ENV_PATHS: Mapping[str, str] = MappingProxyType({name: ENVIRONMENTS.entry_point(name) for name in ENVIRONMENTS})
#: the versioned environment names, one per registered game: attributes of ``splitpoker.envs``
ENV_MODULES = ENVIRONMENTS.names
#: the PettingZoo registry namespace of the environments
REGISTRY_NAMESPACE = "splitpoker"


def register_envs() -> list[str]:
    """Register every game's environment (AEC ``env`` and ``parallel_env``) with PettingZoo's
    registry as ``splitpoker/thirteen_v0``, ``splitpoker/biji_v0`` …. Returns the ids;
    an empty list when the installed PettingZoo has no registry (before 1.27). Calling it
    again changes nothing."""
    try:
        from pettingzoo import aec_registry, parallel_registry, register
    except ImportError:
        return []
    ids = []
    for name, path in ENV_PATHS.items():
        env_id = f"{REGISTRY_NAMESPACE}/{name}"
        normalised = re.sub(r"_v(?=\d+$)", "-v", env_id)
        for kind, registry, attr in (("aec", aec_registry, "env"), ("parallel", parallel_registry, "parallel_env")):
            if normalised not in registry:
                register(kind, env_id, entry_point=f"{path}:{attr}")
        ids.append(env_id)
    return ids
