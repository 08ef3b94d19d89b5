"""Moved to :mod:`splitpoker.agents.learned.networks`: each name imported from here is found there, with a
DeprecationWarning."""

from __future__ import annotations

from ..runtime.moved import moved_module

__getattr__, __dir__ = moved_module(__name__, "splitpoker.agents.learned.networks")
