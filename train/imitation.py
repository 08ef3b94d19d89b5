"""Imitation of the solver: labelled hands and behaviour cloning.

Labels are produced in chunks of :data:`CHUNK` hands, in worker processes (``backend="local"``)
or as Ray tasks (``backend="ray"``, on a local Ray instance or an existing cluster, the
checkpoints the teacher plays against sent with the tasks); chunk
``c`` deals from ``numpy.random.default_rng([seed, c])`` and seeds its solver from
``(seed, c)``, so the labels do not depend on the backend or the number of workers. Each
hand keeps the solver's split and, with ``top_k``, its ``top_k`` best splits with their
expected payoffs (a sparse view of the solver's values). Labels may be cached on disk as
``.npz`` files keyed by the game, rules, players, teacher spec (samples and opponent
model), seed, count and ``top_k``.

Cloning (:func:`behaviour_clone`) minimises the cross-entropy of the policy's masked
distribution against a target: the solver's split, or, with a ``temperature``, the soft
target :func:`soft_targets`, ``softmax(EV / temperature)`` over each hand's ``top_k``
best splits, or any soft target over them given as ``targets``, such as the step of
mirror descent from the policy itself (:func:`mirror_targets`, with the policy's log
probabilities from :func:`policy_log_probs`).
"""

from __future__ import annotations

import hashlib
import io
import json
import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from ..agents import load_agent
from ..agents.base import check_choices
from ..agents.learned.distribution import log_probs
from ..agents.solver import SolverAgent
from ..agents.specs import AgentSpec, SpecLike, checkpoint_spec, parse_spec
from ..envs.game import Game
from ..envs.games import game_of
from ..envs.switches import RuleSwitches
from ..envs.table import deal
from ..runtime.files import output_path, write_owned
from ..runtime.limits import check_workers
from ..runtime.seeding import derived_seed
from ..runtime.workers import worker_pool

CHUNK = 32
#: the version of the cached labels: 2 since the solver measures the candidates by default and
#: learned opponents choose among theirs (labels cached before are not read again)
CACHE_FORMAT = 2
BACKENDS = ("local", "ray")
#: the arrays of a :class:`LabelledHands`, in order; ``top_actions`` and ``top_evs`` only with
#: ``top_k``, ``slot_masks`` only for a policy over offered splits (:func:`in_slots`)
FIELDS = ("observations", "slots", "seats", "labels", "top_actions", "top_evs", "slot_masks")


@dataclass
class LabelledHands:
    """Hands with the teacher's split: observations, slots, seats and labels (one row per
    hand); with ``top_k``, ``top_actions[i]`` are hand ``i``'s ``top_k`` best splits, best
    first (ties: the lowest index; ``top_actions[i, 0] == labels[i]``), and ``top_evs[i]``
    their expected payoffs. A hand with fewer valid splits is padded with its label and a
    NaN payoff. As a policy over offered splits learns them (:func:`in_slots`), the actions
    are slots and ``slot_masks`` holds each hand's filled slots, bit-packed."""

    observations: np.ndarray
    slots: np.ndarray
    seats: np.ndarray
    labels: np.ndarray
    top_actions: np.ndarray | None = None
    top_evs: np.ndarray | None = None
    slot_masks: np.ndarray | None = None

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays, by name (those present)."""
        return {k: getattr(self, k) for k in FIELDS if getattr(self, k) is not None}

    def __len__(self) -> int:
        return len(self.labels)

    def packed_masks(self, game: Game) -> np.ndarray:
        """The masks of every hand's actions, bit-packed (``np.unpackbits`` to read): its valid
        splits, or its filled slots when the actions are slots."""
        if self.slot_masks is not None:
            return self.slot_masks
        return np.stack([np.packbits(game.valid_mask(s)) for s in self.slots.astype(np.intp)])


def in_slots(data: LabelledHands, game: Game, num_players: int, offer: int) -> tuple[LabelledHands, int]:
    """The hands of ``data`` as a policy over offered splits learns them
    (:mod:`splitpoker.envs.offered`), and how many were left out: each observation followed
    by its ``offer`` feature rows, as the environments give it; the label and the top-k
    splits as slots, a top-k split that is not offered becoming padding (the label's slot
    and a NaN payoff); the filled slots as ``slot_masks``. A hand whose label (the teacher's
    split) is not among its offered splits is left out: it has more candidates than
    ``offer`` and the teacher's split is not among the first ``offer``."""
    from ..envs.offered import offer_hands

    offered = offer_hands(game, data.slots.astype(np.intp), num_players, offer)
    top = data.top_actions if data.top_actions is not None else data.labels[:, None]
    match = offered.splits[:, None, :] == top[:, :, None].astype(np.int64)  # (N, k, K)
    found, slot = match.any(axis=2), match.argmax(axis=2)
    keep = found[:, 0]
    labels = slot[:, 0]
    top_slots = np.where(found, slot, labels[:, None])
    features = offered.features.reshape(len(offered), -1)
    observations = np.concatenate([data.observations, features], axis=1).astype(np.float32)
    moved = LabelledHands(
        observations=observations[keep], slots=data.slots[keep], seats=data.seats[keep],
        labels=labels[keep].astype(data.labels.dtype),
        top_actions=None if data.top_actions is None else top_slots[keep].astype(data.top_actions.dtype),
        top_evs=None if data.top_evs is None else np.where(found, data.top_evs, np.nan)[keep],
        slot_masks=np.packbits(offered.mask[keep], axis=1))
    return moved, int((~keep).sum())


#: what a chunk is given: rules, players, teacher spec, seed, top_k, then (chunk index, hands)
_Task = tuple[RuleSwitches, int, str, int, int, int, int]


def _label_chunk(task: _Task) -> dict[str, np.ndarray]:
    rules, num_players, spec, seed, top_k, chunk, count = task
    if multiprocessing.parent_process() is not None:
        th.set_num_threads(1)  # one labelling process per core
    game = game_of(rules)
    solver_seed = derived_seed(seed, chunk, 1)
    teacher = load_agent(spec, game=game, num_players=num_players, seed=solver_seed)  # a spec tree: no text read
    assert isinstance(teacher, SolverAgent)
    tables = deal(game, num_players, np.random.default_rng([seed, chunk]), batch=count)
    seats = (chunk * CHUNK + np.arange(count)) % num_players
    views = [tables.view(b, int(seat)) for b, seat in enumerate(seats)]
    results = [teacher.solve(view.slots, seat=view.seat) for view in views]  # what act_batch plays
    try:
        labels = check_choices(teacher, views, [r.action for r in results])
    except ValueError as error:
        raise ValueError(f"the teacher {parse_spec(spec).text!r}: {error}") from None
    out = {"observations": np.stack([v.observation for v in views]).astype(np.float32),
           "slots": np.stack([v.slots for v in views]).astype(np.int16),
           "seats": seats.astype(np.int8), "labels": labels.astype(np.int32)}
    if top_k:
        out["top_actions"] = np.repeat(labels[:, None], top_k, axis=1).astype(np.int32)
        out["top_evs"] = np.full((count, top_k), np.nan, dtype=np.float32)
        for i, result in enumerate(results):
            ranking = result.ranking(top_k)
            out["top_actions"][i, :len(ranking)] = [a for a, _ in ranking]
            out["top_evs"][i, :len(ranking)] = [ev for _, ev in ranking]
    return out


def _opponent_checkpoints(spec: SpecLike, rename: Mapping[str, str] | None = None) -> tuple[list[str], AgentSpec]:
    """The checkpoint paths the teacher's opponent model reads (``checkpoint:PATH``, alone or
    as mixture members), and the spec with those paths renamed by ``rename``."""
    tree = parse_spec(spec)
    return tree.checkpoints(), tree.map_checkpoints(rename) if rename else tree


def _label_ray_chunk(task: tuple[RuleSwitches, int, str, int, int, dict[str, bytes]],
                     chunk: list[int]) -> tuple[int, dict[str, np.ndarray]]:
    """A Ray task: chunk ``chunk[0]`` of ``chunk[1]`` hands, with its index (results arrive in
    any order). The checkpoints the teacher plays against travel with the task and are
    written, named by their content, to the node's temporary folder: a cluster needs no
    shared file system."""
    import tempfile

    th.set_num_threads(1)  # one task per CPU
    rules, num_players, spec, seed, top_k, files = task
    rename = {}
    for path, data in files.items():
        local = Path(tempfile.gettempdir()) / "splitpoker-checkpoints" / f"{hashlib.sha256(data).hexdigest()[:24]}.zip"
        if not local.is_file():
            write_owned(local, data, within=Path(tempfile.gettempdir()))  # a link planted in /tmp is refused
        rename[path] = str(local)
    _, spec = _opponent_checkpoints(spec, rename)
    return chunk[0], _label_chunk((rules, num_players, spec, seed, top_k, chunk[0], chunk[1]))


def _spec_identity(spec: SpecLike) -> dict[str, Any]:
    """The teacher spec plus size and mtime of any checkpoint it plays against (cache key part)."""
    out: dict[str, Any] = {"spec": parse_spec(spec).text}
    stats = [[path.stat().st_size, path.stat().st_mtime_ns]
             for path in map(Path, _opponent_checkpoints(spec)[0]) if path.is_file()]
    opponent = parse_spec(spec).options.get("opponent")
    if isinstance(opponent, AgentSpec) and opponent.kind == "mixture":
        out["opponent_files"] = stats
    elif stats:
        out["opponent_file"] = stats[0]
    return out


def cache_path(cache_dir: str | Path, game: Game, num_players: int, spec: SpecLike, count: int, seed: int,
               top_k: int = 0) -> Path:
    """Where the labels of these settings are cached."""
    key = {"format": CACHE_FORMAT, "game": game.name, "rules": game.rules.to_dict(), "players": num_players,
           "teacher": _spec_identity(spec), "count": count, "seed": seed, "chunk": CHUNK}
    if top_k:
        key["top_k"] = top_k
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return output_path(cache_dir, "imitation.cache_dir") / f"{game.name}_{num_players}p_{count}_{digest}.npz"


def label_hands(game: Game, num_players: int, spec: SpecLike, count: int, seed: int, workers: int = 1,
                cache_dir: str | Path | None = None, progress: Callable[[int, int], None] | None = None,
                *, top_k: int = 0, backend: str = "local", address: str | None = None) -> tuple[LabelledHands, bool]:
    """``count`` hands labelled by the teacher ``spec``, with each hand's ``top_k`` best splits
    when ``top_k > 0``; returns (data, whether it came from the cache). ``backend="local"``
    labels in ``workers`` processes, ``"ray"`` as Ray tasks (``address`` joins an existing
    cluster; without it a local Ray instance with ``workers`` CPUs is started): the same
    labels for the same seed either way. ``progress(done, count)`` follows the chunks."""
    spec = parse_spec(spec)  # read once; the tree travels to the workers
    workers = check_workers(workers, "workers")
    if spec.kind != "solver":
        raise ValueError(f"the imitation teacher must be a solver spec, got {spec.text!r}")
    if backend not in BACKENDS:
        raise ValueError(f"labelling backend {backend!r} is not one of {', '.join(BACKENDS)}")
    path = cache_path(cache_dir, game, num_players, spec, count, seed, top_k) if cache_dir is not None else None
    if path is not None and path.is_file():
        return read_labels(path), True
    sizes = [min(CHUNK, count - c * CHUNK) for c in range((count + CHUNK - 1) // CHUNK)]
    parts: dict[int, dict[str, np.ndarray]] = {}

    def collect(chunk: int, part: dict[str, np.ndarray]) -> None:
        parts[chunk] = part
        if progress:
            progress(sum(len(p["labels"]) for p in parts.values()), count)

    task = (game.rules, num_players, spec, seed, top_k)
    if backend == "ray":
        from ..runtime.distributed import ray_chunks

        files = {path: Path(path).read_bytes() for path in _opponent_checkpoints(spec)[0]}
        for chunk, part in ray_chunks(_label_ray_chunk, (*task, files), [[c, n] for c, n in enumerate(sizes)],
                                      workers, address=address):
            collect(chunk, part)
    elif workers <= 1 or len(sizes) == 1:
        for c, n in enumerate(sizes):
            collect(c, _label_chunk((*task, c, n)))
    else:
        context = multiprocessing.get_context("spawn")
        # the workers ignore Ctrl-C: the parent, interrupted, kills them (no hang, no tracebacks)
        with worker_pool(context, min(workers, len(sizes))) as pool:
            for c, part in enumerate(pool.imap(_label_chunk, [(*task, c, n) for c, n in enumerate(sizes)])):
                collect(c, part)
    data = concatenate([LabelledHands(**parts[c]) for c in range(len(sizes))])
    if path is not None:
        write_labels(path, data)
    return data, False


def write_labels(path: Path, data: LabelledHands) -> Path:
    """Save labelled hands to ``path`` (``.npz``) atomically (:func:`splitpoker.runtime.files.write_owned`)."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **data.arrays())  # type: ignore[arg-type]  # numpy's stub reads **kwds as allow_pickle
    return write_owned(path, buffer.getvalue())


def read_labels(path: Path) -> LabelledHands:
    """Labelled hands saved by :func:`write_labels`."""
    with np.load(path) as stored:
        return LabelledHands(**{k: stored[k] for k in FIELDS if k in stored})


def concatenate(parts: Sequence[LabelledHands]) -> LabelledHands:
    """The hands of ``parts``, in order (each with the same arrays)."""
    return LabelledHands(**{k: np.concatenate([getattr(p, k) for p in parts]) for k in parts[0].arrays()})


def soft_targets(top_evs: np.ndarray, temperature: float) -> np.ndarray:
    """The sparse soft target of each hand: ``softmax(EV / temperature)`` over its top-k
    splits (NaN payoffs, the padding, get probability 0), each row summing to 1. Equal to the
    softmax over all valid splits restricted to the top k and renormalised; as the
    temperature goes to 0 it puts all the mass on the best split (shared among equals)."""
    if not temperature > 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    evs, present = _payoffs(top_evs)
    return _padded_softmax(evs / temperature, present)


def _payoffs(top_evs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The top-k payoffs as float64 and where they are present (not the NaN padding);
    ValueError for a hand without its best split's payoff."""
    evs = np.asarray(top_evs, dtype=np.float64)
    present = ~np.isnan(evs)
    if not present[:, 0].all():
        raise ValueError("a hand without a best split's payoff")
    return evs, present


def _payoffs_and_prior(top_evs: np.ndarray, prior_log_probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_payoffs`, and the policy's log probabilities of the same splits as float64;
    ValueError when the two shapes differ."""
    prior = np.asarray(prior_log_probs, dtype=np.float64)
    if prior.shape != np.shape(top_evs):
        raise ValueError(f"log probabilities of shape {prior.shape} for payoffs of shape {np.shape(top_evs)}")
    return (*_payoffs(top_evs), prior)


def _padded_softmax(scores: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Each row's softmax of ``scores`` over its present entries (the padding gets 0)."""
    scaled = np.where(present, scores, -np.inf)
    weights = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def mirror_targets(top_evs: np.ndarray, prior_log_probs: np.ndarray, temperature: float,
                   step_size: float) -> np.ndarray:
    """The sparse target of one step of magnetic mirror descent from a policy ``pi`` towards
    the solver's values, with the uniform magnet: ``softmax((log pi(a) + step_size * EV(a)) /
    (1 + step_size * temperature))`` over each hand's top-k splits (NaN payoffs, the padding,
    get probability 0). ``prior_log_probs[i, k]`` is ``log pi`` of hand ``i``'s ``k``-th split
    (any constant per hand cancels). The fixed point, where the target is ``pi`` itself, is
    :func:`soft_targets` ``softmax(EV / temperature)``, the logit equilibrium the values
    target aims at; as ``step_size`` grows the step becomes that target, and a small step
    moves ``pi`` only a little towards it, which is what lets the iteration settle instead of
    cycling between best responses."""
    if not temperature > 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    if not step_size > 0:
        raise ValueError(f"step_size must be positive, got {step_size}")
    evs, present, prior = _payoffs_and_prior(top_evs, prior_log_probs)
    if not np.isfinite(prior[present]).all():
        raise ValueError("the policy gives one of the kept splits no probability")
    scores = (prior + step_size * np.where(present, evs, 0.0)) / (1.0 + step_size * temperature)
    return _padded_softmax(scores, present)


def hand_regrets(top_evs: np.ndarray, prior_log_probs: np.ndarray) -> np.ndarray:
    """How much a policy loses on each hand against its best split, in expectation:
    ``sum_a pi(a) * (EV(best) - EV(a))`` (float64, one per hand), from ``prior_log_probs``
    (``log pi`` of each hand's top-k splits; the NaN padding of ``top_evs`` aside), the
    probability the policy puts outside the top k counted at the worst kept split's payoff.
    Against labels of the best response to the policy itself, its mean is an in-sample
    reading of the policy's best-response gain."""
    evs, present, prior = _payoffs_and_prior(top_evs, prior_log_probs)
    p = np.exp(np.where(present, prior, -np.inf))  # the padding: no probability
    best = evs[:, 0]
    short = np.where(present, best[:, None] - evs, 0.0)
    worst = np.where(present, evs, np.inf).min(axis=1)
    outside = np.clip(1.0 - p.sum(axis=1), 0.0, 1.0)
    return np.maximum((p * short).sum(axis=1) + outside * (best - worst), 0.0)


def regret_weights(regrets: np.ndarray) -> np.ndarray:
    """Each hand's weight in a fit from the policy's regret on it (:func:`hand_regrets`):
    ``(1 + regret / mean regret) / 2`` (float32, averaging 1; all 1 when no hand has any). A
    hand the policy plays far below its best split, a rare strong hand it has not learned,
    then weighs many times a hand it plays well, and none weighs less than half."""
    regrets = np.asarray(regrets, dtype=np.float64)
    mean = regrets.mean() if len(regrets) else 0.0
    if not mean > 0:
        return np.ones(len(regrets), dtype=np.float32)
    return ((1.0 + regrets / mean) / 2.0).astype(np.float32)


def _inputs(policy: MaskableActorCriticPolicy, data: LabelledHands, packed: np.ndarray, rows: Any,
            game: Game) -> tuple[th.Tensor, np.ndarray]:
    """The observations (on the policy's device) and action masks of the hands at ``rows``."""
    obs = th.as_tensor(data.observations[rows], device=policy.device)
    actions = int(getattr(policy.action_space, "n", game.n_actions))
    return obs, np.unpackbits(packed[rows], axis=1, count=actions).astype(bool)


def policy_log_probs(policy: MaskableActorCriticPolicy, data: LabelledHands, game: Game,
                     batch_size: int = 256, packed: np.ndarray | None = None) -> np.ndarray:
    """``log pi(a)`` of each hand's top-k splits under the policy's distribution over the hand's
    valid splits (no gradient; the policy is left in evaluation mode): the ``pi`` that
    :func:`mirror_targets` steps from. ``packed``: the hands' valid masks as
    :meth:`LabelledHands.packed_masks` gives them, computed when left out."""
    if data.top_actions is None:
        raise ValueError("the policy's log probabilities need labels with their top-k splits (top_k > 0)")
    packed = data.packed_masks(game) if packed is None else packed
    out = np.empty(data.top_actions.shape, dtype=np.float64)
    policy.set_training_mode(False)
    with th.no_grad():
        for start in range(0, len(data), batch_size):
            rows = slice(start, start + batch_size)
            obs, mask = _inputs(policy, data, packed, rows, game)
            actions = th.as_tensor(data.top_actions[rows].astype(np.int64), device=policy.device)
            out[rows] = log_probs(policy.get_distribution(obs, mask), actions).cpu().numpy()
    return out


def behaviour_clone(policy: MaskableActorCriticPolicy, data: LabelledHands, game: Game, epochs: int,
                    batch_size: int, learning_rate: float, seed: int, max_grad_norm: float = 1.0,
                    on_epoch: Callable[[Mapping[str, float]], None] | None = None,
                    temperature: float | None = None, targets: np.ndarray | None = None,
                    packed: np.ndarray | None = None, weights: np.ndarray | None = None) -> list[dict[str, float]]:
    """Fit the policy's masked distribution to the labels; returns per-epoch loss and accuracy
    (the share of hands whose most likely split is the label). The loss is the cross-entropy
    against the label, or, with a ``temperature``, against :func:`soft_targets` of the top-k
    splits (``data`` must hold them), or against ``targets`` (one row per hand, one column per
    top-k split, each row summing to 1): ``-sum_k p_k log pi(a_k)``, whose log probabilities
    :func:`~splitpoker.agents.learned.distribution.log_probs` computes together (for a split scorer, one
    pass over the valid splits a hand however large k). ``packed``: the hands' valid masks as
    :meth:`LabelledHands.packed_masks` gives them, computed when left out; ``weights``: one
    per hand, each hand's loss multiplied by its weight (:func:`regret_weights`), else every
    hand alike."""
    if len(data) == 0:
        raise ValueError("no labelled hands to imitate")
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float32)
        if weights.shape != (len(data),) or not (np.isfinite(weights).all() and (weights >= 0).all()):
            raise ValueError(f"weights must be {len(data)} finite non-negative numbers, one per hand, got shape "
                             f"{weights.shape}")
    if temperature is not None and targets is not None:
        raise ValueError("give a temperature or targets, not both")
    if (temperature is not None or targets is not None) and (data.top_actions is None or data.top_evs is None):
        raise ValueError("soft targets need labels with their top-k splits (top_k > 0)")
    if temperature is not None:
        assert data.top_evs is not None
        targets = soft_targets(data.top_evs, temperature)
    if targets is not None:
        assert data.top_actions is not None
        if targets.shape != data.top_actions.shape:
            raise ValueError(f"targets of shape {targets.shape} for top-k splits of shape {data.top_actions.shape}")
        targets = np.asarray(targets, dtype=np.float32)
    packed = data.packed_masks(game) if packed is None else packed
    optimizer = th.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng([seed, 11])
    device = policy.device
    history = []
    policy.set_training_mode(True)
    try:
        for epoch in range(epochs):
            order = rng.permutation(len(data))
            total_loss, correct = 0.0, 0
            for start in range(0, len(order), batch_size):
                idx = order[start:start + batch_size]
                obs, mask = _inputs(policy, data, packed, idx, game)
                labels = th.as_tensor(data.labels[idx].astype(np.int64), device=device)
                distribution = policy.get_distribution(obs, mask)  # the cross-entropy over the valid splits
                if targets is None:
                    losses = -distribution.log_prob(labels)
                else:
                    assert data.top_actions is not None
                    batch_targets = targets[idx]
                    columns = np.flatnonzero((batch_targets > 0).any(axis=0))  # those with some mass
                    actions = th.as_tensor(data.top_actions[idx][:, columns].astype(np.int64), device=device)
                    mass = th.as_tensor(batch_targets[:, columns], device=device)
                    losses = -(mass * log_probs(distribution, actions)).sum(1)
                if weights is None:
                    loss = losses.mean()
                else:
                    loss = (th.as_tensor(weights[idx], device=device) * losses).mean()
                optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
                optimizer.step()
                total_loss += float(loss.detach()) * len(idx)
                correct += int((distribution.mode() == labels).sum())
            stats = {"epoch": epoch + 1, "loss": total_loss / len(data), "accuracy": correct / len(data)}
            history.append(stats)
            if on_epoch:
                on_epoch(stats)
    finally:
        policy.set_training_mode(False)
    return history


def teacher_against(spec: SpecLike, checkpoint: str | Path) -> AgentSpec:
    """The teacher spec with its opponent model replaced by ``checkpoint:PATH`` (any path)."""
    return parse_spec(spec).with_options(opponent=checkpoint_spec(checkpoint))
