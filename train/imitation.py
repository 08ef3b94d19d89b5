"""Warm start by imitation: behaviour cloning of the solver on labelled hands.

Labels are produced in worker processes, in chunks of :data:`CHUNK` hands; chunk ``c`` deals
from ``numpy.random.default_rng([seed, c])`` and seeds its solver from ``(seed, c)``, so the
labels do not depend on the number of workers. They are cached on disk as ``.npz`` files
keyed by the game, rules, players, teacher spec (samples and opponent model), seed and
count. Cloning minimises the cross-entropy of the policy's masked logits against the labels.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from ..agents import load_agent
from ..agents.base import check_choices
from ..agents.specs import format_options, parse_spec
from ..envs.game import Game
from ..envs.games import game_of
from ..envs.switches import RuleSwitches
from ..envs.table import deal
from ..eval.interrupts import worker_pool

CHUNK = 32
CACHE_FORMAT = 1


@dataclass
class LabelledHands:
    """Hands with the teacher's split: observations, slots, seats and labels (one row per hand)."""

    observations: np.ndarray
    slots: np.ndarray
    seats: np.ndarray
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)

    def packed_masks(self, game: Game) -> np.ndarray:
        """The valid-split masks of every hand, bit-packed (``np.unpackbits`` to read)."""
        return np.stack([np.packbits(game.valid_mask(s)) for s in self.slots.astype(np.intp)])


def _label_chunk(task: tuple[RuleSwitches, int, str, int, int, int]) -> dict[str, np.ndarray]:
    rules, num_players, spec, seed, chunk, count = task
    if multiprocessing.parent_process() is not None:
        th.set_num_threads(1)  # one labelling process per core
    game = game_of(rules)
    solver_seed = int(np.random.SeedSequence([seed, chunk, 1]).generate_state(1)[0])
    teacher = load_agent(spec, game=game, num_players=num_players, seed=solver_seed)
    tables = deal(game, num_players, np.random.default_rng([seed, chunk]), batch=count)
    seats = (chunk * CHUNK + np.arange(count)) % num_players
    views = [tables.view(b, int(seat)) for b, seat in enumerate(seats)]
    try:
        labels = check_choices(teacher, views, teacher.act_batch(views))
    except ValueError as error:
        raise ValueError(f"the teacher {spec!r}: {error}") from None
    return {"observations": np.stack([v.observation for v in views]).astype(np.float32),
            "slots": np.stack([v.slots for v in views]).astype(np.int16),
            "seats": seats.astype(np.int8), "labels": labels.astype(np.int32)}


def _spec_identity(spec: str) -> dict[str, Any]:
    """The teacher spec plus size and mtime of any checkpoint it plays against (cache key part)."""
    out: dict[str, Any] = {"spec": spec}
    opponent = parse_spec(spec).options.get("opponent", "")
    if opponent.startswith("checkpoint:"):
        path = Path(opponent.partition(":")[2])
        if path.is_file():
            stat = path.stat()
            out["opponent_file"] = [stat.st_size, stat.st_mtime_ns]
    return out


def cache_path(cache_dir: str | Path, game: Game, num_players: int, spec: str, count: int, seed: int) -> Path:
    """Where the labels of these settings are cached."""
    key = {"format": CACHE_FORMAT, "game": game.name, "rules": game.rules.to_dict(), "players": num_players,
           "teacher": _spec_identity(spec), "count": count, "seed": seed, "chunk": CHUNK}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return Path(cache_dir) / f"{game.name}_{num_players}p_{count}_{digest}.npz"


def label_hands(game: Game, num_players: int, spec: str, count: int, seed: int, workers: int = 1,
                cache_dir: str | Path | None = None,
                progress: Callable[[int, int], None] | None = None) -> tuple[LabelledHands, bool]:
    """``count`` hands labelled by the teacher ``spec``; returns (data, whether it came from the cache)."""
    if parse_spec(spec).kind != "solver":
        raise ValueError(f"the imitation teacher must be a solver spec, got {spec!r}")
    path = cache_path(cache_dir, game, num_players, spec, count, seed) if cache_dir is not None else None
    if path is not None and path.is_file():
        with np.load(path) as stored:
            return LabelledHands(**{k: stored[k] for k in ("observations", "slots", "seats", "labels")}), True
    tasks = [(game.rules, num_players, spec, seed, c, min(CHUNK, count - c * CHUNK))
             for c in range((count + CHUNK - 1) // CHUNK)]
    parts: list[dict[str, np.ndarray]] = []
    if workers <= 1 or len(tasks) == 1:
        for task in tasks:
            parts.append(_label_chunk(task))
            if progress:
                progress(sum(len(p["labels"]) for p in parts), count)
    else:
        context = multiprocessing.get_context("spawn")
        # the workers ignore Ctrl-C: the parent, interrupted, kills them (no hang, no tracebacks)
        with worker_pool(context, min(workers, len(tasks))) as pool:
            for part in pool.imap(_label_chunk, tasks):
                parts.append(part)
                if progress:
                    progress(sum(len(p["labels"]) for p in parts), count)
    data = LabelledHands(**{k: np.concatenate([p[k] for p in parts]) for k in parts[0]})
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.npz")
        np.savez_compressed(tmp, observations=data.observations, slots=data.slots, seats=data.seats,
                            labels=data.labels)
        os.replace(tmp, path)
    return data, False


def behaviour_clone(policy: MaskableActorCriticPolicy, data: LabelledHands, game: Game, epochs: int,
                    batch_size: int, learning_rate: float, seed: int, max_grad_norm: float = 1.0,
                    on_epoch: Callable[[Mapping[str, float]], None] | None = None) -> list[dict[str, float]]:
    """Fit the policy's masked logits to the labels; returns per-epoch loss and accuracy."""
    if len(data) == 0:
        raise ValueError("no labelled hands to imitate")
    packed = data.packed_masks(game)
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
                obs = th.as_tensor(data.observations[idx], device=device)
                mask = np.unpackbits(packed[idx], axis=1, count=game.n_actions).astype(bool)
                labels = th.as_tensor(data.labels[idx].astype(np.int64), device=device)
                distribution = policy.get_distribution(obs, mask)  # the cross-entropy over the valid splits
                loss = -distribution.log_prob(labels).mean()
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


def teacher_against(spec: str, checkpoint: str | Path) -> str:
    """The teacher spec with its opponent model replaced by ``checkpoint:PATH``."""
    options = parse_spec(spec).options
    options["opponent"] = f"checkpoint:{checkpoint}"
    return format_options("solver", options)
