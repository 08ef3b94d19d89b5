"""The policy kinds and their settings: the one list of kinds that ``splitpoker train`` can
build and a saved policy can name, and the checks of their architecture settings.

Pure: NumPy only, no torch, so that reading a config or a checkpoint's description costs
no network import. :data:`POLICY_KINDS` registers each kind's SB3 policy class by entry
point, imported when first asked for; the policies built from these settings are
:mod:`.networks` (:func:`~.networks.policy_class`, :func:`~.networks.policy_kwargs`).

``mlp``
    ``net_arch`` (a list of hidden sizes, or ``{"pi": [...], "vf": [...]}``) and
    ``activation`` (:data:`ACTIVATIONS`).
``split_scorer``
    ``subset_hidden``, ``embed_dim``, ``split_hidden`` (0: additive rows) and
    ``value_hidden`` (:data:`SPLIT_SCORER_KEYS`).
``offered``
    The offered-splits policy (:mod:`.offered_policy`): ``net_arch`` (the slot scorer's and
    the critic's hidden sizes, a list for both or ``{"pi": [...], "vf": [...]}``) and
    ``activation``, read as an ``mlp``'s are. Its saved policies record the number of
    offered splits they decide over (:data:`OFFER_KINDS`).

>>> check_arch("split_scorer", {"embed_dim": 16, "split_hidden": 0})
{'embed_dim': 16, 'split_hidden': 0}
>>> check_arch("mlp", {"net_arch": [8, "wide"]})
Traceback (most recent call last):
...
splitpoker.agents.learned.policy_kinds.BadSetting: policy.net_arch[1] = 'wide': not a whole number (a layer ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...envs.messages import cut
from ...runtime.arguments import is_whole
from ...runtime.registry import Registry

#: every policy kind, in the order configs and messages list them: its SB3 policy class (torch),
#: imported when first asked for
POLICY_KINDS: Registry[Any] = Registry("policy", "policies")
POLICY_KINDS.register("mlp", "sb3_contrib.common.maskable.policies:MaskableActorCriticPolicy")
POLICY_KINDS.register("split_scorer", "splitpoker.agents.learned.networks:SplitScorerPolicy")
POLICY_KINDS.register("offered", "splitpoker.agents.learned.offered_policy:OfferedSplitsPolicy")
#: the kinds whose policies choose among a seat's offered splits (a slot of ``offer``), not
#: among split indices: a saved policy of such a kind records its ``offer``
OFFER_KINDS = ("offered",)
#: the kinds whose architecture settings are an ``mlp``'s (:data:`MLP_KEYS`)
MLP_ARCH_KINDS = ("mlp", "offered")
#: the activations of an ``mlp`` policy's hidden layers
ACTIVATIONS = ("relu", "tanh")
#: the architecture settings of a ``split_scorer`` policy
SPLIT_SCORER_KEYS = ("subset_hidden", "embed_dim", "split_hidden", "value_hidden")
#: the widest layer a policy may have (``net_arch`` entries, ``subset_hidden``, ``embed_dim``,
#: ``split_hidden``, ``value_hidden``, the observation size), checked before a network is built,
#: so that a mistyped setting or a crafted checkpoint is one line, not a machine out of memory;
#: 64 times the shipped policies' widest layer (64)
MAX_WIDTH = 4096
#: the most hidden layers an ``mlp`` policy may have, per network (``pi``, ``vf``)
MAX_LAYERS = 64
#: the architecture settings of an ``mlp`` policy
MLP_KEYS = ("net_arch", "activation")
#: the keys of the ``policy`` mapping of a saved policy's description
POLICY_KEYS = ("kind", "arch")
#: the dtype of every weight of every policy kind (what training writes); a saved policy whose
#: weights are of another dtype, or hold a NaN or an infinity, is refused when it is read
WEIGHT_DTYPE = "float32"


def check_kind(kind: str) -> str:
    """``kind`` when it is one of :data:`POLICY_KINDS`; else ValueError listing them."""
    return POLICY_KINDS.check(kind)


class BadSetting(ValueError):
    """A policy setting missing or out of range: ``key`` (dotted), its ``value`` and ``why``;
    :attr:`detail` says so on one line."""

    def __init__(self, key: str, value: Any, why: str, *, missing: bool = False) -> None:
        self.key, self.value, self.why, self.missing = key, value, why, missing
        self.detail = f"lacks {key} ({why})" if missing else f"gives {key} = {_shown(value)}; {why}"
        super().__init__(f"{key} is missing ({why})" if missing else f"{key} = {_shown(value)}: {why}")


def _shown(value: Any) -> str:
    """``value`` on one short line (at most 60 characters)."""
    return cut(repr(value), 57)


def check_width(key: str, value: Any, least: int = 1) -> int:
    """``value`` when it is a whole number from ``least`` to :data:`MAX_WIDTH`; else BadSetting."""
    if not is_whole(value):
        raise BadSetting(key, value, f"not a whole number (a layer width, {least} to {MAX_WIDTH})")
    width = int(value)
    if width > MAX_WIDTH:
        raise BadSetting(key, value, f"over the largest layer width, {MAX_WIDTH}")
    if width < least:
        raise BadSetting(key, value, f"a layer width is {least} or more")
    return width


def _layers(key: str, value: Any) -> list[int]:
    """An mlp's hidden layer sizes: a list of at most :data:`MAX_LAYERS` widths."""
    if not isinstance(value, (list, tuple)):
        raise BadSetting(key, value, "not a list of layer widths")
    if len(value) > MAX_LAYERS:
        raise BadSetting(key, value, f"{len(value)} layers, more than the {MAX_LAYERS} an mlp may have")
    return [check_width(f"{key}[{i}]", width) for i, width in enumerate(value)]


def check_arch(kind: str, arch: Any, prefix: str = "policy.") -> dict[str, Any]:
    """The architecture settings of a policy kind, each checked (type, range, at most
    :data:`MAX_WIDTH` wide) before anything is built; BadSetting naming ``prefix`` + the key.

    ``mlp`` and ``offered``: ``net_arch`` (list of hidden sizes, or ``{"pi": [...], "vf": [...]}``) and
    ``activation`` (relu, tanh). ``split_scorer``: ``subset_hidden``, ``embed_dim``,
    ``split_hidden`` (0: additive rows), ``value_hidden``."""
    if not isinstance(arch, Mapping):
        raise BadSetting(prefix.rstrip("."), arch, "not a mapping of architecture settings")
    arch = dict(arch)
    if check_kind(kind) in MLP_ARCH_KINDS:
        unknown = sorted(set(arch) - set(MLP_KEYS), key=str)
        if unknown:
            raise BadSetting(f"{prefix}{unknown[0]}", arch[unknown[0]],
                             f"not an {kind} setting; settings: {', '.join(MLP_KEYS)}")
        activation = arch.get("activation", "relu")
        if not isinstance(activation, str) or activation not in ACTIVATIONS:
            raise BadSetting(f"{prefix}activation", activation, f"activations: {', '.join(ACTIVATIONS)}")
        net_arch = arch.get("net_arch", [64, 64])
        if isinstance(net_arch, Mapping):
            missing = [k for k in ("pi", "vf") if k not in net_arch]
            if missing:
                raise BadSetting(f"{prefix}net_arch.{missing[0]}", None, "the hidden layer sizes", missing=True)
            net_arch = {k: _layers(f"{prefix}net_arch.{k}", net_arch[k]) for k in ("pi", "vf")}
        else:
            net_arch = _layers(f"{prefix}net_arch", net_arch)
        return {**arch, "net_arch": net_arch, "activation": activation}
    unknown = sorted(set(arch) - set(SPLIT_SCORER_KEYS), key=str)
    if unknown:
        raise BadSetting(f"{prefix}{unknown[0]}", arch[unknown[0]],
                         f"not a split_scorer setting; settings: {', '.join(SPLIT_SCORER_KEYS)}")
    return {k: check_width(f"{prefix}{k}", arch[k], least=0 if k == "split_hidden" else 1)
            for k in SPLIT_SCORER_KEYS if k in arch}
