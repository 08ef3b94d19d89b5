"""The largest resource-sized values a command, a config or an evaluation may ask for, each
checked before any work starts, so that a typing slip (``--workers 100000``, ``n_envs: 2e8``)
is one line naming the value and the limit instead of a machine run out of memory."""

from __future__ import annotations

import os

#: worker processes (evaluation, labelling): each is a process with its own copy of the agents
MAX_WORKERS = max(64, 4 * (os.cpu_count() or 1))
#: deals of one evaluation, or hands labelled in one go
MAX_HANDS = 10_000_000
#: self-play tables of one run
MAX_ENVS = 65_536
#: torch CPU threads of one run
MAX_THREADS = max(64, 4 * (os.cpu_count() or 1))
#: hands a run plays or labels in all
MAX_TIMESTEPS = 10**12
