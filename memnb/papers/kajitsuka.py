"""Published values of Kajitsuka & Sato, *On the Optimal Memorization Capacity of Transformers*,
ICLR 2025 (arXiv:2409.17677).

Our sources are the paper's summary (seed 000: abstract, Theorem 4.1, the figure captions) and the
reproduction notes ``kajitsuka_sato_2025.md``; the full text was not available. Every value says
where it comes from. ``[unverified]`` marks a value recalled from the paper or related work and
not checked against it; ``[reconstruction]`` marks our choice where the paper's is unknown. The
paper's figures themselves are not in our sources, only their captions (seed 000; the notes, §3:
the figures' numerical values "not found"): only the settings the captions and notes state are
published here.
"""

from __future__ import annotations

import pandas as pd

from memnb.papers import Published

PAPER = "Kajitsuka & Sato (ICLR 2025)"
_SEED = "seed 000 (summary of arXiv:2409.17677)"

#: Theorem 4.1: the memorizing Transformer has width 14 (and depth Õ(√N)).
THM41_WIDTH = Published(14, f"Theorem 4.1, {_SEED}")
#: Theorem 4.1 and the abstract: Õ(√N) parameters for next-token prediction.
THM41_EXPONENT = Published(0.5, f"Theorem 4.1 and abstract, Õ(√N), {_SEED}")
#: Theorem 4.2: Ω(√N) parameters are necessary ("optimal up to logarithmic factors").
THM42_EXPONENT = Published(0.5, f"Theorem 4.2 and abstract, Ω(√N), {_SEED}")
#: Corollary 4.1: Õ(√(nN)) parameters for sequence-to-sequence prediction (exponent of n N).
COR41_EXPONENT = Published(0.5, f"Corollary 4.1 and abstract, Õ(√(nN)), {_SEED}")
#: Width of the ReLU memorizer of Vardi, Yehudai & Shamir (2022), Thm 3.1 [unverified].
VARDI_WIDTH = Published(12, "Vardi et al. (2022), Thm 3.1, as recalled in notes §2 [unverified]")

#: Fig. 7: N = 600 ... 1700 in increments of 100, MultiNLI, n = 8.
FIG7_N = Published(tuple(range(600, 1701, 100)), f"Fig. 7 caption, {_SEED}")
FIG7_SEQ_LEN = Published(8, "the paper's text as quoted in notes §3 ('fixed at n = 8'; the "
                              "notes give no section)")
#: Training of Fig. 7: full-batch gradient descent for 1000 epochs, 10 Optuna trials (the caption
#: of Fig. 7 states it; that every experiment used it is our reconstruction).
EPOCHS = Published(1000, f"Fig. 7 caption, {_SEED}")
OPTUNA_TRIALS = Published(10, f"Fig. 7 caption, {_SEED}")
#: ICLR version's Fig. 2 (ICLR numbering; the chapter's Figs. 1-7 are arXiv's, where Fig. 2 is
#: the MultiNLI accuracy plot): #blocks = 1, 10, 20, 30, 40 on a dataset of size N = 3000. Our
#: MultiNLI, IMDb and random-data curves use these sizes [reconstruction].
FIG2_BLOCKS = Published((1, 10, 20, 30, 40), "ICLR version, Fig. 2 caption (notes §3)")
FIG2_N = Published(3000, "ICLR version, Fig. 2 caption (notes §3)")
#: What our sources say of the optimizer: the paper's words beside the third-party page (notes §3).
OPTIMIZER = ("the paper's Fig. 7 caption: \"full-batch gradient descent\"; AdamW: a third-party "
             "page of the ICLR version (notes §3, acmrep), not the paper's words")

#: What the paper's figures show, as far as our sources say. The captions of Figs. 1, 2, 4 and 5
#: name only what is plotted (e.g. "Training loss on MultiNLI dataset"): the ``expected`` trend
#: of those rows is our expectation, not the paper's words.
FIGURES = pd.DataFrame([
    {"item": "Fig. 1", "shows": "training loss on MultiNLI, one curve per #blocks",
     "expected": "more blocks reach a lower training loss",
     "numbers": "none: the figure is not in our sources, only its caption",
     "source": f"caption, {_SEED}; trend: our expectation [unverified]"},
    {"item": "Fig. 2", "shows": "accuracy on MultiNLI, one curve per #blocks",
     "expected": "more blocks reach a higher training accuracy",
     "numbers": "none: the figure is not in our sources, only its caption",
     "source": f"caption, {_SEED}; trend: our expectation [unverified]"},
    {"item": "Fig. 4", "shows": "training loss on IMDb, one curve per #blocks",
     "expected": "more blocks reach a lower training loss",
     "numbers": "none: the figure is not in our sources, only its caption",
     "source": f"caption, {_SEED}; trend: our expectation [unverified]"},
    {"item": "Fig. 5", "shows": "accuracy on IMDb, one curve per #blocks",
     "expected": "more blocks reach a higher training accuracy",
     "numbers": "none: the figure is not in our sources, only its caption",
     "source": f"caption, {_SEED}; trend: our expectation [unverified]"},
    {"item": "Fig. 7", "shows": "smallest #blocks memorizing MultiNLI against N (n = 8)",
     "expected": "sublinear growth, roughly ∝ √N",
     "numbers": "none: the figure is not in our sources, only its caption",
     "source": f"caption, {_SEED}; trend from notes §3 [unverified]"},
])

#: Names of the paper's own rows of :data:`TABLE1`. Necessity for seq-to-seq is not Corollary
#: 4.1 (the sufficiency result) but a further theorem whose number is not in our sources.
THM41_ROW = "Kajitsuka & Sato (ICLR 2025), Thm 4.1"
THM42_ROW = "Kajitsuka & Sato (ICLR 2025), Thm 4.2"
COR41_ROW = "Kajitsuka & Sato (ICLR 2025), Cor. 4.1"
S2S_LOWER_ROW = ("Kajitsuka & Sato (ICLR 2025), seq-to-seq lower bound (theorem number not in "
                 "our sources)")

#: Table 1 of the paper (comparison with prior work). Our sources give its caption (liner summary,
#: notes §1: "Comparisons between our results and related work regarding the memorization
#: capacity of Transformers. The variable ω in the bounds presented by Madden et al. (2024)
#: represents the vocabulary size, or the number of distinct word vectors ...") but not its
#: printed cells. Each row below is the work's bound as the source named in ``source`` states it,
#: in one set of symbols (N sequences of length n, tokens in R^d, vocabulary of ω tokens); where
#: the printed cell itself is not in our sources, ``printed`` says so. Õ, Θ and Ω hide logs and
#: constants. ``computable`` names what :func:`memnb.figures.kajitsuka.table1` evaluates.
TABLE1 = pd.DataFrame([
    {"work": "Kim, Kim & Mozafari (ICLR 2023)", "cite": "kim2023",
     "setting": "seq-to-seq", "parameters": "Õ(d + n + √(nN))", "kind": "sufficient",
     "printed": "yes (notes §1)", "computable": "order d + n + √(nN)",
     "source": "Table 1 as quoted in notes §1 (Kim et al.'s own paper is not among our "
               "sources: its attention, softmax or hardmax, is not stated here)"},
    {"work": "Madden, Fox & Thrampoulidis (2024)", "cite": "madden2024",
     "setting": "next-token, one-layer multi-head decoder [unverified]",
     "parameters": "Θ(ωN) [unverified]",
     "kind": "sufficient and necessary [unverified]",
     "printed": "no: only the caption's ω is in our sources",
     "computable": "order ωN",
     "source": "[unverified]: Madden et al.'s own statement as recalled (capacity Θ(k/(ω−1)) "
               "contexts with k parameters; arXiv:2405.13718, not among our sources); Table 1 "
               "caption for ω"},
    {"work": "Mahdavi, Liao & Thrampoulidis (ICLR 2024)", "cite": "mahdavi2024",
     "setting": "one H-head attention layer, next-token, n < d",
     "parameters": "Θ(H d²) for N = H(n−1)+1, i.e. Θ(d² N / n) [summary + reconstruction]",
     "kind": "sufficient",
     "printed": "no (cell not in our sources)", "computable": "order H d², H = ⌈(N−1)/(n−1)⌉",
     "source": "Mahdavi et al. Thm 1 (notes mahdavi_2024.md, which mark its statement [summary "
               "+ reconstruction]); Table 1 cell [unverified]"},
    {"work": "Kajitsuka & Sato (ICLR 2024)", "cite": "kajitsuka2024",
     "setting": "one-layer single-head Transformer (the authors' previous paper) [unverified]",
     "parameters": "not in our sources", "kind": "sufficient [unverified]",
     "printed": "no (cell not in our sources)", "computable": "nothing (no bound in our sources)",
     "source": "Table 1 caption as quoted in notes §1; cell [unverified]"},
    {"work": THM41_ROW, "cite": "kajitsuka2025",
     "setting": "next-token, hardmax attention (the theory's σ, notes §1 [unverified]; softmax "
                "bounds are open, TL;DR)", "parameters": "Õ(√N) (width 14, depth Õ(√N))",
     "kind": "sufficient", "printed": "yes (abstract, Theorem 4.1)",
     "computable": "our construction's exact count", "source": f"Theorem 4.1, {_SEED}"},
    {"work": THM42_ROW, "cite": "kajitsuka2025",
     "setting": "next-token", "parameters": "Ω(√N) [unverified: our notes' reading]",
     "kind": "necessary",
     "printed": "no: the abstract says \"optimal up to logarithmic factors\"",
     "computable": "smallest W of our instantiated VC bound",
     "source": f"Theorem 4.2 title and abstract, {_SEED}; the Ω(√N) form [unverified]"},
    {"work": COR41_ROW, "cite": "kajitsuka2025",
     "setting": "seq-to-seq", "parameters": "Õ(√(nN))",
     "kind": "sufficient", "printed": "yes (abstract)",
     "computable": "our construction's count",
     "source": f"Corollary 4.1 title and abstract, {_SEED}"},
    {"work": S2S_LOWER_ROW, "cite": "kajitsuka2025",
     "setting": "seq-to-seq, hardmax", "parameters": "Ω(√(nN))",
     "kind": "necessary (hardmax)", "printed": "yes (abstract)",
     "computable": "smallest W of our instantiated VC bound",
     "source": "abstract ('necessary at least for Transformers with hardmax'), notes §1: a "
               "further theorem of the paper, its number not in our sources"},
])

#: The VC-dimension bound instantiated for Thm 4.2 and Cor. 4.1 (the paper's is not in our
#: sources; our choice, see :mod:`memnb.lower_bounds`).
VC_BOUND = ("Bartlett, Harvey, Liaw & Mehrabian (JMLR 2019), Theorem 6: VCdim ≤ L + L̄ W "
            "log2(4 e p R log2(2 e p R)) [unverified: the formula as we recall it; our choice of "
            "bound; the paper's is not in our sources]")

#: The paper's numbered items as our sources list them (seed 000, 'Theorems & Definitions').
#: The seed counts 23 theorem-like statements and 47 theorems and definitions in all; only
#: these ten are named in our sources.
NAMED_ITEMS: tuple[str, ...] = (
    "Remark 3.1", "Theorem 4.1", "Remark 4.1", "Remark 4.2", "Remark 4.3", "Definition 4.1",
    "Remark 4.4", "Theorem 4.2", "Corollary 4.1", "Remark 4.5",
)

#: Prior-work rates of the slider (Table 1's neighbours), exponents of N [source in each].
RATES = pd.DataFrame([
    {"curve": "naive Θ(N)", "exponent_N": 1.0,
     "source": "one parameter per sample (textbook memorizer)"},
    {"curve": "Park et al. O(N^(2/3))", "exponent_N": 2.0 / 3.0,
     "source": "Park, Lee, Yun & Shin (COLT 2021), ReLU networks"},
    {"curve": "Vardi et al. Õ(√N)", "exponent_N": 0.5,
     "source": "Vardi, Yehudai & Shamir (ICLR 2022), ReLU networks [unverified constants]"},
    {"curve": "Kajitsuka & Sato Õ(√N)", "exponent_N": 0.5, "source": f"Theorem 4.1, {_SEED}"},
])


#: How the chapter uses a setting stated for one figure in the others: our reconstruction.
_CARRIED = "[reconstruction]"


def published_settings() -> pd.DataFrame:
    """The experiment settings the paper publishes, one row each with its source and where the
    chapter uses it (``used here``); a setting stated for one figure and used for others is
    marked ``[reconstruction]`` there. Figure numbers are arXiv's (the chapter's) unless a row
    says ICLR."""
    curves = "our MultiNLI, IMDb and random-data curves (`full`) " + _CARRIED
    rows = [
        ("Fig. 7 dataset sizes N", f"{FIG7_N.value[0]} … {FIG7_N.value[-1]} (step 100)",
         FIG7_N.source, "Fig. 7 (`full`)"),
        ("sequence length n, stated for Fig. 7", FIG7_SEQ_LEN.value, FIG7_SEQ_LEN.source,
         "Fig. 7 (`full`); our MultiNLI, IMDb and random-data curves (`full`) [reconstruction]; "
         "the sweep over n varies it"),
        ("epochs (full batch), stated for Fig. 7", EPOCHS.value, EPOCHS.source,
         "every trained experiment (`full`) " + _CARRIED),
        ("Optuna trials, stated for Fig. 7", OPTUNA_TRIALS.value, OPTUNA_TRIALS.source,
         "every trained experiment (`full`) " + _CARRIED),
        ("optimizer", "full-batch gradient descent (paper); AdamW (third party)", OPTIMIZER,
         "AdamW, full batch, in every trained experiment: the third-party reading (acmrep, "
         "the notes' source for it; not the paper's words), which we follow"),
        ("#blocks of the ICLR version's Fig. 2 (ICLR numbering: not arXiv's Fig. 2, the "
         "MultiNLI accuracy plot)", ", ".join(map(str, FIG2_BLOCKS.value)), FIG2_BLOCKS.source,
         curves),
        ("dataset size N of the ICLR version's Fig. 2 (ICLR numbering)", FIG2_N.value,
         FIG2_N.source, curves),
        ("width of the construction", THM41_WIDTH.value, THM41_WIDTH.source,
         "Theorem 4.1 (width) check"),
    ]
    return pd.DataFrame(rows, columns=["setting", "value", "source", "used here"])
