"""Best-response gain against compute (``splitpoker convergence``): the checkpoints of run
folders measured on the same deals, kept, and plotted against the CPU seconds they cost."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from splitpoker.agents.learned.checkpoint import read_meta
from splitpoker.eval import convergence
from splitpoker.eval.convergence import Run, measure, parse_run, spread
from splitpoker.train.cli import main
from tests.test_bad_checkpoints import rewrite

TINY = Path(__file__).parent / "data" / "biji_fp_tiny.yaml"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-round fictitious-play run of the tests' tiny config."""
    from splitpoker.train.launch import train

    tmp = tmp_path_factory.mktemp("convergence")
    data = {**yaml.safe_load(TINY.read_text()), "output_dir": str(tmp / "runs")}
    path = tmp / "fp_tiny.yaml"
    path.write_text(yaml.safe_dump(data))
    return train(path, command="splitpoker train fp_tiny.yaml", emit=lambda line: None).run_dir


def test_spread_keeps_the_first_and_last():
    assert spread(5, 1) == [4] and spread(5, 2) == [0, 4] and spread(5, 3) == [0, 2, 4]
    assert spread(3, 10) == [0, 1, 2] and spread(1, 4) == [0]
    with pytest.raises(ValueError, match="--points 0 must be at least 1"):
        spread(5, 0)


def test_checkpoints_come_in_the_order_of_their_cpu_seconds(run_dir, tmp_path):
    found = convergence.checkpoints(parse_run(str(run_dir)))
    assert [path.name for path, _ in found] == ["step_000000000.zip", "step_000000016.zip", "step_000000032.zip"]
    seconds = [meta["cpu_seconds"] for _, meta in found]
    assert seconds == sorted(seconds) and seconds[-1] > 0
    assert parse_run(f"mirror steps={run_dir}") == Run("mirror steps", run_dir)
    # after a warm start the run starts from the imitated policy: the untrained weights are left out
    warm = tmp_path / "warm"
    shutil.copytree(run_dir, warm)
    rewrite(warm / "checkpoints" / "step_000000000.zip", warm / "checkpoints" / "step_000000000_imitated.zip",
            lambda meta: meta.update(cpu_seconds=meta["cpu_seconds"] + 0.001))
    names = [path.name for path, _ in convergence.checkpoints(parse_run(str(warm)))]
    assert names == ["step_000000000_imitated.zip", "step_000000016.zip", "step_000000032.zip"]
    assert parse_run(str(run_dir)).label == run_dir.name


def test_measurements_are_kept_and_read_again(run_dir, tmp_path, monkeypatch):
    other = tmp_path / "copy"
    shutil.copytree(run_dir, other)
    points, stopped = measure([Run("a", run_dir), Run("b", other)], samples=2, hands=2, points=2, emit=lambda _: None)
    assert stopped is None and [p.label for p in points] == ["a", "a", "b", "b"]
    assert [Path(p.checkpoint).name for p in points[:2]] == ["step_000000000.zip", "step_000000032.zip"]
    # the same checkpoints on the same deals give the same gains, and each is the exploit command's figure
    assert [p.gain for p in points[:2]] == [p.gain for p in points[2:]]
    kept = sorted(p.name for p in (run_dir / "eval" / "br_gain").iterdir())
    assert kept == ["step_000000000__samples2_hands2_seed0.json", "step_000000032__samples2_hands2_seed0.json"]
    assert json.loads((run_dir / "eval" / "br_gain" / kept[1]).read_text())["gain"] == points[1].gain
    assert points[1].cpu_seconds == read_meta(run_dir / "checkpoints" / "step_000000032.zip")["cpu_seconds"]

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("measured again")

    monkeypatch.setattr(convergence, "best_response_gain", refuse)
    again, _ = measure([Run("a", run_dir)], samples=2, hands=2, points=2, emit=lambda _: None)
    assert [p.gain for p in again] == [p.gain for p in points[:2]]


def test_cli_draws_the_figure(run_dir, tmp_path, capsys):
    out = tmp_path / "figure.png"
    assert main(["convergence", f"fp={run_dir}", "--samples", "2", "--hands", "2", "--points", "2",
                 "--out", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["figure"] == str(out) and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p["step"] for p in result["points"]] == [0, 32] and not result["partial"]


@pytest.mark.parametrize(("argv", "needle"), [
    (["convergence", "{tmp}", "--out", "x.png"], "is not a training run's folder (it has no checkpoints/)"),
    (["convergence", "{old}", "--out", "x.png"], "does not record the CPU seconds spent to reach it"),
    (["convergence", "{run}", "{biji3}", "--out", "x.png"], "under other rules than"),
    (["convergence", "{run}", "--out", "x.png", "--points", "0"], "--points 0 must be at least 1"),
])
def test_bad_input_is_one_clear_line(argv, needle, run_dir, tmp_path, capsys):
    old, biji3 = tmp_path / "old", tmp_path / "biji3"
    for folder, change in ((old, lambda meta: meta.pop("cpu_seconds")),
                           (biji3, lambda meta: meta.update(num_players=3))):
        rewrite(run_dir / "checkpoints" / "step_000000032.zip", folder / "checkpoints" / "step_000000032.zip", change)
    filled = [a.format(tmp=tmp_path, old=old, biji3=biji3, run=run_dir) for a in argv]
    assert main(filled) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err, err
