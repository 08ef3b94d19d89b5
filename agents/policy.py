"""The agents that play a learned policy (``checkpoint:PATH``, ``pretrained:NAME``, a
self-play snapshot), and the loaders that build them from a saved policy.

The layers below: the networks and how a policy kind's settings build one
(:mod:`.networks`; the kinds and their settings: :mod:`.policy_kinds`), a split scorer's
decisions without torch (:mod:`.split_inference`), and the saved-policy file format
(:mod:`.checkpoint`). A few of their names that training modules import from here stay
importable from here (see below the imports).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from ..envs.game import Game
from ..envs.table import SeatView
from .base import Agent
from .checkpoint import (
    POLICY_MEMBER,
    check_meta,
    damaged,
    pretrained_path,
    read_meta,
    read_policy_state,
    resolve_checkpoint,
)
from .distribution import SplitDistribution
from .networks import SplitScorerPolicy, action_logits, build_policy
from .specs import AgentSpec
from .split_inference import choices


def masked_choice(logits: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None) -> int:
    """Argmax of the logits over the valid splits, or a sample from their softmax with ``rng``."""
    valid = np.flatnonzero(mask)
    if len(valid) == 0:
        raise ValueError("the action mask has no valid split")
    scores = logits[valid].astype(np.float64)
    if rng is not None:
        scores = scores + rng.gumbel(size=len(valid))
    return int(valid[int(np.argmax(scores))])


class PolicyAgent(Agent):
    """Plays a policy: argmax over the masked logits (``rng`` given: samples from them). A
    split scorer on the CPU decides by :mod:`.split_inference` (NumPy and compiled kernels),
    elsewhere through its torch modules.

    A decision on the CPU runs its torch operations on :attr:`threads` threads (one by
    default), whatever ``torch.set_num_threads`` says elsewhere in the process, and restores
    that setting after: a decision is a few small products, which torch's thread pool only
    slows, most on a loaded machine. ``threads = None`` uses the global setting."""

    #: bounds the (batch, n_actions) logits held at once
    batch_size = 64
    #: torch threads of a decision on the CPU (None: torch's global setting)
    threads: int | None = 1

    def __init__(self, policy: MaskableActorCriticPolicy, meta: Mapping[str, Any], name: str,
                 rng: np.random.Generator | None = None) -> None:
        self.policy = policy.eval()
        self.meta = dict(meta)
        self.name = name
        self.rng = rng
        self.observation_size = int(meta["observation_size"])
        self.n_actions = int(meta["n_actions"])
        self._parameter = next(iter(self.policy.parameters()))  # its device is the policy's, read at each call

    def logits(self, observations: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations, dtype=np.float32).reshape(-1, self.observation_size)
        with th.inference_mode():
            return action_logits(self.policy, th.as_tensor(obs, device=self.policy.device)).cpu().numpy()

    def act_batch(self, views: Sequence[SeatView]) -> np.ndarray:
        """One decision per view, in a single forward pass."""
        if not views:
            return np.empty(0, dtype=np.int64)
        if len(views) == 1:  # one view (an environment's agent): its arrays as they are
            masks, observations = views[0].mask[None], views[0].observation[None]
        else:
            masks, observations = np.stack([v.mask for v in views]), np.stack([v.observation for v in views])
        if masks.shape[1] != self.n_actions:
            raise ValueError(f"{self.name}: action masks of {masks.shape[1]} splits, expected {self.n_actions}")
        if isinstance(self.policy, SplitScorerPolicy):
            uniforms = None if self.rng is None else self.rng.random(len(views))
            if self._parameter.is_cpu:
                with torch_threads(self.threads):
                    return choices(self.policy, observations, masks, uniforms)
            with th.inference_mode():
                distribution = self.policy.get_distribution(th.as_tensor(observations, device=self.policy.device),
                                                            masks)
                assert isinstance(distribution, SplitDistribution)
                return distribution.choices(uniforms)
        with torch_threads(self.threads if self._parameter.is_cpu else None):
            logits = self.logits(observations)
        return np.array([masked_choice(row, mask, self.rng) for row, mask in zip(logits, masks)], dtype=np.int64)


@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """The block on ``threads`` torch threads (None: as set), the setting restored after."""
    before = th.get_num_threads()
    if threads is None or threads == before:
        yield
        return
    th.set_num_threads(threads)
    try:
        yield
    finally:
        th.set_num_threads(before)


def load_policy(path: str | Path) -> tuple[MaskableActorCriticPolicy, dict[str, Any]]:
    """The policy module and metadata of a saved policy file."""
    meta = read_meta(path)
    policy = build_policy(meta, initialise=False)
    try:
        state = read_policy_state(path)
    except Exception as error:  # a damaged or missing member: CRC, zlib, torch or pickle errors
        raise damaged(path, POLICY_MEMBER, error) from None
    try:
        policy.load_state_dict(state)
    except RuntimeError as error:
        raise ValueError(f"{path} is damaged: its weights do not fit the {meta['policy']['kind']} policy it "
                         f"describes ({str(error).splitlines()[0]})") from None
    return policy.eval(), meta



def load_policy_agent(kind: str, ref: str, game: Game, num_players: int,
                      rng: np.random.Generator | None = None) -> PolicyAgent:
    """The agent of ``checkpoint:PATH`` or ``pretrained:NAME`` (see :mod:`splitpoker.agents.specs`)."""
    if kind == "pretrained":
        path = pretrained_path(ref)
    elif kind == "checkpoint":
        path = resolve_checkpoint(ref)
    else:
        raise ValueError(f"unknown policy source {kind!r}; use checkpoint:PATH or pretrained:NAME")
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
