"""Tests of the assumption checks of Mahdavi et al. (ICLR 2024): ranks and Kruskal ranks."""

from __future__ import annotations

import pytest
import torch

from memnb.assumptions import (
    assumption_table,
    context_ranks,
    estimate_kruskal_rank,
    kruskal_rank_exact,
    kruskal_test,
    pass_fraction_curve,
    shifted_queries,
    summarize,
    uniform_attention_skip,
)


def _subspace_vectors(T: int, d: int, k: int, seed: int = 0) -> torch.Tensor:
    """T generic vectors of a k-dimensional subspace of R^d: Kruskal rank exactly k."""
    g = torch.Generator().manual_seed(seed)
    basis = torch.randn(k, d, generator=g, dtype=torch.float64)
    return torch.randn(T, k, generator=g, dtype=torch.float64) @ basis


@pytest.mark.parametrize(("T", "d", "k"), [(7, 5, 3), (6, 4, 4), (8, 6, 2)])
def test_exact_and_estimated_kruskal_rank_on_known_matrices(T, d, k):
    vectors = _subspace_vectors(T, d, k)
    assert kruskal_rank_exact(vectors) == k
    assert estimate_kruskal_rank(vectors, repeats=30) == k


def test_kruskal_rank_of_designed_dependencies():
    g = torch.Generator().manual_seed(1)
    v = torch.randn(7, 5, generator=g, dtype=torch.float64)
    dup = v.clone()
    dup[4] = dup[1]
    assert kruskal_rank_exact(dup) == 1
    # enough draws find the one dependent pair among 21
    assert estimate_kruskal_rank(dup, repeats=300) == 1
    three = v.clone()
    three[6] = three[0] + three[2]
    assert kruskal_rank_exact(three) == 2
    # general position: every 5 of the 7 are independent
    assert kruskal_rank_exact(v) == 5


def test_kruskal_test_fraction_and_ranks():
    vectors = _subspace_vectors(50, 10, 6, seed=2)
    ok = kruskal_test(vectors, 6, repeats=20)
    assert ok.pass_fraction == 1.0 and ok.min_rank == ok.max_rank == 6
    fail = kruskal_test(vectors, 8, repeats=20)
    assert fail.pass_fraction == 0.0 and fail.max_rank == 6
    assert kruskal_test(vectors, 6, repeats=5, seed=3) == kruskal_test(vectors, 6, repeats=5,
                                                                         seed=3)
    curve = pass_fraction_curve(vectors, [1, 4, 6, 7, 9], repeats=5)
    assert list(curve["pass_fraction"]) == [1.0, 1.0, 1.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="k must be"):
        kruskal_test(vectors, 51, repeats=2)


def test_context_ranks():
    g = torch.Generator().manual_seed(0)
    E = torch.randn(5, 3, 6, generator=g)
    E[2, 1] = 2 * E[2, 0]
    assert context_ranks(E, batch_size=2).tolist() == [3, 3, 2, 3, 3]


def test_proposition4_uniform_attention_fixes_assumption1():
    """Identical queries (like a ViT's [CLS] embedding) fail Assumption 1; after the uniform
    attention layer with a skip connection, Assumptions 1 and 2 hold (Prop. 4)."""
    T, n, d = 12, 3, 6
    g = torch.Generator().manual_seed(0)
    cls = torch.randn(d, generator=g, dtype=torch.float64)
    patches = torch.randn(T, n - 1, d, generator=g, dtype=torch.float64)
    E = torch.cat([cls.expand(T, 1, d), patches], dim=1)
    e = E[:, 0]
    assert kruskal_rank_exact(e) == 1
    assert kruskal_rank_exact(shifted_queries(E, e)) >= n  # Assumption 3 holds
    E_new, e_new = uniform_attention_skip(E, e)
    assert kruskal_rank_exact(e_new) >= n
    assert (context_ranks(E_new) == n).all()
    torch.testing.assert_close(e_new, E_new[:, 0])


def test_summarize_and_table():
    g = torch.Generator().manual_seed(4)
    batches = [torch.randn(6, 3, 5, generator=g) for _ in range(3)]
    summary = summarize(iter(batches), name="toy")
    assert summary.num_examples == 18 and (summary.n, summary.d) == (3, 5)
    rows = {r["check"]: r for r in assumption_table(summary, repeats=10)}
    assert rows["assumption2"]["pass_fraction"] == 1.0
    assert rows["assumption1"]["satisfied"] and rows["assumption1"]["k"] == 3
    assert rows["general_position"]["k"] == 5 and rows["general_position"]["satisfied"]
    same = summarize([torch.ones(4, 3, 5)], name="constant")
    rows = {r["check"]: r for r in assumption_table(same, repeats=5)}
    assert rows["assumption1"]["pass_fraction"] == 0.0 and rows["assumption1"]["max_rank"] == 1
    assert not rows["assumption2"]["satisfied"]
    with pytest.raises(ValueError, match="empty"):
        summarize([], name="none")


def test_general_position_is_tested_at_d_and_a_clipped_test_decides_only_a_failure():
    """The paper tests General Position at k = d; with fewer examples than d the test runs at
    k = T: a pass there is not conclusive (valid False), a failure is (it refutes the rank)."""
    from memnb.assumptions import conclusive

    g = torch.Generator().manual_seed(5)
    few = summarize([torch.randn(4, 2, 6, generator=g, dtype=torch.float64)], name="few")
    gp = {r["check"]: r for r in assumption_table(few, repeats=5)}["general_position"]
    assert gp["k"] == 4 and not gp["valid"] and gp["pass_fraction"] == 1.0
    assert not gp["conclusive"] and not conclusive(gp)
    dup = torch.randn(4, 2, 6, generator=g, dtype=torch.float64)
    dup[3, 0] = dup[0, 0]  # two equal queries among four
    gp = {r["check"]: r for r in assumption_table(summarize([dup], name="dup"),
                                                  repeats=5)}["general_position"]
    assert gp["pass_fraction"] == 0.0 and gp["conclusive"]
    enough = summarize([torch.randn(9, 2, 6, generator=g, dtype=torch.float64)], name="many")
    gp = {r["check"]: r for r in assumption_table(enough, repeats=5)}["general_position"]
    assert gp["k"] == 6 and gp["valid"] and gp["conclusive"]
