"""sb3-contrib's MaskablePPO over the offered splits, with the project's OfferedSplitsPolicy.

The same action space as tutorial 5 (a slot among up to ``K`` offered candidate splits, each
with a feature row), trained by an off-the-shelf algorithm instead of a loop of one's own:

* **The environment** is :class:`splitpoker.train.selfplay.SelfPlayEnv`, the one-table
  ``gymnasium.Env`` with ``action_masks()`` that sb3-contrib's masked algorithms call, with
  ``actions="offered"``: its observation is the seat vector followed by the ``K`` feature rows
  (``Box(D + K*F)``), its action a slot (``Discrete(K)``) and its mask the filled slots.
  Three greedy players fill the other seats; the learner's seat rotates hand by hand.
* **The policy** is :class:`splitpoker.agents.learned.offered_policy.OfferedSplitsPolicy`
  (the policy kind ``offered``): one MLP scores each slot from its feature row with shared
  weights, the critic reads the seat vector and the pooled rows. It reads the game and ``K``
  off the environment's spaces. ``MaskablePPO(OfferedSplitsPolicy, env)`` runs with
  sb3-contrib's default hyperparameters.
* **The budget** is CPU time (``time.process_time``), checked after every step by a callback
  that also prints progress once a CPU minute and keeps the last hands' payoffs. At the end
  the script prints their mean and saves the model with one call,
  ``export_policy(model, FILE, game=..., num_players=4)``, which reads ``K`` off the policy
  and checks that the saved file gives the model's logits; ``checkpoint:FILE`` then plays it
  in ``splitpoker eval``, ``exploit`` and ``benchmark``. (``model.save()`` writes an SB3 zip,
  which ``splitpoker export GAME model.zip --out FILE`` turns into the same policy file.)

Run it, then measure the saved policy against greedy players::

    python docs/tutorials/06_maskable_ppo.py --game biji --minutes 10 --seed 0 --out maskable_biji.zip
    splitpoker eval biji --agents checkpoint:maskable_biji.zip,greedy --hands 500 --players 4 --seed 101 --no-regret
    python docs/tutorials/06_maskable_ppo.py --quick --out quick.zip   # 256 steps, a few seconds
"""

from __future__ import annotations

import argparse
import collections
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from splitpoker.agents import export_policy
from splitpoker.agents.learned.offered_policy import OfferedSplitsPolicy
from splitpoker.envs.games import GAMES
from splitpoker.train.selfplay import SelfPlayEnv

PLAYERS = 4


class Budget(BaseCallback):
    """Stops training after ``minutes`` of CPU time; prints progress once a CPU minute and
    keeps the payoffs of the last hands."""

    def __init__(self, minutes: float) -> None:
        super().__init__()
        self.seconds, self.shown = 60 * minutes, 0
        self.start = time.process_time()
        self.recent: collections.deque[float] = collections.deque(maxlen=5000)

    def _on_step(self) -> bool:
        self.recent.extend(float(info["payoff"]) for info in self.locals["infos"])
        spent = time.process_time() - self.start
        if spent >= 60 * (self.shown + 1):
            self.shown = int(spent // 60)
            print(f"{spent / 60:5.1f} CPU minutes: {self.num_timesteps:,} hands, mean payoff of the last "
                  f"{len(self.recent):,} hands {np.mean(self.recent):+.2f}")
        return spent < self.seconds


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="biji", choices=GAMES.names, help="the game (default biji)")
    parser.add_argument("--minutes", type=float, default=10.0, help="CPU minutes of training (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="the policy file to write (default maskable_GAME.zip)")
    parser.add_argument("--quick", action="store_true", help="256 steps in rollouts of 128, a few seconds")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # small matrices: one thread is fastest

    env = SelfPlayEnv(args.game, PLAYERS, opponents="greedy", actions="offered")
    quick: dict[str, Any] = {"n_steps": 128, "batch_size": 64, "n_epochs": 2} if args.quick else {}
    model = MaskablePPO(OfferedSplitsPolicy, env, seed=args.seed, **quick)
    print(f"{args.game}: MaskablePPO over offer K={env.action_space.n} "
          f"(observation {env.observation_space.shape[0]} values), hyperparameters "
          f"{'of --quick' if args.quick else 'sb3-contrib defaults'}")
    budget = Budget(args.minutes)
    model.learn(256 if args.quick else 10**9, callback=budget)
    print(f"trained {model.num_timesteps:,} hands in {(time.process_time() - budget.start) / 60:.1f} CPU minutes; "
          f"mean payoff of the last {len(budget.recent):,} hands against greedy: {np.mean(budget.recent):+.2f}")
    path = export_policy(model, args.out or f"maskable_{args.game}.zip", game=args.game, num_players=PLAYERS)
    print(f"exported: {path} (play it as checkpoint:{path})")


if __name__ == "__main__":
    main()
