"""How often agents make the rare strong rows that the solver makes.

A policy can be close to unexploitable on average and still miss the rare strong hands (a
straight flush not put in a row costs several points, and comes about once a hundred seats),
which carry much of its best-response gain. This counts them: ``tables`` tables of
``players`` seats are dealt from ``seed``; a seat *can* make a row of category ``category``
or stronger (the game's row types, weakest first: :attr:`Game.type_names`) when one of its
candidates (:meth:`Game.candidate_lists`) holds one; on those seats the solver
(``solver:samples=S,opponent=greedy``, seeded by ``seed``) decides, and on the seats where
its split holds such a row each agent decides too. Reported: the seats that can, those where
the solver makes one, and for each agent how many of those it makes.

Run it as ``python -m splitpoker.eval.rare_rows --game thirteen --preset shisanshui --players 3
--tables 400 --seed 0 pretrained:thirteen_shisanshui_3p greedy [--category straight_flush]
[--samples 256] [--json]``.

>>> result = rare_rows("biji", ["greedy"], tables=20, players=4, seed=3, samples=8)
>>> result.category, result.seats, result.solver_makes <= result.can_make <= result.seats
('straight_flush', 80, True)
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..agents import load_agent
from ..agents.solver import MAX_SAMPLES
from ..agents.version import report_stamp
from ..envs.game import Game
from ..envs.games import make_game
from ..envs.table import deal
from ..runtime.arguments import check_whole, module_command, whole_number
from ..runtime.limits import MAX_HANDS, check_count
from ..runtime.seeding import check_seed

__all__ = ["RareRows", "rare_rows", "main"]

DEFAULT_SAMPLES = 256


@dataclasses.dataclass(frozen=True)
class RareRows:
    """What :func:`rare_rows` counted."""

    game: str
    preset: str
    players: int
    category: str
    samples: int
    seed: int
    #: the seats dealt
    seats: int
    #: seats with a candidate holding a row of ``category`` or stronger
    can_make: int
    #: of those, the seats where the solver's split holds one
    solver_makes: int
    #: by agent spec: of the seats where the solver makes one, those where the agent does
    made: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "splitpoker": report_stamp()}


def _holds(game: Game, hands: np.ndarray, splits: np.ndarray, least: int) -> np.ndarray:
    """Whether each split of each hand puts a row of type index ``least`` or above."""
    if not len(hands):
        return np.zeros(0, dtype=bool)
    cards = game.arranged(hands, splits)
    cuts = np.cumsum((0, *game.split_index.row_sizes))
    types = [np.asarray(game.strength_type(game.row_strengths(np.ascontiguousarray(cards[:, a:b]))))
             for a, b in zip(cuts[:-1], cuts[1:])]
    return np.asarray((np.stack(types, axis=1) >= least).any(axis=1), dtype=bool)


def rare_rows(game: str, agents: Sequence[str], preset: str = "classic", tables: int = 300, players: int = 4,
              seed: int = 0, samples: int = DEFAULT_SAMPLES, category: str = "straight_flush",
              switches: Mapping[str, Any] | None = None, options: bool = False) -> RareRows:
    """Count the rows of ``category`` or stronger that the solver and each of ``agents`` make
    (the module docstring). ValueError naming the first bad argument (as the command line's
    option with ``options``, else as a keyword)."""
    played = make_game(game, preset, **dict(switches or {}))
    n = played.check_players(players)
    named = "--{}".format if options else "{}=".format
    count = check_count(tables, named("tables"), most=MAX_HANDS)
    samples = check_whole(samples, named("samples"), least=1, most=MAX_SAMPLES)
    check_seed(seed)
    if category not in played.type_names:
        raise ValueError(f"{'--category' if options else 'category'} {category!r} is not a row type of {played.name}; "
                         f"its types, weakest first: {', '.join(played.type_names)}")
    least = played.type_names.index(category)
    dealt = deal(played, n, np.random.default_rng(seed), batch=count, mask="undominated")
    seats = np.indices((count, n)).reshape(2, -1).T
    hands = dealt.slots.reshape(-1, played.hand_size)
    lists = played.candidate_lists(hands)
    owner = np.repeat(np.arange(len(hands)), [len(c) for c in lists])
    every = np.concatenate(lists) if lists else np.zeros(0, dtype=np.int64)
    can = np.zeros(len(hands), dtype=bool)
    can[owner[_holds(played, hands[owner], every, least)]] = True
    chosen = seats[can]
    solver = load_agent(f"solver:samples={samples},opponent=greedy", played, num_players=n, seed=seed)
    made_by_solver = _holds(played, hands[can], np.asarray(solver.act_batch(dealt.views_at(chosen))), least)
    target = chosen[made_by_solver]
    made = {}
    for spec in agents:
        agent = load_agent(spec, played, num_players=n, seed=seed)
        picks = np.asarray(agent.act_batch(dealt.views_at(target))) if len(target) else np.zeros(0, dtype=np.int64)
        made[spec] = int(_holds(played, dealt.slots[target[:, 0], target[:, 1]], picks, least).sum())
    return RareRows(game=played.name, preset=preset, players=n, category=category, samples=samples, seed=int(seed),
                    seats=len(hands), can_make=int(can.sum()), solver_makes=len(target), made=made)


def _parser() -> argparse.ArgumentParser:
    from ..envs.commands import GAME_CHOICES

    parser = argparse.ArgumentParser(
        prog="python -m splitpoker.eval.rare_rows",
        description="How often agents make the rare strong rows (a category or stronger: a straight flush by "
        "default) on the seats where the solver makes one.")
    parser.add_argument("agents", nargs="+", metavar="AGENT", help="agent specs, e.g. pretrained:thirteen_classic_4p")
    parser.add_argument("--game", required=True, choices=GAME_CHOICES, help="the game")
    parser.add_argument("--preset", default="classic", help="rules preset (default classic)")
    parser.add_argument("--set", dest="switches", action="append", default=[], metavar="SWITCH=VALUE",
                        help="override one rule switch (repeatable)")
    parser.add_argument("--players", type=whole_number, default=4, help="players at the table (default 4)")
    parser.add_argument("--tables", type=whole_number, default=300, help="tables dealt (default 300)")
    parser.add_argument("--seed", type=whole_number, default=0, help="seed of the deals and the solver (default 0)")
    parser.add_argument("--samples", type=whole_number, default=DEFAULT_SAMPLES,
                        help=f"the solver's deals of the other hands per decision (default {DEFAULT_SAMPLES})")
    parser.add_argument("--category", default="straight_flush",
                        help="the least row type counted (default straight_flush)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (the module docstring): 0, or 2 with one line on stderr for a bad
    argument, 130 when interrupted."""
    from ..envs.switches import parse_assignments

    def measure(args: argparse.Namespace) -> RareRows:
        return rare_rows(args.game, args.agents, args.preset, tables=args.tables, players=args.players,
                         seed=args.seed, samples=args.samples, category=args.category,
                         switches=parse_assignments(args.switches), options=True)

    def text(result: RareRows) -> str:
        lines = [f"{result.game} {result.preset}, {result.players} players, {result.seats:,} seats (seed "
                 f"{result.seed}): {result.can_make} can make a {result.category} or stronger row; the solver "
                 f"({result.samples} samples, greedy opponents) makes one on {result.solver_makes}"]
        for spec, made in result.made.items():
            share = f" ({made / result.solver_makes:.1%})" if result.solver_makes else ""
            lines.append(f"  {spec}: {made} of {result.solver_makes}{share}")
        return "\n".join(lines)

    return module_command(_parser(), argv, measure, text)


if __name__ == "__main__":
    sys.exit(main())
