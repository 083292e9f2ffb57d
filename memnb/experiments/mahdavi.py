"""Experiments of Mahdavi, Liao & Thrampoulidis (ICLR 2024): Figs. 1-5, Tables 1 and 3.

Synthetic sweeps (Figs. 2a-c, 3, 4, 5) follow the official code (notes §3): queries and
contexts uniform in ``[0, 1)^d``, one context shared by every example ("fixed") or one per example
("random"), labels uniform over ``C`` classes (or uniform in ``[0, 1)`` for regression); the model
is :meth:`MultiHeadAttention.official` (input map, sinusoidal PE, ``1/sqrt(d)`` logits,
``d_v = 1``);
Adam, warm-up from ``0.01 lr`` over 5 % of the steps then cosine to 0, mini-batches of 256, full
training-set evaluation every ``eval_every`` steps, best-training-loss checkpoint, early stop at
100 % training accuracy. The official step budget is ``max(500 T // 256, min_steps)``.

The measured quantity is the number of examples memorized, ``accuracy x T`` at the best-loss
checkpoint, plotted beside the capacity ``H (min(n, d_h) - 1) + 1`` of Theorem 1.

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
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from memnb.bounds import mahdavi_capacity
from memnb.experiments.registry import experiment
from memnb.models.multi_head import MultiHeadAttention
from memnb.sweep import Point, Rows, run_sweep, training_sweep
from memnb.train import TrainConfig, train_members

# ---------------------------------------------------------------------------------------------
# Official grids (reproduce.sh, notes §3) and paper values (notes §3, Table 1, Figure 1).
# ---------------------------------------------------------------------------------------------
HEADS_FULL = [1, 5, 10, 20, 30, 40, 50, 60]
CONTEXTS_FULL = [1, 5, 10, 20, 30, 40, 50, 60]
D_H_FULL = [10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 64]

# Table 1 of the paper (ViT-B/16 representations, 1,973 ImageNet images, 5,000 draws), notes §3.
PAPER_TABLE1 = pd.DataFrame([
    {"representation": "embedding", "check": "assumption2", "pass_fraction": 1.0},
    {"representation": "random_attention", "check": "assumption2", "pass_fraction": 1.0},
    {"representation": "random_vit", "check": "assumption2", "pass_fraction": 1.0},
    {"representation": "trained_vit_b16", "check": "assumption2", "pass_fraction": 1.0},
    {"representation": "embedding", "check": "assumption1", "pass_fraction": 0.0},
    {"representation": "random_attention", "check": "assumption1", "pass_fraction": 1.0},
    {"representation": "random_vit", "check": "assumption1", "pass_fraction": 1.0},
    {"representation": "trained_vit_b16", "check": "assumption1", "pass_fraction": 0.9982},
    {"representation": "embedding", "check": "general_position", "pass_fraction": 0.0},
    {"representation": "random_attention", "check": "general_position", "pass_fraction": 0.0},
    {"representation": "random_vit", "check": "general_position", "pass_fraction": 0.0},
    {"representation": "trained_vit_b16", "check": "general_position", "pass_fraction": 0.0},
    {"representation": "embedding", "check": "assumption3", "pass_fraction": 1.0},
])
# Ranks observed at k = d = 768 in Table 1 (min, max), notes §3.
PAPER_TABLE1_GP_RANKS = {"embedding": (1, 1), "random_attention": (463, 482),
                         "random_vit": (710, 723), "trained_vit_b16": (309, 318)}
# Figure 1 (Random Attention), read off the saved notebook output, notes §3.
PAPER_FIGURE1 = pd.DataFrame({"k": [197, 240, 281, 291, 301, 331, 768],
                              "pass_fraction": [1.0, 1.0, 0.72, 0.49, 0.26, 0.0, 0.0]})
# Table 3 / App. J (notes §3): pass fractions at k = n.
PAPER_TABLE3 = pd.DataFrame(
    [{"model": m, "weights": w, "layer": layer, "check": "assumption1", "pass_fraction": f}
     for m, w, layer, f in [("gpt2", "random", 0, 0.0), ("gpt2", "random", 1, 1.0),
                            ("gpt2", "trained", 0, 0.0), ("gpt2", "trained", 1, 1.0),
                            ("bert", "random", 0, 0.0), ("bert", "random", 1, 0.0),
                            ("bert", "trained", 0, 0.0), ("bert", "trained", 1, 0.0)]])

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
    for name, value in (("T", T), ("n", n), ("d", d), ("num_classes", num_classes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")
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
    """The official step budget ``max(epochs * T // batch, min_steps)`` (notes §3)."""
    return max(epochs * T // batch, min_steps)


# ---------------------------------------------------------------------------------------------
# Packed training of a group
# ---------------------------------------------------------------------------------------------
_GROUP_FIELDS = ("kind", "seed", "n", "d", "C", "shared", "steps", "lr", "batch", "eval_every",
                 "early_stop")


def _group_key(point: Point) -> tuple:
    fields = _GROUP_FIELDS[2:] if point.get("pack_seeds") else _GROUP_FIELDS
    return (point["kind"], *(point.get(k) for k in fields))


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
_FULL_TRAIN = {"d": 64, "C": 100, "lr": 1e-3, "batch": 256, "eval_every": 500,
               "min_steps": 50_000, "epochs": 500}
_QUICK_TRAIN = {"d": 16, "C": 100, "lr": 1e-2, "batch": 128, "eval_every": 100,
                "min_steps": 1_200, "epochs": 0, "pack_seeds": True}
_CI_TRAIN = {"d": 8, "C": 10, "lr": 2e-2, "batch": 64, "eval_every": 30, "min_steps": 60,
             "epochs": 0, "pack_seeds": True}


@experiment(
    "mahdavi.heads",
    title="Memorization vs number of heads H (shared context)",
    paper_figure="Fig. 2a",
    profiles={
        "ci": {**_CI_TRAIN, "shared": True, "n": 4, "d_h": 8, "heads": [1, 2, 4],
               "sizes": [120]},
        "quick": {**_QUICK_TRAIN, "shared": True, "n": 8, "d_h": 16, "heads": [1, 2, 4, 6, 8],
                  "sizes": [300, 600]},
        "full": {**_FULL_TRAIN, "shared": True, "n": 32, "d_h": 64, "heads": HEADS_FULL,
                 "sizes": [10_000, 20_000, 30_000, 40_000]},
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
                  "contexts": [1, 2, 4, 8], "sizes": [300, 600]},
        "full": {**_FULL_TRAIN, "shared": True, "H": 20, "d_h": 64, "contexts": CONTEXTS_FULL,
                 "sizes": [6_000, 10_000, 14_000, 18_000]},
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
                  "head_dims": [1, 2, 3, 4, 6, 9, 12, 16], "sizes": [400]},
        "full": {**_FULL_TRAIN, "shared": True, "H": 30, "n": 32, "head_dims": D_H_FULL,
                 "sizes": [10_000, 15_000, 20_000], "min_steps": 300_000},
    },
)
def head_dim(params: dict, *, seeds: int, device: str, cache_dir: Path,
             executor: str | None = None) -> pd.DataFrame:
    """Fig. 2c: examples memorized against ``d_h``; Theorem 1 predicts no gain for ``d_h > n``."""
    points = _points(params, seeds, "head_dim", d_h=params["head_dims"], T=params["sizes"])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc="mahdavi.head_dim")


@experiment(
    "mahdavi.saturation",
    title="Softmax saturation per head and example",
    paper_figure="Fig. 3",
    profiles={
        "ci": {**_CI_TRAIN, "shared": True, "n": 4, "d_h": 8, "configs": [[2, 60]],
               "threshold": 0.99, "early_stop": False},
        "quick": {**_QUICK_TRAIN, "shared": True, "n": 8, "d_h": 16, "min_steps": 3_000,
                  "configs": [[2, 150], [4, 300]], "threshold": 0.99, "early_stop": False},
        "full": {**_FULL_TRAIN, "shared": True, "n": 32, "d_h": 64, "min_steps": 300_000,
                 "configs": [[4, 550], [8, 1300]], "threshold": 0.99, "early_stop": False},
    },
)
def saturation(params: dict, *, seeds: int, device: str, cache_dir: Path,
               executor: str | None = None) -> pd.DataFrame:
    """Fig. 3: how many heads saturate (max attention > 0.99) on each memorized example."""
    points = []
    for h, t in params["configs"]:
        points += _points(params, seeds, "saturation", H=[int(h)], T=[int(t)])
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
                  "heads": [1, 2, 4, 6, 8], "contexts": [1, 2, 4, 8], "sizes": [300, 600]},
        "full": {**_FULL_TRAIN, "shared": False, "n": 32, "H": 20, "d_h": 64,
                 "heads": HEADS_FULL, "contexts": CONTEXTS_FULL,
                 "sizes": [30_000, 50_000, 70_000, 90_000, 110_000, 130_000],
                 "context_sizes": [20_000, 30_000, 40_000, 50_000, 60_000]},
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


@experiment(
    "mahdavi.regression",
    title="Regression: training MSE vs heads and context length",
    paper_figure="Fig. 5",
    profiles={
        "ci": {**_CI_TRAIN, "C": 1, "n": 4, "H": 2, "d_h": 8, "heads": [1, 2],
               "contexts": [4], "sizes": [100], "contexts_shared": [True]},
        "quick": {**_QUICK_TRAIN, "C": 1, "n": 8, "H": 4, "d_h": 16, "heads": [1, 2, 4, 8],
                  "contexts": [2, 8], "sizes": [300], "contexts_shared": [True, False]},
        "full": {**_FULL_TRAIN, "C": 1, "n": 32, "H": 20, "d_h": 64, "heads": HEADS_FULL,
                 "contexts": CONTEXTS_FULL, "sizes": [10_000, 30_000, 50_000, 70_000, 90_000],
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
        points += _points(p, seeds, "regression_heads", H=params["heads"], T=params["sizes"])
        points += _points(p, seeds, "regression_context", n=params["contexts"],
                          T=params["sizes"])
    table = _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                   desc="mahdavi.regression")
    table["sweep"] = np.where(table["kind"] == "regression_heads", "heads", "context")
    table["mse"] = table["best_loss"]
    return table


# ---------------------------------------------------------------------------------------------
# Analysis helpers used by the chapter
# ---------------------------------------------------------------------------------------------


def linear_fit(table: pd.DataFrame, x: str, y: str) -> dict[str, float]:
    """Least-squares line ``y = slope x + intercept`` through the mean of ``y`` at each ``x``,
    with its coefficient of determination ``r2`` (the paper's Fig. 2a fit)."""
    means = table.groupby(x)[y].mean().reset_index()
    if len(means) < 2:
        raise ValueError(f"a linear fit needs at least two distinct {x} values")
    xs, ys = means[x].to_numpy(float), means[y].to_numpy(float)
    slope, intercept = np.polyfit(xs, ys, 1)
    resid = ys - (slope * xs + intercept)
    total = float(((ys - ys.mean()) ** 2).sum())
    r2 = 1.0 - float((resid**2).sum()) / total if total > 0 else math.nan
    return {"slope": float(slope), "intercept": float(intercept), "r2": r2,
            "points": int(len(means))}


def capacity_table(table: pd.DataFrame, x: str) -> pd.DataFrame:
    """Per ``x``: the largest number of examples memorized over the dataset sizes (mean over
    seeds), the capacity of Theorem 1 and whether every dataset was fully memorized."""
    per_size = table.groupby([x, "T"], as_index=False).agg(
        memorized=("memorized", "mean"), accuracy=("accuracy", "mean"),
        capacity=("capacity", "first"))
    return per_size.groupby(x, as_index=False).agg(
        memorized=("memorized", "max"), capacity=("capacity", "first"),
        saturated=("accuracy", lambda a: bool((a < 1.0).all())))


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
    :func:`memnb.assumptions.assumption_table`, plus Figure 1's curve for Random Attention."""
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
                  "seed": int(p["seed"])}
        rows: Rows = []
        try:
            if p["table"] == "table1":
                paths = list_images(int(p["images"]))
                name = p["representation"]
                if name == "dinov2_vits14":
                    parts: dict[int, list] = {0: [], 1: []}
                    for states in dinov2_hidden_states(paths, batch_size=int(p["batch"])):
                        for layer in (0, 1):
                            parts[layer].append(summarize([states[layer]],
                                                          name=f"dinov2_vits14_l{layer}"))
                    summaries = [merge_summaries(parts[0]), merge_summaries(parts[1])]
                else:
                    summaries = [summarize(image_hidden_states(
                        name, paths, batch_size=int(p["batch"]), seed=int(p["seed"])), name=name)]
                for summary in summaries:
                    rows += assumption_table(summary, **checks)
                if name == "random_attention":
                    ks = [k for k in p["curve_ks"] if k <= summaries[0].num_examples]
                    curve = pass_fraction_curve(summaries[0].queries, ks,
                                                repeats=int(p["curve_repeats"]),
                                                seed=int(p["seed"]))
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
    paper_figure="Table 1, Fig. 1",
    profiles={
        "ci": {"images": 24, "repeats": 3, "gp_repeats": 2, "batch": 24, "curve_repeats": 2,
               "curve_ks": [1, 8, 16, 24], "columns": ["embedding", "random_attention"]},
        "quick": {"images": 800, "repeats": 30, "gp_repeats": 6, "batch": 50,
                  "curve_repeats": 6,
                  "curve_ks": [1, 101, 197, 221, 241, 261, 281, 291, 301, 321, 341, 401, 501,
                               768],
                  "columns": list(TABLE1_COLUMNS)},
        "full": {"images": 1000, "repeats": 5000, "gp_repeats": 5000, "batch": 50,
                 "curve_repeats": 1000,
                 "curve_ks": [*range(1, 762, 10), 197, 768], "columns": list(TABLE1_COLUMNS)},
    },
)
def table1(params: dict, *, seeds: int, device: str, cache_dir: Path,
           executor: str | None = None) -> pd.DataFrame:
    """Table 1 (and Fig. 1's pass fraction against ``k`` for Random Attention), one point per
    column. ``seeds`` is not used: the checks are seeded once (seed 0)."""
    hub = _hub_flag()
    keys = ("images", "repeats", "gp_repeats", "batch", "curve_repeats", "curve_ks")
    points = [{"table": "table1", "representation": c, "seed": 0,
               "hub": hub if c == "trained_vit_b16" else None, **{k: params[k] for k in keys}}
              for c in params["columns"]]
    table = run_sweep(points, assumption_group, cache_dir=cache_dir, executor=executor,
                      desc="mahdavi.table1")
    return table.drop(columns=["curve_ks"])


@experiment(
    "mahdavi.table3",
    title="Assumptions on BERT-style and GPT-2 representations of IMDb text (L0, L1)",
    paper_figure="Table 3 (App. J)",
    profiles={
        "ci": {"bert_length": 32, "gpt_length": 32, "sequences": 40, "repeats": 3,
               "gp_repeats": 2, "batch": 20, "models": ["bert_trained", "gpt2_random"]},
        "quick": {"bert_length": 192, "gpt_length": 256, "sequences": 400, "repeats": 30,
                  "gp_repeats": 6, "batch": 25, "models": list(TABLE3_MODELS)},
        "full": {"bert_length": 192, "gpt_length": 512, "sequences": 2000, "repeats": 5000,
                 "gp_repeats": 1000, "batch": 25, "models": list(TABLE3_MODELS)},
    },
)
def table3(params: dict, *, seeds: int, device: str, cache_dir: Path,
           executor: str | None = None) -> pd.DataFrame:
    """Table 3: layers L0/L1 of trained and random BERT-style and GPT-2 models on IMDb text.

    Context lengths are chosen below the width (``n < d``, as in the paper's 512/1024 and
    1024/1280): ``n = 192`` for MiniLM (``d = 384``), ``n = 256`` (quick) or 512 (full) for GPT-2
    (``d = 768``).
    """
    hub = _hub_flag()
    points = [{"table": "table3", "model": m, "seed": 0,
               "length": params["bert_length"] if m.startswith("bert") else params["gpt_length"],
               "sequences": params["sequences"], "repeats": params["repeats"],
               "gp_repeats": params["gp_repeats"], "batch": params["batch"],
               "hub": hub if m == "gpt2_trained" else None}
              for m in params["models"]]
    return run_sweep(points, assumption_group, cache_dir=cache_dir, executor=executor,
                     desc="mahdavi.table3")


# ---------------------------------------------------------------------------------------------
# Theory, computed (Theorem 1, Propositions 1-5): small deterministic checks for the chapter
# ---------------------------------------------------------------------------------------------


def theory_dataset(T: int, n: int, d: int, *, d_o: int = 1, shared: bool = False,
                   constant_sum: float | None = None, seed: int = 0
                   ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Float64 data for the constructions: uniform contexts (shared or not; rows rescaled to sum
    to ``constant_sum`` if given), uniform queries, Gaussian labels ``[T, d_o]``."""
    g = torch.Generator().manual_seed(seed)
    if shared:
        ctx = torch.rand(n, d, generator=g, dtype=torch.float64).expand(T, n, d).clone()
    else:
        ctx = torch.rand(T, n, d, generator=g, dtype=torch.float64)
    if constant_sum is not None:
        ctx = ctx / ctx.sum(dim=2, keepdim=True) * constant_sum
    queries = torch.rand(T, d, generator=g, dtype=torch.float64)
    labels = torch.randn(T, d_o, generator=g, dtype=torch.float64)
    return ctx, queries, labels


def construction_grid(heads_list: list[int], contexts: list[int], head_dims: list[int], d: int,
                      *, shared: bool = False, seed: int = 0) -> pd.DataFrame:
    """Theorem 1 at its capacity for every ``(H, n, d_h)``: build the proof's weights for
    ``T = H(min(n, d_h)-1)+1`` examples and record ``rank Z`` and the largest error."""
    from memnb.constructions.mha import construct

    rows = []
    for h in heads_list:
        for n in contexts:
            for d_h in head_dims:
                T = mahdavi_capacity(h, n, d_h)
                ctx, q, y = theory_dataset(T, n, d, shared=shared, seed=seed)
                result = construct(ctx, q, y, h, d_h, seed=seed)
                rows.append({"H": h, "n": n, "d_h": d_h, "d": d, "T": T, "capacity": T,
                             "z_rank": result.z_rank, "max_abs_error": result.max_abs_error,
                             "memorized_all": bool(result.max_abs_error <= 1e-6)})
    return pd.DataFrame(rows)


def _trained_paper_model(ctx: torch.Tensor, q: torch.Tensor, heads: int, d_h: int, *,
                         steps: int, seed: int) -> MultiHeadAttention:
    """A paper-convention model trained briefly (classification, 10 classes) on ``(ctx, q)``."""
    T, n, d = ctx.shape
    labels = torch.from_numpy(np.random.default_rng(seed).integers(0, 10, T)).long()
    model = MultiHeadAttention(d, heads, d_h, 1, 10, seed=seed)
    config = TrainConfig(steps=steps, lr=3e-2, eval_every=max(1, steps), early_stop=False,
                         seed=seed)
    result = train_members([model], (ctx.float(), q.float()), labels, config, progress=False)
    return result.models[0].double()


def rank_bound_checks(*, heads: int, n: int, d: int, d_h: int, T: int, draws: int,
                      train_steps: int, seed: int = 0) -> pd.DataFrame:
    """Propositions 2 and 5: ``rank Z`` over random weights (several scales) and a trained model,
    for a shared context (bound ``H(n-1)+1``), for tokens summing to a constant (bound
    ``H(d-1)+1``) and, for contrast, for i.i.d. contexts (only the trivial ``min(T, H d)``)."""
    from memnb.bounds import mahdavi_constant_sum_rank_bound, mahdavi_shared_context_rank_bound
    from memnb.constructions.mha import random_weight_ranks, z_matrix

    settings = {
        "shared context (Prop. 2)": ({"shared": True},
                                     mahdavi_shared_context_rank_bound(heads, n)),
        "constant-sum tokens (Prop. 5)": ({"constant_sum": 1.0},
                                          mahdavi_constant_sum_rank_bound(heads, d)),
        "i.i.d. contexts": ({}, min(T, heads * d)),
    }
    rows = []
    for name, (kw, bound) in settings.items():
        ctx, q, _ = theory_dataset(T, n, d, seed=seed, **kw)
        for r in random_weight_ranks(ctx, q, heads, d_h, draws=draws, seed=seed):
            rows.append({"setting": name, "weights": f"random (scale {r['scale']:g})",
                         "rank": r["rank"], "bound": bound})
        trained = _trained_paper_model(ctx, q, heads, d_h, steps=train_steps, seed=seed)
        z = z_matrix(trained, ctx, q)
        s = torch.linalg.svdvals(z)
        rank = int((s > 1e-9 * s[0]).sum())
        rows.append({"setting": name, "weights": "trained", "rank": rank, "bound": bound})
    table = pd.DataFrame(rows)
    return table.groupby(["setting", "weights"], as_index=False, sort=False).agg(
        max_rank=("rank", "max"), bound=("bound", "first"), draws=("rank", "size"))


def relu_comparison(*, heads: int, n: int, d: int, T: int, seed: int = 0) -> pd.DataFrame:
    """Proposition 3, parameter-matched [reconstruction]: on a shared context of standard-basis
    rows with queries in general position, the attention layer (``d_h = d``, ``d_v = 1``)
    memorizes ``H(n-1)+1`` examples exactly; a two-layer ReLU network on ``[vec E; e]`` with at
    least as many parameters has an output Jacobian of rank at most ``m(d+2)+1`` (``m`` units)."""
    from memnb.bounds import mahdavi_parameter_count
    from memnb.constructions.mha import construct, relu_network_jacobian_rank

    cap = mahdavi_capacity(heads, n, d)
    ctx = torch.eye(n, d, dtype=torch.float64).expand(T, n, d).clone()
    q = torch.randn(T, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    labels = torch.randn(T, 1, generator=torch.Generator().manual_seed(seed + 1),
                         dtype=torch.float64)
    built = construct(ctx[:cap], q[:cap], labels[:cap], heads, d, seed=seed)
    attn_params = mahdavi_parameter_count(heads, d, d, 1, 1)
    width = max(1, math.ceil(attn_params / ((n + 1) * d + 2)))
    rows = [{"model": f"attention, H={heads}, d_h={d}, d_v=1", "parameters": attn_params,
             "examples_fitted": cap if built.max_abs_error <= 1e-6 else 0,
             "how": "exact construction (Thm 1): lower bound"}]
    for m, why in ((heads, "m = H (Prop. 3's setting)"), (width, "parameter-matched")):
        rank, fcn_params = relu_network_jacobian_rank(ctx, q, m, seed=seed)
        rows.append({"model": f"two-layer ReLU network, m={m} ({why})", "parameters": fcn_params,
                     "examples_fitted": rank,
                     "how": f"upper bound: output-Jacobian rank on T={T} examples"})
    return pd.DataFrame(rows)
