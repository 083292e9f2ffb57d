"""Dana et al. experiments: packed training equals one-at-a-time training, the bigram task, fits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from memnb.data.synthetic import all_contexts, association_task, context_index, distinct_sequences
from memnb.experiments import dana


def _point(**kw):
    base = {"model": "aot", "N": 8, "S": 2, "d": 4, "d_h": 4, "H": 3, "steps": 80, "batch": 32,
            "samples": 256, "lr": 0.01, "lr_final": 5e-4, "data_seed": 3, "seed": 0}
    return {**base, **kw}


def _assert_packed_equals_alone(points: list[dict]) -> list:
    """Train ``points`` as one packed group and each alone; the rows must agree. Returns the
    packed rows."""
    packed = dana.train_group(points, progress=False)
    for point, rows in zip(points, packed, strict=True):
        alone = dana.train_group([point], progress=False)[0]
        assert rows[0]["params"] == alone[0]["params"]
        assert rows[0]["loss"] == pytest.approx(alone[0]["loss"], rel=1e-4, abs=1e-6)
        assert rows[0]["accuracy"] == pytest.approx(alone[0]["accuracy"], abs=2 / 256)
    return packed


@pytest.mark.parametrize("model", ["aot", "mlp", "aot_code", "aot_code_uncompressed"])
def test_packed_group_equals_each_point_alone(model):
    if model != "mlp":
        points = [_point(model=model, H=h, seed=s, d_h=3) for h in (1, 3, 5) for s in (0, 1)]
    else:
        points = [_point(model="mlp", H=1, width=w, seed=s) for w in (0, 8, 24) for s in (0, 1)]
    _assert_packed_equals_alone(points)


def test_unknown_model_kind_is_named():
    with pytest.raises(ValueError, match="model must be one of"):
        dana.train_group([_point(model="transformer")], progress=False)


def test_layout_experiment_trains_both_code_variants_on_both_sweeps(tmp_path):
    params = {"N": 8, "H": 2, "d": 4, "d_h": 4, "d_h_sweep": [1, 4], "d_sweep": [3, 4],
              "steps": 20, "batch": 32, "samples": 128, "lr": 0.01, "lr_final": 5e-4}
    table = dana.layout(params, seeds=1, device="cpu", cache_dir=tmp_path)
    shapes = {(4, 1), (4, 4), (3, 4)}  # d = d_h = 4 belongs to both sweeps, trained once
    for kind in ("aot_code", "aot_code_uncompressed"):
        part = table[table["model"] == kind]
        assert set(zip(part["d"], part["d_h"], strict=True)) == shapes
    code = table[(table["model"] == "aot_code") & (table["d_h"] == 1)]
    assert int(code["params"].iloc[0]) == 2 * 8 * 4 + 2 * 1 + 2 * 4 * 1 + 4 * 1 * 2


def test_group_rejects_incompatible_points():
    with pytest.raises(ValueError, match="share"):
        dana.train_group([_point(d=4, d_h=4), _point(d=5, d_h=5)], progress=False)


def test_association_task_is_deterministic_and_consistent():
    task = association_task(6, 2, 500, seed=1)
    again = association_task(6, 2, 500, seed=1)
    assert torch.equal(task.tokens, again.tokens) and torch.equal(task.table, again.table)
    assert torch.equal(task.targets, task.table[context_index(task.tokens, 6)])
    assert task.num_associations == 36
    assert task.distinct_contexts_seen() <= 36
    contexts = all_contexts(6, 2)
    assert torch.equal(context_index(contexts, 6), torch.arange(36))
    with pytest.raises(ValueError, match="num_samples"):
        association_task(6, 2, 0, seed=1)


def test_distinct_sequences():
    tokens, targets = distinct_sequences(40, 7, 3, seed=2)
    assert tokens.shape == (40, 3) and targets.shape == (40,)
    assert len({tuple(t) for t in tokens.tolist()}) == 40
    with pytest.raises(ValueError, match="num_sequences must be <= "):
        distinct_sequences(50, 3, 3, seed=0)
    # each size is checked by name, and a space too large to number is refused before it is
    with pytest.raises(ValueError, match="seq_len must be a positive integer"):
        distinct_sequences(5, 10, -2, seed=0)
    with pytest.raises(ValueError, match="vocab_size must be a positive integer"):
        distinct_sequences(5, 0, 3, seed=0)
    with pytest.raises(ValueError, match=r"vocab_size\*\*seq_len must be <= 5e\+07"):
        distinct_sequences(5, 30522, 8, seed=0)


def test_head_slopes_follow_the_official_rule():
    # accuracy rises 0.1 per head until it passes 0.95, then is flat: only the rise is fitted
    table = pd.DataFrame({"d": 4, "seed": 0, "H": [1, 2, 3, 4, 5, 6, 7],
                          "accuracy": [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0]})
    slopes = dana.head_slopes(table)
    assert slopes["slope"].iloc[0] == pytest.approx(0.1)
    assert slopes["points_used"].iloc[0] == 6


def test_exp4_fits_the_accuracy_the_paper_reports_with_the_checkpoints_beside(tmp_path):
    from memnb.dana_reading import as_the_paper_reports
    from memnb.experiments.registry import get

    params = get("dana.exp4").params("ci")
    slopes = dana.exp4(params, seeds=2, device="cpu", cache_dir=tmp_path / "dana.exp4")
    exp1 = dana.exp1(params, seeds=2, device="cpu", cache_dir=tmp_path / "dana.exp1")
    rows = slopes[slopes["kind"] == "slope"].set_index(["d", "seed"])
    reported = dana.head_slopes(as_the_paper_reports(exp1)).set_index(["d", "seed"])["slope"]
    checkpoint = dana.head_slopes(exp1).set_index(["d", "seed"])["slope"]
    assert np.allclose(rows["slope"], reported.loc[rows.index])
    assert np.allclose(rows["slope_checkpoint"], checkpoint.loc[rows.index])
    assert not np.allclose(reported, checkpoint)  # the two accuracies differ in this run
    fit = slopes[slopes["kind"] == "fit_quadratic"].iloc[0]
    mean = rows.groupby("d")["slope"].mean()
    assert fit["a"] == pytest.approx(dana.fit_power(mean.index.to_numpy(), mean.to_numpy(),
                                                     2)["a"])


def test_fit_power_recovers_coefficients():
    d = np.arange(3, 14)
    fit = dana.fit_power(d, 3e-4 * d**2 - 1e-3, 2)
    assert fit["a"] == pytest.approx(3e-4) and fit["b"] == pytest.approx(-1e-3)
    assert fit["sse"] < 1e-20


def test_profiles_follow_the_paper_at_full_scale():
    from memnb.experiments.registry import get

    full = get("dana.exp1").params("full")
    assert full["N"] == 50 and full["H"] == [1, 6, 11, 16, 21, 26, 31]
    assert full["steps"] == 4096 and full["batch"] == 256 and full["samples"] == 16384
    assert get("dana.exp5").params("full")["N"] == 70
    assert get("dana.exp6").params("full")["seeds"] == 20


def test_official_slopes_fit_the_seed_averaged_curve():
    # seed 0 saturates early, seed 1 late: the mean curve is not the mean of per-seed fits
    rows = [{"d": 5, "seed": s, "H": h, "accuracy": min(1.0, 0.1 + rate * h)}
            for s, rate in ((0, 0.3), (1, 0.1)) for h in range(1, 8)]
    table = pd.DataFrame(rows)
    official = dana.official_slopes(table).iloc[0]
    mean = table.groupby("H")["accuracy"].mean()
    above = np.flatnonzero(mean.to_numpy() > 0.95)
    stop = above[0] + 1 if above.size else len(mean)
    expected = np.polyfit(mean.index[:stop], mean.to_numpy()[:stop], 1)[0]
    assert official["slope"] == pytest.approx(expected)
    assert official["slope"] != pytest.approx(dana.head_slopes(table)["slope"].mean())
    assert official["seeds"] == 2 and official["slope_std"] > 0


def test_chapter_results_reads_a_committed_full_run_under_quick(tmp_path):
    import json

    folder = tmp_path / "full"
    folder.mkdir()
    pd.DataFrame({"d": [4], "H": [1], "accuracy": [0.5]}).to_csv(folder / "dana.exp1.csv",
                                                                 index=False)
    (folder / "dana.exp1.json").write_text(json.dumps(
        {"device_name": "GPU X", "seeds": 5, "started_utc": "2026-01-02T00:00:00",
         "git_commit": "1234567890", "wall_time_s": 600, "params": {"N": 50}}))
    run = dana.chapter_results("dana.exp1", "quick", root=tmp_path)
    assert dana.reused_full(run) and run.cached is None
    assert list(run.fresh["accuracy"]) == [0.5] and run.params == {"N": 50}
    assert "GPU X, 5 seeds" in run.note and "1234567" in run.note and "10 min" in run.note

    # a run of one seed on one thread, recorded before the singular: named as a reader writes it
    pd.DataFrame({"d": [4], "H": [1], "seed": [0], "accuracy": [0.5]}).to_csv(
        folder / "dana.exp1.csv", index=False)
    (folder / "dana.exp1.json").write_text(json.dumps(
        {"device_name": "CPU (x86_64, 1 threads)", "seeds": 1, "wall_time_s": 60}))
    note = dana.chapter_results("dana.exp1", "quick", root=tmp_path).note
    assert "(CPU (x86_64, 1 thread), 1 seed, " in note and "threads" not in note
    # a run of earlier code says so, with its code and arithmetic; one of today's code does not
    assert "1 min, computed by earlier code (fingerprint not recorded, IEEE denormals)" in note
    from memnb.results import todays_code

    (folder / "dana.exp1.json").write_text(json.dumps(
        {"device_name": "CPU", "seeds": 1, "wall_time_s": 60,
         "code_fingerprint": todays_code("dana.exp1"), "cpu_denormals": "flushed"}))
    assert "earlier code" not in dana.chapter_results("dana.exp1", "quick", root=tmp_path).note
    # a rerun under way (memnb.reruns) is named beside the run it will replace
    rerun = tmp_path / "rerun" / "full"
    rerun.mkdir(parents=True)
    pd.DataFrame({"d": [4], "H": [1], "seed": [0], "accuracy": [0.5]}).to_csv(
        rerun / "dana.exp1.csv", index=False)
    (rerun / "dana.exp1.json").write_text(json.dumps(
        {"code_fingerprint": todays_code("dana.exp1"), "complete": False, "points_done": 1,
         "missing_points": [{"H": 2}, {"H": 3}]}))
    note = dana.chapter_results("dana.exp1", "quick", root=tmp_path).note
    assert ("read instead of a `quick` rerun; a rerun by today's code has computed 1 of the 3 "
            "points of today's profile (`memnb run dana.exp1 --profile full --rerun "
            "--time-limit SECONDS` continues it); accuracy") in note


def test_a_full_run_that_replaced_one_of_earlier_code_says_how_far_the_two_differ(tmp_path):
    """The chapter's note compares a committed full run with the table of earlier code it
    replaced (memnb.reruns.replacement_difference), point by point on the paper's accuracy."""
    import json

    from memnb.planner import capture_sweep
    from memnb.results import todays_code

    points = capture_sweep("dana.exp1", "full").points[:3]
    folder = tmp_path / "full"
    (folder / "superseded").mkdir(parents=True)
    now = pd.DataFrame(points).assign(accuracy=[0.5, 0.6, 0.7],
                                      accuracy_last_batches=[0.5, 0.6, 0.7])
    then = pd.DataFrame([points[0], points[1], {**points[2], "seed": 99}]).assign(
        accuracy=[0.5, 0.6, 0.1], accuracy_last_batches=[0.52, 0.5, 0.1])
    now.to_csv(folder / "dana.exp1.csv", index=False)
    (folder / "dana.exp1.json").write_text(json.dumps(
        {"device_name": "CPU", "seeds": 5, "wall_time_s": 60, "complete": True,
         "code_fingerprint": todays_code("dana.exp1"), "cpu_denormals": "flushed"}))
    then.to_csv(folder / "superseded" / "dana.exp1.0123456789abcdef.csv", index=False)
    (folder / "superseded" / "dana.exp1.0123456789abcdef.json").write_text(json.dumps(
        {"experiment": "dana.exp1", "code_fingerprint": "0123456789abcdef",
         "git_commit": "abcdef0123", "device": "cpu", "cpu_denormals": "ieee"}))
    note = dana.chapter_results("dana.exp1", "quick", root=tmp_path).note
    assert ("read instead of a `quick` rerun; it replaced a table of earlier code "
            "(IEEE denormals; its code and commit are listed on the page *Running at scale*, "
            "section *Full-profile runs measured so far*): on the 2 points both computed, "
            "`accuracy_last_batches` differs by "
            "0.0600 on average and by at most 0.100; accuracy") in note
    from memnb.reruns import replacement_difference

    assert "`accuracy` differs by 0.0000 on average and by at most 0.000" in (
        replacement_difference("dana.exp1", "full", tmp_path))
    assert replacement_difference("dana.exp1", "full", tmp_path, column="loss") is None
    assert replacement_difference("dana.exp2", "full", tmp_path) is None  # nothing replaced


def test_points_copied_from_the_replaced_run_are_not_said_to_be_computed_twice(tmp_path):
    """memnb.reruns.replacement_difference follows the replaced-runs table's rule
    (memnb.scorecard.replaced._apart): points the written run read from the replaced run's
    point cache (provenance ``points_copied``) are equal by construction, so a note never says
    they were "both computed"; all copied → not compared, some copied → counted apart."""
    import json

    from memnb.planner import capture_sweep
    from memnb.reruns import copied_points, replacement_difference, replacement_gap
    from memnb.results import load, todays_code

    points = capture_sweep("dana.exp1", "full").points[:3]
    folder = tmp_path / "full"
    (folder / "superseded").mkdir(parents=True)
    table = pd.DataFrame(points).assign(accuracy=[0.5, 0.6, 0.7])
    table.to_csv(folder / "dana.exp1.csv", index=False)
    table.to_csv(folder / "superseded" / "dana.exp1.0123456789abcdef.csv", index=False)
    (folder / "superseded" / "dana.exp1.0123456789abcdef.json").write_text(json.dumps(
        {"experiment": "dana.exp1", "code_fingerprint": "0123456789abcdef",
         "git_commit": "abcdef0123", "device": "cpu", "cpu_denormals": "ieee"}))

    def written(copied: list[dict]) -> None:
        (folder / "dana.exp1.json").write_text(json.dumps(
            {"device_name": "CPU", "seeds": 5, "wall_time_s": 60, "complete": True,
             "code_fingerprint": todays_code("dana.exp1"), "cpu_denormals": "flushed",
             "points_copied": copied}))

    source = "superseded/dana.exp1.0123456789abcdef"
    written([{"from": source, "points": 3}])
    gap = replacement_gap("dana.exp1", "full", tmp_path)
    assert (gap.points, gap.copied, gap.recomputed) == (3, 3, 0)
    text = replacement_difference("dana.exp1", "full", tmp_path)
    assert "both computed" not in text and "differs by" not in text
    assert text.endswith("; not compared with it: the 3 points both tables hold were read from "
                         "the replaced run's point cache, not computed again")
    written([{"from": source, "points": 2}])
    assert replacement_difference("dana.exp1", "full", tmp_path).endswith(
        ": on the 3 points both tables hold, 2 of them read from the replaced run's point cache "
        "(not computed again), `accuracy` differs by 0.0000 on average and by at most 0.000")
    written([{"from": "superseded/dana.exp1.fedcba9876543210", "points": 3}])  # another run's
    replaced = replacement_gap("dana.exp1", "full", tmp_path).replaced
    assert copied_points(load("dana.exp1", "full", tmp_path), replaced) == 0
    assert "on the 3 points both computed" in replacement_difference("dana.exp1", "full", tmp_path)


def test_replaced_tables_are_matched_on_every_parameter_any_point_sets():
    """memnb.reruns.gap_between matches the points of two tables on every parameter that some
    point of the grid sets (App. B's MLP points set H_equiv and width, which tell apart points
    equal in everything else); a table of code that set neither matches only the points that do
    not set them; a point spanning several rows is compared once, unless its rows differ."""
    from pathlib import Path

    from memnb.planner import capture_sweep
    from memnb.reruns import gap_between
    from memnb.results import ExperimentResult

    points = capture_sweep("dana.appendix_layout", "full").points
    plain = next(p for p in points if "H_equiv" not in p)
    mlp = [p for p in points if "H_equiv" in p][:2]
    twin = {**mlp[0], "H_equiv": mlp[0]["H_equiv"] + 1}  # equal to mlp[0] but for H_equiv
    now = pd.DataFrame([plain, mlp[0], twin]).assign(accuracy=[0.5, 0.6, 0.9])
    then = pd.DataFrame([plain, mlp[0], twin]).assign(accuracy=[0.4, 0.6, 0.6])

    def gap(a: pd.DataFrame, b: pd.DataFrame):
        def result(table: pd.DataFrame) -> ExperimentResult:
            return ExperimentResult(table, Path("t.csv"), Path("t.json"), {})

        return gap_between("dana.appendix_layout", "full", result(a), result(b))

    both = gap(now, then)
    assert (both.points, round(both.mean, 6), round(both.largest, 6)) == (3, 0.133333, 0.3)
    older = then.drop(columns=["H_equiv", "width"]).iloc[:1]  # code that set neither
    assert (gap(now, older).points, round(gap(now, older).largest, 6)) == (1, 0.1)
    spread = pd.concat([now, now.iloc[:1]])  # the plain point on two rows, same accuracy
    assert gap(spread, then).points == 3
    spread.iloc[-1, spread.columns.get_loc("accuracy")] = 0.7  # ... now with two values
    assert gap(spread, then) is None


def test_a_partial_full_run_is_drawn_beside_a_fresh_run_not_instead(tmp_path, monkeypatch):
    import json

    from memnb import results

    folder = tmp_path / "full"
    folder.mkdir()
    pd.DataFrame({"d": [4], "H": [1], "accuracy": [0.5]}).to_csv(folder / "dana.exp5.csv",
                                                                 index=False)
    (folder / "dana.exp5.json").write_text(json.dumps(
        {"device_name": "CPU", "seeds": 5, "complete": False, "points_done": 7,
         "missing_points": [{"seed": 1}], "params": {"N": 70}}))
    calls = []
    fresh = results.FreshAndCached("dana.exp5", pd.DataFrame({"accuracy": [0.4]}), None, {},
                                   "dana.exp5: `quick` run")
    monkeypatch.setattr(results, "fresh_and_cached",
                        lambda name, profile, **kw: calls.append((name, profile)) or fresh)
    assert dana.chapter_results("dana.exp5", "quick", root=tmp_path) is fresh
    assert calls == [("dana.exp5", "quick")]


def test_train_group_records_both_accuracies():
    """Each point of an Experiment 5 group (the MLP model, packed by width) records the
    checkpoint's accuracy and the official code's mean over the last training batches."""
    from memnb.experiments.registry import get

    params = get("dana.exp5").params("ci")
    group = [p for p in dana._exp5_points(params, 1) if p["model"] == "mlp"]
    rows = dana.train_group(group, progress=False)
    assert len(rows) == len(group)
    for (row,) in rows:
        assert 0.0 <= row["accuracy_last_batches"] <= 1.0
        # 100 batches of 128 drawn from 2,048 samples: the two estimates are close, not equal
        assert abs(row["accuracy_last_batches"] - row["accuracy"]) < 0.2


def test_exp5_packs_one_seed_per_group_seed_after_seed():
    from memnb.experiments.registry import get
    from memnb.sweep import _groups

    params = get("dana.exp5").params("full")
    groups = _groups(dana._exp5_points(params, 5), dana._seed_group_key, None)
    assert len(groups) == 2 * len(params["d"]) * 5
    assert all(len(g) == len(params["H"]) and len({p["seed"] for p in g}) == 1 for g in groups)
    first = groups[:2 * len(params["d"])]  # the whole figure for seed 0 comes first
    assert {(g[0]["seed"], g[0]["d"], g[0]["model"]) for g in first} == {
        (0, d, m) for d in params["d"] for m in ("aot", "mlp")}


@pytest.mark.parametrize("model", ["aot", "mlp"])
def test_packed_group_trains_a_five_layer_member_as_alone(model):
    if model == "aot":
        points = [_point(H=h, seed=s, layers=5, steps=40) for h in (1, 3, 5) for s in (0, 1)]
    else:
        points = [_point(model="mlp", H=1, width=w, seed=0, layers=5, steps=40)
                  for w in (0, 8, 24)]
    packed = _assert_packed_equals_alone(points)
    if model == "aot":
        one = dana.train_group([_point(H=3, steps=40)], progress=False)[0][0]
        assert packed[2][0]["params"] > one["params"]


def test_depth_needs_an_eq_2_model():
    with pytest.raises(ValueError, match="layers > 1"):
        dana.train_group([_point(model="aot_code", layers=2)], progress=False)


@pytest.mark.parametrize("name", ["appendix_dim", "appendix_depth"])
def test_appendix_experiments_tag_every_figure(tmp_path, name):
    from memnb.experiments.registry import get

    params = get(f"dana.{name}").params("ci")
    table = getattr(dana, name)(params, seeds=1, device="cpu", cache_dir=tmp_path)
    figures = params["figures"]
    assert set(table["figure"]) == set(figures)
    exp5 = dana.appendix_rows(table, figures[2])
    # the ci recipes agree, so Fig. 7/10's AoT curve is the Exp. 1 figure's, not retrained
    assert set(exp5["model"]) == {"aot", "mlp"}
    assert (table[table["figure"] == figures[2]]["model"] == "mlp").all()
    assert sorted(exp5[exp5["model"] == "mlp"]["width"]) == [
        2 * d * (h - 1) for d in params["exp5_d"] for h in params["H"]]
    assert (table["layers"] == (params.get("layers", 1))).all()
    with pytest.raises(ValueError, match="Figs. 5-10"):
        dana.appendix_rows(table, "Fig. 3")


def test_full_appendix_grids_are_the_paper_csvs():
    from memnb.experiments.registry import get
    from memnb.papers import dana as paper

    dim, depth = get("dana.appendix_dim").params("full"), get("dana.appendix_depth").params("full")
    assert dim["d"] == sorted(paper.dim_exp1()["d"].unique().tolist())
    assert dim["H"] == sorted(paper.dim_exp1()["H"].unique().tolist())
    assert dim["exp2_d_h"] == paper.dim_exp2()["d_h"].tolist()
    assert (dim["N"], dim["exp2_d"], dim["exp2_H"]) == (200, 50, 11)
    assert depth["H"] == sorted(paper.depth_exp1()["H"].unique().tolist())
    assert depth["exp2_d_h"] == paper.depth_exp2()["d_h"].tolist()
    assert (depth["N"], depth["exp2_d"], depth["exp2_H"]) == (70, 10, 21)
    widths = sorted(paper.depth_exp5().query("d == 10")["width"])
    assert widths == [2 * 10 * (h - 1) for h in depth["H"]]
    # the depth and recipe of the official notebook cells that write the *_depth.csv files
    assert depth["layers"] == paper.TEXT["depth_layers_code"].value == 3
    assert get("dana.appendix_depth").params("quick")["layers"] == 3
    lr = paper.TEXT["depth_lr_code"].value
    batches = int(paper.TEXT["depth_batches_code"].value)
    assert depth["train"]["lr"] == depth["train"]["lr_final"] == pytest.approx(lr * lr)  # LinearLR
    assert depth["train"]["steps"] == batches * int(paper.TEXT["epochs_appendix"].value)
    assert depth["exp5"]["lr_final_mlp"] == pytest.approx(lr * lr)
    # App. B.1's Fig. 7 trains on the B.1 data and steps, the MLP to 1e-4
    assert all(dim["exp5"][k] == dim["train"][k] for k in ("steps", "batch", "samples"))
    assert dim["exp5"]["lr_final_mlp"] == 1e-4


def test_full_read_in_place_is_the_one_rule_of_the_chapter_and_its_note(tmp_path):
    """The chapter reads a committed full run in place under ``quick`` only when it is complete
    (:func:`dana.full_read_in_place`); the note under the chapter's header counts by the same
    rule rather than restating it."""
    import json

    from memnb.figures import dana as figures

    folder = tmp_path / "full"
    folder.mkdir()
    for name, complete in (("dana.exp1", True), ("dana.exp2", False)):
        pd.DataFrame({"accuracy": [0.5]}).to_csv(folder / f"{name}.csv", index=False)
        (folder / f"{name}.json").write_text(json.dumps({"complete": complete}))
    assert dana.full_read_in_place("dana.exp1", "quick", tmp_path).complete
    assert dana.full_read_in_place("dana.exp2", "quick", tmp_path) is None  # partial
    assert dana.full_read_in_place("dana.exp3", "quick", tmp_path) is None  # none committed
    assert dana.full_read_in_place("dana.exp1", "ci", tmp_path) is None  # another profile
    note = figures.execution_note("quick", ("dana.exp1", "dana.exp2", "dana.exp3"), tmp_path)
    assert "complete: 1 of the 3 experiments they draw" in note
