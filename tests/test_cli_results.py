"""The command line and cached results with provenance (on the Dana ci profile)."""

from __future__ import annotations

import dataclasses
import json
import time

import pandas as pd
import pytest

from memnb import cli, numerics, results
from memnb.experiments.registry import get, load_all
from memnb.provenance import provenance_summary
from memnb.results import check_device, load, run_experiment


def test_list_shows_every_experiment_with_profiles(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for name in load_all():
        assert name in out
    assert "dana.exp1" in out and "quick" in out and "full" in out
    from memnb.profiles import default_seeds

    assert f"    full  seeds {default_seeds('full')}  " in out  # the seeds a run uses, stated
    # an experiment with a max_seeds cap lists the seeds it runs, not the profile's default
    block = out.split("compare.capacity", 1)[1].split("\n    full ", 1)[1]
    cap = load_all()["compare.capacity"].profiles["full"]["max_seeds"]
    assert cap < default_seeds("full") and block.startswith(f" seeds {cap}  ")
    # the paper item as the book's tables name it: the paper named, an experiment of ours so
    assert "  [Mahdavi et al. Fig. 2a]\n" in out
    assert "  [ours, beside Dana et al. Fig. 3 (Experiment 5)]\n" in out
    # an experiment seeded once lists 1 seed under every profile
    for name in ("mahdavi.table1", "mahdavi.table3", "kajitsuka.construction"):
        block = out.split(f"\n{name} ", 1)[1].split("\n")[1:4]
        assert all(line.split()[1:3] == ["seeds", "1"] for line in block), block


def test_a_run_says_when_max_seeds_caps_the_seeds_asked():
    """--seeds above an experiment's max_seeds is not an error, but the run says how many it
    computes; a request within the cap, an unknown experiment and no --seeds say nothing."""
    cap = load_all()["compare.capacity"].profiles["ci"]["max_seeds"]
    note = cli._seeds_cap_note("compare.capacity", "ci", cap + 2)
    assert note == (f"compare.capacity runs at most 1 seed under the ci profile (its "
                    f"max_seeds): {cap + 2} asked, seed 0 run") if cap == 1 else note
    assert cli._seeds_cap_note("compare.capacity", "ci", cap) is None
    # a check seeded once (fixed_seeds) says so for any --seeds above its count
    assert cli._seeds_cap_note("mahdavi.table3", "ci", 5) == (
        "mahdavi.table3 always runs 1 seed, whatever --seeds asks: 5 asked, seed 0 run")
    assert cli._seeds_cap_note("mahdavi.table3", "ci", 1) is None
    assert cli._seeds_cap_note("compare.capacity", "ci", None) is None
    assert cli._seeds_cap_note("no.such", "ci", 9) is None
    assert cli._seeds_cap_note("dana.exp6", "ci", 9) is None  # no cap


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
    points = len(list((tmp_path / "ci" / ".cache" / "dana.exp1").glob("*.json")))
    assert first.provenance["cached_points_reused"] == 0 < points
    # a call that computed no point keeps the provenance of the run that computed them (its
    # commit, start and wall time), rather than crediting them to itself with a wall time ~0
    assert second.provenance == first.provenance
    assert json.loads(second.provenance_path.read_text()) == json.loads(
        json.dumps(first.provenance, default=str))
    # a call that computes some points again (one removed from the cache) records itself, and
    # says how many points it read rather than computed
    next(iter((tmp_path / "ci" / ".cache" / "dana.exp1").glob("*.json"))).unlink()
    third = run_experiment("dana.exp1", "ci", seeds=1, root=tmp_path)
    assert third.provenance["cached_points_reused"] == points - 1
    assert third.provenance["started_utc"] >= first.provenance["started_utc"]
    assert load("dana.exp1", "ci", root=tmp_path) is not None
    assert load("dana.exp2", "ci", root=tmp_path) is None


def test_provenance_records_the_commit_read_before_computing(tmp_path, monkeypatch):
    # A commit made while a long run computes must not be credited with its points.
    state = {"running": False}
    monkeypatch.setattr(results, "_git_commit",
                        lambda: "commit-after-run" if state["running"] else "commit-before-run")
    original_run = type(get("dana.exp6")).run

    def run_and_commit(self, *args, **kwargs):
        state["running"] = True
        return original_run(self, *args, **kwargs)

    monkeypatch.setattr(type(get("dana.exp6")), "run", run_and_commit)
    result = run_experiment("dana.exp6", "ci", seeds=1, root=tmp_path)
    assert result.provenance["git_commit"] == "commit-before-run"


def test_provenance_records_the_seeds_run_beside_the_seeds_asked(tmp_path, monkeypatch):
    """A run asked for more seeds than its profile's max_seeds records both: ``seeds`` (asked,
    what a resumed run must match) and ``seeds_run`` (run), and the summary of the result,
    whose table has no seed column to count, reads the seeds run."""
    import pandas as pd

    from memnb.experiments import registry

    monkeypatch.setitem(registry._REGISTRY, "tiny.capped", registry.Experiment(
        "tiny.capped", "capped", "none", {p: {"max_seeds": 2} for p in ("ci", "quick", "full")},
        lambda params, **kw: pd.DataFrame({"N": [1, 2], "accuracy": [1.0, 0.5]})))
    result = run_experiment("tiny.capped", "ci", seeds=4, root=tmp_path)
    assert result.provenance["seeds"] == 4 and result.provenance["seeds_run"] == 2
    monkeypatch.setitem(registry._REGISTRY, "tiny.once", dataclasses.replace(
        registry._REGISTRY["tiny.capped"], name="tiny.once", fixed_seeds=1))
    once = run_experiment("tiny.once", "ci", seeds=4, root=tmp_path)
    assert once.provenance["seeds"] == 4 and once.provenance["seeds_run"] == 1
    assert provenance_summary(["tiny.capped"], "ci", root=tmp_path).iloc[0]["seeds"] == 2


def test_provenance_summary_lists_only_written_results(tmp_path):
    assert provenance_summary(["dana.exp6"], "ci", root=tmp_path).empty
    run_experiment("dana.exp6", "ci", seeds=1, root=tmp_path)
    summary = provenance_summary(["dana.exp1", "dana.exp6"], "ci", root=tmp_path)
    assert list(summary["experiment"]) == ["dana.exp6"]
    row = summary.iloc[0]
    assert row["seeds"] == 1 and row["rows"] == len(load("dana.exp6", "ci", root=tmp_path).table)
    from memnb.provenance import short_commit

    recorded = load("dana.exp6", "ci", root=tmp_path).provenance["git_commit"]
    assert row["wall_time_s"] >= 0 and row["git_commit"] == short_commit(recorded)
    # a result of a checkout whose code differed from its commit never reads as the commit's
    assert short_commit("0123456789abcdef+uncommitted-changes") == (
        "0123456 + uncommitted changes")
    assert short_commit("0123456789abcdef") == "0123456" and short_commit(None) == "unknown"
    with pytest.raises(ValueError, match="profile"):
        provenance_summary(["dana.exp6"], "huge", root=tmp_path)


def test_provenance_summary_names_a_broken_table_or_record(tmp_path):
    """A written result whose table or provenance pandas/json cannot read stops the summary with
    the :class:`ResultFileError` that names the file, not the parser's own error."""
    from memnb.results import ResultFileError, result_paths

    run_experiment("dana.exp6", "ci", seeds=1, root=tmp_path)
    csv_path, json_path = result_paths("dana.exp6", "ci", tmp_path)
    table_text = csv_path.read_text()
    csv_path.write_text("")
    with pytest.raises(ResultFileError, match="dana.exp6.csv is not a readable result table"):
        provenance_summary(["dana.exp6"], "ci", root=tmp_path)
    csv_path.write_text(table_text)
    json_path.write_text("{broken")
    with pytest.raises(ResultFileError, match="dana.exp6.json is not a readable provenance"):
        provenance_summary(["dana.exp6"], "ci", root=tmp_path)


def test_bad_arguments(capsys):
    assert cli.main(["run", "dana.nope", "--profile", "ci"]) == 2
    assert "unknown experiment" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["run", "dana.exp1", "--profile", "huge"])
    with pytest.raises(ValueError, match="device"):
        check_device("tpu")
    with pytest.raises(ValueError, match="profile must be one of"):
        get("dana.exp1").params("huge")


def _slow_experiment(monkeypatch, calls: list):
    """Register a tiny experiment of 6 points, one group each, each taking 0.3 s."""
    from memnb import sweep
    from memnb.experiments import registry
    from memnb.sweep import grid

    def slow_group(group):
        time.sleep(0.3)
        calls.extend(p["x"] for p in group)
        return [[{"y": p["x"] ** 2}] for p in group]

    def fn(params, *, seeds, device, cache_dir, executor=None):
        points = grid(x=list(range(params["n"])), seed=list(range(seeds)))
        return sweep.run_sweep(points, slow_group, cache_dir=cache_dir, progress=False)

    profiles = {p: {"n": 6, "seeds": 1} for p in ("ci", "quick", "full")}
    monkeypatch.setitem(registry._REGISTRY, "tiny.slow",
                        registry.Experiment("tiny.slow", "six slow points", "none", profiles, fn))


def test_time_limit_stops_cleanly_and_the_rerun_completes(tmp_path, monkeypatch, capsys):
    calls: list = []
    _slow_experiment(monkeypatch, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    started = time.perf_counter()
    code = cli.main(["run", "tiny.slow", "--profile", "ci", "--time-limit", "1.6"])
    assert time.perf_counter() - started < 1.6  # stopped before its limit
    assert code == cli.PARTIAL
    err = capsys.readouterr().err
    assert "partial" in err and "git add" not in err  # a quick run is not committed
    done = len(calls)
    assert 1 <= done < 6
    provenance = json.loads((tmp_path / "ci" / "tiny.slow.json").read_text())
    assert provenance["complete"] is False and provenance["points_done"] == done
    assert [p["x"] for p in provenance["missing_points"]] == list(range(done, 6))
    assert "partial" in provenance["note"]
    table = pd.read_csv(tmp_path / "ci" / "tiny.slow.csv")
    assert table["x"].tolist() == list(range(done))  # the CSV holds the points that ran
    assert load("tiny.slow", "ci", root=tmp_path).complete is False

    calls.clear()
    assert cli.main(["run", "tiny.slow", "--profile", "ci"]) == 0
    assert calls == list(range(done, 6))  # only the missing points were computed
    provenance = json.loads((tmp_path / "ci" / "tiny.slow.json").read_text())
    assert provenance["complete"] is True and "missing_points" not in provenance
    assert len(provenance["code_fingerprint"]) == 16
    assert provenance["cpu_denormals"] == numerics.mode()  # memnb.numerics
    with pytest.raises(SystemExit):
        cli.main(["run", "tiny.slow", "--profile", "ci", "--time-limit", "-1"])


def test_a_run_stopped_before_it_can_build_its_table_says_so(tmp_path, monkeypatch, capsys):
    from memnb.experiments import registry
    from memnb.sweep import run_sweep

    def needs_all(params, *, seeds, device, cache_dir, executor=None):
        table = run_sweep([{"x": x} for x in range(4)],
                          lambda g: time.sleep(0.3) or [[{"y": 1}] for _ in g],
                          cache_dir=cache_dir, progress=False)
        return table.set_index("x").loc[[0, 1, 2, 3]].reset_index()  # fails when partial

    profiles = {p: {} for p in ("ci", "quick", "full")}
    monkeypatch.setitem(registry._REGISTRY, "tiny.needs_all",
                        registry.Experiment("tiny.needs_all", "t", "none", profiles, needs_all))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "tiny.needs_all", "--profile", "ci", "--time-limit", "0.5"]) == 3
    err = capsys.readouterr().err
    assert "too few to build its table" in err and "rerun the same command" in err
    assert not (tmp_path / "ci" / "tiny.needs_all.csv").exists()
    assert len(list((tmp_path / "ci" / ".cache" / "tiny.needs_all").glob("*.json"))) >= 1



def test_a_limit_used_up_before_the_first_point_writes_no_table(tmp_path, monkeypatch, capsys):
    calls: list = []
    _slow_experiment(monkeypatch, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "tiny.slow", "--profile", "ci", "--time-limit", "1e-6"]) == 3
    assert calls == [] and "0 points finished" in capsys.readouterr().err
    assert not (tmp_path / "ci" / "tiny.slow.csv").exists()


def test_a_partial_run_resumes_from_its_copied_cache_and_keeps_its_history(tmp_path, monkeypatch):
    # What a later session does: it gets the committed table, provenance and point cache in a
    # fresh checkout (another folder), reruns the same command and computes only what is missing.
    import shutil

    from memnb.provenance import partial_summary
    from memnb.results import cached_point_files

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    first = tmp_path / "session1"
    partial = run_experiment("tiny.slow", "full", root=first, time_limit_s=1.6)
    done = len(calls)
    assert not partial.complete and 1 <= done < 6
    summary = partial_summary(partial.provenance)
    assert summary.startswith(f"partial: {done} of 6 points ran; missing ")
    missing = summary.split("missing ", 1)[1]  # "x = 5, seed = 0" or "seed = 0; x ∈ {4, 5}"
    assert all(str(x) in missing for x in range(done, 6)) and "x" in missing
    assert cached_point_files("tiny.slow", "full", first) == (done, done)
    # a point file of today's code whose point is not on today's grid (an earlier profile's)
    code = results.todays_code("tiny.slow")
    stray = first / "full" / ".cache" / "tiny.slow" / f"{'0' * 24}.{code}.json"
    stray.write_text("{}")
    assert cached_point_files("tiny.slow", "full", first) == (done + 1, done + 1)
    assert cached_point_files("tiny.slow", "full", first, on_todays_grid=True) == (done + 1, done)
    stray.unlink()

    second = tmp_path / "session2"
    shutil.copytree(first, second)
    # a correction made by hand to the committed provenance stays with the history it corrects
    json_path = second / "full" / "tiny.slow.json"
    # so does the record of a re-key that carried the earlier points to today's fingerprint
    rekeys = {"code_fingerprint_rekeyed_from": "0123456789abcdef",
              "code_fingerprint_rekeys": [{"from": "0123456789abcdef", "to": "x", "why": "w"}]}
    corrected = {**json.loads(json_path.read_text()), "corrections": ["device_name fixed"],
                 **rekeys}
    json_path.write_text(json.dumps(corrected))
    calls.clear()
    resumed = run_experiment("tiny.slow", "full", root=second)
    assert resumed.complete and calls == list(range(done, 6))
    assert resumed.provenance["corrections"] == ["device_name fixed"]
    assert {k: resumed.provenance[k] for k in rekeys} == rekeys
    assert resumed.table["x"].tolist() == list(range(6))
    history = resumed.provenance["invocations"]
    assert [r["points_done"] for r in history] == [done, None]
    assert resumed.provenance["total_wall_time_s"] == pytest.approx(
        partial.provenance["wall_time_s"] + resumed.provenance["wall_time_s"], abs=0.02)
    assert partial_summary(resumed.provenance) is None
    # a rerun of the complete table that computes nothing keeps its history as it is
    again = run_experiment("tiny.slow", "full", root=second)
    assert again.provenance == resumed.provenance
    # one that computes a point again starts a new history
    cached = sorted((second / "full" / ".cache" / "tiny.slow").glob("*.json"))
    cached[0].unlink()
    again = run_experiment("tiny.slow", "full", root=second)
    assert len(again.provenance["invocations"]) == 1
    assert "corrections" not in again.provenance
    assert not set(rekeys) & set(again.provenance)


def test_describe_points_names_the_parameters_that_vary():
    from memnb.provenance import describe_points

    points = [{"seed": s, "H": h, "d": 64} for s in (3, 4) for h in (4, 8)]
    assert describe_points(points) == "seed ∈ {3, 4}; H ∈ {4, 8}"
    assert describe_points(points[2:]) == "seed = 4; H ∈ {4, 8}"  # the seed they lack is named
    assert describe_points([{"seed": 2, "H": 8, "d": 64}]) == "seed = 2, H = 8, d = 64"
    long = {"seed": 2, "H": 8, "lr": 0.1, "batch": 8, "d": 64, "C": 10, "kind": "x"}
    assert describe_points([long]) == "seed = 2, H = 8, d = 64"
    assert describe_points([]) == "none"
    grid = [{"seed": s, "H": h, "T": t} for s in (0, 1) for h, t in ((4, 550), (8, 1300))]
    assert describe_points(grid[1:]) == "seed 0 at H = 8 (1 point); seed 1 at H ∈ {4, 8} (2 points)"
    # a run stopped inside seed 0: what seed 0 lacks, then the seeds that lack everything, once
    # (the step budget, a function of T but not one to one, is not named)
    heads = [{"seed": s, "H": h, "T": t, "steps": max(50000, t * 2)} for s in range(5)
             for t in (10000, 20000, 40000) for h in (1, 5) if s > 0 or t == 40000]
    assert describe_points(heads) == (
        "seed 0 at H ∈ {1, 5} and T = 40000 (2 points); seeds 1–4 at H ∈ {1, 5} and "
        "T ∈ {10000, 20000, 40000} (6 points a seed, 24 in all)")
    scattered = heads[:1] + heads[2:5] + heads[8:9]  # seed 0 one point, seed 1 not a product
    assert describe_points(scattered) == (
        "seed 0 at H = 1 and T = 40000 (1 point); seed 1 at [H = 1, T ∈ {10000, 20000}] and "
        "[H = 5, T = 10000] (3 points); seed 2 at H = 1 and T = 10000 (1 point)")
    # a capacity grid stopped inside its first width: the blocks each seed lacks, runs shortened
    capacity = [{"seed": s, "d": d, "N": N, "blocks": b, "max_blocks": b} for s in (0, 1)
                for d in (16, 8) for N in (600, 700, 800, 900) for b in (0, 1, 2, 3)
                if (d, N, b) != (16, 600, 0) and (d, N, b) != (16, 600, 1)]
    assert describe_points(capacity) == (
        "seeds 0, 1 at [d = 8, N ∈ {600, 700, …, 900}, blocks ∈ {0–3}] and [d = 16, N = 600, "
        "blocks ∈ {2, 3}] and [d = 16, N ∈ {700, 800, 900}, blocks ∈ {0–3}] "
        "(30 points a seed, 60 in all)")
    # more blocks than a line can hold: the count only
    holes = [p for i, p in enumerate(capacity) if p["seed"] == 0 and i % 3]
    assert describe_points(holes) == (
        f"seed = 0; {len(holes)} points, not every combination of d, N, blocks")
    few = [p for p in capacity if p["seed"] == 0 and p["d"] == 16 and p["N"] <= 700]
    assert describe_points(few) == ("seed = 0; [N = 600, blocks ∈ {2, 3}] and [N = 700, "
                                    "blocks ∈ {0–3}] (6 points)")  # one seed, no product
    # a whole product of depths and seeds, max_blocks mirroring blocks: the value sets, once
    depths = [{"blocks": b, "max_blocks": b, "seed": s} for b in (20, 30, 40) for s in range(5)]
    assert describe_points(depths) == "blocks ∈ {20, 30, 40}; seed ∈ {0, 1, 2, 3, 4}"
    # points of two paper figures in one table (App. B): described figure by figure
    appendix = ([{"figure": "Fig. 6", "d_h": d_h, "seed": s} for d_h in (30, 35) for s in (0, 1)]
                + [{"figure": "Fig. 7", "H": h, "seed": 0} for h in (1, 3, 5)])
    assert describe_points(appendix) == ("Fig. 6: d_h ∈ {30, 35}; seed ∈ {0, 1}; Fig. 7: "
                                         "seed = 0; H ∈ {1, 3, 5}")
    # missing points on one slice of an axis the grid varies (App. B.2 stopped after d = 10):
    # the slice is named, which the varying parameters alone would not say
    depth = [{"figure": "Fig. 8", "d": d, "H": h, "seed": s} for d in (7, 10, 13)
             for h in (1, 5) for s in (0, 1)]
    missing = [p for p in depth if p["d"] == 13]
    # (the figure is named even when all the points are of one)
    assert describe_points(missing) == "Fig. 8: H ∈ {1, 5}; seed ∈ {0, 1}"
    assert describe_points(missing, ("d", "H")) == "Fig. 8: d = 13; H ∈ {1, 5}; seed ∈ {0, 1}"
    assert describe_points(missing[:1], ("d",)) == "Fig. 8: d = 13, H = 1, seed = 0"
    # a parameter that several named before it determine together (an MLP's width from d and
    # the head count it stands for, Fig. 10) is left out instead of breaking their product
    mlp = [{"figure": "Fig. 10", "d": d, "H": 1, "seed": s, "H_equiv": h, "width": 2 * d * (h - 1)}
           for d in (7, 10) for s in (0, 1) for h in (1, 5, 9)]
    assert describe_points(mlp) == "Fig. 10: d ∈ {7, 10}; seed ∈ {0, 1}; H_equiv ∈ {1, 5, 9}"
    from memnb.provenance import partial_summary

    provenance = {"complete": False, "points_done": 8, "missing_points": missing,
                  "params": {"d": [7, 10, 13], "H": [1, 5], "N": 70}}
    assert partial_summary(provenance) == (
        "partial: 8 of 12 points ran; missing Fig. 8: d = 13; H ∈ {1, 5}; seed ∈ {0, 1}")


def test_seeds_are_counted_in_the_table_where_it_has_a_seed_column():
    from memnb.provenance import seeds_used

    provenance = {"seeds": 5}  # the profile's default, recorded whether used or not
    assert seeds_used(pd.DataFrame({"seed": [0, 0, 0], "x": [1, 2, 3]}), provenance) == 1
    assert seeds_used(pd.DataFrame({"seed": [0, 1, 2, 2]}), provenance) == 3
    assert seeds_used(pd.DataFrame({"x": [1]}), provenance) == 5


def test_run_label_counts_seeds_and_threads_in_words():
    import pandas as pd

    from memnb.provenance import device_label, run_label

    one = pd.DataFrame({"seed": [0, 0], "accuracy": [0.1, 0.2]})
    old = {"device_name": "CPU (x86_64, 1 threads)", "seeds": 5}
    assert device_label(old) == "CPU (x86_64, 1 thread)"
    assert run_label(one, old) == "CPU (x86_64, 1 thread), 1 seed"
    two = pd.DataFrame({"seed": [0, 1]})
    assert run_label(two, {"device_name": "CPU (x86_64, 2 threads)"}) == (
        "CPU (x86_64, 2 threads), 2 seeds")
    assert run_label(pd.DataFrame({"x": [1]}), {"device": "cpu", "seeds": 3}) == "cpu, 3 seeds"
    resumed = {"device_name": "NVIDIA H100", "invocations": [
        {"device_name": "NVIDIA H200", "points_done": 24},
        {"device_name": "NVIDIA H200", "points_done": 32},
        {"device_name": "NVIDIA H100", "points_done": 48},
        {"device_name": "NVIDIA H100", "points_done": 48}]}
    assert device_label(resumed) == "NVIDIA H200 (32 points) and NVIDIA H100 (16 points)"
    resumed["invocations"] = resumed["invocations"][2:]
    assert device_label(resumed) == "NVIDIA H100"  # one card: its name alone
    resumed["invocations"] = [{"device_name": "NVIDIA H200", "points_done": None},
                              {"device_name": "NVIDIA H100", "points_done": 8}]
    assert device_label(resumed) == "NVIDIA H100"  # a count not recorded: the run's own card


def test_a_table_of_an_earlier_profile_reads_as_partial(tmp_path, monkeypatch):
    """A result computed before its profile changed is not today's grid: the book, the
    scorecard and the GPU queue must not read it as complete."""
    from memnb.provenance import partial_summary, profile_change

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    done = run_experiment("tiny.slow", "full", root=tmp_path)
    assert done.complete and profile_change(done.provenance) is None
    assert partial_summary(done.provenance) is None
    earlier = {**done.provenance, "params": {**done.provenance["params"], "extra": [1, 2]}}
    change = profile_change(earlier)
    assert change == "computed under an earlier `full` profile (extra [1, 2], today not set)"
    kinds = {**done.provenance, "params": {**done.provenance["params"], "kinds": ["mlp_code"]}}
    assert "(kinds [mlp_code], today not set)" in profile_change(kinds)  # prose, not JSON
    # a recipe (a dict) names only the entries that changed
    from memnb.provenance import _changed_params

    assert _changed_params({"train": {"steps": 10, "lr": 0.1}, "N": 5},
                           {"train": {"steps": 20, "lr": 0.1}, "N": 5}) == [
        ("train.steps", 10, 20)]
    # a grid listed in another order runs the same points: no change; other values are one
    assert _changed_params({"widths": [[16, 32], [8, 16]]}, {"widths": [[8, 16], [16, 32]]}) == []
    assert _changed_params({"widths": [[16, 32], [8, 16]]}, {"widths": [[16, 8], [32, 16]]}) == [
        ("widths", [[16, 32], [8, 16]], [[16, 8], [32, 16]])]
    assert _changed_params({"N": [1, 1, 2]}, {"N": [1, 2, 2]}) == [("N", [1, 1, 2], [1, 2, 2])]
    assert partial_summary(earlier) == change  # complete, but not today's grid
    stopped = {**earlier, "complete": False, "points_done": 1, "missing_points": [{"x": 1}]}
    assert partial_summary(stopped).endswith(f"; {change}")
    assert profile_change({**earlier, "experiment": "no.such"}) is None


def test_supersede_keeps_a_result_of_other_code_under_its_fingerprint(tmp_path):
    """A run of today's code can replace a table of older code only after the older one is kept
    (``<profile>/superseded/<name>.<code>.*``), readable with its provenance; today's own result,
    a missing one, one without a fingerprint and a second copy of the same code are refused."""
    from memnb.provenance import cpu_denormals

    with pytest.raises(FileNotFoundError, match="dana.exp6: no `ci` result to supersede"):
        results.supersede("dana.exp6", "ci", tmp_path)
    first = run_experiment("dana.exp6", "ci", seeds=1, root=tmp_path)
    with pytest.raises(ValueError, match="computed by today's code"):
        results.supersede("dana.exp6", "ci", tmp_path)
    provenance = {**first.provenance, "code_fingerprint": "0123456789abcdef"}
    del provenance["cpu_denormals"]  # as recorded before memnb flushed denormals
    first.provenance_path.write_text(json.dumps(provenance))
    kept = results.supersede("dana.exp6", "ci", tmp_path)
    assert kept.csv_path == tmp_path / "ci" / "superseded" / "dana.exp6.0123456789abcdef.csv"
    assert load("dana.exp6", "ci", root=tmp_path) is None  # the place is free for today's run
    [earlier] = results.load_superseded("dana.exp6", "ci", tmp_path)
    pd.testing.assert_frame_equal(earlier.table, first.table)
    assert cpu_denormals(earlier.provenance) == "ieee"
    assert results.load_superseded("dana.exp1", "ci", tmp_path) == []
    second = run_experiment("dana.exp6", "ci", seeds=1, root=tmp_path)
    assert cpu_denormals(second.provenance) == numerics.mode()
    second.provenance_path.write_text(json.dumps({**second.provenance,
                                                  "code_fingerprint": "0123456789abcdef"}))
    with pytest.raises(ValueError, match="already kept"):
        results.supersede("dana.exp6", "ci", tmp_path)
    second.provenance_path.write_text(json.dumps({**second.provenance, "code_fingerprint": None}))
    with pytest.raises(ValueError, match="records no code_fingerprint"):
        results.supersede("dana.exp6", "ci", tmp_path)
    with pytest.raises(ValueError, match="code must be a code fingerprint"):
        results.superseded_paths("dana.exp6", "ci", "../x", tmp_path)


def test_a_full_run_of_other_code_keeps_the_result_it_replaces(tmp_path, monkeypatch):
    """Under ``full`` a written result of other code is superseded, not overwritten, and the
    latest result of each code is kept; other profiles' results are simply rewritten."""
    calls: list = []
    _slow_experiment(monkeypatch, calls)
    replaced = {}
    for profile in ("full", "quick"):
        first = run_experiment("tiny.slow", profile, root=tmp_path)
        first.provenance_path.write_text(json.dumps({**first.provenance,
                                                     "code_fingerprint": "0123456789abcdef"}))
        replaced[profile] = first.table
        second = run_experiment("tiny.slow", profile, root=tmp_path)  # points from the cache
        assert second.provenance["code_fingerprint"] != "0123456789abcdef"
    assert len(calls) == 12  # each profile computed its six points once
    [kept] = results.load_superseded("tiny.slow", "full", tmp_path)
    assert kept.provenance["code_fingerprint"] == "0123456789abcdef"
    pd.testing.assert_frame_equal(kept.table, replaced["full"])
    assert results.load_superseded("tiny.slow", "quick", tmp_path) == []
    run_experiment("tiny.slow", "full", root=tmp_path)  # today's code again: nothing to keep
    assert len(results.load_superseded("tiny.slow", "full", tmp_path)) == 1


def test_a_full_run_under_a_changed_profile_keeps_the_earlier_table_and_not_its_history(
        tmp_path, monkeypatch):
    """Today's code under a changed ``full`` profile computes other points: the partial table of
    the earlier profile is kept under superseded/ (not overwritten), and the new table's
    invocations and total wall time are its own, not the earlier profile's."""
    from memnb.experiments import registry

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    earlier = run_experiment("tiny.slow", "full", root=tmp_path, time_limit_s=1.6)
    assert not earlier.complete
    with pytest.raises(ValueError, match="under today's profile"):
        results.supersede("tiny.slow", "full", tmp_path)  # a rerun resumes it instead
    exp = registry._REGISTRY["tiny.slow"]
    changed = {**exp.profiles, "full": {"n": 4, "seeds": 1}}
    monkeypatch.setitem(registry._REGISTRY, "tiny.slow",
                        registry.Experiment(exp.name, exp.title, exp.paper_figure, changed,
                                            exp.fn))
    today = run_experiment("tiny.slow", "full", root=tmp_path)
    assert today.complete and len(today.table) == 4
    assert len(today.provenance["invocations"]) == 1
    assert today.provenance["total_wall_time_s"] == today.provenance["wall_time_s"]
    [kept] = results.load_superseded("tiny.slow", "full", tmp_path)
    assert kept.provenance["params"]["n"] == 6 and not kept.complete
    pd.testing.assert_frame_equal(kept.table, earlier.table)


def test_a_chapter_is_told_when_the_full_run_it_draws_is_of_earlier_code(tmp_path, monkeypatch):
    """``fresh_and_cached``'s note names the code of a committed full run that today's code did
    not compute (its fingerprint and denormal mode); a run of today's code needs no such words."""
    from memnb.provenance import arithmetic_label, short_commit

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    full = run_experiment("tiny.slow", "full", root=tmp_path)
    assert results.computed_by_todays_code("tiny.slow", full.provenance)
    assert results.todays_code("tiny.slow") == full.provenance["code_fingerprint"]
    note = results.fresh_and_cached("tiny.slow", "ci", root=tmp_path).note
    assert "beside the committed full-scale run" in note and "earlier code" not in note
    earlier = {**full.provenance, "code_fingerprint": "0123456789abcdef"}
    del earlier["cpu_denormals"]  # as recorded before memnb flushed denormals
    full.provenance_path.write_text(json.dumps(earlier))
    assert not results.computed_by_todays_code("tiny.slow", earlier)
    note = results.fresh_and_cached("tiny.slow", "ci", root=tmp_path).note
    assert note.endswith("computed by earlier code (code fingerprint 0123456789abcdef, "
                         "IEEE denormals)")
    # the code a reader can check out
    assert f"commit {short_commit(earlier['git_commit'])})" in note
    # a run resumed over several commits names each commit that computed points
    resumed = {**full.provenance, "invocations": [
        {"git_commit": "aaaaaaa1", "started_utc": "2026-01-01T00:00:00", "points_done": 2},
        {"git_commit": "bbbbbbb2", "started_utc": "2026-01-02T00:00:00", "points_done": 5}]}
    full.provenance_path.write_text(json.dumps(resumed))
    note = results.fresh_and_cached("tiny.slow", "ci", root=tmp_path).note
    assert "commits aaaaaaa (2 points, 2026-01-01), bbbbbbb (3 points, 2026-01-02))" in note
    assert arithmetic_label({"cpu_denormals": "flushed"}) == "flushed denormals"
    assert arithmetic_label({"cpu_denormals": "daz-only"}) == "daz-only denormals"
    assert arithmetic_label({"device": "cuda:0", "cpu_denormals": "flushed"}) == (
        "GPU arithmetic")


def _as_earlier_code(result) -> dict:
    """Rewrite a written result's provenance as if earlier code had computed it."""
    earlier = {**result.provenance, "code_fingerprint": "0123456789abcdef"}
    result.provenance_path.write_text(json.dumps(earlier))
    return earlier


def test_a_rerun_computes_beside_the_result_it_replaces_and_adopts_itself_when_complete(
        tmp_path, monkeypatch, capsys):
    """``memnb run --rerun`` (:mod:`memnb.reruns`) computes today's code's table in
    ``rerun/<profile>/``: while partial, the earlier result stays where the chapters read it;
    the rerun resumes from its own cache copied to another checkout; when complete it takes the
    earlier result's place, which is kept under ``superseded/``, and its point files join the
    profile's cache."""
    import shutil

    from memnb import reruns

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    first = tmp_path / "session1"
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(first))
    with pytest.raises(ValueError, match="no `full` result to rerun"):
        reruns.rerun_experiment("tiny.slow", "full")
    assert cli.main(["run", "tiny.slow", "--profile", "full", "--rerun"]) == 2
    assert "no `full` result to rerun" in capsys.readouterr().err
    committed = run_experiment("tiny.slow", "full")
    with pytest.raises(ValueError, match="today's code under today's profile; nothing to rerun"):
        reruns.rerun_experiment("tiny.slow", "full")
    assert reruns.rerun_reason("tiny.slow", committed.provenance) is None
    earlier = _as_earlier_code(committed)
    assert reruns.rerun_reason("tiny.slow", earlier) == (
        "computed by earlier code (0123456789abcdef)")
    shutil.rmtree(first / "full" / ".cache")  # the earlier code's points: not today's
    calls.clear()

    assert cli.main(["run", "tiny.slow", "--profile", "full", "--rerun",
                     "--time-limit", "1.6"]) == cli.PARTIAL
    done = len(calls)
    assert 1 <= done < 6
    assert load("tiny.slow", "full").provenance == earlier  # still where it was, untouched
    rerun = load("tiny.slow", "full", reruns.rerun_root())
    assert not rerun.complete and rerun.provenance["points_done"] == done
    assert rerun.provenance["rerun_of"] == {
        "code_fingerprint": "0123456789abcdef", "git_commit": earlier["git_commit"],
        "started_utc": earlier["started_utc"], "reason": "computed by earlier code "
                                                         "(0123456789abcdef)"}
    assert rerun.provenance["command"] == (
        "rerun_experiment('tiny.slow', 'full', device='cpu', seeds=1)")
    progress = reruns.rerun_progress("tiny.slow", "full")
    assert progress.startswith(f"a rerun by today's code has computed {done} of the 6 points "
                               "of today's profile")
    note = results.fresh_and_cached("tiny.slow", "ci").note
    assert note.endswith(progress) and "computed by earlier code" in note
    from memnb.scorecard import ResultSource

    source = ResultSource("full")
    source.table("tiny.slow")
    assert ("computed by earlier code (code fingerprint 0123456789abcdef, flushed denormals); "
            f"{progress}") in (
        source.evidence())
    assert results.load_superseded("tiny.slow", "full") == []

    second = tmp_path / "session2"  # a fresh checkout with what the first session committed
    shutil.copytree(first, second)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(second))
    calls.clear()
    adopted = reruns.rerun_experiment("tiny.slow", "full")
    assert calls == list(range(done, 6))  # only the missing points were computed
    assert adopted.complete and adopted.csv_path == second / "full" / "tiny.slow.csv"
    assert results.computed_by_todays_code("tiny.slow", adopted.provenance)
    assert [r["points_done"] for r in adopted.provenance["invocations"]] == [done, None]
    assert adopted.provenance["rerun_of"]["code_fingerprint"] == "0123456789abcdef"
    [kept] = results.load_superseded("tiny.slow", "full")
    assert kept.provenance == earlier
    assert reruns.rerun_progress("tiny.slow", "full") is None
    assert not (second / "rerun" / "full" / ".cache" / "tiny.slow").exists()
    assert results.cached_point_files("tiny.slow", "full") == (6, 6)
    with pytest.raises(ValueError, match="no complete `full` rerun to adopt"):
        reruns.adopt_rerun("tiny.slow", "full")


def test_a_run_on_another_kind_of_device_does_not_reuse_the_cached_points_of_a_run(
        tmp_path, monkeypatch, capsys):
    """A point's cache key names its parameters and code, not its device: a CPU run would reuse
    the points a GPU run cached and write one table of two devices' arithmetic under a
    provenance naming only the CPU. It is refused, with the command that continues the run
    on its own device; a run of other code, or on the same kind of device, is not."""
    calls: list = []
    _slow_experiment(monkeypatch, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "tiny.slow", "--profile", "full", "--time-limit", "1.6"]) == (
        cli.PARTIAL)
    # a partial full run says what to commit so that a fresh clone resumes it
    assert (f"commit the table, its provenance and its point cache: git add -f "
            f"{tmp_path / 'full' / '.cache' / 'tiny.slow'}/*.json") in capsys.readouterr().err
    partial = load("tiny.slow", "full")
    done = partial.provenance["points_done"]
    assert results.continue_command("tiny.slow", "full", partial.provenance) == (
        "memnb run tiny.slow --profile full --time-limit SECONDS")
    assert results.mixed_device_error("tiny.slow", "full", "cpu") is None
    on_gpu = {**partial.provenance, "device": "cuda", "device_name": "NVIDIA H200"}
    partial.provenance_path.write_text(json.dumps(on_gpu))  # as if a lent GPU had run it

    calls.clear()
    assert cli.main(["run", "tiny.slow", "--profile", "full"]) == 2
    err = capsys.readouterr().err
    assert "device: tiny.slow (full) was run on NVIDIA H200 (device 'cuda')" in err
    assert f"{done} point" in err and str(tmp_path / "full" / ".cache" / "tiny.slow") in err
    assert "`memnb run tiny.slow --profile full --device cuda --time-limit SECONDS`" in err
    assert "MEMNB_RESULTS_DIR=PATH memnb run tiny.slow --profile full --device cpu" in err
    assert calls == [] and load("tiny.slow", "full").provenance == on_gpu  # nothing touched
    with pytest.raises(ValueError, match="two devices' arithmetic"):
        run_experiment("tiny.slow", "full")
    assert results.mixed_device_error("tiny.slow", "full", "cuda:1") is None  # same kind

    earlier = _as_earlier_code(load("tiny.slow", "full"))  # points of other code: not reused
    assert earlier["device"] == "cuda"
    assert results.mixed_device_error("tiny.slow", "full", "cpu") is None


def test_a_first_sigterm_stops_cleanly_and_writes_a_partial_run(tmp_path, monkeypatch, capsys):
    """``memnb run`` without a time limit, sent SIGTERM during its second group: that group
    finishes (no training loop to pause here), no further group starts, and the table and
    provenance are written as a partial run that says it was stopped on request; the same
    command then computes only the rest."""
    import os
    import signal

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    from memnb.experiments import registry

    slow = registry._REGISTRY["tiny.slow"]

    def fn(params, **kwargs):
        from memnb import sweep

        def group(g):
            if g[0]["x"] == 1:
                os.kill(os.getpid(), signal.SIGTERM)
            calls.extend(p["x"] for p in g)
            return [[{"y": p["x"] ** 2}] for p in g]

        points = sweep.grid(x=list(range(params["n"])), seed=[0])
        return sweep.run_sweep(points, group, cache_dir=kwargs["cache_dir"], progress=False)

    monkeypatch.setitem(registry._REGISTRY, "tiny.slow",
                        registry.Experiment("tiny.slow", slow.title, slow.paper_figure,
                                            slow.profiles, fn))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    before = signal.getsignal(signal.SIGTERM)
    assert cli.main(["run", "tiny.slow", "--profile", "ci"]) == cli.PARTIAL
    assert signal.getsignal(signal.SIGTERM) is before  # restored
    err = capsys.readouterr().err
    assert "memnb run: stopping on SIGTERM: the running group saves its state" in err
    assert "(a second SIGTERM, or a Ctrl-C, stops at once;" in err
    assert "stopped on request (Ctrl-C or SIGTERM) with 2 of 6 points" in err
    provenance = json.loads((tmp_path / "ci" / "tiny.slow.json").read_text())
    assert provenance["complete"] is False and provenance["points_done"] == 2
    assert provenance["stopped"] == "on request (Ctrl-C or SIGTERM)"
    assert provenance["time_limit_s"] is None
    assert provenance["invocations"][-1]["points_done"] == 2
    assert pd.read_csv(tmp_path / "ci" / "tiny.slow.csv")["x"].tolist() == [0, 1]
    calls.clear()
    assert cli.main(["run", "tiny.slow", "--profile", "ci"]) == 0
    assert calls == [2, 3, 4, 5]  # only the missing points
    provenance = json.loads((tmp_path / "ci" / "tiny.slow.json").read_text())
    assert provenance["complete"] is True and provenance["invocations"][-1]["points_done"] is None


def test_computing_invocation_skips_an_invocation_that_only_read_the_cache():
    """A table assembled from points another command computed names the invocation that
    computed them, not the assembly (dana.exp1 from dana.exp4's runs)."""
    from memnb.provenance import computing_invocation

    calls = [{"started_utc": "a", "git_commit": "c1", "points_done": 140},
             {"started_utc": "b", "git_commit": "c1", "points_done": 385},
             {"started_utc": "c", "git_commit": "c2", "points_done": 385}]
    prov = {"git_commit": "c2", "started_utc": "c", "invocations": calls}
    assert computing_invocation(prov) == {"git_commit": "c1", "started_utc": "b"}
    # a resumed run whose last call computed points names that call
    assert computing_invocation({**prov, "invocations": calls[:2]})["started_utc"] == "b"
    # without the counts, the provenance's own
    bare = {**prov, "invocations": [{k: v for k, v in c.items() if k != "points_done"}
                                    for c in calls]}
    assert computing_invocation(bare) == {"git_commit": "c2", "started_utc": "c"}
    assert computing_invocation({"git_commit": "x", "started_utc": "y"})["git_commit"] == "x"


def test_a_grid_listed_in_another_order_resumes_with_its_history(tmp_path, monkeypatch):
    """A profile that lists the same grid in another order (Fig. 7's widths, narrower first)
    runs the same points: the partial run resumes from its cache, keeps its invocations and is
    not superseded."""
    from memnb.experiments import registry
    from memnb.provenance import profile_change

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    exp = registry._REGISTRY["tiny.slow"]

    def listed(order: list[int]) -> None:
        profiles = {**exp.profiles, "full": {"n": 6, "seeds": 1, "order": order}}
        monkeypatch.setitem(registry._REGISTRY, "tiny.slow", registry.Experiment(
            exp.name, exp.title, exp.paper_figure, profiles, exp.fn))

    listed([16, 8])
    partial = run_experiment("tiny.slow", "full", root=tmp_path, time_limit_s=1.6)
    done = len(calls)
    assert not partial.complete and done < 6
    listed([8, 16])
    assert profile_change(partial.provenance) is None
    calls.clear()
    resumed = run_experiment("tiny.slow", "full", root=tmp_path)
    assert resumed.complete and calls == list(range(done, 6))
    assert [r["points_done"] for r in resumed.provenance["invocations"]] == [done, None]
    assert results.load_superseded("tiny.slow", "full", tmp_path) == []


def test_a_paused_group_is_said_to_continue_in_this_checkout_only(tmp_path, monkeypatch):
    """A point cache inside the checkout: in this checkout only (not committed); one outside it
    (MEMNB_RESULTS_DIR elsewhere): in this results folder only."""
    from memnb import paths

    cache = tmp_path / ".cache" / "tiny.slow"
    assert cli.paused_notice(cache) is None  # nothing paused: nothing to say
    (cache / "paused").mkdir(parents=True)
    (cache / "paused" / "abc.code.call1.pt").write_bytes(b"x" * 3 * 2**20)
    assert cli.paused_notice(cache) == (
        f"1 paused training state (3.0 MiB) in {cache / 'paused'} continues the group in "
        "progress in this results folder only; a run into another results folder trains that "
        "group from its start")
    monkeypatch.setattr(paths, "REPO_ROOT", tmp_path)  # the cache now lies in the checkout
    assert cli.paused_notice(cache) == (
        f"1 paused training state (3.0 MiB) in {cache / 'paused'} continues the group in "
        "progress in this checkout only (not committed); another checkout trains that group "
        "from its start")


def test_a_complete_full_result_is_not_recomputed_over_itself(tmp_path, monkeypatch, capsys):
    """A complete full result of today's code whose points are not cached (complete runs commit
    none) is not run again in place: the run would recompute every point and, stopped early,
    write a partial table over the complete one. The CLI says where to compute it instead; with
    its points cached (the checkout that computed it) the run only reads them."""
    import shutil

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert results.complete_already("tiny.slow", "full") is None  # nothing written yet
    assert cli.main(["run", "tiny.slow", "--profile", "full"]) == 0
    assert results.complete_already("tiny.slow", "full") is None  # its points are cached
    assert cli.main(["run", "tiny.slow", "--profile", "full"]) == 0
    shutil.rmtree(tmp_path / "full" / ".cache")  # as in a fresh clone
    table = (tmp_path / "full" / "tiny.slow.csv").read_text()
    calls.clear()
    assert cli.main(["run", "tiny.slow", "--profile", "full"]) == 2
    err = capsys.readouterr().err
    assert "is a complete `full` result of today's code and profile" in err
    assert "MEMNB_RESULTS_DIR=PATH memnb run tiny.slow --profile full" in err
    assert not calls and (tmp_path / "full" / "tiny.slow.csv").read_text() == table
    # the suggested command repeats the options given (review finding: it dropped them)
    assert cli.main(["run", "tiny.slow", "--profile", "full", "--seeds", "2",
                     "--time-limit", "90"]) == 2
    assert ("MEMNB_RESULTS_DIR=PATH memnb run tiny.slow --profile full --seeds 2 --time-limit 90"
            in capsys.readouterr().err)
    assert cli.main(["run", "tiny.slow", "--profile", "full", "--time-limit", "1234567.5"]) == 2
    assert "--profile full --time-limit 1234567.5" in capsys.readouterr().err  # not rounded
    assert results.complete_already("tiny.slow", "quick") is None  # only `full` is guarded


def test_a_missing_dataset_is_a_clear_error_not_a_traceback(monkeypatch, capsys):
    """A dataset not in place ends `memnb run` with exit code 2 and the loader's message."""
    from memnb.experiments import registry

    def fn(params, *, seeds, device, cache_dir, executor=None):
        raise FileNotFoundError("MultiNLI not found: put it in data/external/mnli")

    profiles = {p: {"seeds": 1} for p in ("ci", "quick", "full")}
    monkeypatch.setitem(registry._REGISTRY, "tiny.nodata",
                        registry.Experiment("tiny.nodata", "needs data", "none", profiles, fn))
    assert cli.main(["run", "tiny.nodata", "--profile", "ci"]) == 2
    assert "memnb run: error: MultiNLI not found: put it in data/external/mnli" in (
        capsys.readouterr().err)


def test_a_device_is_checked_and_named_as_asked(monkeypatch):
    """check_device names the device asked for, index included, and the GPUs there are."""
    import torch

    with pytest.raises(ValueError, match=r"got 'tpu'"):
        results.check_device("tpu")
    with pytest.raises(ValueError, match=r"got 'cuda:x'"):
        results.check_device("cuda:x")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match=r"device 'cuda:7' requested but no CUDA GPU"):
        results.check_device("cuda:7")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ValueError, match=r"this machine has 1 CUDA GPU: N must lie in \[0, 0\]"):
        results.check_device("cuda:7")
    assert results.check_device("cuda:0") == "cuda:0" and results.check_device("cuda") == "cuda"
    assert results.check_device("cpu") == "cpu"


def test_an_unknown_name_or_executor_is_said_before_anything_runs(tmp_path, monkeypatch,
                                                                  capsys):
    """`memnb run NAME --rerun` with a name not registered says so (not "no result to
    rerun"), and a malformed --executor is refused before a point starts or a file is
    written."""
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "dana.nosuch", "--rerun"]) == 2
    assert "unknown experiment 'dana.nosuch'" in capsys.readouterr().err
    assert cli.main(["run", "dana.exp1", "--profile", "ci", "--executor", "foo"]) == 2
    assert ("executor must look like 'dask://HOST:PORT' (IPv6: dask://[ADDR]:PORT); got 'foo'"
            in capsys.readouterr().err)
    assert not any(tmp_path.rglob("*"))


def test_run_experiment_names_a_seed_count_of_the_wrong_type():
    with pytest.raises(ValueError, match="seeds must be an int, got '3'"):
        run_experiment("dana.exp1", "ci", seeds="3")
    with pytest.raises(ValueError, match=r"seeds must be in 1\.\.1000, got 0"):
        run_experiment("dana.exp1", "ci", seeds=0)
    assert results.MAX_SEEDS == 1000


def test_a_fault_while_computing_is_not_reported_as_bad_input(tmp_path, monkeypatch, capsys):
    """A ValueError raised while the points are computed is the experiment's fault (or its
    data's), not the arguments': run_experiment raises ExperimentFailed (a RuntimeError), and
    `memnb run` exits with 1 (not 2, a usage error) and one line saying what failed; its
    traceback only with --traceback, the one-line summary still last."""
    from memnb.experiments import registry

    def fn(params, *, seeds, device, cache_dir, executor=None):
        raise ValueError("N must be <= 40 for this dataset")

    profiles = {p: {"seeds": 1} for p in ("ci", "quick", "full")}
    monkeypatch.setitem(registry._REGISTRY, "tiny.faulty",
                        registry.Experiment("tiny.faulty", "fails", "none", profiles, fn))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    with pytest.raises(results.ExperimentFailed,
                       match="tiny.faulty failed while computing its points: ValueError: N must "
                             "be <= 40"):
        results.run_experiment("tiny.faulty", "ci")
    capsys.readouterr()
    assert cli.main(["run", "tiny.faulty", "--profile", "ci"]) == cli.FAILED == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "memnb run: error: tiny.faulty failed while computing its points: ValueError: N must be "
        "<= 40 for this dataset (rerun with --traceback to see where)"]
    assert cli.main(["run", "tiny.faulty", "--profile", "ci", "--traceback"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0] == "Traceback (most recent call last):" and "raise ValueError" in "".join(lines)
    assert lines[-1] == ("memnb run: error: tiny.faulty failed while computing its points: "
                         "ValueError: N must be <= 40 for this dataset")
    assert not (tmp_path / "ci" / "tiny.faulty.csv").exists()


@pytest.mark.parametrize("raised, wrapped", [(RuntimeError("CUDA out of memory"), True),
                                             (IndexError("index 3 is out of bounds"), True),
                                             (FileNotFoundError("mnli/dev_matched.jsonl"), False)])
def test_any_failure_while_computing_is_one_failure_but_a_missing_dataset(
        tmp_path, monkeypatch, raised, wrapped):
    """Every exception raised while the points are computed is an ExperimentFailed (exit 1,
    one line), a device's out-of-memory error included; a dataset not in place stays a
    FileNotFoundError, the usage error (exit 2) that names where to put it."""
    from memnb.experiments import registry

    def fn(params, *, seeds, device, cache_dir, executor=None):
        raise raised

    profiles = {p: {"seeds": 1} for p in ("ci", "quick", "full")}
    monkeypatch.setitem(registry._REGISTRY, "tiny.broken",
                        registry.Experiment("tiny.broken", "fails", "none", profiles, fn))
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    expected = results.ExperimentFailed if wrapped else FileNotFoundError
    with pytest.raises(expected, match=type(raised).__name__ if wrapped else "mnli"):
        results.run_experiment("tiny.broken", "ci")
    assert cli.main(["run", "tiny.broken", "--profile", "ci"]) == (1 if wrapped else 2)


def test_a_pending_call_already_in_the_history_is_not_counted_twice(tmp_path):
    """A call that wrote its table and stopped before it removed the pending file leaves a
    record that its provenance already lists: the next table does not count it again."""
    import types

    record = {"started_utc": "2026-11-29T03:35:08+00:00", "wall_time_s": 0.33,
              "git_commit": "abc", "device_name": "cpu", "points_done": 0, "data_files": {}}
    keys = {"code_fingerprint": "f", "profile": "quick", "params": {"x": [0, 1]}, "seeds": 1,
            "device": "cpu"}
    previous = {**keys, **record, "complete": False, "started_utc": "2026-11-29T03:35:09+00:00",
                "invocations": [record, {**record, "started_utc": "2026-11-29T03:35:09+00:00",
                                         "points_done": 1}]}
    json_path = tmp_path / "t.json"
    json_path.write_text(json.dumps(previous))
    now = {**keys, **record, "started_utc": "2026-11-29T03:36:00+00:00", "wall_time_s": 1.0}
    out = results._invocations(json_path, now, types.SimpleNamespace(stopped=False, done=2),
                               True, pending=[{**keys, **record}])
    assert [r["started_utc"] for r in out["invocations"]] == [
        "2026-11-29T03:35:08+00:00", "2026-11-29T03:35:09+00:00", "2026-11-29T03:36:00+00:00"]


def test_a_full_build_reads_a_complete_committed_table_instead_of_recomputing_it(
        tmp_path, monkeypatch):
    """Under PROFILE=full the chapters' loader reads a complete full table of today's code whose
    points are not cached (as committed), as `memnb run` refuses to recompute it; with the
    points cached it resumes from them as before."""
    import shutil

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    full = run_experiment("tiny.slow", "full", root=tmp_path)
    assert full.complete and len(calls) == 6
    shutil.rmtree(tmp_path / "full" / ".cache")  # as committed: no point cache
    calls.clear()
    shown = results.fresh_and_cached("tiny.slow", "full", root=tmp_path)
    assert calls == [] and len(shown.fresh) == len(full.table)
    assert "the committed one, read, not computed again" in shown.note


def test_calls_that_wrote_no_table_join_the_next_provenance(tmp_path, monkeypatch):
    """A call stopped at its limit before a point finished writes no table, but its invocation
    is kept (``<cache>/pending/invocations.json``) and the next table written lists it, its
    wall time counted in ``total_wall_time_s``; a pending call of other seeds is not this
    table's and is left out, kept for a table of its own seeds. The pending file goes once every
    record in it is taken."""
    from memnb import sweep
    from memnb.experiments import registry

    calls: list = []

    def fn(params, *, seeds, device, cache_dir, executor=None):
        time.sleep(0.3)  # set-up longer than the limit: no group starts
        return sweep.run_sweep(sweep.grid(x=[0, 1, 2], seed=list(range(seeds))),
                               lambda g: calls.extend(g) or [[{"y": 1}] for _ in g],
                               cache_dir=cache_dir, progress=False)

    profiles = {p: {"seeds": 1} for p in ("ci", "quick", "full")}
    monkeypatch.setitem(registry._REGISTRY, "tiny.late",
                        registry.Experiment("tiny.late", "late", "none", profiles, fn))
    pending = results.pending_invocations_path(results.point_cache_dir("tiny.late", "quick",
                                                                       tmp_path))
    for seeds in (1, 2, 1):
        with pytest.raises(results.TimeLimitReached, match="0 points finished") as stop:
            run_experiment("tiny.late", "quick", root=tmp_path, seeds=seeds, time_limit_s=0.1)
        assert stop.value.cache_dir == pending.parent.parent
    assert calls == [] and not (tmp_path / "quick" / "tiny.late.json").exists()
    waiting = json.loads(pending.read_text())
    assert [r["seeds"] for r in waiting] == [1, 2, 1]
    assert all(r["wall_time_s"] >= 0.3 and r["points_done"] == 0 for r in waiting)
    # the pending record is not counted as a point file of the cache
    assert results.cached_point_files("tiny.late", "quick", tmp_path) == (0, 0)

    done = run_experiment("tiny.late", "quick", root=tmp_path, seeds=1)
    history = done.provenance["invocations"]
    assert done.complete and len(calls) == 3 and len(history) == 3
    assert [r["points_done"] for r in history] == [0, 0, None]
    assert [r["started_utc"] for r in history[:2]] == [waiting[0]["started_utc"],
                                                      waiting[2]["started_utc"]]
    assert set(history[0]) == set(history[-1])  # the invocation records' fields, unchanged
    assert done.provenance["total_wall_time_s"] == pytest.approx(
        waiting[0]["wall_time_s"] + waiting[2]["wall_time_s"] + done.provenance["wall_time_s"],
        abs=0.02)
    # the call of two seeds is not this table's: it waits for a table of two seeds
    assert json.loads(pending.read_text()) == [waiting[1]]
    again = run_experiment("tiny.late", "quick", root=tmp_path, seeds=1)
    assert len(again.provenance["invocations"]) == 1  # a complete table starts anew
    two = run_experiment("tiny.late", "quick", root=tmp_path, seeds=2)
    assert [r["started_utc"] for r in two.provenance["invocations"][:1]] == [
        waiting[1]["started_utc"]]
    assert not pending.exists() and not pending.parent.exists()


def test_cached_points_reused_counts_this_tables_points_only(tmp_path, monkeypatch):
    """``cached_points_reused`` counts the points of this table read from the cache, not every
    file of the cache: after a run of 3 seeds, a run of 1 seed reads 2 points (not 6), and
    asking for more seeds than ``max_seeds`` runs, and reads, the same points as before."""
    from memnb import sweep
    from memnb.experiments import registry
    from memnb.profiles import seeds_run
    from memnb.sweep import grid

    calls: list = []

    def fn(params, *, seeds, device, cache_dir, executor=None):
        points = grid(x=[0, 1], seed=list(range(seeds_run(params, seeds))))
        return sweep.run_sweep(points, lambda g: calls.extend(g) or [[{"y": 1}] for _ in g],
                               cache_dir=cache_dir, progress=False)

    profiles = {p: {"max_seeds": 3} for p in ("ci", "quick", "full")}
    monkeypatch.setitem(registry._REGISTRY, "tiny.seeded",
                        registry.Experiment("tiny.seeded", "seeded", "none", profiles, fn))
    three = run_experiment("tiny.seeded", "ci", seeds=3, root=tmp_path)
    assert three.provenance["cached_points_reused"] == 0 and len(calls) == 6
    one = run_experiment("tiny.seeded", "ci", seeds=1, root=tmp_path)
    assert one.provenance["cached_points_reused"] == 2 and len(calls) == 6
    again = run_experiment("tiny.seeded", "ci", seeds=3, root=tmp_path)
    assert again.provenance["cached_points_reused"] == 6  # the 1-seed run replaced its JSON
    # asking past max_seeds runs the same seeds; the 3-seed record above only read the cache,
    # so it is not kept: this call writes its own, which says it computed none
    capped = run_experiment("tiny.seeded", "ci", seeds=9, root=tmp_path)
    assert not capped.provenance_kept and len(calls) == 6
    assert capped.provenance["seeds_run"] == 3 and capped.provenance["points_computed"] == 0
    assert capped.provenance["cached_points_reused"] == 6


def test_a_run_says_what_it_read_from_the_cache(tmp_path, monkeypatch, capsys):
    """A call that reads points from the cache says how many, of how many, and how many it
    computed; one that computed none of a complete run's points says its provenance was kept."""
    calls: list = []
    _slow_experiment(monkeypatch, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    assert cli.main(["run", "tiny.slow", "--profile", "ci"]) == 0
    out = capsys.readouterr()
    assert "read from the point cache" not in out.err and "provenance written" in out.out
    cache = tmp_path / "ci" / ".cache" / "tiny.slow"
    sorted(cache.glob("*.json"))[0].unlink()
    assert cli.main(["run", "tiny.slow", "--profile", "ci"]) == 0
    out = capsys.readouterr()
    assert ("memnb run: note: 5 of the 6 points read from the point cache (computed by earlier "
            "calls), 1 computed now\n") in out.err
    assert cli.main(["run", "tiny.slow", "--profile", "ci"]) == 0
    out = capsys.readouterr()
    assert "6 of the 6 points read from the point cache (computed by earlier calls), 0 " \
           "computed now; the provenance of the run that computed them (" in out.err
    assert "provenance kept at" in out.out


def test_a_recomputed_corrupted_point_counts_as_computed_and_a_read_only_record_is_not_kept(
        tmp_path, monkeypatch):
    """A corrupted point file rewritten by the sweep is a point this call computed (its
    provenance is written, not kept); a provenance whose calls only read the cache names no
    computing call (``read_only``) and is replaced by the next call rather than kept."""
    import warnings

    from memnb.provenance import computing_invocation

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    first = run_experiment("tiny.slow", "ci", root=tmp_path)
    assert first.provenance["points_computed"] == 6
    assert first.provenance["invocations"][-1]["points_computed"] == 6
    assert not computing_invocation(first.provenance).get("read_only")
    cache = tmp_path / "ci" / ".cache" / "tiny.slow"
    bad = sorted(cache.glob("*.json"))[0]
    bad.write_text("garbage")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sweep's warning on the corrupted file
        again = run_experiment("tiny.slow", "ci", root=tmp_path)
    assert not again.provenance_kept and again.points_computed == 1 and again.points_read == 5
    assert again.provenance["points_computed"] == 1 and len(calls) == 7
    # a record of a call that only read the cache (as an older build leaves): not kept
    read_only = {**again.provenance, "points_computed": 0, "cached_points_reused": 6,
                 "invocations": [{**again.provenance["invocations"][-1], "points_computed": 0}]}
    assert computing_invocation(read_only).get("read_only")
    again.provenance_path.write_text(json.dumps(read_only))
    third = run_experiment("tiny.slow", "ci", root=tmp_path)
    assert not third.provenance_kept and third.provenance["points_computed"] == 0
    summary = provenance_summary(["tiny.slow"], "ci", root=tmp_path)
    assert bool(summary.iloc[0]["read_only"])


def test_seeds_asked_is_the_profiles_seeds_or_its_default():
    """``Experiment.seeds_asked``, read by ``memnb run``, ``memnb list`` and the planner: a
    profile's own ``seeds`` where it names them, else the profile's default."""
    from memnb.profiles import default_seeds

    assert get("dana.exp6").seeds_asked("full") == load_all()["dana.exp6"].profiles["full"].get(
        "seeds", default_seeds("full"))
    assert get("dana.exp1").seeds_asked("quick") == default_seeds("quick")


def test_a_full_run_over_fewer_seeds_does_not_replace_the_written_one(tmp_path, monkeypatch,
                                                                       capsys):
    """One table and one provenance record per experiment and profile: a ``full`` run over fewer
    seeds than the written result of today's code would shrink it, so it is refused before a
    point starts, naming ``--seeds``; as many seeds read the cache, and a ``quick`` run is not
    guarded (the book rewrites it at its default seeds)."""
    calls: list = []
    _slow_experiment(monkeypatch, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    monkeypatch.setattr(time, "sleep", lambda s: None)
    assert cli.main(["run", "tiny.slow", "--profile", "full", "--seeds", "2"]) == 0
    written = load("tiny.slow", "full")
    assert written.provenance["seeds_run"] == 2 and len(written.table) == 12
    capsys.readouterr()
    calls.clear()
    assert cli.main(["run", "tiny.slow", "--profile", "full", "--seeds", "1"]) == 2
    err = capsys.readouterr().err
    assert "seeds: the written `full` result of tiny.slow" in err
    assert "was run over 2 seeds by today's code; a run over 1 seed would replace" in err
    assert "Ask for --seeds 2 or more" in err
    assert "MEMNB_RESULTS_DIR=PATH memnb run tiny.slow --profile full --seeds 1" in err
    assert calls == [] and load("tiny.slow", "full").provenance == written.provenance
    assert results.fewer_seeds_error("tiny.slow", "full", 2) is None
    assert results.fewer_seeds_error("tiny.slow", "full", 3) is None
    # a record written before `seeds_run` was: the seeds asked are those it ran
    older = {k: v for k, v in written.provenance.items() if k != "seeds_run"}
    written.provenance_path.write_text(json.dumps(older))
    assert "was run over 2 seeds" in results.fewer_seeds_error("tiny.slow", "full", 1)
    # a result of other code is kept aside by the run (keep_other_code), not refused
    _as_earlier_code(load("tiny.slow", "full"))
    assert results.fewer_seeds_error("tiny.slow", "full", 1) is None
    assert cli.main(["run", "tiny.slow", "--profile", "quick", "--seeds", "2"]) == 0
    assert cli.main(["run", "tiny.slow", "--profile", "quick", "--seeds", "1"]) == 0


def test_a_full_run_without_seeds_continues_the_written_run_over_its_seeds(tmp_path, monkeypatch,
                                                                           capsys):
    """Without ``--seeds`` (the book's ``fresh_and_cached``, the GPU queue), a written ``full``
    run of today's code over more seeds than the profile's default is continued over its own
    seeds, not refused, and the CLI says so."""
    calls: list = []
    _slow_experiment(monkeypatch, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    monkeypatch.setattr(time, "sleep", lambda s: None)
    assert results.written_full_seeds("tiny.slow", "full") is None
    assert cli.main(["run", "tiny.slow", "--profile", "full", "--seeds", "3"]) == 0
    assert results.written_full_seeds("tiny.slow", "full") == (3, 3)
    capsys.readouterr()
    calls.clear()
    assert cli.main(["run", "tiny.slow", "--profile", "full"]) == 0  # the profile's: 1 seed
    err = capsys.readouterr().err
    assert ("tiny.slow: the written `full` result ran 3 seeds, more than the profile's 1: this "
            "run continues over them (--seeds 3)") in err
    assert calls == [] and len(load("tiny.slow", "full").table) == 18
    assert results.written_full_seeds("tiny.slow", "quick") is None  # full only


def test_a_time_limit_spent_before_any_group_says_a_rerun_would_stop_the_same_way(
        tmp_path, monkeypatch, capsys):
    """A limit that start-up used up leaves no time for a first group: nothing is saved, so
    "rerun to continue" would loop; the message says so and asks for a longer limit. The
    margins it names are the ones the code keeps, as the help text says."""
    from memnb import resume

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    with pytest.raises(results.TimeLimitReached) as err:
        run_experiment("tiny.slow", "ci", time_limit_s=0.5, clock_start=time.monotonic() - 1.0)
    text = str(err.value)
    assert calls == [] and "it saved no point and no training state, only the record of this call" \
        in text and "rerun the same command" not in text
    assert "of the 0.5 s limit had passed" in text and "give a longer --time-limit" in text
    assert (f"keeps {results.WRITE_MARGIN_FRACTION:.0%} of the limit, at most "
            f"{results.WRITE_MARGIN_MAX_S:g} s") in text
    assert f"pauses {resume.PAUSE_MARGIN_S:g} s before the limit" in text
    # a call that finished a point says the usual: rerun to continue
    assert cli.main(["run", "tiny.slow", "--profile", "ci", "--time-limit", "1.6"]) == cli.PARTIAL
    assert "rerun the same command to continue" in capsys.readouterr().err
    help_text = " ".join(cli.build_parser().get_default("commands")["run"]
                         .format_help().split())
    assert (f"{results.WRITE_MARGIN_FRACTION:.0%} of them (at most "
            f"{results.WRITE_MARGIN_MAX_S:g} s)") in help_text
    assert f"a loop pauses {resume.PAUSE_MARGIN_S:g} s before the limit" in help_text


def test_a_call_says_when_another_call_wrote_points_of_the_profile_meanwhile(tmp_path,
                                                                             monkeypatch):
    """``points_computed`` counts every point file of the profile written during a call; when
    another ``memnb run`` call on the same profile ran meanwhile (its record under
    ``.cache/.calls/``), the provenance and the invocation say so and name it, and an ended
    call or one of another machine is not counted."""
    from memnb.profile_calls import CONCURRENT_NOTE

    calls: list = []
    _slow_experiment(monkeypatch, calls)
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tmp_path))
    monkeypatch.setattr(time, "sleep", lambda s: None)
    alone = run_experiment("tiny.slow", "ci")
    assert CONCURRENT_NOTE not in alone.provenance and alone.points_computed == 6
    records = tmp_path / "ci" / ".cache" / ".calls"
    [mine] = list(records.glob("*.call"))
    assert json.loads(mine.read_text())["end"] >= json.loads(mine.read_text())["start"]
    assert all(".calls" not in str(p) for p in (tmp_path / "ci" / ".cache").glob("*/*.json"))

    import os
    import socket

    # another call, still running (its process alive, started before the record: pid 1, the
    # machine's first process, stands for it), that writes a point file of the profile
    other = records / "other.call"
    other.write_text(json.dumps({"pid": 1, "host": socket.gethostname(),
                                 "start": time.time() - 5}))
    neighbour = tmp_path / "ci" / ".cache" / "other.experiment"
    neighbour.mkdir(parents=True)
    from memnb.experiments import registry

    slow = registry._REGISTRY["tiny.slow"]

    def fn(params, *, seeds, device, cache_dir, executor=None):
        (neighbour / "point.json").write_text("{}")  # written by the other call meanwhile
        return slow_fn(params, seeds=seeds, device=device, cache_dir=cache_dir)

    slow_fn = slow.fn
    monkeypatch.setitem(registry._REGISTRY, "tiny.slow", dataclasses.replace(slow, fn=fn))
    shared = run_experiment("tiny.slow", "ci", seeds=2)
    note = shared.provenance[CONCURRENT_NOTE]
    assert "another memnb run call on this profile (pid 1) ran" in note
    assert "an upper bound" in note and shared.points_computed == 7  # 6 points + its file
    assert shared.provenance["invocations"][-1][CONCURRENT_NOTE] == note
    # an ended call, or one recorded on another machine (a GPU's, restored), does not count
    other.write_text(json.dumps({"pid": 1, "host": socket.gethostname(),
                                 "start": time.time() - 9, "end": time.time() - 8}))
    gpu = records / "gpu.call"
    gpu.write_text(json.dumps({"pid": os.getpid(), "host": "another-host", "start": 0}))
    again = run_experiment("tiny.slow", "ci", seeds=3)
    assert CONCURRENT_NOTE not in again.provenance
    # a record left open by a killed call: its process gone, or its pid now another process's
    # (started after the record), or this very process's pid: none counts; the gone one's file
    # is removed
    gone = records / "killed.call"
    gone.write_text(json.dumps({"pid": 2**22 + 12345, "host": socket.gethostname(),
                                "start": time.time() - 60}))
    reused = records / "reused.call"
    reused.write_text(json.dumps({"pid": os.getppid(), "host": socket.gethostname(),
                                  "start": 1.0}))  # long before its process started
    own = records / "own.call"
    own.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                               "start": time.time() - 60}))
    last = run_experiment("tiny.slow", "ci", seeds=4)
    assert CONCURRENT_NOTE not in last.provenance
    assert not gone.exists() and not reused.exists() and not own.exists()
