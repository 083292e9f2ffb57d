"""The control of ours for Mahdavi et al. Table 1's General Position test (memnb.rank_control)."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from memnb.assumptions import kruskal_test
from memnb.rank_control import gaussian_control


def test_the_float32_tolerance_rejects_full_rank_square_draws():
    control = gaussian_control(600, 512, repeats=60, seed=0)
    test = control.test
    assert test.k == 512 and 0 < test.passes < 60
    assert test.min_rank == 511 and test.max_rank == 512  # one singular value too small
    low, high = control.rejected_interval()
    assert low < control.rejected_fraction < high
    # the same draws in float64 all have full rank: the rejections are the tolerance's
    vectors = torch.randn(600, 512, generator=torch.Generator().manual_seed(0))
    assert kruskal_test(vectors.double(), 512, repeats=60, seed=0).passes == 60
    # at a small width the tolerance is far below the smallest singular value
    assert gaussian_control(40, 16, repeats=50).test.passes == 50


def test_bad_arguments_name_the_parameter():
    with pytest.raises(ValueError, match="k must be an int in 1..min"):
        gaussian_control(10, 20, repeats=5)  # k = d = 20 > T
    with pytest.raises(ValueError, match="repeats must be >= 1"):
        gaussian_control(10, 5, repeats=0)


def test_note_separates_the_datas_failures_from_the_tolerances():
    from memnb.figures import mahdavi as fig

    rows = [{"representation": rep, "check": "general_position", "k": 64, "d": 64, "T": 100,
             "min_rank": lo, "max_rank": hi}
            for rep, lo, hi in (("embedding", 1, 1), ("random_vit", 63, 64))]
    note = fig.gp_tolerance_note(pd.DataFrame(rows), repeats=20)
    assert note.startswith("**Control (ours), T = 100 vectors in d = 64:**")
    data_part, tolerance_part = note.split("Ranks within the control's range")
    assert "embedding layer (random weights) 1-1" in data_part
    assert "first block of a random ViT-B/16 63-64" in tolerance_part
    assert "no control computed" in fig.gp_tolerance_note(pd.DataFrame(rows).assign(k=8),
                                                          repeats=5)
