"""Worker processes that can be stopped at any moment without hanging.

:func:`worker_pool` starts the processes of a parallel command (``eval``, ``exploit``,
imitation labels). A Ctrl-C in the terminal (and a SIGTERM sent to a process group) reaches
every process of the group: the workers are born ignoring both signals
(:func:`~.interrupts.spawning_deaf`) and their parent, interrupted, kills them.

Each worker has a pipe of its own and holds one task at a time, so a worker killed in the
middle of anything, sending a large result included, breaks only its own pipe, which the
parent then drops. A ``multiprocessing.Pool`` shares one result queue and its lock between
its workers: a worker killed while writing leaves the lock held and half a message in the
queue, and terminating the pool then waits forever. A worker that dies on its own (killed
from outside, out of memory) is one clear error instead of a pool that waits for its result.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar, cast

from .interrupts import spawning_deaf

__all__ = ["WorkerPool", "WorkerDied", "worker_pool"]

T = TypeVar("T")
R = TypeVar("R")


class WorkerDied(RuntimeError):
    """A worker process ended while it held a task."""


def _serve(connection: Connection) -> None:
    """A worker's loop: run each ``(function, item)`` it is sent and send back ``(True, result)``
    or ``(False, error)``, until it is sent ``None`` or its parent is gone."""
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        function, item = task
        try:
            reply: tuple[bool, Any] = (True, function(item))
        except Exception as error:  # handed to the parent, which raises it
            reply = (False, error)
        try:
            try:
                connection.send(reply)
            except Exception as unsent:  # a result or error that does not pickle
                cause = unsent if reply[0] else reply[1]
                connection.send((False, RuntimeError(f"{type(cause).__name__}: {cause}")))
        except OSError:  # the parent is gone
            return


class WorkerPool:
    """``processes`` worker processes of a ``multiprocessing`` context, each fed one task at a
    time over its own pipe; made and stopped by :func:`worker_pool`."""

    def __init__(self, context: Any, processes: int) -> None:
        self._workers: list[tuple[Any, Connection]] = []
        self._held: dict[Connection, int] = {}  # a worker's pipe: the index of the task it holds
        with spawning_deaf():
            for _ in range(processes):
                here, there = context.Pipe()
                process = context.Process(target=_serve, args=(there,), daemon=True)
                self._workers.append((process, here))
                process.start()
                there.close()

    def imap_unordered(self, function: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``function`` of each item, in the order they are done. A worker's error is raised
        here; the processes are not stopped by it (leaving :func:`worker_pool` stops them)."""
        for _, result in self._results(function, items):
            yield result

    def imap(self, function: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """``function`` of each item, in the order of the items."""
        done: dict[int, R] = {}
        ahead = 0
        for index, result in self._results(function, items):
            done[index] = result
            while ahead in done:
                yield done.pop(ahead)
                ahead += 1

    def map(self, function: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``function`` of each item, as a list in the order of the items."""
        return list(self.imap(function, items))

    def _results(self, function: Callable[[T], R], items: Iterable[T]) -> Iterator[tuple[int, R]]:
        """``(index, result)`` as the results arrive; each worker is sent its next task as soon
        as its result is in, before the result is handed on."""
        tasks = iter(enumerate(items))
        owner = {connection: process for process, connection in self._workers}

        def give(connection: Connection) -> None:
            task = next(tasks, None)
            if task is not None:
                connection.send((function, task[1]))
                self._held[connection] = task[0]

        for _, connection in self._workers:
            give(connection)
        while self._held:
            for ready in wait(list(self._held)):
                connection = cast(Connection, ready)
                index = self._held.pop(connection)
                try:
                    ok, value = connection.recv()
                except (EOFError, OSError):
                    process = owner[connection]
                    process.join(timeout=5)
                    raise WorkerDied(f"a worker process (pid {process.pid}) ended with exit code "
                                     f"{process.exitcode} while it held a task") from None
                if not ok:
                    raise value
                give(connection)
                yield index, value

    def close(self) -> None:
        """End the workers: those still holding a task whose result nobody will read (the
        results were left unread) are killed, the others end once sent ``None``."""
        for process, connection in self._workers:
            if connection in self._held:
                process.kill()
            else:
                with contextlib.suppress(OSError):
                    connection.send(None)
        self._join()

    def kill(self) -> None:
        """Kill every worker at once, whatever it is doing, and wait for them."""
        for process, _ in self._workers:
            if process.exitcode is None:
                process.kill()
        self._join()

    def _join(self) -> None:
        for process, connection in self._workers:
            process.join()
            connection.close()
        self._held.clear()


@contextlib.contextmanager
def worker_pool(context: Any, processes: int) -> Iterator[WorkerPool]:
    """A :class:`WorkerPool` of ``processes`` workers that ignore SIGINT and SIGTERM. On leaving
    the block normally the workers finish their tasks and end; on any exception (an interrupt
    above all) they are killed, so nothing hangs and no worker prints a traceback."""
    pool = WorkerPool(context, processes)
    try:
        yield pool
    except BaseException:
        pool.kill()
        raise
    pool.close()
