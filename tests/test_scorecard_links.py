"""Links of the scorecard: each row of the scorecard page to the same row of its chapter's
closing table, the section *All the rows* from the glance sentence and from the introduction;
and the replaced-table and replication summaries, which word a status as the scorecard shows it
("trend (not decided)"). Made-up rows and verdicts only."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest
from docutils.nodes import make_id

from memnb.scorecard import core, render
from memnb.scorecard.replaced import Rejudged, rejudged_summary, replication_markdown

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
if str(REPO / "book") not in sys.path:  # book/buildtools is imported as book/build.py does
    sys.path.insert(0, str(REPO / "book"))

from buildtools import glance, reproducibility  # noqa: E402


def _row(paper: str, item: str, status: str = "reproduced", *, ours: bool = False,
         decided: bool = True) -> core.Row:
    return core.Row(paper, item, "c", "k", "m", "e", status, ours, decided=decided)


#: Rows of every paper, with an item on two rows (ids ``…-2``) and a row of ours.
ROWS = [_row("dana", "Fig. 1b"), _row("dana", "Fig. 1b", "trend"), _row("dana", "Lemma 2"),
        _row("dana", "Fig. 5", "differs", ours=True),
        _row("mahdavi", "Thm 1"), _row("mahdavi", "Fig. 2a", "not computable"),
        _row("kajitsuka", "Remark 4.4, overhead ∝ log N", "trend", decided=False),
        _row("compare", "Head to head", "trend")]


def _hrefs(page: str) -> list[str]:
    return re.findall(r'<a href="([^"]+)"', page)


def test_the_scorecard_page_links_each_row_to_the_same_row_of_its_chapter():
    """Review: no row of the scorecard page linked to its chapter. Each item links to
    ``<chapter page>.html#<row id>``, and that id is a row of the chapter's own closing table
    (:func:`render.chapter_scorecard`, the same :func:`render.row_ids`), which links to no row
    of itself."""
    page = render.book_scorecard("quick", ROWS).data
    links = [h for h in _hrefs(page) if "#sc-" in h]
    assert len(links) == len(ROWS)  # one per row, a repeated item included
    assert ('<a href="dana.html#sc-dana-fig-1b-2">Fig. 1b</a>' in page
            and '<a href="dana.html#sc-dana-fig-5">Fig. 5</a> <em>(ours)</em>' in page)
    assert "kajitsuka_sato.html#sc-kajitsuka-remark-4-4-overhead-log-n" in links
    for paper, chapter in render.CHAPTER_PAGES.items():
        mine = [r for r in ROWS if r.paper == paper]
        own = render.chapter_scorecard(paper, "quick", mine).data
        targets = [h.split("#", 1)[1] for h in links if h.startswith(f"{chapter}.html#")]
        assert targets == render.row_ids(mine), paper
        for target in targets:
            assert f'<tr id="{target}">' in own, target
        # a chapter's table links to the status definitions only, not to its own rows
        assert _hrefs(own) == ["scorecard.html"], paper
        # each paper's table on the scorecard page has a heading a link can point at
        assert f'<h3 id="{render.paper_id(paper)}">' in page
        assert render.paper_id(paper) not in render.row_ids(mine)


def test_every_paper_has_the_chapter_page_that_closes_with_its_rows():
    """:data:`render.CHAPTER_PAGES` is read from the notebooks, not guessed: the notebook of
    each paper's page calls ``chapter_scorecard("<paper>", …)``, and every paper has one."""
    assert set(render.CHAPTER_PAGES) == set(core.PAPERS)
    for paper, chapter in render.CHAPTER_PAGES.items():
        source = (NOTEBOOKS / f"{chapter}.ipynb").read_text(encoding="utf-8")
        assert f'chapter_scorecard(\\"{paper}\\"' in source, (paper, chapter)
    with pytest.raises(ValueError, match="paper must be one of"):
        render.chapter_row_link("nobody", "sc-nobody-x")


def test_all_the_rows_is_linked_from_the_glance_and_the_intro_links_the_scorecard():
    """Review: *All the rows* (the glance sentence, on the scorecard page and copied into the
    introduction) and the *reproduction scorecard* of the introduction were not links. The
    anchor is the one Sphinx makes of the scorecard notebook's heading; the introduction's copy
    points it at the scorecard page."""
    cells = json.loads((NOTEBOOKS / "scorecard.ipynb").read_text(encoding="utf-8"))["cells"]
    headings = [line[3:] for c in cells if c["cell_type"] == "markdown"
                for line in "".join(c["source"]).splitlines() if line.startswith("## ")]
    assert "All the rows" in headings and make_id("All the rows") == render.ALL_ROWS_ID
    rows = [_row("dana", "Fig. 1b", "differs"), _row("dana", "Fig. 2", "trend", ours=True)]
    page = render.glance_html(rows).data
    assert f'<a href="#{render.ALL_ROWS_ID}"><em>All the rows</em></a>' in page
    copied = page.strip().replace('href="#', f'href="{glance.SCORECARD_PAGE}#')
    assert f'href="chapters/scorecard.html#{render.ALL_ROWS_ID}"' in copied
    intro = (REPO / "book" / "intro.md").read_text(encoding="utf-8")
    assert "[reproduction scorecard](chapters/scorecard.ipynb)" in intro
    assert "**reproduction scorecard**" not in intro


def test_a_status_change_is_worded_as_the_scorecard_shows_it():
    """Review: the summaries said "trend → trend" where the scorecard shows "trend (not
    decided)" on one side. A trend decided on one table and not on the other is a change."""
    flip = Rejudged("kajitsuka.capacity", "kajitsuka", "Remark 4.4, overhead ∝ log N",
                    "trend", "trend", now_decided=False)
    gone = Rejudged("dana.exp7", "dana", "Fig. 7", "trend", "not run", now_decided=False)
    same = Rejudged("dana.exp2", "dana", "Fig. 1b", "trend", "trend", False, False)
    assert flip.changed and not same.changed and gone.changed
    assert flip.words() == "Remark 4.4, overhead ∝ log N: trend (not decided) → trend"
    assert same.words() == "Fig. 1b: trend (not decided) → trend (not decided)"
    text = rejudged_summary([flip, gone, same], lambda j: j.item)
    assert text == (
        "Of the 3 verdicts judged again on the replaced tables, 1 changes: Remark 4.4, overhead "
        "∝ log N (trend (not decided) on the committed run, trend on the replaced one). 1 "
        "cannot be decided on the replaced table (`not run` there, which overturns no verdict): "
        "Fig. 7 (trend (not decided) on the committed run, not run on the replaced one).")
    assert rejudged_summary([same], lambda j: j.item) == (
        "Of the 1 verdict judged again on the replaced tables, none changes.")
    with pytest.raises(ValueError, match="only a trend can be not decided"):
        _ = Rejudged("dana.exp2", "dana", "Fig. 1b", "differs", "trend", False).now_words


def test_the_build_reads_a_change_of_decision_from_the_summary(tmp_path):
    """The reproducibility page's parser of the summary (``_rejudged_on_replications``) counts
    a change of decision, and the change it lists keeps its "(not decided)"."""
    flip = Rejudged("kajitsuka.capacity", "kajitsuka", "Remark 4.4", "trend", "trend",
                    now_decided=False)
    text = rejudged_summary([flip], lambda j: j.item, runs="replicated runs",
                            on=("the replications", "the replication", "the replication"))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/markdown": text})])]
    path = tmp_path / "scorecard.ipynb"
    nbformat.write(nb, path)
    found = reproducibility._rejudged_on_replications([path])
    assert (found.judged, found.changed) == (1, 1)
    assert found.moved == ("Remark 4.4 (trend (not decided) on the committed run, trend on the "
                           "replication)")


def test_the_replication_paragraph_words_each_status_as_the_scorecard(monkeypatch):
    """A chapter's replication paragraph lists its rows (committed → replication) with the
    "(not decided)" of a trend, and counts a change of decision."""
    from memnb.scorecard import replaced

    provenance = {"code_fingerprint": "abc", "device": "cpu"}
    run = type("Run", (), {"provenance": provenance})()
    found = replaced.Replication(
        "dana.exp7", run, run, "2 points: `acc` equal at every one",
        (Rejudged("dana.exp7", "dana", "Fig. 7", "trend", "trend", now_decided=False),))
    monkeypatch.setattr(replaced, "replications", lambda rows, names, root=None: [found])
    monkeypatch.setattr("memnb.provenance.computed_on", lambda provenance: "a CPU")
    monkeypatch.setattr("memnb.provenance.rekey_origin", lambda provenance: None)
    text = replication_markdown([], ["dana.exp7"], "full")
    assert "(committed → replication): Fig. 7: trend (not decided) → trend. " in text
    assert "1 changes: Fig. 7 (trend (not decided) on the committed run, trend on the " \
        "replication)." in text
