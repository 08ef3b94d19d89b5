"""Values are read exactly, and a bad one is refused before any work: one line naming it.

* Training configs and ``--set``: a whole number in plain decimal digits (YAML 1.1 reads
  ``010`` as octal 8, ``0x10``, ``0b11``, ``1_000`` and ``1:30`` as integers, and pydantic
  reads ``8.0`` and the text ``'10'`` as integers), true or false for a bool (not ``yes``,
  ``on`` or 1), a number without ``_``; a ``--set`` key given twice.
* ``train --resume``: a run folder's ``config.yaml`` that lacks a key the run wrote (cut
  short at a line) is refused, naming the first key lost, and nothing in the folder changes.
* ``splitpoker play``: an ``Origin`` is the page's own, ``http://`` or ``https://`` and its
  host; every number option is bounded at start (``--hint-samples 2000000`` would fail the
  first hint) and written in plain decimal digits, as is every number option of every other
  subcommand, a rule switch's number given as ``--set SWITCH=VALUE``, and every number of a
  settings file (``eval --config``); a huge value is cut short in its message.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from splitpoker.train.cli import build_parser, main
from tests.helpers import refusal, refused, tiny_config, tiny_run


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(tiny_config(tmp_path), sort_keys=False))
    return path


def parse_refusal(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The one line argparse refuses ``argv`` with."""
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(argv)
    return refusal(capsys, stop.value.code)


# --------------------------------------------------------------------------- config values
#: (--set, what the message says): every form that YAML or pydantic would read as another number
LOOSE_SETS = [
    ("seed=010", "010 is not a plain decimal integer (YAML would read it as 8)"),
    ("seed=0x10", "0x10 is not a plain decimal integer (YAML would read it as 16)"),
    ("seed=0b11", "0b11 is not a plain decimal integer"),
    ("seed=1_000", "1_000 is not a plain decimal integer (YAML would read it as 1000)"),
    ("seed=1:30", "1:30 is not a plain decimal integer (YAML would read it as 90)"),
    ("seed=-010", "-010 is not a plain decimal integer"),
    ("eval.hands=0x20", "0x20 is not a plain decimal integer"),
    ("eval.opponents=[random, 0x20]", "eval.opponents.1: 0x20 is not a plain decimal integer"),
    ("seed=8.0", "seed: a whole number is written without a point or an exponent"),
    ("n_envs=2.0", "n_envs: a whole number is written without a point or an exponent"),
    ("total_timesteps=1.0e+3", "total_timesteps: a whole number is written without a point"),
    ("seed='10'", "seed: a whole number is written unquoted"),
    ("seed=1e3", "seed: a whole number is written unquoted"),
    ("progress=yes", "yes is not true or false (YAML would read it as true); write true or false"),
    ("ppo.normalize_advantage=off", "off is not true or false"),
    ("progress=1", "progress: write true or false"),
    ("progress='true'", "progress: write true or false"),
    ("ppo.learning_rate=1_0.5", "1_0.5 is not a plain decimal number (YAML would read it as 10.5)"),
    ("ppo.learning_rate='1_0.5'", "ppo.learning_rate: a number is written in decimal digits"),
]


@pytest.mark.parametrize(("override", "expected"), LOOSE_SETS, ids=[c[0] for c in LOOSE_SETS])
def test_a_loosely_written_setting_is_refused(config_file: Path, override: str, expected: str) -> None:
    from splitpoker.train.config import load_config

    with pytest.raises(ValueError) as raised:
        load_config(config_file, [override])
    message = str(raised.value)
    assert expected in message and "\n" not in message, message


EXACT_SETS = [("seed=10", "seed", 10), ("seed=0", "seed", 0), ("seed=+5", "seed", 5),
              ("ppo.learning_rate=1e-4", "ppo.learning_rate", 1e-4), ("ppo.learning_rate=3", "ppo.learning_rate", 3.0),
              ("ppo.learning_rate=2.5e-3", "ppo.learning_rate", 2.5e-3), ("progress=true", "progress", True),
              ("progress=False", "progress", False), ("progress=TRUE", "progress", True)]


@pytest.mark.parametrize(("override", "key", "value"), EXACT_SETS, ids=[c[0] for c in EXACT_SETS])
def test_an_exactly_written_setting_is_read(config_file: Path, override: str, key: str, value: Any) -> None:
    from splitpoker.train.config import load_config

    config: Any = load_config(config_file, [override])
    for part in key.split("."):
        config = getattr(config, part)
    assert config == value and type(config) is type(value)


@pytest.mark.parametrize(("line", "expected"), [
    ("seed: 010", "seed: 010 (line {n}) is not a plain decimal integer (YAML would read it as 8)"),
    ("seed: 1_000", "seed: 1_000 (line {n}) is not a plain decimal integer"),
    ("rules: {scoop: on}", "rules.scoop: on (line {n}) is not true or false"),
    ("seed: 8.0", "seed: a whole number is written without a point"),
], ids=["octal", "underscore", "bool word", "float"])
def test_a_config_file_with_a_loose_value_is_refused(config_file: Path, line: str, expected: str) -> None:
    from splitpoker.train.config import load_config

    text = config_file.read_text()
    config_file.write_text(text + line + "\n")
    with pytest.raises(ValueError) as raised:
        load_config(config_file)
    message = str(raised.value)
    assert message.startswith(f"{config_file}: ") and expected.format(n=len(text.splitlines()) + 1) in message, message


def test_the_best_responses_samples_are_bounded_before_the_run(config_file: Path) -> None:
    """The solver refuses more than a million samples: found when the config is read, not by
    the final evaluation after the whole run."""
    from splitpoker.train.config import load_config

    with pytest.raises(ValueError, match=r"eval.br_samples: Input should be less than or equal to 1000000"):
        load_config(config_file, ["eval.br_samples=2000000"])
    assert load_config(config_file, ["eval.br_samples=1000000"]).eval.br_samples == 1_000_000


def test_the_command_line_refuses_a_loose_seed_in_one_line(config_file: Path, capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    line = refused(capsys, "train", str(config_file), "--set", "seed=010")
    assert "010 is not a plain decimal integer (YAML would read it as 8)" in line, line
    assert not (tmp_path / "runs").exists()


# --------------------------------------------------------------------------- --set given twice
@pytest.mark.parametrize(("overrides", "expected"), [
    (["seed=1", "seed=2"], "--set seed is given twice (--set seed=1 and --set seed=2)"),
    (["seed=1", " seed =2"], "--set seed is given twice"),
    (["ppo.n_steps=8", "ppo={n_steps: 16}"], "--set ppo={n_steps: 16} replaces ppo.n_steps, set before by --set "
                                              "ppo.n_steps=8"),
], ids=["same key", "same key spaced", "section after its key"])
def test_a_key_set_twice_is_refused(config_file: Path, overrides: list[str], expected: str) -> None:
    from splitpoker.train.config import load_config

    with pytest.raises(ValueError) as raised:
        load_config(config_file, overrides)
    assert expected in str(raised.value), str(raised.value)


def test_a_key_inside_a_section_set_before_is_a_change_of_it(config_file: Path) -> None:
    from splitpoker.train.config import load_config

    config = load_config(config_file, ["ppo={n_steps: 16, n_epochs: 2}", "ppo.n_steps=32"])
    assert (config.ppo.n_steps, config.ppo.n_epochs) == (32, 2)


def test_a_list_position_is_plain_decimal(tmp_path: Path) -> None:
    from splitpoker.train.config import apply_overrides

    data = {"fictitious_play": {"phases": [{"rounds": 1}, {"rounds": 2}]}}
    assert apply_overrides(data, ["fictitious_play.phases.1.rounds=5"])["fictitious_play"]["phases"][1] == {"rounds": 5}
    for position in ("01", "+1", "١"):
        with pytest.raises(ValueError, match="is a list of 2; its positions are 0 to 1"):
            apply_overrides(data, [f"fictitious_play.phases.{position}.rounds=5"])


def test_the_command_line_refuses_a_key_set_twice_in_one_line(config_file: Path, capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    line = refused(capsys, "train", str(config_file), "--set", "seed=1", "--set", "seed=2")
    assert "--set seed is given twice" in line, line
    assert not (tmp_path / "runs").exists()


# --------------------------------------------------------------------------- resume of a cut config.yaml
@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tiny_run(tmp_path_factory.mktemp("run"))


def files_of(run: Path) -> dict[Path, bytes]:
    return {p.relative_to(run): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


#: (the lines of config.yaml kept, the first key lost)
CUTS = [(-1, "progress"), (-2, "output_dir"), (-4, "checkpoint"), (56, "eval.hands"), (39, "selfplay.snapshot_play"),
        (20, "ppo.n_steps")]


@pytest.mark.parametrize(("kept", "lost"), CUTS, ids=[c[1] for c in CUTS])
def test_resume_refuses_a_config_cut_short(finished_run: Path, tmp_path: Path, kept: int, lost: str) -> None:
    from splitpoker.train.launch import resume_run

    run = Path(shutil.copytree(finished_run, tmp_path / "run"))
    path = run / "config.yaml"
    lines = path.read_text().splitlines(keepends=True)
    assert lines[-1] == "progress: false\n" and lines[55] == "  every: 0\n", lines  # as TrainConfig.to_yaml writes it
    path.write_text("".join(lines[:kept]))
    before = files_of(run)
    with pytest.raises(ValueError) as raised:
        resume_run(run, ["total_timesteps=128"], "again", emit=lambda line: None)
    message = str(raised.value)
    assert message.startswith(f"{path}: {lost} is missing") and "\n" not in message, message
    assert files_of(run) == before


def test_a_complete_saved_config_passes(finished_run: Path) -> None:
    from splitpoker.train.config import check_saved_config, load_config

    path = finished_run / "config.yaml"
    check_saved_config(path, load_config(path))


def test_resume_of_a_cut_config_is_one_line(finished_run: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    run = Path(shutil.copytree(finished_run, tmp_path / "run"))
    path = run / "config.yaml"
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))
    line = refused(capsys, "train", "--resume", str(run), "--set", "total_timesteps=128")
    assert "progress is missing" in line, line


# --------------------------------------------------------------------------- browser play
@pytest.mark.parametrize("origin", ["ftp://testserver", "ws://testserver", "file://testserver", "testserver",
                                    "http://testserver/page", "http://testserver.example", "http://", "null"])
def test_an_origin_of_another_scheme_or_host_is_refused(origin: str) -> None:
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from splitpoker.play.server import create_app
    from splitpoker.play.session import PlaySettings

    app = TestClient(create_app(PlaySettings(game="biji", players=2, hands=2, seed=4)))
    refused = app.post("/api/matches", headers={"Origin": origin})
    assert refused.status_code == 403 and "cross-origin" in refused.json()["error"]
    assert app.post("/api/matches", headers={"Origin": "http://testserver"}).status_code == 201
    assert app.post("/api/matches", headers={"Origin": "https://testserver"}).status_code == 201


@pytest.mark.parametrize(("settings", "expected"), [
    ({"hint_samples": 2_000_000}, "hint_samples=2000000 is not a whole number of at least 1 and at most 65,536 "
                                  "(--hint-samples)"),
    ({"hands": 100_000}, "hands=100000 is not a whole number of at least 1 and at most 10,000 (--hands)"),
    ({"seed": 2**32}, "seed=4294967296 is not a whole number of at least 0 and at most 4,294,967,295 (--seed)"),
    ({"preset": "banker", "banker_term": 100_000}, "banker_term=100000 is not a whole number of at least 1 and at "
                                                   "most 10,000 (--banker-hands)"),
], ids=["hint_samples", "hands", "seed", "banker_term"])
def test_play_settings_are_bounded(settings: dict[str, Any], expected: str) -> None:
    from splitpoker.play.session import PlaySettings

    with pytest.raises(ValueError) as raised:
        PlaySettings(game="thirteen", players=3, **settings).check()
    assert str(raised.value) == expected


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """``splitpoker play`` refused before it listens: listening is a failure of the test."""
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from splitpoker.play import commands

    def bind(host: str, port: int) -> Any:
        raise AssertionError(f"the server was started (on {host}:{port})")

    monkeypatch.setattr(commands, "bind", bind)


PLAY_CASES = [
    (["--hint-samples", "2000000"], "hint_samples=2000000 is not a whole number of at least 1 and at most 65,536"),
    (["--hands", "20000"], "hands=20000 is not a whole number of at least 1 and at most 10,000"),
    (["--seed", "4294967296"], "at most 4,294,967,295 (--seed)"),
    (["--time-limit", "100000"], "time_limit=100000.0 is not a number of seconds above 0 (at most a day)"),
    (["--seed", "010"], "argument --seed: invalid int value: '010'"),
    (["--hands", "1_0"], "argument --hands: invalid int value: '1_0'"),
    (["--players", "٣"], "argument --players: invalid int value"),
    (["--hint-samples", "6.4e1"], "argument --hint-samples: invalid int value"),
    (["--port", "080"], "argument --port: invalid int value: '080'"),
    (["--time-limit", "1_0"], "argument --time-limit: invalid float value: '1_0'"),
    (["--time-limit", "nan"], "argument --time-limit: invalid float value: 'nan'"),
]


@pytest.mark.parametrize(("args", "expected"), PLAY_CASES, ids=[" ".join(c[0]) for c in PLAY_CASES])
def test_play_refuses_a_bad_number_before_it_starts(no_server: None, capsys: pytest.CaptureFixture[str],
                                                    args: list[str], expected: str) -> None:
    line = refused(capsys, "play", "biji", *args)
    assert expected in line, line


# --------------------------------------------------------------------------- every number option
HAND = "As Ks Qs Js Ts 9s 8s 7s 6s"


def _value_options() -> list[tuple[str, str, Any]]:
    """(subcommand, option, type) of every option of every subcommand that takes a typed value."""
    import argparse

    parser = build_parser()
    found = []
    for group in parser._actions:
        if isinstance(group, argparse._SubParsersAction):
            for name, command in group.choices.items():
                found += [(name, (action.option_strings or [action.dest])[0], action.type)
                          for action in command._actions if action.type is not None]
    return found


def test_no_option_reads_its_number_with_int_or_float() -> None:
    """int() reads 1_000, ' 7' and ٣; float() reads nan and 1_0.5: every number option of every
    subcommand reads plain decimal digits instead."""
    from splitpoker.runtime.arguments import decimal_number, whole_number

    options = _value_options()
    assert {(command, option) for command, option, kind in options if kind in (int, float)} == set()
    numbers = {(command, option) for command, option, kind in options if kind in (whole_number, decimal_number)}
    assert {("solve", "--top"), ("eval", "--workers"), ("exploit", "--samples"), ("convergence", "--points"),
            ("benchmark", "--workers"), ("play", "--time-limit")} <= numbers


NUMBER_CASES = [
    ["solve", "biji", HAND, "--players", "٣"],
    ["solve", "biji", HAND, "--seat", "0_1"],
    ["solve", "biji", HAND, "--samples", "1_000"],
    ["solve", "biji", HAND, "--top", "+05"],
    ["eval", "biji", "--agents", "greedy", "--hands", "010"],
    ["eval", "biji", "--agents", "greedy", "--seed", "1_000"],
    ["eval", "biji", "--agents", "greedy", "--hands", "1e3"],
    ["eval", "biji", "--agents", "greedy", "--players", "03"],
    ["eval", "biji", "--agents", "greedy", "--workers", "1_0"],
    ["eval", "biji", "--agents", "greedy", "--regret-samples", "٦٤"],
    ["exploit", "biji", "--agent", "greedy", "--hands", "0x10"],
    ["exploit", "biji", "--agent", "greedy", "--seed", " 7"],
    ["exploit", "biji", "--agent", "greedy", "--samples", "0_8"],
    ["exploit", "biji", "--agent", "greedy", "--players", " 3"],
    ["exploit", "biji", "--agent", "greedy", "--workers", "02"],
    ["convergence", "run", "--out", "x.png", "--seed", "07"],
    ["convergence", "run", "--out", "x.png", "--hands", "20.0"],
    ["convergence", "run", "--out", "x.png", "--samples", "2_56"],
    ["convergence", "run", "--out", "x.png", "--points", "05"],
    ["convergence", "run", "--out", "x.png", "--workers", "1_0"],
    ["benchmark", "--protocol", "v1", "--workers", "01"],
]


@pytest.mark.parametrize("argv", NUMBER_CASES, ids=lambda argv: " ".join(argv[:1] + argv[-2:]))
def test_every_number_option_is_plain_decimal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    line = parse_refusal(capsys, argv)
    assert f"argument {argv[-2]}: invalid int value: {argv[-1]!r}; write a whole number in decimal digits" in line


def test_plain_numbers_are_read_by_every_option() -> None:
    args = build_parser().parse_args(["solve", "biji", HAND, "--players", "3", "--seat", "+1", "--samples", "8",
                                      "--top", "2", "--seed", "0"])
    assert (args.players, args.seat, args.samples, args.top, args.seed) == (3, 1, 8, 2, 0)
    args = build_parser().parse_args(["convergence", "run", "--out", "x.png", "--samples", "16", "--points", "3",
                                      "--workers", "2"])
    assert (args.samples, args.points, args.workers) == (16, 3, 2)
    assert build_parser().parse_args(["splits", "biji", HAND, "--decode", "40"]).decode == 40


def test_plain_seeds_and_hands_are_read() -> None:
    args = build_parser().parse_args(["eval", "biji", "--agents", "greedy", "--hands", "10", "--seed", "-1"])
    assert (args.hands, args.seed) == (10, -1)
    args = build_parser().parse_args(["exploit", "biji", "--agent", "greedy", "--hands", "0", "--seed", "+3"])
    assert (args.hands, args.seed) == (0, 3)


@pytest.mark.parametrize("value", ["010", "0_1", "٣"])
def test_a_split_index_is_plain_decimal(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    line = parse_refusal(capsys, ["splits", "biji", HAND, "--decode", value])
    assert f"argument --decode: split index {value!r} is not an integer written in decimal digits" in line, line


def test_a_huge_number_option_is_cut_in_its_message(capsys: pytest.CaptureFixture[str]) -> None:
    line = parse_refusal(capsys, ["solve", "biji", HAND, "--samples", "9" * 10_000])
    assert "invalid int value: '9999" in line and "(10,000 characters)" in line and len(line) < 300, line[:300]


# --------------------------------------------------------------------------- rule switches
SWITCH_COMMANDS = [["rules", "biji"], ["solve", "biji", HAND, "--samples", "2"],
                   ["eval", "biji", "--agents", "greedy,random", "--hands", "2", "--no-regret"],
                   ["exploit", "biji", "--agent", "greedy", "--samples", "2", "--hands", "2"]]


@pytest.mark.parametrize("value", ["010", "1_0", "٢", "0x10", "+02"])
@pytest.mark.parametrize("command", SWITCH_COMMANDS, ids=lambda argv: argv[0])
def test_a_rule_switch_is_read_exactly(command: list[str], value: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(capsys, *command, "--set", f"xi_sweep={value}", *(
        ["--out", str(tmp_path / "report")] if command[0] == "eval" else []))
    assert f"biji switch xi_sweep={value!r} is not allowed; use an integer written in decimal digits" in line, line
    assert not (tmp_path / "report").exists()


def test_a_plain_rule_switch_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["rules", "biji", "--set", "xi_sweep=12", "--set", "xi_all_red=0", "--json"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert (rules["xi_sweep"], rules["xi_all_red"]) == (12, 0)


@pytest.mark.parametrize(("argv", "expected"), [
    (["solve", "biji", HAND, "--set", "jokers={huge}"], "biji switch jokers='9999"),
    (["rules", "biji", "--set", "xi_sweep={huge}"], "biji switch xi_sweep='9999"),
    (["rules", "biji", "--set", "xi_sweep=1{huge}"], "biji switch xi_sweep='1999"),
    (["rules", "biji", "--set", "suit_order={huge}"], "suit_order '9999"),
    (["rules", "biji", "--set", "{huge}=1"], "unknown biji switch '9999"),
    (["rules", "biji", "--set", "{huge}"], "cannot read --set '9999"),
    (["rules", "biji", "--preset", "{huge}"], "unknown biji preset '9999"),
], ids=["choice", "integer", "digits", "suit order", "name", "no value", "preset"])
def test_a_huge_rule_switch_is_cut_in_its_message(argv: list[str], expected: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    huge = "9" * 10_000
    line = refused(capsys, *[a.replace("{huge}", huge) for a in argv])
    assert expected in line and len(line) < 400, f"{len(line):,} characters: {line[:300]}"


# --------------------------------------------------------------------------- every settings file
@pytest.mark.parametrize(("line", "expected"), [
    ("seed: 010", "seed: 010 (line 4) is not a plain decimal integer (YAML would read it as 8); write it in decimal "
                  "digits"),
    ("hands: 1_0", "hands: 1_0 (line 4) is not a plain decimal integer (YAML would read it as 10)"),
    ("switches: {xi_sweep: 0x10}", "switches.xi_sweep: 0x10 (line 4) is not a plain decimal integer (YAML would "
                                   "read it as 16)"),
    ("regret: yes", "regret: yes (line 4) is not true or false (YAML would read it as true); write true or false"),
], ids=["octal", "underscore", "switch", "bool word"])
def test_every_settings_file_reads_its_numbers_exactly(line: str, expected: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from splitpoker.runtime.files import read_mapping

    path = tmp_path / "eval.yaml"
    path.write_text(f"game: biji\nagents: [greedy, random]\nplayers: 2\n{line}\n")
    with pytest.raises(ValueError) as raised:
        read_mapping(path, what="eval config")
    assert str(raised.value).startswith(f"{path}: {expected}"), str(raised.value)
    status = main(["eval", "--config", str(path), "--out", str(tmp_path / "report")])
    assert expected in refusal(capsys, status)
    assert not (tmp_path / "report").exists()


def test_a_huge_loose_number_in_a_settings_file_is_cut(tmp_path: Path) -> None:
    from splitpoker.runtime.files import read_mapping

    path = tmp_path / "eval.yaml"
    path.write_text("game: biji\nseed: 0x" + "f" * 20_000 + "\n")
    with pytest.raises(ValueError) as raised:
        read_mapping(path)
    message = str(raised.value)
    assert "seed: 0xfff" in message and "is not a plain decimal integer" in message and len(message) < 800, message
