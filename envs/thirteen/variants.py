"""Thirteen's regional variants as data: the royalty tables, the special-hand tables and the
preset records of ``variants.json`` beside this module, read and validated (envs/thirteen/RULES.md
section 9). Pure: standard library only.

A preset record names a value for every rule switch (row comparison, straights, who is
compared with whom, the tie rule, which rows count, the royalty table and the special-hand
table) plus a one-line ``description``; royalty and special tables are named records that
the ``royalties`` and ``specials`` switches choose. Adding a variant is adding records to the
file. Every malformed record is a ``ValueError`` naming the file, the record and the field.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...runtime.arguments import is_whole

VARIANTS_FILE = Path(__file__).with_name("variants.json")
ROW_NAMES = ("front", "middle", "back")
RANK_CHARS = "23456789TJQKA"
#: how two special hands of one compared pair settle
BOTH_RULES = ("higher_wins", "banker_pays")
#: how two special hands of equal value settle: a tie, the stronger qualifying cards win, or
#: the one listed first in the table wins (可抽走)
EQUAL_RULES = ("tie", "stronger_cards", "precedence")
#: the special-hand tests whose qualifying cards can be compared (``equal: stronger_cards``)
RANKED_TESTS = ("holds_straight_flush", "holds_four_of_a_kind", "holds_trips", "clean_dragon_by_suit")


@dataclasses.dataclass(frozen=True)
class SpecialEntry:
    """One special hand of a table: its reported name, the test on the 13 cards, its value
    and the test's parameters (``low``/``high`` rank ids 0..12 for the ``ranks`` test; a
    ``low`` of -1 is an ace below the 2)."""

    name: str
    test: str
    value: int
    low: int = 0
    high: int = 12


@dataclasses.dataclass(frozen=True)
class SpecialTable:
    """A table of special hands in precedence order (a hand that qualifies for several counts
    as the first listed) and ``both``, the rule between two special hands of a compared pair:
    ``higher_wins`` (the higher value is paid its value, equal values tie) or ``banker_pays``
    (the non-banker seat is paid its own value)."""

    name: str
    both: str
    hands: tuple[SpecialEntry, ...]
    #: equal values: ``tie`` (0); ``stronger_cards``: the hand whose qualifying cards (its
    #: best straight flush, four of a kind or trips, for those tests) are stronger is paid
    #: its value, hands qualifying by other tests tie; ``precedence``: the special listed
    #: first is paid its value, the same special on both sides ties
    equal: str = "tie"


@dataclasses.dataclass(frozen=True)
class Variants:
    """The validated contents of ``variants.json``."""

    #: table name -> row values by row (front, middle, back) and type name, 1 where not listed
    royalties: dict[str, tuple[dict[str, int], ...]]
    specials: dict[str, SpecialTable]
    #: preset name -> every switch's value
    presets: dict[str, dict[str, Any]]
    descriptions: dict[str, str]


def _fail(source: str, where: str, message: str) -> ValueError:
    return ValueError(f"{source}: {where} {message}")


def _mapping(value: Any, source: str, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(source, where, f"must be an object, got {value!r}")
    return value


def _fields(value: Mapping[str, Any], source: str, where: str, required: Sequence[str],
            optional: Sequence[str] = ()) -> None:
    """Every required field present and no unknown one."""
    for name in required:
        if name not in value:
            raise _fail(source, where, f"is missing the field {name!r}")
    for name in value:
        if name not in required and name not in optional:
            raise _fail(source, f"{where}.{name}", f"is not a field; fields: {', '.join([*required, *optional])}")


def _value(value: Any, source: str, where: str) -> int:
    if not is_whole(value) or value < 0:
        raise _fail(source, where, f"must be a whole number of points ≥ 0, got {value!r}")
    return value


def _rank(value: Any, source: str, where: str) -> int:
    if not isinstance(value, str) or value.upper() not in RANK_CHARS or len(value) != 1:
        raise _fail(source, where, f"must be a rank, one of {' '.join(RANK_CHARS)}; got {value!r}")
    return RANK_CHARS.index(value.upper())


def _royalties(data: Mapping[str, Any], source: str, types: Sequence[str]) -> dict[str, tuple[dict[str, int], ...]]:
    out = {}
    for name, table in _mapping(data, source, "royalties").items():
        where = f"royalties.{name}"
        table = _mapping(table, source, where)
        _fields(table, source, where, (), ROW_NAMES)
        rows = []
        for row in ROW_NAMES:
            values = _mapping(table.get(row, {}), source, f"{where}.{row}")
            for kind, value in values.items():
                if kind not in types:
                    raise _fail(source, f"{where}.{row}.{kind}", f"is not a row type; types: {', '.join(types)}")
                _value(value, source, f"{where}.{row}.{kind}")
            rows.append(dict(values))
        out[name] = tuple(rows)
    return out


def _specials(data: Mapping[str, Any], source: str, tests: Mapping[str, Sequence[str]]) -> dict[str, SpecialTable]:
    out = {}
    for name, table in _mapping(data, source, "specials").items():
        where = f"specials.{name}"
        table = _mapping(table, source, where)
        _fields(table, source, where, ("both", "equal", "hands"))
        for field, allowed in (("both", BOTH_RULES), ("equal", EQUAL_RULES)):
            if table[field] not in allowed:
                raise _fail(source, f"{where}.{field}",
                            f"{table[field]!r} is not allowed; allowed: {', '.join(allowed)}")
        if not isinstance(table["hands"], list):
            raise _fail(source, f"{where}.hands", "must be a list of special hands")
        entries: list[SpecialEntry] = []
        for k, entry in enumerate(table["hands"]):
            at = f"{where}.hands[{k}]"
            entry = _mapping(entry, source, at)
            test = str(entry.get("test"))
            if entry.get("test") not in tests:
                raise _fail(source, f"{at}.test",
                            f"{entry.get('test')!r} is not a special-hand test; tests: {', '.join(tests)}")
            _fields(entry, source, at, ("name", "test", "value", *tests[test]))
            if not isinstance(entry["name"], str) or not entry["name"]:
                raise _fail(source, f"{at}.name", f"must be a non-empty name, got {entry['name']!r}")
            if entry["name"] in [e.name for e in entries]:
                raise _fail(source, f"{at}.name", f"{entry['name']!r} is listed twice")
            value = _value(entry["value"], source, f"{at}.value")
            if value == 0:
                raise _fail(source, f"{at}.value", "must be at least 1 (a special hand is paid)")
            if entries and value > entries[-1].value:
                raise _fail(source, f"{at}.value", f"{value} is above the value listed before it "
                            f"({entries[-1].value}); list special hands from the highest value down")
            params = {p: _rank(entry[p], source, f"{at}.{p}") for p in tests[test]}
            if params.get("low") == 12 and params.get("high", 12) < 12:
                params["low"] = -1  # an ace below the 2: A to high
            if params.get("low", 0) > params.get("high", 12):
                raise _fail(source, at, f"has low {entry['low']!r} above high {entry['high']!r}")
            entries.append(SpecialEntry(name=entry["name"], test=test, value=value, **params))
        if table["equal"] == "stronger_cards" and all(e.test not in RANKED_TESTS for e in entries):
            raise _fail(source, f"{where}.equal", f"stronger_cards needs tests that name cards to compare "
                        f"({', '.join(RANKED_TESTS)}); the table uses none")
        out[name] = SpecialTable(name=name, both=table["both"], hands=tuple(entries), equal=table["equal"])
    return out


def _presets(data: Mapping[str, Any], source: str, switches: Sequence[str]) -> tuple[dict[str, dict[str, Any]],
                                                                                      dict[str, str]]:
    presets, descriptions = {}, {}
    for name, record in _mapping(data, source, "presets").items():
        where = f"presets.{name}"
        record = _mapping(record, source, where)
        _fields(record, source, where, ("description", *switches))
        description = record["description"]
        if not isinstance(description, str) or not description.strip() or "\n" in description:
            raise _fail(source, f"{where}.description", f"must be one line of text, got {description!r}")
        descriptions[name] = description
        presets[name] = {k: record[k] for k in switches}
    if not presets:
        raise _fail(source, "presets", "holds no preset")
    return presets, descriptions


def read_document(path: Path = VARIANTS_FILE) -> tuple[Mapping[str, Any], str]:
    """The variants document (by default ``variants.json`` beside this module) and its name
    for error messages; checks the top-level fields."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path.name}: not valid JSON: {error}") from None
    return check_document(data, path.name), path.name


def check_document(data: Any, source: str) -> Mapping[str, Any]:
    """``data`` as a mapping holding exactly ``royalties``, ``specials`` and ``presets``."""
    data = _mapping(data, source, "the document")
    _fields(data, source, "the document", ("royalties", "specials", "presets"))
    return data


def parse_tables(data: Mapping[str, Any], source: str, *, types: Sequence[str],
                 tests: Mapping[str, Sequence[str]]) -> tuple[dict[str, tuple[dict[str, int], ...]],
                                                                dict[str, SpecialTable]]:
    """The royalty and special-hand tables: ``types`` are the row-type names, ``tests`` the
    special-hand tests with their parameter names."""
    return _royalties(data["royalties"], source, types), _specials(data["specials"], source, tests)


def parse_presets(data: Mapping[str, Any], source: str, *,
                  switches: Sequence[str]) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The preset records (every switch in ``switches`` named) and their descriptions. The
    switch values are checked by the rules class that reads them."""
    return _presets(data["presets"], source, switches)


def parse_variants(data: Any, *, types: Sequence[str], tests: Mapping[str, Sequence[str]],
                   switches: Sequence[str], source: str = "variants") -> Variants:
    """The whole validated document (see :func:`parse_tables` and :func:`parse_presets`)."""
    data = check_document(data, source)
    royalties, specials = parse_tables(data, source, types=types, tests=tests)
    presets, descriptions = parse_presets(data, source, switches=switches)
    return Variants(royalties=royalties, specials=specials, presets=presets, descriptions=descriptions)
