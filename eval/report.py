"""Reports of a match: ``summary.json``, ``summary.md``, ``decisions.csv`` and PNG plots."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .files import atomic_write_bytes
from .match import AgentResult, Decision


def _fmt(x: float | None, digits: int = 3) -> str:
    return "–" if x is None else f"{x:+.{digits}f}" if digits else f"{x:g}"


def table_rows(agents: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the per-agent table."""
    header = ["agent", "mean", "95% CI", "regret mean", "regret p90", "agreement", "foul rate", "ms/decision"]
    rows = []
    for a in agents:
        regret = a.get("regret") or {}
        rows.append([
            a["spec"], f"{a['mean']:+.3f}", f"[{a['ci95'][0]:+.3f}, {a['ci95'][1]:+.3f}]",
            f"{regret['mean']:.3f}" if regret else "–", f"{regret['p90']:.3f}" if regret else "–",
            f"{a['agreement']:.1%}" if a.get("agreement") is not None else "–",
            f"{a['foul_rate']:.1%}", f"{a['ms_per_decision']:.2f}",
        ])
    return header, rows


def results_table(results: Sequence[AgentResult] | Sequence[dict[str, Any]]) -> str:
    """A plain-text table of per-agent results (for consoles and logs)."""
    agents = [r.to_dict() if isinstance(r, AgentResult) else r for r in results]
    header, rows = table_rows(agents)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def markdown(summary: dict[str, Any]) -> str:
    header, rows = table_rows(summary["agents"])
    lines = [f"# {summary['game']} evaluation: {summary['players']} players, preset {summary['preset']}", "",
             f"{summary['hands']} deals (duplicate: each replayed in all {summary['players']} seat rotations), "
             f"seed {summary['seed']}.", "",
             "Mean payoff per hand with the 95% CI over deals is the primary figure."]
    if summary.get("partial"):
        planned = summary.get("hands_planned")
        lines[2:2] = [f"**PARTIAL**: interrupted{' by ' + summary['interrupted_by'] if summary.get('interrupted_by') else ''}"
                      f" after {summary['hands']}{f' of {planned}' if planned else ''} deals; the figures cover those "
                      "deals only.", ""]
    if summary.get("regret_model"):
        lines.append(f"Regret and agreement are relative to `{summary['regret_model']}` on the same sampled "
                     "opponents: a best response to that opponent model, not equilibrium play.")
    lines += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    extra = ["", "| agent | row/pot win rates | special rate | 喜 rate |", "|---|---|---|---|"]
    for a in summary["agents"]:
        extra.append(f"| {a['spec']} | {' / '.join(f'{x:.1%}' for x in a['row_win_rate'])} | "
                     f"{a['special_rate']:.1%} | {a['xi_rate']:.1%} |")
    return "\n".join(lines + extra) + "\n"


def plot(summary: dict[str, Any], decisions: Sequence[Decision], out: Path) -> list[Path]:
    """Mean payoff with CI per agent, and the regret histogram when regret was measured."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    agents = summary["agents"]
    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(agents)), 3.5))
    means = [a["mean"] for a in agents]
    errors = [[a["mean"] - a["ci95"][0] for a in agents], [a["ci95"][1] - a["mean"] for a in agents]]
    ax.bar(range(len(agents)), means, yerr=errors, capsize=6, color="#4c72b0")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(agents)), [a["spec"] for a in agents], rotation=15, ha="right", fontsize=8)
    ax.set_ylabel("mean payoff per hand (95% CI)")
    ax.set_title(f"{summary['game']}, {summary['players']} players, {summary['hands']} deals")
    fig.tight_layout()
    paths.append(out / "payoff.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    if summary.get("regret_model"):
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for index, a in enumerate(agents):
            regrets = [d.regret for d in decisions if d.agent == index]
            ax.hist(regrets, bins=40, alpha=0.6, label=a["spec"])
        ax.set_xlabel(f"regret vs {summary['regret_model']}")
        ax.set_ylabel("decisions")
        ax.legend(fontsize=8)
        fig.tight_layout()
        paths.append(out / "regret.png")
        fig.savefig(paths[-1], dpi=110)
        plt.close(fig)
    return paths


def write_report(summary: dict[str, Any], decisions: Sequence[Decision], out: Path, plots: bool = True) -> Path:
    """Write summary.json, summary.md, decisions.csv (and plots) under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(out / "summary.json", (json.dumps(summary, indent=2, ensure_ascii=False) + "\n").encode())
    atomic_write_bytes(out / "summary.md", markdown(summary).encode())
    table = io.StringIO(newline="")
    names = [agent["name"] for agent in summary.get("agents", [])]
    rows = []
    for d in decisions:  # the agent as its index in the lineup and by its name
        row = d.to_row()
        rows.append({**row, "agent_name": names[d.agent]} if d.agent < len(names) else row)
    writer = csv.DictWriter(table, fieldnames=list(rows[0]) if rows else ["group"])
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_bytes(out / "decisions.csv", table.getvalue().encode())
    if plots:
        plot(summary, decisions, out)
    return out
