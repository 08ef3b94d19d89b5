"""The PettingZoo AEC environment shared by the arrangement games (Thirteen and Biji).

One class, :class:`ArrangeEnv`, parametrised by the game: ``thirteen/env.py`` and
``biji/env.py`` subclass it with the game's name, metadata and scoring breakdown, and
build ``env`` / ``raw_env`` / ``parallel_env`` with :func:`make_env_fns`.

A hand is one simultaneous decision, as in rock-paper-scissors: the seats ``player_0 …
player_{n-1}`` act in seat order, once each, and no seat sees another's choice. After the
last seat has acted the rules engine scores the table (``Game.score``) once, every seat
receives its payoff as reward and every seat terminates.

The hot path of a hand: one deal (or the given hands), each seat's valid mask computed
once (``Game.valid_mask``, on the seat's first observation or action), its observation
encoded once (``encode_observation``), the spaces built once per environment, and one
scoring at the end. :func:`hands_per_second` measures it.
"""

from __future__ import annotations

import importlib
import operator
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import parallel_wrapper_fn

from .cards import N_IDS, format_card, parse_cards
from .games import RULES_CLASSES, Game, make_game
from .observation import encode_observation, observation_labels
from .registration import register_envs
from .render import render_table

RENDER_MODES = ("ansi", "human")
#: keyword arguments of every environment besides the rule switches
ENV_KEYWORDS = ("num_players", "preset", "render_mode")
_CARD_TEXT = tuple(format_card(c) for c in range(N_IDS))

SeatScore = Callable[[Mapping[str, Any], int], dict[str, Any]]


def _seat_breakdown(table: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """Default seat view of a score dict: every per-seat list reduced to the seat's entry."""
    n = len(table["payoffs"])
    return {key: value[seat] for key, value in table.items()
            if isinstance(value, list) and len(value) == n and key != "payoffs"}


class ArrangeEnv(AECEnv, EzPickle):
    """One hand of an arrangement game for ``num_players`` seats (see the game's module docstring)."""

    #: the game, a key of :data:`splitpoker.envs.games.GAMES`; set by each game's subclass
    game_name: ClassVar[str] = ""
    #: why a split outside the mask is invalid, for error messages
    invalid_reason: ClassVar[str] = "is not valid"
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES), "name": "arrange_v0", "is_parallelizable": True, "render_fps": 1,
    }

    def __init__(self, num_players: int = 4, preset: str = "classic", render_mode: str | None = None,
                 **switches: Any) -> None:
        EzPickle.__init__(self, num_players=num_players, preset=preset, render_mode=render_mode, **switches)
        super().__init__()
        if not self.game_name:
            raise TypeError("ArrangeEnv is a base class; use thirteen_v0 or biji_v0")
        known = RULES_CLASSES[self.game_name].switch_names()
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
        self.check_table(self.game, self.num_players)
        self.render_mode = render_mode

        self.possible_agents = [f"player_{seat}" for seat in range(self.num_players)]
        self.agents = self.possible_agents[:]
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

        split_index = self.game.split_index
        self._slot_table = split_index.slot_table
        self._row_cuts = np.cumsum(split_index.row_sizes)[:-1].tolist()
        self._deck = self.game.deck()
        self._rng: np.random.Generator | None = None
        self._slots: list[np.ndarray] = []
        self._score: Any = None

    # ------------------------------------------------------------------ game hooks

    @staticmethod
    def check_table(game: Game, num_players: int) -> None:
        """Raise ValueError when the rules do not fit a table of ``num_players``."""

    seat_score: ClassVar[SeatScore] = staticmethod(_seat_breakdown)

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
            self._slots = self._parse_hands(given)
        else:
            n, size = self.num_players, self.game.hand_size
            cards = self._rng.permutation(self._deck)[: n * size].reshape(n, size)
            self._slots = list(np.sort(cards, axis=1).astype(np.intp))
        n = self.num_players
        self._masks: list[np.ndarray | None] = [None] * n
        self._observations: list[dict[str, np.ndarray] | None] = [None] * n
        self._actions: list[int | None] = [None] * n
        self._score = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {"hand": [_CARD_TEXT[c] for c in self._slots[seat].tolist()], "seat": seat,
                              "num_players": n} for seat, agent in enumerate(self.agents)}
        self.agent_selection = self.agents[0]
        self._skip_agent_selection = None

    def _parse_hands(self, hands: Any) -> list[np.ndarray]:
        if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence):
            raise ValueError(f"options['hands'] must be a list of {self.num_players} hands (one per seat), "
                             f"got {hands!r}")
        if len(hands) != self.num_players:
            raise ValueError(f"options['hands'] has {len(hands)} hands; this table has {self.num_players} seats")
        slots, owner = [], {}
        for seat, hand in enumerate(hands):
            try:
                seat_slots = self.game.slots(parse_cards(hand))
            except ValueError as error:
                raise ValueError(f"options['hands'][{seat}] {hand!r}: {error}") from None
            for card in seat_slots.tolist():
                if card in owner:
                    raise ValueError(f"options['hands']: card {_CARD_TEXT[card]} is dealt to seats "
                                     f"{owner[card]} and {seat}")
                owner[card] = seat
            slots.append(seat_slots)
        return slots

    def _mask(self, seat: int) -> np.ndarray:
        mask = self._masks[seat]
        if mask is None:
            mask = self._masks[seat] = self.game.valid_mask(self._slots[seat])
        return mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The seat's observation: its hand, seat, table size and rules, and its valid mask
        (which stays the seat's real mask for the whole hand)."""
        seat = self._seat_of[agent]
        observation = self._observations[seat]
        if observation is None:
            observation = self._observations[seat] = {
                "observation": encode_observation(self.game, self._slots[seat], seat, self.num_players),
                "action_mask": self._mask(seat).view(np.int8),
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
            rows = self._rows(seat, index)
            shown = " | ".join(" ".join(_CARD_TEXT[c] for c in row) for row in rows)
            raise ValueError(f"action {index} of {agent} is not a valid split: {shown} {self.invalid_reason} "
                             "(see the action_mask)")
        return index

    def _rows(self, seat: int, index: int) -> list[list[int]]:
        cards = self._slots[seat][self._slot_table[index]].tolist()
        a, b = self._row_cuts
        return [cards[:a], cards[a:b], cards[b:]]

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
        arrangements = [self._rows(seat, index) for seat, index in enumerate(self._actions)]  # type: ignore[arg-type]
        score = self._score = self.game.score(arrangements)
        table = score.to_dict()
        type_name = self.game.type_name
        for seat, agent in enumerate(self.possible_agents):
            payoff = float(score.payoffs[seat])
            self.rewards[agent] = payoff
            self.terminations[agent] = True
            info = self.infos[agent]
            info["arrangement"] = [" ".join(_CARD_TEXT[c] for c in row) for row in arrangements[seat]]
            info["types"] = [type_name(s) for s in score.strengths[seat].tolist()]
            info["score"] = {**self.seat_score(table, seat), "payoff": payoff}
            info["payoff"] = payoff
        self._arrangements = arrangements

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | None:
        """The table as text: returned under ``render_mode="ansi"``, printed under "human"."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if not self._slots:
            text = f"{self.metadata['name']}: no hand dealt yet (call reset)"
        elif self._score is None:
            text = render_table(self.game, self._slots, title=self.title, acted=[a is not None for a in self._actions])
        else:
            infos = [self._final_info(seat) for seat in range(self.num_players)]
            text = render_table(self.game, self._slots, title=self.title, arrangements=self._arrangements,
                                types=[i["types"] for i in infos], breakdowns=[i["score"] for i in infos],
                                payoffs=[i["payoff"] for i in infos])
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def _final_info(self, seat: int) -> dict[str, Any]:
        agent = self.possible_agents[seat]
        if agent in self.infos:
            return self.infos[agent]
        table = self._score.to_dict()
        payoff = float(self._score.payoffs[seat])
        return {"types": [self.game.type_name(s) for s in self._score.strengths[seat].tolist()],
                "score": {**self.seat_score(table, seat), "payoff": payoff}, "payoff": payoff}

    @property
    def title(self) -> str:
        return f"{self.game_name.capitalize()} ({self.preset})"

    def close(self) -> None:
        """Nothing to release (text rendering only)."""


def make_env_fns(raw: type[ArrangeEnv]) -> tuple[Callable[..., AECEnv], Callable[..., Any]]:
    """``env`` (the raw env wrapped as PettingZoo's classic envs are) and ``parallel_env`` of a game."""

    def env(**kwargs: Any) -> AECEnv:
        """The environment with PettingZoo's standard wrappers: an illegal split ends the hand
        with reward −1 for the seat that played it (0 for the others)."""
        wrapped: AECEnv = raw(**kwargs)
        wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
        wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
        return wrappers.OrderEnforcingWrapper(wrapped)

    return env, parallel_wrapper_fn(env)


# ---------------------------------------------------------------------- benchmark

def random_valid_action(mask: np.ndarray, rng: np.random.Generator, tries: int = 64) -> int:
    """A split drawn uniformly from the valid ones of ``mask`` (rejection sampling, then an
    exact draw over all valid splits when the batch of tries missed)."""
    draws = rng.integers(len(mask), size=tries)
    hits = draws[mask[draws] != 0]
    if len(hits):
        return int(hits[0])
    valid = np.flatnonzero(mask)
    if not len(valid):
        raise ValueError("the action mask has no valid split")
    return int(valid[rng.integers(len(valid))])


def env_module(game_name: str) -> Any:
    """The versioned module (``thirteen_v0`` / ``biji_v0``) of a game."""
    from .games import check_game

    return importlib.import_module(f"{__package__}.{check_game(game_name)}_v0")


def hands_per_second(game_name: str, num_players: int = 4, seconds: float = 2.0, *, wrapped: bool = True,
                     seed: int = 0, **kwargs: Any) -> float:
    """Hands played per second through the AEC API by random agents drawing valid splits
    from the mask (one core). ``wrapped`` uses ``env()`` (else ``raw_env``); ``kwargs`` go
    to the environment (``preset``, switches)."""
    module = env_module(game_name)
    environment = (module.env if wrapped else module.raw_env)(num_players=num_players, **kwargs)
    rng = np.random.default_rng(seed)

    def play() -> None:
        for _agent in environment.agent_iter():
            observation, _reward, terminated, truncated, _info = environment.last()
            environment.step(None if terminated or truncated
                             else random_valid_action(observation["action_mask"], rng))

    environment.reset(seed=seed)
    play()  # warm-up: the rules' strength tables are built on first use
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        environment.reset()
        play()
        hands += 1
        if time.perf_counter() >= deadline:
            break
    return hands / (time.perf_counter() - start)


register_envs()
