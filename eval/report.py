"""Reports of a match: ``summary.json``, ``summary.md``, ``decisions.csv`` and PNG plots."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import itertools
import json
import operator
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..runtime.files import write_owned_files
from .duplicate import AgentResult, Decision
from .stats import ci_text
from .summary import EvalSummary

#: per-agent figures: an :class:`~.duplicate.AgentResult` (an :class:`~.summary.AgentSummary`) or its dict
Figures = AgentResult | dict[str, Any]


def _as_dicts(agents: Sequence[Figures]) -> list[dict[str, Any]]:
    return [a.to_dict() if isinstance(a, AgentResult) else a for a in agents]


def table_rows(agents: Sequence[Figures]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the per-agent table."""
    header = ["agent", "mean", "95% CI", "regret mean", "regret p90", "agreement", "foul rate", "ms/decision"]
    rows = []
    for a in _as_dicts(agents):
        regret = a.get("regret") or {}
        rows.append([
            a["spec"], f"{a['mean']:+.3f}", ci_text(a["ci95"]),
            f"{regret['mean']:.3f}" if regret else "–", f"{regret['p90']:.3f}" if regret else "–",
            f"{a['agreement']:.1%}" if a.get("agreement") is not None else "–",
            f"{a['foul_rate']:.1%}", f"{a['ms_per_decision']:.2f}",
        ])
    return header, rows


def results_table(results: Sequence[Figures]) -> str:
    """A plain-text table of per-agent results (for consoles and logs)."""
    return text_table(*table_rows(results))


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table: the header, a rule of dashes and the rows, in columns two spaces apart."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table: the header, its rule and the rows."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]


def markdown(summary: EvalSummary) -> str:
    """``summary.md``: the match's settings and notes, then the per-agent tables."""
    header, rows = table_rows(summary.agents)
    lines = [f"# {summary.game} evaluation: {summary.players} players, preset {summary.preset}", "",
             f"{summary.hands} deals (duplicate: each replayed in all {summary.players} seat rotations), "
             f"seed {summary.seed}.", "",
             "Mean payoff per hand with the 95% CI over deals is the primary figure."]
    if summary.partial:
        lines[2:2] = [f"**PARTIAL**: interrupted"
                      f"{' by ' + summary.interrupted_by if summary.interrupted_by else ''}"
                      f" after {summary.hands} of {summary.hands_planned} deals; the figures cover those deals only.",
                      ""]
    if summary.regret_model:
        lines.append(f"Regret and agreement are relative to `{summary.regret_model}` on the same sampled "
                     "opponents: a best response to that opponent model, not equilibrium play.")
    if summary.splitpoker:
        made = summary.splitpoker
        lines.append(f"Measured by splitpoker {made['version']}"
                     + (f" (commit {made['commit']})." if made.get("commit") else "."))
        if made.get("environment"):
            lines.append(f"Environment: {environment_text(made['environment'])}.")
    lines += [f"Policy file: {line}." for line in weights_lines(summary.weights)]
    warmed = warmup_line(summary.agents)
    if warmed:
        lines.append(warmed)
    rates = [[a.spec, " / ".join(f"{x:.1%}" for x in a.row_win_rate), f"{a.special_rate:.1%}", f"{a.xi_rate:.1%}"]
             for a in summary.agents]
    lines += ["", *markdown_table(header, rows), "", *markdown_table(["agent", "row/pot win rates", "special rate",
                                                                      "喜 rate"], rates)]
    return "\n".join(lines) + "\n"


#: how :func:`environment_text` names the packages of :func:`~splitpoker.agents.version.environment`
_PACKAGE_NAMES = {"python": "Python", "numpy": "NumPy", "numba": "numba", "torch": "torch", "gymnasium": "gymnasium",
                  "pettingzoo": "PettingZoo"}


def environment_text(environment: dict[str, Any]) -> str:
    """``"Python 3.11.7, NumPy 2.4.6, numba 0.68.1, torch 2.13.0, gymnasium 1.4.0, PettingZoo 1.27.0"``:
    the versions of a report's ``environment`` (``torch not installed`` where it is None)."""
    return ", ".join(f"{_PACKAGE_NAMES.get(name, name)} {version if version else 'not installed'}"
                     for name, version in environment.items())


def weights_lines(weights: dict[str, Any]) -> list[str]:
    """One line per policy file of a report's ``weights``: the spec, the file and its sha256."""
    return [f"`{spec}` {entry.get('file') or '?'}, sha256 {entry['sha256']}" if entry.get("sha256")
            else f"`{spec}` not read ({entry.get('error', 'unknown')})" for spec, entry in weights.items()]


def warmup_line(agents: Sequence[Figures]) -> str:
    """The line saying what the decision times leave out: each agent's warm-up decision
    (``warmup_ms``), or "" where the report has none."""
    warmed = [(a["spec"], a["warmup_ms"]) for a in _as_dicts(agents) if a.get("warmup_ms") is not None]
    if not warmed:
        return ""
    return ("Decision times leave out each agent's untimed warm-up decisions (compiling, caches): "
            + ", ".join(f"{spec} {ms:,.1f} ms" for spec, ms in warmed) + ".")


def plot(summary: EvalSummary, decisions: Sequence[Decision], out: Path) -> list[Path]:
    """Mean payoff with CI per agent, and the regret histogram when regret was measured, as
    PNG files in ``out`` (written as :func:`~splitpoker.runtime.files.write_owned_files` writes)."""
    images = plot_images(summary, decisions, out)
    return write_owned_files(images, within=out) if images else []


def report_files(plots: bool, regret: bool) -> list[str]:
    """The names of the files :func:`write_report` writes: summary.json last."""
    return ["decisions.csv", "summary.md", *(["payoff.png"] if plots else []),
            *(["regret.png"] if plots and regret else []), "summary.json"]


def _png(fig: Any) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def plot_images(summary: EvalSummary, decisions: Sequence[Decision], out: Path) -> dict[Path, bytes]:
    """The plots of :func:`plot`, each path in ``out`` with its PNG's bytes (nothing written)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    images: dict[Path, bytes] = {}
    agents = summary.agents
    fig, ax = plt.subplots(figsize=(max(4, 1.6 * len(agents)), 3.5))
    means = [a.mean for a in agents]
    errors = [[a.mean - a.ci95[0] for a in agents], [a.ci95[1] - a.mean for a in agents]]
    ax.bar(range(len(agents)), means, yerr=errors, capsize=6, color="#4c72b0")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(agents)), [a.spec for a in agents], rotation=15, ha="right", fontsize=8)
    ax.set_ylabel("mean payoff per hand (95% CI)")
    ax.set_title(f"{summary.game}, {summary.players} players, {summary.hands} deals")
    fig.tight_layout()
    images[out / "payoff.png"] = _png(fig)
    plt.close(fig)
    if summary.regret_model:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        for index, a in enumerate(agents):
            regrets = [d.regret for d in decisions if d.agent == index]
            ax.hist(regrets, bins=40, alpha=0.6, label=a.spec)
        ax.set_xlabel(f"regret vs {summary.regret_model}")
        ax.set_ylabel("decisions")
        ax.legend(fontsize=8)
        fig.tight_layout()
        images[out / "regret.png"] = _png(fig)
        plt.close(fig)
    return images


def _cell(value: Any) -> str:
    """One value as the ``csv`` module writes it: a float (a subclass too) by ``float.__repr__``,
    anything else by ``str``, ``None`` as nothing; quoted where it holds a comma, a quote or a
    line break."""
    text = "" if value is None else float.__repr__(value) if isinstance(value, float) else str(value)
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


#: the columns of decisions.csv: a decision's fields, then the agent's name
COLUMNS = [field.name for field in dataclasses.fields(Decision)] + ["agent_name"]


def decision_lines(decisions: Sequence[Decision], names: Sequence[str]) -> str | None:
    """The rows of ``decisions`` in ``decisions.csv`` (the agent as its index in the lineup and
    by its name): the bytes ``csv.DictWriter`` writes from :meth:`Decision.to_row`, at a sixth
    of its cost; None where an agent has no name (the table then needs the writer)."""
    cells = [_cell(name) for name in names]
    if any(d.agent >= len(cells) or d.agent < 0 for d in decisions):
        return None
    if _plain(decisions):  # integers by str and three rows won, as play_group makes them
        r = float.__repr__  # how the csv module writes a float (a TypeError for anything else)
        with contextlib.suppress(TypeError):
            return "".join([
                f"{d.group},{d.rotation},{d.seat},{d.agent},{d.action},{r(d.payoff)},{r(d.ms)},{d.fouled},"
                f"{d.special},{d.xi},{(w := d.rows_won)[0]:.4g} {w[1]:.4g} {w[2]:.4g},{r(d.regret)},"
                f"{r(d.agreement)},{cells[d.agent]}\r\n" for d in decisions])
    return "".join([",".join(map(_cell, d.to_row().values())) + f",{cells[d.agent]}\r\n" for d in decisions])


_INTEGER_FIELDS = operator.attrgetter("group", "rotation", "seat", "agent", "action", "fouled", "special", "xi")


def _plain(decisions: Sequence[Decision]) -> bool:
    """Whether the decisions' integer fields are ``int`` or ``bool`` (written by ``str``, as
    ``format`` writes them: not so for a subclass, an enum) and each holds three rows won."""
    kinds = set(map(type, itertools.chain.from_iterable(map(_INTEGER_FIELDS, decisions))))
    return kinds <= {int, bool} and set(map(len, map(operator.attrgetter("rows_won"), decisions))) <= {3}


class DecisionsTable:
    """``decisions.csv`` built as a match is played: each part of the decisions (a worker's
    chunk of whole deal groups, in the order of ``(group, rotation, seat)``) is formatted
    when it arrives, so that writing the report, after an interrupt above all, only joins the
    parts. Give it to :func:`.runner.run` (which calls :meth:`start` with the agents' names and
    :meth:`add` with each part) and then to :func:`write_report`."""

    def __init__(self) -> None:
        self._names: list[str] | None = None
        self._parts: list[tuple[int, int, str]] = []  # first group, last group, rows
        self._count = 0
        self._usable = True

    @property
    def names(self) -> list[str] | None:
        """The agents' names given to :meth:`start`."""
        return self._names

    def start(self, names: Sequence[str]) -> None:
        """The agents' names, by their index in the lineup; parts added before are dropped."""
        self._names = list(names)
        self._parts, self._count, self._usable = [], 0, True

    def add(self, part: Sequence[Decision]) -> None:
        """Format one part of the decisions."""
        if not part or not self._usable:
            return
        lines = None if self._names is None else decision_lines(part, self._names)
        if lines is None:
            self._usable = False  # the table is built from all the decisions at the end instead
            return
        groups = [d.group for d in part]
        self._parts.append((min(groups), max(groups), lines))
        self._count += len(part)

    def text(self, decisions: Sequence[Decision]) -> str | None:
        """The whole table of the parts added, in the order of their deal groups, for
        ``decisions``, the decisions of those parts in that order (as :func:`.runner.run` returns
        them with this table); None where it cannot be that table: the parts' deal groups
        interleave, or ``decisions`` are not as many, or do not begin and end as the parts."""
        parts = sorted(self._parts, key=lambda p: p[0])
        if (not self._usable or self._names is None or self._count != len(decisions) or not decisions
                or any(a[1] >= b[0] for a, b in zip(parts, parts[1:]))
                or (decisions[0].group, decisions[-1].group) != (parts[0][0], parts[-1][1])):
            return None
        header = ",".join(_cell(c) for c in COLUMNS) + "\r\n"
        return header + "".join(p[2] for p in parts)


def decisions_csv(decisions: Sequence[Decision], names: Sequence[str]) -> str:
    """``decisions.csv`` of ``decisions``, the agent as its index in the lineup and by its name."""
    table = DecisionsTable()
    table.start(names)
    table.add(decisions)
    fast = table.text(decisions)
    if fast is not None:
        return fast
    out = io.StringIO(newline="")
    rows = []
    for d in decisions:
        row = d.to_row()
        rows.append({**row, "agent_name": names[d.agent]} if d.agent < len(names) else row)
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["group"])
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def write_report(summary: EvalSummary, decisions: Sequence[Decision], out: Path, plots: bool = True,
                 table: DecisionsTable | None = None) -> Path:
    """Write summary.json, summary.md, decisions.csv (and plots) under ``out``, all together
    (:func:`~splitpoker.runtime.files.write_owned_files`): each is written whole before any
    is put in place, summary.json last, so that a write that fails (a full disk) leaves no
    part of a report. ``table``: decisions.csv as it was built while the match was played
    (see :class:`DecisionsTable`); without it, or where it does not hold ``decisions``, the
    table is made here."""
    names = [agent.name for agent in summary.agents]
    text = table.text(decisions) if table is not None and table.names == names else None
    files: dict[Path, bytes] = {
        out / "decisions.csv": (decisions_csv(decisions, names) if text is None else text).encode(),
        out / "summary.md": markdown(summary).encode()}
    if plots:
        files.update(plot_images(summary, decisions, out))
    files[out / "summary.json"] = (json.dumps(summary.to_dict(), indent=2, ensure_ascii=False) + "\n").encode()
    write_owned_files(files, within=out)
    return out
