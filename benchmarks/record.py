"""One benchmark run as a JSON record with its provenance (``--record PATH``).

The "Running at scale" page generates its "Measured speed" tables from these records
(``data/benchmarks/*.json``), so no measured number on it is typed by hand: every value comes from
one run of a benchmark, with the device, thread count, commit, date and command that produced it.
"""

from __future__ import annotations

import json
import platform
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import torch

from memnb.results import device_description, git_commit


def write_record(path: Path, benchmark: str, device: str, settings: dict[str, Any],
                 results: list[dict[str, Any]], started: datetime) -> Path:
    """Write the record of one run of ``benchmark`` to ``path`` (JSON) and return the path.

    ``settings`` are the run's options (steps, seeds, ...); ``results`` one dict per measured
    quantity, whose keys are the columns of the page's table.
    """
    record = {
        "benchmark": benchmark,
        "command": " ".join(["python", *sys.argv]),
        "device": device,
        "device_name": device_description(device),
        "threads": torch.get_num_threads(),
        "settings": settings,
        "results": results,
        "git_commit": git_commit(),
        "torch_version": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "started_utc": started.isoformat(timespec="seconds"),
        "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


def now() -> datetime:
    """The time a benchmark starts, for :func:`write_record`."""
    return datetime.now(UTC)
