"""
# Biji (比机 / 比鸡)

| Creation           | `biji_v0.env()` or `make("aec", "splitpoker/biji_v0")`               |
|--------------------|-----------------------------------------------------------------------|
| Import             | `from splitpoker.envs import biji_v0`                                |
| Actions            | Discrete                                                              |
| Parallel API       | Yes                                                                   |
| Manual Control     | No                                                                    |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']`            |
| Agents             | 2 to 5 (`num_players`, default 4)                                     |
| Action Shape       | Discrete(1680); Discrete(K) under `actions="offered"`                 |
| Action Values      | [0, 1679]; [0, K-1] under `actions="offered"`                         |
| Observation Shape  | (197,), with an action mask of shape (1680,); under                   |
|                    | `actions="offered"` (197 + 32K,), with a mask of shape (K,)           |
| Observation Values | [0, 1], the 喜 values (indices 190 - 196) as configured (integers ≥ 0); |
|                    | the offered features as `offered_bounds` gives                        |

Each seat is dealt 9 cards (54-card deck with two jokers, or 52 under `no-jokers`) and
splits them into three pots (锅) of 3 cards with pot 1 < pot 2 < pot 3 strictly. Each pot
is compared across the whole table; the losers pay the winner by place, and 喜 bonuses
are paid by every other seat (envs/biji/RULES.md sections 6 and 7).

One hand is one episode and one decision per seat, taken simultaneously as in
rock-paper-scissors: the seats act in order `player_0 … player_{n-1}` and no seat sees
another's choice. After the last seat has acted the table is scored once and every seat
terminates.

### Arguments

```python
from splitpoker.envs import biji_v0

biji_v0.env(num_players=4, preset="classic", render_mode=None, mask=None, illegal_action="penalty",
            illegal_reward=-1.0, observation="dict", infos="text", actions="index", offer=None,
            **switches)
```

Through PettingZoo's registry: `pettingzoo.make("aec", "splitpoker/biji_v0", **kwargs)` (or
`"parallel"`), once `splitpoker.envs.registration.register_envs()` has run (importing this
module runs it).

`num_players`: 2 to 5.

`preset`: `classic` (default, 54 cards) or `no-jokers` (envs/biji/RULES.md section 9).

`switches`: any rule switch overriding the preset: `jokers`, `suit_order`,
`pair_tiebreak`, `flush_compare`, and the 喜 values `xi_all_black`, `xi_all_red`,
`xi_nine_straight`, `xi_four_of_a_kind`, `xi_sweep`, `xi_straight_flush_head`,
`xi_three_trips`. An unknown keyword, switch or value is a `ValueError` naming it.

`render_mode`: `None`, `"ansi"` (``render()`` returns the table as text) or `"human"`
(prints it).

`mask`: `"valid"` (the default under `actions="index"`: the action mask marks every valid split)
or `"undominated"` (the default under `actions="offered"`, the only value it takes)
(it marks the *candidates*, the valid splits no other valid split dominates: envs/biji/RULES.md
section 12; what that means for research: `splitpoker.envs.arrange_env`). A learner then
chooses among about 4 (median 4, mean 6, at most about 100) splits a hand instead of 1,680.

`actions`: `"index"` (default: the action is a split index, below) or `"offered"`: each
seat is offered up to `offer` of its candidates, each with a row of 32 features, and the
action is a slot `0 … K-1` (docs/environments.md, "The offered action space";
`splitpoker.envs.offered_env`).

`offer`: K, the number of slots under `actions="offered"` (default `None`: the game's
`default_offer`, 64 for Biji); with `actions="index"` it is a `ValueError`.

`illegal_action` (`"raise"` or `"penalty"`) and `illegal_reward`: what a split outside the
mask does (`splitpoker.envs.arrange_env`).

`observation`: `"dict"` (default, below) or `"flat"`: the vector alone, a `Box` of finite
bounds, with the mask in `infos[agent]["action_mask"]` (`splitpoker.envs.arrange_env`).

`infos`: `"text"` (default, under Rewards) or `"arrays"`: the same keys from `reset` to the
end, each a number or a NumPy array of fixed shape and dtype (card ids as int64 arrays,
`"hand_ids"`, `"arrangement_ids"`, the rows' `"type_ids"`, `"payoff"`, `"rows_won"`, …), for
wrappers that turn every info value into a tensor such as TorchRL's `PettingZooWrapper`
(`splitpoker.envs.arrange_env` lists them).

`reset(seed=None, options=None)`: a seed makes the deals reproducible (a NumPy
generator of the environment's own; the global random state is never touched; the first
reset without a seed draws fresh entropy, later ones continue the stream).
`options={"hands": [...]}` deals the given hands, one per seat, each a string of 9 cards
(`"BJ As 10h ..."`) or a list of card strings.

### Observation Space

The observation is a dictionary with an `'observation'` element, the float32 vector
below (`splitpoker.envs.observation`), and an `'action_mask'` element (Legal Actions Mask).

| Index     | Description                                                               |
|-----------|---------------------------------------------------------------------------|
| 0 - 170   | the hand in canonical slot order, 19 values per slot (slot k from 19k):   |
|           | rank one-hot 2 … A (13), suit one-hot c d h s (4), joker one-hot BJ RJ (2) |
| 171 - 175 | seat one-hot (`player_0` … `player_4`)                                    |
| 176 - 179 | number of players one-hot (2, 3, 4, 5)                                    |
| 180 - 181 | `jokers` one-hot: rank0, none                                             |
| 182 - 185 | suit value of c, d, h, s under `suit_order` (weakest 0 … strongest 1)     |
| 186 - 187 | `pair_tiebreak` one-hot: kicker_suit, pair_suit                           |
| 188 - 189 | `flush_compare` one-hot: top_card, all_ranks                              |
| 190 - 196 | 喜 values: all_black, all_red, nine_straight, four_of_a_kind, sweep,      |
|           | straight_flush_head, three_trips                                          |

`observation_labels(game)` names every index.

Under `actions="offered"` the `'observation'` element is this vector followed by the K
feature rows of the offered splits, slot by slot, 32 float32 values each (0 in empty slots):
197 + 32K values (2,245 at the default K = 64). `offered_labels(game)` names the 32
columns and `split_observation(observation, game, K)` reads the two parts back
(`splitpoker.envs.offered`).

#### Legal Actions Mask

`action_mask` (int8, 1,680 values) is 1 exactly where pot 1 < pot 2 < pot 3 (about 280
splits a hand: each partition of the 9 cards in its one increasing order). Every seat
holds its real mask from the deal to the end of the hand (it is computed once per seat
and hand). Playing a split outside the mask through `env()` ends the hand with a reward
of −1 for that seat and 0 for the others; `raw_env` and
`parallel_env` raise a `ValueError` naming the split.

Under `actions="offered"` the mask (int8, K values) is 1 for the filled slots, and an empty
slot is an illegal action as a split outside the mask is; `infos[agent]["offered"]` holds the
split index in each slot (−1 in empty ones).

### Action Space

A split index (envs/biji/RULES.md section 11): `index = P1 * 20 + P2`, where `P1` is the position of pot 1's
slots among the 84 3-subsets of `range(9)` in `itertools.combinations` order and `P2` the
position of pot 2's slots among the 20 3-subsets of the 6 remaining slots; pot 3 is the
rest. `splitpoker.envs.splits.BIJI` encodes and decodes it.

Under `actions="offered"` the action is a slot `0 … K-1` of the seat's offered splits
(`Discrete(K)`), ordered by the split's value to the `heuristic` agent, highest first; the
split played is the one in that slot.

### Rewards

At the end of the hand every seat receives its payoff from the rules engine
(`Game.score`): in each pot every seat pays the winner (place − 1), and a seat holding
bonuses worth h 喜 receives h × (players − 1) from every other seat. The payoffs sum to
zero. Before the end all rewards are 0.

Under `infos="text"`, `infos[agent]` holds `"hand"` (canonical card strings in slot order), `"seat"` and
`"num_players"`; after the hand also `"arrangement"` (pots 1 - 3 as card strings),
`"types"` (the pots' types), `"payoff"` and `"score"`: the seat's part of the scoring
breakdown (`places` and `pot_payoffs` per pot, `xi`, `bonuses`, `bonus_payoff`, and
`payoff`).

### Version History

* v0: Initial release.

"""

from __future__ import annotations

from ..arrange_env import ArrangeEnv, make_env_fns


class raw_env(ArrangeEnv):  # noqa: N801 - PettingZoo's name
    """Biji without wrappers (an invalid split raises ValueError)."""

    game_name = "biji"
    metadata = {**ArrangeEnv.metadata, "name": "biji_v0"}


env, parallel_env = make_env_fns(raw_env)
