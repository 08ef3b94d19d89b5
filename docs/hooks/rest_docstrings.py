"""A griffe extension for the documentation site: the project's reST-flavoured docstrings as Markdown.

The docstrings are written for reading in the source and in ``help()``: cross-references are
Sphinx roles (``:func:`name```), examples are doctests (``>>>``), code and diagrams follow a
line ending in ``::`` and a few tables are reST simple tables. Before mkdocstrings renders a
docstring, this extension rewrites those four forms into Markdown (code spans, fenced blocks);
everything else, Markdown already reads alike. Text inside fenced blocks is left as it is.
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|attr|data|obj|exc|const|ref):`(~?)([^`]+)`")
_TABLE_BORDER = re.compile(r"^\s*=+( +=+)+\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _role(match: re.Match[str]) -> str:
    tilde, target = match.groups()
    target = target.strip()
    if "<" in target and target.endswith(">"):  # :func:`text <target>`
        target = target.split("<", 1)[0].strip()
    elif tilde:
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


def _language(code: str) -> str:
    try:
        ast.parse(code)
    except SyntaxError:
        return "text"
    return "python"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _simple_table(block: list[str]) -> list[str]:
    """A reST simple table: two columns as a list of ``first: second`` items, others as text."""
    border = block[0]
    starts = [m.start() for m in re.finditer(r"=+", border)]
    rows = [b for b in block if not _TABLE_BORDER.match(b)]
    if len(starts) != 2 or len(block) - len(rows) != 2:  # a header or another column count
        return ["```text", *(_ROLE.sub(_role, b.strip("\n")) for b in block), "```"]
    items: list[list[str]] = []
    for row in rows:
        first, second = row[starts[0]:starts[1]].strip(), row[starts[1]:].strip()
        if first or not items:
            items.append([first, second])
        else:
            items[-1][1] += " " + second
    out = []
    for first, second in items:
        name = first if "`" in first else f"**{first}**"
        out.append(_ROLE.sub(_role, f"* {name}: {second}"))
    return ["", *out, ""]


def to_markdown(text: str) -> str:
    """The docstring ``text`` with roles, doctests, literal blocks and simple tables in Markdown."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    in_fence = False
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
            out.append(line)
            i += 1
            continue
        if in_fence:
            out.append(line)
            i += 1
            continue
        stripped = line.strip()
        if stripped.startswith(">>>"):  # a doctest, up to the next blank line
            pad = " " * _indent(line)
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(pad):] if lines[i].startswith(pad) else lines[i].strip())
                i += 1
            if out and out[-1].strip():
                out.append("")
            out += [f"{pad}```pycon", *(pad + b for b in block), f"{pad}```"]
            continue
        if _TABLE_BORDER.match(line):  # a reST simple table
            pad = " " * _indent(line)
            block = [line]
            i += 1
            while i < len(lines):
                block.append(lines[i])
                i += 1
                if _TABLE_BORDER.match(block[-1]) and (i >= len(lines) or not lines[i].strip()):
                    break
            if out and out[-1].strip():
                out.append("")
            out += [pad + row for row in _simple_table(block)]
            continue
        if stripped.endswith("::") and not stripped.startswith(".."):
            # the paragraph's "::" (": " when it follows text), then the indented block as code
            head = line.rstrip()[:-2].rstrip()
            body_start = i + 1
            while body_start < len(lines) and not lines[body_start].strip():
                body_start += 1
            base = _indent(line)
            j = body_start
            while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > base):
                j += 1
            while j > body_start and not lines[j - 1].strip():
                j -= 1
            if j > body_start:
                if head.strip():
                    out.append(_ROLE.sub(_role, head) + ":")
                code = textwrap.dedent("\n".join(lines[body_start:j]))
                pad = " " * base
                out += ["", f"{pad}```{_language(code)}", *(pad + c if c else c for c in code.splitlines()),
                        f"{pad}```", ""]
                i = j
                continue
        out.append(_ROLE.sub(_role, line))
        i += 1
    return "\n".join(out)


class RestDocstrings(griffe.Extension):
    """Rewrite every docstring as it is loaded (see the module docstring)."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)
