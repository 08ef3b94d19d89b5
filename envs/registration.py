"""Registration of the environments with PettingZoo's registry (PettingZoo 1.27 and later),
by entry-point strings: nothing heavy is imported until an environment is made.

>>> ids = register_envs()  # doctest: +SKIP
>>> import pettingzoo; env = pettingzoo.make("aec", "splitpoker/thirteen_v0")  # doctest: +SKIP
"""

from __future__ import annotations

import re

from .games import GAMES

#: the versioned environment modules of ``splitpoker.envs``, one per registered game
ENV_MODULES = tuple(cls.env_module for cls in GAMES.values())
#: the PettingZoo registry namespace of the environments
REGISTRY_NAMESPACE = "splitpoker"
_PACKAGE = __name__.rpartition(".")[0]


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
    for module in ENV_MODULES:
        env_id = f"{REGISTRY_NAMESPACE}/{module}"
        normalised = re.sub(r"_v(?=\d+$)", "-v", env_id)
        for kind, registry, attr in (("aec", aec_registry, "env"), ("parallel", parallel_registry, "parallel_env")):
            if normalised not in registry:
                register(kind, env_id, entry_point=f"{_PACKAGE}.{module}:{attr}")
        ids.append(env_id)
    return ids
