"""The exhaustive solver: the expected payoff of every valid split of a hand against sampled
opponents, and the best one.

One decision, for the hand of one seat at a table of ``n`` players:

1. deal ``samples`` sets of opponent hands (all other seats at once) from the cards this seat
   does not hold, with a seeded :class:`numpy.random.Generator`; every split is measured on
   the same sets;
2. arrange the opponents' hands with an opponent model: any agent spec (``greedy`` by
   default, run in one batch; ``solver`` a level-2 solver; ``checkpoint:PATH`` …);
3. compute, for every candidate (the valid splits no other split dominates:
   :mod:`splitpoker.envs.dominance`; about 100 of Thirteen's 22,000 valid splits), the mean
   of ``Game.score(...).payoffs[seat]`` over the sampled tables, exactly, under the game's
   full scoring. A dominated split scores no more than a candidate on every sampled table,
   so the best value over every valid split is the same; ``splits=valid`` measures every
   valid split (the same best value, though of equal splits another may be played);
4. play the split of highest expected payoff (ties: the lowest index).

Steps 1 and 2 run on the table core (:func:`splitpoker.envs.table.deal_around`, the
opponent model's ``act_batch`` over seat views). Step 3 never scores a table: each game
computes it per subset of the hand and gathers it into the splits
(:meth:`splitpoker.envs.game.Game.split_totals`, in ``envs/thirteen/expected.py`` and
``envs/biji/expected.py``), from the same scoring primitives as ``score_table``.

>>> from splitpoker.envs.games import make_game
>>> agent = SolverAgent(make_game("biji"), num_players=3, samples=16, seed=0)
>>> result = agent.solve("As Ah Ad Ks Kh Kd Qs Qh Qd", seed=1)
>>> result.describe(agent.game)
'Qd Qh Qs | Kd Kh Ks | Ad Ah As'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..envs.cards import format_cards, parse_cards
from ..envs.game import Game
from ..envs.messages import cut
from ..envs.table import MASKS, SeatView, check_seat, deal_around
from ..runtime.arguments import is_whole
from ..runtime.seeding import as_generator
from .base import Agent, check_table_size
from .loading import load_agent
from .specs import AgentSpec, parse_spec

__all__ = ["SolverAgent", "SolveResult", "OPTIONS", "MAX_SAMPLES", "split_evs", "deal_opponents"]

#: the options of a ``solver:...`` spec and what they mean
OPTIONS = {
    "samples": "opponent deals per decision, an integer of at least 1 (default 256)",
    "opponent": "agent spec of the opponents' play (default greedy; 'solver' is a level-2 solver)",
    "seed": "seed of the solver's random generator, an integer (default: the seed given to load_agent)",
    "inner_samples": "samples of the opponents' solver when opponent=solver, an integer of at least 1 (default 16)",
    "splits": "the splits measured: candidates (default: the undominated ones, among which the best always is) "
              "or valid (every valid split: the same best value, more time)",
    "opponent_mask": "the opponent model's action masks: valid (default) or undominated (the candidates: greedy and "
                     "the heuristic then play the candidate that beats their split; a learned opponent chooses "
                     "among its candidates either way)",
}
#: the values of the ``splits`` option
SPLITS = ("candidates", "valid")
DEFAULT_SPLITS = "candidates"
DEFAULT_SAMPLES = 256
DEFAULT_INNER_SAMPLES = 16
#: opponent models built afresh (and seeded) for every decision; others are built once
_RESEEDED_KINDS = ("random", "solver")
#: opponent models built once and reseeded for every decision (building them is slow)
_SEEDED_KINDS = ("mixture",)


# ----------------------------------------------------------------------------- result

@dataclasses.dataclass
class SolveResult:
    """The answer of one decision, with the sampled tables it was measured on.

    ``evs`` has one entry per split of the game (72,072 or 1,680): the expected payoff of
    each split measured (``valid``: the candidates, or every valid split), NaN for the
    others: invalid splits, and valid ones that were not evaluated because another split
    dominates them (:meth:`ev_of` measures any valid split on the same tables).
    ``opponent_hands[s, j]`` is the hand (slot order) of the seat ``opponent_seats[j]`` in
    sample ``s`` and ``opponent_actions[s, j]`` its split index, so :meth:`table` rebuilds
    every scored table.
    """

    action: int
    ev: float
    evs: np.ndarray
    valid: np.ndarray
    hand: np.ndarray
    seat: int
    num_players: int
    opponent_seats: tuple[int, ...]
    opponent_hands: np.ndarray
    opponent_actions: np.ndarray
    #: what ``valid`` holds: ``"candidates"`` or ``"valid"`` (every valid split)
    measured: str = DEFAULT_SPLITS
    #: the expected payoffs of more splits on the same tables (see :meth:`ev_of`)
    _measure: Any = dataclasses.field(default=None, repr=False, compare=False)

    def ev_of(self, split: int) -> float:
        """The expected payoff of any valid split on the same sampled tables: from
        :attr:`evs` when it was measured, else measured now."""
        value = float(self.evs[split])
        if np.isnan(value) and self._measure is not None:
            value = float(self._measure(np.array([split]))[0])
            self.evs[split] = value
        return value

    @property
    def samples(self) -> int:
        return int(self.opponent_hands.shape[0])

    def all_evs(self, n_actions: int | None = None) -> np.ndarray:
        """Expected payoff per split index (NaN where the split is invalid)."""
        if n_actions is not None and n_actions != len(self.evs):
            raise ValueError(f"the solve result has {len(self.evs)} splits, not {n_actions}")
        return self.evs

    def ranking(self, top: int | None = None) -> list[tuple[int, float]]:
        """The measured splits as ``(index, ev)``, best first (ties: lowest index): the
        candidates, or every valid split; a dominated split ranks no higher than the
        candidate that dominates it."""
        values = self.evs[self.valid]
        order = np.lexsort((self.valid, -values))[:top]
        return [(int(self.valid[i]), float(values[i])) for i in order]

    def table(self, game: Game, action: int, sample: int) -> list[list[list[int]]]:
        """The arrangements of every seat, in seat order, of sample ``sample`` when this seat
        plays ``action``: what ``game.score`` is given."""
        rows: list[list[list[int]]] = [[] for _ in range(self.num_players)]
        rows[self.seat] = game.arrangement(self.hand, action)
        for j, seat in enumerate(self.opponent_seats):
            rows[seat] = game.arrangement(self.opponent_hands[sample, j], int(self.opponent_actions[sample, j]))
        return rows

    def describe(self, game: Game, action: int | None = None) -> str:
        """``"row | row | row"`` of a split (the best one by default), weakest row first."""
        rows = game.arrangement(self.hand, self.action if action is None else action)
        return " | ".join(format_cards(r) for r in rows)


# ----------------------------------------------------------------------------- dealing

def deal_opponents(game: Game, slots: np.ndarray, num_players: int, samples: int,
                   rng: np.random.Generator) -> np.ndarray:
    """``samples`` deals of the other seats' hands from the cards not in ``slots``:
    shape (samples, num_players - 1, hand size), each hand in slot order."""
    return deal_around(game, slots, 0, num_players, samples, rng).slots[:, 1:]


# ----------------------------------------------------------------------------- expected payoffs

def split_evs(game: Game, hand: Sequence[int] | np.ndarray, opponent_arrangements: np.ndarray,
              seat: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Every valid split's mean payoff for ``seat`` over sampled tables.

    ``opponent_arrangements`` has shape (samples, players - 1, hand size): the other seats'
    arrangements in increasing seat order, card ids row by row (first row first). Returns
    ``(valid, evs)``: the valid split indices (ascending) and their mean payoffs, equal to
    the mean of ``game.score(table).payoffs[seat]`` over the samples."""
    slots = game.slots(list(hand))
    opp = np.asarray(opponent_arrangements)
    if opp.size and opp.dtype.kind not in "iu":
        raise ValueError(f"opponent arrangements of type {opp.dtype} are not card ids (integers)")
    opp = opp.astype(np.int64, copy=False)
    if opp.ndim != 3 or opp.shape[2] != game.hand_size or opp.shape[0] < 1:
        raise ValueError(f"opponent arrangements of shape {opp.shape} are not (samples, players - 1, "
                         f"{game.hand_size}) card ids")
    n = game.check_players(opp.shape[1] + 1)
    seat = check_seat(seat, n)
    _check_disjoint(game, slots, opp)
    sizes = game.split_index.row_sizes
    bounds = np.cumsum((0,) + sizes)
    opp = opp.copy()
    for k in range(3):
        opp[..., bounds[k]:bounds[k + 1]].sort(axis=-1)
    opp_seats = tuple(s for s in range(n) if s != seat)
    valid, totals = game.split_totals(slots, seat, n, opp_seats, opp)
    return valid, totals / opp.shape[0]


def _check_disjoint(game: Game, slots: np.ndarray, opp: np.ndarray) -> None:
    cards = np.concatenate([np.broadcast_to(slots, (opp.shape[0], len(slots))), opp.reshape(opp.shape[0], -1)], axis=1)
    deck = set(game.deck().tolist())
    if not np.isin(cards, list(deck)).all():
        bad = int(cards[~np.isin(cards, list(deck))][0])
        raise ValueError(f"card id {bad} is not a card of the {game.name} deck")
    ordered = np.sort(cards, axis=1)
    repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    if repeated.any():
        s = int(np.flatnonzero(repeated)[0])
        dup = ordered[s, 1:][ordered[s, 1:] == ordered[s, :-1]][0]
        raise ValueError(f"sample {s}: card {format_cards([int(dup)])} is dealt twice")


# ----------------------------------------------------------------------------- the agent

#: the most opponent deals one decision may sample (each is a table of hands in memory)
MAX_SAMPLES = 1_000_000


def _positive_int(name: str, value: Any) -> int:
    if not (is_whole(value) or isinstance(value, str) and value.strip().lstrip("+-").isdigit()):
        raise ValueError(f"solver option {name}={value} is not an integer")
    number = int(value)
    if number < 1:
        raise ValueError(f"solver option {name}={value} must be at least 1")
    if number > MAX_SAMPLES:
        raise ValueError(f"solver option {name}={value} is more than the most allowed, {MAX_SAMPLES:,}")
    return number


class SolverAgent(Agent):
    """The exhaustive solver as an agent: it plays :meth:`solve`'s best split.

    Opponents modelled by ``opponent`` (an agent spec, or an :class:`Agent` object; decided in
    batches). ``solver`` as the opponent means a solver with ``inner_samples`` samples and
    greedy opponents.
    """

    def __init__(self, game: Game, num_players: int = 4, samples: int | str = DEFAULT_SAMPLES,
                 opponent: str | AgentSpec | Agent = "greedy", seed: Any = None,
                 inner_samples: int | str = DEFAULT_INNER_SAMPLES, splits: str = DEFAULT_SPLITS,
                 opponent_mask: str = "valid") -> None:
        if splits not in SPLITS:
            raise ValueError(f"solver option splits={splits} is not allowed; use {' or '.join(SPLITS)}")
        self.splits = splits
        if opponent_mask not in MASKS:
            raise ValueError(f"solver option opponent_mask={opponent_mask} is not allowed; use {' or '.join(MASKS)}")
        self.opponent_mask = opponent_mask
        self.game = game
        self.num_players = game.check_players(num_players)
        self.samples = _positive_int("samples", samples)
        self.inner_samples = _positive_int("inner_samples", inner_samples)
        self.rng = as_generator(seed)
        self._opponent_agent: Agent | None
        self._seeded = False
        if isinstance(opponent, Agent):  # an agent object (a policy being trained), used as it is
            self.opponent, self._opponent_agent = opponent.name, opponent
        else:
            if not isinstance(opponent, (str, AgentSpec)) or isinstance(opponent, str) and not opponent.strip():
                raise ValueError(f"solver option opponent={opponent!r} is not an agent spec")
            self._opponent = parse_spec(opponent)
            self.opponent = self._opponent.text
            kind = self._opponent_spec().kind
            self._seeded = kind in _SEEDED_KINDS
            agent = load_agent(self._opponent_spec(), game, num_players=self.num_players, seed=0)
            self._opponent_agent = None if kind in _RESEEDED_KINDS else agent
        options = (("splits", splits, DEFAULT_SPLITS), ("opponent_mask", opponent_mask, "valid"))
        extra = "".join(f",{key}={value}" for key, value, default in options if value != default)
        self.name = f"solver(samples={self.samples},opponent={self.opponent}{extra})"

    @classmethod
    def from_options(cls, game: Game, num_players: int, options: Mapping[str, str | AgentSpec],
                     seed: Any = None) -> SolverAgent:
        """The solver of a ``solver:key=value,...`` spec (see :data:`OPTIONS`)."""
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"unknown solver option {unknown[0]!r}; options: "
                             + "; ".join(f"{k}: {v}" for k, v in OPTIONS.items()))
        opponent = parse_spec(options.get("opponent", "greedy"))
        if "inner_samples" in options and not _plain_solver(opponent):
            raise ValueError(f"solver option inner_samples={options['inner_samples']} needs opponent=solver "
                             f"(the opponent model here is {opponent.text})")
        if "seed" in options:
            try:
                seed = int(str(options["seed"]))
            except ValueError:
                raise ValueError(f"solver option seed={options['seed']} is not an integer") from None
        text = {k: str(v) for k, v in options.items() if k != "opponent"}
        return cls(game, num_players, samples=text.get("samples", DEFAULT_SAMPLES), opponent=opponent, seed=seed,
                   inner_samples=text.get("inner_samples", DEFAULT_INNER_SAMPLES),
                   splits=text.get("splits", DEFAULT_SPLITS), opponent_mask=text.get("opponent_mask", "valid"))

    def _opponent_spec(self) -> AgentSpec:
        if _plain_solver(self._opponent):
            return self._opponent.with_options(samples=self.inner_samples, opponent="greedy")
        return self._opponent

    def _opponent_model(self, rng: np.random.Generator) -> Agent:
        """The opponent model: built once, or afresh from ``rng`` for every decision when it
        is random (a ``random`` or ``solver`` spec); a ``mixture`` is built once and reseeded
        from ``rng`` for every decision."""
        if self._opponent_agent is not None:
            if self._seeded:
                self._opponent_agent.seed(int(rng.integers(2**63)))
            return self._opponent_agent
        seed = int(rng.integers(2**63))
        return load_agent(self._opponent_spec(), self.game, num_players=self.num_players, seed=seed)

    def solve(self, hand: Sequence[int] | np.ndarray | str, seed: Any = None, *, seat: int = 0) -> SolveResult:
        """Measure the candidates (or every valid split) of ``hand`` (card ids, or card
        text) for ``seat``.

        ``seed``: a Generator, or anything :func:`numpy.random.default_rng` takes; None
        uses the agent's own generator (advancing it)."""
        game = self.game
        try:
            cards = parse_cards(hand) if isinstance(hand, str) else list(hand)
        except TypeError:  # not a sequence
            raise ValueError(f"hand {cut(repr(hand), 60)} is not a hand: give card ids or card text") from None
        n = self.num_players
        seat = check_seat(seat, n)
        rng = self.rng if seed is None else as_generator(seed)
        opp_seats = tuple(s for s in range(n) if s != seat)
        tables = deal_around(game, cards, seat, n, self.samples, rng, mask=self.opponent_mask)  # checks the hand
        slots = tables.slots[0, seat].astype(np.int64)
        model = self._opponent_model(rng)  # the other seats of every sampled table, in batches of its batch_size
        actions = tables.decide([(b, s, model) for b in range(tables.batch) for s in opp_seats])[:, list(opp_seats)]
        hands = tables.slots[:, list(opp_seats)]
        arranged = game.arranged(hands, actions)
        candidates = np.flatnonzero(game.candidate_mask(slots)) if self.splits == "candidates" else None
        valid, totals = game.split_totals(slots, seat, n, opp_seats, arranged, candidates)
        values = totals / self.samples
        best = int(np.argmax(values))
        evs = np.full(game.n_actions, np.nan)
        evs[valid] = values

        def measure(splits: np.ndarray) -> np.ndarray:
            return game.split_totals(slots, seat, n, opp_seats, arranged, np.sort(splits))[1] / self.samples

        return SolveResult(action=int(valid[best]), ev=float(values[best]), evs=evs, valid=valid, hand=slots,
                           seat=seat, num_players=n, opponent_seats=opp_seats, opponent_hands=hands,
                           opponent_actions=actions, measured=self.splits, _measure=measure)

    def seed(self, seed: Any) -> None:
        """Restart the agent's generator (evaluation reseeds agents per deal)."""
        self.rng = as_generator(seed)

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        """The best split of each view's hand for its seat."""
        check_table_size(self, self.num_players, views)
        # each the best of the seat's own valid splits
        return np.array([self.solve(view.slots, seat=view.seat).action for view in views], dtype=np.int64)


def _plain_solver(spec: AgentSpec) -> bool:
    """Whether ``spec`` is ``solver`` without options (an opponent model of ``inner_samples``)."""
    return spec.kind == "solver" and not spec.option_items


def solver_agent(spec: AgentSpec, game: Game, num_players: int, seed: Any) -> SolverAgent:
    """The agent of a ``solver[:options]`` spec."""
    return SolverAgent.from_options(game, num_players, spec.options, seed=seed)
