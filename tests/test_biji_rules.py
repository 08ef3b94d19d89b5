"""Biji rules engine (envs/biji/RULES.md): worked examples, jokers, straights, the slow
reference implementation against the fast engine, 喜 bonuses, invariants, bad input."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitpoker.envs.biji import rules as B
from splitpoker.envs.biji.rules import BijiRules, GroupType
from splitpoker.envs.cards import BLACK_JOKER, RED_JOKER, card_id, format_cards, parse_cards
from splitpoker.envs.games import make_game
from splitpoker.envs.splits import BIJI
from tests.reference import biji_ref as ref

RULE_SETS: list[tuple[str, dict[str, Any]]] = [
    ("classic", {}),
    ("no-jokers", {}),
    ("classic", {"pair_tiebreak": "pair_suit"}),
    ("classic", {"flush_compare": "all_ranks"}),
    ("classic", {"suit_order": "spades>hearts>clubs>diamonds"}),
    ("no-jokers", {"pair_tiebreak": "pair_suit", "flush_compare": "all_ranks"}),
    ("classic", {"xi_sweep": 0, "xi_three_trips": 5, "xi_all_black": 2}),
]
RULE_IDS = [p + "".join(f"-{k}={v}" for k, v in o.items()) for p, o in RULE_SETS]
#: how much of a random sweep to run: the default run, and ten times more under ``-m slow``
ROUNDS = [pytest.param(1, id="quick"), pytest.param(10, id="sweep", marks=pytest.mark.slow)]


def cards(text: str) -> list[int]:
    return parse_cards(text)


def engine_rules(preset: str = "classic", **overrides: Any) -> BijiRules:
    return BijiRules.preset(preset, **overrides)


def to_ref(ids: Any) -> list[ref.Card]:
    return ref.parse(format_cards(ids))


def compare(a: str, b: str, rules: BijiRules | None = None) -> int:
    return B.compare_groups(cards(a), cards(b), rules or engine_rules())


def kind(text: str, rules: BijiRules | None = None) -> GroupType:
    return B.group_type(cards(text), rules or engine_rules())


def arrange(text: str) -> list[list[int]]:
    return [cards(part) for part in text.split("|")]


def score(*hands: str, rules: BijiRules | None = None) -> B.BijiScore:
    return B.score_table([arrange(h) for h in hands], rules or engine_rules())


# ----------------------------------------------------------------------------- the seed's examples (2.5)

SEED_A = "9s 9c 2s | 3s 4c 5s | Ks Js 7s"     # all black: 全黑
SEED_B = "8h 8d 3c | Th 6h 4h | Qd 9d 5d"
SEED_C = "2h 5c Jc | 6c 7d 8c | Ac Ad Ah"


@pytest.mark.parametrize("preset", ["classic", "no-jokers"])
def test_seed_three_player_example(preset: str) -> None:
    """Pots won by A, B and C in turn: A +3 −2 −1 = 0 before bonuses; A's 全黑 (one 喜 = 2)
    makes B and C pay A 2 more each."""
    result = score(SEED_A, SEED_B, SEED_C, rules=engine_rules(preset))
    assert result.places.tolist() == [[1, 3, 2], [2, 1, 3], [3, 2, 1]]
    assert result.pot_payoffs.tolist() == [[3, -2, -1], [-1, 3, -2], [-2, -1, 3]]
    assert result.xi == [1, 0, 0] and result.bonuses[0] == {"all_black": 1}
    assert result.payoffs.tolist() == [4, -2, -2]
    want = ref.score([tuple(ref.parse(p) for p in h.split("|")) for h in (SEED_A, SEED_B, SEED_C)],
                     ref.rules(preset))
    assert want["payoffs"] == [4, -2, -2]


def test_seed_pot_payment_example() -> None:
    """Three players A > B > C in a pot: B pays 1, C pays 2, A gets +3."""
    places, payoffs = B.pot_payments(np.array([[30], [20], [10]]))
    assert places[:, 0].tolist() == [1, 2, 3] and payoffs[:, 0].tolist() == [3, -1, -2]
    places, payoffs = B.pot_payments(np.array([[5], [1], [4], [3], [2]]))
    assert places[:, 0].tolist() == [1, 5, 2, 3, 4] and payoffs[:, 0].tolist() == [10, -4, -1, -2, -3]


def test_shared_places_split_payments() -> None:
    """envs/biji/RULES.md section 6.3 for variants that allow equal groups: the tied share the better place."""
    places, payoffs = B.pot_payments(np.array([[9], [9], [1]]))
    assert places[:, 0].tolist() == [1, 1, 3] and payoffs[:, 0].tolist() == [1, 1, -2]
    places, payoffs = B.pot_payments(np.array([[9], [5], [5], [1]]))
    assert places[:, 0].tolist() == [1, 2, 2, 4] and payoffs[:, 0].tolist() == [5, -1, -1, -3]


# ----------------------------------------------------------------------------- types, jokers, straights

def test_types_in_order() -> None:
    ladder = ["As Kd 9c", "2c 2d 3h", "2s 3d 4h", "2h 4h 6h", "2d 3d 4d", "2c 2h 2s"]
    assert [kind(g) for g in ladder] == list(GroupType)
    for weaker, stronger in itertools.pairwise(ladder):
        assert compare(weaker, stronger) == -1
    assert compare("Ac Ad Kc", "2d 3h 4s") == -1    # the best pair under the lowest straight
    assert compare("Qh Kh Ah", "2c 2d 2s") == -1    # trips over a straight flush


def test_black_and_red_joker_make_the_lowest_pair() -> None:
    assert kind("BJ RJ Ac") is GroupType.PAIR
    assert compare("BJ RJ Ac", "2s 2d 3c") == -1
    assert compare("BJ RJ Ac", "As Kd 9c") == 1


def test_joker_beside_a_pair_is_the_kicker() -> None:
    assert kind("7h 7s BJ") is GroupType.PAIR and kind("RJ 7d 7c") is GroupType.PAIR
    assert compare("RJ 7d 7c", "7h 7s BJ") == 1     # RJ kicker over BJ kicker
    assert compare("7h 7s BJ", "7c 7d 2c") == -1    # a joker kicker is below a 2


@pytest.mark.parametrize("group, expected", [
    ("BJ 5s 9s", GroupType.FLUSH), ("BJ 5c 9c", GroupType.FLUSH), ("RJ 5h 9h", GroupType.FLUSH),
    ("RJ 5d 9d", GroupType.FLUSH), ("BJ 5h 9h", GroupType.HIGH_CARD), ("BJ 5d 9d", GroupType.HIGH_CARD),
    ("RJ 5s 9s", GroupType.HIGH_CARD), ("RJ 5c 9c", GroupType.HIGH_CARD), ("BJ 5s 9c", GroupType.HIGH_CARD),
])
def test_joker_flushes_only_in_its_colour(group: str, expected: GroupType) -> None:
    assert kind(group) is expected
    assert ref.group_type(ref.parse(group), ref.rules()) == expected.name.lower()


@pytest.mark.parametrize("group, expected", [
    ("BJ 2c 3d", GroupType.HIGH_CARD), ("RJ 2h 3d", GroupType.HIGH_CARD), ("BJ Qc Kd", GroupType.HIGH_CARD),
    ("BJ 2s 3s", GroupType.FLUSH), ("RJ 3h 4h", GroupType.FLUSH), ("RJ Kd Ad", GroupType.FLUSH),
    ("BJ 7h 7s", GroupType.PAIR), ("RJ 2c 2d", GroupType.PAIR),
])
def test_joker_never_in_a_straight_or_trips(group: str, expected: GroupType) -> None:
    assert kind(group) is expected


def test_jokers_as_single_cards() -> None:
    assert compare("RJ 5c 9d", "BJ 5h 9s") == 1     # RJ above BJ
    assert compare("BJ 5c 9d", "2c 5h 9s") == -1    # both below a 2
    assert compare("RJ 5c 9d", "2c 5h 9s") == -1
    assert compare("RJ 2c 9d", "BJ 3c 9h") == -1    # ranks from the top down: the 3 decides


def test_joker_is_never_the_top_card_of_a_flush() -> None:
    assert compare("RJ 2h 3h", "BJ 2s 4s") == -1    # tops 3♥ and 4♠
    assert compare("BJ 5s 9s", "9c 7c 2c") == 1     # tops 9♠ over 9♣ (hearts>spades>diamonds>clubs)
    assert compare("RJ 5h 9h", "BJ 5s 9s") == 1     # tops 9♥ over 9♠


def test_straights_ace_low_and_high() -> None:
    assert kind("Ah 2d 3c") is GroupType.STRAIGHT and kind("Qs Kh Ad") is GroupType.STRAIGHT
    assert kind("Kc Ad 2h") is GroupType.HIGH_CARD                 # no wrap-around
    assert compare("Ah 2d 3c", "2c 3d 4h") == -1                   # A-2-3 is the lowest
    assert compare("Qs Kh Ad", "Js Qh Kd") == 1                    # Q-K-A is the highest
    assert compare("Ah 2d 3c", "Qs Kh Ad") == -1
    assert compare("Ah 2d 3c", "As 2c 3h") == -1                   # in A-2-3 the top card is the 3
    assert compare("Ah 2h 3h", "2s 3s 4s") == -1                   # and among straight flushes
    assert compare("Ah 2h 3h", "Ks Qs 9s") == 1


def test_pair_tiebreak_switch() -> None:
    assert compare("5h 5d 9c", "5s 5c 9h") == -1                   # kicker_suit: 9♥ wins
    assert compare("5h 5d 9c", "5s 5c 9h", engine_rules(pair_tiebreak="pair_suit")) == 1   # 5♥ wins
    assert compare("5h 5d 9c", "5s 5c Th") == -1                   # the kicker's rank before any suit


def test_flush_compare_switch() -> None:
    assert compare("Kh 9h 5h", "Ks Qs 4s") == 1                    # top_card: K = K, ♥ > ♠
    assert compare("Kh 9h 5h", "Ks Qs 4s", engine_rules(flush_compare="all_ranks")) == -1
    assert compare("Kh 9h 5h", "Ks 9s 5s", engine_rules(flush_compare="all_ranks")) == 1


def test_suit_order_switch() -> None:
    assert compare("Kh 9h 5h", "Ks Qs 4s", engine_rules(suit_order="spades>hearts>clubs>diamonds")) == -1
    assert compare("As Kd Jc", "Ah Kc Jd") == -1
    assert compare("As Kd Jc", "Ah Kc Jd", engine_rules(suit_order="s>h>d>c")) == 1


# ----------------------------------------------------------------------------- every group against the reference

ALL_GROUPS = np.array(list(itertools.combinations(range(54), 3)), dtype=np.int64)


@pytest.mark.parametrize("preset, overrides", RULE_SETS[:6], ids=RULE_IDS[:6])
def test_group_order_equals_the_reference(preset: str, overrides: dict[str, Any]) -> None:
    """All 24,804 (or 22,100) groups sorted by engine strength: each consecutive distinct
    strength is stronger for the reference too, equal strengths equal, and the types agree."""
    rules, r = engine_rules(preset, **overrides), ref.rules(preset, **overrides)
    groups = ALL_GROUPS if rules.has_jokers else ALL_GROUPS[ALL_GROUPS[:, 0] >= 2]
    strengths = B.group_strengths(groups, rules)
    order = np.argsort(strengths, kind="stable")
    keys = [ref.group_key(to_ref(groups[i]), r) for i in order]
    values = strengths[order]
    for k in range(len(order) - 1):
        if values[k] == values[k + 1]:
            assert keys[k] == keys[k + 1], (format_cards(groups[order[k]]), format_cards(groups[order[k + 1]]))
        else:
            assert keys[k] < keys[k + 1], (format_cards(groups[order[k]]), format_cards(groups[order[k + 1]]))
    types = B.strength_type(strengths)
    for i in range(0, len(groups), 97):
        assert GroupType(int(types[i])).name.lower() == ref.group_type(to_ref(groups[i]), r)


@pytest.mark.parametrize("preset, overrides", RULE_SETS[:6], ids=RULE_IDS[:6])
def test_disjoint_groups_never_tie(preset: str, overrides: dict[str, Any], rng: np.random.Generator) -> None:
    """envs/biji/RULES.md section 4.5: with one deck and suit tie-breaks two different groups never compare equal."""
    rules = engine_rules(preset, **overrides)
    deck = make_game("biji", preset, **overrides).deck()
    for _ in range(3_000):
        a, b = np.sort(rng.choice(deck, 6, replace=False).reshape(2, 3), axis=1)
        assert B.compare_groups(a, b, rules) != 0, (format_cards(a), format_cards(b))


def test_distinct_strengths_within_a_tie_class() -> None:
    """Groups that compare equal share their deciding card: equal strength never occurs between
    disjoint groups, checked over every group at once."""
    rules = engine_rules()
    strengths = B.group_strengths(ALL_GROUPS, rules)
    _, inverse = np.unique(strengths, return_inverse=True)
    members: dict[int, list[int]] = {}
    for i, cls in enumerate(inverse.tolist()):
        members.setdefault(cls, []).append(i)
    for group_ids in members.values():
        if len(group_ids) > 1:
            sets = [set(ALL_GROUPS[i].tolist()) for i in group_ids[:30]]
            assert all(a & b for a, b in itertools.combinations(sets, 2))


# ----------------------------------------------------------------------------- hands and tables against the reference

def narrow_deck(rng: np.random.Generator, jokers: bool) -> np.ndarray:
    """A cut-down deck that makes bonuses and close pots common."""
    kind = rng.integers(4)
    if kind == 0:
        ranks, suits = rng.choice(13, 5, replace=False).tolist(), list(range(4))   # fours of a kind
    elif kind == 1:
        ranks, suits = list(range(13)), rng.choice([[0, 3], [1, 2]]).tolist()      # one colour
    elif kind == 2:
        low = int(rng.integers(0, 5))
        ranks, suits = list(range(low, low + 9)), list(range(4))                   # straights
    else:
        ranks, suits = list(range(13)), list(range(4))
    deck = [card_id(r, s) for r in ranks for s in suits]
    if jokers:
        deck += [BLACK_JOKER, RED_JOKER]
    return np.array(deck)


def random_table(rng: np.random.Generator, game: Any, n: int) -> list[list[list[int]]]:
    pool = narrow_deck(rng, game.jokers)
    if len(pool) < 9 * n:
        pool = game.deck()
    drawn = rng.choice(pool, 9 * n, replace=False)
    table = []
    for seat in range(n):
        slots = game.slots(drawn[9 * seat: 9 * seat + 9])
        index = rng.choice(np.flatnonzero(game.valid_mask(slots)))
        table.append(game.arrangement(slots, int(index)))
    return table


@pytest.mark.parametrize("rounds", ROUNDS)
@pytest.mark.parametrize("preset, overrides", RULE_SETS, ids=RULE_IDS)
def test_masks_against_reference(preset: str, overrides: dict[str, Any], rounds: int,
                                 rng: np.random.Generator) -> None:
    rules, r = engine_rules(preset, **overrides), ref.rules(preset, **overrides)
    game = make_game("biji", preset, **overrides)
    for _ in range(12 * rounds):
        pool = narrow_deck(rng, game.jokers)
        slots = game.slots(rng.choice(pool if len(pool) >= 9 else game.deck(), 9, replace=False))
        mask = B.valid_mask(slots, rules)
        hand = to_ref(slots)
        want = [ref.is_valid(*([hand[s] for s in row] for row in BIJI.decode(i)), r) for i in range(BIJI.n_actions)]
        assert mask.tolist() == want, format_cards(slots)


@pytest.mark.parametrize("rounds", ROUNDS)
@pytest.mark.parametrize("preset, overrides", RULE_SETS, ids=RULE_IDS)
def test_scores_against_reference(preset: str, overrides: dict[str, Any], rounds: int,
                                  rng: np.random.Generator) -> None:
    rules, r = engine_rules(preset, **overrides), ref.rules(preset, **overrides)
    game = make_game("biji", preset, **overrides)
    bonuses = 0
    for _ in range(120 * rounds):
        table = random_table(rng, game, int(rng.integers(2, 6)))
        got = B.score_table(table, rules)
        want = ref.score([tuple(to_ref(g) for g in hand) for hand in table], r)
        shown = [" | ".join(format_cards(g) for g in hand) for hand in table]
        assert got.payoffs.tolist() == want["payoffs"], shown
        assert got.xi == want["xi"], shown
        assert abs(got.payoffs.sum()) < 1e-9
        bonuses += sum(got.xi)
    assert bonuses > 0


# ----------------------------------------------------------------------------- arrangements

@given(st.permutations(list(range(54))), st.sampled_from(RULE_SETS[:6]))
@settings(max_examples=40)
def test_exactly_one_valid_order_per_partition(deck: list[int], case: tuple[str, dict[str, Any]]) -> None:
    """Group the 1,680 splits by unordered partition (280 partitions of 6 orders each): every
    partition has exactly one valid order (envs/biji/RULES.md section 5)."""
    rules = engine_rules(case[0], **case[1])
    hand = [c for c in deck if rules.has_jokers or c >= 2][:9]
    mask = B.valid_mask(hand, rules)
    bits = (1 << BIJI.slot_table.astype(np.int64))
    rows = np.sort(np.stack([bits[:, 0:3].sum(1), bits[:, 3:6].sum(1), bits[:, 6:9].sum(1)], axis=1), axis=1)
    partition = (rows[:, 0] << 18) | (rows[:, 1] << 9) | rows[:, 2]
    keys, inverse, sizes = np.unique(partition, return_inverse=True, return_counts=True)
    assert len(keys) == 280 and (sizes == 6).all()
    assert (np.bincount(inverse, weights=mask.astype(float)) == 1).all()
    assert int(mask.sum()) == 280


@given(st.permutations(list(range(54))), st.sampled_from(RULE_SETS),
       st.lists(st.integers(0, 1679), min_size=1, max_size=30))
@settings(max_examples=40)
def test_mask_equals_validity(deck: list[int], case: tuple[str, dict[str, Any]], indices: list[int]) -> None:
    game = make_game("biji", case[0], **case[1])
    slots = game.slots([c for c in deck if game.jokers or c >= 2][:9])
    mask = game.valid_mask(slots)
    first, second, third = game.split_strengths(slots)
    for index in indices:
        rows = game.arrangement(slots, index)
        assert bool(mask[index]) == B.is_valid(rows, game.rules)
        assert [first[index], second[index], third[index]] == [B.group_strength(g, game.rules) for g in rows]
        assert game.index_of(slots, rows) == index


@given(st.permutations(list(range(54))), st.sampled_from(RULE_SETS), st.integers(2, 5), st.data())
@settings(max_examples=50)
def test_payoffs_are_zero_sum(deck: list[int], case: tuple[str, dict[str, Any]], n: int, data: st.DataObject) -> None:
    game = make_game("biji", case[0], **case[1])
    cards_in_play = [c for c in deck if game.jokers or c >= 2]
    table = []
    for seat in range(n):
        slots = game.slots(cards_in_play[9 * seat: 9 * seat + 9])
        valid = np.flatnonzero(game.valid_mask(slots))
        table.append(game.arrangement(slots, int(valid[data.draw(st.integers(0, len(valid) - 1))])))
    result = B.score_table(table, game.rules)
    assert abs(float(result.payoffs.sum())) < 1e-9
    assert abs(float(result.pot_payoffs.sum())) < 1e-9
    assert (result.places >= 1).all() and (result.places <= n).all()
    # the winner of each pot gets what the others pay
    for pot in range(3):
        winner = int(np.flatnonzero(result.places[:, pot] == 1)[0])
        assert result.pot_payoffs[winner, pot] == sum(result.places[:, pot] - 1)


# ----------------------------------------------------------------------------- 喜 bonuses

OPPONENT = "2d 3c 6h | 4h 4s 8d | Th Jh 9s"   # holds no bonus


@pytest.mark.parametrize("hand, bonuses", [
    ("BJ 2c 5s | 3s 4c 7c | 9c Qs Kc", {"all_black": 1}),
    ("RJ 2h 5d | 3d 7h 9d | Qd Kh Ad", {"all_red": 1}),
    ("2c 3d 4c | 5c 6d 7h | 8s 9c Ts", {"nine_straight": 1}),
    ("Ac 2c 3d | 4c 5d 6c | 7d 8s 9c", {"nine_straight": 1}),              # ace low
    ("7c 7d 2s | 7h 7s 5c | Kc Kd Ks", {"four_of_a_kind": 1}),
    ("7c 7d Qs | 7h 7s Kd | Qc Qd Qh", {"four_of_a_kind": 2}),             # each four counts
    ("As 2s 3s | 5d 6d 7d | Qh Kh Ah", {"straight_flush_head": 2}),
    ("5c 5d 5h | 7c 7d 7s | Qc Qd Qs", {"three_trips": 3}),
    ("2c 5d 7h | 3s 7s 9c | Js Qc Kd", {}),
])
def test_single_bonuses(hand: str, bonuses: dict[str, int]) -> None:
    """Each bonus of the 2.5 table on a hand built for it (a sweep, which depends on the
    opponent, is left out here)."""
    rows, opponent = arrange(hand), arrange(OPPONENT)
    assert not {c for g in rows for c in g} & {c for g in opponent for c in g}
    rules = engine_rules()
    assert B.is_valid(rows, rules)
    result = B.score_table([rows, opponent], rules)
    assert {k: v for k, v in result.bonuses[0].items() if k != "sweep"} == bonuses
    assert {k: v for k, v in result.bonuses[1].items() if k != "sweep"} == {}
    want = ref.score([tuple(to_ref(g) for g in rows), tuple(to_ref(g) for g in opponent)], ref.rules())
    assert result.payoffs.tolist() == want["payoffs"] and result.xi == want["xi"]


def test_bonuses_stack_and_are_paid_by_every_player() -> None:
    """Three trips (3) + sweep (1) = 4 喜; one 喜 = base × (players − 1) = 2 at a
    three-player table, received from each of the two others."""
    result = score("5c 5d 5h | 8c 8d 8h | Ac Ad Ah", "5s 9c Tc | 9d 9h Ts | Kc Kd Ks",
                   "2c 3c 4d | 6s 7s 8s | Qc Qd Qs")
    assert result.places.tolist() == [[1, 1, 1], [3, 3, 2], [2, 2, 3]]
    assert result.bonuses[0] == {"three_trips": 3, "sweep": 1}
    assert result.xi == [4, 0, 0]
    # pots: +9 / -5 / -4; bonuses: +16 / -8 / -8
    assert result.payoffs.tolist() == [25, -13, -12]


def test_bonus_values_are_switches() -> None:
    rules = engine_rules(xi_all_black=0, xi_sweep=3)
    black = "BJ 2c 5s | 3s 4c 7c | 9c Qs Kc"
    result = B.score_table([arrange(black), arrange(OPPONENT)], rules)
    assert "all_black" not in result.bonuses[0]
    want = ref.score([tuple(ref.parse(p) for p in h.split("|")) for h in (black, OPPONENT)],
                     ref.rules(xi_all_black=0, xi_sweep=3))
    assert result.payoffs.tolist() == want["payoffs"]


def test_score_document() -> None:
    document = score(SEED_A, SEED_B, SEED_C).to_dict()
    assert set(document) >= {"payoffs", "xi", "pots"}
    assert document["payoffs"] == [4, -2, -2] and document["xi"] == [1, 0, 0]
    assert [p["places"] for p in document["pots"]] == [[1, 2, 3], [3, 1, 2], [2, 3, 1]]


# ----------------------------------------------------------------------------- bad input

def test_bad_groups() -> None:
    no_jokers = engine_rules("no-jokers")
    with pytest.raises(ValueError, match="joker BJ"):
        B.group_strength(cards("BJ 2c 3c"), no_jokers)
    with pytest.raises(ValueError, match="joker RJ"):
        B.valid_mask(cards("RJ 2c 3c 4c 5c 6c 7c 8c 9c"), no_jokers)
    with pytest.raises(ValueError, match="4 cards"):
        B.group_strength(cards("2c 3c 4c 5c"), engine_rules())
    with pytest.raises(ValueError, match="has 8 cards.*expected 9"):
        B.valid_mask(cards("2c 3c 4c 5c 6c 7c 8c 9c"), engine_rules())


def test_bad_tables() -> None:
    rules = engine_rules()
    with pytest.raises(ValueError, match="2 to 5 players, got 6"):
        score(*[SEED_A] * 6)
    with pytest.raises(ValueError, match="2 to 5 players, got 1"):
        score(SEED_A)
    with pytest.raises(ValueError, match="seat 1.*3/3/2"):
        B.score_table([arrange(SEED_A), arrange("8h 8d 3c | Th 6h 4h | Qd 9d")], rules)
    with pytest.raises(ValueError, match="card 9s is in the hands of seats 0 and 1"):
        score(SEED_A, "8h 8d 3c | Th 6h 4h | Qd 9s 5d")
    with pytest.raises(ValueError, match="seat 1 pots .* not strictly increasing"):
        score(SEED_A, "Th 6h 4h | 8h 8d 3c | Qd 9d 5d")
    with pytest.raises(ValueError, match="seat 0.*joker BJ|joker BJ.*seat 0"):
        B.score_table([arrange("BJ 2c 5s | 3s 4c 7c | 9c Qs Kc"), arrange(OPPONENT)], engine_rules("no-jokers"))


@pytest.mark.parametrize("call, message", [
    (lambda: BijiRules.preset("standard"), "unknown biji preset 'standard'; presets: classic, no-jokers"),
    (lambda: BijiRules.preset("classic", joker="none"), "unknown biji switch 'joker'; switches: jokers, "),
    (lambda: BijiRules.preset("classic", jokers="wild"), "jokers='wild' is not allowed; allowed: rank0, none"),
    (lambda: BijiRules.preset("classic", pair_tiebreak="x"), "allowed: kicker_suit, pair_suit"),
    (lambda: BijiRules.preset("classic", flush_compare="x"), "allowed: top_card, all_ranks"),
    (lambda: BijiRules.preset("classic", xi_sweep=-1), "xi_sweep=-1 is not allowed; use 0 or more"),
    (lambda: BijiRules.preset("classic", xi_sweep="lots"), "xi_sweep='lots' is not allowed; use an integer"),
    (lambda: BijiRules.preset("classic", suit_order="red>black"), "suit_order 'red>black' must name each of"),
    (lambda: make_game("biji", "western"), "unknown biji preset 'western'"),
])
def test_bad_rules(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_rules_match_the_reference_switches() -> None:
    for preset in ("classic", "no-jokers"):
        assert engine_rules(preset).to_dict() == ref.rules(preset)
    assert BijiRules.from_mapping({"preset": "no-jokers", "xi_sweep": "2"}).xi_sweep == 2
