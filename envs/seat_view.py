"""What an agent sees of one seat: the :class:`SeatView` protocol, and :class:`EnvSeatView`,
the view of the seat data a PettingZoo environment gives (:meth:`SeatView.from_env`).

Agents decide batches of seat views (``act_batch(views)``) and read only what the protocol
declares: the hand's card ids in slot order, the seat, the table size, the mask and the
observation. Views come from two places: a seat of the table core's tables
(:class:`~splitpoker.envs.table_seats.TableSeatView`, made by
:meth:`~splitpoker.envs.table.Tables.view` and :meth:`~splitpoker.envs.table.Tables.views`),
or an environment's observation, action mask and ``infos`` entry (:class:`EnvSeatView`).
Pure: standard library and NumPy.

>>> import numpy as np
>>> mask = np.zeros(1680, dtype=np.int8)
>>> mask[[4, 7]] = 1
>>> info = {"hand": "2c 3c 4c 5d 6d 7d 8h 9h Ah".split(), "seat": 1, "num_players": 3}
>>> view = SeatView.from_env(np.zeros(5), mask, info)
>>> view
SeatView(seat=1 of 3, hand='2c 3c 4c 5d 6d 7d 8h 9h Ah')
>>> isinstance(view, SeatView), view.n_actions, view.allowed.tolist(), view.mask_kind
(True, 1680, [4, 7], None)
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from . import seat_games
from .cards import N_IDS, format_card, format_cards, parse_cards
from .observation import decode_hand, decode_seat

if TYPE_CHECKING:
    from .table import Tables

__all__ = ["EnvSeatView", "SeatView"]

_CARD_TEXT = tuple(format_card(c) for c in range(N_IDS))


class SeatView(abc.ABC):
    """One seat of one table as an agent sees it: the hand's card ids in slot order
    (:attr:`slots`), the :attr:`seat`, the table size (:attr:`num_players`), the :attr:`mask`
    (bool: the valid splits, or the candidates under ``mask="undominated"``) and the
    :attr:`observation` (float32).

    A view of the table core's tables computes its mask and observation on first read,
    together with the other views made by the same call (see
    :meth:`~splitpoker.envs.table.Tables.prepare`); :meth:`from_env` wraps what a PettingZoo
    environment gives."""

    __slots__ = ("seat", "num_players")

    #: the seat at its table
    seat: int
    #: the number of seats at the table
    num_players: int

    @classmethod
    def from_env(cls, observation: np.ndarray, action_mask: np.ndarray | None, info: Any) -> SeatView:
        """The view of an environment's ``observation``, ``action_mask`` and ``infos[agent]``
        (:class:`EnvSeatView`)."""
        return EnvSeatView(observation, action_mask, info)

    @property
    @abc.abstractmethod
    def slots(self) -> np.ndarray:
        """The hand's card ids in slot order."""

    @property
    @abc.abstractmethod
    def mask(self) -> np.ndarray:
        """The splits the seat may play (bool, ``(n_actions,)``): the valid ones, or the
        candidates of tables dealt with ``mask="undominated"``."""

    @property
    @abc.abstractmethod
    def observation(self) -> np.ndarray:
        """The seat's observation (float32), as the environments give it."""

    @property
    @abc.abstractmethod
    def n_actions(self) -> int | None:
        """The number of splits of the seat's game; None when the seat's data does not tell."""

    @property
    @abc.abstractmethod
    def tables(self) -> Tables | None:
        """The tables the view belongs to (None for a view made from an environment's data)."""

    @property
    @abc.abstractmethod
    def table(self) -> int:
        """The view's table in :attr:`tables`."""

    @property
    @abc.abstractmethod
    def mask_kind(self) -> str | None:
        """What :attr:`mask` holds (:data:`~splitpoker.envs.checks.MASKS`), None for a mask an
        environment gave."""

    @property
    def allowed(self) -> np.ndarray:
        """The splits the seat may play as indices (int64, ascending): :attr:`mask`'s marked
        entries."""
        return np.flatnonzero(self.mask)

    def leaves_out(self, split: int) -> bool:
        """Whether the seat's mask leaves out ``split``, a split index of its game; False for
        a view without a mask (one made from an environment's data without it)."""
        mask = self.mask
        return mask.ndim == 1 and 0 <= split < len(mask) and not mask[split]

    @property
    def action_mask(self) -> np.ndarray:
        """The mask as the environments give it (int8)."""
        return self.mask.view(np.int8)

    @property
    def hand(self) -> list[str]:
        """The hand as card strings in slot order."""
        return [_CARD_TEXT[c] for c in self.slots.tolist()]

    def info(self) -> dict[str, Any]:
        """The seat's ``infos`` entry as the environments give it."""
        return {"hand": self.hand, "seat": self.seat, "num_players": self.num_players}

    def _shown_hand(self) -> str:
        """The hand as :func:`repr` shows it."""
        return format_cards(self.slots)

    def __repr__(self) -> str:
        return f"SeatView(seat={self.seat} of {self.num_players}, hand={self._shown_hand()!r})"


class EnvSeatView(SeatView):
    """The view of an environment's ``observation``, ``action_mask`` and ``infos[agent]``
    (``"hand"``: card strings in slot order, ``"seat"``, ``"num_players"``). The hand is
    read when an agent first reads :attr:`slots` (an agent that decides from the observation
    alone never parses it); without ``"hand"`` it is read off the observation, which encodes
    it, and so are the seat and the table size without ``"seat"`` and ``"num_players"``:
    ``info`` is optional.

    ``action_mask`` must be one 0/1 entry per split of the seat's game (the game of the
    hand's size the ``infos`` entry holds, or of the observation's length:
    :mod:`~splitpoker.envs.seat_games`), with at least one 1: ValueError naming what is wrong
    otherwise. An agent called without a mask (one that decides from the hand alone) gets an
    empty one."""

    __slots__ = ("_slots", "_text", "_mask", "_observation")

    def __init__(self, observation: np.ndarray, action_mask: np.ndarray | None, info: Any) -> None:
        info = info if isinstance(info, Mapping) else {}
        observation = np.asarray(observation)
        seat, players = info.get("seat"), info.get("num_players")
        if (seat is None or players is None) and observation.ndim == 1:
            try:  # the observation encodes both
                decoded: tuple[Any, Any] = decode_seat(observation)
            except ValueError:  # not an observation of a game's: the seat and size stay unknown
                decoded = (None, None)
            seat = decoded[0] if seat is None else seat
            players = decoded[1] if players is None else players
        if action_mask is None:
            self._mask = np.zeros((), dtype=bool)
        else:
            length = observation.shape[0] if observation.ndim == 1 else None
            self._mask = seat_games.checked_mask(action_mask, seat_games.fitting(seat_games.info_hand_size(info),
                                                                                  length))
        self.seat = int(seat or 0)
        self.num_players = int(players or 0)
        self._observation = observation
        self._slots: np.ndarray | None = None
        self._text: list[str] | None = list(info["hand"]) if "hand" in info else None

    @property
    def slots(self) -> np.ndarray:
        """The hand's card ids in slot order: of ``info["hand"]``, else read off the observation."""
        if self._slots is None:
            if self._text is not None:
                self._slots = np.asarray(parse_cards(self._text), dtype=np.intp)
            elif self._observation.ndim == 1:
                self._slots = decode_hand(self._observation)  # the observation encodes the hand
            else:
                raise ValueError("the agent needs the seat's observation or info['hand'] (the seat's infos "
                                 "entry from the env)")
        return self._slots

    @property
    def mask(self) -> np.ndarray:
        """The environment's action mask as bool (empty, 0-d, when it gave none)."""
        return self._mask

    @property
    def observation(self) -> np.ndarray:
        return self._observation

    @property
    def n_actions(self) -> int | None:
        """The number of splits of the seat's game: its mask's length, or without a mask, that
        of the game of the hand's size (and of the observation's length); None when no game,
        or games with different numbers of splits, fit."""
        if self._mask.ndim == 1:
            return len(self._mask)
        size = len(self.slots)
        length = self._observation.shape[0] if self._observation.ndim == 1 else None
        fit = {g.n_actions for g in seat_games.fitting(size, length) if g.hand_size == size}
        return fit.pop() if len(fit) == 1 else None

    @property
    def tables(self) -> None:
        return None

    @property
    def table(self) -> int:
        return 0

    @property
    def mask_kind(self) -> None:
        return None

    def _shown_hand(self) -> str:
        return format_cards(self._slots) if self._slots is not None else " ".join(self._text or "?")
