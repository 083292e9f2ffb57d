"""The data assumptions of Mahdavi, Liao & Thrampoulidis (ICLR 2024), tested on any representation.

A representation is a set of ``T`` examples, each a context ``E^(t) in R^{n x d}`` whose row
``query_index`` is the query ``e^(t)`` (the [CLS] token of a ViT or BERT; the last token of GPT-2).

* Assumption 2: every context has rank ``n`` (:func:`context_ranks`).
* Assumption 1: the queries have Kruskal rank ``>= n``; General Position: Kruskal rank
  ``min(T, d)``. The Kruskal rank (largest ``k`` such that *every* ``k`` vectors are independent)
  is combinatorial, so, as the paper's notebooks do, it is tested by drawing ``k`` random queries
  ``R`` times and reporting the fraction of draws of rank ``k`` (:func:`kruskal_test`). A draw
  that fails proves the Kruskal rank is below ``k``; passing draws are only evidence, so
  :func:`estimate_kruskal_rank` is an *upper* estimate. :func:`kruskal_rank_exact` enumerates
  every subset for small sets. Two ways of computing the same ranks faster are ours:
  ``kruskal_test(method="gram")`` (eigenvalues of the draw's Gram matrix instead of an SVD) and
  ``pass_fraction_curve(method="prefix")`` (Figure 1 from the prefixes of random permutations,
  one QR a permutation); both decide rank as ``torch.linalg.matrix_rank`` does.
* Assumption 3: ``e^(t) + (1/n) sum_i E_i^(t)`` has Kruskal rank ``>= n`` (:func:`shifted_queries`;
  the mean is over all ``n`` tokens, query included, as in the paper's notebook).
* Proposition 4: one uniform self-attention layer with a skip connection maps data satisfying
  Assumptions 2-3 to data satisfying Assumptions 1-2 (:func:`uniform_attention_skip`).

The pass threshold used to call an assumption satisfied (0.99 by default) is ours: the paper
reports fractions, and its threshold is not stated in the text we have [reconstruction].
"""

from __future__ import annotations

import bisect
import itertools
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import pandas as pd
import torch
from torch import Tensor

__all__ = [
    "CURVE_METHODS",
    "RANK_METHODS",
    "KruskalTest",
    "RepresentationSummary",
    "assumption_table",
    "conclusive",
    "context_ranks",
    "estimate_kruskal_rank",
    "kruskal_rank_exact",
    "kruskal_test",
    "merge_summaries",
    "pass_fraction_curve",
    "shifted_queries",
    "summarize",
    "uniform_attention_skip",
]

DEFAULT_THRESHOLD = 0.99


def _check_vectors(vectors: Tensor) -> Tensor:
    if not isinstance(vectors, Tensor) or vectors.ndim != 2 or not vectors.is_floating_point():
        raise ValueError("vectors must be a floating-point tensor of shape [T, d]")
    return vectors


def _check_contexts(contexts: Tensor) -> Tensor:
    if not isinstance(contexts, Tensor) or contexts.ndim != 3 or not contexts.is_floating_point():
        raise ValueError("contexts must be a floating-point tensor of shape [T, n, d]")
    return contexts


def context_ranks(contexts: Tensor, *, batch_size: int = 64) -> Tensor:
    """``rank E^(t)`` of every context (Mahdavi et al., ICLR 2024, Assumption 2), ``LongTensor[T]``.

    Computed in the data's own dtype with ``torch.linalg.matrix_rank``'s default tolerance
    (``sigma_max * max(n, d) * eps``), as in the paper's notebooks.
    """
    _check_contexts(contexts)
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    out = [torch.linalg.matrix_rank(contexts[i:i + batch_size])
           for i in range(0, contexts.shape[0], batch_size)]
    return torch.cat(out) if out else torch.zeros(0, dtype=torch.long)


@dataclass(frozen=True)
class KruskalTest:
    """Result of a random-subset Kruskal-rank test at size ``k``."""

    k: int
    repeats: int
    passes: int
    min_rank: int
    max_rank: int

    @property
    def pass_fraction(self) -> float:
        """Fraction of the ``repeats`` draws whose ``k`` vectors had rank ``k``."""
        return self.passes / self.repeats


RANK_METHODS = ("svd", "gram")


def _gram_applies(vectors: Tensor, k: int) -> bool:
    """Whether :func:`kruskal_test`'s ``gram`` route decides as the SVD does: ``k <= d`` and a
    tolerance ``(max(k, d) eps)^2`` far above float64 rounding of the Gram eigenvalues."""
    d = vectors.shape[1]
    f = max(k, d) * torch.finfo(vectors.dtype).eps
    return k <= d and f * f >= 1e4 * k * torch.finfo(torch.float64).eps


def kruskal_test(vectors: Tensor, k: int, *, repeats: int, seed: int = 0,
                 chunk: int = 16, method: str = "svd") -> KruskalTest:
    """Draw ``k`` of the ``T`` vectors (without replacement) ``repeats`` times; count full rank.

    The test of Mahdavi et al. (ICLR 2024) for Assumption 1 (``k = n``) and General Position
    (``k = d``), Table 1 (and Table 3, App. J).
    The rank of a draw is ``torch.linalg.matrix_rank``'s: the number of singular values above
    ``sigma_max * max(k, d) * eps`` (``eps`` of the vectors' dtype).

    ``method="svd"`` computes it as ``matrix_rank`` does (one SVD of the ``k x d`` draw).
    ``method="gram"`` (ours) reads the draw's ``k x k`` Gram matrix off the float64 Gram matrix
    of all ``T`` vectors (computed once) and counts its eigenvalues above
    ``(max(k, d) eps sigma_max)^2``: the same count, since ``sigma_i^2`` are those eigenvalues,
    and cheaper (a symmetric eigenvalue problem of size ``k`` instead of an SVD of ``k x d``).
    Squaring is safe only where the tolerance stays far above float64 rounding: for float32
    (or float16) vectors and ``k <= d``; elsewhere ``gram`` falls back to ``svd``. Both methods
    draw the same subsets for the same seed.
    """
    _check_vectors(vectors)
    T = vectors.shape[0]
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= T:
        raise ValueError(f"k must be an int in 1..T = {T}, got {k!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be an int >= 1, got {chunk!r}")
    if method not in RANK_METHODS:
        raise ValueError(f"method must be one of {RANK_METHODS}, got {method!r}")
    gram = None
    if method == "gram" and _gram_applies(vectors, k):
        data = vectors.to(torch.float64)
        gram = data @ data.T
        f2 = (max(k, vectors.shape[1]) * torch.finfo(vectors.dtype).eps) ** 2
    g = torch.Generator().manual_seed(seed)
    ranks = []
    for start in range(0, repeats, chunk):
        count = min(chunk, repeats - start)
        idx = torch.stack([torch.randperm(T, generator=g)[:k] for _ in range(count)])
        if gram is None:
            ranks.append(torch.linalg.matrix_rank(vectors[idx]))
        else:
            eig = torch.linalg.eigvalsh(gram[idx[:, :, None], idx[:, None, :]])
            ranks.append((eig > f2 * eig[:, -1:]).sum(dim=1))
    all_ranks = torch.cat(ranks)
    return KruskalTest(k, repeats, int((all_ranks == k).sum()), int(all_ranks.min()),
                       int(all_ranks.max()))


def kruskal_rank_exact(vectors: Tensor, *, max_subsets: int = 200_000) -> int:
    """The Kruskal rank by enumerating every subset (small sets only)."""
    _check_vectors(vectors)
    T = vectors.shape[0]
    best = 0
    checked = 0
    for k in range(1, min(T, vectors.shape[1]) + 1):
        for subset in itertools.combinations(range(T), k):
            checked += 1
            if checked > max_subsets:
                raise ValueError(f"more than max_subsets = {max_subsets} subsets to enumerate; "
                                 "use kruskal_test / estimate_kruskal_rank")
            if int(torch.linalg.matrix_rank(vectors[list(subset)])) < k:
                return best
        best = k
    return best


def estimate_kruskal_rank(vectors: Tensor, *, repeats: int, threshold: float = 1.0,
                          seed: int = 0) -> int:
    """Largest ``k`` whose random-subset pass fraction is ``>= threshold`` (bisection on ``k``).

    An upper estimate of the Kruskal rank (a subset that was not drawn may be dependent); with
    ``threshold < 1`` it is the "estimated Kruskal rank" of Mahdavi et al. (ICLR 2024), App. J.
    """
    _check_vectors(vectors)
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    lo, hi = 0, min(vectors.shape)

    def ok(k: int) -> bool:
        return kruskal_test(vectors, k, repeats=repeats, seed=seed + k).pass_fraction >= threshold

    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


CURVE_METHODS = ("prefix", "subsets")


def _check_ks(ks: Sequence[int], T: int) -> list[int]:
    try:
        values = sorted(set(int(k) for k in ks))
    except (TypeError, ValueError) as err:
        raise ValueError(f"ks must be a sequence of ints in 1..T = {T}, got {ks!r}") from err
    if not values or values[0] < 1 or values[-1] > T:
        raise ValueError(f"ks must be a non-empty sequence of ints in 1..T = {T}, got {ks!r}")
    return values


def _full_rank(R: Tensor, k: int, factor: float) -> bool:
    """Whether the leading ``k x k`` block of the triangular ``R`` has full numerical rank:
    ``sigma_min > factor * sigma_max`` (``matrix_rank``'s test)."""
    s = torch.linalg.svdvals(R[:k, :k])
    return bool(s[-1] > factor * s[0])


def _monotone_search(n: int, guess: int, passes: Callable[[int], bool]) -> int:
    """The number of leading indices of ``0..n-1`` that pass, for a test that passes on a
    prefix of the indices only: doubling steps away from ``guess``, then bisection."""
    lo, hi = 0, n  # indices < lo pass, indices >= hi fail
    if n == 0:
        return 0
    g = min(max(guess, 0), n - 1)
    step = 1
    if passes(g):
        lo = g + 1
        while lo < hi:
            m = min(hi - 1, lo - 1 + step)
            if not passes(m):
                hi = m
                break
            lo, step = m + 1, 2 * step
    else:
        hi = g
        while lo < hi:
            m = max(lo, hi - step)
            if passes(m):
                lo = m + 1
                break
            hi, step = m, 2 * step
    while lo < hi:
        m = (lo + hi) // 2
        if passes(m):
            lo = m + 1
        else:
            hi = m
    return lo


def _prefix_curve_passes(vectors: Tensor, ks: list[int], *, repeats: int, seed: int,
                         chunk: int) -> list[int]:
    """For each ``k`` of ``ks``, how many of ``repeats`` random permutations have a full-rank
    prefix of length ``k`` (decided as ``torch.linalg.matrix_rank`` decides it)."""
    T, d = vectors.shape
    eps = torch.finfo(vectors.dtype).eps
    factor = d * eps  # matrix_rank's rtol = max(k, d) * eps, and max(k, d) = d for k <= d
    cands = [k for k in ks if k <= d]  # a prefix longer than d has rank <= d < k: fails
    passes = [0] * len(ks)
    if not cands:
        return passes
    where = {k: i for i, k in enumerate(ks)}
    K = cands[-1]
    data = vectors.to(torch.float64)
    norms = torch.linalg.vector_norm(data, dim=1)
    g = torch.Generator().manual_seed(seed)
    longest: list[int] = []
    for start in range(0, repeats, chunk):
        count = min(chunk, repeats - start)
        perms = torch.stack([torch.randperm(T, generator=g)[:K] for _ in range(count)])
        R = torch.linalg.qr(data[perms].transpose(1, 2), mode="r").R  # [count, min(d, K), K]
        diag = R.diagonal(dim1=-2, dim2=-1).abs()
        # certain failure: sigma_min(R_k) <= min_i |R_ii| and sigma_max(R_k) >= the largest
        # column norm among the first k vectors
        low = diag.cummin(dim=1).values <= factor * norms[perms].cummax(dim=1).values
        for b in range(count):
            failing = torch.nonzero(low[b]).flatten()
            limit = int(failing[0]) + 1 if failing.numel() else K + 1  # first certain failure
            pool = [k for k in cands if k < limit]
            # full rank of the prefix is monotone in k (interlacing: sigma_min can only fall,
            # sigma_max only rise as columns are added): search for the longest passing prefix
            # from the previous permutations' median, in doubling steps, then by bisection
            guess = bisect.bisect_right(pool, statistics.median_low(longest)) - 1 if longest \
                else len(pool) - 1
            lo = _monotone_search(len(pool), guess,
                                  lambda i, R_b=R[b], pool=pool: _full_rank(R_b, pool[i], factor))
            longest.append(pool[lo - 1] if lo else 0)
            for k in pool[:lo]:
                passes[where[k]] += 1
    return passes


def pass_fraction_curve(vectors: Tensor, ks: Sequence[int], *, repeats: int, seed: int = 0,
                        method: str = "prefix", chunk: int = 16) -> pd.DataFrame:
    """Pass fraction against ``k`` (Mahdavi et al., ICLR 2024, Figure 1): the fraction of random
    ``k``-subsets of the ``T`` vectors that have rank ``k``.

    Columns ``k``, ``pass_fraction``, ``min_rank``, ``max_rank``, ``repeats``, ``method``.

    * ``method="subsets"`` runs :func:`kruskal_test` at every ``k`` (independent draws, seed
      ``seed + k``): one SVD per draw and ``k``, and ``min_rank``/``max_rank`` of the draws.
    * ``method="prefix"`` (ours, the default) draws ``repeats`` random permutations and tests
      every prefix of each: the first ``k`` entries of a uniformly random permutation are a
      uniformly random ``k``-subset, so the pass fraction at each ``k`` is an unbiased estimate
      of the same probability. The estimates at different ``k`` are correlated (they share the
      permutations), and the curve is non-increasing in ``k`` by construction. One unpivoted QR
      (in float64) of the ``d x K`` matrix of a permutation's first ``K = max k`` vectors gives
      every prefix: the prefix of length ``k`` has the singular values of the leading ``k x k``
      block ``R_k``. Its decision is ``torch.linalg.matrix_rank``'s, with its default tolerance
      in the vectors' dtype: full rank iff ``sigma_min(R_k) > max(k, d) * eps * sigma_max(R_k)``.
      That test is monotone in ``k`` (interlacing), so a search over ``ks`` (from the
      longest passing prefix of the permutations before, in doubling steps, then bisection)
      needs about two SVDs of ``R_k`` a permutation where that guess is close,
      ``2 log2(len(ks))`` at most;
      ``k`` where some ``|R_ii|`` (the distance of ``v_i`` to the span of the vectors before
      it, an upper bound on ``sigma_min(R_k)``) is below the tolerance computed with the
      largest column norm (a lower bound on ``sigma_max``) fail without an SVD.
      ``min_rank`` and ``max_rank`` are not computed (missing).

    Decisions can differ from ``matrix_rank`` on the same subset only where ``sigma_min`` is
    within the float rounding of ``matrix_rank``'s own SVD of the tolerance.
    """
    _check_vectors(vectors)
    T = vectors.shape[0]
    if method not in CURVE_METHODS:
        raise ValueError(f"method must be one of {CURVE_METHODS}, got {method!r}")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be an int >= 1, got {chunk!r}")
    values = _check_ks(ks, T)
    rows = []
    if method == "subsets":
        for k in values:
            res = kruskal_test(vectors, k, repeats=repeats, seed=seed + k)
            rows.append({"k": k, "pass_fraction": res.pass_fraction, "min_rank": res.min_rank,
                         "max_rank": res.max_rank, "repeats": repeats, "method": method})
    else:
        passes = _prefix_curve_passes(vectors, values, repeats=repeats, seed=seed, chunk=chunk)
        rows = [{"k": k, "pass_fraction": p / repeats, "min_rank": None, "max_rank": None,
                 "repeats": repeats, "method": method} for k, p in zip(values, passes, strict=True)]
    return pd.DataFrame(rows)


def shifted_queries(contexts: Tensor, queries: Tensor) -> Tensor:
    """``e^(t) + (1/n) sum_i E_i^(t)`` (Mahdavi et al., ICLR 2024, Assumption 3), ``[T, d]``."""
    _check_contexts(contexts)
    _check_vectors(queries)
    if queries.shape != (contexts.shape[0], contexts.shape[2]):
        raise ValueError(f"queries must be [T, d] = {(contexts.shape[0], contexts.shape[2])}, "
                         f"got {tuple(queries.shape)}")
    return queries + contexts.mean(dim=1)


def uniform_attention_skip(contexts: Tensor, queries: Tensor) -> tuple[Tensor, Tensor]:
    """Proposition 4's layer: uniform self-attention (``W_K W_Q^T = 0``), ``W_V W_O = I``, skip.

    Mahdavi et al. (ICLR 2024), Sec. 4.4 and App. G (eqs. 30-31), in closed form. Every token
    ``x`` becomes ``x + mean(E)``: returns ``(E + 1 mean(E)^T, e + mean(E))``.
    """
    shifted = shifted_queries(contexts, queries)
    return contexts + contexts.mean(dim=1, keepdim=True), shifted


@dataclass
class RepresentationSummary:
    """What the assumption checks need from a representation, kept small: per-example context
    ranks, the queries and the Assumption-3 vectors."""

    name: str
    n: int
    d: int
    ranks: Tensor
    queries: Tensor
    shifted: Tensor

    @property
    def num_examples(self) -> int:
        """``T``, the number of examples."""
        return int(self.ranks.numel())


def summarize(batches: Iterable[Tensor], *, name: str, query_index: int = 0
              ) -> RepresentationSummary:
    """Reduce hidden states ``[B, n, d]`` (batch after batch) to a :class:`RepresentationSummary`.

    The query of each example is its row ``query_index`` (0 = [CLS]; -1 = last token).
    """
    ranks, queries, shifted = [], [], []
    shape = None
    for batch in batches:
        _check_contexts(batch)
        if shape is None:
            shape = tuple(batch.shape[1:])
        elif tuple(batch.shape[1:]) != shape:
            raise ValueError(f"every batch must have shape [B, {shape[0]}, {shape[1]}]")
        ranks.append(context_ranks(batch))
        query = batch[:, query_index]
        queries.append(query)
        shifted.append(shifted_queries(batch, query))
    if shape is None:
        raise ValueError("batches is empty")
    return RepresentationSummary(name, shape[0], shape[1], torch.cat(ranks), torch.cat(queries),
                                 torch.cat(shifted))


def merge_summaries(parts: Sequence[RepresentationSummary]) -> RepresentationSummary:
    """One summary from summaries of consecutive batches of the same representation."""
    if not parts:
        raise ValueError("parts is empty")
    first = parts[0]
    if any((p.name, p.n, p.d) != (first.name, first.n, first.d) for p in parts):
        raise ValueError("summaries to merge must share name, n and d")
    return RepresentationSummary(first.name, first.n, first.d,
                                 torch.cat([p.ranks for p in parts]),
                                 torch.cat([p.queries for p in parts]),
                                 torch.cat([p.shifted for p in parts]))


def assumption_table(summary: RepresentationSummary, *, repeats: int, gp_repeats: int | None = None,
                     seed: int = 0, threshold: float = DEFAULT_THRESHOLD,
                     assumption3: bool = True, method: str = "svd") -> list[dict]:
    """The rows of Mahdavi et al.'s (ICLR 2024) Table 1 / Table 3 (App. J) for one
    representation (tidy dicts).

    ``check`` is one of ``assumption2`` (fraction of contexts of rank n), ``assumption1``
    (Kruskal test at ``k = n``), ``general_position`` (at ``k = d``, as the paper tests it) and
    ``assumption3``. ``k`` is clipped to ``T`` when there are fewer examples than the paper's
    ``k``; ``valid`` is then False: a pass at ``k = T`` cannot confirm the assumption. A failure
    still refutes it (a dependent ``T``-subset means a Kruskal rank below ``T``, hence below
    ``n`` or ``d``), which :func:`conclusive` says. ``method`` is :func:`kruskal_test`'s; each
    Kruskal row records the one used (``gram`` falls back to ``svd`` where it does not apply),
    the Assumption 2 row ``matrix_rank`` (:func:`context_ranks`).
    """
    if method not in RANK_METHODS:
        raise ValueError(f"method must be one of {RANK_METHODS}, got {method!r}")
    T, n, d = summary.num_examples, summary.n, summary.d
    rows = [{
        "representation": summary.name, "check": "assumption2", "k": n,
        "pass_fraction": float((summary.ranks == n).double().mean()),
        "min_rank": int(summary.ranks.min()), "max_rank": int(summary.ranks.max()),
        "repeats": T, "valid": n <= d, "method": "svd",
    }]
    tests = [("assumption1", summary.queries, n, repeats),
             ("general_position", summary.queries, d, gp_repeats or repeats)]
    if assumption3:
        tests.append(("assumption3", summary.shifted, n, repeats))
    for check, vectors, k, reps in tests:
        k_used = min(k, T)  # the paper's k (n, or d for General Position), clipped to T
        vectors = vectors.double() if vectors.dtype == torch.float16 else vectors
        res = kruskal_test(vectors, k_used, repeats=reps, seed=seed, method=method)
        used = "gram" if method == "gram" and _gram_applies(vectors, k_used) else "svd"
        rows.append({"representation": summary.name, "check": check, "k": k_used,
                     "pass_fraction": res.pass_fraction, "min_rank": res.min_rank,
                     "max_rank": res.max_rank, "repeats": reps, "valid": k_used == k,
                     "method": used})
    for row in rows:
        row.update({"n": n, "d": d, "T": T,
                    "satisfied": bool(row["valid"] and row["pass_fraction"] >= threshold)})
        row["conclusive"] = conclusive(row, threshold)
    return rows


def conclusive(row: dict, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """Whether a row of :func:`assumption_table` decides its assumption: always at the paper's
    ``k``; at a clipped ``k = T`` only when it fails (a dependent subset refutes the Kruskal
    rank; passing subsets of a smaller set say nothing about ``k = n`` or ``d``)."""
    return bool(row["valid"]) or float(row["pass_fraction"]) < threshold
