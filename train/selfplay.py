"""The single-seat self-play view of a game, batched over many tables for training, and
the pool of opponents it draws from.

:class:`SelfPlayEnv` is a ``gymnasium.Env`` with ``action_masks()`` (for sb3-contrib's
MaskablePPO) built directly on the :class:`~splitpoker.envs.games.Game` interface, with the
same data flow as the PettingZoo environments:

=================  ==========================================================================
Episode            one hand, one decision: ``reset`` deals (or takes scripted hands), ``step``
                   takes the learner's split, lets the other seats act, scores the table
Learner seat       rotates hand by hand (``seat`` option of ``reset`` fixes it)
Observation        :func:`~splitpoker.envs.observation.encode_observation` of the learner's
                   seat (float32, flat)
Action             ``Discrete(n_actions)``: the split index (section 11 of the games' RULES.md); a split
                   outside the mask is a ``ValueError``, or under ``illegal_action="penalty"``
                   ends the hand with ``illegal_reward`` (``info["illegal_action"]``)
Mask               ``action_masks()``: the valid splits of the learner's hand (bool), or its
                   candidates under ``mask="undominated"`` (``selfplay.mask``)
Reward             the learner's payoff times ``reward_scale``; ``terminated=True``
Info (step)        ``payoff`` (unscaled), ``payoffs`` (every seat), ``seat``, ``opponents``
=================  ==========================================================================

With ``actions="offered"`` (:mod:`splitpoker.envs.offered_env`) the learner is offered up to
``offer`` (K) of its candidates: the observation is its seat vector followed by the offer's K
feature rows (``Box(D + K*F)``), the action a slot (``Discrete(K)``), played as the split in
it, and ``action_masks()`` marks the filled slots (``(K,)``; ``(n_envs, K)`` for
:class:`SelfPlayVecEnv`), so that sb3-contrib's MaskablePPO learns over the offered splits.

:class:`SelfPlayVecEnv` is the same view as an SB3 ``VecEnv`` of ``n_envs`` learner seats,
an adapter over :class:`~splitpoker.envs.learner_seat.LearnerSeats` (the learner-seat core
under gymnasium's :class:`~splitpoker.envs.vector.ArrangeVectorEnv` too): all tables are
dealt together, the learner's masks and observations are computed in one call, the opponent
seats of all tables that play the same agent (a snapshot, a baseline) are decided in one
``act_batch`` call (one forward pass for a policy), and all tables are scored together.
Training uses it; :class:`SelfPlayEnv` is the one-table ``gymnasium.Env`` for users' own loops:

>>> env = SelfPlayEnv("biji", 4, opponents="greedy", illegal_action="penalty")
>>> obs, info = env.reset(seed=123)
>>> info["seat"], env.reset(seed=123)[1]["seat"]
(0, 0)

:class:`OpponentPool` holds frozen snapshots of the learner (policy states) and baseline
agents, and draws the opponents of each hand: a seat gets a baseline with probability
``baseline_share``, otherwise a snapshot chosen by ``opponent_sampling``. Either is an
agent (``act_batch(views)``; a snapshot's policy is wrapped as one), what the core seats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from ..agents import load_agent
from ..agents.base import Agent
from ..envs.cards import format_cards
from ..envs.game import Game
from ..envs.games import make_game
from ..envs.learner_seat import LearnerSeats
from ..envs.offered import Offered
from ..envs.offered_env import action_form, slot_message
from ..envs.table import (
    SeatView,
    Tables,
    check_illegal,
    check_seat,
    deal,
    from_hands,
)
from ..runtime.seeding import derived_seed
from .config import SelfPlayConfig


class NamedAgent(Agent):
    """An agent under another name (a baseline is named by its spec in the opponent mix)."""

    def __init__(self, name: str, agent: Agent) -> None:
        self.name = name
        self.agent = agent

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        return self.agent.act_batch(views)

    def seed(self, seed: int | None) -> None:
        self.agent.seed(seed)


@dataclass
class Snapshot:
    """A frozen copy of the learner's policy."""

    name: str
    step: int
    state: dict[str, Any]


class OpponentPool:
    """Snapshots of the learner and baseline agents; draws the opponents of a hand.

    ``meta`` is the policy description of :func:`splitpoker.agents.checkpoint.policy_meta` used to
    rebuild snapshot networks. Draws and snapshot sampling use the pool's own seeded
    generator."""

    def __init__(self, game: Game, num_players: int, meta: Mapping[str, Any], config: SelfPlayConfig,
                 seed: int = 0) -> None:
        self.game = game
        self.num_players = num_players
        self.meta = dict(meta)
        self.config = config
        self.rng = np.random.default_rng([seed, 7])
        self.snapshots: list[Snapshot] = []
        self.baselines: list[Agent] = [
            NamedAgent(spec, load_agent(spec, game=game, num_players=num_players, seed=seed + i))
            for i, spec in enumerate(config.baselines)]
        self._agents: dict[str, Agent] = {}

    def __len__(self) -> int:
        return len(self.snapshots)

    def add(self, state: Mapping[str, Any], step: int) -> Snapshot:
        """Add a snapshot of the learner (its policy state dict); the oldest beyond ``pool_size`` leaves."""
        snapshot = Snapshot(f"snapshot@{int(step)}", int(step),
                            {k: v.detach().cpu().clone() for k, v in state.items()})
        self.snapshots = [s for s in self.snapshots if s.name != snapshot.name] + [snapshot]
        while len(self.snapshots) > self.config.pool_size:
            dropped = self.snapshots.pop(0)
            self._agents.pop(dropped.name, None)
        return snapshot

    def state(self) -> dict[str, Any]:
        """Everything needed to rebuild the pool (for checkpoints and subprocess envs)."""
        return {"snapshots": [{"name": s.name, "step": s.step, "state": s.state} for s in self.snapshots],
                "rng": self.rng.bit_generator.state}

    def load_state(self, state: Mapping[str, Any]) -> None:
        self.snapshots = [Snapshot(s["name"], int(s["step"]), dict(s["state"])) for s in state["snapshots"]]
        self._agents = {}
        if state.get("rng") is not None:
            self.rng.bit_generator.state = state["rng"]

    def agent(self, snapshot: Snapshot) -> Agent:
        """The (cached) agent playing a snapshot."""
        if snapshot.name not in self._agents:
            from ..agents.learned.policy import snapshot_agent

            rng = self.rng if self.config.snapshot_play == "sample" else None
            self._agents[snapshot.name] = snapshot_agent(self.meta, snapshot.state, snapshot.name, rng=rng)
        return self._agents[snapshot.name]

    def _pick_snapshot(self) -> Snapshot:
        mode = self.config.opponent_sampling
        if mode == "latest" or (mode == "mixed" and self.rng.random() < self.config.latest_share):
            return self.snapshots[-1]
        return self.snapshots[int(self.rng.integers(len(self.snapshots)))]

    def draw(self, seats: int) -> list[Agent]:
        """Opponents for ``seats`` seats."""
        out: list[Agent] = []
        for _ in range(seats):
            if not self.snapshots or (self.baselines and self.rng.random() < self.config.baseline_share):
                if not self.baselines:
                    raise ValueError("the opponent pool has no snapshot and no baseline agent")
                out.append(self.baselines[int(self.rng.integers(len(self.baselines)))])
            else:
                out.append(self.agent(self._pick_snapshot()))
        return out


class SelfPlayEnv(gymnasium.Env):
    """One learner seat at a table of opponents drawn from an :class:`OpponentPool` (see module doc).

    ``game``: a :class:`~splitpoker.envs.game.Game` or a game's name (its classic preset).
    The other seats are played by ``opponents``: one agent spec or agent for every seat, or
    one per seat in seat order (specs are built with ``load_agent``), or drawn hand by hand
    from ``pool`` (an :class:`OpponentPool`, as training does); give one of the two, or
    ``options["opponents"]`` at every reset. ``illegal_action`` and ``illegal_reward``: a
    split outside the mask raises (``"raise"``, the default) or ends the hand with that
    reward (``"penalty"``). ``actions`` and ``offer``: the learner's action, a split index
    or a slot of up to ``offer`` offered splits (:func:`~splitpoker.envs.offered_env.action_form`;
    ``mask`` None: ``"valid"``, or ``"undominated"`` under ``"offered"``).

    ``reset(seed=s)`` is deterministic: the deal, the learner's seat (the rotation restarts
    at ``seat_offset``) and, with ``opponents``, their play (each is reseeded from ``s``);
    a pool's draws follow the pool's own generator. ``reset(options=...)`` accepts ``hands``
    (one hand per seat: card strings or ids, to script a deal), ``seat`` (the learner's
    seat) and ``opponents`` (agents for the other seats in seat order, for this hand)."""

    metadata = {"render_modes": []}

    def __init__(self, game: Game | str, num_players: int = 4, pool: OpponentPool | None = None,
                 reward_scale: float = 1.0, seat_offset: int = 0, mask: str | None = None, *,
                 opponents: str | Agent | Sequence[str | Agent] | None = None, illegal_action: str = "raise",
                 illegal_reward: float = -1.0, actions: str = "index", offer: int | None = None) -> None:
        super().__init__()
        self.game = make_game(game) if isinstance(game, str) else game
        game = self.game
        #: the learner's form of action (a split index, or a slot of its offered splits)
        self.form = action_form(actions, mask, offer, game)
        self.mask = self.form.mask
        self.num_players = game.check_players(num_players)
        self.illegal_action, self.illegal_reward = check_illegal(illegal_action, illegal_reward)
        if opponents is not None and pool is not None:
            raise ValueError("give the opponents or a pool, not both")
        self.pool = pool
        #: the agents of the other seats in seat order, when given (else drawn from the pool)
        self.opponents = None if opponents is None else self._build_opponents(opponents)
        self.reward_scale = float(reward_scale)
        self.action_space = gymnasium.spaces.Discrete(self.form.width)
        # the observation's own bounds (0, and 1 or the count a rule sets): finite, as gymnasium's checks
        # ask (a policy reads the same values under spaces_of's unbounded Box of the same shape)
        self.observation_space = self.form.box(self.num_players, finite=True)
        self.seat_offset = seat_offset
        self._episode = seat_offset
        self._tables: Tables | None = None
        self._offered: Offered | None = None
        self._mask = np.zeros(self.form.width, dtype=bool)
        self._obs = np.zeros(self.form.observation_size, dtype=np.float32)
        self._seat = 0
        self._opponents: list[Agent] = []

    def _build_opponents(self, opponents: str | Agent | Sequence[str | Agent]) -> list[Agent]:
        seats = self.num_players - 1
        given = [opponents] * seats if isinstance(opponents, (str, Agent)) else list(opponents)
        if len(given) != seats:
            raise ValueError(f"opponents has {len(given)} agents for the {seats} other seats")
        built = []
        for i, opponent in enumerate(given):
            if isinstance(opponent, str):
                opponent = load_agent(opponent, game=self.game, num_players=self.num_players, seed=i)
            elif not isinstance(opponent, Agent):
                raise ValueError(f"opponent {opponent!r} is neither an agent spec nor an Agent")
            built.append(opponent)
        return built

    def restart_at(self, hands: int) -> None:
        """Continue as after ``hands`` hands: the learner's next seat is ``(seat_offset + hands) % players``."""
        self._episode = self.seat_offset + int(hands)

    # ------------------------------------------------------------------ pool updates
    def set_pool_state(self, state: Mapping[str, Any]) -> None:
        """Replace the pool's snapshots (used to update envs in other processes)."""
        if self.pool is None:
            raise ValueError("this env has no opponent pool")
        self.pool.load_state(state)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._episode = self.seat_offset
            for i, opponent in enumerate(self.opponents or ()):
                opponent.seed(derived_seed(seed, i))
        options = dict(options or {})
        unknown = sorted(set(options) - {"hands", "seat", "opponents"})
        if unknown:
            raise ValueError(f"unknown reset option {unknown[0]!r}; options: hands, seat, opponents")
        n = self.num_players
        if "hands" in options:
            tables = from_hands(self.game, options["hands"], n, what="options['hands']", mask=self.mask)
        else:
            tables = deal(self.game, n, self.np_random, mask=self.mask)
        self._seat = check_seat(options.get("seat", self._episode % n), n)
        self._episode += 1
        if "opponents" in options:
            self._opponents = list(options["opponents"])
            if len(self._opponents) != n - 1:
                raise ValueError(f"options['opponents'] has {len(self._opponents)} agents for {n - 1} seats")
        elif self.opponents is not None:
            self._opponents = self.opponents
        else:
            if self.pool is None:
                raise ValueError("this env has no opponent pool and no opponents; give opponents= or "
                                 "options['opponents']")
            self._opponents = self.pool.draw(n - 1)
        self._tables = tables
        view = tables.view(0, self._seat)
        offered = self._offered = self.form.offers(tables, [(0, self._seat)])
        self._mask = view.mask if offered is None else offered.mask[0]
        self._obs = self.form.observation(view.observation, offered, 0)
        info = view.info()
        if offered is not None:
            info["offered"] = offered.splits[0].tolist()
        return self._obs, info

    def action_masks(self) -> np.ndarray:
        """The valid splits of the learner's hand (its candidates under ``mask="undominated"``;
        its filled slots under ``actions="offered"``)."""
        return self._mask

    def _opponent_actions(self, actions: np.ndarray) -> None:
        """Every opponent seat's split into ``actions``: the seats played by one agent are
        decided in one batch."""
        assert self._tables is not None
        seats = [s for s in range(self.num_players) if s != self._seat]
        self._tables.decide([(0, seat, agent) for seat, agent in zip(seats, self._opponents)], actions.reshape(1, -1))

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, a split index (a slot under ``actions="offered"``): a
        Python or NumPy integer, or a 0-d integer array (what SB3's ``DummyVecEnv`` and
        ``predict`` pass); anything else (``1.5``, ``"0"``, ``True``, ``[0]``) is a ValueError
        naming it, as is a split outside the mask (see the class doc)."""
        if self._tables is None:
            raise ValueError("the hand is over; call reset() before step()")
        action = int(self.form.checked_actions(action))
        if 0 <= action < self.form.width and not self._mask[action] and self.illegal_action == "penalty":
            self._tables = None
            return self._obs.copy(), self.illegal_reward, True, False, {"payoff": self.illegal_reward,
                                                                         "seat": self._seat, "illegal_action": action}
        if not 0 <= action < self.form.width or not self._mask[action]:
            hand = format_cards(self._tables.slots[0, self._seat])
            if self._offered is not None:
                raise ValueError(slot_message(action, "the learner", self._offered, 0, hand))
            raise ValueError(f"split {action} is not valid for the learner's hand {hand}")
        actions = np.zeros(self.num_players, dtype=np.int64)
        self._opponent_actions(actions)
        actions[self._seat] = self.form.splits(np.array([action]), self._offered)[0]
        payoffs = self._tables.score(actions[None]).payoffs[0]
        payoff = float(payoffs[self._seat])
        info = {"payoff": payoff, "payoffs": payoffs.tolist(), "seat": self._seat,
                "opponents": [a.name for a in self._opponents]}
        self._tables = None
        return self._obs.copy(), payoff * self.reward_scale, True, False, info  # the caller's own array


class SelfPlayVecEnv(VecEnv):
    """``n_envs`` learner seats, one per table, at tables dealt, decided and scored together
    (see the module doc). Each env's learner seat rotates hand by hand, starting at its
    index; every hand ends after one step and the next is dealt at once (the finished
    hand's observation is in ``infos[i]["terminal_observation"]``), each table's opponents
    drawn from ``pool``. Deals use a generator seeded by :meth:`seed` (SB3 seeds it with the
    run's seed), the draws the pool's own. ``mask``, ``actions`` and ``offer``: as for
    :class:`SelfPlayEnv`; the observation space is unbounded, as the learned policies are
    built (:func:`~splitpoker.envs.observation.spaces_of`)."""

    metadata = {"render_modes": []}
    render_mode = None

    def __init__(self, game: Game, num_players: int, pool: OpponentPool, n_envs: int,
                 reward_scale: float = 1.0, mask: str | None = None, *, actions: str = "index",
                 offer: int | None = None) -> None:
        form = action_form(actions, mask, offer, game)
        super().__init__(n_envs, form.box(game.check_players(num_players), finite=None),
                         gymnasium.spaces.Discrete(form.width))
        #: the learners' form of action (a split index, or a slot of their offered splits)
        self.form = form
        self.mask = form.mask
        self.game = game
        self.num_players = game.check_players(num_players)
        self.pool = pool
        self.reward_scale = float(reward_scale)
        self.rng = np.random.default_rng()
        #: the tables, the learner seats, their masks and observations, and the opponents drawn
        self.core = LearnerSeats(game, n_envs, self.num_players, self.mask, actions=actions, offer=form.offer or None)
        self._actions: np.ndarray | None = None

    # ------------------------------------------------------------------ hands
    def _deal(self) -> np.ndarray:
        self.core.deal(self.rng, [self.pool.draw(self.num_players - 1) for _ in range(self.num_envs)])
        return self.core.observations

    def _opponent_actions(self, actions: np.ndarray) -> None:
        """Every opponent seat's split into ``actions`` (B, players): the seats of all tables
        played by one agent are decided in one batch."""
        self.core.decide(actions)

    # ------------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        if self._seeds[0] is not None:
            self.rng = np.random.default_rng([int(self._seeds[0]), 11])
        self._reset_seeds()
        return self._deal().copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Take every env's action, ``(n_envs,)`` integers (split indices, or slots under
        ``actions="offered"``; SB3 passes int64); ValueError naming them when they are not
        integers of that shape (nothing is rounded or reshaped)."""
        self._actions = self.form.checked_actions(actions, self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        core = self.core
        if core.tables is None or self._actions is None:
            raise ValueError("call reset() before step()")
        learner, seats = self._actions, core.seats
        self._actions = None
        bad = ~core.legal(learner)
        if bad.any():
            b = int(np.flatnonzero(bad)[0])
            hand = format_cards(core.tables.slots[b, seats[b]])
            if core.offered is not None:
                raise ValueError(slot_message(int(learner[b]), f"the learner (env {b})", core.offered, b, hand))
            raise ValueError(f"split {learner[b]} is not valid for the learner's hand {hand} (env {b})")
        payoffs = core.play(learner)
        payoff = payoffs[np.arange(self.num_envs), seats]
        infos = [{"payoff": float(payoff[b]), "payoffs": payoffs[b].tolist(), "seat": int(seats[b]),
                  "opponents": [a.name for a in core.opponents[b]], "terminal_observation": core.observations[b]}
                 for b in range(self.num_envs)]
        observations = self._deal().copy()
        return (observations, (payoff * self.reward_scale).astype(np.float32), np.ones(self.num_envs, dtype=bool),
                infos)

    def restart_at(self, hands: int) -> None:
        """Continue as after ``hands`` hands of each env: env i's learner next sits at ``(i + hands) % players``."""
        self.core.hands = int(hands)

    def action_masks(self) -> np.ndarray:
        """The valid splits of every env's learner hand, ``(n_envs, n_actions)`` bool (the filled
        slots, ``(n_envs, K)``, under ``actions="offered"``)."""
        return self.core.masks

    def set_pool_state(self, state: Mapping[str, Any]) -> None:
        """Replace the pool's snapshots (as :meth:`SelfPlayEnv.set_pool_state`)."""
        self.pool.load_state(state)

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks":  # sb3-contrib's get_action_masks stacks one mask per env
            return list(self.core.masks[self._get_indices(indices)])
        method = getattr(self, method_name)
        return [method(*method_args, **method_kwargs) for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

