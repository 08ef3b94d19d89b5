"""Best-response gain against compute: how far training runs get for the CPU they spend.

Each run folder's checkpoints (``checkpoints/step_*.zip``, in the order of the CPU seconds
their ``splitpoker.json`` records) are measured by :func:`~.exploit.best_response_gain`
on the same duplicate deals (one seed for every checkpoint and run), and plotted as the
gain with its 95% CI against the CPU seconds the run had spent to reach the checkpoint.
So runs of different methods (PPO self-play, fictitious play, mirror descent) compare at
equal compute, and their differences are paired by the deals.

Each measurement is kept beside the checkpoint's run
(``eval/br_gain/<checkpoint>__samples<K>_hands<N>_seed<S>[_paired].json``), so a command run again,
or stopped and run again, measures only what it has not measured, and a figure can be
redrawn with more runs. Every run must be of the same game, table size and rules.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..agents.learned.checkpoint import read_meta
from ..runtime.files import atomic_write_bytes, output_path
from ..runtime.limits import MAX_HANDS, check_count, check_workers
from .exploit import ESTIMATORS, best_response_gain
from .report import _png


@dataclasses.dataclass(frozen=True)
class Run:
    """A run folder and the label its curve has."""

    label: str
    path: Path


@dataclasses.dataclass
class Point:
    """One checkpoint's best-response gain, at the CPU seconds its run had spent."""

    label: str
    checkpoint: str
    step: int
    cpu_seconds: float
    gain: float
    ci95: tuple[float, float]
    hands: int
    samples: int

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self) | {"ci95": list(self.ci95)}


def parse_run(text: str) -> Run:
    """``LABEL=RUN_DIR`` or ``RUN_DIR`` (labelled by the folder's name; ``~`` expanded as
    :func:`~splitpoker.runtime.files.output_path` does); ValueError naming a folder that is
    not a run's."""
    label, sep, path = text.partition("=")
    folder = output_path(path if sep else text, "run folder")
    if not (folder / "checkpoints").is_dir():
        raise ValueError(f"{folder} is not a training run's folder (it has no checkpoints/)")
    return Run(label if sep and label else folder.name, folder)


def checkpoints(run: Run) -> list[tuple[Path, dict[str, Any]]]:
    """The run's checkpoints with their ``splitpoker.json``, by the CPU seconds spent to reach
    them, from the policy its learner starts from: of the checkpoints of step 0 only the last
    (after an imitation warm start, the imitated policy; the untrained weights before it are
    left out), and ``final.zip``, the last step's weights again, left out. ValueError for a
    checkpoint made before checkpoints recorded their CPU seconds."""
    found = []
    for path in sorted((run.path / "checkpoints").glob("step_*.zip")):
        meta = read_meta(path)
        if "cpu_seconds" not in meta:
            raise ValueError(f"{path} does not record the CPU seconds spent to reach it (made by an older "
                             "splitpoker): train the run again to compare it")
        found.append((path, meta))
    if not found:
        raise ValueError(f"{run.path / 'checkpoints'} holds no step_*.zip checkpoint")
    found.sort(key=lambda item: float(item[1]["cpu_seconds"]))
    start = max(i for i, (_, meta) in enumerate(found) if int(meta["step"]) == found[0][1]["step"])
    return found[start:]


def spread(count: int, points: int) -> list[int]:
    """``points`` indices from 0 to ``count - 1``, evenly spread, the first and last always in."""
    if points < 1:
        raise ValueError(f"--points {points} must be at least 1")
    if points == 1:
        return [count - 1]
    return sorted({int(round(i)) for i in np.linspace(0, count - 1, min(points, count))})


def _table(meta: dict[str, Any]) -> tuple[Any, ...]:
    return meta["game"], int(meta["num_players"]), json.dumps(meta["rules"], sort_keys=True)


def measure(runs: Sequence[Run], *, samples: int, hands: int, points: int, seed: int = 0, workers: int = 1,
            emit: Callable[[str], None] = print, progress: bool = False,
            estimator: str = "play") -> tuple[list[Point], str | None]:
    """The best-response gain of ``points`` checkpoints of each run (evenly spread over its
    checkpoints, its first and last among them), measured or read from what was measured
    before with the same ``samples``, ``hands`` and ``seed``; and the signal that stopped
    the measurements (None: all measured; the points then are those measured before it).
    ``workers``, ``hands`` and ``estimator`` are checked before any checkpoint is read."""
    workers = check_workers(workers)
    hands = check_count(hands, "--hands", 1, MAX_HANDS)
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator {estimator!r} is not one of {', '.join(ESTIMATORS)}")
    chosen = []
    table = None
    for run in runs:
        found = checkpoints(run)
        if table is None:
            table = _table(found[0][1])
        for path, meta in found:
            if _table(meta) != table:
                raise ValueError(f"{path} is a policy for {meta['game']}, {meta['num_players']} players under other "
                                 f"rules than {runs[0].path}'s: compare runs of one game, table and rules")
        chosen += [(run, *found[i]) for i in spread(len(found), points)]
    out: list[Point] = []
    for n, (run, path, meta) in enumerate(chosen, 1):
        how = "" if estimator == "play" else f"_{estimator}"
        kept = run.path / "eval" / "br_gain" / f"{path.stem}__samples{samples}_hands{hands}_seed{seed}{how}.json"
        if kept.is_file():
            result = json.loads(kept.read_text())
        else:
            emit(f"[{n}/{len(chosen)}] {run.label}: {path.name} ({float(meta['cpu_seconds']):.0f} CPU s)")
            measured = best_response_gain(meta["game"], f"checkpoint:{path.resolve()}", samples=samples, hands=hands,
                                          players=int(meta["num_players"]), preset=meta.get("preset", "classic"),
                                          switches=meta["rules"], seed=seed, workers=workers, progress=progress,
                                          estimator=estimator)
            if measured.partial:  # what was measured before is kept; the command continues from there
                return out, measured.interrupted_by
            result = measured.to_dict()
            atomic_write_bytes(kept, json.dumps(result, ensure_ascii=False).encode(), within=run.path)
        out.append(Point(run.label, str(path), int(meta["step"]), float(meta["cpu_seconds"]), float(result["gain"]),
                         (float(result["ci95"][0]), float(result["ci95"][1])), int(result["hands"]), samples))
    return out, None


def plot(points: Sequence[Point], out: Path, title: str) -> Path:
    """Each run's gains with their 95% CIs against CPU minutes, one line per label, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    labels = list(dict.fromkeys(p.label for p in points))
    for label in labels:
        mine = [p for p in points if p.label == label]
        x = np.array([p.cpu_seconds / 60 for p in mine])
        y = np.array([p.gain for p in mine])
        errors = np.array([[p.gain - p.ci95[0] for p in mine], [p.ci95[1] - p.gain for p in mine]])
        ax.errorbar(x, y, yerr=errors, marker="o", capsize=3, label=label)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("CPU minutes spent by the run")
    ax.set_ylabel("best-response gain per hand (95% CI)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    image = _png(fig)
    plt.close(fig)
    return atomic_write_bytes(out, image)
