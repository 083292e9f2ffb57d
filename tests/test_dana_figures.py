"""The Dana chapter's comparison of eq. (2) with the official code's model (figures.dana)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from dana_tables import fig7_seeds, paper_offset_tables  # noqa: E402

from memnb import dana_reading as reading  # noqa: E402
from memnb import viz  # noqa: E402
from memnb.experiments import dana  # noqa: E402
from memnb.figures import dana as figures  # noqa: E402
from memnb.papers import dana as paper  # noqa: E402


def test_distances_to_the_paper_are_the_offsets():
    offsets = {"aot": 0.2, "aot_code": 0.01, "aot_code_uncompressed": -0.15}
    table = figures.layout_distances(*paper_offset_tables(offsets))
    for kind, offset in offsets.items():
        rows = table[table["model"] == dana.MODEL_KINDS[kind]]
        assert list(rows["points"]) == [10, 11]  # every value of the paper's CSVs
        exp2_diff, exp3_diff = rows["mean_abs_difference"]
        assert exp2_diff == pytest.approx(abs(offset))
        # the shared point d = d_h = 10 carries Experiment 2's value (the CSVs differ there)
        assert exp3_diff == pytest.approx(abs(offset), abs=0.002)
    report = figures.layout_report(*paper_offset_tables(offsets))
    assert report.count(f"closest: {dana.MODEL_KINDS['aot_code']}") == 2
    offsets["aot_code"] = 0.5
    report = figures.layout_report(*paper_offset_tables(offsets))
    assert report.count(f"closest: {dana.MODEL_KINDS['aot_code_uncompressed']}") == 2


def test_report_declines_outside_the_papers_setting():
    report = figures.layout_report(*paper_offset_tables({"aot": 0, "aot_code": 0,
                                             "aot_code_uncompressed": 0}, n=12))
    assert "does not run the paper's setting" in report


def test_layout_figure_draws_three_models_and_the_paper_per_panel():
    fig = figures.layout_figure(*paper_offset_tables({"aot": 0, "aot_code": 0.1,
                                                      "aot_code_uncompressed": 0}))
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
        assert list(rows["seed_std"]) == pytest.approx([0, 0], abs=1e-12)
        for d, difference in zip(rows["d"], rows["difference_%"], strict=True):
            theirs = paper.exp1_slopes().set_index("d").loc[d, "slope"]
            assert difference == pytest.approx(100 * (slope / theirs - 1))


def test_layout_heads_figure_has_one_panel_per_d_and_the_paper_at_d_10():
    fig = figures.layout_heads_figure(*_heads_tables({"aot": 0.03, "aot_code": 0.034,
                                                      "aot_code_uncompressed": 0.02}))
    assert len(fig.axes) == 2 and len(fig.legends) == 1
    for ax, has_paper in zip(fig.axes, (True, True), strict=True):  # CSVs at d = 10 and 13
        labels = [line.get_label() for line in ax.get_lines()]
        assert sum(label.startswith("ours:") for label in labels) == 3
        assert any(label.startswith("paper") for label in labels) is has_paper
    plt.close(fig)


def _exp1_table(ds, slope_of_d, seeds=(0, 1), n=50):
    return pd.DataFrame([{"model": "aot", "N": n, "d": d, "d_h": d, "H": h, "seed": s,
                          "T0": n * n, "accuracy": min(0.1 + slope_of_d(d) * h, 1.0)}
                         for d in ds for h in dana.HEADS_FULL for s in seeds])


def test_slopes_against_paper_has_the_papers_slope_at_every_d():
    table = figures.slopes_against_paper(_exp1_table(range(3, 14), lambda d: 2e-4 * d * d))
    assert list(table["d"]) == list(range(3, 14))
    assert table["paper"].notna().all() and table["difference_%"].notna().all()
    assert table["ours"].to_numpy() == pytest.approx([2e-4 * d * d for d in range(3, 14)])


def test_fits_report_says_a_two_point_fit_cannot_choose():
    two = figures.fits_report(_exp1_table([6, 10], lambda d: 2e-4 * d * d))
    assert "cannot tell quadratic from cubic" in two
    many = figures.fits_report(_exp1_table(range(3, 10), lambda d: 3e-4 * d ** 2))
    assert "the quadratic fit has the smaller error" in many
    cubic = figures.fits_report(_exp1_table(range(3, 10), lambda d: 2e-5 * d ** 3))
    assert "the cubic fit has the smaller error" in cubic


def test_exp1_figure_is_small_multiples_with_the_legend_outside():
    fig = figures.exp1_figure(_exp1_table(range(3, 14), lambda d: 2e-4 * d * d))
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 11 and len(fig.legends) == 1
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert all(any(line.get_label().startswith("paper") for line in ax.get_lines())
               for ax in visible)  # the paper's CSV at every d
    # one y label for the grid (a label per row is taller than the row and overprints)
    assert all(ax.get_ylabel() == "" for ax in fig.axes)
    assert fig.get_supylabel().startswith("accuracy")
    plt.close(fig)


def _paper_exp1_table(offset, ds=range(3, 14)):
    """Experiment 1 at the paper's CSV values plus ``offset`` (two seeds)."""
    theirs = paper.exp1()
    return pd.DataFrame([{"model": "aot", "N": 50, "d": r.d, "d_h": r.d, "H": r.H, "seed": s,
                          "T0": 2500, "accuracy": r.accuracy + offset}
                         for r in theirs[theirs["d"].isin(list(ds))].itertuples()
                         for s in (0, 1)])


def test_exp1_caption_counts_every_panel_and_where_ours_is_below_the_paper():
    from types import SimpleNamespace

    row = SimpleNamespace(item="Fig. 1a", status="reproduced", measured="m")
    below = _paper_exp1_table(-0.048)
    points = len(below) // 2
    text = figures.exp1_caption(below, row)
    c = figures.bound_check(below, ["d", "H"])  # one point per (d, H), all panels
    assert c["points"] == points
    assert (f"Over all 11 panels, {c['above_bound']} of {points} seed-averaged points lie on or "
            "above") in text
    assert f"Ours lies below the paper's CSV at {points} of {points} points (by 0.048" in text
    assert "at every H for d = 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13; at d = 10, at 7 of 7 H" in text
    assert ("mean |ours − paper| of this table is 0.0480 (tolerance 0.05), within the tolerance "
            "by 0.0020 (4% of it; under a tenth of it, a narrow margin)") in text
    lead, _, details = text.partition(viz.DETAILS)  # the numbers fold below what is drawn
    assert lead.strip().endswith("Verdict (Fig. 1a): **reproduced**.")
    assert "Over all 11 panels" in details and "Over all" not in lead
    assert details.strip().endswith("Verdict (Fig. 1a): **reproduced** (m).")
    above = figures.exp1_caption(_paper_exp1_table(0.01), row)
    assert "below the paper's CSV at 0 of" in above and "a narrow margin" not in above
    assert "each of the 11 panels compared is within its tolerance" in above
    assert "0 of 11 panels exceed the tolerance of 0.05" in above
    per = figures.exp1_against_paper(below).set_index("d")
    assert per.loc[10, "mean_abs"] == pytest.approx(0.048)
    assert figures.exp1_against_paper(below.assign(N=12)).empty


def test_exp1_caption_counts_the_panels_outside_the_verdicts_tolerance():
    """Review: the caption said "reproduced" from d = 10 alone and never said that another
    panel misses the tolerance. It gives each panel's mean |ours − paper|, counts the panels
    above the verdict's tolerance (ACC_TOL, read from the scorecard) and the largest gap."""
    from types import SimpleNamespace

    from memnb.scorecard.dana import ACC_TOL

    row = SimpleNamespace(item="Fig. 1a", status="reproduced", measured="m")
    table = _paper_exp1_table(0.01)
    off = table["d"] == 12
    table.loc[off, "accuracy"] += ACC_TOL  # d = 12: mean |Δ| above 0.01 + ACC_TOL
    table.loc[off & (table["H"] == 16), "accuracy"] += 0.05  # its largest gap
    text = figures.exp1_caption(table, row)
    lead, _, details = text.partition(viz.DETAILS)
    assert "by its measure, 1 of the 11 panels compared is outside its tolerance." in lead
    heads = int((table["d"] == 12).sum() // 2)  # two seeds per (d, H)
    assert f"{0.01 + ACC_TOL + 0.05 / heads:.3f} (d = 12)" in details
    assert "0.010 (d = 10)" in details
    assert (f"1 of 11 panels (d = 12) exceeds the tolerance of {ACC_TOL:g} that the verdict "
            "applies to d = 10 only") in details
    assert f"The largest single gap is {0.01 + ACC_TOL + 0.05:.3f}, at d = 12, H = 16." in details


def test_exp3_counts_the_bound_apart_where_d_is_below_d_h():
    """Fig. 2a: at d < d_h the condition d_h ≤ d of the paper's model (Sec. 2) fails, as at
    some points of the paper's own Experiment 3; those points are counted against the stated
    φ(H d_h + d) and the proof's reach φ(H min(d_h, d) + d) apart."""
    from types import SimpleNamespace

    n, t0, h, d_h = 50, 2500, 20, 10
    reach = {d: float(figures._phi(np.array(h * min(d, d_h) + d), n, t0)) for d in range(5, 16)}
    stated = {d: float(figures._phi(np.array(h * d_h + d), n, t0)) for d in range(5, 16)}
    # between the two lines at d < d_h: above the proof's reach, below the stated bound
    acc = {d: (reach[d] + stated[d]) / 2 if d < d_h else 0.9 for d in range(5, 16)}
    table = pd.DataFrame([{"model": "aot", "N": n, "T0": t0, "H": h, "d_h": d_h, "d": d,
                           "seed": 0, "accuracy": a} for d, a in acc.items()])
    text = figures.exp3_bound_sentence(table)
    assert ("at d ≥ d_h = 10, where the condition d_h ≤ d of the paper's model (its Sec. 2) holds, "
            "6 of 6 seed-averaged points lie on or above") in text
    # the condition is the paper's own (Sec. 2), not ours, and its Experiment 3 runs outside it
    assert "the corollary's statement names none" not in text
    assert "the paper's Sec. 2 defines the model with d_h ≤ d; its footnote 1" in text
    own = figures.paper_outside_model()
    theirs = paper.exp3()
    assert own["points"] == int((theirs["d"] < theirs["d_h"]).sum()) > 0
    assert (f"the paper's own Experiment 3 runs d_h = {own['d_h']} above d at {own['points']} of "
            f"the {len(theirs)} points of its CSV (d = {own['d_min']}–{own['d_max']})") in text
    assert ("0 of 5 lie on or above the stated φ(H·d_h + d) and 5 of 5 on or above "
            "φ(H·min(d_h, d) + d)") in text
    # the side below d_h in short sentences: one per side, then the CSV, the reach, the counts
    assert "above the previous bound. At d < d_h (shaded), outside that condition" in text
    assert f"(d = {own['d_min']}–{own['d_max']}). There each head's maps" in text
    assert "associations (ours). Of our seed-averaged points at d < d_h, 0 of 5 lie" in text
    row = SimpleNamespace(item="Fig. 2a", status="differs", measured="m")
    assert "counted on each side of d = d_h: at d ≥ d_h" in figures.exp3_caption(table, row)
    below = figures.exp3_bound_sentence(table[table["d"] < d_h])
    assert below.startswith("at d < d_h (shaded)")  # alone, it continues the caption's colon
    fig = figures.exp3_figure(table)
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert "proof's reach φ(H·min(d_h, d) + d) (ours)" in labels
    assert any("outside the paper's model, d_h ≤ d (its Sec. 2)" in p.get_label()
               for p in fig.axes[0].patches)
    plt.close(fig)


def test_slider_frames_name_their_setting_and_have_a_caption():
    table = _exp1_table([6, 13], lambda d: 2e-4 * d * d)
    fig = figures.heads_frame(table, 31, 13)
    assert fig.axes[0].get_title().startswith("N = 50, d = d_h = 13, H = 31: measured")
    assert "Cor. 2 bound" in fig.axes[0].get_title()
    plt.close(fig)
    text = figures.slider_caption(table, "heads")
    assert text.startswith("Experiment 1 at d = d_h = 13 (the largest d of our run; the paper's "
                           "Fig. 1a draws only d = d_h = 10, its official CSVs hold d = 3 to 13)")
    assert "panel d = d_h = 13 of Fig. 1a" not in text
    assert "choosing H among 1, 6, 11, 16, 21, 26, 31" in text
    exp2 = pd.DataFrame([{"model": "aot", "N": 50, "T0": 2500, "H": 20, "d": 10, "d_h": dh,
                          "seed": 0, "accuracy": 0.05 * dh} for dh in range(1, 11)])
    fig = figures.head_dim_frame(exp2, 4)
    assert fig.axes[0].get_title().startswith("N = 50, d = 10, H = 20, d_h = 4: measured")
    plt.close(fig)
    assert figures.slider_caption(exp2, "head_dim").startswith("Experiment 2 (Fig. 1b), N = 50")
    with pytest.raises(ValueError, match="kind must be"):
        figures.slider_caption(exp2, "d")


def test_the_heads_slider_claims_fig_1a_only_at_its_one_head_dimension():
    """Fig. 1a draws one curve, d = d_h = 10 (its caption, memnb.papers.dana.TEXT); the slider
    at another d (13, the largest of the full run) is paired with that d's official CSV, not
    called a panel of Fig. 1a; at d = 10 its counterpart is Fig. 1a."""
    assert paper.TEXT["exp1_d_h"].value == 10
    at13 = _exp1_table([6, 13], lambda d: 2e-4 * d * d)
    counterpart = figures.slider_counterpart(at13, "heads")
    assert counterpart == ("Dana et al. Experiment 1 at d = d_h = 13 (the official "
                           "Data_exp_1_13.csv, whose slope Fig. 2b plots), beside Fig. 1a, which "
                           "draws d = d_h = 10")
    at10 = _exp1_table([6, 10], lambda d: 2e-4 * d * d)
    assert figures.slider_counterpart(at10, "heads") == "Dana et al. Fig. 1a (Experiment 1)"
    assert figures.slider_caption(at10, "heads").startswith(
        "Experiment 1 at d = d_h = 10 (the d = d_h of the paper's Fig. 1a), N = 50")
    at20 = _exp1_table([6, 20], lambda d: 2e-4 * d * d)
    assert "(no official CSV at d = 20)" in figures.slider_counterpart(at20, "heads")
    assert figures.slider_counterpart(at10, "head_dim") == "Dana et al. Fig. 1b (Experiment 2)"
    with pytest.raises(ValueError, match="kind must be"):
        figures.slider_counterpart(at10, "d")


def _frame_legend(fig):
    """The labels of a frame's figure legend and its font size (the legend is below the axes,
    in the figure, not on them)."""
    assert fig.axes[0].get_legend() is None, "the legend must not sit on the data"
    (legend,) = fig.legends
    return [t.get_text() for t in legend.get_texts()], legend.get_texts()[0].get_fontsize()


def test_the_heads_slider_is_drawn_at_fig_1a_where_the_run_holds_it():
    """Review of the sliders: the full run holds d = 3..13, and the slider over H was drawn at
    the largest d (13) while its caption said Fig. 1a draws only d = d_h = 10; it is now drawn
    at Fig. 1a's d wherever the run holds it, and its counterpart and caption say Fig. 1a."""
    fig1a = figures._fig1a_d()
    every = _exp1_table(range(3, 14), lambda d: 2e-4 * d * d)
    assert figures.slider_d(every) == fig1a == 10
    assert figures.slider_counterpart(every, "heads") == "Dana et al. Fig. 1a (Experiment 1)"
    text = figures.slider_caption(every, "heads")
    assert text.startswith(f"Experiment 1 at d = d_h = {fig1a} (the d = d_h of the paper's "
                           "Fig. 1a), N = 50")
    assert f"official Data_exp_1_{fig1a}.csv (hollow diamonds)" in text
    assert "the largest d of our run" not in text
    # without Fig. 1a's d, the largest d, and the caption says so
    at13 = _exp1_table([6, 13], lambda d: 2e-4 * d * d)
    assert figures.slider_d(at13) == 13
    assert "(the largest d of our run; the paper's Fig. 1a draws only d = d_h = 10" in \
        figures.slider_caption(at13, "heads")


def test_slider_frames_have_a_short_y_label_that_the_caption_spells_out():
    """Review of the sliders: the y-label "accuracy (mean of the last 100 training batches)" was
    taller than the frame's axes and ran into the title; the frame has the short label, the
    caption says what it is; the bound's cross is drawn above the paper's diamond."""
    table = _exp1_table([6, 10], lambda d: 2e-4 * d * d)
    recorded = table.assign(accuracy_checkpoint=table["accuracy"])
    window = dana.OFFICIAL_BATCH_WINDOW
    fig = figures.heads_frame(recorded, 21, 10)
    ax = fig.axes[0]
    assert ax.get_ylabel() == f"accuracy (last {window} batches)"
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    label = ax.yaxis.label.get_window_extent(renderer)
    assert label.height <= ax.get_window_extent(renderer).height
    assert not label.overlaps(ax.title.get_window_extent(renderer))
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    cross, diamond = lines["Cor. 2 bound at H = 21"], lines["paper's CSV at H = 21"]
    assert cross.get_zorder() > diamond.get_zorder()
    plt.close(fig)
    text = figures.slider_caption(recorded, "heads")
    assert (f'The y-axis, "accuracy (last {window} batches)", is the official code\'s mean '
            f"accuracy over the last {window} training batches") in text
    assert "drawn on top of the diamond" in text
    assert figures.accuracy_label(table, short=True) == "accuracy (best checkpoint)"
    assert 'The y-axis, "accuracy (best checkpoint)", is the best checkpoint\'s accuracy' in \
        figures.slider_caption(table, "heads")
    assert figures.accuracy_label(recorded, table, short=True) == \
        f"accuracy (last {window} batches or checkpoint)"
    assert "where a table did not record it" in figures.accuracy_axis_sentence(recorded, table)


def test_slider_frames_draw_the_papers_csv_beside_ours_at_the_papers_setting():
    """Both sliders show the paper's official CSV (Experiment 1 at d = d_h = 13, Experiment 2)
    as hollow diamonds with a legend entry, and the title gives its value at the chosen x
    beside ours; the legend is below the axes in a readable size."""
    exp2 = pd.DataFrame([{"model": "aot", "N": 50, "T0": 2500, "H": 20, "d": 10, "d_h": dh,
                          "seed": 0, "accuracy": 0.05 * dh} for dh in range(1, 11)])
    theirs2 = dict(zip(paper.exp2()["d_h"], paper.exp2()["accuracy"], strict=True))
    fig = figures.head_dim_frame(exp2, 1)
    title = fig.axes[0].get_title()
    assert f"measured 0.050, paper's CSV {theirs2[1]:.3f}, Cor. 2 bound" in title
    labels, size = _frame_legend(fig)
    assert "paper (official CSV)" in labels and size >= 8
    (line,) = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == "paper (official CSV)"]
    assert list(line.get_xdata()) == list(range(1, 11))
    assert list(line.get_ydata()) == pytest.approx([theirs2[k] for k in range(1, 11)])
    plt.close(fig)
    assert "official Data_exp_2.csv (hollow diamonds)" in figures.slider_caption(exp2, "head_dim")

    table = _exp1_table([6, 13], lambda d: 2e-4 * d * d)
    theirs1 = paper.exp1(13).set_index("H")["accuracy"]
    fig = figures.heads_frame(table, 21, 13)
    assert f"paper's CSV {theirs1[21]:.3f}" in fig.axes[0].get_title()
    labels, size = _frame_legend(fig)
    assert "paper (official CSV)" in labels and size >= 8
    plt.close(fig)
    assert "official Data_exp_1_13.csv" in figures.slider_caption(table, "heads")


def test_slider_frames_leave_the_paper_out_off_its_setting():
    """A run at another N (or another d, H) is not compared with the paper's CSV: no paper
    markers, no paper value in the title, and the caption says why."""
    table = _exp1_table([6, 13], lambda d: 2e-4 * d * d, n=12)
    fig = figures.heads_frame(table, 21, 13)
    labels, _ = _frame_legend(fig)
    assert "paper (official CSV)" not in labels and "paper's CSV" not in fig.axes[0].get_title()
    plt.close(fig)
    assert "not at the paper's setting" in figures.slider_caption(table, "heads")
    exp2 = pd.DataFrame([{"model": "aot", "N": 50, "T0": 2500, "H": 8, "d": 10, "d_h": dh,
                          "seed": 0, "accuracy": 0.05 * dh} for dh in range(1, 4)])
    fig = figures.head_dim_frame(exp2, 2)
    assert "paper's CSV" not in fig.axes[0].get_title()
    plt.close(fig)
    assert "not at the paper's setting" in figures.slider_caption(exp2, "head_dim")


def test_slider_frames_name_every_marker_and_mark_the_bound_unlike_the_paper():
    """At the chosen value the frame marks ours (round), the paper's CSV (hollow diamond, as
    elsewhere in the chapter) and Cor. 2's bound (a filled cross, not a diamond), each with its
    own legend entry below the axes; off the paper's setting the paper's marker is absent."""
    table = _exp1_table([6, 13], lambda d: 2e-4 * d * d)
    fig = figures.heads_frame(table, 21, 13)
    labels, _ = _frame_legend(fig)
    assert {"ours at H = 21 (seed mean)", "Cor. 2 bound at H = 21",
            "paper's CSV at H = 21"} <= set(labels)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    assert lines["Cor. 2 bound at H = 21"].get_marker() == "X"
    assert lines["paper's CSV at H = 21"].get_marker() == "D"
    assert lines["paper's CSV at H = 21"].get_markerfacecolor() == "none"
    bound = float(figures._phi(np.array(21 * 13 + 13), 50, 2500))
    assert list(lines["Cor. 2 bound at H = 21"].get_ydata()) == pytest.approx([bound])
    # every marker drawn on the axes has a legend entry
    drawn = {ln.get_label() for ln in fig.axes[0].get_lines()
             if ln.get_marker() not in ("", "None")}
    assert drawn <= set(labels)
    plt.close(fig)
    text = figures.slider_caption(table, "heads")
    assert "the filled cross the bound" in text and "filled diamond" not in text
    off = _exp1_table([6, 13], lambda d: 2e-4 * d * d, n=12)
    fig = figures.heads_frame(off, 21, 13)
    labels, _ = _frame_legend(fig)
    assert "Cor. 2 bound at H = 21" in labels and "paper's CSV at H = 21" not in labels
    plt.close(fig)


def test_the_dana_slider_section_does_not_say_accuracy_and_bound_move_together():
    """The frames show accuracy levelling off (or dipping) while the bound rises: the section
    heading compares them rather than claiming they move together."""
    import json
    from pathlib import Path

    cells = json.loads((Path(__file__).resolve().parent.parent / "notebooks" / "dana.ipynb")
                       .read_text())["cells"]
    text = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "move together" not in text
    assert ("## 6. Sliders: measured accuracy against the bound and the paper's values (ours)"
            in text)  # a presentation of ours, flagged as compare's and kajitsuka_sato's are
    assert "filled diamond" not in text


def test_the_dana_chapter_displays_every_caption_it_builds():
    """A caption built in a code cell but not as its last expression is dropped by Jupyter
    (the Propositions 2/3 figure lost its caption that way): every call that returns one
    (viz.caption, figures.show, figures.caption_of) is the cell's last expression or is
    wrapped in display(...)."""
    import ast
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "notebooks" / "dana.ipynb"
    names = {"caption", "show", "caption_of"}
    dropped = []
    for i, cell in enumerate(json.loads(path.read_text())["cells"]):
        if cell["cell_type"] != "code":
            continue
        body = ast.parse("".join(cell["source"])).body
        for stmt in body[:-1]:
            if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                    and isinstance(stmt.value.func, ast.Attribute)
                    and stmt.value.func.attr in names):
                dropped.append((i, stmt.value.func.attr))
    assert not dropped, f"captions built but not displayed (cell, call): {dropped}"


def _exp5_table(aot, mlp, d=10, h=31):
    rows = []
    for kind, acc in (("aot", aot), ("mlp", mlp)):
        for hh in (1, h):
            rows.append({"model": kind, "N": 70, "d": d, "d_h": d, "H_equiv": hh,
                         "H": hh if kind == "aot" else 1, "seed": 0,
                         "params": 4 * d * d * hh + d * 141, "accuracy": acc if hh == h else 0.07})
    return pd.DataFrame(rows)


def test_exp5_figure_counts_each_models_parameters():
    """Fig. 3's x-axis is our count of each model: the MLP model has its input-layer bias,
    w = 2d(H − 1), more than the AoT; the paper's x-axis formula leaves it out."""
    d, n = 10, 70
    rows = []
    for h in (1, 31):
        aot = d * (2 + 2 * n) + 4 * d * d * h
        w = 2 * d * (h - 1)
        rows += [{"model": "aot", "N": n, "d": d, "d_h": d, "H_equiv": h, "H": h, "seed": 0,
                  "params": aot, "accuracy": 0.5},
                 {"model": "mlp", "N": n, "d": d, "d_h": d, "H_equiv": h, "H": 1, "seed": 0,
                  "params": aot + w, "width": w, "accuracy": 0.6}]
    table = pd.DataFrame(rows)
    counts = figures.exp5_params(table).iloc[0]
    assert (counts["aot"], counts["mlp"], counts["width"]) == (13820, 14420, 600)
    assert counts["paper_x"] == 4 * d * d * 31 + d * (2 * n + 1)
    text = figures.exp5_params_sentence(table)
    assert "the MLP model has w = 2d(H − 1) parameters more, the biases of its input layer" in text
    assert "d = 10, H = 31: AoT 13,820, MLP 14,420 (+600, w = 600)" in text
    assert "leaves that bias out" in text and "is d above it (13,820 vs 13,810 at d = 10)" in text
    code = table.replace({"model": {"aot": "aot_code", "mlp": "mlp_code"}})
    assert "our rewrite of the official code's models has the same counts (dana.exp5_code: " \
        "d = 10: AoT 13,820, MLP 14,420)" in figures.exp5_params_sentence(table, code)
    # the code's own modules: S + 1 positional rows of d_h, the last never read (from the shape)
    with_s = code.assign(S=2)
    assert ("the code's own modules allocate one positional row more (S + 1 = 3 rows where it "
            "reads S = 2; the last is never read), d_h = d parameters more per model: AoT "
            "13,830 and MLP 14,430 at d = 10") in figures.exp5_params_sentence(table, with_s)
    other = with_s.assign(params=with_s["params"] + 1)
    assert "our rewrite of the official code's models has other counts" in \
        figures.exp5_params_sentence(table, other)
    fig = figures.exp5_figure(table)
    ax = fig.axes[1]  # d = 10 (panels d = 7, 10, 13)
    assert ax.get_xlabel() == "parameters (our count of each model)"
    theirs = paper.exp5()
    ref = theirs[(theirs["d"] == 10) & (theirs["model"] == "mlp")]
    line = next(li for li in ax.get_lines() if li.get_label() == "paper: 1 head + MLP")
    assert list(line.get_xdata()) == list(d * (2 + 2 * n) + 4 * d * d * ref["H"]
                                          + 2 * d * (ref["H"] - 1))
    plt.close(fig)


def test_exp5_order_compares_with_the_papers_csv():
    order = reading.exp5_order(_exp5_table(aot=0.6, mlp=0.4))
    row = order.iloc[0]
    assert row["ours_ahead"] == "AoT"
    theirs = paper.exp5()
    ref = theirs[(theirs["d"] == 10) & (theirs["H"] == 31)].set_index("model")["accuracy"]
    assert row["paper_aot"] == pytest.approx(ref["aot"])
    assert row["paper_ahead"] == ("AoT" if ref["aot"] > ref["mlp"] else "MLP")


def test_exp5_order_reads_split_seeds_on_their_medians():
    from memnb.scorecard import dana as scorecard_dana

    # the MLP's seeds split (two learn the task, three stay near chance): its mean is ahead of
    # the AoT, its median behind
    seeds = [0.99, 0.98, 0.05, 0.05, 0.05]
    table = pd.concat([_exp5_table(aot=0.3, mlp=a).assign(seed=s) for s, a in enumerate(seeds)],
                      ignore_index=True)
    table.loc[table["model"] == "aot", "accuracy"] += 0.001 * table["seed"]
    row = reading.exp5_order(table).iloc[0]
    assert row["split"] and row["ours_ahead"] == "MLP" and row["ours_ahead_median"] == "AoT"
    assert row["mlp_median"] == pytest.approx(0.05)
    read, clause = scorecard_dana.order_reading(reading.exp5_order(table))
    assert list(read) == ["AoT"] and "read on the seed medians at d = 10" in clause
    # seeds within the spread: not split, read on the mean, no clause
    close = table.assign(accuracy=table["accuracy"].clip(upper=0.5).clip(lower=0.4))
    read, clause = scorecard_dana.order_reading(reading.exp5_order(close))
    assert not reading.exp5_order(close).iloc[0]["split"] and clause == ""


def test_exp5_figure_draws_seed_medians_with_a_min_max_band():
    """Fig. 3 draws ours as the Experiment 5 panels of the App. B figures do (their Experiment 1
    and 2 panels draw mean ± std): the median over seeds (the statistic the
    verdict reads where the seeds split), a band from the lowest seed to the highest, every
    seed a dot; the caption says so and gives the split seeds' range, median and mean."""
    from types import SimpleNamespace

    from memnb.experiments.registry import get

    seeds = [0.99, 0.98, 0.05, 0.05, 0.05]
    table = pd.concat([_exp5_table(aot=0.3, mlp=a).assign(seed=s) for s, a in enumerate(seeds)],
                      ignore_index=True)
    fig = figures.exp5_figure(table)
    ax = fig.axes[1]  # d = 10
    label = "ours: 1 head + MLP, median, band min to max over 5 seeds"
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == label]
    assert list(line.get_ydata()) == pytest.approx([0.07, 0.05])  # the median, not the mean
    (band,) = [c for c in ax.collections if np.allclose(
        c.get_paths()[0].vertices[:, 1].max(), 0.99)]
    assert band.get_paths()[0].vertices[:, 1].min() == pytest.approx(0.05)
    plt.close(fig)
    run = SimpleNamespace(name="dana.exp5", fresh=table, cached=None, partial=None,
                          params=get("dana.exp5").params("quick"))
    text = figures.exp5_caption(run, SimpleNamespace(item="Fig. 3", status="differs",
                                                     measured="m"))
    assert ("the line is the median over seeds (up to 5 seeds), the band runs from the "
            "lowest") in text
    assert "MLP 0.050–0.990 (median 0.050, mean 0.424)" in text
    assert "reads the seed medians where the seeds split" in text
    assert "as in the Experiment 5 panels (bottom row) of the App. B figures" in text


def test_exp5_with_a_partial_full_run_beside_the_fresh_run(monkeypatch):
    from types import SimpleNamespace

    from memnb.experiments.registry import get
    from memnb.scorecard import dana as scorecard_dana

    # a partial full run holding only the AoT of d = 7: no row for that d, nothing raised
    partial = _exp5_table(aot=0.6, mlp=0.4, d=7).query("model == 'aot'")
    both = pd.concat([partial, _exp5_table(aot=0.6, mlp=0.4)], ignore_index=True)
    assert list(reading.exp5_order(both)["d"]) == [10]
    fig = figures.exp5_figure(_exp5_table(aot=0.5, mlp=0.45), partial)
    plt.close(fig)
    monkeypatch.setattr(scorecard_dana, "full_run_exists", lambda name: True)
    run = SimpleNamespace(name="dana.exp5", fresh=_exp5_table(aot=0.5, mlp=0.45),
                          cached=partial, partial="partial: 7 of 210 points ran; missing ...",
                          params=get("dana.exp5").params("quick"))
    row = SimpleNamespace(item="Fig. 3", status="trend", measured="m")
    text = figures.exp5_caption(run, row)
    assert text.startswith("The committed full run of Experiment 5 is partial: 7 of 210 points")
    assert "drawn beside this profile's `dana.exp5` run" in text
    assert "d = 10, H = 31: AoT 0.500 vs MLP 0.450" in text


def test_exp5_caption_reads_the_full_run_where_it_holds_both_models(monkeypatch):
    from types import SimpleNamespace

    from memnb.experiments.registry import get
    from memnb.scorecard import dana as scorecard_dana

    monkeypatch.setattr(scorecard_dana, "full_run_exists", lambda name: True)
    full = _exp5_table(aot=0.25, mlp=0.52, d=7)  # the paper's CSV has the AoT ahead at d = 7
    run = SimpleNamespace(name="dana.exp5", fresh=_exp5_table(aot=0.19, mlp=0.09, d=7),
                          cached=full, partial="partial: 14 of 210 points ran; missing ...",
                          params=get("dana.exp5").params("quick"))
    row = SimpleNamespace(item="Fig. 3", status="differs", measured="m")
    text = figures.exp5_caption(run, row)
    assert "the text below reads both" in text
    assert ("The committed full run, at the paper's budget, has: d = 7, H = 31 (1 seed): "
            "AoT 0.250 vs MLP 0.520 (MLP ahead") in text
    # a partial run with a second seed of the AoT only: each mean says what it averages
    second = full.query("model == 'aot'").assign(seed=1, accuracy=0.27)
    run.cached = pd.concat([full, second], ignore_index=True)
    assert ("d = 7, H = 31 (AoT 2 seeds, MLP 1; per seed AoT 0.250–0.270): AoT 0.260 vs MLP "
            "0.520" in figures.exp5_caption(run, row))
    assert "an MLP short of training does not explain the difference there" in text
    assert "Our eq. (2) AoT over the paper's CSV AoT, at every H of the full run" in text
    # a complete full run is drawn itself (no cached table): the level is read from it
    drawn = SimpleNamespace(name="dana.exp5", fresh=full, cached=None, partial=None,
                            params=get("dana.exp5").params("full"))
    drawn_text = figures.exp5_caption(drawn, row)
    assert "at every H of the full run: d = 7" in drawn_text
    assert drawn_text.count("Section 7") == 1
    assert "to see whether the model explains the reversed order and the level." in drawn_text
    assert "and Experiment 5), to see" in drawn_text  # no d named without Sec. 7's table
    pointer = figures.exp5_caption(drawn, row, pd.Series([10, 7, 7, 10]))
    assert "(ours; Experiment 1, and Experiment 5 at d = 7 and 10), to see" in pointer
    assert "At the largest H we ran: d = 7, H = 31 (1 seed): AoT 0.250" in drawn_text
    run.cached = None  # without it, no sentence about the full run
    alone = figures.exp5_caption(run, row)
    assert "paper's budget" not in alone and "every H of the full run" not in alone


def test_exp5_level_divides_ours_by_the_papers_csv_at_every_h():
    theirs = paper.exp5()
    ref = theirs[(theirs["d"] == 10) & (theirs["model"] == "aot")].set_index("H")["accuracy"]
    table = _exp5_table(aot=0.8 * float(ref[31]), mlp=0.4)
    table.loc[table["H_equiv"] == 1, "accuracy"] = float(ref[1])
    level = reading.exp5_level(table).iloc[0]
    assert (level["d"], level["H_min"], level["H_max"]) == (10, 31, 31)
    assert level["ratio_h1"] == pytest.approx(1.0) and level["ratio_max"] == pytest.approx(0.8)
    text = reading.exp5_level_sentence(table)
    assert "d = 10: 1.00 at H = 1, 0.80–0.80 at H = 31..31 (1 seed)" in text
    assert "Below 1 at every H > 1 of all 1 panel" in text
    above = _exp5_table(aot=1.1 * float(ref[31]), mlp=0.4)
    assert "reaches or passes the paper's at some H > 1 (d = 10)" in reading.exp5_level_sentence(
        above)
    other_n = _exp5_table(0.5, 0.4).assign(N=50)  # not the paper's N: nothing to compare
    assert reading.exp5_level_sentence(other_n) == ""


def test_departures_report_uses_all_eleven_values_of_the_paper():
    layout, exp2, exp3 = paper_offset_tables({"aot": 0.1, "aot_code": 0,
                                              "aot_code_uncompressed": 0})
    report = figures.departures_report(exp2, exp3)
    assert "Over the 11 values of d" in report and "0.100 from the paper's" in report
    # the law is read as the compression's together with the initialisation's, not the
    # compression's alone: dana.layout does not separate the two
    assert ("through its compression together with its initialisation (which our runs do not "
            "separate") in report
    assert "Our reading, tested below (`dana.layout`): the official code compresses" not in report


def test_departures_report_states_the_curvature_of_the_fig_1b_rule_or_not_decided():
    """The curve's shape in d_h is the sign of the curvature the scorecard's Fig. 1b row fits
    (convex_growth), and "not decided" with too few values of d_h for that fit (the ci profile
    runs d_h = 1 and 4), never a shape read from no fit."""
    from memnb.scorecard.dana import convex_growth

    _, exp2, exp3 = paper_offset_tables({"aot": 0.0, "aot_code": 0.0, "aot_code_uncompressed": 0.0})
    for shape in (lambda x: 0.01 * x**2, lambda x: np.sqrt(x) / 4):  # convex, concave
        curved = exp2.assign(accuracy=shape(exp2["d_h"]))
        means = curved.groupby("d_h")["accuracy"].mean()
        c2 = convex_growth(means.index, means.to_numpy()).values["c2"]
        word = "convex (as the paper's)" if c2 > 0 else "concave (the paper's is convex)"
        assert f"the curve is {word}" in figures.departures_report(curved, exp3)
    two = exp2[exp2["d_h"].isin([1, 4])]
    report = figures.departures_report(two, exp3)
    assert ("whether the curve is convex is not decided: no curvature can be fitted to 2 values "
            "of d_h (the paper's is convex)") in report
    assert "; the curve is" not in report  # no shape stated without a fit
    # a curvature whose 95 % interval holds 0 is not decided either (the Fig. 1b row's rule)
    noise = np.where(exp2["d_h"].to_numpy() % 2 == 0, 0.3, -0.3)
    noisy = exp2.assign(accuracy=exp2["d_h"] + 0.002 * exp2["d_h"] ** 2 + noise)
    assert ("whether the curve is convex is not decided: the 95 % interval of its curvature "
            "holds 0") in figures.departures_report(noisy, exp3)


def _appendix_quick_table():
    rows = [{"figure": "Fig. 8", "model": "aot", "N": 40, "d": 7, "d_h": 7, "H": h, "seed": 0,
             "layers": 5, "params": 100 * h, "accuracy": 0.1 + 0.02 * h} for h in (1, 5, 9)]
    rows += [{"figure": "Fig. 9", "model": "aot", "N": 40, "d": 7, "d_h": dh, "H": 9, "seed": 0,
              "layers": 5, "params": 50 * dh, "accuracy": 0.1 + 0.01 * dh**2} for dh in (1, 4, 7)]
    rows += [{"figure": "Fig. 10", "model": "mlp", "N": 40, "d": 7, "d_h": 7, "H": 1,
              "H_equiv": h, "width": 14 * (h - 1), "seed": 0, "layers": 5, "params": 100 * h,
              "accuracy": 0.1 + 0.01 * h} for h in (1, 5, 9)]
    return pd.DataFrame(rows)


def test_appendix_figure_draws_ours_beside_the_paper_and_captions_the_verdicts():
    from types import SimpleNamespace

    table = _appendix_quick_table()
    fig = figures.appendix_figure(table, "depth")
    axes = fig.axes  # Exp. 1, Exp. 2, then one Exp. 5 panel per d (ours 7, the paper's 7-13)
    assert [ax.get_xlabel() for ax in axes] == ["heads H (d_h = d)", "head dimension d_h",
                                                *["parameters (our count, per model)"] * 3]
    assert "Fig. 10" in axes[2].get_title() and "5 layers" in axes[0].get_title()
    labels = axes[0].get_legend_handles_labels()[1]
    assert "ours: d = 7, N = 40" in labels and "paper: d = 13, N = 70" in labels
    verdicts = {f: SimpleNamespace(item=f, status="trend", measured="m")
                for f in ("Fig. 8", "Fig. 9", "Fig. 10")}
    text = figures.appendix_caption(table, "depth", verdicts)
    assert "reduced scale" in text and "Verdict (Fig. 10): **trend**" in text
    assert "Verdicts: Fig. 8 **trend**" in text  # rows that name no run read
    read = {f: SimpleNamespace(item=f, status=status, measured="m", read_from=runs)
            for f, status, runs in (
                ("Fig. 8", "trend", ("`full` run of dana.appendix_depth",)),
                ("Fig. 9", "not run", ("`quick` run of dana.appendix_depth",)),
                ("Fig. 10", "not computable", ("`full` run of dana.appendix_depth",)))}
    assert ("Verdicts (read from the `full` run of dana.appendix_depth): Fig. 8 **trend**, "
            "Fig. 9 **not run**") in figures.appendix_caption(table, "depth", read)
    assert "with 5 residual attention layers" in text
    assert "Solid lines with round markers: this build's run." in text
    in_place = figures.appendix_caption(table, "depth", verdicts, read_in_place=True)
    assert ("Solid lines with round markers: the committed full run, read in place of a run of "
            "this build.") in in_place
    assert "Solid lines with round markers: this build's run" not in in_place
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "ours: this build's run" in legend
    plt.close(fig)
    fig = figures.appendix_figure(table, "depth", read_in_place=True)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "ours: the committed full run (read in place of a run of this build)" in legend
    assert "ours: this build's run" not in legend
    plt.close(fig)
    with pytest.raises(ValueError, match="kind must be one of"):
        figures.appendix_figure(table, "width")


def _appendix_exp5_split(figure: str, d: int, layers: int = 1) -> pd.DataFrame:
    """Experiment 5 rows of App. B (``figure``: "Fig. 7" or "Fig. 10") whose one head + MLP
    seeds split (three near chance, two near 1), as the committed Fig. 7 run's do: a mean ±
    std band would leave [0, 1] and hold no seed."""
    mlp = (0.03, 0.03, 0.04, 0.97, 0.99)
    rows = []
    for h in (1, 3, 5):
        rows += [{"figure": figure, "model": "aot", "N": 200, "d": d, "d_h": d, "H": h,
                  "H_equiv": h, "width": 0, "seed": s, "layers": layers, "params": 1000 * h,
                  "accuracy": 0.05 * h + 0.01 * s} for s in range(5)]
        rows += [{"figure": figure, "model": "mlp", "N": 200, "d": d, "d_h": d, "H": 1,
                  "H_equiv": h, "width": 2 * d * (h - 1), "seed": s, "layers": layers,
                  "params": 1000 * h + 2 * d * (h - 1),
                  "accuracy": 0.05 if h == 1 else a} for s, a in enumerate(mlp)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("kind", "figure", "d", "layers"),
                         [("dim", "Fig. 7", 40, 1), ("depth", "Fig. 10", 7, 3)])
def test_the_exp5_panel_draws_seed_medians_in_a_min_max_band(kind, figure, d, layers):
    """App. B's Experiment 5 panel (Figs. 7 and 10) draws ours as the seed median, a band from
    the lowest seed to the highest and every seed as a faint dot (as the Fig. 7 figure of two
    pairs of models does): split seeds stay inside [0, 1] and inside the band."""
    table = _appendix_exp5_split(figure, d, layers)
    fig = figures.appendix_figure(table, kind)
    ax = fig.axes[2]
    assert ax.get_title().startswith(f"{figure}: Exp. 5")
    mlp = table[table["model"] == "mlp"]
    stats = mlp.groupby("params")["accuracy"].agg(["median", "min", "max"])
    line = next(ln for ln in ax.lines if ln.get_label() == (
        f"ours: d = {d}, 1 head + MLP, median, band min to max over 5 seeds"))
    assert list(line.get_ydata()) == pytest.approx(list(stats["median"]))
    assert line.get_marker() == "x"
    # every band is min to max over seeds: inside [0, 1], each seed within it
    bands = [c.get_paths()[0].vertices for c in ax.collections]
    assert bands and all(((v[:, 1] >= 0) & (v[:, 1] <= 1)).all() for v in bands)
    mlp_band = next(v for v in bands if v[:, 1].max() == pytest.approx(0.99))
    for x, row in stats.iterrows():
        ys = set(np.round(mlp_band[np.isclose(mlp_band[:, 0], x), 1], 6))
        assert ys <= {round(row["min"], 6), round(row["max"], 6)}, (x, ys)
    assert mlp_band[:, 1].min() == pytest.approx(0.03)  # mean − std would be below 0
    # each seed a faint dot: no line through them
    dots = [ln for ln in ax.lines if ln.get_linestyle() == "None" and ln.get_alpha() == 0.3]
    assert sorted(np.concatenate([ln.get_ydata() for ln in dots])) == pytest.approx(
        sorted(table["accuracy"]))
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert (f"{figure} (Exp. 5), ours: line the median over seeds,\nband min to max, faint "
            "dots single seeds") in legend
    assert "ours: this build's run, mean ± std over 5 seeds (Exps. 1, 2)" in legend
    plt.close(fig)


def test_the_appendix_caption_says_what_the_exp5_line_and_band_are():
    from types import SimpleNamespace

    verdicts = {f: SimpleNamespace(item=f, status="trend", measured="m")
                for f in ("Fig. 8", "Fig. 9", "Fig. 10")}
    text = figures.appendix_caption(_appendix_quick_table(), "depth", verdicts)
    assert ("Ours in the bottom row (Fig. 10): the line is the median over seeds, the band "
            "runs from the lowest seed to the highest (min–max) and each seed is a faint dot"
            ) in text
    assert "medians). Top row: the seed mean ± one standard deviation" in text
    assert ("Top left: accuracy against H (Fig. 8); top right: against d_h at d = 7, H = 9"
            ) in text
    assert "; bottom row, one panel per d: AoT with H heads against one head + MLP" in text
    assert "right panel" not in text and "left and middle" not in text


def _place_of(fig: plt.Figure, ax: plt.Axes) -> str:
    """Where ``ax`` sits in ``fig``'s grid, in the caption's words: "top left", "bottom row"
    (an Exp. 5 panel: one of a row of panels)."""
    boxes = [a.get_position() for a in fig.axes]
    box = ax.get_position()
    top = max(b.y0 for b in boxes)
    row = "top" if np.isclose(box.y0, top) else "bottom"
    in_row = [b for b in boxes if np.isclose(b.y0, box.y0)]
    if len(in_row) > 2:
        return f"{row} row"
    return f"{row} {'left' if box.x0 == min(b.x0 for b in in_row) else 'right'}"


@pytest.mark.parametrize("kind", ["dim", "depth"])
def test_the_appendix_figure_draws_exp5_one_panel_per_d_where_the_caption_says(kind):
    """App. B's Experiment 5 (Figs. 7, 10) gets one panel per d, each holding only that d's
    curves (ours and the paper's) and bands, with a shared y-axis, so that the one head + MLP's
    min–max bands of different d (which span most of [0, 1] where seeds split) do not overlap;
    the caption's panel positions are those of the drawn axes."""
    figure = {"dim": "Fig. 7", "depth": "Fig. 10"}[kind]
    table = pd.concat([_appendix_exp5_split(figure, d) for d in
                       {"dim": (40, 50, 60), "depth": (7, 10, 13)}[kind]], ignore_index=True)
    fig = figures.appendix_figure(table, kind)
    fig.canvas.draw()  # positions after the constrained layout
    exp5 = fig.axes[2:]
    ds = sorted(table["d"].unique())
    assert [ax.get_title() for ax in exp5] == [f"{figure}: Exp. 5, d = d_h = {d}" for d in ds]
    for ax, d in zip(exp5, ds, strict=True):
        labels = [ln.get_label() for ln in ax.lines if not ln.get_label().startswith("_")]
        assert labels and all(f"d = {d}," in label for label in labels), labels
        assert any(label.startswith("paper:") for label in labels)
        # its bands: one per model of ours, at this d only (the MLP's reaches the split 0.99)
        assert len(ax.collections) == 2
        assert ax.get_ylim() == exp5[0].get_ylim()
    # the legend sits below every panel, off the data
    legend = fig.legends[0].get_window_extent()
    assert all(legend.y1 <= ax.get_window_extent().y0 for ax in fig.axes)
    places = figures.appendix_places()
    assert _place_of(fig, fig.axes[0]) == places["exp1"] == "top left"
    assert _place_of(fig, fig.axes[1]) == places["exp2"] == "top right"
    assert {_place_of(fig, ax) for ax in exp5} == {places["exp5"]} == {"bottom row"}
    assert places["exp12"] == "top row"
    plt.close(fig)


def _integer_ticks(ax: plt.Axes) -> bool:
    """Whether the x tick labels ``ax`` shows are all integers (no H = 2.5)."""
    lo, hi = ax.get_xlim()
    ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
    return len(ticks) >= 2 and all(float(t).is_integer() for t in ticks)


def test_head_and_dimension_axes_have_integer_ticks():
    """Axes of head counts H (Fig. 4, App. B Exp. 1), head dimensions d_h and embedding
    dimensions d (Prop. 2) carry integer ticks only."""
    hs = (1, 5, 9, 13, 17, 21)  # 0-22: the default locator would tick 2.5, 7.5, ...
    exp6 = pd.DataFrame([{"N": 10, "T0": 100, "d": 2, "d_h": 2, "H": h, "seed": s,
                          "accuracy": 0.3 + 0.03 * h + 0.01 * s} for h in hs for s in (0, 1)])
    fig = figures.exp6_figure(exp6)
    fig.canvas.draw()
    assert _integer_ticks(fig.axes[0])
    plt.close(fig)
    fig = figures.appendix_figure(_appendix_quick_table(), "depth")  # the paper's H up to 21
    fig.canvas.draw()
    assert _integer_ticks(fig.axes[0]) and _integer_ticks(fig.axes[1])
    plt.close(fig)
    bottleneck = pd.DataFrame({"d": [1, 2, 3, 4], "centered_rank": 4,
                               "kl_fit": [0.5, 0.2, 0.04, 1e-16]})
    fig = figures.propositions_figure(np.geomspace(1, 25_000, 5), bottleneck, 5)
    fig.canvas.draw()
    assert _integer_ticks(fig.axes[1])
    plt.close(fig)


def test_a_faded_source_keeps_its_seed_dots_unjoined():
    """A committed run of an earlier profile drawn faded (dotted lines) keeps its single-seed
    dots of the Experiment 5 panel as dots: no dotted line joins them."""
    table = _appendix_exp5_split("Fig. 7", 40)
    fig = figures.appendix_figure(table.assign(N=100), "dim", table, table)
    ax = fig.axes[2]
    unlabelled = [ln for ln in ax.lines if ln.get_label().startswith("_")]
    assert len(unlabelled) == 6  # two models of three sources, one dot series each
    assert all(ln.get_linestyle() == "None" for ln in unlabelled)
    faded = next(ln for ln in ax.lines if ln.get_label().startswith(
        "full run, earlier profile (not judged): d = 40, 1 head + MLP"))
    assert faded.get_linestyle() == ":"
    plt.close(fig)


def test_differences_say_whether_experiment_5_has_a_partial_full_run():
    from types import SimpleNamespace

    params = {"steps": 1024, "batch": 512}
    partial = SimpleNamespace(partial="partial: 35 of 210 points ran", params=params,
                              note="dana.exp5: `quick` run beside the committed full-scale run")
    text = figures.differences_markdown({"dana.exp5": partial})
    assert "The full run of Experiment 5 is not complete yet" in text
    assert "trained 1,024 steps of 512" in text
    assert "16,384 steps of 1,024" in text  # Experiment 5's own budget, beside Experiment 1's
    absent = SimpleNamespace(partial=None, params=params, note="no full-scale run")
    assert "No full run of Experiment 5 is committed" in figures.differences_markdown(
        {"dana.exp5": absent})


def test_accuracy_definitions_note_measures_the_gap_and_names_older_tables():
    from memnb.results import FreshAndCached

    recorded = reading.as_the_paper_reports(pd.DataFrame(
        {"d": [7, 10], "model": ["aot", "mlp"], "accuracy": [0.5, 0.8],
         "accuracy_last_batches": [0.49, 0.75]}))
    older = pd.DataFrame({"d": [7], "accuracy": [0.3]})
    runs = {"dana.exp5": FreshAndCached("dana.exp5", recorded, None, {}, ""),
            "dana.exp1": FreshAndCached("dana.exp1", older, None, {}, "")}
    note = figures.accuracy_definitions_note(runs)
    assert "Over the 2 points that hold both (all of them from this build's runs)" in note
    # a committed full run, drawn beside the build's or read in place of it, is counted apart
    beside = {"dana.exp5": FreshAndCached("dana.exp5", recorded, recorded, {}, "")}
    assert "Over the 4 points that hold both (2 from the committed full runs and 2 from this " \
           "build's runs)" in figures.accuracy_definitions_note(beside)
    in_place = {"dana.exp5": FreshAndCached("dana.exp5", recorded, None, {},
                                            "the committed full run, read instead of a rerun")}
    assert "(all of them from the committed full runs)" in \
        figures.accuracy_definitions_note(in_place)
    assert "by 0.0300 on average and by at most 0.0500 (`dana.exp5`, mlp, d = 10)" in note
    assert "compare the best checkpoint's accuracy instead: `dana.exp1`." in note
    none = figures.accuracy_definitions_note({"dana.exp1": runs["dana.exp1"]})
    assert "No drawn table holds" in none


def test_the_paper_is_compared_on_the_accuracy_its_code_reports():
    """Rows with the mean of the last batches compare it; rows without it keep the checkpoint's
    accuracy, and the note says which of the two a table holds."""
    recorded = pd.DataFrame({"accuracy": [0.9, 0.5], "accuracy_last_batches": [0.85, 0.45]})
    shown = reading.as_the_paper_reports(recorded)
    assert shown["accuracy"].tolist() == [0.85, 0.45]
    assert shown["accuracy_checkpoint"].tolist() == [0.9, 0.5]
    assert "last 100 training batches" in reading.reported_accuracy(shown)
    older = pd.DataFrame({"accuracy": [0.9]})
    assert reading.as_the_paper_reports(older).equals(older)
    assert "best checkpoint" in reading.reported_accuracy(older)
    mixed = recorded.assign(accuracy_last_batches=[0.85, float("nan")])
    assert reading.as_the_paper_reports(mixed)["accuracy"].tolist() == [0.9, 0.5]


def _exp5_rows(models: dict[str, float], d: int = 7, h: int = 31, steps: int = 16384):
    return pd.DataFrame([{"model": m, "d": d, "H_equiv": h, "N": 70, "steps": steps,
                          "batch": 1024, "samples": 262144, "seed": 0, "accuracy": a}
                         for m, a in models.items()])


def test_exp5_code_summary_reads_the_order_and_the_initialisations_share():
    code = _exp5_rows({"aot_code": 0.26, "mlp_code": 0.23, "mlp_code_uncompressed": 0.45})
    eq2 = _exp5_rows({"aot": 0.25, "mlp": 0.53})
    text = reading.exp5_code_summary(code, eq2)
    assert "the code's AoT reaches 0.260 and its one head + MLP 0.230 (AoT ahead)" in text
    # the paper's CSV at d = 7, H = 31: AoT 0.270, MLP 0.239
    assert "the paper's CSV has 0.270 and 0.239 (AoT ahead: ours in the same order)" in text
    # (0.45 - 0.23) / (0.53 - 0.23) = 73 %
    assert ("the initialisation alone accounts for 73% (against eq. (2) + MLP's seed mean; "
            "most of it)") in text
    assert "1 seed of ours" in text
    assert "at the same budget on the same seed (0)" in text
    two = pd.concat([code, code.assign(seed=1)])
    assert "at the same budget on the same 2 seeds" in reading.exp5_code_summary(two, eq2)
    # a model outside the two does not give a share of the gap
    beyond = _exp5_rows({"aot_code": 0.26, "mlp_code": 0.23, "mlp_code_uncompressed": 0.9})
    text = reading.exp5_code_summary(beyond, eq2)
    assert "reaches 0.900. That lies outside the gap from the code's MLP (0.230)" in text
    assert "the initialisation alone accounts for" not in text
    assert "Eq. (2)" not in reading.exp5_code_summary(code, None)


def test_exp5_code_level_says_where_the_codes_aot_meets_the_papers_level():
    theirs = paper.exp5()
    ref = theirs[theirs["model"] == "aot"].set_index(["d", "H"])["accuracy"]
    # d = 7: the code's AoT at 0.97 of the paper's, eq. (2)'s at 0.85: accounted for;
    # d = 10: the code's at 0.85, eq. (2)'s at 0.80: closer, but not within 10 %
    code = pd.concat([_exp5_rows({"aot_code": 0.97 * ref[(7, 31)]}),
                      _exp5_rows({"aot_code": 0.85 * ref[(10, 31)]}, d=10)])
    eq2 = pd.concat([_exp5_rows({"aot": 0.85 * ref[(7, 31)]}),
                     _exp5_rows({"aot": 0.80 * ref[(10, 31)]}, d=10)])
    text = reading.exp5_code_level(code, eq2)
    assert text.startswith("The level, the AoT over the paper's CSV AoT (criterion: within 10%")
    assert ("d = 7: the code's AoT is 0.97–0.97 of the paper's at H = 31..31, within 10% at 1 "
            "of 1 H; eq. (2)'s AoT, same seeds, 0.85–0.85, so the code's is the closer at 1 of "
            "them (the code's model accounts for the level)") in text
    assert "d = 10: the code's AoT is 0.85–0.85" in text
    assert "within 10% at 0 of 1 H" in text
    assert "(the code's model does not account for the whole level)." in text
    # without eq. (2)'s run only the code's level is given; at another N nothing is compared
    assert "the code's is the closer" not in reading.exp5_code_level(code, None)
    assert reading.exp5_code_level(code.assign(N=50), eq2) == ""


def test_same_budget_keeps_only_rows_trained_like_the_reference():
    code = _exp5_rows({"aot_code": 0.26})
    mixed = pd.concat([_exp5_rows({"aot": 0.25}), _exp5_rows({"aot": 0.1}, steps=1024)])
    assert reading.same_budget(mixed, code)["accuracy"].tolist() == [0.25]
    assert reading.same_budget(_exp5_rows({"aot": 0.1}, steps=1024), code) is None
    assert reading.same_budget(None, code) is None
    # seed for seed: a seed the reference did not run is left out
    two_seeds = pd.concat([_exp5_rows({"aot": 0.25}), _exp5_rows({"aot": 0.3}).assign(seed=1)])
    assert reading.same_budget(two_seeds, code)["accuracy"].tolist() == [0.25]


def test_exp5_code_figure_draws_every_model_and_the_paper():
    code = pd.concat([_exp5_rows({"aot_code": 0.26, "mlp_code": 0.23,
                                  "mlp_code_uncompressed": 0.45}, h=h) for h in (1, 31)])
    eq2 = pd.concat([_exp5_rows({"aot": 0.25, "mlp": 0.53}, h=h) for h in (1, 31)])
    fig = figures.exp5_code_figure(code, eq2)
    labels = {line.get_label() for line in fig.axes[0].get_lines()}
    # the caption names the fifth curve, which the initialisation's share reads, by its label
    from types import SimpleNamespace

    row = SimpleNamespace(item="Fig. 3: which model", status="trend", measured="m")
    lead = figures.exp5_code_caption("S", row)
    fifth = next(label for label in labels if "code's scale, positions + MLP" in label)
    assert f'(legend: "{fifth.rsplit(" (", 1)[0]}"' in lead
    assert "a fifth curve, eq. (2) + MLP with only the code's 1/√d_h attention-score scale" in lead
    assert {"ours: code's AoT (1 seed)", "ours: eq. (2) + MLP (1 seed)",
            "paper (official CSV): AoT"} <= labels
    plt.close(fig)
    # the counterpart counts the models drawn and marks them as ours, as sibling figures do
    assert figures.exp5_code_counterpart(code, eq2) == (
        "Dana et al. Fig. 3 (Experiment 5), five models (ours)")
    assert figures.exp5_code_counterpart(code, None) == (
        "Dana et al. Fig. 3 (Experiment 5), three models (ours)")
    assert figures.exp5_code_counterpart(code[code["model"] == "aot_code"], None) == (
        "Dana et al. Fig. 3 (Experiment 5), one model (ours)")
    two = pd.concat([code, code.assign(seed=1)])
    fig = figures.exp5_code_figure(two, None)
    labels = {line.get_label() for line in fig.axes[0].get_lines()}
    assert "ours: code's AoT (mean of 2 seeds)" in labels
    plt.close(fig)


def test_verdict_sentence_does_not_repeat_what_the_caption_printed():
    from types import SimpleNamespace

    summary = "At d = 7 the code's AoT reaches 0.275."
    row = SimpleNamespace(item="Fig. 3: which model", status="reproduced",
                          measured=summary + "; accuracy is the mean over the last 100 batches")
    text = figures.verdict_sentence(row, shown=summary)
    assert text == ("Verdict (Fig. 3: which model): **reproduced** (the numbers above; accuracy "
                    "is the mean over the last 100 batches).")
    assert summary in figures.verdict_sentence(row)  # nothing shown: the whole measured text
    assert summary in figures.verdict_sentence(row, shown="something else")


def test_show_says_when_the_committed_full_run_is_drawn_beside_this_builds_run():
    from types import SimpleNamespace

    run = SimpleNamespace(cached=pd.DataFrame({"H": [1]}), partial="partial: 3 of 9 points ran",
                          note="dana.exp1: `quick` run beside the committed full-scale run")
    text = figures.show(plt.figure(), "Dana et al. Fig. 1a", run, "Accuracy against H.", "quick",
                        full_drawn=True).data
    assert text.startswith("**Our committed full-scale run and this build's `quick` run.**")
    assert ("Dash-dotted, square markers (\"full run\" in the legends): the committed full-scale "
            "run, partial: 3 of 9 points ran.") in text
    # a caption with folded details keeps how to read the figure in its lead
    folded = figures.show(plt.figure(), "Dana et al. Fig. 1a", run,
                          viz.with_details("Accuracy against H.", "At H = 4: 0.51."), "quick",
                          full_drawn=True).data
    lead, _, details = folded.partition("<details")
    assert "Dash-dotted" in lead and "At H = 4: 0.51." in details
    told = figures.show(plt.figure(), "Dana et al. Fig. 3", run, "The full run is drawn.",
                        "quick", full_drawn=True, full_told=True).data
    assert "Dash-dotted" not in told and told.startswith("**Our committed full-scale run")
    alone = figures.show(plt.figure(), "Dana et al. Fig. 1a", run, "Accuracy.", "quick").data
    assert alone.startswith("**Our run (profile `quick`).**") and "Dash-dotted" not in alone
    empty = SimpleNamespace(cached=None, partial=None, note="dana.exp1: `quick` run")
    assert "Dash-dotted" not in figures.show(plt.figure(), "Dana et al. Fig. 1a", empty,
                                             "Accuracy.", "quick", full_drawn=True).data
    reused = SimpleNamespace(cached=None, partial=None,
                             note="dana.exp1: the committed full run (...), read instead of a "
                                  "`quick` rerun")
    for source in (run, reused):  # a slider's caption names the source a figure's would
        shown = figures.show(plt.figure(), "Dana et al. Fig. 1a", source, "Accuracy.",
                             "quick").data
        slider = figures.caption_of(source, "Dana et al. Fig. 1a", "Accuracy.", "quick").data
        assert shown.split("**")[1] == slider.split("**")[1]
    assert figures.caption_of(reused, "Dana et al. Fig. 1a", "Accuracy.", "quick").data.startswith(
        "**Our committed full-scale run (profile `full`).**")


def test_appendix_recipe_note_reads_the_profiles_and_the_quoted_recipe():
    note = figures.appendix_recipe_note()
    train = dana.get_params("dana.appendix_dim", "full")["train"]
    assert f"{train['steps']:,} steps of {train['batch']:,}" in note
    assert "64 batches of 1,024 elements, 64 epochs" in note  # App. B, as paper.TEXT quotes it
    assert "differs from the stated recipe" not in note  # the full profile is that recipe
    assert "2,500 contexts of N = 50; N = 200 has 40,000" in note
    depth = dana.get_params("dana.appendix_depth", "full")
    assert depth["layers"] == 3 and "set `nb_layers = 3`" in note  # the CSVs' notebook
    assert f"our `quick` and `full` runs use {depth['layers']}" in note
    assert "Fig. 7's MLP model on the same data and steps, to 0.0001" in note
    assert "writes none of the B.1 CSVs" not in note
    # the separate files are our reading of the official repository, and say so
    assert "In our reading of the official code, two separate files of it set other" in note
    assert ("(in our reading of the official code, only the separate script `expe_depth.py`"
            in figures.differences_markdown({}))


def test_exp6_caption_says_the_slope_ratios_are_not_judged():
    """Fig. 4's caption gives our slope ratio beside the paper's CSV's and its caption's, and says
    that the verdict does not judge them."""
    from types import SimpleNamespace

    theirs = paper.exp6()
    table = pd.DataFrame([{"model": "aot", "N": 10, "d": 2, "d_h": 2, "H": r.H, "seed": 0,
                           "T0": 100, "accuracy": r.accuracy} for r in theirs.itertuples()])
    row = SimpleNamespace(item="Fig. 4", status="reproduced", measured="m")
    text = figures.exp6_caption(table, row)
    ref = paper.exp6_slope_ratio()
    assert f"the paper's CSV gives {float(ref['slope']):.4f} ({float(ref['ratio']):.2f}×)" in text
    assert "its caption's 'slope relative difference' is 1.3" in text
    assert "Ours against the paper's is reported, not judged" in text


def test_section_7_prose_places_the_positions_and_the_initialisation_as_the_code_does():
    """Sec. 7's prose on the code's model at d = d_h: positions in the attention input only (as
    CompressedAttentionOnlyTransformer, where the residual stream keeps the token embedding), and
    Xavier-uniform only for nn.MultiheadAttention's in_proj_weight."""
    import json
    from pathlib import Path

    cells = json.loads((Path(__file__).parents[1] / "notebooks" / "dana.ipynb").read_text())
    text = " ".join("".join(c["source"]).replace("\n", " ") for c in cells["cells"]
                    if c["cell_type"] == "markdown")
    generated = " ".join([figures.layout_intro_markdown(_layout_runs()),
                          figures.differences_markdown({}), figures.on_purpose_markdown()])
    for prose in (text, generated):
        assert "adds the positions to the residual stream" not in prose
        assert "Xavier-uniform projections" not in prose
    # Section 7's test of the reading is generated (figures.layout_intro_markdown)
    assert "positions to the attention input only, not to the residual stream" in generated
    assert "Xavier-uniform $W_Q, W_K, W_V$, its `in_proj_weight`" in text
    assert "`nn.MultiheadAttention`'s `in_proj_weight`, Xavier-uniform in ±√(6 / (4 d_h))" in (
        figures.differences_markdown({}))


_RECIPE = {"steps": 4096, "batch": 256, "samples": 16384, "lr": 0.01, "lr_final": 0.0005}


def _layout_runs(**exp3_params):
    """Stand-ins for the chapter's runs of dana.layout, dana.exp2 and dana.exp3 (their
    ``params`` and a ``note`` saying each is the committed full run read in place)."""
    from types import SimpleNamespace

    note = "the committed full run, read instead of a `quick` rerun"
    return {"dana.layout": SimpleNamespace(params=dict(_RECIPE), note=note),
            "dana.exp2": SimpleNamespace(params=dict(_RECIPE), note=note),
            "dana.exp3": SimpleNamespace(params={**_RECIPE, **exp3_params}, note=note)}


def test_the_code_differences_are_one_list_counted_from_it(monkeypatch):
    """Review of the chapter: Section 5 listed three differences of the code's model, Section 7
    four. Every place now names the items of figures.CODE_MODEL_DIFFERENCES and counts them
    from it, and the initialisation names the Xavier-uniform W_Q, W_K, W_V."""
    from memnb.prose import number_word

    items = figures.CODE_MODEL_DIFFERENCES
    assert [x.key for x in items] == ["scale", "positions", "compression", "initialisation"]
    init = [x for x in items if x.key == "initialisation"][0]
    assert "Xavier-uniform" in init.short and "in_proj_weight" in init.text
    texts = {"on purpose": figures.on_purpose_markdown(),
             "differences": figures.differences_markdown({}),
             "layout": figures.layout_intro_markdown(_layout_runs())}
    ways = f"in {number_word(len(items))} ways"
    for name, text in texts.items():
        assert text.count(ways) == 1, name
    for x in items:  # each in full in Section 7's list, by its short name elsewhere
        assert x.text in texts["differences"]
        assert x.short in texts["on purpose"] and x.short in texts["layout"]
    # the count follows the list: add an item, and every text says five
    extra = figures.CodeDifference("extra", "an extra", "an extra difference", True)
    monkeypatch.setattr(figures, "CODE_MODEL_DIFFERENCES", (*items, extra))
    assert "in five ways" in figures.on_purpose_markdown()
    assert "in five ways" in figures.differences_markdown({})
    layout = figures.layout_intro_markdown(_layout_runs())
    assert "in five ways" in layout and "only the initialisation and the extra remain.)" in layout


def test_the_code_differences_hold_for_the_models():
    """Each item of CODE_MODEL_DIFFERENCES against our two models: the compression exists only
    when d ≠ d_h (the items kept at d = d_h), the code's W_Q reaches beyond eq. (2)'s bound
    1/√d up to the Xavier bound √(6 / (4 d_h)), and the embeddings are uniform in ±1/√d there
    and N(0, 1) in eq. (2)."""
    import math

    from memnb.models import AttentionOnlyTransformer, CompressedAttentionOnlyTransformer

    kept = {x.key: x.at_equal_dims for x in figures.CODE_MODEL_DIFFERENCES}
    d = d_h = 10
    code = CompressedAttentionOnlyTransformer(vocab_size=50, seq_len=2, d=d, d_h=d_h,
                                              num_heads=20, seed=0)
    eq2 = AttentionOnlyTransformer(vocab_size=50, seq_len=2, d=d, d_h=d_h, num_heads=20, seed=0)
    assert code.compressed is kept["compression"] is False
    assert CompressedAttentionOnlyTransformer(vocab_size=50, seq_len=2, d=d, d_h=4,
                                              num_heads=2, seed=0).compressed
    xavier = math.sqrt(6 / (4 * d_h))
    assert 1 / math.sqrt(d) < float(code.W_Q.detach().abs().max()) <= xavier
    assert float(eq2.W_Q.detach().abs().max()) <= 1 / math.sqrt(d)
    assert float(code.token_embedding.detach().abs().max()) <= 1 / math.sqrt(d)
    assert float(eq2.token_embedding.detach().abs().max()) > 1  # N(0, 1): beyond ±1/√d


def test_the_layout_recipe_is_read_from_the_runs_and_compared_with_eq2s():
    """Review: "trained with the recipe of the paper's Sec. 5" named a recipe that the paper
    does not state. The sentence now reads dana.layout's recipe from its run's parameters and
    says it is that of our eq. (2) runs only where it is."""
    same = figures.layout_intro_markdown(_layout_runs())
    assert ("it is trained with the official code's recipe for Experiments 1–4 and 6 (4,096 "
            "steps of 256 on 16,384 contexts, learning rate 0.01 → 0.0005), the same as our eq. "
            "(2) runs (`dana.exp2` and `dana.exp3`).") in same
    assert "recipe of the paper's Sec. 5" not in same
    other = figures.layout_intro_markdown(_layout_runs(batch=1024))
    assert "the same as our eq. (2) runs" not in other
    assert "our eq. (2) runs differ: `dana.exp3` trains 4,096 steps of 1,024" in other
    # the separation and what remains at d = d_h are counted from the list
    assert ("to separate the compression and the initialisation from the other two, with eq. "
            "(2) plus only the code's scale and positions") in same
    assert "only the initialisation remains.)" in same


def test_the_layout_recipe_names_the_experiments_that_share_it():
    """Review (s70) item 5: "the official code's recipe for Sec. 5's experiments" named the
    recipe of Experiments 1–4 and 6 for all of Sec. 5, whose Experiment 5 trains otherwise. The
    experiments are those whose `full` profiles train as dana.layout's run does."""
    from memnb.experiments import dana as exp

    assert figures.SEC5_EXPERIMENTS == {k: f"dana.exp{k}" for k in range(1, 7)}
    ones = [k for k in range(1, 7) if exp.get_params(f"dana.exp{k}", "full")["steps"]
            == _RECIPE["steps"] and exp.get_params(f"dana.exp{k}", "full")["batch"]
            == _RECIPE["batch"]]
    assert figures.recipe_experiments(_RECIPE) == ones == [1, 2, 3, 4, 6]
    assert figures.experiments_words(ones) == "Experiments 1–4 and 6"
    assert figures.experiments_words([5]) == "Experiment 5"
    assert figures.experiments_words([3, 2]) == "Experiments 2 and 3"
    assert figures.experiments_words([1, 2, 3, 5, 6]) == "Experiments 1–3, 5 and 6"
    # a run trained with Experiment 5's recipe is said to be trained with it
    runs = _layout_runs()
    five = exp.get_params("dana.exp5", "full")
    runs["dana.layout"].params = {k: five[k] for k in _RECIPE}
    text = figures.layout_intro_markdown(runs)
    assert ("it is trained with the official code's recipe for Experiment 5 (16,384 steps of "
            "1,024 on 262,144 contexts") in text
    assert "our eq. (2) runs differ" in text
    # and one trained with no experiment's recipe is not called the official code's
    runs["dana.layout"].params = {**_RECIPE, "steps": 600}
    text = figures.layout_intro_markdown(runs)
    assert ("it is trained with 600 steps of 256 on 16,384 contexts, learning rate 0.01 → "
            "0.0005, the official code's recipe for none of Sec. 5's experiments") in text


def test_the_departures_header_names_both_runs_briefly():
    """Review: the header of the departures paragraph held dana.exp2's whole provenance though
    the paragraph reports Experiment 3 too: it names both runs and points to their captions."""
    runs = _layout_runs()
    label = figures.departures_label(runs)
    assert label == ("`dana.exp2` and `dana.exp3`, the committed full runs; Figs. 1b and 2a name "
                     "their provenance")
    runs["dana.exp3"].note = "dana.exp3: `quick` run beside the committed full-scale run"
    assert figures.departures_label(runs).startswith(
        "`dana.exp2`: the committed full run; `dana.exp3`: this build's run;")


def test_the_repeated_token_sentence_has_the_lemma_2_rows_numbers():
    """Section 2's sentence on sequences of one repeated token computes what the Lemma 2 row
    measures, on the row's family (scorecard.LEMMA2_REPEATED, which the figures module imports,
    checked here against the row's own text), and says that at least d distinct last tokens is
    necessary for H d_h + d associations, not sufficient: our construction's features on them,
    measured, fall short of T_0."""
    from memnb.constructions.aot import repeated_token_rank_bound
    from memnb.scorecard import dana as scorecard
    from memnb.scorecard.dana import repeated_token_attention_rank_bound

    assert figures.LEMMA2_REPEATED is scorecard.LEMMA2_REPEATED
    assert figures.lemma2_rank is scorecard.lemma2_rank
    row = scorecard.rows("ci", ("Lemma 2",))["Lemma 2"]
    n, s, d, h = (scorecard.LEMMA2_REPEATED[k] for k in ("N", "S", "d", "H"))
    bound = repeated_token_attention_rank_bound(d, h, s)
    assert (f"{n} sequences of one repeated token (S = {s}, d = {d}, H = {h}): rank {bound} "
            f"(claimed ≥ {min(n, h * d)}; at most d + (H − 1)(S − 1) = {bound}") in row.measured
    text = figures.repeated_token_sentence(row)
    assert text.startswith("Having at least $d$ distinct last tokens is necessary for our "
                           "construction (and the paper's proof) to reach $H d_h + d$ "
                           "associations, and not always enough")
    assert (f"have ${n}$ distinct last tokens, yet the rank of their stacked attention outputs "
            f"is ${bound}$ (measured), at most $d + (H-1)(S-1) = {bound}$ for any weights, and "
            f"stays below the $\\min(T_0, H d) = {min(n, h * d)}$") in text
    assert f"(the scorecard's Lemma 2 row below: **{row.status}**)." in text
    # review (s70) item 6: the construction's features on these sequences, measured
    c = scorecard.repeated_token_construction()
    assert c.T0 == n and c.rank == c.bound == repeated_token_rank_bound(d, h, s) < c.T0
    assert (f"their rank is at most $d + H(S-1) = {c.bound}$. At $d_h = {c.d_h}$, where "
            f"$H d_h + d = {c.T0}$, the construction needs features of rank ${c.T0}$ on these "
            f"${n}$ sequences; they have rank ${c.rank}$ (measured, the largest over "
            f"${c.draws}$ draws of its weights), and `memorize` raises a `ValueError` on "
            "them.") in text
    # a construction that reached T_0 would not be called short, nor refused
    fits = c._replace(rank=c.T0, refused="")
    other = figures.repeated_token_sentence(row, fits)
    assert other.startswith("On the Lemma 2 row's sequences of one repeated token: ")
    assert other.endswith("and `memorize` builds the model.")


def test_the_initialisations_share_is_read_from_the_seed_means():
    """Eq. (2) + MLP over five seeds: the share of the gap is measured to their mean, with each
    seed's beside it; the words "most" / "less than half" only when all agree."""
    code = _exp5_rows({"aot_code": 0.275, "mlp_code": 0.238, "mlp_code_uncompressed": 0.367})
    mlps = (0.523, 0.533, 0.486, 0.297, 0.508)  # the committed d = 7 run, rounded
    eq2 = pd.concat([_exp5_rows({"aot": 0.25, "mlp": m}).assign(seed=s)
                     for s, m in enumerate(mlps)])
    text = reading.exp5_code_summary(code, eq2)
    mean = sum(mlps) / len(mlps)
    share = (0.367 - 0.238) / (mean - 0.238)
    assert f"eq. (2) + MLP's mean over its 5 seeds ({mean:.3f})" in text
    assert (f"the initialisation alone accounts for {share:.0%} (against eq. (2) + MLP's "
            "seed mean; about half") in text
    assert ("at 4 seeds (seed 3: 0.297, a gap of +0.059 to the code's MLP, outside which the "
            "variant (0.367) lies, so it gives no share)") in text
    # seed 0 alone, as the chapter used to read it: less than half
    assert "reach 0.250 and 0.523 at the same budget on the same seed (0)" in text
    single = reading.exp5_code_summary(code, eq2[eq2["seed"] == 0])
    assert "accounts for 45% (against eq. (2) + MLP's seed mean; less than half of it)" in single
    # eq. (2) + MLP's mean within 0.01 of the code's MLP: no gap to split, but the variant that
    # differs from the code's MLP by its initialisation alone is far from both (the committed
    # d = 10 run): the scale/positions and the initialisation cancel, they do not vanish
    tie = reading.initialisation_share(0.935, 0.737, pd.Series([0.667, 0.805], index=[0, 1]))
    assert "(0.736) lie within 0.01, but not because the differences do not matter" in tie
    assert "move the accuracy by +0.199" in tie and "alone (the code's MLP against the " \
        "variant) by -0.198" in tie
    assert "opposite sign, which cancel against that mean" in tie
    assert "variant's own" not in tie  # no seeds given: nothing to split seed by seed
    # the variant ran seed 0 only: on that seed the two effects do not cancel
    own = reading.initialisation_share(0.935, 0.737, pd.Series([0.667, 0.805], index=[0, 1]),
                                       [0])
    assert ("On the variant's own seed 0, where eq. (2) + MLP reaches 0.667, the scale and "
            "positions move it by +0.268 and the initialisation by -0.198: there they do not "
            "cancel (the code's MLP lies +0.070 from eq. (2) + MLP), so the tie is one of the "
            "seed mean, not of every seed") in own
    both = reading.initialisation_share(0.935, 0.737, pd.Series([0.667, 0.805], index=[0, 1]),
                                        [0, 1])
    assert "variant's own" not in both  # the variant ran every seed: the mean is the split
    assert "eq. (2) + MLP's seeds span 0.667–0.805" in tie
    assert "no gap for the initialisation" not in tie
    still = reading.initialisation_share(0.74, 0.737, pd.Series([0.736], index=[0]))
    assert "and so does the variant (0.740): neither the initialisation nor" in still


def test_exp5_order_counts_a_gap_under_the_tolerance_as_a_tie():
    order = reading.exp5_order(_exp5_rows({"aot": 0.9992, "mlp": 0.9976}, d=13))
    assert order["ours_ahead"].tolist() == ["tie"] and order["paper_ahead"].tolist() == ["tie"]
    assert figures._reversed(order).empty
    ahead = reading.exp5_order(_exp5_rows({"aot": 0.94, "mlp": 0.98}, d=13))
    assert ahead["ours_ahead"].tolist() == ["MLP"] and figures._reversed(ahead).empty
    assert "no order in the paper's CSV to compare" in figures._order_cells(ahead)


def test_training_recipe_note_scopes_each_recipe_to_its_experiments():
    note = figures.training_recipe_note()
    one, five = (dana.get_params(n, "full") for n in ("dana.exp1", "dana.exp5"))
    assert (f"Experiments 1–4 and 6 (and our `dana.layout`, `dana.layout_heads`): one sample of "
            f"{one['samples']:,} (2^14) contexts, {one['steps']:,} steps of batches of "
            f"{one['batch']:,}") in note
    assert (f"Experiment 5 (and our `dana.exp5_code`): one sample of {five['samples']:,} (2^18) "
            f"contexts, {five['steps']:,} steps of batches of {five['batch']:,}") in note
    assert "`dana.exp5` 1,024 steps of 512" in note  # the quick profile's Experiment 5


def test_rank_d_memory_paragraph_quotes_the_camera_ready_and_its_verdict():
    tab = pd.DataFrame({"N": 200, "d": [64, 128], "seed": 0, "capacity": [55, 200]})
    text = figures.rank_d_memory_paragraph(tab)
    assert paper.QUOTES["rank_d_memory"].text in text and "(Sec. 5.1, verbatim)" in text
    assert "N = 200, d = 128: 200 in every draw (all 200 stored recalled" in text
    assert text.endswith("Verdict (Sec. 5.1: rank-d memory): **differs**.")


def test_the_appendix_caption_says_what_the_committed_full_run_shows(tmp_path):
    """The full App. B.1 run drawn beside a quick one (dash-dotted squares): the caption says
    which figures it holds, its slopes beside the paper's, whether its Fig. 6 curve is
    monotone, and that a run of an earlier profile is not judged."""
    import json
    from types import SimpleNamespace

    from memnb.experiments.registry import get

    rows = [{"figure": "Fig. 5", "model": "aot", "N": 200, "d": d, "d_h": d, "H": h, "seed": s,
             "accuracy": 0.02 + 0.005 * h} for d in (40, 50) for h in (1, 3, 5, 7) for s in (0, 1)]
    rows += [{"figure": "Fig. 6", "model": "aot", "N": 200, "d": 50, "d_h": dh, "H": 11,
              "seed": 0, "accuracy": acc} for dh, acc in ((1, 0.04), (10, 0.09), (25, 0.095),
                                                          (50, 0.078))]
    cached = pd.DataFrame(rows)
    folder = tmp_path / "full"
    folder.mkdir()
    cached.to_csv(folder / "dana.appendix_dim.csv", index=False)
    params = json.loads(json.dumps(get("dana.appendix_dim").params("full"), default=str))
    earlier = {**params, "train": {**params["train"], "batch": 256}}
    (folder / "dana.appendix_dim.json").write_text(json.dumps(
        {"experiment": "dana.appendix_dim", "profile": "full", "params": earlier,
         "device_name": "GPU", "started_utc": "2026-11-26T04:13:21", "seeds": 2}))
    quick = pd.DataFrame([{**r, "N": 100, "d": 20, "d_h": 20 if r["figure"] == "Fig. 5"
                           else r["d_h"] // 2} for r in rows[:8] + rows[-4:]])
    verdicts = {f: SimpleNamespace(item=f, status="not computable", measured="few points")
                for f in ("Fig. 5", "Fig. 6", "Fig. 7")}
    text = figures.appendix_caption(quick, "dim", verdicts, cached, root=tmp_path)
    theirs = paper.dim_exp1_slopes().set_index("d")["slope"]
    assert "the committed full-scale run (GPU, 2026-11-26), computed under an earlier" in (
        text)
    assert "It holds points of Fig. 5 and Fig. 6 only; no Fig. 7 point ran." in text
    assert (f"d = 40: 0.0050 (the paper's CSV {theirs[40]:.4f}, ours "
            f"{0.005 / theirs[40]:.2f}×)") in text
    assert "seed-averaged curves over 2 seeds" in text
    assert "d_h = 1, 10, 25, 50, seed-averaged) is not increasing: from x = 25 to 50" in text
    assert "so the scorecard does not judge it" in text
    lead = text.partition(viz.DETAILS)[0]  # the lead tells the styles apart, the details the rest
    assert "this build's run. Dash-dotted, square markers: the committed full-scale run. " in lead
    # without the full run nothing is added
    assert "Dash-dotted" not in figures.appendix_caption(quick, "dim", verdicts)
    # a partial committed run says how much of it ran, in the lead too
    (folder / "dana.appendix_dim.json").write_text(json.dumps(
        {"experiment": "dana.appendix_dim", "profile": "full", "params": params,
         "device_name": "CPU", "started_utc": "2026-11-26T04:13:21", "seeds": 2,
         "complete": False, "points_done": len(cached),
         "missing_points": [{"figure": "Fig. 7", "model": "mlp", "d": 40, "seed": 0}]}))
    lead = figures.appendix_caption(quick, "dim", verdicts, cached, root=tmp_path).partition(
        viz.DETAILS)[0]
    assert (f"the committed full-scale run (partial, {len(cached)} of {len(cached) + 1} "
            "points).") in lead


def _appendix_setting(root):
    """App. B.1 with a committed full run of an earlier profile and a partial rerun of today's
    code and profile (all of Fig. 5, one d_h of Fig. 6, no Fig. 7) under ``root``."""
    import json

    from memnb.experiments.registry import get
    from memnb.results import todays_code

    params = json.loads(json.dumps(get("dana.appendix_dim").params("full"), default=str))
    earlier = {**params, "train": {**params["train"], "batch": 256}}
    cached = pd.DataFrame([{"figure": "Fig. 5", "model": "aot", "N": 200, "d": d, "d_h": d,
                            "H": h, "seed": 0, "accuracy": 0.02 + 0.004 * h}
                           for d in (40, 50) for h in (1, 3, 5, 7)])
    rerun = pd.DataFrame(
        [{"figure": "Fig. 5", "model": "aot", "N": 200, "d": d, "d_h": d, "H": h, "seed": s,
          "params": 100 * h, "accuracy": 0.02 + 0.01 * h} for d in (40, 50) for h in (1, 3, 5, 7)
         for s in (0, 1)]
        + [{"figure": "Fig. 6", "model": "aot", "N": 200, "d": 50, "d_h": 50, "H": 11,
            "seed": s, "params": 1000, "accuracy": 0.2} for s in (0, 1)])
    for folder, table, prov in (
            (root / "full", cached, {"params": earlier, "device_name": "GPU", "seeds": 1,
                                      "started_utc": "2026-11-26T04:13:21"}),
            (root / "rerun" / "full", rerun,
             {"params": params, "code_fingerprint": todays_code("dana.appendix_dim"),
              "device_name": "CPU", "seeds": 2, "git_commit": "1234567abc",
              "started_utc": "2026-11-27", "complete": False, "points_done": len(rerun),
              "missing_points": [{"figure": "Fig. 6", "d_h": 1, "seed": 0},
                                 {"figure": "Fig. 7", "model": "mlp", "d": 40, "seed": 0}]})):
        folder.mkdir(parents=True, exist_ok=True)
        table.to_csv(folder / "dana.appendix_dim.csv", index=False)
        (folder / "dana.appendix_dim.json").write_text(json.dumps(
            {"experiment": "dana.appendix_dim", "profile": "full", **prov}))
    return cached, rerun


def test_the_appendix_draws_and_captions_a_rerun_beside_the_earlier_run(tmp_path):
    """The rerun by today's code takes the full run's style (dash-dotted squares); the
    committed run of an earlier profile is drawn faded beside it; the caption says which
    figures the rerun has computed in full (judged on it), what it holds of the others, its
    slopes, and which run is which."""
    from types import SimpleNamespace

    cached, rerun = _appendix_setting(tmp_path)
    assert figures.appendix_rerun("dim", root=tmp_path) is not None
    assert figures.appendix_rerun("depth", root=tmp_path) is None  # no full run of App. B.2
    quick = pd.DataFrame([{"figure": "Fig. 5", "model": "aot", "N": 100, "d": 20, "d_h": 20,
                           "H": h, "seed": 0, "accuracy": 0.05 * h} for h in (1, 5, 11)]
                         + [{"figure": "Fig. 6", "model": "aot", "N": 100, "d": 25, "d_h": dh,
                             "H": 11, "seed": 0, "accuracy": 0.01 * dh} for dh in (1, 12, 25)])
    fig = figures.appendix_figure(quick, "dim", cached, rerun)
    def line(start: str):
        return next(ln for ln in fig.axes[0].lines if ln.get_label().startswith(start))

    assert line("rerun, today's full profile: d = 40, N = 200").get_linestyle() == "-."
    faded = line("full run, earlier profile (not judged): d = 40, N = 200")
    assert faded.get_linestyle() == ":" and faded.get_alpha() == 0.5
    assert line("ours: d = 20, N = 100").get_alpha() is None
    plt.close(fig)
    verdicts = {f: SimpleNamespace(item=f, status="not run", measured="m")
                for f in ("Fig. 5", "Fig. 6", "Fig. 7")}
    text = figures.appendix_caption(quick, "dim", verdicts, cached, root=tmp_path, rerun=rerun)
    assert ("Dash-dotted, square markers (\"rerun, today's full profile\" in the legends): the "
            "rerun of dana.appendix_dim by today's code under today's `full` profile (CPU, "
            "commit 1234567, 2026-11-27), partial: 18 of 20 points ran") in text
    assert ("It has computed every point of Fig. 5, whose verdict above is judged on it (at most "
            "trend while the rerun is partial); of the others it holds 2 of the 3 points of "
            "Fig. 6 (d_h = 50) and no Fig. 7 point, so their verdicts read this build's run.") in (
        text)
    assert "Its Fig. 5 per-head slopes (official rule, seed-averaged curves over 2 seeds)" in text
    assert ("Dotted, faded hollow squares (\"full run, earlier profile\" in the legends): the "
            "committed full-scale run (GPU, 2026-11-26)") in text
    assert "colour here stands for d, not for the source" in text
    assert ("this build's run. Dash-dotted, square markers: the rerun under today's `full` "
            "profile. Dotted, faded hollow squares: the committed full run of an earlier "
            "profile.") in text.partition(viz.DETAILS)[0]
    # without a rerun the committed run keeps the full run's style
    alone = figures.appendix_caption(quick, "dim", verdicts, cached, root=tmp_path)
    assert "Dash-dotted, square markers (\"full run\" in the legends)" in alone
    assert "rerun of dana.appendix_dim" not in alone


def test_the_appendix_caption_gives_the_nominally_equal_counts():
    """The paper compares App. B's two models at equal parameter count; ours differ by the
    MLP's input-layer bias, w = 2d(H − 1) per layer: the caption computes the gap."""
    from types import SimpleNamespace

    table = pd.DataFrame(
        [{"figure": "Fig. 8", "model": "aot", "N": 40, "d": 7, "d_h": 7, "H": 9, "seed": 0,
          "layers": 3, "params": 5866, "accuracy": 0.3},
         {"figure": "Fig. 9", "model": "aot", "N": 40, "d": 7, "d_h": 7, "H": 9, "seed": 0,
          "layers": 3, "params": 5866, "accuracy": 0.3},
         {"figure": "Fig. 10", "model": "mlp", "N": 40, "d": 7, "d_h": 7, "H": 1, "H_equiv": 9,
          "width": 112, "seed": 0, "layers": 3, "params": 5866 + 3 * 112, "accuracy": 0.2}])
    verdicts = {f: SimpleNamespace(item=f, status="not run", measured="m")
                for f in ("Fig. 8", "Fig. 9", "Fig. 10")}
    text = figures.appendix_caption(table, "depth", verdicts)
    assert "at the paper's nominally equal parameter count" in text
    assert "d = 7, H = 9: AoT 5,866, MLP 6,202 (+336 = 3 × w)" in text
    assert "at equal parameter count" not in text
    # without our counts, the paper's own models at our count
    gap = figures.appendix_count_gap([table.drop(columns="params")], "depth")
    assert "(the paper's CSV models, our count)" in gap


def test_the_huben_morris_note_says_where_its_order_is_evaluated():
    from memnb import bounds

    note = figures.huben_morris_note([(50, 2, 10, 10, 20), (50257, 1024, 768, 64, 12)])
    t0 = bounds.dana_capacity(12, 64, 768)
    assert "at N = 50257, S = 1024, d = 768 it shows " in note and "N = 50," not in note
    assert note.startswith("**The Huben & Morris row.** Its `parameters_at_cor1_T0` is")
    assert f"{bounds.huben_morris_parameter_order(t0, 1024, 50257, 1026):.4e}" in note
    assert f"would be {(768 + 1024) * (1024 + 50257 + t0):.4e}" in note
    assert figures.huben_morris_note([(50, 2, 10, 10, 20)]) == ""


def _exp1_line(slope: float) -> pd.DataFrame:
    """A Fig. 1a table at d = d_h = 10, N = 50 whose accuracy rises by ``slope`` per head."""
    return pd.DataFrame([{"model": "aot", "N": 50, "d": 10, "d_h": 10, "H": h, "seed": s,
                          "T0": 2500, "accuracy": 0.05 + slope * h}
                         for h in range(1, 21) for s in (0, 1)])


def test_exp1_reading_says_well_above_1_only_when_the_ratio_is():
    """The clause on our ratio to Corollary 2's slope follows from the ratio (well above 1:
    above the top of the band read as "about d"), not printed whatever it is."""
    from types import SimpleNamespace

    from memnb.scorecard.dana_theory import BIETTI_RATIO

    row = SimpleNamespace(item="Fig. 1a", status="trend", measured="m")
    bound = (1 - 1 / 50) * 10 / 2500  # Corollary 2's slope at N = 50, d_h = 10, T0 = N²
    text = {r: figures.exp1_reading(_exp1_line(r * bound), row) for r in (5.0, 1.5, 0.5)}
    assert BIETTI_RATIO[1] == 2
    assert "our ratio of 5.0 is well above 1 (above 2," in text[5.0]
    # the band is defined in place, for this ratio, not borrowed from the Bietti reading
    assert ("the top of the band [0.5, 2] in which we read this ratio as about d_h = 10 "
            "associations per head; ours)") in text[5.0]
    assert "that the chapter reads as about d associations" not in text[5.0]
    assert "so ours says the same." in text[5.0]
    for r in (1.5, 0.5):
        assert "well above 1 (" not in text[r] and "says the same of ours" not in text[r]
    assert ("our ratio of 1.5 is above 1 but not well above it (not above 2, the top of the band "
            "[0.5, 2]") in text[1.5]
    assert "store about d_h = 10 associations each, not far more" in text[1.5]
    assert ("our ratio of 0.5 is not above 1, so ours does not say the same: its heads store no "
            "more than the bound's d_h = 10 associations each") in text[0.5]
    # judged as printed, to one decimal: 2.04 reads 2.0, not "well above" 2; 1.02 reads 1.0
    assert "our ratio of 2.0 is above 1 but not well above it" in figures._ratio_words(2.04, 10)
    assert "our ratio of 1.0 is not above 1" in figures._ratio_words(1.02, 10)


def test_propositions_caption_measures_where_the_best_kl_vanishes():
    """The d from which the best rank-d KL vanishes is read from the table and compared with the
    rank of the centred log π, where the theory puts it."""
    lams = np.geomspace(1, 25_000, 5)

    def table(kl):
        return pd.DataFrame({"d": [1, 2, 3, 4], "centered_rank": 3, "kl_fit": kl})

    same = figures.propositions_caption(lams, table([0.5, 0.1, 1e-9, 1e-12]))
    assert ("positive for d = 1, 2 and vanishes from d = 3, the rank of the centred log π "
            "(fitted") in same
    later = figures.propositions_caption(lams, table([0.5, 0.1, 0.01, 1e-12]))
    assert ("positive for d = 1, 2, 3 and vanishes (≤ 1e-06) from d = 4, while the theory "
            "predicts it vanishes from the rank of the centred log π, 3") in later
    assert "vanishes from d = 3" not in later
    never = figures.propositions_caption(lams, table([0.5, 0.1, 0.01, 0.001]))
    assert ("positive for d = 1, 2, 3, 4: it does not vanish (≤ 1e-06) at any d drawn, up to "
            "d = 4, while the theory predicts it vanishes from the rank of the centred log π, "
            "3") in never
    zero = figures.propositions_caption(lams, table([1e-9, 1e-9, 1e-12, 1e-12]))
    assert ("at most 1e-06 (read as 0) at every d drawn, from d = 1; the theory predicts it "
            "vanishes from the rank of the centred log π, 3") in zero


def test_propositions_caption_reads_proposition_3_from_the_scorecards_criterion(monkeypatch):
    """"Two dimensions suffice" is said only when the scorecard's Proposition 3 check holds."""
    lams = np.geomspace(1, 25_000, 5)
    table = pd.DataFrame({"d": [1, 2], "centered_rank": 1, "kl_fit": [1e-9, 1e-12]})
    held = figures.propositions_caption(lams, table)
    assert "criterion (the KL never rises in λ up to 10N² and ends below 1e-6" in held
    assert "holds: so two dimensions suffice for deterministic targets" in held
    monkeypatch.setattr(figures, "proposition3_check", lambda n: (False, f"N = {n}"))
    failed = figures.propositions_caption(lams, table)
    assert "fails: so this check does not show that two dimensions suffice" in failed
    assert "two dimensions suffice for" not in failed


def test_the_heads_slider_names_the_papers_official_csvs_from_their_files(monkeypatch):
    """The d range of the official Experiment 1 CSVs in the slider caption is read from the
    files memnb.papers.dana lists, not typed: a list that is not consecutive is listed."""
    at13 = _exp1_table([6, 13], lambda d: 2e-4 * d * d)
    assert figures._exp1_csv_ds() == list(range(3, 14))
    monkeypatch.setattr(figures, "_exp1_csv_ds", lambda: [3, 5, 13])
    assert "its official CSVs hold d = 3, 5, 13)" in figures.slider_caption(at13, "heads")


def test_thm2_rank_d_words_say_how_the_rank_d_kl_was_obtained():
    """Thm 2 at N = 50: where d >= min(T, N) the table's kl_rank_d_svd is set to 0 without a
    fit, and the words say why it is 0 and that it was not computed; below, the computed KL."""
    gap = {"N": 50, "d": 512, "T": 200, "kl_table": 0.395, "kl_rank_d": 0.0}
    text = figures.thm2_rank_d_words(gap)
    assert text.startswith("above the best rank-d KL, which is 0 by Proposition 2, as "
                           "d = 512 ≥ N − 1 = 49 (not computed")
    assert "min(T, N) = 50" in text
    few = figures.thm2_rank_d_words({**gap, "N": 1000, "T": 300, "d": 400})
    assert "as d = 400 ≥ T = 300" in few and "Proposition 2" not in few
    fit = figures.thm2_rank_d_words({**gap, "N": 1000, "T": 900, "d": 867,
                                     "kl_rank_d": 6.7e-8})
    assert fit == ("above the best rank-d KL: the rank-d least-squares encoder reaches 6.7e-08, "
                   "an upper estimate of it")
    assert "not computed" not in fit
    # the table not above the least-squares KL: only that encoder's KL is known, not the best
    low = figures.thm2_rank_d_words({**gap, "N": 1000, "T": 900, "d": 867, "kl_table": 0.1,
                                     "kl_rank_d": 0.25})
    assert low == ("not above the rank-d least-squares encoder's KL, 0.25 (an upper estimate "
                   "of the best rank-d KL, which may be lower)")
    assert "not above the best" not in low


def _recorded_exp1(all_gap: float, ds=(10,), hs=(1, 5), seeds=(0, 1), last: float = 0.5):
    """An Experiment 1 table as the chapter draws it (:func:`as_the_paper_reports`): the code's
    last-batches mean ``last`` and, ``all_gap`` below it, the accuracy on all N² contexts."""
    rows = [{"model": "aot", "N": 50, "S": 2, "d": d, "d_h": d, "H": h, "seed": s,
             "data_seed": 2222, "T0": 2500, "accuracy": last + 0.01,
             "accuracy_last_batches": last, "accuracy_all_contexts": last - all_gap}
            for d in ds for h in hs for s in seeds]
    return reading.as_the_paper_reports(pd.DataFrame(rows))


def test_the_accuracy_axis_names_the_measure_it_plots():
    """The experiment figures plot the official code's mean over the last training batches
    (after as_the_paper_reports), not an accuracy over all contexts, and their axis says so; a
    table that predates that mean is labelled as the best checkpoint's."""
    recorded = _recorded_exp1(0.02, ds=(10, 13), hs=dana.HEADS_FULL[:4])
    window = dana.OFFICIAL_BATCH_WINDOW
    fig = figures.exp1_figure(recorded)
    assert fig.get_supylabel() == f"accuracy (mean of the last {window} training batches)"
    plt.close(fig)
    raw = recorded.drop(columns=["accuracy_checkpoint"])
    fig = figures.exp1_figure(raw)
    assert fig.get_supylabel() == "accuracy (best checkpoint, on the training sample)"
    plt.close(fig)
    assert "best checkpoint where not recorded" in figures.accuracy_label(recorded, raw)
    assert figures.accuracy_label(recorded, None) == figures.accuracy_label(recorded)


def test_which_accuracy_note_compares_all_contexts_with_the_plotted_accuracy():
    """The note gives, per Experiment 1-3 table, how far the accuracy on all contexts lies below
    the plotted one, and whether Experiment 1 stays above Corollary 2's φ on all contexts."""
    from memnb import bounds
    from memnb.results import FreshAndCached

    exp1 = _recorded_exp1(0.02)
    exp2 = _recorded_exp1(0.05).assign(accuracy_all_contexts=lambda t: t[
        "accuracy_all_contexts"] - [0.0, 0.01, 0.0, 0.01])
    runs = {"dana.exp1": FreshAndCached("dana.exp1", exp1, None, {}, ""),
            "dana.exp2": FreshAndCached("dana.exp2", exp2, None, {}, "")}
    note = figures.accuracy_definitions_note(runs)
    # the count is of the runs named, not of every committed run (review s74)
    assert ("lies below the plotted one at every one of the 8 trained models of this build's "
            "runs of `dana.exp1`, `dana.exp2`: `dana.exp1` by 0.020 on average and by at most "
            "0.020; `dana.exp2` by 0.055 on average and by at most 0.060.") in note
    phi = [bounds.dana_accuracy_lower_bound(h * 10 + 10, 50, 2500) for h in (1, 5)]
    assert (f"Experiment 1's seed mean still lies on or above Corollary 2's φ(H d_h + d) at "
            f"every point (2 of 2; smallest ratio to φ {0.48 / max(phi):.2f}×, against "
            f"{0.5 / max(phi):.2f}× on the plotted accuracy)") in note
    # on all contexts 0.03: above φ at H = 1 (0.0278), below at H = 5 (0.0435), said so
    low = _recorded_exp1(0.47)
    note = figures.accuracy_definitions_note({"dana.exp1": FreshAndCached(
        "dana.exp1", low, None, {}, "the committed full run, read instead of a rerun")})
    assert "of the committed full runs" in note
    assert "lies on or above Corollary 2's φ(H d_h + d) at only some points (1 of 2;" in note
    # a table without the accuracy on all contexts adds no clause
    older = exp1.drop(columns=["accuracy_all_contexts"])
    assert "all N² contexts" not in figures.accuracy_definitions_note(
        {"dana.exp1": FreshAndCached("dana.exp1", older, None, {}, "")})


def test_corollary2_points_read_phi_and_the_best_seed_on_all_contexts():
    table = _recorded_exp1(0.02).assign(accuracy_all_contexts=[0.4, 0.5, 0.3, 0.6])
    points = reading.corollary2_points(table)
    assert list(points["H"]) == [1, 5]
    assert list(points["all_contexts_best"]) == [0.5, 0.6]
    assert list(points["all_contexts"]) == pytest.approx([0.45, 0.45])
    assert list(points["plotted"]) == [0.5, 0.5] and list(points["tasks"]) == [1, 1]
    assert points["phi"].iloc[1] == pytest.approx(0.02 + 0.98 * 60 / 2500)


def test_execution_note_says_which_runs_the_figures_read(tmp_path):
    import json

    folder = tmp_path / "full"
    folder.mkdir()
    for name, complete in (("dana.exp1", True), ("dana.exp2", False)):
        pd.DataFrame({"accuracy": [0.5]}).to_csv(folder / f"{name}.csv", index=False)
        (folder / f"{name}.json").write_text(json.dumps({"complete": complete}))
    names = ("dana.exp1", "dana.exp2", "dana.exp3")
    quick = figures.execution_note("quick", names, tmp_path)
    assert ("read the committed full-scale runs (profile `full`) where one is committed and "
            "complete: 1 of the 3 experiments they draw; `dana.exp2`, `dana.exp3` are rerun "
            "under `quick`, beside the full run where one is committed.") in quick
    assert "every one of the 1 experiments they draw." in figures.execution_note(
        "quick", names[:1], tmp_path)
    assert "where one is committed (2 of the 3 experiments)" in figures.execution_note(
        "ci", names, tmp_path)
    assert "draw the full-scale runs" in figures.execution_note("full", names, tmp_path)


def _init_tables(ratio: dict[str, float]):
    """Experiment 1 tables at d = 10, 13 whose slope is ``ratio[kind]`` times the paper's."""
    theirs = paper.exp1_slopes().set_index("d")["slope"]
    rows = [{"model": kind, "N": 50, "d": d, "d_h": d, "H": h, "seed": s, "T0": 2500,
             "accuracy": 0.1 + ratio[kind] * theirs[d] * h}
            for kind in ratio for d in (10, 13) for h in dana.HEADS_FULL[:4] for s in (0, 1)]
    table = pd.DataFrame(rows)
    return table[table["model"] != "aot"], table[table["model"] == "aot"]


def test_layout_heads_conclusion_reads_the_initialisation_from_the_slopes():
    from types import SimpleNamespace

    heads, exp1 = _init_tables({"aot": 0.85, "aot_code": 0.99, "aot_code_uncompressed": 1.02})
    row = SimpleNamespace(item="Fig. 5: which model", status="reproduced", decided=True)
    fig5 = pd.DataFrame({"model": ["aot_code", "mlp_code"], "N": [200, 200]})
    text = figures.layout_heads_conclusion(heads, exp1, row, fig5)
    assert text.startswith("At every d compared (N = 50, d = d_h), eq. (2) with only the "
                           "code's 1/√d_h scale and positions (eq. (2)'s initialisation) has a "
                           "per-head slope within the scorecard's slope tolerance (15 %) of "
                           "the paper's, and nearer to it than eq. (2)'s")
    assert "(+2.0 %; eq. (2) -15.0 %, the code's model -1.0 %)" in text
    assert ("At N = 50, d = d_h, the initialisation is therefore not what separates eq. (2) from "
            "the paper: the code's scale and positions alone bring eq. (2)'s slope to within "
            "2.0 % of the paper's.") in text
    assert ("The Fig. 5 \"which model\" row (reproduced) sets the code's model against eq. (2) "
            "at N = 200") in text
    assert ("trains no eq. (2) with only the code's scale and positions, so at N = 200 the "
            "three are not separated: this separation is measured at N = 50 only.") in text
    both = pd.concat([fig5, pd.DataFrame({"model": ["aot_code_uncompressed"], "N": [200]})])
    assert "also trains eq. (2) with only the code's scale and positions." in \
        figures.layout_heads_conclusion(heads, exp1, row, both)
    far = figures.layout_heads_conclusion(*_init_tables(
        {"aot": 0.85, "aot_code": 0.99, "aot_code_uncompressed": 1.3}))
    assert "is not within the scorecard's slope tolerance (15 %) of the paper's slope at d = " \
        "10, 13" in far
    assert "not what separates" not in far and "Fig. 5" not in far


def test_table1_defined_note_names_the_rows_set_at_corollary_1s_t0():
    """Table 1's rows whose `capacity_T0` is Corollary 1's T_0 by definition (a capacity written
    in T_0, or a row at the same T_0) are named; a row whose own formula gives another T_0 is
    not."""
    import pandas as pd

    from memnb.constructions import prior_work_table

    raw = pd.concat([prior_work_table.table1(*size) for size in
                     ((50, 2, 10, 10, 20), (50257, 1024, 768, 64, 12))], ignore_index=True)
    shown = figures.table1_shown(raw)
    note = figures.table1_defined_note(shown)
    assert note.startswith("**`capacity_T0` of *Dana et al. (Cor. 1, d = 2, same T_0)* and "
                           "*Huben & Morris (§7)*.** These rows are defined at Corollary 1's "
                           "T_0, so their `capacity_T0` is set equal to `cor1_T0` by definition")
    assert "Mahdavi" not in note and "Kim" not in note
    # a row whose value differs from cor1_T0 at some size is not named
    changed = shown.copy()
    changed.loc[changed["paper"].str.startswith("Huben"), "capacity_T0"] = 7
    assert "Huben" not in figures.table1_defined_note(changed)
    assert "This row is defined" in figures.table1_defined_note(changed)


def test_table1_shown_says_which_t0_each_column_uses():
    """Table 1 as shown: each row's own capacity (``capacity_T0``) apart from the parameter
    counts, which are all evaluated at Corollary 1's T_0 = H d_h + d (``cor1_T0``)."""
    from memnb import bounds
    from memnb.constructions import prior_work_table

    sizes = [(50, 2, 10, 10, 20), (50257, 1024, 768, 64, 12)]
    raw = pd.concat([prior_work_table.table1(*size) for size in sizes], ignore_index=True)
    shown = figures.table1_shown(raw)
    assert "T0" not in shown and "parameters_at_T0" not in shown
    assert list(shown.columns).index("cor1_T0") + 1 == list(shown.columns).index(
        "parameters_at_cor1_T0")
    for (N, S, d, d_h, H), part in zip(sizes, (shown.iloc[:6], shown.iloc[6:]), strict=True):
        t0 = bounds.dana_capacity(H, d_h, d)
        assert (part["cor1_T0"] == t0).all()
        mahdavi = part[part["paper"].str.startswith("Mahdavi et al. (Thm 1, Dana")].iloc[0]
        assert mahdavi["capacity_T0"] == bounds.dana_previous_capacity(H, d_h) != t0
        assert mahdavi["parameters_at_cor1_T0"] == S + N + t0  # at Cor. 1's T_0, not its own
    assert shown["capacity_T0"].isna().sum() == 2  # Kim et al.: a capacity of the depth only
    with pytest.raises(ValueError, match="no Corollary 1 row"):
        figures.table1_shown(raw[raw["paper"] != "Dana et al. (Cor. 1)"])


def test_clip_round_off_shows_only_round_off_as_zero_and_says_so():
    table = pd.DataFrame({"kl": [0.5, -2e-17, -4.5e-17, -0.1], "other": [-1e-17, 0, 0, 0]})
    shown, words = figures.clip_round_off(table, ["kl"])
    assert shown["kl"].tolist() == [0.5, 0.0, 0.0, -0.1]  # -0.1 is no round-off: kept
    assert shown["other"].iloc[0] == -1e-17 and table["kl"].iloc[1] == -2e-17  # display only
    assert words == ("Shown as 0, in this table only: 2 values of `kl` (down to -4.5e-17), "
                     f"negative by less than {figures.ROUND_OFF:g}, the floating-point round-off "
                     "of a quantity that is never negative; the verdict reads the values as "
                     "computed.")
    assert figures.clip_round_off(table.clip(lower=0), ["kl"])[1] == ""


def test_the_paper_vs_code_list_names_experiment_6s_repetitions():
    text = figures.differences_markdown({})
    seeds = dana.get_params("dana.exp6", "full")["seeds"]
    assert seeds != paper.TEXT["seeds_appendix"].value
    assert (f"App. B says that all experiments are averages of "
            f"{paper.TEXT['seeds_appendix'].value:g} runs; the code repeats Experiment 6 "
            f"{seeds} times") in text
    assert f"so Fig. 4 and its CSV average {seeds} seeds" in text


def _fig7_rows(mlp_seeds, aot=0.25):
    """Fig. 7 rows of ours at the paper's setting (:func:`dana_tables.fig7_seeds`), beside a
    few Fig. 5 and Fig. 6 rows (the caption reads them too)."""
    rows = [{"figure": "Fig. 5", "model": "aot", "N": 200, "d": 40, "d_h": 40, "H": h,
             "seed": 0, "accuracy": 0.02 + 0.005 * h} for h in (1, 3, 5)]
    rows += [{"figure": "Fig. 6", "model": "aot", "N": 200, "d": 50, "d_h": dh, "H": 11,
              "seed": 0, "accuracy": 0.04 + 0.001 * dh} for dh in (1, 10, 25)]
    return pd.concat([pd.DataFrame(rows), fig7_seeds(mlp_seeds, aot)], ignore_index=True)


def test_the_appendix_caption_says_where_means_and_medians_leave_fig_7_undecided():
    """Split MLP seeds whose mean puts the MLP ahead and whose median the AoT (the paper's
    order, in its CSV): the caption's Fig. 7 sentence names those d and the row's reading."""
    from types import SimpleNamespace

    split = _fig7_rows([0.99, 0.98, 0.03, 0.03, 0.03])
    words = figures.appendix_undecided_words(split, "dim")
    assert words == ("at d = 40, 50, 60 the seed means put the MLP ahead and the seed medians "
                     "the AoT (the paper's order)")
    verdicts = {f: SimpleNamespace(item=f, status="trend", measured="m")
                for f in ("Fig. 5", "Fig. 6", "Fig. 7")}
    text = figures.appendix_caption(split, "dim", verdicts)
    assert (f"from the drawn medians). In the run drawn with solid lines, {words}; the Fig. 7 "
            "row reads such a d as not decided. Top row: ") in text
    # means and medians that agree leave nothing undecided, and the caption adds nothing
    agree = _fig7_rows([0.41, 0.40, 0.42, 0.41, 0.41])
    assert figures.appendix_undecided_words(agree, "dim") == ""
    assert "not decided" not in figures.appendix_caption(agree, "dim", verdicts)
