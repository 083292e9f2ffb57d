"""The published values of Mahdavi et al. (ICLR 2024): every value has a source, and the
experiments read their grids from there instead of retyping them."""

from __future__ import annotations

import pandas as pd

from memnb.experiments import mahdavi as experiments
from memnb.experiments.registry import get
from memnb.papers import Published
from memnb.papers import mahdavi as paper


def test_every_table_has_a_source_and_figure1_marks_how_each_point_was_got():
    for frame in (paper.table1(), paper.figure1(), paper.table3(), paper.sweeps()):
        assert isinstance(frame, pd.DataFrame) and len(frame)
        assert frame["source"].map(lambda s: isinstance(s, str) and len(s) > 5).all()
    fig1 = paper.figure1().set_index("k")["source"]
    # the notebook's saved output: printed cells, its saved plot, and one inferred point
    assert fig1.str.contains("analysis/vit.ipynb").all()
    assert fig1[[281, 291, 301, 331]].str.contains("[read off figure", regex=False).all()
    assert fig1[[197, 768]].str.contains("printed by the Table 1 cells").all()
    assert fig1[paper.FIG1_INFERRED_K].startswith("Fig. 1 [inferred")
    assert fig1.str.contains("[inferred", regex=False).sum() == 1
    # each point's origin in one word, agreeing with its source
    origin = paper.figure1().set_index("k")["origin"]
    assert list(origin[origin == "notes"].index) == [281, 291, 301, 331]
    assert list(origin[origin == "us"].index) == [251, 261, 271, 311, 321]
    assert fig1[origin == "us"].str.contains("[read off figure by us", regex=False).all()
    assert list(origin[origin == "printed"].index) == [197, 768]
    assert list(origin[origin == "inferred"].index) == [paper.FIG1_INFERRED_K]
    assert set(paper.table1()["representation"]) == set(paper.TABLE1_COLUMNS)


def test_single_values_carry_sources():
    values = [v for v in vars(paper).values() if isinstance(v, Published)]
    assert len(values) >= 15
    assert all(v.source for v in values)
    assert len(paper.sources()) == len(paper.sources()["value"].unique())


def test_table_values_as_published():
    t1 = paper.table1().set_index(["representation", "check"])["pass_fraction"]
    assert t1[("embedding", "assumption1")] == 0.0
    assert t1[("trained_vit_b16", "assumption1")] == 0.9982
    assert (paper.table1().query("check == 'general_position'")["pass_fraction"] == 0).all()
    t3 = paper.table3()
    a2 = t3[t3["check"] == "assumption2"].set_index(["model", "weights", "layer"])
    assert a2.loc[("gpt2", "trained", 1), "pass_fraction"] < 1.0
    assert (a2.drop(index=("gpt2", "trained", 1))["pass_fraction"] == 1.0).all()


def test_experiments_read_the_paper_grids():
    assert experiments.HEADS_FULL is paper.HEADS_GRID
    full = get("mahdavi.heads").params("full")
    assert full["sizes"] == paper.sweeps().set_index("figure").loc["Fig. 2a", "sizes"]
    assert full["d"] == paper.D.value and full["lr"] == paper.LEARNING_RATE.value
    sat = get("mahdavi.saturation").params("full")
    # App. H's search: each head count tries a grid around the paper's largest memorized size
    assert [c[0] for c in sat["configs"]] == [h for h, _ in paper.SATURATION_CONFIGS.value]
    for (_, sizes), (_, t) in zip(sat["configs"], paper.SATURATION_CONFIGS.value, strict=True):
        assert t in sizes and min(sizes) < t < max(sizes)
        assert sizes == experiments.saturation_search_sizes(t)
    assert not any(name.startswith("PAPER_") for name in vars(experiments))


def test_every_synthetic_figure_says_what_the_paper_plots():
    """Each synthetic figure with a claim has its y-axis in words with a source (the captions
    set it beside ours: memnb.figures.mahdavi.paper_counterpart)."""
    assert set(paper.FIG_Y) == {"Fig. 2a", "Fig. 2b", "Fig. 2c", "Fig. 3", "Fig. 4", "Fig. 5"}
    assert set(paper.FIG2_CLAIMS) <= set(paper.FIG_Y) | {"Fig. 2"}
    assert all(isinstance(v, Published) and v.source for v in paper.FIG_Y.values())
    assert "not published" in paper.CURVES_NOT_PUBLISHED


def test_table1_values_say_they_come_from_the_notebooks_saved_output():
    """Review (s69) item 3: Table 1's values are tagged [nb] (the saved output of the official
    notebook, as our notes give them): the cells of the paper's Table 1 are not in our text."""
    assert paper.table1()["source"].str.contains(paper.TABLE1_NB, regex=False).all()
    assert paper.TABLE1_NB.startswith("[nb]") and "analysis/vit.ipynb" in paper.TABLE1_NB
    trained = paper.table1().set_index(["representation", "check"]).loc["trained_vit_b16"]
    assert trained.loc["assumption1", "pass_fraction"] == (
        paper.TABLE1_TRAINED_A1_PASSES.value / paper.TABLE1_DRAWS.value)
    assert (trained.loc["general_position", "min_rank"],
            trained.loc["general_position", "max_rank"]) == (309, 318)
