"""Fictitious play in phases (``fictitious_play.phases``): the config, its errors and
``--set`` overrides, runs that make the weights of a one-phase run continued with ``--set``
and that resume exactly inside a phase and across phases, and the packaged configs named
after the policies they make."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
import torch as th
import yaml

from splitpoker.train.config import PACKAGED_CONFIGS, apply_overrides, load_config, load_config_dict
from tests.test_faults import points, same_run
from tests.test_fictitious import base, train

#: a phase of the tiny config's own values, then one against the latest policy at another
#: learning rate and with one epoch
PHASES = [{"rounds": 2}, {"rounds": 1, "population": "latest", "learning_rate": 0.001, "epochs": 1}]
#: the --set of a resume that continues the one-phase tiny config with the second phase
CONTINUATION = ["fictitious_play.rounds=3", "fictitious_play.population=latest",
                "fictitious_play.learning_rate=0.001", "fictitious_play.epochs=1"]


def phased(phases: list[dict[str, Any]] | None = None, **section: Any) -> dict[str, Any]:
    """The tests' tiny config (biji_fp_tiny.yaml: mixture, 16 hands, 2 samples) in phases."""
    data = base()
    del data["fictitious_play"]["rounds"]
    data["fictitious_play"].update(section, phases=PHASES if phases is None else phases)
    return data


def final_weights(run_dir: Path) -> dict[str, th.Tensor]:
    from splitpoker.agents.learned.checkpoint import read_policy_state

    return read_policy_state(run_dir / "checkpoints" / "final.zip")


def same_weights(run: Path, reference: Path) -> None:
    got, want = final_weights(run), final_weights(reference)
    assert got.keys() == want.keys()
    assert all(th.equal(got[k], want[k]) for k in want), "final weights differ"


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """An uninterrupted run of the two phases, and what it printed."""
    from splitpoker.train.launch import train as start
    from tests.test_fictitious import write

    lines: list[str] = []
    result = start(write(tmp_path_factory.mktemp("phased"), phased()), command="splitpoker train fp_tiny.yaml",
                   emit=lines.append)
    assert result.steps == 48 and not result.interrupted
    return result.run_dir, lines


# --------------------------------------------------------------------------- runs
def test_two_phases_make_the_weights_of_one_phase_continued_with_set(reference, tmp_path):
    from splitpoker.train.launch import resume_run

    run_dir, lines = reference
    first = train(tmp_path, base())  # the section's own values: phase 1
    assert first.steps == 32
    continued = resume_run(first.run_dir, CONTINUATION, "splitpoker train --resume", emit=lambda line: None)
    assert continued.steps == 48 and not continued.interrupted
    same_weights(continued.run_dir, run_dir)
    state = json.loads((run_dir / "checkpoints" / "state.json").read_text())
    assert state["fp_rounds_done"] == 3 and state["step"] == 48
    rounds = [line for line in lines if line.startswith("round ")]
    assert [line[: line.index("): ") + 1] for line in rounds] == [
        "round 1/3 (phase 1/2: mixture, lr 0.003)", "round 2/3 (phase 1/2: mixture, lr 0.003)",
        "round 3/3 (phase 2/2: latest, lr 0.001, epochs 1)"]
    tags = points(run_dir)
    assert [tags[("fictitious_play/phase", step)] for step in (16, 32, 48)] == [[1.0], [1.0], [2.0]]
    assert sum(line.startswith("  epoch ") for line in lines) == 2 + 2 + 1  # phase 2 fits one epoch


@pytest.mark.parametrize("stop_in_round", [2, 3], ids=["inside_phase_1", "into_phase_2"])
def test_a_run_resumes_inside_a_phase_and_across_phases_to_the_same_weights(reference, tmp_path, monkeypatch,
                                                                             stop_in_round):
    """Stopped in round 2 (phase 1), it resumes after round 1, in the middle of phase 1;
    stopped in round 3, after round 2, at the start of phase 2."""
    from splitpoker.train import fictitious
    from splitpoker.train.imitation import behaviour_clone
    from splitpoker.train.launch import resume_run

    calls = []

    def fit(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == stop_in_round:
            os.kill(os.getpid(), signal.SIGTERM)  # in this round's fit: the round stops at once
        return behaviour_clone(*args, **kwargs)

    monkeypatch.setattr(fictitious, "behaviour_clone", fit)
    stopped = train(tmp_path, phased())
    monkeypatch.undo()
    assert stopped.interrupted and stopped.steps == 16 * (stop_in_round - 1)
    lines: list[str] = []
    resumed = resume_run(stopped.run_dir, [], "splitpoker train --resume", emit=lines.append)
    assert resumed.steps == 48 and not resumed.interrupted
    phase = "phase 1/2: mixture" if stop_in_round == 2 else "phase 2/2: latest"
    assert any(line.startswith(f"round {stop_in_round}/3 ({phase}") for line in lines)
    same_weights(stopped.run_dir, reference[0])
    same_run(stopped.run_dir, reference[0])


def test_a_finished_phased_run_continues_with_more_rounds_of_its_last_phase(reference, tmp_path):
    import shutil

    from splitpoker.train.launch import resume_run

    run_dir = tmp_path / "run"
    shutil.copytree(reference[0], run_dir)
    with pytest.raises(ValueError, match=r"raise it with --set fictitious_play\.phases\.1\.rounds=N"):
        resume_run(run_dir, [], "resume", emit=lambda line: None)
    with pytest.raises(ValueError, match="fictitious_play.rounds: 4 is given with fictitious_play.phases"):
        resume_run(run_dir, ["fictitious_play.rounds=4"], "resume", emit=lambda line: None)
    lines: list[str] = []
    more = resume_run(run_dir, ["fictitious_play.phases.1.rounds=2"], "resume", emit=lines.append)
    assert more.steps == 64 and any(line.startswith("round 4/4 (phase 2/2: latest") for line in lines)
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())["fictitious_play"]
    assert "rounds" not in saved and saved["phases"] == [{"rounds": 2}, {**PHASES[1], "rounds": 2}]


# --------------------------------------------------------------------------- the config
def test_phases_follow_from_the_section_and_the_rounds_are_their_sum():
    config = load_config_dict(phased([{"rounds": 2}, {"rounds": 3, "hands": 8, "population": "latest"}]))
    fp = config.fictitious_play
    assert fp.total_rounds == 5 and config.total_timesteps == 2 * 16 + 3 * 8
    first, second = fp.schedule()
    assert (first.first_round, second.first_round) == (0, 2)
    assert first.settings.population == "mixture" and first.settings.hands == 16 and first.settings.rounds == 2
    assert second.settings.population == "latest" and second.settings.hands == 8
    assert second.settings.learning_rate == fp.learning_rate  # left out: the section's, not the phase before's
    assert [fp.phase_of(r).index for r in range(6)] == [0, 0, 1, 1, 1, 1]
    resolved = config.resolved()["fictitious_play"]
    assert "rounds" not in resolved and resolved["phases"] == [{"rounds": 2},
                                                               {"rounds": 3, "hands": 8, "population": "latest"}]
    assert load_config_dict(yaml.safe_load(config.to_yaml())) == config
    plain = load_config_dict(base())  # no phases: one phase of the section itself, as before
    assert plain.fictitious_play.schedule()[0].settings is plain.fictitious_play
    assert "phases" not in plain.resolved()["fictitious_play"]
    assert load_config_dict(phased(), source="x").total_timesteps == 48


@pytest.mark.parametrize(("phases", "section", "expected"), [
    ([], {}, "fictitious_play.phases is empty: give at least one phase"),
    (None, {"rounds": 2}, "fictitious_play.rounds: 2 is given with fictitious_play.phases, whose rounds (3 in all)"),
    ([{"rounds": 2}, {"rounds": 0}], {}, "fictitious_play.phases.1.rounds: Input should be greater than 0 (got 0)"),
    ([{"rounds": -1}], {}, "fictitious_play.phases.0.rounds: Input should be greater than 0 (got -1)"),
    ([{"population": "latest"}], {}, "fictitious_play.phases.0.rounds is required"),
    ([{"rounds": 2, "lr": 0.1}], {}, "unknown key 'fictitious_play.phases.0.lr'; allowed keys of "
                                     "fictitious_play.phases.0: rounds, hands, solver, population"),
    ([{"rounds": 2, "workers": 4}], {}, "unknown key 'fictitious_play.phases.0.workers'"),
    ([{"rounds": 2}, {"rounds": 1, "population": "all"}], {},
     "fictitious_play.phases.1.population: Input should be 'latest' or 'mixture' (got 'all')"),
    ([{"rounds": 2, "learning_rate": None}], {}, "fictitious_play.phases.0.learning_rate: null is not a setting"),
    ([{"rounds": 2, "epochs": True}], {}, "fictitious_play.phases.0.epochs: true or false is not a number"),
    ([{"rounds": 2, "target": "split", "top_k": 4}], {},
     "fictitious_play.phases.0.top_k applies to target values and mirror only (the phase's target is split)"),
    ([{"rounds": 2, "target": "split"}], {}, "fictitious_play.temperature is read by no phase's target (the "
                                             "phases' targets: split)"),
    ([{"rounds": 2}, {"rounds": 1, "target": "mirror", "fit": "all"}], {"fit": "all"},
     "fictitious_play.phases.1.fit: all fits earlier rounds' hands, but target mirror steps from the policy"),
    ([{"rounds": 2}, {"rounds": 1, "fit": "all"}], {}, "fictitious_play.phases.1.fit: all fits the labels of every "
                                                       "round so far, but an earlier phase fits round"),
    ([{"rounds": 1, "solver": "solver:opponent=greedy"}], {}, "fictitious_play.phases.0.solver: "
                                                              "'solver:opponent=greedy' names an opponent"),
    ([8, 20], {}, "fictitious_play.phases.0 must be a mapping of keys, got 8"),
    ({"rounds": 8}, {}, "fictitious_play.phases: Input should be a valid list"),
])
def test_phase_errors_are_one_line_naming_the_bad_value(phases, section, expected):
    data = phased(**section)
    data["fictitious_play"]["phases"] = PHASES if phases is None else phases
    with pytest.raises(ValueError) as error:
        load_config_dict(data, source="fp.yaml")
    message = str(error.value)
    assert "\n" not in message and message.startswith("fp.yaml: ") and expected in message, message


def test_a_phase_with_target_split_drops_the_sections_temperature():
    config = load_config_dict(phased([{"rounds": 1}, {"rounds": 1, "target": "split"}]))
    assert [p.settings.target for p in config.fictitious_play.schedule()] == ["values", "split"]
    every = load_config_dict(phased([{"rounds": 1}, {"rounds": 1}], fit="all"))
    assert [p.settings.fit for p in every.fictitious_play.schedule()] == ["all", "all"]


def test_set_reaches_into_the_phases(tmp_path):
    path = tmp_path / "fp.yaml"
    path.write_text(yaml.safe_dump(phased()))
    config = load_config(path, ["fictitious_play.phases.1.learning_rate=0.0002", "fictitious_play.phases.2.rounds=4",
                                "fictitious_play.phases.2.population=latest"])
    assert [(p.settings.rounds, p.settings.population, p.settings.learning_rate)
            for p in config.fictitious_play.schedule()] == [(2, "mixture", 0.003), (1, "latest", 0.0002),
                                                            (4, "latest", 0.003)]
    assert config.total_timesteps == 7 * 16
    data = phased()
    apply_overrides(data, ["fictitious_play.phases.0.rounds=5"])
    assert data["fictitious_play"]["phases"][0] == {"rounds": 2}  # the overrides change a copy
    one = base()
    del one["fictitious_play"]["rounds"]
    added = apply_overrides(one, ["fictitious_play.phases.0.rounds=2"])
    assert added["fictitious_play"]["phases"] == [{"rounds": 2}]
    with pytest.raises(ValueError, match=r"fictitious_play.phases is not set; a new list starts at position 0 "
                                         r"\(fictitious_play.phases.0\)"):
        apply_overrides(one, ["fictitious_play.phases.1.rounds=2"])
    for bad, match in (("fictitious_play.phases.5.rounds=1", "fictitious_play.phases is a list of 2; its positions "
                                                             r"are 0 to 1 \(2 adds one\)"),
                       ("fictitious_play.phases.first.rounds=1", "fictitious_play.phases is a list of 2"),
                       ("fictitious_play.phases.0.rounds.x=1", "fictitious_play.phases.0.rounds is not a section")):
        with pytest.raises(ValueError, match=match):
            load_config(path, [bad])
    with pytest.raises(ValueError, match=r"with --set fictitious_play.phases.1.rounds=0: "
                                         r"fictitious_play.phases.1.rounds: Input should be greater than 0"):
        load_config(path, ["fictitious_play.phases.1.rounds=0"])


# --------------------------------------------------------------------------- the packaged configs
#: the recipes of the shipped policies, each made by fictitious play: per phase its rounds,
#: population, learning rate, the solver's samples and the weighting of its hands
RECIPES = {
    "biji_classic_4p": [(8, "mixture", 0.001, 64, "uniform"), (33, "latest", 0.0003, 64, "regret")],
    "thirteen_classic_4p": [(8, "mixture", 0.001, 64, "uniform"), (38, "latest", 0.0003, 64, "regret"),
                            (10, "latest", 0.0003, 256, "regret")],
    "thirteen_western_2p": [(6, "mixture", 0.001, 64, "uniform"), (10, "latest", 0.0003, 64, "uniform"),
                            (30, "latest", 0.0003, 256, "uniform")],
    "thirteen_shisanshui_4p": [(8, "mixture", 0.001, 64, "uniform"), (44, "latest", 0.0003, 64, "regret"),
                               (10, "latest", 0.0003, 256, "regret")],
    "thirteen_shisanshui_3p": [(8, "mixture", 0.001, 64, "uniform"), (44, "latest", 0.0003, 64, "regret"),
                               (10, "latest", 0.0003, 256, "regret")],
}
#: the shipped policies with a PPO self-play config for the same table (``NAME`` -> ``..._ppo_..``)
PPO_TWINS = ["biji_classic_4p", "thirteen_classic_4p", "thirteen_western_2p", "thirteen_shisanshui_4p"]


def _ppo_twin(name: str) -> str:
    return name.replace("_4p", "_ppo_4p").replace("_2p", "_ppo_2p")


def test_every_packaged_config_loads():
    names = {path.stem for path in PACKAGED_CONFIGS.glob("*.yaml")}
    assert names == {"quickstart", "biji_fp_4p", "biji_offered_ppo_4p", "thirteen_offered_ppo_4p", *RECIPES,
                     *map(_ppo_twin, PPO_TWINS)}
    for name in names:
        config = load_config(PACKAGED_CONFIGS / f"{name}.yaml")
        assert config.total_timesteps > 0
        assert (config.algorithm == "ppo") == (name.endswith(("ppo_4p", "ppo_2p")) or name == "quickstart"), name


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_the_configs_of_the_shipped_policies_make_them_in_phases(name):
    config = load_config(PACKAGED_CONFIGS / f"{name}.yaml")
    fp = config.fictitious_play
    assert [(p.settings.rounds, p.settings.population, p.settings.learning_rate, p.settings.solver,
             p.settings.weighting) for p in fp.schedule()] == [(*phase[:3], f"solver:samples={phase[3]}", phase[4])
                                                              for phase in RECIPES[name]]
    assert fp.total_rounds == sum(phase[0] for phase in RECIPES[name])
    assert config.total_timesteps == fp.total_rounds * 1024
    assert all(p.settings.hands == 1024 for p in fp.schedule())
    if name in PPO_TWINS:
        ppo = load_config(PACKAGED_CONFIGS / f"{_ppo_twin(name)}.yaml")
        assert (ppo.algorithm, ppo.game, ppo.preset, ppo.num_players) == ("ppo", config.game, config.preset,
                                                                          config.num_players)
    header = (PACKAGED_CONFIGS / f"{name}.yaml").read_text().split("\ngame:")[0]
    assert f"pretrained:{name}" in header and f"splitpoker train configs/{name}.yaml" in header
    readme = (PACKAGED_CONFIGS.parent / "agents" / "pretrained" / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith(f"| `{name}` "))
    assert f"`splitpoker train configs/{name}.yaml`" in row and "--resume" not in row


def test_the_training_figures_time_the_ppo_self_play_configs():
    from splitpoker.envs.games import GAMES
    from splitpoker.train.speed import bench_config

    chosen = {game: bench_config(game).name for game in GAMES}
    assert chosen == {"thirteen": "thirteen_classic_ppo_4p.yaml", "biji": "biji_classic_ppo_4p.yaml"}
    assert all(load_config(bench_config(game)).algorithm == "ppo" for game in GAMES)
