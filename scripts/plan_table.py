"""Plan every experiment's ``full`` profile on this device and record the plan.

    python scripts/plan_table.py [--device cpu|cuda] [--out data/plans/full.cpu.json]

Writes the plan (``memnb plan all --profile full``) as a JSON record with the command, date,
commit, device and the time the planning took. The book's build generates the "Running at scale"
page's plan tables from these records (``book/build.py``), adding the wall time of each run
recorded since from the results' provenance, so no table there is typed by hand.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memnb.planner import CALIBRATED_GROUPS, plan, plan_markdown, plan_record  # noqa: E402
from memnb.results import device_description, git_commit  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--target", default="all", help="experiment, chapter or all")
    parser.add_argument("--calibrate", type=int, default=CALIBRATED_GROUPS,
                        help=f"groups calibrated per experiment (default {CALIBRATED_GROUPS})")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out = args.out or REPO / "data" / "plans" / f"full.{args.device.split(':')[0]}.json"
    started = time.perf_counter()
    table = plan(args.target, "full", device=args.device, calibrate=args.calibrate)
    device = device_description(args.device)
    record = plan_record(table, command=f"python scripts/plan_table.py --device {args.device}",
                         date=f"{datetime.now(UTC):%Y-%m-%d}", git_commit=git_commit(),
                         device=args.device, device_name=device,
                         planning_s=round(time.perf_counter() - started, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1, default=str) + "\n")
    print(plan_markdown(table, device_name=device))
    print(f"plan written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
