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

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from memnb.experiments.registry import load_all
from memnb.paths import repo_root
from memnb.provenance import profile_change
from memnb.reruns import rerun_reason, rerun_root
from memnb.sweep import read_point

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


def _assert_partial_cache_committed(provenance: dict, folder: Path, name: str) -> None:
    """A partial run's point cache, committed in ``folder``, holds at least its finished points,
    computed by the code its provenance names, with valid checksums."""
    cached = [f for f in _tracked(folder) if f.suffix == ".json"]
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
        f"(git add -f {folder.relative_to(repo_root())}/*.json)")


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


@pytest.mark.parametrize("path", RERUNS, ids=[p.stem for p in RERUNS])
def test_a_committed_rerun_is_partial_resumable_and_replaces_a_result_due_for_one(
        path: Path) -> None:
    """A rerun under way (:mod:`memnb.reruns`) is committed only while partial (a complete one
    is adopted into ``full/``), with its point cache, and recomputes a committed full result
    that is due for a rerun, the one its ``rerun_of`` names."""
    provenance = json.loads(path.read_text())
    name = path.stem
    assert provenance["experiment"] == name and name in load_all()
    assert provenance["profile"] == "full"
    assert len(pd.read_csv(path.with_suffix(".csv"))) == provenance["rows"]
    assert provenance["complete"] is False, f"{name}: a complete rerun is adopted (adopt_rerun)"
    replaced = json.loads((FULL / f"{name}.json").read_text())
    assert provenance["rerun_of"]["code_fingerprint"] == replaced["code_fingerprint"]
    assert rerun_reason(name, replaced) is not None
    _assert_partial_cache_committed(provenance, RERUN_FULL / ".cache" / name, name)


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
    if current.exists():
        today = json.loads(current.read_text())
        assert today["code_fingerprint"] != code or today["params"] != provenance["params"]
