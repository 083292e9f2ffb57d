"""The official code's one-head + MLP model (Dana et al.'s Experiment 5 as the code trains it)."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.func import functional_call, stack_module_state, vmap

from memnb.models import CompressedAttentionMLPTransformer, CompressedAttentionOnlyTransformer


def _codes_forward(model: CompressedAttentionMLPTransformer, tokens: torch.Tensor) -> torch.Tensor:
    """``models.py``'s forward with one layer: nn.MultiheadAttention heads on the positions-added
    stream, the residual add, then nn.Linear -> GELU -> nn.Linear(bias=False), the residual add
    and the unembedding, read at the last position."""
    x = model.token_embedding[tokens]
    c = x + model.pos_embedding  # d = d_h: no compression, as in Experiment 5
    seq = tokens.shape[1]
    causal = torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1)
    out = torch.zeros_like(c)
    for h in range(model.active_heads):
        mha = nn.MultiheadAttention(model.d_h, 1, bias=False, batch_first=True, dtype=c.dtype)
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.cat([model.W_Q[h], model.W_K[h], model.W_V[h]]))
            mha.out_proj.weight.copy_(model.W_O[h])
        out = out + mha(c, c, c, attn_mask=causal, need_weights=False)[0]
    res = x + out
    block = nn.Sequential(nn.Linear(model.d, model.width), nn.GELU(),
                          nn.Linear(model.width, model.d, bias=False)).double()
    with torch.no_grad():
        block[0].weight.copy_(model.mlp_in)
        block[0].bias.copy_(model.mlp_in_bias)
        block[2].weight.copy_(model.mlp_out.T)
    return ((res + block(res)) @ model.W_U.T)[:, -1]


def test_forward_matches_the_codes_modules():
    model = CompressedAttentionMLPTransformer(20, 2, 7, 7, 1, 28, dtype=torch.float64, seed=1)
    tokens = torch.randint(0, 20, (32, 2), generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(model(tokens), _codes_forward(model, tokens))


def test_width_zero_is_the_codes_attention_only_model_and_parameters_are_counted():
    tokens = torch.randint(0, 15, (16, 2), generator=torch.Generator().manual_seed(1))
    mlp = CompressedAttentionMLPTransformer(15, 2, 5, 5, 3, 0, dtype=torch.float64, seed=4)
    aot = CompressedAttentionOnlyTransformer(15, 2, 5, 5, 3, dtype=torch.float64, seed=4)
    torch.testing.assert_close(mlp(tokens), aot(tokens), rtol=0, atol=0)
    wide = CompressedAttentionMLPTransformer(15, 2, 5, 5, 1, 30, active_width=20, seed=4)
    base = CompressedAttentionOnlyTransformer(15, 2, 5, 5, 1).num_parameters()
    assert wide.num_parameters() == base + 20 * (2 * 5 + 1)


def test_a_padded_member_is_the_unpadded_model():
    """Width 12 padded to 30 computes what width 12 computes, also inside vmap (packing)."""
    tokens = torch.randint(0, 20, (16, 2), generator=torch.Generator().manual_seed(2))
    alone = CompressedAttentionMLPTransformer(20, 2, 6, 6, 1, 12, dtype=torch.float64, seed=5)
    padded = [CompressedAttentionMLPTransformer(20, 2, 6, 6, 1, 30, active_width=w,
                                                dtype=torch.float64, seed=5) for w in (12, 30)]
    torch.testing.assert_close(padded[0](tokens), alone(tokens))
    params, buffers = stack_module_state(padded)
    base = CompressedAttentionMLPTransformer(20, 2, 6, 6, 1, 30, dtype=torch.float64).to("meta")
    out = vmap(lambda p, b: functional_call(base, (p, b), (tokens,)))(params, buffers)
    torch.testing.assert_close(out[0], alone(tokens))
    torch.testing.assert_close(out[1], padded[1](tokens))


@pytest.mark.parametrize("kwargs, word", [({"width": -1}, "width"),
                                          ({"width": 4, "active_width": 5}, "active_width")])
def test_bad_width_names_the_parameter(kwargs, word):
    with pytest.raises(ValueError, match=word):
        CompressedAttentionMLPTransformer(10, 2, 4, 4, 1, **kwargs)
