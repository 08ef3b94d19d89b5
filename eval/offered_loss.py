"""The value the offered-splits action space loses by its truncation rule.

A seat is offered at most ``K`` of its candidates, those of the highest heuristic value
(:mod:`splitpoker.envs.offered`); a hand with more candidates loses the others. This
measures what that costs a player who would play the best split: for every dealt seat
whose hand has more than ``K`` candidates, every candidate is valued by the solver
(:class:`~splitpoker.agents.solver.SolverAgent`'s own valuation, ``solver:samples=S,
opponent=greedy``: ``S`` deals of the other hands arranged by greedy opponents, then
:meth:`Game.split_totals` of the candidates), and the hand's loss is the best candidate's
value minus the best offered candidate's value (0 for a hand whose candidates are all
offered). Reported: the mean loss over all dealt hands, the hands truncated, the mean loss
over those and the largest loss, in points per hand.

The deals are reproducible from the seed: tables of ``players`` seats are dealt in chunks,
chunk ``c`` from ``derived_seed(seed, c)``, their seats taken in order until ``hands``
hands, and the solver of hand ``i`` of chunk ``c`` by ``derived_seed(seed, c, i)``.

Run it as ``python -m splitpoker.eval.offered_loss --game thirteen --preset classic
--hands 10000 --offer 256 --players 4 --seed 1 [--samples 256] [--json]``.

>>> result = offered_loss("biji", hands=8, offer=2, players=4, seed=1, samples=8)
>>> result.hands, result.truncated > 0, result.mean_loss >= 0
(8, True, True)
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..agents.solver import MAX_SAMPLES, SolverAgent
from ..agents.version import report_stamp
from ..envs.games import make_game
from ..envs.offered import check_offer, offer_hands
from ..envs.table import deal
from ..runtime.arguments import check_whole, module_command, whole_number
from ..runtime.limits import MAX_HANDS, check_count
from ..runtime.progress import progress_bar
from ..runtime.seeding import check_seed, derived_seed

__all__ = ["OfferedLoss", "offered_loss", "main"]

#: tables dealt (and hands offered) in one chunk
CHUNK_TABLES = 256
DEFAULT_HANDS = 10_000
DEFAULT_SAMPLES = 256


@dataclasses.dataclass(frozen=True)
class OfferedLoss:
    """What :func:`offered_loss` measured (points per hand)."""

    game: str
    preset: str
    #: the resolved rule switches
    rules: dict[str, Any]
    players: int
    offer: int
    samples: int
    seed: int
    hands: int
    #: hands with more candidates than ``offer``
    truncated: int
    #: the loss averaged over every dealt hand (0 for the hands not truncated)
    mean_loss: float
    #: the loss averaged over the truncated hands (0 when none is)
    mean_truncated_loss: float
    max_loss: float
    #: the most candidates of a dealt hand
    max_candidates: int

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "splitpoker": report_stamp()}


def offered_loss(game: str, preset: str = "classic", hands: int = DEFAULT_HANDS, offer: int | None = None,
                 players: int = 4, seed: int = 0, samples: int = DEFAULT_SAMPLES,
                 switches: Mapping[str, Any] | None = None, progress: bool = False,
                 options: bool = False) -> OfferedLoss:
    """The value lost by offering ``offer`` splits (the game's default when None) at a table
    of ``players``, over ``hands`` dealt hands (the module docstring); ``samples`` the
    solver's deals of the other hands. ValueError naming the first bad argument (as the
    command line's option with ``options``, else as a keyword)."""
    played = make_game(game, preset, **dict(switches or {}))
    n = played.check_players(players)
    named = "--{}".format if options else "{}=".format
    k = check_offer(offer, played, named("offer"))
    total = check_count(hands, named("hands"), most=MAX_HANDS)
    samples = check_whole(samples, named("samples"), least=1, most=MAX_SAMPLES)
    check_seed(seed)
    solver = SolverAgent(played, num_players=n, samples=samples, opponent="greedy", seed=0)
    losses: list[float] = []
    most = 0
    with progress_bar(disable=not progress) as bar:
        task = bar.add_task("offered loss", total=total)
        for chunk, start in enumerate(range(0, total, CHUNK_TABLES * n)):
            count = min(CHUNK_TABLES * n, total - start)
            tables = deal(played, n, derived_seed(seed, chunk), batch=-(-count // n))
            dealt = tables.slots.reshape(-1, played.hand_size)[:count]
            offered = offer_hands(played, dealt, n, k)
            most = max(most, int(offered.counts.max()))
            for i in np.flatnonzero(offered.counts > k).tolist():
                result = solver.solve(dealt[i], seed=derived_seed(seed, chunk, i), seat=i % n)
                losses.append(result.ev - float(np.max(result.evs[offered.splits[i]])))
            bar.advance(task, count)
    return OfferedLoss(game=played.name, preset=preset, rules=dataclasses.asdict(played.rules), players=n, offer=k,
                       samples=samples, seed=int(seed), hands=total, truncated=len(losses),
                       mean_loss=float(sum(losses) / total), max_loss=max(losses, default=0.0), max_candidates=most,
                       mean_truncated_loss=float(np.mean(losses)) if losses else 0.0)


def _parser() -> argparse.ArgumentParser:
    from ..envs.commands import GAME_CHOICES

    parser = argparse.ArgumentParser(
        prog="python -m splitpoker.eval.offered_loss",
        description="The value the offered-splits action space loses by offering each seat only the K candidates "
        "of the highest heuristic value: the solver values every candidate of each truncated hand, and the loss "
        "is the best candidate's value minus the best offered one's, averaged over every dealt hand.")
    parser.add_argument("--game", required=True, choices=GAME_CHOICES, help="the game")
    parser.add_argument("--preset", default="classic", help="rules preset (default classic)")
    parser.add_argument("--set", dest="switches", action="append", default=[], metavar="SWITCH=VALUE",
                        help="override one rule switch (repeatable)")
    parser.add_argument("--hands", type=whole_number, default=DEFAULT_HANDS,
                        help=f"hands dealt, seat by seat (default {DEFAULT_HANDS:,})")
    parser.add_argument("--offer", type=whole_number, help="K, the splits offered a seat (default: the game's, "
                        "256 in Thirteen, 64 in Biji)")
    parser.add_argument("--players", type=whole_number, default=4, help="players at the table (default 4)")
    parser.add_argument("--seed", type=whole_number, default=0, help="seed of the deals and the solver (default 0)")
    parser.add_argument("--samples", type=whole_number, default=DEFAULT_SAMPLES,
                        help=f"the solver's deals of the other hands per hand (default {DEFAULT_SAMPLES})")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (the module docstring): 0, or 2 with one line on stderr for a bad
    argument, 130 when interrupted."""
    from ..envs.switches import parse_assignments

    def measure(args: argparse.Namespace) -> OfferedLoss:
        return offered_loss(args.game, args.preset, hands=args.hands, offer=args.offer, players=args.players,
                            seed=args.seed, samples=args.samples, switches=parse_assignments(args.switches),
                            progress=not args.json, options=True)

    def text(result: OfferedLoss) -> str:
        return (f"offered-splits loss ({result.game} {result.preset}, {result.players} players, K={result.offer}, "
                f"solver {result.samples} samples, greedy opponents): {result.mean_loss:.4f} points per hand over "
                f"{result.hands:,} hands; {result.truncated:,} truncated ({result.truncated / result.hands:.2%}), "
                f"{result.mean_truncated_loss:.4f} per truncated hand, largest {result.max_loss:.4f}; most "
                f"candidates {result.max_candidates:,}")

    return module_command(_parser(), argv, measure, text)


if __name__ == "__main__":
    sys.exit(main())
