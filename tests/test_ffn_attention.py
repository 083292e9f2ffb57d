"""The FFN-attention-FFN experiment model of Kajitsuka & Sato: contract, packing, training."""

from __future__ import annotations

import pytest
import torch

from memnb.models.ffn_attention import FFNAttentionTransformer
from memnb.train import TrainConfig, train_members

KW = {"input_dim": 6, "num_classes": 3, "seq_len": 4, "d": 8, "d_ff": 12, "num_heads": 2}


def _data(seed: int = 0, size: int = 24):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(size, 4, 6, generator=g), torch.randint(0, 3, (size,), generator=g)


def test_seeded_and_shapes():
    x, _ = _data()
    a, b = FFNAttentionTransformer(**KW, num_blocks=2, seed=3), FFNAttentionTransformer(
        **KW, num_blocks=2, seed=3)
    assert torch.equal(a(x), b(x))
    assert a(x).shape == (24, 3)
    assert not torch.equal(a(x), FFNAttentionTransformer(**KW, num_blocks=2, seed=4)(x))


@pytest.mark.parametrize("layer_norm", [True, False])
def test_padded_model_equals_smaller_model(layer_norm):
    x, _ = _data()
    small = FFNAttentionTransformer(**KW, num_blocks=2, seed=5, layer_norm=layer_norm)
    padded = FFNAttentionTransformer(**KW, num_blocks=5, active_blocks=2, seed=5,
                                     layer_norm=layer_norm)
    assert torch.allclose(small(x), padded(x), atol=1e-6)
    assert small.num_parameters() == padded.num_parameters()
    none = FFNAttentionTransformer(**KW, num_blocks=0, seed=5, layer_norm=layer_norm)
    masked = FFNAttentionTransformer(**KW, num_blocks=3, active_blocks=0, seed=5,
                                     layer_norm=layer_norm)
    assert torch.allclose(none(x), masked(x), atol=1e-6)  # masked blocks are exact identities
    assert padded.num_parameters() < FFNAttentionTransformer(**KW, num_blocks=5).num_parameters()


def test_packed_training_matches_separate_training():
    x, y = _data(1)
    config = TrainConfig(steps=15, lr=3e-3, optimizer="adamw", weight_decay=1e-3,
                         eval_every=5, early_stop=False)
    members = [FFNAttentionTransformer(**KW, num_blocks=3, active_blocks=b, seed=7)
               for b in (0, 1, 3)]
    packed = train_members(members, x, y, config, progress=False)
    for i, b in enumerate((0, 1, 3)):
        alone = train_members([FFNAttentionTransformer(**KW, num_blocks=b, seed=7)], x, y,
                              config, progress=False)
        assert abs(float(packed.final_loss[i]) - float(alone.final_loss[0])) < 1e-4
    # masked blocks get no gradient: only AdamW's decoupled weight decay shrinks them
    start = members[1].state_dict()["f1_W1"][2]
    moved = packed.models[1].state_dict()["f1_W1"][2]
    assert torch.allclose(moved, start, rtol=1e-3) and not torch.allclose(
        packed.models[1].state_dict()["f1_W1"][0], members[1].state_dict()["f1_W1"][0],
        rtol=1e-3)


def test_memorizes_a_small_dataset():
    x, y = _data(2, size=16)
    config = TrainConfig(steps=300, lr=1e-2, optimizer="adamw", eval_every=20)
    result = train_members([FFNAttentionTransformer(**KW, num_blocks=2, seed=0)], x, y, config,
                           progress=False)
    assert float(result.accuracy[0]) == 1.0


def test_errors():
    with pytest.raises(ValueError, match="active_blocks"):
        FFNAttentionTransformer(**KW, num_blocks=2, active_blocks=3)
    with pytest.raises(ValueError, match="x must have shape"):
        FFNAttentionTransformer(**KW, num_blocks=1)(torch.zeros(2, 5, 6))
    with pytest.raises(ValueError, match="num_blocks"):
        FFNAttentionTransformer(**KW, num_blocks=-1)
