"""The Theorem 1 (ε > 0) verdict of memnb.scorecard.dana_theory: the checks and medians the
chapter prints and glues are the verdict's own values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from memnb.scorecard import dana_theory


def test_thm1_chain_summary_gives_the_medians_along_the_proofs_chain():
    tab = pd.DataFrame({"gap": [-1.0, 2.0, 4.0], "step2": [2.0, 8.0, 8.0],
                        "kl_encoder": [0.0, 1.0, 1.0], "rhs_proof": [20.0, 81.0, 161.0],
                        "rhs_eq14": [10.0, 41.0, 81.0], "c_eq14": [0.99, 1.0, 2.0],
                        "c_main": [1.0, 1.0, 2.0]})
    got = dana_theory.thm1_chain_summary(tab)
    assert got["step_paid"] == pytest.approx(2.0)  # median of 2, 4, 2
    assert got["step_lost"] == pytest.approx(10.0)  # median of 10, 10, 20
    assert got["step_lost_eq14"] == pytest.approx(5.0)  # median of 5, 5, 10
    assert got["c_ratio_floor"] == 0.99
    # a lower bound: rounded down, never up
    tab.loc[0, "c_eq14"] = 0.99969
    assert dana_theory.thm1_chain_summary(tab)["c_ratio_floor"] == 0.999


@pytest.fixture(scope="module")
def thm1_tab():
    return dana_theory.thm1_centred_table()


def test_thm1_verdict_holds_the_chapters_checks_and_quoted_numbers(thm1_tab):
    tab = thm1_tab
    v = dana_theory.thm1_epsilon(tab=tab)
    assert v.status == "reproduced" and v.values["rows"] == len(tab)
    for key in ("chain", "constants", "aot_exact", "centred_rank_at_most_d"):
        assert v.values[key] is True, key  # printed by the chapter as True / False
    assert v.values["c_ratio_floor"] == math.floor(
        1000 * float((tab["c_eq14"] / tab["c_main"]).min())) / 1000
    assert v.values["step_paid"] == pytest.approx(float((tab["step2"] / tab["gap"].abs())
                                                        .median()))
    assert v.values["step_lost"] == pytest.approx(
        float(((tab["rhs_proof"] - tab["kl_encoder"]) / tab["step2"]).median()))
    assert v.values["step_lost_eq14"] == pytest.approx(
        float(((tab["rhs_eq14"] - tab["kl_encoder"]) / tab["step2"]).median()))


def test_thm1_verdict_reads_both_inequalities_with_one_slack(thm1_tab):
    """C_14 <= C_main with the chain's slack (a rounding excess is no failure), and a real
    excess, an inexact AoT or a centred rank above d each show in the values."""
    tol = dana_theory.THM1_CHAIN_TOL
    v = dana_theory.thm1_epsilon(tab=thm1_tab.assign(c_eq14=thm1_tab["c_main"] + tol / 2))
    assert v.values["constants"] is True
    v = dana_theory.thm1_epsilon(tab=thm1_tab.assign(c_eq14=thm1_tab["c_main"] + 10 * tol))
    assert v.values["constants"] is False and v.status == "differs"
    v = dana_theory.thm1_epsilon(tab=thm1_tab.assign(
        max_top_logit_error=10 * dana_theory.THM1_EXACT_TOL))
    assert v.values["aot_exact"] is False
    v = dana_theory.thm1_epsilon(tab=thm1_tab.assign(rank_centred=thm1_tab["d"] + 1))
    assert v.values["centred_rank_at_most_d"] is False


def test_thm1_centred_words_give_the_change_on_the_shrunk_rows_and_the_median(thm1_tab):
    """The range of the excess ratio can be the same before and after centring (its ends on
    rows centring leaves alone): the verdict then says so, and gives the ratio before and after
    on the rows whose norm shrinks and the median over all rows, each from the table."""
    tab = thm1_tab
    v = dana_theory.thm1_epsilon(tab=tab)
    shrunk = tab["norm_we_centred"] < tab["norm_we"] * (1 - 1e-9)
    was, now = tab.loc[shrunk, "looseness_eq14"], tab.loc[shrunk, "looseness_centred"]
    words = (f"on the {int(shrunk.sum())} rows where the norm shrinks, the excess ratio falls "
             f"from {was.min():.3g}–{was.max():.3g}× to {now.min():.3g}–{now.max():.3g}×, and "
             f"its median over the {len(tab)} rows from "
             f"{tab['looseness_eq14'].median():.3g}× to {tab['looseness_centred'].median():.3g}×")
    assert words in v.measured and v.values["centred_words"].startswith(words)
    kept = (np.isclose(tab["looseness_eq14"].max(), tab["looseness_centred"].max())
            and np.isclose(tab["looseness_eq14"].min(), tab["looseness_centred"].min()))
    assert v.values["centred_range_kept"] == kept
    assert ("stays as it was" in v.measured) == kept
    # a shrunk row that was the largest before: the range moves, and the words do not say
    # it stays
    top = tab["looseness_eq14"].idxmax()
    moved = tab.assign(norm_we_centred=tab["norm_we_centred"].where(
        tab.index != top, tab["norm_we"] / 10),
        looseness_centred=tab["looseness_centred"].where(
            tab.index != top, tab["looseness_eq14"] / 10))
    cen = dana_theory.thm1_centred_summary(moved)
    assert cen["range_kept"] is False
    text = dana_theory.thm1_centred_words(cen, with_range=True)
    assert "stays as it was" not in text and f"spans {cen['min']:.3g}× to" in text
    none = dana_theory.thm1_centred_words(dana_theory.thm1_centred_summary(
        tab.assign(norm_we_centred=tab["norm_we"], looseness_centred=tab["looseness_eq14"])))
    assert none == "centring shrinks the norm on no row, so no excess ratio changes"
    none_cen = dana_theory.thm1_centred_summary(
        tab.assign(norm_we_centred=tab["norm_we"], looseness_centred=tab["looseness_eq14"]))
    spans = dana_theory.thm1_centred_words(none_cen, with_range=True)
    assert spans == (f"{none} (they span {none_cen['min']:.3g}× to {none_cen['max']:.4g}×)")
    assert "from" not in spans
