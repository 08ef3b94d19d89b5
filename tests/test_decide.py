"""The one decide step of the table core: each agent decides all its seats in one batch, its
choices are checked once, and scoring does not check them again."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from splitpoker.agents import load_agent
from splitpoker.agents.base import Agent, SeatView
from splitpoker.envs.games import make_game
from splitpoker.envs.table import deal


class Counting(Agent):
    """Wraps an agent, counting its ``act_batch`` calls and the views of each."""

    def __init__(self, agent: Agent, batch_size: int | None = None) -> None:
        self.agent, self.name, self.batch_size, self.calls = agent, f"counting({agent.name})", batch_size, []

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        self.calls.append(len(views))
        return self.agent.act_batch(views)


class Fixed(Agent):
    """Plays one split index whatever the hand."""

    def __init__(self, split: int) -> None:
        self.name, self.split = f"fixed({split})", split

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        return np.full(len(views), self.split, dtype=np.int64)


def test_each_agent_decides_its_seats_in_batches_and_the_table_scores_them() -> None:
    game = make_game("biji")
    tables = deal(game, 4, np.random.default_rng(3), batch=10)
    greedy = Counting(load_agent("greedy", game, num_players=4, seed=0), batch_size=8)
    rand = Counting(load_agent("random", game, num_players=4, seed=1))
    seated = [(b, s, greedy if s % 2 else rand) for b in range(10) for s in range(4)]
    times = np.full((10, 4), -1.0)
    actions = tables.decide(seated, times=times)
    assert greedy.calls == [8, 8, 4] and rand.calls == [20]
    assert (times >= 0).all()
    expected = load_agent("greedy", game, num_players=4, seed=0).act_batch(tables.views_at(
        [(b, s) for b in range(10) for s in (1, 3)]))
    assert actions[:, [1, 3]].reshape(-1).tolist() == expected.tolist()
    assert np.allclose(tables.score(actions).payoffs.sum(axis=1), 0)


def test_a_bad_choice_is_refused_naming_the_agent_and_the_hand() -> None:
    game = make_game("thirteen")
    tables = deal(game, 2, np.random.default_rng(0))
    masks = [v.mask for v in tables.views(0)]
    invalid = int(np.flatnonzero(~masks[0])[0])
    with pytest.raises(ValueError, match=rf"agent 'fixed\({invalid}\)' chose {invalid}, not a valid split of seat 0"):
        tables.decide([(0, 0, Fixed(invalid))])
    with pytest.raises(ValueError, match="returned 2 splits for 1 seats"):
        tables.decide([(0, 1, _TooMany())])


class _TooMany(Agent):
    name = "too-many"

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        return np.zeros(len(views) + 1, dtype=np.int64)


def test_under_undominated_masks_a_choice_must_be_a_candidate() -> None:
    game = make_game("biji")
    tables = deal(game, 4, np.random.default_rng(5), mask="undominated")
    view = tables.view(0, 0)
    valid, candidates = tables.game.valid_mask(view.slots), view.mask
    dominated = np.flatnonzero(valid & ~candidates)
    assert dominated.size
    with pytest.raises(ValueError, match="not a candidate of seat 0"):
        tables.decide([(0, 0, Fixed(int(dominated[0])))])


def test_decided_choices_are_not_checked_again_when_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    game = make_game("biji")
    tables = deal(game, 4, np.random.default_rng(7), batch=3)
    greedy = load_agent("greedy", game, num_players=4, seed=0)
    actions = tables.decide([(b, s, greedy) for b in range(3) for s in range(4)])
    checked = []
    real = game.valid_arrangements
    monkeypatch.setattr(game, "valid_arrangements", lambda cards: checked.append(len(cards)) or real(cards))
    tables.score(actions)
    assert checked == []
    changed = actions.copy()
    changed[1, 2] = int(np.flatnonzero(~tables.view(1, 2).mask)[0])  # not what was decided: checked, refused
    with pytest.raises(ValueError, match="seat 2 \\(table 1\\) is not a valid split"):
        tables.score(changed)
    assert checked == [1]


@pytest.mark.parametrize("name", ["thirteen", "biji"])
def test_baselines_read_the_candidate_lists_without_making_masks(name: str) -> None:
    """Under ``mask="undominated"``, random and greedy decide (and the table checks their
    choices) from the table core's candidate lists: no seat's mask is made, and the choices
    equal those made over the masks (views made from an environment's data)."""
    game = make_game(name)
    tables = deal(game, 4, np.random.default_rng(11), batch=6, mask="undominated")
    pairs = [(b, s) for b in range(6) for s in range(4)]
    agents = {spec: load_agent(spec, game, num_players=4, seed=2) for spec in ("random", "greedy")}
    actions = tables.decide([(b, s, agents["random" if s % 2 else "greedy"]) for b, s in pairs])
    assert tables._candidates == {}  # no mask made
    for b, s in pairs:
        view = tables.view(b, s)
        allowed = view.allowed
        assert not allowed.flags.writeable  # the table core's own list, handed out as it is
        assert allowed.tolist() == np.flatnonzero(view.mask).tolist()
        assert not view.leaves_out(int(actions[b, s])) and view.leaves_out(int(np.flatnonzero(~view.mask)[0]))
    fresh = {spec: load_agent(spec, game, num_players=4, seed=2) for spec in ("random", "greedy")}
    for spec, seats in (("greedy", (0, 2)), ("random", (1, 3))):
        views = [tables.view(b, s) for b, s in pairs if s in seats]
        env_views = [SeatView.from_env(v.observation, v.action_mask, v.info()) for v in views]
        assert fresh[spec].act_batch(env_views).tolist() == [int(actions[v.table, v.seat]) for v in views]
