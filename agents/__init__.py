"""Agents: random, greedy, the exhaustive solver and learned policies, built from spec
strings by :func:`load_agent`; every agent decides batches of seat views
(:class:`~splitpoker.envs.table.SeatView`)."""

from ..envs.table import SeatView
from .base import Agent
from .loading import load_agent

__all__ = ["Agent", "SeatView", "load_agent"]
