"""A reader's review of the Kajitsuka & Sato chapter (fourth round): the curve rows open with the
reading at the last epoch and the late divergence; IMDb's failure at the ceiling is counted in
sequences; the chapter says which code computed the committed curve tables and that a rerun
replaces them; one label for "one self-attention layer suffices"; the ICLR sweep over n is
[unverified] and its sizes are named; distinct seq-to-seq datasets; the √(log N) factor; the
size Fig. 7's log fit leaves out; the figures' axes and √ reference lines."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from memnb.experiments.kajitsuka import capacity_table  # noqa: E402
from memnb.figures import kajitsuka as ksfig  # noqa: E402
from memnb.papers import kajitsuka as paper  # noqa: E402
from memnb.prose import percent_up  # noqa: E402
from memnb.results import FreshAndCached, load, todays_code  # noqa: E402
from memnb.scorecard import kajitsuka as card  # noqa: E402
from memnb.scorecard.core import ResultSource, load_items  # noqa: E402

ROOT = Path(__file__).parents[1]
NOTEBOOK = ROOT / "notebooks/kajitsuka_sato.ipynb"
FULL = ROOT / "data/results/full"


def _cells() -> list[dict]:
    return json.loads(NOTEBOOK.read_text())["cells"]


def _source_with(text: str) -> str:
    """The source of the one cell of the notebook that contains ``text`` (found by content, not
    by position: a cell added above would move it)."""
    found = [s for s in ("".join(c["source"]) for c in _cells()) if text in s]
    assert len(found) == 1, (text, len(found))
    return found[0]


def _made_up_capacity(dataset: str, d: int, sizes: dict[tuple[int, int], int]) -> pd.DataFrame:
    """A made-up table in the columns of a Fig. 7 / sweep-over-n run (``memnb run
    kajitsuka.capacity``): for each ``(N, n)`` of ``sizes`` one seed at 0, 1, 2 and 4 blocks,
    memorized exactly from the depth ``sizes`` gives (a fresh clone has no quick run)."""
    rows = []
    for (N, n), needed in sizes.items():
        for blocks in (0, 1, 2, 4):
            memorized = blocks >= needed
            rows.append({"dataset": dataset, "vocab": 1000, "classes": 2, "epochs": 300,
                         "trials": 1, "eval_every": 10, "early_stop": True, "data_seed": 0,
                         "record": "final", "d": d, "d_ff": 2 * d, "num_heads": 2,
                         "input_dim": d, "N": N, "n": n, "blocks": blocks,
                         "max_blocks": blocks, "seed": 0, "loss": 0.01 if memorized else 0.5,
                         "accuracy": 1.0 if memorized else 0.9, "memorized": memorized,
                         "epochs_run": 100, "trial": 0, "lr": 0.003, "weight_decay": 0.0,
                         "params": 1000 + 1000 * blocks})
    return pd.DataFrame(rows)


def _rows() -> dict[str, str]:
    """The measured text of the committed curve rows, read as the scorecard reads them."""
    items = {i.item: i for i in load_items(["kajitsuka"])}
    source = ResultSource("full", root=ROOT / "data/results")
    return {name: items[name].evaluate(source).measured
            for name in ("Fig. 1", "Fig. 2", "Fig. 4", "Fig. 5")}


def _by_hand(curves: pd.DataFrame) -> pd.DataFrame:
    """Per (blocks, seed): the accuracy at the lowest-loss epoch (the earliest, on a tie) and at
    the last epoch, and the epochs between them, with plain pandas."""
    runs = curves.sort_values(["blocks", "seed", "epoch"], kind="stable").groupby(
        ["blocks", "seed"])
    best = curves.loc[runs["loss"].idxmin()].set_index(["blocks", "seed"])
    last = runs.tail(1).set_index(["blocks", "seed"])
    return pd.DataFrame({"best": best["accuracy"], "last": last["accuracy"],
                         "epochs": last["epoch"] - best["epoch"]})


# --- A: the reading at the last epoch and the late divergence come first
def test_the_mnli_rows_open_with_the_last_epoch_and_the_late_divergence():
    curves = pd.read_csv(FULL / "kajitsuka.mnli_curves.csv")
    hand = _by_hand(curves)
    fell = hand[hand["best"] - hand["last"] > card.LATE_DROP]
    deepest = curves["blocks"].max()
    assert (fell.index.get_level_values("blocks") == deepest).all()
    seeds = sorted(int(s) for _, s in fell.index)
    spans = sorted(int(e) for e in fell["epochs"])
    # at each run's lowest-loss checkpoint, the deeper model is better at every seed (by hand)
    best = hand["best"].unstack("blocks")
    assert (best[deepest] > best[curves["blocks"].min()]).all()
    head = (f"differs at the last epoch only: {len(fell)} of {curves['seed'].nunique()} seeds' "
            f"deepest runs ({card.blocks_word(deepest)}, seeds {', '.join(map(str, seeds))}) "
            f"diverged in their last {spans[0]} to {spans[-1]} epochs; with them read at their "
            "lowest-loss epoch instead, the same rule holds on the mean and at every seed, and "
            "so it does at every run's lowest-loss checkpoint")
    rows = _rows()
    for name in ("Fig. 1", "Fig. 2"):
        assert rows[name].startswith(head), rows[name][:300]
        # the values of the last epoch follow the lead
        assert rows[name].index("final ") > rows[name].index("lowest-loss checkpoint")


def test_the_imdb_rows_say_their_failure_does_not_come_from_the_late_run():
    rows = _rows()
    for name in ("Fig. 4", "Fig. 5"):
        assert rows[name].startswith("differs at the last epoch and at the lowest-loss "
                                     "checkpoint: the 10-block run of seed 2 "
                                     "diverged in its last 20 epochs, but the last-epoch failure "
                                     "does not come from it")


def test_a_rule_that_does_not_fail_gets_no_lead():
    curves = pd.read_csv(FULL / "kajitsuka.mnli_curves.csv")
    kept = curves[curves["blocks"] == curves["blocks"].min()]
    assert card.last_epoch_lead(kept, "accuracy", "reproduced") == ""


# --- B: the failure at the ceiling, in sequences
def test_the_imdb_shortfall_is_counted_in_sequences():
    curves = pd.read_csv(FULL / "kajitsuka.imdb_curves.csv")
    size = int(curves["N"].iloc[0])
    hand = _by_hand(curves)
    shallow, deep = sorted(curves["blocks"].unique())
    at_one = hand.xs(shallow, level="blocks")["best"] >= 1
    missed = ((1 - hand.xs(deep, level="blocks")["best"]) * size).round().astype(int)
    short = sorted(int(s) for s in missed.index if at_one[s] and missed[s] > 0)
    assert len(short) == 2 and len({int(missed[s]) for s in short}) == 1
    # the count is per seed (review): "each get", never a total that reads as shared
    said = (f"at the lowest-loss checkpoint with {card.blocks_word(deep)} seeds {short[0]} and "
            f"{short[1]} each get {int(missed[short[0]])} of the {size:,} sequences wrong "
            f"({card.blocks_word(shallow)} gets every one right)")
    assert said in card.accuracy_shortfall_words(curves)
    assert said in _rows()["Fig. 5"]
    assert said not in _rows()["Fig. 4"]  # the accuracy row says it, not the loss row
    # the committed table stands in for the fresh run too (a fresh clone has no quick run);
    # the shortfall sentence reads the committed one
    _, caption = ksfig.curves_figure(curves, curves, "IMDb", "Figs. 4 and 5", "quick")
    plt.close("all")
    lead = caption.split("<!-- details -->")[0]
    assert "Counted in training sequences: " in lead and said in lead
    # no shallower depth at accuracy 1: nothing to count at the ceiling
    mnli = pd.read_csv(FULL / "kajitsuka.mnli_curves.csv")
    assert card.accuracy_shortfall_words(mnli) == "" and ksfig.shortfall_sentence(mnli) == ""


# --- C: the committed curve tables are of earlier code, until a rerun
def test_the_earlier_code_sentence_reads_the_provenance():
    runs = []
    for name, figs in (("mnli", "Figs. 1 and 2"), ("imdb", "Figs. 4 and 5")):
        full = load(f"kajitsuka.{name}_curves", "full")
        runs.append((figs, FreshAndCached(f"kajitsuka.{name}_curves", full.table, full.table,
                                          {}, "", None, full.provenance)))
    text = ksfig.earlier_code_markdown(runs)
    code = json.loads((FULL / "kajitsuka.mnli_curves.json").read_text())["code_fingerprint"]
    assert f"code fingerprint {code})" in text
    assert "verdicts of Figs. 1 and 2 and of Figs. 4 and 5" in text
    assert "{ref}`Still to run <still-to-run>`" in text
    assert "until then the verdicts stand on these tables" in text
    # what is not known is said as such (review: a reader cannot judge the rerun otherwise)
    assert "whether the changes move these curves is not known until a rerun" in text
    assert "the code its fingerprint covers" in text
    assert "(still-to-run)=" in (ROOT / "book/running_at_scale.md").read_text()
    # a committed table of today's code, or none, says nothing
    today = [(f, FreshAndCached(r.name, r.fresh, r.cached, {}, "", None,
                                {**r.cached_provenance, "code_fingerprint": todays_code(r.name)}))
             for f, r in runs]
    assert ksfig.earlier_code_markdown(today) == ""
    assert ksfig.earlier_code_markdown([("x", FreshAndCached("n", runs[0][1].fresh, None, {},
                                                             "", None, None))]) == ""
    source = _source_with("ksfig.earlier_code_markdown(")
    assert "ksfig.earlier_code_markdown([(\"Figs. 1 and 2\", mnli), (\"Figs. 4 and 5\", imdb)])" \
        in source


# --- D and E: one label; the sweep over n
def test_the_sweep_over_n_is_unverified_and_its_sizes_named():
    markdown = "\n".join("".join(c["source"]) for c in _cells() if c["cell_type"] == "markdown")
    assert "at the sizes the caption names" not in markdown
    assert "That the ICLR version sweeps $n$ at all is a line of our notes without\na quote" \
        in markdown
    assert "sweep over $n$, the sweep *[unverified]*" in markdown
    items = {i.item: i for i in load_items(["kajitsuka"])}
    assert "sweeps n at all is a line of our notes without a quote" in \
        items["Sweep over n (ICLR version)"].claim
    quick = _made_up_capacity("random", 16, {(600, n): 1 for n in (2, 4, 8, 16)})
    text = ksfig.seq_len_sizes_markdown(quick, None, "quick")
    ns = ", ".join(str(v) for v in sorted(quick["n"].unique()))
    assert (f"the run drawn below (`quick`) has $N$ = {int(quick['N'].iloc[0]):,} random "
            f"sequences at $n$ = {ns}") in text
    assert int(quick["N"].iloc[0]) != paper.FIG2_N.value
    assert f"the $N$ = {paper.FIG2_N.value:,} of the ICLR version's Fig. 2 caption" in text
    assert "ksfig.seq_len_sizes_markdown(seq.fresh, seq.cached, profile)" in \
        _source_with("ksfig.seq_len_sizes_markdown(")
    fig, caption = ksfig.capacity_figure(quick, None, "quick", by="n")
    plt.close(fig)
    assert "which our notes name without a quote from the paper, [unverified]" in caption


# --- G, H: the log factor; the size the log fit leaves out
def test_the_lower_bound_caption_names_a_root_log_factor():
    sweep = pd.read_csv(FULL / "kajitsuka.construction.csv")
    fig, caption = ksfig.lower_bound_figure(sweep)
    plt.close(fig)
    assert "a $\\sqrt{\\log N}$ factor short of $\\sqrt N$" in caption
    assert "a log factor short" not in caption


def test_fig7_says_which_size_the_log_fit_leaves_out():
    quick = pd.concat([  # two widths, as the quick run has
        _made_up_capacity("mnli", 16, {(200, 8): 0, (400, 8): 1, (600, 8): 1, (800, 8): 2}),
        _made_up_capacity("mnli", 8, {(200, 8): 1, (400, 8): 2, (600, 8): 4, (800, 8): 4})],
        ignore_index=True)
    v = card.capacity_verdict(quick)
    checked = 0
    for d, part in quick.groupby("d"):
        cap = capacity_table(part, "N").groupby("N")["min_blocks"].mean()
        zero = [f"{x:g}" for x, y in cap.items() if y == 0]
        fitted = int(((cap > 0) & np.isfinite(cap)).sum())
        width = v.measured.split(f"width d = {d}:")[1].split(" | ")[0]
        if "fitted exponent" in width and zero:
            assert f"{fitted} points (N = {zero[0]}, at 0 blocks, is left out of the log fit)" \
                in width
            checked += 1
        elif "fitted exponent" in width:  # nothing at 0 blocks: nothing left out is named
            assert f"{fitted} points" in width and "left out of the log fit" not in width
    assert checked  # the width whose smallest N needs 0 blocks fits an exponent


# --- I: the figures
def test_the_figures_axes_and_sqrt_references():
    assert "(fraction)" in ksfig.CAPACITY_ACCURACY_LABEL
    sweep = pd.read_csv(FULL / "kajitsuka.construction.csv")
    fig, _ = ksfig.construction_figure(sweep, None, "quick")
    left, right = fig.axes[:2]
    assert "log scale" in left.get_xlabel() and "log scale" in right.get_xlabel()
    for ax in (left, right):
        lines = ax.get_lines()
        fitted = next(line for line in lines if "fitted quantity" in line.get_label())
        ref = next(line for line in lines if line.get_label().startswith("∝ √"))
        # drawn over the dashed line it follows, and the legend says how close they are
        assert ref.get_zorder() > fitted.get_zorder()
        gap = ksfig.sqrt_reference_gap(fitted.get_xdata(), fitted.get_ydata())
        assert "drawn over" in ref.get_label() and f"within {percent_up(gap)}" in ref.get_label()
    plt.close(fig)
