"""A row not run at the profile asked: a complete run at another profile is named, with the
``memnb scorecard`` command that reads it, instead of "none in this checkout" and a run command
that would be refused (:meth:`memnb.scorecard.core.Item._not_run_yet`)."""

from __future__ import annotations

import json

import pandas as pd

from memnb.scorecard import core
from memnb.scorecard.criteria import Verdict


def _write(root, name: str, profile: str, *, complete: bool = True) -> None:
    folder = root / profile
    folder.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"x": [1, 2], "y": [1, 2]}).to_csv(folder / f"{name}.csv", index=False)
    (folder / f"{name}.json").write_text(json.dumps(
        {"device_name": "CPU", "seeds": 1, "git_commit": "abcdef123", "started_utc": "2026",
         "complete": complete}))


def _needs(profile: str) -> core.Item:
    """An item that needs the ``profile`` run of toy.exp (as Mahdavi et al.'s Sec. 4.4 row
    needs the ``full`` run of mahdavi.table1 whatever profile is asked)."""
    def check(results: core.ResultSource) -> Verdict:
        raise core.NotRun("toy.exp", profile)

    return core.Item("mahdavi", "Sec. 0", "a claim", "a criterion", check)


def test_a_complete_run_the_item_needs_at_another_profile_is_named(tmp_path) -> None:
    _write(tmp_path, "toy.exp", "full")
    row = _needs("full").evaluate(core.ResultSource("quick", tmp_path))
    assert row.status == "not run"
    assert "memnb scorecard --profile full" in row.measured
    assert "not run at `quick`" in row.measured and "complete" in row.measured
    assert "memnb run" not in row.measured  # the run command would be refused
    assert "none in this checkout" not in row.evidence
    assert "`full` run of toy.exp" in row.evidence


def test_a_partial_run_is_not_named_and_the_run_command_stays(tmp_path) -> None:
    _write(tmp_path, "toy.exp", "full", complete=False)
    row = _needs("full").evaluate(core.ResultSource("quick", tmp_path))
    assert row.measured.startswith("no result yet: `memnb run toy.exp --profile full`")
    assert row.evidence == "none in this checkout"
    assert "memnb scorecard" not in row.measured


def test_a_larger_complete_run_is_named_after_the_run_command(tmp_path) -> None:
    _write(tmp_path, "toy.exp", "full")
    row = _needs("ci").evaluate(core.ResultSource("ci", tmp_path))
    assert "`memnb run toy.exp --profile ci` computes it" in row.measured
    assert "complete `full` run of toy.exp exists" in row.measured
    assert "memnb scorecard --profile full" in row.measured
    assert row.evidence.startswith("none at `ci`")


def test_a_smaller_run_than_the_one_asked_is_not_named(tmp_path) -> None:
    # at `full` a quick run is already read as the fallback: naming it would add nothing
    _write(tmp_path, "toy.exp", "quick")
    row = _needs("full").evaluate(core.ResultSource("full", tmp_path))
    assert row.evidence == "none in this checkout"
    assert "memnb scorecard" not in row.measured


def test_the_sec_4_4_row_at_quick_names_the_committed_full_table() -> None:
    """The committed complete ``full`` run of mahdavi.table1 is named by the row that needs
    it when the quick profile is asked (it is the one the book's scorecard page reads)."""
    from memnb.provenance import profile_change
    from memnb.results import load

    full = load("mahdavi.table1", "full")
    judged = (full is not None and full.complete
              and profile_change(full.provenance) is None)
    found = core.ResultSource("quick").complete_elsewhere("mahdavi.table1", "full")
    assert found == ("full" if judged else None)
