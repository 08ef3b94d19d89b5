"""The registry of trainers: each ``algorithm`` a training config may name and the class
that trains it, by entry point (``"module:Class"``, as gymnasium registers environments),
so that the registry imports no trainer and a trainer's module imports only what it builds
on. A new trainer is one module and one :func:`register_trainer` line here."""

from __future__ import annotations

import importlib
from typing import Any

#: algorithm → entry point of its trainer class
TRAINERS: dict[str, str] = {}


def register_trainer(algorithm: str, entry_point: str) -> None:
    """Register the trainer class at ``entry_point`` (``"package.module:Class"``) for configs
    whose ``algorithm`` is ``algorithm``; ValueError for a name registered twice."""
    if algorithm in TRAINERS:
        raise ValueError(f"a trainer for algorithm {algorithm!r} is already registered ({TRAINERS[algorithm]})")
    if entry_point.count(":") != 1:
        raise ValueError(f"entry point {entry_point!r} is not 'package.module:Class'")
    TRAINERS[algorithm] = entry_point


def trainer_class(algorithm: str) -> Any:
    """The trainer class registered for ``algorithm`` (imported when asked for)."""
    if algorithm not in TRAINERS:
        raise ValueError(f"no trainer for algorithm {algorithm!r}; algorithms: {', '.join(TRAINERS)}")
    module, name = TRAINERS[algorithm].split(":")
    return getattr(importlib.import_module(module), name)


register_trainer("ppo", "splitpoker.train.ppo:PPOTrainer")
register_trainer("fictitious_play", "splitpoker.train.fictitious:FictitiousPlayTrainer")
