"""Which registered game an environment's seat data is of. An environment gives an agent a
seat's observation, action mask and ``infos`` entry, none of which names the game; what
tells the registered games apart (rule switches change none of it) is the hand's size,
which the ``infos`` entry holds, then the observation's length and the number of splits
(the action mask's length). Pure: standard library and NumPy.

>>> [(g.name, g.hand_size) for g in fitting(hand_size=9)]
[('biji', 9)]
>>> len(fitting(hand_size=99)) == len(registered())  # a clue that fits no game tells nothing
True
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .games import GAMES, make_game
from .messages import cut
from .observation import observation_size

__all__ = ["SeatGame", "check_distinct", "checked_mask", "fitting", "info_hand_size", "registered"]


@dataclasses.dataclass(frozen=True)
class SeatGame:
    """What tells a registered game apart in an environment's seat data: its hand size, the
    length of its observations and its number of splits (the length of its action mask)."""

    name: str
    hand_size: int
    observation_size: int
    n_actions: int


def check_distinct(games: Sequence[SeatGame]) -> tuple[SeatGame, ...]:
    """``games``, unless two of them have the same hand size, observation length and number
    of splits (no seat data could tell them apart): then ValueError naming both."""
    seen: dict[tuple[int, int, int], str] = {}
    for g in games:
        key = (g.hand_size, g.observation_size, g.n_actions)
        if key in seen:
            raise ValueError(f"games {seen[key]!r} and {g.name!r} have the same hand size, observation length and "
                             f"number of splits {key}: an environment's seat data cannot tell them apart")
        seen[key] = g.name
    return tuple(games)


@functools.lru_cache(maxsize=1)
def registered() -> tuple[SeatGame, ...]:
    """Every registered game's :class:`SeatGame`; ValueError when two cannot be told apart."""
    games = {name: make_game(name) for name in GAMES}
    return check_distinct([SeatGame(name, g.hand_size, observation_size(g), g.n_actions) for name, g in games.items()])


def fitting(hand_size: int | None = None, observation_size: int | None = None) -> tuple[SeatGame, ...]:
    """The registered games that fit the seat data: those of the hand's size, then of those,
    the ones of the observation's length; a clue that fits none (or None) is ignored, so the
    hand's size wins over an observation of another game's length."""
    found = registered()
    for attr, value in (("hand_size", hand_size), ("observation_size", observation_size)):
        found = tuple(g for g in found if getattr(g, attr) == value) or found
    return found


def info_hand_size(info: Mapping[str, Any]) -> int | None:
    """The size of the hand an environment's ``infos`` entry holds: its ``"hand"`` (card
    strings) or, under ``infos="arrays"``, its ``"hand_ids"``; None when it holds neither."""
    for key in ("hand", "hand_ids"):
        hand = info.get(key)
        if isinstance(hand, np.ndarray) and hand.ndim == 1 or isinstance(hand, Sequence) and not isinstance(hand, str):
            return len(hand)
    return None


def checked_mask(action_mask: Any, games: Sequence[SeatGame]) -> np.ndarray:
    """An environment's ``action_mask`` as bool ``(n_actions,)``: ValueError unless it is one
    0/1 entry per split of one of ``games`` (the games the seat data may be of) with at
    least one 1."""
    try:
        mask = np.asarray(action_mask)
    except Exception:  # a ragged or otherwise unconvertible value
        raise ValueError(f"action_mask {cut(repr(action_mask), 80)} is not an array of 0/1 entries") from None
    sizes: dict[int, list[str]] = {}
    for g in games:
        sizes.setdefault(g.n_actions, []).append(g.name)
    if mask.ndim != 1 or mask.shape[0] not in sizes:
        wanted = " or ".join(f"({n},) for {'/'.join(names)}" for n, names in sorted(sizes.items()))
        raise ValueError(f"action_mask has shape {mask.shape}; a seat's mask has one entry per split: {wanted}")
    if mask.dtype in (np.int8, np.uint8) and mask.flags.c_contiguous and (top := int(mask.view(np.uint8).max())) <= 1:
        mask, marked = mask.view(bool), top == 1  # what the environments give: read as it is, in one pass
    else:
        if mask.dtype != bool:
            if not (np.issubdtype(mask.dtype, np.integer) or np.issubdtype(mask.dtype, np.floating)):
                raise ValueError(f"action_mask has entries of type {mask.dtype}, not 0/1")
            integer = np.issubdtype(mask.dtype, np.integer)
            bad = (np.empty(0, dtype=np.intp) if integer and mask.min() >= 0 and mask.max() <= 1
                   else np.flatnonzero((mask != 0) & (mask != 1)))
            if len(bad):
                raise ValueError(f"action_mask[{int(bad[0])}] is {mask[bad[0]].item()!r}; its entries are 0 or 1")
            mask = mask.astype(bool)
        marked = bool(mask.any())
    if not marked:
        raise ValueError("action_mask has no 1: no split of the hand is marked playable")
    return mask
