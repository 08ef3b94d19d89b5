"""The base of every section of a training config: unknown keys refused, values read exactly.

:class:`Section` is a pydantic model that forbids unknown keys, infinities and NaN, and reads
every value exactly: a whole number in decimal digits (not ``8.0`` or the text ``'10'``), a
bool as true or false (not ``yes`` or 1), a number given as text in plain decimals
(``3e-4``). The shared sections (:mod:`.config`) and each trainer's own
(:mod:`.ppo_config`, :mod:`.fictitious_config`) build on it; :func:`shown` cuts a value an
error message echoes.
"""

from __future__ import annotations

import re
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from ..envs.messages import cut


class Section(BaseModel):
    """A section of a training config (the config itself is one): no unknown key, every value exact."""

    # allow_inf_nan: .inf, -.inf and .nan are no number of a config (a run would train on NaN)
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        """A number is never given as true or false (pydantic would read them as 1 and 0)."""
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, bool) for v in values) and info.field_name is not None \
                and _numeric(cls.model_fields[info.field_name].annotation):
            raise ValueError("true or false is not a number")
        return value

    @field_validator("*", mode="before")
    @classmethod
    def _exact(cls, value: Any, info: ValidationInfo) -> Any:
        """A whole number is an integer (not 8.0 or the text '10'), true or false a bool (not
        'yes' or 1), and a number given as text is plain decimal (``3e-4``, which YAML reads as
        text); pydantic would read each of those loosely."""
        kind = None if info.field_name is None else _scalar_kind(cls.model_fields[info.field_name].annotation)
        for item in value if isinstance(value, list) else [value]:
            problem = None if kind is None or item is None else _inexact(item, kind)
            if problem:
                raise ValueError(problem)
        return value


def _numeric(annotation: Any) -> bool:
    """Whether a field's type takes numbers and not bools: int or float, optional or in a list."""
    if annotation in (int, float):
        return True
    args = get_args(annotation)
    return bool(args) and bool not in args and any(_numeric(a) for a in args)


def _scalar_kind(annotation: Any) -> type | None:
    """``int``, ``float`` or ``bool`` for a field of that type (optional or in a list), else None."""
    if annotation in (int, float, bool):
        return annotation
    kinds = {kind for kind in map(_scalar_kind, get_args(annotation)) if kind is not None}
    return kinds.pop() if len(kinds) == 1 else None


#: how a number given as text must read: decimal digits, a point and an exponent
_PLAIN_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _inexact(value: Any, kind: type) -> str | None:
    """Why ``value`` is no exact value of a ``kind`` setting (None when it is one, or when
    pydantic's own check says better what is wrong with it)."""
    if isinstance(value, bool):
        return None if kind is bool else "true or false is not a number"
    if kind is bool:
        return "write true or false"
    if kind is int and isinstance(value, float):
        return "a whole number is written without a point or an exponent, in decimal digits"
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return None  # not a number at all: pydantic says so
        if kind is int:
            return "a whole number is written unquoted, in decimal digits"
        if not _PLAIN_FLOAT.fullmatch(value):
            return "a number is written in decimal digits, with a point and an exponent if any (such as 0.0003 or 3e-4)"
    return None


#: the most characters of a value an error message echoes
SHOWN_CHARS = 200


def shown(value: Any, quote: bool = True) -> str:
    """``repr(value)`` (``str`` with ``quote=False``) cut to :data:`SHOWN_CHARS` characters
    with an ellipsis, so that no error line echoes a huge value whole."""
    return cut(repr(value) if quote else str(value), SHOWN_CHARS)
