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


# ---------------------------------------------------------------------------------------------
# Figure 1's curve from nested draws (prefixes of random permutations) against independent draws
# ---------------------------------------------------------------------------------------------
from math import comb, sqrt  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _within_binomial(p_a: float, n_a: int, p_b: float, n_b: int, sigmas: float = 4.0) -> bool:
    """|p_a - p_b| within ``sigmas`` standard deviations of a difference of two binomial means
    (with a floor for p near 0 or 1)."""
    p = (p_a * n_a + p_b * n_b) / (n_a + n_b)
    sd = sqrt(max(p * (1 - p), 1.0 / (n_a + n_b)) * (1 / n_a + 1 / n_b))
    return abs(p_a - p_b) <= sigmas * sd


@settings(max_examples=25, deadline=None)
@given(d=st.integers(1, 10), extra=st.integers(1, 8), seed=st.integers(0, 2**16),
       dtype=st.sampled_from([torch.float32, torch.float64]))
def test_generic_sets_pass_up_to_d_and_fail_beyond_with_both_methods(d, extra, seed, dtype):
    """Gaussian vectors are in general position: every subset of size <= d is independent."""
    T = d + extra
    g = torch.Generator().manual_seed(seed)
    vectors = torch.randn(T, d, generator=g, dtype=dtype)
    ks = list(range(1, T + 1))
    for method in ("prefix", "subsets"):
        curve = pass_fraction_curve(vectors, ks, repeats=4, seed=seed, method=method)
        assert list(curve["k"]) == ks and set(curve["method"]) == {method}
        expected = [1.0 if k <= d else 0.0 for k in ks]
        assert list(curve["pass_fraction"]) == expected


def _planted(kind: str, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    T, d = 40, 12
    v = torch.randn(T, d, generator=g, dtype=torch.float64)
    if kind == "copies":  # 8 copies of one vector
        v[5:12] = v[4]
    elif kind == "subspace":  # 20 of the vectors in a 4-dimensional subspace
        v[:20] = torch.randn(20, 4, generator=g, dtype=torch.float64) @ torch.randn(
            4, d, generator=g, dtype=torch.float64)
    elif kind == "low_rank":  # the whole set has rank 7 < d
        v = _subspace_vectors(T, d, 7, seed)
    return v


@pytest.mark.parametrize("kind", ["copies", "subspace", "low_rank"])
def test_prefix_and_subset_methods_estimate_the_same_pass_fraction(kind):
    vectors = _planted(kind, seed=3)
    ks = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 13]
    reps = 1500
    prefix = pass_fraction_curve(vectors, ks, repeats=reps, seed=11, method="prefix")
    subsets = pass_fraction_curve(vectors, ks, repeats=reps, seed=12, method="subsets")
    for a, b, k in zip(prefix["pass_fraction"], subsets["pass_fraction"], ks, strict=True):
        assert _within_binomial(a, reps, b, reps), (kind, k, a, b)
    # nested draws: each permutation's passing prefixes are an initial run, so the curve falls
    assert prefix["pass_fraction"].is_monotonic_decreasing
    if kind == "low_rank":
        assert (prefix.loc[prefix["k"] > 7, "pass_fraction"] == 0).all()
        assert (subsets.loc[subsets["k"] > 7, "pass_fraction"] == 0).all()


@pytest.mark.parametrize(("T", "d", "m"), [(40, 12, 8), (30, 20, 3)])
def test_prefix_method_matches_the_hypergeometric_pass_fraction_of_copies(T, d, m):
    """T vectors, m of them identical, the rest generic: for k <= d a k-subset has rank k iff
    it holds at most one of the copies, P = [C(T-m, k) + m C(T-m, k-1)] / C(T, k)."""
    g = torch.Generator().manual_seed(T + m)
    vectors = torch.randn(T, d, generator=g, dtype=torch.float64)
    vectors[1:m] = vectors[0]
    ks = [k for k in (1, 2, 3, 5, 8, 12, 16, 20) if k <= d]
    reps = 3000
    curve = pass_fraction_curve(vectors, ks, repeats=reps, seed=5, method="prefix")
    for k, est in zip(ks, curve["pass_fraction"], strict=True):
        exact = (comb(T - m, k) + m * comb(T - m, k - 1)) / comb(T, k)
        sd = sqrt(max(exact * (1 - exact), 1.0 / reps) / reps)
        assert abs(est - exact) <= 4 * sd, (k, est, exact)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prefix_decisions_equal_matrix_rank_on_every_prefix(seed):
    """The tolerance is matrix_rank's default in the data's dtype: on float32 vectors with a
    graded spectrum (numerical rank well below d), every prefix's decision is matrix_rank's."""
    g = torch.Generator().manual_seed(100 + seed)
    T, d = 50, 30
    scales = torch.logspace(0, -9, d, dtype=torch.float64)
    vectors = (torch.randn(T, d, generator=g, dtype=torch.float64) * scales).float()
    ks = list(range(1, T + 1))
    curve = pass_fraction_curve(vectors, ks, repeats=1, seed=seed, method="prefix", chunk=1)
    perm = torch.randperm(T, generator=torch.Generator().manual_seed(seed))
    expected = [float(int(torch.linalg.matrix_rank(vectors[perm[:k]])) == k) for k in ks]
    assert list(curve["pass_fraction"]) == expected
    assert 1 < sum(expected) < d  # the test exercises the tolerance, not just k > d


def test_invalid_curve_arguments_name_the_parameter():
    vectors = torch.randn(10, 4, dtype=torch.float64)
    with pytest.raises(ValueError, match="method"):
        pass_fraction_curve(vectors, [1, 2], repeats=3, method="svd")
    for ks in ([0, 2], [11], [], ["a"]):
        with pytest.raises(ValueError, match="ks"):
            pass_fraction_curve(vectors, ks, repeats=3)
    for repeats in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="repeats"):
            pass_fraction_curve(vectors, [1, 2], repeats=repeats)
    with pytest.raises(ValueError, match="repeats"):
        kruskal_test(vectors, 2, repeats=0)
    with pytest.raises(ValueError, match="k must be"):
        kruskal_test(vectors, 0, repeats=2)


# ---------------------------------------------------------------------------------------------
# The fixed-k test from the Gram matrix (eigenvalues = squared singular values)
# ---------------------------------------------------------------------------------------------
def _graded(T: int, d: int, decades: float, seed: int) -> torch.Tensor:
    """float32 vectors whose spectrum falls over ``decades`` decades: the numerical rank of a
    draw depends on matrix_rank's tolerance, so it exercises the decision at the threshold."""
    g = torch.Generator().manual_seed(seed)
    scales = torch.logspace(0, -decades, d, dtype=torch.float64)
    return (torch.randn(T, d, generator=g, dtype=torch.float64) * scales).float()


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**16), decades=st.sampled_from([0.0, 4.5, 6.0]),
       k=st.sampled_from([40, 160, 200]))
def test_gram_route_gives_matrix_rank_of_every_draw(seed, decades, k):
    """Same seed, same subsets: ``gram`` and ``svd`` agree draw by draw (float32, k <= d)."""
    vectors = _graded(260, 200, decades, seed)
    for s in range(3):
        svd = kruskal_test(vectors, k, repeats=4, seed=seed + s, method="svd")
        gram = kruskal_test(vectors, k, repeats=4, seed=seed + s, method="gram")
        assert gram == svd


def test_gram_route_on_planted_dependencies_and_its_fallback():
    vectors = _graded(260, 200, 0.0, 7)
    vectors[10:40] = vectors[3]  # 31 copies: a draw of 100 has rank 100 - (copies drawn - 1)
    svd = kruskal_test(vectors, 100, repeats=16, seed=1, method="svd")
    gram = kruskal_test(vectors, 100, repeats=16, seed=1, method="gram")
    assert gram == svd and svd.max_rank < 100
    low = _subspace_vectors(260, 200, 150, seed=2).float()  # rank 150 < k = 180
    res = kruskal_test(low, 180, repeats=4, method="gram")
    assert res.pass_fraction == 0.0 and res.max_rank == 150
    # float64 vectors (tolerance below float64 rounding of the Gram) and k > d: plain SVD
    from memnb.assumptions import _gram_applies

    assert _gram_applies(vectors, 200) and not _gram_applies(vectors.double(), 200)
    small = torch.randn(30, 8, dtype=torch.float64)
    assert not _gram_applies(small, 8) and not _gram_applies(vectors, 201)
    assert kruskal_test(small, 8, repeats=5, method="gram") == kruskal_test(
        small, 8, repeats=5, method="svd")
    with pytest.raises(ValueError, match="method"):
        kruskal_test(small, 2, repeats=2, method="eig")


def test_assumption_table_records_the_rank_method():
    g = torch.Generator().manual_seed(6)
    summary = summarize([torch.randn(240, 2, 200, generator=g)], name="wide")
    rows = {r["check"]: r for r in assumption_table(summary, repeats=3, method="gram")}
    assert rows["assumption1"]["method"] == "gram" and rows["general_position"]["method"] == "gram"
    assert rows["assumption2"]["method"] == "svd"
    again = {r["check"]: r for r in assumption_table(summary, repeats=3, method="svd")}
    for check in ("assumption1", "general_position", "assumption3"):
        assert {key: rows[check][key] for key in ("pass_fraction", "min_rank", "max_rank")} == {
            key: again[check][key] for key in ("pass_fraction", "min_rank", "max_rank")}
    with pytest.raises(ValueError, match="method"):
        assumption_table(summary, repeats=3, method="qr")


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 40), data=st.data())
def test_monotone_search_finds_the_boundary_from_any_guess(n, data):
    from memnb.assumptions import _monotone_search

    boundary = data.draw(st.integers(0, n))
    guess = data.draw(st.integers(-3, n + 3))
    calls = []

    def passes(i: int) -> bool:
        assert 0 <= i < n
        calls.append(i)
        return i < boundary

    assert _monotone_search(n, guess, passes) == boundary
    assert len(calls) <= 2 * max(n, 1).bit_length() + 2
