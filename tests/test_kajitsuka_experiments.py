"""Kajitsuka & Sato experiments: registry, packed Optuna training, capacity, caching."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from memnb import paths
from memnb.data.text import MNLI_FILE
from memnb.experiments import kajitsuka
from memnb.experiments.registry import load_all
from memnb.results import load, run_experiment

NAMES = ["kajitsuka.capacity", "kajitsuka.construction", "kajitsuka.imdb_curves",
         "kajitsuka.mnli_curves", "kajitsuka.random_curves", "kajitsuka.seq_len"]


def test_registered_with_all_profiles():
    experiments = load_all()
    for name in NAMES:
        assert name in experiments
        assert set(experiments[name].profiles) == {"ci", "quick", "full"}
    full = experiments["kajitsuka.capacity"].params("full")
    assert full["N"] == list(range(600, 1701, 100)) and full["trials"] == 10
    assert full["epochs"] == 1000


def _point(**over):
    base = {"dataset": "random", "N": 24, "n": 4, "vocab": 50, "classes": 2, "epochs": 20,
            "trials": 1, "eval_every": 5, "early_stop": False, "data_seed": 0, "max_blocks": 3,
            "record": "final", "blocks": 0, "seed": 0, **kajitsuka.MODEL}
    return {**base, **over}


def test_packed_group_equals_single_member_groups():
    points = [_point(blocks=b) for b in (0, 1, 3)]
    packed = kajitsuka.train_group(points, progress=False)
    for point, rows in zip(points, packed, strict=True):
        alone = kajitsuka.train_group([point], progress=False)[0]
        assert abs(rows[0]["loss"] - alone[0]["loss"]) < 1e-4
        assert rows[0]["params"] == alone[0]["params"]
    assert packed[0][0]["params"] < packed[2][0]["params"]
    with pytest.raises(ValueError, match="share"):
        kajitsuka.train_group([_point(), _point(N=30)], progress=False)


def test_optuna_trials_and_curves():
    points = [_point(blocks=1, trials=2, record="curve"), _point(blocks=2, trials=2,
                                                                 record="curve")]
    rows = kajitsuka.train_group(points, progress=False)
    for r in rows:
        epochs = [row["epoch"] for row in r]
        assert epochs == sorted(epochs) and epochs[0] == 0 and epochs[-1] == 20
        assert {row["trial"] for row in r} <= {0, 1}
        lo, hi = kajitsuka.SEARCH["lr"]
        assert lo <= r[0]["lr"] <= hi


def test_trials_trained_as_one_stack_equal_a_loop_of_trials():
    """The group's trials, drawn first and trained as one stack, give each point the best of
    the runs a loop of ask, train, tell would make (TPE draws at random for its first ten)."""
    import optuna

    from memnb.models.ffn_attention import FFNAttentionTransformer
    from memnb.train import TrainConfig, train_members

    points = [_point(blocks=2, max_blocks=2, trials=3, seed=s) for s in (0, 1)]
    rows = kajitsuka.train_group(points, progress=False)
    x, y, classes = kajitsuka.training_data(points[0])
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0))
    study.enqueue_trial(kajitsuka.DEFAULT_TRIAL)
    runs = []
    for _ in range(3):
        trial = study.ask()
        lr = trial.suggest_float("lr", *kajitsuka.SEARCH["lr"], log=True)
        wd = trial.suggest_float("weight_decay", *kajitsuka.SEARCH["weight_decay"])
        members = [FFNAttentionTransformer(x.shape[-1], classes, 4, 2, active_blocks=2,
                                           seed=p["seed"], d=p["d"], d_ff=p["d_ff"],
                                           num_heads=p["num_heads"]) for p in points]
        config = TrainConfig(steps=20, lr=lr, optimizer="adamw", weight_decay=wd,
                             schedule="constant", eval_every=5, early_stop=False, seed=0)
        result = train_members(members, x, y, config, progress=False)
        study.tell(trial, float(torch.log10(result.best_loss.clamp_min(1e-12)).mean()))
        runs.append((lr, wd, result))
    for k, point_rows in enumerate(rows):
        t = max(range(3), key=lambda t: (float(runs[t][2].accuracy[k]),
                                         -float(runs[t][2].best_loss[k]), -t))
        row = point_rows[0]
        assert (row["trial"], row["lr"], row["weight_decay"]) == (t, runs[t][0], runs[t][1])
        assert row["loss"] == pytest.approx(float(runs[t][2].best_loss[k]), rel=1e-5)
    assert {r[0]["trial"] for r in rows} <= {0, 1, 2}
    with pytest.raises(ValueError, match="trials must be between 1 and 10"):
        kajitsuka.train_group([_point(trials=11)], progress=False)


def test_capacity_table_and_depth_search():
    N = np.array([400, 900, 1600])
    table = pd.DataFrame([{"N": n, "seed": 0, "blocks": b,
                           "accuracy": float(b >= math.sqrt(n) / 10)}
                          for n in N for b in range(0, 6)])
    cap = kajitsuka.capacity_table(table)
    assert cap["min_blocks"].tolist() == [2.0, 3.0, 4.0]
    assert kajitsuka.non_monotone(table).empty
    none = kajitsuka.capacity_table(table.assign(accuracy=0.5))
    assert none["min_blocks"].isna().all()
    # a deeper model that memorizes less than a shallower one is reported, not hidden
    dip = table.copy()
    dip.loc[(dip["N"] == 900) & (dip["blocks"] == 5), "accuracy"] = 0.99
    bad = kajitsuka.non_monotone(dip)
    assert bad[["N", "blocks"]].values.tolist() == [[900, 5]]
    depth = kajitsuka.depth_table(dip)
    assert set(depth.columns) >= {"N", "blocks", "accuracy", "memorized", "below_shallower"}
    assert not depth.loc[(depth["N"] == 900) & (depth["blocks"] == 5), "memorized"].item()


def test_every_depth_is_its_own_group():
    params = {"blocks": [0, 2, 5], "epochs": 10, "trials": 1, "eval_every": 5}
    points = kajitsuka._points(params, 2, dataset="random", record="final", early_stop=True,
                               N=[40], n=[4])
    assert all(p["max_blocks"] == p["blocks"] for p in points)
    groups = {kajitsuka._group_key(p) for p in points}
    assert len(groups) == 3  # one per depth; the two seeds of a depth train together


def test_experiment_runs_and_resumes_from_cache(tmp_path):
    first = run_experiment("kajitsuka.seq_len", "ci", root=tmp_path)
    assert set(first.table["n"]) == {2, 8}
    assert first.table["accuracy"].between(0, 1).all()
    assert first.points_read == 0 and first.points_computed > 0
    again = run_experiment("kajitsuka.seq_len", "ci", root=tmp_path)
    pd.testing.assert_frame_equal(first.table, again.table)
    # every point of the second call came from the cache: training is deterministic, so equal
    # tables alone would not tell a resumed run from one that recomputed everything
    assert again.points_read == first.points_computed and again.points_computed == 0
    assert load("kajitsuka.seq_len", "ci", root=tmp_path) is not None
    assert load("kajitsuka.seq_len", "full", root=tmp_path) is None


def test_construction_experiment(tmp_path):
    table = run_experiment("kajitsuka.construction", "ci", root=tmp_path).table
    verified = table[table["verify"]]
    assert len(verified) >= 2 and verified["memorized"].astype(bool).all()
    nt = table[(table["sweep"] == "N") & (table["task"] == "next_token")].sort_values("N")
    assert nt["ffn2_parameters"].is_monotonic_increasing


@pytest.mark.skipif(paths.find_dataset(MNLI_FILE) is None, reason="offline MultiNLI missing")
def test_text_training_data():
    x, y, C = kajitsuka.training_data(_point(dataset="mnli", N=30, n=8))
    assert tuple(x.shape) == (30, 8, kajitsuka.MODEL["input_dim"]) and C == 3
    assert int(y.max()) <= 2
    with pytest.raises(ValueError, match="N must be"):
        kajitsuka.training_data(_point(dataset="imdb", N=10**6, n=8))


def test_capacity_search_per_width():
    rows = [{"N": N, "d": d, "seed": 0, "blocks": b, "accuracy": float(b >= need)}
            for d, needs in ((16, {200: 1, 400: 1}), (8, {200: 2, 400: 3}))
            for N, need in needs.items() for b in range(0, 5)]
    table = pd.DataFrame(rows)
    assert kajitsuka.widths(table) == [8, 16]
    cap = kajitsuka.capacity_table(table).set_index(["d", "N"])["min_blocks"]
    assert cap.to_dict() == {(8, 200): 2.0, (8, 400): 3.0, (16, 200): 1.0, (16, 400): 1.0}
    for profile in ("quick", "full"):  # the paper's width is unknown: the book shows two
        assert len(load_all()["kajitsuka.capacity"].params(profile)["widths"]) >= 2
