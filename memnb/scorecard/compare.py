"""Scorecard rows of the cross-paper chapter (ours): each claim of the chapter with a verdict
computed from the ``compare.capacity`` table (or, for the constructions, computed inline).

The pure functions (``*_verdict``) take the result table; the chapter calls the same functions
on the table of its own profile, so its sentences and these rows agree whenever they read the
same table. The rows read the committed ``full`` run where one exists (else the ``quick`` one,
:class:`~memnb.scorecard.core.ResultSource`), the chapter's sentences the run of the profile it
was executed with: with a full run committed and the chapter executed under ``quick``, the two
judge different tables, and the chapter says so. Every row is marked ``ours``.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from memnb import bounds, viz
from memnb.experiments import compare as exp
from memnb.papers import external
from memnb.profiles import PROFILES
from memnb.prose import counted
from memnb.scorecard import criteria
from memnb.scorecard.core import NotComputable, NotRun, ResultSource, item, status_words
from memnb.scorecard.criteria import Verdict, with_reason
from memnb.scorecard.render import BY_CONSTRUCTION

P = "compare"
NAME = "compare.capacity"
_COST = "about three minutes on two CPU cores with `--profile quick`"
#: What every row's criterion adds: the cap of :meth:`ResultSource.at_paper_scale`.
_AT_MOST = "; `trend` at most from a reduced-size run"
#: How the guarantee rows read a capacity known only within its search bracket.
_BRACKETED = (", a capacity being known only between the largest N fitted and the next tried N "
              "that failed: a run holds when its capacity is at least its guarantee; it is not "
              "tested when the guarantee lies inside that bracket, e.g. a capacity of 0 below a "
              "smallest tried N above the guarantee (a plain trend: holds at every tested run); "
              "it falls short when an N at or below its guarantee was tried and not fitted; "
              "training can show a guarantee reached, but a run that falls short at the step cap "
              "cannot refute it: the guarantee is an existence theorem about the best weights, "
              "training stops early only at 100 %, so every run that does not fit an N ends at "
              "the profile's step cap, and more steps might fit it; such a shortfall, which the "
              "measurement cannot settle, makes the row trend (not decided) unless another run "
              "differs, the runs named with "
              "their shape, P, N, seed, accuracy and steps; differs only where a run fell short "
              "although training stopped before the step cap (this recipe does not produce it) "
              "or where the table does not record where training stopped; the ranges of "
              "guarantees and ratios are over the holding runs that test something (in scope, a "
              "guarantee above 1), the others counted apart")


def _params(results: ResultSource | None = None) -> dict:
    profile = "quick" if results is None else results.used_profile(NAME)
    return exp.get_params(profile)


def _caps(table: pd.DataFrame, C: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    caps = exp.capacity_table(table, C)
    return caps, exp.best_shapes(caps)


# ------------------------------------------------------------------------------ verdicts
def ranking_verdict(table: pd.DataFrame, C: int) -> Verdict:
    """Is one architecture the best per parameter at every budget, beyond the seed spread and
    the search brackets? (:func:`ranking_from_best` on the table's best shapes with their
    brackets, :func:`censored_best`.)"""
    return ranking_from_best(censored_best(table, C))


def at_least(best: pd.DataFrame) -> pd.Series:
    """Rows of a table of best shapes (:func:`exp.best_shapes`) whose mean capacity and bits are
    lower bounds: some seed's capacity is censored from above (``censored_seeds`` > 0: every N
    the search tried for it fitted); none when the column is absent."""
    if "censored_seeds" not in best:
        return pd.Series(False, index=best.index)
    return best["censored_seeds"].fillna(0).astype(int) > 0


def _ge(low: bool) -> str:
    """``"≥ "`` before a value that is a lower bound (censored from above), else ``""``."""
    return "≥ " if low else ""


def bracket_ratio_low(first: Any, second: Any) -> float:
    """The lower end of the ratio of bits per parameter that the search brackets allow between
    two best shapes (rows of :func:`censored_best`, with ``capacity``, ``parameters`` and
    ``upper``): the first's mean capacity per parameter (the largest N fitted, mean over seeds)
    over the second's mean next tried N per parameter (``upper``, the end of its bracket), the
    ratio at which the first stores least against the second; 0 where the second's bracket is
    open above (``upper`` infinite)."""
    upper = float(second["upper"])
    if math.isinf(upper):
        return 0.0
    return (float(first["capacity"]) / float(first["parameters"])) / (
        upper / float(second["parameters"]))


def budget_leads(best: pd.DataFrame) -> pd.DataFrame:
    """Per budget of a table of best shapes (:func:`censored_best`), how the head-to-head
    reads it (:func:`ranking_from_best`, and the chapter's sentence on who stores most): the
    first architecture by bits per parameter (``winner``, ``bits``), the runner-up
    (``runner_up``, None without one; ``runner_up_bits``, NaN then), their ``ratio`` (``inf``
    when the runner-up memorized none), ``at_least`` and ``runner_up_at_least`` when a value is
    a lower bound (:func:`at_least`), ``spread``: whether the first's mean lies ahead of the
    runner-up's by more than their summed seed standard deviations, ``bracket_low``: the lower
    end of the ratio the search brackets allow (:func:`bracket_ratio_low`; ``inf`` without a
    runner-up, NaN where ``best`` has no ``upper`` column, the brackets not known), ``beyond``:
    ahead of the spread and, where the brackets are known, ``bracket_low`` ≥ 1 (the first's
    largest N fitted per parameter at or above the runner-up's next tried N per parameter; the
    brackets are half-open, ``[largest N fitted, next N tried)``, so even at 1 the first's true
    capacity per parameter lies above the runner-up's: the grid of the search settles the
    order), ``undecided`` when another architecture's value is such a
    bound (it may hold more than the first) or the first's own is while it is not beyond (it may
    hold enough more to lead), and ``clear``: a lead, beyond and not undecided."""
    rows = []
    low = at_least(best)
    known = "upper" in best
    for budget, part in best.groupby("budget"):
        part = part.sort_values("bits", ascending=False)
        first = part.iloc[0]
        second = part.iloc[1] if len(part) > 1 else None
        ratio = (math.inf if second is None or second["bits"] == 0
                 else float(first["bits"] / second["bits"]))
        spread = float(first["bits_std"]) + (0.0 if second is None
                                              else float(second["bits_std"]))
        ahead = second is None or float(first["bits"] - second["bits"]) > spread
        bracket = (math.inf if second is None else
                   bracket_ratio_low(first, second) if known else math.nan)
        beyond = ahead and (not known or bracket >= 1.0)
        undecided = bool(low[part.index[1:]].any()) or (not beyond and bool(low[part.index[0]]))
        rows.append({"budget": budget, "winner": first["architecture"],
                     "bits": float(first["bits"]), "clear": beyond and not undecided,
                     "runner_up": None if second is None else second["architecture"],
                     "runner_up_bits": math.nan if second is None else float(second["bits"]),
                     "ratio": ratio, "at_least": bool(low[part.index[0]]),
                     "runner_up_at_least": second is not None and bool(low[part.index[1]]),
                     "undecided": undecided, "spread": ahead, "bracket_low": bracket,
                     "beyond": beyond})
    return pd.DataFrame(rows, columns=["budget", "winner", "bits", "clear", "runner_up",
                                       "runner_up_bits", "ratio", "at_least",
                                       "runner_up_at_least", "undecided", "spread",
                                       "bracket_low", "beyond"])


def no_lead_words(row: Any, *, ratio: bool = True) -> str:
    """Why a first place of :func:`budget_leads` (``row``, neither clear nor undecided) is no
    lead, in the words of the head-to-head row and the chapter's sentence per budget: its gap
    within the summed seed spreads, and/or within the search brackets (``bracket_low`` below 1:
    the brackets allow the runner-up to store as much per parameter or more), with the lower
    end of the ratio they allow unless ``ratio`` is False, e.g. ``within the seed spreads and
    the search brackets: they allow a ratio from 0.53``."""
    parts = [] if row.spread else ["the seed spreads"]
    inside = not math.isnan(row.bracket_low) and row.bracket_low < 1.0
    if inside:
        parts.append("the search brackets")
    return ("within " + " and ".join(parts)
            + (f": they allow a ratio from {row.bracket_low:.2f}" if inside and ratio else ""))


def ranking_from_best(best: pd.DataFrame) -> Verdict:
    """The head-to-head criterion on a table of best shapes (:func:`censored_best`).

    At each budget where something memorized, the architecture with the most bits per parameter
    *leads* when its mean exceeds the runner-up's by more than the sum of their standard
    deviations over seeds and, the capacities being known only within their search brackets,
    when the brackets settle the order: the ratio of bits per parameter that they allow starts
    at 1 or above (:func:`bracket_ratio_low`: the leader's largest N fitted per parameter at or
    above the runner-up's next tried N per parameter, means over seeds; the brackets are
    half-open, so the leader's true value lies above the runner-up's); a first place within the
    spread or within the brackets is no lead (:func:`no_lead_words`). A ``best`` without the
    brackets (no ``upper`` column) is judged on the spreads alone, and the text says so. A mean
    that is a lower bound (:func:`at_least`: some seed fitted every N tried) is shown as ``≥``;
    a first place over another architecture whose mean is such a bound is undecided (that
    architecture may hold more), and so is a first place without a lead whose own mean is such a
    bound (it may hold enough more to lead): no lead. ``reproduced``: the same architecture
    leads at every budget; ``trend``: one architecture leads at more than half of the budgets,
    or the budgets without a lead (first place within the spread or the brackets, or undecided)
    could still give it a lead at more than half of them (not decided: spreads and brackets too
    wide to separate the architectures do not refute the claim); ``differs``: leads elsewhere
    leave no architecture a way to lead at more than half of the budgets.
    """
    rows = budget_leads(best)
    rows = rows[rows["bits"] > 0]  # a budget where no architecture memorized anything: skipped
    if rows.empty:
        raise NotComputable("no architecture fitted any training set at any budget")
    rows = list(rows.itertuples())
    leads = pd.Series([r.winner for r in rows if r.clear], dtype=object)
    firsts = pd.Series([r.winner for r in rows])
    top = (leads.value_counts().index[0] if len(leads) else firsts.value_counts().index[0])
    led = int((leads == top).sum())
    first_only = sum(1 for r in rows if r.winner == top and not r.clear and not r.undecided)
    undecided = sum(1 for r in rows if r.undecided)
    unled = sum(1 for r in rows if not r.clear)  # within the spread or brackets, or undecided
    known = "upper" in best
    text = "; ".join(f"P={r.budget}: {exp.SHORT[r.winner]} {_ge(r.at_least)}{r.bits:.2f}" + (
        "" if r.runner_up is None else f" vs {_ge(r.runner_up_at_least)}{r.runner_up_bits:.2f}")
        + ("" if r.clear else " (undecided: a mean here is a lower bound)" if r.undecided
           else f" ({no_lead_words(r)})") for r in rows)
    beyond = ("beyond the summed seed spreads and the search brackets" if known else
              "beyond the summed seed spreads (the search brackets not given)")
    summary = (f"{exp.SHORT[top]} leads {beyond} at {led}/{len(rows)} budgets"
               + (f" ({exp.SHORT[top]} first without a lead, within the spreads"
                  + (" or the brackets" if known else "")
                  + f", at {first_only}{' more' if led else ''})" if first_only else "")
               + (f"; undecided at {undecided} (a mean there a lower bound)"
                  if undecided else ""))
    measured = f"{summary}: {text} bits/parameter"
    if any(r.at_least or r.runner_up_at_least or r.undecided for r in rows):
        measured += ("; ≥: a mean that is a lower bound, some seed having fitted every N the "
                     "search tried (its capacity censored from above)")
    values = {"winner": top, "leads": led, "budgets": len(rows), "summary": summary,
              "undecided": undecided, "unled": unled, "decided": True}
    if led == len(rows):
        return Verdict("reproduced", measured, values)
    if led > len(rows) / 2:
        return Verdict("trend", measured, values)
    if led + unled > len(rows) / 2:  # the budgets without a lead could still make a leader
        # said first: the status column holds only "trend", its first words say why
        return Verdict("trend", f"{not_decided_words(values)}; {measured}",
                       {**values, "decided": False})
    return Verdict("differs", measured, values)


def not_decided_words(values: dict[str, Any]) -> str:
    """Why a head-to-head ``trend`` is not decided, from the values of
    :func:`ranking_from_best` (``winner``, ``unled``, ``budgets``): the budgets without a lead
    could still give the first architecture a lead at more than half of the budgets."""
    return (f"not decided: at {values['unled']} of {values['budgets']} budgets no architecture "
            "leads (first place within the seed spreads or the search brackets, or a mean there "
            "a lower bound), and "
            f"they could still give {exp.SHORT[values['winner']]} a lead at more than half of "
            "the budgets")


def capacity_brackets(table: pd.DataFrame, C: int) -> pd.DataFrame:
    """:func:`exp.capacity_table` (per architecture, budget, shape and seed: ``capacity``, the
    largest ``N`` fitted at 100 %, 0 when none was) with what the search over ``N`` says beyond
    it: ``upper``, the smallest tried ``N`` above the capacity that was not fitted (``inf`` when
    none was: not bracketed above, the run's capacity censored from above, ``censored``), and
    ``smallest``, the smallest ``N`` tried. The true capacity of a run lies in
    ``[capacity, upper)``: a capacity of 0 only says it is below the smallest ``N`` tried, a
    censored one only that it is at least ``capacity``."""
    caps = exp.capacity_table(table, C)
    keys = ["architecture", "budget", "shape", "seed"]
    tried = table.merge(caps[keys + ["capacity"]], on=keys)
    failed = tried[(tried["accuracy"] < 1.0) & (tried["N"] > tried["capacity"])]
    upper = failed.groupby(keys)["N"].min().astype(float).rename("upper")
    smallest = table.groupby(keys)["N"].min().rename("smallest")
    out = caps.join(upper, on=keys).join(smallest, on=keys)
    out["upper"] = out["upper"].fillna(math.inf)
    return out


def censored_best(table: pd.DataFrame, C: int) -> pd.DataFrame:
    """:func:`exp.best_shapes` with what the search says of a capacity of 0 (ours): per best
    shape, ``zero_seeds`` (its seeds that fitted no tried ``N``: their capacity lies below the
    smallest ``N`` tried, not resolved, and is counted as 0 in the mean) and ``below`` (when every
    seed is such a seed, the largest of their smallest tried ``N``: the mean capacity lies below
    it; NaN otherwise), ``smallest``, the largest over seeds of the smallest ``N`` tried, and
    ``upper``, the mean over seeds of the next tried ``N`` above each seed's capacity
    (:func:`capacity_brackets`; ``inf`` where a seed fitted every ``N`` tried): the mean
    capacity lies in ``[capacity, upper)``, the bracket the head-to-head reads
    (:func:`budget_leads`) and the chapter's figures draw
    (:func:`memnb.figures.compare.mean_brackets`)."""
    brackets = capacity_brackets(table, C)
    keys = ["architecture", "budget", "shape"]
    zero = (brackets.assign(zero=brackets["capacity"] == 0).groupby(keys)
            .agg(zero_seeds=("zero", "sum"), smallest=("smallest", "max"),
                 upper=("upper", "mean")))
    out = exp.best_shapes(exp.capacity_table(table, C)).join(zero, on=keys)
    out["zero_seeds"] = out["zero_seeds"].astype(int)
    out["below"] = out["smallest"].astype(float).where(out["zero_seeds"] == out["seeds"])
    return out


def shape_params(shape: str) -> dict[str, int]:
    """A shape name (``"d=8 d_h=1 H=4"``) as a dict of its integers."""
    return {k: int(v) for k, v in (kv.split("=") for kv in shape.split())}


def outside_scope(architecture: str, shape: str, V: int) -> bool:
    """Whether a trained shape lies outside the scope of Dana et al.'s Thm 1 as the chapter reads
    it: an AoT whose width ``d`` exceeds the vocabulary ``V`` (fewer distinct last tokens than
    the ``d`` that the proof needs; ours: the gap in the proof that the Dana chapter finds).
    Other architectures, and a shape name without ``d=``: False (no guarantee of Dana et al. is
    about them; nothing to read)."""
    sizes = dict(kv.split("=", 1) for kv in str(shape).split() if "=" in kv)
    d = sizes.get("d", "")
    return architecture == "aot" and d.isdigit() and int(d) > int(V)


@functools.lru_cache(maxsize=256)
def _mha_sizes(shape: str, V: int, n: int, C: int) -> tuple[int, int]:
    """``d_v`` and ``d_o`` of the attention layer of one shape (:func:`mha_value_sizes`),
    remembered: the figures ask for them at every point they draw."""
    d_v, d_o = mha_value_sizes({"V": V, "n": n, "C": C}, [shape])
    return d_v[0], d_o[0]


def outside_reasons(architecture: str, shape: str, task: dict[str, int],
                    capacity: float | None = None) -> list[str]:
    """Why a trained shape lies outside the theorem whose guarantee the chapter draws for its
    architecture (ours), as short conditions, empty when none applies: for the AoT, ``"d > V"``
    (:func:`outside_scope`: Dana et al.'s Thm 1 as the chapter reads it); for the attention
    layer (Mahdavi et al.'s Thm 1), ``"d_v < d_o"`` where the layer that
    :func:`exp.build_model` builds in ``shape`` on ``task`` (``V, n, C``) has fewer value
    channels per head than read-out outputs (:func:`mha_value_sizes`: outside the side
    condition ``d_v ≥ d_o`` of the construction as our notes reconstruct it, with no read-out
    bias for the Mahdavi chapter's reduction), and ``"N > V"`` where its ``capacity`` exceeds
    the vocabulary (the query is the last token, so two of the N queries coincide and
    Assumption 1, queries of Kruskal rank ≥ n, fails). Other architectures: no guarantee of
    these theorems is about them; a shape name without ``d=``: nothing to read."""
    if architecture == "aot":
        return ["d > V"] if outside_scope(architecture, shape, int(task["V"])) else []
    if architecture != "mha" or "d=" not in str(shape):
        return []
    d_v, d_o = _mha_sizes(str(shape), int(task["V"]), int(task["n"]), int(task["C"]))
    reasons = ["d_v < d_o"] if d_v < d_o else []
    if capacity is not None and float(capacity) > int(task["V"]):
        reasons.append("N > V")
    return reasons


def mahdavi_outside_words(task: dict[str, int], shapes: list[str]) -> str:
    """Why trained attention layers in ``shapes`` lie outside Mahdavi et al.'s Theorem 1 on
    ``task`` (``V, n, C``), in words (ours): their value and read-out sizes
    (:func:`mha_value_sizes`, against the side condition ``d_v ≥ d_o``), and Assumption 1,
    which fails at every ``N > V`` (the query is the last token); the words the scorecard's
    *Mahdavi et al. Thm 1 vs training* row uses."""
    d_v, d_o = mha_value_sizes({k: task[k] for k in ("V", "n", "C")}, list(shapes))
    return (_value_gap_words(d_v, d_o) + f"; and at N > V = {task['V']} two of the N queries "
            "(the last tokens) coincide, so Assumption 1 (queries of Kruskal rank ≥ n) fails")


def mha_value_sizes(task: dict[str, int], shapes: list[str]) -> tuple[list[int], list[int]]:
    """The value size ``d_v`` per head and the read-out size ``d_o`` of the multi-head attention
    layers that ``compare.capacity`` trains on ``task`` (``V, n, C``) in ``shapes`` (named as in
    its table), read from the models :func:`exp.build_model` builds (not typed here): the sizes
    that our reconstruction of Mahdavi et al.'s Theorem 1 construction needs with ``d_v ≥ d_o``
    (notes, Step 2). Each as its sorted distinct values over ``shapes``."""
    task = {**{k: task[k] for k in ("V", "n", "C")}, "N_max": 1}
    built = [exp.build_model("mha", shape_params(s), task, seed=0) for s in dict.fromkeys(shapes)]
    return (sorted({int(m.d_v) for m in built}), sorted({int(m.d_o) for m in built}))


def planned_mha_value_sizes() -> tuple[list[int], list[int]]:
    """:func:`mha_value_sizes` over every profile of ``compare.capacity`` (one MHA shape it
    plans at each profile's largest budget: ``d_v`` and ``d_o`` do not depend on the shape)."""
    shapes, tasks = [], []
    for profile in PROFILES:
        params = exp.get_params(profile)
        task = {k: params[k] for k in ("V", "n", "C")}
        for shape in exp.shapes_for_budget("mha", max(params["budgets"]), task, count=1):
            shapes.append(exp.shape_name("mha", shape))
            tasks.append(task)
    sizes = [mha_value_sizes(t, [s]) for t, s in zip(tasks, shapes, strict=True)]
    return (sorted({v for dv, _ in sizes for v in dv}), sorted({v for _, do in sizes for v in do}))


def _sizes_words(values: list[int]) -> str:
    """``1`` or ``1 to 4``: the distinct values of :func:`mha_value_sizes` in words."""
    return str(values[0]) if len(values) == 1 else f"{values[0]} to {values[-1]}"


def _value_gap_words(d_v: list[int], d_o: list[int]) -> str:
    """Whether the trained layers' sizes (:func:`mha_value_sizes`) meet the side condition
    ``d_v ≥ d_o`` of our reconstruction of Mahdavi et al.'s construction, in words."""
    channels = (counted(d_v[0], "value channel") if len(d_v) == 1
                else f"{_sizes_words(d_v)} value channels")
    sizes = (f"the trained layers have {channels} per head (d_v) and a read-out to "
             f"{_sizes_words(d_o)} outputs (d_o)")
    if max(d_v) < min(d_o):
        return (f"{sizes}, so d_v < d_o, outside the side condition d_v ≥ d_o that our "
                "reconstruction of the theorem's construction needs")
    if min(d_v) >= max(d_o):
        return (f"{sizes}, which meets the side condition d_v ≥ d_o of our reconstruction of "
                "the theorem's construction")
    return (f"{sizes}, so some have d_v < d_o, outside the side condition d_v ≥ d_o of our "
            "reconstruction of the theorem's construction")


def _guarantee(arch: str, shape: str, n: int) -> int:
    s = shape_params(shape)
    if arch == "aot":
        return bounds.dana_capacity(s["H"], s["d_h"], s["d"])
    return bounds.mahdavi_capacity(s["H"], n, s["d_h"])


def _runs(part: pd.DataFrame) -> str:
    """The runs of ``part`` named by shape with their seeds, e.g. ``d=2 d_h=1 H=86 (seed 1)``."""
    return "; ".join(
        f"{shape} (seed{'s' * (len(g) > 1)} {', '.join(str(int(x)) for x in g['seed'])})"
        for shape, g in part.groupby("shape", sort=True))


def _capped_runs(table: pd.DataFrame, part: pd.DataFrame, steps: int) -> pd.DataFrame:
    """For each run of ``part`` (a :func:`capacity_brackets` table with a ``guarantee``
    column), the tries of ``table`` that it did not fit at an ``N`` above its capacity and at or
    below its guarantee: whether every one of them ran to the step cap ``steps`` (``at_cap``;
    training stops early only at 100 %), and the smallest such ``N`` with its accuracy and the
    steps it ran (``steps_run``). Runs without such a try are absent."""
    keys = ["architecture", "budget", "shape", "seed"]
    tries = table.merge(part[keys + ["capacity", "guarantee"]], on=keys)
    failed = tries[(tries["accuracy"] < 1.0) & (tries["N"] > tries["capacity"])
                   & (tries["N"] <= tries["guarantee"])].sort_values("N")
    return failed.groupby(keys).agg(at_cap=("steps_run", lambda s: bool((s >= steps).all())),
                                    N=("N", "first"), accuracy=("accuracy", "first"),
                                    steps_run=("steps_run", "first"))


def guarantee_reading(capacity: float, upper: float, guarantee: float) -> str:
    """How one run's search bracket ``[capacity, upper)`` (:func:`capacity_brackets`) reads
    against a guarantee: ``"holds"`` when its capacity is at least the guarantee, ``"falls
    short"`` when an ``N`` at or below the guarantee was tried and not fitted (``upper`` ≤
    guarantee), else ``"not tested"`` (the guarantee inside the bracket)."""
    if capacity >= guarantee:
        return "holds"
    return "falls short" if upper <= guarantee else "not tested"


def _ratio_words(part: pd.DataFrame, which: pd.Series) -> str:
    """The guarantees met by the runs ``which`` of ``part`` and their trained/guaranteed
    ratios, e.g. ``guarantees 6 to 58; trained/guaranteed 1.03× to 3.75×``."""
    met = part.loc[which, "guarantee"]
    ratio = part.loc[which, "capacity"] / met
    met_text = (f"guarantee {int(met.min())}" if met.min() == met.max() else
                f"guarantees {int(met.min())} to {int(met.max())}")
    ratios = (f"{ratio.min():.3g}×" if f"{ratio.min():.3g}" == f"{ratio.max():.3g}" else
              f"{ratio.min():.3g}× to {ratio.max():.3g}×")
    return f"{met_text}; trained/guaranteed {ratios}"


def _scope_words(part: pd.DataFrame, held: pd.Series, outside: pd.Series, V: int | None) -> str:
    """How many runs of ``part`` hold their guarantee, the runs within the proof's scope
    (``~outside``: d ≤ V; and a guarantee above 1, as a guarantee of 1 is met by any run that
    fits one example) first, with the guarantees they met and their ratios, then those outside
    it (d > V): ``holds at 10 of the 14 in-scope runs (d ≤ V = 4: guarantees 6 to 58;
    trained/guaranteed 1.03× to 3.75×); the 6 out-of-scope runs (d > V) also hold``."""
    tests = ~outside & (part["guarantee"] > 1)
    held_in = held & tests
    trivial = bool((~outside & (part["guarantee"] <= 1)).any())
    scope = f"d ≤ V = {V}" + (" and a guarantee above 1" if trivial else "")
    text = (f"holds at {int(held_in.sum())} of the {counted(int(tests.sum()), 'in-scope run')} "
            f"({scope}" + (f": {_ratio_words(part, held_in)}" if held_in.any() else "") + ")")
    out, out_held = int(outside.sum()), int((held & outside).sum())
    runs = "run (d > V)" if out == 1 else "runs (d > V)"
    if out_held == out:
        verb = "holds" if out == 1 else "hold"
        text += f"; the {out} out-of-scope {runs} {'also ' if held_in.any() else ''}{verb}"
    else:
        text += f"; {out_held} of the {out} out-of-scope {runs} hold"
    return text


def guarantee_verdict(table: pd.DataFrame, C: int, arch: str, n: int,
                      V: int | None = None, *, steps: int | None = None) -> Verdict:
    """Does training reach the paper's guaranteed count at each trained shape of ``arch``?

    The guarantee is a lower bound on what the *best* weights memorize (Dana et al. Thm 1:
    ``H d_h + d`` for the AoT; Mahdavi et al. Thm 1: ``H (min(n, d_h) - 1) + 1`` for the MHA).
    A run's capacity is known only within its search bracket ``[capacity, upper)``
    (:func:`capacity_brackets`), so a run *holds* when its capacity is at least the guarantee,
    *falls short* when an ``N`` at or below the guarantee was tried and not fitted (``upper`` ≤
    guarantee), and is *not tested* otherwise (the guarantee lies inside the bracket, e.g. a
    capacity of 0 below a smallest tried ``N`` above the guarantee). ``differs`` when some run
    within the theorem's scope falls short although training stopped before the step cap;
    ``trend`` (not decided, ``values["decided"]`` False) when none does but some run within
    the scope fell short at the step cap (below); a plain ``trend`` when the others hold and
    some are not tested; ``reproduced`` when every run holds; NotComputable when no run tested
    a guarantee above 1 (a guarantee of 1, as Mahdavi et al.'s at ``d_h = 1``, is met by any
    run that fits one example, so such a run holds but tests nothing; it is counted apart). The
    runs that fall short are named, and the range of the guarantees the holding runs met, with
    their trained/guaranteed ratios, is given over the holding runs that test something (in
    scope and a guarantee above 1) where any did.

    For the MHA, ``V`` (the task's vocabulary) is required: the query is the last token, so it
    takes at most ``V`` distinct values, and at any ``N > V`` two queries coincide (Kruskal rank
    1 < ``n``): Theorem 1's Assumption 1 fails, the guarantee is a reference rather than the
    theorem, and the verdict is at most ``trend``. The trained layers' value size ``d_v`` and
    read-out size ``d_o`` (:func:`mha_value_sizes`, read from the models the experiment builds)
    are set against the side condition ``d_v ≥ d_o`` of our reconstruction of the construction,
    a second scope gap where ``d_v < d_o`` (``values``: ``d_v``, ``d_o``).

    ``steps`` is the step cap of the run's profile: a run whose tries at or below its guarantee
    that it did not fit all ran to that cap (``steps_run`` in ``table``) is a shortfall that the
    measurement cannot settle, not one that refutes the guarantee: training can show a
    guarantee reached, but the guarantee is an existence theorem about the best weights, and
    training stops early only at 100 %, so every run that does not fit an ``N`` ends at the cap,
    where more steps might fit it. Such runs make the verdict a ``trend`` not decided (unless
    another run differs); they are named with their shape, budget, seed, the ``N`` with its
    accuracy and the steps run, and a seed of the same shape that fitted that ``N``. Without
    ``steps`` (or a ``steps_run`` column) every shortfall is judged, and the text says that
    whether it ran to a step cap is not known.

    For the AoT, ``V`` (optional) bounds the distinct last tokens of the task's sequences: the
    construction of Dana et al.'s proof reaches ``H d_h + d`` on sequences with at least ``d``
    distinct last tokens (its skip connection has the rank of those tokens; see the Dana
    chapter's Lemma 2 and Theorem 1 rows), so a shape with ``d > V`` lies outside that scope: a
    shortfall there is reported, not judged, and caps the verdict at ``trend``. The measured
    text then leads with the runs in scope (how many of them hold, :func:`_scope_words`), then
    says how many of the runs outside it hold, before every run's other readings.
    """
    if arch == "mha" and V is None:
        raise ValueError("the MHA guarantee needs the task's vocabulary V (Assumption 1)")
    caps = capacity_brackets(table, C)
    part = caps[caps["architecture"] == arch].copy()
    if part.empty:
        raise NotComputable(f"no {arch} run in the table")
    part["guarantee"] = [_guarantee(arch, s, n) for s in part["shape"]]
    reading = pd.Series([guarantee_reading(c, u, g) for c, u, g in
                         zip(part["capacity"], part["upper"], part["guarantee"], strict=True)],
                        index=part.index)
    held, short = reading == "holds", reading == "falls short"
    open_ = ~held & ~short
    capped = pd.Series(False, index=part.index)
    cap_words = ""
    knows_cap = steps is not None and "steps_run" in table
    if knows_cap and short.any():
        found = _capped_runs(table, part[short], int(steps))
        keys = ["architecture", "budget", "shape", "seed"]
        at = part[keys].apply(tuple, axis=1)
        capped = short & at.map(lambda k: bool(k in found.index and found.loc[k, "at_cap"]))
        short = short & ~capped
        named = []
        for i in part.index[capped]:
            r, f = part.loc[i], found.loc[at[i]]
            fitted = part[(part["shape"] == r["shape"]) & (part["seed"] != r["seed"])
                          & (part["capacity"] >= f["N"])]["seed"]
            other = (f"; seed{'s' * (len(fitted) > 1)} {', '.join(str(int(x)) for x in fitted)} "
                     f"of this shape fitted N = {int(f['N'])}" if len(fitted) else "")
            named.append(f"{r['shape']} at P = {int(r['budget'])} (seed {int(r['seed'])}): "
                         f"N = {int(f['N'])} at accuracy {f['accuracy']:.3g} after "
                         f"{int(f['steps_run']):,} steps, guarantee {int(r['guarantee'])}{other}")
        if named:
            cap_words = (f", not fitted within the step cap at {len(named)} (a shortfall this "
                         f"measurement cannot settle: training had not fitted an N at or below "
                         f"the guarantee when it stopped at the {int(steps):,}-step cap, and "
                         "more steps might fit it: " + "; ".join(named) + ")")
    outside = pd.Series(False, index=part.index)
    if arch == "aot" and V is not None:
        outside = pd.Series([outside_scope(arch, s, V) for s in part["shape"]], index=part.index)
    text = f"trained capacity vs guarantee over {len(part)} runs: "
    if outside.any():
        # the runs in the proof's scope first (finding of the review: "holds at 16" counted
        # the runs outside it), those outside it after them, then every run's other readings
        text += _scope_words(part, held, outside, V)
    else:
        text += f"holds at {int(held.sum())}"
    if held.any() and not outside.any():
        # the guarantees met and the ratios, over the runs that test something (a guarantee
        # above 1), where any such run held; the others are counted, not summarized with them
        tests = part["guarantee"] > 1
        testing = bool((held & tests).any())  # some holding run tests something
        summarized = held & tests if testing else held
        scope = ("" if (part.loc[held, "guarantee"] > 1).all() or not testing else
                 f"{int(summarized.sum())} of the {int(tests.sum())} runs with a guarantee "
                 "above 1: ")
        text += f" ({scope}{_ratio_words(part, summarized)})"
    before = " before the step cap" if knows_cap else ""
    text += ((f"; over all {len(part)} runs:" if outside.any() else ",")
             + f" falls short at {int(short.sum())} (an N at or below the guarantee tried and "
             f"not fitted{before}" + (f": {_runs(part[short])}" if short.any() else "") + ")"
             + cap_words + f", not tested at {int(open_.sum())}")
    if short.any() and not knows_cap:
        text += (" (whether the runs that fall short ran to a step cap is not known here: "
                 "no step cap or no steps_run column)")
    if open_.any():
        groups = part[open_].groupby(["shape", "capacity", "upper", "guarantee"], sort=True)
        text += " (the guarantee inside the search bracket: " + "; ".join(
            f"{shape} (seed{'s' * (len(g) > 1)} {', '.join(str(int(x)) for x in g['seed'])}): "
            + (f"capacity below the smallest tried N = {upper:g}" if cap == 0 else
               f"capacity at least {cap} (every N tried fitted: censored from above)"
               if math.isinf(upper) else f"capacity in [{cap}, {upper:g})")
            + f", guarantee {guar}"
            for (shape, cap, upper, guar), g in groups) + ")"
    values = {"held": int(held.sum()), "short": int(short.sum()), "not_tested": int(open_.sum()),
              "zero_capacity": int((part["capacity"] == 0).sum())}
    if knows_cap:
        values["capped"] = int(capped.sum())
    if outside.any():
        values["outside_scope"] = int(outside.sum())
    trivial = held & (part["guarantee"] <= 1)
    if trivial.any():
        values["trivial"] = int(trivial.sum())
        text += (f"; {int(trivial.sum())} of the runs that hold have a guarantee of 1, which "
                 "any run that fits one example meets, so they test nothing")
    if not ((held & ~trivial).any() or short.any() or capped.any()):
        raise NotComputable(f"{text}: no run tested a guarantee above 1")
    judged_short = short & ~outside
    # a shortfall at the step cap cannot refute an existence theorem (more steps might fit the
    # N), nor can it show the guarantee reached: within the scope it leaves the row not decided;
    # a run not tested is no sign of a shortfall: a plain trend
    unsettled = capped & ~outside
    status = "differs" if judged_short.any() else "trend" if (open_ | short | capped).any() \
        else "reproduced"
    if status == "trend" and unsettled.any():
        values["decided"] = False
    if outside.any():
        text += (f"; {int(outside.sum())} runs have d > V = {V} ({_runs(part[outside])}): the "
                 f"last token takes at most V values, fewer than the d distinct last tokens on "
                 "which the proof's construction reaches H d_h + d, so these runs lie outside "
                 "the theorem's scope here"
                 + (f" and their {int(((short | capped) & outside).sum())} shortfalls are not "
                    "judged (at most trend)" if ((short | capped) & outside).any() else ""))
    if arch == "mha":
        tried = int(part["smallest"].min())
        if tried > V:
            text += (f"; Theorem 1 assumes Assumption 1 (queries of Kruskal rank ≥ n = {n}), "
                     f"which fails on this task: the query is the last token, at most V = {V} "
                     f"distinct vectors, so at every tried N (≥ {tried} > V) two queries "
                     "coincide (Kruskal rank 1): the guarantee is a reference here, not the "
                     "theorem, so at most trend")
        else:
            text += (f"; at the smallest tried N = {tried} ≤ V = {V} the queries may be "
                     "distinct: Assumption 1 is not checked here, so at most trend")
        d_v, d_o = mha_value_sizes({"V": V, "n": n, "C": C}, part["shape"].tolist())
        text += "; " + _value_gap_words(d_v, d_o)
        values["d_v"], values["d_o"] = max(d_v), min(d_o)
        if status == "reproduced":
            status = "trend"
    return Verdict(status, text, values)


def own_shape_readings(table: pd.DataFrame, C: int, drawn: dict[int, float], V: int, *,
                       steps: int | None = None) -> pd.DataFrame:
    """The trained AoT runs at the theorem's own shape (ours): per budget, the shapes of
    ``table`` with ``d ≤ V`` whose ``H d_h + d`` (Dana et al. Thm 1) equals the guarantee
    ``drawn[budget]`` (the best over the theorem's shapes within the budget, as the chapter's
    table and figures draw it), one row per seed with its search bracket ``[capacity, upper)``
    (:func:`capacity_brackets`), the ``guarantee`` and its ``reading`` as the *Dana et al. Thm 1
    vs training* row reads it (:func:`guarantee_reading`; with ``steps`` and a ``steps_run``
    column, a shortfall whose failed tries at or below the guarantee all ran to the step cap
    reads ``"not fitted within the step cap"``, as the row counts it). Budgets with no such
    shape have no row."""
    caps = capacity_brackets(table, C)
    part = caps[caps["architecture"] == "aot"].copy()
    own = []
    for shape, budget in zip(part["shape"], part["budget"], strict=True):
        s = shape_params(shape)
        guarantee = drawn.get(int(budget), math.nan)
        own.append(s["d"] <= V and not math.isnan(guarantee)
                   and bounds.dana_capacity(s["H"], s["d_h"], s["d"]) == guarantee)
    part = part[np.array(own, dtype=bool)].copy()
    part["guarantee"] = [float(drawn[int(b)]) for b in part["budget"]]
    part["reading"] = [guarantee_reading(c, u, g) for c, u, g in
                       zip(part["capacity"], part["upper"], part["guarantee"], strict=True)]
    short = part["reading"] == "falls short"
    if steps is not None and "steps_run" in table and short.any():
        found = _capped_runs(table, part[short], int(steps))
        keys = ["architecture", "budget", "shape", "seed"]
        at = part[keys].apply(tuple, axis=1)
        capped = short & at.map(lambda k: bool(k in found.index and found.loc[k, "at_cap"]))
        part.loc[capped, "reading"] = "not fitted within the step cap"
    columns = ["budget", "shape", "seed", "capacity", "upper", "guarantee", "reading"]
    return part.sort_values(["budget", "shape", "seed"])[columns].reset_index(drop=True)


def _tried_below_floor(table: pd.DataFrame, C: int) -> str:
    """Where no ``N`` the search tried reaches the 32 bits per parameter of the information
    ceiling on N, the words saying so: such a search cannot pass the ceiling, so the row checks
    the bit accounting (a sanity check that holds by construction,
    :func:`floor_row_verdict`), not what training can store; empty otherwise."""
    per_parameter = table["N"].to_numpy(float) * math.log2(C) / table["parameters"].to_numpy(
        float)
    if not len(per_parameter) or per_parameter.max() >= 32.0:
        return ""
    top = table.iloc[int(np.argmax(per_parameter))]
    return (f"the most any tried N asks is {per_parameter.max():.3g} bits per parameter "
            f"({exp.SHORT[top['architecture']]}, N = {int(top['N'])} at P = "
            f"{int(top['parameters'])}), below the 32 of the information ceiling on N: no "
            "tried N could pass the ceiling, so this row checks our bit accounting (a sanity "
            "check), not training")


def floor_verdict(table: pd.DataFrame, C: int) -> Verdict:
    """Every trained capacity obeys the information ceiling on N, ``N log2 C <= 32 P``
    (float32; a counting bound of ours, cf. our reading of Kajitsuka & Sato's Remark 4.4, whose
    title only is in our sources). A capacity censored from above (``censored`` of
    :func:`exp.capacity_table`: every N tried fitted) is a lower bound: above the ceiling it is
    a violation all the same, within it the ceiling is not tested there, and the verdict is at most
    ``trend`` (the runs named). The check alone: the row, and the chapter, print
    :func:`floor_row_verdict`."""
    caps, _ = _caps(table, C)
    bits = caps["capacity"].to_numpy(float) * math.log2(C)
    bound = 32.0 * caps["parameters"].to_numpy(float)
    verdict = criteria.bound_holds(bits, bound, kind="upper")
    untested = caps[caps["censored"].to_numpy(bool) & (bits <= bound)]
    if untested.empty:
        return verdict
    named = "; ".join(f"{exp.SHORT[r.architecture]} P={r.budget} {r.shape} (seed {r.seed}): "
                      f"at least {r.capacity}" for r in untested.itertuples())
    measured = (f"{verdict.measured}; not tested at {len(untested)} runs whose capacity is "
                f"censored from above (every N tried fitted, so only a lower bound within the "
                f"ceiling is known: {named})")
    status = "trend" if verdict.status == "reproduced" else verdict.status
    return Verdict(status, measured, {**verdict.values, "not_tested": len(untested)})


def floor_row_verdict(table: pd.DataFrame, C: int) -> Verdict:
    """The :data:`FLOOR_ROW` row's verdict, which the chapter prints too
    (:func:`training_checks`): :func:`floor_verdict`, and where no ``N`` the search tried
    reaches the ceiling (:func:`_tried_below_floor`) a check that cannot fail, since a capacity
    is an ``N`` tried: at most ``trend``, as a check that holds by construction
    (:data:`memnb.scorecard.render.BY_CONSTRUCTION`, by :func:`with_reason`), its measured text
    saying so whatever the status (a ``trend`` of :func:`floor_verdict`'s own too)."""
    verdict = floor_verdict(table, C)
    why = _tried_below_floor(table, C)
    if not why:
        return verdict
    return with_reason(verdict, f"{BY_CONSTRUCTION}; {why}")


#: Largest |exponent - 1| called linear, and largest half-width of the exponent's interval that
#: can tell linear growth apart (ours). With both bounds the interval lies inside 1 ± 0.4, which
#: excludes the √P growth (exponent ½) of the sublinear constructions.
LINEAR_TOLERANCE = 0.2


def _slope_range(x: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[float, float]:
    """The smallest and largest least-squares slope of ``y`` on ``x`` over every ``y`` with
    ``low <= y <= high`` (elementwise). The slope is linear in ``y``, so its extremes lie at
    corners of the box: the upper ends where ``x`` is below its mean for the smallest slope,
    the lower ends there for the largest."""
    dev = x - x.mean()
    sxx = float((dev**2).sum())
    with np.errstate(invalid="ignore"):  # 0 · inf where x equals its mean: that y has no weight
        least = np.where(dev < 0, dev * high, dev * low)
        most = np.where(dev < 0, dev * low, dev * high)
    least[dev == 0] = 0.0
    most[dev == 0] = 0.0
    return float(least.sum() / sxx), float(most.sum() / sxx)


def _bounding_failures(table: pd.DataFrame, brackets: pd.DataFrame, arch: str,
                       runs: pd.DataFrame, steps: int) -> pd.DataFrame:
    """Per run (seed) of ``arch`` at the ``(budget, shape)`` rows of ``runs``: its failed try
    that bounds its capacity from above (the try at ``upper`` of :func:`capacity_brackets`;
    none when every tried N fitted) and ``at_cap``, whether it stopped at the step cap
    ``steps`` (training stops early only at 100 %, so such a try did not reach that ``N``
    within the step budget, which does not show it unfittable). Columns: budget, shape, seed,
    capacity, upper, at_cap."""
    keys = ["architecture", "budget", "shape", "seed"]
    pairs = set(zip(runs["budget"], runs["shape"], strict=True))
    chosen = np.array([(b, s) in pairs for b, s in zip(brackets["budget"], brackets["shape"],
                                                        strict=True)], dtype=bool)
    mine = brackets[(brackets["architecture"] == arch).to_numpy() & chosen]
    tries = table.merge(mine[keys + ["upper"]], on=keys)
    bounding = tries[(tries["N"] == tries["upper"]) & (tries["accuracy"] < 1.0)]
    at_cap = (bounding.groupby(keys)["steps_run"].max() >= steps).rename("at_cap")
    out = mine.join(at_cap, on=keys)
    out["at_cap"] = out["at_cap"].astype("boolean").fillna(False).astype(bool)
    return out[["budget", "shape", "seed", "capacity", "upper", "at_cap"]]


def linear_capacity_verdict(table: pd.DataFrame, C: int, arch: str, *,
                            steps: int | None = None) -> Verdict:
    """Capacity grows linearly with the budget for ``arch``: a log-log fit of the best shape's
    mean capacity against ``P``, over the budgets where it is positive (a budget where no tried
    N was memorized has no logarithm; it is named, not fitted).

    Each capacity is known only within its search bracket (:func:`capacity_brackets`: between
    the largest ``N`` fitted and the next tried ``N`` that failed), so the exponent's 95 %
    interval is widened to every exponent the brackets allow (the smallest and largest
    least-squares exponent of any capacities within them): a capacity that doubles from budget
    to budget because the first tried ``N`` doubles gives exponent 1 with no spread, while the
    true capacities may lie anywhere below the next tried ``N``.

    NotComputable with fewer than three such budgets (no interval), or when a bracket open
    above (every tried ``N`` fitted) leaves the exponent unbounded below. ``reproduced`` when
    |exponent − 1| ≤ :data:`LINEAR_TOLERANCE` and the widened interval's half-width is ≤
    :data:`LINEAR_TOLERANCE`; ``trend`` when linear growth is not excluded (the widened interval
    reaches the band 1 ± :data:`LINEAR_TOLERANCE` of exponents the rule calls linear) but the
    rule above is not met (the interval too wide to tell, or the exponent off by more than the
    tolerance), always marked not decided (``decided`` False, :func:`status_words`): such an
    interval holds exponents within the band and exponents beyond it, so the measurement admits
    both outcomes, which the scorecard's legend counts as a trend not decided (the text also
    says when growth is not shown at all: exponent ≤ ½ or the widened interval reaching 0);
    ``differs`` when the widened interval misses the band (e.g. a capacity growing faster than
    linearly over these budgets, which is not the linear shape the row claims).

    The capacity judged is the one reached within the profile's step budget (``steps``): a failed
    try that bounds a capacity from above ran to that cap wherever training did not reach 100 %
    (it stops early only there), so it bounds what the budget reaches, not what longer training
    could. The measured text counts the bounding failures that stopped at the cap (``steps_run``
    in ``table``; :func:`_bounding_failures`), so that a ``differs`` says how much of it a
    longer budget could move; without ``steps`` or that column it says this is not known.
    """
    _, best = _caps(table, C)
    brackets = capacity_brackets(table, C)
    upper = brackets.groupby(["architecture", "budget", "shape"])["upper"].mean()
    mine = best[best["architecture"] == arch].sort_values("parameters")
    mine = mine.assign(upper=[float(upper[(arch, b, s)]) for b, s in
                              zip(mine["budget"], mine["shape"], strict=True)])
    part = mine[mine["capacity"] > 0]
    left = mine[mine["capacity"] <= 0]
    named = ("; left out of the fit, a capacity below the smallest N tried (no tried N "
             "memorized; not resolved): " + ", ".join(f"P={int(p)}" for p in left["parameters"])
             ) if len(left) else ""
    fitted = ", ".join(f"P={int(p)}: " + (f"≥ {c:g} (a seed fitted every N tried)"
                                            if math.isinf(u) else f"[{c:g}, {u:g})")
                       for p, c, u in zip(part["parameters"], part["capacity"], part["upper"],
                                          strict=True))
    if len(part) < 3:
        raise NotComputable(f"{exp.SHORT[arch]}: {counted(len(part), 'budget')} with a "
                            f"positive capacity ({fitted or 'none'}{named}), fewer than the three "
                            "a 95 % interval on the exponent needs")
    v = criteria.fitted_exponent(part["parameters"], part["capacity"], 1.0)
    slope, low, high = v.values["exponent"], v.values["low"], v.values["high"]
    x = np.log(part["parameters"].to_numpy(float))
    least, most = _slope_range(x, np.log(part["capacity"].to_numpy(float)),
                               np.log(part["upper"].to_numpy(float)))
    if not math.isfinite(least):
        raise NotComputable(f"{exp.SHORT[arch]}: exponent {slope:.3g} on {fitted}{named}, but a "
                            "capacity "
                            "is not bracketed above (every tried N fitted), so the exponent is "
                            "not bounded below")
    wide_low, wide_high = min(low, least), max(high, most)
    half = (wide_high - wide_low) / 2
    off = abs(slope - 1)
    measured = (f"exponent {slope:.3g} (95 % CI {low:.3g} to {high:.3g}) on the largest N fitted "
                f"at {len(part)} budgets ({fitted}: each the mean over seeds of the search "
                f"bracket from the largest N fitted to the next tried N, which failed); any "
                f"capacities within these search brackets "
                f"give exponents {least:.3g} to {most:.3g}, so the widened interval is "
                f"{wide_low:.3g} to {wide_high:.3g}{named}")
    measured += (f"; |exponent − 1| = {off:.2f} {'≤' if off <= LINEAR_TOLERANCE else '>'} "
                 f"{LINEAR_TOLERANCE:g} and widened half-width {half:.2f} "
                 f"{'≤' if half <= LINEAR_TOLERANCE else '>'} {LINEAR_TOLERANCE:g}")
    # the band of exponents the rule calls linear: an interval reaching it does not exclude
    # linear growth, one missing it does
    linear_possible = wide_low <= 1.0 + LINEAR_TOLERANCE and wide_high >= 1.0 - LINEAR_TOLERANCE
    grows = slope > 0.5 and wide_low > 0
    within = off <= LINEAR_TOLERANCE and half <= LINEAR_TOLERANCE  # the row's rule
    values = {**v.values, "half_width": half, "bracket_low": least, "bracket_high": most,
              "wide_low": wide_low, "wide_high": wide_high, "within_tolerance": within,
              "left_out": [int(p) for p in left["parameters"]]}
    if within:
        return Verdict("reproduced", measured, values)
    # an interval that reaches the band but does not meet the rule admits both outcomes (linear
    # growth and growth off by more than the tolerance): a measurement that does not decide,
    # a trend by the scorecard's legend, said as such
    status = "trend" if linear_possible else "differs"
    if linear_possible:
        values["decided"] = False
    if not linear_possible:
        measured += (f"; the widened interval misses the band 1 ± {LINEAR_TOLERANCE:g}: the "
                     f"capacity grows {'faster' if wide_low > 1 else 'slower'} than linearly "
                     "here")
    if not grows:
        why = ([f"exponent {slope:.3g} ≤ ½"] if slope <= 0.5 else []) + (
            [f"the widened interval reaches {wide_low:.3g} ≤ 0"] if wide_low <= 0 else [])
        measured += f"; growth not shown: {' and '.join(why)}"
    if linear_possible:
        # an interval that excludes 1 itself but reaches the band: said as the chapter's
        # sentence says it (_linear_words), so that the two cannot read as contradicting
        reaches = ("contains 1, so linear growth is not excluded" if wide_low <= 1.0 <= wide_high
                   else f"reaches the rule's tolerance band 1 ± {LINEAR_TOLERANCE:g} although "
                        f"it excludes 1 itself ({_off_linear(wide_low)} than exactly linear "
                        "here), so growth within the rule's tolerance of linear is not excluded")
        measured = (f"not decided: the widened interval {reaches}, "
                    + ("and growth is not shown either" if not grows else
                       f"and it also holds exponents more than {LINEAR_TOLERANCE:g} from 1, so "
                       "linear growth is not shown")
                    + "; " + measured)
    if steps is None or "steps_run" not in table:
        measured += ("; whether the failed tries that bound these capacities ran to a step cap "
                     "is not known here (no step cap or no steps_run column)")
        return Verdict(status, measured, values)
    bounds_ = _bounding_failures(table, brackets, arch, part, int(steps))
    failed = bounds_[np.isfinite(bounds_["upper"])]
    at_cap = int(failed["at_cap"].sum())
    values |= {"bounding_failures": len(failed), "bounding_at_cap": at_cap}
    measured += (f"; the capacities are those reached within the profile's {int(steps):,}-step "
                 f"budget: {at_cap} of the {len(failed)} failed tries that bound them stopped at "
                 "that cap (training stops early only at 100 %)"
                 + (", so a longer budget could move them" if at_cap else ""))
    return Verdict(status, measured, values)


def linear_capacity_checks(table: pd.DataFrame, params: dict) -> list[tuple[str, Verdict]]:
    """The chapter's four *Capacity vs budget* rows, one per architecture of
    :data:`exp.ARCHITECTURES`, each :func:`linear_capacity_verdict` computed on ``table`` with
    the step cap of ``params`` (:func:`exp.get_params`), as ``(architecture, verdict)``; a check
    that cannot be computed is a ``not computable`` verdict (:func:`checked`). Not capped for
    scale: see :func:`scaled`."""
    return [(arch, checked(lambda a=arch: linear_capacity_verdict(table, params["C"], a,
                                                                  steps=params["steps"])))
            for arch in exp.ARCHITECTURES]


def _off_linear(low: float) -> str:
    """``"faster"`` or ``"slower"``: how a widened interval that excludes 1 (its lower end
    ``low`` above 1, else its upper end below it) reads against linear growth."""
    return "faster" if low > 1 else "slower"


def _linear_words(arch: str, verdict: Verdict) -> str:
    """One architecture's part of :func:`linear_capacity_sentence`."""
    name, status = exp.SHORT[arch], status_words(verdict)
    v = verdict.values
    if "exponent" not in v or "wide_low" not in v:
        return f"{name} **{status}** (no exponent: {verdict.measured})"
    low, high = v["wide_low"], v["wide_high"]
    band = (1.0 - LINEAR_TOLERANCE, 1.0 + LINEAR_TOLERANCE)
    if verdict.status == "differs" and (low > band[1] or high < band[0]):
        reads = (f"misses the band 1 ± {LINEAR_TOLERANCE:g}: {'faster' if low > 1 else 'slower'} "
                 "than linear here")
    elif low > 1 or high < 1:
        reads = f"excludes 1 itself: {_off_linear(low)} than exactly linear here"
        if v.get("within_tolerance"):
            # the row's rule is met (reproduced, unless capped for scale): say so
            reads += (f", but within the tolerance of {LINEAR_TOLERANCE:g} (|exponent − 1| and "
                      f"the widened half-width)")
        elif v.get("decided") is False:
            # the row's words (linear_capacity_verdict): the interval reaches the rule's band
            reads += (f", although it reaches the rule's tolerance band 1 ± "
                      f"{LINEAR_TOLERANCE:g}: too wide to decide")
    elif verdict.status == "reproduced":
        reads = "linear"
    else:
        reads = "contains 1, too wide to decide" if v.get("decided") is False else "contains 1"
        # (every trend of this rule is not decided; a bare "contains 1" is a reproduced capped
        # for scale)
    return (f"{name} **{status}**, exponent {v['exponent']:.3g} (widened interval {low:.3g} "
            f"to {high:.3g}, which {reads})")


def linear_capacity_sentence(table: pd.DataFrame, params: dict, profile: str) -> str:
    """One sentence of the chapter on the four *Capacity vs budget* rows, computed on the
    ``table`` of ``profile`` (:func:`linear_capacity_checks`, capped by :func:`scaled` as the
    chapter's other verdicts): per architecture its status (:func:`status_words`), its
    exponent and widened interval, whether that interval contains 1 (linear growth), and how
    many of the failed tries that bound the capacities stopped at the step cap."""
    checks = [(a, scaled(v, profile)) for a, v in linear_capacity_checks(table, params)]
    parts = [_linear_words(a, v) for a, v in checks]
    failed = sum(int(v.values.get("bounding_failures", 0)) for _, v in checks)
    at_cap = sum(int(v.values.get("bounding_at_cap", 0)) for _, v in checks)
    tries = "failed try that bounds" if failed == 1 else "failed tries that bound"
    share = (("the one" if failed == 1 else f"all {failed}") if at_cap == failed
             else f"{at_cap} of the {failed}")
    so = ("" if not at_cap else ", so each capacity is what this step budget reaches"
          if at_cap == failed else ", so the capacities those tries bound are what this step "
          "budget reaches")
    cap = (f"; {share} {tries} these capacities stopped at the "
           f"{int(params['steps']):,}-step cap{so}" if failed else "")
    return ("How capacity grows with the budget (the four *Capacity vs budget* rows of the "
            "scorecard, on this page's run: a log-log fit of the best shape's mean capacity "
            "against P, its 95 % interval widened to the search brackets, and linear growth "
            f"is exponent 1, the rule allowing {LINEAR_TOLERANCE:g} either side): "
            + "; ".join(parts) + cap + ".")


#: How far a trained shape's parameter count may lie from its budget, as a fraction of the
#: budget: the default of :func:`exp.shapes_for_budget`, with which the experiment plans the
#: shapes. A tried N that asks an anchor's bits per parameter of its budget asks up to
#: ``1 / (1 - SHAPE_TOLERANCE)`` times as much per parameter of its shape (P as little as
#: ``(1 - SHAPE_TOLERANCE)`` times the budget), so :func:`anchor_reach` counts a budget's
#: search as reaching beyond an anchor only past that factor.
SHAPE_TOLERANCE: float = inspect.signature(exp.shapes_for_budget).parameters["tolerance"].default


def anchor_threshold() -> float:
    """The bits per parameter that a tried N must ask, at some budget, for the search there to
    reach beyond the smallest external anchor (:func:`anchor_reach`): that anchor over
    ``1 - SHAPE_TOLERANCE``, beyond what a try at the anchor itself can ask per parameter of a
    shape that lies below its budget."""
    return min(float(v) for v in external.anchors().values()) / (1.0 - SHAPE_TOLERANCE)


def anchor_reach(table: pd.DataFrame, C: int) -> pd.DataFrame:
    """Per budget of a ``compare.capacity`` table, the capacity search's reach: ``reach``, the
    most bits per parameter any tried ``N`` asks there, ``N · log2 C / P`` with ``P`` the try's
    parameter count (the accounting of the chapter's bits per parameter at capacity), over
    every architecture, shape and seed; a capacity, a tried ``N`` that fitted, lies no higher.
    ``beyond``: whether the reach passes :func:`anchor_threshold`, so that a capacity above the
    smallest anchor could have been found there. Sorted by budget."""
    per = table["N"].to_numpy(float) * math.log2(C) / table["parameters"].to_numpy(float)
    reach = pd.Series(per, index=table.index).groupby(table["budget"]).max().sort_index()
    return pd.DataFrame({"budget": reach.index.astype(int), "reach": reach.to_numpy(float),
                         "beyond": reach.to_numpy(float) > anchor_threshold()})


def reach_words(reach: pd.DataFrame) -> str:
    """The search's reach of :func:`anchor_reach` in words: per budget, the most bits per
    parameter a tried N asks, and at how many budgets that passes the smallest anchor by the
    margin of :func:`anchor_threshold`."""
    low = min(float(v) for v in external.anchors().values())
    per = ", ".join(f"P={b}: {r:.2f}" for b, r in zip(reach["budget"], reach["reach"],
                                                        strict=True))
    return (f"the search's reach, the most bits per parameter any tried N asks (N · log2 C / P, "
            f"over every architecture, shape and seed), is {per}; it passes the smallest anchor, "
            f"{low:g}, at {int(reach['beyond'].sum())} of {len(reach)} budgets (passing means "
            f"above {low:g} / (1 − {SHAPE_TOLERANCE * 100:g} %) = {anchor_threshold():.3g}: a "
            f"shape's P may lie {SHAPE_TOLERANCE * 100:g} % below its budget, so a try at "
            f"{low:g} bits per parameter of the budget asks up to that much per parameter)")


def anchors_verdict(table: pd.DataFrame, C: int) -> Verdict:
    """Our exact-fit bits per parameter against the external anchors: ``reproduced`` when every
    best-shape mean lies below the smallest anchor (they also count partial information) and
    the capacity search could have found one above it at every budget. A mean that is a lower
    bound (:func:`at_least`: some seed fitted every N tried) at or above the anchor is a
    ``differs`` all the same; below it, the comparison is not tested there, and the verdict is
    at most ``trend`` (the best shapes named).

    A capacity is a tried ``N`` that fitted, so it lies no higher than the search's reach
    (:func:`anchor_reach`): at a budget whose reach does not pass the smallest anchor (by the
    margin of :func:`anchor_threshold`), no capacity above the anchor could have been found,
    and the anchor is not tested there (at most ``trend``, those budgets named). Where the
    reach passes it at no more than half of the budgets, the row cannot decide the claim: a
    ``trend`` not decided (``decided`` False), its measured text saying why first. A
    ``differs`` stands whatever the reach."""
    _, best = _caps(table, C)
    low = min(float(v) for v in external.anchors().values())
    top = float(best["bits"].max())
    bound = at_least(best)
    anchors = ", ".join(f"{external.NAMES[k]} {float(v):g}"
                        for k, v in external.anchors().items())
    status = "reproduced" if top < low else "differs"
    largest = "≥ " if bool(bound[best["bits"] == top].any()) else ""
    measured = f"largest mean of ours {largest}{top:.2f} bits/parameter; anchors {anchors}"
    untested = best[bound & (best["bits"] < low)]
    if len(untested):
        measured += ("; not tested where a mean is only a lower bound below the smallest anchor "
                     "(a seed fitted every N tried, its capacity censored from above): "
                     + "; ".join(f"{exp.SHORT[r.architecture]} P={r.budget}: ≥ {r.bits:.2f}"
                                 for r in untested.itertuples()))
        if status == "reproduced":
            status = "trend"
    reach = anchor_reach(table, C)
    beyond, budgets = int(reach["beyond"].sum()), len(reach)
    measured += "; " + reach_words(reach)
    values: dict[str, Any] = {"ours_max": top, "not_tested": len(untested),
                              "reach": float(reach["reach"].max()), "beyond_anchor": beyond,
                              "budgets": budgets}
    if status == "differs":
        return Verdict(status, measured, values)
    short = reach[~reach["beyond"]]
    if len(short):
        status = "trend"
        if beyond:
            measured += ("; not tested at " + ", ".join(f"P={b}" for b in short["budget"])
                         + ": no tried N there passes the smallest anchor, so no capacity "
                           "above it could have been found there")
    if beyond <= budgets / 2:
        values["decided"] = False
        where = ("at no budget could a capacity above it have been found" if not beyond else
                 "at most budgets no capacity above it could have been found")
        measured = (f"not decided: the search's tries pass the smallest anchor at {beyond} of "
                    f"{budgets} budgets, not more than half, so {where}; a search whose tries "
                    f"reach further could decide it; {measured}")
    return Verdict(status, measured, values)


def built_construction_parameters(N: int, task: dict[str, int],
                                  seed: int = 0) -> tuple[int, bool]:
    """Our Kajitsuka & Sato construction (:func:`memnb.constructions.seq_id.memorize`) built for
    the first ``N`` sequences of the task's draw, as :func:`memnb.experiments.compare.
    constructions_at_budgets` builds it: its parameter count, and whether it recovers every
    label."""
    from memnb.constructions.seq_id import memorize

    C = task["C"]
    tokens, labels = exp.task_data(N, {**task, "N_max": max(N, 64)}, seed)
    net = memorize(tokens, labels, num_classes=C, positional=True, seed=seed)
    return int(net.num_parameters), bool(np.array_equal(net.predict(tokens), labels))


def construction_cost_verdict(table: pd.DataFrame, C: int, task: dict[str, int]) -> Verdict:
    """At each budget P: the largest N that any trained run (architecture, shape, seed)
    memorized, and the parameters of our Kajitsuka & Sato construction *built* for that N on the
    task's data (:func:`built_construction_parameters`, the count the chapter's table of built
    constructions shows; the closed form of :func:`memnb.bounds.
    kajitsuka_construction_parameter_model` is only a model of it), over P. ``reproduced`` when
    the construction needs more than P at every budget (the Õ(√N) construction pays in constants
    at these sizes); a build that misses a label is named."""
    caps, _ = _caps(table, C)
    top = caps.groupby("budget")["capacity"].max()
    # a run that fitted every N tried (censored from above) holds at least its largest N: the
    # row compares that N, which training did memorize, and says the capacity may be larger
    censored = caps[caps["censored"]].groupby("budget")["capacity"].max()
    found = []
    for budget, cap in top.items():
        if cap >= 1:
            need, ok = built_construction_parameters(int(cap), {**task, "C": C})
            found.append((int(budget), int(cap), need, need / budget, ok,
                          bool(censored.get(budget, 0) >= cap)))
    if not found:
        raise NotComputable("no budget with a positive trained capacity")
    ratios = [r[3] for r in found]
    status = "reproduced" if min(ratios) > 1 else "differs"
    each = "; ".join(f"P={b}: N={c}" + (" (the capacity at least this: every N tried fitted)"
                                        if low else "")
                     + f", construction {need:,} parameters ({ratio:.3g}×)"
                     + ("" if ok else ", a build that misses a label")
                     for b, c, need, ratio, ok, low in found)
    return Verdict(status, f"parameters of our construction built (n = {task['n']}, C = {C}, "
                   f"V = {task['V']}) for the largest N a trained run memorized at each budget, "
                   f"over the budget: {each}; {min(ratios):.3g}× to {max(ratios):.3g}× over "
                   f"{len(found)} budgets", {"min_ratio": min(ratios)})


def training_checks(table: pd.DataFrame, params: dict) -> list[tuple[str, Verdict]]:
    """The chapter's four checks of the statements against training (the rows *Dana et al. Thm 1
    vs training*, *Mahdavi et al. Thm 1 vs training*, :data:`FLOOR_ROW` and *Kajitsuka & Sato
    construction vs training*), each computed on ``table`` with the arguments its row uses
    (``params``: the profile's parameters, :func:`exp.get_params`, whose ``steps`` is the step
    cap of the guarantee rows), as ``(row, verdict)``; a check that cannot be computed is a
    ``not computable`` verdict (:func:`checked`). Not capped for scale: see :func:`scaled`."""
    C, n, V, steps = params["C"], params["n"], params["V"], params["steps"]

    def guarantee(arch: str) -> Verdict:
        return checked(lambda: guarantee_verdict(table, C, arch, n, V, steps=steps))

    return [("Dana et al. Thm 1 vs training", guarantee("aot")),
            ("Mahdavi et al. Thm 1 vs training", guarantee("mha")),
            (FLOOR_ROW, checked(floor_row_verdict, table, C)),
            ("Kajitsuka & Sato construction vs training",
             checked(construction_cost_verdict, table, C, params))]


def step_cap_text(table: pd.DataFrame, steps: int) -> str:
    """How training ended in a ``compare.capacity`` table, in words: the step cap ``steps`` of
    its profile (training stops earlier only at 100 % training accuracy) and how many tries
    ended at that cap without fitting, or that the table does not record it."""
    if "steps_run" not in table:
        return (f"each try is trained for at most {steps:,} full-batch steps, stopping earlier "
                "only at 100 % training accuracy (this table does not record where each stopped)")
    capped = int(((table["steps_run"] >= steps) & (table["accuracy"] < 1.0)).sum())
    return (f"each try is trained for at most {steps:,} full-batch steps, stopping earlier only "
            f"at 100 % training accuracy: {capped} of {len(table)} tries ended at that cap "
            "without fitting their training set, so a capacity here is what this step budget "
            "reaches, not a converged value")


def step_cap_counts(table: pd.DataFrame, steps: int, C: int,
                    best: pd.DataFrame | None = None) -> dict[str, int] | None:
    """How many tries of a ``compare.capacity`` table ended at the step cap ``steps`` of its
    profile (ours; the review's finding 3: the head-to-head ranking depends on the cap):
    ``tries``, ``at_cap`` (every try whose ``steps_run`` reached the cap), ``failed`` (tries
    that did not fit their training set) and ``failed_at_cap``; ``bounding`` (per run, the try
    that bounds its capacity from above: the smallest tried N above it that failed, the upper
    end of :func:`capacity_brackets`) and ``bounding_at_cap``; with ``best``
    (:func:`censored_best`), ``best_bounding`` and ``best_bounding_at_cap``, the same for the
    runs of its shapes. None when the table does not record ``steps_run``."""
    if "steps_run" not in table:
        return None
    at_cap = table["steps_run"] >= steps
    failed = table["accuracy"] < 1.0
    keys = ["architecture", "budget", "shape", "seed"]
    brackets = capacity_brackets(table, C)
    bounded = brackets[np.isfinite(brackets["upper"].astype(float))]
    bounding = table.merge(bounded[keys + ["upper"]], on=keys)
    bounding = bounding[bounding["N"] == bounding["upper"]]
    out = {"tries": len(table), "at_cap": int(at_cap.sum()), "failed": int(failed.sum()),
           "failed_at_cap": int((at_cap & failed).sum()), "bounding": len(bounding),
           "bounding_at_cap": int((bounding["steps_run"] >= steps).sum())}
    if best is not None:
        mine = bounding.merge(best[["architecture", "budget", "shape"]].drop_duplicates(),
                              on=["architecture", "budget", "shape"])
        out["best_bounding"] = len(mine)
        out["best_bounding_at_cap"] = int((mine["steps_run"] >= steps).sum())
    return out


def _reduced(profile: str) -> str:
    return f"`{profile}` run at reduced size, not the chapter's `full` profile"


def scaled(verdict: Verdict, profile: str, partial: str | None = None) -> Verdict:
    """``verdict`` capped as the rows cap it (:meth:`ResultSource.at_paper_scale`): a
    ``reproduced`` from a table of a ``quick`` or ``ci`` run, or of a partial ``full`` run,
    is a ``trend``; a ``not computable`` one (:func:`checked`) from such a table is ``not run``,
    as the rows say it (:func:`_judged`): the ``full`` run decides it. For the chapter's
    sentences, which judge the table of its ``profile``."""
    if verdict.status == "not computable" and (profile != "full" or partial is not None):
        return Verdict("not run", f"the `{profile}` run cannot decide it: {verdict.measured}; "
                       f"`memnb run {NAME} --profile full` computes the run that decides it",
                       verdict.values)
    return criteria.at_paper_scale(verdict, profile, partial, reduced=_reduced(profile),
                                   incomplete=f"{NAME}: {partial}")


def checked(fn: object, *args: object) -> Verdict:
    """``fn(*args)``, or a ``not computable`` verdict saying why (for the chapter's sentences,
    which must print something even when a run holds too little to judge)."""
    try:
        return fn(*args)  # type: ignore[operator]
    except NotComputable as why:
        return Verdict("not computable", str(why))


def item_text(number: str) -> tuple[str, str]:
    """The claim and the criterion of this chapter's scorecard row ``number`` (e.g. ``"Head to
    head"``), as the row states them."""
    from memnb.scorecard.core import load_items

    for it in load_items([P]):
        if it.item == number:
            return it.claim, it.criterion
    raise KeyError(f"no scorecard row {number!r} in the cross-paper chapter")


#: The line that opens a verdict's details in this chapter (:func:`verdict_markdown`).
VERDICT_SUMMARY = "What was measured, and the criterion"


def verdict_markdown(number: str, verdict: Verdict) -> str:
    """One Markdown sentence of the chapter: the row ``number``'s claim and the status
    ``verdict`` gives it (:func:`status_words`: "trend (not decided)" where it is so), then,
    as its details (:func:`memnb.viz.with_details`, folded under :data:`VERDICT_SUMMARY` when
    shown with :func:`memnb.viz.markdown`), what was measured and
    the criterion that judged it, so that no status is shown without the claim and the rule
    behind it."""
    claim, criterion = item_text(number)
    return viz.with_details(f"*{number}* (ours), the claim that {claim}: "
                            f"**{status_words(verdict)}**.",
                            f"Measured: {verdict.measured}. Criterion: {criterion}.")


# ---------------------------------------------------------------------------------- items
def _table(results: ResultSource) -> tuple[pd.DataFrame, dict]:
    table = results.table(NAME)
    return table, _params(results)


def _scaled(results: ResultSource, verdict: Verdict) -> Verdict:
    """Every row of this chapter reads ``compare.capacity``: a ``quick`` (or partial ``full``)
    run can show a trend, not a reproduction, as for the papers' rows."""
    return results.at_paper_scale(NAME, verdict, _reduced(results.used_profile(NAME)))


def _judged(results: ResultSource, check: Callable[..., Verdict], *args: Any,
            **kwargs: Any) -> Verdict:
    """``check(*args, **kwargs)`` capped by :func:`_scaled`. A check that a run too small to
    decide it cannot compute (too few budgets with a positive capacity, no guarantee above 1
    tested: a limit of the data, not of the statement) makes the row ``not run``, naming what
    the run read holds and the command of the ``full`` run that decides it, while the run read
    is a reduced or partial one; only the complete ``full`` run leaves it ``not computable``."""
    try:
        verdict = check(*args, **kwargs)
    except NotComputable as why:
        if results.used_profile(NAME) == "full" and results.partial(NAME) is None:
            raise
        raise NotRun(NAME, "full", f"the `{results.used_profile(NAME)}` run cannot decide it: "
                     f"{why}", results.full_run_command(NAME)) from None
    return _scaled(results, verdict)


@item(P, "Head to head", ours=True, cost=_COST,
      claim="one architecture stores the most bits per parameter at every budget",
      criterion="the same architecture leads at every budget, a lead being a mean ahead of the "
                "runner-up's by more than their summed seed spreads and beyond the search "
                "brackets: the ratio of bits per parameter that the brackets [largest N fitted, "
                "next N tried) allow (means over seeds) starts at 1 or above, the leader's "
                "largest N fitted per parameter at or above the runner-up's next N tried per "
                "parameter, as the chapter's sentence per budget reads it (trend: one "
                "architecture leads at more than half of the budgets; a first place within the "
                "spread or within the brackets is no lead); a capacity where every N tried "
                "fitted is only a lower bound: a first "
                "place over such a bound is undecided, no lead; while the budgets without a "
                "lead (within the spread or the brackets, or undecided) could still give one "
                "architecture a "
                "lead at more than half of them, the verdict is trend (not decided), not "
                "differs"
                + _AT_MOST)
def head_to_head(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _judged(results, ranking_verdict, table, params["C"])


@item(P, "Dana et al. Thm 1 vs training", ours=True, cost=_COST,
      claim="trained AoTs memorize at least the H d_h + d associations the construction "
            "guarantees for their shape",
      criterion="trained capacity >= H d_h + d at every (shape, seed)" + _BRACKETED
                + "; a shape with d > V lies outside the proof's scope (the last token takes at "
                  "most V values, the construction needs d distinct ones): its shortfalls are "
                  "named, not judged, and cap the verdict at trend" + _AT_MOST)
def dana_guarantee(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _judged(results, guarantee_verdict, table, params["C"], "aot", params["n"],
                   params["V"], steps=params["steps"])


#: The value and read-out sizes of the attention layers the experiment trains, over its
#: profiles (:func:`planned_mha_value_sizes`), for the claim of the Mahdavi et al. row.
_MHA_D_V, _MHA_D_O = planned_mha_value_sizes()


@item(P, "Mahdavi et al. Thm 1 vs training", ours=True, cost=_COST,
      claim="trained attention layers memorize at least the H(min(n, d_h) - 1) + 1 examples "
            "[summary + reconstruction] (our notes rebuild Theorem 1's formula from "
            "summaries and the proof prose) that Theorem 1 guarantees under its Assumptions "
            "1-2, with d_v ≥ d_o for the construction as our notes reconstruct it (on this "
            "task Assumption 1 fails, and " + _value_gap_words(_MHA_D_V, _MHA_D_O)
            + "; these layers also have no read-out bias, so the reduction of the Mahdavi et "
              "al. chapter (ours), which carries the guarantee to C classes at d_v < d_o "
              "through a rank-one read-out with bias, does not apply to them: the guarantee "
              "is a reference)",
      criterion="trained capacity >= H(min(n, d_h) - 1) + 1 at every (shape, seed)" + _BRACKETED
                + "; at most trend while Assumption 1 fails (the query, the last token, takes at "
                  "most V distinct values, so at N > V two queries coincide) and while the "
                  "trained layers have d_v < d_o (outside the construction's d_v ≥ d_o, and "
                  "without the read-out bias that the Mahdavi et al. chapter's reduction at "
                  "d_v < d_o needs)"
                + _AT_MOST)
def mahdavi_guarantee(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _judged(results, guarantee_verdict, table, params["C"], "mha", params["n"],
                   params["V"], steps=params["steps"])


#: The name of the row of the information ceiling on N (the chapter's one name for the counting
#: bound N log2 C <= 32 P, a bound of ours; only the title of Kajitsuka & Sato's Remark 4.4,
#: "Optimality in terms of bit counts", is in our sources).
FLOOR_ROW = "Information ceiling on N vs training (cf. our reading of Remark 4.4)"


@item(P, FLOOR_ROW, ours=True, cost=_COST,
      claim="every trained capacity obeys the counting bound N log2 C ≤ 32 P (the information "
            "ceiling on N of the figures): above it, float32 weights (32 P bits, so at most "
            "2^(32 P) weight settings) cannot fit every one of the C^N labellings of N "
            "examples, at most a 2^(32 P − N log2 C) share of them; they fit a uniformly "
            "random one, as on this task, with probability at most "
            "2^(32 P − N log2 C) (a counting bound of "
            "ours, which bounds how many labellings the weights can fit, not whether one "
            "labelling can be fitted; cf. our reading of Kajitsuka & Sato's Remark 4.4, of "
            "which only the title is in our sources)",
      criterion="capacity · log2 C <= 32 P at every (shape, seed); a capacity where every N "
                "tried fitted is only a lower bound: above the ceiling it still fails, within "
                "it the ceiling is not tested there (at most trend); where no N the search "
                "tried reaches the ceiling, no capacity can pass it, so at most trend: "
                + BY_CONSTRUCTION + " (a sanity check of our bit accounting)"
                + _AT_MOST)
def floor(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _judged(results, floor_row_verdict, table, params["C"])


for _arch in exp.ARCHITECTURES:
    def _linear(results: ResultSource, arch: str = _arch) -> Verdict:
        table, params = _table(results)
        return _judged(results, linear_capacity_verdict, table, params["C"], arch,
                       steps=params["steps"])

    _linear.__qualname__ = f"linear_{_arch}"
    item(P, f"Capacity vs budget, {exp.SHORT[_arch]}", ours=True, cost=_COST,
         claim=f"the trained capacity of the {exp.LABELS[_arch]} (within the profile's step "
               "budget) grows linearly with its parameters",
         criterion=f"log-log fit of the best shape's mean capacity against P over the "
                   f"budgets with a positive capacity (the others named; fewer than three: "
                   f"no fit, `not run` until the complete `full` run), its 95 % interval "
                   f"widened to every exponent the search brackets allow (each capacity lies "
                   f"below the next tried N, which failed): "
                   f"|exponent − 1| ≤ {LINEAR_TOLERANCE:g} and widened half-width ≤ "
                   f"{LINEAR_TOLERANCE:g}; trend (not decided) when the widened interval "
                   f"reaches the rule's tolerance band 1 ± {LINEAR_TOLERANCE:g} (the exponents "
                   "the rule calls linear; the interval may exclude 1 itself) but the rule is "
                   "not met (the interval then holds both linear growth "
                   "and growth off by more than the tolerance); differs when it misses that "
                   "band (not linear growth); the "
                   "capacity is the one reached within the profile's step budget (a failed "
                   "try ran to the cap unless it fitted, so it bounds what the budget reaches, "
                   "not what longer training could; the measured text counts them); "
                   "`trend` at most from a reduced-size run")(_linear)


@item(P, "External anchors", ours=True, cost=_COST,
      claim="exact-fit capacity stays below the bits per parameter of Allen-Zhu & Li (2024) and "
            "Morris et al. (2025), which count partial information too (as we recall their "
            "definitions, [unverified])",
      criterion="largest best-shape mean bits/parameter < the smallest anchor; a mean where "
                "a seed fitted every N tried is only a lower bound: at or above the anchor it "
                "still fails, below it the anchor is not tested there (at most trend); a "
                "capacity is a tried N that fitted, so at a budget where no tried N asks more "
                "than the smallest anchor over (1 − "
                f"{SHAPE_TOLERANCE * 100:g} %) bits per parameter (N · log2 C / P; a shape's P "
                f"may lie {SHAPE_TOLERANCE * 100:g} % below its budget, so a try at the anchor's "
                "bits per parameter of the budget asks up to that) no capacity above it could "
                "have been found: the anchor is not tested there (at most trend); "
                "where the tries pass it at no more than half of the budgets, the row cannot "
                "decide the claim: trend (not decided)"
                + _AT_MOST)
def anchors(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _judged(results, anchors_verdict, table, params["C"])


@item(P, "Kajitsuka & Sato construction vs training", ours=True, cost=_COST,
      claim="at these sizes our Õ(√N) construction needs more parameters than the budget at "
            "which training memorizes the same N",
      criterion="the parameters of our construction built for the largest N a trained run "
                "memorized at a budget, over that budget, > 1 at every budget; `trend` at most "
                "from a reduced-size run")
def construction_cost(results: ResultSource) -> Verdict:
    table, params = _table(results)
    return _judged(results, construction_cost_verdict, table, params["C"], params)

