"""Experiments of Kajitsuka & Sato, *On the Optimal Memorization Capacity of Transformers*,
ICLR 2025.

* ``kajitsuka.construction`` -- sizes of the Thm 4.1 / Cor. 4.1 construction against N and n
  (:mod:`memnb.constructions.seq_id`; no training).
* ``kajitsuka.mnli_curves`` / ``kajitsuka.imdb_curves`` -- training loss and accuracy per #blocks
  (Figs. 1, 2 on MultiNLI and 4, 5 on IMDb).
* ``kajitsuka.random_curves`` -- the same on random sequences (the ICLR version's extra dataset).
* ``kajitsuka.capacity`` -- memorization capacity, the smallest #blocks reaching 100 % training
  accuracy, for N = 600 ... 1700 on MultiNLI (Fig. 7).
* ``kajitsuka.seq_len`` -- the capacity against the sequence length n at fixed N on random
  sequences (the ICLR version's sweep over n; its values of n were not found).

Training recipe [source]: "full-batch gradient descent for 1000 epochs", AdamW, "the
best-performing model was selected after running ten trials of hyperparameter tuning with Optuna".
**[reconstruction]** (not found in the paper): the model's widths (``d = 32``, ``d_ff = 64``, two
heads, :mod:`memnb.models.ffn_attention`), the fixed pretrained word embeddings of
all-MiniLM-L6-v2 as input tokens (random Gaussian vectors for random sequences), a constant
learning rate, and the search space (log-uniform learning rate in [1e-4, 1e-1], weight decay
uniform in [0, 1e-2]). One Optuna study (TPE, seeded, in-memory) runs per group of compatible
points; each trial trains the whole stack of #blocks values (and seeds) at once with one
(learning rate, weight decay), the study minimises the stack's mean log training loss, and every
member keeps its own best trial (highest training accuracy, then lowest loss). The first trial
is the default point (learning rate 3e-3, no weight decay).

The paper's figures have no published numbers (chapter notes §3): only the expected trend
(#blocks growing roughly like √N) can be compared.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import Any

import numpy as np
import optuna
import pandas as pd
import torch

from memnb.constructions.seq_id.scaling import construction_sizes
from memnb.data.random_sequences import random_sequences, token_vectors
from memnb.data.text import load_imdb, load_mnli, load_token_embeddings
from memnb.experiments.registry import experiment
from memnb.models.ffn_attention import FFNAttentionTransformer
from memnb.sweep import Point, Rows, run_sweep, training_sweep
from memnb.train import TrainConfig, train_members

MODEL = {"d": 16, "d_ff": 32, "num_heads": 2, "input_dim": 16}
SEARCH = {"lr": (1e-4, 1e-1), "weight_decay": (0.0, 1e-2)}
DEFAULT_TRIAL = {"lr": 3e-3, "weight_decay": 0.0}
#: Below this much work per step (members x blocks x N x n x d_ff) a CPU stack trains on one
#: thread: for such small matrices several threads only add synchronisation, and on a busy
#: two-core machine they can slow training down by orders of magnitude.
SMALL_WORK = 2e8

#: Fig. 7's grid of dataset sizes [source: caption] and Fig. 2's #blocks (ICLR version) [source].
FIG7_N = list(range(600, 1701, 100))
FIG2_BLOCKS = [1, 10, 20, 30, 40]

_GROUP_FIELDS = ("dataset", "N", "n", "vocab", "classes", "epochs", "trials", "eval_every",
                 "early_stop", "data_seed", "max_blocks", "record", "d", "d_ff", "num_heads",
                 "input_dim")


def _group_key(point: Point) -> tuple:
    return tuple(point.get(k) for k in _GROUP_FIELDS)


# ------------------------------------------------------------------------------------- data
def _projection(dim_in: int, dim_out: int) -> np.ndarray:
    """A fixed Gaussian projection ``R^dim_in -> R^dim_out`` (seed 0; identity if equal)."""
    if dim_out == dim_in:
        return np.eye(dim_in, dtype=np.float32)
    rng = np.random.default_rng(0)
    return (rng.standard_normal((dim_in, dim_out)) / np.sqrt(dim_out)).astype(np.float32)


@functools.lru_cache(maxsize=4)
def _text_dataset(name: str, n: int) -> Any:
    return (load_mnli if name == "mnli" else load_imdb)(n)


def training_data(point: Point) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Token vectors ``[N, n, dim]``, labels ``[N]`` and ``C`` for a point's dataset."""
    name, N, n = point["dataset"], point["N"], point["n"]
    if name in ("mnli", "imdb"):
        ds = _text_dataset(name, n)
        if N > len(ds):
            raise ValueError(f"N must be <= {len(ds)} for {ds.name} with n = {n}; got {N}")
        ds = ds.subset(N, seed=point["data_seed"])
        x = load_token_embeddings(ds.tokens) @ _projection(384, point["input_dim"])
        return torch.from_numpy(x), torch.from_numpy(ds.labels), ds.num_classes
    if name == "random":
        data = random_sequences(N, n, point["vocab"], point["classes"], seed=point["data_seed"])
        table = token_vectors(point["vocab"], point["input_dim"], seed=point["data_seed"])
        x = table[data.tokens].astype(np.float32)
        return torch.from_numpy(x), torch.from_numpy(data.labels), point["classes"]
    raise ValueError(f"dataset must be 'mnli', 'imdb' or 'random'; got {name!r}")


# --------------------------------------------------------------------------------- training
def train_group(points: list[Point], *, device: str = "cpu", progress: bool = True) -> list[Rows]:
    """Train a packed stack (one member per point: #blocks and seed) with an Optuna search.

    Returns per point either the best trial's training curve (``record="curve"``: rows with
    epoch, loss, accuracy) or one summary row (``record="final"``).
    """
    first = points[0]
    if any(_group_key(p) != _group_key(first) for p in points):
        raise ValueError("train_group needs points that share " + ", ".join(_GROUP_FIELDS))
    x, y, num_classes = training_data(first)
    members = [FFNAttentionTransformer(x.shape[-1], num_classes, first["n"], first["max_blocks"],
                                       active_blocks=p["blocks"], seed=p["seed"], d=first["d"],
                                       d_ff=first["d_ff"], num_heads=first["num_heads"])
               for p in points]
    work = len(points) * max(1, first["max_blocks"]) * first["N"] * first["n"] * first["d_ff"]
    threads = torch.get_num_threads()
    if device == "cpu" and work < SMALL_WORK:
        torch.set_num_threads(1)
    try:
        return _optuna_stack(points, members, x, y, device=device, progress=progress)
    finally:
        torch.set_num_threads(threads)


def _optuna_stack(points: list[Point], members: list[FFNAttentionTransformer], x: torch.Tensor,
                  y: torch.Tensor, *, device: str, progress: bool) -> list[Rows]:
    first = points[0]
    sampler = optuna.samplers.TPESampler(seed=first["data_seed"])
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    study.enqueue_trial(DEFAULT_TRIAL)
    best: list[dict[str, Any] | None] = [None] * len(points)
    for t in range(first["trials"]):
        trial = study.ask()
        lr = trial.suggest_float("lr", *SEARCH["lr"], log=True)
        wd = trial.suggest_float("weight_decay", *SEARCH["weight_decay"])
        config = TrainConfig(steps=first["epochs"], lr=lr, optimizer="adamw", weight_decay=wd,
                             schedule="constant", eval_every=first["eval_every"],
                             early_stop=first["early_stop"], seed=first["data_seed"],
                             device=device)
        desc = f"{first['dataset']} N={first['N']} n={first['n']} trial {t + 1}/{first['trials']}"
        result = train_members(members, x, y, config, progress=progress, desc=desc)
        study.tell(trial, float(torch.log10(result.best_loss.clamp_min(1e-12)).mean()))
        for k in range(len(points)):
            score = (float(result.accuracy[k]), -float(result.best_loss[k]))
            if best[k] is None or score > best[k]["score"]:
                hist = result.history[result.history["member"] == k]
                best[k] = {"score": score, "trial": t, "lr": lr, "weight_decay": wd,
                           "loss": float(result.best_loss[k]),
                           "accuracy": float(result.accuracy[k]),
                           "epochs_run": int(result.steps_run[k]), "history": hist,
                           "params": members[k].num_parameters()}
    out: list[Rows] = []
    for k in range(len(points)):
        b = best[k]
        assert b is not None
        common = {"trial": b["trial"], "lr": b["lr"], "weight_decay": b["weight_decay"],
                  "params": b["params"]}
        if first["record"] == "curve":
            out.append([{"epoch": int(r.step), "loss": float(r.loss),
                         "accuracy": float(r.accuracy), **common}
                        for r in b["history"].itertuples()])
        else:
            out.append([{"loss": b["loss"], "accuracy": b["accuracy"],
                         "memorized": b["accuracy"] >= 1.0, "epochs_run": b["epochs_run"],
                         **common}])
    return out


def _points(params: dict[str, Any], seeds: int, *, dataset: str, record: str,
            early_stop: bool, N: list[int], n: list[int]) -> list[Point]:
    blocks = list(params["blocks"])
    seeds = min(seeds, params.get("max_seeds", seeds))
    base = {"dataset": dataset, "vocab": params.get("vocab"), "classes": params.get("classes"),
            "epochs": params["epochs"], "trials": params["trials"],
            "eval_every": params["eval_every"], "early_stop": early_stop,
            "data_seed": params.get("data_seed", 0), "max_blocks": max(blocks), "record": record,
            **{k: params.get(k, v) for k, v in MODEL.items()}}
    return [{**base, "N": nn, "n": ln, "blocks": b, "seed": s}
            for nn in N for ln in n for b in blocks for s in range(seeds)]


_sweep = functools.partial(training_sweep, train_group, _group_key)


def capacity_table(table: pd.DataFrame, by: str = "N") -> pd.DataFrame:
    """Smallest #blocks with 100 % training accuracy per (``by``, seed); NaN if none did."""
    rows = []
    for (value, seed), part in table.groupby([by, "seed"]):
        hit = part[part["accuracy"] >= 1.0]
        rows.append({by: value, "seed": seed,
                     "min_blocks": float(hit["blocks"].min()) if len(hit) else math.nan,
                     "max_blocks_tried": int(part["blocks"].max())})
    return pd.DataFrame(rows)


def sqrt_fit(N: np.ndarray, blocks: np.ndarray) -> dict[str, float]:
    """Least squares ``blocks = c sqrt(N)`` and a free power law ``blocks = a N^e`` (e, a)."""
    N, blocks = np.asarray(N, float), np.asarray(blocks, float)
    ok = np.isfinite(blocks) & (blocks > 0)
    if ok.sum() < 2:
        return {"c": math.nan, "exponent": math.nan, "a": math.nan}
    root = np.sqrt(N[ok])
    c = float(root @ blocks[ok] / (root @ root))
    e, loga = np.polyfit(np.log(N[ok]), np.log(blocks[ok]), 1)
    return {"c": c, "exponent": float(e), "a": float(np.exp(loga))}


# ------------------------------------------------------------------------------ experiments
_CURVE_PROFILES = {
    "ci": {"N": 48, "blocks": [1, 2], "epochs": 30, "trials": 1, "eval_every": 5},
    "quick": {"N": 300, "blocks": [0, 1, 4], "epochs": 200, "trials": 1, "eval_every": 10,
              "max_seeds": 1},
    "full": {"N": 3000, "blocks": FIG2_BLOCKS, "epochs": 1000, "trials": 10, "eval_every": 10},
}


def _curves(dataset: str, params: dict, seeds: int, device: str, cache_dir: Path,
            executor: str | None) -> pd.DataFrame:
    points = _points(params, seeds, dataset=dataset, record="curve", early_stop=False,
                     N=[params["N"]], n=[params.get("n", 8)])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc=f"kajitsuka.{dataset}_curves")


@experiment("kajitsuka.mnli_curves", title="Training loss and accuracy per #blocks, MultiNLI",
            paper_figure="Kajitsuka & Sato Figs. 1 and 2", profiles=_CURVE_PROFILES)
def mnli_curves(params: dict, *, seeds: int, device: str, cache_dir: Path,
                executor: str | None = None) -> pd.DataFrame:
    """Loss and accuracy against epochs for each #blocks on MultiNLI (n = 8)."""
    return _curves("mnli", params, seeds, device, cache_dir, executor)


@experiment("kajitsuka.imdb_curves", title="Training loss and accuracy per #blocks, IMDb",
            paper_figure="Kajitsuka & Sato Figs. 4 and 5", profiles=_CURVE_PROFILES)
def imdb_curves(params: dict, *, seeds: int, device: str, cache_dir: Path,
                executor: str | None = None) -> pd.DataFrame:
    """Loss and accuracy against epochs for each #blocks on IMDb (n = 8)."""
    return _curves("imdb", params, seeds, device, cache_dir, executor)


@experiment("kajitsuka.random_curves", title="Training loss and accuracy per #blocks, random data",
            paper_figure="Kajitsuka & Sato (ICLR version), random dataset",
            profiles={k: {**v, "vocab": 1000, "classes": 2} for k, v in _CURVE_PROFILES.items()})
def random_curves(params: dict, *, seeds: int, device: str, cache_dir: Path,
                  executor: str | None = None) -> pd.DataFrame:
    """Loss and accuracy against epochs for each #blocks on random sequences (n = 8)."""
    return _curves("random", params, seeds, device, cache_dir, executor)


@experiment(
    "kajitsuka.capacity", title="Memorization capacity: smallest #blocks reaching 100 % (MultiNLI)",
    paper_figure="Kajitsuka & Sato Fig. 7",
    profiles={
        "ci": {"N": [40, 80], "blocks": [0, 1, 2], "epochs": 40, "trials": 1, "eval_every": 10},
        "quick": {"N": [200, 400, 600, 800], "blocks": [0, 1, 2, 4], "epochs": 300,
                  "trials": 1, "eval_every": 10, "max_seeds": 1},
        "full": {"N": FIG7_N, "blocks": list(range(0, 21)) + [24, 28, 32, 36, 40],
                 "epochs": 1000, "trials": 10, "eval_every": 10},
    },
)
def capacity(params: dict, *, seeds: int, device: str, cache_dir: Path,
             executor: str | None = None) -> pd.DataFrame:
    """Final training accuracy per (N, #blocks); :func:`capacity_table` gives Fig. 7's curve."""
    points = _points(params, seeds, dataset="mnli", record="final", early_stop=True,
                     N=params["N"], n=[params.get("n", 8)])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc="kajitsuka.capacity")


@experiment(
    "kajitsuka.seq_len", title="Memorization capacity against the sequence length n (random data)",
    paper_figure="Kajitsuka & Sato (ICLR version), sweep over n",
    profiles={
        "ci": {"N": 40, "n": [2, 8], "blocks": [0, 1, 2], "epochs": 40, "trials": 1,
               "eval_every": 10, "vocab": 1000, "classes": 2},
        "quick": {"N": 600, "n": [2, 4, 8, 16], "blocks": [0, 1, 2, 4], "epochs": 200,
                  "trials": 1, "eval_every": 10, "vocab": 1000, "classes": 2, "max_seeds": 1},
        "full": {"N": 1000, "n": [2, 4, 8, 16, 32, 64], "blocks": list(range(0, 21)),
                 "epochs": 1000, "trials": 10, "eval_every": 10, "vocab": 1000, "classes": 2},
    },
)
def seq_len(params: dict, *, seeds: int, device: str, cache_dir: Path,
            executor: str | None = None) -> pd.DataFrame:
    """Final training accuracy per (n, #blocks) at fixed N; capacity via :func:`capacity_table`."""
    points = _points(params, seeds, dataset="random", record="final", early_stop=True,
                     N=[params["N"]], n=params["n"])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc="kajitsuka.seq_len")


# ------------------------------------------------------------------------- the construction
def construction_group(points: list[Point]) -> list[Rows]:
    """Build the construction for each point (random integer data); one row of sizes each."""
    return [[construction_sizes(p["N"], p["n"], num_classes=p["C"], vocab_size=p["V"],
                                task=p["task"], seed=p["seed"], verify=p["verify"])]
            for p in points]


@experiment(
    "kajitsuka.construction", title="Size of the Thm 4.1 construction against N and n",
    paper_figure="Kajitsuka & Sato Thm 4.1, Cor. 4.1, Remark 4.4 (computed)",
    profiles={
        "ci": {"N": [100, 200, 400], "n": [8], "n_sweep": [2, 8, 16], "N_fixed": 200,
               "verify_max_N": 200},
        "quick": {"N": [100, 200, 500, 1000, 2000, 5000, 10000], "n": [8],
                  "n_sweep": [2, 4, 8, 16, 32, 64], "N_fixed": 500, "verify_max_N": 500},
        "full": {"N": [100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000], "n": [8],
                 "n_sweep": [2, 4, 8, 16, 32, 64, 128, 256], "N_fixed": 1000,
                 "verify_max_N": 10000},
    },
)
def construction(params: dict, *, seeds: int, device: str, cache_dir: Path,
                 executor: str | None = None) -> pd.DataFrame:
    """Sizes for next-token and seq2seq: an N sweep at n = params["n"], an n sweep at N_fixed.

    Column ``sweep`` says which; ``verify`` rows also evaluate the network exactly on every
    example (``memorized``). ``device`` is unused (pure Python integer arithmetic), and so is
    ``seeds``: one random dataset per point (sizes differ by a few parameters between datasets).
    """
    del device
    seeds = 1
    base = {"C": 2, "V": 1000}
    points: list[Point] = []
    for task in ("next_token", "seq2seq"):
        for s in range(seeds):
            for N in params["N"]:
                for n in params["n"]:
                    points.append({**base, "sweep": "N", "task": task, "N": N, "n": n,
                                   "seed": s, "verify": task == "next_token"
                                   and N <= params["verify_max_N"]})
            for n in params["n_sweep"]:
                points.append({**base, "sweep": "n", "task": task, "N": params["N_fixed"],
                               "n": n, "seed": s, "verify": False})
    return run_sweep(points, construction_group, cache_dir=cache_dir, executor=executor,
                     desc="kajitsuka.construction")


# ----------------------------------------------------------------------- figures of the chapter
BOUNDS_TABLE = pd.DataFrame([
    {"paper": "Kim, Kim & Mozafari (ICLR 2023)", "setting": "seq-to-seq, softmax",
     "parameters": "Õ(d + n + √(nN))", "kind": "sufficient"},
    {"paper": "Mahdavi, Liao & Thrampoulidis (ICLR 2024)", "setting":
     "one H-head attention layer, next-token", "parameters": "Θ(H d²) for N = H(n−1)+1, i.e. "
     "Θ(d² N / n)", "kind": "sufficient"},
    {"paper": "Dana, Pydi & Chevaleyre (AISTATS 2025)", "setting": "attention-only, next-token",
     "parameters": "d(n + 2V + 4N) for N = H d_h + d associations, i.e. Θ(d N)",
     "kind": "sufficient"},
    {"paper": "Kajitsuka & Sato (ICLR 2025), Thm 4.1", "setting": "next-token, hardmax/softmax",
     "parameters": "Õ(√N) (width 14, depth Õ(√N))", "kind": "sufficient"},
    {"paper": "Kajitsuka & Sato (ICLR 2025), Thm 4.2", "setting": "next-token",
     "parameters": "Ω(√N)", "kind": "necessary"},
    {"paper": "Kajitsuka & Sato (ICLR 2025), Cor. 4.1", "setting": "seq-to-seq",
     "parameters": "Õ(√(nN)); Ω(√(nN)) for hardmax", "kind": "both"},
])
"""Table 1 of Kajitsuka & Sato in one set of symbols (N sequences of length n, tokens in R^d,
vocabulary V); chapter notes §1 and the Mahdavi / Dana notes. Õ, Ω hide logs and constants."""


def bound_curves(N: np.ndarray, n: int, *, C: int = 2, V: int = 1000, d: int = 16
                 ) -> dict[str, np.ndarray]:
    """Parameter counts against N: our construction's model (next-token, seq2seq) and the
    bounds of :mod:`memnb.bounds` (shapes only: constants and logs dropped)."""
    from memnb import bounds

    N = np.asarray(N, dtype=int)
    return {
        "construction, next-token (model)": np.array(
            [bounds.kajitsuka_construction_parameter_model(int(x), n, C, V) for x in N]),
        "construction, seq2seq (model)": np.array(
            [bounds.kajitsuka_construction_parameter_model(int(x), n, C, V, task="seq2seq")
             for x in N]),
        "Kim et al. d+n+√(nN)": np.array([bounds.kim_parameter_count(int(x), n, d) for x in N]),
        "Park et al. N^(2/3)": np.array([bounds.park_parameter_count(int(x)) for x in N]),
        "naive N": np.array([bounds.naive_parameter_count(int(x)) for x in N]),
        "lower bound √N (Thm 4.2)": np.array([bounds.kajitsuka_lower_bound(int(x)) for x in N]),
    }


def bounds_figure(N_now: int, n: int, *, N_max: int = 100_000) -> Any:
    """One slider frame: the curves of :func:`bound_curves` up to ``N_max``, a marker at
    ``N_now`` and the values there (log-log axes)."""
    import matplotlib.pyplot as plt

    from memnb import viz

    grid = np.unique(np.logspace(1, np.log10(N_max), 40).astype(int))
    curves = bound_curves(grid, n)
    now = bound_curves(np.array([N_now]), n)
    fig, ax = plt.subplots(figsize=(7.2, 3.8))
    for i, (label, ys) in enumerate(curves.items()):
        color = viz.GROUP_CYCLE[i % len(viz.GROUP_CYCLE)]
        style = "-" if "construction" in label else "--"
        ax.plot(grid, ys, style, color=color, label=f"{label}: {now[label][0]:,.0f}")
        ax.plot([N_now], now[label], "o", color=color)
    ax.set(xscale="log", yscale="log", xlabel="N (number of sequences)",
           ylabel="parameters (shape; constants dropped)", title=f"n = {n}, N = {N_now:,}")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def plot_curves(table: pd.DataFrame, axes: Any, *, role: str = "ours") -> None:
    """Training loss (log scale) and accuracy against epochs, one curve per #blocks."""
    from memnb import viz

    viz.plot_ours(axes[0], table, "epoch", "loss", by="blocks", role=role)
    viz.plot_ours(axes[1], table, "epoch", "accuracy", by="blocks", role=role)
    axes[0].set(yscale="log", xlabel="epoch (full-batch step)", ylabel="training loss")
    axes[1].set(xlabel="epoch (full-batch step)", ylabel="training accuracy", ylim=(0, 1.02))
    axes[1].legend(title="#blocks", fontsize=7)


def plot_capacity(table: pd.DataFrame, ax: Any, *, by: str = "N", role: str = "ours"
                  ) -> dict[str, float]:
    """Smallest #blocks reaching 100 % against ``by``, with the ``c sqrt(N)`` fit; returns it."""
    from memnb import viz

    cap = capacity_table(table, by=by)
    column = "sequence length n" if by == "n" else by  # viz.summarize uses a column "n"
    reached = cap.dropna().rename(columns={by: column})
    if len(reached):
        viz.plot_ours(ax, reached, column, "min_blocks", role=role)
    mean = cap.groupby(by)["min_blocks"].mean()
    fit = sqrt_fit(mean.index.to_numpy(), mean.to_numpy())
    if by == "N" and np.isfinite(fit["c"]):
        grid = np.linspace(mean.index.min(), mean.index.max(), 50)
        viz.plot_bound(ax, (grid, fit["c"] * np.sqrt(grid)),
                       label=f"fit {fit['c']:.3f} √N")
    ax.set(xlabel=by if by != "N" else "N (training sequences)",
           ylabel="smallest #blocks with 100 % train acc.")
    return fit
