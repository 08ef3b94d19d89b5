"""The split scorer's distribution over a few marked splits per hand (the candidates).

When an action mask marks few splits (``selfplay.mask: undominated``: a median of ~65 of a
Thirteen hand's 72,072, ~3 of a Biji hand's 1,680), the masked categorical needs only the
logits of those splits. :class:`MarkedSplits` holds each hand's marked splits as a sorted
index list, padded to the batch's longest (and one after another, :attr:`MarkedSplits.flat`);
:func:`marked_logits` gathers their logits from the row scores (and, for a scorer with an
interaction term, from each row position's vectors, computing the term for the marked splits
only); :func:`marked_statistics` gives the log normaliser and the entropy from them, hand by
hand, as torch operations, so that autograd gives their gradients. The values equal the
full-width distribution's up to float rounding: the logits are the same float32 sums, the
normaliser and the entropy are accumulated in float64 like the kernels of
:mod:`.split_kernels`.

:func:`marked_splits` decides when a mask is few enough: every hand marks at most
``n_actions * SPARSE_SHARE`` splits (and at least one). Masks of every valid split (a
Thirteen hand has ~22,000, a Biji hand 280) are never that few: they keep the full-width
kernels, unchanged.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch as th
from numba import njit

#: a mask is read as a list of marked splits when no hand marks more than this share of the
#: splits (Thirteen: 4,504; Biji: 105)
SPARSE_SHARE = 1 / 16


@dataclasses.dataclass(frozen=True)
class MarkedSplits:
    """Each hand's marked splits: ``ids`` ``(B, K)`` int64, ascending per hand, padded after
    the hand's ``counts[b]`` marked ones by repeating its first; ``n_actions`` the mask's
    width. A batch of masks (as :meth:`dense` gives them) in a compact form, which the rollout
    buffer hands on, as it is to a policy that reads lists or carried by bool masks
    (:meth:`tensor`), for :meth:`.distribution.SplitDistribution.apply_masking`."""

    ids: np.ndarray
    counts: np.ndarray
    n_actions: int

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.ids), self.n_actions)

    @property
    def valid(self) -> np.ndarray:
        """``(B, K)`` bool: which entries of :attr:`ids` are marked splits, not padding."""
        return np.arange(self.ids.shape[1])[None, :] < self.counts[:, None]

    @functools.cached_property
    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The marked splits one after another, hand by hand, without the padding: each one's
        hand, place in :attr:`ids` and split, int64 ``(N,)`` each (``N = counts.sum()``)."""
        hands, places = np.nonzero(self.valid)
        return hands, places, self.ids[hands, places]

    def dense(self) -> np.ndarray:
        """The bool masks ``(B, n_actions)``."""
        masks = np.zeros(self.shape, dtype=bool)
        masks[np.arange(len(self.ids))[:, None], self.ids] = True
        return masks

    def tensor(self, device: th.device | str = "cpu") -> th.Tensor:
        """The bool masks as a tensor on ``device`` that carries these lists (:func:`carried`):
        what the rollout buffer hands on to a policy that does not take the lists alone, which
        the split scorer reads as lists and any other policy as the masks."""
        masks = th.zeros(self.shape, dtype=th.bool)
        masks[th.arange(len(self.ids))[:, None], th.from_numpy(self.ids)] = True
        masks = masks.to(device)
        masks.marked_splits = self  # type: ignore[attr-defined]
        return masks

    def marks(self, actions: np.ndarray) -> np.ndarray:
        """Whether each hand marks the actions ``(B,)`` or ``(B, A)``: bool of their shape."""
        actions = np.asarray(actions)
        wide = actions.reshape(len(self.ids), -1)
        hit = (self.ids[:, None, :] == wide[:, :, None]).any(-1)
        return hit.reshape(actions.shape)


def carried(masks: object) -> MarkedSplits | None:
    """The lists that masks made by :meth:`MarkedSplits.tensor` carry (None for other masks)."""
    if isinstance(masks, MarkedSplits):
        return masks
    return getattr(masks, "marked_splits", None)


def as_masks(masks: Any) -> Any:
    """Masks as a policy that reads no lists takes them: :class:`MarkedSplits` as the bool
    masks they stand for (:meth:`MarkedSplits.tensor`), anything else as it is."""
    return masks.tensor() if isinstance(masks, MarkedSplits) else masks


def from_lists(lists: Sequence[np.ndarray], n_actions: int) -> MarkedSplits:
    """:class:`MarkedSplits` of each hand's ascending marked splits (none empty)."""
    counts = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    ids = np.empty((len(lists), int(counts.max(initial=1))), dtype=np.int64)
    for b, row in enumerate(lists):
        ids[b, : len(row)] = row
        ids[b, len(row):] = row[0]
    return MarkedSplits(ids, counts, n_actions)


def few(counts: np.ndarray, n_actions: int) -> bool:
    """Whether masks marking ``counts`` splits per hand are read as lists (every hand marks at
    least one and at most ``n_actions * SPARSE_SHARE``)."""
    return len(counts) > 0 and int(counts.min()) > 0 and int(counts.max()) <= n_actions * SPARSE_SHARE


@njit(cache=True)
def _take(masks: np.ndarray, b: int, start: int, stop: int, found: np.ndarray, count: int,
          limit: int) -> int:  # pragma: no cover - compiled
    """Append hand ``b``'s marked entries in ``[start, stop)`` to ``found[b]`` after its first
    ``count``; the new count, or -1 once there would be more than ``limit``."""
    for i in range(start, stop):
        if masks[b, i]:
            if count == limit:
                return -1
            found[b, count] = i
            count += 1
    return count


@njit(cache=True)
def _marked_ids(masks: np.ndarray, words: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
    """Each hand's marked splits of bool masks ``(B, n)``, ascending, padded after the
    hand's ``counts[b]`` by repeating its first: ``(ids, counts)`` as :class:`MarkedSplits`
    holds them; ``counts[b]`` -1 where the hand marks more than ``limit`` (the scan of the
    batch stops there, the ids are then of no use). ``words`` is the masks' whole 8-byte
    words ``(B, n // 8)``: 64 entries at a time are skipped where all are zero, and in the
    other blocks only the entries of nonzero words are read, so that a mask of few marked
    splits is read in a fraction of one pass over its entries."""
    hands, n = masks.shape
    blocks = words.shape[1] // 8
    found = np.empty((hands, max(limit, 1)), dtype=np.int64)
    counts = np.zeros(hands, dtype=np.int64)
    for b in range(hands):
        count = 0
        for k in range(blocks):
            w = 8 * k
            if (words[b, w] | words[b, w + 1] | words[b, w + 2] | words[b, w + 3] | words[b, w + 4]
                    | words[b, w + 5] | words[b, w + 6] | words[b, w + 7]) == 0:
                continue
            for v in range(w, w + 8):
                if words[b, v] != 0:
                    count = _take(masks, b, 8 * v, 8 * v + 8, found, count, limit)
                    if count < 0:
                        break
            if count < 0:
                break
        if count >= 0:
            count = _take(masks, b, 64 * blocks, n, found, count, limit)  # the entries after the last whole block
        counts[b] = count
        if count < 0:
            return found[:, :0], counts
    width = max(1, counts.max()) if hands else 1
    ids = np.empty((hands, width), dtype=np.int64)
    for b in range(hands):
        for t in range(width):
            ids[b, t] = found[b, t] if t < counts[b] else found[b, 0]
    return ids, counts


def few_marked(mask: np.ndarray, limit: int) -> np.ndarray:
    """The marked entries of one mask (ascending, int64) when they are at most ``limit``,
    else an empty array: the scan of :func:`marked_splits` of a single row."""
    row = np.ascontiguousarray(mask, dtype=bool)[None]
    n = row.shape[1]
    ids, counts = _marked_ids(row, row[:, : n - n % 8].view(np.uint64), limit)
    return ids[0, : max(int(counts[0]), 0)]


def marked_splits(masks: np.ndarray) -> MarkedSplits | None:
    """The marked splits of bool masks ``(B, n_actions)`` when they are few (:func:`few`),
    else None."""
    masks = np.ascontiguousarray(masks, dtype=bool)
    if not len(masks):
        return None
    n = masks.shape[1]
    words = masks[:, : n - n % 8].view(np.uint64)
    ids, counts = _marked_ids(masks, words, int(n * SPARSE_SHARE))
    return MarkedSplits(ids, counts, n) if few(counts, n) else None


def _gather_rows(values: th.Tensor, index: th.Tensor, hands: th.Tensor | None) -> th.Tensor:
    """``values[b, index[b, j]]`` of ``values`` ``(B, m)`` or ``(B, m, v)``, for ``index``
    ``(B, K)``; with ``hands`` ``(N,)``, ``values[hands[i], index[i]]`` for ``index`` ``(N,)``."""
    if hands is not None:
        return values[hands, index]
    if values.dim() == 2:
        return values.gather(1, index)
    return values[th.arange(len(values), device=values.device)[:, None], index]


def marked_logits(parts: tuple[th.Tensor, th.Tensor, th.Tensor, list[th.Tensor] | None],
                  columns: tuple[th.Tensor, th.Tensor, th.Tensor], out: th.nn.Module | None,
                  ids: th.Tensor, hands: th.Tensor | None = None) -> th.Tensor:
    """The float32 logits ``(B, K)`` of the splits ``ids`` ``(B, K)`` (int64): the sum of their
    rows' scores ``s0, s1, s2`` ``(B, C(n, k))`` (``columns``: each row position's subset
    per split), plus, with row ``vectors`` (each ``(B, C(n, k), v)``), ``out(relu(sum of
    their rows' vectors))`` (the scorer's interaction term, computed for these splits alone),
    each added in the order :class:`.networks.SplitScoreHead` adds them. With ``hands``
    ``(N,)``, the logits ``(N,)`` of the splits ``ids`` ``(N,)`` of those hands
    (:attr:`MarkedSplits.flat`)."""
    s0, s1, s2, vectors = parts
    subsets = [column[ids] for column in columns]
    logits = (_gather_rows(s0, subsets[0], hands) + _gather_rows(s1, subsets[1], hands)
              + _gather_rows(s2, subsets[2], hands))
    if vectors is None:
        return logits
    assert out is not None
    hidden = _gather_rows(vectors[0], subsets[0], hands)
    hidden = hidden + _gather_rows(vectors[1], subsets[1], hands)
    hidden = hidden + _gather_rows(vectors[2], subsets[2], hands)
    return logits + out(th.relu(hidden)).squeeze(-1)


def marked_statistics(logits: th.Tensor, hands: th.Tensor, n_hands: int) -> tuple[th.Tensor, th.Tensor]:
    """From the marked splits' logits ``(N,)``, one after another hand by hand (``hands``
    ``(N,)``, as :attr:`MarkedSplits.flat` lists them): each hand's log normaliser and
    entropy ``(n_hands,)``, in float64. Sums over each hand's own splits, without padding
    them to the longest hand's count (a minibatch's longest is often ten or fifteen times its
    mean)."""
    wide = logits.double()
    top = th.full((n_hands,), -th.inf, dtype=wide.dtype, device=wide.device).scatter_reduce(
        0, hands, wide.detach(), "amax")  # each hand's highest logit: only a shift, which the gradient does not see
    total = th.zeros(n_hands, dtype=wide.dtype, device=wide.device).index_add(0, hands, (wide - top[hands]).exp())
    log_z = top + total.log()
    log_p = wide - log_z[hands]
    entropy = -th.zeros(n_hands, dtype=wide.dtype, device=wide.device).index_add(0, hands, log_p.exp() * log_p)
    return log_z, entropy


def marked_choices(logits: np.ndarray, marked: MarkedSplits, uniforms: np.ndarray | None) -> np.ndarray:
    """One marked split per hand from the marked splits' logits ``(B, K)``: the inverse CDF of
    ``uniforms`` (one in [0, 1) per hand; the first split whose running sum of
    probabilities exceeds it, the last if none does), or the first of the highest logits
    without them."""
    valid = marked.valid
    rows = np.arange(len(logits))
    if uniforms is None:
        return marked.ids[rows, np.where(valid, logits, -np.inf).argmax(1)]
    wide = np.where(valid, logits.astype(np.float64), -np.inf)
    weights = np.exp(wide - wide.max(1, keepdims=True))
    running = np.cumsum(weights, 1)
    target = uniforms * running[:, -1]
    position = np.minimum((running <= target[:, None]).sum(1), marked.counts - 1)
    return marked.ids[rows, position]
