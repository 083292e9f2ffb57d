"""Rank-d sequence encoders ("look-up tables") of Dana, Pydi & Chevaleyre (AISTATS 2025).

A sequence encoder ``f_{W,E}(t) = W E(t)`` with ``E: [N]^S -> R^d`` and ``W ∈ R^{N×d}``
(Def. 1; the paper writes ``W ∈ R^{d,N}`` for its transpose) is a look-up table whose logit
matrix has rank at most ``d``. By Prop. 1, no Transformer of embedding dimension ``d`` beats the
best such encoder, so this module computes, in closed form or numerically:

* Prop. 2: ``d_KL(π, L) > 0`` for some ``π`` when ``d < N - 1``
  (:func:`centered_log_rank`, :func:`fit_rank_d_encoder`, :func:`bottleneck_table`);
* Prop. 3: with deterministic targets, ``d = 2`` suffices: circle points and ``E(t) = λ
  w_{g(t)}`` give a KL that decreases to 0 as ``λ`` grows (:func:`circle_encoder_kl`);
* the associative memory of Bietti et al. (2023), ``W = Σ_i w_U(g(i)) w_E(i)^T`` with fixed
  random ``W_E, W_U`` (:func:`bietti_memory_accuracy`, :func:`bietti_memory_table`);
* Thm 2: the Johnson-Lindenstrauss look-up table ``E(t) = λ(t) W_{g(t)}``, the KL it reaches and
  the right-hand side of the theorem (:func:`lookup_table_kl`, :func:`thm2_bound`,
  :func:`thm2_table`).

Conventions: ``conditionals`` is a ``[T, N]`` array whose row ``t`` is ``π(· | t)``; ``prior``
is a ``[T]`` probability vector over the sequences (uniform by default); logits are ``[T, N]``.
Entropies are Shannon entropies ``h = -Σ π log π >= 0``. The paper's Thm 2 writes
``H(π) = Σ π log π`` (the *negative* entropy: "H = -log N" is its uniform case), so its
``e^{-H(π_t)}`` is ``e^{h_t}`` here.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.optimize import brentq, minimize
from scipy.special import softmax

from memnb.bounds import dana_jl_constant, dana_jl_threshold
from memnb.constructions.associative_memory import _draw_memory
from memnb.validation import check_int

# ----------------------------------------------------------------------------- validation


def _int(name: str, value: object, low: int = 1) -> int:
    """:func:`memnb.validation.check_int` with ``low = 1`` by default (sizes and counts)."""
    return check_int(name, value, low)


def _conditionals(conditionals: ArrayLike) -> np.ndarray:
    p = np.asarray(conditionals, dtype=float)
    if p.ndim != 2 or p.shape[0] < 1 or p.shape[1] < 2:
        raise ValueError(f"conditionals must be a [T, N] array with N >= 2, got shape {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or not np.allclose(p.sum(axis=1), 1.0):
        raise ValueError("conditionals must have non-negative rows summing to 1")
    return p


def _prior(prior: ArrayLike | None, t: int) -> np.ndarray:
    if prior is None:
        return np.full(t, 1.0 / t)
    w = np.asarray(prior, dtype=float)
    if w.shape != (t,) or np.any(w < 0) or not np.isclose(w.sum(), 1.0):
        raise ValueError(f"prior must be a probability vector of length T={t}")
    return w


def logsumexp(z: np.ndarray, axis: int = -1, keepdims: bool = False) -> np.ndarray:
    """Stable ``log Σ exp`` along ``axis`` (plain numpy: faster than scipy on small arrays)."""
    z = np.asarray(z, dtype=float)
    m = np.max(z, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _entropy(p: np.ndarray) -> np.ndarray:
    """Shannon entropy of each row (``0 log 0 = 0``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p), 0.0)
    return -terms.sum(axis=-1)


def expected_kl(conditionals: ArrayLike, logits: ArrayLike,
                prior: ArrayLike | None = None) -> float:
    """``d_KL(π, f) = E_{t∼prior}[ KL(π_t ‖ softmax(f(t))) ]``: the loss of Dana et al. §2."""
    p = _conditionals(conditionals)
    z = np.asarray(logits, dtype=float)
    if z.shape != p.shape:
        raise ValueError(f"logits must have the shape of conditionals {p.shape}, got {z.shape}")
    w = _prior(prior, p.shape[0])
    log_q = z - logsumexp(z, axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * (np.log(p) - log_q), 0.0)
    return float(w @ terms.sum(axis=1))


# ------------------------------------------------------------------- Props 2-3: the bottleneck


def circle_points(N: int) -> np.ndarray:
    """``w_i = (cos 2πi/N, sin 2πi/N)``, ``i = 0..N-1``, ``[N, 2]`` (Dana et al., Prop. 3 proof)."""
    angles = 2.0 * np.pi * np.arange(_int("N", N)) / N
    return np.stack([np.cos(angles), np.sin(angles)], axis=1)


def circle_encoder_kl(N: int, lam: ArrayLike) -> float | np.ndarray:
    """Exact KL of the circle encoder ``f_λ(t) = λ W w_{g(t)}`` on deterministic targets.

    Dana et al. (AISTATS 2025), Prop. 3: under Assumption 1 (every ``π_t`` is a point mass at
    ``g(t)``), ``d_KL(π, f_λ) = log(1 + Σ_{j≠g} exp(-λ (1 - cos(2π(j-g)/N))))``, which does not
    depend on ``g`` or on the prior and decreases to 0 as ``λ -> ∞``; so ``d = 2`` suffices.
    Accepts a scalar or an array of ``λ >= 0``.
    """
    N = _int("N", N, 2)
    lam_arr = np.asarray(lam, dtype=float)
    if not np.all(np.isfinite(lam_arr)) or np.any(lam_arr < 0):
        raise ValueError(f"lam must be finite and >= 0, got {lam!r}")
    gaps = 1.0 - np.cos(2.0 * np.pi * np.arange(1, N) / N)  # j - g = 1..N-1
    out = np.log1p(np.exp(-lam_arr[..., None] * gaps).sum(axis=-1))
    return float(out) if out.ndim == 0 else out


def centered_log_rank(conditionals: ArrayLike, tol: float = 1e-9) -> int:
    """Rank of ``log π`` with each row centred; ``d_KL(π, L(N,S,d)) = 0`` iff it is ``<= d``.

    Under Assumption 2 (full support), ``softmax(f(t)) = π_t`` for all ``t`` iff ``f = log π +
    c 1^T`` for some per-row shift ``c``, and the smallest rank over ``c`` is that of the centred
    matrix. With ``d >= N - 1`` it is always reached (Dana et al., Prop. 2, first part); a
    rank above ``d`` makes the infimum (attained, Lemma 1) positive (Prop. 2, second part).
    """
    p = _conditionals(conditionals)
    if np.any(p <= 0):
        raise ValueError("conditionals must have full support (Assumption 2) for this rank")
    log_p = np.log(p)
    centred = log_p - log_p.mean(axis=1, keepdims=True)
    s = np.linalg.svd(centred, compute_uv=False)
    return int(np.sum(s > tol * max(1.0, s[0])))


def peaked_conditionals(N: int, beta: float) -> np.ndarray:
    """``π_t = softmax(β e_t)`` for ``t = 1..N``: full support, centred log-rank ``N - 1``.

    An explicit ``π`` for the second part of Dana et al. Prop. 2: its centred ``log π`` is
    ``β (I - 11^T/N)`` of rank ``N - 1``, so every rank-``d`` encoder with ``d < N - 1`` has a
    positive KL; as ``β -> ∞`` it approaches the deterministic case of Prop. 3.
    """
    N = _int("N", N, 2)
    if not (isinstance(beta, numbers.Real) and math.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be a positive finite number, got {beta!r}")
    return softmax(beta * np.eye(N), axis=1)


@dataclass(frozen=True)
class RankFit:
    """Best rank-``d`` sequence encoder found numerically (an upper bound on ``d_KL(π, L)``).

    ``logits = E @ W.T`` with ``E`` ``[T, d]`` (the encodings) and ``W`` ``[N, d]``.
    """

    d: int
    kl: float
    kl_truncated_svd: float
    E: np.ndarray
    W: np.ndarray


def _truncated_svd_logits(conditionals: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    log_p = np.log(np.clip(conditionals, 1e-300, None))
    centred = log_p - log_p.mean(axis=1, keepdims=True)
    u, s, vt = np.linalg.svd(centred, full_matrices=False)
    k = min(d, len(s))
    e = u[:, :k] * np.sqrt(s[:k])
    w = vt[:k].T * np.sqrt(s[:k])
    if k < d:
        e = np.pad(e, ((0, 0), (0, d - k)))
        w = np.pad(w, ((0, 0), (0, d - k)))
    return e, w


def fit_rank_d_encoder(
    conditionals: ArrayLike,
    d: int,
    *,
    prior: ArrayLike | None = None,
    restarts: int = 3,
    seed: int = 0,
    maxiter: int = 2000,
) -> RankFit:
    """Minimise ``d_KL(π, f_{W,E})`` over rank-``d`` encoders (Dana et al., Def. 1 / Prop. 2).

    L-BFGS on ``(E, W)`` from the truncated SVD of the centred ``log π`` (the least-squares
    rank-``d`` fit) and from ``restarts`` random starts; the best KL found is an upper bound on
    the infimum ``d_KL(π, L(N,S,d))``. Its positivity for ``d < N - 1`` is certified by
    :func:`centered_log_rank`, not by the optimiser.
    """
    p = _conditionals(conditionals)
    d = _int("d", d)
    restarts = _int("restarts", restarts, 0)
    w_prior = _prior(prior, p.shape[0])
    t, n = p.shape
    rng = np.random.default_rng(seed)

    def loss_grad(theta: np.ndarray) -> tuple[float, np.ndarray]:
        e = theta[: t * d].reshape(t, d)
        w = theta[t * d:].reshape(n, d)
        z = e @ w.T
        log_q = z - logsumexp(z, axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(p > 0, p * (np.log(p) - log_q), 0.0)
        loss = float(w_prior @ terms.sum(axis=1))
        g_z = w_prior[:, None] * (np.exp(log_q) - p)
        return loss, np.concatenate([(g_z @ w).ravel(), (g_z.T @ e).ravel()])

    e0, w0 = _truncated_svd_logits(p, d)
    kl_svd = expected_kl(p, e0 @ w0.T, w_prior)
    starts = [np.concatenate([e0.ravel(), w0.ravel()])]
    scale = max(1.0, float(np.abs(e0).max()))
    starts += [rng.standard_normal(t * d + n * d) * scale for _ in range(restarts)]
    best_kl, best_theta = kl_svd, starts[0]
    for theta0 in starts:
        res = minimize(loss_grad, theta0, jac=True, method="L-BFGS-B",
                       options={"maxiter": maxiter, "gtol": 1e-10, "ftol": 1e-14})
        if res.fun < best_kl:
            best_kl, best_theta = float(res.fun), res.x
    return RankFit(d=d, kl=best_kl, kl_truncated_svd=kl_svd,
                   E=best_theta[: t * d].reshape(t, d), W=best_theta[t * d:].reshape(n, d))


def bottleneck_table(
    conditionals: ArrayLike,
    ds: ArrayLike,
    *,
    prior: ArrayLike | None = None,
    restarts: int = 3,
    seed: int = 0,
) -> pd.DataFrame:
    """Prop. 2 of Dana et al. as a table: for each ``d``, the best rank-``d`` KL found.

    Columns: ``d``, ``centered_rank`` (of ``log π``), ``kl_truncated_svd`` (least-squares fit of
    ``log π``), ``kl_fit`` (numerical optimum, an upper bound on ``d_KL(π, L)``) and
    ``kl_positive`` (``centered_rank > d``: the infimum is provably positive).
    """
    p = _conditionals(conditionals)
    rank = centered_log_rank(p)
    rows = []
    for d in np.asarray(ds).ravel():
        fit = fit_rank_d_encoder(p, int(d), prior=prior, restarts=restarts, seed=seed)
        rows.append({"d": int(d), "centered_rank": rank, "kl_truncated_svd": fit.kl_truncated_svd,
                     "kl_fit": fit.kl, "kl_positive": rank > int(d)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------ Bietti et al. associative memory


def bietti_memory_accuracy(N: int, d: int, *, num_associations: int | None = None,
                           seed: int = 0) -> float:
    """Accuracy of the associative memory ``W = Σ_i w_U(g(i)) w_E(i)^T`` (Bietti et al. 2023).

    As quoted by Dana et al. ([V] §6; the H = 0 case of their bound): fixed random
    ``W_E, W_U ∈ R^{N×d}`` with i.i.d. ``N(0, 1/d)`` entries (rows of norm ≈ 1), a random map
    ``g: [N] -> [N]``, and the prediction ``argmax_k w_U(k)^T W w_E(i)``. The first
    ``num_associations`` inputs (default ``N``) are stored; the accuracy is measured on them.
    [unverified] Bietti et al.'s own text and normalisation were not checked verbatim.
    """
    N, d = _int("N", N), _int("d", d)
    m = N if num_associations is None else _int("num_associations", num_associations)
    if m > N:
        raise ValueError(f"num_associations must be in 1..N={N}, got {m}")
    w_e, w_u, g = _draw_memory(N, d, m, seed)
    memory = w_u[g].T @ w_e[:m]  # Σ_i w_U(g(i)) w_E(i)^T, [d, d]
    logits = w_e[:m] @ memory.T @ w_u.T  # [m, N]
    return float(np.mean(logits.argmax(axis=1) == g))


def bietti_memory_table(N: int, ds: ArrayLike, *, seeds: int = 5,
                        num_associations: int | None = None) -> pd.DataFrame:
    """Accuracy of the Bietti et al. memory against ``d`` (tidy rows: d, seed, accuracy, stored).

    ``stored = accuracy × num_associations`` is the number of associations recalled.
    """
    seeds = _int("seeds", seeds)
    m = N if num_associations is None else num_associations
    rows = []
    for d in np.asarray(ds).ravel():
        for s in range(seeds):
            acc = bietti_memory_accuracy(N, int(d), num_associations=num_associations, seed=s)
            rows.append({"d": int(d), "seed": s, "accuracy": acc, "stored": acc * m})
    return pd.DataFrame(rows)


# ----------------------------------------------------------- Thm 2: the JL look-up table bound


def jl_unembedding(N: int, d: int, *, seed: int = 0) -> np.ndarray:
    """Random Gaussian rows normalised to unit norm, ``[N, d]``: the ``W_j`` of Thm 2.

    Their Gram matrix has unit diagonal and off-diagonal entries of order ``sqrt(log N / d)``;
    Thm 2 of Dana et al. uses the JL guarantee ``||G - I||_∞ <= sqrt(32 log(N+1)/d)``.
    """
    rows = np.random.default_rng(seed).standard_normal((_int("N", N), _int("d", d)))
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def coherence(W: ArrayLike) -> float:
    """``||W W^T - I||_∞`` (largest entry in absolute value) of the rows of ``W`` ``[N, d]``."""
    w = np.asarray(W, dtype=float)
    if w.ndim != 2:
        raise ValueError(f"W must be a [N, d] array, got shape {w.shape}")
    return float(np.abs(w @ w.T - np.eye(w.shape[0])).max())


def low_entropy_conditionals(num_sequences: int, N: int, eps: float, *,
                             seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Conditionals with mass ``1 - eps`` on a random token ``g(t)``, ``eps`` spread by Dirichlet.

    A test family for Thm 2 of Dana et al. (low entropy when ``eps`` is small); the ``eps`` mass
    is split over the other tokens by a flat Dirichlet draw. Returns
    ``(conditionals [T, N], g [T])``; ``g(t)`` is the mode when ``eps <= 1/2``.
    """
    t, N = _int("num_sequences", num_sequences), _int("N", N, 2)
    if not (isinstance(eps, numbers.Real) and 0 < eps < 1):
        raise ValueError(f"eps must be in (0, 1), got {eps!r}")
    rng = np.random.default_rng(seed)
    g = rng.integers(0, N, t)
    rest = rng.dirichlet(np.ones(N - 1), size=t) * eps
    p = np.empty((t, N))
    for i in range(t):
        p[i] = np.insert(rest[i], g[i], 1.0 - eps)
    return p, g


def _solve_lambda(h: float, gaps: np.ndarray) -> float:
    """λ >= 0 with ``log Σ_j exp(-λ gap_j) = h`` (``gaps`` excludes ``g``; all positive)."""
    n = len(gaps) + 1
    if h >= math.log(n) - 1e-13:
        return 0.0
    if h <= 0:
        return math.inf

    def phi(lam: float) -> float:
        return float(np.log1p(np.exp(-lam * gaps).sum())) - h

    hi = 1.0
    while phi(hi) > 0:
        hi *= 2.0
        if hi > 1e12:
            return math.inf
    return brentq(phi, 0.0, hi, xtol=1e-14, rtol=1e-13, maxiter=500)


def lookup_table_kl(
    conditionals: ArrayLike,
    W: ArrayLike,
    g: ArrayLike | None = None,
    prior: ArrayLike | None = None,
) -> pd.DataFrame:
    """Per-sequence quantities of the look-up table ``E(t) = λ(t) W_{g(t)}`` of Thm 2.

    Dana et al. (AISTATS 2025), Thm 2: ``λ(t)`` solves ``-H(π_t) = log Σ_j exp(λ (W_j -
    W_g)^T W_g)``, i.e. the model gives ``g(t)`` probability ``e^{-h_t}`` (``h_t`` the Shannon
    entropy; see the module's sign note). Solved with ``scipy.optimize.brentq``. ``g``
    defaults to the mode of ``π_t``; ``W`` is ``[N, d]`` with rows ``W_j``.

    Columns: ``entropy``, ``pi_g``, ``d_tv`` (``d_TV(π̃_t, π_unif)``), ``lam``, ``kl`` (the KL
    reached, exactly) and ``prior``.
    """
    p = _conditionals(conditionals)
    t, n = p.shape
    w = np.asarray(W, dtype=float)
    if w.ndim != 2 or w.shape[0] != n:
        raise ValueError(f"W must be a [N={n}, d] array, got shape {w.shape}")
    gram = w @ w.T
    if np.any(np.abs(np.diag(gram)) == 0):
        raise ValueError("W must have non-zero rows")
    gg = p.argmax(axis=1) if g is None else np.asarray(g, dtype=int)
    if gg.shape != (t,) or np.any(gg < 0) or np.any(gg >= n):
        raise ValueError(f"g must be a length-T={t} array of tokens in [0, N={n})")
    weights = _prior(prior, t)
    h = _entropy(p)
    rows = []
    for i in range(t):
        gi = int(gg[i])
        coef = gram[:, gi] - gram[gi, gi]  # (W_j - W_g)^T W_g
        others = np.delete(np.arange(n), gi)
        if np.any(coef[others] >= 0):
            raise ValueError("W must satisfy W_j·W_g < |W_g|^2 for j != g (distinct unit rows)")
        lam = _solve_lambda(float(h[i]), -coef[others])
        pi = p[i]
        pi_g = float(pi[gi])
        tilde = np.delete(pi, gi) / (1.0 - pi_g) if pi_g < 1 else np.full(n - 1, 1.0 / (n - 1))
        d_tv = 0.5 * float(np.abs(tilde - 1.0 / (n - 1)).sum())
        if math.isinf(lam):
            kl = 0.0 if pi_g == 1.0 else math.inf
        else:
            z = lam * gram[:, gi]
            log_q = z - logsumexp(z)
            kl = float(np.sum(np.where(pi > 0, pi * (np.log(np.where(pi > 0, pi, 1.0)) - log_q),
                                       0.0)))
        rows.append({"entropy": float(h[i]), "pi_g": pi_g, "d_tv": d_tv, "lam": lam, "kl": kl,
                     "prior": float(weights[i])})
    return pd.DataFrame(rows)


def thm2_bound(
    conditionals: ArrayLike,
    C: float,
    g: ArrayLike | None = None,
    prior: ArrayLike | None = None,
    *,
    form: str = "full",
) -> float:
    """Right-hand side of Thm 2 of Dana et al. (AISTATS 2025); ``inf`` when ``C >= 1/2``.

    ``form="full"``:
        ``E_t[(1 - π(g|t)) (1 + 2C + C d_TV(π̃_t, π_unif)) / (1 - 2C) · log((N-1)/(e^{h_t} - 1))]``
    ``form="simplified"``:
        ``E_t[1 - π(g|t)] · log((N-1)/(e^{E_t h_t} - 1)) · (1 + 4C)/(1 - 2C)``

    with ``h_t`` the Shannon entropy (the paper's ``-H(π_t)``), ``π_unif = 1/(N-1)`` and ``π̃_t``
    the conditional renormalised off ``g(t)``. A term with ``π(g|t) = 1`` counts 0. For a drawn
    ``W`` with unit rows and coherence ``c = max_{i≠j} |W_i·W_j| <= C``, the full form bounds
    the KL of :func:`lookup_table_kl` (that KL is at most ``(1 - π_g)(1+c)/(1-c) log(...)``).
    With orthonormal rows (``c = 0``) that KL equals the full form with ``C = 0``. The
    simplified form moves the expectation inside the convex ``log((N-1)/(e^h - 1))`` (Jensen
    goes the other way), so it need not dominate the full form, nor the KL of the look-up
    table, when entropies vary: e.g. ``N = 200``, ``W = I``, two sequences with
    ``π(g|t) = 1/2`` and the other half on one token, resp. spread uniformly, reach KL 1.82
    while the simplified form with ``C = 0`` gives 1.71.
    """
    if not (isinstance(C, numbers.Real) and C >= 0):
        raise ValueError(f"C must be a real number >= 0, got {C!r}")
    if form not in ("full", "simplified"):
        raise ValueError(f"form must be 'full' or 'simplified', got {form!r}")
    p = _conditionals(conditionals)
    t, n = p.shape
    if C >= 0.5:
        return math.inf
    gg = p.argmax(axis=1) if g is None else np.asarray(g, dtype=int)
    if gg.shape != (t,) or np.any(gg < 0) or np.any(gg >= n):
        raise ValueError(f"g must be a length-T={t} array of tokens in [0, N={n})")
    w = _prior(prior, t)
    h = _entropy(p)
    pi_g = p[np.arange(t), gg]
    miss = 1.0 - pi_g

    def log_term(ent: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log((n - 1) / np.expm1(ent))

    if form == "simplified":
        mean_miss = float(w @ miss)
        if mean_miss == 0:
            return 0.0
        return mean_miss * float(log_term(np.asarray(w @ h))) * (1 + 4 * C) / (1 - 2 * C)
    off = np.delete(p, gg + np.arange(t) * n).reshape(t, n - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tilde = np.where(miss[:, None] > 0, off / miss[:, None], 1.0 / (n - 1))
    d_tv = 0.5 * np.abs(tilde - 1.0 / (n - 1)).sum(axis=1)
    factor = (1 + 2 * C + C * d_tv) / (1 - 2 * C)
    with np.errstate(invalid="ignore"):
        terms = np.where(miss > 0, miss * factor * log_term(h), 0.0)
    return float(w @ terms)


def thm2_table(
    N: int,
    ds: ArrayLike,
    *,
    num_sequences: int = 200,
    eps: float = 0.1,
    seed: int = 0,
) -> pd.DataFrame:
    """Thm 2 of Dana et al. against ``d``: the KL reached by the JL look-up table and the bound.

    For each ``d``: draw ``W = jl_unembedding(N, d)`` and the conditionals of
    :func:`low_entropy_conditionals` (the same for every ``d``), solve ``λ(t)`` and report
    ``achieved_kl`` (exact), ``bound_full`` and ``bound_simplified`` with the theorem's
    ``C = sqrt(32 log(N+1)/d)`` (``inf`` when ``C >= 1/2``), ``bound_full_empirical_c`` with
    ``C`` = the coherence of the drawn ``W``, ``c_jl``, ``c_empirical``, the threshold
    ``128 ln(N+1)`` and ``vacuous`` (``d <= 128 ln(N+1)``). With ``d >= N - 1`` the best
    rank-``d`` encoder has KL 0 (Prop. 2); the bound is about this particular look-up table.
    """
    p, g = low_entropy_conditionals(num_sequences, N, eps, seed=seed)
    threshold = dana_jl_threshold(N)
    rows = []
    for d in np.asarray(ds).ravel():
        d = int(d)
        w = jl_unembedding(N, d, seed=seed + d)
        per_t = lookup_table_kl(p, w, g)
        achieved = float(per_t["prior"] @ per_t["kl"])
        c_jl = dana_jl_constant(N, d)
        c_emp = coherence(w)
        rows.append({
            "d": d, "N": N, "eps": eps, "c_jl": c_jl, "c_empirical": c_emp,
            "achieved_kl": achieved,
            "bound_full": thm2_bound(p, c_jl, g),
            "bound_simplified": thm2_bound(p, c_jl, g, form="simplified"),
            "bound_full_empirical_c": thm2_bound(p, c_emp, g),
            "threshold": threshold, "vacuous": d <= threshold,
        })
    return pd.DataFrame(rows)
