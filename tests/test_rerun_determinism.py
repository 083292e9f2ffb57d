"""Two computations of the same experiment, profile and seeds from scratch, on one CPU machine,
give equal tables cell for cell: what the page *How each page was produced* says of a rerun on
the same machine (its section *Will a rerun give the same numbers?*). One trained experiment of
each paper, at the ``ci`` profile, on random or generated data (no dataset file needed). The
second computation runs in a process of its own, with another hash seed, and each writes under
a root of its own, so the second reads nothing the first cached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from memnb.experiments.registry import get
from memnb.reruns import cells_apart
from memnb.results import load, run_experiment

EXPERIMENTS = ("dana.exp3", "mahdavi.context", "kajitsuka.random_curves")
"""One trained experiment of each paper, among the fastest at ``ci`` (about 5-15 s each here),
none of which reads a dataset file."""

_SECOND = """
import json, sys
from memnb.results import run_experiment
from pathlib import Path
result = run_experiment(sys.argv[1], "ci", root=Path(sys.argv[2]))
print(json.dumps({"reused": result.provenance.get("cached_points_reused")}))
"""


def test_the_experiments_need_no_dataset_file() -> None:
    assert all(not get(name).datasets for name in EXPERIMENTS)


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_two_computations_from_scratch_give_equal_tables(name: str, tmp_path: Path) -> None:
    first = run_experiment(name, "ci", root=tmp_path / "first")
    env = {**os.environ, "PYTHONHASHSEED": "7"}
    env.pop("MEMNB_RESULTS_DIR", None)
    done = subprocess.run([sys.executable, "-c", _SECOND, name, str(tmp_path / "second")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert not json.loads(done.stdout.strip().splitlines()[-1])["reused"]
    second = load(name, "ci", tmp_path / "second")
    assert second is not None and not first.provenance.get("cached_points_reused")
    assert len(first.table) > 0
    assert first.table.columns.tolist() == second.table.columns.tolist()
    pd.testing.assert_frame_equal(first.table, second.table, check_exact=True,
                                  obj=f"{name}: {cells_apart(first.table, second.table)}")
