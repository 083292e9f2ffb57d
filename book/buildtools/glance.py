"""The introduction's "at a glance" table (``book/generated/glance.md``).

The table is the one the executed scorecard chapter shows first
(:func:`memnb.scorecard.render.glance_html`, the output of its cell ``glance``): it is copied
from ``book/chapters/scorecard.ipynb`` rather than computed again, so the introduction and the
scorecard page of one build cannot disagree, and building the scorecard's rows a second time
(minutes) is avoided. Its links to rows of the scorecard page are made relative to the
introduction, which sits one folder above the chapters.
"""

from __future__ import annotations

import json
from pathlib import Path

#: The id of the scorecard chapter's cell whose output is the glance table.
GLANCE_CELL = "glance"
#: Where the glance's rows link to, seen from the introduction (``intro.html`` is beside
#: ``chapters/``).
SCORECARD_PAGE = "chapters/scorecard.html"
#: What the introduction shows when the build has no executed scorecard with a glance.
MISSING = ("*The scorecard chapter was not executed in this build, so its table is not shown "
           "here; see the reproduction scorecard page.*")


def glance_table(executed_scorecard: Path) -> str | None:
    """The HTML of the glance (the table and the sentence under it, which names the rows it
    leaves out) from the executed scorecard notebook, with its links pointing at
    :data:`SCORECARD_PAGE`; None when the notebook is absent or has no such output (an older
    executed copy, an error)."""
    if not executed_scorecard.is_file():
        return None
    notebook = json.loads(executed_scorecard.read_text())
    for cell in notebook.get("cells", []):
        if cell.get("id") != GLANCE_CELL:
            continue
        for output in cell.get("outputs", []):
            html = output.get("data", {}).get("text/html")
            if html is None:
                continue
            html = "".join(html) if isinstance(html, list) else str(html)
            if "</table>" not in html:
                return None
            return html.strip().replace('href="#', f'href="{SCORECARD_PAGE}#')
    return None


def glance_markdown(executed_scorecard: Path) -> str:
    """``book/generated/glance.md``: the glance table as a raw HTML block, or :data:`MISSING`."""
    table = glance_table(executed_scorecard)
    if table is None:
        return MISSING + "\n"
    return "```{raw} html\n" + table + "\n```\n"


__all__ = ["GLANCE_CELL", "MISSING", "SCORECARD_PAGE", "glance_markdown", "glance_table"]
