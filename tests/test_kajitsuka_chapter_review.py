"""Reviewer findings on the Kajitsuka & Sato chapter (second round): the intro sorts what is the
paper's, what is [unverified] and what is ours; the undecided overhead fit states its slope's
sign; Table 1 and the lower-bound figure say which count of our construction they use, with the
Transformer form's ratio computed; Fig. 7's legends show the line style; the note above the
construction figure says what it draws; MultiNLI's token split is computed from the loader; the
Bits paragraph is plain sentences."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from memnb.figures import kajitsuka as ksfig  # noqa: E402
from memnb.scorecard import kajitsuka as card  # noqa: E402
from memnb.scorecard.criteria import Verdict  # noqa: E402

ROOT = Path(__file__).parents[1]
NOTEBOOK = ROOT / "notebooks/kajitsuka_sato.ipynb"
SWEEP = ROOT / "data/results/full/kajitsuka.construction.csv"


def _cells() -> dict[str, str]:
    return {c["id"]: "".join(c["source"])
            for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]}


def _flat(text: str) -> str:
    return " ".join(text.split())


# --- 1. the intro's three groups
def test_intro_sorts_the_papers_the_unverified_and_ours():
    intro = _cells()["a4d6c72b"]
    assert "the training settings listed below are the paper's" not in _flat(intro)
    _, rest = intro.split("- **The paper's**")
    paper_item, rest = rest.split("- ***[unverified]***")
    unverified, ours = rest.split("- **Ours**")
    paper_item, unverified, ours = _flat(paper_item), _flat(unverified), _flat(ours)
    # the paper's: statements, datasets, Fig. 7's settings; nothing that is ours or unverified
    for said in ("Thm 4.1", "Cor. 4.1", "MultiNLI and IMDb", "Fig. 7's sequence length",
                 "its grid of $N$", "full-batch gradient descent", "its Optuna trials"):
        assert said in paper_item, said
    for ours_word in ("AdamW", "search space", "averaging", "[unverified]"):
        assert ours_word not in paper_item, ours_word
    # [unverified]: the averaging, hardmax, the block forms
    for said in ("averaging operation", "hardmax as the theory's attention",
                 "the block forms", "the content of Thm 4.2"):
        assert said in unverified, said
    # ours: the construction's details, widths, search, optimizer
    for said in ("the token hash", "the model widths", "the optimizer AdamW", "the search space",
                 "learning-rate schedule", "the tokenizer"):
        assert said in ours, said


# --- 2. the undecided overhead fit states its slope's sign
def _overhead(slope: float, low: float, high: float) -> Verdict:
    return Verdict("trend", "", {"slope": slope, "slope_low": low, "slope_high": high,
                                 "marginal_first": 500.0, "marginal_last": 300.0})


def test_overhead_sentence_states_the_negative_slope_and_that_a_decrease_is_allowed():
    table = pd.read_csv(SWEEP)
    v = card.remark44_overhead_verdict(table)
    text = ksfig.overhead_markdown(table)
    assert v.values["slope"] < 0 < v.values["slope_high"] and v.values["slope_low"] < 0
    assert "the fit cannot tell a $\\log N$ growth" in text
    assert (f"The fitted slope is negative ({v.values['slope']:.3g} per doubling of $N$, "
            f"95 % interval {v.values['slope_low']:.3g} to {v.values['slope_high']:.3g}): its "
            "best estimate is a decrease.") in text
    assert (f"from {v.values['marginal_first']:.4g} between the two smallest sizes to "
            f"{v.values['marginal_last']:.4g} between the two largest") in text
    assert "the interval allows a decrease, no change or a growth." in text
    # the words follow the fit: a positive slope whose interval excludes a decrease
    grown = ksfig.overhead_slope_words(_overhead(4.0, 0.5, 9.0))
    assert "is positive" in grown and "best estimate is a growth" in grown
    assert "allows a growth." in grown and "decrease" not in grown
    flat = ksfig.overhead_slope_words(_overhead(2.0, 0.0, 4.0))
    assert "allows no change or a growth." in flat


# --- 3. which count of our construction Table 1 and the lower-bound figure use
def _ratio(N: int, task: str) -> float:
    from memnb.constructions.seq_id import memorize
    from memnb.data.random_sequences import random_sequences

    data = random_sequences(N, 8, 1000, 2, seed=0, seq2seq=task == "seq2seq")
    net = memorize(data.tokens, data.labels, num_classes=2, task=task,
                   positional=task == "seq2seq", seed=0)
    return net.transformer().parameter_count() / net.num_parameters


def test_table1_and_the_lower_bound_caption_name_the_relu_form_and_the_ratio():
    table = pd.read_csv(SWEEP)
    text = ksfig.table1_markdown(construction=table)
    assert text.count("(built (ours), ReLU form)") == 2
    nt, s2 = _ratio(10_000, "next_token"), _ratio(10_000, "seq2seq")
    assert nt > 1 and s2 > 1  # the Transformer form is the larger
    assert (f"Our construction's rows count its ReLU form, as Sec. 3 does; its Transformer form "
            f"(Sec. 2), built at this size, has {nt:.2f}× the parameters (next-token) and "
            f"{s2:.2f}× (seq-to-seq).") in text
    fig, caption = ksfig.lower_bound_figure(table)
    plt.close(fig)
    words = ksfig.lower_bound_form_words(table)
    assert f"Markers: our construction's exact counts {words}, from the committed" in caption
    assert words.startswith("in its ReLU form (the count of Sec. 3; the Transformer form")
    # each end named with its N: the ratio is not monotone in N, so the two are no range
    assert f"{_ratio(100, 'next_token'):.2f}× the parameters at $N$ = 100 and " in words
    assert " to " not in words.split("Sec. 2, has ")[1]
    # a recorded count the rebuild does not reproduce gives no ratio, and none is said
    assert ksfig.transformer_form_ratio(100, 8, "next_token", recorded=1) is None
    assert ksfig.transformer_form_ratio(10**6, 8, "next_token") is None
    other = table.assign(num_parameters=table["num_parameters"] + 1)
    assert ksfig.lower_bound_form_words(other) == "in its ReLU form (the count of Sec. 3)"
    cells = _cells()
    assert "in its ReLU form" in cells["de9436c4"] and "ReLU form" in cells["ddcb00df"]


# --- 4. Fig. 7's legends show the line style of each width
def test_capacity_legends_are_long_enough_to_show_a_dashed_width():
    need = {16: {200: 0, 400: 1}, 8: {200: 0, 400: 2}}
    table = pd.DataFrame([{"N": N, "d": d, "seed": 0, "blocks": b,
                           "accuracy": 1.0 if b >= k else 0.9}
                          for d, sizes in need.items() for N, k in sizes.items()
                          for b in (0, 1, 2)])
    fig, _ = ksfig.capacity_figure(table, None, "quick")
    legends = [ax.get_legend() for ax in fig.axes]
    styles = {h.get_label(): h.get_linestyle() for ax in fig.axes for h in ax.get_lines()}
    plt.close(fig)
    assert all(leg.handlelength == ksfig._DASHED_HANDLE for leg in legends)
    assert ksfig._DASHED_HANDLE >= 3
    assert {styles["N = 200, d = 8"], styles["N = 200, d = 16"]} == {"-", "--"}


# --- 5. the note above the construction figure says what the figure draws
def test_construction_note_says_the_figure_draws_the_full_run_only():
    note = "kajitsuka.construction: `quick` run beside the committed full-scale run"
    table = pd.DataFrame({"N": [100]})
    beside = ksfig.construction_note(note, table, "quick")
    assert beside.startswith(note + ". ")
    assert ("The figure below draws the committed full-scale run only; this build's `quick` "
            "run appears in the check after it.") in beside
    alone = ksfig.construction_note("kajitsuka.construction: `quick` run", None, "quick")
    assert alone.endswith("The figure below draws this build's `quick` run.")
    assert ksfig.construction_note("x", None, "full").endswith("draws this full-scale run.")
    assert "ksfig.construction_note(cons.note, cons.cached, profile)" in _cells()["a1e7381c"]


# --- 6. MultiNLI's token split, computed from the loader
def test_mnli_split_is_read_from_the_loader_and_printed():
    first, second, padded = ksfig.mnli_pair_split(8)
    assert (first, second) == (8 // 2, 8 - 8 // 2) and padded
    assert ksfig.mnli_pair_split(5)[:2] == (2, 3)
    ds = SimpleNamespace(name="MultiNLI", info={"layout": "pair", "seq_len": 8},
                         tokens=np.zeros((3, 8), dtype=np.int64))
    words = ksfig.mnli_layout_words(ds)
    assert ("each sequence of 8 tokens is the first 4 WordPiece tokens of the premise followed "
            "by the first 4 of the hypothesis, each part padded at its end with [PAD]") in words
    cells = _cells()
    assert "premise and hypothesis halves" not in cells["e6ac1be3"]
    assert "split as printed below" in _flat(cells["e6ac1be3"])
    assert "ksfig.mnli_layout_words(mnli_data)" in cells["02fb8d04"]


# --- 7. the Bits paragraph, in plain sentences
def test_bits_paragraph_is_split_into_plain_sentences():
    bits = _flat(_cells()["3811775d"])
    assert "with the floor below it" not in bits and "differenced out (" not in bits
    assert ("The Remark 4.4 row in the caption judges that upper bound on the bits that each "
            "added example costs. It differences out the cost that does not change with $N$: "
            "a fit of the total over our sizes would read that fixed cost as growth slower "
            "than $N$. The floor bounds the total from below, so an upper bound that is met "
            "makes the total $\\tilde\\Theta(N)$ over our sizes (ours).") in bits
