"""Each scorecard criterion on synthetic tables whose answer is known, both ways."""

from __future__ import annotations

import numpy as np
import pytest

from memnb.scorecard import criteria as c

X = np.arange(1.0, 11.0)


def test_linear_trend_accepts_a_line_and_compares_the_slope() -> None:
    y = 3.0 * X + 1.0 + np.random.default_rng(0).normal(0, 0.1, X.size)
    assert c.linear_trend(X, y).status == "reproduced"
    assert c.linear_trend(X, y, expected_slope=3.1).status == "reproduced"
    assert c.linear_trend(X, y, expected_slope=5.0).status == "trend"


def test_linear_trend_rejects_flat_and_curved_data() -> None:
    flat = np.random.default_rng(1).normal(5, 1, X.size)
    assert c.linear_trend(X, flat).status == "differs"
    assert c.linear_trend(X, np.exp(X)).status == "differs"  # R² below 0.9


def test_linear_fit_interval_covers_true_slope() -> None:
    y = 2.0 * X + np.random.default_rng(2).normal(0, 0.5, X.size)
    fit = c.linear_fit(X, y)
    assert fit.slope_low < 2.0 < fit.slope_high
    with pytest.raises(ValueError, match="two distinct"):
        c.linear_fit([1, 1], [2, 3])


def test_plateau_both_ways() -> None:
    knee = 5.0
    saturating = np.minimum(X, knee)
    assert c.plateau(X, saturating, knee).status == "reproduced"
    assert c.plateau(X, X, knee).status == "differs"


def test_monotone_both_ways() -> None:
    assert c.monotone(X, X).status == "reproduced"
    dip = X.copy()
    dip[4] = 0.0
    verdict = c.monotone(X, dip)
    assert verdict.status == "differs" and "not increasing" in verdict.measured
    assert c.monotone(X, -X, increasing=False).status == "reproduced"
    assert c.monotone(X, dip, tol=10).status == "reproduced"


def test_the_unused_within_spread_is_gone() -> None:
    assert not hasattr(c, "within_spread")  # no row judged one value against our seeds' spread


def test_curve_agreement_both_ways() -> None:
    assert c.curve_agreement([0.1, 0.2, 0.3], [0.11, 0.19, 0.31], abs_tol=0.02).status == \
        "reproduced"
    assert c.curve_agreement([0.1, 0.2, 0.3], [0.3, 0.4, 0.5], abs_tol=0.02).status == "differs"


def test_fitted_exponent_both_ways() -> None:
    n = np.array([100.0, 200, 400, 800, 1600])
    y = 3 * n ** 0.5 * np.exp(np.random.default_rng(3).normal(0, 0.01, n.size))
    assert c.fitted_exponent(n, y, 0.5).status == "reproduced"
    assert c.fitted_exponent(n, y, 1.0).status == "differs"
    assert c.fitted_exponent(n[:2], y[:2], 0.5).status == "trend"  # no interval from two points
    # an exact power law: an interval of width 0 whose rounding must not exclude the exponent
    exact = c.fitted_exponent([400, 900, 1600], [4, 6, 8], 0.5)
    assert exact.status == "reproduced", exact.measured
    assert c.fitted_exponent([400, 900, 1600], [4, 6, 8], 0.51).status == "differs"
    with pytest.raises(ValueError, match="positive"):
        c.fitted_exponent([1, 2, 3], [0, 1, 2], 0.5)


def test_bound_holds_reports_violations_and_looseness() -> None:
    upper = c.bound_holds([1, 2, 3], [2, 4, 3])
    assert upper.status == "reproduced" and upper.values["loosest"] == pytest.approx(2.0)
    assert c.bound_holds([1, 5, 3], [2, 4, 3]).status == "differs"
    lower = c.bound_holds([3, 4], [1, 2], kind="lower")
    assert lower.status == "reproduced" and lower.values["loosest"] == pytest.approx(3.0)
    assert c.bound_holds([1, 4], [2, 2], kind="lower").status == "differs"
    assert "where both are positive" not in upper.measured
    zero = c.bound_holds([0, 2, 4], [10, 4, 8])  # a zero capacity has no ratio: named
    assert zero.measured.endswith("looseness 2× to 2× (over the 2 points where both are positive)")
    assert c.bound_holds([0], [1]).measured.endswith("(no point where both are positive)")


def test_exact_check_and_reduced_scale() -> None:
    assert c.exact_check(True, "rank 41 = 41").status == "reproduced"
    assert c.exact_check(False, "rank 40 < 41").status == "differs"
    down = c.at_reduced_scale(c.exact_check(True, "ok"), "quick run")
    assert down.status == "trend" and "quick run" in down.measured
    assert c.at_reduced_scale(c.exact_check(False, "no"), "quick").status == "differs"


def test_verdict_rejects_unknown_status() -> None:
    with pytest.raises(ValueError, match="status must be one of"):
        c.Verdict("fine", "x")


def test_a_curve_that_saturates_after_the_knee_is_no_plateau():
    from memnb.scorecard import criteria

    x = [5, 7, 10, 12, 15]
    rising = [0.4, 0.7, 0.97, 0.99, 1.0]  # flattens where it reaches 1
    assert criteria.plateau(x, rising, knee=10).status == "reproduced"  # ratio 0.05
    saturated = criteria.plateau(x, rising, knee=10, ceiling=0.99)
    assert saturated.status == "not computable" and "saturated" in saturated.measured
    below = criteria.plateau(x, [0.3, 0.5, 0.8, 0.81, 0.82], knee=10, ceiling=0.99)
    assert below.status == "reproduced"


def test_across_seeds_is_the_one_rule_for_seeds() -> None:
    from memnb.scorecard.criteria import across_seeds

    assert across_seeds("reproduced", 5, 5) == "reproduced"  # seeds agree with the mean
    assert across_seeds("differs", 0, 5) == "differs"
    assert across_seeds("reproduced", 4, 5) == "trend"  # a mean that holds over a failing seed
    assert across_seeds("differs", 3, 5) == "trend"  # a mean failing on a seed that did not train
    assert across_seeds("differs", 1, 2) == "trend"  # a tie is not "most fail"
    assert across_seeds("differs", 2, 5) == "differs"  # most seeds fail as the mean does
    with pytest.raises(ValueError, match="seeds_holding"):
        across_seeds("trend", 6, 5)


def test_interval_side_places_an_interval_against_the_expected_value():
    """``interval_side``, the test ``fitted_exponent`` applies: inside (an exact fit's interval
    of width 0 included), wholly above, wholly below, or no finite interval."""
    from memnb.scorecard.criteria import interval_side

    assert interval_side(0.9, 1.1, 1.0) == "inside"
    assert interval_side(1.0 + 1e-12, 1.0 + 1e-12, 1.0) == "inside"
    assert interval_side(1.13, 2.3, 1.0) == "above"
    assert interval_side(0.2, 0.8, 1.0) == "below"
    assert interval_side(float("nan"), float("nan"), 1.0) is None


def test_cap_reason_is_the_whole_last_bracket():
    """The reason at_reduced_scale appends, nested brackets included; nothing without one."""
    capped = c.at_reduced_scale(
        c.Verdict("reproduced", "slope 0.5 [per seed]"), "the form is [unverified]")
    assert c.cap_reason(capped.measured) == " [the form is [unverified]]"
    assert c.cap_reason("slope 0.5") == ""
    assert c.cap_reason("a list [1, 2]x") == ""
    assert c.cap_reason("[no space before it]") == ""


def test_with_reason_appends_its_reason_whatever_the_status():
    """A reproduced verdict is capped at trend; a trend or a differs keeps its status, and
    every one says why (at_reduced_scale alone leaves those two unchanged)."""
    for status, expected in (("reproduced", "trend"), ("trend", "trend"),
                             ("differs", "differs")):
        verdict = c.Verdict(status, "measured", {"x": 1})
        tagged = c.with_reason(verdict, "why")
        assert (tagged.status, tagged.measured, tagged.values) == (expected, "measured [why]",
                                                                   {"x": 1})
    assert c.at_reduced_scale(c.Verdict("differs", "m", {}), "why").measured == "m"
