"""The split scorer's own autograd operations, over compiled kernels on the CPU: the
subsets' card features, their first layer (:class:`SubsetHidden`), the pooled embeddings
the critic and an actor over few splits read (:class:`PooledEmbeddings`, whose large arrays
are reused from one pass to the next) and the distribution's statistics over the split
index (:class:`SplitStatistics`). :mod:`.networks` builds the modules on them."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import torch as th

from ...envs.observation import SLOT_FEATURES
from .split_kernels import NO_EXTRA, split_gradients, split_statistics
from .subset_kernels import (
    first_layer_gradients_into,
    pooled_embeddings,
    pooled_pre_gradients,
    subset_hidden,
    subset_hidden_gradients,
    subset_hidden_into,
    subset_shapes,
)


def subset_features(cards: th.Tensor) -> th.Tensor:
    """Features of subsets from their cards' one-hots ``(..., k, 19)``: the cards in slot order,
    rank counts, suit counts, joker counts, how many ranks appear once/twice/three/four
    times, whether all suits agree, and which straight windows (ace low or high) are full."""
    k = cards.shape[-2]
    ranks = cards[..., :13].sum(-2)
    suits = cards[..., 13:17].sum(-2)
    jokers = cards[..., 17:19].sum(-2)
    profile = th.stack([(ranks == c).sum(-1) for c in (1, 2, 3, 4)], -1).to(cards.dtype)
    one_suit = (suits.amax(-1, keepdim=True) == k).to(cards.dtype)
    present = (ranks > 0).to(cards.dtype)
    extended = th.cat([present[..., 12:13], present], -1)  # ace low, 2 … A
    windows = (extended.unfold(-1, k, 1).sum(-1) == k).to(cards.dtype)
    flat = cards.flatten(-2)
    return th.cat([flat, ranks, suits, jokers, profile, one_suit, windows], -1)


def subset_feature_size(k: int) -> int:
    return k * SLOT_FEATURES + 13 + 4 + 2 + 4 + 1 + (14 - k + 1)


class SubsetHidden(th.autograd.Function):
    """The split scorer's first layer on the CPU, by :func:`.subset_kernels.subset_hidden`
    and its gradient kernel: from the per-slot projections ``(k, n, B, h)``, the shape
    weights ``(f, h)``, the per-hand bias ``(B, h)``, the subset table and the slots' ranks
    and suits."""

    @staticmethod
    def forward(ctx: Any, projected: th.Tensor, weight: th.Tensor, base: th.Tensor, subsets: np.ndarray,
                ranks: np.ndarray, suits: np.ndarray) -> th.Tensor:
        hidden = th.from_numpy(subset_hidden(projected.detach().numpy(), subsets, ranks, suits,
                                             weight.detach().numpy(), base.detach().numpy()))
        ctx.save_for_backward(hidden)
        ctx.tables = (subsets, ranks, suits, projected.shape[1])
        return hidden

    @staticmethod
    def backward(ctx: Any, grad: th.Tensor) -> tuple[Any, ...]:
        (hidden,) = ctx.saved_tensors
        subsets, ranks, suits, n = ctx.tables
        g_projected, g_weight, g_base = subset_hidden_gradients(grad.contiguous().numpy(), hidden.numpy(), subsets,
                                                                subset_shapes(ranks, suits, subsets), n)
        return th.from_numpy(g_projected), th.from_numpy(g_weight), th.from_numpy(g_base), None, None, None


class ReusedArrays:
    """Float32 arrays kept for reuse, by shape: the first layer's output of a minibatch (42 MB
    for Thirteen's 5-card subsets of 128 hands) is larger than the C library ever serves from
    its heap, and a fresh mapping costs more in page faults than the kernel that fills it.
    At most :attr:`KEEP` arrays a shape and :attr:`SHAPES` shapes are kept (a minibatch and a
    rollout step of a game use a dozen; the backward pass takes a second array of the first
    layer's shape, its gradient)."""

    KEEP = 2
    SHAPES = 16

    def __init__(self) -> None:
        self._free: dict[tuple[int, ...], list[np.ndarray]] = {}
        self._lock = threading.Lock()

    def take(self, shape: tuple[int, ...]) -> np.ndarray:
        with self._lock:
            stack = self._free.get(shape)
            if stack:
                return stack.pop()
        return np.empty(shape, dtype=np.float32)

    def give(self, array: np.ndarray) -> None:
        with self._lock:
            if array.shape not in self._free and len(self._free) >= self.SHAPES:
                self._free.clear()
            stack = self._free.setdefault(array.shape, [])
            if len(stack) < self.KEEP:
                stack.append(array)


#: the large arrays of :class:`PooledEmbeddings` (the first layer's output and its gradient,
#: the embeddings and their gradient), reused
REUSED = ReusedArrays()


class PooledEmbeddings(th.autograd.Function):
    """A subset size's first layer and embeddings on the CPU, read as the critic and the
    actor over few splits read them: ``hidden`` as :class:`SubsetHidden` computes it (from
    the per-slot projections, the shape weights, the per-hand bias, the subset table and the
    slots' ranks and suits), the embeddings ``relu(hidden @ weight.T + bias)`` ``(B, m, e)``,
    and as outputs only their mean and maximum over the subsets ``(B, e)`` each and their
    projections onto ``proj`` ``(q, e)`` (the row positions' score and vector weights)
    ``(B, m, q)``, in one pass (:func:`.subset_kernels.pooled_embeddings`). The backward
    forms the pre-activations' gradient in one pass (:func:`.subset_kernels.pooled_pre_gradients`),
    carries it through the embedding layer in one product, then into the first layer's
    gradients in one pass (:func:`.subset_kernels.first_layer_gradients_into`), and forms the
    embedding layer's weight gradient in one product."""

    @staticmethod
    def forward(ctx: Any, projected: th.Tensor, shape_weight: th.Tensor, base: th.Tensor, weight: th.Tensor,
                bias: th.Tensor, proj: th.Tensor, subsets: np.ndarray, ranks: np.ndarray,
                suits: np.ndarray) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        k, n, batch, h = projected.shape
        m = len(subsets)
        array = REUSED.take((batch, m, h))
        subset_hidden_into(array, projected.detach().numpy(), subsets, ranks, suits, shape_weight.detach().numpy(),
                           base.detach().numpy())
        hidden = th.from_numpy(array)
        e = weight.shape[0]
        embedded = REUSED.take((batch * m, e))
        emb = th.addmm(bias, hidden.view(batch * m, h), weight.t(), out=th.from_numpy(embedded))
        emb = emb.clamp_min_(0.0).view(batch, m, e)
        mean, most, argmax, projections = (th.from_numpy(x) for x in pooled_embeddings(
            emb.numpy(), proj.detach().contiguous().numpy()))
        if any(ctx.needs_input_grad):
            ctx.save_for_backward(weight, proj, argmax)
            ctx.arrays = (array, embedded)  # given back to the pool by the backward
            ctx.tables = (subsets, ranks, suits, n)
        else:
            REUSED.give(array)
            REUSED.give(embedded)
        return mean, most, projections

    @staticmethod
    def backward(ctx: Any, g_mean: th.Tensor | None, g_max: th.Tensor | None,
                 g_proj: th.Tensor | None) -> tuple[Any, ...]:
        weight, proj, argmax = ctx.saved_tensors
        if ctx.arrays is None:
            raise RuntimeError("the pooled subset embeddings support one backward pass (their first layer's output "
                               "is reused after it)")
        hidden_array, embedded = ctx.arrays
        hidden = th.from_numpy(hidden_array)
        subsets, ranks, suits, n = ctx.tables
        batch, m, h = hidden.shape
        e, q = weight.shape[0], proj.shape[0]
        emb = th.from_numpy(embedded).view(batch, m, e)
        g_mean = th.zeros(batch, e) if g_mean is None else g_mean
        g_max = th.zeros(batch, e) if g_max is None else g_max
        g_proj = th.zeros(batch, m, q) if g_proj is None else g_proj
        g_pre = REUSED.take((batch, m, e))
        pooled_pre_gradients(g_pre, emb.numpy(), argmax.numpy(), g_mean.contiguous().numpy(),
                             g_max.contiguous().numpy(), g_proj.contiguous().numpy(),
                             proj.detach().contiguous().numpy())
        flat = th.from_numpy(g_pre).view(batch * m, e)
        g_hidden = REUSED.take((batch, m, h))
        th.mm(flat, weight.detach(), out=th.from_numpy(g_hidden).view(batch * m, h))
        g_projected, g_shape, g_base = first_layer_gradients_into(g_hidden, hidden.numpy(), subsets,
                                                                  subset_shapes(ranks, suits, subsets), n)
        g_weight = flat.t() @ hidden.view(batch * m, h)
        g_bias = flat.sum(0)
        g_projection = g_proj.reshape(batch * m, q).t() @ emb.view(batch * m, e)
        for array in (hidden_array, embedded, g_pre, g_hidden):
            REUSED.give(array)
        ctx.arrays = None
        return (th.from_numpy(g_projected), th.from_numpy(g_shape), th.from_numpy(g_base), g_weight, g_bias,
                g_projection, None, None, None)


class SplitStatistics(th.autograd.Function):
    """Log probability of each hand's action and the entropy of its distribution over the
    valid splits, from the row scores, by the kernels of :mod:`.split_kernels` (or from
    ``known``, the statistics of these actions computed when they were drawn)."""

    @staticmethod
    def forward(ctx: Any, s0: th.Tensor, s1: th.Tensor, s2: th.Tensor, extra: th.Tensor | None,
                tables: tuple[np.ndarray, ...], mask: np.ndarray, actions: np.ndarray,
                known: np.ndarray | None = None) -> tuple[th.Tensor, th.Tensor]:
        arrays = tuple(x.detach().numpy() for x in (s0, s1, s2))
        extra_array = NO_EXTRA if extra is None else extra.detach().numpy()
        statistics = (split_statistics(*arrays, *tables, extra_array, extra is not None, mask,  # type: ignore[call-arg, arg-type]
                                       actions)
                      if known is None else known)
        ctx.inputs = (arrays, tables, extra_array, extra is not None, mask, actions, statistics)
        log_z, mean, log_p = (th.as_tensor(statistics[:, i], dtype=s0.dtype) for i in range(3))
        return log_p, log_z - mean

    @staticmethod
    def backward(ctx: Any, g_logp: th.Tensor, g_entropy: th.Tensor) -> tuple[Any, ...]:
        arrays, tables, extra_array, has_extra, mask, actions, statistics = ctx.inputs
        g0, g1, g2, gx = split_gradients(*arrays, *tables, extra_array, has_extra,  # type: ignore[call-arg]  # numba
                                         mask, actions, statistics,
                                         g_logp.double().numpy(), g_entropy.double().numpy())
        return (th.from_numpy(g0), th.from_numpy(g1), th.from_numpy(g2),
                th.from_numpy(gx) if has_extra else None, None, None, None, None)
