"""
# Thirteen (十三张 / 十三水, Chinese poker)

| Creation           | `thirteen_v0.env()` or `make("aec", "splitpoker/thirteen_v0")` |
|--------------------|-----------------------------------------------------------------|
| Import             | `from splitpoker.envs import thirteen_v0`                      |
| Actions            | Discrete                                                        |
| Parallel API       | Yes                                                             |
| Manual Control     | No                                                              |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']`      |
| Agents             | 2 to 4 (`num_players`, default 4)                               |
| Action Shape       | Discrete(72072); Discrete(K) under `actions="offered"`          |
| Action Values      | [0, 72071]; [0, K-1] under `actions="offered"`                  |
| Observation Shape  | (281,), with an action mask of shape (72072,); under            |
|                    | `actions="offered"` (281 + 41K,), with a mask of shape (K,)     |
| Observation Values | [0, 1]; the offered features as `offered_bounds` gives          |

Each seat is dealt 13 of 52 cards and splits them into a front row of 3 cards, a middle
row of 5 and a back row of 5, with front ≤ middle ≤ back (otherwise the hand fouls).
The rows are compared seat against seat and paid by the rules of envs/thirteen/RULES.md section 6.

One hand is one episode and one decision per seat, taken simultaneously as in
rock-paper-scissors: the seats act in order `player_0 … player_{n-1}` and no seat sees
another's choice. After the last seat has acted the table is scored once and every seat
terminates. Special hands (报到) are detected automatically: a seat whose hand is a special
still receives its real mask and must choose a valid split, but that choice does not
change the scoring (its rows are not compared).

### Arguments

```python
from splitpoker.envs import thirteen_v0

thirteen_v0.env(num_players=4, preset="classic", render_mode=None, mask=None, illegal_action="penalty",
                illegal_reward=-1.0, observation="dict", infos="text", actions="index", offer=None,
                **switches)
```

Through PettingZoo's registry: `pettingzoo.make("aec", "splitpoker/thirteen_v0", **kwargs)` (or
`"parallel"`), once `splitpoker.envs.registration.register_envs()` has run (importing this
module runs it).

`num_players`: 2, 3 or 4.

`preset`: `classic` (default), `shisanshui`, `banker`, `western`, or one of the regional
variants `baomahui`, `baodao`, `mianbai`, `baibian`, `shaoxing`, `bidaxiao`, `banker_top`,
`shisanshui_strict` (envs/thirteen/RULES.md section 9; `splitpoker rules thirteen --list`).

`switches`: any rule switch overriding the preset: `wheel`, `flush_compare`,
`suit_tiebreak`, `suit_order`, `scoring`, `banker_seat`, `royalties`, `scoop`,
`home_run`, `specials`, `counted_rows`, `tie_winner`, `special_pays`, `rank_compare`. An unknown keyword,
switch or value is a `ValueError` naming it.

`render_mode`: `None`, `"ansi"` (``render()`` returns the table as text) or `"human"`
(prints it).

`mask`: `"valid"` (the default under `actions="index"`: the action mask marks every valid split)
or `"undominated"` (the default under `actions="offered"`, the only value it takes)
(it marks the *candidates*, the valid splits no other valid split dominates: envs/thirteen/RULES.md
section 12; what that means for research: `splitpoker.envs.arrange_env`). A learner then
chooses among about 100 (median 76, mean 126, at most about 1,700 on random classic hands) splits
a hand instead of 72,072.

`actions`: `"index"` (default: the action is a split index, below) or `"offered"`: each
seat is offered up to `offer` of its candidates, each with a row of 41 features, and the
action is a slot `0 … K-1` (docs/environments.md, "The offered action space";
`splitpoker.envs.offered_env`).

`offer`: K, the number of slots under `actions="offered"` (default `None`: the game's
`default_offer`, 256 for Thirteen); with `actions="index"` it is a `ValueError`.

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
`options={"hands": [...]}` deals the given hands, one per seat, each a string of 13
cards (`"As Kd 10h ..."`) or a list of card strings.

### Observation Space

The observation is a dictionary with an `'observation'` element, the float32 vector
below (`splitpoker.envs.observation`), and an `'action_mask'` element (Legal Actions Mask).

| Index     | Description                                                                |
|-----------|----------------------------------------------------------------------------|
| 0 - 246   | the hand in canonical slot order, 19 values per slot (slot k from 19k):    |
|           | rank one-hot 2 … A (13), suit one-hot c d h s (4), joker one-hot (2, unused) |
| 247 - 250 | seat one-hot (`player_0` … `player_3`)                                     |
| 251 - 253 | number of players one-hot (2, 3, 4)                                        |
| 254 - 257 | `wheel` one-hot: second, lowest, ace_equal, none                           |
| 258 - 259 | `flush_compare` one-hot: rank_first, suit_first                            |
| 260       | `suit_tiebreak` (0/1)                                                      |
| 261 - 264 | suit value of c, d, h, s under `suit_order` (weakest 0 … strongest 1)      |
| 265 - 267 | `scoring` one-hot: pairwise, banker, two_four (all 0 under majority)       |
| 268 - 269 | `royalties` one-hot: classic, none                                         |
| 270 - 271 | `scoop` one-hot: none, double                                              |
| 272       | `home_run` (0/1)                                                           |
| 273 - 276 | `specials` one-hot: classic, shisanshui, banker, off (all 0 for the other  |
|           | tables); `counted_rows`, `tie_winner`, `special_pays` and `rank_compare`   |
|           | are not observed                                                           |
| 277 - 280 | where the banker sits relative to the seat under `scoring=banker`, one-hot:|
|           | 0 this seat, 1 the next seat, … (all 0 under other scoring)                |

`observation_labels(game)` names every index.

Under `actions="offered"` the `'observation'` element is this vector followed by the K
feature rows of the offered splits, slot by slot, 41 float32 values each (0 in empty slots):
281 + 41K values (10,777 at the default K = 256). `offered_labels(game)` names the 41
columns and `split_observation(observation, game, K)` reads the two parts back
(`splitpoker.envs.offered`).

#### Legal Actions Mask

`action_mask` (int8, 72,072 values) is 1 exactly where the split does not foul. Every seat
holds its real mask from the deal to the end of the hand (it is computed once per seat and
hand). Playing a split outside the mask through `env()` ends the hand with a reward of −1
for that seat and 0 for the others; `raw_env` and
`parallel_env` raise a `ValueError` naming the split.

Under `actions="offered"` the mask (int8, K values) is 1 for the filled slots, and an empty
slot is an illegal action as a split outside the mask is; `infos[agent]["offered"]` holds the
split index in each slot (−1 in empty ones).

### Action Space

A split index (envs/thirteen/RULES.md section 11): `index = F * 252 + M`, where `F` is the position of the
front's 3 slots among the 286 3-subsets of `range(13)` in `itertools.combinations` order
and `M` the position of the middle's 5 slots among the 252 5-subsets of the 10 remaining
slots; the back is the rest. `splitpoker.envs.splits.THIRTEEN` encodes and decodes it.

Under `actions="offered"` the action is a slot `0 … K-1` of the seat's offered splits
(`Discrete(K)`), ordered by the split's value to the `heuristic` agent, highest first; the
split played is the one in that slot.

### Rewards

At the end of the hand every seat receives its payoff from the rules engine
(`Game.score`): the sum over the compared pairs of seats of the row points (row values
with `royalties`), fouls, special hands, `scoop` and `home_run` doubling, or the 2-4
points under `scoring=two_four`. The payoffs sum to zero. Before the end all rewards are 0.

Under `infos="text"`, `infos[agent]` holds `"hand"` (canonical card strings in slot order), `"seat"` and
`"num_players"`; after the hand also `"arrangement"` (front, middle, back as card
strings), `"types"` (the rows' types), `"payoff"` and `"score"`: the seat's part of the
scoring breakdown (`fouled`, `special`, `special_value`, the compared `pairs` holding the
seat, and `payoff`).

### Version History

* v0: Initial release.

"""

from __future__ import annotations

from ..arrange_env import ArrangeEnv, make_env_fns


class raw_env(ArrangeEnv):  # noqa: N801 - PettingZoo's name
    """Thirteen without wrappers (an invalid split raises ValueError)."""

    game_name = "thirteen"
    metadata = {**ArrangeEnv.metadata, "name": "thirteen_v0"}


env, parallel_env = make_env_fns(raw_env)
