"""The PettingZoo AEC environment shared by the arrangement games (every registered game).

One class, :class:`ArrangeEnv`, parametrised by the registered game: each game's ``env``
module (``Game.env_module``: ``thirteen/env.py``, ``biji/env.py`` …) subclasses it with the
game's name and metadata, and builds ``env`` / ``raw_env`` / ``parallel_env`` with
:func:`make_env_fns`.

A hand is one simultaneous decision, as in rock-paper-scissors: the seats ``player_0 …
player_{n-1}`` act in seat order, once each, and no seat sees another's choice. After the
last seat has acted the table is scored once, every seat receives its payoff as reward and
every seat terminates.

The action (``actions``) is a split index (``"index"``, the default), or with ``"offered"`` a
slot of the seat's offered splits: up to ``offer`` (K, default ``Game.default_offer``) of its
candidates, each with a row of features (:mod:`splitpoker.envs.offered_env`); the action space
is then ``Discrete(K)``, the observation the seat vector followed by the K feature rows, the
action mask the filled slots ``(K,)`` and ``infos[agent]["offered"]`` the split in each slot
(−1 in empty ones). A slot in range but empty is an illegal action as a split outside the mask
is (below); ``infos[agent]["split"]`` and the arrangement are of the split played.

The action mask (``mask``; by default ``"valid"`` under ``"index"`` and ``"undominated"``
under ``"offered"``, where ``"valid"`` is a ValueError) marks every valid split, or with
``"undominated"`` the candidates: the valid splits that no other valid split dominates by
having every row at least as strong and every arrangement-dependent bonus the first has
(each game's RULES.md, section 12). Under ``"index"`` the action stays the split index. A
best response never needs a dominated split, since against any arrangement of the other
seats it scores no more than a split that dominates it; so every equilibrium of the game
restricted to the candidates is an equilibrium of the full game. A valid but dominated split
is then outside the mask: ``env()`` treats it as illegal, ``raw_env`` and ``parallel_env``
raise a ``ValueError`` saying it is dominated.

A split outside the action mask (``illegal_action``): ``"raise"``, the default of ``raw_env``
and ``parallel_env``, makes it a ``ValueError``; ``"penalty"``, the default of ``env()``, ends
the hand at once, unscored, with ``illegal_reward`` (default −1) for each seat that played
one and 0 for the others, as PettingZoo's classic games do (``raw_env`` and ``parallel_env``
record the split in ``infos[agent]["illegal_action"]``; ``env()`` ends the hand through
PettingZoo's ``TerminateIllegalWrapper``, which sets the rewards only); with it,
PettingZoo's ``parallel_seed_test``, which samples actions without the mask, passes. An action
that is not an integer in range always raises.

The observation (``observation``): ``"dict"``, the default, holds the float32 vector and the
action mask, as PettingZoo's classic games do; ``"flat"`` gives the vector alone as a ``Box``
whose bounds are finite (an entry that reads a rule's value, a 喜 or a banker seat, is
bounded by that value, fixed for the environment), with the mask in
``infos[agent]["action_mask"]``, where PettingZoo's wrappers look beside a ``Box``: SuperSuit's
observation wrappers (``dtype_v0``, ``flatten_v0``, ``normalize_obs_v0``, ``frame_stack_v1``,
``pad_observations_v0``) take it unchanged.

The infos (``infos``): ``"text"``, the default, hold the hand as card strings and, after the
hand, the arrangement, the rows' type names and the game's scoring breakdown as nested dicts,
for people. ``"arrays"`` holds, for wrappers that turn every info value into a tensor (TorchRL's
``PettingZooWrapper``), the same keys with the same shapes and dtypes from ``reset`` to the
end, each a number or a NumPy array: ``"hand_ids"`` (int64, hand size: the card ids of
:mod:`splitpoker.envs.cards` in slot order), ``"seat"``, ``"num_players"``, and, −1 or 0 until
the hand is scored, ``"split"`` (the split index played), ``"arrangement_ids"`` (int64, hand
size: the card ids row by row), ``"type_ids"`` (int64, 3: each row's index in the game's
``type_names``), ``"payoff"`` (float: the seat's reward for the hand), ``"rows_won"`` (float32,
3: the share of the other seats beaten in each row for Thirteen, 1 for first place in each pot
for Biji), ``"fouled"`` (0/1), ``"special"`` (the 报到 value paid), ``"xi"`` (the 喜 count) and
``"illegal_action"`` (the index of a split outside the mask that ended the hand, else −1; as
in the text infos, ``raw_env`` and ``parallel_env`` under ``illegal_action="penalty"`` record
it, ``env()``'s PettingZoo wrapper only sets the rewards); ``observation="flat"`` adds
``"action_mask"`` as above. The hand is under ``"hand_ids"``, not ``"hand"``, so that an agent
given these infos reads the hand off its observation.

The environment is a thin driver of the table core (:mod:`splitpoker.envs.table`) with one
table: ``reset`` deals it (or takes the given hands) and, under ``"offered"``, prepares every
seat's offer in one batched call, the first observation prepares every seat's mask and
observation in one batched call, and the last step scores it. The
standard PettingZoo wrappers of ``env()`` are subclassed to read the per-hand state straight
from the raw environment (:func:`_direct`), which they otherwise forward through three
``__getattr__`` levels on every read.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, cast

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import aec_to_parallel_wrapper
from pettingzoo.utils.wrappers import BaseWrapper

from ..runtime.arguments import is_bool
from ..runtime.seeding import check_seed
from .cards import format_cards
from .game import Game, Score
from .games import game_class, make_game
from .offered import Offered
from .offered_env import action_form, slot_message
from .registration import ENV_MODULES, register_envs
from .render import render_table
from .table import Tables, check_illegal, deal, from_hands

RENDER_MODES = ("ansi", "human")
#: keyword arguments of every environment besides the rule switches
ENV_KEYWORDS = ("num_players", "preset", "render_mode", "actions", "offer", "mask", "illegal_action", "illegal_reward",
                "observation", "infos")
#: what an agent observes: ``"dict"``, the observation vector and the action mask in one
#: ``Dict`` (PettingZoo's classic games), or ``"flat"``, the vector alone as a ``Box`` with
#: finite bounds and the mask in ``infos[agent]["action_mask"]`` (for wrappers that take a
#: ``Box``, such as SuperSuit's)
OBSERVATIONS = ("dict", "flat")
#: what ``infos[agent]`` holds: ``"text"``, the hand and the scoring as card strings and
#: nested dicts for people, or ``"arrays"``, the same keys every step, each a number or a NumPy
#: array of fixed shape and dtype (for wrappers that turn every info value into a tensor)
INFOS = ("text", "arrays")
#: the keys of ``reset(options=...)``
RESET_OPTIONS = ("hands",)
#: keys of ``reset(options=...)`` that are ignored: PettingZoo's ``api_test`` and
#: ``parallel_api_test`` pass ``{"options": 1}`` to check that ``reset`` takes options
_PROBE_OPTIONS = ("options",)
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
                 mask: str | None = None, illegal_action: str = "raise", illegal_reward: float = -1.0,
                 observation: str = "dict", infos: str = "text", actions: str = "index", offer: int | None = None,
                 **switches: Any) -> None:
        EzPickle.__init__(self, num_players=num_players, preset=preset, render_mode=render_mode, mask=mask,
                          illegal_action=illegal_action, illegal_reward=illegal_reward, observation=observation,
                          infos=infos, actions=actions, offer=offer, **switches)
        super().__init__()
        if not self.game_name:
            raise TypeError(f"ArrangeEnv is a base class; use one of {', '.join(ENV_MODULES)}")
        known = game_class(self.game_name).rules_class.switch_names()
        for name in switches:
            if name not in known:
                raise ValueError(f"unknown {self.metadata['name']} keyword or switch {name!r}; keywords: "
                                 f"{', '.join(ENV_KEYWORDS)}; switches: {', '.join(known)}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode={render_mode!r} is not supported; use None, "
                             f"{', '.join(map(repr, RENDER_MODES))}")
        if not isinstance(observation, str) or observation not in OBSERVATIONS:
            raise ValueError(f"observation={observation!r} is not one of {', '.join(map(repr, OBSERVATIONS))}")
        #: what :meth:`observe` gives (:data:`OBSERVATIONS`)
        self.observation_kind = observation
        if not isinstance(infos, str) or infos not in INFOS:
            raise ValueError(f"infos={infos!r} is not one of {', '.join(map(repr, INFOS))}")
        #: what ``infos[agent]`` holds (:data:`INFOS`)
        self.infos_kind = infos
        #: what a split outside the action mask does (:data:`ILLEGAL_ACTIONS`) and its reward
        self.illegal_action, self.illegal_reward = check_illegal(illegal_action, illegal_reward)
        self.preset = preset
        self.game: Game = make_game(self.game_name, preset, **switches)
        self.num_players = self.game.check_players(num_players)
        #: the action's form: a split index or a slot of the offered splits, and the seats' masks
        self.action_form = action_form(actions, mask, offer, self.game)
        #: what the seats' masks over the splits mark: every valid split, or the undominated ones (the candidates)
        self.mask_kind = self.action_form.mask
        self.render_mode = render_mode

        self.possible_agents = [f"player_{seat}" for seat in range(self.num_players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        n_actions = self.action_form.width
        # a rule's value: any count, or, flat, this one
        box = self.action_form.box(self.num_players, finite=observation == "flat")
        self.observation_spaces = {agent: box if observation == "flat" else spaces.Dict({
            "observation": box, "action_mask": spaces.Box(low=0, high=1, shape=(n_actions,), dtype=np.int8),
        }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(n_actions) for agent in self.possible_agents}
        self._rng: np.random.Generator | None = None
        self._tables: Tables | None = None
        self._offered: Offered | None = None
        self._score: Score | None = None

    def __getattr__(self, name: str) -> Any:
        if name in _STATE or name == "num_agents":  # the per-hand state exists from the first reset on
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the hand

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """Deal a new hand: at random from the env's generator (re-seeded when ``seed`` is
        given; seeded from fresh entropy on the first reset without one), or the hands of
        ``options["hands"]``, one per seat (a string of cards or a list of card strings).
        A seed that is not a non-negative integer, or an option other than ``hands``, is a
        ValueError naming it (except ``options``, which PettingZoo's API tests pass to check
        the signature)."""
        check_seed(seed)
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"options must be a mapping such as {{'hands': [...]}}, got {options!r}")
        unknown = sorted(str(k) for k in (options or {}) if k not in RESET_OPTIONS + _PROBE_OPTIONS)
        if unknown:
            raise ValueError(f"unknown reset option {unknown[0]!r}; options: {', '.join(RESET_OPTIONS)}")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        elif self._rng is None:
            self._rng = np.random.default_rng()
        given = options.get("hands") if options else None
        if given is not None:
            tables = from_hands(self.game, given, self.num_players, what="options['hands']", mask=self.mask_kind)
        else:
            tables = deal(self.game, self.num_players, self._rng, mask=self.mask_kind)
        self._tables = tables
        n = self.num_players
        self._offered = self.action_form.offers(tables, np.stack((np.zeros(n, np.intp), np.arange(n)), axis=1))
        self._actions: list[int | None] = [None] * n
        self._observations: list[dict[str, np.ndarray] | None] = [None] * n
        self._score = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        if self.infos_kind == "arrays":
            self.infos = {agent: self._array_info(seat) for seat, agent in enumerate(self.agents)}
        else:
            self.infos = {agent: tables.view(0, seat).info() for seat, agent in enumerate(self.agents)}
            if self._offered is not None:
                for seat, agent in enumerate(self.agents):
                    self.infos[agent]["offered"] = self._offered.splits[seat].tolist()
        if self.observation_kind == "flat":  # the mask where PettingZoo looks for it beside a Box
            for seat, agent in enumerate(self.agents):
                self.infos[agent]["action_mask"] = self._mask(seat).view(np.int8).copy()
        self.agent_selection = self.agents[0]
        self._skip_agent_selection = None

    def _array_info(self, seat: int) -> dict[str, Any]:
        """The seat's ``infos`` entry under ``infos="arrays"`` at the deal: every key it will
        hold, with the values of a hand not yet scored (−1 for what is not known yet)."""
        assert self._tables is not None
        rows = len(self.game.row_names)
        return {
            "hand_ids": self._tables.slots[0, seat].astype(np.int64),
            "seat": seat,
            "num_players": self.num_players,
            "split": -1,
            "arrangement_ids": np.full(self.game.hand_size, -1, dtype=np.int64),
            "type_ids": np.full(rows, -1, dtype=np.int64),
            "payoff": 0.0,
            "rows_won": np.zeros(rows, dtype=np.float32),
            "fouled": 0,
            "special": 0,
            "xi": 0,
            "illegal_action": -1,
            **({} if self._offered is None else {"offered": self._offered.splits[seat].copy()}),
        }

    def _mask(self, seat: int) -> np.ndarray:
        """The seat's mask (its valid splits or its candidates; its filled slots under
        ``actions="offered"``); the first one asked for prepares every seat's at once."""
        if self._offered is not None:
            return self._offered.mask[seat]
        assert self._tables is not None
        self._tables.prepare_all(observations=False)
        return self._tables.mask(0, seat)

    def _require_reset(self, call: str) -> None:
        if self._tables is None:
            raise ResetNeeded(f"{self.metadata['name']}: {call}() before the first reset(); call reset() first")

    def _seat(self, agent: Any) -> int:
        seat = self._seat_of.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        return seat

    def observe(self, agent: str) -> Any:
        """The seat's observation: its hand, seat, table size and rules, and its mask (the
        valid splits, or the candidates under ``mask="undominated"``; it stays the seat's
        real mask for the whole hand). The arrays are the caller's
        own copies: changing them changes nothing in the environment."""
        self._require_reset("observe")
        seat = self._seat(agent)
        observation = self._observations[seat]
        if observation is None:
            assert self._tables is not None
            self._tables.prepare_all()
            observation = self._observations[seat] = {
                "observation": self.action_form.observation(self._tables.observation(0, seat), self._offered, seat),
                "action_mask": self._mask(seat).view(np.int8),
            }
        if self.observation_kind == "flat":
            return observation["observation"].copy()
        return {key: value.copy() for key, value in observation.items()}

    def check_action(self, agent: str, action: Any) -> int:
        """``action`` as the split index of ``agent``'s hand (its slot under
        ``actions="offered"``); ValueError naming the action, the seat and its hand when it is
        not an integer in range (whether the split may be played is checked by ``step``)."""
        assert self._tables is not None
        tables, seat, noun = self._tables, self._seat(agent), self.action_form.noun

        def hand() -> str:  # for the messages only: a valid action costs no card formatting
            return format_cards(tables.slots[0, seat])

        if action is None:
            raise ValueError(f"{agent} has not acted yet; it needs a {noun} of its hand {hand()}, not None")
        try:
            if is_bool(action):
                raise TypeError
            index = operator.index(action)
        except TypeError:
            raise ValueError(f"action {action!r} of {agent} is not an integer {noun} (hand {hand()})") from None
        n_actions = self.action_form.width
        if not 0 <= index < n_actions:
            what = "slot" if self._offered is not None else "action"
            raise ValueError(f"{what} {index} of {agent} is out of range 0..{n_actions - 1} (hand {hand()})")
        return index

    def _check_action(self, agent: str, seat: int, action: Any) -> int:
        index = self.check_action(agent, action)
        if not self._mask(seat)[index]:
            assert self._tables is not None
            hand = self._tables.slots[0, seat]
            if self._offered is not None:
                raise ValueError(slot_message(index, agent, self._offered, seat, format_cards(hand)))
            rows = self.game.arrangement(hand, index)
            shown = " | ".join(format_cards(row) for row in rows)
            if self._tables.valid_mask(0, seat)[index]:
                raise ValueError(f"action {index} of {agent} is dominated: {shown} is valid, but another split "
                                 "has every row at least as strong (mask='undominated'; see the action_mask)")
            raise ValueError(f"action {index} of {agent} is not a valid split: {shown} {self.game.invalid_reason} "
                             "(see the action_mask)")
        return index

    def step(self, action: Any) -> None:
        """The current seat's split index, or slot under ``actions="offered"`` (``None`` for a
        seat that has finished). A split outside the action mask (an empty slot) raises
        ValueError here, or with ``illegal_action="penalty"`` ends the hand (:meth:`end_illegal`); ``env()`` ends
        it with reward −1 for the seat (PettingZoo's wrapper). An action that is not an
        integer in range always raises."""
        self._require_reset("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat_of[agent]
        if self.illegal_action == "penalty":
            index = self.check_action(agent, action)
            if not self._mask(seat)[index]:
                self.end_illegal({agent: index})
                return
        self._actions[seat] = self._check_action(agent, seat, action)
        self._cumulative_rewards[agent] = 0.0
        if seat == self.num_players - 1:
            self._finish()
        self.agent_selection = self.possible_agents[(seat + 1) % self.num_players]
        self._accumulate_rewards()

    def end_illegal(self, played: Mapping[str, int]) -> None:
        """End the hand after splits outside the action mask (``played``: agent → split
        index, or slot under ``actions="offered"``), unscored: each of those seats gets
        ``illegal_reward`` and ``infos[agent]["illegal_action"]`` (the action), every other
        seat 0, and every seat terminates (as under PettingZoo's ``TerminateIllegalWrapper``)."""
        for agent in self.agents:
            self._cumulative_rewards[agent] = 0.0
            self.rewards[agent] = self.illegal_reward if agent in played else 0.0
            self.terminations[agent] = True
            if agent in played:
                self.infos[agent]["illegal_action"] = int(played[agent])
            if self.infos_kind == "arrays":
                self.infos[agent]["payoff"] = float(self.rewards[agent])
        self._accumulate_rewards()
        self._deads_step_first()

    def _finish(self) -> None:
        """Score the table once; rewards, terminations and the infos' breakdown."""
        assert self._tables is not None
        played = self.action_form.splits(np.array(self._actions, dtype=np.int64), self._offered)
        score = self._score = self._tables.score(played[None]).scores[0]
        names = self.game.type_names
        self._arrangements = [self.game.arrangement(self._tables.slots[0, seat], index)
                              for seat, index in enumerate(played.tolist())]
        type_ids = np.asarray(self.game.strength_type(np.asarray(score.strengths)), dtype=np.int64)
        self._types = [[names[t] for t in row] for row in type_ids.tolist()]
        if self.infos_kind == "arrays":
            outcomes = score.outcomes()
        for seat, agent in enumerate(self.possible_agents):
            payoff = float(score.payoffs[seat])
            self.rewards[agent] = payoff
            self.terminations[agent] = True
            info = self.infos[agent]
            if self.infos_kind == "arrays":  # new arrays: a caller's earlier ones stay as they were
                info.update(split=int(played[seat]),
                            arrangement_ids=np.array([c for row in self._arrangements[seat] for c in row],
                                                     dtype=np.int64),
                            type_ids=type_ids[seat].copy(), payoff=payoff,
                            rows_won=np.asarray(outcomes.rows_won[seat], dtype=np.float32),
                            fouled=int(outcomes.fouled[seat]), special=int(outcomes.special[seat]),
                            xi=int(outcomes.xi[seat]))
                continue
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
            text = render_table(self.game, list(self._tables.slots[0]), title=self.title,
                                arrangements=self._arrangements, types=self._types,
                                payoffs=[float(p) for p in self._score.payoffs],
                                breakdowns=[self._score.seat_breakdown(seat) for seat in range(self.num_players)])
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
_AssertOutOfBounds = _direct(wrappers.AssertOutOfBoundsWrapper)
_OrderEnforcing = _direct(wrappers.OrderEnforcingWrapper)


class AssertOutOfBoundsWrapper(_AssertOutOfBounds):  # type: ignore[misc,valid-type]
    """PettingZoo's out-of-bounds check, saying what the raw environment says: a ValueError
    naming the action, the seat and its hand (instead of a bare AssertionError)."""

    def step(self, action: Any) -> None:
        raw = self._raw
        if raw._tables is not None:
            agent = raw.agent_selection
            if not (action is None and (raw.terminations[agent] or raw.truncations[agent])):
                raw.check_action(agent, action)
        super().step(action)


def _after_reset(call: str) -> Callable[..., Any]:
    """PettingZoo's ``call`` of the order-enforcing wrapper, raising ``ResetNeeded`` before the first reset."""
    method = getattr(_OrderEnforcing, call)

    def checked(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not self._has_reset:
            raise ResetNeeded(f"{self.metadata['name']}: {call}() before the first reset(); call reset() first")
        return method(self, *args, **kwargs)

    return functools.wraps(method)(checked)


class OrderEnforcingWrapper(_OrderEnforcing):  # type: ignore[misc,valid-type]
    """PettingZoo's order checks, with ``gymnasium.error.ResetNeeded`` naming the call made
    before the first ``reset`` (instead of an AssertionError)."""

    step, observe, last, agent_iter, render = map(_after_reset, ("step", "observe", "last", "agent_iter", "render"))


class ParallelWrapper(aec_to_parallel_wrapper):
    """PettingZoo's AEC-to-parallel conversion, checking the ``actions`` dict first: one entry
    for every live agent and no other key is required (a ValueError names the missing or
    unknown agent), and every action is checked before any seat acts (an invalid one changes
    nothing); a step before ``reset`` is ``gymnasium.error.ResetNeeded``."""

    def step(self, actions: Any) -> Any:
        name = self.metadata["name"]
        if not getattr(self.aec_env, "_has_reset", True):
            raise ResetNeeded(f"{name}: step() before the first reset(); call reset() first")
        if not isinstance(actions, Mapping):
            raise ValueError(f"actions must be a dict of one split index per agent, got {actions!r}")
        live = list(self.aec_env.agents)
        if not live:
            raise ValueError(f"{name}: the hand is over; call reset() before step()")
        unknown = [a for a in actions if a not in live]
        if unknown:
            what = "unknown agent" if unknown[0] not in self.possible_agents else "agent that is not live"
            raise ValueError(f"actions name an {what} {unknown[0]!r}; live agents: {', '.join(live)}")
        missing = [a for a in live if a not in actions]
        if missing:
            raise ValueError(f"actions has no split for {missing[0]!r}; give one for each of {', '.join(live)}")
        raw = cast(ArrangeEnv, self.aec_env.unwrapped)
        if raw.illegal_action == "penalty":
            indices = {agent: raw.check_action(agent, actions[agent]) for agent in live}
            played = {agent: i for agent, i in indices.items() if not raw._mask(raw._seat(agent))[i]}
            if played:
                return self._end_illegal(raw, played)
        for agent in live:
            raw._check_action(agent, raw._seat(agent), actions[agent])
        observations, rewards, terminations, truncations, infos = super().step(actions)
        return observations, dict(rewards), terminations, truncations, infos  # a plain dict, not a defaultdict

    def _end_illegal(self, raw: ArrangeEnv, played: Mapping[str, int]) -> Any:
        """The step of a round with splits outside the mask under ``illegal_action="penalty"``:
        the hand ends at once, unscored (:meth:`ArrangeEnv.end_illegal`)."""
        raw.end_illegal(played)
        rewards = {agent: float(raw.rewards[agent]) for agent in raw.agents}
        terminations, truncations, infos = dict(raw.terminations), dict(raw.truncations), dict(raw.infos)
        observations = {agent: raw.observe(agent) for agent in raw.agents}
        while self.aec_env.agents:  # every seat has terminated: remove them as the conversion does
            self.aec_env.step(None)
        self.agents = self.aec_env.agents[:]
        return observations, rewards, terminations, truncations, infos


def make_env_fns(raw: type[ArrangeEnv]) -> tuple[Callable[..., AECEnv], Callable[..., Any]]:
    """``env`` (the raw env wrapped as PettingZoo's classic envs are) and ``parallel_env``
    (every seat's split at once; an invalid one raises ValueError) of a game."""

    def env(**kwargs: Any) -> AECEnv:
        """The environment with PettingZoo's standard wrappers (``TerminateIllegalWrapper``,
        ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``): an illegal split ends the
        hand with reward ``illegal_reward`` (default −1) for the seat that played it (0 for
        the others); ``illegal_action="raise"`` leaves out the first wrapper, so that it
        raises the raw env's ValueError instead."""
        illegal = kwargs.pop("illegal_action", "penalty")
        wrapped: AECEnv = raw(**kwargs, illegal_action="raise" if illegal == "penalty" else illegal)
        if illegal == "penalty":
            wrapped = TerminateIllegalWrapper(wrapped, illegal_reward=cast(ArrangeEnv, wrapped).illegal_reward)
        wrapped = AssertOutOfBoundsWrapper(wrapped)
        return OrderEnforcingWrapper(wrapped)

    def checked_env(**kwargs: Any) -> AECEnv:
        """The environment for the parallel API: PettingZoo's conversion cannot end a round
        in the middle, so an invalid split raises the raw env's ValueError there, or with
        ``illegal_action="penalty"`` ends the hand before any seat acts."""
        return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(raw(**kwargs)))

    def parallel_env(**kwargs: Any) -> ParallelWrapper:
        """Every seat's split at once, through PettingZoo's conversion of ``checked_env``."""
        return ParallelWrapper(checked_env(**kwargs))

    return env, parallel_env


register_envs()
