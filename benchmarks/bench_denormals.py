"""Training steps with a saturated softmax: IEEE denormals against denormals flushed to zero.

Why memnb flushes denormals on the CPU (``memnb.numerics``). The workload is the model of
Mahdavi et al.'s Fig. 3 (ICLR 2024, App. H; the official code's model: d = 64, n = 32, H = 8,
d_h = 64, 100 classes, one shared context, batch 256). Its key and query weights are scaled by
``--scale`` so that the attention saturates as it does late in that figure's 300,000-step
training, where a part of the attention weights underflows into denormal floats. One Adam step
(forward, cross-entropy, backward, update) is timed in each mode in the same process, on one
thread (the mode of the thread that computes is the mode of the step). Prints the fraction of
denormal attention weights, the time per step of each mode and their ratio.

    python benchmarks/bench_denormals.py [--steps 100] [--scale 12] [--record PATH]
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from memnb.experiments.mahdavi import make_dataset
from memnb.models.multi_head import MultiHeadAttention

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record import now, write_record  # noqa: E402

D, N, HEADS, D_H, CLASSES, BATCH = 64, 32, 8, 64, 100, 256


def denormal_fraction(weights: torch.Tensor) -> float:
    """Fraction of entries that are denormal (non-zero, below the smallest normal float32)."""
    small = (weights > 0) & (weights < torch.finfo(weights.dtype).tiny)
    return float(small.double().mean())


def time_steps(model: MultiHeadAttention, context: torch.Tensor, queries: torch.Tensor,
               targets: torch.Tensor, steps: int, *, flush: bool) -> float:
    """Seconds per Adam step on a copy of ``model`` with denormals flushed or kept."""
    torch.set_flush_denormal(flush)
    trained = copy.deepcopy(model)
    optimizer = torch.optim.Adam(trained.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(0)

    def step() -> None:
        rows = torch.randint(0, queries.shape[0], (BATCH,), generator=generator)
        loss = F.cross_entropy(trained(context, queries[rows]), targets[rows])
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    for _ in range(3):  # warm-up outside the timed region
        step()
    started = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - started) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--scale", type=float, default=12.0,
                        help="factor on W_K and W_Q (the logits grow with its square)")
    parser.add_argument("--record", type=Path, default=None, metavar="PATH",
                        help="also write the measurements with their provenance to PATH (JSON)")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error(f"--steps must be >= 1, got {args.steps}")
    if args.scale <= 0:
        parser.error(f"--scale must be > 0, got {args.scale}")
    started = now()
    torch.set_num_threads(1)

    contexts, queries, targets = make_dataset(1430, N, D, num_classes=CLASSES, shared=True,
                                              seed=3)
    context = contexts[0]  # the one shared context, [n, d]
    model = MultiHeadAttention.official(D, N, HEADS, D_H, CLASSES, seed=0)
    with torch.no_grad():
        model.W_K.mul_(args.scale)
        model.W_Q.mul_(args.scale)
        torch.set_flush_denormal(False)
        attention = model.attention_weights(context, queries)
    fraction = denormal_fraction(attention)
    saturated = float((attention.amax(dim=-1) > 0.99).double().mean())

    ieee = time_steps(model, context, queries, targets, args.steps, flush=False)
    flushed = time_steps(model, context, queries, targets, args.steps, flush=True)
    print(f"Fig. 3 model (H = {HEADS}, batch {BATCH}, W_K and W_Q x {args.scale:g}): "
          f"{fraction:.1%} of attention weights denormal, {saturated:.0%} of (example, head) "
          "pairs saturated (max weight > 0.99)")
    print(f"  IEEE denormals:     {ieee * 1e3:8.2f} ms per step")
    print(f"  denormals flushed:  {flushed * 1e3:8.2f} ms per step")
    print(f"  ratio IEEE / flushed: {ieee / flushed:.2f}x")
    if args.record is not None:
        path = write_record(
            args.record, "bench_denormals", "cpu", {"steps": args.steps, "scale": args.scale},
            [{"measure": f"Fig. 3 model step (H = {HEADS}, batch {BATCH}), W_K and W_Q x "
                         f"{args.scale:g}: {fraction:.1%} of attention weights denormal",
              "steps": args.steps, "ieee_ms": round(ieee * 1e3, 3),
              "flushed_ms": round(flushed * 1e3, 3), "ratio": round(ieee / flushed, 2)}],
            started)
        print(f"record written to {path}")


if __name__ == "__main__":
    main()
