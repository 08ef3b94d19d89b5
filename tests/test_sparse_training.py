"""Training over few marked splits (the candidates): the split scorer's values, log
probabilities, entropies and their gradients computed over the marked splits alone
(:mod:`splitpoker.agents.learned.sparse`, :meth:`SplitScorerPolicy.evaluate_actions`) equal those of
sb3-contrib's masked categorical over the full logits, and the rollout buffer keeps such
masks as index lists."""

from __future__ import annotations

import numpy as np
import pytest
import torch as th
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

from splitpoker.agents.learned import checkpoint, networks, sparse
from splitpoker.agents.learned.distribution import log_probs
from splitpoker.envs.games import make_game
from splitpoker.envs.table import deal

ARCH = {"subset_hidden": 16, "embed_dim": 8, "split_hidden": 4, "value_hidden": 8}


def _policy(game_name: str, split_hidden: int, big: bool = False):
    game = make_game(game_name)
    arch = ({"subset_hidden": 64, "embed_dim": 32, "split_hidden": split_hidden, "value_hidden": 64} if big
            else {**ARCH, "split_hidden": split_hidden})
    meta = checkpoint.policy_meta(game, 4, "split_scorer", arch)
    th.manual_seed(0)
    policy = networks.build_policy(meta).train()
    for module in policy.modules():  # weights far from their small initial values
        if isinstance(module, th.nn.Linear):
            th.nn.init.normal_(module.weight, std=0.3)
    return game, policy


def _batch(game, rng, hands: int = 10, mask: str = "undominated"):
    tables = deal(game, 4, rng, batch=(hands + 3) // 4, mask=mask)
    views = tables.views()[:hands]
    obs = th.as_tensor(np.stack([v.observation for v in views]))
    masks = np.stack([v.mask for v in views])
    actions = th.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in masks])
    return obs, masks, actions


def _reference(policy, obs, masks, actions):
    """Values, log probabilities and entropies as sb3-contrib computes them from the full logits."""
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
    distribution = MaskableCategoricalDistribution(policy.action_net.n_actions).proba_distribution(
        policy.action_net(latent_pi))
    distribution.apply_masking(masks)
    return policy.value_net(latent_vf), distribution.log_prob(actions), distribution.entropy()


def _gradients(policy, outputs):
    values, log_prob, entropy = outputs
    policy.zero_grad()
    (0.5 * values.sum() + 0.7 * log_prob.sum() + 0.3 * entropy.sum()).backward()
    return {k: p.grad.clone() for k, p in policy.named_parameters() if p.grad is not None}


@pytest.mark.parametrize("game_name,split_hidden,big", [("thirteen", 0, False), ("thirteen", 4, False),
                                                        ("biji", 8, False), ("biji", 0, False),
                                                        ("thirteen", 0, True), ("biji", 8, True)])
@pytest.mark.parametrize("given", ["bool", "lists"])
def test_marked_splits_give_the_masked_categorical_s_values_and_gradients(game_name, split_hidden, big, given,
                                                                         rng):
    game, policy = _policy(game_name, split_hidden, big)
    obs, masks, actions = _batch(game, rng)
    marked = sparse.marked_splits(masks)
    assert marked is not None and marked.ids.shape[1] == masks.sum(1).max()
    given_masks = th.as_tensor(masks) if given == "bool" else marked.tensor()
    fast = policy.evaluate_actions(obs, actions, given_masks)
    slow = _reference(policy, obs, masks, actions)
    for got, expected in zip(fast, slow):
        th.testing.assert_close(got.reshape(expected.shape), expected, rtol=1e-4, atol=1e-5)
    fast_grads, slow_grads = _gradients(policy, fast), _gradients(policy, slow)
    assert fast_grads.keys() == slow_grads.keys()
    for name, expected in slow_grads.items():
        th.testing.assert_close(fast_grads[name], expected, rtol=2e-3, atol=2e-5, msg=name)


@pytest.mark.parametrize("game_name,split_hidden", [("thirteen", 4), ("biji", 8)])
def test_distribution_over_marked_splits_equals_the_full_width_one(game_name, split_hidden, rng):
    """log_prob, log_probs of several actions, entropy, the argmax and the draws of
    :class:`SplitDistribution` over marked splits equal the full-width kernels' over the same
    masks; an action outside the mask has log probability -inf."""
    game, policy = _policy(game_name, split_hidden)
    obs, masks, actions = _batch(game, rng)
    several = th.as_tensor(np.stack([rng.choice(np.flatnonzero(m), 3) for m in masks]))
    uniforms = rng.random(len(obs))
    outside = th.as_tensor([int(np.flatnonzero(~m)[0]) for m in masks])

    def read(distribution):
        return (distribution.log_prob(actions), distribution.entropy(), distribution.log_probs(several),
                distribution.mode(), th.as_tensor(distribution.choices(uniforms)))

    with th.no_grad():
        distribution = policy.get_distribution(obs, sparse.marked_splits(masks))  # the policy's one instance
        assert distribution.marked is not None
        marked = read(distribution)
        assert th.isinf(distribution.log_prob(outside)).all()
        with pytest.raises(ValueError, match="is not a valid split"):
            log_probs(distribution, outside[:, None])
        share, sparse.SPARSE_SHARE = sparse.SPARSE_SHARE, 0.0
        try:
            distribution = policy.get_distribution(obs, masks)
            assert distribution.marked is None
            dense = read(distribution)
        finally:
            sparse.SPARSE_SHARE = share
    for got, expected in zip(marked[:3], dense[:3]):
        th.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
    assert th.equal(marked[3], dense[3]) and th.equal(marked[4], dense[4])


def test_masks_of_every_valid_split_keep_the_full_width_path(rng):
    """Valid masks mark too many splits to be read as lists: the sb3-contrib path serves."""
    for name in ("thirteen", "biji"):
        game, policy = _policy(name, 4)
        _, masks, _ = _batch(game, rng, hands=4, mask="valid")
        assert sparse.marked_splits(masks) is None
        assert policy.get_distribution(_batch(game, rng, hands=4, mask="valid")[0], masks).marked is None


def test_marked_splits_read_as_dense_masks(rng):
    masks = rng.random((5, 300)) < 0.02
    masks[:, 7] = True
    marked = sparse.marked_splits(masks)
    assert marked is not None and np.array_equal(marked.dense(), masks)
    assert np.array_equal(marked.tensor().numpy(), masks) and sparse.carried(marked.tensor()) is marked
    assert sparse.carried(th.as_tensor(masks)) is None
    assert np.array_equal(marked.ids[marked.valid], np.nonzero(masks)[1])
    assert (np.diff(np.where(marked.valid, marked.ids, 10**6), axis=1) >= 0).all()
    lists = sparse.from_lists([np.flatnonzero(m) for m in masks], 300)
    assert np.array_equal(lists.ids, marked.ids) and np.array_equal(lists.counts, marked.counts)
    assert sparse.marked_splits(np.zeros((2, 300), dtype=bool)) is None  # a hand without a marked split
    assert sparse.marked_splits(np.zeros((0, 300), dtype=bool)) is None  # no hand


def test_marked_statistics_sum_over_each_hand_s_own_splits(rng):
    """The log normaliser and entropy of hands of very different counts (one split, a few,
    hundreds), their splits one after another: each hand's own logsumexp and entropy, and the
    gradient of the normaliser is the hand's softmax."""
    counts = [1, 5, 300, 2]
    hands = th.as_tensor(np.repeat(np.arange(len(counts)), counts))
    logits = th.as_tensor(rng.normal(0, 3, sum(counts)).astype(np.float32), dtype=th.float32).requires_grad_()
    log_z, entropy = sparse.marked_statistics(logits, hands, len(counts))
    log_z.sum().backward()
    log_z, entropy = log_z.detach(), entropy.detach()
    for b, part in enumerate(th.split(logits.detach().double(), counts)):
        p = th.softmax(part, 0)
        assert float(log_z[b]) == pytest.approx(float(th.logsumexp(part, 0)), abs=1e-12)
        assert float(entropy[b]) == pytest.approx(float(-(p * p.log()).sum()), abs=1e-12)
        assert th.allclose(th.split(logits.grad, counts)[b].double(), p, atol=1e-6)
    assert float(entropy[0]) == 0.0


@pytest.mark.parametrize("width", [1, 7, 8, 63, 64, 65, 127, 128, 200, 1001, 1680])
def test_marked_splits_equal_a_plain_scan(width, rng):
    """The compiled scan (64 entries skipped at a time, marked entries found from a word's set
    bits) lists what ``np.flatnonzero`` finds, hand by hand, at widths around its 8- and
    64-entry blocks; a hand at the limit of few is read as a list, one past it is not."""
    limit = int(width * sparse.SPARSE_SHARE)
    for density in (0.01, 0.05, 0.3):
        masks = rng.random((6, width)) < density
        masks[:, rng.integers(width)] = True
        got, lists = sparse.marked_splits(masks), [np.flatnonzero(m) for m in masks]
        if max(map(len, lists)) > limit:
            assert got is None
            continue
        assert got is not None
        expected = sparse.from_lists(lists, width)
        assert np.array_equal(got.ids, expected.ids) and np.array_equal(got.counts, expected.counts)
    if limit:
        masks = np.zeros((3, width), dtype=bool)
        masks[:, -limit:] = True  # at the limit, in the last entries (the tail after the whole blocks)
        assert sparse.marked_splits(masks) is not None
        masks[1, -limit - 1] = True
        assert sparse.marked_splits(masks) is None


def test_rollout_buffer_keeps_few_marked_splits_as_lists(rng):
    """Masks of few splits are kept as lists alone and come back from the buffer as the bool
    masks (SB3's env-major order) carrying their :class:`MarkedSplits`, or as the lists alone
    to a policy that reads them (``lists_read``); a step with a mask of
    many splits is kept as bits, and a minibatch that draws from it comes back as plain bool
    masks, those of the other steps made from their lists."""
    from gymnasium import spaces

    from splitpoker.train.buffers import PackedMaskRolloutBuffer

    n_actions, n_envs, steps = 1001, 3, 4

    def filled(masks, keep=False, lists_read=False):
        buffer = PackedMaskRolloutBuffer(steps, spaces.Box(-1, 1, (2,)), spaces.Discrete(n_actions), "cpu",
                                         n_envs=n_envs, lists_read=lists_read)
        for t in range(steps):
            buffer.add(np.zeros((n_envs, 2)), np.zeros((n_envs, 1)), np.zeros(n_envs), np.zeros(n_envs, dtype=bool),
                       th.zeros(n_envs), th.zeros(n_envs), action_masks=masks[t])
        buffer.compute_returns_and_advantage(th.zeros(n_envs), np.zeros(n_envs, dtype=bool))
        return buffer if keep else list(buffer.get(batch_size=5))

    masks = rng.random((steps, n_envs, n_actions)) < 0.02
    masks[..., 3] = True
    expected = masks.swapaxes(0, 1).reshape(-1, n_actions)  # SB3's env-major flattening
    batches = filled(masks)
    for b in batches:
        marked = sparse.carried(b.action_masks)
        assert marked is not None and np.array_equal(marked.dense(), b.action_masks.numpy())
    got = np.concatenate([b.action_masks.numpy() for b in batches])
    assert got.dtype == bool and sorted(map(bytes, got)) == sorted(map(bytes, expected))
    lists = filled(masks, lists_read=True)  # for a policy that reads lists: the lists alone
    assert all(isinstance(b.action_masks, sparse.MarkedSplits) for b in lists)
    got = np.concatenate([b.action_masks.dense() for b in lists])
    assert sorted(map(bytes, got)) == sorted(map(bytes, expected))
    masks[2, 1, :200] = True  # a hand of many splits at step 2: that step is kept as bits, the rest as lists
    buffer = filled(masks, keep=True)
    assert not buffer.action_masks[[0, 1, 3]].any() and buffer.action_masks[2].any()  # lists, not bits too
    batches = list(buffer.get(batch_size=12))  # all 12 hands: lists and bits in one minibatch
    assert sparse.carried(batches[0].action_masks) is None
    got = batches[0].action_masks.numpy()
    assert sorted(map(bytes, got)) == sorted(map(bytes, masks.swapaxes(0, 1).reshape(-1, n_actions)))
    masks[:, 1, :200] = True  # a hand of many splits each step: every minibatch as bits
    batches = filled(masks)
    assert all(sparse.carried(b.action_masks) is None for b in batches)
    got = np.concatenate([b.action_masks.numpy() for b in batches])
    assert sorted(map(bytes, got)) == sorted(map(bytes, masks.swapaxes(0, 1).reshape(-1, n_actions)))


@pytest.mark.parametrize("kind", ["split_scorer", "mlp"])
def test_selfplay_over_the_candidates_trains_on_their_lists(tmp_path, kind):
    """A rollout of ``selfplay.mask: undominated`` keeps every mask as a list, and the PPO
    update reads them: the split scorer over the marked splits alone, an ``mlp`` policy from
    the bool masks they come with."""
    from splitpoker.train.config import load_config_dict
    from splitpoker.train.learner import run_meta
    from splitpoker.train.ppo import build_model, make_vec_env
    from splitpoker.train.selfplay import OpponentPool
    from tests.test_train import tiny

    config = load_config_dict(tiny(tmp_path, "thirteen", kind=kind, selfplay={"mask": "undominated"}))
    game = make_game("thirteen")
    pool = OpponentPool(game, config.num_players, run_meta(config, game, 0), config.selfplay, seed=0)
    env = make_vec_env(config, game, pool)
    try:
        model = build_model(config, env)
        before = [p.detach().clone() for p in model.policy.parameters()]
        model.learn(total_timesteps=config.ppo.n_steps * config.n_envs)
        assert all(marked is not None for marked in model.rollout_buffer.marked)
        samples = next(model.rollout_buffer.get(config.ppo.batch_size))
        assert sparse.carried(samples.action_masks) is not None
        values, log_prob, entropy = model.policy.evaluate_actions(samples.observations, samples.actions.long(),
                                                                  samples.action_masks)
        assert th.isfinite(log_prob).all() and th.isfinite(entropy).all() and th.isfinite(values).all()
        assert any(not th.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    finally:
        env.close()


def test_reused_first_layer_arrays_give_the_same_gradients_and_one_backward(rng):
    """The first layer's output is reused from one pass to the next: repeated passes give the
    same gradients, a pass without gradients gives its array back at once, and a second
    backward through one graph is refused rather than reading a reused array."""
    game, policy = _policy("thirteen", 0)
    obs, masks, actions = _batch(game, rng)
    marked = sparse.marked_splits(masks).tensor()
    first = _gradients(policy, policy.evaluate_actions(obs, actions, marked))
    with th.no_grad():
        policy.evaluate_actions(obs[:3], actions[:3], sparse.marked_splits(masks[:3]).tensor())
    second = _gradients(policy, policy.evaluate_actions(obs, actions, marked))
    for name, expected in first.items():
        assert th.equal(second[name], expected), name
    values, log_prob, entropy = policy.evaluate_actions(obs, actions, marked)
    (values.sum() + log_prob.sum() + entropy.sum()).backward(retain_graph=True)
    with pytest.raises(RuntimeError, match="one backward pass"):
        (values.sum() + log_prob.sum() + entropy.sum()).backward()
