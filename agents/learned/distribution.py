"""The split scorer's distribution: the masked categorical over the split index whose logits
are sums of row scores, computed by compiled kernels without a full-width logit tensor, and
over the marked splits alone when a mask marks few (:mod:`.sparse`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

from .sparse import MarkedSplits, carried, marked_choices, marked_logits, marked_splits, marked_statistics
from .split_kernels import choose_splits
from .subset_ops import SplitStatistics

if TYPE_CHECKING:
    from .networks import SplitScoreHead

class SplitDistribution(MaskableCategoricalDistribution):
    """The masked categorical over the split index, whose logits are sums of row scores.

    The same distribution as sb3-contrib's ``MaskableCategoricalDistribution`` over the
    logits that :class:`SplitScoreHead` returns, but computed from the row scores by the
    kernels of :mod:`.split_kernels`: log probabilities, entropy, samples and their
    gradients without a full-width logit tensor (72,072 a Thirteen hand). Off the CPU it
    falls back to the logits.

    Masks that mark few splits (the candidates, :func:`.sparse.marked_splits`, or the
    :class:`.sparse.MarkedSplits` the rollout buffer keeps of them) are read as each hand's
    list of marked splits: log probabilities, entropy and their gradients are torch
    operations over those splits' logits alone (:func:`.sparse.marked_logits`; a scorer's
    interaction term is then computed for the marked splits only), on any device. The
    full-width interaction term is computed only when a full-width pass needs it."""

    def proba_rows(self, head: SplitScoreHead, latent: th.Tensor) -> SplitDistribution:
        """The distribution of the hands whose subset embeddings are ``latent``."""
        return self.proba_parts(head, head.row_parts(latent))

    def proba_parts(self, head: SplitScoreHead,
                    parts: tuple[th.Tensor, th.Tensor, th.Tensor, list[th.Tensor] | None]) -> SplitDistribution:
        """The distribution of the hands whose row parts (:meth:`SplitScoreHead.row_parts`)
        are ``parts``."""
        self.head = head
        self._parts = parts
        self._rows: tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor | None] | None = None
        self._on_cpu = parts[0].device.type == "cpu"
        self._logits: th.Tensor | None = None
        self.masks: np.ndarray | None = None
        self.marked: MarkedSplits | None = None
        self._marked_stats: tuple[th.Tensor, th.Tensor, th.Tensor] | None = None
        self._entropy: th.Tensor | None = None
        self._drawn: tuple[np.ndarray, np.ndarray] | None = None
        return self

    def proba_distribution(self, action_logits: th.Tensor) -> SplitDistribution:
        raise TypeError("a SplitDistribution is built from row scores: use proba_rows")

    @property
    def rows(self) -> tuple[th.Tensor, th.Tensor, th.Tensor, th.Tensor | None]:
        """Each row position's score of every subset and the full-width interaction term
        (:meth:`SplitScoreHead.row_scores`), computed at the first use."""
        if self._rows is None:
            s0, s1, s2, vectors = self._parts
            self._rows = (s0, s1, s2, None if vectors is None else self.head.interactions_of(vectors))
        return self._rows

    @property
    def logits(self) -> th.Tensor | None:
        """Every split's logit off the CPU (for the fallback to sb3-contrib's distribution), None
        on the CPU."""
        if self._on_cpu:
            return None
        if self._logits is None:
            self._logits = self.head.logits_of(*self.rows)
        return self._logits

    @property
    def hands(self) -> int:
        return len(self._parts[0])

    def apply_masking(self, masks: Any) -> None:
        self._entropy = None
        self._drawn = None
        self._marked_stats = None
        self.masks, self.marked = None, None
        if masks is None:
            return
        self.marked = carried(masks)
        if self.marked is not None:
            return
        if isinstance(masks, th.Tensor):
            masks = masks.detach().cpu().numpy()
        masks = np.ascontiguousarray(masks, dtype=bool).reshape(self.hands, -1)
        self.marked = marked_splits(masks)
        if self.marked is None:
            self.masks = masks

    def _mask(self) -> np.ndarray:
        if self.marked is not None:
            return self.marked.dense()
        return self.masks if self.masks is not None else np.ones((self.hands, self.head.n_actions), dtype=bool)

    def _torch(self) -> MaskableCategoricalDistribution:
        """The same distribution as sb3-contrib builds it (used off the CPU)."""
        assert self.logits is not None, "the full-width logits are read only where they were built"
        fallback = MaskableCategoricalDistribution(self.head.n_actions).proba_distribution(self.logits)
        fallback.apply_masking(self.masks)
        return fallback

    # ------------------------------------------------------------------ over the marked splits
    def _logits_at(self, actions: th.Tensor, hands: th.Tensor | None = None) -> th.Tensor:
        """The logits ``(B, K)`` of the splits ``actions`` ``(B, K)`` (int64), from the row
        parts (the interaction term of these splits only); with ``hands`` ``(N,)``, the logits
        ``(N,)`` of the splits ``actions`` ``(N,)`` of those hands."""
        head = self.head
        return marked_logits(self._parts, head.columns(), head.out if head.split_hidden > 0 else None, actions,
                             hands)

    def _marked(self) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """The log normaliser ``(B,)`` and entropy ``(B,)`` over the marked splits, and their
        logits ``(N,)``, one after another hand by hand (:attr:`.sparse.MarkedSplits.flat`)."""
        if self._marked_stats is None:
            assert self.marked is not None
            device = self._parts[0].device
            hands, _, ids = (th.as_tensor(x, device=device) for x in self.marked.flat)
            logits = self._logits_at(ids, hands)
            log_z, entropy = marked_statistics(logits, hands, self.hands)
            self._marked_stats = (log_z, entropy, logits)
        return self._marked_stats

    def _marked_log_probs(self, actions: th.Tensor) -> th.Tensor:
        """The log probabilities ``(B, K)`` of the splits ``actions`` ``(B, K)`` under the
        distribution over the marked splits (``-inf`` where one is not marked)."""
        assert self.marked is not None
        log_z = self._marked()[0]
        dtype = self._parts[0].dtype
        log_p = (self._logits_at(actions).double() - log_z[:, None]).to(dtype)
        marks = th.as_tensor(self.marked.marks(actions.detach().cpu().numpy()), device=log_p.device)
        return log_p.masked_fill(~marks, -th.inf)

    # ------------------------------------------------------------------ the distribution
    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        if self.marked is not None:
            return self._marked_log_probs(actions.long().reshape(-1, 1))[:, 0]
        if self.logits is not None:
            return self._torch().log_prob(actions)
        s0, s1, s2, extra = self.rows
        chosen = actions.detach().cpu().numpy().astype(np.int64).reshape(-1)
        known = self._drawn[1] if self._drawn is not None and np.array_equal(self._drawn[0], chosen) else None
        log_p, self._entropy = SplitStatistics.apply(s0, s1, s2, extra, self.head.tables(), self._mask(), chosen,
                                                      known)
        return log_p

    def log_probs(self, actions: th.Tensor) -> th.Tensor:
        """The log probabilities ``(B, K)`` of each hand's ``K`` splits ``actions``, from one
        pass over the valid splits (:meth:`log_prob` of the first column) however large ``K``:
        ``log p(a_k) = log p(a_0) + logit(a_k) - logit(a_0)``. ValueError when one is not a
        valid split."""
        actions = actions.long()
        if self.marked is not None:
            chosen = actions.detach().cpu().numpy()
            require_valid(self.marked.marks(chosen), chosen)
            return self._marked_log_probs(actions)
        if self.logits is not None:
            return log_probs(self._torch(), actions)
        chosen = actions.detach().numpy()
        require_valid(self._mask()[np.arange(self.hands)[:, None], chosen], chosen)
        logits = self.head.logits_at(*self.rows, actions)
        return self.log_prob(actions[:, 0])[:, None] + logits - logits[:, :1]

    def entropy(self) -> th.Tensor:
        if self.marked is not None:
            return self._marked()[1].to(self._parts[0].dtype)
        if self.logits is not None:
            return self._torch().entropy()
        if self._entropy is None:
            self.log_prob(self.mode())
        assert self._entropy is not None
        return self._entropy

    def choices(self, uniforms: np.ndarray | None) -> np.ndarray:
        """One valid split per hand: the inverse CDF of ``uniforms`` (one in [0, 1) per
        hand), or the most likely split (the first of equals) without them. Drawn splits
        keep their log probabilities and the entropy, computed in the same pass, for a
        following :meth:`log_prob` of the same actions."""
        if self.marked is not None:
            hands, places, _ = self.marked.flat
            flat = self._marked()[2].detach().cpu().numpy()
            logits = np.full(self.marked.ids.shape, -np.inf, dtype=flat.dtype)
            logits[hands, places] = flat
            return marked_choices(logits, self.marked, uniforms)
        if self.logits is not None:
            fallback = self._torch()
            if uniforms is None:
                return fallback.mode().cpu().numpy()
            probs = fallback.distribution.probs.double().cpu().numpy()
            return np.minimum((probs.cumsum(1) <= uniforms[:, None]).sum(1), self.head.n_actions - 1)
        s0, s1, s2, extra = (None if x is None else x.detach().numpy() for x in self.rows)
        assert s0 is not None and s1 is not None and s2 is not None
        chosen, statistics = choose_splits(s0, s1, s2, self.head.tables(), extra, self._mask(), uniforms,
                                           self.head.row_masks)
        self._drawn = (chosen, statistics) if uniforms is not None else None
        return chosen

    def sample(self) -> th.Tensor:
        return th.as_tensor(self.choices(th.rand(self.hands, dtype=th.float64).numpy()))

    def mode(self) -> th.Tensor:
        return th.as_tensor(self.choices(None))


def require_valid(valid: np.ndarray, actions: np.ndarray) -> None:
    """ValueError naming the first of ``actions`` (B, K) whose ``valid`` bit is off."""
    if not valid.all():
        b, k = np.argwhere(~valid)[0]
        raise ValueError(f"action {actions[b, k]} of hand {b} is not a valid split")


def log_probs(distribution: MaskableCategoricalDistribution, actions: th.Tensor) -> th.Tensor:
    """The log probabilities ``(B, K)`` of each hand's ``K`` valid splits ``actions`` under a
    policy's masked distribution: a split scorer's in one pass over the valid splits
    (:meth:`SplitDistribution.log_probs`), another's gathered from its normalised logits."""
    if isinstance(distribution, SplitDistribution):
        return distribution.log_probs(actions)
    actions = actions.long()
    masks = distribution.distribution.masks
    if masks is not None:
        require_valid(masks.gather(1, actions).cpu().numpy(), actions.cpu().numpy())
    return distribution.distribution.logits.gather(1, actions)
