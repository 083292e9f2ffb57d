"""Criteria of the reproduction scorecard: each one turns measured numbers into a verdict.

A criterion is a pure function of numbers (never of prose). It returns a :class:`Verdict` whose
``status`` is one of :data:`STATUSES` and whose ``measured`` string states the numbers it used, so
that a scorecard row shows both the verdict and why. The statuses mean:

- ``reproduced``: the paper's claim holds in our measurement, within the stated tolerance;
- ``trend``: the claimed shape holds (direction, linearity, ordering) but the values do not match
  within tolerance, or only a reduced-size run was available;
- ``differs``: the claim does not hold in our measurement;
- ``not run``: no result of ours that can decide the claim exists yet: none at all, or only one
  that cannot decide it (a reduced run with too few points, a partial run that lacks the
  claim's points, a run at another setting than the paper's); the row says what exists and
  names the command that computes the run that decides it;
- ``not computable``: the statement has no checkable content at any size we can run (the row
  says why); a claim that a run we have not made yet would decide is ``not run``, not this.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from scipy import stats

Status = Literal["reproduced", "trend", "differs", "not run", "not computable"]
STATUSES: tuple[str, ...] = ("reproduced", "trend", "differs", "not run", "not computable")

#: A training loss (or MSE) counts as rising, against "more capacity fits better", only when it
#: grows by more than this fraction: relative, since losses span decades (Mahdavi et al. Fig. 5,
#: Kajitsuka & Sato Figs. 1/4 and the random data).
LOSS_RISE = 0.10


@dataclass(frozen=True)
class Verdict:
    """The outcome of one criterion: a status, the numbers behind it, and any extra values."""

    status: Status
    measured: str
    values: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}; got {self.status!r}")

    @property
    def holds(self) -> bool:
        """True when the status is ``reproduced``."""
        return self.status == "reproduced"


def _arrays(x: Sequence[float], y: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xs.shape != ys.shape or xs.ndim != 1:
        raise ValueError(f"x and y must be 1-D of equal length; got {xs.shape} and {ys.shape}")
    keep = np.isfinite(xs) & np.isfinite(ys)
    return xs[keep], ys[keep]


@dataclass(frozen=True)
class LinearFit:
    """Least-squares line y = slope·x + intercept with R² and a 95 % interval on the slope."""

    slope: float
    intercept: float
    r2: float
    slope_low: float
    slope_high: float
    n: int


def linear_fit(x: Sequence[float], y: Sequence[float], level: float = 0.95) -> LinearFit:
    """Ordinary least squares of ``y`` on ``x`` with a Student-t interval on the slope.

    With fewer than three points the interval is infinite (no residual degrees of freedom).
    """
    xs, ys = _arrays(x, y)
    if len(xs) < 2 or np.ptp(xs) == 0:
        raise ValueError("linear_fit needs at least two distinct x values")
    res = stats.linregress(xs, ys)
    dof = len(xs) - 2
    half = stats.t.ppf(0.5 + level / 2, dof) * res.stderr if dof > 0 else math.inf
    r2 = float(res.rvalue ** 2) if np.ptp(ys) > 0 else 1.0
    return LinearFit(float(res.slope), float(res.intercept), r2, float(res.slope - half),
                     float(res.slope + half), len(xs))


def linear_trend(x: Sequence[float], y: Sequence[float], *, min_r2: float = 0.9,
                 expected_slope: float | None = None, rel_tol: float = 0.15,
                 expected_name: str = "paper's slope") -> Verdict:
    """The claim "y grows linearly in x".

    ``trend`` when R² ≥ ``min_r2`` and the slope's 95 % interval lies above 0; ``reproduced`` when
    in addition ``expected_slope`` is None or the slope is within ``rel_tol`` of it; ``differs``
    otherwise. ``expected_name`` names the expected slope in the text (a slope the paper does not
    state is named as whose reading it is).
    """
    fit = linear_fit(x, y)
    measured = (f"slope {fit.slope:.4g} (95 % CI {fit.slope_low:.4g} to {fit.slope_high:.4g}), "
                f"R² = {fit.r2:.3f}, {fit.n} points")
    values = {"slope": fit.slope, "r2": fit.r2, "slope_low": fit.slope_low,
              "slope_high": fit.slope_high}
    if not (fit.r2 >= min_r2 and fit.slope_low > 0):
        return Verdict("differs", measured, values)
    if expected_slope is None:
        return Verdict("reproduced", measured, values)
    rel = (fit.slope - expected_slope) / abs(expected_slope)
    measured += f"; {expected_name} {expected_slope:.4g} ({rel:+.0%})"
    values["relative_difference"] = rel
    return Verdict("reproduced" if abs(rel) <= rel_tol else "trend", measured, values)


def plateau(x: Sequence[float], y: Sequence[float], knee: float, *,
            max_ratio: float = 0.25, ceiling: float | None = None) -> Verdict:
    """The claim "y grows up to ``knee`` and is flat after it".

    Fits a line on x ≤ knee and one on x ≥ knee; ``reproduced`` when the slope before is positive
    and |slope after| ≤ ``max_ratio`` × slope before; ``differs`` otherwise. With ``ceiling``
    (e.g. an accuracy of 1), a curve that reaches it after the knee is ``not computable``: it
    stops rising because nothing is left to learn, which a plateau test cannot tell apart.
    """
    xs, ys = _arrays(x, y)
    before, after = xs <= knee, xs >= knee
    if before.sum() < 2 or after.sum() < 2:
        raise ValueError(f"plateau needs at least two x values on each side of knee = {knee}")
    s_before = linear_fit(xs[before], ys[before]).slope
    s_after = linear_fit(xs[after], ys[after]).slope
    ratio = abs(s_after) / s_before if s_before > 0 else math.inf
    measured = (f"slope {s_before:.4g} on x ≤ {knee:g}, {s_after:.4g} on x ≥ {knee:g} "
                f"(ratio {ratio:.2f}; plateau if ≤ {max_ratio:g})")
    status: Status = "reproduced" if s_before > 0 and ratio <= max_ratio else "differs"
    if ceiling is not None and ys[after].max() >= ceiling:
        status = "not computable"
        measured += (f"; reaches {ys[after].max():.3f} ≥ {ceiling:g} after {knee:g}: saturated, "
                     "so flatness there says nothing about a plateau")
    return Verdict(status, measured, {"slope_before": s_before, "slope_after": s_after,
                                      "ratio": ratio})


def monotone(x: Sequence[float], y: Sequence[float], *, increasing: bool = True,
             tol: float = 0.0) -> Verdict:
    """The claim "y is monotone in x" (allowing steps against the direction of at most ``tol``)."""
    xs, ys = _arrays(x, y)
    order = np.argsort(xs, kind="stable")
    steps = np.diff(ys[order])
    against = -steps if increasing else steps
    worst = float(against.max()) if len(against) else 0.0
    word = "increasing" if increasing else "decreasing"
    if worst <= tol:
        return Verdict("reproduced", f"{word} over {len(xs)} points", {"worst_step": worst})
    i = int(np.argmax(against))
    xo = xs[order]
    return Verdict("differs", f"not {word}: from x = {xo[i]:g} to {xo[i + 1]:g} y goes "
                   f"{ys[order][i]:.4g} → {ys[order][i + 1]:.4g}", {"worst_step": worst})


def curve_agreement(ours: Sequence[float], paper: Sequence[float], *, abs_tol: float) -> Verdict:
    """Two curves on the same x grid: ``reproduced`` when the mean |difference| ≤ ``abs_tol``."""
    a, b = _arrays(ours, paper)
    if len(a) == 0:
        raise ValueError("curve_agreement needs at least one common point")
    mad = float(np.mean(np.abs(a - b)))
    worst = float(np.max(np.abs(a - b)))
    measured = (f"mean |ours − paper| = {mad:.3g} over {len(a)} points (max {worst:.3g}; "
                f"tolerance {abs_tol:g})")
    status: Status = "reproduced" if mad <= abs_tol else "differs"
    return Verdict(status, measured, {"mean_abs_difference": mad, "max_abs_difference": worst})


def fitted_exponent(x: Sequence[float], y: Sequence[float], expected: float, *,
                    level: float = 0.95) -> Verdict:
    """The claim "y ∝ x^expected": a least-squares fit of log y on log x.

    ``reproduced`` when ``expected`` lies in the exponent's interval; ``differs`` when it does not;
    with fewer than three points (no interval) or non-positive values the status is ``trend`` or
    the function raises, respectively.
    """
    xs, ys = _arrays(x, y)
    if (xs <= 0).any() or (ys <= 0).any():
        raise ValueError("fitted_exponent needs positive x and y (log-log fit)")
    fit = linear_fit(np.log(xs), np.log(ys), level)
    measured = (f"exponent {fit.slope:.3g} (95 % CI {fit.slope_low:.3g} to {fit.slope_high:.3g}), "
                f"expected {expected:g}, {fit.n} points")
    values = {"exponent": fit.slope, "low": fit.slope_low, "high": fit.slope_high}
    if not math.isfinite(fit.slope_low):
        return Verdict("trend", measured + " (too few points for an interval)", values)
    inside = interval_side(fit.slope_low, fit.slope_high, expected) == "inside"
    status: Status = "reproduced" if inside else "differs"
    return Verdict(status, measured, values)


def interval_side(low: float, high: float, expected: float
                  ) -> Literal["below", "inside", "above"] | None:
    """Where an interval ``[low, high]`` (e.g. :func:`fitted_exponent`'s) lies against
    ``expected``: ``"inside"`` when it contains it, ``"above"`` when it lies wholly above it,
    ``"below"`` wholly below; ``None`` without a finite interval. A slack of 1e-9 (relative to
    ``expected``, at least absolute) counts an exact power law, fitted with an interval of width
    0, as containing its exponent."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    slack = 1e-9 * max(1.0, abs(expected))
    if expected < low - slack:
        return "above"
    if expected > high + slack:
        return "below"
    return "inside"


def bound_holds(measured_values: Sequence[float], bound_values: Sequence[float], *,
                kind: Literal["upper", "lower"] = "upper", rtol: float = 1e-9) -> Verdict:
    """A bound against measurements: does it hold everywhere, and how loose is it?

    ``kind="upper"``: every measured value ≤ its bound (× (1 + rtol)); ``"lower"``: every measured
    value ≥ its bound. The looseness is the largest ratio bound/measured (upper) or
    measured/bound (lower) over the points where both are positive; the measured text says how
    many those are when a zero value leaves some out.
    """
    m, b = _arrays(measured_values, bound_values)
    if len(m) == 0:
        raise ValueError("bound_holds needs at least one point")
    if kind not in ("upper", "lower"):
        raise ValueError(f"kind must be 'upper' or 'lower'; got {kind!r}")
    with np.errstate(divide="ignore", invalid="ignore"):  # ratios are read only where both > 0
        if kind == "upper":
            ok = m <= b + rtol * np.abs(b)
            ratio = b / m
        else:
            ok = m >= b - rtol * np.abs(b)
            ratio = m / b
    positive = (m > 0) & (b > 0)
    loose = float(ratio[positive].max()) if positive.any() else math.nan
    tight = float(ratio[positive].min()) if positive.any() else math.nan
    violations = int((~ok).sum())
    measured = (f"{kind} bound holds at {int(ok.sum())}/{len(m)} points; looseness "
                f"{tight:.3g}× to {loose:.3g}×")
    if 0 < int(positive.sum()) < len(m):  # a zero measurement or bound has no ratio: say so
        measured += f" (over the {int(positive.sum())} points where both are positive)"
    elif not positive.any():
        measured += " (no point where both are positive)"
    status: Status = "reproduced" if violations == 0 else "differs"
    return Verdict(status, measured, {"violations": violations, "loosest": loose,
                                      "tightest": tight})


def exact_check(passed: bool, measured: str) -> Verdict:
    """An exact computation (a construction, a rank, an identity): reproduced iff it passed."""
    return Verdict("reproduced" if passed else "differs", measured)


#: What the scale cap (:func:`at_reduced_scale`) does, said where a criterion names it: it
#: turns a pass into trend and never lifts a failure.
FAILED_ANY_SCALE = "a failed criterion gives differs at any scale"


def at_reduced_scale(verdict: Verdict, reason: str) -> Verdict:
    """Downgrade ``reproduced`` to ``trend`` for the stated ``reason``, appended to the
    measured text.

    Used where the paper's claim is about values at its own scale and only a ``quick`` or ``ci``
    run was available (the shape can reproduce, the values cannot be compared), and where the
    check rests on a reading of the paper marked [unverified] (a counting convention, a block
    form): what is checked may not be what the paper states.
    """
    if verdict.status != "reproduced":
        return verdict
    return Verdict("trend", f"{verdict.measured} [{reason}]", verdict.values)


def with_reason(verdict: Verdict, reason: str) -> Verdict:
    """``verdict`` with ``reason`` appended to its measured text whatever its status, and a
    ``reproduced`` one capped at ``trend`` (:func:`at_reduced_scale`, which leaves any other
    status's text as it is): for a row that says why it is capped even when another rule
    capped it already, or when it differs."""
    capped = at_reduced_scale(verdict, reason)
    if capped is not verdict:
        return capped
    return Verdict(verdict.status, f"{verdict.measured} [{reason}]", verdict.values)


def cap_reason(measured: str) -> str:
    """The bracketed reason :func:`at_reduced_scale` appends to a measured text, as
    ``" [reason]"`` (brackets inside the reason, such as "[unverified]", included), or ``""``
    when the text ends with none."""
    if not measured.endswith("]"):
        return ""
    depth = 0
    for i in range(len(measured) - 1, -1, -1):
        depth += (measured[i] == "]") - (measured[i] == "[")
        if depth == 0:
            return measured[i - 1:] if i > 0 and measured[i - 1] == " " else ""
    return ""


def at_paper_scale(verdict: Verdict, profile: str, partial: str | None, *, reduced: str,
                   incomplete: str) -> Verdict:
    """``verdict`` as it stands when read from a complete ``full`` run; from a ``quick`` or
    ``ci`` run, or from a ``full`` run that has not computed its whole grid yet (``partial``: what
    it holds), a ``reproduced`` becomes a ``trend`` (:func:`at_reduced_scale`) whose reason is
    ``reduced`` or ``incomplete``. The one cap of the scorecard rows and the chapters' captions."""
    if profile != "full":
        return at_reduced_scale(verdict, reduced)
    return verdict if partial is None else at_reduced_scale(verdict, incomplete)


def across_seeds(mean_status: Status, seeds_holding: int, seeds: int) -> Status:
    """The one rule for a criterion read on the mean over seeds and on each seed too (ours).

    Seeds that all come out as the mean does leave the mean's status. Seeds that disagree make
    a held criterion ``trend`` (a mean can hold over a seed that fails), and a failed one
    ``trend`` too (a mean can fail on one seed that did not train), unless most seeds fail as
    well: then the failure stands, ``differs``.
    """
    if seeds < 1 or not 0 <= seeds_holding <= seeds:
        raise ValueError(f"seeds_holding must lie in [0, seeds] with seeds >= 1, got "
                         f"{seeds_holding} of {seeds}")
    if seeds_holding in (0, seeds) and (seeds_holding == seeds) == (mean_status != "differs"):
        return mean_status
    if mean_status != "differs":
        return "trend"
    return "differs" if 2 * seeds_holding < seeds else "trend"


def curvature(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray,
              level: float = 0.95) -> dict[str, float | str]:
    """A quadratic least-squares fit ``y = a + b x + c x²``: ``c`` with its Student-t interval
    (``low``, ``high``; infinite with fewer than four points: no residual degree of freedom) and
    ``shape``: ``convex`` (interval above 0), ``concave`` (below 0) or ``not decided``. The one
    rule of curvature for every paper's rows (Mahdavi et al.'s Fig. 2a,
    :func:`memnb.scorecard.dana.convex_growth` for Dana et al.'s Figs. 1b and 2a)."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    design = np.column_stack([np.ones_like(xs), xs, xs**2])
    coef, *_ = np.linalg.lstsq(design, ys, rcond=None)
    dof = len(xs) - 3
    c = float(coef[2])
    if dof <= 0:
        return {"c": c, "low": -np.inf, "high": np.inf, "shape": "not decided"}
    resid = ys - design @ coef
    cov = float(resid @ resid) / dof * np.linalg.inv(design.T @ design)
    half = float(stats.t.ppf(0.5 + level / 2, dof) * np.sqrt(max(cov[2, 2], 0.0)))
    # an exact line fits with a zero-width interval around round-off: not a curvature
    slack = 1e-9 * max(1.0, float(np.ptp(ys))) / max(1.0, float(np.ptp(xs))) ** 2
    shape = ("convex" if c - half > slack else "concave" if c + half < -slack
             else "not decided")
    return {"c": c, "low": c - half, "high": c + half, "shape": shape}
