"""Statements of the book's introduction (book/intro.md) checked against the notebooks, the code
and the committed results, so that its prose fails a test when what it states stops being true.
The introduction is static Markdown: it names no number a test could not check here."""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INTRO = (REPO / "book" / "intro.md").read_text(encoding="utf-8")
NOTEBOOKS = REPO / "notebooks"
if str(REPO / "book") not in sys.path:  # book/buildtools is imported as book/build.py does
    sys.path.insert(0, str(REPO / "book"))

from buildtools import reading  # noqa: E402

#: A tag such as *[reconstruction]* or *[summary + reconstruction: the formula is rebuilt]*.
TAG = re.compile(r"\*\[([a-z][a-z +]*)(?::[^\]]*)?\]\*")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _cells(chapter: str) -> list[dict]:
    return json.loads((NOTEBOOKS / f"{chapter}.ipynb").read_text(encoding="utf-8"))["cells"]


def _markdown(chapter: str) -> str:
    return "\n".join("".join(c["source"]) for c in _cells(chapter)
                     if c["cell_type"] == "markdown")


def _conventions() -> str:
    return INTRO.split("## Conventions", 1)[1].split("\n## ", 1)[0]


def _bullet(title: str) -> str:
    """The Conventions bullet that opens with ``**title**``, on one line."""
    return _flat(_conventions().split(f"- **{title}**", 1)[1].split("\n- ", 1)[0])


def test_every_tag_the_book_uses_is_defined_in_the_conventions():
    """The intro sends the reader to *Conventions* for its tags; each tag used in the intro or
    in a chapter's text (the part before a colon) is defined there."""
    used = set(TAG.findall(INTRO))
    for path in NOTEBOOKS.glob("*.ipynb"):
        used |= set(TAG.findall(_markdown(path.stem)))
    assert {"reconstruction", "unverified", "summary", "summary + reconstruction"} <= used
    conventions = _flat(_conventions())
    for tag in used:
        assert re.search(rf"\*\*?\[{re.escape(tag)}\]\*\*? marks", conventions), tag


def _slider_symbols() -> set[str]:
    """The symbol each ``viz.slider(...)`` of the notebooks moves, from its label (the third
    argument): the last word before a parenthesis or a comma, e.g. ``heads H (d = ...)``."""
    symbols = set()
    for path in NOTEBOOKS.glob("*.ipynb"):
        for cell in _cells(path.stem):
            source = "".join(cell["source"])
            if cell["cell_type"] != "code" or "viz.slider(" not in source:
                continue
            for node in ast.walk(ast.parse(source)):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "slider"
                        and getattr(node.func.value, "id", None) == "viz"):
                    label = node.args[2]
                    if isinstance(label, ast.JoinedStr):
                        label = label.values[0]
                    words = re.split(r"[(,]", label.value, maxsplit=1)[0].split()
                    symbols.add(words[-1])
    return symbols


def test_the_sliders_the_intro_names_are_the_notebooks_sliders():
    """Review: the intro said a slider moves a width, which none does. The parameters it lists
    are those the notebooks' sliders move."""
    sentence = _flat(INTRO).split("Sliders move one parameter (", 1)[1].split(")", 1)[0]
    named = set(re.findall(r"\$([^$]+)\$", sentence))
    assert named == _slider_symbols()
    assert "width" not in sentence


def _section_of(chapter: str, needle: str) -> str:
    """The ``## `` heading above the first code cell of ``chapter`` containing ``needle``."""
    heading = ""
    for cell in _cells(chapter):
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            heading = next((line[3:] for line in source.splitlines()[::-1]
                            if line.startswith("## ")), heading)
        elif needle in source:
            return heading
    raise AssertionError(f"{chapter}: no cell with {needle}")


def test_the_replications_are_compared_where_the_intro_says():
    """Dana et al.'s chapter compares its replications in its section on where we differ; the
    other two paper chapters in their closing scorecard section."""
    dana = re.sub(r"^\d+\. ", "", _section_of("dana", "chapter_replications("))
    assert f"Dana et al.'s chapter in its section *{dana}*" in _flat(INTRO)
    for chapter in ("mahdavi", "kajitsuka_sato"):
        headings = [line for line in _markdown(chapter).splitlines() if line.startswith("## ")]
        section = _section_of(chapter, "chapter_replications(")
        assert headings[-1] == f"## {section}" and "Scorecard" in section, chapter
    assert "the other two in their closing scorecard section" in _flat(INTRO)


def test_the_dana_bullet_says_what_the_chapter_says():
    """The gap of the proof is measured for our construction and argued for the paper's; the
    distribution statement holds under full-support conditionals."""
    chapter = _flat(_markdown("dana"))
    assert "measured for our construction, argued from the proof's text for theirs" in chapter
    assert "with full-support conditionals (their Assumption 2)" in chapter
    intro = _flat(INTRO)
    assert ("Our finding: our construction, measured, and the paper's proof, argued from its "
            "text, reach this count only when") in intro
    # the count with fewer distinct last tokens, in the chapter's form (k < d: H d_h + k)
    assert "with $k < d$ distinct last tokens they reach at most $Hd_h + k$" in intro
    assert "H d_h + k" in chapter
    assert "with full-support conditionals (their Assumption 2)" in intro


def test_the_full_profile_takes_from_under_a_minute_to_weeks_on_a_cpu():
    """The committed complete `full` runs on a CPU include one under a minute; the CPU plan's
    longest incomplete experiment takes more than a week."""
    walls = []
    for path in (REPO / "data" / "results" / "full").glob("*.json"):
        provenance = json.loads(path.read_text())
        if provenance.get("complete", True) and provenance.get("device", "cpu") == "cpu":
            walls.append(provenance["total_wall_time_s"])
    plan = json.loads((REPO / "data" / "plans" / "full.cpu.json").read_text())
    longest = max(row["wall_s"] or 0 for row in plan["rows"])
    assert min(walls) < 60
    assert longest > 7 * 86400
    assert "from under a minute to weeks on a CPU" in _bullet("Profiles.")


def test_the_intro_names_the_line_that_shows_a_chapters_profile():
    """The parameters cell is replaced on the page by the line of
    :func:`buildtools.reading.parameters_line`, which the intro quotes."""
    line = reading.parameters_line({"profile": "quick", "device": "cpu"})
    assert line.startswith("*Executed with* `profile = 'quick'`")
    assert "A line near the top of each chapter, *Executed with* `profile = …`" \
        in _bullet("Profiles.")


def test_computed_by_earlier_code_is_a_recorded_fingerprint_other_than_todays():
    """The Conventions' definition is the code's: a result is of today's code when its recorded
    fingerprint is today's, so a re-keyed run (its fingerprint rewritten to today's) is."""
    from memnb.results import computed_by_todays_code, earlier_code_note, todays_code

    today = todays_code("dana.exp6")
    rekeyed = {"code_fingerprint": today, "code_fingerprint_rekeyed_from": "0123456789abcdef"}
    assert computed_by_todays_code("dana.exp6", rekeyed)
    assert earlier_code_note("dana.exp6", rekeyed) == ""
    assert not computed_by_todays_code("dana.exp6", {"code_fingerprint": "0123456789abcdef"})
    bullet = _bullet("Computed by earlier code.")
    assert ("A run said to be *computed by earlier code* records a fingerprint other than "
            "today's code's, one that no re-key carried over") in bullet
    # review: the reference page calls such a run "earlier code, not re-keyed" and says a
    # re-keyed run's points were computed by earlier code: the intro names both terms as it does
    import sys

    if str(REPO / "book") not in sys.path:
        sys.path.insert(0, str(REPO / "book"))
    from buildtools import reproducibility

    assert f"*{reproducibility.NOT_REKEYED}*" in bullet
    assert f"*{reproducibility.REKEYED}* run were computed by earlier code" in bullet
    assert "any change counts" not in bullet


@pytest.mark.parametrize("term", ["A *re-key*", "*code fingerprint*"])
def test_the_glossary_the_intro_points_to_defines_its_terms(term):
    """The page the Conventions point to for *re-key* defines it under *Words used*."""
    source = (REPO / "book" / "buildtools" / "reproducibility.py").read_text()
    words = source[source.index("Words used below."):]
    assert term in words, term
    assert "(see *Words used* there)" in _bullet("Computed by earlier code.")


def test_the_which_model_sentence_names_rows_that_exist():
    """Review (session 75): the introduction said that the paper's figures of Experiments 1, 2,
    3 and 5 are each set beside both models "where Dana et al.'s rows differ", though rows that
    differ (the App. B figures, Lemma 2) have no run of the official code's model. It now points
    at the rows named *which model*, which must exist in the Dana chapter's scorecard items."""
    from memnb.scorecard.core import load_items

    assert "its rows\nnamed *which model* judge them" in INTRO or \
        "its rows named *which model* judge them" in _flat(INTRO)
    assert "Experiments 1, 2, 3 and 5" not in _flat(INTRO)
    which = [it.item for it in load_items(["dana"]) if it.item.endswith("which model")]
    assert len(which) >= 3, which
