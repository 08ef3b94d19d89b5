"""The checks of argument values in :mod:`splitpoker.runtime.arguments`: what counts as a
whole number or a number, the one-line error of :func:`check_whole`, the checks built on it
(:mod:`splitpoker.runtime.limits`, :mod:`splitpoker.runtime.seeding`), and that no module
writes the check out by hand again."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from splitpoker.runtime.arguments import check_whole, is_bool, is_number, is_whole, named, shown
from splitpoker.runtime.limits import check_count
from splitpoker.runtime.seeding import check_seed, derived_seed

ROOT = Path(__file__).resolve().parents[1]
#: the folders of the package's source, and the documentation's build hooks
SOURCE_FOLDERS = ("agents", "envs", "eval", "train", "play", "runtime", "docs")
_NUMBER_TYPES = r"\(?(?:int|float|numbers\.\w+|np\.integer)\b"
_BOOL_TYPES = r"\(?(?:bool|np\.bool_)\b"
#: a test of a number written out by hand: the same name tested against an integer (or number)
#: type and against bool within two lines, in either order, or against Python's and numpy's bool
HAND_WRITTEN = re.compile(
    rf"isinstance\((\w[^,()]*), *{_NUMBER_TYPES}[^\n]*\n?[^\n]*?isinstance\(\1, *{_BOOL_TYPES}"
    rf"|isinstance\((\w[^,()]*), *{_BOOL_TYPES}[^\n]*\n?[^\n]*?isinstance\(\2, *{_NUMBER_TYPES}"
    r"|isinstance\(\w[^,()]*, *\(bool, *np\.bool_\)\)")


@pytest.mark.parametrize("value,whole,number", [
    (3, True, True), (-2, True, True), (np.int64(3), True, True), (np.uint8(0), True, True), (2**100, True, True),
    (True, False, False), (np.bool_(False), False, False), (3.0, False, True), (np.float32(1.5), False, True),
    (Fraction(1, 2), False, True), ("3", False, False), (None, False, False), (np.array(3), False, False),
    (float("nan"), False, True),
])
def test_what_counts_as_a_whole_number_and_as_a_number(value: object, whole: bool, number: bool) -> None:
    assert is_whole(value) is whole
    assert is_number(value) is number
    assert is_bool(value) is isinstance(value, (bool, np.bool_))


@pytest.mark.parametrize("value,least,most,message", [
    (0, 1, None, "--hands 0 must be an integer of at least 1"),
    (True, 1, None, "--hands True must be an integer of at least 1"),
    (2.5, 1, 10, "--hands 2.5 must be an integer of at least 1 (at most 10)"),
    (11, 1, 10_000, None),
    (20_000, 1, 10_000, "--hands 20000 is more than the most allowed, 10,000"),
    ("x" * 100, None, None, f"--hands {'x' * 40!r}... (100 characters) must be an integer"),
    (-1, None, 5, None),
    (6, None, 5, "--hands 6 is more than the most allowed, 5"),
    (None, None, 5, "--hands None must be an integer of at most 5"),
])
def test_check_whole_is_one_line_naming_the_argument_the_value_and_the_range(
        value: object, least: int | None, most: int | None, message: str | None) -> None:
    if message is None:
        assert check_whole(value, "--hands", least, most) == value
        return
    with pytest.raises(ValueError) as caught:
        check_whole(value, "--hands", least, most)
    assert str(caught.value) == message


def test_check_whole_gives_a_plain_int_and_names_keywords_with_an_equals_sign() -> None:
    checked = check_whole(np.int64(7), "num_envs=", least=1)
    assert checked == 7 and type(checked) is int
    with pytest.raises(ValueError, match=r"^num_envs=-1 must be an integer of at least 1$"):
        check_whole(np.int64(-1), "num_envs=", least=1)
    assert named("seed=", np.uint32(3)) == "seed=3" and named("--seed", "3") == "--seed '3'"
    assert shown(np.int64(12)) == "12" and shown([1] * 30).endswith("... (90 characters)")
    with pytest.raises(ValueError, match=r"^--hands an integer of 20,001 bits is more than the most allowed, 10$"):
        check_whole(2**20_000, "--hands", 0, 10)  # more digits than Python writes


def test_the_limits_and_the_seeds_are_checked_through_it() -> None:
    for value in (0, -1, 1.0, True, "2", 10**9):
        with pytest.raises(ValueError) as expected:
            check_whole(value, "--workers", 1, 64)
        with pytest.raises(ValueError) as got:
            check_count(value, "--workers", 1, 64)
        assert str(got.value) == str(expected.value)
    check_seed(None)
    assert check_seed(np.uint64(2**64 - 1)) is None
    for seed in (-1, True, np.bool_(True), 1.0, "1"):
        with pytest.raises(ValueError, match=r"must be None or a non-negative integer$"):
            check_seed(seed)
    with pytest.raises(ValueError, match=r"^seed keys \(1, np\.True_\) must be non-negative integers$"):
        derived_seed(1, np.bool_(True))
    assert derived_seed(np.uint64(2**64 - 1), 5) == derived_seed(2**64 - 1, 5) == 2203897716


def _hand_written(path: Path) -> list[str]:
    return [match.group(0) for match in HAND_WRITTEN.finditer(path.read_text(encoding="utf-8"))]


def test_the_pattern_finds_the_checks_it_stands_for() -> None:
    written = ["if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:",
               "ok = isinstance(v, numbers.Integral) and not isinstance(v, bool)",
               "if isinstance(t, (int, float))\n        and not isinstance(t, bool):",
               "if isinstance(action, (bool, np.bool_)):"]
    for text in written:
        assert HAND_WRITTEN.search(text), text
    for text in ["if not isinstance(value, bool):", "if isinstance(value, bool):\n    x = isinstance(other, float)"]:
        assert not HAND_WRITTEN.search(text), text


def test_no_module_but_the_value_checks_writes_an_integer_check_by_hand() -> None:
    found = {str(path.relative_to(ROOT)): hits for folder in SOURCE_FOLDERS
             for path in sorted((ROOT / folder).rglob("*.py")) if (hits := _hand_written(path))}
    assert set(found) == {"runtime/arguments.py"}, found
    assert found["runtime/arguments.py"] == ["isinstance(value, (bool, np.bool_))"]
