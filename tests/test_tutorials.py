"""The tutorials of ``docs/tutorials/`` run as they stand: each script with ``--quick``, in
a subprocess started in a temporary working directory (where any run folder goes), exits
with status 0 and prints what its text says it prints. The training tutorial is slow
(``make test-slow``); the others take a few seconds each."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIALS = ROOT / "docs" / "tutorials"


def run_tutorial(name: str, cwd: Path, *args: str, timeout: float = 300) -> str:
    """The standard output of ``python docs/tutorials/<name> --quick``, run in ``cwd``;
    the test fails, showing both streams, unless it exits with status 0."""
    done = subprocess.run([sys.executable, str(TUTORIALS / name), "--quick", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{name} exited with {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_every_tutorial_is_listed_in_the_index() -> None:
    scripts = sorted(p.name for p in TUTORIALS.glob("[0-9][0-9]_*.py"))
    index = (TUTORIALS / "index.md").read_text(encoding="utf-8")
    assert len(scripts) == 6
    for script in scripts:
        assert f"({script})" in index, f"{script} is not linked from docs/tutorials/index.md"


def test_policy_gradient_tutorial_improves_against_random(tmp_path: Path) -> None:
    out = run_tutorial("01_policy_gradient.py", tmp_path)
    figures = dict(re.findall(r"^(before|after) training:\s+against random\s+policy\s+([+-][\d.]+)", out, re.M))
    assert set(figures) == {"before", "after"}, out
    assert float(figures["after"]) > float(figures["before"]), out
    assert "update   60: mean payoff of the sampled splits against random" in out


def test_custom_agent_tutorial_and_the_same_spec_on_the_command_line(tmp_path: Path) -> None:
    out = run_tutorial("02_custom_agent.py", tmp_path)
    spec = "tutorials.02_custom_agent:CandidateAgent"
    assert f"{spec} -> <CandidateAgent candidate>" in out
    assert f"best-response gain of {spec}: " in out and "best-response gain of greedy: " in out
    shown = re.search(r"^eval vs greedy: candidate ([+-][\d.]+) per hand .* over 40 deals$", out, re.M)
    assert shown, out
    # the command the docstring gives, with the --quick size: the same figure
    done = subprocess.run(
        [sys.executable, "-c", "from splitpoker.train.cli import main; raise SystemExit(main())", "eval", "biji",
         "--agents", f"{spec},greedy", "--hands", "40", "--no-regret", "--no-plots", "--json",
         "--out", str(tmp_path / "eval")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "docs")})
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert f"{summary['agents'][0]['mean']:+.2f}" == shown.group(1)


@pytest.mark.slow
def test_training_tutorial_reads_tensorboard_and_loads_the_checkpoint(tmp_path: Path) -> None:
    out = run_tutorial("03_train_and_tensorboard.py", tmp_path)
    assert re.search(r"^run folder: runs/biji__quickstart__0__\S+ \(1024 hands of self-play\)$", out, re.M), out
    assert re.search(r"^  charts/mean_payoff\s+512: \S+, 1024: \S+$", out, re.M), out
    assert re.search(r"^  imitation/accuracy\s+1: ", out, re.M), out
    checkpoint = re.search(r"^checkpoint: (\S+)$", out, re.M)
    assert checkpoint and (tmp_path / checkpoint.group(1)).is_file(), out
    assert "the checkpoint against greedy: " in out


def test_gymnasium_tutorial(tmp_path: Path) -> None:
    out = run_tutorial("04_gymnasium.py", tmp_path)
    assert "ArrangeVectorEnv: 32 tables, autoreset SAME_STEP" in out
    assert "played 128 hands" in out
    # gymnasium's vector RecordEpisodeStatistics honours SAME_STEP autoreset from 1.4.0 on
    fixed = tuple(int(part) for part in re.findall(r"\d+", gymnasium.__version__)[:2]) >= (1, 4)
    assert ("the rewards, as expected" if fixed else "it ignores SAME_STEP autoreset") in out, out
    assert "SelfPlayEnv passes gymnasium's check_env" in out


def eval_against_greedy(policy: Path, cwd: Path) -> dict[str, object]:
    """The ``splitpoker eval`` summary of ``checkpoint:policy`` against greedy, a few Biji hands."""
    done = subprocess.run(
        [sys.executable, "-c", "from splitpoker.train.cli import main; raise SystemExit(main())", "eval", "biji",
         "--agents", f"checkpoint:{policy},greedy", "--hands", "8", "--no-regret", "--no-plots", "--json",
         "--out", str(cwd / "eval")], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    summary: dict[str, object] = json.loads(done.stdout)
    return summary


@pytest.mark.parametrize("name", ["05_offered_ppo.py", "06_maskable_ppo.py"])
def test_offered_tutorials_train_export_and_the_policy_plays_in_eval(name: str, tmp_path: Path) -> None:
    out = run_tutorial(name, tmp_path, "--out", "quick.zip")
    assert re.search(r"^trained .* hands in [\d.]+ CPU minutes; mean payoff of the last [\d,]+ hands against "
                     r"greedy: [+-][\d.]+$", out, re.M), out
    assert "exported: quick.zip (play it as checkpoint:quick.zip)" in out, out
    summary = eval_against_greedy(tmp_path / "quick.zip", tmp_path)
    assert summary["agents"][0]["spec"] == f"checkpoint:{tmp_path / 'quick.zip'}"  # type: ignore[index]
