"""The packed sweep engine against the official codes' way, measured in one run on one device.

For two grids at the ``quick`` size (Dana et al. Experiment 1 and Mahdavi et al. Fig. 2a) the same
runs, with the same number of steps each, are trained

- the official way: one model per run, a fresh ``DataLoader``/optimiser per run, the official
  model layouts (``benchmarks/official_style.py``);
- the packed way: ``memnb.sweep.run_sweep`` with each experiment's ``train_group``, which trains
  every compatible run of the grid as one stack of models (``memnb.train.train_members``).

It prints both wall times and their ratio; on a GPU also the achieved FLOP/s of one packed
training step as a fraction of the device's dense peak.

    python benchmarks/bench_sweep.py [--steps 128] [--device cpu|cuda] [--only dana|mahdavi]
                                     [--record data/benchmarks/bench_sweep.cpu.json]
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

from official_style import train_dana_official, train_mahdavi_official  # noqa: E402
from record import now, write_record  # noqa: E402

from memnb.data.synthetic import association_task  # noqa: E402
from memnb.experiments import dana  # noqa: E402
from memnb.experiments.registry import get  # noqa: E402
from memnb.sweep import run_sweep  # noqa: E402

# Dense peak FLOP/s by device name fragment (vendor data sheets; SXM parts).
PEAK_FLOPS = {"H100": {"fp32": 67e12, "tf32": 495e12}, "H200": {"fp32": 67e12, "tf32": 495e12},
              "A100": {"fp32": 19.5e12, "tf32": 156e12}}


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _timed(fn: Callable[[], object], device: str) -> float:
    _sync(device)
    start = time.perf_counter()
    fn()
    _sync(device)
    return time.perf_counter() - start


def dana_grid(steps: int, seeds: int) -> list[dict]:
    """Experiment 1's quick grid, each run cut to ``steps`` steps."""
    params = {**get("dana.exp1").params("quick"), "steps": steps}
    points = dana._points(params, seeds, d=params["d"], H=params["H"])
    return dana._finish(points)


def bench_dana(steps: int, seeds: int, device: str) -> tuple[int, float, float]:
    points = dana_grid(steps, seeds)
    first = points[0]
    task = association_task(first["N"], first["S"], first["samples"], first["data_seed"])

    def official() -> None:
        for p in points:
            train_dana_official(task.tokens, task.targets, vocab_size=p["N"], d=p["d"],
                                d_h=p["d_h"], heads=p["H"], steps=steps, batch=p["batch"],
                                lr=p["lr"], lr_final=p["lr_final"], seed=p["seed"])

    def packed() -> None:
        with tempfile.TemporaryDirectory() as cache:
            run_sweep(points, functools.partial(dana.train_group, device=device, progress=False),
                      cache_dir=cache, group_key=dana._group_key, progress=False)

    return len(points), _timed(official, device), _timed(packed, device)


def bench_mahdavi(steps: int, seeds: int, device: str) -> tuple[int, float, float]:
    from memnb.experiments import mahdavi

    params = {**get("mahdavi.heads").params("quick"), "min_steps": steps, "epochs": 0,
              "early_stop": False}
    points = mahdavi._points(params, seeds, "heads", H=params["heads"], T=params["sizes"])

    def official() -> None:
        for p in points:
            contexts, queries, targets = mahdavi.make_dataset(
                p["T"], p["n"], p["d"], num_classes=p["C"], shared=p["shared"], seed=p["seed"])
            x = torch.cat([queries[:, None], contexts], dim=1)  # the official input [e; E]
            train_mahdavi_official(x, targets, heads=p["H"], d_h=p["d_h"], classes=p["C"],
                                   steps=steps, batch=p["batch"], lr=p["lr"],
                                   eval_every=p["eval_every"], seed=p["seed"])

    def packed() -> None:
        with tempfile.TemporaryDirectory() as cache:
            run_sweep(points, functools.partial(mahdavi.train_group, device=device,
                                                progress=False),
                      cache_dir=cache, group_key=mahdavi._group_key, progress=False)

    return len(points), _timed(official, device), _timed(packed, device)


def packed_step_flops(device: str) -> dict[str, object]:
    """Achieved FLOP/s of one packed training step of Experiment 1 (d = 10, all H, 5 seeds)."""
    from torch.utils.flop_counter import FlopCounterMode

    from memnb.models.attention_only import AttentionOnlyTransformer
    from memnb.train import TrainConfig, train_members

    task = association_task(50, 2, 16384, seed=2222)
    members = [AttentionOnlyTransformer(50, 2, 10, 10, 31, active_heads=h, seed=s)
               for h in dana.HEADS_FULL for s in range(5)]
    steps = 200
    config = TrainConfig(steps=steps, lr=0.01, batch_size=256, eval_every=steps,
                         early_stop=False, device=device)

    def counted(n: int) -> int:
        """FLOPs of a run of ``n`` steps with an evaluation at its start and end."""
        with FlopCounterMode(display=False) as counter:
            train_members(members, task.tokens, task.targets,
                          TrainConfig(**{**config.__dict__, "steps": n, "eval_every": n}),
                          progress=False)
        return counter.get_total_flops()

    one_step = counted(2) - counted(1)  # the evaluations cancel: one training step exactly
    # the timed run also holds its two evaluations (of 2,500 distinct contexts): a lower bound
    elapsed = _timed(lambda: train_members(members, task.tokens, task.targets, config,
                                           progress=False), device)
    achieved = one_step * steps / elapsed
    name = torch.cuda.get_device_name() if device.startswith("cuda") else "CPU"
    peak = next((v["fp32"] for k, v in PEAK_FLOPS.items() if k in name), None)
    line = f"packed step ({len(members)} models): {achieved / 1e9:.1f} GFLOP/s on {name}"
    if peak:
        line += f", {100 * achieved / peak:.2f} % of the fp32 dense peak {peak / 1e12:.0f} TFLOP/s"
    print(line)
    return {"measure": "packed Exp. 1 step (d = 10, H = 1..31, 5 seeds)", "models": len(members),
            "steps": steps, "gflop_per_s": round(achieved / 1e9, 2),
            "fraction_of_fp32_peak": None if peak is None else achieved / peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=128)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--only", choices=["dana", "mahdavi"], default=None)
    parser.add_argument("--record", type=Path, default=None, metavar="PATH",
                        help="also write the measurements with their provenance to PATH (JSON), "
                             "as the records in data/benchmarks/ that the book's pages show")
    args = parser.parse_args()
    started = now()
    measured = []
    print(f"device {args.device}, {torch.get_num_threads()} threads, {args.steps} steps per run, "
          f"{args.seeds} seeds")
    benches = {"dana": ("Dana et al. Exp. 1 (quick grid)", bench_dana),
               "mahdavi": ("Mahdavi et al. Fig. 2a (quick grid)", bench_mahdavi)}
    for key, (title, bench) in benches.items():
        if args.only and key != args.only:
            continue
        runs, official, packed = bench(args.steps, args.seeds, args.device)
        print(f"{title}: {runs} runs | official way {official:7.1f} s | packed {packed:6.1f} s "
              f"| ratio {official / packed:5.1f}x")
        measured.append({"measure": title, "runs": runs, "steps_per_run": args.steps,
                         "official_way_s": round(official, 2), "packed_s": round(packed, 2),
                         "ratio": round(official / packed, 2)})
    if args.device.startswith("cuda") or args.only is None:
        measured.append(packed_step_flops(args.device))
    if args.record is not None:
        path = write_record(args.record, "bench_sweep", args.device,
                            {"steps": args.steps, "seeds": args.seeds, "only": args.only},
                            measured, started)
        print(f"record written to {path}")


if __name__ == "__main__":
    main()
