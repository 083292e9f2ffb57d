"""Dana et al.'s App. B.1 Fig. 6 (accuracy against d_h at N = 200, d = 50) with the official
code's model (ours).

Our Fig. 6 (``dana.appendix_dim``, eq. 2's model) rises to a peak near ``d_h = d/2`` and then
falls, where the paper's CSV rises to ``d_h = d``. At §5's scale the same shape appears in our
Experiment 2 and is gone when the official code's model is trained instead (``dana.layout``:
one ``d -> d_h`` compression shared by all heads, which Experiment 2's CSV follows). This
experiment tests whether that difference also explains Fig. 6: it retrains Fig. 6's ``d_h``
sweep, at Fig. 6's size and with App. B.1's recipe (``dana._DIM_TRAIN``), with the code's model
(``aot_code``, :class:`~memnb.models.compressed_attention_only.CompressedAttentionOnlyTransformer`)
and, where a profile names it, ``aot_code_uncompressed`` (eq. 2 with only the code's
``1/sqrt(d_h)`` and positions). The eq. (2) curve it is compared with is ``dana.appendix_dim``'s.

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


def _profile(*, N: int, d: int, H: int, d_h_sweep: list[int], kinds: list[str],
             train: dict, **extra: object) -> dict:
    return {"N": N, "d": d, "H": H, "d_h_sweep": d_h_sweep, "kinds": kinds, **train, **extra}


@experiment(
    "dana.appendix_layout", title="App. B.1's d_h sweep with the official code's model (ours)",
    paper_figure="Dana et al. Fig. 6 (App. B.1, Experiment 2 at N = 200, d = 50)",
    profiles={
        "ci": _profile(N=12, d=4, H=3, d_h_sweep=[1, 2, 4], kinds=["aot_code"],
                       train=dana._TRAIN_CI),
        # appendix_dim's quick Fig. 6: N = 100, d = 25, H = 11, three d_h
        "quick": _profile(N=100, d=25, H=11, d_h_sweep=[1, 12, 25], kinds=["aot_code"],
                          train={**dana._APPENDIX_QUICK, "samples": 32768}, seeds=1),
        # Fig. 6's grid and App. B.1's recipe; three seeds of the paper's five (cost, see the
        # "Running at scale" page); the code's model only, the §5-scale run (dana.layout)
        # separates its compression from its scaling and positions
        "full": _profile(N=200, d=50, H=11, d_h_sweep=_DIM_D_H, kinds=["aot_code"],
                         train=dana._DIM_TRAIN, seeds=3),
    },
)
def appendix_layout(params: dict, *, seeds: int, device: str, cache_dir: Path,
                    executor: str | None = None) -> pd.DataFrame:
    """Fig. 6's sweep (``d`` fixed, ``d_h`` in ``d_h_sweep``, ``H`` heads) trained with each of
    ``kinds`` (a subset of :data:`KINDS`) and the profile's recipe; one row per point, the
    columns of ``dana.layout``. Raises ``ValueError`` for a kind outside :data:`KINDS`."""
    kinds = list(params["kinds"])
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"kinds must be a non-empty subset of {list(KINDS)}; got {kinds!r}")
    points = [point for kind in kinds
              for point in dana._points({**params, "model": kind}, seeds, d=[params["d"]],
                                        d_h=params["d_h_sweep"], H=[params["H"]])]
    return dana._sweep(points, device=device, cache_dir=cache_dir, executor=executor,
                       desc="dana.appendix_layout")
