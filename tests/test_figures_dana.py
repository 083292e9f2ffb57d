"""Prose of the Dana chapter computed in memnb.figures.dana: Theorem 2's paragraph and the
App. B.2 depth note."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

from memnb.figures import dana as figures  # noqa: E402
from memnb.papers import dana as paper  # noqa: E402


def _thm2_rows(informative: list[bool]) -> pd.DataFrame:
    rows = [{"N": 869, "d": 867, "bound": 3763.2, "kl_theorem_lambda": 0.634,
             "kl_rank_d_svd": 6.7e-8, "uniform_kl": 5.812, "looseness_vs_theorem_lambda": 5936.0},
            {"N": 1000, "d": 990, "bound": 437.4, "kl_theorem_lambda": 0.65,
             "kl_rank_d_svd": 1e-7, "uniform_kl": 5.93, "looseness_vs_theorem_lambda": 673.0},
            {"N": 1493, "d": 1491, "bound": 6.2881, "kl_theorem_lambda": 0.6761,
             "kl_rank_d_svd": 1e-7, "uniform_kl": 6.2952, "looseness_vs_theorem_lambda": 9.30}]
    return pd.DataFrame(rows).assign(informative=informative)


def test_thm2_paragraph_names_the_first_informative_n():
    text = figures.thm2_informative_markdown(_thm2_rows([False, False, True]))
    assert text.startswith("At the smallest $N$ where the bound is finite and not implied by "
                           "Proposition 2 ($N = 869$) it is 3763 nats against 0.63 for the "
                           "look-up table it is built on, while a rank-$d$ encoder reaches "
                           "6.7e-08; the uniform prediction already reaches 5.81. ")
    assert ("The bound is not informative at $N =$ 869, 1000 (bound 3763, 437 nats against the "
            "uniform prediction's 5.81, 5.93). ") in text
    assert text.endswith("It first is at $N = 1493$, $d = 1491$: 6.288 nats against the uniform "
                         "prediction's 6.295, and it holds there (9.3 times the look-up table's "
                         "KL 0.676).")
    assert "nowhere" not in text


def test_thm2_paragraph_says_when_the_bound_is_informative_nowhere():
    text = figures.thm2_informative_markdown(_thm2_rows([False, False, False]))
    assert "not informative at $N =$ 869, 1000, 1493 (bound 3763, 437, 6 nats" in text
    assert text.endswith("It is informative nowhere we computed.")
    assert "It first is" not in text
    # informative from the first row on: no list of misses
    every = figures.thm2_informative_markdown(_thm2_rows([True, True, True]))
    assert "not informative" not in every and "It first is at $N = 869$, $d = 867$" in every


def test_depth_note_says_what_the_plotting_script_counts_as_our_reading():
    note = figures.appendix_recipe_note()
    text = paper.TEXT
    assert (f"(the titles of its plotting script, `EXP_depth.py`, say "
            f"{int(text['depth_layers_titles'].value)} too, while, in our reading of that "
            "script, the x-axis of the paper's Fig. 10 counts the parameters of "
            f"{int(text['depth_layers_text'].value)} layers, the text's number)") in note
