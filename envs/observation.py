"""The observation vector of a seat: its hand slot by slot, the seat, the table size and the
rule switches that change play. Shared by the environments and by agents that rebuild an
observation (the solver's opponent model). Pure: NumPy only (:func:`spaces_of`, the
gymnasium spaces of the policies, imports gymnasium when called).

Layout (``n`` = hand size, ``P`` = the game's most players)::

    [slot 0 … slot n-1]   per slot: rank one-hot (13, 2 … A), suit one-hot (4, c d h s),
                          joker one-hot (2, BJ RJ)             19 values a slot
    seat one-hot                                               P values
    players one-hot (2 … P)                                    P - 1 values
    rule features: one value per allowed choice of each categorical switch that changes
                   play (one-hot), booleans as 0/1, integer switches as given; a switch
                   may limit its one-hot to some values or leave the observation (the
                   ``features`` of ``switches.choice``), so that the width stays the same
                   when values or switches are added
    seat features: the seat's role at the table (``Game.seat_features``; Thirteen: where
                   the banker sits relative to the seat under banker scoring)

:func:`observation_labels` names every index.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..runtime.arguments import is_whole
from .cards import N_IDS, RANK, RANK_CHARS, SUIT, SUIT_CHARS
from .game import Game
from .games import GAMES, make_game
from .switches import RuleSwitches, parse_suit_order

if TYPE_CHECKING:
    from gymnasium import spaces

SLOT_FEATURES = 19
#: switches encoded relative to the seat (``Game.seat_features``), not as rule features
_IGNORED = {"banker_seat"}


def _card_features() -> np.ndarray:
    """The 19 slot features of every card id: rank, suit and joker one-hots."""
    table = np.zeros((N_IDS, SLOT_FEATURES), dtype=np.float32)
    real = np.arange(2, N_IDS)
    table[real, RANK[real]] = 1.0
    table[real, 13 + SUIT[real]] = 1.0
    table[[0, 1], [17, 18]] = 1.0
    table.flags.writeable = False
    return table


_CARD_FEATURES = _card_features()


@lru_cache(maxsize=256)
def _features_of(rules: RuleSwitches) -> tuple[tuple[str, float], ...]:
    """The rule features of a rules configuration (computed once per configuration)."""
    out: list[tuple[str, float]] = []
    for f in dataclasses.fields(rules):
        features = f.metadata.get("features")
        if f.name in _IGNORED or features == ():
            continue
        value = getattr(rules, f.name)
        allowed = f.metadata.get("allowed") if features is None else features
        if f.name == "suit_order":
            values = parse_suit_order(value)
            out += [(f"suit_value_{SUIT_CHARS[s]}", values[s] / 3) for s in range(4)]
        elif isinstance(value, int):  # booleans as 0/1, integers as given
            out.append((f.name, float(value)))
        elif allowed is not None:
            out += [(f"{f.name}={choice}", float(value == choice)) for choice in allowed]
    return tuple(out)


@lru_cache(maxsize=256)
def _rule_values(rules: RuleSwitches) -> np.ndarray:
    values = np.array([value for _, value in _features_of(rules)], dtype=np.float32)
    values.flags.writeable = False
    return values


def observation_labels(game: Game) -> list[str]:
    """The name of every index of the observation vector."""
    labels = []
    for slot in range(game.hand_size):
        labels += [f"slot{slot}_rank_{r}" for r in RANK_CHARS]
        labels += [f"slot{slot}_suit_{s}" for s in SUIT_CHARS]
        labels += [f"slot{slot}_joker_{j}" for j in ("BJ", "RJ")]
    labels += [f"seat_{s}" for s in range(game.players[1])]
    labels += [f"players_{n}" for n in range(2, game.players[1] + 1)]
    labels += [name for name, _ in _features_of(game.rules)]
    labels += list(game.seat_feature_labels())
    return labels


def observation_size(game: Game) -> int:
    return (game.hand_size * SLOT_FEATURES + 2 * game.players[1] - 1 + len(_features_of(game.rules))
            + len(game.seat_feature_labels()))


def observation_high(game: Game, finite: bool = False) -> np.ndarray:
    """The upper bound of every entry of an observation (the lower is 0): 1, except an entry
    that reads a rule's count (a 喜's value): ``inf`` (any count), or with ``finite`` that
    rule's value under ``game.rules`` (at least 1), for a ``Box`` of finite bounds."""
    labels = observation_labels(game)
    high = np.ones(len(labels), dtype=np.float32)
    counts = {name: value for name, value in game.rules.to_dict().items() if is_whole(value)}
    for i, label in enumerate(labels):
        if label in counts:
            high[i] = max(1, counts[label]) if finite else np.inf
    return high


def spaces_of(game: Game) -> tuple[spaces.Box, spaces.Discrete]:
    """The gymnasium observation and action spaces of a game's single-seat view, as the
    learned policies are built over them: an unbounded ``Box`` of :func:`observation_size`
    float32 values and one discrete action per split. gymnasium is imported on the call, so
    that this module stays NumPy only."""
    from gymnasium import spaces

    size = observation_size(game)
    return spaces.Box(-np.inf, np.inf, (size,), np.float32), spaces.Discrete(game.n_actions)


def encode_observations(game: Game, slots: np.ndarray, seats: np.ndarray, num_players: int) -> np.ndarray:
    """The float32 observations of many seats at once: ``slots`` (N, hand size) card ids in
    slot order and ``seats`` (N,) → (N, :func:`observation_size`)."""
    slots = np.asarray(slots, dtype=np.intp)
    seats = np.asarray(seats, dtype=np.intp)
    n, count = game.hand_size, len(slots)
    rule_values = _rule_values(game.rules)
    obs = np.zeros((count, observation_size(game)), dtype=np.float32)
    obs[:, : n * SLOT_FEATURES] = _CARD_FEATURES[slots].reshape(count, n * SLOT_FEATURES)
    base = n * SLOT_FEATURES
    rows = np.arange(count)
    obs[rows, base + seats] = 1.0
    base += game.players[1]
    obs[:, base + num_players - 2] = 1.0
    base += game.players[1] - 1
    obs[:, base:base + len(rule_values)] = rule_values
    base += len(rule_values)
    if game.seat_feature_labels():
        obs[:, base:] = np.array([game.seat_features(int(seat), num_players) for seat in range(num_players)],
                                 dtype=np.float32)[seats]
    return obs


def encode_observation(game: Game, slots: np.ndarray, seat: int, num_players: int) -> np.ndarray:
    """The float32 observation of a seat holding ``slots`` (card ids in slot order)."""
    return encode_observations(game, np.asarray(slots)[None], np.array([seat]), num_players)[0]


@lru_cache(maxsize=1)
def _layouts() -> dict[int, tuple[int, int]]:
    """Each registered game's hand size and most players, by the length of its observations
    (each game's observation width is fixed: rule switches never change it)."""
    layouts = {observation_size(make_game(name)): (cls.hand_size, cls.players[1]) for name, cls in GAMES.items()}
    if len(layouts) != len(GAMES):
        raise AssertionError("two games have observations of one length")
    return layouts


def _layout(observation: np.ndarray) -> tuple[int, int]:
    layout = _layouts().get(observation.shape[-1]) if observation.ndim == 1 else None
    if layout is None:
        raise ValueError(f"an observation of shape {observation.shape} is not one of a game's "
                         f"(lengths {', '.join(map(str, sorted(_layouts())))})")
    return layout


def decode_hand(observation: np.ndarray) -> np.ndarray:
    """The hand an observation encodes: its card ids in slot order (intp), read off the
    slots' one-hots; ValueError when the observation is no game's, or a slot holds no card."""
    observation = np.asarray(observation)
    size, _ = _layout(observation)
    slots = observation[: size * SLOT_FEATURES].reshape(size, SLOT_FEATURES)
    matches = (slots[:, None, :] == _CARD_FEATURES[None, :, :]).all(axis=2)
    found = matches.any(axis=1)
    if not found.all():
        raise ValueError(f"slot {int(np.flatnonzero(~found)[0])} of the observation encodes no card")
    return matches.argmax(axis=1).astype(np.intp)


def decode_seat(observation: np.ndarray) -> tuple[int, int]:
    """The seat and the table size an observation encodes (its two one-hots)."""
    observation = np.asarray(observation)
    size, most = _layout(observation)
    base = size * SLOT_FEATURES
    seat, players = observation[base:base + most], observation[base + most:base + 2 * most - 1]
    if seat.sum() != 1 or players.sum() != 1:
        raise ValueError("the observation encodes no seat and table size")
    return int(seat.argmax()), int(players.argmax()) + 2
