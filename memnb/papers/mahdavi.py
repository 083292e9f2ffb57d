"""Published values of Mahdavi, Liao & Thrampoulidis, *Memorization Capacity of Multi-Head
Attention in Transformers* (ICLR 2024, arXiv:2306.02010).

Every number the chapter compares with, each with its source. The paper's text available to us has
its formulas and many of its numbers stripped; values that come from the official repository
(``smahdavi4/attention-memorization``: ``reproduce.sh``, ``src/*.py``, the saved outputs of its
notebooks ``analysis/vit.ipynb`` and ``analysis/gpt-bert.ipynb``) say so in their source, values
read off a plot are marked ``[read off figure]`` and values inferred from a stated range are marked
``[inferred]``. Nothing here is computed by us.
"""

from __future__ import annotations

import pandas as pd

from memnb.papers import Published

PAPER = "Mahdavi, Liao & Thrampoulidis (ICLR 2024)"
CODE = "official code smahdavi4/attention-memorization"

# ---------------------------------------------------------------------------------------------
# Synthetic experiments: the official recipe (App. A) and grids (reproduce.sh)
# ---------------------------------------------------------------------------------------------
#: Token dimension of every synthetic experiment (Sec. 5.2 "we fix dimension d").
D = Published(64, f"Sec. 5.2 / App. A; value from {CODE}, reproduce.sh")
#: Number of classes of the classification task (Sec. 5.2, Fig. 2).
CLASSES = Published(100, f"Sec. 5.2; value from {CODE}, reproduce.sh")
#: Adam learning rate (App. A).
LEARNING_RATE = Published(1e-3, f"App. A; value from {CODE}, main.py")
#: Mini-batch size (App. A).
BATCH = Published(256, f"App. A; value from {CODE}, main.py")
#: At least this many epochs (App. A: "at least ... epochs and at least ... steps").
EPOCHS = Published(500, f"App. A; value from {CODE}, main.py (steps = max(500 T // 256, min))")
#: Minimum optimisation steps (App. A).
MIN_STEPS = Published(50_000, f"App. A; value from {CODE}, reproduce.sh")
#: Steps of the harder runs, Fig. 2c and Fig. 3 (App. A).
MIN_STEPS_LONG = Published(300_000, f"App. A; value from {CODE}, reproduce.sh")
#: Evaluation (and early-stop check) interval of the official trainer.
EVAL_EVERY = Published(500, f"{CODE}, trainers.py")
#: Fig. 3's saturation threshold: a head is saturated when its largest attention weight exceeds it.
SATURATION_THRESHOLD = Published(0.99, f"App. H; value from {CODE}, analysis.py")
#: Seeds of the paper's runs (reproduce.sh runs one).
SEEDS = Published(6, f"{CODE}, README")
#: Compute of the paper's experiments (App. A: "approximately 20 GPU days on an NVIDIA V100").
GPU_DAYS = Published(20, "App. A (V100 GPU-days)")

#: Grids of reproduce.sh (notes §3): every sweep at d = 64.
HEADS_GRID = [1, 5, 10, 20, 30, 40, 50, 60]
CONTEXT_GRID = [1, 5, 10, 20, 30, 40, 50, 60]
HEAD_DIM_GRID = [10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 64]


def sweeps() -> pd.DataFrame:
    """The settings of each synthetic figure (reproduce.sh), one row per sweep."""
    src = f"{CODE}, reproduce.sh"
    rows = [
        {"figure": "Fig. 2a", "context": "shared", "n": 32, "H": HEADS_GRID, "d_h": 64,
         "sizes": [10_000, 20_000, 30_000, 40_000], "min_steps": 50_000},
        {"figure": "Fig. 2b", "context": "shared", "n": CONTEXT_GRID, "H": 20, "d_h": 64,
         "sizes": [6_000, 10_000, 14_000, 18_000], "min_steps": 50_000},
        {"figure": "Fig. 2c", "context": "shared", "n": 32, "H": 30, "d_h": HEAD_DIM_GRID,
         "sizes": [10_000, 15_000, 20_000], "min_steps": 300_000},
        {"figure": "Fig. 3", "context": "shared", "n": 32, "H": [4, 8], "d_h": 64,
         "sizes": [550, 1_300], "min_steps": 300_000},
        {"figure": "Fig. 4 (heads)", "context": "non-shared", "n": 32, "H": HEADS_GRID,
         "d_h": 64, "sizes": [30_000, 50_000, 70_000, 90_000, 110_000, 130_000],
         "min_steps": 50_000},
        {"figure": "Fig. 4 (context)", "context": "non-shared", "n": CONTEXT_GRID, "H": 20,
         "d_h": 64, "sizes": [20_000, 30_000, 40_000, 50_000, 60_000], "min_steps": 50_000},
        {"figure": "Fig. 5 (heads, shared)", "context": "shared", "n": 32, "H": HEADS_GRID,
         "d_h": 64, "sizes": [10_000, 15_000, 20_000, 25_000, 30_000], "min_steps": 50_000},
        {"figure": "Fig. 5 (heads, non-shared)", "context": "non-shared", "n": 32,
         "H": HEADS_GRID, "d_h": 64, "sizes": [10_000, 30_000, 50_000, 70_000, 90_000],
         "min_steps": 50_000},
        {"figure": "Fig. 5 (context, shared)", "context": "shared", "n": CONTEXT_GRID, "H": 20,
         "d_h": 64, "sizes": [10_000, 15_000, 20_000, 25_000], "min_steps": 50_000},
        {"figure": "Fig. 5 (context, non-shared)", "context": "non-shared", "n": CONTEXT_GRID,
         "H": 20, "d_h": 64, "sizes": [10_000, 30_000, 50_000, 70_000, 90_000],
         "min_steps": 50_000},
    ]
    frame = pd.DataFrame(rows).assign(source=src)
    # the notes give some sweeps' sizes as ranges ("10k, ..., 30k"); every size here is the one
    # the official reproduce.sh loops over (checked against the official repository)
    ranged = frame["figure"].str.startswith(("Fig. 4", "Fig. 5"))
    frame.loc[ranged, "source"] = src + " (the notes give these sizes as ranges)"
    return frame


#: Fig. 3: the largest dataset each model memorized perfectly, found by the authors (App. H).
SATURATION_CONFIGS = Published(((4, 550), (8, 1300)),
                               f"App. H ('around'); values from {CODE}, reproduce.sh")

#: Parameter counts of the official model (d = d_h = 64, C = 100), by H (notes §3).
OFFICIAL_PARAMETERS = {1: 18_980, 20: 177_060, 30: 260_260, 60: 509_860}
OFFICIAL_PARAMETERS_SOURCE = f"{CODE}, attn_models.py (counted in the reproduction notes)"

# ---------------------------------------------------------------------------------------------
# Sec. 5.2 / Fig. 2: what the text states (curve values are not published)
# ---------------------------------------------------------------------------------------------
FIG2_CLAIMS = {
    "Fig. 2a": "memorization grows linearly with H; the linear fit of the non-saturated part has "
               "a high R² in all cases (threshold stripped from the text)",
    "Fig. 2b": "memorization grows monotonically with n",
    "Fig. 2c": "no memorization gain beyond d_h = n",
    "Fig. 3": "many heads saturated on most examples; almost every example keeps one "
              "non-saturated head",
    "Fig. 4": "non-shared contexts: linearity in H remains, linearity in n is weakened",
    "Fig. 5": "regression: training MSE falls with H and with n",
}
FIG2_SOURCE = "Sec. 5.2, App. H, App. I.1 (text); the curves' values are not published"
#: Why the chapter draws no paper curve in Figs. 2a-5 (:data:`FIG2_SOURCE`), in its captions' words.
CURVES_NOT_PUBLISHED = ("the values it plots are not published, so only its text's claims are "
                        "compared")
#: What each synthetic figure of the paper plots on its y-axis, with where the text says so.
FIG_Y = {
    **{fig: Published("memorization as the average accuracy across examples, a fraction",
                      "Sec. 5.2, App. A") for fig in ("Fig. 2a", "Fig. 2b", "Fig. 2c")},
    "Fig. 3": Published("the saturation of the heads per example",
                        "App. H; its axes are not in our text"),
    "Fig. 4": Published("memorization as the average accuracy across examples, a fraction",
                        "App. A, for every classification experiment; App. I.1"),
    "Fig. 5": Published("the training MSE of the regression task", "App. A"),
}

# ---------------------------------------------------------------------------------------------
# Table 1 and Fig. 1: assumptions on ViT representations (Sec. 5.1)
# ---------------------------------------------------------------------------------------------
#: ViT-B/16 geometry: context length (196 patches + [CLS]) and width.
VIT_N = Published(197, "Sec. 3 / Sec. 5.1 (ViT-B/16: 196 patches and [CLS])")
VIT_D = Published(768, "Sec. 5.1 (ViT-B/16 width)")
#: Images used (Sec. 5.1 says 2000 sampled; the notebook keeps the RGB ones).
TABLE1_IMAGES = Published(1973, f"{CODE}, analysis/vit.ipynb (of the 2000 of Sec. 5.1)")
#: Random draws per Kruskal-rank test (Sec. 5.1).
TABLE1_DRAWS = Published(5000, "Sec. 5.1")
#: Trained ViT, A1 at k = 197: draws of rank 197 (the others had rank 196).
TABLE1_TRAINED_A1_PASSES = Published(4991, f"{CODE}, analysis/vit.ipynb output")

#: Where Table 1's values come from (notes §3, tagged [nb]): the saved output of the paper's
#: notebook; the cells of the paper's Table 1 itself are not in our text (its Sec. 5.1 says only
#: which assumptions hold).
TABLE1_NB = (f"[nb] from the saved output of the {CODE}, analysis/vit.ipynb, as our notes "
             "give it; the cells of the paper's Table 1 are not in our copy of its text")
_T1 = f"Table 1 {TABLE1_NB}"
TABLE1_COLUMNS = ("embedding", "random_attention", "random_vit", "trained_vit_b16")


def table1() -> pd.DataFrame:
    """Table 1: pass fraction of each check per representation (k = n = 197 for Assumptions 1
    and 3, k = d = 768 for General Position; Assumption 2 as the fraction of contexts of rank n).
    ``min_rank``/``max_rank``: the ranks observed in the General Position test."""
    rows = [
        ("embedding", "assumption2", 1.0, None, None, _T1),
        ("random_attention", "assumption2", 1.0, None, None, _T1),
        ("random_vit", "assumption2", 1.0, None, None, _T1),
        ("trained_vit_b16", "assumption2", 1.0, None, None, _T1),
        ("embedding", "assumption1", 0.0, 1, 1, _T1),
        ("random_attention", "assumption1", 1.0, None, None, _T1),
        ("random_vit", "assumption1", 1.0, None, None, _T1),
        ("trained_vit_b16", "assumption1", 0.9982, 196, 197,
         f"{_T1}; ranks from {CODE}, analysis/vit.ipynb"),
        ("embedding", "general_position", 0.0, 1, 1, _T1),
        ("random_attention", "general_position", 0.0, 463, 482, _T1),
        ("random_vit", "general_position", 0.0, 710, 723, _T1),
        ("trained_vit_b16", "general_position", 0.0, 309, 318, _T1),
        ("embedding", "assumption3", 1.0, None, None, f"{_T1} (Embedding only)"),
    ]
    frame = pd.DataFrame(rows, columns=["representation", "check", "pass_fraction", "min_rank",
                                        "max_rank", "source"])
    frame["k"] = frame["check"].map({"assumption2": 197, "assumption1": 197,
                                     "general_position": 768, "assumption3": 197})
    return frame


#: Where Fig. 1's values come from (notes §3, tagged [nb]): the saved output of the paper's notebook
#: ``analysis/vit.ipynb``. Its Fig. 1 cell prints no numbers (only progress bars), so the points of
#: the drop are read off the plot saved in that output (the paper's Fig. 1); the values at k = 197
#: and k = 768 are also printed there, by the Table 1 cells (Random Attention: 1.0 and 0.0).
FIG1_SOURCE = f"saved output of {CODE}, analysis/vit.ipynb (notes §3 [nb])"
#: Fig. 1's point that no output gives: the notes say "about 1.0 up to ~240"; the 1.0 is placed
#: at k = 241, the first k past 240 on the notebook's grid 1, 11, ..., 761.
FIG1_INFERRED_K = 241


def figure1() -> pd.DataFrame:
    """Fig. 1 (Random Attention): fraction of random k-subsets of [CLS] vectors of rank k, as
    the paper's notebook gives it (:data:`FIG1_SOURCE`), one ``source`` per point: printed by
    its Table 1 cells at k = 197 and 768; [read off figure], the plot saved in its output, at
    k = 281, 291, 301 (the drop) and 331 (0 from there on), as the notes give them, and at
    k = 251, 261, 271, 311 and 321, the other markers of the drop, read off the same plot by us
    (its y axis scaled from the plot's 0 and 1 ticks; the notes' three drop values come out
    within 0.01 the same way); [inferred] at :data:`FIG1_INFERRED_K`, from "about 1.0 up to
    ~240" (notes §3). Column ``origin`` says which, in one word: ``printed``, ``notes`` (read
    off by our notes), ``us`` (read off by us) or ``inferred``.
    """
    printed = f"Fig. 1; printed by the Table 1 cells in the {FIG1_SOURCE}"
    read = f"Fig. 1 [read off figure: the plot in the {FIG1_SOURCE}]"
    inferred = (f"Fig. 1 [inferred: placed at k = {FIG1_INFERRED_K} from \"about 1.0 up to "
                f"~240\" (notes §3), on the notebook's k grid 1, 11, ..., 761; {FIG1_SOURCE}]")
    ours = (f"Fig. 1 [read off figure by us, not in the notes: the plot in the {FIG1_SOURCE}, "
            "whose drop has markers every 10 k]")
    points = [(197, 1.0, printed), (FIG1_INFERRED_K, 1.0, inferred), (251, 0.985, ours),
              (261, 0.95, ours), (271, 0.865, ours), (281, 0.72, read), (291, 0.49, read),
              (301, 0.26, read), (311, 0.09, ours), (321, 0.025, ours), (331, 0.0, read),
              (768, 0.0, printed)]
    origins = {printed: "printed", inferred: "inferred", read: "notes", ours: "us"}
    return pd.DataFrame([(k, v, src, origins[src]) for k, v, src in points],
                        columns=["k", "pass_fraction", "source", "origin"])


# ---------------------------------------------------------------------------------------------
# Table 3 (App. J): assumptions on GPT-2 and BERT representations of Wikipedia
# ---------------------------------------------------------------------------------------------
#: Context lengths and widths of the paper's text models (notes §3).
TABLE3_GEOMETRY = {"gpt2": (1024, 1280), "bert": (512, 1024)}
TABLE3_EXAMPLES = Published(2000, f"{CODE}, analysis/gpt-bert.ipynb")
#: App. J: "estimated" Kruskal ranks of BERT's L1 queries (pass fraction about 0.99 there).
BERT_KRUSKAL = {"trained": Published(291, "App. J"), "random": Published(349, "App. J")}
#: Trained GPT-2 L1: about this many of the 2000 contexts have rank below n.
GPT2_TRAINED_L1_DEFICIENT = Published(100, f"App. J; count from {CODE}, analysis/gpt-bert.ipynb "
                                           "(approximate)")


TABLE3_NB = (f"[nb] from the saved output of the {CODE}, analysis/gpt-bert.ipynb, as our "
             "notes give it")
"""Where Table 3's cells come from: our notes tag App. J's results with the official notebook's
saved output, as Table 1's (:data:`TABLE1_NB`)."""


def table3() -> pd.DataFrame:
    """Table 3 (App. J): pass fractions per model, weights and layer (L0 = embeddings, L1 =
    first block). Assumption 2 of trained GPT-2 at L1 is about 0.95 (about 100 of 2000 contexts
    below rank n); every other Assumption 2 cell is 1.0; General Position is 0.0 everywhere."""
    src = f"Table 3 (App. J) {TABLE3_NB}"
    a1 = {("gpt2", "random", 0): 0.0, ("gpt2", "random", 1): 1.0,
          ("gpt2", "trained", 0): 0.0, ("gpt2", "trained", 1): 1.0,
          ("bert", "random", 0): 0.0, ("bert", "random", 1): 0.0,
          ("bert", "trained", 0): 0.0, ("bert", "trained", 1): 0.0}
    rows = []
    for (model, weights, layer), frac in a1.items():
        rows.append((model, weights, layer, "assumption1", frac, src))
        rows.append((model, weights, layer, "general_position", 0.0, src))
        deficient = (model, weights, layer) == ("gpt2", "trained", 1)
        a2 = 1.0 - GPT2_TRAINED_L1_DEFICIENT.value / TABLE3_EXAMPLES.value if deficient else 1.0
        rows.append((model, weights, layer, "assumption2", a2,
                     f"{src}; approximate, from {GPT2_TRAINED_L1_DEFICIENT.source}"
                     if deficient else src))
    return pd.DataFrame(rows, columns=["model", "weights", "layer", "check", "pass_fraction",
                                       "source"])


#: Our Table 3 models, as (paper model, weights): MiniLM stands in for BERT-large.
TABLE3_MODEL_MAP = {"bert_trained": ("bert", "trained"), "bert_random": ("bert", "random"),
                    "gpt2_random": ("gpt2", "random"), "gpt2_trained": ("gpt2", "trained")}


def sources() -> pd.DataFrame:
    """Every single published value of this module with its source (for the chapter's table)."""
    values = {"d": D, "C": CLASSES, "learning rate": LEARNING_RATE, "batch": BATCH,
              "epochs (at least)": EPOCHS, "min steps": MIN_STEPS,
              "min steps (Figs. 2c, 3)": MIN_STEPS_LONG, "evaluation interval": EVAL_EVERY,
              "saturation threshold": SATURATION_THRESHOLD, "seeds": SEEDS,
              "V100 GPU-days": GPU_DAYS, "ViT n": VIT_N, "ViT d": VIT_D,
              "Table 1 images": TABLE1_IMAGES, "Table 1 draws": TABLE1_DRAWS,
              "Table 3 examples": TABLE3_EXAMPLES}
    return pd.DataFrame([{"value": name, "paper": p.value, "source": p.source}
                         for name, p in values.items()])


__all__ = [
    "BATCH", "BERT_KRUSKAL", "CLASSES", "CONTEXT_GRID", "CURVES_NOT_PUBLISHED", "D", "EPOCHS",
    "EVAL_EVERY", "FIG1_INFERRED_K", "FIG1_SOURCE", "FIG2_CLAIMS", "FIG2_SOURCE", "FIG_Y",
    "GPT2_TRAINED_L1_DEFICIENT", "GPU_DAYS",
    "HEADS_GRID", "HEAD_DIM_GRID", "LEARNING_RATE", "MIN_STEPS", "MIN_STEPS_LONG",
    "OFFICIAL_PARAMETERS", "OFFICIAL_PARAMETERS_SOURCE", "PAPER", "SATURATION_CONFIGS",
    "SATURATION_THRESHOLD", "SEEDS", "TABLE1_COLUMNS", "TABLE1_DRAWS", "TABLE1_IMAGES",
    "TABLE1_NB", "TABLE1_TRAINED_A1_PASSES", "TABLE3_EXAMPLES", "TABLE3_GEOMETRY",
    "TABLE3_MODEL_MAP", "VIT_D", "VIT_N", "figure1", "sources", "sweeps", "table1", "table3",
]
