"""Figures and captions of the Kajitsuka & Sato chapter (ICLR 2025: Thm 4.1, Cor. 4.1, Remark 4.4,
Figs. 1/2, 4/5 and 7, the ICLR version's random data and sweep over n).

Every function returns ``(figure, caption)``; the caption is Markdown computed from the data and
states the verdict of the matching scorecard row (:mod:`memnb.scorecard.kajitsuka`), so a caption
cannot say more than the numbers under it. :func:`show` displays both.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from memnb import bounds, lower_bounds, prose, viz
from memnb.experiments.kajitsuka import capacity_table, depth_table, widths
from memnb.papers import kajitsuka as paper
from memnb.scorecard import kajitsuka as card
from memnb.scorecard.core import status_words
from memnb.scorecard.criteria import Verdict, at_paper_scale, with_reason
from memnb.train import TrainConfig
from memnb.validation import check_int

_BELOW = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.2), "fontsize": 7, "frameon": False}
#: How far apart the capacity figure's left panel draws two model widths: a fraction of the
#: range of N (or n).
_DODGE = 0.025
#: How far apart the capacity figure's right panel draws its lines, one per (width, size), all
#: of them together: this fraction of the range of #blocks tried, at most
#: :data:`_SEARCH_SPREAD_MAX` blocks. Lines at one accuracy (at accuracy 1 above all) would
#: otherwise hide each other's markers; the widths stay in two groups, as on the left panel.
_SEARCH_SPREAD = 0.125
_SEARCH_SPREAD_MAX = 0.6
#: The marker size of the right panel's lines: small enough that neighbouring lines' markers
#: at one accuracy overlap little at that spread.
_SEARCH_MARKER = 5
#: Legend handle length (in font sizes) long enough to show a dashed line's dashes around its
#: marker: the style's short handle drew the dashed fitted quantity as a solid line, and the
#: dashed width of the capacity figure's panels (line style: width) as a solid one.
_DASHED_HANDLE = 4.0


def show(fig: Any, caption: str) -> None:
    """Display ``fig`` and its Markdown ``caption`` (in a notebook), the caption's details
    folded below its lead (:func:`memnb.viz.markdown`)."""
    from IPython.display import display

    plt.show()
    display(viz.markdown(caption))


def _scale_tagged(v: Verdict, profile: str, partial: str | None = None) -> Verdict:
    """:func:`_scale`, and a verdict from a reduced ``profile`` that the cap leaves as it is
    (``trend`` already, or ``differs``) gets the same bracketed reason, as the scorecard's curve
    rows do (:func:`memnb.scorecard.kajitsuka._scaled_tagged`, both by
    :func:`memnb.scorecard.criteria.with_reason`)."""
    scaled = _scale(v, profile, partial)
    if profile == "full" or scaled.status == "not computable" or scaled.measured != v.measured:
        return scaled
    return with_reason(scaled, _reduced(profile))


def _verdict(v: Verdict) -> str:
    return f"**Verdict: {status_words(v)}** ({v.measured})"


def _scale(v: Verdict, profile: str, partial: str | None = None) -> Verdict:
    """``v`` capped at ``trend`` unless it reads a complete full-scale run, as the scorecard caps
    its row (:meth:`memnb.scorecard.core.ResultSource.at_paper_scale`): a reduced profile shows
    the shape only, and so does a partial full run (``partial``: what it holds)."""
    return at_paper_scale(v, profile, partial, incomplete=f"the full-scale run is {partial}",
                          reduced=_reduced(profile))


def _reduced(profile: str) -> str:
    """Why a verdict read from the reduced ``profile`` is capped (the bracketed reason)."""
    return f"`{profile}` run at reduced size, not the paper's scale"


# ------------------------------------------------------------------------ the construction
#: The legend entry of the hollow markers of :func:`construction_figure` and :func:`bits_figure`:
#: a construction built and counted but not evaluated exactly on its examples (``verify`` False).
NOT_EVALUATED = "not evaluated (count only)"


def evaluated(part: pd.DataFrame) -> np.ndarray:
    """Whether each row of a construction table (``kajitsuka.construction``) was evaluated
    exactly on its examples: its ``verify`` column (every row, for a table without one)."""
    if "verify" not in part:
        return np.ones(len(part), dtype=bool)
    return part["verify"].fillna(False).astype(bool).to_numpy()


def _plot_counted(ax: Any, x: Any, y: Any, fmt: str, done: np.ndarray, **kw: Any) -> bool:
    """``ax.plot(x, y, fmt, **kw)`` with the markers of the points not evaluated exactly
    (``done`` False, :func:`evaluated`) hollow, the legend's handle hollow too when none is
    evaluated; returns whether any marker is hollow."""
    if not done.any():
        ax.plot(x, y, fmt, markerfacecolor="white", **kw)
        return len(done) > 0
    (line,) = ax.plot(x, y, fmt, **kw)
    if done.all():
        return False
    hollow = ~done
    ax.plot(np.asarray(x)[hollow], np.asarray(y)[hollow], linestyle="none",
            marker=line.get_marker(), markersize=line.get_markersize(), color=line.get_color(),
            markerfacecolor="white", zorder=line.get_zorder() + 0.1)
    return True


def _not_evaluated_handle() -> Line2D:
    """The legend handle of :data:`NOT_EVALUATED`: a hollow grey circle."""
    return Line2D([], [], linestyle="none", marker="o", color="0.35", markerfacecolor="white",
                  label=NOT_EVALUATED)


def _legend_below(ax: Any, hollow: bool, **kw: Any) -> None:
    """The legend of one panel below it (:data:`_BELOW`), with :data:`NOT_EVALUATED` last when
    the panel draws a hollow marker."""
    handles, labels = ax.get_legend_handles_labels()
    if hollow:
        handles.append(_not_evaluated_handle())
        labels.append(NOT_EVALUATED)
    ax.legend(handles, labels, **_BELOW, **kw)


def not_evaluated_words(table: pd.DataFrame) -> str:
    """Which points of the construction figure are drawn hollow (:func:`evaluated` False: built
    and counted, not evaluated on their examples), per curve, as one sentence; empty when every
    point was evaluated."""
    parts = []
    for sweep, task, name in (("N", "next_token", "next-token against $N$"),
                              ("N", "seq2seq", "seq-to-seq against $N$"),
                              ("n", "next_token", "next-token against $n$"),
                              ("n", "seq2seq", "seq-to-seq against $n$")):
        part = card._sweep(table, sweep, task)
        done = evaluated(part)
        if part.empty or done.all():
            continue
        parts.append(f"{name}, every point" if not done.any() else
                     f"{name} at ${sweep}$ = "
                     + ", ".join(str(int(v)) for v in part[sweep][~done]))
    if not parts:
        return ""
    return (f"Hollow markers (legend: “{NOT_EVALUATED}”) are constructions built and counted "
            "but not evaluated on their examples: " + "; ".join(parts) + ".")


_TASK_WORDS = {"next_token": "next-token", "seq2seq": "seq-to-seq"}


def construction_check_words(runs: Sequence[tuple[str, pd.DataFrame | None]]) -> str:
    """What the check under the construction figure found, as one Markdown sentence: for each
    ``(label, table)`` of ``runs`` (a ``kajitsuka.construction`` table; ``None``: no such run,
    left out), whether every construction that the sweep evaluated exactly (``verify``)
    memorizes its data (``memorized``: every example's label reproduced exactly), "every one of
    the K" or "J of the K do not", naming those (Kajitsuka & Sato, Thm 4.1 and Cor. 4.1 as our
    construction builds them)."""
    parts = []
    for label, table in runs:
        if table is None:
            continue
        checked = table[table["verify"].astype(bool)]
        failing = checked[~checked["memorized"].astype(bool)]
        k = len(checked)
        if k == 0:
            parts.append(f"{label} evaluated no construction exactly")
        elif failing.empty:
            parts.append(f"in {label}, the one exactly evaluated construction memorizes its data"
                         if k == 1 else
                         f"in {label}, every one of the {k:,} exactly evaluated constructions "
                         "memorizes its data")
        else:
            named = ", ".join(f"{_TASK_WORDS.get(str(r.task), str(r.task))} $N$ = {int(r.N):,}, "
                              f"$n$ = {int(r.n)}" for r in failing.itertuples())
            parts.append(f"in {label}, {len(failing):,} of the {k:,} exactly evaluated "
                         f"constructions {'does' if len(failing) == 1 else 'do'} not memorize "
                         f"{'its' if len(failing) == 1 else 'their'} data ({named})")
    if not parts:
        return "No run of the construction sweep is shown."
    text = "; ".join(parts)
    return (text[0].upper() + text[1:] + " (memorizes: every example's label reproduced "
            "exactly).")


#: Colour and marker of each quantity of :func:`construction_figure` and
#: :func:`lower_bound_figure`, the same in every panel: our counts, so none is the paper's
#: vermillion and none a hollow diamond (the book's marker for values read off a paper).
CONSTRUCTION_STYLE: dict[str, tuple[str, str]] = {
    "next-token, all parameters": (viz.GROUP_CYCLE[0], "o"),  # blue
    "FFN₂": (viz.GROUP_CYCLE[4], "s"),  # orange: next-token FFN₂ (the memorizer)
    "FFN₁": (viz.GROUP_CYCLE[2], "^"),  # bluish green: next-token FFN₁ (the hash)
    "seq-to-seq, all parameters": (viz.GROUP_CYCLE[3], "p"),  # reddish purple, pentagons
    "seq-to-seq FFN₂, fitted": (viz.GROUP_CYCLE[4], "v"),  # orange again: an FFN₂ quantity,
    # FFN₂ / √(L+3), the quantity each panel's exponent is fitted on
}


def _style(quantity: str, line: str) -> tuple[str, dict[str, str]]:
    """The format string (marker of ``quantity`` in :data:`CONSTRUCTION_STYLE`, then the line
    style ``line``) and the colour keyword of one quantity of the construction figures."""
    color, marker = CONSTRUCTION_STYLE[quantity]
    return marker + line, {"color": color}


def construction_note(note: str, cached: pd.DataFrame | None, profile: str) -> str:
    """The loader's ``note`` on the construction sweep (:func:`memnb.results.fresh_and_cached`)
    followed by what :func:`construction_figure` draws from it: the committed full-scale run
    ``cached`` alone when there is one, the note's `quick` run read only by the check after
    the figure; else the run of ``profile``."""
    if cached is None:
        shown = ("this full-scale run" if profile == "full" else
                 f"this build's `{profile}` run")
        return f"{note}. The figure below draws {shown}."
    return (f"{note}. The figure below draws the committed full-scale run only; this build's "
            f"`{profile}` run appears in the check after it.")


def construction_figure(fresh: pd.DataFrame, cached: pd.DataFrame | None, profile: str
                        ) -> tuple[plt.Figure, str]:
    """Parameters of the construction against N (n = 8) and against n (N fixed), next-token and
    seq-to-seq, with the fitted exponents (Thm 4.1 and Cor. 4.1; the paper has no such figure).
    Draws the full-scale table ``cached`` when there is one, else ``fresh``, the constructions
    not evaluated exactly (:func:`evaluated`) with hollow markers (:func:`not_evaluated_words`
    in the caption); the right panel's axes are logarithmic and say so. The caption says
    whether the sweep's token IDs hold positions
    (:func:`memnb.scorecard.kajitsuka.sweep_positional`), and prints the Theorem 4.1 row's own
    claim (:data:`memnb.scorecard.kajitsuka.THM41_CLAIM`) beside its verdict, so that it names
    what was judged: the theorem's conclusion on our reconstruction, not the paper's width-14
    Transformer."""
    table = cached if cached is not None else fresh
    used = "the full-scale run" if cached is not None else f"our `{profile}` run"
    found = card.construction_verdicts(table)
    nt, s2 = card._sweep(table, "N", "next_token"), card._sweep(table, "N", "seq2seq")
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 4.2))
    ax = axes[0]
    done, hollow = evaluated(nt), False
    fmt, kw = _style("next-token, all parameters", "-")
    hollow |= _plot_counted(ax, nt["N"], nt["num_parameters"], fmt, done,
                            label="next-token, all parameters", **kw)
    fmt, kw = _style("FFN₂", "-")
    hollow |= _plot_counted(ax, nt["N"], nt["ffn2_parameters"], fmt, done,
                            label="next-token, FFN₂ (memorizer)", **kw)
    fmt, kw = _style("FFN₁", ":")
    hollow |= _plot_counted(ax, nt["N"], nt["ffn1_parameters"], fmt, done,
                            label="next-token, FFN₁ (hash)", **kw)
    fmt, kw = _style("seq-to-seq, all parameters", "-")
    hollow |= _plot_counted(ax, s2["N"], s2["num_parameters"], fmt, evaluated(s2),
                            label="seq-to-seq, all parameters", **kw)
    model = [bounds.kajitsuka_construction_parameter_model(int(N), int(nt["n"].iloc[0]), 2, 1000)
             for N in nt["N"]]
    ax.plot(nt["N"], model, "k--", lw=1, label="closed-form count (memnb.bounds)")
    judged = card._log_free(nt, "ffn2_parameters")  # what the Theorem 4.1 row fits
    fmt, kw = _style("seq-to-seq FFN₂, fitted", "--")
    hollow |= _plot_counted(ax, nt["N"], judged, fmt, done,
                            label="next-token, FFN₂ / √(L+3) (the fitted quantity)", **kw)
    _sqrt_reference(ax, nt["N"], judged, "N")
    ax.set(xscale="log", yscale="log", xlabel="N (sequences; log scale)",
           ylabel="parameters (count, log scale);\ndashed: FFN₂ / √(L+3)",
           title=f"against N (n = {int(nt['n'].iloc[0])})")
    _legend_below(ax, hollow, ncol=2, handlelength=_DASHED_HANDLE)
    byn = table[table["sweep"] == "n"]
    ax = axes[1]
    hollow = False
    for task in ("next_token", "seq2seq"):
        part = byn[byn["task"] == task].sort_values("n")
        name = f"{'next-token' if task == 'next_token' else 'seq-to-seq'}, all parameters"
        fmt, kw = _style(name, "-")
        hollow |= _plot_counted(ax, part["n"], part["num_parameters"], fmt, evaluated(part),
                                label=name, **kw)
    s2n = card._sweep(table, "n", "seq2seq")
    fitted = card._log_free(s2n, "ffn2_parameters")  # what the Cor. 4.1 exponent is fitted on
    fmt, kw = _style("seq-to-seq FFN₂, fitted", "--")
    hollow |= _plot_counted(ax, s2n["n"], fitted, fmt, evaluated(s2n),
                            label="seq-to-seq, FFN₂ / √(L+3) (the fitted quantity)", **kw)
    _sqrt_reference(ax, s2n["n"], fitted, "n")
    ns = sorted(byn["n"].unique())
    # plain tick labels on both log axes: the labels name the scale
    ax.set(xscale="log", yscale="log", xlabel="n (sequence length, tokens; log scale)",
           ylabel="parameters (count, log scale);\ndashed: FFN₂ / √(L+3)",
           title=f"against n (N = {int(byn['N'].iloc[0])})")
    ax.set_xticks(ns, [str(v) for v in ns])
    ax.minorticks_off()
    _readable_log_ticks(ax)
    _legend_below(ax, hollow, ncol=2, handlelength=_DASHED_HANDLE)
    fig.tight_layout()
    thm = card.thm41_verdict(table)
    cor = card.cor41_verdict(table)
    positional = card.sweep_positional(table)
    hollow_words = not_evaluated_words(table)
    built = ("" if positional is None else ", here with positional token IDs in the "
             "next-token curves: the theorem's model, as our notes recall it ([unverified]), has "
             "none" if positional else ", its next-token curves without positional encoding, as "
             "the theorem's model as our notes recall it ([unverified]); its seq-to-seq curves "
             + _seq2seq_positions(table))
    lead = ("*Size of our construction against $N$ and $n$ (Thm 4.1 and Cor. 4.1; the paper "
            f"has no such figure; the construction is our reconstruction{built}), from {used}.* "
            f"Theorem 4.1 row (against $N$): **Verdict: {status_words(thm)}**; Corollary 4.1 "
            f"row (against $n$, with the necessity half): **Verdict: {status_words(cor)}**.")
    details = (
        _seq2seq_positions_why(table)
        + f"Against $N$, the scorecard's Theorem 4.1 row (its claim: {card.THM41_CLAIM}): "
        f"{_verdict(thm)}. {_total_against_ffn2(found)} "
        + (f"{hollow_words} " if hollow_words else "")
        + "Against $n$ (right) the solid lines are all parameters; the exponent is fitted on the "
        "dashed line, seq-to-seq FFN₂ parameters divided by $\\sqrt{L+3}$ ($L$ the bits per ID, "
        "which grow logarithmically with $n$: dividing removes the $\\tilde O$'s log "
        "factor): "
        f"{cor.values['sufficiency']}; this is the sufficiency exponent for "
        "Cor. 4.1's $\\sqrt{nN}$, one of the checks of the Corollary 4.1 row, whose verdict "
        "(with the necessity half, a further theorem of the paper whose number is not in our "
        f"sources, Sec. 4) is **{status_words(cor)}**; {found['next_token_n'].measured}"
        f"{_flat_in_n(found['next_token_n'])}.")
    return fig, viz.with_details(lead, details)


#: The √ reference line of :func:`construction_figure`: near black, finely dotted and drawn
#: over the dashed fitted line it follows (in grey under it, it was hidden there).
SQRT_REFERENCE_STYLE: dict[str, Any] = {"color": "0.1", "ls": (0, (1, 2)), "lw": 1.6,
                                        "zorder": 3}


def sqrt_reference_gap(x: Any, fitted: Any) -> float:
    """The largest relative distance between the ``fitted`` quantity of
    :func:`construction_figure` and its √ reference through its first point, ``fitted[0] ·
    √(x / x[0])``: how closely the two lines of a panel coincide."""
    x, fitted = np.asarray(x, dtype=float), np.asarray(fitted, dtype=float)
    ref = fitted[0] * np.sqrt(x / x[0])
    return float(np.max(np.abs(fitted / ref - 1)))


def _sqrt_reference(ax: Any, x: Any, fitted: Any, var: str) -> None:
    """Draw ``∝ √var`` through the first point of the dashed ``fitted`` line of one panel of
    :func:`construction_figure`, over it (:data:`SQRT_REFERENCE_STYLE`), its legend entry saying
    so and how far apart the two lines are at most (:func:`sqrt_reference_gap`)."""
    x = np.asarray(x, dtype=float)
    fitted = np.asarray(fitted, dtype=float)
    gap = prose.percent_up(sqrt_reference_gap(x, fitted))
    ax.plot(x, fitted[0] * np.sqrt(x / x[0]), **SQRT_REFERENCE_STYLE,
            label=f"∝ √{var} through the first point (drawn over\nthe orange dashed line, within "
                  f"{gap} of it)")


def _seq2seq_positional(table: pd.DataFrame) -> bool | None:
    """Whether every seq-to-seq construction of the sweep ``table`` holds positional token IDs
    (:func:`memnb.scorecard.kajitsuka.seq2seq_positional`; ``None`` when not recorded)."""
    used = card.seq2seq_positional(table)
    return None if used is None else bool(used.all())


def _seq2seq_positions(table: pd.DataFrame) -> str:
    """How the seq-to-seq constructions of the sweep ``table`` encode positions, for the
    construction caption's lead (:func:`_seq2seq_positions_why` gives the reason below it)."""
    positional = _seq2seq_positional(table)
    if positional is None:
        return "(whether their token IDs hold positions is not recorded)"
    if not positional:
        return "without positional token IDs in some or all of them"
    return "with positional token IDs, w = nz + k (ours; the details say why our data need them)"


def _seq2seq_positions_why(table: pd.DataFrame) -> str:
    """Why the seq-to-seq constructions of the sweep ``table`` hold positional token IDs, computed
    (:func:`memnb.scorecard.kajitsuka.positions_words`), as the first sentence of the
    construction caption's details; empty when they hold none or it is not recorded."""
    if not _seq2seq_positional(table):
        return ""
    return f"Positions in the seq-to-seq token IDs: {card.positions_words(table)}. "


def _readable_log_ticks(ax: Any) -> None:
    """Label a log y-axis at 1, 2 and 5 times each power of ten, as plain counts (a range of
    one or two decades otherwise shows a single labelled tick)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.yaxis.set_minor_locator(NullLocator())


def _total_against_ffn2(found: dict[str, Verdict]) -> str:
    """The total's fitted exponent in N against FFN₂'s, as one sentence (where each FFN is the
    larger part is in the Theorem 4.1 row's text, :func:`memnb.scorecard.kajitsuka.ffn_split`)."""
    total, ffn2 = found["total"].values["exponent"], found["ffn2"].values["exponent"]
    if total < ffn2:
        return (f"The total's fitted exponent ({total:.3g}) is below FFN₂'s ({ffn2:.3g}): FFN₁, "
                "whose size grows far more slowly (figures in the row's text), is added to "
                "FFN₂ and flattens the total's fit.")
    return f"The total's fitted exponent ({total:.3g}) is not below FFN₂'s ({ffn2:.3g})."


def _flat_in_n(v: Verdict) -> str:
    """What the next-token exponent in n shows: zero, or small but not zero (``log n`` enters
    through the bits of the IDs), from its interval."""
    low, high = v.values["low"], v.values["high"]
    if low <= 0 <= high:
        return ": its interval contains 0"
    return (f": {'above' if low > 0 else 'below'} 0 (its interval excludes it), since "
            "$\\log n$ enters through the bits of the IDs")


def bits_figure(fresh: pd.DataFrame, cached: pd.DataFrame | None = None
                ) -> tuple[plt.Figure, str]:
    """Bits of the largest weight and of all weights against N, beside float64's 53 bits and the
    information floor N log₂C (Remark 4.4); the full-scale table ``cached`` when there is one.
    The sizes not evaluated exactly (:func:`evaluated`) have hollow markers, which the caption
    names."""
    table = cached if cached is not None else fresh
    nt = card._sweep(table, "N", "next_token")
    C = int(nt["C"].iloc[0])
    done = evaluated(nt)
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.8))
    hollow = _plot_counted(axes[0], nt["N"], nt["max_weight_bits"], "o-", done,
                           label="largest weight (ours)")
    axes[0].axhline(53, color="k", ls="--", lw=1, label="float64 significand (53 bits)")
    axes[0].set(xscale="log", xlabel="N (sequences)", ylabel="bits",
                title="bits of the largest weight")
    _plot_counted(axes[1], nt["N"], nt["total_weight_bits"], "o-", done,
                  label="all weights (ours)")
    axes[1].plot(nt["N"], [bounds.kajitsuka_information_floor_bits(int(N), C) for N in nt["N"]],
                 "k--", lw=1, label="information floor N log₂C")
    axes[1].set(xscale="log", yscale="log", xlabel="N (sequences)", ylabel="bits",
                title="total bits")
    for ax in axes:
        _legend_below(ax, hollow, ncol=2)
    fig.tight_layout()
    v = card.remark44_verdict(table, C)
    unchecked = ", ".join(str(int(x)) for x in nt["N"][~done])
    caption = ("*Bits of our construction (ours; the paper has no such figure; Remark 4.4, our "
               "reading: only its title, 'Optimality in terms of bit counts', is in our sources "
               "*[unverified]*).* "
               + ("In the committed full-scale run the" if cached is not None else
                  "In this build's run the")
               + " largest weight has "
               f"{int(nt['max_weight_bits'].iloc[0])} bits at $N = {int(nt['N'].iloc[0])}$ and "
               f"{int(nt['max_weight_bits'].iloc[-1])} at $N = {int(nt['N'].iloc[-1])}$"
               + (" (hollow markers: sizes built and counted but not evaluated on their "
                  f"examples, $N$ = {unchecked})" if unchecked else "")
               + ". "
               f"Remark 4.4 row: {_verdict(v)}. "
               f"{_ratio_words(*card.floor_ratios(table, C))} {_ASYMPTOTIC}")
    return fig, caption


def _ratio_number(x: float) -> str:
    """A ratio to the floor as the bits caption writes it: ``1,100``, ``323``, ``2.5``."""
    return f"{x:,.0f}" if abs(x) >= 10 else f"{x:.3g}"


def _ratio_words(N: np.ndarray, ratio: np.ndarray) -> str:
    """How the ratio total bits / (N log₂C) (:func:`memnb.scorecard.kajitsuka.floor_ratios`)
    moves over the sweep's sizes ``N``, in words: it falls from the first N to the last when it
    never rises; it rises (never falls) from the first to the last; or, when it is not
    monotone, from its first value to its lowest and where that is, then to its last, with
    the steps between sizes where it goes against that path named, each with both values."""
    def at(i: int) -> str:
        return f"{_ratio_number(ratio[i])} at $N = {int(N[i])}$"

    steps = np.diff(ratio)
    last, low = len(ratio) - 1, int(np.argmin(ratio))
    if len(ratio) == 1:
        return f"The ratio to the floor is {at(0)}, the sweep's only size."
    if (steps == 0).all():
        return f"The ratio to the floor stays at {at(0)} to {at(last)}."
    if (steps <= 0).all():
        return f"The ratio to the floor falls from {at(0)} to {at(last)}."
    if (steps >= 0).all():
        return f"The ratio to the floor does not fall: it rises from {at(0)} to {at(last)}."
    # against the path "down to the lowest value, then up": a rise before it, a fall after it
    against = [i for i, s in enumerate(steps) if (s > 0 if i < low else s < 0)]
    if low == 0:
        path = f"does not fall below its first value, {at(0)}; it ends at {at(last)}"
    elif low == last:
        path = f"falls from {at(0)} to its lowest, {at(last)}, not monotonically"
    else:
        path = (f"falls from {at(0)} to its lowest, {at(low)}, then "
                + (f"rises to {at(last)}" if ratio[last] > ratio[low] else
                   f"ends at {at(last)}"))
    if against:
        path += " (on the way " + "; ".join(
            f"it {'rises' if steps[i] > 0 else 'falls'} from {at(i)} to {at(i + 1)}"
            for i in against) + ")"
    return f"The ratio to the floor {path}."


_ASYMPTOTIC = ("Our reading of the remark, Θ̃(N) (its text is not in our sources), is "
               "asymptotic, so a ratio at finite $N$ does not test it.")


def float64_markdown(report: dict[str, object], *, labels: np.ndarray | None = None,
                     predictions: np.ndarray | None = None) -> str:
    """What :func:`memnb.constructions.seq_id.precision.float64_report` measured, as one
    Markdown sentence. The bits of a failing layer are maxima over its terms taken separately:
    the largest weight, the largest value it multiplies, and the largest product actually
    formed, which has fewer bits than the first two together when the largest weight never
    multiplies the largest value. Given the dataset's ``labels``, the accuracy is set beside
    the share of its most common label (what answering that label for every sequence gets);
    given also the float64 ``predictions`` (``net.predict(..., arithmetic="float64")``), a
    network that outputs one constant label is said to, with that label's share
    (:func:`_float64_accuracy_words`)."""
    from memnb.constructions.seq_id.precision import FLOAT64_BITS

    p2 = int(report["prime_squared_bits"])  # type: ignore[arg-type]
    parts = [f"The modulus $p$ has {report['prime_bits']} bits and $p^2$ has {p2} bits, "
             f"{'below' if p2 <= FLOAT64_BITS else 'above'} float64's {FLOAT64_BITS}"]
    for name, label in (("ffn1", "FFN₁ (hash)"), ("ffn2", "FFN₂ (memorizer)")):
        w, v, pr = (int(report[f"{name}_max_{k}_bits"])  # type: ignore[call-overload]
                    for k in ("weight", "value", "product"))
        if report[f"{name}_exact"]:
            parts.append(f"{label} is exact in float64 (largest product {pr} bits)")
            continue
        if w > FLOAT64_BITS:
            why = f"a weight or bias of {w} bits does not fit in float64"
        elif pr > FLOAT64_BITS:
            apart = (f" (a product of the two would have {w + v - 1} or {w + v} bits: the "
                     "largest weight and the largest value never meet in one product)"
                     if pr < w + v - 1 else "")
            why = (f"its weights have up to {w} bits and the values they multiply up to {v} "
                   f"bits; the largest product formed has {pr} bits{apart}, more than float64 "
                   "holds, so it is rounded before the terms cancel")
        else:
            why = f"sums of terms of up to {pr} bits are rounded"
        parts.append(f"{label} first differs at layer {report[f'{name}_first_failing_layer']} "
                     f"of {report[f'{name}_depth']}: {why}")
    acc = float(report["float64_accuracy"])  # type: ignore[arg-type]
    return "; ".join(parts) + ". " + _float64_accuracy_words(acc, labels, predictions)


def _float64_accuracy_words(accuracy: float, labels: np.ndarray | None,
                            predictions: np.ndarray | None) -> str:
    """The float64 network's share of right labels (``accuracy``) in words: with
    ``predictions`` that are one constant label, that it outputs that label for every sequence
    (its share of ``labels`` beside); with ``labels``, beside the share of the most common label
    (the labels that tie for it all named), which a constant answer of that label gets."""
    said = f"In float64 the network gets {accuracy:.1%} of the labels right"
    if labels is None:
        return said + "."
    values, counts = np.unique(np.asarray(labels), return_counts=True)
    share = dict(zip(values.tolist(), (counts / counts.sum()).tolist(), strict=True))
    top = [v for v, c in zip(values.tolist(), counts.tolist(), strict=True) if c == counts.max()]
    common = (f"the most common label, {top[0]}, has a share of {share[top[0]]:.1%}"
              if len(top) == 1 else
              f"the most common labels, {', '.join(map(str, top))}, have a share of "
              f"{share[top[0]]:.1%} each")
    if predictions is not None and len(np.unique(predictions)) == 1:
        k = np.asarray(predictions).flat[0].item()
        own = share.get(k, 0.0)
        where = ("it is the most common label" if k in top else f"{common}")
        return (f"In float64 the network outputs one constant label, {k}, for all "
                f"{len(predictions):,} sequences: it gets {accuracy:.1%} of the labels right, "
                f"the share of label {k} in the data ({own:.1%}; {where}).")
    return f"{said} (answering one label for every sequence gets at most that share: {common})."


def float64_lost_words(labels: np.ndarray, predictions: np.ndarray) -> str:
    """Whether the network of the chapter's Sec. 2, evaluated in float64
    (``net.predict(..., arithmetic="float64")``: ``predictions``), loses labels, as one
    Markdown sentence: a label is lost where a float64 prediction differs from the dataset's
    ``labels`` (which the exact network reproduces, Kajitsuka & Sato Thm 4.1 as our
    construction builds it); "loses labels" only when one is lost."""
    labels, predictions = np.asarray(labels), np.asarray(predictions)
    if labels.shape != predictions.shape:
        raise ValueError(f"labels and predictions must have one shape; got {labels.shape} and "
                         f"{predictions.shape}")
    total = labels.shape[0]
    lost = int((labels != predictions).reshape(total, -1).any(axis=1).sum())
    if lost == 0:
        return (f"In float64 the network keeps every label: all {total:,} sequences get the "
                "label that exact arithmetic gives them.")
    return (f"In float64 the network loses labels: {lost:,} of the {total:,} sequences "
            f"{'gets' if lost == 1 else 'get'} another label than exact arithmetic gives them "
            f"({lost / total:.1%}).")


def hash_markdown(counts: dict[str, int] | None = None) -> str:
    """What the hash comparison measured, as one Markdown paragraph (counts of
    :func:`memnb.scorecard.kajitsuka.hash_counts`): each hash's number of distinct values, each
    compared with the plain sum's (more, as many, fewer: :func:`_than_plain_sum`), and whether
    the power hash separates every multiset (as many values as sequences)."""
    c = counts or card.hash_counts()
    linear, affine, mod_p = c["linear"], c["affine"], c["affine mod p"]
    affine_words = _than_plain_sum(affine, linear)
    if affine > linear:
        affine_words += ", because how many tokens wrap around $p$ also varies"
    mod_words = ("exactly as many as the plain sum" if mod_p == linear
                 else _than_plain_sum(mod_p, linear))
    but = "and" if np.sign(affine - linear) == np.sign(mod_p - linear) else "but"
    power = (f"separates all {c['power']:,}" if c["power"] == c["sequences"]
             else f"takes {c['power']:,}, so it does not separate all {c['sequences']:,}")
    return (f"Over {c['sequences']:,} random multisets: the plain sum takes {linear} "
            f"distinct values; the affine hash summed as integers takes {affine} ({affine_words}) "
            f"{but} the same sum taken modulo $p$ takes {mod_p}, {mod_words} "
            "(modulo $p$ it is $a\\sum_j z_j + nb$); the power hash $a^z \\bmod p$ "
            f"{power}.")


def _than_plain_sum(count: int, linear: int) -> str:
    """``count`` distinct values against the plain sum's ``linear``, in words."""
    if count == linear:
        return "as many as the plain sum"
    return f"{'more' if count > linear else 'fewer'} than the plain sum"


# ------------------------------------------------------------------------------ the slider
def _curve_functions(n: int, *, C: int = 2, V: int = 1000, d: int = 16
                     ) -> dict[str, Callable[[int], float]]:
    """The curves of :func:`bound_curves`, each as a function of one integer N (``n``, ``C``,
    ``V`` and ``d`` as there), so that one curve can be evaluated alone (:func:`crossing`)."""
    return {
        "construction, next-token (ours)":
            lambda x: bounds.kajitsuka_construction_parameter_model(x, n, C, V),
        "construction, seq-to-seq (ours)":
            lambda x: bounds.kajitsuka_construction_parameter_model(x, n, C, V, task="seq2seq"),
        "Kim et al. d+n+√(nN)": lambda x: bounds.kim_parameter_count(x, n, d),
        "Park et al. N^(2/3)": bounds.park_parameter_count,
        "naive N": bounds.naive_parameter_count,
        "√N shape of the lower bound": bounds.kajitsuka_lower_bound,
        "smallest W, VC bound on N points (Thm 4.2; our constants)": lower_bounds.min_parameters,
        "smallest W, VC bound on nN points (seq-to-seq, hardmax; our constants)":
            lambda x: lower_bounds.min_parameters(x * n, n),
    }


def bound_curves(N: np.ndarray, n: int, *, C: int = 2, V: int = 1000, d: int = 16
                 ) -> dict[str, np.ndarray]:
    """Parameter counts against N: our construction's closed form (next-token, seq-to-seq) and
    the bounds of :mod:`memnb.bounds` as shapes (constants set to 1, logs dropped)."""
    N = np.asarray(N, dtype=int)
    return {name: np.array([f(int(x)) for x in N], dtype=float)
            for name, f in _curve_functions(n, C=C, V=V, d=d).items()}


def _below(n: int, rival: str, task: str) -> Callable[[int], bool]:
    """Whether our construction's closed-form count (``task``) lies below the ``rival`` curve of
    :func:`bound_curves` at one integer N."""
    curves = _curve_functions(n)
    ours, other = curves[f"construction, {task} (ours)"], curves[rival]
    return lambda x: ours(x) < other(x)


def _crossing_grid(N_max: int) -> np.ndarray:
    """The log grid (400 points from 10 to ``N_max``, as integers) on which :func:`crossing`
    looks for the first point below the rival curve."""
    return np.unique(np.logspace(1, np.log10(N_max), 400).astype(int))


def crossing(n: int, rival: str, *, N_max: int = 100_000, task: str = "next-token"
             ) -> int | None:
    """Where our construction's closed-form count falls below the ``rival`` curve of
    :func:`bound_curves`, to the integer, or None if it lies above at every point of the log
    grid up to ``N_max`` (:func:`_crossing_grid`).

    The first grid point where it lies below, and the grid point before it, bracket a
    crossing; bisection on the integers between them returns an ``N`` where it lies below and
    ``N − 1`` where it does not (the grid's first point when it lies below there already).
    Our count moves in whole steps (ρ, m and its bit counts are integers), so the difference is
    not monotone and the curves can cross several times near this root: :func:`crossing_band`
    gives the first and the last of those crossings."""
    below = _below(n, rival, task)
    grid = _crossing_grid(N_max)
    hit = next((i for i, x in enumerate(grid) if below(int(x))), None)
    if hit is None:
        return None
    if hit == 0:
        return int(grid[0])
    lo, hi = int(grid[hit - 1]), int(grid[hit])  # above at lo, below at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if below(mid) else (mid, hi)
    return hi


#: How far around the bisected root (a fraction of it) :func:`crossing_band` checks every
#: integer N; the window is doubled while a crossing lies in its outer fifth.
CROSSING_WINDOW = 0.05


def crossing_band(n: int, rival: str, *, N_max: int = 100_000, task: str = "next-token",
                  window: float = CROSSING_WINDOW) -> dict[str, Any] | None:
    """The crossings of our construction's count and the ``rival`` curve around the root of
    :func:`crossing` (None where it has none): every integer N within ``window`` of the root
    (a fraction; doubled, up to ½, while a crossing lies in the window's outer fifth) is
    checked. Keys: ``root`` (the bisected root), ``first`` (the first N of the window below the
    rival), ``last`` (the N from which it stays below to the window's end; None when it lies
    above there, a window cut by ``N_max``), ``crossings`` (how
    many times the two cross in the window), ``lo`` and ``hi`` (the window) and ``beyond``
    (whether every point of the log grid above the window, up to ``N_max``, lies below too)."""
    root = crossing(n, rival, N_max=N_max, task=task)
    if root is None:
        return None
    below = _below(n, rival, task)
    while True:
        lo = max(10, math.floor(root * (1 - window)))
        hi = min(N_max, math.ceil(root * (1 + window)))
        Ns = np.arange(lo, hi + 1)
        side = np.array([below(int(x)) for x in Ns])
        changes = Ns[np.nonzero(np.diff(side.astype(int)))[0] + 1]  # the N after each change
        edge = (hi - lo) / 5
        near_edge = changes.size > 0 and ((lo > 10 and changes[0] - lo < edge)
                                          or (hi < N_max and hi - changes[-1] < edge))
        if not near_edge or window >= 0.5:
            break
        window = min(0.5, 2 * window)
    first = int(Ns[np.argmax(side)])
    # None: above again at the window's end (cut by N_max)
    last = (int(changes[-1]) if changes.size else first) if side[-1] else None
    grid = _crossing_grid(N_max)
    beyond = all(below(int(x)) for x in grid[grid > hi])
    return {"root": root, "first": first, "last": last, "crossings": int(changes.size),
            "lo": int(lo), "hi": int(hi), "beyond": beyond, "window": window}


def _crossing_words(band: dict[str, Any], name: str) -> str:
    """One crossing of :func:`crossing_band` in words: where our count first drops below
    ``name`` and from where it stays below, with how many crossings the window holds."""
    if band["last"] is None:
        return (f"drops below {name} first at $N$ = {band['first']:,} and lies above again at "
                f"$N$ = {band['hi']:,}, the end of the search")
    if band["first"] == band["last"]:
        return f"drops below {name} at $N$ = {band['first']:,}"
    return (f"drops below {name} first at $N$ = {band['first']:,} and for good from "
            f"$N$ = {band['last']:,} ({band['crossings']} crossings in all)")


def slider_markdown(ns: list[int], *, N_max: int = 100_000, N_search: int = 10**15) -> str:
    """Where our construction's count drops below the naive N and Park et al.'s N^(2/3)
    (constants set to 1), for each n in ``ns``: within the drawn range (up to ``N_max``), else
    beyond it, the search going on up to ``N_search``; a curve still above there is said to be
    above at every N searched (not that it crosses there). Each crossing is found by bisection
    on the closed forms and checked at every integer near it (:func:`crossing_band`): the first
    N below and the N from which it stays below, to the integer."""
    names = {"naive N": "the naive $N$", "Park et al. N^(2/3)": "Park et al.'s $N^{2/3}$"}
    largest = f"$10^{{{round(math.log10(N_search))}}}$" if math.log10(N_search).is_integer() \
        else f"{N_search:.1e}"
    parts, bands = [], []
    for n in ns:
        words = []
        for rival, name in names.items():
            band = crossing_band(n, rival, N_max=N_max)
            if band:
                words.append(_crossing_words(band, name))
            elif band := crossing_band(n, rival, N_max=N_search):
                words.append(f"lies above {name} over the whole drawn range and "
                             + _crossing_words(band, "it"))
            else:
                words.append(f"lies above {name} at every $N$ up to the largest searched, "
                             f"{largest}")
            bands += [band] if band else []
        parts.append(f"at $n$ = {n} it " + ", and it ".join(words))
    how = ""
    if bands:
        several = any(b["first"] != b["last"] for b in bands)
        how = (" Each crossing is the root of a bisection on the closed forms between two points "
               "of a log grid, and every integer $N$ within "
               f"{max(b['window'] for b in bands) * 100:g} % of that root is checked"
               + (": our count moves in whole steps (ρ, m and its bit counts are integers), so "
                  "near a root the curves cross more than once" if several else "")
               + ("; past the last crossing it lies below at every point of the log grid up "
                  "to the end of the search." if all(b["beyond"] for b in bands) else
                  "; past that window the log grid finds it above again at some point."))
    return ("With the other bounds drawn as shapes (constant 1, logs dropped), our "
            "construction's next-token count compares with them as follows: "
            + "; ".join(parts) + "." + how + " Its constants are large (every bit of an ID "
            "costs a layer), so its $\\sqrt N$ growth pays off only at large $N$, and the "
            "crossings compare our constants with bounds that state none.")


def bounds_slider_caption(slides: str, ns: Sequence[int] | None = None, *,
                          N_max: int = 100_000) -> str:
    """The caption of a slider of :func:`bounds_figure` frames (``slides``: what its slider
    moves, e.g. ``"N at n = 8"``): a figure of ours with no paper counterpart, of closed forms
    evaluated here (no training), with the settings :func:`bound_curves` draws them at. ``ns``:
    the sequence lengths of a slider over n, whose frames each redraw the curves for their n
    (the caption names the curves that change with n and those that do not, computed on the
    grid up to ``N_max``); None for a slider over N, whose curves stay and whose marker moves."""
    import inspect

    given = {k: p.default for k, p in inspect.signature(bound_curves).parameters.items()
             if p.default is not inspect.Parameter.empty}
    if ns is None:
        frames = ("The curves are the same in every frame; the marker and the legend's values "
                  "move to the chosen $N$.")
    else:
        grid = _bounds_grid(N_max)
        drawn = [bound_curves(grid, int(n)) for n in ns]
        moved = [label for label in drawn[0]
                 if any(not np.array_equal(d[label], drawn[0][label]) for d in drawn)]
        kept = [label for label in drawn[0] if label not in moved]
        if moved:
            frames = (f"Each frame redraws the curves for its $n$: {_quoted(moved)} change with "
                      f"$n${f'; {_quoted(kept)} do not' if kept else ''}.")
        else:
            frames = "No curve changes with $n$ over these frames; only the marker's values do."
    return (f"**Figure (ours; no paper counterpart).** Parameter counts against $N$ (log-log), "
            f"the slider moving {slides}: closed forms evaluated here, nothing trained. Our "
            "construction's count (`memnb.bounds.kajitsuka_construction_parameter_model`, "
            f"next-token and seq-to-seq, $C = {given['C']}$ classes, vocabulary "
            f"$V = {given['V']:,}$), the other bounds as shapes (constants set to 1, logs "
            f"dropped; Kim et al. with $d = {given['d']}$) and the smallest $W$ of our "
            "instantiated VC bound; the legend gives each curve's value at the marked $N$. "
            f"{frames}")


def _quoted(labels: list[str]) -> str:
    """Curve labels of :func:`bound_curves` as a caption names them: quoted, comma-separated."""
    return ", ".join(f"“{label}”" for label in labels)


#: The colours of :func:`bounds_figure`'s curves: the group cycle with the Okabe-Ito yellow,
#: too light on white for a thin dashed line (contrast about 1.3:1), replaced by a dark yellow
#: (about 4.3:1); the cycle of :mod:`memnb.viz` is shared by every chapter and left as it is.
BOUNDS_COLORS: tuple[str, ...] = tuple("#8C7A00" if c == "#F0E442" else c
                                       for c in viz.GROUP_CYCLE)


def _bounds_grid(N_max: int) -> np.ndarray:
    """The N at which :func:`bounds_figure` draws its curves: 40 log-spaced integers from 10 to
    ``N_max``."""
    return np.unique(np.logspace(1, np.log10(N_max), 40).astype(int))


def bounds_ylim(Ns: list[int], ns: list[int], *, N_max: int = 100_000) -> tuple[float, float]:
    """The y-limits common to every frame ``bounds_figure(N, n, N_max=N_max)`` of a slider over
    ``Ns`` and ``ns`` (one of them a single value): the smallest and the largest count that any
    of those frames draws (its curves and its markers), widened on the log axis by the margin
    matplotlib would add (``axes.ymargin``), so that heights compare across frames."""
    grid = np.union1d(_bounds_grid(N_max), np.asarray(Ns, dtype=int))
    values = np.concatenate([ys for n in ns for ys in bound_curves(grid, n).values()])
    values = values[np.isfinite(values) & (values > 0)]
    lo, hi = np.log10(values.min()), np.log10(values.max())
    pad = plt.rcParams["axes.ymargin"] * (hi - lo)
    return float(10 ** (lo - pad)), float(10 ** (hi + pad))


def bounds_figure(N_now: int, n: int, *, N_max: int = 100_000,
                  ylim: tuple[float, float] | None = None) -> plt.Figure:
    """One slider frame: the curves of :func:`bound_curves` up to ``N_max``, a marker at
    ``N_now`` and the values there (log-log axes), in :data:`BOUNDS_COLORS`. ``ylim``: the
    y-limits, common to the frames of one slider (:func:`bounds_ylim`); None fits them to this
    frame."""
    grid = _bounds_grid(N_max)
    curves = bound_curves(grid, n)
    now = bound_curves(np.array([N_now]), n)
    fig, ax = plt.subplots(figsize=(7.2, 4.6))
    for i, (label, ys) in enumerate(curves.items()):
        color = BOUNDS_COLORS[i % len(BOUNDS_COLORS)]
        style = "-" if "ours" in label else "--"
        ax.plot(grid, ys, style, color=color, label=f"{label}: {now[label][0]:,.0f}")
        ax.plot([N_now], now[label], "o", color=color)
    ax.set(xscale="log", yscale="log", xlabel="N (number of sequences)",
           ylabel="parameters (count; prior bounds as shapes)", title=f"n = {n}, N = {N_now:,}")
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.legend(**_BELOW, ncol=2)
    fig.tight_layout()
    return fig


def built_count(construction: pd.DataFrame | None, N: int, n: int, task: str
                ) -> tuple[float, int] | None:
    """The parameter count of our built network in the construction sweep ``construction``
    (``kajitsuka.construction``) at ``N`` sequences of length ``n`` for ``task``, as
    ``(count, seeds)`` (the mean over the seeds that built it), or None when the sweep has no
    such point (or no table is given)."""
    if construction is None:
        return None
    part = construction[(construction["sweep"] == "N") & (construction["task"] == task)
                        & (construction["N"] == N) & (construction["n"] == n)]
    if part.empty:
        return None
    seeds = int(part["seed"].nunique()) if "seed" in part else len(part)
    return float(part["num_parameters"].mean()), seeds


#: The most IDs (N for next-token, nN for seq-to-seq) of a construction that
#: :func:`transformer_form_ratio` rebuilds: the committed sweep's largest, a few seconds.
FORM_REBUILD_MAX_IDS = 400_000


@functools.cache
def _form_counts(N: int, n: int, C: int, V: int, task: str, positional: bool, seed: int
                 ) -> tuple[int, int]:
    """The parameter counts of one construction rebuilt as the sweep builds it
    (:func:`memnb.constructions.seq_id.scaling.construction_sizes`: random data of ``seed``):
    its ReLU form (``num_parameters``, what the sweep records) and its Transformer form
    (``transformer().parameter_count()``, Sec. 2 of the chapter). Computed once per process."""
    from memnb.constructions.seq_id import memorize
    from memnb.data.random_sequences import random_sequences

    data = random_sequences(N, n, V, C, seed=seed, seq2seq=task == "seq2seq")
    net = memorize(data.tokens, data.labels, num_classes=C, task=task, positional=positional,
                   seed=seed)
    return int(net.num_parameters), int(net.transformer().parameter_count())


def transformer_form_ratio(N: int, n: int, task: str, *, C: int = 2, V: int = 1000,
                           seed: int = 0, positional: bool | None = None,
                           recorded: float | None = None) -> float | None:
    """How many times more parameters the Transformer form of our construction has than its
    ReLU form (the count of the sweep, Table 1 and the lower-bound figure), for the network
    built at ``N`` sequences of length ``n`` as the sweep builds it (``positional``: by default
    for seq-to-seq only). None when the network has more than :data:`FORM_REBUILD_MAX_IDS` IDs
    (not rebuilt), or when ``recorded`` (a count the sweep recorded for it) differs from the
    rebuilt ReLU form: then the ratio would be of another network."""
    if N * (n if task == "seq2seq" else 1) > FORM_REBUILD_MAX_IDS:
        return None
    positional = task == "seq2seq" if positional is None else positional
    relu, blocks = _form_counts(int(N), int(n), int(C), int(V), task, bool(positional), int(seed))
    if recorded is not None and relu != recorded:
        return None
    return blocks / relu


def _sweep_ratio(row: pd.Series) -> float | None:
    """:func:`transformer_form_ratio` of one row of the construction sweep (None without the
    columns that rebuild it)."""
    need = ("N", "n", "C", "V", "task", "num_parameters")
    if any(c not in row.index for c in need):
        return None
    return transformer_form_ratio(
        int(row["N"]), int(row["n"]), str(row["task"]), C=int(row["C"]), V=int(row["V"]),
        seed=int(row.get("seed", 0)),
        positional=None if "positional" not in row.index else bool(row["positional"]),
        recorded=float(row["num_parameters"]))


def lower_bound_form_words(construction: pd.DataFrame) -> str:
    """Which count of our construction the lower-bound figure draws, as a clause: its ReLU form
    (the sweep's count), and how many times more parameters the Transformer form has
    (:func:`transformer_form_ratio`), rebuilt at the smallest and at the largest N of each task
    of the sweep, each named with its N (the ratio is not monotone in N, so the two are not a
    range); the ReLU form alone where no rebuild matches the recorded counts."""
    parts = []
    for task, name in (("next_token", "next-token"), ("seq2seq", "seq-to-seq")):
        part = card._sweep(construction, "N", task)
        if part.empty:
            continue
        ends = part.iloc[[0, -1]] if len(part) > 1 else part
        ratios = [(int(row["N"]), r) for _, row in ends.iterrows()
                  if (r := _sweep_ratio(row)) is not None]
        if len(ratios) == len(ends):
            at = " and ".join(f"{r:.2f}× at $N$ = {N:,}" for N, r in ratios)
            parts.append(f"{at} ({name})")
    if not parts:
        return "in its ReLU form (the count of Sec. 3)"
    return ("in its ReLU form (the count of Sec. 3; the Transformer form of the same networks, "
            "Sec. 2, has " + parts[0].replace("×", "× the parameters", 1)
            + "".join(f"; {p}" for p in parts[1:])
            + ", rebuilt at the smallest and the largest $N$ of the sweep)")


def table1(N: int = 10_000, n: int = 8, d: int = 16, omega: int = 1000, *,
           construction: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 1 of the paper evaluated at one size (ours): each row's parameter count at ``N``
    sequences of length ``n``, token dimension ``d`` and vocabulary ``omega``. Prior work as
    orders with constants set to 1 and logs dropped (``count = "order (prior work)"``); the
    paper's Õ(√N) and Õ(√(nN)) the same way (each prior row is compared with the order of its
    own setting: next-token or seq-to-seq); our construction's count (next-token and
    seq-to-seq): the built network's from the construction sweep ``construction`` where it has
    this ``N`` and ``n`` (:func:`built_count`; ``count`` says ``built (ours)``), else the
    closed-form model of :func:`memnb.bounds.kajitsuka_construction_parameter_model`
    (``closed-form model (ours)``); the smallest W of our instantiated VC bound
    (:mod:`memnb.lower_bounds`). ``work`` names the row of
    :data:`memnb.papers.kajitsuka.TABLE1`. The callers pass the full-scale sweep when there is
    one (the notebook's ``sweep``, the scorecard's ``ResultSource``)."""
    N, n = check_int("N", N, 2), check_int("n", n, 2)
    d, omega = check_int("d", d, n + 1), check_int("omega", omega, 2)
    heads = -(-(N - 1) // (n - 1))
    kim, madden, mahdavi, *_ = paper.TABLE1["work"]

    def ours(task: str) -> tuple[float, str]:
        found = built_count(construction, N, n, task)
        if found is None:
            return (float(bounds.kajitsuka_construction_parameter_model(N, n, 2, omega,
                                                                        task=task)),
                    "closed-form model (ours)")
        count, seeds = found
        return count, "built (ours)" if seeds == 1 else f"built (ours, mean of {seeds} seeds)"

    rows = [
        (kim, "Kim et al. d + n + √(nN)", bounds.kim_parameter_count(N, n, d),
         "order (prior work)"),
        (madden, "Madden et al. ωN", float(omega * N), "order (prior work)"),
        (mahdavi, "Mahdavi et al. H d², H = ⌈(N−1)/(n−1)⌉", float(heads * d * d),
         "order (prior work)"),
        (paper.THM41_ROW, "Thm 4.1 order √N", float(np.sqrt(N)), "order"),
        (paper.THM41_ROW, "Thm 4.1 our construction", *ours("next_token")),
        (paper.THM42_ROW, "Thm 4.2 smallest W", float(lower_bounds.min_parameters(N)),
         "VC bound (our constants)"),
        (paper.COR41_ROW, "Cor. 4.1 order √(nN)", float(np.sqrt(n * N)), "order"),
        (paper.COR41_ROW, "Cor. 4.1 our construction", *ours("seq2seq")),
        (paper.S2S_LOWER_ROW, "seq-to-seq lower bound, smallest W",
         float(lower_bounds.min_parameters(n * N, n)), "VC bound (our constants)"),
    ]
    out = pd.DataFrame(rows, columns=["work", "row", "value", "count"])
    out.insert(0, "size", f"N={N}, n={n}, d={d}, ω={omega}")
    return out


def markdown_table(frame: pd.DataFrame) -> str:
    """``frame`` as a Markdown table (:func:`memnb.prose.markdown_table`: every cell in full,
    ``|`` escaped)."""
    return prose.markdown_table(list(frame.columns), frame.itertuples(index=False))


#: The trained experiments of the chapter, whose trial search :func:`training_settings` states.
TRAINED = ("kajitsuka.mnli_curves", "kajitsuka.imdb_curves", "kajitsuka.random_curves",
           "kajitsuka.capacity", "kajitsuka.seq_len")
_OPTIMIZERS = {"adamw": "AdamW", "adam": "Adam", "sgd": "SGD"}


def trial_config() -> dict[str, Any]:
    """The constant keyword arguments of the ``TrainConfig`` that every trial of the chapter's
    search trains with (e.g. ``optimizer`` and ``schedule``), read from the source of
    :func:`memnb.experiments.kajitsuka._optuna_stack`, where they are written, so that the
    chapter states the values the code uses."""
    import ast
    import inspect
    import textwrap

    from memnb.experiments import kajitsuka as exp

    tree = ast.parse(textwrap.dedent(inspect.getsource(exp._optuna_stack)))
    call = next(node for node in ast.walk(tree) if isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "TrainConfig")
    return {k.arg: k.value.value for k in call.keywords
            if k.arg is not None and isinstance(k.value, ast.Constant)}


def _trials_per_profile() -> str:
    """The Optuna trials per study of each profile, from the trained experiments' profiles
    (:data:`TRAINED`): one list when they agree, else one per experiment; where a profile runs
    one trial, that such a study trains the default trial only."""
    from memnb.experiments.registry import load_all
    from memnb.profiles import PROFILES

    known = load_all()
    per = {name: tuple(known[name].params(p)["trials"] for p in PROFILES)
           for name in TRAINED if name in known}

    def listed(trials: tuple[int, ...]) -> str:
        return ", ".join(f"`{p}`: {t}" for p, t in zip(PROFILES, trials, strict=True))

    text = (listed(next(iter(per.values()))) if len(set(per.values())) == 1 else
            "; ".join(f"{name}: {listed(t)}" for name, t in per.items()))
    if any(1 in trials for trials in per.values()):
        text += "; a study of one trial trains trial 0 only: no search"
    return text


#: The column of :func:`training_settings` that says where in the code a value is written:
#: every value is in :mod:`memnb.experiments.kajitsuka`, which the chapter names above the
#: table, once, not in every cell.
SETTINGS_WHERE = "where in the code (all in the module named above)"


def training_settings() -> pd.DataFrame:
    """The training and search settings of the chapter's trained experiments that are ours
    (Figs. 1/2, 4/5 and 7, the ICLR version's random data and sweep over n), each value read
    from the code (:data:`memnb.experiments.kajitsuka.SEARCH`, ``DEFAULT_TRIAL``,
    ``STARTUP_TRIALS``, the profiles' trials and :func:`trial_config`), beside what the paper
    says of it (:mod:`memnb.papers.kajitsuka`). Columns ``setting``, ``value (from the code)``,
    ``where in the code`` and ``the paper``."""
    from memnb.experiments import kajitsuka as exp

    config = trial_config()
    optimizer = str(config.get("optimizer", "?"))
    # batch_size: the call's own value, else TrainConfig's default (None: the full batch)
    size = config.get("batch_size", TrainConfig.__dataclass_fields__["batch_size"].default)
    batch = "full batch" if size is None else f"mini-batches of {size}"
    (lr_lo, lr_hi), (wd_lo, wd_hi) = exp.SEARCH["lr"], exp.SEARCH["weight_decay"]
    default = exp.DEFAULT_TRIAL
    # every "where" is in memnb.experiments.kajitsuka, which the chapter names once above the
    # table (SETTINGS_WHERE): the module's name in each cell, unbreakable as code, widened the
    # table past the book's text column (review s75, finding 11)
    ours = "not in our sources: ours"
    rows = [
        ("optimizer", f"{_OPTIMIZERS.get(optimizer, optimizer)}, {batch}",
         "`TrainConfig(optimizer=…)` of every trial",
         "\"full-batch gradient descent\" (Fig. 7 caption); AdamW is named by acmrep, a "
         "third-party listing of the paper (the notes' source for it), which we follow"),
        ("learning-rate schedule", str(config.get("schedule", "?")),
         "`TrainConfig(schedule=…)` of every trial", ours),
        ("learning rate searched", f"log-uniform in [{lr_lo:g}, {lr_hi:g}]", "`SEARCH`",
         "search space not in our sources: ours [reconstruction]"),
        ("weight decay searched", f"uniform in [{wd_lo:g}, {wd_hi:g}]", "`SEARCH`",
         "search space not in our sources: ours [reconstruction]"),
        ("trial 0 of every study", f"learning rate {default['lr']:g}, weight decay "
         f"{default['weight_decay']:g}: a fixed default point, enqueued, not drawn",
         "`DEFAULT_TRIAL`", ours),
        ("the other trials", "drawn at random by Optuna's TPE sampler (seeded with the data "
         "seed), which draws its "
         f"first {exp.STARTUP_TRIALS} trials at random (`n_startup_trials`); a study has at "
         "most that many, so no trial uses the study's history, and all are drawn first and "
         "trained as one stack", "`STARTUP_TRIALS`",
         "\"ten trials of hyperparameter tuning with Optuna\" (Fig. 7 caption); the sampler "
         "and its settings are " + ours),
        ("trials per study (one study per #blocks)", _trials_per_profile(),
         "the experiments' profiles",
         f"{paper.OPTUNA_TRIALS.value} ({paper.OPTUNA_TRIALS.source}); used for every "
         "experiment: [reconstruction]"),
        ("study objective", "the mean over the study's seeds of log₁₀ of each trial's lowest "
         "training loss (minimised)", "`_optuna_stack`", ours),
        ("trial kept per point", f"{card.TRIAL_SELECTION}; the verdicts of the loss and "
         "accuracy curves (Figs. 1/2, 4/5, random data) read that trial's final epoch, Fig. 7 "
         "and the sweep over n the accuracy at that checkpoint",
         "`_optuna_stack`",
         "\"the best-performing model was selected\" (Fig. 7 caption); the rule: ours"),
    ]
    return pd.DataFrame(rows, columns=["setting", "value (from the code)", SETTINGS_WHERE,
                                       "the paper"])


#: The column of :func:`table1_printed` that says whether our sources hold a row's printed cell.
TABLE1_CELL = "Table 1 cell in our sources"
#: The column of :func:`table1_printed` that says where our sources state a row's bound.
TABLE1_STATED = "where our sources state the bound"
#: The paper's own rows of Table 1: our sources state their bounds in the abstract and in
#: Theorem 4.1's own text (width 14, depth Õ(√N)); the theorem titles (seed 000: "Next-token
#: prediction", "Lower bound", "Seq-to-seq prediction") name a setting, no bound. The printed
#: cells are not in our sources (notes §1: "Other cells: not found").
_OWN_ROWS = (paper.THM41_ROW, paper.THM42_ROW, paper.COR41_ROW, paper.S2S_LOWER_ROW)


def table1_printed() -> pd.DataFrame:
    """Table 1's rows as our sources state them (:data:`memnb.papers.kajitsuka.TABLE1`), with
    two columns kept apart (ours): whether the printed cell is in our sources
    (:data:`TABLE1_CELL`: for the paper's own rows it is not, notes §1: "Other cells: not
    found"; their ``printed`` entry says where the bound itself is stated) and where our
    sources state the bound (:data:`TABLE1_STATED`, the row's ``source``)."""
    t = paper.TABLE1[["work", "setting", "parameters", "kind", "printed", "source"]].copy()
    own = t["work"].isin(_OWN_ROWS)
    t["printed"] = t["printed"].where(~own, "no (not found, notes §1)")
    return t.rename(columns={"printed": TABLE1_CELL, "source": TABLE1_STATED})


#: The column of :func:`table1_printed_markdown` that holds a row's parameters and its kind.
TABLE1_BOUND = "parameters; kind"


def table1_printed_markdown() -> str:
    """:func:`table1_printed` as the chapter prints it, a Markdown table with its columns
    ``parameters`` and ``kind`` (sufficient, necessary) in one, :data:`TABLE1_BOUND` ("Õ(√N)
    …; sufficient"): six columns did not fit the book's text column (review s75, finding 11);
    every cell is kept, word for word."""
    t = table1_printed()
    merged = t.assign(parameters=t["parameters"] + "; " + t["kind"]).drop(columns="kind")
    return markdown_table(merged.rename(columns={"parameters": TABLE1_BOUND}))


def closed_form_gap(construction: pd.DataFrame) -> str:
    """How far the closed-form model of our construction's count
    (:func:`memnb.bounds.kajitsuka_construction_parameter_model`, the slider's curves) lies from
    the built networks of the construction sweep ``construction``, as one Markdown sentence: the
    largest relative gap, where it is, and the range of the signed gaps."""
    gaps = []
    for _, r in construction.iterrows():
        model = bounds.kajitsuka_construction_parameter_model(
            int(r["N"]), int(r["n"]), int(r["C"]), int(r["V"]), task=str(r["task"]))
        gaps.append((model / float(r["num_parameters"]) - 1, r))
    worst, at = max(gaps, key=lambda g: abs(g[0]))
    low, high = min(g[0] for g in gaps), max(g[0] for g in gaps)
    return (f"The closed-form model of our construction's count (`memnb.bounds`, drawn by the "
            f"slider of Sec. 5) lies within {prose.percent_up(abs(worst))} of each of the "
            f"{len(gaps)} built "
            f"networks of the sweep (signed gaps {100 * low:+.2f} % to {100 * high:+.2f} %; the "
            f"largest at "
            f"$N$ = {int(at['N']):,}, $n$ = {int(at['n'])}, "
            f"{str(at['task']).replace('_', '-')}).")


def table1_markdown(N: int = 10_000, n: int = 8, d: int = 16, omega: int = 1000, *,
                    construction: pd.DataFrame | None = None) -> str:
    """Table 1's rows with our computed value beside each printed order, as Markdown (our
    construction's count built, from ``construction``, where the sweep has that size: see
    :func:`table1`), followed by :func:`closed_form_gap` when ``construction`` is given."""
    t = table1(N, n, d, omega, construction=construction)
    lines = ["| work | bound (as stated) | evaluated | value | kind |", "|---|---|---|---|---|"]
    printed = paper.TABLE1.set_index("work")
    for _, r in paper.TABLE1.iterrows():
        cite = f" {{cite:p}}`{r['cite']}`" if r["cite"] else ""
        mine = t[t["work"] == r["work"]]
        if mine.empty:
            lines.append(f"| {r['work']}{cite} | {r['parameters']} | none | | {r['kind']} |")
        for _, m in mine.iterrows():
            form = ", ReLU form" if m["row"] in _OURS_ROWS else ""
            lines.append(f"| {r['work']}{cite} | {printed.loc[r['work'], 'parameters']} | "
                         f"{m['row']} ({m['count']}{form}) | {m['value']:,.0f} | "
                         f"{r['kind']} |")
    gap = "" if construction is None else "\n\n" + closed_form_gap(construction)
    return (rf"Evaluated at $N$ = {N:,}, $n$ = {n}, $d$ = {d}, $\omega$ = {omega:,} (our "
            r"choice of size; $\omega$ is the vocabulary size, the number of distinct token "
            "vectors, as Table 1's caption defines it for Madden et al.'s bound):\n\n"
            + "\n".join(lines) + "\n\n" + table1_form_words(N, n, omega, construction) + gap)


#: The rows of :func:`table1` that hold our construction's count.
_OURS_ROWS = ("Thm 4.1 our construction", "Cor. 4.1 our construction")


def table1_form_words(N: int, n: int, omega: int = 1000,
                      construction: pd.DataFrame | None = None) -> str:
    """Which count of our construction Table 1's rows give (:func:`table1`): its ReLU form, and
    how many times more parameters its Transformer form has at that size
    (:func:`transformer_form_ratio`), for the sweep's network where ``construction`` has the
    size, else for one built as the sweep builds it (``C`` = 2, vocabulary ``omega``, seed 0),
    as one sentence."""
    parts = []
    for task, name in (("next_token", "next-token"), ("seq2seq", "seq-to-seq")):
        row = None
        if construction is not None:
            part = card._sweep(construction, "N", task)
            part = part[(part["N"] == N) & (part["n"] == n)]
            row = None if part.empty else part.iloc[0]
        ratio = (_sweep_ratio(row) if row is not None else
                 transformer_form_ratio(N, n, task, V=omega))
        if ratio is not None:
            parts.append(f"{ratio:.2f}× ({name})")
    said = ("" if not parts else
            "; its Transformer form (Sec. 2), built at this size, has "
            + parts[0].replace(" (", " the parameters (", 1)
            + "".join(f" and {p}" for p in parts[1:]))
    return f"Our construction's rows count its ReLU form, as Sec. 3 does{said}."


def lower_bound_markdown() -> str:
    """The computed checks behind Thm 4.2 / Cor. 4.1's argument as one Markdown paragraph: the
    points a permutation-equivariant model can label (identical against distinct tokens), every
    labelling tried on our construction, and hardmax against softmax along a line of W_Q."""
    distinct = lower_bounds.shattering_check(np.arange(1, 7).reshape(2, 3))
    same = lower_bounds.shattering_check(np.repeat(np.array([[1], [2]]), 3, axis=1))
    line = lower_bounds.attention_along_a_line()
    return (
        f"Two sequences of three *distinct* tokens have {distinct['labels']} labels and "
        f"{distinct['points']} points that a permutation-equivariant model can label "
        f"independently; our hardmax construction memorizes {distinct['memorized']} of the "
        f"{distinct['labellings']} labellings, so the set is shattered, "
        + _shattered_by(distinct) + ". Two sequences of one "
        f"*repeated* token have the same {same['labels']} labels but only {same['points']} "
        f"points: {same['refused']} of the {same['labellings']} labellings are inconsistent "
        f"(refused) and {same['memorized']} are memorized. Along the line "
        f"$W_Q = A + tB$ ({line['values_of_t']} values of $t$, ours), one hardmax head takes "
        f"{line['hardmax_outputs']} distinct outputs and one softmax head "
        f"{line['softmax_outputs']}: {_line_words(line)}")


def _shattered_by(check: dict[str, int]) -> str:
    """Which networks shatter the set (:func:`memnb.lower_bounds.shattering_check`): one
    architecture, as the VC argument needs, or the class of networks up to the largest."""
    size = (f"width {check['width']}, depth {check['depth']}, {check['parameters']:,} "
            "parameters")
    if check["architectures"] == 1:
        return (f"by one architecture ({size}; a set of weights per labelling), as the VC "
                "argument needs")
    return (f"by {check['architectures']} architectures (one network per labelling), all within "
            f"{size}: by the class of networks up to that size (ours)")


def _line_words(line: dict[str, int]) -> str:
    """What the distinct outputs of one hardmax and one softmax head along a line of W_Q
    (:func:`memnb.lower_bounds.attention_along_a_line`) show, and what they do not."""
    t, hard, soft = line["values_of_t"], line["hardmax_outputs"], line["softmax_outputs"]
    hard_words = ("hardmax takes few values, as a function that is piecewise constant in the "
                  "parameters does" if hard < t else
                  f"hardmax takes a new value at every $t$ ({hard})")
    soft_words = ("softmax takes a new value at every $t$, so it is not piecewise constant "
                  "along the line" if soft == t else
                  f"softmax takes {soft} values for {t} values of $t$")
    return (f"{hard_words}; {soft_words}. That softmax is not piecewise polynomial either (its "
            "exponential) is known, not measured here.")


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    """The least-squares slope of log y on log x: the exponent a curve shows over ``x``."""
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


def lower_bound_figure(cached: pd.DataFrame) -> tuple[plt.Figure, str]:
    """The smallest W of our instantiated VC bound (Thm 4.2: N points; Cor. 4.1: nN points,
    hardmax) against the parameter counts of our construction in the committed sweep, next-token
    and seq-to-seq, with the verdicts of the two scorecard rows. The counts are drawn as in
    :func:`construction_figure` (:data:`CONSTRUCTION_STYLE`; the constructions not evaluated
    exactly hollow, named in the legend and the caption, :func:`not_evaluated_words`)."""
    nt, s2 = card._sweep(cached, "N", "next_token"), card._sweep(cached, "N", "seq2seq")
    n = int(s2["n"].iloc[0])
    fig, ax = plt.subplots(figsize=(7.2, 4.6))
    grid = np.unique(np.logspace(np.log10(nt["N"].min()), np.log10(nt["N"].max()), 30)
                     .astype(int))
    fmt, kw = _style("next-token, all parameters", "-")
    hollow = _plot_counted(ax, nt["N"], nt["num_parameters"], fmt, evaluated(nt),
                           label="our construction, next-token", **kw)
    fmt, kw = _style("seq-to-seq, all parameters", "-")
    hollow |= _plot_counted(ax, s2["N"], s2["num_parameters"], fmt, evaluated(s2),
                            label=f"our construction, seq-to-seq (n = {n})", **kw)
    smallest = np.array([lower_bounds.min_parameters(int(x)) for x in grid], float)
    smallest_seq = np.array([lower_bounds.min_parameters(int(x) * n, n) for x in grid], float)
    ax.plot(grid, smallest, "k--", label="smallest W for N points (Thm 4.2; our constants)")
    ax.plot(grid, smallest_seq, "k:",
            label="smallest W for nN points (seq-to-seq, hardmax; our constants)")
    ax.plot(grid, np.sqrt(grid), color="0.6", lw=1, label="√N (the shape of Ω(√N), constant 1)")
    ax.set(xscale="log", yscale="log", xlabel="N (number of sequences)",
           ylabel="parameters (count)")
    _legend_below(ax, hollow, ncol=2, handlelength=_DASHED_HANDLE)
    fig.tight_layout()
    hollow_words = not_evaluated_words(cached[cached["sweep"] == "N"])  # the curves drawn
    sizes = nt["N"].to_numpy(float)  # the sweep's N, on which the Theorem 4.2 row fits
    slopes = (_slope(sizes, [lower_bounds.min_parameters(int(x)) for x in sizes]),
              _slope(sizes, [lower_bounds.min_parameters(int(x) * n, n) for x in sizes]))
    v42 = card.thm42_verdict(cached)
    v41 = card.cor41_verdict(cached)
    lead = ("*Lower bounds of Theorem 4.2 and of the seq-to-seq case (hardmax; a further "
            "theorem of the paper, its number not in our sources, checked under Corollary 4.1 "
            "in the scorecard), instantiated (ours; the paper has no such figure).* "
            f"Theorem 4.2 row: **Verdict: {status_words(v42)}**; Corollary 4.1 row (hardmax): "
            f"**Verdict: {status_words(v41)}**.")
    details = ("Dashed and dotted: the smallest parameter count $W$ for which the VC bound of "
               f"{paper.VC_BOUND.split(':')[0]} (architecture-free form; our choice of bound "
               "and constants) reaches the number of points to shatter. That bound grows like "
               "$W^2 \\log W$ in $W$, so its smallest $W$ grows like "
               "$\\sqrt{N / \\log N}$, a $\\sqrt{\\log N}$ factor short of $\\sqrt N$: fitted "
               "over the "
               f"N of the sweep (as the Theorem 4.2 row fits it), its exponent in N is "
               f"{slopes[0]:.3g} (dashed) and {slopes[1]:.3g} (dotted)"
               + (", below ½" if max(slopes) < 0.5 else "")
               + "; what it instantiates is a "
               "lower bound of order $\\sqrt N$ up to that factor. Grey line: $\\sqrt N$ "
               "itself, the shape of Theorem 4.2's $\\Omega(\\sqrt N)$ with its constant set "
               "to one (a reference slope, not a bound; that the theorem states this order is "
               "our notes' reading, *[unverified]*). Markers: our "
               f"construction's exact counts {lower_bound_form_words(cached)}, from the "
               "committed full sweep. "
               + (f"{hollow_words} " if hollow_words else "")
               + "Theorem 4.2 row of the "
               f"scorecard: {_verdict(v42)}. Corollary 4.1 row (hardmax): {_verdict(v41)}. "
               "A smallest $W$ above a working construction would refute the bound or the "
               "construction; the gap "
               "between them is the constant of our construction against that of the bound.")
    return fig, viz.with_details(lead, details)


def overhead_markdown(table: pd.DataFrame) -> str:
    """Remark 4.4's log N overhead, fitted on the construction sweep (scorecard row
    "Remark 4.4, overhead ∝ log N"), as one Markdown paragraph: what the marginal overhead is,
    the row's verdict, and in words whether the overhead grows like log N over the sweep, does
    not, or whether the fit cannot decide (a slope interval containing both 0 and positive
    slopes, :data:`memnb.scorecard.kajitsuka.OVERHEAD_UNDECIDED`: ``trend``), then with the
    fitted slope's sign and the directions its interval allows (:func:`overhead_slope_words`)."""
    v = card.remark44_overhead_verdict(table)
    undecided = bool(v.values.get("undecided"))
    if undecided:
        said = (" (the criterion asks for $R^2 \\ge 0.9$ and a slope above zero; a slope "
                "interval that contains both zero and positive slopes is not decided, `trend`): "
                "over the sizes of the sweep the fit cannot tell a $\\log N$ growth of the "
                f"marginal overhead from none. {overhead_slope_words(v)} FFN₁'s growth and "
                "FFN₂'s lower-order terms still weigh on the differences up to its largest $N$.")
    elif v.status != "differs":
        said = ". The overhead grows like $\\log N$ over the sweep."
    else:
        said = (" (the criterion asks for $R^2 \\ge 0.9$ and a slope above zero): over the "
                "sizes of the sweep the marginal overhead does not grow like $\\log N$; a "
                "$\\log N$ growth, if the construction has one, is not visible up to its "
                "largest $N$, where FFN₁'s growth and FFN₂'s lower-order terms still weigh on "
                "the differences: this does not show that it has none.")
    return ("*Overhead over the information floor (ours: our expectation for our construction, "
            "a row of ours in the scorecard; Remark 4.4's Θ̃(N) bits, as we read it, do not "
            "require it).* The marginal "
            "overhead (Δ total bits / Δ $N$) / $\\log_2 C$ is the number of weight bits each "
            "added sequence costs per bit of label information (differencing removes the part "
            "of the cost that does not change with $N$, not FFN₁'s growth with $N$); a growth "
            "like $\\log N$ "
            "means this marginal overhead is linear in $\\log_2 N$ with a positive slope. "
            f"Measured on the construction sweep: {v.measured}. **Verdict: {status_words(v)}**"
            + said)


def overhead_slope_words(v: Verdict) -> str:
    """What the fitted slope of the marginal overhead against log₂N says (the values of
    :func:`memnb.scorecard.kajitsuka.overhead_verdict`: ``slope``, its 95 % interval
    ``slope_low`` to ``slope_high``, and the first and last marginal overheads), in one or two
    sentences: its sign, which way the best estimate goes, and which directions the interval
    allows (a decrease below 0, a growth above it)."""
    slope, low, high = (float(v.values[k]) for k in ("slope", "slope_low", "slope_high"))
    first, last = float(v.values["marginal_first"]), float(v.values["marginal_last"])
    sign = "negative" if slope < 0 else "positive" if slope > 0 else "zero"
    best = ("a decrease" if slope < 0 else "a growth" if slope > 0 else "neither a growth nor "
            "a decrease")
    allows = [w for w, ok in (("a decrease", low < 0), ("no change", low <= 0 <= high),
                              ("a growth", high > 0)) if ok]
    allowed = (", ".join(allows[:-1]) + " or " + allows[-1]) if len(allows) > 1 else allows[0]
    return (f"The fitted slope is {sign} ({slope:.3g} per doubling of $N$, 95 % interval "
            f"{low:.3g} to {high:.3g}): its best estimate is {best}. The bits each added "
            f"sequence costs per bit of label go from {first:.4g} between the two smallest "
            f"sizes to {last:.4g} between the two largest; the interval allows {allowed}.")


# ---------------------------------------------------------------------- training experiments
@functools.cache
def mnli_pair_split(seq_len: int) -> tuple[int, int, bool]:
    """How :func:`memnb.data.text.load_mnli` (``layout="pair"``) fills a ``seq_len``-token
    sequence, found by running it on a probe file of two examples: the tokens taken from the
    premise, those taken from the hypothesis (premise first), and whether a part whose text is
    shorter is padded at its end with ``[PAD]`` (:data:`memnb.data.text.PAD_ID`). Needs the
    tokenizer, not the MultiNLI file."""
    import json
    import tempfile

    from memnb.data import text

    seq_len = check_int("seq_len", seq_len, 2)
    (premise,), (hypothesis,) = text.encode(["cat"], 1), text.encode(["dog"], 1)
    rows = [{"premise": " ".join(["cat"] * seq_len), "hypothesis": " ".join(["dog"] * seq_len),
             "label": text.MNLI_LABELS[0]},
            {"premise": "cat", "hypothesis": "dog", "label": text.MNLI_LABELS[1]}]
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / text.MNLI_FILE).parent.mkdir(parents=True)
        (Path(folder) / text.MNLI_FILE).write_text(
            "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        ds = text.load_mnli(seq_len, layout="pair", data_dir=folder, download=False)
    full, short = (ds.tokens[ds.labels == k][0].tolist() for k in (0, 1))
    first = full.count(premise[0])
    if full != [premise[0]] * first + [hypothesis[0]] * (seq_len - first):
        raise ValueError(f"load_mnli(layout='pair') does not put the premise first: {full}")
    pad = [text.PAD_ID] * seq_len
    padded = short == [premise[0]] + pad[:first - 1] + [hypothesis[0]] + pad[:seq_len - first - 1]
    return first, seq_len - first, padded


def mnli_layout_words(ds: Any) -> str:
    """How the MultiNLI sequences of ``ds`` (a :class:`memnb.data.text.TextDataset` of
    :func:`memnb.data.text.load_mnli`) are made, in one sentence: for ``layout="pair"`` the
    split measured by :func:`mnli_pair_split`; the layout's name otherwise."""
    layout, seq_len = ds.info.get("layout"), int(ds.tokens.shape[1])
    if layout != "pair":
        return f"{ds.name}: layout `{layout}` of `memnb.data.text.load_mnli`, {seq_len} tokens."
    first, second, padded = mnli_pair_split(seq_len)
    pad = (", each part padded at its end with [PAD] when its text is shorter" if padded
           else "")
    return (f"{ds.name} (layout `pair` of `memnb.data.text.load_mnli`): each sequence of "
            f"{seq_len} tokens is the first {first} WordPiece tokens of the premise followed by "
            f"the first {second} of the hypothesis{pad}.")


def curves_figure(fresh: pd.DataFrame, cached: pd.DataFrame | None, title: str,
                  paper_figs: str, profile: str, *, partial: str | None = None
                  ) -> tuple[plt.Figure, str]:
    """Training loss and accuracy against epochs per #blocks (Figs. 1/2 MultiNLI, 4/5 IMDb, the
    ICLR random set), with the verdicts of the matching scorecard rows. ``partial`` says what a
    partial full-scale run ``cached`` holds (:func:`memnb.provenance.partial_summary`). Each line
    is the mean over seeds, its band the lowest to the highest seed (:data:`CURVE_BAND`, named
    in the legend and, by :func:`band_words`, in the caption). This build's run ``fresh``
    (circles, its legend labels naming ``profile``) is drawn over the full-scale run (squares);
    the caption says which markers are which run, with each run's N, epochs, seeds and depths
    (:func:`markers_sentence`), and which run the verdicts read."""
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.9))
    depths = sorted(set(fresh["blocks"]) | (set() if cached is None else set(cached["blocks"])))
    colors = {b: viz.GROUP_CYCLE[i % len(viz.GROUP_CYCLE)] for i, b in enumerate(depths)}
    for ax, metric in zip(axes, ("loss", "accuracy"), strict=True):  # one colour per depth
        # min-max over seeds: a positive loss band on the log axis (mean ± std can reach 0)
        viz.plot_ours(ax, fresh, "epoch", metric, by="blocks", colors=colors, spread=CURVE_BAND,
                      label=f"ours, {profile} run")
        if cached is not None:
            viz.plot_ours(ax, cached, "epoch", metric, by="blocks", role="ours_cached",
                          colors=colors, spread=CURVE_BAND, label="ours, committed full run")
    axes[0].set(yscale="log", xlabel="epoch (full-batch step)", ylabel="training loss (nats)")
    shown = fresh if cached is None else pd.concat([fresh, cached])
    lo = float(np.nanmin(shown["accuracy"]))
    axes[1].set(xlabel="epoch (full-batch step)", ylabel="training accuracy (fraction)")
    _accuracy_limits(axes[1], max(0.0, lo - 0.02))
    handles, labels = axes[1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.02), ncol=3,
               fontsize=7, frameon=False)
    sizes = f"N = {int(fresh['N'].iloc[0])} ({profile} profile, circles)"
    if cached is not None:
        sizes += f" and N = {int(cached['N'].iloc[0])} (full-scale run, squares)"
    fig.suptitle(f"{title}, n = {int(fresh['n'].iloc[0])}: {sizes}")
    fig.tight_layout()
    table = cached if cached is not None else fresh
    used = "full" if cached is not None else profile
    loss = _scale_tagged(card.curves_verdict(table, "loss", divergence=False), used, partial)
    acc = _scale_tagged(card.curves_verdict(table, "accuracy"), used, partial)
    which = "the full-scale run" if cached is not None else f"our `{profile}` run"
    if cached is not None and partial is not None:
        which += f" ({partial})"
    worse = _worse_than_one_block(table)
    loss_fig, acc_fig = (f" ({name})" if name else "" for name in loss_accuracy_figures(paper_figs))
    lead = (f"*Training loss and accuracy per #blocks on {title} ({paper_figs} of the paper; "
            f"{_figures_in_sources(table)}: the trend tested, more blocks fit better, is our "
            "expectation *[unverified]*).* "
            f"{markers_sentence(fresh, cached, profile)} "
            f"From {which}: loss{loss_fig} **Verdict: {status_words(loss)}**; "
            f"accuracy{acc_fig} **Verdict: {status_words(acc)}**."
            f"{counted_seeds_sentence(table)}{late_fall_sentence(table)}"
            f"{shortfall_sentence(table)}")
    details = (f"Loss{loss_fig}: {_verdict(loss)}. Accuracy{acc_fig}: {_verdict(acc)}.{worse}"
               f"{_seed_ranges(table)}{band_words([fresh, cached])}")
    random = ("dataset" in table and set(table["dataset"].astype(str)) == {"random"}
              or title == _DATASETS["random"])
    if random:  # the vocabulary, classes and token vectors of our random data (review s75)
        lead += _random_data_sentence(RANDOM_DATA[0], profile, cached)
    model = model_words(table)
    return fig, viz.with_details(f"{lead} {model}" if model else lead, details)


def loss_accuracy_figures(paper_figs: str) -> tuple[str | None, str | None]:
    """The paper's figures of the loss and of the accuracy curves, named apart from
    ``paper_figs`` as :func:`curves_figure` is given it: "Figs. 1 and 2" → ("Fig. 1", "Fig. 2")
    (the paper draws the loss first: Figs. 1 and 4 are losses, 2 and 5 accuracies), so that each
    verdict names the scorecard row it is; ``(None, None)`` for any other wording (the ICLR
    version's random-data figures, whose numbers our sources do not give)."""
    pair = re.fullmatch(r"Figs\. (\d+) and (\d+)", paper_figs)
    return (f"Fig. {pair[1]}", f"Fig. {pair[2]}") if pair else (None, None)


#: The experiments that train on our random data (the ICLR version's random dataset and its
#: sweep over n), whose vocabulary, classes and token vectors :func:`random_data_words` states.
RANDOM_DATA = ("kajitsuka.random_curves", "kajitsuka.seq_len")


def random_data_words(experiments: Sequence[str], profiles: Sequence[str]) -> str:
    """Our random data of ``experiments`` (:data:`RANDOM_DATA`) in ``profiles``, read from the
    experiments' parameters (:mod:`memnb.experiments.kajitsuka`'s profiles: ``vocab``,
    ``classes``; ``input_dim``, else ``MODEL["input_dim"]``), in words: the vocabulary size
    V, the number of classes C and the token embedding, a fixed Gaussian vector per token
    (:func:`memnb.data.random_sequences.token_vectors`). Said once when every experiment and
    profile agree, else per experiment and profile. The ICLR version's random dataset is the
    paper's; these values are ours, *[reconstruction]*."""
    from memnb.experiments import kajitsuka as exp
    from memnb.experiments.registry import get

    found: dict[tuple[int, int, int], list[str]] = {}
    for name in experiments:
        for profile in dict.fromkeys(profiles):
            params = get(name).params(profile)
            key = (int(params["vocab"]), int(params["classes"]),
                   int(params.get("input_dim", exp.MODEL["input_dim"])))
            found.setdefault(key, []).append(f"`{name}`, `{profile}`")

    def words(V: int, C: int, dim: int) -> str:
        return (f"vocabulary size $V$ = {V:,}, $C$ = {C} classes, tokens and labels drawn "
                f"uniformly; each token embedded as a fixed random Gaussian vector of {dim} "
                f"dimensions (entries of variance 1/{dim}, so norms about 1; "
                "`token_vectors`, seeded with the data seed), no pretrained embedding")

    if len(found) == 1:
        return words(*next(iter(found)))
    return "; ".join(f"{' and '.join(runs)}: {words(*key)}" for key, runs in found.items())


def random_data_markdown(profile: str) -> str:
    """The random-dataset paragraph's computed sentence: :func:`random_data_words` of both
    experiments on random data (:data:`RANDOM_DATA`), in this build's ``profile`` and in our
    ``full`` profile, with where the values are read."""
    runs = " and ".join(f"`{p}`" for p in dict.fromkeys([profile, "full"]))
    return (f"Our random data, as the experiments' parameters set them (`kajitsuka.random_curves` "
            f"and `kajitsuka.seq_len`, profiles {runs}; ours, *[reconstruction]*): "
            f"{random_data_words(RANDOM_DATA, [profile, 'full'])}.")


def _random_data_sentence(experiment: str, profile: str, cached: pd.DataFrame | None) -> str:
    """One caption sentence with :func:`random_data_words` for ``experiment`` in the runs a
    figure draws: this build's ``profile``, and ``full`` when there is a full-scale run."""
    profiles = [profile] + (["full"] if cached is not None else [])
    return (f" Random data (ours, *[reconstruction]*): "
            f"{random_data_words([experiment], profiles)}.")


def shortfall_sentence(curves: pd.DataFrame) -> str:
    """Where a deeper model of a curves table gets fewer training sequences right than a
    shallower one that gets every one right, by how many sequences, at the last epoch and at
    each run's lowest-loss checkpoint (:func:`memnb.scorecard.kajitsuka.accuracy_shortfall_words`,
    the Figs. 2 and 5 rows' own words), as one sentence for the visible caption: a failure of the
    accuracy rule at the ceiling reads as the few sequences it is. Empty where there is none."""
    words = card.accuracy_shortfall_words(curves)
    return f" Counted in training sequences: {words}." if words else ""


def earlier_code_markdown(runs: Sequence[tuple[str, Any]]) -> str:
    """One sentence on the committed full-scale tables that the loss and accuracy verdicts of
    the curve figures read, for each ``(figures, run)`` of ``runs`` (``run``: a
    :class:`memnb.results.FreshAndCached`) whose committed table today's code did not compute
    (:func:`memnb.results.computed_by_todays_code`): which code computed them (the code
    fingerprint of their provenance), that whether the changes since move these curves is not
    known until a rerun on today's code, which will replace them (the
    "Still to run" section of the Running at scale page) and that the verdicts stand on these
    tables until then. Empty when every committed table is of today's code, or none is read."""
    from memnb.results import computed_by_todays_code

    old = [(figs, run) for figs, run in runs
           if run.cached is not None and run.cached_provenance is not None
           and not computed_by_todays_code(run.name, run.cached_provenance)]
    if not old:
        return ""
    codes = {figs: str(run.cached_provenance.get("code_fingerprint") or "not recorded")
             for figs, run in old}
    if len(set(codes.values())) == 1:
        code = f"code fingerprint {next(iter(codes.values()))}"
    else:
        code = "code fingerprints " + prose.and_words([f"{c} ({f})" for f, c in codes.items()])
    one = len(old) == 1
    figures = prose.and_words([f"of {f}" for f, _ in old])
    return (f"The loss and accuracy verdicts {figures} read "
            f"committed full-scale table{'' if one else 's'} computed by earlier code ({code}), "
            "which no re-key carried to today's code: the code its fingerprint covers (the model, "
            "the training loop and the code they use) has changed since, and whether the "
            "changes move these curves is not known until a "
            "rerun on today's code, which will replace "
            f"{'it' if one else 'them'} ({{ref}}`Still to run <still-to-run>`, on the Running "
            "at scale page); until then the verdicts stand on "
            f"{'this table' if one else 'these tables'}.")


def counted_seeds_sentence(curves: pd.DataFrame) -> str:
    """How many seeds the loss and accuracy rows of a curves table count, and why any are left
    out (:func:`memnb.scorecard.kajitsuka.final_ceiling_seeds`: a seed at accuracy 1 at every
    depth at the last epoch, where neither rule can fail; ours), as one sentence for the
    visible caption; empty for a table of one seed."""
    ceiling, seeds = card.final_ceiling_seeds(curves)
    if seeds < 2:
        return ""
    if not ceiling:
        return (f" Both verdicts count all {seeds} seeds: none ends at accuracy 1 at every "
                "depth.")
    one = len(ceiling) == 1
    why = (f"{card._seeds_words(ceiling)} end{'s' * one} at accuracy 1 at every depth, where "
           "neither rule can fail (ours: a higher accuracy cannot be reached, and a loss rise "
           "between depths that both memorize decides nothing)")
    if len(ceiling) == seeds:
        return f" Neither verdict counts any seed: {why}."
    return (f" Both verdicts count {seeds - len(ceiling)} of {seeds} seeds: {why}, so "
            f"{'it is' if one else 'they are'} not counted per seed; the mean over seeds that "
            f"both verdicts judge is over all {seeds} seeds.")


def model_words(curves: pd.DataFrame) -> str:
    """The model a curves table trained, from its columns: width, FFN width, heads and the
    parameter count at its fewest and most #blocks, with the reconstruction flag (the paper's
    width is not in our sources; pre-LayerNorm and a learned positional embedding are ours).
    Empty for a table without those columns."""
    if not {"d", "d_ff", "num_heads"} <= set(curves.columns):
        return ""
    first = curves.iloc[0]
    params = curves.groupby("blocks")["params"].first() if "params" in curves else None
    counts = ("" if params is None or params.empty else
              f"; {int(params.iloc[0]):,} parameters at {card.blocks_word(params.index[0])} to "
              f"{int(params.iloc[-1]):,} at {card.blocks_word(params.index[-1])}")
    return (f"Model (ours, *[reconstruction]*: the paper's width is not in our sources): width "
            f"$d = {int(first['d'])}$, FFN width $d_{{ff}} = {int(first['d_ff'])}$, "
            f"{prose.counted(int(first['num_heads']), 'head')}, pre-LayerNorm and a learned "
            f"positional embedding (ours){counts}.")


#: Top of an accuracy axis: room above 1 for the whole of a marker drawn at 100 % (the top
#: 1.005 cut those markers in half); no tick is drawn above 1 (:func:`_accuracy_limits`).
ACCURACY_TOP = 1.02


def _accuracy_limits(ax: Any, low: float) -> None:
    """Set an accuracy axis from ``low`` to :data:`ACCURACY_TOP`, its ticks those matplotlib
    chooses for that range that are at most 1 (a fraction above 1 is no accuracy)."""
    ax.set_ylim(low, ACCURACY_TOP)
    ticks = [t for t in ax.yaxis.get_major_locator()() if low - 1e-9 <= t <= 1.0 + 1e-9]
    ax.set_yticks(ticks)
    ax.set_ylim(low, ACCURACY_TOP)


def run_words(curves: pd.DataFrame) -> str:
    """What a curves table ran, in words: its N, its epochs (the ``epochs`` column, the training
    budget; without it the last epoch recorded), its seeds and its #blocks, e.g.
    ``"N = 300, 200 epochs, 1 seed; blocks 0, 1, 4"``."""
    def listed(values: Any) -> str:
        return ", ".join(str(int(v)) for v in sorted(pd.unique(values)))

    budget = curves["epochs"].dropna() if "epochs" in curves else pd.Series(dtype=float)
    epochs = budget if len(budget) else curves["epoch"].max()
    epochs = pd.Series(np.atleast_1d(epochs))
    one = set(epochs.astype(int)) == {1}
    seeds = int(curves["seed"].nunique()) if "seed" in curves else 1
    return (f"N = {listed(curves['N'])}, {listed(epochs)} epoch{'' if one else 's'}, "
            f"{prose.counted(seeds, 'seed')}; blocks {listed(curves['blocks'])}")


def markers_sentence(fresh: pd.DataFrame, cached: pd.DataFrame | None, profile: str) -> str:
    """Which markers of :func:`curves_figure` are which run, with each run's size
    (:func:`run_words`), and which run its verdicts read: with a full-scale run ``cached``,
    the circles of this build's ``profile`` run are drawn for their shape only and the
    verdicts read the squares."""
    own = f"this build's `{profile}` run ({run_words(fresh)})"
    if cached is None:
        return f"Circles: {own}, which the verdicts read."
    return (f"Circles: {own}, drawn for its shape only; squares: the committed full-scale run "
            f"({run_words(cached)}), which the verdicts read; the colour gives the #blocks in "
            "both runs.")


def late_fall_sentence(curves: pd.DataFrame) -> str:
    """The runs of a curves table whose final training accuracy lies more than
    :data:`memnb.scorecard.kajitsuka.LATE_DROP` below their accuracy at the checkpoint their
    trial was chosen by (their lowest-loss epoch, :func:`memnb.scorecard.kajitsuka.late_falls`),
    per depth with how many of its
    seeds, which, and both accuracies; and what the loss and accuracy rules of Figs. 1/2, 4/5
    say when read at those checkpoints (:func:`memnb.scorecard.kajitsuka.lowest_loss_rule`):
    that the expected trend holds on the
    mean and at every seed only where both rules do. One sentence for the visible caption (the
    verdicts read the final epoch; the scorecard rows' text names the same runs); empty when no
    run fell so far."""
    best, fell = card.late_falls(curves)
    if fell.empty:
        return ""
    seeds = best.groupby("blocks")["seed"].nunique()

    def values(column: str, part: pd.DataFrame) -> str:
        return ", ".join(card.fraction_text(x) for x in part[column])

    where = "; ".join(
        f"at {card.blocks_word(int(b))}, {len(part)} of {seeds[b]} seeds "
        f"({', '.join(str(int(x)) for x in part['seed'])}): final accuracy "
        f"{values('final_accuracy', part)} against {values('accuracy', part)} at the checkpoint"
        for b, part in fell.groupby("blocks"))
    rules = {m: card.lowest_loss_rule(curves, m) for m in ("loss", "accuracy")}
    total = int(best["seed"].nunique())
    if all(status == "reproduced" and held == t for status, held, t in rules.values()):
        counted_all = max(t for _, _, t in rules.values())
        every = ("at every seed" if counted_all == total else
                 f"at every counted seed; the other {total - counted_all}, at accuracy 1 at "
                 "every depth, are not counted")
        after = ("read at those checkpoints, the expected trend holds: more blocks reach a "
                 f"lower loss and a higher accuracy on the mean and {every} ({counted_all} of "
                 f"{counted_all})")
    else:
        said = {"reproduced": "holds", "trend": "is not decided", "differs": "fails"}
        after = "read at those checkpoints, " + "; ".join(
            f"the {m} rule {said[status]} on the mean, and it holds at {held} of {t} seeds"
            for m, (status, held, t) in rules.items())
        left = total - max(t for _, _, t in rules.values())  # one set of seeds for both rules
        after += (f" (the other {left}, at accuracy 1 at every depth, "
                  f"{'is' if left == 1 else 'are'} not counted in either)" if left else "")
    return (" The verdicts read each run's final epoch, where "
            f"{len(fell)} of {prose.counted(len(best), 'run')} "
            f"end{'s' * (len(fell) == 1)} more than {card.LATE_DROP:g} below "
            f"{'its' if len(fell) == 1 else 'their'} training accuracy at the checkpoint the "
            f"run's trial was chosen by (its lowest-loss epoch): {where}; {after}.")


#: The band the curves figures draw around the mean over seeds (:func:`memnb.viz.summarize`):
#: the lowest to the highest seed, which stays positive on the log loss axis.
CURVE_BAND = "minmax"


def band_words(tables: list[pd.DataFrame | None]) -> str:
    """What the shaded bands of :func:`curves_figure` show, as one sentence, for the curves
    tables drawn (``None`` entries skipped): the lowest to the highest seed at each epoch, and
    at how many of the (#blocks, epoch) points with several seeds a mean ± std band would reach
    zero or below, which a log axis cannot draw; empty when no point has several seeds."""
    several = lower = 0
    for table in tables:
        if table is None:
            continue
        stats = table.groupby(["blocks", "epoch"])["loss"].agg(["mean", "std", "count"])
        stats = stats[stats["count"] > 1]
        several += len(stats)
        lower += int((stats["mean"] - stats["std"] <= 0).sum())
    if not several:
        return ""
    std = (f"a mean ± std band would reach zero or below at {lower} of those {several} loss "
           "points, which the log loss axis cannot draw" if lower else
           "a mean ± std band would stay above zero at all of those "
           f"{several} loss points")
    return (" Shaded bands (curves with several seeds): the lowest to the highest seed at each "
            f"epoch, around the mean over seeds (the line), on both panels; {std}.")


def _figures_in_sources(curves: pd.DataFrame) -> str:
    """What our sources hold of the paper's figures of a curves table, from its ``dataset``
    column (:func:`memnb.scorecard.kajitsuka.curves_sources`, the words of the scorecard rows'
    claims), in the plural of a caption naming two figures, the figures it names the subject;
    MultiNLI's words without the column."""
    dataset = str(curves["dataset"].iloc[0]) if "dataset" in curves else "mnli"
    words = card.curves_sources(dataset)
    return (words.replace("the figure itself is not in our sources, only its caption, which "
                          "names only what is plotted and gives",
                          "the figures themselves are not in our sources, only their captions, "
                          "which name only what is plotted and give")
            .replace("the ICLR version's random-data figures are", "they are"))


def _seed_ranges(curves: pd.DataFrame) -> str:
    """The final training accuracy of the worst and the best seed at each depth, in words (a
    mean over seeds can hide one seed that failed to train), or nothing for one seed."""
    last = curves[curves["epoch"] == curves["epoch"].max()]
    if last["seed"].nunique() < 2:
        return ""
    spans = last.groupby("blocks")["accuracy"].agg(["min", "max"])
    return (f" Final training accuracy per seed ({last['seed'].nunique()} seeds), worst to "
            "best: " + "; ".join(f"{card.blocks_word(int(b))} {card.fraction_text(r['min'])} to "
                                 f"{card.fraction_text(r['max'])}"
                                 for b, r in spans.iterrows()) + ".")


def _worse_than_one_block(curves: pd.DataFrame) -> str:
    """The rises of :func:`memnb.scorecard.kajitsuka.loss_rises` (the loss row's own rule) in
    words, or that there is none: a rise against a depth below 100 % training accuracy is
    against the expected trend; one between two depths that both reach it decides nothing
    (:data:`memnb.scorecard.kajitsuka.BOTH_MEMORIZE`; ours)."""
    final = card.final_values(curves)
    rises = card.loss_rises(final)
    if not rises:
        return (" No deeper model ends more than "
                f"{card.LOSS_RISE * 100:g} % above the loss of a shallower one.")
    acc = final.set_index("blocks")["accuracy"]

    def reading(a: int, b: int) -> str:
        if card.both_memorize(acc, a, b):
            return ("between two depths that both reach 100 % training accuracy, which decides "
                    "nothing for or against the expected trend (ours)")
        return "against the expected trend (ours)"

    return " " + "; ".join(
        f"At {card.blocks_word(b)} the final loss ({lb:.3g}) is higher than at "
        f"{card.blocks_word(a)} ({la:.3g}), by more than the {card.LOSS_RISE * 100:g} % the "
        f"criterion allows, {reading(a, b)}"
        for a, b, la, lb in rises) + "."


#: The legend entry of the arrows :func:`capacity_figure` draws at the top edge of its left panel
#: for a size that no tried depth memorized.
NO_DEPTH_MEMORIZED = "no tried depth memorized"
#: The legend entry of the dashed line at accuracy 1 on the right panel of
#: :func:`capacity_figure`.
MEMORIZED_LINE = "accuracy 1 (memorized)"
#: The arrows of :data:`NO_DEPTH_MEMORIZED`: their marker, their size, the height they sit at (a
#: fraction of the panel), and the share of the panel's height left to the tried depths below
#: them.
_NONE_MARKER = r"$\uparrow$"
_NONE_SIZE = 11
_NONE_ROW = 0.94
_DEPTHS_SHARE = 0.88

#: The right panel's y-label of :func:`capacity_figure`: the accuracy a capacity table records is
#: the kept trial's at its lowest-loss checkpoint (``TrainResult.accuracy``), not its last epoch's.
CAPACITY_ACCURACY_LABEL = ("training accuracy (fraction) at\nlowest-loss checkpoint "
                           "(best trial)")


def capacity_figure(fresh: pd.DataFrame, cached: pd.DataFrame | None, profile: str, *,
                    by: str = "N", partial: str | None = None) -> tuple[plt.Figure, str]:
    """Fig. 7 (``by="N"``) or the ICLR sweep over n (``by="n"``): the smallest #blocks reaching
    100 % (left; an upward arrow in the width's colour at the panel's top edge, above the
    deepest tried depth, marks a size that no tried depth memorized, with a legend entry when
    one is drawn) and the whole per-depth search (right: the training accuracy of each depth's
    kept trial at its lowest-loss checkpoint, mean over seeds, against #blocks, the dashed
    accuracy 1 named in the legend; :func:`memnb.experiments.kajitsuka.depth_table`).
    ``partial`` says what a partial full-scale run ``cached`` holds; one that has not reached
    two sizes at any width is stated in the caption and the figure shows ``fresh``
    (:func:`capacity_shown`)."""
    table = capacity_shown(fresh, cached, by)
    shows_full = table is cached
    used = "full" if shows_full else profile
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 4.2))
    cap = capacity_table(table, by)
    ds = widths(table)
    styles = dict(zip(ds, ["-", "--", ":", "-."], strict=False))
    # no squares: the book draws a committed full-scale run with square markers
    markers = dict(zip(ds, ["o", "^", "d", "v"], strict=False))
    # widths drawn slightly apart along x, so that a width's point is not hidden under another's
    span = float(np.ptp(np.asarray(sorted(table[by].unique()), dtype=float))) or 1.0
    apart = {d: (i - (len(ds) - 1) / 2) for i, d in enumerate(ds)}
    top = int(table["blocks"].max())
    unmemorized = False  # an arrow drawn at the top edge: a size no tried depth memorized
    for i, d in enumerate(ds):
        part = cap[cap["d"] == d] if "d" in cap else cap
        mean = part.groupby(by)["min_blocks"].mean()
        color = viz.GROUP_CYCLE[i % len(viz.GROUP_CYCLE)]
        shift = apart[d] * _DODGE * span
        axes[0].plot(part[by] + shift, part["min_blocks"], markers[d], alpha=0.5, color=color)
        seeds = part["seed"].nunique()  # capacity_table keys every row by its seed
        axes[0].plot(mean.index + shift, mean.to_numpy(), styles[d], marker=markers[d],
                     color=color, label=f"width d = {d} ("
                     + ("mean over seeds; dots: seeds)" if seeds > 1 else "one seed)"))
        missed = mean[mean.isna()].index
        if len(missed):  # x in data, y in axes fractions: a row above the deepest tried depth
            axes[0].plot(missed + shift, np.full(len(missed), _NONE_ROW), linestyle="none",
                         marker=_NONE_MARKER, markersize=_NONE_SIZE, color=color,
                         transform=axes[0].get_xaxis_transform())
            unmemorized = True
    xlabel = "N (training sequences)" if by == "N" else "n (sequence length, tokens)"
    axes[0].set(xlabel=xlabel, ylabel="smallest #blocks at 100 % train acc.",
                ylim=(-0.3, top + 0.3), title="capacity")
    handles, labels = axes[0].get_legend_handles_labels()
    if unmemorized:  # room above the deepest tried depth for the arrows' row, and their entry
        axes[0].set_ylim(-0.3, -0.3 + (top + 0.6) / _DEPTHS_SHARE)
        handles.append(Line2D([], [], linestyle="none", marker=_NONE_MARKER,
                              markersize=_NONE_SIZE, color="0.3"))
        labels.append(f"{NO_DEPTH_MEMORIZED} (arrow at the top edge, above the deepest tried, "
                      f"{card.blocks_word(top)}; colour: width)")
    axes[0].legend(handles, labels, **_BELOW, ncol=1, handlelength=_DASHED_HANDLE)
    depth = depth_table(table, by)
    values = sorted(depth[by].unique())
    colors = {v: viz.GROUP_CYCLE[i % len(viz.GROUP_CYCLE)] for i, v in enumerate(values)}
    width_of = depth["d"] if "d" in depth else pd.Series(ds[0], index=depth.index)
    keys = [(d, v) for d in ds for v in sorted(depth.loc[width_of == d, by].unique())]
    offset = search_offsets(keys, depth["blocks"])
    for d in ds:
        part_d = depth[width_of == d]
        for value, part in part_d.groupby(by):
            name = f"{by} = {value:g}" + (f", d = {d}" if len(ds) > 1 else "")
            axes[1].plot(part["blocks"] + offset[(d, value)], part["accuracy"], styles[d],
                         marker=markers[d], ms=_SEARCH_MARKER, color=colors[value], label=name)
    flagged = depth[depth["below_shallower"]]
    moved = pd.Series([offset[(w, v)] for w, v in zip(width_of[flagged.index], flagged[by],
                                                       strict=True)],
                      index=flagged.index, dtype=float)
    axes[1].plot(flagged["blocks"] + moved, flagged["accuracy"], "x",
                 color="#c51b7d", ms=10, label="below a shallower depth")
    axes[1].axhline(1.0, color="k", lw=0.8, ls="--", label=MEMORIZED_LINE)
    axes[1].set(xlabel="#blocks of each FFN", ylabel=CAPACITY_ACCURACY_LABEL,
                title="the search per depth" + (" (line style: width)" if len(ds) > 1 else ""))
    for ax in axes[1:]:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].yaxis.set_major_locator(MaxNLocator(integer=True))
    if unmemorized:  # no depth ticks in the arrows' row: no depth above the deepest was tried
        ticks = MaxNLocator(integer=True).tick_values(0, top)
        axes[0].set_yticks([t for t in ticks if 0 <= t <= top])
    axes[1].legend(**_BELOW, ncol=3, handlelength=_DASHED_HANDLE)
    fig.tight_layout()
    def scale(v: Verdict) -> Verdict:
        return _scale(v, used, partial)

    verdict = scale(card.capacity_verdict(table, by, scale=scale) if by == "N"
                    else card.seq_len_verdict(table))
    what = ("*Memorization capacity against N (Fig. 7 of the paper: MultiNLI, n = 8, "
            f"N from {paper.FIG7_N.value[0]} to {paper.FIG7_N.value[-1]}).*" if by == "N" else
            "*Capacity against the sequence length n (the ICLR version's sweep over n, which "
            "our notes name without a quote from the paper, [unverified]; its values of n are "
            "not in our sources, ours are a reconstruction).*")
    source = "the full-scale run" if shows_full else f"our `{profile}` run"
    tried = ", ".join(str(b) for b in sorted(table["blocks"].unique()))
    ds = widths(table)
    shown = ", ".join(f"$d = {d}$" + _ffn_width(table, d) for d in ds)
    apart_words = (" The widths are drawn slightly apart along the horizontal axis, so that "
                   "equal values of two widths both show." if len(ds) > 1 else "")
    if len(keys) > 1:
        apart_words += (" On the right, each line is drawn slightly apart along the #blocks "
                        "axis" + (", the widths in two groups" if len(ds) > 1 else "")
                        + ", so that lines at the same accuracy (at 1 above all) show each "
                        "marker.")
    lead = (f"{what} From {source}{_run_data(table, by)}, model width"
            f"{'s' if len(ds) > 1 else ''} {shown} (ours: the paper's width is not in "
            f"our sources), #blocks tried: {tried}.{apart_words} The accuracies are read at the "
            f"lowest-loss checkpoint, not at the last epoch: {card.TRIAL_SELECTION}.")
    if by == "n":  # the sweep over n trains on our random data (review s75)
        lead += _random_data_sentence(RANDOM_DATA[1], profile, cached)
    details = _verdict(verdict) + "."
    if cached is not None and not shows_full:
        early = card.capacity_verdict(cached, by)
        sizes = int(cached.groupby("d")[by].nunique().max() if "d" in cached
                    else cached[by].nunique())
        lead += (f" The committed full-scale run is not drawn: partial, it has at most "
                 f"{prose.counted(sizes, 'value')} of {by} per width so far, fewer than the "
                 f"{card.MIN_CAPACITY_SIZES} a growth with {by} needs; the details say what it "
                 "shows.")
        details += (f" The full-scale run is {partial or 'partial'}, and {early.measured}.")
        beside = card.quick_against_full(table, cached, by, profile)
        details += f" {beside}" if beside else ""
    return fig, viz.with_details(f"{lead} **Verdict: {status_words(verdict)}**.", details)


def seq_len_sizes_markdown(fresh: pd.DataFrame, cached: pd.DataFrame | None, profile: str
                           ) -> str:
    """The sizes of the sweep over n: of the run that :func:`capacity_figure` draws
    (:func:`capacity_shown`), of our `full` profile when that run is another, and whether
    either is the N of the ICLR version's Fig. 2 caption (:data:`memnb.papers.kajitsuka.FIG2_N`,
    which our `full` random-data curves borrow), as one Markdown sentence: the sizes are
    ours, named, not the caption's."""
    from memnb.experiments.registry import get

    def listed(values: Any) -> str:
        return ", ".join(f"{int(v):,}" for v in sorted(pd.unique(pd.Series(values))))

    shown = capacity_shown(fresh, cached, "n")
    run = "full" if cached is not None and shown is cached else profile
    full = get("kajitsuka.seq_len").params("full")
    text = (f"Our sizes for the sweep over $n$: the run drawn below (`{run}`) has $N$ = "
            f"{listed(shown['N'])} random sequences at $n$ = {listed(shown['n'])}")
    sizes = {int(v) for v in shown["N"]}
    if run != "full":
        text += f"; our `full` profile has $N$ = {full['N']:,} at $n$ = {listed(full['n'])}"
        sizes.add(int(full["N"]))
    iclr = int(paper.FIG2_N.value)
    borrowed = int(get("kajitsuka.random_curves").params("full")["N"]) == iclr
    caption = (f"the $N$ = {iclr:,} of the ICLR version's Fig. 2 caption"
               + (" (which our `full` random-data curves borrow)" if borrowed else ""))
    if iclr in sizes:
        return f"{text}; $N$ = {iclr:,} is {caption}."
    subject = {1: "It is not", 2: "Neither is"}.get(len(sizes), "None of them is")
    return f"{text}. {subject} {caption}."


def search_offsets(keys: Sequence[tuple[int, float]], blocks: Sequence[float] | pd.Series
                   ) -> dict[tuple[int, float], float]:
    """The horizontal offset, in blocks, of each line ``(width, size)`` of the capacity
    figure's right panel, in the order of ``keys`` (width first, so each width's lines stay
    together): evenly spread over :data:`_SEARCH_SPREAD` of the range of ``blocks`` (the
    #blocks tried), at most :data:`_SEARCH_SPREAD_MAX` blocks, centred on each depth. Lines at
    one accuracy then show each of their markers, and no line leaves its depth's neighbourhood."""
    if len(keys) < 2:
        return {k: 0.0 for k in keys}
    values = np.asarray(blocks, dtype=float)
    span = float(np.ptp(values)) if values.size else 0.0
    spread = min(_SEARCH_SPREAD_MAX, _SEARCH_SPREAD * max(1.0, span))
    step = spread / (len(keys) - 1)
    return {k: (i - (len(keys) - 1) / 2) * step for i, k in enumerate(keys)}


def capacity_shown(fresh: pd.DataFrame, cached: pd.DataFrame | None, by: str = "N"
                   ) -> pd.DataFrame:
    """The capacity table a chapter shows: the full-scale run ``cached`` when there is one and
    some width of it has :data:`memnb.scorecard.kajitsuka.MIN_CAPACITY_SIZES` sizes
    (:func:`memnb.scorecard.kajitsuka.judged_widths`; a partial run that has reached one size
    shows a depth, not the growth the figure is about), else this build's run ``fresh``."""
    return cached if cached is not None and card.judged_widths(cached, by) else fresh


def _ffn_width(table: pd.DataFrame, d: int) -> str:
    """`` (d_ff = …)`` for model width ``d`` of a capacity table, or nothing without the column."""
    if "d_ff" not in table:
        return ""
    part = table[table["d"] == d] if "d" in table else table
    return " ($d_{ff}$ = " + ", ".join(str(int(v)) for v in sorted(part["d_ff"].unique())) + ")"


_DATASETS = {"mnli": "MultiNLI", "imdb": "IMDb", "random": "random sequences"}


def _run_data(table: pd.DataFrame, by: str) -> str:
    """What a capacity table ran on, in words: its dataset, and its sizes N (``by="N"``) or its
    N and lengths n (``by="n"``), so that a run smaller than the paper's grid says so; nothing
    for a column the table lacks."""
    words = []
    if "dataset" in table:
        names = [_DATASETS.get(str(v), str(v)) for v in sorted(table["dataset"].unique())]
        words.append(" and ".join(names) + ("" if by == "N" else
                                            " (our choice: the ICLR version's is not in our "
                                            "sources)"))
    if by == "N":
        words.append("N = " + ", ".join(f"{int(v)}" for v in sorted(table["N"].unique())))
    else:
        if "N" in table:
            words.append("N = " + ", ".join(f"{int(v)}" for v in sorted(table["N"].unique())))
        words.append("n = " + ", ".join(f"{int(v)}" for v in sorted(table["n"].unique())))
    return " (" + "; ".join(words) + ")"


def capacity_depths_markdown(table: pd.DataFrame, by: str = "N", *,
                             full: pd.DataFrame | None = None, profile: str = "quick") -> str:
    """The smallest #blocks reaching 100 % training accuracy per ``by`` at each model width of a
    capacity table (:func:`memnb.experiments.kajitsuka.capacity_table`, mean over seeds), as one
    Markdown sentence, with, per width, the sizes no tried depth memorized and whether one block
    memorizes every size: what running more than one width shows, computed. Given the
    full-scale run ``full`` while ``table`` is another (the run of ``profile``), a second
    sentence compares the two where they share a point
    (:func:`memnb.scorecard.kajitsuka.quick_against_full`)."""
    cap = capacity_table(table, by)
    top = card.blocks_word(int(table["blocks"].max()))
    parts = []
    for d in widths(table):
        part = cap[cap["d"] == d] if "d" in cap else cap
        mean = part.groupby(by)["min_blocks"].mean()
        shown = ", ".join(f"{x:g}: {'none' if not np.isfinite(y) else f'{y:g}'}"
                          for x, y in mean.items())
        missing = [f"{x:g}" for x, y in mean.items() if not np.isfinite(y)]
        one = bool(np.isfinite(mean).all() and (mean <= 1).all())
        words = (f"one block or fewer memorizes every {by} of the grid" if one else
                 f"no tried depth (up to {top}) memorizes {by} = {', '.join(missing)}"
                 if missing else
                 f"the smallest depth reaches {card.blocks_word(float(mean.max()))} at {by} = "
                 f"{mean.idxmax():g}")
        parts.append(f"width $d = {d}$: {shown} ({words})")
    seeds = int(cap["seed"].nunique()) if "seed" in cap else 1
    over = "mean over seeds" if seeds > 1 else "one seed"
    beside = ("" if full is None or full is table else
              card.quick_against_full(table, full, by, profile))
    return (f"Smallest #blocks reaching 100 % training accuracy per ${by}$ ({over}; "
            "none: no tried depth did), computed from the table of the figure: "
            + "; ".join(parts) + "." + (f" {beside}" if beside else ""))


def zero_block_words(runs: Sequence[tuple[str, pd.DataFrame | None]], by: str = "N") -> str:
    """Whether the model without blocks (its self-attention layer and the two embeddings only)
    memorizes, as one Markdown sentence: for each ``(label, table)`` of ``runs`` (a
    ``kajitsuka.capacity`` table; ``None`` left out), the sizes ``by`` and model widths the run
    ran: the sizes at which its smallest memorizing #blocks
    (:func:`memnb.experiments.kajitsuka.capacity_table`: 100 % training accuracy, Fig. 7's
    criterion) is 0, with the widths and, where only some seeds do, the seeds; then the sizes
    and widths the run ran where it does not ("at no other N it ran", with them named), or,
    when there is none, that those are every size and width the run ran (no empty "no other"
    clause); "at no N it ran", with the sizes named, when it memorizes at none, and "tried no
    model without blocks" when 0 blocks is not in the run (Kajitsuka & Sato, Fig. 7)."""
    parts = []
    for label, table in runs:
        if table is None:
            continue
        if not (table["blocks"] == 0).any():
            parts.append(f"{label} tried no model without blocks")
            continue
        cap = capacity_table(table, by)
        ran: dict[float, list[int]] = {}
        found: dict[float, list[str]] = {}
        missed: dict[float, list[int]] = {}
        for d in widths(table):
            part = cap[cap["d"] == d] if "d" in cap else cap
            for x, rows in part.groupby(by):
                ran.setdefault(float(x), []).append(d)
                zero = rows[rows["min_blocks"] == 0]
                if zero.empty:
                    missed.setdefault(float(x), []).append(d)
                    continue
                seeds = ("" if len(zero) == len(rows) or "seed" not in rows else
                         f" ({len(zero)} of {len(rows)} seeds: "
                         f"{', '.join(str(int(v)) for v in zero['seed'])})")
                found.setdefault(float(x), []).append(f"$d = {d}${seeds}")
        if not found:
            parts.append(f"in {label} the model memorizes at no ${by}$ it ran "
                         f"({_sizes_at_widths(ran, by)})")
            continue
        sizes = [f"${by}$ = {x:g} at {prose.and_words(at)}" for x, at in sorted(found.items())]
        if not missed:  # every point it ran: say which, and no empty "no other" clause
            one = len(ran) == 1 and len(next(iter(ran.values()))) == 1
            rest = f", the one ${by}$ and width it ran" if one else \
                f", every ${by}$ and width it ran"
        elif set(missed).isdisjoint(found):
            rest = f", and at no other ${by}$ it ran ({_sizes_at_widths(missed, by)})"
        else:  # a size memorized at one width and not at another
            rest = f", and not at the other points it ran ({_sizes_at_widths(missed, by)})"
        parts.append(f"in {label} the model memorizes {prose.and_words(sizes)}{rest}")
    if not parts:
        return ""
    return ("Without blocks (its self-attention layer and the two embeddings only): "
            + "; ".join(parts) + " (memorizes: 100 % training accuracy, the criterion of the "
            "smallest #blocks above).")


def _sizes_at_widths(at: dict[float, list[int]], by: str) -> str:
    """Sizes ``by`` with the model widths of each (``at``), the sizes that share their widths
    listed together, e.g. ``$N$ = 200, 400 and 600 at $d = 8$ and $d = 16$, and $N$ = 800 at
    $d = 16$`` (:func:`zero_block_words`)."""
    groups: dict[tuple[int, ...], list[float]] = {}
    for x, ds in sorted(at.items()):
        groups.setdefault(tuple(ds), []).append(x)
    each = [f"${by}$ = {prose.and_words([f'{x:g}' for x in xs])} at "
            + prose.and_words([f"$d = {d}$" for d in ds]) for ds, xs in groups.items()]
    return each[0] if len(each) == 1 else ", ".join(each[:-1]) + f", and {each[-1]}"


def coverage_markdown(root: Path | None = None) -> str:
    """Which of the chapter's training experiments have a committed full-scale run (complete, or
    partial with what it holds: :func:`memnb.provenance.partial_summary`; a run of earlier code
    says so, :func:`memnb.results.earlier_code_note`) and which have none, as a Markdown list
    (``root``: the results folder, default the checkout's)."""
    from memnb.experiments.registry import load_all
    from memnb.provenance import device_words, partial_summary
    from memnb.results import earlier_code_note, load

    shown = {"kajitsuka.mnli_curves": "Figs. 1 and 2 (MultiNLI)",
             "kajitsuka.imdb_curves": "Figs. 4 and 5 (IMDb)",
             "kajitsuka.random_curves": "the ICLR version's random data",
             "kajitsuka.capacity": "Fig. 7 (capacity against N)",
             "kajitsuka.seq_len": "the ICLR version's sweep over n"}
    known = load_all()
    lines = []
    for name, label in shown.items():
        if name not in known:
            continue
        result = load(name, "full", root)
        if result is None:
            state = "none committed (the chapter shows the run of its own profile only)"
        else:
            provenance = result.provenance
            partial = partial_summary(provenance)
            state = ("complete" if partial is None else partial) \
                + earlier_code_note(name, provenance)
            device = device_words(provenance)
            state += f"; computed on {device}" if device else ""
            if partial is not None and "missing_points" in provenance:
                state += f"\n  - the points that ran: {_ran_points(result.table, provenance)}"
        lines.append(f"- {label}: {state}")
    return ("Full-scale runs of the experiments, from the committed results, each with the "
            "device it was computed on (\"GPU arithmetic\": computed on a GPU, whose floating-"
            "point modes differ from the CPU's):\n\n" + "\n".join(lines))


def _ran_points(table: pd.DataFrame, provenance: dict[str, Any]) -> str:
    """The points a partial run of ``table`` holds, described as its missing points are
    (:func:`memnb.provenance.describe_points`): each grid axis of its profile that varies
    (the model width ``d`` where the profile lists several ``widths``) named with the values
    that ran."""
    from memnb.provenance import describe_points

    missing = list(provenance.get("missing_points") or [])
    varied = tuple(k for k, v in (provenance.get("params") or {}).items()
                   if isinstance(v, list) and len(v) > 1)
    axes = tuple(k for k in varied if k in table) + (("d",) if "widths" in varied else ())
    keys = [k for k in (missing[0] if missing else {}) if k in table] or [
        k for k in (*axes, "seed") if k in table]
    points = table[keys].drop_duplicates().to_dict("records")
    return describe_points(points, axes)


# ----------------------------------------------------- Theorem 4.1 as explicit Transformer blocks
def without_attention_words(labels: np.ndarray, predictions: np.ndarray) -> str:
    """What removing the attention block of the construction as a Transformer does to its
    ``predictions`` (``T.without_block(T.attention_index).predict(...)``) against the dataset's
    ``labels``, as one Markdown sentence: with only the skip connection left no sequence gets its
    ID and every prediction falls to 0 (the criterion: every prediction 0), or how many do not
    (Kajitsuka & Sato, Thm 4.1 as our construction builds it)."""
    labels, predictions = np.asarray(labels), np.asarray(predictions)
    total, nonzero = predictions.size, int(np.count_nonzero(predictions))
    labelled = int(np.count_nonzero(labels))
    data = f"where {labelled:,} of the {labels.size:,} labels are not 0"
    criterion = "(the criterion: every prediction 0)"
    if nonzero == 0:
        return (f"Without the attention block every one of the {total:,} predictions is 0, "
                f"{data}: every prediction falls to 0, as expected with only the block's skip "
                f"connection left {criterion}.")
    return (f"Without the attention block {nonzero:,} of the {total:,} predictions "
            f"{'is' if nonzero == 1 else 'are'} not 0 ({data}): the predictions do not all "
            f"fall to 0, against the expectation with only the block's skip connection left "
            f"{criterion}.")


def transformer_markdown(T: Any, net: Any = None, sequences: np.ndarray | None = None,
                         labels: np.ndarray | None = None) -> str:
    """The blocks of ``T = net.transformer()`` (:mod:`memnb.constructions.seq_id.transformer`)
    as a Markdown table, and its width counted the paper's way beside Theorem 4.1's 14 with the
    verdict of the scorecard's *Theorem 4.1 (width 14)* check computed on ``T``. Given ``net``,
    ``sequences`` and ``labels``, it opens with the *Theorem 4.1 (as a Transformer)* check
    (:func:`memnb.scorecard.kajitsuka.transformer_verdict`) on them, a demonstration printed
    without a status, and then the row's own verdict on its own examples
    (:func:`memnb.scorecard.kajitsuka.thm41_transformer_verdict`)."""
    head = ""
    if net is not None and sequences is not None and labels is not None:
        shown = card.transformer_verdict(T, net, sequences, labels)
        row = card.thm41_transformer_verdict()
        item = "*Theorem 4.1 (as a Transformer)*"
        head = (f"On these {len(sequences):,} sequences (a demonstration of ours, not the "
                f"evidence of the scorecard's {item} row): {shown.measured}. The {item} row "
                "judges the same check on its own two constructions: "
                + _verdict(row) + "\n\n")
    lines = ["| part | block | count | matrices | hidden width $q$ | parameters |",
             "|---|---|---|---|---|---|"]
    for _, r in T.block_table().iterrows():
        block = {"F^(FF)": r"$\mathcal F^{(FF)}$", "F^(SA)": r"$\mathcal F^{(SA)}$"}.get(
            r["block"], r["block"])
        # the total's count is the depth: the blocks, not the embedding and read-out rows
        count = (f"{r['count']:,} blocks (the depth; E_in and E_out not counted)"
                 if r["part"] == "total" else f"{r['count']:,}")
        lines.append(f"| {r['part']} | {block} | {count} | `{r['shapes']}` | {r['q']} | "
                     f"{r['parameters']:,} |")
    v = card.transformer_width_verdict({"this network": T})
    counts = ""
    if net is not None:
        blocks, relu = T.parameter_count(), net.num_parameters
        counts = (f"The Transformer form has {blocks:,} parameters, the ReLU form {relu:,} "
                  f"({blocks / relu:.2f}×): a "
                  "ReLU layer is counted dense from its inputs to its outputs, while its block "
                  f"spans all {T.stream_width} rows of $Z$ twice ($W_1$ and $W_2$, with their "
                  "biases). The scaling fits of Sec. 3 and the cross-paper chapter count the ReLU "
                  "form.\n\n")
    return (head + "\n".join(lines) + "\n\n" + counts + "Width counted the paper's way (the "
            "largest of the rows of $Z$, heads × head size and the FFN hidden width; notes Sec. 1, "
            "*[unverified]*): "
            f"**{T.width()}** (rows of $Z$ {T.stream_width}, heads × head size "
            f"{T.attention_width}, FFN hidden width {T.ffn_width}) against the paper's "
            f"**{paper.THM41_WIDTH.value}** ({paper.THM41_WIDTH.source}). Where the paper's "
            f"{paper.THM41_WIDTH.value} comes from is not in our sources; our notes guess the "
            f"width-{paper.VARDI_WIDTH.value} memorizer of {{cite:t}}`vardi2022` plus "
            f"{paper.THM41_WIDTH.value - paper.VARDI_WIDTH.value} carried channels "
            "(*[unverified/reconstruction]*). Criterion: at most "
            f"{paper.THM41_WIDTH.value}, and at most `trend` because the counting convention is "
            "unverified: " + _verdict(v))
