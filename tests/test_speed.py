"""The speed figures of `splitpoker bench` (splitpoker.eval.speed, splitpoker.train.speed): figures with
median, min and max, as one JSON document."""

from __future__ import annotations

import json

from splitpoker.envs.games import game_names
from splitpoker.train.cli import main


def test_bench_json_shape(capsys):
    code = main(["bench", "--quick", "--only", "biji.mask", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert {"platform", "python", "cpu"} <= set(report["machine"])
    (figure,) = report["figures"]
    assert figure["name"] == "biji.mask_ms" and figure["unit"] == "ms"
    assert 0 < figure["min"] <= figure["median"] <= figure["max"]


def test_bench_names_every_required_figure():
    from splitpoker.eval.speed import _figures
    from splitpoker.train.speed import training_figures

    names = {figure.name for figure in [*_figures(quick=False), *training_figures(quick=False)]}
    for game in game_names():
        for figure in ("mask_ms", "score_ms", "env_hands_per_s", "solver_ms", "greedy_ms", "heuristic_ms", "policy_ms",
                       "policy_per_greedy", "solver_ms@64", "solver_ms@1024", "train_hands_per_s"):
            assert f"{game}.{figure}" in names


def test_bench_unknown_prefix_is_an_error(capsys):
    assert main(["bench", "--only", "chess."]) == 2
    assert "chess." in capsys.readouterr().err


def test_relative_time_is_the_ratio_of_the_agents_decision_times():
    """Taking turns, each agent is timed over its own calls only: one that spends 4 ms of CPU
    time per decision reads about four times one that spends 1 ms."""
    import time

    import numpy as np

    from splitpoker.agents.base import Agent
    from splitpoker.envs.games import make_game
    from splitpoker.eval.speed import relative_time

    class Busy(Agent):
        def __init__(self, name, seconds):
            self.name, self.seconds = name, seconds

        def act_batch(self, views):
            end = time.process_time() + self.seconds
            while time.process_time() < end:
                pass
            return np.array([int(np.flatnonzero(v.mask)[0]) for v in views])

    ratio = relative_time(make_game("biji"), Busy("slow", 0.004), Busy("fast", 0.001), 4, 20, block=5)
    assert 3.0 < ratio < 5.0
