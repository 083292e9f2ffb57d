"""Tests of the Mahdavi et al. sweeps: data, packing, registry and a ci run."""

from __future__ import annotations

import pytest
import torch

from memnb.experiments import mahdavi
from memnb.experiments.registry import get, load_all
from memnb.results import load, run_experiment


def test_dataset_prefix_property_and_kinds():
    big = mahdavi.make_dataset(50, 3, 4, num_classes=7, shared=False, seed=3)
    small = mahdavi.make_dataset(20, 3, 4, num_classes=7, shared=False, seed=3)
    for a, b in zip(big, small, strict=True):
        torch.testing.assert_close(a[:20], b)
    ctx, q, y = mahdavi.make_dataset(10, 3, 4, num_classes=1, shared=True, seed=0)
    assert ctx.shape == (10, 3, 4) and ctx.stride(0) == 0 and y.shape == (10, 1)
    assert y.dtype == torch.float32 and 0 <= float(y.min()) and float(y.max()) < 1
    _, _, labels = mahdavi.make_dataset(200, 2, 4, num_classes=5, shared=True, seed=0)
    assert labels.dtype == torch.long and set(labels.tolist()) == set(range(5))
    with pytest.raises(ValueError, match="num_classes"):
        mahdavi.make_dataset(5, 2, 4, num_classes=0, shared=True, seed=0)


def test_official_steps():
    assert mahdavi.official_steps(10_000, 50_000) == 50_000
    assert mahdavi.official_steps(40_000, 50_000) == 78_125


def _point(**kw):
    base = {"kind": "heads", "d": 6, "C": 5, "shared": True, "lr": 1e-2, "batch": 16,
            "eval_every": 10, "early_stop": True, "seed": 0, "n": 3, "d_h": 4, "H": 2, "T": 40,
            "steps": 40}
    base.update(kw)
    return base


def test_packed_group_equals_points_trained_alone():
    """Members differing in H, d_h, T and seed train exactly as they would alone."""
    points = [_point(H=1, T=30, d_h=2), _point(H=3, T=40), _point(seed=1, H=2, T=40)]
    packed = mahdavi.train_group(points, progress=False)
    for point, rows in zip(points, packed, strict=True):
        alone = mahdavi.train_group([point], progress=False)[0][0]
        assert rows[0]["memorized"] == alone["memorized"]
        assert rows[0]["best_loss"] == pytest.approx(alone["best_loss"], rel=1e-4, abs=1e-6)
        assert rows[0]["capacity"] == point["H"] * (min(point["n"], point["d_h"]) - 1) + 1


def test_saturation_rows_are_a_distribution():
    point = _point(kind="saturation", threshold=0.99, early_stop=False, steps=30)
    rows = mahdavi.train_group([point], progress=False)[0]
    assert [r["saturated_heads"] for r in rows] == [0, 1, 2]
    assert sum(r["example_fraction"] for r in rows) == pytest.approx(1.0)


def test_registry_profiles():
    names = [n for n in load_all() if n.startswith("mahdavi.")]
    for name in ("heads", "context", "head_dim", "saturation", "nonshared", "regression"):
        assert f"mahdavi.{name}" in names
    full = get("mahdavi.heads").params("full")
    assert full["d"] == 64 and full["C"] == 100 and full["heads"] == mahdavi.HEADS_FULL
    assert full["sizes"] == [10_000, 20_000, 30_000, 40_000]


def test_fig5_full_profile_gives_each_of_its_four_sweeps_the_official_sizes():
    """reproduce.sh runs Fig. 5's heads and context sweeps, with shared and non-shared
    contexts, each on its own sizes; quick shares one list."""
    from memnb.papers import mahdavi as paper
    from memnb.planner import capture_sweep

    official = {r.figure: sorted(r.sizes) for r in paper.sweeps().itertuples()}
    sizes: dict[str, set[int]] = {}
    for p in capture_sweep("mahdavi.regression", "full").points:
        sweep = p["kind"].removeprefix("regression_")
        label = f"Fig. 5 ({sweep}, {'shared' if p['shared'] else 'non-shared'})"
        sizes.setdefault(label, set()).add(int(p["T"]))
    assert {k: sorted(v) for k, v in sizes.items()} == {
        k: v for k, v in official.items() if k.startswith("Fig. 5 (")}
    quick = get("mahdavi.regression").params("quick")
    for sweep in ("heads", "context"):
        for shared in (True, False):
            assert mahdavi.regression_sizes(quick, sweep, shared) == quick["sizes"]
    with pytest.raises(ValueError, match="sweep must be 'heads' or 'context'"):
        mahdavi.regression_sizes(quick, "n", True)


def test_fig2c_packs_the_head_sizes_up_to_n_apart_from_the_wider_ones():
    params = get("mahdavi.head_dim").params("quick")
    points = mahdavi._points(params, 1, "head_dim", d_h=params["head_dims"], T=params["sizes"])
    keys = {}
    for p in points:
        keys.setdefault(mahdavi._group_key(p), []).append(p["d_h"])
    n = params["n"]
    assert sorted(keys.values()) == [[d for d in params["head_dims"] if d <= n],
                                     [d for d in params["head_dims"] if d > n]]
    heads = get("mahdavi.heads").params("quick")  # other sweeps: one key per budget, as before
    points = mahdavi._points(heads, 1, "heads", H=heads["heads"], T=heads["sizes"])
    assert len({mahdavi._group_key(p) for p in points}) == 1


@pytest.mark.parametrize("profile", ["quick", "full"])
@pytest.mark.parametrize("name", ["mahdavi.heads", "mahdavi.context", "mahdavi.head_dim",
                                  "mahdavi.nonshared", "mahdavi.regression",
                                  "mahdavi.saturation"])
def test_budget_scales_with_dataset_size(name, profile):
    """Issue 14's protocol: at least 500 epochs and the minimum steps, in quick as in full, so
    that a data set twice as large gets (at least) twice the steps once the epochs dominate."""
    params = get(name).params(profile)
    assert params["epochs"] >= 500
    batch, min_steps = params["batch"], params["min_steps"]
    for T in (params.get("sizes") or [t for _, sizes in params["configs"] for t in sizes]):
        steps = mahdavi.official_steps(T, min_steps, params["epochs"], batch)
        assert steps >= params["epochs"] * T // batch and steps >= min_steps
    big = 4 * max(min_steps * batch // params["epochs"], 1)
    assert (mahdavi.official_steps(2 * big, min_steps, params["epochs"], batch)
            >= 2 * mahdavi.official_steps(big, min_steps, params["epochs"], batch) - 1)


def test_points_carry_the_budget_of_their_size():
    params = {**get("mahdavi.heads").params("quick"), "sizes": [200, 400]}
    points = mahdavi._points(params, 1, "heads", H=[1], T=params["sizes"])
    steps = {p["T"]: p["steps"] for p in points}
    assert steps[400] == 2 * steps[200] == 2 * (500 * 200 // params["batch"])
    # different budgets never share a packed stack
    assert mahdavi._group_key(points[0]) != mahdavi._group_key(points[1])


def test_official_steps_validation():
    with pytest.raises(ValueError, match="T must be"):
        mahdavi.official_steps(0, 10)
    with pytest.raises(ValueError, match="no step"):
        mahdavi.official_steps(10, 0, epochs=0)


def test_ci_run_writes_and_resumes(tmp_path):
    result = run_experiment("mahdavi.head_dim", "ci", seeds=1, root=tmp_path)
    table = result.table
    assert set(table["d_h"]) == {1, 4, 8}
    assert (table["memorized"] <= table["T"]).all()
    assert (table["capacity"] == 2 * (table[["n", "d_h"]].min(axis=1) - 1) + 1).all()
    again = load("mahdavi.head_dim", "ci", root=tmp_path)
    assert again is not None and len(again.table) == len(table)
    # cached points are reused: a second run reads every point from the cache (it computes
    # none; training is deterministic, so the same numbers alone would not show it) and
    # returns the same numbers
    assert result.points_read == 0 and result.points_computed > 0
    second = run_experiment("mahdavi.head_dim", "ci", seeds=1, root=tmp_path)
    assert second.points_read == result.points_computed and second.points_computed == 0
    rerun = second.table
    assert list(rerun["memorized"]) == list(table["memorized"])


def test_table1_caption_judges_general_position_at_each_representations_own_width():
    """DINOv2-small has d = 384: its test at k = 384 is at k = d, not below it."""
    import pandas as pd

    from memnb.figures import mahdavi as figures

    table = pd.DataFrame([
        {"table": "table1", "representation": r, "check": "general_position", "k": k,
         "pass_fraction": 0.0, "min_rank": k - 30, "max_rank": k - 20, "repeats": 10,
         "images": 1000, "valid": True, "n": n, "d": d, "T": 1000, "satisfied": False}
        for r, k, n, d in [("random_attention", 768, 197, 768),
                           ("dinov2_vits14_l1", 384, 257, 384),
                           ("random_vit", 400, 197, 768)]])
    caption = figures.table1_caption(table, "full")
    assert "tested at k = 384" not in caption  # DINOv2-small's k = d
    assert "first block of a random ViT-B/16: tested at k = 400 < d" in caption
