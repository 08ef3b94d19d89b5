"""Files the project writes, and the paths it takes. :func:`output_path` reads every output
path (``~`` expanded), :func:`check_writable_folder` tells, before any work, whether an output
folder can be made and written, and every file the project writes goes through
:func:`write_owned_files` (:func:`write_owned` for one file): atomically, so that a reader
never sees it half written, and never through a symbolic link it did not make.
:func:`exclusive_lock` holds a folder for one process, :func:`claimed_output` an output
folder whose files are refused where they exist, and :func:`check_owned_tree` refuses a
folder with a link planted in it. Settings files are read by :mod:`.settings` (its
:func:`~.settings.read_mapping` and :func:`~.settings.load_yaml` are importable from here too).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from .settings import load_yaml, loose_scalar, read_mapping

__all__ = ["read_mapping", "load_yaml", "loose_scalar", "output_path", "check_writable_folder", "write_owned",
           "write_owned_files", "atomic_write_bytes", "owned_folder", "check_owned_tree", "exclusive_lock",
           "claimed_output", "free_path"]


def output_path(value: str | os.PathLike[str], what: str) -> Path:
    """The path an output option or setting names (``--out``, ``output_dir``, a config's
    ``out``), with ``~`` expanded as a shell expands it; every output path the project takes
    is read here, so ``'~/x'`` means the same everywhere and no folder named ``~`` is made.
    ValueError naming ``what`` for an empty value, one that is not a path, or a ``~`` that
    cannot be expanded."""
    try:
        text = os.fspath(value)
    except TypeError:
        raise ValueError(f"{what} {value!r} is not a path; give a folder or file name") from None
    if not isinstance(text, str):
        text = os.fsdecode(text)
    if not text.strip():
        raise ValueError(f"{what} {text!r} names no path; give a folder or file name")
    try:
        path = Path(text).expanduser()
    except RuntimeError:
        path = Path(text)
    if path.parts and path.parts[0].startswith("~"):
        raise ValueError(f"{what} {text!r}: {path.parts[0]} cannot be expanded (no such home folder); "
                         "give the path in full")
    return path


def free_path(base: Path, separator: str = "_") -> Path:
    """``base``, or where it exists the first of ``base_2``, ``base_3``, ... (``separator``
    before the number) that does not: a new output folder beside earlier ones."""
    path, n = base, 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}{separator}{n}")
    return path


def check_writable_folder(path: str | Path, what: str) -> Path:
    """``path`` (read by :func:`output_path`) when it is a folder this process can write, or
    one it can create (nothing is created); ValueError naming ``what`` and the path otherwise."""
    path = output_path(path, what)
    probe = path
    while not probe.exists():
        if probe.is_symlink():
            raise ValueError(f"{what} {str(path)!r}: {probe} is a broken symbolic link")
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        where = "is a file" if probe == path else f"is under {probe}, which is a file"
        raise ValueError(f"{what} {str(path)!r} {where}, not a folder")
    if probe.exists() and not os.access(probe, os.W_OK | os.X_OK):
        where = "" if probe == path else f" ({probe} is not writable)"
        raise ValueError(f"{what} {str(path)!r} cannot be written{where}")
    return path


# --------------------------------------------------------------------------- files the project writes
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _link_refused(path: Path) -> ValueError:
    return ValueError(f"{path} is a symbolic link; splitpoker writes only files and folders it made, never "
                      "through a link: remove the link, or choose another folder")


def _open_folder(folder: Path, within: Path | None) -> int:
    """A descriptor of ``folder``, made where missing. ``within`` (``folder`` itself when None)
    is the folder the caller names, made with its parents where missing (it may be a link
    the user made); every folder between it and ``folder`` is made here or must be a real
    folder: a symbolic link there is a ValueError naming it, never followed."""
    within = folder if within is None else within
    try:
        parts = folder.relative_to(within).parts
    except ValueError:
        raise ValueError(f"{folder} is not inside {within}") from None
    if ".." in parts:
        raise ValueError(f"{folder} is not inside {within}")
    within.mkdir(parents=True, exist_ok=True)
    fd = os.open(within, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    here = within
    try:
        for part in parts:
            here = here / part
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, dir_fd=fd)
            try:
                inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as error:
                if os.path.islink(here):
                    raise _link_refused(here) from None
                if error.errno == errno.ENOTDIR:
                    raise ValueError(f"{here} is a file where splitpoker keeps a folder; move it away") from None
                raise OSError(error.errno, error.strerror or str(error), str(here)) from None
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def owned_folder(folder: str | Path, within: str | Path | None = None) -> Path:
    """Make ``folder`` (with the folders between ``within`` and it) the way
    :func:`write_owned_files` does, following no link below ``within``; ValueError naming a
    link found there."""
    folder = Path(folder)
    os.close(_open_folder(folder, None if within is None else Path(within)))
    return folder


def _read_unfollowed(fd: int, name: str) -> bytes:
    """The bytes of ``name`` in the folder ``fd`` (nothing where it is missing), refusing a link."""
    try:
        handle = os.open(name, os.O_RDONLY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
    except FileNotFoundError:
        return b""
    with os.fdopen(handle, "rb") as stream:
        return stream.read()


def _stage(fd: int, path: Path, data: bytes, append: bool) -> str:
    """Write ``data`` (after the file's bytes, with ``append``) to a new temporary file beside
    ``path`` in the folder ``fd``, flushed to disk; its name. The target must be no link and
    no folder."""
    name = path.name
    with contextlib.suppress(FileNotFoundError):
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            raise _link_refused(path)
        if stat.S_ISDIR(mode):
            raise ValueError(f"{path} is a folder where splitpoker writes a file; move it away")
    try:
        if append:
            data = _read_unfollowed(fd, name) + data
        while True:
            tmp = f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
            try:
                handle = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o666, dir_fd=fd)
                break
            except FileExistsError:
                continue
    except OSError as error:
        raise OSError(error.errno, error.strerror or str(error), str(path)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
    except OSError as error:  # a full disk, a quota: the partial file goes
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=fd)
        raise OSError(error.errno, error.strerror or str(error), str(path)) from None
    return tmp


def write_owned_files(files: Mapping[str | Path, bytes], *, within: str | Path | None = None,
                      append: bool = False) -> list[Path]:
    """Write each file of ``files`` (path → bytes, all in one folder) so that no link is ever
    followed and no reader sees a file half written; every file the project writes goes
    through here (run folders, reports, plots, checkpoints, state, the lock's ``.holder``).

    ``within`` is the folder the caller owns (the files' folder when None): the folders
    between it and the files are made here, and one that is a symbolic link is refused (a
    ValueError naming it), as is a file that is a link. Each file is written to a temporary
    file beside it (``O_CREAT | O_EXCL | O_NOFOLLOW``), flushed to disk, and only once every
    file is written are they put in place by ``os.replace``, in the order given (the last
    one given appears last). A write that fails (a full disk) leaves every old file as it
    was and no new one, and raises an ``OSError`` naming the file. ``append``: each file's
    bytes go after what the file holds (read, then rewritten the same way)."""
    paths = [Path(p) for p in files]
    if not paths:
        return []
    folder = paths[0].parent
    if any(p.parent != folder for p in paths):
        raise ValueError(f"the files written together must share one folder, {folder}")
    fd = _open_folder(folder, None if within is None else Path(within))
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in zip(paths, files.values()):
            staged.append((_stage(fd, path, data, append), path))
        while staged:
            tmp, path = staged[0]
            try:
                os.replace(tmp, path.name, src_dir_fd=fd, dst_dir_fd=fd)
            except OSError as error:
                raise OSError(error.errno, error.strerror or str(error), str(path)) from None
            staged.pop(0)
        with contextlib.suppress(OSError):  # the new names themselves on disk
            os.fsync(fd)
    finally:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
        os.close(fd)
    return paths


def write_owned(path: str | Path, data: bytes, *, within: str | Path | None = None, append: bool = False) -> Path:
    """Write one file as :func:`write_owned_files` does: atomically (a process killed at any
    moment leaves the old file or the new one; a failed write leaves the old one and raises
    an ``OSError`` naming ``path``), never through a link."""
    return write_owned_files({Path(path): data}, within=within, append=append)[0]


#: the name earlier code knows :func:`write_owned` by
atomic_write_bytes = write_owned


def check_owned_tree(folder: str | Path, what: str) -> None:
    """ValueError naming the first symbolic link inside ``folder`` (``folder`` itself may be
    one): a folder splitpoker writes holds only what it made, and is refused, before any
    work, rather than written through a link planted in it."""
    for root, folders, names in os.walk(folder):
        for name in sorted([*folders, *names]):
            path = Path(root) / name
            if path.is_symlink():
                raise ValueError(f"{path} is a symbolic link; a {what} holds only files and folders splitpoker "
                                 "made: remove the link (or put what it points to in its place)")


@contextlib.contextmanager
def claimed_output(folder: Path, names: Sequence[str], *, force: bool, what: str = "report folder",
                   option: str = "--out", holds: str = "a report") -> Iterator[Path]:
    """Hold the output ``folder`` for the block (:func:`exclusive_lock`, claimed at once): a
    second command writing the same folder meanwhile is refused in one line. Each file of
    ``names`` the command writes there must not exist yet, or ``force`` is given; a link or a
    folder by that name is refused even then. All this is checked before the folder is
    made and again once it is held. A folder made here and left empty (the command failed
    before writing) is removed."""

    def check() -> None:
        for name in names:
            path = folder / name
            if path.is_symlink():
                raise _link_refused(path)
            if path.is_dir():
                raise ValueError(f"{option} {str(folder)!r}: {path} is a folder where splitpoker writes a file; "
                                 "choose another folder")
            if path.exists() and not force:
                raise ValueError(f"{option} {str(folder)!r} already holds {holds} ({name} would be replaced); "
                                 "choose another folder, or give --force to replace it")

    check()
    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with exclusive_lock(folder, what) as claim:
            check()
            claim()
            yield folder
    finally:
        if made:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty: nothing was written


@contextlib.contextmanager
def exclusive_lock(folder: Path, what: str = "folder") -> Iterator[Callable[[], None]]:
    """Hold ``folder`` for the block: one process at a time. A second process (or a second
    holder in this one) gets a ``ValueError`` naming the holder. The lock is the operating
    system's (``flock`` on the folder itself), so it creates no file and is released when
    its holder ends, however it ends: a killed run never leaves its folder locked. The block
    gets ``claim()``, which writes ``folder/.holder`` (the process id and the time) for the
    message a second process shows, once the holder's checks have passed and it starts to
    write; the file goes when the block ends. On a system without ``fcntl`` the block runs
    unlocked."""
    folder = Path(folder)
    holder = folder / ".holder"
    claimed = []

    def claim() -> None:
        stamp = f"process {os.getpid()} (since {time.strftime('%Y-%m-%d %H:%M:%S')})\n"
        write_owned(holder, stamp.encode(), within=folder)
        claimed.append(True)

    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield claim
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            who = _holder(folder)
            raise ValueError(f"{folder} is in use by {who or 'another process'}; a {what} is written by one "
                             "process at a time") from None
        try:
            yield claim
        finally:
            if claimed:
                holder.unlink(missing_ok=True)
    finally:
        os.close(descriptor)


def _holder(folder: Path) -> str:
    """The first line of ``folder/.holder`` (nothing where it is missing, a link or unreadable)."""
    try:
        fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError:
        return ""
    try:
        text = _read_unfollowed(fd, ".holder")[:200].decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)
    return text.strip().splitlines()[0] if text.strip() else ""
