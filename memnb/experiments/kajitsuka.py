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

Training recipe [source]: "full-batch gradient descent for 1000 epochs", "the best-performing
model was selected after running ten trials of hyperparameter tuning with Optuna"; AdamW [third
party: a page of the ICLR version (notes §3, acmrep), not the paper's words].
**[reconstruction]** (not found in the paper): the model's widths (by default ``d = 16``, ``d_ff =
32``, two heads, :mod:`memnb.models.ffn_attention`; Fig. 7 also runs ``d = 8``), the fixed
pretrained word embeddings of all-MiniLM-L6-v2 as input tokens (random Gaussian vectors for random
sequences), a constant learning rate, and the search space (log-uniform learning rate in [1e-4,
1e-1], weight decay uniform in [0, 1e-2]). One Optuna study (TPE, seeded, in-memory) runs per model
size, as in the paper ("best of ten trials" for each #blocks): points are grouped by their depth
(never padded to the deepest member of the grid), each trial gives the group's seeds one (learning
rate, weight decay), the study minimises the seeds' mean log training loss, and every point keeps
its own best trial (highest training accuracy, then lowest loss, then the earlier trial). The first
trial is the default point (learning rate 3e-3, no weight decay). TPE draws its first ten trials at
random (Optuna's ``n_startup_trials``), so the paper's ten trials never use the study's history: we
draw them first and train every trial of every seed as one stack (:data:`STARTUP_TRIALS`), which
gives the same trials as a loop of ask, train, tell. A capacity search reports the accuracy of
every depth it tried (:func:`depth_table`), so a deeper model that memorizes less than a shallower
one is shown, not hidden.

The paper's figures have no published numbers (chapter notes §3): only a trend can be
compared, the one we expect (ours, [unverified]: #blocks growing roughly like √N).
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
from memnb.papers import kajitsuka as published
from memnb.sweep import Point, Rows, run_sweep, training_sweep
from memnb.train import TrainConfig, train_members

MODEL = {"d": 16, "d_ff": 32, "num_heads": 2, "input_dim": 16}
SEARCH = {"lr": (1e-4, 1e-1), "weight_decay": (0.0, 1e-2)}
DEFAULT_TRIAL = {"lr": 3e-3, "weight_decay": 0.0}
STARTUP_TRIALS = 10
"""Trials Optuna's TPE sampler draws at random before it models the history (its default,
``n_startup_trials=10``, stated here). A study of at most this many trials never uses its
history, so its trials are drawn first and trained as one stack; more trials are refused."""
#: Below this much work per step (members x blocks x N x n x d_ff) a CPU stack trains on one
#: thread: for such small matrices several threads only add synchronisation, and on a busy
#: two-core machine they can slow training down by orders of magnitude.
SMALL_WORK = 2e8

#: Fig. 7's grid of dataset sizes [source: caption] and Fig. 2's #blocks (ICLR version) [source].
FIG7_N = list(published.FIG7_N.value)
FIG2_BLOCKS = list(published.FIG2_BLOCKS.value)

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
    work = (len(points) * first["trials"] * max(1, first["max_blocks"]) * first["N"] * first["n"]
            * first["d_ff"])
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
    if not 1 <= first["trials"] <= STARTUP_TRIALS:
        raise ValueError(f"trials must be between 1 and {STARTUP_TRIALS} (the trials TPE draws at "
                         f"random, trained as one stack); got {first['trials']}")
    sampler = optuna.samplers.TPESampler(seed=first["data_seed"],
                                         n_startup_trials=STARTUP_TRIALS)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=sampler)
    study.enqueue_trial(DEFAULT_TRIAL)
    asked, hyper = [], []
    for _ in range(first["trials"]):  # ask, suggest: the sampler's draws in the order of a loop
        trial = study.ask()
        asked.append(trial)
        hyper.append((trial.suggest_float("lr", *SEARCH["lr"], log=True),
                      trial.suggest_float("weight_decay", *SEARCH["weight_decay"])))
    # lr here only passes the config's check: member_lr and member_weight_decay replace it
    config = TrainConfig(steps=first["epochs"], lr=DEFAULT_TRIAL["lr"], optimizer="adamw",
                         schedule="constant", eval_every=first["eval_every"],
                         early_stop=first["early_stop"], seed=first["data_seed"], device=device)
    size = len(points)
    # member t * size + k: trial t of point k
    result = train_members([m for _ in hyper for m in members], x, y, config,
                           member_lr=[lr for lr, _ in hyper for _ in points],
                           member_weight_decay=[wd for _, wd in hyper for _ in points],
                           progress=progress,
                           desc=f"{first['dataset']} N={first['N']} n={first['n']}, "
                                f"{len(hyper)} trial(s) x {size} model(s)")
    log_loss = torch.log10(result.best_loss.clamp_min(1e-12)).view(len(hyper), size)
    for trial, value in zip(asked, log_loss.mean(dim=1).tolist(), strict=True):
        study.tell(trial, float(value))
    out: list[Rows] = []
    for k in range(size):  # each point keeps its best trial: accuracy first, then loss
        t = max(range(len(hyper)), key=lambda t: (float(result.accuracy[t * size + k]),
                                                  -float(result.best_loss[t * size + k]), -t))
        j = t * size + k
        common = {"trial": t, "lr": hyper[t][0], "weight_decay": hyper[t][1],
                  "params": members[k].num_parameters()}
        if first["record"] == "curve":
            hist = result.history[result.history["member"] == j]
            out.append([{"epoch": int(r.step), "loss": float(r.loss),
                         "accuracy": float(r.accuracy), **common}
                        for r in hist.itertuples()])
        else:
            accuracy = float(result.accuracy[j])
            out.append([{"loss": float(result.best_loss[j]), "accuracy": accuracy,
                         "memorized": accuracy >= 1.0, "epochs_run": int(result.steps_run[j]),
                         **common}])
    return out


def _points(params: dict[str, Any], seeds: int, *, dataset: str, record: str,
            early_stop: bool, N: list[int], n: list[int]) -> list[Point]:
    blocks = list(params["blocks"])
    seeds = min(seeds, params.get("max_seeds", seeds))
    base = {"dataset": dataset, "vocab": params.get("vocab"), "classes": params.get("classes"),
            "epochs": params["epochs"], "trials": params["trials"],
            "eval_every": params["eval_every"], "early_stop": early_stop,
            "data_seed": params.get("data_seed", 0), "record": record,
            **{k: params.get(k, v) for k, v in MODEL.items()}}
    # one group (and one Optuna study) per depth: "max_blocks" is the member's own depth
    return [{**base, "N": nn, "n": ln, "blocks": b, "max_blocks": b, "seed": s}
            for nn in N for ln in n for b in blocks for s in range(seeds)]


_sweep = functools.partial(training_sweep, train_group, _group_key)


def widths(table: pd.DataFrame) -> list[int]:
    """The model widths ``d`` of a capacity table, in increasing order ([16] if it has none)."""
    return sorted(int(v) for v in table["d"].unique()) if "d" in table else [MODEL["d"]]


def capacity_table(table: pd.DataFrame, by: str = "N") -> pd.DataFrame:
    """Smallest #blocks with 100 % training accuracy per (``by``, seed) and model width ``d``
    (when the table has it); NaN if no tried depth did."""
    rows = []
    keys = [by, "d", "seed"] if "d" in table else [by, "seed"]
    for key, part in table.groupby(keys):
        hit = part[part["accuracy"] >= 1.0]
        rows.append({**dict(zip(keys, key, strict=True)),
                     "min_blocks": float(hit["blocks"].min()) if len(hit) else math.nan,
                     "max_blocks_tried": int(part["blocks"].max())})
    return pd.DataFrame(rows)


def depth_table(table: pd.DataFrame, by: str = "N") -> pd.DataFrame:
    """The capacity search per depth: mean training accuracy per (``by``, #blocks), each seed's
    the accuracy of its kept trial at that trial's lowest-loss checkpoint (``TrainResult.accuracy``
    in :func:`_optuna_stack`), not at its last epoch.

    Columns ``by``, ``d`` (if the table has widths), ``blocks``, ``accuracy`` (mean over
    seeds), ``memorized`` (every seed at 100 %), ``seeds`` and ``below_shallower``: True where
    this depth memorized less than a shallower depth at the same ``by`` and width (a
    non-monotone search: more blocks did worse).
    """
    keys = [by, "d"] if "d" in table else [by]
    grouped = (table.groupby([*keys, "blocks"])["accuracy"]
               .agg(accuracy="mean", worst="min", seeds="count").reset_index())
    grouped["memorized"] = grouped["worst"] >= 1.0
    best_before = grouped.groupby(keys)["accuracy"].transform(lambda a: a.cummax().shift(1))
    grouped["below_shallower"] = (grouped["accuracy"] < best_before).fillna(False).astype(bool)
    return grouped.drop(columns="worst")


def non_monotone(table: pd.DataFrame, by: str = "N") -> pd.DataFrame:
    """Rows of :func:`depth_table` where a deeper model reached a lower accuracy than a shallower
    one at the same ``by`` (empty when the search is monotone)."""
    depth = depth_table(table, by)
    return depth[depth["below_shallower"]].reset_index(drop=True)


# ------------------------------------------------------------------------------ experiments
_CURVE_PROFILES = {
    "ci": {"N": 48, "blocks": [1, 2], "epochs": 30, "trials": 1, "eval_every": 5},
    "quick": {"N": 300, "blocks": [0, 1, 4], "epochs": 200, "trials": 1, "eval_every": 10,
              "max_seeds": 1},
    "full": {"N": int(published.FIG2_N.value), "blocks": FIG2_BLOCKS,
             "epochs": int(published.EPOCHS.value), "trials": int(published.OPTUNA_TRIALS.value),
             "eval_every": 10},
}


def _curves(dataset: str, params: dict, seeds: int, device: str, cache_dir: Path,
            executor: str | None) -> pd.DataFrame:
    points = _points(params, seeds, dataset=dataset, record="curve", early_stop=False,
                     N=[params["N"]], n=[params.get("n", 8)])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc=f"kajitsuka.{dataset}_curves")


@experiment("kajitsuka.mnli_curves", title="Training loss and accuracy per #blocks, MultiNLI",
            paper_figure="Kajitsuka & Sato Figs. 1 and 2", profiles=_CURVE_PROFILES,
            datasets=("mnli",))
def mnli_curves(params: dict, *, seeds: int, device: str, cache_dir: Path,
                executor: str | None = None) -> pd.DataFrame:
    """Loss and accuracy against epochs for each #blocks on MultiNLI (n = 8)."""
    return _curves("mnli", params, seeds, device, cache_dir, executor)


@experiment("kajitsuka.imdb_curves", title="Training loss and accuracy per #blocks, IMDb",
            paper_figure="Kajitsuka & Sato Figs. 4 and 5", profiles=_CURVE_PROFILES,
            datasets=("imdb",))
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
    paper_figure="Kajitsuka & Sato Fig. 7", datasets=("mnli",),
    profiles={
        "ci": {"N": [40, 80], "blocks": [0, 1, 2], "epochs": 40, "trials": 1, "eval_every": 10,
               "widths": [[16, 32], [8, 16]]},
        "quick": {"N": [200, 400, 600, 800], "blocks": [0, 1, 2, 4], "epochs": 300,
                  "trials": 1, "eval_every": 10, "max_seeds": 1, "widths": [[16, 32], [8, 16]]},
        # The narrower width first: at N = 600 the 16-wide model already memorizes with 0
        # blocks at 4 of 5 seeds (data/results/full), so the 8-wide one is where the depth can
        # grow with N, and a partial run should reach it first. The order is the order the
        # points run in, not which points run (memnb.provenance.profile_change).
        "full": {"N": FIG7_N, "blocks": list(range(0, 21)) + [24, 28, 32, 36, 40],
                 "epochs": 1000, "trials": 10, "eval_every": 10,
                 "widths": [[8, 16], [16, 32]]},
    },
)
def capacity(params: dict, *, seeds: int, device: str, cache_dir: Path,
             executor: str | None = None) -> pd.DataFrame:
    """Training accuracy at the lowest-loss checkpoint of the best trial per (width, N, #blocks);
    :func:`capacity_table` gives Fig. 7.

    ``params["widths"]`` lists ``[d, d_ff]`` pairs **[ours]**, run in that order: the paper's
    width is not in our sources, so every profile runs two widths, the default ``d = 16`` and a
    narrower ``d = 8``, for the paper's N range to span several depths at one of them at least.
    The chapter states the smallest memorizing depth per N and width as computed from the table
    (:func:`memnb.figures.kajitsuka.capacity_depths_markdown`).
    """
    points = [{**pt, "d": d, "d_ff": d_ff}
              for d, d_ff in params.get("widths", [[MODEL["d"], MODEL["d_ff"]]])
              for pt in _points(params, seeds, dataset="mnli", record="final", early_stop=True,
                                N=params["N"], n=[params.get("n", 8)])]
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
    """Training accuracy at the lowest-loss checkpoint of the best trial per (n, #blocks) at fixed
    N; capacity via :func:`capacity_table`."""
    points = _points(params, seeds, dataset="random", record="final", early_stop=True,
                     N=[params["N"]], n=params["n"])
    return _sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                  desc="kajitsuka.seq_len")


# ------------------------------------------------------------------------- the construction
def construction_group(points: list[Point]) -> list[Rows]:
    """Build the construction for each point (random integer data); one row of sizes each."""
    return [[construction_sizes(p["N"], p["n"], num_classes=p["C"], vocab_size=p["V"],
                                task=p["task"], seed=p["seed"], verify=p["verify"],
                                positional=p["positional"])]
            for p in points]


@experiment(
    "kajitsuka.construction", title="Size of the Thm 4.1 construction against N and n",
    paper_figure="Kajitsuka & Sato Thm 4.1, Cor. 4.1, Remark 4.4 (computed)", fixed_seeds=1,
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
    The next-token constructions have no positional token IDs, as the model of Thm 4.1; the
    seq2seq ones add each token's position to its ID (``positional``, ours): our random data
    repeat a token inside a sequence with other labels, which no map of tokens alone can fit
    (Cor. 4.1 does not ask for positions; :func:`memnb.scorecard.kajitsuka.positions_words`).
    """
    del device
    seeds = 1
    base = {"C": 2, "V": 1000}
    points: list[Point] = []
    for task in ("next_token", "seq2seq"):
        base["positional"] = task == "seq2seq"  # Thm 4.1's model has none; Cor. 4.1 needs them
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
