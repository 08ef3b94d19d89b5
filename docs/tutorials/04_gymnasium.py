"""Using the environments from an outside RL library: gymnasium.

The game runs as gymnasium environments of two shapes, for learners that control one seat:

* :class:`splitpoker.envs.vector.ArrangeVectorEnv`, a ``gymnasium.vector.VectorEnv`` of
  ``num_envs`` tables stepped together: one learner seat per table (rotating), the other
  seats played by an agent (here ``greedy``, one ``act_batch`` call for all tables). A
  hand is one step and one episode. It declares ``AutoresetMode.SAME_STEP`` in its
  metadata: a step returns the next hands' observations, and the finished hands' in
  ``infos["final_obs"]``. With the default ``observation="dict"`` each observation is
  ``{"observation", "action_mask"}``, as the PettingZoo environments give it; a library
  that samples without masks can use ``illegal_action="penalty"`` instead.
* :class:`splitpoker.train.selfplay.SelfPlayEnv`, a one-table ``gymnasium.Env`` with
  ``action_masks()`` (what sb3-contrib's masked algorithms call), built from a game name
  and the other seats' agent specs. It passes gymnasium's ``check_env``; ``reset(seed=s)``
  repeats the deal, the learner's seat and the opponents' play.

The script wraps the vector environment in gymnasium's vector ``RecordEpisodeStatistics``,
plays a few hands at every table with uniformly random valid splits (drawn from the
masks), and prints the recorded episode returns, checked against the rewards the
environment returned: with one-step episodes they must be equal. Gymnasium before 1.4.0
ignores ``SAME_STEP`` in that wrapper (it assumes the next step is a reset step), so there
every hand after a table's first is recorded with return 0 and length 0; the script says
which case it meets and, in the second, reads the rewards directly (``infos["payoff"]``
holds them too). Then it runs ``check_env`` on a ``SelfPlayEnv`` against greedy players and
plays one hand. ``check_env`` has no warning: the ``SelfPlayEnv`` observation space is a
``Box`` of the observation's finite bounds.

PettingZoo's tests, SuperSuit's wrappers, TorchRL's ``PettingZooWrapper``, a Tianshou
collector and RLlib's PettingZoo environments on the multi-agent environments are shown in
``docs/ecosystem.md``, each without glue code (``pip install "splitpoker[ecosystem]"``, and
``"splitpoker[rllib]"`` for RLlib).

Run it::

    python docs/tutorials/04_gymnasium.py            # 256 tables, a few seconds
    python docs/tutorials/04_gymnasium.py --quick    # 32 tables
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from splitpoker.agents import load_agent
from splitpoker.envs.vector import ArrangeVectorEnv
from splitpoker.train.selfplay import SelfPlayEnv


def random_valid(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random valid split per row of ``masks`` (N, n_actions)."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks], dtype=np.int64)


def vector_env(tables: int, hands: int) -> None:
    greedy = load_agent("greedy", "biji", num_players=4)
    env = RecordEpisodeStatistics(ArrangeVectorEnv("biji", num_envs=tables, num_players=4, opponents=greedy),
                                  buffer_length=tables * hands)
    print(f"ArrangeVectorEnv: {env.num_envs} tables, autoreset {env.metadata['autoreset_mode'].name}, "
          f"observation {env.single_observation_space['observation'].shape} and "
          f"action_mask {env.single_observation_space['action_mask'].shape} per table")
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=0)
    rewards: list[np.ndarray] = []
    for _ in range(hands):
        obs, reward, terminations, truncations, infos = env.step(random_valid(obs["action_mask"], rng))
        assert terminations.all()                                 # every hand ends its episode
        rewards.append(reward)
    played = np.concatenate(rewards)
    recorded = np.array(env.return_queue)
    print(f"played {len(played)} hands; mean payoff of a random valid split against 3 greedy seats: "
          f"{played.mean():+.2f}")
    if np.allclose(np.sort(recorded), np.sort(played)):
        print(f"RecordEpisodeStatistics recorded {env.episode_count} episodes, mean return {recorded.mean():+.2f}, "
              f"mean length {np.mean(env.length_queue):.1f}: the rewards, as expected")
    else:
        print(f"RecordEpisodeStatistics of gymnasium {gymnasium.__version__} recorded a mean return of "
              f"{recorded.mean():+.2f} and length {np.mean(env.length_queue):.2f}: it ignores SAME_STEP autoreset "
              "(fixed in gymnasium 1.4.0); the rewards above are the episode returns")


def single_env() -> None:
    env = SelfPlayEnv("biji", 4, opponents="greedy", illegal_action="penalty")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    notes = sorted({str(w.message).split("WARN: ")[-1].split(".")[0] for w in caught})
    print(f"SelfPlayEnv passes gymnasium's check_env (its warnings: {'; '.join(notes) or 'none'})")
    obs, info = env.reset(seed=123)
    mask = env.action_masks()
    action = int(random_valid(mask[None], np.random.default_rng(0))[0])
    obs, reward, terminated, truncated, info = env.step(action)
    print(f"one hand at seat {info['seat']}: {int(mask.sum())} valid splits, split {action}, "
          f"payoff {info['payoff']:+.0f} (every seat: {info['payoffs']}), terminated={terminated}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="32 tables instead of 256")
    args = parser.parse_args(argv)
    vector_env(tables=32 if args.quick else 256, hands=4)
    single_env()


if __name__ == "__main__":
    main()
