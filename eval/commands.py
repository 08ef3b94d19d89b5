"""Subcommands of evaluation: ``eval`` (duplicate matches with solver regret), ``exploit``
(best-response gain) and ``benchmark`` (a versioned evaluation protocol)."""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
from pathlib import Path
from typing import Any

from ..envs.commands import GAME_CHOICES, GAMES_TEXT
from ..runtime.arguments import decimal_number as decimal_number  # re-exported: the argparse number types
from ..runtime.arguments import whole_number

_OPTION = re.compile(r"^[A-Za-z_]\w*=")


def split_agent_specs(text: str) -> list[str]:
    """``"checkpoint:a.zip,solver:samples=256,opponent=greedy,greedy"`` → three specs: a piece
    that reads ``key=value`` continues the options of the spec before it, and a comma inside
    parentheses separates nothing (``"(checkpoint:runs/a,b/x.zip),greedy"``: two specs, the
    first unwrapped). ValueError for an empty spec (two commas in a row, or one at either end)."""
    from ..agents.specs import split_outside_parentheses

    specs: list[str] = []
    for piece in split_outside_parentheses(text, ",", text):
        if not piece:
            raise ValueError(f"agent specs {text!r} hold an empty spec; separate specs with one comma")
        if _OPTION.match(piece) and specs and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


_FLAGS = ("agents", "hands", "players", "preset", "seed", "workers", "backend", "address", "out", "regret_samples",
          "regret_opponent", "mask")


def _settings(args: argparse.Namespace) -> Any:
    from ..envs.switches import parse_assignments
    from .runner import EvalSettings

    values: dict[str, Any] = {}
    if args.config:
        from ..runtime.settings import read_mapping

        loaded = read_mapping(args.config, what="eval config")
        known = {f for f in EvalSettings.__dataclass_fields__}
        unknown = sorted(set(loaded) - known)
        if unknown:
            raise ValueError(f"unknown key {unknown[0]!r} in {args.config}; keys: {', '.join(sorted(known))}")
        values.update(loaded)
        if isinstance(values.get("agents"), str):
            values["agents"] = split_agent_specs(values["agents"])
        if not isinstance(values.get("agents", []), list):
            raise ValueError(f"agents in {args.config} must be a list of specs or one string, "
                             f"got {values['agents']!r}")
        if not isinstance(values.get("switches", {}), dict):
            raise ValueError(f"switches in {args.config} must be a mapping of switch: value, "
                             f"got {values['switches']!r}")
    if args.game:
        values["game"] = args.game
    if "game" not in values:
        if args.config:
            raise ValueError(f"{args.config} names no game; give game: {GAMES_TEXT} there, or the game here")
        raise ValueError(f"give the game ({GAMES_TEXT}) or --config FILE")
    for name in _FLAGS:
        value = getattr(args, name)
        if value is not None:
            values[name] = split_agent_specs(value) if name == "agents" else value
    if args.switches:
        values["switches"] = {**values.get("switches", {}), **parse_assignments(args.switches)}
    if args.no_regret:
        values["regret"] = False
    if "agents" not in values:
        raise ValueError("give the agents with --agents A,B,... (load_agent specs)")
    try:
        return EvalSettings(**values)
    except TypeError as error:
        raise ValueError(str(error)) from None


def _eval(args: argparse.Namespace) -> int:
    from ..runtime.files import check_writable_folder, claimed_output, output_path
    from .report import DecisionsTable, report_files, results_table, warmup_line, write_report
    from .runner import default_out, run

    settings = _settings(args)
    out = output_path(settings.out, "--out") if settings.out is not None else default_out(settings)
    check_writable_folder(out, "--out")
    # the folder is held for the whole command, and an earlier report is written over only with --force
    with claimed_output(out, report_files(plots=not args.no_plots, regret=settings.regret), force=args.force):
        table = DecisionsTable()  # decisions.csv is formatted as the deals are played
        summary, decisions = run(settings, progress=not args.json, sink=table)
        if summary.partial:  # on stderr: stdout keeps the report (and --json its one document)
            print(f"splitpoker eval: interrupted ({summary.interrupted_by}) after {summary.hands} of "
                  f"{summary.hands_planned} deals; writing the partial report to {out}", file=sys.stderr,
                  flush=True)
        write_report(summary, decisions, out, plots=not args.no_plots, table=table)
    status = _status(summary.partial, summary.interrupted_by)
    if args.json:
        print(json.dumps(summary.to_dict(), ensure_ascii=False))
        return status
    partial = (f"PARTIAL: interrupted ({summary.interrupted_by}) after {summary.hands} of "
               f"{summary.hands_planned} deals; the figures cover those deals only") if summary.partial else ""
    if partial:
        print(partial)
    print(results_table(summary.agents))
    if summary.regret_model:
        print(f"regret relative to {summary.regret_model}")
    if warmup_line(summary.agents):
        print(warmup_line(summary.agents))
    print(f"report: {out}/summary.md" + (" (PARTIAL)" if partial else ""))
    if partial:
        print(partial)
    return status


def _status(partial: bool, interrupted_by: str | None) -> int:
    """The exit status of a report: 0, or that of the signal that interrupted it."""
    if not partial:
        return 0
    from ..runtime.interrupts import exit_status

    return exit_status(signal.Signals[str(interrupted_by)])


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help="duplicate-deal evaluation of agents, with solver regret",
                       description="Play agents against each other on duplicate deals (every deal replayed with "
                       "the agents rotated through the seats) and report mean payoff with a 95% CI, solver regret "
                       "and agreement, foul, special and 喜 rates and decision time.")
    p.add_argument("game", nargs="?", choices=GAME_CHOICES, help="the game (or give --config)")
    p.add_argument("--config", metavar="FILE", help="YAML file with the settings (flags override it)")
    p.add_argument("--agents", metavar="A,B,...", help="agent specs, e.g. checkpoint:runs/x/final.zip,"
                   "solver:samples=256,greedy (random, greedy, solver[:opts], checkpoint:PATH, pretrained:NAME, "
                   "package.module:attr)")
    p.add_argument("--hands", type=whole_number, help="number of deals (default 200); each is played in every rotation")
    p.add_argument("--players", type=whole_number, help="players at the table (default 4)")
    p.add_argument("--preset", help="rules preset (default classic)")
    p.add_argument("--set", dest="switches", action="append", default=[], metavar="SWITCH=VALUE",
                   help="override one rule switch (repeatable)")
    p.add_argument("--seed", type=whole_number, help="seed of deals, agents and regret samples (default 0)")
    p.add_argument("--workers", type=whole_number, help="worker processes or Ray tasks in flight (default 1)")
    p.add_argument("--backend", choices=("local", "ray"), help="local processes (default) or Ray tasks")
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray instance)")
    p.add_argument("--out", help="report folder, one that holds no report yet (default "
                   "runs/eval/<game>__<players>p__<seed>__<time>); one eval writes it at a time")
    p.add_argument("--force", action="store_true", help="replace the report files (summary.json, summary.md, "
                   "decisions.csv, the plots) that --out already holds")
    p.add_argument("--regret-samples", dest="regret_samples", type=whole_number,
                   help="samples of the regret solver (default 64)")
    p.add_argument("--regret-opponent", dest="regret_opponent", metavar="SPEC",
                   help="opponent model of the regret solver (default greedy)")
    p.add_argument("--no-regret", action="store_true", help="skip solver regret")
    p.add_argument("--mask", choices=("valid", "undominated"),
                   help="the agents' action masks: every valid split (default), or the candidates, the valid "
                        "splits no other split dominates")
    p.add_argument("--no-plots", action="store_true", help="do not draw PNG plots")
    p.add_argument("--json", action="store_true", help="print summary.json")
    p.set_defaults(run=_eval)
    register_exploit(sub)
    register_benchmark(sub)
    register_convergence(sub)


def _exploit(args: argparse.Namespace) -> int:
    from ..envs.switches import parse_assignments
    from .exploit import best_response_gain
    from .stats import ci_text

    result = best_response_gain(args.game, args.agent, samples=args.samples, hands=args.hands, players=args.players,
                                preset=args.preset, switches=parse_assignments(args.switches), seed=args.seed,
                                workers=args.workers, backend=args.backend, address=args.address,
                                progress=not args.json, estimator="paired" if args.paired else "play")
    status = _status(result.partial, result.interrupted_by)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
        return status
    interval = ci_text(result.ci95)  # a few deals that all scored alike give no interval: said so
    deals = f"{result.hands} {'deals, paired' if args.paired else 'duplicate deals'}"
    shown = f"95% CI {interval} over {deals}" if interval.startswith("[") else f"over {deals}, {interval}"
    print(f"best-response gain of {result.agent} ({result.game}, {result.players} players, {result.preset}): "
          f"{result.gain:+.3f} per hand, {shown}; best response {result.best_response}")
    if result.partial:
        print(f"PARTIAL: interrupted ({result.interrupted_by}) after {result.hands} deals")
    return status


def register_exploit(sub: argparse._SubParsersAction) -> None:
    from .exploit import DEFAULT_SAMPLES

    p = sub.add_parser("exploit", help="best-response gain of an agent: what a best response wins against it",
                       description="The best-response gain of an agent: the exhaustive solver with the agent as its "
                       "opponent model (solver:samples=K,opponent=AGENT) in one seat, copies of the agent in the "
                       "others, on duplicate deals; its mean payoff per hand with a 95% CI over deals. A lower bound "
                       "on the agent's exploitability: the sampled best response is itself imperfect, and the bound "
                       "tightens as --samples grows.")
    p.add_argument("game", choices=GAME_CHOICES, help="the game")
    p.add_argument("--agent", required=True, metavar="SPEC", help="the agent, any agent spec (greedy, heuristic, "
                   "solver:samples=16, checkpoint:PATH, pretrained:NAME, mixture:SPEC;SPEC, package.module:attr, ...)")
    p.add_argument("--samples", type=whole_number, default=DEFAULT_SAMPLES,
                   help=f"opponent deals per decision of the best response (default {DEFAULT_SAMPLES})")
    p.add_argument("--hands", type=whole_number, default=200, help="duplicate deals (default 200)")
    p.add_argument("--players", type=whole_number, default=4, help="players at the table (default 4)")
    p.add_argument("--preset", default="classic", help="rules preset (default classic)")
    p.add_argument("--set", dest="switches", action="append", default=[], metavar="SWITCH=VALUE",
                   help="override one rule switch (repeatable)")
    p.add_argument("--seed", type=whole_number, default=0, help="seed of deals and of the solver (default 0)")
    p.add_argument("--workers", type=whole_number, default=1,
                   help="worker processes or Ray tasks in flight (default 1)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local processes (default) or Ray tasks")
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray instance)")
    p.add_argument("--paired", action="store_true",
                   help="measure each hand's gain by two solves on independent samples (one picks the best "
                   "response's split, the other measures it against the agent's own) instead of playing the deal: "
                   "the same figure with a several times narrower interval, at twice the solves a hand")
    p.add_argument("--json", action="store_true", help="print the result as one JSON document")
    p.set_defaults(run=_exploit)


def _convergence(args: argparse.Namespace) -> int:
    from ..runtime.limits import check_workers
    from .convergence import measure, parse_run, plot

    check_workers(args.workers)  # before any folder is read or made
    runs = [parse_run(text) for text in args.runs]
    out = _check_convergence_out(args.out, runs, args.force)
    points, stopped = measure(runs, samples=args.samples, hands=args.hands, points=args.points, seed=args.seed,
                              workers=args.workers, emit=(lambda line: None) if args.json else print,
                              progress=not args.json, estimator="paired" if args.paired else "play")
    figure = None
    if points:
        first = points[0]
        from ..agents.learned.checkpoint import read_meta

        meta = read_meta(first.checkpoint)
        title = (f"{meta['game']}, {meta['num_players']} players, {meta.get('preset', 'classic')}\nbest response "
                 f"solver:samples={args.samples} on {first.hands} "
                 f"{'deals, paired' if args.paired else 'duplicate deals'} (seed {args.seed})")
        figure = plot(points, out, title)
    if args.json:
        print(json.dumps({"figure": None if figure is None else str(figure), "samples": args.samples,
                          "seed": args.seed, "points": [p.to_dict() for p in points], "partial": stopped is not None,
                          "interrupted_by": stopped}, ensure_ascii=False))
    else:
        for p in points:
            print(f"{p.label:<24} step {p.step:>9,}  {p.cpu_seconds / 60:7.1f} CPU min  gain {p.gain:+.3f} "
                  f"[{p.ci95[0]:+.3f}, {p.ci95[1]:+.3f}]")
        if figure is not None:
            print(f"figure: {figure}")
        if stopped is not None:
            print(f"PARTIAL: interrupted ({stopped}); what was measured is kept: run the command again to continue")
    return _status(stopped is not None, stopped)


def _check_convergence_out(text: str, runs: list[Any], force: bool) -> Path:
    """The figure's path (``~`` expanded), checked before anything is measured: its folder can
    be written, it is no folder and no link, and an existing file is replaced only with
    ``force``; and each run's ``eval/br_gain/``, where the measurements are kept, can be
    written and holds no link. ValueError naming the path otherwise."""
    from ..runtime.files import check_owned_tree, check_writable_folder, output_path

    out = output_path(text, "--out")
    if out.is_symlink():
        raise ValueError(f"--out {text!r} is a symbolic link; splitpoker writes no file through a link: "
                         "give another file name")
    if out.is_dir():
        raise ValueError(f"--out {text!r} is a folder; give the PNG file to write")
    if out.exists() and not force:
        raise ValueError(f"--out {text!r} already exists; give another file name, or --force to replace it")
    check_writable_folder(out.parent, "--out's folder")
    for run in runs:
        for folder in (run.path / "eval", run.path / "eval" / "br_gain"):
            if folder.is_symlink():
                raise ValueError(f"{folder} is a symbolic link; a run folder holds only files and folders "
                                 "splitpoker made: remove the link (or put what it points to in its place)")
        if (run.path / "eval" / "br_gain").is_dir():
            check_owned_tree(run.path / "eval" / "br_gain", "run folder")
        try:
            check_writable_folder(run.path / "eval" / "br_gain", "the measurements' folder")
        except ValueError as error:
            raise ValueError(f"{run.path}: {error}; convergence keeps each measurement there: make it "
                             "writable, or measure a copy of the run") from None
    return out


def register_convergence(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("convergence", help="best-response gain of training runs' checkpoints against CPU time",
                       description="Measure the best-response gain (as splitpoker exploit does) of checkpoints of "
                       "training runs, on the same duplicate deals, and plot it against the CPU seconds each run had "
                       "spent to reach them: methods compared at equal compute. Measurements are kept in each run's "
                       "eval/br_gain/, so the command run again measures only what is new.")
    p.add_argument("runs", nargs="+", metavar="[LABEL=]RUN_DIR",
                   help="training run folders (of one game, table size and rules), each optionally labelled")
    p.add_argument("--out", required=True, help="the PNG to write (a file that does not exist yet, unless --force)")
    p.add_argument("--force", action="store_true", help="replace the file --out names where it exists")
    p.add_argument("--samples", type=whole_number, default=256, help="opponent deals per decision of the best response "
                   "(default 256)")
    p.add_argument("--hands", type=whole_number, default=200, help="duplicate deals per checkpoint (default 200)")
    p.add_argument("--points", type=whole_number, default=5, help="checkpoints per run, evenly spread, the first and "
                   "last among them (default 5)")
    p.add_argument("--seed", type=whole_number, default=0,
                   help="seed of the deals and of the best response (default 0)")
    p.add_argument("--workers", type=whole_number, default=1, help="worker processes (default 1)")
    p.add_argument("--paired", action="store_true", help="measure by paired solves, as splitpoker exploit --paired")
    p.add_argument("--json", action="store_true", help="print the points as one JSON document")
    p.set_defaults(run=_convergence)


def _benchmark(args: argparse.Namespace) -> int:
    from ..runtime.files import check_writable_folder, claimed_output, output_path
    from .benchmark import REPORT_FILES, default_out, plan, run_benchmark, write_benchmark
    from .leaderboard import text_summary

    chosen = plan(args.protocol, quick=args.quick, tracks=split_names(args.tracks, "--tracks"),
                  agents=split_agent_specs(args.agents) if args.agents is not None else (), workers=args.workers)
    out = output_path(args.out, "--out") if args.out is not None else default_out(chosen)
    check_writable_folder(out, "--out")
    def done(name: str, track: dict[str, Any]) -> None:  # a line per track in a log, where no bar is drawn
        if not sys.stderr.isatty():
            print(f"splitpoker benchmark: {name} done in {track['elapsed_s']:.0f} s", file=sys.stderr, flush=True)

    # the folder is held for the whole command, and an earlier benchmark is written over only with --force
    with claimed_output(out, REPORT_FILES, force=args.force, holds="a benchmark"):
        for track, spec, why in chosen.skipped:
            print(f"splitpoker benchmark: {spec} left out of {track}: {why}", file=sys.stderr, flush=True)
        report = run_benchmark(chosen, progress=not args.json, out=args.out, on_track=done)
        if report["partial"]:
            print(f"splitpoker benchmark: interrupted ({report['interrupted_by']}); writing the partial report to "
                  f"{out}", file=sys.stderr, flush=True)
        write_benchmark(report, out)
    status = _status(report["partial"], report["interrupted_by"])
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
        return status
    print(text_summary(report), end="")
    note = " (PARTIAL)" if report["partial"] else ""
    print(f"report: {out}/leaderboard.md and {out}/benchmark.json{note}")
    if report["partial"]:
        print(f"PARTIAL: interrupted ({report['interrupted_by']}); the report covers what was played before it")
    return status


def split_names(text: str | None, option: str) -> list[str] | None:
    """``"a,b"`` → ``["a", "b"]`` (None for None); ValueError for an empty name."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise ValueError(f"{option} {text!r} holds an empty name; separate names with one comma")
    return names


def register_benchmark(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "benchmark", help="a versioned evaluation protocol: head-to-head matrix, best-response gain, decision time",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a fixed, named evaluation protocol and write benchmark.json and leaderboard.md.\n\n"
        "Protocol v1 has four tracks, one per shipped policy: biji_classic_4p, thirteen_classic_4p,\n"
        "thirteen_western_2p and thirteen_shisanshui_4p (the game, rules preset and table size the\n"
        "policy was trained for); v2 adds thirteen_shisanshui_3p. On each track the agents are\n"
        "random, greedy, heuristic, solver:samples=256,opponent=greedy and the track's pretrained\n"
        "policy, plus any --agents that can play it. It measures, with fixed seeds and deal counts:\n"
        "  * the head-to-head matrix: for each pair of agents a duplicate match (seated alternately,\n"
        "    every deal replayed in every seat rotation; at three seats in both lineups, A B A and\n"
        "    B A B), the row agent's mean payoff per hand against the column agent with a 95% CI,\n"
        "    and each agent's mean against the field;\n"
        "  * the best-response gain of each agent: the solver at 256 samples answering it (not\n"
        "    measured for the solver itself: too costly);\n"
        "  * the decision time: CPU milliseconds per decision, median over repeated runs.\n"
        "--quick plays few deals (a check that it runs, not figures to cite). Cite a figure as\n"
        "the protocol (v1, v2) with the splitpoker version; the report names both, the commit and the\n"
        "machine.")
    p.add_argument("--protocol", required=True, metavar="NAME", help="the protocol (v1, v2)")
    p.add_argument("--quick", action="store_true", help="the protocol's quick size: few deals, for CI")
    p.add_argument("--tracks", metavar="NAME,...", help="only these tracks (default: every track of the protocol)")
    p.add_argument("--agents", metavar="SPEC,...", help="extra agents, added to every track they can play "
                   "(a policy only to the game, table size and rules it was trained for)")
    p.add_argument("--workers", type=whole_number, default=1, help="worker processes per match (default 1); the "
                   "figures do not depend on it")
    p.add_argument("--out", help="report folder, one that holds no benchmark yet (default "
                   "runs/benchmark/<protocol>__<time>); one benchmark writes it at a time")
    p.add_argument("--force", action="store_true", help="replace the benchmark.json and leaderboard.md that --out "
                   "already holds")
    p.add_argument("--json", action="store_true", help="print benchmark.json as one line (no progress bars)")
    p.set_defaults(run=_benchmark)
