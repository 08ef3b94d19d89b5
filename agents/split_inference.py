"""Decisions of a split scorer policy in NumPy and compiled kernels, on the CPU.

The same function as the policy's torch modules (:class:`.policy.SplitScorerExtractor` and
:class:`.policy.SplitScoreHead`), read from the same parameters at each call, for the agents
that only decide: a decision in torch is some forty small operator calls of 10-20 µs each
around a few hundred microseconds of arithmetic, and here each step is one NumPy product or
one kernel call. The products go through torch (:func:`_linear`), so that they run on the
threads torch is given (``torch.set_num_threads``), like the rest of the policy. Training
keeps the torch modules (their gradients); the tests check that both give the same row
scores, interaction terms and decisions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import torch as th
from torch import nn

from ..envs.observation import SLOT_FEATURES

if TYPE_CHECKING:
    from .policy import SplitScorerPolicy


def _array(parameter: object) -> np.ndarray:
    """A parameter's values as a float32 array (sharing its memory)."""
    return parameter.detach().numpy()  # type: ignore[attr-defined, no-any-return]


def _linear(x: np.ndarray, weight: th.Tensor, bias: th.Tensor | None = None, relu: bool = False) -> np.ndarray:
    """``x @ weight.T + bias`` (then relu) of a 2-d array, by one torch call."""
    with th.inference_mode():
        out = nn.functional.linear(th.from_numpy(x), weight.detach(), None if bias is None else bias.detach())
        return (th.relu_(out) if relu else out).numpy()


def embeddings(policy: SplitScorerPolicy, observations: np.ndarray) -> dict[int, np.ndarray]:
    """``{k: (B, C(n, k), embed_dim)}``: :meth:`.policy.SplitScorerExtractor.embeddings`."""
    from .subset_kernels import first_layer_weights, slot_ids, subset_hidden, subset_shapes

    extractor = policy.mlp_extractor
    n = extractor.n_slots
    batch = len(observations)
    slots = observations[:, : n * SLOT_FEATURES].reshape(batch, n, SLOT_FEATURES)
    context = observations[:, n * SLOT_FEATURES:]
    ranks, suits = slot_ids(slots)
    out = {}
    for k in extractor.sizes:
        layer = extractor.card_layers[str(k)]
        per_position, shape_weight = first_layer_weights(_array(layer.weight), k)
        hidden_size = per_position.shape[0]
        projected = _linear(slots.reshape(batch * n, SLOT_FEATURES),
                            th.from_numpy(per_position.reshape(-1, SLOT_FEATURES)))
        projected = np.ascontiguousarray(projected.reshape(batch, n, hidden_size, k).transpose(3, 1, 0, 2))
        base = _linear(context, extractor.context_layers[str(k)].weight, layer.bias)
        subsets = getattr(extractor, f"subset_ids_{k}")
        hidden = subset_hidden(projected, subsets, subset_shapes(ranks, suits, subsets),
                               np.ascontiguousarray(shape_weight), base)
        embed = extractor.embed_layers[str(k)]
        out[k] = _linear(hidden.reshape(-1, hidden_size), embed.weight, embed.bias, relu=True).reshape(
            batch, len(subsets), -1)
    return out


def row_scores(policy: SplitScorerPolicy, observations: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Each row position's score of every subset ``(B, C(n, k))`` and the interaction term of
    every split ``(B, n_actions)`` (None without one): :meth:`.policy.SplitScoreHead.row_scores`."""
    from .split_kernels import split_interactions

    head = policy.action_net
    emb = embeddings(policy, np.ascontiguousarray(observations, dtype=np.float32))
    flat = {k: e.reshape(-1, e.shape[-1]) for k, e in emb.items()}
    batch = len(observations)
    s0, s1, s2 = (_linear(flat[head.row_sizes[r]], head.row_scalars[r].weight, head.row_scalars[r].bias).reshape(
        batch, -1) for r in range(3))
    if head.split_hidden == 0:
        return s0, s1, s2, None
    vectors = []
    for r in range(3):
        layer = head.row_vectors[r]
        vector = _linear(flat[head.row_sizes[r]], layer.weight, layer.bias)
        vectors.append(vector.reshape(batch, -1, vector.shape[-1]))
    return s0, s1, s2, split_interactions(*vectors, *head.tables(), _array(head.out.weight)[0])


def choices(policy: SplitScorerPolicy, observations: np.ndarray, masks: np.ndarray,
            uniforms: np.ndarray | None) -> np.ndarray:
    """One valid split per hand: as :meth:`.policy.SplitDistribution.choices` of the policy's
    distribution (the inverse CDF of ``uniforms``, or the most likely split without them)."""
    from .split_kernels import choose_splits

    s0, s1, s2, extra = row_scores(policy, observations)
    return choose_splits(s0, s1, s2, policy.action_net.tables(), extra, masks, uniforms)[0]
