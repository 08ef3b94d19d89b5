"""A clean install: the wheel built from this tree, installed (not editable) in a fresh virtual
environment, runs every subcommand from a folder outside the tree.

Slow (about two minutes on two cores, most of it pip installing the dependencies): the
wheel is built from a copy of the tree with pip's build isolation. The fresh environment
gets the wheel alone first (no torch): the rules, the solver, evaluation and the bench
figures that need no torch run, and training or a learned agent is one line naming the
``[train]`` extra. Then it gets the CPU build of torch (the version this environment has,
as ``make install`` does) and the ``[train]`` and ``[play]`` extras, from pip's configured
index, and runs the rest.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.request
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: what the copy of the tree that the wheel is built from leaves out
SKIP = (".git", ".venv", ".venv-*", "runs", "build", "dist", "*.egg-info", "__pycache__", ".cache", "artifacts",
        ".*_cache", ".hypothesis")
THIRTEEN_HAND = "As Ks Qs Js Ts 9h 9d 4c 4d 7s 2h 3h 5c"
#: a training run of a few seconds from the packaged quickstart config
TINY_TRAIN = ("total_timesteps=64", "n_envs=2", "ppo.n_steps=32", "ppo.batch_size=32", "ppo.n_epochs=1",
              "imitation.enabled=false", "eval.every=0", "eval.final_hands=2", "eval.br_hands=0",
              "eval.br_final_hands=0", "checkpoint.every=0", "progress=false", "output_dir=runs")


def _env() -> dict[str, str]:
    """This process's environment without anything that would import from the source tree."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["SPLITPOKER_DEBUG"] = "1"  # a bug shows its traceback in the failure message
    return env


def _run(args: list[str | Path], cwd: Path, timeout: float = 300, expect: int = 0) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == expect, (
        f"{' '.join(map(str, args))} exited {done.returncode}, not {expect}\n"
        f"stdout:\n{done.stdout[-4000:]}\nstderr:\n{done.stderr[-4000:]}")
    return done


def _build_wheel(tmp: Path) -> Path:
    source = tmp / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*SKIP))
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", tmp / "dist", source],
         cwd=tmp, timeout=600)
    (wheel,) = (tmp / "dist").glob("splitpoker-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    configs = {Path(n).name for n in names if n.startswith("splitpoker/configs/")}
    assert configs == {p.name for p in (ROOT / "configs").glob("*.yaml")}, "the configs ship as package data"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "the wheel carries the LICENSE"
    assert not any(n.startswith(("tests/", "configs/", "splitpoker/tests/")) for n in names)
    return wheel


@pytest.mark.slow
def test_wheel_installs_and_runs_every_command(tmp_path):
    wheel = _build_wheel(tmp_path)
    venv = tmp_path / "venv"
    try:
        _run([sys.executable, "-m", "venv", venv], cwd=tmp_path)
        python, cli = venv / "bin" / "python", venv / "bin" / "splitpoker"
        work = tmp_path / "work"  # outside the tree: nothing can be imported from the source
        work.mkdir()
        _run([python, "-m", "pip", "install", "--quiet", wheel], cwd=tmp_path, timeout=900)
        _without_the_train_extra(python, cli, work)

        torch = "torch==" + version("torch").split("+")[0]  # the CPU build, before anything pulls another
        _run([python, "-m", "pip", "install", "--quiet", torch, f"{wheel}[train,play]"], cwd=tmp_path, timeout=900)
        where = _run([python, "-c", "import splitpoker.train.config as c; print(c.PACKAGED_CONFIGS)"], cwd=work)
        assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout
        _run([cli, "eval", "biji", "--agents", "pretrained:biji_classic_4p,greedy", "--hands", "2", "--no-regret",
              "--no-plots", "--out", "report2"], cwd=work)
        bench = json.loads(_run([cli, "bench", "--quick", "--only", "biji.policy_ms", "--json"], cwd=work).stdout)
        assert [f["name"] for f in bench["figures"]] == ["biji.policy_ms"]

        # a packaged config by name; a name that is none is one line listing them
        args = [cli, "train", "quickstart", *(a for s in TINY_TRAIN for a in ("--set", s)), "--json"]
        result = json.loads(_run(args, cwd=work).stdout)
        run_dir = work / result["run_dir"]
        assert run_dir.name.startswith("biji__quickstart__")
        stamp = {"version": version("splitpoker")}  # no commit: an installed package is no checkout
        assert json.loads((run_dir / "splitpoker.json").read_text()) == {"started": stamp, "resumes": []}
        with zipfile.ZipFile(run_dir / "checkpoints" / "final.zip") as archive:
            assert json.loads(archive.read("splitpoker.json"))["splitpoker"] == stamp
        error = _run([cli, "train", "no_such_config"], cwd=work, expect=2).stderr
        assert len(error.splitlines()) == 1 and "packaged configs: " in error and "quickstart" in error

        _play_starts(cli, work)
    finally:
        shutil.rmtree(venv, ignore_errors=True)  # 1.5 GB, mostly torch


def _without_the_train_extra(python: Path, cli: Path, work: Path) -> None:
    """The wheel alone: no torch, and every command that needs none runs; training and a
    learned agent are one line naming the extra."""
    missing = "import importlib.util as u; print([n for n in ('torch', 'stable_baselines3', 'sb3_contrib', " \
              "'tensorboard', 'pydantic') if u.find_spec(n)])"
    assert _run([python, "-c", missing], cwd=work).stdout.strip() == "[]", "the wheel alone pulls no training package"
    assert _run([cli, "--version"], cwd=work).stdout.strip() == f"splitpoker {version('splitpoker')}"
    assert "wheel" in _run([cli, "rules", "thirteen"], cwd=work).stdout
    _run([cli, "solve", "thirteen", THIRTEEN_HAND, "--samples", "4", "--top", "2"], cwd=work)
    _run([cli, "solve", "biji", "BJ 2c 3c 4c 5d 6d 7d 8h 9h", "--samples", "8", "--json"], cwd=work)
    _run([cli, "eval", "thirteen", "--agents", "heuristic,greedy", "--hands", "4", "--regret-samples", "4",
          "--out", "report"], cwd=work)
    assert (work / "report" / "summary.json").is_file() and (work / "report" / "payoff.png").is_file()
    _run([cli, "exploit", "biji", "--agent", "greedy", "--samples", "4", "--hands", "4"], cwd=work)
    bench = json.loads(_run([cli, "bench", "--quick", "--only", "biji.mask_ms", "--json"], cwd=work).stdout)
    assert [f["name"] for f in bench["figures"]] == ["biji.mask_ms"]
    extra = "pip install 'splitpoker[train]' (torch is not installed)"
    for args in (["train", "quickstart"], ["eval", "biji", "--agents", "pretrained:biji_classic_4p,greedy",
                                           "--hands", "2", "--no-regret", "--no-plots", "--out", "report2"]):
        error = _run([cli, *args], cwd=work, expect=2).stderr
        assert len(error.splitlines()) == 1 and extra in error, error
    assert not (work / "runs").exists() and not (work / "report2").exists()


def _play_starts(cli: Path, work: Path) -> None:
    """``splitpoker play`` starts on a free port and serves its page; Ctrl-C stops it (status 130)."""
    server = subprocess.Popen([str(cli), "play", "biji", "--seed", "0", "--port", "0"], cwd=work, env=_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines: list[str] = []
        while not lines or "http://" not in lines[-1]:
            line = server.stdout.readline()  # type: ignore[union-attr]
            assert line, f"play exited {server.wait()} before serving: {''.join(lines)}{server.stderr.read()}"  # type: ignore[union-attr]
            lines.append(line)
        url = re.search(r"http://\S+", lines[-1]).group(0)  # type: ignore[union-attr]
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
        with direct.open(url, timeout=30) as response:
            assert response.status == 200 and b"<html" in response.read()
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 130
        assert server.stderr.read().strip().endswith("splitpoker play: interrupted")  # type: ignore[union-attr]
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


# --------------------------------------------------------------------------- fast: configs by name, stamps
def test_a_bare_name_finds_the_packaged_config_and_a_path_wins(tmp_path, monkeypatch):
    from splitpoker.train.config import PACKAGED_CONFIGS, find_config, packaged_configs

    assert set(packaged_configs()) == {p.stem for p in (ROOT / "configs").glob("*.yaml")}
    assert find_config("quickstart") == PACKAGED_CONFIGS / "quickstart.yaml"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quickstart").write_text("game: biji\n")
    assert find_config("quickstart") == Path("quickstart")  # an existing file of that name wins
    assert find_config("configs/missing.yaml") == Path("configs/missing.yaml")  # reading it says it is missing
    assert find_config("missing.yaml") == Path("missing.yaml")
    with pytest.raises(ValueError, match=r"^config 'quickstrat' is neither a file nor a packaged config; "
                                         r"packaged configs: biji_classic_4p, .*quickstart"):
        find_config("quickstrat")


def test_train_names_the_packaged_configs_when_a_name_is_unknown(tmp_path, monkeypatch, capsys):
    from splitpoker.train.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["train", "quickstrat"]) == 2
    error = capsys.readouterr().err
    assert len(error.splitlines()) == 1 and "packaged configs: " in error and "quickstart" in error
    assert not (tmp_path / "runs").exists()


def test_the_stamp_holds_the_version_and_a_checkout_commit():
    from splitpoker.agents.version import __version__, stamp

    found = stamp()
    assert found["version"] == __version__ == version("splitpoker")
    assert set(found) <= {"version", "commit"}
    if "commit" in found:  # run from this checkout (git present)
        assert re.fullmatch(r"[0-9a-f]{4,40}(-dirty)?", found["commit"]), found


def test_runs_and_checkpoints_are_stamped_and_old_checkpoints_still_load(tmp_path):
    from splitpoker.agents import load_agent
    from splitpoker.agents.learned.checkpoint import PRETRAINED_DIR, STAMP_KEY, read_meta
    from splitpoker.agents.version import stamp
    from splitpoker.train.launch import resume_run
    from tests.test_bad_checkpoints import rewrite
    from tests.test_train import run, tiny

    first = run(tmp_path, tiny(tmp_path, total_timesteps=64))
    record = json.loads((first.run_dir / "splitpoker.json").read_text())
    assert record == {"started": stamp(), "resumes": []}
    assert read_meta(first.checkpoint)[STAMP_KEY] == stamp()
    second = resume_run(first.run_dir, ["total_timesteps=128"], "again", emit=lambda line: None)
    record = json.loads((first.run_dir / "splitpoker.json").read_text())
    assert record == {"started": stamp(), "resumes": [stamp()]}
    assert read_meta(second.checkpoint)[STAMP_KEY] == stamp()
    # a run folder from before the stamp gets one listing its resumes
    (first.run_dir / "splitpoker.json").unlink()
    resume_run(first.run_dir, ["total_timesteps=192"], "again", emit=lambda line: None)
    assert json.loads((first.run_dir / "splitpoker.json").read_text()) == {"resumes": [stamp()]}
    # a policy file from before the stamp (a shipped one with its stamp taken out) still loads
    shipped = sorted(PRETRAINED_DIR.glob("*.zip"))[0]
    old = tmp_path / "unstamped.zip"
    rewrite(shipped, old, lambda meta: meta.pop(STAMP_KEY))
    meta = read_meta(old)
    assert STAMP_KEY not in meta and STAMP_KEY in read_meta(shipped)
    load_agent(f"checkpoint:{old}", game=meta["game"], num_players=meta["num_players"])
