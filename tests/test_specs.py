"""Agent specs as trees: read once from text, built as objects, written back to text that reads
to the same tree, and loaded from either with any path."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import splitpoker.agents
from splitpoker.agents import load_agent
from splitpoker.agents.mixture import MixtureAgent
from splitpoker.agents.solver import SolverAgent
from splitpoker.agents.specs import (
    AgentSpec,
    checkpoint_spec,
    format_options,
    mixture_spec,
    parse_spec,
)
from splitpoker.envs.games import make_game

#: path characters, separators and spaces included (no parentheses: a path in text may not
#: hold an unbalanced one inside a mixture or an option; as an object it may hold anything)
PATH = st.text(st.sampled_from("ab/._-,; =:x1"), min_size=1, max_size=12).filter(
    lambda p: p.strip() == p and p.strip())
LEAF = st.one_of(st.sampled_from([AgentSpec("random"), AgentSpec("greedy"), AgentSpec("heuristic"),
                                  AgentSpec("pretrained", "biji_classic_4p")]),
                 PATH.map(checkpoint_spec))


def _solver(opponent: AgentSpec, samples: int) -> AgentSpec:
    return parse_spec("solver").with_options(samples=samples, opponent=opponent)


SPECS = st.recursive(LEAF, lambda inner: st.one_of(
    st.lists(inner, min_size=2, max_size=3).map(mixture_spec),
    st.tuples(inner, st.integers(1, 999)).map(lambda t: _solver(*t))), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(SPECS)
def test_a_spec_s_text_reads_back_to_the_same_tree(spec: AgentSpec) -> None:
    assert parse_spec(spec.text) == spec
    assert parse_spec(parse_spec(spec.text).canonical) == spec
    assert spec.checkpoints() == parse_spec(spec.text).checkpoints()


def test_written_specs_read_as_before() -> None:
    spec = parse_spec(" solver:samples=64,opponent=mixture:greedy;checkpoint:runs/x ")
    assert spec.text == "solver:samples=64,opponent=mixture:greedy;checkpoint:runs/x"
    opponent = spec.options["opponent"]
    assert isinstance(opponent, AgentSpec) and opponent.kind == "mixture"
    assert opponent.members == (AgentSpec("greedy"), AgentSpec("checkpoint", "runs/x"))
    assert spec.options["samples"] == "64"
    # a path is taken as written at the top level, separators and all
    assert parse_spec("checkpoint:runs/a,b;c (1)/x.zip").argument == "runs/a,b;c (1)/x.zip"
    # a solver with options inside a mixture inside a solver: grouped in parentheses
    nested = parse_spec("solver:opponent=(mixture:(solver:samples=4,opponent=greedy);random),samples=64")
    inner = nested.options["opponent"]
    assert isinstance(inner, AgentSpec) and inner.members[0].options["samples"] == "4"
    assert format_options("solver", {"samples": "8", "opponent": "greedy"}) == "solver:samples=8,opponent=greedy"


@pytest.mark.parametrize("text,needle", [
    ("solver:opponent=(greedy", "is not closed"),
    ("mixture:greedy);random", "closes no"),
    ("mixture:greedy;;random", "empty member"),
    ("solver:opponent=banana", "unknown kind 'banana'"),
    ("solver:samples=4,samples=5", "given twice"),
    ("checkpoint:", "needs a path"),
])
def test_bad_specs_name_what_is_wrong(text: str, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        parse_spec(text)


def test_a_mixture_of_checkpoints_in_any_folder_loads_as_object_and_as_text(tmp_path: Path) -> None:
    folder = tmp_path / "run,with;odd (chars)"
    folder.mkdir()
    paths = [folder / f"step_{i}.zip" for i in range(2)]
    for path in paths:
        shutil.copy(Path(splitpoker.agents.__file__).parent / "pretrained" / "biji_classic_4p.zip", path)
    spec = mixture_spec([checkpoint_spec(p) for p in paths])
    game = make_game("biji")
    for given_spec in (spec, spec.text):
        agent = load_agent(given_spec, game, num_players=4, seed=0)
        assert isinstance(agent, MixtureAgent) and len(agent.members) == 2
    solver = load_agent(parse_spec("solver").with_options(samples=2, opponent=spec), game, num_players=4, seed=0)
    assert isinstance(solver, SolverAgent)
    assert parse_spec(solver.opponent).checkpoints() == [str(p) for p in paths]
    renamed = spec.map_checkpoints({str(paths[0]): "elsewhere/a.zip"})
    assert renamed.checkpoints() == ["elsewhere/a.zip", str(paths[1])]
