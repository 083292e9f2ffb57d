"""The float32-vs-TF32 comparison (``scripts/precision_check.py``) and the switch it uses,
checked on the CPU, where TF32 changes nothing: the tables must agree exactly there."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from script_loader import load_script

from memnb import results, train
from memnb.scorecard.core import Row


def _script():
    return load_script("scripts/precision_check.py", "precision_check")


def test_tf32_runs_is_scoped_and_kept_out_of_the_float32_results():
    assert not train.tf32_forced()
    with train.tf32_runs():
        assert train.tf32_forced()
        with pytest.raises(ValueError, match="results folder of its own"):
            results.run_experiment("dana.exp2", "ci", device="cuda")
    assert not train.tf32_forced()


def test_table_differences_compares_the_same_points_row_by_row():
    check = _script()
    a = pd.DataFrame({"H": [1, 2], "model": ["aot", "aot"], "accuracy": [0.5, 0.75],
                      "memorized": [True, False]})
    same = check.table_differences(a, a.copy())
    assert same == {"largest": {"H": 0.0, "accuracy": 0.0, "memorized": 0.0},
                    "rows_differing": {}}
    moved = check.table_differences(a, a.assign(accuracy=[0.5, 0.7], memorized=[True, True]))
    assert moved["largest"]["accuracy"] == pytest.approx(0.05)
    assert moved["largest"]["memorized"] == 1.0  # a flag TF32 flips is a result, not an error
    assert moved["rows_differing"] == {"accuracy": 1, "memorized": 1}
    assert check.table_differences(a, a.assign(model=["aot", "mlp"]))["rows_differing"] == {
        "model": 1}
    with pytest.raises(ValueError, match="same columns and rows"):
        check.table_differences(a, a.iloc[:1])


def test_verdict_changes_names_the_items_whose_status_moved(monkeypatch, tmp_path):
    check = _script()

    def rows(status):
        return [Row("P", "Fig. 1", "c", "k", "m", "e", "reproduced"),
                Row("P", "Fig. 2", "c", "k", "m", "e", status)]

    monkeypatch.setattr(check, "build_scorecard",
                        lambda profile, root: rows("trend" if root.name == "tf32" else "differs"))
    changes = check.verdict_changes(tmp_path / "float32", tmp_path / "tf32", "quick")
    assert changes == [{"paper": "P", "item": "Fig. 2", "float32": "differs", "tf32": "trend"}]


def test_the_comparison_on_the_cpu_finds_no_difference_and_allows_tf32(tmp_path):
    check = _script()
    assert check.main(["--experiments", "dana.exp2", "--profile", "ci", "--device", "cpu",
                       "--out", str(tmp_path)]) == 2  # TF32 acts on CUDA only
    assert check.main(["--experiments", "dana.exp2", "--profile", "ci", "--device", "cpu",
                       "--allow-cpu", "--out", str(tmp_path)]) == 0
    record = json.loads((tmp_path / "precision_check.json").read_text())
    differences = record["runs"]["dana.exp2"]["largest_difference"]
    assert "accuracy" in differences and set(differences.values()) == {0.0}
    assert record["runs"]["dana.exp2"]["rows_differing"] == {}
    assert record["tf32_allowed"] and record["verdict_changes"] == []
    for precision in ("float32", "tf32"):  # each run in its own folder, none in data/results
        provenance = json.loads((tmp_path / precision / "ci" / "dana.exp2.json").read_text())
        assert provenance["matmul_precision"] == "float32"  # on the CPU TF32 does not apply


@pytest.mark.parametrize(("argv", "said"), [
    (["--experiments", "dana.exp2", "nope.x"], "unknown experiment 'nope.x'"),
    (["--experiments", "dana"], "'dana' is a chapter"),
    (["--seeds", "0"], f"seeds must be in 1..{results.MAX_SEEDS}, got 0"),
])
def test_names_and_seeds_are_checked_before_any_run(monkeypatch, capsys, tmp_path, argv, said):
    """A mistyped second name is found before the first experiment runs in both precisions;
    a bad name or --seeds ends with one line and exit code 2, not a traceback."""
    check = _script()
    ran = []
    monkeypatch.setattr(check, "run_experiment", lambda *a, **k: ran.append(a))
    code = check.main([*argv, "--device", "cpu", "--allow-cpu", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and ran == [] and not (tmp_path / "precision_check.json").exists()
    assert err.startswith("precision_check.py: error: ") and said in err
    assert err.count("\n") == 1
