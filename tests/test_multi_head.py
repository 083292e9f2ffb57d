"""Tests of the multi-head attention memorizer (Mahdavi et al., ICLR 2024, eqs. 1-6)."""

from __future__ import annotations

import math

import pytest
import torch

from memnb.models.multi_head import MultiHeadAttention, sinusoidal_encoding
from memnb.train import TrainConfig, train_members


def _data(T: int, n: int, d: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.rand(T, n, d, generator=g), torch.rand(T, d, generator=g)


@pytest.mark.parametrize(("d_h", "merged", "order"),
                         [(2, False, "auto"), (4, True, "auto"), (2, True, "merged"),
                          (4, False, "per_head")])
def test_forward_matches_equations_1_to_6(d_h, merged, order):
    """Both evaluation orders of the logits (through d_h, or with W_Q W_K^T merged), chosen by
    cost (``auto``) or forced."""
    model = MultiHeadAttention(6, 3, d_h, 2, 5, evaluation_order=order, dtype=torch.float64,
                               seed=3)
    assert model._use_merged() is merged
    E, e = _data(7, 4, 6)
    E, e = E.double(), e.double()
    out = model(E, e)
    assert out.shape == (7, 5)
    for t in range(7):
        u = torch.zeros(6, dtype=torch.float64)
        for h in range(3):
            alpha = torch.softmax(E[t] @ model.W_K[h] @ model.W_Q[h].T @ e[t], dim=0)
            p = E[t].T @ alpha
            u = u + model.W_O[h].T @ (model.W_V[h].T @ p)
        torch.testing.assert_close(out[t], model.W_D.T @ u)
    z = model.features(E, e)
    assert z.shape == (7, 18)
    torch.testing.assert_close(z[:, 6:12], model.head_outputs(E, e)[:, 1])


def test_shared_context_given_once_equals_repeated_context():
    model = MultiHeadAttention.official(6, 4, 3, 5, 7, seed=2)
    E, e = _data(9, 4, 6)
    shared = E[0]
    torch.testing.assert_close(model(shared, e), model(shared.expand(9, 4, 6), e))
    torch.testing.assert_close(model.attention_weights(shared, e),
                               model.attention_weights(shared.expand(9, 4, 6), e))


def test_training_with_a_constant_context_equals_per_example_contexts():
    """``constant_inputs`` passes the shared context once; training is unchanged."""
    E, e = _data(12, 3, 8, seed=4)
    shared = E[0]
    y = torch.randint(0, 3, (12,), generator=torch.Generator().manual_seed(2))
    cfg = TrainConfig(steps=24, lr=1e-2, eval_every=8, batch_size=5, early_stop=False)
    members = [MultiHeadAttention.official(8, 3, 3, 8, 3, active_heads=h, seed=h)
               for h in (1, 3)]
    once = train_members(members, (shared, e), y, cfg, constant_inputs=(0,), progress=False)
    repeated = train_members(members, (shared.expand(12, 3, 8), e), y, cfg, progress=False)
    torch.testing.assert_close(once.best_loss, repeated.best_loss, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(once.models[1](E, e), repeated.models[1](E, e), rtol=1e-4,
                               atol=1e-5)
    # per-member data: one context per member ([K, n, d]), examples padded to the longest set
    mask = torch.ones(2, 12, dtype=torch.bool)
    mask[0, 7:] = False
    per_member = train_members(members, (torch.stack([shared, shared]), e.expand(2, 12, 8)),
                               y.expand(2, 12), cfg, sample_mask=mask, per_member_data=True,
                               constant_inputs=(0,), progress=False)
    torch.testing.assert_close(per_member.best_loss[1], once.best_loss[1], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="constant_inputs"):
        train_members(members, (shared, e), y, cfg, constant_inputs=(2,), progress=False)


def test_official_options_and_parameter_count():
    # the official code's counts for C = 100, d = d_h = 64, as our notes on Mahdavi et al.
    # (shared/papers/mahdavi_2024.md, "Model") record them: 18,980 (H = 1), 177,060 (H = 20),
    # 260,260 (H = 30), 509,860 (H = 60); by hand, the input layer (64·64 + 64), per head
    # W_Q and W_K (2·64·64), W_v (64·1) and W_o (1·64), and the decoder (64·100 + 100)
    def by_hand(H: int) -> int:
        return (64 * 64 + 64) + H * (2 * 64 * 64 + 64 + 64) + (64 * 100 + 100)

    assert [by_hand(H) for H in (1, 20, 30, 60)] == [18_980, 177_060, 260_260, 509_860]
    model = MultiHeadAttention.official(64, 32, 1, 64, 100)
    assert model.num_parameters() == 18_980
    for H, count in ((20, 177_060), (30, 260_260), (60, 509_860)):
        assert MultiHeadAttention.official(64, 32, H, 64, 100).num_parameters() == count
    small = MultiHeadAttention.official(8, 3, 2, 4, 5, dtype=torch.float64, seed=1)
    E, e = _data(2, 3, 8)
    E, e = E.double(), e.double()
    x_c = E @ small.W_in.T + small.b_in + sinusoidal_encoding(4, 8)[1:]
    x_q = e @ small.W_in.T + small.b_in + sinusoidal_encoding(4, 8)[0]
    logits = torch.einsum("bnd,hdk,hek,be->bhn", x_c, small.W_K, small.W_Q, x_q) / math.sqrt(8)
    torch.testing.assert_close(small.attention_weights(E, e), torch.softmax(logits, -1))


def test_sinusoidal_encoding_values():
    pe = sinusoidal_encoding(5, 6)
    assert pe.shape == (5, 6)
    torch.testing.assert_close(pe[0], torch.tensor([0.0, 1, 0, 1, 0, 1], dtype=torch.float64))
    assert math.isclose(float(pe[3, 2]), math.sin(3 / 10000 ** (2 / 6)), rel_tol=1e-12)


def test_padded_heads_and_d_h_equal_the_smaller_model():
    E, e = _data(5, 4, 8)
    small = MultiHeadAttention.official(8, 4, 2, 3, 4, seed=7)
    padded = MultiHeadAttention.official(8, 4, 5, 6, 4, active_heads=2, active_d_h=3, seed=7)
    torch.testing.assert_close(small(E, e), padded(E, e))
    torch.testing.assert_close(padded.W_K[:2, :, :3], small.W_K)
    # training the padded model follows the smaller one and leaves masked entries untouched
    y = torch.randint(0, 4, (5,), generator=torch.Generator().manual_seed(0))
    cfg = TrainConfig(steps=30, lr=1e-2, eval_every=10, early_stop=False)
    a = train_members([small], (E, e), y, cfg, progress=False)
    b = train_members([padded], (E, e), y, cfg, progress=False)
    torch.testing.assert_close(a.best_loss, b.best_loss, rtol=1e-5, atol=1e-6)
    trained = b.models[0]
    torch.testing.assert_close(trained.W_K[2:], padded.W_K[2:])
    torch.testing.assert_close(trained.W_Q[:, :, 3:], padded.W_Q[:, :, 3:])


def test_members_differing_in_heads_pack_in_one_stack():
    E, e = _data(6, 3, 8, seed=2)
    y = torch.randint(0, 3, (6,), generator=torch.Generator().manual_seed(1))
    cfg = TrainConfig(steps=20, lr=1e-2, eval_every=10, early_stop=False)
    members = [MultiHeadAttention.official(8, 3, 4, 8, 3, active_heads=h, seed=0)
               for h in (1, 4)]
    packed = train_members(members, (E, e), y, cfg, progress=False)
    alone = train_members([MultiHeadAttention.official(8, 3, 1, 8, 3, seed=0)], (E, e), y, cfg,
                          progress=False)
    torch.testing.assert_close(packed.best_loss[0], alone.best_loss[0], rtol=1e-5, atol=1e-6)
    # the 4-head member, all of its stack's heads active, trains as a 4-head model alone
    alone4 = train_members([MultiHeadAttention.official(8, 3, 4, 8, 3, seed=0)], (E, e), y, cfg,
                           progress=False)
    torch.testing.assert_close(packed.best_loss[1], alone4.best_loss[0], rtol=1e-5, atol=1e-6)
    for name in ("W_K", "W_Q", "W_V", "W_O", "W_D"):
        torch.testing.assert_close(getattr(packed.models[1], name),
                                   getattr(alone4.models[0], name), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"d": 0}, "d must be"), ({"num_heads": 0}, "num_heads"), ({"active_heads": 5}, "active_"),
     ({"active_d_h": 9}, "active_d_h"), ({"positional_encoding": True}, "context_len")],
)
def test_invalid_arguments(kwargs, match):
    args = {"d": 4, "num_heads": 2, "d_h": 3, "d_v": 1, "d_o": 2}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        MultiHeadAttention(args.pop("d"), args.pop("num_heads"), args.pop("d_h"),
                           args.pop("d_v"), args.pop("d_o"), **args)


def test_bad_input_shapes():
    model = MultiHeadAttention(4, 1, 2, 1, 1)
    with pytest.raises(ValueError, match="contexts"):
        model(torch.zeros(2, 3, 5), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="queries"):
        model(torch.zeros(2, 3, 4), torch.zeros(3, 4))


def test_seeded_initialisation():
    a = MultiHeadAttention(4, 2, 3, 1, 2, seed=5)
    b = MultiHeadAttention(4, 2, 3, 1, 2, seed=5)
    c = MultiHeadAttention(4, 2, 3, 1, 2, seed=6)
    torch.testing.assert_close(a.W_K, b.W_K)
    assert not torch.equal(a.W_K, c.W_K)
