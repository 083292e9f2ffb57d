"""Reviewer findings on the Kajitsuka & Sato chapter (second round): the intro sorts what is the
paper's, what is [unverified] and what is ours; the undecided overhead fit states its slope's
sign; Table 1 and the lower-bound figure say which count of our construction they use, with the
Transformer form's ratio computed; Fig. 7's legends show the line style; the note above the
construction figure says what it draws; MultiNLI's token split is computed from the loader; the
Bits paragraph is plain sentences. Third round (two readers' reviews): the seq-to-seq positions
are ours and counted, the construction's shape, Table 1's 2024 row, one ceiling rule for the loss
and accuracy rows, the epoch read marked ours, the reduced-scale tag, Fig. 7's right panel and the
folded construction and lower-bound captions."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from memnb import viz  # noqa: E402
from memnb.constructions.seq_id import memorize  # noqa: E402
from memnb.data.random_sequences import random_sequences  # noqa: E402
from memnb.figures import kajitsuka as ksfig  # noqa: E402
from memnb.papers import kajitsuka as paper  # noqa: E402
from memnb.scorecard import kajitsuka as card  # noqa: E402
from memnb.scorecard.core import ResultSource, load_items, status_words  # noqa: E402
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


def _items() -> dict[str, object]:
    return {it.item: it for it in load_items(["kajitsuka"])}


# --- 1. the seq-to-seq positions are ours, needed by our data only
def test_the_example_counts_the_sequences_that_repeat_a_token_by_hand():
    ex = card.COR41_EXAMPLE
    data = random_sequences(ex["N"], ex["n"], ex["V"], ex["C"], seed=ex["seed"], seq2seq=True)
    repeat = [len(set(row)) < len(row) for row in data.tokens.tolist()]
    clash = [any(len({y for t2, y in zip(row, ys, strict=True) if t2 == t}) > 1 for t in row)
             for row, ys in zip(data.tokens.tolist(), data.labels.tolist(), strict=True)]
    with pytest.raises(ValueError, match="inconsistent data"):
        memorize(data.tokens, data.labels, task="seq2seq", positional=False, seed=ex["seed"])
    keep = ~np.array(repeat)
    net = memorize(data.tokens[keep], data.labels[keep], task="seq2seq", positional=False,
                   seed=ex["seed"])
    assert np.array_equal(net.predict(data.tokens[keep]), data.labels[keep])
    found = card.positions_example()
    assert found == {"sequences": len(repeat), "repeat": sum(repeat), "clash": sum(clash),
                     "distinct": int(keep.sum()), "exact": True, "refused": True}
    words = card.positions_example_words(found)
    assert words.startswith("with positional token IDs (w = nz + k; ours: the model of the "
                            "theory, as our notes recall it, has no positional encoding "
                            "[unverified])")
    assert (f"without them the {len(repeat)} sequences are refused: {sum(repeat)} of them "
            f"repeat a token, {sum(clash)} with different labels") in words
    assert (f"the {int(keep.sum())} sequences of distinct tokens, memorized without positions, "
            "give every token's label exactly: True") in words


def test_the_corollary_row_and_the_caption_say_the_positions_are_ours():
    table = pd.read_csv(SWEEP)
    row = _items()["Corollary 4.1"]
    assert "which the model of the theory, as our notes recall it, does not have" in _flat(
        row.criterion)
    assert "(ours: our random data repeat a token inside a sequence" in _flat(row.criterion)
    v = card.cor41_verdict(table)
    assert card.positions_example_words() in v.measured
    s2 = table[table["task"] == "seq2seq"]
    clashing = 0
    # a dataset is fixed by its parameters: the one in both sweeps (N = 1000, n = 8) counts once
    distinct = s2.drop_duplicates(["N", "n", "C", "V", "seed"])
    assert len(distinct) < len(s2)
    for r in distinct.itertuples():  # by hand: a token of one sequence with two labels
        data = random_sequences(int(r.N), int(r.n), int(r.V), int(r.C), seed=int(r.seed),
                                seq2seq=True)
        clashing += any(
            len({y for t2, y in zip(row, ys, strict=True) if t2 == t}) > 1
            for row, ys in zip(data.tokens.tolist(), data.labels.tolist(), strict=True)
            for t in row)
    assert 0 < clashing
    both = s2[s2.duplicated(["N", "n", "C", "V", "seed"])].iloc[0]
    said = (f"in {clashing} of the sweep's {len(distinct)} distinct seq-to-seq datasets (built by "
            f"its {len(s2)} seq-to-seq constructions: the dataset N = {int(both.N)}, "
            f"n = {int(both.n)} is in both sweeps) a sequence repeats a token")
    assert said in v.measured
    fig, caption = ksfig.construction_figure(table, table, "quick")
    plt.close(fig)
    assert "which a label at every token needs" not in caption
    lead, _, details = caption.partition(viz.DETAILS)
    assert ("its seq-to-seq curves with positional token IDs, w = nz + k (ours; the details say "
            "why our data need them)") in lead
    assert details.strip().startswith(
        f"Positions in the seq-to-seq token IDs: {card.positions_words(table)}.")
    assert card.positions_words(table).startswith(
        "ours: the model of the theory, as our notes recall it, has no positional encoding "
        "[unverified]")
    assert said in details
    sec3 = _flat(_cells()["cfc7266a"])
    assert "since a label at every token needs the position" not in sec3
    assert "($w = nz + k$; ours:" in sec3


def test_one_reading_of_the_positional_column_for_scorecard_and_caption():
    """``card.seq2seq_positional`` reads the sweep's ``positional`` column for both the Cor. 4.1
    row and the construction caption: absent, none, some and every seq-to-seq row."""
    base = pd.DataFrame({"task": ["seq2seq", "seq2seq", "next_token"], "N": [4, 8, 4]})
    assert card.seq2seq_positional(base) is None and ksfig._seq2seq_positional(base) is None
    assert card.seq2seq_positional(base[base["task"] != "seq2seq"].assign(positional=1)) is None
    none, some, every = (base.assign(positional=flags)
                         for flags in ([0, 0, 1], [1, 0, 1], [1, 1, 0]))
    assert list(card.seq2seq_positional(some)) == [True, False]
    assert [ksfig._seq2seq_positional(t) for t in (none, some, every)] == [False, False, True]
    assert card._sweep_positions(none) == "the sweep's seq-to-seq constructions hold no positions"
    assert "whether" in card._sweep_positions(base)


# --- 2. the intro: the construction's shape
def test_the_intro_names_the_experimental_models_shape_and_our_ffn():
    intro = _flat(_cells()["a4d6c72b"])
    assert "a construction of the paper's shape" not in intro
    assert ("builds a construction of the shape of the paper's experimental model (two FFNs "
            "around one self-attention layer, the latter *[unverified]*; the construction's "
            "first FFN, its token hash, is ours)") in intro


# --- 3. Table 1's row for the authors' 2024 paper
def test_table1_marks_the_2024_rows_setting_and_kind_unverified():
    row = paper.TABLE1.set_index("cite").loc["kajitsuka2024"]
    assert row["setting"].endswith("[unverified]") and row["kind"] == "sufficient [unverified]"
    printed = ksfig.table1_printed().set_index("work").loc["Kajitsuka & Sato (ICLR 2024)"]
    assert "[unverified]" in printed["setting"] and "[unverified]" in printed["kind"]


# --- 4. one ceiling rule for the loss and the accuracy rows
def test_the_loss_and_accuracy_rows_count_the_same_seeds():
    table = pd.read_csv(ROOT / "data/results/full/kajitsuka.imdb_curves.csv")
    ceiling, seeds = card.final_ceiling_seeds(table)
    last = table[table["epoch"] == table["epoch"].max()]
    by_hand = sorted(int(s) for s, part in last.groupby("seed") if (part["accuracy"] >= 1).all())
    assert ceiling == by_hand and seeds == table["seed"].nunique()
    counts = [card.curves_verdict(table, m).values["seeds_holding"] for m in ("loss", "accuracy")]
    texts = [card.curves_verdict(table, m).measured for m in ("loss", "accuracy")]
    assert all(f"so {seeds - len(ceiling)} of {seeds} seeds are counted" in t for t in texts)
    assert all(0 <= c <= seeds - len(ceiling) for c in counts)
    for name in ("Fig. 1", "Fig. 4", "Random data, loss (ICLR version)"):
        assert "is not counted, as in the accuracy row" in _items()[name].criterion
    for name in ("Fig. 2", "Fig. 5"):
        assert "is not counted (nor in the loss row)" in _items()[name].criterion
    sec6 = _flat(_cells()["fa5fb9f4"])
    assert "For the accuracy, a seed" not in sec6
    assert "is counted in neither row (ours)" in sec6


# --- 5. the epoch read is ours
def test_the_curve_rows_mark_the_epoch_they_read_as_ours():
    items = _items()
    for name in ("Fig. 1", "Fig. 2", "Fig. 4", "Fig. 5", "Random data, loss (ICLR version)",
                 "Random data, accuracy (ICLR version)"):
        assert card.READ_EPOCH in items[name].claim
    assert card.READ_EPOCH.startswith("read at the kept trial's last epoch (ours:")
    assert "\"the best-performing model\"" in card.READ_EPOCH
    # why the last epoch: the figures are training curves, which end there; the checkpoint's
    # reading is reported beside it
    assert "a curve ends at its last epoch, so that is the reading judged" in card.READ_EPOCH
    assert "lowest-loss checkpoint, where the trial was chosen, is reported" in card.READ_EPOCH
    sec6 = _flat(_cells()["fa5fb9f4"])
    assert "judge that trial's final epoch (ours:" in sec6


# --- 6. the float64 demonstration is ours
def test_the_float64_paragraph_says_ours():
    """The demonstration is ours; whether the network loses labels is computed under it
    (:func:`memnb.figures.kajitsuka.float64_lost_words`), not typed before it."""
    text = _flat(_cells()["6d448429"])
    assert "in float64 instead of exact integers (ours)" in text
    assert "loses labels" not in text
    assert "ksfig.float64_lost_words(data.labels, float64_predictions)" in _cells()["f2585ca3"]


# --- 7. the reduced-scale tag on the random-data loss row
def test_the_random_data_rows_both_carry_the_reduced_scale_tag(tmp_path):
    """A made-up `quick` random-data run (the committed results have none in a fresh clone):
    both rows read it and say so, whatever their status."""
    quick = tmp_path / "quick"
    quick.mkdir()
    pd.DataFrame([{"dataset": "random", "record": "curve", "N": 300, "n": 8, "d": 16,
                   "blocks": b, "seed": 0, "trial": 0, "epoch": e,
                   "loss": 0.8 / (1 + e * (b + 1) / 50), "accuracy": min(1.0, 0.5 + e * (b + 1)
                                                                          / 800)}
                  for b in (0, 1, 4) for e in range(0, 201, 10)]).to_csv(
        quick / "kajitsuka.random_curves.csv", index=False)
    (quick / "kajitsuka.random_curves.json").write_text(json.dumps(
        {"experiment": "kajitsuka.random_curves", "profile": "quick", "complete": True}))
    source = ResultSource("full", root=tmp_path)
    items = _items()
    rows = [items[f"Random data, {m} (ICLR version)"].evaluate(source)
            for m in ("loss", "accuracy")]
    used = source.used_profile("kajitsuka.random_curves")
    assert used == "quick"
    tag = f"[`{used}` run at reduced size, not the paper's scale]"
    assert all(r.measured.endswith(tag) for r in rows), [r.measured[-80:] for r in rows]


# --- 8. Fig. 7's right panel: lines at one accuracy apart, legend below the data
def test_the_search_panel_draws_every_line_apart_and_its_legend_below():
    table = pd.DataFrame([{"N": N, "d": d, "seed": 0, "blocks": b, "accuracy": 1.0}
                          for d in (8, 16) for N in (200, 400, 600) for b in (0, 1, 2, 4)])
    fig, caption = ksfig.capacity_figure(table, None, "quick")
    right = fig.axes[1]
    lines = [ln for ln in right.get_lines() if str(ln.get_label()).startswith("N = ")]
    xs = {tuple(np.round(np.asarray(ln.get_xdata(), float), 6)) for ln in lines}
    assert len(lines) == 6 and len(xs) == 6  # no two lines at one x: every marker shows
    for b_index in range(4):  # each line stays near its depth
        at = [float(np.asarray(ln.get_xdata(), float)[b_index]) for ln in lines]
        assert max(at) - min(at) <= ksfig._SEARCH_SPREAD_MAX + 1e-9
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = right.get_legend().get_window_extent(renderer)
    axes_box = right.get_window_extent(renderer)
    plt.close(fig)
    assert legend.y1 <= axes_box.y0  # below the axes: it covers no data
    assert "On the right, each line is drawn slightly apart along the #blocks axis" in caption
    offsets = ksfig.search_offsets([(8, 200.0), (16, 200.0)], [0, 1, 2, 4])
    assert offsets[(8, 200.0)] < 0 < offsets[(16, 200.0)]
    assert ksfig.search_offsets([(8, 200.0)], [0, 1]) == {(8, 200.0): 0.0}


# --- 9. the long construction and lower-bound captions fold their numbers
def test_the_construction_and_lower_bound_captions_show_statuses_and_fold_numbers():
    table = pd.read_csv(SWEEP)
    thm, cor, thm42 = (card.thm41_verdict(table), card.cor41_verdict(table),
                       card.thm42_verdict(table))
    for make, shown in ((lambda: ksfig.construction_figure(table, table, "quick"), thm),
                        (lambda: ksfig.lower_bound_figure(table), cor)):
        fig, caption = make()
        plt.close(fig)
        lead, sep, details = caption.partition(viz.DETAILS)
        assert sep and details.strip()
        assert "**Verdict:" in lead and len(lead) < len(details)
        assert shown.measured not in lead and shown.measured in details  # numbers folded
        unfolded = viz.unfold(caption)
        assert f"<summary style=\"cursor: pointer\">{viz.DETAILS_SUMMARY}</summary>" in unfolded
    fig, caption = ksfig.construction_figure(table, table, "quick")
    plt.close(fig)
    lead = caption.partition(viz.DETAILS)[0]
    assert (f"Theorem 4.1 row (against $N$): **Verdict: {status_words(thm)}**; Corollary 4.1 "
            f"row (against $n$, with the necessity half): **Verdict: {status_words(cor)}**."
            ) in lead
    fig, caption = ksfig.lower_bound_figure(table)
    plt.close(fig)
    assert (f"Theorem 4.2 row: **Verdict: {status_words(thm42)}**; Corollary 4.1 row "
            f"(hardmax): **Verdict: {status_words(cor)}**.") in caption.partition(viz.DETAILS)[0]
