"""The report of an eval built as the deals are played (:class:`splitpoker.eval.duplicate.Tally`,
:class:`splitpoker.eval.report.DecisionsTable`): the same ``decisions.csv`` bytes and the
same ``summary.json`` numbers, bit for bit, as the report made all at once from every
decision, and an interrupted eval still writes its partial report at once.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from splitpoker.eval.duplicate import Decision, Tally, decision_order
from splitpoker.eval.report import DecisionsTable, decision_lines, decisions_csv, write_report
from splitpoker.eval.runner import EvalSettings, run
from splitpoker.eval.stats import mean_ci
from splitpoker.train.cli import main


# --------------------------------------------------------------------------- the straightforward reference
def reference_csv(decisions: Sequence[Decision], names: Sequence[str]) -> bytes:
    """decisions.csv the plain way: every decision sorted, a dict per row, ``csv.DictWriter``."""
    rows = []
    for d in sorted(decisions, key=lambda d: (d.group, d.rotation, d.seat)):
        row = dataclasses.asdict(d)
        row["rows_won"] = " ".join(f"{x:.4g}" for x in d.rows_won)
        rows.append({**row, "agent_name": names[d.agent]})
    table = io.StringIO(newline="")
    writer = csv.DictWriter(table, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return table.getvalue().encode()


def reference_figures(decisions: Sequence[Decision], num_agents: int) -> list[dict[str, Any]]:
    """Each agent's figures the plain way: its decisions in the order of (group, rotation, seat),
    the mean payoff of each deal group, NumPy means of plain lists."""
    ordered = sorted(decisions, key=lambda d: (d.group, d.rotation, d.seat))
    figures = []
    for index in range(num_agents):
        mine = [d for d in ordered if d.agent == index]
        groups: dict[int, list[float]] = {}
        for d in mine:
            groups.setdefault(d.group, []).append(d.payoff)
        per_group = np.array([np.mean(groups[g]) for g in sorted(groups)])
        regrets = np.array([d.regret for d in mine])
        measured = not np.isnan(regrets).all()
        figures.append({
            "hands": len(mine), "mean": float(per_group.mean()), "ci95": list(mean_ci(per_group)),
            "row_win_rate": [float(np.mean([d.rows_won[k] for d in mine])) for k in range(3)],
            "foul_rate": float(np.mean([d.fouled for d in mine])),
            "special_rate": float(np.mean([d.special > 0 for d in mine])),
            "xi_rate": float(np.mean([d.xi > 0 for d in mine])),
            "ms_per_decision": float(np.mean([d.ms for d in mine])),
            "regret": {"mean": float(np.mean(regrets)), "median": float(np.median(regrets)),
                       "p90": float(np.quantile(regrets, 0.9))} if measured else None,
            "agreement": float(np.mean([d.agreement for d in mine])) if measured else None,
        })
    return figures


def _figures(agents: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    keys = ("hands", "mean", "ci95", "row_win_rate", "foul_rate", "special_rate", "xi_rate", "ms_per_decision",
            "regret", "agreement")
    return [{key: agent[key] for key in keys} for agent in agents]


# --------------------------------------------------------------------------- built as played = all at once
@pytest.mark.parametrize("kwargs", [
    {"game": "biji", "agents": ["greedy", "random"], "hands": 24, "workers": 2, "regret": False},
    {"game": "thirteen", "agents": ["greedy", "random", "greedy"], "players": 4, "hands": 5, "seed": 3,
     "regret_samples": 4},
], ids=["biji-2-workers", "thirteen-regret"])
def test_the_report_built_while_playing_is_the_report_made_at_once(tmp_path, kwargs):
    table = DecisionsTable()
    summary, decisions = run(EvalSettings(**kwargs), progress=False, sink=table)
    write_report(summary, decisions, tmp_path / "report", plots=False, table=table)
    names = [agent.name for agent in summary.agents]
    assert table.text(decisions) is not None  # the table built while playing was the one written

    # decisions.csv: byte for byte the plain csv.DictWriter table of every decision, sorted
    assert (tmp_path / "report" / "decisions.csv").read_bytes() == reference_csv(decisions, names)
    assert decisions == sorted(decisions, key=decision_order)
    # summary.json: the same numbers, bit for bit (JSON keeps a float's repr, so == is exact)
    written = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert _figures(written["agents"]) == reference_figures(decisions, len(kwargs["agents"]))
    assert written["hands"] == kwargs["hands"] == len({d.group for d in decisions})
    if kwargs.get("regret", True):
        assert all(agent["regret"] is not None for agent in written["agents"])

    # and made again from the decisions alone (no table), the report is the same
    write_report(summary, decisions, tmp_path / "again", plots=False)
    for name in ("decisions.csv", "summary.json", "summary.md"):
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "report" / name).read_bytes()


def _played(tmp_path: Path) -> tuple[list[Decision], list[str]]:
    _, decisions = run(EvalSettings(game="biji", agents=["greedy", "random"], hands=12, players=3, seed=2,
                                    regret_samples=2), progress=False)
    return decisions, ["greedy", "random"]


def test_parts_in_any_order_give_the_same_figures_and_table(tmp_path):
    """Parts arriving out of order (as worker processes finish them), and parts whose deal
    groups interleave, still give the figures and the table of every decision in order."""
    decisions, names = _played(tmp_path)
    expected_csv = reference_csv(decisions, names)
    expected = reference_figures(decisions, 2)
    by_group: dict[int, list[Decision]] = {}
    for d in decisions:
        by_group.setdefault(d.group, []).append(d)
    groups = sorted(by_group)
    rng = random.Random(5)
    arrangements = {
        "chunks out of order": [groups[i:i + 3] for i in range(0, len(groups), 3)],
        "interleaved": [groups[0::2], groups[1::2]],
        "one group each": [[g] for g in groups],
    }
    for how, chunks in arrangements.items():
        rng.shuffle(chunks)
        tally, table = Tally(2), DecisionsTable()
        table.start(names)
        for chunk in chunks:
            part = [d for g in chunk for d in by_group[g]]
            tally.add(part)
            table.add(part)
        results = tally.results(["greedy", "random"], names)
        assert _figures([r.to_dict() for r in results]) == expected, how
        assert tally.hands == len(groups) and len(tally) == len(decisions), how
        ordered = tally.decisions()
        assert ordered == sorted(decisions, key=decision_order), how
        text = table.text(ordered)
        if how == "interleaved":
            assert text is None  # the report then makes the table from the decisions
        else:
            assert text is not None and text.encode() == expected_csv, how
        assert decisions_csv(ordered, names).encode() == expected_csv, how


def test_the_fast_rows_are_the_csv_modules_rows_for_any_values(tmp_path):
    """Names that need quoting, NumPy numbers, a NumPy float's repr, NaN and a missing name:
    the rows are what csv.DictWriter writes of Decision.to_row()."""
    decisions, _ = _played(tmp_path)
    names = ['greedy, "the first"', "random\nsecond"]
    assert decisions_csv(decisions, names).encode() == reference_csv(decisions, names)
    odd = [dataclasses.replace(d, group=np.int64(d.group), ms=np.float64(d.ms) * 1e-9, payoff=-0.0,
                               special=np.int32(d.special), rows_won=list(d.rows_won)) for d in decisions]
    assert decisions_csv(odd, names).encode() == reference_csv(odd, names)
    assert decision_lines(decisions, names[:1]) is None  # agent 1 has no name: csv.DictWriter writes it
    plain = io.StringIO(newline="")
    rows = [{**d.to_row(), "agent_name": names[0]} if d.agent == 0 else d.to_row()
            for d in sorted(decisions, key=decision_order)]
    writer = csv.DictWriter(plain, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    assert decisions_csv(decisions, names[:1]) == plain.getvalue()


def test_summarise_by_the_tally_is_the_plain_summary(tmp_path):
    from splitpoker.eval.duplicate import summarise

    decisions, names = _played(tmp_path)
    shuffled = list(decisions)
    random.Random(3).shuffle(shuffled)
    results = summarise(["greedy", "random"], names, sorted(shuffled, key=decision_order))
    assert _figures([r.to_dict() for r in results]) == reference_figures(decisions, 2)
    with pytest.raises(ValueError, match="no decisions"):
        summarise(["greedy", "random"], names, [d for d in decisions if d.agent == 0])


# --------------------------------------------------------------------------- interrupted
class InterruptingTable(DecisionsTable):
    """A report table that sends this process SIGINT while it takes its second part, as a
    Ctrl-C arriving in the middle of the bookkeeping would."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__()
        self.signum = signum
        self.parts = 0

    def add(self, part: Sequence[Decision]) -> None:
        self.parts += 1
        if self.parts == 2:
            os.kill(os.getpid(), self.signum)
        super().add(part)


def test_an_interrupt_while_a_part_is_taken_keeps_the_part_whole(tmp_path):
    """A signal that arrives while a part is being tallied waits until the part is tallied and
    formatted: the partial report holds whole parts, its table and its figures agree."""
    settings = EvalSettings(game="biji", agents=["greedy", "random"], hands=40, workers=1, regret=False)
    table = InterruptingTable(signal.SIGTERM)
    summary, decisions = run(settings, progress=False, sink=table)
    assert summary.partial is True and summary.interrupted_by == "SIGTERM"
    assert table.parts == 2 and 0 < summary.hands < 40
    assert len(decisions) == summary.hands * 16
    write_report(summary, decisions, tmp_path / "report", plots=False, table=table)
    names = [agent.name for agent in summary.agents]
    assert table.text(decisions) is not None
    assert (tmp_path / "report" / "decisions.csv").read_bytes() == reference_csv(decisions, names)
    assert _figures(json.loads((tmp_path / "report" / "summary.json").read_text())["agents"]) == \
        reference_figures(decisions, 2)


def test_an_interrupted_eval_command_writes_its_partial_report(tmp_path, monkeypatch, capsys):
    """``splitpoker eval`` interrupted after its first parts: exit 130, a line on stderr saying
    the partial report is being written, and the report of the deals played."""
    import splitpoker.eval.report as report

    monkeypatch.setattr(report, "DecisionsTable", InterruptingTable)
    out = tmp_path / "report"
    status = main(["eval", "biji", "--agents", "greedy,random", "--hands", "60", "--no-regret", "--no-plots",
                   "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 130, captured.err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["partial"] is True and summary["interrupted_by"] == "SIGINT"
    assert 0 < summary["hands"] < 60
    assert (f"splitpoker eval: interrupted (SIGINT) after {summary['hands']} of 60 deals; writing the partial "
            f"report to {out}") in captured.err
    assert captured.out.startswith("PARTIAL: interrupted (SIGINT)")
    with open(out / "decisions.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 16 * summary["hands"] and len({r["group"] for r in rows}) == summary["hands"]
    assert [(int(r["group"]), int(r["rotation"]), int(r["seat"])) for r in rows] == sorted(
        (int(r["group"]), int(r["rotation"]), int(r["seat"])) for r in rows)
    assert "**PARTIAL**" in (out / "summary.md").read_text()


@pytest.mark.slow
def test_ctrl_c_to_a_long_eval_writes_the_report_and_exits_promptly(tmp_path):
    """Ctrl-C to the process group of an eval with two workers, after some seconds of play:
    it says it is writing the partial report, writes it and exits 130, in a few seconds."""
    out = tmp_path / "report"
    argv = [sys.executable, "-c", "import sys; from splitpoker.train.cli import main; sys.exit(main())", "eval",
            "biji", "--agents", "greedy,random", "--hands", "200000", "--workers", "2", "--no-regret", "--no-plots",
            "--out", str(out)]
    process = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        time.sleep(25)
        assert process.poll() is None, process.communicate()
        os.killpg(process.pid, signal.SIGINT)
        sent = time.monotonic()
        stdout, stderr = process.communicate(timeout=60)
        took = time.monotonic() - sent
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise AssertionError("the eval hung after Ctrl-C") from None
    assert process.returncode == 130, stderr[-2000:]
    assert "Traceback" not in stderr and "writing the partial report" in stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["partial"] is True and summary["hands"] > 0
    assert stdout.startswith("PARTIAL: interrupted (SIGINT)")
    assert took < 15, f"{took:.1f} s from Ctrl-C to exit after {summary['hands']} deals"  # a loaded machine: slack
