"""Kajitsuka & Sato figures: captions computed from the data, with the scorecard's verdicts."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from pathlib import Path  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from memnb import bounds  # noqa: E402
from memnb.figures import kajitsuka as ksfig  # noqa: E402


def _curves(final_loss: dict[int, float]) -> pd.DataFrame:
    return pd.DataFrame([{"blocks": b, "epoch": e, "seed": 0, "N": 50, "n": 8,
                          "loss": loss * (10 if e == 0 else 1), "accuracy": 0.5 if e == 0 else 1.0}
                         for b, loss in final_loss.items() for e in (0, 10)])


def test_curves_caption_states_the_verdict_and_a_worse_deeper_model():
    fig, caption = ksfig.curves_figure(_curves({0: 0.3, 1: 0.01, 4: 0.02}), None, "IMDb",
                                       "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "Verdict: differs" in caption
    assert "At 4 blocks the final loss (0.02) is higher than at 1 block (0.01)" in caption
    fig, caption = ksfig.curves_figure(_curves({0: 0.3, 1: 0.01, 4: 0.0105}), None, "IMDb",
                                       "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "Verdict: trend" in caption and "No deeper model ends more than 10 %" in caption
    fig, caption = ksfig.curves_figure(_curves({0: 0.3, 1: 0.01, 4: 0.001}), None, "IMDb",
                                       "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "Verdict: trend" in caption and "No deeper model ends more than" in caption


def test_capacity_caption_reports_a_flat_curve():
    table = pd.DataFrame([{"N": N, "d": 16, "seed": 0, "blocks": b,
                           "accuracy": 1.0 if b >= (N > 200) else 0.9}
                          for N in (200, 400, 600, 800) for b in (0, 1, 2, 4)])
    fig, caption = ksfig.capacity_figure(table, None, "quick")
    plt.close(fig)
    # √N from N = 400 to 800 is less than a whole block more: the grid cannot show it
    assert "Verdict: trend" in caption and "no exponent fitted" in caption
    assert "cannot show it" in caption
    assert "model width $d = 16$" in caption and "widths" not in caption


def test_float64_sentence_does_not_add_bits_that_never_meet():
    report = {"prime_bits": 24, "prime_squared_bits": 47, "float64_accuracy": 0.263,
              "ffn1_exact": False, "ffn1_first_failing_layer": 28, "ffn1_depth": 183,
              "ffn1_max_weight_bits": 47, "ffn1_max_value_bits": 47, "ffn1_max_product_bits": 90,
              "ffn2_exact": False, "ffn2_first_failing_layer": 0, "ffn2_depth": 211,
              "ffn2_max_weight_bits": 93, "ffn2_max_value_bits": 40, "ffn2_max_product_bits": 130}
    text = ksfig.float64_markdown(report)
    assert "the largest product formed has 90 bits" in text
    assert "would have 93 or 94 bits" in text and "never meet in one product" in text
    assert "give products of 90 bits" not in text
    assert "a weight or bias of 93 bits does not fit" in text and "26.3%" in text
    met = ksfig.float64_markdown({**report, "ffn1_max_product_bits": 94})
    assert "never meet" not in met and "the largest product formed has 94 bits" in met


def test_chapter_prints_the_scorecard_rows_of_theorem_42_and_corollary_41():
    from memnb.scorecard.core import ResultSource, load_items

    root = Path(__file__).parents[1] / "data/results"
    table = pd.read_csv(root / "full/kajitsuka.construction.csv")
    items = {i.item: i for i in load_items(["kajitsuka"])}
    source = ResultSource("full", root=root)
    rows = {k: items[k].evaluate(source) for k in ("Theorem 4.2", "Corollary 4.1")}
    fig, caption = ksfig.lower_bound_figure(table)
    plt.close(fig)
    thm, cor = caption.split("Corollary 4.1 row")
    assert f"**Verdict: {rows['Theorem 4.2'].status}** ({rows['Theorem 4.2'].measured})" in thm
    assert f"**Verdict: {rows['Corollary 4.1'].status}** ({rows['Corollary 4.1'].measured})" \
        in cor
    fig, caption = ksfig.construction_figure(table, None, "quick")
    plt.close(fig)
    status = rows["Corollary 4.1"].status
    assert f"whose verdict (with the necessity half, Sec. 4) is **{status}**" in caption
    assert "status reproduced" not in caption


def test_crossings_are_where_the_closed_forms_cross():
    at = ksfig.crossing(8, "naive N", N_max=10**7)
    assert at is not None
    assert bounds.kajitsuka_construction_parameter_model(int(at), 8, 2, 1000) < at
    below = int(at * 0.97)
    assert bounds.kajitsuka_construction_parameter_model(below, 8, 2, 1000) >= below
    assert ksfig.crossing(8, "naive N", N_max=1000) is None
    text = ksfig.slider_markdown([8], N_max=1000)
    assert "over the whole drawn range" in text and "Park" in text


def test_hash_markdown_states_the_counts():
    text = ksfig.hash_markdown({"sequences": 10, "linear": 3, "affine": 7, "affine mod p": 3,
                                "power": 10})
    assert "takes 3 distinct values" in text and "takes 7" in text and "all 10" in text


def test_a_partial_full_run_caps_the_caption_verdicts_at_trend():
    curves = _curves({0: 0.3, 1: 0.01, 4: 0.001})
    fig, caption = ksfig.curves_figure(curves, curves, "IMDb", "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "loss **Verdict: reproduced**" in caption
    fig, caption = ksfig.curves_figure(curves, curves, "IMDb", "Figs. 4 and 5", "quick",
                                       partial="partial: 12 of 25 points")
    plt.close(fig)
    assert "reproduced" not in caption and "loss **Verdict: trend**" in caption
    assert "[the full-scale run is partial: 12 of 25 points]" in caption


def test_curves_caption_names_a_partial_run_and_each_seed_and_colours_a_depth_once():
    quick = _curves({0: 0.3, 1: 0.01, 4: 0.001})
    full = pd.concat([_curves({1: 0.01, 10: 0.02}).assign(N=3000, seed=s) for s in (0, 1)])
    full.loc[(full["seed"] == 1) & (full["blocks"] == 10) & (full["epoch"] == 10),
             "accuracy"] = 0.67  # one seed fails to train at 10 blocks
    fig, caption = ksfig.curves_figure(quick, full, "MultiNLI", "Figs. 1 and 2", "quick",
                                       partial="partial: 4 of 10 points ran")
    lines = {line.get_label(): line.get_color() for line in fig.axes[1].get_lines()}
    plt.close(fig)
    assert lines["blocks=1 (ours)"] == lines["blocks=1 (ours (cached full run), mean ± std over "
                                             "2 seeds)"]
    assert "N = 50 (quick profile, circles) and N = 3000 (full-scale run, squares)" in \
        fig._suptitle.get_text()
    assert "From the full-scale run (partial: 4 of 10 points ran)" in caption
    assert "worst to best: 1 block 1 to 1; 10 blocks 0.67 to 1." in caption
