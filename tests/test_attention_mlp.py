"""The attention + MLP model of Dana et al.'s Experiment 5, as the official code builds its MLP."""

from __future__ import annotations

import math

import pytest
import torch
from scipy import stats
from torch import nn

from memnb.models import AttentionMLPTransformer, AttentionOnlyTransformer


def test_mlp_has_no_output_bias_and_counts_its_parameters():
    # the code: nn.Linear(d, w, bias=True) -> GELU -> nn.Linear(w, d, bias=False)
    model = AttentionMLPTransformer(20, 2, 6, 6, 1, 24, seed=0)
    names = {name for name, _ in model.named_parameters()}
    mlp = {name for name in names if name.startswith("mlp")}
    assert mlp == {"mlp_in", "mlp_in_bias", "mlp_out"}
    assert model.mlp_out.shape == (24, 6) and model.mlp_in_bias.shape == (24,)
    assert model.num_parameters() == sum(p.numel() for p in model.parameters())
    base = AttentionOnlyTransformer(20, 2, 6, 6, 1).num_parameters()
    assert model.num_parameters() == base + 24 * (2 * 6 + 1)


def test_width_zero_is_the_attention_only_model():
    # no MLP unit and no output bias: the logits are eq. (2)'s, as the code's use_mlp = False
    tokens = torch.randint(0, 15, (32, 2), generator=torch.Generator().manual_seed(0))
    mlp = AttentionMLPTransformer(15, 2, 5, 5, 3, 0, dtype=torch.float64, seed=4)
    aot = AttentionOnlyTransformer(15, 2, 5, 5, 3, dtype=torch.float64, seed=4)
    torch.testing.assert_close(mlp(tokens), aot(tokens), rtol=0, atol=0)


def test_forward_matches_the_codes_mlp_block():
    d, width = 6, 12
    model = AttentionMLPTransformer(20, 2, d, d, 2, width, dtype=torch.float64, seed=1)
    block = nn.Sequential(nn.Linear(d, width, bias=True), nn.GELU(),
                          nn.Linear(width, d, bias=False)).double()
    with torch.no_grad():
        block[0].weight.copy_(model.mlp_in)
        block[0].bias.copy_(model.mlp_in_bias)
        block[2].weight.copy_(model.mlp_out.T)
    tokens = torch.randint(0, 20, (16, 2), generator=torch.Generator().manual_seed(2))
    resid = model._residual_out(tokens)
    torch.testing.assert_close(model(tokens), (resid + block(resid)) @ model.W_U.T)


@pytest.mark.parametrize(("name", "fan_in"), [("mlp_in", 8), ("mlp_in_bias", 8),
                                              ("mlp_out", 200)])
def test_mlp_initialisation_is_nn_linear_uniform(name, fan_in):
    # nn.Linear's kaiming_uniform_(a=sqrt(5)) and bias init: U(±1/sqrt(fan_in))
    model = AttentionMLPTransformer(10, 2, 8, 8, 1, 200, dtype=torch.float64, seed=3)
    values = getattr(model, name).detach().flatten().numpy()
    bound = 1.0 / math.sqrt(fan_in)
    assert abs(values).max() <= bound
    assert stats.kstest(values, "uniform", args=(-bound, 2 * bound)).pvalue > 1e-3
