"""Files read only when they are regular files: :func:`open_regular` opens one without
blocking (a FIFO with no writer answers at once) and checks it on the open descriptor, so
what is read is what was checked; :func:`file_kind` names what a path that is no regular
file is. Policy files and settings files are read through it, each naming its own refusals.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import IO

__all__ = ["open_regular", "file_kind"]

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def file_kind(mode: int) -> str:
    """What a file of ``mode`` that is no regular file is, in words.

    >>> file_kind(stat.S_IFIFO), file_kind(stat.S_IFDIR)
    ('a FIFO (named pipe)', 'a folder')
    """
    return ("a folder" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "not a regular file")


def open_regular(path: Path, refused: Callable[[int], Exception]) -> IO[bytes]:
    """``path`` open for binary reading when it is a regular file. It is opened without
    blocking and checked on the open descriptor: a path of another kind raises
    ``refused(mode)`` (the descriptor closed); the open's own ``OSError`` propagates."""
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise refused(mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
