"""The exhaustive solver: exact expected payoffs (checked against ``Game.score`` on the same
sampled tables), batched kernels equal to their one-hand references, obvious answers,
determinism, input errors and the ``solve`` subcommand."""

from __future__ import annotations

import json

import numpy as np
import pytest

from splitpoker.agents import Agent, load_agent
from splitpoker.agents.baselines import greedy_actions, greedy_index
from splitpoker.agents.solver import (
    SolverAgent,
    deal_opponents,
    split_evs,
)
from splitpoker.envs.cards import card_id, format_cards, parse_cards
from splitpoker.envs.games import Game, game_names, make_game
from splitpoker.envs.thirteen import rules as thirteen
from splitpoker.envs.thirteen import specials as thirteen_specials
from splitpoker.train.cli import main

THIRTEEN_PRESETS = ("classic", "shisanshui", "banker", "western")
BIJI_PRESETS = ("classic", "no-jokers")
TABLES = ([("thirteen", p, n) for p in THIRTEEN_PRESETS for n in (2, 3, 4)]
          + [("biji", p, n) for p in BIJI_PRESETS for n in (2, 3, 4, 5)])


def random_hand(game: Game, rng: np.random.Generator) -> np.ndarray:
    return np.sort(rng.permutation(game.deck())[:game.hand_size]).astype(np.int64)


def engine_mean(game: Game, hand: np.ndarray, action: int, opp: np.ndarray, seat: int) -> float:
    """Mean payoff of ``seat`` over the sampled tables, scored by the rules engine."""
    cuts = np.cumsum(game.split_index.row_sizes)[:2]
    n = opp.shape[1] + 1
    others = [s for s in range(n) if s != seat]
    total = 0.0
    for sample in opp:
        table: list = [None] * n
        table[seat] = game.arrangement(hand, action)
        for j, s in enumerate(others):
            table[s] = [r.tolist() for r in np.split(sample[j], cuts)]
        total += game.score(table).payoffs[seat]
    return total / len(opp)


def result_mean(game: Game, result, action: int) -> float:
    return float(np.mean([game.score(result.table(game, action, s)).payoffs[result.seat]
                          for s in range(result.samples)]))


def arranged(game: Game, hands: np.ndarray, actions: np.ndarray) -> np.ndarray:
    return np.take_along_axis(hands, game.split_index.slot_table[actions].astype(np.intp), axis=-1)


# ----------------------------------------------------------------------------- kernels

@pytest.mark.parametrize("name,preset", [("thirteen", p) for p in THIRTEEN_PRESETS]
                         + [("biji", p) for p in BIJI_PRESETS])
def test_batched_greedy_equals_greedy_index(name: str, preset: str, rng: np.random.Generator) -> None:
    game = make_game(name, preset)
    hands = np.array([random_hand(game, rng) for _ in range(150)])
    # the game's strongest rows (Thirteen: the compiled kernel) equal the plain NumPy data flow
    fast, plain = game.strongest_rows(hands), Game.strongest_rows(game, hands)
    assert np.array_equal(fast[0], plain[0]) and np.array_equal(fast[1], plain[1])
    batched = greedy_actions(game, hands)
    for hand, action in zip(hands, batched):
        assert game.valid_mask(hand)[action]  # also where the plain greedy split fouls (suit-first flushes)
        assert action == greedy_index(game, hand)


def _special_hand(kind: str, rng: np.random.Generator) -> list[int]:
    """A 13-card hand that qualifies for ``kind``."""
    suits = rng.integers(4, size=13)
    if kind == "dragon":
        suits[0] = (suits[1] + 1) % 4
        return [card_id(r, int(s)) for r, s in zip(range(13), suits)]
    if kind == "clean_dragon":
        return [card_id(r, 3) for r in range(13)]
    if kind == "six_pairs":
        ranks = rng.choice(13, 7, replace=False)
        return [card_id(int(r), s) for r in ranks[:6] for s in (0, 1)] + [card_id(int(ranks[6]), 2)]
    if kind == "three_flushes":
        return ([card_id(r, 0) for r in (0, 2, 4, 6, 8)] + [card_id(r, 1) for r in (0, 3, 5, 9, 11)]
                + [card_id(r, 2) for r in (7, 10, 12)])
    if kind == "three_straights":
        return ([card_id(r, int(rng.integers(4))) for r in (12, 0, 1)]
                + [card_id(r, 1 + r % 3) for r in (2, 3, 4, 5, 6)] + [card_id(r, 0) for r in (3, 4, 5, 6, 7)])
    if kind == "four_trips":
        return [card_id(r, s) for r in (1, 4, 7, 10) for s in (0, 1, 2)] + [card_id(12, 3)]
    if kind == "one_colour":
        reds = rng.choice([card_id(r, s) for r in range(13) for s in (1, 2)], 13, replace=False)
        return [int(c) for c in reds]
    if kind == "all_small":
        return [int(c) for c in rng.choice([card_id(r, s) for r in range(7) for s in range(4)], 13, replace=False)]
    if kind == "all_big":
        return [int(c) for c in rng.choice([card_id(r, s) for r in range(6, 13) for s in range(4)], 13, replace=False)]
    if kind == "three_fours":
        return [card_id(r, s) for r in (2, 5, 9) for s in range(4)] + [card_id(0, 0)]
    if kind == "three_straight_flushes":
        return ([card_id(r, 2) for r in (4, 5, 6)] + [card_id(r, 0) for r in range(5)]
                + [card_id(r, 3) for r in range(8, 13)])
    if kind == "royals":
        return [int(c) for c in rng.choice([card_id(r, s) for r in range(9, 13) for s in range(4)], 13, replace=False)]
    raise AssertionError(kind)


SPECIAL_KINDS = ("dragon", "clean_dragon", "six_pairs", "three_flushes", "three_straights", "four_trips",
                 "one_colour", "all_small", "all_big", "three_fours", "three_straight_flushes", "royals")


@pytest.mark.parametrize("specials", ("classic", "shisanshui", "banker", "off"))
def test_batched_specials_equal_special_hand(specials: str, rng: np.random.Generator) -> None:
    rules = thirteen.ThirteenRules.preset("classic", specials=specials)
    game = make_game("thirteen", specials=specials)
    hands = [_special_hand(kind, rng) for kind in SPECIAL_KINDS for _ in range(3)]
    hands += [random_hand(game, rng).tolist() for _ in range(300)]
    hands += [sorted(rng.choice([card_id(r, s) for r in range(13) for s in (0, 3)], 13, replace=False).tolist())
              for _ in range(20)]  # near misses of three flushes / one colour
    expected = [thirteen_specials.special_hand(h, rules)[1] for h in hands]
    names, got = thirteen_specials.special_hands(np.sort(np.array(hands), axis=1), rules)
    assert got.tolist() == expected
    assert names == [thirteen_specials.special_hand(h, rules)[0] for h in hands]
    if specials == "shisanshui":
        names = {thirteen_specials.special_hand(_special_hand(kind, rng), rules)[0] for kind in SPECIAL_KINDS}
        assert names == set(SPECIAL_KINDS)


# ----------------------------------------------------------------------------- exactness

@pytest.mark.parametrize("name,preset,players", TABLES)
def test_evs_equal_the_engine_mean_on_the_same_samples(name: str, preset: str, players: int,
                                                       rng: np.random.Generator) -> None:
    game = make_game(name, preset)
    agent = SolverAgent(game, players, samples=5, seed=0, splits="valid")
    default = SolverAgent(game, players, samples=5, seed=0)
    for _ in range(2):
        hand = random_hand(game, rng)
        seat = int(rng.integers(players))
        seed = int(rng.integers(1000))
        result = agent.solve(hand, seed, seat=seat)
        assert np.array_equal(np.isfinite(result.evs), game.valid_mask(hand))
        assert np.array_equal(result.valid, np.flatnonzero(game.valid_mask(hand)))
        for action in [result.action, *rng.choice(result.valid, 5)]:
            assert result.evs[action] == pytest.approx(result_mean(game, result, int(action)), abs=1e-9)
        assert result.ev == np.nanmax(result.evs)
        assert result.action == int(np.flatnonzero(result.evs == result.ev)[0])
        # the default measures the candidates only, on the same tables, to the same best value
        over = default.solve(hand, seed, seat=seat)
        candidates = game.candidate_mask(over.hand)
        assert over.measured == "candidates" and np.array_equal(np.isfinite(over.evs), candidates)
        assert np.array_equal(over.evs[candidates], result.evs[candidates])
        assert over.ev == result.ev and result.evs[over.action] == result.ev


def _plant(kind: str, pool: list[int], rng: np.random.Generator) -> list[int] | None:
    """13 cards of ``pool`` forming a special hand of ``kind``, or None."""
    ranks = {r: [c for c in pool if c >= 2 and (c - 2) // 4 == r] for r in range(13)}
    if kind == "dragon":
        if any(not cards for cards in ranks.values()):
            return None
        return [int(rng.choice(ranks[r])) for r in range(13)]
    if kind == "six_pairs":
        pairs = [r for r in range(13) if len(ranks[r]) >= 2]
        if len(pairs) < 6:
            return None
        chosen = rng.choice(pairs, 6, replace=False)
        hand = [c for r in chosen for c in ranks[int(r)][:2]]
        return hand + [int(rng.choice([c for c in pool if c not in hand]))]
    if kind == "one_colour":
        reds = [c for c in pool if (c - 2) % 4 in (1, 2)]
        return [int(c) for c in rng.choice(reds, 13, replace=False)] if len(reds) >= 13 else None
    raise AssertionError(kind)


def _random_tables(game: Game, hand: np.ndarray, players: int, samples: int, rng: np.random.Generator,
                   plant: tuple[str, ...] = (), foul_rate: float = 0.5) -> np.ndarray:
    """Opponent arrangements: dealt from the unseen cards, some planted special hands, each
    played as a random split (fouling ones included for Thirteen)."""
    out = np.empty((samples, players - 1, game.hand_size), dtype=np.int64)
    for s in range(samples):
        pool = [int(c) for c in np.setdiff1d(game.deck(), hand)]
        rng.shuffle(pool)
        for j in range(players - 1):
            cards = _plant(str(rng.choice(plant)), pool, rng) if plant and rng.random() < 0.5 else None
            if cards is None:
                cards = pool[:game.hand_size]
            pool = [c for c in pool if c not in cards]
            slots = np.sort(np.array(cards, dtype=np.int64))
            mask = game.valid_mask(slots)
            if game.name == "thirteen" and rng.random() < foul_rate:
                action = int(rng.integers(game.n_actions))
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            out[s, j] = arranged(game, slots, np.array(action))
    return out


THIRTEEN_VARIANTS = [
    ("classic", {}), ("shisanshui", {}), ("banker", {}), ("western", {}),
    ("classic", {"scoop": "double", "home_run": True}),
    ("classic", {"scoop": "double", "suit_tiebreak": False}),
    ("western", {"suit_tiebreak": False, "scoring": "pairwise"}),
    ("banker", {"scoop": "double", "banker_seat": 2, "royalties": "classic"}),
    ("classic", {"scoring": "banker", "specials": "banker", "banker_seat": 1, "scoop": "double"}),
    ("shisanshui", {"scoring": "banker", "banker_seat": 3, "home_run": False}),
]


@pytest.mark.parametrize("preset,switches", THIRTEEN_VARIANTS)
@pytest.mark.parametrize("players", (2, 3, 4))
def test_thirteen_evs_with_fouls_and_specials(preset: str, switches: dict, players: int,
                                              rng: np.random.Generator) -> None:
    if switches.get("banker_seat", 0) >= players:
        switches = {**switches, "banker_seat": players - 1}
    game = make_game("thirteen", preset, **switches)
    for trial in range(3):
        if trial == 2:  # this seat holds a special hand
            hand = np.sort(np.array(_special_hand(str(rng.choice(["dragon", "six_pairs"])), rng), dtype=np.int64))
        else:
            hand = random_hand(game, rng)
        seat = int(rng.integers(players))
        opp = _random_tables(game, hand, players, 6, rng, plant=("dragon", "six_pairs", "one_colour"))
        valid, evs = split_evs(game, hand, opp, seat=seat)
        assert np.array_equal(valid, np.flatnonzero(game.valid_mask(hand)))
        for i in rng.choice(len(valid), 6, replace=False):
            assert evs[i] == pytest.approx(engine_mean(game, hand, int(valid[i]), opp, seat), abs=1e-9)


@pytest.mark.parametrize("preset", BIJI_PRESETS)
@pytest.mark.parametrize("players", (2, 3, 4, 5))
def test_biji_evs_against_random_arrangements(preset: str, players: int, rng: np.random.Generator) -> None:
    game = make_game("biji", preset, xi_sweep=2, xi_three_trips=5)
    for _ in range(2):
        hand = random_hand(game, rng)
        seat = int(rng.integers(players))
        opp = _random_tables(game, hand, players, 8, rng)
        valid, evs = split_evs(game, hand, opp, seat=seat)
        for i in rng.choice(len(valid), 8, replace=False):
            assert evs[i] == pytest.approx(engine_mean(game, hand, int(valid[i]), opp, seat), abs=1e-9)


def test_biji_sweeps_and_bonuses_are_counted(rng: np.random.Generator) -> None:
    """A hand that sweeps often, against opponents that sometimes hold bonuses."""
    game = make_game("biji")
    hand = np.sort(np.array(parse_cards("As Ah Ad Ks Kh Kd Qs Qh Qd"), dtype=np.int64))
    opp = _random_tables(game, hand, 4, 16, rng)
    valid, evs = split_evs(game, hand, opp, seat=2)
    for i in range(len(valid)):
        assert evs[i] == pytest.approx(engine_mean(game, hand, int(valid[i]), opp, 2), abs=1e-9)


def test_opponent_home_run_is_counted(rng: np.random.Generator) -> None:
    """Seat 1 scoops this seat and two fouled opponents in every sample: its home run
    doubles what this seat pays it."""
    game = make_game("thirteen", "shisanshui")
    hand = np.sort(np.array(parse_cards("2c 2d 3c 3d 4c 5d 6h 7h 8c 9d Th Jh Qh"), dtype=np.int64))
    monster = parse_rows_ids("Ac Ad Ah | Kc Kd Kh Qc Qd | 7s 8s 9s Ts Js")
    rest = np.setdiff1d(game.deck(), np.concatenate([hand, np.concatenate(monster)])).astype(np.int64)
    opp = np.empty((4, 3, 13), dtype=np.int64)
    for s in range(4):
        opp[s, 0] = np.concatenate(monster)
        cards = rng.permutation(rest)
        for j, part in ((1, cards[:13]), (2, cards[13:])):
            slots = np.sort(part)
            while True:  # a fouling split
                action = int(rng.integers(game.n_actions))
                if not game.valid_mask(slots)[action]:
                    break
            opp[s, j] = arranged(game, slots, np.array(action))
    valid, evs = split_evs(game, hand, opp, seat=0)
    home_runs = 0
    for i in rng.choice(len(valid), 5, replace=False):
        assert evs[i] == pytest.approx(engine_mean(game, hand, int(valid[i]), opp, 0), abs=1e-9)
        table = [game.arrangement(hand, int(valid[i]))] + [np.split(opp[0, j], [3, 8]) for j in range(3)]
        home_runs += sum(bool(p["home_run"]) for p in game.score(table).pairs if p["seats"] == [0, 1])
    assert home_runs == 5


def parse_rows_ids(text: str) -> list[np.ndarray]:
    return [np.sort(np.array(parse_cards(part), dtype=np.int64)) for part in text.split("|")]


# ----------------------------------------------------------------------------- answers

def test_never_plays_an_invalid_split(rng: np.random.Generator) -> None:
    for name, preset in (("thirteen", "classic"), ("thirteen", "banker"), ("biji", "classic")):
        game = make_game(name, preset)
        agent = SolverAgent(game, 4, samples=8, seed=1)
        for _ in range(6):
            hand = random_hand(game, rng)
            result = agent.solve(hand)
            mask = game.valid_mask(hand)
            assert mask[result.action]
            assert all(mask[i] for i, _ in result.ranking(10))


def test_dragon_is_paid_whatever_the_split() -> None:
    game = make_game("thirteen")
    hand = parse_cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    result = SolverAgent(game, 4, samples=32, seed=0).solve(hand, 0)
    values = result.evs[result.valid]
    assert np.all(values == values[0])
    assert result.action == result.valid[0]
    assert result.ev == pytest.approx(result_mean(game, result, result.action))
    assert result.ev > 30  # 13 from each of three opponents unless one holds a special too


def test_obvious_thirteen_arrangement() -> None:
    game = make_game("thirteen")
    hand = parse_cards("As Ks Qs Js Ts 9c 9d 9h 9s 3c 4d 6h 8c")
    result = SolverAgent(game, 4, samples=64, seed=0).solve(hand, 0)
    front, middle, back = (format_cards(r) for r in game.arrangement(result.hand, result.action))
    assert back == "Ts Js Qs Ks As"
    assert middle == "3c 9c 9d 9h 9s"
    assert front == "4d 6h 8c"


def test_three_trips_in_biji() -> None:
    game = make_game("biji")
    hand = parse_cards("As Ah Ad Ks Kh Kd Qs Qh Qd")
    for players in (2, 5):
        result = SolverAgent(game, players, samples=64, seed=0).solve(hand, 0)
        assert result.describe(game) == "Qd Qh Qs | Kd Kh Ks | Ad Ah As"
        assert result.ev > 3 * (players - 1) ** 2  # 全三 alone is worth 3 喜 from each opponent


@pytest.mark.parametrize("name", game_names())
def test_solver_beats_greedy_against_greedy(name: str) -> None:
    game = make_game(name)
    greedy = load_agent("greedy", game, num_players=4)
    solver = SolverAgent(game, 4, samples=128, seed=0)
    rng = np.random.default_rng(2024)
    solver_total = greedy_total = 0.0
    for deal in range(60):
        cards = rng.permutation(game.deck())
        hands = [np.sort(cards[i * game.hand_size:(i + 1) * game.hand_size]) for i in range(4)]
        greedy_rows = [game.arrangement(h, greedy_index(game, h)) for h in hands]
        greedy_total += game.score(greedy_rows).payoffs[0]
        mine = solver.solve(hands[0], deal).action
        solver_total += game.score([game.arrangement(hands[0], mine)] + greedy_rows[1:]).payoffs[0]
    assert greedy.name == "greedy"
    assert solver_total > greedy_total


def test_same_seed_same_answer(rng: np.random.Generator) -> None:
    game = make_game("thirteen", "shisanshui")
    hand = random_hand(game, rng)
    a = SolverAgent(game, 3, samples=16, seed=7)
    b = SolverAgent(game, 3, samples=16, seed=7)
    ra, rb = a.solve(hand), b.solve(hand)
    assert ra.action == rb.action and np.array_equal(ra.evs, rb.evs, equal_nan=True)
    assert np.array_equal(ra.opponent_hands, rb.opponent_hands)
    rc, rd = a.solve(hand, [1, 2]), b.solve(hand, [1, 2])
    assert rc.action == rd.action and np.array_equal(rc.evs, rd.evs, equal_nan=True)
    assert load_agent("solver:samples=16,seed=3", game, 3).solve(hand).action == \
        load_agent("solver:samples=16", game, 3, seed=3).solve(hand).action


def test_four_thirteen_players_share_out_the_unseen_cards(rng: np.random.Generator) -> None:
    game = make_game("thirteen")
    hand = random_hand(game, rng)
    hands = deal_opponents(game, hand, 4, 10, rng)
    unseen = np.setdiff1d(game.deck(), hand)
    for sample in hands:
        assert np.array_equal(np.sort(sample.reshape(-1)), unseen)
    assert not all(np.array_equal(hands[0], h) for h in hands[1:])


def test_agent_act_reads_hand_and_seat(rng: np.random.Generator) -> None:
    game = make_game("thirteen", "banker")
    agent = load_agent("solver:samples=8,seed=5", game, num_players=3)
    assert agent.name == "solver(samples=8,opponent=greedy)"
    hand = random_hand(game, rng)
    info = {"hand": format_cards(hand).split(), "seat": 2, "num_players": 3}
    mask = game.valid_mask(hand).astype(np.int8)
    action = agent.act(np.zeros(1, dtype=np.float32), mask, info)
    assert action == SolverAgent(game, 3, samples=8).solve(hand, np.random.default_rng(5), seat=2).action
    agent.seed(11)
    again = agent.act(np.zeros(1, dtype=np.float32), mask, info)
    agent.seed(11)
    assert agent.act(np.zeros(1, dtype=np.float32), mask, info) == again
    with pytest.raises(ValueError, match="built for 3 players"):
        agent.act(np.zeros(1), mask, {**info, "num_players": 4})


@pytest.mark.parametrize("name", game_names())
def test_other_opponent_models(name: str, rng: np.random.Generator) -> None:
    game = make_game(name)
    hand = random_hand(game, rng)
    for spec in ("solver:samples=3,opponent=random", "solver:samples=2,opponent=solver,inner_samples=2"):
        agent = load_agent(spec, game, num_players=3, seed=1)
        result = agent.solve(hand, 4, seat=1)
        again = load_agent(spec, game, num_players=3, seed=1).solve(hand, 4, seat=1)
        assert np.array_equal(result.opponent_actions, again.opponent_actions)
        for s, row in enumerate(result.opponent_actions):
            for j, action in enumerate(row):
                assert game.valid_mask(result.opponent_hands[s, j])[action]
        for action in [result.action, *rng.choice(result.valid, 3)]:
            assert result.evs[action] == pytest.approx(result_mean(game, result, int(action)), abs=1e-9)


# ----------------------------------------------------------------------------- errors

@pytest.mark.parametrize("spec,message", [
    ("solver:samples=0", "samples=0"),
    ("solver:samples=abc", "samples=abc is not an integer"),
    ("solver:opponent=solver,inner_samples=-2", "inner_samples=-2"),
    ("solver:inner_samples=4", "inner_samples=4 needs opponent=solver"),
    ("solver:samples=4,samples=8", "'samples' is given twice"),
    ("solver:,,samples=4", "cannot read option ''"),
    ("solver:depth=2", "unknown solver option 'depth'"),
    ("solver:seed=x", "seed=x is not an integer"),
    ("solver:opponent=nobody", "unknown kind"),
    ("solver:samples", "key=value"),
])
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_agent(spec, "thirteen", num_players=4)


def test_bad_input() -> None:
    game = make_game("thirteen")
    agent = SolverAgent(game, 4, samples=4)
    with pytest.raises(ValueError, match="expected 13"):
        agent.solve(parse_cards("As Ks Qs"))
    with pytest.raises(ValueError, match="twice"):
        agent.solve([2] * 13)
    with pytest.raises(ValueError, match="joker"):
        agent.solve([0] + list(range(2, 14)))
    with pytest.raises(ValueError, match="seat 4"):
        agent.solve(list(range(2, 15)), seat=4)
    with pytest.raises(ValueError, match="num_players=5"):
        SolverAgent(game, 5)
    with pytest.raises(ValueError, match="num_players=1"):
        SolverAgent(make_game("biji"), 1)
    with pytest.raises(ValueError, match="samples=0"):
        SolverAgent(game, 4, samples=0)
    with pytest.raises(ValueError, match="banker_seat 3"):
        SolverAgent(make_game("thirteen", "banker", banker_seat=3), 2)
    with pytest.raises(ValueError, match="seed"):
        agent.solve(list(range(2, 15)), "abc")
    with pytest.raises(ValueError, match="num_players=5 is not allowed for thirteen"):
        deal_opponents(game, np.arange(2, 15), 5, 3, np.random.default_rng(0))


def test_split_evs_rejects_overlapping_tables() -> None:
    game = make_game("biji")
    hand = np.arange(2, 11)
    opp = np.arange(2, 11).reshape(1, 1, 9)
    with pytest.raises(ValueError, match="dealt twice"):
        split_evs(game, hand, opp)
    with pytest.raises(ValueError, match="not strictly increasing"):
        split_evs(game, hand, np.arange(45, 54)[::-1].reshape(1, 1, 9))


# ----------------------------------------------------------------------------- CLI and speed

def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["solve", "biji", "As Ah Ad Ks Kh Kd Qs Qh Qd", "--players", "3", "--samples", "16",
                 "--top", "3", "--json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"action", "arrangement", "ev", "top", "elapsed_ms"} <= set(doc)
    assert doc["arrangement"] == ["Qd Qh Qs", "Kd Kh Ks", "Ad Ah As"]
    assert doc["measured"] == "candidates" and doc["measured_splits"] == 2 and doc["valid_splits"] == 280
    assert len(doc["top"]) == 2 and doc["top"][0]["arrangement"] == doc["arrangement"]
    code = main(["solve", "biji", "As Ah Ad Ks Kh Kd Qs Qh Qd", "--players", "3", "--samples", "16",
                 "--top", "3", "--json", "--splits", "valid"])
    assert code == 0
    every = json.loads(capsys.readouterr().out)
    assert every["measured"] == "valid" and every["measured_splits"] == every["valid_splits"] == 280
    assert len(every["top"]) == 3 and every["top"][0]["arrangement"] == doc["arrangement"]
    assert every["top"][0]["ev"] == doc["ev"] >= every["top"][1]["ev"] >= every["top"][2]["ev"]

    code = main(["solve", "thirteen", "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Kd Ac", "--samples", "8", "--players", "2",
                 "--preset", "western", "--seat", "1", "--json"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    game = make_game("thirteen", "western")
    strengths = [game.row_strengths(np.sort(parse_cards(r))[None])[0] for r in doc["arrangement"]]
    assert [len(r.split()) for r in doc["arrangement"]] == [3, 5, 5]
    assert thirteen.rank_only(strengths[0]) <= thirteen.rank_only(strengths[1]) <= thirteen.rank_only(strengths[2])
    assert len(doc["top"]) == 5


def test_cli_table_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "biji", "As Ah Ad Ks Kh Kd Qs Qh Qd", "--samples", "4"]) == 0
    out = capsys.readouterr().out
    assert "Qd Qh Qs" in out and "trips" in out
    assert main(["solve", "biji", "As Ah"]) == 2
    assert "expected 9" in capsys.readouterr().err
    assert main(["solve", "thirteen", "As Ks Qs Js Ts 9c 9d 9h 9s 3c 4d 6h 8c", "--top", "0"]) == 2
    assert "--top" in capsys.readouterr().err
    assert main(["solve", "biji", "As Ah Ad Ks Kh Kd Qs Qh Qd", "--players", "6"]) == 2
    assert "num_players=6" in capsys.readouterr().err


class _BatchGreedy(Agent):
    """An opponent model deciding batches from the observations alone (like the learned
    policies): greedy on the slots decoded from the observations."""

    name = "batch-greedy"
    batch_size = 64

    def __init__(self, game: Game) -> None:
        self.game, self.calls = game, 0

    def act_batch(self, views) -> np.ndarray:
        self.calls += 1
        observations = np.stack([v.observation for v in views])
        per_slot = observations[:, :self.game.hand_size * 19].reshape(len(observations), -1, 19)
        slots = 2 + 4 * per_slot[:, :, :13].argmax(axis=2) + per_slot[:, :, 13:17].argmax(axis=2)
        return np.array([greedy_index(self.game, s) for s in slots])


def test_batched_opponent_models(rng: np.random.Generator) -> None:
    game = make_game("thirteen")
    agent = SolverAgent(game, 4, samples=30, opponent="greedy")
    hand = random_hand(game, rng)
    fake = _BatchGreedy(game)
    agent._opponent_agent, agent.opponent = fake, "batch-greedy"
    result = agent.solve(hand, 3)
    reference = SolverAgent(game, 4, samples=30).solve(hand, 3)
    assert fake.calls == 2  # 90 hands in batches of 64
    assert np.array_equal(result.opponent_actions, reference.opponent_actions)
    assert np.array_equal(result.evs, reference.evs, equal_nan=True)
