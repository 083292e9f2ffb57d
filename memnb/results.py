"""Cached experiment results with provenance: ``data/results/<profile>/<name>.{csv,json}``.

Only the project's own code writes here (:func:`run_experiment`). The JSON beside each CSV records
how the table was made: the experiment and its parameters, profile, seeds, device, package
versions, git commit, command line, dates and wall time.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import torch

import memnb
from memnb.experiments.registry import get
from memnb.paths import repo_root, results_dir
from memnb.profiles import check_profile, default_seeds


@dataclass
class ExperimentResult:
    """A result table and where it was written."""

    table: pd.DataFrame
    csv_path: Path
    provenance_path: Path
    provenance: dict[str, Any]


def _git_commit() -> str:
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo_root(), text=True,
                                capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "memnb"], cwd=repo_root(),
                               text=True, capture_output=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+uncommitted-changes" if dirty else "")


def _command_line(name: str, profile: str, device: str, seeds: int) -> str:
    if Path(sys.argv[0]).name == "memnb":
        return " ".join(["memnb", *sys.argv[1:]])
    return f"run_experiment({name!r}, {profile!r}, device={device!r}, seeds={seeds})"


def device_description(device: str) -> str:
    """A human-readable name of ``device`` (the GPU model, or the CPU)."""
    if device.startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_name(torch.device(device))
    return f"CPU ({platform.processor() or platform.machine()}, {torch.get_num_threads()} threads)"


def check_device(device: str) -> str:
    """Return ``device`` if usable here, else raise a ``ValueError`` saying why."""
    if device == "cpu":
        return device
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(
                "device 'cuda' requested but no CUDA GPU is available; use --device cpu")
        return device
    raise ValueError(f"device must be 'cpu' or 'cuda[:N]'; got {device!r}")


def result_paths(name: str, profile: str, root: Path | None = None) -> tuple[Path, Path]:
    """The CSV and JSON paths of experiment ``name`` under ``profile``."""
    folder = (root or results_dir()) / check_profile(profile)
    return folder / f"{name}.csv", folder / f"{name}.json"


def run_experiment(name: str, profile: str = "quick", *, device: str = "cpu",
                   seeds: int | None = None, executor: str | None = None,
                   root: Path | None = None) -> ExperimentResult:
    """Run experiment ``name`` under ``profile``, write its table and provenance, return both.

    Points already computed (in ``<root>/<profile>/.cache/<name>/``) are reused, so an
    interrupted run resumes where it stopped.
    """
    exp = get(name)
    check_profile(profile)
    check_device(device)
    if seeds is None:
        seeds = int(exp.params(profile).get("seeds", default_seeds(profile)))
    if seeds < 1:
        raise ValueError(f"seeds must be >= 1; got {seeds}")
    csv_path, json_path = result_paths(name, profile, root)
    cache_dir = csv_path.parent / ".cache" / name
    started = datetime.now(UTC)
    commit = _git_commit()  # the code that computes the points, read before they are computed
    t0 = time.perf_counter()
    table = exp.run(profile, seeds=seeds, device=device, cache_dir=cache_dir, executor=executor)
    wall = time.perf_counter() - t0
    provenance = {
        "experiment": name,
        "title": exp.title,
        "paper_figure": exp.paper_figure,
        "profile": profile,
        "params": exp.params(profile),
        "seeds": seeds,
        "device": device,
        "device_name": device_description(device),
        "executor": executor or "in-process",
        "command": _command_line(name, profile, device, seeds),
        "memnb_version": memnb.__version__,
        "torch_version": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "git_commit": commit,
        "started_utc": started.isoformat(timespec="seconds"),
        "wall_time_s": round(wall, 2),
        "rows": len(table),
        "note": "wall_time_s covers only the points computed in this invocation; cached points"
                " from an interrupted earlier run are reused",
    }
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(csv_path, index=False)
    json_path.write_text(json.dumps(provenance, indent=2, default=str) + "\n")
    return ExperimentResult(table, csv_path, json_path, provenance)


def load(name: str, profile: str, root: Path | None = None) -> ExperimentResult | None:
    """A previously written result of ``name`` under ``profile``, or ``None`` if there is none."""
    csv_path, json_path = result_paths(name, profile, root)
    if not (csv_path.exists() and json_path.exists()):
        return None
    provenance = json.loads(json_path.read_text())
    return ExperimentResult(pd.read_csv(csv_path), csv_path, json_path, provenance)


@dataclass
class FreshAndCached:
    """A chapter's view of one experiment: the run it just made and the committed full run.

    ``fresh`` is the table computed (or resumed) under the chapter's profile; ``cached`` is the
    committed ``full`` table when the chapter runs a smaller profile and one exists, else None
    (under ``full`` the fresh table *is* the full run). ``note`` says which is which, in one line.
    """

    name: str
    fresh: pd.DataFrame
    cached: pd.DataFrame | None
    params: dict[str, Any]
    note: str


def fresh_and_cached(name: str, profile: str, *, device: str = "cpu",
                     seeds: int | None = None, root: Path | None = None) -> FreshAndCached:
    """Run (or resume) ``name`` under ``profile`` and load its committed full-scale run beside it.

    The one loader every chapter uses, so that ``PROFILE=full`` behaves the same in all of them.
    """
    fresh = run_experiment(name, profile, device=device, seeds=seeds, root=root)
    cached = None if profile == "full" else load(name, "full", root)
    if profile == "full":
        note = f"{name}: this is the full-scale run ({fresh.provenance['device_name']})"
    elif cached is None:
        note = f"{name}: `{profile}` run; no full-scale run has been computed yet"
    else:
        prov = cached.provenance
        note = (f"{name}: `{profile}` run beside the committed full-scale run of "
                f"{prov['started_utc'][:10]} ({prov['device_name']}, {prov['seeds']} seeds)")
    return FreshAndCached(name, fresh.table, None if cached is None else cached.table,
                          get(name).params(profile), note)


def provenance_summary(names: list[str], profile: str,
                       root: Path | None = None) -> pd.DataFrame:
    """One row per written result of ``names`` under ``profile``: how and where it was computed.

    Columns: experiment, paper_figure, device_name, seeds, rows, wall_time_s, git_commit (short),
    started_utc. Experiments without a written result are left out, so an empty frame means
    that none of them has been run under ``profile`` in this checkout.
    """
    check_profile(profile)
    columns = ["experiment", "paper_figure", "device_name", "seeds", "rows", "wall_time_s",
               "git_commit", "started_utc"]
    rows = []
    for name in names:
        csv_path, json_path = result_paths(name, profile, root)
        if not (csv_path.exists() and json_path.exists()):  # written results, as in load()
            continue
        provenance = json.loads(json_path.read_text())  # the table itself is not needed
        info = {key: provenance.get(key) for key in columns}
        info["git_commit"] = str(info["git_commit"] or "unknown")[:7]
        rows.append(info)
    return pd.DataFrame(rows, columns=columns)
