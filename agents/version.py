"""The splitpoker version, and the stamp that files written by splitpoker carry.

:func:`stamp` is ``{"version": "0.2.0", "commit": "1a2b3c4"}``: the installed version, and
the commit of the code: when the running code is a git checkout of the project, the commit
it is at (short hash, ``-dirty`` when tracked files have changes); in an installed wheel, the
commit the wheel was built from (:data:`BUILD_RECORD`, written by the build). Without either
(a wheel built where git was missing, code run from an exported tree) there is no
``"commit"``; finding it never fails. Checkpoints (``splitpoker.json``), run folders and
reports record it.

Reports (``summary.json``, ``benchmark.json``, ``exploit --json``, the bench JSON) record
more, what a figure needs to be cited: :func:`report_stamp` adds :func:`environment`, the
versions of Python and of the packages the figures depend on (:func:`splitpoker.agents.learned.policy_files.weights`
gives the sha256 of each policy file the agents play).

This module imports only the standard library, so any layer can import it without cycles.
"""

from __future__ import annotations

import json
import platform
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

#: the project's root in a checkout: the folder holding ``agents/`` (this file's folder)
_ROOT = Path(__file__).resolve().parents[1]
#: seconds each git command may take before the commit is left out
_GIT_TIMEOUT = 5.0
#: the file a wheel's build writes beside this module: ``{"commit": "1a2b3c4"}`` (``null``
#: where the build found no git checkout); never present in a checkout
BUILD_RECORD = Path(__file__).resolve().with_name("_build.json")
#: the packages whose versions :func:`environment` records, by the name reports give them
ENVIRONMENT_PACKAGES = {"numpy": "numpy", "numba": "numba", "torch": "torch", "gymnasium": "gymnasium",
                        "pettingzoo": "pettingzoo"}


def _installed_version(distribution: str) -> str | None:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(distribution)
    except (PackageNotFoundError, ValueError):
        return None


@cache
def version() -> str:
    """The installed splitpoker version (its package metadata), or ``"unknown"`` when the
    code runs without being installed."""
    return _installed_version("splitpoker") or "unknown"


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
    """The commit of the code: that of the checkout the running code comes from (short
    hash, ``-dirty`` when tracked files differ from it), else the one an installed wheel
    was built from (:func:`build_commit`), else None (an exported tree, a wheel built
    without git). Found once per process."""
    try:
        return checkout_commit() or build_commit()
    except Exception:  # never fail a run because of its stamp
        return None


def checkout_commit() -> str | None:
    """The commit of the git checkout the running code comes from (short hash, ``-dirty``
    when tracked files differ from it), or None: not a checkout of this project (an
    installed package, even one installed into a folder inside some other checkout), git
    missing, or any git error."""
    top = _git("rev-parse", "--show-toplevel")
    if not top or Path(top).resolve() != _ROOT:  # e.g. site-packages inside a checkout's .venv
        return None
    head = _git("rev-parse", "--short", "HEAD")
    if not head:
        return None
    changes = _git("status", "--porcelain", "--untracked-files=no")
    return head + ("-dirty" if changes else "")


def build_commit(record: Path | None = None) -> str | None:
    """The commit recorded by the build of an installed wheel (:data:`BUILD_RECORD`, or
    ``record``), or None where there is no record, it names none or it cannot be read."""
    try:
        found = json.loads((record or BUILD_RECORD).read_text(encoding="utf-8")).get("commit")
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, str) and found else None


def stamp() -> dict[str, str]:
    """What wrote a file: ``{"version": ...}``, with ``"commit"`` when run from a git
    checkout (see :func:`commit`)."""
    found = commit()
    return {"version": version(), **({"commit": found} if found else {})}


@cache
def environment() -> dict[str, str | None]:
    """The versions of Python and of the packages splitpoker's figures depend on: NumPy,
    numba, torch, gymnasium and PettingZoo (``None`` for one not installed, torch without the
    ``[train]`` extra), read from the installed packages' metadata (nothing is imported)."""
    return {"python": platform.python_version(),
            **{name: _installed_version(distribution) for name, distribution in ENVIRONMENT_PACKAGES.items()}}


def report_stamp() -> dict[str, Any]:
    """What made a report: :func:`stamp` (version, commit) with ``"environment"``
    (:func:`environment`)."""
    return {**stamp(), "environment": dict(environment())}
