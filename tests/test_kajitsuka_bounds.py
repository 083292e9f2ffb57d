"""Kajitsuka & Sato, Thm 4.2 and Cor. 4.1: the instantiated VC lower bound, the shattered sets."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memnb import bounds, lower_bounds


def test_bartlett_bound_by_hand():
    # W = 10, L = 3, R = 12, ReLU (p = 1): 3 + 3 * 10 * log2(4e * 12 * log2(2e * 12))
    expected = 3 + 30 * math.log2(4 * math.e * 12 * math.log2(2 * math.e * 12))
    assert lower_bounds.bartlett_vc_bound(10, 3, 12) == pytest.approx(expected)
    assert lower_bounds.bartlett_vc_bound(10, 3, 12, effective_depth=1.5) < expected
    assert lower_bounds.vc_upper_bound(10) == pytest.approx(
        lower_bounds.bartlett_vc_bound(10, 10, 100))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 64))
def test_min_parameters_is_the_smallest_w_whose_bound_reaches_the_points(points, n):
    w = lower_bounds.min_parameters(points, n)
    assert lower_bounds.vc_upper_bound(w, n) >= points
    assert w == 1 or lower_bounds.vc_upper_bound(w - 1, n) < points


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 200_000), st.integers(2, 64))
def test_lower_bound_is_monotone_and_below_the_construction(N, n):
    assert lower_bounds.min_parameters(N) <= lower_bounds.min_parameters(N + 1)
    assert lower_bounds.min_parameters(N) <= lower_bounds.min_parameters(n * N, n)
    assert lower_bounds.min_parameters(N) < bounds.kajitsuka_construction_parameter_model(
        N, n, 2, 1000)
    assert lower_bounds.min_parameters(n * N, n) < bounds.kajitsuka_construction_parameter_model(
        N, n, 2, 1000, task="seq2seq")


def test_lower_bound_grows_like_root_n_up_to_logs():
    """P(N) = min_parameters(N) is the least W with W + W² ℓ(W) >= N, where
    ℓ(W) = log2(4e W² log2(2e W²)) (vc_upper_bound: L = L̄ = W, R = W², p = 1). So P² ℓ(P) ≈ N
    with ℓ(P) between log2 N and log2 N + log2(4e) + log2 log2(2eN) (as P² <= N): P is √N up to
    a factor √(log N), and r(N) = P² log2 N / N stays within fixed bounds that follow from the
    formula alone, not from its output."""
    Ns = [10**k for k in range(4, 9)]
    P = [lower_bounds.min_parameters(N) for N in Ns]
    for N, p in zip(Ns, P, strict=True):
        assert p * p <= N  # VC(W) >= W², so W = √N already suffices
        r = p * p * math.log2(N) / N
        # VC(P) >= N and ℓ(P) <= ℓ at W² = N: P² >= (N - P) / ℓ_N, with P <= √N
        low = (1 - N**-0.5) * math.log2(N) / math.log2(4 * math.e * N * math.log2(2 * math.e * N))
        # W* = √(N / log2 N) has ℓ(W*) >= log2 N, so VC(W*) >= N: P <= W* + 1
        high = (1 + math.sqrt(math.log2(N) / N)) ** 2
        assert low <= r <= high, (N, p, low, r, high)
    # the log-log slope: d ln P / d ln N = 1 / (2 + d ln ℓ / d ln P), and d ln ℓ / d ln P =
    # (2 / ln 2)(1 + 1 / (ln 2 log2(2eP²))) / ℓ <= 3.3 / log2(10^4) < 0.25 here (P >= 25, ℓ >=
    # log2 N): the exponent lies between 1 / 2.25 and 1 / 2
    slope = np.polyfit(np.log(Ns), np.log(P), 1)[0]
    assert 1 / 2.25 < slope < 0.5, slope


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5))
def test_identical_tokens_give_n_points_distinct_tokens_give_nn(N, n):
    same = np.repeat(np.arange(N)[:, None], n, axis=1)
    distinct = np.arange(N * n).reshape(N, n)
    assert lower_bounds.equivariant_points(same) == N
    assert lower_bounds.equivariant_points(distinct) == N * n
    assert lower_bounds.equivariant_points(distinct, task="next_token") == N


def test_distinct_tokens_are_shattered_identical_ones_are_not():
    distinct = lower_bounds.shattering_check(np.arange(1, 7).reshape(2, 3))
    assert distinct["memorized"] == distinct["labellings"] == 64 and distinct["refused"] == 0
    # shattering for the VC argument needs one class: every labelling's network has one size
    assert distinct["architectures"] == 1 and distinct["parameters"] > 0
    from memnb.figures.kajitsuka import _shattered_by

    assert _shattered_by(distinct).startswith("by one architecture (width ")
    assert "class of networks up to" in _shattered_by({**distinct, "architectures": 3})
    same = lower_bounds.shattering_check(np.repeat(np.array([[1], [2]]), 3, axis=1))
    assert same["points"] == 2 and same["memorized"] == 4 and same["refused"] == 60


def test_hardmax_is_piecewise_constant_softmax_is_not():
    line = lower_bounds.attention_along_a_line(num_t=100)
    assert 1 < line["hardmax_outputs"] < 20
    assert line["softmax_outputs"] == 100


@pytest.mark.parametrize("call, name", [
    (lambda: lower_bounds.min_parameters(0), "points"),
    (lambda: lower_bounds.min_parameters(10, 0), "n"),
    (lambda: lower_bounds.bartlett_vc_bound(10, 3, 12, pieces=1), "pieces"),
    (lambda: lower_bounds.bartlett_vc_bound(10, 3, 12, effective_depth=5), "effective_depth"),
    (lambda: lower_bounds.shattering_check(np.arange(20).reshape(4, 5)), "max_labels"),
    (lambda: lower_bounds.equivariant_points(np.ones((2, 2))), "tokens"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_equivariant_points_names_a_task_it_does_not_know():
    import numpy as np

    with pytest.raises(ValueError, match="task must be 'next_token' or 'seq2seq'; got 'x'"):
        lower_bounds.equivariant_points(np.zeros((2, 3), dtype=int), task="x")
