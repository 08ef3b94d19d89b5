"""Training from a config, reading its TensorBoard events, loading the checkpoint.

``splitpoker train quickstart`` trains a Biji policy from the config ``quickstart.yaml``
that ships with the package, in a few minutes. The same run from Python is
:func:`splitpoker.train.launch.train`, which takes a config file or the name of a packaged
config and a list of ``--set`` style overrides (``key.sub=value``, each value read as YAML).
This tutorial shrinks the quickstart with overrides so that it trains in well under a
minute, then reads what the run wrote:

* **The warm start.** The quickstart first clones the exhaustive solver: it labels hands
  with ``solver:samples=64,opponent=greedy`` and fits the policy to the labels. Here it
  labels 1,000 hands at 32 samples in one process (``imitation.hands``, ``imitation.solver``,
  ``imitation.workers``), and the fit's loss and accuracy are printed epoch by epoch.
* **Self-play.** MaskablePPO then plays one seat at each of 8 tables whose other seats are
  snapshots of itself, greedy and random players, for ``total_timesteps`` hands (6,144
  here, against the config's 30,000), with an evaluation every 2,048 hands
  (``eval.every``) and a final one (``eval.final_hands`` duplicate deals against random and
  greedy, plus a best-response gain over ``eval.br_final_hands`` deals).
* **The run folder** ``runs/biji__quickstart__<seed>__<time>/`` (``output_dir``, relative
  to the working directory) holds ``config.yaml`` (the resolved config, overrides
  applied), ``command.txt``, ``checkpoints/`` (``final.zip`` and one every
  ``checkpoint.every`` hands), ``eval/`` (JSON and Markdown reports) and TensorBoard event
  files: the run's own (``charts/``, ``losses/``, ``selfplay/``, ``eval/``, ``final/``, on
  the axis of training hands) and the warm start's in ``imitation/`` (on an axis of
  epochs). ``tensorboard --logdir runs`` shows them; here TensorBoard's
  ``EventAccumulator`` reads them as plain numbers, one folder of event files at a time.
* **The checkpoint as an agent.** ``load_agent("checkpoint:PATH", "biji", num_players=4)``
  plays a checkpoint like any other agent: the script shows its split of one hand and
  plays a short duplicate match against greedy with
  :func:`splitpoker.eval.duplicate.evaluate` (agent objects, in this process).

A run this short shows the pipeline more than it trains: by default the policy ends about
+0.5 a hand ahead of greedy, where the full quickstart (``make demo``) reaches about +1.0,
and the best-response gain, with 16 samples over a few dozen deals, is a rough lower bound.
With ``--quick`` the policy has barely moved from where it started.

Run it::

    python docs/tutorials/03_train_and_tensorboard.py            # about 30 seconds
    python docs/tutorials/03_train_and_tensorboard.py --quick    # 1,024 hands, about 10 seconds
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from splitpoker.agents import load_agent
from splitpoker.envs.cards import format_cards
from splitpoker.envs.games import make_game
from splitpoker.envs.table import deal
from splitpoker.eval.duplicate import evaluate
from splitpoker.train.launch import train

FULL = ["total_timesteps=6144", "imitation.hands=1000", "imitation.solver=solver:samples=32,opponent=greedy",
        "eval.every=2048", "eval.hands=50", "eval.final_hands=200", "eval.br_hands=20", "eval.br_final_hands=50",
        "checkpoint.every=2048", "selfplay.snapshot_interval=1024"]
QUICK = ["total_timesteps=1024", "imitation.hands=128", "imitation.solver=solver:samples=16,opponent=greedy",
         "eval.every=512", "eval.hands=10", "eval.final_hands=20", "eval.br_hands=0", "eval.br_final_hands=10",
         "checkpoint.every=512", "selfplay.snapshot_interval=512"]
COMMON = ["imitation.workers=1", "output_dir=runs", "progress=false"]


def scalars(folder: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar series of the event files in ``folder``: tag -> [(step, value), ...]."""
    events = EventAccumulator(str(folder))
    events.Reload()
    return {tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]}


def show(series: dict[str, list[tuple[int, float]]], tags: Sequence[str]) -> None:
    for tag in tags:
        if tag in series:
            points = ", ".join(f"{step}: {value:.3f}" for step, value in series[tag])
            print(f"  {tag:22s} {points}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,024 hands and a tiny warm start")
    args = parser.parse_args(argv)

    result = train("quickstart", overrides=(QUICK if args.quick else FULL) + COMMON)
    print(f"\nrun folder: {result.run_dir} ({result.steps} hands of self-play)")

    run = scalars(result.run_dir)
    print(f"TensorBoard tags of the run: {len(run)}, e.g. {', '.join(sorted(run)[:4])}, ...")
    show(run, ["charts/mean_payoff", "losses/entropy_loss", "eval/random_mean", "eval/greedy_mean",
               "eval/br_gain", "final/random_mean", "final/greedy_mean", "final/br_gain"])
    print("the warm start (step = epoch):")
    show(scalars(result.run_dir / "imitation"), ["imitation/loss", "imitation/accuracy"])

    print(f"\ncheckpoint: {result.checkpoint}")
    game = make_game("biji")
    policy = load_agent(f"checkpoint:{result.checkpoint}", game, num_players=4, seed=0)
    tables = deal(game, 4, rng=7)
    view = tables.view(0, 0)
    split = int(policy.act_batch([view])[0])
    rows = game.arrangement(view.slots, split)
    shown = " | ".join(f"{format_cards(row)} ({kind})" for row, kind in zip(rows, game.describe_rows(rows)))
    print(f"the policy splits {' '.join(view.hand)} as split {split}: pots {shown}")

    hands = 20 if args.quick else 200
    mine, greedy = evaluate(game, [policy, load_agent("greedy", game, num_players=4)], 4, hands, seed=1)
    lo, hi = mine.ci95
    print(f"the checkpoint against greedy: {mine.mean:+.2f} per hand [{lo:+.2f}, {hi:+.2f}] over {hands} deals "
          f"(greedy {greedy.mean:+.2f})")


if __name__ == "__main__":
    main()
