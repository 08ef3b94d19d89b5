"""``leaderboard.md`` and the terminal summary of a benchmark report (:mod:`.benchmark`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .report import environment_text, markdown_table, text_table, weights_lines
from .stats import ci_text


def _signed(x: float) -> str:
    return f"{x:+.3f}"


def _ms(x: float) -> str:
    return f"{x:.3g}" if x < 100 else f"{x:.0f}"


def _code(text: str) -> str:
    return f"`{text}`"


def br_text(gain: Mapping[str, Any] | None) -> tuple[str, str]:
    """The best-response gain and its CI as table cells."""
    if not gain:
        return "–", "–"
    if gain.get("gain") is None:
        return str(gain.get("not_measured", "not measured")), "–"
    return _signed(gain["gain"]), ci_text(gain["ci95"])


def ranking_rows(track: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a track's ranking: mean against the field, BR gain, decision time."""
    header = ["rank", "agent", "mean vs field", "95% CI", f"BR gain (K={track['br_samples']})", "95% CI",
              "ms/decision"]
    rows = []
    for row in track.get("ranking", []):
        agent = row["agent"]
        gain, gain_ci = br_text(track.get("best_response", {}).get(agent))
        timing = track.get("decision_ms", {}).get(agent)
        if row.get("opponents", 0) < len(track["agents"]) - 1:  # an interrupted track: a part of the field
            agent = f"{agent} (against {row['opponents']} of {len(track['agents']) - 1})"
        rows.append([str(row["rank"]), agent, _signed(row["mean"]), ci_text(row["ci95"]), gain, gain_ci,
                     _ms(timing["median"]) if timing else "–"])
    return header, rows


def matrix_rows(track: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a track's head-to-head matrix (row against column)."""
    agents = track["agents"]
    matrix = track.get("matrix", {})
    header = ["row vs column"] + [_code(a) for a in agents]
    rows = []
    for a in agents:
        cells = [_code(a)]
        for b in agents:
            cell = matrix.get(a, {}).get(b)
            cells.append("—" if a == b else f"{_signed(cell['mean'])} {ci_text(cell['ci95'])}" if cell
                         else "not played")
        rows.append(cells)
    return header, rows


def machine_line(made: Mapping[str, Any]) -> str:
    m = made.get("machine") or {}
    if isinstance(m, str):
        return m
    shown = (("cpu", "{}"), ("cpus", "{} CPUs"), ("platform", "{}"), ("python", "Python {}"))
    return ", ".join(form.format(m[key]) for key, form in shown if m.get(key)) or "unknown"


def track_markdown(name: str, track: Mapping[str, Any], level: int = 2) -> list[str]:
    """A track's section: the settings, the ranking, the matrix."""
    h = "#" * level
    sizes = track["sizes"]
    lines = [f"{h} {name}", "",
             f"{track['game']}, rules preset `{track['preset']}`, {track['players']} players. Head to head: "
             f"{sizes['deals']:,} duplicate deals per pair (seed {track['seed']}); best-response gain: the solver "
             f"with {track['br_samples']} samples answering the agent, {sizes['br_deals']:,} duplicate deals "
             f"(seed {track['br_seed']}); decision time: CPU milliseconds per decision, median of "
             f"{sizes['timing_runs']} runs of {sizes['timing_decisions']}, after untimed warm-up decisions."]
    if not track.get("complete"):
        lines += ["", "**PARTIAL**: this track was interrupted; each figure covers the deals it names in "
                  "benchmark.json, and figures not reached are missing."]
    header, rows = ranking_rows(track)
    lines += ["", f"{h}# Ranking", "",
              "Mean payoff per hand against the field (the mean of the row of the matrix), 95% CI over deals."]
    lines += [""] + (markdown_table(header, rows) if rows else ["No pair was played."])
    header, rows = matrix_rows(track)
    lines += ["", f"{h}# Head to head", "",
              "Mean payoff per hand of the row agent against the column agent, 95% CI over deals "
              "(the two seated alternately, every deal replayed in every seat rotation"
              + ("; at this odd table in both lineups, A B A and B A B, so each holds as many seats)."
                 if track["players"] % 2 else ").")]
    lines += [""] + markdown_table(header, rows)
    return lines


def leaderboard(report: Mapping[str, Any]) -> str:
    """``leaderboard.md`` of a benchmark report."""
    made = report.get("splitpoker", {})
    version = f"splitpoker {made.get('version', 'unknown')}"
    if made.get("commit"):
        version += f", commit {made['commit']}"
    lines = [f"# Benchmark: protocol {report['protocol']}" + (" (quick)" if report["size"] == "quick" else ""), ""]
    if report.get("partial"):
        lines += [f"**PARTIAL**: interrupted ({report.get('interrupted_by')}); the tracks and figures below cover "
                  "what was played before it.", ""]
    if report["size"] == "quick":
        lines += ["**Quick size**: a check that the protocol runs, too few deals to cite.", ""]
    lines += [f"* Protocol: `{report['protocol']}` ({report['size']} size), {version}",
              f"* Machine: {machine_line(made)}"]
    if made.get("environment"):
        lines.append(f"* Environment: {environment_text(made['environment'])}")
    lines += [f"* Policy file: {line}" for line in weights_lines(report.get("weights") or {})]
    lines += [f"* Command: `{report['command']}`",
              f"* Time: {report['elapsed_s']:.0f} s"]
    for skip in report.get("skipped", []):
        lines.append(f"* `{skip['agent']}` left out of {skip['track']}: {skip['why']}")
    for name, track in report["tracks"].items():
        lines += [""] + track_markdown(name, track)
    return "\n".join(lines) + "\n"


def text_summary(report: Mapping[str, Any]) -> str:
    """The rankings as plain-text tables (the terminal)."""
    out = []
    for name, track in report["tracks"].items():
        header, rows = ranking_rows(track)
        if not rows:
            continue
        out += [f"{name} ({track['game']}, {track['preset']}, {track['players']} players)", text_table(header, rows),
                ""]
    return "\n".join(out)
