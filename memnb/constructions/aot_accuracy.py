"""Corollary 2 of Dana, Pydi & Chevaleyre (AISTATS 2025) instantiated on all ``N^2`` bigrams.

**Statement (paper).** Under Assumption 1 with a uniform prior over ``T_0`` associations there is
an AoT with ``E_t[Acc(T(t))] >= φ(H d_h + d)``, ``φ(X) = 1/N + (1 - 1/N) X / T_0``: it memorizes
``X`` associations and is right by chance (``1/N``) on the others. The chapter's plots draw
``φ`` under the trained curves; here the bound is compared with *constructed* AoTs.

**Computed** (:func:`corollary2_table`): for the bigram task (``S = 2``, ``T_0 = N^2``, a random
target ``g(t)`` per bigram), the exact construction of :mod:`memnb.constructions.aot` memorizes
``X = min(H d_h + d, N^2)`` randomly chosen bigrams; its accuracy is then measured on **all**
``N^2`` bigrams, for several random tasks ``g``. On the ``N^2 - X`` other bigrams the model's
argmax does not depend on their targets, so its accuracy there is ``1/N`` *in expectation over
g* — the corollary's ``φ`` is an average over tasks; a single task can fall below it (the
fraction of tasks that do is reported; this reading is ours).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from memnb.bounds import dana_accuracy_lower_bound, dana_capacity
from memnb.constructions.aot import memorize_with_report, repeated_token_rank_bound
from memnb.data.synthetic import all_contexts
from memnb.validation import check_int


def constructed_accuracy(N: int, d: int, d_h: int, H: int, *, seed: int = 0) -> dict[str, float]:
    """Accuracy on all ``N^2`` bigrams of an AoT built to memorize ``X = min(H d_h + d, N^2)``
    of them (Dana et al., AISTATS 2025, Cor. 2), for the random task ``g`` drawn from ``seed``.

    Returns ``X``, ``accuracy`` (all bigrams), ``accuracy_rest`` (the ``N^2 - X`` not memorized;
    ``nan`` when none), ``memorized`` (accuracy on the ``X`` chosen bigrams) and ``phi`` =
    ``φ(X)``.
    """
    N, d = check_int("N", N, 2), check_int("d", d, 2)
    d_h, H = check_int("d_h", d_h, 1, d), check_int("H", H, 0)
    seed = check_int("seed", seed, 0)
    contexts = all_contexts(N, 2)
    t0 = contexts.shape[0]
    x = min(dana_capacity(H, d_h, d), t0)
    rng = np.random.default_rng(seed)
    targets = torch.as_tensor(rng.integers(0, N, t0))
    tok = contexts.numpy()
    for _ in range(100):  # a subset the construction accepts (repeated / last-token limits)
        chosen = np.sort(rng.choice(t0, size=x, replace=False))
        sub = tok[chosen]
        repeated = int(np.sum(sub[:, 0] == sub[:, 1]))
        last = np.unique(sub[:, 1]).shape[0]
        if repeated <= repeated_token_rank_bound(d, H, 2) and x <= H * d_h + min(d, last):
            break
    else:
        raise ValueError(f"no subset of {x} bigrams within the construction's limits found")
    model, _ = memorize_with_report(contexts[chosen], targets[chosen], N, d, d_h, H, seed=seed)
    with torch.no_grad():
        hit = (model(contexts).argmax(dim=1) == targets).numpy()
    rest = np.ones(t0, dtype=bool)
    rest[chosen] = False
    return {"X": x, "accuracy": float(hit.mean()),
            "accuracy_rest": float(hit[rest].mean()) if rest.any() else float("nan"),
            "memorized": float(hit[chosen].mean()),
            "phi": float(dana_accuracy_lower_bound(x, N, t0))}


def corollary2_table(N: int, d: int, d_h: int, Hs: list[int], *, tasks: int = 10,
                     seed: int = 0) -> pd.DataFrame:
    """:func:`constructed_accuracy` for each ``H`` in ``Hs`` over ``tasks`` random tasks.

    One row per ``H``: ``X``, ``phi``, the mean, sd and minimum accuracy over tasks,
    ``memorized`` (the smallest accuracy on the chosen bigrams over tasks), the mean accuracy on
    the non-memorized bigrams (``1/N`` expected), ``below_phi`` (fraction of tasks whose accuracy
    is below ``φ(X)``) and ``tasks``.
    """
    tasks = check_int("tasks", tasks, 1)
    rows = []
    for H in Hs:
        runs = pd.DataFrame([constructed_accuracy(N, d, d_h, H, seed=seed + k)
                             for k in range(tasks)])
        phi = float(runs["phi"].iloc[0])
        rows.append({"N": N, "d": d, "d_h": d_h, "H": H, "X": int(runs["X"].iloc[0]),
                     "phi": phi, "accuracy_mean": runs["accuracy"].mean(),
                     "accuracy_sd": runs["accuracy"].std(ddof=1) if tasks > 1 else 0.0,
                     "accuracy_min": runs["accuracy"].min(),
                     "memorized": runs["memorized"].min(),
                     "accuracy_rest_mean": runs["accuracy_rest"].mean(),
                     "below_phi": float((runs["accuracy"] < phi - 1e-12).mean()),
                     "tasks": tasks})
    return pd.DataFrame(rows)
