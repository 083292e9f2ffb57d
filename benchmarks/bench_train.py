"""Sequential vs packed training of K independent models: wall-time ratio in one run.

The workload is a slice of Dana et al. Experiment 1 (attention-only Transformers, N = 50,
d = d_h = 10, H in {1, 6, ..., 31}, batch 256): the same models, the same data, the same number of
steps, trained (a) one after another with ``memnb.train.train`` and (b) as one packed stack with
``memnb.train.train_members``. Prints both wall times and their ratio, and checks that both give
the same losses.

    python benchmarks/bench_train.py [--steps 200] [--seeds 2] [--device cpu] [--record PATH]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from memnb.data.synthetic import association_task
from memnb.models.attention_only import AttentionOnlyTransformer
from memnb.train import TrainConfig, train, train_members

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import now, write_record  # noqa: E402

HEADS = [1, 6, 11, 16, 21, 26, 31]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--record", type=Path, default=None, metavar="PATH",
                        help="also write the measurements with their provenance to PATH (JSON)")
    args = parser.parse_args()
    started = now()

    task = association_task(50, 2, 16384, seed=2222)
    config = TrainConfig(steps=args.steps, lr=0.01, schedule="linear", final_lr_factor=0.05,
                         batch_size=args.batch, eval_every=args.steps, early_stop=False,
                         seed=2222, device=args.device)
    specs = [(h, s) for h in HEADS for s in range(args.seeds)]

    def alone(h: int, s: int) -> AttentionOnlyTransformer:
        return AttentionOnlyTransformer(50, 2, 10, 10, h, seed=s)

    def padded(h: int, s: int) -> AttentionOnlyTransformer:
        return AttentionOnlyTransformer(50, 2, 10, 10, max(HEADS), active_heads=h, seed=s)

    def sync() -> None:
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()

    # warm-up (allocator, kernels) outside the timed region
    train(alone(1, 0), task.tokens, task.targets,
          TrainConfig(**{**config.__dict__, "steps": 5, "eval_every": 5}), progress=False)

    sync()
    t0 = time.perf_counter()
    sequential = [train(alone(h, s), task.tokens, task.targets, config, progress=False)
                  for h, s in specs]
    sync()
    t_sequential = time.perf_counter() - t0

    t0 = time.perf_counter()
    packed = train_members([padded(h, s) for h, s in specs], task.tokens, task.targets, config,
                           progress=False)
    sync()
    t_packed = time.perf_counter() - t0

    seq_loss = torch.stack([r.final_loss[0] for r in sequential])
    max_gap = float((seq_loss - packed.final_loss).abs().max())
    print(f"workload: {len(specs)} models (H in {HEADS} x {args.seeds} seeds), "
          f"{args.steps} steps of batch {args.batch}, device {args.device}, "
          f"{torch.get_num_threads()} threads")
    print(f"sequential: {t_sequential:8.2f} s")
    print(f"packed:     {t_packed:8.2f} s")
    print(f"ratio sequential/packed: {t_sequential / t_packed:.2f}x")
    print(f"largest final-loss difference between the two: {max_gap:.2e}")
    if args.record is not None:
        result = {"measure": f"Exp. 1 slice, same model code (H = 1..31, {args.seeds} seeds)",
                  "runs": len(specs), "steps_per_run": args.steps,
                  "sequential_s": round(t_sequential, 2), "packed_s": round(t_packed, 2),
                  "ratio": round(t_sequential / t_packed, 2), "max_final_loss_gap": max_gap}
        path = write_record(args.record, "bench_train", args.device,
                            {"steps": args.steps, "seeds": args.seeds, "batch": args.batch},
                            [result], started)
        print(f"record written to {path}")


if __name__ == "__main__":
    main()
