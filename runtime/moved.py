"""Modules that moved: the old import path keeps working, each name read through it found in
the new module (imported when first asked for), with a DeprecationWarning that says where.

A module that moved leaves behind a module of two lines at its old path::

    from ..runtime.moved import moved_module

    __getattr__, __dir__ = moved_module(__name__, "splitpoker.agents.learned.checkpoint")

Every name is the new module's own object, so ``from old import name``, ``old.name`` and an
object pickled under the old path (found by module and name) give the same thing.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["moved_module"]


def moved_module(old: str, new: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of module ``old``, which moved to
    ``new``: a name of ``new`` read through ``old`` is found there, with a DeprecationWarning
    naming ``new`` (the same message for every name, so Python shows it once per place that
    reads them); any other name is an AttributeError naming ``old``."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__") and name != "__all__":
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        module = importlib.import_module(new)
        if name == "__all__":
            return getattr(module, "__all__", [n for n in vars(module) if not n.startswith("_")])
        try:
            value = getattr(module, name)
        except AttributeError:
            raise AttributeError(f"module {old!r} has no attribute {name!r}") from None
        # one message per module, so that a place that reads several names warns once
        warnings.warn(f"{old} moved to {new}; import from there", DeprecationWarning, stacklevel=2)
        return value

    def __dir__() -> list[str]:
        return sorted(vars(importlib.import_module(new)))

    return __getattr__, __dir__
