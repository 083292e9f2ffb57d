"""Tests of the attention-only Transformer (Dana et al., AISTATS 2025, eqs. 1-2)."""

from __future__ import annotations

import math

import pytest
import torch
from torch.func import functional_call, grad, stack_module_state, vmap

from memnb.bounds import dana_parameter_count
from memnb.models.attention_only import AttentionOnlyTransformer, num_parameters


def _reference_logits(model: AttentionOnlyTransformer, tokens: torch.Tensor) -> torch.Tensor:
    """Eq. (2) written head by head and sequence by sequence, with W_QK = W_Q^T W_K."""
    out = []
    for seq in tokens:
        emb = model.token_embedding[seq]
        x = emb + model.pos_embedding
        resid = x[-1] if model.pos_placement == "residual" else emb[-1]
        total = resid.clone()
        for h in range(model.num_heads):
            w_qk = model.W_Q[h].T @ model.W_K[h]
            scores = torch.stack([x[-1] @ w_qk @ x[s] for s in range(model.seq_len)])
            if model.scale_logits:
                scores = scores / math.sqrt(model.d_h)
            a = torch.softmax(scores, dim=0)
            big_a = (a[:, None] * x).sum(0)
            total = total + model.head_mask[h] * (model.W_O[h] @ model.W_V[h] @ big_a)
        out.append(model.W_U @ total)
    return torch.stack(out)


@pytest.mark.parametrize("scale_logits", [False, True])
@pytest.mark.parametrize("pos_placement", ["residual", "attention_only"])
@pytest.mark.parametrize(("d_h", "merged"), [(1, False), (3, True)])
def test_forward_matches_eq2(scale_logits: bool, pos_placement: str, d_h: int,
                             merged: bool) -> None:
    """Both evaluation orders (per-head projections for small d_h, W_QK/W_OV otherwise)."""
    model = AttentionOnlyTransformer(7, 4, 5, d_h, 3, active_heads=2, scale_logits=scale_logits,
                                     pos_placement=pos_placement, dtype=torch.float64, seed=3)
    assert model._merged_is_cheaper() is merged
    tokens = torch.randint(0, 7, (6, 4), generator=torch.Generator().manual_seed(0))
    logits = model(tokens)
    assert logits.shape == (6, 7)
    assert logits.dtype == torch.float64
    torch.testing.assert_close(logits, _reference_logits(model, tokens), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("order", ["per_head", "merged"])
def test_forced_evaluation_order_matches_eq2(order: str) -> None:
    for d_h in (1, 3):  # each order forced where "auto" would pick the other one too
        model = AttentionOnlyTransformer(7, 4, 5, d_h, 3, evaluation_order=order,
                                         dtype=torch.float64, seed=3)
        assert model._use_merged() is (order == "merged")
        tokens = torch.randint(0, 7, (6, 4), generator=torch.Generator().manual_seed(0))
        torch.testing.assert_close(model(tokens), _reference_logits(model, tokens), rtol=1e-10,
                                   atol=1e-10)
    with pytest.raises(ValueError, match="evaluation_order must be one of"):
        AttentionOnlyTransformer(7, 4, 5, 3, 3, evaluation_order="fast")


def test_shapes_features_and_attention() -> None:
    model = AttentionOnlyTransformer(11, 3, 6, 2, 4, seed=0)
    tokens = torch.randint(0, 11, (5, 3))
    attn = model.attention_weights(tokens)
    assert attn.shape == (5, 4, 3)
    torch.testing.assert_close(attn.sum(-1), torch.ones(5, 4))
    feats = model.features(tokens)
    assert feats.shape == (5, 6 + 4 * 2)
    # logits are W_U [I | W_O^1 ... W_O^H] F(t)
    readout = torch.cat([torch.eye(6), *model.W_O.unbind(0)], dim=1)
    torch.testing.assert_close(model(tokens), feats @ readout.T @ model.W_U.T, rtol=1e-5,
                               atol=1e-5)


def test_scale_logits_is_query_rescaling() -> None:
    scaled = AttentionOnlyTransformer(9, 3, 4, 4, 2, scale_logits=True, dtype=torch.float64)
    plain = AttentionOnlyTransformer(9, 3, 4, 4, 2, dtype=torch.float64)
    with torch.no_grad():
        plain.W_Q.copy_(scaled.W_Q / 2.0)  # sqrt(d_h) = 2
    tokens = torch.randint(0, 9, (4, 3))
    torch.testing.assert_close(scaled(tokens), plain(tokens))
    assert not torch.allclose(scaled(tokens), AttentionOnlyTransformer(
        9, 3, 4, 4, 2, dtype=torch.float64)(tokens))


def test_pos_placement_only_matters_through_pos() -> None:
    a = AttentionOnlyTransformer(9, 3, 4, 2, 2, pos_placement="residual", dtype=torch.float64)
    b = AttentionOnlyTransformer(9, 3, 4, 2, 2, pos_placement="attention_only",
                                 dtype=torch.float64)
    tokens = torch.randint(0, 9, (4, 3))
    assert not torch.allclose(a(tokens), b(tokens))
    with torch.no_grad():
        a.pos_embedding.zero_()
        b.pos_embedding.zero_()
    torch.testing.assert_close(a(tokens), b(tokens))


def test_seeded_initialisation() -> None:
    a = AttentionOnlyTransformer(10, 3, 6, 2, 3, seed=5)
    b = AttentionOnlyTransformer(10, 3, 6, 2, 3, seed=5)
    c = AttentionOnlyTransformer(10, 3, 6, 2, 3, seed=6)
    for (name, p), q, r in zip(a.named_parameters(), b.parameters(), c.parameters(),
                               strict=True):
        assert torch.equal(p, q), name
        assert not torch.equal(p, r), name
    # PyTorch-default scales: N(0,1) embeddings, U(±1/sqrt(fan_in)) linears
    assert a.W_U.abs().max() <= 1 / math.sqrt(6)
    assert a.W_O.abs().max() <= 1 / math.sqrt(2)
    big = AttentionOnlyTransformer(500, 2, 8, 1, 0, seed=0)
    assert 0.9 < big.token_embedding.std().item() < 1.1


def test_head_mask_equivalence() -> None:
    padded = AttentionOnlyTransformer(12, 4, 6, 3, 5, active_heads=2, seed=7)
    small = AttentionOnlyTransformer(12, 4, 6, 3, 2, seed=7)
    for name in ("token_embedding", "pos_embedding", "W_U"):
        assert torch.equal(getattr(padded, name), getattr(small, name))
    for name in ("W_Q", "W_K", "W_V", "W_O"):
        assert torch.equal(getattr(padded, name)[:2], getattr(small, name))
    tokens = torch.randint(0, 12, (8, 4))
    torch.testing.assert_close(padded(tokens), small(tokens), rtol=1e-6, atol=1e-6)
    assert padded.head_mask.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
    # masked heads receive zero gradients
    loss = torch.nn.functional.cross_entropy(padded(tokens), torch.randint(0, 12, (8,)))
    loss.backward()
    for name in ("W_Q", "W_K", "W_V", "W_O"):
        g = getattr(padded, name).grad
        assert torch.count_nonzero(g[2:]) == 0, name
        assert torch.count_nonzero(g[:2]) > 0, name


def test_vmap_functional_call() -> None:
    members = [AttentionOnlyTransformer(10, 3, 6, 2, 4, active_heads=h, seed=s)
               for h, s in [(1, 0), (4, 1), (2, 2)]]
    params, buffers = stack_module_state(members)
    base = members[0]

    def call(p, b, x):
        return functional_call(base, (p, b), (x,))

    shared = torch.randint(0, 10, (5, 3))
    out = vmap(call, in_dims=(0, 0, None))(params, buffers, shared)
    assert out.shape == (3, 5, 10)
    for i, m in enumerate(members):
        torch.testing.assert_close(out[i], m(shared))

    per_member = torch.randint(0, 10, (3, 5, 3))
    out = vmap(call, in_dims=(0, 0, 0))(params, buffers, per_member)
    for i, m in enumerate(members):
        torch.testing.assert_close(out[i], m(per_member[i]))

    targets = torch.randint(0, 10, (5,))

    def loss(p, b, x, y):
        return torch.nn.functional.cross_entropy(call(p, b, x), y)

    grads = vmap(grad(loss), in_dims=(0, 0, None, None))(params, buffers, shared, targets)
    assert grads["W_Q"].shape == params["W_Q"].shape
    assert torch.count_nonzero(grads["W_Q"][0, 1:]) == 0  # member 0 has one active head
    assert torch.count_nonzero(grads["W_Q"][1]) > 0


def test_num_parameters_counts_active_heads() -> None:
    model = AttentionOnlyTransformer(50, 2, 10, 4, 6, active_heads=3)
    assert model.num_parameters() == dana_parameter_count(50, 2, 10, 4, 3)
    assert num_parameters(model) == 10 * (2 + 100 + 4 * 4 * 3)
    full = AttentionOnlyTransformer(50, 2, 10, 4, 6)
    assert full.num_parameters() == sum(p.numel() for p in full.parameters())


def test_zero_heads_is_last_token_lookup() -> None:
    model = AttentionOnlyTransformer(6, 3, 4, 2, 0, dtype=torch.float64)
    tokens = torch.tensor([[0, 1, 2], [5, 4, 2], [3, 3, 3]])
    expected = (model.token_embedding[tokens[:, -1]] + model.pos_embedding[-1]) @ model.W_U.T
    torch.testing.assert_close(model(tokens), expected)


def test_from_weights_roundtrip_and_qk() -> None:
    src = AttentionOnlyTransformer(8, 3, 5, 2, 3, dtype=torch.float64, seed=4)
    weights = {name: p.detach().clone() for name, p in src.named_parameters()}
    copy = AttentionOnlyTransformer.from_weights(**weights)
    tokens = torch.randint(0, 8, (4, 3))
    torch.testing.assert_close(copy(tokens), src(tokens))
    qk = copy.qk_matrices()
    assert qk.shape == (3, 5, 5)
    assert int(torch.linalg.matrix_rank(qk[0])) <= 2
    bad = dict(weights, W_O=torch.zeros(3, 5, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match="W_O"):
        AttentionOnlyTransformer.from_weights(**bad)
    bad = dict(weights, pos_embedding=torch.zeros(3, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match="pos_embedding"):
        AttentionOnlyTransformer.from_weights(**bad)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"vocab_size": 0}, "vocab_size"),
        ({"seq_len": 0}, "seq_len"),
        ({"d": 0}, "d"),
        ({"d_h": 0}, "d_h"),
        ({"num_heads": -1}, "num_heads"),
        ({"active_heads": 5}, "active_heads"),
        ({"active_heads": -1}, "active_heads"),
        ({"pos_placement": "everywhere"}, "pos_placement"),
        ({"dtype": torch.int64}, "dtype"),
        ({"seed": -3}, "seed"),
        ({"d": 2.5}, "d"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict, name: str) -> None:
    args = {"vocab_size": 10, "seq_len": 3, "d": 6, "d_h": 2, "num_heads": 4} | kwargs
    with pytest.raises(ValueError, match=name):
        AttentionOnlyTransformer(**args)


@pytest.mark.parametrize(
    "tokens",
    [
        torch.tensor([[0, 1, 10]]),
        torch.tensor([[0, -1, 2]]),
        torch.tensor([[0, 1]]),
        torch.tensor([0, 1, 2]),
        torch.tensor([[0.0, 1.0, 2.0]]),
    ],
)
def test_bad_tokens(tokens: torch.Tensor) -> None:
    model = AttentionOnlyTransformer(10, 3, 6, 2, 2)
    with pytest.raises(ValueError, match="tokens"):
        model(tokens)


def test_accepts_numpy_integers() -> None:
    import numpy as np

    model = AttentionOnlyTransformer(np.int64(9), np.int64(3), np.int64(4), np.int32(2),
                                     np.int64(2), active_heads=np.int64(1), seed=np.int64(0))
    reference = AttentionOnlyTransformer(9, 3, 4, 2, 2, active_heads=1, seed=0)
    tokens = torch.randint(0, 9, (2, 3))
    torch.testing.assert_close(model(tokens), reference(tokens))


def test_head_dim_may_exceed_embedding_dim():
    """The official Experiment 3 uses d_h = 10 > d; such heads still have rank <= d."""
    model = AttentionOnlyTransformer(10, 3, 4, 6, 2, seed=0)
    tokens = torch.randint(10, (5, 3), generator=torch.Generator().manual_seed(0))
    assert model(tokens).shape == (5, 10)
    assert int(torch.linalg.matrix_rank(model.qk_matrices()[0].double())) <= 4
