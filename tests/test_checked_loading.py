"""What is read is checked before it is used: a saved policy's weights and description, the
path a ``checkpoint:`` names, the nesting of agent specs and of YAML settings.

* Weights: finite ``float32`` tensors in a mapping of names; anything else (a NaN, an
  infinity, integers, doubles, a list) is one ValueError naming the file and each bad tensor,
  in a policy file as in a run's checkpoint or pool file read by ``train --resume``.
* Description: a key ``splitpoker.json`` does not define (at the top, in its rules, in its
  policy mapping) is refused, naming the key; the shipped policies and format-1 files load.
* Paths: a FIFO, a device or a folder given as a policy file or a settings file says what it
  is, and reading never blocks on a FIFO.
* Depth: a spec nested deeper than ``MAX_SPEC_DEPTH`` and YAML nested deeper than
  ``MAX_YAML_DEPTH`` are one line each (exit status 2 on the command line), found before
  anything is built, never a RecursionError; a long spec that is not deep is cut short in
  its message.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch as th
import yaml

from splitpoker.agents import load_agent
from splitpoker.agents.learned import policy as P
from splitpoker.agents.learned.checkpoint import (
    META_MEMBER,
    POLICY_MEMBER,
    PRETRAINED_DIR,
    pretrained_names,
    read_meta,
    read_policy_state,
)
from splitpoker.agents.specs import MAX_SPEC_DEPTH, AgentSpec, mixture_spec, parse_spec
from splitpoker.runtime.settings import MAX_YAML_DEPTH, load_yaml, read_mapping
from tests.helpers import policy_file, refused, tiny_config

Meta = dict[str, Any]
State = dict[str, th.Tensor]


# --------------------------------------------------------------------------- helpers
@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small Biji policy file written as training writes one."""
    return policy_file(tmp_path_factory.mktemp("good") / "good.zip")


def rewritten(source: Path, target: Path, meta_edit: Callable[[Meta], None] | None = None,
              state_edit: Callable[[State], Any] | None = None) -> Path:
    """A copy of ``source`` at ``target`` with its description and/or weights edited
    (``state_edit`` returns what ``policy.pth`` then holds)."""
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w") as copy:
        for name in archive.namelist():
            data = archive.read(name)
            if name == META_MEMBER and meta_edit is not None:
                meta = json.loads(data)
                meta_edit(meta)
                data = json.dumps(meta).encode()
            if name == POLICY_MEMBER and state_edit is not None:
                state = th.load(io.BytesIO(data), weights_only=True)
                buffer = io.BytesIO()
                th.save(state_edit(state), buffer)
                data = buffer.getvalue()
            copy.writestr(name, data)
    return target


@pytest.fixture
def nothing_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a network was built from a bad file")
    monkeypatch.setattr(P, "build_policy", refuse)


# --------------------------------------------------------------------------- weights
def _first(state: State) -> str:
    return next(iter(state))


def _with_value(value: float) -> Callable[[State], State]:
    def edit(state: State) -> State:
        key = _first(state)
        state[key] = state[key].clone()
        state[key].view(-1)[0] = value
        return state
    return edit


def _as(dtype: th.dtype) -> Callable[[State], State]:
    return lambda state: {k: v.to(dtype) for k, v in state.items()}


#: (id, edit of the weights, what the message names)
WEIGHT_CASES: list[tuple[str, Callable[[State], Any], str]] = [
    ("nan", _with_value(float("nan")), "NaN or infinite"),
    ("inf", _with_value(float("inf")), "NaN or infinite"),
    ("minus_inf", _with_value(float("-inf")), "NaN or infinite"),
    ("integers", _as(th.int64), "int64, not float32"),
    ("doubles", _as(th.float64), "float64, not float32"),
    ("halves", _as(th.float16), "float16, not float32"),
    ("not_a_tensor", lambda state: {**state, _first(state): [1.0, 2.0]}, "a list, not a tensor"),
]


@pytest.mark.usefixtures("nothing_is_built")
@pytest.mark.parametrize(("edit", "shown"), [c[1:] for c in WEIGHT_CASES], ids=[c[0] for c in WEIGHT_CASES])
def test_bad_weights_are_refused_naming_the_file_and_the_tensor(good: Path, tmp_path: Path,
                                                                edit: Callable[[State], Any], shown: str) -> None:
    key = _first(read_policy_state(good))
    path = rewritten(good, tmp_path / "bad.zip", state_edit=edit)
    with pytest.raises(ValueError) as caught:
        load_agent(f"checkpoint:{path}", "biji", 4)
    message = str(caught.value)
    assert len(message.splitlines()) == 1, message
    assert str(path) in message and key in message and shown in message, message


def test_every_bad_tensor_is_named(good: Path, tmp_path: Path) -> None:
    """A few are named, then how many more."""
    names = list(read_policy_state(good))
    path = rewritten(good, tmp_path / "ints.zip", state_edit=_as(th.int32))
    with pytest.raises(ValueError, match=rf"{names[0]} \(int32.*{names[3]} \(int32.* and {len(names) - 4} more"):
        read_policy_state(path)


def test_a_policy_member_holding_a_list_names_the_file(good: Path, tmp_path: Path) -> None:
    path = rewritten(good, tmp_path / "list.zip", state_edit=lambda state: list(state.values()))
    with pytest.raises(ValueError, match=r"list\.zip is damaged: its policy\.pth holds a list, not a state dict"):
        load_agent(f"checkpoint:{path}", "biji", 4)


@pytest.mark.parametrize(("edit", "shown"), [c[1:] for c in WEIGHT_CASES[:4]], ids=[c[0] for c in WEIGHT_CASES[:4]])
def test_cli_bad_weights_are_status_2_and_one_line(good: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   edit: Callable[[State], Any], shown: str) -> None:
    path = rewritten(good, tmp_path / "bad.zip", state_edit=edit)
    line = refused(capsys, "eval", "biji", "--agents", f"checkpoint:{path},random", "--hands", "2",
                   "--out", str(tmp_path / "report"))
    assert str(path) in line and shown in line, line


# --------------------------------------------------------------------------- description keys
def _top(meta: Meta) -> None:
    meta["temperature"] = 0.5


def _rule(meta: Meta) -> None:
    meta["rules"]["xi_everything"] = 9


def _rule_value(meta: Meta) -> None:
    meta["rules"]["jokers"] = "many"


def _policy_key(meta: Meta) -> None:
    meta["policy"]["dropout"] = 0.1


def _mlp_key(meta: Meta) -> None:
    meta["policy"] = {"kind": "mlp", "arch": {"net_arch": [8], "activation": "relu", "dropout": 0.1}}


#: (id, edit of the description, key the message names)
KEY_CASES: list[tuple[str, Callable[[Meta], None], str]] = [
    ("top_level", _top, "temperature"),
    ("rule_switch", _rule, "rules.xi_everything"),
    ("rule_value", _rule_value, "rules.jokers = 'many'"),
    ("policy_mapping", _policy_key, "policy.dropout"),
    ("mlp_setting", _mlp_key, "policy.arch.dropout"),
]


@pytest.mark.usefixtures("nothing_is_built")
@pytest.mark.parametrize(("edit", "key"), [c[1:] for c in KEY_CASES], ids=[c[0] for c in KEY_CASES])
def test_an_unknown_key_is_refused_naming_it(good: Path, tmp_path: Path, edit: Callable[[Meta], None],
                                             key: str) -> None:
    path = rewritten(good, tmp_path / "keys.zip", meta_edit=edit)
    with pytest.raises(ValueError) as caught:
        load_agent(f"checkpoint:{path}", "biji", 4)
    message = str(caught.value)
    assert len(message.splitlines()) == 1, message
    assert str(path) in message and key in message, message


def test_cli_unknown_rule_switch_is_status_2_and_one_line(good: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = rewritten(good, tmp_path / "rule.zip", meta_edit=_rule)
    line = refused(capsys, "eval", "biji", "--agents", f"checkpoint:{path},random", "--hands", "2",
                   "--out", str(tmp_path / "report"))
    assert str(path) in line and "rules.xi_everything" in line and "switches: jokers" in line, line


@pytest.mark.parametrize("name", pretrained_names())
def test_the_shipped_policies_pass_the_checks(name: str) -> None:
    path = PRETRAINED_DIR / f"{name}.zip"
    assert read_meta(path)["format"] == "splitpoker-policy/2"
    assert all(v.dtype == th.float32 for v in read_policy_state(path).values())


def _format_1(drop_inputs: int) -> Callable[[Meta], None]:
    def edit(meta: Meta) -> None:
        meta["format"] = "splitpoker-policy/1"
        meta["observation_size"] -= drop_inputs
        meta["source"] = "splitpoker train configs/x.yaml (seed 0)"
        del meta["splitpoker"]
    return edit


def _without_seat_inputs(count: int) -> Callable[[State], State]:
    """A format-2 split scorer's weights as format 1 held them: no seat-role input columns."""
    def edit(state: State) -> State:
        return {k: v[:, :-count] if v.ndim == 2 and (k.startswith("mlp_extractor.context_layers.")
                                                     or k == "mlp_extractor.value_layer.0.weight") else v
                for k, v in state.items()}
    return edit


@pytest.mark.parametrize(("name", "game", "players", "seat_inputs"),
                         [("biji_classic_4p", "biji", 4, 0), ("thirteen_western_2p", "thirteen", 2, 4)])
def test_a_format_1_file_with_its_source_key_still_plays(tmp_path: Path, name: str, game: str, players: int,
                                                         seat_inputs: int) -> None:
    path = rewritten(PRETRAINED_DIR / f"{name}.zip", tmp_path / "old.zip", meta_edit=_format_1(seat_inputs),
                     state_edit=_without_seat_inputs(seat_inputs) if seat_inputs else None)
    agent = load_agent(f"checkpoint:{path}", game, players, preset="western" if game == "thirteen" else "classic")
    assert agent.meta["upgraded_from"] == "splitpoker-policy/1"


# --------------------------------------------------------------------------- paths that are no file
def unblocked(read: Callable[[], Any], fifo: Path, what: str) -> BaseException | None:
    """What ``read()`` raised (None when it returned), run in a thread: a read that blocks on
    the FIFO ``fifo`` (read as ``what``) fails the test, once a writer has let it go."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            read()
            outcome.append(None)
        except BaseException as error:
            outcome.append(error)

    reader = threading.Thread(target=run, daemon=True)
    reader.start()
    reader.join(timeout=20)
    if reader.is_alive():  # blocked on the FIFO: a writer lets it go
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=20)
        pytest.fail(f"reading a FIFO as {what} blocked")
    return outcome[0]


def test_a_fifo_is_named_as_one_and_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "policy.zip"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match=r"checkpoint '.*policy\.zip' is a FIFO \(named pipe\), not a policy file"):
        load_agent(f"checkpoint:{fifo}", "biji", 4)
    outcome = unblocked(lambda: read_meta(fifo), fifo, "a policy file")
    assert isinstance(outcome, ValueError) and "is a FIFO (named pipe)" in str(outcome), outcome


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_device_is_named_as_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    line = refused(capsys, "eval", "biji", "--agents", "checkpoint:/dev/zero,random", "--hands", "2",
                   "--out", str(tmp_path / "report"))
    assert "checkpoint '/dev/zero' is a device, not a policy file" in line, line


def test_a_folder_read_as_a_policy_file_is_named_as_one(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"is a folder, not a policy file"):
        read_meta(tmp_path)


# --------------------------------------------------------------------------- spec depth
def _mixtures(levels: int) -> str:
    """A spec ``levels`` specs deep: mixtures one within another around greedy."""
    return "mixture:" * (levels - 1) + "greedy"


def _opponents(levels: int) -> str:
    """A spec ``levels`` specs deep: solvers whose opponents are solvers, in parentheses."""
    return "solver:samples=1,opponent=(" * (levels - 1) + "greedy" + ")" * (levels - 1)


@pytest.mark.parametrize("nested", [_mixtures, _opponents], ids=["mixtures", "parentheses"])
def test_a_spec_at_the_depth_limit_reads_and_one_deeper_does_not(nested: Callable[[int], str]) -> None:
    assert parse_spec(nested(MAX_SPEC_DEPTH)).kind in ("mixture", "solver")
    with pytest.raises(ValueError, match=rf"nests specs more than {MAX_SPEC_DEPTH} levels deep"):
        parse_spec(nested(MAX_SPEC_DEPTH + 1))


@pytest.mark.parametrize("nested", [_mixtures, _opponents], ids=["mixtures", "parentheses"])
def test_a_spec_3000_deep_is_one_short_line(nested: Callable[[int], str]) -> None:
    with pytest.raises(ValueError) as caught:
        load_agent(nested(3000), "biji", 4)
    message = str(caught.value)
    assert len(message.splitlines()) == 1 and len(message) < 400, message
    assert f"more than {MAX_SPEC_DEPTH} levels deep" in message, message


def test_a_spec_built_by_code_is_held_to_the_limit() -> None:
    spec = parse_spec("greedy")
    for _ in range(MAX_SPEC_DEPTH - 1):
        spec = mixture_spec([spec, "random"])
    with pytest.raises(ValueError, match=rf"more than {MAX_SPEC_DEPTH} levels deep"):
        mixture_spec([spec, "random"])
    deep = spec
    for _ in range(3000):
        deep = AgentSpec("mixture", members=(deep, parse_spec("random")))
    with pytest.raises(ValueError, match=rf"more than {MAX_SPEC_DEPTH} levels deep"):
        load_agent(deep, "biji", 4)


@pytest.mark.parametrize("nested", [_mixtures, _opponents], ids=["mixtures", "parentheses"])
def test_cli_deep_specs_are_status_2_and_one_line(nested: Callable[[int], str], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    spec = nested(3000)
    line = refused(capsys, "solve", "biji", "As Ks Qs Js Ts 9s 8s 7s 6s", "--samples", "2", "--opponent", spec)
    assert f"more than {MAX_SPEC_DEPTH} levels deep" in line, line
    line = refused(capsys, "eval", "biji", "--agents", f"({spec}),random", "--hands", "2",
                   "--out", str(tmp_path / "report"))
    assert f"more than {MAX_SPEC_DEPTH} levels deep" in line, line


# --------------------------------------------------------------------------- YAML depth
def _lists(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_yaml_at_the_depth_limit_reads_and_one_deeper_does_not() -> None:
    value = load_yaml(_lists(MAX_YAML_DEPTH))
    for _ in range(MAX_YAML_DEPTH - 1):
        value = value[0]
    assert value == []
    with pytest.raises(yaml.YAMLError, match=rf"more than {MAX_YAML_DEPTH} levels deep at line 1"):
        load_yaml(_lists(MAX_YAML_DEPTH + 1))


@pytest.mark.parametrize("text", [_lists(20_000), "a:\n" + "".join("  " * i + "b:\n" for i in range(1, 3000)) + "  x",
                                  "{a: " * 20_000 + "1" + "}" * 20_000],
                         ids=["flow_lists", "block_mappings", "flow_mappings"])
def test_yaml_20000_deep_is_refused_before_it_is_composed(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a node was composed")
    monkeypatch.setattr(yaml.composer.Composer, "compose_node", refuse)
    with pytest.raises(yaml.YAMLError, match=rf"more than {MAX_YAML_DEPTH} levels deep"):
        load_yaml(text)


def test_aliases_are_held_to_the_depth_limit_and_may_not_hold_their_own_value() -> None:
    levels = MAX_YAML_DEPTH // 2 + 1  # each line alone nests less than the limit, the second with the first more
    text = "\n".join(f"a{i}: &a{i} {'[' * levels}{f'*a{i - 1}' if i else 1}{']' * levels}" for i in range(2))
    assert load_yaml(text.splitlines()[0])["a0"]
    with pytest.raises(yaml.YAMLError, match=r"levels deep with its aliases followed at line 2"):
        load_yaml(text)
    for looped in ("&a [*a]", "&a {x: [*a]}"):
        with pytest.raises(yaml.YAMLError, match=r"holds itself through an alias"):
            load_yaml(looped)


def test_a_deep_settings_file_is_one_line_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(f"game: biji\nagents: [greedy]\nx: {_lists(20_000)}\n")
    with pytest.raises(ValueError) as caught:
        read_mapping(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: lists and mappings nested more than {MAX_YAML_DEPTH} levels deep at line 3")
    assert len(message.splitlines()) == 1


def test_cli_deep_yaml_is_status_2_and_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = _lists(20_000)
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(tiny_config(tmp_path)))
    line = refused(capsys, "train", str(config), "--set", f"ppo.n_steps={deep}")
    assert "--set" in line and f"more than {MAX_YAML_DEPTH} levels deep" in line, line
    (tmp_path / "deep.yaml").write_text(config.read_text() + f"x: {deep}\n")
    line = refused(capsys, "train", str(tmp_path / "deep.yaml"))
    assert "deep.yaml" in line and f"more than {MAX_YAML_DEPTH} levels deep" in line, line
    (tmp_path / "eval.yaml").write_text(f"game: biji\nagents: [greedy, random]\nhands: 2\nx: {deep}\n")
    line = refused(capsys, "eval", "--config", str(tmp_path / "eval.yaml"))
    assert "eval.yaml" in line and f"more than {MAX_YAML_DEPTH} levels deep" in line, line
    assert not (tmp_path / "runs").exists()
    (tmp_path / "spec.yaml").write_text(f"game: biji\nagents: ['{_mixtures(3000)}', random]\nhands: 2\n")
    line = refused(capsys, "eval", "--config", str(tmp_path / "spec.yaml"))
    assert f"more than {MAX_SPEC_DEPTH} levels deep" in line, line


# --------------------------------------------------------------------------- a long spec, not deep
@pytest.mark.parametrize("spec", ["greedy:" + "x" * 100_000, "solver:samples=1," + "a=b," * 20_000,
                                  "nokind" * 20_000, "mixture:" + "greedy;" * 20_000 + "bogus",
                                  "solver:opponent=(" + "x" * 100_000],
                         ids=["options", "options twice", "kind", "member", "parenthesis"])
def test_a_long_shallow_bad_spec_is_one_short_line(spec: str) -> None:
    with pytest.raises(ValueError) as caught:
        load_agent(spec, "biji", 4)
    message = str(caught.value)
    short = message.startswith("bad agent spec") and len(message.splitlines()) == 1 and len(message) < 700
    assert short, f"{len(message):,} characters: {message[:300]}"


def test_cli_long_specs_are_one_short_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = "greedy:" + "x" * 100_000
    for argv in (["solve", "biji", "As Ks Qs Js Ts 9s 8s 7s 6s", "--samples", "2", "--opponent", spec],
                 ["eval", "biji", "--agents", f"{spec},random", "--hands", "2", "--out", str(tmp_path / "a")],
                 ["eval", "biji", "--agents", "greedy,random", "--regret-opponent", spec, "--hands", "2",
                  "--out", str(tmp_path / "b")],
                 ["exploit", "biji", "--agent", spec, "--hands", "2"]):
        line = refused(capsys, *argv)
        short = "greedy takes no options" in line and len(line) < 900
        assert short, f"{len(line):,} characters: {line[:300]}"


# --------------------------------------------------------------------------- settings files
def test_a_settings_file_swapped_for_a_fifo_never_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What is read is what was checked: a FIFO put in place of the file after a check that
    it is one (here: a check that says so) is refused at once, never read."""
    fifo = tmp_path / "eval.yaml"
    os.mkfifo(fifo)
    real_is_file = Path.is_file
    monkeypatch.setattr(Path, "is_file", lambda self, *a, **k: self == fifo or real_is_file(self, *a, **k))
    outcome = unblocked(lambda: read_mapping(fifo, what="eval config"), fifo, "a settings file")
    assert isinstance(outcome, ValueError), outcome
    assert str(outcome) == f"eval config {str(fifo)!r} is a FIFO (named pipe), not a YAML file"


# --------------------------------------------------------------------------- weights read on resume
@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished PPO run of 64 hands whose pool holds snapshots."""
    from splitpoker.train.config import load_config_dict
    from splitpoker.train.launch import train

    tmp = tmp_path_factory.mktemp("run")
    config = {**tiny_config(tmp), "selfplay": {"snapshot_interval": 32}}
    return train(load_config_dict(config), command="test", emit=lambda line: None).run_dir


def _files(run: Path) -> dict[Path, bytes]:
    return {p.relative_to(run): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


def _latest(run: Path) -> tuple[Path, Path]:
    """The checkpoint and the pool file a resume of ``run`` reads."""
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    return run / "checkpoints" / state["checkpoint"], run / "checkpoints" / state["pool"]


@pytest.mark.parametrize("value", [float("nan"), float("inf")], ids=["nan", "inf"])
def test_resume_refuses_a_checkpoint_with_bad_weights(stopped_run: Path, tmp_path: Path, value: float,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    run = Path(shutil.copytree(stopped_run, tmp_path / "run"))
    checkpoint, _ = _latest(run)
    os.replace(rewritten(checkpoint, tmp_path / "poisoned.zip", state_edit=_with_value(value)), checkpoint)
    before = _files(run)
    line = refused(capsys, "train", "--resume", str(run), "--set", "total_timesteps=128")
    assert line.startswith(f"splitpoker train: error: {checkpoint} is damaged: its {POLICY_MEMBER} holds weights "
                           "no policy can use: ") and "(1 NaN or infinite value)" in line, line
    assert _files(run) == before


def test_resume_refuses_a_pool_with_bad_weights(stopped_run: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    run = Path(shutil.copytree(stopped_run, tmp_path / "run"))
    _, pool = _latest(run)
    state = th.load(pool, weights_only=True)
    assert state["snapshots"], "the run's pool holds no snapshot"
    snapshot = state["snapshots"][-1]
    _with_value(float("nan"))(snapshot["state"])
    th.save(state, pool)
    before = _files(run)
    line = refused(capsys, "train", "--resume", str(run), "--set", "total_timesteps=128")
    assert line.startswith(f"splitpoker train: error: {pool} is damaged: its snapshot {snapshot['name']} holds "
                           "weights no policy can use: ") and "NaN or infinite" in line, line
    assert _files(run) == before


def test_a_policy_checkpoint_with_bad_weights_is_refused(stopped_run: Path, tmp_path: Path) -> None:
    """Fictitious play's learner reads its checkpoints the same way."""
    from splitpoker.agents.learned.checkpoint import BadWeights
    from splitpoker.envs.games import make_game
    from splitpoker.train.config import load_config
    from splitpoker.train.learner import load_policy_checkpoint

    checkpoint, _ = _latest(stopped_run)
    config = load_config(stopped_run / "config.yaml")
    policy, counters = load_policy_checkpoint(config, make_game("biji"), checkpoint)
    assert counters["num_timesteps"] == 64
    poisoned = rewritten(checkpoint, tmp_path / "poisoned.zip", state_edit=_with_value(float("nan")))
    with pytest.raises(BadWeights, match=rf"{poisoned} is damaged: its {POLICY_MEMBER} holds weights no policy"):
        load_policy_checkpoint(config, make_game("biji"), poisoned)
