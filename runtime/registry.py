"""Registries: the one idiom of every list of named things (the games, their environments,
the agent kinds, the policy kinds).

A :class:`Registry` maps each name to an entry point, ``"package.module:attr"`` (or
``"package.module"`` for the module itself), as gymnasium and PettingZoo register
environments: nothing is imported until an entry is asked for, and then once. It reads as a
mapping of the loaded objects, in the order registered; ``in``, iteration and the names
load nothing. A name is registered once; an unknown one is a :class:`NotRegistered`, a
ValueError (and a KeyError, as a mapping's missing key is) listing the names. Pure: the
standard library only.

>>> units = Registry("unit")
>>> units.register("day", "datetime:date")
>>> units.register("delta", "datetime:timedelta")
>>> "day" in units, units.names
(True, ('day', 'delta'))
>>> units["delta"]
<class 'datetime.timedelta'>
>>> units["week"]
Traceback (most recent call last):
...
splitpoker.runtime.registry.NotRegistered: unknown unit 'week'; units: day, delta
>>> units.register("day", "datetime:datetime")
Traceback (most recent call last):
...
ValueError: unit 'day' is already registered (datetime:date)
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

__all__ = ["NotRegistered", "Registry", "load_entry_point"]

T = TypeVar("T")
_ENTRY_POINT = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*(:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*)?", re.ASCII)


class NotRegistered(KeyError, ValueError):
    """A name that a registry does not hold: a ValueError whose message lists the names (a
    KeyError too, so that the registry is a mapping)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def load_entry_point(entry_point: str) -> Any:
    """The object at ``entry_point``: ``"package.module:attr"`` (``attr`` may be dotted), or
    ``"package.module"`` for the module."""
    module, _, attr = entry_point.partition(":")
    loaded: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        loaded = getattr(loaded, part)
    return loaded


class Registry(Mapping[str, T]):
    """Names of one kind of thing (``what``; ``plural`` in messages, by default ``what`` + s),
    each mapped to an entry point loaded on first use."""

    def __init__(self, what: str, plural: str = "") -> None:
        self.what, self.plural = what, plural or f"{what}s"
        self._entry_points: dict[str, str] = {}
        self._loaded: dict[str, T] = {}

    def register(self, name: str, entry_point: str) -> None:
        """Register ``name`` for the object at ``entry_point`` (an absolute
        ``"package.module:attr"``, imported when first asked for); ValueError for a name
        registered already or an entry point of another form."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"a {self.what} name is a non-empty string, not {name!r}")
        if name in self._entry_points:
            raise ValueError(f"{self.what} {name!r} is already registered ({self._entry_points[name]})")
        if not isinstance(entry_point, str) or not _ENTRY_POINT.fullmatch(entry_point):
            raise ValueError(f"entry point {entry_point!r} of {self.what} {name!r} is not 'package.module:attr'")
        self._entry_points[name] = entry_point

    def unregister(self, name: str) -> None:
        """Forget ``name`` (a registration made for a while, as a test makes one)."""
        self._entry_points.pop(self.check(name))
        self._loaded.pop(name, None)

    def check(self, name: object) -> str:
        """``name`` when it is registered; else :class:`NotRegistered` listing the names."""
        if not isinstance(name, str) or name not in self._entry_points:
            raise NotRegistered(f"unknown {self.what} {name!r}; {self.plural}: {', '.join(self._entry_points)}")
        return name

    def entry_point(self, name: str) -> str:
        """The entry point registered for ``name``."""
        return self._entry_points[self.check(name)]

    @property
    def names(self) -> tuple[str, ...]:
        """The registered names, in the order registered."""
        return tuple(self._entry_points)

    def __getitem__(self, name: str) -> T:
        if name not in self._loaded:
            self._loaded[name] = load_entry_point(self.entry_point(name))
        return self._loaded[name]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._entry_points

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self._entry_points)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}: {', '.join(self._entry_points)})"
