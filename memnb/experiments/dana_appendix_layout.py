"""Dana et al.'s App. B.1 Figs. 5 and 6 (accuracy against H at d_h = d = 40, 50, 60, and against
d_h at N = 200, d = 50) with the official code's model (ours).

Our Fig. 6 (``dana.appendix_dim``, eq. 2's model) rises to a peak near ``d_h = d/2`` and then
falls, where the paper's CSV rises to ``d_h = d``. At §5's scale the same shape appears in our
Experiment 2 and is gone when the official code's model is trained instead (``dana.layout``:
one ``d -> d_h`` compression shared by all heads, which Experiment 2's CSV follows). This
experiment tests whether that difference also explains Fig. 6: it retrains Fig. 6's ``d_h``
sweep, at Fig. 6's size and with App. B.1's recipe (``dana._DIM_TRAIN``), with the code's model
(``aot_code``, :class:`~memnb.models.compressed_attention_only.CompressedAttentionOnlyTransformer`)
and, where a profile names it, ``aot_code_uncompressed`` (eq. 2 with only the code's
``1/sqrt(d_h)`` and positions). The eq. (2) curve it is compared with is ``dana.appendix_dim``'s.

Where a profile names ``d_sweep`` and ``H_sweep`` it also retrains Fig. 5's grid (``d_h = d``,
``H`` heads) with the same models and recipe. Our eq. (2) slopes of Fig. 5 are about half the
paper's; at ``d_h = d`` the code's model has no compression, so this separates the code's
``1/sqrt(d_h)``, positions and initialisation from its compression. A point of both grids
(``d = 50``, ``d_h = 50``, ``H = 11``) is trained once; :func:`figure_rows` selects each figure's
rows from the one table.

It lives in a module of its own so that the code fingerprint of ``memnb.experiments.dana``, and
with it every committed Dana result, is unchanged by it.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from memnb.experiments import dana
from memnb.experiments.registry import experiment

#: The model kinds this experiment may train (``dana.MODEL_KINDS``'s code models).
KINDS = dana.CODE_MODEL_KINDS

_DIM_D_H = [1, *range(5, 51, 5)]


#: The figures whose grids this experiment trains, in the order of :func:`figure_rows`.
FIGURES = ("Fig. 5", "Fig. 6")


def _profile(*, N: int, d: int, H: int, d_h_sweep: list[int], kinds: list[str],
             train: dict, d_sweep: list[int] | None = None, H_sweep: list[int] | None = None,
             **extra: object) -> dict:
    fig5 = {} if d_sweep is None else {"d_sweep": d_sweep, "H_sweep": H_sweep}
    return {"N": N, "d": d, "H": H, "d_h_sweep": d_h_sweep, "kinds": kinds, **fig5, **train,
            **extra}


@experiment(
    "dana.appendix_layout",
    title="App. B.1's H and d_h sweeps with the official code's model (ours)",
    paper_figure="Dana et al. Figs. 5 and 6 (App. B.1, Experiments 1 and 2 at N = 200)",
    profiles={
        "ci": _profile(N=12, d=4, H=3, d_h_sweep=[1, 2, 4], kinds=["aot_code"],
                       train=dana._TRAIN_CI, d_sweep=[4], H_sweep=[1, 3]),
        # appendix_dim's quick Figs. 5 and 6: N = 100; Fig. 5 at d = 20 with three H, Fig. 6
        # at d = 25, H = 11 with three d_h
        "quick": _profile(N=100, d=25, H=11, d_h_sweep=[1, 12, 25], kinds=["aot_code"],
                          train={**dana._APPENDIX_QUICK, "samples": 32768}, d_sweep=[20],
                          H_sweep=[1, 5, 11], seeds=1),
        # Figs. 5 and 6's grids and App. B.1's recipe; three seeds of the paper's five (cost,
        # see the "Running at scale" page); the code's model only, the §5-scale run
        # (dana.layout) separates its compression from its scaling and positions
        "full": _profile(N=200, d=50, H=11, d_h_sweep=_DIM_D_H, kinds=["aot_code"],
                         train=dana._DIM_TRAIN, d_sweep=[40, 50, 60], H_sweep=dana._DIM_H,
                         seeds=3),
    },
)
def appendix_layout(params: dict, *, seeds: int, device: str, cache_dir: Path,
                    executor: str | None = None) -> pd.DataFrame:
    """Fig. 6's sweep (``d`` fixed, ``d_h`` in ``d_h_sweep``, ``H`` heads) and, where the
    profile names ``d_sweep``/``H_sweep``, Fig. 5's (``d_h = d`` for each ``d`` of ``d_sweep``,
    ``H`` in ``H_sweep``), trained with each of ``kinds`` (a subset of :data:`KINDS`) and the
    profile's recipe; one row per point (a point of both grids once), the columns of
    ``dana.layout``. Raises ``ValueError`` for a kind outside :data:`KINDS`."""
    kinds = list(params["kinds"])
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"kinds must be a non-empty subset of {list(KINDS)}; got {kinds!r}")
    points = [point for kind in kinds
              for point in dana._points({**params, "model": kind}, seeds, d=[params["d"]],
                                        d_h=params["d_h_sweep"], H=[params["H"]])]
    points += [point for kind in kinds for d in params.get("d_sweep", [])
               for point in dana._points({**params, "model": kind}, seeds, d=[d], d_h=[d],
                                         H=params["H_sweep"])
               if point not in points]
    return dana._sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                       desc="dana.appendix_layout")


def figure_rows(table: pd.DataFrame, figure: str, params: dict) -> pd.DataFrame:
    """The rows of a ``dana.appendix_layout`` table that draw ``figure`` under the profile
    ``params``: Fig. 5's (``d_h = d``, ``d`` in ``d_sweep``, ``H`` in ``H_sweep``) or Fig. 6's
    (``d = params["d"]``, ``H = params["H"]``, ``d_h`` in ``d_h_sweep``). A table run before
    Fig. 5 joined the grid has no Fig. 5 rows. Raises ``ValueError`` for another figure."""
    if figure not in FIGURES:
        raise ValueError(f"figure must be one of {list(FIGURES)}; got {figure!r}")
    if figure == "Fig. 6":
        keep = ((table["d"] == params["d"]) & (table["H"] == params["H"])
                & table["d_h"].isin(params["d_h_sweep"]))
    else:
        keep = ((table["d_h"] == table["d"]) & table["d"].isin(params.get("d_sweep", []))
                & table["H"].isin(params.get("H_sweep", [])))
    return table[keep].reset_index(drop=True)
