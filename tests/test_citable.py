"""Reports that can be cited and decision times that measure deciding.

* Every report (``eval``'s ``summary.json``, ``exploit --json``, ``benchmark.json``, the
  bench JSON) records the splitpoker version and commit and the versions of Python, NumPy,
  numba, torch, gymnasium and PettingZoo; the reports of agents record the sha256 of each
  policy file they play.
* A one-time warm-up (compiling, caches) is measured apart from the decision times, and
  changes no deal, decision or payoff.
* A wheel records the commit it was built from, and an installed wheel's stamp names it.
* An interval the deals cannot give is said so, not printed as zeros.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import zipfile
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from splitpoker.agents import Agent, load_agent
from splitpoker.envs.games import make_game
from splitpoker.envs.table import deal
from splitpoker.eval import runner
from splitpoker.eval.duplicate import play_group
from splitpoker.eval.runner import EvalSettings, run
from splitpoker.train.cli import main

ROOT = Path(__file__).resolve().parents[1]
#: the packages every report names, with the distribution each version is read from
PACKAGES = {"numpy": "numpy", "numba": "numba", "torch": "torch", "gymnasium": "gymnasium",
            "pettingzoo": "pettingzoo"}
#: how long the first decision in a process of :class:`SlowFirst` takes beyond greedy's
FIRST_S = 0.4


class SlowFirst(Agent):
    """Greedy, except that the first decision any instance makes in this process takes
    :data:`FIRST_S` seconds of CPU time more, as a first decision that compiles its kernels does."""

    pending = True

    def __init__(self, game: Any, num_players: int = 4, seed: Any = None) -> None:
        self.inner = load_agent("greedy", game, num_players=num_players)
        self.name = "slow-first"

    def act_batch(self, views: Any) -> np.ndarray:
        if SlowFirst.pending:
            SlowFirst.pending = False
            end = time.process_time() + FIRST_S
            while time.process_time() < end:  # busy, as compiling is: timed by the clock and the CPU alike
                pass
        return self.inner.act_batch(views)


class Unseeded(Agent):
    """Draws among the valid splits from a generator of its own that ``seed`` does not
    restart: every draw it makes, a warm-up's too, moves its later decisions."""

    def __init__(self, game: Any, num_players: int = 4, seed: Any = None) -> None:
        self.rng = np.random.default_rng(7)
        self.name = "unseeded"

    def act_batch(self, views: Any) -> np.ndarray:
        return np.array([view.allowed[self.rng.integers(len(view.allowed))] for view in views], dtype=np.int64)


class SelfCopied(Unseeded):
    """:class:`Unseeded`, whose copy is itself: a warm-up of a copy is one of the agent."""

    def __deepcopy__(self, memo: Any) -> SelfCopied:
        return self


class Uncopyable(Unseeded):
    """:class:`Unseeded`, which refuses to be copied."""

    def __deepcopy__(self, memo: Any) -> Uncopyable:
        raise TypeError("cannot copy")


def _reset_slow_first() -> None:
    """Make the next decision of a :class:`SlowFirst` slow again: that of the class the spec
    ``tests.test_citable:SlowFirst`` imports (pytest may have imported this file under
    another name)."""
    importlib.import_module("tests.test_citable").SlowFirst.pending = True


def _cli_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    status = main(argv)
    out = capsys.readouterr().out
    assert status == 0, out
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def policy_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A policy file of our own: a copy of a shipped one, played as ``checkpoint:PATH``."""
    from splitpoker.agents.learned.checkpoint import pretrained_path

    path = tmp_path_factory.mktemp("policy") / "mine.zip"
    shutil.copyfile(pretrained_path("biji_classic_4p"), path)
    return path


def _report(kind: str, tmp: Path, capsys: pytest.CaptureFixture[str], policy: Path) -> dict[str, Any]:
    """The JSON document of one kind of report, from the command line."""
    if kind == "eval":
        return _cli_json(["eval", "biji", "--agents", f"pretrained:biji_classic_4p,checkpoint:{policy}",
                          "--hands", "2", "--no-regret", "--no-plots", "--json", "--out", str(tmp / "eval")], capsys)
    if kind == "exploit":
        return _cli_json(["exploit", "biji", "--agent", "mixture:pretrained:biji_classic_4p;greedy", "--samples", "2",
                          "--hands", "1", "--json"], capsys)
    if kind == "benchmark":
        return _cli_json(["benchmark", "--protocol", "v1", "--quick", "--tracks", "thirteen_western_2p", "--json",
                          "--out", str(tmp / "benchmark")], capsys)
    assert kind == "bench"
    return _cli_json(["bench", "--quick", "--only", "biji.mask_ms", "--json"], capsys)


# --------------------------------------------------------------------------- the version record

@pytest.mark.parametrize("kind", ["eval", "exploit", "benchmark", "bench"])
def test_every_report_records_the_version_commit_and_package_versions(kind, tmp_path, capsys, policy_copy):
    made = _report(kind, tmp_path, capsys, policy_copy)["splitpoker"]
    assert made["version"] == installed_version("splitpoker")
    environment = made.get("environment")
    assert environment is not None, f"the {kind} report records no package versions: {made}"
    expected = {"python": platform.python_version()}
    for name, distribution in PACKAGES.items():
        expected[name] = installed_version(distribution)
    assert environment == expected
    if shutil.which("git") and (ROOT / ".git").exists():
        assert made.get("commit"), f"a report made from a checkout names its commit: {made}"


def test_the_version_is_the_projects_and_the_summary_names_what_ran(tmp_path, capsys, policy_copy):
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    with (ROOT / "pyproject.toml").open("rb") as handle:
        declared = tomllib.load(handle)["project"]["version"]
    from splitpoker.agents.version import version

    assert version() == declared, "the installed metadata is stale: reinstall (pip install --no-deps -e .)"
    _report("eval", tmp_path, capsys, policy_copy)
    text = (tmp_path / "eval" / "summary.md").read_text(encoding="utf-8")
    assert f"Measured by splitpoker {declared}" in text
    assert f"numba {installed_version('numba')}" in text and f"NumPy {installed_version('numpy')}" in text
    assert hashlib.sha256(policy_copy.read_bytes()).hexdigest() in text


# --------------------------------------------------------------------------- the weights' hashes

def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", ["eval", "exploit", "benchmark"])
def test_each_policy_file_played_is_recorded_by_its_sha256(kind, tmp_path, capsys, policy_copy):
    from splitpoker.agents.learned.checkpoint import pretrained_path

    report = _report(kind, tmp_path, capsys, policy_copy)
    played = report.get("weights")
    assert played is not None, f"the {kind} report records no weights"
    shipped = {"eval": "biji_classic_4p", "exploit": "biji_classic_4p", "benchmark": "thirteen_western_2p"}[kind]
    entry = played[f"pretrained:{shipped}"]
    assert entry["sha256"] == _sha256(pretrained_path(shipped))
    assert entry["file"] == f"{shipped}.zip" and entry["bytes"] == pretrained_path(shipped).stat().st_size
    if kind == "eval":  # a file of one's own, by the path given
        mine = played[f"checkpoint:{policy_copy}"]
        assert mine["sha256"] == _sha256(policy_copy) and mine["file"] == str(policy_copy)
        assert len(played) == 2
    if kind == "exploit":  # a policy nested in a spec (a mixture's member, the best response's opponent)
        assert list(played) == [f"pretrained:{shipped}"]


def test_weights_are_found_through_run_folders_and_never_fail(tmp_path, policy_copy):
    from splitpoker.agents.learned.policy_files import weights

    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    shutil.copyfile(policy_copy, run_dir / "checkpoints" / "step_64.zip")
    found = weights([f"solver:samples=4,opponent=(checkpoint:{run_dir})", "greedy", "checkpoint:/no/such/file.zip"])
    assert found[f"checkpoint:{run_dir}"]["sha256"] == _sha256(policy_copy)
    assert found[f"checkpoint:{run_dir}"]["file"] == str(run_dir / "checkpoints" / "step_64.zip")
    missing = found["checkpoint:/no/such/file.zip"]
    assert missing["sha256"] is None and "does not exist" in missing["error"]
    assert set(found) == {f"checkpoint:{run_dir}", "checkpoint:/no/such/file.zip"}


# --------------------------------------------------------------------------- the warm-up

def test_a_first_decision_that_compiles_is_a_warm_up_not_a_decision_time(monkeypatch):
    _reset_slow_first()
    summary, decisions = run(EvalSettings(game="biji", agents=["tests.test_citable:SlowFirst", "greedy"], hands=3,
                                          players=2, regret=False), progress=False)
    slow, greedy = summary.agents
    assert max(d.ms for d in decisions) < FIRST_S * 1e3 / 4, "the slow first decision was timed"
    assert slow.ms_per_decision < FIRST_S * 1e3 / 20
    assert slow.warmup_ms is not None and slow.warmup_ms >= FIRST_S * 1e3, slow
    assert greedy.warmup_ms is not None and greedy.warmup_ms < FIRST_S * 1e3


def test_the_benchmark_and_bench_time_after_a_warm_up_and_report_it():
    from splitpoker.eval.benchmark import V1, decision_ms
    from splitpoker.eval.speed import Figure, _measure

    _reset_slow_first()
    track = V1.track("thirteen_western_2p")
    timed = decision_ms(track, "tests.test_citable:SlowFirst", track.quick, seed=0)
    assert timed["warmup_ms"] >= FIRST_S * 1e3 and timed["max"] < FIRST_S * 1e3 / 4
    values = iter([100.0, 1.0, 2.0, 3.0])
    (figure,) = _measure([Figure("x.first_ms", "ms", "first run slow", lambda: next(values))], repeats=3,
                         progress=False)
    assert figure["warmup"] == 100.0 and (figure["median"], figure["max"]) == (2.0, 3.0)


class Seen(Agent):
    """Greedy, keeping every hand any instance decides (its copies' too) with its seat."""

    hands: list[tuple[int, tuple[int, ...]]] = []

    def __init__(self, game: Any, num_players: int = 4, seed: Any = None) -> None:
        self.inner = load_agent("greedy", game, num_players=num_players)
        self.name = "seen"

    def act_batch(self, views: Any) -> np.ndarray:
        Seen.hands += [(view.seat, tuple(int(c) for c in view.slots)) for view in views]
        return self.inner.act_batch(views)


@pytest.mark.parametrize(("name", "players", "agents"), [("thirteen", 4, 4), ("biji", 4, 3), ("thirteen", 2, 2)])
def test_the_warm_up_gives_each_agent_the_hand_with_the_most_candidates(name, players, agents):
    """A learned policy takes another path (its dense kernels) for the rare hand with many
    candidates: the warm-up compiles it too, with a hand of that kind at one of each agent's seats."""
    game = make_game(name)
    common, hardest, at = runner.warm_up_deals(game, players)
    pool = deal(game, players, np.random.default_rng(runner.WARMUP_SEED), batch=runner.WARMUP_POOL).slots
    most = max(len(c) for c in game.candidate_lists(pool.reshape(-1, pool.shape[-1])))
    assert len(game.candidate_lists(hardest[at][None])[0]) == most
    assert most > game.n_actions / 64, "the pool holds a hand decided by a policy's dense kernels"
    Seen.hands = []
    lineup = [Seen(game, players) for _ in range(agents)]
    assert all(ms is not None for ms in runner.warm_up(game, lineup, players))
    hard = tuple(int(c) for c in hardest[at])
    assert sorted(seat for seat, hand in Seen.hands if hand == hard) == list(range(agents))
    assert Seen.hands.count((0, tuple(int(c) for c in common[0]))) == 1


def _played(decisions: list[Any]) -> list[tuple[Any, ...]]:
    return [(d.group, d.rotation, d.seat, d.agent, d.action, d.payoff, d.regret) for d in decisions]


def _played_without_warm_up(settings: EvalSettings) -> list[tuple[Any, ...]]:
    """The decisions of the match as it was played before the warm-up: each chunk of deals
    by agents built for it (:func:`.runner.play_chunk` without :func:`.runner.warm_up`)."""
    game = make_game(settings.game, settings.preset)
    out = []
    for chunk in runner.chunks(settings.hands, settings.workers):
        agents = [load_agent(spec, game, num_players=settings.players, seed=settings.seed) for spec in settings.agents]
        oracle = runner._oracle(settings, game)
        for group in chunk:
            out += play_group(game, agents, settings.players, settings.seed, group, oracle, settings.mask)
    return _played(out)


LINEUP = ["random", "mixture:random;greedy", "solver:samples=4"]


@pytest.mark.parametrize("mask", ["valid", "undominated"])
def test_the_warm_up_changes_no_deal_decision_or_payoff(mask):
    settings = EvalSettings(game="biji", agents=["tests.test_citable:Unseeded", *LINEUP], hands=3, players=4, seed=5,
                            regret_samples=4, mask=mask)
    summary, decisions = run(settings, progress=False)
    assert _played(decisions) == _played_without_warm_up(settings)
    assert all(a.warmup_ms is not None for a in summary.agents), "every agent was warmed up"
    # the check has teeth: a warm-up by the agent itself would have moved the unseeded agent's decisions
    itself = EvalSettings(**(settings.to_dict() | {"agents": ["tests.test_citable:SelfCopied", *LINEUP]}))
    assert _played_without_warm_up(itself) == _played(decisions)
    assert _played(run(itself, progress=False)[1]) != _played(decisions)


def test_an_agent_that_cannot_be_copied_is_left_cold_and_unchanged():
    settings = EvalSettings(game="biji", agents=["tests.test_citable:Uncopyable", "greedy"], hands=2, players=2,
                            regret=False)
    summary, decisions = run(settings, progress=False)
    assert _played(decisions) == _played_without_warm_up(settings)
    assert summary.agents[0].warmup_ms is None and summary.agents[1].warmup_ms is not None


# --------------------------------------------------------------------------- intervals

def test_an_interval_the_deals_cannot_give_is_said_so():
    import math

    from splitpoker.eval.leaderboard import br_text
    from splitpoker.eval.report import table_rows
    from splitpoker.eval.stats import ci_text, mean_ci

    assert ci_text(mean_ci([0.0, 0.0])) == "no interval: too few deals (all alike)"
    assert ci_text(mean_ci([2.5])) == "no interval: too few deals (one)"
    assert ci_text(mean_ci([0.0, 1.0, 2.0])) == "[-1.484, +3.484]"
    assert br_text({"gain": 0.0, "ci95": [0.0, 0.0]}) == ("+0.000", "no interval: too few deals (all alike)")
    agent = {"spec": "greedy", "mean": 0.0, "ci95": [-math.inf, math.inf], "foul_rate": 0.0, "ms_per_decision": 0.1}
    assert table_rows([agent])[1][0][2] == "no interval: too few deals (one)"


# --------------------------------------------------------------------------- the commit of a wheel

def _setup_module() -> Any:
    spec = importlib.util.spec_from_file_location("splitpoker_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None, "setup.py, the build's record of the commit, is missing"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(folder), "-c", "user.name=splitpoker", "-c", "user.email=s@example.org",
                           "-c", "commit.gpgsign=false", *args], capture_output=True, text=True, check=True,
                          stdin=subprocess.DEVNULL)
    return done.stdout.strip()


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@needs_git
def test_the_build_record_names_the_checkouts_commit_or_none(tmp_path):
    from splitpoker.agents.version import build_commit

    setup = _setup_module()
    tree = tmp_path / "tree"
    (tree / "agents").mkdir(parents=True)
    (tree / "agents" / "x.py").write_text("x = 1\n")
    assert setup.build_record(tree) == {"commit": None}  # no checkout: no commit, and no error
    _git(tree, "init", "-q")
    _git(tree, "add", ".")
    _git(tree, "commit", "-qm", "one")
    head = _git(tree, "rev-parse", "--short", "HEAD")
    assert setup.build_record(tree) == {"commit": head}
    (tree / "agents" / "x.py").write_text("x = 2\n")
    assert setup.build_record(tree) == {"commit": f"{head}-dirty"}
    # a source distribution (no .git) carries the record of its checkout
    unpacked = tmp_path / "unpacked"
    record = setup._write_record(unpacked / "agents", tree)
    assert setup.build_record(unpacked) == {"commit": f"{head}-dirty"}
    assert build_commit(record) == f"{head}-dirty"
    assert build_commit(tmp_path / "absent.json") is None


#: what the copy of the tree a wheel is built from leaves out (as tests/test_install.py)
SKIP = (".git", ".venv", ".venv-*", "runs", "build", "dist", "*.egg-info", "__pycache__", ".cache", "artifacts",
        ".*_cache", ".hypothesis", "site")


def _wheel(source: Path, out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(out), str(source)], check=True, capture_output=True, timeout=600,
                   stdin=subprocess.DEVNULL)
    (wheel,) = out.glob("splitpoker-*.whl")
    return wheel


def _installed_stamp(wheel: Path, target: Path) -> dict[str, Any]:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                    str(wheel)], check=True, capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")} | {"PYTHONPATH": str(target)}
    done = subprocess.run([sys.executable, "-c", "import json; from splitpoker.agents import version as v; "
                           "print(json.dumps([v.__file__, v.stamp()]))"], cwd=target.parent, env=env,
                          capture_output=True, text=True, check=True, timeout=120)
    where, made = json.loads(done.stdout)
    assert Path(where).resolve().is_relative_to(target.resolve()), where
    return made


@pytest.mark.slow
@needs_git
def test_a_wheel_records_the_commit_it_was_built_from(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*SKIP))
    _git(source, "init", "-q")
    _git(source, "add", "-A")
    _git(source, "commit", "-qm", "release")
    head = _git(source, "rev-parse", "--short", "HEAD")
    wheel = _wheel(source, tmp_path / "dist")
    record = json.loads(zipfile.ZipFile(wheel).read("splitpoker/agents/_build.json"))
    assert record == {"commit": head}
    made = _installed_stamp(wheel, tmp_path / "site")
    assert made == {"version": installed_version("splitpoker"), "commit": head}
    # without git the build goes on, and the wheel records no commit
    shutil.rmtree(source / ".git")
    bare = _wheel(source, tmp_path / "dist-bare")
    assert json.loads(zipfile.ZipFile(bare).read("splitpoker/agents/_build.json")) == {"commit": None}
    assert "commit" not in _installed_stamp(bare, tmp_path / "site-bare")
