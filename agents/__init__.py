"""Agents: random, greedy, the exhaustive solver and learned policies, built from spec
strings by :func:`load_agent`; every agent decides batches of seat views
(:class:`~splitpoker.envs.table.SeatView`). :func:`export_policy` saves a policy trained
elsewhere as a ``checkpoint:`` file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..envs.table import SeatView
from .base import Agent
from .loading import load_agent, training_extra

__all__ = ["Agent", "SeatView", "load_agent", "export_policy"]


def export_policy(model: Any, path: str | os.PathLike[str], game: Any = "thirteen", num_players: int = 4,
                  preset: str = "classic", **options: Any) -> Path:
    """Save ``model`` (a PPO or MaskablePPO model, its policy, its saved ``.zip``, or an
    ``nn.Sequential``; ``offer=K`` for a slot scorer over the offered splits) as a policy file
    that ``checkpoint:PATH`` plays, for the table of ``game``, ``num_players``, ``preset`` and
    rule switches; see
    :func:`splitpoker.agents.learned.export.export_policy`. Needs the ``[train]`` extra."""
    with training_extra("export_policy"):
        from .learned.export import export_policy as export
    return export(model, path, game, num_players, preset, **options)
