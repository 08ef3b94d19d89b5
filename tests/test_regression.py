"""Regression test: the installed code reproduces, exactly, the outputs recorded from the
code before the restructuring (``tests/data/regression.json``).

The fixture was written by ``tests/data/make_regression.py`` (regenerate with
``python tests/data/make_regression.py tests/data/regression.json``, only when a change of
the recorded outputs is intended). This test imports the same recording functions, runs
them against the current code and compares case by case; each case is one test, named
``section:case``, and a failure lists the paths that differ, e.g.
``env:thirteen/classic/4p /hands[3]/steps[1]/action: expected 790, got 812``.

What is compared (see the module docstring of ``make_regression`` for what is recorded):

* ``env``: the AEC environments of every Thirteen preset and of Biji: per step the agent,
  the observation's hash and length, the mask's hash, the number of valid splits and the
  action drawn from a seeded generator; per hand the rewards and the infos (``hand``,
  ``seat``, ``num_players``, ``arrangement``, ``types``, ``payoff``, ``score``; other info
  keys are not recorded, so new keys are allowed). Scripted deals and an illegal split too.
* ``parallel``, ``solver``, ``imitation``, ``eval_cli`` (the ``splitpoker eval --json``
  summary without ``elapsed_s`` and ``ms_per_decision``), ``eval_api`` and ``scores``.

Exactness: array hashes are sha256 of the raw bytes with dtype and shape, so dtypes,
shapes and every bit of every value must match; numbers are compared by value (an int
equals the same float, NaN equals NaN, booleans only equal booleans), strings, lists and
dict keys exactly. Nothing is "close".

The one tolerated difference: the observation under the Thirteen ``banker`` preset may
gain entries (the banker's position relative to the seat), appended or inserted. For
that preset the fixture holds, for every observation, the hash of the hand block (the
first 13 × 19 values), the non-zero entries of the rest and the layout of the old blocks
(hand, seat one-hot, players one-hot, one block per rule switch). When the observation
has its old length it must match exactly (hash included). When it is longer, the hand
block must still be its first 247 values exactly, and every later old block (seat,
players, each rule switch's features) must appear in the new observation, contiguous and
unchanged, in the old order, after the hand block; entries between or after the blocks
are the new ones. Masks, valid counts, actions, rewards and infos must match exactly under
``banker`` too. Every other preset's observation must match exactly.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from tests.data import make_regression as recording

FIXTURE = Path(__file__).resolve().parent / "data" / "regression.json"
EXPECTED: dict[str, dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))
#: step keys that describe the observation (compared specially where it may gain entries)
OBS_KEYS = ("obs", "obs_len", "obs_hand", "obs_tail")


@functools.cache
def current(section: str) -> dict[str, Any]:
    """The section recorded with the installed code (once per test session)."""
    return recording.SECTIONS[section]()


def _dense_tail(step: dict[str, Any], start: int) -> list[float]:
    """The observation after the hand block, from its non-zero entries."""
    tail = [0.0] * (step["obs_len"] - start)
    for index, value in step["obs_tail"]:
        tail[index - start] = value
    return tail


def _find(haystack: list[float], needle: list[float], start: int) -> int:
    """The first position >= start where ``needle`` occurs contiguously, or -1."""
    for i in range(start, len(haystack) - len(needle) + 1):
        if haystack[i:i + len(needle)] == needle:
            return i
    return -1


def _extended_obs_problems(blocks: list[list[Any]], expected: dict[str, Any], actual: dict[str, Any],
                           where: str) -> list[str]:
    """Differences of an observation that may have gained entries (see the module docstring)."""
    if actual["obs_len"] == expected["obs_len"]:
        return recording.differences({k: expected[k] for k in OBS_KEYS}, {k: actual.get(k) for k in OBS_KEYS}, where)
    problems = []
    if actual["obs_len"] < expected["obs_len"]:
        return [f"{where}/obs_len: the observation shrank from {expected['obs_len']} to {actual['obs_len']} entries"]
    if actual["obs_hand"] != expected["obs_hand"]:
        problems.append(f"{where}/obs_hand: the hand block (the first values) changed: expected "
                        f"{expected['obs_hand']}, got {actual['obs_hand']}")
    (name, _, hand_end), rest = blocks[0], blocks[1:]
    assert name == "hand"
    old, new = _dense_tail(expected, hand_end), _dense_tail(actual, hand_end)
    position = 0
    for name, start, end in rest:
        values = old[start - hand_end:end - hand_end]
        found = _find(new, values, position)
        if found < 0:
            problems.append(f"{where}: the old {name!r} block {values} (old indices {start}..{end - 1}) is not found, "
                            f"contiguous and after the previous blocks, in the new observation's entries "
                            f"{hand_end}.. {new}")
            break
        position = found + len(values)
    return problems


def _env_problems(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    blocks = expected.get("obs_blocks")
    if blocks is None:
        return recording.differences(expected, actual)
    # an observation that may gain entries: everything else exactly, the observation by blocks
    expected, actual = copy.deepcopy(expected), copy.deepcopy(actual)
    expected.pop("obs_blocks")
    actual.pop("obs_blocks", None)
    problems: list[str] = []
    for h, (e_hand, a_hand) in enumerate(zip(expected["hands"], actual.get("hands", []))):
        label = f"/hands[{h}]" + (f" (seed {e_hand['seed']}, hand {e_hand['hand']})" if "seed" in e_hand else "")
        for s, (e_step, a_step) in enumerate(zip(e_hand["steps"], a_hand.get("steps", []))):
            where = f"{label}/steps[{s}] (agent {e_step['agent']})"
            e_obs = {k: e_step.pop(k) for k in OBS_KEYS}
            a_obs = {k: a_step.pop(k, None) for k in OBS_KEYS}
            if None in a_obs.values():
                problems.append(f"{where}: the step records {sorted(k for k, v in a_obs.items() if v is None)} "
                                "are missing")
                continue
            problems += _extended_obs_problems(blocks, e_obs, a_obs, where)
    return problems + recording.differences(expected, actual)


CASES = [(section, case) for section, cases in EXPECTED.items() for case in cases]


def test_fixture_covers_every_section() -> None:
    assert sorted(EXPECTED) == sorted(recording.SECTIONS), (
        f"the fixture's sections {sorted(EXPECTED)} are not the recording script's {sorted(recording.SECTIONS)}; "
        "regenerate the fixture only if the change is intended")


@pytest.mark.parametrize(("section", "case"), CASES, ids=[f"{s}:{c}" for s, c in CASES])
def test_reproduces_recorded_outputs(section: str, case: str) -> None:
    recorded = current(section)
    assert case in recorded, f"{section}:{case}: the recording script no longer produces this case"
    expected, actual = EXPECTED[section][case], recorded[case]
    if section == "env":
        problems = _env_problems(expected, actual)
    else:
        problems = recording.differences(expected, actual)
    assert not problems, f"{section}:{case} differs from the recorded output:\n  " + "\n  ".join(problems[:8])


def test_no_unrecorded_cases() -> None:
    """Every case the recording script produces now is in the fixture (a case added to the
    script needs the fixture regenerated from the code before the change)."""
    extra = [f"{section}:{case}" for section in EXPECTED for case in current(section) if case not in EXPECTED[section]]
    assert not extra, f"cases not in the fixture: {extra}"
