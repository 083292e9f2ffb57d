"""Scorecard rows of Kajitsuka & Sato: every named item present, verdicts computed both ways."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from memnb.papers import kajitsuka as paper
from memnb.scorecard import build_scorecard
from memnb.scorecard import kajitsuka as card


def _construction(exponent: float, width: int = 10, memorized: bool = True) -> pd.DataFrame:
    rows = []
    for N in (100, 300, 1000, 3000, 10000):
        rows.append({"sweep": "N", "task": "next_token", "N": N, "n": 8, "C": 2,
                     "width": width, "depth": 10 * N ** 0.5, "num_parameters": 5000 + N ** 0.5,
                     "ffn1_parameters": 5000,
                     "ffn2_parameters": 50 * N ** exponent * (1 + 0.02 * (-1) ** (N % 7)),
                     "total_weight_bits": 20 * N * math.log2(N) * (1 + 0.03 * (-1) ** (N % 7)),
                     "max_weight_bits": 60,
                     "id_bits": 40, "verify": N <= 300, "memorized": memorized})
    for n in (2, 4, 8, 16, 32):
        rows.append({"sweep": "n", "task": "seq2seq", "N": 200, "n": n, "C": 2, "width": width,
                     "depth": 1, "num_parameters": 1, "ffn1_parameters": 1,
                     "ffn2_parameters": 50 * (200 * n) ** 0.5 * (1 + 0.02 * (-1) ** (n % 3)),
                     "total_weight_bits": 1,
                     "max_weight_bits": 1, "id_bits": 40, "verify": False, "memorized": False})
        rows.append({"sweep": "n", "task": "next_token", "N": 200, "n": n, "C": 2,
                     "width": width, "depth": 1, "num_parameters": 1000 + np.log2(n),
                     "ffn1_parameters": 1, "ffn2_parameters": 1, "total_weight_bits": 1,
                     "max_weight_bits": 1, "id_bits": 40, "verify": False, "memorized": False})
    return pd.DataFrame(rows)


def test_theorem_41_verdict_both_ways():
    assert card.thm41_verdict(_construction(0.5)).status == "reproduced"
    assert card.thm41_verdict(_construction(0.8)).status == "differs"
    assert card.thm41_verdict(_construction(0.5, width=20)).status == "differs"
    assert card.thm41_verdict(_construction(0.5, memorized=False)).status == "differs"
    assert card.construction_verdicts(_construction(0.5))["seq2seq_n"].status == "reproduced"


def test_bits_verdict_both_ways():
    assert card.bits_verdict(_construction(0.5)).status == "reproduced"
    below = _construction(0.5).assign(total_weight_bits=lambda t: t["N"] * 0.5)
    assert card.bits_verdict(below).status == "differs"  # under the floor N log2 C
    faster = _construction(0.5).assign(total_weight_bits=lambda t: t["N"] ** 1.6)
    assert card.bits_verdict(faster).status == "differs"


def _curves(final_loss: dict[int, float]) -> pd.DataFrame:
    rows = []
    for b, loss in final_loss.items():
        for epoch, scale in ((0, 10.0), (10, 1.0)):
            rows.append({"blocks": b, "epoch": epoch, "seed": 0, "loss": loss * scale,
                         "accuracy": min(1.0, 0.5 + 0.1 * b) if epoch else 0.3})
    return pd.DataFrame(rows)


def test_curves_verdict_both_ways():
    good = _curves({0: 0.3, 1: 0.1, 4: 0.01})
    assert card.curves_verdict(good, "loss").status == "reproduced"
    assert card.curves_verdict(good, "accuracy").status == "reproduced"
    bad = card.curves_verdict(_curves({0: 0.3, 1: 0.01, 4: 0.02}), "loss")
    assert bad.status == "differs" and "not decreasing" in bad.measured


def _capacity(min_blocks: dict[int, int], dip: tuple[int, int] | None = None) -> pd.DataFrame:
    rows = [{"N": N, "seed": 0, "blocks": b, "accuracy": 1.0 if b >= k else 0.9}
            for N, k in min_blocks.items() for b in range(0, 13)]
    table = pd.DataFrame(rows)
    if dip is not None:
        table.loc[(table["N"] == dip[0]) & (table["blocks"] == dip[1]), "accuracy"] = 0.99
    return table


def test_capacity_verdict_both_ways():
    sqrt_like = {400: 4, 900: 6, 1600: 8, 2500: 11}
    assert card.capacity_verdict(_capacity(sqrt_like)).status == "reproduced"
    flat = card.capacity_verdict(_capacity({200: 0, 400: 1, 600: 1, 800: 1}))
    assert flat.status == "differs" and "no exponent fitted" in flat.measured
    linear = {N: N // 100 for N in (100, 200, 400, 800)}
    assert card.capacity_verdict(_capacity(linear)).status == "differs"
    dipped = card.capacity_verdict(_capacity(sqrt_like, dip=(900, 12)))
    assert "1 tried depth memorized less than a shallower one" in dipped.measured
    missing = _capacity(sqrt_like).assign(accuracy=lambda t: t["accuracy"] * 0.5)
    assert card.capacity_verdict(missing).status == "differs"


def test_seq_len_verdict_both_ways():
    flat = _capacity({2: 1, 4: 1, 8: 2, 16: 1}).rename(columns={"N": "n"})
    assert card.seq_len_verdict(flat).status == "reproduced"
    steep = _capacity({2: 1, 4: 2, 8: 4, 16: 8}).rename(columns={"N": "n"})
    assert card.seq_len_verdict(steep).status == "differs"


def test_every_named_item_has_a_row_and_missing_runs_are_not_run(tmp_path):
    rows = build_scorecard("full", ["kajitsuka"], root=tmp_path)
    items = {r.item: r for r in rows}
    for name in paper.NAMED_ITEMS:
        assert name in items
    for fig in ("Fig. 1", "Fig. 2", "Fig. 4", "Fig. 5", "Fig. 7", "Table 1"):
        assert fig in items
    assert items["Fig. 7"].status == "not run" and "memnb run kajitsuka.capacity" in \
        items["Fig. 7"].measured
    assert items["Theorem 4.1"].status == "not run"
    for exact in ("Definition 4.1", "Nonlinear hash"):
        assert items[exact].status == "reproduced", items[exact]
    # exact checks of our reading of a title, or of one proof step, count at most as a trend
    for partial in ("Remark 4.1", "Remark 4.2", "Theorem 4.2"):
        assert items[partial].status == "trend", items[partial]
    for none in ("Remark 3.1", "Remark 4.5", "Table 1"):
        assert items[none].status == "not computable"
    assert items["Nonlinear hash"].ours


def test_capacity_verdict_needs_every_width():
    sqrt_like = _capacity({400: 4, 900: 6, 1600: 8, 2500: 11}).assign(d=8)
    flat = _capacity({400: 1, 900: 1, 1600: 1, 2500: 1}).assign(d=16)
    both = card.capacity_verdict(pd.concat([sqrt_like, flat]))
    assert both.status == "differs"
    assert "width d = 8: reproduced" in both.measured and "width d = 16: differs" in both.measured
    assert card.capacity_verdict(sqrt_like).status == "reproduced"
