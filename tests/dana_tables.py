"""Made-up tables of Dana et al.'s appendix experiments shared by the tests of the chapter's
figures and of its scorecard rows."""

from __future__ import annotations

import pandas as pd

from memnb.papers import dana as paper


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


def paper_offset_tables(offsets: dict[str, float], n: int = 50
                        ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Tables whose accuracies are the paper's plus a known offset per model kind."""
    paper2 = dict(zip(paper.exp2()["d_h"], paper.exp2()["accuracy"], strict=True))
    paper3 = dict(zip(paper.exp3()["d"], paper.exp3()["accuracy"], strict=True))
    common = {"N": n, "H": 20, "T0": n * n}

    def rows(kind, d_values, d_h_values, paper, x):
        return [{**common, "model": kind, "d": d, "d_h": d_h, "seed": seed,
                 "accuracy": paper.get(d if x == "d" else d_h, 0.8) + offsets[kind]}
                for d in d_values for d_h in d_h_values for seed in (0, 1)]

    exp2 = pd.DataFrame(rows("aot", [10], range(1, 11), paper2, "d_h"))
    exp3 = pd.DataFrame(rows("aot", range(5, 16), [10], paper3, "d"))
    layout = pd.DataFrame(
        [r for kind in ("aot_code", "aot_code_uncompressed")
         for r in rows(kind, [10], range(1, 11), paper2, "d_h")
         + rows(kind, [d for d in range(5, 16) if d != 10], [10], paper3, "d")])
    return layout, exp2, exp3
