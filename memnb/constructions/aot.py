"""Exact memorization by an attention-only Transformer (Dana, Pydi & Chevaleyre, AISTATS 2025).

Theorem 1 / Corollary 1 of the paper: an AoT with ``H`` heads of dimension ``d_h`` and embedding
dimension ``d`` memorizes ``T_0 = H d_h + d`` associations (``H d_h + 2`` with ``d = 2``).

The paper's proof (App. A.1-A.2) treats the skip connection as a limit "head 0" (``W_QK^0 = λI``,
``λ -> ∞``). The recipe implemented here is a **[reconstruction]** with the same shape that
absorbs the skip connection *exactly*, with no limit (reproduction notes, "Construction in
Thm 1"):

1. draw generic ``e, pos ~ U(0, 1)`` and Gaussian ``W_Q^h, W_K^h, W_V^h`` (so each
   ``W_QK^h = W_Q^{hT} W_K^h`` has rank ``d_h``, as the model requires);
2. build the features ``F(t) = [x(t,S); W_V^1 A^1(t); ...; W_V^H A^H(t)] ∈ R^{d + H d_h}``;
3. take ``W_U`` rows = distinct unit vectors (circle points when ``d = 2``, normalised Gaussians
   otherwise) and targets ``E(t) = λ W_U[g(t)]``, so that ``argmax W_U E(t) = g(t)``
   (when these ``E(t)`` do not span ``R^d`` -- fewer than ``d`` distinct targets, or ``N = 2``
   on the circle -- each is nudged by a generic vector of norm ``<= λ·margin/4``; otherwise
   ``M_0`` below would be singular);
4. solve ``M F = E`` for ``M = [M_0 | W_O^1 ... W_O^H] ∈ R^{d × (d + H d_h)}``;
5. reparametrize ``e <- e M_0^T``, ``pos <- pos M_0^T``, ``W_{Q,K,V}^h <- W_{Q,K,V}^h M_0^{-1}``,
   which leaves every attention pattern and every ``W_V^h A^h`` unchanged and turns the
   residual ``x(t,S)`` into ``M_0 x(t,S)``; eq. (2) then outputs exactly ``W_U E(t)``.

When ``T_0 < H d_h + d`` the system ``M F = E`` is under-determined; we take the solution
closest (in Frobenius norm) to ``[I_d | 0]``, i.e. ``M = J + (E - J F) F^+``, which keeps
``M_0`` near the identity. ``F`` must have full column rank ``T_0``. Two structural facts limit
that rank (they are properties of this recipe, not statements of the paper):

* the residual block ``x(t,S)`` only depends on the last token, so with ``k`` distinct last
  tokens ``rank F <= H d_h + min(d, k)``; sets of sequences with
  ``T_0 > H d_h + min(d, k)`` are rejected with a ``ValueError``;
* with ``S = 1`` every head is linear in ``x(t,1)``; there the embedding itself is set to
  ``e(t) = λ W_U[g(t)] - pos_1`` (heads switched off with ``W_O = 0``), which is exact.

All computations are in float64 (``cond(F)`` reaches 1e4-1e9). The draw is checked (``F``
numerically full rank, ``M_0`` invertible, the built model's argmax equals every target with at
least half the designed margin, and its logits equal ``W_U E(t)`` to 1e-8 of their scale when
evaluated per head in float64); if it fails, it is redrawn deterministically from ``seed + 1``,
``seed + 2``, ... a bounded number of times.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
import torch

from memnb.models.attention_only import AttentionOnlyTransformer
from memnb.validation import check_int

#: Scales tried for the Gaussian ``W_Q, W_K`` entries (times ``1/sqrt(d)``); the best-conditioned
#: feature matrix is kept. Small scales make attention nearly uniform, large ones nearly hard;
#: both make ``F`` ill-conditioned.
QK_SCALES: tuple[float, ...] = (1.0, 2.0, 3.0, 5.0)
_MAX_COND = 1e12
#: Largest accepted ``max |T(t) - W_U E(t)|`` relative to the largest intended logit: a draw
#: whose float64 evaluation is less exact than this (its conditioning amplifies rounding) is
#: redrawn, so that "exact" in the report means exact to 1e-8 of the logits' scale.
_MAX_RELATIVE_LOGIT_ERROR = 1e-8
_UNEMBEDDING_DRAWS = 16


@dataclass(frozen=True)
class ConstructionReport:
    """Diagnostics of one call of :func:`memorize_with_report`.

    Attributes:
        num_sequences: ``T_0``.
        capacity: ``H d_h + d`` (Thm 1 / Cor 1).
        seed_used: the seed of the accepted draw (``seed + attempts - 1``).
        attempts: number of draws tried.
        qk_scale: scale of the accepted ``W_Q, W_K`` draw (``nan`` for ``S = 1``).
        cond_features: 2-norm condition number of the feature matrix ``F`` (``T_0`` columns).
        cond_m0: condition number of ``M_0`` (the reparametrization of the residual stream).
        design_margin: smallest margin ``min_t (l_{g(t)} - max_{j != g(t)} l_j)`` of the
            intended logits ``l = W_U E(t)`` (``λ min_t (1 - max_{j != g(t)} <W_U[j],
            W_U[g(t)]>)`` unless the targets were nudged).
        min_margin: smallest ``logit_{g(t)} - max_{j != g(t)} logit_j`` of the built model.
        max_logit_error: ``max |T(t) - W_U E(t)|`` of the built model (exactness of eq. 2).
        accuracy: fraction of sequences whose argmax equals the target (1.0 when accepted).
        num_parameters: the model's own count (``AttentionOnlyTransformer.num_parameters``).
        paper_parameter_count: ``d (S + 2N + 4 d_h H)`` (Thm 1).
    """

    num_sequences: int
    capacity: int
    seed_used: int
    attempts: int
    qk_scale: float
    cond_features: float
    cond_m0: float
    design_margin: float
    min_margin: float
    max_logit_error: float
    accuracy: float
    num_parameters: int
    paper_parameter_count: int

    def as_dict(self) -> dict[str, float | int]:
        """The report's fields as a plain dict (:func:`dataclasses.asdict`)."""
        return asdict(self)


def unit_unembedding(vocab_size: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """Distinct unit vectors as rows of ``W_U`` ``[N, d]``.

    ``d = 2``: the circle points ``(cos 2πi/N, sin 2πi/N)`` of Prop. 3's proof (Dana et al.,
    AISTATS 2025); ``d >= 3``: normalised Gaussian rows (distinct with probability one), the best
    separated of a few draws. With unit rows, ``<W_U[j], W_U[g]>`` is maximal exactly at
    ``j = g``.
    """
    if d == 2:
        angles = 2.0 * np.pi * np.arange(vocab_size) / vocab_size
        return np.stack([np.cos(angles), np.sin(angles)], axis=1)
    best, best_cos = None, np.inf
    for _ in range(_UNEMBEDDING_DRAWS):
        rows = rng.standard_normal((vocab_size, d))
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        gram = rows @ rows.T - 2.0 * np.eye(vocab_size)
        max_cos = gram.max() if vocab_size > 1 else -1.0
        if max_cos < best_cos:
            best, best_cos = rows, max_cos
    return best


def _validate(tokens: torch.Tensor, targets: torch.Tensor, vocab_size: int, d: int, d_h: int,
              H: int, scale: float, max_attempts: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    for name, value, low in (("vocab_size", vocab_size, 1), ("d", d, 2), ("d_h", d_h, 1),
                             ("H", H, 0), ("max_attempts", max_attempts, 1), ("seed", seed, 0)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if d_h > d:
        raise ValueError(f"d_h must be in 1..d={d} (the paper assumes d_h <= d), got {d_h}")
    if not (isinstance(scale, numbers.Real) and math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale (λ) must be a positive finite number, got {scale!r}")
    if not isinstance(tokens, torch.Tensor) or tokens.dtype.is_floating_point \
            or tokens.dtype == torch.bool or tokens.ndim != 2:
        raise ValueError("tokens must be an integer tensor of shape [T0, S]")
    if not isinstance(targets, torch.Tensor) or targets.dtype.is_floating_point \
            or targets.dtype == torch.bool or targets.ndim != 1:
        raise ValueError("targets must be an integer tensor of shape [T0]")
    t0, s = tokens.shape
    if t0 < 1 or s < 1:
        raise ValueError(f"tokens must have T0 >= 1 rows and S >= 1 columns, got {(t0, s)}")
    if targets.shape[0] != t0:
        raise ValueError(f"targets must have T0={t0} entries (one per sequence), "
                         f"got {targets.shape[0]}")
    tok = tokens.detach().cpu().numpy().astype(np.int64)
    tgt = targets.detach().cpu().numpy().astype(np.int64)
    if tok.min() < 0 or tok.max() >= vocab_size:
        raise ValueError(f"tokens must lie in [0, vocab_size={vocab_size}), "
                         f"got values in [{tok.min()}, {tok.max()}]")
    if tgt.min() < 0 or tgt.max() >= vocab_size:
        raise ValueError(f"targets must lie in [0, vocab_size={vocab_size}), "
                         f"got values in [{tgt.min()}, {tgt.max()}]")
    if np.unique(tok, axis=0).shape[0] != t0:
        raise ValueError("tokens must contain T0 distinct sequences (found duplicate rows)")
    capacity = H * d_h + d
    if t0 > capacity:
        raise ValueError(f"T0={t0} exceeds the capacity H·d_h + d = {H}·{d_h} + {d} = {capacity} "
                         "of Thm 1 / Cor 1")
    if s > 1:
        k = np.unique(tok[:, -1]).shape[0]
        if t0 > H * d_h + min(d, k):
            raise ValueError(
                f"T0={t0} sequences with only {k} distinct last tokens: the residual stream "
                f"x(t,S) depends on the last token only, so this construction handles at most "
                f"H·d_h + min(d, {k}) = {H * d_h + min(d, k)} of them"
            )
        repeated = int(np.sum(np.all(tok == tok[:, :1], axis=1)))
        limit = repeated_token_rank_bound(d, H, s)
        if repeated > limit:
            raise ValueError(
                f"{repeated} of the T0={t0} sequences repeat one token: for such a sequence every "
                f"head's output is e(i) + Σ_s a_s pos_s, so their features span at most "
                f"d + H(S - 1) = {limit} dimensions whatever the weights, and Lemma 2's "
                f"rank{{A}} = T0 (needed by Thm 1's proof) fails; at most {limit} such sequences "
                "can be memorized this way"
            )
    return tok, tgt


def repeated_token_rank_bound(d: int, H: int, S: int) -> int:
    """Largest rank of the features of sequences that repeat one token, for any weights.

    Dana et al.'s (AISTATS 2025) Lemma 2 states that for any ``T_0`` token sequences some
    ``W_QK^h``, ``e`` and ``pos`` give the attention outputs ``{A(t)}`` rank ``>= min(T_0, H d)``;
    Thm 1's proof (App. A.2) uses it for features of rank ``T_0``. For a sequence ``(i, ..., i)`` of
    length ``S`` each head outputs ``A^h = e(i) + Σ_s a_s^h pos_s`` with ``Σ_s a_s^h = 1``, so the
    features are ``F(t) = L(e(i) + pos_S) + Σ_h [0; ...; W_V^h Σ_{s<S} a_s^h (pos_s - pos_S); ...]``
    with the fixed map ``L x = [x; W_V^1 x; ...; W_V^H x]``: they lie in a space of dimension at
    most ``d`` (the range of ``L``) ``+ H(S - 1)``. More such sequences than that cannot be
    memorized by the construction of Thm 1, whatever the draw: a gap of Lemma 2 as stated (the
    finding is ours). Needs ``d >= 1``, ``H >= 0`` (no heads: the bound is ``d``) and ``S >= 1``.
    """
    check_int("d", d, 1)
    check_int("H", H, 0)
    check_int("S", S, 1)
    return d + H * (S - 1)


def _margins(logits: np.ndarray, tgt: np.ndarray) -> np.ndarray:
    rows = np.arange(len(tgt))
    own = logits[rows, tgt]
    others = logits.copy()
    others[rows, tgt] = -np.inf
    return own - others.max(axis=1)


def _model(e: np.ndarray, pos: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray,
           wo: np.ndarray, wu: np.ndarray) -> AttentionOnlyTransformer:
    def t(a: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))

    return AttentionOnlyTransformer.from_weights(
        token_embedding=t(e), pos_embedding=t(pos), W_Q=t(wq), W_K=t(wk), W_V=t(wv),
        W_O=t(wo), W_U=t(wu), dtype=torch.float64)


def _attempt(tok: np.ndarray, tgt: np.ndarray, vocab_size: int, d: int, d_h: int, H: int,
             scale: float, seed: int) -> tuple[AttentionOnlyTransformer, dict] | None:
    """One deterministic draw of the construction; ``None`` if the draw is degenerate."""
    rng = np.random.default_rng(seed)
    t0, s = tok.shape
    wu = unit_unembedding(vocab_size, d, rng)
    targets_e = scale * wu[tgt]  # E(t) = λ W_U[g(t)], shape [T0, d]
    if np.linalg.matrix_rank(targets_e) < min(d, t0):
        # few distinct targets (or N < d): E would make M_0 singular; nudge E(t) by a generic
        # vector of norm <= λ·margin/4, which keeps the argmax with at least half the margin.
        margin = _margins(targets_e @ wu.T, tgt).min() / scale if vocab_size > 1 else 1.0
        nudge = rng.standard_normal((t0, d))
        nudge /= np.linalg.norm(nudge, axis=1, keepdims=True)
        targets_e = targets_e + 0.25 * scale * margin * rng.uniform(0.5, 1.0, (t0, 1)) * nudge
    e = rng.uniform(0.0, 1.0, (vocab_size, d))
    pos = rng.uniform(0.0, 1.0, (s, d))
    wv = rng.standard_normal((H, d_h, d))
    wq0 = rng.standard_normal((H, d_h, d)) / math.sqrt(d)
    wk0 = rng.standard_normal((H, d_h, d)) / math.sqrt(d)
    wo_zero = np.zeros((H, d, d_h))
    tok_t = torch.from_numpy(tok)

    if s == 1:
        # every head is linear in x(t,1): set the embedding directly (exact), heads off.
        e[tok[:, 0]] = targets_e - pos[0]
        model = _model(e, pos, wq0, wk0, wv, wo_zero, wu)
        return model, {"qk_scale": float("nan"), "cond_features": 1.0, "cond_m0": 1.0,
                       "targets_e": targets_e}

    best: tuple[float, float, np.ndarray] | None = None
    for qk_scale in QK_SCALES:
        probe = _model(e, pos, qk_scale * wq0, qk_scale * wk0, wv, wo_zero, wu)
        with torch.no_grad():
            feats = probe.features(tok_t).numpy().T  # [D, T0], D = d + H d_h
        cond = float(np.linalg.cond(feats))
        if best is None or cond < best[0]:
            best = (cond, qk_scale, feats)
    assert best is not None
    cond_f, qk_scale, feats = best
    if not math.isfinite(cond_f) or cond_f > _MAX_COND:
        return None

    # M F = E with M closest to J = [I_d | 0]:  M = J + (E - J F) F^+   (exact when T0 = D)
    j = np.zeros((d, d + H * d_h))
    j[:, :d] = np.eye(d)
    rhs = targets_e.T - j @ feats  # [d, T0]
    x, *_ = np.linalg.lstsq(feats.T, rhs.T, rcond=None)  # min-norm solution, [D, d]
    m = j + x.T
    m0 = m[:, :d]
    cond_m0 = float(np.linalg.cond(m0))
    if not math.isfinite(cond_m0) or cond_m0 > _MAX_COND:
        return None
    m0_inv = np.linalg.inv(m0)
    wo = m[:, d:].reshape(d, H, d_h).transpose(1, 0, 2)  # [H, d, d_h]
    model = _model(e @ m0.T, pos @ m0.T, qk_scale * wq0 @ m0_inv, qk_scale * wk0 @ m0_inv,
                   wv @ m0_inv, wo, wu)
    return model, {"qk_scale": qk_scale, "cond_features": cond_f, "cond_m0": cond_m0,
                   "targets_e": targets_e}


def memorize_with_report(
    tokens: torch.Tensor,
    targets: torch.Tensor,
    vocab_size: int,
    d: int,
    d_h: int,
    H: int,
    *,
    scale: float = 1.0,
    seed: int = 0,
    max_attempts: int = 10,
) -> tuple[AttentionOnlyTransformer, ConstructionReport]:
    """Build an AoT (float64) whose argmax equals ``targets`` on every sequence of ``tokens``.

    Implements the exact-memorization construction for Thm 1 / Cor 1 of Dana et al. (AISTATS
    2025) — the **[reconstruction]** described in the module docstring, whose logits are exactly
    ``λ W_U W_U[g(t)]^T``.

    Args:
        tokens: ``[T0, S]`` distinct token sequences with entries in ``[0, vocab_size)``.
        targets: ``[T0]`` next tokens ``g(t)`` in ``[0, vocab_size)``.
        vocab_size: ``N``.
        d: embedding dimension, ``>= 2`` (Prop. 3: a rank-1 read-out separates at most 2 tokens).
        d_h: head dimension, ``1 <= d_h <= d``.
        H: number of heads, ``>= 0``.
        scale: ``λ`` in ``E(t) = λ W_U[g(t)]``; the logit margin grows linearly with it.
        seed: seed of the first draw; redraws use ``seed + 1, seed + 2, ...``.
        max_attempts: number of draws before giving up with a ``RuntimeError``.

    Raises:
        ValueError: bad shapes or ranges, duplicate sequences, ``T0 > H d_h + d``, too few
            distinct last tokens (see the module docstring), more sequences repeating one token
            than :func:`repeated_token_rank_bound`, or features of rank below ``T0`` in every
            draw tried.
        RuntimeError: no draw passed the checks in ``max_attempts`` attempts.
    """
    tok, tgt = _validate(tokens, targets, vocab_size, d, d_h, H, scale, max_attempts, seed)
    vocab_size, d, d_h, H, seed = int(vocab_size), int(d), int(d_h), int(H), int(seed)
    t0, s = tok.shape
    for attempt in range(max_attempts):
        result = _attempt(tok, tgt, vocab_size, d, d_h, H, float(scale), seed + attempt)
        if result is None:
            continue
        model, info = result
        wu = model.W_U.detach().numpy()
        intended = info["targets_e"] @ wu.T  # W_U E(t), [T0, N]
        design = _margins(intended, tgt).min() if vocab_size > 1 else float("inf")
        with torch.no_grad():
            logits = model(torch.from_numpy(tok)).numpy()
        margins = _margins(logits, tgt) if vocab_size > 1 else np.full(t0, np.inf)
        accuracy = float(np.mean(logits.argmax(axis=1) == tgt))
        logit_error = float(np.abs(logits - intended).max())
        logit_scale = max(float(np.abs(intended).max()), np.finfo(np.float64).tiny)
        if (accuracy < 1.0 or margins.min() < 0.5 * design
                or logit_error > _MAX_RELATIVE_LOGIT_ERROR * logit_scale):
            continue
        report = ConstructionReport(
            num_sequences=t0,
            capacity=H * d_h + d,
            seed_used=seed + attempt,
            attempts=attempt + 1,
            qk_scale=info["qk_scale"],
            cond_features=info["cond_features"],
            cond_m0=info["cond_m0"],
            design_margin=float(design),
            min_margin=float(margins.min()),
            max_logit_error=logit_error,
            accuracy=accuracy,
            num_parameters=model.num_parameters(),
            paper_parameter_count=d * (s + 2 * vocab_size + 4 * d_h * H),
        )
        return model, report
    ranks = [feature_rank(tok, vocab_size, d, d_h, H, seed + a)
             for a in range(min(3, max_attempts))]
    if max(ranks) < t0:
        raise ValueError(
            f"the features of these T0={t0} sequences have rank at most {max(ranks)} < T0 in every "
            f"draw tried (seeds {seed}..{seed + len(ranks) - 1}): the sequences are not in the "
            "general position Lemma 2 assumes (rank{A} = T0), so Thm 1's construction cannot "
            "memorize them"
        )
    raise RuntimeError(
        f"no well-conditioned draw found in {max_attempts} attempts (seeds {seed}.."
        f"{seed + max_attempts - 1}); try another seed or a larger max_attempts"
    )


def feature_rank(tokens: torch.Tensor | np.ndarray, vocab_size: int, d: int, d_h: int, H: int,
                 seed: int = 0) -> int:
    """Numerical rank of the feature matrix ``F`` (``[x(t,S); W_V^h A^h(t)]``) of ``tokens``
    under one random draw of the construction's weights (float64).

    Thm 1's proof (Dana et al., AISTATS 2025, App. A.2) needs rank ``T_0`` here and takes it from
    Lemma 2 (weights giving the attention outputs rank ``>= min(T_0, H d)``), with the skip
    connection as a head 0. The maximum over draws is a lower bound on the generic rank.
    """
    tok = np.asarray(tokens, dtype=np.int64)
    rng = np.random.default_rng(seed)
    s = tok.shape[1]
    e = rng.uniform(0.0, 1.0, (vocab_size, d))
    pos = rng.uniform(0.0, 1.0, (s, d))
    wv = rng.standard_normal((H, d_h, d))
    wq = rng.standard_normal((H, d_h, d)) / math.sqrt(d)
    wk = rng.standard_normal((H, d_h, d)) / math.sqrt(d)
    wu = unit_unembedding(vocab_size, d, rng)
    probe = _model(e, pos, wq, wk, wv, np.zeros((H, d, d_h)), wu)
    with torch.no_grad():
        feats = probe.features(torch.from_numpy(tok)).numpy()
    return int(np.linalg.matrix_rank(feats))


def memorize(
    tokens: torch.Tensor,
    targets: torch.Tensor,
    vocab_size: int,
    d: int,
    d_h: int,
    H: int,
    *,
    scale: float = 1.0,
    seed: int = 0,
    max_attempts: int = 10,
) -> AttentionOnlyTransformer:
    """The model of :func:`memorize_with_report` without the diagnostics."""
    model, _ = memorize_with_report(tokens, targets, vocab_size, d, d_h, H, scale=scale,
                                    seed=seed, max_attempts=max_attempts)
    return model


def construction_table(configs: list[tuple[int, int, int, int, int]], *,
                       seed: int = 0) -> pd.DataFrame:
    """Build the construction at capacity for each ``(N, S, d, d_h, H)`` and report it (Dana et
    al., AISTATS 2025, Thm 1 / Cor. 1; our [reconstruction], see the module docstring).

    For each configuration, ``T_0 = H d_h + d`` distinct random sequences with random targets
    (:func:`memnb.data.synthetic.distinct_sequences`) are memorized by :func:`memorize_with_report`;
    the row holds the report (accuracy, margins, condition numbers, parameter counts).
    """
    from memnb.data.synthetic import distinct_sequences

    rows = []
    for N, S, d, d_h, H in configs:
        T0 = H * d_h + d
        tokens, targets = distinct_sequences(T0, N, S, seed=seed)
        _, report = memorize_with_report(tokens, targets, N, d, d_h, H, seed=seed)
        rows.append({"N": N, "S": S, "d": d, "d_h": d_h, "H": H, **report.as_dict()})
    return pd.DataFrame(rows)
