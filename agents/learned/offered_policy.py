"""The ``offered`` policy kind: :class:`OfferedSplitsPolicy`, an sb3-contrib
``MaskableActorCriticPolicy`` for the offered-splits action space (:mod:`splitpoker.envs.offered`).

There a seat is offered up to ``K`` of its candidate splits, each with a row of ``F``
features (:func:`~splitpoker.envs.offered.offered_labels`), and its action is a slot
``0..K-1`` under a ``(K,)`` mask of the filled slots. The observation is
``concat(seat vector (D,), features (K*F,))``: ``D`` is the index form's observation
(:func:`~splitpoker.envs.observation.observation_size`), ``F``
:func:`~splitpoker.envs.offered.offered_width`, both fixed by the game, so the policy reads
``K`` off the sizes of its spaces (``Discrete(K)`` actions, ``D + K*F`` observations) and,
given no ``game``, the game too (the one registered game whose sizes fit).

The network:

* **actor**: one MLP (hidden widths ``net_arch``'s ``pi``, then one output) scores each
  slot from its feature row, the same weights in every slot; the ``K`` scores are the logits.
  Permuting the slots permutes the logits, the mask keeps empty slots from being chosen,
  and the weights do not depend on ``K``: a policy trained over ``K`` splits scores any
  number of them.
* **critic**: an MLP (hidden widths ``vf``, then one output) over the seat vector and the
  mean and the maximum of the filled slots' feature rows. A filled slot's row is never all
  zeros (each row position's type one-hot holds a 1) and an empty slot's is, so the critic
  finds the filled slots without the mask.
* **scale**: both read the feature rows divided by ``feature_scale`` (``(F,)``, kept with
  the weights, so that a saved policy reads its features as it was trained): 1 for the
  columns within ``[-1, 1]`` (one-hots, ranks, shares), and for the columns counted in
  points (bonus, value, value gap) the largest magnitude their bounds allow at the game's
  largest table (:func:`feature_scale`).

Keywords (``policy_kwargs``): ``game`` (a game's name; None: read off the spaces),
``net_arch`` (a list of hidden widths for both MLPs, or ``{"pi": [...], "vf": [...]}``;
default ``[64, 64]``) and ``activation_fn`` (default ``nn.ReLU``). As the policy kind
``offered`` (:mod:`.policy_kinds`) its settings are ``net_arch`` and ``activation``
(``relu`` or ``tanh``), and a saved policy's ``splitpoker.json`` records the ``offer`` ``K``
it decides over (:mod:`.checkpoint`); a ``checkpoint:`` agent of this kind decides from the
view's offered splits (:class:`~.policy.PolicyAgent`).

For example (not run as a doctest: it trains a model)::

    from sb3_contrib import MaskablePPO
    from splitpoker.agents.learned.offered_policy import OfferedSplitsPolicy
    from splitpoker.train.selfplay import SelfPlayEnv

    env = SelfPlayEnv("biji", 4, opponents="greedy", actions="offered", offer=16)
    model = MaskablePPO(OfferedSplitsPolicy, env, policy_kwargs={"net_arch": [64, 64]}).learn(4096)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.type_aliases import Schedule
from torch import nn

from ...envs.game import Game
from ...envs.games import GAMES, make_game
from ...envs.observation import observation_size
from ...envs.offered import offered_bounds, offered_width
from .policy_kinds import check_width

__all__ = ["OfferedSplitsPolicy", "OfferedExtractor", "SlotHead", "feature_scale", "offered_layout",
           "read_offer"]

#: the default hidden widths of the scorer and of the critic
DEFAULT_ARCH = (64, 64)
#: the activations :meth:`OfferedSplitsPolicy.slot_scores` applies without their modules (in place)
_ACTIVATIONS: dict[type[nn.Module], Any] = {nn.ReLU: th.relu_, nn.Tanh: th.tanh_}


@functools.cache
def _sizes(game: str) -> tuple[int, int]:
    """The seat vector's length ``D`` and the feature row's width ``F`` of a game."""
    the_game = make_game(game)
    return observation_size(the_game), offered_width(the_game)


def offered_layout(size: int, offer: int, game: str | None = None) -> tuple[str, int, int]:
    """The game whose offered observation of ``offer`` splits has ``size`` values, with its
    ``D`` and ``F`` (``size = D + offer * F``): ``game`` when given and it fits, else the one
    registered game that fits. ValueError naming the sizes when none fits, or when several
    do and no ``game`` is given.

    >>> name, d, f = offered_layout(_sizes("biji")[0] + 8 * _sizes("biji")[1], 8)
    >>> name, d + 8 * f == _sizes("biji")[0] + 8 * _sizes("biji")[1]
    ('biji', True)
    """
    names = list(GAMES) if game is None else [GAMES.check(game)]
    fits = [name for name in names if _sizes(name)[0] + offer * _sizes(name)[1] == size]
    if len(fits) == 1:
        return fits[0], *_sizes(fits[0])
    expected = "; ".join(f"{name}: {_sizes(name)[0]} + {offer} x {_sizes(name)[1]} = "
                         f"{_sizes(name)[0] + offer * _sizes(name)[1]}" for name in names)
    if fits:
        raise ValueError(f"observations of {size} values over {offer} offered splits fit the games "
                         f"{', '.join(fits)}; name one (policy_kwargs={{'game': ...}})")
    raise ValueError(f"observations of {size} values are not the offered form over {offer} splits (the seat vector, "
                     f"then {offer} feature rows: {expected}); train on an environment with actions='offered'")


def read_offer(observation_space: spaces.Space, action_space: spaces.Space, game: str | None = None
               ) -> tuple[str, int, int, int]:
    """The game, ``K``, ``D`` and ``F`` of an offered policy's spaces: ``Discrete(K)``
    actions and a flat ``Box`` of ``D + K*F`` observations; ValueError saying what differs."""
    if not isinstance(action_space, spaces.Discrete) or int(action_space.start) != 0:
        raise ValueError(f"an offered-splits policy acts in Discrete(K), one slot of K offered splits, not in "
                         f"{action_space}")
    if not isinstance(observation_space, spaces.Box) or len(observation_space.shape) != 1:
        raise ValueError(f"an offered-splits policy reads a flat Box observation (the seat vector, then the offered "
                         f"splits' feature rows), not {observation_space}")
    offer = int(action_space.n)
    name, seat, width = offered_layout(int(observation_space.shape[0]), offer, game)
    return name, offer, seat, width


def feature_scale(game: str | Game) -> np.ndarray:
    """What :class:`OfferedSplitsPolicy` divides the feature columns by when it is built
    (float32 ``(F,)``): the largest magnitude a column's bounds allow at the game's largest
    table (:func:`~splitpoker.envs.offered.offered_bounds`, classic rules), and 1 for a column
    within ``[-1, 1]``.

    >>> scale = feature_scale("biji")
    >>> scale.shape == (offered_width(make_game("biji")),), bool((scale >= 1).all())
    (True, True)
    """
    the_game = make_game(game.name if isinstance(game, Game) else GAMES.check(game))
    low, high = offered_bounds(the_game, the_game.players[1])
    return np.maximum(1.0, np.maximum(np.abs(low), np.abs(high))).astype(np.float32)


def _mlp(inputs: int, widths: Sequence[int], activation_fn: type[nn.Module]) -> nn.Sequential:
    """Linear layers of ``widths`` from ``inputs`` values, each followed by an activation."""
    layers: list[nn.Module] = []
    for width in widths:
        layers += [nn.Linear(inputs, width), activation_fn()]
        inputs = width
    return nn.Sequential(*layers)


class OfferedExtractor(nn.Module):
    """The hidden layers of :class:`OfferedSplitsPolicy`: the scorer's over each slot's
    feature row (the actor's latent, ``(B, K * H)``: each slot's last hidden layer) and the
    critic's over the seat vector and the pooled filled rows."""

    feature_scale: th.Tensor

    def __init__(self, seat_size: int, offer: int, width: int, scorer: Sequence[int], value: Sequence[int],
                 activation_fn: type[nn.Module], scale: np.ndarray | None = None) -> None:
        super().__init__()
        self.seat_size, self.offer, self.width = seat_size, offer, width
        self.register_buffer("feature_scale", th.ones(width) if scale is None else th.as_tensor(scale))
        self.scorer = _mlp(width, scorer, activation_fn)
        self.value_layers = _mlp(seat_size + 2 * width, value, activation_fn)
        self.slot_dim = scorer[-1] if scorer else width
        self.latent_dim_pi = offer * self.slot_dim
        self.latent_dim_vf = value[-1] if value else seat_size + 2 * width

    def rows(self, features: th.Tensor) -> th.Tensor:
        """The slots' scaled feature rows ``(B, K, F)`` of flat observations ``(B, D + K*F)``."""
        return features[:, self.seat_size:].reshape(-1, self.offer, self.width) / self.feature_scale

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.scorer(self.rows(features)).flatten(1)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        rows = self.rows(features)
        filled = (rows != 0).any(-1, keepdim=True)  # (B, K, 1)
        count = filled.sum(1).clamp(min=1)
        mean = (rows * filled).sum(1) / count
        most = rows.masked_fill(~filled, -math.inf).amax(1)
        most = th.where(filled.any(1), most, th.zeros_like(most))
        return self.value_layers(th.cat([features[:, :self.seat_size], mean, most], -1))

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class SlotHead(nn.Module):
    """The scorer's output layer, the same in every slot: ``(B, K * H)`` -> logits ``(B, K)``."""

    def __init__(self, slot_dim: int, offer: int) -> None:
        super().__init__()
        self.slot_dim, self.offer = slot_dim, offer
        self.score = nn.Linear(slot_dim, 1)

    def forward(self, latent: th.Tensor) -> th.Tensor:
        return self.score(latent.reshape(-1, self.offer, self.slot_dim)).squeeze(-1)


def _arch(net_arch: Any) -> tuple[list[int], list[int]]:
    """The scorer's and the critic's hidden widths of a ``net_arch``: a list for both, or
    ``{"pi": [...], "vf": [...]}``; ValueError naming a bad entry."""
    if net_arch is None:
        return list(DEFAULT_ARCH), list(DEFAULT_ARCH)
    if isinstance(net_arch, Mapping):
        missing = [key for key in ("pi", "vf") if key not in net_arch]
        if missing or set(net_arch) - {"pi", "vf"}:
            raise ValueError(f"net_arch={dict(net_arch)!r}: a mapping holds 'pi' (the scorer's hidden widths) and "
                             "'vf' (the critic's), and nothing else")
        return _widths("net_arch['pi']", net_arch["pi"]), _widths("net_arch['vf']", net_arch["vf"])
    widths = _widths("net_arch", net_arch)
    return widths, list(widths)


def _widths(key: str, value: Any) -> list[int]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{key}={value!r} is not a list of hidden layer widths")
    return [check_width(f"{key}[{i}]", width) for i, width in enumerate(value)]


class OfferedSplitsPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` that scores each offered split from its feature row with
    one shared MLP (see the module text). ``game``: a registered game's name, or None to read
    it off the spaces; ``net_arch``: the scorer's and the critic's hidden widths."""

    def __init__(self, observation_space: spaces.Space, action_space: spaces.Space, lr_schedule: Schedule,
                 net_arch: list[int] | dict[str, list[int]] | None = None, activation_fn: type[nn.Module] = nn.ReLU,
                 *, game: str | None = None, **kwargs: Any) -> None:
        self.game_name, self.offer, self.seat_size, self.width = read_offer(observation_space, action_space, game)
        self.scorer_arch, self.value_arch = _arch(net_arch)
        arch = {"pi": self.scorer_arch, "vf": self.value_arch}
        super().__init__(observation_space, action_space, lr_schedule, arch, activation_fn, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(game=self.game_name)
        return data

    def _build_mlp_extractor(self) -> None:
        scale = feature_scale(self.game_name)
        self.mlp_extractor = OfferedExtractor(  # type: ignore[assignment]  # SB3 declares its own MLP
            self.seat_size, self.offer, self.width, self.scorer_arch, self.value_arch, self.activation_fn, scale)

    def _build(self, lr_schedule: Schedule) -> None:
        self._build_mlp_extractor()
        extractor = self.mlp_extractor
        assert isinstance(extractor, OfferedExtractor)
        self.action_net = SlotHead(extractor.slot_dim, self.offer)
        #: the scorer's linear layers, the output layer last (:meth:`slot_scores`)
        self._linears = (*(layer for layer in extractor.scorer if isinstance(layer, nn.Linear)), self.action_net.score)
        self.value_net = nn.Linear(extractor.latent_dim_vf, 1)
        if self.ortho_init:
            for module, gain in ((extractor, math.sqrt(2)), (self.action_net, 0.01), (self.value_net, 1.0)):
                module.apply(functools.partial(self.init_weights, gain=gain))
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]  # every torch optimizer takes lr
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def slot_scores(self, features: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """The logits ``(N, K)`` float64 of the offered features ``(N, K, F)`` in the slots
        ``allowed`` ``(N, K)`` bool, -inf elsewhere (no gradient): the scorer alone, over those
        rows only, on the threads torch is set to (a :class:`~.policy.PolicyAgent`'s
        decision: its ``threads``). On the CPU with ReLU or tanh layers, by one ``addmm`` per
        layer on the weights as they are, without the modules' calls (most of the cost at a
        decision's few rows); the scores equal :meth:`slot_logits`' up to float32 rounding."""
        scores = np.full(allowed.shape, -np.inf)
        extractor, head = self.mlp_extractor, self.action_net
        assert isinstance(extractor, OfferedExtractor) and isinstance(head, SlotHead)
        rows = np.asarray(features, dtype=np.float32)[allowed]
        activation = _ACTIVATIONS.get(self.activation_fn)
        device = head.score.weight.device  # not self.device, which walks every module at each call
        with th.inference_mode():
            if activation is None or device.type != "cpu":
                out = head.score(extractor.scorer(th.as_tensor(rows, device=device) / extractor.feature_scale))
            else:
                out = th.from_numpy(rows / extractor.feature_scale.numpy())
                *hidden, last = self._linears
                for layer in hidden:
                    out = activation(th.addmm(layer.bias, out, layer.weight.t()))
                out = th.addmm(last.bias, out, last.weight.t())
            scores[allowed] = out[:, 0].cpu().numpy()
        return scores

    def slot_logits(self, observations: np.ndarray) -> np.ndarray:
        """The logits ``(N, K)`` of offered observations ``(N, D + K*F)`` (unmasked; no
        gradient), on the policy's device."""
        obs = th.as_tensor(np.asarray(observations, dtype=np.float32), device=self.device)
        with th.inference_mode():
            return self.action_net(self.mlp_extractor.forward_actor(obs.reshape(len(obs), -1))).cpu().numpy()
