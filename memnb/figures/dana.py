"""Figures of the Dana, Pydi & Chevaleyre chapter (AISTATS 2025, Figs. 1-4).

Each function takes our tidy result table (and, when it exists, the cached full-scale table) and
draws it beside the paper's values (:mod:`memnb.papers.dana`, read from the official CSVs) and the
bounds of
Corollary 2: ``φ(H d_h + d)`` (this paper) and ``φ(H (d_h - 1) + 1)`` (the previous bound of
Mahdavi et al.), with ``φ(X) = 1/N + (1 - 1/N) X / T_0``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, MaxNLocator

from memnb import bounds, viz
from memnb.constructions.aot import memorize_with_report
from memnb.dana_reading import (
    ahead_words,
    all_contexts_gap,
    appendix_full_reading,
    appendix_spec,
    as_the_paper_reports,
    contexts_words,
    corollary2_points,
    exp5_level_sentence,
    exp5_order,
    full_run_exists,
    order_words,
    paper_setting,
    reaches_phi,
    same_budget,
    seeds_words,
)
from memnb.experiments import dana as exp
from memnb.papers import dana as paper
from memnb.prose import and_words, counted, number_word, percent_up
from memnb.scorecard.core import status_words
from memnb.scorecard.dana import (
    KL_ZERO,
    LEMMA2_REPEATED,
    PROP3_NS,
    RepeatedConstruction,
    convex_growth,
    lemma2_rank,
    margin_words,
    proposition3_check,
    repeated_token_attention_rank_bound,
    repeated_token_construction,
)
from memnb.scorecard.dana_theory import THM2_EPS

#: The y-axis label of the figures that draw the accuracy the paper reports: every table the
#: chapter draws went through :func:`as_the_paper_reports`, whose ``accuracy`` is then the
#: official code's mean over the last training batches (each context counted as often as it
#: was sampled), not an accuracy over all contexts (:func:`accuracy_label`).
_ACC = f"accuracy (mean of the last {exp.OFFICIAL_BATCH_WINDOW} training batches)"
#: The label of a figure whose tables predate that mean: the best checkpoint's accuracy.
_ACC_CHECKPOINT = "accuracy (best checkpoint, on the training sample)"


def _recorded(tables: tuple[pd.DataFrame | None, ...]) -> list[bool]:
    """For each drawn table of ``tables`` (None and empty skipped), whether it holds the
    official code's mean over the last batches (:func:`as_the_paper_reports` kept the
    checkpoint's beside it as ``accuracy_checkpoint``)."""
    return ["accuracy_checkpoint" in t for t in tables if t is not None and len(t)]


def accuracy_label(*tables: pd.DataFrame | None, short: bool = False) -> str:
    """The y-axis label of a figure that draws the ``accuracy`` column of ``tables`` (None
    skipped): :data:`_ACC` where every table holds the official code's mean over the last
    batches, :data:`_ACC_CHECKPOINT` where none does, both named otherwise. ``short``: a label
    no taller than a slider frame's axes (``"accuracy (last 100 batches)"``), whose caption
    then says the whole of it (:func:`accuracy_axis_sentence`)."""
    recorded = _recorded(tables)
    window = exp.OFFICIAL_BATCH_WINDOW
    if all(recorded):
        return f"accuracy (last {window} batches)" if short else _ACC
    if not any(recorded):
        return "accuracy (best checkpoint)" if short else _ACC_CHECKPOINT
    if short:
        return f"accuracy (last {window} batches or checkpoint)"
    return (f"accuracy (mean of the last {window} training batches; "
            "best checkpoint where not recorded)")


def accuracy_axis_sentence(*tables: pd.DataFrame | None) -> str:
    """What the short y-axis label of a slider frame (:func:`accuracy_label` with ``short``)
    stands for, as a sentence of its caption."""
    recorded = _recorded(tables)
    last = (f"the official code's mean accuracy over the last {exp.OFFICIAL_BATCH_WINDOW} "
            "training batches, taken while the model still trains, each context counted as "
            "often as it was sampled (the accuracy the paper reports)")
    best = "the best checkpoint's accuracy on the training sample"
    what = last if all(recorded) else best if not any(recorded) else \
        f"{last}; where a table did not record it, {best}"
    return f'The y-axis, "{accuracy_label(*tables, short=True)}", is {what}.'


def _phi(x: np.ndarray, n: int, t0: int) -> np.ndarray:
    return np.asarray(bounds.dana_accuracy_lower_bound(np.asarray(x, float), n, t0))


def _bounds(ax: Any, xs: np.ndarray, ours_x: np.ndarray, prev_x: np.ndarray, n: int,
            t0: int) -> None:
    viz.plot_bound(ax, (xs, _phi(ours_x, n, t0)), label="Cor. 2 bound φ(H·d_h + d)")
    viz.plot_bound(ax, (xs, _phi(prev_x, n, t0)), label="previous bound φ(H(d_h−1)+1)",
                   color="#999999")


def _select(table: pd.DataFrame | None, **equal: Any) -> pd.DataFrame | None:
    if table is None:
        return None
    mask = np.ones(len(table), dtype=bool)
    for column, value in equal.items():
        mask &= table[column].to_numpy() == value
    part = table[mask]
    return part if len(part) else None


def _paper_xy(table: pd.DataFrame, x: str) -> dict[float, float]:
    """A paper table as ``{x: accuracy}``."""
    return dict(zip(table[x].to_numpy(), table["accuracy"].to_numpy(), strict=True))


#: What the legends call a table that is the committed full run, read by the chapter in place
#: of a run of this build (:func:`memnb.experiments.dana.reused_full`); drawn as the run itself
#: (the book's conventions: the caption and the legend say which).
FULL_IN_PLACE = "the committed full run (read in place of a run of this build)"


def ours_label(what: str = "", read_in_place: bool = False) -> str:
    """The legend's name of one curve of ours: ``"ours"``, then what it is (``what``, e.g. a
    model) and, for the committed full run read in place of a run of this build,
    :data:`FULL_IN_PLACE` (the appendix figures' wording, :func:`_appendix_legend`), e.g.
    ``"ours: AoT, the committed full run (read in place of a run of this build)"``."""
    parts = [part for part in (what, FULL_IN_PLACE if read_in_place else "") if part]
    return "ours" + (": " + ", ".join(parts) if parts else "")


def exp1_figure(table: pd.DataFrame, cached: pd.DataFrame | None = None, *,
                read_in_place: bool = False) -> plt.Figure:
    """Accuracy vs H (Fig. 1a; every d = d_h of Experiment 1): small multiples, one panel per
    d, each with our runs, the paper's CSV at that d and Corollary 2's bounds; legend below.
    ``read_in_place``: ``table`` is the committed full run, read in place of a run of this
    build (:func:`memnb.experiments.dana.reused_full` of the chapter's run), and the legend says
    so."""
    own = ours_label(read_in_place=read_in_place)
    ds = sorted(int(d) for d in table["d"].unique())
    cols = min(len(ds), 4)
    rows = -(-len(ds) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols + 0.6, 2.2 * rows + 1.0),
                             sharex=True, sharey=True, layout="constrained", squeeze=False)
    n, t0 = int(table["N"].iloc[0]), int(table["T0"].iloc[0])
    official = paper.exp1() if n == 50 else None
    for ax, d in zip(axes.flat, ds, strict=False):
        part = table[table["d"] == d]
        viz.plot_ours(ax, part, "H", "accuracy", label=own)
        if cached is not None and d in set(cached["d"]):
            viz.plot_ours(ax, cached[cached["d"] == d], "H", "accuracy", role="ours_cached")
        if official is not None and d in set(official["d"]):
            viz.plot_paper(ax, official[official["d"] == d], "H", "accuracy",
                           label="paper (official CSV)")
        hs = np.sort(part["H"].unique())
        _bounds(ax, hs, hs * d + d, hs * (d - 1) + 1, n, t0)
        ax.set_title(f"d = d_h = {d}", fontsize=9)
    for k, ax in enumerate(axes.flat):
        if k >= len(ds):
            ax.set_visible(False)
        elif k + cols >= len(ds):  # the lowest panel of its column
            ax.xaxis.set_tick_params(labelbottom=True)
            ax.set_xlabel("number of heads H")
    # one label for the whole grid: a label per row is taller than a row and overprints
    fig.supylabel(accuracy_label(table, cached), fontsize=9)
    fig.suptitle(f"N = {n}, T0 = {t0}", fontsize=10)
    _legend_below(fig, axes)
    return fig


def exp2_figure(table: pd.DataFrame, cached: pd.DataFrame | None = None, *,
                read_in_place: bool = False) -> plt.Figure:
    """Accuracy vs d_h at d = 10, H = 20 (Fig. 1b) beside the paper's CSV. ``read_in_place``
    as in :func:`exp1_figure`."""
    fig, ax = plt.subplots(figsize=(6.0, 4.2), layout="constrained")
    official = paper.exp2() if paper_setting(table, N=50, d=10, H=20) else None
    own = ours_label(read_in_place=read_in_place)
    viz.compare_with_paper(ax, table, official, x="d_h", y="accuracy", cached=cached,
                           ours_label=own,
                           legend=False, xlabel="head dimension d_h",
                           ylabel=accuracy_label(table, cached),
                           paper_label="paper (official CSV)")
    n, t0 = int(table["N"].iloc[0]), int(table["T0"].iloc[0])
    h, d = int(table["H"].iloc[0]), int(table["d"].iloc[0])
    xs = np.arange(1, int(table["d_h"].max()) + 1)
    _bounds(ax, xs, h * xs + d, h * (xs - 1) + 1, n, t0)
    ax.set_title(f"N = {n}, d = {d}, H = {h}")
    _legend_below(fig, [ax])
    return fig


def exp3_figure(table: pd.DataFrame, cached: pd.DataFrame | None = None, *,
                read_in_place: bool = False) -> plt.Figure:
    """Accuracy vs d at H = 20, d_h = 10 (Fig. 2a) beside the paper's CSV (all 11 values).
    ``read_in_place`` as in :func:`exp1_figure`."""
    fig, ax = plt.subplots(figsize=(6.0, 4.2), layout="constrained")
    official = paper.exp3() if paper_setting(table, N=50, H=20, d_h=10) else None
    own = ours_label(read_in_place=read_in_place)
    viz.compare_with_paper(ax, table, official, x="d", y="accuracy", cached=cached,
                           ours_label=own,
                           legend=False, xlabel="embedding dimension d",
                           ylabel=accuracy_label(table, cached),
                           paper_label="paper (official CSV)")
    n, t0 = int(table["N"].iloc[0]), int(table["T0"].iloc[0])
    h, d_h = int(table["H"].iloc[0]), int(table["d_h"].iloc[0])
    xs = np.sort(table["d"].unique())
    _bounds(ax, xs, h * d_h + xs, np.full(len(xs), h * (d_h - 1) + 1), n, t0)
    narrow = xs[xs < d_h]
    if len(narrow):
        # d < d_h: outside Sec. 2's model definition d_h <= d; the proof reaches H d + d (ours)
        reach = np.append(narrow, d_h)
        viz.plot_bound(ax, (reach, _phi(h * np.minimum(d_h, reach) + reach, n, t0)),
                       label="proof's reach φ(H·min(d_h, d) + d) (ours)", color="#E69F00")
        ax.axvspan(float(narrow.min()), float(d_h), color="#dddddd", alpha=0.45, zorder=0,
                   label="d < d_h: outside the paper's model, d_h ≤ d (its Sec. 2)")
    ax.axvline(d_h, color="#bbbbbb", linewidth=0.8, linestyle=":", label=f"d = d_h = {d_h}")
    ax.set_title(f"N = {n}, H = {h}, d_h = {d_h}")
    _legend_below(fig, [ax])
    return fig


def slopes_against_paper(exp1: pd.DataFrame) -> pd.DataFrame:
    """Per-head slope at each d by the official rule (seed-averaged curve; spread of the
    per-seed slopes beside it) and the paper's slope at that d from its CSV (every d = 3..13).

    Columns: d, ours, ours_seed_std, seeds, paper, difference_% (ours relative to the paper's).
    """
    ours = exp.official_slopes(exp1)
    n = int(exp1["N"].iloc[0])
    official = paper.exp1_slopes().set_index("d")["slope"] if n == 50 else pd.Series(dtype=float)
    rows = []
    for row in ours.itertuples():
        theirs = official.get(row.d)
        rows.append({"d": row.d, "ours": row.slope, "ours_seed_std": row.slope_std,
                     "seeds": row.seeds, "paper": theirs,
                     "difference_%": None if theirs is None
                     else 100.0 * (row.slope / theirs - 1.0)})
    return pd.DataFrame(rows)


def exp4_fits(exp1: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Fig. 2b's fits a d² + b and a d³ + b of our official-rule slopes (one per d)."""
    slopes = exp.official_slopes(exp1)
    return {name: exp.fit_power(slopes["d"].to_numpy(), slopes["slope"].to_numpy(), p)
            for name, p in (("quadratic", 2), ("cubic", 3))}


def fits_report(exp1: pd.DataFrame) -> str:
    """What Fig. 2b's two fits show on these slopes, from the data.

    Each fit has two parameters (a, b): with two values of d both pass through every point and
    their squared errors are round-off, so they cannot tell quadratic from cubic; with more,
    the one with the smaller SSE is named, beside the paper's own fits (from its CSVs).
    """
    fits = exp4_fits(exp1)
    count = int(exp1["d"].nunique())
    q, c = fits["quadratic"]["sse"], fits["cubic"]["sse"]
    if count <= 2:
        return (f"with {count} value{'s' if count > 1 else ''} of d, each two-parameter fit "
                f"passes through every point "
                f"(SSE {q:.1g} and {c:.1g}: round-off), so these fits cannot tell quadratic from "
                f"cubic; they only fix a (quadratic a = {fits['quadratic']['a']:.2e})")
    better = "quadratic" if q < c else "cubic"
    theirs = paper.exp4_fits().set_index("fit")
    tb = "quadratic" if theirs.loc["quadratic", "sse"] < theirs.loc["cubic", "sse"] else "cubic"
    return (f"from {count} values of d the {better} fit has the smaller error (SSE {q:.2g} "
            f"quadratic vs {c:.2g} cubic); on the paper's CSV slopes the {tb} fit does "
            f"(SSE {theirs.loc['quadratic', 'sse']:.2g} vs {theirs.loc['cubic', 'sse']:.2g}), "
            f"although its text says 'between quadratic and cubic'")


def exp4_figure(exp1: pd.DataFrame, cached: pd.DataFrame | None = None, *,
                read_in_place: bool = False) -> plt.Figure:
    """Per-head slope vs d (Fig. 2b), by the official rule: ours (and the cached full run's)
    beside the paper's CSV slopes, both fits of each, and Corollary 2's slope.
    ``read_in_place`` as in :func:`exp1_figure` (``exp1`` is Experiment 1's table)."""
    fig, ax = plt.subplots(figsize=(6.0, 4.4), layout="constrained")
    ours = exp.official_slopes(exp1)
    ax.plot(ours["d"], ours["slope"], label=ours_label(read_in_place=read_in_place)
            + (", official rule" if read_in_place else " (official rule)"),
            **viz.role_style("ours"))
    if cached is not None:
        full = exp.official_slopes(cached)
        ax.plot(full["d"], full["slope"], label="ours (committed full run)",
                **viz.role_style("ours_cached"))
    official = paper.exp1_slopes()
    viz.plot_paper(ax, official, "d", "slope", label="paper (official CSVs, official rule)")
    xs = np.linspace(2, 14, 100)
    theirs = paper.exp4_fits().set_index("fit")
    for kind, power, style in (("quadratic", 2, "-"), ("cubic", 3, ":")):
        fit = exp4_fits(exp1)[kind]
        ax.plot(xs, fit["a"] * xs**power + fit["b"], style, color=viz.PALETTE["ours"],
                linewidth=1, label=f"ours: a·d^{power}+b")
        ax.plot(xs, theirs.loc[kind, "a"] * xs**power + theirs.loc[kind, "b"], style,
                color=viz.PALETTE["paper"], linewidth=1, label=f"paper: a·d^{power}+b")
    n = int(exp1["N"].iloc[0])
    ax.plot(xs, (1 - 1 / n) * xs / n**2, "--", color=viz.PALETTE["bound"], linewidth=1,
            label="Cor. 2 slope (1−1/N)·d_h/T0")
    top = max(float(ours["slope"].max()), float(official["slope"].max()))
    ax.set(xlabel="d = d_h", ylabel="accuracy gained per head (slope)",
           ylim=(min(0.0, float(ours["slope"].min())) - 0.002, 1.15 * top), xlim=(2, 14))
    _legend_below(fig, [ax])
    return fig


def _paper_exp5_line(ax: plt.Axes, official: pd.DataFrame, d: int, n: int, kind: str, x: str,
                     label: str, color: str) -> None:
    """The paper's CSV curve of model ``kind`` at ``d`` against ``x`` (``"H"`` or ``"params"``,
    our count of the same model, :func:`_paper_params`: the MLP model's input-layer bias
    included, which the paper's x-axis 4d²H + d(2N+1) leaves out), drawn only when the CSV has
    the same N."""
    ref = official[(official["d"] == d) & (official["model"] == kind)]
    if len(ref) and n == int(ref["N"].iloc[0]):
        ref = ref.assign(params=_paper_params(ref, 1, kind == "mlp"))
        ax.plot(ref[x], ref["accuracy"], label=label, **{**viz.role_style("paper"), "color": color})


def exp5_params(table: pd.DataFrame) -> pd.DataFrame:
    """Experiment 5's parameter counts at the largest H of each d (Fig. 3's x-axis), from our
    table: our count of each model (``params``, the models' ``num_parameters``), the MLP
    model's input-layer bias w = 2d(H − 1) and the paper's x-axis value 4d²H + d(2N+1) (the
    official code's formula, the same for both models, as our reproduction notes give it).
    Columns: d, H, aot, mlp, extra (mlp − aot), width (w), paper_x. A d without both models
    has no row."""
    rows = []
    for d, part in table.groupby("d"):
        h = int(part["H_equiv"].max())
        at = part[part["H_equiv"] == h].groupby("model")["params"].first()
        if not {"aot", "mlp"} <= set(at.index):
            continue
        n = int(part["N"].iloc[0])
        rows.append({"d": int(d), "H": h, "aot": int(at["aot"]), "mlp": int(at["mlp"]),
                     "extra": int(at["mlp"] - at["aot"]), "width": 2 * int(d) * (h - 1),
                     "paper_x": 4 * int(d) ** 2 * h + int(d) * (2 * n + 1)})
    return pd.DataFrame(rows)


#: Rows of the official code's positional table beyond the S positions its ``forward`` reads:
#: ``pos_emb = nn.Linear(d_head, context_window)`` with ``context_window = S + 1``, whose last
#: row is never read (``models.py``; :mod:`memnb.models.compressed_attention_only`). Our
#: rewrite allocates only the S rows read.
CODE_UNREAD_POSITION_ROWS = 1


def code_position_rows_clause(code: pd.DataFrame, counts: pd.DataFrame) -> str:
    """The parameters the official code's own modules hold beyond our rewrite's (``counts``:
    :func:`exp5_params` of ``code``'s models at the largest H): the positional rows it
    allocates and never reads (:data:`CODE_UNREAD_POSITION_ROWS`), each as wide as a row of
    our rewrite's positional table, read from its shape; ``""`` when ``code`` lacks S or d_h."""
    from memnb.models import CompressedAttentionOnlyTransformer

    if not {"S", "d_h", "N"} <= set(code.columns):
        return ""
    cells, widths, rows = [], set(), set()
    for r in counts.itertuples():
        part = code[code["d"] == r.d].iloc[0]
        model = CompressedAttentionOnlyTransformer(
            vocab_size=int(part["N"]), seq_len=int(part["S"]), d=int(r.d),
            d_h=int(part["d_h"]), num_heads=0)
        read, width = model.pos_embedding.shape
        extra = CODE_UNREAD_POSITION_ROWS * int(width)
        widths.add("d_h = d" if int(width) == int(r.d) else "d_h")
        rows.add((int(read), int(read) + CODE_UNREAD_POSITION_ROWS))
        cells.append(f"AoT {r.aot + extra:,} and MLP {r.mlp + extra:,} at d = {r.d}")
    shape = ", ".join(f"S + {CODE_UNREAD_POSITION_ROWS} = {total} rows where it reads S = "
                      f"{read}" for read, total in sorted(rows))
    more = ("one positional row more" if CODE_UNREAD_POSITION_ROWS == 1 else
            f"{CODE_UNREAD_POSITION_ROWS} positional rows more")
    return (f"; the code's own modules allocate {more} ({shape}; the last is never read), "
            f"{' or '.join(sorted(widths))} parameters more per model: {'; '.join(cells)}")


def exp5_params_sentence(table: pd.DataFrame, code: pd.DataFrame | None = None) -> str:
    """Fig. 3's x-axis in words, computed (:func:`exp5_params`): each model at its own count,
    the MLP model w = 2d(H − 1) parameters above the AoT at the same H (its input-layer bias),
    as the official code's MLP (``code``: ``dana.exp5_code``'s ``mlp_code`` and ``aot_code``,
    when given), and the paper's x-axis formula, which leaves that bias out."""
    counts = exp5_params(table)
    if counts.empty:
        return ("The x-axis is each model's parameter count as we count it (the paper's CSVs "
                "at our count of the same models).")
    cells = "; ".join(f"d = {r.d}, H = {r.H}: AoT {r.aot:,}, MLP {r.mlp:,} ({r.extra:+,}, "
                      f"w = {r.width:,})" for r in counts.itertuples())
    if (counts["extra"] == 0).all():
        which = "the two models have equal counts"
    elif (counts["extra"] == counts["width"]).all():
        which = ("the two models do not have equal counts: the MLP model has w = 2d(H − 1) "
                 "parameters more, the biases of its input layer")
    else:
        which = "the two models do not have equal counts"
    text = (f"The x-axis is each model's parameter count as we count it, the paper's CSVs at our "
            f"count of the same models; {which} ({cells})")
    if code is not None and {"aot_code", "mlp_code"} <= set(code["model"]):
        theirs = exp5_params(code.replace({"model": {"aot_code": "aot", "mlp_code": "mlp"}})
                             [lambda t: t["model"].isin(["aot", "mlp"])])
        if len(theirs):
            mine = counts.set_index("d")
            same = all(r.d in mine.index and (mine.loc[r.d, "aot"], mine.loc[r.d, "mlp"])
                       == (r.aot, r.mlp) for r in theirs.itertuples())
            text += (f"; our rewrite of the official code's models has "
                     f"{'the same counts' if same else 'other counts'} (dana.exp5_code: "
                     + "; ".join(f"d = {r.d}: AoT {r.aot:,}, MLP {r.mlp:,}"
                                 for r in theirs.itertuples()) + ")"
                     + code_position_rows_clause(code, theirs))
    by_d = (counts["aot"] - counts["paper_x"] == counts["d"]).all()
    return (text + ". The paper's x-axis, 4d²H + d(2N+1) for both models (the official code's "
            "formula, as our reproduction notes give it; N = "
            f"{int(table['N'].iloc[0])} too: the paper's text states neither), "
            + ("leaves that bias out" if (counts["extra"] == counts["width"]).all()
               and (counts["width"] > 0).all() else "is the same for both models")
            + "; our AoT count, Theorem 1's d(S + 2N + 4d_hH) with S = 2, is "
            + ("d above it" if by_d else "not d above it")
            + " (" + ", ".join(f"{r.aot:,} vs {r.paper_x:,} at d = {r.d}"
                               for r in counts.itertuples()) + ").")


def _median_words(part: pd.DataFrame) -> str:
    """", median, band min to max over k seeds" for a curve of :func:`_seed_curve` over ``k > 1``
    seeds ("" for one seed)."""
    seeds = int(part["seed"].nunique()) if "seed" in part else 1
    return f", median, band min to max over {counted(seeds, 'seed')}" if seeds > 1 else ""


def exp5_figure(table: pd.DataFrame, cached: pd.DataFrame | None = None, *,
                read_in_place: bool = False) -> plt.Figure:
    """AoT (H heads) vs one head + MLP (width 2d(H−1)) against parameter count (Fig. 3): one
    panel per d, ours beside the paper's CSV curves (d = 7, 10, 13), legend below. Ours (and
    ``cached``, the committed full run, dash-dotted) as the App. B figures draw Experiment 5
    (:func:`_seed_curve`): the median over seeds, the statistic the Fig. 3 verdict reads where
    the seeds split, with a band from the lowest seed to the highest and every seed a faint
    dot, since the MLP's seeds can split far apart. ``read_in_place`` as in
    :func:`exp1_figure`."""
    official = paper.exp5()
    ds = sorted(set(int(d) for d in table["d"].unique()) | set(official["d"].unique()))
    fig, axes = plt.subplots(1, len(ds), figsize=(3.3 * len(ds), 3.6), layout="constrained",
                             squeeze=False, sharey=True)
    n = int(table["N"].iloc[0])
    colors = {"aot": viz.PALETTE["ours"], "mlp": "#D55E00"}
    names = {"aot": "AoT", "mlp": "1 head + MLP"}
    for ax, d in zip(axes[0], ds, strict=True):
        for kind in ("aot", "mlp"):
            part = table[(table["d"] == d) & (table["model"] == kind)]
            if len(part):
                _seed_curve(ax, part, "params", stat="median", band=True,
                            label=ours_label(names[kind], read_in_place)
                            + _median_words(part),
                            **viz.role_style("ours", colors[kind]))
            if cached is not None:
                full = cached[(cached["d"] == d) & (cached["model"] == kind)]
                if len(full):
                    _seed_curve(ax, full, "params", stat="median", band=True,
                                label=f"ours (full run): {names[kind]}{_median_words(full)}",
                                **viz.role_style("ours_cached", colors[kind]))
            _paper_exp5_line(ax, official, d, n, kind, "params", f"paper: {names[kind]}",
                             colors[kind])
        ax.set_title(f"d = d_h = {d}, N = {n}", fontsize=9)
        ax.set_xlabel("parameters (our count of each model)")
        ax.xaxis.set_major_locator(plt.MaxNLocator(4))  # five-digit counts: fewer ticks
    axes[0][0].set_ylabel(accuracy_label(table, cached))
    _legend_below(fig, axes)
    return fig


#: Experiment 5's models: label, colour and marker (AoTs in blues, MLP models in reds).
_EXP5_MODELS = {
    "aot": ("eq. (2) AoT", "#0072B2", "o"),
    "mlp": ("eq. (2) + MLP", "#D55E00", "o"),
    "aot_code": ("code's AoT", "#56B4E9", "s"),
    "mlp_code": ("code's 1 head + MLP", "#CC79A7", "s"),
    "mlp_code_uncompressed": ("eq. (2) + code's scale, positions + MLP", "#E69F00", "^"),
}

#: The statistic of the seeds that :func:`_seed_curve` draws as its line.
_SEED_STATS = ("mean", "median")


def _seed_curve(ax: plt.Axes, part: pd.DataFrame, x: str, *, label: str, color: str | None,
                stat: str = "mean", band: bool = False, **style: Any) -> pd.DataFrame:
    """One model's accuracy against ``x`` over its seeds, drawn so that seeds which split stay
    visible (the Experiment 5 MLP models' do, Fig. 7): the seeds' ``stat`` (``"mean"`` or
    ``"median"``) at each ``x`` as a line (``label``, ``color``, ``style``: line and marker
    keywords), with ``band`` the band from the lowest to the highest seed (min–max: it holds
    every seed and never leaves the range of the accuracies), and every seed as a faint dot of
    the line's colour and marker. Returns, per ``x``, the line's value (``stat``), ``min``,
    ``max`` and ``seeds``."""
    if stat not in _SEED_STATS:
        raise ValueError(f"stat must be one of {', '.join(_SEED_STATS)}; got {stat!r}")
    summary = (part.groupby(x)["accuracy"].agg([stat, "min", "max", "count"])
               .rename(columns={"count": "seeds"}))
    (line,) = ax.plot(summary.index, summary[stat].to_numpy(), label=label, color=color,
                      **style)
    if band and (summary["max"] > summary["min"]).any():
        ax.fill_between(summary.index, summary["min"].to_numpy(), summary["max"].to_numpy(),
                        color=line.get_color(), alpha=viz.BAND_ALPHA, linewidth=0)
    ax.plot(part[x], part["accuracy"], linestyle="none", marker=line.get_marker(),
            color=line.get_color(), alpha=0.3, ms=3.5)
    return summary


def eq2_beside(exp5_run: Any, code: pd.DataFrame, *,
               same_seeds: bool = True) -> pd.DataFrame | None:
    """The ``dana.exp5`` table (this profile's run, else the committed full run) trained at
    ``code``'s budget (on ``code``'s seeds with ``same_seeds``, else on all of its own), to set
    eq. (2)'s models beside the code's; None when neither is."""
    for table in (exp5_run.fresh, exp5_run.cached):
        rows = same_budget(table, code, same_seeds=same_seeds)
        if rows is not None:
            return rows
    return None


def exp5_code_figure(code: pd.DataFrame, eq2: pd.DataFrame | None) -> plt.Figure:
    """Experiment 5 (Fig. 3) with the official code's models (``dana.exp5_code``, ours) beside
    eq. (2)'s (``dana.exp5`` at the same budget, when given) and the paper's CSV: accuracy
    against the AoT's head count H (the MLP models: one head, width 2d(H − 1)), one panel per d."""
    official = paper.exp5()
    ds = sorted(int(d) for d in code["d"].unique())
    fig, axes = plt.subplots(1, len(ds), figsize=(6.4 * len(ds), 4.6), layout="constrained",
                             squeeze=False, sharey=True)
    tables = [code] if eq2 is None else [eq2, code]
    for ax, d in zip(axes[0], ds, strict=True):
        for table in tables:
            for kind, (label, color, marker) in _EXP5_MODELS.items():
                part = table[(table["d"] == d) & (table["model"] == kind)]
                if len(part):
                    mean = part.groupby("H_equiv")["accuracy"].mean()
                    seeds = int(part["seed"].nunique()) if "seed" in part else 1
                    over = ("mean of " if seeds > 1 else "") + counted(seeds, "seed")
                    ax.plot(mean.index, mean.to_numpy(), marker=marker, color=color,
                            label=f"ours: {label} ({over})", lw=1.6, ms=5)
        for kind, name in (("aot", "AoT"), ("mlp", "1 head + MLP")):
            _paper_exp5_line(ax, official, d, int(code["N"].iloc[0]), kind, "H",
                             f"paper (official CSV): {name}", _EXP5_MODELS[kind][1])
        ax.set_title(f"d = d_h = {d}, N = {int(code['N'].iloc[0])}", fontsize=9)
        ax.set_xlabel("AoT heads H (MLP models: 1 head, width 2d(H − 1))")
    axes[0][0].set_ylabel(accuracy_label(*tables))
    _legend_below(fig, axes)
    return fig


def exp5_code_counterpart(code: pd.DataFrame, eq2: pd.DataFrame | None) -> str:
    """The paper counterpart of :func:`exp5_code_figure` drawn from ``code`` and ``eq2``:
    Dana et al. Fig. 3 (Experiment 5), with the number of models the figure draws (each model of
    either table that has a curve in it), marked as ours, as the chapter's other figures of
    several models are."""
    tables = [code] if eq2 is None else [eq2, code]
    models = {m for t in tables for m in t["model"].unique() if m in _EXP5_MODELS}
    k = len(models)
    return f"Dana et al. Fig. 3 (Experiment 5), {number_word(k)} model{'s' * (k != 1)} (ours)"


def exp5_code_caption(summary: str, row: Any) -> str:
    """The caption of the official code's Fig. 3 (ours): what is drawn (the five curves of
    :func:`exp5_code_figure`, the fifth, eq. (2) + MLP with the code's scale and positions, named
    with its legend label) and the status of ``row`` (the scorecard's "Fig. 3: which model") as
    its lead, the numbers of ``summary`` (:func:`exp5_code_summary`) and the whole verdict as its
    details."""
    variant = _EXP5_MODELS["mlp_code_uncompressed"][0]
    lead = ("The official code's AoT and one head + MLP beside eq. (2)'s two models at the same "
            "budget, and a fifth curve, eq. (2) + MLP with only the code's 1/√d_h attention-score "
            f"scale and positions (legend: \"ours: {variant}\"; the code's MLP but for its "
            "initialisation), against H; the numbers below are read at the largest H of each d. "
            f"{verdict_status(row)}")
    return viz.with_details(lead, f"{summary} {verdict_sentence(row, shown=summary)}")


def exp6_figure(table: pd.DataFrame, cached: pd.DataFrame | None = None, *,
                read_in_place: bool = False) -> plt.Figure:
    """Accuracy vs H at N = 10, d = d_h = 2 (Fig. 4), with the bounds and the paper's CSV.
    ``read_in_place`` as in :func:`exp1_figure`."""
    fig, ax = plt.subplots(figsize=(6.0, 4.2), layout="constrained")
    official = paper.exp6() if paper_setting(table, N=10, d=2) else None
    own = ours_label(read_in_place=read_in_place)
    viz.compare_with_paper(ax, table, official, x="H", y="accuracy", cached=cached, legend=False,
                           ours_label=own,
                           xlabel="number of heads H", ylabel=accuracy_label(table, cached),
                           paper_label="paper (official CSV)")
    n, t0, d = int(table["N"].iloc[0]), int(table["T0"].iloc[0]), int(table["d"].iloc[0])
    hs = np.sort(table["H"].unique())
    _bounds(ax, hs, hs * d + d, hs * (d - 1) + 1, n, t0)
    ax.set_title(f"N = {n}, d = d_h = {d}, T0 = {t0}")
    _integer_ticks(ax)  # H counts heads: no H = 2.5 tick
    _legend_below(fig, [ax])
    return fig


def slope_report(table: pd.DataFrame, n: int, d_h: int) -> dict[str, float]:
    """Slope of accuracy vs H by the official rule (seed-averaged curve, points up to the first
    accuracy > 0.95), the Cor. 2 slope ``(1 − 1/N) d_h / T_0`` and their ratio."""
    slope = float(exp.official_slopes(table.assign(d=0))["slope"].iloc[0])
    t0 = int(table["T0"].iloc[0])
    bound_slope = (1 - 1 / n) * d_h / t0
    return {"slope": slope, "bound_slope": bound_slope, "ratio": slope / bound_slope}


def _frame_paper(table: pd.DataFrame, x: str) -> dict[int, float] | None:
    """The paper's accuracy along a slider's ``x``, read from the official CSV, as ``{x:
    accuracy}``: Experiment 1 (``x = "H"``; ``table`` holds one d = d_h, which the paper ran at
    d = 3..13, Fig. 1a drawing one of them) or Experiment 2 (``x = "d_h"``, Fig. 1b). None where
    ``table`` was not run at the paper's setting (N = 50; for Experiment 2 also d = 10 and
    H = 20), as in the static figures."""
    if x == "H":
        d, d_h = int(table["d"].iloc[0]), int(table["d_h"].iloc[0])
        if not (paper_setting(table, N=50) and d == d_h and 3 <= d <= 13):
            return None
        return {int(k): float(v) for k, v in _paper_xy(paper.exp1(d), "H").items()}
    if x == "d_h":
        if not paper_setting(table, N=50, d=10, H=20):
            return None
        return {int(k): float(v) for k, v in _paper_xy(paper.exp2(), "d_h").items()}
    raise ValueError(f"x must be 'H' or 'd_h'; got {x!r}")


def _highlight_frame(table: pd.DataFrame, x: str, value: int, xlabel: str,
                     setting: str, read_in_place: bool = False) -> plt.Figure:
    """One slider frame: accuracy against ``x`` with the bounds and, where ``table`` was run at
    the paper's setting (:func:`_frame_paper`), the paper's official CSV values (hollow
    diamonds, as everywhere in the chapter), the point ``x = value`` highlighted (large round:
    measured; large hollow diamond: the paper's; filled cross, not a diamond: Cor. 2's bound
    there, drawn on top), each marker with its own legend entry; ``setting`` (the fixed N, d,
    ...) heads the title, which gives the three values; the y-label is the short one
    (:func:`accuracy_label`), which the caption spells out. Legend below the axes, off the
    data; it names
    ``table`` the committed full run where it is read in place of a run of this build
    (``read_in_place``, :data:`FULL_IN_PLACE`). Rows hold H, d_h, d, N, T0."""
    n, t0 = int(table["N"].iloc[0]), int(table["T0"].iloc[0])
    fig, ax = plt.subplots(figsize=(6.0, 4.2), layout="constrained")
    viz.plot_ours(ax, table, x, "accuracy", label=ours_label(read_in_place=read_in_place))
    grid = table.groupby(x)[["H", "d_h", "d"]].first().sort_index()
    xs = grid.index.to_numpy()
    _bounds(ax, xs, grid["H"] * grid["d_h"] + grid["d"], grid["H"] * (grid["d_h"] - 1) + 1,
            n, t0)
    official = _frame_paper(table, x)
    if official is not None:
        viz.plot_paper(ax, official, x, "accuracy", label="paper (official CSV)")
    ours = table[table[x] == value]["accuracy"].mean()
    row = grid.loc[value]
    bound = float(_phi(np.array(row["H"] * row["d_h"] + row["d"]), n, t0))
    at = f"at {x} = {value}"
    ax.plot([value], [ours], "o", color=viz.PALETTE["ours"], markersize=10,
            label=f"ours {at} (seed mean)")
    ax.plot([value], [bound], "X", color=viz.PALETTE["bound"], markersize=10,
            label=f"Cor. 2 bound {at}", zorder=6)  # above the paper's diamond, never hidden
    theirs = "" if official is None or value not in official else \
        f", paper's CSV {official[value]:.3f}"
    if theirs:
        ax.plot([value], [official[value]], "D", color=viz.PALETTE["paper"], markersize=11,
                markerfacecolor="none", markeredgewidth=2, label=f"paper's CSV {at}")
    ax.set_title(f"{setting}, {x} = {value}: measured {ours:.3f}{theirs}, Cor. 2 bound "
                 f"{bound:.3f}", fontsize=9.5)
    ax.set(xlabel=xlabel, ylabel=accuracy_label(table, short=True), ylim=(0, 1.05))
    _legend_below(fig, [ax], fontsize=8.5)
    return fig


def heads_frame(table: pd.DataFrame, h: int, d: int, *,
                read_in_place: bool = False) -> plt.Figure:
    """Slider frame over H (Experiment 1 at embedding dimension ``d`` = d_h: Fig. 1a at its one
    d = d_h, :func:`slider_counterpart`, any other d an official CSV only), H = ``h``
    highlighted, beside the paper's CSV at that d (Data_exp_1_d.csv) where the run is at the
    paper's setting. ``read_in_place`` as in :func:`exp1_figure` (``table``: Experiment 1's)."""
    viz.check_frame_value(table, "d", d)
    part = table[table["d"] == d]
    viz.check_frame_value(part, "H", h, where=f" at d = {d}")
    return _highlight_frame(part, "H", h, "number of heads H",
                            f"N = {int(part['N'].iloc[0])}, d = d_h = {d}",
                            read_in_place)


def head_dim_frame(table: pd.DataFrame, d_h: int, *,
                   read_in_place: bool = False) -> plt.Figure:
    """Slider frame over d_h (Experiment 2, Fig. 1b), ``d_h`` highlighted, beside the paper's
    CSV (Data_exp_2.csv) where the run is at the paper's setting. ``read_in_place`` as in
    :func:`exp1_figure` (``table``: Experiment 2's)."""
    viz.check_frame_value(table, "d_h", d_h)
    return _highlight_frame(table, "d_h", d_h, "head dimension d_h",
                            f"N = {int(table['N'].iloc[0])}, d = {int(table['d'].iloc[0])}, "
                            f"H = {int(table['H'].iloc[0])}",
                            read_in_place)


def _fig1a_d() -> int:
    """The one d = d_h that Fig. 1a draws (its caption: "The head dimension is fixed to 10")."""
    return int(paper.TEXT["exp1_d_h"].value)


def _exp1_csv_ds() -> list[int]:
    """The d = d_h of the official Experiment 1 CSVs at N = 50 (``Data_exp_1_<d>.csv``, the
    files :data:`memnb.papers.dana.FIGURES` gives to Figs. 1a and 2b), in order."""
    return sorted(int(m.group(1)) for name in paper.FIGURES
                  if (m := re.fullmatch(r"Data_exp_1_(\d+)\.csv", name)))


def _int_span(values: list[int]) -> str:
    """``"3 to 13"`` for consecutive integers, else the values listed."""
    if values == list(range(values[0], values[-1] + 1)) and len(values) > 2:
        return f"{values[0]} to {values[-1]}"
    return ", ".join(map(str, values))


def slider_d(table: pd.DataFrame) -> int:
    """The d = d_h of the Sec. 6 slider over H, drawn from Experiment 1's ``table``: Fig. 1a's
    one d = d_h where ``table`` holds it, so that the slider shows the paper's figure; else
    the table's largest d."""
    held = {int(d) for d in table["d"]}
    return _fig1a_d() if _fig1a_d() in held else max(held)


def slider_counterpart(table: pd.DataFrame, kind: str) -> str:
    """The paper counterpart of a Sec. 6 slider drawn from ``table`` (:func:`slider_caption`'s
    ``kind``): Fig. 1b for Experiment 2; for Experiment 1 at :func:`slider_d`, Fig. 1a where
    that d is Fig. 1a's one d = d_h, else the official CSV of that d (which the camera-ready
    draws in no figure of its own: its slope enters the figure that
    :data:`memnb.papers.dana.FIGURES` names) beside Fig. 1a's d."""
    if kind == "head_dim":
        return "Dana et al. Fig. 1b (Experiment 2)"
    if kind != "heads":
        raise ValueError(f"kind must be 'heads' or 'head_dim'; got {kind!r}")
    d, fig1a = slider_d(table), _fig1a_d()
    if d == fig1a:
        return "Dana et al. Fig. 1a (Experiment 1)"
    csv = f"Data_exp_1_{d}.csv"
    official = (f"the official {csv}, whose slope {paper.FIGURES[csv]} plots"
                if csv in paper.FIGURES else f"no official CSV at d = {d}")
    return (f"Dana et al. Experiment 1 at d = d_h = {d} ({official}), beside Fig. 1a, which "
            f"draws d = d_h = {fig1a}")


def slider_caption(table: pd.DataFrame, kind: str) -> str:
    """The caption of a Sec. 6 slider, from the drawn table: ``kind`` ``"heads"`` (Experiment 1
    at :func:`slider_d`, :func:`heads_frame`) or ``"head_dim"`` (Experiment 2,
    :func:`head_dim_frame`): what each frame plots, at which fixed setting, over which values
    the slider moves, whether the paper's official CSV is drawn beside ours (only where the
    table was run at the paper's setting), and what the short y-axis label stands for."""
    n = int(table["N"].iloc[0])
    if kind == "heads":
        d = slider_d(table)
        part = table[table["d"] == d]
        hs = sorted(int(h) for h in part["H"].unique())
        fig1a = _fig1a_d()
        csv_ds = _exp1_csv_ds()
        where = ("the d = d_h of the paper's Fig. 1a" if d == fig1a else
                 f"the largest d of our run; the paper's Fig. 1a draws only d = d_h = {fig1a}, "
                 f"its official CSVs hold d = {_int_span(csv_ds)}")
        what = (f"Experiment 1 at d = d_h = {d} ({where}), N = {n}: accuracy against the number "
                f"of heads H, the slider choosing H among {', '.join(map(str, hs))}")
        drawn_x, x, csv = part, "H", f"Data_exp_1_{d}.csv"
    elif kind == "head_dim":
        dhs = sorted(int(v) for v in table["d_h"].unique())
        what = (f"Experiment 2 (Fig. 1b), N = {n}, d = {int(table['d'].iloc[0])}, H = "
                f"{int(table['H'].iloc[0])}: accuracy against the head dimension d_h, the slider "
                f"choosing d_h among {', '.join(map(str, dhs))}")
        drawn_x, x, csv = table, "d_h", "Data_exp_2.csv"
    else:
        raise ValueError(f"kind must be 'heads' or 'head_dim'; got {kind!r}")
    official = _frame_paper(drawn_x, x)
    drawn = "Each frame draws our seed-averaged curve"
    axis = accuracy_axis_sentence(drawn_x)
    if official is None:
        return (f"{what}. {drawn}, Corollary 2's bound φ(H·d_h + d) and the previous bound "
                "φ(H(d_h − 1) + 1) (dashed); at the chosen value the large round marker is our "
                "accuracy and the filled cross the bound there (each named in the legend), and "
                f"the title gives both. {axis} The paper's values are not drawn: this run is "
                "not at the paper's setting.")
    missing = sorted(int(v) for v in drawn_x[x].unique() if int(v) not in official)
    gap = (f" (it has no value at {x} = {', '.join(map(str, missing))})" if missing else "")
    return (f"{what}. {drawn}, the paper's accuracies from the official {csv} (hollow "
            f"diamonds){gap}, Corollary 2's bound φ(H·d_h + d) and the previous bound "
            "φ(H(d_h − 1) + 1) (dashed); at the chosen value the large round marker is our "
            "accuracy, the large hollow diamond the paper's and the filled cross the bound, "
            "drawn on top of the diamond (each named in the legend), and the title gives all "
            f"three. {axis}")


def bound_check(table: pd.DataFrame, x: str | list[str]) -> dict[str, Any]:
    """Seed-averaged accuracy at each ``x`` (a column, or several: one point per combination)
    against Cor. 2's ``φ(H d_h + d)`` and the previous ``φ(H (d_h − 1) + 1)``: how many points
    lie above each (for the chapter's sentences)."""
    rows = table.assign(
        bound=_phi(table["H"] * table["d_h"] + table["d"], int(table["N"].iloc[0]),
                   int(table["T0"].iloc[0])),
        previous=_phi(table["H"] * (table["d_h"] - 1) + 1, int(table["N"].iloc[0]),
                      int(table["T0"].iloc[0])))
    mean = rows.groupby(x)[["accuracy", "bound", "previous"]].mean()
    return {"points": len(mean),
            "above_bound": int((mean["accuracy"] >= mean["bound"]).sum()),
            "above_previous": int((mean["accuracy"] >= mean["previous"]).sum())}


def bound_sentence(table: pd.DataFrame, x: str | list[str]) -> str:
    """"k of n points lie above Cor. 2's bound (m above the previous one)", from the data."""
    c = bound_check(table, x)
    return (f"{c['above_bound']} of {c['points']} seed-averaged points lie on or above "
            f"Corollary 2's bound and {c['above_previous']} of {c['points']} above the "
            f"previous bound")


def _shape_words(bend: dict[str, float] | None) -> str:
    """The shape of a curve in d_h by the Fig. 1b row's curvature interval
    (:func:`memnb.scorecard.dana.convex_growth`'s values): "convex", "concave" or "not
    decided" (interval holding 0, or no fit)."""
    if bend is None or not (bend["c2_low"] > 0 or bend["c2_high"] < 0):
        return "not decided"
    return "convex" if bend["c2_low"] > 0 else "concave"


def _curvature(x: Iterable[float], y: Iterable[float]) -> dict[str, float] | None:
    """:func:`memnb.scorecard.dana.convex_growth`'s values, ``None`` with too few points."""
    try:  # the Fig. 1b row's fit, which needs more values of d_h than a line does
        return convex_growth(np.asarray(list(x), float), np.asarray(list(y), float)).values
    except ValueError:
        return None


def _plateau_words(verdict: Any) -> str:
    """Whether a curve in d has a plateau after d = d_h (a ceiling at d = d_h) by the Fig. 2a
    row's test (:func:`memnb.scorecard.dana.plateau_after`'s verdict): "a plateau", "no
    plateau" or "not decided" (flat only where it saturates)."""
    if verdict.status == "not computable":
        return "not decided"
    return "a plateau" if verdict.holds else "no plateau"


def departure_reading(small: tuple[int, float, float] | None, ours_plateau: str,
                      paper_plateau: str | None) -> str:
    """Whether the tables show what the compression reading of Experiments 2 and 3 expects of
    eq. (2) against the paper's curves (ours; Dana et al., Figs. 1b and 2a): more capacity at
    small d_h, and no ceiling at d = d_h (no plateau after it) where the paper's curve has
    one.

    ``small``: (the smallest d_h both curves have, ours, the paper's CSV) or ``None``; "more"
    capacity when ours exceeds the paper's by more than the Fig. 1b row's tolerance
    :data:`memnb.scorecard.dana.ACC_TOL`, "less" below it by more, "about the same" within.
    ``ours_plateau`` / ``paper_plateau``: :func:`_plateau_words` of each curve in d (the Fig. 2a
    row's plateau test); ``paper_plateau`` ``None`` when the run is not at the paper's setting.
    Plain text, ending with whether both expectations hold."""
    from memnb.scorecard.dana import ACC_TOL, PLATEAU_RULE

    parts, agree = [], True
    if small is None:
        parts.append("Experiment 2 shares no value of d_h with the paper's CSV at its setting, "
                     "so capacity at small d_h is not compared")
        agree = False
    else:
        dh, ours, theirs = small
        gap = ours - theirs
        side = ("more" if gap > ACC_TOL else "less" if gap < -ACC_TOL else "about the same")
        agree = side == "more"
        parts.append(f"at the smallest d_h, {dh}, ours is {ours:.3f} and the paper's CSV "
                     f"{theirs:.3f} ({gap:+.3f}; more, or less, capacity when the difference "
                     f"exceeds the Fig. 1b row's tolerance of {ACC_TOL:g}): {side} capacity at "
                     "small d_h")
    def has(who: str, words: str, short: bool = False) -> str:
        if words in ("a plateau", "no plateau"):
            return f"{who} has " + (("one" if words == "a plateau" else "none") if short
                                    else words)
        return f"for {who} a plateau is {words}"

    theirs_words = ("" if paper_plateau is None
                    else " and " + has("the paper's CSV", paper_plateau, short=True))
    parts.append(f"past d = d_h {has('our curve in d', ours_plateau)}{theirs_words} (the Fig. 2a "
                 f"row's plateau test: {PLATEAU_RULE})")
    agree = agree and ours_plateau == "no plateau" and paper_plateau == "a plateau"
    verdict = ("both as that reading expects" if agree else
               "not both as that reading expects, so the tables do not bear it out in full")
    return "; ".join(parts) + f": {verdict}"


def departures_report(exp2: pd.DataFrame, exp3: pd.DataFrame, run_label: str = "this run",
                      verdicts: tuple[Any, ...] = ()) -> str:
    """Markdown paragraph on how Experiments 2 and 3 (Dana et al., Figs. 1b, 2a) compare with
    the paper's curves, and where they depart.

    ``run_label`` names the run the tables come from (e.g. ``"committed full run"``);
    ``verdicts`` are the scorecard rows stated after the numbers (Figs. 1b and 2a). A curve
    departs from the paper's by the rule of those rows: its mean |ours − paper| over the
    values both have above :data:`memnb.scorecard.dana.ACC_TOL`; the heading says "Where our
    curves depart from the paper's" only when one does. States, from the data, our accuracy at
    the smallest ``d_h`` against the paper's CSV, whether our curve in ``d_h`` and the paper's
    are convex or concave, by the 95 % interval of the curvature the scorecard's Fig. 1b row
    fits (:func:`memnb.scorecard.dana.convex_growth`; "not decided" when the interval holds 0,
    or with too few values of ``d_h`` for that fit), and the mean absolute difference from the
    paper's Experiment 3 over every d where both have a value (the paper's CSV has all 11,
    d = 5..15). Where a curve departs, the explanation offered (ours) attributes the departure
    to the official code's compression together with its initialisation, which ``dana.layout``
    tests but does not separate from each other (only from the code's scale and positions),
    followed by whether the tables show what that reading expects
    (:func:`departure_reading`).
    """
    from memnb.scorecard.dana import ACC_TOL, plateau_after

    by_dh = exp2.groupby("d_h")["accuracy"].mean().sort_index()
    by_d = exp3.groupby("d")["accuracy"].mean().sort_index()
    d_h = int(exp3["d_h"].iloc[0])
    paper2 = _paper_xy(paper.exp2(), "d_h") if paper_setting(exp2, N=50, d=10, H=20) else None
    paper3 = _paper_xy(paper.exp3(), "d") if paper_setting(exp3, N=50, H=20, d_h=10) else None
    csv2 = paper.exp2().sort_values("d_h")
    theirs_shape = _shape_words(_curvature(csv2["d_h"], csv2["accuracy"]))
    theirs_words = ("the paper's is convex" if theirs_shape == "convex"
                    else f"the paper's CSV's is {theirs_shape}")
    ours_shape = _shape_words(bend := _curvature(by_dh.index, by_dh.to_numpy()))
    if bend is None:
        shape = (f"whether the curve is convex is not decided: no curvature can be fitted to "
                 f"{counted(len(by_dh), 'value')} of d_h ({theirs_words})")
    elif ours_shape == "not decided":
        shape = ("whether the curve is convex is not decided: the 95 % interval of its "
                 f"curvature holds 0 ({theirs_words})")
    elif ours_shape == theirs_shape:
        shape = f"the curve is {ours_shape} (as the paper's)"
    else:
        shape = f"the curve is {ours_shape} ({theirs_words})"

    def departure(ours: pd.Series, theirs: dict[float, float] | None) -> float | None:
        common = [x for x in ours.index if theirs is not None and x in theirs]
        return (float(np.mean([abs(ours[x] - theirs[x]) for x in common])) if common
                else None)

    gaps = {"Experiment 2": departure(by_dh, paper2), "Experiment 3": departure(by_d, paper3)}
    departed = [name for name, gap in gaps.items() if gap is not None and gap > ACC_TOL]
    compared = {name: gap for name, gap in gaps.items() if gap is not None}
    head = ("**Where our curves depart from the paper's" if departed
            else "**How our curves compare with the paper's") + f" ({run_label}).**"
    if compared:
        rule = (f"By the rule of the Fig. 1b and Fig. 2a rows (a curve is the paper's when its "
                f"mean |ours − paper| over the values both have is at most {ACC_TOL:g}): "
                + "; ".join(f"{name} {'departs' if gap > ACC_TOL else 'does not depart'} "
                            f"({gap:.3f})" for name, gap in compared.items()) + ".")
    else:
        rule = ("Neither run is at the paper's setting, so no departure from the paper's CSV "
                "is measured.")
    dh_lo = int(by_dh.index[0])
    upper = (f" and at d_h = {int(by_dh.index[-1])} {by_dh.iloc[-1]:.3f}" if len(by_dh) > 1
             else "")
    parts = [rule, f"Experiment 2: at d_h = {dh_lo} we reach {by_dh.iloc[0]:.3f}{upper}; "
                   f"{shape}."]
    if paper2 is not None and dh_lo in paper2:
        parts.append(f"The paper's CSV has {paper2[dh_lo]:.3f} at d_h = {dh_lo}.")
    below, above = by_d[by_d.index <= d_h], by_d[by_d.index > d_h]
    if len(below) and len(above):
        parts.append(f"Experiment 3: past d = d_h = {d_h} our accuracy goes from "
                     f"{below.iloc[-1]:.3f} at d = {int(below.index[-1])} to "
                     f"{above.iloc[-1]:.3f} at d = {int(above.index[-1])}.")
    if paper3 is not None:
        common = [d for d in by_d.index if d in paper3]
        diff = gaps["Experiment 3"]  # the departure measured above, over these d
        diff = np.nan if diff is None else diff
        parts.append(f"Over the {len(common)} values of d where both have one (the paper's CSV "
                     f"has {len(paper3)}), our accuracy is on average {diff:.3f} from the "
                     f"paper's; its curve goes from {paper3[min(paper3)]:.3f} at d = "
                     f"{min(paper3)} to {paper3[d_h]:.3f} at d = {d_h} and ends at "
                     f"{paper3[max(paper3)]:.3f} at d = {max(paper3)}.")
    if not departed:
        parts.append("No curve departs from the paper's by that rule, so there is no departure "
                     "for the model to explain; `dana.layout` below still trains the official "
                     "code's model beside eq. (2)." if compared else
                     "`dana.layout` below sets the official code's model beside eq. (2).")
        return folded_report(head, parts, verdicts)
    small = None
    if paper2 is not None:
        shared = [x for x in by_dh.index if x in paper2]
        if shared:
            small = (int(shared[0]), float(by_dh[shared[0]]), float(paper2[shared[0]]))
    try:
        ours_plateau = _plateau_words(plateau_after(by_d.index, by_d.to_numpy(), knee=d_h))
    except ValueError:  # fewer than two values of d on a side of d_h
        ours_plateau = "not decided (too few values of d on a side of d_h)"
    paper_plateau = None
    if paper3 is not None:
        xs = sorted(paper3)
        paper_plateau = _plateau_words(plateau_after(np.array(xs, float),
                                                     np.array([paper3[x] for x in xs]),
                                                     knee=d_h))
    which = ("Experiments 2 and 3" if len(departed) == 2 else departed[0])
    parts.append(f"Our reading of the departure ({which}), tested below "
                 "(`dana.layout`): the paper's curves come from the "
                 "official code's model, through its compression together with its "
                 "initialisation (which our runs do not separate: `dana.layout` separates the "
                 "two only from the code's 1/√d_h and positions). The compression: the code maps "
                 "every token from d to d_h with one matrix shared by all heads and maps the "
                 "heads' summed output back with one d_h → d matrix, so all heads together write "
                 "into a d_h-dimensional subspace of the residual stream, where eq. (2), which we "
                 "follow, gives each head its own W_O^h into R^d. That would give eq. (2) more "
                 "capacity at small d_h than the paper's curve, and no ceiling at d = d_h (no "
                 "plateau after it) where the paper's curve has one; from the tables: "
                 + departure_reading(small, ours_plateau, paper_plateau)
                 + ". The initialisation: the code's "
                 + _difference("initialisation").text.removeprefix("its initialisation: the ")
                 + ".")
    return folded_report(head, parts, verdicts)


def _legend_below(fig: plt.Figure, axes: Any, fontsize: float = 7.5) -> None:
    """One legend under all panels, one entry per label (panels repeat the same curves), in
    ``fontsize`` points (the static figures' 7.5; the slider frames, drawn smaller, larger):
    in two columns, or in one where two would be wider than the figure (long labels, e.g. a
    curve named :data:`FULL_IN_PLACE`), so that the legend stays under the panels."""
    handles: dict[str, Any] = {}
    for ax in np.ravel(axes):
        for handle, name in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(name, handle)
    for ncol in (2, 1):
        legend = fig.legend(list(handles.values()), list(handles), loc="outside lower center",
                            ncol=ncol, fontsize=fontsize)
        if ncol == 1 or legend.get_window_extent().width <= fig.bbox.width:
            return
        legend.remove()


_LAYOUT_COLORS = {"aot": viz.PALETTE["ours"], "aot_code": "#009E73",
                  "aot_code_uncompressed": "#CC79A7"}


def _layout_panels(layout: pd.DataFrame, exp2: pd.DataFrame,
                   exp3: pd.DataFrame) -> list[tuple[str, str, dict[str, pd.DataFrame], dict]]:
    """Per experiment: x column, name, the table of each model kind, the paper's values."""
    d, d_h = int(exp2["d"].iloc[0]), int(exp3["d_h"].iloc[0])
    panels = []
    for x, name, eq2, fixed, official in (
            ("d_h", "Experiment 2", exp2, {"d": d}, paper.exp2()),
            ("d", "Experiment 3", exp3, {"d_h": d_h}, paper.exp3())):
        tables = {"aot": eq2}
        for kind in exp.CODE_MODEL_KINDS:
            part = _select(layout, model=kind, **fixed)
            if part is not None:
                tables[kind] = part
        panels.append((x, name, tables, _paper_xy(official, x)))
    return panels


def layout_figure(layout: pd.DataFrame, exp2: pd.DataFrame, exp3: pd.DataFrame, *,
                  read_in_place: Mapping[str, bool] | None = None) -> plt.Figure:
    """Figs. 1b and 2a with three models (ours, ``dana.layout``): eq. (2), the official code's
    model (shared ``d -> d_h`` compression) and eq. (2) with only the code's ``1/sqrt(d_h)`` and
    positions, beside the paper's CSV values (which the official code produced). Each curve's
    legend names the committed full run where its table is that run, read in place of a run
    of this build: ``read_in_place`` maps ``"d_h"`` (``exp2``), ``"d"`` (``exp3``) and
    ``"code"`` (``layout``) to :func:`memnb.experiments.dana.reused_full` of their runs (a
    table not named: a run of this build)."""
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.9), layout="constrained")
    labels = {"d_h": "head dimension d_h", "d": "embedding dimension d"}
    in_place = {key: bool((read_in_place or {}).get(key)) for key in ("d_h", "d", "code")}
    for ax, (x, name, tables, official) in zip(axes, _layout_panels(layout, exp2, exp3),
                                               strict=True):
        for kind, table in tables.items():
            full = in_place[x if kind == "aot" else "code"]
            viz.plot_ours(ax, table, x, "accuracy",
                          label=ours_label(exp.MODEL_KINDS[kind], full),
                          color=_LAYOUT_COLORS[kind])
        viz.plot_paper(ax, official, x, "accuracy", label="paper (official CSV)")
        fixed = (f"d = {int(exp2['d'].iloc[0])}" if x == "d_h"
                 else f"d_h = {int(exp3['d_h'].iloc[0])}")
        # each panel its own y-axis (the panels do not share it), so each its label
        ax.set(xlabel=labels[x],
               ylabel=accuracy_label(*tables.values()),
               title=f"{name}: N = {int(exp2['N'].iloc[0])}, H = {int(exp2['H'].iloc[0])}, "
                     f"{fixed}")
    _legend_below(fig, axes)
    return fig


def layout_distances(layout: pd.DataFrame, exp2: pd.DataFrame,
                     exp3: pd.DataFrame) -> pd.DataFrame:
    """Mean absolute difference from the paper's CSV accuracies, per experiment and model kind.

    Uses the seed-averaged accuracy at every x where both we and the paper have a value
    (Experiment 2: d_h = 1..10; Experiment 3: d = 5..15). Columns: experiment, model, points,
    mean_abs_difference, accuracy_at_largest_x.
    """
    rows = []
    for x, name, tables, official in _layout_panels(layout, exp2, exp3):
        for kind, table in tables.items():
            mean = table.groupby(x)["accuracy"].mean()
            common = [v for v in mean.index if v in official]
            diff = (float(np.mean([abs(mean[v] - official[v]) for v in common]))
                    if common else float("nan"))
            rows.append({"experiment": name, "model": exp.MODEL_KINDS[kind],
                         "points": len(common), "mean_abs_difference": diff,
                         f"accuracy_at_largest_{x}": float(mean.iloc[-1])})
    return pd.DataFrame(rows)


def layout_report(layout: pd.DataFrame, exp2: pd.DataFrame, exp3: pd.DataFrame) -> str:
    """Markdown sentence, from the data, on which model is closest to the paper's Figs. 1b, 2a."""
    if not (paper_setting(exp2, N=50, d=10, H=20) and paper_setting(exp3, N=50, H=20, d_h=10)):
        return ("**Which model is closest to the paper's curves?** This profile does not run the "
                "paper's setting (N = 50, H = 20, d = 10 or d_h = 10), so the question is left "
                "to the `quick` and `full` profiles.")
    table = layout_distances(layout, exp2, exp3)
    parts = ["**Which model is closest to the paper's curves?** Mean absolute difference from "
             "the paper's CSV accuracies:"]
    for name, part in table.groupby("experiment", sort=False):
        cells = ", ".join(f"{m} {v:.3f}" for m, v in
                          zip(part["model"], part["mean_abs_difference"], strict=True))
        best = part.loc[part["mean_abs_difference"].idxmin(), "model"]
        parts.append(f"{name} ({int(part['points'].max())} points): {cells}; closest: {best}.")
    exp3_rows = table[table["experiment"] == "Experiment 3"]
    largest = int(exp3["d"].max())
    cells = ", ".join(f"{m} {v:.3f}" for m, v in
                      zip(exp3_rows["model"], exp3_rows["accuracy_at_largest_d"], strict=True))
    official = _paper_xy(paper.exp3(), "d")
    theirs = f"paper {official[largest]:.3f}" if largest in official else "no paper value"
    parts.append(f"At d = {largest}: {cells} ({theirs}).")
    return " ".join(parts)


def _heads_tables(layout_heads: pd.DataFrame, exp1: pd.DataFrame,
                  d: int) -> dict[str, pd.DataFrame]:
    """The tables of each model kind at ``d = d_h = d`` (eq. 2 from Experiment 1's table)."""
    tables = {}
    for kind, source in (("aot", exp1), *((k, layout_heads) for k in exp.CODE_MODEL_KINDS)):
        part = _select(source, model=kind, d=d)
        if part is not None:
            tables[kind] = part
    return tables


def layout_heads_figure(layout_heads: pd.DataFrame, exp1: pd.DataFrame, *,
                        read_in_place: Mapping[str, bool] | None = None) -> plt.Figure:
    """Fig. 1a with three models (ours, ``dana.layout_heads``): accuracy against H at each
    ``d = d_h`` of ``layout_heads`` for eq. (2), the official code's model and eq. (2) with only
    the code's ``1/sqrt(d_h)`` and positions, beside the paper's CSV at that d. Each curve's
    legend names the committed full run where its table is that run, read in place of a run
    of this build: ``read_in_place`` maps ``"aot"`` (``exp1``) and ``"code"``
    (``layout_heads``) to :func:`memnb.experiments.dana.reused_full` of their runs."""
    ds = sorted(int(d) for d in layout_heads["d"].unique())
    fig, axes = plt.subplots(1, len(ds), figsize=(5.2 * len(ds), 3.9), layout="constrained",
                             squeeze=False)
    official = paper.exp1() if int(exp1["N"].iloc[0]) == 50 else None
    in_place = {key: bool((read_in_place or {}).get(key)) for key in ("aot", "code")}
    for ax, d in zip(axes[0], ds, strict=True):
        for kind, table in _heads_tables(layout_heads, exp1, d).items():
            viz.plot_ours(ax, table, "H", "accuracy",
                          label=ours_label(exp.MODEL_KINDS[kind],
                                           in_place["aot" if kind == "aot" else "code"]),
                          color=_LAYOUT_COLORS[kind])
        if official is not None and d in set(official["d"]):
            viz.plot_paper(ax, official[official["d"] == d], "H", "accuracy",
                           label="paper (official CSV)")
        ax.set(xlabel="number of heads H", title=f"d = d_h = {d}, N = {int(exp1['N'].iloc[0])}")
    axes[0][0].set_ylabel(accuracy_label(layout_heads, exp1))
    _legend_below(fig, axes)
    return fig


def layout_slopes(layout_heads: pd.DataFrame, exp1: pd.DataFrame) -> pd.DataFrame:
    """Per-head slope of each model kind at each ``d`` of ``layout_heads`` beside the paper's.

    The slope is the official rule applied as the official code applies it: to the
    seed-averaged curve (:func:`memnb.experiments.dana.official_slopes`); ``seed_std`` is the
    spread of the per-seed slopes. Columns: d, model, slope, seed_std, seeds, paper,
    difference_% (ours relative to the paper's CSV slope at that d).
    """
    official = (paper.exp1_slopes().set_index("d")["slope"]
                if int(exp1["N"].iloc[0]) == 50 else pd.Series(dtype=float))
    rows = []
    for d in sorted(int(d) for d in layout_heads["d"].unique()):
        for kind, table in _heads_tables(layout_heads, exp1, d).items():
            fit = exp.official_slopes(table).iloc[0]
            theirs = official.get(d)
            rows.append({"d": d, "model": exp.MODEL_KINDS[kind], "slope": float(fit["slope"]),
                         "seed_std": float(fit["slope_std"]), "seeds": int(fit["seeds"]),
                         "paper": theirs,
                         "difference_%": None if theirs is None
                         else 100 * (float(fit["slope"]) / theirs - 1)})
    return pd.DataFrame(rows)


# --- the chapter's generated prose: captions and paragraphs with their verdicts ---------------

def verdict_sentence(row: Any, shown: str = "") -> str:
    """The scorecard's verdict on one item, for the end of a comparison sentence. When its
    measured text begins with ``shown`` (the caption already printed it), that part is not
    repeated: the sentence points to it."""
    measured = str(row.measured)
    if shown and measured.startswith(shown.strip()):
        rest = measured[len(shown.strip()):].lstrip("; ").strip()
        measured = "the numbers above" + (f"; {rest}" if rest else "")
    return f"Verdict ({row.item}): **{status_words(row)}** ({measured})."


def verdict_status(row: Any) -> str:
    """The verdict's status alone, for a caption's lead whose details end with the whole
    verdict (:func:`verdict_sentence`)."""
    return f"Verdict ({row.item}): **{status_words(row)}**."


def folded_report(head: str, parts: list[str], verdicts: tuple[Any, ...] = ()) -> str:
    """A report whose lead is ``head`` and each verdict's status (:func:`verdict_status`), with
    ``parts`` and the whole verdicts (:func:`verdict_sentence`) as its details
    (:func:`memnb.viz.with_details`: folded below the lead when shown)."""
    lead = " ".join([head, *(verdict_status(row) for row in verdicts)])
    return viz.with_details(lead, " ".join([*parts, *(verdict_sentence(row) for row in verdicts)]))


def verdict_recalled(row: Any, where: str = "in the caption above") -> str:
    """The verdict's status alone, for text under a caption that printed it in full (``where``
    says where its numbers are, for text shown elsewhere)."""
    return f"Verdict ({row.item}): **{status_words(row)}**, with its numbers {where}."


def _caption_source(run: Any, profile: str, both: bool = False) -> tuple[str, str]:
    """``(profile, source)`` for :func:`memnb.viz.caption` of a display drawn from ``run``: the
    committed full run when the chapter read it in place (``run.note``), else this profile's
    run, beside the committed full run when ``both``."""
    if exp.reused_full(run):
        return "full", "cached"
    return profile, "ours_and_cached" if both else "ours"


def show(fig: plt.Figure, paper_figure: str, run: Any, text: str, profile: str, *,
         full_drawn: bool = False, full_told: bool = False) -> Any:
    """Display ``fig`` with its caption; the caption's source says whether the drawn table is
    a run of this profile, the committed full run read in place (``run.note``), or both, when
    ``full_drawn`` says the figure draws the committed full run (``run.cached``) beside this
    build's run. Then the caption also says which curves are the full run and, where it is
    partial, which points of it ran (``run.partial``), unless ``text`` already tells it
    (``full_told``)."""
    both = (full_drawn and not exp.reused_full(run) and run.cached is not None
            and len(run.cached) > 0)
    if both and not full_told:  # how to read the figure: in the lead, before any details
        lead, marker, details = text.partition(viz.DETAILS)
        text = (f"{lead.strip()} Dash-dotted, square markers (\"full run\" in the legends): the "
                "committed full-scale run" + (f", {run.partial}" if run.partial else "") + "."
                + (f" {marker} {details.strip()}" if marker else ""))
    shown_profile, source = _caption_source(run, profile, both)
    return viz.caption(fig, paper_figure, text=text, profile=shown_profile, source=source)


def caption_of(run: Any, paper_figure: str, text: str, profile: str) -> Any:
    """The caption of a display drawn from ``run``'s table without a Figure of its own (the
    sliders of Sec. 6), with the source :func:`show` would give it (:func:`_caption_source`)."""
    shown_profile, source = _caption_source(run, profile)
    return viz.caption(text, paper_figure, profile=shown_profile, source=source)


def appendix_recipe_note() -> str:
    """Which recipes App. B.1's and B.2's ``full`` runs train with, and where they come from:
    the official ``experiments.ipynb`` cells that write the appendix CSVs (App. B.1 with App. B's
    stated recipe, App. B.2 with 3 layers and its own), beside the separate scripts whose values
    match no CSV, and the layers that the plotting script ``EXP_depth.py`` names in its titles
    and counts in Fig. 10's parameter axis (our reading of the official code); every number read
    from the profiles and from :data:`memnb.papers.dana.TEXT`."""
    text = paper.TEXT
    dim, exp1 = exp.get_params("dana.appendix_dim", "full"), exp.get_params("dana.exp1", "full")
    depth = exp.get_params("dana.appendix_depth", "full")
    train, b2 = dim["train"], depth["train"]
    batches, size, epochs = (int(text[k].value) for k in (
        "batches_appendix", "batch_size_appendix", "epochs_appendix"))
    same = (train["steps"], train["batch"], train["samples"]) == (batches * epochs, size,
                                                                 batches * size)
    fig7 = ("the same data and steps" if all(dim["exp5"][k] == train[k] for k in (
        "steps", "batch", "samples")) else f"{dim['exp5']['steps']:,} steps of "
        f"{dim['exp5']['batch']:,}")
    layers_text, layers_code, layers_script = (int(text[k].value) for k in (
        "depth_layers_text", "depth_layers_code", "depth_layers_script"))
    return (f"**Training budget at N = {dim['N']}.** Experiment 1's budget ({exp1['steps']:,} "
            f"steps of {exp1['batch']:,}) is sized for the {exp1['N'] ** 2:,} contexts of "
            f"N = {exp1['N']}; N = {dim['N']} has {dim['N'] ** 2:,}. The official notebook "
            f"(`experiments.ipynb`), whose cells write the B.1 CSVs, trains every B.1 model with "
            f"the recipe App. B states ({batches} batches of {size:,} elements, {epochs} "
            f"epochs), and so do our `full` Figs. 5-7: {train['steps']:,} steps of "
            f"{train['batch']:,} on a sample of {train['samples']:,} contexts"
            + ("" if same else " (which differs from the stated recipe)")
            + f", learning rate {train['lr']:g} → {train['lr_final']:g}; Fig. 7's MLP model on "
            f"{fig7}, to {dim['exp5']['lr_final_mlp']:g}. "
            f"**Depth (App. B.2).** The paper says {layers_text} layers; the notebook cells that "
            f"write the B.2 CSVs set `nb_layers = {layers_code}` (the titles of its plotting "
            f"script, `EXP_depth.py`, say {int(text['depth_layers_titles'].value)} too, while, "
            "in our reading of that script, the x-axis of the paper's Fig. 10 counts the "
            f"parameters of {layers_text} layers, the text's number), so our `quick` and "
            f"`full` runs use {depth['layers']}, with that notebook's recipe in `full`: "
            f"{b2['steps']:,} steps of {b2['batch']:,} on {b2['samples']:,} contexts at a "
            f"constant learning rate {b2['lr']:g}. In our reading of the official code, two "
            "separate files of it set other values on grids no official CSV holds: the notebook "
            "`expe_dim.ipynb` "
            f"({int(text['dim_notebook_batches'].value):,} batches of "
            f"{int(text['dim_notebook_batch_size'].value):,}, "
            f"{int(text['dim_notebook_epochs'].value)} epochs, the first two tokens each drawn "
            f"from {int(text['dim_notebook_tokens'].value)} of the {dim['N']}) and the script "
            f"`expe_depth.py` (`nb_layers = {layers_script}`).")


#: The experiments whose tables the chapter's experiment figures draw, in the order the
#: chapter reads them: those of Secs. 5-7 (the chapter's ``runs``) and of Appendix B (its
#: ``appendix_runs``); :func:`execution_note` counts both.
MAIN_RUNS = ("dana.exp1", "dana.exp2", "dana.exp3", "dana.exp5", "dana.exp5_code", "dana.exp6",
             "dana.layout", "dana.layout_heads")
APPENDIX_RUNS = ("dana.appendix_dim", "dana.appendix_layout", "dana.appendix_depth")
CHAPTER_RUNS = MAIN_RUNS + APPENDIX_RUNS


def execution_note(profile: str, names: Iterable[str] = CHAPTER_RUNS,
                   root: Any = None) -> str:
    """One line under the page's execution header: which runs the experiment figures draw
    under ``profile`` (:func:`memnb.experiments.dana.chapter_results`): under ``quick``, the
    committed full-scale run of each experiment of ``names`` whose run is committed and
    complete, read in place of a `quick` rerun (how many, and which are rerun); under
    ``full``, the full-scale runs; under another profile, its own runs, with the committed
    full-scale run beside them where one is committed."""
    names = list(names)
    if profile == "full":
        return ("**Which runs.** The experiment figures draw the full-scale runs of this "
                "profile.")
    if profile == "quick":
        # the rule by which the chapter reads a full run in place (exp.chapter_results)
        complete = [n for n in names if exp.full_read_in_place(n, profile, root) is not None]
        rest = [n for n in names if n not in complete]
        text = (f"**Which runs.** Under this profile (`{profile}`) the experiment figures read "
                "the committed full-scale runs (profile `full`) where one is committed and "
                "complete: "
                + (f"every one of the {len(names)} experiments they draw"
                   if len(complete) == len(names) else
                   f"{len(complete)} of the {len(names)} experiments they draw"))
        if rest:
            text += ("; " + ", ".join(f"`{n}`" for n in rest) + (" is" if len(rest) == 1
                                                                   else " are")
                     + f" rerun under `{profile}`, beside the full run where one is committed")
        return text + ". Each caption says which run it draws."
    committed = [n for n in names if full_run_exists(n, root)]
    return ("**Which runs.** The experiment figures draw this profile's runs, with the "
            "committed full-scale run beside them where one is committed "
            f"({len(committed)} of the {len(names)} experiments). Each caption says which run "
            "it draws.")


def runs_note(runs: dict[str, Any], profile: str) -> str:
    """Markdown list of where each experiment's drawn table comes from (from the provenance),
    and which experiments have no committed full run (from whether the file exists)."""

    lines = [f"**Where the tables come from** (profile `{profile}`):", ""]
    lines += [f"- {run.note}." for run in runs.values()]
    lines += ["", accuracy_definitions_note(runs)]
    missing = [name for name in runs if not full_run_exists(name)]
    if missing:
        lines += ["", "No full-scale run is committed for " + ", ".join(f"`{m}`" for m in missing)
                  + ": " + ("its figure shows the reduced run of this profile, and its scorecard "
                            "row says so." if len(missing) == 1 else
                            "their figures show the reduced runs of this profile, and their "
                            "scorecard rows say so.")]
    return "\n".join(lines)


#: Where the chapter compares each committed full run with its replication (Section 7): the
#: target ``(dana-replications)=`` that the notebook sets before that paragraph, as a MyST link.
REPLICATIONS_LINK = "{ref}`Section 7 <dana-replications>`"


class ReplicationGap(NamedTuple):
    """A committed full run of the Dana et al. chapter (AISTATS 2025, Figs. 1-4 and ours)
    against its replication, read for :func:`replications_lead`: the same code run again
    (:func:`memnb.scorecard.replaced.replications`)."""

    name: str
    #: the accuracy column compared point by point (:func:`memnb.reruns.compared_column`);
    #: None for a table compared cell by cell (no accuracy column)
    column: str | None
    #: the largest |committed − replication| of ``column`` over the points both hold (NaN when
    #: ``column`` is None or no point is shared)
    largest: float
    #: the scorecard rows that read the committed run, judged again on the replication
    judged: int
    #: those whose status changes, as "item: committed → replication"
    changed: tuple[str, ...]
    #: the replication equals, cell for cell, the table the committed run replaced, and the
    #: committed run does not (:attr:`memnb.reruns.AgainstReplaced.committed_apart`)
    replaced_equal: bool


def replication_gaps(rows: Iterable[Any], names: Iterable[str],
                     root: Any = None) -> list[ReplicationGap]:
    """Each experiment of ``names`` (the Dana et al. chapter's, AISTATS 2025) whose committed
    full run has a replication of the same code
    (:func:`memnb.scorecard.replaced.replications`, which judges every one of ``rows``, the
    scorecard rows, that reads the committed run again on it), as a :class:`ReplicationGap`:
    the data of the chapter's Section 7 paragraphs on replications
    (:func:`memnb.scorecard.replaced.chapter_replications`), for the sentence that opens its
    experiments (:func:`replications_lead`). ``root``: the results root (the committed
    ``data/results`` when None)."""
    from memnb.scorecard.replaced import replications

    found = []
    for r in replications(list(rows), list(names), root):
        if not r.same_code:  # named in Section 7, not compared
            continue
        gap = r.gap  # the compared accuracy column, as Section 7 reads it
        largest = gap.largest if gap is not None and gap.points else float("nan")
        found.append(ReplicationGap(
            r.name, None if gap is None else gap.column, float(largest), len(r.judged),
            tuple(j.words() for j in r.judged if j.changed),  # as the scorecard words them
            bool(r.against_replaced is not None and r.against_replaced.committed_apart)))
    return found


MAIN_FIGURES = "The figures of Sections 5 to 7"
"""Where the main experiments' runs (:data:`MAIN_RUNS`) are drawn, as :func:`replications_lead`
names them: the App. B figures of Section 8 read runs of their own, said there."""


def replications_lead(gaps: Iterable[ReplicationGap], drawn: Iterable[str],
                      link: str = REPLICATIONS_LINK) -> str:
    """The sentence that opens the chapter's experiments (Dana et al. Sec. 5, Figs. 1-4, and
    our Section 7 figures): which committed full runs the figures draw (``drawn``, the
    experiments whose figure reads the committed run), how far the replications among
    ``gaps`` (:func:`replication_gaps`) of those runs are from them (the largest accuracy
    difference, and the run where it is), whether a verdict changes on a replication, and for
    how many the replication equals the table the committed run replaced, so that only the
    committed run differs from both; ``link`` points to where Section 7 gives each in full."""
    drawn = list(drawn)
    if not drawn:
        return (f"{MAIN_FIGURES} draw the runs of this profile, not committed full runs; the "
                f"committed full runs are compared with their replications in {link}.")
    reps = [g for g in gaps if g.name in drawn]
    head = (f"{MAIN_FIGURES} draw the committed full runs of {counted(len(drawn), 'experiment')}"
            if len(drawn) > 1 else f"{MAIN_FIGURES} draw the committed full run of `{drawn[0]}`")
    if not reps:
        return (f"{head}; " + ("none of them has" if len(drawn) > 1 else "it has no")
                + f" committed replication ({link}).")
    several = len(reps) > 1
    text = (f"{head}. " + (f"{number_word(len(reps)).capitalize()} of them were"
                           if several else "It was")
            + " computed again by the same code, in another run, as "
            + ("replications" if several else "a replication") + f" ({link})")
    measured = [g for g in reps if g.column is not None and np.isfinite(g.largest)]
    if measured:
        worst = max(measured, key=lambda g: g.largest)
        what = " or ".join(f"`{c}`" for c in sorted({str(g.column) for g in measured}))
        text += (f": the accuracy the figures draw ({what}) differs between "
                 + ("a committed run and its replication" if several
                    else "the committed run and the replication")
                 + f" by up to {worst.largest:.3f}" + (f" (`{worst.name}`)" if several else ""))
    judged = sum(g.judged for g in reps)
    changed = [c for g in reps for c in g.changed]
    if not judged:
        text += "; no scorecard row reads " + ("them." if several else "it.")
    elif not changed:
        text += (", and no verdict changes when its row is judged again on a replication "
                 f"({counted(judged, 'such judgement')}).")
    else:
        text += (f", and {len(changed)} of the {counted(judged, 'verdict')} judged again on a "
                 f"replication change{'s' * (len(changed) == 1)}: {'; '.join(changed)}.")
    equal = [g for g in reps if g.replaced_equal]
    if equal:
        count = ("every one of them" if len(equal) == len(reps)
                 else f"{number_word(len(equal))} of them")
        text += (f" For {count if several else 'it'}, the replication equals, cell for cell, "
                 "the table the committed run replaced (of earlier code or profile): the "
                 "committed run is the one that differs from both.")
    return text + " " + WHY_COMMITTED


WHY_COMMITTED = (
    "Why the figures draw the committed run and not its replication: the two share the code, "
    "the grid and the seeds, and differ only in the machine that ran them (the CPU picks the "
    "numerical kernels, and so the rounding of floating-point sums, whose last bits training "
    "carries forward), so neither is the more right one; the committed run is the one the "
    "chapter's verdicts are judged on, and the replication the check of it, on which Section 7 "
    "judges every such verdict again.")
"""Said after the replications of the runs the figures draw (:func:`replications_lead`): a
reviewer asked why a figure draws the committed run where its replication equals the table that
run replaced, so that the committed run is the one that differs from both."""


def replications_lead_markdown(rows: Iterable[Any], runs: Mapping[str, Any], profile: str,
                               root: Any = None) -> str:
    """:func:`replications_lead` for the chapter's ``runs`` (name: its
    :func:`memnb.experiments.dana.chapter_results`) under ``profile``: the figures draw the
    committed full run of those read in place (:func:`memnb.experiments.dana.reused_full`), or
    of every one under ``full``; ``rows`` are the chapter's scorecard rows (judged again on each
    replication, as in Section 7)."""
    drawn = [name for name, run in runs.items() if profile == "full" or exp.reused_full(run)]
    return replications_lead(replication_gaps(rows, drawn, root) if drawn else [], drawn)


#: The verdicts at the end of the paragraphs of the chapter's Section 4 (statements without
#: numbers in the paper, computed), by glue name (the name a paragraph's verdict is glued
#: under, or, for a paragraph that a function writes, its key), and the title of the scorecard
#: row (:mod:`memnb.scorecard.dana`) whose status each one is (:func:`section_verdict`).
SECTION4_VERDICTS: dict[str, str] = {
    "thm1_status": "Theorem 1",
    "remark2_status": "Remark 2",
    "thm2_status": "Theorem 2",
    "cor2_status": "Corollary 2",
    "ls_status": "Slides (June 2024): least-squares maps",
    "table1_status": "Table 1",
    "bietti_status": "Preprint §6: associative memory",
    # not glued: the section's last paragraph (:func:`rank_d_memory_paragraph`)
    "rank_d_status": "Sec. 5.1: rank-d memory",
}


def section_verdict(rows: Mapping[str, Any], name: str, own: Any) -> tuple[str, str]:
    """The verdict glued as ``name`` (a key of :data:`SECTION4_VERDICTS`) at the end of a
    paragraph of the chapter's Section 4 (Dana et al.'s statements without numbers, computed):
    the status of its scorecard row, ``rows[SECTION4_VERDICTS[name]]`` (a
    :class:`memnb.scorecard.core.Row` of :func:`memnb.scorecard.dana.rows`), and the words,
    computed from the row, that say why it differs from ``own``, the status of the paragraph's
    own check (a :class:`memnb.scorecard.criteria.Verdict` of
    :mod:`memnb.scorecard.dana_theory`): ``""`` when the two agree; else, in parentheses, the
    name of the row's cap (the head of :func:`memnb.scorecard.criteria.cap_reason`, e.g. Table
    1's "holds by construction", whose whole reason the row in Section 9 gives), the row's text
    when it is not run or not computable, or that the row joins other checks and takes the
    weakest status."""
    from memnb.scorecard.criteria import cap_reason

    row = rows[SECTION4_VERDICTS[name]]
    if row.status == own.status:
        return row.status, ""
    lead = f" (the scorecard row's status; this check alone gives {own.status}"
    reason = cap_reason(row.measured).strip()[1:-1]
    if reason and row.status == "trend" and own.status == "reproduced":
        head = reason.split(":", 1)[0]  # the cap's name; its whole reason is the row's
        return row.status, (f"{lead}, capped at trend: {head}, as the row in Section 9 says "
                            "in full)")
    if row.status in ("not run", "not computable"):
        return row.status, f"{lead}; the row is {row.status}: {row.measured})"
    return row.status, (f"{lead}; the row also judges its other checks and takes the weakest "
                        "status of them all, as the scorecard of Section 9 shows)")


def accuracy_definitions_note(runs: dict[str, Any]) -> str:
    """One sentence on the two accuracies (the official code's mean over the last training
    batches and our best checkpoint's on the training sample), measured on the drawn tables
    that hold both: how far apart they are, and which tables hold only the checkpoint's."""
    both, only_checkpoint = [], []
    for name, run in runs.items():
        in_place = exp.reused_full(run)  # run.fresh is then the committed full run
        for table, full in ((run.fresh, in_place), (run.cached, True)):
            if table is None:
                continue
            if "accuracy_checkpoint" in table:
                both.append(table.assign(experiment=name, full_run=full))
            elif name not in only_checkpoint:
                only_checkpoint.append(name)
    text = ""
    if both:
        rows = pd.concat(both, ignore_index=True)
        gap = (rows["accuracy"] - rows["accuracy_checkpoint"]).abs()
        worst = rows.loc[gap.idxmax()]
        full = int(rows["full_run"].sum())
        if full == len(rows):
            which = "all of them from the committed full runs"
        elif full == 0:
            which = "all of them from this build's runs"
        else:
            which = (f"{full} from the committed full runs and {len(rows) - full} from this "
                     "build's runs")
        text = (f"**Which accuracy.** The paper's numbers are the official code's mean over the "
                f"last {exp.OFFICIAL_BATCH_WINDOW} training batches; ours hold it beside the best "
                f"checkpoint's accuracy on the training sample. Over the {len(rows)} points that "
                f"hold both ({which}), the two differ by {gap.mean():.4f} on average and by at "
                f"most {gap.max():.4f} (`{worst['experiment']}`, {worst.get('model', 'aot')}, "
                f"d = {int(worst['d'])}), and each comparison below uses the code's mean.")
    else:
        text = ("**Which accuracy.** No drawn table holds the official code's mean over the last "
                f"{exp.OFFICIAL_BATCH_WINDOW} training batches yet.")
    if only_checkpoint:
        text += (" Tables computed before it was recorded compare the best checkpoint's accuracy "
                 "instead: " + ", ".join(f"`{n}`" for n in only_checkpoint) + ".")
    clause = all_contexts_note(runs)
    return f"{text} {clause}" if clause else text


#: The experiments whose accuracy on all contexts the "Which accuracy" note compares with the
#: plotted one (:func:`all_contexts_note`): Figs. 1a, 1b and 2a.
ALL_CONTEXTS_RUNS = ("dana.exp1", "dana.exp2", "dana.exp3")


def _drawn_full(run: Any) -> tuple[pd.DataFrame | None, bool]:
    """The table of ``run`` the note reads: the committed full run where the chapter read it in
    place or drew it beside its own (``run.cached``), else this build's; and whether it is the
    committed full run."""
    if exp.reused_full(run):
        return run.fresh, True
    if run.cached is not None and len(run.cached):
        return run.cached, True
    return run.fresh, False


def all_contexts_note(runs: Mapping[str, Any]) -> str:
    """The "Which accuracy" note's clause on the accuracy over all ``N^S`` contexts (the best
    checkpoint's, the expectation under a uniform prior that Corollary 2 bounds) against the
    plotted one, the code's mean over the last batches, on Experiments 1-3
    (:data:`ALL_CONTEXTS_RUNS`; :func:`memnb.dana_reading.all_contexts_gap`): how far below it
    lies per experiment (mean and largest gap over the trained models), and whether Experiment
    1's seed means on all contexts still lie on or above Corollary 2's φ at every point
    (:func:`memnb.dana_reading.corollary2_points`), with the smallest ratio to φ on each
    measure. Empty when no drawn table of them records both."""
    cells, full, exp1, lengths = [], [], None, set()
    names: list[str] = []
    lower = total = 0
    for name in ALL_CONTEXTS_RUNS:
        if name not in runs:
            continue
        table, is_full = _drawn_full(runs[name])
        gap = None if table is None else all_contexts_gap(table)
        if gap is None or gap.empty:
            continue
        full.append(is_full)
        lengths |= set(table["S"].astype(int)) if "S" in table else {0}
        lower, total = lower + int((gap > 0).sum()), total + len(gap)
        cells.append(f"`{name}` by {gap.mean():.3f} on average and by at most {gap.max():.3f}")
        names.append(name)
        if name == "dana.exp1":
            exp1 = table
    if not cells:
        return ""
    which = ("the committed full runs" if all(full) else "this build's runs" if not any(full)
             else "the committed full runs where they exist, else this build's runs")
    which += " of " + ", ".join(f"`{name}`" for name in names)  # not every committed run
    where = "at every one of the" if lower == total else f"at {lower} of the"
    contexts = contexts_words(lengths)
    text = (f"The accuracy over all {contexts} contexts (the best checkpoint's over every "
            f"context, the expectation under a uniform prior that Corollary 2 bounds) lies "
            f"below the plotted one {where} {total} trained models of {which}: "
            f"{'; '.join(cells)}.")
    if exp1 is not None:
        points = corollary2_points(exp1)
        ratio_all = points["all_contexts"] / points["phi"]
        ratio_plotted = points["plotted"] / points["phi"]
        above = int(reaches_phi(points["all_contexts"], points["phi"]).sum())
        still = ("still " if bool(reaches_phi(points["plotted"], points["phi"]).all())
                 else "")
        holds = (f"{still}lies on or above Corollary 2's φ(H d_h + d) at every point"
                 if above == len(points) else
                 "lies on or above Corollary 2's φ(H d_h + d) at no point" if above == 0 else
                 "lies on or above Corollary 2's φ(H d_h + d) at only some points")
        text += (f" On all contexts, Experiment 1's seed mean {holds} ({above} of "
                 f"{len(points)}; smallest ratio to φ {ratio_all.min():.2f}×, against "
                 f"{ratio_plotted.min():.2f}× on the plotted accuracy).")
    return text


def exp1_against_paper(table: pd.DataFrame) -> pd.DataFrame:
    """Experiment 1 (Fig. 1a) against the paper's CSV, point by point: our seed-averaged
    accuracy minus the CSV's at every (d, H) both have, per d. Columns: d, points, below (how
    many of them ours is below the paper's), mean_difference (ours − paper, over all points of
    that d), mean_abs (mean |ours − paper|, the verdict's quantity at d = 10), mean_below (over
    the points below; NaN when none). Empty unless N is the paper's (50)."""
    if int(table["N"].iloc[0]) != 50:
        return pd.DataFrame(columns=["d", "points", "below", "mean_difference", "mean_abs",
                                     "mean_below"])
    ours = table.groupby(["d", "H"])["accuracy"].mean()
    theirs = paper.exp1().set_index(["d", "H"])["accuracy"]
    common = ours.index.intersection(theirs.index)
    diff = (ours[common] - theirs[common]).rename("diff").reset_index()
    rows = []
    for d, part in diff.groupby("d"):
        below = part[part["diff"] < 0]["diff"]
        rows.append({"d": int(d), "points": len(part), "below": len(below),
                     "mean_difference": float(part["diff"].mean()),
                     "mean_abs": float(part["diff"].abs().mean()),
                     "mean_below": float(below.mean()) if len(below) else float("nan")})
    return pd.DataFrame(rows)


def exp1_below_sentence(table: pd.DataFrame, d: int = 10) -> str:
    """Where our Fig. 1a lies below the paper's CSV, computed (:func:`exp1_against_paper`): over
    every point, at every H of which d, and at the verdict's panel ``d``; empty when nothing can
    be compared."""
    per = exp1_against_paper(table)
    if per.empty:
        return ""
    total, below = int(per["points"].sum()), int(per["below"].sum())
    diff = (per["mean_below"] * per["below"]).sum() / below if below else float("nan")
    text = f"Ours lies below the paper's CSV at {below} of {total} points"
    if below:
        text += f" (by {-diff:.3f} on average there)"
    every = [int(r.d) for r in per.itertuples() if r.below == r.points]
    if every:
        text += f"; at every H for d = {', '.join(map(str, every))}"
    at = per[per["d"] == d]
    if len(at):
        r = at.iloc[0]
        text += (f"; at d = {d}, at {int(r['below'])} of {int(r['points'])} H"
                 if r["below"] else f"; at d = {d}, at none of {int(r['points'])} H")
    return text + "."


def exp1_caption(table: pd.DataFrame, row: Any) -> str:
    """Fig. 1a's caption: what is drawn, the bound check over every point of every panel, where
    ours is below the paper's CSV, the verdict (read on the panel d = 10) and its margin to the
    tolerance."""
    from memnb.scorecard.dana import ACC_TOL

    panels = int(table["d"].nunique())
    at = exp1_against_paper(table).set_index("d")
    outside = at[at["mean_abs"] > ACC_TOL]  # the verdict's rule: within when ≤ the tolerance
    lead = (f"Accuracy against the number of heads H, one panel per d = d_h (N = "
            f"{int(table['N'].iloc[0])}), beside the paper's official CSV at the same d; dashed: "
            "Corollary 2's bound and the previous one. The verdict reads the panel d = 10, the "
            "setting of the paper's text")
    if len(at) > 1 and len(outside):
        lead += (f"; by its measure, {len(outside)} of the {counted(len(at), 'panel')} compared "
                 f"{'is' if len(outside) == 1 else 'are'} outside its tolerance")
    elif len(at) > 1:
        lead += (f"; by its measure, each of the {counted(len(at), 'panel')} compared is within "
                 "its tolerance")
    lead += "."
    text = (f"Over all {counted(panels, 'panel')}, {bound_sentence(table, ['d', 'H'])}. "
            f"{exp1_below_sentence(table)}".rstrip())
    if 10 in at.index:
        mad = float(at.loc[10, "mean_abs"])
        text += (f" There the mean |ours − paper| of this table is {mad:.4f} (tolerance "
                 f"{ACC_TOL:g}), {margin_words(mad, ACC_TOL)}.")
    if len(at) > 1:
        text += f" {exp1_panels_sentence(table)}"
    return folded_report(lead, [text], (row,))


def exp1_panels_sentence(table: pd.DataFrame) -> str:
    """Fig. 1a panel by panel against the paper's CSV (:func:`exp1_against_paper`): each
    panel's mean |ours − paper|, how many exceed the verdict's tolerance
    (:data:`memnb.scorecard.dana.ACC_TOL`, which the verdict applies to d = 10 only), and the
    largest single gap; empty when nothing can be compared."""
    from memnb.scorecard.dana import ACC_TOL

    at = exp1_against_paper(table)
    if at.empty:
        return ""
    outside = at[at["mean_abs"] > ACC_TOL]
    ours = table.groupby(["d", "H"])["accuracy"].mean()
    theirs = paper.exp1().set_index(["d", "H"])["accuracy"]
    gaps = (ours - theirs).dropna().abs()
    (d_max, h_max) = gaps.idxmax()
    text = ("Per panel, the mean |ours − paper| is " + ", ".join(
        f"{r.mean_abs:.3f} (d = {int(r.d)})" for r in at.itertuples())
        + f"; {len(outside)} of {counted(len(at), 'panel')}")
    if len(outside):
        text += " (d = " + ", ".join(str(int(d)) for d in outside["d"]) + ")"
    text += (f" exceed{'s' if len(outside) == 1 else ''} the tolerance of {ACC_TOL:g} that the "
             "verdict applies to d = 10 only")
    return (text + f". The largest single gap is {gaps.max():.3f}, at d = {int(d_max)}, "
            f"H = {int(h_max)}.")


def _ratio_words(ratio: float, d_h: int) -> str:
    """Whether Fig. 1a's ``ratio`` (our per-head slope over Corollary 2's, i.e. the associations
    a head stores over the bound's ``d_h``) says that heads store far more than ``d_h``
    associations each: "well above 1" when above the top of a band, defined in the words for
    this ratio, in which we read it as about ``d_h`` associations per head (ours; the same
    bounds as :data:`memnb.scorecard.dana_theory.BIETTI_RATIO`). The ratio is judged as
    printed, to one decimal, so that the words never contradict the number."""
    from memnb.scorecard.dana_theory import BIETTI_RATIO

    ratio = round(float(ratio), 1)
    top = BIETTI_RATIO[1]
    band = (f"{top:g}, the top of the band [{BIETTI_RATIO[0]:g}, {top:g}] in which we read this "
            f"ratio as about d_h = {d_h} associations per head; ours")
    if ratio > top:
        return f"our ratio of {ratio:.1f} is well above 1 (above {band}), so ours says the same"
    if ratio > 1:
        return (f"our ratio of {ratio:.1f} is above 1 but not well above it (not above {band}), "
                f"so ours says only that its heads store about d_h = {d_h} associations each, "
                "not far more")
    return (f"our ratio of {ratio:.1f} is not above 1, so ours does not say the same: its heads "
            f"store no more than the bound's d_h = {d_h} associations each")


def exp1_reading(table: pd.DataFrame, row: Any) -> str:
    """Markdown paragraph on Fig. 1a's per-head slope at d = 10 (or the largest d run): ours,
    the paper's (at N = 50) and whether our ratio to Corollary 2's slope says, as the paper's
    does, that heads store far more than d_h associations each (:func:`_ratio_words`)."""
    d = 10 if 10 in set(table["d"]) else int(table["d"].max())
    n = int(table["N"].iloc[0])
    report = slope_report(table[table["d"] == d], n=n, d_h=d)
    parts = [f"**Reading Fig. 1a.** At d = d_h = {d} our accuracy rises by {report['slope']:.4f} "
             f"per head (official rule: least squares on the seed-averaged curve up to the first "
             f"accuracy above 0.95), {report['ratio']:.1f}× the {report['bound_slope']:.4f} per "
             f"head that Corollary 2 guarantees."]
    if n == 50:
        theirs = paper.exp1_slopes().set_index("d").loc[d, "slope"]
        per_head = theirs * n * n / (1 - 1 / n)
        rel = 100 * (report["slope"] / theirs - 1)
        parts.append(f"The paper's CSV gives {theirs:.4f} per head, so ours is "
                     f"{abs(rel):.0f} % {'below' if rel < 0 else 'above'} it. Its point is that "
                     f"trained heads store far more than the bound's d_h = {d} associations each "
                     f"(its slope is {per_head:.0f} associations per head at N = {n}); "
                     f"{_ratio_words(report['ratio'], d)}.")
    parts.append(verdict_recalled(row))
    return " ".join(parts)


def exp2_caption(table: pd.DataFrame, row: Any) -> str:
    """Fig. 1b's caption with our and the paper's a·d_h² + b fits and the verdict."""
    mean = table.groupby("d_h")["accuracy"].mean()
    a, b = np.polyfit(mean.index.to_numpy(float) ** 2, mean.to_numpy(), 1)
    theirs = paper.exp2_quadratic_fit()
    lead = (f"Accuracy against the head dimension d_h at d = {int(table['d'].iloc[0])}, H = "
            f"{int(table['H'].iloc[0])}, N = {int(table['N'].iloc[0])}"
            + (", beside the paper's official CSV" if paper_setting(table, N=50, d=10, H=20)
               else "") + "; dashed: Corollary 2's bound and the previous one.")
    return folded_report(lead, [
        f"{bound_sentence(table, 'd_h')}. Our fit "
        f"a·d_h² + b gives a = {a:.5f}; the paper's CSV gives a = {theirs.value:.5f} (it calls "
        "the growth quadratic). That fit has no linear term, so a > 0 says only that the "
        "accuracy grows; whether it grows convexly is decided by the 95 % interval of the "
        "curvature c₂ of a full quadratic (convex when above 0, not decided when it holds 0), "
        "which the verdict reads."], (row,))


def paper_outside_model() -> dict[str, int]:
    """Where the paper's own Experiment 3 (Fig. 2a, official Data_exp_3.csv) runs outside its
    Sec. 2 model definition (``d_h ≤ d``): ``points`` of ``total`` CSV points have d < d_h, at
    d from ``d_min`` to ``d_max`` (``d_h`` the CSV's head dimension)."""
    table = paper.exp3()
    outside = table[table["d"] < table["d_h"]]
    return {"points": len(outside), "total": len(table), "d_h": int(table["d_h"].iloc[0]),
            "d_min": int(outside["d"].min()) if len(outside) else 0,
            "d_max": int(outside["d"].max()) if len(outside) else 0}


def exp3_bound_sentence(table: pd.DataFrame) -> str:
    """Fig. 2a against Corollary 2, counted apart on each side of d = d_h (ours): at d ≥ d_h the
    condition d_h ≤ d of the paper's model definition (Sec. 2, with its footnote 1) holds and
    the bound is φ(H d_h + d); at d < d_h, where the paper's own Experiment 3 also runs
    (:func:`paper_outside_model`), each head's W_O^h W_V^h and W_QK^h have rank at most d, so
    the model is one with d_h = d and the proof reaches only H·min(d_h, d) + d associations: the
    points there are counted against both the stated φ(H d_h + d) and φ(H·min(d_h, d) + d).
    Sentences without the final full stop, each side starting its own."""
    d_h = int(table["d_h"].iloc[0])
    inside, outside = table[table["d"] >= d_h], table[table["d"] < d_h]
    parts = []
    if len(inside):
        c = bound_check(inside, "d")
        parts.append(f"at d ≥ d_h = {d_h}, where the condition d_h ≤ d of the paper's model "
                     f"(its Sec. 2) holds, "
                     f"{c['above_bound']} of {c['points']} seed-averaged points lie on or above "
                     f"Corollary 2's φ(H·d_h + d) and {c['above_previous']} of {c['points']} "
                     "above the previous bound")
    if len(outside):
        c = bound_check(outside, "d")
        n, t0 = int(table["N"].iloc[0]), int(table["T0"].iloc[0])
        mean = outside.groupby("d").agg(accuracy=("accuracy", "mean"), H=("H", "first"))
        reach = _phi(mean["H"].to_numpy() * np.minimum(d_h, mean.index.to_numpy())
                     + mean.index.to_numpy(), n, t0)
        above = int((mean["accuracy"].to_numpy() >= reach).sum())
        own = paper_outside_model()
        parts.append(f"at d < d_h (shaded), outside that condition (the paper's Sec. 2 "
                     f"defines the model with d_h ≤ d; its footnote 1 says d_h > d leaves the "
                     f"maps of full rank, which it calls suboptimal), the paper's own "
                     f"Experiment 3 runs d_h = {own['d_h']} above d at {own['points']} of the "
                     f"{own['total']} points of its CSV (d = {own['d_min']}–{own['d_max']}). "
                     f"There each head's maps have rank at most d, so the model is one with "
                     f"d_h = d and the proof reaches only H·min(d_h, d) + d associations (ours). "
                     f"Of our seed-averaged points at d < d_h, {c['above_bound']} of "
                     f"{c['points']} lie on or above the stated φ(H·d_h + d) and {above} of "
                     f"{c['points']} on or above φ(H·min(d_h, d) + d) (the orange line)")
    # one sentence per side: the second side starts its own sentence
    return ". ".join(p if i == 0 else p[:1].upper() + p[1:] for i, p in enumerate(parts))


def exp3_caption(table: pd.DataFrame, row: Any) -> str:
    """Fig. 2a's caption with the bound counts on each side of d = d_h
    (:func:`exp3_bound_sentence`) and the verdict (departure over every value of the paper's
    CSV)."""
    text = exp3_bound_sentence(table)
    lead = (f"Accuracy against the embedding dimension d at H = {int(table['H'].iloc[0])}, "
            f"d_h = {int(table['d_h'].iloc[0])}, N = {int(table['N'].iloc[0])}; the paper's CSV "
            f"has all {len(paper.exp3())} values of d. For d < d_h the heads are wider than the "
            "embedding, as in the official code.")
    return folded_report(lead, [f"Against Corollary 2, counted on each side of d = d_h: "
                                f"{text or 'no point'}."], (row,))


def exp4_caption(table: pd.DataFrame, row: Any) -> str:
    """Fig. 2b's caption: what the two fits can show on these slopes, and the verdict."""
    return folded_report("Per-head slope of Experiment 1 against d = d_h by the official rule "
                         "(seed-averaged curves), with the fits a·d² + b and a·d³ + b. The "
                         "dashed line is Corollary 2's slope, linear in d.",
                         [f"The fits: {fits_report(table)}."], (row,))


def _reversed(order: pd.DataFrame) -> pd.DataFrame:
    """The rows of an :func:`exp5_order` table where our order is the reverse of the paper's
    (a tie on either side is no order, so not a reversal)."""
    if order.empty:
        return order
    ordered = order["paper_ahead"].isin(["AoT", "MLP"]) & order["ours_ahead"].isin(["AoT", "MLP"])
    return order[ordered & (order["ours_ahead"] != order["paper_ahead"])]


def _order_cells(order: pd.DataFrame, with_seeds: bool = False) -> str:
    """``exp5_order`` rows as prose: our two accuracies (with their seed counts when
    ``with_seeds``), which is ahead, the paper's CSV."""

    cells = []
    for r in order.itertuples():
        cell = f"d = {r.d}, H = {r.H}"
        cell += f" ({seeds_words(r)})" if with_seeds else ""
        cell += f": AoT {r.ours_aot:.3f} vs MLP {r.ours_mlp:.3f}"
        if r.paper_ahead is not None:
            cell += (f" ({ahead_words(r.ours_ahead)}; the paper's CSV {r.paper_aot:.3f} vs "
                     f"{r.paper_mlp:.3f}, {ahead_words(r.paper_ahead)}: "
                     f"{order_words(r.ours_ahead, r.paper_ahead)})")
        cells.append(cell)
    return "; ".join(cells)


def exp5_drawn_sentence(table: pd.DataFrame) -> str:
    """What Fig. 3's curves of ours are (:func:`exp5_figure`): the median over seeds with a
    min–max band and every seed a dot, where the seeds split at the largest H (from
    :func:`memnb.dana_reading.exp5_order`: range, median and mean of each model), and which
    statistic the Fig. 3 verdict reads (the medians where the seeds split, else the means)."""
    from memnb.dana_reading import SEED_SPLIT

    seeds = int(table["seed"].nunique()) if "seed" in table else 1
    if seeds <= 1:
        return "Ours: one seed per point, drawn as a line."
    text = (f"Ours: the line is the median over seeds (up to {counted(seeds, 'seed')}), the band "
            "runs from the lowest seed to the highest (min–max) and each seed is a faint dot, as "
            f"in the Experiment 5 panels ({appendix_places()['exp5']}) of the App. B figures")
    order = exp5_order(table)
    split = order[order["split"]] if len(order) else order
    if len(split):
        text += ("; at the largest H the seeds split at " + "; ".join(
            f"d = {r.d}, H = {r.H}: AoT {r.aot_lo:.3f}–{r.aot_hi:.3f} (median "
            f"{r.aot_median:.3f}, mean {r.ours_aot:.3f}), MLP {r.mlp_lo:.3f}–{r.mlp_hi:.3f} "
            f"(median {r.mlp_median:.3f}, mean {r.ours_mlp:.3f})" for r in split.itertuples()))
    return (text + f". The Fig. 3 verdict reads the seed medians where the seeds split (a range "
            f"over {SEED_SPLIT:g}) and the seed means elsewhere; the numbers below are seed "
            "means unless called medians.")


def exp5_caption(run: Any, row: Any, code_ds: Iterable[int] | None = None,
                 code: pd.DataFrame | None = None) -> str:
    """Fig. 3's caption: whether a full run exists (from the file), the budget of the drawn
    run against the paper's, the parameter counts of the x-axis (:func:`exp5_params_sentence`,
    with the official code's models from ``code``, the ``dana.exp5_code`` table, when given),
    the AoT/MLP order at the largest H per d, and the verdict; ``code_ds``, the d values of the
    ``dana.exp5_code`` table Sec. 7 draws, named in the pointer to it."""

    table, params = run.fresh, run.params
    full = exp.get_params("dana.exp5", "full")
    paper_budget = params["steps"] == full["steps"]  # the drawn run is the full run
    budget = (f"{params['steps']:,} steps of {params['batch']:,} (the paper's code: "
              f"{full['steps']:,} of {full['batch']:,})")
    if getattr(run, "partial", None):
        head = (f"The committed full run of Experiment 5 is {run.partial}; it is drawn beside "
                f"this profile's `{run.name}` run ({budget}); the text below reads both. ")
    elif not full_run_exists("dana.exp5"):
        head = (f"No full run of Experiment 5 is committed, so this is the `{run.name}` run of "
                f"this profile: {budget}. ")
    elif run.cached is not None:
        head = (f"This profile's `{run.name}` run ({budget}) is drawn beside the committed full "
                "run; the text below reads this profile's run. ")
    else:
        head = ""
    order = exp5_order(table)
    counts = (table if len(exp5_params(table)) or run.cached is None else run.cached)
    lead = (f"{head}Attention-only (H heads) against one head + MLP of width w = 2d(H−1), N = "
            f"{int(table['N'].iloc[0])}, accuracy against parameters. "
            f"{exp5_drawn_sentence(table)} {verdict_status(row)}")
    text = (f"{exp5_params_sentence(counts, code)} At the largest H "
            f"we ran: {_order_cells(order, with_seeds=paper_budget)}.")
    full_order = exp5_order(run.cached) if run.cached is not None else pd.DataFrame()
    if len(full_order):
        text += (" The committed full run, at the paper's budget, has: "
                 f"{_order_cells(full_order, with_seeds=True)}.")
    full_table = run.cached if run.cached is not None else table if paper_budget else None
    level = "" if full_table is None else exp5_level_sentence(full_table)
    if level:
        text += f" {level}"
    reversed_ = _reversed(order)
    if len(reversed_) and params["steps"] < full["steps"] and (reversed_["ours_ahead"] ==
                                                               "AoT").all():
        text += (f" Where this profile's order is reversed, our MLP trails the AoT after "
                 f"{full['steps'] // params['steps']}× fewer steps than the paper's; the paper "
                 f"itself reads its comparison as the MLP being harder to optimise, which a "
                 f"shorter budget would accentuate (our reading, not a measurement).")
    full_reversed = _reversed(full_order)
    if len(full_reversed) and (full_reversed["ours_ahead"] == "MLP").any():
        text += (" At the paper's budget our MLP is ahead where the paper's trails, so an MLP "
                 "short of training does not explain the difference there.")
    why = [w for w, found in (("the reversed order", len(reversed_) or len(full_reversed)),
                              ("the level", bool(level))) if found]
    if why:
        ds = sorted({int(d) for d in (() if code_ds is None else code_ds)})
        at = f" at d = {' and '.join(map(str, ds))}" if ds else ""
        text += (" Section 7 sets eq. (2) beside the official code's models (ours; "
                 f"Experiment 1, and Experiment 5{at}), to see whether the model explains "
                 f"{' and '.join(why)}.")
    return viz.with_details(lead, f"{text} {verdict_sentence(row)}")


def exp6_caption(table: pd.DataFrame, row: Any) -> str:
    """Fig. 4's caption: our slope ratio to Corollary 2's (full value) beside the paper's (its CSV's
    by the official rule, and its caption's), stated as not judged (the scorecard's Fig. 4 row
    judges the accuracies), the bound check, the verdict."""
    n, d_h = int(table["N"].iloc[0]), int(table["d_h"].iloc[0])
    report = slope_report(table, n=n, d_h=d_h)
    ref = paper.exp6_slope_ratio()
    lead = (f"Accuracy against the number of heads H at N = {n}, d = d_h = {d_h} (T0 = "
            f"{int(table['T0'].iloc[0])})"
            + (", beside the paper's official CSV" if paper_setting(table, N=10, d=2) else "")
            + "; dashed: Corollary 2's bound and the previous one.")
    return folded_report(lead, [
        f"Our slope is {report['slope']:.4f} per head, {report['ratio']:.2f}× Corollary 2's "
        f"{report['bound_slope']:.3f}; the paper's CSV gives {float(ref['slope']):.4f} "
        f"({float(ref['ratio']):.2f}×), its caption's 'slope relative difference' is "
        f"{paper.TEXT['exp6_ratio_caption'].value:g}. Ours against the paper's is reported, not "
        f"judged: the verdict reads the accuracies against the paper's CSV (and, only where "
        f"they disagree, whether our slope exceeds Corollary 2's). "
        f"{bound_sentence(table, 'H')}."], (row,))


def headline(law: pd.DataFrame, row: Any, where: str = "in the caption above") -> str:
    """The chapter's own conclusion, computed: which models follow the paper's empirical law;
    ``where`` says where the verdict's numbers are (:func:`verdict_recalled`)."""
    if law.empty:
        return ("**Our conclusion (ours).** These tables have too few values of d_h and d "
                "(at least three, and two on each side of d = d_h) to test the law; the `quick` "
                "and `full` chapters test it. " + verdict_sentence(row))
    def models(state: str) -> list[str]:
        return [m for m, s in zip(law["model"], law["law"], strict=True) if s == state]

    undecided = models("not decided")
    return ("**Our conclusion (ours, computed).** The paper's empirical law, accuracy convex "
            "(its 'quadratic') in d_h and flat once d ≥ d_h, holds for: "
            + (", ".join(models("holds")) or "none") + "; it fails for: "
            + (", ".join(models("fails")) or "none")
            + (f"; it is not decided for: {', '.join(undecided)}" if undecided else "")
            + ". " + verdict_recalled(row, where))


#: Sec. 5's experiments by the training recipe they share (their ``full`` profiles).
RECIPE_GROUPS = {
    "Experiments 1–4 and 6 (and our `dana.layout`, `dana.layout_heads`)": (
        "dana.exp1", "dana.exp2", "dana.exp3", "dana.exp4", "dana.exp6", "dana.layout",
        "dana.layout_heads"),
    "Experiment 5 (and our `dana.exp5_code`)": ("dana.exp5", "dana.exp5_code"),
}
_RECIPE_KEYS = ("samples", "batch", "steps", "lr", "lr_final", "lr_final_mlp")


def _samples_words(n: int) -> str:
    """``16,384 (2^14)``: a sample size, with its power of two when it is one."""
    power = int(n).bit_length() - 1
    return f"{n:,}" + (f" (2^{power})" if n == 1 << power else "")


def training_recipe_note() -> str:
    """Sec. 5's training paragraph, generated from the ``full`` profiles of
    :data:`RECIPE_GROUPS`: the sample, batch, steps and learning rates of each group (the
    experiments of a group must share them: ``ValueError`` otherwise), so that no recipe is
    stated for an experiment that trains with another."""
    parts, quick = [], []
    for label, names in RECIPE_GROUPS.items():
        recipes = {name: {k: exp.get_params(name, "full").get(k) for k in _RECIPE_KEYS}
                   for name in names}
        first = recipes[names[0]]
        differ = [n for n, r in recipes.items()
                  if any(r[k] != first[k] for k in _RECIPE_KEYS if k != "lr_final_mlp")]
        if differ:
            raise ValueError(f"{', '.join(differ)} train otherwise than {names[0]}")
        mlp = first["lr_final_mlp"]
        parts.append(f"{label}: one sample of {_samples_words(first['samples'])} contexts, "
                     f"{first['steps']:,} steps of batches of {first['batch']:,}, learning rate "
                     f"{first['lr']:g} → {first['lr_final']:g}"
                     + (f" (→ {mlp:g} for the MLP model)" if mlp else ""))
        for name in names:
            small = exp.get_params(name, "quick")
            if any(small.get(k) != first[k] for k in ("samples", "batch", "steps")):
                quick.append(f"`{name}` {small['steps']:,} steps of {small['batch']:,} on "
                             f"{small['samples']:,} contexts")
    return ("**Training (official code; our `full` profiles).** Adam, the learning rate "
            "decaying linearly, every parameter trained; each experiment draws its training "
            "sample once (one data seed) and shares it across its models and seeds. "
            + "; ".join(parts) + ". "
            + (f"The `quick` profile trains {', '.join(quick)}; the others as in `full`. "
               if quick else "The `quick` profile trains them as `full` does. ")
            + "App. B's recipes are in Section 8.")


class CodeDifference(NamedTuple):
    """One way in which the official code's attention-only model differs from eq. (2)."""

    key: str  # "scale", "positions", "compression" or "initialisation"
    short: str  # the difference named in a few words
    text: str  # the difference in full, one clause
    at_equal_dims: bool  # whether it remains at d = d_h


#: How the official code's attention-only model (``models.py``, class ``Transformer`` without
#: MLP; our rewrite :class:`memnb.models.CompressedAttentionOnlyTransformer`, whose docstring
#: checks each item against that file) differs from eq. (2), which
#: :class:`memnb.models.AttentionOnlyTransformer` follows. The one list the chapter prints:
#: Section 5's "Our differences, on purpose" (:func:`on_purpose_markdown`), Section 7's list
#: of differences (:func:`differences_markdown`) and its test of the reading
#: (:func:`layout_intro_markdown`), which count it with :func:`code_differences_count`.
CODE_MODEL_DIFFERENCES: tuple[CodeDifference, ...] = (
    CodeDifference("scale", "the 1/√d_h attention-score scale",
                   "it divides the attention scores by √d_h (`nn.MultiheadAttention` does)",
                   True),
    CodeDifference("positions", "positions added only to the attention input",
                   "it adds the positions only to the attention input, not to the residual "
                   "stream", True),
    CodeDifference("compression", "one d → d_h compression shared by all heads",
                   "when d ≠ d_h, it maps every token from d to d_h with one matrix shared by "
                   "all heads and maps their summed output back with one d_h → d matrix, where "
                   "eq. (2) gives each head its own W_V^h from R^d and W_O^h into R^d", False),
    CodeDifference("initialisation",
                   "its initialisation (uniform embeddings, Xavier-uniform W_Q, W_K, W_V)",
                   "its initialisation: the token and positional embeddings are `nn.Linear` "
                   "weights, uniform in ±1/√d and ±1/√d_h, where eq. (2)'s are N(0, 1), and "
                   "W_Q, W_K, W_V are `nn.MultiheadAttention`'s `in_proj_weight`, "
                   "Xavier-uniform in ±√(6 / (4 d_h)), where eq. (2)'s are uniform in ±1/√d "
                   "(W_O^h and W_U are drawn alike in both: `nn.Linear`'s uniform in ±1/√d_h "
                   "and ±1/√d; the paper states no initialisation)", True),
)

#: The differences that the third model of ``dana.layout`` and ``dana.layout_heads``, eq. (2)
#: plus the code's scale and positions, shares with the code's model.
HYBRID_SHARES: tuple[str, ...] = ("scale", "positions")


def code_differences_count() -> str:
    """How many ways the code's model differs from eq. (2), in words ("four ways"), counted
    from :data:`CODE_MODEL_DIFFERENCES`."""
    n = len(CODE_MODEL_DIFFERENCES)
    return f"{number_word(n)} way{'' if n == 1 else 's'}"


def _difference(key: str) -> CodeDifference:
    (item,) = [x for x in CODE_MODEL_DIFFERENCES if x.key == key]
    return item


def on_purpose_markdown() -> str:
    """Section 5's "Our differences, on purpose": (i) the model, with the code's differences
    named from :data:`CODE_MODEL_DIFFERENCES`; (ii) the accuracies each run records (the
    official window read from :data:`memnb.experiments.dana.OFFICIAL_BATCH_WINDOW`); (iii) the
    full runs read in place and the packed training."""
    shorts = and_words([x.short for x in CODE_MODEL_DIFFERENCES])
    return (
        "**Our differences, on purpose.** (i) The model is eq. (2), not the official code's, "
        f"which differs from it in {code_differences_count()}, each given in full in Section 7: "
        f"{shorts}; the paper states no initialisation. (ii) Every run records three "
        f"accuracies: the code's mean over the last {exp.OFFICIAL_BATCH_WINDOW} training "
        "batches, which the paper reports and which we plot and compare with it; the "
        "best-training-loss checkpoint's on the whole sample; and the same checkpoint's on all "
        "N² contexts, the expectation under a uniform prior that Corollary 2 bounds. The "
        "\"Which accuracy\" note below says how far apart they are, and names any table "
        "computed before the first was recorded, which can only compare the second. (iii) "
        "Where a full-scale run is committed, the `quick` chapter draws it instead of "
        "rerunning a smaller version (the list below, generated from the provenance files, "
        "says which table each figure draws); the models of one experiment that differ only in "
        "H or seed are trained together as one packed stack (`memnb.train.train_members`).")


def _recipe(params: Mapping[str, Any]) -> str:
    """A run's recipe from its parameters: steps, batch, sample and learning rates."""
    return (f"{int(params['steps']):,} steps of {int(params['batch']):,} on "
            f"{int(params['samples']):,} contexts, learning rate {params['lr']:g} → "
            f"{params['lr_final']:g}")


#: Sec. 5's experiments by number, read from :data:`RECIPE_GROUPS`: {1: "dana.exp1", ...}.
SEC5_EXPERIMENTS: dict[int, str] = {
    int(m.group(1)): name for names in RECIPE_GROUPS.values() for name in names
    if (m := re.fullmatch(r"dana\.exp(\d+)", name))}


def experiments_words(numbers: Iterable[int]) -> str:
    """Experiment numbers as a sentence names them: ``Experiment 5``, ``Experiments 2 and 3``,
    ``Experiments 1–4 and 6`` (three or more consecutive numbers joined by an en dash)."""
    nums = sorted(set(numbers))
    if not nums:
        raise ValueError("experiments_words needs at least one experiment")
    spans: list[list[int]] = []
    for n in nums:
        if spans and n == spans[-1][-1] + 1:
            spans[-1].append(n)
        else:
            spans.append([n])
    parts = [w for s in spans for w in ([f"{s[0]}–{s[-1]}"] if len(s) >= 3 else map(str, s))]
    return f"Experiment{'' if len(nums) == 1 else 's'} {and_words(parts)}"


def recipe_experiments(params: Mapping[str, Any]) -> list[int]:
    """The numbers of Sec. 5's experiments (:data:`SEC5_EXPERIMENTS`) whose ``full`` profile,
    the official code's recipe, trains as ``params`` do (sample, batch, steps and learning
    rates; the MLP's final rate aside)."""
    keys = [k for k in _RECIPE_KEYS if k != "lr_final_mlp"]
    return [n for n, name in sorted(SEC5_EXPERIMENTS.items())
            if all(exp.get_params(name, "full").get(k) == params.get(k) for k in keys)]


def layout_intro_markdown(runs: Mapping[str, Any]) -> str:
    """Section 7's "Testing that reading": the code's differences from eq. (2)
    (:data:`CODE_MODEL_DIFFERENCES`, counted), the three models of ``dana.layout``, what is
    left at d = d_h, and the recipe of ``dana.layout`` read from its run's parameters, named as
    the official code's recipe for the experiments whose ``full`` profiles share it
    (:func:`recipe_experiments`), and said to be that of our eq. (2) runs (``dana.exp2``,
    ``dana.exp3``) only where it is."""
    hybrid = [_difference(k).key for k in HYBRID_SHARES]
    apart = [f"the {x.key}" for x in CODE_MODEL_DIFFERENCES if x.key not in HYBRID_SHARES]
    left = [f"the {x.key}" for x in CODE_MODEL_DIFFERENCES if x.at_equal_dims and x.key not in
            HYBRID_SHARES]
    gone = [x.key for x in CODE_MODEL_DIFFERENCES if not x.at_equal_dims]
    shorts = and_words([x.short for x in CODE_MODEL_DIFFERENCES])
    layout = runs["dana.layout"].params
    eq2 = [name for name in ("dana.exp2", "dana.exp3") if name in runs]
    differ = [name for name in eq2 if any(runs[name].params.get(k) != layout.get(k)
                                          for k in _RECIPE_KEYS)]
    shared = recipe_experiments(layout)
    recipe = (f"it is trained with the official code's recipe for {experiments_words(shared)} "
              f"({_recipe(layout)})" if shared else
              f"it is trained with {_recipe(layout)}, the official code's recipe for none of "
              "Sec. 5's experiments")
    if eq2 and not differ:
        recipe += (", the same as our eq. (2) runs ("
                   + and_words([f"`{n}`" for n in eq2]) + ")")
    elif differ:
        recipe += "; our eq. (2) runs differ: " + "; ".join(
            f"`{n}` trains {_recipe(runs[n].params)}" for n in differ)
    return (
        "The paper's curves were produced by the official code, whose model differs from eq. "
        f"(2) in {code_differences_count()}: {shorts}. `dana.layout` retrains the shapes of "
        "Experiments 2 and 3 with the code's model (`CompressedAttentionOnlyTransformer`, "
        "checked against `nn.MultiheadAttention` modules in the tests) and, to separate "
        f"{and_words(apart)} from the other {number_word(len(HYBRID_SHARES))}, with eq. "
        f"(2) plus only the code's {and_words(hybrid)}, under the same recipe and seeds. "
        f"(At d = d_h, as in Experiment 1 below, the code has no {and_words(gone)}: it adds "
        "the positions to the attention input only, not to the residual stream, and its heads "
        "attend over the token embeddings plus positions directly, so between its model and "
        f"eq. (2) with its {and_words(hybrid)} only {and_words(left)} "
        f"remain{'s' if len(left) == 1 else ''}.) The "
        "code's model is our rewrite of the official repository's `models.py` (class "
        "`Transformer` without MLP), checked against that file for its modules and their "
        f"initialisation; it is not the code itself, and {recipe}.")


def departures_label(runs: Mapping[str, Any]) -> str:
    """The short name of the runs :func:`departures_report` reads (``dana.exp2`` and
    ``dana.exp3``): each committed full run read in place or this build's run, with a pointer
    to the captions of Figs. 1b and 2a, which give their provenance."""
    kinds = {name: ("the committed full run" if exp.reused_full(runs[name])
                    else "this build's run") for name in ("dana.exp2", "dana.exp3")}
    if len(set(kinds.values())) == 1:
        which = f"`dana.exp2` and `dana.exp3`, {next(iter(kinds.values()))}s"
    else:
        which = "; ".join(f"`{name}`: {kind}" for name, kind in kinds.items())
    return f"{which}; Figs. 1b and 2a name their provenance"


def differences_markdown(runs: dict[str, Any]) -> str:
    """§6 of the chapter, generated: budgets from the profiles, the paper-vs-code differences
    from :mod:`memnb.papers.dana` and the official CSVs."""
    t = paper.TEXT
    full1 = exp.get_params("dana.exp1", "full")
    ref = paper.exp6_slope_ratio()
    full5 = exp.get_params("dana.exp5", "full")
    exp6_seeds = int(exp.get_params("dana.exp6", "full")["seeds"])
    exp5 = runs.get("dana.exp5")
    exp5_line = ""
    if exp5 is not None and getattr(exp5, "partial", None):
        exp5_line = (" The full run of Experiment 5 is not complete yet (its caption says which "
                     "points ran); its figure draws it beside this profile's run, trained "
                     f"{exp5.params['steps']:,} steps of {exp5.params['batch']:,}.")
    elif exp5 is not None and not exp.reused_full(exp5):
        exp5_line = (f" No full run of Experiment 5 is committed; its figure draws this "
                     f"profile's run, trained {exp5.params['steps']:,} steps of "
                     f"{exp5.params['batch']:,}.")
    return "\n".join([
        "- **Training budget and grid.** Each figure draws the run its caption names. The full "
        f"runs use the official code's budgets: {full1['steps']:,} steps of {full1['batch']:,}, "
        f"learning rate {full1['lr']:g} → {full1['lr_final']:g}, for Experiments 1-4 and 6; "
        f"{full5['steps']:,} steps of {full5['batch']:,}, learning rate {full5['lr']:g} → "
        f"{full5['lr_final']:g} (→ {full5['lr_final_mlp']:g} for the MLP model), for "
        f"Experiment 5 and `dana.exp5_code`.{exp5_line}",
        "- **Model details.** We follow eq. (2); the official code's model differs from it in "
        f"{code_differences_count()}: "
        + "; ".join(f"({chr(ord('a') + i)}) {x.text}"
                    for i, x in enumerate(CODE_MODEL_DIFFERENCES))
        + ". `CompressedAttentionOnlyTransformer`, used by `dana.layout` and "
        "`dana.layout_heads`, is the code's model. Experiment 5's MLP block is the code's: a "
        "bias on its input layer, none on its output layer.",
        "- **Paper vs its code.** App. B states a learning rate from "
        f"{t['lr_start_appendix'].value:g} to {t['lr_end_appendix'].value:g}; the code's "
        f"effective rate is {full1['lr']:g} → "
        f"{full1['lr_final']:g}. App. B's d_h = {t['exp6_d_h_appendix'].value:g} for Experiment 6 "
        f"contradicts Fig. 4 and the CSV (d_h = {int(paper.exp6()['d_h'].iloc[0])}). App. B "
        f"says that all experiments are averages of {t['seeds_appendix'].value:g} runs; the "
        f"code repeats Experiment 6 {exp6_seeds} times (its `repetition`, which our `full` "
        f"profile of `dana.exp6` follows), so Fig. 4 and its CSV average {exp6_seeds} seeds. "
        "Experiment "
        f"5's N = {int(paper.exp5()['N'].iloc[0])} appears only in the code and CSVs. App. B "
        f"states batches of {int(t['batch_size_appendix'].value):,}; the code's Experiments "
        f"1-4 and 6 use {full1['batch']:,}. App. B.2 says {t['depth_layers_text'].value:g} "
        f"layers; the notebook cells that write its CSVs set "
        f"`nb_layers = {t['depth_layers_code'].value:g}` (in our reading of the official code, "
        f"only the separate script `expe_depth.py`, whose grid no CSV holds, sets "
        f"{t['depth_layers_script'].value:g}). Fig. 4's slope ratio is "
        f"{t['exp6_ratio_caption'].value:g} in the caption and {float(ref['ratio']):.2f} in the "
        f"CSV (official rule).",
    ])


#: The columns of :func:`memnb.constructions.prior_work_table.table1` as :func:`table1_shown`
#: names them: each row's own capacity, and the parameter counts at Corollary 1's T_0.
TABLE1_NAMES = {"T0": "capacity_T0", "parameters_at_T0": "parameters_at_cor1_T0"}


def table1_shown(table: pd.DataFrame) -> pd.DataFrame:
    """Table 1 (:func:`memnb.constructions.prior_work_table.table1`, one or more sizes) as the
    chapter shows it, with columns that say which T_0 each number uses: ``capacity_T0``, each
    row's own capacity at its size (``T0``; none for Kim et al.), and ``parameters_at_cor1_T0``,
    each row's parameter count evaluated at Corollary 1's T_0 = H d_h + d (``parameters_at_T0``),
    beside a column ``cor1_T0`` that gives that T_0 (the Corollary 1 row's capacity at the same
    size). ``ValueError`` when a size has no Corollary 1 row."""
    cor1 = table[table["paper"] == "Dana et al. (Cor. 1)"].set_index("size")["T0"]
    missing = sorted(set(table["size"]) - set(cor1.index))
    if missing:
        raise ValueError(f"no Corollary 1 row at {', '.join(missing)}")
    shown = table.rename(columns=TABLE1_NAMES)
    shown["capacity_T0"] = shown["capacity_T0"].astype("Int64")
    at = shown.columns.get_loc("parameters_at_cor1_T0")
    shown.insert(at, "cor1_T0", table["size"].map(cor1).astype(int).to_numpy())
    return shown


def table1_defined_note(shown: pd.DataFrame) -> str:
    """The rows of Table 1 as the chapter shows it (:func:`table1_shown`) whose ``capacity_T0``
    is not a capacity of their own but Corollary 1's T_0, set equal to ``cor1_T0`` by their
    definition: a capacity written in T_0 (Huben & Morris: one head per neuron) or a row at
    "the same T_0" (Corollary 1 at d = 2), and equal to ``cor1_T0`` at every size; '' when no
    row is."""
    own = shown[shown["paper"] != "Dana et al. (Cor. 1)"]
    defined = [paper for paper, rows in own.groupby("paper", sort=False)
               if ("T_0" in str(rows["capacity"].iloc[0]) or "same T_0" in paper)
               and bool((rows["capacity_T0"] == rows["cor1_T0"]).fillna(False).all())]
    if not defined:
        return ""
    several = len(defined) > 1
    return (f"**`capacity_T0` of {' and '.join(f'*{p}*' for p in defined)}.** "
            f"{'These rows are' if several else 'This row is'} defined at Corollary 1's T_0, "
            f"so {'their' if several else 'its'} `capacity_T0` is set equal to `cor1_T0` by "
            f"definition, not computed as a capacity of {'their' if several else 'its'} own.")


def huben_morris_note(sizes: Iterable[tuple[int, int, int, int, int]]) -> str:
    """What Table 1's Huben & Morris row (:func:`memnb.constructions.prior_work_table.table1`)
    evaluates at each size ``(N, S, d, d_h, H)`` whose ``d`` is below the ``S + 2`` their
    construction needs: the order ``(d + S)(S + N + T_0)`` at ``d = max(d, S + 2)``, the
    smallest ``d`` it allows, not at the size's own ``d`` (both values computed, ``T_0 = H d_h
    + d``); '' when every size meets the condition."""
    from memnb.constructions import prior_work_table

    cells = []
    for N, S, d, d_h, H in sizes:
        if d >= S + 2:
            continue
        table = prior_work_table.table1(N, S, d, d_h, H)
        shown = int(table.loc[table["paper"].str.startswith("Huben"), "parameters_at_T0"].iloc[0])
        t0 = bounds.dana_capacity(H, d_h, d)
        at_d = (d + S) * (S + N + t0)
        cells.append(f"at N = {N}, S = {S}, d = {d} it shows {shown:.4e}, the order at "
                     f"d = max(d, S + 2) = {max(d, S + 2)}, the smallest d their condition "
                     f"d ≥ S + 2 allows; at the size's own d = {d}, (d + S)(S + N + T_0) would "
                     f"be {at_d:.4e}")
    if not cells:
        return ""
    return ("**The Huben & Morris row.** Its `parameters_at_cor1_T0` is evaluated where their "
            "construction exists: " + "; ".join(cells) + ". The row's `condition_holds` says the "
            "size itself does not meet the condition.")


# --------------------------------------------------------------------------------------------
# What the columns of the chapter's tables mean (viz.column_legend folds each under its table)
# --------------------------------------------------------------------------------------------

#: The scale λ of E(t) = λ W_U[g(t)] that :func:`memnb.constructions.aot.construction_table`
#: builds with (:func:`memorize_with_report`'s default; the margins grow in proportion to it).
_CONSTRUCTION_SCALE = inspect.signature(memorize_with_report).parameters["scale"].default

#: The size columns that several tables share, in the prose's symbols.
_SIZE = {
    "N": "vocabulary size $N$ (tokens $t_s \\in [N]$)",
    "S": "sequence length $S$ (tokens per sequence)",
    "d": "embedding dimension $d$",
    "d_h": "head dimension $d_h$",
    "H": "number of attention heads $H$",
}

#: Section 2's table of the construction at capacity (:func:`aot.construction_table`), one
#: meaning per column shown, in the order shown (:data:`CONSTRUCTION_COLUMNS`).
CONSTRUCTION_LEGEND: dict[str, str] = {
    **_SIZE,
    "num_sequences": ("$T_0$: the number of distinct random sequences memorized, each with a "
                      "random target token $g(t)$"),
    "capacity": "$H d_h + d$, the capacity of Theorem 1 / Corollary 1",
    "accuracy": ("the fraction of the $T_0$ sequences whose largest logit is the target's: "
                 "1 when every target is the argmax"),
    "min_margin": ("the smallest gap, over the $T_0$ sequences, between the target's logit and "
                   "the largest other logit of the built model (positive: every argmax is the "
                   f"target); with $E(t) = \\lambda W_U[g(t)]$ at $\\lambda = "
                   f"{_CONSTRUCTION_SCALE:g}$, it grows in proportion to $\\lambda$"),
    "max_logit_error": ("the largest $|T(t) - W_U E(t)|$ over the $T_0$ sequences and the $N$ "
                        "tokens: how far the logits that eq. (2) computes (float64) are from "
                        "the designed ones; round-off size means eq. (2) outputs $W_U E(t)$ "
                        "exactly"),
    "cond_features": ("the condition number (2-norm) of the feature matrix $F$ of the $T_0$ "
                      "sequences, which the construction inverts (of the scales of $W_Q, W_K$ "
                      "tried, the one that makes it smallest is kept); large means the solve "
                      "amplifies round-off"),
    "num_parameters": ("the built model's own parameter count "
                       "(`AttentionOnlyTransformer.num_parameters`)"),
    "paper_parameter_count": "the paper's count $d(S + 2N + 4 d_h H)$ (Theorem 1)",
}
CONSTRUCTION_COLUMNS: tuple[str, ...] = tuple(CONSTRUCTION_LEGEND)

#: Section 4's table of Theorem 1 with ε > 0 (:func:`dana_theory.thm1_centred_table`); the
#: words are those of the paragraph above the table.
THM1_LEGEND: dict[str, str] = {
    **_SIZE,
    "T_eps": ("$T_\\varepsilon = H d_h + d$: the number of most likely sequences that the "
              "proof's AoT solves exactly"),
    "zipf": ("the exponent of the Zipf prior over all $N^S$ sequences (prior $\\propto$ "
             "rank$^{-\\mathrm{zipf}}$ over a random order of them; 0 is uniform): a larger "
             "exponent means a smaller $\\varepsilon$"),
    "eps": ("$\\varepsilon$: the prior mass outside the $T_\\varepsilon$ most likely sequences "
            "(written in scientific notation)"),
    "kl_encoder": ("$d_{KL}(\\pi, f_{W,E})$ (nats), the KL of the encoder our fit found: an "
                   "upper estimate of the infimum $d_{KL}(\\pi,\\mathcal L(N,S,d))$ that eq. (4) "
                   "uses"),
    "kl_aot": "$d_{KL}(\\pi, T)$ (nats), the KL of the proof's AoT built on that encoder",
    "step1": ("$\\mathbb E_t\\|(I - \\mathbf 1\\pi_t^\\top)(T - f)(t)\\|_\\infty$, the mean "
              "under the prior of the logit difference centred by $\\pi_t$: the first step of "
              "the proof's chain, eq. (13)"),
    "step2": ("$2\\,\\mathbb E_t\\|(T - f)(t)\\|_2$: the chain's second step, which eq. (14) "
              "bounds by $2C\\varepsilon\\|WE\\|_2$"),
    "c_main": "$C = \\sqrt{1 + \\|(P_1VP_1^\\top)^{-1}\\|_2^2}$, the main text's form of $C$",
    "c_eq14": ("$C_{14} = \\sqrt{1 + \\|(P_1VP_1^\\top)^{-1}P_1VP_2^\\top\\|_2^2}$, the form of "
               "App. A.2, eq. (14)"),
    "rhs_eq14": ("$d_{KL}(\\pi, f_{W,E}) + C_{14}\\varepsilon\\|WE\\|_2$: eq. (4)'s right side "
                 "as stated (eq. (14)'s $C$, $\\gamma = 0$)"),
    "rhs_proof": ("$d_{KL}(\\pi, f_{W,E}) + 2C_{14}\\varepsilon\\|WE\\|_2$: the same with the "
                  "factor $2$ the proof's chain carries"),
    "looseness_eq14": ("(`rhs_eq14` $-$ `kl_encoder`) over the gap $d_{KL}(\\pi, T) - "
                       "d_{KL}(\\pi, f_{W,E})$: how many times the bound's excess term exceeds "
                       "the excess KL the AoT pays (the excess ratio; NaN where the gap is not "
                       "positive)"),
    "norm_we": ("$\\|WE\\|_2$: the spectral norm of the encoder's logit matrix (one row per "
                "sequence, one column per token), for the logits the fit returned"),
    "norm_we_centred": ("$\\|WE\\|_2$ for the same logits centred per sequence, each row minus "
                        "its mean over the $N$ tokens: same predictions, same KL (ours)"),
    "rank_centred": ("the numerical rank of the centred logit matrix, counting its singular "
                     "values above the round-off of the uncentred logits (their largest "
                     "singular value $\\times$ the matrix's larger dimension $\\times$ float64's "
                     "machine epsilon: centring a large per-sequence shift cancels it down to "
                     "that round-off, which numpy's default tolerance, relative to the centred "
                     "matrix, would count as a direction); at most $d$: still a rank-$d$ "
                     "encoder (ours)"),
    "looseness_centred": ("the excess ratio with the centred norm: $C_{14}\\varepsilon\\|WE\\|_2$, "
                          "with `norm_we_centred` as $\\|WE\\|_2$, over the same gap (ours)"),
    "max_top_logit_error": ("the largest $|T(t) - f(t)|$ on the $T_\\varepsilon$ solved "
                            "sequences: the AoT equals the encoder there up to round-off"),
    "last_tokens": ("the number of distinct last tokens among the $T_\\varepsilon$ solved "
                    "sequences: at least $d$ makes the set generic in the sense of the gap found "
                    "in Section 2"),
}
THM1_COLUMNS: tuple[str, ...] = tuple(THM1_LEGEND)

#: Section 4's table of Remark 2 (:func:`memnb.constructions.aot_rank1.rank1_table`).
RANK1_LEGEND: dict[str, str] = {
    **_SIZE,
    "sequences": "$N^S$: the number of all sequences",
    "rank_all_rank1": ("the rank of the features of all $N^S$ sequences with rank-one "
                       "$W_{QK}^h$ (one generic draw): the most sequences whose logits the "
                       "linear read-out can set independently"),
    "rank_all_full": ("the same with rank-$d_h$ $W_{QK}^h$ (every row of $W_Q^h, W_K^h$ "
                      "drawn, as in eq. (1))"),
    "num_sequences": ("$T_0 = H d_h + d$: the random associations (distinct sequences, random "
                      "targets $g(t)$) that the rank-one AoT memorizes"),
    "max_qk_rank": "the largest numerical rank of the built model's $W_{QK}^h$ over its heads",
    "accuracy": ("the fraction of the $T_0$ sequences whose largest logit is the target's: "
                 "1 when every target is the argmax"),
    "max_logit_error": ("the largest $|T(t) - W_U E(t)|$ over the $T_0$ sequences and the $N$ "
                        "tokens: how far the built model's logits are from the designed ones"),
    "remark2_parameters": ("the parameters of the built model counted as Remark 2 counts them: "
                           "$e$, the positions and $W_U$, and per head one query and one key "
                           "vector ($2d$) and $W_V^h, W_O^h$ ($2 d d_h$)"),
    "paper_parameters": "Remark 2's count $d(S + 2N + 2(d_h + 1)H)$",
}
RANK1_COLUMNS: tuple[str, ...] = tuple(RANK1_LEGEND)

#: Section 4's table of Theorem 2 (the rows of :func:`memnb.constructions.jl_lookup.thm2_point`
#: with :func:`dana_theory.thm2_margin`'s columns).
THM2_LEGEND: dict[str, str] = {
    "N": _SIZE["N"],
    "d": "embedding dimension $d$ (the rows $W_j$ of $W$ have $d$ entries)",
    "T": (f"the number of sequences $t$, uniform prior, each with mass "
          f"{1 - THM2_EPS:g} of $\\pi_t$ on a random token $g(t)$ and the rest spread by a "
          "flat Dirichlet draw"),
    "threshold": "$128\\ln(N+1)$: the bound is finite only for $d$ above it ($C < 1/2$)",
    "c_jl": "$C = \\sqrt{32\\log(N+1)/d}$, the Johnson–Lindenstrauss constant of the theorem",
    "c_empirical": ("the coherence of the drawn $W$ (Gaussian rows scaled to unit norm): the "
                    "largest $|W_i^\\top W_j|$, $i \\ne j$, the quantity that $C$ bounds in "
                    "the theorem"),
    "kl_theorem_lambda": ("the KL (nats) of the theorem's own look-up table $E(t) = "
                          "\\lambda(t) W_{g(t)}$, with $\\lambda(t)$ from the theorem's entropy "
                          "equation, computed exactly"),
    "kl_reoptimised_lambda": ("the KL (nats) of the same table with $\\lambda$ re-optimised per "
                              "sequence (ours)"),
    "kl_rank_d_svd": ("the KL (nats) of the rank-$d$ least-squares encoder (the rank-$d$ "
                      "truncated SVD of the centred $\\log\\pi$): an upper estimate of "
                      "$d_{KL}(\\pi,\\mathcal L)$; 0, not computed, where $d$ is at least the "
                      "number of tokens (Proposition 2 gives 0 from $d \\ge N - 1$) or of "
                      "sequences (a rank-$d$ encoder then fits every row)"),
    "bound": "Theorem 2's bound (nats) at $C$ = `c_jl`",
    "uniform_kl": ("the KL (nats) of the uniform prediction, which ignores the sequence: "
                   "$\\log N - \\mathbb E_t h_t$, with $h_t$ the Shannon entropy of $\\pi_t$"),
    "informative": "whether `bound` is below `uniform_kl` (our criterion)",
    "looseness_vs_theorem_lambda": ("`bound` over `kl_theorem_lambda`: how many times the bound "
                                    "exceeds the KL of the theorem's table"),
}
THM2_COLUMNS: tuple[str, ...] = tuple(THM2_LEGEND)

#: Section 4's table of Corollary 2 (:func:`dana_theory.corollary2_table`, every column).
COR2_LEGEND: dict[str, str] = {
    "N": "vocabulary size $N$; the task is all $N^2$ bigrams, so $T_0 = N^2$",
    "d": _SIZE["d"],
    "d_h": _SIZE["d_h"],
    "H": _SIZE["H"],
    "X": ("$X = \\min(Hd_h + d, N^2)$: the number of bigrams, chosen at random, that the "
          "construction memorizes"),
    "phi": ("$\\varphi(X) = 1/N + (1 - 1/N)X/T_0$: the accuracy the corollary guarantees in "
            "expectation over the sequences"),
    "accuracy_mean": ("the constructed AoT's accuracy on all $N^2$ bigrams, averaged over the "
                      "tasks (one random task $g$ and one construction per task)"),
    "accuracy_sd": "the standard deviation of that accuracy over the tasks",
    "accuracy_min": "the smallest accuracy over the tasks",
    "memorized": ("the smallest accuracy, over the tasks, on the $X$ memorized bigrams: 1 when "
                  "every one is recalled"),
    "accuracy_rest_mean": ("the accuracy on the $N^2 - X$ bigrams not memorized, averaged over "
                           "the tasks ($1/N$ expected; NaN when $X = N^2$)"),
    "below_phi": "the fraction of the tasks whose accuracy is below $\\varphi(X)$",
    "tasks": "the number of random tasks $g$",
    "se": "the standard error of `accuracy_mean`: `accuracy_sd` over $\\sqrt{\\text{tasks}}$",
    "z": ("(`accuracy_mean` $- \\varphi$) over `se`: the distance from $\\varphi$ in standard "
          "errors"),
    "saturated": ("whether $X = N^2$: every bigram memorized, nothing left to chance (such rows "
                  "are left out of the comparison with $\\varphi$)"),
}

#: Section 4's Table 1 as the chapter shows it (:func:`table1_shown`, every column); the words
#: are those of the paragraph above the table.
TABLE1_LEGEND: dict[str, str] = {
    "size": "the size $(N, S, d, d_h, H)$ at which the row's formulas are evaluated",
    "paper": ("the result the row states; the rows \"Cor. 1, $d = 2$, same $T_0$\", "
              "\"Mahdavi et al. (Thm 1, $n = S$)\" (a **[reconstruction]**) and Huben & Morris "
              "are ours"),
    "capacity": "the capacity $T_0$ as a formula",
    "capacity_T0": ("each row's own capacity at the size (except for rows defined at Corollary "
                    "1's $T_0$, which the note under the table names); empty for Kim et al., "
                    "whose capacity depends on the depth $L$ only"),
    "parameters": "the parameter count as a formula, exact or an order (see `count`)",
    "cor1_T0": ("Corollary 1's $T_0 = Hd_h + d$ at the size, at which every row's parameter "
                "count is compared"),
    "parameters_at_cor1_T0": ("each row's parameter count at `cor1_T0`, not at its own "
                              "`capacity_T0`; Huben & Morris's at the smallest $d$ their "
                              "condition allows, $\\max(d, S + 2)$"),
    "count": ("`exact` where the paper gives an exact count, `order` where it gives an order "
              "whose constants we drop"),
    "condition": ("what the row's construction needs (ours: read from the paper's Sec. 7 and, "
                  "for $d_h \\le d$, from its model definition in Sec. 2)"),
    "condition_holds": "whether the size meets `condition`",
}


#: The legend label of the line y = d of :func:`bietti_figure`: a reference, not the claim's
#: bound on what is drawn (the camera-ready's "at most d" and the slides' "only d" are about the
#: capacity, the most associations recalled without error, which Section 4 measures; the figure
#: draws how many of N stored associations are recalled).
BIETTI_LINE_LABEL = ("y = d, for reference (the camera-ready's \"at most d\" and the slides' "
                     "\"only d\"\nbound the capacity, measured in Section 4, not this recall of "
                     "all N stored)")


def bietti_figure(memory: pd.DataFrame, n_assoc: int) -> plt.Figure:
    """Associations recalled by the random-embedding memory of Bietti et al. against d, beside
    the line ``d`` (the camera-ready's "at most d", Sec. 5.1; the slides' "only d", which we
    read as "about d")."""
    fig, ax = plt.subplots(figsize=(5.6, 3.8), layout="constrained")
    viz.plot_ours(ax, memory, "d", "stored", label="associations recalled (ours)")
    ds = np.sort(memory["d"].unique())
    ax.plot(ds, ds, **{**viz.role_style("bound"), "marker": None},
            label=BIETTI_LINE_LABEL)
    ax.set(xscale="log", yscale="log", xlabel="embedding dimension d",
           ylabel=f"associations recalled (of N = {n_assoc})")
    _legend_below(fig, [ax])
    return fig


def bietti_caption(memory: pd.DataFrame, n_assoc: int) -> str:
    """The memory's caption: recalled associations per dimension, from the data."""
    mean = memory.groupby("d")["stored"].mean()
    ratio = mean / mean.index.to_numpy(float)
    return (f"Random-embedding associative memory, N = {n_assoc} associations stored: the number "
            f"recalled exactly, against d. Recalled per dimension ranges from {ratio.min():.2f} "
            f"(d = {int(ratio.idxmin())}) to {ratio.max():.2f} (d = {int(ratio.idxmax())}); at "
            f"the largest d, {mean.iloc[-1]:.0f} of {n_assoc} are recalled. This measures recall "
            f"of N stored associations, not the largest number recalled without error.")


def rank_d_memory_paragraph(tab: pd.DataFrame, rows: Mapping[str, Any] | None = None) -> str:
    """The camera-ready's Sec. 5.1 reading of Cabannes et al. ("at most d", quoted from
    :data:`memnb.papers.dana.QUOTES`) against our associative-memory capacities ``tab``
    (:func:`memnb.scorecard.dana_theory.bietti_table`), with the scorecard's verdict: the
    status of its row "Sec. 5.1: rank-d memory" among ``rows`` (:func:`section_verdict`, key
    ``rank_d_status``, with why it differs from the check on ``tab`` where it does), else that
    of :func:`memnb.scorecard.dana_theory.bietti_at_most_d` on ``tab``."""
    from memnb.scorecard import dana_theory

    verdict = dana_theory.bietti_at_most_d(tab=tab)
    quote = paper.QUOTES["rank_d_memory"]
    status, why = ((status_words(verdict), "") if rows is None
                   else section_verdict(rows, "rank_d_status", verdict))
    return (f"**The camera-ready's reading ({quote.section}, verbatim).** \"{quote.text}\" The "
            f"memory above is such a matrix multiplication (W is d × d). Against our table: "
            f"{verdict.measured}. Verdict (Sec. 5.1: rank-d memory): **{status}**{why}.")


#: Legend label of the grey band of :func:`thm2_figure`: vacuous is the theorem's bound, with
#: its constant C; the dotted curve with the drawn W's coherence can be finite inside the band.
THM2_VACUOUS_LABEL = "theorem's bound vacuous: d ≤ 128 ln(N+1)"


def _d_words(ds: list[int], drawn: list[int]) -> str:
    """The dimensions ``ds`` among the ``drawn`` ones (both sorted), as ``d = a..b`` when they
    are a run of consecutive drawn dimensions, else listed."""
    start = drawn.index(ds[0])
    if drawn[start:start + len(ds)] == ds and len(ds) > 1:
        return f"d = {ds[0]}..{ds[-1]}"
    return "d = " + ", ".join(str(d) for d in ds)


def thm2_empirical_sentence(thm2: pd.DataFrame) -> str:
    """What the dotted curve of :func:`thm2_figure` is (Thm 2's bound with the measured
    coherence of the drawn W, ``bound_full_empirical_c``, in place of the theorem's constant C;
    ours), the d where it is finite (and that those are the d where the coherence,
    ``c_empirical``, is below 1/2, when the table shows it) and its ratio to the KL reached
    there, from the table :func:`memnb.lookup_tables.thm2_table`."""
    shown = thm2.sort_values("d")
    drawn = [int(d) for d in shown["d"]]
    finite = shown[np.isfinite(shown["bound_full_empirical_c"])]
    what = ("Dotted: the theorem's bound with the measured coherence of the drawn W in place "
            "of its constant C (ours)")
    if finite.empty:
        return f"{what}, infinite at every d drawn."
    ds = [int(d) for d in finite["d"]]
    where = _d_words(ds, drawn)
    if "c_empirical" in shown and ((shown["c_empirical"] < 0.5)
                                   == np.isfinite(shown["bound_full_empirical_c"])).all():
        where += " (where that coherence is below 1/2)"
    threshold = bounds.dana_jl_threshold(int(shown["N"].iloc[0]))
    inside = sum(d <= threshold for d in ds)
    if inside:
        where += (f", {'all' if inside == len(ds) else inside} of them inside the grey band "
                  "where the theorem's bound is vacuous")
    ratio = finite["bound_full_empirical_c"] / finite["achieved_kl"]
    return (f"{what}. It is finite for {where}, and at those d it is "
            f"{float(ratio.min()):.1f}× to {float(ratio.max()):.1f}× the KL reached.")


#: The magnitude below which a negative value of a quantity that is never negative (a KL) is
#: floating-point round-off, shown as 0 by :func:`clip_round_off` (display only).
ROUND_OFF = 1e-12


def clip_round_off(table: pd.DataFrame, columns: Iterable[str],
                   tol: float = ROUND_OFF) -> tuple[pd.DataFrame, str]:
    """``table`` for display, with each value of ``columns`` (quantities that are never
    negative, such as a KL) in [-``tol``, 0) shown as 0, and the sentence that says so: how
    many values, of which columns, and the most negative one; '' when none was clipped. A value
    below -``tol`` is kept as it is (not round-off). The table a verdict reads is not changed."""
    shown = table.copy()
    clipped = []
    for column in columns:
        values = shown[column]
        small = (values < 0) & (values >= -tol)
        if small.any():
            clipped.append((column, int(small.sum()), float(values[small].min())))
            shown.loc[small, column] = 0.0
    if not clipped:
        return shown, ""
    cells = ", ".join(f"{counted(n, 'value')} of `{column}` (down to {low:.1e})"
                      for column, n, low in clipped)
    return shown, (f"Shown as 0, in this table only: {cells}, negative by less than {tol:g}, the "
                   "floating-point round-off of a quantity that is never negative; the verdict "
                   "reads the values as computed.")


def thm2_caption(thm2: pd.DataFrame, row: Any) -> str:
    """Theorem 2's caption: where the theorem's bound is finite and how loose, what the dotted
    curve with the drawn W's coherence is, where it is finite and how loose
    (:func:`thm2_empirical_sentence`), all from the table; verdict."""
    n = int(thm2["N"].iloc[0])
    finite = thm2[np.isfinite(thm2["bound_full"])]
    ratio = finite["bound_full"] / finite["achieved_kl"]
    loose = ("" if finite.empty else
             f" Where finite it is {float(ratio.min()):.1f}× to {float(ratio.max()):.1f}× the "
             f"KL reached.")
    return (f"The theorem's bound (dashed, its constant C = √(32 log(N+1)/d)) is vacuous for "
            f"d ≤ 128 ln(N + 1) = {bounds.dana_jl_threshold(n):.0f} at "
            f"N = {n} (grey band).{loose} {thm2_empirical_sentence(thm2)} The KL reached spans "
            f"{thm2['achieved_kl'].min():.3g} to "
            f"{thm2['achieved_kl'].max():.3g} over d = {int(thm2['d'].min())}.."
            f"{int(thm2['d'].max())}. {verdict_sentence(row)}")


def thm2_informative_markdown(table: pd.DataFrame) -> str:
    """The chapter's paragraph on Theorem 2 (Dana et al.) where it could say something, from the
    rows of :func:`memnb.scorecard.dana_theory.thm2_grid` above N = 50 (the chapter's
    ``thm2_informative``: columns N, d, bound, kl_theorem_lambda, kl_rank_d_svd, uniform_kl,
    informative, looseness_vs_theorem_lambda), in their order.

    It gives, at the first row (the smallest N where the bound is finite and not implied by
    Proposition 2), the bound beside the KL of the look-up table it is built on, of a rank-d
    encoder and of the uniform prediction; then the N where the bound is not informative (not
    below the uniform prediction's KL); then the first row where it is, with how far it lies
    above the look-up table's KL there, or that it is informative nowhere in ``table``."""
    first = table.iloc[0]
    hits = table[table["informative"]]
    misses = table[~table["informative"]]
    text = (f"At the smallest $N$ where the bound is finite and not implied by Proposition 2 "
            f"($N = {int(first['N'])}$) it is {first['bound']:.0f} nats against "
            f"{first['kl_theorem_lambda']:.2f} for the look-up table it is built on, while a "
            f"rank-$d$ encoder reaches {first['kl_rank_d_svd']:.1e}; the uniform prediction "
            f"already reaches {first['uniform_kl']:.2f}. ")
    if len(misses):
        text += ("The bound is not informative at $N =$ "
                 + ", ".join(str(int(n)) for n in misses["N"])
                 + " (bound " + ", ".join(f"{b:.0f}" for b in misses["bound"])
                 + " nats against the uniform prediction's "
                 + ", ".join(f"{u:.2f}" for u in misses["uniform_kl"]) + "). ")
    if hits.empty:
        return text + "It is informative nowhere we computed."
    h = hits.iloc[0]
    return text + (f"It first is at $N = {int(h['N'])}$, $d = {int(h['d'])}$: "
                   f"{h['bound']:.3f} nats against the uniform prediction's "
                   f"{h['uniform_kl']:.3f}, and it holds there "
                   f"({h['looseness_vs_theorem_lambda']:.1f} times the look-up table's KL "
                   f"{h['kl_theorem_lambda']:.3f}).")


def thm2_gap(row: pd.Series, *, seed: int = 0) -> dict[str, float]:
    """What separates Thm 2's bound from the KL of the theorem's own look-up table (Dana et al.,
    Thm 2), at one row of :func:`memnb.constructions.jl_lookup.thm2_informative_table` (ours).

    The bound is proven for the table with the theorem's ``λ(t)``. With the same conditionals
    (:func:`memnb.lookup_tables.low_entropy_conditionals`, the row's ``T``, ``N``, ``eps`` and
    ``seed``), the bound's formula with ``C = 0`` (``bound_c0``: what orthonormal rows of ``W``
    would give, the table's KL then) is set beside the table's KL; ``jl_factor = bound /
    bound_c0`` is the factor ``(1 + 2C + C d_TV)/(1 − 2C)`` the Johnson–Lindenstrauss ``C``
    multiplies it by, averaged over the row's ``T`` sequences t weighted by each one's term of
    ``bound_c0`` (its ``d_TV`` varies with t), and ``inverse_gap = 1/(1 − 2C)`` that factor's
    denominator alone. Also returned: ``N``, ``d``, ``T`` (the row's), ``c_jl``, ``bound``,
    ``kl_table`` (theorem's λ), ``kl_reoptimised`` (λ
    re-optimised per sequence), ``kl_rank_d`` (the rank-d least-squares encoder, an upper
    estimate of ``d_KL(π, L)``) and ``ratio = bound / kl_table``."""
    from memnb.lookup_tables import low_entropy_conditionals, thm2_bound

    p, g = low_entropy_conditionals(int(row["T"]), int(row["N"]), float(row["eps"]), seed=seed)
    c = float(row["c_jl"])
    bound_c0 = thm2_bound(p, 0.0, g)
    bound = float(row["bound"])
    if not np.isclose(thm2_bound(p, c, g), bound, rtol=1e-12, atol=0.0):
        raise ValueError("the conditionals drawn do not reproduce the row's bound")
    return {"N": int(row["N"]), "d": int(row["d"]), "T": int(row["T"]), "c_jl": c,
            "bound": bound, "bound_c0": float(bound_c0),
            "kl_table": float(row["kl_theorem_lambda"]),
            "kl_reoptimised": float(row["kl_reoptimised_lambda"]),
            "kl_rank_d": float(row["kl_rank_d_svd"]), "jl_factor": bound / float(bound_c0),
            "inverse_gap": 1.0 / (1.0 - 2.0 * c),
            "ratio": bound / float(row["kl_theorem_lambda"])}


#: Relative distance within which the bound's formula with C = 0 counts as close to the look-up
#: table's KL (ours; :func:`thm2_gap_reading`).
THM2_C0_CLOSE = 0.1


def thm2_gap_reading(gap: Mapping[str, float]) -> str:
    """What separates Thm 2's bound from the KL of the theorem's own look-up table (Dana et al.,
    Thm 2), as a verdict with its criteria, in plain text, from :func:`thm2_gap`'s values
    (ours): whether re-optimising λ per sequence lowers the table's KL (it then widens the
    distance to the bound, proven for the theorem's λ, rather than explaining it), and whether
    the bound's formula with C = 0 is within :data:`THM2_C0_CLOSE` of the table's KL, in which
    case the Johnson–Lindenstrauss factor ``jl_factor`` accounts for the distance
    ``ratio = bound / kl_table`` (their quotient is ``bound_c0 / kl_table``)."""
    table, reopt = float(gap["kl_table"]), float(gap["kl_reoptimised"])
    c0, jl, ratio = float(gap["bound_c0"]), float(gap["jl_factor"]), float(gap["ratio"])
    if reopt < table:
        first = (f"Re-optimising λ lowers the table's KL ({reopt:.3g} against {table:.3g}); the "
                 "bound is proven for the theorem's own λ, so that gain widens the distance "
                 "from the bound rather than explaining it")
    else:
        first = (f"Re-optimising λ does not lower the table's KL ({reopt:.3g} against "
                 f"{table:.3g})")
    rel = c0 / table - 1.0
    close = abs(rel) <= THM2_C0_CLOSE
    second = (f"the bound's formula with C = 0 is {c0:.3g}, {rel:+.1%} from the table's KL: "
              + ("close to it" if close else "not close to it")
              + f" (ours: within ±{THM2_C0_CLOSE:.0%}), so the Johnson–Lindenstrauss factor, "
              f"{jl:.3g}, "
              + ("accounts for the distance between the bound and the table's KL, "
                 f"{ratio:.3g} times" if close else
                 f"accounts for only part of the distance between the bound and the table's "
                 f"KL, {ratio:.3g} times; the formula with C = 0 makes the rest, "
                 f"{c0 / table:.3g} times"))
    return f"{first}; {second}."


def thm2_rank_d_words(gap: Mapping[str, float]) -> str:
    """How the look-up table's KL of Thm 2 compares with the best rank-d KL, in plain text,
    from :func:`thm2_gap`'s values (ours). The table's ``kl_rank_d_svd`` is computed only for
    ``d < min(T, N)`` (:func:`memnb.constructions.jl_lookup.thm2_point`; else it is set to 0
    without a fit): where it was computed, the rank-d least-squares encoder's KL (an upper
    estimate of the best); else why the best is 0 (Proposition 2 where ``d ≥ N − 1``, else
    ``d ≥ T``), with that it was not computed."""
    n, d, t = int(gap["N"]), int(gap["d"]), int(gap["T"])
    table, rank_d = float(gap["kl_table"]), float(gap["kl_rank_d"])
    where = "above" if table > rank_d else "not above"
    if d < min(t, n):
        if table > rank_d:
            return (f"above the best rank-d KL: the rank-d least-squares encoder reaches "
                    f"{rank_d:.3g}, an upper estimate of it")
        return (f"not above the rank-d least-squares encoder's KL, {rank_d:.3g} (an upper "
                f"estimate of the best rank-d KL, which may be lower)")
    why = (f"by Proposition 2, as d = {d} ≥ N − 1 = {n - 1}" if d >= n - 1 else
           f"as d = {d} ≥ T = {t}, the number of sequences")
    return (f"{where} the best rank-d KL, which is {rank_d:g} {why} (not computed: the "
            f"table sets the rank-d least-squares encoder's KL to 0 when d ≥ min(T, N) = "
            f"{min(t, n)})")


def propositions_figure(lams: np.ndarray, bottleneck: pd.DataFrame, n_small: int) -> plt.Figure:
    """Propositions 2 and 3 (no figure in the paper). Left: the exact KL of the d = 2 circle
    encoder against λ, N = 10 and 50. Right: the best rank-d KL found for a full-support π."""
    from memnb import lookup_tables

    fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.6), layout="constrained")
    for n in (10, 50):
        axes[0].plot(lams, lookup_tables.circle_encoder_kl(n, lams), label=f"N = {n}")
    axes[0].set(xlabel="scale λ", ylabel="KL divergence (nats)", yscale="log", xscale="log",
                ylim=(1e-12, 10), title="Prop. 3: d = 2 circle encoder")
    axes[0].legend(fontsize=7)
    axes[1].plot(bottleneck["d"], bottleneck["kl_fit"], "o-", color=viz.PALETTE["ours"],
                 label="best rank-d KL found (ours)")
    axes[1].axvline(bottleneck["centered_rank"].iloc[0],
                    **{**viz.role_style("bound"), "marker": None}, label="rank of centred log π")
    axes[1].set(xlabel="embedding dimension d", ylabel="KL divergence (nats)",
                title=f"Prop. 2: full-support π, N = {n_small}")
    _integer_ticks(axes[1])  # no d = 1.5 tick
    axes[1].legend(fontsize=7)
    return fig


def propositions_caption(lams: np.ndarray, bottleneck: pd.DataFrame,
                         n: int | None = None) -> str:
    """Caption of :func:`propositions_figure`, from the data: the circle encoder's KL (Prop. 3)
    and the d from which the best rank-d KL of ``bottleneck`` vanishes (≤ :data:`KL_ZERO`),
    measured, beside the rank where Prop. 2 puts it (:func:`_vanishing_words`); with ``n``,
    the vocabulary size of ``bottleneck``'s π, whether that rank is N − 1, where the rank
    threshold and Prop. 2's d ≥ N − 1 coincide, so that π cannot tell them apart
    (:func:`rank_threshold_words`)."""
    from memnb import lookup_tables

    def kl_words(n: int, lam: float) -> str:
        kl = float(lookup_tables.circle_encoder_kl(n, np.array([lam]))[0])
        value = ("0 in float64 (the true value underflows)" if kl == 0 else f"{kl:.2g}")
        return f"{value} at λ = {lam:g} (N = {n})"

    at_scorecard = "; ".join(kl_words(n, 10 * n * n) for n in PROP3_NS)
    held = all(proposition3_check(n)[0] for n in PROP3_NS)
    rank = int(bottleneck["centered_rank"].iloc[0])
    pos = bottleneck[bottleneck["kl_fit"] > KL_ZERO]["d"]
    reading = ("so two dimensions suffice for deterministic targets, with λ grown as N²" if held
               else "so this check does not show that two dimensions suffice")
    return (f"Left: the exact KL of the circle encoder at the figure's largest λ is "
            f"{kl_words(10, float(lams[-1]))} and {kl_words(50, float(lams[-1]))}; at the "
            f"scorecard's λ = 10N² it is {at_scorecard}. The scorecard's Proposition 3 "
            f"criterion (the KL never rises in λ up to 10N² and ends below 1e-6, at "
            f"N = {and_words([str(n) for n in PROP3_NS])}) "
            f"{'holds' if held else 'fails'}: {reading}. Right: the best rank-d "
            f"KL is {_vanishing_words(bottleneck, pos, rank)} (fitted by L-BFGS from a "
            f"truncated-SVD start; an upper bound on the infimum)"
            + ("" if n is None else f"; {rank_threshold_words(rank, n)}") + ".")


def rank_threshold_words(rank: int, n: int) -> str:
    """Whether a full-support π on ``n`` tokens whose centred log π has rank ``rank`` can test
    the rank threshold (ours, our sharper reading of Dana et al.'s Prop. 2: the best rank-d KL
    vanishes from d = rank) against Prop. 2's own d ≥ N − 1, in plain text: only when the rank
    is below N − 1 do the two predict different d."""
    if rank >= n - 1:
        return (f"that rank, {rank}, is N − 1 (N = {n}), where the rank threshold and "
                "Proposition 2's d ≥ N − 1 coincide, so this π cannot tell them apart")
    return (f"that rank, {rank}, is below N − 1 = {n - 1}, so this π tells the rank threshold "
            "from Proposition 2's d ≥ N − 1")


def _vanishing_words(bottleneck: pd.DataFrame, pos: pd.Series, rank: int) -> str:
    """Where the best rank-d KL of ``bottleneck`` (:func:`memnb.lookup_tables.bottleneck_table`)
    is positive (``pos``: the d with ``kl_fit`` > :data:`KL_ZERO`) and the measured d from which
    it vanishes (at most :data:`KL_ZERO` there and at every larger d drawn), beside ``rank``,
    the rank of the centred log π from which Prop. 2 (our sharper reading) predicts it
    vanishes."""
    ds = sorted(int(d) for d in bottleneck["d"])
    if not len(pos):
        return (f"at most {KL_ZERO:g} (read as 0) at every d drawn, from d = {ds[0]}; the theory "
                f"predicts it vanishes from the rank of the centred log π, {rank}")
    where = f"positive for d = {', '.join(str(int(d)) for d in pos)}"
    after = [d for d in ds if d > int(pos.max())]
    if not after:
        return (f"{where}: it does not vanish (≤ {KL_ZERO:g}) at any d drawn, up to d = "
                f"{ds[-1]}, while the theory predicts it vanishes from the rank of the centred "
                f"log π, {rank}")
    if after[0] == rank:
        return f"{where} and vanishes from d = {rank}, the rank of the centred log π"
    return (f"{where} and vanishes (≤ {KL_ZERO:g}) from d = {after[0]}, while the theory "
            f"predicts it vanishes from the rank of the centred log π, {rank}")


def thm2_figure(thm2: pd.DataFrame) -> plt.Figure:
    """Theorem 2 (no figure in the paper): the KL the JL look-up table reaches, the theorem's
    bound where finite, the bound with the drawn W's coherence (dotted, ours), and the region
    where the theorem's bound is vacuous (:data:`THM2_VACUOUS_LABEL`)."""
    fig, ax = plt.subplots(figsize=(6.2, 4.2), layout="constrained")
    n = int(thm2["N"].iloc[0])
    ax.plot(thm2["d"], thm2["achieved_kl"], "o-", color=viz.PALETTE["ours"],
            label="KL reached by the look-up table (ours)")
    finite = np.isfinite(thm2["bound_full"])
    ax.plot(thm2["d"][finite], thm2["bound_full"][finite], **viz.role_style("bound"),
            label="Thm 2 bound, C = √(32 log(N+1)/d)")
    ax.plot(thm2["d"], thm2["bound_full_empirical_c"].replace(np.inf, np.nan), ":",
            color=viz.PALETTE["bound"], label="Thm 2 bound with the drawn W's coherence (ours)")
    ax.axvspan(thm2["d"].min(), bounds.dana_jl_threshold(n), color="#cccccc", alpha=0.4,
               label=THM2_VACUOUS_LABEL)
    ax.set(xscale="log", yscale="log", xlabel="embedding dimension d",
           ylabel="KL divergence (nats)",
           title=f"N = {n}, low-entropy conditionals (mass {thm2['eps'].iloc[0]:g} off g(t))")
    _legend_below(fig, [ax])
    return fig


def layout_heads_caption(layout_heads: pd.DataFrame, exp1: pd.DataFrame) -> str:
    """Caption of :func:`layout_heads_figure`: each model's slope against the paper's at each d."""
    slopes = layout_slopes(layout_heads, exp1)
    cells = []
    for d, part in slopes.groupby("d"):
        inner = ", ".join(f"{m} {v:.4f}" for m, v in zip(part["model"], part["slope"],
                                                         strict=True))
        theirs = part["paper"].iloc[0]
        cells.append(f"d = {d}: {inner}" + ("" if theirs is None or pd.isna(theirs)
                                            else f" (paper's CSV {theirs:.4f})"))
    return ("Accuracy against H at d = d_h for eq. (2) (blue), the official code's model (green) "
            "and eq. (2) with only the code's 1/√d_h and positions (pink), beside the paper's "
            "CSV. Per-head slopes (official rule): " + "; ".join(cells) + ".")


def committed_table(name: str, root: Any = None) -> pd.DataFrame | None:
    """The committed full-scale table of ``name`` as the paper reports it
    (:func:`as_the_paper_reports`), read, not run; None when none is committed."""
    from memnb.results import load

    full = load(name, "full", root)
    return None if full is None else as_the_paper_reports(full.table)


def layout_heads_conclusion(layout_heads: pd.DataFrame, exp1: pd.DataFrame,
                            fig5_row: Any = None,
                            fig5_table: pd.DataFrame | None = None) -> str:
    """What :func:`layout_slopes` concludes about the initialisation at Experiment 1's size
    (N, d = d_h of ``layout_heads``): whether eq. (2) with only the code's ``1/sqrt(d_h)`` scale
    and positions (eq. (2)'s initialisation) has a per-head slope within the scorecard's slope
    tolerance (:data:`memnb.scorecard.dana.SLOPE_REL_TOL`) of the paper's CSV, and nearer than
    eq. (2)'s, at every d compared; then, given ``fig5_row`` (the scorecard's "Fig. 5: which
    model") and ``fig5_table`` (the run it reads, ``dana.appendix_layout``), whether that run
    holds the same variant, i.e. whether the row could separate the initialisation at its
    size. ``""`` when no d has the variant beside the paper's CSV."""
    from memnb.scorecard.dana import SLOPE_REL_TOL

    slopes = layout_slopes(layout_heads, exp1)
    names = {kind: exp.MODEL_KINDS[kind] for kind in ("aot", "aot_code", "aot_code_uncompressed")}
    per = {kind: slopes[slopes["model"] == name].set_index("d") for kind, name in names.items()}
    ds = [d for d in per["aot_code_uncompressed"].index
          if not pd.isna(per["aot_code_uncompressed"].loc[d, "paper"])]
    if not ds:
        return ""

    def rel(kind: str, d: int) -> float:
        part = per[kind]
        return float(part.loc[d, "difference_%"]) if d in part.index else float("nan")

    tol = 100 * SLOPE_REL_TOL
    variant = [rel("aot_code_uncompressed", d) for d in ds]
    short = [d for d, v in zip(ds, variant, strict=True) if abs(v) > tol]
    nearer = all(abs(v) < abs(rel("aot", d)) for v, d in zip(variant, ds, strict=True))
    cells = "; ".join(
        f"d = {d}: {per['aot_code_uncompressed'].loc[d, 'slope']:.4f} against the paper's "
        f"{per['aot_code_uncompressed'].loc[d, 'paper']:.4f} "
        f"({rel('aot_code_uncompressed', d):+.1f} %; eq. (2) {rel('aot', d):+.1f} %, the "
        f"code's model {rel('aot_code', d):+.1f} %)" for d in ds)
    n = int(layout_heads["N"].iloc[0])
    where = (f"{'At every d compared' if len(ds) > 1 else 'At the d compared'} (N = {n}, "
             f"d = d_h), eq. (2) with only the code's 1/√d_h scale and positions (eq. (2)'s "
             "initialisation)")
    if not short and nearer:
        text = (f"{where} has a per-head slope within the scorecard's slope tolerance "
                f"({tol:.0f} %) of the paper's, and nearer to it than eq. (2)'s: {cells}. At "
                f"N = {n}, d = d_h, the initialisation is therefore not what separates eq. (2) "
                "from the paper: the code's scale and positions alone bring eq. (2)'s slope "
                f"to within {percent_up(max(abs(v) for v in variant) / 100)} of the paper's.")
    else:
        text = (f"{where} "
                + (f"is not within the scorecard's slope tolerance ({tol:.0f} %) of the "
                   f"paper's slope at d = {', '.join(str(d) for d in short)}" if short else
                   "is not nearer to the paper's slope than eq. (2)'s at every d")
                + f": {cells}. The code's scale and positions alone do not account for eq. "
                f"(2)'s distance from the paper at N = {n}, d = d_h; the initialisation or the "
                "compression d → d_h of the code's model may.")
    if fig5_row is not None and fig5_table is not None and len(fig5_table):
        has = "aot_code_uncompressed" in set(fig5_table["model"])
        big = int(fig5_table["N"].max())
        text += (f" The Fig. 5 \"which model\" row ({status_words(fig5_row)}) sets the code's "
                 f"model against eq. (2) at N = {big}, with the scale, the positions and the "
                 f"initialisation together; its run, `dana.appendix_layout`, "
                 + ("also trains eq. (2) with only the code's scale and positions." if has else
                    f"trains no eq. (2) with only the code's scale and positions, so at N = "
                    f"{big} the three are not separated: this separation is measured at N = "
                    f"{n} only."))
    return text


def gap_sentence(gap: pd.DataFrame) -> str:
    """Markdown sentences on :func:`memnb.scorecard.dana.last_token_gap`'s measurement: the
    setting (N, S, T_0, the k asked and drawn), what ``feature_rank`` measures (the largest
    rank over the table's ``draws``, numpy's default tolerance), how often it meets the bound,
    and what ``head0_rank`` is: the rank of head 0's λ → ∞ limit block, at most min(d, k) by
    construction, so that the paper's head 0 falls short is argued from its proof, not
    measured."""
    r = gap.iloc[0]
    fits = int((gap["feature_rank"] == gap["bound"]).sum())
    head0 = int((gap["head0_rank"] == np.minimum(gap["k"], gap["d"])).sum())
    short = gap[gap["feature_rank"] < gap["T0"]]
    fewer = gap[gap["k"] != gap["k_asked"]]
    drawn = ("" if fewer.empty else " (here " + ", ".join(
        f"{int(x.k)} for k = {int(x.k_asked)} asked" for x in fewer.itertuples()) + ")")
    exp = int(np.floor(np.log10(np.finfo(np.float64).eps)))
    eps = f"{np.finfo(np.float64).eps / 10.0 ** exp:.1f} \\times 10^{{{exp}}}"
    text = (f"Each row draws $T_0 = H d_h + d = {int(r['T0'])}$ distinct sequences of "
            f"$S = {int(r['S'])}$ tokens over $N = {int(r['N'])}$ ($d = {int(r['d'])}$, "
            f"$H = {int(r['H'])}$, $d_h = {int(r['d_h'])}$) whose last token is one of the "
            f"first `k_asked` tokens of the vocabulary; `k` is the number of distinct last "
            f"tokens actually drawn, which can be fewer{drawn}. `feature_rank` is the largest "
            f"numerical rank of the features $F$ over {int(r['draws'])} random draws of the "
            f"construction's weights "
            f"(numpy's default tolerance in float64: singular values above "
            f"$\\sigma_{{\\max}} \\cdot \\max(\\text{{rows}}, \\text{{columns}}) "
            f"\\cdot {eps}$ count). Measured: it equals $H d_h + \\min(d, k)$ in {fits} of "
            f"{len(gap)} rows")
    if short.empty:
        text += f", and it reaches $T_0 = {int(r['T0'])}$ in every row."
    else:
        text += (f"; with k = {', '.join(str(int(k)) for k in short['k'])} distinct last "
                 f"tokens it stays below $T_0 = {int(r['T0'])}$, so our construction does not "
                 f"reach capacity on such a set.")
    return text + (f" `head0_rank` is no measurement of a head: it is the rank of $x(t, S)$ on "
                   f"the drawn sequences, the block the paper's head $0$ tends to as "
                   f"$\\lambda\\to\\infty$, which has at most k distinct rows, so its rank "
                   f"is at most $\\min(d, k)$ by construction (it equals $\\min(d, k)$ in "
                   f"{head0} of {len(gap)} rows). That the paper's proof, as written, falls "
                   f"short the same way is an argument from its text (Lemma 2 applied to that "
                   f"limit block), not a measurement of head $0$ at a finite $\\lambda$.")


def repeated_token_sentence(row: Any, construction: RepeatedConstruction | None = None) -> str:
    """Markdown sentences for Section 2: at least d distinct last tokens is necessary for
    H d_h + d associations, not sufficient. Sequences of one repeated token, the Lemma 2 row's
    family (:data:`memnb.scorecard.dana.LEMMA2_REPEATED`, which the row reads), have as many
    distinct last tokens as sequences, yet the rank of their stacked attention outputs,
    measured as that row measures it (:func:`memnb.scorecard.dana.lemma2_rank`), stays at the
    bound d + (H − 1)(S − 1) it prints, below Lemma 2's min(T_0, H d); and our construction's
    features, which add the skip connection as one more head, stay at d + H(S − 1), below the
    T_0 = H d_h + d they need at the d_h where these sequences fill the capacity
    (``construction``, :func:`memnb.scorecard.dana.repeated_token_construction` by default,
    which also says whether ``memorize`` refuses them). ``row`` is the Lemma 2 row, whose
    status the sentence points to."""
    c = repeated_token_construction() if construction is None else construction
    n, s, d, h = (LEMMA2_REPEATED[k] for k in ("N", "S", "d", "H"))
    tokens = np.repeat(np.arange(n)[:, None], s, axis=1)
    last = int(len(np.unique(tokens[:, -1])))
    rank = lemma2_rank(tokens, n, d, h)
    bound = repeated_token_attention_rank_bound(d, h, s)
    claim = min(n, h * d)
    short = rank < claim
    c_short = c.rank < c.T0
    lead = ("Having at least $d$ distinct last tokens is necessary for our construction (and "
            "the paper's proof) to reach $H d_h + d$ associations, and not always enough: "
            if c_short and last >= d else
            "On the Lemma 2 row's sequences of one repeated token: ")
    which = f"these ${n}$ sequences" if c.T0 == n else f"the first ${c.T0}$ of them"
    built = ("and `memorize` raises a `ValueError` on them" if c.refused else
             "and `memorize` builds the model")
    return (f"{lead}the ${n}$ sequences $(i, \\dots, i)$ of one repeated token ($S = {s}$, "
            f"$d = {d}$, $H = {h}$) have ${last}$ distinct last tokens, "
            f"{'yet' if short else 'and'} the rank of their "
            f"stacked attention outputs is ${rank}$ (measured), at most "
            f"$d + (H-1)(S-1) = {bound}$ for any weights, and "
            f"{'stays below' if short else 'reaches'} the "
            f"$\\min(T_0, H d) = {claim}$ that Lemma 2 states (the scorecard's {row.item} row "
            f"below: **{status_words(row)}**). Our construction's features stack the skip "
            f"connection $x(t, S)$ on $W_V^h$ times these outputs, as one more head, so on "
            f"such sequences their rank is at most $d + H(S-1) = {c.bound}$. At "
            f"$d_h = {c.d_h}$, where $H d_h + d = {c.T0}$, the construction needs features of "
            f"rank ${c.T0}$ on {which}; they have rank ${c.rank}$ (measured, the largest over "
            f"${c.draws}$ draws of its weights), {built}.")


# --- App. B: larger dimension (Figs. 5-7) and deeper models (Figs. 8-10) --------------------

_D_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")


def _paper_params(table: pd.DataFrame, layers: int, mlp: bool) -> pd.Series:
    """Our parameter count (``num_parameters``) of the paper's CSV rows: d(S + 2N) plus, per
    layer, 4 d d_h H (AoT) or 4 d d_h + w(2d + 1) (one head + MLP of width w), S = 2."""
    base = table["d"] * (2 + 2 * table["N"])
    if mlp:
        return base + layers * (4 * table["d"] * table["d_h"]
                                + table["width"] * (2 * table["d"] + 1))
    return base + layers * 4 * table["d"] * table["d_h"] * table["H"]


#: How :func:`appendix_figure` draws each table it is given: (legend name, role of
#: :data:`memnb.viz.ROLE_STYLES`, faded). Colour stands for d in every panel (the book's
#: convention colours by role; the caption says so): the sources are told apart by line and
#: marker instead.
_APPENDIX_SOURCES = {
    "ours": ("ours", "ours", False),
    "ours_cached": ("ours (full run)", "ours_cached", False),
    "rerun": ("rerun, today's full profile", "ours_cached", False),
    "earlier": ("full run, earlier profile (not judged)", "ours_cached", True),
}


#: How a superseded source's lines are drawn: dotted, hollow markers, faded (:func:`_fade`, and
#: its legend entry in :func:`_appendix_legend`).
_FADED = {"linestyle": ":", "markerfacecolor": "none", "alpha": 0.5}


def _fade(ax: plt.Axes, lines: int, collections: int) -> None:
    """Restyle what was drawn on ``ax`` after its first ``lines`` lines and ``collections``
    bands as a superseded source (:data:`_FADED`; dots of single seeds keep no line)."""
    for line in ax.lines[lines:]:
        if line.get_linestyle() == "None":  # single-seed dots (:func:`_seed_curve`) stay dots
            line.set(markerfacecolor="none", alpha=min(line.get_alpha() or 1.0,
                                                       _FADED["alpha"]))
        else:
            line.set(**_FADED)
    for band in ax.collections[collections:]:
        band.set_alpha(0.08)


def appendix_rerun(kind: str, root: Any = None) -> pd.DataFrame | None:
    """The rerun of App. B's ``kind`` experiment by today's code under today's ``full``
    profile, as the paper reports it (:func:`as_the_paper_reports`), when it stands in for a
    committed full run of an earlier profile (:func:`memnb.scorecard.core.todays_rerun`);
    ``None`` otherwise (e.g. App. B.2, with no full run)."""
    from memnb.scorecard.core import todays_rerun

    rerun = todays_rerun(appendix_spec(kind)["name"], "full", root)
    return None if rerun is None else as_the_paper_reports(rerun.table)


def _integer_ticks(ax: plt.Axes) -> None:
    """Ticks of ``ax``'s x-axis at integers only (an axis of head counts or dimensions: no tick
    at H = 2.5), spaced as matplotlib's default locator spaces them."""
    ax.xaxis.set_major_locator(MaxNLocator(nbins="auto", steps=[1, 2, 2.5, 5, 10],
                                           integer=True))


def _appendix_grid(panels: int) -> list[list[str]]:
    """The panel grid of :func:`appendix_figure` (rows of panel names, as
    :func:`matplotlib.pyplot.subplot_mosaic` takes them) with ``panels`` Experiment 5 panels:
    Experiments 1 (``"exp1"``) and 2 (``"exp2"``) side by side in the top row, Experiment 5 one
    panel per d (``"exp5_0"``, ``"exp5_1"``, ...) in the bottom row, each d's own axes, so that
    the min–max bands of different d, which span most of [0, 1] where the one head + MLP's
    seeds split, do not overlap."""
    return [["exp1"] * panels + ["exp2"] * panels,
            [f"exp5_{k}" for k in range(panels) for _ in range(2)]]


def _grid_place(grid: list[list[str]], *names: str) -> str:
    """Where the panels of ``grid`` (:func:`_appendix_grid`) named ``names`` (a name before any
    ``_``: ``"exp5"`` for every Experiment 5 panel) sit, in words: ``"top left"``, ``"bottom
    row"`` (when they fill their row), for the captions (:func:`appendix_caption`)."""
    cells = [(r, c) for r, row in enumerate(grid) for c, key in enumerate(row)
             if key.split("_")[0] in names]
    rows = {r for r, _ in cells}
    if len(rows) != 1:
        raise ValueError(f"panels {names} do not share one row of {grid}")
    (r,) = rows
    cols, width = {c for _, c in cells}, len(grid[r])
    row_word = "top" if r == 0 else "bottom" if r == len(grid) - 1 else "middle"
    if len(cols) == width:
        return f"{row_word} row"
    side = ("left" if max(cols) < width / 2 else "right" if min(cols) >= width / 2
            else "centre")
    return f"{row_word} {side}"


def appendix_places() -> dict[str, str]:
    """Where :func:`appendix_figure` draws each experiment, in words read from its grid
    (:func:`_appendix_grid`, :func:`_grid_place`): ``"exp1"``, ``"exp2"``, ``"exp5"`` (its one
    panel per d) and ``"exp12"`` (Experiments 1 and 2 together)."""
    grid = _appendix_grid(2)
    return {"exp1": _grid_place(grid, "exp1"), "exp2": _grid_place(grid, "exp2"),
            "exp5": _grid_place(grid, "exp5"), "exp12": _grid_place(grid, "exp1", "exp2")}


def appendix_figure(table: pd.DataFrame, kind: str, cached: pd.DataFrame | None = None,
                    rerun: pd.DataFrame | None = None, *,
                    read_in_place: bool = False) -> plt.Figure:
    """App. B's three figures of one kind (``"dim"``: Figs. 5-7, ``"depth"``: Figs. 8-10) on one
    grid (:func:`_appendix_grid`): accuracy vs H (Exp. 1) and vs d_h (Exp. 2) in the top row,
    and below, one panel per d, accuracy vs parameter count of the AoT and the one head + MLP
    (Exp. 5); ``fig.axes`` lists Exp. 1, Exp. 2, then Exp. 5 by increasing d. Ours (markers;
    Exps. 1, 2: mean ± std over seeds; Exp. 5, whose MLP seeds can split: median over seeds,
    band min to max, each seed a faint dot, :func:`_seed_curve`) beside the paper's official
    CSVs (dotted, hollow diamonds); every one head + MLP with × markers; colour = d; H and d_h
    ticks at integers only. ``cached``, the committed full run, is drawn dash-dotted with square
    markers; with ``rerun`` (a rerun of it by today's code under today's profile,
    :func:`appendix_rerun`) the rerun takes that style and ``cached``, then of an earlier
    profile, is drawn faded (dotted, hollow squares).
    ``read_in_place``: ``table`` is the committed full run, read instead of a run of this build
    (:func:`memnb.experiments.dana.reused_full`), and the legend says so."""
    spec = appendix_spec(kind)
    f1, f2, f5 = spec["figures"]
    tables = [("ours", table)]
    if rerun is not None:
        tables.append(("rerun", rerun))
    if cached is not None:
        tables.append(("earlier" if rerun is not None else "ours_cached", cached))
    ref1, ref2, ref5 = spec["exp1"](), spec["exp2"](), spec["exp5"]()
    ds = sorted(set(int(d) for _, t in tables for d in t["d"].unique())
                | set(int(d) for d in ref1["d"].unique()))
    color = {d: _D_COLORS[i % len(_D_COLORS)] for i, d in enumerate(ds)}
    # the Exp. 5 panels: every d of ours and of the paper's AoT (Exp. 1 CSV) and MLP curves
    ds5 = sorted(set(int(d) for _, t in tables for d in exp.appendix_rows(t, f5)["d"].unique())
                 | set(int(d) for d in ref5["d"].unique())
                 | set(int(d) for d in ref1["d"].unique()))
    fig = plt.figure(figsize=(11.5, 8.2), layout="constrained")
    panel = fig.subplot_mosaic(_appendix_grid(len(ds5)))  # fig.axes in the grid's order
    for k in range(1, len(ds5)):  # the Exp. 5 panels share one accuracy axis
        panel[f"exp5_{k}"].sharey(panel["exp5_0"])
    exp5_axes = {d: panel[f"exp5_{k}"] for k, d in enumerate(ds5)}
    axes = [panel["exp1"], panel["exp2"], *exp5_axes.values()]
    layers = int(table["layers"].iloc[0]) if "layers" in table else 1
    paper_layers = int(ref1["layers"].iloc[0]) if "layers" in ref1 else 1
    for source, t in tables:
        run, role, faded = _APPENDIX_SOURCES[source]
        drawn = [(len(ax.lines), len(ax.collections)) for ax in axes]
        for d, part in exp.appendix_rows(t, f1).groupby("d"):
            viz.plot_ours(axes[0], part, "H", "accuracy", role=role, color=color[int(d)],
                          label=f"{run}: d = {int(d)}, N = {int(part['N'].iloc[0])}")
        part = exp.appendix_rows(t, f2)
        if len(part):
            d = int(part["d"].iloc[0])
            viz.plot_ours(axes[1], part, "d_h", "accuracy", role=role, color=color.get(d),
                          label=f"{run}: d = {d}, H = {int(part['H'].iloc[0])}")
        rows5 = exp.appendix_rows(t, f5)
        for (d, model), part in rows5.groupby(["d", "model"]):
            # the MLP's seeds can split far apart (Fig. 7): median, min–max band, every seed
            # a faint dot, as the Fig. 7 figure of two pairs of models draws them
            style = viz.role_style(role, color[int(d)])
            if model != "aot":  # one head + MLP: × markers, as the paper's, colour still d
                style["marker"] = "x"
            seeds = int(part["seed"].nunique()) if "seed" in part else 1
            _seed_curve(exp5_axes[int(d)], part, "params", stat="median", band=True, **style,
                        label=f"{run}: d = {int(d)}, "
                              f"{'AoT' if model == 'aot' else '1 head + MLP'}"
                              + (f", median, band min to max over {counted(seeds, 'seed')}"
                                 if seeds > 1 else ""))
        if faded:
            for ax, (lines, bands) in zip(axes, drawn, strict=True):
                _fade(ax, lines, bands)
    paper_style = {**viz.role_style("paper"), "linestyle": ":"}
    for d, part in ref1.groupby("d"):
        axes[0].plot(part["H"], part["accuracy"], **{**paper_style, "color": color[int(d)]},
                     label=f"paper: d = {int(d)}, N = {int(part['N'].iloc[0])}")
        exp5_axes[int(d)].plot(_paper_params(part, paper_layers, False), part["accuracy"],
                               **{**paper_style, "color": color[int(d)]},
                               label=f"paper: d = {int(d)}, AoT")
    axes[1].plot(ref2["d_h"], ref2["accuracy"],
                 **{**paper_style, "color": color.get(int(ref2["d"].iloc[0]), "#444444")},
                 label=f"paper: d = {int(ref2['d'].iloc[0])}, H = {int(ref2['H'].iloc[0])}")
    for d, part in ref5.groupby("d"):
        exp5_axes[int(d)].plot(_paper_params(part, paper_layers, True), part["accuracy"],
                               **{**paper_style, "color": color[int(d)], "marker": "x"},
                               label=f"paper: d = {int(d)}, 1 head + MLP")
    depth = f", {layers} layers" if layers > 1 else ""
    titles = (f"{f1}: Exp. 1{depth}", f"{f2}: Exp. 2{depth}",
              *(f"{f5}: Exp. 5{depth}, d = d_h = {d}" for d in ds5))
    xlabels = ("heads H (d_h = d)", "head dimension d_h",
               *["parameters (our count, per model)"] * len(ds5))
    for ax in (axes[0], axes[1], exp5_axes[ds5[0]]):
        ax.set_ylabel(accuracy_label(*(t for _, t in tables)))
    # H and d_h count heads and dimensions: integer ticks only (no H = 2.5)
    for ax in axes[:2]:
        _integer_ticks(ax)
    for ax in exp5_axes.values():
        # thousands in the tick labels: a "1e5" offset text would sit on the axis label;
        # five- and six-digit counts in a third of the width: few ticks
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1000:g}k"))
    for ax, title, xlabel in zip(axes, titles, xlabels, strict=True):
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(xlabel)
        ax.set_ylim(bottom=0)
    _appendix_legend(fig, [(source, t) for source, t in tables if len(t)],
                     {d: color[d] for d in ds}, read_in_place=read_in_place,
                     exp5=f5 if any(len(exp.appendix_rows(t, f5)) for _, t in tables) else "")
    return fig


def _appendix_legend(fig: plt.Figure, tables: list[tuple[str, pd.DataFrame]],
                     color: dict[int, str], *, read_in_place: bool = False,
                     exp5: str = "") -> None:
    """One legend under :func:`appendix_figure`'s panels, in two parts: the colour of each
    d, and the line and marker of each source (drawn in grey: colour stands for d), with the
    × marker of the one head + MLP and, when ``exp5`` names the Experiment 5 figure drawn, how
    its panel shows the seeds (median, band min to max, faint dots: single seeds), the other
    panels' being mean ± std. Every curve keeps its own label (source, d and setting) on its
    axes; a legend of every curve of all panels would outgrow the panels."""
    from matplotlib.lines import Line2D

    grey = "#555555"
    handles = [Line2D([], [], color=c, linewidth=2.5, label=f"d = {d}") for d, c in
               color.items()]
    for source, t in tables:
        run, role, faded = _APPENDIX_SOURCES[source]
        seeds = int(t["seed"].nunique()) if "seed" in t else 1
        style = viz.role_style(role, grey)
        if faded:
            style = {**style, **_FADED}
        own = ours_label(FULL_IN_PLACE) if read_in_place else "ours: this build's run"
        label = (own if source == "ours" else run) + (
            f", mean ± std over {counted(seeds, 'seed')}" + (" (Exps. 1, 2)" if exp5 else "")
            if seeds > 1 else "")
        handles.append(Line2D([], [], **style, label=label))
    handles.append(Line2D([], [], **{**viz.role_style("paper", grey), "linestyle": ":"},
                          label="paper (official CSV)"))
    handles.append(Line2D([], [], color=grey, marker="x", linestyle="none",
                          label="× markers: one head + MLP (Exp. 5)"))
    if exp5:
        handles.append(Line2D([], [], color=grey, marker="o", linestyle="none", alpha=0.3,
                              ms=3.5, label=f"{exp5} (Exp. 5), ours: line the median over "
                                            "seeds,\nband min to max, faint dots single seeds"))
    fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 3),
               fontsize=7.5, frameon=False, title="colour: d; line and marker: source",
               title_fontsize=7.5)


def appendix_full_run_sentence(cached: pd.DataFrame, kind: str,
                               provenance: dict[str, Any], *,
                               beside_rerun: bool = False) -> str:
    """What the committed full run of App. B that :func:`appendix_figure` draws beside this
    build's (dash-dotted, square markers; dotted, faded hollow squares when ``beside_rerun``, a
    rerun of today's profile drawn in that style) holds and shows, computed from its table and
    provenance: which of the three figures it has points of (and which none), its per-head
    slopes by the official rule (seed-averaged curves, :func:`memnb.experiments.dana.
    official_slopes`) beside the paper's CSV slopes, whether its Experiment 2 curve is
    increasing (steps down of at most 0.01, as the Fig. 6/9 rows allow), and, when it was
    computed under an earlier profile (:func:`memnb.provenance.profile_change`), that the
    scorecard does not judge it."""
    from memnb.provenance import partial_summary, profile_change

    spec = appendix_spec(kind)
    f1, f2, f5 = spec["figures"]
    partial = partial_summary(provenance)
    style = ("Dotted, faded hollow squares (\"full run, earlier profile\" in the legends)"
             if beside_rerun else "Dash-dotted, square markers (\"full run\" in the legends)")
    text = (f"{style}: the committed full-scale run ({provenance.get('device_name', '?')}, "
            f"{str(provenance.get('started_utc', '?'))[:10]})"
            + (f", {partial}" if partial else "") + ".")
    held = [f for f in (f1, f2, f5) if (cached["figure"] == f).any()]
    none = [f for f in (f1, f2, f5) if f not in held]
    if held:
        text += (f" It holds points of {' and '.join(held)}"
                 + (f" only; no {' or '.join(none)} point ran" if none else "") + ".")
    for figure in (f1, f2):
        reading = appendix_full_reading(cached, kind, figure)
        if reading:
            text += f" Its {reading}."
    if profile_change(provenance) is not None:
        text += (" It was computed under an earlier `full` profile (the parameters above), so "
                 "the scorecard does not judge it: the verdicts read today's profile only.")
    return text


def appendix_rerun_sentence(rerun: pd.DataFrame, kind: str, provenance: dict[str, Any]) -> str:
    """What the rerun of App. B's ``kind`` experiment by today's code under today's ``full``
    profile (:func:`appendix_rerun`, drawn dash-dotted with square markers) holds and shows,
    computed from its table and provenance: its progress, which figures' grids it has computed
    in full (those rows are judged on it, :func:`memnb.scorecard.dana.appendix_figures_read`),
    how many points of the others it holds, and its Experiment 1 slopes and Experiment 2 curve
    (:func:`appendix_full_reading`)."""
    from memnb.provenance import partial_summary
    from memnb.scorecard.core import computing_commits
    from memnb.scorecard.dana import appendix_figures_read

    spec = appendix_spec(kind)
    figures = spec["figures"]
    missing = list(provenance.get("missing_points") or [])
    partial = partial_summary(provenance)
    text = ("Dash-dotted, square markers (\"rerun, today's full profile\" in the legends): the "
            f"rerun of {spec['name']} by today's code under today's `full` profile "
            f"({provenance.get('device_name', '?')}, {computing_commits(provenance)})"
            + (f", {partial}" if partial else ", complete") + ".")
    complete, others = [], []
    for figure in figures:
        held = int((rerun["figure"] == figure).sum())
        lacks = sum(p.get("figure") == figure for p in missing)
        if held and not any(p.get("figure") in appendix_figures_read(figure) for p in missing):
            complete.append(figure)
        elif held:
            d_h = sorted(int(v) for v in rerun.loc[rerun["figure"] == figure, "d_h"].unique())
            values = (f" (d_h = {', '.join(map(str, d_h))})" if figure == figures[1] else "")
            others.append(f"{held} of the {held + lacks} points of {figure}{values}")
        else:
            others.append(f"no {figure} point")

    if complete:
        text += (f" It has computed every point of {and_words(complete)}, whose "
                 f"verdict{'s' * (len(complete) > 1)} above "
                 f"{'are' if len(complete) > 1 else 'is'} judged on it"
                 + (" (at most trend while the rerun is partial)" if partial else ""))
        text += (f"; of the others it holds {and_words(others)}, so their verdicts read "
                 "this build's run." if others else ".")
    else:
        text += f" It holds {and_words(others)}; no verdict is judged on it yet."
    for figure in figures[:2]:
        reading = appendix_full_reading(rerun, kind, figure)
        if reading:
            text += f" Its {reading}."
    return text


def appendix_count_gap(tables: Iterable[pd.DataFrame | None], kind: str) -> str:
    """The parameter counts of the Experiment 5 panel's two models at the largest H of each d,
    from the first of ``tables`` that holds both with their counts (:func:`exp5_params` on
    :func:`memnb.experiments.dana.appendix_rows`), else from our count of the paper's own CSV
    models (:func:`_paper_params`): the paper calls them of equal count, and ours differ by the
    MLP's input-layer bias, w = 2d(H − 1) per layer. One clause, e.g. "d = 40, H = 11: AoT
    ..., MLP ... (+800 = w)"."""
    from memnb.scorecard.dana import mlp_heads

    spec = appendix_spec(kind)
    f5 = spec["figures"][2]
    for table in tables:
        if table is None or "params" not in table:
            continue
        rows = exp.appendix_rows(table, f5)
        if not len(rows) or "H_equiv" not in rows:
            continue
        counts = exp5_params(rows.assign(H_equiv=rows["H_equiv"].fillna(rows["H"])))
        if len(counts):
            layers = int(table["layers"].iloc[0]) if "layers" in table else 1
            return "; ".join(
                f"d = {r.d}, H = {r.H}: AoT {r.aot:,}, MLP {r.mlp:,} ({r.extra:+,}"
                + (f" = {'' if layers == 1 else f'{layers} × '}w" if r.extra == layers * r.width
                   else f", w = {r.width:,}") + ")" for r in counts.itertuples())
    ref1, ref5 = spec["exp1"](), spec["exp5"]()
    layers = int(ref1["layers"].iloc[0]) if "layers" in ref1 else 1
    cells = []
    for d, mlp in ref5.groupby("d"):
        last = mlp.sort_values("width").iloc[[-1]]
        h = int(mlp_heads(last).iloc[0])
        aot = ref1[(ref1["d"] == d) & (ref1["H"] == h)]
        if aot.empty:
            continue
        a = int(_paper_params(aot.assign(d_h=aot["d"]), layers, False).iloc[0])
        m = int(_paper_params(last.assign(d_h=last["d"]), layers, True).iloc[0])
        cells.append(f"d = {int(d)}, H = {h} (the paper's CSV models, our count): AoT {a:,}, "
                     f"MLP {m:,} ({m - a:+,})")
    return "; ".join(cells)


def _appendix_styles(beside_rerun: bool, cached: pd.DataFrame | None,
                     cached_partial: str = "") -> str:
    """The styles of the runs :func:`appendix_figure` draws beside this build's (a rerun when
    ``beside_rerun``), for the lead of :func:`appendix_caption` (what each run holds follows in
    its details); ``cached_partial`` says how much of a partial committed run ran ("partial,
    30 of 230 points")."""
    text = (" Dash-dotted, square markers: the rerun under today's `full` profile."
            if beside_rerun else "")
    if cached is not None and len(cached):
        text += (" Dotted, faded hollow squares: the committed full run of an earlier profile"
                 if beside_rerun else " Dash-dotted, square markers: the committed full-scale "
                 "run") + (f" ({cached_partial})" if cached_partial else "") + "."
    return text


def _verdicts_read_from(rows: Any) -> str:
    """``" (read from the `full` run of dana.appendix_depth)"``: the run(s) that scorecard rows
    judged (:attr:`memnb.scorecard.core.Row.read_from`; a row not run judged none); '' when
    none names one."""
    runs: list[str] = []
    for row in rows:
        if getattr(row, "status", "") != "not run":
            runs += [run for run in getattr(row, "read_from", ()) if run not in runs]
    return f" (read from the {' and the '.join(runs)})" if runs else ""


def appendix_undecided_words(table: pd.DataFrame, kind: str) -> str:
    """Where the Experiment 5 figure of App. B ``kind`` (Fig. 7 or 10) in ``table`` cannot
    decide the order of the two models: the d at the paper's setting whose seeds split and
    whose order of seed means and order of seed medians disagree on the paper's CSV order
    (:func:`memnb.scorecard.dana.undecided_words`, the rule of the figure's scorecard row),
    e.g. "at d = 40, 50, 60 the seed means put the MLP ahead and the seed medians the AoT (the
    paper's order)"; '' when there is none, or no d with both models."""
    from memnb.scorecard.dana import appendix_exp5_order, undecided_words

    spec = appendix_spec(kind)
    rows = exp.appendix_rows(table, spec["figures"][2])
    if rows.empty:
        return ""
    both = rows.groupby("d")["model"].agg(lambda m: {"aot", "mlp"} <= set(m))
    rows = rows[rows["d"].isin(both[both].index)]
    if rows.empty:
        return ""
    order = appendix_exp5_order(rows, spec["exp1"](), spec["exp5"]())
    return undecided_words(order[(order["paper_ahead"] != "tie")
                                 & (order["paper_setting"] == "same")])


def appendix_caption(table: pd.DataFrame, kind: str, verdicts: dict[str, Any],
                     cached: pd.DataFrame | None = None, root: Any = None,
                     rerun: pd.DataFrame | None = None, read_in_place: bool = False) -> str:
    """Caption of :func:`appendix_figure`: what is drawn at which settings (from the table
    and the paper's CSVs), whether it is the paper's scale, the Experiment 5 models' counts
    (:func:`appendix_count_gap`: nominally equal in the paper, not in ours), what the lines and
    bands are (Experiment 5: median and min–max over seeds; Experiments 1, 2: mean ± std), how
    the figure's styles depart from the book's conventions, and the three verdicts; with
    ``rerun`` (drawn beside, :func:`appendix_rerun`) what the rerun holds and shows
    (:func:`appendix_rerun_sentence`); with ``cached`` (the committed full run drawn beside
    ``table``) what that run holds and shows (:func:`appendix_full_run_sentence`); their
    provenance read from ``root``'s results, the checkout's by default, so the figure's caller
    need not add the generic sentence (``show(..., full_told=True)``). ``read_in_place``:
    ``table`` is the committed full run, read instead of a run of this build
    (:func:`memnb.experiments.dana.reused_full`), and the caption names it so."""
    from memnb.provenance import points_ran
    from memnb.results import load

    spec = appendix_spec(kind)
    f1, f2, f5 = spec["figures"]
    ref1, ref2 = spec["exp1"](), spec["exp2"]()
    beside_rerun = rerun is not None and len(rerun) > 0
    full = load(spec["name"], "full", root) if cached is not None and len(cached) else None
    cached_partial = ""
    if full is not None and not full.provenance.get("complete", True):
        cached_partial = "partial, {} of {} points".format(*points_ran(full.provenance))
    n_ours = int(table["N"].iloc[0])
    layers = int(table["layers"].iloc[0]) if "layers" in table else 1
    ours_d = ", ".join(str(int(d)) for d in sorted(exp.appendix_rows(table, f1)["d"].unique()))
    paper_d = ", ".join(str(int(d)) for d in sorted(ref1["d"].unique()))
    same = n_ours == int(ref1["N"].iloc[0]) and set(exp.appendix_rows(table, f1)["d"]) <= set(
        ref1["d"])
    scale = ("at the paper's settings" if same else
             f"in this build's run at a reduced scale (its N = {n_ours}, d = {ours_d} against H; "
             f"the paper's N = {int(ref1['N'].iloc[0])}, d = {paper_d}): compare its shapes, not "
             "its values")
    part2 = exp.appendix_rows(table, f2)
    figs = f"Figs. {f1.split()[-1]}-{f5.split()[-1]}"
    gap = appendix_count_gap((table, rerun, cached), kind)
    per_layer = " per layer" if layers > 1 else ""
    place = appendix_places()
    undecided = appendix_undecided_words(table, kind)
    text = (f"{spec['section']} (Dana et al. {figs}): Experiments 1, 2 and 5 "
            f"{'with ' + str(layers) + ' residual attention layers ' if layers > 1 else ''}"
            f"{scale}. {place['exp1'].capitalize()}: accuracy against H ({f1}); "
            f"{place['exp2']}: against d_h at d = "
            f"{int(part2['d'].iloc[0])}, H = {int(part2['H'].iloc[0])} (the paper's: d = "
            f"{int(ref2['d'].iloc[0])}, H = {int(ref2['H'].iloc[0])}; {f2}); {place['exp5']}, "
            f"one panel per d: AoT with H "
            f"heads against one head + MLP of width w = 2d(H − 1){per_layer} at the paper's "
            f"nominally equal parameter count ({f5}; the x-axis is each model's count as we "
            f"count it, and ours differ by the MLP's input-layer bias, w{per_layer}"
            + (f": {gap}" if gap else "") + "). Solid lines with round markers: "
            + ("the committed full run, read in place of a run of this build" if read_in_place
               else "this build's run")
            + f".{_appendix_styles(beside_rerun, cached, cached_partial)} Dotted lines with "
            "hollow diamonds: the paper's official CSVs. The one head + MLP, ours and the "
            "paper's, has × markers, to tell it from the AoT at the same d. Ours in the "
            f"{place['exp5']} ({f5}): the line is the median over seeds, the band runs from the "
            "lowest "
            "seed to the highest (min–max) and each seed is a faint dot, since the one head + "
            "MLP's seeds can split far apart (a mean ± std of split seeds lies between them; "
            f"the {f5} verdict reads the seed means, and the medians where the seeds split, so "
            f"its numbers can differ from the drawn medians)."
            + (f" In the run drawn with solid lines, {undecided}; the {f5} row reads such a d "
               "as not decided." if undecided else "")
            + f" {place['exp12'][:1].upper()}{place['exp12'][1:]}: the seed mean "
            "± one standard deviation. Unlike the book's "
            "other figures, colour here stands for d, not for the source: the sources are told "
            "apart by line and marker.")
    text += (f" Verdicts{_verdicts_read_from(verdicts[f] for f in (f1, f2, f5))}: "
             + ", ".join(f"{f} **{status_words(verdicts[f])}**" for f in (f1, f2, f5)) + ".")
    # folded: one verdict a list item and each run's account a paragraph, so that a reader finds
    # each figure's evidence without reading the three as one paragraph
    details = "\n".join(f"- {verdict_sentence(verdicts[f])}" for f in (f1, f2, f5))
    if beside_rerun:
        from memnb.scorecard.core import todays_rerun

        again = todays_rerun(spec["name"], "full", root)
        if again is not None:
            details += "\n\n" + appendix_rerun_sentence(rerun, kind, again.provenance)
    if full is not None:
        details += "\n\n" + appendix_full_run_sentence(
            cached, kind, full.provenance, beside_rerun=beside_rerun)
    return viz.with_details(text, details)


# --- Fig. 6 with the official code's model (ours, dana.appendix_layout) ----------------------


def appendix_layout_eq2(layout: pd.DataFrame,
                        *candidates: pd.DataFrame | None) -> pd.DataFrame | None:
    """Eq. (2)'s Fig. 6 rows to set beside ``layout`` (``dana.appendix_layout``): those of the
    first of ``candidates`` (tables of ``dana.appendix_dim``, ``None`` skipped; the chapter
    passes the rerun first, as the Fig. 6 row reads it) with Fig. 6 rows at ``layout``'s N, d
    and H, as the paper reports them; ``None`` when no candidate has such rows."""
    setting = {k: int(layout[k].iloc[0]) for k in ("N", "d", "H")}
    for table in candidates:
        if table is None:
            continue
        rows = as_the_paper_reports(exp.appendix_rows(table, "Fig. 6"))
        if not rows.empty and all(int(rows[k].iloc[0]) == v for k, v in setting.items()):
            return rows
    return None


def appendix_layout_figure(layout: pd.DataFrame, eq2: pd.DataFrame | None) -> plt.Figure:
    """Fig. 6 with two models (ours, ``dana.appendix_layout``): accuracy against d_h for eq.
    (2) (``eq2``, the Fig. 6 rows of ``dana.appendix_dim``) and the official code's model,
    mean ± std over seeds, beside the paper's CSV when ``layout`` is at its setting."""
    layout = as_the_paper_reports(layout)
    fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    tables = ([("aot", eq2)] if eq2 is not None else []) + list(
        layout.groupby("model", sort=False))
    for kind, table in tables:
        viz.plot_ours(ax, table, "d_h", "accuracy", label=f"ours: {exp.MODEL_KINDS[kind]}",
                      color=_LAYOUT_COLORS[str(kind)])
    n, d, h = (int(layout[k].iloc[0]) for k in ("N", "d", "H"))
    theirs = paper.dim_exp2()
    if paper_setting(theirs, N=n, d=d, H=h):
        viz.plot_paper(ax, _paper_xy(theirs, "d_h"), "d_h", "accuracy",
                       label="paper (official CSV)")
    ax.set(xlabel="head dimension d_h", ylabel=accuracy_label(layout, eq2),
           title=f"Fig. 6 by model: N = {n}, d = {d}, H = {h}")
    fig.legend(loc="outside lower center", ncol=2, fontsize=7.5)
    return fig


def appendix_layout_report(layout: pd.DataFrame, eq2: pd.DataFrame | None,
                           verdicts: tuple[Any, ...] = ()) -> str:
    """Markdown paragraph, from the data, on which model's Fig. 6 is the paper's: per model the
    mean |ours − paper| (:func:`memnb.scorecard.dana.fig_6_model_distances`), its peak and its
    value at the largest d_h, then ``verdicts`` (the scorecard row "Fig. 6: which model")."""
    from memnb.scorecard.dana import fig_6_model_curves, fig_6_model_distances, peak_words

    head = "**Which model gives the paper's Fig. 6?**"
    if eq2 is None:
        return (f"{head} No run of eq. (2)'s Fig. 6 at this run's setting is at hand to set "
                "beside the code's model.")
    curves = fig_6_model_curves(as_the_paper_reports(layout), eq2)
    table = fig_6_model_distances(curves)
    parts = []
    for row in table.itertuples():
        seeds = int(curves[curves["kind"] == row.kind]["seeds"].min())
        text = f"{row.model[:1].upper()}{row.model[1:]} ({counted(seeds, 'seed')}): " + (
            peak_words(row))
        if row.points:
            text += (f", on average {row.mean_abs_difference:.3f} from the paper's CSV over "
                     f"{row.points} values of d_h (largest gap {row.max_abs_difference:.3f})")
        parts.append(text + ".")
    theirs = curves[curves["kind"] == "paper"].set_index("d_h")["accuracy"]
    if len(theirs):
        parts.append(f"The paper's CSV ends at {theirs.iloc[-1]:.3f} at d_h = "
                     f"{int(theirs.index[-1])}.")
    else:
        parts.append("This run is not at the paper's setting, so no value is compared.")
    return folded_report(head, parts, verdicts)


# --- Figs. 5 and 6 with the official code's model: which rows (ours, dana.appendix_layout) ---


def appendix_layout_run(run: Any, figure: str) -> Any:
    """The run of ``dana.appendix_layout`` to draw ``figure`` ("Fig. 5", "Fig. 6" or "Fig. 7")
    from, as
    a :class:`memnb.results.FreshAndCached` whose ``fresh`` holds that figure's rows
    (:func:`memnb.experiments.dana_appendix_layout.figure_rows`): the chapter's ``run`` when it
    holds at least as many of the figure's points as the rerun of today's grid under way
    (:mod:`memnb.reruns`; the finished groups of a partial one), else that rerun, its note
    naming it. Fig. 5's rows are those of the d with every H of the profile (a run of the
    earlier grid holds of Fig. 5 only the point it shares with Fig. 6), Fig. 7's those of the
    d where both models have every H; ``run`` with no rows when neither has any.
    """
    import dataclasses

    from memnb.experiments.dana_appendix_layout import figure_rows
    from memnb.provenance import partial_summary, run_label
    from memnb.reruns import RERUN, rerun_progress, rerun_root
    from memnb.results import computed_by_todays_code, load
    from memnb.scorecard.core import computing_commits

    def rows_of(table: pd.DataFrame, params: dict[str, Any]) -> pd.DataFrame:
        rows = figure_rows(table, figure, params)
        if figure != "Fig. 6" and len(rows):  # a d drawn with every H, not Fig. 6's one point
            x = "H" if figure == "Fig. 5" else "H_equiv"
            counts = rows.groupby(["d", "model"])[x].nunique().unstack()
            kinds = 1 if figure == "Fig. 5" else 2  # Fig. 7: the AoT and the MLP model
            full = counts.index[(counts == len(params["H_sweep"])).sum(axis=1) >= kinds]
            rows = rows[rows["d"].isin(full)]
        return rows

    rows = rows_of(run.fresh, run.params)
    rerun = load(run.name, "full", rerun_root())
    params = exp.get_params(run.name, "full")
    if rerun is not None and computed_by_todays_code(run.name, rerun.provenance):
        again = rows_of(as_the_paper_reports(rerun.table), params)
        if len(again) > len(rows):
            prov = rerun.provenance
            note = (f"{run.name}: the `full` rerun of today's grid ({RERUN}/full/, "
                    f"{run_label(again, prov)}, {computing_commits(prov)}); "
                    f"{rerun_progress(run.name, 'full') or 'complete'}")
            return dataclasses.replace(run, fresh=again, cached=None, params=params,
                                       note=note, partial=partial_summary(prov))
    return dataclasses.replace(run, fresh=rows)


def _eq2_at_layout_ds(layout: pd.DataFrame | None, figure: str,
                      candidates: tuple[pd.DataFrame | None, ...]) -> pd.DataFrame | None:
    """``figure``'s rows (``dana.appendix_rows``) of the first of ``candidates`` (``None``
    skipped) at ``layout``'s N, at its d (any N and d without ``layout``), as the paper
    reports them; ``None`` when none has such rows."""
    for table in candidates:
        if table is None:
            continue
        rows = as_the_paper_reports(exp.appendix_rows(table, figure))
        if layout is not None and len(rows):
            rows = rows[rows["d"].isin(set(layout["d"].unique()))]
            if len(rows) and int(rows["N"].iloc[0]) != int(layout["N"].iloc[0]):
                continue
        if len(rows):
            return rows.reset_index(drop=True)
    return None


def appendix_layout_fig5_eq2(layout: pd.DataFrame,
                             *candidates: pd.DataFrame | None) -> pd.DataFrame | None:
    """Eq. (2)'s Fig. 5 rows to set beside ``layout`` (the Fig. 5 rows of
    ``dana.appendix_layout``): those of the first of ``candidates`` (tables of
    ``dana.appendix_dim``, ``None`` skipped) at ``layout``'s N, at its d, as the paper reports
    them; ``None`` when no candidate has such rows."""
    return _eq2_at_layout_ds(layout, "Fig. 5", candidates)


def appendix_layout_fig5_figure(layout: pd.DataFrame, eq2: pd.DataFrame | None) -> plt.Figure:
    """Fig. 5 with two models (ours, ``dana.appendix_layout``): accuracy against H at
    d = d_h for eq. (2) (``eq2``, the Fig. 5 rows of ``dana.appendix_dim``) and the official
    code's model, mean ± std over seeds, one panel per d, beside the paper's CSV where the run
    is at its N."""
    layout = as_the_paper_reports(layout)
    ds = sorted(int(d) for d in layout["d"].unique())
    n = int(layout["N"].iloc[0])
    theirs = paper.dim_exp1()
    fig, axes = plt.subplots(1, len(ds), figsize=(3.3 * len(ds) + 0.6, 3.6), sharey=True,
                             layout="constrained", squeeze=False)
    for ax, d in zip(axes[0], ds, strict=True):
        tables = ([("aot", eq2[eq2["d"] == d])] if eq2 is not None else []) + list(
            layout[layout["d"] == d].groupby("model", sort=False))
        for kind, table in tables:
            if len(table):
                viz.plot_ours(ax, table, "H", "accuracy",
                              label=f"ours: {exp.MODEL_KINDS[kind]}",
                              color=_LAYOUT_COLORS[str(kind)])
        mine = theirs[theirs["d"] == d]
        if len(mine) and int(mine["N"].iloc[0]) == n:
            viz.plot_paper(ax, _paper_xy(mine, "H"), "H", "accuracy",
                           label="paper (official CSV)")
        ax.set(xlabel="heads H", title=f"d = d_h = {d}")
    axes[0][0].set_ylabel(accuracy_label(layout, eq2))
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.suptitle(f"Fig. 5 by model: N = {n}", fontsize=10)
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=7.5)
    return fig


def appendix_layout_fig5_report(layout: pd.DataFrame, eq2: pd.DataFrame | None,
                                verdicts: tuple[Any, ...] = ()) -> str:
    """Markdown paragraph, from the data, on which model's Fig. 5 is the paper's: per d each
    model's per-head slope (official rule) and its difference from the paper's CSV slope
    (:func:`memnb.scorecard.dana.fig_5_model_slopes`), then ``verdicts`` (the scorecard row
    "Fig. 5: which model")."""
    from memnb.scorecard.dana import fig_5_model_slopes, fig_5_model_words

    head = "**Which model gives the paper's Fig. 5?**"
    if eq2 is None:
        return (f"{head} No run of eq. (2)'s Fig. 5 at this run's setting is at hand to set "
                "beside the code's model.")
    slopes = fig_5_model_slopes(as_the_paper_reports(layout), eq2)
    seeds = slopes.groupby("model", sort=False)["seeds"].min()
    parts = ["Per-head slopes by the official rule, on each model's seed-averaged curve ("
                   + "; ".join(f"{m}: {counted(int(k), 'seed')}" for m, k in seeds.items())
                   + f"): {fig_5_model_words(slopes)}."]
    if slopes["paper_slope"].isna().all():
        parts.append("This run is not at the paper's setting, so no slope is compared.")
    return folded_report(head, parts, verdicts)


def appendix_fig5_eq2(*candidates: pd.DataFrame | None) -> pd.DataFrame | None:
    """Eq. (2)'s Fig. 5 rows (Dana et al., App. B.1: Experiment 1 at d = d_h, N = 200) of the
    first of ``candidates`` that holds any (tables of ``dana.appendix_dim``, ``None`` skipped;
    the chapter passes today's rerun first, as :func:`appendix_layout_fig5_eq2` and the Fig. 5
    row read it), as the paper reports them; ``None`` when no candidate holds Fig. 5 rows."""
    return _eq2_at_layout_ds(None, "Fig. 5", candidates)


#: The three sides of a per-head slope against the paper's CSV slope, in the words of
#: :func:`slope_comparison_words` (keys of :func:`slope_side`).
_SLOPE_SIDES = {"short": "fall short of", "match": "match", "exceed": "exceed"}


def slope_relative_difference(ours: float, theirs: float) -> float:
    """The relative difference ``(ours − theirs) / theirs`` of a per-head slope from the
    paper's (Dana et al., Figs. 2b and 5, official rule), which :func:`slope_side` judges."""
    return (ours - theirs) / theirs


def slope_side(ours: float, theirs: float, tol: float) -> str:
    """Where a per-head slope ``ours`` lies from the paper's ``theirs`` (Dana et al., Figs. 2b
    and 5, official rule), by its relative difference (:func:`slope_relative_difference`):
    ``"match"`` within ``± tol``, ``"short"`` below ``−tol``, ``"exceed"`` above ``+tol``
    (ours)."""
    rel = slope_relative_difference(ours, theirs)
    return "match" if abs(rel) <= tol else "short" if rel < 0 else "exceed"


def slope_comparison_words(slopes: pd.DataFrame, who: str, tol: float | None = None) -> str:
    """Whether the per-head slopes ``who`` names fall short of, match or exceed the paper's CSV
    slopes, per d, from a table with columns ``d``, ``slope`` (ours, official rule) and
    ``paper_slope`` (NaN where the paper's CSV has none), in words (ours; Dana et al., Fig. 5):
    each side (:func:`slope_side`) with its d, the two slopes and their relative difference,
    then the criterion: ``tol`` (default the Fig. 5 row's
    :data:`memnb.scorecard.dana.SLOPE_REL_TOL`) on the relative difference at each d. A
    sentence saying no slope is compared where no d has a CSV slope."""
    from memnb.scorecard.dana import SLOPE_REL_TOL

    tol = SLOPE_REL_TOL if tol is None else tol
    whose = ", the Fig. 5 row's tolerance" if tol == SLOPE_REL_TOL else ""
    who = who[:1].upper() + who[1:]
    rows = slopes.dropna(subset=["paper_slope"]).sort_values("d")
    if rows.empty:
        return f"{who} have no d in common with the paper's CSV: no slope is compared."
    groups: dict[str, list[str]] = {}
    for r in rows.itertuples():
        rel = slope_relative_difference(r.slope, r.paper_slope)
        groups.setdefault(slope_side(r.slope, r.paper_slope, tol), []).append(
            f"d = {int(r.d)}: {r.slope:.4f} against {r.paper_slope:.4f}, {rel:+.0%}")
    clauses = []
    for side, cells in groups.items():
        where = " at every d" if len(groups) == 1 else ""  # else each cell names its d
        target = "the paper's CSV slopes" if not clauses else "them"
        clauses.append(f"{_SLOPE_SIDES[side]} {target}{where} "
                       f"({'; '.join(cells)})")
    return (f"{who} {'; '.join(clauses[:-1]) + '; and ' if len(clauses) > 1 else ''}"
            f"{clauses[-1]}. Criterion (ours{whose}): at each d the "
            f"relative difference (ours − paper) / paper; within ±{tol:.0%} the slopes match, "
            f"below −{tol:.0%} ours fall short, above +{tol:.0%} ours exceed.")


def fig5_slopes_sentence(eq2: pd.DataFrame | None) -> str:
    """Markdown: whether our eq. (2) per-head slopes of Fig. 5 (Dana et al., App. B.1;
    :func:`appendix_fig5_eq2`'s rows) fall short of, match or exceed the paper's CSV slopes
    (:func:`memnb.papers.dana.dim_exp1_slopes`), each by the official rule on the seed-averaged
    curve, at every d where both have one and the run is at the paper's N
    (:func:`slope_comparison_words`); what is missing otherwise."""
    if eq2 is None:
        return "No run of eq. (2)'s Fig. 5 is at hand: no slope is compared with the paper's CSV."
    ours = exp.official_slopes(eq2)
    theirs = paper.dim_exp1_slopes().set_index("d")["slope"]
    n, their_n = int(eq2["N"].iloc[0]), int(paper.dim_exp1()["N"].iloc[0])
    if n != their_n:
        return (f"Our eq. (2) Fig. 5 run has N = {n}, not the paper's N = {their_n}: no slope "
                "is compared with the paper's CSV.")
    slopes = pd.DataFrame({"d": ours["d"], "slope": ours["slope"],
                           "paper_slope": ours["d"].map(theirs)})
    seeds = counted(int(ours["seeds"].min()), "seed")
    return slope_comparison_words(
        slopes, f"by the official rule (seed-averaged curves, {seeds}), our eq. (2) per-head "
                "slopes of Fig. 5")


# --- Fig. 7 with the official code's models (ours, dana.appendix_layout) --------------------


def appendix_layout_fig7_eq2(layout: pd.DataFrame,
                             *candidates: pd.DataFrame | None) -> pd.DataFrame | None:
    """Eq. (2)'s Fig. 7 rows (its AoT and eq. (2) + MLP) to set beside ``layout`` (the Fig. 7
    rows of ``dana.appendix_layout``): those of the first of ``candidates`` (tables of
    ``dana.appendix_dim``, ``None`` skipped; the chapter passes the rerun first, as the Fig. 7
    row reads it) at ``layout``'s N, at its d, as the paper reports them; ``None`` when no
    candidate has such rows."""
    return _eq2_at_layout_ds(layout, "Fig. 7", candidates)


def appendix_layout_fig7_figure(layout: pd.DataFrame, eq2: pd.DataFrame | None) -> plt.Figure:
    """Fig. 7 with two pairs of models (ours, ``dana.appendix_layout``): accuracy against the
    AoT's head count H (one head + MLP of width 2d(H − 1) at the same H) for eq. (2) and eq.
    (2) + MLP (``eq2``, the Fig. 7 rows of ``dana.appendix_dim``) and the official code's AoT
    and one head + MLP: the seed mean as a line, each seed as a faint dot (the MLP seeds
    split), one panel per d, beside the paper's CSV where the run is at its N."""
    from memnb.scorecard.dana import mlp_heads

    layout = as_the_paper_reports(layout)
    ds = sorted(int(d) for d in layout["d"].unique())
    n = int(layout["N"].iloc[0])
    their_aot, their_mlp = paper.dim_exp1(), paper.dim_exp5()
    their_mlp = their_mlp.assign(H=mlp_heads(their_mlp))
    fig, axes = plt.subplots(1, len(ds), figsize=(3.6 * len(ds) + 0.6, 3.9), sharey=True,
                             layout="constrained", squeeze=False)
    tables = [layout] if eq2 is None else [eq2, layout]
    for ax, d in zip(axes[0], ds, strict=True):
        for table in tables:
            for kind, (label, color, marker) in _EXP5_MODELS.items():
                part = table[(table["d"] == d) & (table["model"] == kind)]
                if part.empty:
                    continue
                _seed_curve(ax, part, "H_equiv", label=f"ours: {label}, seed mean",
                            color=color, marker=marker, lw=1.6, ms=5,
                            linestyle="-" if kind.startswith("aot") else "--")
        for kind, ref in (("aot", their_aot), ("mlp", their_mlp)):
            mine = ref[ref["d"] == d]
            if len(mine) and int(mine["N"].iloc[0]) == n:
                ax.plot(mine["H"], mine["accuracy"],
                        **{**viz.role_style("paper"), "color": _EXP5_MODELS[kind][1]},
                        label="paper (official CSV): "
                              + ("AoT" if kind == "aot" else "1 head + MLP"))
        ax.set(xlabel="AoT heads H (MLP: 1 head, width 2d(H − 1))",
               title=f"d = d_h = {d}, N = {n}")
        ax.title.set_fontsize(9)
    axes[0][0].set_ylabel(accuracy_label(*tables))
    _legend_below(fig, axes)
    fig.legends[-1].set_title("faint dots: single seeds", prop={"size": 7.5})
    return fig


def appendix_layout_fig7_report(layout: pd.DataFrame, eq2: pd.DataFrame | None,
                                verdicts: tuple[Any, ...] = ()) -> str:
    """Markdown paragraph, from the data, on which pair of models gives the paper's Fig. 7:
    at the largest H of each d, the paper's CSV, the code's AoT and one head + MLP and eq.
    (2)'s pair (:func:`memnb.scorecard.dana.appendix_exp5_order`, seed means and, where the
    seeds split, medians), then ``verdicts`` (the scorecard row "Fig. 7: which model")."""
    from memnb.scorecard.dana import (
        ahead_words,
        appendix_exp5_order,
        code_exp5_rows,
        distance_words,
        exp5_distances,
        median_words,
    )

    head = "**Which models give the paper's Fig. 7?**"
    code = code_exp5_rows(as_the_paper_reports(layout))
    if code.empty:
        return f"{head} This run has no d with both of the code's models at every H."
    aot_csv, mlp_csv = paper.dim_exp1(), paper.dim_exp5()
    orders = [("the code's AoT / 1 head + MLP", appendix_exp5_order(code, aot_csv, mlp_csv))]
    if eq2 is not None:
        orders.append(("eq. (2) / eq. (2) + MLP", appendix_exp5_order(
            eq2[eq2["d"].isin(code["d"].unique())], aot_csv, mlp_csv)))
    seeds = int(code["seed"].nunique())
    parts = [f"At the largest H of each d, seed means ({counted(seeds, 'seed')} of the "
             "code's models):"]
    by_d = []
    for r in orders[0][1].itertuples():
        cells = []
        if r.paper_setting == "same":
            cells.append(f"the paper's CSV {r.paper_aot:.3f} / {r.paper_mlp:.3f} "
                         f"({ahead_words(r.paper_ahead)})")
        for name, order in orders:
            at = order[order["d"] == r.d]
            if at.empty:
                continue
            o = next(at.itertuples())
            cells.append(f"{name} {o.ours_aot:.3f} / {o.ours_mlp:.3f} "
                         f"({ahead_words(o.ours_ahead)}"
                         + (f"; seeds split, {median_words(o)}" if o.split else "") + ")")
        by_d.append(f"d = {r.d}, H = {r.H}: " + "; ".join(cells))
    parts.append(" | ".join(by_d) + ".")
    distances = {f"{who} {m}": v for who, table in (("code", code), ("eq2", eq2))
                 if table is not None for m, v in exp5_distances(table).items()}
    if distances:
        parts.append("Over every H, how far each curve lies from the paper's: " + distance_words(
            distances, {"code aot": "the code's AoT", "code mlp": "the code's 1 head + MLP",
                        "eq2 aot": "eq. (2)", "eq2 mlp": "eq. (2) + MLP"}) + ".")
    if (orders[0][1]["paper_setting"] != "same").any():
        parts.append("This run is not at the paper's setting, so no order is compared.")
    return folded_report(head, parts, verdicts)


def appendix_layout_missing(figure: str) -> str:
    """Markdown for a figure of ``dana.appendix_layout`` no run has rows of yet: which command
    computes them (:meth:`memnb.scorecard.core.ResultSource.full_run_command`)."""
    from memnb.scorecard.core import ResultSource

    command = ResultSource("full").full_run_command("dana.appendix_layout")
    return (f"No run of `dana.appendix_layout` at hand holds {figure}'s grid yet: `{command}` "
            "computes it (the \"Running at scale\" page gives its planned cost).")
