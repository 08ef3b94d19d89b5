"""The ``splitpoker`` console script: a thin dispatcher over the subcommands.

Each subcommand is declared beside what it serves (``envs/commands.py``,
``agents/commands.py``, ``eval/commands.py``, ``train/commands.py``); those modules import
only argparse at load time and import their heavy code when the subcommand runs, so
``splitpoker compare`` starts fast. A ``ValueError`` or ``OSError`` raised by a subcommand
becomes one line on stderr and exit status 2; a warning is one line on stderr; Ctrl-C is
exit status 130; any other exception (a bug) is one line and exit status 1, with the
traceback when ``SPLITPOKER_DEBUG`` is set to anything but ``0``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from ..runtime.registry import Registry

#: the subcommands of each layer, in the order ``--help`` lists them: the ``register(subparsers)``
#: function of the layer's ``commands`` module
COMMAND_GROUPS: Registry[Callable[[Any], None]] = Registry("command group")
COMMAND_GROUPS.register("envs", "splitpoker.envs.commands:register")
COMMAND_GROUPS.register("agents", "splitpoker.agents.commands:register")
COMMAND_GROUPS.register("eval", "splitpoker.eval.commands:register")
COMMAND_GROUPS.register("train", "splitpoker.train.commands:register")
COMMAND_GROUPS.register("play", "splitpoker.play.commands:register")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse's own errors: one line, status 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def handled() -> Any:
    from ..runtime.interrupts import handled

    return handled()


def _version() -> str:
    from ..agents.version import version  # the version that checkpoints and run folders record

    found = version()
    return found if found != "unknown" else "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="splitpoker", description="Environments, solvers, self-play training and evaluation "
                     "for the arrangement card games Thirteen (十三张) and Biji (比机).")
    parser.add_argument("--version", action="version", version=f"splitpoker {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for register in COMMAND_GROUPS.values():
        register(sub)
    return parser


def _one_line(error: BaseException) -> str:
    """The first line of an error's message (an OSError as its reason and file)."""
    if isinstance(error, OSError) and error.strerror:
        where = f": {error.filename}" if error.filename else ""
        return f"{error.strerror}{where}"
    text = str(error)
    return text.splitlines()[0] if text.strip() else type(error).__name__


@contextlib.contextmanager
def _warnings_as_lines(prefix: str) -> Iterator[None]:
    """Warnings raised while a subcommand runs are printed as one line each on stderr, once."""
    shown = warnings.showwarning
    seen: set[str] = set()

    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        text = f"{prefix}: warning: {_one_line(message) if isinstance(message, Warning) else message}"
        if text not in seen:  # once per run, however often the code path is taken
            seen.add(text)
            print(text, file=sys.stderr, flush=True)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    prefix = f"splitpoker {args.command}"
    if sys.stdout is None:  # started with standard output closed: what it prints would be lost
        print(f"{prefix}: error: standard output is closed; nothing it prints could be read", file=sys.stderr)
        return 2
    try:
        with _warnings_as_lines(prefix), handled():  # SIGTERM is handled like Ctrl-C
            result = args.run(args)
    except BrokenPipeError:  # the reader went away (| head): stop as a pipeline's writer does, silently
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 128 + signal.SIGPIPE
    except (ValueError, OSError) as error:  # OSError: a file or folder that cannot be read or written
        print(f"{prefix}: error: {_one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM where a subcommand handles it (runtime.interrupts)
        signum = int(getattr(stop, "signum", signal.SIGINT))
        name = "" if signum == signal.SIGINT else f" ({signal.Signals(signum).name})"
        print(f"{prefix}: interrupted{name}", file=sys.stderr)
        return 128 + signum
    except Exception as error:  # a bug: still one line, with the traceback on request
        if os.environ.get("SPLITPOKER_DEBUG", "") not in ("", "0"):
            raise
        print(f"{prefix}: internal error: {type(error).__name__}: {_one_line(error)} "
              "(set SPLITPOKER_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
