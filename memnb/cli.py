"""The ``memnb`` command line: list and run the book's experiments without notebooks.

    memnb list
    memnb run dana.exp1 --profile quick [--device cpu|cuda] [--seeds K] [--executor dask://HOST:PORT]
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
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``memnb`` console script."""
    args = build_parser().parse_args(argv)
    handler = {"list": _cmd_list, "run": _cmd_run}[args.command]
    return handler(args)


if __name__ == "__main__":
    raise SystemExit(main())
