"""Made-up tables of Dana et al.'s appendix experiments shared by the tests of the chapter's
figures and of its scorecard rows."""

from __future__ import annotations

import pandas as pd


def fig7_seeds(mlp_seeds: list[float], aot: float = 0.25) -> pd.DataFrame:
    """Fig. 7 rows at the paper's setting (N = 200, H = 11, d = 40, 50, 60) with the given MLP
    seed accuracies at each d and an AoT a little apart between seeds."""
    rows = []
    for d in (40, 50, 60):
        rows += [{"figure": "Fig. 7", "model": "aot", "N": 200, "d": d, "d_h": d, "H": 11,
                  "H_equiv": 11, "width": 0, "seed": s, "accuracy": aot + 0.002 * s}
                 for s in range(len(mlp_seeds))]
        rows += [{"figure": "Fig. 7", "model": "mlp", "N": 200, "d": d, "d_h": d, "H": 1,
                  "H_equiv": 11, "width": 2 * d * 10, "seed": s, "accuracy": a}
                 for s, a in enumerate(mlp_seeds)]
    return pd.DataFrame(rows)
