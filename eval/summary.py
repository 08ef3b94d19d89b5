"""The summary of a match (what :func:`.runner.run` returns and ``summary.json`` holds):
:class:`EvalSummary`, with each agent's figures as an :class:`AgentSummary`.

Code reads its fields; :meth:`EvalSummary.to_dict` is the JSON of ``summary.json`` and of
``splitpoker eval --json``, its keys in the order of the fields.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

from .duplicate import AgentResult


@dataclasses.dataclass
class AgentSummary(AgentResult):
    """One agent's figures over a match, with ``warmup_ms``: the longest of its untimed
    warm-ups in milliseconds (:func:`.runner.warm_up`), None where it had none."""

    warmup_ms: float | None = None

    @classmethod
    def of(cls, result: AgentResult, warmup_ms: float | None) -> AgentSummary:
        """``result`` with its warm-up."""
        return cls(**{field.name: getattr(result, field.name) for field in dataclasses.fields(result)},
                   warmup_ms=warmup_ms)


@dataclasses.dataclass(frozen=True)
class EvalSummary:
    """What a match measured, and under what settings."""

    game: str
    players: int
    preset: str
    #: every rule switch of the game played, by name
    switches: dict[str, Any]
    #: the deals played (fewer than ``hands_planned`` when the match was interrupted)
    hands: int
    seed: int
    #: by lineup index
    agents: list[AgentSummary]
    #: the spec of the solver that regret and agreement are measured against; None without regret
    regret_model: str | None
    #: whether the match was interrupted, and by which signal (``"SIGINT"``, ``"SIGTERM"``)
    partial: bool
    interrupted_by: str | None
    hands_planned: int
    elapsed_s: float
    #: what made the report: version, commit and environment (:func:`~splitpoker.agents.version.report_stamp`)
    splitpoker: dict[str, Any]
    #: the policy files the agents play, by spec (:func:`~splitpoker.agents.learned.policy_files.weights`)
    weights: dict[str, dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        """The JSON of the summary (``summary.json``)."""
        return dataclasses.asdict(self) | {"agents": [agent.to_dict() for agent in self.agents]}

    def __getitem__(self, key: str) -> Any:
        """``summary["hands"]``: deprecated, read the field (``summary.hands``) or :meth:`to_dict`."""
        warnings.warn(f"summary[{key!r}] is deprecated: read the field (summary.{key}) or summary.to_dict()",
                      DeprecationWarning, stacklevel=2)
        return self.to_dict()[key]
