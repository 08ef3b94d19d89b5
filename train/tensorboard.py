"""A run's TensorBoard files: the writer that groups Stable-Baselines3's values under the
run's tags, the imitation epochs' writer, and the rewriting of event files before a resume.

The run's events sit in the run folder: ``charts/``, ``losses/``, ``selfplay/``, ``eval/``,
``final/``, the algorithm's own tags and the hyper-parameters; imitation epochs sit in
``imitation/`` on their own axis (epochs over all rounds).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from stable_baselines3.common.logger import KVWriter, Logger, TensorBoardOutputFormat

from ..runtime.files import owned_folder, write_owned

#: SB3 logger keys → TensorBoard tags
_RENAMES = {"time/fps": "charts/steps_per_s", "time/time_elapsed": "charts/time_elapsed",
            "time/total_timesteps": "charts/total_timesteps", "time/iterations": "charts/iterations"}


class GroupedTensorBoard(KVWriter):
    """TensorBoard writer that files SB3's ``train/`` values under ``losses/`` and ``time/`` under ``charts/``."""

    def __init__(self, folder: str | Path) -> None:
        self.inner = TensorBoardOutputFormat(str(folder))

    @staticmethod
    def rename(key: str) -> str:
        if key in _RENAMES:
            return _RENAMES[key]
        if key.startswith("train/"):
            return "losses/" + key[len("train/"):]
        if key.startswith("rollout/"):
            return "charts/" + key[len("rollout/"):]
        return key

    def write(self, key_values: dict[str, Any], key_excluded: dict[str, tuple[str, ...]], step: int = 0) -> None:
        key_values = {k: v for k, v in key_values.items() if k != "time/iterations"}  # restarts with each learn()
        key_excluded = {k: v for k, v in key_excluded.items() if k in key_values}
        self.inner.write({self.rename(k): v for k, v in key_values.items()},
                         {self.rename(k): v for k, v in key_excluded.items()}, step)

    def close(self) -> None:
        self.inner.close()


def run_logger(run_dir: Path) -> Logger:
    """The logger of a run's own events (in the run folder, :class:`GroupedTensorBoard`)."""
    return Logger(str(run_dir), [GroupedTensorBoard(run_dir)])


def record_interval(logger: Logger, tag: str, prefix: str, mean: float, ci95: Sequence[float]) -> None:
    """Record ``mean`` as ``tag`` and its 95% CI as ``prefix_ci_lo`` and ``prefix_ci_hi``."""
    logger.record(tag, mean)
    logger.record(f"{prefix}_ci_lo", ci95[0])
    logger.record(f"{prefix}_ci_hi", ci95[1])


def imitation_writer(run_dir: Path) -> Any:
    """A TensorBoard writer of imitation epochs (``imitation/`` beside the run's events)."""
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(owned_folder(run_dir / "imitation", within=run_dir)))


def drop_events_after(run_dir: Path, step: int, imitation_epochs: int, finished: bool) -> None:
    """Before a resume from the checkpoint at ``step``: drop what the stopped process logged
    after it, so that no step is logged twice: TensorBoard points beyond ``step``, the
    ``final/`` points of an unfinished run, imitation epochs beyond ``imitation_epochs`` and
    periodic evaluation files beyond ``step``."""
    for path in run_dir.glob("events.out.tfevents.*"):
        _rewrite_events(path, lambda tag, at: at <= step and (finished or not tag.startswith("final/")), run_dir)
    for path in (run_dir / "imitation").glob("events.out.tfevents.*"):
        _rewrite_events(path, lambda tag, at: at <= imitation_epochs, run_dir)
    for path in (run_dir / "eval").glob("step_*.json"):
        if path.stem[5:].isdigit() and int(path.stem[5:]) > step:
            path.unlink()


def _rewrite_events(path: Path, keep: Callable[[str, int], bool], run_dir: Path) -> None:
    """Rewrite a TensorBoard event file of ``run_dir`` without the summary values ``keep(tag, step)`` refuses."""
    from tensorboard.backend.event_processing.event_file_loader import RawEventFileLoader
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.summary.writer.record_writer import RecordWriter

    kept, dropped = [], 0
    for record in RawEventFileLoader(str(path)).Load():
        event = Event.FromString(record)
        if event.HasField("summary"):
            values = [v for v in event.summary.value if keep(v.tag, event.step)]
            if len(values) != len(event.summary.value):
                dropped += len(event.summary.value) - len(values)
                if not values:
                    continue
                del event.summary.value[:]
                event.summary.value.extend(values)
                record = event.SerializeToString()
        kept.append(record)
    if not dropped:
        return
    buffer = io.BytesIO()
    writer = RecordWriter(buffer)
    for record in kept:
        writer.write(record)
    write_owned(path, buffer.getvalue(), within=run_dir)
