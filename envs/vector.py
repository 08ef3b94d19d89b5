"""Vector environments over the table core: ``B`` tables dealt, decided and scored together.

Every hand is one decision per seat, so a table's episode is one step; both classes deal
the next hands in the same step that scores the last ones (autoreset).

:class:`TableBatchEnv`, the batched multi-agent step API, every seat of every table acting:

=================  ==========================================================================
``reset(seed)``    ``(observations, action_masks, infos)``: observations ``(B, players, D)``
                   float32 (:func:`~splitpoker.envs.observation.encode_observations`), masks
                   ``(B, players, n_actions)`` bool (valid splits, or the candidates under
                   ``mask="undominated"``), ``infos["slots"]`` the hands (card ids in slot order)
                   ``(B, players, hand size)``
``step(actions)``  ``actions`` ``(B, players)`` split indices → ``(observations, action_masks,
                   rewards, terminations, infos)`` of the next hands; ``rewards`` ``(B, players)``
                   the payoffs of the hands just played, ``terminations`` all true, ``infos``
                   the typed outcomes (``rows_won``, ``fouled``, ``special``, ``xi``) and the
                   played hands' ``final_slots``. A split outside a mask is a ValueError
                   naming the table and seat, and nothing changes.
=================  ==========================================================================

:class:`ArrangeVectorEnv`, a ``gymnasium.vector.VectorEnv`` for single-agent learners: one
learner seat per table (rotating hand by hand, or fixed), the other seats played by
``opponents`` (any agent, deciding every table's seats in one ``act_batch`` call; by default
uniformly random valid splits, :class:`RandomSplits`), in ``SAME_STEP`` autoreset mode: a
step returns the next hands' observations, and the finished hands' in ``infos["final_obs"]``.
The observation is a ``Dict`` of ``observation`` (float32) and ``action_mask`` (int8), as the
PettingZoo environments give it, or with ``observation="flat"`` the vector alone (a ``Box``
of finite bounds) with the masks in ``infos["action_mask"]``; :meth:`ArrangeVectorEnv.action_masks` gives them as
bool ``(B, n_actions)`` for sb3-contrib's masked algorithms. Rewards are the learner's
payoffs. ``infos`` hold ``seat`` and ``hand_ids`` (the learner's hand: card ids of
:mod:`splitpoker.envs.cards` in slot order, int64 ``(B, hand size)``, what the observation
encodes) of the hands dealt, and after a step ``payoff``, ``payoffs`` ``(B, players)``,
``played_seat`` and ``final_hand_ids`` of the hands just played.

>>> env = ArrangeVectorEnv("biji", num_envs=8, num_players=4)
>>> obs, infos = env.reset(seed=0)
>>> obs["action_mask"].shape, int(infos["seat"][1]), infos["hand_ids"].shape
((8, 1680), 1, (8, 9))
>>> actions = np.array([int(np.flatnonzero(m)[0]) for m in obs["action_mask"]])
>>> obs, rewards, terminations, truncations, infos = env.step(actions)
>>> rewards.shape, bool(terminations.all()), infos["final_obs"].shape, infos["final_hand_ids"].shape
((8,), True, (8,), (8, 9))

Both take ``actions="offered"`` (:mod:`splitpoker.envs.offered_env`): each seat is offered
up to ``offer`` (K, default ``Game.default_offer``) of its candidates, the action is a slot
``0 … K-1``, the observation is the seat vector followed by the offer's K feature rows
(``D + K*F`` float32), the mask marks the filled slots (``K`` wide) and ``infos["offered"]``
holds the split in each slot (int64, −1 in empty ones): ``(B, K)`` for the learners of
:class:`ArrangeVectorEnv`, ``(B, players, K)`` for :class:`TableBatchEnv`. ``mask`` is then
``"undominated"`` (the default; ``"valid"`` is a ValueError); under ``actions="index"``, the
default, it is ``"valid"`` unless given.

>>> env = ArrangeVectorEnv("biji", num_envs=4, num_players=4, actions="offered", offer=8)
>>> obs, infos = env.reset(seed=0)
>>> obs["observation"].shape == (4, env.form.observation_size), env.action_masks().shape, infos["offered"].shape
(True, (4, 8), (4, 8))
>>> rewards = env.step(np.zeros(4, dtype=np.int64))[1]  # slot 0: the first split offered
>>> rewards.shape
(4,)

gymnasium's vector wrappers apply. ``RecordEpisodeStatistics`` records every hand, an episode
of one step, from gymnasium 1.4 on; earlier releases ignore ``SAME_STEP`` autoreset and record
each table's first hand right and every later one with return 0 and length 0: the environment
warns once when such a wrapper drives it (:data:`RECORDS_SAME_STEP`).

Both are seeded by ``reset(seed=s)``: the deals, the learner seats' rotation and the random
opponents follow ``s``, and given opponents are reseeded from it.

Both read every hand, mask and observation from :class:`~splitpoker.envs.table.Tables`;
:class:`ArrangeVectorEnv` is a gymnasium adapter over
:class:`~splitpoker.envs.learner_seat.LearnerSeats`, the learner-seat core that training's
``SelfPlayVecEnv`` adapts to Stable-Baselines3. Pure: NumPy and gymnasium.
"""

from __future__ import annotations

import re
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from types import FrameType
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..runtime.arguments import is_whole
from ..runtime.limits import MAX_ENVS, check_batch
from ..runtime.seeding import as_generator, check_seed, derived_seed
from .cards import format_cards
from .game import Game
from .games import make_game
from .learner_seat import MASK_CHUNK, LearnerSeats, Opponent
from .offered import Offered
from .offered_env import action_form, slot_message
from .table import (
    SeatViews,
    Tables,
    check_illegal,
    deal,
)

__all__ = ["TableBatchEnv", "ArrangeVectorEnv", "RandomSplits", "random_valid_splits", "MAX_TABLES"]

#: the most tables one vector environment steps; fewer where their masks and observations
#: would take more than :data:`splitpoker.runtime.limits.MAX_BATCH_BYTES` (a game of many
#: splits: each seat's mask takes n_actions bytes)
MAX_TABLES = MAX_ENVS
OBSERVATIONS = ("dict", "flat")


def _release(version: str) -> tuple[int, ...]:
    """The major and minor numbers of a version string (``"1.2.2"`` → ``(1, 2)``)."""
    return tuple(int(part) for part in re.findall(r"\d+", version)[:2])


#: whether gymnasium's vector ``RecordEpisodeStatistics`` honours ``SAME_STEP`` autoreset (from
#: 1.4 on; before, it takes the step after a finished episode for a reset step, so that every hand
#: after a table's first is recorded with return 0 and length 0)
RECORDS_SAME_STEP = _release(gymnasium.__version__) >= (1, 4)
#: whether :func:`_warn_record_statistics` has warned in this process
_statistics_warned = False
#: the callers searched for gymnasium's ``RecordEpisodeStatistics`` (wrappers between it and the env)
_CALLER_DEPTH = 8


def _warn_record_statistics() -> None:
    """Warn, once a process, when gymnasium's vector ``RecordEpisodeStatistics`` of a release
    before 1.4 calls the environment's ``reset`` or ``step`` (directly or through other
    wrappers): those releases ignore ``SAME_STEP`` autoreset and record wrong returns."""
    global _statistics_warned
    if RECORDS_SAME_STEP or _statistics_warned:
        return
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    codes = {RecordEpisodeStatistics.step.__code__, RecordEpisodeStatistics.reset.__code__}
    frame: FrameType | None = sys._getframe(2)  # 0: here, 1: the env's reset or step
    depth = 2
    while frame is not None and depth < 2 + _CALLER_DEPTH:
        if frame.f_code in codes:
            _statistics_warned = True
            warnings.warn(
                f"gymnasium {gymnasium.__version__}'s vector RecordEpisodeStatistics ignores ArrangeVectorEnv's "
                "SAME_STEP autoreset: it records each table's first hand right and every later hand with return 0 "
                "and length 0. Install gymnasium 1.4 or later (pip install 'gymnasium>=1.4'; RLlib, the [rllib] "
                "extra, holds it at 1.2.2), or take the returns from the step's rewards or infos['payoff']: every "
                "hand is an episode of one step.", UserWarning, stacklevel=depth + 2)
            return
        frame, depth = frame.f_back, depth + 1


class BatchAgent(Opponent, Protocol):
    """What an opponent of :class:`ArrangeVectorEnv` must offer (every splitpoker agent does):
    ``act_batch(views)``, and ``seed`` (the environment's seed reseeds it)."""

    def seed(self, seed: int | None) -> None: ...


def _check_tables(num_envs: Any) -> int:
    if not is_whole(num_envs) or not 1 <= num_envs <= MAX_TABLES:
        raise ValueError(f"num_envs={num_envs!r} is not a number of tables from 1 to {MAX_TABLES:,}")
    return int(num_envs)


def _check_table_bytes(num_envs: int, game: Game, num_players: int, bytes_each: int) -> int:
    """``num_envs`` unless the tables' masks and observations, ``bytes_each`` bytes a table,
    take more than :data:`~splitpoker.runtime.limits.MAX_BATCH_BYTES`; else ValueError
    naming the most tables allowed."""
    return check_batch(num_envs, "num_envs=", bytes_each, most=MAX_TABLES,
                       items=f"{game.name} tables of {num_players} seats")


def _game(game: Game | str, preset: str, switches: Mapping[str, Any]) -> Game:
    if isinstance(game, Game):
        if preset != "classic" or switches:
            raise ValueError("give a game's name with preset and switches, or a Game without them")
        return game
    if not isinstance(game, str):
        raise ValueError(f"game {game!r} is neither a game's name nor a Game")
    return make_game(game, preset, **switches)


def seat_masks(game: Game, slots: np.ndarray, mask: str) -> np.ndarray:
    """The masks of hands ``slots`` (K, hand size) of the kind ``mask``: every valid split,
    or the candidates; bool (K, n_actions), computed :data:`MASK_CHUNK` hands at a time.

    Deprecated: the environments read their seats' masks from the table core
    (:meth:`Tables.masks_at <splitpoker.envs.table.Tables.masks_at>`, ``SeatViews.masks``),
    which computes them :data:`MASK_CHUNK` seats a call
    (:func:`~splitpoker.envs.learner_seat.prepare_seats`)."""
    warnings.warn("splitpoker.envs.vector.seat_masks is deprecated: read the seats' masks from the table core "
                  "(Tables.masks_at, SeatViews.masks)", DeprecationWarning, stacklevel=2)
    compute = game.valid_masks if mask == "valid" else game.candidate_masks
    if len(slots) <= MASK_CHUNK:
        return compute(slots)
    out = np.empty((len(slots), game.n_actions), dtype=bool)
    for start in range(0, len(slots), MASK_CHUNK):
        out[start:start + MASK_CHUNK] = compute(slots[start:start + MASK_CHUNK])
    return out


def random_valid_splits(game: Game, slots: np.ndarray | None, rng: np.random.Generator,
                        masks: np.ndarray | None = None, draws: int = 8, rounds: int = 4) -> np.ndarray:
    """A split drawn uniformly from the valid ones of each hand ``slots`` (K, hand size),
    or from ``masks`` (K, n_actions) bool when given (then ``slots`` is not read and may be
    None): by rejection, ``draws`` uniform indices a hand checked at once in up to
    ``rounds`` rounds (the first valid one is a uniform draw among the valid), without
    building the masks; a hand that misses every round draws from its mask."""
    if masks is None and slots is None:
        raise ValueError("random_valid_splits needs the hands' slots or their masks")
    given = np.asarray(slots) if masks is None else masks  # hands (K, hand size), or masks (K, n_actions)
    choice = np.full(len(given), -1, dtype=np.int64)
    todo = np.arange(len(given))
    for _ in range(rounds):
        if not len(todo):
            return choice
        tries = rng.integers(0, game.n_actions, size=(len(todo), draws))
        hit = (given[todo[:, None], tries] if masks is not None
               else game.valid_arrangements(game.arranged(np.repeat(given[todo, None, :], draws, axis=1), tries)))
        found = hit.any(axis=1)
        choice[todo[found]] = tries[found, hit[found].argmax(axis=1)]
        todo = todo[~found]
    for k in todo.tolist():
        playable = np.flatnonzero(given[k] if masks is not None else game.valid_mask(given[k]))
        choice[k] = playable[int(rng.integers(len(playable)))]
    return choice


class RandomSplits:
    """The opponent of :class:`ArrangeVectorEnv` when none is given: at each seat a split
    drawn uniformly from its mask (:func:`random_valid_splits`; from the valid splits without
    making their masks), from the generator ``rng()`` returns at each call (the environment's,
    which deals too)."""

    name = "random"

    def __init__(self, game: Game, rng: Callable[[], np.random.Generator]) -> None:
        self.game = game
        self.rng = rng

    def act_batch(self, views: SeatViews) -> np.ndarray:
        masks = None if views.mask_kind == "valid" else views.masks
        return random_valid_splits(self.game, views.slots, self.rng(), masks)


class TableBatchEnv:
    """``num_envs`` tables of ``num_players`` seats, every seat acting (see the module doc).
    ``game``: a game's name (with ``preset`` and rule switches) or a Game. ``actions``,
    ``offer`` and ``mask``: the seats' form of action, a split index or a slot of their
    offered splits, and their masks (:func:`~splitpoker.envs.offered_env.action_form`)."""

    def __init__(self, game: Game | str = "thirteen", num_envs: int = 1, num_players: int = 4, *,
                 preset: str = "classic", mask: str | None = None, actions: str = "index", offer: int | None = None,
                 **switches: Any) -> None:
        self.game = _game(game, preset, switches)
        self.num_envs = _check_tables(num_envs)
        self.num_players = self.game.check_players(num_players)
        #: the seats' form of action (a split index, or a slot of their offered splits)
        self.form = action_form(actions, mask, offer, self.game)
        self.mask = self.form.mask
        # each seat's mask and observation (and offer), and its hand
        per_seat = self.form.seat_bytes() + 8 * self.game.hand_size
        _check_table_bytes(self.num_envs, self.game, self.num_players, self.num_players * per_seat)
        self.rng = np.random.default_rng()
        self._tables: Tables | None = None
        self._offered: Offered | None = None
        self._masks = np.zeros((0, self.num_players, self.form.width), dtype=bool)

    def _deal(self) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        tables = self._tables = deal(self.game, self.num_players, self.rng, batch=self.num_envs, mask=self.mask)
        seats, shape = tables.views().pair_array, tables.slots.shape[:2]  # every seat, table by table, read once
        offered = self._offered = self.form.offers(tables, seats)
        masks = tables.masks_at(seats, keep=False) if offered is None else offered.mask
        self._masks = masks.reshape(*shape, self.form.width)
        observations = self.form.observations(tables.observations_at(seats, keep=False), offered).reshape(*shape, -1)
        infos = {"slots": tables.slots.copy()}
        if offered is not None:
            infos["offered"] = offered.splits.reshape(*shape, -1)
        return observations, self._masks, infos

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Deal new hands at every table (``seed``, a non-negative integer or a sequence of
        them, fixes them and every later deal; ValueError for another seed)."""
        if seed is not None:
            self.rng = as_generator(seed)
        return self._deal()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Score every table's ``actions`` (B, players) and deal the next hands."""
        if self._tables is None:
            raise ValueError("call reset() before step()")
        array = self._splits(actions, self._tables)
        result = self._tables.score(array)
        outcomes = result.outcomes
        infos = {"rows_won": outcomes.rows_won, "fouled": outcomes.fouled, "special": outcomes.special,
                 "xi": outcomes.xi, "final_slots": self._tables.slots}
        observations, masks, dealt = self._deal()
        infos.update(dealt)
        return (observations, masks, result.payoffs.astype(np.float32), np.ones(self.num_envs, dtype=bool), infos)

    def _splits(self, actions: Any, tables: Tables) -> np.ndarray:
        """The split indices ``(B, players)`` the seats' ``actions`` play: valid splits in
        their masks, or under ``actions="offered"`` the splits in their slots; ValueError
        naming the table and the seat of the first that is not."""
        if self._offered is not None:
            return self._offered_splits(actions, tables, self._offered)
        array = tables.check_actions(actions)
        rows, seats = np.indices(array.shape)
        outside = ~self._masks[rows, seats, array]
        if outside.any():  # valid, but not a candidate (mask="undominated")
            b, s = np.argwhere(outside)[0]
            raise ValueError(f"action {array[b, s]} of seat {s} (table {b}) is not in its action mask "
                             f"(mask={self.mask!r})")
        return array

    def _offered_splits(self, actions: Any, tables: Tables, offered: Offered) -> np.ndarray:
        """The splits in the slots ``actions`` (B, players) of the seats' offers; ValueError
        naming the table, the seat and the slot when one is out of range or empty."""
        array = np.asarray(actions)
        shape = (self.num_envs, self.num_players)
        if array.shape != shape or not np.issubdtype(array.dtype, np.integer):
            raise ValueError(f"actions of shape {array.shape} and type {array.dtype} are not integer slots of shape "
                             f"{shape}")
        slots = array.reshape(-1).astype(np.int64)
        inside = (slots >= 0) & (slots < self.form.offer)
        filled = inside & offered.mask[np.arange(len(slots)), np.where(inside, slots, 0)]
        if not filled.all():
            row = int(np.flatnonzero(~filled)[0])
            b, s = divmod(row, self.num_players)
            raise ValueError(slot_message(int(slots[row]), f"seat {s} (table {b})", offered, row,
                                          format_cards(tables.slots[b, s])))
        return offered.choose(slots).reshape(shape)


class ArrangeVectorEnv(VectorEnv):  # type: ignore[misc]
    """``num_envs`` learner seats, one per table, against ``opponents`` (see the module doc).

    ``game``: a game's name (with ``preset`` and rule switches) or a Game. ``opponents``:
    None (uniformly random valid splits), an agent for every other seat, or one agent per
    other seat in seat order (agents decide all tables' seats in one ``act_batch`` call;
    build them from specs with ``splitpoker.agents.load_agent``). ``seat``: ``"rotate"``
    (env i's learner sits at ``(i + hands) % players``) or a fixed seat. ``mask``: the
    learners' masks, and the random opponents' choices, over every valid split or the
    candidates (None: ``"valid"``, or ``"undominated"`` under ``actions="offered"``).
    ``actions`` and ``offer``: the learners' action, a split index or a slot of up to
    ``offer`` offered splits (:func:`~splitpoker.envs.offered_env.action_form`).
    ``illegal_action``: a learner's split outside its mask (an empty slot) raises
    (``"raise"``) or ends that table's hand unscored with ``illegal_reward``
    (``"penalty"``, ``infos["illegal"]``); an action out of range always raises."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, game: Game | str = "thirteen", num_envs: int = 1, num_players: int = 4,
                 opponents: BatchAgent | Sequence[BatchAgent] | None = None, *, preset: str = "classic",
                 seat: int | str = "rotate", mask: str | None = None, observation: str = "dict",
                 illegal_action: str = "raise", illegal_reward: float = -1.0, actions: str = "index",
                 offer: int | None = None, **switches: Any) -> None:
        self.game = _game(game, preset, switches)
        self.num_envs = _check_tables(num_envs)
        self.num_players = self.game.check_players(num_players)
        #: the learners' form of action (a split index, or a slot of their offered splits)
        self.form = action_form(actions, mask, offer, self.game)
        self.mask = self.form.mask
        # the learner's mask (bool, and the int8 copy handed out) and observation (and offer, with
        # its splits in the infos), the table's hands and the learner's two in the infos; with
        # random opponents under mask="undominated", the other seats' masks too
        n_actions, hands = self.game.n_actions, (self.num_players + 2) * self.game.hand_size
        others = (self.num_players - 1) * n_actions if opponents is None and self.mask == "undominated" else 0
        _check_table_bytes(self.num_envs, self.game, self.num_players,
                           self.form.seat_bytes() + self.form.width + 8 * self.form.offer + 8 * hands + others)
        self.illegal_action, self.illegal_reward = check_illegal(illegal_action, illegal_reward)
        if not isinstance(observation, str) or observation not in OBSERVATIONS:
            raise ValueError(f"observation={observation!r} is not one of {', '.join(map(repr, OBSERVATIONS))}")
        self.observation_kind = observation
        if seat != "rotate" and (not is_whole(seat) or not 0 <= int(seat) < self.num_players):
            raise ValueError(f"seat={seat!r} is neither 'rotate' nor a seat of a {self.num_players}-player table")
        self.seat = seat
        self.opponents = self._opponents(opponents)
        box = self.form.box(self.num_players, finite=observation == "flat")
        n_actions = self.form.width
        self.single_observation_space = box if observation == "flat" else spaces.Dict({
            "observation": box, "action_mask": spaces.Box(0, 1, (n_actions,), np.int8)})
        self.single_action_space = spaces.Discrete(n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.rng = np.random.default_rng()
        #: the tables, the learner seats, their masks and observations
        self.core = LearnerSeats(self.game, self.num_envs, self.num_players, self.mask, seat, actions,
                                 self.form.offer or None)
        #: the agents of every table's other seats, in seat order
        self._others: list[Sequence[Any]] = [
            self.opponents or [RandomSplits(self.game, lambda: self.rng)] * (self.num_players - 1)]
        self._obs: Any = None

    def _opponents(self, opponents: Any) -> list[BatchAgent] | None:
        if opponents is None:
            return None
        given = list(opponents) if isinstance(opponents, Sequence) and not isinstance(opponents, str) else (
            [opponents] * (self.num_players - 1))
        if len(given) != self.num_players - 1:
            raise ValueError(f"opponents has {len(given)} agents for the {self.num_players - 1} other seats")
        for agent in given:
            if not callable(getattr(agent, "act_batch", None)):
                raise ValueError(f"opponent {agent!r} is not an agent (no act_batch); build agents from specs "
                                 "with splitpoker.agents.load_agent")
        return given

    # ------------------------------------------------------------------ hands
    def _deal(self) -> tuple[Any, dict[str, Any]]:
        core = self.core
        core.deal(self.rng, self._others * self.num_envs)
        infos: dict[str, Any] = {"seat": core.seats.copy(), "hand_ids": core.hand_ids()}
        if core.offered is not None:
            infos["offered"] = core.offered.splits.copy()
        masks = core.masks.view(np.int8).copy()
        if self.observation_kind == "flat":
            self._obs = core.observations
            infos["action_mask"] = masks
        else:
            self._obs = {"observation": core.observations, "action_mask": masks}
        return self._obs, infos

    # ------------------------------------------------------------------ VectorEnv API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if options:
            raise ValueError(f"unknown reset option {sorted(options)[0]!r}; ArrangeVectorEnv takes none")
        if seed is not None:
            check_seed(seed)
            self.rng = np.random.default_rng([int(seed), 11])
            self.core.hands = 0
            for i, agent in enumerate(dict.fromkeys(self.opponents or ())):
                agent.seed(derived_seed(int(seed), i))
        _warn_record_statistics()
        return self._deal()

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        core = self.core
        core.dealt()
        _warn_record_statistics()
        learner = self.form.checked_actions(actions, self.num_envs)
        legal = core.legal(learner)
        outside = (learner < 0) | (learner >= self.form.width)
        if not legal.all() and (self.illegal_action == "raise" or outside.any()):
            b = int(np.flatnonzero(~legal)[0])
            if core.offered is not None:
                raise ValueError(slot_message(int(learner[b]), f"the learner (env {b}, seat {core.seats[b]})",
                                              core.offered, b, format_cards(core.hand_ids()[b])))
            raise ValueError(f"split {learner[b]} is not in the action mask of the learner's hand "
                             f"(env {b}, seat {core.seats[b]})")
        seats, final_hands = core.seats, core.hand_ids()
        payoffs = core.play(learner, legal)
        payoff = np.where(legal, payoffs[np.arange(self.num_envs), seats], self.illegal_reward)
        final = np.empty(self.num_envs, dtype=object)
        final[:] = [self._obs_at(b) for b in range(self.num_envs)]
        observations, infos = self._deal()
        infos.update({"payoff": payoff, "payoffs": payoffs, "played_seat": seats, "final_hand_ids": final_hands,
                      "final_obs": final, "_final_obs": np.ones(self.num_envs, dtype=bool)})
        if not legal.all():
            infos["illegal"] = ~legal
        terminations = np.ones(self.num_envs, dtype=bool)
        return observations, payoff.astype(np.float32), terminations, np.zeros(self.num_envs, dtype=bool), infos

    def _obs_at(self, b: int) -> Any:
        if isinstance(self._obs, dict):
            return {key: value[b] for key, value in self._obs.items()}
        return self._obs[b]

    def action_masks(self) -> np.ndarray:
        """The learners' masks, bool ``(num_envs, n_actions)`` (``(num_envs, K)`` under ``actions="offered"``)."""
        return self.core.masks

    def close_extras(self, **kwargs: Any) -> None:
        self.core.tables = None
