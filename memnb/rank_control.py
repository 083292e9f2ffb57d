"""A control for the rank test of Mahdavi et al. (ICLR 2024), Table 1 (ours, not the paper's).

Table 1 tests General Position by drawing ``k = d`` of the ``T`` vectors and asking whether the
draw has rank ``k``, with ``torch.linalg.matrix_rank``'s tolerance: singular values above
``sigma_max * max(k, d) * eps``, ``eps`` of float32 (:func:`memnb.assumptions.kruskal_test`).
A square draw of i.i.d. Gaussian vectors has full rank with probability one, but its smallest
singular value is of order ``1/sqrt(d)`` of a typical one and often falls below that tolerance:
the test then rejects data that are in General Position. :func:`gaussian_control` measures how
often, for the shape of a representation, so that a representation's failed draws can be told
from the tolerance's own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from memnb.assumptions import KruskalTest, kruskal_test
from memnb.validation import check_int

__all__ = ["ToleranceControl", "gaussian_control"]


@dataclass(frozen=True)
class ToleranceControl:
    """The General Position test at size ``k`` on ``T`` i.i.d. Gaussian float32 vectors in R^d."""

    T: int
    d: int
    test: KruskalTest
    """The rank test's draws: ``k``, ``repeats``, ``passes`` and the ranks reached."""

    @property
    def rejected_fraction(self) -> float:
        """Fraction of the draws the tolerance rejected, though every draw has full rank a.s."""
        return 1.0 - self.test.pass_fraction

    def rejected_interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval of :attr:`rejected_fraction` (95 % for ``z = 1.96``)."""
        n, p = self.test.repeats, self.rejected_fraction
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)


def gaussian_control(T: int, d: int, *, repeats: int, k: int | None = None,
                     seed: int = 0) -> ToleranceControl:
    """Draw ``T`` i.i.d. standard Gaussian vectors in ``R^d`` (float32, seeded) and run Table 1's
    rank test on them at size ``k`` (default ``d``: the General Position test), ``repeats`` draws.

    Any ``k <= min(T, d)`` vectors of such data are independent with probability one, so every
    draw the test rejects is rejected by its float32 tolerance alone.
    """
    T, d, repeats = check_int("T", T, 1), check_int("d", d, 1), check_int("repeats", repeats, 1)
    k = check_int("k", d if k is None else k, 1)
    if k > min(T, d):
        raise ValueError(f"k must be an int in 1..min(T, d) = {min(T, d)}; got {k}")
    generator = torch.Generator().manual_seed(seed)
    vectors = torch.randn(T, d, generator=generator, dtype=torch.float32)
    return ToleranceControl(T, d, kruskal_test(vectors, k, repeats=repeats, seed=seed,
                                               method="gram"))
