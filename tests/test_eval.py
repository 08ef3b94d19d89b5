"""Evaluation: duplicate deals, confidence intervals, reports, bench and the eval command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from splitpoker.agents import Agent, load_agent
from splitpoker.envs.games import make_game
from splitpoker.eval.duplicate import deal_group, evaluate, play_group, seating
from splitpoker.eval.runner import EvalSettings, run
from splitpoker.eval.stats import mean_ci, t_quantile_975
from splitpoker.train.cli import main


class Recorder(Agent):
    """An agent that plays greedy and records the hands it saw."""

    def __init__(self, game, name="recorder"):
        self.name = name
        self.inner = load_agent("greedy", game)
        self.seen = []

    def act_batch(self, views):
        self.seen += [(view.seat, tuple(view.hand)) for view in views]
        return self.inner.act_batch(views)


def test_seating_rotates_the_lineup_through_every_seat():
    assert seating(2, 4, 0) == [0, 1, 0, 1]
    assert seating(2, 4, 1) == [1, 0, 1, 0]
    assert seating(3, 5, 0) == [0, 1, 2, 0, 1]
    for agents, players in [(2, 4), (3, 5), (4, 4), (2, 3), (5, 5)]:
        tables = [seating(agents, players, r) for r in range(players)]
        for agent in range(agents):
            share = seating(agents, players, 0).count(agent)
            # over the rotations, every agent sits in every seat equally often
            assert all([t[seat] for t in tables].count(agent) == share for seat in range(players))


@pytest.mark.parametrize("name,players", [("biji", 4), ("biji", 5), ("thirteen", 3)])
def test_duplicate_rotation_replays_identical_deals(name, players):
    game = make_game(name)
    a, b = Recorder(game, "a"), Recorder(game, "b")
    decisions = play_group(game, [a, b], players, seed=11, group=3)
    hands = deal_group(game, players, 11, 3).slots[0]
    assert len(decisions) == players * players
    # every seat's hand is the same in every rotation, and each agent plays it in turn
    seen = a.seen + b.seen
    for seat in range(players):
        played = [h for s, h in seen if s == seat]
        assert len(played) == players and len(set(played)) == 1
    assert sorted(int(c) for h in hands for c in h) == sorted(set(int(c) for h in hands for c in h))
    # identical deal under a new call with the same seed and group; a different group differs
    assert all((x == y).all() for x, y in zip(hands, deal_group(game, players, 11, 3).slots[0]))
    assert not all((x == y).all() for x, y in zip(hands, deal_group(game, players, 11, 4).slots[0]))
    # zero-sum within every rotation
    for rotation in range(players):
        assert sum(d.payoff for d in decisions if d.rotation == rotation) == pytest.approx(0)


def test_same_agent_everywhere_scores_exactly_zero():
    game = make_game("biji")
    results = evaluate(game, [load_agent("greedy", game), load_agent("greedy", game)], 4, hands=10, seed=0)
    assert results[0].mean == pytest.approx(0) and results[1].mean == pytest.approx(0)


def test_t_quantiles_and_ci_on_a_known_distribution():
    assert t_quantile_975(1) == pytest.approx(12.706)
    assert t_quantile_975(1000) == pytest.approx(1.962, abs=2e-3)
    lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert (lo, hi) == pytest.approx((2.5 - 3.182 * np.std([1, 2, 3, 4], ddof=1) / 2,
                                      2.5 + 3.182 * np.std([1, 2, 3, 4], ddof=1) / 2))
    # coverage: the 95% interval of 20 normal draws holds the true mean about 95% of the time
    rng = np.random.default_rng(0)
    covered = [lo <= 3.0 <= hi for lo, hi in (mean_ci(rng.normal(3.0, 2.0, 20)) for _ in range(2000))]
    assert 0.93 < np.mean(covered) < 0.97
    with pytest.raises(ValueError):
        mean_ci([])


def test_workers_give_the_same_numbers(tmp_path):
    base = dict(game="biji", agents=["greedy", "random"], hands=12, players=4, seed=5, regret=False)
    one, _ = run(EvalSettings(**base, workers=1), progress=False)
    two, _ = run(EvalSettings(**base, workers=2), progress=False)
    assert [a.mean for a in one.agents] == [a.mean for a in two.agents]
    assert [a.ci95 for a in one.agents] == [a.ci95 for a in two.agents]


def test_eval_command_writes_the_report(tmp_path, capsys):
    out = tmp_path / "report"
    code = main(["eval", "biji", "--agents", "greedy,random", "--hands", "6", "--players", "3", "--seed", "2",
                 "--no-regret", "--out", str(out), "--json", "--no-plots"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["game"] == "biji" and summary["players"] == 3 and summary["hands"] == 6
    assert [a["spec"] for a in summary["agents"]] == ["greedy", "random"]
    for key in ("mean", "ci95", "regret", "agreement", "foul_rate", "ms_per_decision"):
        assert key in summary["agents"][0]
    assert summary["agents"][0]["mean"] > 0 > summary["agents"][1]["mean"]
    assert (out / "summary.md").read_text().startswith("# biji evaluation")
    assert len((out / "decisions.csv").read_text().splitlines()) == 1 + 6 * 3 * 3
    before = (out / "summary.json").read_bytes()
    code = main(["eval", "biji", "--agents", "greedy,random", "--hands", "2", "--no-regret", "--out", str(out)])
    assert code == 2 and "already holds a report" in capsys.readouterr().err
    assert (out / "summary.json").read_bytes() == before


@pytest.mark.parametrize("argv,needle", [
    (["eval", "biji", "--agents", "greedy,wizard", "--hands", "2"], "wizard"),
    (["eval", "biji", "--agents", "greedy", "--players", "6", "--hands", "2"], "num_players=6"),
    (["eval", "poker", "--agents", "greedy"], "poker"),
    (["eval", "biji", "--agents", "greedy", "--hands", "0"], "--hands 0 must be"),
    (["eval", "biji", "--agents", "greedy", "--backend", "spark"], "spark"),
])
def test_eval_bad_input_is_one_clear_line(argv, needle, capsys):
    with pytest.raises(SystemExit) as exit_info:
        code = main(argv)
        raise SystemExit(code)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and needle in err


def test_agent_spec_splitting():
    from splitpoker.eval.commands import split_agent_specs

    assert split_agent_specs("checkpoint:runs/x/final.zip,solver:samples=256,greedy") == [
        "checkpoint:runs/x/final.zip", "solver:samples=256", "greedy"]
    assert split_agent_specs("solver:samples=64,opponent=greedy,random") == [
        "solver:samples=64,opponent=greedy", "random"]


@pytest.mark.slow
@pytest.mark.ray
def test_ray_backend_gives_the_local_numbers():
    pytest.importorskip("ray")
    base = dict(game="biji", agents=["greedy", "random"], hands=8, players=4, seed=9, regret=False, workers=2)
    local, _ = run(EvalSettings(**base, backend="local"), progress=False)
    remote, _ = run(EvalSettings(**base, backend="ray"), progress=False)
    assert [a.mean for a in local.agents] == [a.mean for a in remote.agents]
    assert [a.ci95 for a in local.agents] == [a.ci95 for a in remote.agents]


def test_solver_regret_against_itself_on_the_same_samples_is_zero():
    from splitpoker.eval.runner import _oracle

    settings = EvalSettings(game="biji", agents=["greedy"], hands=1, players=4, seed=3, regret_samples=32)
    game = make_game("biji")
    oracle = _oracle(settings, game)
    solver = load_agent("solver:samples=32,opponent=greedy", game, num_players=4)
    for group in range(2):
        for seat, hand in enumerate(deal_group(game, 4, 3, group).slots[0]):
            best, ev_of = oracle(hand, seat, group)
            mine = solver.solve(hand, seat=seat, seed=[3, group, seat, 7919])
            assert ev_of(best) == np.nanmax(mine.evs)
            assert ev_of(best) - ev_of(mine.action) == 0


def test_regret_is_never_negative_and_agreement_is_a_share():
    from splitpoker.eval.runner import _oracle

    settings = EvalSettings(game="biji", agents=["greedy", "random"], hands=2, players=3, seed=4, regret_samples=16)
    game = make_game("biji")
    decisions = play_group(game, [load_agent("greedy", game, num_players=3), load_agent("random", game, num_players=3)],
                           3, 4, 0, _oracle(settings, game))
    assert all(d.regret >= 0 and d.agreement in (0.0, 1.0) for d in decisions)
    assert any(d.regret > 0 for d in decisions if d.agent == 1)


def test_decision_time_leaves_out_the_tables_masks_and_observations():
    """A policy reads the masks and observations, which the table computes on first read:
    that time is the table's, not the agent's."""
    from splitpoker.envs.table import deal

    game = make_game("thirteen")
    tables = deal(game, 4, np.random.default_rng(0))
    assert tables.preparing_s == 0.0
    views = tables.views(0)
    assert views[0].mask.shape == (game.n_actions,) and tables.preparing_s > 0.0
    spent = tables.preparing_s
    assert views[3].mask is not None and tables.preparing_s == spent  # computed with the first, in one batch
    assert views[1].observation is not None and tables.preparing_s > spent


def test_the_default_report_folder_is_a_new_one(tmp_path, monkeypatch):
    from splitpoker.eval import runner
    from splitpoker.eval.runner import EvalSettings, default_out

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner.time, "strftime", lambda fmt: "20260101-000000")
    settings = EvalSettings(game="biji", agents=["greedy"], hands=1, regret=False)
    first = default_out(settings)
    assert first == Path("runs/eval/biji__4p__0__20260101-000000")
    first.mkdir(parents=True)
    assert default_out(settings) == Path("runs/eval/biji__4p__0__20260101-000000_2")


#: the keys of summary.json, in their order, and those of each agent's entry
SUMMARY_KEYS = ["game", "players", "preset", "switches", "hands", "seed", "agents", "regret_model", "partial",
                "interrupted_by", "hands_planned", "elapsed_s", "splitpoker", "weights"]
AGENT_KEYS = ["spec", "name", "hands", "mean", "ci95", "row_win_rate", "foul_rate", "special_rate", "xi_rate",
              "ms_per_decision", "regret", "agreement", "warmup_ms"]


def test_the_summary_is_typed_and_its_json_is_summary_json(tmp_path):
    """``run`` returns an :class:`EvalSummary`: its fields are what callers read, its
    ``to_dict`` is summary.json (keys in their order, every value), and ``summary["key"]``
    still reads the JSON, with a DeprecationWarning."""
    from splitpoker.eval.report import write_report
    from splitpoker.eval.summary import AgentSummary, EvalSummary

    summary, decisions = run(EvalSettings(game="biji", agents=["greedy", "random"], hands=3, players=3, seed=1,
                                          regret_samples=4), progress=False)
    assert isinstance(summary, EvalSummary) and all(isinstance(a, AgentSummary) for a in summary.agents)
    assert (summary.game, summary.players, summary.hands, summary.hands_planned) == ("biji", 3, 3, 3)
    assert not summary.partial and summary.interrupted_by is None
    assert summary.regret_model == "solver:samples=4,opponent=greedy"
    assert [a.spec for a in summary.agents] == ["greedy", "random"] and summary.agents[0].warmup_ms is not None
    data = summary.to_dict()
    assert list(data) == SUMMARY_KEYS and [list(a) for a in data["agents"]] == [AGENT_KEYS] * 2
    assert data["agents"][0]["ci95"] == list(summary.agents[0].ci95) and data["weights"] == {}
    write_report(summary, decisions, tmp_path, plots=False)
    assert (tmp_path / "summary.json").read_text(encoding="utf-8") == json.dumps(data, indent=2,
                                                                                 ensure_ascii=False) + "\n"
    assert json.loads((tmp_path / "summary.json").read_text(encoding="utf-8")) == data
    with pytest.warns(DeprecationWarning, match=r"summary\['hands'\] is deprecated"):
        assert summary["hands"] == 3
    with pytest.warns(DeprecationWarning):
        assert summary["agents"] == data["agents"]


def test_decisions_csv_names_each_agent(tmp_path):
    """``decisions.csv`` holds each row's agent by its index in the lineup and by name."""
    import csv

    from splitpoker.eval.report import write_report

    summary, decisions = run(EvalSettings(game="biji", agents=["greedy", "random"], hands=2, players=3, seed=1,
                                          regret=False), progress=False)
    write_report(summary, decisions, tmp_path / "report", plots=False)
    with open(tmp_path / "report" / "decisions.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and {(r["agent"], r["agent_name"]) for r in rows} == {("0", "greedy"), ("1", "random")}


def test_agent_lists_split_at_commas_outside_parentheses() -> None:
    from splitpoker.eval.commands import split_agent_specs

    assert split_agent_specs("(checkpoint:runs/a,b/x.zip),greedy,solver:samples=4,opponent=greedy,"
                             "mixture:(solver:samples=4,opponent=greedy);random") == [
        "checkpoint:runs/a,b/x.zip", "greedy", "solver:samples=4,opponent=greedy",
        "mixture:(solver:samples=4,opponent=greedy);random"]
    with pytest.raises(ValueError, match="empty spec"):
        split_agent_specs("greedy,,random")

