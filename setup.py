"""The build's one step beyond pyproject.toml: record the commit a wheel is built from.

Everything else about the package (its metadata, packages and data) is in pyproject.toml;
setuptools runs this file when it builds. ``build_py`` writes ``_build.json`` into the
built ``splitpoker.agents`` package: ``{"commit": "1a2b3c4"}`` (short hash, ``-dirty`` when
tracked files had changes), read by ``splitpoker.agents.version.commit()`` where the code is
no git checkout (an installed wheel). The commit is that of the git checkout being built
(``pip wheel .``, ``pip install .``, ``python -m build --wheel``); a source distribution
carries the record of the checkout it was made from, so a wheel built from it records the
same commit. Where neither is found (no git, a tree that is no checkout of the project) the
record says ``"commit": null`` and the build goes on.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

#: the folder of this file: the root of a checkout or of an unpacked source distribution
ROOT = Path(__file__).resolve().parent
#: where the record goes, relative to the package root of ``splitpoker.agents`` (``agents/``)
RECORD = "_build.json"
#: seconds each git command may take before the commit is left out
GIT_TIMEOUT = 10.0


def _git(root: Path, *args: str) -> str | None:
    """The stripped output of ``git -C root args``, or None when git fails or is missing."""
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=GIT_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def checkout_commit(root: Path = ROOT) -> str | None:
    """The commit of the git checkout at ``root`` (short hash, ``-dirty`` when tracked files
    differ from it), or None: git missing, or ``root`` not the top of a checkout."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if not top or Path(top).resolve() != root.resolve():
        return None
    head = _git(root, "rev-parse", "--short", "HEAD")
    if not head:
        return None
    return head + ("-dirty" if _git(root, "status", "--porcelain", "--untracked-files=no") else "")


def build_record(root: Path = ROOT) -> dict[str, str | None]:
    """What the build records: the commit of the checkout at ``root``, else the one the
    source distribution unpacked there carries (``agents/_build.json``), else None."""
    found = checkout_commit(root)
    if found is None:
        try:
            carried = json.loads((root / "agents" / RECORD).read_text(encoding="utf-8")).get("commit")
            found = carried if isinstance(carried, str) and carried else None
        except (OSError, ValueError, AttributeError):
            found = None
    return {"commit": found}


def _write_record(folder: Path, root: Path = ROOT) -> Path:
    """Write the build record into ``folder``: a new file, never one it links to (a release
    tree's files are links to the source's)."""
    record = build_record(root)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / RECORD
    path.unlink(missing_ok=True)
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def _commands() -> dict[str, type]:
    from setuptools.command.build_py import build_py
    from setuptools.command.sdist import sdist

    class BuildPy(build_py):
        """``build_py`` that writes the build record into the built ``splitpoker.agents``
        (not in an editable install, whose code is the checkout: it finds its commit by git)."""

        def run(self) -> None:
            super().run()
            if not getattr(self, "editable_mode", False):
                _write_record(Path(self.build_lib) / "splitpoker" / "agents")

        def get_outputs(self, include_bytecode: bool = True) -> list[str]:
            outputs = list(super().get_outputs(include_bytecode))
            if not getattr(self, "editable_mode", False):
                outputs.append(str(Path(self.build_lib) / "splitpoker" / "agents" / RECORD))
            return outputs

    class Sdist(sdist):
        """``sdist`` that puts the build record of the checkout into the source distribution."""

        def make_release_tree(self, base_dir: str, files: list[str]) -> None:
            super().make_release_tree(base_dir, files)
            _write_record(Path(base_dir) / "agents")

    return {"build_py": BuildPy, "sdist": Sdist}


if __name__ == "__main__":
    from setuptools import setup

    setup(cmdclass=_commands())
