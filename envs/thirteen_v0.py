# Thirteen (十三张), version 0: ``env``, ``raw_env`` and ``parallel_env``. The documentation (PettingZoo
# classic style) is the docstring of splitpoker.envs.thirteen.env, which this module shares.
from __future__ import annotations

from .thirteen import env as _env_module
from .thirteen.env import env, parallel_env, raw_env

__doc__ = _env_module.__doc__
__all__ = ["env", "parallel_env", "raw_env"]
