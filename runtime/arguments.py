"""Numbers as the command line takes them: written exactly, in plain decimal digits.

Python's ``int()`` also reads ``1_000``, ``' 7'`` and Unicode digits (``٣``), and ``float()``
reads ``1_0.5``, ``nan`` and ``inf``; a typing slip would then run with a number the user
did not write. :func:`whole_number` and :func:`decimal_number` are the argparse types of
every integer and float option of every subcommand; :func:`plain_whole` reads a number
written as text anywhere else (a rule switch given as ``--set SWITCH=VALUE``). A value
echoed by an error is cut short (:func:`shown`).

>>> whole_number("10"), decimal_number("2.5e-1")
(10, 0.25)
>>> plain_whole("010") is None
True
"""

from __future__ import annotations

import argparse
import re

__all__ = ["MAX_DIGITS", "whole_number", "decimal_number", "plain_whole", "shown"]

#: how a whole number must be written: ASCII decimal digits, a sign, no leading 0
_WHOLE = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
#: how a number with a point or an exponent must be written
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
#: the most digits a whole number may have (Python reads at most 4,300 without a setting)
MAX_DIGITS = 4000
#: the most characters of a value an error message repeats
SHOWN_CHARS = 40


def shown(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` quoted as ``repr`` does, cut to its first ``limit`` characters (with "..." and
    its length) where it is longer, for an error message."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text):,} characters)"


def plain_whole(text: str) -> int | None:
    """The whole number ``text`` writes in plain decimal digits (a sign allowed; not ``010``,
    ``1_000``, ``0x10``, ``٣``, ``1e3`` or ``10.0``, and at most :data:`MAX_DIGITS` digits);
    None when it writes none."""
    if not isinstance(text, str) or not _WHOLE.fullmatch(text) or len(text.lstrip("+-")) > MAX_DIGITS:
        return None
    return int(text)


def whole_number(text: str) -> int:
    """An argparse type: a whole number written in decimal digits, without a leading 0
    (``10``; not ``010``, ``1_000``, ``0x10``, ``1e3`` or ``10.0``)."""
    value = plain_whole(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"invalid int value: {shown(text)}; write a whole number in decimal "
                                         "digits, without a leading 0, '_', a point or an exponent")
    return value


def decimal_number(text: str) -> float:
    """An argparse type: a finite number written in decimal digits, with a point and an
    exponent if any (``2.5``, ``1e-3``; not ``1_0``, ``nan`` or ``inf``)."""
    if not _DECIMAL.fullmatch(text) or abs(float(text)) == float("inf"):
        raise argparse.ArgumentTypeError(f"invalid float value: {shown(text)}; write a number in decimal digits, "
                                         "such as 30 or 2.5")
    return float(text)
