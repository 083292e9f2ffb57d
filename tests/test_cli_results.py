"""The command line and cached results with provenance (on the Dana ci profile)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from memnb import cli
from memnb.experiments.registry import get, load_all
from memnb.results import check_device, load, run_experiment


def test_list_shows_every_experiment_with_profiles(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for name in load_all():
        assert name in out
    assert "dana.exp1" in out and "quick" in out and "full" in out


def test_run_writes_csv_and_provenance(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "dana.exp6", "--profile", "ci", "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    csv_path = tmp_path / "ci" / "dana.exp6.csv"
    assert str(csv_path) in out
    table = pd.read_csv(csv_path)
    assert set(table["H"]) == set(get("dana.exp6").params("ci")["H"])
    assert table["accuracy"].between(0, 1).all()
    provenance = json.loads((tmp_path / "ci" / "dana.exp6.json").read_text())
    for key in ("command", "profile", "device", "git_commit", "wall_time_s", "params", "seeds"):
        assert key in provenance
    assert provenance["profile"] == "ci" and provenance["seeds"] == 1


def test_rerun_reuses_cached_points(tmp_path):
    first = run_experiment("dana.exp1", "ci", seeds=1, root=tmp_path)
    second = run_experiment("dana.exp1", "ci", seeds=1, root=tmp_path)
    pd.testing.assert_frame_equal(first.table, second.table)
    assert second.provenance["wall_time_s"] < first.provenance["wall_time_s"]
    assert load("dana.exp1", "ci", root=tmp_path) is not None
    assert load("dana.exp2", "ci", root=tmp_path) is None


def test_bad_arguments(capsys):
    assert cli.main(["run", "dana.nope", "--profile", "ci"]) == 2
    assert "unknown experiment" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["run", "dana.exp1", "--profile", "huge"])
    with pytest.raises(ValueError, match="device"):
        check_device("tpu")
    with pytest.raises(ValueError, match="profile must be one of"):
        get("dana.exp1").params("huge")
