"""The glance's count of the rows judged on a run short of the papers' scale
(memnb.scorecard.render.short_of_paper_scale and the glance's column): a row whose check read a
`quick` run (no full one) or a partial `full` run is counted; one read from a complete `full`
run, or judged on nothing, is not. The rows are built by the scorecard's own ResultSource, so
that the evidence the count reads is written as the scorecard writes it; the runs are made up."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pandas as pd

from memnb.scorecard import core, criteria, render

REPO = Path(__file__).resolve().parents[1]


class _Runs(core.ResultSource):
    """A ResultSource over made-up runs: ``{(experiment, profile): complete}``; experiments
    unknown to the registry, so that no profile or code of today's is compared."""

    def __init__(self, runs: dict[tuple[str, str], bool]) -> None:
        super().__init__("full")
        self.runs = runs

    def _load(self, name: str, profile: str):  # noqa: ANN202 - a stand-in ExperimentResult
        if (name, profile) not in self.runs:
            return None
        complete = self.runs[name, profile]
        provenance = {"experiment": name, "profile": profile, "device": "cpu",
                      "git_commit": "0123456789abcdef", "started_utc": "2026-11-30",
                      "complete": complete, "points_done": 3,
                      "missing_points": [] if complete else [{"seed": 1}]}
        table = pd.DataFrame({"seed": [0, 0, 0], "accuracy": [0.5, 0.6, 0.7]})
        return SimpleNamespace(table=table, provenance=provenance, csv_path=None,
                               complete=complete)


def _row(runs: dict[tuple[str, str], bool], reads: list[str], status: str = "trend",
         paper: str = "mahdavi", item: str = "Fig. 9") -> core.Row:
    def check(results: core.ResultSource) -> criteria.Verdict:
        for name in reads:
            results.table(name)
        if status == "not run":
            raise core.NotRun(reads[0], "full", "too few points", "memnb run x --profile full")
        return criteria.Verdict(status, "measured")

    it = core.Item(paper, item, "claim", "criterion", check)
    return it.evaluate(_Runs(runs))


def test_a_row_read_from_a_quick_or_a_partial_run_is_short_of_paper_scale():
    complete = _row({("t.a", "full"): True}, ["t.a"])
    assert complete.read_from == ("`full` run of t.a",)
    assert not render.short_of_paper_scale(complete)
    quick = _row({("t.a", "quick"): True}, ["t.a"])
    assert quick.read_from == ("`quick` run of t.a",) and "fell back to `quick`" in quick.evidence
    assert render.short_of_paper_scale(quick)
    partial = _row({("t.a", "full"): False}, ["t.a"])
    assert partial.read_from == ("`full` run of t.a",) and "(partial: " in partial.evidence
    assert render.short_of_paper_scale(partial)
    # one run of two partial: the row is short of paper scale, whichever comes first
    assert render.short_of_paper_scale(_row({("t.a", "full"): True, ("t.b", "full"): False},
                                            ["t.a", "t.b"]))
    assert render.short_of_paper_scale(_row({("t.a", "full"): False, ("t.b", "full"): True},
                                            ["t.a", "t.b"]))
    # the partial mark of another run's entry is not this run's
    assert not render.short_of_paper_scale(_row({("t.a", "full"): True, ("t.b", "full"): True},
                                                ["t.a", "t.b"]))
    # a row judged on nothing is not counted, though it names the partial run it read
    not_run = _row({("t.a", "full"): False}, ["t.a"], status="not run")
    assert not_run.status == "not run" and not_run.read_from
    assert not render.short_of_paper_scale(not_run)


def test_a_part_of_a_rerun_under_way_is_partial():
    """A row that reads the part of a rerun it needs (ResultSource.rerun_part) reads a run
    still under way: its entry says how far the rerun is."""
    entry = ("`full` rerun of t.a by today's code under today's `full` profile (rerun/full/), "
             "read for its H = 1 points, every one of which it has computed: CPU, 1 seed, "
             "commit 0123456, 2026-11-30; a rerun by today's code has computed 3 of the 9 "
             "points of today's profile (`memnb run t.a --profile full --rerun` continues it)")
    row = core.Row("mahdavi", "Fig. 9", "c", "k", "m", entry, "trend",
                   read_from=("`full` rerun of t.a",))
    assert render.short_of_paper_scale(row)
    done = entry.split("; a rerun by")[0] + ("; a complete rerun by today's code waits in "
                                            "rerun/full/ to be adopted")
    assert not render.short_of_paper_scale(core.Row("mahdavi", "Fig. 9", "c", "k", "m", done,
                                                    "trend", read_from=row.read_from))


def test_the_glance_counts_each_papers_rows_short_of_paper_scale():
    """Review: the glance showed "not run 0" and "none" for every paper, which read as
    complete, while some of its rows were judged on `quick` or partial runs only."""
    rows = [_row({("t.a", "quick"): True}, ["t.a"], item="Fig. 1"),
            _row({("t.a", "full"): False}, ["t.a"], item="Fig. 2"),
            _row({("t.a", "full"): True}, ["t.a"], item="Fig. 3", status="reproduced"),
            _row({("t.a", "full"): True}, ["t.a"], item="Fig. 4", paper="dana"),
            _row({("t.a", "quick"): True}, ["t.a"], item="Fig. 5", paper="dana"),
            core.Row("dana", "Fig. 6", "c", "k", "m", "e", "trend", ours=True,
                     read_from=("`quick` run of t.a",))]
    page = render.glance_html(rows).data
    heads = re.findall(r"<th[^>]*>(.*?)</th>", page.split("</thead>")[0])
    assert heads[-1] == render.SHORT_COLUMN == "quick or partial run"
    body = page.split("<tbody>")[1].split("</tbody>")[0]
    lines = {re.sub(r" \(.*", "", cells[0]): cells for cells in
             (re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in body.split("</tr>")[:-1])}
    assert lines["Dana, Pydi &amp; Chevaleyre"][1] == "2"  # the row of ours left out
    assert lines["Dana, Pydi &amp; Chevaleyre"][-1] == "1"
    assert lines["Mahdavi, Liao &amp; Thrampoulidis"][1] == "3"
    assert lines["Mahdavi, Liao &amp; Thrampoulidis"][-1] == "2"
    # the rows left out are counted too, in the sentence under the table
    assert "Of the rows left out, 1 is judged on a quick or partial run." in page


def test_the_pages_that_show_the_glance_explain_its_column_and_link_to_still_to_run():
    """The scorecard page (its opening text) and the introduction name the column and link to
    *Still to run* on the Running at scale page, by its label: the glance's own HTML is copied
    from one page to the other, so a link between pages lives in each page's text."""
    page = (REPO / "book" / "running_at_scale.md").read_text(encoding="utf-8")
    assert "(still-to-run)=\n## Still to run" in page
    cells = json.loads((REPO / "notebooks" / "scorecard.ipynb").read_text(encoding="utf-8"))
    opening = " ".join("".join(cells["cells"][0]["source"]).split())
    intro = " ".join((REPO / "book" / "intro.md").read_text(encoding="utf-8").split())
    for text in (opening, intro):
        assert f"*{render.SHORT_COLUMN}*" in text
        assert "{ref}`Still to run <still-to-run>`" in text
