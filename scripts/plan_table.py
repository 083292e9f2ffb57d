"""Plan every experiment's ``full`` profile on this device and record the plan.

    python scripts/plan_table.py [--device cpu|cuda] [--out data/plans/full.cpu.json]
    python scripts/plan_table.py --target dana.appendix_dim --merge   # one experiment anew

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

from memnb.cli import _calibrated_groups  # noqa: E402
from memnb.planner import (  # noqa: E402
    CALIBRATED_GROUPS,
    experiments_of,
    merge_into_record,
    plan,
    plan_markdown,
    plan_record,
)
from memnb.results import check_device, device_description, git_commit  # noqa: E402


def merge_note(commit: str, date: str, device: str, target: str) -> str:
    """The note that ``--merge`` adds to each row it re-plans: when (``date``, ``YYYY-MM-DD``),
    at which ``commit`` and on which ``device`` (its description), with the command. The book's
    plan tables read the date back (``book/buildtools/reproducibility.py``, ``planned_on``) to
    find the latest plan of a grid."""
    return (f"re-planned alone at commit {commit[:7]} on {date}, {device} "
            f"(`python scripts/plan_table.py --target {target} --merge`)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--target", default="all", help="experiment, chapter or all")
    parser.add_argument("--calibrate", type=_calibrated_groups, default=CALIBRATED_GROUPS,
                        help=f"groups calibrated per experiment (default {CALIBRATED_GROUPS})")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--merge", action="store_true",
                        help="replace only the --target experiments' rows of the record at --out "
                             "(e.g. after one profile changed), each noting when and where it "
                             "was re-planned")
    args = parser.parse_args(argv)
    out = args.out or REPO / "data" / "plans" / f"full.{args.device.split(':')[0]}.json"
    if args.merge and (args.target == "all" or not out.exists()):
        parser.error(f"--merge needs a --target other than 'all' and an existing record at {out}")
    try:  # a bad --device or --target ends with its message, not a traceback
        check_device(args.device)
        experiments_of(args.target)
    except ValueError as err:
        parser.error(str(err))
    started = time.perf_counter()
    table = plan(args.target, "full", device=args.device, calibrate=args.calibrate)
    device = device_description(args.device)
    date = f"{datetime.now(UTC):%Y-%m-%d}"
    if args.merge:
        note = merge_note(git_commit(), date, device, args.target)
        record = merge_into_record(json.loads(out.read_text()), table, note)
    else:
        record = plan_record(table, command=f"python scripts/plan_table.py --device "
                             f"{args.device}", date=date, git_commit=git_commit(),
                             device=args.device, device_name=device,
                             planning_s=round(time.perf_counter() - started, 1))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1, default=str, ensure_ascii=False) + "\n")
    print(plan_markdown(table, device_name=device))
    print(f"plan written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
