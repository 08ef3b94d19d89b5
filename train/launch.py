"""Starting and resuming runs: the run folder, its stamp and lock, the checks before any
work, and the entry points :func:`train`, :func:`start_run` and :func:`resume_run`.

:func:`train` runs a :class:`~splitpoker.train.config.TrainConfig`: it checks everything the
run needs (:func:`check_run`), then creates ``runs/<game>__<config>__<seed>__<timestamp>/``
with ``config.yaml`` (resolved), ``command.txt`` and ``splitpoker.json`` (the version and
commit that started the run and each resume, :func:`write_run_stamp`), and runs the trainer
of ``config.algorithm`` (:func:`trainer_class`, from the registry of :mod:`.trainers`).
:func:`resume_run` reopens a run folder, refuses changes to the settings that define the
model and the table (:func:`resumable` lists the others: :data:`RESUMABLE` and the trainer's)
and to the checkpoint's own record (:func:`check_resume_meta`), and continues from its latest
checkpoint. What a trainer's keys need before a run (agent specs, backends), which of them a
resume may change and the key that bounds a finished run come from its config class
(:class:`~splitpoker.train.config.TrainConfig`'s hooks): this module names no algorithm.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import torch as th

from ..agents import load_agent
from ..agents.learned.checkpoint import read_meta
from ..agents.version import stamp
from ..envs.games import make_game
from ..envs.messages import cut
from ..runtime.arguments import is_number
from ..runtime.files import check_owned_tree, exclusive_lock, free_path, output_path, write_owned
from . import trainers
from .config import SHOWN_CHARS, TrainConfig, check_saved_config, find_config, load_config, model_keys
from .run import RunResult, Trainer, read_state, write_state

#: shared settings a resumed run may change with --set (the rest define the model and the table);
#: a trainer's config adds its own (:attr:`~splitpoker.train.config.TrainConfig.resumable`)
RESUMABLE = ("total_timesteps", "eval", "progress", "torch_threads", "imitation", "output_dir")
#: the run folder's record of the splitpoker that started it and resumed it
RUN_STAMP_FILE = "splitpoker.json"


# --------------------------------------------------------------------------- the run folder
def run_name(config: TrainConfig, stem: str) -> str:
    return f"{config.game}__{stem}__{config.seed}__{datetime.now().strftime('%Y%m%d-%H%M%S')}"


def new_run_dir(config: TrainConfig, stem: str) -> Path:
    path = free_path(output_path(config.output_dir, "output_dir") / run_name(config, stem), separator="-")
    path.mkdir(parents=True)
    return path


def write_run_stamp(run_dir: Path, resumed: bool = False) -> Path:
    """Write ``splitpoker.json`` in a run folder: ``{"started": STAMP, "resumes": [STAMP, ...]}``,
    each the :func:`~splitpoker.agents.version.stamp` (version, and the commit when run from
    a git checkout) of the code that started the run or resumed it. A resume appends to the
    list; a run folder from before the file (or with a damaged one) gets one that lists
    the resume only."""
    path = run_dir / RUN_STAMP_FILE
    if resumed:
        try:
            record: Any = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            record = {}
        record = record if isinstance(record, dict) else {}
        resumes = record.get("resumes")
        record["resumes"] = [*(resumes if isinstance(resumes, list) else []), stamp()]
    else:
        record = {"started": stamp(), "resumes": []}
    return write_owned(path, (json.dumps(record, indent=1) + "\n").encode(), within=run_dir)


def command_line(argv: Sequence[str] | None = None) -> str:
    return shlex.join(["splitpoker", *(sys.argv[1:] if argv is None else argv)])


# --------------------------------------------------------------------------- checks
def check_device(device: str) -> None:
    """ValueError unless ``device`` names a torch device that this machine has."""
    try:
        parsed = th.device(device)
    except (RuntimeError, ValueError, TypeError):
        raise ValueError(f"device: {device!r} is not a torch device; use cpu, cuda, cuda:N or mps") from None
    if parsed.type == "cuda":
        count = th.cuda.device_count() if th.cuda.is_available() else 0
        if count == 0:
            raise ValueError(f"device: {device!r}, but this machine (this torch build) has no CUDA device; use cpu")
        if parsed.index is not None and parsed.index >= count:
            raise ValueError(f"device: {device!r}, but this machine has {count} CUDA device(s): cuda:0 to "
                             f"cuda:{count - 1}")
    elif parsed.type == "mps":
        if not th.backends.mps.is_available():
            raise ValueError(f"device: {device!r}, but MPS is not available on this machine; use cpu")
    elif parsed.type != "cpu":
        raise ValueError(f"device: {device!r} is not supported; use cpu, cuda, cuda:N or mps")


def resumable(config: TrainConfig) -> tuple[str, ...]:
    """The keys a resumed run of ``config`` may change: the shared ones and its trainer's."""
    return (*RESUMABLE, *config.resumable)


def check_run(config: TrainConfig, source: str = "config") -> None:
    """Everything a run needs, checked before any folder is made or any work is done: the
    device, the output and cache folders, the labelling backends, and every agent spec
    (evaluation opponents, the trainer's, the imitation teacher with its opponent model), each
    loaded once. ValueError naming ``source`` and the key."""
    from ..runtime.files import check_writable_folder

    try:
        check_device(config.device)
        check_writable_folder(config.output_dir, "output_dir")
        if config.imitation.enabled:
            check_writable_folder(config.imitation.cache_dir, "imitation.cache_dir")
        backends = [("imitation", config.imitation.backend)] if config.imitation.enabled else []
        for key, backend in backends + config.trainer_backends():
            if backend == "ray":
                try:
                    import ray  # noqa: F401
                except ImportError:
                    raise ValueError(f"{key}.backend: ray needs Ray: install the extra with  "
                                     "pip install 'splitpoker[ray]'") from None
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    game = make_game(config.game, **config.game_kwargs())
    specs = [(f"eval.opponents[{i}]", spec) for i, spec in enumerate(config.eval.opponents)]
    specs += config.trainer_agent_specs()
    if config.imitation.enabled:
        specs.append(("imitation.solver", config.imitation.solver))
    for key, spec in specs:
        try:
            load_agent(spec, game=game, num_players=config.num_players, seed=0)
        except ValueError as error:
            raise ValueError(f"{source}: {key}: {str(error).splitlines()[0]}") from None


def check_resume_meta(config: TrainConfig, meta: Mapping[str, Any], state: Mapping[str, Any], run_dir: Path) -> None:
    """ValueError unless the checkpoint ``state.json`` names (its ``splitpoker.json``,
    ``meta``) was trained with the game, preset, rules, table size and network of the
    run's ``config.yaml`` as it reads now (an edited ``config.yaml`` would otherwise fail to
    load the weights, or train them at another table). The step ``state.json`` records is
    checked against the checkpoint's own once its counters are loaded (:class:`~.run.Trainer`).
    A policy over offered splits is checked for its ``offer`` too."""
    name = str(state["checkpoint"])
    game = make_game(config.game, **config.game_kwargs())
    here, trained = _as_json(game.rules.to_dict()), meta.get("rules") or {}
    policy = meta.get("policy") or {}
    arch, trained_arch = _as_json(config.policy.arch()), policy.get("arch") or {}
    pairs: list[tuple[str, Any, Any]] = [("game", config.game, meta.get("game"))]
    pairs += [("num_players", config.num_players, meta.get("num_players"))]
    if meta.get("preset") is not None:
        pairs.append(("preset", config.preset, meta["preset"]))
    pairs += [(f"rules.{key}", here.get(key), trained[key]) for key in trained if key in here]
    pairs.append(("policy.kind", config.policy.kind, policy.get("kind")))
    pairs += [(f"policy.{key}", arch[key], trained_arch[key]) for key in arch if key in trained_arch]
    if config.policy.offered:
        pairs.append(("policy.offer", config.policy.offer, meta.get("offer")))
    for key, now, then in pairs:
        if now != then:
            raise ValueError(f"{run_dir / 'config.yaml'}: {key} is {_setting(now)} but checkpoint {name} was trained "
                             f"with {_setting(then)}; a run resumes with the settings it was started with")


def _as_json(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists), to compare with a checkpoint's record."""
    return json.loads(json.dumps(value))


def _setting(value: Any) -> str:
    """A setting's value in a message: numbers as they are, anything else as its repr, cut short."""
    return cut(str(value) if is_number(value) else repr(value),
               SHOWN_CHARS)


# --------------------------------------------------------------------------- entry points
def trainer_class(config: TrainConfig) -> type[Trainer]:
    """The trainer of the config's algorithm, from the registry of :mod:`.trainers`."""
    return trainers.trainer_class(config.algorithm)


def start_run(config: TrainConfig, stem: str, command: str, emit: Callable[[str], None] = print,
              source: str = "config") -> RunResult:
    """Train a new run from a validated config (checked by :func:`check_run` first; a run
    whose set-up fails leaves no folder behind)."""
    check_run(config, source)
    run_dir = new_run_dir(config, stem)
    try:
        write_owned(run_dir / "config.yaml", config.to_yaml().encode(), within=run_dir)
        write_owned(run_dir / "command.txt", (command + "\n").encode(), within=run_dir)
        write_run_stamp(run_dir)
        trainer = trainer_class(config)(config, run_dir, resume=False, emit=emit)
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    emit(f"run folder: {run_dir}")
    with exclusive_lock(run_dir, "run folder") as claim:
        claim()
        return trainer.run()


def resume_run(run_dir: str | Path, overrides: Sequence[str], command: str,
               emit: Callable[[str], None] = print) -> RunResult:
    """Continue a run from its latest checkpoint (step count, pool, optimizer); refused while
    another process trains the same folder (:func:`~splitpoker.runtime.files.exclusive_lock`), and
    refused for a folder with a symbolic link in it (:func:`~splitpoker.runtime.files.check_owned_tree`):
    a run writes only into what it made."""
    folder = output_path(run_dir, "--resume")
    if not (folder / "config.yaml").is_file():
        raise ValueError(f"{folder} is not a run folder (no config.yaml)")
    check_owned_tree(folder, "run folder")
    with exclusive_lock(folder, "run folder") as claim:
        return _resume_locked(folder, overrides, command, emit, claim)


def _resume_locked(run_dir: Path, overrides: Sequence[str], command: str, emit: Callable[[str], None],
                   claim: Callable[[], None]) -> RunResult:
    before = load_config(run_dir / "config.yaml")
    config = load_config(run_dir / "config.yaml", overrides)
    changed = [k for k, v in model_keys(config).items() if model_keys(before)[k] != v]
    changed += [k for k in config.layout() if k not in (*model_keys(config), *resumable(config))
                and getattr(before, k, None) != getattr(config, k)]  # None: a key of another algorithm's
    if changed:
        raise ValueError(f"--resume cannot change {changed[0]}; a resumed run may change: "
                         f"{', '.join(resumable(before))}")
    check_run(config, f"{run_dir / 'config.yaml'}" + (" with --set " + " ".join(overrides) if overrides else ""))
    state = read_state(run_dir / "checkpoints")
    meta = read_meta(run_dir / "checkpoints" / state["checkpoint"])  # a damaged checkpoint is found before any change
    _check_intact(run_dir / "checkpoints" / state["checkpoint"])  # a damaged file first: it is what to restore
    check_saved_config(run_dir / "config.yaml", before)  # no key lost: a default would stand in for the run's value
    check_resume_meta(config, meta, state, run_dir)
    if state.get("finished") and state.get("step", 0) >= config.total_timesteps:
        raise ValueError(f"{run_dir} finished at step {state['step']}; raise it with --set {config.finished_key()}=N")
    trainer = trainer_class(config)(config, run_dir, resume=True, emit=emit)  # loads everything before anything changes
    claim()  # every check has passed: from here on the run writes its folder
    trainer.state["finished"] = False
    write_state(run_dir / "checkpoints", trainer.state)
    if overrides:
        write_owned(run_dir / "config.yaml", config.to_yaml().encode(), within=run_dir)
    write_owned(run_dir / "command.txt", (command + "\n").encode(), within=run_dir, append=True)
    write_run_stamp(run_dir, resumed=True)
    emit(f"resuming {run_dir} at step {state['step']}")
    return trainer.run()


def _check_intact(path: Path) -> None:
    """ValueError when a member of the checkpoint ``path`` (a zip) fails its CRC check."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()
    except Exception as error:  # zip, zlib and OS errors of a damaged file
        raise ValueError(f"{path} is damaged and cannot be resumed from ({type(error).__name__})") from None
    if bad is not None:
        raise ValueError(f"{path} is damaged and cannot be resumed from (its {bad} fails its CRC check)")


def train(config: TrainConfig | str | Path, overrides: Sequence[str] = (), command: str | None = None,
          emit: Callable[[str], None] = print) -> RunResult:
    """Train from a config object, a config file or the name of a packaged config
    (:func:`~splitpoker.train.config.find_config`), with ``--set`` overrides."""
    if isinstance(config, (str, Path)):
        config = find_config(config)
        stem = config.stem
        source = str(config) + (" with --set " + " ".join(overrides) if overrides else "")
        config = load_config(config, overrides)
    else:
        stem = source = "config"
    return start_run(config, stem, command or command_line(), emit=emit, source=source)
