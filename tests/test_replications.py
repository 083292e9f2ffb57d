"""Replications (ours): a committed full run computed again by the same code in another run,
compared point by point, with the rows that read it judged again on it
(memnb.scorecard.replaced.replication_markdown)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memnb.results import load
from memnb.scorecard.core import ResultSource, Row, load_items, read_label
from memnb.scorecard.replaced import REPLICATIONS, replication_markdown, replications_root

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
    assert text.startswith(f"`{name}` computed again by the same code (fingerprint `")
    assert "differs by 0.0000 on average, at most 0.000" in text
    assert text.endswith(f"The rows that read it (committed → replication): Fig. 4: "
                         f"{rows[0].status} → {rows[0].status}. Of the 1 verdict judged again "
                         "on the replication, none changes.")
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
    keys = [k for k in ("d", "H", "seed", "N") if k in current.table]
    assert sorted(map(tuple, again.table[keys].to_numpy().tolist())) == sorted(
        map(tuple, current.table[keys].to_numpy().tolist()))
    assert not (path.parent / ".cache").exists()
