"""memnb.numerics: CPU arithmetic with denormals flushed to zero, on every thread, keyed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
import torch

from memnb import fingerprint, numerics
from memnb.fingerprint import CORE_MODULES, code_fingerprint, code_modules

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_denormals.py"

needs_flush = pytest.mark.skipif(numerics.mode() != "flushed",
                                 reason="torch cannot flush denormals on this CPU")

# the softmax of (0, -100) has exp(-100) ~ 3.7e-44, a denormal, as its second entry; torch
# splits the rows over its worker threads, one contiguous slice each
_COUNT_DENORMALS = """
import torch
def denormal_entries():
    small = torch.softmax(torch.tensor([0.0, -100.0]).repeat(1 << 18, 1), dim=-1)[:, 1]
    return int(torch.count_nonzero(small.contiguous().view(torch.int32)))
"""


def _run(script: str) -> dict:
    """Run ``script`` in a fresh interpreter (a fresh torch thread pool); its last line of
    output is JSON."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@needs_flush
def test_importing_memnb_flushes_denormals_on_every_worker_thread():
    out = _run(_COUNT_DENORMALS + """
import json
import memnb
from memnb import numerics
torch.set_num_threads(2)
print(json.dumps({"denormals": denormal_entries(), "flushed": numerics.denormals_flushed(),
                  "mode": numerics.mode()}))
""")
    assert out == {"denormals": 0, "flushed": True, "mode": "flushed"}


@needs_flush
def test_a_pool_started_before_memnb_keeps_denormals_and_training_refuses_it():
    """torch's worker threads take the mode when they start: a pool started before ``import
    memnb`` keeps IEEE denormals on its workers, which the check sees and CPU training refuses;
    on one thread (only the flushing main thread computes) it trains."""
    out = _run(_COUNT_DENORMALS + """
import json
torch.set_num_threads(2)
before = denormal_entries()  # the pool starts here, before memnb
import memnb
from memnb import numerics
from memnb.train import TrainConfig, train
model = torch.nn.Linear(3, 2)
x, y = torch.randn(8, 3), torch.tensor([0, 1] * 4)
config = TrainConfig(steps=2, lr=0.01, eval_every=1)
try:
    train(model, x, y, config)
    refused = ""
except RuntimeError as err:
    refused = str(err)
mixed = {"denormals": denormal_entries(), "flushed": numerics.denormals_flushed()}
torch.set_num_threads(1)
result = train(model, x, y, config)
print(json.dumps({"before": before, "mixed": mixed, "refused": refused,
                  "one_thread": numerics.denormals_flushed(),
                  "trained_steps": int(result.steps_run[0])}))
""")
    assert out["before"] == (1 << 18)  # IEEE: every row's second entry is a denormal
    assert out["mixed"]["flushed"] is False
    assert 0 < out["mixed"]["denormals"] < (1 << 18)  # the worker's slice only
    assert "memnb.numerics" in out["refused"] and "Import memnb before" in out["refused"]
    assert out["one_thread"] is True and out["trained_steps"] == 2


@needs_flush
def test_a_new_host_thread_flushes_before_it_trains():
    """A dask worker runs tasks on threads other than the one that imported memnb: the check
    flushes the calling thread first, and that thread's pool starts flushed."""
    seen: list[bool] = []

    def task() -> None:
        torch.set_flush_denormal(False)  # a thread that never heard of memnb
        numerics.require_flushed_denormals()
        seen.append(numerics.denormals_flushed())

    worker = threading.Thread(target=task)
    worker.start()
    worker.join()
    assert seen == [True]


def test_the_denormal_mode_is_part_of_every_fingerprint(monkeypatch):
    assert "memnb.numerics" in CORE_MODULES
    modules = code_modules("memnb.experiments.mahdavi")
    assert "memnb.numerics" in modules
    flushed = code_fingerprint(modules)
    monkeypatch.setattr(numerics, "mode", lambda: "ieee")
    assert fingerprint.numerics.mode() == "ieee"
    assert code_fingerprint(modules) != flushed  # same source, other numbers: another key


@needs_flush
def test_benchmark_prints_the_ratio_of_both_modes(tmp_path):
    """``benchmarks/bench_denormals.py`` saturates the Fig. 3 model's attention, reports the
    denormal share and both modes' step times in one run, and records them."""
    record = tmp_path / "bench_denormals.cpu.json"
    done = subprocess.run([sys.executable, str(BENCHMARK), "--steps", "2", "--scale", "12",
                           "--record", str(record)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert "of attention weights denormal" in done.stdout and "ratio IEEE / flushed" in done.stdout
    result = json.loads(record.read_text())["results"][0]
    assert result["ieee_ms"] > 0 and result["flushed_ms"] > 0
    assert result["ratio"] == pytest.approx(result["ieee_ms"] / result["flushed_ms"], rel=0.01)
    assert "0.0% of attention weights denormal" not in result["measure"]
    bad = subprocess.run([sys.executable, str(BENCHMARK), "--steps", "0"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert bad.returncode != 0 and "--steps must be >= 1" in bad.stderr
