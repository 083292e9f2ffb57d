"""The official code's attention-only layout (shared d -> d_h compression) of Dana et al."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from torch.func import functional_call, stack_module_state, vmap

from memnb.models import AttentionOnlyTransformer, CompressedAttentionOnlyTransformer


def _official_forward(model: CompressedAttentionOnlyTransformer,
                      tokens: torch.Tensor) -> torch.Tensor:
    """The code's forward, written with ``nn.MultiheadAttention`` modules and a causal mask."""
    x = model.token_embedding[tokens]
    c = (x @ model.compress.T if model.compressed else x) + model.pos_embedding
    seq = tokens.shape[1]
    causal = torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1)
    out = torch.zeros_like(c)
    for h in range(model.active_heads):
        mha = nn.MultiheadAttention(model.d_h, 1, bias=False, batch_first=True,
                                    dtype=c.dtype)
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.cat([model.W_Q[h], model.W_K[h], model.W_V[h]]))
            mha.out_proj.weight.copy_(model.W_O[h])
        out = out + mha(c, c, c, attn_mask=causal, need_weights=False)[0]
    out = out @ model.decompress.T if model.compressed else out
    return ((x + out) @ model.W_U.T)[:, -1]


@pytest.mark.parametrize(("d", "d_h"), [(10, 3), (4, 6), (5, 5)])
def test_forward_matches_the_codes_multihead_attention_modules(d, d_h):
    model = CompressedAttentionOnlyTransformer(9, 3, d, d_h, 4, dtype=torch.float64, seed=1)
    tokens = torch.randint(0, 9, (16, 3), generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(model(tokens), _official_forward(model, tokens))
    assert model.compressed == (d != d_h)
    assert hasattr(model, "compress") == (d != d_h)


def test_heads_write_into_one_d_h_dimensional_subspace():
    # the property that separates this layout from eq. (2): with d_h = 1, every sequence's
    # residual update lies on one line of R^d; eq. (2)'s per-head W_O^h span many directions
    tokens = torch.randint(0, 20, (64, 2), generator=torch.Generator().manual_seed(1))

    def residual_update(model: nn.Module) -> torch.Tensor:
        # logits = W_U (x_S + update) and W_U [20, 10] has full column rank
        with torch.no_grad():
            resid_out = torch.linalg.lstsq(model.W_U, model(tokens).T).solution.T
            last = model.token_embedding[tokens[:, -1]]
            if isinstance(model, AttentionOnlyTransformer):
                last = last + model.pos_embedding[-1]
        return resid_out - last

    code = CompressedAttentionOnlyTransformer(20, 2, 10, 1, 8, dtype=torch.float64, seed=0)
    assert torch.linalg.matrix_rank(residual_update(code), rtol=1e-8) == 1
    paper = AttentionOnlyTransformer(20, 2, 10, 1, 8, dtype=torch.float64, seed=0)
    assert torch.linalg.matrix_rank(residual_update(paper), rtol=1e-8) == 8


def test_head_mask_equivalence_and_zero_gradients():
    padded = CompressedAttentionOnlyTransformer(12, 2, 6, 3, 5, active_heads=2, seed=7)
    small = CompressedAttentionOnlyTransformer(12, 2, 6, 3, 2, seed=7)
    for name in ("token_embedding", "pos_embedding", "W_U", "compress", "decompress"):
        assert torch.equal(getattr(padded, name), getattr(small, name)), name
    tokens = torch.randint(0, 12, (8, 2))
    torch.testing.assert_close(padded(tokens), small(tokens), rtol=1e-6, atol=1e-6)
    torch.nn.functional.cross_entropy(padded(tokens), torch.randint(0, 12, (8,))).backward()
    for name in ("W_Q", "W_K", "W_V", "W_O"):
        grad = getattr(padded, name).grad
        assert torch.count_nonzero(grad[2:]) == 0 and torch.count_nonzero(grad[:2]) > 0, name


def test_vmap_functional_call_matches_each_member():
    members = [CompressedAttentionOnlyTransformer(10, 2, 6, 2, 4, active_heads=h, seed=s)
               for h, s in [(1, 0), (4, 1), (2, 2)]]
    params, buffers = stack_module_state(members)
    tokens = torch.randint(0, 10, (5, 2))
    out = vmap(lambda p, b, x: functional_call(members[0], (p, b), (x,)),
               in_dims=(0, 0, None))(params, buffers, tokens)
    for i, member in enumerate(members):
        torch.testing.assert_close(out[i], member(tokens))


def test_seeded_initialisation_and_parameter_count():
    a = CompressedAttentionOnlyTransformer(50, 2, 10, 4, 20, seed=3)
    b = CompressedAttentionOnlyTransformer(50, 2, 10, 4, 20, seed=3)
    c = CompressedAttentionOnlyTransformer(50, 2, 10, 4, 20, seed=4)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    assert not torch.equal(a.W_Q, c.W_Q)
    assert a.num_parameters() == sum(p.numel() for p in a.parameters())
    assert a.num_parameters() == 2 * 50 * 10 + 2 * 4 + 2 * 10 * 4 + 4 * 4 * 4 * 20
    masked = CompressedAttentionOnlyTransformer(50, 2, 10, 4, 20, active_heads=5, seed=3)
    assert masked.num_parameters() == a.num_parameters() - 15 * 4 * 16


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"d": 0}, "d"), ({"d_h": -1}, "d_h"), ({"num_heads": 2, "active_heads": 3}, "active_heads"),
    ({"vocab_size": 0}, "vocab_size"), ({"dtype": torch.int64}, "dtype"),
])
def test_bad_arguments_name_the_parameter(kwargs, name):
    args = {"vocab_size": 5, "seq_len": 2, "d": 4, "d_h": 2, "num_heads": 2, **kwargs}
    with pytest.raises(ValueError, match=name):
        CompressedAttentionOnlyTransformer(**args)
    model = CompressedAttentionOnlyTransformer(5, 2, 4, 2, 2)
    with pytest.raises(ValueError, match="vocab_size=5"):
        model(torch.tensor([[0, 5]]))


def _code_module_weights(n: int, s: int, d: int, d_h: int) -> dict[str, torch.Tensor]:
    """The weights the official ``models.py`` draws for these roles, from the same modules:
    ``nn.Linear(d, N)`` (word_emb), ``nn.Linear(d_h, S + 1)`` (pos_emb, rows 0..S-1 used),
    ``nn.Linear(d, N)`` (unemb) and ``nn.MultiheadAttention(d_h, 1, bias=False)``."""
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(d_h, 1, bias=False, batch_first=True)
    return {"token_embedding": nn.Linear(d, n, bias=False).weight,
            "pos_embedding": nn.Linear(d_h, s + 1, bias=False).weight[:s],
            "W_U": nn.Linear(d, n, bias=False).weight,
            "W_Q": mha.in_proj_weight[:d_h], "W_O": mha.out_proj.weight}


@pytest.mark.parametrize(("name", "bound"), [
    ("token_embedding", 1 / 12 ** 0.5), ("pos_embedding", 1 / 5 ** 0.5),
    ("W_U", 1 / 12 ** 0.5), ("W_Q", (6 / (4 * 5)) ** 0.5), ("W_O", 1 / 5 ** 0.5),
    ("compress", 1 / 12 ** 0.5), ("decompress", 1 / 5 ** 0.5),
])
def test_initialisation_is_the_codes_uniform_bounds(name, bound):
    # N = 400, S = 30, d = 12, d_h = 5: embeddings are nn.Linear weights, U(±1/sqrt(fan_in))
    # with fan_in = d (tokens) and d_h (positions), not nn.Embedding's N(0, 1)
    from scipy import stats

    models = [CompressedAttentionOnlyTransformer(400, 30, 12, 5, 40, dtype=torch.float64,
                                                 seed=s) for s in range(3)]
    values = torch.cat([getattr(m, name).detach().flatten() for m in models]).numpy()
    assert abs(values).max() <= bound
    assert abs(values).max() > 0.9 * bound  # the whole interval is used
    assert stats.kstest(values, "uniform", args=(-bound, 2 * bound)).pvalue > 1e-3
    assert values.var() == pytest.approx(bound ** 2 / 3, rel=0.15)


def test_initialisation_matches_the_codes_modules():
    # two-sample KS test against the weights PyTorch's own modules draw (models.py's classes)
    from scipy import stats

    code = _code_module_weights(400, 30, 12, 5)
    models = [CompressedAttentionOnlyTransformer(400, 30, 12, 5, 40, seed=s) for s in range(3)]
    for name, theirs in code.items():
        ours = torch.cat([getattr(m, name).detach().flatten() for m in models]).numpy()
        result = stats.ks_2samp(ours, theirs.detach().flatten().numpy())
        assert result.pvalue > 1e-3, (name, result)
    # and against eq. (2)'s model, whose N(0, 1) embeddings the test must tell apart
    paper = AttentionOnlyTransformer(400, 30, 12, 5, 1, seed=0).token_embedding
    assert stats.ks_2samp(paper.detach().flatten().numpy(),
                          code["token_embedding"].detach().flatten().numpy()).pvalue < 1e-6
