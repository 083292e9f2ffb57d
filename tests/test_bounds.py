"""Closed-form formulas of memnb.bounds against values computed by hand from the papers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from memnb import bounds


def test_dana_capacity() -> None:
    assert bounds.dana_capacity(20, 10, 10) == 210  # Exp. 1 setting, d = d_h = 10, H = 20
    assert bounds.dana_capacity(5, 2, 2) == 12  # Cor. 1: H d_h + 2
    assert bounds.dana_capacity(0, 1, 7) == 7
    with pytest.raises(ValueError, match="d_h"):
        bounds.dana_capacity(3, 11, 10)  # the paper assumes d_h <= d


def test_dana_parameter_counts() -> None:
    # d (S + 2N + 4 d_h H) = 10 (2 + 100 + 800)
    assert bounds.dana_parameter_count(50, 2, 10, 10, 20) == 9020
    # Remark 2: d (S + 2N + 2 (d_h + 1) H) = 10 (2 + 100 + 440)
    assert bounds.dana_parameter_count_rank1(50, 2, 10, 10, 20) == 5420
    # Cor. 1 with T0 = 12, N = 10, S = 2: 2 (2 + 20 + 40)
    assert bounds.dana_parameter_count_at_capacity(10, 2, 2, 12) == 124
    # at capacity the two counts agree (H d_h = T0 - d)
    assert bounds.dana_parameter_count_at_capacity(50, 2, 10, 210) == 9020
    # rank-1 QK saves 2 d (d_h - 1) H
    full = bounds.dana_parameter_count(7, 3, 6, 4, 5)
    assert full - bounds.dana_parameter_count_rank1(7, 3, 6, 4, 5) == 2 * 6 * 3 * 5
    with pytest.raises(ValueError, match="T0"):
        bounds.dana_parameter_count_at_capacity(10, 2, 5, 4)


def test_dana_accuracy_bound() -> None:
    # N = 50, T0 = 2500, X = 210: 1/50 + (49/50)(210/2500)
    assert bounds.dana_accuracy_lower_bound(210, 50, 2500) == pytest.approx(0.10232)
    # Exp. 6: slope per head (1 - 1/N) d_h / T0 = 0.9 * 2 / 100 = 0.018
    slope = bounds.dana_accuracy_lower_bound(12, 10, 100) - bounds.dana_accuracy_lower_bound(
        10, 10, 100)
    assert slope == pytest.approx(0.018)
    assert bounds.dana_accuracy_lower_bound(0, 10, 100) == pytest.approx(0.1)
    assert bounds.dana_accuracy_lower_bound(5000, 10, 100) == 1.0  # clipped
    arr = bounds.dana_accuracy_lower_bound(np.array([0, 50, 100, 200]), 4, 100)
    np.testing.assert_allclose(arr, [0.25, 0.625, 1.0, 1.0])
    assert bounds.dana_expected_accuracy_bound(20, 10, 10, 50, 2500) == pytest.approx(0.10232)
    with pytest.raises(ValueError, match="X"):
        bounds.dana_accuracy_lower_bound(-1, 10, 100)


def test_dana_previous_capacity() -> None:
    assert bounds.dana_previous_capacity(20, 10) == 181
    assert bounds.dana_previous_capacity(7, 1) == 1
    assert bounds.dana_previous_capacity(3, 5) == bounds.mahdavi_capacity(3, 8, 5)


def test_dana_jl() -> None:
    assert bounds.dana_jl_constant(50, 504) == pytest.approx(math.sqrt(32 * math.log(51) / 504))
    assert bounds.dana_jl_threshold(50) == pytest.approx(503.27, abs=0.01)
    assert not bounds.dana_jl_nonvacuous(50, 503)
    assert bounds.dana_jl_nonvacuous(50, 504)
    assert bounds.dana_jl_constant(50, 504) < 0.5 < bounds.dana_jl_constant(50, 503)
    assert bounds.dana_jl_threshold(10) == pytest.approx(128 * math.log(11))


def test_mahdavi() -> None:
    assert bounds.mahdavi_capacity(3, 8, 64) == 22  # min(n, d_h) = n = 8
    assert bounds.mahdavi_capacity(3, 8, 4) == 10  # min(n, d_h) = d_h = 4
    assert bounds.mahdavi_capacity(5, 1, 4) == 1  # n = 1: capacity exactly 1 (Prop. 2)
    # 2 H d d_h + 2 H d d_v + d d_o = 48 + 80 + 24
    assert bounds.mahdavi_parameter_count(2, 4, 3, 5, 6) == 152
    assert bounds.mahdavi_shared_context_rank_bound(3, 8) == 22
    assert bounds.mahdavi_constant_sum_rank_bound(3, 64) == 190


@pytest.mark.parametrize(
    ("fn", "args", "name"),
    [
        (bounds.dana_capacity, (-1, 2, 4), "H"),
        (bounds.dana_capacity, (1, 0, 4), "d_h"),
        (bounds.dana_capacity, (1, 1, 0), "d"),
        (bounds.dana_parameter_count, (0, 2, 4, 2, 1), "N"),
        (bounds.dana_parameter_count, (5, 2.0, 4, 2, 1), "S"),
        (bounds.dana_accuracy_lower_bound, (1, 10, 0), "T0"),
        (bounds.dana_jl_constant, (True, 10), "N"),
        (bounds.mahdavi_capacity, (0, 3, 3), "H"),
        (bounds.mahdavi_parameter_count, (1, 4, 3, 0, 6), "d_v"),
        (bounds.mahdavi_constant_sum_rank_bound, (2, -4), "d"),
    ],
)
def test_value_errors(fn, args, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        fn(*args)


def test_accepts_numpy_integers() -> None:
    assert bounds.dana_capacity(np.int64(2), np.int32(3), np.int64(4)) == 10
