"""Plugging your own agent into ``eval`` and ``exploit``.

An agent is anything that decides splits for batches of seats. It subclasses
:class:`splitpoker.agents.Agent` and implements one method, ``act_batch(views)``: given a
list of :class:`~splitpoker.agents.SeatView` (each holds ``slots``, the hand's card ids in
slot order, ``seat``, ``num_players``, ``mask``, the bool mask of the splits the seat may
play, and ``observation``), it returns one split index per view. It also has a ``name``
(shown in reports) and, when it draws random numbers, a ``seed(s)`` method: the evaluation
reseeds every agent deal by deal, so its numbers do not depend on how the deals are shared
among worker processes. ``Agent.act`` (one PettingZoo seat) comes for free.

The agent below plays a uniformly random **candidate**: a valid split that no other valid
split dominates (every row at least as strong). In Biji a hand has a median of 4 candidates
among its few hundred valid splits, and a best response never needs a dominated split, so
this agent plays far better than a uniformly random valid split while still playing
randomly. ``game.candidate_masks`` gives the candidates of a batch of hands in one call.

**Agent specs.** Everything that takes agents (``splitpoker eval``, ``splitpoker exploit``,
training configs, ``load_agent``) takes them as spec strings, and the spec
``package.module:attr`` imports ``package.module`` and calls
``attr(game=..., num_players=..., seed=...)``; a class with that constructor is a factory.
The module needs a dotted name. This script puts ``docs/`` on ``sys.path``, so that this
file is the module ``tutorials.02_custom_agent`` and its agent is the spec
``tutorials.02_custom_agent:CandidateAgent`` (in your own project it would be
``yourpackage.agents:CandidateAgent``). Worker processes (``--workers``) import the module
again, so the agent must live in an importable file, not only in ``__main__``.

**Options.** ``package.module:attr:key=value,...`` passes keyword arguments to the factory
besides the three above: ``tutorials.02_custom_agent:CandidateAgent:name=mine`` builds
``CandidateAgent(game=..., num_players=..., seed=..., name="mine")``. A value written as a
plain decimal number reaches it as a number (``64``, ``0.5``), any other as text (a path such
as ``weights=runs/w.pt``); a keyword the factory does not take is an error naming it.

**Where the module is found.** A command imports the module as Python would, and if it is
installed nowhere, from the folder the command runs in (added at the end of the import
path, after the installed packages): run in ``docs/``, the commands below need no path set.
From any other folder, add the folder that holds the package to ``PYTHONPATH``.

The script then does, from Python, what these commands do (run in ``docs/``; from the root
of a checkout, prefix each with ``PYTHONPATH=docs``)::

    splitpoker eval biji --agents tutorials.02_custom_agent:CandidateAgent,greedy --hands 1000 --no-regret
    splitpoker exploit biji --agent tutorials.02_custom_agent:CandidateAgent --samples 32 --hands 200

1. A duplicate-deal match (:class:`splitpoker.eval.runner.EvalSettings` and
   :func:`splitpoker.eval.runner.run`, the engine of ``splitpoker eval``): each deal is
   replayed with the agents rotated through the seats, so the luck of the cards cancels.
   The candidate agent plays greedy and then ``random``; a mean payoff per hand with its 95%
   interval is printed for each agent.
2. Its **best-response gain** (:func:`splitpoker.eval.exploit.best_response_gain`, the
   engine of ``splitpoker exploit``): the exhaustive solver, with the agent as its opponent
   model, in one seat against copies of the agent. A table of copies scores 0, so the gain
   is what a player who knows the agent's play wins from it; with few samples it is a loose
   lower bound on the agent's exploitability. Greedy's is measured on the same deals, for
   scale.

The commands print the same figures as the script (the same seed, so the same deals and
the same draws). What to expect: the candidate agent wins about 7.4 points a hand from
``random`` but loses about 0.45 to greedy, and its best-response gain (about +2.5) is
larger than greedy's (about +1.6): a random choice among the candidates often plays a
weak one, and a player who knows that can punish it.

Run it::

    python docs/tutorials/02_custom_agent.py            # 1,000 deals, about 15 seconds
    python docs/tutorials/02_custom_agent.py --quick    # 40 deals, a few seconds
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from splitpoker.agents import Agent, SeatView, load_agent
from splitpoker.envs.game import Game
from splitpoker.eval.exploit import best_response_gain
from splitpoker.eval.runner import EvalSettings, run

SPEC = "tutorials.02_custom_agent:CandidateAgent"


class CandidateAgent(Agent):
    """A uniformly random candidate: a valid split that no other valid split dominates."""

    def __init__(self, game: Game, num_players: int = 4, seed: int | None = None, name: str = "candidate") -> None:
        self.game = game
        self.rng = np.random.default_rng(seed)
        self.name = name                                                 # an option: SPEC:name=...

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        hands = np.stack([view.slots for view in views])                 # (N, 9) card ids
        allowed = self.game.candidate_masks(hands) & np.stack([view.mask for view in views])
        choices = np.empty(len(views), dtype=np.int64)
        for i, row in enumerate(allowed):
            options = np.flatnonzero(row)
            choices[i] = options[self.rng.integers(len(options))]
        return choices


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds: 40 deals, 8 deals of the gain")
    args = parser.parse_args(argv)
    hands, br_hands, samples = (40, 8, 8) if args.quick else (1000, 200, 32)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # docs/: the package `tutorials`

    agent = load_agent(SPEC, "biji", num_players=4, seed=0)            # the spec resolves to our class
    print(f"{SPEC} -> {agent!r}")
    print(f"{SPEC}:name=mine -> {load_agent(f'{SPEC}:name=mine', 'biji', num_players=4)!r}")   # an option

    for other in ("greedy", "random"):
        settings = EvalSettings(game="biji", agents=[SPEC, other], hands=hands, players=4, regret=False, seed=0)
        summary, _ = run(settings, progress=False)
        for result in summary.agents:
            lo, hi = result.ci95
            print(f"eval vs {other:6s}: {result.name:9s} {result.mean:+.2f} per hand "
                  f"[{lo:+.2f}, {hi:+.2f}] over {summary.hands} deals")

    for spec in (SPEC, "greedy"):
        gain = best_response_gain("biji", spec, samples=samples, hands=br_hands, players=4, seed=0)
        lo, hi = gain.ci95
        print(f"best-response gain of {spec}: {gain.gain:+.2f} [{lo:+.2f}, {hi:+.2f}] "
              f"({gain.best_response}, {gain.hands} deals)")


if __name__ == "__main__":
    main()
