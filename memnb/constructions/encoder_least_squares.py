"""The least-squares mappings of Dana et al.'s June 2024 talk slides, computed (not in the paper).

**From the slides** (Dana, *Memorization in Attention-only Transformers*, talk of June 13, 2024,
slide "Almost rank d"; the AISTATS 2025 camera-ready does not contain them). When ``L = log π``
(the ``[T, N]`` matrix of log-conditionals) is close to rank ``d``, two rank-``d`` sequence
encoders (Dana et al., Def. 1) are proposed:

* ``f_ls``, the least-squares fit ``argmin ||W_ls - L||_2``, with
  ``d_KL(π, f_ls) <= N ||π||_∞^2 σ_{d+1}^2 + (N ||π||_∞)^{3/2} σ_{d+1}^3``;
* ``f_wls``, the weighted fit ``argmin ||I_{√π} (W_wls - L)||_2``, with
  ``d_KL(π, f_wls) <= ||π||_∞ σ_{d+1}^2 + (||π||_∞ / ||π||_{-∞})^{3/2} σ_{d+1}^3``,

where ``σ_j`` is the ``j``-th singular value of ``L - E[L]``, ``||π||_∞`` the largest and
``||π||_{-∞}`` the smallest probability. The draft ``.tex`` of the same month states the
second-order forms ``E[log(1 + ||π||_∞/2 · C σ_{d+1}^2) + exp_3(√C σ_{d+1})]`` with ``C = 1 +
N ||π||_∞/√2`` (LS) and ``E[log(1 + ||π||_∞/2 · σ_{d+1}^2) + exp_3(√(||π||_∞/||π||_{-∞})
σ_{d+1})]`` (WLS), ``exp_3(x) = e^x - 1 - x - x^2/2``.

**[reconstruction] of the symbols** (the slides do not define them further): ``E[L]`` is each
row's plain mean (logits are defined up to a per-row shift, which the fits leave free);
``||π||_∞`` and ``||π||_{-∞}`` are the extreme conditional probabilities over all rows (slides) or
of each row inside the expectation (draft); ``I_{√π}`` weights entry ``(t, j)`` by
``sqrt(prior(t) π(j|t))``. ``f_ls`` is the rank-``d`` truncated SVD of the centred ``L``
(Eckart-Young); ``f_wls`` has no closed form with entry-wise weights and is computed by
alternating weighted least squares (each row's encoding and shift, then each token's
unembedding), started from ``f_ls``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import softmax

from memnb.lookup_tables import expected_kl
from memnb.validation import check_int


def _check(conditionals: ArrayLike, d: int) -> tuple[np.ndarray, int]:
    p = np.asarray(conditionals, dtype=float)
    if p.ndim != 2 or p.shape[1] < 2 or not np.allclose(p.sum(axis=1), 1.0):
        raise ValueError("conditionals must be a [T, N] array of probability rows, N >= 2")
    if np.any(p <= 0):
        raise ValueError("conditionals must have full support (log π is used)")
    return p, check_int("d", d, 1, min(p.shape) - 1)


def centred_log(conditionals: ArrayLike) -> np.ndarray:
    """``L - E[L]``: ``log π`` with each row's mean removed."""
    log_p = np.log(np.asarray(conditionals, dtype=float))
    return log_p - log_p.mean(axis=1, keepdims=True)


def least_squares_logits(conditionals: ArrayLike, d: int) -> np.ndarray:
    """``f_ls``: the best rank-``d`` approximation of the centred ``log π`` in the spectral (and
    Frobenius) norm (Dana's June 2024 talk slides, not the AISTATS 2025 paper; Eckart-Young)."""
    p, d = _check(conditionals, d)
    u, s, vt = np.linalg.svd(centred_log(p), full_matrices=False)
    return (u[:, :d] * s[:d]) @ vt[:d]


def weighted_least_squares_logits(conditionals: ArrayLike, d: int,
                                  prior: ArrayLike | None = None, *,
                                  iterations: int = 200) -> np.ndarray:
    """``f_wls``: rank-``d`` logits minimising ``Σ_t prior(t) Σ_j π(j|t) (f_tj - L_tj - c_t)^2``
    over the encoder and the per-row shifts ``c_t`` (the weighted least squares of Dana's June
    2024 talk slides, [reconstruction]), by alternating weighted least squares from ``f_ls``.
    Monotone in the weighted error (each step is an exact minimisation)."""
    p, d = _check(conditionals, d)
    t, n = p.shape
    w_row = np.full(t, 1.0 / t) if prior is None else np.asarray(prior, dtype=float)
    if w_row.shape != (t,) or np.any(w_row < 0) or not np.isclose(w_row.sum(), 1.0):
        raise ValueError(f"prior must be a probability vector of length T={t}")
    L = np.log(p)
    u, s, vt = np.linalg.svd(centred_log(p), full_matrices=False)
    V = vt[:d].T * np.sqrt(s[:d])  # [N, d]
    weights = w_row[:, None] * p  # [T, N]
    for _ in range(check_int("iterations", iterations, 1)):
        # rows: (E_t, c_t) = argmin Σ_j π_tj ([V 1] x - L_tj)^2
        X = np.concatenate([V, np.ones((n, 1))], axis=1)  # [N, d+1]
        A = np.einsum("tn,ni,nj->tij", p, X, X) + 1e-12 * np.eye(d + 1)
        b = np.einsum("tn,ni,tn->ti", p, X, L)
        sol = np.linalg.solve(A, b[..., None])[..., 0]
        E, c = sol[:, :d], sol[:, d]
        # columns: V_j = argmin Σ_t w_t π_tj (E_t · V_j - (L_tj - c_t))^2
        A = np.einsum("tn,ti,tj->nij", weights, E, E) + 1e-12 * np.eye(d)
        b = np.einsum("tn,ti,tn->ni", weights, E, L - c[:, None])
        V = np.linalg.solve(A, b[..., None])[..., 0]
    return E @ V.T


def _exp3(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.expm1(x) - x - x**2 / 2


def slide_bounds(conditionals: ArrayLike, d: int,
                 prior: ArrayLike | None = None) -> dict[str, float]:
    """The bounds on ``d_KL(π, f_ls)`` and ``d_KL(π, f_wls)`` of Dana's June 2024 talk slides
    and Dana et al.'s draft of that month (not in the AISTATS 2025 paper; symbols
    [reconstruction]).

    Keys: ``sigma`` (``σ_{d+1}`` of the centred ``log π``), ``ls_slides``, ``wls_slides``,
    ``ls_draft``, ``wls_draft`` (see the module docstring for the symbols).
    """
    p, d = _check(conditionals, d)
    t, n = p.shape
    w = np.full(t, 1.0 / t) if prior is None else np.asarray(prior, dtype=float)
    sigma = float(np.linalg.svd(centred_log(p), compute_uv=False)[d])
    pmax, pmin = float(p.max()), float(p.min())
    row_max, row_min = p.max(axis=1), p.min(axis=1)
    c_ls = 1.0 + n * row_max / math.sqrt(2.0)
    ls_draft = float(w @ (np.log1p(row_max / 2 * c_ls * sigma**2) + _exp3(np.sqrt(c_ls) * sigma)))
    wls_draft = float(w @ (np.log1p(row_max / 2 * sigma**2)
                           + _exp3(np.sqrt(row_max / row_min) * sigma)))
    return {
        "sigma": sigma,
        "ls_slides": n * pmax**2 * sigma**2 + (n * pmax) ** 1.5 * sigma**3,
        "wls_slides": pmax * sigma**2 + (pmax / pmin) ** 1.5 * sigma**3,
        "ls_draft": ls_draft, "wls_draft": wls_draft,
    }


def near_rank_d_conditionals(T: int, N: int, d: int, noise: float, *, scale: float = 1.0,
                             seed: int = 0) -> np.ndarray:
    """``π_t = softmax(scale · a_t B^T / sqrt(d) + noise · G_t)``: log-conditionals of rank ``d``
    plus Gaussian noise (``σ_{d+1}`` grows with ``noise``); ours, a test family for the
    slides' bounds."""
    T, N, d = check_int("T", T, 2), check_int("N", N, 2), check_int("d", d, 1)
    for name, v in (("noise", noise), ("scale", scale)):
        if not (isinstance(v, numbers.Real) and math.isfinite(v) and v >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    rng = np.random.default_rng(seed)
    low = rng.standard_normal((T, d)) @ rng.standard_normal((N, d)).T / math.sqrt(d)
    return softmax(scale * low + noise * rng.standard_normal((T, N)), axis=1)


def least_squares_table(noises: tuple[float, ...] = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0), *,
                        T: int = 60, N: int = 12, d: int = 3, scale: float = 1.0,
                        seed: int = 0) -> pd.DataFrame:
    """For each noise level: ``σ_{d+1}``, the KL reached by ``f_ls`` and ``f_wls`` (exact), and
    the slides' and draft's bounds on each; ``*_holds`` columns compare them."""
    rows = []
    for noise in noises:
        p = near_rank_d_conditionals(T, N, d, noise, scale=scale, seed=seed)
        kl_ls = expected_kl(p, least_squares_logits(p, d))
        kl_wls = expected_kl(p, weighted_least_squares_logits(p, d))
        b = slide_bounds(p, d)
        rows.append({"noise": noise, "T": T, "N": N, "d": d, **b, "kl_ls": kl_ls,
                     "kl_wls": kl_wls,
                     "ls_slides_holds": kl_ls <= b["ls_slides"],
                     "wls_slides_holds": kl_wls <= b["wls_slides"],
                     "ls_draft_holds": kl_ls <= b["ls_draft"],
                     "wls_draft_holds": kl_wls <= b["wls_draft"]})
    return pd.DataFrame(rows)
