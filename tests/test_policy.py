"""Policy networks and the agents that play saved policies (agents/learned/networks.py, agents/learned/checkpoint.py,
agents/learned/policy.py)."""

from __future__ import annotations

import itertools
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch as th

from splitpoker.agents import load_agent
from splitpoker.agents.learned import checkpoint, distribution, networks, subset_ops
from splitpoker.agents.learned import policy as P
from splitpoker.envs.cards import format_cards, parse_cards
from splitpoker.envs.games import game_class, make_game
from splitpoker.envs.observation import SLOT_FEATURES, encode_observation
from splitpoker.envs.table import deal

ARCH = {"subset_hidden": 16, "embed_dim": 8, "split_hidden": 4, "value_hidden": 8}


def _hand(game, rng):
    return game.slots(rng.permutation(game.deck())[: game.hand_size])


def _policy(game_name: str, kind: str = "split_scorer", arch=None, num_players: int = 4):
    game = make_game(game_name)
    arch = dict(ARCH if kind == "split_scorer" else {"net_arch": [8]}) if arch is None else arch
    meta = checkpoint.policy_meta(game, num_players, kind, arch)
    th.manual_seed(0)
    return game, meta, networks.build_policy(meta)


@pytest.mark.parametrize("game_name", ["biji", "thirteen"])
def test_split_scorer_gives_one_logit_per_split(game_name, rng):
    game, _, policy = _policy(game_name)
    obs = np.stack([encode_observation(game, _hand(game, rng), s, 4) for s in range(3)])
    logits = networks.action_logits(policy, th.as_tensor(obs))
    assert logits.shape == (3, game.n_actions)
    assert th.isfinite(logits).all()
    values = policy.predict_values(th.as_tensor(obs))
    assert values.shape == (3, 1)


def test_split_scorer_head_does_not_grow_with_actions():
    sizes = {}
    for name in ("biji", "thirteen"):
        _, _, policy = _policy(name)
        sizes[name] = sum(p.numel() for p in policy.action_net.parameters())
    assert sizes["biji"] == sizes["thirteen"]


def test_additive_split_scorer_is_the_sum_of_row_scores(rng):
    game, _, policy = _policy("thirteen", arch={**ARCH, "split_hidden": 0})
    slots = _hand(game, rng)
    obs = th.as_tensor(encode_observation(game, slots, 0, 4))[None]
    with th.no_grad():
        logits = networks.action_logits(policy, obs)[0]
        emb = policy.mlp_extractor.embeddings(obs)
        head = policy.action_net
        scalars = [head.row_scalars[r](emb[game.split_index.row_sizes[r]])[0, :, 0] for r in range(3)]
    subsets = {k: [tuple(s) for s in game.split_index.subsets(k)] for k in (3, 5)}
    for index in rng.integers(game.n_actions, size=20):
        rows = game.split_index.decode(int(index))
        expected = sum(scalars[r][subsets[len(row)].index(tuple(row))] for r, row in enumerate(rows))
        assert logits[index].item() == pytest.approx(expected.item(), rel=1e-4, abs=1e-5)


def test_chunked_interaction_matches_one_pass(monkeypatch, rng):
    game, _, policy = _policy("biji")
    obs = th.as_tensor(np.stack([encode_observation(game, _hand(game, rng), 0, 4) for _ in range(4)]))
    whole = networks.action_logits(policy, obs)
    whole.sum().backward()
    grads = {n: p.grad.clone() for n, p in policy.named_parameters() if p.grad is not None}
    assert any(n.startswith("action_net.row_vectors") for n in grads)
    policy.zero_grad()
    monkeypatch.setattr(networks, "_CHUNK_FLOATS", 64)  # many chunks, gradient checkpointing on
    chunked = networks.action_logits(policy, obs)
    chunked.sum().backward()
    assert th.allclose(whole, chunked, atol=1e-5)
    for name, p in policy.named_parameters():
        if name in grads:
            assert th.allclose(grads[name], p.grad, atol=1e-5), name


def test_subset_features_see_pairs_flushes_and_straights():
    game = make_game("thirteen")
    cards = parse_cards("2h 3h 4h 5h 6h As Ad Ac Ks Qd Jc 9s 8d")
    slots = game.slots(cards)
    obs = th.as_tensor(encode_observation(game, slots, 0, 4))
    per_slot = obs[: 13 * 19].reshape(13, 19)
    index = {c: i for i, c in enumerate(slots)}
    straight_flush = per_slot[[index[c] for c in parse_cards("2h 3h 4h 5h 6h")]][None]
    trips = per_slot[[index[c] for c in parse_cards("As Ad Ac")]][None]
    f5, f3 = subset_ops.subset_features(straight_flush)[0], subset_ops.subset_features(trips)[0]
    k5 = 5 * 19
    assert f5[k5 + 13 + 4 + 2 + 4].item() == 1.0  # one suit
    windows = f5[k5 + 13 + 4 + 2 + 4 + 1:]
    assert windows.tolist() == [0.0, 1.0] + [0.0] * 8  # 2-6 is the second window (A-5 is the first)
    k3 = 3 * 19
    profile = f3[k3 + 13 + 4 + 2: k3 + 13 + 4 + 2 + 4]
    assert profile.tolist() == [0.0, 0.0, 1.0, 0.0]  # one rank three times


def test_masked_choice_argmax_sample_and_empty():
    logits = np.array([5.0, 1.0, 3.0, 9.0])
    mask = np.array([1, 1, 1, 0], dtype=bool)
    assert P.masked_choice(logits, mask, None) == 0
    picks = {P.masked_choice(logits, mask, np.random.default_rng(s)) for s in range(50)}
    assert picks <= {0, 1, 2} and 0 in picks
    with pytest.raises(ValueError, match="no valid split"):
        P.masked_choice(logits, np.zeros(4, dtype=bool), None)


@pytest.fixture
def saved_policy(tmp_path):
    game, meta, policy = _policy("biji")
    path = checkpoint.write_policy_file(tmp_path / "p.zip", meta, policy.state_dict())
    return game, path, policy


def test_policy_file_loads_as_a_deterministic_legal_agent(saved_policy, rng):
    game, path, policy = saved_policy
    agent = load_agent(f"checkpoint:{path}", game="biji", num_players=4)
    assert agent.name == f"checkpoint:{path}"
    for _ in range(5):
        slots = _hand(game, rng)
        mask = game.valid_mask(slots)
        obs = encode_observation(game, slots, 1, 4)
        info = {"hand": format_cards(slots).split(), "seat": 1, "num_players": 4}
        first = agent.act(obs, mask.astype(np.int8), info)
        assert mask[first] and agent.act(obs, mask.astype(np.int8), info) == first
        with th.no_grad():
            logits = networks.action_logits(policy.eval(), th.as_tensor(obs)[None])[0].numpy()
        candidates = game.candidate_mask(slots)  # a decision chooses among the candidates the mask holds
        assert first == int(np.flatnonzero(candidates)[np.argmax(logits[candidates])])
        agent.over = "mask"
        assert agent.act(obs, mask.astype(np.int8), info) == int(np.flatnonzero(mask)[np.argmax(logits[mask])])
        agent.over = "candidates"


def test_policy_file_for_another_game_or_table_size_is_an_error(saved_policy):
    _, path, _ = saved_policy
    with pytest.raises(ValueError, match="trained for biji, not thirteen"):
        load_agent(f"checkpoint:{path}", game="thirteen", num_players=4)
    with pytest.raises(ValueError, match="trained for 4 players, not 3"):
        load_agent(f"checkpoint:{path}", game="biji", num_players=3)


def test_missing_or_foreign_files_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_agent(f"checkpoint:{tmp_path / 'nope.zip'}", game="biji")
    (tmp_path / "junk.zip").write_text("not a zip")
    with pytest.raises(ValueError, match="not a zip file"):
        load_agent(f"checkpoint:{tmp_path / 'junk.zip'}", game="biji")
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as archive:
        archive.writestr("data", "{}")
    with pytest.raises(ValueError, match="not a splitpoker policy"):
        load_agent(f"checkpoint:{tmp_path / 'other.zip'}", game="biji")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no checkpoint"):
        load_agent(f"checkpoint:{tmp_path / 'empty'}", game="biji")


def test_unknown_pretrained_name_lists_the_available_ones(monkeypatch, tmp_path, saved_policy):
    _, path, _ = saved_policy
    monkeypatch.setattr(checkpoint, "PRETRAINED_DIR", tmp_path)
    (tmp_path / "shipped.zip").write_bytes(path.read_bytes())
    with pytest.raises(ValueError, match="no pretrained policy 'nope'; available: p, shipped"):
        load_agent("pretrained:nope", game="biji")
    assert load_agent("pretrained:shipped", game="biji").name == "pretrained:shipped"


def test_unknown_policy_kind_is_an_error():
    with pytest.raises(ValueError, match="unknown policy 'cnn'; policies: mlp, split_scorer"):
        networks.policy_class("cnn")


def test_mlp_policy_builds_and_plays(tmp_path, rng):
    game, meta, policy = _policy("biji", kind="mlp")
    path = checkpoint.write_policy_file(tmp_path / "mlp.zip", meta, policy.state_dict())
    agent = load_agent(f"checkpoint:{path}", game=game, num_players=4)
    slots = _hand(game, rng)
    mask = game.valid_mask(slots)
    assert mask[agent.act(encode_observation(game, slots, 0, 4), mask, {})]


def test_shipped_pretrained_policy_plays(rng):
    names = checkpoint.pretrained_names()
    assert "biji_classic_4p" in names
    game = make_game("biji")
    agent = load_agent("pretrained:biji_classic_4p", game=game, num_players=4)
    slots = _hand(game, rng)
    mask = game.valid_mask(slots)
    assert mask[agent.act(encode_observation(game, slots, 2, 4), mask.astype(np.int8), {})]
    with pytest.raises(ValueError, match="trained for 4 players, not 5"):
        load_agent("pretrained:biji_classic_4p", game=game, num_players=5)


@pytest.mark.parametrize("name", checkpoint.pretrained_names())
def test_every_shipped_policy_plays_its_own_rules_legally(name, rng):
    """Each shipped policy loads without a warning at the game, table size and rules it was
    trained for, and plays valid splits of dealt hands in every seat."""
    import warnings

    meta = checkpoint.read_meta(checkpoint.PRETRAINED_DIR / f"{name}.zip")
    game = make_game(meta["game"], meta["preset"])
    assert game.rules.to_dict() == meta["rules"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent = load_agent(f"pretrained:{name}", game=game, num_players=meta["num_players"])
    tables = deal(game, meta["num_players"], rng, batch=3)
    views = [tables.view(b, seat) for b in range(3) for seat in range(meta["num_players"])]
    actions = agent.act_batch(views)
    assert all(view.mask[a] for view, a in zip(views, actions))


def test_format_1_policies_read_the_new_seat_features_with_zero_weights():
    """A Thirteen policy saved before the banker-position entries (format 1): read with zero
    weights for them, it decides exactly as before on the observation without them."""
    import io
    import json
    import zipfile

    import torch as th

    from splitpoker.envs.table import deal

    path = Path(__file__).parent / "data" / "thirteen_policy_format1.zip"
    with zipfile.ZipFile(path) as archive:
        raw_meta = json.loads(archive.read(checkpoint.META_MEMBER).decode())
        raw_state = th.load(io.BytesIO(archive.read(checkpoint.POLICY_MEMBER)), map_location="cpu", weights_only=True)
    assert raw_meta["format"] == "splitpoker-policy/1" and raw_meta["observation_size"] == 277
    old = networks.build_policy(raw_meta)
    old.load_state_dict(raw_state)
    game = make_game("thirteen", "banker")
    agent = load_agent(f"checkpoint:{path}", game=make_game("thirteen"), num_players=4)
    observations = np.stack([v.observation for v in deal(game, 4, np.random.default_rng(1), batch=3).views()])
    assert observations.shape[1] == 281 and observations[:, 277:].sum() == len(observations)
    with th.inference_mode():
        before = networks.action_logits(old, th.as_tensor(observations[:, :277])).numpy()
    assert np.array_equal(agent.logits(observations), before)


# --------------------------------------------------------------------------- the fast paths
def _batch(game, rng, hands: int = 6, mask: str = "valid"):
    from splitpoker.envs.table import deal

    tables = deal(game, 4, rng, batch=(hands + 3) // 4, mask=mask)
    views = tables.views()[:hands]
    obs = th.as_tensor(np.stack([v.observation for v in views]))
    masks = np.stack([v.mask for v in views])
    return obs, masks


def _reference_embeddings(extractor, obs):
    """The subset embeddings as defined: card_layers over :func:`_subset_features` of each subset."""
    n = extractor.n_slots
    slots = obs[:, : n * SLOT_FEATURES].reshape(-1, n, SLOT_FEATURES)
    context = obs[:, n * SLOT_FEATURES:]
    out = {}
    for k in extractor.sizes:
        cards = slots[:, th.as_tensor(extractor.subsets(k))]
        hidden = extractor.card_layers[str(k)](subset_ops.subset_features(cards))
        hidden = th.relu(hidden + extractor.context_layers[str(k)](context)[:, None, :])
        out[k] = th.relu(extractor.embed_layers[str(k)](hidden))
    return out


@pytest.mark.parametrize("game_name", ["biji", "thirteen"])
def test_subset_embeddings_equal_the_features_they_are_defined_by(game_name, rng):
    game, _, policy = _policy(game_name)
    obs, _ = _batch(game, rng)
    with th.no_grad():
        fast, slow = policy.mlp_extractor.embeddings(obs), _reference_embeddings(policy.mlp_extractor, obs)
    for k in slow:
        assert th.allclose(fast[k], slow[k], atol=1e-5), k


@pytest.mark.parametrize("game_name", ["biji", "thirteen"])
def test_subset_embedding_gradients_equal_those_of_the_definition(game_name, rng):
    """The first layer's kernels (forward and backward) give the parameters the gradients
    that autograd gives the definition."""
    game, _, policy = _policy(game_name)
    obs, _ = _batch(game, rng)
    extractor = policy.mlp_extractor
    weights = {k: th.randn(len(obs), extractor.n_subsets[k], extractor.embed_dim,
                           generator=th.Generator().manual_seed(k))
               for k in extractor.sizes}

    def gradients(embed):
        extractor.zero_grad()
        out = embed(obs)
        sum((out[k] * weights[k]).sum() for k in out).backward()
        return {name: p.grad.clone() for name, p in extractor.named_parameters() if p.grad is not None}

    fast, slow = gradients(extractor.embeddings), gradients(lambda o: _reference_embeddings(extractor, o))
    assert fast.keys() == slow.keys() and any(name.startswith("card_layers") for name in fast)
    for name in slow:
        assert th.allclose(fast[name], slow[name], rtol=1e-4, atol=1e-4), name


@pytest.mark.parametrize("game_name,split_hidden", [("thirteen", 0), ("thirteen", 4), ("biji", 8)])
def test_numpy_decisions_equal_the_torch_modules(game_name, split_hidden, rng):
    """The agents' NumPy inference (:mod:`splitpoker.agents.learned.split_inference`) computes the
    policy's row scores and interaction terms, and so its decisions, argmax and sampled."""
    from splitpoker.agents.learned import split_inference

    game, _, policy = _policy(game_name, arch={**ARCH, "split_hidden": split_hidden})
    for module in policy.modules():  # weights far from their small initial values
        if isinstance(module, th.nn.Linear):
            th.nn.init.normal_(module.weight, std=0.5)
    obs, masks = _batch(game, rng, hands=8)
    with th.no_grad():
        want = policy.action_net.row_scores(policy.mlp_extractor.forward_actor(obs))
        distribution = policy.get_distribution(obs, masks)
    got = split_inference.row_scores(policy, obs.numpy())
    assert (got[3] is None) == (split_hidden == 0)
    for a, b in zip(got, want):
        if b is not None:
            assert a.shape == tuple(b.shape) and np.allclose(a, b.numpy(), rtol=1e-4, atol=1e-4)
    uniforms = rng.random(len(obs))
    assert np.array_equal(split_inference.choices(policy, obs.numpy(), masks, None), distribution.choices(None))
    assert np.array_equal(split_inference.choices(policy, obs.numpy(), masks, uniforms),
                          distribution.choices(uniforms))
    with pytest.raises(ValueError, match="no valid split"):
        split_inference.choices(policy, obs.numpy()[:1], np.zeros_like(masks[:1]), None)


@pytest.mark.parametrize("game_name,split_hidden", [("thirteen", 0), ("thirteen", 4), ("biji", 3)])
def test_argmax_is_the_first_highest_of_the_float32_logits(game_name, split_hidden, rng):
    """The compiled argmax picks what ``argmax`` of the policy's own (float32) masked logits
    picks, the first of equal ones, with the interaction term read in full or computed from
    the row vectors for the valid splits only (skipping those its bound rules out), and, for
    a scorer without one, with or without skipping the first rows that their bounds rule out
    (visited best bound first): on scores drawn from a few values (many exact ties), on
    scores whose float32 and float64 sums order some splits differently, and on an
    interaction term that outweighs the row scores."""
    from splitpoker.agents.learned.split_kernels import (
        choose_splits,
        interacting_argmax,
        split_interactions,
    )

    game, _, policy = _policy(game_name, arch={**ARCH, "split_hidden": split_hidden})
    head = policy.action_net
    tables = head.tables()
    _, masks = _batch(game, rng, hands=6)
    subsets = [int(column.max()) + 1 for column in tables]
    few, close = (lambda *size: rng.integers(-3, 4, size) / 4), (lambda *size: 1 + rng.random(size) * 1e-6)
    for scores, vector, weights in ((few, few, few), (close, close, close),
                                    (lambda *size: rng.normal(0, 0.05, size), lambda *size: rng.normal(0, 8, size),
                                     lambda *size: rng.normal(0, 1, size))):
        s0, s1, s2 = (scores(6, m).astype(np.float32) for m in subsets)
        vectors = [vector(6, m, split_hidden).astype(np.float32) for m in subsets]
        weight = weights(split_hidden).astype(np.float32)
        extra = split_interactions(*vectors, *tables, weight) if split_hidden else None
        logits = head.logits_of(*(th.as_tensor(x) for x in (s0, s1, s2)),
                                None if extra is None else th.as_tensor(extra)).numpy()
        want = np.where(masks, logits, -np.inf).argmax(axis=1).tolist()
        assert choose_splits(s0, s1, s2, tables, extra, masks, None)[0].tolist() == want
        if split_hidden:
            assert interacting_argmax(s0, s1, s2, *vectors, *tables, weight, masks).tolist() == want
        else:
            assert choose_splits(s0, s1, s2, tables, extra, masks, None, head.row_masks)[0].tolist() == want


@pytest.mark.parametrize("game_name", ["thirteen", "biji"])
def test_first_row_bounds_bound_every_split_of_their_first_row(game_name, rng):
    """A first row's bound is at least the float32 row-score sum of every split that has it
    (so skipping a first row whose bound is below a logit found never skips the best), and
    it is the sum of its score and the highest second- and third-row scores of subsets
    disjoint from it, searched naively, for nearly every first row: a bound that tight is
    what lets the argmax skip most first rows."""
    from splitpoker.agents.learned.split_kernels import first_row_bounds

    index = game_class(game_name).split_index
    table = index.table.astype(np.int64)
    masks = [index.subset_masks(k) for k in index.row_sizes]
    s0, s1, s2 = (rng.normal(0, 1, (4, len(m))).astype(np.float32) for m in masks)
    bounds = first_row_bounds(s0, s1, s2, *masks)
    sums = (s0[:, table[:, 0]] + s1[:, table[:, 1]]) + s2[:, table[:, 2]]
    assert sums.dtype == np.float32 and (bounds[:, table[:, 0]] >= sums).all()
    disjoint = (masks[0][:, None] & masks[1][None]) == 0, (masks[0][:, None] & masks[2][None]) == 0
    best1 = np.where(disjoint[0][None], s1[:, None], -np.inf).max(2)
    best2 = np.where(disjoint[1][None], s2[:, None], -np.inf).max(2)
    naive = ((s0 + best1.astype(np.float32)) + best2.astype(np.float32))
    assert (bounds >= naive).all() and (bounds == naive).mean() > 0.99


@pytest.mark.parametrize("game_name,count", [("biji", 200), ("thirteen", 40)])
def test_subset_shapes_kernel_matches_the_feature_definition(game_name, count, rng):
    """Biji's jokers, Thirteen's straights (the wheel and broadway among them) and flushes."""
    from splitpoker.agents.learned.subset_kernels import slot_ids, subset_shapes

    game = make_game(game_name)
    n = game.hand_size
    wheel = game.slots(parse_cards("As 2d 3h 4s 5c 9d Jc Kh Qs Td 7c 8h 6d")[:n])
    hands = np.stack([wheel] + [_hand(game, rng) for _ in range(count)])
    obs = th.as_tensor(np.stack([encode_observation(game, h, 0, 4) for h in hands]))
    slots = obs[:, : n * SLOT_FEATURES].reshape(-1, n, SLOT_FEATURES)
    ranks, suits = slot_ids(slots.numpy())
    for k in (3, 5):
        subsets = np.array(list(itertools.combinations(range(n), k)))
        reference = subset_ops.subset_features(slots[:, th.as_tensor(subsets)])[..., k * SLOT_FEATURES + 19:]
        shapes = subset_shapes(ranks, suits, subsets)
        assert np.array_equal(shapes, reference.numpy())
        assert shapes[..., 5:].any(), "no straight among the subsets"
        # each subset's counts are updated from the one before: any order of the subsets
        order = rng.permutation(len(subsets))
        assert np.array_equal(subset_shapes(ranks, suits, subsets[order]), shapes[:, order])


@pytest.mark.parametrize("game_name,split_hidden,mask", [("thirteen", 0, "valid"), ("thirteen", 4, "valid"),
                                                         ("biji", 8, "valid"), ("thirteen", 4, "undominated"),
                                                         ("biji", 8, "undominated")])
def test_split_distribution_equals_the_masked_categorical_with_its_gradients(game_name, split_hidden, mask, rng):
    """Log probabilities, entropies and their gradients from the row-score kernels equal
    sb3-contrib's masked categorical over the head's full logits, over every valid split
    and over the candidates alone."""
    from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution

    game, _, policy = _policy(game_name, arch={**ARCH, "split_hidden": split_hidden})
    obs, masks = _batch(game, rng, mask=mask)
    actions = th.as_tensor([int(rng.choice(np.flatnonzero(m))) for m in masks])

    def gradients(log_prob, entropy):
        policy.zero_grad()
        (0.7 * log_prob.sum() + 0.3 * entropy.sum()).backward()
        return {k: p.grad.clone() for k, p in policy.named_parameters() if p.grad is not None}

    _, log_prob, entropy = policy.evaluate_actions(obs, actions, th.as_tensor(masks))
    fast = gradients(log_prob, entropy)
    reference = MaskableCategoricalDistribution(game.n_actions).proba_distribution(
        policy.action_net(policy.mlp_extractor.forward_actor(obs)))
    reference.apply_masking(masks)
    ref_log_prob, ref_entropy = reference.log_prob(actions), reference.entropy()
    slow = gradients(ref_log_prob, ref_entropy)
    assert th.allclose(log_prob, ref_log_prob, atol=1e-5) and th.allclose(entropy, ref_entropy, atol=1e-4)
    assert fast.keys() == slow.keys()
    for name in slow:
        assert th.allclose(fast[name], slow[name], atol=1e-5, rtol=1e-3), name
    distribution = policy.get_distribution(obs, masks)
    assert th.equal(distribution.mode(), reference.mode())


@pytest.mark.parametrize("game_name,kind,split_hidden", [("thirteen", "split_scorer", 0),
                                                          ("thirteen", "split_scorer", 4), ("biji", "mlp", 0)])
def test_log_probs_of_many_actions_equal_one_log_prob_per_column_with_their_gradients(game_name, kind,
                                                                                      split_hidden, rng):
    """:func:`log_probs` of K actions per hand (one pass of the kernels) and its gradients
    equal K calls of ``log_prob``, one per column."""
    game, _, policy = _policy(game_name, kind, arch={**ARCH, "split_hidden": split_hidden} if kind == "split_scorer"
                              else None)
    obs, masks = _batch(game, rng)
    actions = th.as_tensor(np.stack([rng.choice(np.flatnonzero(m), 5, replace=False) for m in masks]))
    weights = th.as_tensor(rng.random(actions.shape), dtype=th.float32)

    def fitted(columns):
        policy.zero_grad()
        log_p = columns(policy.get_distribution(obs, masks))
        (weights * log_p).sum().backward()
        return log_p.detach(), {k: p.grad.clone() for k, p in policy.named_parameters() if p.grad is not None}

    together, fast = fitted(lambda d: distribution.log_probs(d, actions))
    apart, slow = fitted(lambda d: th.stack([d.log_prob(actions[:, k]) for k in range(actions.shape[1])], 1))
    assert th.allclose(together, apart, atol=1e-5)
    assert fast.keys() == slow.keys()
    for name in slow:
        assert th.allclose(fast[name], slow[name], atol=1e-5, rtol=1e-3), name
    invalid = actions.clone()
    invalid[2, 3] = int(np.flatnonzero(~masks[2])[0])
    with pytest.raises(ValueError, match=f"action {int(invalid[2, 3])} of hand 2 is not a valid split"):
        distribution.log_probs(policy.get_distribution(obs, masks), invalid)


def test_split_distribution_samples_follow_its_probabilities():
    """The inverse-CDF samples of a hand land on valid splits with the policy's frequencies."""
    game, _, policy = _policy("biji")
    obs, masks = _batch(game, np.random.default_rng(5), hands=1)
    distribution = policy.get_distribution(obs.repeat(20000, 1), np.repeat(masks, 20000, 0))
    draws = distribution.choices(np.random.default_rng(0).random(20000))
    assert masks[0][draws].all()
    with th.no_grad():
        logits = policy.action_net(policy.mlp_extractor.forward_actor(obs))[0].double()
    probs = th.softmax(logits.masked_fill(~th.as_tensor(masks[0]), -th.inf), -1).numpy()
    counts = np.bincount(draws, minlength=game.n_actions) / 20000
    assert 0.5 * np.abs(counts - probs).sum() < 0.1  # total variation of 20,000 draws over ~600 splits


@pytest.mark.parametrize("game_name", ["biji", "thirteen"])
def test_drawn_splits_reuse_their_statistics_exactly(game_name):
    """A sample's log probabilities and entropy come from the pass that drew it, and equal to
    the bit those of a fresh distribution; other actions are computed anew."""
    game, _, policy = _policy(game_name)
    obs, masks = _batch(game, np.random.default_rng(2), hands=3)
    with th.no_grad():
        distribution = policy.get_distribution(obs, masks)
        drawn = distribution.sample()
        log_p, entropy = distribution.log_prob(drawn), distribution.entropy()
        fresh = policy.get_distribution(obs, masks)
        assert th.equal(log_p, fresh.log_prob(drawn)) and th.equal(entropy, fresh.entropy())
        other = fresh.mode()
        assert th.equal(distribution.log_prob(other), fresh.log_prob(other))
    assert masks[np.arange(3), drawn.numpy()].all()


#: per game and policy: the argmax splits of 12 seats (3 tables of 4, dealt from seed 5), the
#: sampled splits of the same seats (agent generator seeded 1 or 2), then 4 sampled single
#: ``act`` calls continuing that generator
PINNED_DECISIONS = {
    ("biji", "pretrained"): ([929, 1660, 1601, 60, 420, 1382, 1601, 1405, 660, 1291, 1593, 21],
                             [929, 1660, 1601, 60, 420, 1382, 1601, 1405, 3, 1291, 1593, 21],
                             [929, 1660, 1382, 40]),
    ("biji", 0): ([311, 1436, 3, 1623, 716, 896, 1239, 1001, 652, 731, 85, 1383],
                  [305, 209, 1133, 265, 631, 1015, 190, 25, 188, 1011, 722, 216], [610, 725, 399, 1097]),
    ("biji", 4): ([921, 1479, 1620, 1237, 193, 544, 144, 1163, 46, 146, 519, 563],
                  [305, 209, 1134, 265, 627, 1013, 190, 25, 188, 1012, 722, 213], [611, 725, 407, 1097]),
    ("thirteen", "pretrained"): (  # a policy over the offered splits
        [50959, 67192, 69603, 62063, 58211, 70812, 71945, 72019, 72026, 46892, 50995, 71827],
        [50959, 9701, 15240, 62063, 58211, 16383, 72071, 71573, 71856, 12620, 50995, 57470],
        [23284, 67087, 15240, 62063]),
    ("thirteen", 0): ([25798, 9343, 12625, 319, 13625, 5146, 22723, 1784, 44054, 12999, 51003, 39402],
                      [13727, 16202, 51949, 6872, 32964, 47915, 8418, 4319, 18144, 42651, 33649, 13402],
                      [23255, 37527, 25202, 43535]),
    ("thirteen", 4): ([22581, 2989, 1149, 39479, 36324, 28326, 5522, 63060, 44416, 16382, 6049, 42837],
                      [13733, 16292, 51972, 6877, 32995, 47885, 8418, 4319, 18108, 42663, 33619, 13376],
                      [23270, 37590, 25224, 43538]),
}


@pytest.mark.parametrize(("game_name", "policy"), list(PINNED_DECISIONS))
def test_policy_decisions_are_the_recorded_ones(game_name, policy):
    """Regression: argmax and sampled decisions, batched and one seat at a time, of the shipped
    policies and of seeded untrained split scorers (additive, and with an interaction term)."""
    game = make_game(game_name)
    views = deal(game, 4, np.random.default_rng(5), batch=3).views()
    agent, seed = _pinned_agent(game, game_name, policy)
    agent.over = "mask"  # the decisions recorded were over every split the mask marks
    argmax = agent.act_batch(views).tolist()
    agent.rng = np.random.default_rng(seed)
    sampled = agent.act_batch(views).tolist()
    single = [agent.act(v.observation, v.action_mask, v.info()) for v in views[:4]]
    assert (argmax, sampled, single) == PINNED_DECISIONS[game_name, policy]


def _pinned_agent(game, game_name, policy):
    if policy == "pretrained":
        return load_agent(f"pretrained:{game_name}_classic_4p", game, num_players=4), 1
    _, meta, module = _policy(game_name, arch={**ARCH, "split_hidden": policy})
    return P.PolicyAgent(module, meta, "untrained"), 2


@pytest.mark.parametrize(("game_name", "policy"), list(PINNED_DECISIONS))
def test_policy_decides_among_the_candidates_of_a_valid_mask(game_name, policy):
    """Given masks of every valid split, a policy decides (argmax and sampled, batched and one
    seat at a time) exactly as it does given the candidates as its masks (mask="undominated"),
    and every decision is a candidate."""
    game = make_game(game_name)
    valid = deal(game, 4, np.random.default_rng(5), batch=3).views()
    undominated = deal(game, 4, np.random.default_rng(5), batch=3, mask="undominated").views()
    agent, seed = _pinned_agent(game, game_name, policy)
    decided = []
    for views in (valid, undominated):
        agent.rng = None
        argmax = agent.act_batch(views).tolist()
        agent.rng = np.random.default_rng(seed)
        sampled = agent.act_batch(views).tolist()
        single = [agent.act(v.observation, v.action_mask, v.info()) for v in views[:4]]
        decided.append((argmax, sampled, single))
    assert decided[0] == decided[1]
    candidates = [game.candidate_mask(v.slots) for v in valid]
    assert all(candidates[i][a] for i, a in enumerate(decided[0][0]))


def test_listed_candidates_decide_as_their_masks():
    """A batch of table views, whose candidates the table core lists as indices (under either
    mask), decides as the same hands given their candidates as masks (``over="mask"``): also
    where a hand has more candidates than a sparse decision takes (decided densely from its
    list), and in a batch that mixes table views with views of an environment's mask."""
    game = make_game("thirteen")
    agent, seed = _pinned_agent(game, "thirteen", 32)
    valid = deal(game, 4, np.random.default_rng(4), batch=50).views()
    undominated = deal(game, 4, np.random.default_rng(4), batch=50, mask="undominated").views()
    assert max(len(v.tables.candidate_indices(v.table, v.seat)) for v in valid) > game.n_actions // 64
    listed = agent.listed_candidates(valid)
    assert listed is not None and all(row is not None for row in listed)
    assert [row.tolist() for row in agent.listed_candidates(undominated)] == [row.tolist() for row in listed]
    decided = {}
    for rng in (None, seed):
        for views, over in ((valid, "candidates"), (undominated, "mask")):
            agent.rng = None if rng is None else np.random.default_rng(rng)
            agent.over = over
            decided.setdefault(rng, []).append(agent.act_batch(views).tolist())
        assert decided[rng][0] == decided[rng][1]
    agent.rng, agent.over = None, "candidates"
    mixed = [*valid[:3], *(P.SeatView.from_env(v.observation, v.action_mask, v.info()) for v in valid[3:6])]
    assert agent.act_batch(mixed).tolist() == decided[None][0][:6]


def test_numpy_decisions_follow_parameter_updates(rng):
    """The NumPy decisions read the parameters through views made once per policy: an
    in-place update, ``load_state_dict`` (also with ``assign=True``, which replaces the
    parameters) and a deep copy all show in the next decision."""
    import copy

    from splitpoker.agents.learned import split_inference

    game, _, policy = _policy("thirteen")
    obs = np.stack([encode_observation(game, _hand(game, rng), 0, 4) for _ in range(3)]).astype(np.float32)
    other = copy.deepcopy(policy)
    with th.no_grad():
        for p in other.parameters():
            p.add_(th.randn_like(p))

    def same_as_torch(target):
        with th.no_grad():
            expected = target.action_net.row_scores(target.mlp_extractor.forward_actor(th.as_tensor(obs)))
        got = split_inference.row_scores(target, obs)
        return all(np.allclose(g, e.numpy(), rtol=1e-4, atol=1e-4) for g, e in zip(got[:3], expected[:3]))

    assert same_as_torch(policy)
    assert same_as_torch(other)
    with th.no_grad():
        policy.mlp_extractor.embed_layers["5"].bias.add_(1.0)  # in place, as an optimiser step
    assert same_as_torch(policy)
    for layers in (policy.mlp_extractor.card_layers, policy.mlp_extractor.context_layers):
        with th.no_grad():  # the first layers, which the decisions read laid out anew
            layers["3"].weight.add_(0.5 * th.randn_like(layers["3"].weight))
        assert same_as_torch(policy)
    policy.load_state_dict(other.state_dict())
    assert same_as_torch(policy)
    policy.load_state_dict(copy.deepcopy(_policy("thirteen")[2].state_dict()), assign=True)
    assert same_as_torch(policy)
    assert same_as_torch(copy.deepcopy(policy))


@pytest.mark.parametrize("length", [1, 7, 8, 9, 63, 64, 65, 1680, 72072, 72075])
def test_few_allowed_splits_are_the_mask_s_nonzero_entries_up_to_the_limit(length, rng):
    """The sparse path's scan of a mask: every allowed split, ascending, when there are at
    most ``limit`` of them (the entries past the last whole 64-entry block included), else none."""
    from splitpoker.agents.learned import sparse

    for density in (0.0, 0.001, 0.05, 1.0):
        mask = rng.random(length) < density
        allowed = np.flatnonzero(mask)
        for limit in {1, max(1, len(allowed) - 1), len(allowed), len(allowed) + 1}:
            got = sparse.few_marked(mask, limit)
            assert np.array_equal(got, allowed if len(allowed) <= limit else allowed[:0])
        assert np.array_equal(sparse.few_marked(mask.view(np.int8)[::-1][::-1], len(allowed)), allowed)


@pytest.mark.parametrize("split_hidden", [0, 4])
def test_sparse_decisions_equal_the_dense_kernels_over_the_candidates(split_hidden, rng):
    """Masks of candidates are decided by the sparse path (the subsets the candidates use):
    the same most likely split and the same draws as the dense kernels over the same masks,
    with and without an interaction term; after an optimiser step the sparse path follows
    the new weights."""
    import splitpoker.agents.learned.split_inference as inference

    game, _, policy = _policy("thirteen", arch={**ARCH, "split_hidden": split_hidden})
    obs, masks = _batch(game, rng, hands=12, mask="undominated")
    obs = obs.numpy()
    assert (masks.sum(axis=1) <= masks.shape[1] * inference.SPARSE_SHARE).all()
    uniforms = rng.random(len(obs))

    def both() -> list[np.ndarray]:
        sparse = [inference.choices(policy, obs, masks, u) for u in (None, uniforms)]
        share, inference.SPARSE_SHARE = inference.SPARSE_SHARE, 0.0
        try:
            dense = [inference.choices(policy, obs, masks, u) for u in (None, uniforms)]
        finally:
            inference.SPARSE_SHARE = share
        for got, expected in zip(sparse, dense):
            assert np.array_equal(got, expected)
            assert masks[np.arange(len(got)), got].all()
        alone = [np.concatenate([inference.choices(policy, obs[b:b + 1], masks[b:b + 1],
                                                   None if u is None else u[b:b + 1])
                                 for b in range(len(obs))]) for u in (None, uniforms)]
        for got, expected in zip(alone, dense):  # one hand at a time, as an environment's agent decides
            assert np.array_equal(got, expected)
        return sparse

    before = both()
    optimiser = th.optim.SGD(policy.parameters(), lr=5.0)
    logits = networks.action_logits(policy, th.as_tensor(obs))
    optimiser.zero_grad()
    (logits[:, before[0]] ** 2).sum().backward()
    optimiser.step()
    after = both()
    assert not np.array_equal(before[0], after[0])


def test_decisions_run_on_the_agent_s_threads_and_restore_the_setting(rng, tmp_path):
    """A CPU decision's torch products (a split scorer's dense path: a decision over every
    valid split) run on ``PolicyAgent.threads`` torch threads whatever the global setting,
    which it leaves as it was; ``threads = None`` keeps the global one."""
    from splitpoker.agents.learned import split_inference
    from splitpoker.agents.learned.policy import torch_threads
    from tests.helpers import policy_file

    game = make_game("thirteen", "shisanshui")
    spec = f"checkpoint:{policy_file(tmp_path / 'policy.zip', 'shisanshui', 'thirteen', 3)}"
    agent = load_agent(spec, game, num_players=3)
    agent.over = "mask"
    tables = deal(game, 3, rng, batch=3)
    views = [tables.view(b, 0) for b in range(3)]
    seen = []
    original = split_inference._dense_choices

    def spy(*args):
        seen.append(th.get_num_threads())
        return original(*args)

    before = th.get_num_threads()
    try:
        split_inference._dense_choices = spy
        with torch_threads(3):
            first = agent.act_batch(views)
            assert th.get_num_threads() == 3
            agent.threads = None
            assert np.array_equal(agent.act_batch(views), first)
    finally:
        split_inference._dense_choices = original
    assert seen == [1, 3] and th.get_num_threads() == before
