"""Scorecard rows of the cross-paper chapter (ours): each claim of the chapter with a verdict
computed from the ``compare.capacity`` table (or, for the constructions, computed inline).

The pure functions (``*_verdict``) take the result table; the chapter calls the same functions,
so its sentences and these rows cannot disagree. Every row is marked ``ours``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from memnb import bounds
from memnb.experiments import compare as exp
from memnb.papers import external
from memnb.scorecard import criteria
from memnb.scorecard.core import NotComputable, ResultSource, item
from memnb.scorecard.criteria import Verdict

P = "compare"
NAME = "compare.capacity"
_COST = "about three minutes on two CPU cores with `--profile quick`"
#: What every row's criterion adds: the cap of :meth:`ResultSource.at_paper_scale`.
_AT_MOST = "; `trend` at most from a reduced-size run"


def _params(results: ResultSource | None = None) -> dict:
    profile = "quick" if results is None else results.used_profile(NAME)
    return exp.get_params(profile)


def _caps(table: pd.DataFrame, C: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    caps = exp.capacity_table(table, C)
    return caps, exp.best_shapes(caps)


# ------------------------------------------------------------------------------ verdicts
def ranking_verdict(table: pd.DataFrame, C: int) -> Verdict:
    """Is one architecture the best per parameter at every budget, beyond the seed spread?
    (:func:`ranking_from_best` on the table's best shapes.)"""
    _, best = _caps(table, C)
    return ranking_from_best(best)


def ranking_from_best(best: pd.DataFrame) -> Verdict:
    """The head-to-head criterion on a table of best shapes (:func:`exp.best_shapes`).

    At each budget where something memorized, the architecture with the most bits per parameter
    *leads* when its mean exceeds the runner-up's by more than the sum of their standard
    deviations over seeds; a first place within that spread is no lead. ``reproduced``: the same
    architecture leads at every budget; ``trend``: one architecture leads at more than half of
    the budgets; ``differs``: none does (including when the seed spreads are too wide to
    separate the architectures).
    """
    rows = []
    for budget, part in best.groupby("budget"):
        part = part.sort_values("bits", ascending=False)
        if part["bits"].iloc[0] == 0:
            continue  # no architecture memorized anything at this budget
        a = part.iloc[0]
        b = part.iloc[1] if len(part) > 1 else None
        clear = b is None or a["bits"] - b["bits"] > a["bits_std"] + b["bits_std"]
        rows.append((budget, a["architecture"], float(a["bits"]), bool(clear),
                     None if b is None else float(b["bits"])))
    if not rows:
        raise NotComputable("no architecture fitted any training set at any budget")
    leads = pd.Series([r[1] for r in rows if r[3]], dtype=object)
    firsts = pd.Series([r[1] for r in rows])
    top = (leads.value_counts().index[0] if len(leads) else firsts.value_counts().index[0])
    led = int((leads == top).sum())
    first_only = sum(1 for r in rows if r[1] == top and not r[3])
    text = "; ".join(f"P={r[0]}: {exp.SHORT[r[1]]} {r[2]:.2f}" + (
        "" if r[4] is None else f" vs {r[4]:.2f}") + ("" if r[3] else " (within spread)")
        for r in rows)
    summary = (f"{exp.SHORT[top]} leads beyond the summed seed spreads at {led}/{len(rows)} "
               f"budgets" + (f" (first within the spread at {first_only} more)"
                             if first_only else ""))
    measured = f"{summary}: {text} bits/parameter"
    values = {"winner": top, "leads": led, "budgets": len(rows), "summary": summary}
    if led == len(rows):
        return Verdict("reproduced", measured, values)
    if led > len(rows) / 2:
        return Verdict("trend", measured, values)
    return Verdict("differs", measured, values)


def guarantee_verdict(table: pd.DataFrame, C: int, arch: str, n: int) -> Verdict:
    """Does training reach the paper's guaranteed count at each trained shape of ``arch``?

    The guarantee is a lower bound on what the *best* weights memorize (Dana et al. Thm 1:
    ``H d_h + d`` for the AoT; Mahdavi et al. Thm 1: ``H (min(n, d_h) - 1) + 1`` for the MHA);
    the check is whether the trained capacity is at least that (``criteria.bound_holds`` lower).
    """
    caps, _ = _caps(table, C)
    part = caps[caps["architecture"] == arch]
    if part.empty:
        raise NotComputable(f"no {arch} run in the table")
    shapes = [dict(kv.split("=") for kv in s.split()) for s in part["shape"]]
    if arch == "aot":
        bound = [bounds.dana_capacity(int(s["H"]), int(s["d_h"]), int(s["d"])) for s in shapes]
    else:
        bound = [bounds.mahdavi_capacity(int(s["H"]), n, int(s["d_h"])) for s in shapes]
    caps = part["capacity"].to_numpy(float)
    v = criteria.bound_holds(caps, bound, kind="lower")
    zero = int((caps == 0).sum())
    note = ("" if not zero else
            f" (over the {len(part) - zero} runs with a positive capacity; the run that "
            "memorized no tried N, below its guarantee, has no ratio)" if zero == 1 else
            f" (over the {len(part) - zero} runs with a positive capacity; the {zero} runs that "
            "memorized no tried N, each below its guarantee, have no ratio)")
    return Verdict(v.status, f"trained capacity vs guarantee over {len(part)} runs: "
                   f"{v.measured}{note}", {**v.values, "zero_capacity": zero})


def floor_verdict(table: pd.DataFrame, C: int) -> Verdict:
    """Every trained capacity obeys the information floor ``N log2 C <= 32 P`` (float32)."""
    caps, _ = _caps(table, C)
    return criteria.bound_holds(caps["capacity"].to_numpy(float) * math.log2(C),
                                32.0 * caps["parameters"].to_numpy(float), kind="upper")


#: Largest |exponent - 1| called linear, and largest half-width of the exponent's 95 % interval
#: that can tell linear growth apart: the search over N has a resolution of a factor
#: 2^(1/(refine+1)) or coarser, so a fitted exponent wanders by about this much (ours). With both
#: bounds the interval lies inside 1 ± 0.4, which excludes the √P growth (exponent ½) of the
#: sublinear constructions.
LINEAR_TOLERANCE = 0.2


def linear_capacity_verdict(table: pd.DataFrame, C: int, arch: str) -> Verdict:
    """Capacity grows linearly with the budget for ``arch``: a log-log fit of the best shape's
    mean capacity against ``P``, over the budgets where it is positive (a budget where no tried
    N was memorized has no logarithm; it is named, not fitted).

    ``reproduced`` when |exponent − 1| ≤ :data:`LINEAR_TOLERANCE` and the 95 % interval's
    half-width is ≤ :data:`LINEAR_TOLERANCE`; ``trend`` when the capacity grows (exponent > ½
    and the interval above 0) but is not linear by that rule, or the interval is too wide to
    tell; ``differs`` otherwise.
    """
    _, best = _caps(table, C)
    mine = best[best["architecture"] == arch].sort_values("parameters")
    part = mine[mine["capacity"] > 0]
    left = mine[mine["capacity"] <= 0]
    if len(part) < 2:
        raise NotComputable(f"{arch}: fewer than two budgets with a positive capacity")
    v = criteria.fitted_exponent(part["parameters"], part["capacity"], 1.0)
    slope, low, high = v.values["exponent"], v.values["low"], v.values["high"]
    half = (high - low) / 2
    off = abs(slope - 1)
    fitted = ", ".join(f"P={int(p)}: {c:g}" for p, c in zip(part["parameters"], part["capacity"],
                                                             strict=True))
    measured = (f"exponent {slope:.3g} (95 % CI {low:.3g} to {high:.3g}), {len(part)} budgets "
                f"({fitted})")
    if len(left):
        measured += ("; left out of the fit, capacity 0 (no tried N memorized): "
                     + ", ".join(f"P={int(p)}" for p in left["parameters"]))
    measured += (f"; |exponent − 1| = {off:.2f} {'≤' if off <= LINEAR_TOLERANCE else '>'} "
                 f"{LINEAR_TOLERANCE:g} and interval half-width {half:.2f} "
                 f"{'≤' if half <= LINEAR_TOLERANCE else '>'} {LINEAR_TOLERANCE:g}")
    if off <= LINEAR_TOLERANCE and half <= LINEAR_TOLERANCE:
        status = "reproduced"
    else:
        status = "trend" if slope > 0.5 and low > 0 else "differs"
    return Verdict(status, measured, {**v.values, "half_width": half,
                                      "left_out": [int(p) for p in left["parameters"]]})


def anchors_verdict(table: pd.DataFrame, C: int) -> Verdict:
    """Our exact-fit bits per parameter against the external anchors: ``reproduced`` when every
    best-shape mean lies below the smallest anchor (they also count partial information)."""
    _, best = _caps(table, C)
    low = min(float(v) for v in external.anchors().values())
    top = float(best["bits"].max())
    anchors = ", ".join(f"{external.NAMES[k]} {float(v):g}"
                        for k, v in external.anchors().items())
    status = "reproduced" if top < low else "differs"
    return Verdict(status, f"largest mean of ours {top:.2f} bits/parameter; anchors {anchors}",
                   {"ours_max": top})


def construction_cost_verdict(table: pd.DataFrame, C: int, task: dict[str, int]) -> Verdict:
    """At each budget P: the largest N that any trained run (architecture, shape, seed)
    memorized, and the parameters our Kajitsuka & Sato construction needs for that N (the closed
    form :func:`memnb.bounds.kajitsuka_construction_parameter_model` at the task's n, C, V),
    over P. ``reproduced`` when the construction needs more than P at every budget (the Õ(√N)
    construction pays in constants at these sizes)."""
    caps, _ = _caps(table, C)
    top = caps.groupby("budget")["capacity"].max()
    found = []
    for budget, cap in top.items():
        if cap >= 1:
            need = bounds.kajitsuka_construction_parameter_model(int(cap), task["n"], C, task["V"])
            found.append((int(budget), int(cap), int(need), need / budget))
    if not found:
        raise NotComputable("no budget with a positive trained capacity")
    ratios = [r[3] for r in found]
    status = "reproduced" if min(ratios) > 1 else "differs"
    each = "; ".join(f"P={b}: N={c}, construction {need:,} parameters ({ratio:.3g}×)"
                     for b, c, need, ratio in found)
    return Verdict(status, f"construction parameters (closed form, n = {task['n']}, C = {C}, "
                   f"V = {task['V']}) for the largest N a trained run memorized at each budget, "
                   f"over the budget: {each}; {min(ratios):.3g}× to {max(ratios):.3g}× over "
                   f"{len(found)} budgets", {"min_ratio": min(ratios)})


def _reduced(profile: str) -> str:
    return f"`{profile}` run at reduced size, not the chapter's `full` profile"


def scaled(verdict: Verdict, profile: str, partial: str | None = None) -> Verdict:
    """``verdict`` capped as the rows cap it (:meth:`ResultSource.at_paper_scale`): a
    ``reproduced`` from a table of a ``quick`` or ``ci`` run, or of a partial ``full`` run,
    is a ``trend``. For the chapter's sentences, which judge the table of its ``profile``."""
    return criteria.at_paper_scale(verdict, profile, partial, reduced=_reduced(profile),
                                   incomplete=f"{NAME}: {partial}")


def checked(fn: object, *args: object) -> Verdict:
    """``fn(*args)``, or a ``not computable`` verdict saying why (for the chapter's sentences,
    which must print something even when a run holds too little to judge)."""
    try:
        return fn(*args)  # type: ignore[operator]
    except NotComputable as why:
        return Verdict("not computable", str(why))


# ---------------------------------------------------------------------------------- items
def _table(results: ResultSource) -> tuple[pd.DataFrame, dict]:
    table = results.table(NAME)
    return table, _params(results)


def _scaled(results: ResultSource, verdict: Verdict) -> Verdict:
    """Every row of this chapter reads ``compare.capacity``: a ``quick`` (or partial ``full``)
    run can show a trend, not a reproduction, as for the papers' rows."""
    return results.at_paper_scale(NAME, verdict, _reduced(results.used_profile(NAME)))


@item(P, "Head to head", ours=True, cost=_COST,
      claim="one architecture stores the most bits per parameter at every budget",
      criterion="the same architecture leads at every budget, a lead being a mean ahead of the "
                "runner-up's by more than their summed seed spreads (trend: one architecture "
                "leads at more than half of the budgets; a first place within the spread is no "
                "lead)"
                + _AT_MOST)
def head_to_head(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _scaled(results, ranking_verdict(table, params["C"]))


@item(P, "Dana et al. Thm 1 vs training", ours=True, cost=_COST,
      claim="trained AoTs memorize at least the H d_h + d associations the construction "
            "guarantees for their shape",
      criterion="trained capacity >= H d_h + d at every (shape, seed)"
                + _AT_MOST)
def dana_guarantee(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _scaled(results, guarantee_verdict(table, params["C"], "aot", params["n"]))


@item(P, "Mahdavi et al. Thm 1 vs training", ours=True, cost=_COST,
      claim="trained attention layers memorize at least H(min(n, d_h) - 1) + 1 examples",
      criterion="trained capacity >= H(min(n, d_h) - 1) + 1 at every (shape, seed)"
                + _AT_MOST)
def mahdavi_guarantee(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _scaled(results, guarantee_verdict(table, params["C"], "mha", params["n"]))


@item(P, "Remark 4.4 floor vs training", ours=True, cost=_COST,
      claim="no trained model stores more label bits than its float32 weights hold",
      criterion="capacity · log2 C <= 32 P at every (shape, seed)"
                + _AT_MOST)
def floor(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _scaled(results, floor_verdict(table, params["C"]))


for _arch in exp.ARCHITECTURES:
    def _linear(results: ResultSource, arch: str = _arch) -> Verdict:
        table, params = _table(results)
        return _scaled(results, linear_capacity_verdict(table, params["C"], arch))

    _linear.__qualname__ = f"linear_{_arch}"
    item(P, f"Capacity vs budget, {exp.SHORT[_arch]}", ours=True, cost=_COST,
         claim=f"the trained capacity of the {exp.LABELS[_arch]} grows linearly with its "
               "parameters",
         criterion=f"log-log fit of the best shape's mean capacity against P over the "
                   f"budgets with a positive capacity (the others named): |exponent − 1| ≤ "
                   f"{LINEAR_TOLERANCE:g} and 95 % interval half-width ≤ {LINEAR_TOLERANCE:g}; "
                   "trend when it grows (exponent > ½, interval above 0) but not so; `trend` "
                   "at most from a reduced-size run")(_linear)


@item(P, "External anchors", ours=True, cost=_COST,
      claim="exact-fit capacity stays below the bits per parameter of Allen-Zhu & Li (2024) and "
            "Morris et al. (2025), which count partial information too",
      criterion="largest best-shape mean bits/parameter < the smallest anchor"
                + _AT_MOST)
def anchors(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _scaled(results, anchors_verdict(table, params["C"]))


@item(P, "Kajitsuka & Sato construction vs training", ours=True, cost=_COST,
      claim="at these sizes our Õ(√N) construction needs more parameters than the budget at "
            "which training memorizes the same N",
      criterion="our construction's closed-form parameters for the largest N a trained run "
                "memorized at a budget, over that budget, > 1 at every budget; `trend` at most "
                "from a reduced-size run")
def construction_cost(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _scaled(results, construction_cost_verdict(table, params["C"], params))


def summary_values(table: pd.DataFrame, C: int) -> dict[str, float]:
    """Numbers the chapter quotes (glued), computed from the table."""
    caps, best = _caps(table, C)
    return {"bits_max": float(best["bits"].max()), "bits_min": float(best["bits"].min()),
            "budgets": float(best["budget"].nunique()),
            "span": float(best["budget"].max() / best["budget"].min()),
            "runs": float(len(caps)), "points": float(len(table)),
            "seeds": float(caps["seed"].nunique()),
            "median_capacity": float(np.median(caps["capacity"]))}
