"""Record exact outputs of splitpoker for fixed seeds: the regression fixture of
``tests/test_regression.py``.

regenerate with: python tests/data/make_regression.py tests/data/regression.json

Everything is recorded through public APIs only (the PettingZoo environments, ``Game``
from ``splitpoker.envs.games``, ``SolverAgent`` and ``load_agent``, ``label_hands``, the
``splitpoker eval`` command and ``splitpoker.eval.duplicate.evaluate``), so any version of the
code can be run through this same script and its output compared with the fixture. The
script is deterministic: every random choice comes from a seeded NumPy generator of its
own, and nothing time-based (timings, dates, paths) is recorded.

Sections (each a dict of named cases; see the ``record_*`` functions):

* ``env``       AEC environments: every step's observation / mask hashes, the action
                chosen, and at the end of every hand the rewards and infos (in full
                for the first hand after each seeded reset, else hashed)
* ``parallel``  parallel environments: one hand per configuration
* ``solver``    ``SolverAgent.solve`` results (action, EV, hashes of the EVs, valid
                splits and opponent actions) over every valid split (``splits=valid``)
                and over the candidates (the default), and ``solver:samples=16`` via
                ``load_agent``
* ``imitation`` ``label_hands`` arrays (hashes) and labels
* ``eval_cli``  the numeric summary of ``splitpoker eval ... --json``
* ``eval_api``  ``evaluate`` results
* ``scores``    ``Game.score`` payoffs and ``to_dict()`` of random and scripted tables

Arrays are stored as ``"dtype[shape]:sha256"`` of their raw (C-order) bytes (the first 24
hex digits of the digest); small numbers exactly (JSON round-trips Python floats exactly).

Under the Thirteen ``banker`` preset the observation is expected to gain entries (the
banker's position relative to the seat). For that preset every observation is also stored
as the hash of its hand block (``obs_hand``: the first 19 × 13 values) and the rest in full
(``obs_tail``: ``[[index, value], ...]`` of the non-zero entries after the hand block), with
the layout of its blocks (``obs_blocks``: hand, seat, players and one block per rule
switch), so the test can check that the old entries are all still there, in order.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

#: the observation of these (game, preset) pairs may gain entries; stored in full
EXTENSIBLE_OBS = {("thirteen", "banker")}
#: values per slot of the hand block of the observation
SLOT_FEATURES = 19
#: the info keys recorded at the end of a hand
INFO_KEYS = ("hand", "seat", "num_players", "arrangement", "types", "payoff", "score")
#: hands per seeded reset in the AEC cases
HANDS_PER_SEED = 3
ENV_SEEDS = (0, 1, 2)
ACTION_SEED = 123
#: hex digits kept of every sha256 digest (96 bits)
DIGEST_CHARS = 24

# Scripted hands, written out literally (independent of deck order and generators).
# Thirteen: a dragon, six pairs, three flushes, and the rest of the deck.
THIRTEEN_HANDS = [
    "Ac Ks Qh Jd Tc 9s 8h 7d 6c 5s 4h 3d 2c",
    "7h 7c 6h 6d 5d 5c 4d 4c 3h 3c 2h 2d 8c",
    "As Qs Js Ts 8s 7s 6s 4s 3s 2s Th 9h 5h",
    "Ah Kh Jh Ad Kd Qd Td 9d 8d Kc Qc Jc 9c",
]
# Biji (54 cards): four aces, three trips, all black, a nine-straight, jokers.
BIJI_HANDS = [
    "As Ah Ad Ac Ks Kh Kd Qs Qh",
    "3s 3h 3d 4s 4h 4d 5s 5h 5d",
    "6s 7s 8s 9c Tc Jc 6c 7c 8c",
    "2d 3c 4c 5c 6d 7d 8d 9d Td",
    "BJ RJ Js Jh Jd Qd Qc Kc 2c",
]
BIJI_NO_JOKER_HANDS = BIJI_HANDS[:4] + ["2s 2h Js Jh Jd Qd Qc Kc 2c"]


# ----------------------------------------------------------------------------- helpers

def array_hash(array: Any) -> str:
    """``"dtype[shape]:sha256"`` of the raw C-order bytes of an array (the digest's first
    :data:`DIGEST_CHARS` hex digits)."""
    a = np.ascontiguousarray(np.asarray(array))
    shape = ",".join(str(s) for s in a.shape)
    return f"{a.dtype}[{shape}]:{hashlib.sha256(a.tobytes()).hexdigest()[:DIGEST_CHARS]}"


def json_hash(value: Any) -> str:
    """sha256 of the canonical JSON text of a JSON-able value (first :data:`DIGEST_CHARS` hex digits)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return "json:" + hashlib.sha256(text.encode()).hexdigest()[:DIGEST_CHARS]


def jsonable(value: Any) -> Any:
    """A JSON-able copy: NumPy scalars and arrays to Python values, tuples to lists."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    return value


def choose(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A valid split drawn with our own generator (never the action space's)."""
    valid = np.flatnonzero(mask)
    return int(valid[rng.integers(len(valid))])


def env_module(game: str) -> Any:
    from splitpoker.envs import biji_v0, thirteen_v0

    return {"thirteen": thirteen_v0, "biji": biji_v0}[game]


def make(game: str, preset: str = "classic") -> Any:
    from splitpoker.envs.games import make_game

    return make_game(game, preset)


def without_seat_roles(observations: np.ndarray, game: str) -> np.ndarray:
    """Observations without the trailing block of seat-role features (``Game.seat_features``:
    Thirteen's banker position), which versions before it do not have: the rest must match."""
    labels = getattr(make(game), "seat_feature_labels", None)
    extra = len(labels()) if labels is not None else 0
    return observations[..., :observations.shape[-1] - extra] if extra else observations


def max_players(game: str) -> int:
    return {"thirteen": 4, "biji": 5}[game]


def hand_size(game: str) -> int:
    return {"thirteen": 13, "biji": 9}[game]


def obs_blocks(game: str, preset: str) -> list[list[Any]]:
    """``[name, start, end]`` of the observation's blocks: hand, seat, players, then one
    block per rule switch (from ``observation_labels`` where it exists, else one block per
    value)."""
    g = make(game, preset)
    hand = hand_size(game) * SLOT_FEATURES
    players = max_players(game)
    blocks: list[list[Any]] = [["hand", 0, hand], ["seat", hand, hand + players],
                               ["players", hand + players, hand + 2 * players - 1]]
    start = hand + 2 * players - 1
    try:
        from splitpoker.envs.observation import observation_labels

        labels = observation_labels(g)[start:]
    except ImportError:
        labels = None
    if labels is None:
        size = len(env_module(game).raw_env(preset=preset).observation_space("player_0")["observation"].low)
        labels = [f"feature_{i}" for i in range(start, size)]
    for i, label in enumerate(labels):
        name = "suit_value" if label.startswith("suit_value_") else label.split("=")[0]
        if blocks[-1][0] == name and blocks[-1][2] == start + i:
            blocks[-1][2] += 1
        else:
            blocks.append([name, start + i, start + i + 1])
    return blocks


def sparse(obs: np.ndarray, start: int = 0) -> list[list[Any]]:
    """``[[index, value], ...]`` of the non-zero entries of ``obs[start:]`` (indices into ``obs``)."""
    return [[int(i), float(obs[i])] for i in np.flatnonzero(obs) if i >= start]


def info_record(info: dict[str, Any]) -> dict[str, Any]:
    return {k: jsonable(info[k]) for k in INFO_KEYS if k in info}


# ----------------------------------------------------------------------------- AEC environments

ENV_CASES = [
    ("thirteen", "classic", 4), ("thirteen", "shisanshui", 4), ("thirteen", "banker", 4),
    ("thirteen", "western", 4), ("thirteen", "western", 2),
    ("biji", "classic", 4), ("biji", "classic", 5), ("biji", "no-jokers", 3),
]


def _play_aec(env: Any, rng: np.random.Generator, extensible: bool, illegal: bool = False,
              full_infos: bool = True, game: str = "") -> dict[str, Any]:
    """One hand through the AEC API (after a reset): steps, rewards, infos (in full, or
    each seat's payoff and the hash of its info record)."""
    steps, rewards, infos = [], {}, {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            rewards[agent] = float(reward)
            record = info_record(info)
            infos[agent] = record if full_infos else {"payoff": record.get("payoff"), "info": json_hash(record)}
            env.step(None)
            continue
        observation, mask = without_seat_roles(obs["observation"], game), obs["action_mask"]
        if illegal:
            action = int(np.flatnonzero(mask == 0)[0])
            illegal = False
        else:
            action = choose(mask, rng)
        step = {"agent": agent, "obs": array_hash(observation), "obs_len": int(len(observation)),
                "mask": array_hash(mask), "n_valid": int(mask.sum()), "action": action}
        if extensible:
            hand_len = len(info["hand"]) * SLOT_FEATURES
            step["obs_hand"] = array_hash(observation[:hand_len])
            step["obs_tail"] = sparse(observation, hand_len)
        steps.append(step)
        env.step(action)
    return {"steps": steps, "rewards": rewards, "infos": infos}


def record_env() -> dict[str, Any]:
    """AEC ``env()`` of every configuration of :data:`ENV_CASES`: for each seed of
    :data:`ENV_SEEDS` a seeded reset and :data:`HANDS_PER_SEED` hands (later resets
    without a seed), actions drawn from ``default_rng(123)``; plus scripted deals."""
    out: dict[str, Any] = {}
    for game, preset, n in ENV_CASES:
        module = env_module(game)
        extensible = (game, preset) in EXTENSIBLE_OBS
        env = module.env(num_players=n, preset=preset)
        case: dict[str, Any] = {"hands": []}
        if extensible:
            case["obs_blocks"] = obs_blocks(game, preset)
        for seed in ENV_SEEDS:
            rng = np.random.default_rng(ACTION_SEED)
            for hand in range(HANDS_PER_SEED):
                if hand == 0:
                    env.reset(seed=seed)
                else:
                    env.reset()
                played = _play_aec(env, rng, extensible, full_infos=hand == 0, game=game)
                case["hands"].append({"seed": seed, "hand": hand, **played})
        out[f"{game}/{preset}/{n}p"] = case
    # scripted deals: options={"hands": [...]} (strings, and one seat as a list of card strings)
    scripted = [("thirteen", "classic", THIRTEEN_HANDS), ("thirteen", "shisanshui", THIRTEEN_HANDS),
                ("thirteen", "banker", THIRTEEN_HANDS), ("thirteen", "western", THIRTEEN_HANDS[:2]),
                ("biji", "classic", BIJI_HANDS), ("biji", "no-jokers", BIJI_NO_JOKER_HANDS[:3])]
    for game, preset, hands in scripted:
        extensible = (game, preset) in EXTENSIBLE_OBS
        env = env_module(game).env(num_players=len(hands), preset=preset)
        given: list[Any] = list(hands)
        given[-1] = given[-1].split()
        env.reset(seed=9, options={"hands": given})
        case = {"hands": [_play_aec(env, np.random.default_rng(ACTION_SEED), extensible, game=game)]}
        if extensible:
            case["obs_blocks"] = obs_blocks(game, preset)
        out[f"{game}/{preset}/{len(hands)}p/scripted"] = case
    # an illegal split through env(): the hand ends with -1 for that seat
    for game, preset, n in (("thirteen", "classic", 2), ("biji", "classic", 3)):
        env = env_module(game).env(num_players=n, preset=preset)
        env.reset(seed=4)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            played = _play_aec(env, np.random.default_rng(ACTION_SEED), False, illegal=True, game=game)
        out[f"{game}/{preset}/{n}p/illegal"] = {"hands": [played]}
    return out


def record_parallel() -> dict[str, Any]:
    """``parallel_env()``: one hand per configuration of :data:`ENV_CASES`, seed 7."""
    out: dict[str, Any] = {}
    for game, preset, n in ENV_CASES:
        env = env_module(game).parallel_env(num_players=n, preset=preset)
        observations, infos = env.reset(seed=7)
        rng = np.random.default_rng(ACTION_SEED)
        agents = list(env.agents)
        actions = {agent: choose(observations[agent]["action_mask"], rng) for agent in agents}
        record: dict[str, Any] = {
            "agents": agents, "actions": actions,
            "masks": {a: array_hash(observations[a]["action_mask"]) for a in agents},
            "hands": {a: list(infos[a]["hand"]) for a in agents},
        }
        if (game, preset) not in EXTENSIBLE_OBS:
            record["obs"] = {a: array_hash(without_seat_roles(observations[a]["observation"], game)) for a in agents}
        _, rewards, terminations, truncations, infos = env.step(actions)
        record["rewards"] = {a: float(r) for a, r in rewards.items()}
        record["terminations"] = jsonable(terminations)
        record["truncations"] = jsonable(truncations)
        record["payoffs"] = {a: jsonable(infos[a].get("payoff")) for a in agents}
        record["arrangements"] = {a: jsonable(infos[a].get("arrangement")) for a in agents}
        out[f"{game}/{preset}/{n}p"] = record
    return out


# ----------------------------------------------------------------------------- solver

SOLVER_CASES = [
    ("thirteen", "classic"), ("thirteen", "shisanshui"), ("thirteen", "banker"), ("thirteen", "western"),
    ("biji", "classic"), ("biji", "no-jokers"),
]


def _solve_record(result: Any) -> dict[str, Any]:
    return {"action": int(result.action), "ev": float(result.ev), "evs": array_hash(result.evs),
            "n_valid": int(len(result.valid)), "valid": array_hash(result.valid),
            "opponent_hands": array_hash(result.opponent_hands),
            "opponent_actions": array_hash(result.opponent_actions),
            "opponent_seats": [int(s) for s in result.opponent_seats]}


def record_solver() -> dict[str, Any]:
    """``SolverAgent.solve`` (32 samples, greedy opponents) for seats 0 and 1 of two hands
    dealt from ``default_rng(seed)``, seeds 0 and 1; other opponent models; ``load_agent``."""
    from splitpoker.agents import load_agent
    from splitpoker.agents.solver import SolverAgent

    out: dict[str, Any] = {}
    runs: list[tuple[str, str, int, str, dict[str, Any]]] = []
    for game, preset in SOLVER_CASES:
        for n in (2, 4, 5) if game == "biji" else (2, 4):
            runs.append((game, preset, n, "greedy", {}))
    runs += [("thirteen", "classic", 4, "random", {}), ("biji", "classic", 4, "random", {}),
             ("biji", "classic", 4, "solver", {"inner_samples": 4}),
             ("biji", "no-jokers", 3, "solver", {"inner_samples": 4})]
    # the cases above measure every valid split (splits=valid); these the default, the candidates
    runs += [(game, preset, 4, "greedy", {"splits": "candidates"}) for game, preset in SOLVER_CASES]
    for game, preset, n, opponent, extra in runs:
        splits = {} if "splits" in extra else {"splits": "valid"}
        g = make(game, preset)
        solves = []
        for seed in (0, 1):
            agent = SolverAgent(g, num_players=n, samples=32, opponent=opponent, seed=seed, **extra, **splits)
            rng = np.random.default_rng(seed)
            for hand_no in range(2):
                hand = rng.permutation(g.deck())[: g.hand_size]
                for seat in (0, 1):
                    result = agent.solve(hand, seed=1000 * seed + 10 * hand_no + seat, seat=seat)
                    solves.append({"seed": seed, "hand": hand_no, "seat": seat, **_solve_record(result)})
            # the agent's own generator (seed=None advances it)
            result = agent.solve(hand, seat=1)
            solves.append({"seed": seed, "hand": "own-rng", "seat": 1, **_solve_record(result)})
        suffix = "" if not extra else "," + ",".join(f"{k}={v}" for k, v in extra.items())
        out[f"{game}/{preset}/{n}p/opponent={opponent}{suffix}"] = solves
    # the agent spec through load_agent and act()
    from splitpoker.envs.cards import format_cards

    for game, preset, n in (("thirteen", "classic", 4), ("biji", "classic", 5), ("thirteen", "banker", 3)):
        g = make(game, preset)
        agent = load_agent("solver:samples=16,splits=valid", g, num_players=n, seed=3)
        rng = np.random.default_rng(21)
        acts = []
        for i in range(3):
            slots = g.slots(rng.permutation(g.deck())[: g.hand_size])
            seat = i % n
            mask = g.valid_mask(slots).astype(np.int8)
            info = {"hand": format_cards(slots).split(), "seat": seat, "num_players": n}
            acts.append({"hand": info["hand"], "seat": seat, "action": int(agent.act(None, mask, info))})
        out[f"{game}/{preset}/{n}p/load_agent:solver:samples=16"] = acts
    return out


# ----------------------------------------------------------------------------- imitation

def record_imitation() -> dict[str, Any]:
    """``label_hands``: 40 hands, one worker, no cache, teacher solver:samples=8, seed 5."""
    from splitpoker.train.imitation import label_hands

    out: dict[str, Any] = {}
    for game, n in (("biji", 4), ("thirteen", 4)):
        data, cached = label_hands(make(game), n, "solver:samples=8,opponent=greedy,splits=valid", count=40,
                                   seed=5, workers=1, cache_dir=None)
        out[f"{game}/{n}p"] = {"cached": bool(cached),
                               "observations": array_hash(without_seat_roles(data.observations, game)),
                               "slots": array_hash(data.slots), "seats": array_hash(data.seats),
                               "labels_hash": array_hash(data.labels),
                               "labels": [int(x) for x in data.labels]}
    return out


# ----------------------------------------------------------------------------- evaluation

EVAL_CLI_CASES = {
    "biji/greedy,random/30x4p/seed3": ["eval", "biji", "--agents", "greedy,random", "--hands", "30",
                                       "--players", "4", "--seed", "3"],
    "thirteen/greedy,random/10x4p/seed1": ["eval", "thirteen", "--agents", "greedy,random", "--hands", "10",
                                           "--players", "4", "--seed", "1"],
    "thirteen/solver16,greedy/4x4p/seed2/regret32": [
        "eval", "thirteen", "--agents", "solver:samples=16,greedy", "--hands", "4", "--players", "4",
        "--seed", "2", "--regret-samples", "32"],
    "thirteen-shisanshui/greedy,random/6x3p/seed5/no-regret": [
        "eval", "thirteen", "--preset", "shisanshui", "--agents", "greedy,random", "--hands", "6",
        "--players", "3", "--seed", "5", "--no-regret"],
    "biji-no-jokers/solver16,random,greedy/5x5p/seed8/regret-random": [
        "eval", "biji", "--preset", "no-jokers", "--agents", "solver:samples=16,random,greedy", "--hands", "5",
        "--players", "5", "--seed", "8", "--regret-samples", "16", "--regret-opponent", "random"],
}
#: time-based keys, the stamp of the version that ran (it changes with every commit) and the
#: hashes of the policy files played, never recorded
TIME_KEYS = ("elapsed_s", "ms_per_decision", "warmup_ms", "splitpoker", "weights")


def _drop_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_times(v) for k, v in value.items() if k not in TIME_KEYS}
    if isinstance(value, list):
        return [_drop_times(v) for v in value]
    return value


def record_eval_cli() -> dict[str, Any]:
    """``splitpoker eval ... --json`` (in this process, report written to a temporary folder):
    the summary without timings."""
    from splitpoker.train.cli import main

    out: dict[str, Any] = {}
    for name, argv in EVAL_CLI_CASES.items():
        with tempfile.TemporaryDirectory() as folder:
            stdout = io.StringIO()
            with contextlib.redirect_stdout(stdout):
                status = main([*argv, "--json", "--no-plots", "--out", str(Path(folder) / "report")])
        if status:
            raise RuntimeError(f"splitpoker {' '.join(argv)} exited with status {status}")
        out[name] = _drop_times(json.loads(stdout.getvalue()))
    return out


def record_eval_api() -> dict[str, Any]:
    """``splitpoker.eval.duplicate.evaluate`` of agent objects from ``load_agent``."""
    from splitpoker.agents import load_agent
    from splitpoker.eval.duplicate import evaluate

    out: dict[str, Any] = {}
    for game, preset, n, specs, hands, seed in (
            ("biji", "no-jokers", 3, ["greedy", "random", "solver:samples=8"], 5, 11),
            ("thirteen", "western", 2, ["greedy", "random"], 8, 4),
            ("thirteen", "banker", 4, ["random", "greedy"], 3, 6)):
        g = make(game, preset)
        agents = [load_agent(spec, g, num_players=n, seed=seed) for spec in specs]
        results = evaluate(g, agents, n, hands, seed, specs=specs)
        out[f"{game}/{preset}/{n}p/{','.join(specs)}/{hands}/seed{seed}"] = [
            _drop_times(jsonable(r.to_dict())) for r in results]
    return out


# ----------------------------------------------------------------------------- scores

def _score_record(arrangements: list[list[list[int]]], score: Any) -> dict[str, Any]:
    """The table (rows as text, seat by seat) and ``score.to_dict()``, whose payoffs must be
    ``score.payoffs``."""
    from splitpoker.envs.cards import format_cards

    table = score.to_dict()
    if [float(p) for p in score.payoffs] != table["payoffs"]:
        raise AssertionError(f"score.payoffs {score.payoffs} differ from to_dict()['payoffs'] {table['payoffs']}")
    return {"table": [format_cards(row) for rows in arrangements for row in rows], "to_dict": jsonable(table)}


def record_scores() -> dict[str, Any]:
    """``Game.score`` of 20 random tables per preset (2 to the most players; seat 0 greedy,
    the others a random split, valid or, for Thirteen, any, so some foul) and of the
    scripted special hands, arranged greedily."""
    from splitpoker.agents import load_agent
    from splitpoker.envs.cards import format_cards, parse_cards

    out: dict[str, Any] = {}
    cases = [("thirteen", p) for p in ("classic", "shisanshui", "banker", "western")]
    cases += [("biji", p) for p in ("classic", "no-jokers")]
    for game, preset in cases:
        g = make(game, preset)
        greedy = load_agent("greedy", g, num_players=2)
        rng = np.random.default_rng(17)
        top = max_players(game)

        def greedy_rows(slots: np.ndarray, g: Any = g, greedy: Any = greedy) -> list[list[int]]:
            info = {"hand": format_cards(slots).split(), "seat": 0, "num_players": 2}
            return g.arrangement(slots, int(greedy.act(None, None, info)))

        tables = []
        for t in range(20):
            n = 2 + t % (top - 1)
            cards = rng.permutation(g.deck())[: n * g.hand_size]
            arrangements = []
            for seat in range(n):
                slots = g.slots(cards[seat * g.hand_size:(seat + 1) * g.hand_size])
                if seat == 0:
                    arrangements.append(greedy_rows(slots))
                elif game == "thirteen" and seat % 2 == 0:
                    arrangements.append(g.arrangement(slots, int(rng.integers(g.n_actions))))
                else:
                    arrangements.append(g.arrangement(slots, choose(g.valid_mask(slots), rng)))
            score = g.score(arrangements)
            tables.append(_score_record(arrangements, score))
        hands = THIRTEEN_HANDS if game == "thirteen" else BIJI_NO_JOKER_HANDS if preset == "no-jokers" else BIJI_HANDS
        for n in range(2, len(hands) + 1):
            arrangements = [greedy_rows(g.slots(parse_cards(h))) for h in hands[:n]]
            score = g.score(arrangements)
            tables.append(_score_record(arrangements, score))
        out[f"{game}/{preset}"] = tables
    return out


# ----------------------------------------------------------------------------- comparison

def _same_number(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def differences(expected: Any, actual: Any, path: str = "", limit: int = 8) -> list[str]:
    """Where ``actual`` differs from ``expected`` (at most ``limit`` places), as
    ``"path: expected X, got Y"``. Exact: numbers by value (an int equals the same float;
    NaN equals NaN), booleans only booleans, strings, lists and dict keys exactly."""
    out: list[str] = []

    def short(value: Any) -> str:
        text = json.dumps(value, sort_keys=True) if not isinstance(value, float) else repr(value)
        return text if len(text) <= 160 else text[:157] + "..."

    def label(item: Any) -> str:
        """`` (seed 0, hand 1, seat 1)`` for a list item that names its seed, hand, seat or agent."""
        if not isinstance(item, dict):
            return ""
        named = [f"{key} {item[key]}" for key in ("seed", "hand", "seat", "agent") if key in item
                 and isinstance(item[key], (int, str)) and not isinstance(item[key], bool) and len(str(item[key])) < 20]
        return f" ({', '.join(named)})" if named else ""

    def walk(e: Any, a: Any, where: str) -> None:
        if len(out) >= limit:
            return
        if isinstance(e, dict) and isinstance(a, dict):
            for key in e:
                if key not in a:
                    out.append(f"{where}/{key}: missing (expected {short(e[key])})")
                else:
                    walk(e[key], a[key], f"{where}/{key}")
            for key in a:
                if key not in e:
                    out.append(f"{where}/{key}: unexpected key (got {short(a[key])})")
            return
        if isinstance(e, list) and isinstance(a, list):
            if len(e) != len(a):
                out.append(f"{where}: length {len(a)}, expected {len(e)}")
            for i, (x, y) in enumerate(zip(e, a)):
                walk(x, y, f"{where}[{i}]{label(x)}")
            return
        numeric = (int, float)
        if isinstance(e, bool) or isinstance(a, bool):
            same = type(e) is type(a) and e == a
        elif isinstance(e, numeric) and isinstance(a, numeric):
            same = _same_number(e, a)
        else:
            same = type(e) is type(a) and e == a
        if not same:
            out.append(f"{where or '/'}: expected {short(e)}, got {short(a)}")

    walk(expected, actual, path)
    return out


# ----------------------------------------------------------------------------- all

SECTIONS: dict[str, Callable[[], dict[str, Any]]] = {
    "env": record_env, "parallel": record_parallel, "solver": record_solver, "imitation": record_imitation,
    "eval_cli": record_eval_cli, "eval_api": record_eval_api, "scores": record_scores,
}


def record_all() -> dict[str, dict[str, Any]]:
    return {name: record() for name, record in SECTIONS.items()}


def dumps(data: dict[str, dict[str, Any]]) -> str:
    """JSON with one line per case (compact inside a case), sections in order."""
    lines = ["{"]
    for i, (section, cases) in enumerate(data.items()):
        lines.append(f"{json.dumps(section)}: {{")
        items = list(cases.items())
        for j, (name, case) in enumerate(items):
            comma = "," if j < len(items) - 1 else ""
            lines.append(f"{json.dumps(name)}: {json.dumps(case, sort_keys=True, separators=(',', ':'))}{comma}")
        lines.append("}," if i < len(data) - 1 else "}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/data/make_regression.py OUTPUT.json", file=sys.stderr)
        return 2
    import splitpoker.envs

    data = record_all()
    text = dumps(data)
    problems = differences(data, json.loads(text))
    if problems:
        raise RuntimeError("the JSON text does not read back exactly: " + "; ".join(problems))
    Path(argv[0]).write_text(text, encoding="utf-8")
    counts = ", ".join(f"{section} {len(cases)}" for section, cases in data.items())
    print(f"{argv[0]}: {len(text.encode()) / 1024:.0f} KiB; cases: {counts}; "
          f"splitpoker from {Path(splitpoker.envs.__file__).parents[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
