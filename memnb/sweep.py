"""A grid of runs into a tidy table, each point cached as soon as it is computed.

A *point* is a JSON-serialisable dict of parameters (including its seed). ``run_sweep`` looks up
every point in a cache folder (one JSON file per point, named by a hash of the point and of the
code that computes it, holding the point, the code's fingerprint, its result rows and a checksum
of those rows). Missing or corrupted points are computed, in groups chosen by ``group_key`` so
that compatible points can be trained together as one packed stack of models, and each point's
file is written atomically as soon as its group finishes. An interrupted sweep therefore loses
only the group in flight, and rerunning it computes only the missing points.

The code fingerprint (:mod:`memnb.fingerprint`) covers the source of the modules every training
point depends on and what the evaluator's module computes with, so a changed model, loop or
experiment never reuses a point computed by older code: the point is recomputed under a new key
(the old file stays until deleted).

Inside :func:`memnb.budget.time_limit`, a sweep starts a group only while the budget estimates
that it ends before the deadline (:meth:`memnb.budget.TimeBudget.allows_group`); it then returns
the points finished so far and the budget records the rest, so a run stopped at its limit keeps
every finished point and says which are missing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from memnb import resume
from memnb.budget import active as active_budget
from memnb.fingerprint import code_fingerprint, code_modules
from memnb.progress import bar_disabled

Point = dict[str, Any]
Rows = list[dict[str, Any]]
GroupEvaluator = Callable[[list[Point]], list[Rows]]

def point_key(point: Mapping[str, Any]) -> str:
    """A stable hash naming ``point`` (order of keys does not matter)."""
    text = json.dumps(point, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _rows_digest(rows: Rows) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


# --- the cache ----------------------------------------------------------------------------------

def cache_path(cache_dir: Path, point: Mapping[str, Any], code: str | None = None) -> Path:
    """The file that holds the cached result of ``point`` computed by code ``code``.

    ``code`` is a :func:`code_fingerprint` (``None``: a point not tied to any code version).
    """
    suffix = "" if code is None else f".{code}"
    return Path(cache_dir) / f"{point_key(point)}{suffix}.json"


def write_point(cache_dir: Path, point: Mapping[str, Any], rows: Rows,
                code: str | None = None) -> Path:
    """Write one point's rows atomically (temporary file, then rename)."""
    path = cache_path(cache_dir, point, code)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"point": dict(point), "code": code, "rows": rows, "sha256": _rows_digest(rows)}
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(payload))  # rows keep their column order
    os.replace(tmp, path)
    return path


def read_point(cache_dir: Path, point: Mapping[str, Any], code: str | None = None
               ) -> Rows | None:
    """The cached rows of ``point`` computed by ``code``; ``None`` if absent or corrupted (a
    warning says which)."""
    path = cache_path(cache_dir, point, code)
    if not path.exists():
        return None
    try:
        payload = json.loads(path.read_text())
        rows = payload["rows"]
        ok = (payload["sha256"] == _rows_digest(rows)
              and payload["point"] == json.loads(json.dumps(dict(point), sort_keys=True,
                                                            default=str))
              and payload.get("code") == code)
    except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
        ok = False
    if not ok:
        warnings.warn(f"cache file {path.name} is corrupted; recomputing that point", stacklevel=2)
        return None
    return rows


def paused_prefix(cache_dir: Path, group: Sequence[Point], code: str) -> Path:
    """Where the training runs of ``group`` save their state while it runs
    (:mod:`memnb.resume`): ``<cache>/paused/<hash of the group's points>.<code>``."""
    keys = "\n".join(sorted(point_key(p) for p in group))
    return cache_dir / "paused" / f"{hashlib.sha256(keys.encode()).hexdigest()[:16]}.{code}"


def grid(**axes: Iterable[Any]) -> list[Point]:
    """The Cartesian product of ``axes`` as a list of points (last axis varies fastest)."""
    points: list[Point] = [{}]
    for name, values in axes.items():
        values = list(values)
        if not values:
            raise ValueError(f"grid axis {name!r} must have at least one value")
        points = [{**p, name: v} for p in points for v in values]
    return points


def _groups(points: Sequence[Point], group_key: Callable[[Point], Hashable] | None,
            max_group_size: int | None) -> list[list[Point]]:
    buckets: dict[Hashable, list[Point]] = {}
    for i, point in enumerate(points):
        key = group_key(point) if group_key else i
        buckets.setdefault(key, []).append(point)
    size = max_group_size or max(len(b) for b in buckets.values())
    return [bucket[i:i + size] for bucket in buckets.values() for i in range(0, len(bucket), size)]


def run_sweep(
    points: Sequence[Point],
    evaluate: GroupEvaluator,
    *,
    cache_dir: Path | str,
    group_key: Callable[[Point], Hashable] | None = None,
    max_group_size: int | None = None,
    executor: str | None = None,
    progress: bool = True,
    desc: str = "sweep",
    code: str | None = None,
) -> pd.DataFrame:
    """Evaluate every point of ``points`` (cached), return one tidy table.

    ``evaluate(group)`` receives a list of points that share ``group_key`` (at most
    ``max_group_size``) and returns, for each point in order, its list of result rows (dicts).
    Each row is joined with its point's parameters in the returned table. ``executor`` is
    ``None`` (in-process) or ``"dask://HOST:PORT"`` (a ``dask.distributed`` scheduler), in which
    case each group is a task on the cluster and results are cached here as they arrive.

    Cached points are keyed by their parameters and by ``code``, the fingerprint of the code
    that computes them (default: :func:`code_fingerprint` of :func:`code_modules` of
    ``evaluate``). Inside :func:`memnb.budget.time_limit`, the table holds only the points
    finished before the limit; the budget lists the others.
    """
    if len({point_key(p) for p in points}) != len(points):
        raise ValueError("points must be distinct (two points of the sweep are identical)")
    if max_group_size is not None and max_group_size < 1:
        raise ValueError(f"max_group_size must be >= 1 or None; got {max_group_size}")
    cache_dir = Path(cache_dir)
    if code is None:
        code = code_fingerprint(code_modules(evaluate))
    results: dict[str, Rows] = {}
    missing: list[Point] = []
    for point in points:
        rows = read_point(cache_dir, point, code)
        if rows is None:
            missing.append(point)
        else:
            results[point_key(point)] = rows

    groups = _groups(missing, group_key, max_group_size) if missing else []
    budget = active_budget()
    bar = tqdm(total=len(points), initial=len(points) - len(missing), desc=desc,
               disable=bar_disabled(progress))

    def store(group: list[Point], group_rows: list[Rows]) -> None:
        if len(group_rows) != len(group):
            raise RuntimeError(
                f"evaluate returned {len(group_rows)} results for a group of {len(group)} points")
        for point, rows in zip(group, group_rows, strict=True):
            write_point(cache_dir, point, rows, code)
            results[point_key(point)] = rows
        bar.update(len(group))

    if executor is None:
        for group in groups:
            if budget is not None and not budget.allows_group(len(group)):
                budget.stopped = True
                break
            started = time.monotonic()
            # training runs of the group save their state and pause before the deadline
            with resume.group_checkpoint(paused_prefix(cache_dir, group, code),
                                         None if budget is None else budget.deadline) as saved:
                try:
                    group_rows = evaluate(group)
                except resume.Paused:
                    if budget is not None:
                        budget.stopped = True
                    break
            store(group, group_rows)
            saved.clear()
            if budget is not None and not saved.resumed:  # a resumed group ran only its rest
                budget.record_group(len(group), time.monotonic() - started)
    else:
        from memnb.distributed import map_groups

        for group, group_rows in map_groups(executor, evaluate, groups, budget):
            store(group, group_rows)
            if budget is not None and budget.left() <= 0:
                budget.stopped = True  # groups still on the cluster are not waited for
                break
    bar.close()

    table = []
    for point in points:
        for row in results.get(point_key(point), []):
            table.append({**point, **row})
    if budget is not None:
        budget.done += sum(point_key(p) in results for p in points)
        budget.missing += [p for p in points if point_key(p) not in results]
    return pd.DataFrame(table)


def training_sweep(train_group: Callable[..., list[Rows]], group_key: Callable[[Point], Hashable],
                   points: Sequence[Point], *, device: str, cache_dir: Path | str,
                   executor: str | None = None, desc: str = "sweep") -> pd.DataFrame:
    """:func:`run_sweep` for a chapter's training grid: points grouped by ``group_key`` and each
    group trained as one packed stack by ``train_group(group, device=device)``."""
    return run_sweep(points, functools.partial(train_group, device=device), cache_dir=cache_dir,
                     group_key=group_key, executor=executor, desc=desc)
