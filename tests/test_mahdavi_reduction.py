"""The chapter's reduction (ours) that carries Theorem 1's guarantee to the official model's
classification task, although that model has ``d_v = 1 < d_o = C``: exact memorization of the
class index as a scalar, read out by the rank-one affine map ``logit_c = 2 c s - c^2``, which
the official model (input map, sinusoidal positions, ``1/sqrt(d)`` logits, read-out bias)
contains."""

from __future__ import annotations

import math

import torch

from memnb.constructions import mha
from memnb.models.multi_head import MultiHeadAttention


def _official_from_scalar(d: int, n: int, heads: int, d_h: int, classes: int,
                          contexts: torch.Tensor, queries: torch.Tensor, labels: torch.Tensor,
                          *, bias: bool = True) -> MultiHeadAttention:
    """The official model whose attention is Theorem 1's construction for the scalar labels
    (built on the tokens the official model's attention sees: the inputs plus its positions),
    with the rank-one read-out ``logit_c = 2 c s - c^2`` (without its bias when ``bias`` is
    false)."""
    model = MultiHeadAttention.official(d, n, heads, d_h, classes, dtype=torch.float64)
    pe = model.pos_encoding
    built = mha.construct(contexts + pe[1:], queries + pe[0], labels.double()[:, None], heads,
                          d_h).model
    c = torch.arange(classes, dtype=torch.float64)
    with torch.no_grad():
        model.W_in.copy_(torch.eye(d, dtype=torch.float64))
        model.b_in.zero_()
        model.W_K.copy_(built.W_K * math.sqrt(d))  # the official 1/sqrt(d) scale, absorbed
        model.W_Q.copy_(built.W_Q)
        model.W_V.copy_(built.W_V)
        model.W_O.copy_(built.W_O)  # rows e_1^T: the heads' scalars summed into coordinate 0
        model.W_D.zero_()
        model.W_D[0] = 2 * c
        model.b_D.copy_(-c**2 if bias else torch.zeros_like(c))
    return model


def test_official_model_memorizes_classes_through_the_scalar_construction():
    d, n, heads, d_h, classes = 16, 4, 3, 4, 100
    T = heads * (min(n, d_h) - 1) + 1  # Theorem 1's guarantee
    g = torch.Generator().manual_seed(0)
    contexts = torch.rand(n, d, generator=g, dtype=torch.float64).expand(T, n, d).clone()
    queries = torch.rand(T, d, generator=g, dtype=torch.float64)
    labels = torch.randint(0, classes, (T,), generator=g)
    model = _official_from_scalar(d, n, heads, d_h, classes, contexts, queries, labels)
    with torch.no_grad():
        logits = model(contexts, queries)
        read_out = model.W_O.reshape(heads, d) @ model.W_D  # heads' scalars -> logits
    assert torch.equal(logits.argmax(dim=1), labels)  # every class memorized
    assert int(torch.linalg.matrix_rank(read_out)) == 1  # a rank-one read-out on the heads
    # the bias is what makes a rank-one read-out name more than two classes
    unbiased = _official_from_scalar(d, n, heads, d_h, classes, contexts, queries, labels,
                                     bias=False)
    with torch.no_grad():
        assert not torch.equal(unbiased(contexts, queries).argmax(dim=1), labels)
