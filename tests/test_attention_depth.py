"""The ``num_layers`` option of the eq. (2) models (Dana et al., App. B.2: deeper Transformers)."""

from __future__ import annotations

import pytest
import torch
from torch.nn import functional as F

from memnb.models.attention_mlp import AttentionMLPTransformer
from memnb.models.attention_only import AttentionOnlyTransformer


def _reference(model: AttentionOnlyTransformer, tokens: torch.Tensor) -> torch.Tensor:
    """A plain loop over layers, positions and heads (float64) of the stacked model."""
    layers = [(model.W_Q, model.W_K, model.W_V, model.W_O)] + [
        (model.W_Q_deep[i], model.W_K_deep[i], model.W_V_deep[i], model.W_O_deep[i])
        for i in range(model.num_layers - 1)]
    mlps = None
    if isinstance(model, AttentionMLPTransformer):
        mlps = [(model.mlp_in, model.mlp_in_bias, model.mlp_out)] + [
            (model.mlp_in_deep[i], model.mlp_in_bias_deep[i], model.mlp_out_deep[i])
            for i in range(model.num_layers - 1)]
    out = []
    for seq in tokens:
        stream = [model.token_embedding[t] + model.pos_embedding[s] for s, t in enumerate(seq)]
        for layer, (wq, wk, wv, wo) in enumerate(layers):
            new = []
            for i in range(len(seq)):
                update = torch.zeros_like(stream[i])
                for h in range(model.active_heads):
                    keys = torch.stack([wk[h] @ stream[j] for j in range(i + 1)])
                    weights = torch.softmax(keys @ (wq[h] @ stream[i]), dim=0)
                    values = torch.stack([wv[h] @ stream[j] for j in range(i + 1)])
                    update = update + wo[h] @ (weights @ values)
                x = stream[i] + update
                if mlps is not None:
                    w1, b1, w2 = mlps[layer]
                    hidden = F.gelu(w1[:model.active_width] @ x + b1[:model.active_width])
                    x = x + hidden @ w2[:model.active_width]
                new.append(x)
            stream = new
        out.append(model.W_U @ stream[-1])
    return torch.stack(out)


def test_one_layer_is_todays_model_bit_for_bit():
    tokens = torch.randint(0, 9, (40, 3), generator=torch.Generator().manual_seed(0))
    for cls, extra in ((AttentionOnlyTransformer, {}), (AttentionMLPTransformer, {"width": 6})):
        old = cls(9, 3, 6, 4, 5, seed=3, **extra)
        new = cls(9, 3, 6, 4, 5, seed=3, num_layers=1, **extra)
        assert list(old.state_dict()) == list(new.state_dict())
        for key, value in old.state_dict().items():
            assert torch.equal(value, new.state_dict()[key]), key
        assert torch.equal(old(tokens), new(tokens))
        assert not any("deep" in name for name in new.state_dict())


def test_the_layer_path_at_one_layer_equals_eq_2():
    tokens = torch.randint(0, 9, (40, 3), generator=torch.Generator().manual_seed(1))
    model = AttentionOnlyTransformer(9, 3, 6, 4, 5, seed=2, dtype=torch.float64)
    torch.testing.assert_close(model._deep_out(tokens) @ model.W_U.T, model(tokens))


@pytest.mark.parametrize("mlp", [False, True])
def test_stacked_layers_match_a_plain_causal_loop(mlp):
    tokens = torch.randint(0, 7, (6, 3), generator=torch.Generator().manual_seed(2))
    kw = {"num_layers": 3, "seed": 5, "dtype": torch.float64, "active_heads": 2}
    model = (AttentionMLPTransformer(7, 3, 5, 3, 3, 8, active_width=5, **kw) if mlp
             else AttentionOnlyTransformer(7, 3, 5, 3, 3, **kw))
    with torch.no_grad():
        torch.testing.assert_close(model(tokens), _reference(model, tokens))


def test_depth_changes_the_function_and_layer_one_is_shared():
    tokens = torch.randint(0, 9, (20, 2), generator=torch.Generator().manual_seed(3))
    one = AttentionOnlyTransformer(9, 2, 6, 4, 3, seed=4)
    five = AttentionOnlyTransformer(9, 2, 6, 4, 3, seed=4, num_layers=5)
    assert torch.equal(one.W_Q, five.W_Q) and torch.equal(one.token_embedding,
                                                          five.token_embedding)
    assert five.W_Q_deep.shape == (4, 3, 4, 6) and five.W_O_deep.shape == (4, 3, 6, 4)
    assert not torch.allclose(one(tokens), five(tokens))


@pytest.mark.parametrize("layers", [1, 2, 5])
def test_parameter_count_of_a_depth_l_model(layers):
    n, s, d, d_h, h, w = 11, 2, 6, 3, 4, 10
    aot = AttentionOnlyTransformer(n, s, d, d_h, h, num_layers=layers)
    assert aot.num_parameters() == d * (s + 2 * n) + layers * 4 * d * d_h * h
    assert aot.num_parameters() == sum(p.numel() for p in aot.parameters())
    mlp = AttentionMLPTransformer(n, s, d, d_h, h, w, num_layers=layers)
    assert mlp.num_parameters() == aot.num_parameters() + layers * w * (2 * d + 1)
    assert mlp.num_parameters() == sum(p.numel() for p in mlp.parameters())
    padded = AttentionOnlyTransformer(n, s, d, d_h, h + 3, active_heads=h, num_layers=layers)
    assert padded.num_parameters() == aot.num_parameters()


def test_padding_heads_and_width_changes_no_deep_output():
    tokens = torch.randint(0, 9, (30, 2), generator=torch.Generator().manual_seed(6))
    alone = AttentionMLPTransformer(9, 2, 6, 6, 2, 12, seed=8, num_layers=4)
    padded = AttentionMLPTransformer(9, 2, 6, 6, 5, 30, active_heads=2, active_width=12, seed=8,
                                     num_layers=4)
    torch.testing.assert_close(padded(tokens), alone(tokens))


def test_bad_depth_is_named():
    with pytest.raises(ValueError, match="num_layers"):
        AttentionOnlyTransformer(9, 2, 6, 4, 3, num_layers=0)
    with pytest.raises(ValueError, match="num_layers = 1"):
        AttentionOnlyTransformer(9, 2, 6, 4, 3, num_layers=2).features(torch.zeros(1, 2).long())
