"""The agent-spec grammar, in one place, and the registry of agent kinds.

Specs::

    random                                        uniform over valid splits
    greedy                                        strongest last row, then strongest middle row
    heuristic                                     the valid split of the highest value against greedy rows
    solver[:samples=256,opponent=greedy,seed=0]   the exhaustive solver
    checkpoint:PATH                               a trained policy saved by ``splitpoker train``
    pretrained:NAME                               a policy shipped with the package
    mixture:SPEC;SPEC;...                         each seat played by one of the specs, drawn uniformly
    package.module:attr[:key=value,...]           any importable agent class or factory, with keyword arguments

A spec is ``kind`` or ``kind:argument``. The solver's argument is ``key=value`` options
separated by commas, and its ``opponent`` is itself a spec; a mixture's argument is member
specs separated by semicolons. A nested spec that holds the separator of the spec around it
is written in parentheses: ``solver:opponent=(mixture:(solver:samples=4,opponent=greedy);random),samples=64``.
The argument of ``checkpoint`` and ``pretrained`` is taken as it is, so a path may hold any
character (inside a mixture or an option, parentheses keep its ``;`` or ``,``). An import,
``package.module:attr``, may add ``:key=value`` options separated by commas, the keyword
arguments of the factory (a value in parentheses where it holds a comma); a value written as
a plain decimal number is that number (:func:`keyword_value`), any other is text.

Text is read once, where it enters (the command line, a config, :func:`load_agent`): the
result is an :class:`AgentSpec`, a tree of kinds, options and members, at most
:data:`MAX_SPEC_DEPTH` specs deep (a deeper one is one ValueError, found level by level
before anything is built). Code builds specs as objects (:func:`checkpoint_spec`,
:func:`mixture_spec`, :meth:`AgentSpec.with_options`) and passes them on; their text
(:attr:`AgentSpec.text`) reads back to the same spec.

>>> spec = parse_spec("solver:samples=64,opponent=checkpoint:runs/x")
>>> spec.kind, spec.options["samples"], spec.options["opponent"]
('solver', '64', AgentSpec(kind='checkpoint', argument='runs/x'))
>>> mixed = mixture_spec([checkpoint_spec("runs/a;b/c.zip"), parse_spec("greedy")])
>>> mixed.text
'mixture:(checkpoint:runs/a;b/c.zip);greedy'
>>> parse_spec(mixed.text) == mixed
True
>>> own = parse_spec("myagents.scorer:ScorerAgent:weights=(w,1.pt), temperature=0.5")
>>> own.argument, own.options
('myagents.scorer:ScorerAgent', {'weights': 'w,1.pt', 'temperature': '0.5'})
>>> own.canonical
'myagents.scorer:ScorerAgent:weights=(w,1.pt),temperature=0.5'
>>> parse_spec(own.canonical) == own, import_keywords(own)
(True, {'weights': 'w,1.pt', 'temperature': 0.5})
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from keyword import iskeyword
from pathlib import Path
from types import MappingProxyType
from typing import Any, Union

from ..runtime.registry import Registry

__all__ = ["AGENT_KINDS", "AGENT_BUILDERS", "SPEC_FORMS", "MAX_SPEC_DEPTH", "TABLE_KEYWORDS", "AgentSpec", "SpecLike",
           "parse_spec", "split_outside_parentheses", "parse_options", "format_options", "bad_spec", "check_spec",
           "member_specs", "checkpoint_spec", "mixture_spec", "keyword_value", "import_keywords"]


@dataclasses.dataclass(frozen=True)
class AgentKind:
    """A registered kind of agent: how its spec reads (its builder is in :data:`AGENT_BUILDERS`)."""

    form: str
    #: whether the spec takes an argument after ``kind:`` (``None``: optional)
    argument: bool | None
    argument_name: str = ""
    #: how the argument reads: ``"text"`` as it is, ``"options"`` key=value pairs, ``"members"`` specs
    layout: str = "text"
    #: the options whose values are agent specs
    spec_options: tuple[str, ...] = ()


_KINDS: dict[str, AgentKind] = {}
#: every agent kind by name (read-only); ``package.module:attr`` specs import outside code instead
AGENT_KINDS: Mapping[str, AgentKind] = MappingProxyType(_KINDS)
#: the function that builds each agent kind, called as ``f(spec, game, num_players, seed)``,
#: imported when first asked for (the learned kinds' modules need the ``[train]`` extra)
AGENT_BUILDERS: Registry[Any] = Registry("agent kind")


def _register(name: str, kind: AgentKind, builder: str) -> None:
    """Register agent kind ``name``: how its spec reads, and the entry point of its builder."""
    AGENT_BUILDERS.register(name, builder)  # a name registered twice is refused here
    _KINDS[name] = kind


_register("random", AgentKind("random", argument=False), "splitpoker.agents.baselines:random_agent")
_register("greedy", AgentKind("greedy", argument=False), "splitpoker.agents.baselines:greedy_agent")
_register("heuristic", AgentKind("heuristic", argument=False), "splitpoker.agents.heuristic:heuristic_agent")
_register("solver", AgentKind("solver[:samples=256,opponent=greedy,seed=0]", argument=None, layout="options",
                              spec_options=("opponent",)), "splitpoker.agents.solver:solver_agent")
_register("checkpoint", AgentKind("checkpoint:PATH", argument=True, argument_name="path"),
          "splitpoker.agents.learned.policy:checkpoint_agent")
_register("pretrained", AgentKind("pretrained:NAME", argument=True, argument_name="name"),
          "splitpoker.agents.learned.policy:pretrained_agent")
_register("mixture", AgentKind("mixture:SPEC;SPEC;...", argument=True, argument_name="list of agent specs",
                               layout="members"), "splitpoker.agents.mixture:mixture_agent")
IMPORTED_FORM = "package.module:attr[:key=value,...]"
#: the keyword arguments every imported agent factory is called with, from the table it plays
#: at (an import's options give the others)
TABLE_KEYWORDS = ("game", "num_players", "seed")
SPEC_FORMS = tuple(kind.form for kind in AGENT_KINDS.values()) + (IMPORTED_FORM,)


OptionValue = Union[str, "AgentSpec"]

#: the most specs a spec may hold one within another, itself included (``mixture:solver:...``,
#: a solver's opponent in parentheses): a spec is read, written and compared level by level,
#: and nests a few levels at most
MAX_SPEC_DEPTH = 32


class _TooDeep(ValueError):
    """A spec nested more than :data:`MAX_SPEC_DEPTH` levels: raised where the limit is found,
    passed up as it is, and told as the error of the whole spec (:func:`_too_deep`)."""


def _too_deep(spec: str) -> _TooDeep:
    shown = spec if len(spec) <= 80 else f"{spec[:40]}...{spec[-20:]}"
    return _TooDeep(f"agent spec {shown!r} ({len(spec):,} characters) nests specs more than {MAX_SPEC_DEPTH} "
                    "levels deep (mixture members and solver opponents within each other); write a shallower spec")


def _checked_depth(spec: AgentSpec) -> AgentSpec:
    """``spec`` when it nests at most :data:`MAX_SPEC_DEPTH` levels (counted level by level,
    without recursion); else ValueError."""
    depth, level = 0, [spec]
    while level:
        depth += 1
        if depth > MAX_SPEC_DEPTH:
            raise ValueError(f"an agent spec of kind {spec.kind!r} nests specs more than {MAX_SPEC_DEPTH} levels "
                             "deep (mixture members and solver opponents within each other); build a shallower one")
        level = [v for s in level for v in (*(v for _, v in s.option_items if isinstance(v, AgentSpec)), *s.members)]
    return spec


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: ``kind`` (a key of :data:`AGENT_KINDS`, or ``"import"`` for
    ``package.module:attr``) with its ``argument`` as text (a path, a name, an import target
    ``module:attr``), its ``options`` (``key=value`` pairs, a spec for the kind's spec
    options, an import's keyword arguments as text) or its
    ``members`` (the specs of a mixture). Compare and hash by those; :attr:`text` is the
    spec as written where it was read, else its canonical form."""

    kind: str
    argument: str = ""
    option_items: tuple[tuple[str, OptionValue], ...] = ()
    members: tuple[AgentSpec, ...] = ()
    source: str = dataclasses.field(default="", compare=False)

    def __repr__(self) -> str:
        shown = [f"kind={self.kind!r}"]
        if self.argument:
            shown.append(f"argument={self.argument!r}")
        if self.option_items:
            shown.append(f"options={dict(self.option_items)!r}")
        if self.members:
            shown.append(f"members={list(self.members)!r}")
        return f"AgentSpec({', '.join(shown)})"

    def __str__(self) -> str:
        return self.text

    @property
    def options(self) -> dict[str, OptionValue]:
        """The options, in the order given (``{}`` for kinds without options)."""
        return dict(self.option_items)

    @property
    def text(self) -> str:
        """The spec as text: as written when it was read, else its canonical form, which
        :func:`parse_spec` reads back to this spec."""
        return self.source or self.canonical

    @property
    def canonical(self) -> str:
        """The spec's canonical text (nested specs in parentheses where they hold the
        separator of the spec around them)."""
        options = ",".join(f"{k}={_grouped(_text(v), ',')}" for k, v in self.option_items)
        if self.kind == "import":
            return f"{self.argument}:{options}" if options else self.argument
        if options:
            return f"{self.kind}:{options}"
        if self.members:
            return f"{self.kind}:" + ";".join(_grouped(m.text, ";") for m in self.members)
        return f"{self.kind}:{self.argument}" if self.argument else self.kind

    def with_options(self, **options: OptionValue | int | float | Path) -> AgentSpec:
        """This spec with ``options`` set (an agent-spec option given as text is read), checked
        like a written spec."""
        merged = {**self.options, **{k: v if isinstance(v, AgentSpec) else str(v) for k, v in options.items()}}
        if self.kind == "import":
            items = _import_items(tuple(merged.items()), self.text)
            return dataclasses.replace(self, option_items=items, source="")
        return _checked_depth(_build(self.kind, tuple(merged.items())))

    def checkpoints(self) -> list[str]:
        """The paths of every ``checkpoint:`` spec in this tree, depth first."""
        if self.kind == "checkpoint":
            return [self.argument]
        nested = [v for _, v in self.option_items if isinstance(v, AgentSpec)] + list(self.members)
        return [path for spec in nested for path in spec.checkpoints()]

    def map_checkpoints(self, rename: Mapping[str, str]) -> AgentSpec:
        """This spec with the paths of its ``checkpoint:`` specs replaced through ``rename``
        (paths not in it are kept)."""
        if self.kind == "checkpoint":
            return checkpoint_spec(rename.get(self.argument, self.argument))
        items = tuple((k, v.map_checkpoints(rename) if isinstance(v, AgentSpec) else v) for k, v in self.option_items)
        members = tuple(m.map_checkpoints(rename) for m in self.members)
        return dataclasses.replace(self, option_items=items, members=members, source="")


SpecLike = str | AgentSpec


def _text(value: OptionValue) -> str:
    return value.text if isinstance(value, AgentSpec) else value


def _grouped(text: str, separator: str) -> str:
    """``text`` in parentheses when, inside a spec, it would otherwise be split or misread."""
    return f"({text})" if separator in text or text.startswith("(") else text


def bad_spec(spec: str, why: str) -> ValueError:
    """The error of a spec that does not read, its text and ``why`` cut short (a long spec
    is shown by its start and end, with its length)."""
    shown = repr(spec) if len(spec) <= 80 else f"{spec[:40]!r}...{spec[-20:]!r} ({len(spec):,} characters)"
    why = why if len(why) <= 160 else f"{why[:160]}..."
    return ValueError(f"bad agent spec {shown}: {why}; valid forms: {', '.join(SPEC_FORMS)}")


def split_outside_parentheses(text: str, separator: str, spec: str) -> list[str]:
    """``text`` split at the ``separator`` characters outside parentheses, each piece stripped
    and, when it is one group ``(...)``, unwrapped; ValueError naming ``spec`` for unbalanced
    parentheses."""
    pieces, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise bad_spec(spec, f"a ')' closes no '(' in {text!r}")
        elif char == separator and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    if depth:
        raise bad_spec(spec, f"a '(' is not closed in {text!r}; a nested spec is written (SPEC)")
    pieces.append(text[start:])
    return [_unwrapped(p.strip()) for p in pieces]


def _unwrapped(piece: str) -> str:
    """``piece`` without its parentheses when it is one group ``(...)``."""
    if not (piece.startswith("(") and piece.endswith(")")):
        return piece
    depth = 0
    for i, char in enumerate(piece):
        depth += char == "("
        depth -= char == ")"
        if depth == 0 and i < len(piece) - 1:
            return piece  # "(a);(b)"-like: more than one group
    return piece[1:-1].strip()


def parse_spec(text: object) -> AgentSpec:
    """Read a spec string (or pass an :class:`AgentSpec` through); ValueError naming it when
    it does not follow the grammar or nests specs more than :data:`MAX_SPEC_DEPTH` levels."""
    if isinstance(text, AgentSpec):
        return _checked_depth(text)
    try:
        return _parse(text, 1)
    except _TooDeep:
        assert isinstance(text, str)
        raise _too_deep(text.strip()) from None


def _parse(text: object, depth: int) -> AgentSpec:
    """:func:`parse_spec` of a spec ``depth`` levels down (1: the whole spec); :class:`_TooDeep`
    below :data:`MAX_SPEC_DEPTH` levels, before anything deeper is read."""
    if depth > MAX_SPEC_DEPTH:
        raise _TooDeep()
    if isinstance(text, AgentSpec):
        return text
    if not isinstance(text, str):
        raise ValueError(f"agent spec {text!r} is not a string (such as 'greedy' or 'solver:samples=64')")
    if not text.strip():
        raise bad_spec(text, "empty")
    spec = text.strip()
    kind, sep, argument = spec.partition(":")
    if kind in AGENT_KINDS:
        entry = AGENT_KINDS[kind]
        if entry.argument is False and sep:
            raise bad_spec(spec, f"{kind} takes no options")
        if entry.argument is True and not argument.strip():
            raise bad_spec(spec, f"{kind} needs a {entry.argument_name}")
        if entry.layout == "options":
            return dataclasses.replace(_build(kind, tuple(parse_options(argument, spec).items()), depth), source=spec)
        if entry.layout == "members":
            read = []
            for member in member_specs(argument, spec):  # its own errors name the spec
                try:
                    read.append(_parse(member, depth + 1))
                except _TooDeep:
                    raise
                except ValueError as error:
                    raise bad_spec(spec, str(error).split("; valid forms")[0]) from None
            return AgentSpec(kind, members=tuple(read), source=spec)
        return AgentSpec(kind, argument.strip(), source=spec)
    if sep and "." in kind:
        attr, sep, keywords = argument.partition(":")
        if not attr.strip():
            raise bad_spec(spec, f"no attribute after {kind}:; write package.module:attr")
        if sep and not keywords.strip():
            raise bad_spec(spec, "no options after the second ':'; write package.module:attr:key=value,...")
        items = _import_items(tuple(parse_options(keywords, spec).items()), spec)
        return AgentSpec("import", f"{kind}:{attr}", option_items=items, source=spec)
    raise bad_spec(spec, f"unknown kind {kind!r}")


def _import_items(items: tuple[tuple[str, OptionValue], ...], spec: str) -> tuple[tuple[str, OptionValue], ...]:
    """The options of an import, ``items``, when each is a keyword argument the spec may give
    (a Python name, not one of :data:`TABLE_KEYWORDS`, with a value); else ValueError naming
    ``spec``."""
    for key, value in items:
        if not key.isidentifier() or iskeyword(key):
            raise bad_spec(spec, f"option {key!r} is not a keyword argument (a Python name)")
        if key in TABLE_KEYWORDS:
            raise bad_spec(spec, f"option {key!r} is given by the table (every factory gets "
                           f"{', '.join(TABLE_KEYWORDS)}); name your option otherwise")
        if isinstance(value, AgentSpec):
            raise bad_spec(spec, f"option {key!r} is an agent spec; an import's options are text (give its text)")
        if not value:
            raise bad_spec(spec, f"option {key!r} has no value; write {key}=VALUE")
    return items


_WHOLE = re.compile(r"-?(?:0|[1-9][0-9]*)", re.ASCII)
_FRACTION = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+", re.ASCII)


def keyword_value(text: str) -> int | float | str:
    """An import option's value as its factory gets it: a plain decimal whole number
    (``64``, ``-2``) is an int, one with a decimal point and digits on both sides (``0.5``) a
    float, and anything else (``w.pt``, ``1e3``, ``010``, ``1_000``, ``nan``) the text as written.

    >>> [keyword_value(t) for t in ("64", "-2", "0.5", "w.pt", "1e3", "010")]
    [64, -2, 0.5, 'w.pt', '1e3', '010']
    """
    if _WHOLE.fullmatch(text):
        return int(text)
    if _FRACTION.fullmatch(text):
        return float(text)
    return text


def import_keywords(spec: AgentSpec) -> dict[str, int | float | str]:
    """The keyword arguments an import spec gives its factory, besides :data:`TABLE_KEYWORDS`
    (each value read by :func:`keyword_value`)."""
    return {key: keyword_value(_text(value)) for key, value in spec.option_items}


def _build(kind: str, items: tuple[tuple[str, OptionValue], ...], depth: int = 0) -> AgentSpec:
    """An options spec of ``kind``, ``depth`` levels down (0: a spec built by code), its spec
    options read as specs."""
    nested = AGENT_KINDS[kind].spec_options
    read = []
    for key, value in items:
        if key in nested and isinstance(value, str):
            # its error names the nested spec
            value = _parse(value, depth + 1) if depth else parse_spec(value)
        read.append((key, value))
    return AgentSpec(kind, option_items=tuple(read))


def check_spec(spec: SpecLike) -> str:
    """``spec``'s text when it follows the grammar; ValueError otherwise (nothing is built)."""
    return parse_spec(spec).text


def checkpoint_spec(path: str | Path) -> AgentSpec:
    """The spec of the policy saved at ``path`` (any path: nothing in it is read as grammar)."""
    text = str(path)
    if not text.strip():
        raise ValueError("checkpoint spec needs a path")
    return AgentSpec("checkpoint", text)


def mixture_spec(members: Iterable[SpecLike]) -> AgentSpec:
    """The spec of a mixture of ``members``; a single member is that member itself."""
    read = tuple(parse_spec(m) for m in members)
    if not read:
        raise ValueError("a mixture needs at least one member")
    return read[0] if len(read) == 1 else _checked_depth(AgentSpec("mixture", members=read))


def parse_options(text: str, spec: str | None = None) -> dict[str, str]:
    """``"samples=256,opponent=greedy"`` → dict. An option value may itself be a spec, in
    parentheses where it holds a comma. ValueError for an empty option or one given twice."""
    out: dict[str, str] = {}
    if not text.strip():
        return out
    for item in split_outside_parentheses(text, ",", spec or text):
        key, sep, value = item.partition("=")
        if not sep:
            raise bad_spec(spec or text, f"cannot read option {item!r}; expected key=value")
        key = key.strip()
        if key in out:
            raise bad_spec(spec or text, f"option {key!r} is given twice")
        out[key] = _unwrapped(value.strip())
    return out


def member_specs(argument: str, spec: str | None = None) -> list[str]:
    """The member specs of a ``mixture:`` argument (separated by ``;``, a member in
    parentheses where it holds one); ValueError when one is empty."""
    members = split_outside_parentheses(argument, ";", spec or f"mixture:{argument}")
    if any(not m for m in members):
        raise bad_spec(spec or f"mixture:{argument}", "an empty member; members are agent specs separated by ';'")
    return members


def format_options(kind: str, options: Mapping[str, OptionValue]) -> str:
    """The text of the spec of ``kind`` with ``options`` (read back by :func:`parse_spec`)."""
    return _build(kind, tuple((k, v) for k, v in options.items())).canonical if options else kind
