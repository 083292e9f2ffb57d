"""Dana et al.'s App. B.1 Figs. 5, 6 and 7 (accuracy against H at d_h = d = 40, 50, 60, against
d_h at N = 200, d = 50, and the AoT against one head + MLP) with the official code's models
(ours).

Our Fig. 6 (``dana.appendix_dim``, eq. 2's model) rises to a peak near ``d_h = d/2`` and then
falls, where the paper's CSV rises to ``d_h = d``. At §5's scale the same shape appears in our
Experiment 2 and is gone when the official code's model is trained instead (``dana.layout``:
one ``d -> d_h`` compression shared by all heads, a ``1/sqrt(d_h)`` score scale, positions on
the attention input only and its initialisation, which Experiment 2's CSV follows). This
experiment tests whether the code's model as a whole also explains Fig. 6 (it does not separate
those parts; the largest gap is at ``d_h = d``, where the code applies no compression): it
retrains Fig. 6's ``d_h``
sweep, at Fig. 6's size and with App. B.1's recipe (``dana._DIM_TRAIN``), with the code's model
(``aot_code``, :class:`~memnb.models.compressed_attention_only.CompressedAttentionOnlyTransformer`)
and, where a profile names it, ``aot_code_uncompressed`` (eq. 2 with only the code's
``1/sqrt(d_h)`` and positions). The eq. (2) curve it is compared with is ``dana.appendix_dim``'s.

Where a profile names ``d_sweep`` and ``H_sweep`` it also retrains Fig. 5's grid (``d_h = d``,
``H`` heads) with the same models and recipe. Our eq. (2) slopes of Fig. 5 are well below the
paper's; at ``d_h = d`` the code's model has no compression, so this separates the code's
``1/sqrt(d_h)``, positions and initialisation from its compression. A point of both grids
(``d = 50``, ``d_h = 50``, ``H = 11``) is trained once; :func:`figure_rows` selects each figure's
rows from the one table.

Where a profile names ``mlp_kinds`` it also trains Fig. 7's one head + MLP model (width
``2 d (H - 1)``, ``H`` in ``H_sweep``, ``d`` in ``d_sweep``) with each of them and the profile's
MLP rate (``lr_final_mlp``, App. B.1's 1e-4), against the code's AoT of Fig. 5's grid, which is
Fig. 7's AoT (same recipe): the same question for the last figure of App. B.1, whose order our
eq. (2) models reproduce only on the seed medians.

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
#: The one-head + MLP kinds it may train for Fig. 7 (``dana.EXP5_CODE_KINDS``' MLP models).
MLP_KINDS = tuple(k for k in dana.EXP5_CODE_KINDS if k not in KINDS)

_DIM_D_H = [1, *range(5, 51, 5)]


#: The figures whose grids this experiment trains, in the order of :func:`figure_rows`.
FIGURES = ("Fig. 5", "Fig. 6", "Fig. 7")


def _profile(*, N: int, d: int, H: int, d_h_sweep: list[int], kinds: list[str],
             train: dict, d_sweep: list[int] | None = None, H_sweep: list[int] | None = None,
             mlp_kinds: list[str] | None = None, **extra: object) -> dict:
    fig5 = {} if d_sweep is None else {"d_sweep": d_sweep, "H_sweep": H_sweep}
    fig7 = {} if mlp_kinds is None else {"mlp_kinds": mlp_kinds}
    return {"N": N, "d": d, "H": H, "d_h_sweep": d_h_sweep, "kinds": kinds, **fig5, **fig7,
            **train, **extra}


@experiment(
    "dana.appendix_layout",
    title="App. B.1's H and d_h sweeps and its AoT against one head + MLP with the official "
          "code's models (ours)",
    paper_figure="Dana et al. Figs. 5, 6 and 7 (App. B.1, Experiments 1, 2 and 5 at N = 200)",
    profiles={
        "ci": _profile(N=12, d=4, H=3, d_h_sweep=[1, 2, 4], kinds=["aot_code"],
                       train=dana._EXP5_CI, d_sweep=[4], H_sweep=[1, 3],
                       mlp_kinds=["mlp_code"]),
        # appendix_dim's quick Figs. 5 and 6: N = 100; Fig. 5 at d = 20 with three H, Fig. 6
        # at d = 25, H = 11 with three d_h
        "quick": _profile(N=100, d=25, H=11, d_h_sweep=[1, 12, 25], kinds=["aot_code"],
                          train={**dana._APPENDIX_QUICK, "samples": 32768}, d_sweep=[20],
                          H_sweep=[1, 5, 11], mlp_kinds=["mlp_code"], seeds=1),
        # Figs. 5, 6 and 7's grids and App. B.1's recipes; three seeds of the paper's five
        # (cost, see the "Running at scale" page); the code's models only, the §5-scale runs
        # (dana.layout, dana.exp5_code) separate their compression, scaling and positions
        "full": _profile(N=200, d=50, H=11, d_h_sweep=_DIM_D_H, kinds=["aot_code"],
                         train=dana._DIM_EXP5, d_sweep=[40, 50, 60], H_sweep=dana._DIM_H,
                         mlp_kinds=["mlp_code"], seeds=3),
    },
)
def appendix_layout(params: dict, *, seeds: int, device: str, cache_dir: Path,
                    executor: str | None = None) -> pd.DataFrame:
    """Fig. 6's sweep (``d`` fixed, ``d_h`` in ``d_h_sweep``, ``H`` heads) and, where the
    profile names ``d_sweep``/``H_sweep``, Fig. 5's (``d_h = d`` for each ``d`` of ``d_sweep``,
    ``H`` in ``H_sweep``), trained with each of ``kinds`` (a subset of :data:`KINDS`) and the
    profile's recipe; where it names ``mlp_kinds`` (a subset of :data:`MLP_KINDS`), Fig. 7's
    one head + MLP of width ``2 d (H - 1)`` at each ``d`` and ``H`` of Fig. 5's grid (rows with
    ``H = 1``, ``H_equiv`` and ``width`` as in ``dana.exp5``) with the final rate
    ``lr_final_mlp``. One row per point (a point of two grids once), the columns of
    ``dana.layout``. Raises ``ValueError`` for a kind outside :data:`KINDS` or
    :data:`MLP_KINDS`."""
    kinds, mlp_kinds = list(params["kinds"]), list(params.get("mlp_kinds", []))
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"kinds must be a non-empty subset of {list(KINDS)}; got {kinds!r}")
    if any(k not in MLP_KINDS for k in mlp_kinds):
        raise ValueError(f"mlp_kinds must be a subset of {list(MLP_KINDS)}; got {mlp_kinds!r}")
    points = [point for kind in kinds
              for point in dana._points({**params, "model": kind}, seeds, d=[params["d"]],
                                        d_h=params["d_h_sweep"], H=[params["H"]])]
    points += [point for kind in kinds for d in params.get("d_sweep", [])
               for point in dana._points({**params, "model": kind}, seeds, d=[d], d_h=[d],
                                         H=params["H_sweep"])
               if point not in points]
    # Fig. 7: one head + MLP of width 2d(H - 1) in place of H heads, the MLP's final rate
    points += [{**point, "H_equiv": h, "width": 2 * d * (h - 1)}
               for kind in mlp_kinds for d in params.get("d_sweep", []) for h in params["H_sweep"]
               for point in dana._points({**params, "model": kind,
                                          "lr_final": params["lr_final_mlp"]}, seeds,
                                         d=[d], d_h=[d], H=[1])]
    return dana._sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                       desc="dana.appendix_layout")


def figure_rows(table: pd.DataFrame, figure: str, params: dict) -> pd.DataFrame:
    """The rows of a ``dana.appendix_layout`` table that draw ``figure`` under the profile
    ``params``: Fig. 5's (attention-only, ``d_h = d``, ``d`` in ``d_sweep``, ``H`` in
    ``H_sweep``), Fig. 6's (attention-only, ``d = params["d"]``, ``H = params["H"]``, ``d_h`` in
    ``d_h_sweep``) or Fig. 7's: the one head + MLP rows (``H_equiv`` in ``H_sweep``) and, as its
    attention-only model, Fig. 5's rows at the same ``d`` with ``H_equiv = H`` and
    ``width = 0`` (the same recipe, as in ``dana.appendix_rows``). A table run before Fig. 5 or
    Fig. 7 joined the grid has none of its rows. Raises ``ValueError`` for another figure."""
    if figure not in FIGURES:
        raise ValueError(f"figure must be one of {list(FIGURES)}; got {figure!r}")
    attention_only = table["model"].isin(KINDS)
    if figure == "Fig. 6":
        keep = (attention_only & (table["d"] == params["d"]) & (table["H"] == params["H"])
                & table["d_h"].isin(params["d_h_sweep"]))
        return table[keep].reset_index(drop=True)
    fig5 = table[attention_only & (table["d_h"] == table["d"])
                 & table["d"].isin(params.get("d_sweep", []))
                 & table["H"].isin(params.get("H_sweep", []))]
    if figure == "Fig. 5":
        return fig5.reset_index(drop=True)
    if "H_equiv" not in table:
        return table.iloc[:0].reset_index(drop=True)
    mlp = table[table["model"].isin(MLP_KINDS) & table["d"].isin(params.get("d_sweep", []))
                & table["H_equiv"].isin(params.get("H_sweep", []))]
    aot = fig5[fig5["d"].isin(mlp["d"].unique())]
    return pd.concat([aot.assign(H_equiv=aot["H"], width=0), mlp],
                     ignore_index=True)
