"""Two training processes on one CPU: how much each slows the other, by OpenMP wait policy.

Why ``memnb`` asks for one torch process at a time on a small CPU. The workload is one Adam step
of the model of Mahdavi et al.'s Fig. 2b (ICLR 2024; the official code's model: d = 64, n = 20,
H = 20, d_h = 64, 100 classes, one shared context, batch 256), timed in child processes that all
start at the same instant and step for the same number of seconds. Each setting is measured in
the same run: one process alone, then two side by side, with torch's intra-op threads left to
OpenMP's default wait policy (a waiting thread spins before it sleeps) or with
``OMP_WAIT_POLICY=PASSIVE`` (it sleeps at once), and two side by side with one thread each.
Prints each setting's steps per second per process and its slowdown against the first setting.

    python benchmarks/bench_contention.py [--seconds 15] [--threads 2] [--record PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

D, N, HEADS, D_H, CLASSES, BATCH, T = 64, 20, 20, 64, 100, 256, 6000

_CHILD = """
import json, sys, time
import torch
import torch.nn.functional as F
from memnb.experiments.mahdavi import make_dataset
from memnb.models.multi_head import MultiHeadAttention

threads, seconds = int(sys.argv[1]), float(sys.argv[2])
D, N, HEADS, D_H, CLASSES, BATCH, T = (int(v) for v in sys.argv[3:10])
torch.set_num_threads(threads)
contexts, queries, targets = make_dataset(T, N, D, num_classes=CLASSES, shared=True, seed=3)
context = contexts[0]  # the one shared context, [n, d]
model = MultiHeadAttention.official(D, N, HEADS, D_H, CLASSES, seed=0)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
generator = torch.Generator().manual_seed(0)

def step():
    rows = torch.randint(0, T, (BATCH,), generator=generator)
    loss = F.cross_entropy(model(context, queries[rows]), targets[rows])
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()

for _ in range(5):  # warm-up, before the common start
    step()
print("ready", flush=True)
start_at = float(sys.stdin.readline())  # the same instant for every child
while time.time() < start_at:
    time.sleep(0.005)
steps, began = 0, time.perf_counter()
while time.perf_counter() - began < seconds:
    step()
    steps += 1
print(json.dumps({"steps_per_s": steps / (time.perf_counter() - began)}))
"""

SETTINGS: tuple[tuple[str, int, bool, bool], ...] = (
    # (label, processes, passive wait policy, one thread each)
    ("one process alone, default wait policy", 1, False, False),
    ("one process alone, OMP_WAIT_POLICY=PASSIVE", 1, True, False),
    ("two processes, default wait policy", 2, False, False),
    ("two processes, OMP_WAIT_POLICY=PASSIVE", 2, True, False),
    ("two processes, one thread each", 2, False, True),
)
"""The settings measured, in order; the first is the reference of every slowdown."""


def measure(processes: int, threads: int, passive: bool, seconds: float) -> list[float]:
    """Steps per second of each of ``processes`` children stepping side by side."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
    env["OMP_NUM_THREADS"] = str(threads)
    if passive:
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    args = [str(threads), str(seconds), *map(str, (D, N, HEADS, D_H, CLASSES, BATCH, T))]
    children = [subprocess.Popen([sys.executable, "-c", _CHILD, *args], env=env, text=True,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                for _ in range(processes)]
    for child in children:  # every child has imported torch and warmed up
        assert child.stdout is not None
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError("a benchmark child stopped before it was ready")
    start_at = time.time() + 0.5
    for child in children:
        assert child.stdin is not None
        child.stdin.write(f"{start_at}\n")
        child.stdin.flush()
    rates = []
    for child in children:
        out, _ = child.communicate()  # the rest of its output: the rate
        if child.returncode != 0:
            raise RuntimeError(f"a benchmark child failed with exit code {child.returncode}")
        rates.append(float(json.loads(out.strip().splitlines()[-1])["steps_per_s"]))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0,
                        help="seconds each child steps for (after a common start)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="intra-op threads of each process, but in the one-thread setting "
                             "(default: the CPU's cores)")
    parser.add_argument("--record", type=Path, default=None, metavar="PATH",
                        help="also write the measurements with their provenance to PATH (JSON)")
    args = parser.parse_args()
    if not args.seconds > 0:
        parser.error(f"--seconds must be > 0, got {args.seconds}")
    if args.threads < 1:
        parser.error(f"--threads must be >= 1, got {args.threads}")
    from record import now, write_record

    started = now()
    rows, reference = [], None
    for label, processes, passive, single in SETTINGS:
        threads = 1 if single else args.threads
        rates = measure(processes, threads, passive, args.seconds)
        mean = sum(rates) / len(rates)
        reference = mean if reference is None else reference
        rows.append({"measure": label, "processes": processes, "threads_each": threads,
                     "steps_per_s": round(mean, 1), "slowdown": round(reference / mean, 2)})
        print(f"{label:45s} {threads} thread(s) each: {mean:7.1f} steps/s per process, "
              f"slowdown {reference / mean:.2f}x", flush=True)
    if args.record is not None:
        path = write_record(
            args.record, "bench_contention", "cpu",
            {"seconds": args.seconds, "threads": args.threads,
             "workload": f"Fig. 2b model step (H = {HEADS}, n = {N}, batch {BATCH})"},
            rows, started)
        print(f"record written to {path}")


if __name__ == "__main__":
    main()
