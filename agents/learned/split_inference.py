"""Decisions of a split scorer policy in NumPy and compiled kernels, on the CPU.

The same function as the policy's torch modules (:class:`.networks.SplitScorerExtractor` and
:class:`.networks.SplitScoreHead`), for the agents that only decide: a decision in torch is
some forty small operator calls of 10-20 µs each around a few hundred microseconds of
arithmetic, and here each step is one kernel call or one product. The embedding product
goes through torch (:func:`_linear`), so that it runs on the threads torch is given
(``torch.set_num_threads``), like the rest of the policy. The parameters are read through
NumPy views of their memory (:class:`_Views`, from
:meth:`.networks.SplitScorerPolicy.inference_parameters`), so an optimiser step or ``load_state_dict``
(both update in place) shows in the next decision. Training keeps the torch modules (their
gradients); the tests check that both give the same row scores, interaction terms and
decisions.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch as th
from numba import literal_unroll, njit
from torch import nn

from ...envs.observation import SLOT_FEATURES
from ...runtime.limits import check_threads
from .sparse import few_marked
from .split_kernels import choose_interacting, choose_splits, sparse_pick, split_interactions
from .subset_kernels import first_layer_tables, slot_ids, sparse_row_scores, subset_layer

if TYPE_CHECKING:
    from .networks import SplitScorerPolicy

#: an empty bias: a layer without one
NO_BIAS = np.zeros(0, dtype=np.float32)
#: the interaction term's output weights of a scorer without one
NO_OUT = np.zeros(0, dtype=np.float32)


def _array(parameter: th.Tensor) -> np.ndarray:
    """A parameter's values as a float32 array sharing its memory."""
    return parameter.detach().numpy()


def _linear(x: np.ndarray, weight: th.Tensor, bias: th.Tensor | None = None, relu: bool = False) -> np.ndarray:
    """``x @ weight.T + bias`` (then relu) of a 2-d array, by one torch call (no gradient is
    recorded: the weights given are detached)."""
    out = nn.functional.linear(th.from_numpy(x), weight, bias)
    return (th.relu_(out) if relu else out).numpy()


@njit(cache=True, fastmath=True)
def _small_linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:  # pragma: no cover
    """``x @ weight.T + bias`` for a layer of few outputs, ``(rows, e)`` by ``(o, e)``
    (``bias`` ``(o,)``, or empty for none), one pass over ``x``."""
    rows, e = x.shape
    o = weight.shape[0]
    out = np.empty((rows, o), dtype=np.float32)
    for i in range(rows):
        for j in range(o):
            total = bias[j] if len(bias) else np.float32(0.0)
            for c in range(e):
                total += x[i, c] * weight[j, c]
            out[i, j] = total
    return out


class _Views:
    """What a decision reads of a policy, made once per policy: its subset tables, its split
    table and NumPy views of its parameters, which share their memory. Made again after the
    policy's ``load_state_dict`` and when a parameter's memory moved (the policy moved
    between devices)."""

    def __init__(self, policy: SplitScorerPolicy) -> None:
        scorer = policy.inference_parameters()
        self.parameters = list(policy.parameters())
        self.pointers = [p.data_ptr() for p in self.parameters]
        self.n_slots = scorer.n_slots
        self.subset_layers = scorer.subset_layers
        #: the first layers' parameters, whose in-place changes :meth:`first_layers` watches
        self.first_parameters = [p for layer in scorer.subset_layers
                                 for p in (layer.card_weight, layer.card_bias, layer.context_weight)]
        rows = scorer.row_layers
        self.row_sizes = tuple(row.size for row in rows)
        self.scalars = [(_array(row.score_weight), _array(row.score_bias)) for row in rows]
        self.out = None if scorer.out_weight is None else _array(scorer.out_weight)[0]
        self.vectors = ([(_array(row.vector_weight), NO_BIAS if row.vector_bias is None else _array(row.vector_bias))
                         for row in rows if row.vector_weight is not None] if self.out is not None else [])
        self.tables = scorer.tables
        self.row_masks = scorer.row_masks
        # the sparse path's layers (:func:`_sparse_choice`): each size's embedding layer, and
        # per size the row positions of that size with their columns of the split table
        self.embeds = {layer.size: (_array(layer.embed_weight), _array(layer.embed_bias))
                       for layer in scorer.subset_layers}
        self.sparse_columns = []
        for layer in scorer.subset_layers:
            positions = [r for r in range(3) if self.row_sizes[r] == layer.size]
            self.sparse_columns.append((np.array(positions, dtype=np.int64),
                                        np.ascontiguousarray(np.stack([self.tables[r] for r in positions]))))
        #: the head's parameters, whose in-place changes :meth:`heads` watches
        self.head_parameters = [*(p for row in rows for p in (row.score_weight, row.score_bias)),
                                *(p for row in rows for p in (row.vector_weight, row.vector_bias) if p is not None)]

    def first_layers(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """Per subset size: what :func:`.subset_kernels.subset_layer` reads of its first layer
        (:func:`.subset_kernels.first_layer_tables`) with the size, the subsets and the
        embedding layer's tensors; and everything :func:`_sparse_decision` reads of its
        layers. Laid out again whenever a first layer's parameter changed in place (an
        optimiser step)."""
        versions = [p._version for p in self.first_parameters]
        if getattr(self, "_first_versions", None) != versions:
            sizes, sparse = [], []
            for layer, (positions, columns) in zip(self.subset_layers, self.sparse_columns):
                tables = first_layer_tables(_array(layer.card_weight), _array(layer.card_bias),
                                            _array(layer.context_weight), layer.size)
                sizes.append((layer.size, layer.subsets, tables, layer.embed_weight.detach(),
                              layer.embed_bias.detach()))
                sparse.append((layer.subsets, *tables, columns, positions, *self.embeds[layer.size]))
            self._first_layers, self._first_versions = (tuple(sizes), tuple(sparse)), versions
        return self._first_layers

    def heads(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The three row heads stacked: score weights ``(3, e)`` and biases ``(3,)``, the
        interaction term's vector weights ``(3, v, e)`` and biases ``(3, v)`` (``v = 0``
        without one). Stacked again whenever one of their parameters changed in place (an
        optimiser step: torch counts each tensor's in-place changes)."""
        versions = [p._version for p in self.head_parameters]
        if getattr(self, "_heads_versions", None) != versions:
            self._heads, self._heads_versions = self._stack_heads(), versions
        return self._heads

    def _stack_heads(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        embed_dim = self.scalars[0][0].shape[1]
        if self.out is None:
            vector_weight = np.zeros((3, 0, embed_dim), dtype=np.float32)
            vector_bias = np.zeros((3, 0), dtype=np.float32)
        else:
            vector_weight = np.stack([w for w, _ in self.vectors])
            vector_bias = np.stack([b if len(b) else np.zeros(len(self.out), dtype=np.float32)
                                    for _, b in self.vectors])
        return (np.concatenate([w for w, _ in self.scalars]), np.concatenate([b for _, b in self.scalars]),
                vector_weight, vector_bias)

    def current(self) -> bool:
        """Whether every parameter is still where the views look."""
        return list(map(th.Tensor.data_ptr, self.parameters)) == self.pointers


_VIEWS: weakref.WeakKeyDictionary[SplitScorerPolicy, _Views] = weakref.WeakKeyDictionary()
_HOOKED: weakref.WeakSet[SplitScorerPolicy] = weakref.WeakSet()


def _forget(policy: nn.Module, _keys: object) -> None:
    """After ``load_state_dict``, which may replace the parameters (``assign=True``)."""
    _VIEWS.pop(policy, None)  # type: ignore[call-overload]


def _views(policy: SplitScorerPolicy) -> _Views:
    views = _VIEWS.get(policy)
    if views is None or not views.current():
        if policy not in _HOOKED:
            policy.register_load_state_dict_post_hook(_forget)
            _HOOKED.add(policy)
        views = _VIEWS[policy] = _Views(policy)
    return views


@contextlib.contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """The block on ``threads`` torch threads (None: as set), the setting restored after;
    ValueError unless ``threads`` is None or 1 to :data:`~splitpoker.runtime.limits.MAX_THREADS`."""
    before = th.get_num_threads()
    if threads is None or threads == before:
        yield
        return
    th.set_num_threads(check_threads(threads, "threads"))
    try:
        yield
    finally:
        th.set_num_threads(before)


def _embeddings(views: _Views, observations: np.ndarray) -> dict[int, np.ndarray]:
    """``{k: (B, C(n, k), embed_dim)}`` of float32 ``observations``:
    :meth:`.networks.SplitScorerExtractor.embeddings`."""
    n = views.n_slots
    slots = observations[:, : n * SLOT_FEATURES].reshape(len(observations), n, SLOT_FEATURES)
    context = observations[:, n * SLOT_FEATURES:]
    ranks, suits = slot_ids(slots)
    out = {}
    for k, subsets, tables, embed_weight, embed_bias in views.first_layers()[0]:
        hidden = subset_layer(slots, context, *tables, subsets, ranks, suits)  # type: ignore[call-arg]  # a numba kernel
        out[k] = _linear(hidden.reshape(-1, hidden.shape[-1]), embed_weight, embed_bias, relu=True).reshape(
            len(observations), len(subsets), -1)
    return out


def row_scores(policy: SplitScorerPolicy, observations: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Each row position's score of every subset ``(B, C(n, k))`` and the interaction term of
    every split ``(B, n_actions)`` (None without one): :meth:`.networks.SplitScoreHead.row_scores`."""
    return _row_scores(_views(policy), observations)


def _row_scores(views: _Views, observations: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    s0, s1, s2, vectors = _row_parts(views, observations)
    return s0, s1, s2, None if vectors is None else split_interactions(  # type: ignore[call-arg]  # a numba kernel
        *vectors, *views.tables, views.out)


def _row_parts(views: _Views, observations: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray] | None]:
    """The row scores and, for a scorer with an interaction term, each row position's
    vectors ``(B, C(n, k), h)`` that the term is made of (None without one)."""
    emb = _embeddings(views, np.ascontiguousarray(observations, dtype=np.float32))
    flat = {k: e.reshape(-1, e.shape[-1]) for k, e in emb.items()}
    batch = len(observations)
    s0, s1, s2 = (_small_linear(flat[views.row_sizes[r]], *views.scalars[r]).reshape(batch, -1) for r in range(3))
    if views.out is None:
        return s0, s1, s2, None
    return s0, s1, s2, [_small_linear(flat[views.row_sizes[r]], *views.vectors[r]).reshape(batch, -1, len(views.out))
                        for r in range(3)]


#: no allowed split listed: a hand decided over its mask
NONE = np.zeros(0, dtype=np.int64)

#: a mask is decided sparsely (:func:`_sparse_choice`) when it holds at most this share of
#: the splits: a mask of candidates (``mask="undominated"``: about 100 of Thirteen's 72,072
#: splits, a few of Biji's 1,680), never a mask of every valid split (about 22,000 and 280)
SPARSE_SHARE = 1 / 64


@njit(cache=True)
def _sparse_decision(observation: np.ndarray, n: int, splits: np.ndarray, uniform: float, layers: tuple,
                     scalar_weight: np.ndarray, scalar_bias: np.ndarray, vector_weight: np.ndarray,
                     vector_bias: np.ndarray, out: np.ndarray) -> int:  # pragma: no cover - compiled
    """:func:`_sparse_choice` in one compiled call: the slots and context of a float32
    ``observation``, each subset size's row scores (``layers``: :meth:`_Views.first_layers`)
    and the pick."""
    slots = observation[: n * SLOT_FEATURES].reshape(1, n, SLOT_FEATURES)
    context = observation[n * SLOT_FEATURES:].reshape(1, -1)
    ranks, suits = slot_ids(slots)
    scores = np.empty((3, splits.shape[0]), dtype=np.float32)
    vectors = np.empty((3, splits.shape[0], vector_weight.shape[1]), dtype=np.float32)
    for layer in literal_unroll(layers):
        subsets, slot_weight, shape_weight, bias, context_weight, columns, rows, embed_weight, embed_bias = layer
        sparse_row_scores(slots, context, slot_weight, shape_weight, bias, context_weight, subsets, ranks, suits,
                          columns, splits, rows, embed_weight, embed_bias, scalar_weight, scalar_bias, vector_weight,
                          vector_bias, scores, vectors)
    return splits[sparse_pick(scores, vectors, out, uniform)]


@njit(cache=True)
def _sparse_decisions(observations: np.ndarray, n: int, splits: np.ndarray, starts: np.ndarray,
                      uniforms: np.ndarray, layers: tuple, scalar_weight: np.ndarray, scalar_bias: np.ndarray,
                      vector_weight: np.ndarray, vector_bias: np.ndarray,
                      out: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """:func:`_sparse_decision` of several hands in one call: hand ``i`` of ``observations``
    over ``splits[starts[i]:starts[i + 1]]`` with ``uniforms[i]``."""
    chosen = np.empty(observations.shape[0], dtype=np.int64)
    for i in range(observations.shape[0]):
        chosen[i] = _sparse_decision(observations[i], n, splits[starts[i]:starts[i + 1]], uniforms[i], layers,
                                     scalar_weight, scalar_bias, vector_weight, vector_bias, out)
    return chosen


def _sparse_batch(views: _Views, observations: np.ndarray, allowed: Sequence[np.ndarray],
                  uniforms: np.ndarray | None) -> np.ndarray:
    """:func:`_sparse_choice` of each hand of ``observations`` over its ``allowed`` splits,
    in one compiled call (a call's own cost is about half a sparse decision's)."""
    starts = np.zeros(len(allowed) + 1, dtype=np.int64)
    np.cumsum([len(a) for a in allowed], out=starts[1:])
    draws = np.full(len(allowed), -1.0) if uniforms is None else np.asarray(uniforms, dtype=np.float64)
    return _sparse_decisions(np.ascontiguousarray(observations, dtype=np.float32), views.n_slots,
                             np.concatenate(allowed), starts, draws, views.first_layers()[1], *views.heads(),
                             NO_OUT if views.out is None else views.out)


def _sparse_choice(views: _Views, observation: np.ndarray, splits: np.ndarray, uniform: float | None) -> int:
    """One hand's decision over few allowed ``splits`` (ascending): the hidden vectors,
    embeddings and row scores of just the subsets those splits use (each once, one pass per
    subset size: :func:`.subset_kernels.sparse_row_scores`), then the dense kernels' logits
    and draw over those splits alone (:func:`.split_kernels.sparse_pick`): the first of the
    highest, or the inverse CDF of ``uniform`` over the splits in index order."""
    return int(_sparse_decision(np.ascontiguousarray(observation, dtype=np.float32), views.n_slots, splits,
                                -1.0 if uniform is None else uniform, views.first_layers()[1], *views.heads(),
                                NO_OUT if views.out is None else views.out))


def few_allowed(mask: np.ndarray) -> np.ndarray:
    """The splits one hand's bool ``mask`` allows (ascending), when they are at most
    :data:`SPARSE_SHARE` of its splits (as a mask of candidates is); otherwise an empty
    array: such a mask is decided over these splits alone."""
    return few_marked(mask, int(len(mask) * SPARSE_SHARE))


#: hands decided together: a Thirteen hand's hidden and embedding arrays are about 500 KB, so
#: a few hands at a time stay in a core's L2 cache (64 at a time take 40% longer a hand)
CHUNK = 4


def choices(policy: SplitScorerPolicy, observations: np.ndarray, masks: np.ndarray,
            uniforms: np.ndarray | None, listed: Sequence[np.ndarray | None] | None = None,
            threads: int | None = None) -> np.ndarray:
    """One valid split per hand: as :meth:`.distribution.SplitDistribution.choices` of the policy's
    distribution (the inverse CDF of ``uniforms``, or the most likely split without them),
    :data:`CHUNK` hands at a time. The argmax of a scorer with an interaction term computes
    the term only for the valid splits that can still be chosen
    (:func:`.split_kernels.interacting_argmax`). A hand whose mask is sparse (its
    candidates, :data:`SPARSE_SHARE`) is decided alone, over its allowed splits only.
    ``listed``: per hand, its allowed splits as indices (ascending) where they are known
    so (a table core's candidates), else None; ``masks`` then holds the rows of the other
    hands only, in order. ``threads``: the torch threads of the dense hands' products (None:
    as set; :func:`torch_threads`), which the sparse ones do not use."""
    views = _views(policy)
    n_actions = masks.shape[1]
    limit = int(n_actions * SPARSE_SHARE)
    if listed is None:
        allowed = [few_marked(row, limit) for row in masks] if limit else []
        dense_masks = masks
    else:
        given = iter(masks)
        allowed, rows = [], []
        for splits in listed:
            if splits is None:
                row = next(given)
                splits = few_marked(row, limit) if limit else NONE
            elif not 0 < len(splits) <= limit:
                row = np.zeros(n_actions, dtype=bool)
                row[splits] = True
                splits = NONE
            if not len(splits):
                rows.append(row)
            allowed.append(splits)
        dense_masks = np.stack(rows) if rows else masks[:0]
    if len(allowed) == 1 and len(allowed[0]):  # one hand (an environment's agent), decided sparsely
        return np.array([_sparse_choice(views, observations[0], allowed[0],
                                        None if uniforms is None else float(uniforms[0]))], dtype=np.int64)
    chosen = np.empty(len(observations), dtype=np.int64)
    sparse = np.array([len(a) > 0 for a in allowed] if allowed else [False] * len(observations), dtype=bool)
    if sparse.any():
        picked = np.flatnonzero(sparse)
        chosen[picked] = _sparse_batch(views, observations[picked], [allowed[b] for b in picked.tolist()],
                                       None if uniforms is None else uniforms[picked])
    if sparse.all():
        return chosen
    dense = np.flatnonzero(~sparse)
    if len(dense) < len(observations):
        if listed is None:  # listed: its rows are the dense hands' already
            dense_masks = dense_masks[dense]
        observations = observations[dense]
        uniforms = None if uniforms is None else uniforms[dense]
    with torch_threads(threads):
        chosen[dense] = _dense_choices(views, observations, dense_masks, uniforms)
    return chosen


def _dense_choices(views: _Views, observations: np.ndarray, masks: np.ndarray,
                   uniforms: np.ndarray | None) -> np.ndarray:
    """One split per hand by the dense kernels over every split its mask allows, :data:`CHUNK`
    hands at a time."""
    out = np.empty(len(observations), dtype=np.int64)
    for start in range(0, len(observations), CHUNK):
        part = slice(start, start + CHUNK)
        if uniforms is None and views.out is not None:
            s0, s1, s2, vectors = _row_parts(views, observations[part])
            assert vectors is not None
            out[part] = choose_interacting(s0, s1, s2, vectors, views.tables, views.out, masks[part])
        else:
            s0, s1, s2, extra = _row_scores(views, observations[part])
            out[part] = choose_splits(s0, s1, s2, views.tables, extra, masks[part],
                                      None if uniforms is None else uniforms[part], views.row_masks)[0]
    return out
