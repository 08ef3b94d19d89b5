"""Subcommands of splitpoker.train: ``train``, and ``bench`` (whose figures include training's).

Training and the training figures need the ``[train]`` extra (torch, Stable-Baselines3):
without it ``train`` is one line naming the extra, and ``bench`` skips the training figures
with a one-line warning (an ``--only`` prefix that names one of them is one line naming it).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

#: the training figures of ``splitpoker bench``, by the end of their names (``<game>.policy_ms``, ...)
TRAINING_FIGURES = ("policy_ms", "policy_per_greedy", "policy_candidates_per_greedy", "train_hands_per_s")


def _train(args: argparse.Namespace) -> int:
    from ..agents.loading import training_extra

    with training_extra("training"):
        return _train_run(args)


def _train_run(args: argparse.Namespace) -> int:
    from .launch import command_line, resume_run, train

    if (args.config is None) == (args.resume is None):
        raise ValueError("give a config file or --resume RUN_DIR (not both)")
    command = command_line()

    def emit(line: str) -> None:
        print(line, file=sys.stderr if args.json else sys.stdout, flush=True)

    if args.resume is not None:
        result = resume_run(args.resume, args.overrides, command, emit=emit)
    else:
        result = train(args.config, args.overrides, command=command, emit=emit)
    status = 0
    if result.interrupted:
        import signal

        status = 128 + int(signal.Signals[result.signal or "SIGINT"])  # 130 for Ctrl-C, 143 for SIGTERM
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
        return status
    if result.interrupted:
        return status
    from .evaluation import br_line, eval_table

    print()
    print(f"final policy after {result.steps} hands ({result.hands_per_s:.1f} hands/s in the last rollout or round):")
    print(eval_table(result.results))
    if result.best_response is not None:
        print(br_line(result.best_response))
    print()
    print(f"checkpoint:  {result.checkpoint}")
    print(f"report:      {result.report}")
    print(f"TensorBoard: tensorboard --logdir {result.run_dir}")
    return 0


def _bench(args: argparse.Namespace) -> None:
    from ..agents.loading import TRAIN_INSTALL, MissingExtra, training_extra
    from ..envs.games import GAMES
    from ..eval.speed import print_table, run_bench

    try:
        with training_extra("the training figures"):
            from .speed import training_figures
    except MissingExtra as error:  # the figures that need no torch, and one line saying so
        figures = f"the training figures ({', '.join(f'<game>.{name}' for name in TRAINING_FIGURES)})"
        why = f"need the training extra: {TRAIN_INSTALL} ({error.package} is not installed)"
        missing = f"{figures} {why}"
        report = run_bench(quick=args.quick, only=args.only, progress=not args.json, missing=missing)
        prefixes = tuple(p.strip() for p in args.only.split(",")) if args.only is not None else ("",)
        if any(f"{game}.{name}".startswith(prefixes) for game in GAMES for name in TRAINING_FIGURES):
            warnings.warn(f"skipped {figures}: they {why}", stacklevel=1)  # only where --only would have taken one
    else:
        report = run_bench(quick=args.quick, only=args.only, progress=not args.json,
                           extra=training_figures(args.quick))
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print_table(report)


def register(sub: argparse._SubParsersAction) -> None:
    """Add this package's subcommands."""
    p: Any = sub.add_parser(
        "train", help="train a policy by self-play from a YAML config",
        description="Train a policy from a YAML config (see configs/): by self-play with MaskablePPO "
        "(algorithm: ppo, the default) or by fictitious play, distilling the solver's best responses to the "
        "policy's past play (algorithm: fictitious_play). "
        "Writes runs/<game>__<config>__<seed>__<timestamp>/ with config.yaml, command.txt, splitpoker.json (the "
        "version and commit that started and resumed the run), TensorBoard "
        "events, checkpoints/ and eval/, and ends with a duplicate evaluation against the config's opponents. "
        "Ctrl-C or SIGTERM saves a checkpoint (exit status 130 or 143); --resume RUN_DIR continues it, or "
        "finishes the final evaluation of a run stopped during it.")
    p.add_argument("config", nargs="?", help="the YAML config file (e.g. configs/quickstart.yaml) or the name of "
                   "a config shipped with the package (e.g. quickstart; an existing file of that name wins)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY.SUB=VALUE",
                   help="override a config key (repeatable; the value is read as YAML), e.g. --set ppo.n_steps=128; "
                   "in a list a part is a position, from 0: --set fictitious_play.phases.1.rounds=32")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its latest checkpoint")
    p.add_argument("--json", action="store_true", help="print one JSON document with the run's result on stdout")
    p.set_defaults(run=_train)

    p = sub.add_parser("bench", help="speed figures of engines, envs, agents, policies and training",
                       description="Speed figures, each the median, min and max over repeated runs: on one core "
                       "with one torch thread, except training's hands per second, which uses the processes and "
                       "threads of the game's full training config. Compare ratios within one run: absolute "
                       "times vary between runs and machines.")
    p.add_argument("--quick", action="store_true", help="fewer repeats and shorter runs: a few minutes")
    p.add_argument("--only", metavar="PREFIX[,PREFIX...]",
                   help="only figures whose name starts with one of the prefixes (e.g. biji. or "
                   "thirteen.env,thirteen.train)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(run=_bench)
