"""Capacity of the Bietti et al. (2023) associative memory, as Dana et al. quote it.

**Statement (quoted).** Dana, Pydi & Chevaleyre's Sept. 2024 preprint (§6) and June 2024 talk
slides (not the AISTATS camera-ready) cite Bietti et al. (2023): with fixed random embeddings
``W_E, W_U ∈ R^{N×d}``, the matrix ``W = Σ_i w_U(g(i)) w_E(i)^T`` stores a map ``g: [N] -> [N]``
in the argmax of ``W_U W w_E(i)``, and "the model can remember association, but only d of
them" (slides); the preprint calls it the ``H = 0`` case of its bound. [unverified] against
Bietti et al.'s own text.

**Measured** (:func:`capacity_table`): the *capacity* — the largest ``m`` such that storing the
associations of the first ``m`` inputs recalls all ``m`` of them (100 %) — as a function of
``d`` and ``N``, over several draws of ``W_E, W_U, g`` (entries ``N(0, 1/d)``, as
:func:`memnb.lookup_tables.bietti_memory_accuracy`). Computed for every ``m`` at once:
``logits_m(i, k) = Σ_{j<=m} (w_E(i)·w_E(j)) (w_U(g(j))·w_U(k))``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from memnb.validation import check_int


def _draw_memory(N: int, d: int, count: int, seed: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One draw of the memory's random parts, from ``numpy.random.default_rng(seed)`` in this
    order: ``W_E`` then ``W_U`` (``[N, d]``, i.i.d. ``N(0, 1/d)`` entries), then the targets
    ``g(0), ..., g(count - 1)`` uniform in ``[N]``. Shared by :func:`capacity` and
    :func:`memnb.lookup_tables.bietti_memory_accuracy`, so both see the same draws."""
    rng = np.random.default_rng(seed)
    w_e = rng.standard_normal((N, d)) / math.sqrt(d)
    w_u = rng.standard_normal((N, d)) / math.sqrt(d)
    g = rng.integers(0, N, count)
    return w_e, w_u, g


def capacity(N: int, d: int, *, seed: int = 0) -> int:
    """Largest ``m`` in ``0..N`` such that the memory of the first ``m`` associations recalls all
    of them (Bietti et al. 2023's memory as quoted by Dana et al.'s 2024 slides; one draw)."""
    N, d = check_int("N", N, 2), check_int("d", d, 1)
    w_e, w_u, g = _draw_memory(N, d, N, seed)
    a = w_e @ w_e.T  # [N, N]: w_E(i)·w_E(j)
    b = w_u[g] @ w_u.T  # [N, N]: row j = w_U(g(j))·w_U(k)
    ok_upto = np.ones(N + 1, dtype=bool)  # ok_upto[m]: all i < m recalled by the memory of m
    for i in range(N):
        # logits of input i for the memories of m = i+1..N (rows), all tokens k (columns)
        logits = np.cumsum(a[i, :, None] * b, axis=0)[i:]
        recalled = logits.argmax(axis=1) == g[i]
        ok_upto[i + 1:] &= recalled
    good = np.flatnonzero(ok_upto)
    return int(good.max())


def capacity_table(Ns: ArrayLike, ds: ArrayLike, *, seeds: int = 5) -> pd.DataFrame:
    """Capacity for each ``(N, d)`` and seed: columns ``N, d, seed, capacity``."""
    seeds = check_int("seeds", seeds, 1)
    rows = [{"N": int(N), "d": int(d), "seed": s, "capacity": capacity(int(N), int(d), seed=s)}
            for N in np.asarray(Ns).ravel() for d in np.asarray(ds).ravel()
            for s in range(seeds)]
    return pd.DataFrame(rows)
