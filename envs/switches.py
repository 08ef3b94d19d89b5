"""Rule switches: frozen dataclasses of named choices, presets, and validated overrides.

Each game declares its switches once as dataclass fields whose metadata lists the allowed
values; presets are named bundles of overrides. :class:`RuleSwitches` gives both games the
same ``preset`` / ``replace`` / ``from_mapping`` / ``to_dict`` behaviour and the same
errors: an unknown preset, switch or value is a ``ValueError`` that names it and lists what
is allowed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from ..runtime.arguments import is_number, is_whole, plain_whole
from .messages import cut

T = TypeVar("T", bound="RuleSwitches")

_TRUE = {"true", "on", "yes", "1"}
_FALSE = {"false", "off", "no", "0"}
SUIT_WORDS = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
#: the largest size of an integer switch with no list of allowed values (a payment in units):
#: payoffs are summed in 64-bit integers over millions of hands, so a larger one could overflow
MAX_SWITCH_UNITS = 1_000_000


def choice(default: Any, allowed: tuple[Any, ...] | None = None, doc: str = "",
           features: tuple[Any, ...] | None = None, omit_default: bool = False) -> Any:
    """A switch field with a default, its allowed values (None: any value of the type) and a doc line.
    ``features`` limits what the observation encodes (``splitpoker.envs.observation``): None
    for every allowed value, a tuple for a one-hot over those values only, ``()`` for none.
    ``omit_default``: :meth:`RuleSwitches.to_dict` lists the switch only when it is not at its
    default (a switch added later, so that documents written before it stay the same)."""
    return dataclasses.field(default=default, metadata={"allowed": allowed, "doc": doc, "features": features,
                                                        "omit_default": omit_default})


def parse_suit_order(value: str) -> tuple[int, ...]:
    """``"spades>hearts>clubs>diamonds"`` (or ``"s>h>c>d"``) → suit values indexed by suit
    id (c, d, h, s), strongest 3. Raises ValueError unless it names each suit once."""
    parts = [p.strip().lower() for p in str(value).split(">")]
    names = [SUIT_WORDS.get(p, p) for p in parts]
    if sorted(names) != sorted(SUIT_WORDS.values()):
        raise ValueError(
            f"suit_order {_shown(value)} must name each of clubs, diamonds, hearts, spades once, "
            "strongest first, separated by '>' (e.g. 'spades>hearts>clubs>diamonds')"
        )
    order = ["clubs", "diamonds", "hearts", "spades"]
    return tuple(3 - names.index(name) for name in order)


@dataclasses.dataclass(frozen=True)
class RuleSwitches:
    """Base of a game's frozen rules configuration."""

    GAME: ClassVar[str] = ""
    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {}
    #: preset name -> one line describing it (``splitpoker rules GAME --list``)
    PRESET_DESCRIPTIONS: ClassVar[dict[str, str]] = {}

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = self._coerce(f, getattr(self, f.name))
            object.__setattr__(self, f.name, value)
        self._check()

    def _check(self) -> None:
        """Cross-switch checks of a game; raise ValueError."""

    @classmethod
    def switch_names(cls) -> list[str]:
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def _coerce(cls, f: dataclasses.Field[Any], value: Any) -> Any:
        allowed = f.metadata.get("allowed")
        kind = type(f.default)
        if kind is bool:
            if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
                value = value.lower() in _TRUE
            if not isinstance(value, bool):
                raise ValueError(f"{cls.GAME} switch {f.name}={_shown(value)} is not allowed; use true or false")
        elif kind is int:
            try:
                value = _integer(value)
            except (TypeError, ValueError):
                raise ValueError(f"{cls.GAME} switch {f.name}={_shown(value)} is not allowed; use an integer written "
                                 "in decimal digits (without a leading 0 or '_')") from None
            if allowed is None and abs(value) > MAX_SWITCH_UNITS:
                raise ValueError(f"{cls.GAME} switch {f.name}={_shown(value)} is not allowed; use at most "
                                 f"{MAX_SWITCH_UNITS:,}")
        elif f.name == "suit_order":
            parse_suit_order(value)
            value = ">".join(SUIT_WORDS.get(p.strip().lower(), p.strip().lower()) for p in str(value).split(">"))
        if allowed is not None and value not in allowed:
            raise ValueError(f"{cls.GAME} switch {f.name}={_shown(value)} is not allowed; "
                             f"allowed: {', '.join(map(str, allowed))}")
        return value

    @classmethod
    def _check_names(cls, names: Mapping[str, Any]) -> None:
        known = cls.switch_names()
        for name in names:
            if name not in known:
                raise ValueError(f"unknown {cls.GAME} switch {_shown(name)}; switches: {', '.join(known)}")

    @classmethod
    def preset(cls: type[T], name: str = "classic", **overrides: Any) -> T:
        """The rules of preset ``name`` with single switches overridden."""
        if name not in cls.PRESETS:
            raise ValueError(f"unknown {cls.GAME} preset {_shown(name)}; presets: {', '.join(cls.PRESETS)}")
        cls._check_names(overrides)
        return cls(**{**cls.PRESETS[name], **overrides})

    @classmethod
    def from_mapping(cls: type[T], mapping: Mapping[str, Any] | None) -> T:
        """Rules from a mapping (e.g. YAML): an optional ``preset`` key plus switches."""
        values = dict(mapping or {})
        return cls.preset(str(values.pop("preset", "classic")), **values)

    @classmethod
    def preset_descriptions(cls) -> dict[str, str]:
        """Every preset with one line describing it: its description, or else the switches it
        sets."""
        return {name: cls.PRESET_DESCRIPTIONS.get(name) or
                (", ".join(f"{k}={v}" for k, v in values.items()) or "the default switches")
                for name, values in cls.PRESETS.items()}

    def replace(self: T, **overrides: Any) -> T:
        """A copy with some switches changed (validated)."""
        self._check_names(overrides)
        return dataclasses.replace(self, **overrides)

    def tables(self) -> dict[str, Any]:
        """The payment tables these rules select, beyond the switches' own values (royalty and
        special-hand values, pot payments): ``splitpoker rules GAME --tables``. Nested
        dicts of names, numbers and strings, in the order the rules apply them."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        """Every switch's value, except those declared ``omit_default`` while at their default;
        ``from_mapping`` reads it back to equal rules."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if not (f.metadata.get("omit_default") and getattr(self, f.name) == f.default)}

    @classmethod
    def describe(cls) -> dict[str, dict[str, Any]]:
        """Every switch with its default, allowed values and doc line."""
        return {f.name: {"default": f.default, "allowed": f.metadata.get("allowed"), "doc": f.metadata.get("doc", "")}
                for f in dataclasses.fields(cls)}


def parse_assignments(items: list[str] | None) -> dict[str, str]:
    """``["wheel=lowest", "scoop=double"]`` → ``{"wheel": "lowest", "scoop": "double"}``."""
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"cannot read --set {_shown(item)}; expected switch=value")
        out[name.strip()] = value.strip()
    return out


#: the most characters of a switch's value an error message repeats
SHOWN_CHARS = 60


def _shown(value: Any) -> str:
    """``value`` as an error message writes it: its ``repr``, cut to :data:`SHOWN_CHARS`
    characters (an integer of more digits by its size: Python writes at most 4,300)."""
    bits = int(value).bit_length() if is_whole(value) else 0
    return f"<an integer of {bits:,} bits>" if bits > 4 * SHOWN_CHARS else cut(repr(value), SHOWN_CHARS)


def _integer(value: Any) -> int:
    """``value`` as an int: an integer, a whole real number or the text of an integer in
    plain decimal digits (``12``, ``-1``; not ``012``, ``1_000``, ``0x10`` or ``٣``, which
    ``int()`` would read); ValueError for anything else (a fraction, a bool, other text)."""
    if isinstance(value, str):
        whole = plain_whole(value)
        if whole is None:
            raise ValueError(f"{cut(repr(value), SHOWN_CHARS)} is not an integer in decimal digits")
        return whole
    if is_whole(value):
        return int(value)
    if is_number(value) and float(value).is_integer():
        return int(float(value))
    raise ValueError(f"{_shown(value)} is not an integer")
