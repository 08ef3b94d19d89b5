"""The PettingZoo AEC environment shared by the arrangement games (Thirteen and Biji).

One class, :class:`ArrangeEnv`, parametrised by the game: ``thirteen/env.py`` and
``biji/env.py`` subclass it with the game's name, metadata and scoring breakdown, and
build ``env`` / ``raw_env`` / ``parallel_env`` with :func:`make_env_fns`.

A hand is one simultaneous decision, as in rock-paper-scissors: the seats ``player_0 …
player_{n-1}`` act in seat order, once each, and no seat sees another's choice. After the
last seat has acted the rules engine scores the table (``Game.score``) once, every seat
receives its payoff as reward and every seat terminates.

The hot path of a hand: one deal (or the given hands), each seat's valid mask computed
once, on first use (``Game.valid_mask``; Biji computes the whole table's masks in one pass,
:class:`TableMasks`), each observation encoded once (``encode_observation``), the spaces
built once per environment, and one scoring at the end. :func:`hands_per_second`
measures it. The standard PettingZoo wrappers of ``env()`` are subclassed to read the
per-hand state straight from the raw environment (:func:`_direct`), which they otherwise
forward through three ``__getattr__`` levels on every read.
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
from pettingzoo.utils.wrappers import BaseWrapper

from .cards import N_IDS, format_card, parse_cards
from .games import RULES_CLASSES, Game, make_game
from .observation import encode_observation, observation_labels
from .registration import register_envs
from .render import render_table

RENDER_MODES = ("ansi", "human")
#: keyword arguments of every environment besides the rule switches
ENV_KEYWORDS = ("num_players", "preset", "render_mode")
_CARD_TEXT = tuple(format_card(c) for c in range(N_IDS))
#: the per-hand state of an AEC environment, which wrappers read from the raw environment
_STATE = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")

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
    #: compute every seat's mask in one pass (:class:`TableMasks`) instead of one
    #: ``Game.valid_mask`` per seat: faster where the per-seat call is mostly fixed cost
    batch_masks: ClassVar[bool] = False
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
        self._table_masks = TableMasks(self.game) if self.batch_masks else None
        self._rng: np.random.Generator | None = None
        self._slots: list[np.ndarray] = []
        self._score: Any = None

    def __getattr__(self, name: str) -> Any:
        if name in _STATE or name == "num_agents":  # the per-hand state exists from the first reset on
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ game hooks

    @staticmethod
    def check_table(game: Game, num_players: int) -> None:
        """Raise ValueError when the rules do not fit a table of ``num_players``."""

    @staticmethod
    def seat_score(table: Mapping[str, Any], seat: int) -> dict[str, Any]:
        """The seat's part of ``score.to_dict()``: by default every per-seat list reduced to
        the seat's entry."""
        return _seat_breakdown(table, seat)

    @staticmethod
    def strength_type(strength: Any) -> Any:
        """The type (an index of ``Game.type_names``) of every row strength, vectorised."""
        raise NotImplementedError("each game's environment names its rules' strength_type")

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
            self._slot_array = np.stack(self._parse_hands(given))
        else:
            n, size = self.num_players, self.game.hand_size
            cards = self._rng.permutation(self._deck)[: n * size].reshape(n, size)
            self._slot_array = np.sort(cards, axis=1).astype(np.intp)
        self._slots = list(self._slot_array)
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
        slots: list[np.ndarray] = []
        owner: dict[int, int] = {}
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
        """The seat's valid mask, computed on first use (every seat's at once with ``batch_masks``)."""
        mask = self._masks[seat]
        if mask is None:
            if self._table_masks is not None:
                masks = list(self._table_masks(self._slot_array))
                self._masks = list(masks)
                mask = masks[seat]
            else:
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
        names = self.game.type_names
        types = [[names[t] for t in row] for row in self.strength_type(np.asarray(score.strengths)).tolist()]
        for seat, agent in enumerate(self.possible_agents):
            payoff = table["payoffs"][seat]
            self.rewards[agent] = payoff
            self.terminations[agent] = True
            info = self.infos[agent]
            info["arrangement"] = [" ".join([_CARD_TEXT[c] for c in row]) for row in arrangements[seat]]
            info["types"] = types[seat]
            info["score"] = {**self.seat_score(table, seat), "payoff": payoff}
            info["payoff"] = payoff
        self._arrangements = arrangements
        self._types = types

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
            table = self._score.to_dict()
            text = render_table(self.game, self._slots, title=self.title, arrangements=self._arrangements,
                                types=self._types, payoffs=table["payoffs"],
                                breakdowns=[self.seat_score(table, seat) for seat in range(self.num_players)])
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    @property
    def title(self) -> str:
        return f"{self.game_name.capitalize()} ({self.preset})"

    def close(self) -> None:
        """Nothing to release (text rendering only)."""


# ---------------------------------------------------------------------- masks of a table

class TableMasks:
    """The valid masks of every seat of a table in one pass of the one data flow: the
    strengths of every subset of all hands (one ``Game.row_strengths`` call per row size),
    gathered into every split, then ``Game.valid_rows``. Equal to ``Game.valid_mask`` seat
    by seat; for games whose per-seat call is mostly fixed cost (Biji: 84 subsets)."""

    def __init__(self, game: Game) -> None:
        index = game.split_index
        self.game = game
        self.sizes = index.row_sizes
        self.subsets = {size: index.subsets(size).astype(np.intp) for size in set(self.sizes)}
        self.columns = [np.ascontiguousarray(index.table[:, k], dtype=np.intp) for k in (1, 2)]
        # the first row's subset is index // n_second (RULES.md section 4): a repeat, not a gather
        self.repeats = index.n_actions // len(self.subsets[self.sizes[0]])
        self._flat: dict[int, tuple[dict[int, np.ndarray], list[np.ndarray]]] = {}

    def _flat_indices(self, n: int) -> tuple[dict[int, np.ndarray], list[np.ndarray]]:
        """Flat take-indices for a table of ``n`` hands: each row size's subsets of every hand,
        and the middle and last row columns of every hand's per-subset strengths."""
        if n not in self._flat:
            hand_size = self.game.hand_size
            rows = {size: (np.arange(n)[:, None, None] * hand_size + ids).reshape(-1)
                    for size, ids in self.subsets.items()}
            columns = [(np.arange(n)[:, None] * len(self.subsets[size]) + column).reshape(-1)
                       for size, column in zip(self.sizes[1:], self.columns, strict=True)]
            self._flat[n] = rows, columns
        return self._flat[n]

    def __call__(self, slots: np.ndarray) -> np.ndarray:
        """Masks of hands ``slots`` (players, hand size), card ids in slot order → (players, n_actions) bool."""
        n = len(slots)
        rows, columns = self._flat_indices(n)
        flat_slots = slots.ravel()
        per_subset = {size: self.game.row_strengths(flat_slots.take(ids).reshape(-1, size)).reshape(n, -1)
                      for size, ids in rows.items()}
        first = np.repeat(per_subset[self.sizes[0]], self.repeats, axis=1)
        middle = per_subset[self.sizes[1]].ravel().take(columns[0]).reshape(n, -1)
        last = per_subset[self.sizes[2]].ravel().take(columns[1]).reshape(n, -1)
        return self.game.valid_rows(first, middle, last)


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


# ---------------------------------------------------------------------- benchmark

def random_valid_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A split drawn uniformly from the valid ones of ``mask``: by rejection sampling for
    large masks (about a third of Thirteen's 72,072 splits are valid), else directly."""
    n = len(mask)
    if n > 8192:
        draws = (rng.random(32) * n).astype(np.intp)
        hits = draws[mask[draws] != 0]
        if len(hits):
            return int(hits[0])
    valid = mask.nonzero()[0]
    if not len(valid):
        raise ValueError("the action mask has no valid split")
    return int(valid[int(rng.random() * len(valid))])


def env_module(game_name: str) -> Any:
    """The versioned module (``thirteen_v0`` / ``biji_v0``) of a game."""
    from .games import check_game

    return importlib.import_module(f"{__package__}.{check_game(game_name)}_v0")


def hands_per_second(game_name: str, num_players: int = 4, seconds: float = 2.0, *, wrapped: bool = True,
                     seed: int = 0, **kwargs: Any) -> float:
    """Hands played per second through the AEC API by random agents drawing valid splits
    from the mask, on one core: seconds of this process's CPU time (``time.process_time``),
    so other load on the machine does not distort it. ``wrapped`` uses ``env()`` (else
    ``raw_env``); ``kwargs`` go to the environment (``preset``, switches)."""
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
    start = time.process_time()
    deadline = start + seconds
    while True:
        environment.reset()
        play()
        hands += 1
        if time.process_time() >= deadline:
            break
    return hands / (time.process_time() - start)


register_envs()
