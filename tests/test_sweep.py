"""Sweep caching: resume after interruption, corrupted cache files, grouping, tidy output, the
cache keyed by the code that computes a point, and sweeps stopped at a time limit."""

from __future__ import annotations

import json
import time

import pytest

from memnb import fingerprint
from memnb.budget import TimeBudget, time_limit
from memnb.fingerprint import code_fingerprint, code_modules
from memnb.sweep import (
    cache_path,
    grid,
    point_key,
    run_sweep,
)


class Interrupted(RuntimeError):
    pass


def _square(group, calls, fail_on=None):
    calls.append([p["x"] for p in group])
    out = []
    for p in group:
        if fail_on is not None and p["x"] == fail_on:
            raise Interrupted(f"stopped at x={p['x']}")
        out.append([{"y": p["x"] ** 2 + p["seed"]}])
    return out


def test_grid_and_key():
    points = grid(x=[1, 2], seed=[0, 1])
    assert points == [{"x": 1, "seed": 0}, {"x": 1, "seed": 1}, {"x": 2, "seed": 0},
                      {"x": 2, "seed": 1}]
    assert point_key({"a": 1, "b": 2}) == point_key({"b": 2, "a": 1})
    with pytest.raises(ValueError, match="axis 'x'"):
        grid(x=[])


def test_resume_after_interruption_recomputes_only_missing(tmp_path):
    points = grid(x=list(range(6)), seed=[0])
    calls: list = []
    with pytest.raises(Interrupted):
        run_sweep(points, lambda g: _square(g, calls, fail_on=4), cache_dir=tmp_path,
                  progress=False)
    assert len(list(tmp_path.glob("*.json"))) == 4  # points 0..3 were cached as they finished
    calls.clear()
    table = run_sweep(points, lambda g: _square(g, calls), cache_dir=tmp_path, progress=False)
    assert calls == [[4], [5]]
    assert table["y"].tolist() == [x * x for x in range(6)]
    assert list(table.columns) == ["x", "seed", "y"]


def test_corrupted_cache_is_recomputed(tmp_path):
    points = grid(x=[1, 2, 3], seed=[0])
    calls: list = []
    run_sweep(points, lambda g: _square(g, calls), cache_dir=tmp_path, progress=False)
    code = code_fingerprint(code_modules(None))  # the lambda lives outside memnb: core modules
    bad = cache_path(tmp_path, points[1], code)
    bad.write_text(bad.read_text()[:-7])  # truncated file
    tampered = cache_path(tmp_path, points[2], code)
    payload = json.loads(tampered.read_text())
    payload["rows"][0]["y"] = -1  # checksum no longer matches
    tampered.write_text(json.dumps(payload))
    calls.clear()
    with pytest.warns(UserWarning, match="corrupted"):
        table = run_sweep(points, lambda g: _square(g, calls), cache_dir=tmp_path,
                          progress=False)
    assert sorted(c[0] for c in calls) == [2, 3]
    assert table["y"].tolist() == [1, 4, 9]


def test_groups_pack_compatible_points(tmp_path):
    points = grid(x=[1, 2, 3, 4], seed=[0, 1])
    calls: list = []
    run_sweep(points, lambda g: _square(g, calls), cache_dir=tmp_path,
              group_key=lambda p: p["x"] % 2, max_group_size=3, progress=False)
    assert sorted(len(c) for c in calls) == [1, 1, 3, 3]
    assert all(len({x % 2 for x in c}) == 1 for c in calls)


def test_duplicate_points_rejected(tmp_path):
    with pytest.raises(ValueError, match="distinct"):
        run_sweep([{"x": 1}, {"x": 1}], lambda g: [], cache_dir=tmp_path, progress=False)


def test_wrong_result_count_is_an_error(tmp_path):
    with pytest.raises(RuntimeError, match="returned 0 results"):
        run_sweep([{"x": 1}], lambda g: [], cache_dir=tmp_path, progress=False)


def _fake_module(root, text: str) -> None:
    package = root / "fake_memnb_code"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(text)


def test_cache_is_keyed_by_the_code_that_computes_the_points(tmp_path, monkeypatch):
    """A changed source file of a fingerprinted module recomputes; an unchanged one (or one
    changed only in comments and blank lines) reuses the cached points."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(fingerprint, "CORE_MODULES", ("fake_memnb_code",))
    _fake_module(tmp_path, "def width():\n    return 3\n")
    points = grid(x=[1, 2], seed=[0])
    calls: list = []
    cache = tmp_path / "cache"
    run_sweep(points, lambda g: _square(g, calls), cache_dir=cache, progress=False)
    assert len(calls) == 2
    calls.clear()
    run_sweep(points, lambda g: _square(g, calls), cache_dir=cache, progress=False)
    assert calls == []  # unchanged code: reused
    _fake_module(tmp_path, "# a comment\n\ndef width():  \n    return 3\n")
    run_sweep(points, lambda g: _square(g, calls), cache_dir=cache, progress=False)
    assert calls == []  # comments, blank lines and trailing spaces are not code
    _fake_module(tmp_path, "def width():\n    return 4\n")
    table = run_sweep(points, lambda g: _square(g, calls), cache_dir=cache, progress=False)
    assert sorted(c[0] for c in calls) == [1, 2]  # changed code: every point recomputed
    assert table["y"].tolist() == [1, 4]
    payloads = [json.loads(p.read_text()) for p in cache.glob("*.json")]
    assert len({p["code"] for p in payloads}) == 2  # both versions are kept, each under its key


def test_time_limit_stops_between_groups_and_keeps_every_finished_point(tmp_path):
    points = grid(x=list(range(8)), seed=[0])
    calls: list = []

    def slow(group):
        time.sleep(0.15)
        return _square(group, calls)

    with time_limit(0.5) as budget:
        partial = run_sweep(points, slow, cache_dir=tmp_path, progress=False)
    assert budget.stopped and 1 <= budget.done < len(points)
    assert budget.done + len(budget.missing) == len(points)
    assert partial["x"].tolist() == [c[0] for c in calls]  # the table holds the finished points
    assert len(list(tmp_path.glob("*.json"))) == budget.done  # each of them cached
    calls.clear()
    table = run_sweep(points, slow, cache_dir=tmp_path, progress=False)
    assert sorted(c[0] for c in calls) == sorted(p["x"] for p in budget.missing)
    assert table["y"].tolist() == [x * x for x in range(8)]
    with pytest.raises(ValueError, match="time limit"), time_limit(0):
        pass


def test_time_budget_scales_its_estimate_with_the_group_size():
    budget = TimeBudget(deadline=time.monotonic() + 100.0)
    assert budget.estimate_s(30) == 0.0 and budget.allows_group(30)  # nothing measured yet
    budget.record_group(30, 150.0)  # 5 s a point
    budget.record_group(5, 10.0)  # 2 s a point: the slowest rate seen is kept
    assert budget.seconds_per_point == 5.0
    assert budget.estimate_s(5) == 25.0 and budget.estimate_s(60) == 300.0
    assert budget.allows_group(5)  # 25 s of ~100 s left, though a 150 s group was seen
    assert not budget.allows_group(30)
    with pytest.raises(ValueError, match="points must be >= 1"):
        budget.allows_group(0)
    with pytest.raises(ValueError, match="points must be >= 1"):
        budget.record_group(0, 1.0)


def test_a_small_group_starts_after_a_large_one_when_its_scaled_estimate_fits(tmp_path,
                                                                               monkeypatch):
    """A sweep asks the budget with each group's size: after a group of 4 points, a group of 1
    point at the same rate starts where the 4-point group's whole time would not fit, and does
    not where the 1-point estimate does not fit either (a simulated clock: 0.1 s a point)."""
    clock = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    points = [{"x": x, "seed": 0} for x in range(5)]

    def timed(group):
        clock[0] += 0.1 * len(group)
        return [[{"y": p["x"]}] for p in group]

    def run(limit: float, cache: str):
        clock[0] = 0.0
        with time_limit(limit) as budget:  # groups: x = 0..3 together, then x = 4 alone
            table = run_sweep(points, timed, cache_dir=tmp_path / cache, progress=False,
                              group_key=lambda p: p["x"] == 4, code="c0")
        return budget, table

    budget, table = run(0.55, "fits")  # 0.15 s left after the first group: 0.1 s needed
    assert not budget.stopped and table["x"].tolist() == [0, 1, 2, 3, 4]
    assert budget.seconds_per_point == pytest.approx(0.1)
    budget, table = run(0.45, "short")  # 0.05 s left: the last group does not start
    assert budget.stopped and table["x"].tolist() == [0, 1, 2, 3]
    assert [p["x"] for p in budget.missing] == [4]
