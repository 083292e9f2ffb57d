"""Measure TensorFloat-32 against float32 on the same seeds, before any result uses TF32.

    python scripts/precision_check.py [--experiments NAME ...] [--profile quick]
                                      [--device cuda] [--out DIR]

Runs each experiment twice with the same profile, seeds and code: once in float32 (the
precision of every recorded result) and once with every CUDA matrix product in TF32
(:func:`memnb.train.tf32_runs`, 10-bit mantissa inputs). Both runs are written to folders of
their own under ``--out`` (``float32/`` and ``tf32/``), never to ``data/results``, whose point
caches are float32. It then reports, per experiment, the largest difference of every result
column between the two tables, and evaluates the scorecard on each folder: the issue
"paper-scale results" allows TF32 only for an experiment where every scorecard verdict stays
the same, which is the line ``TF32 allowed`` of the record. The record (``precision_check.json``
under ``--out``) is to be committed to ``data/precision/`` (one file per device and
experiment set), from which the "Running at scale" page draws its table.

bf16 is not compared: no model of ``memnb`` trains in bf16. On a CPU TF32 changes nothing
(``--allow-cpu`` runs the comparison anyway, as a check of the script).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memnb.cli import experiment_name_error, one_line, run_arguments_error  # noqa: E402
from memnb.results import device_description, git_commit, run_experiment  # noqa: E402
from memnb.scorecard.core import build_scorecard  # noqa: E402
from memnb.train import tf32_runs  # noqa: E402

DEFAULT_EXPERIMENTS = ("mahdavi.heads", "kajitsuka.capacity", "dana.exp1")
"""One experiment of each paper, the first of each in the GPU queue's order."""

PRECISIONS = ("float32", "tf32")


def table_differences(float32: pd.DataFrame, tf32: pd.DataFrame) -> dict[str, dict[str, float]]:
    """How two tables of the same points differ, row by row, column by column.

    ``largest``: the largest absolute difference of every numeric column (floats, counts and
    flags read as numbers), 0 where the column agrees. ``rows_differing``: for every column
    with at least one differing row, how many rows differ (a flag such as ``memorized`` or a
    count such as ``steps_run`` that TF32 moves shows here; a parameter column never should).

    Raises ``ValueError`` when the tables do not have the same columns and number of rows.
    """
    if list(float32.columns) != list(tf32.columns) or len(float32) != len(tf32):
        raise ValueError("the two runs do not have the same columns and rows: "
                         f"{list(float32.columns)} x {len(float32)} against "
                         f"{list(tf32.columns)} x {len(tf32)}")
    a, b = float32.reset_index(drop=True), tf32.reset_index(drop=True)
    largest, differing = {}, {}
    for column in a.columns:
        x, y = a[column], b[column]
        same = (x.astype(str) == y.astype(str)) | (x.isna() & y.isna())
        if not same.all():
            differing[column] = int((~same).sum())
        if pd.api.types.is_numeric_dtype(x) and pd.api.types.is_numeric_dtype(y):
            gap = (x.astype(float) - y.astype(float)).abs().max()
            largest[column] = 0.0 if pd.isna(gap) else float(gap)
    return {"largest": largest, "rows_differing": differing}


def verdict_changes(float32_root: Path, tf32_root: Path, profile: str) -> list[dict[str, str]]:
    """The scorecard items whose status differs between the results under the two folders."""
    before = {(r.paper, r.item): r.status for r in build_scorecard(profile, root=float32_root)}
    after = {(r.paper, r.item): r.status for r in build_scorecard(profile, root=tf32_root)}
    return [{"paper": paper, "item": item, "float32": status, "tf32": after.get((paper, item),
                                                                                  "missing")}
            for (paper, item), status in before.items() if after.get((paper, item)) != status]


def compare(experiments: list[str], profile: str, device: str, out: Path,
            seeds: int | None = None) -> dict[str, Any]:
    """Run every experiment in both precisions under ``out`` and return the record."""
    runs: dict[str, dict[str, Any]] = {}
    for name in experiments:
        tables, seconds = {}, {}
        for precision in PRECISIONS:
            t0 = time.perf_counter()
            with tf32_runs() if precision == "tf32" else contextlib.nullcontext():
                result = run_experiment(name, profile, device=device, seeds=seeds,
                                        root=out / precision)
            tables[precision], seconds[precision] = result.table, time.perf_counter() - t0
        differences = table_differences(tables["float32"], tables["tf32"])
        runs[name] = {"largest_difference": differences["largest"],
                      "rows_differing": differences["rows_differing"], "rows": len(tables["tf32"]),
                      "seconds": {p: round(s, 1) for p, s in seconds.items()}}
    changes = verdict_changes(out / "float32", out / "tf32", profile)
    changed = {c["item"] for c in changes}
    return {"command": "python scripts/precision_check.py " + " ".join(sys.argv[1:]),
            "date": f"{datetime.now(UTC):%Y-%m-%d}", "git_commit": git_commit(),
            "device": device_description(device), "profile": profile, "runs": runs,
            "verdict_changes": changes,
            "tf32_allowed": not changes,
            "note": "TF32 may be used only where every scorecard verdict stays the same "
                    f"({'none changed' if not changes else 'changed: ' + ', '.join(changed)})"}


def arguments_error(experiments: list[str], seeds: int | None, device: str) -> str | None:
    """Why the comparison cannot start, in one line, or ``None``: the first of ``experiments``
    that is not a registered experiment's name (:func:`memnb.cli.experiment_name_error`), then
    ``seeds`` and ``device`` (:func:`memnb.cli.run_arguments_error`), all checked before the
    first experiment runs in either precision."""
    for name in experiments:
        unknown = experiment_name_error(name)
        if unknown is not None:
            return one_line(unknown)
    bad = run_arguments_error(seeds, device, None)
    return None if bad is None else one_line(bad)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", nargs="+", default=list(DEFAULT_EXPERIMENTS))
    parser.add_argument("--profile", default="quick", choices=("ci", "quick", "full"))
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--out", type=Path, default=Path("precision_check"))
    parser.add_argument("--allow-cpu", action="store_true",
                        help="compare on the CPU, where TF32 changes nothing (a check)")
    args = parser.parse_args(argv)
    if not args.device.startswith("cuda") and not args.allow_cpu:
        print("TF32 acts on CUDA only: run with --device cuda on a GPU (or --allow-cpu)")
        return 2
    bad = arguments_error(args.experiments, args.seeds, args.device)
    if bad is not None:
        print(f"precision_check.py: error: {bad}", file=sys.stderr)
        return 2
    record = compare(args.experiments, args.profile, args.device, args.out, args.seeds)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "precision_check.json").write_text(json.dumps(record, indent=1) + "\n")
    for name, run in record["runs"].items():
        worst = max(run["largest_difference"].items(), key=lambda kv: kv[1], default=("-", 0.0))
        moved = ", ".join(f"{c} in {k}" for c, k in run["rows_differing"].items()) or "none"
        print(f"{name:24s} largest difference {worst[1]:.3g} ({worst[0]}); rows differing "
              f"of {run['rows']}: {moved}")
    print(f"TF32 allowed: {record['tf32_allowed']} ({record['note']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
