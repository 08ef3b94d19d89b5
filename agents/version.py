"""The splitpoker version, and the stamp that files written by splitpoker carry.

:func:`stamp` is ``{"version": "0.1.0", "commit": "1a2b3c4"}``: the installed version, and,
when the running code is a git checkout of the project, the commit it was at (short hash,
``-dirty`` when tracked files have changes). Outside a checkout (an installed wheel), or
without git, there is no ``"commit"``; finding it never fails. Checkpoints
(``splitpoker.json``), run folders and reports record it.

This module imports only the standard library, so any layer can import it without cycles.
"""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

#: the project's root in a checkout: the folder holding ``agents/`` (this file's folder)
_ROOT = Path(__file__).resolve().parents[1]
#: seconds each git command may take before the commit is left out
_GIT_TIMEOUT = 5.0


@cache
def version() -> str:
    """The installed splitpoker version (its package metadata), or ``"unknown"`` when the
    code runs without being installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("splitpoker")
    except PackageNotFoundError:
        return "unknown"


__version__ = version()


def _git(*args: str) -> str | None:
    """The stripped output of ``git -C ROOT args``, or None when git fails or is missing."""
    try:
        done = subprocess.run(["git", "-C", str(_ROOT), *args], capture_output=True, text=True,
                              timeout=_GIT_TIMEOUT, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@cache
def commit() -> str | None:
    """The commit of the checkout the running code comes from (short hash, ``-dirty`` when
    tracked files differ from it), or None: not a checkout of this project (an installed
    package, even one installed into a folder inside some other checkout), git missing,
    or any git error. Found once per process."""
    try:
        top = _git("rev-parse", "--show-toplevel")
        if not top or Path(top).resolve() != _ROOT:  # e.g. site-packages inside a checkout's .venv
            return None
        head = _git("rev-parse", "--short", "HEAD")
        if not head:
            return None
        changes = _git("status", "--porcelain", "--untracked-files=no")
        return head + ("-dirty" if changes else "")
    except Exception:  # never fail a run because of its stamp
        return None


def stamp() -> dict[str, str]:
    """What wrote a file: ``{"version": ...}``, with ``"commit"`` when run from a git
    checkout (see :func:`commit`)."""
    found = commit()
    return {"version": version(), **({"commit": found} if found else {})}
