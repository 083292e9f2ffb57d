"""The Dana chapter after review: Section 4's verdicts are their scorecard rows' statuses, the
centred logits' rank is counted at the round-off of the uncentred ones (Thm 1 with ε > 0), the
three-model and Fig. 2a figures label what they draw, and the experiments open with how far the
replications of the drawn runs are from them (memnb.figures.dana, memnb.scorecard.dana_theory).
No test here reads data/results/quick."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from dana_tables import paper_offset_tables  # noqa: E402

from memnb.figures import dana as figures  # noqa: E402
from memnb.scorecard import dana as scorecard  # noqa: E402
from memnb.scorecard import dana_theory  # noqa: E402
from memnb.scorecard.core import Row, load_items  # noqa: E402
from memnb.scorecard.criteria import Verdict  # noqa: E402

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "dana.ipynb"


def _cells(kind: str) -> list[str]:
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == kind]


def _row(item: str, status: str, measured: str = "m") -> Row:
    return Row("dana", item, "claim", "criterion", measured, "evidence", status)


# --- 1. Section 4's verdicts are the scorecard rows' statuses --------------------------------

def test_every_glued_status_of_the_notebook_is_the_status_of_its_scorecard_row():
    """Each ``glue("X_status", ...)`` of the notebook glues the status that
    :func:`figures.section_verdict` reads from the row ``SECTION4_VERDICTS["X_status"]`` of
    ``section4``, the rows the notebook computes with :func:`scorecard.rows`; each paragraph
    shows that status followed by the words on why it differs from the paragraph's own check.
    A glue of a dana_theory verdict's own status (``v_table1.status``) fails here."""
    code, markdown = "\n".join(_cells("code")), "\n".join(_cells("markdown"))
    glued = set(re.findall(r'glue\("(\w+_status)"', code))
    assert glued, "the notebook glues no verdict"
    assert glued <= set(figures.SECTION4_VERDICTS)
    # the one verdict not glued is written by a function that is given the same rows
    assert set(figures.SECTION4_VERDICTS) - glued == {"rank_d_status"}
    assert "figures.rank_d_memory_paragraph(theory_bietti, section4)" in code
    assert ("section4 = scorecard.rows(profile, tuple(figures.SECTION4_VERDICTS.values()))"
            in code)
    for name in glued:
        pattern = (rf'row_status, row_why = figures\.section_verdict\(section4, "{name}", '
                   rf'(v_\w+)\)\nglue\("{name}", row_status, display=False\)[^\n]*\n'
                   rf'glue\("{name}_why", row_why, display=False\)')
        found = re.findall(pattern, code)
        assert len(found) == 1, name
        assert f"{found[0]}.status" not in re.findall(rf'glue\("{name}", ([^,]+),', code)
        shown = re.findall(rf"\{{glue:text\}}`{name}(?:_why)?`", markdown)
        assert shown == [f"{{glue:text}}`{name}`", f"{{glue:text}}`{name}_why`"], name
        assert f"{{glue:text}}`{name}`{{glue:text}}`{name}_why`" in markdown


def test_the_rows_the_section_names_are_scorecard_items():
    items = {it.item for it in load_items([scorecard.P])}
    assert set(figures.SECTION4_VERDICTS.values()) <= items


def test_section_verdict_is_the_rows_status_with_why_it_differs():
    own = Verdict("reproduced", "computed")
    capped = _row("Table 1", "trend", "formulas [holds by construction: a check of our code, not "
                  "of the paper; it measures nothing]")
    rows = {"Table 1": capped, "Remark 2": _row("Remark 2", "reproduced"),
            "Corollary 2": _row("Corollary 2", "not run", "no table"),
            "Theorem 1": _row("Theorem 1", "differs", "ε = 0: … | ε > 0: …")}
    assert figures.section_verdict(rows, "remark2_status", own) == ("reproduced", "")
    status, why = figures.section_verdict(rows, "table1_status", own)
    assert status == "trend"
    assert why == (" (the scorecard row's status; this check alone gives reproduced, capped at "
                   "trend: holds by construction, as the row in Section 9 says in full)")
    status, why = figures.section_verdict(rows, "cor2_status", Verdict("trend", "m"))
    assert status == "not run" and "the row is not run: no table" in why
    status, why = figures.section_verdict(rows, "thm1_status", own)
    assert status == "differs" and "weakest status" in why


def test_table_1_reads_trend_from_its_row_where_its_own_check_reads_reproduced():
    """The reviewer's case: the row (computed inline, no result table) is capped because the
    check holds by construction; the paragraph now says trend, and why, from the row."""
    rows = scorecard.rows("full", ("Table 1",))
    own = dana_theory.table1()
    status, why = figures.section_verdict(rows, "table1_status", own)
    assert status == rows["Table 1"].status == "trend" and own.status == "reproduced"
    assert "holds by construction" in why and why.startswith(" (") and why.endswith(")")


def test_the_rank_d_paragraph_reads_its_row():
    tab = dana_theory.bietti_table()
    row = _row("Sec. 5.1: rank-d memory", "trend", "x [a cap]")
    own = dana_theory.bietti_at_most_d(tab=tab)
    text = figures.rank_d_memory_paragraph(tab, {"Sec. 5.1: rank-d memory": row})
    assert f"Verdict (Sec. 5.1: rank-d memory): **trend** (the scorecard row's status; this " \
           f"check alone gives {own.status}" in text
    assert f"**{own.status}**." in figures.rank_d_memory_paragraph(tab)


# --- 2. Thm 1 (ε > 0): the centred logits' rank ----------------------------------------------

def test_the_centred_logits_of_the_reviewed_row_have_rank_at_most_d():
    """Row N = 4, S = 2, d = 2, d_h = 1, H = 4, Zipf 4: the fit leaves a large per-sequence
    shift (||L||_2 far above ||L_c||_2), whose cancellation leaves round-off in L_c; counted at
    the uncentred logits' round-off the centred logits have rank ≤ d, and their (d + 1)-th
    singular value lies below that round-off."""
    from memnb.constructions import aot_distribution
    from memnb.lookup_tables import fit_rank_d_encoder

    tab = dana_theory.thm1_centred_table()
    row = tab[(tab["N"] == 4) & (tab["S"] == 2) & (tab["d"] == 2) & (tab["d_h"] == 1)
              & (tab["H"] == 4) & (tab["zipf"] == 4.0)].iloc[0]
    assert row["rank_centred"] <= row["d"]
    assert (tab["rank_centred"] <= tab["d"]).all()
    v = dana_theory.thm1_epsilon(tab=tab)
    assert v.values["centred_rank_at_most_d"] is True and "still rank ≤ d" in v.measured
    task = aot_distribution.full_support_task(4, 2, zipf=4.0, seed=0)
    fit = fit_rank_d_encoder(task.conditionals, 2, prior=task.prior, restarts=1, seed=0)
    logits = fit.E @ fit.W.T
    centred = logits - logits.mean(axis=1, keepdims=True)
    sigma = np.linalg.svd(centred, compute_uv=False)
    round_off = np.linalg.norm(logits, 2) * max(logits.shape) * np.finfo(float).eps
    assert sigma[2] < round_off < sigma[1]
    assert dana_theory.centred_logit_rank(logits) == 2


def test_a_centred_matrix_of_rank_d_plus_one_is_counted_as_such():
    """The tolerance does not hide a real direction: centred logits of rank d + 1 = 3 (their
    smallest singular value 1e-3) under a per-row shift of 1e3 stay of rank 3, as without the
    shift; a matrix of rank d with the same shift has rank d."""
    rng = np.random.default_rng(0)
    u, _ = np.linalg.qr(rng.standard_normal((16, 3)))
    v = rng.standard_normal((4, 3))
    v, _ = np.linalg.qr(v - v.mean(axis=0))  # columns summing to 0: u diag(s) vᵀ is centred
    centred = u @ np.diag([10.0, 1.0, 1e-3]) @ v.T
    assert np.allclose(centred.mean(axis=1), 0.0)
    shift = 1e3 * rng.uniform(0.5, 1.5, (16, 1)) * np.ones((1, 4))
    assert dana_theory.centred_logit_rank(centred) == 3
    assert dana_theory.centred_logit_rank(centred + shift) == 3
    rank_d = u[:, :2] @ np.diag([10.0, 1.0]) @ v[:, :2].T
    assert dana_theory.centred_logit_rank(rank_d + shift) == 2


def test_the_legend_of_rank_centred_states_the_tolerance():
    legend = figures.THM1_LEGEND["rank_centred"]
    assert "round-off of the uncentred logits" in legend and "machine epsilon" in legend


# --- 3. the figures ----------------------------------------------------------------------------

def _exp_tables():
    """Experiments 2 and 3 and the layout runs at the paper's accuracies (no offset)."""
    return paper_offset_tables({"aot": 0.0, "aot_code": 0.0, "aot_code_uncompressed": 0.0})


def test_both_panels_of_the_three_model_figure_label_their_y_axis():
    layout, exp2, exp3 = _exp_tables()
    fig = figures.layout_figure(layout, exp2, exp3)
    assert len(fig.axes) == 2
    for ax in fig.axes:
        assert ax.get_ylabel() == figures.accuracy_label(layout, exp2)
        assert ax.get_ylabel().startswith("accuracy (")  # what the accuracy is: its unit
    plt.close(fig)


def test_fig_2a_lists_its_dotted_line_in_the_legend_below_the_panel():
    _, _, exp3 = _exp_tables()
    fig = figures.exp3_figure(exp3)
    ax = fig.axes[0]
    assert "dotted" not in ax.get_title()
    dotted = [line for line in ax.get_lines() if line.get_label() == "d = d_h = 10"]
    assert len(dotted) == 1 and dotted[0].get_linestyle() == ":"
    assert len(fig.legends) == 1 and ax.get_legend() is None
    legend = fig.legends[0]
    assert "d = d_h = 10" in [t.get_text() for t in legend.get_texts()]
    fig.canvas.draw()  # the legend lies below the axes: it covers no data
    assert (legend.get_window_extent().y1
            <= ax.get_tightbbox(fig.canvas.get_renderer()).y0 + 1)
    plt.close(fig)


# --- 4. the replications, at the start of the experiments ------------------------------------

def _gap(name, largest, judged=1, changed=(), equal=True, column="accuracy_last_batches"):
    return figures.ReplicationGap(name, column, largest, judged, changed, equal)


def test_the_lead_gives_the_largest_difference_and_whether_a_verdict_changes():
    gaps = [_gap("dana.exp1", 0.026, judged=3), _gap("dana.exp6", 0.085),
            _gap("dana.exp4", math.nan, judged=0, column=None)]
    text = figures.replications_lead(gaps, ["dana.exp1", "dana.exp5", "dana.exp6"])
    assert text.startswith("The figures of Sections 5 to 7 draw the committed full runs of "
                           "3 experiments. Two of them were computed again by the same code, "
                           "in another run, as replications ({ref}`Section 7 <dana-replications>`)")
    assert ("the accuracy the figures draw (`accuracy_last_batches`) differs between a "
            "committed run and its replication by up to 0.085 (`dana.exp6`)") in text
    assert "no verdict changes when its row is judged again on a replication (4 such" in text
    assert ("For every one of them, the replication equals, cell for cell, the table the "
            "committed run replaced") in text
    moved = figures.replications_lead(
        [_gap("dana.exp1", 0.026, judged=3, changed=("Fig. 1a: reproduced → trend",)),
         _gap("dana.exp6", 0.085, equal=False)], ["dana.exp1", "dana.exp6"])
    assert "1 of the 4 verdicts judged again on a replication changes: Fig. 1a: reproduced " \
           "→ trend." in moved
    assert "For one of them, the replication equals" in moved
    assert figures.replications_lead([], ["dana.exp5"]).endswith(
        "of `dana.exp5`; it has no committed replication ({ref}`Section 7 <dana-replications>`).")
    assert figures.replications_lead([], []).startswith(
        "The figures of Sections 5 to 7 draw the runs of this profile, not committed full runs")


def test_the_lead_on_the_committed_full_runs_and_replications():
    """On the committed full tables and replications (no row judged: ``rows`` empty): the
    largest difference is that of the run the Section 7 paragraph names, and the lead's number
    is the largest of the per-run gaps."""
    names = list(figures.MAIN_RUNS)
    gaps = figures.replication_gaps([], names)
    if not gaps:
        pytest.skip("no committed replication of the chapter's runs")
    measured = [g for g in gaps if g.column is not None and np.isfinite(g.largest)]
    worst = max(measured, key=lambda g: g.largest)
    runs = {name: SimpleNamespace(note=f"{name}: the committed full run, read instead of a run")
            for name in names}
    text = figures.replications_lead_markdown([], runs, "quick")
    assert f"by up to {worst.largest:.3f} (`{worst.name}`)" in text
    assert f"draw the committed full runs of {len(names)} experiments" in text
    none_read = {name: SimpleNamespace(note="a run of this build") for name in names}
    assert figures.replications_lead_markdown([], none_read, "quick").startswith(
        "The figures of Sections 5 to 7 draw the runs of this profile")


def test_the_notebook_opens_its_experiments_with_the_lead_before_the_first_figure():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    sources = ["".join(c["source"]) for c in nb["cells"]]
    lead = next(i for i, s in enumerate(sources) if "figures.replications_lead_markdown(" in s)
    first_figure = next(i for i, s in enumerate(sources) if "figures.exp1_figure(" in s)
    section5 = next(i for i, s in enumerate(sources) if s.startswith("## 5."))
    assert section5 < lead < first_figure
    # the link's target: the paragraph on replications in Section 7
    target = next(i for i, s in enumerate(sources) if s.startswith("(dana-replications)="))
    assert "chapter_replications(" in sources[target + 1]


def test_the_chapter_s_conclusion_stands_under_its_glance():
    """Review (s74) item 1: the glance's differs are the eq. (2) runs'; the chapter's computed
    conclusion (which models follow the paper's empirical law, Section 7) is glued under the
    glance, and says where its verdict's numbers are from there (below, not above)."""
    nb = json.loads((Path(__file__).parents[1] / "notebooks" / "dana.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"]]
    glance = next(c for c in cells if "{glue:} chapter_glance" in c)
    assert glance.index("{glue:} chapter_glance") < glance.index("{glue:} dana_headline")
    assert "The experiment rows judge our runs of the model of eqs. (1)–(2)" in glance
    glued = next(c for c in cells if 'glue("dana_headline"' in c)
    assert "in Section 7's captions" in glued
    row = SimpleNamespace(item="Figs. 1b, 2a: which model", status="reproduced", decided=True)
    assert figures.verdict_recalled(row, "in Section 7's captions").endswith(
        "with its numbers in Section 7's captions.")
    assert figures.verdict_recalled(row).endswith("with its numbers in the caption above.")


def test_the_lead_says_why_the_figures_draw_the_committed_run():
    """Review (session 75): the lead said the committed run differs from both its replication
    and the table it replaced, but not why the figures draw it; it now says that the two runs
    share code, grid and seeds, so that neither is the more right one, and that the committed
    run is the one the verdicts are judged on. Said only where a replication exists."""
    text = figures.replications_lead([_gap("dana.exp6", 0.085)], ["dana.exp6"])
    assert text.endswith(" " + figures.WHY_COMMITTED)
    assert "neither is the more right one" in figures.WHY_COMMITTED
    assert figures.WHY_COMMITTED not in figures.replications_lead([], ["dana.exp5"])
    assert figures.WHY_COMMITTED not in figures.replications_lead([], [])
