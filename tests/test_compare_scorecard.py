"""The cross-paper chapter's scorecard rows (ours): every row is marked ours, evaluates from a
written result table in seconds, and says ``not run`` (with the command) when there is none."""

from __future__ import annotations

import json
import time

import pandas as pd

from memnb.scorecard import build_scorecard
from memnb.scorecard.core import load_items


def _fake_table() -> pd.DataFrame:
    """Capacities known by construction: the MLP stores most per parameter at every budget."""
    rows = []
    for arch, per_bit in [("aot", 0.3), ("mha", 0.2), ("ffn_attention", 0.1), ("mlp", 0.6)]:
        for budget in (100, 200, 400):
            for seed in (0, 1):
                cap = int(budget * per_bit / 2) + seed
                shape = "d=2 d_h=1 H=3" if arch in ("aot", "mha") else "w=1"
                for N, acc in [(cap, 1.0), (2 * cap + 5, 0.8)]:
                    rows.append({"architecture": arch, "budget": budget, "parameters": budget,
                                 "shape": shape, "seed": seed, "N": N, "accuracy": acc,
                                 "round": 0})
    return pd.DataFrame(rows)


def _write(root, profile: str) -> None:
    folder = root / profile
    folder.mkdir(parents=True)
    table = _fake_table()
    table.to_csv(folder / "compare.capacity.csv", index=False)
    (folder / "compare.capacity.json").write_text(json.dumps(
        {"device_name": "test", "seeds": 2, "git_commit": "abc", "started_utc": "2026"}))


def test_items_are_ours_and_named():
    items = load_items(["compare"])
    assert len(items) >= 8
    assert all(it.ours for it in items)
    assert len({it.item for it in items}) == len(items)


def test_rows_are_computed_from_a_table(tmp_path):
    _write(tmp_path, "quick")
    start = time.perf_counter()
    rows = build_scorecard("full", ["compare"], root=tmp_path)
    assert time.perf_counter() - start < 30
    frame = pd.DataFrame([r.to_dict() for r in rows])
    assert "not run" not in set(frame["status"])
    assert frame["evidence"].str.contains("fell back to `quick`").any()
    head = frame[frame["item"] == "Head to head"].iloc[0]
    assert "MLP best" in head["measured"]
    floor = frame[frame["item"] == "Remark 4.4 floor vs training"].iloc[0]
    assert floor["status"] == "reproduced"


def test_rows_say_not_run_without_a_table(tmp_path):
    rows = build_scorecard("quick", ["compare"], root=tmp_path)
    assert {r.status for r in rows} <= {"not run", "reproduced", "not computable"}
    assert any("memnb run compare.capacity --profile quick" in r.measured for r in rows)
