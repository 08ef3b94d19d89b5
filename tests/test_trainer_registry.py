"""A trainer is one module and one :func:`~splitpoker.train.trainers.register_trainer` line.

The scratch trainer below (a :class:`~splitpoker.train.policy_trainer.PolicyTrainer`: its
rounds and settings are its own) is written to a package of its own and registered with its
config class, and nothing else changes: it trains a tiny run through
:func:`splitpoker.train.launch.train`, its section refuses an unknown key and is checked
across keys, its keys of another trainer's config (and theirs of its) are refused by name,
its resumable section may change on resume and the rest may not, and a run trained in two
parts ends with the weights of a run trained in one.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("stable_baselines3")

SCRATCH = '''
"""A scratch trainer: each round nudges the policy's weights and counts ``scratch.hands``."""

from __future__ import annotations

from typing import Any, ClassVar

import torch as th
from pydantic import Field

from splitpoker.train.config import TrainConfig
from splitpoker.train.policy_trainer import PolicyTrainer
from splitpoker.train.sections import Section


class ScratchSection(Section):
    """Rounds of a fixed nudge."""

    hands: int = Field(4, gt=0, description="hands a round counts")
    nudge: float = Field(0.01, gt=0, description="added to every weight each round")


class ScratchConfig(TrainConfig):
    placed_after: ClassVar[dict[str, str]] = {"scratch": "policy"}
    resumable: ClassVar[tuple[str, ...]] = ("scratch",)

    scratch: ScratchSection = Field(default_factory=ScratchSection)

    def trainer_checks(self) -> None:
        if self.total_timesteps % self.scratch.hands:
            raise ValueError(f"total_timesteps: {self.total_timesteps} is no whole number of rounds of "
                             f"scratch.hands = {self.scratch.hands}")


class ScratchTrainer(PolicyTrainer):
    config: ScratchConfig

    def algorithm_hparams(self) -> dict[str, Any]:
        return {f"scratch/{key}": value for key, value in self.config.scratch.model_dump().items()}

    def learn_until(self, bound: int) -> None:
        while self.step < bound:
            with th.no_grad():
                for weight in self.network.parameters():
                    weight.add_(self.config.scratch.nudge)
            self.step += self.config.scratch.hands
            self.boundary(self.step)
'''


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The scratch trainer's module in a package of its own, registered as ``scratch``."""
    from splitpoker.train import trainers

    package = tmp_path / "scratch_package"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "scratch_trainer.py").write_text(textwrap.dedent(SCRATCH))
    monkeypatch.syspath_prepend(str(tmp_path))
    trainers.register_trainer("scratch", "scratch_package.scratch_trainer:ScratchTrainer",
                              config="scratch_package.scratch_trainer:ScratchConfig")
    try:
        yield "scratch"
    finally:
        trainers.unregister_trainer("scratch")


def tiny(tmp: Path, **changes: Any) -> dict[str, Any]:
    return {"game": "biji", "algorithm": "scratch", "total_timesteps": 8, "progress": False,
            "output_dir": str(tmp / "runs"), "scratch": {"hands": 4},
            "policy": {"kind": "mlp", "net_arch": [8]},
            "eval": {"final_hands": 4, "hands": 4, "opponents": ["random"]}, **changes}


def train(tmp: Path, data: dict[str, Any], overrides: tuple[str, ...] = ()) -> Any:
    from splitpoker.train.launch import train as start

    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "scratch.yaml"
    path.write_text(yaml.safe_dump(data))
    return start(path, overrides, command="splitpoker train scratch.yaml", emit=lambda line: None)


def weights(run: Any) -> dict[str, Any]:
    from splitpoker.train.learner import checkpoint_params

    return checkpoint_params(run.run_dir / "checkpoints" / "final.zip")["policy"]


def test_a_registered_trainer_trains_and_writes_its_section(scratch: str, tmp_path: Path) -> None:
    run = train(tmp_path, tiny(tmp_path))
    assert run.steps == 8 and not run.interrupted and run.checkpoint.name == "final.zip"
    saved = yaml.safe_load((run.run_dir / "config.yaml").read_text())
    assert saved["algorithm"] == "scratch" and saved["scratch"] == {"hands": 4, "nudge": 0.01}
    assert list(saved).index("scratch") == list(saved).index("policy") + 1  # where the config class places it
    assert "ppo" not in saved and "fictitious_play" not in saved and "n_envs" not in saved


@pytest.mark.parametrize(("change", "expected"), [
    ({"scratch": {"handz": 2}}, "unknown key 'scratch.handz'; allowed keys of scratch: hands, nudge"),
    ({"scratch": {"hands": 0}}, "scratch.hands: Input should be greater than 0"),
    ({"scratch": {"hands": 3}}, "total_timesteps: 8 is no whole number of rounds of scratch.hands = 3"),
    ({"ppo": {"n_steps": 8}}, "ppo does not apply to algorithm scratch; it does not use n_envs, vec_env"),
    ({"colour": "red"}, "unknown key 'colour'; allowed keys: game, num_players"),
])
def test_a_registered_trainers_section_is_validated(scratch: str, tmp_path: Path, change: dict[str, Any],
                                                   expected: str) -> None:
    from splitpoker.train.config import load_config_dict

    with pytest.raises(ValueError) as raised:
        load_config_dict(tiny(tmp_path, **change))
    assert expected in str(raised.value) and "\n" not in str(raised.value), str(raised.value)


def test_the_other_trainers_refuse_its_section(scratch: str) -> None:
    from splitpoker.train.config import load_config_dict

    with pytest.raises(ValueError, match="scratch does not apply to algorithm ppo; it does not use fictitious_play, "
                                         "scratch"):
        load_config_dict({"game": "biji", "total_timesteps": 8, "scratch": {}})


def test_a_registered_trainer_resumes_to_the_weights_of_one_run(scratch: str, tmp_path: Path) -> None:
    import torch as th

    from splitpoker.train.launch import resume_run

    straight = train(tmp_path / "straight", tiny(tmp_path / "straight", total_timesteps=12))
    first = train(tmp_path / "parts", tiny(tmp_path / "parts"))
    assert first.steps == 8
    with pytest.raises(ValueError, match=r"finished at step 8; raise it with --set total_timesteps=N"):
        resume_run(first.run_dir, [], "again", emit=lambda line: None)
    with pytest.raises(ValueError, match=r"--resume cannot change seed; a resumed run may change: total_timesteps, "
                                         r".*, scratch$"):
        resume_run(first.run_dir, ["total_timesteps=12", "seed=1"], "again", emit=lambda line: None)
    resumed = resume_run(first.run_dir, ["total_timesteps=12", "scratch.nudge=0.01"], "again", emit=lambda line: None)
    assert resumed.steps == 12 and not resumed.interrupted
    ours, theirs = weights(resumed), weights(straight)
    assert ours.keys() == theirs.keys() and all(th.equal(ours[k], theirs[k]) for k in ours)
