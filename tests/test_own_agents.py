"""Agents of one's own: ``package.module:attr:key=value,...`` specs (keyword arguments read
exactly and checked against the factory), modules of the working folder found from the
command line with no path set, and policies trained elsewhere saved by ``export_policy``
and ``splitpoker export`` as ``checkpoint:`` files that decide as the model does."""

from __future__ import annotations

import io
import json
import os
import sys
import types
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from splitpoker.agents import load_agent
from splitpoker.agents import loading as loading_module
from splitpoker.agents.specs import keyword_value, mixture_spec, parse_spec
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]

SCORER = '''
import numpy as np
from splitpoker.agents import Agent


class ScorerAgent(Agent):
    """Plays the valid split of rank ``rank`` among the hand's valid splits."""

    def __init__(self, game, num_players=4, seed=None, weights="none", temperature=1.0, rank=0):
        self.options = {"weights": weights, "temperature": temperature, "rank": rank}
        self.rank = int(rank)
        self.name = f"scorer[{weights!r}|{temperature!r}|{rank!r}]"

    def act_batch(self, views):
        return np.array([np.flatnonzero(v.mask)[min(self.rank, int(v.mask.sum()) - 1)] for v in views],
                        dtype=np.int64)


def needs_weights(game, num_players, seed, *, weights):
    return ScorerAgent(game, num_players, seed, weights=weights)


def anything(game, num_players, seed, **options):
    agent = ScorerAgent(game, num_players, seed)
    agent.options = options
    return agent


INSTANCE = ScorerAgent(None)
'''


@pytest.fixture()
def imports(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The import path and modules as they were, after a test that imports from a folder."""
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])  # no working folder on it
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.partition(".")[0] in ("myagents", "tutorials"):
            del sys.modules[name]


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imports: None) -> Path:
    """A user's project folder holding the package ``myagents``, the working folder."""
    folder = tmp_path / "project"
    (folder / "myagents").mkdir(parents=True)
    (folder / "myagents" / "__init__.py").write_text("")
    (folder / "myagents" / "scorer.py").write_text(SCORER)
    monkeypatch.chdir(folder)
    return folder


# ----------------------------------------------------------------------------- the grammar
def test_import_options_read_in_the_spec_grammar() -> None:
    spec = parse_spec("myagents.scorer:ScorerAgent:weights=w.pt, temperature=0.5")
    assert (spec.kind, spec.argument, spec.options) == ("import", "myagents.scorer:ScorerAgent",
                                                        {"weights": "w.pt", "temperature": "0.5"})
    assert spec.text == "myagents.scorer:ScorerAgent:weights=w.pt, temperature=0.5"
    assert spec.canonical == "myagents.scorer:ScorerAgent:weights=w.pt,temperature=0.5"
    assert parse_spec(spec.canonical) == spec
    plain = parse_spec("myagents.scorer:ScorerAgent")
    assert (plain.argument, plain.options, plain.text) == ("myagents.scorer:ScorerAgent", {},
                                                           "myagents.scorer:ScorerAgent")
    # a value holding a comma in parentheses; nested in a mixture and as a solver's opponent
    odd = parse_spec("m.x:A:weights=(a,b.pt),k=1")
    assert odd.options == {"weights": "a,b.pt", "k": "1"} and parse_spec(odd.canonical) == odd
    mixed = mixture_spec([odd, parse_spec("greedy")])
    assert parse_spec(mixed.text) == mixed and mixed.members[0] == odd
    solver = parse_spec("solver:samples=4").with_options(opponent=odd)
    assert solver.text == "solver:samples=4,opponent=(m.x:A:weights=(a,b.pt),k=1)"
    assert parse_spec(solver.text) == solver
    assert plain.with_options(weights="w.pt", rank=2).text == "myagents.scorer:ScorerAgent:weights=w.pt,rank=2"


@pytest.mark.parametrize("text,value", [("64", 64), ("-2", -2), ("0", 0), ("0.5", 0.5), ("-1.25", -1.25),
                                        ("w.pt", "w.pt"), ("1e3", "1e3"), ("010", "010"), ("1_000", "1_000"),
                                        ("0x10", "0x10"), ("nan", "nan"), (".5", ".5"), ("5.", "5."),
                                        ("\u0661", "\u0661"), ("True", "True")])
def test_option_values_are_numbers_only_when_plainly_written(text: str, value: Any) -> None:
    read = keyword_value(text)
    assert read == value and type(read) is type(value)


@pytest.mark.parametrize("spec,message", [
    ("m.x:A:", "no options after the second ':'"),
    ("m.x::k=1", "no attribute after m.x:"),
    ("m.x:A:seed=3", "option 'seed' is given by the table"),
    ("m.x:A:game=biji", "option 'game' is given by the table"),
    ("m.x:A:1k=3", "option '1k' is not a keyword argument"),
    ("m.x:A:class=3", "option 'class' is not a keyword argument"),
    ("m.x:A:k=", "option 'k' has no value"),
    ("m.x:A:k", "cannot read option 'k'; expected key=value"),
    ("m.x:A:k=1,k=2", "option 'k' is given twice"),
    ("m.x:A:k=(1", "a '(' is not closed"),
])
def test_bad_import_options_are_one_error_naming_the_spec(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match="bad agent spec") as caught:
        parse_spec(spec)
    assert message in str(caught.value) and "\n" not in str(caught.value)


# --------------------------------------------------------------------- keyword arguments
def test_options_reach_the_factory_as_keyword_arguments(project: Path) -> None:
    agent = load_agent("myagents.scorer:ScorerAgent:weights=w.pt,temperature=0.5,rank=2", "biji", 4, seed=1)
    assert agent.options == {"weights": "w.pt", "temperature": 0.5, "rank": 2}  # type: ignore[attr-defined]
    assert type(agent.options["temperature"]) is float  # type: ignore[attr-defined]
    assert load_agent("myagents.scorer:ScorerAgent:weights=1e3", "biji").options["weights"] == "1e3"  # type: ignore[attr-defined]
    assert load_agent("myagents.scorer:needs_weights:weights=(a,b)", "biji").options["weights"] == "a,b"  # type: ignore[attr-defined]
    assert load_agent("myagents.scorer:anything:x=1,y=z", "biji").options == {"x": 1, "y": "z"}  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec,message", [
    ("myagents.scorer:ScorerAgent:temprature=0.5",
     "ScorerAgent takes no keyword argument 'temprature' (its keywords: weights, temperature, rank)"),
    ("myagents.scorer:needs_weights", "needs_weights needs the option 'weights': write "
                                      "myagents.scorer:needs_weights:weights=VALUE"),
    ("myagents.scorer:INSTANCE:rank=1", "INSTANCE is no class or factory, so it takes no options"),
    ("myagents.scorer:ScorerAgent:rank=x", "ScorerAgent(game=..., num_players=..., seed=..., rank='x') failed: "
                                           "ValueError: invalid literal"),
    ("myagents.scorer:Missing", "module 'myagents.scorer' has no attribute 'Missing'"),
])
def test_a_factory_that_does_not_take_the_options_is_named(project: Path, spec: str, message: str) -> None:
    with pytest.raises(ValueError, match="bad agent spec") as caught:
        load_agent(spec, "biji", 4)
    assert message in str(caught.value)


# -------------------------------------------------------------------- the working folder
def test_modules_of_the_working_folder_import_at_the_end_of_the_path(project: Path) -> None:
    assert str(project) not in sys.path
    agent = load_agent("myagents.scorer:ScorerAgent", "biji", 4)
    assert agent.name == "scorer['none'|1.0|0]"
    assert sys.path[-1] == str(project)  # after the installed packages, which it shadows none of
    assert sys.modules["myagents.scorer"].__file__ == str(project / "myagents" / "scorer.py")


def test_a_module_nowhere_says_where_it_was_looked_for(project: Path) -> None:
    with pytest.raises(ValueError) as caught:
        load_agent("otheragents.x:Agent", "biji", 4)
    assert str(caught.value) == (
        f"bad agent spec 'otheragents.x:Agent': cannot import module 'otheragents.x' (No module named "
        f"'otheragents'): otheragents is neither installed nor in the working folder {project}; run the command "
        "in the folder that holds otheragents, or add that folder to PYTHONPATH")
    assert str(project) not in sys.path
    # a module that fails to import is named with its error
    (project / "myagents" / "broken.py").write_text("def oops(:\n")
    with pytest.raises(ValueError, match=r"cannot import module 'myagents.broken' .*SyntaxError"):
        load_agent("myagents.broken:Agent", "biji", 4)
    # a module it imports that is missing is named as such
    (project / "myagents" / "needy.py").write_text("import nosuchpackage_xyz\n")
    with pytest.raises(ValueError, match=r"cannot import module 'myagents.needy' \(No module named "
                                         r"'nosuchpackage_xyz'\)$"):
        load_agent("myagents.needy:Agent", "biji", 4)


def test_safe_path_keeps_the_working_folder_off_and_says_so(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.SimpleNamespace(flags=types.SimpleNamespace(safe_path=True), path=sys.path, modules=sys.modules)
    monkeypatch.setattr(loading_module, "sys", fake)
    with pytest.raises(ValueError, match=r"Python runs with -P or PYTHONSAFEPATH.*add it to PYTHONPATH"):
        load_agent("myagents.scorer:ScorerAgent", "biji", 4)
    assert str(project) not in sys.path


def test_eval_exploit_and_benchmark_play_an_agent_of_the_working_folder(
        project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from splitpoker.eval.benchmark import PROTOCOLS
    from tests.test_benchmark import TINY

    spec = "myagents.scorer:ScorerAgent:weights=w.pt,temperature=0.5"
    code, out, err = run_cli(capsys, "eval", "biji", "--agents", f"{spec},greedy", "--hands", "4", "--no-regret",
                             "--no-plots", "--json", "--out", str(project / "eval"))
    assert code == 0, err
    summary = json.loads(out)
    assert [a["spec"] for a in summary["agents"]] == [spec, "greedy"]
    assert summary["agents"][0]["name"] == "scorer['w.pt'|0.5|0]"

    code, out, err = run_cli(capsys, "exploit", "biji", "--agent", f"{spec},rank=1", "--samples", "2", "--hands", "2",
                             "--json")
    assert code == 0, err
    assert json.loads(out)["best_response"] == f"solver:samples=2,opponent=({spec},rank=1)"

    monkeypatch.setitem(PROTOCOLS, "tiny", TINY)
    code, out, err = run_cli(capsys, "benchmark", "--protocol", "tiny", "--quick", "--tracks", "biji_2p",
                             "--agents", spec, "--out", str(project / "bench"), "--json")
    assert code == 0, err
    assert json.loads(out)["tracks"]["biji_2p"]["agents"][-1] == spec


def test_a_missing_module_on_the_command_line_is_one_line(project: Path, capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the folder above the project: no myagents here
    code, _, err = run_cli(capsys, "eval", "biji", "--agents", "myagents.scorer:ScorerAgent,greedy", "--hands", "2",
                           "--no-regret", "--no-plots", "--out", str(tmp_path / "eval"))
    assert code == 2 and err.count("\n") == 1
    assert f"neither installed nor in the working folder {tmp_path}" in err and "PYTHONPATH" in err


def test_the_tutorial_agent_from_the_docs_folder(imports: None, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT / "docs")
    spec = "tutorials.02_custom_agent:CandidateAgent:name=mine"
    code, out, err = run_cli(capsys, "eval", "biji", "--agents", f"{spec},greedy", "--hands", "4", "--no-regret",
                             "--no-plots", "--json", "--out", str(tmp_path / "eval"))
    assert code == 0, err
    assert json.loads(out)["agents"][0]["name"] == "mine"


# ---------------------------------------------------------------------------- export
@pytest.fixture(scope="module")
def trained() -> Any:
    """A MaskablePPO model trained for a few hundred steps of self-play (a few seconds)."""
    import torch as th
    from sb3_contrib import MaskablePPO

    from splitpoker.train.selfplay import SelfPlayEnv

    env = SelfPlayEnv("biji", 4, opponents="greedy")
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0, verbose=0, device="cpu",
                        policy_kwargs={"net_arch": [32, 16], "activation_fn": th.nn.ReLU})
    return model.learn(384)


def observations(mask: str, count: int = 12) -> list[tuple[np.ndarray, np.ndarray, dict[str, Any]]]:
    from splitpoker.train.selfplay import SelfPlayEnv

    return observations_of(SelfPlayEnv("biji", 4, opponents="greedy", mask=mask), count)


def test_an_exported_model_decides_as_the_model(trained: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                imports: None) -> None:
    from splitpoker.agents import export_policy
    from splitpoker.agents.learned.checkpoint import read_meta

    path = export_policy(trained, tmp_path / "mine.zip", game="biji", num_players=4)
    assert path == tmp_path / "mine.zip" and sorted(p.name for p in tmp_path.iterdir()) == ["mine.zip"]
    meta = read_meta(path)
    assert meta["policy"] == {"kind": "mlp", "arch": {"net_arch": [32, 16], "activation": "relu"}}
    assert (meta["game"], meta["num_players"], meta["preset"], meta["step"]) == ("biji", 4, "classic", 384)

    agent = load_agent(f"checkpoint:{path}", "biji", 4)
    agent.over = "mask"  # type: ignore[attr-defined]  # the model's own argmax: over every split the mask marks
    for obs, mask, info in observations("valid"):
        assert agent.act(obs, mask, info) == int(trained.predict(obs, action_masks=mask, deterministic=True)[0])
    agent.over = "candidates"  # type: ignore[attr-defined]  # the default, given the candidates as the mask
    for obs, mask, info in observations("undominated"):
        assert agent.act(obs, mask, info) == int(trained.predict(obs, action_masks=mask, deterministic=True)[0])

    code, out, err = run_cli(capsys, "eval", "biji", "--agents", f"checkpoint:{path},greedy", "--hands", "4",
                             "--no-regret", "--no-plots", "--json", "--out", str(tmp_path / "eval"))
    assert code == 0, err
    assert json.loads(out)["agents"][0]["spec"] == f"checkpoint:{path}"


def test_a_saved_model_zip_exports_from_the_command_line(trained: Any, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from splitpoker.agents.learned.policy import load_policy

    model = tmp_path / "model.zip"
    trained.save(model)
    code, _, err = run_cli(capsys, "eval", "biji", "--agents", f"checkpoint:{model},greedy", "--hands", "2",
                           "--no-regret", "--no-plots", "--out", str(tmp_path / "eval"))
    assert code == 2 and f"save it as one with: splitpoker export GAME {model}" in err

    out = tmp_path / "policy.zip"
    code, stdout, err = run_cli(capsys, "export", "biji", str(model), "--out", str(out), "--json")
    assert code == 0, err
    document = json.loads(stdout)
    assert document["spec"] == f"checkpoint:{out}" and document["step"] == 384
    assert document["policy"] == {"kind": "mlp", "arch": {"net_arch": [32, 16], "activation": "relu"}}
    policy, _ = load_policy(out)
    assert policy.state_dict().keys() == trained.policy.state_dict().keys()
    for key, value in trained.policy.state_dict().items():
        assert bool((policy.state_dict()[key] == value).all()), key

    code, _, err = run_cli(capsys, "export", "biji", str(model), "--out", str(out))
    assert code == 2 and "exists; give --force" in err
    code, _, err = run_cli(capsys, "export", "biji", str(model), "--out", str(out), "--force")
    assert code == 0, err
    code, _, err = run_cli(capsys, "export", "thirteen", str(model), "--out", str(tmp_path / "t.zip"))
    assert code == 2 and "reads 197 values; a thirteen policy reads the flat observation of 281 values" in err
    code, _, err = run_cli(capsys, "export", "biji", str(out), "--out", str(tmp_path / "again.zip"))
    assert code == 2 and "is a splitpoker policy already" in err and err.count("\n") == 1


def test_a_sequential_exports_and_other_modules_are_refused(tmp_path: Path) -> None:
    import torch as th
    from torch import nn

    from splitpoker.agents import export_policy
    from splitpoker.envs.games import make_game
    from splitpoker.envs.table import deal

    th.manual_seed(0)
    net = nn.Sequential(nn.Linear(197, 24), nn.Tanh(), nn.Dropout(0.1), nn.Linear(24, 1680)).double()
    path = export_policy(net, tmp_path / "seq.zip", "biji", 4)
    agent = load_agent(f"checkpoint:{path}", "biji", 4)
    tables = deal(make_game("biji"), 4, np.random.default_rng(5), batch=3)
    views = list(tables.views())
    logits = net.eval()(th.as_tensor(np.stack([v.observation for v in views]), dtype=th.float64)).detach().numpy()
    assert np.allclose(agent.logits(np.stack([v.observation for v in views])), logits, atol=1e-5)  # type: ignore[attr-defined]

    with pytest.raises(ValueError, match="holds GELU layers; an exported nn.Sequential holds Linear layers"):
        export_policy(nn.Sequential(nn.Linear(197, 8), nn.GELU(), nn.Linear(8, 1680)), tmp_path / "x.zip", "biji")
    with pytest.raises(ValueError, match="reads 197 values; a thirteen policy reads the flat observation of 281"):
        export_policy(net, tmp_path / "x.zip", "thirteen")
    with pytest.raises(ValueError, match="gives 10 outputs; a biji policy gives one logit for each of its 1,680"):
        export_policy(nn.Linear(197, 10), tmp_path / "x.zip", "biji")
    with pytest.raises(ValueError, match="cannot export a Conv1d: export_policy saves a PPO or MaskablePPO model"):
        export_policy(nn.Conv1d(1, 1, 3), tmp_path / "x.zip", "biji")
    broken = nn.Linear(197, 1680)
    with th.no_grad():
        broken.weight[0, 0] = float("nan")
    with pytest.raises(ValueError, match=r"holds NaN or infinite weights \(action_net.weight\)"):
        export_policy(broken, tmp_path / "x.zip", "biji")
    assert not (tmp_path / "x.zip").exists()


def test_an_sb3_zip_is_read_without_unpickling(tmp_path: Path) -> None:
    import torch as th

    from splitpoker.agents import export_policy

    class Payload:
        def __reduce__(self) -> tuple[Any, ...]:
            return (exec, ("import sys; sys._splitpoker_ran = True",))

    weights = io.BytesIO()
    th.save({"action_net.weight": Payload()}, weights)
    model = tmp_path / "crafted.zip"
    with zipfile.ZipFile(model, "w") as archive:
        archive.writestr("policy.pth", weights.getvalue())
        archive.writestr("data", json.dumps({"policy_kwargs": {}}))
    with pytest.raises(ValueError, match="cannot be read as a Stable-Baselines3 model"):
        export_policy(model, tmp_path / "out.zip", "biji")
    assert not hasattr(sys, "_splitpoker_ran") and not (tmp_path / "out.zip").exists()


def test_write_policy_file_is_atomic_and_follows_no_link(tmp_path: Path) -> None:
    from splitpoker.agents.learned.checkpoint import policy_meta, write_policy_file
    from splitpoker.agents.learned.networks import build_policy
    from splitpoker.envs.games import make_game

    meta = policy_meta(make_game("biji"), 4, "mlp", {"net_arch": [4]})
    state = build_policy(meta).state_dict()
    elsewhere = tmp_path / "elsewhere.zip"
    elsewhere.write_bytes(b"kept")
    link = tmp_path / "policy.zip"
    os.symlink(elsewhere, link)
    with pytest.raises(ValueError, match="symbolic link"):
        write_policy_file(link, meta, state)
    assert elsewhere.read_bytes() == b"kept"
    written = write_policy_file(tmp_path / "sub" / "p.zip", meta, state)
    assert [p.name for p in written.parent.iterdir()] == ["p.zip"]  # no temporary file left beside it
    assert load_agent(f"checkpoint:{written}", "biji", 4).name == f"checkpoint:{written}"


def test_export_without_the_training_extra_names_it(tmp_path: Path) -> None:
    from tests.test_extras import BLOCKER, EXTRA, _cli, _one_line, _python

    done = _python(BLOCKER + """
from splitpoker.agents import export_policy
try:
    export_policy("model.zip", "mine.zip", "biji")
except ValueError as error:
    print(error)
""", cwd=tmp_path)
    assert done.stdout.splitlines() == [f"export_policy needs the training extra: {EXTRA}"]
    (tmp_path / "model.zip").write_bytes(b"")
    done = _cli("export", "biji", "model.zip", "--out", "mine.zip", cwd=tmp_path, expect=2)
    assert _one_line(done, "splitpoker export") == f"splitpoker export: error: splitpoker export needs the training " \
                                                  f"extra: {EXTRA}"
    assert not (tmp_path / "mine.zip").exists()


@pytest.mark.parametrize("algorithm", ["PPO", "MaskablePPO-scorer"])
def test_ppo_and_the_split_scorer_export_in_memory_and_from_their_zip(algorithm: str, tmp_path: Path) -> None:
    import torch as th
    from sb3_contrib import MaskablePPO
    from stable_baselines3 import PPO

    from splitpoker.agents import export_policy
    from splitpoker.agents.learned.checkpoint import read_meta
    from splitpoker.agents.learned.networks import SplitScorerPolicy, action_logits
    from splitpoker.train.selfplay import SelfPlayEnv

    env = SelfPlayEnv("biji", 4, opponents="greedy")
    model: Any
    if algorithm == "PPO":
        model = PPO("MlpPolicy", env, seed=1, device="cpu", policy_kwargs={"net_arch": {"pi": [16], "vf": [8, 8]}})
        described = {"kind": "mlp", "arch": {"net_arch": {"pi": [16], "vf": [8, 8]}, "activation": "tanh"}}
    else:
        arch = {"subset_hidden": 8, "embed_dim": 4, "split_hidden": 2, "value_hidden": 8}
        model = MaskablePPO(SplitScorerPolicy, env, seed=1, device="cpu", policy_kwargs={"game": "biji", **arch})
        described = {"kind": "split_scorer", "arch": arch}
    saved = tmp_path / "model.zip"
    model.save(saved)
    observations = np.stack([obs for obs, _, _ in observations_of(env)])
    with th.inference_mode():
        theirs = action_logits(model.policy, th.as_tensor(observations)).numpy()
    for source, name in ((model, "memory.zip"), (saved, "file.zip")):
        path = export_policy(source, tmp_path / name, "biji", 4)
        assert read_meta(path)["policy"] == described
        agent = load_agent(f"checkpoint:{path}", "biji", 4)
        assert np.allclose(agent.logits(observations), theirs, atol=1e-5)  # type: ignore[attr-defined]


def observations_of(env: Any, count: int = 6) -> list[tuple[np.ndarray, np.ndarray, dict[str, Any]]]:
    seen = []
    for seed in range(count):
        obs, info = env.reset(seed=seed)
        seen.append((obs, env.action_masks().copy(), info))
    return seen


def test_an_installed_package_is_not_shadowed_and_the_error_says_so(project: Path) -> None:
    import json as installed

    (project / "json").mkdir()
    (project / "json" / "__init__.py").write_text("")
    (project / "json" / "extra.py").write_text("")
    with pytest.raises(ValueError) as caught:
        load_agent("json.extra:Agent", "biji", 4)
    assert "cannot import module 'json.extra' (No module named 'json.extra'); the working folder's json is hidden " \
           f"by the json on the import path ({installed.__file__}): rename yours" in str(caught.value)
    load_agent("myagents.scorer:ScorerAgent", "biji", 4)  # the working folder joins the import path, at its end
    assert sys.modules["json"] is installed and sys.path[-1] == str(project)
