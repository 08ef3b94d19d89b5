"""The torch networks of the learned policies: the two kinds that ``splitpoker train`` trains
(their names and settings: :mod:`.policy_kinds`), and a fresh policy built from a saved
policy's description.

Both are sb3-contrib ``MaskableActorCriticPolicy`` classes over the flat observation of
:mod:`splitpoker.envs.observation`:

``mlp``
    SB3's own actor-critic MLP: hidden layers ``net_arch``, then one linear output per
    split (72,072 for Thirteen, 1,680 for Biji).
``split_scorer``
    Scores every split with shared weights from the rows it forms (:class:`SplitScorerPolicy`).
    The hand's slots are decoded from the observation's per-slot one-hots; every 3-card and
    5-card subset of slots gets an embedding (an MLP over its cards' features, their rank and
    suit counts and straight windows, plus the seat/table/rule features), computed once per
    hand. Each row position maps a subset embedding to a scalar and to a small vector; a
    split's logit is the sum of its three rows' scalars plus ``w · relu(sum of their
    vectors)``, gathered through ``SplitIndex.table``. The head's size does not depend on the
    number of splits. The value comes from the mean and max of the subset embeddings. On the
    CPU the first layer runs as compiled kernels (:mod:`.subset_kernels`), the distribution
    over the split index too (:mod:`.split_kernels`); agents that only decide compute the
    same function without torch's per-operator cost (:mod:`.split_inference`, which reads
    the weights through :meth:`SplitScorerPolicy.inference_parameters`).

The ``offered`` kind reads the offered-splits observation instead (a slot among a seat's
offered splits, each with a feature row): :mod:`.offered_policy`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import Schedule
from torch import nn
from torch.utils.checkpoint import checkpoint as grad_checkpoint

from ...envs.games import game_class, make_game
from ...envs.observation import SLOT_FEATURES
from ...envs.offered import offered_width
from .distribution import SplitDistribution
from .policy_kinds import MLP_ARCH_KINDS, OFFER_KINDS, POLICY_KINDS, check_arch
from .sparse import MarkedSplits, as_masks, carried, marked_splits
from .subset_kernels import (
    MAX_SLOTS,
    MAX_SUBSET,
    first_layer_weights,
    slot_ids,
    subset_shapes,
)
from .subset_ops import PooledEmbeddings, SubsetHidden, subset_feature_size

#: the torch modules of an ``mlp`` policy's activations (:data:`.policy_kinds.ACTIVATIONS`)
ACTIVATION_MODULES: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh}
#: floats of the (batch, splits, split_hidden) interaction computed at once
_CHUNK_FLOATS = 1 << 22


def _linears(layers: nn.ModuleDict) -> dict[int, nn.Linear]:
    """The linear layers of a module dict keyed by subset size."""
    return {int(k): cast(nn.Linear, layer) for k, layer in layers.items()}


# --------------------------------------------------------------------------- split scorer
@dataclasses.dataclass(frozen=True)
class SubsetLayers:
    """One subset size's layers of a split scorer's extractor: the ``size`` (cards a subset),
    the ``subsets`` (``(C(n, size), size)`` slot ids, int64), the first layer over their
    cards' features (``card_weight`` ``(h, f)``, ``card_bias`` ``(h,)``) and over the
    context (``context_weight`` ``(h, c)``), and the embedding layer (``embed_weight``
    ``(e, h)``, ``embed_bias`` ``(e,)``). The tensors are the policy's parameters themselves."""

    size: int
    subsets: np.ndarray
    card_weight: th.Tensor
    card_bias: th.Tensor
    context_weight: th.Tensor
    embed_weight: th.Tensor
    embed_bias: th.Tensor


@dataclasses.dataclass(frozen=True)
class RowLayers:
    """One row position's layers of a split scorer's head: the row's ``size`` (cards), its
    score of a subset embedding (``score_weight`` ``(1, e)``, ``score_bias`` ``(1,)``) and,
    in a scorer with an interaction term, its vector (``vector_weight`` ``(v, e)``,
    ``vector_bias`` ``(v,)``, which only the first row has); None where there is none. The
    tensors are the policy's parameters themselves."""

    size: int
    score_weight: th.Tensor
    score_bias: th.Tensor
    vector_weight: th.Tensor | None
    vector_bias: th.Tensor | None


@dataclasses.dataclass(frozen=True)
class ScorerParameters:
    """What a split scorer's decision reads, for inference outside torch
    (:mod:`.split_inference`): the hand's ``n_slots``, each subset size's layers (ascending
    sizes), each row position's layers, the interaction term's output weights ``(1, v)``
    (None without one), and the split table's columns and the row positions' subset masks
    (:meth:`SplitScoreHead.tables`, :attr:`SplitScoreHead.row_masks`)."""

    n_slots: int
    subset_layers: tuple[SubsetLayers, ...]
    row_layers: tuple[RowLayers, ...]
    out_weight: th.Tensor | None
    tables: tuple[np.ndarray, ...]
    row_masks: tuple[np.ndarray, ...]


class SplitScorerExtractor(nn.Module):
    """Subset embeddings for the actor (flattened, one block per subset size) and pooled
    features for the critic, from the flat observation."""

    def __init__(self, game: str, features_dim: int, subset_hidden: int, embed_dim: int, value_hidden: int) -> None:
        super().__init__()
        index = game_class(game).split_index
        self.n_slots = index.n_slots
        self.sizes = tuple(sorted(set(index.row_sizes)))
        self.context_dim = features_dim - self.n_slots * SLOT_FEATURES
        if max(self.sizes) > MAX_SUBSET or self.n_slots > MAX_SLOTS:
            raise ValueError(f"the split scorer reads rows of at most {MAX_SUBSET} cards from hands of at most "
                             f"{MAX_SLOTS} slots, not rows of {max(self.sizes)} from {self.n_slots}")
        if self.context_dim < 0:
            raise ValueError(f"observation of {features_dim} values is too short for a {game} hand")
        self.embed_dim = embed_dim
        self._subset_ids: dict[int, np.ndarray] = {}
        for k in self.sizes:
            subsets = th.as_tensor(index.subsets(k), dtype=th.long)  # (m, k) slot ids
            rows = th.arange(len(subsets))
            # incidence of (subset, position × slot)
            positions = th.zeros(len(subsets), k * self.n_slots)
            for position in range(k):
                positions[rows, position * self.n_slots + subsets[:, position]] = 1.0
            self._subset_ids[k] = subsets.numpy()
            self.register_buffer(f"positions_{k}", positions, persistent=False)
        self.card_layers = nn.ModuleDict({str(k): nn.Linear(subset_feature_size(k), subset_hidden)
                                          for k in self.sizes})
        self.context_layers = nn.ModuleDict({str(k): nn.Linear(self.context_dim, subset_hidden, bias=False)
                                             for k in self.sizes})
        self.embed_layers = nn.ModuleDict({str(k): nn.Linear(subset_hidden, embed_dim) for k in self.sizes})
        pooled = 2 * embed_dim * len(self.sizes) + self.context_dim
        self.value_layer = nn.Sequential(nn.Linear(pooled, value_hidden), nn.ReLU())
        self.n_subsets = {k: math.comb(self.n_slots, k) for k in self.sizes}
        self.latent_dim_pi = sum(self.n_subsets.values()) * embed_dim
        self.latent_dim_vf = value_hidden

    def subsets(self, k: int) -> np.ndarray:
        """The subsets of ``k`` slots ``(C(n, k), k)``, as slot ids (int64) in the order of
        their embeddings."""
        return self._subset_ids[k]

    def subset_layers(self) -> tuple[SubsetLayers, ...]:
        """Each subset size's subsets and layers, ascending sizes."""
        card, context, embed = (_linears(d) for d in (self.card_layers, self.context_layers, self.embed_layers))
        return tuple(SubsetLayers(k, self.subsets(k), card[k].weight, card[k].bias, context[k].weight,
                                  embed[k].weight, embed[k].bias) for k in self.sizes)

    def embeddings(self, features: th.Tensor) -> dict[int, th.Tensor]:
        """``{k: (batch, C(n, k), embed_dim)}``.

        The first layer is ``card_layers[k]`` applied to :func:`subset_features`, computed
        without building those features subset by subset: the part linear in the cards
        (their one-hots in slot order, and the rank, suit and joker counts, which are sums
        over the cards) is a sum of per-slot projections made once per hand, one per
        position in the subset; only the few nonlinear features (count profile, one suit,
        straight windows) are computed per subset, from its rank and suit counts. On the
        CPU the kernels of :mod:`.subset_kernels` read the projections through the subset
        table; elsewhere a product with the subsets' position incidence does."""
        slots, context, ranks, suits = self._hand(features)
        out = {}
        for k in self.sizes:
            hidden = self.hidden(k, slots, context, ranks, suits)
            out[k] = th.relu(self.embed_layers[str(k)](hidden))
        return out

    def _hand(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor, np.ndarray, np.ndarray]:
        """The slots' one-hots ``(B, n, 19)``, the context ``(B, c)`` and the slots' rank and
        suit ids (:func:`.subset_kernels.slot_ids`) of the flat observations."""
        slots = features[:, : self.n_slots * SLOT_FEATURES].reshape(-1, self.n_slots, SLOT_FEATURES)
        context = features[:, self.n_slots * SLOT_FEATURES:]
        ranks, suits = slot_ids(slots.detach().cpu().numpy())
        return slots, context, ranks, suits

    def hidden(self, k: int, slots: th.Tensor, context: th.Tensor, ranks: np.ndarray,
               suits: np.ndarray) -> th.Tensor:
        """The first layer of every ``k``-card subset ``(B, C(n, k), subset_hidden)``."""
        subsets = self.subsets(k)
        if slots.device.type == "cpu":
            return SubsetHidden.apply(*self._first_layer_inputs(k, slots, context), subsets, ranks, suits)
        projected, shape_weight, base = self._first_layer_inputs(k, slots, context)
        linear = (getattr(self, f"positions_{k}") @ projected.reshape(k * self.n_slots, -1))
        shapes = th.from_numpy(subset_shapes(ranks, suits, subsets)).to(slots.device)
        hidden = th.baddbmm(base[:, None, :], shapes,
                            shape_weight.expand(len(slots), -1, -1))
        return th.relu(hidden + linear.view(-1, len(slots), shape_weight.shape[1]).transpose(0, 1))

    def _first_layer_inputs(self, k: int, slots: th.Tensor, context: th.Tensor
                            ) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """The per-slot projections ``(k, n, B, h)``, the shape weights ``(f, h)`` and the
        per-hand bias ``(B, h)`` of the first layer of ``k``-card subsets (contiguous)."""
        layer = self.card_layers[str(k)]
        per_position, shape_weight = first_layer_weights(layer.weight, k)
        projected = th.einsum("bnf,hpf->pnbh", slots, per_position)  # (k, n, B, h)
        base = layer.bias + self.context_layers[str(k)](context)  # (B, h)
        return projected.contiguous(), shape_weight.contiguous(), base.contiguous()

    def pooled_parts(self, features: th.Tensor, head: SplitScoreHead
                     ) -> tuple[th.Tensor, tuple[th.Tensor, th.Tensor, th.Tensor, list[th.Tensor] | None]]:
        """The critic's latent ``(B, value_hidden)`` and the head's row parts
        (:meth:`SplitScoreHead.row_parts`) without the actor's latent: the same function as
        :meth:`forward` then ``head.row_parts``, up to float rounding, computed for the
        training over few marked splits (:meth:`SplitScorerPolicy.evaluate_actions`). Each
        subset size's embeddings are pooled and projected onto the row positions' score and
        vector weights in one operation (:class:`PooledEmbeddings`), whose backward is one
        pass over them, then two products."""
        slots, context, ranks, suits = self._hand(features)
        pooled: list[th.Tensor] = []
        scores: dict[int, th.Tensor] = {}
        vectors: dict[int, th.Tensor] = {}
        v = head.split_hidden
        for k in self.sizes:
            rows = [r for r in range(3) if head.row_sizes[r] == k]
            weights = [cast(nn.Linear, head.row_scalars[r]).weight for r in rows]
            if v > 0:
                weights += [cast(nn.Linear, head.row_vectors[r]).weight for r in rows]
            layer = self.embed_layers[str(k)]
            if slots.device.type == "cpu":
                mean, most, projections = PooledEmbeddings.apply(*self._first_layer_inputs(k, slots, context),
                                                                  layer.weight, layer.bias, th.cat(weights),
                                                                  self.subsets(k), ranks, suits)
            else:
                emb = th.relu(layer(self.hidden(k, slots, context, ranks, suits)))
                mean, most, projections = emb.mean(1), emb.amax(1), emb @ th.cat(weights).t()
            pooled += [mean, most]
            for i, r in enumerate(rows):
                scores[r] = projections[..., i] + head.row_scalars[r].bias
                if v > 0:
                    start = len(rows) + i * v
                    vector = projections[..., start:start + v]
                    bias = head.row_vectors[r].bias
                    vectors[r] = vector if bias is None else vector + bias
        latent_vf = self.value_layer(th.cat([*pooled, context], -1))
        return latent_vf, (scores[0], scores[1], scores[2], [vectors[r] for r in range(3)] if v > 0 else None)

    def _pooled(self, features: th.Tensor, emb: dict[int, th.Tensor]) -> th.Tensor:
        context = features[:, self.n_slots * SLOT_FEATURES:]
        parts = [p for k in self.sizes for p in (emb[k].mean(1), emb[k].amax(1))]
        return self.value_layer(th.cat([*parts, context], -1))

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        emb = self.embeddings(features)
        latent_pi = th.cat([emb[k].flatten(1) for k in self.sizes], 1)
        return latent_pi, self._pooled(features, emb)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        emb = self.embeddings(features)
        return th.cat([emb[k].flatten(1) for k in self.sizes], 1)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self._pooled(features, self.embeddings(features))


class SplitScoreHead(nn.Module):
    """One logit per split from the subset embeddings of its three rows (shared weights)."""

    #: the split table's columns, registered buffers (each row's subset id per split)
    rows_0: th.Tensor
    rows_1: th.Tensor
    rows_2: th.Tensor

    def __init__(self, game: str, embed_dim: int, split_hidden: int) -> None:
        super().__init__()
        index = game_class(game).split_index
        self.row_sizes = index.row_sizes
        self.sizes = tuple(sorted(set(index.row_sizes)))
        self.n_subsets = {k: math.comb(index.n_slots, k) for k in self.sizes}
        self.embed_dim = embed_dim
        self.split_hidden = split_hidden
        self.n_actions = index.n_actions
        #: each row position's subsets as the bits of their slots (int64, indexed like the
        #: subset ids of :meth:`tables`), for the argmax's first-row bounds
        self.row_masks = tuple(index.subset_masks(k) for k in index.row_sizes)
        table = th.as_tensor(index.table.astype(np.int64))
        for r in range(3):
            self.register_buffer(f"rows_{r}", table[:, r].contiguous(), persistent=False)
        self.row_scalars = nn.ModuleList([nn.Linear(embed_dim, 1) for _ in range(3)])
        if split_hidden > 0:
            self.row_vectors = nn.ModuleList([nn.Linear(embed_dim, split_hidden, bias=r == 0) for r in range(3)])
            self.out = nn.Linear(split_hidden, 1, bias=False)

    def _split(self, latent: th.Tensor) -> dict[int, th.Tensor]:
        out, start = {}, 0
        for k in self.sizes:
            stop = start + self.n_subsets[k] * self.embed_dim
            out[k] = latent[:, start:stop].reshape(-1, self.n_subsets[k], self.embed_dim)
            start = stop
        return out

    def _interaction(self, vectors: list[th.Tensor], start: int, stop: int) -> th.Tensor:
        hidden = vectors[0][:, self.rows_0[start:stop]]
        hidden = hidden + vectors[1][:, self.rows_1[start:stop]]
        hidden = hidden + vectors[2][:, self.rows_2[start:stop]]
        return self.out(th.relu(hidden)).squeeze(-1)

    def tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The split table's three columns (each row's subset id) as NumPy arrays of the
        narrowest unsigned type that holds them (uint16 for both games: a Thirteen scan reads
        432 KB of table, which stays in a core's L2 cache, and is about a fifth faster than
        with int32)."""
        if not hasattr(self, "_tables"):
            columns = [getattr(self, f"rows_{r}").cpu().numpy() for r in range(3)]
            dtype = np.uint16 if max(int(c.max(initial=0)) for c in columns) < 1 << 16 else np.int32
            self._tables = tuple(c.astype(dtype) for c in columns)
        return self._tables

    def row_layers(self) -> tuple[RowLayers, ...]:
        """Each row position's score and vector layers."""
        scalars = [cast(nn.Linear, layer) for layer in self.row_scalars]
        vectors = [cast(nn.Linear, layer) for layer in self.row_vectors] if self.split_hidden > 0 else None
        return tuple(RowLayers(self.row_sizes[r], scalars[r].weight, scalars[r].bias,
                               None if vectors is None else vectors[r].weight,
                               None if vectors is None else vectors[r].bias) for r in range(3))

    def row_scores(self, latent: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor | None]:
        """Each row position's score of every subset ``(B, C(n, k))``, and the interaction
        term of every split ``(B, n_actions)`` (None without one): a split's logit is the
        sum of its rows' scores plus its interaction term."""
        s0, s1, s2, vectors = self.row_parts(latent)
        return s0, s1, s2, (None if vectors is None else self.interactions_of(vectors))

    def row_parts(self, latent: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor, list[th.Tensor] | None]:
        """Each row position's score of every subset ``(B, C(n, k))`` and, in a scorer with an
        interaction term, its vector of every subset ``(B, C(n, k), split_hidden)`` (None
        without one): what :meth:`row_scores` reads, before the full-width interaction term."""
        emb = self._split(latent)
        s0, s1, s2 = (self.row_scalars[r](emb[self.row_sizes[r]]).squeeze(-1) for r in range(3))
        return s0, s1, s2, (self._vectors(emb) if self.split_hidden > 0 else None)

    def columns(self) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """The split table's three columns (each row's subset id per split, int64 tensors)."""
        return self.rows_0, self.rows_1, self.rows_2

    def logits_of(self, s0: th.Tensor, s1: th.Tensor, s2: th.Tensor, extra: th.Tensor | None) -> th.Tensor:
        """Every split's logit ``(B, n_actions)`` from :meth:`row_scores`."""
        logits = s0.index_select(1, self.rows_0) + s1.index_select(1, self.rows_1) + s2.index_select(1, self.rows_2)
        return logits if extra is None else logits + extra

    def logits_at(self, s0: th.Tensor, s1: th.Tensor, s2: th.Tensor, extra: th.Tensor | None,
                  actions: th.Tensor) -> th.Tensor:
        """The logits ``(B, K)`` of each hand's ``K`` splits ``actions`` (int64 ``(B, K)``)
        from :meth:`row_scores`, without the full width."""
        logits = (s0.gather(1, self.rows_0[actions]) + s1.gather(1, self.rows_1[actions])
                  + s2.gather(1, self.rows_2[actions]))
        return logits if extra is None else logits + extra.gather(1, actions)

    def forward(self, latent: th.Tensor) -> th.Tensor:
        return self.logits_of(*self.row_scores(latent))

    def _vectors(self, emb: dict[int, th.Tensor]) -> list[th.Tensor]:
        return [self.row_vectors[r](emb[self.row_sizes[r]]) for r in range(3)]

    def interactions_of(self, vectors: list[th.Tensor]) -> th.Tensor:
        """The interaction term of every split ``(B, n_actions)`` from each row position's
        vectors (:meth:`row_parts`)."""
        batch = vectors[0].shape[0]
        chunk = max(256, _CHUNK_FLOATS // max(1, batch * self.split_hidden))
        if chunk >= self.n_actions:
            return self._interaction(vectors, 0, self.n_actions)
        parts = []
        for start in range(0, self.n_actions, chunk):
            stop = min(start + chunk, self.n_actions)
            if th.is_grad_enabled():
                parts.append(grad_checkpoint(self._interaction, vectors, start, stop, use_reentrant=False))
            else:
                parts.append(self._interaction(vectors, start, stop))
        return th.cat(parts, 1)


class SplitScorerPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` whose actor scores splits from row embeddings."""

    #: takes a minibatch's few-split masks as :class:`.sparse.MarkedSplits` (the rollout buffer's
    #: ``lists_read``), without the bool masks that carry them
    reads_marked_lists = True

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, lr_schedule: Schedule,
                 game: str = "thirteen", subset_hidden: int = 64, embed_dim: int = 32, split_hidden: int = 8,
                 value_hidden: int = 64, **kwargs: Any) -> None:
        n_actions = game_class(game).split_index.n_actions
        if not isinstance(action_space, spaces.Discrete) or int(action_space.n) != n_actions:
            raise ValueError(f"the split scorer for {game} needs Discrete({n_actions}) actions, "
                             f"got {action_space}")
        self.game_name = game
        self.subset_hidden = subset_hidden
        self.embed_dim = embed_dim
        self.split_hidden = split_hidden
        self.value_hidden = value_hidden
        kwargs.setdefault("net_arch", [])
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(game=self.game_name, subset_hidden=self.subset_hidden, embed_dim=self.embed_dim,
                    split_hidden=self.split_hidden, value_hidden=self.value_hidden)
        return data

    def inference_parameters(self) -> ScorerParameters:
        """The tables and parameters a decision reads (the parameters themselves, not copies:
        an optimiser step or ``load_state_dict`` changes them in place)."""
        extractor, head = self.mlp_extractor, self.action_net
        assert isinstance(extractor, SplitScorerExtractor) and isinstance(head, SplitScoreHead)
        return ScorerParameters(extractor.n_slots, extractor.subset_layers(), head.row_layers(),
                                head.out.weight if head.split_hidden > 0 else None, head.tables(), head.row_masks)

    def _marked(self, action_masks: Any) -> MarkedSplits | None:
        """The masks as lists of marked splits when they mark few (:func:`.sparse.marked_splits`)."""
        if action_masks is None or not self.share_features_extractor:
            return None
        marked = carried(action_masks)
        if marked is not None:
            return marked
        if isinstance(action_masks, th.Tensor):
            action_masks = action_masks.detach().cpu().numpy()
        return marked_splits(np.asarray(action_masks, dtype=bool).reshape(-1, cast(SplitScoreHead,
                                                                                   self.action_net).n_actions))

    def _over_marked(self, obs: th.Tensor, marked: MarkedSplits) -> tuple[th.Tensor, SplitDistribution]:
        """The values and the distribution over the marked splits, without the actor's
        full-width latent: on the CPU by :meth:`SplitScorerExtractor.pooled_parts`."""
        extractor, head = self.mlp_extractor, self.action_net
        assert isinstance(extractor, SplitScorerExtractor) and isinstance(head, SplitScoreHead)
        features = self.extract_features(obs)
        assert isinstance(features, th.Tensor)
        if features.device.type == "cpu":
            latent_vf, parts = extractor.pooled_parts(features, head)
        else:
            latent_pi, latent_vf = extractor(features)
            parts = head.row_parts(latent_pi)
        assert isinstance(self.action_dist, SplitDistribution)
        distribution = self.action_dist.proba_parts(head, parts)
        distribution.apply_masking(marked)
        return self.value_net(latent_vf), distribution

    def forward(self, obs: th.Tensor, deterministic: bool = False,
                action_masks: np.ndarray | None = None) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """sb3-contrib's forward; over few marked splits (the candidates), computed over those
        splits alone (:meth:`_over_marked`)."""
        marked = self._marked(action_masks)
        if marked is None:
            return super().forward(obs, deterministic, as_masks(action_masks))
        values, distribution = self._over_marked(obs, marked)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob  # type: ignore[misc]

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor,
                         action_masks: th.Tensor | None = None) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
        """sb3-contrib's values, log probabilities and entropy; over few marked splits (the
        candidates, or the :class:`.sparse.MarkedSplits` the rollout buffer keeps of them),
        computed over those splits and without the actor's full-width latent
        (:meth:`_over_marked`): the same values up to float rounding. Masks of every valid
        split take sb3-contrib's own path."""
        marked = self._marked(action_masks)
        if marked is None:
            return super().evaluate_actions(obs, actions, as_masks(action_masks))
        values, distribution = self._over_marked(obs, marked)
        return values, distribution.log_prob(actions), distribution.entropy()

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor) -> SplitDistribution:
        assert isinstance(self.action_dist, SplitDistribution)
        return self.action_dist.proba_rows(cast(SplitScoreHead, self.action_net), latent_pi)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = SplitScorerExtractor(  # type: ignore[assignment]  # SB3 declares its own MLP
            self.game_name, self.features_dim, self.subset_hidden, self.embed_dim, self.value_hidden)

    def _build(self, lr_schedule: Schedule) -> None:
        self.action_dist = SplitDistribution(self.action_dist.action_dim)  # type: ignore[attr-defined]
        self._build_mlp_extractor()
        self.action_net = SplitScoreHead(self.game_name, self.embed_dim, self.split_hidden)
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        if self.ortho_init:
            self.mlp_extractor.apply(lambda m: self.init_weights(m, gain=math.sqrt(2)))
            self.value_net.apply(lambda m: self.init_weights(m, gain=1.0))
            head = self.action_net
            head.row_scalars.apply(lambda m: self.init_weights(m, gain=0.01))
            if head.split_hidden > 0:
                head.row_vectors.apply(lambda m: self.init_weights(m, gain=1.0))
                head.out.apply(lambda m: self.init_weights(m, gain=0.01))
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]  # every torch optimizer takes lr
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)


# --------------------------------------------------------------------------- building
def policy_class(kind: str) -> type[MaskableActorCriticPolicy]:
    """The SB3 policy class of a policy kind (:data:`~.policy_kinds.POLICY_KINDS`)."""
    return POLICY_KINDS[kind]


def policy_kwargs(kind: str, arch: Mapping[str, Any], game: str, prefix: str = "policy.") -> dict[str, Any]:
    """SB3 ``policy_kwargs`` for a policy kind from its architecture settings (see
    :func:`.policy_kinds.check_arch`; a bad one is a ValueError naming ``prefix`` + its key)."""
    arch = check_arch(kind, arch, prefix)
    if kind in MLP_ARCH_KINDS:
        net_arch = arch["net_arch"]
        if not isinstance(net_arch, dict):
            net_arch = {"pi": list(net_arch), "vf": list(net_arch)}
        kwargs = {"net_arch": net_arch, "activation_fn": ACTIVATION_MODULES[arch["activation"]]}
        return {"game": game, **kwargs} if kind in OFFER_KINDS else kwargs
    return {"game": game, **arch}


def build_policy(meta: Mapping[str, Any], *, initialise: bool = True) -> MaskableActorCriticPolicy:
    """A fresh policy module (CPU, eval mode) of the kind and architecture in ``meta`` (a
    kind of :data:`~.policy_kinds.OFFER_KINDS` over its ``offer`` splits).
    ``initialise=False`` skips the orthogonal initialisation (a QR decomposition per layer,
    most of the time it takes to build one), for a module whose weights are loaded next."""
    game = meta["game"]
    size, n = int(meta["observation_size"]), int(meta["n_actions"])
    if meta["policy"]["kind"] in OFFER_KINDS:  # the seat vector, then ``offer`` feature rows; a slot of them
        n = int(meta["offer"])
        size += n * offered_width(make_game(game))
    obs_space = spaces.Box(-np.inf, np.inf, (size,), np.float32)
    act_space = spaces.Discrete(n)
    cls = policy_class(meta["policy"]["kind"])
    kwargs: dict[str, Any] = policy_kwargs(meta["policy"]["kind"], meta["policy"]["arch"], game, prefix="policy.arch.")
    if not initialise:
        kwargs["ortho_init"] = False
    return cls(obs_space, act_space, lambda _: 0.0, **kwargs).eval()


def action_logits(policy: MaskableActorCriticPolicy, obs: th.Tensor) -> th.Tensor:
    """Unmasked logits ``(batch, n_actions)`` of a policy for a batch of observations."""
    features = policy.extract_features(obs, policy.pi_features_extractor)
    return policy.action_net(policy.mlp_extractor.forward_actor(features))  # type: ignore[arg-type]  # one extractor
