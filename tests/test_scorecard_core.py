"""The scorecard machinery: rows from items, fallbacks, not-run rows, the CLI's JSON."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from memnb.cli import main
from memnb.scorecard import core
from memnb.scorecard.criteria import Verdict, monotone


def _write(root, name: str, profile: str, table: pd.DataFrame) -> None:
    folder = root / profile
    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / f"{name}.csv", index=False)
    (folder / f"{name}.json").write_text(json.dumps(
        {"device_name": "CPU", "seeds": 1, "git_commit": "abcdef123", "started_utc": "2026"}))


def _item(fn) -> core.Item:
    return core.Item("dana", "Fig. 0", "y grows", "monotone", fn)


def test_item_reads_full_then_falls_back_to_quick(tmp_path) -> None:
    _write(tmp_path, "toy.exp", "quick", pd.DataFrame({"x": [1, 2, 3], "y": [1, 2, 3]}))

    def check(results: core.ResultSource) -> Verdict:
        t = results.table("toy.exp")
        return monotone(t["x"], t["y"])

    row = _item(check).evaluate(core.ResultSource("full", tmp_path))
    assert row.status == "reproduced"
    assert "fell back to `quick`" in row.evidence
    _write(tmp_path, "toy.exp", "full", pd.DataFrame({"x": [1, 2, 3], "y": [3, 2, 1]}))
    row = _item(check).evaluate(core.ResultSource("full", tmp_path))
    assert row.status == "differs" and "`full` run of toy.exp" in row.evidence
    assert row.read_from == ("`full` run of toy.exp",)  # structured: no parsing of evidence


def test_read_from_names_each_run_once_and_none_for_a_row_not_run(tmp_path) -> None:
    _write(tmp_path, "toy.a", "full", pd.DataFrame({"x": [1, 2], "y": [1, 2]}))
    _write(tmp_path, "toy.b", "quick", pd.DataFrame({"x": [1, 2], "y": [1, 2]}))

    def both(results: core.ResultSource) -> Verdict:
        t = pd.concat([results.table("toy.a"), results.table("toy.b"), results.table("toy.a")])
        return monotone(t["x"].iloc[:2], t["y"].iloc[:2])

    row = _item(both).evaluate(core.ResultSource("full", tmp_path))
    assert row.read_from == ("`full` run of toy.a", "`quick` run of toy.b")

    def then_missing(results: core.ResultSource) -> Verdict:
        results.table("toy.a")
        return results.table("toy.none")

    assert _item(then_missing).evaluate(core.ResultSource("full", tmp_path)).read_from == ()

    def lacks_points(results: core.ResultSource) -> Verdict:
        results.table("toy.a")
        raise core.NotRun("toy.a", "full", "the run holds no point of this figure")

    row = _item(lacks_points).evaluate(core.ResultSource("full", tmp_path))
    assert row.status == "not run" and row.read_from == ("`full` run of toy.a",)


def test_missing_result_gives_a_not_run_row_with_its_command(tmp_path) -> None:
    item = core.Item("dana", "Fig. 0", "c", "k", lambda r: r.table("toy.none"),
                     cost="about 1 GPU-hour")
    row = item.evaluate(core.ResultSource("quick", tmp_path))
    assert row.status == "not run"
    # the item's cost is its full run's: not stated beside a reduced profile's command
    assert "memnb run toy.none --profile quick" in row.measured and "GPU-hour" not in row.measured
    row = item.evaluate(core.ResultSource("full", tmp_path))
    assert "memnb run toy.none --profile full" in row.measured and "GPU-hour" in row.measured


def test_not_computable_rows_say_why(tmp_path) -> None:
    def check(_: core.ResultSource) -> Verdict:
        raise core.NotComputable("asymptotic statement without constants")

    row = _item(check).evaluate(core.ResultSource("quick", tmp_path))
    assert row.status == "not computable" and "constants" in row.measured


def test_unknown_paper_and_status_are_rejected() -> None:
    with pytest.raises(ValueError, match="paper must be one of"):
        core.item("nobody", "Fig. 1", claim="c", criterion="k")
    with pytest.raises(ValueError, match="status must be one of"):
        core.Row("dana", "Fig. 1", "c", "k", "m", "e", "ok")


def test_cli_json_has_the_documented_keys(capsys) -> None:
    assert main(["scorecard", "--profile", "ci", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert isinstance(rows, list) and rows
    # one row per registered item, in the registry's order
    assert [(r["paper"], r["item"]) for r in rows] == [
        (it.paper, it.item) for it in core.load_items()]
    for row in rows:
        assert set(core.COLUMNS) <= set(row)
        assert isinstance(row["read_from"], list)
        assert row["status"] in {"reproduced", "trend", "differs", "not run", "not computable"}


def test_cli_prints_the_flag_and_the_books_summary_sentence(capsys, monkeypatch) -> None:
    """`memnb scorecard` words a trend not decided as the book does and ends with the book's
    summary sentence (the papers' items counted apart from rows of ours)."""
    import memnb.scorecard as scorecard

    rows = [core.Row("dana", "Fig. 1", "c", "k", "m", "e", "trend", decided=False),
            core.Row("dana", "Fig. 2", "c", "k", "m", "e", "reproduced"),
            core.Row("compare", "Head to head", "c", "k", "m", "e", "differs", ours=True)]
    monkeypatch.setattr(scorecard, "build_scorecard", lambda profile, papers=None, **_: rows)
    assert main(["scorecard"]) == 0
    out = capsys.readouterr().out
    assert "[trend (not decided)] Fig. 1: c" in out and "[    reproduced     ] Fig. 2" in out
    assert out.rstrip().endswith(
        "2 rows on the papers' items: 1 reproduced, 1 trend (1 of them not decided); and 1 row "
        "of ours (beyond the papers): 1 differs.")


def test_rows_html_puts_status_second_and_escapes_text() -> None:
    from memnb.scorecard.render import rows_html

    page = rows_html([core.Row("dana", "Fig. 1", "a < b", "k", "m", "e", "trend", True)])
    headers = [h.split("</th>")[0] for h in page.split("<th>")[1:]]
    assert headers[:2] == ["Item", "Status"] and len(headers) == 4
    assert "a &lt; b" in page and "(ours)" in page and "overflow-x:auto" in page
    # the criterion under the claim, the evidence under what was measured, each named
    cells = [c.split("</td>")[0] for c in page.split("<td")[1:]]
    assert cells[2].split(">", 1)[1].startswith("a &lt; b") and "Criterion:</strong> k" in cells[2]
    assert cells[3].split(">", 1)[1].startswith("m") and "Evidence:</strong> e" in cells[3]


def test_rows_html_sets_inline_code_without_its_backticks() -> None:
    from memnb.scorecard.render import rows_html

    page = rows_html([core.Row("dana", "Fig. 1", "c", "at most `trend`", "m",
                               "`full` run of <x>", "trend", False)])
    assert "at most <code>trend</code>" in page and "<code>full</code> run of &lt;x&gt;" in page
    assert "`" not in page


def test_evidence_names_a_full_run_of_earlier_code(tmp_path) -> None:
    """A verdict read from a table that today's code did not compute says so in its evidence,
    with the code and the denormal mode its provenance records."""
    from memnb.results import todays_code

    _write(tmp_path, "dana.exp4", "full", pd.DataFrame({"x": [1, 2, 3], "y": [1, 2, 3]}))

    def check(results: core.ResultSource) -> Verdict:
        t = results.table("dana.exp4")
        return monotone(t["x"], t["y"])

    row = _item(check).evaluate(core.ResultSource("full", tmp_path))
    assert "computed by earlier code (fingerprint not recorded, IEEE denormals)" in row.evidence
    json_path = tmp_path / "full" / "dana.exp4.json"
    json_path.write_text(json.dumps({**json.loads(json_path.read_text()),
                                     "code_fingerprint": todays_code("dana.exp4")}))
    row = _item(check).evaluate(core.ResultSource("full", tmp_path))
    assert "`full` run of dana.exp4" in row.evidence and "earlier code" not in row.evidence


def test_the_summary_counts_the_papers_items_apart_from_rows_of_ours():
    from memnb.scorecard.render import summary_sentence

    def row(paper: str, status: str, ours: bool) -> core.Row:
        return core.Row(paper=paper, item="x", claim="c", criterion="k", status=status,
                   measured="m", evidence="e", ours=ours)

    one = [row("mahdavi", "reproduced", False), row("mahdavi", "differs", True),
           row("mahdavi", "trend", False)]
    assert summary_sentence(one) == ("2 rows on the paper's items: 1 reproduced, 1 trend; and "
                                     "1 row of ours (beyond the paper): 1 differs.")
    assert summary_sentence(one[::2]) == "2 rows: 1 reproduced, 1 trend."
    assert summary_sentence([row("compare", "trend", True)] * 2) == "2 rows of ours: 2 trend."
    both = one + [row("dana", "differs", False)]
    assert summary_sentence(both).startswith("3 rows on the papers' items: 1 reproduced, 1 trend, "
                                             "1 differs; and 1 row of ours (beyond the papers)")
    # a claim marked as our expectation of a figure is counted apart within the paper's rows
    guessed = core.Row(paper="kajitsuka", item="Fig. 1", claim="more #blocks reach a lower loss "
                       "[our expectation, unverified]", criterion="k", status="differs",
                       measured="m", evidence="e")
    assert summary_sentence([row("kajitsuka", "trend", False), guessed]) == (
        "2 rows: 1 trend, 1 differs. Of these 2 rows, 1 is on claims marked as our "
        "expectation, not the paper's words: 1 differs.")
    assert summary_sentence([guessed]) == (
        "1 row: 1 differs. Of this row, 1 is on claims marked as our expectation, not the "
        "paper's words: 1 differs.")
    assert "expectation" not in summary_sentence(one)
    # so is a claim whose content our sources do not give (only a title, or recalled)
    titled = core.Row(paper="kajitsuka", item="Remark 4.1", claim="pooling suffices [content "
                      "unverified: only the title is in our sources]", criterion="k",
                      status="trend", measured="m", evidence="e")
    assert summary_sentence([row("kajitsuka", "trend", False), guessed, titled]) == (
        "3 rows: 2 trend, 1 differs. Of these 3 rows, 1 is on claims marked as our "
        "expectation, not the paper's words: 1 differs; and 1 other on claims whose content "
        "our sources do not give, recalled, or read from a title or a mention, [unverified]: 1 "
        "trend.")
    assert summary_sentence([*both, titled]).endswith(
        "and 1 row of ours (beyond the papers): 1 differs. Of the 4 rows on the papers' items, 1 "
        "is on claims whose content our sources do not give, recalled, or read from a title or "
        "a mention, [unverified]: 1 trend.")


def test_a_check_that_holds_by_construction_is_never_reproduced_and_is_counted():
    """Review (s69) item 2: a check that cannot fail given our code is capped at trend with the
    shared wording, a failure stays differs, and the summary counts such rows apart from the
    rows on our expectations and on claims not in our sources (a row is counted once)."""
    from memnb.scorecard.criteria import Verdict
    from memnb.scorecard.render import BY_CONSTRUCTION, by_construction, summary_sentence

    capped = by_construction(Verdict("reproduced", "rank 3"), "the logits are W_U times a "
                             "d-vector")
    assert capped.status == "trend"
    assert capped.measured == (f"rank 3 [{BY_CONSTRUCTION}; the logits are W_U times a "
                               "d-vector]")
    assert by_construction(Verdict("differs", "rank 4"), "x") == Verdict("differs", "rank 4")

    def row(status: str, measured: str = "m", claim: str = "c") -> core.Row:
        return core.Row(paper="dana", item="x", claim=claim, criterion="k", status=status,
                        measured=measured, evidence="e")

    built = row("trend", capped.measured)
    assert summary_sentence([row("reproduced"), built]) == (
        "2 rows: 1 reproduced, 1 trend. Of these 2 rows, 1 is on checks that hold by "
        "construction (checks of our code, not of the paper): 1 trend.")
    guessed = row("differs", claim="a figure's curve [our expectation]")
    titled = row("trend", capped.measured, claim="a remark [content unverified]")
    assert summary_sentence([guessed, titled, built]) == (
        "3 rows: 2 trend, 1 differs. Of these 3 rows, 1 is on claims marked as our "
        "expectation, not the paper's words: 1 differs; 1 other on claims whose content our "
        "sources do not give, recalled, or read from a title or a mention, [unverified]: 1 "
        "trend; and 1 other on checks that hold by construction (checks of our code, not of "
        "the paper): 1 trend.")
    assert "construction" not in summary_sentence([row("reproduced"), row("trend")])


def test_the_runs_read_sentence_counts_the_profiles_the_rows_read():
    """Review (s69) item 5: the page executed with `quick` reads `full` runs where they exist;
    a computed sentence says which runs its rows read."""
    from memnb.scorecard.render import runs_read_sentence

    def row(*runs: str) -> core.Row:
        return core.Row(paper="dana", item="x", claim="c", criterion="k", status="trend",
                        measured="m", evidence="e", read_from=runs)

    rows = [row("`full` run of dana.exp2"), row("`full` rerun of dana.exp5"),
            row("`quick` run of mahdavi.heads"),
            row("`full` run of dana.exp1", "`quick` run of dana.exp4"), row(), row()]
    assert runs_read_sentence(rows, "quick") == (
        "This page was executed with profile `quick`; its rows read the committed `full` runs "
        "where they exist and can be judged (not of an earlier profile, nor too partial for "
        "the row), else the `quick` runs: of the 4 rows that read a result table, 2 "
        "read `full` runs only, 1 `quick` runs only and 1 both; the other 2 read none.")
    assert runs_read_sentence(rows[:1], "full").endswith(
        "of the 1 row that reads a result table, 1 reads `full` runs.")
    assert runs_read_sentence([row("`ci` run of dana.exp2"), row()], "ci") == (
        "This page was executed with profile `ci`; its rows read the `ci` runs: of the 1 row "
        "that reads a result table, 1 reads `ci` runs; the other reads none.")
    assert runs_read_sentence([row()], "quick").endswith("none of them reads a result table.")
    # review (s70) item 8: when every row that reads a table reads one profile, "all" says so
    full = [row("`full` run of dana.exp1"), row("`full` rerun of dana.exp5"),
            row("`full` run of dana.exp2", "`full` run of dana.exp3"), row()]
    assert runs_read_sentence(full, "full").endswith(
        "of the 3 rows that read a result table, all 3 read `full` runs; the other reads none.")
    assert runs_read_sentence(full[1:], "full").endswith(
        "of the 2 rows that read a result table, both read `full` runs; the other reads none.")
    assert "all 4" not in runs_read_sentence([*full, row("`quick` run of dana.exp4")], "quick")


def test_the_evidence_names_every_commit_that_computed_points():
    """A resumed run names each commit whose invocations computed points (dana.exp5: 84 points
    at one commit, 126 at two later ones), not its last commit alone; one commit reads as
    before."""
    calls = [{"git_commit": "eb16d85aaaa", "started_utc": "2026-11-26T06:34", "points_done": 84},
             {"git_commit": "fa52566bbbb", "started_utc": "2026-11-26T09:00", "points_done": 105},
             {"git_commit": "e676a83cccc", "started_utc": "2026-11-26T09:29", "points_done": 210},
             {"git_commit": "0000000dddd", "started_utc": "2026-11-27T00:00", "points_done": 210}]
    assert core.computing_commits({"invocations": calls}) == (
        "commits eb16d85 (84 points, 2026-11-26), fa52566 (21 points, 2026-11-26), e676a83 "
        "(105 points, 2026-11-26)")  # the last call computed nothing: not named
    same = [{**c, "git_commit": "04233d7"} for c in calls]
    assert core.computing_commits({"invocations": same}) == "commit 04233d7, 2026-11-26T09:29"
    assert core.computing_commits({"git_commit": "abcdef123", "started_utc": "2026"}) == (
        "commit abcdef1, 2026")
    # points copied from the run it replaced are named with that run's commit (review finding:
    # a row reading only those points named a commit that computed none of them)
    copied = {"git_commit": "cae159fb6", "started_utc": "2026-11-27T15:00",
              "points_copied": [{"from": "superseded/dana.x.ee20886effcd5f24", "points": 84}],
              "rerun_of": {"code_fingerprint": "ee20886effcd5f24", "git_commit": "54b33aa23",
                           "started_utc": "2026-11-27T12:21"}}
    assert core.computing_commits(copied) == (
        "commit cae159f, 2026-11-27T15:00; 84 of its points were copied from the run it "
        "replaced (commit 54b33aa, started 2026-11-27T12:21), not computed by it")
    # down the chain (review finding: 33 of dana.appendix_layout's 84 copied points had been
    # copied into the run it replaced from the run before, at another commit)
    import json
    from pathlib import Path

    layout = json.loads((Path(__file__).resolve().parent.parent / "data" / "results" / "full"
                         / "dana.appendix_layout.json").read_text())
    assert core.computing_commits(layout).endswith(
        "84 of its points were copied from the run it replaced (commit 54b33aa, started "
        "2026-11-27T12:21:09+00:00), not computed by it; that run had itself copied 33 of them "
        "from the run it replaced (commit aff3ad0 + uncommitted changes, started "
        "2026-11-27T10:21:19+00:00)")
    copied["rerun_of"]["code_fingerprint"] = "1111111111111111"
    assert core.computing_commits(copied).endswith(
        "84 of its points were copied from `superseded/dana.x.ee20886effcd5f24`, not computed "
        "by it")


def test_a_not_run_row_with_a_reason_says_what_exists_and_the_command(tmp_path) -> None:
    """A run exists that cannot decide the item (too few points, say): the row is not run, says
    why, names the command of the run that decides it, and keeps what was read as evidence."""
    _write(tmp_path, "toy.exp", "quick", pd.DataFrame({"x": [1, 2, 3], "y": [1, 2, 3]}))

    def check(results: core.ResultSource) -> Verdict:
        results.table("toy.exp")
        raise core.NotRun("toy.exp", "full", "the `quick` run has 3 points",
                          "memnb run toy.exp --profile full --time-limit SECONDS")

    row = _item(check).evaluate(core.ResultSource("full", tmp_path))
    assert row.status == "not run"
    assert row.measured == ("the `quick` run has 3 points; `memnb run toy.exp --profile full "
                            "--time-limit SECONDS` computes the run that decides it")
    assert row.evidence.startswith("`quick` run of toy.exp")


def test_the_full_run_command_continues_what_exists(tmp_path) -> None:
    import json as _json

    source = core.ResultSource("full", tmp_path)
    assert source.full_run_command("dana.exp1") == "memnb run dana.exp1 --profile full"
    _write(tmp_path, "dana.exp1", "full", pd.DataFrame({"x": [1]}))
    path = tmp_path / "full" / "dana.exp1.json"
    from memnb.results import todays_code

    path.write_text(_json.dumps({**_json.loads(path.read_text()), "complete": False,
                                 "points_done": 1, "missing_points": [{"seed": 1}],
                                 "code_fingerprint": todays_code("dana.exp1")}))
    assert source.full_run_command("dana.exp1") == (
        "memnb run dana.exp1 --profile full --time-limit SECONDS")
    # a partial table of earlier code is replaced by a rerun beside it, not continued
    path.write_text(_json.dumps({**_json.loads(path.read_text()),
                                 "code_fingerprint": "0123456789abcdef"}))
    assert source.full_run_command("dana.exp1") == (
        "memnb run dana.exp1 --profile full --rerun --time-limit SECONDS")
    _write(tmp_path, "dana.exp1", "rerun/full", pd.DataFrame({"x": [1]}))
    path = tmp_path / "rerun" / "full" / "dana.exp1.json"
    path.write_text(_json.dumps({**_json.loads(path.read_text()), "complete": False,
                                 "points_done": 1, "missing_points": [{"seed": 1}]}))
    assert source.full_run_command("dana.exp1") == (
        "memnb run dana.exp1 --profile full --rerun --time-limit SECONDS")


def test_a_chapters_scorecard_links_the_status_definitions(monkeypatch):
    """The rows at the end of a chapter name every status and link the scorecard page that
    defines them (a sibling page of the chapters in the book)."""
    from memnb.scorecard import render

    monkeypatch.setattr(render, "build_scorecard", lambda source, papers: [])
    html_text = render.chapter_scorecard("dana", "quick").data
    assert '<a href="scorecard.html">reproduction scorecard</a>' in html_text
    assert all(status in html_text for status in render.STATUSES)


def test_a_trend_not_decided_is_flagged_shown_in_outline_and_counted_apart(tmp_path) -> None:
    """A trend whose verdict says its criterion could not decide (``decided`` False or
    ``undecided`` True in its values) becomes a row with ``decided`` False: its badge reads
    "trend (not decided)" and the summary counts it among the trends; any other status cannot
    be not decided."""
    from memnb.scorecard.render import rows_html, summary_sentence

    def open_trend(results: core.ResultSource) -> Verdict:
        return Verdict("trend", "not decided: too few", {"decided": False})

    def plain_trend(results: core.ResultSource) -> Verdict:
        return Verdict("trend", "shape holds", {})

    source = core.ResultSource("full", tmp_path)
    rows = [_item(open_trend).evaluate(source), _item(plain_trend).evaluate(source)]
    assert [r.decided for r in rows] == [False, True]
    assert core.undecided(Verdict("trend", "m", {"undecided": True}))
    assert not core.undecided(Verdict("differs", "m", {"decided": False}))
    page = rows_html(rows)
    assert page.count("trend (not decided)") == 1
    assert "2 rows: 2 trend (1 of them not decided)." == summary_sentence(rows)
    assert [r["decided"] for r in json.loads(core.to_json(rows))] == [False, True]
    assert core.to_frame(rows)["decided"].tolist() == [False, True]
    # one wording everywhere: a row, a row of to_frame and a verdict print the flag alike
    assert [core.status_words(r) for r in rows] == ["trend (not decided)", "trend"]
    assert [core.status_words(r) for r in core.to_frame(rows).itertuples()] == [
        "trend (not decided)", "trend"]
    assert core.status_words(Verdict("trend", "m", {"undecided": True})) == "trend (not decided)"
    assert core.status_words(Verdict("differs", "m", {"decided": False})) == "differs"
    with pytest.raises(ValueError, match="only a trend can be not decided"):
        core.Row("dana", "Fig. 0", "c", "k", "m", "e", "differs", decided=False)


def test_the_scorecard_command_shows_its_progress_and_the_book_does_not(monkeypatch, capsys):
    """Judging every row takes from half a minute to minutes: `memnb scorecard` draws a bar
    over the rows on stderr; build_scorecard called without progress (the chapters) draws
    none, and TQDM_DISABLE (set by the book build) silences it too."""
    from memnb import scorecard
    from memnb.cli import main

    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    monkeypatch.setattr(core, "load_items", lambda papers=None: [])
    assert core.build_scorecard("quick") == []
    assert "scorecard (quick)" not in capsys.readouterr().err
    assert core.build_scorecard("quick", progress=True) == []
    assert "scorecard (quick)" in capsys.readouterr().err
    monkeypatch.setenv("TQDM_DISABLE", "1")
    assert core.build_scorecard("quick", progress=True) == []
    assert "scorecard (quick)" not in capsys.readouterr().err
    asked = []
    monkeypatch.setattr(scorecard, "build_scorecard",
                        lambda profile, papers=None, **kwargs: asked.append(kwargs) or [])
    main(["scorecard"])
    assert asked == [{"progress": True}]


def test_a_table_without_a_column_a_check_reads_names_the_file_and_column(tmp_path) -> None:
    """A result table lacking a column that a row reads is refused as a result file that
    cannot be read, naming the file and the column; a KeyError of the check's own code (a
    dict's key, a column of a table the check derived) stays a KeyError."""
    from memnb.results import ResultFileError

    _write(tmp_path, "toy.exp", "quick", pd.DataFrame({"x": [1, 2, 3]}))

    def reads_y(results: core.ResultSource) -> Verdict:
        t = results.table("toy.exp")
        return monotone(t["x"], t["y"])

    with pytest.raises(ResultFileError, match=r"quick/toy\.exp\.csv has no column 'y', which "
                       r"the scorecard's row Fig\. 0 of dana reads"):
        _item(reads_y).evaluate(core.ResultSource("quick", tmp_path))

    def groups_by_y(results: core.ResultSource) -> Verdict:
        results.peek("toy.exp").groupby("y")
        raise AssertionError("unreachable")

    with pytest.raises(ResultFileError, match="has no column 'y'"):
        _item(groups_by_y).evaluate(core.ResultSource("quick", tmp_path))

    def own_key(results: core.ResultSource) -> Verdict:
        results.table("toy.exp")
        return {"a": 1}["y"]

    def derived(results: core.ResultSource) -> Verdict:
        return results.table("toy.exp").rename(columns={"x": "z"})["x"]

    for fn in (own_key, derived):
        with pytest.raises(KeyError) as raised:
            _item(fn).evaluate(core.ResultSource("quick", tmp_path))
        assert not isinstance(raised.value, ResultFileError)


def test_a_committed_table_without_its_accuracy_names_the_file(tmp_path) -> None:
    """The committed full run of dana.exp2, copied and stripped of its accuracy column: the
    Fig. 1b row names that copy and the column, not a bare KeyError."""
    import shutil
    from pathlib import Path

    from memnb.results import ResultFileError

    committed = Path(__file__).parents[1] / "data" / "results" / "full"
    (tmp_path / "full").mkdir()
    for ext in ("csv", "json"):
        shutil.copy(committed / f"dana.exp2.{ext}", tmp_path / "full")
    copy = tmp_path / "full" / "dana.exp2.csv"
    pd.read_csv(copy).drop(columns="accuracy").to_csv(copy, index=False)
    fig1b = {it.item: it for it in core.load_items(["dana"])}["Fig. 1b"]
    with pytest.raises(ResultFileError, match=r"dana\.exp2\.csv has no column 'accuracy'"):
        fig1b.evaluate(core.ResultSource("full", tmp_path))


def test_papers_given_as_one_string_are_refused_with_a_named_message() -> None:
    """build_scorecard("full", "dana") would read the string as the papers 'd', 'a', 'n'."""
    from memnb.scorecard.render import earlier_versions

    with pytest.raises(ValueError, match=r"papers must be a list of paper names, e\.g\. "
                       r"\['dana'\]; got the string 'dana'"):
        core.build_scorecard("full", "dana")
    with pytest.raises(ValueError, match="paper must be one of dana, mahdavi"):
        earlier_versions("nobody")


def test_each_row_has_an_id_that_the_glance_links_to() -> None:
    """Review: the scorecard page gave no result before about 450 words of definitions. Its
    glance table counts, per paper, the rows on claims our sources state that a check could
    refute, names the items that differ as links to their rows (ids of rows_html), and says
    which rows it leaves out and which of those differ."""
    from memnb.scorecard.render import BY_CONSTRUCTION, glance_html, row_ids, rows_html

    def row(paper: str, item: str, status: str, claim: str = "c", measured: str = "m",
            ours: bool = False, decided: bool = True) -> core.Row:
        return core.Row(paper, item, claim, "k", measured, "e", status, ours, decided=decided)

    rows = [row("dana", "Fig. 1b", "differs"), row("dana", "Fig. 1b", "trend"),
            row("dana", "Lemma 2", "reproduced"), row("dana", "Fig. 3", "trend", decided=False),
            row("dana", "Fig. 4", "trend", measured=f"m [{BY_CONSTRUCTION}; x]"),
            row("dana", "Fig. 5", "differs", ours=True),
            row("kajitsuka", "Fig. 1", "differs", claim="[our expectation, unverified] c"),
            row("mahdavi", "Fig. 2a", "not computable")]
    dana = [r for r in rows if r.paper == "dana"]
    assert row_ids(dana) == ["sc-dana-fig-1b", "sc-dana-fig-1b-2", "sc-dana-lemma-2",
                             "sc-dana-fig-3", "sc-dana-fig-4", "sc-dana-fig-5"]
    assert '<tr id="sc-dana-fig-1b-2">' in rows_html(dana)
    page = glance_html(rows).data
    body = page.split("<tbody>")[1].split("</tbody>")[0]
    lines = [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in body.split("</tr>")[:-1]]
    # Dana: 4 rows (the check of our code and the row of ours left out); columns reproduced,
    # trend, trend (not decided), differs, not computable, not run, on a quick or partial run
    # (none of these made-up rows read a table), where it differs
    # each paper's counts, then a line of its own with the items that differ
    assert lines[0][1:9] == ["4", "1", "1", "1", "1", "0", "0", "0"] and len(lines[0]) == 9
    assert lines[1] == ["", '<em>where it differs:</em> <a href="#sc-dana-fig-1b">Fig. 1b</a>']
    assert lines[2][0].startswith("Mahdavi") and lines[2][1] == "1"
    assert lines[3][1] == "<em>where it differs:</em> none"
    assert len(lines) == 4  # Kajitsuka & Sato's only row is our expectation: no line
    assert "1 row on claims marked as our expectation" in page
    assert "1 row on checks that hold by construction" in page and "1 row of ours" in page
    assert ('Kajitsuka &amp; Sato <a href="#sc-kajitsuka-fig-1">Fig. 1</a> (our expectations)'
            in page)
    assert 'Dana, Pydi &amp; Chevaleyre <a href="#sc-dana-fig-5">Fig. 5</a> (ours)' in page
    # the dashed badge of a trend not decided does not share the green text of a decision
    assert "dashed" in page and "color:#1b5e20" not in page
