"""The rollout buffer of training: action masks kept as bits, or as lists of few splits.

A Thirteen hand has 72,072 splits; sb3-contrib's ``MaskableRolloutBuffer`` keeps a float32
mask per hand (288 KB, 148 MB for a 512-hand rollout). :class:`PackedMaskRolloutBuffer`
keeps one bit per split (9 KB a hand) and unpacks a minibatch's masks to bool when it is
drawn, so ``n_steps × n_envs`` can grow freely.

A step whose masks all mark few splits (``selfplay.mask: undominated``, the candidates: a
median of ~65 of a Thirteen hand's splits, :func:`~splitpoker.agents.learned.sparse.few`) is kept
as each hand's sorted list of marked splits instead of bits, and a minibatch of them is drawn as
:class:`~splitpoker.agents.learned.sparse.MarkedSplits` (padded to its longest list): handed on as
it is to a policy that reads lists (the split scorer, ``lists_read``), else carried by the
bool masks made from the lists (without unpacking bits), which any other policy reads.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from stable_baselines3.common.buffers import RolloutBuffer

from ..agents.learned.sparse import MarkedSplits, from_lists, marked_splits


class PackedMaskRolloutBuffer(MaskableRolloutBuffer):
    """sb3-contrib's ``MaskableRolloutBuffer`` with each step's action masks packed into bits,
    or, when every one marks few splits, kept as their lists instead."""

    def __init__(self, *args: Any, lists_read: bool = False, **kwargs: Any) -> None:
        #: hand on a minibatch of few-split masks as its :class:`MarkedSplits` alone (for a
        #: policy that reads lists: the split scorer), not as the bool masks that carry them
        self.lists_read = lists_read
        super().__init__(*args, **kwargs)

    def reset(self) -> None:
        assert isinstance(self.action_space, spaces.Discrete), "packed masks need a Discrete action space"
        self.mask_dims = int(self.action_space.n)
        self.action_masks = np.zeros((self.buffer_size, self.n_envs, (self.mask_dims + 7) // 8), dtype=np.uint8)
        #: each step's masks as lists of marked splits (None where a hand marks many)
        self.marked: list[MarkedSplits | None] = [None] * self.buffer_size
        RolloutBuffer.reset(self)

    def add(self, *args: Any, action_masks: np.ndarray | None = None, **kwargs: Any) -> None:
        if action_masks is not None:
            masks = np.asarray(action_masks).reshape(self.n_envs, self.mask_dims).astype(bool, copy=False)
            marked = self.marked[self.pos] = marked_splits(masks)
            if marked is None:  # a hand marks many splits: the step is kept as bits (else as lists alone)
                self.action_masks[self.pos] = np.packbits(masks, axis=1)
        RolloutBuffer.add(self, *args, **kwargs)

    def _kept_lists(self, batch_inds: np.ndarray) -> list[np.ndarray | None]:
        """Each of the hands ``batch_inds`` (flat, env-major like SB3's flattening): its marked
        splits where its step was kept as lists, else None."""
        steps, envs = batch_inds % self.buffer_size, batch_inds // self.buffer_size
        return [None if (kept := self.marked[step]) is None else kept.ids[env, : kept.counts[env]]
                for step, env in zip(steps.tolist(), envs.tolist())]

    def _get_samples(  # type: ignore[override]  # sb3-contrib's own buffer returns its samples type too
            self, batch_inds: np.ndarray, env: Any = None) -> MaskableRolloutBufferSamples:
        lists = self._kept_lists(batch_inds)
        data = (self.observations[batch_inds], self.actions[batch_inds], self.values[batch_inds].flatten(),
                self.log_probs[batch_inds].flatten(), self.advantages[batch_inds].flatten(),
                self.returns[batch_inds].flatten())
        if all(x is not None for x in lists):
            marked = from_lists(lists, self.mask_dims)  # type: ignore[arg-type]  # none is None
            return MaskableRolloutBufferSamples(*map(self.to_torch, data),  # type: ignore[call-arg]
                                                marked if self.lists_read else marked.tensor(self.device))
        masks = np.unpackbits(self.action_masks[batch_inds], axis=-1, count=self.mask_dims).astype(bool)
        for i, splits in enumerate(lists):
            if splits is not None:  # a step of few marked splits: kept as lists only
                masks[i, splits] = True
        return MaskableRolloutBufferSamples(*map(self.to_torch, data), self.to_torch(masks))  # type: ignore[call-arg]
