"""Thm 2 of Dana, Pydi & Chevaleyre (AISTATS 2025) where it says something: ``N >= 869``.

**Statement (paper, §6).** With ``W ∈ R^{d×N}`` whose Gram matrix is ``C``-close to the identity,
``C = sqrt(32 log(N+1)/d)`` (Johnson-Lindenstrauss), and the look-up table ``E(t) = λ(t) W_{g(t)}``
with ``λ(t)`` solving ``-H(π_t) = log Σ_j exp(λ (W_j - W_g)^T W_g)``,

    d_KL(π, L(N,S,d)) <= E_t[(1 - π(g|t)) (1 + 2C + C d_TV(π̃_t, π_unif))/(1 - 2C)
                             · log((N-1)/(e^{-H(π_t)} - 1))].

The bound is finite only when ``C < 1/2``, i.e. ``d > 128 ln(N+1)``, and says nothing new when
``d >= N - 1`` (Prop. 2 gives ``d_KL(π, L) = 0`` there). Both hold only for
``128 ln(N+1) < d < N - 1``: the real interval is non-empty from ``N = 868`` on, and contains an
integer from ``N = 869`` on (``d = 867``) — :func:`smallest_informative_vocab`.

**Computed** (:func:`thm2_informative_table`): at such ``(N, d)``, the KL that the theorem's look-up
table reaches (exact, :func:`memnb.lookup_tables.lookup_table_kl`), the same table with ``λ``
re-optimised per sequence (:func:`reoptimised_lambda`: ``λ`` minimising ``KL(π_t ‖ softmax(λ W
W_g))``, a convex problem in one variable), an upper estimate of ``d_KL(π, L)`` (the rank-``d``
truncated SVD of the centred ``log π``), and the theorem's bound: how loose it is against each.
The theorem's ``λ(t)`` gives the target ``g`` the model probability ``e^{-h_t}`` (``h_t`` the
Shannon entropy), not ``π(g|t)``, which is where the re-optimised ``λ`` gains (ours).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from memnb.bounds import dana_jl_constant, dana_jl_threshold
from memnb.constructions.encoder_least_squares import least_squares_logits
from memnb.lookup_tables import (
    coherence,
    expected_kl,
    jl_unembedding,
    logsumexp,
    lookup_table_kl,
    low_entropy_conditionals,
    thm2_bound,
)
from memnb.validation import check_int


def informative_dimensions(N: int) -> range:
    """Integers ``d`` with ``128 ln(N+1) < d < N - 1``: where Thm 2's bound (Dana et al.,
    AISTATS 2025) is finite and Prop. 2 does not already give ``d_KL(π, L) = 0`` (empty below
    ``N = 869``)."""
    N = check_int("N", N, 2)
    return range(math.floor(dana_jl_threshold(N)) + 1, N - 1)


def smallest_informative_vocab() -> tuple[int, int]:
    """``(N_real, N_int)``: the smallest ``N`` with a non-empty real interval ``128 ln(N+1) < d <
    N - 1``, and the smallest with an integer ``d`` in it (Dana et al., AISTATS 2025, Thm 2
    with Prop. 2)."""
    n_real = next(n for n in range(2, 10_000) if dana_jl_threshold(n) < n - 1)
    n_int = next(n for n in range(2, 10_000) if len(informative_dimensions(n)) > 0)
    return n_real, n_int


def reoptimised_lambda(conditionals: ArrayLike, W: ArrayLike, g: ArrayLike) -> pd.DataFrame:
    """Per sequence, the ``λ >= 0`` minimising ``KL(π_t ‖ softmax(λ W W_{g(t)}))`` and that KL.

    The look-up table of Dana et al.'s (AISTATS 2025) Thm 2 with its scale chosen for the KL rather
    than by the entropy equation of the theorem (ours). ``W`` is ``[N, d]`` (rows ``W_j``). Columns:
    ``lam``, ``kl``.
    """
    p = np.asarray(conditionals, dtype=float)
    w = np.asarray(W, dtype=float)
    gg = np.asarray(g, dtype=int)
    if p.ndim != 2 or w.shape[0] != p.shape[1] or gg.shape != (p.shape[0],):
        raise ValueError("conditionals must be [T, N], W [N, d] and g [T]")
    z = (w @ w[gg].T).T  # [T, N]: z_{t,j} = W_j · W_{g(t)}
    with np.errstate(divide="ignore", invalid="ignore"):
        neg_ent = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)
    target = (p * z).sum(axis=1)  # E_π[z]; the KL's derivative in λ is E_{q_λ}[z] - E_π[z]

    def slope(lam: np.ndarray) -> np.ndarray:
        logits = lam[:, None] * z
        q = np.exp(logits - logits.max(axis=1, keepdims=True))
        return (q * z).sum(axis=1) / q.sum(axis=1) - target

    # convex in λ: bisection on the (increasing) derivative, all sequences at once
    lo, hi = np.zeros(len(gg)), np.ones(len(gg))
    for _ in range(60):
        grow = slope(hi) < 0
        if not grow.any():
            break
        hi = np.where(grow, 2.0 * hi, hi)
    hi = np.where(slope(lo) >= 0, 0.0, hi)  # slope >= 0 at λ = 0: the minimum is λ = 0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        up = slope(mid) >= 0
        hi, lo = np.where(up, mid, hi), np.where(up, lo, mid)
    lam = 0.5 * (lo + hi)
    kl = neg_ent - lam * target + logsumexp(lam[:, None] * z, axis=1)
    return pd.DataFrame({"lam": lam, "kl": np.maximum(kl, 0.0)})


def thm2_point(N: int, d: int, *, num_sequences: int, eps: float = 0.1,
               seed: int = 0) -> dict[str, float]:
    """Thm 2 of Dana et al. (AISTATS 2025) at one ``(N, d)``: the bound against the KLs reached
    (see the module docstring).

    Conditionals: :func:`memnb.lookup_tables.low_entropy_conditionals` (mass ``1 - eps`` on a
    random ``g(t)``), ``num_sequences`` of them with a uniform prior; ``W``:
    :func:`memnb.lookup_tables.jl_unembedding`. Deterministic, so results are cached per
    argument (a fresh dict each call).
    """
    N, d = check_int("N", N, 2), check_int("d", d, 1)
    num_sequences, seed = check_int("num_sequences", num_sequences, 1), check_int("seed", seed, 0)
    if not (isinstance(eps, float | int) and 0 < eps < 1):
        raise ValueError(f"eps must be in (0, 1), got {eps!r}")
    return dict(_thm2_point(N, d, num_sequences, float(eps), seed))


@functools.lru_cache(maxsize=32)
def _thm2_point(N: int, d: int, num_sequences: int, eps: float,
                seed: int) -> dict[str, float]:
    p, g = low_entropy_conditionals(num_sequences, N, eps, seed=seed)
    w = jl_unembedding(N, d, seed=seed + d)
    table = lookup_table_kl(p, w, g)
    theorem_kl = float(table["prior"] @ table["kl"])
    reopt = reoptimised_lambda(p, w, g)
    svd_kl = expected_kl(p, least_squares_logits(p, d)) if d < min(p.shape) else 0.0
    c_jl = dana_jl_constant(N, d)
    bound = thm2_bound(p, c_jl, g)
    return {
        "N": N, "d": d, "T": num_sequences, "eps": eps, "threshold": dana_jl_threshold(N),
        "c_jl": c_jl, "c_empirical": coherence(w),
        "kl_theorem_lambda": theorem_kl, "kl_reoptimised_lambda": float(reopt["kl"].mean()),
        "kl_rank_d_svd": svd_kl, "bound": bound,
        "bound_simplified": thm2_bound(p, c_jl, g, form="simplified"),
        "bound_empirical_c": thm2_bound(p, coherence(w), g),
        "mean_lambda_theorem": float(table["lam"].mean()),
        "mean_lambda_reoptimised": float(reopt["lam"].mean()),
        "looseness_vs_theorem_lambda": bound / theorem_kl if theorem_kl > 0 else math.inf,
        "looseness_vs_svd": bound / svd_kl if svd_kl > 0 else math.inf,
    }


def thm2_informative_table(points: tuple[tuple[int, int], ...], *, num_sequences: int,
                           eps: float = 0.1, seed: int = 0) -> pd.DataFrame:
    """:func:`thm2_point` at each ``(N, d)`` of ``points``."""
    return pd.DataFrame([thm2_point(N, d, num_sequences=num_sequences, eps=eps, seed=seed)
                         for N, d in points])
