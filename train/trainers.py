"""The registry of trainers: each ``algorithm`` a training config may name, the class that
trains it and the class of its config, each by entry point (``"package.module:Class"``) in a
:class:`~splitpoker.runtime.registry.Registry`, the idiom of every registry of the package,
so that the registry imports no trainer and a trainer's module imports only what it builds
on.

A trainer is one module and one :func:`register_trainer` line: its
:class:`~splitpoker.train.run.Trainer` subclass, and its subclass of
:class:`~splitpoker.train.config.TrainConfig` declaring its own keys of a config (their
models, checks, what a resume may change, the key that bounds a finished run); the shared
config and run code read both through this registry and never name an algorithm.

>>> sorted(TRAINERS)[:2], DEFAULT_ALGORITHM in TRAINERS
(['fictitious_play', 'ppo'], True)
"""

from __future__ import annotations

from typing import Any

from ..runtime.registry import Registry

#: the config class of a trainer that adds no key of its own
SHARED_CONFIG = "splitpoker.train.config:TrainConfig"

#: algorithm → its trainer class, in the order registered
TRAINERS: Registry[Any] = Registry("algorithm")
#: algorithm → the class of its configs
TRAINER_CONFIGS: Registry[Any] = Registry("algorithm")
#: the algorithm of a config that names none
DEFAULT_ALGORITHM = "ppo"


def register_trainer(algorithm: str, entry_point: str, config: str = SHARED_CONFIG) -> None:
    """Register the trainer class at ``entry_point`` (``"package.module:Class"``) for configs
    whose ``algorithm`` is ``algorithm``, and the class of those configs at ``config`` (a
    subclass of :class:`~splitpoker.train.config.TrainConfig` with the trainer's own keys; by
    default the shared settings only); ValueError for a name registered twice or an entry
    point of another form (nothing is registered then)."""
    TRAINERS.register(algorithm, entry_point)
    try:
        TRAINER_CONFIGS.register(algorithm, config)
    except ValueError:
        TRAINERS.unregister(algorithm)
        raise


def unregister_trainer(algorithm: str) -> None:
    """Forget the trainer of ``algorithm`` (a registration made for a while, as a test makes one)."""
    TRAINERS.unregister(algorithm)
    TRAINER_CONFIGS.unregister(algorithm)


def trainer_class(algorithm: str) -> Any:
    """The trainer class registered for ``algorithm`` (imported when asked for)."""
    return TRAINERS[algorithm]


def config_class(algorithm: str) -> Any:
    """The config class registered for ``algorithm`` (imported when asked for)."""
    return TRAINER_CONFIGS[algorithm]


register_trainer("ppo", "splitpoker.train.ppo:PPOTrainer", config="splitpoker.train.ppo_config:PPOTrainConfig")
register_trainer("fictitious_play", "splitpoker.train.fictitious:FictitiousPlayTrainer",
                 config="splitpoker.train.fictitious_config:FictitiousPlayTrainConfig")
