"""Values as callers and the command line give them: every check of an argument's value.

Python's ``int()`` also reads ``1_000``, ``' 7'`` and Unicode digits (``٣``), and ``float()``
reads ``1_0.5``, ``nan`` and ``inf``; a typing slip would then run with a number the user
did not write. :func:`whole_number` and :func:`decimal_number` are the argparse types of
every integer and float option of every subcommand; :func:`plain_whole` reads a number
written as text anywhere else (a rule switch given as ``--set SWITCH=VALUE``).

A value given in code or read from a file is checked here too: :func:`is_whole` (an
integer, numpy's included, but not ``True`` or ``False``), :func:`is_number` (a real number,
not a bool), :func:`is_bool` (Python's or numpy's ``True`` and ``False``) and
:func:`check_whole` (a whole number in a range, or one line naming the argument, the value
and the range). Every check of an integer argument in the package goes through them; a
value echoed by an error is cut short (:func:`shown`).

>>> whole_number("10"), decimal_number("2.5e-1")
(10, 0.25)
>>> plain_whole("010") is None
True
>>> is_whole(3), is_whole(np.int64(3)), is_whole(True), is_whole(3.0)
(True, True, False, False)
>>> check_whole(np.int64(4), "--hands", least=1)
4
>>> check_whole(0, "num_envs=", least=1, most=64)
Traceback (most recent call last):
...
ValueError: num_envs=0 must be an integer of at least 1 (at most 64)
"""

from __future__ import annotations

import argparse
import json
import numbers
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from typing_extensions import TypeIs

__all__ = ["MAX_DIGITS", "WHOLE_DECIMAL", "cut", "whole_number", "decimal_number", "plain_whole", "shown",
           "is_bool", "is_whole", "is_number", "check_whole", "named", "module_command"]

#: how a whole number must be written: ASCII decimal digits, a sign, no leading 0
WHOLE_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
#: how a number with a point or an exponent must be written
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
#: the most digits a whole number may have (Python reads at most 4,300 without a setting)
MAX_DIGITS = 4000
#: the most characters of a value an error message repeats
SHOWN_CHARS = 40


def cut(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters, else its first ``limit`` and "...".

    >>> cut("abcdef", 3)
    'abc...'
    """
    return text if len(text) <= limit else text[:limit] + "..."


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``value`` as an error message writes it: an integer (numpy's included) in plain digits,
    anything else (text included) quoted as ``repr`` does; cut to its first ``limit``
    characters (with "..." and its length) where it is longer, and an integer of more than
    ``4 * limit`` bits by its size (Python writes at most 4,300 digits).

    >>> shown("abc"), shown(np.int64(7)), shown(2**1000)
    ("'abc'", '7', 'an integer of 1,001 bits')
    >>> shown("x" * 50)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (50 characters)"
    """
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else f"{value[:limit]!r}... ({len(value):,} characters)"
    if is_whole(value) and int(value).bit_length() > 4 * limit:
        return f"an integer of {int(value).bit_length():,} bits"
    text = str(int(value)) if is_whole(value) else repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def is_bool(value: Any) -> TypeIs[bool | np.bool_]:
    """Whether ``value`` is ``True`` or ``False``, Python's or numpy's: what no number
    argument takes, though Python counts a bool as an int."""
    return isinstance(value, (bool, np.bool_))


def is_whole(value: Any) -> TypeIs[int]:
    """Whether ``value`` is an integer: a Python int or a numpy integer, not a bool."""
    return isinstance(value, numbers.Integral) and not is_bool(value)


def is_number(value: Any) -> TypeIs[float]:
    """Whether ``value`` is a real number: an int, a float or numpy's, not a bool.

    >>> is_number(2.5), is_number(np.float32(1)), is_number(False), is_number("1")
    (True, True, False, False)
    """
    return isinstance(value, numbers.Real) and not is_bool(value)


def named(name: str, value: Any) -> str:
    """``name`` and ``value`` as a message writes them: ``--workers 0`` for an option, or
    ``num_envs=0`` for a ``name`` ending in ``=`` (the value :func:`shown`).

    >>> named("--workers", 0), named("num_envs=", "4")
    ('--workers 0', "num_envs='4'")
    """
    return f"{name}{shown(value)}" if name.endswith("=") else f"{name} {shown(value)}"


def check_whole(value: Any, name: str, least: int | None = None, most: int | None = None) -> int:
    """``value`` as an int when it is an integer (:func:`is_whole`) from ``least`` to ``most``
    (None: no bound); else a ValueError of one line naming ``name`` (an option, ``--workers``,
    or a keyword, ``num_envs=``: :func:`named`), the value and the range allowed.

    >>> check_whole(True, "--seed", least=0)
    Traceback (most recent call last):
    ...
    ValueError: --seed True must be an integer of at least 0
    >>> check_whole(10**6, "--hands", 1, 1000)
    Traceback (most recent call last):
    ...
    ValueError: --hands 1000000 is more than the most allowed, 1,000
    """
    if not is_whole(value) or least is not None and value < least:
        allowed = "" if least is None else f" of at least {least}"
        if most is not None:
            allowed += f" (at most {most:,})" if allowed else f" of at most {most:,}"
        raise ValueError(f"{named(name, value)} must be an integer{allowed}")
    if most is not None and value > most:
        raise ValueError(f"{named(name, value)} is more than the most allowed, {most:,}")
    return int(value)


def plain_whole(text: str) -> int | None:
    """The whole number ``text`` writes in plain decimal digits (a sign allowed; not ``010``,
    ``1_000``, ``0x10``, ``٣``, ``1e3`` or ``10.0``, and at most :data:`MAX_DIGITS` digits);
    None when it writes none."""
    if not isinstance(text, str) or not WHOLE_DECIMAL.fullmatch(text) or len(text.lstrip("+-")) > MAX_DIGITS:
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


def module_command(parser: argparse.ArgumentParser, argv: Sequence[str] | None,
                   run: Callable[[argparse.Namespace], Any], text: Callable[[Any], str]) -> int:
    """A ``python -m splitpoker.eval.MODULE`` command: ``argv`` parsed (a bad option: one line
    and exit status 2), ``run(args)`` called and its result printed, as one JSON document
    (its ``to_dict()``) with ``--json``, else as ``text(result)``; 0, or after one line on
    stderr 2 for a ValueError (its first line) and 130 when interrupted."""
    parser.error = lambda message: parser.exit(2, f"{parser.prog}: error: {message}\n")  # type: ignore[method-assign]
    args = parser.parse_args(argv)
    try:
        result = run(args)
    except ValueError as error:
        print(f"{parser.prog}: error: {str(error).splitlines()[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    print(json.dumps(result.to_dict(), ensure_ascii=False) if getattr(args, "json", False) else text(result))
    return 0
