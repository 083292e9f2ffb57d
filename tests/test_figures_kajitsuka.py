"""Kajitsuka & Sato figures: captions computed from the data, with the scorecard's verdicts."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import re  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from memnb import bounds, prose, viz  # noqa: E402
from memnb.figures import kajitsuka as ksfig  # noqa: E402
from memnb.papers import kajitsuka as paper  # noqa: E402
from memnb.scorecard import kajitsuka as card  # noqa: E402

NOTEBOOK = Path(__file__).parents[1] / "notebooks/kajitsuka_sato.ipynb"


def _curves(final_loss: dict[int, float]) -> pd.DataFrame:
    return pd.DataFrame([{"blocks": b, "epoch": e, "seed": 0, "N": 50, "n": 8,
                          "loss": loss * (10 if e == 0 else 1), "accuracy": 0.5 if e == 0 else 1.0}
                         for b, loss in final_loss.items() for e in (0, 10)])


def _not_memorized_at_zero(curves: pd.DataFrame) -> pd.DataFrame:
    """``curves`` with the 0-block model ending below accuracy 1, so that its one seed is not
    at the ceiling (accuracy 1 at every depth), where neither curve rule counts it."""
    last = (curves["blocks"] == 0) & (curves["epoch"] == curves["epoch"].max())
    return curves.assign(accuracy=curves["accuracy"].where(~last, 0.9))


def test_the_unused_ratio_range_helper_is_gone():
    assert not hasattr(ksfig, "_times")


def test_curves_caption_states_the_verdict_and_a_worse_deeper_model():
    short = _curves({0: 0.3, 1: 0.01, 4: 0.02}).assign(  # no depth memorizes its set
        accuracy=lambda t: t["accuracy"].where(t["epoch"] == 0, 0.9))
    fig, caption = ksfig.curves_figure(short, None, "IMDb", "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "Verdict: differs" in caption
    assert "At 4 blocks the final loss (0.02) is higher than at 1 block (0.01)" in caption
    # both depths memorize (100 % accuracy): the rise is the optimiser's tail, which says
    # nothing either way: a trend not decided (review), and the details say so too
    fig, caption = ksfig.curves_figure(_not_memorized_at_zero(_curves({0: 0.3, 1: 0.01, 4: 0.02})),
                                       None, "IMDb", "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "loss (Fig. 4) **Verdict: trend (not decided)**" in caption
    assert "trend (not decided), not differs" in caption
    assert "which decides nothing for or against the expected trend (ours)" in caption
    assert "against the expected trend (ours)." not in caption.replace(
        "for or against the expected trend (ours).", "")
    fig, caption = ksfig.curves_figure(
        _not_memorized_at_zero(_curves({0: 0.3, 1: 0.01, 4: 0.0105})), None, "IMDb",
        "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "Verdict: trend" in caption and "No deeper model ends more than 10 %" in caption
    fig, caption = ksfig.curves_figure(_not_memorized_at_zero(_curves({0: 0.3, 1: 0.01, 4: 0.001})),
                                       None, "IMDb", "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "Verdict: trend" in caption and "No deeper model ends more than" in caption
    # every depth at accuracy 1: neither rule can fail, so neither verdict is computable
    fig, caption = ksfig.curves_figure(_curves({0: 0.3, 1: 0.01, 4: 0.001}), None, "IMDb",
                                       "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert ("loss (Fig. 4) **Verdict: not computable**; "
            "accuracy (Fig. 5) **Verdict: not computable**" in caption)


def test_a_reduced_run_tags_every_curve_verdict_as_its_accuracy_twin():
    """The reduced-scale tag, computed from the profile read, ends the loss verdict too when
    the cap leaves it as it is (already a trend), as it ends the capped accuracy verdict."""
    curves = _not_memorized_at_zero(_curves({0: 0.3, 1: 0.01, 4: 0.02}))
    fig, caption = ksfig.curves_figure(curves, None, "IMDb", "Figs. 4 and 5", "quick")
    plt.close(fig)
    details = caption.partition(viz.DETAILS)[2]
    loss, accuracy = details.split(" Accuracy (Fig. 5): ")
    assert "**Verdict: trend (not decided)**" in loss and "**Verdict: trend**" in accuracy
    tag = "[`quick` run at reduced size, not the paper's scale]"
    assert tag in loss and tag in accuracy
    fig, caption = ksfig.curves_figure(curves, curves, "IMDb", "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "reduced size" not in caption  # the full run: no tag


def test_curves_caption_says_how_many_seeds_both_verdicts_count():
    """The visible caption says how many seeds both rows count and names those at accuracy 1
    at every depth, which neither counts (one rule for both rows)."""
    base = _not_memorized_at_zero(_curves({0: 0.3, 1: 0.01, 4: 0.001}))
    two = pd.concat([base.assign(seed=0), base.assign(seed=1)])
    lead = ksfig.curves_figure(two, None, "IMDb", "Figs. 4 and 5", "quick")
    plt.close(lead[0])
    assert "Both verdicts count all 2 seeds: none ends at accuracy 1 at every depth." in lead[1]
    ceiling = pd.concat([base.assign(seed=0), _curves({0: 0.3, 1: 0.01, 4: 0.001}).assign(seed=1)])
    fig, caption = ksfig.curves_figure(ceiling, None, "IMDb", "Figs. 4 and 5", "quick")
    plt.close(fig)
    lead = caption.partition(viz.DETAILS)[0]
    assert ("Both verdicts count 1 of 2 seeds: seed 1 ends at accuracy 1 at every depth, where "
            "neither rule can fail") in lead
    assert ksfig.counted_seeds_sentence(base) == ""  # one seed: nothing to count


def test_capacity_caption_reports_a_flat_curve():
    table = pd.DataFrame([{"N": N, "d": 16, "seed": 0, "blocks": b,
                           "accuracy": 1.0 if b >= (N > 200) else 0.9}
                          for N in (200, 400, 600, 800) for b in (0, 1, 2, 4)])
    fig, caption = ksfig.capacity_figure(table, None, "quick")
    plt.close(fig)
    # √N from N = 400 to 800 is less than a whole block more: the grid cannot show it
    assert "Verdict: trend" in caption and "no exponent fitted" in caption
    assert "cannot show it" in caption
    assert "model width $d = 16$" in caption and "widths" not in caption


def test_a_partial_full_run_at_one_size_is_stated_not_shown():
    fresh = pd.DataFrame([{"N": N, "d": 16, "seed": 0, "blocks": b,
                           "accuracy": 1.0 if b >= (N > 200) else 0.9}
                          for N in (200, 400) for b in (0, 1, 2)])
    early = fresh[fresh["N"] == 400].assign(N=600)
    # one size so far: the figure and the sentence after it read this build's run
    assert ksfig.capacity_shown(fresh, early) is fresh
    fig, caption = ksfig.capacity_figure(fresh, early, "quick", partial="partial: 3 of 60")
    plt.close(fig)
    assert "From our `quick` run (N = 200, 400)" in caption
    lead, _, details = caption.partition(viz.DETAILS)  # the lead says so, the details how much
    assert ("The committed full-scale run is not drawn: partial, it has at most 1 value of N "
            "per width so far, fewer than the 2 a growth with N needs") in lead
    # one size needing a block (N = 400 at 1 block): no growth rate, a trend not decided
    assert lead.strip().endswith("**Verdict: trend (not decided)**.")
    assert "The full-scale run is partial: 3 of 60, and" in details
    assert "only N = 600 so far" in details
    # two sizes at one width: the full-scale run is shown
    grown = pd.concat([early, early.assign(N=900)])
    assert ksfig.capacity_shown(fresh, grown) is grown
    fig, caption = ksfig.capacity_figure(fresh, grown, "quick", partial="partial: 6 of 60")
    plt.close(fig)
    assert "From the full-scale run (N = 600, 900)" in caption and "not shown" not in caption


def test_float64_sentence_does_not_add_bits_that_never_meet():
    report = {"prime_bits": 24, "prime_squared_bits": 47, "float64_accuracy": 0.263,
              "ffn1_exact": False, "ffn1_first_failing_layer": 28, "ffn1_depth": 183,
              "ffn1_max_weight_bits": 47, "ffn1_max_value_bits": 47, "ffn1_max_product_bits": 90,
              "ffn2_exact": False, "ffn2_first_failing_layer": 0, "ffn2_depth": 211,
              "ffn2_max_weight_bits": 93, "ffn2_max_value_bits": 40, "ffn2_max_product_bits": 130}
    text = ksfig.float64_markdown(report)
    assert "the largest product formed has 90 bits" in text
    assert "would have 93 or 94 bits" in text and "never meet in one product" in text
    assert "give products of 90 bits" not in text
    assert "a weight or bias of 93 bits does not fit" in text and "26.3%" in text
    met = ksfig.float64_markdown({**report, "ffn1_max_product_bits": 94})
    assert "never meet" not in met and "the largest product formed has 94 bits" in met


def test_chapter_prints_the_scorecard_rows_of_theorem_42_and_corollary_41():
    from memnb.scorecard.core import ResultSource, load_items

    root = Path(__file__).parents[1] / "data/results"
    table = pd.read_csv(root / "full/kajitsuka.construction.csv")
    items = {i.item: i for i in load_items(["kajitsuka"])}
    source = ResultSource("full", root=root)
    rows = {k: items[k].evaluate(source) for k in ("Theorem 4.2", "Corollary 4.1")}
    fig, caption = ksfig.lower_bound_figure(table)
    plt.close(fig)
    lead, _, details = caption.partition(viz.DETAILS)  # the lead gives the statuses only
    assert (f"Theorem 4.2 row: **Verdict: {rows['Theorem 4.2'].status}**; Corollary 4.1 row "
            f"(hardmax): **Verdict: {rows['Corollary 4.1'].status}**.") in lead
    thm, cor = details.split("Corollary 4.1 row")
    assert f"**Verdict: {rows['Theorem 4.2'].status}** ({rows['Theorem 4.2'].measured})" in thm
    assert f"**Verdict: {rows['Corollary 4.1'].status}** ({rows['Corollary 4.1'].measured})" \
        in cor
    fig, caption = ksfig.construction_figure(table, None, "quick")
    plt.close(fig)
    status = rows["Corollary 4.1"].status
    assert ("whose verdict (with the necessity half, a further theorem of the paper whose number "
            f"is not in our sources, Sec. 4) is **{status}**") in caption
    assert "status reproduced" not in caption
    # where FFN₁ or FFN₂ is the larger part is computed from the table, not asserted
    assert card.ffn_split(table) in caption and "dominates" not in caption
    assert "FFN₂ from N = " in card.ffn_split(table)


def test_crossings_are_where_the_closed_forms_cross():
    at = ksfig.crossing(8, "naive N", N_max=10**7)
    assert at is not None
    assert bounds.kajitsuka_construction_parameter_model(int(at), 8, 2, 1000) < at
    below = int(at * 0.97)
    assert bounds.kajitsuka_construction_parameter_model(below, 8, 2, 1000) >= below
    assert ksfig.crossing(8, "naive N", N_max=1000) is None
    text = ksfig.slider_markdown([8], N_max=1000)
    assert "over the whole drawn range" in text and "Park" in text
    # Park et al.'s curve is never crossed up to the search's end: said so, not as a crossing
    assert ksfig.crossing(8, "Park et al. N^(2/3)", N_max=10**15) is None
    assert "above Park et al.'s $N^{2/3}$ at every $N$ up to the largest searched, $10^{15}$" \
        in text and "up to $N = 10^{15}$" not in text


def test_hash_markdown_states_the_counts():
    text = ksfig.hash_markdown({"sequences": 10, "linear": 3, "affine": 7, "affine mod p": 3,
                                "power": 10})
    assert "takes 3 distinct values" in text and "takes 7" in text and "all 10" in text


def test_hash_markdown_words_follow_the_counts():
    """Each comparison with the plain sum, and "separates all", is chosen from the counts."""
    today = ksfig.hash_markdown({"sequences": 10, "linear": 3, "affine": 7, "affine mod p": 3,
                                 "power": 10})
    assert ("takes 7 (more than the plain sum, because how many tokens wrap around $p$ also "
            "varies) but the same sum taken modulo $p$ takes 3, exactly as many as the plain "
            "sum") in today and today.endswith("separates all 10.")
    other = ksfig.hash_markdown({"sequences": 10, "linear": 3, "affine": 3, "affine mod p": 2,
                                 "power": 9})
    assert "takes 3 (as many as the plain sum) but the same sum" in other
    assert "takes 2, fewer than the plain sum (modulo" in other
    assert other.endswith("$a^z \\bmod p$ takes 9, so it does not separate all 10.")
    assert "more than" not in other and "exactly as many" not in other
    assert "separates all" not in other
    fewer = ksfig.hash_markdown({"sequences": 10, "linear": 3, "affine": 2, "affine mod p": 4,
                                 "power": 10})
    assert "takes 2 (fewer than the plain sum) but the same sum" in fewer
    assert "takes 4, more than the plain sum (modulo" in fewer
    both = ksfig.hash_markdown({"sequences": 10, "linear": 3, "affine": 5, "affine mod p": 4,
                                "power": 10})
    assert "also varies) and the same sum taken modulo $p$ takes 4, more than the plain" in both


def test_a_partial_full_run_caps_the_caption_verdicts_at_trend():
    curves = _not_memorized_at_zero(_curves({0: 0.3, 1: 0.01, 4: 0.001}))
    fig, caption = ksfig.curves_figure(curves, curves, "IMDb", "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "loss (Fig. 4) **Verdict: reproduced**" in caption
    fig, caption = ksfig.curves_figure(curves, curves, "IMDb", "Figs. 4 and 5", "quick",
                                       partial="partial: 12 of 25 points")
    plt.close(fig)
    assert "reproduced" not in caption and "loss (Fig. 4) **Verdict: trend**" in caption
    assert "[the full-scale run is partial: 12 of 25 points]" in caption


def test_curves_caption_names_a_partial_run_and_each_seed_and_colours_a_depth_once():
    quick = _curves({0: 0.3, 1: 0.01, 4: 0.001})
    full = pd.concat([_curves({1: 0.01, 10: 0.02}).assign(N=3000, seed=s) for s in (0, 1)])
    full.loc[(full["seed"] == 1) & (full["blocks"] == 10) & (full["epoch"] == 10),
             "accuracy"] = 0.67  # one seed fails to train at 10 blocks
    fig, caption = ksfig.curves_figure(quick, full, "MultiNLI", "Figs. 1 and 2", "quick",
                                       partial="partial: 4 of 10 points ran")
    ones = [line.get_color() for line in fig.axes[1].get_lines()
            if line.get_label().startswith("blocks=1 (ours")]  # this run's and the full run's
    plt.close(fig)
    assert len(ones) == 2 and len(set(ones)) == 1
    assert "N = 50 (quick profile, circles) and N = 3000 (full-scale run, squares)" in \
        fig._suptitle.get_text()
    assert "From the full-scale run (partial: 4 of 10 points ran)" in caption
    assert "worst to best: 1 block 1 to 1; 10 blocks 0.67 to 1." in caption


# --- audit of the rendered chapter
def _cells() -> dict[str, str]:
    import json

    return {c["id"]: "".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"]}


def _two_widths() -> pd.DataFrame:
    """The quick run's shape: d = 16 memorizes N = 800 only at 2 blocks (0.99875 at 1)."""
    need = {16: {200: 0, 400: 1, 600: 1, 800: 2}, 8: {200: 0, 400: 9, 600: 9, 800: 9}}
    return pd.DataFrame([{"N": N, "d": d, "seed": 0, "blocks": b,
                          "accuracy": 1.0 if b >= k else 0.99875}
                         for d, sizes in need.items() for N, k in sizes.items()
                         for b in (0, 1, 2, 4)])


def test_capacity_depths_are_computed_per_width_and_not_typed_in_the_chapter():
    text = ksfig.capacity_depths_markdown(_two_widths())
    assert "width $d = 16$: 200: 0, 400: 1, 600: 1, 800: 2" in text
    assert "the smallest depth reaches 2 blocks at N = 800" in text
    assert "no tried depth (up to 4 blocks) memorizes N = 400, 600, 800" in text
    assert "per $N$ (one seed; none:" in text  # a one-seed run is no mean over seeds
    two_seeds = pd.concat([_two_widths(), _two_widths().assign(seed=1)])
    assert "per $N$ (mean over seeds; none:" in ksfig.capacity_depths_markdown(two_seeds)
    one = _two_widths().assign(accuracy=lambda t: t["accuracy"].where(t["blocks"] < 1, 1.0))
    assert "one block or fewer memorizes every N" in ksfig.capacity_depths_markdown(
        one[one["d"] == 16])
    cells = _cells()
    assert "already memorizes every size" not in cells["5a3f2d40"]
    assert "capacity_depths_markdown" in cells["bd1026f8"]


def test_capacity_caption_caps_each_width_and_an_undecided_exponent():
    table = _two_widths()
    table = table[table["d"] == 16]
    fig, caption = ksfig.capacity_figure(pd.concat([table, table.assign(d=8)]), None, "quick")
    plt.close(fig)
    assert "width d = 16: reproduced" not in caption and "width d = 16: trend" in caption
    assert "not decided" in caption


def test_seq_len_caption_names_deeper_models_that_memorize_less():
    table = pd.DataFrame([{"n": n, "seed": 0, "blocks": b,
                           "accuracy": 0.985 if (n, b) == (4, 4) else 1.0 if b >= 1 else 0.8}
                          for n in (2, 4, 8) for b in (0, 1, 2, 4)])
    fig, caption = ksfig.capacity_figure(table, None, "quick", by="n")
    plt.close(fig)
    assert "1 tried depth memorized less than a shallower one (n = 4, 4 blocks: 0.985)" in caption


def test_table1_shows_the_built_count_where_the_sweep_has_the_size():
    sweep = pd.DataFrame([{"sweep": "N", "task": t, "N": 10_000, "n": 8, "seed": 0,
                           "num_parameters": v}
                          for t, v in (("next_token", 123_456), ("seq2seq", 234_567))])
    built = ksfig.table1(construction=sweep).set_index("row")
    assert built.loc["Thm 4.1 our construction", "value"] == 123_456
    assert built.loc["Cor. 4.1 our construction", "count"] == "built (ours)"
    model = ksfig.table1(construction=sweep.assign(N=5000)).set_index("row")
    assert model.loc["Thm 4.1 our construction", "count"] == "closed-form model (ours)"
    assert model.loc["Thm 4.1 our construction", "value"] == \
        bounds.kajitsuka_construction_parameter_model(10_000, 8, 2, 1000)
    assert "exact (ours)" not in set(model["count"])
    # necessity for seq-to-seq is its own row, not Corollary 4.1's
    assert set(built.loc[["seq-to-seq lower bound, smallest W"], "work"]) == {
        paper.S2S_LOWER_ROW}


def test_closed_form_gap_is_measured_on_the_sweep():
    sweep = pd.DataFrame([{"sweep": "N", "task": "next_token", "N": N, "n": 8, "C": 2,
                           "V": 1000, "seed": 0,
                           "num_parameters": bounds.kajitsuka_construction_parameter_model(
                               N, 8, 2, 1000) * f}
                          for N, f in ((100, 1.0), (1000, 0.8))])
    text = ksfig.closed_form_gap(sweep)
    assert "within 25.0 % of each of the 2 built networks" in text and "$N$ = 1,000" in text
    # "within" rounds up: a gap of 1.004 % is not "within 1.0 %" (review finding)
    assert prose.percent_up(0.01004) == "1.1 %" and prose.percent_up(0.01) == "1.0 %"
    assert "few per cent" not in _cells()["7195b4c2"]


def test_markdown_table_keeps_the_tags_at_the_end_of_long_cells():
    text = ksfig.markdown_table(paper.published_settings())
    assert text.count("[reconstruction]") >= 4 and "ICLR numbering" in text
    printed = ksfig.markdown_table(ksfig.table1_printed())
    madden = next(line for line in printed.splitlines() if "Madden" in line)
    assert "[unverified]" in madden
    assert "or softmax" not in printed


def test_curves_caption_calls_the_trend_ours():
    fig, caption = ksfig.curves_figure(_curves({0: 0.3, 1: 0.01, 4: 0.001}), None, "IMDb",
                                       "Figs. 4 and 5", "quick")
    plt.close(fig)
    assert "is our expectation *[unverified]*" in caption
    assert "only the expected trend" not in caption


def test_lower_bound_paragraph_says_what_the_counts_show():
    text = ksfig.lower_bound_markdown()
    assert "so it is not piecewise constant along the line" in text
    assert "not piecewise polynomial either (its exponential) is known, not measured" in text
    assert "softmax is not piecewise polynomial." not in text


def test_coverage_lists_complete_partial_and_missing_full_runs(tmp_path):
    import json

    full = tmp_path / "full"
    full.mkdir()
    for name, prov in (("kajitsuka.mnli_curves", {"complete": True}),
                       ("kajitsuka.imdb_curves", {"complete": False, "points_done": 10,
                                                  "missing_points": [{"blocks": 20, "seed": 0}]})):
        (full / f"{name}.csv").write_text("blocks,seed\n1,0\n10,0\n1,1\n10,1\n")
        (full / f"{name}.json").write_text(json.dumps(
            {**prov, "device": "cuda:0", "device_name": "NVIDIA H100 80GB HBM3",
             "params": {"blocks": [1, 10, 20]}}))
    text = ksfig.coverage_markdown(tmp_path)
    mnli = next(line for line in text.splitlines() if line.startswith("- Figs. 1 and 2"))
    assert mnli.startswith("- Figs. 1 and 2 (MultiNLI): complete")
    assert mnli.endswith("; computed on GPU: NVIDIA H100 80GB HBM3")
    assert "- Figs. 4 and 5 (IMDb): partial: 10 of 11 points ran" in text
    # a partial run says which points ran, read from its table (review finding)
    assert "  - the points that ran: blocks ∈ {1, 10}; seed ∈ {0, 1}" in text
    assert text.count("the points that ran") == 1  # the complete run needs no such line
    assert "- Fig. 7 (capacity against N): none committed" in text
    assert "coverage_markdown" in _cells()["db0244dd"]


def test_chapter_prose_attributes_necessity_and_tags_remark_44():
    cells = _cells()
    sec1 = cells["bc82d6c9"]
    assert "every token, and $\\Omega(\\sqrt{nN})$ are necessary" not in sec1
    assert "A further theorem of the paper (its number is not in our sources)" in sec1
    assert "or softmax, and" not in sec1
    assert "*[unverified]*" in cells["3811775d"]
    assert "[reconstruction]" in cells["fa5fb9f4"] and "[reconstruction]" in cells["e6ac1be3"]


# --- second audit of the rendered chapter (trust audit)
def test_float64_sentence_sets_the_accuracy_beside_the_most_common_label():
    """A float64 network that outputs one constant label is said to, with that label's share
    beside the most common label's (not 1/C: a constant answer gets its label's share)."""
    import numpy as np

    report = {"prime_bits": 24, "prime_squared_bits": 47, "float64_accuracy": 0.25,
              "ffn1_exact": True, "ffn1_max_weight_bits": 47, "ffn1_max_value_bits": 47,
              "ffn1_max_product_bits": 50, "ffn2_exact": True, "ffn2_max_weight_bits": 40,
              "ffn2_max_value_bits": 10, "ffn2_max_product_bits": 50}
    labels = np.array([0] * 5 + [1] * 7 + [2] * 8)
    constant = ksfig.float64_markdown(report, labels=labels, predictions=np.zeros(20, int))
    assert ("outputs one constant label, 0, for all 20 sequences: it gets 25.0% of the labels "
            "right, the share of label 0 in the data (25.0%; the most common label, 2, has a "
            "share of 40.0%)") in constant
    assert "guessing" not in constant
    top = ksfig.float64_markdown(report, labels=labels, predictions=np.full(20, 2))
    assert "one constant label, 2" in top and "it is the most common label" in top
    mixed = ksfig.float64_markdown(report, labels=labels, predictions=np.arange(20) % 3)
    assert "constant" not in mixed
    assert "gets at most that share: the most common label, 2, has a share of 40.0%" in mixed
    tied = ksfig.float64_markdown(report, labels=np.array([0, 0, 1, 1]))
    assert "the most common labels, 0, 1, have a share of 50.0% each" in tied
    assert ksfig.float64_markdown(report).endswith("gets 25.0% of the labels right.")


def test_chapter_float64_network_outputs_one_label_and_the_sentence_says_so():
    """The chapter's network (300 sequences, 4 labels) outputs one constant label in float64:
    the sentence the chapter prints says so, computed (the chapter passes its predictions)."""
    import numpy as np

    from memnb.constructions.seq_id.precision import float64_report

    net, tokens, labels = card.chapter_example()
    predictions = net.predict(tokens, arithmetic="float64")
    text = ksfig.float64_markdown(float64_report(net, tokens), labels=labels,
                                  predictions=predictions)
    assert len(np.unique(predictions)) == 1  # label 0 for all 300 sequences today
    k = int(predictions[0])
    assert f"outputs one constant label, {k}, for all {len(tokens)} sequences" in text
    assert f"({np.mean(labels == k):.1%};" in text
    assert "guessing" not in text
    cell = _cells()["f2585ca3"]
    assert 'float64_predictions = net.predict(data.tokens, arithmetic="float64")' in cell
    assert "predictions=float64_predictions" in cell and "labels=data.labels" in cell


def test_capacity_captions_name_the_data_the_sizes_and_the_ffn_width():
    table = _two_widths().assign(dataset="mnli", d_ff=lambda t: 2 * t["d"])
    fig, caption = ksfig.capacity_figure(table, None, "quick")
    plt.close(fig)
    assert "our `quick` run (MultiNLI; N = 200, 400, 600, 800)" in caption
    assert "$d = 8$ ($d_{ff}$ = 16), $d = 16$ ($d_{ff}$ = 32)" in caption
    byn = pd.DataFrame([{"dataset": "random", "N": 600, "n": n, "d": 16, "d_ff": 32, "seed": 0,
                         "blocks": b, "accuracy": 1.0 if b else 0.9}
                        for n in (2, 8) for b in (0, 1)])
    fig, caption = ksfig.capacity_figure(byn, None, "quick", by="n")
    plt.close(fig)
    assert "random sequences (our choice" in caption and "N = 600; n = 2, 8" in caption


def test_overhead_paragraph_is_ours_and_does_not_claim_differencing_removes_ffn1():
    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    text = ksfig.overhead_markdown(table)
    assert "removes FFN₁'s nearly fixed cost" not in text and "not FFN₁'s growth" in text
    assert "a row of ours" in text


def test_line_paragraph_states_each_count_once_and_table1_has_both_orders():
    text = ksfig.lower_bound_markdown()
    assert "values of $t$)," not in text.split("distinct outputs")[1]
    rows = ksfig.table1().set_index("row")
    assert rows.loc["Cor. 4.1 order √(nN)", "value"] == (8 * 10_000) ** 0.5
    assert rows.loc["Cor. 4.1 order √(nN)", "work"] == paper.COR41_ROW


def test_width_paragraph_states_its_criterion():
    net, T, _, _ = card.transformer_examples()["integer"]
    text = ksfig.transformer_markdown(T, net)
    assert f"Criterion: at most {paper.THM41_WIDTH.value}" in text
    # the total row's count is the depth, which the rows above it sum to only without the
    # embedding and read-out rows (review: 395 read as the sum of a column that sums to 397)
    table = T.block_table()
    blocks = int(table[~table["part"].isin(["E_in", "E_out", "total"])]["count"].sum())
    assert blocks == T.depth
    assert (f"| total |  | {blocks:,} blocks (the depth; E_in and E_out not counted) |"
            in text)


# --- trust review of the rendered chapter (findings 2 and 9 to 13)
def test_settings_table_quotes_the_paper_beside_the_third_party_optimizer():
    t = paper.published_settings().set_index("setting")
    optimizer = t.loc["optimizer"]
    assert "full-batch gradient descent" in optimizer["value"]
    assert "third party" in optimizer["value"] and "Fig. 7 caption" in optimizer["source"]
    assert "not the paper's words), which we follow" in optimizer["used here"]
    assert "acmrep" in optimizer["used here"]
    length = t.loc["sequence length n, stated for Fig. 7"]
    assert "curves (`full`) [reconstruction]" in length["used here"]
    assert "paper.published_settings()" in _cells()["c2734733"]


def test_table1_keeps_the_printed_cell_apart_from_where_the_bound_is_stated():
    t = ksfig.table1_printed().set_index("work")
    assert "printed" not in t.columns
    for row in (paper.THM41_ROW, paper.THM42_ROW, paper.COR41_ROW, paper.S2S_LOWER_ROW):
        assert t.loc[row, ksfig.TABLE1_CELL].startswith("no")
    assert "abstract" in t.loc[paper.THM42_ROW, ksfig.TABLE1_STATED]
    assert "[unverified]" in t.loc["Madden, Fox & Thrampoulidis (2024)", ksfig.TABLE1_STATED]
    assert r"$\omega$ is the vocabulary size" in ksfig.table1_markdown()


def test_construction_figure_draws_the_quantity_fitted_against_n_and_labels_its_ticks():
    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    fig, caption = ksfig.construction_figure(table, None, "quick")
    right = fig.axes[1]
    labels = [line.get_label() for line in right.get_lines()]
    fitted = next(line for line in right.get_lines() if "fitted quantity" in line.get_label())
    s2n = card._sweep(table, "n", "seq2seq")
    assert list(fitted.get_ydata()) == list(card._log_free(s2n, "ffn2_parameters"))
    assert any("∝ √n" in label for label in labels)
    fig.canvas.draw()
    low, high = right.get_ylim()
    shown = [t for t in right.get_yticks() if low <= t <= high]
    plt.close(fig)
    assert len(shown) >= 4  # not a single labelled decade
    assert "the exponent is fitted on the dashed line" in caption


def test_curves_caption_names_a_late_divergence_once_and_the_chapter_says_what_is_read():
    table = pd.concat([_curves({1: 0.05, 10: 0.01}).assign(seed=s) for s in (0, 1)])
    late = table[(table["blocks"] == 10) & (table["seed"] == 0)].assign(
        epoch=20, loss=0.9, accuracy=0.7)
    fig, caption = ksfig.curves_figure(table, pd.concat([table, late]), "MultiNLI",
                                       "Figs. 1 and 2", "quick")
    plt.close(fig)
    assert caption.count("diverges late") == 1
    assert "10 blocks, seed 0: 1 at epoch 10 to 0.7 at epoch 20" in caption
    assert caption.count("read instead at each run's lowest-loss epoch") == 2
    cells = _cells()
    assert "What the verdicts read." in cells["fa5fb9f4"]
    assert "full-batch gradient descent" in cells["fa5fb9f4"]
    assert "ICLR version's Fig. 2 caption" in cells["3af1dbcd"]
    assert r"$z(x) = \lfloor v^\top x/\gamma + o\rfloor$, where the step $\gamma$" in cells[
        "a1e82efb"] and "the offset $o$" in cells["a1e82efb"]


def test_the_chapter_transformer_check_is_a_demonstration_beside_the_row_verdict():
    """The chapter's check on its own sequences carries no status; the status printed is the
    *Theorem 4.1 (as a Transformer)* row's, on the row's own examples."""
    net, T, X, y = card.transformer_examples()["integer"]
    text = ksfig.transformer_markdown(T, net, X[:10], y[:10])
    head = text.split("\n\n")[0]
    row = card.thm41_transformer_verdict()
    assert head.startswith("On these 10 sequences (a demonstration of ours, not the evidence")
    assert head.count("Verdict") == 1
    assert f"**Verdict: {row.status}** ({row.measured})" in head
    assert head.index("all 10 labels exact") < head.index("**Verdict")


def test_random_data_caption_says_its_figures_are_not_in_our_sources():
    table = _curves({0: 0.3, 1: 0.01, 4: 0.001})
    fig, caption = ksfig.curves_figure(table.assign(dataset="random"), None, "random sequences",
                                       "the ICLR version's random-data figures", "quick")
    plt.close(fig)
    assert ("(the ICLR version's random-data figures of the paper; they are not in our sources "
            "(neither their caption nor their values): the trend tested") in caption
    assert "only their captions" not in caption
    fig, caption = ksfig.curves_figure(table.assign(dataset="mnli"), None, "MultiNLI",
                                       "Figs. 1 and 2", "quick")
    plt.close(fig)
    # the figures are not in our sources (only their captions are): nothing says their values
    # were looked at and could not be read
    assert ("(Figs. 1 and 2 of the paper; the figures themselves are not in our sources, only "
            "their captions, which name only what is plotted and give no values or trend: the "
            "trend tested") in caption
    assert "readable" not in caption


def test_construction_figure_names_the_dashed_quantity_and_shows_its_dashes():
    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    fig, _ = ksfig.construction_figure(table, None, "quick")
    right = fig.axes[1]
    assert "FFN₂ / √(L+3)" in right.get_ylabel()
    legend = right.get_legend()
    assert legend.handlelength >= 3  # long enough to show the dashes of the fitted quantity
    plt.close(fig)


def test_capacity_figure_draws_two_widths_apart_so_equal_values_both_show():
    table = _two_widths()
    fig, caption = ksfig.capacity_figure(table, None, "quick")
    left = fig.axes[0]
    means = [line for line in left.get_lines() if "width d" in str(line.get_label())]
    xs = [list(line.get_xdata()) for line in means]
    plt.close(fig)
    assert len(means) == 2 and all(a != b for a, b in zip(*xs, strict=True))
    assert "drawn slightly apart" in caption


def test_capacity_figure_keeps_square_markers_for_committed_full_runs():
    """Widths are told apart by markers, none of them the square the book gives a committed
    full-scale run."""
    fresh = pd.DataFrame([{"N": N, "d": d, "seed": 0, "blocks": b,
                           "accuracy": 1.0 if b >= (N > 200) else 0.9}
                          for d in (8, 16) for N in (200, 400) for b in (0, 1, 2)])
    fig, _ = ksfig.capacity_figure(fresh, None, "quick")
    markers = {line.get_marker() for ax in fig.axes for line in ax.get_lines()}
    # the markers of each width's lines, read from their labels ("width d = 8 (one seed)",
    # "N = 400, d = 16")
    by_width: dict[str, set[str]] = {}
    for ax in fig.axes:
        for line in ax.get_lines():
            for width in re.findall(r"\bd = (\d+)\b", str(line.get_label())):
                by_width.setdefault(width, set()).add(line.get_marker())
    plt.close(fig)
    assert "o" in markers and "s" not in markers
    assert set(by_width) == {"8", "16"}
    assert all(len(m) == 1 for m in by_width.values()), by_width  # one marker per width
    assert by_width["8"].isdisjoint(by_width["16"]), by_width  # the two widths differ


def test_bits_caption_names_the_run_it_reads():
    from memnb.paths import repo_root

    table = pd.read_csv(repo_root() / "data" / "results" / "full" / "kajitsuka.construction.csv")
    fig, own = ksfig.bits_figure(table)
    plt.close(fig)
    fig, full = ksfig.bits_figure(table.head(0), table)
    plt.close(fig)
    assert "In this build's run the largest weight has" in own
    assert "In the committed full-scale run the largest weight has" in full


def test_the_bounds_sliders_have_a_caption_that_says_they_are_ours_and_untrained():
    """Sec. 5's sliders draw closed forms with no paper counterpart: their caption says so and
    names the settings bound_curves draws them at (read from it, not typed twice)."""
    import inspect

    text = ksfig.bounds_slider_caption("$N$ at $n = 8$")
    assert text.startswith("**Figure (ours; no paper counterpart).**")
    assert "nothing trained" in text and "the slider moving $N$ at $n = 8$" in text
    given = inspect.signature(ksfig.bound_curves).parameters
    assert f"$C = {given['C'].default}$" in text and f"$d = {given['d'].default}$" in text
    cells = "".join(_cells().values())
    assert cells.count("ksfig.bounds_slider_caption(") == 2
    assert "The curves are the same in every frame; the marker and the legend's values move " \
           "to the chosen $N$." in text


def test_the_n_slider_caption_says_each_frame_redraws_the_curves_for_its_n():
    """Review of the sliders: over n, every frame redraws the curves; the caption says so and
    names, computed from the curves, which change with n and which do not."""
    text = ksfig.bounds_slider_caption("$n$ at $N = 10{,}000$", [2, 8, 512])
    assert "Each frame redraws the curves for its $n$: “construction, next-token (ours)”" in text
    assert "“Kim et al. d+n+√(nN)”" in text.split(" change with $n$")[0]
    assert "“naive N”" in text.split(" change with $n$; ")[1].split(" do not.")[0]
    assert "the marker and the legend's values move" not in text
    # one n: nothing changes, and the caption does not say that something does
    one = ksfig.bounds_slider_caption("$n$", [8])
    assert "No curve changes with $n$ over these frames" in one and "redraws" not in one
    cells = _cells()
    (cell,) = [c for c in cells.values() if "slider_ns" in c and "bounds_slider_caption" in c]
    assert "ns=slider_ns" in cell or ", slider_ns)" in cell


def test_bits_caption_names_the_lowest_ratio_when_it_is_not_monotone():
    """The ratio to the floor of the committed sweep bottoms out before the largest N: the
    caption names the lowest value and where it is, computed; "falls from X to Y" is said only
    of a ratio that never rises."""
    import numpy as np

    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    N, ratio = card.floor_ratios(table)
    low = int(np.argmin(ratio))
    assert 0 < low < len(ratio) - 1 and ratio[-1] > ratio[low]  # the committed data
    fig, caption = ksfig.bits_figure(table, table)
    plt.close(fig)
    words = (f"falls from {ksfig._ratio_number(ratio[0])} at $N = {int(N[0])}$ to its lowest, "
             f"{ksfig._ratio_number(ratio[low])} at $N = {int(N[low])}$, then rises to "
             f"{ksfig._ratio_number(ratio[-1])} at $N = {int(N[-1])}$")
    assert words in caption and "over the sweep;" not in caption
    xs = np.array([1.0, 2.0, 3.0, 4.0])
    assert ksfig._ratio_words(xs, np.array([5.0, 4, 3, 2])) == (
        "The ratio to the floor falls from 5 at $N = 1$ to 2 at $N = 4$.")
    assert "does not fall: it rises" in ksfig._ratio_words(xs, np.array([2.0, 3, 4, 5]))
    bumpy = ksfig._ratio_words(xs, np.array([5.0, 6, 3, 2]))
    assert "to its lowest, 2 at $N = 4$" in bumpy
    assert "it rises from 5 at $N = 1$ to 6 at $N = 2$" in bumpy


def test_capacity_marks_an_unmemorized_size_at_the_top_edge_with_a_legend_entry():
    """A size that no tried depth memorized is an arrow in the width's colour at the panel's top
    edge, above the deepest tried depth (not a full-height line through other markers), named in
    the legend only when one is drawn; the dashed accuracy 1 on the right has its entry."""
    def drawn(memorized_at_8: bool) -> tuple[str, list, list[str], tuple, list[str]]:
        table = pd.DataFrame([{"dataset": "random", "N": 600, "n": n, "d": 16, "d_ff": 32,
                               "seed": 0, "blocks": b,
                               "accuracy": 1.0 if b and (n == 2 or memorized_at_8) else 0.9}
                              for n in (2, 8) for b in (0, 1)])
        fig, _ = ksfig.capacity_figure(table, None, "quick", by="n")
        left, right = fig.axes
        fig.canvas.draw()
        dotted = [line for line in left.get_lines() if line.get_linestyle() == ":"]
        assert not dotted  # no vertical lines any more
        arrows = [line for line in left.get_lines() if line.get_marker() == ksfig._NONE_MARKER]
        texts = [t.get_text() for t in left.get_legend().get_texts()]
        shown = (left.get_title(), arrows, texts, left.get_ylim(),
                 [t.get_text() for t in right.get_legend().get_texts()])
        ticks = [t for t in left.get_yticks() if left.get_ylim()[0] <= t <= left.get_ylim()[1]]
        plt.close(fig)
        assert max(ticks) <= 1  # no depth tick above the deepest tried
        return shown

    title, arrows, texts, ylim, right = drawn(True)
    assert title == "capacity" and not arrows and ylim[1] == 1.3
    assert not any(ksfig.NO_DEPTH_MEMORIZED in t for t in texts)
    assert ksfig.MEMORIZED_LINE in right
    title, arrows, texts, ylim, right = drawn(False)
    assert title == "capacity" and len(arrows) == 1
    assert list(arrows[0].get_xdata()) == [8]  # at the size no depth memorized
    assert list(arrows[0].get_ydata()) == [ksfig._NONE_ROW]  # a height in axes fractions
    assert ylim[1] > 1.3  # room above the deepest tried depth (1 block) for the arrows
    entry = [t for t in texts if t.startswith(ksfig.NO_DEPTH_MEMORIZED)]
    assert entry == [f"{ksfig.NO_DEPTH_MEMORIZED} (arrow at the top edge, above the deepest "
                     "tried, 1 block; colour: width)"]
    assert ksfig.MEMORIZED_LINE in right


def test_construction_and_bits_figures_draw_unevaluated_constructions_hollow():
    """Rows with ``verify`` False (built and counted, not evaluated exactly) have hollow markers
    and a legend entry; the captions name them, computed from the table."""
    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    nt = card._sweep(table, "N", "next_token")
    unchecked = [int(x) for x in nt.loc[~nt["verify"].astype(bool), "N"]]
    assert unchecked and len(unchecked) < len(nt)  # the committed sweep has both kinds
    fig, caption = ksfig.construction_figure(table, None, "quick")
    left, right = fig.axes

    def hollow(ax):
        return [line for line in ax.get_lines() if line.get_marker() not in ("None", "", None)
                and line.get_markerfacecolor() == "white"]

    total = next(line for line in left.get_lines()
                 if line.get_label() == "next-token, all parameters")
    assert total.get_markerfacecolor() != "white"  # evaluated points stay filled
    over = [line for line in hollow(left) if line.get_color() == total.get_color()]
    assert [int(x) for x in over[0].get_xdata()] == unchecked
    s2 = next(line for line in left.get_lines()
              if line.get_label() == "seq-to-seq, all parameters")
    assert s2.get_markerfacecolor() == "white"  # not one seq-to-seq point evaluated
    assert all(line.get_markerfacecolor() == "white" for line in right.get_lines()
               if line.get_marker() not in ("None", "", None))
    for ax in (left, right):
        assert ksfig.NOT_EVALUATED in [t.get_text() for t in ax.get_legend().get_texts()]
    assert "log scale" in right.get_xlabel() and "log scale" in right.get_ylabel()
    plt.close(fig)
    assert ksfig.not_evaluated_words(table) in caption
    assert ("next-token against $N$ at $N$ = " + ", ".join(map(str, unchecked))
            in caption)
    assert "seq-to-seq against $N$, every point" in caption
    fig, bits = ksfig.bits_figure(table, table)
    assert all(ksfig.NOT_EVALUATED in [t.get_text() for t in ax.get_legend().get_texts()]
               for ax in fig.axes)
    plt.close(fig)
    assert f"$N$ = {', '.join(map(str, unchecked))})" in bits
    # every point evaluated: nothing hollow, no entry, no sentence
    checked = table.assign(verify=True)
    fig, caption = ksfig.construction_figure(checked, None, "quick")
    assert not any(hollow(ax) for ax in fig.axes)
    assert all(ksfig.NOT_EVALUATED not in [t.get_text() for t in ax.get_legend().get_texts()]
               for ax in fig.axes)
    plt.close(fig)
    assert "Hollow markers" not in caption and ksfig.not_evaluated_words(checked) == ""
    fig, bits = ksfig.bits_figure(checked)
    plt.close(fig)
    assert "hollow markers" not in bits


def test_curves_caption_says_which_markers_are_which_run():
    """The circles (this build's run) and squares (the full-scale run) are named with each
    run's N, epochs, seeds and depths, read from the tables; the verdicts read the squares."""
    quick = _curves({0: 0.3, 1: 0.01, 4: 0.001}).assign(N=300, epochs=200)
    full = pd.concat([_curves({1: 0.01, 10: 0.02}).assign(N=3000, seed=s, epochs=1000)
                      for s in range(5)])
    assert ksfig.run_words(quick) == "N = 300, 200 epochs, 1 seed; blocks 0, 1, 4"
    assert ksfig.run_words(full) == "N = 3000, 1000 epochs, 5 seeds; blocks 1, 10"
    assert ksfig.run_words(quick.drop(columns="epochs")).startswith("N = 300, 10 epochs")
    fig, caption = ksfig.curves_figure(quick, full, "MultiNLI", "Figs. 1 and 2", "quick")
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    plt.close(fig)
    lead = caption.split("<!-- details -->")[0]
    assert ("Circles: this build's `quick` run (N = 300, 200 epochs, 1 seed; blocks 0, 1, 4), "
            "drawn for its shape only; squares: the committed full-scale run (N = 3000, 1000 "
            "epochs, 5 seeds; blocks 1, 10), which the verdicts read") in lead
    assert "blocks=4 (ours, quick run)" in labels
    assert any(t.startswith("blocks=10 (ours, committed full run") for t in labels)
    fig, caption = ksfig.curves_figure(quick, None, "MultiNLI", "Figs. 1 and 2", "quick")
    plt.close(fig)
    assert ("Circles: this build's `quick` run (N = 300, 200 epochs, 1 seed; blocks 0, 1, 4), "
            "which the verdicts read.") in caption and "squares" not in caption


def test_the_bits_caption_says_a_flat_ratio_stays():
    """A ratio that does not move, or a sweep of one size, is not said to fall."""
    import numpy as np

    from memnb.figures.kajitsuka import _ratio_words

    flat = _ratio_words(np.array([100.0, 200.0]), np.array([3.0, 3.0]))
    assert "stays at" in flat and "falls" not in flat
    one = _ratio_words(np.array([100.0]), np.array([3.0]))
    assert "only size" in one and "falls" not in one


# --- review of the chapter's trial search, quotes and labels (findings 1 to 9)
def test_trial_config_is_the_config_the_search_trains_with(monkeypatch):
    """:func:`ksfig.trial_config` reads the optimizer and schedule from the code; they are the
    ones a trial of :func:`memnb.experiments.kajitsuka._optuna_stack` trains with."""
    import pytest
    import torch

    from memnb.experiments import kajitsuka as exp

    class Stop(Exception):
        pass

    seen = {}

    def capture(members, x, y, config, **kwargs):
        seen["config"], seen["lr"] = config, kwargs["member_lr"]
        raise Stop

    monkeypatch.setattr(exp, "train_members", capture)
    point = {"trials": 1, "data_seed": 0, "epochs": 2, "eval_every": 1, "early_stop": False,
             "dataset": "random", "N": 2, "n": 2}
    with pytest.raises(Stop):
        exp._optuna_stack([point], [object()], torch.zeros(1), torch.zeros(1), device="cpu",
                          progress=False)
    literals = ksfig.trial_config()
    assert {"optimizer", "schedule"} <= set(literals)
    for key, value in literals.items():
        assert getattr(seen["config"], key) == value
    assert seen["lr"] == [exp.DEFAULT_TRIAL["lr"]]  # one trial: the default point only


def test_training_settings_are_read_from_the_code_and_marked_ours():
    from memnb.experiments import kajitsuka as exp
    from memnb.experiments.registry import load_all

    t = ksfig.training_settings().set_index("setting")
    value = t["value (from the code)"]
    (lo, hi), (wlo, whi) = exp.SEARCH["lr"], exp.SEARCH["weight_decay"]
    assert value["learning rate searched"] == f"log-uniform in [{lo:g}, {hi:g}]"
    assert value["weight decay searched"] == f"uniform in [{wlo:g}, {whi:g}]"
    assert (f"learning rate {exp.DEFAULT_TRIAL['lr']:g}, weight decay "
            f"{exp.DEFAULT_TRIAL['weight_decay']:g}") in value["trial 0 of every study"]
    assert value["optimizer"].startswith("AdamW") and value["learning-rate schedule"] == "constant"
    trials = load_all()["kajitsuka.mnli_curves"].params("full")["trials"]
    assert f"`full`: {trials}" in value["trials per study (one study per #blocks)"]
    assert "trains trial 0 only: no search" in value["trials per study (one study per #blocks)"]
    assert f"first {exp.STARTUP_TRIALS} trials at random" in value["the other trials"]
    assert card.TRIAL_SELECTION in value["trial kept per point"]
    paper_says = t["the paper"]
    assert all("ours" in paper_says[k] for k in ("learning-rate schedule", "learning rate searched",
                                                 "trial 0 of every study", "study objective"))
    assert "full-batch gradient descent" in paper_says["optimizer"]
    cells = _cells()
    assert "ksfig.training_settings()" in cells["c2734733"]
    sec6 = cells["fa5fb9f4"]
    assert "random search of ten points" not in sec6 and "draw the ten trials" not in sec6
    assert "fixed default point" in sec6 and "constant learning rate" in sec6
    assert ("each point keeps, of\nits trials, the one with the highest training accuracy at "
            "its lowest-loss checkpoint (ties: lower\nloss, then the earlier trial; ours)") in sec6
    assert "judge that trial's final epoch" in sec6


def test_the_settings_table_reads_the_batch_from_the_trials_config(monkeypatch):
    """"full batch" is read from the trials' TrainConfig (its default ``batch_size=None``), so a
    call that set a batch size would show it."""
    assert ksfig.training_settings().set_index("setting").loc[
        "optimizer", "value (from the code)"] == "AdamW, full batch"
    monkeypatch.setattr(ksfig, "trial_config", lambda: {"optimizer": "adamw",
                                                         "schedule": "constant",
                                                         "batch_size": 64})
    assert ksfig.training_settings().set_index("setting").loc[
        "optimizer", "value (from the code)"] == "AdamW, mini-batches of 64"


def test_capacity_panel_reads_the_checkpoint_accuracy_not_the_final_one():
    fig, caption = ksfig.capacity_figure(_two_widths(), None, "quick")
    label = fig.axes[1].get_ylabel()
    plt.close(fig)
    assert label == ksfig.CAPACITY_ACCURACY_LABEL and "final" not in label
    assert "lowest-loss checkpoint" in label.replace("\n", " ")
    assert "read at the lowest-loss checkpoint, not at the last epoch" in caption
    assert "whose kept trial reaches" in _cells()["5a3f2d40"]


def test_quotes_of_the_abstract_and_theorem_are_marked():
    cells = _cells()
    intro, sec1, sec2 = cells["a4d6c72b"], cells["bc82d6c9"], cells["a1e82efb"]
    for cell in (intro, sec2):
        assert "becomes a\nbottleneck when associating a label to each token" in cell or \
            "becomes a bottleneck when associating a label to each token" in \
            cell.replace("\n", " ")
        assert "our reading" in cell
    assert "the feed-forward network is the bottleneck (the abstract)" not in sec2
    assert "our sources name the FFN as the bottleneck" not in intro
    # Theorem 4.1's formula is stripped in the seed: the notes' reconstruction, marked
    assert "is our notes' reconstruction of it, *[reconstruction]*" in sec1
    assert "reconstruction" in card.THM41_UNCAPPED and "own text" not in card.THM41_UNCAPPED
    # Theorem 4.2's content is [unverified] where the intro calls the statements the paper's
    assert "of Thm 4.2 only its title and the abstract's" in " ".join(intro.split())


def _drawn_counts(ax) -> dict[str, tuple[str, str, str]]:
    """The label, colour, marker and face of each labelled line of ``ax`` with markers."""
    from matplotlib.colors import to_hex

    return {line.get_label(): (to_hex(line.get_color()), line.get_marker(),
                               str(line.get_markerfacecolor()))
            for line in ax.get_lines() if not line.get_label().startswith("_")
            and line.get_marker() not in ("None", "", None)}


def test_construction_counts_are_drawn_without_the_papers_marker_one_colour_per_quantity():
    """Our counts are no hollow diamonds (the book's marker for values read off a paper) and
    never the paper's vermillion; each quantity has one colour and marker in both panels of
    the construction figure and in the lower-bound figure, whose constructions not evaluated
    exactly are hollow as in the construction figure."""
    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    fig, _ = ksfig.construction_figure(table, None, "quick")
    left, right = (_drawn_counts(ax) for ax in fig.axes)
    plt.close(fig)
    fig, lower = ksfig.lower_bound_figure(table)
    ax = fig.axes[0]
    bound = _drawn_counts(ax)
    hollow = sorted(int(x) for line in ax.get_lines() if line.get_label().startswith("_")
                    and line.get_markerfacecolor() == "white" for x in line.get_xdata())
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(fig)
    paper_colour = viz.PALETTE["paper"].lower()
    for drawn in (left, right, bound):
        assert all(marker not in ("d", "D") for _, marker, _ in drawn.values())
        assert all(colour != paper_colour for colour, _, _ in drawn.values())
    for name in ("next-token, all parameters", "seq-to-seq, all parameters"):
        assert left[name][:2] == right[name][:2]  # one colour and marker in both panels
    assert bound["our construction, next-token"][:2] == left["next-token, all parameters"][:2]
    seq = next(v for k, v in bound.items() if k.startswith("our construction, seq-to-seq"))
    assert seq[:2] == left["seq-to-seq, all parameters"][:2]
    assert seq[2] == "white"  # no seq-to-seq point of the committed sweep is evaluated
    nt = card._sweep(table, "N", "next_token")
    assert hollow == sorted(int(x) for x in nt.loc[~ksfig.evaluated(nt), "N"])
    assert ksfig.NOT_EVALUATED in texts
    assert ksfig.not_evaluated_words(table[table["sweep"] == "N"]) in lower
    assert "against $n$" not in lower  # the figure draws the sweep over N only


def test_accuracy_axis_shows_whole_markers_at_one_and_no_tick_above_it():
    """The accuracy panel reaches above 1 by :data:`ACCURACY_TOP` so that a marker at 100 %
    is drawn whole, and labels no tick above 1, for a wide and a narrow range of accuracies."""
    for low in (0.5, 0.995):
        table = _curves({0: 0.3, 1: 0.01}).assign(
            accuracy=lambda t, low=low: low + (1 - low) * (t["epoch"] > 0))
        fig, _ = ksfig.curves_figure(table, None, "IMDb", "Figs. 4 and 5", "quick")
        acc = fig.axes[1]
        bottom, top = acc.get_ylim()
        ticks = list(acc.get_yticks())
        plt.close(fig)
        assert top == ksfig.ACCURACY_TOP > 1.01
        assert ticks and max(ticks) <= 1.0 and min(ticks) >= bottom
        assert len(ticks) >= 2


def test_curves_caption_names_the_model_from_the_table():
    """The visible caption gives the trained model's width, FFN width, heads and parameter
    counts from the table's own columns, flagged as our reconstruction."""
    curves = _curves({1: 0.3, 4: 0.01}).assign(d=12, d_ff=24, num_heads=3)
    curves["params"] = curves["blocks"].map({1: 1234, 4: 5678})
    fig, caption = ksfig.curves_figure(curves, None, "IMDb", "Figs. 4 and 5", "quick")
    plt.close(fig)
    visible = caption.split("<details")[0]
    assert "width $d = 12$, FFN width $d_{ff} = 24$, 3 heads" in visible
    assert "1,234 parameters at 1 block to 5,678 at 4 blocks" in visible
    assert "*[reconstruction]*" in visible
    assert ksfig.model_words(_curves({1: 0.3})) == ""  # columns absent: nothing claimed


def _contrast_on_white(color: str) -> float:
    """The WCAG contrast ratio of ``color`` against white."""
    from matplotlib.colors import to_rgb

    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(color)]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return 1.05 / (luminance + 0.05)


def test_the_frames_of_each_bounds_slider_share_their_y_limits():
    """Review of the sliders: the frames of one slider of bounds_figure share one y-axis, read
    from every frame's curves (bounds_ylim), so that heights compare across frames; each frame's
    own limits lie within it, and the chapter passes it to both sliders."""
    ns, Ns = [2, 8, 32, 128, 512], [100, 10_000, 100_000]
    for ylim, frames in ((ksfig.bounds_ylim([10_000], ns), [(10_000, n) for n in ns]),
                         (ksfig.bounds_ylim(Ns, [8]), [(N, 8) for N in Ns])):
        for N, n in frames:
            own = ksfig.bounds_figure(N, n)
            shared = ksfig.bounds_figure(N, n, ylim=ylim)
            low, high = own.axes[0].get_ylim()
            assert shared.axes[0].get_ylim() == ylim
            assert ylim[0] <= low * (1 + 1e-9) and high <= ylim[1] * (1 + 1e-9)
            plt.close(own)
            plt.close(shared)
    # the n = 512 frame reaches highest, the n = 2 frame would fit a lower top on its own
    top = ksfig.bounds_figure(10_000, 2).axes[0].get_ylim()[1]
    plt.close("all")
    assert top < ksfig.bounds_ylim([10_000], ns)[1]
    cells = "".join(_cells().values())
    assert cells.count("ksfig.bounds_ylim(") == 2 and cells.count(", ylim=ylim_") == 2


def test_the_bounds_slider_draws_its_vc_bound_in_a_colour_readable_on_white():
    """Review of the sliders: the smallest W of the VC bound was drawn in the Okabe-Ito yellow
    (contrast about 1.3:1 on white, a thin dashed line); it now has at least 3:1."""
    fig = ksfig.bounds_figure(10_000, 8)
    colors = {ln.get_label().split(":")[0]: ln.get_color() for ln in fig.axes[0].get_lines()}
    plt.close(fig)
    vc = colors["smallest W, VC bound on N points (Thm 4.2; our constants)"]
    assert vc.upper() != "#F0E442" and _contrast_on_white(vc) >= 3
    assert "#F0E442" not in [c.upper() for c in colors.values()]


def test_the_bounds_sliders_name_what_each_holds_fixed():
    """Review of the sliders: each slider's label names the value it holds fixed, from the
    variable its frames use (no number typed in the label)."""
    cells = "".join(_cells().values())
    assert 'f"N (sequences), n = {slider_n}"' in cells
    assert 'f"n (sequence length), N = {slider_N:,}"' in cells
    assert "bounds_figure(slider_N, n, ylim=ylim_n)" in cells


def test_each_curve_verdict_names_its_paper_figure():
    """The loss and accuracy verdicts are two scorecard rows (Figs. 1 and 2, or 4 and 5): each
    verdict of the caption and of its details names its own figure; a figure pair our sources do
    not number names none."""
    assert ksfig.loss_accuracy_figures("Figs. 1 and 2") == ("Fig. 1", "Fig. 2")
    assert ksfig.loss_accuracy_figures("the ICLR version's random-data figures") == (None, None)
    curves = _not_memorized_at_zero(_curves({0: 0.3, 1: 0.01, 4: 0.001}))
    fig, caption = ksfig.curves_figure(curves, None, "MultiNLI", "Figs. 1 and 2", "quick")
    plt.close(fig)
    assert "loss (Fig. 1) **Verdict:" in caption and "accuracy (Fig. 2) **Verdict:" in caption
    assert "Loss (Fig. 1): **Verdict:" in caption and "Accuracy (Fig. 2): **Verdict:" in caption
    fig, caption = ksfig.curves_figure(curves, None, "random sequences",
                                       "the ICLR version's random-data figures", "quick")
    plt.close(fig)
    assert "loss **Verdict:" in caption and "Loss: **Verdict:" in caption


# --- review: Table 1's sources, the model without blocks, the curve verdicts' wording
def test_table1_text_does_not_say_the_theorem_titles_state_bounds():
    """Review 3: the theorem titles (seed 000: "Next-token prediction", "Lower bound",
    "Seq-to-seq prediction") state no bound; the paper's own rows' bounds come from the abstract
    and Theorem 4.1's own text."""
    cell = _cells()["ddcb00df"]
    assert "the theorem titles)" not in cell and "abstract and the theorem titles" not in cell
    assert "from the text of Theorem 4.1" in cell and "state no bound" in cell
    assert prose.hand_typed_numbers(cell) == []
    source = Path(ksfig.__file__).read_text()
    assert "(abstract, theorem titles)" not in source


def test_the_model_without_blocks_names_what_each_run_ran():
    """Review 4: a run whose every point memorizes without blocks (the committed full run:
    N = 600 at d = 16 only) says it is the one N and width it ran, with no empty "at no other N"
    clause; a run with points that do not names them."""
    def table(points: list[tuple[int, int, int, float]]) -> pd.DataFrame:
        return pd.DataFrame([{"d": d, "N": N, "blocks": b, "seed": s, "accuracy": a}
                             for d, N, s, a in points for b in (0, 1)])

    full = table([(16, 600, s, 0.99 if s == 2 else 1.0) for s in range(5)])
    words = ksfig.zero_block_words([("the committed full-scale run", full)])
    assert ("in the committed full-scale run the model memorizes $N$ = 600 at $d = 16$ (4 of 5 "
            "seeds: 0, 1, 3, 4), the one $N$ and width it ran") in words
    assert "at no other" not in words
    quick = table([(d, N, 0, 1.0 if N == 200 else 0.9) for d in (8, 16) for N in (200, 400, 800)])
    words = ksfig.zero_block_words([("this build's run", quick)])
    assert ("the model memorizes $N$ = 200 at $d = 8$ and $d = 16$, and at no other $N$ it ran "
            "($N$ = 400 and 800 at $d = 8$ and $d = 16$)") in words
    both = table([(16, 200, 0, 1.0), (16, 400, 0, 1.0), (8, 200, 0, 1.0)])
    assert ", every $N$ and width it ran" in ksfig.zero_block_words([("a run", both)])
    split = table([(16, 200, 0, 1.0), (8, 200, 0, 0.9), (8, 400, 0, 0.9)])
    assert ("and not at the other points it ran ($N$ = 200 and 400 at $d = 8$)"
            in ksfig.zero_block_words([("a run", split)]))
    never = table([(16, 200, 0, 0.9), (16, 400, 0, 0.9)])
    assert ("memorizes at no $N$ it ran ($N$ = 200 and 400 at $d = 16$)"
            in ksfig.zero_block_words([("a run", never)]))


def test_the_curve_captions_say_a_rise_between_memorizing_depths_decides_nothing():
    """Review 2 in the captions: the seeds sentence and the reading at the lowest-loss
    checkpoints word the loss rule's rises between memorizing depths as deciding nothing."""
    base = _not_memorized_at_zero(_curves({0: 0.3, 1: 0.01, 4: 0.001}))
    ceiling = pd.concat([base.assign(seed=0), _curves({0: 0.3, 1: 0.01, 4: 0.001}).assign(seed=1)])
    words = ksfig.counted_seeds_sentence(ceiling)
    assert "a loss rise between depths that both memorize decides nothing" in words
    assert "is a trend)" not in words
    chapter = _cells()
    explained = [text for text in chapter.values() if "the loss rule reads a loss rise" in text]
    assert explained and all("as deciding nothing" in text for text in explained)
