"""The statements of Mahdavi, Liao & Thrampoulidis (ICLR 2024) checked numerically.

Small deterministic float64 checks, each of one numbered item: Theorem 1 / Proposition 1 over a
grid (:func:`construction_grid`), Propositions 2 and 5 (:func:`rank_bound_checks`),
Proposition 3 (:func:`relu_comparison`), Proposition 4 (:func:`proposition4_check`, the layer run
by ``torch.nn.MultiheadAttention`` and its output tested), Claims 1-2
and Lemmas 1-5 of App. B and D, Remark 1 (:func:`remark1_check`), App. C
(:func:`skip_connection_check`) and the positional-encoding argument of Sec. 4.4 for
Assumption 2 (:func:`positional_rank_check`).
The paper's formulas are stripped from the text we have: the statements below follow the
reproduction notes' reconstruction of them, and say so where it matters.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import torch

from memnb.bounds import (
    mahdavi_capacity,
    mahdavi_constant_sum_rank_bound,
    mahdavi_parameter_count,
    mahdavi_shared_context_rank_bound,
)
from memnb.constructions.mha import (
    construct,
    random_weight_ranks,
    relu_network_jacobian_rank,
    z_matrix,
)
from memnb.models.multi_head import MultiHeadAttention, sinusoidal_encoding
from memnb.train import TrainConfig, train_members
from memnb.validation import check_int

__all__ = [
    "claim1_check",
    "construction_grid",
    "lemma1_check",
    "lemma2_check",
    "lemma3_check",
    "lemma4_check",
    "lemma5_check",
    "positional_rank_check",
    "proposition4_cases",
    "proposition4_check",
    "proposition4_data",
    "proposition4_layer",
    "rank_bound_checks",
    "relu_comparison",
    "remark1_check",
    "self_attention_skip",
    "skip_connection_check",
    "theory_dataset",
]


def _rank(matrix: torch.Tensor, rel_tol: float = 1e-9) -> int:
    s = torch.linalg.svdvals(matrix)
    return int((s > rel_tol * max(float(s[0]), 1e-300)).sum()) if s.numel() else 0


def theory_dataset(T: int, n: int, d: int, *, d_o: int = 1, shared: bool = False,
                   constant_sum: float | None = None, seed: int = 0
                   ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Float64 data for the constructions: uniform contexts (shared or not; rows rescaled to sum
    to ``constant_sum`` if given), uniform queries, Gaussian labels ``[T, d_o]``."""
    T, n, d, d_o = (check_int("T", T, 1), check_int("n", n, 1), check_int("d", d, 1),
                    check_int("d_o", d_o, 1))
    g = torch.Generator().manual_seed(seed)
    if shared:
        ctx = torch.rand(n, d, generator=g, dtype=torch.float64).expand(T, n, d).clone()
    else:
        ctx = torch.rand(T, n, d, generator=g, dtype=torch.float64)
    if constant_sum is not None:
        ctx = ctx / ctx.sum(dim=2, keepdim=True) * constant_sum
    queries = torch.rand(T, d, generator=g, dtype=torch.float64)
    labels = torch.randn(T, d_o, generator=g, dtype=torch.float64)
    return ctx, queries, labels


# ---------------------------------------------------------------------------------------------
# Theorem 1 / Proposition 1
# ---------------------------------------------------------------------------------------------


def construction_grid(heads_list: list[int], contexts: list[int], head_dims: list[int], d: int,
                      *, shared: bool = False, seed: int = 0) -> pd.DataFrame:
    """Theorem 1 of Mahdavi et al. (ICLR 2024) at its capacity for every ``(H, n, d_h)``: build
    the proof's weights for ``T = H(min(n, d_h)-1)+1`` examples and record ``rank Z``, whether
    the rank reached after each head grows by ``min(n, d_h) - 1`` per head (Proposition 1;
    ``rank_grows_per_head``), the largest error and whether every label is met to 1e-6."""
    rows = []
    for h in heads_list:
        for n in contexts:
            for d_h in head_dims:
                T = mahdavi_capacity(h, n, d_h)
                ctx, q, y = theory_dataset(T, n, d, shared=shared, seed=seed)
                result = construct(ctx, q, y, h, d_h, seed=seed)
                n_prime = min(n, d_h)
                expected = [min(T, k * (n_prime - 1) + 1) for k in range(1, h + 1)]
                grows = result.rank_after_head == expected[:len(result.rank_after_head)]
                rows.append({"H": h, "n": n, "d_h": d_h, "d": d, "T": T, "capacity": T,
                             "z_rank": result.z_rank, "max_abs_error": result.max_abs_error,
                             "rank_grows_per_head": bool(grows),
                             "memorized_all": bool(result.max_abs_error <= 1e-6)})
    return pd.DataFrame(rows)


def _trained_paper_model(ctx: torch.Tensor, q: torch.Tensor, heads: int, d_h: int, *,
                         steps: int, seed: int) -> MultiHeadAttention:
    """A paper-convention model trained briefly (classification, 10 classes) on ``(ctx, q)``."""
    T, n, d = ctx.shape
    labels = torch.from_numpy(np.random.default_rng(seed).integers(0, 10, T)).long()
    model = MultiHeadAttention(d, heads, d_h, 1, 10, seed=seed)
    config = TrainConfig(steps=steps, lr=3e-2, eval_every=max(1, steps), early_stop=False,
                         seed=seed)
    result = train_members([model], (ctx.float(), q.float()), labels, config, progress=False)
    return result.models[0].double()


def rank_bound_checks(*, heads: int, n: int, d: int, d_h: int, T: int, draws: int,
                      train_steps: int, seed: int = 0) -> pd.DataFrame:
    """Propositions 2 and 5 of Mahdavi et al. (ICLR 2024; App. E, App. I): ``rank Z`` over random
    weights (several scales) and a trained model, for a shared context (bound ``H(n-1)+1``), for
    tokens summing to a constant (bound ``H(d-1)+1``) and, for contrast, for i.i.d. contexts
    (only the trivial ``min(T, H d)``). ``train_steps`` = 0 leaves the trained model out."""
    train_steps = check_int("train_steps", train_steps, 0)
    settings = {
        "shared context (Prop. 2)": ({"shared": True},
                                     mahdavi_shared_context_rank_bound(heads, n)),
        "constant-sum tokens (Prop. 5)": ({"constant_sum": 1.0},
                                          mahdavi_constant_sum_rank_bound(heads, d)),
        "i.i.d. contexts": ({}, min(T, heads * d)),
    }
    rows = []
    for name, (kw, bound) in settings.items():
        ctx, q, _ = theory_dataset(T, n, d, seed=seed, **kw)
        for r in random_weight_ranks(ctx, q, heads, d_h, draws=draws, seed=seed):
            rows.append({"setting": name, "weights": f"random (scale {r['scale']:g})",
                         "rank": r["rank"], "bound": bound})
        if train_steps > 0:
            trained = _trained_paper_model(ctx, q, heads, d_h, steps=train_steps, seed=seed)
            rows.append({"setting": name, "weights": "trained",
                         "rank": _rank(z_matrix(trained, ctx, q)), "bound": bound})
    table = pd.DataFrame(rows)
    return table.groupby(["setting", "weights"], as_index=False, sort=False).agg(
        max_rank=("rank", "max"), bound=("bound", "first"), draws=("rank", "size"))


def relu_comparison(*, heads: int, n: int, d: int, T: int, widths: list[int] | None = None,
                    seed: int = 0) -> pd.DataFrame:
    """Proposition 3 of Mahdavi et al. (ICLR 2024, App. F) [reconstruction]: on a shared context
    of standard-basis rows with queries in general position, the attention layer (``d_h = d``,
    ``d_v = 1``) memorizes ``H(n-1)+1`` examples exactly (a construction: a lower bound). A
    two-layer ReLU network with ``m`` units on ``[vec E; e]`` sees only ``e`` there: its outputs
    are a function of ``m(d+2)+1`` effective parameters, so it cannot interpolate more than
    ``m(d+2)+1`` generic labels (the upper bound of App. F, for every weight). The rank of its
    output Jacobian at a random point is shown beside it: it never exceeds the bound (a check of
    the bound, not a count of what is memorized)."""
    cap = mahdavi_capacity(heads, n, d)
    ctx = torch.eye(n, d, dtype=torch.float64).expand(T, n, d).clone()
    q = torch.randn(T, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    labels = torch.randn(T, 1, generator=torch.Generator().manual_seed(seed + 1),
                         dtype=torch.float64)
    built = construct(ctx[:cap], q[:cap], labels[:cap], heads, d, seed=seed)
    attn_params = mahdavi_parameter_count(heads, d, d, 1, 1)
    matched = max(1, math.ceil(attn_params / ((n + 1) * d + 2)))
    rows = [{"model": f"attention, H={heads}, d_h={d}, d_v=1", "width": None,
             "parameters": attn_params,
             "examples": cap if built.max_abs_error <= 1e-6 else 0,
             "bound_kind": "lower (exact construction, Thm 1)", "jacobian_rank": None}]
    for m in sorted(set(widths or [heads, matched])):
        rank, fcn_params = relu_network_jacobian_rank(ctx, q, m, seed=seed)
        rows.append({"model": f"two-layer ReLU network, m={m}", "width": m,
                     "parameters": fcn_params, "examples": min(T, m * (d + 2) + 1),
                     "bound_kind": "upper (Prop. 3: m(d+2)+1 effective parameters)",
                     "jacobian_rank": rank})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# Claims 1-2 and Lemmas 1-5 (App. B, D)
# ---------------------------------------------------------------------------------------------


def claim1_check(*, n: int = 4, d: int = 8, seed: int = 0) -> dict[str, float]:
    """Claim 1 (Mahdavi et al., ICLR 2024, App. B.1): one head realises any target attentions
    ``alpha^(t)`` on ``n`` examples with a key-query matrix of rank at most ``n`` (``W = U Q^+``,
    ``u^(t) = E^(t)+ log alpha^(t)``).

    Returns the largest ``|softmax(E W e) - alpha|`` and the rank of ``W``.
    """
    g = torch.Generator().manual_seed(seed)
    ctx = torch.rand(n, n, d, generator=g, dtype=torch.float64)
    queries = torch.rand(n, d, generator=g, dtype=torch.float64)
    alpha = torch.softmax(torch.randn(n, n, generator=g, dtype=torch.float64), dim=1)
    u = (torch.linalg.pinv(ctx) @ torch.log(alpha)[..., None])[..., 0]  # [n, d]
    W = u.T @ torch.linalg.pinv(queries.T)  # W e^(t) = u^(t)
    got = torch.softmax(torch.einsum("tnd,de,te->tn", ctx, W, queries), dim=1)
    return {"max_error": float((got - alpha).abs().max()), "rank_W": _rank(W, 1e-10), "n": n}


def _lemma3_weight(ctx: torch.Tensor, queries: torch.Tensor, subset: list[int],
                   g: torch.Generator) -> torch.Tensor:
    """Lemma 3's rank-one ``W0 = g b^T`` with ``b`` orthogonal to the queries of ``subset``."""
    d = queries.shape[1]
    basis, _ = torch.linalg.qr(queries[subset].T)
    b = torch.randn(d, generator=g, dtype=torch.float64)
    b = b - basis @ (basis.T @ b)
    return torch.randn(d, generator=g, dtype=torch.float64)[:, None] * (b / b.norm())[None, :]


def lemma3_check(*, T: int = 10, n: int = 4, d: int = 8, seed: int = 0) -> dict[str, float]:
    """Lemma 3 (Mahdavi et al., ICLR 2024, App. D): for ``|S| = n - 1`` there is a rank-one
    ``W0`` with ``W0 e^(t) = 0`` on ``S`` (eq. 20) and ``E^(t) W0 e^(t)`` with distinct entries
    off ``S`` (eq. 21)."""
    g = torch.Generator().manual_seed(seed)
    ctx, queries, _ = theory_dataset(T, n, d, seed=seed)
    subset = list(range(n - 1))
    W0 = _lemma3_weight(ctx, queries, subset, g)
    on_s = float((queries[subset] @ W0.T).abs().max())
    logits = torch.einsum("tnd,de,te->tn", ctx, W0, queries)[n - 1:]
    gaps = torch.diff(torch.sort(logits, dim=1).values, dim=1).abs()
    return {"max_on_S": on_s, "min_gap_off_S": float(gaps.min()), "rank_W0": _rank(W0, 1e-10)}


def lemma4_check(*, T: int = 10, n: int = 4, d: int = 8, scales: tuple[float, ...] = (
        1.0, 10.0, 100.0, 1e3, 1e4), seed: int = 0) -> pd.DataFrame:
    """Lemma 4 (saturation; Mahdavi et al., ICLR 2024, App. D): with ``W_c = W + c W0``,
    ``softmax(E W_c e)`` tends to a one-hot vector off ``S`` as ``c`` grows (whatever ``W``), and is
    unchanged on ``S`` (eq. 20).

    One row per ``c``: the largest distance to the one-hot limit off ``S`` and the largest change
    on ``S``.
    """
    g = torch.Generator().manual_seed(seed)
    ctx, queries, _ = theory_dataset(T, n, d, seed=seed)
    subset = list(range(n - 1))
    W0 = _lemma3_weight(ctx, queries, subset, g)
    W = torch.randn(d, d, generator=g, dtype=torch.float64)
    base = torch.softmax(torch.einsum("tnd,de,te->tn", ctx, W, queries), dim=1)
    direction = torch.einsum("tnd,de,te->tn", ctx, W0, queries)
    limit = torch.nn.functional.one_hot(direction.argmax(dim=1), n).to(torch.float64)
    rows = []
    for c in scales:
        att = torch.softmax(torch.einsum("tnd,de,te->tn", ctx, W + c * W0, queries), dim=1)
        rows.append({"c": c, "off_S_distance": float((att - limit)[n - 1:].abs().max()),
                     "on_S_change": float((att - base)[subset].abs().max())})
    return pd.DataFrame(rows)


def lemma1_check(*, trials: int = 50, seed: int = 0) -> dict[str, int]:
    """Lemma 1 (Mahdavi et al., ICLR 2024, App. D): a block upper-triangular ``[[A, B], [0, D]]``
    has rank at least ``rank A + rank D``; checked on random low-rank blocks. Returns the number
    of trials and of violations."""
    rng = np.random.default_rng(seed)

    def low_rank(rows: int, cols: int) -> np.ndarray:
        r = int(rng.integers(1, min(rows, cols) + 1))
        return rng.standard_normal((rows, r)) @ rng.standard_normal((r, cols))

    violations = 0
    for _ in range(trials):
        p, q, r, s = (int(v) for v in rng.integers(2, 7, 4))
        A, D, B = low_rank(p, q), low_rank(r, s), rng.standard_normal((p, s))
        M = np.block([[A, B], [np.zeros((r, q)), D]])
        rank = np.linalg.matrix_rank
        violations += int(rank(M) < rank(A) + rank(D))
    return {"trials": trials, "violations": violations}


def lemma2_check(*, n: int = 5, d: int = 8, cs: tuple[float, ...] = (0.0, 0.2, 1.0, 5.0, 100.0),
                 seed: int = 0) -> pd.DataFrame:
    """Lemma 2 (Mahdavi et al., ICLR 2024, App. D): if ``x_1..x_n`` are independent, so are
    ``x_i + c sum_j x_j`` (used by Proposition 4 with ``c = 1/n``). The statement's range of
    ``c`` is stripped from our text; the vectors are dependent exactly at ``c = -1/n`` (their sum
    vanishes), which the last row shows (ours)."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    rows = []
    for c in (*cs, -1.0 / n):
        Y = X + c * X.sum(dim=0, keepdim=True)
        rows.append({"c": c, "rank": _rank(Y, 1e-9), "n": n})
    return pd.DataFrame(rows)


def lemma5_check(*, trials: int = 50, seed: int = 0) -> dict[str, int]:
    """Lemma 5 (Weyl; Mahdavi et al., ICLR 2024, App. D): if ``||A - B||_2 < sigma_min(A) / 2``
    (``A`` of rank r) then ``rank B >= r``; checked on random perturbations of random rank-r
    matrices."""
    rng = np.random.default_rng(seed)
    violations = 0
    for _ in range(trials):
        m, k, r = 8, 6, int(rng.integers(1, 6))
        A = rng.standard_normal((m, r)) @ rng.standard_normal((r, k))
        sigma = np.linalg.svd(A, compute_uv=False)[r - 1]
        P = rng.standard_normal((m, k))
        P *= 0.49 * sigma / np.linalg.norm(P, 2)
        violations += int(np.linalg.matrix_rank(A + P) < r)
    return {"trials": trials, "violations": violations}


# ---------------------------------------------------------------------------------------------
# Proposition 4, Remark 1, App. C, Sec. 4.4
# ---------------------------------------------------------------------------------------------


def proposition4_layer(d: int, *, seed: int = 0, value_out: str = "identity",
                       rank: int | None = None) -> dict[str, torch.Tensor]:
    """Random weights of Proposition 4's layer (Mahdavi et al., ICLR 2024, Sec. 4.4):
    ``W_K W_Q^T = 0`` and ``W_V W_O = I``.

    ``W_Q = U_1 A`` and ``W_K = U_2 B`` with ``U_1, U_2`` orthonormal blocks of complementary
    subspaces, so every logit ``x W_Q W_K^T x'^T`` is exactly 0 (uniform attention) although
    neither factor is; ``W_V`` is a random invertible matrix and ``W_O = W_V^{-1}``.
    ``value_out`` breaks the proposition's hypothesis on purpose (ours, for the negative checks):
    ``"minus_identity"`` gives ``W_V W_O = -I`` (the singular case ``c = -1/n`` of Lemma 2),
    ``"zero"`` gives ``W_V W_O = 0`` (the layer does not mix). Weights in the convention of
    :class:`torch.nn.MultiheadAttention` (``q = x W_Q^T``), float64.
    """
    d = check_int("d", d, 2)
    factors = {"identity": 1.0, "minus_identity": -1.0, "zero": 0.0}
    if value_out not in factors:
        raise ValueError(f"value_out must be one of {sorted(factors)}, got {value_out!r}")
    r = d // 2 if rank is None else rank
    if not 1 <= r <= d // 2:
        raise ValueError(f"rank must be in [1, d // 2 = {d // 2}], got {r}")
    g = torch.Generator().manual_seed(seed)
    basis, _ = torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))
    u1, u2 = basis[:, :r], basis[:, r:2 * r]
    w_q = u1 @ torch.randn(r, d, generator=g, dtype=torch.float64)
    w_k = u2 @ torch.randn(r, d, generator=g, dtype=torch.float64)
    w_v = torch.randn(d, d, generator=g, dtype=torch.float64) + 2 * torch.eye(d,
                                                                            dtype=torch.float64)
    w_o = factors[value_out] * torch.linalg.inv(w_v)
    return {"W_Q": w_q, "W_K": w_k, "W_V": w_v, "W_O": w_o}


def self_attention_skip(tokens: torch.Tensor, weights: dict[str, torch.Tensor]) -> torch.Tensor:
    """One single-head self-attention layer with a skip connection, ``X + Attn(X)``, evaluated by
    :class:`torch.nn.MultiheadAttention` (no bias), independently of the closed form
    ``x + mean(E)`` that Proposition 4's proof derives (Mahdavi et al., ICLR 2024, App. G, eqs.
    30-31)."""
    if tokens.ndim != 3:
        raise ValueError(f"tokens must be [T, n, d], got shape {tuple(tokens.shape)}")
    d = tokens.shape[2]
    layer = torch.nn.MultiheadAttention(d, 1, bias=False, batch_first=True,
                                        dtype=torch.float64)
    with torch.no_grad():
        layer.in_proj_weight.copy_(torch.cat([weights["W_Q"], weights["W_K"], weights["W_V"]]))
        layer.out_proj.weight.copy_(weights["W_O"])
        out, _ = layer(tokens, tokens, tokens, need_weights=False)
    return tokens + out


def proposition4_data(T: int, n: int, d: int, *, seed: int = 0, break_assumption: str | None = None
                      ) -> torch.Tensor:
    """Self-attention inputs ``[T, n, d]`` as in a ViT's embedding layer (the setting of Mahdavi et
    al., ICLR 2024, Sec. 4.4): token 0 (the query, [CLS] plus its position) is the same vector in
    every example, so Assumption 1 fails; the other ``n - 1`` tokens are random, so Assumptions 2
    and 3 hold almost surely.

    ``break_assumption`` (ours, for the negative checks): ``"A2"`` makes the last token of every
    context the sum of the two before it (rank ``n - 1``; needs ``n >= 3``); ``"A3"`` gives all
    examples the same multiset of tokens in different orders, so ``e + mean(E)`` is one vector.
    """
    T, n, d = check_int("T", T, 1), check_int("n", n, 1), check_int("d", d, 1)
    if n >= d:
        raise ValueError(f"Proposition 4 needs n < d; got n = {n}, d = {d}")
    g = torch.Generator().manual_seed(seed)
    cls = torch.randn(d, generator=g, dtype=torch.float64)
    if break_assumption == "A3":
        rest = torch.randn(n - 1, d, generator=g, dtype=torch.float64)
        order = [torch.randperm(n - 1, generator=g) for _ in range(T)]
        others = torch.stack([rest[o] for o in order])
    else:
        others = torch.randn(T, n - 1, d, generator=g, dtype=torch.float64)
    tokens = torch.cat([cls.expand(T, 1, d), others], dim=1)
    if break_assumption == "A2":
        if n < 3:
            raise ValueError(f"break_assumption='A2' needs n >= 3, got n = {n}")
        tokens[:, -1] = tokens[:, -2] + tokens[:, -3]
    elif break_assumption not in (None, "A3"):
        raise ValueError(f"break_assumption must be None, 'A2' or 'A3', got {break_assumption!r}")
    return tokens


def proposition4_check(tokens: torch.Tensor, weights: dict[str, torch.Tensor]
                       ) -> dict[str, int | bool | float]:
    """Proposition 4 (Mahdavi et al., ICLR 2024, Sec. 4.4, App. G) tested as an implication on one
    input and one layer.

    Hypotheses, checked on the input: Assumption 2 (every context of rank ``n``), Assumption 3
    (``e + mean(E)`` of Kruskal rank ``>= n``, the query being token 0) and the layer's
    ``W_K W_Q^T = 0``, ``W_V W_O = I``. Conclusion, checked on the *output of the layer* as
    :func:`self_attention_skip` computes it: Assumption 1 (the new queries, token 0 of the
    output, have Kruskal rank ``>= n``) and Assumption 2 (every output context of rank ``n``).
    Kruskal ranks by enumerating every subset (small ``T`` only). ``holds`` is "hypotheses imply
    conclusion"; ``closed_form_error`` compares the output with the proof's ``x + mean(E)``.
    """
    from memnb.assumptions import kruskal_rank_exact, shifted_queries

    T, n, d = tokens.shape
    eye = torch.eye(d, dtype=torch.float64)
    kq = weights["W_Q"].T @ weights["W_K"]
    vo = weights["W_O"] @ weights["W_V"]  # the value-output map x -> x W_V^T W_O^T
    layer_ok = bool(kq.abs().max() <= 1e-10 and (vo - eye).abs().max() <= 1e-8)
    queries = tokens[:, 0]
    a2_before = int((torch.linalg.matrix_rank(tokens) == n).sum())
    kruskal_shifted = kruskal_rank_exact(shifted_queries(tokens, queries))
    out = self_attention_skip(tokens, weights)
    kruskal_after = kruskal_rank_exact(out[:, 0])
    a2_after = int((torch.linalg.matrix_rank(out) == n).sum())
    hypotheses = layer_ok and a2_before == T and kruskal_shifted >= n
    conclusion = kruskal_after >= n and a2_after == T
    closed = tokens + tokens.mean(dim=1, keepdim=True)
    return {"T": T, "n": n, "d": d, "layer_hypotheses": layer_ok,
            "kruskal_before": kruskal_rank_exact(queries), "kruskal_shifted": kruskal_shifted,
            "contexts_rank_n_before": a2_before, "kruskal_after": kruskal_after,
            "contexts_rank_n_after": a2_after, "hypotheses": hypotheses,
            "conclusion": conclusion, "holds": (not hypotheses) or conclusion,
            "closed_form_error": float((out - closed).abs().max())}


def proposition4_cases(*, draws: int = 12, seed: int = 0) -> pd.DataFrame:
    """Proposition 4 (Mahdavi et al., ICLR 2024) over random sizes ``(T, n, d)`` (``n < d``,
    ``T <= 9``) and random layers meeting its hypotheses, plus three inputs that break one
    hypothesis each (ours): a context of rank ``n - 1`` (A2), tokens shared by every example (A3)
    and ``W_V W_O = -I``. One row per case with :func:`proposition4_check`'s fields and ``case``."""
    if draws < 1:
        raise ValueError(f"draws must be >= 1, got {draws}")
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(draws):
        n = int(rng.integers(2, 6))
        d = n + int(rng.integers(1, 5))
        T = int(rng.integers(n, 10))
        s = int(rng.integers(0, 2**31))
        check = proposition4_check(proposition4_data(T, n, d, seed=s),
                                   proposition4_layer(d, seed=s))
        rows.append({"case": f"random {i + 1}", **check})
    negatives = {
        "A2 broken (a context of rank n - 1)": (proposition4_data(8, 4, 7, seed=seed,
                                                                  break_assumption="A2"),
                                                proposition4_layer(7, seed=seed)),
        "A3 broken (the same tokens in every example)": (
            proposition4_data(8, 4, 7, seed=seed, break_assumption="A3"),
            proposition4_layer(7, seed=seed)),
        "W_V W_O = -I instead of I": (proposition4_data(8, 4, 7, seed=seed),
                                      proposition4_layer(7, seed=seed,
                                                         value_out="minus_identity")),
    }
    for name, (tokens, weights) in negatives.items():
        rows.append({"case": name, **proposition4_check(tokens, weights)})
    return pd.DataFrame(rows)


def remark1_check(*, heads: int = 3, n: int = 6, k: int = 3, d: int = 10, seed: int = 0
                  ) -> dict[str, int | float]:
    """Remark 1 of Mahdavi et al. (ICLR 2024) [reconstruction: the statement is inferred from
    App. J]: with queries of Kruskal rank ``k < n`` (here in a ``k``-dimensional subspace) the
    construction memorizes ``H(k - 1) + 1`` examples, using key/query matrices of rank ``k``."""
    T = mahdavi_capacity(heads, k, k)
    g = torch.Generator().manual_seed(seed)
    ctx = torch.rand(T, n, d, generator=g, dtype=torch.float64)
    basis = torch.randn(d, k, generator=g, dtype=torch.float64)
    queries = torch.randn(T, k, generator=g, dtype=torch.float64) @ basis.T
    labels = torch.randn(T, 1, generator=g, dtype=torch.float64)
    built = construct(ctx, queries, labels, heads, k, seed=seed)
    return {"T": T, "k": k, "n": n, "H": heads, "z_rank": built.z_rank,
            "max_abs_error": built.max_abs_error}


def skip_connection_check(*, heads: int = 2, n: int = 4, d: int = 6, d_o: int = 2,
                          seed: int = 0) -> dict[str, float | int]:
    """App. C of Mahdavi et al. (ICLR 2024): with a skip connection the layer outputs
    ``y_hat + e[:d_o]``; memorizing the shifted labels ``y - e[:d_o]`` with Theorem 1's
    construction memorizes ``y``."""
    T = mahdavi_capacity(heads, n, n)
    ctx, q, y = theory_dataset(T, n, d, d_o=d_o, seed=seed)
    built = construct(ctx, q, y - q[:, :d_o], heads, n, seed=seed)
    with torch.no_grad():
        out = built.model(ctx, q) + q[:, :d_o]
    return {"T": T, "max_abs_error": float((out - y).abs().max())}


def positional_rank_check(*, n: int = 197, d: int = 768, trials: int = 5,
                          seed: int = 0) -> dict[str, float | int]:
    """Sec. 4.4's argument for Assumption 2 (Mahdavi et al., ICLR 2024): "the positional encoding
    matrix is full rank".

    In exact arithmetic the sinusoidal encoding of ``n <= d`` positions has rank ``n`` (a
    Vandermonde argument on ``exp(i omega_j p)``, ours). Numerically, with the tolerance of
    ``torch.linalg.matrix_rank`` (the one the paper's notebooks use), its rank is far lower at the
    ViT geometry, because the low frequencies make many columns nearly polynomial in the
    position. Returned: that rank, the smallest relative singular value, the rank of a context of
    one repeated token plus the encoding, and how many contexts of random tokens plus the
    encoding have rank ``n``.
    """
    pe = sinusoidal_encoding(n, d)
    s = torch.linalg.svdvals(pe)
    g = torch.Generator().manual_seed(seed)
    same = torch.randn(d, generator=g, dtype=torch.float64).expand(n, d) + pe
    full = sum(int(torch.linalg.matrix_rank(torch.randn(n, d, generator=g, dtype=torch.float64)
                                            + pe)) == n for _ in range(trials))
    return {"n": n, "d": d, "pe_rank": int(torch.linalg.matrix_rank(pe)),
            "pe_smallest_relative_sv": float(s[-1] / s[0]),
            "repeated_token_rank": int(torch.linalg.matrix_rank(same)),
            "random_full_rank": int(full), "trials": trials}
