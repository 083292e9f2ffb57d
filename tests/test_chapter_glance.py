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


def test_a_row_judged_on_a_narrower_scope_says_so_in_both_glances():
    """Review (Dana et al.): Theorem 1 and Corollary 1 were shown as reproduced in the glances
    although their checks cover generic sets only (on sets with fewer distinct last tokens than
    d the Lemma 2 row differs); the scope stood in the rows' measured text alone. A row's scope
    now follows its item in the chapter's glance and in the book's, on the line under the
    paper's counts."""
    scoped = core.Row("dana", "Theorem 1", "c", "k", "m", "e", "reproduced",
                      scope="generic sets only")
    rows = [scoped, core.Row("dana", "Lemma 2", "c", "k", "m", "e", "differs")]
    chapter = render.chapter_glance_html(rows).data
    assert "Theorem 1</a> <em>(generic sets only)</em>" in chapter
    assert "Lemma 2</a> <em>" not in chapter
    book = render.glance_html(rows).data
    assert (f"<em>{render.SCOPE_LINE}:</em> " in book
            and "Theorem 1</a> (generic sets only)" in book)
    # without a scoped row the line names none
    assert render.SCOPE_LINE not in render.glance_html(rows[1:]).data


def test_an_items_scope_bounds_only_a_judged_row():
    """A scope bounds what a judgement covers: an item whose check is not run (or cannot be
    computed) carries none, and Dana et al.'s Theorem 1 and Corollary 1 carry theirs."""
    from memnb.scorecard.core import NotRun

    def missing(results):
        raise NotRun("dana.exp1", "full")

    item = core.Item("dana", "X", "c", "k", missing, scope="generic sets only")
    assert item._row("not run", "m", "e").scope == ""
    assert item._row("reproduced", "m", "e").scope == "generic sets only"
    assert item._row("differs", "m", "e").scope == ""
    from memnb.scorecard import dana_theory
    scopes = {it.item: it.scope for it in core.load_items(["dana"])}
    assert scopes["Theorem 1"] == scopes["Corollary 1"] == dana_theory.GENERIC_SCOPE_SHORT
    assert sum(bool(s) for s in scopes.values()) == 2


def test_the_book_glance_names_the_left_out_rows_of_a_paper_that_differ():
    """Review (session 75): Kajitsuka & Sato's line read "where it differs: none" though four of
    its experiment rows differ, left out of the count as our expectations; they now follow, in
    parentheses, on the paper's own line (rows of ours stay in the paragraph below)."""
    rows = [core.Row("kajitsuka", "Theorem 4.1", "c", "k", "m", "e", "reproduced"),
            core.Row("kajitsuka", "Fig. 1", f"rises ({render.EXPECTATION_MARK})", "k", "m",
                     "e", "differs"),
            core.Row("kajitsuka", "Sec. 9", "c", "k", "m", "e", "differs", ours=True)]
    page = render.glance_html(rows).data
    line = page[page.index(render.DIFFERS_LINE):]
    line = line[:line.index("</td>")]
    assert line.startswith(f"{render.DIFFERS_LINE}:</em> none ("
                           f"{render.LEFT_OUT_DIFFERS_WORDS}: <a ")
    assert "Fig. 1</a>)" in line and "Sec. 9" not in line
    assert render.LEFT_OUT_DIFFERS_WORDS not in render.glance_html(rows[:1]).data
