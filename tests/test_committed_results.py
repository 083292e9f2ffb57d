"""The committed full-scale results (``data/results/full/``) are what ``memnb run`` wrote.

Each table has its provenance, of a registered experiment, with as many rows as it says. A
partial run (stopped at its time limit) is committed with its point cache, so that the next
session resumes it from a fresh clone: the cache holds at least the finished points, computed by
the code the provenance names, with valid checksums. A complete run commits no cache (it would
only weigh on every clone); for a partial run of an earlier profile, whose points a rerun may
not reuse, the cache is optional. A rerun under way (``data/results/rerun/full/``,
:mod:`memnb.reruns`) is committed like a partial run.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from memnb.experiments.registry import load_all
from memnb.paths import repo_root
from memnb.provenance import profile_change
from memnb.reruns import mark_rerun, rerun_reason, rerun_root
from memnb.results import point_cache_dir, result_paths, todays_code
from memnb.sweep import read_point, write_point

FULL = repo_root() / "data" / "results" / "full"
PROVENANCE = sorted(FULL.glob("*.json"))
SUPERSEDED = sorted((FULL / "superseded").glob("*.json"))
RERUN_FULL = rerun_root(repo_root() / "data" / "results") / "full"
RERUNS = sorted(RERUN_FULL.glob("*.json"))


def _tracked(folder: Path) -> list[Path]:
    """The files below ``folder`` that git tracks (``[]`` outside a git checkout)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", str(folder)], cwd=repo_root(),
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: which cache files are committed is unknown")
    return [repo_root() / name for name in out.split("\0") if name]


@pytest.mark.parametrize("path", PROVENANCE, ids=[p.stem for p in PROVENANCE])
def test_each_full_table_has_provenance_of_a_registered_experiment(path: Path) -> None:
    provenance = json.loads(path.read_text())
    assert provenance["experiment"] == path.stem and path.stem in load_all()
    assert provenance["profile"] == "full"
    assert provenance["git_commit"] and provenance["device_name"]
    table = pd.read_csv(path.with_suffix(".csv"))
    assert len(table) == provenance["rows"]


def _assert_partial_cache_committed(provenance: dict, folder: Path, name: str,
                                    committed: Callable[[Path], list[Path]] = _tracked) -> None:
    """A partial run's point cache, committed in ``folder`` (``committed`` lists the committed
    files below a folder), holds at least its finished points, computed by the code its
    provenance names, with valid checksums."""
    cached = [f for f in committed(folder) if f.suffix == ".json"]
    code = provenance["code_fingerprint"]
    valid = 0
    for file in cached:
        payload = json.loads(file.read_text())
        rows = read_point(file.parent, payload["point"], payload["code"])
        assert rows is not None, f"{file.name}: checksum, point or name does not match"
        valid += payload["code"] == code
    assert valid >= provenance["points_done"], (
        f"{name} is partial with {provenance['points_done']} points done, but only {valid} "
        f"committed point files were computed by its code {code}: commit its cache "
        f"(git add -f {_shown(folder)}/*.json)")


def _shown(folder: Path) -> Path:
    """``folder`` relative to the checkout where it lies in it."""
    return folder.relative_to(repo_root()) if folder.is_relative_to(repo_root()) else folder


@pytest.mark.parametrize("path", PROVENANCE, ids=[p.stem for p in PROVENANCE])
def test_partial_runs_commit_their_point_cache_and_complete_runs_none(path: Path) -> None:
    provenance = json.loads(path.read_text())
    folder = FULL / ".cache" / path.stem
    if provenance.get("complete", True):
        cached = [f for f in _tracked(folder) if f.suffix == ".json"]
        assert cached == [], f"{path.stem} is complete: its point cache need not be committed"
        return
    if profile_change(provenance) is not None:
        return  # an earlier profile's points, of which a rerun may reuse none: cache optional
    _assert_partial_cache_committed(provenance, folder, path.stem)


def _assert_committed_rerun(path: Path, full: Path,
                            committed: Callable[[Path], list[Path]] = _tracked) -> None:
    """The rerun whose provenance is ``path`` is partial, with its point cache committed
    (``committed``), and recomputes the result in ``full`` that its ``rerun_of`` names, a
    result due for a rerun."""
    provenance = json.loads(path.read_text())
    name = path.stem
    assert provenance["experiment"] == name and name in load_all()
    assert provenance["profile"] == "full"
    assert len(pd.read_csv(path.with_suffix(".csv"))) == provenance["rows"]
    assert provenance["complete"] is False, f"{name}: a complete rerun is adopted (adopt_rerun)"
    replaced = json.loads((full / f"{name}.json").read_text())
    assert provenance["rerun_of"]["code_fingerprint"] == replaced["code_fingerprint"]
    assert rerun_reason(name, replaced) is not None
    _assert_partial_cache_committed(provenance, path.parent / ".cache" / name, name, committed)


@pytest.mark.parametrize("path", RERUNS, ids=[p.stem for p in RERUNS])
def test_a_committed_rerun_is_partial_resumable_and_replaces_a_result_due_for_one(
        path: Path) -> None:
    """A rerun under way (:mod:`memnb.reruns`) is committed only while partial (a complete one
    is adopted into ``full/``), with its point cache, and recomputes a committed full result
    that is due for a rerun, the one its ``rerun_of`` names."""
    _assert_committed_rerun(path, FULL)


def _on_disk(folder: Path) -> list[Path]:
    """Every file below ``folder`` (the synthetic results below count as committed)."""
    return sorted(f for f in folder.rglob("*") if f.is_file()) if folder.is_dir() else []


@pytest.mark.parametrize("broken", [None, "complete", "other rerun_of", "not due",
                                    "point missing", "point corrupted", "rows"])
def test_the_rerun_checks_on_a_synthetic_rerun(tmp_path: Path, broken: str | None) -> None:
    """The checks of the committed reruns, on a partial rerun written in ``tmp_path`` in
    memnb's layout (``data/results`` commits none at present, which leaves the test above
    without a case): they pass on a well-formed one and fail on each way one can be wrong."""
    name, profile = "kajitsuka.seq_len", "full"
    today = json.loads(json.dumps(load_all()[name].params(profile), default=str))
    earlier = {"experiment": name, "profile": profile, "params": today,
               "code_fingerprint": "0123456789abcdef", "git_commit": "abc",
               "started_utc": "2025-01-01T00:00:00+00:00"}
    if broken == "not due":  # today's code and profile: nothing to rerun
        earlier["code_fingerprint"] = todays_code(name)
    full_json = result_paths(name, profile, tmp_path)[1]
    full_json.parent.mkdir(parents=True)
    full_json.write_text(json.dumps(earlier))

    code = todays_code(name)
    rerun = rerun_root(tmp_path)
    csv_path, json_path = result_paths(name, profile, rerun)
    points = [{"n": n, "seed": 0} for n in (2, 8)]
    rows = [[{"accuracy": 0.5 + i / 4}] for i in range(len(points))]
    table = pd.DataFrame([{**p, **r[0]} for p, r in zip(points, rows, strict=True)])
    csv_path.parent.mkdir(parents=True)
    table.to_csv(csv_path, index=False)
    json_path.write_text(json.dumps({
        "experiment": name, "profile": profile, "params": today, "code_fingerprint": code,
        "rows": len(table) + (broken == "rows"), "complete": broken == "complete",
        "points_done": len(points)}))
    mark_rerun(name, profile, {**earlier, "code_fingerprint": "fedcba9876543210"}
               if broken == "other rerun_of" else earlier, "computed by earlier code", tmp_path)
    cache = point_cache_dir(name, profile, rerun)
    files = [write_point(cache, p, r, code) for p, r in zip(points, rows, strict=True)]
    if broken == "point missing":
        files[0].unlink()
    if broken == "point corrupted":
        payload = json.loads(files[1].read_text())
        files[1].write_text(json.dumps({**payload, "rows": [{"accuracy": 0.0}]}))

    if broken is None:
        _assert_committed_rerun(json_path, full_json.parent, _on_disk)
        return
    with pytest.raises(AssertionError), pytest.warns() if broken == "point corrupted" else \
            contextlib.nullcontext():
        _assert_committed_rerun(json_path, full_json.parent, _on_disk)


@pytest.mark.parametrize("path", SUPERSEDED, ids=[p.stem for p in SUPERSEDED])
def test_each_superseded_table_is_kept_under_the_code_that_computed_it(path: Path) -> None:
    """A result replaced by a run of other code or of another profile
    (:func:`memnb.results.supersede`) keeps its table and provenance, named by its experiment and
    code fingerprint, and differs in code or parameters from the committed result that replaced
    it."""
    provenance = json.loads(path.read_text())
    name, code = provenance["experiment"], provenance["code_fingerprint"]
    assert path.name == f"{name}.{code}.json" and name in load_all()
    assert provenance["profile"] == "full"
    assert len(pd.read_csv(path.with_suffix(".csv"))) == provenance["rows"]
    current = FULL / f"{name}.json"
    assert current.exists(), f"{path.name}: no committed result of {name} replaced it"
    today = json.loads(current.read_text())
    assert today["code_fingerprint"] != code or today["params"] != provenance["params"]
