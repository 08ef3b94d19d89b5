"""Fault injection: Ctrl-C, SIGTERM and kill -9 at several points of a tiny run, then
``--resume``. After the resume the run is as an uninterrupted run with the same seed: the
same final weights (bit for bit), the same step count and hand count, and the same TensorBoard
points (no step logged twice, nothing beyond the resume checkpoint kept, the final evaluation
once under ``final/``, imitation epochs on their own axis).

The in-process tests raise the signals at chosen points with ``os.kill`` on this process; the
slow ones run ``splitpoker`` in its own process group and stop it from outside, as a terminal,
``timeout`` or the kernel would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from splitpoker.agents.learned.checkpoint import read_policy_state
from tests.helpers import interrupt_at
from tests.helpers import rollouts_config as config
from tests.helpers import train_config as train
from tests.helpers import write_config as write

#: TensorBoard tags whose values are wall-clock measurements
TIMED = ("charts/hands_per_s", "charts/steps_per_s", "charts/time_elapsed")


IMITATION = {"enabled": True, "solver": "solver:samples=2,opponent=greedy", "hands": 32, "workers": 1, "epochs": 2,
             "batch_size": 8, "rounds": 2}


def resume(run_dir: Path) -> Any:
    from splitpoker.train.launch import resume_run

    return resume_run(run_dir, [], "splitpoker train --resume", emit=lambda line: None)


def points(folder: Path) -> dict[tuple[str, int], list[float]]:
    """Every scalar point of the event files in ``folder``: (tag, step) → values."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    out: dict[tuple[str, int], list[float]] = {}
    for path in sorted(folder.glob("events.out.tfevents.*")):
        for event in EventFileLoader(str(path)).Load():
            for value in event.summary.value:
                if value.HasField("simple_value"):
                    number = value.simple_value
                elif value.tensor.float_val:
                    number = value.tensor.float_val[0]
                else:
                    continue  # hparams
                out.setdefault((value.tag, event.step), []).append(number)
    return out


def same_run(run: Path, reference: Path) -> None:
    """The checks of an interrupted-then-resumed run against an uninterrupted one."""
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    expected = json.loads((reference / "checkpoints" / "state.json").read_text())
    assert state == expected and state["finished"] is True
    final, ref = (read_policy_state(run / "checkpoints" / "final.zip"),
                  read_policy_state(reference / "checkpoints" / "final.zip"))
    assert final.keys() == ref.keys()
    assert all(np.array_equal(final[k].numpy(), ref[k].numpy()) for k in final), "final weights differ"
    for sub in ("", "imitation"):
        got, want = points(run / sub), points(reference / sub)
        twice = {k: v for k, v in got.items() if len(v) > 1}
        assert not twice, f"steps logged twice: {sorted(twice)[:5]}"
        assert set(got) == set(want), sorted(set(got) ^ set(want))[:10]
        differ = [k for k in want if k[0] not in TIMED and got[k] != want[k]]
        assert not differ, f"values differ from the uninterrupted run: {differ[:5]}"
    assert max(step for _, step in points(run)) == state["step"]
    assert (run / "eval" / "final.md").is_file()
    assert sorted(p.name for p in (run / "eval").iterdir()) == sorted(p.name for p in (reference / "eval").iterdir())


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("reference")
    return train(tmp, config(tmp)).run_dir


@pytest.fixture(scope="module")
def long_final_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("long_final_reference")
    return train(tmp, config(tmp, eval={"final_hands": LONG_FINAL})).run_dir


@pytest.fixture(scope="module")
def imitation_reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("imitation_reference")
    return train(tmp, config(tmp, imitation={**IMITATION, "cache_dir": str(tmp / "cache")})).run_dir


# --------------------------------------------------------------------------- in process
def test_ctrl_c_while_collecting_resumes_exactly(tmp_path, monkeypatch, reference):
    interrupt_at(monkeypatch, 80)
    stopped = train(tmp_path, config(tmp_path))
    monkeypatch.undo()
    assert stopped.interrupted and stopped.signal == "SIGINT"
    # the rollout it stopped in is not counted
    assert stopped.steps == 64 and stopped.checkpoint.name == "step_000000064.zip"
    state = json.loads((stopped.run_dir / "checkpoints" / "state.json").read_text())
    assert (state["step"], state["finished"]) == (64, False)
    resumed = resume(stopped.run_dir)
    assert resumed.steps == 128 and not resumed.interrupted
    same_run(stopped.run_dir, reference)


def test_sigterm_during_an_update_stops_at_the_next_boundary_and_resumes_exactly(tmp_path, monkeypatch, reference):
    from splitpoker.train.ppo import PPOTrainer as Trainer

    rollout_end = Trainer.on_rollout_end

    def on_rollout_end(self, step):
        if step == 64:
            os.kill(os.getpid(), signal.SIGTERM)  # kept until the update after this rollout is done
        return rollout_end(self, step)

    monkeypatch.setattr(Trainer, "on_rollout_end", on_rollout_end)
    stopped = train(tmp_path, config(tmp_path))
    monkeypatch.undo()
    assert stopped.interrupted and stopped.signal == "SIGTERM" and stopped.steps == 64
    resume(stopped.run_dir)
    same_run(stopped.run_dir, reference)


def test_ctrl_c_in_the_final_evaluation_is_finished_by_resume(tmp_path, monkeypatch, reference):
    from splitpoker.train import evaluation as ppo

    evaluate = ppo.evaluate_policy

    def interrupted(agent, game, config, hands, progress=False):
        if hands == config.eval.final_hands:
            os.kill(os.getpid(), signal.SIGINT)
        return evaluate(agent, game, config, hands, progress)

    monkeypatch.setattr(ppo, "evaluate_policy", interrupted)
    stopped = train(tmp_path, config(tmp_path, eval={"every": 0}))
    monkeypatch.undo()
    run = stopped.run_dir
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    assert stopped.interrupted and state["finished"] is False and state["checkpoint"] == "final.zip"
    assert not (run / "eval" / "final.md").exists()
    assert not [k for k in points(run) if k[0].startswith("final/")]
    finished = resume(run)
    assert finished.report is not None and finished.report.is_file() and finished.steps == 128
    assert json.loads((run / "checkpoints" / "state.json").read_text())["finished"] is True
    finals = sorted(k for k in points(run) if k[0].startswith("final/"))
    assert finals == [("final/deals", 128), ("final/random_ci_hi", 128), ("final/random_ci_lo", 128),
                      ("final/random_mean", 128)]
    from splitpoker.train.launch import resume_run

    with pytest.raises(ValueError, match="finished at step 128"):
        resume_run(run, [], "again", emit=lambda line: None)


def test_an_interrupt_reported_by_a_compiled_call_stops_the_run_like_the_interrupt(tmp_path, monkeypatch, reference):
    """A signal whose handler raised while a numba function was being called comes out of the
    call as a SystemError caused by the interrupt (CPython's "returned a result with an
    exception set"): the run stops resumably, as for the interrupt itself."""
    from splitpoker.runtime.interrupts import Interrupted
    from splitpoker.train import evaluation as ppo

    evaluate = ppo.evaluate_policy

    def reported(agent, game, config, hands, progress=False):
        if hands == config.eval.final_hands:
            raise SystemError("CPUDispatcher(split_choices) returned a result with an exception set") \
                from Interrupted(signal.SIGTERM)
        return evaluate(agent, game, config, hands, progress)

    monkeypatch.setattr(ppo, "evaluate_policy", reported)
    stopped = train(tmp_path, config(tmp_path, eval={"every": 0}))
    monkeypatch.undo()
    assert stopped.interrupted and stopped.signal == "SIGTERM"
    state = json.loads((stopped.run_dir / "checkpoints" / "state.json").read_text())
    assert state["finished"] is False and state["checkpoint"] == "final.zip"
    assert resume(stopped.run_dir).report is not None


def test_handled_raises_the_interrupt_behind_a_compiled_call_and_nothing_else():
    from splitpoker.runtime.interrupts import Interrupted, handled

    with pytest.raises(Interrupted) as stop, handled():
        raise SystemError("returned a result with an exception set") from Interrupted(signal.SIGTERM)
    assert stop.value.signum == signal.SIGTERM and stop.value.__cause__ is None
    with pytest.raises(SystemError, match="a bug"), handled():
        raise SystemError("a bug") from ValueError("cause")
    with pytest.raises(Interrupted) as stop, handled():  # a compiled call inside a compiled call
        try:
            raise SystemError("inner: returned a result with an exception set") from Interrupted(signal.SIGINT)
        except SystemError as inner:
            raise SystemError("outer: returned a result with an exception set") from inner
    assert stop.value.signum == signal.SIGINT
    with pytest.raises(Interrupted), handled():  # raised while the interrupt was being handled
        try:
            raise Interrupted(signal.SIGTERM)
        except Interrupted:
            raise SystemError("returned a result with an exception set")  # noqa: B904


def test_ctrl_c_in_an_imitation_round_resumes_exactly(tmp_path, monkeypatch, imitation_reference):
    from splitpoker.train import imitation

    clone = imitation.behaviour_clone
    calls = []

    def interrupted(policy, data, game, epochs, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:  # the second round, after self-play to step 64
            inner = kwargs["on_epoch"]

            def on_epoch(stats):
                inner(stats)
                os.kill(os.getpid(), signal.SIGINT)

            kwargs["on_epoch"] = on_epoch
        return clone(policy, data, game, epochs, *args, **kwargs)

    monkeypatch.setattr(imitation, "behaviour_clone", interrupted)
    data = config(tmp_path, imitation={**IMITATION, "cache_dir": str(tmp_path / "cache")})
    stopped = train(tmp_path, data)
    monkeypatch.undo()
    state = json.loads((stopped.run_dir / "checkpoints" / "state.json").read_text())
    assert stopped.interrupted and (state["step"], state["imitation_rounds_done"],
                                    state["imitation_epochs"]) == (64, 1, 2)
    resume(stopped.run_dir)
    same_run(stopped.run_dir, imitation_reference)
    epochs = sorted(k for k in points(stopped.run_dir / "imitation") if k[0] == "imitation/loss")
    assert epochs == [("imitation/loss", e) for e in (1, 2, 3, 4)]  # two rounds of two epochs, on their own axis
    assert not [k for k in points(stopped.run_dir) if k[0].startswith("imitation/")]


def test_hands_are_whole_rollouts_and_said_so(tmp_path):
    from splitpoker.train.launch import train as train_run

    lines: list[str] = []
    result = train_run(write(tmp_path, config(tmp_path, total_timesteps=100)), command="x", emit=lines.append)
    assert result.steps == 128
    assert "total_timesteps 100 is played as 128 hands: whole rollouts of ppo.n_steps * n_envs = 32" in lines
    assert max(step for (tag, step) in points(result.run_dir)) == 128
    assert json.loads((result.run_dir / "checkpoints" / "state.json").read_text())["step"] == 128


# --------------------------------------------------------------------------- other processes
def _command(*args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from splitpoker.train.cli import main; sys.exit(main())", *args]


def _stop(argv: list[str], when: Any, signum: int, cwd: Path, timeout: float = 120) -> tuple[int, str, str]:
    """Run ``argv`` in its own process group; once ``when()`` holds, send ``signum`` to the group
    (as a terminal's Ctrl-C does), and once more if the first did not end it within 45 s;
    return (status, stdout, stderr). A hang after both fails the test."""
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + timeout
    try:
        while not when(process):
            if process.poll() is not None:
                out, err = process.communicate()
                raise AssertionError(f"finished before the fault: {process.returncode}\n{out}\n{err}")
            if time.monotonic() > deadline:
                raise AssertionError("the fault point never came")
            time.sleep(0.02)
        os.killpg(process.pid, signum)
        try:
            out, err = process.communicate(timeout=45)
        except subprocess.TimeoutExpired:
            # a signal that lands while worker processes are being spawned or torn down can be
            # lost (docs/training.md, "Interrupts and resume"): a second one, as a user presses
            # Ctrl-C again, must end the run with the same report and status
            os.killpg(process.pid, signum)
            out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise AssertionError("the process hung after two signals") from None
    return process.returncode, out, err


def _run_dir(tmp: Path) -> Path | None:
    runs = sorted((tmp / "runs").glob("biji__*")) if (tmp / "runs").is_dir() else []
    return runs[0] if runs else None


def _resume_cli(run: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(_command("train", "--resume", str(run)), cwd=cwd, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done


#: deals of a final evaluation long enough for a signal to land in it (a Biji policy decides
#: over its candidates in about greedy's time: 300 deals could end before the signal)
LONG_FINAL = 1000

FAULT_POINTS = {
    "after the first periodic checkpoint": lambda run: (run / "checkpoints" / "step_000000032.zip").exists(),
    "after the evaluation at step 64": lambda run: (run / "eval" / "step_000000064.json").exists(),
    "in the final evaluation": lambda run: (run / "checkpoints" / "final.zip").exists(),
}


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=["kill-9", "SIGINT", "SIGTERM"])
@pytest.mark.parametrize("point", list(FAULT_POINTS))
def test_stopped_process_resumes_exactly(tmp_path, long_final_reference, point, signum):
    path = write(tmp_path, config(tmp_path, eval={"final_hands": LONG_FINAL}))
    status, out, err = _stop(_command("train", str(path)), lambda process: (run := _run_dir(tmp_path)) is not None
                             and FAULT_POINTS[point](run), signum, tmp_path)
    run = _run_dir(tmp_path)
    assert run is not None
    if signum != signal.SIGKILL:
        assert status == 128 + signum, err
        assert "Traceback" not in err
        assert f"resume with: splitpoker train --resume {run}" in out
    if json.loads((run / "checkpoints" / "state.json").read_text())["finished"]:
        pytest.skip("the run finished before the signal arrived")  # a fast machine: nothing to resume
    _resume_cli(run, tmp_path)
    same_run(run, long_final_reference)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_while_labelling_with_workers_never_hangs(tmp_path, signum):
    data = config(tmp_path, imitation={**IMITATION, "hands": 2000, "workers": 2, "rounds": 1,
                                       "solver": "solver:samples=8,opponent=greedy", "cache_dir": str(tmp_path / "c")})
    path = write(tmp_path, data)
    for _attempt in range(3):  # the worker processes are started: the signal reaches them too
        status, out, err = _stop(_command("train", str(path)), _workers_started(1.0), signum, tmp_path)
        assert status == 128 + signum, err
        assert "Traceback" not in err and "Error" not in err, err
        assert "during an imitation round at step 0" in out
    run = _run_dir(tmp_path)
    assert run is not None
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    assert (state["step"], state["imitation_rounds_done"]) == (0, 0)


def _workers_started(after: float) -> Any:
    """A fault point: ``after`` seconds once two pool workers exist (they start or work then)."""
    seen: list[float] = []

    def when(process: subprocess.Popen[str]) -> bool:
        if not seen and len(_workers(process.pid)) >= 2:
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] >= after

    return when


def _workers(pid: int) -> list[str]:
    """The pool workers that process ``pid`` spawned."""
    done = subprocess.run(["ps", "-ww", "--ppid", str(pid), "-o", "args="], capture_output=True, text=True,
                          check=False)  # -ww: a long interpreter path must not cut the command line short
    return [line for line in done.stdout.splitlines() if "spawn_main" in line]  # not the resource tracker


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupted_eval_says_partial_and_exits_130_or_143(tmp_path, signum):
    for wait in (5.0, 15.0, 40.0):  # a loaded machine may not have finished a deal group yet
        out_dir = tmp_path / f"report_{wait:g}"
        argv = _command("eval", "biji", "--agents", "greedy,random", "--hands", "20000", "--workers", "2",
                        "--no-plots", "--no-regret", "--out", str(out_dir))
        status, out, err = _stop(argv, _workers_started(wait), signum, tmp_path)
        assert status == 128 + signum, err
        assert "Traceback" not in err
        if out:
            break
        assert err.strip().splitlines()[-1].startswith("splitpoker eval: interrupted"), err  # nothing played yet
    assert out.startswith("PARTIAL: interrupted") and "of 20000 deals" in out, err[-2000:]
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["partial"] is True and summary["interrupted_by"] == signal.Signals(signum).name
    assert "**PARTIAL**" in (out_dir / "summary.md").read_text()


def test_ctrl_c_before_the_first_checkpoint_leaves_no_folder(tmp_path, monkeypatch):
    from splitpoker.train.ppo import PPOTrainer as Trainer

    def interrupted(self):
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(Trainer, "log_hparams", interrupted)
    stopped = train(tmp_path, config(tmp_path))
    assert stopped.interrupted and stopped.steps == 0
    assert not list((tmp_path / "runs").iterdir())


class _Touch:
    """Unpickled, it creates ``marker``: the stand-in for code a crafted file would run."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_a_crafted_run_folder_never_runs_its_code(tmp_path):
    """A resume reads a checkpoint's weights, optimizer state and counters and a pool of
    tensors only: a pickled payload in the checkpoint's ``data`` member is never unpickled
    (Stable-Baselines3's own loader would run it) and a pool file holding one is refused as
    damaged, the run folder unchanged."""
    import base64
    import io
    import zipfile

    import cloudpickle
    import torch as th
    from sb3_contrib import MaskablePPO

    from splitpoker.train.launch import resume_run

    first = train(tmp_path, config(tmp_path, total_timesteps=64))
    checkpoints = first.run_dir / "checkpoints"
    state = json.loads((checkpoints / "state.json").read_text())
    checkpoint = checkpoints / state["checkpoint"]
    marker = tmp_path / "ran"
    with zipfile.ZipFile(checkpoint) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(members["data"])
    data["_last_obs"] = {":type:": "<class 'object'>",
                         ":serialized:": base64.b64encode(cloudpickle.dumps(_Touch(marker))).decode()}
    members["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(checkpoint, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    crafted = tmp_path / "crafted.zip"
    crafted.write_bytes(checkpoint.read_bytes())
    MaskablePPO.load(crafted)  # the payload is real: the library's own loader runs it
    assert marker.exists()
    marker.unlink()

    resumed = resume_run(first.run_dir, ["total_timesteps=96"], "resume", emit=lambda line: None)
    assert resumed.steps == 96 and not marker.exists()

    state = json.loads((checkpoints / "state.json").read_text())
    pool = checkpoints / state["pool"]
    buffer = io.BytesIO()
    th.save({"snapshots": [], "rng": _Touch(marker)}, buffer)
    pool.write_bytes(buffer.getvalue())
    before = {p.name: p.read_bytes() for p in checkpoints.iterdir()}
    with pytest.raises(ValueError, match=f"{state['pool']} is damaged and cannot be resumed from"):
        resume_run(first.run_dir, ["total_timesteps=128"], "resume", emit=lambda line: None)
    assert not marker.exists()
    assert {p.name: p.read_bytes() for p in checkpoints.iterdir()} == before


def test_a_diverged_update_stops_the_run_with_one_line_and_it_resumes(tmp_path, monkeypatch):
    """An update that leaves a weight NaN stops the run at that step, in one line naming the
    step and the weight, before anything saves it; the latest checkpoint (finite weights) is
    where ``--resume`` continues."""
    import torch as th
    from sb3_contrib import MaskablePPO

    original, updates = MaskablePPO.train, []

    def poisoned(self: Any) -> None:
        original(self)
        updates.append(self.num_timesteps)
        if len(updates) == 2:
            with th.no_grad():
                next(iter(self.policy.parameters())).view(-1)[0] = float("nan")

    monkeypatch.setattr(MaskablePPO, "train", poisoned)
    with pytest.raises(ValueError, match=r"training diverged at step 64: the PPO update left the policy's "
                                         r"\S+ not finite .* resumes from its checkpoint of step 32 "):
        train(tmp_path, config(tmp_path))
    run = next((tmp_path / "runs").iterdir())
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    assert state["step"] == 32 and not state["finished"]
    weights = read_policy_state(run / "checkpoints" / state["checkpoint"])
    assert all(bool(th.isfinite(w).all()) for w in weights.values())
    monkeypatch.setattr(MaskablePPO, "train", original)
    assert resume(run).steps == 128


def test_a_full_disk_names_the_file_and_how_to_resume(tmp_path, monkeypatch):
    """A checkpoint that cannot be written (no space left) stops the run in one line naming
    the file and the checkpoint to resume from; no partial file is left, state.json still
    names a whole checkpoint, and the run resumes to the uninterrupted run's end."""
    import errno

    import splitpoker.runtime.files as files

    real_fsync = os.fsync

    def full(fd: int) -> None:  # the disk fills up while the checkpoint of step 64 is written
        if "step_000000064.zip" in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(ValueError, match=r"cannot write \S+/checkpoints/step_000000064\.zip \(No space left on "
                                         r"device\) at step 64; the run resumes from its checkpoint of step 32 "):
        train(tmp_path, config(tmp_path))
    monkeypatch.setattr(files.os, "fsync", real_fsync)
    run = next((tmp_path / "runs").iterdir())
    assert not list((run / "checkpoints").glob(".*.tmp"))
    assert json.loads((run / "checkpoints" / "state.json").read_text())["step"] == 32
    assert resume(run).steps == 128
