"""Published values of Dana, Pydi & Chevaleyre, *Memorization in Attention-only Transformers*
(AISTATS 2025): the 34 official result CSVs and the numbers quoted in the camera-ready text.

The CSVs (``dana_official_results/Data_exp_*.csv`` of the official repository, read in place via
:func:`memnb.paths.find_paper_file`, never copied) hold the accuracies behind every experiment
figure: columns ``acc, para (= H), N, d, d_head[, width]``, each value a mean over the code's
repetitions (5 seeds; 20 for Experiment 6), accuracy as the code measures it (argmax accuracy
averaged over the last 100 training batches). Each file is matched to its figure by its
parameters (:data:`FIGURES`), and a file whose parameters do not fit its figure is refused.

The per-head slopes (Fig. 2b, Experiment 4) are computed from the CSVs by the official rule
(``utils.reg_lin`` in ``EXP_1_and_4.py``): least squares of the seed-averaged accuracy (the CSV
values) against H, on the points up to and including the first accuracy above 0.95.

Every table has a ``source`` column; every single number is a :class:`~memnb.papers.Published`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from memnb.papers import Published
from memnb.paths import find_paper_file

#: Folder of the official result CSVs inside the papers folder.
OFFICIAL_DIR = "dana_official_results"
#: The camera-ready text (extracted from the PDF of the official repository).
CAMERA_READY = "sources/dana_2025_camera_ready.txt"
#: The official slope rule's threshold: fit up to the first accuracy above it (``reg_lin``).
SLOPE_THRESHOLD = 0.95


@dataclass(frozen=True)
class FigureSpec:
    """Which figure a CSV belongs to, and the parameters that identify it."""

    figure: str
    experiment: str
    section: str
    fixed: dict[str, int]
    varies: str


def _spec(name: str) -> FigureSpec:
    """The figure of official file ``name`` (e.g. ``Data_exp_1_10.csv``), from its name."""
    m = re.fullmatch(r"Data_exp_(\d)(?:_(\d+))?(?:_(att|mlp|dim|depth))?\.csv", name)
    if m is None:
        raise ValueError(f"not an official Dana et al. result file: {name!r}")
    exp, num, kind = int(m.group(1)), m.group(2), m.group(3)
    d = int(num) if num else None
    if exp == 1 and kind is None:
        return FigureSpec("Fig. 1a" if d == 10 else "Fig. 2b", "Experiment 1", "§5.1",
                          {"N": 50, "d": d, "d_h": d}, "H")
    if exp == 1 and kind == "dim":
        return FigureSpec("Fig. 5", "Experiment 1", "App. B.1", {"N": 200, "d": d, "d_h": d}, "H")
    if exp == 1 and kind == "depth":
        return FigureSpec("Fig. 8", "Experiment 1", "App. B.2", {"N": 70, "d": d, "d_h": d}, "H")
    if exp == 2 and kind is None:
        return FigureSpec("Fig. 1b", "Experiment 2", "§5.1", {"N": 50, "d": 10, "H": 20}, "d_h")
    if exp == 2 and kind == "dim":
        return FigureSpec("Fig. 6", "Experiment 2", "App. B.1", {"N": 200, "d": 50, "H": 11},
                          "d_h")
    if exp == 2 and kind == "depth":
        return FigureSpec("Fig. 9", "Experiment 2", "App. B.2", {"N": 70, "d": 10, "H": 21},
                          "d_h")
    if exp == 3:
        return FigureSpec("Fig. 2a", "Experiment 3", "§5.1", {"N": 50, "H": 20, "d_h": 10}, "d")
    if exp == 5 and kind in ("att", "mlp"):
        return FigureSpec("Fig. 3", "Experiment 5", "§5.2", {"N": 70, "d": d, "d_h": d}, "H")
    if exp == 5 and kind == "dim":
        return FigureSpec("Fig. 7", "Experiment 5", "App. B.1",
                          {"N": 200, "d": d, "d_h": d, "H": 1}, "width")
    if exp == 5 and kind == "depth":
        return FigureSpec("Fig. 10", "Experiment 5", "App. B.2",
                          {"N": 70, "d": d, "d_h": d, "H": 1}, "width")
    if exp == 6:
        return FigureSpec("Fig. 4", "Experiment 6", "App. B", {"N": 10, "d": 2, "d_h": 2}, "H")
    raise ValueError(f"no figure of Dana et al. uses {name!r}")


#: The 34 official files, each with its figure (Figs. 1-10 of the camera-ready).
FILES: tuple[str, ...] = tuple(
    [f"Data_exp_1_{d}.csv" for d in range(3, 14)]
    + [f"Data_exp_1_{d}_dim.csv" for d in (40, 50, 60)]
    + [f"Data_exp_1_{d}_depth.csv" for d in (7, 10, 13)]
    + ["Data_exp_2.csv", "Data_exp_2_dim.csv", "Data_exp_2_depth.csv", "Data_exp_3.csv"]
    + [f"Data_exp_5_{d}_{k}.csv" for d in (7, 10, 13) for k in ("att", "mlp")]
    + [f"Data_exp_5_{d}_dim.csv" for d in (40, 50, 60)]
    + [f"Data_exp_5_{d}_depth.csv" for d in (7, 10, 13)]
    + ["Data_exp_6.csv"])
#: Figure of each official file.
FIGURES: dict[str, str] = {name: _spec(name).figure for name in FILES}


def _model(name: str) -> str:
    if name.endswith("_mlp.csv") or (name.startswith("Data_exp_5_")
                                     and ("_dim" in name or "_depth" in name)):
        return "mlp"
    return "aot"


@functools.cache
def _read(name: str) -> pd.DataFrame:
    spec = _spec(name)
    raw = pd.read_csv(find_paper_file(f"{OFFICIAL_DIR}/{name}"))
    table = raw.rename(columns={"acc": "accuracy", "para": "H", "d_head": "d_h"})
    if "width" not in table:
        table["width"] = 0
    for column, value in spec.fixed.items():
        if value is not None and not (table[column] == value).all():
            raise ValueError(f"{name}: expected {column} = {value} for {spec.figure}, found "
                             f"{sorted(table[column].unique())}")
    if table[spec.varies].nunique() != len(table):
        raise ValueError(f"{name}: {spec.figure} varies {spec.varies}, but its values repeat")
    layers = int(TEXT["depth_layers_code"].value) if name.endswith("_depth.csv") else 1
    return table.assign(model=_model(name), layers=layers, figure=spec.figure,
                        experiment=spec.experiment, section=spec.section, file=name,
                        source=f"{name} (official results, {spec.figure})")


def official(name: str) -> pd.DataFrame:
    """One official CSV, read in place, as a table: accuracy, H, N, d, d_h, width, model
    (``aot``/``mlp``), layers, figure, experiment, section, file, source."""
    if name not in FILES:
        raise ValueError(f"name must be one of the official files ({FILES[0]} ... {FILES[-1]}); "
                         f"got {name!r}")
    return _read(name).copy()


# --- Figures of the main text -------------------------------------------------------------

def exp1(d: int | None = None) -> pd.DataFrame:
    """Experiment 1 (Fig. 1a at d = 10; every d = 3..13 feeds Fig. 2b): accuracy vs H at
    N = 50, d = d_h."""
    ds = range(3, 14) if d is None else [d]
    if d is not None and not 3 <= d <= 13:
        raise ValueError(f"d must be in 3..13 (the official Experiment 1 files); got {d}")
    return pd.concat([official(f"Data_exp_1_{k}.csv") for k in ds], ignore_index=True)


def exp2() -> pd.DataFrame:
    """Experiment 2 (Fig. 1b): accuracy vs d_h at N = 50, d = 10, H = 20."""
    return official("Data_exp_2.csv")


def exp3() -> pd.DataFrame:
    """Experiment 3 (Fig. 2a): accuracy vs d at N = 50, H = 20, d_h = 10 (all 11 values)."""
    return official("Data_exp_3.csv")


def exp5() -> pd.DataFrame:
    """Experiment 5 (Fig. 3): AoT (``model == "aot"``) and one head + MLP (``"mlp"``) at N = 70,
    d = d_h in {7, 10, 13}; ``H`` is the AoT's head count, ``width`` = 2d(H − 1) the MLP's."""
    return pd.concat([official(f"Data_exp_5_{d}_{k}.csv") for d in (7, 10, 13)
                      for k in ("att", "mlp")], ignore_index=True)


def exp6() -> pd.DataFrame:
    """Experiment 6 (Fig. 4, App. B): accuracy vs H at N = 10, d = d_h = 2 (20 repetitions)."""
    return official("Data_exp_6.csv")


# --- Appendix B -----------------------------------------------------------------------------

def dim_exp1() -> pd.DataFrame:
    """App. B.1, Fig. 5: Experiment 1 at N = 200, d = d_h in {40, 50, 60}."""
    return pd.concat([official(f"Data_exp_1_{d}_dim.csv") for d in (40, 50, 60)],
                     ignore_index=True)


def dim_exp2() -> pd.DataFrame:
    """App. B.1, Fig. 6: Experiment 2 at N = 200, d = 50, H = 11."""
    return official("Data_exp_2_dim.csv")


def dim_exp5() -> pd.DataFrame:
    """App. B.1, Fig. 7: one head + MLP of growing width at N = 200, d in {40, 50, 60}."""
    return pd.concat([official(f"Data_exp_5_{d}_dim.csv") for d in (40, 50, 60)],
                     ignore_index=True)


def depth_exp1() -> pd.DataFrame:
    """App. B.2, Fig. 8: Experiment 1 with the deeper model (the code: 3 layers), N = 70."""
    return pd.concat([official(f"Data_exp_1_{d}_depth.csv") for d in (7, 10, 13)],
                     ignore_index=True)


def depth_exp2() -> pd.DataFrame:
    """App. B.2, Fig. 9: Experiment 2 with the deeper model, N = 70, d = 10, H = 21."""
    return official("Data_exp_2_depth.csv")


def depth_exp5() -> pd.DataFrame:
    """App. B.2, Fig. 10: one head + MLP with the deeper model, N = 70, d in {7, 10, 13}."""
    return pd.concat([official(f"Data_exp_5_{d}_depth.csv") for d in (7, 10, 13)],
                     ignore_index=True)


# --- Derived by the official rules ------------------------------------------------------------

def official_slope(h: np.ndarray | pd.Series, accuracy: np.ndarray | pd.Series,
                   threshold: float = SLOPE_THRESHOLD) -> tuple[float, float, int]:
    """The official per-head slope rule (``reg_lin``): least squares of ``accuracy`` on ``h``
    (sorted by h) over the points up to and including the first accuracy above ``threshold``.

    Returns (slope, intercept, points used). Applied to seed-averaged curves, as the official
    code does (its CSVs hold the means).
    """
    order = np.argsort(np.asarray(h, float))
    xs, ys = np.asarray(h, float)[order], np.asarray(accuracy, float)[order]
    if len(xs) < 2:
        raise ValueError(f"official_slope needs at least two points; got {len(xs)}")
    above = np.flatnonzero(ys > threshold)
    stop = max(int(above[0]) + 1 if above.size else len(xs), 2)
    slope, intercept = np.polyfit(xs[:stop], ys[:stop], 1)
    return float(slope), float(intercept), stop


def _slopes(table: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for d, part in table.groupby("d"):
        slope, intercept, used = official_slope(part["H"], part["accuracy"])
        rows.append({"d": int(d), "N": int(part["N"].iloc[0]), "slope": slope,
                     "intercept": intercept, "points_used": used,
                     "source": f"{part['file'].iloc[0]}, official slope rule (reg_lin)"})
    return pd.DataFrame(rows)


def exp1_slopes() -> pd.DataFrame:
    """Per-head slope at every d = d_h = 3..13 (Fig. 2b), by the official rule on the CSVs."""
    return _slopes(exp1())


def dim_exp1_slopes() -> pd.DataFrame:
    """Per-head slope at d = 40, 50, 60 and N = 200 (App. B.1, Fig. 5), official rule."""
    return _slopes(dim_exp1())


def depth_exp1_slopes() -> pd.DataFrame:
    """Per-head slope of the deeper model at d = 7, 10, 13 (App. B.2, Fig. 8), official rule."""
    return _slopes(depth_exp1())


def exp4_fits() -> pd.DataFrame:
    """Fig. 2b's fits of the per-head slope against d (d = 3..13): a d² + b and a d³ + b,
    computed from the CSV slopes by our Experiment 4's fit
    (:func:`memnb.experiments.dana.fit_power`). Columns: fit, power, a, b, sse, points, source."""
    from memnb.experiments.dana import fit_power

    slopes = exp1_slopes()
    d, slope = slopes["d"].to_numpy(float), slopes["slope"].to_numpy(float)
    rows = [{"fit": name, "power": p, **fit_power(d, slope, p),
             "points": len(slopes),
             "source": "Data_exp_1_3..13.csv, official slope rule, least squares"}
            for name, p in (("quadratic", 2), ("cubic", 3))]
    return pd.DataFrame(rows)


def exp2_quadratic_fit() -> Published:
    """Fig. 1b's dotted line: coefficient a of ``accuracy = a d_h² + b`` fitted on the CSV."""
    table = exp2()
    a, _ = np.polyfit(table["d_h"].to_numpy(float) ** 2, table["accuracy"], 1)
    return Published(float(a), "Data_exp_2.csv, least squares a·d_h² + b (Fig. 1b)")


def exp6_slope_ratio() -> dict[str, Published]:
    """Fig. 4: the CSV's per-head slope (official rule), Corollary 2's slope
    (1 − 1/N) d_h / T_0 and their ratio, the number the caption rounds to 1.3."""
    table = exp6()
    slope, _, _ = official_slope(table["H"], table["accuracy"])
    n, d_h = int(table["N"].iloc[0]), int(table["d_h"].iloc[0])
    bound = (1 - 1 / n) * d_h / n ** 2
    src = "Data_exp_6.csv, official slope rule"
    return {"slope": Published(slope, src),
            "bound_slope": Published(bound, "Corollary 2 at N = 10, d_h = 2, T_0 = N^2"),
            "ratio": Published(slope / bound, src + " / Corollary 2's slope")}


# --- Values quoted in the camera-ready text ---------------------------------------------------

#: Numbers the camera-ready states in words, with the section (or caption) that states them.
TEXT: dict[str, Published] = {
    "N_section5": Published(50, "§5.1: 'a dictionary size of N = 50'"),
    "exp1_d_h": Published(10, "Fig. 1a caption: 'The head dimension is fixed to 10'"),
    "exp2_H": Published(20, "Fig. 1b caption: 'The model has 20 heads'"),
    "fig1_d": Published(10, "Fig. 1 caption: 'The embedding dimension is 10'"),
    "exp3_H": Published(20, "Fig. 2a caption: 'the AoT has 20 heads'"),
    "exp3_d_h": Published(10, "Fig. 2a caption: 'head dimension is fixed to 10'"),
    "exp6_ratio_caption": Published(1.3, "Fig. 4 caption: 'a slope relative difference of 1.3'"),
    "exp6_ratio_appendix": Published(1.3, "App. B: 'the true scaling at d = 2 seems to be "
                                          "around 1.3Hdh'"),
    "exp6_d_h_appendix": Published(5, "App. B: 'We train an AoT with d = 2, dh = 5' "
                                      "(contradicts Fig. 4's caption, d = dh = 2)"),
    "exp6_N": Published(10, "App. B: 'we used N = 10'"),
    "lr_start_appendix": Published(0.1, "App. B: 'learning rate linearly decreasing from 0.1'"),
    "lr_end_appendix": Published(0.05, "App. B: '... to 0.05'"),
    "batches_appendix": Published(2 ** 6, "App. B: '2^6 batches of 2^10 elements'"),
    "batch_size_appendix": Published(2 ** 10, "App. B: '2^6 batches of 2^10 elements'"),
    "epochs_appendix": Published(2 ** 6, "App. B: 'trained the model for 2^6 epochs'"),
    "seeds_appendix": Published(5, "App. B: 'Each model was trained five times'"),
    "hours_appendix": Published(15, "App. B: 'taking about 15 hours total'"),
    "dim_N": Published(200, "App. B.1: 'N = 200 dictionnary size'"),
    "dim_d": Published(50, "App. B.1: 'and well as d = 50'"),
    "depth_layers_text": Published(5, "App. B.2: '5 layers instead of 1'"),
    "depth_layers_code": Published(3, "official code, experiments.ipynb, the App. B.2 cells "
                                      "that write the *_depth.csv files (nb_layers = 3, "
                                      "N = 70), commit cffc0d8"),
    "depth_layers_titles": Published(3, "official code, EXP_depth.py: docstrings and plot "
                                        "titles say '3 layers' (its parameter count multiplies "
                                        "by 5)"),
    "depth_layers_script": Published(5, "official code, expe_depth.py: nb_layers = 5, at N = 50 "
                                        "and d = 10, a grid no official CSV holds, commit "
                                        "cffc0d8"),
    "depth_lr_code": Published(0.05, "official code, experiments.ipynb, App. B.2 cells: lr = "
                                     "5e-2, lr_low = lr (a constant effective rate of 2.5e-3), "
                                     "commit cffc0d8"),
    "depth_batches_code": Published(2 ** 7, "official code, experiments.ipynb, App. B.2 cells: "
                                            "num_batch = 2**7 (batch_size = 2**9, 2**6 "
                                            "epochs), commit cffc0d8"),
    "dim_notebook_batches": Published(1000, "official code, expe_dim.ipynb (App. B.1's "
                                            "notebook): num_batch = 1000, commit cffc0d8"),
    "dim_notebook_batch_size": Published(2 ** 10, "official code, expe_dim.ipynb: batch_size = "
                                                  "2**10, commit cffc0d8"),
    "dim_notebook_epochs": Published(10, "official code, expe_dim.ipynb: epochs = 10, commit "
                                         "cffc0d8"),
    "dim_notebook_tokens": Published(100, "official code, expe_dim.ipynb: nb_tokens = [100, 100, "
                                          "1] at N = 200 (the first two tokens each drawn from "
                                          "100 of the 200), commit cffc0d8"),
    "cor1_same_scaling_d": Published(2, "§5.1: 'Corollary 1 gives the same scaling in H for "
                                        "all d ≥ 2'"),
    "gpt2_S": Published(1024, "§7 footnote 5: 'In GPT2 S = 1024'"),
    "gpt2_d": Published(768, "§7 footnote 5: 'd = 768'"),
}


@dataclass(frozen=True)
class Quote:
    """A sentence of the camera-ready, verbatim up to the line breaks, hyphenation and spacing
    of its text extraction, and the section that states it."""

    section: str
    text: str

    def __str__(self) -> str:
        return f"'{self.text}' ({self.section})"


#: Sentences of the camera-ready that the chapter and the scorecard quote.
QUOTES: dict[str, Quote] = {
    "rank_d_memory": Quote("Sec. 5.1", "The constant term C′(d, N) is proven to be linear in d "
                                       "by Cabannes et al. (2024), meaning that a matrix "
                                       "multiplication of rank d can store at most d "
                                       "associations."),
}


def in_camera_ready(quote: Quote) -> bool:
    """Whether ``quote`` is in the camera-ready text, compared without whitespace and with the
    hyphenation at line ends undone (the text extraction splits and spaces words)."""
    text = re.sub(r"-\s*\n", "", camera_ready_text())
    return re.sub(r"\s+", "", quote.text) in re.sub(r"\s+", "", text)


def camera_ready_text() -> str:
    """The camera-ready text (for checks that a quoted phrase is really there)."""
    return find_paper_file(CAMERA_READY).read_text(errors="replace")


__all__ = ["CAMERA_READY", "FIGURES", "FILES", "OFFICIAL_DIR", "QUOTES", "SLOPE_THRESHOLD",
           "TEXT", "Quote", "camera_ready_text", "in_camera_ready", "depth_exp1",
           "depth_exp1_slopes", "depth_exp2", "depth_exp5",
           "dim_exp1", "dim_exp1_slopes", "dim_exp2", "dim_exp5", "exp1", "exp1_slopes",
           "exp2", "exp2_quadratic_fit", "exp3", "exp4_fits", "exp5", "exp6",
           "exp6_slope_ratio", "official", "official_slope"]
