"""Reading written results: a table without its provenance (or the reverse) is named, not read
as a result never computed; a copied run's provenance that cannot be read is named too."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from memnb import provenance, results
from memnb.results import ResultFileError
from memnb.scorecard import core
from memnb.scorecard.criteria import Verdict


def _write(root, name: str, profile: str, *, table: bool = True, record: bool = True) -> None:
    folder = root / profile
    folder.mkdir(parents=True, exist_ok=True)
    if table:
        pd.DataFrame({"x": [1, 2]}).to_csv(folder / f"{name}.csv", index=False)
    if record:
        (folder / f"{name}.json").write_text(json.dumps(
            {"device_name": "CPU", "seeds": 1, "git_commit": "abcdef123", "started_utc": "2026"}))


def test_load_names_the_missing_half_of_a_result_and_none_when_both_are_absent(tmp_path):
    assert results.load("toy.exp", "full", tmp_path) is None
    _write(tmp_path, "toy.exp", "full", record=False)
    with pytest.raises(ResultFileError, match=r"full/toy\.exp\.csv has no provenance beside it "
                       r"\(toy\.exp\.json is missing\): restore toy\.exp\.json from git, or "
                       r"move toy\.exp\.csv away"):
        results.load("toy.exp", "full", tmp_path)
    _write(tmp_path, "toy.other", "full", table=False)
    with pytest.raises(ResultFileError, match=r"full/toy\.other\.json has no table beside it "
                       r"\(toy\.other\.csv is missing\)"):
        results.load("toy.other", "full", tmp_path)
    _write(tmp_path, "toy.other", "full")
    assert results.load("toy.other", "full", tmp_path).table["x"].tolist() == [1, 2]


def test_a_scorecard_row_on_half_a_result_is_refused_not_said_not_run(tmp_path):
    """The row would have told the reader to compute a table that is there."""
    _write(tmp_path, "toy.exp", "quick", record=False)

    def check(source: core.ResultSource) -> Verdict:
        source.table("toy.exp")
        return Verdict("trend", "m")

    item = core.Item("dana", "Fig. 0", "c", "k", check)
    with pytest.raises(ResultFileError, match="has no provenance beside it"):
        item.evaluate(core.ResultSource("quick", tmp_path))


def test_the_provenance_summary_names_half_a_result_as_load_does(tmp_path):
    _write(tmp_path, "toy.a", "full")
    _write(tmp_path, "toy.b", "full", table=False)
    assert len(provenance.provenance_summary(["toy.a"], "full", tmp_path)) == 1
    with pytest.raises(ResultFileError, match=r"toy\.b\.json has no table beside it"):
        provenance.provenance_summary(["toy.a", "toy.b"], "full", tmp_path)


def test_a_copied_runs_provenance_that_cannot_be_read_is_named(tmp_path):
    """The chain of copied points stops where the copied run's provenance is absent, and names
    it where it cannot be read, instead of dropping the runs that computed the points."""
    record = {"points_copied": [{"from": "superseded/toy.exp.abcdef12", "points": 3}],
              "rerun_of": {"code_fingerprint": "abcdef12", "git_commit": "1234567aaa"}}
    chain = provenance.copied_chain(record, tmp_path)
    assert [(link.points, link.depth) for link in chain] == [(3, 0)]
    kept = tmp_path / "superseded" / "toy.exp.abcdef12.json"
    kept.parent.mkdir()
    earlier = {"points_copied": [{"from": "superseded/toy.exp.0011", "points": 2}]}
    kept.write_text(json.dumps(earlier))
    assert [(link.points, link.depth) for link in provenance.copied_chain(record, tmp_path)] == [
        (3, 0), (2, 1)]
    kept.write_text('{"points_copied": [')  # cut short
    with pytest.raises(ResultFileError, match=r"toy\.exp\.abcdef12\.json is not a readable "
                       "provenance file"):
        provenance.copied_chain(record, tmp_path)
