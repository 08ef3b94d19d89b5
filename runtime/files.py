"""Files of settings and results: strict reading of YAML settings files (``splitpoker train``
configs and ``splitpoker eval
--config``): a missing file, a folder, unreadable text, invalid YAML, a key given twice in one
mapping and a document that is not a mapping are each one ``ValueError`` naming the file (and
the line where YAML tells it). :func:`check_writable_folder` tells, before any work, whether
an output folder can be made and written; :func:`atomic_write_bytes` writes a file so that a
reader never sees it half written.

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
import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

__all__ = ["read_mapping", "load_yaml", "check_writable_folder", "atomic_write_bytes", "exclusive_lock"]


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


def _expanded_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """How many nodes ``node`` stands for with every alias expanded (each node's size computed
    once, so that this costs as much as the document's text)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, sizes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes) + _expanded_size(v, sizes) for k, v in node.value)
    sizes[id(node)] = min(size, MAX_EXPANDED_NODES + 1)
    return sizes[id(node)]


def load_yaml(text: str) -> Any:
    """The document of ``text``, refusing duplicate keys and documents whose aliases expand
    to more than :data:`MAX_EXPANDED_NODES` values (a ``yaml.YAMLError`` otherwise)."""
    loader = _StrictLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None and _expanded_size(node, {}) > MAX_EXPANDED_NODES:
            raise yaml.constructor.ConstructorError(
                None, None, f"its aliases expand to more than {MAX_EXPANDED_NODES:,} values", node.start_mark)
        return None if node is None else loader.construct_document(node)
    finally:
        loader.dispose()


def read_mapping(path: str | Path, what: str = "settings file") -> dict[str, Any]:
    """The mapping in the YAML file ``path`` (empty for an empty file); ValueError naming the
    file when it is missing, a folder, unreadable, invalid YAML or not a mapping."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a folder, not a YAML file")
    if not path.is_file():
        raise ValueError(f"{what} {str(path)!r} {_not_a_file(path)}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a YAML text file (not UTF-8)") from None
    except OSError as error:
        raise ValueError(f"{path}: cannot be read ({error.strerror})") from None
    try:
        data = load_yaml(text)
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        if str(problem).startswith("duplicate key"):
            raise ValueError(f"{path}: {problem}") from None
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ValueError(f"{path}: not valid YAML{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: {'a config' if what == 'config file' else what} is a mapping of keys, "
                         f"got {type(data).__name__}")
    return data


def _not_a_file(path: Path) -> str:
    """Why ``path`` is no regular file, in words: it does not exist, it is a FIFO or a device,
    its symbolic links loop, or the error the system gives."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "is a broken symbolic link" if path.is_symlink() else "does not exist"
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    return f"is {kind}, not a YAML file"


def check_writable_folder(path: str | Path, what: str) -> Path:
    """``path`` when it is a folder this process can write, or one it can create (nothing is
    created); ValueError naming ``what`` and the path otherwise."""
    path = Path(path).expanduser()
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


def atomic_write_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file beside it (flushed to disk) and
    ``os.replace``: a process killed at any moment leaves the old file or the new one. A
    write that fails (a full disk) leaves the old file too, and raises an ``OSError`` naming
    ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:  # a full disk, a quota: the old file stays, the partial one goes
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror or str(error), str(path)) from None
    return path


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
    holder = Path(folder) / ".holder"
    claimed = []

    def claim() -> None:
        holder.write_text(f"process {os.getpid()} (since {time.strftime('%Y-%m-%d %H:%M:%S')})\n", encoding="utf-8")
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
            try:
                who = holder.read_text(encoding="utf-8").strip()
            except OSError:
                who = ""
            raise ValueError(f"{folder} is in use by {who or 'another process'}; a {what} is written by one "
                             "process at a time") from None
        try:
            yield claim
        finally:
            if claimed:
                holder.unlink(missing_ok=True)
    finally:
        os.close(descriptor)
