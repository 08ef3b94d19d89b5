"""Files the project writes are its own: every file goes through one helper that writes
atomically and never through a symbolic link; run folders with a link planted in them are
refused before anything is written; report folders are held by one command at a time and
an earlier report is replaced only with ``--force``; ``~`` is expanded in every output path
(and in the run folders ``convergence`` measures, whose ``eval/br_gain/`` is written as a run
folder is); a failed report write leaves nothing that blocks the next one."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from splitpoker.runtime import files
from splitpoker.runtime.files import (
    atomic_write_bytes,
    check_owned_tree,
    exclusive_lock,
    output_path,
    owned_folder,
    write_owned,
    write_owned_files,
)
from splitpoker.train.cli import main

EVAL = ["eval", "biji", "--agents", "greedy,random", "--hands", "2", "--players", "3", "--no-regret"]
REPORT = ("summary.json", "summary.md", "decisions.csv", "payoff.png")


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (links as what they point to)."""
    return {str(p.relative_to(folder)): (p.read_bytes() if not p.is_symlink() else os.readlink(p).encode())
            for p in sorted(folder.rglob("*")) if p.is_file() or p.is_symlink()}


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1, err
    return err[0]


# --------------------------------------------------------------------------- the helper
def planted(tmp_path: Path, folder: str, name: str, content: bytes) -> tuple[Path, Path]:
    """The new folder ``folder`` with ``name`` in it planted as a link to a file of the user's
    (``victim``, holding ``content``): (the folder, the victim)."""
    victim = tmp_path / "victim"
    victim.write_bytes(content)
    (tmp_path / folder).mkdir()
    (tmp_path / folder / name).symlink_to(victim)
    return tmp_path / folder, victim


def test_write_owned_refuses_a_link_at_the_file_and_leaves_its_target_alone(tmp_path):
    folder, victim = planted(tmp_path, "out", "summary.md", b"the user's own\n")
    for append in (False, True):
        with pytest.raises(ValueError, match=rf"{folder}/summary\.md is a symbolic link; splitpoker writes only"):
            write_owned(folder / "summary.md", b"report\n", within=folder, append=append)
    with pytest.raises(ValueError, match="is a symbolic link"):
        atomic_write_bytes(folder / "summary.md", b"report\n")  # the earlier name is the same helper
    assert victim.read_text() == "the user's own\n" and (folder / "summary.md").is_symlink()
    assert sorted(p.name for p in folder.iterdir()) == ["summary.md"]  # no temporary file left


def test_write_owned_refuses_a_linked_folder_inside_the_owned_one(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoints").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ValueError, match=rf"{run}/checkpoints is a symbolic link"):
        write_owned(run / "checkpoints" / "state.json", b"{}", within=run)
    with pytest.raises(ValueError, match=rf"{run}/checkpoints is a symbolic link"):
        owned_folder(run / "checkpoints", within=run)
    assert list(elsewhere.iterdir()) == []
    # folders missing between the owned folder and the file are made
    assert write_owned(run / "eval" / "br_gain" / "x.json", b"1", within=run).read_bytes() == b"1"


def test_write_owned_appends_and_writes_files_together_in_order(tmp_path):
    path = write_owned(tmp_path / "command.txt", b"splitpoker train a\n")
    write_owned(path, b"splitpoker train --resume b\n", append=True)
    assert path.read_text() == "splitpoker train a\nsplitpoker train --resume b\n"
    written = write_owned_files({tmp_path / "r" / "a.md": b"a", tmp_path / "r" / "z.json": b"z"}, within=tmp_path)
    assert [p.name for p in written] == ["a.md", "z.json"]
    assert (tmp_path / "r" / "z.json").stat().st_mtime_ns >= (tmp_path / "r" / "a.md").stat().st_mtime_ns


def test_a_failed_write_of_files_together_leaves_the_old_files_and_no_new_one(tmp_path, monkeypatch):
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "summary.md").write_text("old\n")
    real_fsync = os.fsync

    def full(fd: int) -> None:
        if "decisions.csv" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(OSError, match="No space left on device") as error:
        write_owned_files({folder / "summary.md": b"new\n", folder / "decisions.csv": b"x",
                           folder / "summary.json": b"{}"}, within=folder)
    assert error.value.filename == str(folder / "decisions.csv")
    assert sorted(p.name for p in folder.iterdir()) == ["summary.md"] and (folder / "summary.md").read_text() == "old\n"


def test_the_lock_claim_never_writes_through_a_planted_holder(tmp_path):
    folder, victim = planted(tmp_path, "run", ".holder", b"keep me\n")
    with exclusive_lock(folder, "run folder") as claim, pytest.raises(ValueError, match=r"\.holder is a symbolic"):
        claim()
    assert victim.read_text() == "keep me\n"


def test_output_paths_expand_the_home_folder_and_refuse_an_empty_one(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert output_path("~/x", "--out") == tmp_path / "home" / "x"
    assert output_path(Path("~"), "--out") == tmp_path / "home"
    for bad, message in (("", "--out '' names no path"), ("  ", "names no path"),
                         ("~no-such-user-here/x", "cannot be expanded")):
        with pytest.raises(ValueError, match=message):
            output_path(bad, "--out")


def test_check_owned_tree_names_the_first_link(tmp_path):
    (tmp_path / "run" / "eval").mkdir(parents=True)
    check_owned_tree(tmp_path / "run", "run folder")
    (tmp_path / "run" / "eval" / "final.json").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ValueError, match=r"run/eval/final\.json is a symbolic link; a run folder holds only"):
        check_owned_tree(tmp_path / "run", "run folder")


# --------------------------------------------------------------------------- run folders
@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of 64 steps (resumable to 128)."""
    from splitpoker.train.launch import train
    from tests.test_train import tiny, write

    tmp = tmp_path_factory.mktemp("owned")
    config = write(tmp, tiny(tmp, total_timesteps=64, checkpoint={"every": 64}))
    return train(config, command="splitpoker train tiny.yaml", emit=lambda line: None).run_dir


@pytest.mark.parametrize("planted", [".holder", "command.txt", "config.yaml", "splitpoker.json",
                                     "checkpoints/state.json", "checkpoints", "eval"])
def test_resume_refuses_a_run_folder_with_a_planted_link_and_writes_nothing_through_it(trained, tmp_path,
                                                                                        planted):
    from splitpoker.train.launch import resume_run

    run = tmp_path / "run"
    shutil.copytree(trained, run, symlinks=True)
    user = tmp_path / "user"
    user.mkdir()
    target = user / Path(planted).name
    link = run / planted
    if link.is_dir():
        shutil.move(link, target)
    elif link.exists():
        target.write_bytes(link.read_bytes() + b"# the user's own line\n")
        link.unlink()
    else:
        target.write_text("the user's own file\n")
    link.symlink_to(target, target_is_directory=target.is_dir())
    before, run_before = snapshot(user), snapshot(run)
    with pytest.raises(ValueError, match=rf"{link} is a symbolic link; a run folder holds only files and folders "
                                         "splitpoker made"):
        resume_run(run, ["total_timesteps=128"], "splitpoker train --resume run", emit=lambda line: None)
    assert snapshot(user) == before and snapshot(run) == run_before


def test_resume_appends_the_command_line_through_the_helper(trained, tmp_path):
    from splitpoker.train.launch import resume_run

    run = tmp_path / "run"
    shutil.copytree(trained, run, symlinks=True)
    result = resume_run(run, ["total_timesteps=128"], "splitpoker train --resume run", emit=lambda line: None)
    assert result.steps == 128 and not (run / ".holder").exists()
    assert (run / "command.txt").read_text() == "splitpoker train tiny.yaml\nsplitpoker train --resume run\n"
    assert not list(run.rglob(".*.tmp"))


def test_output_dir_with_a_home_folder_makes_no_folder_named_tilde(tmp_path, monkeypatch):
    from splitpoker.train.config import load_config_dict
    from splitpoker.train.launch import check_run, new_run_dir
    from tests.test_train import tiny

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    config = load_config_dict({**tiny(tmp_path), "output_dir": "~/runs"})
    check_run(config)
    folder = new_run_dir(config, "tiny")
    assert folder.parent == tmp_path / "home" / "runs" and folder.is_dir()
    assert not (tmp_path / "~").exists()


# --------------------------------------------------------------------------- eval reports
def test_eval_never_writes_a_plot_through_a_link_in_its_folder(tmp_path, capsys):
    out, victim = planted(tmp_path, "report", "payoff.png", b"the user's picture")
    for force in ([], ["--force"]):
        assert main([*EVAL, "--out", str(out), *force]) == 2
        assert f"{out}/payoff.png is a symbolic link" in one_line(capsys)
    assert victim.read_bytes() == b"the user's picture" and sorted(p.name for p in out.iterdir()) == ["payoff.png"]


@pytest.mark.parametrize("existing", ["summary.md", "decisions.csv", "payoff.png"])
def test_eval_refuses_to_replace_any_report_file_unless_forced(tmp_path, capsys, existing):
    out = tmp_path / "report"
    out.mkdir()
    (out / existing).write_text("the user's own\n")
    assert main([*EVAL, "--out", str(out)]) == 2
    line = one_line(capsys)
    assert "already holds a report" in line and existing in line and "--force" in line, line
    assert (out / existing).read_text() == "the user's own\n" and len(list(out.iterdir())) == 1
    assert main([*EVAL, "--out", str(out), "--force"]) == 0
    capsys.readouterr()
    assert all((out / name).is_file() for name in REPORT)
    assert (out / existing).read_bytes() != b"the user's own\n"


def test_a_second_eval_on_one_folder_is_refused_while_the_first_runs(tmp_path, capsys):
    out = tmp_path / "report"
    out.mkdir()
    with exclusive_lock(out, "report folder") as claim:  # the first eval, holding the folder
        claim()
        assert main([*EVAL, "--out", str(out)]) == 2
        assert f"{out} is in use by process {os.getpid()}" in one_line(capsys)
    assert list(out.iterdir()) == []


def test_eval_refuses_an_empty_out(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([*EVAL, "--out", ""]) == 2
    assert "--out '' names no path" in one_line(capsys)
    assert list(tmp_path.iterdir()) == []


def test_eval_expands_the_home_folder_in_out_and_in_a_config(tmp_path, capsys, monkeypatch):
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    assert main([*EVAL, "--no-plots", "--out", "~/x"]) == 0
    config = work / "eval.yaml"
    config.write_text(yaml.safe_dump({"game": "biji", "agents": ["greedy", "random"], "hands": 2, "players": 3,
                                      "regret": False, "out": "~/y"}))
    assert main(["eval", "--config", str(config), "--no-plots"]) == 0
    capsys.readouterr()
    assert (home / "x" / "summary.json").is_file() and (home / "y" / "summary.json").is_file()
    assert sorted(p.name for p in work.iterdir()) == ["eval.yaml"]


def test_a_report_that_cannot_be_written_blocks_no_rerun(tmp_path, capsys, monkeypatch):
    out = tmp_path / "report"
    real_fsync = os.fsync

    def full(fd: int) -> None:  # the disk fills up while decisions.csv is written
        if "decisions.csv" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(files.os, "fsync", full)
    assert main([*EVAL, "--out", str(out), "--json"]) == 2  # --json: no progress bar on stderr
    assert f"No space left on device: {out}/decisions.csv" in one_line(capsys)
    assert not out.exists() or not [p for p in out.iterdir()]
    monkeypatch.setattr(files.os, "fsync", real_fsync)
    assert main([*EVAL, "--out", str(out)]) == 0
    capsys.readouterr()
    assert all((out / name).is_file() for name in REPORT)


# --------------------------------------------------------------------------- benchmark
def _no_work(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the command worked before checking its output")


def test_benchmark_refuses_an_existing_leaderboard_before_any_work(tmp_path, capsys, monkeypatch):
    from splitpoker.eval import benchmark

    monkeypatch.setattr(benchmark, "run_benchmark", _no_work)
    out = tmp_path / "bench"
    out.mkdir()
    (out / "leaderboard.md").write_text("the user's own\n")
    assert main(["benchmark", "--protocol", "v1", "--quick", "--tracks", "biji_classic_4p", "--out", str(out)]) == 2
    line = one_line(capsys)
    assert "already holds a benchmark" in line and "leaderboard.md" in line, line
    assert (out / "leaderboard.md").read_text() == "the user's own\n"
    with exclusive_lock(out, "report folder") as claim:
        claim()
        assert main(["benchmark", "--protocol", "v1", "--quick", "--tracks", "biji_classic_4p", "--out", str(out),
                     "--force"]) == 2
        assert "is in use by process" in one_line(capsys)


def test_benchmark_force_replaces_its_report(tmp_path, capsys, monkeypatch):
    from splitpoker.eval.benchmark import PROTOCOLS
    from tests.test_benchmark import TINY

    monkeypatch.setitem(PROTOCOLS, "tiny", TINY)
    out = tmp_path / "bench"
    out.mkdir()
    (out / "leaderboard.md").write_text("old\n")
    assert main(["benchmark", "--protocol", "tiny", "--quick", "--tracks", "biji_2p", "--out", str(out),
                 "--force", "--json"]) == 0
    capsys.readouterr()
    assert (out / "leaderboard.md").read_text() != "old\n" and (out / "benchmark.json").is_file()


# --------------------------------------------------------------------------- convergence
@pytest.fixture()
def bare_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder that reads as a run (its checkpoints/), with the measurements made to fail."""
    from splitpoker.eval import convergence

    monkeypatch.setattr(convergence, "measure", _no_work)
    (tmp_path / "run" / "checkpoints").mkdir(parents=True)
    return tmp_path / "run"


def test_convergence_checks_its_figure_before_measuring(bare_run, tmp_path, capsys, monkeypatch):
    figure = tmp_path / "gain.png"
    figure.write_text("the user's own\n")
    assert main(["convergence", str(bare_run), "--out", str(figure)]) == 2
    assert f"--out '{figure}' already exists" in one_line(capsys)
    assert main(["convergence", str(bare_run), "--out", str(tmp_path)]) == 2
    assert "is a folder" in one_line(capsys)
    link = tmp_path / "link.png"
    link.symlink_to(figure)
    assert main(["convergence", str(bare_run), "--out", str(link), "--force"]) == 2
    assert "is a symbolic link" in one_line(capsys)
    assert figure.read_text() == "the user's own\n"
    from splitpoker.eval import convergence

    monkeypatch.setattr(convergence, "measure", lambda *args, **kwargs: ([], None))
    assert main(["convergence", str(bare_run), "--out", str(figure), "--force"]) == 0


def test_convergence_checks_the_runs_measurement_folder_before_measuring(bare_run, tmp_path, capsys,
                                                                          monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (bare_run / "eval").mkdir()
    (bare_run / "eval" / "br_gain").symlink_to(elsewhere, target_is_directory=True)
    assert main(["convergence", str(bare_run), "--out", str(tmp_path / "gain.png")]) == 2
    assert f"{bare_run}/eval/br_gain is a symbolic link" in one_line(capsys)
    (bare_run / "eval" / "br_gain").unlink()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if str(path).startswith(str(bare_run))
                        else real_access(path, mode, **kw))  # a read-only run folder, whoever runs the tests
    assert main(["convergence", str(bare_run), "--out", str(tmp_path / "gain.png")]) == 2
    line = one_line(capsys)
    assert line.startswith(f"splitpoker convergence: error: {bare_run}: ") and "cannot be written" in line, line
    assert not (tmp_path / "gain.png").exists()


class _Measured:
    """What a best-response measurement returns, without the measuring."""

    partial = False
    interrupted_by = None

    def to_dict(self) -> dict[str, Any]:
        return {"gain": 0.5, "ci95": [0.25, 0.75], "hands": 2}


@pytest.fixture()
def measurable_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run folder of one checkpoint whose best-response gain is measured at once."""
    from splitpoker.eval import convergence

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    checkpoint = run / "checkpoints" / "step_64.zip"
    meta = {"game": "biji", "num_players": 4, "rules": {}, "step": 64, "cpu_seconds": 1.0}
    monkeypatch.setattr(convergence, "checkpoints", lambda run: [(checkpoint, meta)])
    monkeypatch.setattr(convergence, "best_response_gain", lambda *args, **kwargs: _Measured())
    return run


def test_convergence_never_keeps_a_measurement_through_a_link_in_the_run(measurable_run, tmp_path):
    from splitpoker.eval.convergence import Run, measure

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (measurable_run / "eval").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ValueError, match=f"{measurable_run}/eval is a symbolic link"):
        measure([Run("run", measurable_run)], samples=2, hands=2, points=1, emit=lambda line: None)
    assert list(elsewhere.rglob("*")) == []
    (measurable_run / "eval").unlink()
    points, stopped = measure([Run("run", measurable_run)], samples=2, hands=2, points=1, emit=lambda line: None)
    assert stopped is None and [p.gain for p in points] == [0.5]
    assert [p.name for p in (measurable_run / "eval" / "br_gain").iterdir()] == ["step_64__samples2_hands2_seed0.json"]


def test_convergence_expands_the_home_folder_in_a_labelled_run(tmp_path, monkeypatch):
    from splitpoker.eval.convergence import parse_run

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "runs" / "a" / "checkpoints").mkdir(parents=True)
    for text, label in (("ppo=~/runs/a", "ppo"), ("~/runs/a", "a")):
        run = parse_run(text)
        assert (run.label, run.path) == (label, tmp_path / "runs" / "a")
    with pytest.raises(ValueError, match="run folder '' names no path"):
        parse_run("ppo=")
