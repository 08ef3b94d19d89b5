"""The PettingZoo AEC environment shared by the arrangement games (Thirteen and Biji).

One class, :class:`ArrangeEnv`, parametrised by the registered game: ``thirteen/env.py``
and ``biji/env.py`` subclass it with the game's name and metadata, and build ``env`` /
``raw_env`` / ``parallel_env`` with :func:`make_env_fns`.

A hand is one simultaneous decision, as in rock-paper-scissors: the seats ``player_0 …
player_{n-1}`` act in seat order, once each, and no seat sees another's choice. After the
last seat has acted the table is scored once, every seat receives its payoff as reward and
every seat terminates.

The environment is a thin driver of the table core (:mod:`splitpoker.envs.table`) with one
table: ``reset`` deals it (or takes the given hands), the first observation prepares every
seat's mask and observation in one batched call, and the last step scores it. The
standard PettingZoo wrappers of ``env()`` are subclassed to read the per-hand state straight
from the raw environment (:func:`_direct`), which they otherwise forward through three
``__getattr__`` levels on every read.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import parallel_wrapper_fn
from pettingzoo.utils.wrappers import BaseWrapper

from .cards import format_cards
from .game import Game, Score
from .games import game_class, make_game
from .observation import observation_labels
from .registration import register_envs
from .render import render_table
from .table import Tables, deal, from_hands

RENDER_MODES = ("ansi", "human")
#: keyword arguments of every environment besides the rule switches
ENV_KEYWORDS = ("num_players", "preset", "render_mode")
#: the per-hand state of an AEC environment, which wrappers read from the raw environment
_STATE = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


class ArrangeEnv(AECEnv, EzPickle):
    """One hand of an arrangement game for ``num_players`` seats (see the game's module docstring)."""

    #: the game, a key of :data:`splitpoker.envs.games.GAMES`; set by each game's subclass
    game_name: ClassVar[str] = ""
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES), "name": "arrange_v0", "is_parallelizable": True, "render_fps": 1,
    }

    def __init__(self, num_players: int = 4, preset: str = "classic", render_mode: str | None = None,
                 **switches: Any) -> None:
        EzPickle.__init__(self, num_players=num_players, preset=preset, render_mode=render_mode, **switches)
        super().__init__()
        if not self.game_name:
            raise TypeError("ArrangeEnv is a base class; use thirteen_v0 or biji_v0")
        known = game_class(self.game_name).rules_class.switch_names()
        for name in switches:
            if name not in known:
                raise ValueError(f"unknown {self.metadata['name']} keyword or switch {name!r}; keywords: "
                                 f"{', '.join(ENV_KEYWORDS)}; switches: {', '.join(known)}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode={render_mode!r} is not supported; use None, "
                             f"{', '.join(map(repr, RENDER_MODES))}")
        self.preset = preset
        self.game: Game = make_game(self.game_name, preset, **switches)
        self.num_players = self.game.check_players(num_players)
        self.render_mode = render_mode

        self.possible_agents = [f"player_{seat}" for seat in range(self.num_players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        n_actions = self.game.n_actions
        labels = observation_labels(self.game)
        high = np.ones(len(labels), dtype=np.float32)
        unbounded = {name for name, value in self.game.rules.to_dict().items()
                     if isinstance(value, int) and not isinstance(value, bool)}
        high[[i for i, label in enumerate(labels) if label in unbounded]] = np.inf
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(low=0.0, high=high, shape=(len(labels),), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(n_actions,), dtype=np.int8),
        }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(n_actions) for agent in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._tables: Tables | None = None
        self._score: Score | None = None

    def __getattr__(self, name: str) -> Any:
        if name in _STATE or name == "num_agents":  # the per-hand state exists from the first reset on
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the hand

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Deal a new hand: at random from the env's generator (re-seeded when ``seed`` is
        given; seeded from fresh entropy on the first reset without one), or the hands of
        ``options["hands"]``, one per seat (a string of cards or a list of card strings).
        Other keys of ``options`` are not read."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        elif self._rng is None:
            self._rng = np.random.default_rng()
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"options must be a mapping such as {{'hands': [...]}}, got {options!r}")
        given = options.get("hands") if options else None
        if given is not None:
            tables = from_hands(self.game, given, self.num_players, what="options['hands']")
        else:
            tables = deal(self.game, self.num_players, self._rng)
        self._tables = tables
        n = self.num_players
        self._actions: list[int | None] = [None] * n
        self._observations: list[dict[str, np.ndarray] | None] = [None] * n
        self._score = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: tables.view(0, seat).info() for seat, agent in enumerate(self.agents)}
        self.agent_selection = self.agents[0]
        self._skip_agent_selection = None

    def _mask(self, seat: int) -> np.ndarray:
        """The seat's valid mask; the first one asked for prepares every seat's at once."""
        assert self._tables is not None
        self._tables.prepare([(0, s) for s in range(self.num_players)], observations=False)
        return self._tables.mask(0, seat)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The seat's observation: its hand, seat, table size and rules, and its valid mask
        (which stays the seat's real mask for the whole hand)."""
        seat = self._seat_of[agent]
        observation = self._observations[seat]
        if observation is None:
            assert self._tables is not None
            self._tables.prepare([(0, s) for s in range(self.num_players)])
            observation = self._observations[seat] = {
                "observation": self._tables.observation(0, seat),
                "action_mask": self._tables.mask(0, seat).view(np.int8),
            }
        return observation

    def _check_action(self, agent: str, seat: int, action: Any) -> int:
        if action is None:
            raise ValueError(f"{agent} has not acted yet; it needs a split index, not None")
        try:
            if isinstance(action, (bool, np.bool_)):
                raise TypeError
            index = operator.index(action)
        except TypeError:
            raise ValueError(f"action {action!r} of {agent} is not an integer split index") from None
        n_actions = self.game.n_actions
        if not 0 <= index < n_actions:
            raise ValueError(f"action {index} of {agent} is out of range 0..{n_actions - 1}")
        if not self._mask(seat)[index]:
            assert self._tables is not None
            rows = self.game.arrangement(self._tables.slots[0, seat], index)
            shown = " | ".join(format_cards(row) for row in rows)
            raise ValueError(f"action {index} of {agent} is not a valid split: {shown} {self.game.invalid_reason} "
                             "(see the action_mask)")
        return index

    def step(self, action: Any) -> None:
        """The current seat's split index (``None`` for a seat that has finished).
        An invalid split raises ValueError here; ``env()`` ends the hand with reward −1
        for the seat instead."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat_of[agent]
        self._actions[seat] = self._check_action(agent, seat, action)
        self._cumulative_rewards[agent] = 0.0
        if seat == self.num_players - 1:
            self._finish()
        self.agent_selection = self.possible_agents[(seat + 1) % self.num_players]
        self._accumulate_rewards()

    def _finish(self) -> None:
        """Score the table once; rewards, terminations and the infos' breakdown."""
        assert self._tables is not None
        score = self._score = self._tables.score(np.array([self._actions], dtype=np.int64)).scores[0]
        names = self.game.type_names
        self._arrangements = [self.game.arrangement(self._tables.slots[0, seat], index)
                              for seat, index in enumerate(self._actions)]  # type: ignore[arg-type]
        self._types = [[names[t] for t in row] for row in self.game.strength_type(np.asarray(score.strengths)).tolist()]
        for seat, agent in enumerate(self.possible_agents):
            payoff = float(score.payoffs[seat])
            self.rewards[agent] = payoff
            self.terminations[agent] = True
            info = self.infos[agent]
            info["arrangement"] = [format_cards(row) for row in self._arrangements[seat]]
            info["types"] = self._types[seat]
            info["score"] = {**score.seat_breakdown(seat), "payoff": payoff}
            info["payoff"] = payoff

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | None:
        """The table as text: returned under ``render_mode="ansi"``, printed under "human"."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._tables is None:
            text = f"{self.metadata['name']}: no hand dealt yet (call reset)"
        elif self._score is None:
            text = render_table(self.game, list(self._tables.slots[0]), title=self.title,
                                acted=[a is not None for a in self._actions])
        else:
            score = self._score
            text = render_table(self.game, list(self._tables.slots[0]), title=self.title,
                                arrangements=self._arrangements, types=self._types,
                                payoffs=[float(p) for p in score.payoffs],
                                breakdowns=[score.seat_breakdown(seat) for seat in range(self.num_players)])
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    @property
    def title(self) -> str:
        return f"{self.game_name.capitalize()} ({self.preset})"

    def close(self) -> None:
        """Nothing to release (text rendering only)."""


# ---------------------------------------------------------------------- wrappers

def _direct(wrapper: type[BaseWrapper]) -> type[BaseWrapper]:
    """``wrapper`` reading the per-step state straight from the raw environment.

    PettingZoo's wrappers forward each attribute read one wrapper at a time through
    ``__getattr__``; three deep, that costs more than the rest of a Biji hand. The
    subclass changes nothing else: reads and writes reach the same raw attributes, and a
    read before ``reset`` is still an AttributeError (the raw environment has no state yet)."""

    def state(name: str) -> property:
        def put(self: Any, value: Any) -> None:
            setattr(self._raw, name, value)

        return property(operator.attrgetter(f"_raw.{name}"), put)

    def __init__(self: Any, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        wrapper.__init__(self, env, *args, **kwargs)
        self.__dict__["_raw"] = env.unwrapped

    namespace: dict[str, Any] = {name: state(name) for name in _STATE}
    namespace.update(__init__=__init__, __module__=__name__, __qualname__=wrapper.__qualname__,
                     __doc__=wrapper.__doc__)
    return type(wrapper.__name__, (wrapper,), namespace)


TerminateIllegalWrapper = _direct(wrappers.TerminateIllegalWrapper)
AssertOutOfBoundsWrapper = _direct(wrappers.AssertOutOfBoundsWrapper)
OrderEnforcingWrapper = _direct(wrappers.OrderEnforcingWrapper)


def make_env_fns(raw: type[ArrangeEnv]) -> tuple[Callable[..., AECEnv], Callable[..., Any]]:
    """``env`` (the raw env wrapped as PettingZoo's classic envs are) and ``parallel_env``
    (every seat's split at once; an invalid one raises ValueError) of a game."""

    def env(**kwargs: Any) -> AECEnv:
        """The environment with PettingZoo's standard wrappers (``TerminateIllegalWrapper``
        with reward −1, ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``): an illegal
        split ends the hand with reward −1 for the seat that played it (0 for the others)."""
        wrapped: AECEnv = raw(**kwargs)
        wrapped = TerminateIllegalWrapper(wrapped, illegal_reward=-1)
        wrapped = AssertOutOfBoundsWrapper(wrapped)
        return OrderEnforcingWrapper(wrapped)

    def checked_env(**kwargs: Any) -> AECEnv:
        """The environment for the parallel API: PettingZoo's conversion cannot end a round
        in the middle, so an invalid split raises the raw env's ValueError there."""
        return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(raw(**kwargs)))

    return env, parallel_wrapper_fn(checked_env)


register_envs()
