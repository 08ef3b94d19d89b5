"""``splitpoker benchmark``: the protocol registry, deterministic figures, the antisymmetric
matrix, the report's stamp and rules, the leaderboard, partial reports and bad input."""

from __future__ import annotations

import copy
import json
import signal
from pathlib import Path
from typing import Any

import pytest

from splitpoker.envs.games import make_game
from splitpoker.eval import benchmark
from splitpoker.eval.benchmark import PROTOCOLS, Protocol, Sizes, Track, plan, run_benchmark
from splitpoker.eval.exploit import best_response_gain
from splitpoker.runtime.interrupts import Interrupted
from splitpoker.train.cli import main

#: a protocol of cheap agents on a small table: a second of play
TINY = Protocol(
    name="tiny", opponents=("random", "greedy", "heuristic"), seed=5, br_seed=6, br_samples=8,
    tracks=(Track("biji_2p", "biji", "classic", 2, None, full=Sizes(12, 3, 1, 1), quick=Sizes(6, 2, 1, 1)),
            Track("biji_4p", "biji", "classic", 4, None, full=Sizes(4, 2, 1, 1), quick=Sizes(3, 1, 1, 1))),
)
#: what differs between two runs of the same protocol: times
TIMED = ("elapsed_s", "decision_ms")


def untimed(report: Any) -> Any:
    if isinstance(report, dict):
        return {k: untimed(v) for k, v in report.items() if k not in TIMED}
    if isinstance(report, list):
        return [untimed(v) for v in report]
    return report


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["benchmark", *argv])
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def tiny(monkeypatch: pytest.MonkeyPatch) -> Protocol:
    monkeypatch.setitem(PROTOCOLS, "tiny", TINY)
    return TINY


def test_v1_is_registered_with_its_tracks() -> None:
    v1 = PROTOCOLS["v1"]
    assert [t.name for t in v1.tracks] == ["biji_classic_4p", "thirteen_classic_4p", "thirteen_western_2p",
                                          "thirteen_shisanshui_4p"]
    for track in v1.tracks:
        assert track.policy == f"pretrained:{track.name}"
        assert (track.game, track.players) == (track.name.split("_")[0], int(track.name[-2]))
        assert track.preset == track.name.split("_")[1]
        assert track.quick.deals < track.full.deals
    assert v1.opponents == ("random", "greedy", "heuristic", "solver:samples=256,opponent=greedy")
    assert v1.br_samples == 256


def test_v2_is_v1_and_a_three_player_track_whose_policy_plays_it() -> None:
    v1, v2 = PROTOCOLS["v1"], PROTOCOLS["v2"]
    assert v2.tracks[:4] == v1.tracks and [t.name for t in v2.tracks[4:]] == ["thirteen_shisanshui_3p"]
    assert (v2.opponents, v2.seed, v2.br_seed, v2.br_samples) == (v1.opponents, v1.seed, v1.br_seed, v1.br_samples)
    track = v2.track("thirteen_shisanshui_3p")
    assert (track.game, track.preset, track.players, track.policy) == (
        "thirteen", "shisanshui", 3, "pretrained:thirteen_shisanshui_3p")
    chosen = plan("v2", quick=True, tracks=["thirteen_shisanshui_4p", "thirteen_shisanshui_3p"],
                  agents=["pretrained:thirteen_shisanshui_3p"])
    assert chosen.agents["thirteen_shisanshui_3p"].count("pretrained:thirteen_shisanshui_3p") == 1
    ((where, spec, why),) = chosen.skipped
    assert (where, spec) == ("thirteen_shisanshui_4p", "pretrained:thirteen_shisanshui_3p") and "3 players" in why


def test_quick_is_deterministic_and_antisymmetric() -> None:
    chosen = plan(TINY, quick=True, tracks=["biji_2p"])
    first = run_benchmark(chosen, progress=False)
    second = run_benchmark(chosen, progress=False)
    assert json.dumps(untimed(first), sort_keys=True) == json.dumps(untimed(second), sort_keys=True)
    track = first["tracks"]["biji_2p"]
    assert track["complete"] and not first["partial"]
    matrix = track["matrix"]
    assert matrix["greedy"]["random"]["mean"] == 2.75
    assert matrix["heuristic"]["greedy"]["mean"] == pytest.approx(1 / 6, abs=1e-12)
    assert matrix["greedy"]["random"]["ci95"] == pytest.approx([2.10725, 3.39275], abs=1e-9)
    assert matrix["greedy"]["random"]["deals"] == 6
    for a in track["agents"]:
        for b in track["agents"]:
            if a != b:  # two seats, zero-sum: exactly the negative
                assert matrix[a][b]["mean"] == -matrix[b][a]["mean"]
                assert matrix[a][b]["ci95"] == [-x for x in reversed(matrix[b][a]["ci95"])]
    ranking = track["ranking"]
    assert [r["rank"] for r in ranking] == [1, 2, 3]
    for row in ranking:
        cells = [matrix[row["agent"]][o]["mean"] for o in track["agents"] if o != row["agent"]]
        assert row["mean"] == pytest.approx(sum(cells) / len(cells))
    assert set(track["decision_ms"]) == set(track["agents"])
    assert all(t["median"] > 0 for t in track["decision_ms"].values())


def test_four_seats_matrix_is_antisymmetric() -> None:
    report = run_benchmark(plan(TINY, quick=True, tracks=["biji_4p"]), progress=False)
    matrix = report["tracks"]["biji_4p"]["matrix"]
    assert matrix["greedy"]["random"]["mean"] == -matrix["random"]["greedy"]["mean"]  # zero-sum, two seats each


def test_an_odd_table_plays_both_lineups_and_its_matrix_is_antisymmetric() -> None:
    """At three seats a pair plays ``A B A`` and ``B A B`` on the same deals; each cell is the
    row agent's payoff per hand over both, so each agent holds as many seats."""
    from splitpoker.eval.runner import EvalSettings, run

    odd = Protocol(name="odd", opponents=("random", "greedy"), seed=5, br_seed=6, br_samples=8,
                   tracks=(Track("biji_3p", "biji", "classic", 3, None, full=Sizes(4, 1, 1, 1),
                                 quick=Sizes(3, 1, 1, 1)),))
    track = run_benchmark(plan(odd, quick=True), progress=False)["tracks"]["biji_3p"]
    assert [p["agents"] for p in track["pairs"]] == [["random", "greedy"], ["greedy", "random"]]
    matrix = track["matrix"]
    assert matrix["greedy"]["random"]["mean"] == -matrix["random"]["greedy"]["mean"]
    assert matrix["greedy"]["random"]["deals"] == 3
    hands = []
    for lineup in (["random", "greedy"], ["greedy", "random"]):
        _, decisions = run(EvalSettings(game="biji", agents=lineup, hands=3, players=3, seed=5, regret=False),
                           progress=False)
        hands += [d.payoff for d in decisions if d.agent == lineup.index("greedy")]
    assert len(hands) == 3 * 3 * 3  # 3 deals, 3 rotations, 3 seats: greedy in as many seats as random
    assert matrix["greedy"]["random"]["mean"] == pytest.approx(sum(hands) / len(hands), abs=1e-12)


def test_best_response_is_exploit_figure() -> None:
    report = run_benchmark(plan(TINY, quick=True, tracks=["biji_2p"]), progress=False)
    mine = report["tracks"]["biji_2p"]["best_response"]["greedy"]
    theirs = best_response_gain("biji", "greedy", samples=8, hands=2, players=2, seed=6)
    assert (mine["gain"], mine["ci95"], mine["best_response"]) == (theirs.gain, list(theirs.ci95),
                                                                   theirs.best_response)


def test_solver_gain_is_not_measured() -> None:
    protocol = Protocol(name="s", opponents=("random", "solver:samples=4"), seed=0, br_seed=0, br_samples=4,
                        tracks=(Track("b", "biji", "classic", 2, None, full=Sizes(2, 1, 1, 1),
                                      quick=Sizes(2, 1, 1, 1)),))
    report = run_benchmark(plan(protocol, quick=True), progress=False)
    gains = report["tracks"]["b"]["best_response"]
    assert gains["solver:samples=4"] == {"gain": None, "not_measured": "not measured (cost)"}
    assert gains["random"]["gain"] > 0
    assert benchmark.uses_solver("mixture:random;solver:samples=4")
    assert not benchmark.uses_solver("mixture:random;greedy")


def test_cli_writes_stamped_report_and_leaderboard(tiny: Protocol, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench"
    code, stdout, err = cli(capsys, "--protocol", "tiny", "--quick", "--tracks", "biji_2p",
                            "--agents", "mixture:random;greedy", "--out", str(out), "--json")
    assert code == 0, err
    report = json.loads(stdout)
    assert report == json.loads((out / "benchmark.json").read_text())
    assert report["protocol"] == "tiny" and report["size"] == "quick"
    assert report["splitpoker"]["version"] and report["splitpoker"]["machine"]
    track = report["tracks"]["biji_2p"]
    assert track["rules"] == make_game("biji", "classic").rules.to_dict()
    assert track["agents"] == ["random", "greedy", "heuristic", "mixture:random;greedy"]
    assert report["command"].startswith("splitpoker benchmark --protocol tiny --quick --tracks biji_2p --agents")
    board = (out / "leaderboard.md").read_text()
    for agent in track["agents"]:
        assert board.count(f"`{agent}`") >= 2 and f"| {agent} |" in board  # the matrix and the ranking
    assert "protocol tiny" in board and report["splitpoker"]["version"] in board and report["command"] in board
    code, _, err = cli(capsys, "--protocol", "tiny", "--quick", "--tracks", "biji_2p", "--out", str(out))
    assert code == 2 and "already holds a benchmark" in err and err.count("\n") == 1


def test_interrupt_writes_partial_report(tiny: Protocol, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def stop(*args: Any, **kwargs: Any) -> Any:
        raise Interrupted(signal.SIGINT)

    monkeypatch.setattr(benchmark, "decision_ms", stop)
    out = tmp_path / "partial"
    code, stdout, err = cli(capsys, "--protocol", "tiny", "--quick", "--out", str(out))
    assert code == 130
    assert "PARTIAL" in stdout and "interrupted (SIGINT)" in err
    report = json.loads((out / "benchmark.json").read_text())
    assert report["partial"] and report["interrupted_by"] == "SIGINT"
    assert list(report["tracks"]) == ["biji_2p"] and not report["tracks"]["biji_2p"]["complete"]
    assert report["tracks"]["biji_2p"]["ranking"]  # the matrix played before the interrupt is kept
    assert "**PARTIAL**" in (out / "leaderboard.md").read_text()


def test_extra_policy_only_on_its_own_track() -> None:
    chosen = plan("v1", quick=True, tracks=["thirteen_classic_4p", "thirteen_shisanshui_4p"],
                  agents=["pretrained:thirteen_shisanshui_4p"])
    assert "pretrained:thirteen_shisanshui_4p" not in chosen.agents["thirteen_classic_4p"]
    assert chosen.agents["thirteen_shisanshui_4p"].count("pretrained:thirteen_shisanshui_4p") == 1
    [(track, spec, why)] = chosen.skipped
    assert (track, spec) == ("thirteen_classic_4p", "pretrained:thirteen_shisanshui_4p") and "shisanshui" in why


@pytest.mark.parametrize(("argv", "message"), [
    (("--protocol", "v9"), "unknown protocol 'v9'; protocols: v1"),
    (("--protocol", "v1", "--tracks", "chess_2p"), "unknown track 'chess_2p' of protocol v1"),
    (("--protocol", "v1", "--tracks", "biji_classic_4p,,"), "empty name"),
    (("--protocol", "v1", "--agents", "bogus"), "bad agent spec 'bogus'"),
    (("--protocol", "v1", "--agents", "greedy,,random"), "empty spec"),
    (("--protocol", "v1", "--tracks", "thirteen_western_2p", "--agents", "pretrained:biji_classic_4p"),
     "--agents 'pretrained:biji_classic_4p' plays none of the tracks"),
    (("--protocol", "v1", "--workers", "0"), "--workers 0 must be"),
    (("--quick",), "--protocol"),
])
def test_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str) -> None:
    code, out, err = cli(capsys, *argv)
    assert code == 2 and not out
    assert err.count("\n") == 1 and message in err, err


def test_protocols_are_frozen() -> None:
    with pytest.raises(dataclasses_error()):
        PROTOCOLS["v1"].seed = 3  # type: ignore[misc]
    assert copy.deepcopy(PROTOCOLS["v1"]) == PROTOCOLS["v1"]


def dataclasses_error() -> type[Exception]:
    import dataclasses

    return dataclasses.FrozenInstanceError


@pytest.mark.slow
def test_v1_quick_track_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, err = cli(capsys, "--protocol", "v1", "--quick", "--tracks", "thirteen_western_2p",
                            "--out", str(tmp_path / "v1"), "--json")
    assert code == 0, err
    track = json.loads(stdout)["tracks"]["thirteen_western_2p"]
    assert track["agents"][-1] == "pretrained:thirteen_western_2p" and track["complete"]
    assert track["best_response"]["solver:samples=256,opponent=greedy"]["not_measured"] == "not measured (cost)"
