"""Thm 1 of Dana, Pydi & Chevaleyre (AISTATS 2025) for ε > 0: distribution memorization, computed.

**Statement (paper, eq. 4).** Under Assumption 2 (full-support conditionals) there are a sequence
encoder ``f_{W,E}`` and an AoT ``T`` with ``d_h H + d >= T_ε`` such that

    d_KL(π, T) <= d_KL(π, L(N, S, d)) + C ε ||W E||_2 + γ,

where ``T_ε`` is the number of most likely sequences holding ``1 - ε`` of the prior. The constant
is printed in two forms: the main text's ``C = sqrt(1 + ||(P_1 V P_1^T)^{-1}||_2^2)`` and
App. A.2's eq. (14) ``C = sqrt(1 + ||(P_1 V P_1^T)^{-1} P_1 V P_2^T||_2^2)``, with ``W_V A' =
U I_Σ P_1 V`` a singular value decomposition and ``P_1`` (``P_2``) selecting the ``T_ε`` most
likely sequences (the others).

**The proof's AoT, built.** ``f_{W,E}`` is the best rank-``d`` encoder found numerically
(:func:`memnb.lookup_tables.fit_rank_d_encoder`; Lemma 1 says the infimum is attained). With
``D = H d_h + d = T_ε``, generic weights (:mod:`memnb.constructions.aot_draw`) give features
``F = W_V A'`` ``[D, T]``; ``W_O = E P_1^T (P_1 V P_1^T)^{-1} I_Σ^{-1} U^T`` — which is
``E_1 F_1^{-1}``, the solution of the linear system on the ``D`` most likely sequences — and
``W_U = W``. The skip connection is absorbed exactly (``γ = 0``, a [reconstruction]), so
``T(t) = f(t)`` on the top ``D`` sequences and ``T(t) = W E_1 F_1^{-1} F(t)`` elsewhere.

**What is computed** (:func:`epsilon_bound`): both sides of eq. (4), both constants, and every
step of the proof's chain (13)-(14):

    |d_KL(π,f) - d_KL(π,T)| <= E_t ||(I - 1 π_t^T)(T(t) - f(t))||_∞         (step 1)
                            <= 2 E_t ||W (W_O W_V A' - E)_t||_2                (step 2)
                            <= 2 ε ||W E||_2 C_14  <= 2 ε ||W E||_2 C_main.    (eq. 14)

The factor 2 of ``||I - 1 π^T||_{2,∞} <= 2`` in (13) is dropped in the theorem's statement;
both versions are reported. ``||W E||_2`` is the spectral norm of the ``[T, N]`` logit matrix of
``f`` (one representative: logits are defined up to a per-sequence shift, and ``W E`` up to the
fit). Since ``||P_1 V P_2^T||_2 <= 1``, ``C_14 <= C_main`` always (tested).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
import torch
from scipy.special import softmax

from memnb.bounds import dana_parameter_count
from memnb.constructions import aot_draw
from memnb.constructions.aot import QK_SCALES
from memnb.data.synthetic import all_contexts
from memnb.lookup_tables import expected_kl, fit_rank_d_encoder
from memnb.validation import check_int


@dataclass(frozen=True)
class FullSupportTask:
    """A distribution task: every sequence of ``[N]^S``, full-support conditionals, a prior."""

    tokens: np.ndarray  # [T, S], all_contexts order
    conditionals: np.ndarray  # [T, N], every entry > 0 (Assumption 2)
    prior: np.ndarray  # [T]


def full_support_task(N: int, S: int, *, zipf: float = 1.0, temperature: float = 2.0,
                      seed: int = 0) -> FullSupportTask:
    """All ``N^S`` sequences, conditionals ``softmax(temperature · G_t)`` (``G`` Gaussian, full
    support, centred log-rank ``min(T, N-1)``) and a Zipf prior ``∝ rank^{-zipf}`` over a random
    order of the sequences (``zipf = 0``: uniform). Ours: a test family for Thm 1."""
    N, S = check_int("N", N, 2), check_int("S", S, 1)
    for name, v in (("zipf", zipf), ("temperature", temperature)):
        if not (isinstance(v, numbers.Real) and math.isfinite(v) and v >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    rng = np.random.default_rng(seed)
    tokens = all_contexts(N, S).numpy()
    t = tokens.shape[0]
    cond = softmax(temperature * rng.standard_normal((t, N)), axis=1)
    weights = np.empty(t)
    weights[rng.permutation(t)] = np.arange(1, t + 1, dtype=float) ** (-float(zipf))
    return FullSupportTask(tokens, cond, weights / weights.sum())


@dataclass(frozen=True)
class EpsilonBound:
    """Both sides of Dana et al.'s (AISTATS 2025) Thm 1 (eq. 4) for one AoT built as in its
    proof (App. A.2, skip connection absorbed: [reconstruction]), and the proof's chain.

    ``kl_aot`` is measured on the built model's logits (eq. 2 evaluated by the model).
    """

    N: int
    S: int
    d: int
    d_h: int
    H: int
    T: int  # number of sequences N^S
    T_eps: int  # = H d_h + d, the sequences solved exactly
    eps: float  # prior mass outside the T_eps most likely sequences
    kl_encoder: float  # d_KL(π, f): f the best rank-d encoder found (≈ d_KL(π, L))
    kl_aot: float  # d_KL(π, T) of the built AoT
    gap: float  # kl_aot - kl_encoder
    step1: float  # E_t ||(I - 1 π_t^T)(T - f)(t)||_∞
    step2: float  # 2 E_t ||(T - f)(t)||_2
    norm_we: float  # ||W E||_2 (spectral norm of f's logit matrix)
    c_main: float  # sqrt(1 + ||(P1 V P1^T)^{-1}||^2)   (main text)
    c_eq14: float  # sqrt(1 + ||(P1 V P1^T)^{-1} P1 V P2^T||^2)   (App. eq. 14)
    rhs_main: float  # kl_encoder + c_main ε ||WE||   (theorem as stated, main-text C)
    rhs_eq14: float  # kl_encoder + c_eq14 ε ||WE||   (theorem as stated, eq. 14's C)
    rhs_proof: float  # kl_encoder + 2 c_eq14 ε ||WE||   (what the proof's chain gives)
    max_top_logit_error: float  # max |T(t) - f(t)| on the T_eps solved sequences
    cond_features: float  # condition number of F_1 (the solved block)
    num_parameters: int  # the built model's count = d(S + 2N + 4 d_h H)

    @property
    def holds_as_stated(self) -> bool:
        """``d_KL(π, T) <= d_KL(π, f) + C_14 ε ||WE||_2`` (eq. 4 with eq. 14's constant)."""
        return self.kl_aot <= self.rhs_eq14 + 1e-9 * max(1.0, abs(self.rhs_eq14))

    def as_dict(self) -> dict[str, float | int]:
        """The report's fields as a plain dict (:func:`dataclasses.asdict`)."""
        return asdict(self)


def epsilon_bound(task: FullSupportTask, d: int, d_h: int, H: int, *, seed: int = 0,
                  restarts: int = 1) -> EpsilonBound:
    """Build the AoT of Thm 1's proof (ε > 0) for ``task`` and compute both sides of eq. (4)
    (Dana et al., AISTATS 2025, App. A.2, eqs. 13-14; skip connection absorbed:
    [reconstruction]).

    ``T_ε = H d_h + d`` must be below ``T = N^S`` (otherwise ε = 0). Raises ``ValueError`` when
    the features of the ``T_ε`` most likely sequences are not linearly independent for any of
    the draws tried (Lemma 2's condition; e.g. too many sequences repeating one token).
    """
    tokens, cond, prior = task.tokens, task.conditionals, task.prior
    t, n = cond.shape
    s = tokens.shape[1]
    d = check_int("d", d, 2)
    d_h, H = check_int("d_h", d_h, 1, d), check_int("H", H, 0)
    D = H * d_h + d
    if D >= t:
        raise ValueError(f"H d_h + d = {D} must be below the number of sequences T = {t} "
                         "(otherwise ε = 0 and Thm 1 is the exact case)")
    fit = fit_rank_d_encoder(cond, d, prior=prior, restarts=restarts, seed=seed)
    logits_f = fit.E @ fit.W.T  # [T, N]
    order = np.argsort(-prior, kind="stable")
    top, rest = order[:D], order[D:]
    eps = float(prior[rest].sum())

    best = None
    for attempt in range(3):
        for scale in QK_SCALES:
            weights = aot_draw.draw(n, s, d, d_h, H, qk_scale=scale, seed=seed + attempt)
            feats = aot_draw.features(weights, tokens)
            cond_f1 = float(np.linalg.cond(feats[:, top]))
            if best is None or cond_f1 < best[0]:
                best = (cond_f1, weights, feats)
        if best[0] < 1e10:
            break
    cond_f1, weights, feats = best
    if not math.isfinite(cond_f1) or cond_f1 > 1e12:
        raise ValueError(
            f"the features of the T_eps = {D} most likely sequences are not linearly independent "
            f"(condition number {cond_f1:.3g}): Lemma 2's rank{{A'}} = T_eps fails for this set, "
            "so Thm 1's linear system has no solution")
    f1 = feats[:, top]
    readout = np.linalg.solve(f1.T, fit.E[top]).T  # M F_1 = E_1, [d, D]
    model = aot_draw.assemble(weights, readout, fit.W)
    with torch.no_grad():
        logits_t = model(torch.from_numpy(tokens)).numpy()
    top_err = float(np.abs(logits_t[top] - logits_f[top]).max())

    kl_f = expected_kl(cond, logits_f, prior)
    kl_t = expected_kl(cond, logits_t, prior)
    delta = logits_t - logits_f
    centred = delta - (cond * delta).sum(axis=1, keepdims=True)
    step1 = float(prior @ np.abs(centred).max(axis=1))
    step2 = 2.0 * float(prior @ np.linalg.norm(delta, axis=1))
    # SVD of F with the columns ordered by probability: F = U [Σ 0] V, V orthogonal [T, T]
    ordered = feats[:, order]
    _, _, v = np.linalg.svd(ordered, full_matrices=True)
    p1vp1 = v[:D, :D]
    inv = np.linalg.inv(p1vp1)
    c_main = math.sqrt(1.0 + np.linalg.norm(inv, 2) ** 2)
    c_14 = math.sqrt(1.0 + np.linalg.norm(inv @ v[:D, D:], 2) ** 2)
    norm_we = float(np.linalg.norm(logits_f, 2))
    return EpsilonBound(
        N=n, S=s, d=d, d_h=d_h, H=H, T=t, T_eps=D, eps=eps, kl_encoder=kl_f, kl_aot=kl_t,
        gap=kl_t - kl_f, step1=step1, step2=step2, norm_we=norm_we, c_main=c_main,
        c_eq14=c_14, rhs_main=kl_f + c_main * eps * norm_we, rhs_eq14=kl_f + c_14 * eps * norm_we,
        rhs_proof=kl_f + 2.0 * c_14 * eps * norm_we, max_top_logit_error=top_err,
        cond_features=cond_f1, num_parameters=model.num_parameters())


#: Sizes ``(N, S, d, d_h, H)`` of the chapter's table (``T_ε = H d_h + d < N^S``).
DEFAULT_SIZES: tuple[tuple[int, int, int, int, int], ...] = (
    (4, 2, 2, 1, 4), (5, 2, 2, 2, 4), (5, 2, 3, 2, 5), (4, 3, 3, 2, 10))
#: Zipf exponents of the prior: 0 is uniform (large ε), larger is more concentrated (small ε).
DEFAULT_ZIPF: tuple[float, ...] = (0.0, 1.0, 2.0, 4.0)


def epsilon_table(sizes: tuple[tuple[int, int, int, int, int], ...] = DEFAULT_SIZES,
                  zipfs: tuple[float, ...] = DEFAULT_ZIPF, *, seed: int = 0) -> pd.DataFrame:
    """:func:`epsilon_bound` over sizes and prior concentrations, one row each.

    Extra columns: ``zipf``, ``looseness_eq14 = (rhs_eq14 - kl_encoder) / gap`` and
    ``looseness_proof`` (how many times the bound's excess term exceeds the excess actually paid;
    ``nan`` when the gap is not positive), ``holds_as_stated`` and ``paper_parameter_count``
    (``d (S + 2N + 4 d_h H)``, Thm 1).
    """
    rows = []
    for N, S, d, d_h, H in sizes:
        for z in zipfs:
            task = full_support_task(N, S, zipf=z, seed=seed)
            r = epsilon_bound(task, d, d_h, H, seed=seed)
            row = {"zipf": z, **r.as_dict(), "holds_as_stated": r.holds_as_stated}
            excess = r.gap if r.gap > 0 else math.nan
            row["looseness_eq14"] = (r.rhs_eq14 - r.kl_encoder) / excess
            row["looseness_proof"] = (r.rhs_proof - r.kl_encoder) / excess
            row["paper_parameter_count"] = dana_parameter_count(N, S, d, d_h, H)
            rows.append(row)
    return pd.DataFrame(rows)
