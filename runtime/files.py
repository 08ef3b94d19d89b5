"""Files of settings and results: strict reading of YAML settings files (``splitpoker train``
configs and ``splitpoker eval
--config``): a missing file, a folder, unreadable text, invalid YAML, a key given twice in one
mapping, a document that is not a mapping and a number or a bool written loosely (``010``,
which YAML reads as 8, ``0x10``, ``1_000``, ``yes``: :func:`loose_scalar`) are each one
``ValueError`` naming the file (and the line where YAML tells it); a FIFO or a device is named
as one, and never blocks the read. :func:`output_path` reads every output path the project takes
(``~`` expanded), :func:`check_writable_folder` tells, before any work, whether an output
folder can be made and written, and every file the project writes goes through
:func:`write_owned_files` (:func:`write_owned` for one file): atomically, so that a reader
never sees it half written, and never through a symbolic link it did not make.
:func:`exclusive_lock` holds a folder for one process, :func:`claimed_output` an output
folder whose files are refused where they exist, and :func:`check_owned_tree` refuses a
folder with a link planted in it.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "twice.yaml"
>>> _ = path.write_text("game: biji\\nseed: 1\\ngame: thirteen\\n")
>>> read_mapping(path, what="config")
Traceback (most recent call last):
...
ValueError: ...twice.yaml: duplicate key 'game' at line 3 (first given at line 1)
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

__all__ = ["read_mapping", "load_yaml", "loose_scalar", "output_path", "check_writable_folder", "write_owned",
           "write_owned_files", "atomic_write_bytes", "owned_folder", "check_owned_tree", "exclusive_lock",
           "claimed_output"]


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (YAML says keys are unique;
    PyYAML otherwise keeps the last silently)."""


def _mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            continue  # the constructor below reports an unhashable key
        line = key_node.start_mark.line + 1
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} at line {line} (first given at line {seen[key]})",
                key_node.start_mark)
        seen[key] = line
    return loader.construct_mapping(node, deep=True)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)

#: the most values a settings document may expand to, its aliases followed: a settings file
#: holds a few hundred; aliases of aliases ("billion laughs") expand exponentially
MAX_EXPANDED_NODES = 100_000
#: the most levels of lists and mappings a settings document may nest, one within another, its
#: aliases followed: a config nests three or four; reading and checking a value goes level by
#: level, so a deeper one is refused before it is built
MAX_YAML_DEPTH = 64


class YAMLLimitError(yaml.constructor.ConstructorError):
    """A settings document nested too deep, or holding itself through an alias; its
    ``problem`` says so in words, with the line."""

    def __init__(self, problem: str, mark: yaml.Mark | None) -> None:
        super().__init__(None, None, problem, mark)


def _too_deep(mark: yaml.Mark | None, aliases: bool = False) -> YAMLLimitError:
    line = f" at line {mark.line + 1}" if mark is not None else ""
    how = " with its aliases followed" if aliases else ""
    return YAMLLimitError(f"lists and mappings nested more than {MAX_YAML_DEPTH} levels deep{how}{line} "
                          "(settings nest a few levels; write it flatter)", mark)


def _check_nesting(text: str) -> None:
    """:class:`YAMLLimitError` when the document of ``text`` nests lists and mappings more
    than :data:`MAX_YAML_DEPTH` levels, found from its parser's events (which PyYAML makes
    without recursion) before any node is composed (which it does by recursion)."""
    depth = 0
    for event in yaml.parse(text, Loader=_StrictLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                raise _too_deep(event.start_mark)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _expanded(root: yaml.Node) -> tuple[int, int]:
    """How many nodes ``root`` stands for with every alias expanded (at most
    :data:`MAX_EXPANDED_NODES` + 1), and how many levels of lists and mappings it nests then.
    Each node is measured once, depth first, without recursion, so that this costs as much as
    the document's text; :class:`YAMLLimitError` for a node that holds itself through an alias
    and for a nesting deeper than :data:`MAX_YAML_DEPTH`."""
    measured: dict[int, tuple[int, int]] = {}
    open_nodes: set[int] = set()  # on the path from the root: met again below, a node holds itself
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            parts = [measured[id(child)] for child in _children(node)]
            size = min(1 + sum(size for size, _ in parts), MAX_EXPANDED_NODES + 1)
            depth = 1 + max((depth for _, depth in parts), default=0) if isinstance(node, yaml.CollectionNode) else 0
            if depth > MAX_YAML_DEPTH:
                raise _too_deep(node.start_mark, aliases=True)
            measured[key] = (size, depth)
            open_nodes.discard(key)
        elif key in open_nodes:
            line = f" at line {node.start_mark.line + 1}" if node.start_mark is not None else ""
            raise YAMLLimitError(f"the value{line} holds itself through an alias (a settings value cannot "
                                 "contain itself)", node.start_mark)
        elif key not in measured:
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node))
    return measured[id(root)]


def load_yaml(text: str) -> Any:
    """The document of ``text``, refusing duplicate keys, documents whose aliases expand
    to more than :data:`MAX_EXPANDED_NODES` values, and documents that nest lists and mappings
    more than :data:`MAX_YAML_DEPTH` levels deep or hold themselves through an alias (each
    found before the document is built; a ``yaml.YAMLError`` otherwise)."""
    _check_nesting(text)
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None and _expanded(node)[0] > MAX_EXPANDED_NODES:
            raise yaml.constructor.ConstructorError(
                None, None, f"its aliases expand to more than {MAX_EXPANDED_NODES:,} values", node.start_mark)
        return None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()


#: how YAML scalars must be written to be read as numbers and bools: YAML 1.1, which PyYAML
#: reads, takes 010 as octal 8, 0x10, 0b11, 1_000 and 1:30 (sexagesimal, 90) as integers, and
#: yes, no, on and off as bools
_PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_BOOL_WORDS = ("true", "false", "True", "False", "TRUE", "FALSE")
_INT_TAG, _FLOAT_TAG, _BOOL_TAG = (f"tag:yaml.org,2002:{kind}" for kind in ("int", "float", "bool"))
#: the most characters of a value a message about a settings file repeats
SHOWN_CHARS = 200


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "..."


def _as_read(written: str) -> str:
    """What YAML reads the scalar ``written`` as, written as a message shows it."""
    read = yaml.safe_load(written)
    if isinstance(read, bool):
        return str(read).lower()
    try:
        return _cut(str(read))
    except ValueError:  # an integer of more digits than Python writes
        return f"an integer of {read.bit_length():,} bits"


def loose_scalar(text: str, lines: bool = True) -> tuple[str, str] | None:
    """The key (dotted, "" for the document) and what is wrong with the first scalar of the
    YAML document ``text`` that YAML reads otherwise than it reads in decimal (``010``, octal 8;
    ``0x10``, ``1_000``, ``1:30``, ``1_0.5``) or as a bool without being true or false
    (``yes``, ``on``), with its line when ``lines``; None when there is none. ``text`` is
    valid YAML (read before, by :func:`load_yaml`). Every settings file (:func:`read_mapping`)
    and every ``train --set`` value is held to it, so that a number reads as it is written."""
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    seen: set[int] = set()
    while stack:
        node, where = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, item in reversed(node.value):
                name = key.value if isinstance(key, yaml.ScalarNode) else "?"
                stack += [(item, (*where, str(name))), (key, where)]
        elif isinstance(node, yaml.SequenceNode):
            stack += [(item, (*where, str(i))) for i, item in reversed(list(enumerate(node.value)))]
        elif isinstance(node, yaml.ScalarNode):
            written = node.value
            if node.tag == _INT_TAG and not _PLAIN_INT.fullmatch(written):
                what = "is not a plain decimal integer"
                do = "write it in decimal digits, without a leading 0, a 0x, 0o or 0b prefix, '_' or ':'"
            elif node.tag == _FLOAT_TAG and ("_" in written or ":" in written):
                what, do = "is not a plain decimal number", "write it without '_' or ':'"
            elif node.tag == _BOOL_TAG and written not in _BOOL_WORDS:
                what, do = "is not true or false", "write true or false"
            else:
                continue
            read = _as_read(written) if node.style is None else _cut(written)
            line = f" (line {node.start_mark.line + 1})" if lines else ""
            return ".".join(where), f"{_cut(written)}{line} {what} (YAML would read it as {read}); {do}"
    return None


def read_mapping(path: str | Path, what: str = "settings file") -> dict[str, Any]:
    """The mapping in the YAML file ``path`` (empty for an empty file); ValueError naming the
    file when it is missing, a folder, unreadable, invalid YAML or not a mapping, or when it
    writes a number or a bool loosely (``010``, ``0x10``, ``1_000``, ``yes``: :func:`loose_scalar`)."""
    path = Path(path)
    text = _settings_text(path, what)
    try:
        data = load_yaml(text)
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        if str(problem).startswith("duplicate key") or isinstance(error, YAMLLimitError):
            raise ValueError(f"{path}: {problem}") from None
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ValueError(f"{path}: not valid YAML{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: {'a config' if what == 'config file' else what} is a mapping of keys, "
                         f"got {type(data).__name__}")
    loose = loose_scalar(text) if data else None
    if loose:
        raise ValueError(f"{path}: {_cut(loose[0]) + ': ' if loose[0] else ''}{loose[1]}")
    return data


def _settings_text(path: Path, what: str) -> str:
    """The text of the settings file ``path``; ValueError naming it (as ``what``) when it is no
    regular file or cannot be read. It is opened without blocking (a FIFO with no writer
    answers at once) and checked on the open descriptor, so what is read is what was checked."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC)
    except OSError as error:
        if isinstance(error, FileNotFoundError) or error.errno == errno.ELOOP:
            raise ValueError(f"{what} {str(path)!r} {_not_a_file(path)}") from None
        if path.is_dir():
            raise ValueError(f"{what} {str(path)!r} is a folder, not a YAML file") from None
        raise ValueError(f"{path}: cannot be read ({error.strerror or error})") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ValueError(f"{what} {str(path)!r} is a folder, not a YAML file")
        if not stat.S_ISREG(mode):
            raise ValueError(f"{what} {str(path)!r} is {_kind(mode)}, not a YAML file")
        stream = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    try:
        with stream:
            return stream.read().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a YAML text file (not UTF-8)") from None
    except OSError as error:
        raise ValueError(f"{path}: cannot be read ({error.strerror or error})") from None


def _kind(mode: int) -> str:
    """What a file of ``mode`` that is no regular file and no folder is, in words."""
    return ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")


def _not_a_file(path: Path) -> str:
    """Why ``path`` is no regular file, in words: it does not exist, it is a FIFO or a device,
    its symbolic links loop, or the error the system gives."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "is a broken symbolic link" if path.is_symlink() else "does not exist"
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    return f"is {_kind(mode)}, not a YAML file"


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
