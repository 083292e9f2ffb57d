"""The cost planner: the grid is read without training, FLOPs are counted on a real step, and
the plan adds up the steps each point would run."""

from __future__ import annotations

import time

import pytest
import torch

from memnb import cli, planner
from memnb.experiments import registry
from memnb.sweep import grid, run_sweep
from memnb.train import TrainConfig, measure_step, train_members


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
    row = planner.plan_experiment("tiny.plan", "full", budget_s=60)
    assert (row.runs, row.groups, row.calibrated) == (6, 3, 3)
    # each group trains its two points with the first point's steps (100): members x steps
    assert row.model_steps == 3 * 2 * 100
    assert row.flops > 0 and row.wall_s > 0
    quick = planner.plan_experiment("tiny.plan", "full", budget_s=0)  # first and last group
    assert quick.calibrated == 2 and quick.model_steps == pytest.approx(row.model_steps)
    # every FLOP of this model is proportional to its width (4, 16, 32): the middle group,
    # interpolated between its neighbours, counts as width 18
    assert quick.flops / row.flops == pytest.approx((4 + 18 + 32) / (4 + 16 + 32), rel=1e-9)
    memo: dict = {}
    first = planner.plan_experiment("tiny.plan", "full", budget_s=0, memo=memo)
    again = planner.plan_experiment("tiny.plan", "full", budget_s=0, memo=memo)
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
    from pathlib import Path

    book = Path(__file__).resolve().parent.parent / "book"
    page = (book / "running_at_scale.md").read_text()
    assert "```{include} generated/plan_full_cpu.md" in page
    text = (book / "generated" / "plan_full_cpu.md").read_text()
    assert text.startswith("<!-- generated by scripts/plan_table.py")
    listed = {line.split("`")[1] for line in text.splitlines() if line.startswith("| `")}
    known = set(registry.load_all())
    assert listed <= known, f"rows for experiments that no longer exist: {listed - known}"
    assert known <= listed, (f"not planned: {sorted(known - listed)}; regenerate with "
                             "`python scripts/plan_table.py --device cpu`")
