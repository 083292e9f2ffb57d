"""Figures of the cross-paper chapter (ours): the capacity statements of Dana et al., Mahdavi et
al. and Kajitsuka & Sato on one axis, and the four architectures trained head to head.

Each function takes tables computed by :mod:`memnb.experiments.compare` and returns a Figure;
captions are built from the same tables by the ``*_caption`` functions.
"""

from __future__ import annotations

import inspect
import math
import textwrap
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from memnb import bounds, prose, viz
from memnb.experiments import compare as exp
from memnb.papers import external
from memnb.scorecard.compare import bracket_ratio_low, no_lead_words

#: One colour per architecture (Okabe-Ito), the same in every figure of the chapter.
ARCH_COLORS: dict[str, str] = {"aot": "#0072B2", "mha": "#D55E00", "ffn_attention": "#009E73",
                               "mlp": "#CC79A7"}
#: The guarantees' lines. The earlier bound (Mahdavi et al.'s Thm 1 as Dana et al. quote it)
#: nearly coincides with Mahdavi et al.'s guarantee at the larger budgets, so it has its own
#: dash pattern (dotted, through whose gaps the dashed line beneath shows) and marker.
_GUARANTEE_STYLES = {
    "Dana": {"color": "#0072B2", "linestyle": "--"},
    "Mahdavi": {"color": "#D55E00", "linestyle": "--"},
    "earlier": {"color": "#777777", "linestyle": (0, (1, 2)), "marker": "x"},
}
_CONSTRUCTION_COLORS = {"aot": "#0072B2", "mha": "#D55E00", "seq_id": "#009E73"}
#: The shape-only statements, each its own grey, dash pattern and marker, so that the legend
#: tells them apart (keys: how the statement of :func:`exp.theory_curves` starts).
_SHAPE_STYLES: dict[str, dict[str, Any]] = {
    "Kajitsuka": {"color": "#555555", "linestyle": (0, (1, 1.5)), "marker": "o"},
    "Park": {"color": "#888888", "linestyle": (0, (6, 2)), "marker": "s"},
    "Kim": {"color": "#AAAAAA", "linestyle": (0, (6, 2, 1, 2)), "marker": "D"},
}
#: What the information ceiling on N is, in every label of this chapter (finding of the trust
#: review: it is a counting bound of ours; only Remark 4.4's title is in our sources); the
#: statement of :func:`exp.theory_curves` carries the same words.
FLOOR_WORDS = "ours; cf. our reading of Remark 4.4"
#: The bits of one trained weight (float32), at which :func:`bounds_figure` draws the trained
#: capacities against the total bits of the weights: the ``weight_bits`` of
#: :func:`exp.theory_curves`, whose information ceiling on N is drawn for the same weights.
TRAINED_WEIGHT_BITS: int = inspect.signature(exp.theory_curves).parameters["weight_bits"].default
#: Open markers: a trained capacity every seed of which lies below the smallest N tried.
_CENSORED = {"marker": "v", "markerfacecolor": "none", "markersize": 6.5, "markeredgewidth": 1.3,
             "linestyle": "none", "zorder": 4}
#: Filled markers: a trained capacity some seed of which fitted every N tried (a lower bound).
_AT_LEAST = {"marker": "^", "markersize": 7, "linestyle": "none", "zorder": 5}
#: How this chapter's figures name the architectures: :data:`exp.LABELS`, with what in them is
#: ours (the trust review: the FFN-attention-FFN model has our widths, LayerNorms and positional
#: embedding, and the attention layer between the FFNs is [unverified] in our notes; Mahdavi et
#: al.'s eqs. 1-6 are our notes' reconstruction).
LABELS: dict[str, str] = {
    **exp.LABELS,
    "mha": "multi-head attention + read-out (Mahdavi et al. eqs. 1-6, as we reconstruct them)",
    "ffn_attention": "FFN-attention-FFN (the shape of Kajitsuka & Sato's experiments as our "
                     "notes read it, [unverified]; widths, norms and embeddings ours)",
}


#: The flag of Mahdavi et al.'s guarantee wherever the chapter names it (its formula is our
#: notes' [summary + reconstruction], as the symbol table of Section 1 marks it), short enough
#: for a legend; Kajitsuka & Sato's statement carries its own flag, "(4.2 [unverified])".
MAHDAVI_FLAG = "[reconstruction]"
#: Whose reading of Kim et al. (ICLR 2023) the chapter draws, wherever it names that statement:
#: the formula Õ(d + n + √(nN)) is Kajitsuka & Sato's Table 1 reading (our notes), a
#: seq-to-seq bound (a label at every position); Dana et al. (Sec. 7) read Kim et al.'s Thm 4.1
#: otherwise (:func:`memnb.bounds.kim2023_parameter_order`).
KIM_FLAG = "[as Kajitsuka & Sato's Table 1 reads it; seq-to-seq]"


def statement_label(statement: str) -> str:
    """A statement of :func:`exp.theory_curves` as the chapter names it: Mahdavi et al.'s with
    :data:`MAHDAVI_FLAG` and Kim et al.'s with :data:`KIM_FLAG` after its name (before the
    colon, so that a name cut at the colon keeps it), the information floor of
    :func:`exp.theory_curves` by the chapter's one name for it, the information ceiling on N
    (:func:`ceiling_label`), every other statement unchanged."""
    if statement.startswith("information floor "):
        return ceiling_label(statement)
    flag = (MAHDAVI_FLAG if statement.startswith("Mahdavi") else
            KIM_FLAG if statement.startswith("Kim") else None)
    if flag is None:
        return statement
    name, colon, rest = statement.partition(":")
    return f"{name} {flag}{colon}{rest}"


def construction_label(name: str) -> str:
    """A construction of :func:`exp.constructions_at_budgets` as the chapter names it: each is
    our reconstruction of its paper's construction (the reproduction notes tag them
    [reconstruction], and so do the modules' docstrings), so ``"aot (Dana et al. Thm 1)"``
    reads ``"aot (our reconstruction of Dana et al. Thm 1)"``; a name without a parenthesis is
    unchanged."""
    key, paren, rest = name.partition(" (")
    return f"{key} (our reconstruction of {rest}" if paren else name


def _style(statement: str) -> dict[str, Any]:
    for key, style in _GUARANTEE_STYLES.items():
        if statement.startswith(key):
            return style
    return {"color": "#555555", "linestyle": "--"}


def _shape_style(statement: str) -> dict[str, Any]:
    """The line style of a shape-only statement (:data:`_SHAPE_STYLES`)."""
    for key, style in _SHAPE_STYLES.items():
        if statement.startswith(key):
            return style
    return {"color": "#BBBBBB", "linestyle": ":", "marker": "x"}


#: How :func:`theory_table` names the kind of a shape-only row: its values are orders with
#: every constant set to 1, rounded to whole numbers, not counts of examples.
SHAPE_ONLY_WORDS = "shape only: an order with every constant 1, rounded; not a count"


def theory_table(theory: pd.DataFrame) -> pd.DataFrame:
    """The statements evaluated at each budget (:func:`exp.theory_curves`), one row per
    statement labelled with its kind (:func:`statement_label`), one column per budget P (the
    columns' name, ``budget P``); the information ceiling on N says what it says in place of a
    kind (:func:`ceiling_says`), a shape-only row that it is an order
    (:data:`SHAPE_ONLY_WORDS`). Each cell is its count as text (:func:`table_count`): a whole
    number without decimals, another with one; a shape-only row's order rounded to a whole
    number (its decimals would read as a count); NaN where no shape of the statement fits."""
    kinds = {CEILING_KIND: ceiling_says(), "shape only": SHAPE_ONLY_WORDS}
    named = theory.assign(statement=[
        f"{statement_label(s)} [{kinds.get(k, k)}]"
        for s, k in zip(theory["statement"], theory["kind"], strict=True)])
    order = dict(zip(named["statement"], theory["kind"] == "shape only", strict=False))
    table = named.pivot_table(index="statement", columns="parameters", values="N", sort=False)
    table = table.apply(lambda column: pd.Series([
        math.nan if pd.isna(v) else f"{round(float(v)):,}" if order[name] else table_count(v)
        for name, v in column.items()], index=column.index, dtype=object))
    table.columns.name = "budget P"
    return table


def table_count(value: float) -> str:
    """A count of :func:`theory_table` as text: a whole number without decimals and with
    thousands separators (``11,520``), any other with one decimal (``464.8``)."""
    value = round(float(value), 1)
    return f"{value:,.0f}" if value == round(value) else f"{value:,.1f}"


#: How :func:`guarantee_shapes_markdown` names each guarantee of :data:`exp.GUARANTEE_SHAPES`.
_GUARANTEE_NAMES = {"Dana": "Dana et al. Thm 1 / Cor. 1 (H d_h + d)",
                    "earlier": "the earlier bound H(d_h - 1) + 1 at the AoT's size",
                    "Mahdavi": f"Mahdavi et al. Thm 1 {MAHDAVI_FLAG} (H(min(n, d_h) - 1) + 1)"}


def _range_words(low: tuple[str, Any], high: tuple[str, Any], name: str,
                 task: dict[str, int]) -> str:
    """``2 ≤ d ≤ V (here 2 to 4)``: a range of :data:`exp.GUARANTEE_SHAPES` in words, with its
    values on ``task``."""
    lo, hi = low[1](task), high[1](task)
    here = f"here {lo}" if lo == hi else f"here {lo} to {hi}" if lo < hi else "here empty"
    return f"{low[0]} ≤ {name} ≤ {high[0]} ({here})"


def guarantee_shapes_markdown(task: dict[str, int]) -> str:
    """The shapes over which the chapter's table and figures maximise each guarantee at a
    budget, read from :data:`exp.GUARANTEE_SHAPES` (the ranges :func:`exp.theory_curves`
    searches, not typed here): per guarantee, the range of the width ``d`` and of the head size
    ``d_h``, the AoT's vocabulary or the attention layer's value size ``d_v``, each with its
    value on ``task`` and the reason for each bound."""
    lines = []
    for key, spec in exp.GUARANTEE_SHAPES.items():
        why = spec["why"]
        head = spec["d_h_max"][0]
        parts = [_range_words(spec["d_min"], spec["d_max"], "d", task),
                 f"1 ≤ d_h ≤ {head}" + ("" if head == "d" else  # else a bound of the task alone
                                        f" (here {spec['d_h_max'][1](task, None)})")]
        extra = "vocabulary" if "vocabulary" in spec else "d_v"
        value = spec[extra][1](task)
        parts.append(f"a vocabulary of {spec[extra][0]} (here {value} tokens)"
                     if extra == "vocabulary" else f"d_v = {spec[extra][0]} (here {value})")
        reasons = "; ".join(f"{label}: {why[k]}" for k, label in (
            ("d_min", f"d ≥ {spec['d_min'][0]}"), ("d_max", f"d ≤ {spec['d_max'][0]}"),
            ("d_h_max", f"d_h ≤ {head}"),
            (extra, f"vocabulary {spec[extra][0]}" if extra == "vocabulary"
             else f"d_v = {spec[extra][0]}")))
        lines.append(f"- {_GUARANTEE_NAMES.get(key, key)}: {', '.join(parts)}. Why: {reasons}.")
    return ("Each guarantee row is the best over these shapes of its theorem that fit the budget "
            "(read from the code that evaluates them; the ranges are ours):\n\n"
            + "\n".join(lines))


def count_text(value: float) -> str:
    """A count of examples as this chapter prints it in its tables and bar labels: a whole
    number without decimals (``45``), any other value with one decimal (a mean over seeds:
    ``11.5``, which ``f"{11.5:.0f}"`` would print as ``12`` and ``f"{22.5:.0f}"`` as ``22``, by
    rounding half to even), so that :func:`best_table` and :func:`budget_frame` show one
    capacity alike."""
    value = float(value)
    return f"{value:.0f}" if value == round(value) else f"{value:.1f}"


def constructions_markdown(built: pd.DataFrame) -> str:
    """The constructions of :func:`exp.constructions_at_budgets` as a Markdown table, one row per
    construction (named by :func:`construction_label`: each is our reconstruction) and budget,
    without the frame's index: its parameters, examples ``N`` and total
    weight bits (``–`` where it was not built), and whether it memorized every example, or, for
    a size not built, why not (its ``note``, which the frame keeps in a column that is empty
    wherever the construction was built)."""
    notes = (built["note"] if "note" in built else pd.Series("", built.index)).fillna("")
    rows = []
    for r, note in zip(built.itertuples(), notes, strict=True):
        if note:
            outcome = "not built: " + str(note).removeprefix("not built: ")
        else:
            outcome = "yes" if bool(r.memorized) else "no"
        rows.append((construction_label(r.construction), f"{int(r.budget):,}",
                     _whole(r.parameters), _whole(r.N), _whole(r.bits), outcome))
    header = ("construction", "budget P", "parameters", "examples N", "total bits of the weights",
              "every example memorized")
    return prose.markdown_table(header, rows,
                                align=("left", "right", "right", "right", "right", "left"))


def _whole(value: float) -> str:
    """A whole number of a table cell, ``–`` where it is missing."""
    return "–" if pd.isna(value) else f"{float(value):,.0f}"


def _censored(best: pd.DataFrame) -> pd.Series:
    """Rows of ``best`` whose every seed lies below the smallest N tried (``below`` of
    :func:`memnb.scorecard.compare.censored_best`; none when ``best`` lacks the column)."""
    if "below" not in best:
        return pd.Series(False, index=best.index)
    return best["below"].notna()


def _at_least(best: pd.DataFrame) -> pd.Series:
    """Rows of ``best`` whose mean capacity is a lower bound, some seed having fitted every N
    the search tried (:func:`memnb.scorecard.compare.at_least`)."""
    from memnb.scorecard.compare import at_least

    return at_least(best)


def bracket_text(capacity: float, upper: float) -> str:
    """One run's search bracket as a table cell: ``[30, 60)`` (the largest N fitted and the next
    N tried, which failed), ``< 45`` (no tried N fitted: below the smallest) or ``≥ 30`` (every
    N tried fitted: not bracketed above)."""
    if capacity == 0:
        return f"< {count_text(upper)}"
    if math.isinf(upper):
        return f"≥ {count_text(capacity)}"
    return f"[{count_text(capacity)}, {count_text(upper)})"


def _runs_of(brackets: pd.DataFrame, row: Any) -> pd.DataFrame:
    """The runs (one per seed) of ``brackets`` (:func:`memnb.scorecard.compare.capacity_brackets`)
    of the best shape ``row``, in seed order."""
    return brackets[(brackets["architecture"] == row.architecture)
                    & (brackets["budget"] == row.budget)
                    & (brackets["shape"] == row.shape)].sort_values("seed")


def seed_brackets_text(brackets: pd.DataFrame, row: Any) -> str:
    """The search bracket of each seed of the best shape ``row`` (:func:`bracket_text`):
    ``[180, 360) (every seed)`` where the seeds agree, else ``seed 0: [15, 30); seed 1: [8,
    15)``; ``–`` without runs."""
    runs = _runs_of(brackets, row)
    cells = [bracket_text(float(r.capacity), float(r.upper)) for r in runs.itertuples()]
    if not cells:
        return "–"
    if len(set(cells)) == 1:
        return cells[0] + (" (every seed)" if len(cells) > 1 else "")
    return "; ".join(f"seed {int(r.seed)}: {c}"
                     for r, c in zip(runs.itertuples(), cells, strict=True))


def grid_steps(brackets: pd.DataFrame, best: pd.DataFrame | None = None) -> np.ndarray:
    """The steps of the capacity search's grid over N, as factors: per run of ``brackets``
    (:func:`memnb.scorecard.compare.capacity_brackets`) bracketed on both sides (some N fitted,
    a larger one tried and failed), the next N tried over the largest N fitted; with ``best``,
    only the runs of its best shapes. Each such capacity is known only within this factor."""
    runs = brackets
    if best is not None:
        keys = ["architecture", "budget", "shape"]
        runs = brackets.merge(best[keys].drop_duplicates(), on=keys)
    both = runs[(runs["capacity"] > 0) & np.isfinite(runs["upper"].astype(float))]
    return (both["upper"].astype(float) / both["capacity"].astype(float)).to_numpy()


def grid_words(brackets: pd.DataFrame, best: pd.DataFrame | None = None) -> str:
    """A caption's sentence on the resolution of the capacity search (:func:`grid_steps`): each
    capacity is known only within one step of its grid, ``[largest N fitted, next N tried)``,
    and the step's factor over the runs (of ``best``'s shapes, when given); empty when no run
    is bracketed on both sides."""
    steps = grid_steps(brackets, best)
    if steps.size == 0:
        return ""
    low, high = float(steps.min()), float(steps.max())
    factor = f"×{high:.3g}" if f"{low:.3g}" == f"{high:.3g}" else f"×{low:.3g} to ×{high:.3g}"
    whose = "the best shapes' runs" if best is not None else "the runs"
    return (f"Each capacity is known only within one step of the search's grid over N: it lies "
            f"in [largest N fitted, next N tried), and the next N tried is {factor} the largest "
            f"fitted over {whose} (the grid's resolution).")


def mean_brackets(best: pd.DataFrame, brackets: pd.DataFrame) -> pd.DataFrame:
    """Per best shape of ``best`` (rows of :func:`memnb.scorecard.compare.censored_best`, same
    index), the bracket of its mean capacity over seeds: ``upper``, read from ``best`` (the
    mean over seeds of the next N tried, ``inf`` where a seed fitted every N tried: the one
    column the head-to-head row reads too), so that the true mean lies in
    ``[capacity, upper)``, and ``step``, the largest grid step (:func:`grid_steps`) of its runs
    in ``brackets`` (:func:`memnb.scorecard.compare.capacity_brackets`; NaN where none is
    bracketed on both sides)."""
    if "upper" not in best:
        raise ValueError("best needs the column 'upper' of "
                         "memnb.scorecard.compare.censored_best (the mean next N tried)")
    rows = {}
    for r in best.itertuples():
        steps = grid_steps(_runs_of(brackets, r))
        rows[r.Index] = {"upper": float(r.upper),
                         "step": float(steps.max()) if steps.size else math.nan}
    return pd.DataFrame.from_dict(rows, orient="index", columns=["upper", "step"])


#: How far a trained shape's parameter count may lie from its budget (the default of
#: :func:`exp.shapes_for_budget`), for :data:`RAW_LEGEND`; :data:`TOLERANCE` below is the same.
_SHAPE_TOLERANCE: float = inspect.signature(exp.shapes_for_budget).parameters["tolerance"].default
#: The columns of the raw table of tries (``compare.capacity``) as the chapter shows them
#: (:func:`raw_table`), under short names in words; :data:`RAW_LEGEND` says what each means.
#: The per-try bits column, which credits partial fits, is left out.
RAW_COLUMNS: dict[str, str] = {
    "architecture": "model", "budget": "budget", "parameters": "P", "shape": "shape",
    "seed": "seed", "N": "N", "accuracy": "accuracy", "memorized": "correct", "fits": "fits",
    "round": "round", "loss": "loss", "steps_run": "steps"}
#: What each column of :func:`raw_table` means, for :func:`memnb.viz.column_legend` (ours).
RAW_LEGEND: dict[str, str] = {
    "model": "the architecture, by the chapter's short name: "
             + "; ".join(f"{exp.SHORT[a]}, {LABELS[a]}" for a in exp.ARCHITECTURES),
    "budget": "the parameter budget the shape was chosen for",
    "P": ("the shape's own count of trainable parameters (within "
          f"{_SHAPE_TOLERANCE * 100:g} % of the budget)"),
    "shape": ("the shape's sizes (AoT and MHA: width $d$, head size $d_h$, heads $H$; "
              "FFN-attn-FFN: width $d$, heads, FFN ratio and blocks per side; MLP: hidden widths "
              "$w_1$, $w_2$, $w_2 = 0$ for one hidden layer)"),
    "seed": "the seed of the training set and of the initialisation",
    "N": "the examples of this try's training set",
    "accuracy": "the training accuracy at the end of the try",
    "correct": "the examples predicted correctly at the end of the try (a partial fit included)",
    "fits": "whether the try fitted every example (training accuracy 100 %)",
    "round": "the round of the capacity search that tried this N (0: its first grid)",
    "loss": "the training loss at the end of the try",
    "steps": ("the full-batch steps the try ran: training stops early only at 100 % training "
              "accuracy, else at the profile's step cap"),
}


def raw_table(table: pd.DataFrame, rows: int = 5) -> pd.DataFrame:
    """The first ``rows`` tries of a ``compare.capacity`` table as the chapter shows them: the
    columns of :data:`RAW_COLUMNS` present in it, under their short names (the legend
    :data:`RAW_LEGEND` folded below, :func:`memnb.viz.column_legend`), the architecture by its
    short name (:data:`exp.SHORT`), accuracy and loss to three digits; so that the table fits
    the book's text column."""
    shown = table[[c for c in RAW_COLUMNS if c in table]].head(rows).rename(columns=RAW_COLUMNS)
    shown["model"] = shown["model"].map(lambda a: exp.SHORT.get(a, a))
    for column in ("accuracy", "loss"):
        if column in shown:
            shown[column] = shown[column].map(lambda v: f"{float(v):.3g}")
    return shown


def best_table(best: pd.DataFrame, C: int, brackets: pd.DataFrame | None = None
               ) -> pd.DataFrame:
    """The best shape per architecture and budget for the chapter to show
    (:func:`memnb.scorecard.compare.censored_best`): capacity and bits per parameter as mean ±
    std over seeds, a capacity whose every seed fitted no tried N as ``< N`` (the smallest N
    tried: below it, not resolved), a mean that counts such seeds as 0 says how many, and a
    mean over seeds some of which fitted every N tried (censored from above: ``censored_seeds``
    of :func:`memnb.experiments.compare.best_shapes`) as ``≥``, a lower bound, saying how
    many. With ``brackets`` (:func:`memnb.scorecard.compare.capacity_brackets` of the run), a
    column :data:`BRACKET_COLUMN` gives each seed's search bracket
    (:func:`seed_brackets_text`): the capacity is known only within it."""
    rows = []
    per_bit = math.log2(C)
    low = _at_least(best)
    for r in best.sort_values(["architecture", "budget"]).itertuples():
        below = getattr(r, "below", math.nan)
        zero = int(getattr(r, "zero_seeds", 0))
        ge = "≥ " if low[r.Index] else ""
        if not math.isnan(below):
            capacity = f"< {below:g} (no tried N fitted; not resolved)"
            bits = f"< {below * per_bit / r.parameters:.3g}"
        else:
            spread = f" ± {r.capacity_std:.3g}" if r.seeds > 1 else ""
            capacity = f"{ge}{count_text(r.capacity)}{spread}" + (
                f" ({zero} of {r.seeds} seeds below the smallest N tried, counted as 0)"
                if zero else "") + (
                f" ({int(r.censored_seeds)} of {r.seeds} seeds fitted every N tried: at least)"
                if ge else "")
            bits = f"{ge}{r.bits:.3g}" + (f" ± {r.bits_std:.3g}" if r.seeds > 1 else "")
        row = {"architecture": exp.SHORT[r.architecture], "budget": r.budget,
               "shape": r.shape, "parameters": r.parameters,
               "capacity (largest N fitted)": capacity}
        if brackets is not None:
            row[BRACKET_COLUMN] = seed_brackets_text(brackets, r)
        rows.append({**row, "bits per parameter": bits, "seeds": r.seeds})
    return pd.DataFrame(rows)


#: The column of :func:`best_table` that gives each seed's search bracket.
BRACKET_COLUMN = "bracket [largest N fitted, next N tried)"


#: The legend entry of a trained point of :func:`bounds_figure` and :func:`classes_frame`
#: outside the theorem whose guarantee is drawn for its architecture
#: (:func:`memnb.scorecard.compare.outside_reasons`: an AoT with d > V, outside Dana et al.'s
#: Thm 1; an attention layer with d_v < d_o or a capacity N > V, outside Mahdavi et al.'s Thm
#: 1), drawn hollow (:data:`_OUTSIDE_POINT`); the captions say which and why
#: (:func:`outside_scope_words`).
OUTSIDE_POINT_LABEL = "trained, outside its theorem's scope: hollow ○"
#: The colour of the hollow marker that stands for :data:`OUTSIDE_POINT_LABEL` in a legend: a
#: neutral grey, since the points it names take their architecture's colour.
OUTSIDE_HANDLE_COLOR = "0.35"
_OUTSIDE_POINT = {"marker": "o", "markerfacecolor": "white", "markersize": 6.5,
                  "markeredgewidth": 1.5, "linestyle": "none", "zorder": 6}


def outside_theorem(best: pd.DataFrame, task: dict[str, int]) -> pd.Series:
    """Rows of ``best`` whose shape lies outside the theorem whose guarantee the chapter draws
    for its architecture (:func:`memnb.scorecard.compare.outside_reasons`, at the row's mean
    capacity): an AoT with d > V (Dana et al.'s Thm 1), an attention layer with d_v < d_o or a
    capacity above V (Mahdavi et al.'s Thm 1)."""
    from memnb.scorecard.compare import outside_reasons

    return pd.Series([bool(outside_reasons(r.architecture, r.shape, task, r.capacity))
                      for r in best.itertuples()], index=best.index, dtype=bool)


def _trained_points(ax: Any, best: pd.DataFrame, x: str, *, bits_axis: bool = False,
                    task: dict[str, int] | None = None) -> None:
    """The best shapes' mean capacities (error bars: std over seeds); a budget where every seed
    fitted no tried N is an open ▽ at the smallest N tried (its capacity lies below). With the
    ``task`` (``V, n, C``), a best trained point outside the theorem drawn for its architecture
    (:func:`outside_theorem`: an AoT with width ``d > V``, outside Dana et al.'s Thm 1; an attention
    layer with ``d_v < d_o`` or a capacity above ``V``, outside Mahdavi et al.'s Thm 1) is drawn
    hollow in its architecture's colour, with the one legend entry :data:`OUTSIDE_POINT_LABEL`."""
    censored = _censored(best)
    low = _at_least(best)
    labelled = at_least_labelled = False
    wide = best.iloc[:0]
    if task is not None:
        wide = best[outside_theorem(best, task).to_numpy() & (best["capacity"] > 0).to_numpy()]
    for arch in exp.ARCHITECTURES:
        mine = best["architecture"] == arch
        part = best[mine].sort_values("parameters")  # a budget where nothing fitted: a gap
        part = part.assign(capacity=part["capacity"].where(part["capacity"] > 0))
        scale = TRAINED_WEIGHT_BITS if bits_axis else 1
        if part["capacity"].notna().any():
            ax.errorbar(part["parameters"] * scale, part["capacity"], yerr=part["capacity_std"],
                        color=ARCH_COLORS[arch], marker="o", markersize=4.5, linewidth=1.4,
                        capsize=2, label=f"trained {exp.SHORT[arch]} (ours, best shape)")
        above = best[mine & low]
        if not above.empty:  # a lower bound: the true capacity lies at or above the point
            ax.plot(above["parameters"] * scale, above["capacity"], color=ARCH_COLORS[arch],
                    label=None if at_least_labelled else "trained, a seed fitted every N tried: "
                    "▲ (capacity at least this)", **_AT_LEAST)
            at_least_labelled = True
        below = best[mine & censored]
        if not below.empty:
            ax.plot(below["parameters"] * scale, below["below"], color=ARCH_COLORS[arch],
                    label=None if labelled else "trained, no tried N fitted: open ▽ at the "
                    "smallest N tried (capacity below it)", **_CENSORED)
            labelled = True
    scale = TRAINED_WEIGHT_BITS if bits_axis else 1
    for arch, part in wide.groupby("architecture", sort=False):
        # over the filled markers of the line: the same place, hollow, in the architecture's
        # colour
        ax.plot(part["parameters"] * scale, part["capacity"], color=ARCH_COLORS[arch],
                **_OUTSIDE_POINT)
    if not wide.empty:  # one legend entry, in a neutral colour: it stands for every architecture
        ax.plot([], [], color=OUTSIDE_HANDLE_COLOR, label=OUTSIDE_POINT_LABEL, **_OUTSIDE_POINT)


def kim_width(part: pd.DataFrame, n: int) -> float:
    """The width ``d`` at which :func:`exp.theory_curves` draws Kim et al.'s shape
    ``P ~ d + n + sqrt(n N)`` (constant 1), read back from its rows ``part`` (``parameters``,
    ``N``) on a task of context length ``n``: ``d = P - n - sqrt(n N)`` at every row with
    ``N > 0``, which must agree (a ``ValueError`` otherwise; NaN when no row has ``N > 0``)."""
    drawn = part[part["N"] > 0]
    if drawn.empty:
        return math.nan
    widths = (drawn["parameters"].astype(float) - n
              - np.sqrt(n * drawn["N"].astype(float))).to_numpy()
    if not np.allclose(widths, widths[0], atol=1e-6):
        raise ValueError(f"Kim et al.'s shape is drawn at more than one width d: {widths}")
    return float(widths[0])


def shape_only_label(statement: str, part: pd.DataFrame, n: int) -> str:
    """The legend label of a shape-only statement in :func:`bounds_figure`: its name
    (:func:`statement_label`) with ``[shape only, constant 1]``, and for Kim et al.'s the width
    ``d`` the line is drawn at (:func:`kim_width`; the review's finding 8), e.g.
    ``[shape only, constant 1, d = 1]``."""
    extra = ""
    if statement.startswith("Kim"):
        d = kim_width(part, n)
        if not math.isnan(d):
            extra = f", d = {round(d):g}" if abs(d - round(d)) < 1e-6 else f", d = {d:.3g}"
    return f"{statement_label(statement)} [shape only, constant 1{extra}]"


def bounds_figure(theory: pd.DataFrame, constructions: pd.DataFrame, best: pd.DataFrame,
                  task: dict[str, int], *, budget: float | None = None) -> plt.Figure:
    """Examples memorized against parameters (left) and against total bits of the weights
    (right): guarantees, the information ceiling on N (shaded above it), shape-only
    asymptotics, the built constructions
    and the trained capacities; ``budget`` marks one budget with a vertical line. The figure is
    :data:`WIDE_FIGURE_INCHES` wide, its legend below in two columns of entries wrapped to
    :data:`LEGEND_WRAP` characters at :data:`SMALL_TEXT_PT` points: readable at the book's
    column width (:func:`shown_text_px`)."""
    fig, axes = plt.subplots(1, 2, figsize=(WIDE_FIGURE_INCHES, 3.6))
    ax = axes[0]
    for statement, part in theory.groupby("statement", sort=False):
        kind = part["kind"].iloc[0]
        part = part[part["N"] > 0]
        if kind == "guarantee":
            ax.plot(part["parameters"], part["N"],
                    label=f"{statement_label(statement)} (guarantee)", linewidth=1.4,
                    markersize=4.5, markevery=max(1, len(part) // 8), **_style(statement))
        elif kind == CEILING_KIND:
            ax.plot(part["parameters"], part["N"], color="#222222", linewidth=1.6,
                    label=f"{ceiling_label(statement)} (shaded above it: not every labelling "
                          "can be fitted)")
            ax.fill_between(part["parameters"], part["N"], part["N"] * 1e6, color="#222222",
                            alpha=0.08, linewidth=0)
        else:
            ax.plot(part["parameters"], part["N"], linewidth=1.3, markersize=3.5,
                    markevery=max(1, len(part) // 6),
                    label=shape_only_label(statement, part, task["n"]),
                    **_shape_style(statement))
    for name, part in constructions.groupby("construction", sort=False):
        key = name.split()[0]
        ok = part[part["memorized"]]
        ax.plot(ok["parameters"], ok["N"], linestyle="none", marker="^", markersize=7,
                markerfacecolor="none", markeredgewidth=1.4, color=_CONSTRUCTION_COLORS[key],
                label=f"built: {construction_label(name)}, all memorized")
    _trained_points(ax, best, "parameters", task=task)
    lo = max(1.0, float(theory["N"][theory["N"] > 0].min()) / 2)
    hi = float(theory.loc[theory["kind"] == CEILING_KIND, "N"].max()) * 4
    ax.set(xscale="log", yscale="log", ylim=(lo, hi), xlabel="parameters P",
           ylabel="examples memorized N",
           title=f"vs parameters (V = {task['V']}, n = {task['n']}, C = {task['C']})")
    ax2 = axes[1]
    bits = np.geomspace(max(1.0, float(theory["bits"].min()) / 2),
                        float(constructions["bits"].max()) * 2, 50)
    ax2.plot(bits, bits / math.log2(task["C"]), color="#222222", linewidth=1.6)
    ax2.fill_between(bits, bits / math.log2(task["C"]), bits * 1e6, color="#222222",
                     alpha=0.08, linewidth=0)
    for name, part in constructions.groupby("construction", sort=False):
        key = name.split()[0]
        ok = part[part["memorized"]]
        ax2.plot(ok["bits"], ok["N"], linestyle="none", marker="^", markersize=7,
                 markerfacecolor="none", markeredgewidth=1.4, color=_CONSTRUCTION_COLORS[key])
    _trained_points(ax2, best, "parameters", bits_axis=True, task=task)
    ax2.set(xscale="log", yscale="log", ylim=(lo, hi),
            xlabel="total bits of the weights", ylabel="examples memorized N",
            title="vs total bits (information ceiling on N: N log2 C = bits, ours)")
    if budget is not None:
        ax.axvline(budget, color="#E69F00", linewidth=1.2)
        ax2.axvline(TRAINED_WEIGHT_BITS * budget, color="#E69F00", linewidth=1.2)
    handles, labels = ax.get_legend_handles_labels()
    fig.tight_layout()
    fig.legend(handles, [legend_text(label) for label in labels], loc="upper center", ncol=2,
               fontsize=SMALL_TEXT_PT, bbox_to_anchor=(0.5, 0.0))
    return fig


#: How far apart :func:`head_to_head_figure` draws the architectures along its logarithmic
#: budget axis: neighbouring architectures differ by this factor's logarithm, so that equal
#: values at one budget (a censored ▽ and another architecture's point) both show.
DODGE_LOG = 0.045


def dodge(architecture: str) -> float:
    """The factor by which :func:`head_to_head_figure` multiplies the budget of
    ``architecture``'s points: ``exp(DODGE_LOG · k)``, with ``k`` its place in
    :data:`memnb.experiments.compare.ARCHITECTURES` centred on zero (1 for an architecture not
    listed)."""
    names = list(exp.ARCHITECTURES)
    if architecture not in names:
        return 1.0
    return math.exp(DODGE_LOG * (names.index(architecture) - (len(names) - 1) / 2))


#: The width of the book's text column in CSS pixels, at which a figure of the chapter is shown
#: (a wider image is scaled down to it), and the dots per inch at which the book saves figures
#: (``savefig.dpi`` of :func:`memnb.viz.apply_style`): with them :func:`shown_text_px` gives the
#: size a reader sees a figure's smallest text at.
BOOK_COLUMN_PX = 784
BOOK_DPI = 100
#: The width in inches of the chapter's two-panel figures (:func:`head_to_head_figure`,
#: :func:`bounds_figure`), and the smallest font size (points) of their text: at
#: :data:`BOOK_DPI` such a figure, its legend below it included, is little wider than
#: :data:`BOOK_COLUMN_PX`, so that its smallest text is shown at 9 px or more
#: (:func:`shown_text_px`).
WIDE_FIGURE_INCHES = 8.2
SMALL_TEXT_PT = 8.0
#: How many characters a legend entry of the two-panel figures holds per line (wrapped below
#: it, every word kept), so that two columns of entries fit the figure's width.
LEGEND_WRAP = 54


def legend_text(label: str, width: int = LEGEND_WRAP) -> str:
    """A legend entry wrapped to lines of at most ``width`` characters (every word kept)."""
    return textwrap.fill(label, width)


def shown_text_px(fig: plt.Figure, *, column: float = BOOK_COLUMN_PX,
                  dpi: float = BOOK_DPI) -> tuple[float, int]:
    """The height in CSS pixels at which a reader sees the smallest text of ``fig`` in the book
    (ours): the figure saved as the book saves it (``dpi``, tight bounding box, its legends
    included) is ``width`` pixels wide and shown at most ``column`` wide, so a font of ``s``
    points is seen at ``s · dpi / 72 · min(1, column / width)`` pixels. Returns that size for
    the smallest visible, non-empty text of the figure, and ``width``."""
    import io

    import matplotlib.text as mtext
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    width = Image.open(io.BytesIO(buf.getvalue())).size[0]
    sizes = [t.get_fontsize() for t in fig.findobj(mtext.Text)
             if t.get_visible() and t.get_text().strip()]
    return min(sizes) * dpi / 72 * min(1.0, column / width), width


#: The budget axis label of :func:`head_to_head_figure`: the axis is logarithmic with plain tick
#: labels (the budgets), so the label names the scale.
BUDGET_AXIS = "parameter budget P (log scale)"


def _touches(ax: Any, box: Any, skip: list[Any], pad: float = 4.0) -> int:
    """How many sampled points of the data drawn on ``ax`` (its lines, markers and error bars;
    not the artists in ``skip``) lie in the display-space box ``box`` widened by ``pad``
    pixels (about a marker's radius)."""
    paths = [np.asarray(line.get_xydata(), dtype=float) for line in ax.get_lines()
             if line not in skip]
    for collection in ax.collections:
        if collection not in skip and hasattr(collection, "get_segments"):
            paths += [np.asarray(seg, dtype=float) for seg in collection.get_segments()]
    steps = np.linspace(0.0, 1.0, 60)[:, None]
    count = 0
    for path in paths:
        if path.size == 0:
            continue
        shown = ax.transData.transform(path)
        shown = shown[np.isfinite(shown).all(axis=1)]
        if len(shown) == 0:
            continue
        sample = shown if len(shown) == 1 else np.concatenate(
            [a + steps * (b - a) for a, b in zip(shown[:-1], shown[1:], strict=True)])
        count += int(((sample[:, 0] >= box.x0 - pad) & (sample[:, 0] <= box.x1 + pad)
                      & (sample[:, 1] >= box.y0 - pad) & (sample[:, 1] <= box.y1 + pad)).sum())
    return count


def annotate_clear(ax: Any, text: str, places: list[tuple[tuple[float, float], dict[str, Any]]],
                   skip: list[Any] | None = None) -> Any:
    """Annotate ``text`` on ``ax`` at the first of ``places`` (each an anchor in data
    coordinates and the keyword arguments of ``ax.annotate``) where it touches none of the data
    drawn (:func:`_touches`, ``skip`` excepted), else where it touches the least; returns the
    annotation. Call it once the figure's layout is final: the test is in display space."""
    chosen = None
    for xy, kwargs in places:
        note = ax.annotate(text, xy, **kwargs)
        hits = _touches(ax, note.get_window_extent(), list(skip or []))
        if hits == 0:
            if chosen is not None:
                chosen[1].remove()
            return note
        if chosen is None or hits < chosen[0]:
            if chosen is not None:
                chosen[1].remove()
            chosen = (hits, note)
        else:
            note.remove()
    return None if chosen is None else chosen[1]


#: The range bars of :func:`head_to_head_figure`: the search's bracket of a mean capacity.
_RANGE_BAR = {"linewidth": 6, "alpha": 0.22, "zorder": 1}
#: Their legend entry.
RANGE_LABEL = ("shaded bar: the search's bracket of the mean, from the largest N fitted to the "
               "next N tried (mean over seeds)")


def head_to_head_figure(best: pd.DataFrame, fixed: pd.DataFrame, C: int,
                        brackets: pd.DataFrame | None = None) -> plt.Figure:
    """Left: bits per parameter at capacity (``capacity · log2 C / P``) against the budget,
    best shape per architecture (mean ± std over seeds), with the external anchors; with
    ``brackets`` (:func:`memnb.scorecard.compare.capacity_brackets`), a shaded range bar behind
    each mean spans its search bracket (:func:`mean_brackets`, :data:`RANGE_LABEL`) where that
    is bounded on both sides. Right:
    training accuracy at a fixed ``N`` per budget
    (:func:`memnb.experiments.compare.accuracy_at_fixed_N`). Both budget axes are logarithmic
    with the budgets as plain tick labels; their label (:data:`BUDGET_AXIS`) says so. The
    label of the chance line is put beside it at the smallest or the largest budget, above or
    below it, where it touches no data (:func:`annotate_clear`). The figure is
    :data:`WIDE_FIGURE_INCHES` wide, its text at least :data:`SMALL_TEXT_PT` points, its legend
    below in two columns of entries wrapped to :data:`LEGEND_WRAP` characters, each
    architecture named short (:data:`exp.SHORT`, as the captions name it) with its long name
    (:data:`LABELS`): readable at the book's column width (:func:`shown_text_px`)."""
    fig, axes = plt.subplots(1, 2, figsize=(WIDE_FIGURE_INCHES, 3.4))
    censored = _censored(best)
    low = _at_least(best)
    labelled = at_least_labelled = range_labelled = False
    span = mean_brackets(best, brackets) if brackets is not None else None
    top_range = 0.0
    for arch in exp.ARCHITECTURES:
        mine = best["architecture"] == arch
        shift = dodge(arch)
        if span is not None:
            ranged = best[mine & ~censored & ~low & (best["capacity"] > 0)].drop(
                columns=list(span.columns), errors="ignore").join(span)
            ranged = ranged[np.isfinite(ranged["upper"])]
            if not ranged.empty:
                high = ranged["upper"] * math.log2(C) / ranged["parameters"]
                axes[0].vlines(ranged["budget"] * shift, ranged["bits"], high,
                               color=ARCH_COLORS[arch], **_RANGE_BAR)
                range_labelled = True
                top_range = max(top_range, float(high.max()))
        # a censored budget breaks the line: no value to join there
        part = best[mine].assign(bits=best["bits"].where(~censored)).sort_values("budget")
        if part["bits"].notna().any():
            axes[0].errorbar(part["budget"] * shift, part["bits"], yerr=part["bits_std"],
                             capsize=2, color=ARCH_COLORS[arch], marker="o", markersize=4.5,
                             label=f"{exp.SHORT[arch]}: {LABELS[arch]}")
        below = best[mine & censored]
        if not below.empty:  # below the smallest N tried: an upper bound, not a value
            axes[0].plot(below["budget"] * shift,
                         below["below"] * math.log2(C) / below["parameters"],
                         color=ARCH_COLORS[arch], label=None if labelled else
                         "no tried N fitted: open ▽ at the smallest N tried (an upper bound)",
                         **_CENSORED)
            labelled = True
        above = best[mine & low]
        if not above.empty:  # every N tried fitted: a lower bound, not a value
            axes[0].plot(above["budget"] * shift, above["bits"], color=ARCH_COLORS[arch],
                         label=None if at_least_labelled else "a seed fitted every N tried: ▲ "
                         "(a lower bound)", **_AT_LEAST)
            at_least_labelled = True
        part = fixed[fixed["architecture"] == arch].sort_values("budget")
        if not part.empty:
            axes[1].errorbar(part["budget"] * shift, part["accuracy"],
                             yerr=part["accuracy_std"], capsize=2, color=ARCH_COLORS[arch],
                             marker="o", markersize=4.5)
    if range_labelled:  # one grey legend entry for the range bars of every architecture
        axes[0].vlines([], [], [], color="#777777", label=RANGE_LABEL, **_RANGE_BAR)
    for key, value in external.anchors().items():
        axes[0].axhline(float(value), color="#777777", linestyle=":", linewidth=1.2)
        axes[0].annotate(f"{external.NAMES[key]}: {float(value):g} bits/param (another measure)",
                         (best["budget"].min(), float(value)), fontsize=SMALL_TEXT_PT,
                         color="#555555",
                         xytext=(2, 2), textcoords="offset points")
    budgets = sorted(best["budget"].unique())
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xticks(budgets, [str(b) for b in budgets])
        ax.minorticks_off()
    top = max(4.2, float((best["bits"] + best["bits_std"]).max()) * 1.1, top_range * 1.1)
    if censored.any():
        top = max(top, float((best["below"] * math.log2(C) / best["parameters"]).max()) * 1.1)
    axes[0].set(ylim=(0, top), xlabel=BUDGET_AXIS,
                ylabel="bits per parameter at capacity\n(capacity · log2 C / P)",
                title="stored per parameter (ours)")
    axes[0].yaxis.label.set_size(SMALL_TEXT_PT + 1)
    chance = axes[1].axhline(1 / C, color="#999999", linestyle="--", linewidth=1.0)
    ratio = float((fixed["N"] * math.log2(C) / fixed["budget"]).median()) if len(fixed) else 0
    axes[1].set(ylim=(0, 1.05), xlabel=BUDGET_AXIS,
                ylabel="training accuracy",
                title=f"accuracy at fixed N ≈ {ratio:.2g} · P / log2 C (ours)")
    axes[1].title.set_size(9.5)
    handles, labels = axes[0].get_legend_handles_labels()
    # the range bars' entry after the architectures' (matplotlib lists error bars last)
    order = sorted(range(len(labels)), key=lambda i: labels[i] == RANGE_LABEL)
    handles, labels = [handles[i] for i in order], [labels[i] for i in order]
    fig.tight_layout()
    # after the layout: where the label touches no point, error bar or line is read off the
    # axes as drawn
    lo, hi = (min(budgets), max(budgets)) if len(fixed) == 0 else (
        float(fixed["budget"].min()), float(fixed["budget"].max()))
    style = {"fontsize": SMALL_TEXT_PT, "color": "#555555", "textcoords": "offset points"}
    annotate_clear(axes[1], "chance 1/C", [
        ((lo, 1 / C), {**style, "xytext": (2, 2), "ha": "left", "va": "bottom"}),
        ((lo, 1 / C), {**style, "xytext": (2, -2), "ha": "left", "va": "top"}),
        ((hi, 1 / C), {**style, "xytext": (-2, 2), "ha": "right", "va": "bottom"}),
        ((hi, 1 / C), {**style, "xytext": (-2, -2), "ha": "right", "va": "top"})],
        skip=[chance])
    fig.legend(handles, [legend_text(label) for label in labels], loc="upper center", ncol=2,
               fontsize=SMALL_TEXT_PT, bbox_to_anchor=(0.5, 0.0))
    return fig


#: The chapter's one name for the counting bound N log2 C <= 32 P (ours), in its tables,
#: figures and sliders: in a chart of examples N it is a ceiling on N (above it, weights of
#: 32 P bits cannot fit every labelling of N examples, :func:`ceiling_says`), not one more
#: guarantee; the budget chart (:func:`budget_frame`) draws its bar hatched and unfilled
#: (:data:`_CEILING_BAR`).
CEILING_WORDS = "information ceiling on N (ours)"
#: The ``kind`` that :func:`exp.theory_curves` gives the information ceiling on N (its own
#: word for it, which the chapter does not show: :func:`ceiling_says` says what the bound says).
CEILING_KIND = "forbidden above"


def ceiling_says(bits: str = "32 P") -> str:
    """What the information ceiling on N says, for weights of ``bits`` bits: above it, not
    every labelling of N examples can be fitted, at most a ``2^(bits − N log2 C)`` share of
    them (a counting bound of ours, not a bar on fitting one labelling)."""
    return (f"above it, not every labelling of N examples can be fitted: at most a "
            f"2^({bits} − N log2 C) share of them")
_CEILING_BAR = {"facecolor": "none", "edgecolor": "#222222", "hatch": "///", "linewidth": 1.2}


def _floor_formula(statement: str) -> str:
    """The formula of the information ceiling's statement, ``N log2 C <= 32 P`` (named
    "information floor" by :func:`exp.theory_curves`), without its name
    and its parenthesis."""
    return statement.removeprefix("information floor ").split(" (")[0]


def ceiling_label(statement: str) -> str:
    """The label of the information ceiling on N in a figure of examples N against P (the
    slider over C, :func:`classes_frame`, and :func:`bounds_figure`) and in
    :func:`theory_table`: :data:`CEILING_WORDS`, with its formula as the statement gives it
    and what it is
    (:data:`FLOOR_WORDS`): ``information ceiling on N (ours): N log2 C <= 32 P; cf. our reading
    of Remark 4.4``."""
    return f"{CEILING_WORDS}: {_floor_formula(statement)}; {FLOOR_WORDS.removeprefix('ours; ')}"


def _short_statement(statement: str) -> str:
    """A label of two or three lines of a statement for the bar chart of :func:`budget_frame`;
    the information ceiling on N is named :data:`CEILING_WORDS` (on two lines), above its
    formula as
    the statement gives it (``N log2 C <= 32 P``)."""
    if statement.startswith("information floor "):
        # as narrow as its neighbours
        return f"{textwrap.fill(CEILING_WORDS, 19)}\n{_floor_formula(statement)}"
    for prefix, short in (("Dana", "Dana Thm 1\nH d_h + d"),
                          ("Mahdavi", f"Mahdavi Thm 1\nH(min(n,d_h)-1)+1\n{MAHDAVI_FLAG}"),
                          ("earlier", "earlier\nH(d_h-1)+1")):
        if statement.startswith(prefix):
            return short
    return statement


#: The label of a bar that :func:`budget_frame` cannot draw because no shape fits the budget
#: (a trained architecture whose grid has none, or a guarantee none of whose shapes fits).
NO_SHAPE = "– (no shape\nfits the budget)"


#: The legend entry of a trained bar of :func:`budget_frame` outside the theorem drawn for its
#: architecture (:func:`outside_theorem`: an AoT outside Dana et al.'s Thm 1, an attention layer
#: outside Mahdavi et al.'s), which the bar's hatching (:data:`_OUTSIDE_BAR`) marks; the
#: caption says which and why (:func:`outside_scope_words`).
OUTSIDE_LABEL = "trained, outside its theorem's scope"
_OUTSIDE_BAR = {"hatch": "xx", "edgecolor": "white", "linewidth": 0.0}


def _budget_bars(budget: int, best: pd.DataFrame, theory: pd.DataFrame,
                 task: dict[str, int]) -> list[dict[str, Any]]:
    """The bars of :func:`budget_frame` at ``budget``, in order: each a dict of ``name`` (the
    tick label), ``value`` (its height, NaN for no bar), ``err`` (its error bar, 0 for none),
    ``color``, ``text`` (its label where not its value), ``ceiling`` (whether it is the
    information ceiling on N) and ``outside`` (a trained shape outside the theorem drawn for
    its architecture, :func:`outside_theorem`)."""
    here = best[best["budget"] == budget]
    bars: list[dict[str, Any]] = []
    censored = _censored(here)
    low = _at_least(here)
    gaps = {arch: fits for arch, b, fits in missing_shapes(best, task, [budget])}
    for arch in exp.ARCHITECTURES:
        row = here[here["architecture"] == arch]
        bar = {"name": f"trained\n{exp.SHORT[arch]}", "color": ARCH_COLORS[arch],
               "ceiling": False, "outside": False}
        if len(row):
            below = censored[row.index[0]]
            bars.append({**bar, "outside": bool(outside_theorem(row, task).iloc[0]),
                         "value": max(float(row["capacity"].iloc[0]), BAR_FLOOR),
                         "err": float(row["capacity_std"].iloc[0]),
                         "text": f"< {float(row['below'].iloc[0]):g}" if below else
                         f"≥ {count_text(row['capacity'].iloc[0])}" if low[row.index[0]]
                         else None})
        elif arch in gaps:  # no bar: say why rather than drop it
            bars.append({**bar, "value": math.nan, "err": 0.0,
                         "text": "– (not trained)" if gaps[arch] else NO_SHAPE})
    at = theory[(theory["parameters"] == budget) & (theory["kind"] != "shape only")]
    for r in at.itertuples():
        fits = not math.isnan(float(r.N))
        ceiling = r.kind == CEILING_KIND
        bars.append({"name": _short_statement(r.statement),
                     "value": max(float(r.N), BAR_FLOOR) if fits else math.nan, "err": 0.0,
                     "color": "#222222" if ceiling else _style(r.statement)["color"],
                     "text": None if fits else NO_SHAPE, "ceiling": ceiling, "outside": False})
    return bars


#: The bottom of the log axis of :func:`budget_frame` (ours): low enough that a bar of 1 (a
#: guarantee of one example, as the earlier bound at the smaller budgets) shows as a bar, half
#: a decade tall, and the height of a bar of 0 (labelled "none"), which is then not drawn.
BAR_FLOOR = 0.3


def _bars_top(bars: list[dict[str, Any]]) -> float:
    """The top of the y-axis of :func:`budget_frame` for ``bars``: three times the highest bar
    with its error bar (room for its label on the log axis)."""
    return float(np.nanmax([b["value"] + (b["err"] if b["err"] > 0 else 0.0)
                            for b in bars])) * 3


def budget_ylim(budgets: list[int], best: pd.DataFrame, theory: pd.DataFrame,
                task: dict[str, int]) -> tuple[float, float]:
    """The y-limits common to every frame of a slider of :func:`budget_frame` over ``budgets``:
    the bottom every frame has, and the top of the frame whose bars reach highest
    (:func:`_bars_top`), so that heights compare across frames."""
    return BAR_FLOOR, max(_bars_top(_budget_bars(b, best, theory, task)) for b in budgets)


def budget_frame(budget: int, best: pd.DataFrame, theory: pd.DataFrame,
                 task: dict[str, int], *, ylim: tuple[float, float] | None = None
                 ) -> plt.Figure:
    """One slider frame: at ``budget``, the trained capacity of each architecture (mean ± std)
    beside what each statement says at that size (bars, log scale), each bar labelled with its
    value as the chapter's tables print it (:func:`count_text`). An architecture of ``best``
    with no best shape at ``budget`` (:func:`missing_shapes`) and a guarantee no shape of which
    fits the budget (``–`` in :func:`theory_table`) have no bar and the label
    :data:`NO_SHAPE` (an architecture whose grid does have a shape there but which has no run
    in ``best``: ``– (not trained)``). A capacity below the smallest N tried is labelled
    ``< N``, one some seed of which fitted every N tried (a lower bound) ``≥ N``. The
    information ceiling on N is named :data:`CEILING_WORDS`, its bar hatched and
    unfilled. A trained bar whose shape lies outside the theorem drawn for its architecture
    (:func:`outside_theorem`: an AoT outside Dana et al.'s Thm 1, an attention layer outside
    Mahdavi et al.'s) is cross-hatched, with the legend entry :data:`OUTSIDE_LABEL` (its patch
    grey, as it stands for either colour). ``ylim``: the y-limits, common to the frames of one
    slider (:func:`budget_ylim`); None fits them to this frame. The log axis starts at
    :data:`BAR_FLOOR`, so that a bar of 1 shows."""
    from matplotlib.patches import Patch

    fig, ax = plt.subplots(figsize=(8.4, 3.8))
    bars_at = _budget_bars(budget, best, theory, task)
    values = [b["value"] for b in bars_at]
    errs = [b["err"] for b in bars_at]
    bars = ax.bar(range(len(values)), values, color=[b["color"] for b in bars_at], alpha=0.85)
    for bar, spec in zip(bars, bars_at, strict=True):
        if spec["ceiling"]:
            bar.set(alpha=1.0, **_CEILING_BAR)
        if spec["outside"]:
            bar.set(**_OUTSIDE_BAR)
    if any(spec["outside"] for spec in bars_at):
        ax.legend(handles=[Patch(facecolor="#888888", alpha=0.85, label=OUTSIDE_LABEL,
                                 **_OUTSIDE_BAR)], loc="upper left", fontsize=8)
    # error bars only where there is a spread: a statement has none, nor a capacity every seed
    # of which agreed (a cap of zero height would read as a measured spread)
    spread = [i for i, err in enumerate(errs) if err > 0 and not math.isnan(values[i])]
    if spread:
        ax.errorbar(spread, [values[i] for i in spread], yerr=[errs[i] for i in spread],
                    fmt="none", ecolor="#333333", capsize=3, linewidth=1)
    for bar, value, err, spec in zip(bars, values, errs, bars_at, strict=True):
        text = spec["text"] or ("none" if value < 1 else count_text(value))
        top = 1.0 if math.isnan(value) else max(value + err, 1.0)
        ax.annotate(text, (bar.get_x() + bar.get_width() / 2, top), ha="center",
                    va="bottom", fontsize=7.5, xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(range(len(values)), [b["name"] for b in bars_at], fontsize=7.5)
    ax.set(yscale="log", ylim=ylim or (BAR_FLOOR, _bars_top(bars_at)), ylabel="examples N",
           title=f"budget P = {budget}: trained capacity (ours) and the statements at P "
                 f"(C = {task['C']})")
    fig.tight_layout()
    return fig


def classes_frame(C: int, task: dict[str, int], budgets: list[int],
                  best: pd.DataFrame | None) -> plt.Figure:
    """One frame of the slider over ``C``: the guarantees and the information ceiling on N
    against P
    for ``C`` classes; the trained capacities (measured at the task's ``C`` only) are drawn in
    that frame alone. A guarantee no shape of which fits any budget (:func:`unfit_statements`)
    has no line and no legend entry; the legend's title names it and why. Where ``C`` exceeds
    the task's ``V``, Dana et al.'s AoT (logits over its vocabulary, labels tokens) is drawn on a
    vocabulary of ``max(V, C)`` tokens (:data:`exp.GUARANTEE_SHAPES`), which the title says."""
    th = exp.theory_curves({**task, "C": C}, budgets)
    fig, ax = plt.subplots(figsize=(7.6, 5.0))
    for statement, part in th[th["kind"] != "shape only"].groupby("statement", sort=False):
        kind = part["kind"].iloc[0]
        style = ({"color": "#222222", "linestyle": "-"} if kind == CEILING_KIND
                 else _style(statement))
        part = part[part["N"] > 0]
        if part.empty:  # no shape of the statement fits any budget drawn: no line, no entry
            continue
        label = (ceiling_label(statement) if kind == CEILING_KIND
                 else statement_label(statement))
        ax.plot(part["parameters"], part["N"], label=label, linewidth=1.5, **style)
    missing = unfit_statements(th)
    note = (textwrap.fill("no line, no shape fits any budget drawn: "
                          + "; ".join(_unfit_words(m, C, task) for m in missing), 110)
            if missing else None)
    if best is not None and C == task["C"]:
        _trained_points(ax, best, "parameters", task=task)
    # plain tick labels (the budgets) on a log axis: the label names the scale
    ax.set(xscale="log", yscale="log", ylim=(0.8, 40 * max(budgets)),
           xlabel="parameters P (log scale)",
           ylabel="examples memorized N", title=f"C = {C} classes" + (
               f" (AoT vocabulary {_aot_vocabulary(task, C)})" if C > task["V"] else ""))
    shown = sorted(int(b) for b in budgets)  # one label per budget, none on minor ticks
    ax.set_xticks(shown, [str(b) for b in shown])
    ax.xaxis.set_minor_locator(plt.NullLocator())
    # below the axes, so that the legend takes no width from the lines
    legend = ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2,
                       title=note, title_fontsize=7, alignment="left", frameon=False)
    if note:
        legend.get_title().set_color("#555555")
    fig.tight_layout()
    return fig


def unfit_statements(theory: pd.DataFrame) -> list[str]:
    """The guarantees of a :func:`exp.theory_curves` table that no shape fits at any budget of
    it (every ``N`` missing or 0): statements a figure can draw no line for."""
    guarantees = theory[theory["kind"] == "guarantee"]
    return [statement for statement, part in guarantees.groupby("statement", sort=False)
            if not (part["N"] > 0).any()]


def _aot_vocabulary(task: dict[str, int], C: int) -> int:
    """The vocabulary of the AoT whose guarantee :func:`exp.theory_curves` draws at ``C``
    classes on ``task`` (:data:`exp.GUARANTEE_SHAPES`: ``max(V, C)``)."""
    return exp.GUARANTEE_SHAPES["Dana"]["vocabulary"][1]({**task, "C": C})


def _unfit_words(statement: str, C: int, task: dict[str, int] | None = None) -> str:
    """Why :func:`unfit_statements` leaves ``statement`` out at ``C`` classes, in words: the
    shapes of Mahdavi et al.'s guarantee that we search have ``d ≥ C`` and value size
    ``d_v = C`` (:func:`exp.theory_curves`), so they grow with C; the AoT's guarantees, where
    ``C`` exceeds the task's ``V``, are for an AoT on a vocabulary of ``max(V, C)`` tokens."""
    name = statement_label(statement).split(":")[0]
    if statement.startswith("Mahdavi"):
        return f"{name} (our shapes need d ≥ C = {C} and values of size C)"
    if task is not None and C > task["V"] and statement.startswith(("Dana", "earlier")):
        return f"{name} (an AoT on a vocabulary of {_aot_vocabulary(task, C)} tokens)"
    return name


def outside_scope_words(best: pd.DataFrame, task: dict[str, int], mark: str = "bar", *,
                        own: str = "the sentence below the statements figure") -> str:
    """A caption's sentences (starting with a space) naming the best trained shapes of ``best``
    that lie outside the theorem whose guarantee is drawn for their architecture
    (:func:`outside_theorem`), and why, or saying that none does: the AoT at the budgets where
    its width exceeds ``V`` (outside Dana et al.'s Thm 1, :func:`outside_scope`); the attention
    layer at the budgets where it lies outside Mahdavi et al.'s Thm 1 (its sizes d_v < d_o, its
    capacity above V: Assumption 1 fails, :func:`memnb.scorecard.compare.outside_reasons`,
    in the words of :func:`memnb.scorecard.compare.mahdavi_outside_words`), with the value size
    for which the guarantee line is drawn (:data:`exp.GUARANTEE_SHAPES`). ``mark``: ``"bar"``,
    such bars cross-hatched (:func:`budget_frame`), or ``"point"``, such points hollow
    (:func:`bounds_figure`, :func:`classes_frame`); ``own``: where the chapter says what
    training reached at Dana et al.'s own shape."""
    from memnb.scorecard.compare import mahdavi_outside_words, outside_reasons

    V = int(task["V"])
    rows = [(r, outside_reasons(r.architecture, r.shape, task, r.capacity))
            for r in best.sort_values("budget").itertuples()]
    aot = [r for r, why in rows if r.architecture == "aot" and why]
    mha = [(r, why) for r, why in rows if r.architecture == "mha" and why]
    marked = (f"Cross-hatched, \"{OUTSIDE_LABEL}\"" if mark == "bar" else
              f"Hollow ○, \"{OUTSIDE_POINT_LABEL.removesuffix(': hollow ○')}\"")
    parts = []
    if aot:
        named = prose.and_words([f"P = {r.budget} ({r.shape})" for r in aot])
        lies = "it lies" if len(aot) == 1 else "they lie"
        parts.append(f"the best trained AoT at {named}, whose width d exceeds V = {V}, so {lies} "
                     "outside what Dana et al.'s proof covers (ours: the gap in the proof that "
                     "the Dana chapter finds).")
    if mha:
        named = prose.and_words([f"P = {r.budget} ({r.shape})" for r, _ in mha])
        above = [r.budget for r, why in mha if "N > V" in why]
        where = ("every one of these capacities exceeds V" if len(above) == len(mha) else
                 "none of these capacities exceeds V" if not above else
                 f"the capacity exceeds V at {_budgets_words(above)}")
        spec = exp.GUARANTEE_SHAPES["Mahdavi"]["d_v"]
        one = len(mha) == 1
        noun = "the best trained MHA" if one else "the best trained MHAs"
        parts.append((noun if not aot else f"So {'is' if one else 'are'} {noun}")
                     + f" at {named}, outside Mahdavi et al.'s Thm 1: "
                     + mahdavi_outside_words(task, [r.shape for r, _ in mha])
                     + f" ({where}). Mahdavi et al.'s guarantee line is drawn for layers with "
                     f"d_v = {spec[0]} = {spec[1](task)} (ours), not for these shapes.")
    text = ""
    if not aot:
        text += (f" Every best trained AoT has d ≤ V = {V}, within Dana et al.'s Thm 1 as we "
                 "read it.")
    if parts:
        which = "bar" if mark == "bar" else "point"
        text += (f" {marked}: " + " ".join(parts) + f" Such a {which} does not test the "
                 "guarantee beside it"
                 + (f" (what training reached at Dana et al.'s own shape: {own})" if aot else "")
                 + ".")
    return text


def budget_slider_caption(task: dict[str, int], budgets: list[int],
                          best: pd.DataFrame | None = None,
                          brackets: pd.DataFrame | None = None) -> str:
    """The caption of the slider over the budget (:func:`budget_frame`): what its bars are, on
    the task ``task`` and the ``budgets`` its frames show (the ceiling's bits per parameter:
    :func:`exp.theory_curves`' default); with ``best``, which trained bars are cross-hatched
    as outside their theorem's scope (AoT: Dana et al.'s Thm 1; MHA: Mahdavi et al.'s;
    :func:`outside_scope_words`) and which bars
    lie below the guarantee of their own architecture beside them (:func:`below_guarantee_words`
    on the statements at ``budgets``, as the frames draw them; with ``brackets``, each seed read
    as the guarantee rows read it); with ``brackets`` too
    (:func:`memnb.scorecard.compare.capacity_brackets`), the resolution of the capacity search
    (:func:`grid_words`)."""
    bits = inspect.signature(exp.theory_curves).parameters["weight_bits"].default
    extra = ""
    if best is not None:
        extra += outside_scope_words(best, task)
        extra += below_guarantee_words(exp.theory_curves(task, budgets), best, brackets)
        if brackets is not None and grid_words(brackets, best):
            extra += " " + grid_words(brackets, best)
    return (f"**Figure (ours), slider over the budget P** ({_numbers_words(sorted(budgets))} "
            f"parameters; C = {task['C']} classes): at each budget, the trained capacity of each "
            "architecture's best shape (mean over seeds; an error bar, the standard deviation "
            "over seeds, only where the seeds differ) beside each statement's count at that P "
            "(a guarantee at the best shape of its theorem that fits the budget; the "
            f"information ceiling on N, N log2 C ≤ {bits} P, not a guarantee: "
            f"{ceiling_says(f'{bits} P')}; hatched, labelled "
            f"\"{CEILING_WORDS}\"); examples N on a log scale, "
            "each bar labelled with its value." + extra)


def classes_slider_caption(task: dict[str, int], classes: list[int],
                           best: pd.DataFrame | None = None,
                           brackets: pd.DataFrame | None = None) -> str:
    """The caption of the slider over ``C`` (:func:`classes_frame`), before
    :func:`classes_markdown`; with ``best`` (the trained best shapes), which trained points of
    the task's frame are hollow as outside their theorem's scope (AoT: Dana et al.'s Thm 1; MHA:
    Mahdavi et al.'s; :func:`outside_scope_words`),
    and with ``brackets`` too (:func:`memnb.scorecard.compare.capacity_brackets`), the
    resolution of the capacity search (:func:`grid_words`)."""
    extra = ""
    if best is not None:
        extra += outside_scope_words(best, task, "point")
        if brackets is not None and grid_words(brackets, best):
            extra += " " + grid_words(brackets, best)
    return (f"**Figure (ours), slider over the number of classes C** "
            f"({_numbers_words(sorted(classes))}): the guarantees and the information "
            f"ceiling on N (solid, labelled \"{CEILING_WORDS}\") against the parameters P "
            "(log-log), at the budgets of this chapter; the trained "
            f"capacities (best shape, mean ± standard deviation over seeds) were measured at "
            f"C = {task['C']} only and appear in that frame alone." + extra)


def classes_markdown(task: dict[str, int], budgets: list[int], classes: list[int]) -> str:
    """What the slider over C (:func:`classes_frame`) draws and cannot draw, computed: which
    frames have ``C`` above the task's ``V`` and so draw Dana et al.'s AoT on a larger
    vocabulary (:func:`vocabulary_words`); for each ``C`` in ``classes``, the guarantees no
    shape of which fits any budget in ``budgets`` (:func:`unfit_statements`), which have no
    line and no legend entry in that frame, or that every guarantee has a line in every
    frame."""
    found = {C: unfit_statements(exp.theory_curves({**task, "C": C}, budgets))
             for C in classes}
    top = max(int(b) for b in budgets)
    said = [f"at C = {C}, " + "; ".join(_unfit_words(m, C, task) for m in missing)
            for C, missing in found.items() if missing]
    vocabulary = vocabulary_words(task, classes)
    if not said:
        return (vocabulary + f"Every guarantee has a line in every frame (C = "
                f"{', '.join(map(str, classes))}, budgets up to P = {top}).")
    return (vocabulary + "Where a frame draws no line for a guarantee, no shape of it fits any "
            f"budget drawn (up to P = {top}), and its legend leaves it out: " + "; ".join(said)
            + ".")


def _numbers_words(values: list[int]) -> str:
    """``8``, ``8 and 16``, ``2, 8 and 16``."""
    return prose.and_words([str(v) for v in values])


def vocabulary_words(task: dict[str, int], classes: list[int]) -> str:
    """A sentence (ending with a space) on the frames of the slider over C whose ``C`` exceeds
    the task's ``V``, or nothing when there are none: there the AoT of Dana et al.'s eq. 2,
    whose logits range over its vocabulary and whose labels are tokens, cannot be built on
    the task's ``V`` tokens, so its guarantee and the earlier bound at its size are drawn for
    the AoT on a vocabulary of ``max(V, C)`` tokens (:data:`exp.GUARANTEE_SHAPES`, with its
    reasons); no model is trained at any ``C`` but the task's."""
    V = int(task["V"])
    above = [int(C) for C in classes if int(C) > V]
    if not above:
        return ""
    spec = exp.GUARANTEE_SHAPES["Dana"]
    sizes = _numbers_words([_aot_vocabulary(task, C) for C in above])
    return (f"At C = {_numbers_words(above)}, above the task's V = {V} tokens, no AoT of Dana "
            f"et al.'s eq. 2 on V tokens can output the labels: {spec['why']['vocabulary']}. "
            f"Its guarantee and the earlier bound at its size are drawn there for the AoT on a "
            f"vocabulary of {spec['vocabulary'][0]} = {sizes} tokens (embedding and read-out "
            f"of 2·d·{spec['vocabulary'][0]} parameters), with "
            f"{spec['d_min'][0]} ≤ d ≤ {spec['d_max'][0]} as at every C (its last tokens "
            f"still take at most V values). Nothing is trained at any C but the task's "
            f"C = {task['C']}. ")


# ---------------------------------------------------------------------------------- captions
def winners(best: pd.DataFrame) -> pd.DataFrame:
    """Per budget: who stores most per parameter, the runner-up, the ratio, the lower bounds and
    whether the first place is a clear lead, as the head-to-head verdict reads them
    (:func:`memnb.scorecard.compare.budget_leads`)."""
    from memnb.scorecard.compare import budget_leads

    return budget_leads(best)


def ratio_grid_words(best: pd.DataFrame, brackets: pd.DataFrame, budget: int, first: str,
                     second: str) -> str:
    """A clause (starting with ``"; "``) saying that the capacities of the best shapes of
    ``first`` and ``second`` at ``budget`` lie within one step of the search's grid over N of
    each other (the larger mean over the smaller less than the largest step of their runs,
    :func:`mean_brackets`) or one grid step apart (equal to it), with the range that their
    brackets allow for the ratio of their bits per parameter, and whether that range settles
    the order; empty where they lie further apart, or where either has no bracket on both
    sides."""
    here = best[best["budget"] == budget].set_index("architecture")
    if first not in here.index or second not in here.index:
        return ""
    a, b = here.loc[first], here.loc[second]
    span = mean_brackets(best[best["budget"] == budget], brackets)
    span.index = best.loc[span.index, "architecture"]
    step = float(np.nanmax([span.loc[first, "step"], span.loc[second, "step"]]))
    ca, cb = float(a["capacity"]), float(b["capacity"])
    if math.isnan(step) or min(ca, cb) <= 0 or max(ca, cb) / min(ca, cb) > step:
        return ""
    per = float(b["parameters"]) / float(a["parameters"])  # bits ratio = capacity ratio · per
    ua, ub = float(span.loc[first, "upper"]), float(span.loc[second, "upper"])
    # the head-to-head row's own lower end, so that sentence and row settle the order alike
    low = bracket_ratio_low({"capacity": ca, "parameters": a["parameters"]},
                            {"upper": ub, "parameters": b["parameters"]})
    high = "any larger ratio" if math.isinf(ua) else f"{ua / cb * per:.2f}"
    order = ("" if low >= 1 else
             ", so the grid does not settle which of the two stores more per parameter"
             + (f" (in examples it does: the first's bracket starts at {ca:g}, at or above "
                f"the end of the second's, {ub:g})" if ca >= ub else ""))
    ratio = max(ca, cb) / min(ca, cb)
    if math.isclose(ratio, step):
        where = (f"one step of the search's grid over N apart (×{ratio:.3g}, the largest step "
                 "between the N tried here)")
    else:
        apart = "equal" if ca == cb else f"×{ratio:.3g} apart"
        where = (f"within one step of the search's grid over N ({apart}; the N tried here up "
                 f"to ×{step:.3g} apart)")
    return (f"; the two mean capacities lie {where}: their brackets allow a ratio from "
            f"{low:.2f} to {high}{order}")


def winners_markdown(best: pd.DataFrame, brackets: pd.DataFrame | None = None) -> str:
    """One sentence per budget naming who stores most per parameter and by how much (ours); a
    value that is a lower bound (every N tried fitted by some seed) reads "at least", and a
    first place over such a value is undecided; a first place that is no lead says why, as the
    head-to-head row reads it (:func:`memnb.scorecard.compare.no_lead_words`: within the seed
    spreads and/or within the search brackets). With ``brackets``
    (:func:`memnb.scorecard.compare.capacity_brackets`), a ratio between capacities that lie
    within one step of the search's grid of each other, or one step apart, says so
    (:func:`ratio_grid_words`)."""
    lines = []
    at = best.set_index(["budget", "architecture"])
    for r in winners(best).itertuples():
        if r.bits == 0:
            lines.append(f"- P = {r.budget}: no architecture fitted any training set tried.")
            continue
        least = "at least " if r.at_least else ""
        runner = "at least " if r.runner_up_at_least else ""
        # a lower bound over an exact value: at least the ratio; the other way round: at most;
        # two lower bounds: the ratio of the bounds says nothing of the true one
        times = {(True, False): "at least ", (False, True): "at most ",
                 (True, True): "a ratio of two lower bounds, "}.get(
                     (bool(r.at_least), bool(r.runner_up_at_least)), "")
        ratio = "no runner-up memorized anything" if math.isinf(r.ratio) else (
            f"{times}{r.ratio:.2f}× the runner-up, {exp.SHORT[r.runner_up]} "
            f"({runner}{r.runner_up_bits:.2f} bits/parameter)")
        same = grid = ""
        if not math.isinf(r.ratio):
            first, second = at.loc[(r.budget, r.winner)], at.loc[(r.budget, r.runner_up)]
            if first["capacity"] == second["capacity"]:
                # equal capacities: the whole first place is the smaller parameter count
                same = (f"; the same mean capacity, {first['capacity']:g} examples, on "
                        f"{int(first['parameters'])} parameters against "
                        f"{int(second['parameters'])}: the first place is the parameter count's")
            if brackets is not None:
                grid = ratio_grid_words(best, brackets, r.budget, r.winner, r.runner_up)
        # why a first place is no lead, as the head-to-head row reads it (the ratio the brackets
        # allow given once: by the clause on the grid where there is one)
        spread = ("; undecided: a value here is a lower bound, some seed having fitted every N "
                  "tried" if r.undecided
                  else "" if r.clear else f" (no lead: {no_lead_words(r, ratio=not grid)})")
        same += grid
        lines.append(f"- P = {r.budget}: **{exp.SHORT[r.winner]}** with {least}{r.bits:.2f} "
                     f"bits/parameter, {ratio}{spread}{same}.")
    return "\n".join(lines)


def fixed_N_words(fixed: pd.DataFrame) -> str:
    """The ``N`` at which the right panel of :func:`head_to_head_figure` reads the accuracy, per
    budget, from ``fixed`` (:func:`memnb.experiments.compare.accuracy_at_fixed_N`): ``"N = 30
    at P = 60, 60 at P = 120"``, naming the architectures where they differ at one budget."""
    parts = []
    for budget, part in fixed.sort_values(["budget", "architecture"]).groupby("budget"):
        values = part["N"].unique()
        if len(values) == 1:
            parts.append(f"{count_text(values[0])} at P = {budget}")
        else:
            parts.append(f"at P = {budget}: " + ", ".join(
                f"{count_text(r.N)} ({exp.SHORT[r.architecture]})" for r in part.itertuples()))
    return "N = " + ", ".join(parts) if parts else "no N (no run of the first round)"


#: How far from a budget the parameter count of a trained shape may lie, as a fraction of the
#: budget: the default of :func:`exp.shapes_for_budget`, with which the experiment plans them.
TOLERANCE: float = inspect.signature(exp.shapes_for_budget).parameters["tolerance"].default


def shape_counts(plan: pd.DataFrame, task: dict[str, int]) -> pd.DataFrame:
    """How many shapes of each architecture the experiment trains at each budget of ``plan``
    (:func:`exp.planned_shapes`), of how many shape families have a shape within
    :data:`TOLERANCE` of the budget (:func:`exp.shapes_for_budget` without its limit on the
    count): a cell ``"2 of 8"``, ``"–"`` where no family fits. The profile trains at most its
    ``shapes`` of them, so the best shape of a budget is the best of those trained."""
    task = {k: task[k] for k in ("V", "n", "C")}
    budgets = sorted(int(b) for b in plan["budget"].unique())
    trained = plan.groupby(["architecture", "budget"]).size()
    rows = {}
    for arch in exp.ARCHITECTURES:
        cells = {}
        for b in budgets:
            fitting = len(exp.shapes_for_budget(arch, b, task, count=10**9))
            cells[b] = f"{int(trained.get((arch, b), 0))} of {fitting}" if fitting else "–"
        rows[exp.SHORT[arch]] = cells
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name, out.columns.name = "architecture", "budget P"
    return out


def shape_check_words(plan: pd.DataFrame, counts: list[int]) -> str:
    """What the check of the planned shapes found, as one Markdown sentence: whether every shape
    of ``plan`` (:func:`exp.planned_shapes`) lies within :data:`TOLERANCE` of its budget, and
    whether the parameter count of the model built in it (``counts``, one per row of ``plan``:
    ``build_model(...).num_parameters()``) equals the closed form of :mod:`memnb.bounds`
    (``parameters``), each "every one of the K" or "J of the K ... not", naming those (ours)."""
    if len(counts) != len(plan):
        raise ValueError(f"counts must give one count per shape ({len(plan)}); got {len(counts)}")
    total = len(plan)
    tol = f"{TOLERANCE * 100:g} %"
    gap = (plan["parameters"] - plan["budget"]).abs() > TOLERANCE * plan["budget"]
    off = np.asarray(counts) != plan["parameters"].to_numpy()

    def named(rows: pd.DataFrame, words: Any) -> str:
        return "; ".join(f"{exp.SHORT.get(r.architecture, r.architecture)} {r.shape} "
                         f"{words(r)}" for r in rows.itertuples())

    if not gap.any():
        first = f"Every one of the {total:,} trained shapes lies within {tol} of its budget"
    else:
        far = named(plan[gap], lambda r: f"at P = {r.parameters:,} for a budget of "
                    f"{r.budget:,}")
        first = (f"{int(gap.sum()):,} of the {total:,} trained shapes "
                 f"{'lies' if gap.sum() == 1 else 'lie'} more than {tol} from their budget "
                 f"({far})")
    if not off.any():
        second = ("for every one the model's own parameter count equals the closed form of "
                  "`memnb.bounds`")
    else:
        built = dict(zip(plan.index, counts, strict=True))
        second = (f"for {int(off.sum()):,} of them the model's own parameter count differs from "
                  "the closed form of `memnb.bounds` ("
                  + named(plan[off], lambda r: f"builds {built[r.Index]:,}, the closed form "
                          f"gives {r.parameters:,}") + ")")
    return f"{first}, and {second}."


def smallest_shape(arch: str, task: dict[str, int]) -> int:
    """The parameter count of the smallest valid shape of ``arch``'s grid of shapes on ``task``
    (``V, n, C``; the grid and validity of :func:`exp.shapes_for_budget`): below it, no budget
    of the head-to-head comparison (ours) holds a shape of that architecture."""
    import itertools

    task = {k: task[k] for k in ("V", "n", "C")}
    grid = exp._GRIDS[arch]
    sizes = [exp.parameter_count(arch, shape, task)
             for shape in (dict(zip(grid, values, strict=True))
                           for values in itertools.product(*grid.values()))
             if exp._valid(arch, shape, task)]
    if not sizes:
        raise ValueError(f"no shape of the {arch} grid is valid on {task}")
    return min(sizes)


def no_shape_words(plan: pd.DataFrame, task: dict[str, int]) -> str:
    """The cells ``–`` of :func:`shape_counts`, as one Markdown sentence: for each architecture,
    the budgets of ``plan`` at which no shape of its grid lies within :data:`TOLERANCE`
    (:func:`exp.shapes_for_budget`), each with why: the budget lies more than the tolerance
    below the grid's smallest shape (:func:`smallest_shape`), or it falls between the sizes the
    grid offers; "every architecture has a shape at every budget" when there are none (ours)."""
    task = {k: task[k] for k in ("V", "n", "C")}
    budgets = sorted(int(b) for b in plan["budget"].unique())
    parts = []
    for arch in exp.ARCHITECTURES:
        none = [b for b in budgets if not exp.shapes_for_budget(arch, b, task, count=1)]
        if not none:
            continue
        smallest = smallest_shape(arch, task)
        below = [b for b in none if smallest > b * (1 + TOLERANCE)]
        between = [b for b in none if b not in below]
        why = []
        if below:
            why.append(f"{_budgets_words(below)}: its smallest shape has {smallest:,} "
                       "parameters, above such a budget")
        if between:
            why.append(f"{_budgets_words(between)}: the budget falls between the sizes its "
                       "grid offers")
        parts.append(f"{exp.SHORT[arch]} at " + "; at ".join(why))
    tol = f"{TOLERANCE * 100:g} %"
    if not parts:
        return f"Every architecture has a shape within {tol} of every budget."
    return f"No shape lies within {tol} of the budget for " + "; ".join(parts) + "."


def bits_text(value: float) -> str:
    """Bits per parameter as the chapter's sentences write them: two decimals, more where two
    would move the value across one bit (``0.9996`` is ``0.9996``, not ``1.00``); ``∞`` for an
    open end."""
    if math.isinf(value):
        return "∞"
    for digits in range(2, 7):
        text = f"{value:.{digits}f}"
        if (float(text) < 1) == (value < 1) and (float(text) > 1) == (value > 1):
            return text
    return f"{value:.6f}"


def one_bit_side(low: float, high: float) -> str:
    """Where a search bracket ``[low, high)`` in bits per parameter lies against one bit
    (ours): ``"below"`` when the whole bracket does (``high <= 1``: the true value is below
    ``high``), ``"above"`` when its lower end is one bit or more (the largest N fitted already
    stores that much), ``"straddles"`` otherwise (the search does not decide; an open bracket,
    ``high`` infinite, with ``low < 1`` included)."""
    if high <= 1:
        return "below"
    if low >= 1:
        return "above"
    return "straddles"


def one_bit_words(best: pd.DataFrame, C: int, brackets: pd.DataFrame | None = None) -> str:
    """How many best trained shapes of ``best`` (:func:`memnb.scorecard.compare.censored_best`)
    store less than one bit per parameter, the rate at which the construction of Kajitsuka &
    Sato is sized in Section 1 (ours), judged on the search bracket (the review's finding 1):
    the mean over seeds of ``[largest N fitted, smallest N failed)`` (``capacity`` and
    ``upper`` of ``best``), times ``log2 C / P``, classified by :func:`one_bit_side`: below one
    bit only when the whole bracket is, one bit or more when its lower end is, and not decided,
    each such shape named with its bracket, when it straddles 1. The verdict: "every one",
    "most" (more than half) or "fewer than half" below. With ``brackets``
    (:func:`memnb.scorecard.compare.capacity_brackets`), a second sentence does the same seed by
    seed for the runs of these shapes and names the runs whose largest N fitted is one bit or
    more."""
    for column in ("capacity", "upper", "parameters"):
        if column not in best:
            raise ValueError(f"best needs the column {column!r} of "
                             "memnb.scorecard.compare.censored_best (the search bracket)")
    total = len(best)
    if total == 0:
        return "No best trained shape to compare with one bit per parameter."
    per_bit = math.log2(C)

    def name(r: Any) -> str:
        shape = f" {r.shape}" if "shape" in best else ""
        arch = exp.SHORT.get(r.architecture, r.architecture)
        return f"{arch}{shape} at P = {int(r.parameters):,}"

    sides: dict[str, list[str]] = {"below": [], "above": [], "straddles": []}
    for r in best.itertuples():
        low = float(r.capacity) * per_bit / float(r.parameters)
        high = float(r.upper) * per_bit / float(r.parameters)
        side = one_bit_side(low, high)
        sides[side].append(f"{name(r)}, [{bits_text(low)}, {bits_text(high)})")
    less, more, undecided = (len(sides[k]) for k in ("below", "above", "straddles"))
    rule = ("Judged on its search bracket (the mean over seeds of [largest N fitted, smallest N "
            "failed), times log2 C / P), a shape stores less than one bit per parameter only when "
            "its whole bracket lies below 1, one bit or more when the bracket's lower end is at "
            "1 or above, and the search does not decide when the bracket straddles 1 (ours; one "
            "bit per parameter is the rate at which Section 1 sizes the construction of "
            "Kajitsuka & Sato, a reference size of ours). ")
    if less == total:
        words = (f"By that criterion every one of the {total:,} best trained shapes (one per "
                 "architecture and budget) stores less than one bit per parameter.")
    else:
        verdict = "most" if 2 * less > total else "fewer than half"
        words = (f"By that criterion {verdict} of the best trained shapes store less than one "
                 f"bit per parameter: {less:,} of the {total:,} (one per architecture and "
                 "budget); ")
        words += ("none stores one bit or more" if not more else
                  f"{more:,} {'stores' if more == 1 else 'store'} one bit or more ("
                  + "; ".join(sides["above"]) + ")")
        if undecided:
            words += (f"; at {undecided:,} the bracket straddles one bit, so the search does not "
                      "decide (brackets in bits per parameter): " + "; ".join(sides["straddles"]))
        words += "."
    if brackets is not None:
        words += " " + _one_bit_runs_words(best, brackets, per_bit)
    return rule + words


def _one_bit_runs_words(best: pd.DataFrame, brackets: pd.DataFrame, per_bit: float) -> str:
    """The seed-by-seed sentence of :func:`one_bit_words`: each run of ``best``'s shapes in
    ``brackets`` on its own bracket ``[capacity, upper)`` (:func:`one_bit_side`), with the runs
    whose largest N fitted is one bit or more named."""
    counts = {"below": 0, "above": 0, "straddles": 0}
    above = []
    runs = 0
    mean_below_seed_not = False  # a shape below one bit by its mean with a seed that is not
    for r in best.itertuples():
        mean_side = one_bit_side(float(r.capacity) * per_bit / float(r.parameters),
                                 float(r.upper) * per_bit / float(r.parameters))
        for run in _runs_of(brackets, r).itertuples():
            runs += 1
            low = float(run.capacity) * per_bit / float(run.parameters)
            high = float(run.upper) * per_bit / float(run.parameters)
            side = one_bit_side(low, high)
            counts[side] += 1
            mean_below_seed_not |= mean_side == "below" and side != "below"
            if side == "above":
                above.append(f"{exp.SHORT.get(run.architecture, run.architecture)} {run.shape} "
                             f"at P = {int(run.parameters):,}, seed {int(run.seed)}: "
                             f"{int(run.capacity):,} fitted, {bits_text(low)} bits")
    if runs == 0:
        return ""
    words = (f"Seed by seed, each run on its own bracket: of the {runs:,} runs of these shapes, "
             f"{counts['below']:,} lie wholly below one bit, {counts['straddles']:,} straddle "
             f"it and {counts['above']:,} store one bit or more")
    if above:
        words += " (the largest N fitted is already one bit per parameter or more: " + \
            "; ".join(above) + ")"
    return words + ("; a shape below one bit by its mean can thus have a seed that is not."
                    if mean_below_seed_not else ".")


def missing_shapes(best: pd.DataFrame, task: dict[str, int],
                   budgets: list[int] | None = None) -> list[tuple[str, int, bool]]:
    """The (architecture, budget) pairs at which an architecture of ``best`` (one that has a best
    shape at some budget) has none, over ``budgets`` (default: every budget of ``best``), in the
    order of :data:`exp.ARCHITECTURES` and of the budgets, each with whether the architecture's
    shape grid has a shape within :data:`TOLERANCE` of the budget on ``task``
    (:func:`exp.shapes_for_budget`): ``False`` means that no shape fits the budget, so none was
    trained; ``True`` that one fits but the table has no run of it."""
    budgets = sorted(int(b) for b in (best["budget"].unique() if budgets is None else budgets))
    task = {k: task[k] for k in ("V", "n", "C")}
    have = set(zip(best["architecture"], best["budget"].astype(int), strict=True))
    return [(arch, b, bool(exp.shapes_for_budget(arch, b, task, count=1)))
            for arch in exp.ARCHITECTURES if arch in set(best["architecture"])
            for b in budgets if (arch, b) not in have]


def _budgets_words(budgets: list[int]) -> str:
    """``P = 60``, ``P = 60 and 120``, ``P = 60, 120 and 240``."""
    return "P = " + prose.and_words([str(b) for b in budgets])


def missing_words(best: pd.DataFrame, task: dict[str, int]) -> str:
    """A caption's sentence naming, from :func:`missing_shapes`, the architectures that have no
    point at some budgets and why (no shape of their grid within :data:`TOLERANCE` of the
    budget, or no run in the table), or nothing when every architecture has a point at every
    budget."""
    found = missing_shapes(best, task)
    parts = []
    for fits, why in ((False, f"no shape of the grid lies within {TOLERANCE * 100:g} % of such "
                              "a budget, so none was trained (none in the table of shapes above; "
                              "the budget slider: \"no shape fits the budget\")"),
                      (True, "a shape fits but this table has no run of it")):
        named = [f"{exp.SHORT[arch]} at "
                 + _budgets_words([b for a, b, f in found if a == arch and f == fits])
                 for arch in dict.fromkeys(a for a, _, f in found if f == fits)]
        if named:
            parts.append(", ".join(named) + f": {why}")
    return (" No point: " + "; ".join(parts) + ".") if parts else ""


def fixed_inputs_words(best: pd.DataFrame, task: dict[str, int]) -> str:
    """A caption's sentence on what P counts: trainable weights only. The MHA reads fixed
    Gaussian token vectors (``V·d`` numbers, our choice) and parameter-free sinusoidal positions
    that its P leaves out, computed for the MHA's best shapes of ``best`` (their ``d``) with
    ``V`` from ``task``; the AoT's and the FFN-attn-FFN's embeddings are learned and counted."""
    from memnb.scorecard.compare import shape_params

    mha = best[best["architecture"] == "mha"]
    widths = [shape_params(s).get("d") for s in mha["shape"]]
    mha = mha[[w is not None for w in widths]]
    words = ("P counts trainable weights only: the MHA's fixed Gaussian token vectors "
             "(V·d numbers, our choice)")
    if len(mha):
        fixed = int(task["V"]) * np.array([int(w) for w in widths if w is not None])
        share = fixed / mha["parameters"].to_numpy(float)
        count = (f"{fixed[0]:,}" if (fixed == fixed[0]).all()
                 else f"{fixed.min():,} to {fixed.max():,}")
        low, high = f"{100 * share.min():.0f} %", f"{100 * share.max():.0f} %"
        words += (f", here V·d = {count} at its best shapes, "
                  + (low if low == high else f"{low} to {high}") + " of their P,")
    return (words + " and its parameter-free sinusoidal positions are not counted, whereas the "
            "AoT's and the FFN-attn-FFN's learned embeddings are.")


def anchor_reach_words(table: pd.DataFrame, C: int, profile: str) -> tuple[str, str]:
    """What the head-to-head figure's caption says of the capacity search's reach against the
    external anchors it draws (:func:`memnb.scorecard.compare.anchor_reach`, from the tries of
    ``table``, the ``compare.capacity`` run of ``profile``): for the caption's lead, at how many
    budgets a tried N passes the smaller anchor (by the margin the *External anchors* row asks)
    and that row's status (:func:`memnb.scorecard.compare.status_words`); for its details, the
    reach at each budget, in the row's words (:func:`memnb.scorecard.compare.reach_words`)."""
    from memnb.scorecard import compare as card

    reach = card.anchor_reach(table, C)
    beyond, budgets = int(reach["beyond"].sum()), len(reach)
    v = card.scaled(card.checked(card.anchors_verdict, table, C), profile)
    where = ("at no budget" if beyond == 0 else "at every budget" if beyond == budgets
             else f"at {beyond} of {budgets} budgets")
    so = (", so no point above it could have been found" if beyond == 0 else
          ", so elsewhere no point above it could have been found" if beyond < budgets else "")
    lead = (f"; the capacity search tried an N that passes the smaller anchor (by the margin the "
            f"*External anchors* row asks) {where}{so} (that row: **{card.status_words(v)}**)")
    details = f"Against the anchors, {card.reach_words(reach)}."
    return lead, details


def head_to_head_caption(best: pd.DataFrame, fixed: pd.DataFrame, profile: str, C: int, *,
                         task: dict[str, int] | None = None,
                         table: pd.DataFrame | None = None) -> str:
    """Caption of :func:`head_to_head_figure`, built by :func:`memnb.viz.with_details`: its lead
    says what is drawn and the verdict's status as :func:`memnb.scorecard.compare.status_words`
    prints it ("trend (not decided)" where only the budgets without a lead allow the trend);
    its details, folded below, the numbers behind them: the best-shape rule, the seeds, what P
    counts (:func:`fixed_inputs_words`), the verdict's summary (and why it is not decided),
    the anchors' values, the architectures with no point at some budgets
    (:func:`missing_words`), and the right panel's ``N`` per budget of ``fixed``
    (:func:`memnb.experiments.compare.accuracy_at_fixed_N`, over every shape and seed) with its
    chance line ``1/C``. ``task`` (``V, n``; ``C`` is ``C``) defaults to the task of
    ``profile``. With ``table`` (the run's tries), the lead also says whether the capacity
    search tried any N beyond the smaller anchor, with the *External anchors* row's status, and
    the details give the search's reach at each budget (:func:`anchor_reach_words`)."""
    from memnb.scorecard import compare as card
    from memnb.scorecard.criteria import cap_reason

    if task is None:
        task = {k: exp.get_params(profile)[k] for k in ("V", "n")}
    task = {**task, "C": C}
    seeds = int(best["seeds"].min())
    v = card.scaled(card.checked(card.ranking_from_best, best), profile)
    if v.status in ("not computable", "not run"):
        status = "no architecture memorized any training set entirely at any budget"
        verdict = ""
    else:
        capped = cap_reason(v.measured)
        why = ("; " + card.not_decided_words(v.values)
               if v.values.get("decided") is False else "")
        status = f"**{card.status_words(v)}** (the head-to-head row's criterion)"
        verdict = f"Verdict: {v.values['summary']}{why}{capped}. "
    anchors = ", ".join(f"{external.NAMES[k]} {float(v):g}"
                        for k, v in external.anchors().items())
    reach_lead, reach_details = (anchor_reach_words(table, C, profile) if table is not None
                                 else ("", ""))
    span = (card.capacity_brackets(table, C) if table is not None else None)
    grid = (" " + grid_words(span, best) + " Shaded bars: the search's bracket of each mean "
            "(from the largest N fitted to the next N tried, mean over seeds)."
            if span is not None and grid_words(span, best) else "")
    runs = ("every shape and seed trained at that budget (not only the best shape; from "
            f"{int(fixed['runs'].min())} to {int(fixed['runs'].max())} runs per point)"
            if "runs" in fixed and len(fixed) else "every shape and seed trained at that budget")
    lead = (f"**Figure (ours).** Left: bits per parameter at capacity (largest N fitted at 100 % "
            f"training accuracy, times log2 C, over P), best shape per architecture, mean ± std "
            f"over seeds, `{profile}` profile; dotted lines: the external anchors, which count "
            f"information differently (see text){reach_lead}. Right: training accuracy at one "
            "fixed N per budget, the N of the search's first round nearest one bit per "
            "parameter, mean ± std over every shape and seed trained at that budget; dashed "
            "line: chance, 1/C. The architectures are drawn slightly apart along P, in both "
            f"panels, so that equal values at one budget both show.{grid} Verdict (computed): "
            f"{status}.")
    details = (f"Best shape: {exp.BEST_SHAPE_RULE}; {seeds} seed(s); C = {C} classes, so log2 {C} "
               f"bits per label. {fixed_inputs_words(best, task)} The architectures are drawn "
               f"apart by a factor of at most {max(dodge(a) for a in exp.ARCHITECTURES):.2f}. "
               f"{verdict}The external anchors: {anchors} bits/parameter."
               + (f" {reach_details}" if reach_details else "")
               + _censored_words(best).replace(
                   "drawn at the smallest N tried", "drawn at the bits per parameter of the "
                   "smallest N tried")
               + _at_least_words(best)
               + missing_words(best, task)
               + " Right: the N of the search's first round nearest one bit per parameter "
               f"(P / log2 {C}): {fixed_N_words(fixed)}; mean ± std over {runs}. Dashed line: "
               f"chance, 1/C = 1/{C}, the accuracy of guessing each label uniformly at random; "
               "1 means that N fitted entirely.")
    return viz.with_details(lead, details)


#: How :func:`weight_bits_words` names a float format by its bits per weight.
_FLOAT_NAMES = {16: "float16", 32: "float32", 64: "float64"}


def weight_bits_words(constructions: pd.DataFrame) -> str:
    """At how many bits per parameter :func:`bounds_figure` draws its points against the total
    bits of the weights, computed: the trained capacities at :data:`TRAINED_WEIGHT_BITS`, each
    construction of ``constructions`` (:func:`exp.constructions_at_budgets`, the sizes built)
    at its ``bits`` over its ``parameters``: one number where that is the same whole number at
    every size built (named by its float format where it has one), else its exact count of
    bits, with the range per parameter."""
    def bits_name(bits: float, unit: str = "") -> str:
        name = _FLOAT_NAMES.get(int(bits))
        return f"{bits:g}{unit}" + (f" ({name})" if name else "")

    made = constructions[constructions["parameters"].notna() & constructions["bits"].notna()]
    fixed: dict[float, list[str]] = {}
    exact = []
    for name, part in made.groupby("construction", sort=False):
        per = (part["bits"] / part["parameters"]).to_numpy(float)
        label = construction_label(name)
        if np.all(per == per[0]) and per[0] == round(per[0]):
            fixed.setdefault(float(per[0]), []).append(label)
        else:
            exact.append(f"{label} at its exact count of bits ({per.min():.3g} to "
                         f"{per.max():.3g} per parameter)")
    parts = [f"the construction{'s' * (len(names) > 1)} {prose.and_words(names)} at "
             f"{bits_name(bits)}" for bits, names in fixed.items()] + exact
    return (f"Against the total bits, trained points are drawn at "
            f"{bits_name(TRAINED_WEIGHT_BITS, ' bits per parameter')}"
            + (f"; {'; '.join(parts)}" if parts else "") + ".")


def mahdavi_construction_width(task: dict[str, int]) -> int:
    """The width ``d`` of our reconstruction of Mahdavi et al.'s construction on ``task``:
    ``max(n + 1, C)`` (:func:`exp.constructions_at_budgets`; the theorem needs ``n < d`` and the
    read-out ``[I_C; 0]`` needs ``C ≤ d``), the smallest width of the shapes over which the
    chapter evaluates the guarantee (:data:`exp.GUARANTEE_SHAPES`), whose reasons are the
    same."""
    return int(exp.GUARANTEE_SHAPES["Mahdavi"]["d_min"][1](task))


def p_counts_words(constructions: pd.DataFrame, task: dict[str, int]) -> str:
    """A caption's sentences on what P counts in each guarantee (finding of the review): Dana et
    al.'s ``d(n + 2V + 4 d_h H)`` pays for the token embeddings, the positions and the
    unembedding; Mahdavi et al.'s ``2Hd(d_h + d_v) + d d_o`` for no input. On ``task``, at the
    width of Mahdavi et al.'s construction (:func:`mahdavi_construction_width`), the inputs
    that count leaves out would cost ``V d + n d`` numbers, given with their share of the
    construction's P at each size built in ``constructions``
    (:func:`exp.constructions_at_budgets`), and the Gaussian reals the construction is fed,
    ``N (n + 1) d`` (its contexts and queries)."""
    V, n = int(task["V"]), int(task["n"])
    d = mahdavi_construction_width(task)
    inputs = V * d + n * d
    text = ("What P counts differs between the guarantees: Dana et al.'s P = d(n + 2V + "
            "4 d_h H) pays for the token embeddings, the positions and the unembedding; Mahdavi "
            "et al.'s P = 2Hd(d_h + d_v) + d d_o pays for no input (its tokens arrive as vectors "
            f"in R^d). On this task those inputs would cost V·d + n·d = {V * d:,} + {n * d:,} = "
            f"{inputs:,} numbers at the construction's d = {d}")
    mha = constructions[constructions["construction"].str.startswith("mha")
                        & constructions["parameters"].notna()
                        & (constructions["note"].fillna("") == "" if "note" in constructions
                           else True)]
    if mha.empty:
        return text + "."
    mha = mha.sort_values("parameters")
    sizes = mha["parameters"].to_numpy(float)
    fed = mha["N"].to_numpy(float) * (n + 1) * d
    small, large = sizes[0], sizes[-1]
    share = (f"{100 * inputs / small:.0f} % of its P ({small:,.0f} parameters)"
             if small == large else
             f"{100 * inputs / small:.0f} % of its P at the smallest size built ({small:,.0f} "
             f"parameters) down to {100 * inputs / large:.0f} % at the largest ({large:,.0f})")
    reals = (f"{fed[0]:,.0f}" if fed.min() == fed.max()
             else f"{fed.min():,.0f} to {fed.max():,.0f}")
    return (text + f", {share}; and the construction is fed N(n + 1)d = {reals} Gaussian reals "
            "(its contexts and queries) at no cost.")


def every_dataset_words(best: pd.DataFrame) -> str:
    """A caption's sentence on what the statements and the trained capacities measure (finding
    of the review): the guarantees are for every dataset that meets their assumptions, and
    Kajitsuka & Sato's lower bound is for memorizing every such dataset (flagged [unverified],
    as the chapter's Thm 4.2 row flags the theorem's content); a trained capacity is
    a fit to one random dataset per seed (the seeds of ``best``); Dana et al. separate the
    worst case (their Cor. 1) from the expected case (their Cor. 2)."""
    seeds = sorted({int(v) for v in best["seeds"]}) if "seeds" in best and len(best) else []
    many = ("" if not seeds else
            f" ({prose.counted(seeds[0], 'seed')} here)" if len(seeds) == 1 else
            f" ({seeds[0]} to {seeds[-1]} seeds here)")
    return ("The guarantees hold for every dataset that meets their assumptions, and Kajitsuka "
            "& Sato's lower bound is about memorizing every such dataset [unverified]; a trained "
            f"capacity is a fit to one random dataset per seed{many}. Dana et al. separate the "
            "two cases themselves: their Cor. 1 is a worst-case statement, their Cor. 2 one in "
            "expectation over a uniform prior.")


def bounds_caption(theory: pd.DataFrame, constructions: pd.DataFrame, best: pd.DataFrame,
                   C: int, brackets: pd.DataFrame | None = None, *,
                   task: dict[str, int] | None = None) -> str:
    """Caption of :func:`bounds_figure`, built by :func:`memnb.viz.with_details`: its lead says
    what is drawn (the panels, the bits per parameter of each kind of point,
    :func:`weight_bits_words`, the shaded region, the line styles) and whether the
    constructions memorize what they were built for; its details, folded below, the numbers:
    where each statement sits against the trained capacity at the largest budget, the best
    means below a guarantee of their own architecture (:func:`below_guarantee_words`; with
    ``brackets``, :func:`memnb.scorecard.compare.capacity_brackets`, each seed read as the
    guarantee rows read it), the sizes not built, and the shape-only lines, ▽ and ▲ named. The
    lead also says what the error bars are, with ``brackets`` the resolution of the capacity
    search (:func:`grid_words`), what the statements and the trained capacities measure
    (:func:`every_dataset_words`) and, with ``task`` (``V, n``), which trained points are
    hollow as outside their theorem's scope (AoT: Dana et al.'s Thm 1; MHA: Mahdavi et al.'s;
    :func:`outside_scope_words`) and what P counts in
    each guarantee (:func:`p_counts_words`)."""
    top = int(best["budget"].max())
    trained = best[best["budget"] == top]
    cap = float(trained["capacity"].max())
    # a best capacity that is a lower bound (some seed fitted every N tried): "at least", and
    # each statement at most that multiple of it
    low = bool(_at_least(trained)[trained["capacity"] == cap].any())
    at = theory[(theory["parameters"] == top) & (theory["kind"] != "shape only")]
    parts = [f"{statement_label(r.statement).split(':')[0]} {r.N:.0f}" + (
        f" ({'at most ' if low else ''}{r.N / cap:.2g}× the best trained)" if cap > 0 else "")
        for r in at.itertuples() if not math.isnan(float(r.N))]
    unfit = [statement_label(r.statement).split(":")[0] for r in at.itertuples()
             if math.isnan(float(r.N))]
    if unfit:
        parts.append(f"{' and '.join(unfit)}: no shape fits")
    notes = constructions["note"] if "note" in constructions else pd.Series("", constructions.index)
    refusals = notes.fillna("").astype(bool)
    refused = constructions[refusals]
    # a size that was not built (its reason named below) is not a failure to memorize
    built = constructions[~refusals].groupby("construction")["memorized"].all()
    missing = "".join(f" At P = {r.budget} {r.construction.split()[0]} is not drawn: "
                      f"{r.note.removeprefix('not built: ')}." for r in refused.itertuples())
    grid = (" " + grid_words(brackets, best)
            if brackets is not None and grid_words(brackets, best) else "")
    outside = (outside_scope_words(best, task, "point", own="the sentence below this figure")
               if task else "")
    lead = (f"**Figure (ours).** Left: examples N against parameters P; right: against the "
            f"total bits of the weights. Trained points: the best shape per architecture and "
            f"budget, mean over seeds, error bars ± the standard deviation over seeds; open △: "
            f"the constructions built.{grid}{outside} "
            f"{weight_bits_words(constructions)} Constructions built and checked: "
            f"{int(built.sum())} of {len(built)} memorize every example at every size built. "
            f"Shaded: above the information ceiling on N, N log2 {C} <= total bits "
            f"({FLOOR_WORDS}; a counting bound): there, not every labelling of N examples can "
            "be fitted: weights of that many bits fit at most a 2^(bits − N log2 C) share of "
            "them. The three shape-only statements (constant 1) are told apart by their grey, "
            "dash pattern and marker; the earlier bound H(d_h - 1) + 1 has a dotted line with "
            "markers of its own, so that it shows where it overlaps another guarantee. "
            + every_dataset_words(best)
            + (" " + p_counts_words(constructions, {**task, "C": C}) if task else ""))
    details = (f"Best shape: {exp.BEST_SHAPE_RULE}. "
               f"At P = {top} the best trained capacity (the best shape's mean "
               f"over seeds) is {'at least ' if low else ''}{cap:.0f} examples; the statements "
               f"there: {'; '.join(parts)}.{below_guarantee_words(theory, best, brackets)}"
               f"{missing}" + _shape_only_words(theory) + _censored_words(best)
               + _at_least_words(best))
    return viz.with_details(lead, details)


def _shape_only_words(theory: pd.DataFrame) -> str:
    """Where a shape-only statement of ``theory`` (its constant set to 1) lies above the
    information ceiling on N at some budget, a sentence saying that this height means nothing:
    only
    the slope of such a line is comparable (empty when none does)."""
    floor = theory[theory["kind"] == CEILING_KIND].set_index("parameters")["N"]
    shapes = theory[theory["kind"] == "shape only"]
    above = []
    for statement, part in shapes.groupby("statement", sort=False):
        limit = floor.loc[part["parameters"]].to_numpy(float)
        over = int((part["N"].to_numpy(float) > limit).sum())
        if over:
            above.append(f"{statement.split(':')[0]} (at {over} of {len(part)} budgets)")
    if not above:
        return ""
    return (f" The shape-only {'line' if len(above) == 1 else 'lines'} of {prose.and_words(above)} "
            f"{'lies' if len(above) == 1 else 'lie'} above the information ceiling on N, in "
            "the shaded region: "
            + ("with its constant set to 1, such a line's height means nothing, only its "
               "slope" if len(above) == 1 else "with their constants set to 1, such lines' "
               "heights mean nothing, only their slopes")
            + ", so this says nothing about the ceiling or about the statements.")


#: Which trained architecture each drawn guarantee is about (keys: how its statement starts).
GUARANTEE_ARCHITECTURE: dict[str, str] = {"Dana": "aot", "earlier": "aot", "Mahdavi": "mha"}


def below_guarantee(theory: pd.DataFrame, best: pd.DataFrame,
                    brackets: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Where a best trained shape of ``best`` lies below the guarantee of its own architecture
    (:data:`GUARANTEE_ARCHITECTURE`) drawn at its budget in ``theory``
    (:func:`exp.theory_curves` at the budgets): per such (architecture, budget, guarantee), the
    trained mean (``capacity``), whether it is a lower bound (``at_least``), the guarantee
    (``guarantee``), the statement and the shape; also, as ``unresolved`` True, a best shape
    none of whose seeds fitted a tried N (its capacity below ``below``) whose guarantee lies
    under that N, so that the drawn ▽ cannot say which is larger. A guarantee is about the best
    weights of the theorem's best shape within the budget, not of the shape trained.

    With ``brackets`` (:func:`memnb.scorecard.compare.capacity_brackets` of the run), a mean
    below the guarantee also gets ``seeds``: each seed's reading as the scorecard's guarantee
    rows judge it (holds: capacity at least the guarantee; falls short: an N at or below it tried
    and not fitted; not tested: the guarantee inside the search bracket ``[capacity, upper)``),
    and ``same_shape``: whether the shape trained is one the guarantee is reached by (its own
    guarantee equals the drawn one)."""
    found = []
    censored, low = _censored(best), _at_least(best)
    guarantees = theory[theory["kind"] == "guarantee"]
    for r in best.itertuples():
        for statement, part in guarantees.groupby("statement", sort=False):
            key = next((k for k in GUARANTEE_ARCHITECTURE if statement.startswith(k)), None)
            here = part[part["parameters"] == r.budget]["N"]
            if key is None or GUARANTEE_ARCHITECTURE[key] != r.architecture or here.empty:
                continue
            guarantee = float(here.iloc[0])
            if math.isnan(guarantee):
                continue
            row = {"architecture": r.architecture, "budget": int(r.budget), "shape": r.shape,
                   "statement": statement_label(statement).split(":")[0],
                   "guarantee": guarantee,
                   "capacity": float(r.capacity), "at_least": bool(low[r.Index]),
                   "unresolved": False, "below": math.nan}
            if censored[r.Index]:
                below = float(r.below)
                if guarantee < below:  # the capacity lies below N = below: no order known
                    found.append({**row, "unresolved": True, "below": below})
                else:  # the capacity lies below N = below <= the guarantee
                    found.append({**row, "below": below})
            elif float(r.capacity) < guarantee:
                found.append({**row, **_seed_readings(brackets, r, guarantee)})
    return found


def _seed_readings(brackets: pd.DataFrame | None, best: Any, guarantee: float
                   ) -> dict[str, Any]:
    """``seeds`` (per seed of the best shape ``best``: seed, capacity, upper, and ``reading``,
    :func:`memnb.scorecard.compare.guarantee_reading`, as the guarantee rows read it) and
    ``same_shape``; empty without ``brackets``."""
    if brackets is None:
        return {}
    from memnb.scorecard.compare import guarantee_reading, shape_params

    part = brackets[(brackets["architecture"] == best.architecture)
                    & (brackets["budget"] == best.budget) & (brackets["shape"] == best.shape)]
    seeds = [{"seed": int(r.seed), "capacity": float(r.capacity), "upper": float(r.upper),
              "reading": guarantee_reading(r.capacity, r.upper, guarantee)}
             for r in part.sort_values("seed").itertuples()]
    s = shape_params(best.shape)
    own = (bounds.dana_capacity(s["H"], s["d_h"], s["d"]) if best.architecture == "aot" else
           math.nan)
    return {"seeds": seeds, "same_shape": own == guarantee}


def _seed_words(seeds: list[dict[str, Any]], guarantee: float) -> str:
    """Each seed's reading of :func:`_seed_readings` in words, e.g. ``seed 0: 60, meets it;
    seed 1: in [30, 60), which contains it, not tested``."""
    words = []
    for s in seeds:
        if s["reading"] == "holds":
            words.append(f"seed {s['seed']}: {count_text(s['capacity'])}, meets it")
        elif s["reading"] == "falls short":
            words.append(f"seed {s['seed']}: {count_text(s['capacity'])}, N = "
                         f"{count_text(s['upper'])} at or below it tried and not fitted (falls "
                         "short)")
        else:
            upper = "∞" if math.isinf(s["upper"]) else count_text(s["upper"])
            words.append(f"seed {s['seed']}: in [{count_text(s['capacity'])}, {upper}), which "
                         "contains it, not tested")
    return "; ".join(words)


def below_guarantee_words(theory: pd.DataFrame, best: pd.DataFrame,
                          brackets: pd.DataFrame | None = None) -> str:
    """A caption's sentence (starting with a space) naming, from :func:`below_guarantee`, the
    budgets at which a best trained mean lies below the guarantee of its own architecture drawn
    there, and those where the drawn ▽ cannot be ordered against it, or saying that none lies
    below. With ``brackets``, each such mean's seeds are read against the guarantee as the
    scorecard's guarantee rows read them (a mean of capacities each known only within its
    search bracket can lie below a guarantee that no seed falls short of)."""
    found = below_guarantee(theory, best, brackets)

    def one(f: dict[str, Any]) -> str:
        text = (f"{exp.SHORT[f['architecture']]} at P = {f['budget']} ({f['shape']}"
                + (", the theorem's own shape" if f.get("same_shape") else "") + "): "
                + (f"below N = {f['below']:g}" if not math.isnan(f["below"]) else
                   f"{'at least ' if f['at_least'] else ''}{count_text(f['capacity'])}")
                + f" < {f['statement']} {count_text(f['guarantee'])}")
        if f.get("seeds"):
            short = any(s["reading"] == "falls short" for s in f["seeds"])
            text += (f" (per seed, as the guarantee rows read it: "
                     f"{_seed_words(f['seeds'], f['guarantee'])}"
                     + ("" if short else "; no seed falls short of it") + ")")
        return text

    below = [one(f) for f in found if not f["unresolved"]]
    open_ = [f"{exp.SHORT[f['architecture']]} at P = {f['budget']}: below N = {f['below']:g}, "
             f"{f['statement']} {count_text(f['guarantee'])}" for f in found if f["unresolved"]]
    other = any(not f.get("same_shape") for f in found if not f["unresolved"])
    text = (" A best trained mean below a drawn guarantee of its own architecture (the mean of "
            "the largest N each seed fitted"
            + ("; the guarantee is for the best weights of the theorem's best shape within the "
               "budget, the point for the shape trained" if other else "")
            + "): " + "; ".join(below) + "." if below else
            " No best trained mean lies below a drawn guarantee of its own architecture.")
    if open_:
        text += (" Not ordered (no tried N fitted, and the guarantee lies below the smallest N "
                 "tried): " + "; ".join(open_) + ".")
    return text


def _bracket_words(capacity: float, upper: float) -> str:
    """A run's search bracket in words: ``below 45`` (no tried N fitted), ``at least 30`` (every
    N tried fitted) or ``in [30, 60)``."""
    if capacity == 0:
        return f"below {count_text(upper)}"
    if math.isinf(upper):
        return f"at least {count_text(capacity)}"
    return f"in [{count_text(capacity)}, {count_text(upper)})"


def own_shape_words(table: pd.DataFrame, theory: pd.DataFrame, best: pd.DataFrame,
                    task: dict[str, int], steps: int | None = None) -> str:
    """Sentences on what training reached at Dana et al.'s own shape (ours): per budget of
    ``theory`` (:func:`exp.theory_curves`) at which the guarantee is drawn, how many trained AoT
    runs of a shape whose ``H d_h + d`` is that guarantee, with ``d ≤ V``
    (:func:`memnb.scorecard.compare.own_shape_readings` on ``table``, step cap ``steps``), meet
    it, and the bracket and reading of each that does not; the budgets where no trained shape
    is the theorem's own, in a sentence of their own; then the budgets at which the best
    trained AoT of ``best`` has ``d > V``, outside what the proof covers (our reading: the gap
    in the proof that the Dana chapter finds), so that its capacity, drawn beside the
    guarantee, does not test it."""
    from memnb.scorecard.compare import own_shape_readings, shape_params

    V = int(task["V"])
    dana = theory[theory["statement"].str.startswith("Dana")]
    drawn = {int(p): float(n) for p, n in zip(dana["parameters"], dana["N"], strict=True)
             if not math.isnan(float(n))}
    if not drawn:
        return ("Dana et al.'s guarantee fits no budget drawn, so no trained shape is the "
                "theorem's own.")
    readings = own_shape_readings(table, int(task["C"]), drawn, V, steps=steps)
    parts, missing = [], []
    for budget, guarantee in sorted(drawn.items()):
        here = readings[readings["budget"] == budget]
        if here.empty:
            missing.append(f"P = {budget} (guarantee {count_text(guarantee)})")
            continue
        held = here["reading"] == "holds"
        others = [f"{shape}: " + "; ".join(
            f"seed {r.seed} {_bracket_words(r.capacity, r.upper)}, "
            + ("not tested" if r.reading == "not tested" else
               f"not fitted within the {steps:,}-step cap (a shortfall this measurement "
               "cannot settle: more steps might fit it)"
               if r.reading == "not fitted within the step cap" else "falls short")
            for r in part.itertuples()) for shape, part in here[~held].groupby("shape")]
        parts.append(f"{int(held.sum())} of {prose.counted(len(here), 'run')} at P = {budget} "
                     f"(guarantee {count_text(guarantee)}" + "".join(f"; {o}" for o in others)
                     + ")")
    text = ("Dana et al.'s guarantee at the theorem's own shape (ours: a trained AoT whose "
            f"H d_h + d is the guarantee drawn at its budget, with d ≤ V = {V}; each run read "
            "as the *Dana et al. Thm 1 vs training* row reads it)")
    none = "no trained shape is the theorem's own at " + prose.and_words(missing) if missing else ""
    if parts:
        text += " is met by " + prose.and_words(parts) + "."
        if none:
            text += f" {none[0].upper()}{none[1:]}."
    else:
        text += f": {none}."
    aot = best[best["architecture"] == "aot"].sort_values("budget")
    wide = [r for r in aot.itertuples() if shape_params(r.shape).get("d", 0) > V]
    if wide:
        named = prose.and_words([f"P = {r.budget} ({r.shape}: {count_text(r.capacity)})"
                            for r in wide])
        text += (f" The best trained AoT has d > V = {V} at {named}: fewer distinct last tokens "
                 "than the d that the theorem's proof needs, so it lies outside what the proof "
                 "covers (ours: the gap in the proof that the Dana chapter finds) and its "
                 "capacity there, drawn beside the guarantee, does not test it.")
    return text


def _at_least_words(best: pd.DataFrame) -> str:
    """A caption's sentence on the best shapes some of whose seeds fitted every N the search
    tried (▲: the capacity censored from above, the mean a lower bound), naming them, or
    nothing when there are none."""
    low = best[_at_least(best)]
    if low.empty:
        return ""
    named = "; ".join(f"{exp.SHORT[r.architecture]} at P = {r.budget}: at least "
                      f"{count_text(r.capacity)} ({int(r.censored_seeds)} of {r.seeds} seeds)"
                      for r in low.sort_values(["architecture", "budget"]).itertuples())
    return (" Filled ▲: a best shape some of whose seeds fitted every N the search tried (up to "
            "its largest N, N_max, or its last round), so that no failed N bounds their capacity: "
            "the mean drawn is a lower bound, the capacity at least that (censored from above): "
            f"{named}.")


def _censored_words(best: pd.DataFrame) -> str:
    """A caption's sentence on the best shapes none of whose seeds fitted a tried N (open ▽
    at the smallest N tried), naming them, or nothing when there are none."""
    censored = best[_censored(best)]
    if censored.empty:
        return ""
    named = "; ".join(f"{exp.SHORT[r.architecture]} at P = {r.budget}: below N = {r.below:g}"
                      for r in censored.sort_values(["architecture", "budget"]).itertuples())
    return (" Open ▽: a best shape none of whose seeds fitted any N tried, drawn at the smallest "
            f"N tried, which its capacity lies below (not resolved, not a measured 0): {named}.")


def search_reach(params: dict[str, Any], budget: int) -> int:
    """The largest ``N`` the capacity search of ``params`` (a profile of ``compare.capacity``)
    can try at ``budget``: the search itself (:func:`exp.search_capacity`, from round one's
    grid :func:`exp.round_one_grid`, each later round by :func:`exp.next_round`) run with a
    model that fits every ``N``, so that each round goes as far up as it can, to the ceiling
    ``N_max`` at most."""
    first = exp.round_one_grid(budget, params["C"], params["bits_grid"], params["N_max"])
    _, tried = exp.search_capacity(lambda ns: [True] * len(ns), first, rounds=params["rounds"],
                                   refine=params["refine"], N_max=params["N_max"])
    return max(tried)


def task_markdown(profile: str) -> str:
    """Which task each profile of ``compare.capacity`` trains on, and why the ``full`` one is
    larger, computed from the profiles (:func:`exp.get_params`): per profile ``V``, ``n``,
    ``C``, its ``V^n`` distinct sequences and the search's largest N, ``N_max`` in bits per
    parameter at its largest budget; then, at the ``full`` profile's largest budget ``P``, the
    information ceiling on N, ``32 P / log2 C`` (beyond which float32 weights cannot fit every
    labelling of ``N`` examples, ours)
    against the sequences of the smaller tasks: a task with fewer sequences than that would
    clip every larger ``N`` and cap the measured capacity, so the ``full`` task holds at least
    that many and its largest N, ``N_max``, lies at the information ceiling on N. ``profile`` is
    the one this page runs."""
    from memnb.bounds import information_floor_examples
    from memnb.profiles import PROFILES

    params = {name: exp.get_params(name) for name in PROFILES}
    lines = []
    for name, p in params.items():
        top = max(p["budgets"])
        mark = " (this page)" if name == profile else ""
        per_bit = math.log2(p["C"]) / top
        lines.append(f"- `{name}`{mark}: V = {p['V']}, n = {p['n']}, C = {p['C']}, so "
                     f"{p['V'] ** p['n']:,} distinct sequences; the search's largest N is "
                     f"N_max = {p['N_max']:,} and at its largest budget P = {top:,} it can try N "
                     f"up to {search_reach(p, top):,} "
                     f"({search_reach(p, top) * per_bit:.3g} bits per parameter).")
    full = params["full"]
    top, C = max(full["budgets"]), full["C"]
    floor = information_floor_examples(32 * top, C)
    small = {(p["V"], p["n"]): p["V"] ** p["n"] for name, p in params.items()
             if p["V"] ** p["n"] < floor}
    why = ""
    if small:
        seqs = max(small.values())
        why = (f" A task of {seqs:,} sequences (V = {'/'.join(str(v) for v, _ in small)}, "
               f"n = {'/'.join(str(n) for _, n in small)}, above) would clip every N beyond "
               f"{seqs:,} there, so no capacity could exceed {seqs * math.log2(C) / top:.3g} "
               "bits per parameter at that budget: the task, not the model, would set it.")
    return ("Task of each profile (computed from the profiles; ours):\n\n" + "\n".join(lines)
            + f"\n\nThe `full` task is larger because its budgets and search reach further: at "
            f"its largest budget, P = {top:,}, the information ceiling on N lies at "
            f"N = 32 P / log2 C = {floor:,.0f} examples (ours, for float32 weights): "
            f"{ceiling_says()}, so float32 weights fit a random one with probability at most "
            "that share (the Kajitsuka & Sato chapter reads the same bound as a floor on the "
            "bits: total bits ≥ N log2 C)." + why
            + f" The `full` task has {full['V'] ** full['n']:,} sequences and the search's "
            f"largest N, N_max = {full['N_max']:,}, lies at the information ceiling on N, so the "
            "task limits no capacity below it. A capacity at which every N tried fitted (the "
            "search's largest N, N_max, or its last round reached) is a lower bound, shown as ≥ "
            "(▲ in the figures).")


class _Recorded(Exception):
    """Raised by :func:`training_configs`'s stand-in for the training loop, carrying the
    configuration it was handed."""


def training_configs(params: dict[str, Any]) -> dict[str, Any]:
    """The :class:`memnb.train.TrainConfig` with which ``compare.capacity`` under ``params``
    (:func:`exp.get_params`) trains each architecture (ours; the review's finding 3): read
    from the experiment's own code by calling :func:`exp.train_group` on one small point per
    architecture (its first shape at the profile's budgets, ``N = 2``) with the shared
    training loop replaced by a stand-in that records the configuration and trains nothing.
    Architectures without a shape at any budget are left out."""
    from unittest import mock

    task = {k: params[k] for k in ("V", "n", "C")}

    def record(members: Any, inputs: Any, targets: Any, config: Any, **_: Any) -> None:
        raise _Recorded(config)

    configs: dict[str, Any] = {}
    for arch in exp.ARCHITECTURES:
        for budget in params["budgets"]:
            shapes = exp.shapes_for_budget(arch, budget, task, count=1)
            if not shapes:
                continue
            point = {**task, "N_max": 8, "steps": params["steps"],
                     "eval_every": params["eval_every"], "architecture": arch,
                     "budget": budget, "shape": shapes[0], "seed": 0, "N": 2, "round": 0}
            with mock.patch.object(exp, "train_members", record):
                try:
                    exp.train_group([point], progress=False)
                except _Recorded as got:
                    configs[arch] = got.args[0]
            break
    return configs


def _rate_text(lr: float) -> str:
    return f"{lr:g}"


def recipe_markdown(profile: str) -> str:
    """The training recipe of ``compare.capacity`` under ``profile``, as the chapter prints it
    under the task (ours; the review's finding 3): the learning rate of each architecture
    (:data:`exp.LR`, as :func:`training_configs` reads it from the configuration the experiment
    hands to the training loop), the optimiser, batch, warm-up, schedule and step cap; and
    whether the rates vary: "ours, one per architecture, the same in every profile" only when
    the experiment holds one rate per architecture and no profile sets a rate (the experiment
    searches over none; whether they were chosen by hand before is not recorded, so not said),
    else that the profiles set rates of their own."""
    import dataclasses

    from memnb.profiles import PROFILES

    params = exp.get_params(profile)
    configs = training_configs(params)
    if not configs:
        raise ValueError(f"no architecture has a shape at the budgets of profile {profile!r}")
    shared = {dataclasses.replace(c, lr=1.0) for c in configs.values()}
    if len(shared) != 1:
        raise ValueError("the architectures' training configurations differ beyond the learning "
                         "rate; recipe_markdown states one recipe with one rate per architecture")
    config = next(iter(configs.values()))
    rates = prose.and_words([f"{exp.SHORT[a]} {_rate_text(c.lr)}" for a, c in configs.items()])
    optimizer = {"adam": "Adam", "adamw": "AdamW"}.get(config.optimizer, config.optimizer)
    decay = ("no weight decay" if config.weight_decay == 0
             else f"weight decay {config.weight_decay:g}")
    batch = ("full batch" if config.batch_size is None
             else f"batches of {config.batch_size:,}")
    warmup = ("no warm-up" if config.warmup_steps == 0
              else f"a linear warm-up over {config.warmup_steps:,} steps")
    if config.schedule == "constant":
        schedule = f"a constant rate over a cap of {config.steps:,} steps"
    else:
        schedule = (f"{config.schedule} decay from the rate to {config.final_lr_factor:.0%} of it "
                    f"at the cap of {config.steps:,} steps").replace("%", " %")
    stop = (f"; training accuracy is checked every {config.eval_every:,} steps and a try stops at "
            "the first check at 100 %" if config.early_stop and config.loss == "ce" else
            "; no try stops before the cap")
    rate_keys = sorted({k for name in PROFILES for k in exp.get_params(name)
                        if "lr" in k.lower() or "learning" in k.lower()})
    if rate_keys:
        tuned = (f"The profiles set rates of their own ({', '.join(rate_keys)}), so the rates "
                 "above are this profile's.")
    else:
        tuned = ("The rates are ours, one per architecture (`memnb.experiments.compare.LR`), "
                 "the same in every profile: no profile sets a rate and the experiment searches "
                 "over none, so every capacity below is measured at these rates.")
    return (f"Training recipe (`{profile}` profile; read from the configuration the experiment "
            "hands to the shared training loop, ours): learning rate "
            f"{rates}; {optimizer} (β = ({config.betas[0]:g}, {config.betas[1]:g}), {decay}), "
            f"{batch}, {warmup}, {schedule}{stop}. {tuned}")


def recipe_limits_words(table: pd.DataFrame, params: dict[str, Any], C: int) -> str:
    """The point of "What this chapter does not show" on the training recipe (ours; the
    review's finding 3): the head-to-head ranking depends on the learning rates and the step
    cap, with how many tries of ``table`` ended at the cap
    (:func:`memnb.scorecard.compare.step_cap_counts`): among the tries that failed, and among
    those that bound a capacity from above (all runs, and the best shapes' runs)."""
    from memnb.scorecard.compare import censored_best, step_cap_counts

    steps = int(params["steps"])
    lead = ("The head-to-head ranking depends on the learning rates and the step cap listed "
            "under the task in Section 2: they set how far each architecture "
            "gets within its steps")
    best = censored_best(table, C)
    counts = step_cap_counts(table, steps, C, best)
    if counts is None:
        return (lead + f"; this table does not record where each try stopped, so how many "
                f"ended at the {steps:,}-step cap is not known. This chapter does not show that "
                "the ranking holds at other rates or with more steps.")

    def share(part: int, whole: int) -> str:
        return f"every one of the {whole:,}" if part == whole else f"{part:,} of the {whole:,}"

    words = (f"; {share(counts['failed_at_cap'], counts['failed'])} tries that did not fit "
             f"their training set stopped at the {steps:,}-step cap ({counts['at_cap']:,} of "
             f"the {counts['tries']:,} tries ended there), and so did "
             f"{share(counts['bounding_at_cap'], counts['bounding'])} failed tries that bound "
             "a capacity from above")
    if "best_bounding" in counts:
        best_at, best_all = counts["best_bounding_at_cap"], counts["best_bounding"]
        words += (f" (among them {'all' if best_at == best_all else f'{best_at:,} of the'} "
                  f"{best_all:,} that bound the best shapes' capacities)")
    capped = counts["bounding_at_cap"] > 0
    return (lead + words + ". " + (
        "So the ranking is of what each architecture fits at its rate within that cap, not of "
        "what it can hold: " if capped else "") + "this chapter does not show that the ranking "
        "holds at other rates or with more steps.")
