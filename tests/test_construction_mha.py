"""Tests of the constructive proof of Mahdavi et al. (ICLR 2024), Theorem 1 / Propositions 1-5."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from memnb.bounds import (
    mahdavi_capacity,
    mahdavi_constant_sum_rank_bound,
    mahdavi_shared_context_rank_bound,
)
from memnb.constructions.mha import (
    construct,
    memorize,
    random_weight_ranks,
    relu_network_jacobian_rank,
    z_matrix,
)


def _dataset(T, n, d, d_o, *, shared=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    if shared:
        E = torch.rand(n, d, generator=g, dtype=torch.float64).expand(T, n, d).clone()
    else:
        E = torch.rand(T, n, d, generator=g, dtype=torch.float64)
    e = torch.rand(T, d, generator=g, dtype=torch.float64)
    y = torch.randn(T, d_o, generator=g, dtype=torch.float64)
    return E, e, y


@settings(max_examples=60, deadline=None)
@given(H=st.integers(1, 4), n=st.integers(1, 6), extra_d=st.integers(0, 5),
       d_h=st.integers(1, 8), d_o=st.integers(1, 3), shared=st.booleans(),
       seed=st.integers(0, 10_000))
def test_construction_memorizes_exactly_at_capacity(H, n, extra_d, d_h, d_o, shared, seed):
    d = max(n, d_o) + extra_d
    T = mahdavi_capacity(H, n, d_h)
    E, e, y = _dataset(T, n, d, d_o, shared=shared, seed=seed)
    result = construct(E, e, y, H, d_h, seed=seed)
    model = result.model
    assert (model(E, e) - y).abs().max() <= 1e-6
    assert result.z_rank == T
    n_prime = min(n, d_h)
    # rank(Z) grows by n' - 1 per head (Proposition 1)
    expected = [min(T, n_prime + h * (n_prime - 1)) for h in range(len(result.rank_after_head))]
    assert result.rank_after_head == expected
    # every head's W_K W_Q^T has rank <= d_h
    assert all(r <= d_h for r in result.weight_ranks)
    assert model.W_K.shape == (H, d, d_h)


def test_memorize_below_capacity_and_returns_model():
    E, e, y = _dataset(5, 4, 9, 2, seed=3)
    model = memorize(E, e, y, 3, 4)
    assert (model(E, e) - y).abs().max() <= 1e-6
    assert model.num_heads == 3


def test_too_many_examples():
    E, e, y = _dataset(mahdavi_capacity(2, 3, 5) + 1, 3, 6, 1)
    with pytest.raises(ValueError, match="too many examples"):
        memorize(E, e, y, 2, 5)


def test_context_not_of_rank_n():
    E, e, y = _dataset(4, 3, 6, 1)
    E[2, 2] = E[2, 0] + E[2, 1]
    with pytest.raises(ValueError, match="Assumption 2.*context 2"):
        memorize(E, e, y, 2, 5)


def test_queries_failing_kruskal_rank():
    E, e, y = _dataset(7, 3, 6, 1)
    e[5] = e[1]  # two equal queries: Kruskal rank 1 < n
    with pytest.raises(ValueError, match="Assumption 1"):
        memorize(E, e, y, 3, 5)
    E, e, y = _dataset(3, 3, 6, 1, seed=1)
    e[2] = 0.5 * e[0] - 2.0 * e[1]  # three dependent queries in head 1's set
    with pytest.raises(ValueError, match="Assumption 1.*dependent"):
        memorize(E, e, y, 1, 5)


def test_input_validation():
    E, e, y = _dataset(3, 2, 4, 1)
    with pytest.raises(ValueError, match="float64"):
        memorize(E.float(), e, y, 2, 2)
    with pytest.raises(ValueError, match="queries"):
        memorize(E, e[:2], y, 2, 2)
    with pytest.raises(ValueError, match="d_o"):
        memorize(E, e, torch.zeros(3, 5, dtype=torch.float64), 2, 2)


@pytest.mark.parametrize(("H", "n", "d", "d_h"), [(2, 4, 10, 10), (3, 3, 8, 2), (1, 5, 7, 7)])
def test_proposition2_shared_context_rank_never_exceeds_bound(H, n, d, d_h):
    T = H * d  # far more examples than the bound
    E, e, _ = _dataset(T, n, d, 1, shared=True, seed=H + n)
    bound = mahdavi_shared_context_rank_bound(H, n)
    rows = random_weight_ranks(E, e, H, d_h, draws=6, seed=1)
    ranks = [r["rank"] for r in rows]
    assert max(ranks) <= bound
    if d_h >= n:  # generic weights reach the bound
        assert max(ranks) == bound
    # the constructed model is a weight choice too
    model = memorize(E[: mahdavi_capacity(H, n, d_h)], e[: mahdavi_capacity(H, n, d_h)],
                     torch.zeros(mahdavi_capacity(H, n, d_h), 1, dtype=torch.float64), H, d_h)
    assert torch.linalg.matrix_rank(z_matrix(model, E, e)) <= bound


def test_proposition5_constant_sum_tokens():
    H, n, d, T = 2, 3, 5, 40
    g = torch.Generator().manual_seed(0)
    E = torch.rand(T, n, d, generator=g, dtype=torch.float64)
    e = torch.rand(T, d, generator=g, dtype=torch.float64)
    bound = mahdavi_constant_sum_rank_bound(H, d)
    free = max(r["rank"] for r in random_weight_ranks(E, e, H, d, draws=4))
    assert free == H * d > bound  # without the constraint Z can have full column rank
    E_sum = E / E.sum(dim=2, keepdim=True) * 2.0  # every token sums to 2
    ranks = [r["rank"] for r in random_weight_ranks(E_sum, e, H, d, draws=6)]
    assert max(ranks) == bound


def test_proposition3_relu_network_rank_is_capped():
    n, d, T, width = 4, 6, 60, 3
    E = torch.eye(n, d, dtype=torch.float64).expand(T, n, d)
    e = torch.randn(T, d, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    rank, params = relu_network_jacobian_rank(E, e, width)
    assert params == width * ((n + 1) * d + 2) + 1
    assert rank <= width * (d + 2) + 1 < params
