"""book/buildtools/glance.py: the introduction repeats the scorecard page's glance table, copied
from the executed scorecard chapter, with its links pointing at that page."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO / "book") not in sys.path:  # book/buildtools is imported as book/build.py does
    sys.path.insert(0, str(REPO / "book"))

from buildtools import glance  # noqa: E402

from memnb.scorecard import core  # noqa: E402
from memnb.scorecard.render import glance_html  # noqa: E402


def _executed(path: Path, outputs: list[dict], cell_id: str = glance.GLANCE_CELL) -> Path:
    cells = [{"cell_type": "code", "id": "other", "metadata": {}, "source": "x",
              "outputs": [{"output_type": "execute_result", "data": {"text/html": "<p>no</p>"}}]},
             {"cell_type": "code", "id": cell_id, "metadata": {}, "source": "glance_html(rows)",
              "outputs": outputs}]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}))
    return path


def test_the_intro_copies_the_glance_table_with_links_to_the_scorecard_page(tmp_path):
    rows = [core.Row("dana", "Fig. 1b", "c", "k", "m", "e", "differs"),
            core.Row("dana", "Fig. 2", "c", "k", "m", "e", "trend", True)]
    html = glance_html(rows).data
    # as nbformat stores it: a list of lines
    lines = [line + "\n" for line in html.split("\n")]
    path = _executed(tmp_path / "scorecard.ipynb",
                     [{"output_type": "execute_result", "data": {"text/html": lines}}])
    table = glance.glance_table(path)
    assert table.startswith("<div") and table.endswith("</p>")
    assert f'href="{glance.SCORECARD_PAGE}#sc-dana-fig-1b"' in table
    assert 'href="#' not in table
    # the sentence under the table (what it leaves out) comes too, worded to read right on
    # both pages (the scorecard's section, not "on the scorecard page" on that page itself);
    # its link to *All the rows* points at the scorecard page
    assert ("Left out of the table, and counted in the scorecard's section <a href=\""
            'chapters/scorecard.html#all-the-rows"><em>All the rows</em></a>:') in table
    assert "on the scorecard page" not in table
    page = glance.glance_markdown(path)
    assert page.startswith("```{raw} html\n<div") and page.endswith("</p>\n```\n")


def test_without_an_executed_glance_the_intro_says_so(tmp_path):
    assert glance.glance_markdown(tmp_path / "absent.ipynb") == glance.MISSING + "\n"
    older = _executed(tmp_path / "older.ipynb", [], cell_id="something-else")
    assert glance.glance_table(older) is None
    failed = _executed(tmp_path / "failed.ipynb", [{"output_type": "error", "ename": "E"}])
    assert glance.glance_markdown(failed) == glance.MISSING + "\n"


def test_the_intro_includes_the_generated_glance_and_the_build_writes_it():
    intro = (REPO / "book" / "intro.md").read_text()
    assert "```{include} generated/glance.md\n```" in intro
    build = (REPO / "book" / "build.py").read_text()
    assert 'GLANCE_SECTION = BOOK / "generated" / "glance.md"' in build
    assert "if write_glance_section():" in build
    # the scorecard chapter's glance cell carries the id the build reads
    notebook = json.loads((REPO / "notebooks" / "scorecard.ipynb").read_text())
    glance_cells = [c for c in notebook["cells"] if c.get("id") == glance.GLANCE_CELL]
    assert len(glance_cells) == 1 and "glance_html(rows)" in "".join(glance_cells[0]["source"])
