"""The glance at the top of each chapter (memnb.scorecard.render.chapter_glance_html): the
chapter's rows by status, each item a link to its row in the chapter's closing table, the rows
the book's glance counts apart from ours and our checks. Made-up rows only."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from memnb.scorecard import core, render

REPO = Path(__file__).resolve().parents[1]


def _row(item: str, status: str = "reproduced", *, claim: str = "c", measured: str = "m",
         ours: bool = False, decided: bool = True) -> core.Row:
    return core.Row("mahdavi", item, claim, "k", measured, "e", status, ours, decided=decided)


ROWS = [_row("Theorem 1"), _row("Fig. 1", "differs"), _row("Fig. 1", "trend"),
        _row("Fig. 4", "trend", decided=False),
        _row("Fig. 5", "trend", claim=f"the curve rises ({render.EXPECTATION_MARK})"),
        _row("Definition 1", "trend", measured=f"holds ({render.BY_CONSTRUCTION})"),
        _row("Sec. 4.4: rank", "differs", ours=True)]


def _lines(page: str) -> dict[str, str]:
    """Each table line's text after its badge, by the badge's words."""
    found = {}
    for line in re.findall(r"<tr>(.*?)</tr>", page, flags=re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", line, flags=re.S)
        if cells:
            badge = re.sub(r"<[^>]+>", "", cells[0])
            found[badge] = " | ".join(cells[1:])
    return found


def test_a_chapter_glance_groups_its_rows_by_status_and_links_each_to_its_row():
    page = render.chapter_glance_html(ROWS).data
    ids = render.row_ids(ROWS)
    # every row once, linked to its own id (a second row on one item to its "-2")
    assert re.findall(r'href="#([^"]+)"', page) == [
        ids[0], ids[2], ids[4], ids[5], ids[3], ids[1], ids[6]]
    lines = _lines(page)
    assert list(lines) == ["reproduced", "trend", "trend (not decided)", "differs"]
    assert lines["reproduced"].startswith('1: <a href="#sc-mahdavi-theorem-1">Theorem 1</a> | ')
    # the paper's claims apart from our expectation and our check, each named with its kind
    left, right = lines["trend"].split(" | ")
    assert left.startswith("1: ") and "Fig. 1" in left
    assert right.startswith("2: ") and "Fig. 5</a> <em>(our expectation)</em>" in right
    assert "Definition 1</a> <em>(a check of our code)</em>" in right
    assert "Sec. 4.4: rank</a> <em>(ours)</em>" in lines["differs"].split(" | ")[1]
    # the heading names only the kinds that occur
    assert ("<th>Our expectations, checks of our code and rows of ours</th>" in page
            and "earlier versions" not in page)


def test_a_chapter_of_rows_of_ours_only_has_one_column():
    page = render.chapter_glance_html([_row("Head to head", "trend", ours=True)]).data
    assert "<th>The chapter&#x27;s claims (ours)</th>" in page and "paper's claims" not in page
    assert "by construction" not in page  # no such row: no such column


def test_a_chapter_of_rows_of_ours_sets_its_checks_of_our_code_apart():
    """Review: the cross-paper chapter reproduces no paper, yet its glance was titled "What
    reproduced in this chapter", and two of its three decided trends read as its findings
    though one is a check of our code. A chapter whose rows are all ours is titled as the
    status of its own rows, and its rows that hold by construction stand in a column of their
    own, as the scorecard counts the papers' checks of our code apart."""
    ours = [_row("Head to head", "trend", ours=True, decided=False),
            _row("Thm 1 vs training", "trend", ours=True),
            _row("Information ceiling", "trend", ours=True,
                 measured=f"holds at every point [{render.BY_CONSTRUCTION}; the bound]")]
    assert render.chapter_glance_title(ours) == "Status of this chapter's rows (ours)"
    assert render.chapter_glance_title(ROWS) == "What reproduced in this chapter"
    assert render.chapter_glance_title(ROWS[-1:]) == render.CHAPTER_GLANCE_TITLES["ours"]
    page = render.chapter_glance_html(ours).data
    assert ("<th>The chapter&#x27;s claims (ours)</th>"
            "<th>Checks of our code (hold by construction)</th>") in page
    claims, checks = _lines(page)["trend"].split(" | ")
    assert claims.startswith("1: ") and "Thm 1 vs training" in claims
    assert checks.startswith("1: ") and "Information ceiling" in checks
    assert "Information ceiling" not in claims and "<em>(ours" not in page  # no kind named
    assert _lines(page)["trend (not decided)"].startswith("1: ")
    # in a paper's chapter, a row of ours that holds by construction is named so
    mixed = render.chapter_glance_html(ROWS + [_row("Rank", "trend", ours=True, measured=(
        f"x [{render.BY_CONSTRUCTION}; y]"))]).data
    assert "Rank</a> <em>(ours, a check of our code)</em>" in mixed
    assert "checks of ours that hold by construction</th>" in mixed


def test_every_chapter_shows_its_glance_at_the_top_from_its_closing_rows():
    """The glance is computed where the chapter's closing scorecard is (its rows read the runs
    the chapter computed) and glued; the chapter's first section shows it."""
    for paper, page in render.CHAPTER_PAGES.items():
        nb = nbformat.read(REPO / "notebooks" / f"{page}.ipynb", as_version=4)
        sources = ["".join(c.source) for c in nb.cells]
        shown = [i for i, s in enumerate(sources) if "{glue:} chapter_glance" in s]
        glued = [i for i, s in enumerate(sources)
                 if 'glue("chapter_glance", chapter_glance_html(' in s]
        closing = [i for i, s in enumerate(sources) if f'chapter_scorecard("{paper}"' in s]
        assert len(shown) == len(glued) == 1, paper
        assert glued == closing, paper  # the same rows as the closing table
        assert shown[0] < min(i for i, s in enumerate(sources) if s.startswith("## ")) + 3, paper


def test_each_chapter_titles_its_glance_as_render_does():
    """The bold title above each chapter's glued glance is the one chapter_glance_title gives its
    rows: the cross-paper chapter's rows are all ours, the paper chapters' are not."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "notebooks"
    for name, kind in (("compare", "ours"), ("dana", "paper"), ("mahdavi", "paper"),
                       ("kajitsuka_sato", "paper")):
        cells = json.loads((root / f"{name}.ipynb").read_text())["cells"]
        opening = next("".join(c["source"]) for c in cells
                       if c["cell_type"] == "markdown" and "{glue:} chapter_glance" in
                       "".join(c["source"]))
        assert opening.startswith(f"**{render.CHAPTER_GLANCE_TITLES[kind]}.**"), name
