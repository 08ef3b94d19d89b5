"""Values in error messages: any value echoed by a message is cut short, so that no error
line repeats a huge input whole (:func:`~splitpoker.runtime.arguments.cut`, which every
layer reaches from the run-time layer)."""

from __future__ import annotations

from ..runtime.arguments import cut

__all__ = ["cut"]
