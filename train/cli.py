"""The ``splitpoker`` console script: a thin dispatcher over the subcommands.

Each subcommand is declared beside what it serves (``envs/commands.py``,
``agents/commands.py``, ``eval/commands.py``, ``train/commands.py``); those modules import
only argparse at load time and import their heavy code when the subcommand runs, so
``splitpoker compare`` starts fast. A ``ValueError`` raised by a subcommand becomes one line
on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMAND_MODULES = ("splitpoker.envs.commands", "splitpoker.agents.commands", "splitpoker.eval.commands",
                   "splitpoker.train.commands", "splitpoker.play.commands")


class CommandError(ValueError):
    """A usage error found while running a subcommand."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: one line, status 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="splitpoker", description="Environments, solvers, self-play training and evaluation "
                     "for the arrangement card games Thirteen (十三张) and Biji (比机).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.run(args)
    except (ValueError, FileNotFoundError, FileExistsError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"splitpoker {args.command}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"splitpoker {args.command}: interrupted", file=sys.stderr)
        return 130
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
