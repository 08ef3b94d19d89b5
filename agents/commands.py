"""Subcommands of splitpoker.agents: ``solve`` (the exhaustive solver on one hand)."""

from __future__ import annotations

import argparse
import time
from typing import Any

from ..envs.commands import HAND_SIZES_TEXT, add_game_argument, add_rules_options, emit, game_from_args


def _solve(args: argparse.Namespace) -> None:
    from ..envs.cards import format_cards, parse_cards
    from .solver import SolverAgent

    game = game_from_args(args)
    if args.top < 1:
        raise ValueError(f"--top {args.top} must be at least 1")
    if args.seed < 0:
        raise ValueError(f"--seed {args.seed} must be an integer of at least 0")
    hand = parse_cards(args.cards)
    agent = SolverAgent(game, num_players=args.players, samples=args.samples, opponent=args.opponent,
                        seed=args.seed, splits=args.splits)
    start = time.perf_counter()
    result = agent.solve(hand, args.seed, seat=args.seat)
    elapsed = (time.perf_counter() - start) * 1e3

    def rows(index: int) -> list[str]:
        return [format_cards(r) for r in game.arrangement(result.hand, index)]

    best = result.ranking(args.top)
    document: dict[str, Any] = {
        "action": result.action,
        "arrangement": rows(result.action),
        "ev": result.ev,
        "top": [{"action": i, "arrangement": rows(i), "ev": ev} for i, ev in best],
        "elapsed_ms": round(elapsed, 3),
        "game": game.name, "players": result.num_players, "seat": result.seat, "samples": result.samples,
        "opponent": agent.opponent, "seed": args.seed, "measured": result.measured,
        "measured_splits": len(result.valid), "valid_splits": int(game.valid_mask(result.hand).sum()),
    }
    if args.json:
        emit(args, document, "")
        return
    _print_table(game, result, best, agent, elapsed, document["valid_splits"])


def _print_table(game: Any, result: Any, best: list[tuple[int, float]], agent: Any, elapsed: float,
                 valid: int) -> None:
    from rich.console import Console
    from rich.table import Table

    from ..envs.cards import format_cards

    title = (f"{game.name}: {format_cards(result.hand)}  (seat {result.seat} of {result.num_players}, "
             f"{result.samples} samples, opponents {agent.opponent})")
    measured = (f"{len(result.valid)} candidates of {valid} valid splits (the dominated ones not measured)"
                if result.measured == "candidates" else f"{valid} valid splits")
    table = Table(title=title, caption=f"{measured}, {elapsed:.1f} ms")
    table.add_column("#", justify="right")
    table.add_column("split", justify="right")
    for name in game.row_names:
        table.add_column(name)
    table.add_column("EV", justify="right")
    for rank, (index, ev) in enumerate(best, start=1):
        rows = game.arrangement(result.hand, index)
        cells = [f"{format_cards(r)}\n[dim]{t}[/dim]" for r, t in zip(rows, game.describe_rows(rows))]
        table.add_row(str(rank), str(index), *cells, f"{ev:+.3f}")
    Console().print(table)


def register(sub: argparse._SubParsersAction) -> None:
    """Add this package's subcommands."""
    from .solver import DEFAULT_SPLITS, SPLITS
    p = sub.add_parser("solve", help="the solver's best splits of a hand",
                       description="Expected payoff of the candidates of a hand (the valid splits no other "
                       "split dominates, among which the best always is), or of every valid split, against "
                       "sampled opponent hands arranged by an opponent model, and the best splits. Rows are "
                       "printed weakest first.")
    add_game_argument(p)
    p.add_argument("cards", help=f'the hand, e.g. "As Kd ..." ({HAND_SIZES_TEXT})')
    p.add_argument("--players", type=int, default=4, help="players at the table (default 4)")
    p.add_argument("--seat", type=int, default=0, help="this hand's seat (default 0; matters for banker scoring)")
    p.add_argument("--samples", type=int, default=256, help="sampled opponent deals (default 256)")
    p.add_argument("--opponent", default="greedy", metavar="SPEC",
                   help="agent spec of the opponents (default greedy; e.g. random, solver, checkpoint:PATH)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampled deals (default 0)")
    p.add_argument("--top", type=int, default=5, help="how many of the best splits to list (default 5)")
    p.add_argument("--splits", choices=SPLITS, default=DEFAULT_SPLITS,
                   help="the splits measured: the candidates (default) or every valid split")
    add_rules_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=_solve)
