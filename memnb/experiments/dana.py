"""Experiments 1-6 of Dana, Pydi & Chevaleyre (AISTATS 2025), §5 and App. B (Figs. 1-4), and
App. B.1-B.2's reruns of Experiments 1, 2 and 5 with a larger dimension or 3 layers (Figs. 5-10).

Every experiment trains attention-only Transformers (eq. 2) on the random bigram task
(``S = 2``, ``t_3 = g(t_1, t_2)``, :mod:`memnb.data.synthetic`) with the official code's recipe:
Adam, learning rate decaying linearly from 0.01 to 5e-4 (the code's *effective* rates, see the
notes), batches of 256 drawn from one fixed sample of 16,384 contexts, 4,096 steps. Models that
differ only in their head count or seed are trained as one packed stack.

Differences from the official code, kept on purpose (the paper's equations are the reference):
the model follows eqs. (1)-(2) (no 1/sqrt(d_h) scaling, per-head projections instead of the code's
shared d -> d_h compression, positions added to the residual stream) with N(0, 1) embeddings
(the code's are ``nn.Linear`` weights, U(±1/sqrt(d)); the paper states no initialisation), and
Experiment 5's MLP block is the code's (input bias, no output bias); the learning rate decays
every step instead of every epoch. Each point records two accuracies: the best-training-loss
checkpoint's on the whole training sample (``accuracy``) and, as the code reports it, the mean
over the last 100 training batches (``accuracy_last_batches``); the paper's numbers are compared
with the second wherever a run recorded it.
``dana.layout`` (ours) retrains Experiments 2 and 3 with the code's model to measure what the
first difference changes.

The paper's values are not in this module: :mod:`memnb.papers.dana` reads them from the official
repository's CSV files.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from memnb.data.synthetic import all_contexts, association_task
from memnb.experiments.registry import experiment
from memnb.models.attention_mlp import AttentionMLPTransformer
from memnb.models.attention_only import AttentionOnlyTransformer
from memnb.models.compressed_attention_mlp import CompressedAttentionMLPTransformer
from memnb.models.compressed_attention_only import CompressedAttentionOnlyTransformer
from memnb.sweep import Point, Rows, training_sweep
from memnb.train import TrainConfig, train_members

HEADS_FULL = [1, 6, 11, 16, 21, 26, 31]
#: The official code reports ``sum(Acc[-101:-1]) / 100``: the mean accuracy of the 100 training
#: batches before the last, each scored before its update (``experiments.ipynb``, every
#: experiment). Recorded as ``accuracy_last_batches`` over ``min(100, steps - 1)`` batches.
OFFICIAL_BATCH_WINDOW = 100

_TRAIN_FULL = {"steps": 4096, "batch": 256, "samples": 16384, "lr": 0.01, "lr_final": 5e-4}
_TRAIN_QUICK = {"steps": 4096, "batch": 256, "samples": 16384, "lr": 0.01, "lr_final": 5e-4}
_TRAIN_CI = {"steps": 300, "batch": 128, "samples": 2048, "lr": 0.01, "lr_final": 5e-4}
_EXP5_FULL = {"steps": 16384, "batch": 1024, "samples": 262144, "lr": 0.01, "lr_final": 5e-4,
              "lr_final_mlp": 1e-4}
_EXP5_QUICK = {"steps": 1024, "batch": 512, "samples": 32768, "lr": 0.01, "lr_final": 5e-4,
               "lr_final_mlp": 1e-4}
_EXP5_CI = {**_TRAIN_CI, "lr_final_mlp": 1e-4}

_GROUP_FIELDS = ("model", "N", "S", "d", "d_h", "steps", "batch", "samples", "lr", "lr_final",
                 "data_seed", "layers")


def _group_key(point: Point) -> tuple:
    return tuple(point.get(k) for k in _GROUP_FIELDS)


#: Model kinds of the points: eq. (2), eq. (2) + MLP (Experiment 5), and (``dana.layout``, ours)
#: the official code's model and eq. (2) with only the code's scaling and positions.
MODEL_KINDS = {
    "aot": "eq. (2)",
    "mlp": "eq. (2) + MLP",
    "aot_code": "official code's model",
    "aot_code_uncompressed": "eq. (2) + code's 1/√d_h and positions",
    "mlp_code": "official code's model + MLP",
    "mlp_code_uncompressed": "eq. (2) + code's 1/√d_h and positions + MLP",
}
#: The kinds that ``dana.layout`` and ``dana.layout_heads`` train beside eq. (2).
CODE_MODEL_KINDS = ("aot_code", "aot_code_uncompressed")


def _build(point: Point, padded_heads: int, padded_width: int) -> torch.nn.Module:
    common = {"vocab_size": point["N"], "seq_len": point["S"], "d": point["d"],
              "d_h": point["d_h"], "num_heads": padded_heads, "active_heads": point["H"],
              "seed": point["seed"]}
    if point.get("layers", 1) != 1:
        if point["model"] not in ("aot", "mlp"):
            raise ValueError(f"layers > 1 needs model 'aot' or 'mlp'; got {point['model']!r}")
        common["num_layers"] = point["layers"]
    kind = point["model"]
    if kind == "mlp":
        return AttentionMLPTransformer(**common, width=padded_width, active_width=point["width"])
    if kind == "aot_code":
        return CompressedAttentionOnlyTransformer(**common)
    if kind == "mlp_code":
        return CompressedAttentionMLPTransformer(**common, width=padded_width,
                                                 active_width=point["width"])
    if kind == "mlp_code_uncompressed":
        return AttentionMLPTransformer(**common, width=padded_width, active_width=point["width"],
                                       scale_logits=True, pos_placement="attention_only")
    if kind == "aot_code_uncompressed":
        return AttentionOnlyTransformer(**common, scale_logits=True,
                                        pos_placement="attention_only")
    if kind == "aot":
        return AttentionOnlyTransformer(**common)
    raise ValueError(f"model must be one of {', '.join(MODEL_KINDS)}; got {kind!r}")


def train_group(points: list[Point], *, device: str = "cpu", progress: bool = True) -> list[Rows]:
    """Train one packed stack of compatible points (same task, shapes up to heads/width).

    Returns, per point, one row: the best checkpoint's accuracy on the training sample
    (``accuracy``), the mean accuracy of the last training batches as the official code reports
    it (``accuracy_last_batches``, see :data:`OFFICIAL_BATCH_WINDOW`), the accuracy on all
    ``N^S`` contexts, the best training loss, the number of steps run and the paper's parameter
    count.
    """
    first = points[0]
    if any(_group_key(p) != _group_key(first) for p in points):
        raise ValueError("train_group needs points that share " + ", ".join(_GROUP_FIELDS))
    task = association_task(first["N"], first["S"], first["samples"], first["data_seed"])
    padded_heads = max(p["H"] for p in points)
    padded_width = max(p.get("width", 0) for p in points)
    members = [_build(p, padded_heads, padded_width) for p in points]
    config = TrainConfig(steps=first["steps"], lr=first["lr"], optimizer="adam",
                         schedule="linear", final_lr_factor=first["lr_final"] / first["lr"],
                         batch_size=first["batch"], eval_every=max(first["steps"] // 4, 1),
                         seed=first["data_seed"], device=device,
                         batch_accuracy_window=min(OFFICIAL_BATCH_WINDOW, first["steps"] - 1))
    desc = f"{first['model']} d={first['d']} d_h={first['d_h']} ({len(points)} models)"
    result = train_members(members, task.tokens, task.targets, config, progress=progress,
                           desc=desc)
    contexts = all_contexts(first["N"], first["S"])
    out: list[Rows] = []
    for k, model in enumerate(result.models):
        with torch.no_grad():
            predictions = model.cpu()(contexts).argmax(dim=-1)
        out.append([{
            "accuracy": float(result.accuracy[k]),
            "accuracy_last_batches": float(result.last_batches_accuracy[k]),
            "accuracy_all_contexts": float((predictions == task.table).double().mean()),
            "loss": float(result.best_loss[k]),
            "steps_run": int(result.steps_run[k]),
            "params": int(model.num_parameters()),
            "T0": task.num_associations,
        }])
    return out


_sweep = functools.partial(training_sweep, train_group, _group_key)


def _seed_group_key(point: Point) -> tuple:
    return (*_group_key(point), point["seed"])


#: Experiment 5 packs one seed's heads sweep per group: its full profile's groups of 7 take about
#: half an hour each on one CPU thread, so a run resumed session after session loses at most one
#: such group at a stop, where whole-model groups of 35 would take two hours.
_sweep_per_seed = functools.partial(training_sweep, train_group, _seed_group_key)


def _points(params: dict[str, Any], seeds: int, **axes: list[Any]) -> list[Point]:
    base = {"model": params.get("model", "aot"), "N": params["N"], "S": 2,
            "steps": params["steps"], "batch": params["batch"], "samples": params["samples"],
            "lr": params["lr"], "lr_final": params["lr_final"],
            "data_seed": params.get("data_seed", 2222)}
    points: list[Point] = [base]
    for name, values in axes.items():
        points = [{**p, name: v} for p in points for v in values]
    return [{**p, "seed": s} for p in points for s in range(seeds)]


def _finish(points: list[Point]) -> list[Point]:
    """Fill ``d_h = d`` where a point does not set ``d_h`` explicitly."""
    return [{**p, "d_h": p.get("d_h", p["d"])} for p in points]


@experiment(
    "dana.exp1", title="Accuracy vs number of heads H (d = d_h)",
    paper_figure="Dana et al. Fig. 1a (Experiment 1)",
    profiles={
        "ci": {"N": 12, "d": [4], "H": [1, 3, 6], **_TRAIN_CI},
        "quick": {"N": 50, "d": [6, 10], "H": HEADS_FULL, **_TRAIN_QUICK},
        "full": {"N": 50, "d": list(range(3, 14)), "H": HEADS_FULL, **_TRAIN_FULL},
    },
)
def exp1(params: dict, *, seeds: int, device: str, cache_dir: Path,
         executor: str | None = None) -> pd.DataFrame:
    """Experiment 1: accuracy against H for several d = d_h (the paper plots d = 10)."""
    points = _finish(_points(params, seeds, d=params["d"], H=params["H"]))
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor, desc="dana.exp1")


@experiment(
    "dana.exp2", title="Accuracy vs head dimension d_h (d = 10, H = 20)",
    paper_figure="Dana et al. Fig. 1b (Experiment 2)",
    profiles={
        "ci": {"N": 12, "d": 4, "H": 4, "d_h": [1, 4], **_TRAIN_CI},
        "quick": {"N": 50, "d": 10, "H": 20, "d_h": [1, 2, 4, 6, 8, 10], "seeds": 1,
                  **_TRAIN_QUICK},
        "full": {"N": 50, "d": 10, "H": 20, "d_h": list(range(1, 11)), **_TRAIN_FULL},
    },
)
def exp2(params: dict, *, seeds: int, device: str, cache_dir: Path,
         executor: str | None = None) -> pd.DataFrame:
    """Experiment 2: accuracy against d_h at fixed d and H."""
    points = _points(params, seeds, d=[params["d"]], H=[params["H"]], d_h=params["d_h"])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor, desc="dana.exp2")


@experiment(
    "dana.exp3", title="Accuracy vs embedding dimension d (H = 20, d_h = 10)",
    paper_figure="Dana et al. Fig. 2a (Experiment 3)",
    profiles={
        "ci": {"N": 12, "H": 4, "d_h": 4, "d": [3, 6], **_TRAIN_CI},
        "quick": {"N": 50, "H": 20, "d_h": 10, "d": [5, 7, 10, 12, 15], "seeds": 1,
                  **_TRAIN_QUICK},
        "full": {"N": 50, "H": 20, "d_h": 10, "d": list(range(5, 16)), **_TRAIN_FULL},
    },
)
def exp3(params: dict, *, seeds: int, device: str, cache_dir: Path,
         executor: str | None = None) -> pd.DataFrame:
    """Experiment 3: accuracy against d at fixed H and d_h (d_h may exceed d, as in the code)."""
    points = _points(params, seeds, d=params["d"], H=[params["H"]], d_h=[params["d_h"]])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor, desc="dana.exp3")


def as_the_paper_reports(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with ``accuracy`` the quantity the paper's CSVs hold, when the run recorded it.

    The official code reports the mean accuracy of the last 100 training batches
    (:data:`OFFICIAL_BATCH_WINDOW`); our rows hold it as ``accuracy_last_batches`` beside the
    best checkpoint's ``accuracy`` on the training sample.
    When every row has it, the result's ``accuracy`` is that mean and ``accuracy_checkpoint``
    keeps the checkpoint's; a run made before the mean was recorded is returned unchanged (see
    :func:`memnb.dana_reading.reported_accuracy`).
    """
    if "accuracy_last_batches" not in table or table["accuracy_last_batches"].isna().any():
        return table
    return table.assign(accuracy_checkpoint=table["accuracy"],
                        accuracy=table["accuracy_last_batches"])


def head_slopes(table: pd.DataFrame, threshold: float = 0.95) -> pd.DataFrame:
    """Least-squares slope of accuracy vs H per (d, seed), using points up to the first
    accuracy above ``threshold`` (the official ``reg_lin`` rule); columns d, seed, slope."""
    rows = []
    for (d, seed), part in table.groupby(["d", "seed"]):
        part = part.sort_values("H")
        above = np.flatnonzero(part["accuracy"].to_numpy() > threshold)
        stop = above[0] + 1 if above.size else len(part)
        used = part.iloc[: max(stop, 2)]
        slope = np.polyfit(used["H"], used["accuracy"], 1)[0]
        rows.append({"d": int(d), "seed": int(seed), "slope": float(slope),
                     "points_used": len(used)})
    return pd.DataFrame(rows)


def official_slopes(table: pd.DataFrame) -> pd.DataFrame:
    """Per-head slope at each d by the official rule: fit the *seed-averaged* curve (as the
    official code fits its CSV means), with :func:`memnb.papers.dana.official_slope`.

    Columns: d, slope, intercept, points_used, seeds, slope_std (the spread of the per-seed
    slopes of :func:`head_slopes`, 0 with one seed).
    """
    from memnb.papers.dana import official_slope

    rows = []
    per_seed = head_slopes(table)
    for d, part in table.groupby("d"):
        mean = part.groupby("H")["accuracy"].mean()
        slope, intercept, used = official_slope(mean.index.to_numpy(), mean.to_numpy())
        seeds = per_seed[per_seed["d"] == d]["slope"]
        rows.append({"d": int(d), "slope": slope, "intercept": intercept, "points_used": used,
                     "seeds": int(part["seed"].nunique()),
                     "slope_std": float(seeds.std()) if len(seeds) > 1 else 0.0})
    return pd.DataFrame(rows)


def fit_power(d: np.ndarray, slopes: np.ndarray, power: int) -> dict[str, float]:
    """Least squares ``slope = a d^power + b`` (Experiment 4); returns a, b and the SSE."""
    design = np.stack([np.asarray(d, float) ** power, np.ones(len(d))], axis=1)
    coef, *_ = np.linalg.lstsq(design, np.asarray(slopes, float), rcond=None)
    sse = float(np.sum((design @ coef - slopes) ** 2))
    return {"a": float(coef[0]), "b": float(coef[1]), "sse": sse}


@experiment(
    "dana.exp4", title="Scaling of the per-head slope C(d, N) with d",
    paper_figure="Dana et al. Fig. 2b (Experiment 4)",
    profiles={
        "ci": {"N": 12, "d": [3, 4], "H": [1, 3, 6], **_TRAIN_CI},
        "quick": {"N": 50, "d": [6, 10], "H": HEADS_FULL, **_TRAIN_QUICK},
        "full": {"N": 50, "d": list(range(3, 14)), "H": HEADS_FULL, **_TRAIN_FULL},
    },
)
def exp4(params: dict, *, seeds: int, device: str, cache_dir: Path,
         executor: str | None = None) -> pd.DataFrame:
    """Experiment 4: slopes of Experiment 1 against d, fitted by a d^2 + b and a d^3 + b.

    Each seed's slope (:func:`head_slopes`) is fitted to the accuracy the paper's CSVs hold, the
    mean over the last training batches (:func:`as_the_paper_reports`), and
    ``slope_checkpoint`` beside it to the best checkpoint's accuracy on the training sample; the
    fits are of the mean over seeds of ``slope``. Reuses Experiment 1's cached points (same grid,
    same cache), so it costs nothing after ``dana.exp1`` under the same profile.
    """
    exp1_cache = Path(cache_dir).parent / "dana.exp1"
    table = exp1(params, seeds=seeds, device=device, cache_dir=exp1_cache, executor=executor)
    slopes = head_slopes(as_the_paper_reports(table))
    checkpoint = head_slopes(table).set_index(["d", "seed"])["slope"]
    mean = slopes.groupby("d")["slope"].mean()
    rows = [{"kind": "slope", "d": int(d), "seed": int(s), "slope": float(v),
             "slope_checkpoint": float(checkpoint[(d, s)])}
            for d, s, v in slopes[["d", "seed", "slope"]].itertuples(index=False)]
    for power, name in ((2, "quadratic"), (3, "cubic")):
        fit = fit_power(mean.index.to_numpy(), mean.to_numpy(), power)
        rows.append({"kind": f"fit_{name}", **fit})
    return pd.DataFrame(rows)


def _exp5_points(params: dict, seeds: int,
                 kinds: tuple[str, ...] = ("aot", "mlp")) -> list[Point]:
    """Seed after seed (the outer loop), so that a run stopped part-way holds the whole figure
    (both models at every d) for its first seeds rather than all seeds of its first panels.
    ``kinds`` names the attention-only model first, then the one-head + MLP models."""
    points = []
    for seed in range(seeds):
        for d in params["d"]:
            for kind in kinds:
                attention_only = kind == kinds[0]
                lr_final = params["lr_final"] if attention_only else params["lr_final_mlp"]
                for h in params["H"]:
                    heads, width = (h, 0) if attention_only else (1, 2 * d * (h - 1))
                    points.append({"model": kind, "N": params["N"], "S": 2, "d": d, "d_h": d,
                                   "H": heads, "H_equiv": h, "width": width,
                                   "steps": params["steps"], "batch": params["batch"],
                                   "samples": params["samples"], "lr": params["lr"],
                                   "lr_final": lr_final, "data_seed": 2222, "seed": seed})
    return points


@experiment(
    "dana.exp5", title="Attention-only vs one head + MLP at equal parameter count",
    paper_figure="Dana et al. Fig. 3 (Experiment 5)",
    profiles={
        "ci": {"N": 12, "d": [4], "H": [1, 3], **_EXP5_CI},
        "quick": {"N": 70, "d": [7, 10], "H": [1, 11, 21, 31], "seeds": 1, **_EXP5_QUICK},
        "full": {"N": 70, "d": [7, 10, 13], "H": HEADS_FULL, **_EXP5_FULL},
    },
)
def exp5(params: dict, *, seeds: int, device: str, cache_dir: Path,
         executor: str | None = None) -> pd.DataFrame:
    """Experiment 5: AoT with H heads vs 1 head + MLP of width 2d(H-1); x-axis = parameters."""
    return _sweep_per_seed(_exp5_points(params, seeds), device=device, cache_dir=cache_dir,
                           executor=executor, desc="dana.exp5")


#: The models ``dana.exp5_code`` trains: the code's attention-only model, the code's one-head +
#: MLP model, and (to separate the initialisation from the rest) eq. (2) + MLP with only the
#: code's logit scale and positions.
EXP5_CODE_KINDS = ("aot_code", "mlp_code", "mlp_code_uncompressed")


@experiment(
    "dana.exp5_code", title="Experiment 5 with the official code's models (ours)",
    paper_figure="Dana et al. Fig. 3 (Experiment 5)",
    profiles={
        "ci": {"N": 12, "d": [4], "H": [1, 3], **_EXP5_CI},
        "quick": {"N": 70, "d": [7], "H": [1, 11, 21, 31], "seeds": 1, **_EXP5_QUICK},
        "full": {"N": 70, "d": [7, 10], "H": HEADS_FULL, "seeds": 1, **_EXP5_FULL},
    },
)
def exp5_code(params: dict, *, seeds: int, device: str, cache_dir: Path,
              executor: str | None = None) -> pd.DataFrame:
    """Experiment 5 (Fig. 3) trained with the official code's models (ours).

    Our Experiment 5 trains eq. (2) and eq. (2) + MLP; the code trains its own ``Transformer``
    (``aot_code``: :class:`CompressedAttentionOnlyTransformer`; ``mlp_code``: the same with the
    code's MLP block, :class:`CompressedAttentionMLPTransformer`), which at ``d = d_h`` differs
    by the ``1/sqrt(d_h)`` logit scale, positions added to the attention input alone and the
    code's initialisation (embeddings U(±1/sqrt(d)) where ours are N(0, 1));
    ``mlp_code_uncompressed`` has the first two and eq. (2)'s initialisation, which separates the
    initialisation from the rest. Same recipe and grid in ``H`` as ``dana.exp5``; ``full`` runs
    one seed at d = 7, where our one head + MLP departs furthest from the paper's CSV, and at
    d = 10, where our eq. (2) AoT stays below the paper's level at every H > 1 while neither
    model nears 1 (as both do at d = 13), to measure whether the code's models account for both.
    """
    return _sweep_per_seed(_exp5_points(params, seeds, EXP5_CODE_KINDS), device=device,
                           cache_dir=cache_dir, executor=executor, desc="dana.exp5_code")


@experiment(
    "dana.exp6", title="Small vocabulary: N = 10, d = d_h = 2",
    paper_figure="Dana et al. Fig. 4 (Experiment 6)",
    profiles={
        "ci": {"N": 10, "d": 2, "H": [1, 5, 9], **_TRAIN_CI},
        "quick": {"N": 10, "d": 2, "H": [1, 5, 9, 13, 17, 21], "seeds": 3, **_TRAIN_QUICK},
        "full": {"N": 10, "d": 2, "H": [1, 5, 9, 13, 17, 21], "seeds": 20, **_TRAIN_FULL},
    },
)
def exp6(params: dict, *, seeds: int, device: str, cache_dir: Path,
         executor: str | None = None) -> pd.DataFrame:
    """Experiment 6: the d = 2 regime of Corollary 1 (the paper uses 20 repetitions)."""
    points = _finish(_points(params, seeds, d=[params["d"]], H=params["H"]))
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor, desc="dana.exp6")


@experiment(
    "dana.layout", title="Experiments 2 and 3 with the official code's model (ours)",
    paper_figure="Dana et al. Figs. 1b and 2a (Experiments 2 and 3)",
    profiles={
        "ci": {"N": 12, "H": 4, "d": 4, "d_h": 4, "d_h_sweep": [1, 4], "d_sweep": [3, 6],
               **_TRAIN_CI},
        "quick": {"N": 50, "H": 20, "d": 10, "d_h": 10, "d_h_sweep": [1, 4, 10],
                  "d_sweep": [5, 10, 15], "seeds": 1, **_TRAIN_QUICK},
        "full": {"N": 50, "H": 20, "d": 10, "d_h": 10, "d_h_sweep": list(range(1, 11)),
                 "d_sweep": list(range(5, 16)), **_TRAIN_FULL},
    },
)
def layout(params: dict, *, seeds: int, device: str, cache_dir: Path,
           executor: str | None = None) -> pd.DataFrame:
    """Experiments 2 and 3 (Figs. 1b, 2a) trained with the official code's model (ours).

    Tests our reading of where Experiments 2 and 3 depart from the paper: for each shape of
    Experiment 2 (``d`` fixed, ``d_h`` in ``d_h_sweep``) and Experiment 3 (``d_h`` fixed, ``d``
    in ``d_sweep``) it trains ``aot_code`` (the code's shared ``d -> d_h`` compression, see
    :class:`~memnb.models.compressed_attention_only.CompressedAttentionOnlyTransformer`) and,
    to separate the compression from the code's other two differences, ``aot_code_uncompressed``
    (eq. 2 with the code's ``1/sqrt(d_h)`` and positions only in the attention input). The
    eq. (2) curves are those of ``dana.exp2`` and ``dana.exp3``; the recipe is theirs.
    """
    shapes = sorted({(params["d"], d_h) for d_h in params["d_h_sweep"]}
                    | {(d, params["d_h"]) for d in params["d_sweep"]})
    points = [point for kind in CODE_MODEL_KINDS for d, d_h in shapes
              for point in _points({**params, "model": kind}, seeds, d=[d], d_h=[d_h],
                                   H=[params["H"]])]
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc="dana.layout")


@experiment(
    "dana.layout_heads", title="Experiment 1 with the official code's model (ours)",
    paper_figure="Dana et al. Figs. 1a and 2b (Experiments 1 and 4)",
    profiles={
        "ci": {"N": 12, "d": [4], "H": [1, 3, 6], **_TRAIN_CI},
        "quick": {"N": 50, "d": [10], "H": HEADS_FULL, "seeds": 1, **_TRAIN_QUICK},
        "full": {"N": 50, "d": [10, 13], "H": HEADS_FULL, **_TRAIN_FULL},
    },
)
def layout_heads(params: dict, *, seeds: int, device: str, cache_dir: Path,
                 executor: str | None = None) -> pd.DataFrame:
    """Experiment 1 (Fig. 1a, and its per-head slopes of Fig. 2b) with the code's model (ours).

    At ``d = d_h`` the code has no compression, so ``aot_code`` differs from eq. (2) only by the
    ``1/sqrt(d_h)`` logit scale, positions added to the attention input alone, and the code's
    initialisation (embeddings U(±1/sqrt(d)) and U(±1/sqrt(d_h)) as ``nn.Linear`` weights,
    ``nn.MultiheadAttention``'s projections); ``aot_code_uncompressed`` has the first two
    and eq. (2)'s initialisation, which separates the initialisation from the rest. Same recipe,
    grid in ``H`` and seeds as ``dana.exp1``, whose table gives the eq. (2) curves.
    """
    points = [point for kind in CODE_MODEL_KINDS
              for point in _finish(_points({**params, "model": kind}, seeds, d=params["d"],
                                           H=params["H"]))]
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc="dana.layout_heads")


# --- App. B.1 and B.2: larger embedding dimension, deeper models (Figs. 5-10) ----------------
#
# The grids are those of the official CSVs (``Data_exp_{1,2,5}_*_dim.csv`` and ``*_depth.csv``),
# which the official ``experiments.ipynb`` writes (its "Additional experiments" cells, commit
# cffc0d8): App. B.1 at N = 200 with d = d_h = 40, 50, 60, H = 1, 3, ..., 11 (Fig. 5), d = 50,
# H = 11, d_h = 1, 5, ..., 50 (Fig. 6) and one head + MLP of width 2d(H - 1) (Fig. 7); App. B.2
# at N = 70, d = d_h = 7, 10, 13, H = 1, 5, ..., 21 (Fig. 8), d = 10, H = 21, d_h = 1..10
# (Fig. 9) and the MLP model (Fig. 10), all with 3 layers. The official code builds these with
# its own ``Transformer``; we use the models of our Experiments 1, 2 and 5 (eq. 2 and eq. 2 +
# MLP, with ``num_layers``), trained with the notebook's recipes, so that each appendix figure
# differs from its §5 counterpart only by the size, the depth and the recipe.

#: The default number of layers of ``dana.appendix_depth`` when a profile names none. App. B.2
#: says "5 layers instead of 1", and the official ``expe_depth.py`` sets ``nb_layers = 5``, but
#: that script writes no CSV the paper plots (N = 50, H = 1, 6, ..., 21, d = 10 only); the
#: notebook cells that write the ``*_depth.csv`` files set ``nb_layers = 3``. The ``quick`` and
#: ``full`` profiles name ``layers`` (:data:`_DEPTH_LAYERS`), so this default is used by none.
APPENDIX_LAYERS = 5
_DIM_H = [1, 3, 5, 7, 9, 11]
_DEPTH_H = [1, 5, 9, 13, 17, 21]
#: N = 200 has 40,000 contexts, 16 times Experiment 1's 2,500, so Experiment 1's budget (4,096
#: steps of 256) would measure the budget, not the capacity. The official notebook's App. B.1
#: cells (as App. B states for "every model": "2^6 batches of 2^10 elements", "2^6 epochs") train
#: 4,096 steps of 1,024 on one sample of 65,536 contexts (about 81 % of the contexts; the
#: accuracy is measured on it), the learning rate 0.01 -> 5e-4 (the code's ``lr = 0.1``,
#: ``lr_low = lr * 0.05``, applied as ``LinearLR`` factors), and Fig. 7's MLP model on the same
#: data with ``lr_low = lr * 0.01`` (0.01 -> 1e-4). (``expe_dim.ipynb`` sets other values but
#: writes no CSV the paper plots.)
_DIM_TRAIN = {"steps": 4096, "batch": 1024, "samples": 65536, "lr": 0.01, "lr_final": 5e-4}
#: Fig. 7's recipe: the B.1 data and steps, the MLP's final learning rate 1e-4 (above).
_DIM_EXP5 = {**_DIM_TRAIN, "lr_final_mlp": 1e-4}
#: App. B.2 in the official notebook: ``nb_layers = 3``, batches of 2^9, 2^7 batches, 2^6 epochs
#: (8,192 steps of 512 on 65,536 contexts), ``lr = 5e-2`` with ``lr_low = lr``: a constant
#: effective rate of 2.5e-3 (``LinearLR`` factor 0.05 of 0.05), for the AoT and the MLP model.
_DEPTH_LAYERS = 3
_DEPTH_TRAIN = {"steps": 8192, "batch": 512, "samples": 65536, "lr": 2.5e-3, "lr_final": 2.5e-3}
_DEPTH_EXP5 = {**_DEPTH_TRAIN, "lr_final_mlp": 2.5e-3}
#: ``quick``: a reduced scale (smaller N and d, three points per figure, fewer steps) that
#: trains in well under a minute on a CPU; its values are not the paper's.
_APPENDIX_QUICK = {"steps": 600, "batch": 256, "samples": 16384, "lr": 0.01, "lr_final": 5e-4,
                   "lr_final_mlp": 1e-4}
_APPENDIX_QUICK_DEPTH = {**_APPENDIX_QUICK, "steps": 500, "batch": 128, "samples": 8192}


def _appendix_points(params: dict, seeds: int, layers: int) -> list[Point]:
    """The points of one appendix experiment: its Exp. 1, Exp. 2 and Exp. 5 variants, each
    tagged with the figure (``figure`` column) and trained with the recipe of that experiment
    (``exp5`` keys for the Exp. 5 variant, where both the AoT and the MLP model are trained)."""
    n = params["N"]
    fig1, fig2, fig5 = params["figures"]

    def point(figure: str, recipe: dict, **kw: Any) -> Point:
        return {"figure": figure, "model": "aot", "N": n, "S": 2, "layers": layers,
                "steps": recipe["steps"], "batch": recipe["batch"],
                "samples": recipe["samples"], "lr": recipe["lr"],
                "lr_final": recipe["lr_final"], "data_seed": 2222, **kw}

    base, exp5 = params["train"], params["exp5"]
    recipe = ("steps", "batch", "samples", "lr", "lr_final")
    # when both recipes agree (``quick``, ``ci``), the Exp. 5 figure reuses the Exp. 1 AoT points
    shared_aot = all(base[k] == exp5[k] for k in recipe) and set(params["exp5_d"]) <= set(
        params["d"])
    points = [point(fig1, base, d=d, d_h=d, H=h, seed=s)
              for d in params["d"] for h in params["H"] for s in range(seeds)]
    points += [point(fig2, base, d=params["exp2_d"], d_h=d_h, H=params["exp2_H"], seed=s)
               for d_h in params["exp2_d_h"] for s in range(seeds)]
    for d in params["exp5_d"]:
        for kind in ("mlp",) if shared_aot else ("aot", "mlp"):
            for h in params["H"]:
                heads, width = (h, 0) if kind == "aot" else (1, 2 * d * (h - 1))
                lr_final = exp5["lr_final"] if kind == "aot" else exp5["lr_final_mlp"]
                points += [{**point(fig5, exp5, d=d, d_h=d, H=heads, seed=s), "model": kind,
                            "H_equiv": h, "width": width, "lr_final": lr_final}
                           for s in range(seeds)]
    return points


def appendix_rows(table: pd.DataFrame, figure: str) -> pd.DataFrame:
    """The rows of ``dana.appendix_dim``/``appendix_depth`` that draw ``figure`` (Figs. 5-10).

    For the Experiment 5 figures (7, 10) the AoT rows are those trained with Experiment 5's
    recipe, or, when the profile trained none (same recipe as Experiment 1, as in ``quick``),
    the Experiment 1 figure's AoT rows at the same d with ``H_equiv = H`` and ``width = 0``.
    Raises ``ValueError`` for a figure outside Figs. 5-10.
    """
    figures = {f: i for figs in (_DIM_FIGS, _DEPTH_FIGS) for i, f in enumerate(figs)}
    if figure not in figures:
        raise ValueError(f"figure must be one of Figs. 5-10 ('Fig. 5' ... 'Fig. 10'); "
                         f"got {figure!r}")
    rows = table[table["figure"] == figure].copy()
    if figures[figure] != 2 or (rows["model"] == "aot").any():
        return rows
    exp1_figure = (_DIM_FIGS if figure in _DIM_FIGS else _DEPTH_FIGS)[0]
    aot = table[(table["figure"] == exp1_figure) & table["d"].isin(rows["d"].unique())].copy()
    aot = aot.assign(figure=figure, H_equiv=aot["H"], width=0)
    return pd.concat([aot, rows], ignore_index=True)


def _appendix_profile(*, N: int, d: list[int], H: list[int], exp2_d: int, exp2_H: int,
                      exp2_d_h: list[int], exp5_d: list[int], figures: tuple[str, str, str],
                      train: dict, exp5: dict, **extra: Any) -> dict[str, Any]:
    return {"N": N, "d": d, "H": H, "exp2_d": exp2_d, "exp2_H": exp2_H, "exp2_d_h": exp2_d_h,
            "exp5_d": exp5_d, "figures": list(figures), "train": train, "exp5": exp5, **extra}


_DIM_FIGS = ("Fig. 5", "Fig. 6", "Fig. 7")
_DEPTH_FIGS = ("Fig. 8", "Fig. 9", "Fig. 10")


@experiment(
    "dana.appendix_dim", title="Experiments 1, 2 and 5 at N = 200, d = 40-60 (App. B.1)",
    paper_figure="Dana et al. Figs. 5, 6 and 7 (App. B.1)",
    profiles={
        "ci": _appendix_profile(N=12, d=[4], H=[1, 3], exp2_d=4, exp2_H=3, exp2_d_h=[1, 2, 4],
                                exp5_d=[4], figures=_DIM_FIGS, train=_TRAIN_CI, exp5=_EXP5_CI),
        "quick": _appendix_profile(N=100, d=[20], H=[1, 5, 11], exp2_d=25, exp2_H=11,
                                   exp2_d_h=[1, 12, 25], exp5_d=[20], figures=_DIM_FIGS,
                                   train={**_APPENDIX_QUICK, "samples": 32768},
                                   exp5={**_APPENDIX_QUICK, "samples": 32768}, seeds=1),
        "full": _appendix_profile(N=200, d=[40, 50, 60], H=_DIM_H, exp2_d=50, exp2_H=11,
                                  exp2_d_h=[1] + list(range(5, 51, 5)), exp5_d=[40, 50, 60],
                                  figures=_DIM_FIGS,
                                  train=_DIM_TRAIN, exp5=_DIM_EXP5),
    },
)
def appendix_dim(params: dict, *, seeds: int, device: str, cache_dir: Path,
                 executor: str | None = None) -> pd.DataFrame:
    """App. B.1 (Figs. 5-7): Experiments 1, 2 and 5 with N = 200 and d = 40, 50, 60.

    One table, column ``figure`` naming the figure of each row (``Fig. 7`` rows carry
    ``H_equiv`` and ``width`` as in ``dana.exp5``). The models are those of
    ``dana.exp1``/``exp2`` (Figs. 5, 6) and ``dana.exp5`` (Fig. 7). ``full`` trains all three
    figures with the official notebook's App. B.1 recipe, the one App. B states for every model
    (``_DIM_TRAIN``: 4,096 steps of 1,024 on 2^16 contexts; Fig. 7's MLP to a final rate of
    1e-4, ``_DIM_EXP5``); ``quick`` is a reduced scale with the paper's ratio d/N = 0.2 of
    d = 40: N = 100, d = 20 (Fig. 6 at d = 25, as the paper's d = 50), three points per figure,
    600 steps.
    """
    return _sweep(_appendix_points(params, seeds, layers=1), device=device, cache_dir=cache_dir,
                  executor=executor, desc="dana.appendix_dim")


@experiment(
    "dana.appendix_depth", title="Experiments 1, 2 and 5 with 3 layers (App. B.2)",
    paper_figure="Dana et al. Figs. 8, 9 and 10 (App. B.2)",
    profiles={
        "ci": _appendix_profile(N=12, d=[4], H=[1, 3], exp2_d=4, exp2_H=3, exp2_d_h=[1, 2, 4],
                                exp5_d=[4], figures=_DEPTH_FIGS, train=_TRAIN_CI,
                                exp5=_EXP5_CI, layers=2),
        "quick": _appendix_profile(N=40, d=[7], H=[1, 5, 9], exp2_d=7, exp2_H=9,
                                   exp2_d_h=[1, 4, 7], exp5_d=[7], figures=_DEPTH_FIGS,
                                   train=_APPENDIX_QUICK_DEPTH, exp5=_APPENDIX_QUICK_DEPTH,
                                   seeds=1, layers=_DEPTH_LAYERS),
        "full": _appendix_profile(N=70, d=[7, 10, 13], H=_DEPTH_H, exp2_d=10, exp2_H=21,
                                  exp2_d_h=list(range(1, 11)), exp5_d=[7, 10, 13],
                                  figures=_DEPTH_FIGS, train=_DEPTH_TRAIN, exp5=_DEPTH_EXP5,
                                  layers=_DEPTH_LAYERS),
    },
)
def appendix_depth(params: dict, *, seeds: int, device: str, cache_dir: Path,
                   executor: str | None = None) -> pd.DataFrame:
    """App. B.2 (Figs. 8-10): Experiments 1, 2 and 5 with ``layers`` residual attention layers
    at N = 70: 3 in ``quick`` and ``full`` (``_DEPTH_LAYERS``, the official notebook's, which
    wrote the paper's B.2 CSVs; the text says 5, see :data:`APPENDIX_LAYERS`, the default of a
    profile naming none).

    Same table layout as :func:`appendix_dim`; each layer of the Fig. 10 MLP model has its own
    MLP block (as the code's). ``ci`` uses 2 layers to stay fast; ``quick`` is a reduced scale
    with the 3 layers: N = 40, d = 7, H = 1, 5, 9 (Fig. 9 at H = 9), 500 steps of 128;
    ``full`` trains with the notebook's recipe (``_DEPTH_TRAIN``).
    """
    layers = int(params.get("layers", APPENDIX_LAYERS))
    return _sweep(_appendix_points(params, seeds, layers=layers), device=device,
                  cache_dir=cache_dir, executor=executor, desc="dana.appendix_depth")


def full_read_in_place(name: str, profile: str, root: Path | None = None) -> Any:
    """The committed full run of ``name`` that :func:`chapter_results` reads instead of a run of
    ``profile`` (a :class:`memnb.results.ExperimentResult`): under ``quick``, the full run when
    one exists and is complete; ``None`` otherwise. The one rule, which the chapter's note on
    its runs states too."""
    from memnb.results import load

    if profile != "quick":
        return None
    full = load(name, "full", root)
    return full if full is not None and full.complete else None


def chapter_results(name: str, profile: str, *, device: str = "cpu",
                    seeds: int | None = None, root: Path | None = None) -> Any:
    """The chapter's tables of experiment ``name``: under ``quick``, the committed full run
    when one exists and is complete (:func:`full_read_in_place`; read, not rerun: the chapter
    only needs it, and rerunning it at reduced size would cost minutes for a worse table);
    otherwise (no full run, a partial one, or another profile)
    :func:`memnb.results.fresh_and_cached`, which draws a partial full run beside this profile's
    fresh run.

    Returns a :class:`memnb.results.FreshAndCached` whose ``fresh`` is the table the chapter
    draws; ``note`` says which run it is (from the provenance) and which accuracy it holds, and
    ``cached`` is None when the full run is the drawn table itself; a full run that replaced a
    table of earlier code is compared with it on the paper's accuracy
    (:func:`memnb.reruns.replacement_difference`). Tables are passed through
    :func:`as_the_paper_reports`, so they are compared with the paper on the paper's accuracy
    wherever a run recorded it.
    """
    from memnb.dana_reading import reported_accuracy
    from memnb.provenance import run_label
    from memnb.reruns import compared_column, replacement_difference, rerun_clause
    from memnb.results import FreshAndCached, earlier_code_note, fresh_and_cached
    from memnb.scorecard.core import computing_commits

    full = full_read_in_place(name, profile, root)
    if full is not None:
        prov = full.provenance
        replaced = replacement_difference(  # on the accuracy the paper reports
            name, "full", root, column=compared_column(full.table) or "accuracy")
        # every commit whose invocations computed points, not a later call that read them
        note = (f"{name}: the committed full run ({run_label(full.table, prov)}, "
                f"{computing_commits(prov)}, "
                f"{float(prov.get('total_wall_time_s', prov.get('wall_time_s', 0))) / 60:.0f}"
                f" min{earlier_code_note(name, prov)}), read instead of a `quick` rerun"
                f"{'' if replaced is None else '; ' + replaced}"
                f"{rerun_clause(name, 'full', root)}")
        table = as_the_paper_reports(full.table)
        return FreshAndCached(name, table, None, dict(prov.get("params", {})),
                              f"{note}; {reported_accuracy(table)}")
    run = fresh_and_cached(name, profile, device=device, seeds=seeds, root=root)
    fresh = as_the_paper_reports(run.fresh)
    note = f"{run.note}; {reported_accuracy(fresh)}"
    if run.cached is not None:
        cached = as_the_paper_reports(run.cached)
        if reported_accuracy(cached) != reported_accuracy(fresh):
            note += f" (full-scale run: {reported_accuracy(cached)})"
        run.cached = cached
    run.fresh, run.note = fresh, note
    return run


def reused_full(result: Any) -> bool:
    """Whether a :func:`chapter_results` value is a committed full run read in place."""
    return "read instead of" in result.note


def get_params(name: str, profile: str) -> dict[str, Any]:
    """The parameters of experiment ``name`` under ``profile`` (from the registry)."""
    from memnb.experiments.registry import get

    return get(name).params(profile)
