"""The environments' two forms of action: a split index (``actions="index"``, the default)
or a slot of the seat's offered splits (``actions="offered"``, :mod:`splitpoker.envs.offered`).

Under ``"offered"`` each seat is offered up to ``offer`` (K) of its candidates, the
undominated valid splits, each with a float32 feature row of F values
(:func:`~splitpoker.envs.offered.offered_labels`); the action is a slot ``0 … K-1`` and the
split played is the one in that slot (:meth:`Offered.choose
<splitpoker.envs.offered.Offered.choose>`). What a seat observes is its seat vector (D
values, :func:`~splitpoker.envs.observation.observation_size`) followed by the K feature
rows, ``D + K*F`` float32 values (:func:`~splitpoker.envs.offered.split_observation` reads
them back), and its action mask marks the filled slots, ``(K,)``. Every environment (the
PettingZoo ones, :class:`~splitpoker.envs.vector.ArrangeVectorEnv`,
:class:`~splitpoker.envs.vector.TableBatchEnv`, training's ``SelfPlayEnv`` and
``SelfPlayVecEnv``) resolves its ``actions``, ``mask`` and ``offer`` keywords through
:func:`action_form`, once, into an :class:`ActionForm`, and reads its spaces, masks and
observations through it.

>>> from splitpoker.envs.games import make_game
>>> form = action_form("offered", None, 16, make_game("biji"))
>>> form.mask, form.width, form.offer
('undominated', 16, 16)
>>> action_form("index", None, None, make_game("biji")).width
1680
>>> action_form("index", None, 16, make_game("biji"))
Traceback (most recent call last):
...
ValueError: offer=16 goes with actions='offered' only; under actions='index' the action is the split index

Pure: NumPy (:meth:`ActionForm.box` imports gymnasium when called).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from ..runtime.arguments import shown
from .checks import check_mask, integer_actions
from .game import Game
from .observation import observation_high, observation_size
from .offered import Offered, check_offer, offered_bounds, offered_splits, offered_width

if TYPE_CHECKING:
    from gymnasium import spaces

    from .table import Pairs, Tables

__all__ = ["ACTIONS", "ActionForm", "action_form", "slot_message"]

#: what an environment's action is: the split index, or a slot of the seat's offered splits
ACTIONS = ("index", "offered")


def action_form(actions: Any, mask: Any, offer: Any, game: Game) -> ActionForm:
    """The form of action that the keywords ``actions`` (:data:`ACTIONS`), ``mask`` (None:
    ``"valid"`` under ``"index"``, ``"undominated"`` under ``"offered"``) and ``offer`` (K;
    None: ``game.default_offer``; only with ``"offered"``) give for ``game``: a ValueError of
    one line naming the value that does not fit."""
    if not isinstance(actions, str) or actions not in ACTIONS:
        raise ValueError(f"actions={shown(actions)} is not one of {', '.join(map(repr, ACTIONS))}")
    if actions == "index":
        if offer is not None:
            raise ValueError(f"offer={shown(offer)} goes with actions='offered' only; under actions='index' the "
                             "action is the split index")
        return ActionForm(game, "index", check_mask("valid" if mask is None else mask), 0)
    if mask is not None and check_mask(mask) != "undominated":
        raise ValueError(f"mask={shown(mask)} does not go with actions='offered': the splits offered are the "
                         "candidates (mask='undominated', the default)")
    return ActionForm(game, "offered", "undominated", check_offer(offer, game))


@dataclasses.dataclass(frozen=True)
class ActionForm:
    """One environment's form of action (made by :func:`action_form`): ``kind`` (:data:`ACTIONS`),
    the seats' ``mask`` over the splits and, under ``"offered"``, ``offer`` (K; 0 under ``"index"``)."""

    game: Game
    kind: str
    mask: str
    offer: int

    @property
    def offered(self) -> bool:
        """Whether the action is a slot of the offered splits."""
        return self.kind == "offered"

    @property
    def width(self) -> int:
        """The number of actions: K slots, or the game's splits."""
        return self.offer if self.offered else self.game.n_actions

    @property
    def noun(self) -> str:
        """What an action is, as messages name it."""
        return "slot" if self.offered else "split index"

    def checked_actions(self, actions: Any, count: int | None = None) -> np.ndarray:
        """A learner's actions as int64 (:func:`~.checks.integer_actions`): one action when
        ``count`` is None, else ``(count,)`` of them; ValueError of one line naming them when
        they are not integers of that shape."""
        if count is None:
            return integer_actions(actions, (), f"an integer {self.noun}")
        return integer_actions(actions, (count,), f"{count} integer {'slots' if self.offered else 'split indices'}")

    @property
    def observation_size(self) -> int:
        """The length of a seat's observation: D, and under ``"offered"`` the K feature rows of F values."""
        features = self.offer * offered_width(self.game) if self.offered else 0
        return observation_size(self.game) + features

    def seat_bytes(self) -> int:
        """The bytes one seat's mask (bool) and observation (float32) take, and under
        ``"offered"`` its offer (the split in each slot, int64, and the feature rows, float32,
        before they join the observation)."""
        size = self.width + 4 * self.observation_size
        if self.offered:
            size += 8 * self.offer + 4 * self.offer * offered_width(self.game)
        return size

    def box(self, num_players: int, finite: bool | None = True) -> spaces.Box:
        """The observation's ``Box`` at a table of ``num_players`` seats: with ``finite`` each
        entry's own bounds (:func:`~splitpoker.envs.observation.observation_high`, and the feature
        columns' :func:`~splitpoker.envs.offered.offered_bounds`); ``False``: a rule's count
        unbounded above; ``None``: every entry unbounded, as the learned policies are built
        (:func:`~splitpoker.envs.observation.spaces_of`)."""
        from gymnasium import spaces

        if finite is None:
            return spaces.Box(-np.inf, np.inf, (self.observation_size,), np.float32)
        high = observation_high(self.game, finite=finite)
        low = np.zeros_like(high)
        if self.offered:
            feature_low, feature_high = offered_bounds(self.game, num_players)
            low = np.concatenate((low, np.tile(feature_low, self.offer))).astype(np.float32)
            high = np.concatenate((high, np.tile(feature_high, self.offer))).astype(np.float32)
        return spaces.Box(low, high, dtype=np.float32)

    def offers(self, tables: Tables, pairs: Pairs) -> Offered | None:
        """The offers of the ``(table, seat)`` pairs, prepared in one batched call
        (:meth:`Tables.offered_at <splitpoker.envs.table.Tables.offered_at>`); None under ``"index"``."""
        return tables.offered_at(pairs, self.offer) if self.offered else None

    @staticmethod
    def observations(vectors: np.ndarray, offered: Offered | None) -> np.ndarray:
        """The seats' observations: their vectors ``(N, D)``, followed under ``"offered"`` by
        their offers' feature rows, ``(N, D + K*F)`` float32."""
        if offered is None:
            return vectors
        return np.concatenate((vectors, offered.features.reshape(len(offered), -1)), axis=1, dtype=np.float32)

    @staticmethod
    def observation(vector: np.ndarray, offered: Offered | None, row: int) -> np.ndarray:
        """One seat's observation: its vector ``(D,)``, followed under ``"offered"`` by the
        feature rows of row ``row`` of ``offered``, ``(D + K*F,)`` float32."""
        if offered is None:
            return vector
        return np.concatenate((vector, offered.features[row].ravel()), dtype=np.float32)

    def splits(self, actions: np.ndarray, offered: Offered | None) -> np.ndarray:
        """The split indices the actions ``(N,)`` play: the actions themselves, or the splits
        in their slots (:meth:`Offered.choose <splitpoker.envs.offered.Offered.choose>`:
        ValueError naming the first slot that holds none)."""
        return actions if offered is None else offered.choose(actions)


def slot_message(slot: int, who: str, offered: Offered, row: int, hand: str = "") -> str:
    """Why ``slot``, the action of ``who`` (row ``row`` of ``offered``), plays no split: out of
    range, or an empty slot, naming the slots filled (and the hand, when given)."""
    offer, filled = offered.mask.shape[1], int(offered.mask[row].sum())
    if not 0 <= slot < offer:
        return f"slot {slot} of {who} is out of range 0..{offer - 1}" + (f" (hand {hand})" if hand else "")
    held = f"its hand {hand}" if hand else "its hand"
    return f"slot {slot} of {who} is empty: {held} is offered {offered_splits(filled)}"
