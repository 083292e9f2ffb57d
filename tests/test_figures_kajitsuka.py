"""Kajitsuka & Sato figures: captions computed from the data, with the scorecard's verdicts."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

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
    fig, caption = ksfig.curves_figure(_curves({0: 0.3, 1: 0.01, 4: 0.001}), None, "IMDb",
                                       "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "Verdict: trend" in caption and "No deeper model ends above" in caption


def test_capacity_caption_reports_a_flat_curve():
    table = pd.DataFrame([{"N": N, "d": 16, "seed": 0, "blocks": b,
                           "accuracy": 1.0 if b >= (N > 200) else 0.9}
                          for N in (200, 400, 600, 800) for b in (0, 1, 2, 4)])
    fig, caption = ksfig.capacity_figure(table, None, "quick")
    plt.close(fig)
    assert "Verdict: differs" in caption and "no exponent fitted" in caption


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
