"""Rich progress bars with ETA for long work (on stderr, so ``--json`` stdout stays clean)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

T = TypeVar("T")


def progress_bar(*columns: ProgressColumn, transient: bool = False, disable: bool = False) -> Progress:
    """A bar with count, elapsed time and ETA; ``columns`` are shown after the count."""
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), *columns,
                    TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=Console(stderr=True), transient=transient, disable=disable)


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Iterate with a progress bar."""
    with progress_bar() as bar:
        task = bar.add_task(description, total=total if total is not None else len(items))  # type: ignore[arg-type]
        for item in items:
            yield item
            bar.advance(task)
