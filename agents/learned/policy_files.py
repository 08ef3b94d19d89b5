"""The policy files a lineup plays, for the record reports keep: :func:`weights` walks agent
specs (a mixture's members, a solver's opponent) and gives, for each ``checkpoint:`` and
``pretrained:`` policy, its file, size and sha256, so that a figure names the exact weights
it was measured with. It reads the spec grammar only; the checkpoint module (and with it
the ``[train]`` extra) is imported when a policy file must be found.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..specs import parse_spec

__all__ = ["weights", "sha256_of"]


def sha256_of(path: str | Path) -> str:
    """The sha256 of the file at ``path`` (hex)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def weights(specs: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """The policy files the agents of ``specs`` play, by spec (``checkpoint:PATH``,
    ``pretrained:NAME``, wherever it sits in a spec: a mixture's member, a solver's
    opponent): ``{"file": ..., "sha256": ..., "bytes": ...}``, the file as resolved now (a
    run folder's latest checkpoint) and, for a shipped policy, by its name. A file that
    cannot be found or read is recorded with ``"sha256": None`` and why; this never fails."""
    found: dict[str, dict[str, Any]] = {}
    pending = []
    for spec in specs:
        try:
            pending.append(parse_spec(spec))
        except ValueError:
            continue
    while pending:
        spec = pending.pop(0)
        if spec.kind in ("checkpoint", "pretrained"):
            key = f"{spec.kind}:{spec.argument}"
            if key not in found:
                found[key] = _policy_file_record(spec.kind, spec.argument)
            continue
        pending += [v for _, v in spec.option_items if not isinstance(v, str)] + list(spec.members)
    return found


def _policy_file_record(kind: str, argument: str) -> dict[str, Any]:
    """The record of :func:`weights` for one policy spec."""
    try:
        from .checkpoint import pretrained_path, resolve_checkpoint  # the [train] extra, as playing it needs

        path = pretrained_path(argument) if kind == "pretrained" else resolve_checkpoint(argument)
        return {"file": path.name if kind == "pretrained" else str(path), "sha256": sha256_of(path),
                "bytes": path.stat().st_size}
    except Exception as error:  # never fail a report because of its record
        return {"file": None, "sha256": None, "error": f"{type(error).__name__}: {str(error).splitlines()[0]}"[:300]}
