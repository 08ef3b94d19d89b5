"""``splitpoker benchmark``: versioned evaluation protocols, and running them.

A *protocol* fixes everything a published figure depends on: the tracks (a game, its rules
preset and table size, and the shipped policy trained for it), the agents, the seeds and the
number of deals. It is named (``"v1"``) and never changes once published: a different
choice is a new entry in :data:`PROTOCOLS` (``"v2"``), so that "protocol v1, splitpoker
0.2.0" (with the policies' weights) names one set of numbers. Each protocol has a full size, for citing, and a quick
size, for checking that it runs (CI).

On each track a protocol measures, for every agent of the track:

* the **head-to-head matrix**: for each pair of agents one duplicate match
  (:func:`.runner.run`, the two agents seated alternately, ``A B A B`` at four seats, and the
  lineup rotated through every seat; at an odd table two, ``A B A`` and ``B A B``:
  :func:`lineups`), the cell of row A and column B being A's mean payoff per hand with its
  95% CI over deals. The games are zero-sum and both agents hold as many seats, so the cell
  of B against A is the negative of it. Every pair of a track plays the same deals;
* the **mean against the field**: the mean of the row's cells, with a 95% CI over the deals
  the pairs share (the per-deal means over the opponents), which ranks the agents;
* the **best-response gain** (:mod:`.exploit`) at the protocol's solver samples: what the
  solver answering the agent wins from copies of it, a lower bound on its exploitability.
  An agent that is itself the solver is not measured: its best response would run the
  solver for every opponent hand it samples (see :data:`NOT_MEASURED_COST`);
* the **decision time**: milliseconds of CPU time per decision of the agent alone (the masks
  and observations prepared beforehand, one torch thread), the median over repeated runs
  (:func:`.bench.agent_ms`), after untimed warm-up decisions (recorded as ``warmup_ms``).

The report records what a citation needs: the splitpoker version and commit, the machine and
the versions of Python and the packages (``splitpoker``,
:func:`~splitpoker.agents.version.report_stamp`), and the sha256 of each policy file the
agents play (``weights``).

:func:`run_benchmark` plays a protocol and returns the report, which
:func:`write_benchmark` writes as ``benchmark.json`` and ``leaderboard.md``.
"""

from __future__ import annotations

import dataclasses
import shlex
import signal
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..agents import load_agent
from ..agents.learned.policy_files import weights
from ..agents.specs import check_spec, member_specs, parse_spec
from ..agents.version import report_stamp
from ..envs.games import make_game
from ..runtime.files import free_path
from ..runtime.interrupts import Interrupted, signal_of
from ..runtime.limits import check_workers
from ..runtime.progress import Progress, progress_bar
from .stats import mean_ci
from .summary import EvalSummary

#: why an agent's best-response gain is left out: its best response would call the agent
#: itself (the solver) on every opponent hand it samples, samples x (players - 1) solver
#: decisions per decision: about 40 s per deal on Thirteen, hours per track
NOT_MEASURED_COST = "not measured (cost)"


@dataclasses.dataclass(frozen=True)
class Sizes:
    """How much a protocol plays on one track."""

    #: duplicate deals of each pair of agents in the head-to-head matrix
    deals: int
    #: duplicate deals of each best-response gain
    br_deals: int
    #: timed runs per agent (the decision time is their median)
    timing_runs: int
    #: decisions per timed run
    timing_decisions: int


@dataclasses.dataclass(frozen=True)
class Track:
    """One table of a protocol: a game under one rules preset at one table size."""

    name: str
    game: str
    preset: str
    players: int
    #: the shipped policy of the track (``pretrained:NAME``), or None
    policy: str | None
    full: Sizes
    quick: Sizes

    def sizes(self, quick: bool) -> Sizes:
        return self.quick if quick else self.full


@dataclasses.dataclass(frozen=True)
class Protocol:
    """A named, fixed evaluation protocol (see the module docstring)."""

    name: str
    tracks: tuple[Track, ...]
    #: the agents of every track, before the track's policy
    opponents: tuple[str, ...]
    #: seed of the head-to-head deals (and of the agents' own randomness)
    seed: int
    #: seed of the best-response deals and of the solver's samples
    br_seed: int
    #: opponent deals the best response samples per decision
    br_samples: int
    summary: str = ""

    def track(self, name: str) -> Track:
        for track in self.tracks:
            if track.name == name:
                return track
        raise ValueError(f"unknown track {name!r} of protocol {self.name}; tracks: "
                         f"{', '.join(t.name for t in self.tracks)}")

    def agents(self, track: Track) -> list[str]:
        """The protocol's own agents on ``track``: the opponents, then the track's policy."""
        return list(self.opponents) + ([track.policy] if track.policy else [])

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_V1_QUICK = Sizes(deals=16, br_deals=2, timing_runs=3, timing_decisions=3)

V1 = Protocol(
    name="v1",
    summary="the four shipped policies' tables; random, greedy, heuristic, the solver at 256 samples and "
            "the track's policy; duplicate head-to-head matrix, best-response gain at 256 samples, decision time",
    opponents=("random", "greedy", "heuristic", "solver:samples=256,opponent=greedy"),
    seed=101, br_seed=202, br_samples=256,
    tracks=(
        Track("biji_classic_4p", "biji", "classic", 4, "pretrained:biji_classic_4p",
              full=Sizes(deals=300, br_deals=60, timing_runs=5, timing_decisions=10), quick=_V1_QUICK),
        Track("thirteen_classic_4p", "thirteen", "classic", 4, "pretrained:thirteen_classic_4p",
              full=Sizes(deals=300, br_deals=60, timing_runs=5, timing_decisions=10), quick=_V1_QUICK),
        Track("thirteen_western_2p", "thirteen", "western", 2, "pretrained:thirteen_western_2p",
              full=Sizes(deals=800, br_deals=200, timing_runs=5, timing_decisions=10), quick=_V1_QUICK),
        Track("thirteen_shisanshui_4p", "thirteen", "shisanshui", 4, "pretrained:thirteen_shisanshui_4p",
              full=Sizes(deals=200, br_deals=50, timing_runs=5, timing_decisions=10), quick=_V1_QUICK),
    ),
)

V2 = dataclasses.replace(
    V1, name="v2",
    summary="v1 and a fifth table, 十三水 at three players with its shipped policy; the same agents, seeds and "
            "measures",
    tracks=V1.tracks + (
        Track("thirteen_shisanshui_3p", "thirteen", "shisanshui", 3, "pretrained:thirteen_shisanshui_3p",
              full=Sizes(deals=200, br_deals=50, timing_runs=5, timing_decisions=10), quick=_V1_QUICK),
    ),
)

#: every protocol by name; a published protocol is never changed, only added to
PROTOCOLS: dict[str, Protocol] = {V1.name: V1, V2.name: V2}


def get_protocol(name: str) -> Protocol:
    """The protocol named ``name``; ValueError naming it and the protocols otherwise."""
    if name not in PROTOCOLS:
        raise ValueError(f"unknown protocol {name!r}; protocols: {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]


def uses_solver(spec: str) -> bool:
    """Whether ``spec`` is the solver, or a mixture with the solver among its members."""
    parsed = parse_spec(spec)
    if parsed.kind == "solver":
        return True
    if parsed.kind == "mixture":
        members = getattr(parsed, "members", None) or member_specs(parsed.argument)
        return any(uses_solver(getattr(member, "text", member)) for member in members)
    return False


def _fits(spec: str, track: Track, seed: int) -> str | None:
    """None when ``spec`` plays ``track`` under its rules; otherwise why not (one line)."""
    game = make_game(track.game, track.preset)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            load_agent(spec, game, num_players=track.players, seed=seed)
        except ValueError as error:
            return str(error).splitlines()[0]
    for warning in caught:  # a policy trained under other rules loads with a warning: not this track
        if type(warning.message).__name__ == "RulesMismatchWarning":
            return str(warning.message).splitlines()[0]
    return None


@dataclasses.dataclass
class Plan:
    """What one run of a protocol plays: the tracks, their agents, the sizes."""

    protocol: Protocol
    quick: bool
    tracks: list[Track]
    #: the agents of each track, by track name
    agents: dict[str, list[str]]
    #: the extra agents given, as given
    extra: list[str]
    #: (track, spec, why) of each extra agent left out of a track
    skipped: list[tuple[str, str, str]]
    workers: int = 1

    def command(self, out: str | None = None) -> str:
        """The command line that makes this run."""
        words = ["splitpoker", "benchmark", "--protocol", self.protocol.name]
        if self.quick:
            words.append("--quick")
        if [t.name for t in self.tracks] != [t.name for t in self.protocol.tracks]:
            words += ["--tracks", ",".join(t.name for t in self.tracks)]
        if self.extra:
            words += ["--agents", ",".join(self.extra)]
        if self.workers != 1:
            words += ["--workers", str(self.workers)]
        if out:
            words += ["--out", out]
        return shlex.join(words)


def plan(protocol: Protocol | str, *, quick: bool = False, tracks: Sequence[str] | None = None,
         agents: Sequence[str] = (), workers: int = 1) -> Plan:
    """Check the request and lay out the run; ValueError naming the value at fault (an unknown
    protocol or track, a bad agent spec, an agent that plays none of the tracks)."""
    chosen = get_protocol(protocol) if isinstance(protocol, str) else protocol
    workers = check_workers(workers)
    names = list(dict.fromkeys(tracks)) if tracks else [t.name for t in chosen.tracks]
    selected = [chosen.track(name) for name in names]
    extra = [check_spec(spec) for spec in agents]
    for track in selected:  # the track's own policy (a missing extra, a damaged file) fails here, not mid-run
        why = _fits(track.policy, track, chosen.seed) if track.policy else None
        if why is not None:
            raise ValueError(f"track {track.name}: {track.policy}: {why}")
    by_track = {t.name: chosen.agents(t) for t in selected}
    skipped: list[tuple[str, str, str]] = []
    for spec in dict.fromkeys(extra):
        why_not = {}
        for track in selected:
            if spec in by_track[track.name]:  # one of the protocol's agents already
                continue
            reason = _fits(spec, track, chosen.seed)
            if reason is None:
                by_track[track.name].append(spec)
            else:
                why_not[track.name] = reason
        if len(why_not) == len(selected):
            first = next(iter(why_not.items()))
            raise ValueError(f"--agents {spec!r} plays none of the tracks ({first[0]}: {first[1]})")
        skipped += [(track, spec, why) for track, why in why_not.items()]
    return Plan(chosen, quick, selected, by_track, extra, skipped, workers)


# --------------------------------------------------------------------------------- running


class _Sink:
    """The sink of :func:`.runner.run` that moves a bar on by the deal groups of each part."""

    def __init__(self, bar: Progress, task: Any) -> None:
        self.bar, self.task = bar, task

    def start(self, names: Sequence[str]) -> None:
        pass

    def add(self, part: Sequence[Any]) -> None:
        self.bar.advance(self.task, len({d.group for d in part}))


def _group_means(matches: Sequence[tuple[Sequence[Any], int]]) -> dict[int, float]:
    """Each deal group's mean payoff per hand of one agent over the matches it played on the
    same deals (each match's decisions and the agent's lineup index in it), the groups
    ascending: over one match, the figure whose mean over groups is the agent's mean in
    :func:`.runner.run`."""
    payoffs: dict[int, list[float]] = {}
    for decisions, agent in matches:
        for d in decisions:
            if d.agent == agent:
                payoffs.setdefault(d.group, []).append(d.payoff)
    return {group: float(np.mean(payoffs[group])) for group in sorted(payoffs)}


def _match(track: Track, agents: list[str], deals: int, seed: int, workers: int,
           bar: Progress, task: Any) -> tuple[EvalSummary, list[Any]]:
    from .runner import EvalSettings, run

    settings = EvalSettings(game=track.game, agents=agents, hands=deals, players=track.players,
                            preset=track.preset, seed=seed, workers=workers, regret=False)
    return run(settings, progress=False, sink=_Sink(bar, task))


def _stop_if_partial(summary: EvalSummary) -> None:
    if summary.partial:
        raise Interrupted(signal.Signals[str(summary.interrupted_by)])


def lineups(a: str, b: str, players: int) -> list[list[str]]:
    """The lineups of the pair ``a``, ``b`` at a table of ``players``: ``[a, b]`` where the two
    hold as many seats (an even table); at an odd one ``[b, a]`` as well, so that over the
    two matches each holds as many seats (``A B A`` then ``B A B``)."""
    return [[a, b]] if players % 2 == 0 else [[a, b], [b, a]]


def _head_to_head(track: Track, agents: list[str], sizes: Sizes, protocol: Protocol, workers: int,
                  bar: Progress, out: dict[str, Any]) -> None:
    """The matrix of ``track`` into ``out`` (filled pair by pair, so an interrupt keeps the pairs played)."""
    pairs = [(a, b) for i, a in enumerate(agents) for b in agents[i + 1:]]
    task = bar.add_task(f"{track.name}: head to head",
                        total=sum(len(lineups(a, b, track.players)) for a, b in pairs) * sizes.deals)
    matrix: dict[str, dict[str, Any]] = {a: {} for a in agents}
    groups: dict[str, dict[str, dict[int, float]]] = {a: {} for a in agents}
    out["matrix"], out["pairs"], out["_groups"] = matrix, [], groups
    for a, b in pairs:
        bar.update(task, description=f"{track.name}: {a} vs {b}")
        planned, played = lineups(a, b, track.players), []
        for lineup in planned:
            summary, decisions = _match(track, lineup, sizes.deals, protocol.seed, workers, bar, task)
            played.append((lineup, decisions))
            out["pairs"].append({"agents": lineup, "deals": summary.hands, "planned": sizes.deals,
                                 "partial": summary.partial, "elapsed_s": summary.elapsed_s})
            if summary.partial:
                break
        if len(played) == len(planned):  # an odd table's pair is counted whole or not at all
            for me, them in ((a, b), (b, a)):
                means = _group_means([(decisions, lineup.index(me)) for lineup, decisions in played])
                lo, hi = mean_ci(np.fromiter(means.values(), float))
                matrix[me][them] = {"mean": float(np.mean(list(means.values()))), "ci95": [lo, hi],
                                    "deals": len(means)}
                groups[me][them] = means
        _stop_if_partial(summary)


def field(agents: Sequence[str], groups: Mapping[str, Mapping[str, Mapping[int, float]]]) -> list[dict[str, Any]]:
    """Each agent's mean payoff against the field, best first: the mean over its opponents of
    its per-deal means, with the 95% CI over the deals all its pairs played."""
    rows: list[dict[str, Any]] = []
    for agent in agents:
        opponents = [o for o in agents if o != agent and o in groups.get(agent, {})]
        if not opponents:
            continue
        common = sorted(set.intersection(*(set(groups[agent][o]) for o in opponents)))
        if not common:
            continue
        per_deal = np.array([np.mean([groups[agent][o][g] for o in opponents]) for g in common])
        lo, hi = mean_ci(per_deal)
        rows.append({"agent": agent, "mean": float(per_deal.mean()), "ci95": [lo, hi], "deals": len(common),
                     "opponents": len(opponents)})
    rows.sort(key=lambda r: -r["mean"])
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return rows


def _best_responses(track: Track, agents: list[str], sizes: Sizes, protocol: Protocol, workers: int,
                    bar: Progress, out: dict[str, Any]) -> None:
    """The best-response gain of each agent of ``track`` into ``out``: the solver answering the
    agent (:func:`.exploit.best_response_spec`) in one seat, copies of the agent in the others,
    on duplicate deals; the same figure as :func:`.exploit.best_response_gain`, played with
    this run's progress bar."""
    from .exploit import best_response_spec

    gains: dict[str, Any] = {}
    out["best_response"] = gains
    measured = [a for a in agents if not uses_solver(a)]
    for agent in agents:
        if agent not in measured:
            gains[agent] = {"gain": None, "not_measured": NOT_MEASURED_COST}
    task = bar.add_task(f"{track.name}: best response", total=len(measured) * sizes.br_deals)
    for agent in measured:
        bar.update(task, description=f"{track.name}: best response to {agent}")
        solver = best_response_spec(agent, protocol.br_samples)
        summary, _ = _match(track, [solver] + [agent] * (track.players - 1), sizes.br_deals, protocol.br_seed,
                            workers, bar, task)
        result = summary.agents[0]
        gains[agent] = {"gain": result.mean, "ci95": list(result.ci95), "deals": summary.hands,
                        "samples": protocol.br_samples, "best_response": solver, "elapsed_s": summary.elapsed_s}
        _stop_if_partial(summary)


def decision_ms(track: Track, spec: str, sizes: Sizes, seed: int) -> dict[str, Any]:
    """The agent's milliseconds of CPU time per decision (:func:`.bench.agent_ms`, one torch
    thread): median, min and max over ``timing_runs`` runs of ``timing_decisions`` each,
    after untimed warm-up decisions (``warmup_ms``: compiling, caches), one as timed and those
    of :func:`.runner.warm_up`. The agent timed is one of its own, so the warm-up changes no
    decision of the matches."""
    from .runner import warm_up
    from .speed import agent_ms

    game = make_game(track.game, track.preset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agent = load_agent(spec, game, num_players=track.players, seed=seed)
    torch = sys.modules.get("torch")
    threads = torch.get_num_threads() if torch is not None else None
    try:
        if torch is not None:
            torch.set_num_threads(1)
        warmup = agent_ms(game, agent, track.players, 1)  # warm-up: compiled kernels, caches
        warmup += warm_up(game, [agent], track.players)[0] or 0.0  # the rarer paths too (the hardest hand)
        runs = [agent_ms(game, agent, track.players, sizes.timing_decisions) for _ in range(sizes.timing_runs)]
    finally:
        if torch is not None and threads is not None:
            torch.set_num_threads(threads)
    return {"median": float(np.median(runs)), "min": float(min(runs)), "max": float(max(runs)),
            "runs": sizes.timing_runs, "decisions": sizes.timing_decisions, "warmup_ms": warmup}


def _timing(track: Track, agents: list[str], sizes: Sizes, protocol: Protocol, bar: Progress,
            out: dict[str, Any]) -> None:
    times: dict[str, Any] = {}
    out["decision_ms"] = times
    task = bar.add_task(f"{track.name}: decision time", total=len(agents))
    for agent in agents:
        times[agent] = decision_ms(track, agent, sizes, protocol.seed)
        bar.advance(task)


def machine_stamp() -> dict[str, Any]:
    """:func:`~splitpoker.agents.version.report_stamp` (version, commit, the versions of Python
    and the packages) with the machine (:func:`.bench.machine`) where the stamp lacks it."""
    from .speed import machine

    made: dict[str, Any] = dict(report_stamp())
    made.setdefault("machine", machine())
    return made


def run_benchmark(chosen: Plan, *, progress: bool = True, out: str | None = None,
                  on_track: Callable[[str, dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Play ``chosen`` (see :func:`plan`) and return the report (``benchmark.json``). Ctrl-C or
    SIGTERM stops it and keeps what was played: ``partial`` and ``interrupted_by`` say so, and
    each figure carries the deals it covers. ``on_track(name, track)`` gets each track's report
    as it is done. ``weights`` holds the sha256 of each policy file the agents play, read as the
    run starts."""
    protocol = chosen.protocol
    report: dict[str, Any] = {
        "protocol": protocol.name, "size": "quick" if chosen.quick else "full",
        "command": chosen.command(out), "splitpoker": machine_stamp(),
        "settings": {"protocol": protocol.to_dict(), "quick": chosen.quick, "workers": chosen.workers,
                     "tracks": [t.name for t in chosen.tracks], "extra_agents": chosen.extra},
        "skipped": [{"track": t, "agent": a, "why": why} for t, a, why in chosen.skipped],
        "weights": weights(spec for track in chosen.tracks for spec in chosen.agents[track.name]),
        "tracks": {}, "partial": False, "interrupted_by": None, "elapsed_s": 0.0,
    }
    start = time.perf_counter()
    try:
        with progress_bar(disable=not progress) as bar:
            for track in chosen.tracks:
                sizes = track.sizes(chosen.quick)
                agents = chosen.agents[track.name]
                game = make_game(track.game, track.preset)
                entry: dict[str, Any] = {
                    "game": track.game, "preset": track.preset, "players": track.players,
                    "rules": game.rules.to_dict(), "policy": track.policy, "agents": agents,
                    "sizes": dataclasses.asdict(sizes), "seed": protocol.seed, "br_seed": protocol.br_seed,
                    "br_samples": protocol.br_samples, "complete": False,
                }
                report["tracks"][track.name] = entry
                began = time.perf_counter()
                _head_to_head(track, agents, sizes, protocol, chosen.workers, bar, entry)
                _best_responses(track, agents, sizes, protocol, chosen.workers, bar, entry)
                _timing(track, agents, sizes, protocol, bar, entry)
                entry["complete"] = True
                entry["elapsed_s"] = round(time.perf_counter() - began, 3)
                _finish_track(entry)
                if on_track is not None:
                    on_track(track.name, entry)
    except KeyboardInterrupt as stop:
        report["partial"] = True
        report["interrupted_by"] = signal.Signals(signal_of(stop)).name
    for entry in report["tracks"].values():
        _finish_track(entry)
    report["elapsed_s"] = round(time.perf_counter() - start, 3)
    return report


def _finish_track(entry: dict[str, Any]) -> None:
    """The ranking of a track from its matrix (once), the per-deal means dropped."""
    groups = entry.pop("_groups", None)
    if groups is not None:
        entry["ranking"] = field(entry["agents"], groups)
    entry.setdefault("ranking", [])
    entry.setdefault("matrix", {})
    entry.setdefault("best_response", {})
    entry.setdefault("decision_ms", {})


def write_benchmark(report: Mapping[str, Any], out: str | Path) -> Path:
    """Write ``leaderboard.md`` and ``benchmark.json`` under ``out``, together
    (:func:`~splitpoker.runtime.files.write_owned_files`: both written whole before either is
    put in place, benchmark.json last; a failed write leaves neither)."""
    import json

    from ..runtime.files import write_owned_files
    from .leaderboard import leaderboard

    folder = Path(out)
    write_owned_files({folder / name: data for name, data in (
        ("leaderboard.md", leaderboard(report).encode()),
        ("benchmark.json", (json.dumps(report, indent=2, ensure_ascii=False) + "\n").encode()))}, within=folder)
    return folder


#: the files :func:`write_benchmark` writes
REPORT_FILES = ("leaderboard.md", "benchmark.json")


def default_out(chosen: Plan) -> Path:
    """``runs/benchmark/<protocol>[_quick]__<time>`` (``_2``, ... where that folder exists)."""
    return free_path(Path("runs") / "benchmark" / (f"{chosen.protocol.name}{'_quick' if chosen.quick else ''}__"
                                                   f"{time.strftime('%Y%m%d-%H%M%S')}"))

