"""The Dana chapter's sentences about our results are computed: each verdict word comes from a
stated criterion applied to the data, and flips when made-up data cross it
(memnb.figures.dana, memnb.scorecard.dana_theory, memnb.dana_reading). The notebook's Markdown
states none of these verdicts by hand. No test here reads data/results/quick."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from memnb import dana_reading as reading
from memnb.figures import dana as figures
from memnb.papers import dana as paper
from memnb.scorecard import dana_theory
from memnb.scorecard.dana import ACC_TOL, SLOPE_REL_TOL

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "dana.ipynb"


def _cells(kind: str) -> list[str]:
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == kind]


# --- 1. Fig. 5: our slopes against the paper's CSV -------------------------------------------

def _slopes(factors: dict[int, float]) -> pd.DataFrame:
    theirs = paper.dim_exp1_slopes().set_index("d")["slope"]
    return pd.DataFrame({"d": list(factors), "slope": [factors[d] * theirs[d] for d in factors],
                         "paper_slope": [theirs[d] for d in factors]})


def test_slope_side_reads_the_relative_difference_against_the_tolerance():
    tol = SLOPE_REL_TOL
    assert figures.slope_side(1.0 - 2 * tol, 1.0, tol) == "short"
    assert figures.slope_side(1.0 + 2 * tol, 1.0, tol) == "exceed"
    assert figures.slope_side(1.0 + tol / 2, 1.0, tol) == "match"
    assert figures.slope_side(0.75, 1.0, 0.25) == "match"  # within: at most tol


@pytest.mark.parametrize(("factor", "words"), [
    (0.5, "fall short of the paper's CSV slopes at every d"),
    (1.4, "exceed the paper's CSV slopes at every d"),
    (1.02, "match the paper's CSV slopes at every d"),
])
def test_the_direction_of_the_fig_5_slopes_follows_the_data(factor, words):
    text = figures.slope_comparison_words(_slopes({40: factor, 50: factor, 60: factor}),
                                          "our slopes")
    assert text.startswith(f"Our slopes {words} (d = 40: ")
    assert f"within ±{SLOPE_REL_TOL:.0%} the slopes match" in text
    assert "the Fig. 5 row's tolerance" in text
    others = {"fall short of", "exceed", "match"} - {words.split(" the ")[0]}
    assert not any(f"slopes {w} " in text for w in others)


def test_mixed_sides_name_each_d():
    text = figures.slope_comparison_words(_slopes({40: 0.5, 50: 1.0, 60: 1.5}), "our slopes")
    assert text.startswith("Our slopes fall short of the paper's CSV slopes (d = 40: ")
    assert "; match them (d = 50: " in text and "; and exceed them (d = 60: " in text
    assert "at every d" not in text
    lone = figures.slope_comparison_words(_slopes({40: 1.0}).assign(paper_slope=np.nan), "ours")
    assert lone == "Ours have no d in common with the paper's CSV: no slope is compared."


def _fig5_rows(factor: float, n: int = 200) -> pd.DataFrame:
    """Fig. 5 rows of dana.appendix_dim whose accuracy is 0.05 + factor × the paper's slope × H
    (below 0.95, so the official rule fits every point)."""
    theirs = paper.dim_exp1_slopes().set_index("d")["slope"]
    return pd.DataFrame([{"figure": "Fig. 5", "model": "aot", "N": n, "d": d, "d_h": d, "H": h,
                          "seed": s, "accuracy": 0.05 + factor * theirs[d] * h}
                         for d in (40, 50, 60) for h in (1, 3, 5, 7) for s in (0, 1)])


def test_fig5_slopes_sentence_reads_the_first_table_with_fig_5_rows():
    fig6 = _fig5_rows(1.0).assign(figure="Fig. 6")
    short, over = _fig5_rows(0.5), _fig5_rows(1.5)
    eq2 = figures.appendix_fig5_eq2(None, fig6, short, over)
    assert eq2 is not None and len(eq2) == len(short)
    text = figures.fig5_slopes_sentence(eq2)
    assert "our eq. (2) per-head slopes of Fig. 5 fall short of the paper's CSV slopes at " \
           "every d" in text and "(seed-averaged curves, 2 seeds)" in text
    assert "exceed the paper's" in figures.fig5_slopes_sentence(
        figures.appendix_fig5_eq2(over, short))
    assert figures.appendix_fig5_eq2(None, fig6) is None
    assert figures.fig5_slopes_sentence(None).startswith("No run of eq. (2)'s Fig. 5")
    assert "not the paper's N = 200: no slope" in figures.fig5_slopes_sentence(
        _fig5_rows(0.5, n=40))


# --- 2. Experiments 2 and 3: whether they depart, and the reading ----------------------------

def _exp23(offset2: float, offset3: float, exp3_curve=None):
    """Experiment 2 and 3 tables at the paper's setting: the paper's CSV plus an offset, or, for
    Experiment 3, ``exp3_curve(d)``."""
    paper2 = dict(zip(paper.exp2()["d_h"], paper.exp2()["accuracy"], strict=True))
    paper3 = dict(zip(paper.exp3()["d"], paper.exp3()["accuracy"], strict=True))
    common = {"N": 50, "H": 20, "T0": 2500, "model": "aot"}
    exp2 = pd.DataFrame([{**common, "d": 10, "d_h": dh, "seed": s,
                          "accuracy": paper2[dh] + offset2}
                         for dh in range(1, 11) for s in (0, 1)])
    exp3 = pd.DataFrame([{**common, "d": d, "d_h": 10, "seed": s,
                          "accuracy": (exp3_curve(d) if exp3_curve else paper3[d] + offset3)}
                         for d in range(5, 16) for s in (0, 1)])
    return exp2, exp3


def test_the_heading_says_depart_only_when_a_curve_departs_by_the_rows_rule():
    same = figures.departures_report(*_exp23(0.0, 0.0))
    assert same.startswith("**How our curves compare with the paper's (this run).**")
    assert "Experiment 2 does not depart (0.000); Experiment 3 does not depart (0.000)" in same
    assert f"is at most {ACC_TOL:g}" in same
    assert "Our reading" not in same and "no departure for the model to explain" in same
    apart = figures.departures_report(*_exp23(0.1, 0.0))
    assert apart.startswith("**Where our curves depart from the paper's (this run).**")
    assert "Experiment 2 departs (0.100); Experiment 3 does not depart" in apart
    assert "Our reading of the departure (Experiment 2), tested below" in apart


def test_the_reading_states_capacity_at_small_d_h_and_the_plateau_from_the_tables():
    rising = figures.departures_report(*_exp23(0.1, 0.0, exp3_curve=lambda d: 0.05 * d))
    assert "at the smallest d_h, 1, ours is" in rising and ": more capacity at small d_h" in rising
    assert "past d = d_h our curve in d has no plateau and the paper's CSV has one" in rising
    assert "both as that reading expects" in rising
    # less capacity at small d_h: the reading is not borne out in full
    lower = figures.departures_report(*_exp23(-0.1, 0.0, exp3_curve=lambda d: 0.05 * d))
    assert ": less capacity at small d_h" in lower
    assert "not both as that reading expects" in lower
    # a plateau after d = d_h in ours (below saturation): the ceiling is there too
    flat = figures.departures_report(*_exp23(0.1, 0.0, exp3_curve=lambda d: 0.05 * min(d, 10)))
    assert "our curve in d has a plateau and the paper's CSV has one" in flat
    assert "not both as that reading expects" in flat


def test_departure_reading_words_flip_with_each_input():
    both = figures.departure_reading((1, 0.3, 0.1), "no plateau", "a plateau")
    assert both.endswith(": both as that reading expects")
    assert "(+0.200;" in both and "about the same" not in both
    same = figures.departure_reading((1, 0.12, 0.1), "no plateau", "a plateau")
    assert ": about the same capacity at small d_h" in same and "not both" in same
    undecided = figures.departure_reading((1, 0.3, 0.1), "not decided", "a plateau")
    assert "past d = d_h for our curve in d a plateau is not decided and the paper's CSV " \
           "has one" in undecided and "not both" in undecided
    assert "the paper's CSV" not in figures.departure_reading(None, "no plateau", None).split(
        "(the Fig. 2a")[0].split("; ")[1]


# --- 3. Theorem 1 with eps > 0 ---------------------------------------------------------------

def _thm1(**columns) -> pd.DataFrame:
    base = {"looseness_eq14": [30.0, 300.0, np.nan], "c_eq14": [1.0, 2.0, 3.0],
            "c_main": [1.0, 2.0, 3.0], "holds_as_stated": [True, True, True],
            "last_tokens": [3, 4, 5], "d": [2, 2, 2]}
    return pd.DataFrame({**base, **columns})


def test_thm1_reading_states_each_verdict_with_its_criterion():
    text = dana_theory.thm1_epsilon_reading(_thm1())
    assert "the bound is tight on none of the 2 rows with an excess KL" in text
    assert f"below {dana_theory.TIGHT_RATIO:g})" in text
    assert "the two forms of C barely differ: eq. (14)'s is at least 1.000" in text
    assert "holds on every one of the 3 rows" in text
    assert "every set is generic" in text


def test_thm1_reading_flips_with_the_table():
    tight = dana_theory.thm1_epsilon_reading(_thm1(looseness_eq14=[1.5, 1.2, np.nan]))
    assert "tight on every one of the 2 rows" in tight
    some = dana_theory.thm1_epsilon_reading(_thm1(looseness_eq14=[1.5, 30.0, np.nan]))
    assert "tight on 1 of the 2 rows" in some
    apart = dana_theory.thm1_epsilon_reading(_thm1(c_eq14=[0.9, 2.0, 3.0]))
    assert "the two forms of C differ: eq. (14)'s is at least 0.900" in apart
    assert "not above 0.99" in apart and "barely" in apart.split("threshold for")[1]
    fails = dana_theory.thm1_epsilon_reading(_thm1(holds_as_stated=[True, False, True]))
    assert "holds on 2 of the 3 rows" in fails
    few = dana_theory.thm1_epsilon_reading(_thm1(last_tokens=[1, 4, 5]))
    assert "1 of the 3 rows have fewer than d distinct last tokens" in few
    assert "not generic" in few


def test_the_chapters_thm1_reading_is_its_tables():
    tab = dana_theory.thm1_centred_table()
    text = dana_theory.thm1_epsilon_reading(tab)
    ratio = tab["looseness_eq14"][np.isfinite(tab["looseness_eq14"])]
    tight = int(((ratio >= 1) & (ratio < dana_theory.TIGHT_RATIO)).sum())
    word = {0: "none", len(ratio): "every one"}.get(tight, str(tight))
    assert f"the bound is tight on {word} of the {len(ratio)} rows with an excess KL" in text
    floor = math.floor(1000 * float((tab["c_eq14"] / tab["c_main"]).min())) / 1000
    assert f"at least {floor:.3f} of the main text's" in text


# --- 4. The slides' bounds, Remark 2, the Bietti memory --------------------------------------

def _ls(ls_ratio: list[float], wls_ratio: list[float]) -> pd.DataFrame:
    kl = np.array([0.01, 0.1])
    return pd.DataFrame({"kl_ls": kl, "ls_slides": kl * np.array(ls_ratio),
                         "kl_wls": kl, "wls_slides": kl * np.array(wls_ratio)})


def test_slides_reading_calls_the_bounds_loose_only_from_the_ratios():
    loose = dana_theory.slides_least_squares_reading(_ls([100.0, 10.0], [1e5, 3.0]))
    assert loose.startswith("The least-squares bound holds on every one of the 2 rows and is "
                            "at least 10 times the KL it bounds, tight on none of the 2 rows")
    assert "the weighted bound holds on every one of the 2 rows and is at least 3 times" in loose
    assert ": both bounds are loose on every row" in loose
    tight = dana_theory.slides_least_squares_reading(_ls([100.0, 1.5], [1e5, 3.0]))
    assert "tight on 1 of the 2 rows" in tight
    assert ": not both bounds are loose on every row" in tight
    broken = dana_theory.slides_least_squares_reading(_ls([0.5, 10.0], [1e5, 3.0]))
    assert "holds on 1 of the 2 rows" in broken and "tight on none" in broken


def _rank1(**columns) -> pd.DataFrame:
    base = {"accuracy": [1.0, 1.0], "max_logit_error": [1e-12, 1e-13],
            "num_sequences": [12, 22], "capacity": [12, 22], "sequences": [100, 100],
            "rank_all_rank1": [12, 22], "rank_all_full": [12, 22]}
    return pd.DataFrame({**base, **columns})


def test_remark2_reading_flips_with_the_table():
    ok = dana_theory.remark2_reading(_rank1())
    assert "exactly (every target the argmax" in ok and "at every one of the 2 sizes" in ok
    assert "as with full-rank heads" in ok and "fits as many sequences with either" in ok
    inexact = dana_theory.remark2_reading(_rank1(max_logit_error=[1e-12, 1e-3]))
    assert "exactly (every target the argmax" in inexact and "at 1 of the 2 sizes" in inexact
    missed = dana_theory.remark2_reading(_rank1(accuracy=[1.0, 0.9]))
    assert "at 1 of the 2 sizes" in missed
    apart = dana_theory.remark2_reading(_rank1(rank_all_rank1=[12, 20]))
    assert "as with full-rank heads" not in apart
    assert "does not fit as many sequences with rank-one heads" in apart


def test_bietti_saturation_words_flip_with_the_table():
    def table(caps: dict[tuple[int, int], float]) -> pd.DataFrame:
        return pd.DataFrame([{"N": n, "d": d, "capacity": c} for (n, d), c in caps.items()])

    onward = dana_theory.bietti_saturation_words(table(
        {(50, 8): 3, (50, 32): 45, (50, 64): 50, (200, 8): 2, (200, 64): 60, (200, 128): 200}))
    assert onward == ("at N = 50 the points saturate from d = 32 on; at N = 200 the points "
                      "saturate from d = 128 on: so at every N the point saturates once d is "
                      "large enough")
    gap = dana_theory.bietti_saturation_words(table({(50, 8): 3, (50, 32): 45, (50, 64): 20}))
    assert "at d = 32 only" in gap and "not at every N" in gap
    none = dana_theory.bietti_saturation_words(table({(50, 8): 3, (50, 32): 5}))
    assert "at N = 50 no d drawn saturates" in none and "not at every N" in none


# --- 5. Theorem 2's gap, Proposition 2's rank threshold --------------------------------------

def _gap(**values) -> dict[str, float]:
    base = {"kl_table": 0.4, "kl_reoptimised": 0.05, "bound_c0": 0.39, "jl_factor": 250.0,
            "bound": 0.39 * 250.0}
    base.update(values)
    return {**base, "ratio": base["bound"] / base["kl_table"]}


def test_thm2_gap_reading_flips_with_the_values():
    close = figures.thm2_gap_reading(_gap())
    assert close.startswith("Re-optimising λ lowers the table's KL (0.05 against 0.4)")
    assert "widens the distance from the bound" in close
    assert "close to it (ours: within ±10%)" in close
    assert "accounts for the distance between the bound and the table's KL" in close
    far = figures.thm2_gap_reading(_gap(bound_c0=4.0, bound=4.0 * 250.0))
    assert "not close to it" in far and "accounts for only part of the distance" in far
    assert "makes the rest, 10 times" in far
    higher = figures.thm2_gap_reading(_gap(kl_reoptimised=0.5))
    assert higher.startswith("Re-optimising λ does not lower the table's KL")
    assert "widens" not in higher


def test_the_rank_threshold_clause_reads_the_rank_against_n_minus_one():
    assert "cannot tell them apart" in figures.rank_threshold_words(4, 5)
    assert "tells the rank threshold from" in figures.rank_threshold_words(2, 5)
    lams = np.geomspace(1, 25_000, 5)
    table = pd.DataFrame({"d": [1, 2, 3, 4], "centered_rank": 4,
                          "kl_fit": [0.5, 0.1, 0.01, 1e-12]})
    assert figures.propositions_caption(lams, table, 5).endswith(
        "so this π cannot tell them apart.")
    assert "cannot tell" not in figures.propositions_caption(lams, table)
    assert "tells the rank threshold" in figures.propositions_caption(
        lams, table.assign(centered_rank=2), 5)


# --- 6. dana.exp4's fit errors against Fig. 2b's caption -------------------------------------

def _exp1_rows() -> pd.DataFrame:
    return pd.DataFrame([{"N": 50, "d": d, "d_h": d, "H": h, "seed": s,
                          "accuracy": 0.02 + 0.0003 * d * d * h + 0.001 * s}
                         for d in range(3, 9) for h in (1, 5, 9) for s in (0, 1)])


def _committed_exp4(monkeypatch, sse: dict[str, float] | None) -> None:
    import memnb.results as results

    rows = [{"kind": "slope", "d": 3, "seed": 0, "slope": 0.003}]
    rows += [{"kind": f"fit_{k}", "sse": v} for k, v in (sse or {}).items()]
    table = SimpleNamespace(table=pd.DataFrame(rows), provenance={})
    monkeypatch.setattr(results, "load", lambda name, profile, root=None: table)


def test_exp4_fit_errors_are_compared_at_the_captions_precision(monkeypatch):
    from memnb.experiments import dana as exp

    exp1 = _exp1_rows()
    slopes = exp.official_slopes(exp1)
    shown = {k: exp.fit_power(slopes["d"].to_numpy(), slopes["slope"].to_numpy(), p)["sse"]
             for k, p in (("quadratic", 2), ("cubic", 3))}
    rounded = {k: float(f"{v:.2g}") for k, v in shown.items()}  # as the caption writes them
    _committed_exp4(monkeypatch, rounded)
    same = reading.exp4_fits_against_caption(exp1)
    assert ": equal at the caption's precision for both fits" in same
    gap = 100 * (rounded["quadratic"] / shown["quadratic"] - 1)
    assert (f"quadratic {rounded['quadratic']:.4g} against {shown['quadratic']:.4g} "
            f"({gap:+.1f} %; equal as the caption writes them") in same
    _committed_exp4(monkeypatch, {"quadratic": rounded["quadratic"],
                                  "cubic": 3 * shown["cubic"]})
    one = reading.exp4_fits_against_caption(exp1)
    assert ": different at the caption's precision for one fit" in one
    assert "(+200.0 %; not equal" in one
    _committed_exp4(monkeypatch, {"quadratic": 2 * shown["quadratic"],
                                  "cubic": 3 * shown["cubic"]})
    assert "different at the caption's precision for both fits" in (
        reading.exp4_fits_against_caption(exp1))
    _committed_exp4(monkeypatch, None)
    assert reading.exp4_fits_against_caption(exp1) is None


def test_exp4_fit_errors_of_the_committed_tables():
    """On the committed full runs (data/results/full), read as the chapter draws them."""
    from memnb.results import load

    one = load("dana.exp1", "full")
    if one is None or load("dana.exp4", "full") is None:
        pytest.skip("no committed full runs of dana.exp1 and dana.exp4")
    text = reading.exp4_fits_against_caption(reading.as_the_paper_reports(one.table))
    assert text is not None and "quadratic" in text and "cubic" in text


# --- 7. The notebook: no verdict by hand, every glued sentence glued -------------------------

@pytest.mark.parametrize("phrase", [
    "fall short of the\npaper's CSV", "fall short of the paper's CSV", "nowhere tight",
    "barely\ndiffer", "barely differ", "holds here even without it", "These are generic sets",
    "hold on this family, loosely", "differ a little from the caption's",
    "depart from the paper's", "Experiment 2's departure", "close to the\ntable's KL",
    "close to the table's KL", "accounts for\nthat distance", "accounts for that distance",
    "and vanishes from there", "cannot test it", "the point saturates",
    "still memorizes",
])
def test_no_markdown_cell_states_a_verdict_by_hand(phrase):
    assert not [s for s in _cells("markdown") if phrase in s]


def test_every_glued_name_the_markdown_shows_is_glued_by_the_code():
    code, markdown = "\n".join(_cells("code")), "\n".join(_cells("markdown"))
    shown = set(re.findall(r"\{glue:text\}`(\w+)", markdown))
    glued = set(re.findall(r'glue\("(\w+)"', code))
    for keys, prefix in re.findall(r'for key in \(([^)]*)\):\n\s*glue\(f"(\w+)\{key\}"', code):
        glued |= {prefix + k for k in re.findall(r'"(\w+)"', keys)}  # glued in a loop
    assert shown and shown <= glued, shown - glued
    for name in ("thm1_reading", "ls_reading", "remark2_reading", "thm2_gap_reading",
                 "bietti_saturation"):
        assert name in shown, name
    assert "figures.fig5_slopes_sentence(" in code
    assert "reading.exp4_fits_against_caption(exp1)" in code
    assert "figures.propositions_caption(lams, bottleneck, n_small)" in code
