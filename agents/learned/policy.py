"""The agents that play a learned policy (``checkpoint:PATH``, ``pretrained:NAME``, a
self-play snapshot), and the loaders that build them from a saved policy.

The layers below: the networks and how a policy kind's settings build one
(:mod:`.networks`; the kinds and their settings: :mod:`.policy_kinds`), a split scorer's
decisions without torch (:mod:`.split_inference`), and the saved-policy file format
(:mod:`.checkpoint`). A few of their names that training modules import from here stay
importable from here (see below the imports).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from ...envs.game import Game
from ...envs.games import game_class, game_of
from ...envs.offered import Offered, offer_hands
from ...envs.table import SeatView, SeatViews
from ..base import Agent
from ..specs import AgentSpec
from .checkpoint import (
    POLICY_MEMBER,
    BadWeights,
    check_meta,
    damaged,
    pretrained_path,
    read_meta,
    read_policy_state,
    resolve_checkpoint,
)
from .distribution import SplitDistribution
from .networks import SplitScorerPolicy, action_logits, build_policy
from .offered_policy import OfferedSplitsPolicy
from .split_inference import choices, few_allowed, torch_threads


def masked_choice(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None) -> int:
    """Argmax of the logits over the valid splits, or a sample from their softmax with ``rng``."""
    valid = np.flatnonzero(mask)
    if len(valid) == 0:
        raise ValueError("the action mask has no valid split")
    scores = logits[valid].astype(np.float64)
    if rng is not None:
        scores = scores + rng.gumbel(size=len(valid))
    return int(valid[int(np.argmax(scores))])


#: an environment's mask that marks more than this share of the splits is narrowed to the
#: candidates: every valid split marks at least a sixth in both games, the candidates of
#: random hands at most a thirtieth of Thirteen's splits (a few Biji hands have more than a
#: sixteenth: narrowing candidates again changes nothing, it only costs the time)
NARROWED_SHARE = 1 / 16


class PolicyAgent(Agent):
    """Plays a policy: argmax over the masked logits (``rng`` given: samples from them). A
    split scorer on the CPU decides by :mod:`.split_inference` (NumPy and compiled kernels),
    elsewhere through its torch modules.

    A decision on the CPU runs its torch operations on :attr:`threads` threads (one by
    default), whatever ``torch.set_num_threads`` says elsewhere in the process, and restores
    that setting after: a decision is a few small products, which torch's thread pool only
    slows, most on a loaded machine. ``threads = None`` uses the global setting.

    A decision chooses among the *candidates* the view's mask holds (:attr:`over`): the
    valid splits no other split dominates (:mod:`splitpoker.envs.dominance`), which a best
    response never needs to leave. Given a mask of every valid split, the agent computes
    the hands' candidates (one batched call); given the candidates (``mask="undominated"``)
    it uses them as they are (see :meth:`listed_candidates` for masks an environment gives). A
    mask that holds no candidate (one a caller narrowed by hand) is used as it is.
    ``over = "mask"`` chooses among every split the mask marks.

    A policy of the ``offered`` kind (:class:`~.offered_policy.OfferedSplitsPolicy`) decides
    from the splits offered to each view instead (:meth:`offered`, :attr:`offer` of them):
    it scores the filled slots and plays the split in the highest-scoring one (``rng`` given:
    a slot sampled from their softmax), among those the view's mask holds; :attr:`over` does
    not apply to it."""

    #: bounds the (batch, n_actions) logits held at once
    batch_size = 64
    #: torch threads of a decision on the CPU (None: torch's global setting)
    threads: int | None = 1
    #: what a decision chooses among: "candidates" (those the mask holds) or "mask" (every marked split)
    over: str = "candidates"

    def __init__(self, policy: MaskableActorCriticPolicy, meta: Mapping[str, Any], name: str,
                 rng: np.random.Generator | None = None) -> None:
        self.policy = policy.eval()
        self.meta = dict(meta)
        self.name = name
        self.rng = rng
        self.observation_size = int(meta["observation_size"])
        self.n_actions = int(meta["n_actions"])
        self._parameter = next(iter(self.policy.parameters()))  # its device is the policy's, read at each call
        #: the number of splits offered to each seat, for a policy of the ``offered`` kind (else None)
        self.offer: int | None = self.policy.offer if isinstance(self.policy, OfferedSplitsPolicy) else None

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """The unmasked logits ``(N, n_actions)`` of index-form observations; ValueError for a
        policy of the ``offered`` kind, whose logits are over the slots of offered observations
        (:meth:`.offered_policy.OfferedSplitsPolicy.slot_logits`)."""
        if self.offer is not None:
            raise ValueError(f"{self.name} scores the slots of offered observations, not split indices: read its "
                             "logits with agent.policy.slot_logits(observations)")
        obs = np.asarray(observations, dtype=np.float32).reshape(-1, self.observation_size)
        with th.inference_mode():
            return action_logits(self.policy, th.as_tensor(obs, device=self._parameter.device)).cpu().numpy()

    @functools.cached_property
    def game(self) -> Game:
        """The game and rules the policy was trained for (from its metadata)."""
        return game_of(game_class(self.meta["game"]).rules_class.from_mapping(self.meta["rules"]))

    def listed_candidates(self, views: Sequence[SeatView]) -> list[np.ndarray | None] | None:
        """Per view, the splits its decision chooses among, as split indices (ascending), or
        None where it chooses among its mask as it is; None for no view listed (and under
        :attr:`over` ``"mask"``). Views of tables read their candidates from the table core
        (their mask, under ``mask="undominated"``). An environment's mask that marks few
        splits (the candidates an environment with ``mask="undominated"`` gives, or a mask
        narrowed by hand: :func:`.split_inference.few_allowed`) is listed as it is; one that
        marks more than :data:`NARROWED_SHARE` of them (every valid split does) is narrowed
        to the hand's candidates it holds, unless it holds none: each kind computed together,
        in one batched call, without a mask."""
        if self.over != "candidates":
            return None
        listed: list[np.ndarray | None] = [None] * len(views)
        of_tables: dict[int, list[int]] = {}
        wide: list[int] = []
        for i, view in enumerate(views):
            if view.mask_kind is not None:
                if view.tables is not None and view.tables.game.n_actions == self.n_actions:
                    of_tables.setdefault(id(view.tables), []).append(i)
            elif view.mask.shape == (self.n_actions,):
                few = few_allowed(view.mask)
                if len(few):
                    listed[i] = few
                elif np.count_nonzero(view.mask) > self.n_actions * NARROWED_SHARE:
                    wide.append(i)
        for indices in of_tables.values():
            tables = views[indices[0]].tables
            assert tables is not None
            group = [(views[i].table, views[i].seat) for i in indices]
            for i, pair in zip(indices, group):
                listed[i] = tables.candidate_indices(*pair, group)
        if wide:
            for i, splits in zip(wide, self.game.candidate_lists(np.stack([views[i].slots for i in wide]))):
                held = splits[views[i].mask[splits]]
                listed[i] = held if len(held) else None
        return listed if any(row is not None for row in listed) else None

    def decision_masks(self, views: Sequence[SeatView],
                       listed: Sequence[np.ndarray | None] | None = None) -> np.ndarray:
        """What each view's decision chooses among (bool, one row per view): the candidates
        of :meth:`listed_candidates` (``listed``, given as it returned them) as a mask, else
        the view's mask."""
        if listed is None:
            return _stacked([v.mask for v in views])
        rows = []
        for view, splits in zip(views, listed):
            if splits is None:
                rows.append(view.mask)
            else:  # a boolean row marked in place: a tenth of the time of a bincount over every split
                row = np.zeros(self.n_actions, dtype=bool)
                row[splits] = True
                rows.append(row)
        return _stacked(rows)

    def offered(self, views: Sequence[SeatView]) -> Offered:
        """The splits offered to each view (:attr:`offer` of them, rows in the views' order):
        the views of tables through their tables (:meth:`SeatViews.offered`,
        :meth:`~splitpoker.envs.table.Tables.offered_at`, under the tables' rules), those
        made from an environment's data from their hands (:func:`~splitpoker.envs.offered.offer_hands`,
        under the policy's rules, at the view's table size, else the policy's)."""
        if self.offer is None:
            raise ValueError(f"{self.name} is a {self.meta['policy']['kind']} policy: it is offered no splits")
        if isinstance(views, SeatViews):
            return views.offered(self.offer)
        parts: dict[tuple[str, int], list[int]] = {}
        for i, view in enumerate(views):
            key = ("tables", id(view.tables)) if view.tables is not None else (
                "hands", view.num_players or int(self.meta["num_players"]))
            parts.setdefault(key, []).append(i)
        pieces = []
        for (source, held), indices in parts.items():
            first = views[indices[0]].tables
            if source == "tables" and first is not None:
                pieces.append(first.offered_at([(views[i].table, views[i].seat) for i in indices], self.offer))
            else:
                pieces.append(offer_hands(self.game, np.stack([views[i].slots for i in indices]), held, self.offer))
        if len(pieces) == 1:
            return pieces[0]
        order = np.concatenate([np.asarray(indices) for indices in parts.values()])
        place = np.empty_like(order)
        place[order] = np.arange(len(order))
        return Offered(**{field: np.concatenate([getattr(p, field) for p in pieces])[place]
                          for field in ("splits", "mask", "features", "counts")})

    def offered_choices(self, views: Sequence[SeatView]) -> np.ndarray:
        """The decisions of a policy of the ``offered`` kind: the split in the highest-scoring
        filled slot of each view's offer (sampled with ``rng``) that its mask holds (a view
        of an environment's data may hold a narrower mask than the candidates)."""
        offered = self.offered(views)
        allowed = offered.mask.copy()
        for i, view in enumerate(views):
            if view.mask_kind is None and view.mask.shape == (self.n_actions,):
                filled = np.flatnonzero(allowed[i])
                allowed[i, filled] = view.mask[offered.splits[i, filled]]
                if not allowed[i].any():
                    raise ValueError(f"{self.name}: the mask of seat {view.seat}'s hand {' '.join(view.hand)} holds "
                                     f"none of the {len(filled)} splits offered to it")
        assert isinstance(self.policy, OfferedSplitsPolicy)
        with torch_threads(self.threads if self._parameter.is_cpu else None):
            scores = self.policy.slot_scores(offered.features, allowed)
        if self.rng is not None:
            scores += self.rng.gumbel(size=scores.shape)
        return offered.choose(scores.argmax(1))

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        """One decision per view, in a single forward pass."""
        if not views:
            return np.empty(0, dtype=np.int64)
        if isinstance(self.policy, OfferedSplitsPolicy):
            return self.offered_choices(views)
        scorer = isinstance(self.policy, SplitScorerPolicy) and self._parameter.is_cpu
        listed = self.listed_candidates(views)
        if scorer and listed is not None:  # it reads the lists: the masks of the views not listed only
            rest = [view.mask for view, splits in zip(views, listed) if splits is None]
            masks = _stacked(rest) if rest else np.zeros((0, self.n_actions), dtype=bool)
        else:
            masks = self.decision_masks(views, listed)
        if masks.shape[1] != self.n_actions:
            raise ValueError(f"{self.name}: action masks of {masks.shape[1]} splits, expected {self.n_actions}")
        if len(views) == 1:  # one view (an environment's agent): its array as it is
            observations = views[0].observation[None]
        else:
            observations = np.stack([v.observation for v in views])
        if isinstance(self.policy, SplitScorerPolicy):
            uniforms = None if self.rng is None else self.rng.random(len(views))
            if scorer:
                return choices(self.policy, observations, masks, uniforms, listed, self.threads)
            with th.inference_mode():
                distribution = self.policy.get_distribution(th.as_tensor(observations, device=self._parameter.device),
                                                            masks)
                assert isinstance(distribution, SplitDistribution)
                return distribution.choices(uniforms)
        with torch_threads(self.threads if self._parameter.is_cpu else None):
            logits = self.logits(observations)
        return np.array([masked_choice(row, mask, self.rng) for row, mask in zip(logits, masks)], dtype=np.int64)


def _stacked(rows: Sequence[np.ndarray]) -> np.ndarray:
    """Masks as one bool ``(len(rows), n)`` array; one row as it is (no copy)."""
    if len(rows) == 1:
        return rows[0].astype(bool, copy=False)[None]
    return np.stack(rows).astype(bool, copy=False)


def load_policy(path: str | Path) -> tuple[MaskableActorCriticPolicy, dict[str, Any]]:
    """The policy module and metadata of a saved policy file, its description and weights
    checked (:func:`.checkpoint.read_meta`, :func:`.checkpoint.check_weights`) before the
    network is built."""
    meta = read_meta(path)
    try:
        state = read_policy_state(path)
    except BadWeights:
        raise
    except Exception as error:  # a damaged or missing member: CRC, zlib, torch or pickle errors
        raise damaged(path, POLICY_MEMBER, error) from None
    policy = build_policy(meta, initialise=False)
    try:
        policy.load_state_dict(state)
    except RuntimeError as error:
        raise ValueError(f"{path} is damaged: its weights do not fit the {meta['policy']['kind']} policy it "
                         f"describes ({str(error).splitlines()[0]})") from None
    return policy.eval(), meta


def load_policy_agent(kind: str, ref: str, game: Game, num_players: int,
                      rng: np.random.Generator | None = None) -> PolicyAgent:
    """The agent of ``checkpoint:PATH`` or ``pretrained:NAME`` (see :mod:`splitpoker.agents.specs`)."""
    finder = {"pretrained": pretrained_path, "checkpoint": resolve_checkpoint}.get(kind)
    if finder is None:
        raise ValueError(f"unknown policy source {kind!r}; use checkpoint:PATH or pretrained:NAME")
    path = finder(ref)
    meta = read_meta(path)
    check_meta(meta, game, num_players, f"{kind} {ref!r}")
    policy, meta = load_policy(path)
    return PolicyAgent(policy, meta, name=f"{kind}:{ref}", rng=rng)


def checkpoint_agent(spec: AgentSpec, game: Game, num_players: int, seed: int | None) -> PolicyAgent:
    """The agent of a ``checkpoint:PATH`` spec."""
    return load_policy_agent("checkpoint", spec.argument, game, num_players)


def pretrained_agent(spec: AgentSpec, game: Game, num_players: int, seed: int | None) -> PolicyAgent:
    """The agent of a ``pretrained:NAME`` spec."""
    return load_policy_agent("pretrained", spec.argument, game, num_players)


def snapshot_agent(meta: Mapping[str, Any], state: Mapping[str, th.Tensor], name: str,
                   rng: np.random.Generator | None = None) -> PolicyAgent:
    """An agent from an in-memory policy state (a self-play snapshot)."""
    policy = build_policy(meta, initialise=False)
    policy.load_state_dict(dict(state))
    return PolicyAgent(policy, meta, name=name, rng=rng)
