"""A plain install, without the ``[train]`` extra: the rules, the environments, the agents that
learn nothing and evaluation work; a learned agent, training and the training bench figures
are one line naming the extra, never a traceback.

The packages of the extra are not uninstalled from this environment: each check runs in a
fresh interpreter whose first meta-path finder refuses to import them, as if they were
missing.

The extras together: no extra but ``[rllib]`` changes a version that ``[train]`` installs
(read off pyproject.toml, and in the slow suite from pip's resolutions), and the slow suite
installs the extras its tests need.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from splitpoker.agents.loading import TRAINING_PACKAGES, MissingExtra, training_extra

#: put first on ``sys.meta_path``: the packages of the [train] extra cannot be imported
BLOCKER = f"""
import sys

class _Missing:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {TRAINING_PACKAGES!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, _Missing())
"""
CLI = BLOCKER + "from splitpoker.train.cli import main\nsys.exit(main(sys.argv[1:]))\n"
EXTRA = "pip install 'splitpoker[train]' (torch is not installed)"


def _python(code: str, *args: str, cwd: Path, expect: int = 0) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, env=_env())
    assert done.returncode == expect, f"{args} exited {done.returncode}, not {expect}\n{done.stdout}\n{done.stderr}"
    return done


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "SPLITPOKER_DEBUG"}


def _cli(*args: str, cwd: Path, expect: int = 0) -> subprocess.CompletedProcess:
    return _python(CLI, *args, cwd=cwd, expect=expect)


def _one_line(done: subprocess.CompletedProcess, prefix: str) -> str:
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"{prefix}: error: ") and EXTRA in lines[0], lines[0]
    return lines[0]


def test_the_blocker_hides_the_training_packages(tmp_path):
    code = BLOCKER + "import importlib\nfor name in sys.argv[1:]:\n" \
        "    try:\n        importlib.import_module(name)\n    except ModuleNotFoundError as e:\n" \
        "        print(e.name)\n"
    done = _python(code, "torch", "stable_baselines3.common", "sb3_contrib", "tensorboard", "pydantic", "numpy",
                   cwd=tmp_path)
    assert done.stdout.split() == ["torch", "stable_baselines3", "sb3_contrib", "tensorboard", "pydantic"]


def test_without_the_extra_the_environments_and_non_learned_agents_work(tmp_path):
    code = BLOCKER + """
import numpy as np
import splitpoker.envs
from splitpoker.agents import load_agent
from splitpoker.envs import biji_v0, thirteen_v0

for module in (thirteen_v0, biji_v0):
    env = module.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        valid = np.flatnonzero(observation["action_mask"])
        env.step(None if terminated or truncated else int(rng.choice(valid)))
for spec in ("random", "greedy", "heuristic", "solver:samples=4", "mixture:greedy;random"):
    load_agent(spec, "thirteen", num_players=4, seed=0)
for spec in ("pretrained:thirteen_classic_4p", "solver:samples=4,opponent=checkpoint:runs/x.zip"):
    try:
        load_agent(spec, "thirteen", num_players=4, seed=0)
    except ValueError as error:
        print(error)
loaded = sorted(m for m in sys.modules if m.partition(".")[0] in ("torch", "stable_baselines3", "sb3_contrib"))
print(loaded)
"""
    lines = _python(code, cwd=tmp_path).stdout.splitlines()
    assert lines == ["pretrained:thirteen_classic_4p needs the training extra: " + EXTRA,
                     "checkpoint:runs/x.zip needs the training extra: " + EXTRA, "[]"]


def test_without_the_extra_the_non_learned_commands_run(tmp_path):
    assert "wheel" in _cli("rules", "thirteen", cwd=tmp_path).stdout
    _cli("solve", "biji", "BJ 2c 3c 4c 5d 6d 7d 8h 9h", "--samples", "8", "--top", "2", cwd=tmp_path)
    _cli("eval", "biji", "--agents", "greedy,random", "--hands", "4", "--no-regret", "--no-plots",
         "--out", str(tmp_path / "report"), cwd=tmp_path)
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert summary
    # the bench figures that need no torch run; a prefix that would take a training figure says they are skipped
    done = _cli("bench", "--quick", "--only", "biji.mask_ms", "--json", cwd=tmp_path)
    assert [f["name"] for f in json.loads(done.stdout)["figures"]] == ["biji.mask_ms"]
    assert done.stderr == ""
    done = _cli("bench", "--quick", "--only", "biji.tables,biji.t", "--json", cwd=tmp_path)
    assert [f["name"] for f in json.loads(done.stdout)["figures"]] == ["biji.tables_score_us"]
    (warning,) = done.stderr.splitlines()
    assert warning.startswith("splitpoker bench: warning: skipped the training figures (") and EXTRA in warning


@pytest.mark.parametrize("args,prefix", [
    (("eval", "biji", "--agents", "pretrained:biji_classic_4p,greedy", "--hands", "4", "--no-regret", "--no-plots",
      "--out", "report"), "splitpoker eval"),
    (("exploit", "biji", "--agent", "checkpoint:runs/x.zip", "--samples", "4", "--hands", "2"), "splitpoker exploit"),
    (("solve", "biji", "BJ 2c 3c 4c 5d 6d 7d 8h 9h", "--opponent", "pretrained:biji_classic_4p"), "splitpoker solve"),
    (("train", "quickstart"), "splitpoker train"),
    (("bench", "--quick", "--only", "biji.policy_ms"), "splitpoker bench"),
])
def test_without_the_extra_a_learned_path_is_one_line_naming_it(tmp_path, args, prefix):
    line = _one_line(_cli(*args, cwd=tmp_path, expect=2), prefix)
    assert "Traceback" not in line
    assert not (tmp_path / "runs").exists() and not (tmp_path / "report").exists()


def test_the_guard_turns_only_a_missing_package_of_the_extra_into_one_line(monkeypatch):
    import splitpoker.agents.loading as loading

    with pytest.raises(ImportError), training_extra("x"):  # installed (here), so broken, not missing
        raise ImportError("cannot import name 'gone' from 'torch'", name="torch")
    monkeypatch.setattr(loading, "_installed", lambda name: False)
    with pytest.raises(MissingExtra, match=r"^x needs the training extra: pip install 'splitpoker\[train\]' "
                                           r"\(sb3_contrib is not installed\)$"), training_extra("x"):
        raise ModuleNotFoundError("No module named 'sb3_contrib.common'", name="sb3_contrib.common")
    with pytest.raises(ModuleNotFoundError), training_extra("x"):  # not a package of the extra
        raise ModuleNotFoundError("No module named 'nothing_here'", name="nothing_here")


def test_the_bench_names_every_training_figure():
    from splitpoker.train.commands import TRAINING_FIGURES
    from splitpoker.train.speed import training_figures

    names = {f.name.partition(".")[2] for f in training_figures(quick=True)}
    assert names == set(TRAINING_FIGURES)


# ---------------------------------------------------------------------- the extras together

ROOT = Path(__file__).resolve().parents[1]
#: the extras the slow suite's tests need (the Ray backend, the outside RL libraries, RLlib)
SLOW_EXTRAS = {"dev", "ray", "ecosystem", "rllib"}


def _extras() -> dict[str, list[Any]]:
    """pyproject's extras, each as its requirements (``packaging`` Requirements), the
    project's own extras that one names (``splitpoker[train]``) expanded into theirs."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    raw = {extra: [Requirement(text) for text in texts] for extra, texts in project["optional-dependencies"].items()}

    def expand(extra: str, seen: tuple[str, ...]) -> list[Any]:
        out = []
        for requirement in raw[extra]:
            if requirement.name != project["name"]:
                out.append(requirement)
                continue
            for inner in sorted(set(requirement.extras) - set(seen)):
                out += expand(inner, (*seen, extra))
        return out

    return {extra: expand(extra, ()) for extra in raw}


def test_rllib_has_an_extra_of_its_own_and_no_other_extra_holds_gymnasium_back():
    """RLlib pins gymnasium (ray 2.60: 1.2.2, older than the release [train] installs), so
    ``ray[rllib]`` is in the ``[rllib]`` extra alone; no other extra gives gymnasium an upper
    bound."""
    extras = _extras()
    assert any(r.name == "ray" and "rllib" in r.extras for r in extras["rllib"])
    for extra, requirements in extras.items():
        if extra == "rllib":
            continue
        assert not any(r.name == "ray" and "rllib" in r.extras for r in requirements), f"[{extra}] holds ray[rllib]"
        for requirement in requirements:
            if requirement.name == "gymnasium":
                assert all(s.operator in (">=", ">", "!=") for s in requirement.specifier), (extra, str(requirement))


def test_train_holds_back_what_the_ecosystem_extra_holds_back():
    """Tianshou (``[ecosystem]``) needs virtualenv 20, which needs filelock below 4; torch
    (``[train]``) needs filelock of any release. ``[train]`` holds it below 4 too, so that
    adding ``[ecosystem]`` changes no version that ``[train]`` installed."""
    extras = _extras()
    if not any(r.name == "tianshou" for r in extras["ecosystem"]):
        pytest.skip("[ecosystem] holds no tianshou")
    locks = [r for r in extras["train"] if r.name == "filelock"]
    assert locks, "[train] does not hold filelock below 4, as [ecosystem]'s tianshou needs"
    assert not locks[0].specifier.contains("4.0.0") and locks[0].specifier.contains("3.32.7")


def test_the_slow_suite_installs_the_extras_its_tests_need():
    import re

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    extras = _extras()
    for target in ("test-slow", "test-all"):
        recipe = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.M)
        assert recipe, f"no {target} target in the Makefile"
        installed = re.search(r'pip install .*-e "\.\[([^\]]+)\]"', recipe.group(1))
        assert installed, f"{target} installs no extras"
        names = set(installed.group(1).split(","))
        assert SLOW_EXTRAS <= names <= set(extras), (target, sorted(names))


@pytest.mark.slow
def test_no_extra_but_rllib_changes_a_version_that_train_resolves(tmp_path):
    """pip's resolutions (``--dry-run``, from scratch): every extra but ``[rllib]``, all
    together, keeps the version of every package ``[train]`` resolves; ``[rllib]`` changes
    gymnasium's only. Skipped when the package index cannot be reached."""
    from packaging.utils import canonicalize_name

    probe = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "gymnasium"], capture_output=True,
                           text=True, timeout=300, stdin=subprocess.DEVNULL)
    if probe.returncode != 0:
        pytest.skip(f"the package index cannot be reached, so pip cannot resolve the extras: {probe.stderr.strip()}")

    def resolve(extras: str) -> dict[str, str]:
        report = tmp_path / f"{extras.replace(',', '_')}.json"
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                               "--report", str(report), f"{ROOT}[{extras}]"], capture_output=True, text=True,
                              timeout=1200, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, f"pip cannot resolve [{extras}]:\n{done.stderr}"
        return {canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"]
                for item in json.loads(report.read_text(encoding="utf-8"))["install"]}

    train = resolve("train")
    every = resolve(",".join(sorted(set(_extras()) - {"rllib"})))
    assert {name: (version, every.get(name)) for name, version in train.items() if every.get(name) != version} == {}
    rllib = resolve("train,rllib")
    assert {name for name, version in train.items() if rllib.get(name) != version} <= {"gymnasium"}
