"""One learner seat at each of ``B`` tables, the other seats played by opponents: the core
under the single-agent vector environments (:class:`~splitpoker.envs.vector.ArrangeVectorEnv`
for gymnasium, training's ``SelfPlayVecEnv`` for Stable-Baselines3), which only translate
between it and their library's API.

==========================  ==================================================================
``deal(rng, opponents)``    deals ``B`` tables (:func:`~splitpoker.envs.table.deal`), seats the
                            learner of table ``i`` at ``(i + hands) % players``
                            (``seat="rotate"``, ``hands`` counting the deals) or at a fixed
                            seat, and reads the learners' ``observations`` ``(B, D)`` float32
                            and ``masks`` ``(B, n_actions)`` bool from the tables, each kind
                            computed straight into one array (:meth:`Tables.masks_at` and
                            :meth:`Tables.observations_at` with ``keep=False``,
                            :data:`MASK_CHUNK` seats a call); ``opponents[i]``: the agents of
                            table ``i``'s other seats, in seat order
``legal(actions)``          whether each learner's split is in its mask, bool ``(B,)``
``play(actions, legal)``    the opponents decide (:meth:`Tables.decide_groups`: each agent all
                            its seats of every table in one batch, checked), the learners play
                            ``actions``, the tables are scored: payoffs ``(B, players)``; where
                            ``legal`` is false the table is left unscored (payoffs 0)
==========================  ==================================================================

Under ``actions="offered"`` (:mod:`splitpoker.envs.offered_env`) the learners are offered up
to ``offer`` (K) of their candidates: ``offered`` holds the offers (:meth:`Tables.offered_at`,
one batched call), ``masks`` are their filled slots ``(B, K)``, ``observations`` the seat
vectors followed by the offers' feature rows ``(B, D + K*F)``, and the actions are slots,
played as the splits in them (:meth:`Offered.choose <splitpoker.envs.offered.Offered.choose>`).

An opponent is anything with ``act_batch(views)`` (every splitpoker agent; a pool of
policies hands out such agents). The learner's seat, hand, observation and mask all come
from :class:`~splitpoker.envs.table.Tables`, which alone deals, masks, observes and scores.

>>> import numpy as np
>>> from splitpoker.envs.games import make_game
>>> class First:  # plays each seat's first playable split
...     def act_batch(self, views):
...         return [int(view.allowed[0]) for view in views]
>>> game = make_game("biji")
>>> seats = LearnerSeats(game, num_tables=6, num_players=4)
>>> seats.deal(np.random.default_rng(0), [[First()] * 3] * 6)
>>> seats.seats.tolist(), seats.masks.shape, seats.observations.shape
([0, 1, 2, 3, 0, 1], (6, 1680), (6, 197))
>>> payoffs = seats.play(np.array([int(np.flatnonzero(m)[0]) for m in seats.masks]))
>>> payoffs.shape, bool(np.allclose(payoffs.sum(axis=1), 0))
((6, 4), True)

Pure: NumPy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from .game import Game
from .offered import Offered
from .offered_env import action_form
from .table import MASK_CHUNK, SeatView, Tables, deal

__all__ = ["LearnerSeats", "Opponent", "MASK_CHUNK", "prepare_seats"]


class Opponent(Protocol):
    """What plays an opponent seat: every splitpoker agent, anything with ``act_batch``."""

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray: ...


def prepare_seats(tables: Tables, pairs: Sequence[tuple[int, int]]) -> None:
    """The masks and observations of the ``(table, seat)`` pairs computed by ``tables``,
    :data:`MASK_CHUNK` seats a call (so that the computation's scratch arrays stay small
    beside the masks)."""
    for start in range(0, len(pairs), MASK_CHUNK):
        tables.prepare(pairs[start:start + MASK_CHUNK])


class LearnerSeats:
    """``num_tables`` tables of ``num_players`` seats of ``game``, one learner seat each (see
    the module doc). ``mask``: the seats' masks (every valid split, or the candidates under
    ``"undominated"``; None: as ``actions`` has it); ``seat``: ``"rotate"`` or a fixed seat
    (checked by the caller); ``actions`` and ``offer``: the learners' form of action, a split
    index or a slot of up to ``offer`` offered splits
    (:func:`~splitpoker.envs.offered_env.action_form`)."""

    def __init__(self, game: Game, num_tables: int, num_players: int, mask: str | None = None,
                 seat: int | str = "rotate", actions: str = "index", offer: int | None = None) -> None:
        self.game = game
        self.num_tables = num_tables
        self.num_players = num_players
        #: the learners' form of action (a split index, or a slot of their offered splits)
        self.form = action_form(actions, mask, offer, game)
        self.mask = self.form.mask
        self.seat = seat
        #: the hands dealt at each table so far (the learner's seat rotates with it)
        self.hands = 0
        #: the tables of the hands dealt; None before the first deal, or once closed
        self.tables: Tables | None = None
        #: the learner's seat at each table, ``(B,)`` int64
        self.seats = np.zeros(num_tables, dtype=np.int64)
        #: the agents of each table's other seats, in seat order
        self.opponents: list[Sequence[Any]] = []
        #: the learners' masks ``(B, n_actions)`` bool and observations ``(B, D)`` float32 (``(B, K)``
        #: and ``(B, D + K*F)`` under ``actions="offered"``)
        self.masks = np.zeros((num_tables, self.form.width), dtype=bool)
        self.observations = np.zeros((num_tables, self.form.observation_size), dtype=np.float32)
        #: the learners' offers under ``actions="offered"`` (None before the first deal, or under "index")
        self.offered: Offered | None = None
        #: the other seats of a table, in seat order, by the learner's seat
        self._other_seats = np.array([[s for s in range(num_players) if s != learner]
                                      for learner in range(num_players)])

    def deal(self, rng: np.random.Generator, opponents: Sequence[Sequence[Any]]) -> None:
        """Deal the next hands from ``rng``, seat the learners and ``opponents`` (the agents of
        each table's other seats, in seat order), and read the learners' masks and observations."""
        n, b = self.num_players, self.num_tables
        tables = self.tables = deal(self.game, n, rng, batch=b, mask=self.mask)
        rotate = (self.hands + np.arange(b)) % n
        self.seats = rotate if self.seat == "rotate" else np.full(b, int(self.seat))
        self.hands += 1
        self.opponents = list(opponents)
        learners = np.stack((np.arange(b), self.seats), axis=1)
        offered = self.offered = self.form.offers(tables, learners)
        # read once, here
        self.masks = tables.masks_at(learners, keep=False) if offered is None else offered.mask
        self.observations = self.form.observations(tables.observations_at(learners, keep=False), offered)

    def dealt(self) -> Tables:
        """The tables of the hands dealt; ValueError before the first deal."""
        if self.tables is None:
            raise ValueError("call reset() before step()")
        return self.tables

    def hand_ids(self) -> np.ndarray:
        """The learners' hands, card ids in slot order, int64 ``(B, hand size)``."""
        return self.dealt().slots[np.arange(self.num_tables), self.seats].astype(np.int64)

    def legal(self, actions: np.ndarray) -> np.ndarray:
        """Whether each learner's split ``actions[i]`` (integers; slots under ``actions="offered"``)
        is in its mask: bool ``(B,)``."""
        inside = (actions >= 0) & (actions < self.form.width)
        return inside & self.masks[np.arange(self.num_tables), np.where(inside, actions, 0)]

    def decide(self, actions: np.ndarray) -> np.ndarray:
        """Every opponent seat's split, written into ``actions`` (B, players) and returned: the
        seats of all tables played by one agent decided in one batch, the agents in the order
        they first sit, each agent's seats table by table (:meth:`Tables.decide_groups`)."""
        # each distinct list of a table's opponents once (tables often share one), in the order
        # tables first hold it: the agents numbered in the order they first sit
        ids = np.array([id(table_agents) for table_agents in self.opponents], dtype=np.int64)
        _, first, kind = np.unique(ids, return_index=True, return_inverse=True)
        numbers: dict[int, int] = {}  # by the agent's id
        agents: list[Any] = []
        rows = np.full((len(first), self.num_players - 1), -1, dtype=np.intp)
        for k in np.argsort(first).tolist():
            for position, agent in zip(range(self.num_players - 1), self.opponents[first[k]]):
                if id(agent) not in numbers:
                    numbers[id(agent)] = len(agents)
                    agents.append(agent)
                rows[k, position] = numbers[id(agent)]
        which = rows[kind.reshape(-1)]
        others = self._other_seats[self.seats]
        groups = []
        for number, agent in enumerate(agents):
            tables, at = np.nonzero(which == number)
            groups.append((agent, np.stack((tables, others[tables, at]), axis=1)))
        return self.dealt().decide_groups(groups, actions)

    def play(self, actions: np.ndarray, legal: np.ndarray | None = None) -> np.ndarray:
        """The payoffs ``(B, players)`` of the hands dealt, the learners playing ``actions``
        (int64 ``(B,)``; slots under ``actions="offered"``, played as the splits in them) and the
        opponents deciding theirs; where ``legal`` (bool ``(B,)``) is false the table is not
        scored and its payoffs are 0."""
        tables = self.dealt()
        rows = np.arange(self.num_tables)
        actions = self.form.splits(actions if legal is None else np.where(legal, actions, 0), self.offered)
        played = self.decide(np.zeros((self.num_tables, self.num_players), dtype=np.int64))
        if legal is None or legal.all():
            played[rows, self.seats] = actions
            return tables.score(played).payoffs
        played[rows, self.seats] = np.where(legal, actions, played[rows, self.seats])
        payoffs = np.zeros((self.num_tables, self.num_players))
        if legal.any():
            kept = Tables(self.game, tables.slots[legal], self.mask)
            payoffs[legal] = kept.score(played[legal]).payoffs
        return payoffs
