"""The published values of Dana et al. (memnb.papers.dana): the 34 official CSVs and the text."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from memnb.papers import Published
from memnb.papers import dana as paper


def test_every_official_file_is_read_and_matched_to_its_figure():
    table = pd.concat([paper.official(name) for name in paper.FILES], ignore_index=True)
    assert table["file"].nunique() == len(paper.FILES) == 34
    expected = {"Fig. 1a", "Fig. 1b", "Fig. 2a", "Fig. 2b", "Fig. 3", "Fig. 4", "Fig. 5",
                "Fig. 6", "Fig. 7", "Fig. 8", "Fig. 9", "Fig. 10"}
    assert set(table["figure"]) == expected
    assert table["source"].str.contains("official results").all()
    assert table["accuracy"].between(0, 1).all()
    # the parameters that identify each figure
    assert set(paper.exp1()["d"]) == set(range(3, 14)) and (paper.exp1()["N"] == 50).all()
    assert set(paper.dim_exp1()["N"]) == {200} and set(paper.dim_exp1()["d"]) == {40, 50, 60}
    assert set(paper.exp5()["N"]) == {70} and set(paper.exp5()["model"]) == {"aot", "mlp"}
    assert len(paper.exp3()) == 11 and list(paper.exp3()["d"]) == list(range(5, 16))
    # the experiments.ipynb cells that write the *_depth.csv files set nb_layers = 3 (the paper
    # says 5, as the separate expe_depth.py, whose N = 50 grid no CSV holds)
    assert set(paper.depth_exp1()["layers"]) == {paper.TEXT["depth_layers_code"].value} == {3}
    assert paper.TEXT["depth_layers_text"].value == paper.TEXT["depth_layers_script"].value == 5
    assert set(paper.depth_exp1()["N"]) == {70}


def test_a_file_whose_parameters_do_not_fit_its_figure_is_refused(tmp_path, monkeypatch):
    folder = tmp_path / paper.OFFICIAL_DIR
    folder.mkdir()
    pd.DataFrame({"acc": [0.1, 0.2], "para": [1, 6], "N": [60, 60], "d": [10, 10],
                  "d_head": [10, 10]}).to_csv(folder / "Data_exp_1_10.csv", index=False)
    monkeypatch.setattr(paper, "find_paper_file", lambda rel: tmp_path / rel)
    paper._read.cache_clear()
    try:
        with pytest.raises(ValueError, match="expected N = 50 for Fig. 1a"):
            paper.official("Data_exp_1_10.csv")
    finally:
        paper._read.cache_clear()
    with pytest.raises(ValueError, match="name must be one of"):
        paper.official("Data_exp_9.csv")


def test_official_slope_rule_stops_after_the_first_point_above_095():
    slope, intercept, used = paper.official_slope([1, 2, 3, 4, 5, 6, 7],
                                                  [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0])
    assert (slope, intercept, used) == (pytest.approx(0.1), pytest.approx(0.4), 6)
    with pytest.raises(ValueError, match="at least two points"):
        paper.official_slope([1], [0.5])


def test_slopes_at_every_d_have_no_gaps_and_follow_the_rule():
    slopes = paper.exp1_slopes()
    assert list(slopes["d"]) == list(range(3, 14)) and slopes["slope"].notna().all()
    for d in (4, 6, 8, 12):  # the values the chapter used to print as NaN
        raw = paper.exp1(d).sort_values("H")
        above = np.flatnonzero(raw["accuracy"].to_numpy() > 0.95)
        stop = above[0] + 1 if above.size else len(raw)
        expected = np.polyfit(raw["H"][:stop], raw["accuracy"][:stop], 1)[0]
        assert slopes.set_index("d").loc[d, "slope"] == pytest.approx(expected)
    # the values of the reproduction notes (recomputed from the same CSVs)
    assert slopes.set_index("d").loc[10, "slope"] == pytest.approx(0.0340, abs=5e-5)
    assert slopes.set_index("d").loc[13, "slope"] == pytest.approx(0.0554, abs=5e-5)


def test_experiment_4_fits_favour_the_quadratic():
    fits = paper.exp4_fits().set_index("fit")
    assert fits.loc["quadratic", "a"] == pytest.approx(3.33e-4, rel=0.01)
    assert fits.loc["quadratic", "sse"] < fits.loc["cubic", "sse"]


def test_the_papers_fits_are_experiment_4s_fit_and_the_unused_helpers_are_gone():
    """Fig. 2b's fits of the CSV slopes use our Experiment 4's least squares, not a copy of it;
    the copy (power_fit) and the unused table of every CSV (official_results) are deleted."""
    from memnb.experiments.dana import fit_power

    slopes = paper.exp1_slopes()
    fits = paper.exp4_fits().set_index("power")
    for power in (2, 3):
        ours = fit_power(slopes["d"].to_numpy(), slopes["slope"].to_numpy(), power)
        assert fits.loc[power, ["a", "b", "sse"]].to_dict() == ours
    assert not hasattr(paper, "power_fit") and not hasattr(paper, "official_results")


def test_experiment_6_ratio_and_the_captions_rounding():
    ratio = paper.exp6_slope_ratio()
    assert isinstance(ratio["ratio"], Published)
    assert float(ratio["ratio"]) == pytest.approx(1.51, abs=0.01)
    assert float(ratio["bound_slope"]) == pytest.approx(0.9 * 2 / 100)
    assert paper.TEXT["exp6_ratio_caption"].value < float(ratio["ratio"])


@pytest.mark.parametrize("key", ["N_section5", "exp6_ratio_caption", "exp6_ratio_appendix",
                                 "depth_layers_text", "hours_appendix", "lr_start_appendix",
                                 "exp6_d_h_appendix", "dim_d"])
def test_quoted_values_are_in_the_camera_ready_text(key):
    quote = re.search(r"'([^']+)'", paper.TEXT[key].source).group(1)
    text = " ".join(paper.camera_ready_text().split())
    assert quote in text
    assert re.search(rf"(?<![\d.]){re.escape(format(paper.TEXT[key].value, 'g'))}(?![\d])",
                     quote)


def test_quoted_sentences_are_in_the_camera_ready_text():
    for quote in paper.QUOTES.values():
        assert paper.in_camera_ready(quote), quote
    altered = paper.Quote("Sec. 5.1", paper.QUOTES["rank_d_memory"].text.replace(
        "at most d", "about d"))
    assert not paper.in_camera_ready(altered)
    assert str(paper.QUOTES["rank_d_memory"]).endswith("associations.' (Sec. 5.1)")
