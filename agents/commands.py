"""Subcommands of splitpoker.agents: ``solve`` (the exhaustive solver on one hand) and
``export`` (a model trained elsewhere saved as a policy file)."""

from __future__ import annotations

import argparse
import time
from typing import Any

from ..envs.commands import HAND_SIZES_TEXT, add_game_argument, add_rules_options, emit, game_from_args
from ..runtime.arguments import check_whole, whole_number


def _solve(args: argparse.Namespace) -> None:
    from ..envs.cards import format_cards, parse_cards
    from .solver import SolverAgent

    game = game_from_args(args)
    if args.top < 1:
        raise ValueError(f"--top {args.top} must be at least 1")
    check_whole(args.seed, "--seed", least=0)
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
    p.add_argument("--players", type=whole_number, default=4, help="players at the table (default 4)")
    p.add_argument("--seat", type=whole_number, default=0,
                   help="this hand's seat (default 0; matters for banker scoring)")
    p.add_argument("--samples", type=whole_number, default=256, help="sampled opponent deals (default 256)")
    p.add_argument("--opponent", default="greedy", metavar="SPEC",
                   help="agent spec of the opponents (default greedy; e.g. random, solver, checkpoint:PATH)")
    p.add_argument("--seed", type=whole_number, default=0, help="seed of the sampled deals (default 0)")
    p.add_argument("--top", type=whole_number, default=5, help="how many of the best splits to list (default 5)")
    p.add_argument("--splits", choices=SPLITS, default=DEFAULT_SPLITS,
                   help="the splits measured: the candidates (default) or every valid split")
    add_rules_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=_solve)

    p = sub.add_parser("export", help="save a model trained elsewhere as a policy file (checkpoint:PATH)",
                       description="Save the policy of a Stable-Baselines3 PPO or MaskablePPO model (the .zip its "
                       "save() wrote, an MlpPolicy over the flat observation, the split scorer, or an "
                       "OfferedSplitsPolicy over the offered splits) as a splitpoker "
                       "policy file for the table it was trained for, which checkpoint:PATH plays. The model file is "
                       "read as tensors and JSON only (nothing in it is unpickled); the policy file is written whole "
                       "and read back with the checks of every policy file. From Python: "
                       "splitpoker.agents.export_policy, which also takes a model in memory or an nn.Sequential.")
    add_game_argument(p)
    p.add_argument("model", help="the model's .zip (as model.save(path) writes it)")
    p.add_argument("--players", type=whole_number, default=4, help="players at the table it was trained for "
                   "(default 4)")
    add_rules_options(p)
    p.add_argument("--offer", type=whole_number, default=None, metavar="K",
                   help="the number of offered splits an OfferedSplitsPolicy model decides over (default: what its "
                   ".zip records; refused for a model over split indices)")
    p.add_argument("--out", required=True, help="the policy file to write (a .zip)")
    p.add_argument("--force", action="store_true", help="replace the file --out names")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=_export)


def _export(args: argparse.Namespace) -> None:
    from pathlib import Path

    from ..envs.switches import parse_assignments
    from ..runtime.files import output_path
    from .loading import training_extra

    switches = parse_assignments(args.switches)
    game_from_args(args)  # the game, preset and switches, checked before the model is read
    out, model = output_path(args.out, "--out"), Path(args.model).expanduser()
    if out.is_dir():
        raise ValueError(f"--out {args.out!r} is a folder; name the policy file to write (a .zip)")
    if out.exists() and model.exists() and out.resolve() == model.resolve():
        raise ValueError(f"--out {args.out!r} is the model itself; write the policy file elsewhere")
    if (out.exists() or out.is_symlink()) and not args.force:
        raise ValueError(f"--out {args.out!r} exists; give --force to replace it, or name another file")
    with training_extra("splitpoker export"):
        from .learned.checkpoint import read_meta
        from .learned.export import export_policy
    path = export_policy(model, out, args.game, args.players, args.preset, offer=args.offer, **switches)
    meta = read_meta(path)
    document = {"path": str(path), "spec": f"checkpoint:{path}", "game": meta["game"],
                "num_players": meta["num_players"], "preset": meta.get("preset"), "rules": meta["rules"],
                "policy": meta["policy"], "step": meta["step"], "offer": meta.get("offer")}
    over = f" over {meta['offer']} offered splits" if meta.get("offer") else ""
    emit(args, document, f"{path}: a policy of kind {meta['policy']['kind']}{over} for {meta['game']} at "
                         f"{meta['num_players']} players ({args.preset} rules), step {meta['step']:,}; "
                         f"play it as checkpoint:{path}")
