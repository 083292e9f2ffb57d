"""Sweep groups on a ``dask.distributed`` cluster (``--executor dask://HOST:PORT``).

Each packed group of sweep points is one task. Results come back as tasks finish and are cached
by :func:`memnb.sweep.run_sweep` on the submitting machine, so a worker that dies mid-sweep loses
only its unfinished groups: dask reschedules them, and a rerun computes only what is missing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memnb.sweep import GroupEvaluator, Point, Rows


def scheduler_address(executor: str) -> str:
    """``dask://HOST:PORT`` → ``tcp://HOST:PORT``; a ``ValueError`` for anything else."""
    prefix = "dask://"
    if not executor.startswith(prefix) or ":" not in executor[len(prefix):]:
        raise ValueError(f"executor must look like 'dask://HOST:PORT'; got {executor!r}")
    return "tcp://" + executor[len(prefix):]


def map_groups(executor: str, evaluate: GroupEvaluator,
               groups: Sequence[list[Point]]) -> Iterator[tuple[list[Point], list[Rows]]]:
    """Run ``evaluate`` on every group on the cluster, yielding ``(group, rows)`` as they finish."""
    from dask.distributed import Client, as_completed

    with Client(scheduler_address(executor), timeout="30s") as client:
        futures = {client.submit(evaluate, group, pure=False): i for i, group in enumerate(groups)}
        for future in as_completed(futures):
            yield groups[futures[future]], future.result()
