"""The exhaustive solver: the expected payoff of every valid split of a hand against sampled
opponents, and the best one.

One decision, for the hand of one seat at a table of ``n`` players:

1. deal ``samples`` sets of opponent hands (all other seats at once) from the cards this seat
   does not hold, with a seeded :class:`numpy.random.Generator`; every split is measured on
   the same sets;
2. arrange the opponents' hands with an opponent model: any agent spec (``greedy`` by
   default, run in one batch; ``solver`` a level-2 solver; ``checkpoint:PATH`` …);
3. compute, for every valid split, the mean of ``Game.score(...).payoffs[seat]`` over the
   sampled tables, exactly, under the game's full scoring;
4. play the split of highest expected payoff (ties: the lowest index).

Step 3 never scores a table. Thirteen scoring between two players is a sum over rows, so the
points a row earns depend only on which cards form it: they are computed once for each of
the 286 three-card and 1,287 five-card subsets of the hand (counting and summing the
opponents' row values with ``searchsorted`` over their sorted row strengths) and gathered
into the splits. The terms that need a whole split at once (two-four majority, scoop, home
run) are counted on bit sets over (opponent, sample), again built per subset. Biji pots are
handled the same way, per subset and sample (84 subsets), with the sweep (通锅) of this seat
and of every opponent counted on whole splits.

>>> from splitpoker.envs.games import make_game
>>> agent = SolverAgent(make_game("biji"), num_players=3, samples=16, seed=0)
>>> result = agent.solve("As Ah Ad Ks Kh Kd Qs Qh Qd", seed=1)
>>> result.describe(agent.game)
'Qd Qh Qs | Kd Kh Ks | Ad Ah As'
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..envs.biji import rules as biji
from ..envs.cards import format_cards, parse_cards
from ..envs.games import Game, make_game
from ..envs.observation import encode_observation
from ..envs.thirteen import rules as thirteen
from .base import Agent, hand_of, load_agent
from .baselines import greedy_index
from .solver_kernels import (
    biji_hand_xi,
    greedy_actions,
    pack_bits,
    popcount_rows,
    split_lookup,
    thirteen_special_values,
)

__all__ = ["SolverAgent", "SolveResult", "OPTIONS", "split_evs", "deal_opponents", "solver_decision_ms"]

#: the options of a ``solver:...`` spec and what they mean
OPTIONS = {
    "samples": "opponent deals per decision, an integer of at least 1 (default 256)",
    "opponent": "agent spec of the opponents' play (default greedy; 'solver' is a level-2 solver)",
    "seed": "seed of the solver's random generator, an integer (default: the seed given to load_agent)",
    "inner_samples": "samples of the opponents' solver when opponent=solver, an integer of at least 1 (default 16)",
}
DEFAULT_SAMPLES = 256
DEFAULT_INNER_SAMPLES = 16
#: opponent models built afresh (and seeded) for every decision; others are built once
_RESEEDED_KINDS = ("random", "solver")
#: valid splits per chunk of the bit-set pass (bounds memory)
_CHUNK = 8192
#: hands per call of an opponent model's ``act_batch``
_BATCH = 64


# ----------------------------------------------------------------------------- result

@dataclasses.dataclass
class SolveResult:
    """The answer of one decision, with the sampled tables it was measured on.

    ``evs`` has one entry per split of the game (72,072 or 1,680): the expected payoff of
    the split, NaN for invalid splits. ``opponent_hands[s, j]`` is the hand (slot order) of
    the seat ``opponent_seats[j]`` in sample ``s`` and ``opponent_actions[s, j]`` its split
    index, so :meth:`table` rebuilds every scored table.
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

    @property
    def samples(self) -> int:
        return int(self.opponent_hands.shape[0])

    def all_evs(self, n_actions: int | None = None) -> np.ndarray:
        """Expected payoff per split index (NaN where the split is invalid)."""
        if n_actions is not None and n_actions != len(self.evs):
            raise ValueError(f"the solve result has {len(self.evs)} splits, not {n_actions}")
        return self.evs

    def ranking(self, top: int | None = None) -> list[tuple[int, float]]:
        """Valid splits as ``(index, ev)``, best first (ties: lowest index)."""
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

def _generator(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    try:
        return np.random.default_rng(seed)
    except (TypeError, ValueError):
        raise ValueError(f"seed {seed!r} is not a Generator, an integer or a sequence of integers") from None


def deal_opponents(game: Game, slots: np.ndarray, num_players: int, samples: int,
                   rng: np.random.Generator) -> np.ndarray:
    """``samples`` deals of the other seats' hands from the cards not in ``slots``:
    shape (samples, num_players - 1, hand size), each hand in slot order."""
    unseen = np.setdiff1d(game.deck().astype(np.int64), slots)
    need = (num_players - 1) * game.hand_size
    if need > len(unseen):
        raise ValueError(f"{num_players} players need {need} unseen cards for the other hands; "
                         f"the {game.name} deck leaves {len(unseen)}")
    order = np.argsort(rng.random((samples, len(unseen))), axis=1)[:, :need]
    return np.sort(unseen[order].reshape(samples, num_players - 1, game.hand_size), axis=2)


def _arranged(game: Game, hands: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """Card ids row by row (each row in slot order) of hands played as ``actions``."""
    slot_rows = game.split_index.slot_table[actions].astype(np.intp)
    return np.take_along_axis(hands, slot_rows, axis=-1)


# ----------------------------------------------------------------------------- expected payoffs

def split_evs(game: Game, hand: Sequence[int] | np.ndarray, opponent_arrangements: np.ndarray,
              seat: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Every valid split's mean payoff for ``seat`` over sampled tables.

    ``opponent_arrangements`` has shape (samples, players - 1, hand size): the other seats'
    arrangements in increasing seat order, card ids row by row (first row first). Returns
    ``(valid, evs)``: the valid split indices (ascending) and their mean payoffs, equal to
    the mean of ``game.score(table).payoffs[seat]`` over the samples."""
    slots = game.slots([int(c) for c in hand])
    opp = np.asarray(opponent_arrangements, dtype=np.int64)
    if opp.ndim != 3 or opp.shape[2] != game.hand_size or opp.shape[0] < 1:
        raise ValueError(f"opponent arrangements of shape {opp.shape} are not (samples, players - 1, "
                         f"{game.hand_size}) card ids")
    n = game.check_players(opp.shape[1] + 1)
    seat = _check_seat(seat, n)
    _check_disjoint(game, slots, opp)
    sizes = game.split_index.row_sizes
    bounds = np.cumsum((0,) + sizes)
    opp = opp.copy()
    for k in range(3):
        opp[..., bounds[k]:bounds[k + 1]].sort(axis=-1)
    opp_seats = tuple(s for s in range(n) if s != seat)
    engine = _thirteen_totals if game.name == "thirteen" else _biji_totals
    valid, totals = engine(game, slots, seat, n, opp_seats, opp)
    return valid, totals / opp.shape[0]


def _check_seat(seat: Any, n: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat {seat!r} is not a seat of a {n}-player table (seats 0..{n - 1})")
    return int(seat)


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


def _thirteen_totals(game: Game, slots: np.ndarray, seat: int, n: int, opp_seats: tuple[int, ...],
                     opp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Valid splits and their summed payoffs over the samples (Thirteen)."""
    rules: thirteen.ThirteenRules = game.rules  # type: ignore[assignment]
    samples, n_opp, _ = opp.shape
    two_four = rules.scoring == "two_four"
    scoop = rules.scoop == "double"
    pairs = thirteen.compared_pairs(n, rules)
    pair_set = set(pairs)

    flat = opp.reshape(samples * n_opp, 13)
    strengths = np.empty((samples * n_opp, 3), dtype=np.int64)
    strengths[:, 0] = thirteen.row_strengths(flat[:, :3], rules)
    strengths[:, 1:] = thirteen.row_strengths(flat[:, 3:].reshape(-1, 5), rules).reshape(-1, 2)
    strengths = strengths.reshape(samples, n_opp, 3)
    fouled = ~thirteen.valid_strengths(strengths[..., 0], strengths[..., 1], strengths[..., 2])
    royal = np.ones((3, len(thirteen.HandType)), dtype=np.int64) if two_four else thirteen.royalty_table(rules.royalties)
    values = royal[np.arange(3), thirteen.strength_type(strengths)]
    special = thirteen_special_values(flat, rules).reshape(samples, n_opp)
    hero_special = thirteen.special_hand(slots.tolist(), rules)[1]
    compared = np.array([(seat, s) in pair_set or (s, seat) in pair_set for s in opp_seats])

    per = game.subset_strengths(slots)
    lookup = split_lookup(game.split_index)
    f_all, m_all, b_all = lookup.columns
    ro3, ro5 = thirteen.rank_only(per[3]), thirteen.rank_only(per[5])
    valid = np.flatnonzero((ro3[f_all] <= ro5[m_all]) & (ro5[m_all] <= ro5[b_all]))
    ids = (f_all[valid], m_all[valid], b_all[valid])
    row_subsets = (per[3], per[5], per[5])
    hero_values = [royal[k, thirteen.strength_type(row_subsets[k])] for k in range(3)]

    # pairs decided by special hands: the same for every split
    constant = 0
    for j in np.flatnonzero(compared):
        other = special[:, j]
        hero_first = (seat, opp_seats[j]) in pair_set
        vi, vj = (np.full_like(other, hero_special), other) if hero_first else (other, np.full_like(other, hero_special))
        total = np.where(vi > vj, vi, np.where(vj > vi, -vj, 0))
        if rules.specials == "banker":
            first_seat = seat if hero_first else opp_seats[j]
            total = np.where((vi != 0) & (vj != 0), -vj if first_seat == rules.banker_seat else vi, total)
        total = np.where((vi != 0) | (vj != 0), total, 0)
        constant += int(total.sum()) * (1 if hero_first else -1)
    if hero_special:
        return valid, np.full(len(valid), float(constant))

    plain = (special == 0) & compared[None, :]
    good = plain & ~fouled
    vx = hero_values[0][ids[0]] + hero_values[1][ids[1]] + hero_values[2][ids[2]] + int(two_four)
    totals = float(constant) + float((plain & fouled).sum() * (1 + scoop)) * vx
    for k in range(3):
        order = np.argsort(strengths[..., k][good], kind="stable")
        theirs = strengths[..., k][good][order]
        paid = np.concatenate([[0], np.cumsum(values[..., k][good][order])])
        mine = row_subsets[k]
        below = np.searchsorted(theirs, mine, side="left")
        not_above = np.searchsorted(theirs, mine, side="right")
        row_total = below * hero_values[k] - (paid[-1] - paid[not_above])
        totals = totals + row_total[ids[k]]
    if two_four or scoop:
        totals = totals + _thirteen_joint(rules, n, seat, opp_seats, pairs, row_subsets, ids, vx, strengths,
                                          values, special, fouled, good, plain, compared)
    return valid, totals


def _thirteen_joint(rules: thirteen.ThirteenRules, n: int, seat: int, opp_seats: tuple[int, ...],
                    pairs: list[tuple[int, int]], row_subsets: tuple[np.ndarray, ...],
                    ids: tuple[np.ndarray, ...], vx: np.ndarray, strengths: np.ndarray, values: np.ndarray,
                    special: np.ndarray, fouled: np.ndarray, good: np.ndarray, plain: np.ndarray,
                    compared: np.ndarray) -> np.ndarray:
    """The terms that need all three rows of a split at once, summed over the samples:
    the two-four majority point, the scoop (打枪) doubling and the home run (全垒打)."""
    two_four = rules.scoring == "two_four"
    scoop = rules.scoop == "double"
    home_run = scoop and rules.home_run and n == 4
    samples, n_opp, _ = strengths.shape
    cols = np.flatnonzero(compared)
    padded = -(-samples // 64) * 64

    def block(a: np.ndarray) -> np.ndarray:
        """(samples, opponents) → (compared opponents · padded samples,), zero padded."""
        out = np.zeros((len(cols), padded), dtype=a.dtype)
        out[:, :samples] = a[:, cols].T
        return out.reshape(-1)

    live = block(good)
    wins, losses = [], []
    for k in range(3):
        theirs = block(strengths[..., k])
        mine = row_subsets[k][:, None]
        wins.append(pack_bits((mine > theirs) & live))
        losses.append(pack_bits((mine < theirs) & live))
    weight = block((values.sum(axis=2) + int(two_four)) * good)
    planes = [pack_bits((weight >> p) & 1 == 1) for p in range(int(weight.max()).bit_length())]
    hero_home_run = home_run and len(cols) == n - 1
    swept_free = pack_bits(block(plain & fouled)) if hero_home_run else None
    their_home_run = _opponent_home_runs(n, opp_seats, pairs, strengths, special, fouled, good) if home_run else None
    their_bits = pack_bits(block(their_home_run)) if their_home_run is not None and their_home_run.any() else None

    out = np.zeros(len(vx))
    for start in range(0, len(vx), _CHUNK):
        part = slice(start, start + _CHUNK)
        wf, wm, wb = (wins[k][ids[k][part]] for k in range(3))
        lf, lm, lb = (losses[k][ids[k][part]] for k in range(3))
        if two_four:
            ahead = (wf & wm) | (wf & wb) | (wm & wb) | ((wf | wm | wb) & ~(lf | lm | lb))
            behind = (lf & lm) | (lf & lb) | (lm & lb) | ((lf | lm | lb) & ~(wf | wm | wb))
            out[part] += popcount_rows(ahead) - popcount_rows(behind)
        if not scoop:
            continue
        swept, lost = wf & wm & wb, lf & lm & lb
        out[part] += popcount_rows(swept) * vx[part]
        out[part] -= sum((1 << p) * popcount_rows(lost & plane) for p, plane in enumerate(planes))
        if swept_free is not None:
            every = np.bitwise_and.reduce((swept | swept_free).reshape(len(swept), len(cols), -1), axis=1)
            out[part] += popcount_rows(every) * (2 * len(cols)) * vx[part]
        if their_bits is not None:
            lost_all = lost & their_bits
            out[part] -= 2 * sum((1 << p) * popcount_rows(lost_all & plane) for p, plane in enumerate(planes))
    return out


def _opponent_home_runs(n: int, opp_seats: tuple[int, ...], pairs: list[tuple[int, int]], strengths: np.ndarray,
                        special: np.ndarray, fouled: np.ndarray, good: np.ndarray) -> np.ndarray:
    """(samples, opponents): the opponent is compared with every seat and scoops every other
    opponent, so that scooping this seat too makes its home run."""
    out = np.zeros(good.shape, dtype=bool)
    for j, s in enumerate(opp_seats):
        if sum(s in p for p in pairs) != n - 1:
            continue
        ok = good[:, j].copy()
        for k in range(len(opp_seats)):
            if k != j:
                ok &= (special[:, k] == 0) & (fouled[:, k] | (strengths[:, j] > strengths[:, k]).all(axis=1))
        out[:, j] = ok
    return out


def _biji_totals(game: Game, slots: np.ndarray, seat: int, n: int, opp_seats: tuple[int, ...],
                 opp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Valid splits and their summed payoffs over the samples (Biji)."""
    del seat, opp_seats  # every seat meets every other in each pot
    rules: biji.BijiRules = game.rules  # type: ignore[assignment]
    samples, n_opp, _ = opp.shape
    strengths = biji.group_strengths(opp.reshape(-1, 3), rules).reshape(samples, n_opp, 3)
    increasing = (strengths[..., 0] < strengths[..., 1]) & (strengths[..., 1] < strengths[..., 2])
    if not increasing.all():
        s, j = np.argwhere(~increasing)[0]
        raise ValueError(f"sample {s} opponent {j}: pots {' | '.join(format_cards(g) for g in opp[s, j].reshape(3, 3))} "
                         "are not strictly increasing")
    per = game.subset_strengths(slots)[3]
    lookup = split_lookup(game.split_index)
    f_all, m_all, b_all = lookup.columns
    valid = np.flatnonzero((per[f_all] < per[m_all]) & (per[m_all] < per[b_all]))
    ids = (f_all[valid], m_all[valid], b_all[valid])
    # opponents stronger than each opponent's pot, among the opponents
    above_them = (strengths[:, None, :, :] > strengths[:, :, None, :]).sum(axis=2)
    totals = np.zeros(len(valid))
    mine = per[:, None, None]
    hero_first, their_first = [], []
    for k in range(3):
        theirs = strengths[None, :, :, k]
        above, below = theirs > mine, theirs < mine
        n_above = above.sum(axis=2)
        collected = (below * (1 + above_them[None, :, :, k])).sum(axis=2)
        sharing = 1 + (theirs == mine).sum(axis=2)
        pot = np.where(n_above > 0, -n_above, collected / sharing)
        totals += pot.sum(axis=1)[ids[k]]
        hero_first.append(n_above == 0)
        their_first.append((above_them[None, :, :, k] == 0) & ~below)
    unit = n - 1
    cards = slots[game.split_index.slot_table[valid].astype(np.intp)]
    hero_xi = biji_hand_xi(cards, np.stack([per[i] for i in ids], axis=1), rules)
    their_xi = biji_hand_xi(opp.reshape(-1, 9), strengths.reshape(-1, 3), rules)
    totals += unit * ((n - 1) * hero_xi * samples - int(their_xi.sum()))
    if rules.xi_sweep:
        mine_swept = (hero_first[0][ids[0]] & hero_first[1][ids[1]] & hero_first[2][ids[2]]).sum(axis=1)
        theirs_swept = (their_first[0][ids[0]] & their_first[1][ids[1]] & their_first[2][ids[2]]).sum(axis=(1, 2))
        totals += unit * rules.xi_sweep * ((n - 1) * mine_swept - theirs_swept)
    return valid, totals


# ----------------------------------------------------------------------------- opponents

def _greedy_opponents(game: Game, hands: np.ndarray) -> np.ndarray:
    """The greedy split of every hand (batched); a hand whose batched greedy split fouls
    (possible under ``flush_compare=suit_first``) is played as :func:`greedy_index` plays it."""
    flat = hands.reshape(-1, game.hand_size)
    actions = greedy_actions(game, flat)
    if game.name == "thirteen" and game.rules.flush_compare == "suit_first":
        rows = _arranged(game, flat, actions)
        front = thirteen.row_strengths(rows[:, :3], game.rules)
        back = thirteen.row_strengths(rows[:, 3:].reshape(-1, 5), game.rules).reshape(-1, 2)
        for i in np.flatnonzero(~thirteen.valid_strengths(front, back[:, 0], back[:, 1])):
            actions[i] = greedy_index(game, flat[i])
    return actions.reshape(hands.shape[:-1])


def _agent_opponents(game: Game, agent: Agent, hands: np.ndarray, opp_seats: tuple[int, ...], n: int) -> np.ndarray:
    """Split indices chosen by ``agent`` for every sampled hand (shape (samples, opponents))."""
    samples, n_opp, _ = hands.shape
    observations, masks, infos = [], [], []
    for s in range(samples):
        for j, seat in enumerate(opp_seats):
            slots = hands[s, j]
            observations.append(encode_observation(game, slots, seat, n))
            masks.append(game.valid_mask(slots).astype(np.int8))
            infos.append({"hand": format_cards(slots).split(), "seat": seat, "num_players": n})
    if hasattr(agent, "act_batch"):
        chosen = [int(a) for start in range(0, len(masks), _BATCH)
                  for a in agent.act_batch(np.stack(observations[start:start + _BATCH]),
                                           np.stack(masks[start:start + _BATCH]))]
    else:
        chosen = [int(agent.act(o, m, i)) for o, m, i in zip(observations, masks, infos)]
    for a, mask, info in zip(chosen, masks, infos):
        if not 0 <= a < game.n_actions or not mask[a]:
            raise ValueError(f"opponent model {agent.name!r} chose split {a}, which is not a valid split of "
                             f"{' '.join(info['hand'])}")
    return np.array(chosen, dtype=np.int64).reshape(samples, n_opp)


# ----------------------------------------------------------------------------- the agent

def _positive_int(name: str, value: Any) -> int:
    integer = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not (integer or isinstance(value, str) and value.strip().lstrip("+-").isdigit()):
        raise ValueError(f"solver option {name}={value} is not an integer")
    number = int(value)
    if number < 1:
        raise ValueError(f"solver option {name}={value} must be at least 1")
    return number


class SolverAgent:
    """The exhaustive solver as an agent: ``act`` plays :meth:`solve`'s best split.

    Opponents modelled by ``opponent`` (an agent spec); ``greedy`` runs batched. ``solver``
    as the opponent means a solver with ``inner_samples`` samples and greedy opponents.
    """

    def __init__(self, game: Game, num_players: int = 4, samples: int | str = DEFAULT_SAMPLES,
                 opponent: str = "greedy", seed: Any = None, inner_samples: int | str = DEFAULT_INNER_SAMPLES) -> None:
        self.game = game
        self.num_players = game.check_players(num_players)
        self.samples = _positive_int("samples", samples)
        self.inner_samples = _positive_int("inner_samples", inner_samples)
        if not isinstance(opponent, str) or not opponent.strip():
            raise ValueError(f"solver option opponent={opponent!r} is not an agent spec")
        self.opponent = opponent.strip()
        self.name = f"solver(samples={self.samples},opponent={self.opponent})"
        self.rng = _generator(seed)
        kind = self.opponent.partition(":")[0]
        self._reseeded = kind in _RESEEDED_KINDS
        self._opponent_agent: Agent | None = None
        if self.opponent != "greedy":
            agent = load_agent(self._opponent_spec(), game, num_players=self.num_players, seed=0)
            if not self._reseeded:
                self._opponent_agent = agent
        if game.name == "thirteen":
            thirteen.compared_pairs(self.num_players, game.rules)  # a banker seat outside the table

    @classmethod
    def from_options(cls, game: Game, num_players: int, options: Mapping[str, str], seed: Any = None) -> SolverAgent:
        """The solver of a ``solver:key=value,...`` spec (see :data:`OPTIONS`)."""
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ValueError(f"unknown solver option {unknown[0]!r}; options: "
                             + "; ".join(f"{k}: {v}" for k, v in OPTIONS.items()))
        if "seed" in options:
            try:
                seed = int(options["seed"])
            except ValueError:
                raise ValueError(f"solver option seed={options['seed']} is not an integer") from None
        return cls(game, num_players, samples=options.get("samples", DEFAULT_SAMPLES),
                   opponent=options.get("opponent", "greedy"), seed=seed,
                   inner_samples=options.get("inner_samples", DEFAULT_INNER_SAMPLES))

    def _opponent_spec(self) -> str:
        if self.opponent == "solver":
            return f"solver:samples={self.inner_samples},opponent=greedy"
        return self.opponent

    def _arrange(self, hands: np.ndarray, opp_seats: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        if self.opponent == "greedy":
            return _greedy_opponents(self.game, hands)
        agent = self._opponent_agent
        if agent is None:
            seed = int(rng.integers(2**63))
            agent = load_agent(self._opponent_spec(), self.game, num_players=self.num_players, seed=seed)
        return _agent_opponents(self.game, agent, hands, opp_seats, self.num_players)

    def solve(self, hand: Sequence[int] | np.ndarray | str, seed: Any = None, *, seat: int = 0) -> SolveResult:
        """Measure every valid split of ``hand`` (card ids, or card text) for ``seat``.

        ``seed``: a Generator, or anything :func:`numpy.random.default_rng` takes; None
        uses the agent's own generator (advancing it)."""
        game = self.game
        cards = parse_cards(hand) if isinstance(hand, str) else [int(c) for c in hand]
        slots = game.slots(cards).astype(np.int64)
        n = self.num_players
        seat = _check_seat(seat, n)
        rng = self.rng if seed is None else _generator(seed)
        opp_seats = tuple(s for s in range(n) if s != seat)
        hands = deal_opponents(game, slots, n, self.samples, rng)
        actions = self._arrange(hands, opp_seats, rng)
        engine = _thirteen_totals if game.name == "thirteen" else _biji_totals
        valid, totals = engine(game, slots, seat, n, opp_seats, _arranged(game, hands, actions))
        values = totals / self.samples
        best = int(np.argmax(values))
        evs = np.full(game.n_actions, np.nan)
        evs[valid] = values
        return SolveResult(action=int(valid[best]), ev=float(values[best]), evs=evs, valid=valid, hand=slots,
                           seat=seat, num_players=n, opponent_seats=opp_seats, opponent_hands=hands,
                           opponent_actions=actions)

    def seed(self, value: Any) -> None:
        """Restart the agent's generator (evaluation reseeds agents per deal)."""
        self.rng = _generator(value)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        """The best split of ``info["hand"]`` for ``info.get("seat", 0)``."""
        players = info.get("num_players", self.num_players)
        if players != self.num_players:
            raise ValueError(f"{self.name} was built for {self.num_players} players; the table has {players}")
        result = self.solve(hand_of(info), seat=int(info.get("seat", 0)))
        if action_mask is not None and len(action_mask) == self.game.n_actions and not action_mask[result.action]:
            raise ValueError(f"{self.name}: split {result.action} is valid for the solver but not in the action mask; "
                             "is info['hand'] the hand of this observation?")
        return result.action


# ----------------------------------------------------------------------------- speed

def solver_decision_ms(game: str | Game = "thirteen", num_players: int = 4, samples: int = DEFAULT_SAMPLES,
                       repeats: int = 20, *, opponent: str = "greedy", seed: int = 0,
                       preset: str = "classic", **switches: Any) -> list[float]:
    """Wall time (ms) of ``repeats`` solver decisions on random hands of seat 0, after one
    untimed warm-up decision (which compiles the kernels)."""
    the_game = game if isinstance(game, Game) else make_game(game, preset, **switches)
    agent = SolverAgent(the_game, num_players, samples=samples, opponent=opponent, seed=seed)
    rng = np.random.default_rng(seed)
    hands = [rng.permutation(the_game.deck())[:the_game.hand_size] for _ in range(repeats + 1)]
    agent.solve(hands[0], 0)
    times = []
    for i, hand in enumerate(hands[1:]):
        start = time.perf_counter()
        agent.solve(hand, i)
        times.append((time.perf_counter() - start) * 1e3)
    return times
