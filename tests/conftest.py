"""Shared test fixtures: small seeded models that follow the model contract."""

from __future__ import annotations

import os

import pytest
import torch
from hypothesis import settings
from torch import nn

os.environ.setdefault("MPLBACKEND", "Agg")
# pytest-xdist runs two workers on two cores: one thread each (kernels started by the notebook
# tests inherit it), since two OpenMP pools spinning on one core slow small models tenfold.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
torch.set_num_threads(1)

# Property tests draw the same examples on every run, so a CI run is reproducible and a failure
# can be rerun as it was; `pytest --hypothesis-profile=explore` draws fresh random examples.
settings.register_profile("reproducible", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("reproducible")
# importing memnb flushes denormals to zero (memnb.numerics), so this process cannot represent
# subnormal floats: a float strategy whose range holds them needs allow_subnormal=False


class TinyClassifier(nn.Module):
    """A one-hidden-layer MLP with padded, maskable hidden units (for the training-loop tests)."""

    def __init__(self, d_in: int, width: int, classes: int, *, active_units: int | None = None,
                 seed: int = 0) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.readout_bias = nn.Parameter(torch.randn(classes, generator=g) * 0.1)
        # units are drawn one after another, so the first h units match an h-unit model
        w_in, w_out = [], []
        for _ in range(width):
            w_in.append(torch.randn(d_in, generator=g) / d_in**0.5)
            w_out.append(torch.randn(classes, generator=g) / classes**0.5)
        self.w_in = nn.Parameter(torch.stack(w_in))
        self.w_out = nn.Parameter(torch.stack(w_out))
        active = width if active_units is None else active_units
        self.register_buffer("unit_mask", (torch.arange(width) < active).float())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(x @ self.w_in.T) * self.unit_mask
        return hidden @ self.w_out + self.readout_bias


def pytest_collection_modifyitems(config, items):
    """Skip the tests marked ``cuda`` where no CUDA GPU is available."""
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (marker: cuda)")
    for test in items:
        if test.get_closest_marker("cuda") is not None:
            test.add_marker(skip)


@pytest.fixture
def tiny_classifier():
    return TinyClassifier


@pytest.fixture
def no_mahdavi_scorecard(monkeypatch):
    """Mahdavi captions read this stub row (status ``trend``, measured ``measured``) instead of
    building the scorecard: every caption's verdict goes through
    :func:`memnb.figures.mahdavi.scorecard_row`."""
    from types import SimpleNamespace

    from memnb.figures import mahdavi as fig

    row = SimpleNamespace(status="trend", measured="measured")
    monkeypatch.setattr(fig, "scorecard_row", lambda number, profile: row)
    return row


@pytest.fixture
def aot_runs_at_720():
    """Tries of the cross-paper search at P = 720 (task V = 4, C = 4, step cap 250): two seeds
    of Dana et al.'s own shape d = 2, d_h = 1, H = 86 (guarantee 88), one fitting 45 and not
    90, one fitting nothing at the cap; and two seeds of d = 8 > V fitting 180."""
    import pandas as pd

    tries = [("d=2 d_h=1 H=86", 0, [(45, 1.0, 30), (90, 0.6, 250)]),
             ("d=2 d_h=1 H=86", 1, [(45, 0.49, 250)]),
             ("d=8 d_h=1 H=19", 0, [(180, 1.0, 60), (360, 0.7, 250)]),
             ("d=8 d_h=1 H=19", 1, [(180, 1.0, 60), (360, 0.7, 250)])]
    return pd.DataFrame([{"architecture": "aot", "budget": 720, "parameters": 720,
                          "shape": shape, "seed": seed, "N": N, "accuracy": acc, "round": 0,
                          "steps_run": steps}
                         for shape, seed, runs in tries for N, acc, steps in runs])
