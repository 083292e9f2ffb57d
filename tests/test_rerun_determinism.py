"""Two computations of the same experiment, profile and seeds from scratch, on one machine, give
equal tables cell for cell: what the page *How each page was produced* says of a rerun on the
same machine (its section *Will a rerun give the same numbers?*). One trained experiment of each
paper, at the ``ci`` profile; each computation writes under a root of its own, so the second
reads nothing the first cached."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from memnb.reruns import cells_apart
from memnb.results import run_experiment

EXPERIMENTS = ("dana.exp3", "mahdavi.context", "kajitsuka.capacity")
"""One trained experiment of each paper, among the fastest at ``ci`` (about 5-15 s each here)."""


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_two_computations_from_scratch_give_equal_tables(name: str, tmp_path: Path) -> None:
    first = run_experiment(name, "ci", root=tmp_path / "first")
    second = run_experiment(name, "ci", root=tmp_path / "second")
    for result in (first, second):
        assert not result.provenance.get("cached_points_reused"), result.provenance
        assert len(result.table) > 0
    assert first.table.columns.tolist() == second.table.columns.tolist()
    pd.testing.assert_frame_equal(first.table, second.table, check_exact=True,
                                  obj=f"{name}: {cells_apart(first.table, second.table)}")
