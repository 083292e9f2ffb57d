"""The constructive proof of Mahdavi, Liao & Thrampoulidis (ICLR 2024), computed in float64.

Theorem 1 (our notes' [summary + reconstruction]) / Proposition 1: under Assumption 1 (the
queries have Kruskal rank >= n), Assumption 2 (every context has rank n) and ``n < d``, an
``H``-head attention layer memorizes ``T = H (min(n, d_h) - 1) + 1`` examples. The input check of
:func:`construct` rejects only ``n > d`` (where no context can have rank ``n``) and so accepts
``n = d``, outside the theorem's ``n < d`` as our notes give it (ours). :func:`construct` builds
the weights of the proof (App. B, as reconstructed in the reproduction notes, [reconstruction])
with ``n' = min(n, d_h)``:

1. Head 1 fits the first ``n'`` examples (Claim 1): target attentions ``alpha^(t)`` in the open
   simplex are chosen so that the rows ``p^(t) = E^(t)T alpha^(t)`` are independent; the logits
   ``log alpha^(t)`` are realised by ``W e^(t) = E^(t)+ log alpha^(t)``, i.e. ``W = U Q^+`` of
   rank ``n'``.
2. Head ``h >= 2`` fits the next ``n' - 1`` examples ``S`` (Claim 2) with
   ``W_h = W_fit + c W0``, where ``W0 = g b^T`` is rank one with ``b`` orthogonal to the queries of
   ``S`` (Lemma 3): ``W0`` leaves the examples of ``S`` untouched and, as ``c`` grows, saturates
   the attention of every other example to a one-hot vector (Lemma 4). The ``alpha`` of ``S`` are
   chosen so that the limit matrix ``Z`` (one-hot rows outside ``S``) gains rank ``n' - 1``; a
   finite ``c`` is then chosen by Weyl's bound (Lemma 5): the distance between ``Z(c)`` and its
   limit must be below half the limit's smallest singular value.
3. The read-out solves ``Z W* = Y`` (``Z`` has full row rank) and is laid out as
   ``W_{V_h} = W*_h``, ``W_O`` summing the heads into the first ``d_o`` coordinates and
   ``W_D = [I_{d_o}; 0]`` (needs ``d_o <= d``).

What the code does beside what the proof does (ours; :func:`memnb.figures.mahdavi.proof_vs_code`
tabulates it with the numbers measured on a given instance, and the chapter shows that table):

* target attentions ``alpha``. Proof: chosen example by example so that each new row of ``Z``
  leaves the span of the previous ones (an existence argument, by Assumption 2). Code: ``tries``
  random draws (softmax of Gaussian logits) of all of a head's ``alpha`` at once; the draw with
  the largest smallest singular value of the new rows is kept.
* examples of each head. Proof: reorder so that the first rows are independent and row-reduce
  the old heads' ``S``-block to zero. Code: consecutive blocks in index order; the rank of the
  limit matrix ``[old heads | new head]`` is checked directly (the row reduction keeps it).
* saturation scale ``c``. Proof: some finite ``c`` exists (Lemma 4, App. B.2); no value.
  Code: ``c`` doubled from 1 until ``||Z(c) - Z_limit||_2 < sigma / 2``, ``sigma`` the limit's
  smallest singular value (our stopping rule: half of Weyl's margin, within which ``Z(c)`` keeps
  full rank; checked numerically).
* key/query factors. Proof: ``W`` of rank ``<= n'`` factored into ``W_K W_Q^T``. Code:
  ``W_K = [U, c g]``, ``W_Q = [Q^+, b]`` written down directly, ``Q`` the ``m x d`` matrix of the
  head's queries as rows (so ``Q W_Q`` starts with ``I_m``).
* read-out. Proof: any solution of ``Z W* = Y``. Code: minimum-norm least squares in float64,
  numerical ranks with a relative tolerance of 1e-10.

Besides the construction the module gives the pieces the paper's other rank statements need:
random-weight ranks of ``Z`` (Proposition 2, shared context: ``rank Z <= H(n-1)+1`` for all
weights; Proposition 5, tokens summing to a constant: ``rank Z <= H(d-1)+1``) and the output
Jacobian of a two-layer ReLU network (Proposition 3, :func:`relu_network_jacobian_rank`). The
checks of every numbered statement, built from these, are in
:mod:`memnb.constructions.mha_checks`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from memnb.bounds import mahdavi_capacity
from memnb.models.multi_head import MultiHeadAttention
from memnb.validation import check_int

__all__ = [
    "REL_TOL",
    "Construction",
    "construct",
    "memorize",
    "random_weight_ranks",
    "relu_network_jacobian_rank",
    "z_matrix",
]

#: Relative tolerance of a numerical rank: a singular value counts when it exceeds
#: ``REL_TOL`` times the largest one.
REL_TOL = 1e-10


@dataclass
class Construction:
    """The constructed model and a record of the proof's steps.

    ``heads_examples[h]`` lists the examples fitted by head ``h``; ``rank_after_head[h]`` is the
    rank of ``Z`` restricted to the examples fitted so far and to heads ``1..h`` (it grows by
    ``n' - 1`` per head); ``c_per_head[h]`` is the saturation scale (0 for head 1); ``z_rank`` the
    rank of the final ``Z``; ``max_abs_error`` the largest ``|model(E, e) - y|``.
    """

    model: MultiHeadAttention
    n_prime: int
    heads_examples: list[list[int]]
    rank_after_head: list[int]
    c_per_head: list[float]
    z_rank: int
    max_abs_error: float
    weight_ranks: list[int] = field(default_factory=list)
    #: per head: random draws of target attentions tried, and how many of them gave full rank
    draws_tried: list[int] = field(default_factory=list)
    draws_full_rank: list[int] = field(default_factory=list)
    #: per head: smallest singular value of the limit rows at the chosen draw (Weyl's margin)
    sigma_per_head: list[float] = field(default_factory=list)
    #: per head: doublings of c, and the distance ||Z(c) - Z_limit||_2 at the c reached
    doublings_per_head: list[int] = field(default_factory=list)
    perturbation_per_head: list[float] = field(default_factory=list)
    #: per head: the same margin at the first random draw (what the search improves on)
    sigma_first_draw: list[float] = field(default_factory=list)
    tries: int = 0


def _numerical_rank(matrix: torch.Tensor, rel_tol: float = REL_TOL) -> int:
    if matrix.numel() == 0:
        return 0
    s = torch.linalg.svdvals(matrix)
    return int((s > rel_tol * max(float(s[0]), 1e-300)).sum())


def _check_inputs(contexts: torch.Tensor, queries: torch.Tensor, labels: torch.Tensor,
                  num_heads: int, d_h: int) -> tuple[int, int, int, int]:
    for name, t in (("contexts", contexts), ("queries", queries), ("labels", labels)):
        if not isinstance(t, torch.Tensor) or t.dtype != torch.float64:
            raise ValueError(f"{name} must be a float64 torch.Tensor")
    if contexts.ndim != 3:
        raise ValueError(f"contexts must be [T, n, d], got shape {tuple(contexts.shape)}")
    T, n, d = contexts.shape
    if queries.shape != (T, d):
        raise ValueError(f"queries must be [T={T}, d={d}], got {tuple(queries.shape)}")
    if labels.ndim != 2 or labels.shape[0] != T:
        raise ValueError(f"labels must be [T={T}, d_o], got {tuple(labels.shape)}")
    d_o = labels.shape[1]
    if not 1 <= d_o <= d:
        raise ValueError(f"labels must have 1 <= d_o <= d = {d} columns, got {d_o}")
    num_heads, d_h = check_int("num_heads", num_heads, 1), check_int("d_h", d_h, 1)
    if T < 1:
        raise ValueError("need at least one example (T >= 1)")
    cap = mahdavi_capacity(num_heads, n, d_h)
    if T > cap:
        raise ValueError(
            f"too many examples: T = {T} exceeds the capacity H(min(n, d_h) - 1) + 1 = {cap} "
            f"for H = {num_heads}, n = {n}, d_h = {d_h}")
    if n > d:
        raise ValueError(f"Assumption 2 needs n <= d (a context of rank n); got n = {n} > d = {d}")
    ranks = torch.linalg.matrix_rank(contexts)
    bad = torch.nonzero(ranks < n).flatten()
    if bad.numel():
        t = int(bad[0])
        raise ValueError(
            f"Assumption 2 violated: context {t} has rank {int(ranks[t])} < n = {n} "
            f"({bad.numel()} context(s) not of rank n)")
    return T, n, d, d_o


def _kruskal_failure(queries: torch.Tensor, subset: Sequence[int], others: Sequence[int]
                     ) -> str | None:
    """Why the queries fail the independence that Assumption 1 guarantees for this step."""
    q_s = queries[list(subset)].T  # [d, m]
    if _numerical_rank(q_s, 1e-9) < len(subset):
        return (f"queries {list(subset)} are linearly dependent, so the queries' Kruskal rank "
                f"is below {len(subset)}")
    if not others:
        return None
    basis, _ = torch.linalg.qr(q_s)
    rest = queries[list(others)]
    resid = rest - (rest @ basis) @ basis.T
    rel = resid.norm(dim=1) / rest.norm(dim=1).clamp_min(1e-300)
    bad = torch.nonzero(rel < 1e-9).flatten()
    if bad.numel():
        t = others[int(bad[0])]
        return (f"query {t} lies in the span of queries {list(subset)}, so the queries' Kruskal "
                f"rank is below {len(subset) + 1}")
    return None


def _fit_logits(contexts: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    """``u^(t) = E^(t)+ l^(t)`` (Claim 1): ``E^(t) u^(t) = l^(t)``, ``[m, d]``."""
    return torch.linalg.pinv(contexts) @ logits[..., None]


def _head_outputs(W_K: torch.Tensor, W_Q: torch.Tensor, contexts: torch.Tensor,
                  queries: torch.Tensor) -> torch.Tensor:
    """``p`` of one head with key/query factors ``[d, r]``, for all examples: ``[T, d]``."""
    logits = torch.einsum("tnd,dr,tr->tn", contexts, W_K, queries @ W_Q)
    return torch.einsum("tn,tnd->td", torch.softmax(logits, dim=-1), contexts)


def construct(contexts: torch.Tensor, queries: torch.Tensor, labels: torch.Tensor,
              num_heads: int, d_h: int, *, seed: int = 0, tries: int = 20,
              tol: float = 1e-6) -> Construction:
    """Build the weights of Theorem 1's proof (Mahdavi et al., ICLR 2024, Prop. 1, App. B, as our
    notes reconstruct it, [reconstruction]); see the module docstring. Float64 throughout.

    Raises ``ValueError`` naming the violated condition: too many examples
    (``T > H(min(n, d_h)-1)+1``), a context not of rank ``n`` (Assumption 2), or queries failing
    the Kruskal-rank condition (Assumption 1, checked on exactly the subsets the proof uses).
    """
    T, n, d, d_o = _check_inputs(contexts, queries, labels, num_heads, d_h)
    num_heads, d_h, tries = (check_int("num_heads", num_heads, 1), check_int("d_h", d_h, 1),
                             check_int("tries", tries, 1))
    if not (isinstance(tol, numbers.Real) and math.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a finite number > 0, got {tol!r}")
    n_prime = min(n, d_h)
    rng = np.random.default_rng(seed)

    def randn(*shape: int) -> torch.Tensor:
        return torch.from_numpy(rng.standard_normal(shape))

    # which examples each head fits
    first = list(range(min(n_prime, T)))
    heads_examples = [first]
    start = len(first)
    while start < T:
        heads_examples.append(list(range(start, min(start + n_prime - 1, T))))
        start = heads_examples[-1][-1] + 1

    W_K = torch.zeros(num_heads, d, d_h, dtype=torch.float64)
    W_Q = torch.zeros(num_heads, d, d_h, dtype=torch.float64)
    p_heads: list[torch.Tensor] = []  # each [T, d]
    rank_after_head: list[int] = []
    c_per_head: list[float] = []
    weight_ranks: list[int] = []
    draws_full: list[int] = []
    sigmas: list[float] = []
    sigmas_first: list[float] = []
    doublings: list[int] = []
    perturbations: list[float] = []

    for h, subset in enumerate(heads_examples):
        seen = [t for s in heads_examples[:h] for t in s]
        others = [t for t in range(T) if t not in subset]
        reason = _kruskal_failure(queries, subset, others if h > 0 else [])
        if reason is not None:
            raise ValueError(f"Assumption 1 violated: {reason}")
        q_pinv_t = torch.linalg.pinv(queries[subset].T).T  # [d, m]: W_Q^T e^(t) = unit vector
        old = torch.cat(p_heads, dim=1) if p_heads else torch.zeros(T, 0, dtype=torch.float64)
        rows = seen + subset
        if h > 0:
            b = randn(d)
            basis, _ = torch.linalg.qr(queries[subset].T)
            b = b - basis @ (basis.T @ b)
            b = b / b.norm()
            g = randn(d)
            direction = torch.einsum("tnd,d->tn", contexts, g) * (queries @ b)[:, None]
            top = torch.nn.functional.one_hot(direction.argmax(dim=1), n).to(torch.float64)
            p_limit_other = torch.einsum("tn,tnd->td", top, contexts)
        best = None
        full_rank = 0
        for _ in range(tries):
            alpha_logits = randn(len(subset), n)
            alpha = torch.softmax(alpha_logits, dim=1)
            p_subset = torch.einsum("tn,tnd->td", alpha, contexts[subset])
            if h == 0:
                limit = p_subset
            else:
                new_col = p_limit_other.clone()
                new_col[subset] = p_subset
                limit = torch.cat([old, new_col], dim=1)[rows]
            s = torch.linalg.svdvals(limit)
            sigma = float(s[len(rows) - 1]) if len(s) >= len(rows) else 0.0
            full_rank += int(sigma > REL_TOL * float(s[0]))
            if best is None:
                sigmas_first.append(sigma)
            if best is None or sigma > best[0]:
                best = (sigma, alpha_logits, limit)
        assert best is not None
        sigma, alpha_logits, limit = best
        s_max = float(torch.linalg.svdvals(limit)[0])
        if sigma <= REL_TOL * s_max:
            raise RuntimeError(f"head {h + 1}: no choice of attention gave rank {len(rows)} "
                               "(numerically degenerate data)")
        u = _fit_logits(contexts[subset], alpha_logits)[..., 0]  # [m, d]
        k_cols, q_cols = u.T, q_pinv_t  # [d, m] each
        c, steps, gap = 0.0, 0, 0.0
        if h > 0:
            c = 1.0
            for steps in range(2000):  # noqa: B007 - the count is recorded
                k_try = torch.cat([k_cols, c * g[:, None]], dim=1)
                q_try = torch.cat([q_cols, b[:, None]], dim=1)
                p_new = _head_outputs(k_try, q_try, contexts, queries)
                actual = torch.cat([old, p_new], dim=1)[rows]
                gap = float(torch.linalg.matrix_norm(actual - limit, ord=2))
                if gap < sigma / 2:
                    break
                c *= 2.0
            k_cols, q_cols = k_try, q_try
        draws_full.append(full_rank)
        sigmas.append(sigma)
        doublings.append(steps)
        perturbations.append(gap)
        W_K[h, :, : k_cols.shape[1]] = k_cols
        W_Q[h, :, : q_cols.shape[1]] = q_cols
        p_heads.append(_head_outputs(k_cols, q_cols, contexts, queries))
        c_per_head.append(c)
        weight_ranks.append(_numerical_rank(k_cols @ q_cols.T, 1e-12))
        z_sofar = torch.cat(p_heads, dim=1)[rows]
        rank_after_head.append(_numerical_rank(z_sofar))

    # unused heads keep W_K = W_Q = 0 (uniform attention); they join Z all the same
    for h in range(len(heads_examples), num_heads):
        p_heads.append(_head_outputs(W_K[h], W_Q[h], contexts, queries))
    Z = torch.cat(p_heads, dim=1)  # [T, H d]
    z_rank = _numerical_rank(Z)
    if z_rank < T:
        raise RuntimeError(f"the constructed Z has rank {z_rank} < T = {T}")
    w_star = torch.linalg.lstsq(Z, labels, driver="gelsd").solution  # [H d, d_o]
    W_V = w_star.reshape(num_heads, d, d_o)
    eye = torch.eye(d_o, d, dtype=torch.float64)
    W_O = eye.expand(num_heads, d_o, d).clone()
    W_D = eye.T.clone()
    model = MultiHeadAttention.from_weights(W_K=W_K, W_Q=W_Q, W_V=W_V, W_O=W_O, W_D=W_D)
    with torch.no_grad():
        err = float((model(contexts, queries) - labels).abs().max())
    if not err <= tol:
        raise RuntimeError(f"the constructed model misses the labels by {err:.3g} > tol = {tol}")
    return Construction(model, n_prime, heads_examples, rank_after_head, c_per_head, z_rank,
                        err, weight_ranks, [tries] * len(heads_examples), draws_full, sigmas,
                        doublings, perturbations, sigmas_first, tries)


def memorize(contexts: torch.Tensor, queries: torch.Tensor, labels: torch.Tensor,
             num_heads: int, d_h: int, *, seed: int = 0) -> MultiHeadAttention:
    """A ``MultiHeadAttention`` (paper convention, float64) with ``model(contexts, queries) ==
    labels`` up to 1e-6, built by the proof of Theorem 1 / Proposition 1 of Mahdavi et al.
    (ICLR 2024) as :func:`construct` reconstructs it ([reconstruction])."""
    return construct(contexts, queries, labels, num_heads, d_h, seed=seed).model


def z_matrix(model: MultiHeadAttention, contexts: torch.Tensor, queries: torch.Tensor
             ) -> torch.Tensor:
    """``Z`` of eq. (7) of Mahdavi et al. (ICLR 2024): rows ``[p_1; ...; p_H]`` for every
    example, ``[T, H d]``."""
    with torch.no_grad():
        return model.features(contexts, queries)


def random_weight_ranks(contexts: torch.Tensor, queries: torch.Tensor, num_heads: int,
                        d_h: int, *, draws: int = 20, scales: Sequence[float] = (0.1, 1.0, 10.0,
                                                                                  100.0),
                        seed: int = 0) -> list[dict]:
    """``rank Z`` for many random weight choices (the "for any weights" of Propositions 2 and 5
    of Mahdavi et al., ICLR 2024).

    For each scale and draw, ``W_K, W_Q`` have i.i.d. ``N(0, scale^2/d)`` entries (large scales
    saturate the softmax); returns rows ``{"scale", "draw", "rank"}``.
    """
    draws = check_int("draws", draws, 1)
    num_heads, d_h = check_int("num_heads", num_heads, 1), check_int("d_h", d_h, 1)
    T, n, d = contexts.shape
    g = torch.Generator().manual_seed(seed)
    out = []
    for scale in scales:
        for draw in range(draws):
            shape = (num_heads, d, d_h)
            w_k = torch.randn(shape, generator=g, dtype=torch.float64) * scale / math.sqrt(d)
            w_q = torch.randn(shape, generator=g, dtype=torch.float64) * scale / math.sqrt(d)
            p = [_head_outputs(w_k[h], w_q[h], contexts, queries) for h in range(num_heads)]
            rank = _numerical_rank(torch.cat(p, dim=1), 1e-9)
            out.append({"scale": float(scale), "draw": draw, "rank": rank})
    return out


def relu_network_jacobian_rank(contexts: torch.Tensor, queries: torch.Tensor, width: int, *,
                               seed: int = 0) -> tuple[int, int]:
    """Proposition 3's comparison (Mahdavi et al., ICLR 2024, App. F) [reconstruction]: a
    two-layer ReLU network of ``width`` units on the flattened input ``[vec E; e]``.

    Returns (rank of the Jacobian of its ``T`` outputs with respect to all parameters at a random
    point, number of parameters). With a shared context the network sees only ``e``, so the rank
    is at most ``width (d + 2) + 1`` however many parameters it has: it cannot interpolate more
    than that many generic labels, while the attention layer memorizes ``H(n-1)+1``.
    """
    width = check_int("width", width, 1)
    T, n, d = contexts.shape
    x = torch.cat([contexts.reshape(T, n * d), queries], dim=1)
    g = torch.Generator().manual_seed(seed)
    w1 = torch.randn(width, x.shape[1], generator=g, dtype=torch.float64) / math.sqrt(x.shape[1])
    b1 = torch.randn(width, generator=g, dtype=torch.float64) * 0.1
    w2 = torch.randn(width, generator=g, dtype=torch.float64) / math.sqrt(width)
    b2 = torch.zeros(1, dtype=torch.float64)

    def net(w1: torch.Tensor, b1: torch.Tensor, w2: torch.Tensor, b2: torch.Tensor
            ) -> torch.Tensor:
        return torch.relu(x @ w1.T + b1) @ w2 + b2

    jac = torch.autograd.functional.jacobian(net, (w1, b1, w2, b2))
    flat = torch.cat([j.reshape(T, -1) for j in jac], dim=1)
    params = w1.numel() + b1.numel() + w2.numel() + b2.numel()
    return _numerical_rank(flat, 1e-9), params
