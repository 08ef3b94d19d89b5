"""PPO over the offered splits, CleanRL style: one file of plain torch and NumPy.

With ``actions="offered"`` a seat is offered up to ``K`` of its candidate splits (the
undominated ones, best first by the heuristic's value), each a row of ``F`` features (each
row's type, rank, share of typical rows beaten, bonus; the split's heuristic value), and picks
a slot. :class:`splitpoker.envs.vector.ArrangeVectorEnv` gives per table the observation
``concat(seat vector (D,), features (K*F,))`` and a ``(K,)`` mask of the filled slots;
:func:`splitpoker.envs.offered.split_observation` cuts it back apart.

* **The policy** is one small MLP applied to every slot's feature row: its outputs are the
  ``K`` logits (empty slots masked out). The same weights score every slot, so the network
  does not grow with ``K`` or with the number of splits. The critic is a second MLP over the
  seat vector and the mean of the filled rows. Both read the features divided by their
  bounds (:func:`splitpoker.envs.offered.offered_bounds`); the export folds that scale into
  the scorer's first layer.
* **PPO**: every hand is a one-step episode, so the advantage is the payoff minus the value
  the rollout predicted (normalised per minibatch; payoffs divided by their running RMS);
  clipped surrogate, value loss, an entropy bonus, a few epochs of minibatches per rollout of
  ``tables x steps`` hands. Three greedy players fill the other seats.
* **The budget** is CPU time (``time.process_time``): ``--minutes 10`` trains for ten CPU
  minutes, printing progress once a CPU minute. At the end it prints the mean payoff of the
  last hands it trained on and saves the scorer with
  ``export_policy(scorer, FILE, game=..., num_players=4, offer=K)``: a policy file that
  ``checkpoint:FILE`` plays in ``splitpoker eval``, ``exploit`` and ``benchmark``.

Run it, then measure the saved policy against greedy players::

    python docs/tutorials/05_offered_ppo.py --game biji --minutes 10 --seed 0 --out offered_biji.zip
    splitpoker eval biji --agents checkpoint:offered_biji.zip,greedy --hands 500 --players 4 --seed 101 --no-regret
    python docs/tutorials/05_offered_ppo.py --quick --out quick.zip   # two updates, a few seconds
"""

from __future__ import annotations

import argparse
import collections
import copy
import time
from collections.abc import Sequence
from typing import cast

import numpy as np
import torch
from torch import nn

from splitpoker.agents import export_policy, load_agent
from splitpoker.envs.games import GAMES, make_game
from splitpoker.envs.offered import offered_bounds, split_observation
from splitpoker.envs.vector import ArrangeVectorEnv

PLAYERS = 4


def mlp(inputs: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                         nn.Linear(hidden, 1))


class Agent(nn.Module):
    """A shared slot scorer (feature row -> logit) and a critic (seat vector, mean row -> value)."""

    scale: torch.Tensor

    def __init__(self, seat_size: int, width: int, scale: np.ndarray, hidden: int = 64) -> None:
        super().__init__()
        self.scorer, self.critic = mlp(width, hidden), mlp(seat_size + width, hidden)
        self.register_buffer("scale", torch.as_tensor(scale))

    def forward(self, seat: torch.Tensor, rows: torch.Tensor, mask: torch.Tensor
                ) -> tuple[torch.distributions.Categorical, torch.Tensor]:
        rows = rows / self.scale
        logits = self.scorer(rows).squeeze(-1).masked_fill(~mask, -1e9)    # (B, K): empty slots never drawn
        pooled = (rows * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        return torch.distributions.Categorical(logits=logits), self.critic(torch.cat([seat, pooled], -1)).squeeze(-1)

    def exported_scorer(self) -> nn.Sequential:
        """The scorer reading raw feature rows: the scale folded into its first layer."""
        scorer = copy.deepcopy(self.scorer)
        cast(nn.Linear, scorer[0]).weight.data /= self.scale
        return scorer


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="biji", choices=GAMES.names, help="the game (default biji)")
    parser.add_argument("--minutes", type=float, default=10.0, help="CPU minutes of training (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="the policy file to write (default offered_GAME.zip)")
    parser.add_argument("--quick", action="store_true", help="two small updates, a few seconds")
    args = parser.parse_args(argv)
    tables, steps, epochs, minibatches = (16, 2, 2, 2) if args.quick else (64, 16, 4, 4)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small matrices: one thread is fastest

    game = make_game(args.game)
    greedy = load_agent("greedy", game, num_players=PLAYERS)
    env = ArrangeVectorEnv(game, num_envs=tables, num_players=PLAYERS, actions="offered", opponents=greedy)
    offer = int(env.single_action_space.n)
    obs, _ = env.reset(seed=args.seed)
    seat, rows = split_observation(obs["observation"], game, offer)
    low, high = offered_bounds(game, PLAYERS)
    agent = Agent(seat.shape[1], rows.shape[2], np.maximum(1, np.maximum(-low, high)))
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4, eps=1e-5)
    print(f"{args.game}: {tables} tables, offer K={offer}, {rows.shape[2]} features a split, seat {seat.shape[1]}")

    recent: collections.deque[float] = collections.deque(maxlen=5000)   # the last hands' payoffs
    square_sum, count, hands, update = 0.0, 0, 0, 0
    start, shown = time.process_time(), 0

    def more() -> bool:                                                  # --quick: two updates
        return update < 2 if args.quick else time.process_time() - start < 60 * args.minutes

    while more():
        batch: dict[str, list[torch.Tensor]] = collections.defaultdict(list)
        for _ in range(steps):                                           # rollout: one hand a table a step
            seat, rows = (torch.tensor(a) for a in split_observation(obs["observation"], game, offer))  # copies
            mask = torch.tensor(obs["action_mask"].astype(bool))
            with torch.no_grad():
                dist, value = agent(seat, rows, mask)
                action = dist.sample()
            obs, reward, _, _, _ = env.step(action.numpy())
            for key, item in (("seat", seat), ("rows", rows), ("mask", mask), ("action", action),
                              ("logprob", dist.log_prob(action)), ("value", value), ("reward", torch.tensor(reward))):
                batch[key].append(item)
            recent.extend(reward.tolist())
            square_sum, count = square_sum + float((reward ** 2).sum()), count + len(reward)
        b = {key: torch.cat(items) for key, items in batch.items()}
        returns = b["reward"].float() / max(1e-6, (square_sum / count) ** 0.5)  # payoffs over their running RMS
        advantages = returns - b["value"]                                # one-step episodes: no bootstrapping
        for _ in range(epochs):                                          # clipped PPO updates
            for part in torch.randperm(len(returns)).chunk(minibatches):
                dist, value = agent(b["seat"][part], b["rows"][part], b["mask"][part])
                advantage = (advantages[part] - advantages[part].mean()) / (advantages[part].std() + 1e-8)
                ratio = (dist.log_prob(b["action"][part]) - b["logprob"][part]).exp()
                policy_loss = -torch.min(ratio * advantage, ratio.clamp(0.8, 1.2) * advantage).mean()
                loss = policy_loss + 0.5 * (value - returns[part]).pow(2).mean() - 0.01 * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        update, hands = update + 1, hands + len(returns)
        minutes = (time.process_time() - start) / 60
        if int(minutes) > shown:                                         # progress once a CPU minute
            shown = int(minutes)
            print(f"{minutes:5.1f} CPU minutes: update {update}, {hands:,} hands, mean payoff of the last "
                  f"{len(recent):,} hands {np.mean(recent):+.2f}")

    print(f"trained {update} updates, {hands:,} hands in {(time.process_time() - start) / 60:.1f} CPU minutes; "
          f"mean payoff of the last {len(recent):,} hands against greedy: {np.mean(recent):+.2f}")
    out = args.out or f"offered_{args.game}.zip"
    path = export_policy(agent.exported_scorer(), out, game=game, num_players=PLAYERS, offer=offer)
    print(f"exported: {path} (play it as checkpoint:{path})")


if __name__ == "__main__":
    main()
