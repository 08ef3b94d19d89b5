"""Agents: random, greedy, the exhaustive solver and learned policies, built from spec
strings by :func:`load_agent`."""

from .base import Agent, load_agent

__all__ = ["Agent", "load_agent"]
