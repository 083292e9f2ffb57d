"""The scorecard as the book shows it: a table per paper, a summary of the statuses."""

from __future__ import annotations

import html
import re
from types import SimpleNamespace
from typing import TYPE_CHECKING

from memnb.prose import and_words
from memnb.scorecard.core import PAPERS, Row, build_scorecard, status_counts, status_words
from memnb.scorecard.criteria import STATUSES, Verdict

if TYPE_CHECKING:
    from IPython.display import HTML

#: Colour of each status badge (colour-blind safe, with the word always written).
STATUS_COLOURS: dict[str, str] = {
    "reproduced": "#1b7837", "trend": "#5aae61", "differs": "#c51b7d",
    "not run": "#777777", "not computable": "#444444",
}

#: The book page of each paper's chapter, in ``chapters/`` beside the scorecard page: the
#: notebook ``notebooks/<page>.ipynb`` whose closing table is
#: :func:`chapter_scorecard` of the paper (Kajitsuka & Sato's chapter is ``kajitsuka_sato``).
CHAPTER_PAGES: dict[str, str] = {"dana": "dana", "mahdavi": "mahdavi",
                                 "kajitsuka": "kajitsuka_sato", "compare": "compare"}

#: The id Sphinx gives the scorecard page's section *All the rows* (its heading in
#: ``notebooks/scorecard.ipynb``, made an id as docutils makes one), where every row is counted.
ALL_ROWS_ID = "all-the-rows"


def source_profile(profile: str) -> str:
    """The profile a chapter's scorecard reads: its own for ``ci``; else full runs where they
    exist, falling back to ``quick``."""
    return "ci" if profile == "ci" else "full"


def _badge(status: str, decided: bool = True) -> str:
    """A status badge; a trend not decided (:attr:`memnb.scorecard.core.Row.decided`) is drawn
    in a dashed outline with grey text, "trend (not decided)", so it does not read as a trend on
    a shape that holds, nor as the green of a reproduced row."""
    colour = STATUS_COLOURS.get(status, "#777777")
    if not decided:
        # dashed, with grey text: nothing about it reads as the filled green of a decision;
        # worded as everywhere else (status_words)
        words = status_words(SimpleNamespace(status=status, decided=False))
        return (f'<span style="display:inline-block;border:1.5px dashed {colour};color:#444444;'
                f'padding:0 .4em;'
                f'border-radius:.3em">{html.escape(words)}</span>')
    # an inline block wraps inside the Status column ("not computable" on two lines) rather
    # than running over the claim beside it
    return (f'<span style="display:inline-block;background:{colour};color:white;padding:0 .4em;'
            f'border-radius:.3em">{html.escape(status)}</span>')


_INLINE_CODE = re.compile(r"`([^`]+)`")


def _cell_text(text: str) -> str:
    """A cell's text as HTML: escaped, with Markdown's inline code (`` `full` ``) set as
    ``<code>`` rather than shown with its backticks."""
    return _INLINE_CODE.sub(r"<code>\1</code>", html.escape(text))


#: The scorecard's columns: (header, width, the row's fields shown in it). The criterion is
#: set under the claim it judges and the evidence under what was measured, so that four columns
#: fill the page's text column instead of six narrow ones that would run past it.
_COLUMNS = (("Item", "12%", ()), ("Status", "13%", ()),
            ("Claim, and the criterion that judges it", "32%", ("claim", "criterion")),
            ("Measured, and the evidence it was read from", "43%", ("measured", "evidence")))
_SECOND = {"criterion": "Criterion", "evidence": "Evidence"}


def _stacked(row: Row, fields: tuple[str, ...]) -> str:
    """A cell of two of ``row``'s fields: the first as it is, the second under it, smaller and
    named (``Criterion:``, ``Evidence:``)."""
    first, second = fields
    return (f"{_cell_text(getattr(row, first))}"
            f'<div style="margin-top:.5em;font-size:92%;opacity:.8"><strong>'
            f"{_SECOND[second]}:</strong> {_cell_text(getattr(row, second))}</div>")


def row_ids(rows: list[Row]) -> list[str]:
    """An HTML id for each of ``rows``, for links to a row from elsewhere on its page:
    ``sc-<paper>-<item>`` in lower case, each run of other characters than letters and digits
    one hyphen ("Fig. 1b" of Dana et al. → ``sc-dana-fig-1b``); a second row on the same item
    (and paper) gets ``-2``, a third ``-3``."""
    seen: dict[str, int] = {}
    ids = []
    for r in rows:
        base = "sc-" + re.sub(r"[^a-z0-9]+", "-", f"{r.paper} {r.item}".lower()).strip("-")
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return ids


def paper_id(paper: str) -> str:
    """The HTML id of ``paper``'s heading on the scorecard page (:func:`book_scorecard`), for a
    link to that paper's table: ``sc-<paper>`` ("sc-dana"). No row id (:func:`row_ids`) equals
    it: a row's adds its item."""
    return f"sc-{paper}"


def chapter_row_link(paper: str, row_id: str) -> str:
    """The link, from the scorecard page, to the row ``row_id`` (:func:`row_ids`) of the table
    that closes ``paper``'s chapter (:func:`chapter_scorecard`), on the chapter's page
    (:data:`CHAPTER_PAGES`) beside the scorecard page: ``kajitsuka_sato.html#sc-kajitsuka-…``.
    ``ValueError`` for a paper without a chapter."""
    if paper not in CHAPTER_PAGES:
        raise ValueError(f"paper must be one of {', '.join(CHAPTER_PAGES)}; got {paper!r}")
    return f"{CHAPTER_PAGES[paper]}.html#{row_id}"


def rows_html(rows: list[Row], *, show_paper: bool = False,
              link_chapters: bool = False) -> str:
    """An HTML table of ``rows``: item and status first (the columns a reader scans), then the
    claim with the criterion under it and what was measured with the evidence under it
    (:data:`_COLUMNS`). Below its minimum width the table scrolls sideways inside the page's
    text column instead of being cut off. With ``link_chapters`` (the scorecard page, whose
    ``rows`` are one paper's, as a chapter's are), each item links to the same row in its
    chapter's closing table (:func:`chapter_row_link`: the same :func:`row_ids` there); a
    chapter's own table does not link to itself."""
    columns = ((("Paper", "8%", ()),) if show_paper else ()) + _COLUMNS
    out = ['<div style="overflow-x:auto">',
           '<table class="scorecard" style="font-size:80%;min-width:36em;width:100%;'
           'table-layout:fixed">', "<colgroup>"]
    out += [f'<col style="width:{width}">' for _, width, _ in columns]
    out.append("</colgroup><thead><tr>")
    out += [f"<th>{header}</th>" for header, _, _ in columns]
    out.append("</tr></thead><tbody>")
    for r, row_id in zip(rows, row_ids(rows), strict=True):
        cells = [html.escape(PAPERS.get(r.paper, r.paper))] if show_paper else []
        item = html.escape(r.item)
        if link_chapters and r.paper in CHAPTER_PAGES:
            item = f'<a href="{chapter_row_link(r.paper, row_id)}">{item}</a>'
        item += " <em>(ours)</em>" if r.ours else ""
        cells += [item, _badge(r.status, r.decided)]
        cells += [_stacked(r, fields) for _, _, fields in _COLUMNS if fields]
        out.append(f'<tr id="{row_id}">' + "".join(
            f'<td style="vertical-align:top;overflow-wrap:anywhere">{c}</td>' for c in cells)
                   + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def status_tally(rows: list[Row]) -> str:
    """The rows per status, e.g. "3 reproduced, 9 trend (2 of them not decided), 1 differs"."""
    open_ = sum(not r.decided for r in rows)
    return ", ".join(f"{n} {s}" + (f" ({open_} of them not decided)" if s == "trend" and open_
                                   else "")
                     for s, n in status_counts(rows).items() if n)


def earlier_versions(paper: str) -> tuple[tuple[str, ...], str]:
    """``(items, description)`` of ``paper``'s rows on earlier versions of the paper (talk
    slides, a preprint), which are not the published paper's items: a paper module declares them
    as ``EARLIER_VERSION_ITEMS`` and ``EARLIER_VERSIONS`` (``((), "")`` when it declares none).
    ``ValueError`` for a paper not in :data:`PAPERS`."""
    import importlib

    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}; got {paper!r}")
    module = importlib.import_module(f"memnb.scorecard.{paper}")
    return (tuple(getattr(module, "EARLIER_VERSION_ITEMS", ())),
            str(getattr(module, "EARLIER_VERSIONS", "")))


#: The words that mark a claim as our expectation of what a paper's figure shows, not the
#: paper's words (the figure states no trend we could read).
EXPECTATION_MARK = "our expectation"

#: Marks of a claim whose content is not in our sources (only an item's title is, or a mention
#: of it, or it is recalled from elsewhere): its row checks our reading, counted apart like our
#: expectations.
UNSOURCED_MARKS: tuple[str, ...] = ("content unverified", "unverified reading of the title",
                                    "[unverified: recalled")

#: The cap reason of a row whose criterion cannot fail given our code: true by algebra, or by
#: how our code builds what the check reads (a model's logits W_U times a d-vector have rank at
#: most d). Such a row is at most ``trend``
#: (:func:`memnb.scorecard.criteria.at_reduced_scale` appends it to the measured text, followed
#: by the row's own reason), and :func:`summary_sentence` counts it apart.
BY_CONSTRUCTION = "holds by construction: a check of our code, not of the paper"


def by_construction(verdict: Verdict, why: str) -> Verdict:
    """``verdict`` capped at ``trend`` as a check that holds by construction
    (:data:`BY_CONSTRUCTION`), ``why`` saying what makes it so; a failure stays ``differs``
    (it would be a fault of our code)."""
    from memnb.scorecard.criteria import at_reduced_scale

    return at_reduced_scale(verdict, f"{BY_CONSTRUCTION}; {why}")


#: The profile a :attr:`Row.read_from` label names: "`full` run of dana.exp2" → ``full``.
_RUN_PROFILE = re.compile(r"`(\w+)` (?:re)?run of ")


#: Which runs the rows read on a page whose scorecard reads the committed full runs
#: (:func:`runs_read_sentence`): :class:`memnb.scorecard.core.ResultSource` falls back to the
#: quick run where the full run is of an earlier profile or one its row cannot judge (review,
#: session 75: Kajitsuka & Sato's Fig. 7 reads its quick run beside a partial full run).
FULL_ELSE_QUICK = ("the committed `full` runs where they exist and can be judged (not of an "
                   "earlier profile, nor too partial for the row), else the `quick` runs")


def runs_read_sentence(rows: list[Row], profile: str) -> str:
    """Which profile's runs ``rows`` (built on :func:`source_profile` of ``profile``) read, for a
    page executed with ``profile``, counted from each row's :attr:`Row.read_from`: e.g. "This
    page was executed with profile `quick`; its rows read the committed `full` runs where they
    exist, else the `quick` runs: of the 60 rows that read a result table, 41 read `full` runs
    only, 18 `quick` runs only and 1 both; the other 47 read none." ("all 18 read `full` runs",
    "both read", when every such row reads one profile.)"""
    source = source_profile(profile)
    lead = (f"This page was executed with profile `{profile}`; its rows read "
            + (FULL_ELSE_QUICK if source == "full" else f"the `{source}` runs"))
    tally: dict[tuple[str, ...], int] = {}
    for r in rows:
        key = tuple(sorted({m.group(1) for label in r.read_from
                            if (m := _RUN_PROFILE.match(label))}))
        if key:
            tally[key] = tally.get(key, 0) + 1
    tabled = sum(tally.values())
    if not tabled:
        return f"{lead}: none of them reads a result table."
    only = " only" if len(tally) > 1 else ""
    parts = []
    for key in sorted(tally, key=lambda k: (len(k), -tally[k])):
        what = (f"`{key[0]}` runs{only}" if len(key) == 1 else
                "both" if len(key) == 2 else "several profiles' runs")
        parts.append(f"{tally[key]} {what}")
    verb = "reads" if tabled == 1 else "read"
    parts[0] = parts[0].replace(" ", f" {verb} ", 1)
    if len(tally) == 1 and tabled > 1:  # every row that reads a table reads one profile
        parts[0] = (parts[0].replace("2", "both", 1) if tabled == 2 else f"all {parts[0]}")
    listed = and_words(parts)
    rest = len(rows) - tabled
    tail = ("" if not rest else "; the other reads none" if rest == 1 else
            f"; the other {rest} read none")
    which = "row that reads" if tabled == 1 else "rows that read"
    return f"{lead}: of the {tabled} {which} a result table, {listed}{tail}."


def claim_kinds(rows: list[Row]) -> tuple[list[Row], list[Row], list[Row], list[Row]]:
    """``rows`` in four disjoint lists, in this order of precedence: those whose claim carries
    :data:`EXPECTATION_MARK` (our expectation, not the paper's words), those whose claim carries
    one of :data:`UNSOURCED_MARKS` (content not in our sources), those whose measured text
    carries :data:`BY_CONSTRUCTION` (checks of our code), and the rest: the rows on claims our
    sources state, judged by a check that could fail."""
    marked: list[Row] = []
    unsourced: list[Row] = []
    built: list[Row] = []
    stated: list[Row] = []
    for r in rows:  # the first kind that applies
        (marked if EXPECTATION_MARK in r.claim
         else unsourced if any(m in r.claim for m in UNSOURCED_MARKS)
         else built if BY_CONSTRUCTION in r.measured else stated).append(r)
    return marked, unsourced, built, stated


def _expectation_sentence(rows: list[Row], which: str) -> str:
    """" Of the 28 rows on the papers' items, 3 are on claims marked as our expectation, not
    the paper's words: 2 differs, 1 trend; 2 others on claims whose content our sources do not
    give, recalled, or read from a title or a mention, [unverified]: 2 trend; and 5 others on
    checks that hold by construction (checks of our code, not of the paper): 5 trend." for the
    rows of ``rows`` (``which`` names them) whose claim carries :data:`EXPECTATION_MARK`, those
    whose claim carries one of :data:`UNSOURCED_MARKS`, and those whose measured text carries
    :data:`BY_CONSTRUCTION` (three disjoint sets, in that order of precedence); '' when none
    does, so that a status on our reading, or on a check that cannot fail, is not read as one on
    a stated claim. A sentence of its own after the counts, not a parenthesis inside them."""
    marked, unsourced, built, _ = claim_kinds(rows)
    parts = []
    if marked:
        parts.append(f"{len(marked)} {'is' if len(marked) == 1 else 'are'} on claims marked as "
                     f"our expectation, not the paper's words: {status_tally(marked)}")
    for group, what in ((unsourced, "claims whose content our sources do not give, recalled, "
                                    "or read from a title or a mention, [unverified]"),
                        (built, "checks that hold by construction (checks of our code, not "
                                "of the paper)")):
        if group:
            others = ((" other" if len(group) == 1 else " others") if parts else
                      (" is" if len(group) == 1 else " are"))
            parts.append(f"{len(group)}{others} on {what}: {status_tally(group)}")
    if len(parts) > 1:
        parts[-1] = f"and {parts[-1]}"
    return f" Of {which}, {'; '.join(parts)}." if parts else ""


def summary_sentence(rows: list[Row]) -> str:
    """The rows counted per status in up to three groups, so that a status of ours or of an
    earlier version is not read as one of a published paper's claims: the rows on the papers'
    items, the rows on earlier versions of a paper (:func:`earlier_versions`), and our own rows
    (checks beyond the papers, marked *ours*). E.g. "28 rows on the paper's items: 12
    reproduced, ...; 2 rows on earlier versions of the paper (the June 2024 slides, ...): 1
    reproduced, 1 trend; and 2 rows of ours (beyond the paper): 1 reproduced, 1 trend." With
    one group only: "12 rows: ..." (or "2 rows of ours: ..."). Then, in a sentence of its own,
    the rows of the papers' items on claims marked as our expectation or not in our sources,
    and those on checks that hold by construction (:func:`_expectation_sentence`). Rows, not
    items: an item may take several rows, and several items may share one."""
    from memnb.prose import counted

    papers = sorted({r.paper for r in rows}, key=lambda p: list(PAPERS).index(p)
                    if p in PAPERS else len(PAPERS))
    earlier_items = {p: earlier_versions(p) for p in papers}
    published, earlier, ours = _published_and_left_out(rows)
    several = len(papers) > 1
    paper_word = "papers" if several else "paper"
    described = [earlier_items[p][1] for p in papers if earlier_items[p][1]
                 and any(r.paper == p for r in earlier)]
    groups = [(published, f"on the {paper_word}'{'' if several else 's'} items"),
              (earlier, f"on earlier versions of the {paper_word}"
                        + (f" ({'; '.join(described)})" if described else "")),
              (ours, f"of ours (beyond the {paper_word})")]
    present = [(g, what) for g, what in groups if g]
    if not present:
        return "No rows."
    if len(present) == 1 and present[0][0] is published:
        return (f"{counted(len(rows), 'row')}: {status_tally(rows)}."
                + _expectation_sentence(rows, "this row" if len(rows) == 1 else
                                        f"these {len(rows)} rows"))
    if len(present) == 1 and present[0][0] is ours:
        return f"{counted(len(rows), 'row')} of ours: {status_tally(rows)}."
    parts = [f"{counted(len(g), 'row')} {what}: {status_tally(g) or 'none'}"
             for g, what in present]
    if len(parts) > 1:
        parts[-1] = f"and {parts[-1]}"
    return "; ".join(parts) + "." + _expectation_sentence(
        published, f"the {counted(len(published), 'row')} {groups[0][1]}")


def _published_and_left_out(rows: list[Row]) -> tuple[list[Row], list[Row], list[Row]]:
    """``(published, earlier, ours)``: the rows on the published papers' items, those on
    earlier versions of a paper (:func:`earlier_versions`), and the rows of ours."""
    earlier_items = {p: earlier_versions(p)[0] for p in {r.paper for r in rows} if p in PAPERS}
    earlier = [r for r in rows if not r.ours and r.item in earlier_items.get(r.paper, ())]
    published = [r for r in rows if not r.ours and not any(r is e for e in earlier)]
    return published, earlier, [r for r in rows if r.ours]


def _linked_items(rows: list[Row], ids: dict[int, str]) -> str:
    """The items of ``rows`` (each once, in order) as links to their rows (``ids``: a row's
    HTML id by ``id(row)``); a repeated item links to its first row."""
    first: dict[str, str] = {}
    for r in rows:
        first.setdefault(r.item, ids[id(r)])
    return ", ".join(f'<a href="#{target}">{html.escape(item)}</a>'
                     for item, target in first.items())


#: The words that mark a run's entry in a row's evidence as partial: the committed run's
#: :func:`memnb.provenance.partial_summary`, as :class:`memnb.scorecard.core.ResultSource`
#: appends it ("... (partial: 88 of 160 points ran; missing ...)"), and, for a part of a rerun
#: read in its place (its label "`full` rerun of ..."), the rerun's progress while it is under
#: way (:func:`memnb.reruns.rerun_progress`: "a rerun by today's code has computed 70 of the 210
#: points ...").
_PARTIAL_MARK = " (partial: "
_RERUN_UNDER_WAY = re.compile(r"a rerun by .+? has computed [\d,]+ of the [\d,]+ points")


def short_of_paper_scale(row: Row) -> bool:
    """Whether ``row`` was judged on a run short of the papers' scale: some result table its
    check read is a reduced-size run (a profile other than ``full``: the ``quick`` run a row
    falls back to where no ``full`` run of today's profile exists, or where the committed one
    is too partial for its criterion; or a ``ci`` run), or a ``full`` run that has not computed
    all of its points. On such evidence a claim that holds is at most ``trend``
    (:func:`memnb.scorecard.criteria.at_paper_scale`); one that fails is ``differs`` at any
    scale. A ``not run`` row is judged on nothing, and a ``not computable`` one on no
    measurement that a larger run could change: neither is counted.

    Derived from the row, since :class:`memnb.scorecard.core.Row` records no run scale of its
    own: the profile of each run read is the structured :attr:`Row.read_from` label ("`quick`
    run of dana.exp1", :data:`_RUN_PROFILE`); whether a ``full`` run read is partial is read
    from that run's entry in :attr:`Row.evidence` (from its label to the next run's label),
    where :class:`memnb.scorecard.core.ResultSource` writes :data:`_PARTIAL_MARK` (or, for a
    rerun's part, :data:`_RERUN_UNDER_WAY`). A marker about another run (the committed ``full``
    run a ``quick`` fallback names as not judged) lies in that other run's entry and is not
    read as this run's."""
    if row.status in ("not run", "not computable"):
        return False
    runs = [(label, m.group(1)) for label in row.read_from if (m := _RUN_PROFILE.match(label))]
    if any(profile != "full" for _, profile in runs):
        return True
    starts = sorted({row.evidence.find(label) for label, _ in runs} - {-1})
    for label, _ in runs:
        start = row.evidence.find(label)
        if start < 0:
            continue
        end = next((s for s in starts if s > start), len(row.evidence))
        entry = row.evidence[start:end]
        if _PARTIAL_MARK in entry or (" rerun of " in label and _RERUN_UNDER_WAY.search(entry)):
            return True
    return False


#: The heading of the glance's column of the rows judged on a run short of the papers' scale
#: (:func:`short_of_paper_scale`); the pages that show the glance name it in their text, with a
#: link to the list of the runs still to compute (*Still to run*, on the Running at scale page).
SHORT_COLUMN = "quick or partial run"
#: The words that open the line under each paper's counts in the glance, before the items
#: whose rows differ (:func:`glance_html`).
DIFFERS_LINE = "where it differs"

#: The words before the rows of a paper left out of the glance's count that differ (our
#: expectations, our readings, earlier versions of the paper), after :data:`DIFFERS_LINE`'s
#: items (:func:`glance_html`).
LEFT_OUT_DIFFERS_WORDS = "left out of the count, also differ"

#: The words before the rows judged on a narrower class of inputs than the paper states
#: (:attr:`memnb.scorecard.core.Row.scope`), on the line under a paper's counts in the glance.
SCOPE_LINE = "judged on a narrower scope than stated"


def glance_html(rows: list[Row]) -> HTML:
    """What reproduced, at a glance, for the top of the scorecard page (and, copied, the
    introduction): per paper, the rows on the published paper's items other than our
    expectations, our readings of content not in our sources and checks of our code (the last
    list of :func:`claim_kinds`), counted per status (a trend not decided apart) and, in the
    column :data:`SHORT_COLUMN`, those of them judged on a reduced-size or partial run
    (:func:`short_of_paper_scale`), with the items whose rows differ, each a link to its row in
    :func:`book_scorecard`'s tables (:func:`row_ids`, per paper as those tables are), beside
    them the paper's rows left out of the count that differ (:data:`LEFT_OUT_DIFFERS_WORDS`)
    and the rows judged on a narrower scope than stated (:data:`SCOPE_LINE`); then, in
    words, the rows the table leaves out (our expectations, content not in our sources, checks
    of our code, earlier versions of the papers, rows of ours) with those of them that differ,
    linked too, and how many of them are judged on a reduced-size or partial run, and a link to
    the section that counts them (:data:`ALL_ROWS_ID`), worded so that it reads the same on the
    scorecard page and in the introduction's copy."""
    from IPython.display import HTML

    from memnb.prose import counted

    ids: dict[int, str] = {}
    for paper in PAPERS:
        mine = [r for r in rows if r.paper == paper]
        ids.update({id(r): row_id for r, row_id in zip(mine, row_ids(mine), strict=True)})
    published, earlier, ours = _published_and_left_out(rows)
    marked, unsourced, built, stated = claim_kinds(published)
    columns = GLANCE_COLUMNS
    head = "".join(f'<th style="text-align:center">{_badge(s, d)}</th>' for s, d in columns)
    out = ['<div style="overflow-x:auto"><table class="scorecard-glance" '
           'style="font-size:85%;width:100%">',
           f"<thead><tr><th>Paper</th><th>rows</th>{head}"
           f'<th style="text-align:center;min-width:5.5em">{html.escape(SHORT_COLUMN)}</th>'
           "</tr></thead><tbody>"]
    centred = range(1, len(columns) + 3)  # the counts: rows, each status, short of scale
    for paper, name in PAPERS.items():
        mine = [r for r in stated if r.paper == paper]
        if not mine:
            continue
        counts = [sum(r.status == s and r.decided == d for r in mine) for s, d in columns]
        differs = [r for r in mine if r.status == "differs"]
        cells = [html.escape(name), str(len(mine))] + [str(n) for n in counts]
        cells.append(str(sum(short_of_paper_scale(r) for r in mine)))
        out.append("<tr>" + "".join(
            f'<td style="vertical-align:top{";text-align:center" if i in centred else ""}">'
            f"{c}</td>" for i, c in enumerate(cells)) + "</tr>")
        # the items that differ on a line of their own under the paper's counts, across the
        # count columns: in a column of its own the list had a tenth of the text column
        scoped = [r for r in mine if r.scope]
        narrower = ("" if not scoped else
                    f"; <em>{html.escape(SCOPE_LINE)}:</em> " + ", ".join(
                        f"{_linked_items([r], ids)} ({html.escape(r.scope)})" for r in scoped))
        # review (session 75): "where it differs: none" stood beside a paper whose experiment
        # figures differ as rows left out of the count (our expectations): counted here too
        counted_ids = {id(r) for r in mine}
        left_out = [r for r in rows if r.paper == paper and r.status == "differs"
                    and id(r) not in counted_ids and not r.ours]
        beside = ("" if not left_out else
                  f" ({LEFT_OUT_DIFFERS_WORDS}: {_linked_items(left_out, ids)})")
        out.append(f'<tr><td></td><td colspan="{len(cells) - 1}" style="padding-bottom:0.6em">'
                   f"<em>{html.escape(DIFFERS_LINE)}:</em> "
                   f"{_linked_items(differs, ids) or 'none'}{beside}{narrower}</td></tr>")
    out.append("</tbody></table></div>")
    # (rows, what they are, a short name for the list of those that differ)
    left = [(marked, "on claims marked as our expectation of a figure, not the paper's words",
             "our expectations"),
            (unsourced, "that check our reading of items whose content our sources do not give "
                        "(<em>[unverified]</em>)", "our readings"),
            (built, "on checks that hold by construction (checks of our code)",
             "checks of our code"),
            (earlier, "on earlier versions of the papers (slides, a preprint)", "earlier versions"),
            (ours, "of ours, beyond the papers (the cross-paper chapter's among them)", "ours")]
    parts = [f"{counted(len(group), 'row')} {what}" for group, what, _ in left if group]
    if parts:
        # a link within the scorecard page, which the introduction's copy points at that page
        # (book/buildtools/glance.py): worded to read right on both pages
        out.append(f'<p>Left out of the table, and counted in the scorecard\'s section '
                   f'<a href="#{ALL_ROWS_ID}"><em>All the rows</em></a>: {and_words(parts)}.')
        failing = []
        for group, _, short in left:
            for paper, name in PAPERS.items():
                bad = [r for r in group if r.paper == paper and r.status == "differs"]
                if bad:
                    failing.append(f"{html.escape(name.split(' (')[0])} "
                                   f"{_linked_items(bad, ids)} ({html.escape(short)})")
        if failing:
            out.append(" Of these, the rows that differ: " + "; ".join(failing) + ".")
        short = sum(short_of_paper_scale(r) for group, _, _ in left for r in group)
        if short:
            out.append(f" Of the rows left out, {short} {'is' if short == 1 else 'are'} "
                       f"judged on a {SHORT_COLUMN}.")
        out.append("</p>")
    return HTML("\n".join(out))


#: The statuses in the order the glances show them, a trend not decided apart: (status, decided).
GLANCE_COLUMNS: tuple[tuple[str, bool], ...] = (
    ("reproduced", True), ("trend", True), ("trend", False), ("differs", True),
    ("not computable", True), ("not run", True))


def _capitalized(words: str) -> str:
    return words[:1].upper() + words[1:]


#: The title of a chapter's glance (:func:`chapter_glance_title`): for a paper's chapter, and
#: for a chapter whose rows are all ours (the cross-paper chapter, which reproduces no paper).
CHAPTER_GLANCE_TITLES: dict[str, str] = {
    "paper": "What reproduced in this chapter",
    "ours": "Status of this chapter's rows (ours)"}


def _ours_only(rows: list[Row]) -> bool:
    return bool(rows) and all(r.ours for r in rows)


def chapter_glance_title(rows: list[Row]) -> str:
    """The title of the glance of a chapter whose rows are ``rows`` (:func:`chapter_glance_html`):
    "What reproduced in this chapter" for a paper's chapter; "Status of this chapter's rows
    (ours)" for a chapter whose rows are all ours (the cross-paper chapter reproduces no paper:
    its rows are its own claims and checks of our code) (:data:`CHAPTER_GLANCE_TITLES`)."""
    return CHAPTER_GLANCE_TITLES["ours" if _ours_only(rows) else "paper"]


def chapter_glance_html(rows: list[Row]) -> HTML:
    """What reproduced in one chapter, for the chapter's top: its rows (one paper's, as
    :func:`chapter_scorecard` shows them at the chapter's end) grouped by status, one line per
    status that occurs (:data:`GLANCE_COLUMNS`), each item a link to its row in the chapter's
    closing table (:func:`row_ids`). The rows that the book's glance counts (:func:`glance_html`:
    the published paper's claims our sources state, judged by a check that could fail) stand
    apart from the others (our expectations, our readings of content not in our sources, checks
    of our code, earlier versions of the paper, rows of ours, rows of ours that hold by
    construction), which are named with their kind. A chapter whose rows are all ours (the
    cross-paper chapter, :func:`chapter_glance_title`) has no paper's claims: its own claims
    stand apart from its checks that hold by construction (:data:`BY_CONSTRUCTION`: checks of
    our code), as the scorecard sets the papers' checks of our code apart. A column with no
    row is left out. An item judged on a narrower scope than the paper states is followed by
    its scope (:attr:`memnb.scorecard.core.Row.scope`); under the table, the rows judged on a
    run short of the papers' scale (:func:`short_of_paper_scale`) are named."""
    from IPython.display import HTML

    ids = {id(r): row_id for r, row_id in zip(rows, row_ids(rows), strict=True)}
    published, earlier, ours = _published_and_left_out(rows)
    marked, unsourced, built, stated = claim_kinds(published)
    ours_built = [r for r in ours if BY_CONSTRUCTION in r.measured]
    ours_claims = [r for r in ours if BY_CONSTRUCTION not in r.measured]
    # (rows, a row's kind as its item is followed, the kind in the column's heading)
    kinds = [(marked, "our expectation", "our expectations"),
             (unsourced, "our reading", "our readings of content not in our sources"),
             (built, "a check of our code", "checks of our code"),
             (earlier, "an earlier version", "earlier versions of the paper"),
             (ours_claims, "ours", "rows of ours"),
             (ours_built, "ours, a check of our code", "checks of ours that hold by construction")]
    kind_of = {id(r): words for group, words, _ in kinds for r in group}
    # (heading, the ids of its rows, whether each item is followed by its kind)
    if _ours_only(rows):
        columns = [("The chapter's claims (ours)", {id(r) for r in ours_claims}, False),
                   ("Checks of our code (hold by construction)", {id(r) for r in ours_built},
                    False)]
    else:
        heads = [head for group, _, head in kinds if group]
        columns = [("The paper's claims (counted in the book's glance)",
                    {id(r) for r in stated}, False),
                   (_capitalized(and_words(heads)) if heads else "",
                    {id(r) for group, _, _ in kinds for r in group}, True)]
    columns = [c for c in columns if c[1]]
    out = ['<div style="overflow-x:auto"><table class="scorecard-glance" '
           'style="font-size:85%;width:100%">',
           "<thead><tr><th>Status</th>"
           + "".join(f"<th>{html.escape(head)}</th>" for head, _, _ in columns)
           + "</tr></thead><tbody>"]
    for status, decided in GLANCE_COLUMNS:
        here = [r for r in rows if r.status == status and r.decided == decided]
        if not here:
            continue
        cells = []
        for _, members, named in columns:
            mine = [r for r in here if id(r) in members]
            links = ", ".join(
                f'<a href="#{ids[id(r)]}">{html.escape(r.item)}</a>'
                + (f" <em>({html.escape(kind_of[id(r)])})</em>" if named else "")
                + (f" <em>({html.escape(r.scope)})</em>" if r.scope else "")
                for r in mine)
            cells.append(f"{len(mine)}: {links}" if mine else "")
        out.append(f'<tr><td style="vertical-align:top;white-space:nowrap">'
                   f'{_badge(status, decided)}</td>'
                   + "".join(f'<td style="vertical-align:top">{c}</td>' for c in cells)
                   + "</tr>")
    out.append("</tbody></table></div>")
    # review (session 75): the book's glance counts the rows judged on a run short of the
    # papers' scale; the chapter's glance names them, under its table
    short = [r for r in rows if short_of_paper_scale(r)]
    if short:
        links = ", ".join(f'<a href="#{ids[id(r)]}">{html.escape(r.item)}</a>' for r in short)
        out.append(f'<p style="font-size:85%">Judged on a {html.escape(SHORT_COLUMN)} (at most '
                   f"a trend where the claim holds): {links}.</p>")
    return HTML("\n".join(out))


def chapter_scorecard(paper: str, profile: str, rows: list[Row] | None = None) -> HTML:
    """The rows of ``paper`` as a displayable HTML block for the end of its chapter (``rows``:
    those already built by :func:`memnb.scorecard.core.build_scorecard` for ``paper`` on
    :func:`source_profile`, else built here)."""
    from IPython.display import HTML

    if rows is None:
        rows = build_scorecard(source_profile(profile), [paper])
    elif {r.paper for r in rows} - {paper}:
        raise ValueError(f"rows must be {paper!r}'s; got rows of "
                         f"{sorted({r.paper for r in rows} - {paper})}")
    # the chapters sit beside the scorecard page in the book, which defines each status
    defined = ('<p>Each status (' + ", ".join(STATUSES) + ') is defined on the '
               '<a href="scorecard.html">reproduction scorecard</a> page.</p>')
    return HTML(f"<p>{html.escape(summary_sentence(rows))}</p>" + defined + rows_html(rows))


def book_scorecard(profile: str, rows: list[Row] | None = None) -> HTML:
    """Every paper's rows, one table each under a heading with the paper's id
    (:func:`paper_id`), with a summary line per paper (``rows``: those already built by
    :func:`memnb.scorecard.core.build_scorecard` on :func:`source_profile`, else built here).
    Each row's item links to the same row at the end of its chapter (:func:`rows_html`'s
    ``link_chapters``)."""
    from IPython.display import HTML

    if rows is None:
        rows = build_scorecard(source_profile(profile))
    parts = []
    for paper, name in PAPERS.items():
        mine = [r for r in rows if r.paper == paper]
        if not mine:
            continue
        parts.append(f'<h3 id="{paper_id(paper)}">{html.escape(name)}</h3>'
                     f"<p>{html.escape(summary_sentence(mine))}</p>")
        parts.append(rows_html(mine, link_chapters=True))
    return HTML("\n".join(parts))


__all__ = ["ALL_ROWS_ID", "BY_CONSTRUCTION", "CHAPTER_GLANCE_TITLES", "CHAPTER_PAGES",
           "GLANCE_COLUMNS", "SHORT_COLUMN", "STATUSES",
           "STATUS_COLOURS", "book_scorecard", "by_construction", "chapter_glance_html",
           "chapter_glance_title", "chapter_row_link", "chapter_scorecard",
           "claim_kinds", "earlier_versions", "glance_html", "paper_id", "row_ids", "rows_html",
           "runs_read_sentence", "short_of_paper_scale", "source_profile", "summary_sentence"]
