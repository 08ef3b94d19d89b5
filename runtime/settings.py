"""Settings files: strict reading of YAML settings (``splitpoker train`` configs, ``splitpoker
eval --config`` and every ``--set`` value). A missing file, a folder, unreadable text, invalid
YAML, a key given twice in one mapping, a document that is not a mapping, one nested too deep
or expanding too far through its aliases, and a number or a bool written loosely (``010``,
which YAML reads as 8, ``0x10``, ``1_000``, ``yes``: :func:`loose_scalar`) are each one
``ValueError`` naming the file (and the line where YAML tells it); a FIFO or a device is named
as one, and never blocks the read.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "twice.yaml"
>>> _ = path.write_text("game: biji\\nseed: 1\\ngame: thirteen\\n")
>>> read_mapping(path, what="config")
Traceback (most recent call last):
...
ValueError: ...twice.yaml: duplicate key 'game' at line 3 (first given at line 1)
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import yaml

from .arguments import WHOLE_DECIMAL, cut
from .reading import file_kind, open_regular

__all__ = ["read_mapping", "load_yaml", "loose_scalar", "YAMLLimitError", "MAX_EXPANDED_NODES", "MAX_YAML_DEPTH"]


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
_BOOL_WORDS = ("true", "false", "True", "False", "TRUE", "FALSE")
_INT_TAG, _FLOAT_TAG, _BOOL_TAG = (f"tag:yaml.org,2002:{kind}" for kind in ("int", "float", "bool"))
#: the most characters of a value a message about a settings file repeats
SHOWN_CHARS = 200


def _cut(text: str) -> str:
    return cut(text, SHOWN_CHARS)


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
            if node.tag == _INT_TAG and not WHOLE_DECIMAL.fullmatch(written):
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
    regular file or cannot be read (read by :func:`~.reading.open_regular`: a FIFO with no
    writer answers at once, and what is read is what was checked)."""
    def refused(mode: int) -> ValueError:
        return ValueError(f"{what} {str(path)!r} is {file_kind(mode)}, not a YAML file")

    try:
        stream = open_regular(path, refused)
    except OSError as error:
        if isinstance(error, FileNotFoundError) or error.errno == errno.ELOOP:
            raise ValueError(f"{what} {str(path)!r} {_not_a_file(path)}") from None
        if path.is_dir():
            raise ValueError(f"{what} {str(path)!r} is a folder, not a YAML file") from None
        raise ValueError(f"{path}: cannot be read ({error.strerror or error})") from None
    try:
        with stream:
            return stream.read().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a YAML text file (not UTF-8)") from None
    except OSError as error:
        raise ValueError(f"{path}: cannot be read ({error.strerror or error})") from None


def _not_a_file(path: Path) -> str:
    """Why ``path`` is no regular file, in words: it does not exist, it is a FIFO or a device,
    its symbolic links loop, or the error the system gives."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "is a broken symbolic link" if path.is_symlink() else "does not exist"
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    return f"is {file_kind(mode)}, not a YAML file"
