"""Replications (ours): a committed full run computed again by the same code in another run,
compared point by point, with the rows that read it judged again on it
(memnb.scorecard.replaced.replication_markdown)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from memnb.reruns import (
    REPLICATIONS,
    cells_apart,
    point_keys,
    replaced_against_replication,
    replacement_difference,
    replications_root,
)
from memnb.results import load
from memnb.scorecard.core import ResultSource, Row, load_items, read_label
from memnb.scorecard.replaced import (
    chapter_replications,
    replaced_equal_sentence,
    replaced_runs_markdown,
    replication_markdown,
    replications_table_markdown,
)

REPO = Path(__file__).resolve().parent.parent
FULL = REPO / "data" / "results" / "full"
COMMITTED = sorted((REPO / "data" / "results" / REPLICATIONS / "full").glob("*.json"))


def _row(item: str, status: str, name: str) -> Row:
    return Row("dana", item, "claim", "criterion", "measured", "evidence", status,
               read_from=(read_label("full", name),))


def _copy(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "results"
    for folder in (root / "full", replications_root(root) / "full"):
        folder.mkdir(parents=True)
        for suffix in (".csv", ".json"):
            shutil.copy(FULL / f"{name}{suffix}", folder / f"{name}{suffix}")
    return root


def test_a_replication_of_the_same_code_is_compared_and_other_code_is_not(tmp_path):
    name = "dana.exp6"
    root = _copy(tmp_path, name)
    fig4 = next(it for it in load_items(["dana"]) if it.item == "Fig. 4")
    rows = [fig4.evaluate(ResultSource("full", root))]
    assert rows[0].read_from == (read_label("full", name),)
    text = replication_markdown(rows, [name], "full", root)
    # an identical table: every point equal, the row judged again the same
    code = json.loads((root / "full" / f"{name}.json").read_text())["code_fingerprint"]
    assert text.startswith(f"`{name}` computed again by code of the same fingerprint (`{code}`, "
                           "the committed run's through its re-keys) on ")
    assert "points: `accuracy_last_batches` equal at every one." in text
    assert text.endswith(f"The rows that read it (committed → replication): Fig. 4: "
                         f"{rows[0].status} → {rows[0].status}. Of the 1 verdict judged again "
                         "on the replication, none changes.")
    # a committed run computed by the code it records: no re-key named
    committed = root / "full" / f"{name}.json"
    record = json.loads(committed.read_text())
    plain = {k: v for k, v in record.items()
             if k not in ("code_fingerprint_rekeyed_from", "code_fingerprint_rekeys")}
    committed.write_text(json.dumps(plain))
    assert replication_markdown(rows, [name], "full", root).startswith(
        f"`{name}` computed again by code of the same fingerprint (`{code}`) on ")
    committed.write_text(json.dumps(record))
    # a row that does not read it is not judged again
    other = replication_markdown([_row("Fig. 4", "trend", "dana.exp1")], [name], "full", root)
    assert other.endswith("No row reads it.")
    # another fingerprint: named, not compared
    path = replications_root(root) / "full" / f"{name}.json"
    record = json.loads(path.read_text())
    record["code_fingerprint"] = "0123456789abcdef"
    path.write_text(json.dumps(record))
    text = replication_markdown(rows, [name], "full", root)
    assert "is of other code (`0123456789abcdef`" in text and "not compared" in text
    # none, or a profile whose scorecard reads no full run
    assert replication_markdown(rows, ["dana.exp2"], "full", root) is None
    assert replication_markdown(rows, [name], "ci", root).startswith("Under the `ci` profile")


@pytest.mark.parametrize("path", COMMITTED, ids=[p.stem for p in COMMITTED])
def test_committed_replications_are_complete_runs_of_the_committed_runs_code(path):
    """A committed replication repeats a committed full run: same code fingerprint, same grid
    (every point of the committed table, no other), complete, and no point cache committed."""
    name = path.stem
    again = load(name, "full", replications_root(REPO / "data" / "results"))
    current = load(name, "full")
    assert current is not None and again is not None
    assert again.provenance["code_fingerprint"] == current.provenance["code_fingerprint"]
    assert again.provenance["complete"] and again.provenance["profile"] == "full"
    keys = [k for k in point_keys(name, "full") if k in current.table]
    assert keys and list(again.table.columns) == list(current.table.columns)
    assert (again.table[keys].astype(str).value_counts().sort_index().equals(
        current.table[keys].astype(str).value_counts().sort_index()))
    assert not (path.parent / ".cache").exists()


def test_tables_without_an_accuracy_are_compared_cell_by_cell():
    table = pd.DataFrame({"k": [1, 2, 3], "pass_fraction": [1.0, 0.5, float("nan")],
                          "method": ["svd", "svd", "qr"]})
    assert cells_apart(table, table.copy()) == "every one of the 9 cells equal"
    other = table.copy()
    other.loc[1, "pass_fraction"] = 0.625
    other.loc[2, "method"] = "svd"
    assert cells_apart(table, other) == ("2 of the 9 cells differ: `pass_fraction` in 1 row "
                                         "(by at most 0.125); `method` in 1 row")
    assert cells_apart(table, other.iloc[:2]).startswith("not compared cell by cell")
    # rows matched on the point's parameters, whatever order each table was written in
    assert cells_apart(table, table.iloc[::-1], ["k"]) == "every one of the 9 cells equal"
    assert cells_apart(table, other.iloc[::-1], ["k"]).startswith("2 of the 9 cells differ")
    assert cells_apart(table, table.assign(k=[1, 2, 4]), ["k"]) == (
        "not compared cell by cell (the tables' grids differ)")
    # rows without a point parameter (Experiment 4's fits beside its per-seed slopes) key as
    # empty, so they sort with the others (pandas' string dtype keeps NaN missing: it raised)
    fits = pd.DataFrame({"kind": ["slope", "slope", "fit"], "d": [4.0, 3.0, float("nan")],
                         "value": [0.1, 0.2, 0.3]})
    assert cells_apart(fits, fits.iloc[::-1], ["d"]) == "every one of the 9 cells equal"
    assert cells_apart(fits, fits.assign(value=[0.1, 0.2, 0.4]), ["d"]).startswith(
        "1 of the 9 cells differs: `value` in 1 row")
    # a flag that flips is counted, with no size (review finding: subtracting booleans raised)
    flags = pd.DataFrame({"k": [1, 2], "valid": [True, False]})
    assert cells_apart(flags, flags.assign(valid=[True, True]), ["k"]) == (
        "1 of the 4 cells differs: `valid` in 1 row")


def test_the_scorecard_page_and_a_chapter_list_every_replication(tmp_path):
    name = "dana.exp6"
    root = _copy(tmp_path, name)
    fig4 = next(it for it in load_items(["dana"]) if it.item == "Fig. 4")
    rows = [fig4.evaluate(ResultSource("full", root))]
    table = replications_table_markdown(rows, [name, "dana.exp2"], "full", root)
    lines = table.splitlines()
    assert lines[0] == ("| experiment | the two runs | the two tables | verdicts: committed run "
                        "→ replication |")
    assert "| committed: CPU" in table and "; replication: CPU" in table
    assert len([line for line in lines if line.startswith(f"| `{name}`")]) == 1  # exp2: none
    assert f"*Dana, Pydi & Chevaleyre*: Fig. 4: {rows[0].status} → {rows[0].status}" in table
    assert table.rstrip().endswith("Of the 1 verdict judged again on the replications, "
                                   "none changes.")
    assert replications_table_markdown(rows, ["dana.exp2"], "full", root).startswith(
        "No committed full run has a replication.")
    assert chapter_replications("dana", rows, "full", root).startswith(f"`{name}` computed again")
    assert chapter_replications("mahdavi", [], "full", root) == (
        "No full run of this chapter has a committed replication.")


def test_a_replaced_table_equal_to_the_replication_makes_the_committed_run_the_one_apart(
        tmp_path):
    """Review finding: the tables the Dana runs replaced (earlier code) equal their
    replications (today's code) in every cell, so the chapter's two comparisons were one and the
    committed runs, not the code change, were apart: the texts must say so, and must not say it
    where the committed run equals the replication too."""
    name = "dana.exp6"
    root = _copy(tmp_path, name)
    table = pd.read_csv(FULL / f"{name}.csv")
    provenance = json.loads((FULL / f"{name}.json").read_text())
    other_run = table.assign(accuracy_last_batches=table["accuracy_last_batches"] * 0.5)
    kept = root / "full" / "superseded"
    kept.mkdir()
    other_code = "0123456789abcdef"
    other_run.to_csv(kept / f"{name}.{other_code}.csv", index=False)
    (kept / f"{name}.{other_code}.json").write_text(json.dumps(
        {**provenance, "code_fingerprint": other_code, "started_utc": "2026-01-01T00:00"}))
    other_run.to_csv(replications_root(root) / "full" / f"{name}.csv", index=False)

    found = replaced_against_replication(name, "full", root)
    assert found.equal and not found.committed_equal and found.committed_apart
    assert found.words == f"every one of the {table.size:,} cells equal"
    words = replacement_difference(name, "full", root, column="accuracy_last_batches")
    assert words.endswith("are equal in every one of the 2,400 cells: the change of code moved "
                          "none of these numbers, and it is this run that differs from both")
    fig4 = next(it for it in load_items(["dana"]) if it.item == "Fig. 4")
    rows = [fig4.evaluate(ResultSource("full", root))]
    assert replication_markdown(rows, [name], "full", root).endswith(
        "and only the committed run differs from the two.")
    assert replaced_equal_sentence([name, "dana.exp2"], root).startswith(
        f" The table that the committed run of `{name}` replaced")
    assert "are one check; the change of code moved none of these numbers" in (
        replaced_equal_sentence([name], root))
    own = ("the replication of the committed run (same code) equals the replaced table in "
           "every cell: the change of code moved no number, and the gap is the committed run's "
           "own")
    assert own in replaced_runs_markdown(rows, [name], "full", root)

    # the committed run equal to the replication too: all three agree, nobody is apart
    table.to_csv(replications_root(root) / "full" / f"{name}.csv", index=False)
    table.to_csv(kept / f"{name}.{other_code}.csv", index=False)
    found = replaced_against_replication(name, "full", root)
    assert found.equal and found.committed_equal and not found.committed_apart
    assert "differs from both" not in replacement_difference(name, "full", root)
    assert replication_markdown(rows, [name], "full", root).endswith(
        "is equal to both in every one of the 2,400 cells.")
    assert replaced_equal_sentence([name], root) == ""
    assert own not in replaced_runs_markdown(rows, [name], "full", root)
    # no replaced table, or no replication: nothing to say
    assert replaced_against_replication("dana.exp2", "full", root) is None


def test_a_replaced_table_without_an_accuracy_is_compared_cell_by_cell(tmp_path):
    """Review finding: the replaced-runs table said 'not compared (the tables hold no accuracy
    column)' of Mahdavi et al.'s Table 3 while the chapter's replication text compared the same
    tables cell by cell: both sections now compare such tables cell by cell."""
    name = "mahdavi.table3"
    root = _copy(tmp_path, name)
    table = pd.read_csv(FULL / f"{name}.csv")
    provenance = json.loads((FULL / f"{name}.json").read_text())
    kept = root / "full" / "superseded"
    kept.mkdir()
    other_code = "0123456789abcdef"
    (kept / f"{name}.{other_code}.json").write_text(json.dumps(
        {**provenance, "code_fingerprint": other_code, "started_utc": "2026-01-01T00:00"}))
    table.to_csv(kept / f"{name}.{other_code}.csv", index=False)
    text = replaced_runs_markdown([], [name], "full", root)
    assert "no accuracy column" not in text
    assert f"cell by cell: every one of the {table.size:,} cells equal" in text
    moved = int(table["pass_fraction"].notna().sum())  # an empty cell stays equal
    table.assign(pass_fraction=table["pass_fraction"] + 1.0).to_csv(
        kept / f"{name}.{other_code}.csv", index=False)
    assert (f"cell by cell: {moved} of the {table.size:,} cells differ: `pass_fraction` in "
            f"{moved} rows (by at most 1)") in replaced_runs_markdown([], [name], "full", root)
    table.iloc[:-1].to_csv(kept / f"{name}.{other_code}.csv", index=False)
    assert "| not compared cell by cell (the tables' columns or rows differ) |" in (
        replaced_runs_markdown([], [name], "full", root))
