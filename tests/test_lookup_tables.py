"""Tests of rank-d sequence encoders: Props 2-3, the Bietti et al. memory, Thm 2 (Dana et al.)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import softmax

from memnb import lookup_tables as lt


def test_circle_kl_closed_form_matches_direct_computation() -> None:
    N = 9
    w = lt.circle_points(N)
    np.testing.assert_allclose(np.linalg.norm(w, axis=1), 1.0)
    rng = np.random.default_rng(0)
    g = rng.integers(0, N, 20)
    onehot = np.eye(N)[g]  # Assumption 1: deterministic targets
    for lam in (0.0, 0.7, 4.0, 30.0):
        logits = lam * w[g] @ w.T  # f_λ(t) = λ W w_{g(t)}
        assert lt.expected_kl(onehot, logits) == pytest.approx(lt.circle_encoder_kl(N, lam),
                                                               rel=1e-12, abs=1e-15)


def test_prop3_kl_decreases_to_zero() -> None:
    lams = np.linspace(0, 300, 61)
    kl = lt.circle_encoder_kl(10, lams)
    assert kl[0] == pytest.approx(math.log(10))  # λ = 0: uniform prediction
    assert np.all(np.diff(kl) < 0)
    assert kl[-1] < 1e-20
    # the gap is set by the nearest circle neighbour: KL ≈ 2 exp(-λ (1 - cos 2π/N))
    lam = 100.0
    assert lt.circle_encoder_kl(10, lam) == pytest.approx(
        2 * math.exp(-lam * (1 - math.cos(2 * math.pi / 10))), rel=1e-3)


def test_peaked_conditionals_centered_rank() -> None:
    p = lt.peaked_conditionals(6, 2.0)
    assert p.shape == (6, 6)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert lt.centered_log_rank(p) == 5  # N - 1


def test_prop2_bottleneck_positive_below_n_minus_1() -> None:
    N = 5
    table = lt.bottleneck_table(lt.peaked_conditionals(N, 2.0), [1, 2, 3, 4, 5], restarts=1)
    below = table[table.d < N - 1]
    above = table[table.d >= N - 1]
    assert below.kl_positive.all() and not above.kl_positive.any()
    assert (below.kl_fit > 1e-4).all()
    assert (above.kl_fit < 1e-10).all()
    assert (table.kl_fit <= table.kl_truncated_svd + 1e-12).all()
    assert (np.diff(table.kl_fit.to_numpy()) <= 1e-8).all()  # more dimensions never hurt


def test_prop2_zero_when_centered_rank_fits() -> None:
    # random full-support conditionals whose centred log-probabilities have rank 2
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((7, 2)) @ rng.standard_normal((2, 6))
    p = softmax(logits, axis=1)
    assert lt.centered_log_rank(p) == 2
    assert lt.fit_rank_d_encoder(p, 2, restarts=0).kl < 1e-10
    assert lt.fit_rank_d_encoder(p, 1, restarts=1).kl > 1e-4


def test_peaked_limit_approaches_prop3() -> None:
    # as β grows (towards Assumption 1), the best rank-2 KL goes to 0
    kls = [lt.fit_rank_d_encoder(lt.peaked_conditionals(6, b), 2, restarts=1).kl
           for b in (2.0, 6.0, 12.0)]
    assert kls[0] > kls[1] > kls[2]
    assert kls[2] < 0.05


def test_bietti_memory_accuracy_grows_with_d() -> None:
    table = lt.bietti_memory_table(64, [2, 8, 32, 128, 512], seeds=4)
    mean = table.groupby("d").accuracy.mean().to_numpy()
    assert np.all(np.diff(mean[:4]) > 0)
    assert np.all(np.diff(mean) >= 0)
    assert mean[0] < 0.2
    assert mean[-1] == 1.0
    assert set(table.columns) >= {"d", "seed", "accuracy", "stored"}
    np.testing.assert_allclose(table.stored, table.accuracy * 64)


def test_bietti_memory_validation() -> None:
    with pytest.raises(ValueError, match="num_associations"):
        lt.bietti_memory_accuracy(10, 4, num_associations=11)
    with pytest.raises(ValueError, match="d"):
        lt.bietti_memory_accuracy(10, 0)


def test_lookup_table_lambda_solves_the_entropy_equation() -> None:
    p, g = lt.low_entropy_conditionals(30, 12, 0.2, seed=2)
    w = lt.jl_unembedding(12, 40, seed=0)
    per_t = lt.lookup_table_kl(p, w, g)
    h = -(p * np.log(p)).sum(axis=1)
    for i in range(len(p)):
        q = softmax(per_t.lam[i] * w @ w[g[i]])
        # model probability of g(t) is e^{-h_t} (the paper's -H(π_t) = h_t, Shannon entropy)
        assert math.log(q[g[i]]) == pytest.approx(-h[i], abs=1e-9)
        kl = float(np.sum(p[i] * (np.log(p[i]) - np.log(q))))
        assert per_t.kl[i] == pytest.approx(kl, rel=1e-9)
    assert (per_t.d_tv >= 0).all() and (per_t.d_tv <= 1).all()
    np.testing.assert_allclose(per_t.pi_g, 0.8)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), eps=st.floats(0.01, 0.5), N=st.integers(3, 30),
       d=st.integers(8, 1500))
def test_thm2_bound_dominates_achieved_kl(seed: int, eps: float, N: int, d: int) -> None:
    p, g = lt.low_entropy_conditionals(20, N, eps, seed=seed)
    w = lt.jl_unembedding(N, d, seed=seed)
    per_t = lt.lookup_table_kl(p, w, g)
    achieved = float(per_t.prior @ per_t.kl)
    c_emp = lt.coherence(w)
    if c_emp < 0.5:  # the proof holds with the coherence of the drawn W
        assert lt.thm2_bound(p, c_emp, g) >= achieved - 1e-12
    c_jl = math.sqrt(32 * math.log(N + 1) / d)
    if c_jl < 0.5:
        assert c_emp <= c_jl
        assert lt.thm2_bound(p, c_jl, g) >= achieved - 1e-12
    else:
        assert lt.thm2_bound(p, c_jl, g) == math.inf


def test_thm2_full_form_is_tight_for_orthonormal_rows() -> None:
    # with W = I (coherence 0) the look-up table reaches exactly the full form with C = 0
    p, g = lt.low_entropy_conditionals(25, 15, 0.3, seed=4)
    per_t = lt.lookup_table_kl(p, np.eye(15), g)
    achieved = float(per_t.prior @ per_t.kl)
    assert lt.thm2_bound(p, 0.0, g) == pytest.approx(achieved, rel=1e-9)
    assert lt.thm2_bound(p, 0.05, g) > achieved


def test_thm2_simplified_form_can_undercut_the_construction() -> None:
    N, delta = 200, 1e-9
    p1 = np.full(N, delta)
    p1[0], p1[1] = 0.5, 0.5 - delta * (N - 2)
    p2 = np.full(N, 0.5 / (N - 1))
    p2[0] = 0.5
    p, g = np.stack([p1, p2]), np.array([0, 0])
    per_t = lt.lookup_table_kl(p, np.eye(N), g)
    achieved = float(per_t.prior @ per_t.kl)
    assert lt.thm2_bound(p, 0.0, g, form="simplified") < achieved - 0.05


def test_thm2_table_marks_the_vacuous_regime() -> None:
    table = lt.thm2_table(10, [50, 300, 320, 800], num_sequences=40, eps=0.1)
    threshold = 128 * math.log(11)
    assert table.vacuous.tolist() == [d <= threshold for d in (50, 300, 320, 800)]
    assert np.isinf(table.bound_full[table.vacuous]).all()
    finite = table[~table.vacuous]
    assert (finite.bound_full >= finite.achieved_kl).all()
    assert (finite.bound_full_empirical_c <= finite.bound_full).all()
    assert finite.bound_full.iloc[-1] < finite.bound_full.iloc[0]  # tighter as d grows
    assert (table.c_empirical < table.c_jl).all()


def test_thm2_bound_edge_cases() -> None:
    onehot = np.eye(4)[[0, 1, 2]]
    assert lt.thm2_bound(onehot, 0.1) == 0.0  # deterministic and g = mode: nothing to pay
    uniform = np.full((2, 4), 0.25)
    assert lt.thm2_bound(uniform, 0.1) == pytest.approx(0.0, abs=1e-12)  # log((N-1)/(N-1))
    with pytest.raises(ValueError, match="form"):
        lt.thm2_bound(uniform, 0.1, form="loose")
    with pytest.raises(ValueError, match="C"):
        lt.thm2_bound(uniform, -0.1)
    with pytest.raises(ValueError, match="conditionals"):
        lt.thm2_bound(np.array([[0.5, 0.6]]), 0.1)
