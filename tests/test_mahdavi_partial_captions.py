"""The Mahdavi training figures say when the committed full-scale run is partial, in the panel
title and the caption's visible lead (Fig. 2a: 88 of 160 points, fewer seeds at the largest T),
computed from its provenance; Fig. 3's left panels name every mark in their legend."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from memnb.figures import mahdavi as fig


@pytest.fixture(autouse=True)
def _no_trend_reason(monkeypatch):
    """The captions here read no committed results for the sentence that says why a trend is
    not reproduced (:func:`memnb.figures.mahdavi.trend_reason`)."""
    monkeypatch.setattr(fig, "trend_reason", lambda number, profile: "")


def _heads(seeds_at: dict[int, int], n: int = 8) -> pd.DataFrame:
    """A Fig. 2a table: ``seeds_at[T]`` seeds at each dataset size T, counts linear in H."""
    return pd.DataFrame([{"H": h, "T": t, "seed": s, "n": n, "d_h": 16, "d": 16, "C": 100,
                          "memorized": 20 * h + 5 + s, "accuracy": (20 * h + 5 + s) / t,
                          "capacity": h * (n - 1) + 1, "steps": 100}
                         for t, seeds in seeds_at.items() for s in range(seeds)
                         for h in (1, 2, 3, 4)])


def _committed(done: int, missing: int, complete: bool = False) -> dict:
    """The provenance of a committed run, as :func:`memnb.results.fresh_and_cached` keeps it
    (``cached_provenance``), reduced to what the figures read."""
    return {"complete": complete, "points_done": done, "missing_points": [{"seed": 9}] * missing}


def test_seeds_by_size_names_the_sizes_with_fewer_seeds():
    assert fig.seeds_by_size(_heads({100: 3, 200: 3, 300: 2})) == (
        "3 seeds at T = 100, 200 and 2 at T = 300")
    assert fig.seeds_by_size(_heads({100: 3, 200: 1})) == "3 seeds at T = 100 and 1 at T = 200"
    assert fig.seeds_by_size(_heads({100: 2, 200: 2})) == ""
    assert fig.seeds_by_size(_heads({100: 2}).drop(columns="seed")) == ""


def test_partial_state_is_computed_from_the_provenance():
    table = _heads({100: 2})
    result = SimpleNamespace(name="mahdavi.heads", fresh=table, cached=table,
                             partial="partial: 88 of 160 points ran; missing ...",
                             cached_provenance=_committed(88, 72))
    assert fig.partial_state(result) == "partial: 88 of 160 points ran"
    # a complete committed run, no committed run, or no provenance kept: nothing to say
    result.cached_provenance = _committed(160, 0, True)
    assert fig.partial_state(result) is None
    assert fig.partial_state(SimpleNamespace(name="mahdavi.heads", fresh=table, cached=None,
                                             partial=None, cached_provenance=None)) is None
    assert fig.partial_state(SimpleNamespace(fresh=table, cached=table, partial=None)) is None


def test_fig2a_title_and_lead_say_the_committed_run_is_partial(monkeypatch,
                                                               no_mahdavi_scorecard):
    monkeypatch.setattr(fig, "verdict_run", lambda name, profile: None)
    shown: list = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    full = _heads({100: 3, 200: 2}, n=32)
    result = SimpleNamespace(name="mahdavi.heads", fresh=_heads({50: 2}), cached=full,
                             partial="partial: 20 of 24 points ran; missing seed 2 at T = 200",
                             cached_provenance=_committed(20, 4))
    caption = fig.fig2a(result, "quick").data
    titles = [ax.get_title() for ax in shown[0].axes if ax.get_title()]
    assert titles[0].startswith("the committed full-scale run (partial: 20 of 24 points ran)\n")
    assert titles[1].startswith("this build's quick run\n")  # this build's run: no state
    lead = caption.split("<details")[0]
    assert ("The committed full-scale run (top) is partial: 20 of 24 points ran, with 3 seeds "
            "at T = 100 and 2 at T = 200") in lead
    # the paper counterpart says why no paper curve is drawn and what the paper's y-axis is
    assert ("*Paper counterpart: Mahdavi et al. Fig. 2a; the paper's values are not drawn: the "
            "values it plots are not published, so only its text's claims are compared. The "
            "paper plots memorization as the average accuracy across examples, a fraction "
            "(Sec. 5.2, App. A); we plot examples memorized (accuracy × T).*") in lead
    # a complete committed run: the title and the lead say nothing of a partial state
    shown.clear()
    caption = fig.fig2a(SimpleNamespace(name="mahdavi.heads", fresh=_heads({50: 2}),
                                        cached=_heads({100: 3, 200: 3}, n=32), partial=None,
                                        cached_provenance=_committed(24, 0, True)),
                        "quick").data
    titles = [ax.get_title() for ax in shown[0].axes if ax.get_title()]
    assert titles[0].startswith("the committed full-scale run\n")
    assert "partial" not in caption.split("<details")[0]
    plt.close("all")


def _saturation() -> pd.DataFrame:
    """A Fig. 3 table: two seeds, every tried size memorized at H = 4 and 8."""
    rows = []
    for seed in (0, 1):
        for h, t in ((4, 80), (8, 250)):
            for k in range(h + 1):
                rows.append({"H": h, "T": t, "seed": seed, "accuracy": 1.0,
                             "saturated_heads": k, "example_fraction": 1.0 / (h + 1),
                             "saturated_fraction": 0.5, "some_head_unsaturated": 0.99})
    return pd.DataFrame(rows)


def test_fig3_legend_names_the_mean_line_and_the_line_at_one(monkeypatch, no_mahdavi_scorecard):
    monkeypatch.setattr(fig, "verdict_run", lambda name, profile: None)
    shown: list = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    caption = fig.fig3(SimpleNamespace(fresh=_saturation(), cached=None, partial=None,
                                       params={"n": 8, "d_h": 16}), "quick").data
    labels = [t.get_text() for legend in shown[0].legends for t in legend.get_texts()]
    assert "mean over seeds at each T (one line per H)" in labels
    assert "training accuracy 1 (all memorized)" in labels
    assert "largest memorized (per seed)" in labels
    assert ("the solid line of each H joins the mean over seeds at each T, the dotted line "
            "marks training accuracy 1") in caption
    assert ("The paper plots the saturation of the heads per example (App. H; its axes are not "
            "in our text); we plot training accuracy against the tried T (left) and the fraction "
            "of examples with each number of saturated heads, mean over seeds (right).*") in caption
    # review item 4: the right panels' bars are means over seeds, said on the axis and in words
    assert [ax.get_ylabel() for ax in shown[0].axes[:2]] == [
        "training accuracy", "fraction of examples\n(mean over seeds)"]
    assert ("Right panels: a bar is the fraction of examples with that many saturated heads, "
            "the mean over the seeds whose search found a size, each seed read at the size it "
            "found.") in caption
    # review (s70) item 3: the readings' sentence ends with one full stop, not two
    assert "App. H's \"" in caption and ".." not in caption.replace("...", "")
    plt.close("all")


def test_fig3_histograms_take_their_h_colour_and_their_titles_do_not_meet(
        monkeypatch, no_mahdavi_scorecard):
    """Each histogram is drawn in its H's colour of the left panel, and its title puts the
    sizes found on a line of their own, so that neighbouring titles do not overlap even with
    four-digit sizes from several seeds."""
    from matplotlib.colors import to_hex

    monkeypatch.setattr(fig, "verdict_run", lambda name, profile: None)
    shown: list = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    table = _saturation()
    wide = pd.concat([table.assign(seed=s, T=table["T"] * 13 + 100 * s) for s in range(6)])
    fig.fig3(SimpleNamespace(fresh=wide, cached=None, partial=None,
                             params={"n": 8, "d_h": 16}), "quick")
    figure = shown[0]
    left, *hists = figure.axes
    colours = {h: to_hex(c) for h, c in fig.head_colours(wide).items()}
    dots = {label: to_hex(c.get_facecolor()[0]) for c in left.collections
            if (label := c.get_label()).startswith("H = ")}
    for ax, h in zip(hists, sorted(colours), strict=True):
        assert {to_hex(bar.get_facecolor()) for bar in ax.patches} == {colours[h]}
        assert dots[f"H = {h}"] == colours[h]
        assert ax.get_title().split("\n")[1].startswith("(T = ")
    figure.canvas.draw()
    boxes = [ax.title.get_window_extent() for ax in hists]
    assert boxes[0].x1 < boxes[1].x0
    plt.close("all")


def _fig1_shown(monkeypatch) -> list:
    """The figures :func:`fig.fig1` displays for a made-up Figure 1 table (k = 1, n, d)."""
    monkeypatch.setattr(fig, "verdict_run", lambda name, profile: None)
    shown: list = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    rows = pd.DataFrame([{"representation": "random_attention", "check": "figure1", "k": k,
                          "pass_fraction": 1.0 if k < 250 else 0.0, "repeats": 6, "T": 800,
                          "method": "prefix", "n": 197, "d": 768} for k in (1, 197, 768)])
    fig.fig1(rows, None, "quick")
    return shown


def test_fig1_draws_n_as_a_grey_dotted_reference_not_as_a_bound(monkeypatch,
                                                                no_mahdavi_scorecard):
    """n = 197 is a reference value: grey and dotted, not the black dashed line of a bound."""
    from memnb import viz
    from memnb.papers import mahdavi as paper

    shown = _fig1_shown(monkeypatch)
    ax = shown[0].axes[0]
    line = next(ln for ln in ax.get_lines() if ln.get_label().startswith("n = "))
    labels = [t.get_text() for legend in shown[0].legends for t in legend.get_texts()]
    plt.close("all")
    assert list(line.get_xdata()) == [paper.VIT_N.value] * 2
    assert line.get_linestyle() == ":" and line.get_color() == fig.FIG1_REFERENCE_COLOUR
    assert line.get_color() != viz.PALETTE["bound"]
    assert f"n = {paper.VIT_N.value:g} (Assumption 1)" in labels


def test_fig1_tells_the_lines_at_n_and_d_apart_by_their_dashes(monkeypatch,
                                                               no_mahdavi_scorecard):
    """Review (s69) item 6: the vertical lines at n = 197 and d = 768 had the same dotted
    style; the line at d is dash-dot, so the two differ by their dashes as well as colour."""
    from memnb.papers import mahdavi as paper

    shown = _fig1_shown(monkeypatch)
    lines = {ln.get_label().split(" ")[0]: ln for ln in shown[0].axes[0].get_lines()
             if ln.get_label().startswith(("n = ", "d = "))}
    plt.close("all")
    assert list(lines["d"].get_xdata()) == [paper.VIT_D.value] * 2
    assert lines["d"].get_linestyle() == fig.FIG1_D_LINESTYLE == "-."
    assert lines["n"].get_linestyle() != lines["d"].get_linestyle()


def _readings_runs(pairs: dict[int, float]) -> pd.DataFrame:
    """Searched Fig. 3 runs at H = 4, one per seed: 0, 1, 2, 3, 4 saturated heads on 10 %,
    30 %, 30 %, 20 %, 10 % of the examples, and ``pairs[seed]`` of (head, example) pairs
    saturated."""
    rows = []
    for seed, pair in pairs.items():
        for k, share in enumerate((0.1, 0.3, 0.3, 0.2, 0.1)):
            rows.append({"H": 4, "T": 80, "seed": seed, "accuracy": 1.0,
                         "saturated_heads": k, "example_fraction": share,
                         "saturated_fraction": pair, "some_head_unsaturated": 0.9})
    return pd.DataFrame(rows)


def test_fig3_caption_reads_many_saturated_heads_three_ways():
    """Review (s69) item 4: App. H's "a significant number of heads are saturated for the
    majority of examples" is read three ways, each share computed from the table and compared
    with one half: examples with a saturated head (the verdict's, judged), examples with at
    least half of their heads saturated, and (head, example) pairs (both reported; s70 item
    3)."""
    runs = _readings_runs({0: 0.45, 1: 0.45})
    shares = fig.saturation_readings(runs)
    assert shares.loc[4, "some_saturated"] == pytest.approx(0.9)
    assert shares.loc[4, "half_saturated"] == pytest.approx(0.6)
    assert shares.loc[4, "saturated_pairs"] == pytest.approx(0.45)
    text = fig.saturation_readings_text(runs)
    assert text.startswith(f"App. H's \"{fig.FIG3_MANY_HEADS}\" read three ways (ours; each a "
                           "mean over the seeds, with its range over them and the seeds above "
                           "one half; the verdict judges the first, the two stricter readings "
                           "are reported): ")
    assert ("examples with at least one saturated head: mean 90.0% at H = 4 (90.0% in every "
            "seed, more than half in every seed), the mean more than half at every H (the "
            "verdict's reading, the weakest)") in text
    assert ("examples with at least half of their heads saturated: mean 60.0% at H = 4 (60.0% "
            "in every seed, more than half in every seed), the mean more than half at every H "
            "(a stricter reading, reported)") in text
    assert ("(head, example) pairs saturated: mean 45.0% at H = 4 (45.0% in every seed, more "
            "than half in no seed), the mean more than half at no H (a stricter reading, "
            "reported)") in text
    # one sentence whose full stop the caption adds: no double full stop there
    assert not text.endswith(".")
    assert fig.saturation_readings_text(runs.iloc[:0]) == ""
    # one seed: no range, no count of seeds
    alone = fig.saturation_readings_text(runs.query("seed == 0"))
    assert "per seed" not in alone and "in every seed" not in alone
    assert "mean 45.0% at H = 4, the mean more than half at no H" in alone


def test_fig3_readings_give_each_seed_beside_a_mean_above_one_half():
    """Review (s70) item 2: a mean above one half may hide seeds below it; each reading gives
    its range over the seeds and how many are above one half, and "more than half at every H"
    is said of the mean."""
    runs = _readings_runs({0: 0.45, 1: 0.6, 2: 0.58})
    per_seed = fig.seed_readings(runs)
    assert list(per_seed.loc[4, "saturated_pairs"]) == pytest.approx([0.45, 0.6, 0.58])
    assert fig.seed_readings(runs.query("seed == 0")) is None
    text = fig.saturation_readings_text(runs)
    assert ("(head, example) pairs saturated: mean 54.3% at H = 4 (per seed 45.0% to 60.0%, "
            "more than half in 2 of 3 seeds), the mean more than half at every H") in text


def test_fig3_readings_of_the_committed_full_run_count_its_seeds():
    """Review (s70) item 2 on the committed full run: each reading's count of seeds above one
    half, and its range, as computed here from the table's own columns (the share of saturated
    pairs is the column ``saturated_fraction``; one searched size per seed)."""
    from memnb.results import load
    from memnb.scorecard import mahdavi as sc

    runs = sc.searched_runs(load("mahdavi.saturation", "full").table)
    text = fig.saturation_readings_text(runs)
    for h, part in runs.groupby("H"):
        pairs = part.groupby("seed")["saturated_fraction"].first()
        above = int((pairs > 0.5).sum())
        count = ("every seed" if above == len(pairs) else "no seed" if above == 0 else
                 f"{above} of {len(pairs)} seeds")
        mean = pairs.mean()
        assert (f"{mean:.1%} at H = {h} (per seed {pairs.min():.1%} to {pairs.max():.1%}, more "
                f"than half in {count})") in text
        assert fig.seed_readings(runs).loc[h, "saturated_pairs"].to_dict() == pytest.approx(
            pairs.to_dict())
    means = runs.groupby(["H", "seed"])["saturated_fraction"].first().groupby("H").mean()
    if (means > 0.5).all():
        assert ("(head, example) pairs saturated" in text
                and text.endswith("the mean more than half at every H (a stricter reading, "
                                  "reported)"))
