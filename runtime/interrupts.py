"""Interrupts: SIGTERM handled like Ctrl-C, worker processes that leave them to their parent.

``SIGTERM`` is what ``timeout``, job schedulers and container stops send. Inside
:func:`handled`, both it and ``SIGINT`` (Ctrl-C) raise :class:`Interrupted`, a
``KeyboardInterrupt`` that names the signal, so one ``except KeyboardInterrupt`` saves the
work of either; a ``decide`` function may instead defer a signal to a safe point (the caller
then raises :class:`Interrupted` itself). An interrupt raised while a compiled (numba)
function is being called comes out of the call as a ``SystemError`` caused by it;
:func:`unmasked` (part of :func:`handled`) raises the interrupt itself instead. The exit
status of an interrupted command is :func:`exit_status`: 130 for ``SIGINT``, 143 for
``SIGTERM``.

Worker pools are made by :func:`worker_pool`. A Ctrl-C in the terminal (and a SIGTERM sent to
a process group) reaches every process of the group, and a worker interrupted inside a queue
operation can deadlock the pool, or print a traceback while it starts. The workers are born
ignoring both signals (a signal ignored in the parent while it spawns them stays ignored in
the new interpreter from its first instruction); the parent, interrupted, kills them and
terminates the pool.
"""

from __future__ import annotations

import contextlib
import multiprocessing.pool
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Interrupted", "handled", "unmasked", "worker_pool", "exit_status", "SIGNALS"]

#: the signals handled like Ctrl-C
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM: ``signum`` says which."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


def signal_of(error: BaseException) -> int:
    """The signal behind an interrupt (a plain KeyboardInterrupt is SIGINT)."""
    return int(getattr(error, "signum", signal.SIGINT))


def exit_status(signum: int) -> int:
    """128 + the signal number: 130 for SIGINT, 143 for SIGTERM."""
    return 128 + int(signum)


@contextlib.contextmanager
def _signals_to(handler: Any) -> Iterator[None]:
    """SIGINT and SIGTERM go to ``handler`` while the block runs, in the main thread (elsewhere
    nothing changes); the previous handlers come back after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    for s in SIGNALS:
        signal.signal(s, handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@contextlib.contextmanager
def unmasked() -> Iterator[None]:
    """Ctrl-C or SIGTERM in the block leaves it as a ``KeyboardInterrupt``, also where it
    arrived while a compiled function was being called: the call then reports it as a
    ``SystemError`` ("returned a result with an exception set") caused by the interrupt
    (directly, or through another such error or one raised while handling it), and the
    interrupt itself is raised instead."""
    try:
        yield
    except SystemError as error:
        stop = _interrupt_behind(error)
        if stop is None:
            raise
        raise stop from None


def _interrupt_behind(error: BaseException) -> KeyboardInterrupt | None:
    """The interrupt that ``error`` was caused by or raised while handling, if any."""
    seen: set[int] = set()
    link: BaseException | None = error
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return link
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return None


@contextlib.contextmanager
def handled(decide: Callable[[int], bool] | None = None) -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`Interrupted` while the block runs (in the main thread;
    elsewhere nothing changes), also from inside a compiled function's call (:func:`unmasked`).
    ``decide(signum)`` returning False defers the signal: the caller has recorded it and
    raises at a safe point."""

    def handler(signum: int, frame: object) -> None:
        if decide is None or decide(signum):
            raise Interrupted(signum)

    with _signals_to(handler), unmasked():
        yield


def spawning_deaf() -> contextlib.AbstractContextManager[None]:
    """Processes spawned inside the block ignore SIGINT and SIGTERM from their first instruction
    (the parent ignores them meanwhile: a signal in these few milliseconds is lost). Their
    parent stops them: a pool by :func:`worker_pool`, vectorised envs by closing them."""
    return _signals_to(signal.SIG_IGN)


@contextlib.contextmanager
def worker_pool(context: Any, processes: int) -> Iterator[Any]:
    """A ``multiprocessing`` pool of ``processes`` workers that ignore SIGINT and SIGTERM. On
    leaving the block normally the pool is closed and joined; on any exception (an interrupt
    above all) the workers are killed and the pool terminated, so nothing hangs and no worker
    prints a traceback."""
    with spawning_deaf():
        pool = context.Pool(processes)
    try:
        yield pool
    except BaseException:
        _stop_replacing(pool)
        workers = list(getattr(pool, "_pool", ()))
        for process in workers:  # they ignore SIGTERM: the parent kills them
            if process.exitcode is None:
                process.kill()
        for process in workers:
            process.join()
        _release_task_lock(pool)
        pool.terminate()
        raise
    pool.close()
    pool.join()


def _stop_replacing(pool: Any) -> None:
    """Stop the pool's thread that replaces workers that exit, before the parent kills them: a
    replacement would be born hearing the signals (outside :func:`spawning_deaf`), could take
    the task queue's lock before ``terminate()`` and die holding it, and print a traceback at
    the next Ctrl-C."""
    handler = getattr(pool, "_worker_handler", None)
    if handler is None:
        return
    handler._state = multiprocessing.pool.TERMINATE
    notifier = getattr(pool, "_change_notifier", None)
    if notifier is not None:
        notifier.put(None)  # wakes the thread, which then sees the state and ends
    handler.join(timeout=10)


def _release_task_lock(pool: Any) -> None:
    """Free the task queue's read lock that a killed worker may have died holding (an idle worker
    waits for its next task holding it), which ``terminate()`` takes and would wait for forever.
    Every worker is dead here, so a held lock has no live owner; a free one stays free."""
    lock = getattr(getattr(pool, "_inqueue", None), "_rlock", None)
    if lock is not None:
        with contextlib.suppress(ValueError):  # it was not held
            lock.release()
