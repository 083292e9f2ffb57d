"""The floating-point environment of memnb's CPU computations: denormals flushed to zero.

Why. When a softmax saturates (Mahdavi et al., ICLR 2024, App. H / Fig. 3: heads that put more
than 0.99 of their weight on one token), the weights of the other tokens underflow below the
smallest normal float32 (about 1.2e-38) into denormal (subnormal) numbers, and so do the
gradients that flow through them. Many x86 CPUs compute with denormals in microcode, many times
slower than with normal numbers. Measured on the project's 2-core machine (an Intel Xeon):
the packed Fig. 3 group of the ``full`` profile trained at about 80 steps/s for its first
thousand steps and at 18 steps/s by step 20,000, once 1.5-6 % of the attention weights of the
``H = 8`` members were denormal; the same loop state continued at 72 steps/s with denormals
flushed (``benchmarks/bench_denormals.py`` prints the ratio on a saturated softmax).

How. :func:`flush_denormals` sets the CPU's flush-to-zero and denormals-are-zero modes
(``torch.set_flush_denormal``). They hold per thread: torch's intra-op worker threads take them
from the thread that creates them, which is the main thread the first time torch computes in
parallel. So ``import memnb`` sets them (:mod:`memnb` calls :func:`flush_denormals`), before a
chapter, the command line, a test or a dask worker trains anything; :func:`denormals_flushed`
checks that every worker thread flushes, and :func:`require_flushed_denormals` (called by every
CPU training run and cost measurement of :mod:`memnb.train`) refuses to train when one does not,
since its numbers would differ from a run of the same code in either mode.

What it changes. A flushed denormal is a value below 1.2e-38 replaced by zero, so most numbers
are the same bit for bit, but not all: one Fig. 3 group trained from the same seed to step
20,500 in both modes diverged at step 14,000 in 2 of its 12 members. The mode is therefore part
of every point's cache key: this module is among the fingerprinted core modules, and the
fingerprint adds :func:`mode` (:func:`memnb.fingerprint.code_fingerprint`). Arithmetic on a
GPU does not read the CPU's modes.
"""

from __future__ import annotations

import functools
import threading

import torch

__all__ = ["denormals_flushed", "flush_denormals", "mode", "require_flushed_denormals"]

_PROBE_ROWS = 1 << 18
"""Rows of the probe softmax: enough that torch splits them over every worker thread."""


def flush_denormals() -> bool:
    """Flush denormals to zero on the calling thread, and so on every torch worker thread it
    creates later; True where the CPU supports it (x86 with DAZ, ARM64). Idempotent."""
    return bool(torch.set_flush_denormal(True))


@functools.cache
def mode() -> str:
    """The denormal mode of CPU arithmetic in this process, for the cache key:
    ``"flushed"`` where :func:`flush_denormals` is supported, else ``"ieee"``."""
    return "flushed" if flush_denormals() else "ieee"


@functools.cache
def _flushed_with(host_thread: int, threads: int) -> bool:
    # the softmax of (0, -100) puts exp(-100) ~ 3.7e-44, a denormal, on its second entry, or 0
    # where denormals are flushed; torch splits the rows over its worker threads, and the
    # result's bits are read as integers (a float comparison on a flushing thread would itself
    # read a denormal as zero)
    logits = torch.tensor([0.0, -100.0]).repeat(_PROBE_ROWS, 1)
    small = torch.softmax(logits, dim=-1)[:, 1].contiguous()
    return bool(torch.count_nonzero(small.view(torch.int32)) == 0)


def denormals_flushed() -> bool:
    """Whether the calling thread and every worker thread of its torch pool, at the pool's
    present size, flush denormals. False where the mode is unsupported, or where that pool
    computed before the calling thread flushed (its worker threads keep IEEE denormals)."""
    return (mode() == "flushed" and flush_denormals()
            and _flushed_with(threading.get_ident(), torch.get_num_threads()))


def require_flushed_denormals() -> None:
    """Flush denormals on the calling thread (a dask worker runs tasks on threads other than
    the one that imported memnb) and raise ``RuntimeError`` when some worker thread of its pool
    still keeps them: a run on such a pool would match neither mode's cached points."""
    if mode() == "flushed" and not denormals_flushed():
        raise RuntimeError(
            "memnb trains on the CPU with denormals flushed to zero (memnb.numerics), but "
            f"some of torch's {torch.get_num_threads()} worker threads keep them: torch "
            "computed in parallel before memnb was imported, and its threads do not take the "
            "mode afterwards. Import memnb before running any torch computation (or call "
            "torch.set_num_threads(1)), then train again.")
