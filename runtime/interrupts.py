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

A Ctrl-C in the terminal (and a SIGTERM sent to a process group) reaches every process of
the group. Processes started inside :func:`spawning_deaf` are born ignoring both signals (a
signal ignored in the parent while it spawns them stays ignored in the new interpreter from
its first instruction), and their parent stops them: the worker pools of :mod:`.workers`,
the vectorised envs of training.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["Interrupted", "handled", "unmasked", "spawning_deaf", "exit_status", "SIGNALS"]

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
    parent stops them: a pool by :func:`.workers.worker_pool`, vectorised envs by closing them."""
    return _signals_to(signal.SIG_IGN)
