"""Figures, tables and captions of the Mahdavi, Liao & Thrampoulidis chapter (ICLR 2024).

Each figure function takes what :func:`memnb.results.fresh_and_cached` returns (our table under
the chapter's profile and, when committed, the full-scale table), draws it, and returns the caption
(:func:`memnb.viz.caption`): numbers computed from the tables and the verdict of the scorecard row
of the same paper item (:mod:`memnb.scorecard.mahdavi`), so a caption never says more than the
data. Published values come from :mod:`memnb.papers.mahdavi`.

The dashed line in the training figures is Theorem 1's *guarantee* ``H(min(n, d_h) - 1) + 1``: a
lower bound on what some weights memorize (exact real-valued labels, worst-case data under
Assumptions 1-2), not a prediction of what training reaches. It bounds the official model's
classification too, although its ``d_v = 1 < d_o = C``: through the scalar problem of the class
index and the rank-one read-out with bias ``logit_c = 2 c s - c^2`` (a reduction of ours, stated in
the chapter before Fig. 2a).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from memnb import viz
from memnb.constructions.mha import REL_TOL as CONSTRUCTION_REL_TOL
from memnb.constructions.mha import Construction
from memnb.experiments.mahdavi import SATURATION_SEARCH
from memnb.papers import mahdavi as paper
from memnb.prose import counted, markdown_table
from memnb.provenance import device_words
from memnb.scorecard import criteria
from memnb.scorecard import mahdavi as sc
from memnb.scorecard.core import Row, load_items, status_words
from memnb.scorecard.render import source_profile

_MEM = "examples memorized (accuracy × T)"
#: Fig. 5's y-axis.
_MSE = "training MSE (best checkpoint)"
#: What Fig. 3's panels plot on their y-axes (the left panels' and the right panels' labels).
_FIG3_Y = ("training accuracy against the tried T (left) and the fraction of examples with each "
           "number of saturated heads, mean over seeds (right)")
_GUARANTEE = "Theorem 1 guarantee H(min(n, d_h)−1)+1 (lower bound) [reconstruction]"
#: Where Theorem 1's count comes from, said once, at its first use in the figures (Fig. 2a).
GUARANTEE_SOURCE = ("Theorem 1's count H(min(n, d_h)−1)+1, drawn as the dashed guarantee line, "
                    "is *[reconstruction; Dana et al. (Sec. 7) state the same form]*: the "
                    "paper's formula is stripped from our text, and Dana et al. state Mahdavi et "
                    "al.'s limit as T0 ≤ H(min(Q, d_h)−1)+1, with Q the rank of the query "
                    "vectors.")


def paper_counterpart(figure: str, ours: str) -> str:
    """The paper counterpart of the synthetic figure ``figure`` (``"Fig. 2a"`` ... ``"Fig. 5"``)
    as its caption names it: why none of the paper's values is drawn
    (:data:`memnb.papers.mahdavi.CURVES_NOT_PUBLISHED`) and what the paper plots on its y-axis
    (:data:`memnb.papers.mahdavi.FIG_Y`, with its source) beside what ours plots (``ours``)."""
    y = paper.FIG_Y[figure]
    return (f"Mahdavi et al. {figure}; the paper's values are not drawn: "
            f"{paper.CURVES_NOT_PUBLISHED}. "
            f"The paper plots {y.value} ({y.source}); we plot {ours}")


# --- verdicts --------------------------------------------------------------------------------

def scorecard_row(number: str, profile: str) -> Row:
    """The scorecard row of item ``number`` as the chapter's closing table shows it."""
    from memnb.scorecard.core import ResultSource

    items = {it.item: it for it in load_items(["mahdavi"])}
    return items[number].evaluate(ResultSource(source_profile(profile)))


def verdict_sentence(number: str, profile: str) -> str:
    """"Verdict (scorecard, Fig. 2a): trend: ..." for a caption or a Markdown cell."""
    return _verdict_words(number, scorecard_row(number, profile))


def _verdict_words(number: str, row: Row) -> str:
    """"Verdict (scorecard, Fig. 2a): **trend**: <measured>." for the row of ``number``."""
    return f"{_verdict_head(number, row)}: {row.measured}."


def _verdict_head(number: str, row: Row) -> str:
    """"Verdict (scorecard, Fig. 2a): **trend**" for the row of ``number``: its status alone,
    which a folded caption's lead ends with (:func:`folded`)."""
    return f"Verdict (scorecard, {number}): **{status_words(row)}**"


def folded(lead: str, details: str, number: str, profile: str) -> str:
    """A caption whose lead is ``lead`` and the status of the scorecard row of ``number``, then,
    for a ``trend``, why it is not reproduced (:func:`trend_reason`), with ``details`` and the
    whole verdict (:func:`verdict_sentence`) folded below it (:func:`memnb.viz.with_details`)."""
    row = scorecard_row(number, profile)
    why = trend_reason(number, profile) if row.status == "trend" else ""
    return viz.with_details(f"{lead} {_verdict_head(number, row)}." + (f" {why}" if why else ""),
                            f"{details.strip()} {_verdict_words(number, row)}")


def trend_reason(number: str, profile: str) -> str:
    """Why the scorecard row of ``number`` is a ``trend`` and not ``reproduced``, for a
    caption's visible lead: :func:`memnb.scorecard.mahdavi.trend_reason` on the results the
    row reads (:func:`scorecard_row`); empty for a row it does not explain
    (:data:`memnb.scorecard.mahdavi.TREND_EXPLAINED`), one that is not a trend, or one not
    run."""
    from memnb.scorecard.core import NotComputable, NotRun, ResultSource

    if number not in sc.TREND_EXPLAINED:
        return ""
    try:
        return sc.trend_reason(number, ResultSource(source_profile(profile)))
    except (NotRun, NotComputable):
        return ""


def verdicts_markdown(numbers: list[str], profile: str,
                      said_above: dict[str, str] | None = None) -> str:
    """One Markdown paragraph per item: its claim and its scorecard verdict. An item of
    ``said_above`` (item → where its evidence is, e.g. "the DINOv2 paragraphs above") shows its
    status alone, with the reason of a cap when its measured text ends with one
    (:func:`memnb.scorecard.criteria.cap_reason`), and points to that text, so that a page does
    not print the same evidence twice; the scorecard at the end of the chapter gives the row in
    full."""
    said_above = said_above or {}
    rows = [scorecard_row(n, profile) for n in numbers]

    def evidence(r: Row) -> str:
        if r.item not in said_above:
            return f": {r.measured}."
        return (f"{criteria.cap_reason(r.measured)}. Its evidence is {said_above[r.item]}; the "
                "scorecard at the end of the chapter gives the row in full.")

    return "\n\n".join(f"**{r.item}**{' *(ours)*' if r.ours else ''} ({r.claim}). Verdict: "
                       f"**{status_words(r)}**{evidence(r)}" for r in rows)


def verdict_run(name: str, profile: str) -> str | None:
    """Which run of experiment ``name`` the scorecard verdict reads when the chapter is built
    under ``profile``: "this build's `quick` run", "the committed full-scale run", ... (None
    when there is none)."""
    from memnb.scorecard.core import NotRun, ResultSource

    try:
        used = ResultSource(source_profile(profile)).used_profile(name)
    except NotRun:
        return None
    if used == profile:
        return f"this build's `{used}` run"
    return "the committed full-scale run" if used == "full" else f"the `{used}` run"


def verdict_table(name: str, profile: str) -> pd.DataFrame | None:
    """The table of experiment ``name`` that the scorecard verdict reads when the chapter is
    built under ``profile`` (the run :func:`verdict_run` names); None when there is none."""
    from memnb.scorecard.core import NotRun, ResultSource

    try:
        return ResultSource(source_profile(profile)).table(name)
    except NotRun:
        return None


# --- helpers ---------------------------------------------------------------------------------

def _legend_below(fig: plt.Figure, axes: Any, ncol: int = 2) -> None:
    handles, labels = [], []
    for ax in np.atleast_1d(axes).flat:
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in labels:
                handles.append(h)
                labels.append(label)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=7.5)


def _training_runs(result: Any, profile: str) -> list[tuple[str, pd.DataFrame, bool]]:
    """The runs a training figure draws, each in its own panel (the paper's sizes dwarf a quick
    run's on shared axes): the committed full-scale run first when there is one, then this
    build's run; each as ``(label, table, is_full)``."""
    runs = [(f"this build's `{profile}` run", result.fresh, profile == "full")]
    if result.cached is not None and len(result.cached):
        runs.insert(0, ("the committed full-scale run", result.cached, True))
    return runs


def partial_state(result: Any) -> str | None:
    """How much of its grid the committed full-scale run of ``result`` holds when it is partial,
    from its provenance (:func:`memnb.provenance.points_ran`, the count that
    :func:`memnb.provenance.partial_summary` states): ``"partial: 88 of 160 points ran"``. ``None``
    when there is no committed run, or when it is complete (read from the provenance
    :func:`memnb.results.fresh_and_cached` kept with it)."""
    from memnb.provenance import points_ran

    provenance = getattr(result, "cached_provenance", None)
    if getattr(result, "cached", None) is None or not provenance or provenance.get(
            "complete", True):
        return None
    done, total = points_ran(provenance)
    return f"partial: {done} of {total} points ran"


def seeds_by_size(table: pd.DataFrame) -> str:
    """The number of seeds at each dataset size ``T`` of ``table``, in words, when it differs
    between sizes (a partial run may hold fewer seeds at some): ``"3 seeds at T = 10000, 20000,
    30000 and 2 at T = 40000"``; empty when every size has the same number (or there is no
    ``seed`` or ``T`` column)."""
    if not {"seed", "T"} <= set(table.columns):
        return ""
    counts = table.groupby("T")["seed"].nunique().sort_index()
    if counts.nunique() < 2:
        return ""
    groups = [(int(k), [str(int(t)) for t in counts.index[counts == k]])
              for k in sorted(counts.unique(), reverse=True)]
    parts = [f"{k} at T = {', '.join(sizes)}" for k, sizes in groups]
    first = parts[0].replace(" at", f" seed{'s' * (groups[0][0] != 1)} at", 1)
    return " and ".join([first, *parts[1:]])


def _run_title(label: str, table: pd.DataFrame, result: Any) -> str:
    """``label`` as a panel title names a run: the committed full-scale run with its partial
    state (:func:`partial_state`) when it is partial, every other run as it is; without the
    Markdown backticks of ``label`` (``"this build's `quick` run"`` is drawn as "this build's
    quick run"), which matplotlib would draw literally."""
    state = partial_state(result) if table is getattr(result, "cached", None) else None
    title = label if state is None else f"{label} ({state})"
    return title.replace("`", "")


def _partial_lead(result: Any, *, by_size: bool = True) -> str:
    """The sentence a caption's visible lead adds when the committed full-scale run (drawn on
    top) is partial: its :func:`partial_state` and, with ``by_size``, its seeds at each ``T``
    where they differ (:func:`seeds_by_size`); empty otherwise."""
    state = partial_state(result)
    if state is None:
        return ""
    seeds = seeds_by_size(result.cached) if by_size else ""
    return (f" The committed full-scale run (top) is {state}"
            + (f", with {seeds}" if seeds else "") + "; the details name the points it lacks.")


def _guarantee(table: pd.DataFrame, x: str) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 1's guarantee ``H(min(n, d_h)-1)+1`` at each ``x`` of ``table``, read from its
    ``capacity`` column (each run has its own n and d_h)."""
    capacity = table.groupby(x)["capacity"].first().sort_index()
    return capacity.index.to_numpy(), capacity.to_numpy()


def _memorized_panel(ax: Any, table: pd.DataFrame, x: str, xlabel: str, *,
                     full: bool = False) -> None:
    """Examples memorized against ``x``, one curve per T (the full-scale run in its own style),
    with Theorem 1's guarantee."""
    viz.compare_with_paper(ax, None if full else table, None, x=x, y="memorized", by="T",
                           cached=table if full else None, legend=False, xlabel=xlabel,
                           ylabel=_MEM)
    viz.plot_bound(ax, _guarantee(table, x), label=_GUARANTEE)
    ax.set_xticks(np.sort(table[x].unique()))
    ax.set_ylim(bottom=0)


def _panel_title(label: str, fixed: str) -> str:
    return f"{label}\n{fixed}"


def _fixed(table: pd.DataFrame, *names: str) -> str:
    """``"n = 32, d_h = 64"``: the values ``table`` holds for parameters that one panel fixes."""
    return ", ".join(f"{name} = {int(table[name].iloc[0])}" for name in names if name in table)


def _runs_text(runs: list[tuple[str, pd.DataFrame, bool]], describe: Any, result: Any,
               name: str, profile: str) -> str:
    """Each run's numbers (``describe(table)``, its first letter capitalised when it opens the
    text), named when there are two; the full-scale run's missing points when it is partial;
    and which run the verdict reads."""
    if len(runs) == 1:
        text = describe(runs[0][1])
        return _capital(text)
    text = " ".join(f"{_capital(label)} ({'top' if k == 0 else 'bottom'}): "
                    f"{describe(table)}" for k, (label, table, _) in enumerate(runs))
    if getattr(result, "partial", None):
        text += f" (The full-scale run is {result.partial}.)"
    reads = verdict_run(name, profile)
    if reads is not None:
        text += f" The verdict reads {reads}."
    return text


#: Why trained counts far above Theorem 1's guarantee do not contradict it. Self-contained (it
#: follows "The verdict reads ...", so it must not open with "That").
_MARGIN_WHY = ("Counts above Theorem 1's guarantee are consistent with it: the guarantee is for "
               "exact real-valued labels on worst-case data, while a count here only needs the "
               "right class to win the argmax over C classes, on random data, with the official "
               "model's input map, positions and read-out bias. A count also includes hits by "
               "chance: a model that ignores its input still gets the most frequent label right "
               "(about T/C examples), so the ratios to the guarantee are taken on the counts "
               "above that level (ours).")
_MARGIN_SEE_2A = ("Counts above Theorem 1's guarantee are consistent with it, for the reasons "
                  "given under Fig. 2a.")


def _left_out_note(tables: list[pd.DataFrame], x: str) -> str:
    """Why a point is missing from the ratios to Theorem 1's guarantee, said only where one is
    (:func:`memnb.scorecard.mahdavi.guarantee_margin`'s ``at_chance`` in any of ``tables``):
    its mean count does not exceed chance; at ``n = 1`` the reason is named."""
    dropped = sorted({float(v) for t in tables if len(t)
                      for v in sc.guarantee_margin(t, x).values["at_chance"]})
    if not dropped:
        return ""
    where = ", ".join(f"{v:g}" for v in dropped)
    text = (f" A point whose mean count does not exceed chance is left out of the ratios "
            f"({x} = {where})")
    if x == "n" and 1.0 in dropped:
        text += ": at n = 1 one shared context token makes the output the same for every example"
    return text + "."


def _margin_sentence(table: pd.DataFrame, x: str) -> str:
    """Where the trained counts above chance lie against Theorem 1's guarantee (above it, or
    at a fraction of it where some fall below), and why neither refutes an existence bound."""
    margin = sc.guarantee_margin(table, x)
    v = margin.values
    left_out = (f"{x} = {', '.join(v['at_chance'])} left out: mean count at chance"
                if v["at_chance"] else "")
    if margin.status == "not computable":
        return ("No mean count exceeds chance, so none can be set beside Theorem 1's "
                f"guarantee ({left_out}).")
    holds = f"{v['points'] - v['violations']}/{v['points']} points"
    where = (f"sit {v['tightest']:.1f}× to {v['loosest']:.1f}× above" if v["tightest"] >= 1
             else f"lie at {v['tightest']:.2g}× to {v['loosest']:.2g}× of")
    why = ("consistent with the theorem; training cannot refute an existence bound"
           if not v["violations"] else
           "a count below it does not refute the theorem, an existence bound: training can "
           "fall short of the weights it guarantees")
    return (f"Above chance, the trained counts {where} Theorem 1's guarantee: the mean count "
            f"above chance is at or above the guarantee at {holds} ({why}"
            + (f"; {left_out}" if left_out else "") + ").")


def _sizes_note(table: pd.DataFrame) -> str:
    steps = table.groupby("T")["steps"].first()
    return ("Training budget max(500 epochs, minimum steps), early stop at 100 %: "
            + ", ".join(f"T = {t}: {s} steps" for t, s in steps.items()) + ".")


def _figure(width: float, runs: list[Any], columns: int = 1) -> tuple[plt.Figure, np.ndarray]:
    """One row of ``columns`` panels per run."""
    return plt.subplots(len(runs), columns, figsize=(width, 3.6 * len(runs) + 0.4),
                        layout="constrained", squeeze=False)


def _source(runs: list[Any]) -> str:
    return "ours_and_cached" if len(runs) > 1 else "ours"


# --- which synthetic sweeps have a full-scale run ------------------------------------------------

#: The synthetic sweeps of Figs. 2a-5, in the chapter's order.
SWEEPS = ("mahdavi.heads", "mahdavi.context", "mahdavi.head_dim", "mahdavi.saturation",
          "mahdavi.nonshared", "mahdavi.regression")
#: The settings a reduced run may change, in the order they are named, with their words.
_SETTINGS = (("d", "d"), ("n", "n (where not swept)"), ("H", "H (where not swept)"),
             ("d_h", "d_h (where not swept)"),
             ("heads", "H swept over"), ("contexts", "n swept over"),
             ("head_dims", "d_h swept over"), ("sizes", "T"), ("configs", "the sizes tried"),
             ("lr", "learning rate"), ("batch", "batch"), ("min_steps", "minimum steps"))


def _setting(value: Any) -> str:
    """A profile setting in words: a number, a list (``1, 2, 3`` or ``10-64`` when long) or
    Fig. 3's ``[[H, sizes], ...]`` grid."""
    if isinstance(value, list | tuple):
        if value and isinstance(value[0], list | tuple):  # Fig. 3's configs
            return "; ".join(f"H = {h}: T = {_setting(list(t))}" for h, t in value)
        if len(value) > 6:
            return f"{value[0]:g}-{value[-1]:g}"
        return ", ".join(f"{v:g}" for v in value)
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def official_sizes(figure: str) -> str | None:
    """The official dataset sizes of ``figure`` (``"Fig. 4"``) from
    :func:`memnb.papers.mahdavi.sweeps` (``reproduce.sh``), each sub-sweep's apart when the
    figure has several (``"heads sweep 30000, ...; context sweep 20000, ..."``); None when the
    figure has no row."""
    rows = paper.sweeps()
    rows = rows[(rows["figure"] == figure) | rows["figure"].str.startswith(f"{figure} (")]
    if rows.empty:
        return None
    parts = []
    for r in rows.itertuples():
        sub = r.figure[len(figure):].strip(" ()")
        if sub:
            sweep, _, context = sub.partition(", ")
            sub = f"{sweep} sweep" + (f", {context} contexts" if context else "")
        parts.append(f"{sub} {_setting(list(r.sizes))}".strip())
    return parts[0] if len(parts) == 1 else "; ".join(parts)


def _official_size_values(figure: str) -> set[int]:
    """Every dataset size the official ``reproduce.sh`` runs for ``figure``, over its
    sub-sweeps (:func:`memnb.papers.mahdavi.sweeps`); empty when the figure has no row."""
    rows = paper.sweeps()
    rows = rows[(rows["figure"] == figure) | rows["figure"].str.startswith(f"{figure} (")]
    return {int(t) for sizes in rows["sizes"] for t in sizes}


def _profile_size_values(params: dict[str, Any]) -> set[int]:
    """Every dataset size a profile's ``params`` tries: its ``sizes`` and ``*_sizes`` lists
    (the sub-sweeps of Figs. 4 and 5) and the sizes of Fig. 3's ``configs`` (``[[H, sizes],
    ...]``, a single size accepted)."""
    values = {int(t) for key, sizes in params.items()
              if key == "sizes" or key.endswith("_sizes") for t in sizes}
    for _, sizes in params.get("configs", []):
        values |= {int(sizes)} if isinstance(sizes, int | float) else {int(t) for t in sizes}
    return values


#: How a sweep's full profile stands to the official code's, in the chapter's words
#: (:func:`full_grid`).
OFFICIAL_GRID = "the official code's grid and recipe"
OURS_AROUND = "the official recipe, on a grid of ours around the paper's sizes"
OURS_GRID = "the official recipe, on a grid of ours"


def full_grid(name: str) -> str:
    """How the ``full`` profile of synthetic sweep ``name`` stands to the official code's
    (``reproduce.sh``, :func:`memnb.papers.mahdavi.sweeps`), read from the dataset sizes it
    tries (:func:`_profile_size_values`) against the official ones of every sub-sweep of its
    figure: :data:`OFFICIAL_GRID` when they are the same; :data:`OURS_AROUND` when they differ
    and every official size lies within their range (Fig. 3: the paper's sizes times
    :data:`memnb.experiments.mahdavi.SATURATION_SEARCH`, ours); :data:`OURS_GRID` otherwise."""
    from memnb.experiments.registry import get

    exp = get(name)
    ours = _profile_size_values(exp.params("full"))
    official = _official_size_values(exp.paper_figure)
    if ours == official:
        return OFFICIAL_GRID
    if ours and official and all(min(ours) <= t <= max(ours) for t in official):
        return OURS_AROUND
    return OURS_GRID


def reduced_settings(name: str, profile: str = "quick") -> str:
    """The settings of experiment ``name``'s ``profile`` (a reduced one) that differ from its
    ``full`` profile (the official code's recipe, ``reproduce.sh``), each beside the full value;
    the dataset sizes beside the official ones of every sub-sweep of the figure
    (:func:`official_sizes`), or beside the full profile's when those are ours
    (:func:`full_grid`)."""
    from memnb.experiments.registry import get

    exp = get(name)
    quick, full = exp.params(profile), exp.params("full")
    ours_grid = full_grid(name) != OFFICIAL_GRID
    parts = []
    for key, words in _SETTINGS:
        if key not in quick or key not in full or quick[key] == full[key]:
            continue
        sizes = key in ("sizes", "configs")
        official = official_sizes(exp.paper_figure) if sizes else None
        if sizes and ours_grid:  # the full profile's sizes are ours (Fig. 3's search grid)
            official = f"full profile, ours: {_setting(full[key])}"
        elif official and ";" in official:
            official = f"official: {official}"
        else:
            official = f"official {official or _setting(full[key])}"
        parts.append(f"{words}{'' if words.endswith(' over') else ' ='} "
                     f"{_setting(quick[key])} ({official})")
    return ", ".join(parts)


def sweep_coverage(root: Any = None) -> dict[str, list[str]]:
    """The synthetic sweeps of Mahdavi et al. (Figs. 2a-5, :data:`SWEEPS`) by the state of their
    committed ``full`` run (:func:`memnb.results.load` under ``root``, default the checkout's
    results): ``{"complete": [...], "partial": [...], "none": [...]}``, each a list of the
    paper's figure names, in the order of :data:`SWEEPS` (a run whose provenance says
    ``complete: false`` is partial)."""
    from memnb.experiments.registry import get
    from memnb.results import load

    found: dict[str, list[str]] = {"complete": [], "partial": [], "none": []}
    for name in SWEEPS:
        full = load(name, "full", root)
        state = ("none" if full is None else
                 "complete" if full.provenance.get("complete", True) else "partial")
        found[state].append(get(name).paper_figure)
    return found


def _figures_words(figures: list[str]) -> str:
    """``Fig. 2a``; ``Figs. 2b and 3``; ``Figs. 2c, 4 and 5``."""
    from memnb.prose import and_words

    if len(figures) == 1:
        return figures[0]
    return "Figs. " + and_words([f.removeprefix("Fig. ") for f in figures])


def sweep_coverage_words(root: Any = None) -> str:
    """How many of the synthetic sweeps have a complete committed full-scale run, a partial one
    and none (:func:`sweep_coverage`), naming the figures, as one Markdown sentence."""
    from memnb.prose import and_words, number_word

    found = sweep_coverage(root)
    total = sum(len(v) for v in found.values())
    words = {"complete": "a complete full-scale run", "partial": "a partial one",
             "none": "none"}
    parts = []
    for state, figures in found.items():
        if not figures:
            continue
        parts.append(f"{number_word(len(figures))} {'has' if len(figures) == 1 else 'have'} "
                     f"{words[state]} ({_figures_words(figures)})")
    return f"In all, of the {number_word(total)} synthetic sweeps, {and_words(parts)}."


def sweep_scales_markdown(profile: str, root: Any = None) -> str:
    """Which synthetic sweeps (Figs. 2a-5) have a full-scale run, complete or partial, and which
    run only at reduced settings: one Markdown bullet per experiment, generated from the
    committed ``full`` results (:func:`memnb.results.load`, :func:`memnb.results.
    partial_summary`) and the profiles of :mod:`memnb.experiments.mahdavi`; each full-scale run
    says whether its grid is the official code's or ours (:func:`full_grid`). Under the
    ``full`` profile every sweep is this build's full-scale run."""
    from memnb.experiments.registry import get
    from memnb.provenance import partial_summary, seeds_used
    from memnb.results import load

    grids = {name: full_grid(name) for name in SWEEPS}
    if profile == "full":
        ours = [f"{get(name).paper_figure}: {grid}" for name, grid in grids.items()
                if grid != OFFICIAL_GRID]
        return ("Under the `full` profile every synthetic sweep below is this build's own "
                f"full-scale run, at {OFFICIAL_GRID}"
                + (f" ({'; '.join(ours)})" if ours else "") + ".")
    lines = ["Which synthetic sweeps have a full-scale run, and on which device it was "
             "computed, generated from the committed results (the device printed above is this "
             "build's own):", ""]
    paper_seeds = int(paper.SEEDS.value)
    for name in SWEEPS:
        figure = get(name).paper_figure
        full = load(name, "full", root)
        if full is None:
            lines.append(f"- {figure}: **no full-scale run**; only this build's `{profile}` run, "
                         f"at reduced settings: {reduced_settings(name, profile)}.")
            continue
        seeds = seeds_used(full.table, full.provenance)
        partial = partial_summary(full.provenance)
        complete = full.provenance.get("complete", True)
        state = ("complete" if not partial else f"complete, {partial}" if complete
                 else f"**partial** ({partial.removeprefix('partial: ')})")
        # a partial grid may hold fewer seeds at some settings: the count is of seeds begun
        begun = "" if complete else " with points so far"
        device = device_words(full.provenance)
        lines.append(f"- {figure}: a full-scale run ({grids[name]}) is committed, {state}; "
                     f"{seeds} seed"
                     f"{'s' * (seeds != 1)}{begun} (the paper's: {paper_seeds}, per the "
                     "official code's README)"
                     + (f"; computed on {device}" if device else "") + ".")
    lines += ["", sweep_coverage_words(root)]
    epochs = {get(name).params(profile).get("epochs") for name in SWEEPS}
    official = int(paper.EPOCHS.value)
    if epochs == {official}:
        kept = f"and its {official} epochs but not its learning rate and batch"
    else:
        kept = (f"but not its {official} epochs ({', '.join(map(str, sorted(epochs)))} here), "
                "learning rate and batch")
    lines += ["", f"The `{profile}` runs keep the official model {kept} (ours: "
              "`memnb.experiments.mahdavi`); a figure without a full-scale run is judged on its "
              "reduced run; a reduced or a partial run caps its verdict: the cap turns a pass "
              f"into trend, and {criteria.FAILED_ANY_SCALE}."]
    return "\n".join(lines)


# --- Proposition 3 -----------------------------------------------------------------------------

def relu_matched_words(relu: pd.DataFrame) -> str:
    """The comparison of Proposition 3's table (:func:`memnb.constructions.mha_checks.
    relu_comparison`) matched parameter for parameter, as one Markdown sentence: the ReLU
    network of the smallest width with at least the attention layer's parameters, its *upper*
    bound on the examples beside the attention layer's guaranteed count (a lower bound), and the
    direction computed from the two: a bound above the guarantee shows no advantage of attention
    at this size, one at or below it shows that attention memorizes at least as many examples as
    the ReLU network can (Mahdavi et al., ICLR 2024, Prop. 3 and Sec. 4.3; ours)."""
    attention = relu[relu["width"].isna()]
    networks = relu[relu["width"].notna()]
    if len(attention) != 1 or networks.empty:
        raise ValueError("relu must hold one attention row and at least one ReLU network row")
    att = attention.iloc[0]
    matched = networks[networks["parameters"] >= att["parameters"]]
    if matched.empty:
        return (f"No ReLU network of the table has the attention layer's "
                f"{int(att['parameters']):,} parameters or more, so none is matched parameter "
                "for parameter.")
    net = matched.sort_values("parameters").iloc[0]
    bound, guaranteed = int(net["examples"]), int(att["examples"])
    head = (f"Matched parameter for parameter at this small size, the ReLU network of width "
            f"$m = {int(net['width'])}$ ({int(net['parameters']):,} parameters, against the "
            f"attention layer's {int(att['parameters']):,}) can memorize at most {bound:,} "
            f"examples (an upper bound), and the attention layer is guaranteed {guaranteed:,} "
            "(a lower bound)")
    if bound > guaranteed:
        return (head + ": the ReLU network's upper bound exceeds the attention layer's "
                "guaranteed count, so this comparison does not show an advantage of attention "
                "*(ours)*.")
    return (head + ": the ReLU network's upper bound does not exceed the attention layer's "
            "guaranteed count, so at this size attention memorizes at least as many examples as "
            "the ReLU network can *(ours)*.")


# --- Proposition 4 -----------------------------------------------------------------------------

def proposition4_table(draws: int = 12, seed: int = 0) -> pd.DataFrame:
    """Proposition 4's cases as the chapter shows them
    (:func:`memnb.scorecard.mahdavi.proposition4_table`: the A2 case named for what it breaks,
    every context of rank n − 1)."""
    return sc.proposition4_table(draws=draws, seed=seed)


# --- Theorem 1: the construction slider ------------------------------------------------------

#: The markers of :func:`construction_frame`, one shape per context length ``n`` (in order),
#: each smaller than the one before and all but the last hollow: where the counts of several
#: ``n`` coincide (d_h below every n), the later markers sit inside the earlier ones and all
#: stay visible.
CONSTRUCTION_MARKERS: tuple[tuple[str, float], ...] = (("o", 12.0), ("s", 7.5), ("^", 5.0))


#: The y-label of the construction slider's frames: both quantities its y-axis carries.
CONSTRUCTION_YLABEL = "rank Z (markers) and count (dashed)"


def construction_ylim(grid: pd.DataFrame) -> tuple[float, float]:
    """The y-limits of every frame of the construction slider: from 0 to two above the
    largest count of ``grid``, the same in every frame, so heights compare across H."""
    return 0.0, float(grid["capacity"].max() + 2)


def construction_frame(grid: pd.DataFrame, h: int) -> plt.Figure:
    """One slider frame: Theorem 1's count (dashed lines; its formula is our *[reconstruction]*)
    and rank Z of the construction (markers) against ``d_h``, one colour and one marker
    (:data:`CONSTRUCTION_MARKERS`) per context length ``n``, for ``H = h``, on the y-limits of
    :func:`construction_ylim`; an ``h`` the grid does not hold is refused, naming the H it
    holds (an empty frame would read as a construction that memorized nothing)."""
    viz.check_frame_value(grid, "H", h, source="the construction grid")
    fig, ax = plt.subplots(figsize=(5.6, 3.6), layout="constrained")
    part = grid[grid["H"] == h]
    contexts = list(part.groupby("n"))
    # the counts first, then the ranks: the legend's two columns are one each
    for i, (n_, rows) in enumerate(contexts):
        ax.plot(rows["d_h"], rows["capacity"], color=viz.GROUP_CYCLE[i], linestyle="--",
                label=f"Theorem 1's count H(min(n, d_h)−1)+1 [reconstruction], n={n_}")
    for i, (n_, rows) in enumerate(contexts):
        color = viz.GROUP_CYCLE[i]
        marker, size = CONSTRUCTION_MARKERS[min(i, len(CONSTRUCTION_MARKERS) - 1)]
        hollow = i < len(CONSTRUCTION_MARKERS) - 1
        ax.plot(rows["d_h"], rows["z_rank"], color=color, marker=marker, markersize=size,
                markerfacecolor="none" if hollow else color, markeredgewidth=1.5,
                linestyle="none", label=f"rank Z of the construction, n={n_}")
    ax.set(xlabel="key/query dimension d_h", ylabel=CONSTRUCTION_YLABEL,
           ylim=construction_ylim(grid),
           title=f"H = {counted(h, 'head')}, d = {int(grid['d'].iloc[0])}")
    _legend_below(fig, ax)
    return fig


def construction_caption(grid: pd.DataFrame) -> Any:
    """The caption below the construction slider (:func:`construction_frame`): what its frames
    show, counted from ``grid``, and that the figure is ours (the paper has no counterpart)."""
    exact = int((grid["z_rank"] == grid["capacity"]).sum())
    fitted = int(grid["memorized_all"].sum())
    heads = ", ".join(str(int(h)) for h in sorted(grid["H"].unique()))
    contexts = ", ".join(str(int(n)) for n in sorted(grid["n"].unique()))
    low, high = construction_ylim(grid)
    text = (f"Theorem 1's construction (our float64 implementation of the proof, "
            f"*[reconstruction]*) at d = {int(grid['d'].iloc[0])}, H ∈ {{{heads}}}, "
            f"n ∈ {{{contexts}}}, d_h = {int(grid['d_h'].min())}-{int(grid['d_h'].max())}: "
            f"rank Z (markers) equals Theorem 1's count H(min(n, d_h)−1)+1 (dashed lines; "
            f"the formula is our *[reconstruction]*) in {exact} of {len(grid)} "
            f"constructions, and every label is reproduced within 1e-6 in {fitted} of "
            f"{len(grid)}. {_rank_is_count(grid)} The y-axis is the same in every frame, "
            f"{low:g} to {high:g}, so heights compare across H. A figure of ours: the paper "
            "has no counterpart.")
    return viz.caption(text, None, source="ours")


def _rank_is_count(grid: pd.DataFrame) -> str:
    """Whether the slider's rank Z is also the number of examples its construction memorizes
    exactly: so where the construction has rank Z equal to its T examples and reproduces every
    label; said once, for the constructions of ``grid`` where it holds."""
    both = (grid["z_rank"] == grid["capacity"]) & grid["memorized_all"].astype(bool)
    if both.all():
        return ("So in every one rank Z is also the number of examples the construction "
                "memorizes exactly.")
    if not both.any():
        return "In none is rank Z also the number of examples memorized exactly."
    return (f"In {int(both.sum())} of {len(grid)}, those with both, rank Z is also the number "
            "of examples the construction memorizes exactly.")


def proof_vs_code(built: Construction) -> pd.DataFrame:
    """What the proof of Mahdavi et al.'s Proposition 1 (App. B, [reconstruction]) does beside
    what :func:`memnb.constructions.mha.construct` does (ours), with what that choice gave on
    ``built``.

    Columns ``step``, ``proof``, ``code``, ``measured``; every number comes from ``built``.
    """
    heads = len(built.heads_examples)
    later = range(1, heads)

    def per_head(values: Sequence[float], fmt: str, start: int = 0) -> str:
        return ", ".join(f"head {h + 1}: {values[h]:{fmt}}" for h in range(start, heads)) or "none"

    search = ", ".join(f"head {h + 1}: {built.draws_full_rank[h]} of {built.draws_tried[h]}"
                       for h in range(heads))
    margins = ", ".join(f"head {h + 1}: {built.sigma_first_draw[h]:.3g} → "
                        f"{built.sigma_per_head[h]:.3g}" for h in range(heads))
    sizes = ", ".join(str(len(e)) for e in built.heads_examples)
    c_text = ("; ".join(f"head {h + 1}: c = {built.c_per_head[h]:g} after "
                        f"{built.doublings_per_head[h]} doubling(s), ‖Z(c) − Z∞‖₂ = "
                        f"{built.perturbation_per_head[h]:.2g} < σ/2 = "
                        f"{built.sigma_per_head[h] / 2:.2g}" for h in later)
              or "one head: no saturation needed")
    rows = [
        ("target attentions α",
         "chosen one example at a time so that each new row of Z leaves the span of the previous "
         "ones (an existence argument, by Assumption 2)",
         f"{built.tries} random draws of all of a head's α at once (softmax of Gaussian logits); "
         "the draw with the largest smallest singular value of the new rows is kept",
         f"draws giving full rank: {search}; smallest singular value, first draw → kept draw: "
         f"{margins}" + _search_effect(built)),
        ("examples given to each head",
         "reorder so that the first (H−1)(n′−1)+1 rows are independent; the next n′−1 "
         "dependent rows form S, after a row reduction zeroes the old heads' S-block",
         "consecutive blocks in index order; no explicit row reduction: the rank of the limit "
         "matrix [old heads | new head] is checked directly (the same rank)",
         f"examples per head: {sizes}; rank Z after each head: "
         f"{', '.join(map(str, built.rank_after_head))}"),
        ("saturation scale c",
         "exists (Lemma 4; App. B.2 bounds the perturbation for eq. 16): some finite c puts "
         "Z(c) within Weyl's margin of its limit; no value is computed",
         "c doubled from 1 until ‖Z(c) − Z∞‖₂ < σ/2, σ the limit's smallest singular value "
         "(our stopping rule: half of Weyl's margin σ, within which Z(c) keeps full rank; "
         "checked numerically)", c_text),
        ("key/query factors",
         "W = W_fit + cW⁰ of rank ≤ n′, factored into W_K W_Qᵀ",
         "W_K = [U, c g], W_Q = [Q⁺, b] written down directly (no SVD), Q the m × d matrix of "
         "the head's queries as rows (so Q W_Q starts with I_m); unused columns are 0",
         f"rank of W_K W_Qᵀ: {per_head(built.weight_ranks, 'd')} (d_h ≥ n′ = {built.n_prime})"),
        ("read-out",
         "any solution of Z W* = Y (Z has full row rank)",
         "minimum-norm least squares (LAPACK gelsd) in float64; ranks with relative tolerance "
         f"{CONSTRUCTION_REL_TOL:g}",
         f"rank Z = {built.z_rank}; largest |model(E, e) − y| = {built.max_abs_error:.1e}"),
    ]
    return pd.DataFrame(rows, columns=["step", "proof", "code", "measured"])


def _search_effect(built: Construction) -> str:
    """What the search over target attentions changed on ``built``: nothing to say unless every
    head's first draw already had full rank; then which heads kept a later draw with a wider
    margin and which kept their first draw."""
    if not all(v > 0 for v in built.sigma_first_draw):
        return ""
    heads = range(len(built.heads_examples))
    wider = [h + 1 for h in heads if built.sigma_per_head[h] > built.sigma_first_draw[h]]
    first = [h + 1 for h in heads if h + 1 not in wider]
    parts = []
    if wider:
        parts.append(f"a later draw with a wider margin for {_heads_text(wider)}")
    if first:
        parts.append(f"the first draw for {_heads_text(first)}")
    return ("; the first draw already had full rank for every head, so the search kept "
            + " and ".join(parts))


def _heads_text(numbers: list[int]) -> str:
    return ("head " if len(numbers) == 1 else "heads ") + ", ".join(map(str, numbers))


def proof_vs_code_markdown(built: Construction) -> str:
    """:func:`proof_vs_code` as a Markdown table (columns: step | what the proof does, as our
    notes rebuild it from App. B's prose (*[reconstruction]*) | what our code does (ours) |
    measured on this instance)."""
    header = ("step", "what the proof does (App. B) *[reconstruction]*",
              "what our code does (ours)",
              "measured on this instance")
    return markdown_table(header, proof_vs_code(built).itertuples(index=False))


# --- Table 1, Fig. 1, Table 3 ------------------------------------------------------------------

def table1_comparison(table: pd.DataFrame) -> pd.DataFrame:
    """Our Table 1 cells beside the paper's: representation, check, k, ours, paper, decided."""
    from memnb.assumptions import conclusive

    ours = table[table["check"].isin(["assumption1", "assumption2", "assumption3",
                                      "general_position"])].copy()
    ref = paper.table1().set_index(["representation", "check"])["pass_fraction"]
    ours["paper"] = [ref.get((r, c), np.nan) for r, c in zip(ours["representation"],
                                                             ours["check"], strict=True)]
    ours["decided"] = [conclusive(r, sc.PASS) for r in ours.to_dict("records")]
    cols = ["representation", "check", "k", "T", "repeats", "pass_fraction", "paper",
            "min_rank", "max_rank", "decided"]
    return ours[cols].rename(columns={"pass_fraction": "ours", "T": "images"}).reset_index(
        drop=True)


def missing_sentence(table: pd.DataFrame) -> str:
    """Which columns (models) the run that computed ``table`` could not compute, and why, each
    named in words (:func:`representation_label`), the reason as the book states it
    (:func:`memnb.scorecard.mahdavi.unavailable_words`: a fact about that run, not about "here");
    for a column that needs the Hugging Face hub, that the book's inputs are offline
    (:data:`memnb.scorecard.mahdavi.HUB_FILLS`)."""
    missing = table[table["check"] == "missing"]
    if missing.empty:
        return "Every column of this profile was computed."
    reasons = [str(getattr(r, "reason", "")) for r in missing.itertuples()]
    text = " ".join(f"{_capital(representation_label(r.representation))} is missing: "
                    f"{sc.unavailable_words(why)}."
                    for r, why in zip(missing.itertuples(), reasons, strict=True))
    if any(sc.hub_missing(why) for why in reasons):
        text += f" {_capital(sc.HUB_FILLS)}."
    return text


def _capital(text: str) -> str:
    """``text`` with its first letter upper-case (a sentence built from a phrase)."""
    return text[:1].upper() + text[1:]


def table1_caption(table: pd.DataFrame, profile: str) -> str:
    """What our Table 1 shows, with the General Position caveat at k < d and the verdict."""
    rows = table1_comparison(table)
    gp = rows[rows["check"] == "general_position"]
    ref = paper.table1()
    ref = ref[ref["check"] == "general_position"].set_index("representation")
    ref_min, ref_max = ref["min_rank"].astype(float), ref["max_rank"].astype(float)
    # each representation's own width d (DINOv2-small has d = 384, the ViTs 768)
    dims = (table.dropna(subset=["d"]).groupby("representation")["d"].first()
            if "d" in table.columns else pd.Series(dtype=float))
    parts = []
    for r in gp.itertuples():
        if r.k < dims.get(r.representation, paper.VIT_D.value):
            what = ("fails, which refutes General Position for any larger set too"
                    if r.ours < sc.PASS else "passes, which says nothing about k = d")
            parts.append(f"{representation_label(r.representation)}: tested at k = "
                         f"{int(r.k)} < d (only {int(r.images)} images), {what}")
    note = ("General Position: " + "; ".join(parts) + ". ") if parts else ""
    ranks = [f"{representation_label(r.representation)} {int(r.min_rank)}-{int(r.max_rank)} (paper "
             f"{int(ref_min[r.representation])}-{int(ref_max[r.representation])})"
             for r in gp.itertuples() if r.k == paper.VIT_D.value
             and r.representation in ref_min.index and not np.isnan(ref_min[r.representation])]
    if ranks:
        note += ("Ranks of the draws in the General Position test at k = d: "
                 + ", ".join(ranks) + ". ")
    return folded("Our Table 1: the rank checks of Assumptions 1-3 and General Position per "
                  "representation, beside the paper's values, in the columns marked "
                  f"{TABLE1_PAPER_SOURCE}.",
                  " ".join(part for part in (images_sentence(table), note.strip(),
                                             missing_sentence(table), paper_only_sentence(table))
                           if part), "Table 1", profile)


#: Sec. 5.1's 2000 images sampled from ImageNet (:data:`memnb.scorecard.mahdavi.
#: PAPER_SAMPLED_IMAGES`, which the Fig. 1 row names too).
PAPER_SAMPLED_IMAGES = sc.PAPER_SAMPLED_IMAGES
#: Where our Table 1 images come from (:mod:`memnb.data.images`).
IMAGE_SOURCE = "EliSchwartz/imagenet-sample-images"


def images_sentence(table: pd.DataFrame) -> str:
    """Which images Table 1's pool holds, beside the paper's (Sec. 5.1, its notebook): ours are
    the first ``T`` of the JPEGs of a third-party repository that holds one image per
    ImageNet-1k class (:mod:`memnb.data.images`), not a sample of ImageNet's training set."""
    pool = sc.table1_pool(table)
    return (f"Images: {pool} JPEGs of the third-party repository {IMAGE_SOURCE}, which holds one "
            "image per ImageNet-1k class, taken in file-name order (so at most one image per "
            "class); the paper sampled "
            f"{PAPER_SAMPLED_IMAGES:,} images from ImageNet (Sec. 5.1), of which its notebook "
            f"kept the {int(paper.TABLE1_IMAGES.value):,} RGB ones.")


def gp_tolerance_note(table: pd.DataFrame, *, repeats: int, seed: int = 0) -> str:
    """The General Position rows of Table 1 beside a control of ours (:mod:`memnb.rank_control`):
    Gaussian float32 data of each tested shape, in General Position with probability one, put
    through the same rank test. Says which representations fail below the control's ranks (not
    the tolerance's doing) and which cannot be told from it."""
    from memnb.rank_control import gaussian_control

    gp = table[(table["check"] == "general_position") & (table["k"] == table["d"])]
    if gp.empty:
        return "No General Position test at k = d in this table: no control computed."
    sentences = []
    for (T, d), part in gp.groupby(["T", "d"]):
        control = gaussian_control(int(T), int(d), repeats=repeats, seed=seed)
        test = control.test
        low, high = control.rejected_interval()
        below, within = [], []  # ranks under the control's lowest, or among its ranks
        for r in part.itertuples():
            (below if r.max_rank < test.min_rank else within).append(
                f"{LAYER_LABELS.get(r.representation, r.representation)} "
                f"{int(r.min_rank)}-{int(r.max_rank)}")
        text = (f"**Control (ours), T = {int(T)} vectors in d = {int(d)}:** i.i.d. Gaussian "
                f"float32 vectors, in General Position with probability one, pass "
                f"{test.passes} of {test.repeats} draws of k = {int(d)}: the tolerance alone "
                f"rejects {control.rejected_fraction:.0%} of them (95 % interval "
                f"{low:.0%}-{high:.0%}), at ranks {test.min_rank}-{test.max_rank}. So a "
                "pass fraction below 1 at k = d does not by itself refute General Position; a "
                "draw's rank far below d does.")
        if below:
            text += (" Ranks of the representations' draws below the control's lowest, so "
                     "their failure is the data's, not the tolerance's: " + ", ".join(below)
                     + ".")
        if within:
            text += (" Ranks within the control's range, so their failure cannot be told from "
                     "the tolerance's: " + ", ".join(within) + ".")
        sentences.append(text)
    return "\n\n".join(sentences)


#: Colour of :func:`fig1`'s vertical line at n (Assumption 1), grey and dotted: a reference
#: value; the book draws closed-form bounds, not such values, black and dashed.
FIG1_REFERENCE_COLOUR = "#777777"
#: Dash style of :func:`fig1`'s vertical line at d (General Position): dash-dot, so that it is
#: told from the dotted line at n by its dashes as well as its colour (neither is a bound's
#: dashed line).
FIG1_D_LINESTYLE = "-."


def fig1(table: pd.DataFrame, cached: pd.DataFrame | None, profile: str) -> Any:
    """Fig. 1: pass fraction against k for Random Attention, ours beside the paper's read-off,
    each of our curves labelled with its run, draws per k and pool (:func:`fig1_label`). The
    caption names, per run, the k above :func:`memnb.scorecard.mahdavi.fig1_comparable_limit`
    of its pool, not comparable with the paper's and left out of the verdict, and how our curves
    draw their subsets beside the paper's notebook (:func:`_fig1_draws`). The vertical lines
    at n (Assumption 1, grey and dotted, :data:`FIG1_REFERENCE_COLOUR`) and d (General Position,
    dash-dot, :data:`FIG1_D_LINESTYLE`) are reference values, not bounds."""
    fig, ax = plt.subplots(figsize=(5.6, 4.4), layout="constrained")  # legend below, 6 lines
    rows = sc.fig1_rows(table)
    cached_rows = None if cached is None else sc.fig1_rows(cached)
    has_cached = cached_rows is not None and len(cached_rows) > 0
    this_run = f"this build's {'' if profile == 'full' else 'reduced '}{profile} run"
    # one row per k and draw of the random layer (seed): the mean, and the band from the
    # lowest to the highest draw
    viz.compare_with_paper(ax, rows, paper.figure1(), x="k", y="pass_fraction",
                           spread="minmax", ours_label=fig1_label(this_run, rows),
                           paper_label=FIG1_PAPER_LABEL, legend=False,
                           xlabel="subset size k", ylabel="fraction of draws of rank k")
    if has_cached:
        viz.plot_ours(ax, cached_rows, "k", "pass_fraction", role="ours_cached",
                      spread="minmax", label=fig1_label("committed full run", cached_rows))
    curve = sc.fig1_curve(table).reset_index()
    cached_curve = sc.fig1_curve(cached).reset_index() if has_cached else None
    for c, role in ((curve, "ours"), (cached_curve, "ours_cached")):
        if c is None:
            continue
        beyond = c[c["k"] > sc.fig1_comparable_limit(int(c["T"].iloc[0]))]
        if len(beyond):  # not compared with the paper's: hollow
            ax.plot(beyond["k"], beyond["pass_fraction"], linestyle="none", marker="o",
                    markersize=4, markerfacecolor="white", markeredgecolor=viz.PALETTE[role],
                    label=FIG1_BEYOND_LABEL)
    # a reference value, not a bound: grey dotted (black dashed is a closed-form bound's)
    ax.axvline(paper.VIT_N.value, color=FIG1_REFERENCE_COLOUR, linestyle=":", linewidth=1.3,
               label=f"n = {paper.VIT_N.value:g} (Assumption 1)")
    top = max(curve["k"].max(), paper.VIT_D.value)
    ax.axvline(paper.VIT_D.value, color=viz.PALETTE["bound"], linestyle=FIG1_D_LINESTYLE,
               linewidth=1, label=f"d = {paper.VIT_D.value:g} (General Position)")
    ax.set_xlim(0, top * 1.03)
    _legend_below(fig, ax, ncol=1)  # one column: the labels of our runs are long
    runs = [(f"this build's `{profile}` run", curve)]
    if has_cached:
        runs.append(("the committed full-scale run, drawn beside it", cached_curve))
    lead = ("Random k-subsets of the [CLS] vectors after one random attention layer."
            + fig1_verdict_basis(verdict_table("mahdavi.table1", profile)))
    text = " ".join(_fig1_run(label, c) for label, c in runs) + " " + _fig1_draws(
        [c for _, c in runs]) + " " + fig1_paper_points()
    # the rule of comparability is the scorecard's (sc.fig1_comparable_limit), not retyped here
    near = [int(c["T"].iloc[0]) for _, c in runs
            if c["k"].max() > sc.fig1_comparable_limit(int(c["T"].iloc[0]))]
    if near:
        pools = sorted(set(near))
        words = (f"a pool of {pools[0]}" if len(pools) == 1 else
                 "pools of " + " and ".join(map(str, pools)))
        halves = " and ".join(f"k > {sc.fig1_comparable_limit(p)}" for p in pools)
        text += (f" With {words} images, draws at k above {sc.FIG1_POOL_SHARE_TEXT} the pool "
                 f"({halves}) share most of their images, so the pass fraction there is not "
                 f"comparable with the paper's, drawn from {int(paper.TABLE1_IMAGES.value)} "
                 "images; the verdict leaves such k out.")
    reads = verdict_run("mahdavi.table1", profile)
    if reads is not None:
        text += f" The verdict reads {reads}."
    return viz.caption(fig, "Mahdavi et al. Fig. 1", text=folded(lead, text, "Fig. 1", profile),
                       profile=profile,
                       source="ours_cached_and_paper" if len(runs) > 1 else "mixed")


def fig1_verdict_basis(table: pd.DataFrame | None) -> str:
    """What Fig. 1's verdict rests on, for its caption's visible lead, computed from the Table 1
    run the verdict reads (``table``): the draws of the random layer and the image set
    (:func:`memnb.scorecard.mahdavi.fig1_basis`), that the tolerance is ours, and the
    conclusions the claim draws, ours beside whether they agree with the paper's
    (:func:`memnb.scorecard.mahdavi.fig1_conclusions`); empty without a table or a curve."""
    if table is None or sc.fig1_curve(table).empty:
        return ""
    text = f" In the verdict's run {sc.fig1_basis(table)}; the verdict's tolerance is ours"
    ends = sc.fig1_conclusions(table)
    if ends is not None:
        agree = "agree" if ends["agree"] else "do not all agree"
        text += (f"; the conclusions the claim draws {agree} with the paper's ({ends['ours']}; "
                 f"a pass at a pass fraction ≥ {sc.PASS:g} [reconstruction])")
    return text + "."


def fig1_label(run: str, curve: pd.DataFrame) -> str:
    """The legend label of one of our Fig. 1 curves: which run it is (``run``: "this build's
    reduced quick run", "committed full run") with its draws per k and its pool of images, read
    from the curve (``repeats``, ``T``), and, where it holds several draws of the random layer
    (its ``seed`` column), that each seed is one (the legend adds the band's meaning)."""
    draws, pool = int(curve["repeats"].iloc[0]), int(curve["T"].iloc[0])
    layers = int(curve["seed"].nunique()) if "seed" in curve else 1
    seeds = ";\nseeds: draws of the random layer" if layers > 1 else ""
    return f"ours, {run} ({counted(draws, 'draw')} per k, {pool} images{seeds})"


#: The legend label of our Fig. 1 points at k above half the pool (hollow), which the verdict
#: leaves out (:func:`memnb.scorecard.mahdavi.fig1_comparable_limit`).
FIG1_BEYOND_LABEL = (f"ours at k above {sc.FIG1_POOL_SHARE_TEXT} the pool (hollow): not "
                     "compared with the paper's")


#: How each method of :func:`memnb.assumptions.pass_fraction_curve` draws its subsets, in words.
FIG1_METHODS = {
    "prefix": ("nested subsets (ours): each draw is one random permutation of the pool, and its "
               "subset at k is the permutation's first k images, so one draw's subsets at "
               "different k are nested and a curve's points are correlated (each is still an "
               "unbiased estimate of the pass fraction at its k)"),
    "subsets": "an independent random subset for each draw at each k, as the paper's notebook",
}


def fig1_paper_label() -> str:
    """The legend label of the paper's Fig. 1 points (:func:`memnb.papers.mahdavi.figure1`):
    from the notebook's saved output, with the k read off its plot by us and the inferred k,
    read from the points' ``origin``."""
    ref = paper.figure1()
    ours = ", ".join(str(int(k)) for k in ref.loc[ref["origin"] == "us", "k"])
    by_us = f" k = {ours}\nread off its plot by us;" if ours else ""
    return (f"paper (vit.ipynb's saved output;{by_us} k = {paper.FIG1_INFERRED_K} "
            "inferred)")


#: The legend label of the paper's Fig. 1 points (:func:`fig1_paper_label`).
FIG1_PAPER_LABEL = fig1_paper_label()


def fig1_paper_points() -> str:
    """Where each of the paper's Fig. 1 points comes from, in words, grouped by the ``origin``
    of :func:`memnb.papers.mahdavi.figure1`: printed by the notebook, read off its saved plot
    (by our notes, or by us), or inferred (the point at
    :data:`memnb.papers.mahdavi.FIG1_INFERRED_K`)."""
    ref = paper.figure1()

    def ks(origin: str) -> str:
        return ", ".join(str(int(k)) for k in ref.loc[ref["origin"] == origin, "k"])

    inferred = float(ref.set_index("k").loc[paper.FIG1_INFERRED_K, "pass_fraction"])
    return ("The paper's points come from the saved output of its notebook "
            f"(analysis/vit.ipynb): k = {ks('printed')} printed by its Table 1 cells; k = "
            f"{ks('notes')} read off the plot saved there (its Fig. 1 cell prints no "
            f"numbers), as our notes give them, and k = {ks('us')} read off "
            f"the same plot by us (ours); the {inferred:.1f} at k = {paper.FIG1_INFERRED_K} "
            "inferred from \"about 1.0 up to ~240\" (our notes), not given by any output.")


def _fig1_draws(curves: list[pd.DataFrame]) -> str:
    """How our Fig. 1 curves draw their subsets (their ``method`` column, in the words of
    :data:`FIG1_METHODS`), beside the paper's notebook, which draws an independent subset
    (``torch.randperm``) for each draw at each k; empty when no curve records its method."""
    methods = sorted({str(m) for c in curves if "method" in c.columns
                      for m in c["method"].dropna().unique()})
    if not methods:
        return ""
    which = "Both curves of ours draw" if len(curves) > 1 and len(methods) == 1 else "Ours draw"
    ways = "; ".join(FIG1_METHODS.get(m, m) for m in methods)
    paper_way = (" The paper's notebook (analysis/vit.ipynb) draws an independent subset for "
                 "each draw at each k." if "prefix" in methods else "")
    return f"{which} {ways}.{paper_way}"


def _fig1_run(label: str, curve: pd.DataFrame) -> str:
    """One run's Fig. 1 curve (:func:`memnb.scorecard.mahdavi.fig1_curve`, reset to a column
    ``k``) in words: its draws per k, its pool of images, its draws of the random layer, the
    largest k that passes (a mean pass fraction of at least :data:`memnb.scorecard.PASS`) and
    the smallest from which no draw passes."""
    passing = curve[curve["pass_fraction"] >= sc.PASS]["k"]
    failing = curve[curve["pass_fraction"] == 0]["k"]
    where = (f"passes (a pass fraction of at least {sc.PASS:g}) up to k = {int(passing.max())}"
             if len(passing) else f"never reaches a pass fraction of {sc.PASS:g}")
    where += (f", and no draw passes from k = {int(failing.min())} on" if len(failing)
              else f", and some draw passes at every k up to {int(curve['k'].max())}")
    pool = int(curve["T"].iloc[0])
    draws = int(curve["repeats"].iloc[0])
    layers = int(curve["layers"].max()) if "layers" in curve else 1
    over = (f", for each of {layers} draws of the random attention layer (the line their mean, "
            "the band from the lowest to the highest; the paper's notebook draws the layer "
            "once)" if layers > 1 else ", for one draw of the random attention layer")
    return (f"{_capital(label)}: {draws} draw{'s' * (draws != 1)} per k from a "
            f"pool of {pool} images (the paper's {int(paper.TABLE1_IMAGES.value)}){over}; "
            f"its mean {where}.")


def table3_comparison(table: pd.DataFrame) -> pd.DataFrame:
    """Our Table 3 cells beside the paper's (model mapped to the paper's column)."""
    from memnb.assumptions import conclusive

    ref = paper.table3().set_index(["model", "weights", "layer", "check"])["pass_fraction"]
    ours = table[table["check"] != "missing"].copy()
    ours["paper_column"] = ours["representation"].map(
        lambda m: " ".join(paper.TABLE3_MODEL_MAP[m]))
    ours["paper"] = [ref.get((*paper.TABLE3_MODEL_MAP[m], int(la), c), np.nan)
                     for m, la, c in zip(ours["representation"], ours["layer"], ours["check"],
                                         strict=True)]
    ours["decided"] = [conclusive(r, sc.PASS) for r in ours.to_dict("records")]
    geometry = [paper.TABLE3_GEOMETRY[paper.TABLE3_MODEL_MAP[m][0]] for m in ours["representation"]]
    ours["paper n, d"] = [f"{n}, {d}" for n, d in geometry]
    cols = ["representation", "paper_column", "layer", "check", "k", "T", "repeats",
            "pass_fraction", "paper", "min_rank", "max_rank", "decided"]
    cols[5:5] = [c for c in ("n", "d") if c in ours] + ["paper n, d"]  # ours beside the paper's
    return ours[cols].rename(columns={"pass_fraction": "ours"}).reset_index(drop=True)


def table3_caption(table: pd.DataFrame, profile: str) -> str:
    """What our Table 3 shows, per assumption, and the verdict; never claims a missing model."""
    rows = table3_comparison(table)
    a2 = rows[rows["check"] == "assumption2"]
    full = a2[a2["ours"] >= 1.0]
    a2_text = (f"Assumption 2: {len(full)} of {len(a2)} (model, layer) cells we computed have "
               "every context of rank n")
    missing = set(table.loc[table["check"] == "missing", "representation"])
    if "gpt2_trained" in missing:
        a2_text += ("; the paper's only rank-deficient contexts are those of the trained GPT-2 "
                    "at L1, a model the run did not load, so that finding is not checked in "
                    "this table")
    bert_text = bert_kruskal_sentence(rows)
    bert_text = f" {bert_text}" if bert_text else ""
    source = (f" (columns marked [nb]: {paper.TABLE3_NB.removeprefix('[nb] ')})"
              if TABLE3_PAPER_TAG else "")
    return folded(f"Our Table 3: the rank checks per model and layer, beside the paper's"
                  f"{source}.",
                  a2_text + "." + bert_text + " " + missing_sentence(table), "Table 3", profile)


def bert_kruskal_sentence(rows: pd.DataFrame) -> str:
    """App. J's estimated Kruskal ranks of BERT-large's L1 queries (291 trained, 349 random, at
    n = 512) beside what our BERT-style stand-in's L1 draws say (ours; a comparison across
    different models, not a reproduction). ``rows`` is :func:`table3_comparison`.

    Where our queries fail Assumption 1, a draw of ``k`` queries of rank ``r < k`` puts any
    ``r + 1`` of them in an ``r``-dimensional span, so the lowest rank of a draw bounds the
    Kruskal rank from above (up to the floating-point rank test's tolerance); the paper's number
    is an estimate from passing draws, not a bound. Both are also given as a share of ``n``.
    Empty without BERT-style L1 rows."""
    bert = rows[(rows["paper_column"].str.startswith("bert")) & (rows["layer"] == 1)
                & (rows["check"] == "assumption1")]
    if bert.empty:
        return ""
    n_paper, d_paper = paper.TABLE3_GEOMETRY["bert"]
    theirs = ", ".join(f"{v.value:g} ({w}, {v.value / n_paper:.0%} of n)"
                       for w, v in paper.BERT_KRUSKAL.items())
    parts = []
    for r in bert.itertuples():
        weights = paper.TABLE3_MODEL_MAP[r.representation][1]
        k = int(r.k)
        if r.ours >= sc.PASS:
            parts.append(f"{weights}, estimated at our n = {k} or more (Assumption 1 passes, "
                         f"pass fraction {r.ours:.4g}; a smaller n than the paper's)")
        else:
            low = int(r.min_rank)
            parts.append(f"{weights}, at most {low} ({low / k:.0%} of our n = {k}; the lowest "
                         f"rank among draws of k = {k} queries, pass fraction {r.ours:.4g})")
    n_ours, d_ours = int(bert["n"].iloc[0]), int(bert["d"].iloc[0])
    return (f"Estimated Kruskal ranks of BERT's L1 queries, App. J: {theirs}, at n = {n_paper}, "
            f"d = {d_paper}. The Kruskal rank of our stand-in's L1 queries, a comparison "
            f"across different models (a smaller model, at n = {n_ours}, d = {d_ours}, on other "
            "text), not a reproduction: "
            + "; ".join(parts) + ". A draw of k queries of rank r < k puts any r + 1 of them in "
            "an r-dimensional span, so its rank bounds the Kruskal rank from above (up to the "
            "floating-point rank test's tolerance); the paper's numbers are estimates from "
            "passing draws, not bounds.")


# --- Sec. 4.4 against our representations (DINOv2, ours) ---------------------------------------

_CHECK_NAMES = {"assumption1": "A1", "assumption2": "A2", "assumption3": "A3",
                "general_position": "General Position"}
#: Sec. 4.4 / 5.1's representations in the paper's words, and ours (DINOv2 is ours).
LAYER_LABELS = {"embedding": "embedding layer (random weights)",
                "random_attention": "one random attention layer on it",
                "random_vit": "first block of a random ViT-B/16",
                "trained_vit_b16": "first block of the trained ViT-B/16",
                "dinov2_vits14_l0": "DINOv2-small embedding layer (trained; ours)",
                "dinov2_vits14_l1": "DINOv2-small first block (trained; ours)"}
DINOV2_COMMAND = "memnb run mahdavi.table1 --profile full"
#: The scorecard row of ours that judges Sec. 4.4's account on DINOv2 (:func:`dinov2_discussion`
#: shows its status).
DINOV2_ROW = "Sec. 4.4 on a trained ViT"
#: Table 3's representations in words (the BERT-style model is MiniLM, a stand-in of ours).
MODEL_LABELS = {"bert_trained": "trained MiniLM-L6 (stands in for trained BERT-large)",
                "bert_random": "MiniLM-L6 architecture, random weights (for random BERT-large)",
                "gpt2_random": "GPT-2 small, random weights (for random GPT-2 large)",
                "gpt2_trained": "trained GPT-2 small (for trained GPT-2 large)"}
#: Table 3's models as its displayed table names them (:func:`table3_display`): short, since the
#: column beside them names the paper's model each stands in for (:data:`TABLE3_LEGEND`).
TABLE3_MODEL_NAMES = {"bert_trained": "MiniLM-L6, trained", "bert_random": "MiniLM-L6, random",
                      "gpt2_random": "GPT-2 small, random",
                      "gpt2_trained": "GPT-2 small, trained"}
#: Columns that a run may miss as a whole, in words.
MISSING_LABELS = {"trained_vit_b16": "the trained ViT-B/16",
                  "dinov2_vits14": "DINOv2-small (ours)",
                  "gpt2_trained": "the trained GPT-2"}
#: The checks of Tables 1 and 3 in words, each opening with its short name (A1-A3: Assumptions
#: 1-3; GP: General Position), which the tables' legends spell out (:data:`TABLE1_LEGEND`).
CHECK_LABELS = {"assumption1": "A1: queries' Kruskal rank ≥ n",
                "assumption2": "A2: every context of rank n",
                "assumption3": "A3: e + mean(E) of Kruskal rank ≥ n",
                "general_position": "GP: Kruskal rank min(T, d)"}
_PAPER_MODELS = {"bert": "BERT-large", "gpt2": "GPT-2 large"}
_LAYERS = {0: "L0", 1: "L1"}


def representation_label(name: str) -> str:
    """A representation or model of Tables 1 and 3 named in words (the identifier itself when
    it has no label)."""
    return {**LAYER_LABELS, **MODEL_LABELS, **MISSING_LABELS}.get(name, name)


#: The short names of the columns that the displayed Tables 1 and 3 share (:func:`_display_cells`),
#: short so that the tables fit the page's text column; :data:`TABLE1_LEGEND` and
#: :data:`TABLE3_LEGEND` say under each table what they mean (:func:`memnb.viz.column_legend`).
ASSUMPTION, K, TESTS, OURS, RANKS, DECISIVE = ("check", "k", "tests", "pass, ours",
                                               "ranks, ours", "decisive")
#: The paper's pass fraction before its tag is added (:data:`PAPER_FRACTION`,
#: :data:`TABLE3_PAPER_FRACTION`).
_PAPER = "pass, paper"
#: Table 1's pool of images (:func:`table1_display`).
IMAGES = "images"
#: Why a pass at ``k`` below the paper's decides nothing, in a :data:`DECISIVE` cell.
_PASS_BELOW = "no: a pass at k below the paper's k"


def _display_cells(rows: pd.DataFrame) -> pd.DataFrame:
    """The columns Tables 1 and 3 share, in words, under their short names (:data:`ASSUMPTION`
    ...): what was tested (contexts for Assumption 2, random draws of k vectors otherwise), the
    pass fractions, the ranks seen, and whether the test decides the assumption
    (:data:`DECISIVE`)."""
    def tests(r: Any) -> str:
        if pd.isna(r["repeats"]):
            return "–"
        what = "contexts" if r["check"] == "assumption2" else "draws"
        return f"{int(r['repeats'])} {what}"

    def ranks(r: Any) -> str:
        if pd.isna(r["min_rank"]):
            return "–"
        low, high = int(r["min_rank"]), int(r["max_rank"])
        return str(low) if low == high else f"{low}–{high}"

    return pd.DataFrame({
        ASSUMPTION: rows["check"].map(lambda c: CHECK_LABELS.get(c, c)),
        K: rows["k"].map(lambda k: "–" if pd.isna(k) else int(k)),
        TESTS: [tests(r) for _, r in rows.iterrows()],
        OURS: rows["ours"],
        _PAPER: rows["paper"].map(lambda v: "–" if pd.isna(v) else v),
        RANKS: [ranks(r) for _, r in rows.iterrows()],
        DECISIVE: rows["decided"].map(lambda d: "yes" if d else _PASS_BELOW),
    }, index=rows.index)


def table1_display(table: pd.DataFrame) -> pd.DataFrame:
    """Table 1 as the chapter shows it: :func:`table1_comparison` with every identifier in
    words (representation, assumption, what was tested; the stored data keep their names), the
    paper's pass fractions and ranks beside ours (:data:`PAPER_FRACTION`, :data:`PAPER_RANKS`,
    headed with their tag; fractions to four decimals, as ours), and the paper's cells of each
    column this run could not compute (:func:`paper_only_rows`), in the paper's column order
    (:data:`TABLE1_ORDER`). Column names are short, so that the table fits the page's text
    column; :data:`TABLE1_LEGEND` says what each means."""
    rows = table1_comparison(table)
    cells = _display_cells(rows)
    trained64 = sc.dinov2_float64_for(table)
    if trained64 is not None:  # float32's test cannot decide A3 at DINOv2's trained embedding
        cell = (rows["representation"] == "dinov2_vits14_l0") & (rows["check"] == "assumption3")
        cells.loc[cell, DECISIVE] = (
            "no: float32 cannot decide it at this geometry; in float64 (ours): "
            f"{sc.float64_status(trained64)} (section \"Sec. 4.4 against the data\")")
    ref = paper.table1().set_index(["representation", "check"])
    cells.insert(cells.columns.get_loc(RANKS) + 1, PAPER_RANKS,
                 [_ranks_words(ref, (r, c)) for r, c in zip(rows["representation"],
                                                             rows["check"], strict=True)])
    cells[OURS] = rows["ours"].map(lambda v: f"{v:.4f}")
    cells[_PAPER] = rows["paper"].map(_fraction_words)
    out = pd.concat([pd.DataFrame({
        "representation": rows["representation"],
        IMAGES: rows["images"].map(lambda t: "–" if pd.isna(t) else int(t)),
    }, index=rows.index), cells], axis=1)
    out = pd.concat([out, paper_only_rows(table)], ignore_index=True)
    order = {rep: i for i, rep in enumerate(TABLE1_ORDER)}
    out = out.iloc[np.argsort([order.get(r, len(order)) for r in out["representation"]],
                              kind="stable")]
    out["representation"] = out["representation"].map(representation_label)
    return out.rename(columns={_PAPER: PAPER_FRACTION}).reset_index(drop=True)


def _fraction_words(value: Any) -> str:
    """A pass fraction in a cell of the displayed Table 1: four decimals, "–" for none."""
    return "–" if pd.isna(value) else f"{float(value):.4f}"


#: The tag of the paper's columns of the displayed Table 1: "[nb]" when every value of
#: :func:`memnb.papers.mahdavi.table1` comes from :data:`memnb.papers.mahdavi.TABLE1_NB` (the
#: saved output of the paper's notebook), else none.
TABLE1_PAPER_TAG = ("[nb]" if paper.table1()["source"].str.contains(paper.TABLE1_NB,
                                                                     regex=False).all() else "")
#: The paper's pass fractions and ranks beside ours in the displayed Table 1
#: (:func:`table1_display`), each header with :data:`TABLE1_PAPER_TAG`.
PAPER_FRACTION = f"{_PAPER} {TABLE1_PAPER_TAG}".strip()
PAPER_RANKS = f"ranks, paper {TABLE1_PAPER_TAG}".strip()
#: The order of Table 1's representations in the displayed table: the paper's columns, then ours.
TABLE1_ORDER = ("embedding", "random_attention", "random_vit", "trained_vit_b16",
                "dinov2_vits14_l0", "dinov2_vits14_l1")
#: Where the paper's Table 1 values come from, in words (:data:`memnb.papers.mahdavi.
#: TABLE1_NB`).
TABLE1_PAPER_SOURCE = paper.TABLE1_NB


def _ranks_words(ref: pd.DataFrame, key: tuple[str, str]) -> str:
    """The paper's lowest–highest rank of one Table 1 cell (``ref``: :func:`memnb.papers.
    mahdavi.table1` indexed by representation and check), "–" where it gives none."""
    if key not in ref.index or pd.isna(ref.loc[key, "min_rank"]):
        return "–"
    low, high = int(ref.loc[key, "min_rank"]), int(ref.loc[key, "max_rank"])
    return str(low) if low == high else f"{low}–{high}"


def not_computed_words(reason: str) -> str:
    """A column the table's run could not compute, in a few words for a table cell: "not
    computed (hub not reached)" when that run could not use the Hugging Face hub
    (:func:`memnb.scorecard.mahdavi.hub_missing`), else with the first words of ``reason`` (the
    caption gives it in full, :func:`missing_sentence`)."""
    why = "hub not reached" if sc.hub_missing(reason) else str(reason).split(":")[0]
    return f"not computed ({why})"


def paper_only_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 1 cells of each column this run could not compute (its ``missing``
    rows, e.g. the trained ViT-B/16 without the hub), in :func:`table1_display`'s columns
    (``representation`` still the identifier): the paper's pass fraction and ranks
    (:func:`memnb.papers.mahdavi.table1`), its images and tests run
    (:func:`paper_images_words`, :func:`paper_tests_words`), :func:`not_computed_words` in
    ours and "–" in the other columns of ours."""
    ref = paper.table1()
    keyed = ref.set_index(["representation", "check"])
    out = []
    for r in table[table["check"] == "missing"].itertuples():
        for p in ref[ref["representation"] == r.representation].itertuples():
            out.append({"representation": r.representation,
                        IMAGES: paper_images_words(),
                        ASSUMPTION: CHECK_LABELS.get(p.check, p.check),
                        K: int(p.k), TESTS: paper_tests_words(p.check),
                        OURS: not_computed_words(getattr(r, "reason", "")),
                        _PAPER: _fraction_words(p.pass_fraction),
                        RANKS: "–",
                        PAPER_RANKS: _ranks_words(keyed, (p.representation, p.check)),
                        DECISIVE: "–"})
    return pd.DataFrame(out)


def _paper_tag(value: Any) -> str:
    """Whose a paper value of the displayed Table 1 is, with its tag as its source gives it:
    "paper [nb]" for the saved output of the paper's notebook, else "paper, " and the source
    (a section of its text)."""
    return "paper [nb]" if "ipynb" in value.source else f"paper, {value.source}"


def paper_images_words() -> str:
    """The paper's Table 1 images (:data:`memnb.papers.mahdavi.TABLE1_IMAGES`) for a cell of a
    row the run could not compute, tagged (:func:`_paper_tag`)."""
    images = paper.TABLE1_IMAGES
    return f"{int(images.value)} ({_paper_tag(images)})"


def paper_tests_words(check: str) -> str:
    """The tests the paper ran for one check of Table 1, for a cell of a row the run could not
    compute, tagged (:func:`_paper_tag`): its contexts (one per image,
    :data:`memnb.papers.mahdavi.TABLE1_IMAGES`) for Assumption 2, its random draws
    (:data:`memnb.papers.mahdavi.TABLE1_DRAWS`) otherwise."""
    if check == "assumption2":
        images = paper.TABLE1_IMAGES
        return f"{int(images.value)} contexts ({_paper_tag(images)})"
    draws = paper.TABLE1_DRAWS
    return f"{int(draws.value)} draws ({_paper_tag(draws)})"


def paper_only_sentence(table: pd.DataFrame) -> str:
    """The caption's sentence on the rows of :func:`paper_only_rows`: which columns show the
    paper's values alone, the values with the draws behind the trained ViT-B/16's Assumption 1
    (:data:`memnb.papers.mahdavi.TABLE1_TRAINED_A1_PASSES` of
    :data:`memnb.papers.mahdavi.TABLE1_DRAWS`); their source is the caption's first sentence
    (:data:`TABLE1_PAPER_SOURCE`, the tag of the paper's columns); "" without such rows."""
    shown = paper_only_rows(table)
    if shown.empty:
        return ""
    ref = paper.table1().set_index(["representation", "check"])
    parts = []
    for rep in dict.fromkeys(shown["representation"]):
        cells = []
        for check in ("assumption2", "assumption1", "general_position"):
            if (rep, check) not in ref.index:
                continue
            frac, k = float(ref.loc[(rep, check), "pass_fraction"]), int(ref.loc[(rep, check),
                                                                                 "k"])
            words = f"{_CHECK_NAMES[check]}: {frac:.4f} at k = {k}"  # as the table shows it
            if rep == "trained_vit_b16" and check == "assumption1":
                passes, draws = (int(paper.TABLE1_TRAINED_A1_PASSES.value),
                                 int(paper.TABLE1_DRAWS.value))
                words += (f" ({passes:,} of {draws:,} draws of rank {k}, the other "
                          f"{draws - passes} of rank {int(ref.loc[(rep, check), 'min_rank'])})")
            elif _ranks_words(ref, (rep, check)) != "–":
                words += f" (ranks {_ranks_words(ref, (rep, check)).replace('–', '-')})"
            cells.append(words)
        parts.append(f"{representation_label(rep)} with " + ", ".join(cells))
    return ("Rows that the run could not compute show the paper's values alone, with its "
            "images and tests run, each tagged with its source: " + "; ".join(parts) + ".")


GEOMETRY = "n, d: ours / paper"
"""The column of the displayed Table 3 (:func:`table3_display`) with both geometries."""


def table3_display(table: pd.DataFrame) -> pd.DataFrame:
    """Table 3 as the chapter shows it: :func:`table3_comparison` with every identifier in
    words, our geometry beside the paper's."""
    rows = table3_comparison(table)
    geometry = [f"{int(n)}, {int(d)}" if pd.notna(n) else "–"
                for n, d in zip(rows.get("n", pd.Series(np.nan, index=rows.index)),
                                rows.get("d", pd.Series(np.nan, index=rows.index)),
                                strict=True)]
    out = pd.concat([pd.DataFrame({
        **_table3_identifiers(rows["representation"], rows["layer"]),
        GEOMETRY: [f"{ours} / {theirs}" for ours, theirs in
                   zip(geometry, rows["paper n, d"], strict=True)],
        "texts": rows["T"].map(lambda t: "–" if pd.isna(t) else int(t)),
    }, index=rows.index), _display_cells(rows)], axis=1)
    out = pd.concat([out, _table3_not_computed(table, out.columns)], ignore_index=True)
    return out.rename(columns={_PAPER: TABLE3_PAPER_FRACTION}).reset_index(
        drop=True)


def _table3_identifiers(representations: pd.Series, layers: pd.Series) -> dict[str, list[str]]:
    """The identifier cells of the displayed Table 3 (:func:`table3_display`), in words: our
    model, the paper's column it stands in for, and the layer."""
    return {
        "model (ours)": [TABLE3_MODEL_NAMES.get(r, representation_label(r))
                         for r in representations],
        "paper's column": [f"{_PAPER_MODELS[m]}, {w}" for m, w in
                           (paper.TABLE3_MODEL_MAP[r] for r in representations)],
        "layer": [_LAYERS.get(int(la), f"L{int(la)}") for la in layers]}


def _table3_not_computed(table: pd.DataFrame, columns: pd.Index) -> pd.DataFrame:
    """The displayed Table 3's rows for the models its run could not compute (its ``missing``
    rows): the paper's cells of that column, ours "not computed" with the run's reason
    (:func:`not_computed_words`), as Table 1 shows its columns not computed."""
    ref = paper.table3()
    parts = []
    for r in table[table["check"] == "missing"].itertuples():
        if r.representation not in paper.TABLE3_MODEL_MAP:
            continue
        model, weights = paper.TABLE3_MODEL_MAP[r.representation]
        cells = ref[(ref["model"] == model) & (ref["weights"] == weights)]
        parts.append(pd.DataFrame({
            **_table3_identifiers(pd.Series(r.representation, index=cells.index),
                                  cells["layer"]),
            GEOMETRY: "– / {}, {}".format(*paper.TABLE3_GEOMETRY[model]), "texts": "–",
            ASSUMPTION: cells["check"].map(lambda c: CHECK_LABELS.get(c, c)), K: "–",
            TESTS: "–", OURS: not_computed_words(str(r.reason)), _PAPER: cells["pass_fraction"],
            RANKS: "–", DECISIVE: "–"}, index=cells.index))
    return (pd.concat(parts, ignore_index=True)[list(columns)] if parts
            else pd.DataFrame(columns=columns))


#: The tag of the paper's column of the displayed Table 3, as :data:`TABLE1_PAPER_TAG`: "[nb]"
#: when every value of :func:`memnb.papers.mahdavi.table3` comes from the official notebook's
#: saved output (:data:`memnb.papers.mahdavi.TABLE3_NB`).
TABLE3_PAPER_TAG = ("[nb]" if paper.table3()["source"].str.contains(paper.TABLE3_NB,
                                                                     regex=False).all() else "")
TABLE3_PAPER_FRACTION = f"{_PAPER} {TABLE3_PAPER_TAG}".strip()


def _shared_legend(paper_fraction: str, source: str) -> dict[str, str]:
    """What the columns of Tables 1 and 3 that :func:`_display_cells` fills mean, under their
    short names (Mahdavi et al., Sec. 5.1 and App. J): ``paper_fraction`` is the tagged name of
    the paper's pass fraction in that table, ``source`` where its values come from."""
    return {
        ASSUMPTION: ("what is tested: A1, A2 and A3 are Assumptions 1-3 (A1: the queries have "
                     "Kruskal rank at least $n$; A2: every context $E$ has rank $n$; A3: the "
                     "vectors $e + \\mathrm{mean}(E)$ have Kruskal rank at least $n$), GP is "
                     "General Position (Kruskal rank $\\min(T, d)$)"),
        K: ("the rank that a draw (for A2, a context) must reach to pass: $n$ for A1-A3, $d$ "
            "for GP, or the number of images or sequences when there are fewer"),
        TESTS: ("how many contexts were tested (A2: one per image or sequence) or how many "
                "random draws of $k$ vectors (A1, A3, GP)"),
        OURS: (f"our pass fraction: the share of those contexts of rank $n$ (A2) or of those "
               f"draws of rank $k$; a cell passes at {sc.PASS:g} or more (*[reconstruction]*: "
               "the paper's threshold is stripped from our text); \"not computed\" where the "
               "run could not compute the model, with the caption's reason"),
        paper_fraction: f"the paper's pass fraction for the same cell ({source})",
        RANKS: ("the lowest and highest rank among our contexts (A2) or draws: how far a failed "
                "cell is from rank $k$"),
        DECISIVE: ("whether the cell decides its assumption: a failure always does (a dependent "
                   "subset of fewer vectors is one of more), a pass only at the paper's $k$, not "
                   "at a $k$ cut to fewer images or sequences than the paper's $k$"),
    }


#: What each column of the displayed Table 1 (:func:`table1_display`) means, in its order; the
#: chapter folds it under the table (:func:`memnb.viz.column_legend`).
TABLE1_LEGEND: dict[str, str] = {
    "representation": ("the layer whose outputs are tested: the paper's four (a randomly "
                       "initialised ViT-B/16's embedding layer, one random attention layer on "
                       "it, the first block of a random ViT-B/16, the first block of the trained "
                       "ViT-B/16), then DINOv2-small's embedding layer and first block (ours)"),
    IMAGES: ("the pool of images the contexts and draws come from (ours: the sample images that "
             "the caption names; where the run could not compute a model, the paper's, tagged)"),
    **_shared_legend(PAPER_FRACTION, TABLE1_PAPER_SOURCE),
    PAPER_RANKS: f"the paper's lowest and highest rank for the same cell ({TABLE1_PAPER_SOURCE})",
}
TABLE1_LEGEND[DECISIVE] += (
    "; where DINOv2-small's trained embedding layer fails A3 in float32, whose rank test can "
    "fail at that geometry whatever the weights (the untrained-embedding control), the cell says "
    "so and gives what the same draws give in float64 (ours; section *Sec. 4.4 against the "
    "data*)")
TABLE1_LEGEND = {column: TABLE1_LEGEND[column] for column in (
    "representation", IMAGES, ASSUMPTION, K, TESTS, OURS, PAPER_FRACTION, RANKS, PAPER_RANKS,
    DECISIVE)}

#: What each column of the displayed Table 3 (:func:`table3_display`) means, in its order.
TABLE3_LEGEND: dict[str, str] = {
    "model (ours)": ("the model we ran: MiniLM-L6 stands in for BERT-large (trained, and its "
                     "architecture with random weights), GPT-2 small for GPT-2 large"),
    "paper's column": "the column of the paper's Table 3 that the row stands in for",
    "layer": "L0, the embedding layer's output; L1, the first block's",
    GEOMETRY: ("our context length $n$ and width $d$, then the paper's for that column "
               "(one column for both, so that the table fits the page)"),
    "texts": "the number of text sequences, one context each, that the draws come from",
    **_shared_legend(TABLE3_PAPER_FRACTION,
                     paper.TABLE3_NB if TABLE3_PAPER_TAG else "App. J"),
}


#: Proposition 4's table in words: the columns of :func:`proposition4_table` the chapter shows.
PROPOSITION4_COLUMNS = {
    "case": "input",
    "T": "T", "n": "n", "d": "d",
    "kruskal_before": "Kruskal, before",
    "kruskal_shifted": "Kruskal of e + mean(E)",
    "kruskal_after": "Kruskal, after",
    "contexts_rank_n_before": "rank-n contexts, before",
    "contexts_rank_n_after": "rank-n contexts, after",
    "hypotheses": "premises met",
    "conclusion": "A1, A2 after",
    "closed_form_error": "distance",
}

#: What each column of the displayed Proposition 4 table (:func:`proposition4_display`) means;
#: the names are short so that the table fits the page's text column.
PROPOSITION4_LEGEND: dict[str, str] = {
    "input": ("a random input meeting the hypotheses, or one that breaks a hypothesis (ours): "
              "every context of rank $n - 1$ (A2), the same tokens in every example (A3), or "
              "$W_VW_O = -I$"),
    "T": "the number of examples (contexts)",
    "n": "the context length",
    "d": "the embedding dimension",
    "Kruskal, before": "the Kruskal rank of the $T$ queries before the layer",
    "Kruskal of e + mean(E)": ("the Kruskal rank of the vectors $e + \\mathrm{mean}(E)$; "
                               "Assumption 3 asks for at least $n$"),
    "Kruskal, after": ("the Kruskal rank of the queries the layer outputs; Assumption 1 asks "
                       "for at least $n$"),
    "rank-n contexts, before": "how many of the $T$ contexts have rank $n$ before the layer",
    "rank-n contexts, after": ("how many of the $T$ contexts the layer outputs have rank $n$ "
                               "(Assumption 2: all of them)"),
    "premises met": ("whether the input meets all of Proposition 4's hypotheses: Assumptions 2 "
                     "and 3, and the layer's $W_KW_Q^\\top = 0$ and $W_VW_O = I$"),
    "A1, A2 after": "whether the layer's output satisfies Assumptions 1 and 2 (the conclusion)",
    "distance": ("the largest distance between the layer's output and the proof's closed form "
                 "$x + \\mathrm{mean}(E)$ (round-off where the hypotheses hold)"),
}


def proposition4_display(table: pd.DataFrame) -> pd.DataFrame:
    """Proposition 4's cases (:func:`proposition4_table`) as the chapter shows them: the columns
    of :data:`PROPOSITION4_COLUMNS` under their short names (:data:`PROPOSITION4_LEGEND` says
    what each means), the distance to the closed form to two significant digits."""
    shown = table[list(PROPOSITION4_COLUMNS)].rename(columns=PROPOSITION4_COLUMNS)
    shown["distance"] = shown["distance"].map(lambda v: f"{v:.1e}")
    return shown


def assumptions_by_layer(table: pd.DataFrame) -> pd.DataFrame:
    """One row per representation of a Table 1 run: for each check ``pass``, ``fail`` or
    ``undecided`` (a pass at a ``k`` clipped below the paper's, :func:`memnb.assumptions.
    conclusive`), with the pass fraction and ``k``. Columns: representation, layer, A2, A1, A3,
    General Position (each ``"pass (1 at k = 197)"``-style text) and the raw ``status_<check>``."""
    rows = table1_comparison(table)
    out = []
    for rep, part in rows.groupby("representation", sort=False):
        row: dict[str, Any] = {"representation": rep, "layer": LAYER_LABELS.get(rep, rep)}
        for check, label in _CHECK_NAMES.items():
            cell = part[part["check"] == check]
            if cell.empty:
                row[label], row[f"status_{check}"] = "not tested", "not tested"
                continue
            r = cell.iloc[0]
            status = ("undecided" if not r["decided"]
                      else "pass" if r["ours"] >= sc.PASS else "fail")
            ranks = (f"; ranks {int(r['min_rank'])}-{int(r['max_rank'])}"
                     if status == "fail" and pd.notna(r["min_rank"]) else "")
            row[label] = f"{status} (pass fraction {r['ours']:.4g} at k = {int(r['k'])}{ranks})"
            row[f"status_{check}"] = status
        out.append(row)
    return pd.DataFrame(out)


def full_or_fresh(result: Any, profile: str) -> tuple[pd.DataFrame, str]:
    """The table a discussion reads from a :func:`memnb.results.fresh_and_cached` result: the
    full-scale table when one exists (committed, or this run under ``full``), else this
    profile's; and that table's profile."""
    if profile == "full" or result.cached is None:
        return result.fresh, profile
    return result.cached, "full"


def shown_run_note(result: Any, profile: str, elsewhere: str = "") -> str:
    """Which run the table below shows, for a :func:`memnb.results.fresh_and_cached` result
    whose table is the one :func:`full_or_fresh` picks: the committed full-scale run (its day,
    device, seeds and commits, from its provenance, as :func:`memnb.results.fresh_and_cached`'s
    note names them), this build's run when it is the full one or the only one. Where the table
    shows the committed run, it says that this build's run is not in it, and ``elsewhere``
    (e.g. "Fig. 1 draws it beside the full run") says where the page shows it, if anywhere."""
    from memnb.results import committed_run

    name = result.name
    shown, shown_profile = full_or_fresh(result, profile)
    if shown_profile == profile:
        whose = ("the full-scale one" if profile == "full"
                 else "no full-scale run has been computed yet")
        return f"The table below shows this build's `{profile}` run of `{name}` ({whose})."
    run = committed_run(name, shown, result.cached_provenance or {})
    partial = getattr(result, "partial", None)
    text = (f"The table below shows the committed full-scale run of `{name}` "
            f"({run.day}, {run.label}, {run.commits}{run.notes}"
            + (f"; {partial}" if partial is not None else "") + ")")
    return (text + f". This build's `{profile}` run is not in the table"
            + (f"; {elsewhere}." if elsewhere else "."))


def dinov2_discussion(result: Any, profile: str) -> str:
    """Sec. 4.4 against the data: which assumption each layer passes, and whether DINOv2 (ours)
    agrees with the paper's account (A3 at the embedding layer, hence A1 after one attention
    layer by Proposition 4), with the trained embedding layer's A3 test redone in float64 where
    it fails in float32 (:func:`memnb.scorecard.mahdavi.dinov2_float64_for`), and the status of
    its scorecard row (:data:`DINOV2_ROW`, read from the row as the closing table shows it,
    :func:`scorecard_row`, with the reason of a cap). Says that DINOv2 was not run when its rows
    are absent."""
    table, used = full_or_fresh(result, profile)
    layers = assumptions_by_layer(table)
    trained64 = sc.dinov2_float64_for(table)
    lines = [f"Assumptions per layer in the `{used}` Table 1 run "
             f"({int(table['T'].dropna().max())} images):", ""]
    for r in layers.to_dict("records"):
        a3 = r["A3"]
        if r["representation"] == "dinov2_vits14_l0" and trained64 is not None:
            a3 = f"{a3} in float32 (in float64, ours: {sc.float64_status(trained64)})"
        lines.append(f"- {r['layer']}: A2 {r['A2']}; A1 {r['A1']}; A3 {a3}; General "
                     f"Position {r['General Position']}.")
    missing = table[table["check"] == "missing"]
    for r in missing.itertuples():
        theirs = paper_layer_words(r.representation)
        lines.append(f"- {LAYER_LABELS.get(r.representation, r.representation)}: not computed "
                     f"({sc.unavailable_words(r.reason)})"
                     + (f"; the paper's: {theirs}" if theirs else "") + ".")
    by = layers.set_index("representation")
    if not {"dinov2_vits14_l0", "dinov2_vits14_l1"} <= set(by.index):
        reasons = dict(zip(missing["representation"], missing.get("reason", []), strict=False))
        why = (f"it could not be computed: {reasons['dinov2_vits14']}"
               if "dinov2_vits14" in reasons else
               f"it runs in the `full` profile only (`{DINOV2_COMMAND}`)")
        lines += ["", f"**DINOv2 (ours): not run.** The `{used}` table has no DINOv2 rows: "
                  f"{why}. Nothing is concluded about trained embeddings from this table."]
        return "\n".join(lines)
    emb_a3 = by["status_assumption3"].get("embedding", "not tested")
    statuses, verdict = sc.dinov2_verdict(table, trained64)
    redone = ("" if trained64 is None else
              f" (in float64, ours: {statuses['l0_a3_float64']})")
    head, _, reading = verdict.partition(": ")
    row = scorecard_row(DINOV2_ROW, profile)
    status = (f"Its scorecard row, {DINOV2_ROW} (ours): **{status_words(row)}**"
              f"{criteria.cap_reason(row.measured)}.")
    lines += ["", f"Sec. 4.4 and 5.1 report Assumption 3 at a *randomly initialised* "
              f"embedding layer (ours: {emb_a3}) and Assumption 1 after the first block of "
              f"the trained ViT. DINOv2's trained embedding layer, tested in float32 as every "
              f"layer of Table 1: A1 {statuses['l0_a1']}, A3 {statuses['l0_a3']}{redone}. Its "
              f"first block: A1 {statuses['l1_a1']}, A2 {statuses['l1_a2']}.",
              "", f"**Verdict (ours, from the `{used}` table).** {status} DINOv2 {head}"
              + (f". {_sentences(reading)}" if reading else ".")]
    told = ""
    if trained64 is not None:
        told = "*The same test in float64*, above"
        lines += ["", "**The same test in float64.** "
                  + _sentences(sc.float64_text(trained64, table))]
    if statuses["l0_a3"] == "fail":
        controls = sc.embedding_controls(_dinov2_images(table))
        lines += ["", "**Does training cause the failure in float32?** "
                  + _sentences(sc.embedding_control_text(controls, table, detail=False,
                                                         trained64=trained64,
                                                         trained64_told=told))]
    return "\n".join(lines)


def paper_layer_words(representation: str) -> str:
    """The paper's Table 1 cells of one representation (:func:`memnb.papers.mahdavi.table1`)
    in the words of :func:`assumptions_by_layer` (pass at a pass fraction of at least
    :data:`memnb.scorecard.mahdavi.PASS`, the ranks of a failure, and for the trained
    ViT-B/16's Assumption 1 the draws behind its fraction), with their source
    (:data:`TABLE1_PAPER_SOURCE`); "" for a representation the paper does not have."""
    ref = paper.table1()
    ref = ref[ref["representation"] == representation].set_index("check")
    if ref.empty:
        return ""
    parts = []
    for check in ("assumption2", "assumption1", "assumption3", "general_position"):
        if check not in ref.index:
            continue
        r = ref.loc[check]
        frac, k = float(r["pass_fraction"]), int(r["k"])
        status = "pass" if frac >= sc.PASS else "fail"
        extra = ""
        if representation == "trained_vit_b16" and check == "assumption1":
            passes, draws = (int(paper.TABLE1_TRAINED_A1_PASSES.value),
                             int(paper.TABLE1_DRAWS.value))
            extra = f": {passes:,} of {draws:,} draws of rank {k}"
        elif status == "fail" and pd.notna(r["min_rank"]):
            extra = f"; ranks {int(r['min_rank'])}-{int(r['max_rank'])}"
        parts.append(f"{_CHECK_NAMES[check]} {status} (pass fraction {frac:.4g} at k = {k}"
                     f"{extra})")
    return "; ".join(parts) + f" ({TABLE1_PAPER_SOURCE})"


def _sentences(text: str) -> str:
    """A long clause list as short sentences: ``text`` split at each "; " outside parentheses
    and brackets, every part capitalised and closed with a full stop."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char in "([") - (char in ")]")
        if depth == 0 and text.startswith("; ", i):
            parts.append(text[start:i])
            start = i + 2
    parts.append(text[start:])
    return " ".join(_capital(p.strip()).rstrip(".") + "." for p in parts if p.strip())


def _dinov2_images(table: pd.DataFrame) -> int:
    """The image pool of the untrained-embedding control: that of a Table 1 run's DINOv2 rows,
    else the ``full`` profile's pool of Table 1 (a smaller run may hold fewer images than the
    control's ``k = n``)."""
    from memnb.experiments.registry import get

    rows = table[table["representation"] == "dinov2_vits14_l0"]
    if len(rows):
        return int(rows["T"].dropna().max())
    return int(get("mahdavi.table1").params("full")["images"])


def embedding_control_markdown(result: Any, profile: str) -> str:
    """The untrained-embedding control (ours, :mod:`memnb.embedding_control`) as a table: for
    each geometry of Table 1, Assumption 3 on an untrained embedding in float32 and in float64
    on the same draws, beside Table 1's float32 cell of the same geometry (the trained DINOv2
    embedding layer, with the same draws redone in float64 where it fails in float32,
    :func:`memnb.scorecard.mahdavi.dinov2_float64_for`; the randomly initialised ViT-B/16
    embedding layer). Reads the table :func:`full_or_fresh` picks, on the same image pool; says
    so when the images are absent."""
    table, used = full_or_fresh(result, profile)
    images = _dinov2_images(table)
    controls = sc.embedding_controls(images)
    if controls is None:
        return ("The control needs the sample images, which this checkout lacks: not computed.")
    rows = table1_comparison(table).set_index(["representation", "check"])
    beside = {14: ("dinov2_vits14_l0", "DINOv2-small embedding layer, trained"),
              16: ("embedding", "ViT-B/16 embedding layer, random weights")}

    trained64 = sc.dinov2_float64_for(table)

    def cell(test: Any) -> str:
        return f"{test.pass_fraction:.4g} (ranks {sc.rank_range(test.min_rank, test.max_rank)})"

    def table1_cell(patch: int) -> str:
        rep, label = beside[patch]
        if (rep, "assumption3") not in rows.index:
            return "not in this table"
        r = rows.loc[(rep, "assumption3")]
        text = (f"{label}: {r['ours']:.4g} "
                f"(ranks {sc.rank_range(int(r['min_rank']), int(r['max_rank']))})")
        if patch == 14 and trained64 is not None:
            text += f"; the same draws in float64 (ours): {cell(trained64.float64)}"
        return text

    pool = int(table["T"].dropna().max())
    header = ["geometry", "k = n, d", "untrained, float32: pass fraction (ranks)",
              "untrained, float64", "float64 draws: smallest σ_min/σ_max",
              "float32 tolerance max(k, d)·eps",
              f"Table 1 (`{used}` run, {pool} images), float32"]
    body = [[c.geometry.name, f"{c.k}, {c.geometry.d}", cell(c.float32), cell(c.float64),
             f"{c.relative_sv[0]:.2g} to {c.relative_sv[1]:.2g}", f"{c.tolerance32:.2g}",
             table1_cell(c.geometry.patch)] for c in controls]
    first = controls[0]
    return (f"Assumption 3 at an untrained embedding layer, {first.float32.repeats} random "
            f"draws of k = n vectors from the first {first.T} sample images (the pool of "
            f"Table 1's `full` profile, where DINOv2 runs), weights and draws seeded "
            f"(seed {first.seed}):\n\n" + markdown_table(header, body))


# --- Table 3: the trained GPT-2 -----------------------------------------------------------------

GPT2_PACKAGES_CHECKED = sc.GPT2_PACKAGES_CHECKED


def gpt2_trained_note(result: Any, profile: str) -> str:
    """Why Table 3 (App. J) has no trained GPT-2 column (when the full-scale table, or else this
    profile's, has none): the loader's reason as a fact about the run that computed the table
    (:func:`memnb.scorecard.mahdavi.unavailable_words`), that the book's inputs are offline
    (:data:`memnb.scorecard.mahdavi.HUB_FILLS`) and the packages that a search of ours checked
    for trained weights usable offline (:data:`GPT2_PACKAGES_CHECKED`; the search's date is not
    recorded)."""
    table, used = full_or_fresh(result, profile)
    missing = table[(table["check"] == "missing") & (table["representation"] == "gpt2_trained")]
    if missing.empty:
        present = (table["representation"] == "gpt2_trained").any()
        return (f"The trained GPT-2 column was computed in the `{used}` table." if present else
                f"The `{used}` table does not include the trained GPT-2.")
    checked = "; ".join(f"`{name}` {version}: {what}" for name, version, what in
                        GPT2_PACKAGES_CHECKED)
    reason = str(missing.iloc[0]["reason"])
    fills = f" {_capital(sc.HUB_FILLS)}." if sc.hub_missing(reason) else ""
    return (f"**Trained GPT-2: not computed** (`{used}` table). "
            f"{_capital(sc.unavailable_words(reason))}.{fills} A search of ours in the Python "
            "package index for trained GPT-2 weights usable offline found none among the "
            f"packages it checked (the date of the search is not recorded): {checked}.")


# --- Figs. 2a-c --------------------------------------------------------------------------------

def fig2a(result: Any, profile: str) -> Any:
    """Fig. 2a: examples memorized against H (shared context), with Theorem 1's guarantee; the
    committed full-scale run in its own panel when there is one, its panel title and the
    caption's visible lead saying when it is partial (:func:`partial_state`, and the seeds at
    each T where they differ, :func:`seeds_by_size`)."""
    runs = _training_runs(result, profile)
    fig, axes = _figure(5.6, runs)
    for ax, (label, table, full) in zip(axes[:, 0], runs, strict=True):
        _memorized_panel(ax, table, "H", "heads H", full=full)
        ax.set_title(_panel_title(_run_title(label, table, result),
                                  "shared context, " + _fixed(table, "n", "d_h", "d", "C")),
                     fontsize=9)
    _legend_below(fig, axes)

    def describe(table: pd.DataFrame) -> str:
        fit = sc.fig2a_verdict(table)
        return (f"linear fit at T = {int(table['T'].max())}: {fit.values['slope']:.1f} examples "
                f"per head, R² = {fit.values['r2']:.3f}. {_margin_sentence(table, 'H')} "
                f"{_sizes_note(table)}")

    tables = [table for _, table, _ in runs]
    text = folded("Examples memorized against the number of heads H (shared context), with "
                  "Theorem 1's guarantee (dashed)." + _partial_lead(result),
                  _runs_text(runs, describe, result, "mahdavi.heads", profile) + " " + _MARGIN_WHY
                  + _left_out_note(tables, "H") + " " + GUARANTEE_SOURCE, "Fig. 2a", profile)
    return viz.caption(fig, paper_counterpart("Fig. 2a", _MEM), text=text,
                       profile=profile, source=_source(runs))


def fig2b(result: Any, profile: str) -> Any:
    """Fig. 2b: examples memorized against the context length n; the committed full-scale run
    in its own panel when there is one."""
    runs = _training_runs(result, profile)
    fig, axes = _figure(5.6, runs)
    for ax, (label, table, full) in zip(axes[:, 0], runs, strict=True):
        _memorized_panel(ax, table, "n", "context length n", full=full)
        ax.set_title(_panel_title(_run_title(label, table, result),
                                  "shared context, " + _fixed(table, "H", "d_h", "d", "C")),
                     fontsize=9)
    _legend_below(fig, axes)

    def describe(table: pd.DataFrame) -> str:
        means = sc.by_x(table, "n")
        return ("mean count at " + ", ".join(f"n = {int(r.n)}: {r.mean:.1f}"
                                             for r in means.itertuples())
                + f" (T = {int(table['T'].max())}). {_margin_sentence(table, 'n')}")

    text = folded("Examples memorized against the context length n (shared context)."
                  + _partial_lead(result),
                  _runs_text(runs, describe, result, "mahdavi.context", profile) + " "
                  + _MARGIN_SEE_2A + _left_out_note([table for _, table, _ in runs], "n"),
                  "Fig. 2b", profile)
    return viz.caption(fig, paper_counterpart("Fig. 2b", _MEM), text=text,
                       profile=profile, source=_source(runs))


def _fig2c_trend(table: pd.DataFrame) -> str:
    """Whether the mean counts move past d_h = n beyond seed noise (the verdict's test)."""
    n = int(table["n"].iloc[0])
    means = sc.by_x(table, "d_h")
    at_n = means[means["d_h"] == n]
    after = means[means["d_h"] > n]
    if not (len(at_n) and len(after)):
        return f"no d_h at and past n = {n} ran (T = {int(table['T'].max())})."
    v = sc.fig2c_verdict(table).values
    counts = (f"{float(at_n['mean'].iloc[0]):.1f} at d_h = n = {n}, "
              + ", ".join(f"{r.mean:.1f} at d_h = {int(r.d_h)}" for r in after.itertuples()))
    change = (f"the line fitted past d_h = n changes the count by {v['change']:+.1f} over "
              f"the sweep, against a noise tolerance of {v['tol']:.1f} "
              f"({sc.fig2c_noise(means)})")
    peak = sc.fig2c_peak(means, n)
    before = f" {_capital(peak['text'])}." if peak is not None else ""
    if v["within_noise"]:
        return (f"past d_h = n the mean counts ({counts}) move by no more than the noise "
                f"tolerance: {change}.{before}")
    word = "rise" if v["change"] > 0 else "fall"
    return f"past d_h = n the mean counts {word} beyond seed noise ({counts}): {change}.{before}"


#: Why no gain is expected past d_h = n with a shared context: the book's own derivation, not
#: the paper's. The logits are affine, not linear, in the raw query: the input map's bias and
#: the position-0 encoding add a fixed vector to it (:class:`memnb.models.MultiHeadAttention`).
FIG2C_ARGUMENT = ("*(ours)* With a shared context the logits are E W_K W_Qᵀ e, with E and e the "
                  "tokens after the input map and the positions: an affine function of the raw "
                  "query (the input map's bias and the position-0 encoding add a fixed vector "
                  "to it) through the n × d matrix E W_K W_Qᵀ, of rank at most min(n, d_h). At "
                  "d_h = n that matrix can already be any n × d matrix (for E of rank n), so "
                  "d_h > n adds no function the layer could not already represent; a rise past "
                  "n would be an optimisation effect (App. A *[reconstruction: its symbols "
                  "are stripped from our text and restored by us]*: a larger d_h trains faster "
                  "until enough steps are run).")


def fig2c(result: Any, profile: str) -> Any:
    """Fig. 2c: examples memorized against d_h, with the knee d_h = n marked; the committed
    full-scale run in its own panel when there is one."""
    runs = _training_runs(result, profile)
    fig, axes = _figure(5.6, runs)
    for ax, (label, table, full) in zip(axes[:, 0], runs, strict=True):
        _memorized_panel(ax, table, "d_h", "key/query dimension d_h", full=full)
        n = int(table["n"].iloc[0])
        ax.axvline(n, color=viz.PALETTE["bound"], linestyle=":", linewidth=1, label="d_h = n")
        ax.set_title(_panel_title(_run_title(label, table, result),
                                  "shared context, " + _fixed(table, "H", "n", "d", "C")),
                     fontsize=9)
    _legend_below(fig, axes)
    text = folded("Examples memorized against d_h (shared context); the dotted line marks "
                  "d_h = n." + _partial_lead(result),
                  _runs_text(runs, _fig2c_trend, result, "mahdavi.head_dim", profile)
                  + " " + FIG2C_ARGUMENT, "Fig. 2c", profile)
    return viz.caption(fig, paper_counterpart("Fig. 2c", _MEM), text=text,
                       profile=profile, source=_source(runs))


# --- Fig. 3 ------------------------------------------------------------------------------------

#: Fig. 3's two tested shares: (column of :func:`memnb.scorecard.mahdavi.saturation_stats`,
#: words, the verdict's test in words, its threshold, whether the threshold is strict).
_FIG3_SHARES = (
    ("some_saturated", "examples with at least one saturated head",
     f"> {sc.FIG3_SATURATED_MIN:.0%}, our threshold", sc.FIG3_SATURATED_MIN, True),
    ("unsaturated", "examples that keep a non-saturated head",
     f"≥ {sc.FIG3_UNSATURATED_MIN:.0%}, our threshold", sc.FIG3_UNSATURATED_MIN, False),
)


def _binding_text(h: int, r: Any, per_seed: pd.DataFrame | None) -> str:
    """Which of Fig. 3's two tested shares (:data:`_FIG3_SHARES`) is binding at ``H = h`` (the
    one whose mean lies closest to its threshold), with its range over the seeds and the seeds
    on the wrong side of the threshold, which the verdict applies to the mean."""
    column, words, _, threshold, strict = min(
        _FIG3_SHARES, key=lambda share: float(getattr(r, share[0])) - share[3])
    text = f"the binding one, closest to its threshold, is the share of {words}"
    if per_seed is None or h not in per_seed.index.get_level_values("H"):
        return text
    shares = per_seed.loc[h, column]
    text += f": per seed {shares.min():.1%} to {shares.max():.1%}"
    fail = [f"seed {int(seed)}: {share:.1%}" for seed, share in shares.items()
            if not sc.share_meets(share, threshold, strict)]
    if fail:
        side = "at or below" if strict else "below"
        text += (f" ({', '.join(fail)}, {side} our {threshold:.0%} threshold, which the "
                 "verdict applies to the mean)")
    return text


def _saturation_text(stats: pd.DataFrame, runs: pd.DataFrame | None = None) -> str:
    """One clause per ``H`` of :func:`memnb.scorecard.mahdavi.saturation_stats`: the share of
    (head, example) pairs saturated (reported), and the two shares of examples the verdict
    tests, each with its threshold (:data:`memnb.scorecard.mahdavi.FIG3_SATURATED_MIN`,
    :data:`memnb.scorecard.mahdavi.FIG3_UNSATURATED_MIN`); with ``runs`` (the rows ``stats``
    is over), also which of the two is binding and its range over the seeds
    (:func:`_binding_text`)."""
    per_seed = None if runs is None else sc.seed_shares(runs)
    clauses = []
    for h, r in stats.iterrows():
        tested = " and ".join(
            f"{float(getattr(r, column)):.1%} of {words} ({test}: "
            + ("met" if sc.share_meets(getattr(r, column), threshold, strict) else "not met")
            + ")" for column, words, test, threshold, strict in _FIG3_SHARES)
        binding = _binding_text(int(h), r, per_seed)
        clauses.append(f"H = {h} (T = {', '.join(map(str, r.sizes))}): {r.saturated_pairs:.1%} "
                       f"of (head, example) pairs saturated; the verdict tests both shares of "
                       f"examples, as means over the runs: {tested}; {binding}")
    return "; ".join(clauses)


def _searched_text(table: pd.DataFrame) -> str:
    """App. H's search and the statistics at the sizes it found, for one run of Fig. 3."""
    text = sc.search_text(table, with_paper=False)
    text = _capital(text)
    runs = sc.searched_runs(table)
    if runs.empty:
        return f"{text}; no seed memorized any tried size, so there is nothing to compare"
    return (f"{text}. At those sizes: {_saturation_text(sc.saturation_stats(runs), runs)}. "
            + saturation_readings_text(runs))


#: App. H's first finding, quoted from our text of it: what Fig. 3's readings interpret.
FIG3_MANY_HEADS = "a significant number of heads are saturated for the majority of examples"
#: Fig. 3's readings of :data:`FIG3_MANY_HEADS` (ours): column of
#: :func:`saturation_readings` and the share it is, in words.
FIG3_READINGS = (
    ("some_saturated", "examples with at least one saturated head"),
    ("half_saturated", "examples with at least half of their heads saturated"),
    ("saturated_pairs", "(head, example) pairs saturated"),
)
#: The columns of :func:`saturation_readings`, in the order of :data:`FIG3_READINGS`.
_READING_COLUMNS = tuple(column for column, _ in FIG3_READINGS)


def _run_readings(run: pd.DataFrame, h: int) -> tuple[float, float, float]:
    """The three shares of :data:`FIG3_READINGS` in one run (one seed at one ``T``) at ``H = h``:
    examples with a saturated head, with at least half of their heads saturated, and saturated
    (head, example) pairs."""
    frac = run.set_index("saturated_heads")["example_fraction"]
    return (float(frac[frac.index > 0].sum()), float(frac[2 * frac.index >= h].sum()),
            float(run["saturated_fraction"].iloc[0]))


def saturation_readings(runs: pd.DataFrame, *, by_seed: bool = False) -> pd.DataFrame:
    """Per ``H``, over the rows of the searched runs (:func:`memnb.scorecard.mahdavi.
    searched_runs`), the shares that three readings of :data:`FIG3_MANY_HEADS` compare with
    one half (ours), each a mean over the runs (seed, ``T``): examples with at least one
    saturated head (``some_saturated``, the verdict's reading), examples with at least half of
    their ``H`` heads saturated (``half_saturated``) and saturated (head, example) pairs
    (``saturated_pairs``). With ``by_seed``, one row per ``(H, seed)`` instead, each a mean over
    that seed's runs (the table needs a ``seed`` column)."""
    keys = [c for c in ("seed", "T") if c in runs.columns]
    rows = []  # one per run: its H, its seed (when recorded) and its three shares
    for h, part in runs.groupby("H"):
        for key, run in (part.groupby(keys) if keys else [((None,), part)]):
            seed = key[0] if "seed" in keys else None
            rows.append((int(h), seed, *_run_readings(run, int(h))))
    frame = pd.DataFrame(rows, columns=["H", "seed", *_READING_COLUMNS]).astype(
        dict.fromkeys(_READING_COLUMNS, float))
    if by_seed:
        frame["seed"] = frame["seed"].astype(int)
        return frame.groupby(["H", "seed"])[list(_READING_COLUMNS)].mean()
    return frame.groupby("H")[list(_READING_COLUMNS)].mean()


def seed_readings(runs: pd.DataFrame) -> pd.DataFrame | None:
    """:func:`saturation_readings` per ``(H, seed)``; ``None`` without a seed column or with one
    seed (as :func:`memnb.scorecard.mahdavi.seed_shares`)."""
    if "seed" not in runs or runs["seed"].nunique() < 2:
        return None
    return saturation_readings(runs, by_seed=True)


def _seeds_above_half(shares: pd.Series) -> str:
    """One ``H``'s share of one reading over the seeds (:func:`seed_readings`): its range and
    how many seeds are above one half (:data:`memnb.scorecard.mahdavi.FIG3_SATURATED_MIN`)."""
    low, high = f"{shares.min():.1%}", f"{shares.max():.1%}"
    spread = f"{low} in every seed" if low == high else f"per seed {low} to {high}"
    above = sum(sc.share_meets(v, sc.FIG3_SATURATED_MIN, strict=True) for v in shares)
    count = ("every seed" if above == len(shares) else "no seed" if above == 0 else
             f"{above} of {len(shares)} seeds")
    return f"{spread}, more than half in {count}"


def saturation_readings_text(runs: pd.DataFrame) -> str:
    """Three readings of App. H's :data:`FIG3_MANY_HEADS` (ours), each compared with one half
    at every ``H`` (:func:`saturation_readings`; more than half, as the verdict's
    :data:`memnb.scorecard.mahdavi.FIG3_SATURATED_MIN`): the mean over the seeds, and with two
    seeds or more its range over them and how many are above one half (:func:`seed_readings`).
    The verdict judges the first, the weakest; the two stricter ones are reported. One sentence
    without its full stop (the caption ends it); "" without runs."""
    if runs.empty:
        return ""
    shares = saturation_readings(runs)
    per_seed = seed_readings(runs)
    least = sc.FIG3_SATURATED_MIN
    parts = []
    for i, (column, words) in enumerate(FIG3_READINGS):
        values = []
        for h in shares.index:
            value = f"{shares.loc[h, column]:.1%} at H = {h}"
            if per_seed is not None and h in per_seed.index.get_level_values("H"):
                value += f" ({_seeds_above_half(per_seed.loc[h, column])})"
            values.append(value)
        met = [sc.share_meets(v, least, strict=True) for v in shares[column]]
        verdict = ("the mean more than half at every H" if all(met) else
                   "the mean more than half at no H" if not any(met) else
                   "the mean more than half at H = " + ", ".join(
                       str(h) for h, ok in zip(shares.index, met, strict=True) if ok) + " only")
        whose = "the verdict's reading, the weakest" if i == 0 else "a stricter reading, reported"
        listed = (values[0] if len(values) == 1 else
                  ", ".join(values[:-1]) + f" and {values[-1]}")
        parts.append(f"{words}: mean {listed}, {verdict} ({whose})")
    over = ("each a mean over the seeds, with its range over them and the seeds above one "
            "half; " if per_seed is not None else "")
    return (f"App. H's \"{FIG3_MANY_HEADS}\" read three ways (ours; {over}the verdict judges "
            "the first, the two stricter readings are reported): " + "; ".join(parts))


#: Where Fig. 3's reference sizes come from: App. H says "around" a size for each H, but the
#: numbers are stripped from our text of it; :data:`memnb.papers.mahdavi.SATURATION_CONFIGS`
#: takes them from the official code's ``reproduce.sh``.
PAPER_SIZES_SOURCE = ("App. H calls each size \"around\" the largest its model memorized "
                      "perfectly, but the numbers are stripped from our text of App. H: these "
                      "are the sizes of the official code's `reproduce.sh` "
                      "(memnb.papers.mahdavi).")


def _paper_sizes_text(table: pd.DataFrame) -> str:
    """Our training accuracy at the paper's sizes, where a run tried them (a finding of ours
    when it is below 100 %: App. H calls them about the largest its models memorized; the values
    come from the official ``reproduce.sh``)."""
    parts = []
    for h, t in paper.SATURATION_CONFIGS.value:
        at = table[(table["H"] == h) & (table["T"] == t)]
        if at.empty:
            continue
        per_seed = at.groupby("seed")["accuracy"].min() if "seed" in at else at["accuracy"]
        parts.append((h, t, float(per_seed.mean()), int((per_seed >= 1.0).sum()),
                      len(per_seed)))
    if not parts or all(kept == ran for *_, kept, ran in parts):
        return ""
    return ("At the paper's sizes (about the largest its models memorized perfectly, by App. H; "
            "the values from the official `reproduce.sh`), our training with the official settings "
            "did not memorize every example "
            "in every seed (" + "; ".join(_paper_size_outcome(*part) for part in parts)
            + "; a finding of ours about the paper's sizes). ")


def _paper_size_outcome(h: int, t: int, accuracy: float, kept: int, ran: int) -> str:
    """One paper size's outcome: the (mean) training accuracy and how many seeds were perfect."""
    if ran == 1:
        return (f"H = {h}, T = {t}: training accuracy {accuracy:.1%} on the one seed that ran, "
                f"{'perfect' if kept else 'not perfect'}")
    return f"H = {h}, T = {t}: mean training accuracy {accuracy:.1%}, {kept} of {ran} seeds perfect"


def unbracketed(table: pd.DataFrame) -> pd.DataFrame:
    """The searches of a Fig. 3 table (:func:`memnb.scorecard.mahdavi.searched_sizes`) whose
    largest perfectly memorized size is the largest size tried: there the grid does not bracket
    what the model memorizes. Columns ``H``, ``seed`` (when the table has one) and ``largest``."""
    search = sc.searched_sizes(table)
    if search.empty:
        return search
    top = search["tried"].map(max)
    return search[search["largest"].notna() & (search["largest"] == top)]


def _unbracketed_text(table: pd.DataFrame) -> str:
    """Where the sizes chosen to bracket the model's largest memorized size did not
    (:func:`unbracketed`), as a clause of Fig. 3's caption; empty where every search is
    bracketed."""
    rows = unbracketed(table)
    if rows.empty:
        return ""
    where = "; ".join(
        f"at H = {int(r['H'])}" + (f", seed {int(r['seed'])}" if "seed" in rows else "")
        + f" memorized {int(r['largest'])}" for _, r in rows.iterrows())
    return (f", but not everywhere: {where}, the largest size tried, so there the grid does not "
            "bracket it")


def head_colours(table: pd.DataFrame) -> dict[int, str]:
    """The colour of each ``H`` of a saturation table in :func:`fig3`, the same in its search
    panel and its histograms: :data:`memnb.viz.GROUP_CYCLE` in increasing ``H``."""
    heads = sorted(int(h) for h in table["H"].unique())
    return {h: viz.GROUP_CYCLE[i % len(viz.GROUP_CYCLE)] for i, h in enumerate(heads)}


def _search_panel(ax: Any, table: pd.DataFrame, full: bool) -> None:
    """Training accuracy against the tried size, one colour per ``H`` (:func:`head_colours`),
    one marker per seed run; the size each seed's search found is ringed; the paper's sizes
    dashed on full runs."""
    chosen = sc.searched_runs(table)
    paper_sizes = dict(paper.SATURATION_CONFIGS.value)
    colours = head_colours(table)
    for h, part in table.groupby("H"):
        colour = colours[int(h)]
        acc = part.groupby(["T", "seed"] if "seed" in part else ["T"])["accuracy"].first()
        sizes = acc.index.get_level_values("T")
        ax.scatter(sizes, acc.to_numpy(), s=14, color=colour, alpha=0.6, label=f"H = {h}")
        ax.plot(*zip(*acc.groupby(level="T").mean().items(), strict=True), color=colour,
                linewidth=1, alpha=0.8)
        found = chosen[chosen["H"] == h].groupby(["T", "seed"] if "seed" in chosen else ["T"])
        found_sizes = [k[0] for k in found.groups]
        ax.scatter(found_sizes, [1.0] * len(found_sizes), s=70, facecolors="none",
                   edgecolors=colour, linewidths=1.4)
        if full and int(h) in paper_sizes:
            ax.axvline(paper_sizes[int(h)], color=colour, linestyle="--", linewidth=1)
    ax.axhline(1.0, color=viz.PALETTE["bound"], linewidth=0.8, linestyle=":",
               label="training accuracy 1 (all memorized)")
    ax.plot([], [], color=viz.PALETTE["bound"], linewidth=1, alpha=0.8,
            label="mean over seeds at each T (one line per H)")
    ax.scatter([], [], s=70, facecolors="none", edgecolors=viz.PALETTE["bound"],
               label="largest memorized (per seed)")
    if full:
        ax.plot([], [], color=viz.PALETTE["bound"], linestyle="--",
                label="paper's size (App. H; from reproduce.sh)")
    ax.set(xlabel="dataset size T (examples)", ylabel="training accuracy",
           ylim=(min(0.9, float(table["accuracy"].min()) - 0.01), 1.01))


def fig3(result: Any, profile: str) -> Any:
    """Fig. 3 (App. H): the search for the largest perfectly memorized size (left), then the
    distribution of the number of saturated heads per example at the size each seed's search
    found, per ``H``, each histogram in its ``H``'s colour of the left panel
    (:func:`head_colours`) and titled on three lines (H, the sizes found, the seeds that found
    one), so that neighbouring titles do not run into each other; the committed full-scale run
    in the top row when one exists (its title and the caption's lead say when it is partial),
    this build's run below it. The left panels' legend and the caption name every mark: seeds
    (dots), the per-``T`` mean over seeds (solid), training accuracy 1 (dotted), each seed's
    found size (rings), the paper's sizes (dashed)."""
    runs = _training_runs(result, profile)
    width = 1 + max(table["H"].nunique() for _, table, _ in runs)
    fig, axes = plt.subplots(len(runs), width, figsize=(3.6 * width + 0.6, 3.6 * len(runs) + 0.5),
                             layout="constrained", squeeze=False)
    for row, (label, table, full) in zip(axes, runs, strict=True):
        _search_panel(row[0], table, full)
        row[0].set_title(f"{_run_title(label, table, result)}\nApp. H's search: training "
                         "accuracy by size", fontsize=9)
        chosen = sc.searched_runs(table)
        search = sc.searched_sizes(table)
        heads = sorted(int(h) for h in table["H"].unique())
        colours = head_colours(table)
        for ax, h in zip(row[1:], heads, strict=False):
            found = search[search["H"] == h]
            kept = int(found["largest"].notna().sum())
            part = chosen[chosen["H"] == h]
            ax.set(xlabel="saturated heads (max attention > 0.99)", xticks=range(h + 1),
                   ylim=(0, 1))
            if part.empty:
                ax.text(0.5, 0.5, "no tried size\nmemorized perfectly", ha="center",
                        va="center", transform=ax.transAxes, fontsize=9)
            else:
                dist = part.groupby("saturated_heads")["example_fraction"].mean()
                ax.bar(dist.index, dist.to_numpy(), color=colours[h])
            sizes = ", ".join(str(int(t)) for t in sorted(part["T"].unique())) or "none"
            ax.set_title(f"H = {h} at the largest memorized T\n(T = {sizes})\n"
                         f"{kept} of {len(found)} seed{'s' * (len(found) != 1)} found one",
                         fontsize=9)
        for ax in row[1 + len(heads):]:
            ax.set_visible(False)
        row[1].set_ylabel("fraction of examples\n(mean over seeds)")
    _legend_below(fig, axes[:, 0], ncol=4)
    where = "Bottom row, this run" if result.cached is not None else f"This `{profile}` run"
    text = ("Left panels: a dot is one seed's training accuracy at one tried T, the solid line "
            "of each H joins the mean over seeds at each T, the dotted line marks training "
            "accuracy 1 (every example memorized) and a ring the size each seed's search "
            "found. Right panels: a bar is the fraction of examples with that many saturated "
            "heads, the mean over the seeds whose search found a size, each seed read at the "
            f"size it found. {where}: {_searched_text(result.fresh)}. ")
    if profile != "full":
        text += ("Its sizes are ours, chosen to bracket what its smaller model (n = "
                 f"{int(result.params['n'])}, d = d_h = {int(result.params['d_h'])}) memorizes"
                 f"{_unbracketed_text(result.fresh)}; the full profile tries the paper's sizes × "
                 + ", ".join(f"{f:g}" for f in SATURATION_SEARCH)
                 + " (ours: the paper gives no grid). ")
    text += ("The paper's sizes, at n = 32, d = d_h = 64: about "
             + " and ".join(f"{t} (H = {h})" for h, t in paper.SATURATION_CONFIGS.value)
             + ". " + PAPER_SIZES_SOURCE + " ")
    if result.cached is not None:
        text += f"Top row, the committed full-scale run: {_searched_text(result.cached)}. "
        if getattr(result, "partial", None):
            text += f"(The full-scale run is {result.partial}.) "
        text += _paper_sizes_text(result.cached)
    reads = verdict_run("mahdavi.saturation", profile)
    if reads is not None:
        text += f"The verdict reads {reads}. "
    lead = ("The largest T each H memorizes perfectly (App. H's search) and the saturation of "
            "its attention there." + _partial_lead(result, by_size=False))
    return viz.caption(fig, paper_counterpart("Fig. 3", _FIG3_Y), profile=profile,
                       source=_source(runs),
                       text=folded(lead, text, "Fig. 3", profile))


def _run_label(provenance: dict[str, Any]) -> str:
    """A committed run as the comparison below names it: the commits that computed its points
    (:func:`memnb.provenance.resumed_commits`), the fingerprint of the code that computed them
    (and the one it changed to after later changes that compute the same numbers: re-keys), and
    how its CPU treated denormal floats (:func:`memnb.provenance.denormals_words`)."""
    from memnb.provenance import (
        computing_invocation,
        denormals_words,
        resumed_commits,
        short_commit,
    )

    computed = computing_invocation(provenance)
    commits = resumed_commits(provenance) or (
        f"commit {short_commit(computed['git_commit'])} of "
        f"{str(computed['started_utc'] or '?')[:10]}")
    code = provenance.get("code_fingerprint", "?")
    computed_by = provenance.get("code_fingerprint_rekeyed_from")
    version = (f"{computed_by}, which changed to {code} after later code changes that compute "
               "the same numbers" if computed_by else code)
    return (f"{commits}; code fingerprint (a hash of the code that computes the points) "
            f"{version}; {denormals_words(provenance)}")


def _verdict_status(table: pd.DataFrame) -> str:
    """The status :func:`memnb.scorecard.mahdavi.fig3_verdict` gives ``table`` (unscaled)."""
    from memnb.scorecard.core import NotComputable

    try:
        return sc.fig3_verdict(table).status
    except NotComputable:
        return "not computable"


def _row_status(run: Any) -> tuple[str, str | None]:
    """The status the scorecard's Fig. 3 row gives a committed full run (every seed it ran,
    :func:`memnb.scorecard.criteria.at_paper_scale`'s cap at ``trend`` for a partial grid), and
    the run's :func:`memnb.provenance.partial_summary` (None when complete)."""
    from memnb.provenance import partial_summary
    from memnb.scorecard.core import NotComputable

    partial = partial_summary(run.provenance)
    try:
        verdict = sc.fig3_verdict(run.table)
    except NotComputable:
        return "not computable", partial
    capped = criteria.at_paper_scale(verdict, "full", partial, reduced="",
                                     incomplete=partial or "")
    return capped.status, partial


def _scorecard_statuses(before: Any, current: Any) -> str:
    """Fig. 3's row as the scorecard judges each of the two runs (every seed, a partial grid
    capped at trend), so that the comparison's statuses are not read as the rows'."""
    (then, partial_then), (now, partial_now) = _row_status(before), _row_status(current)

    def grid(partial: str | None) -> str:
        if partial is None:
            return ""
        what = "a partial grid" if partial.startswith("partial: ") else "an earlier profile"
        return f" ({what}, capped at trend: {partial.removeprefix('partial: ')})"

    return (f"As scorecard rows, judged on every seed each run has, the earlier run gives "
            f"*{then}*{grid(partial_then)} and the committed one *{now}*{grid(partial_now)}.")


def saturation_runs_markdown(current: Any | None, earlier: list[Any]) -> str:
    """Fig. 3's search under two committed full-scale runs of different code (ours): the
    current result and each result it superseded (:func:`memnb.results.load_superseded`),
    compared on the searches (seed, ``H``) both made.

    Per search, the largest size memorized perfectly in each run; then how many searches
    agree, the share of examples that keep a non-saturated head at the sizes each run found,
    and the status :func:`memnb.scorecard.mahdavi.fig3_verdict` gives each run restricted to
    the shared seeds. Both arguments are :class:`memnb.results.ExperimentResult`."""
    if current is None or not earlier:
        return ("No earlier full-scale run of Fig. 3 is kept beside the committed one, so there "
                "is no second run to compare it with.\n")
    now = current.table
    lines = []
    for before in earlier:
        old = before.table
        seeds = sorted(set(now["seed"].astype(int)) & set(old["seed"].astype(int)))
        if not seeds:
            lines.append(f"The earlier run ({_run_label(before.provenance)}) shares no seed with "
                         "the committed one: nothing to compare.\n")
            continue
        ours, theirs = (t[t["seed"].isin(seeds)] for t in (now, old))
        found = sc.searched_sizes(ours).merge(sc.searched_sizes(theirs), on=["H", "seed"],
                                              suffixes=("_now", "_then"))
        found = found.sort_values(["seed", "H"])

        def largest(value: Any) -> str:
            return "none" if pd.isna(value) else str(int(value))

        rows = [[int(r.seed), int(r.H), largest(r.largest_then),
                 largest(r.largest_now),
                 "same" if largest(r.largest_then) == largest(r.largest_now) else "differs"]
                for r in found.itertuples()]
        then_label, now_label = _run_label(before.provenance), _run_label(current.provenance)
        header = ["seed", "H", "largest T memorized, earlier run", "largest T memorized, "
                  "committed run", "outcome"]
        table = markdown_table(header, rows)
        differ = [r for r in rows if r[-1] == "differs"]
        what = (f"{len(rows) - len(differ)} of {len(rows)} searches found the same largest size"
                + ("" if not differ else "; " + ", ".join(
                    f"seed {r[0]} at H = {r[1]} found {r[2]} before and {r[3]} now"
                    for r in differ)))
        share, moves = [], []
        stats = [sc.saturation_stats(sc.searched_runs(t)) for t in (theirs, ours)]
        for h in sorted(int(h) for h in found["H"].unique()):
            values = [f"{st.loc[h, 'unsaturated']:.1%}" if h in st.index else "none found"
                      for st in stats]
            share.append(f"{values[0]} before and {values[1]} now at H = {h}")
            if all(h in st.index for st in stats):
                moves.append(abs(float(stats[0].loc[h, "unsaturated"])
                                 - float(stats[1].loc[h, "unsaturated"])))
        from memnb.provenance import cpu_denormals

        modes = (cpu_denormals(before.provenance), cpu_denormals(current.provenance))
        cause = ("the two runs differ in the CPU's treatment of denormal floats (and in code "
                 "version)" if modes[0] != modes[1] else
                 "the two runs treat denormal floats alike and differ in code version")
        status_then, status_now = _verdict_status(theirs), _verdict_status(ours)
        if differ and status_then == status_now:
            moved = (f"; the share of examples that keep a non-saturated head moved by at most "
                     f"{100 * max(moves):.1f} percentage points" if moves else "")
            reading = (f" So the size a search lands on moved in {len(differ)} of {len(rows)} "
                       "searches while the criterion's status stayed the same: one seed's "
                       f"largest memorized size is a fragile number{moved}.")
        elif differ:
            reading = (f" The size a search lands on moved in {len(differ)} of {len(rows)} "
                       "searches, and the criterion's status moved with it.")
        else:
            reading = ""
        lines += [f"Earlier run: {then_label}. Committed run: {now_label}. {_capital(cause)}. "
                  "Compared on "
                  f"the {len(seeds)} seed{'s' * (len(seeds) != 1)} both ran "
                  f"({', '.join(map(str, seeds))}):", "", table, "",
                  f"{what}. At the sizes each run found, the share of examples that keep a "
                  f"non-saturated head is {'; '.join(share)}. The scorecard's Fig. 3 criterion "
                  f"(on these seeds, before any downgrade for a partial grid) gives "
                  f"*{status_then}* on the earlier run and *{status_now}* on the committed "
                  f"one.{reading} {_scorecard_statuses(before, current)}", ""]
    return "\n".join(lines)


# --- Fig. 4 ------------------------------------------------------------------------------------

def fig4(result: Any, profile: str) -> Any:
    """Fig. 4: one context per example: heads sweep (left) and context sweep (right); the
    committed full-scale run in its own row when there is one."""
    runs = _training_runs(result, profile)
    fig, axes = _figure(8.4, runs, columns=2)
    for row, (label, table, full) in zip(axes, runs, strict=True):
        for ax, (sweep, x, xlabel, fixed) in zip(row, [
                ("heads", "H", "heads H", ("n", "d_h")),
                ("context", "n", "context length n", ("H", "d_h"))], strict=True):
            part = table[table["sweep"] == sweep]
            if part.empty:
                ax.set_visible(False)
                continue
            _memorized_panel(ax, part, x, xlabel, full=full)
            sizes = ", ".join(str(int(t)) for t in sorted(part["T"].unique()))
            width = _fixed(part, "d", "C")  # on a line of its own: two panels share the width
            ax.set_title(_panel_title(_run_title(label, table, result),
                                      f"non-shared contexts, {_fixed(part, *fixed)}, "
                                      f"T = {sizes}" + (f"\n{width}" if width else "")),
                         fontsize=9)
    _legend_below(fig, axes, ncol=3)

    def describe(table: pd.DataFrame) -> str:
        heads = table[table["sweep"] == "heads"]
        if heads.empty:
            return "no point of the heads sweep ran."
        margin = _margin_sentence(heads, "H")
        return "in the heads sweep, " + margin[0].lower() + margin[1:]  # "Above ..." → "above"

    heads = [table[table["sweep"] == "heads"] for _, table, _ in runs]
    text = folded("Examples memorized with non-shared (i.i.d.) contexts." + _partial_lead(result),
                  _runs_text(runs, describe, result, "mahdavi.nonshared", profile) + " "
                  + _MARGIN_SEE_2A + _left_out_note(heads, "H"), "Fig. 4", profile)
    return viz.caption(fig, paper_counterpart("Fig. 4", _MEM), text=text, profile=profile,
                       source=_source(runs))


# --- Fig. 5 ------------------------------------------------------------------------------------

def _fig5_text(table: pd.DataFrame) -> str:
    """Fig. 5's numbers for one run: mean best MSE per curve, and the H at which Theorem 1's
    guarantee reaches T."""
    t5 = int(table["T"].max())
    heads = table[table["sweep"] == "heads"]
    if heads.empty:
        return f"T = {t5} uniform labels; no point of the heads sweep ran."
    n, d_h = int(heads["n"].iloc[0]), int(heads["d_h"].iloc[0])
    h_needed = int(np.ceil((t5 - 1) / (min(n, d_h) - 1)))
    parts = sc.fig5_parts(table)
    described = "; ".join(
        f"{'shared' if r.shared else 'non-shared'}, {r.x} sweep: "
        + ", ".join(f"{v:.3g} at {r.x} = {k}" for k, v in r.values.items())
        + ("" if r.status == "reproduced" else f" ({r.measured.split(': ', 1)[1]})")
        for r in parts.itertuples())
    where = "beyond the heads run" if h_needed > int(heads["H"].max()) else "within the heads run"
    return (f"T = {t5} uniform labels; mean best MSE: {described}. Theorem 1's guarantee "
            f"reaches T only at H = {h_needed} (n = {n}), {where}.")


def _rank_cap_sentence(tables: list[pd.DataFrame]) -> str:
    """What Proposition 2's cap on rank Z says about the shared-context curves of Fig. 5: where
    ``H(n−1)+1 < T`` no weight gives Z the full row rank by which Theorem 1's proof fits labels
    exactly; it does not prove that no weight fits them (Z changes with the weights)."""
    parts = [t[t["shared"].astype(bool)] for t in tables if len(t)]
    shared = pd.concat(parts) if parts else pd.DataFrame()
    if shared.empty:
        return ""
    points = shared.drop_duplicates(["sweep", "H", "n", "T"])
    below = (points["H"] * (points["n"] - 1) + 1) < points["T"]
    head = "With a shared context Proposition 2 caps rank Z at H(n−1)+1 for every weight"
    if not below.any():
        return f"{head}, which reaches T at every shared-context point run here."
    where = ("at every shared-context point run here" if below.all() else
             f"at {int(below.sum())} of {len(below)} shared-context points run here")
    return (f"{head}, below T {where}: there no weight gives Z the full row rank T by which "
            "Theorem 1's proof fits labels exactly. The cap alone does not prove that no weight "
            "fits the labels, since Z changes with the weights.")


def _fig5_fixed(part: pd.DataFrame, fixed: tuple[str, ...]) -> str:
    """A Fig. 5 panel's fixed parameters and sizes: ``"n = 8, d_h = 16, T = 100"``, with the T of
    the shared and non-shared curves named apart when they differ, then the width ``d`` on a
    line of its own (``"\nd = 16"``; no ``C``: the regression labels are scalars)."""
    sizes = {bool(shared): ", ".join(str(int(t)) for t in sorted(rows["T"].unique()))
             for shared, rows in part.groupby("shared")}
    if len(set(sizes.values())) == 1:
        t_text = f"T = {next(iter(sizes.values()))}"
    else:
        t_text = "; ".join(f"T = {v} ({'shared' if k else 'non-shared'})"
                           for k, v in sorted(sizes.items()))
    width = _fixed(part, "d")
    return f"{_fixed(part, *fixed)}, {t_text}" + (f"\n{width}" if width else "")


def fig5(result: Any, profile: str) -> Any:
    """Fig. 5: best training MSE against H (left) and n (right), shared and non-shared contexts
    as separate curves; the H at which Theorem 1's guarantee reaches T is a note, not a line.
    The committed full-scale run in its own row when there is one."""
    runs = _training_runs(result, profile)
    fig, axes = _figure(8.4, runs, columns=2)
    for row, (label, table, full) in zip(axes, runs, strict=True):
        labelled = table.assign(context=np.where(table["shared"], "shared", "non-shared"))
        for ax, (sweep, x, xlabel, fixed) in zip(row, [
                ("heads", "H", "heads H", ("n", "d_h")),
                ("context", "n", "context length n", ("H", "d_h"))], strict=True):
            part = labelled[labelled["sweep"] == sweep]
            if part.empty:
                ax.set_visible(False)
                continue
            viz.compare_with_paper(ax, None if full else part, None, x=x, y="mse", by="context",
                                   cached=part if full else None, spread="minmax", legend=False,
                                   xlabel=xlabel, logy=True,
                                   ylabel=_MSE)
            ax.set_xticks(sorted(part[x].unique()))
            ax.set_title(_panel_title(_run_title(label, table, result),
                                      _fig5_fixed(part, fixed)), fontsize=9)
    _legend_below(fig, axes)
    text = folded("Training MSE of the regression task, each curve on its own (no average over "
                  "shared and non-shared contexts)." + _partial_lead(result),
                  _runs_text(runs, _fig5_text, result, "mahdavi.regression", profile) + " "
                  + _rank_cap_sentence([table for _, table, _ in runs]), "Fig. 5", profile)
    return viz.caption(fig, paper_counterpart("Fig. 5", _MSE), text=text, profile=profile,
                       source=_source(runs))


__all__ = ["CHECK_LABELS", "DINOV2_COMMAND", "GPT2_PACKAGES_CHECKED", "GUARANTEE_SOURCE",
           "IMAGE_SOURCE", "PAPER_SIZES_SOURCE",
           "LAYER_LABELS", "MISSING_LABELS", "MODEL_LABELS", "PAPER_SAMPLED_IMAGES",
           "PROPOSITION4_COLUMNS", "SWEEPS", "assumptions_by_layer", "bert_kruskal_sentence",
           "construction_caption", "construction_frame", "dinov2_discussion",
           "embedding_control_markdown", "official_sizes", "partial_state", "seeds_by_size",
           "gpt2_trained_note", "full_or_fresh", "shown_run_note", "trend_reason",
           "fig1", "fig1_label", "fig2a", "fig2b", "fig2c", "fig3", "fig4", "fig5",
           "images_sentence", "paper_counterpart",
           "missing_sentence", "proposition4_display", "proposition4_table",
           "reduced_settings", "representation_label", "scorecard_row", "sweep_scales_markdown",
           "FIG2C_ARGUMENT",
           "table1_caption", "table1_comparison", "table1_display",
           "table3_caption", "table3_comparison", "table3_display", "verdict_sentence",
           "verdicts_markdown", "FIG1_D_LINESTYLE", "FIG3_MANY_HEADS", "FIG3_READINGS",
           "PAPER_FRACTION", "PAPER_RANKS", "TABLE1_ORDER", "TABLE1_PAPER_TAG",
           "TABLE1_PAPER_SOURCE", "not_computed_words", "paper_images_words",
           "paper_layer_words", "paper_only_rows", "paper_only_sentence", "paper_tests_words",
           "saturation_readings", "saturation_readings_text", "seed_readings",
           "ASSUMPTION", "DECISIVE", "IMAGES", "K", "OURS", "RANKS", "TESTS", "TABLE1_LEGEND",
           "TABLE3_LEGEND", "TABLE3_PAPER_FRACTION"]
