"""The table core's checks of what it is given: the kind of mask (:data:`MASKS`), what to do
with an illegal split (:data:`ILLEGAL_ACTIONS`), the splits an agent returns, seats, numbers
of tables and dealt hands. Each returns the value as the core uses it, or raises a ValueError
naming the bad value; nothing is silently repaired. Pure: standard library and NumPy.

>>> check_mask("undominated")
'undominated'
>>> split_choices([3, 40.0], "agent 'mine'").tolist()
[3, 40]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..runtime.arguments import is_number, is_whole, shown
from ..runtime.limits import MAX_HANDS, check_batch
from .cards import N_IDS, format_card, repeats
from .game import Game
from .messages import cut

__all__ = ["ILLEGAL_ACTIONS", "MASKS", "check_illegal", "check_mask", "check_seat", "check_tables", "checked_slots",
           "int_pairs", "integer_actions", "is_card_ids", "split_choices"]


#: the masks a table can give its seats: every valid split, or the undominated ones
MASKS = ("valid", "undominated")


def check_mask(mask: Any) -> str:
    """``mask`` when it names a kind of mask (:data:`MASKS`); else ValueError listing them."""
    if not isinstance(mask, str) or mask not in MASKS:
        raise ValueError(f"mask={mask!r} is not a kind of action mask; use {' or '.join(map(repr, MASKS))}")
    return mask


#: what an environment does with a split outside the action mask: raise a ValueError, or end
#: the hand with an ``illegal_reward`` for the seat that played it
ILLEGAL_ACTIONS = ("raise", "penalty")


def check_illegal(illegal_action: Any, illegal_reward: Any) -> tuple[str, float]:
    """``(illegal_action, illegal_reward)`` when the first is one of :data:`ILLEGAL_ACTIONS`
    and the second a finite number; else ValueError naming the bad value."""
    if not isinstance(illegal_action, str) or illegal_action not in ILLEGAL_ACTIONS:
        raise ValueError(f"illegal_action={illegal_action!r} is not one of {', '.join(map(repr, ILLEGAL_ACTIONS))}")
    if not is_number(illegal_reward) or not np.isfinite(illegal_reward):
        raise ValueError(f"illegal_reward={illegal_reward!r} is not a finite number")
    return illegal_action, float(illegal_reward)


def split_choices(values: Any, who: str) -> np.ndarray:
    """``values``, the splits ``who`` (an agent, named in errors) returned, as a flat int64
    array: integers of any type, or floats that are whole numbers (``40.0``); else ValueError
    naming ``who`` and the first value that is neither (``40.9``, ``nan``, ``True``, ``None``).
    Whether each is a split its seat may play is checked elsewhere."""
    try:
        array = np.asarray(values)
    except Exception:  # a ragged or otherwise unconvertible value
        raise ValueError(f"{who} returned {cut(repr(values), 80)}, not split indices") from None
    kind = array.dtype.kind
    if kind in "iu":  # the common case: read as it is
        return array.astype(np.int64, copy=False).reshape(-1)
    flat = array.reshape(-1)
    if not len(flat):
        return np.zeros(0, dtype=np.int64)
    if kind == "f":
        whole = np.isfinite(flat) & (flat == np.trunc(flat)) & (np.abs(flat) < 2.0**63)
        if whole.all():
            return flat.astype(np.int64)
        bad: Any = flat[np.flatnonzero(~whole)[0]].item()
    elif kind == "O":
        items = flat.tolist()
        ok = [is_whole(v) or isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer()
              and abs(v) < 2.0**63 for v in items]
        if all(ok):
            return np.array([int(v) for v in items], dtype=np.int64)
        bad = items[ok.index(False)]
    else:  # bools, strings, complex numbers, ...
        bad = flat[0].item()
    raise ValueError(f"{who} returned {cut(repr(bad), 40)}, not a split index (an integer, or a float that is a "
                     "whole number)")


def integer_actions(actions: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    """``actions``, a learner's actions, as an int64 array of ``shape`` when they are integers
    of that shape (Python's or NumPy's; for ``shape == ()`` one integer or a 0-d integer
    array); else a ValueError of one line naming the value and ``what`` was wanted (``"an
    integer slot"``, ``"3 integer split indices"``). Nothing is rounded or reshaped: ``1.5``,
    ``"0"``, ``True`` and ``[0]`` for one action are refused. Whether each action is in range
    and may be played is checked elsewhere.

    >>> integer_actions(np.int64(3), (), "an integer slot").tolist()
    3
    >>> integer_actions(np.full(3, 0.5), (3,), "3 integer slots")
    Traceback (most recent call last):
    ...
    ValueError: actions array([0.5, 0.5, 0.5]) of shape (3,) and type float64 are not 3 integer slots
    """
    try:
        array = np.asarray(actions)
    except (ValueError, TypeError):  # ragged, or no array at all
        array = np.asarray(None)
    if array.shape == shape and array.dtype.kind in "iu":
        return array.astype(np.int64)
    value = " ".join(shown(actions).split())
    if shape == ():
        problem = "is out of range" if is_whole(actions) else f"is not {what}"  # an int beyond int64
        raise ValueError(f"action {value} {problem}")
    raise ValueError(f"actions {value} of shape {array.shape} and type {array.dtype} are not {what}")


def check_seat(seat: Any, num_players: int) -> int:
    """``seat`` as an int when it is a seat of a ``num_players``-seat table; else ValueError."""
    if not is_whole(seat) or not 0 <= seat < num_players:
        raise ValueError(f"seat {seat!r} is not a seat of a {num_players}-player table "
                         f"(seats 0..{num_players - 1})")
    return int(seat)


def check_tables(batch: Any, bytes_each: int) -> int:
    """``batch`` as an int when it is a number of tables (0 to :data:`MAX_HANDS`) whose
    arrays, ``bytes_each`` bytes a table, fit in :data:`~splitpoker.runtime.limits.MAX_BATCH_BYTES`."""
    if not is_whole(batch) or batch < 0:
        raise ValueError(f"batch {batch!r} is not a number of tables (an integer of at least 0)")
    return check_batch(batch, "batch=", bytes_each, least=0, most=MAX_HANDS)


def checked_slots(game: Game, slots: Any) -> np.ndarray:
    """``slots`` as an intp ``(tables, players, hand size)`` array of card ids; ValueError
    naming the first entry that is not a card of the game's deck, the first hand not in
    slot order (ascending ids) or the first card dealt twice at a table (checked in one
    vectorised pass)."""
    try:
        array = np.asarray(slots)
    except Exception:  # ragged
        raise ValueError(f"slots {cut(repr(slots), 80)} are not an array of card ids") from None
    if array.ndim != 3 or array.shape[2] != game.hand_size:
        raise ValueError(f"slots of shape {array.shape} are not (tables, players, {game.hand_size})")
    if array.size == 0:
        return np.asarray(array, dtype=np.intp)
    if array.dtype.kind not in "iu":
        raise ValueError(f"slots of type {array.dtype} are not card ids (integers)")
    low = 0 if game.jokers else 2
    if array.min() < low or array.max() >= N_IDS:
        b, s, k = np.argwhere((array < low) | (array >= N_IDS))[0].tolist()
        raise ValueError(f"slots[{b}, {s}, {k}] is {array[b, s, k]}, not a card of the {game.name} deck "
                         f"(card ids {low}..{N_IDS - 1})")
    array = np.asarray(array, dtype=np.intp)
    unordered = (array[:, :, 1:] <= array[:, :, :-1]).any(axis=2)  # a card twice in a hand is out of order too
    if unordered.any():
        b, s = np.argwhere(unordered)[0].tolist()
        raise ValueError(f"slots[{b}, {s}] ({', '.join(map(str, array[b, s].tolist()))}) are not in slot order: "
                         "each hand's card ids ascending, each card once")
    tables = array.reshape(len(array), -1)
    if repeats(tables).any():
        ordered = np.sort(tables, axis=1)
        b, k = np.argwhere(ordered[:, 1:] == ordered[:, :-1])[0].tolist()
        card = int(ordered[b, k])
        seats = np.flatnonzero((array[b] == card).any(axis=1)).tolist()  # two: a hand holds each card once
        raise ValueError(f"slots: card {format_card(card)} is dealt to seats {seats[0]} and {seats[1]} at table {b}")
    return array


def int_pairs(pairs: Any) -> np.ndarray | None:
    """``pairs``, a list or tuple of pairs or an array, as the ``(K, 2)`` integer array (K > 0)
    NumPy reads them as, or None where it reads no such array."""
    if isinstance(pairs, np.ndarray):
        array = pairs
    elif isinstance(pairs, (list, tuple)) and pairs:
        try:
            array = np.asarray(pairs)
        except (TypeError, ValueError, OverflowError):  # ragged, or no numbers
            return None
    else:
        return None
    return array if array.ndim == 2 and array.shape[1] == 2 and array.dtype.kind in "iu" and len(array) else None


def is_card_ids(hand: Any) -> bool:
    """Whether ``hand`` reads as card ids: an integer array, or a non-empty sequence of whole numbers."""
    if isinstance(hand, np.ndarray):
        return np.issubdtype(hand.dtype, np.integer)
    return (isinstance(hand, Sequence) and not isinstance(hand, str) and len(hand) > 0
            and all(is_whole(c) for c in hand))
