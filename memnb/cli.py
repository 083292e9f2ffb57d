"""The ``memnb`` command line: list and run the book's experiments without notebooks.

    memnb list
    memnb run dana.exp1 --profile quick [--device cpu|cuda] [--seeds K] [--executor dask://HOST:PORT]
    memnb scorecard [--profile full|quick|ci] [--paper dana] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys

from memnb.profiles import PROFILES


def _cmd_list(_: argparse.Namespace) -> int:
    from memnb.experiments.registry import load_all

    for name, exp in load_all().items():
        print(f"{name:24s} {exp.title}  [{exp.paper_figure}]")
        for profile in PROFILES:
            print(f"    {profile:5s} {json.dumps(exp.profiles[profile], default=str)}")
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from memnb.results import run_experiment

    try:
        result = run_experiment(args.experiment, args.profile, device=args.device,
                                seeds=args.seeds, executor=args.executor)
    except ValueError as err:
        print(f"memnb run: error: {err}", file=sys.stderr)
        return 2
    print(f"{len(result.table)} rows written to {result.csv_path}")
    print(f"provenance written to {result.provenance_path}")
    return 0


def _cmd_scorecard(args: argparse.Namespace) -> int:
    from memnb.scorecard import build_scorecard, status_counts, to_frame, to_json

    try:
        rows = build_scorecard(args.profile, args.paper)
    except ValueError as err:
        print(f"memnb scorecard: error: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(to_json(rows))
        return 0
    frame = to_frame(rows)
    for paper, part in frame.groupby("paper", sort=False):
        print(f"== {paper}")
        for r in part.itertuples():
            tag = " (ours)" if r.ours else ""
            print(f"  [{r.status:^14s}] {r.item}{tag}: {r.claim}")
            print(f"      criterion: {r.criterion}")
            print(f"      measured:  {r.measured}")
            print(f"      evidence:  {r.evidence}")
    counts = ", ".join(f"{n} {s}" for s, n in status_counts(rows).items() if n)
    print(f"{len(rows)} items: {counts}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``memnb`` command."""
    parser = argparse.ArgumentParser(prog="memnb", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="every experiment of every chapter, with its profiles")
    run = sub.add_parser("run", help="run one experiment and write CSV + provenance")
    run.add_argument("experiment", help="chapter.experiment, e.g. dana.exp1 (see `memnb list`)")
    run.add_argument("--profile", choices=PROFILES, default="quick")
    run.add_argument("--device", default="cpu", help="cpu or cuda[:N] (default cpu)")
    run.add_argument("--seeds", type=int, default=None, help="number of seeds (profile default)")
    run.add_argument("--executor", default=None,
                     help="dask://HOST:PORT to spread the sweep over a dask cluster")
    card = sub.add_parser("scorecard", help="the reproduction scorecard: every numbered item of "
                          "the papers with a status computed from the results")
    card.add_argument("--profile", choices=PROFILES, default="full",
                      help="results to judge (full falls back to quick where no full run exists)")
    card.add_argument("--paper", action="append", default=None,
                      help="only this paper (dana, mahdavi, kajitsuka, compare); repeatable")
    card.add_argument("--json", action="store_true",
                      help="print a JSON list of objects (paper, item, claim, criterion, "
                           "measured, evidence, status)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``memnb`` console script."""
    args = build_parser().parse_args(argv)
    handler = {"list": _cmd_list, "run": _cmd_run, "scorecard": _cmd_scorecard}[args.command]
    return handler(args)


if __name__ == "__main__":
    raise SystemExit(main())
