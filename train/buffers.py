"""The rollout buffer of training: action masks kept as bits.

A Thirteen hand has 72,072 splits; sb3-contrib's ``MaskableRolloutBuffer`` keeps a float32
mask per hand (288 KB, 148 MB for a 512-hand rollout). :class:`PackedMaskRolloutBuffer`
keeps one bit per split (9 KB a hand) and unpacks a minibatch's masks to bool when it is
drawn, so ``n_steps × n_envs`` can grow freely.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from stable_baselines3.common.buffers import RolloutBuffer


class PackedMaskRolloutBuffer(MaskableRolloutBuffer):
    """sb3-contrib's ``MaskableRolloutBuffer`` with each action mask packed into bits."""

    def reset(self) -> None:
        assert isinstance(self.action_space, spaces.Discrete), "packed masks need a Discrete action space"
        self.mask_dims = int(self.action_space.n)
        self.action_masks = np.zeros((self.buffer_size, self.n_envs, (self.mask_dims + 7) // 8), dtype=np.uint8)
        RolloutBuffer.reset(self)

    def add(self, *args: Any, action_masks: np.ndarray | None = None, **kwargs: Any) -> None:
        if action_masks is not None:
            masks = np.asarray(action_masks).reshape(self.n_envs, self.mask_dims)
            self.action_masks[self.pos] = np.packbits(masks.astype(bool, copy=False), axis=1)
        RolloutBuffer.add(self, *args, **kwargs)

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> MaskableRolloutBufferSamples:
        masks = np.unpackbits(self.action_masks[batch_inds], axis=-1, count=self.mask_dims).astype(bool)
        data = (self.observations[batch_inds], self.actions[batch_inds], self.values[batch_inds].flatten(),
                self.log_probs[batch_inds].flatten(), self.advantages[batch_inds].flatten(),
                self.returns[batch_inds].flatten())
        return MaskableRolloutBufferSamples(*map(self.to_torch, data), self.to_torch(masks))
