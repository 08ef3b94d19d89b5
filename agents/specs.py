"""The agent-spec grammar, in one place, and the registry of agent kinds.

Specs::

    random                                        uniform over valid splits
    greedy                                        strongest last row, then strongest middle row
    heuristic                                     the valid split of the highest value against greedy rows
    solver[:samples=256,opponent=greedy,seed=0]   the exhaustive solver
    checkpoint:PATH                               a trained policy saved by ``splitpoker train``
    pretrained:NAME                               a policy shipped with the package
    mixture:SPEC;SPEC;...                         each seat played by one of the specs, drawn uniformly
    package.module:attr                           any importable agent class or factory

A spec is ``kind`` or ``kind:argument``; the solver's argument is ``key=value`` options
separated by commas (a value may itself be a spec holding ``:``). Each kind is registered
once in :data:`AGENT_KINDS` with the function that builds it.

>>> parse_spec("solver:samples=64,opponent=checkpoint:runs/x")
AgentSpec(kind='solver', argument='samples=64,opponent=checkpoint:runs/x', text='solver:samples=64,opponent=checkpoint:runs/x')
>>> parse_spec("solver:samples=64,opponent=greedy").options
{'samples': '64', 'opponent': 'greedy'}
"""

from __future__ import annotations

import dataclasses

__all__ = ["AGENT_KINDS", "SPEC_FORMS", "AgentSpec", "parse_spec", "parse_options", "format_options", "bad_spec",
           "check_spec", "member_specs"]


@dataclasses.dataclass(frozen=True)
class AgentKind:
    """A registered kind of agent: how its spec reads and the function that builds it."""

    form: str
    #: ``"module:function"`` under ``splitpoker.agents``, called as ``f(spec, game, num_players, seed)``
    builder: str
    #: whether the spec takes an argument after ``kind:`` (``None``: optional)
    argument: bool | None
    argument_name: str = ""


#: every agent kind by name; ``package.module:attr`` specs import outside code instead
AGENT_KINDS: dict[str, AgentKind] = {
    "random": AgentKind("random", "baselines:random_agent", argument=False),
    "greedy": AgentKind("greedy", "baselines:greedy_agent", argument=False),
    "heuristic": AgentKind("heuristic", "heuristic:heuristic_agent", argument=False),
    "solver": AgentKind("solver[:samples=256,opponent=greedy,seed=0]", "solver:solver_agent", argument=None),
    "checkpoint": AgentKind("checkpoint:PATH", "policy:checkpoint_agent", argument=True, argument_name="path"),
    "pretrained": AgentKind("pretrained:NAME", "policy:pretrained_agent", argument=True, argument_name="name"),
    "mixture": AgentKind("mixture:SPEC;SPEC;...", "mixture:mixture_agent", argument=True,
                         argument_name="list of agent specs"),
}
IMPORTED_FORM = "package.module:attr"
SPEC_FORMS = tuple(kind.form for kind in AGENT_KINDS.values()) + (IMPORTED_FORM,)


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """A parsed spec: ``kind`` (a key of :data:`AGENT_KINDS`, or ``"import"`` for
    ``package.module:attr``) and its ``argument``."""

    kind: str
    argument: str
    text: str

    @property
    def options(self) -> dict[str, str]:
        """The argument read as ``key=value`` options."""
        return parse_options(self.argument)


def bad_spec(spec: str, why: str) -> ValueError:
    return ValueError(f"bad agent spec {spec!r}: {why}; valid forms: {', '.join(SPEC_FORMS)}")


def parse_spec(text: object) -> AgentSpec:
    """Read a spec string; ValueError naming it when it does not follow the grammar."""
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
        if entry.argument is True and not argument:
            raise bad_spec(spec, f"{kind} needs a {entry.argument_name}")
        if entry.argument is None:
            parse_options(argument)
        if kind == "mixture":
            try:
                for member in member_specs(argument):
                    parse_spec(member)
            except ValueError as error:
                raise bad_spec(spec, str(error).split("; valid forms")[0]) from None
        return AgentSpec(kind, argument, spec)
    if sep and "." in kind:
        return AgentSpec("import", spec, spec)
    raise bad_spec(spec, f"unknown kind {kind!r}")


def check_spec(spec: str) -> str:
    """``spec`` stripped when it follows the grammar; ValueError otherwise (nothing is built)."""
    return parse_spec(spec).text


def parse_options(text: str) -> dict[str, str]:
    """``"samples=256,opponent=greedy"`` → dict. An option value may itself hold ``:`` (a spec).
    ValueError for an empty option or one given twice."""
    out: dict[str, str] = {}
    if not text.strip():
        return out
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"cannot read agent option {item!r} in {text!r}; expected key=value")
        key = key.strip()
        if key in out:
            raise ValueError(f"agent option {key!r} is given twice in {text!r}")
        out[key] = value.strip()
    return out


def member_specs(argument: str) -> list[str]:
    """The member specs of a ``mixture:`` argument (separated by ``;``); ValueError when one is empty."""
    members = [m.strip() for m in argument.split(";")]
    if any(not m for m in members):
        raise ValueError(f"mixture:{argument} has an empty member; members are agent specs separated by ';'")
    return members


def format_options(kind: str, options: dict[str, str]) -> str:
    """The spec of ``kind`` with ``options`` (the inverse of :func:`parse_spec`)."""
    return kind + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")
