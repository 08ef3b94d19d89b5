"""Bounds on every resource-sized count (worker processes, subprocess environments, the
tables of a vector environment or a deal, the rollout of a training run), checked before any
work starts, and the checks of the Python API's inputs: card ids, table and seat indexes,
seeds and the splits an agent (or a mixture's member) returns, each refused with a
ValueError that names the argument and the value."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from splitpoker.agents import load_agent
from splitpoker.agents.base import Agent, check_choices
from splitpoker.envs.games import make_game
from splitpoker.envs.table import SeatView, Tables, deal, deal_around
from splitpoker.envs.vector import ArrangeVectorEnv, TableBatchEnv
from splitpoker.train.cli import main

THIRTEEN = make_game("thirteen")
BIJI = make_game("biji")


@pytest.fixture
def no_pools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting a worker pool, or one process per env, fails the test instead of starting them."""
    import splitpoker.eval.exploit as exploit

    @contextlib.contextmanager
    def pool(context: Any, processes: int) -> Iterator[Any]:
        raise AssertionError(f"a pool of {processes} processes was started")
        yield  # pragma: no cover

    class Subprocesses:
        def __init__(self, envs: Sequence[Any], **kwargs: Any) -> None:
            raise AssertionError(f"{len(envs)} env processes were started")

    monkeypatch.setattr(exploit, "worker_pool", pool)
    try:
        import splitpoker.train.ppo as ppo
    except ImportError:  # without the training extra
        return
    monkeypatch.setattr(ppo, "SubprocVecEnv", Subprocesses)


# --------------------------------------------------------------------------- the bounds themselves

def test_one_check_for_counts() -> None:
    from splitpoker.runtime.limits import MAX_THREADS, MAX_WORKERS, check_count, check_threads, check_workers

    assert check_workers(np.int64(3)) == 3 and type(check_workers(np.int64(3))) is int
    assert check_threads(MAX_THREADS) == MAX_THREADS
    too_many = f"--workers {MAX_WORKERS + 1} is more than the most allowed, {MAX_WORKERS}"
    for bad, message in ((0, "--workers 0 must be an integer of at least 1"), (-3, "--workers -3 must be"),
                         (2.0, "--workers 2.0 must be"), (True, "--workers True must be"), (MAX_WORKERS + 1, too_many)):
        with pytest.raises(ValueError, match=message):
            check_workers(bad)
    with pytest.raises(ValueError, match="num_envs=0 must be an integer of at least 1"):
        check_count(0, "num_envs=")


def test_a_batch_is_bounded_by_the_bytes_it_takes() -> None:
    from splitpoker.runtime.limits import MAX_BATCH_BYTES, check_batch, most_within_bytes

    assert most_within_bytes(2**20) == MAX_BATCH_BYTES // 2**20
    assert check_batch(10, "num_envs=", 2**20) == 10
    with pytest.raises(ValueError, match=r"num_envs=100000 is more than the most allowed, 4,096: .* GiB"):
        check_batch(100_000, "num_envs=", 2**20)


# --------------------------------------------------------------------------- worker processes

@pytest.mark.parametrize("workers", [100_000, 0, -3, 2.5])
def test_the_paired_estimator_bounds_its_workers(no_pools: None, workers: Any) -> None:
    from splitpoker.eval.exploit import best_response_gain, paired_gains

    with pytest.raises(ValueError, match=f"--workers {workers} "):
        best_response_gain("biji", "random", samples=2, hands=2, players=2, workers=workers, estimator="paired")
    with pytest.raises(ValueError, match=f"--workers {workers} "):
        paired_gains("biji", "random", samples=2, hands=2, players=2, workers=workers)


@pytest.mark.parametrize("workers", ["100000", "0", "-3"])
def test_exploit_paired_workers_on_the_command_line(no_pools: None, capsys: pytest.CaptureFixture[str],
                                                    workers: str) -> None:
    status = main(["exploit", "biji", "--agent", "random", "--samples", "2", "--hands", "2", "--players", "2",
                   "--paired", "--workers", workers])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert err.startswith(f"splitpoker exploit: error: --workers {workers} ")


@pytest.mark.parametrize("workers", ["100000", "0", "-3"])
def test_convergence_checks_its_workers_before_reading_checkpoints(no_pools: None, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   workers: str) -> None:
    from splitpoker.eval.convergence import measure, parse_run

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)  # a run folder without a checkpoint: never read
    with pytest.raises(ValueError, match=f"--workers {workers} "):
        measure([parse_run(str(run))], samples=2, hands=2, points=1, workers=int(workers), estimator="paired")
    status = main(["convergence", str(run), "--out", str(tmp_path / "gain.png"), "--paired", "--workers", workers])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith(f"splitpoker convergence: error: --workers {workers} ")
    assert not (tmp_path / "gain.png").exists() and not (run / "eval").exists()


def test_subprocess_envs_are_bounded_like_workers(no_pools: None, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("stable_baselines3")
    from splitpoker.runtime.limits import MAX_WORKERS
    from splitpoker.train.config import load_config_dict

    base = {"game": "biji", "num_players": 4, "total_timesteps": 64, "progress": False,
            "output_dir": str(tmp_path / "runs"), "ppo": {"n_steps": 1, "batch_size": 1}}
    assert load_config_dict({**base, "vec_env": "subproc", "n_envs": MAX_WORKERS}).n_envs == MAX_WORKERS
    assert load_config_dict({**base, "vec_env": "batched", "n_envs": 65_536}).n_envs == 65_536
    with pytest.raises(ValueError, match=f"n_envs: 65536 is more than the most allowed under vec_env: subproc "
                                         rf"\(one process per env\), {MAX_WORKERS}"):
        load_config_dict({**base, "vec_env": "subproc", "n_envs": 65_536})
    import yaml

    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(base))
    status = main(["train", str(path), "--set", "vec_env=subproc", "--set", "n_envs=65536"])
    err = capsys.readouterr().err
    assert status == 2 and "n_envs: 65536 is more than the most allowed under vec_env: subproc" in err
    assert not (tmp_path / "runs").exists()  # refused before the run folder is made


# --------------------------------------------------------------------------- tables in memory

def test_vector_envs_are_bounded_by_the_bytes_of_their_masks() -> None:
    for make in (TableBatchEnv, ArrangeVectorEnv):
        with pytest.raises(ValueError, match=r"num_envs=65536 is more than the most allowed, [\d,]+: 65,536 "
                                             r"thirteen tables of 4 seats would take [\d.]+ GiB"):
            make("thirteen", num_envs=65_536, num_players=4)
    from splitpoker.runtime.limits import MAX_BATCH_BYTES

    per_seat = THIRTEEN.n_actions  # each seat's mask alone: a bound below the one applied
    most = MAX_BATCH_BYTES // (4 * per_seat)
    with pytest.raises(ValueError, match="num_envs="):
        TableBatchEnv("thirteen", num_envs=most, num_players=4)
    assert TableBatchEnv("thirteen", num_envs=most // 2, num_players=4).num_envs == most // 2
    assert TableBatchEnv("biji", num_envs=65_536, num_players=4).num_envs == 65_536  # small masks: the count cap


def test_masks_are_computed_in_chunks_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    from splitpoker.envs import vector

    slots = deal(BIJI, 4, 3, batch=5).slots.reshape(-1, BIJI.hand_size)
    whole = {kind: vector.seat_masks(BIJI, slots, kind) for kind in ("valid", "undominated")}
    monkeypatch.setattr(vector, "MASK_CHUNK", 3)
    for kind, masks in whole.items():
        assert np.array_equal(vector.seat_masks(BIJI, slots, kind), masks)
    env = TableBatchEnv("biji", num_envs=5, num_players=4)
    assert np.array_equal(env.reset(seed=3)[1].reshape(-1, BIJI.n_actions), whole["valid"])


@pytest.mark.parametrize("batch", [10**12, 10**8])
def test_deals_are_bounded(batch: int) -> None:
    with pytest.raises(ValueError, match=f"batch={batch} is more than the most allowed"):
        deal(THIRTEEN, 4, 0, batch=batch)
    with pytest.raises(ValueError, match=f"batch={batch} is more than the most allowed"):
        deal_around(THIRTEEN, list(range(2, 15)), 0, 4, batch, 0)


# --------------------------------------------------------------------------- card ids

def _hands(game: Any = THIRTEEN, batch: int = 2) -> np.ndarray:
    return deal(game, 4, 0, batch=batch).slots.copy()


@pytest.mark.parametrize("edit, message", [
    (lambda s: s.__setitem__((0, 0, 0), 60), r"slots\[0, 0, 0\] is 60, not a card of the thirteen deck \(card ids "
                                            r"2\.\.53\)"),
    (lambda s: s.__setitem__((1, 2, 0), -5), r"slots\[1, 2, 0\] is -5, not a card"),
    (lambda s: s.__setitem__((0, 0, 0), 1), r"is 1, not a card of the thirteen deck"),  # a joker
    (lambda s: s.__setitem__((1, 3), s[1, 1]), "slots: card .. is dealt to seats 1 and 3 at table 1"),
    (lambda s: s.__setitem__((0, 1), s[0, 1, ::-1]), r"slots\[0, 1\] \(.*\) are not in slot order"),
])
def test_tables_refuse_cards_that_are_not_a_deal(edit: Any, message: str) -> None:
    slots = _hands()
    edit(slots)
    with pytest.raises(ValueError, match=message):
        Tables(THIRTEEN, slots)


def test_tables_refuse_card_ids_that_are_not_integers() -> None:
    with pytest.raises(ValueError, match="slots of type float64 are not card ids"):
        Tables(THIRTEEN, _hands().astype(float))
    assert Tables(THIRTEEN, _hands().astype(np.int16)).slots.dtype == np.intp
    assert Tables(THIRTEEN, np.zeros((0, 4, 13))).batch == 0


def test_batched_rules_functions_refuse_bad_card_ids() -> None:
    tables = deal(BIJI, 4, 1, batch=3)
    greedy = load_agent("greedy", BIJI, 4)
    cards = tables.arranged(tables.decide([(b, s, greedy) for b in range(3) for s in range(4)]))
    payoffs, _ = BIJI.score_batch(cards)  # valid: scored as before
    assert np.array_equal(payoffs, tables.score(tables._decided).payoffs)
    twice = cards.copy()
    twice[2, 3, :3] = twice[2, 0, :3]
    with pytest.raises(ValueError, match=r"cards\[2\] holds .. twice"):
        BIJI.score_batch(twice)
    for game in (THIRTEEN, BIJI):
        table = deal(game, 4, 2).slots[:1]
        negative = table.copy()
        negative[0, 1, 4] = -1
        with pytest.raises(ValueError, match=r"cards\[0, 1, 4\] is -1, not a card of the deck"):
            game.score_batch(negative)
        with pytest.raises(ValueError, match=r"slots\[0, 0\] is 99, not a card"):
            game.valid_masks(np.array([[99, *table[0, 0, 1:]]]))
        with pytest.raises(ValueError, match=r"slots\[1\] holds .. twice"):
            game.candidate_masks(np.stack([table[0, 0], np.sort(np.r_[table[0, 1][:-1], table[0, 1][0]])]))
    with pytest.raises(ValueError, match=r"hand holds 99, which is not a card id"):
        THIRTEEN.slots(np.array([99, *range(3, 15)]))


# --------------------------------------------------------------------------- table and seat indexes

def test_tables_and_seats_are_checked() -> None:
    tables = deal(BIJI, 4, 0, batch=2)
    for call in (lambda: tables.view(5, 0), lambda: tables.view(0, 7), lambda: tables.view(-1, 0),
                 lambda: tables.views(9), lambda: tables.views(0, [9]), lambda: tables.views_at([(0, 0), (2, 1)]),
                 lambda: tables.mask(9, 0), lambda: tables.observation(0, 9), lambda: tables.prepare([(0, -1)]),
                 lambda: tables.valid_choices(np.array([3]), np.array([0]), np.array([0]))):
        with pytest.raises(ValueError, match=r"\(table, seat\) \(-?\d, -?\d\) is not a seat of these tables "
                                             r"\(tables 0\.\.1, seats 0\.\.3\)"):
            call()
    with pytest.raises(ValueError, match=r"are not \(table, seat\) pairs of integers"):
        tables.views_at([(0.5, 1)])
    with pytest.raises(ValueError, match="is not an agent"):
        tables.decide([(0, 0, None)])
    assert tables.view(np.int64(1), 3).hand == tables.views(1)[3].hand


def test_seeds_are_checked() -> None:
    env = TableBatchEnv("biji", num_envs=2, num_players=4)
    for seed in (-1, 1.5, True):
        with pytest.raises(ValueError, match=f"seed {seed!r} is not"):
            env.reset(seed=seed)
    first = env.reset(seed=7)[2]["slots"]
    assert np.array_equal(TableBatchEnv("biji", num_envs=2, num_players=4).reset(seed=np.int64(7))[2]["slots"], first)
    from splitpoker.runtime.seeding import derived_seed

    assert derived_seed(np.int64(3), 1) == derived_seed(3, 1)
    for keys in ((-1,), (3, 1.5), (True,)):
        with pytest.raises(ValueError, match=r"seed keys \(.*\) must be non-negative integers"):
            derived_seed(*keys)


def test_the_solver_checks_its_hand_and_the_opponents_cards() -> None:
    from splitpoker.agents.solver import SolverAgent, split_evs

    solver = SolverAgent(BIJI, 3, samples=2, seed=0)
    for bad in (None, 5):
        with pytest.raises(ValueError, match=f"hand {bad} is not a hand"):
            solver.solve(bad, seed=1)  # type: ignore[arg-type]
    hand = list(range(2, 11))
    others = deal_around(BIJI, hand, 0, 3, 2, 0)
    greedy = load_agent("greedy", BIJI, 3)
    arranged = others.arranged(others.decide([(b, s, greedy) for b in range(2) for s in (1, 2)]))[:, 1:]
    valid, evs = split_evs(BIJI, hand, arranged)
    with pytest.raises(ValueError, match="opponent arrangements of type float64 are not card ids"):
        split_evs(BIJI, hand, arranged + 0.25)
    assert len(valid) == len(evs)


# --------------------------------------------------------------------------- an agent's splits

class FloatAgent(Agent):
    """Returns each view's first valid split plus ``extra`` (a float)."""

    def __init__(self, extra: float, name: str = "floaty") -> None:
        self.extra, self.name = extra, name

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        return np.array([float(np.flatnonzero(v.mask)[0]) + self.extra for v in views])


class ActOnly:
    """An outside agent with ``act`` alone, returning its first valid split plus ``extra``."""

    name = "act-only"
    extra = 0.9

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Any) -> Any:
        return float(np.flatnonzero(action_mask)[0]) + self.extra


def act_only(game: Any, num_players: int, seed: Any) -> ActOnly:
    return ActOnly()


def whole_act_only(game: Any, num_players: int, seed: Any) -> ActOnly:
    agent = ActOnly()
    agent.extra = 0.0
    return agent


def test_a_split_that_is_not_a_whole_number_is_refused() -> None:
    tables = deal(BIJI, 4, 0)
    seated = [(0, s, FloatAgent(0.9)) for s in range(4)]
    with pytest.raises(ValueError, match=r"agent 'floaty' returned \d+\.9, not a split index"):
        tables.decide(seated)
    views = tables.views(0)
    with pytest.raises(ValueError, match=r"agent 'floaty' returned \d+\.9, not a split index"):
        check_choices(FloatAgent(0.9), views, FloatAgent(0.9).act_batch(views))
    view = views[0]
    with pytest.raises(ValueError, match=r"returned \d+\.9, not a split index"):
        FloatAgent(0.9).act(view.observation, view.action_mask, view.info())
    for bad in (np.nan, np.inf):
        with pytest.raises(ValueError, match="not a split index"):
            tables.decide([(0, s, FloatAgent(bad)) for s in range(4)])
    whole = Tables(BIJI, tables.slots).decide([(0, s, FloatAgent(0.0)) for s in range(4)])
    assert whole.dtype == np.int64 and np.array_equal(whole[0], [np.flatnonzero(v.mask)[0] for v in views])


def test_an_outside_agent_with_act_alone_is_checked_too() -> None:
    agent = load_agent("tests.test_bounds:act_only", BIJI, 4)
    tables = deal(BIJI, 4, 0)
    with pytest.raises(ValueError, match=r"agent 'act-only' returned \d+\.9, not a split index"):
        tables.decide([(0, s, agent) for s in range(4)])
    view = tables.views(0)[0]
    with pytest.raises(ValueError, match=r"agent 'act-only' returned \d+\.9, not a split index"):
        agent.act(view.observation, view.action_mask, view.info())
    whole = load_agent("tests.test_bounds:whole_act_only", BIJI, 4)
    assert whole.act(view.observation, view.action_mask, view.info()) == int(np.flatnonzero(view.mask)[0])


def test_vector_env_opponents_are_checked() -> None:
    env = ArrangeVectorEnv("biji", num_envs=3, num_players=4, opponents=FloatAgent(0.5))
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match=r"agent 'floaty' returned \d+\.5, not a split index"):
        env.step(np.array([int(np.flatnonzero(m)[0]) for m in obs["action_mask"]]))
    fine = ArrangeVectorEnv("biji", num_envs=3, num_players=4, opponents=FloatAgent(0.0))
    obs, _ = fine.reset(seed=0)
    _, rewards, *_ = fine.step(np.array([int(np.flatnonzero(m)[0]) for m in obs["action_mask"]]))
    assert rewards.shape == (3,)


def test_a_mixture_reads_its_members_splits_as_split_indices() -> None:
    """A member's 40.9 is refused, naming the member, not truncated to 40 before the table
    checks it; a float that is a whole number is its split."""
    from splitpoker.agents.mixture import MixtureAgent

    views = deal(BIJI, 4, 0).views(0)
    with pytest.raises(ValueError, match=r"mixture member 'floaty' returned \d+\.9, not a split index"):
        MixtureAgent([FloatAgent(0.9)], ["floaty"], seed=0).act_batch(views)
    tables = deal(BIJI, 4, 0)
    with pytest.raises(ValueError, match=r"mixture member 'floaty' returned \d+\.5, not a split index"):
        tables.decide([(0, s, MixtureAgent([FloatAgent(0.0), FloatAgent(0.5)], ["whole", "floaty"], seed=s))
                       for s in range(4)])
    whole = MixtureAgent([FloatAgent(0.0)], ["floaty"], seed=0).act_batch(views)
    assert whole.dtype == np.int64 and whole.tolist() == [int(np.flatnonzero(v.mask)[0]) for v in views]


def test_training_opponents_splits_are_checked() -> None:
    pytest.importorskip("stable_baselines3")
    from splitpoker.agents.mixture import MixtureAgent
    from splitpoker.train.config import SelfPlayConfig
    from splitpoker.train.selfplay import NamedAgent, OpponentPool, SelfPlayEnv, SelfPlayVecEnv

    env = SelfPlayEnv("biji", 4, opponents=[MixtureAgent([FloatAgent(0.9)], ["floaty"], seed=0)] * 3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"mixture member 'floaty' returned \d+\.9, not a split index"):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    pool = OpponentPool(BIJI, 4, {}, SelfPlayConfig(baselines=["greedy"]), seed=0)
    pool.baselines = [NamedAgent("mixture:floaty", MixtureAgent([FloatAgent(0.9)], ["floaty"], seed=0))]
    vec = SelfPlayVecEnv(BIJI, 4, pool, n_envs=3)
    vec.reset()
    vec.step_async(np.array([int(np.flatnonzero(m)[0]) for m in vec.action_masks()]))
    with pytest.raises(ValueError, match=r"mixture member 'floaty' returned \d+\.9, not a split index"):
        vec.step_wait()


# --------------------------------------------------------------------------- training memory
def test_a_training_rollout_is_bounded_by_the_bytes_it_takes(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Thirteen's masks take 9 KB a hand in the rollout buffer (kept as bits) and 72 KB a seat
    in the env: 65,536 envs of 64 steps, within the count cap, would take some 97 GiB. The bound
    is found when the config is read, naming n_envs and ppo.n_steps."""
    pytest.importorskip("pydantic")
    import yaml

    from splitpoker.runtime.limits import MAX_BATCH_BYTES
    from splitpoker.train.config import load_config_dict
    from splitpoker.train.ppo_config import rollout_bytes

    base = {"game": "thirteen", "num_players": 4, "total_timesteps": 64, "progress": False,
            "output_dir": str(tmp_path / "runs"), "ppo": {"n_steps": 64, "batch_size": 64}}
    with pytest.raises(ValueError, match=r"n_envs: 65536 with ppo.n_steps: 64 \(4,194,304 thirteen hands a rollout\) "
                                         r"would take about [\d.]+ GiB, more than the most allowed, 4.0 GiB; lower "
                                         r"n_envs or ppo.n_steps"):
        load_config_dict({**base, "n_envs": 65_536})
    with pytest.raises(ValueError, match=r"n_envs: 64 with ppo.n_steps: 8192 \(524,288 thirteen hands"):
        load_config_dict({**base, "n_envs": 64, "ppo": {"n_steps": 8192, "batch_size": 64}})
    fits = load_config_dict({**base, "n_envs": 256})
    assert 0 < rollout_bytes(fits) <= MAX_BATCH_BYTES
    path = tmp_path / "thirteen.yaml"
    path.write_text(yaml.safe_dump({**base, "n_envs": 8}))
    status = main(["train", str(path), "--set", "n_envs=65536"])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert status == 2 and len(lines) == 1 and "n_envs: 65536 with ppo.n_steps: 64" in lines[0], lines
    assert not (tmp_path / "runs").exists()  # refused before the run folder is made


# --------------------------------------------------------------------------- no hands
@pytest.mark.parametrize("game", [BIJI, THIRTEEN], ids=["biji", "thirteen"])
def test_the_masks_of_no_hands_are_empty(game: Any) -> None:
    none = np.zeros((0, game.hand_size), dtype=np.intp)
    for masks in (game.valid_masks(none), game.candidate_masks(none), game.valid_masks([])):
        assert masks.shape == (0, game.n_actions) and masks.dtype == bool


# --------------------------------------------------------------------------- payments in units
@pytest.mark.parametrize(("game", "switch"), [("biji", "xi_sweep"), ("thirteen", "special_pays")])
def test_a_payment_switch_is_bounded(game: str, switch: str) -> None:
    """An integer switch with no list of allowed values is a payment in units: one beyond
    :data:`MAX_SWITCH_UNITS` would overflow the 64-bit sums of payoffs, so it is refused."""
    from splitpoker.envs.games import make_game
    from splitpoker.envs.switches import MAX_SWITCH_UNITS

    assert getattr(make_game(game, **{switch: MAX_SWITCH_UNITS}).rules, switch) == MAX_SWITCH_UNITS
    with pytest.raises(ValueError, match=rf"^{game} switch {switch}=99999999999999999999 is not allowed; use at most "
                                         r"1,000,000$"):
        make_game(game, **{switch: 99_999_999_999_999_999_999})
