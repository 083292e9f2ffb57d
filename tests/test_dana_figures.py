"""The Dana chapter's comparison of eq. (2) with the official code's model (figures.dana)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from memnb.experiments import dana  # noqa: E402
from memnb.figures import dana as figures  # noqa: E402


def _tables(offsets: dict[str, float], n: int = 50):
    """Tables whose accuracies are the paper's plus a known offset per model kind."""
    paper2 = dict(zip(dana.PAPER_EXP2["d_h"], dana.PAPER_EXP2["accuracy"], strict=True))
    paper3 = dict(zip(dana.PAPER_EXP3["d"], dana.PAPER_EXP3["accuracy"], strict=True))
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


def test_distances_to_the_paper_are_the_offsets():
    offsets = {"aot": 0.2, "aot_code": 0.01, "aot_code_uncompressed": -0.15}
    table = figures.layout_distances(*_tables(offsets))
    for kind, offset in offsets.items():
        rows = table[table["model"] == dana.MODEL_KINDS[kind]]
        assert list(rows["points"]) == [10, 6]
        exp2_diff, exp3_diff = rows["mean_abs_difference"]
        assert exp2_diff == pytest.approx(abs(offset))
        # the shared point d = d_h = 10 carries Experiment 2's value (.804, paper's Exp. 3: .809)
        assert exp3_diff == pytest.approx(abs(offset), abs=0.001)
    report = figures.layout_report(*_tables(offsets))
    assert report.count(f"closest: {dana.MODEL_KINDS['aot_code']}") == 2
    offsets["aot_code"] = 0.5
    report = figures.layout_report(*_tables(offsets))
    assert report.count(f"closest: {dana.MODEL_KINDS['aot_code_uncompressed']}") == 2


def test_report_declines_outside_the_papers_setting():
    report = figures.layout_report(*_tables({"aot": 0, "aot_code": 0,
                                             "aot_code_uncompressed": 0}, n=12))
    assert "does not run the paper's setting" in report


def test_layout_figure_draws_three_models_and_the_paper_per_panel():
    fig = figures.layout_figure(*_tables({"aot": 0, "aot_code": 0.1, "aot_code_uncompressed": 0}))
    for ax in fig.axes:
        labels = [line.get_label() for line in ax.get_lines()]
        assert sum(label.startswith("ours:") for label in labels) == 3
        assert any(label.startswith("paper") for label in labels)
        assert ax.get_xlabel()
    assert fig.axes[0].get_ylabel().startswith("accuracy")
    assert len(fig.legends) == 1  # one legend for both panels, below them
    plt.close(fig)
