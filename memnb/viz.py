"""One plotting style for the whole book, figure captions, and sliders.

Every chapter of the book compares three kinds of curves on the same axes:

- **ours**: what this project's code measured (mean over seeds, with a band for the spread);
  full-scale results read from the cache are drawn as **ours (cached)**, in a lighter colour;
- **paper**: values read off the paper's figure or table, drawn as hollow markers;
- **bound**: a closed-form capacity bound (a line, dashed).

The colours are the Okabe-Ito palette (readable with colour-vision deficiencies), the same role
always gets the same colour and marker, and legends say which is which.

Sliders come in two forms. :func:`frame_slider` embeds pre-computed frames (PNG, base64) and a few
lines of JavaScript in an HTML output, so it works in the static HTML book: no kernel, no CDN.
Its frames are stored as palette PNGs (:data:`SLIDER_COLORS` colours), about a third of the
bytes of the full-colour PNGs matplotlib writes, with no visible change.
:func:`live_slider` uses ``ipywidgets`` and calls Python on every move; it only makes sense when a
person is at a live Jupyter kernel. :func:`slider` picks one of the two (see
:func:`use_live_widgets`); notebooks executed headless (papermill, nbval, the book build) always
get the static slider.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "BAND_ALPHA",
    "LEGEND_TITLE",
    "NOTEBOOK_MAX_BYTES",
    "PALETTE",
    "ROLES",
    "ROLE_STYLES",
    "SLIDER_COLORS",
    "SPREADS",
    "SliderHTML",
    "apply_style",
    "caption",
    "column_legend",
    "compare_with_paper",
    "figure_to_png",
    "figure_titles",
    "frame_slider",
    "in_kernel",
    "live_slider",
    "plot_bound",
    "plot_ours",
    "plot_paper",
    "quantize_png",
    "role_style",
    "slider",
    "summarize",
    "use_live_widgets",
]

# Okabe-Ito colours: one per role, plus a cycle for groups (heads, widths, ...).
PALETTE: dict[str, str] = {
    "ours": "#0072B2",  # blue
    "ours_cached": "#56B4E9",  # sky blue
    "paper": "#D55E00",  # vermillion
    "bound": "#222222",  # near black
    "construction": "#009E73",  # bluish green
}
GROUP_CYCLE: tuple[str, ...] = (
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000",
)
BAND_ALPHA = 0.2

#: Line and marker style of each role; colours come from :data:`PALETTE`.
ROLE_STYLES: dict[str, dict[str, Any]] = {
    "ours": {"linestyle": "-", "marker": "o", "markersize": 4.5, "linewidth": 1.6},
    "ours_cached": {"linestyle": "-.", "marker": "s", "markersize": 4.5, "linewidth": 1.4},
    "paper": {"linestyle": "none", "marker": "D", "markersize": 6, "markerfacecolor": "none",
              "markeredgewidth": 1.4},
    "bound": {"linestyle": "--", "marker": "", "linewidth": 1.3},
    "construction": {"linestyle": ":", "marker": "^", "markersize": 5, "linewidth": 1.4},
}
ROLES: tuple[str, ...] = tuple(ROLE_STYLES)
SPREADS: tuple[str, ...] = ("std", "sem", "minmax", "none")

_RC: dict[str, Any] = {
    "figure.figsize": (5.0, 3.2),
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "savefig.bbox": "tight",
    "font.size": 9.5,
    "axes.titlesize": 10,
    "axes.labelsize": 9.5,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.6,
    "image.cmap": "viridis",
}


def apply_style() -> None:
    """Set the book's matplotlib style (small figures, light grid, Okabe-Ito colour cycle) and,
    inside IPython, how its tables show (:func:`table_html`).

    Call once at the top of every chapter. It changes ``matplotlib.rcParams`` and the HTML
    formatter of ``pandas.DataFrame`` in the running IPython shell, nothing else.
    """
    import matplotlib as mpl
    from cycler import cycler

    mpl.rcParams.update(_RC)
    mpl.rcParams["axes.prop_cycle"] = cycler(color=list(GROUP_CYCLE))
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: no rich display to set
        return
    shell = get_ipython()
    if shell is not None:
        shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, table_html)


MISSING_CELL = "–"
"""What a table shows for a missing value (pandas' ``NaN``): a value the row does not have."""


def table_html(frame: pd.DataFrame) -> str:
    """A table as the book shows it: a missing value as :data:`MISSING_CELL` rather than
    ``NaN``, and a float column whose values are all whole numbers (a count stored as float
    because another row lacks it) without its ``.0``. Rows and columns are cut as pandas'
    display options say, as in pandas' own notebook view; a text cell is never cut (pandas cuts
    one at 50 characters, which hid what a row's model stands in for). An unnamed integer
    index (pandas' row numbers, or those left by a filter) is not shown: it names no row and
    widened tables past the page; a named or labelled index is."""
    formatters: dict[Any, Callable[[Any], str]] = {}
    if frame.columns.is_unique:
        for column in frame.columns:
            values = frame[column]
            if not pd.api.types.is_float_dtype(values):
                continue
            present = values.dropna()
            if len(present) and bool(np.isfinite(present).all()) and bool(
                    (present == present.round()).all()) and float(present.abs().max()) < 2**53:
                formatters[column] = _whole_number
    with pd.option_context("display.max_colwidth", None):
        return frame.to_html(na_rep=MISSING_CELL, formatters=formatters or None, notebook=True,
                             index=not _row_numbers(frame.index),
                             max_rows=pd.get_option("display.max_rows"),
                             max_cols=pd.get_option("display.max_columns"),
                             show_dimensions=pd.get_option("display.show_dimensions") is True)


def _row_numbers(index: pd.Index) -> bool:
    """Whether ``index`` only numbers the rows: one unnamed level of integers."""
    return (index.nlevels == 1 and index.name is None
            and pd.api.types.is_integer_dtype(index.dtype))


def _whole_number(value: Any) -> str:
    return MISSING_CELL if pd.isna(value) else f"{int(value)}"


def _check_role(role: str) -> str:
    if role not in ROLE_STYLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}; got {role!r}")
    return role


def role_style(role: str, color: str | None = None) -> dict[str, Any]:
    """Matplotlib keyword arguments (colour, line, marker) of one role of :data:`ROLES`."""
    style = dict(ROLE_STYLES[_check_role(role)])
    style["color"] = color or PALETTE[role]
    return style


# --------------------------------------------------------------------------------------------
# Aggregation and the three kinds of curves
# --------------------------------------------------------------------------------------------


def summarize(
    df: pd.DataFrame, x: str, y: str, *, by: str | None = None, spread: str = "std"
) -> pd.DataFrame:
    """Mean of ``y`` at each ``x`` (and each ``by`` group) with the band drawn around it.

    Returns columns ``[by,] x, mean, lo, hi, n_runs``, sorted by ``x``. ``spread`` sets the band:
    ``"std"`` (mean ± one standard deviation over seeds, ddof = 1), ``"sem"`` (± standard error),
    ``"minmax"`` (min to max over seeds) or ``"none"`` (lo = hi = mean). With one seed every band
    has zero width.
    """
    if spread not in SPREADS:
        raise ValueError(f"spread must be one of {', '.join(SPREADS)}; got {spread!r}")
    missing = [c for c in (x, y, by) if c is not None and c not in df.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in the table (columns: {list(df.columns)})")
    if df.empty:
        raise ValueError("df is empty: there is nothing to summarize")
    keys = [by, x] if by is not None else [x]
    grouped = df.groupby(keys, sort=True)[y]
    out = grouped.agg(["mean", "std", "min", "max", "count"]).reset_index()
    out = out.rename(columns={"count": "n_runs"})
    std = out["std"].fillna(0.0)
    if spread == "std":
        lo, hi = out["mean"] - std, out["mean"] + std
    elif spread == "sem":
        sem = std / np.sqrt(out["n_runs"].clip(lower=1))
        lo, hi = out["mean"] - sem, out["mean"] + sem
    elif spread == "minmax":
        lo, hi = out["min"], out["max"]
    else:
        lo, hi = out["mean"], out["mean"]
    out["lo"], out["hi"] = lo, hi
    return out[[*keys, "mean", "lo", "hi", "n_runs"]]


_SPREAD_WORDS = {"std": "mean ± std", "sem": "mean ± s.e.m.", "minmax": "mean, band min to max",
                 "none": "mean"}


def _seeds_words(runs: pd.Series, spread: str, *, name_one: bool) -> str:
    """The legend's account of one curve's seeds: ``", mean ± std over 5 seeds"``, or the range
    ``"1 to 2 seeds"`` when its points have different numbers of seeds; for a curve of one seed
    ``", 1 seed"`` when ``name_one`` (other curves of the figure have more), else nothing."""
    low, high = int(runs.min()), int(runs.max())
    if high <= 1:
        return ", 1 seed" if name_one else ""
    count = f"{high} seeds" if low == high else f"{low} to {high} seeds (by point)"
    return f", {_SPREAD_WORDS[spread]} over {count}"


def _group_colors(groups: Sequence[Any]) -> dict[Any, str]:
    return {g: GROUP_CYCLE[i % len(GROUP_CYCLE)] for i, g in enumerate(groups)}


def plot_ours(
    ax: Any,
    df: pd.DataFrame,
    x: str,
    y: str,
    *,
    by: str | None = None,
    spread: str = "std",
    label: str | None = None,
    role: str = "ours",
    colors: Mapping[Any, str] | None = None,
    color: str | None = None,
) -> pd.DataFrame:
    """Draw this project's results: mean over seeds as a line, the spread as a shaded band.

    ``df`` is a tidy table (one row per run and seed). With ``by``, one curve per group, coloured
    from the group cycle (or ``colors``); otherwise ``color``, by default the colour of ``role``
    (``"ours"``, or ``"ours_cached"`` for cached full-scale results). Returns the summary of
    :func:`summarize`.
    """
    _check_role(role)
    summary = summarize(df, x, y, by=by, spread=spread)
    base = label or ("ours (committed full run)" if role == "ours_cached" else "ours")
    groups = list(summary[by].unique()) if by is not None else [None]
    palette = dict(colors) if colors is not None else _group_colors(groups)
    several = int(summary["n_runs"].max()) > 1
    for g in groups:
        part = summary if g is None else summary[summary[by] == g]
        color_g = (color or PALETTE[role]) if g is None else palette.get(g, PALETTE[role])
        described = base + _seeds_words(part["n_runs"], spread, name_one=several)
        name = described if g is None else f"{by}={g} ({described})"
        ax.plot(part[x], part["mean"], label=name, **role_style(role, color_g))
        if spread != "none" and (part["hi"] > part["lo"]).any():
            ax.fill_between(part[x], part["lo"], part["hi"], color=color_g, alpha=BAND_ALPHA,
                            linewidth=0)
    return summary


def _paper_table(points: Any, x: str, y: str, by: str | None) -> pd.DataFrame:
    """Normalise the accepted forms of paper values to a DataFrame with columns x, y[, by]."""
    if isinstance(points, pd.DataFrame):
        need = [c for c in (x, y, by) if c is not None]
        missing = [c for c in need if c not in points.columns]
        if missing:
            raise ValueError(f"paper_points lacks columns {missing} (has {list(points.columns)})")
        return points[need]
    if by is not None:
        raise ValueError("paper_points must be a DataFrame with the `by` column when by is given")
    if isinstance(points, Mapping):
        pairs = list(points.items())
    else:
        pairs = [tuple(p) for p in points]
        if any(len(p) != 2 for p in pairs):
            raise ValueError("paper_points must be a DataFrame, a {x: y} mapping or (x, y) pairs")
    return pd.DataFrame(pairs, columns=[x, y])


def plot_paper(
    ax: Any,
    points: pd.DataFrame | Mapping[Any, float] | Iterable[tuple[Any, float]],
    x: str = "x",
    y: str = "y",
    *,
    by: str | None = None,
    label: str = "paper",
    colors: Mapping[Any, str] | None = None,
) -> pd.DataFrame:
    """Draw values reported by a paper as hollow markers (no line: they are read-off points).

    ``points``: a DataFrame with columns ``x``, ``y`` (and ``by``), a ``{x: y}`` mapping, or
    ``(x, y)`` pairs. With ``by``, group colours match those of :func:`plot_ours`.
    """
    table = _paper_table(points, x, y, by)
    if by is None:
        ax.plot(table[x], table[y], label=label, **role_style("paper"))
        return table
    groups = list(table[by].unique())
    palette = dict(colors) if colors is not None else _group_colors(groups)
    for g in groups:
        part = table[table[by] == g]
        ax.plot(part[x], part[y], label=f"{by}={g} ({label})",
                **role_style("paper", palette.get(g, PALETTE["paper"])))
    return table


def plot_bound(
    ax: Any,
    bound: float | Callable[[np.ndarray], np.ndarray] | tuple[Sequence[float], Sequence[float]],
    *,
    xs: Sequence[float] | np.ndarray | None = None,
    label: str = "bound",
    vertical: bool = False,
    color: str | None = None,
) -> None:
    """Draw a closed-form bound as a dashed line.

    ``bound`` is a number (a horizontal line, or a vertical one with ``vertical=True``, e.g. the
    number of associations T = H d_h + d at which capacity is reached), a function of ``x``
    evaluated at ``xs``, or an ``(xs, ys)`` pair.
    """
    style = role_style("bound", color)
    style.pop("marker", None)
    if isinstance(bound, (int, float, np.number)):
        line = ax.axvline if vertical else ax.axhline
        line(float(bound), label=label, color=style["color"], linestyle=style["linestyle"],
             linewidth=style["linewidth"])
        return
    if callable(bound):
        if xs is None:
            raise ValueError("xs is required when bound is a function")
        grid = np.asarray(xs, dtype=float)
        values = np.asarray(bound(grid), dtype=float)
    elif isinstance(bound, tuple) and len(bound) == 2:
        grid = np.asarray(bound[0], dtype=float)
        values = np.asarray(bound[1], dtype=float)
    else:
        raise ValueError("bound must be a number, a function of x, or an (xs, ys) pair")
    if grid.shape != values.shape:
        raise ValueError(f"bound xs and ys differ in shape: {grid.shape} vs {values.shape}")
    ax.plot(grid, values, label=label, **style)


def compare_with_paper(
    ax: Any,
    ours: pd.DataFrame | None,
    paper_points: Any = None,
    x: str = "x",
    y: str = "y",
    *,
    by: str | None = None,
    spread: str = "std",
    cached: pd.DataFrame | None = None,
    bound: Any = None,
    bound_xs: Sequence[float] | np.ndarray | None = None,
    bound_label: str = "bound",
    bound_vertical: bool = False,
    ours_label: str | None = None,
    paper_label: str = "paper",
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    logx: bool = False,
    logy: bool = False,
    legend: bool = True,
) -> Any:
    """Our curve (mean ± spread over seeds) vs the paper's values vs a bound, on one axes.

    ``ours`` and ``cached`` (a cached full-scale run) are tidy tables with columns ``x``, ``y``
    (one row per seed) and ``by`` if given; ``paper_points`` as in :func:`plot_paper`; ``bound``
    as in :func:`plot_bound` (a function is evaluated at ``bound_xs``, by default at the x values
    of ``ours``). Axis labels default to the column names. Returns ``ax``.
    """
    if ours is None and cached is None and paper_points is None:
        raise ValueError("give at least one of ours, cached or paper_points")
    groups: list[Any] = []
    for table in (ours, cached, paper_points):
        if by is not None and isinstance(table, pd.DataFrame) and by in table.columns:
            groups += [g for g in pd.unique(table[by]) if g not in groups]
    colors = _group_colors(sorted(groups, key=_sort_key)) if by is not None else None
    if ours is not None:
        plot_ours(ax, ours, x, y, by=by, spread=spread, label=ours_label, colors=colors)
    if cached is not None:
        plot_ours(ax, cached, x, y, by=by, spread=spread, role="ours_cached", colors=colors)
    if paper_points is not None:
        plot_paper(ax, paper_points, x, y, by=by, label=paper_label, colors=colors)
    if bound is not None:
        xs = bound_xs
        if xs is None and callable(bound):
            source = ours if ours is not None else cached
            if source is None:
                raise ValueError("bound_xs is required for a bound function without ours/cached")
            xs = np.sort(pd.unique(source[x]))
        plot_bound(ax, bound, xs=xs, label=bound_label, vertical=bound_vertical)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    if legend:
        ax.legend(loc="best")
    return ax


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, (int, float, np.number)) else (1, str(value))


# --------------------------------------------------------------------------------------------
# Captions
# --------------------------------------------------------------------------------------------


#: Written by a caption builder between a caption's lead (what the figure shows, the verdict's
#: status) and its details (every number behind the verdict): :func:`caption` shows the lead and
#: folds the details into a ``<details>`` block the reader opens. An HTML comment, so that text
#: shown without :func:`caption` reads the same.
DETAILS = "<!-- details -->"
#: The line a reader clicks to open a caption's details.
DETAILS_SUMMARY = "The numbers behind this caption"


def with_details(lead: str, details: str) -> str:
    """``lead`` and ``details`` as one caption text, for :func:`caption` to fold the details;
    ``lead`` alone when there are no details."""
    return f"{lead.strip()} {DETAILS} {details.strip()}" if details.strip() else lead.strip()


def _folded(details: str, summary: str = DETAILS_SUMMARY) -> str:
    """``details`` as a closed HTML ``<details>`` block under the line ``summary``, whose inside
    is Markdown (a blank line after the HTML tag, so MyST parses it: math, emphasis and code
    render)."""
    return ('<details class="caption-details"><summary style="cursor: pointer">'
            f"{summary}</summary>\n\n{details.strip()}\n\n</details>")


def unfold(text: str, after_lead: str = "", summary: str = DETAILS_SUMMARY) -> str:
    """Markdown of a text built by :func:`with_details`: its lead (then ``after_lead``), and
    its details folded below under the line ``summary``; a text without details is returned
    as it is."""
    lead, _, details = text.partition(DETAILS)
    shown = " ".join(part for part in (lead.strip(), after_lead) if part)
    return shown + (f"\n\n{_folded(details, summary)}" if details.strip() else "")


def markdown(text: str, summary: str = DETAILS_SUMMARY) -> Any:
    """``IPython.display.Markdown`` of :func:`unfold`: a paragraph outside a caption whose
    details fold the same way, under the line ``summary``."""
    from IPython.display import Markdown

    return Markdown(unfold(text, summary=summary))


#: The line a reader clicks to open a table's legend (:func:`column_legend`).
LEGEND_TITLE = "What the columns mean"


def column_legend(
    frame_or_columns: pd.DataFrame | Iterable[Any],
    meanings: Mapping[str, str],
    *,
    title: str = LEGEND_TITLE,
) -> Any:
    """A folded legend for a table: ``IPython.display.Markdown`` of a closed ``<details>``
    block under the line ``title``, folded as a caption's details are (:func:`unfold`), that
    lists every column of ``frame_or_columns`` (a DataFrame, or its column names) in the
    table's order, each as ``` `column`: meaning ```. The meanings are Markdown (``$...$`` math
    renders).

    ``ValueError`` when the legend and the table disagree, naming the columns: a column shown
    without a meaning (or with a blank one), a meaning of a column not shown, or a column shown
    twice; so a table whose columns change cannot keep a stale legend.
    """
    from IPython.display import Markdown

    if not str(title).strip():
        raise ValueError("title must be a non-empty string")
    columns = [str(c) for c in (frame_or_columns.columns
                                if isinstance(frame_or_columns, pd.DataFrame)
                                else frame_or_columns)]
    if not columns:
        raise ValueError("a legend needs at least one column")
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    missing = [c for c in columns if not str(meanings.get(c, "")).strip()]
    extra = [str(k) for k in meanings if str(k) not in columns]
    problems = [f"{label}: {', '.join(names)}" for label, names in (
        ("columns shown twice", repeated), ("columns shown without a meaning", missing),
        ("meanings of columns not shown", extra)) if names]
    if problems:
        raise ValueError("the legend does not match the table's columns; " + "; ".join(problems))
    items = "\n".join(f"- `{c}`: {str(meanings[c]).strip()}" for c in columns)
    return Markdown(_folded(items, title))


def caption(
    fig_or_text: Any,
    paper_figure: str | None = None,
    *,
    text: str | None = None,
    profile: str | None = None,
    source: str = "ours",
) -> Any:
    """A Markdown caption that says what the figure shows and which paper figure it mirrors.

    ``caption("Accuracy vs T ...", paper_figure="Dana et al. Fig. 1a", profile="quick")`` returns
    an ``IPython.display.Markdown`` object (shown as the cell's result). Passing a matplotlib
    Figure first (``caption(fig, "Dana et al. Fig. 1a", text="...")``) displays the figure, closes
    it, and then returns the caption, so the caption always comes *below* its figure.
    ``source`` is ``"ours"`` (a fresh run), ``"cached"`` (cached full-scale results),
    ``"ours_and_cached"`` (both, side by side), ``"mixed"`` (ours beside the paper's values),
    ``"ours_cached_and_paper"`` (both of ours beside the paper's values) or ``"paper"`` (values
    taken from the paper); it is written into the caption. A text built by
    :func:`with_details` shows its lead and the paper counterpart, and folds its details below
    them (:data:`DETAILS`).
    """
    from IPython.display import Markdown, display

    sources = {"ours": "Our run", "cached": "Our committed full-scale run",
               "paper": "From the paper",
               "mixed": "Our runs beside the paper's values",
               "ours_and_cached": "Our committed full-scale run and this build's run",
               "ours_cached_and_paper": ("Our committed full-scale run and this build's run, "
                                         "beside the paper's values")}
    if source not in sources:
        raise ValueError(f"source must be one of {', '.join(sources)}; got {source!r}")
    if isinstance(fig_or_text, str):
        if text is not None:
            raise ValueError("give the caption text once: either first or as text=")
        body = fig_or_text
    else:
        if not hasattr(fig_or_text, "savefig"):
            raise ValueError("fig_or_text must be a caption string or a matplotlib Figure")
        if text is None:
            raise ValueError("text is required when a Figure is passed")
        import matplotlib.pyplot as plt

        display(fig_or_text)
        plt.close(fig_or_text)
        body = text
    head = sources[source]
    if profile and source in ("ours_and_cached", "ours_cached_and_paper"):
        head = head.replace("this build's run", f"this build's `{profile}` run")
    elif profile:
        head += f" (profile `{profile}`)"
    counterpart = f"*Paper counterpart: {paper_figure}.*" if paper_figure else ""
    return Markdown(unfold(f"**{head}.** {body.strip()}", counterpart))


# --------------------------------------------------------------------------------------------
# Sliders
# --------------------------------------------------------------------------------------------


def in_kernel() -> bool:
    """True when this code runs inside an IPython (Jupyter) kernel, headless or not."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython is a dependency of the book
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def use_live_widgets() -> bool:
    """Whether :func:`slider` should build a live ``ipywidgets`` slider.

    The environment variable ``MEMNB_SLIDER`` (``"live"`` or ``"static"``) decides if set.
    Otherwise live widgets are used only inside a kernel started by a Jupyter server
    (JupyterLab, Notebook 7), recognised by the ``JPY_SESSION_NAME`` variable the server gives
    its kernels. Headless executors (papermill, nbclient, nbval, the book build) start kernels
    without it, so executed notebooks hold the static slider, which works without a kernel.
    """
    choice = os.environ.get("MEMNB_SLIDER", "").strip().lower()
    if choice in ("live", "static"):
        return choice == "live"
    if choice:
        raise ValueError(f"MEMNB_SLIDER must be 'live' or 'static'; got {choice!r}")
    return in_kernel() and "JPY_SESSION_NAME" in os.environ


def figure_to_png(fig: Any, *, dpi: float = 80, close: bool = True,
                  bbox_inches: Any = "tight") -> bytes:
    """PNG bytes of a matplotlib Figure (no timestamp/version metadata, so output is stable),
    cropped tight, or to ``bbox_inches`` (a box in inches: one canvas for every slider frame)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches=bbox_inches, metadata={"Software": None})
    if close:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return buf.getvalue()


def _frame_bytes(frame: Any, dpi: float) -> bytes:
    if isinstance(frame, (bytes, bytearray)):
        data = bytes(frame)
        if not data.startswith(b"\x89PNG"):
            raise ValueError("frame bytes must be PNG data (they do not start with the PNG magic)")
        return data
    if hasattr(frame, "savefig"):
        return figure_to_png(frame, dpi=dpi)
    raise ValueError(f"each frame must be a matplotlib Figure or PNG bytes; got {type(frame)}")


#: How many colours a slider frame keeps by default (:func:`quantize_png`). Measured on the
#: book's seven sliders (their 43 frames as the built pages held them): the full-colour PNGs
#: took 3.13 MB of base64, 256 colours 1.09 MB (a channel off by at most 11 of 255, the mean
#: error under one step) and 64 colours 0.84 MB (grid lines and anti-aliased edges slightly
#: tinted when zoomed in). 256 keeps the frames indistinguishable from matplotlib's own.
SLIDER_COLORS = 256


def quantize_png(png: bytes, colors: int = SLIDER_COLORS) -> bytes:
    """``png`` as a palette PNG of at most ``colors`` colours (Pillow's ``quantize``,
    maximum-coverage on an opaque image, fast octree where some pixel is transparent; no
    dithering; ``optimize=True``), or ``png`` itself where that is not smaller. Deterministic:
    the same bytes in give the same bytes out."""
    from PIL import Image

    if not 2 <= int(colors) <= 256:
        raise ValueError(f"colors must be between 2 and 256 (a PNG palette); got {colors}")
    image = Image.open(io.BytesIO(png))
    image.load()
    rgba = image.convert("RGBA")
    if rgba.getextrema()[3][0] == 255:  # opaque: quantize the colours alone
        palette = rgba.convert("RGB").quantize(int(colors), method=Image.Quantize.MAXCOVERAGE,
                                               dither=Image.Dither.NONE)
    else:
        palette = rgba.quantize(int(colors), method=Image.Quantize.FASTOCTREE,
                                dither=Image.Dither.NONE)
    buf = io.BytesIO()
    palette.save(buf, format="PNG", optimize=True)
    return buf.getvalue() if len(buf.getvalue()) < len(png) else png


def figure_titles(fig: Any) -> str:
    """The titles a reader sees on a matplotlib Figure: its suptitle, then each axes' titles
    (left, centre, right), joined by ``"; "`` (empty where there is none). A slider gives it in
    each frame's alt text, so a screen reader hears what a sighted reader reads on top."""
    texts = [fig.get_suptitle()]
    for ax in fig.axes:
        texts += [ax.get_title(loc) for loc in ("left", "center", "right")]
    return "; ".join(" ".join(t.split()) for t in texts if t.strip())


def _format_value(value: Any, fmt: str | Callable[[Any], str] | None) -> str:
    if fmt is None:
        if isinstance(value, float) and not math.isnan(value):
            return f"{value:g}"
        return str(value)
    try:
        return fmt(value) if callable(fmt) else format(value, fmt)
    except (TypeError, ValueError) as err:
        raise ValueError(f"value_format={fmt!r} cannot format the slider value {value!r} "
                         f"({err}); give a format spec such as 'd', ',' or '.2f', or a "
                         "function") from None


def _slider_values(fn: Any, values: Any) -> list[Any]:
    """``values`` as a list, after checking that ``fn`` can be called and ``values`` iterated:
    a slider's arguments are refused by name before any frame is drawn."""
    if not callable(fn):
        raise TypeError(f"fn must be a callable that draws one frame per value; got "
                        f"{type(fn).__name__}")
    if values is None or isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"values must be a non-empty sequence of slider values; got "
                        f"{type(values).__name__}")
    return list(values)


def _check_slider_values(values: Sequence[Any], label: str,
                         value_format: str | Callable[[Any], str] | None, *,
                         initial: Any = None, dpi: float = 100,
                         colors: int | None = SLIDER_COLORS) -> None:
    """Before any frame is drawn: a non-empty ``label``, values that read differently (two
    equal values would give one frame where the slider shows two positions), an ``initial``
    among them, a finite ``dpi`` > 0 and ``colors`` None or 2..256."""
    if not isinstance(label, str) or not label.strip():
        raise ValueError("label must be a non-empty string")
    if not values:
        raise ValueError("values must be a non-empty sequence")
    shown = [_format_value(v, value_format) for v in values]
    repeated = sorted({v for v in shown if shown.count(v) > 1})
    if repeated:
        raise ValueError(f"values must differ as the slider shows them; repeated: {repeated}")
    if initial is not None and initial not in values:
        raise ValueError(f"initial={initial!r} is not one of values {list(values)}")
    _check_frame_options(dpi, colors)


def _check_frame_options(dpi: float, colors: int | None) -> None:
    """The rendering options of a frame slider (:func:`slider`, :func:`frame_slider`): a
    finite ``dpi`` > 0 and ``colors`` None or an integer from 2 to 256."""
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not (
            math.isfinite(dpi) and dpi > 0):
        raise ValueError(f"dpi must be a finite number > 0; got {dpi!r}")
    if colors is not None and (isinstance(colors, bool) or not isinstance(colors, int)
                               or not 2 <= colors <= 256):
        raise ValueError(f"colors must be None or an integer from 2 to 256; got {colors!r}")


def check_frame_value(table: pd.DataFrame, column: str, value: int, *,
                      source: str = "this run", where: str = "") -> None:
    """A slider frame's ``value`` of ``column`` must be one that ``table`` holds: else a
    ``ValueError`` naming the column and the values there are (``"H = 7 is not in this run at
    d = 10; it holds H ∈ [1, 2]"``), rather than a bare ``KeyError`` or an empty frame that
    would read as a measurement."""
    if column not in table:
        raise ValueError(f"{source} has no column {column!r} (its columns: "
                         f"{', '.join(map(str, table.columns))})")
    held = sorted({int(v) for v in table[column]})
    if value not in held:
        raise ValueError(f"{column} = {value!r} is not in {source}{where}; it holds "
                         f"{column} ∈ {held}")


_SLIDER_JS = """(function () {
  var s = document.currentScript;
  var root = (s && s.previousElementSibling) || document.getElementById("%(id)s");
  if (!root || root.id !== "%(id)s") { root = document.getElementById("%(id)s"); }
  if (!root) { return; }
  var input = root.querySelector("input[type=range]");
  var out = root.querySelector("output");
  var frames = root.querySelectorAll("img.memnb-frame");
  input.hidden = false;  // hidden in the markup: without JavaScript the range would do nothing
  function show(i) {
    for (var k = 0; k < frames.length; k++) {
      frames[k].style.display = (k === i) ? "block" : "none";
    }
    out.textContent = frames[i].getAttribute("data-value");
    input.setAttribute("aria-valuetext", frames[i].getAttribute("data-value"));
  }
  function sync() { show(parseInt(input.value, 10)); }
  input.addEventListener("input", sync);
  // a browser that restores the range's position after Back shows the frame it restored
  window.addEventListener("pageshow", sync);
  sync();
})();"""


#: The most bytes of slider images (base64) one process embeds before :func:`frame_slider`
#: warns. The book executes each chapter in its own kernel, so this is a page's slider weight;
#: a slider is counted once by its id (a hash of its content), so re-running an unchanged cell
#: adds nothing. Each slider is also held to its own ``max_bytes``.
NOTEBOOK_MAX_BYTES = 1_500_000
_EMBEDDED: dict[str, int] = {}  # slider id -> its bytes, for every slider of this process


class SliderHTML:
    """A static slider: HTML with every frame embedded, shown by Jupyter and the HTML book.

    ``html`` is the markup (also returned by ``_repr_html_``), ``values`` the slider values and
    ``n_bytes`` the size of the embedded PNG data (base64).
    """

    def __init__(self, markup: str, values: list[str], n_bytes: int) -> None:
        self.html = markup
        self.values = values
        self.n_bytes = n_bytes

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return f"<frame slider: {len(self.values)} frames, {self.n_bytes / 1e3:.0f} kB>"


def frame_slider(
    frames: Mapping[Any, Any],
    label: str,
    *,
    initial: Any = None,
    value_format: str | Callable[[Any], str] | None = None,
    dpi: float = 100,
    max_bytes: int = 1_000_000,
    alt: str | None = None,
    colors: int | None = SLIDER_COLORS,
    frame_text: Mapping[Any, str] | None = None,
) -> SliderHTML:
    """A slider over pre-computed frames that works in a static HTML page (no kernel, no CDN).

    ``frames`` maps each slider value (in slider order) to a matplotlib Figure (rendered to PNG at
    ``dpi`` and closed) or to PNG bytes. Each frame is stored as a palette PNG of ``colors``
    colours (:func:`quantize_png`); ``colors=None`` keeps the PNG bytes as given (or as
    matplotlib writes them). The frames are embedded as base64 ``<img>`` elements and a few lines
    of inline JavaScript show the one selected by an ``<input type="range">``, which the markup
    hides and the script shows: without JavaScript the initial frame is shown, with no control
    that would do nothing. Each frame's alt text is ``alt`` (by default ``label``), its value and
    the text of ``frame_text`` for it, by default the titles of a Figure frame
    (:func:`figure_titles`). The element id is a hash of the content, so executing a notebook
    twice gives the same output. A warning is issued when the embedded images exceed
    ``max_bytes``, or when this process's sliders together exceed :data:`NOTEBOOK_MAX_BYTES`
    (lower ``dpi``, the figure size or the number of frames).
    """
    if not isinstance(frames, Mapping) or len(frames) == 0:
        raise ValueError("frames must be a non-empty mapping {value: Figure or PNG bytes}")
    if not isinstance(label, str) or not label.strip():
        raise ValueError("label must be a non-empty string")
    _check_frame_options(dpi, colors)
    keys = list(frames)
    texts = {k: figure_titles(frames[k]) for k in keys if hasattr(frames[k], "savefig")}
    texts.update(frame_text or {})
    if initial is None:
        start = 0
    else:
        if initial not in frames:
            raise ValueError(f"initial={initial!r} is not one of the frame values {keys}")
        start = keys.index(initial)
    shown = [_format_value(k, value_format) for k in keys]
    pngs = [_frame_bytes(frames[k], dpi) for k in keys]
    if colors is not None:
        pngs = [quantize_png(png, colors) for png in pngs]
    encoded = [base64.b64encode(png).decode("ascii") for png in pngs]
    n_bytes = sum(len(e) for e in encoded)
    if n_bytes > max_bytes:
        warnings.warn(
            f"frame_slider {label!r}: {n_bytes / 1e6:.2f} MB of images (> {max_bytes / 1e6:.2f} "
            "MB); lower dpi or the figure size to keep the book light",
            stacklevel=2,
        )
    alts = [f"{alt or label}: {v}" + (f". {texts[k]}" if texts.get(k, "").strip() else "")
            for k, v in zip(keys, shown, strict=True)]
    digest = hashlib.sha1(label.encode())
    for v, a, e in zip(shown, alts, encoded, strict=True):
        digest.update(v.encode())
        digest.update(a.encode())
        digest.update(e.encode())
    uid = "memnb-slider-" + digest.hexdigest()[:12]
    _count_embedded(uid, n_bytes, label)
    esc = html.escape
    imgs = "\n".join(
        f'<img class="memnb-frame" data-value="{esc(v)}" alt="{esc(a)}" '
        f'style="display:{"block" if i == start else "none"};max-width:100%;height:auto" '
        f'src="data:image/png;base64,{e}"/>'
        for i, (v, a, e) in enumerate(zip(shown, alts, encoded, strict=True))
    )
    markup = (
        f'<div class="memnb-slider" id="{uid}" style="margin:0.5em 0">\n'
        f'<div style="display:flex;align-items:center;gap:0.75em;flex-wrap:wrap">'
        f'<label for="{uid}-input"><strong>{esc(label)}</strong></label>'
        f'<input type="range" id="{uid}-input" min="0" max="{len(keys) - 1}" step="1" '
        f'value="{start}" autocomplete="off" aria-label="{esc(label)}" '
        f'aria-valuetext="{esc(shown[start])}" style="width:min(22em,60%)" hidden/>'
        f'<output for="{uid}-input" style="font-family:monospace">{esc(shown[start])}</output>'
        f"</div>\n{imgs}\n</div>\n"
        f"<script>\n{_SLIDER_JS % {'id': uid}}\n</script>\n"
    )
    return SliderHTML(markup, shown, n_bytes)


def _count_embedded(uid: str, n_bytes: int, label: str) -> None:
    """Add a slider to this process's running total (:data:`NOTEBOOK_MAX_BYTES`), once per id,
    and warn when the total passes the limit."""
    if uid in _EMBEDDED:
        return
    _EMBEDDED[uid] = n_bytes
    total = sum(_EMBEDDED.values())
    if total > NOTEBOOK_MAX_BYTES:
        warnings.warn(
            f"frame_slider {label!r}: the {len(_EMBEDDED)} sliders of this process embed "
            f"{total / 1e6:.2f} MB of images (> {NOTEBOOK_MAX_BYTES / 1e6:.2f} MB for one "
            "notebook); lower dpi, the figure sizes or the number of frames",
            stacklevel=3,
        )


def _show_result(result: Any) -> None:
    """Display what a slider function returned: a Figure, PNG bytes, or nothing (pyplot state)."""
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    if result is None:
        plt.show()
    elif isinstance(result, (bytes, bytearray)):
        display(Image(data=bytes(result), format="png"))
    elif hasattr(result, "savefig"):
        display(result)
        plt.close(result)
    else:
        display(result)


def live_slider(
    fn: Callable[[Any], Any],
    values: Sequence[Any],
    label: str,
    *,
    initial: Any = None,
    value_format: str | Callable[[Any], str] | None = None,
) -> Any:
    """A live ``ipywidgets`` slider: ``fn(value)`` is called (in the kernel) on every move.

    ``fn`` returns a matplotlib Figure, PNG bytes, or draws with pyplot and returns None. Uses
    ``ipywidgets.interactive`` over a ``SelectionSlider`` of ``values``; the returned widget is
    displayed when it is the last expression of a cell. Needs a running kernel: in the static
    book use :func:`frame_slider` (or :func:`slider`, which picks).
    """
    import ipywidgets as widgets

    values = _slider_values(fn, values)
    _check_slider_values(values, label, value_format, initial=initial)
    options = [(_format_value(v, value_format), v) for v in values]
    control = widgets.SelectionSlider(
        options=options, value=values[0] if initial is None else initial, description=label,
        continuous_update=False, style={"description_width": "initial"},
        layout=widgets.Layout(width="28em"),
    )
    return widgets.interactive(lambda value: _show_result(fn(value)), value=control)


def slider(
    fn: Callable[[Any], Any],
    values: Sequence[Any],
    label: str,
    *,
    live: bool | None = None,
    initial: Any = None,
    value_format: str | Callable[[Any], str] | None = None,
    dpi: float = 100,
    colors: int | None = SLIDER_COLORS,
) -> Any:
    """A slider over ``values`` showing ``fn(value)`` (a Figure or PNG bytes) for each value.

    Live (:func:`live_slider`) when ``live`` is True, or when ``live`` is None and
    :func:`use_live_widgets` says a person is at a Jupyter kernel; otherwise every frame is
    computed now and embedded (:func:`frame_slider`, with ``colors``), which is what the static
    book needs; the alt text of a Figure frame gives its titles (:func:`figure_titles`).
    """
    values = _slider_values(fn, values)
    _check_slider_values(values, label, value_format, initial=initial, dpi=dpi, colors=colors)
    if live is None:
        live = use_live_widgets()
    if live:
        return live_slider(fn, values, label, initial=initial, value_format=value_format)
    import matplotlib.pyplot as plt

    frames: dict[Any, Any] = {}
    titles: dict[Any, str] = {}
    figures: list[Any] = []  # each value's own Figure, kept open for a common canvas
    for v in values:
        result = fn(v)
        if result is None:
            result = plt.gcf()
        # Render now: fn may redraw and return the same Figure object for every value.
        if hasattr(result, "savefig"):
            frames[v] = figure_to_png(result, dpi=dpi, close=False)
            titles[v] = figure_titles(result)
            figures.append(result)
        else:
            frames[v] = _frame_bytes(result, dpi)
    if len(figures) == len(values) and _align_axes(figures):
        # every frame laid out and cropped alike: the axes stay put as the slider moves
        common = _common_canvas(figures)
        frames = {v: figure_to_png(fig, dpi=dpi, close=False, bbox_inches=common)
                  for v, fig in zip(values, figures, strict=True)}
    for fig in {id(f): f for f in figures}.values():
        plt.close(fig)
    return frame_slider(frames, label, initial=initial, value_format=value_format, dpi=dpi,
                        colors=colors, frame_text=titles)


def _align_axes(figures: Sequence[Any]) -> bool:
    """Give the axes of every slider frame one position, so that they do not move as the slider
    does: each axes (by its place in its figure) gets the box that lies inside the box every
    frame's own layout gave it (the largest left and bottom, the smallest right and top), so
    that every frame keeps at least the margins its layout made for its labels and legends; the
    layout engines are then switched off so that nothing moves them again. ``False``, with no
    figure changed, when the frames cannot share positions (a Figure reused, other sizes or
    axes counts, or boxes that do not overlap)."""
    from matplotlib.transforms import Bbox

    if not figures or len({id(fig) for fig in figures}) < len(figures):
        return False
    if len({len(fig.axes) for fig in figures}) > 1 or len(
            {tuple(round(float(x), 6) for x in fig.get_size_inches()) for fig in figures}) > 1:
        return False
    for fig in figures:
        fig.canvas.draw()  # each frame's own layout engine places its axes
    boxes = []
    for index in range(len(figures[0].axes)):
        placed = [fig.axes[index].get_position() for fig in figures]
        x0, y0 = max(b.x0 for b in placed), max(b.y0 for b in placed)
        x1, y1 = min(b.x1 for b in placed), min(b.y1 for b in placed)
        if x1 <= x0 or y1 <= y0:
            return False
        boxes.append(Bbox([[x0, y0], [x1, y1]]))
    for fig in figures:
        fig.set_layout_engine("none")
        for ax, box in zip(fig.axes, boxes, strict=True):
            ax.set_position(box)
    return True


def _common_canvas(figures: Sequence[Any], pad_inches: float = 0.1) -> Any:
    """The union of the tight bounding boxes of ``figures`` (in inches, padded as
    ``bbox_inches="tight"`` pads), so that every slider frame is cropped to the same canvas: the
    frames :func:`_align_axes` placed alike (distinct figures of one size)."""
    from matplotlib.transforms import Bbox

    boxes = [fig.get_tightbbox(fig.canvas.get_renderer()) for fig in figures]
    return Bbox.union(boxes).padded(pad_inches)

