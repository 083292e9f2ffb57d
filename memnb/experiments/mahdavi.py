"""Experiments of Mahdavi, Liao & Thrampoulidis (ICLR 2024): Figs. 1-5, Tables 1 and 3.

Synthetic sweeps (Figs. 2a-c, 3, 4, 5) follow the official code (notes §3): queries and
contexts uniform in ``[0, 1)^d``, one context shared by every example ("fixed") or one per example
("random"), labels uniform over ``C`` classes (or uniform in ``[0, 1)`` for regression); the model
is :meth:`MultiHeadAttention.official` (input map, sinusoidal PE, ``1/sqrt(d)`` logits,
``d_v = 1``);
Adam, warm-up from ``0.01 lr`` over 5 % of the steps then cosine to 0, mini-batches of 256, full
training-set evaluation every ``eval_every`` steps, best-training-loss checkpoint, early stop at
100 % training accuracy. The step budget is the official ``max(epochs T // batch, min_steps)``
in every profile (:func:`official_steps`): it grows with the data set size ``T``.

The measured quantity is the number of examples memorized, ``accuracy x T`` at the best-loss
checkpoint, plotted beside Theorem 1's guarantee ``H (min(n, d_h) - 1) + 1`` (a lower bound on
the capacity, for exact real-valued labels). The published values and grids come from
:mod:`memnb.papers.mahdavi`; the theory checks live in :mod:`memnb.constructions.mha_checks`,
the figures in :mod:`memnb.figures.mahdavi`.

Packing: points that share a seed, a context length, a step budget and the data kind are trained
as one stack; their head counts (``active_heads``), key/query sizes (``active_d_h``) and dataset
sizes (``per_member_data`` with a ``sample_mask``) differ. The data of a point depend only on its
seed and size: every stream is drawn row after row from its own generator, so the first ``T`` rows
of a larger draw are the ``T``-row draw (tested).

Data seeds: the official code draws every dataset from seed 42; here the seed of a point seeds
both its data and its initialisation, so that seeds average over datasets too. The order of the
mini-batches comes from one stream (seed 0) for every member, because ``train_members`` draws the
batches of a stack from one seed and members of different seeds share a stack in ``ci``/``quick``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from memnb.bounds import mahdavi_capacity
from memnb.experiments.registry import experiment
from memnb.models.multi_head import MultiHeadAttention
from memnb.papers import mahdavi as paper
from memnb.sweep import Point, Rows, run_sweep, training_sweep
from memnb.train import TrainConfig, train_members
from memnb.validation import check_int

# Official grids (reproduce.sh), from memnb.papers.mahdavi: the paper's values live there only.
HEADS_FULL = paper.HEADS_GRID
CONTEXTS_FULL = paper.CONTEXT_GRID
D_H_FULL = paper.HEAD_DIM_GRID

# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------


def make_dataset(T: int, n: int, d: int, *, num_classes: int, shared: bool, seed: int
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The official code's random task: ``(contexts [T, n, d], queries [T, d], targets)``.

    Uniform ``[0, 1)`` contexts (one shared context, returned as an expanded view, or one per
    example), uniform queries, labels uniform in ``0..C-1`` (``LongTensor[T]``) or, with
    ``num_classes=1`` (regression), uniform ``[0, 1)`` values (``[T, 1]``). Each stream has its own
    generator, so the first ``T`` rows do not depend on how many more are drawn.
    """
    T, n, d, num_classes = (check_int("T", T, 1), check_int("n", n, 1), check_int("d", d, 1),
                            check_int("num_classes", num_classes, 1))
    streams = [np.random.default_rng([seed, k]) for k in range(3)]
    if shared:
        ctx = torch.from_numpy(streams[0].random((n, d))).float().expand(T, n, d)
    else:
        ctx = torch.from_numpy(streams[0].random((T, n, d))).float()
    queries = torch.from_numpy(streams[1].random((T, d))).float()
    if num_classes == 1:
        targets = torch.from_numpy(streams[2].random((T, 1))).float()
    else:
        targets = torch.from_numpy(streams[2].integers(0, num_classes, T)).long()
    return ctx, queries, targets


def official_steps(T: int, min_steps: int, epochs: int = 500, batch: int = 256) -> int:
    """The official step budget ``max(epochs * T // batch, min_steps)`` (App. A, notes §3):
    at least ``epochs`` passes over the ``T`` examples and at least ``min_steps`` steps."""
    T, batch = check_int("T", T, 1), check_int("batch", batch, 1)
    min_steps, epochs = check_int("min_steps", min_steps, 0), check_int("epochs", epochs, 0)
    steps = max(epochs * T // batch, min_steps)
    if steps < 1:
        raise ValueError("epochs and min_steps give no step at all; raise one of them")
    return steps


# ---------------------------------------------------------------------------------------------
# Packed training of a group
# ---------------------------------------------------------------------------------------------
_GROUP_FIELDS = ("kind", "seed", "n", "d", "C", "shared", "steps", "lr", "batch", "eval_every",
                 "early_stop")


def _group_key(point: Point) -> tuple:
    """Points that train together as one packed stack. Fig. 2c's points (``head_dim``) also split
    at ``d_h = n``: a stack pads every member to its widest ``d_h``, and the members with
    ``d_h <= n`` (the rising part of the curve) then pad to ``n``, not to the sweep's widest
    (a smaller stack and paused state, with the same result per point: padding is exact)."""
    fields = _GROUP_FIELDS[2:] if point.get("pack_seeds") else _GROUP_FIELDS
    key = (point["kind"], *(point.get(k) for k in fields))
    if point["kind"] == "head_dim":
        key += (int(point["d_h"]) > int(point["n"]),)
    return key


def _config(point: Point, device: str) -> TrainConfig:
    steps = int(point["steps"])
    return TrainConfig(
        steps=steps, lr=float(point["lr"]), warmup_steps=steps // 20, warmup_start_factor=0.01,
        schedule="cosine", final_lr_factor=0.0, batch_size=int(point["batch"]),
        eval_every=int(point["eval_every"]), early_stop=bool(point.get("early_stop", True)),
        loss="mse" if point["C"] == 1 else "ce", seed=0, device=device,
        eval_batch_size=int(point.get("eval_batch", 4096)))


def _saturation_rows(model: MultiHeadAttention, contexts: torch.Tensor, queries: torch.Tensor,
                     threshold: float) -> list[dict]:
    """Fig. 3: a head is saturated on an example when its largest attention weight exceeds
    ``threshold``; one row per number of saturated heads ``k`` with the fraction of examples."""
    with torch.no_grad():
        top = torch.cat([model.attention_weights(contexts[i:i + 2048], queries[i:i + 2048])
                         .amax(dim=-1) for i in range(0, contexts.shape[0], 2048)])
    heads = model.active_heads
    saturated = (top[:, :heads] > threshold)
    per_example = saturated.sum(dim=1)
    common = {"saturated_fraction": float(saturated.double().mean()),
              "some_head_unsaturated": float((per_example < heads).double().mean())}
    return [{"saturated_heads": k, "example_fraction": float((per_example == k).double().mean()),
             **common} for k in range(heads + 1)]


def train_group(points: list[Point], *, device: str = "cpu", progress: bool = True
                ) -> list[Rows]:
    """Train one packed stack of compatible points; one result row per point (Fig. 3: several).

    Row fields: ``accuracy`` (training accuracy of the best-loss checkpoint), ``memorized``
    (``round(accuracy T)``), ``best_loss``, ``steps_run``, ``capacity`` (Theorem 1) and
    ``parameters``.
    """
    p0 = points[0]
    n, d, C = int(p0["n"]), int(p0["d"]), int(p0["C"])
    sizes = [int(p["T"]) for p in points]
    seeds = [int(p["seed"]) for p in points]
    t_max = max(sizes)
    heads = max(int(p["H"]) for p in points)
    d_h = max(int(p["d_h"]) for p in points)
    data = {s: make_dataset(t_max, n, d, num_classes=C, shared=bool(p0["shared"]), seed=s)
            for s in sorted(set(seeds))}
    members = [MultiHeadAttention.official(d, n, heads, d_h, C, active_heads=int(p["H"]),
                                           active_d_h=int(p["d_h"]), seed=int(p["seed"]))
               for p in points]
    config = _config(p0, device)
    desc = f"mahdavi {p0['kind']} n={n}"
    shared = bool(p0["shared"])
    # a shared context is passed once ([n, d]) rather than once per example (same function)
    constant = (0,) if shared else ()
    if len(data) == 1 and len(set(sizes)) == 1:
        contexts, queries, targets = data[seeds[0]]
        result = train_members(members, (contexts[0] if shared else contexts, queries), targets,
                               config, constant_inputs=constant, progress=progress, desc=desc)
    else:
        k = len(points)
        mask = torch.arange(t_max)[None, :] < torch.tensor(sizes)[:, None]
        if len(data) == 1:  # one dataset: a view per member, no copy
            stacked = [x.unsqueeze(0).expand(k, *x.shape) for x in data[seeds[0]]]
        else:
            stacked = [torch.stack([data[s][j] for s in seeds]) for j in range(3)]
        contexts = stacked[0][:, 0] if shared else stacked[0]
        result = train_members(members, (contexts, stacked[1]), stacked[2], config,
                               sample_mask=mask, per_member_data=True,
                               constant_inputs=constant, progress=progress, desc=desc)
    out: list[Rows] = []
    for i, p in enumerate(points):
        T = int(p["T"])
        acc = float(result.accuracy[i])
        row = {"accuracy": acc, "memorized": int(round(acc * T)),
               "best_loss": float(result.best_loss[i]), "steps_run": int(result.steps_run[i]),
               "capacity": mahdavi_capacity(int(p["H"]), n, int(p["d_h"])),
               "parameters": result.models[i].num_parameters()}
        if p["kind"] == "saturation":
            contexts, queries, _ = data[int(p["seed"])]
            sat = _saturation_rows(result.models[i], contexts[:T], queries[:T],
                                   float(p["threshold"]))
            out.append([{**row, **s} for s in sat])
        else:
            out.append([row])
    return out


_sweep = functools.partial(training_sweep, train_group, _group_key)


def _points(params: dict[str, Any], seeds: int, kind: str, **axes: list[Any]) -> list[Point]:
    """Points of a sweep: the Cartesian product of ``axes`` (H, n, d_h, T) and seeds."""
    fixed = {k: params[k] for k in ("d", "C", "shared", "lr", "batch", "eval_every")}
    if params.get("pack_seeds"):
        fixed["pack_seeds"] = True
    points = []
    grid = [dict(zip(axes, values, strict=True))
            for values in _product(*[axes[k] for k in axes])]
    for seed in range(seeds):
        for values in grid:
            point = {"kind": kind, **fixed, "seed": seed, "early_stop": params.get(
                "early_stop", True), **{k: params[k] for k in ("H", "n", "d_h")
                                         if k not in values and k in params}, **values}
            point["d_h"] = int(point["d_h"])
            point["steps"] = official_steps(int(point["T"]), int(params["min_steps"]),
                                            int(params.get("epochs", 500)), int(params["batch"]))
            if "threshold" in params:
                point["threshold"] = params["threshold"]
            points.append(point)
    return points


def _product(*lists: list[Any]) -> list[tuple]:
    out: list[tuple] = [()]
    for values in lists:
        out = [(*o, v) for o in out for v in values]
    return out


# ---------------------------------------------------------------------------------------------
# Profiles
# ---------------------------------------------------------------------------------------------
# Budgets (issue of protocol): every profile trains max(epochs * T // batch, min_steps) steps
# and stops early at 100 % training accuracy, as the official code does, so that a larger data set
# gets proportionally more steps and the counts measure capacity rather than the budget. ``quick``
# keeps the official 500 epochs at smaller sizes (d = 16, a few hundred examples) with a larger
# learning rate (ours: 3e-2, measured to change the H = 4 count by under 10 % when the epochs are
# tripled); ``ci`` is a smoke test (50 epochs) and measures nothing.
_FULL_TRAIN = {"d": int(paper.D.value), "C": int(paper.CLASSES.value),
               "lr": float(paper.LEARNING_RATE.value), "batch": int(paper.BATCH.value),
               "eval_every": int(paper.EVAL_EVERY.value), "min_steps": int(paper.MIN_STEPS.value),
               "epochs": int(paper.EPOCHS.value)}
_QUICK_TRAIN = {"d": 16, "C": 100, "lr": 3e-2, "batch": 128, "eval_every": 50,
                "min_steps": 300, "epochs": int(paper.EPOCHS.value), "pack_seeds": True}
_CI_TRAIN = {"d": 8, "C": 10, "lr": 2e-2, "batch": 64, "eval_every": 30, "min_steps": 60,
             "epochs": 50, "pack_seeds": True}
_LONG = int(paper.MIN_STEPS_LONG.value)
_THRESHOLD = float(paper.SATURATION_THRESHOLD.value)
_SWEEPS = paper.sweeps().set_index("figure")


def _sizes(figure: str) -> list[int]:
    return list(_SWEEPS.loc[figure, "sizes"])


@experiment(
    "mahdavi.heads",
    title="Memorization vs number of heads H (shared context)",
    paper_figure="Fig. 2a",
    profiles={
        "ci": {**_CI_TRAIN, "shared": True, "n": 4, "d_h": 8, "heads": [1, 2, 4],
               "sizes": [120]},
        "quick": {**_QUICK_TRAIN, "shared": True, "n": 8, "d_h": 16, "heads": [1, 2, 3, 4],
                  "sizes": [300]},
        "full": {**_FULL_TRAIN, "shared": True, "n": 32, "d_h": 64, "heads": HEADS_FULL,
                 "sizes": _sizes("Fig. 2a")},
    },
)
def heads(params: dict, *, seeds: int, device: str, cache_dir: Path,
          executor: str | None = None) -> pd.DataFrame:
    """Fig. 2a: examples memorized against ``H`` for several dataset sizes ``T``."""
    points = _points(params, seeds, "heads", H=params["heads"], T=params["sizes"])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc="mahdavi.heads")


@experiment(
    "mahdavi.context",
    title="Memorization vs context length n (shared context)",
    paper_figure="Fig. 2b",
    profiles={
        "ci": {**_CI_TRAIN, "shared": True, "H": 2, "d_h": 8, "contexts": [1, 4],
               "sizes": [120]},
        "quick": {**_QUICK_TRAIN, "shared": True, "H": 4, "d_h": 16,
                  "contexts": [1, 2, 4, 8], "sizes": [200]},
        "full": {**_FULL_TRAIN, "shared": True, "H": 20, "d_h": 64, "contexts": CONTEXTS_FULL,
                 "sizes": _sizes("Fig. 2b")},
    },
)
def context(params: dict, *, seeds: int, device: str, cache_dir: Path,
            executor: str | None = None) -> pd.DataFrame:
    """Fig. 2b: examples memorized against the context length ``n``."""
    points = _points(params, seeds, "context", n=params["contexts"], T=params["sizes"])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc="mahdavi.context")


@experiment(
    "mahdavi.head_dim",
    title="Memorization vs key/query dimension d_h (plateau at d_h >= n)",
    paper_figure="Fig. 2c",
    profiles={
        "ci": {**_CI_TRAIN, "shared": True, "H": 2, "n": 4, "head_dims": [1, 4, 8],
               "sizes": [120]},
        "quick": {**_QUICK_TRAIN, "shared": True, "H": 4, "n": 6,
                  "head_dims": [1, 2, 4, 6, 9, 12], "sizes": [200]},
        "full": {**_FULL_TRAIN, "shared": True, "H": 30, "n": 32, "head_dims": D_H_FULL,
                 "sizes": _sizes("Fig. 2c"), "min_steps": _LONG},
    },
)
def head_dim(params: dict, *, seeds: int, device: str, cache_dir: Path,
             executor: str | None = None) -> pd.DataFrame:
    """Fig. 2c: examples memorized against ``d_h``; Theorem 1 predicts no gain for ``d_h > n``."""
    points = _points(params, seeds, "head_dim", d_h=params["head_dims"], T=params["sizes"])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc="mahdavi.head_dim")


# Fig. 3's search (App. H): "for each head size, we first empirically find the maximal number of
# data points the model can perfectly memorize"; the paper gives neither its grid nor a result per
# seed, only "around 550" (H = 4) and "around 1300" (H = 8). Ours: the full profile tries those
# sizes times these fractions, a grid that brackets the paper's values; quick tries sizes measured
# to bracket what its smaller model memorizes.
SATURATION_SEARCH = (0.6, 0.7, 0.8, 0.9, 1.0, 1.1)


def saturation_search_sizes(paper_size: int) -> list[int]:
    """The dataset sizes Fig. 3's full profile tries for one head count: the paper's maximal
    perfectly memorized size times :data:`SATURATION_SEARCH` (ours). ``paper_size >= 1``, so
    that every size is at least 1 (the smallest factor, 0.6, rounds 0.6 up to 1)."""
    check_int("paper_size", paper_size, 1)
    return [int(round(f * paper_size)) for f in SATURATION_SEARCH]


@experiment(
    "mahdavi.saturation",
    title="Softmax saturation per head and example, at the largest perfectly memorized size",
    paper_figure="Fig. 3",
    profiles={
        "ci": {**_CI_TRAIN, "shared": True, "n": 4, "d_h": 8, "configs": [[2, [20, 30]]],
               "threshold": _THRESHOLD, "early_stop": False},
        "quick": {**_QUICK_TRAIN, "shared": True, "n": 8, "d_h": 16, "min_steps": 1_500,
                  "configs": [[4, [80, 100, 120, 140, 160]],
                              [8, [250, 300, 350, 400, 450, 500, 550]]],
                  "threshold": _THRESHOLD, "early_stop": False},
        "full": {**_FULL_TRAIN, "shared": True, "n": 32, "d_h": 64, "min_steps": _LONG,
                 "configs": [[int(h), saturation_search_sizes(int(t))]
                             for h, t in paper.SATURATION_CONFIGS.value],
                 "threshold": _THRESHOLD, "early_stop": False},
    },
)
def saturation(params: dict, *, seeds: int, device: str, cache_dir: Path,
               executor: str | None = None) -> pd.DataFrame:
    """Fig. 3 (App. H): how many heads saturate (max attention > 0.99) on each example.

    ``configs`` pairs a head count ``H`` with the dataset sizes to try. Every size is trained
    (one packed stack per seed); the paper's search for the largest size memorized perfectly is
    then read off the table (:func:`memnb.scorecard.mahdavi.searched_sizes`), and its statistics
    at that size (:func:`memnb.scorecard.mahdavi.searched_runs`). A single size (``[H, T]``) is
    accepted as a grid of one.
    """
    points = []
    for h, sizes in params["configs"]:
        sizes = [sizes] if isinstance(sizes, int) else list(sizes)
        points += _points(params, seeds, "saturation", H=[int(h)], T=[int(t) for t in sizes])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc="mahdavi.saturation")


@experiment(
    "mahdavi.nonshared",
    title="Memorization with one context per example (heads and context sweeps)",
    paper_figure="Fig. 4",
    profiles={
        "ci": {**_CI_TRAIN, "shared": False, "n": 4, "H": 2, "d_h": 8, "heads": [1, 2],
               "contexts": [4], "sizes": [120]},
        "quick": {**_QUICK_TRAIN, "shared": False, "n": 8, "H": 4, "d_h": 16,
                  "heads": [1, 2, 3, 4], "contexts": [2, 8], "sizes": [300]},
        "full": {**_FULL_TRAIN, "shared": False, "n": 32, "H": 20, "d_h": 64,
                 "heads": HEADS_FULL, "contexts": CONTEXTS_FULL,
                 "sizes": _sizes("Fig. 4 (heads)"), "context_sizes": _sizes("Fig. 4 (context)")},
    },
)
def nonshared(params: dict, *, seeds: int, device: str, cache_dir: Path,
              executor: str | None = None) -> pd.DataFrame:
    """Fig. 4: the head sweep (``sweep='heads'``) and the context sweep (``sweep='context'``)
    with i.i.d. contexts (General Position data, App. I.1)."""
    by_heads = _points({**params}, seeds, "nonshared_heads", H=params["heads"],
                       T=params["sizes"])
    by_context = _points({**params}, seeds, "nonshared_context", n=params["contexts"],
                         T=params.get("context_sizes", params["sizes"]))
    table = _sweep(by_heads + by_context, device=device, cache_dir=cache_dir,
                   executor=executor, desc="mahdavi.nonshared")
    table["sweep"] = np.where(table["kind"] == "nonshared_heads", "heads", "context")
    return table


def regression_sizes(params: dict[str, Any], sweep: str, shared: bool) -> list[int]:
    """The dataset sizes of one of Fig. 5's four sweeps (``sweep`` ``"heads"`` or ``"context"``,
    shared or non-shared contexts): ``reproduce.sh`` gives each its own, which the full profile
    holds as ``sizes`` (heads, non-shared), ``shared_sizes``, ``context_sizes`` and
    ``shared_context_sizes``; a profile without one uses ``sizes``."""
    if sweep not in ("heads", "context"):
        raise ValueError(f"sweep must be 'heads' or 'context', got {sweep!r}")
    key = ("shared_" if shared else "") + ("context_" if sweep == "context" else "") + "sizes"
    return list(params.get(key, params["sizes"]))


@experiment(
    "mahdavi.regression",
    title="Regression: training MSE vs heads and context length",
    paper_figure="Fig. 5",
    profiles={
        "ci": {**_CI_TRAIN, "C": 1, "n": 4, "H": 2, "d_h": 8, "heads": [1, 2],
               "contexts": [4], "sizes": [100], "contexts_shared": [True]},
        "quick": {**_QUICK_TRAIN, "C": 1, "n": 8, "H": 4, "d_h": 16, "heads": [1, 2, 4, 8],
                  "contexts": [2, 8], "sizes": [100], "contexts_shared": [True, False]},
        "full": {**_FULL_TRAIN, "C": 1, "n": 32, "H": 20, "d_h": 64, "heads": HEADS_FULL,
                 "contexts": CONTEXTS_FULL, "sizes": _sizes("Fig. 5 (heads, non-shared)"),
                 "shared_sizes": _sizes("Fig. 5 (heads, shared)"),
                 "context_sizes": _sizes("Fig. 5 (context, non-shared)"),
                 "shared_context_sizes": _sizes("Fig. 5 (context, shared)"),
                 "contexts_shared": [True, False]},
    },
)
def regression(params: dict, *, seeds: int, device: str, cache_dir: Path,
               executor: str | None = None) -> pd.DataFrame:
    """Fig. 5: best training MSE against ``H`` and ``n`` (shared and non-shared contexts).

    The official code never stops regression early (accuracy is always 0); neither do we.
    """
    points = []
    for shared in params["contexts_shared"]:
        p = {**params, "shared": shared, "early_stop": False}
        points += _points(p, seeds, "regression_heads", H=params["heads"],
                          T=regression_sizes(params, "heads", shared))
        points += _points(p, seeds, "regression_context", n=params["contexts"],
                          T=regression_sizes(params, "context", shared))
    table = _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                   desc="mahdavi.regression")
    table["sweep"] = np.where(table["kind"] == "regression_heads", "heads", "context")
    table["mse"] = table["best_loss"]
    return table


# ---------------------------------------------------------------------------------------------
# Assumption checks on real representations (Table 1, Figure 1, Table 3)
# ---------------------------------------------------------------------------------------------
TABLE1_COLUMNS = ("embedding", "random_attention", "random_vit", "trained_vit_b16",
                  "dinov2_vits14")
TABLE3_MODELS = ("bert_trained", "bert_random", "gpt2_random", "gpt2_trained")


def _missing_row(name: str, reason: str) -> dict:
    return {"representation": name, "check": "missing", "k": None, "pass_fraction": None,
            "min_rank": None, "max_rank": None, "repeats": None, "valid": False, "n": None,
            "d": None, "T": None, "satisfied": False, "reason": reason}


def assumption_group(points: list[Point]) -> list[Rows]:
    """Evaluate Table 1 columns / Table 3 models (one point each): the assumption checks of
    :func:`memnb.assumptions.assumption_table`, plus Figure 1's curve for Random Attention
    (:func:`memnb.assumptions.pass_fraction_curve` with the point's ``curve_method``); a
    ``curve_only`` point (another draw of the random layer, :func:`table1`) gives that curve
    alone. Each
    row's ``method`` column says how its ranks were computed: the fixed-``k`` tests with the
    point's ``rank_method`` (``gram``, ours, in every profile: the eigenvalues of the draw's
    Gram matrix, the same ranks as ``matrix_rank``'s SVD, see
    :func:`memnb.assumptions.kruskal_test`), the curve with ``prefix`` (ours: nested draws, one
    QR a permutation instead of one SVD a subset and ``k``)."""
    from memnb.assumptions import assumption_table, merge_summaries, pass_fraction_curve, summarize
    from memnb.data.images import list_images
    from memnb.representations import (
        RepresentationUnavailable,
        dinov2_hidden_states,
        image_hidden_states,
        text_hidden_states,
        text_samples,
    )

    out: list[Rows] = []
    for p in points:
        checks = {"repeats": int(p["repeats"]), "gp_repeats": int(p["gp_repeats"]),
                  "seed": int(p["seed"]), "method": str(p.get("rank_method", "svd"))}
        rows: Rows = []
        try:
            if p["table"] == "table1":
                paths = list_images(int(p["images"]))
                name = p["representation"]
                if p.get("curve_only"):  # another draw of the random layer, for Fig. 1 only
                    summaries = [summarize(image_hidden_states(
                        name, paths, batch_size=int(p["batch"]), seed=int(p["seed"])), name=name)]
                elif name == "dinov2_vits14":
                    parts: dict[int, list] = {0: [], 1: []}
                    for states in dinov2_hidden_states(paths, batch_size=int(p["batch"])):
                        for layer in (0, 1):
                            parts[layer].append(summarize([states[layer]],
                                                          name=f"dinov2_vits14_l{layer}"))
                    summaries = [merge_summaries(parts[0]), merge_summaries(parts[1])]
                else:
                    summaries = [summarize(image_hidden_states(
                        name, paths, batch_size=int(p["batch"]), seed=int(p["seed"])), name=name)]
                for summary in summaries if not p.get("curve_only") else []:
                    rows += assumption_table(summary, **checks)
                if name == "random_attention":
                    ks = [k for k in p["curve_ks"] if k <= summaries[0].num_examples]
                    curve = pass_fraction_curve(summaries[0].queries, ks,
                                                repeats=int(p["curve_repeats"]),
                                                seed=int(p["seed"]),
                                                method=str(p.get("curve_method", "subsets")))
                    for row in curve.to_dict("records"):
                        rows.append({"representation": name, "check": "figure1", **row,
                                     "n": summaries[0].n, "d": summaries[0].d,
                                     "T": summaries[0].num_examples})
            else:
                model = p["model"]
                layout = "bert" if model.startswith("bert") else "gpt"
                sample = text_samples(layout, int(p["sequences"]), int(p["length"]),
                                      seed=int(p["seed"]),
                                      tokenizer_name="gpt2" if model == "gpt2_trained"
                                      else "minilm")
                query_index = 0 if layout == "bert" else -1
                parts = {0: [], 1: []}
                for states in text_hidden_states(model, sample, batch_size=int(p["batch"]),
                                                 seed=int(p["seed"])):
                    for layer in (0, 1):
                        parts[layer].append(summarize([states[layer]], name=model,
                                                      query_index=query_index))
                for layer in (0, 1):
                    for row in assumption_table(merge_summaries(parts[layer]), **checks,
                                                assumption3=False):
                        rows.append({**row, "layer": layer})
        except RepresentationUnavailable as err:
            rows = [_missing_row(p.get("representation") or p["model"], str(err))]
        out.append(rows)
    return out


def _hub_flag() -> bool:
    from memnb.representations import hub_available

    return hub_available()[0]


@experiment(
    "mahdavi.table1",
    title="Assumptions 1-3 and General Position on ViT representations of ImageNet images",
    paper_figure="Table 1, Fig. 1", datasets=("imagenet",), fixed_seeds=1,
    profiles={
        "ci": {"images": 24, "repeats": 3, "gp_repeats": 2, "batch": 24, "curve_repeats": 2,
               "curve_ks": [1, 8, 16, 24], "curve_method": "prefix", "rank_method": "gram",
               "curve_draws": 2, "columns": ["embedding", "random_attention"]},
        "quick": {"images": 800, "repeats": 20, "gp_repeats": 4, "batch": 50,
                  "curve_repeats": 6, "curve_method": "prefix", "rank_method": "gram",
                  "curve_ks": [1, 101, 197, 241, 281, 291, 301, 331, 401, 501, 768],
                  "curve_draws": 2, "columns": [c for c in TABLE1_COLUMNS if c != "dinov2_vits14"]},
        "full": {"images": 1000, "repeats": int(paper.TABLE1_DRAWS.value),
                 "gp_repeats": int(paper.TABLE1_DRAWS.value), "batch": 50,
                 "curve_repeats": 1000, "curve_method": "prefix", "rank_method": "gram",
                 "curve_ks": [*range(1, 762, 10), 197, 768], "curve_draws": 5,
                 "columns": list(TABLE1_COLUMNS)},
    },
)
def table1(params: dict, *, seeds: int, device: str, cache_dir: Path,
           executor: str | None = None) -> pd.DataFrame:
    """Table 1 (and Fig. 1's pass fraction against ``k`` for Random Attention), one point per
    column. ``seeds`` is not used: the checks are seeded once (seed 0). Fig. 1's curve is drawn
    for ``curve_draws`` draws of the random attention layer (seeds 0, 1, ...; ours: the paper's
    notebook draws it once, and one draw's curve moves by more than the chapter's tolerance from
    one seed of the layer to the next), each seed drawing both the layer and the curve's
    subsets; the Table 1 checks read seed 0 only. ``quick`` uses 800 images
    (more than ``d = 768``, so General Position is tested at ``k = d`` as in the paper; with a
    few hundred images Fig. 1's pass fractions near ``k = T`` come from overlapping draws) with
    fewer draws, and leaves out the DINOv2 column (ours) to stay within the chapter's time
    budget."""
    hub = _hub_flag()
    keys = ("images", "repeats", "gp_repeats", "batch", "curve_repeats", "curve_ks",
            "curve_method", "rank_method")
    points = [{"table": "table1", "representation": c, "seed": 0,
               "hub": hub if c == "trained_vit_b16" else None, **{k: params[k] for k in keys}}
              for c in params["columns"]]
    if "random_attention" in params["columns"]:  # Fig. 1: more draws of the random layer
        points += [{"table": "table1", "representation": "random_attention", "seed": seed,
                    "hub": None, "curve_only": True, **{k: params[k] for k in keys}}
                   for seed in range(1, int(params["curve_draws"]))]
    table = run_sweep(points, assumption_group, cache_dir=cache_dir, executor=executor,
                      desc="mahdavi.table1")
    return table.drop(columns=["curve_ks", "curve_method", "rank_method"], errors="ignore")


@experiment(
    "mahdavi.table3",
    title="Assumptions on BERT-style and GPT-2 representations of IMDb text (L0, L1)",
    paper_figure="Table 3 (App. J)", datasets=("imdb",), fixed_seeds=1,
    profiles={
        "ci": {"bert_length": 32, "gpt_length": 32, "sequences": 40, "repeats": 3,
               "gp_repeats": 2, "batch": 20, "rank_method": "gram",
               "models": ["bert_trained", "gpt2_random"]},
        "quick": {"bert_length": 128, "gpt_length": 128, "sequences": 200, "repeats": 20,
                  "gp_repeats": 4, "batch": 25, "rank_method": "gram",
                  "models": list(TABLE3_MODELS)},
        "full": {"bert_length": 192, "gpt_length": 512, "sequences": 2000, "repeats": 5000,
                 "gp_repeats": 1000, "batch": 25, "rank_method": "gram",
                 "models": list(TABLE3_MODELS)},
    },
)
def table3(params: dict, *, seeds: int, device: str, cache_dir: Path,
           executor: str | None = None) -> pd.DataFrame:
    """Table 3: layers L0/L1 of trained and random BERT-style and GPT-2 models on IMDb text.

    Context lengths are chosen below the width (``n < d``, as in the paper's 512/1024 and
    1024/1280): ``n = 192`` (full; 128 quick) for MiniLM (``d = 384``), ``n = 512`` (full; 128
    quick) for GPT-2 (``d = 768``).
    """
    hub = _hub_flag()
    points = [{"table": "table3", "model": m, "seed": 0,
               "length": params["bert_length"] if m.startswith("bert") else params["gpt_length"],
               "sequences": params["sequences"], "repeats": params["repeats"],
               "gp_repeats": params["gp_repeats"], "batch": params["batch"],
               "rank_method": params["rank_method"],
               "hub": hub if m == "gpt2_trained" else None}
              for m in params["models"]]
    table = run_sweep(points, assumption_group, cache_dir=cache_dir, executor=executor,
                      desc="mahdavi.table3")
    return table.drop(columns=["rank_method"], errors="ignore")
