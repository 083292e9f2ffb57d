"""The cost planner: the grid is read without training, FLOPs are counted on a real step, and
the plan adds up the steps each point would run."""

from __future__ import annotations

import dataclasses
import time

import pandas as pd
import pytest
import torch

from memnb import cli, planner
from memnb.experiments import registry
from memnb.sweep import grid, run_sweep
from memnb.train import StepCost, TrainConfig, measure_step, train_members


@pytest.mark.parametrize("batch, eval_rows", [(None, 2048), (8, 2048), (8, 10)])
def test_flops_of_one_step_and_one_evaluation_match_the_matrix_products(tiny_classifier, batch,
                                                                        eval_rows):
    n, d, width, classes, members = 24, 6, 16, 4, 3
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(n, d, generator=g), torch.randint(classes, (n,), generator=g)
    models = [tiny_classifier(d, width, classes, seed=s) for s in range(members)]
    cost, untrained = measure_step(models, x, y, TrainConfig(steps=10, batch_size=batch),
                                   eval_rows=eval_rows)  # 10: measured on 10 rows, scaled
    b = n if batch is None else batch
    first, second = 2 * d * width, 2 * width * classes  # FLOPs per sample of the two products
    # forward: both products; backward: the second twice (input and weight), the first once
    # (the data needs no gradient)
    assert cost.step_flops == members * b * (2 * first + 3 * second)
    assert cost.eval_flops == members * n * (first + second)
    assert cost.step_s > 0 and cost.eval_s > 0
    assert untrained.history["step"].tolist() == [0] * members
    rows = min(n, eval_rows)
    with torch.no_grad():
        expected = torch.nn.functional.cross_entropy(models[1](x[:rows]), y[:rows])
    assert float(untrained.best_loss[1]) == pytest.approx(float(expected), rel=1e-6)


def test_capture_reads_the_grid_the_run_computes_without_training(monkeypatch, tmp_path):
    from memnb.experiments import dana, mahdavi
    from memnb.results import run_experiment

    table = run_experiment("dana.exp6", "ci", seeds=2, root=tmp_path).table

    def no_training(*args, **kwargs):
        raise AssertionError("the planner must not train while reading a grid")

    monkeypatch.setattr(dana, "train_members", no_training)
    started = time.perf_counter()
    captured = planner.capture_sweep("dana.exp6", "ci", seeds=2)
    assert time.perf_counter() - started < 10
    keys = list(captured.points[0])
    ran = {tuple(r) for r in table[keys].drop_duplicates().itertuples(index=False)}
    assert {tuple(p[k] for k in keys) for p in captured.points} == ran
    assert sum(len(g) for g in captured.groups) == len(captured.points)
    assert len(planner.capture_sweep("dana.exp1", "full").points) > len(captured.points)
    assert planner.trains(captured.evaluate)
    assert not planner.trains(mahdavi.assumption_group)


def _tiny_training_experiment(monkeypatch, tiny_classifier):
    """An experiment of 3 groups x 2 points; each group trains TinyClassifiers for the steps of
    its first point."""
    import sys
    import types

    module = types.ModuleType("memnb.experiments.tiny_plan")
    module.train_members, module.run_sweep = train_members, run_sweep  # as a chapter imports them

    def train_group(points, *, device="cpu"):
        x, y = torch.randn(20, 5), torch.randint(3, (20,))
        config = TrainConfig(steps=points[0]["steps"], eval_every=50, device=device)
        result = module.train_members([tiny_classifier(5, p["width"], 3) for p in points], x, y,
                                      config, progress=False)
        return [[{"accuracy": float(result.accuracy[k])}] for k in range(len(points))]

    train_group.__module__ = module.__name__
    module.train_group = train_group

    def fn(params, *, seeds, device, cache_dir, executor=None):
        points = grid(width=[4, 16, 32], steps=[100, 300], seed=list(range(seeds)))
        return module.run_sweep(points, train_group, cache_dir=cache_dir,
                                group_key=lambda p: p["width"], progress=False)

    fn.__module__ = module.__name__
    module.fn = fn
    monkeypatch.setitem(sys.modules, module.__name__, module)
    profiles = {p: {"seeds": 1} for p in ("ci", "quick", "full")}
    monkeypatch.setitem(registry._REGISTRY, "tiny.plan",
                        registry.Experiment("tiny.plan", "t", "none", profiles, fn))
    return module


def test_plan_counts_runs_model_steps_flops_and_time(monkeypatch, tiny_classifier):
    _tiny_training_experiment(monkeypatch, tiny_classifier)
    row = planner.plan_experiment("tiny.plan", "full", calibrate=3)
    assert (row.runs, row.groups, row.calibrated) == (6, 3, 3)
    # each group trains its two points with the first point's steps (100): members x steps
    assert row.model_steps == 3 * 2 * 100
    assert row.flops > 0 and row.wall_s > 0
    quick = planner.plan_experiment("tiny.plan", "full", calibrate=2)  # first and last group
    assert quick.calibrated == 2 and quick.model_steps == pytest.approx(row.model_steps)
    # every FLOP of this model is proportional to its width (4, 16, 32): the middle group,
    # interpolated between its neighbours, counts as width 18
    assert quick.flops / row.flops == pytest.approx((4 + 18 + 32) / (4 + 16 + 32), rel=1e-9)
    memo: dict = {}
    first = planner.plan_experiment("tiny.plan", "full", calibrate=2, memo=memo)
    again = planner.plan_experiment("tiny.plan", "full", calibrate=2, memo=memo)
    assert again.model_steps == first.model_steps and "its points are reused" in again.note


def test_plan_command_prints_a_table_and_rejects_unknown_targets(monkeypatch, tiny_classifier,
                                                                 capsys):
    _tiny_training_experiment(monkeypatch, tiny_classifier)
    assert cli.main(["plan", "tiny.plan", "--profile", "ci"]) == 0
    out = capsys.readouterr().out
    assert "`tiny.plan`" in out and "model-steps" in out and "FLOPs" in out
    assert cli.main(["plan", "tiny", "--profile", "ci", "--json"]) == 0
    assert '"experiment":"tiny.plan"' in capsys.readouterr().out.replace(" ", "")
    assert cli.main(["plan", "nosuchchapter"]) == 2
    assert "target must be" in capsys.readouterr().err


def test_durations_read_as_people_write_them():
    assert planner.format_duration(None) == "-"
    assert planner.format_duration(42.0) == "42.0 s"
    assert planner.format_duration(5400.0) == "1.5 h"
    assert planner.format_duration(3 * 86400.0) == "3.0 d"


def test_the_running_at_scale_page_includes_a_generated_plan_of_every_experiment():
    import json
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    page = (repo / "book" / "running_at_scale.md").read_text()
    assert "```{include} generated/plans.md" in page
    record = json.loads((repo / "data" / "plans" / "full.cpu.json").read_text())
    assert record["command"] == "python scripts/plan_table.py --device cpu"
    listed = {row["experiment"] for row in record["rows"]}
    known = set(registry.load_all())
    assert listed <= known, f"rows for experiments that no longer exist: {listed - known}"
    assert known <= listed, (f"not planned: {sorted(known - listed)}; regenerate with "
                             "`python scripts/plan_table.py --device cpu`")


def test_plan_tables_are_generated_from_the_record_with_the_runs_recorded_since(tmp_path):
    import json
    import sys
    from pathlib import Path

    book = Path(__file__).resolve().parent.parent / "book"
    if str(book) not in sys.path:
        sys.path.insert(0, str(book))
    from buildtools import reproducibility

    table = pd.DataFrame([
        planner.ExperimentPlan("dana.exp6", "Fig. 4", 120, 1, 1, 4.9e5, 2.7e11, 300.0).__dict__,
        planner.ExperimentPlan("dana.exp2", "Fig. 1b", 50, 10, 1, 4.9e5, 2.7e11, 300.0,
                               note="the grid of `dana.exp6` (its points are reused)").__dict__])
    record = planner.plan_record(table, command="python scripts/plan_table.py --device cpu",
                                 date="2026-01-01", git_commit="abcdef12345", device="cpu",
                                 device_name="CPU (x86_64, 1 threads)", planning_s=12.0)
    assert "recorded_s" not in record["rows"][0]
    plans = tmp_path / "plans"
    plans.mkdir()
    (plans / "full.cpu.json").write_text(json.dumps(record))
    results = tmp_path / "results"
    text = reproducibility.plans_markdown(plans, results)
    assert ("- CPU (x86_64, 1 thread): computed by `python scripts/plan_table.py --device cpu` "
            "on 2026-01-01") in text
    assert "| `dana.exp6`: Dana et al. Fig. 4 | 120 | 2.7e+11 | 5.0 min | - |" in text
    assert "estimated (CPU, 1 thread)" in text
    assert "| `dana.exp2`: Dana et al. Fig. 1b | 50 | 2.7e+11 | 5.0 min | - |" in text
    assert "counted once): 5.0 min (CPU, 1 thread)." in text  # a shared grid counted once
    # a run recorded after the plan appears in it, a partial one as such
    (results / "full").mkdir(parents=True)
    (results / "full" / "dana.exp6.csv").write_text("H\n1\n")
    (results / "full" / "dana.exp6.json").write_text(json.dumps(
        {"device_name": "CPU (x86_64, 2 threads)", "wall_time_s": 150.0,
         "total_wall_time_s": 240.0, "complete": False, "points_done": 60,
         "points_missing": 60}))
    text = reproducibility.plans_markdown(plans, results)
    assert "| 4.0 min (CPU, 2 threads; partial, 60 of 120 points) |" in text
    # a run resumed on two cards names each with its points, not the last card alone
    (results / "full" / "dana.exp6.json").write_text(json.dumps(
        {"device_name": "NVIDIA H200", "wall_time_s": 150.0, "total_wall_time_s": 240.0,
         "complete": False, "points_done": 60, "points_missing": 60,
         "invocations": [{"device_name": "NVIDIA H100 80GB HBM3", "points_done": 20},
                         {"device_name": "NVIDIA H200", "points_done": 60}]}))
    text = reproducibility.plans_markdown(plans, results)
    assert ("NVIDIA H100 80GB HBM3 (20 points) and NVIDIA H200 (40 points); partial, 60 of 120 "
            "points)") in text
    # an experiment that shares another's grid says so once its own result is written
    (results / "full" / "dana.exp2.csv").write_text("d_h\n1\n")
    (results / "full" / "dana.exp2.json").write_text(json.dumps({"wall_time_s": 0.1}))
    text = reproducibility.plans_markdown(plans, results)
    assert "| 5.0 min | the points of `dana.exp6`'s run |" in text
    # its provenance says it read every point from the cache (none computed): the same words
    (results / "full" / "dana.exp2.json").write_text(json.dumps(
        {"device_name": "CPU (x86_64, 2 threads)", "wall_time_s": 0.1, "cached_points_reused": 50,
         "points_computed": 0, "invocations": [{"wall_time_s": 0.1, "points_computed": 0,
                                                 "device_name": "CPU (x86_64, 2 threads)"}]}))
    text = reproducibility.plans_markdown(plans, results)
    assert "| 5.0 min | the points of `dana.exp6`'s run |" in text
    # a table on the same grid computed by a run of its own is timed like any other run
    (results / "full" / "dana.exp2.json").write_text(json.dumps(
        {"device_name": "CPU (x86_64, 2 threads)", "wall_time_s": 420.0,
         "cached_points_reused": 0, "points_computed": 50,
         "invocations": [{"wall_time_s": 420.0, "points_computed": 50,
                          "device_name": "CPU (x86_64, 2 threads)"}]}))
    text = reproducibility.plans_markdown(plans, results)
    assert "the points of `dana.exp6`'s run" not in text
    assert "| 5.0 min | 7.0 min (CPU, 2 threads) |" in text
    # recorded before points_computed was counted: no point read from the cache means its own
    (results / "full" / "dana.exp2.json").write_text(json.dumps(
        {"device_name": "CPU (x86_64, 2 threads)", "wall_time_s": 420.0,
         "cached_points_reused": 0}))
    assert "| 5.0 min | 7.0 min (CPU, 2 threads) |" in reproducibility.plans_markdown(
        plans, results)
    # a complete run of an earlier full profile is not today's grid
    (results / "full" / "dana.exp6.json").write_text(json.dumps(
        {"experiment": "dana.exp6", "profile": "full", "device_name": "CPU (x86_64, 2 threads)",
         "wall_time_s": 150.0, "complete": True,
         "params": {**registry.get("dana.exp6").params("full"), "older": 1}}))
    text = reproducibility.plans_markdown(plans, results)
    assert "| 2.5 min (CPU, 2 threads; an earlier `full` grid) |" in text
    assert "No plan has been recorded" in reproducibility.plans_markdown(tmp_path / "none")


def test_plans_of_two_devices_share_one_table_with_an_estimate_column_each(tmp_path):
    import json
    import sys
    from pathlib import Path

    book = Path(__file__).resolve().parent.parent / "book"
    if str(book) not in sys.path:
        sys.path.insert(0, str(book))
    from buildtools import reproducibility

    def record(device: str, name: str, seconds: float, note: str = "") -> dict:
        table = pd.DataFrame([
            planner.ExperimentPlan("dana.exp6", "Fig. 4", 120, 1, 1, 4.9e5, 2.7e11, seconds,
                                   note=note).__dict__,
            planner.ExperimentPlan("dana.exp3", "Fig. 2a", 55, 11, 1, 4.9e5, 2.1e12,
                                   2 * seconds).__dict__])
        return planner.plan_record(table, command=f"python scripts/plan_table.py --device "
                                   f"{device}", date="2026-01-02", git_commit="abcdef12345",
                                   device=device, device_name=name, planning_s=5.0)

    plans = tmp_path / "plans"
    plans.mkdir()
    # the GPU's file sorts first by name; the CPU's column still comes first
    (plans / "full.a-cuda.json").write_text(json.dumps(
        record("cuda", "NVIDIA H200", 6.0, note="a note of the GPU's plan")))
    (plans / "full.cpu.json").write_text(json.dumps(
        record("cpu", "CPU (x86_64, 2 threads)", 600.0)))
    text = reproducibility.plans_markdown(plans, tmp_path / "results")
    assert text.count("| experiment: paper item |") == 1
    assert ("| experiment: paper item | runs | FLOPs | estimated (CPU, 2 threads) | "
            "estimated (NVIDIA H200) | recorded run |") in text
    assert "| `dana.exp6`: Dana et al. Fig. 4 | 120 | 2.7e+11 | 10.0 min | 6.0 s | - |" in text
    assert "| `dana.exp3`: Dana et al. Fig. 2a | 55 | 2.1e+12 | 20.0 min | 12.0 s | - |" in text
    assert "counted once): 30.0 min (CPU, 2 threads), 18.0 s (NVIDIA H200)." in text
    assert "- NVIDIA H200: computed by `python scripts/plan_table.py --device cuda`" in text
    # a note that only one device's plan carries names that device
    assert "NVIDIA H200 plan only: a note of the GPU's plan" in text
    # FLOPs the plans disagree on are both shown, CPU first; a withdrawn count is left out
    gpu = json.loads((plans / "full.a-cuda.json").read_text())
    gpu["rows"][1]["flops"], gpu["rows"][0]["flops"] = 3.0e12, None
    (plans / "full.a-cuda.json").write_text(json.dumps(gpu))
    text = reproducibility.plans_markdown(plans, tmp_path / "results")
    assert "| `dana.exp3`: Dana et al. Fig. 2a | 55 | 2.1e+12 / 3.0e+12 | 20.0 min |" in text
    assert "| `dana.exp6`: Dana et al. Fig. 4 | 120 | 2.7e+11 | 10.0 min |" in text
    # a device's total names what it has no estimate for that another device has
    gpu["rows"][1]["wall_s"] = None
    (plans / "full.a-cuda.json").write_text(json.dumps(gpu))
    text = reproducibility.plans_markdown(plans, tmp_path / "results")
    assert "6.0 s (NVIDIA H200; without `dana.exp3`, not estimated there)." in text


@pytest.mark.parametrize("calibrate", [1, 0, 2.5, True])
def test_calibrate_must_count_at_least_the_first_and_last_group(calibrate):
    with pytest.raises(ValueError, match="calibrate must be an integer >= 2"):
        planner.plan_experiment("dana.exp1", "full", calibrate=calibrate)


def test_plan_command_rejects_a_calibration_below_two_groups(capsys):
    with pytest.raises(SystemExit):
        cli.main(["plan", "dana.exp1", "--calibrate", "1"])
    assert "must be an integer >= 2" in capsys.readouterr().err


def test_the_same_groups_are_calibrated_whatever_the_load(monkeypatch, tiny_classifier):
    """A count, not a time budget: a slow machine calibrates the groups a fast one does."""
    _tiny_training_experiment(monkeypatch, tiny_classifier)
    fast = planner.plan_experiment("tiny.plan", "full", calibrate=2)
    clock = iter(range(0, 10**6, 1000))
    monkeypatch.setattr(planner.time, "perf_counter", lambda: float(next(clock)))
    slow = planner.plan_experiment("tiny.plan", "full", calibrate=2)
    assert slow.calibrated == fast.calibrated == 2
    assert slow.flops == pytest.approx(fast.flops)


def test_the_plan_command_counts_a_shared_grid_once_and_names_its_source():
    own = planner.ExperimentPlan("dana.exp1", "Fig. 1a", 10, 1, 1, 1e3, 1e9, 60.0)
    shared = dataclasses.replace(own, experiment="dana.exp4", paper_figure="Fig. 2b",
                                 note="the grid of `dana.exp1` (its points are reused)",
                                 recorded_on="the points of `dana.exp1`'s run")
    text = planner.plan_markdown(pd.DataFrame([own.__dict__, shared.__dict__]),
                                 device_name="CPU")
    assert "| the points of `dana.exp1`'s run |" in text
    # the paper item as the book's tables name it (memnb.experiments.registry.paper_item)
    assert "| `dana.exp4` | Dana et al. Fig. 2b |" in text
    ours = dataclasses.replace(own, experiment="dana.exp5_code", paper_figure="Fig. 3")
    assert "| ours, beside Dana et al. Fig. 3 |" in planner.plan_markdown(
        pd.DataFrame([ours.__dict__]), device_name="CPU")
    assert "counted once): 1.0 min." in text
    # an experiment without an estimate is named, so the total does not read as covering it
    untimed = dataclasses.replace(own, experiment="mahdavi.table1", wall_s=float("nan"))
    text = planner.plan_markdown(pd.DataFrame([own.__dict__, untimed.__dict__]),
                                 device_name="CPU")
    assert ("counted once): 1.0 min; it leaves out the experiments without an estimate: "
            "`mahdavi.table1`.") in text
    assert planner.shared_grid_source(shared.note) == "dana.exp1"
    assert planner.shared_grid_source(own.note) is None


def test_planned_cost_reads_every_recorded_plan_cpu_first(tmp_path):
    import json

    def write(file: str, device: str, name: str, wall_s: float | None) -> None:
        row = {"experiment": "dana.exp6", "wall_s": wall_s}
        (tmp_path / file).write_text(json.dumps({"device": device, "device_name": name,
                                                 "rows": [row]}))

    assert planner.planned_cost("dana.exp6", folder=tmp_path / "none") is None
    write("a.json", "cuda", "NVIDIA H200", 30.0)
    write("b.json", "cpu", "CPU (x86_64, 2 threads)", 7200.0)
    assert planner.planned_cost("dana.exp6", folder=tmp_path) == (
        "planned: 2.0 h on CPU (x86_64, 2 threads), 30.0 s on NVIDIA H200")
    assert planner.planned_cost("dana.exp1", folder=tmp_path) is None  # not in the plans
    assert planner.planned_cost("dana.exp6", "quick", folder=tmp_path) is None  # full only
    write("a.json", "cuda", "NVIDIA H200", None)  # a withdrawn estimate
    assert planner.planned_cost("dana.exp6", folder=tmp_path) == (
        "planned: 2.0 h on CPU (x86_64, 2 threads)")
    # a plan of an adaptive search's first round says that it is not the whole run
    (tmp_path / "c.json").write_text(json.dumps({"device": "cpu", "device_name": "CPU", "rows": [
        {"experiment": "compare.capacity", "wall_s": 60.0, "note": planner.ADAPTIVE_NOTE}]}))
    assert planner.planned_cost("compare.capacity", folder=tmp_path) == (
        "planned: 1.0 min on CPU, for the first round of an adaptive search only (its later "
        "rounds add to it)")
    (tmp_path / "c.json").unlink()
    # a partial run recorded: the time it took so far follows the estimate
    results = tmp_path / "results" / "full"
    results.mkdir(parents=True)
    pd.DataFrame({"x": [1]}).to_csv(results / "dana.exp6.csv", index=False)
    (results / "dana.exp6.json").write_text(json.dumps(
        {"complete": False, "points_done": 65, "missing_points": [{"x": 2}] * 165,
         "total_wall_time_s": 13654.2, "device_name": "CPU (x86_64, 2 threads)"}))
    assert planner.planned_cost("dana.exp6", folder=tmp_path, root=tmp_path / "results") == (
        "planned: 2.0 h on CPU (x86_64, 2 threads); recorded so far: 3.8 h on CPU (x86_64, "
        "2 threads) for 65 of 230 points, already more than the 2.0 h planned for the whole "
        "run there (the plan's estimates are no bound)")
    (results / "dana.exp6.json").write_text(json.dumps(
        {"complete": False, "points_done": 65, "missing_points": [{"x": 2}] * 165,
         "total_wall_time_s": 3600.0, "device_name": "CPU (x86_64, 2 threads)"}))
    assert planner.planned_cost("dana.exp6", folder=tmp_path, root=tmp_path / "results") == (
        "planned: 2.0 h on CPU (x86_64, 2 threads); recorded so far: 1.0 h on CPU (x86_64, "
        "2 threads) for 65 of 230 points")


def test_a_plan_of_an_earlier_grid_says_so_on_the_page_and_in_planned_cost(tmp_path):
    import json
    import sys
    from pathlib import Path

    book = Path(__file__).resolve().parent.parent / "book"
    if str(book) not in sys.path:
        sys.path.insert(0, str(book))
    from buildtools import reproducibility

    runs, groups = planner.grid_counts("dana.exp6")
    assert runs == len(planner.capture_sweep("dana.exp6", "full").points) > 0
    table = pd.DataFrame([
        planner.ExperimentPlan("dana.exp6", "Fig. 4", runs, groups, 1, 4.9e5, 2.7e11,
                               300.0).__dict__,
        planner.ExperimentPlan("dana.exp3", "Fig. 2", 999, 7, 1, 4.9e5, 2.7e11, 600.0).__dict__])
    record = planner.plan_record(table, command="c", date="2026-01-01", git_commit="abc",
                                 device="cuda", device_name="NVIDIA H200", planning_s=1.0)
    (tmp_path / "full.cuda.json").write_text(json.dumps(record))
    plan = planner.plan_from_record(record).set_index("experiment")
    assert not plan.loc["dana.exp6", "earlier_grid"] and plan.loc["dana.exp3", "earlier_grid"]
    today = planner.grid_counts("dana.exp3")
    assert plan.loc["dana.exp3", "note"] == (
        f"planned for an earlier grid (999 runs in 7 groups, today {today[0]} in {today[1]}), "
        "not re-planned on this device since then")
    text = reproducibility.plans_markdown(tmp_path, tmp_path / "results")
    assert "| 10.0 min (earlier grid) |" in text and "| 5.0 min |" in text
    assert "| 2.7e+11 (earlier grid) |" in text  # the FLOPs of the earlier grid say so too
    assert "| 2.7e+11 |" in text
    assert "15.0 min (NVIDIA H200; with `dana.exp3` estimated for an earlier grid)" in text
    assert (f"`dana.exp3` (7 packed groups, 1 calibrated): planned for an earlier grid (999 "
            f"runs in 7 groups, today {today[0]} in {today[1]}), not re-planned on this device "
            "since then\n") in text  # one note, not split at a "; "
    withdrawn = {**record["rows"][1], "wall_s": None}  # no estimate: nothing to flag
    assert planner.earlier_grid(withdrawn) is None
    assert planner.planned_cost("dana.exp3", folder=tmp_path) == (
        "planned: 10.0 min on NVIDIA H200 (for an earlier grid)")
    assert planner.planned_cost("dana.exp6", folder=tmp_path) == "planned: 5.0 min on NVIDIA H200"


def test_merge_into_record_replaces_one_experiments_row_and_notes_why():
    def table(rows: list[tuple[str, float, str]]) -> pd.DataFrame:
        return pd.DataFrame([planner.ExperimentPlan(name, "Fig.", 10, 1, 1, 1.0, 2.0, wall,
                                                    note=note).__dict__
                             for name, wall, note in rows])

    record = planner.plan_record(table([("dana.exp6", 60.0, ""), ("dana.exp2", 30.0, "x")]),
                                 command="c", date="2026-01-01", git_commit="abc", device="cpu",
                                 device_name="CPU", planning_s=1.0)
    merged = planner.merge_into_record(
        record, table([("dana.exp2", 90.0, "x"), ("dana.exp3", 5.0, "")]), "re-planned alone")
    rows = {row["experiment"]: row for row in merged["rows"]}
    assert [row["experiment"] for row in merged["rows"]] == ["dana.exp6", "dana.exp2",
                                                             "dana.exp3"]
    assert rows["dana.exp6"] == record["rows"][0]  # untouched
    assert (rows["dana.exp2"]["wall_s"], rows["dana.exp2"]["note"]) == (90.0,
                                                                       "x; re-planned alone")
    assert rows["dana.exp3"]["note"] == "re-planned alone"
    assert merged["command"] == "c" and "recorded_s" not in rows["dana.exp3"]


def test_only_an_adaptive_search_is_labelled_one_by_its_declared_rounds_not_its_name():
    """``kajitsuka.capacity`` trains its whole grid of depths (one sweep): no "first round" label,
    though its name says capacity; ``compare.capacity`` declares several rounds of search in
    its ``full`` profile (one in ``ci``), and a recorded plan's label is derived again from the
    experiment when it is read."""
    assert planner.search_rounds("kajitsuka.capacity", "full") == 1
    assert planner.search_rounds("compare.capacity", "full") > 1
    assert planner.search_rounds("compare.capacity", "ci") == 1
    assert planner.search_rounds("no.such_experiment") == 1
    stored = f"others interpolated per point; {planner.ADAPTIVE_NOTE}"
    record = {"rows": [{"experiment": name, "note": stored}
                       for name in ("kajitsuka.capacity", "compare.capacity")]}
    notes = planner.plan_from_record(record).set_index("experiment")["note"]
    assert notes["kajitsuka.capacity"] == "others interpolated per point"
    assert notes["compare.capacity"] == stored
    assert planner.adaptive_note("compare.capacity", "") == planner.ADAPTIVE_NOTE


@pytest.mark.parametrize("args,said", [
    (["--target", "nosuch"], "target must be an experiment, a chapter"),
    (["--calibrate", "1"], "must be an integer >= 2"),
    (["--device", "tpu"], "device must be 'cpu' or 'cuda[:N]'"),
])
def test_the_plan_script_refuses_bad_arguments_with_a_message(args, said, capsys):
    """scripts/plan_table.py ends a bad --target, --calibrate or --device with exit code 2 and
    the message, before anything is planned."""
    from script_loader import load_script

    script = load_script("scripts/plan_table.py", "plan_table")
    with pytest.raises(SystemExit) as stop:
        script.main(args)
    assert stop.value.code == 2 and said in capsys.readouterr().err


def test_a_step_estimated_over_the_memory_share_is_timed_on_fewer_members(monkeypatch,
                                                                          tiny_classifier):
    """A training call whose step would not fit in half of the device's memory is timed on its
    first members and scaled: FLOPs are counted per member, so they come out the same as from
    all members; the row's note says what was done; the code after the call still gets one
    result per member (the tiny experiment reads every member's accuracy)."""
    _tiny_training_experiment(monkeypatch, tiny_classifier)
    whole = planner.plan_experiment("tiny.plan", "full", calibrate=3)
    assert "memory" not in whole.note
    need = planner.step_memory_bytes([tiny_classifier(5, 32, 3)] * 2, torch.randn(20, 5),
                                     torch.randint(3, (20,)), TrainConfig(steps=1))
    # room for one member's step, not two: each call of two members is timed on one
    monkeypatch.setattr(planner, "memory_bytes", lambda device: 0.9 * need)
    row = planner.plan_experiment("tiny.plan", "full", calibrate=3)
    assert row.flops == pytest.approx(whole.flops, rel=1e-12)
    assert row.model_steps == whole.model_steps
    assert "memory: a training step of 2 members needs about" in row.note
    assert "timed on 1 of them and scaled linearly" in row.note
    assert "(the run itself would not fit here)" in row.note
    call = planner._Call(2, 100, 3, StepCost(1.0, 1.0, 1.0, 1.0), timed=1, need=3.0 * 2**30)
    assert ";" not in planner.memory_note([call], 2.0 * 2**30)  # one note


def test_the_step_memory_estimate_counts_saved_activations_per_member(tiny_classifier):
    """The estimate grows with the members and the rows of a step, and holds at least the
    hidden activations autograd saves (rows x width float32 numbers per member)."""
    x, y = torch.randn(64, 5), torch.randint(3, (64,))
    config = TrainConfig(steps=1)
    one = planner.step_memory_bytes([tiny_classifier(5, 256, 3)], x, y, config)
    four = planner.step_memory_bytes([tiny_classifier(5, 256, 3)] * 4, x, y, config)
    assert four == pytest.approx(4 * one)
    assert one >= 64 * 256 * 4
    bigger = planner.step_memory_bytes([tiny_classifier(5, 256, 3)], torch.randn(640, 5),
                                       torch.randint(3, (640,)), config)
    assert bigger > 5 * one


def test_a_plan_records_the_step_memory_and_a_run_is_warned_by_it(monkeypatch, tmp_path,
                                                                   tiny_classifier, capsys):
    """Each planned row keeps the largest estimated step memory of its calibrated calls, and
    memory_warning names it for a run on a device of the same kind whose memory is smaller
    (not for another kind of device, nor when the memory suffices); `memnb run --profile
    full` prints it as a warning line and goes on."""
    import json

    _tiny_training_experiment(monkeypatch, tiny_classifier)
    row = planner.plan_experiment("tiny.plan", "full", calibrate=3)
    assert row.step_memory_bytes and row.step_memory_bytes > 0
    record = planner.plan_record(pd.DataFrame([dataclasses.asdict(row)]), device="cpu",
                                 device_name="test CPU")
    assert record["rows"][0]["step_memory_bytes"] == row.step_memory_bytes
    (tmp_path / "full.cpu.json").write_text(json.dumps(record))
    monkeypatch.setattr(planner, "memory_bytes", lambda device: row.step_memory_bytes / 2)
    said = planner.memory_warning("tiny.plan", "cpu", tmp_path)
    assert said and "estimates the largest training step of tiny.plan" in said
    assert "may be killed for want of memory" in said
    assert planner.memory_warning("tiny.plan", "cuda", tmp_path) is None
    assert planner.memory_warning("other.name", "cpu", tmp_path) is None
    monkeypatch.setattr(planner, "memory_bytes", lambda device: row.step_memory_bytes * 2)
    assert planner.memory_warning("tiny.plan", "cpu", tmp_path) is None

    monkeypatch.setattr(planner, "memory_warning", lambda name, device: f"{name} is too big")
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "results"))
    assert cli.main(["run", "tiny.plan", "--profile", "full"]) == 0
    assert "memnb run: warning: tiny.plan is too big" in capsys.readouterr().err
    # a damaged plan record is named as a warning, and the run still goes on (it needs no plan)

    def damaged(name, device):
        raise planner.PlanFileError("data/plans/full.cpu.json is not a readable plan record")

    monkeypatch.setattr(planner, "memory_warning", damaged)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path / "results2"))
    assert cli.main(["run", "tiny.plan", "--profile", "full"]) == 0
    assert ("memnb run: warning: data/plans/full.cpu.json is not a readable plan record (no "
            "memory check from the recorded plans)") in capsys.readouterr().err


def test_compare_capacity_is_planned_for_todays_task_and_its_gpu_estimate_withdrawn():
    """The full profile of compare.capacity moved to a larger task (V = 8): the CPU record's row
    was re-planned for today's grid (no "earlier grid"), with a dated correction saying why;
    the GPU record, which could not be re-planned, keeps no estimate for the earlier task and
    says why; the plans page renders both records."""
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    records = {r["device"]: r for r in planner.plan_records(repo / "data" / "plans")}
    cpu = next(r for r in records["cpu"]["rows"] if r["experiment"] == "compare.capacity")
    assert cpu["wall_s"] and planner.earlier_grid(cpu) is None
    assert (cpu["runs"], cpu["groups"]) == planner.grid_counts("compare.capacity")
    assert any(c.startswith("2026-11-29: compare.capacity was re-planned")
               and "V = 8, n = 6" in c for c in records["cpu"]["corrections"])
    gpu = next(r for r in records["cuda"]["rows"] if r["experiment"] == "compare.capacity")
    assert gpu["wall_s"] is None and gpu["flops"] is None and gpu["model_steps"] is None
    assert gpu["note"].endswith("the estimate of the earlier task, 25.3 min, is withdrawn")
    assert planner.planned_cost("compare.capacity", folder=repo / "data" / "plans").startswith(
        f"planned: {planner.format_duration(cpu['wall_s'])} on CPU (x86_64, 2 threads), for "
        "the first round")
    book = repo / "book"
    if str(book) not in sys.path:
        sys.path.insert(0, str(book))
    from buildtools import reproducibility

    text = reproducibility.plans_markdown(repo / "data" / "plans", repo / "data" / "results")
    row = next(line for line in text.splitlines() if line.startswith("| `compare.capacity`"))
    assert row.split(" | ")[-2:] == ["-", "- |"]  # no GPU estimate, no recorded run


def test_a_recorded_plan_that_cannot_be_read_is_named_with_the_command_that_records_it(
        tmp_path):
    """A truncated data/plans/<file> stops planned_cost (and so a scorecard's not-run row) with
    a message naming the file, not a bare JSONDecodeError."""
    import json

    (tmp_path / "full.cpu.json").write_text(json.dumps(
        {"device": "cpu", "device_name": "CPU", "rows": [
            {"experiment": "dana.exp6", "wall_s": 60.0}]}))
    assert planner.planned_cost("dana.exp6", folder=tmp_path) == "planned: 1.0 min on CPU"
    (tmp_path / "full.cuda.json").write_text('{"device": "cuda", "rows": [')  # cut short
    with pytest.raises(planner.PlanFileError, match=(
            r"full\.cuda\.json is not a readable plan record \(JSON error at line 1, column "
            r"\d+: .*\); restore it from git, or record the plan again with `python "
            r"scripts/plan_table.py --device cuda --out .*full\.cuda\.json`")):
        planner.planned_cost("dana.exp6", folder=tmp_path)
    (tmp_path / "full.cuda.json").write_text("[]")
    with pytest.raises(ValueError, match=r"full\.cuda\.json is not a readable plan record "
                       r"\(a JSON list, not an object\)"):
        planner.plan_records(tmp_path)


def test_the_plan_table_words_memory_notes_for_the_planning_machine():
    """Review: the plan table repeated the recorded memory notes as the planner wrote them on
    its own device ("more than this device's 24 GiB", "would not fit here"), read on a page
    that names each column's device; Still to run already reworded them. Both now use
    reproducibility.planning_machine, on the committed plans."""
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    if str(repo / "book") not in sys.path:
        sys.path.insert(0, str(repo / "book"))
    from buildtools import reproducibility

    text = reproducibility.plans_markdown(repo / "data" / "plans", repo / "data" / "results")
    assert "this device's" not in text and "would not fit here" not in text
    assert "the planning machine's 24 GiB" in text
