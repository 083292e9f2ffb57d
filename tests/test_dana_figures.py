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


def _heads_tables(slopes: dict[str, float], ds=(10, 13), seeds=(0, 1)):
    """Experiment 1 tables whose accuracy is 0.1 + slope * H (below 0.95) per model kind."""
    def rows(kind):
        return [{"model": kind, "N": 50, "d": d, "d_h": d, "H": h, "seed": s, "T0": 2500,
                 "accuracy": 0.1 + slopes[kind] * h}
                for d in ds for h in dana.HEADS_FULL[:4] for s in seeds]
    exp1 = pd.DataFrame(rows("aot") + [{**r, "d": 6, "d_h": 6} for r in rows("aot")[:4]])
    layout = pd.DataFrame(rows("aot_code") + rows("aot_code_uncompressed"))
    return layout, exp1


def test_layout_slopes_recover_each_models_slope_and_compare_with_the_paper():
    slopes = {"aot": 0.03, "aot_code": 0.034, "aot_code_uncompressed": 0.02}
    table = figures.layout_slopes(*_heads_tables(slopes))
    assert len(table) == 6 and set(table["d"]) == {10, 13}  # d = 6 is not in layout_heads
    for kind, slope in slopes.items():
        rows = table[table["model"] == dana.MODEL_KINDS[kind]]
        assert rows["slope"].to_numpy() == pytest.approx([slope, slope])
        assert list(rows["seeds"]) == [2, 2]
        for d, difference in zip(rows["d"], rows["difference_%"], strict=True):
            paper = dana.PAPER_EXP1_SLOPES[d]
            assert difference == pytest.approx(100 * (slope / paper - 1))


def test_layout_heads_figure_has_one_panel_per_d_and_the_paper_at_d_10():
    fig = figures.layout_heads_figure(*_heads_tables({"aot": 0.03, "aot_code": 0.034,
                                                      "aot_code_uncompressed": 0.02}))
    assert len(fig.axes) == 2 and len(fig.legends) == 1
    for ax, has_paper in zip(fig.axes, (True, False), strict=True):
        labels = [line.get_label() for line in ax.get_lines()]
        assert sum(label.startswith("ours:") for label in labels) == 3
        assert any(label.startswith("paper") for label in labels) is has_paper
    plt.close(fig)
