"""A grid of runs into a tidy table, each point cached as soon as it is computed.

A *point* is a JSON-serialisable dict of parameters (including its seed). ``run_sweep`` looks up
every point in a cache folder (one JSON file per point, named by a hash of the point, holding the
point, its result rows and a checksum of those rows). Missing or corrupted points are computed,
in groups chosen by ``group_key`` so that compatible points can be trained together as one packed
stack of models, and each point's file is written atomically as soon as its group finishes. An
interrupted sweep therefore loses only the group in flight, and rerunning it computes only the
missing points.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import warnings
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

Point = dict[str, Any]
Rows = list[dict[str, Any]]
GroupEvaluator = Callable[[list[Point]], list[Rows]]


def point_key(point: Mapping[str, Any]) -> str:
    """A stable hash naming ``point`` (order of keys does not matter)."""
    text = json.dumps(point, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _rows_digest(rows: Rows) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def cache_path(cache_dir: Path, point: Mapping[str, Any]) -> Path:
    """The file that holds the cached result of ``point``."""
    return Path(cache_dir) / f"{point_key(point)}.json"


def write_point(cache_dir: Path, point: Mapping[str, Any], rows: Rows) -> Path:
    """Write one point's rows atomically (temporary file, then rename)."""
    path = cache_path(cache_dir, point)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"point": dict(point), "rows": rows, "sha256": _rows_digest(rows)}
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(payload))  # rows keep their column order
    os.replace(tmp, path)
    return path


def read_point(cache_dir: Path, point: Mapping[str, Any]) -> Rows | None:
    """The cached rows of ``point``; ``None`` if absent or corrupted (a warning says which)."""
    path = cache_path(cache_dir, point)
    if not path.exists():
        return None
    try:
        payload = json.loads(path.read_text())
        rows = payload["rows"]
        ok = payload["sha256"] == _rows_digest(rows) and payload["point"] == json.loads(
            json.dumps(dict(point), sort_keys=True, default=str))
    except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
        ok = False
    if not ok:
        warnings.warn(f"cache file {path.name} is corrupted; recomputing that point", stacklevel=2)
        return None
    return rows


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
) -> pd.DataFrame:
    """Evaluate every point of ``points`` (cached), return one tidy table.

    ``evaluate(group)`` receives a list of points that share ``group_key`` (at most
    ``max_group_size``) and returns, for each point in order, its list of result rows (dicts).
    Each row is joined with its point's parameters in the returned table. ``executor`` is
    ``None`` (in-process) or ``"dask://HOST:PORT"`` (a ``dask.distributed`` scheduler), in which
    case each group is a task on the cluster and results are cached here as they arrive.
    """
    if len({point_key(p) for p in points}) != len(points):
        raise ValueError("points must be distinct (two points of the sweep are identical)")
    if max_group_size is not None and max_group_size < 1:
        raise ValueError(f"max_group_size must be >= 1 or None; got {max_group_size}")
    cache_dir = Path(cache_dir)
    results: dict[str, Rows] = {}
    missing: list[Point] = []
    for point in points:
        rows = read_point(cache_dir, point)
        if rows is None:
            missing.append(point)
        else:
            results[point_key(point)] = rows

    groups = _groups(missing, group_key, max_group_size) if missing else []
    bar = tqdm(total=len(points), initial=len(points) - len(missing), desc=desc,
               disable=not progress)

    def store(group: list[Point], group_rows: list[Rows]) -> None:
        if len(group_rows) != len(group):
            raise RuntimeError(
                f"evaluate returned {len(group_rows)} results for a group of {len(group)} points")
        for point, rows in zip(group, group_rows, strict=True):
            write_point(cache_dir, point, rows)
            results[point_key(point)] = rows
        bar.update(len(group))

    if executor is None:
        for group in groups:
            store(group, evaluate(group))
    else:
        from memnb.distributed import map_groups

        for group, group_rows in map_groups(executor, evaluate, groups):
            store(group, group_rows)
    bar.close()

    table = []
    for point in points:
        for row in results[point_key(point)]:
            table.append({**point, **row})
    return pd.DataFrame(table)


def training_sweep(train_group: Callable[..., list[Rows]], group_key: Callable[[Point], Hashable],
                   points: Sequence[Point], *, device: str, cache_dir: Path | str,
                   executor: str | None = None, desc: str = "sweep") -> pd.DataFrame:
    """:func:`run_sweep` for a chapter's training grid: points grouped by ``group_key`` and each
    group trained as one packed stack by ``train_group(group, device=device)``."""
    return run_sweep(points, functools.partial(train_group, device=device), cache_dir=cache_dir,
                     group_key=group_key, executor=executor, desc=desc)
