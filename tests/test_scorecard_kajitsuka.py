"""Scorecard rows of Kajitsuka & Sato: every named item present, verdicts computed both ways."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from memnb.papers import kajitsuka as paper
from memnb.scorecard import build_scorecard, criteria, mahdavi
from memnb.scorecard import kajitsuka as card
from memnb.scorecard.core import status_words


def _construction(exponent: float, width: int = 10, memorized: bool = True) -> pd.DataFrame:
    rows = []
    for N in (100, 300, 1000, 3000, 10000):
        rows.append({"sweep": "N", "task": "next_token", "N": N, "n": 8, "C": 2,
                     "width": width, "depth": 10 * N ** 0.5, "num_parameters": 5000 + N ** 0.5,
                     "ffn1_parameters": 5000,
                     "ffn2_parameters": 50 * N ** exponent * (1 + 0.02 * (-1) ** (N % 7)),
                     "total_weight_bits": 20 * N * math.log2(N) * (1 + 0.03 * (-1) ** (N % 7)),
                     "max_weight_bits": 60,
                     "id_bits": 40, "verify": N <= 300, "memorized": memorized})
    for n in (2, 4, 8, 16, 32):
        rows.append({"sweep": "n", "task": "seq2seq", "N": 200, "n": n, "C": 2, "width": width,
                     "depth": 1, "num_parameters": 1, "ffn1_parameters": 1,
                     "ffn2_parameters": 50 * (200 * n) ** 0.5 * (1 + 0.02 * (-1) ** (n % 3)),
                     "total_weight_bits": 1,
                     "max_weight_bits": 1, "id_bits": 40, "verify": False, "memorized": False})
        rows.append({"sweep": "n", "task": "next_token", "N": 200, "n": n, "C": 2,
                     "width": width, "depth": 1, "num_parameters": 1000 + np.log2(n),
                     "ffn1_parameters": 1, "ffn2_parameters": 1, "total_weight_bits": 1,
                     "max_weight_bits": 1, "id_bits": 40, "verify": False, "memorized": False})
    return pd.DataFrame(rows)


def test_theorem_41_verdict_both_ways():
    assert card.thm41_verdict(_construction(0.5)).status == "reproduced"
    assert card.thm41_verdict(_construction(0.8)).status == "differs"
    # the width compared with 14 is the width row's (convention unverified); this row asks for
    # one width at every N, so a width that grows with N differs and a constant one does not
    assert card.thm41_verdict(_construction(0.5, width=20)).status == "reproduced"
    grows = _construction(0.5)
    grows.loc[grows["sweep"] == "N", "width"] = [10, 11, 12, 13, 14]
    v = card.thm41_verdict(grows)
    assert v.status == "differs" and "width not constant in N (10 to 14)" in v.measured
    assert "width 10 at every N" in card.thm41_verdict(_construction(0.5)).measured
    assert card.thm41_verdict(_construction(0.5, memorized=False)).status == "differs"
    # Õ(√N) is an upper bound: slower growth meets it, and the text says which side it is on
    slow = card.thm41_verdict(_construction(0.3))
    assert slow.status == "reproduced" and "the interval lies below ½" in slow.measured
    assert "the interval lies above ½" in card.thm41_verdict(_construction(0.8)).measured
    # an interval that contains ½ but reaches far above it cannot exclude faster growth
    wide = _construction(0.75)
    on_n = wide["sweep"] == "N"
    wide.loc[on_n, "ffn2_parameters"] *= np.array([1, 2.5, 0.5, 2, 0.6])
    v = card.thm41_verdict(wide)
    assert v.values["low"] <= 0.5 < 0.5 + card.THM41_SLACK < v.values["high"]
    assert v.status == "trend" and v.values["decided"] is False
    assert "not decided: the interval reaches" in v.measured
    # the exactly evaluated constructions counted are the N sweep's only
    other = _construction(0.5)
    other.loc[other["sweep"] == "n", "verify"] = True
    assert "2 of 5 constructions of the N sweep evaluated exactly, all memorize: True" in (
        card.thm41_verdict(other).measured)


def test_theorem_41_divides_out_the_constructions_log_factor():
    """FFN₂ ∝ √(N (L+3)) with L growing in N is Õ(√N): judged on FFN₂/√(L+3), not on FFN₂,
    whose exponent the log factor raises above ½ (reported, not judged)."""
    table = _construction(0.5)
    on_n = table["sweep"] == "N"
    grows = table.loc[on_n, "N"].to_numpy(float) / 5  # L + 3 ∝ N: far above a log
    table.loc[on_n, "id_bits"] = grows - 3
    table.loc[on_n, "ffn2_parameters"] = 50 * np.sqrt(table.loc[on_n, "N"] * grows)
    v = card.thm41_verdict(table)
    assert v.status == "reproduced"  # FFN₂/√(L+3) ∝ √N
    assert v.values["raw_exponent"] == pytest.approx(1.0)  # FFN₂ itself ∝ N: not judged
    assert "for reference, not judged: FFN₂ parameters vs N: exponent 1" in v.measured
    table.loc[on_n, "ffn2_parameters"] = 50 * table.loc[on_n, "N"] * np.sqrt(grows)
    assert card.thm41_verdict(table).status == "differs"  # FFN₂/√(L+3) ∝ N
    assert card.construction_verdicts(_construction(0.5))["seq2seq_n"].status == "reproduced"


def test_bits_verdict_both_ways():
    good = card.bits_verdict(_construction(0.5))
    assert good.status == "reproduced"  # total bits ∝ N log N: a log factor in the marginal
    # Õ(N) is met where the marginal exponent's top is within the slack, and the text says so
    assert "expected 0" not in good.measured
    assert (f"Õ(N) met where the interval's top is at most {card.MARGINAL_SLACK:g}"
            in good.measured)
    assert "met: the bits per added example" in good.measured and not good.values["undecided"]
    # part 1 is a counting bound every exact memorizer meets: the text says so, at any status
    assert f"({card.BITS_COUNTING})" in good.measured
    assert "every exact memorizer of arbitrary labels meets" in card.BITS_COUNTING
    below = _construction(0.5).assign(total_weight_bits=lambda t: t["N"] * 0.5)
    assert card.bits_verdict(below).status == "differs"  # under the floor N log2 C
    faster = _construction(0.5).assign(total_weight_bits=lambda t: t["N"] ** 1.6)
    assert card.bits_verdict(faster).status == "differs"
    assert (f"the interval lies above {card.MARGINAL_SLACK:g}"
            in card.bits_verdict(faster).measured)


def test_bits_verdict_judges_the_cost_that_changes_with_n():
    """Review finding: a fixed cost holds the whole-sweep exponent of total bits / log₂N below 1
    (the committed sweep: 0.68), which the row read as not decided, although the bits per added
    example are flat. Part 2 now judges those marginal bits (the fixed cost differenced out):
    flat or growing by a log factor meets Õ(N); a power of N fails; scatter across the slack is
    not decided. The whole-sweep exponent is reported, not judged."""
    slow = _construction(0.5).assign(
        total_weight_bits=lambda t: 1e6 + 20 * t["N"] * np.log2(t["N"]))
    v = card.bits_verdict(slow)
    assert v.status == "reproduced" and not v.values["undecided"]
    assert v.values["high"] <= card.MARGINAL_SLACK and v.values["whole_high"] < 1
    assert "met: the bits per added example grow by no power of N above" in v.measured
    assert "total bits / log₂N grow with exponent" in v.measured
    # the local exponent between the two largest N, computed, reported beside it
    total = slow["total_weight_bits"].to_numpy()[:5]
    local = math.log(total[-1] / total[-2]) / math.log(10000 / 3000)
    assert (f"between the two largest N (3000 and 10000) the total grows with local exponent "
            f"{local:.3g} in N (reported, not judged)") in v.measured
    # a power of N in the marginal cost: faster than Õ(N), though a fixed cost hides it
    faster = _construction(0.5).assign(total_weight_bits=lambda t: 1e9 + t["N"] ** 1.8)
    v = card.bits_verdict(faster)
    assert v.status == "differs" and v.values["low"] > card.MARGINAL_SLACK
    assert v.values["whole_high"] < 1  # the old whole-sweep fit would not have seen it
    # marginal costs that scatter across the slack: not decided
    base = _construction(0.5)
    steps = np.resize([100.0, 900.0, 150.0, 1200.0], len(base) - 1)
    scattered = base.assign(total_weight_bits=1e6 + np.concatenate(
        [[0.0], np.cumsum(steps * np.diff(base["N"].to_numpy(float)))]))
    v = card.bits_verdict(scattered)
    assert v.values["low"] <= card.MARGINAL_SLACK < v.values["high"]
    assert v.status == "trend" and v.values["undecided"] and "not decided" in v.measured
    # the row keeps the title-only reason in its text at a status of its own
    row = card.remark44_verdict(scattered)
    assert row.status == "trend" and row.measured.endswith(f"[{card._TITLE_ONLY}]")
    # the committed sweep: flat marginal bits, met; capped at trend by the title-only reason
    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/"
                        "kajitsuka.construction.csv")
    committed = card.bits_verdict(table)
    assert committed.values["high"] <= card.MARGINAL_SLACK and committed.status == "reproduced"
    sizes = table[(table["sweep"] == "N") & (table["task"] == "next_token")]["N"].nunique()
    assert committed.values["whole_high"] < 1
    assert f"lower bound holds at {sizes}/{sizes} points" in committed.measured
    row = card.remark44_verdict(table)
    assert row.status == "trend" and not row.values["undecided"]


def _rule_fails(loss: pd.DataFrame, accuracy: pd.DataFrame, metric: str) -> pd.Series:
    """Per column (a seed, or the mean) of the last epoch's values pivoted by #blocks (rows,
    ascending): whether Figs. 1/2, 4/5's rule fails there, by hand. Accuracy: it falls from one
    depth to the next. Loss: a depth ends more than criteria.LOSS_RISE above the lowest loss of
    the shallower depths, unless it and that shallower depth both reach 100 % accuracy."""
    if metric == "accuracy":
        return (accuracy.diff() < 0).any()
    lowest = loss.cummin().shift()
    new_low = loss.lt(lowest) | lowest.isna()  # where the lowest so far was reached
    at_lowest = accuracy.where(new_low).ffill().shift()  # accuracy of that shallower depth
    rise = loss > (1 + criteria.LOSS_RISE) * lowest
    both_memorize = (accuracy >= 1.0) & (at_lowest >= 1.0)
    return (rise & ~both_memorize).any()


def test_the_committed_imdb_run_is_judged_with_the_accuracy_ceiling_set_aside():
    """Figs. 4/5 (IMDb, committed full run), with the counts computed by hand from the last
    epoch's values pivoted per #blocks and seed. One rule for both rows (review): seeds at
    accuracy 1 at every depth are set aside in the loss row as in the accuracy row (the loss
    rule cannot fail there); of the others, most fail with the mean, so both rows differ, and
    both texts name the seeds set aside and how many are counted."""
    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.imdb_curves.csv")
    last = table[table["epoch"] == table["epoch"].max()]
    loss = last.pivot(index="blocks", columns="seed", values="loss").sort_index()
    accuracy = last.pivot(index="blocks", columns="seed", values="accuracy").sort_index()
    means = last.groupby("blocks")[["loss", "accuracy"]].mean()  # over seeds
    seeds = table["seed"].nunique()
    ceiling = [int(seed) for seed in accuracy.columns if (accuracy[seed] >= 1).all()]
    counted = seeds - len(ceiling)
    for metric in ("loss", "accuracy"):
        per_seed = _rule_fails(loss, accuracy, metric)
        failing = [int(seed) for seed, fails in per_seed.items() if fails]
        assert not set(failing) & set(ceiling)  # a seed at the ceiling cannot fail either rule
        mean = bool(_rule_fails(means["loss"].to_frame("mean"),
                                means["accuracy"].to_frame("mean"), metric)["mean"])
        v = card.curves_verdict(table, metric)
        assert ceiling and mean and 2 * len(failing) > counted  # the committed data's shape
        assert v.status == "differs"
        assert (f"seeds {', '.join(map(str, ceiling))} end at accuracy 1 at every depth"
                ) in v.measured
        assert f"so {counted} of {seeds} seeds are counted" in v.measured
        other = "accuracy" if metric == "loss" else "loss"
        assert f"not counted, here or in the {other} row (ours)" in v.measured
        assert f"most seeds fail too ({len(failing)} of {counted}), so differs" in v.measured
    # counting them in the loss row, as before the review, gave trend: the ceiling decides it
    loss_all = [int(s) for s, fails in _rule_fails(loss, accuracy, "loss").items() if fails]
    assert 2 * len(loss_all) < seeds


def test_accuracy_at_the_ceiling_shows_neither_way():
    """Every run at accuracy 1: neither rule can fail, so neither row is computable (one rule
    for both rows, review); one seed at the ceiling among others: it is not counted in either
    row, and the rest decide."""
    rows = [{"blocks": b, "seed": s, "epoch": 10, "loss": 0.1 / (b + 1), "accuracy": 1.0}
            for b in (0, 1, 4) for s in (0, 1, 2)]
    full = pd.DataFrame(rows)
    assert card.curves_verdict(full, "accuracy").status == "not computable"
    loss = card.curves_verdict(full, "loss")
    assert loss.status == "not computable"
    assert "every run ends at final training accuracy 1 (9 runs)" in loss.measured
    assert "the loss rule cannot fail" in loss.measured
    # seeds 1 and 2 rise from 0.9 to 1: they hold; seed 0 stays at 1: not counted
    mixed = full.assign(accuracy=[0.9 if (r["seed"] > 0 and r["blocks"] == 0) else 1.0
                                  for _, r in full.iterrows()])
    v = card.curves_verdict(mixed, "accuracy")
    assert v.status == "reproduced"  # every counted seed comes out as the mean does
    assert "seed 0 ends at accuracy 1 at every depth" in v.measured
    assert "so 2 of 3 seeds are counted; the rule holds at 2 of 2" in v.measured
    # the loss row sets the same seed aside: seed 0's loss rises (it cannot fail, both depths
    # memorize), seeds 1 and 2 fall; the mean over all three falls
    rising = mixed.assign(loss=[0.01 * (r["blocks"] + 1) if r["seed"] == 0 else r["loss"]
                                for _, r in mixed.iterrows()])
    v = card.curves_verdict(rising, "loss")
    assert v.status == "reproduced"
    assert ("seed 0 ends at accuracy 1 at every depth, where a loss rise between two depths "
            "that both memorize decides nothing (not decided, never differs), so the loss rule "
            "cannot fail: it can show neither way and is not counted, here or in the accuracy "
            "row (ours), so 2 of 3 seeds are counted; the rule holds at 2 of 2") in v.measured
    assert card.final_ceiling_seeds(rising) == ([0], 3)


def _curves(final_loss: dict[int, float]) -> pd.DataFrame:
    rows = []
    for b, loss in final_loss.items():
        for epoch, scale in ((0, 10.0), (10, 1.0)):
            rows.append({"blocks": b, "epoch": epoch, "seed": 0, "loss": loss * scale,
                         "accuracy": min(1.0, 0.5 + 0.1 * b) if epoch else 0.3})
    return pd.DataFrame(rows)


def test_curves_verdict_both_ways():
    good = _curves({0: 0.3, 1: 0.1, 4: 0.01})
    assert card.curves_verdict(good, "loss").status == "reproduced"
    assert card.curves_verdict(good, "accuracy").status == "reproduced"
    bad = card.curves_verdict(_curves({0: 0.3, 1: 0.01, 4: 0.02}), "loss")
    assert bad.status == "differs" and "not decreasing" in bad.measured
    assert "4 blocks ends at 0.02, +100 % above 1 block" in bad.measured
    # a rise within the stated relative tolerance is not a rise; one just above it is
    small = card.curves_verdict(_curves({0: 0.3, 1: 0.01, 4: 0.0105}), "loss")
    assert small.status == "reproduced" and "at most 10 % allowed" in small.measured
    assert card.curves_verdict(_curves({0: 0.3, 1: 0.01, 4: 0.0115}), "loss").status == "differs"
    # the rise is measured against the lowest shallower loss, so creeping steps add up
    creep = _curves({0: 0.01, 1: 0.0108, 2: 0.0116, 3: 0.0124})
    assert card.curves_verdict(creep, "loss").status == "differs"
    assert card.LOSS_RISE == mahdavi.MSE_RISE  # one tolerance for the same kind of check
    # a rise between two depths that both memorize (100 % accuracy at 5 and 6 blocks) is the
    # optimiser's tail, not capacity: it says nothing for or against the claim, so the row is a
    # trend not decided (review), named; one against a depth below 100 % still differs
    tail = card.curves_verdict(_curves({0: 0.3, 5: 0.00035, 6: 0.001}), "loss")
    assert tail.status == "trend" and "both at 100 % training accuracy" in tail.measured
    assert "trend (not decided), not differs" in tail.measured
    assert status_words(tail) == "trend (not decided)"
    mixed = card.curves_verdict(_curves({0: 0.3, 1: 0.001, 6: 0.02}), "loss")
    assert mixed.status == "differs"


def test_counts_of_blocks_are_pluralized():
    text = card.curves_verdict(_curves({0: 0.3, 1: 0.1, 4: 0.01}), "loss").measured
    assert "1 block: 0.1" in text and "1 blocks" not in text and "4 blocks: 0.01" in text
    flat = _capacity({2: 1, 4: 1, 8: 2, 16: 1}).rename(columns={"N": "n"})
    assert "range 1 block (" in card.seq_len_verdict(flat).measured
    flat_acc = card.curves_verdict(_curves({0: 0.3, 5: 0.1, 6: 0.01}), "accuracy").measured
    assert "non-decreasing over 3 depths" in flat_acc  # 0.5, 1, 1: not "increasing"


def _capacity(min_blocks: dict[int, int], dip: tuple[int, int] | None = None) -> pd.DataFrame:
    rows = [{"N": N, "seed": 0, "blocks": b, "accuracy": 1.0 if b >= k else 0.9}
            for N, k in min_blocks.items() for b in range(0, 13)]
    table = pd.DataFrame(rows)
    if dip is not None:
        table.loc[(table["N"] == dip[0]) & (table["blocks"] == dip[1]), "accuracy"] = 0.99
    return table


def test_capacity_verdict_both_ways():
    sqrt_like = {400: 4, 900: 6, 1600: 8, 2500: 11}
    assert card.capacity_verdict(_capacity(sqrt_like)).status == "reproduced"
    # 1 block from N = 400 to 800: √N predicts 1.41 blocks at 800, not a whole block more,
    # so the grid cannot show the growth (trend, with the reason), and flat is not "increasing"
    flat = card.capacity_verdict(_capacity({200: 0, 400: 1, 600: 1, 800: 1}))
    assert flat.status == "trend" and "no exponent fitted" in flat.measured
    assert "predicts 1.41 at 800" in flat.measured and "cannot show it" in flat.measured
    assert "increasing" not in flat.measured.replace("non-decreasing", "")
    # over a fourfold range √N predicts a whole block more: a flat depth then differs
    wide = card.capacity_verdict(_capacity({200: 0, 400: 1, 900: 1, 1600: 1}))
    assert wide.status == "differs" and "which the search did not find" in wide.measured
    linear = {N: N // 100 for N in (100, 200, 400, 800)}
    assert card.capacity_verdict(_capacity(linear)).status == "differs"
    dipped = card.capacity_verdict(_capacity(sqrt_like, dip=(900, 12)))
    assert "1 tried depth memorized less than a shallower one" in dipped.measured
    missing = _capacity(sqrt_like).assign(accuracy=lambda t: t["accuracy"] * 0.5)
    assert card.capacity_verdict(missing).status == "differs"  # nothing memorized at all


def test_a_capacity_above_the_tried_depths_is_not_measured():
    def censored(table: pd.DataFrame, sizes: tuple[int, ...]) -> pd.DataFrame:
        return table.assign(accuracy=table["accuracy"].where(~table["N"].isin(sizes), 0.9))

    # N >= 600 memorized at no tried depth (up to 12 blocks), the smaller sizes at 1 and 3:
    # growth whose rate the grid cannot measure, so at most a trend
    grows = card.capacity_verdict(censored(_capacity({200: 1, 400: 3, 600: 5, 800: 5}),
                                           (600, 800)))
    assert grows.status == "trend"
    assert "N ≥ 600 is memorized at no tried depth" in grows.measured
    assert "lies above 12 blocks, not measured" in grows.measured
    one = card.capacity_verdict(censored(_capacity({200: 0, 400: 1, 600: 1}), (400, 600)))
    assert one.status == "trend"  # 0 blocks at N = 200, above 12 from N = 400 on
    sqrt_fit = card.capacity_verdict(censored(_capacity({400: 4, 900: 6, 1600: 8, 2500: 13}),
                                              (2500,)))
    assert sqrt_fit.status == "trend" and "fitted exponent" in sqrt_fit.measured
    # a size missing below a memorized one is not censoring: it differs
    hole = card.capacity_verdict(censored(_capacity({200: 1, 400: 3, 600: 5}), (400,)))
    assert hole.status == "differs" and "below a size that is" in hole.measured
    # a falling measured part still differs
    falls = card.capacity_verdict(censored(_capacity({200: 3, 400: 1, 600: 5}), (600,)))
    assert falls.status == "differs"


def test_a_capacity_run_with_one_size_judges_no_growth():
    # a partial full run that has reached one N: a depth, not a growth in N
    one = _capacity({600: 0}).assign(seed=0)
    one = pd.concat([one, _capacity({600: 1}).assign(seed=1)])
    verdict = card.capacity_verdict(one)
    assert verdict.status == "not run"  # more sizes, a run not made yet, would decide it
    assert "only N = 600 so far" in verdict.measured and "0, 1 (mean 0.5)" in verdict.measured
    # two widths: the one with two sizes is judged, the other is named and left out
    wide = _capacity({200: 0, 400: 1, 600: 1, 800: 1}).assign(d=16)
    both = pd.concat([wide, _capacity({600: 2}).assign(d=8)])
    mixed = card.capacity_verdict(both)
    assert mixed.status == "trend" and {k for k in mixed.values if k[1:].isdigit()} == {"d16"}
    assert "width d = 8: not judged, only N = 600 so far" in mixed.measured
    neither = card.capacity_verdict(pd.concat([_capacity({600: 0}).assign(d=16),
                                               _capacity({700: 2}).assign(d=8)]))
    assert neither.status == "not run" and "no model width has 2 sizes" in \
        neither.measured


def test_seq_len_verdict_both_ways():
    flat = _capacity({2: 1, 4: 1, 8: 2, 16: 1}).rename(columns={"N": "n"})
    assert card.seq_len_verdict(flat).status == "reproduced"
    steep = _capacity({2: 1, 4: 2, 8: 4, 16: 8}).rename(columns={"N": "n"})
    assert card.seq_len_verdict(steep).status == "differs"


def test_every_named_item_has_a_row_and_missing_runs_are_not_run(tmp_path):
    rows = build_scorecard("full", ["kajitsuka"], root=tmp_path)
    items = {r.item: r for r in rows}
    for name in paper.NAMED_ITEMS:
        assert name in items
    for fig in ("Fig. 1", "Fig. 2", "Fig. 4", "Fig. 5", "Fig. 7", "Table 1"):
        assert fig in items
    assert items["Fig. 7"].status == "not run" and "memnb run kajitsuka.capacity" in \
        items["Fig. 7"].measured
    for sweep in ("Theorem 4.1", "Theorem 4.2", "Corollary 4.1", "Remark 4.4, overhead ∝ log N"):
        assert items[sweep].status == "not run", items[sweep]  # they read the construction sweep
    assert items["Nonlinear hash"].status == "reproduced", items["Nonlinear hash"]
    # exact checks of our reading of a title, of an unverified definition or convention, of
    # orders, or of one proof step: at most a trend, with the reason stated
    for partial in ("Remark 4.1", "Remark 4.2", "Remark 4.3", "Table 1", "Definition 4.1",
                    "Theorem 4.1 (width 14)"):
        assert items[partial].status == "trend", items[partial]
    assert "[unverified" in items["Definition 4.1"].measured
    assert "counting convention" in items["Theorem 4.1 (width 14)"].measured
    for none in ("Remark 3.1", "Remark 4.5"):
        assert items[none].status == "not computable"
    assert items["Nonlinear hash"].ours


def test_capacity_verdict_needs_every_width():
    sqrt_like = _capacity({400: 4, 900: 6, 1600: 8, 2500: 11}).assign(d=8)
    flat = _capacity({400: 1, 900: 1, 1600: 1, 2500: 1}).assign(d=16)
    both = card.capacity_verdict(pd.concat([sqrt_like, flat]))
    assert both.status == "differs"
    narrow = _capacity({400: 1, 500: 1, 600: 1, 700: 1}).assign(d=16)
    assert card.capacity_verdict(pd.concat([sqrt_like, narrow])).status == "trend"
    assert "width d = 8: reproduced" in both.measured and "width d = 16: differs" in both.measured
    assert card.capacity_verdict(sqrt_like).status == "reproduced"


# --- Thm 4.2 / Cor. 4.1 lower bounds, Remark 4.4's overhead (issue: every statement computed)
def _sweep_with_counts(params: float = 1e5) -> pd.DataFrame:
    rows = [{"sweep": "N", "task": task, "N": N, "n": 8, "C": 2, "num_parameters": params,
             "total_weight_bits": 10 * N * math.log2(N)}
            for task in ("next_token", "seq2seq") for N in (100, 1000, 10_000, 100_000)]
    return pd.DataFrame(rows)


def test_lower_bound_verdict_both_ways():
    assert card.lower_bound_verdict(_sweep_with_counts()).status == "reproduced"
    assert card.lower_bound_verdict(_sweep_with_counts(), "seq2seq").status == "reproduced"
    # a "construction" smaller than the lower bound contradicts it
    assert card.lower_bound_verdict(_sweep_with_counts(20.0)).status == "differs"


def test_overhead_verdict_both_ways():
    assert card.overhead_verdict(_sweep_with_counts()).status == "reproduced"  # 10 N log2 N
    flat = _sweep_with_counts().assign(total_weight_bits=lambda t: 1e6 + 300 * t["N"])
    v = card.overhead_verdict(flat)  # fixed cost + 300 bits a sequence: no log N growth
    assert v.status == "differs" and v.values["ratio_slope"] < 0 and not v.values["undecided"]
    # a marginal overhead that falls with log N: an interval below 0 excludes growth
    falling = _sweep_with_counts().assign(
        total_weight_bits=lambda t: 1e6 + t["N"] * (400 - 10 * np.log2(t["N"])))
    v = card.overhead_verdict(falling)
    assert v.status == "differs" and v.values["slope_high"] < 0
    assert card.OVERHEAD_UNDECIDED not in v.measured


def test_an_overhead_slope_that_cannot_decide_is_a_trend_not_differs():
    """A slope interval containing both 0 and positive slopes cannot tell log N growth from
    none: ``trend`` (not decided), with the reason, as the criterion says; the committed sweep
    is such a fit (its interval contains 0 and positive slopes)."""
    from memnb.figures.kajitsuka import overhead_markdown
    from memnb.scorecard.core import load_items

    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    v = card.overhead_verdict(table)
    low, high = v.values["slope_low"], v.values["slope_high"]
    assert low <= 0 < high and v.values["r2"] < 0.9
    assert v.status == "trend" and v.values["undecided"]
    assert card.OVERHEAD_UNDECIDED in v.measured
    assert card.remark44_overhead_verdict(table).status == "trend"
    text = overhead_markdown(table)
    assert "**Verdict: trend (not decided)**" in text
    assert "the fit cannot tell a $\\log N$ growth" in text
    assert "does not grow like" not in text and "The overhead grows like" not in text
    # a marginal overhead that zig-zags around 330 bits: no slope decided, so trend
    N = np.array([100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000], dtype=float)
    marginal = np.array([330, 300, 360, 310, 350, 300, 340, 320], dtype=float)
    bits = 1e6 + np.concatenate([[0.0], np.cumsum(np.diff(N) * marginal)]) + 330 * N[0]
    zigzag = pd.DataFrame({"sweep": "N", "task": "next_token", "N": N, "n": 8, "C": 2,
                           "num_parameters": 1e5, "total_weight_bits": bits})
    w = card.overhead_verdict(zigzag)
    assert w.values["slope_low"] < 0 < w.values["slope_high"]
    assert w.status == "trend" and card.OVERHEAD_UNDECIDED in w.measured
    criterion = {i.item: i for i in load_items(["kajitsuka"])}[
        "Remark 4.4, overhead ∝ log N"].criterion
    assert "gives `trend` (not decided), not `differs`" in criterion


def test_lower_bound_rows_on_the_committed_sweep():
    from memnb.figures.kajitsuka import lower_bound_markdown, overhead_markdown

    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    assert card.lower_bound_verdict(table).status == "reproduced"
    text = overhead_markdown(table)
    assert f"Verdict: {card.overhead_verdict(table).status}" in text
    assert "64 of the 64 labellings" in lower_bound_markdown()
    rows = card.remark43_sizes((2, 64))
    assert [r["projection"] for r in rows] == [3, 65]


# --- Theorem 4.1 as explicit Transformer blocks, and its width counted the paper's way
def test_transformer_rows_both_ways(tmp_path):
    from memnb.scorecard.core import ResultSource, load_items

    examples = card.transformer_examples()
    net, T, X, y = examples["integer"]
    assert card.transformer_verdict(T, net, X, y).status == "reproduced"
    assert card.transformer_verdict(T, net, X, (y + 1) % 3).status == "differs"  # wrong labels
    cut = T.without_block(0)  # the skip alone: no hash, no sequence ID, no label
    assert card.transformer_verdict(cut, net, X, y).status == "differs"
    # the width is at most 14 but the counting convention is unverified: capped at trend
    width = card.transformer_width_verdict({"ours": T})
    assert width.status == "trend" and card.WIDTH_CAP in width.measured

    class Wide:
        stream_width, attention_width, ffn_width = 10, 1, 15

        def width(self) -> int:
            return 15

    wide = card.transformer_width_verdict({"ours": T, "wide": Wide()})
    assert wide.status == "differs" and f"paper {paper.THM41_WIDTH.value}" in wide.measured
    items = {i.item: i for i in load_items(["kajitsuka"])}
    source = ResultSource("full", root=tmp_path)
    rows = {name: items[name].evaluate(source)
            for name in ("Theorem 4.1 (as a Transformer)", "Theorem 4.1 (width 14)")}
    # every check passes, and the row is capped: its block forms are [unverified]
    assert rows["Theorem 4.1 (as a Transformer)"].status == "trend"
    assert card.BLOCK_FORMS_CAP in rows["Theorem 4.1 (as a Transformer)"].measured
    assert rows["Theorem 4.1 (width 14)"].status == "trend"
    assert "width 10" in rows["Theorem 4.1 (width 14)"].measured


# --- audit of the rendered chapter: every statement computed, tags kept where relied on
def test_ffn_split_names_the_crossover_from_the_table():
    table = _construction(0.5)  # FFN₁ 5000; FFN₂ 50 √N: 500 … 2739, then 5100 at N = 10000
    split = card.ffn_split(table)
    assert "FFN₁ is the larger part up to N = 3,000 and FFN₂ from N = 10,000 on" in split
    thm = card.thm41_verdict(table).measured
    assert split in thm and "dominates" not in thm
    assert "at every N" in card.ffn_split(table.assign(ffn1_parameters=1e6))
    assert card.ffn_split(table.assign(ffn1_parameters=1.0)).startswith(
        "FFN₂ is the larger part at every N")
    back = table.copy()
    back.loc[(back["sweep"] == "N") & (back["N"] == 100), "ffn1_parameters"] = 1.0
    assert "changes more than once or FFN₂ comes first" in card.ffn_split(back)


def test_remark_44_and_definition_41_are_capped_with_their_reason():
    v = card.remark44_verdict(_construction(0.5))
    assert card.bits_verdict(_construction(0.5)).status == "reproduced"
    assert v.status == "trend" and "only the remark's title" in v.measured
    flat = _sweep_with_counts()
    assert card.overhead_verdict(flat).status == "reproduced"
    assert card.remark44_overhead_verdict(flat).status == "trend"
    from memnb.scorecard.core import load_items

    items = {i.item: i for i in load_items(["kajitsuka"])}
    assert "or the tokens differ" in items["Definition 4.1"].claim
    assert "last tokens differ" not in items["Definition 4.1"].claim
    assert "unverified: only the title" in items["Remark 4.4"].claim


def test_a_capacity_exponent_that_cannot_decide_is_a_trend_and_widths_are_capped():
    # the quick run's d = 16 depths: an exponent interval from far below 0 to far above 1
    wide = card.capacity_verdict(_capacity({200: 0, 400: 1, 600: 1, 800: 2}))
    assert wide.status == "trend" and "not decided" in wide.measured
    assert wide.values["undecided"]
    sqrt_like = _capacity({400: 4, 900: 6, 1600: 8, 2500: 11})
    assert not card.capacity_verdict(sqrt_like).values["undecided"]
    both = pd.concat([sqrt_like.assign(d=8), sqrt_like.assign(d=16)])
    assert card.capacity_verdict(both).status == "reproduced"
    capped = card.capacity_verdict(
        both, scale=lambda v: criteria.at_reduced_scale(v, "reduced run"))
    assert capped.status == "trend" and "reproduced" not in capped.measured
    assert "width d = 8: trend" in capped.measured and "[reduced run]" in capped.measured
    from memnb.scorecard.core import load_items

    fig7 = {i.item: i for i in load_items(["kajitsuka"])}["Fig. 7"]
    assert "both 0 and 1" in fig7.criterion and "each width" in fig7.criterion


def test_one_undecided_width_leaves_the_row_undecided_unless_another_differs():
    # the claim holds at every width: a width whose exponent cannot decide leaves the
    # conjunction undecided (the row's "trend (not decided)"); a width that differs decides it
    from memnb.scorecard.core import status_words, undecided

    wide = _capacity({200: 0, 400: 1, 600: 1, 800: 2})
    sqrt_like = _capacity({400: 4, 900: 6, 1600: 8, 2500: 11})
    mixed = card.capacity_verdict(pd.concat([sqrt_like.assign(d=8), wide.assign(d=16)]))
    assert mixed.status == "trend" and undecided(mixed)
    assert mixed.values["undecided_widths"] == [16]
    assert status_words(mixed) == "trend (not decided)"
    assert "width d = 16: trend (not decided):" in mixed.measured
    assert "width d = 8: reproduced:" in mixed.measured
    linear = _capacity({N: N // 100 for N in (100, 200, 400, 800)})
    against = card.capacity_verdict(pd.concat([linear.assign(d=8), wide.assign(d=16)]))
    assert against.status == "differs" and not undecided(against)
    decided = card.capacity_verdict(pd.concat([sqrt_like.assign(d=8), sqrt_like.assign(d=16)]),
                                    scale=lambda v: criteria.at_reduced_scale(v, "reduced"))
    assert decided.status == "trend" and not undecided(decided)
    assert status_words(decided) == "trend"


def test_seq_len_verdict_names_deeper_models_that_memorize_less():
    table = _capacity({2: 1, 4: 2, 8: 1, 16: 1}, dip=(4, 4)).rename(columns={"N": "n"})
    v = card.seq_len_verdict(table)
    assert "1 tried depth memorized less than a shallower one (n = 4, 4 blocks: 0.99)" in \
        v.measured
    clean = _capacity({2: 1, 4: 2}).rename(columns={"N": "n"})
    assert "never falls with depth" in card.seq_len_verdict(clean).measured


def test_remark_43_compares_sizes_whose_id_bits_are_equal():
    def row(d: int, rest: int, bits: tuple[int, int, int]) -> dict[str, int]:
        return {"d": d, "projection": d + 1, "rest": rest, "id_bits": bits[0],
                "prime_bits": bits[1], "sequence_id_bits": bits[2]}

    same = card.remark43_verdict([row(2, 100, (11, 22, 35)), row(64, 100, (11, 22, 35)),
                                  row(8, 90, (9, 20, 31))])
    assert same.status == "reproduced" and "d = 2, 64 share their bits" in same.measured
    differ = card.remark43_verdict([row(2, 100, (11, 22, 35)), row(64, 96, (11, 22, 35))])
    assert differ.status == "differs" and "equal bits give an equal rest: False" in \
        differ.measured
    alone = card.remark43_verdict([row(2, 100, (11, 22, 35)), row(64, 96, (11, 22, 34))])
    assert alone.status == "reproduced" and "nothing to compare" in alone.measured
    from memnb.scorecard.core import load_items

    item = {i.item: i for i in load_items(["kajitsuka"])}["Remark 4.3"]
    assert "only through the token-ID bits" not in item.criterion


def test_claims_attribute_necessity_and_the_curves_trend_correctly():
    from memnb.scorecard.core import load_items

    items = {i.item: i for i in load_items(["kajitsuka"])}
    cor = items["Corollary 4.1"].claim
    assert "further theorem of the paper (number not in our sources)" in cor
    for fig in ("Fig. 1", "Fig. 2", "Fig. 4", "Fig. 5", "Random data, loss (ICLR version)",
                "Fig. 7"):
        assert "our expectation" in items[fig].claim and "unverified" in items[fig].claim
        assert "trend from the caption" not in items[fig].claim


def test_table1_row_reads_the_built_count_from_the_committed_sweep():
    from memnb.scorecard.core import ResultSource, load_items

    root = Path(__file__).parents[1] / "data/results"
    table = pd.read_csv(root / "full/kajitsuka.construction.csv")
    at = table[(table["sweep"] == "N") & (table["N"] == 10_000) & (table["n"] == 8)]
    built = {t: int(v) for t, v in zip(at["task"], at["num_parameters"], strict=True)}
    row = {i.item: i for i in load_items(["kajitsuka"])}["Table 1"].evaluate(
        ResultSource("full", root=root))
    assert f"Thm 4.1 our construction: {built['next_token']:,}" in row.measured
    assert f"Cor. 4.1 our construction: {built['seq2seq']:,}" in row.measured


def test_the_committed_construction_run_is_shown_with_the_seeds_it_holds():
    from memnb.provenance import run_label
    from memnb.results import load

    result = load("kajitsuka.construction", "full", Path(__file__).parents[1] / "data/results")
    assert result is not None
    # the provenance records the profile's default seed count; the table holds one seed
    assert run_label(result.table, result.provenance).endswith(
        f", {result.table['seed'].nunique()} seed" + ("" if result.table["seed"].nunique() == 1
                                                       else "s"))


# --- second audit of the rendered chapter (trust audit)
def test_overhead_row_is_ours_and_names_what_differencing_keeps():
    from memnb.scorecard.core import load_items

    items = {i.item: i for i in load_items(["kajitsuka"])}
    row = items["Remark 4.4, overhead ∝ log N"]
    assert row.ours and "do not require it" in row.claim and "Θ̃(N) bits)" not in row.claim
    assert "FFN₁'s growth with N stays in the differences" in row.criterion
    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    measured = card.overhead_verdict(table).measured
    nt = table[(table["sweep"] == "N") & (table["task"] == "next_token")].set_index("N")
    gain = int(nt.loc[200, "ffn1_parameters"] - nt.loc[100, "ffn1_parameters"])
    assert gain > 0
    assert f"FFN₁ is not fixed: between N = 100 and 200 it gains {gain:,} parameters" in measured
    assert "fixed cost spread" not in measured
    # a table without per-part counts says nothing about them
    assert "FFN₁ is not fixed" not in card.overhead_verdict(_sweep_with_counts()).measured


def test_claims_of_ours_and_criteria_match_what_is_computed():
    from memnb.scorecard.core import load_items

    items = {i.item: i for i in load_items(["kajitsuka"])}
    assert "our expectation" in items["Sweep over n (ICLR version)"].claim
    assert "random sequences" in items["Sweep over n (ICLR version)"].claim
    # four heads: the reduction is a sum over them
    assert "(1 + |x + Σ_h W_O^h W_V^h x|) < 1e-12" in items["Theorem 4.2"].criterion
    assert "x + W_O W_V x" not in items["Theorem 4.2"].criterion
    assert "|error|" not in items["Theorem 4.2"].criterion
    assert "width ≤ 14" not in items["Theorem 4.1"].criterion
    assert "Theorem 4.1 (width 14)" in items["Theorem 4.1"].claim
    assert "our summary" in items["Table 1"].claim
    assert "the seq-to-seq row is reported, not judged" in items["Table 1"].criterion


def test_table1_compares_each_prior_row_with_the_order_of_its_setting(monkeypatch):
    from memnb.figures import kajitsuka as ksfig
    from memnb.scorecard.core import ResultSource, load_items

    root = Path(__file__).parents[1] / "data/results"
    item = {i.item: i for i in load_items(["kajitsuka"])}["Table 1"]
    assert item.evaluate(ResultSource("full", root=root)).status == "trend"
    real = ksfig.table1

    def kim_between(*args: object, **kwargs: object) -> pd.DataFrame:
        t = real(*args, **kwargs)
        rows = t.set_index("row")
        # Kim et al.'s seq-to-seq order between √N and √(nN): below the seq-to-seq order
        kim = (rows.loc["Thm 4.1 order √N", "value"] + rows.loc["Cor. 4.1 order √(nN)",
                                                                 "value"]) / 2
        return t.assign(value=t["value"].where(~t["row"].str.startswith("Kim"), kim))

    # the seq-to-seq row is one order with Cor. 4.1's: reported, never judged
    monkeypatch.setattr(ksfig, "table1", kim_between)
    verdict = item.evaluate(ResultSource("full", root=root))
    assert verdict.status == "trend" and "reported, not judged" in verdict.measured

    def mahdavi_below(*args: object, **kwargs: object) -> pd.DataFrame:
        t = real(*args, **kwargs)
        # a next-token prior row below √N: the paper's bound would not need fewer parameters
        return t.assign(value=t["value"].where(~t["row"].str.startswith("Mahdavi"), 1.0))

    monkeypatch.setattr(ksfig, "table1", mahdavi_below)
    assert item.evaluate(ResultSource("full", root=root)).status == "differs"


def test_an_accuracy_below_one_never_reads_as_one():
    """The committed IMDb run's shape: at 1 block four seeds end at 1 and one at 0.9993, a mean
    of 0.99987, which 3 significant digits print as 1; the rows print 4, and more where 4 would
    round a value below 1 up to 1."""
    assert card.fraction_text(0.99987) == "0.9999" and card.fraction_text(0.99996) == "0.99996"
    assert card.fraction_text(1.0) == "1" and card.fraction_text(0.9613) == "0.9613"
    rows = []
    for seed, end in enumerate((1.0, 1.0, 1.0, 0.9993, 1.0)):
        for b, acc in ((1, end), (10, 0.9613)):
            rows += [{"blocks": b, "seed": seed, "epoch": e, "loss": 0.01 if e else 1.0,
                      "accuracy": acc if e else 0.5} for e in (0, 10)]
    text = card.curves_verdict(pd.DataFrame(rows), "accuracy").measured
    assert text.startswith("final accuracy: 1 block: 0.9999; 10 blocks: 0.9613")
    assert "mean accuracy is 0.9999 at 1 block" in text and "block: 1;" not in text


def test_curves_verdict_names_the_depth_of_each_final_accuracy():
    bad = _curves({0: 0.3, 1: 0.01, 4: 0.02}).assign(
        accuracy=lambda t: t["accuracy"].where(t["epoch"] == 0, 0.9))
    text = card.curves_verdict(bad, "loss").measured
    assert "final accuracy 0.9 at 4 blocks, 0.9 at 1 block" in text


def test_fig7_judges_the_quick_run_beside_a_full_run_at_one_size(tmp_path):
    import json

    from memnb.experiments.registry import load_all

    full = tmp_path / "full"
    full.mkdir()
    # a made-up partial full run that has reached one size, N = 600: 1 block memorizes
    pd.DataFrame([{"N": 600, "d": 16, "seed": s, "blocks": b, "epochs": 1000, "trials": 10,
                   "epochs_run": 500, "accuracy": 1.0 if b >= 1 else 0.9}
                  for s in range(3) for b in range(3)]).to_csv(full / "kajitsuka.capacity.csv",
                                                                index=False)
    (full / "kajitsuka.capacity.json").write_text(json.dumps(
        {"experiment": "kajitsuka.capacity", "profile": "full", "complete": False,
         "params": load_all()["kajitsuka.capacity"].params("full")}, default=str))
    alone = {r.item: r for r in build_scorecard("full", ["kajitsuka"], root=tmp_path)}["Fig. 7"]
    # a run too small to show a growth is `not run` (the full run decides it), not a claim
    # without content
    assert alone.status == "not run" and "only N = 600 so far" in alone.measured
    assert "memnb run kajitsuka.capacity --profile full" in alone.measured
    quick = tmp_path / "quick"
    quick.mkdir()
    _capacity({200: 0, 400: 1, 600: 1, 800: 1}).to_csv(quick / "kajitsuka.capacity.csv",
                                                       index=False)
    (quick / "kajitsuka.capacity.json").write_text(json.dumps(
        {"experiment": "kajitsuka.capacity", "profile": "quick", "complete": True}))
    row = {r.item: r for r in build_scorecard("full", ["kajitsuka"], root=tmp_path)}["Fig. 7"]
    assert row.status == "trend" and "predicts 1.41 at 800" in row.measured
    assert "the committed `full` run is not judged: partial, only N = 600 so far" in row.evidence
    assert "fell back to `quick`" in row.evidence
    # both runs need 1 block at N = 600 (the quick run at its one seed, the full run at all 3)
    assert row.measured.endswith(" | The `quick` run's smallest depth equals the full-scale "
                                 "run's at every seed at N = 600, width d = 16.")


def test_curves_verdict_calls_seeds_that_disagree_a_trend():
    """The seed rule (:func:`criteria.across_seeds`). The committed MultiNLI run's shape: 10
    blocks end below 1 block on the mean, with three of five seeds failing as well: most seeds
    fail as the mean does, differs; with two of five failing (the committed IMDb run's shape),
    trend, and the text says the mean fails; seeds that all fail as the mean does keep differs;
    a mean that holds over seeds that fail (one, or all) is a trend that says the mean holds."""
    def seeded(finals: dict[int, dict[int, float]]) -> pd.DataFrame:
        rows = []
        for seed, by_blocks in finals.items():
            for b, acc in by_blocks.items():
                for epoch in (0, 10):
                    rows.append({"blocks": b, "epoch": epoch, "seed": seed,
                                 "loss": 1.0 - acc if epoch else 2.0,
                                 "accuracy": acc if epoch else 0.3})
        return pd.DataFrame(rows)

    split = seeded({0: {1: 0.96, 10: 0.77}, 1: {1: 0.98, 10: 0.67}, 2: {1: 0.995, 10: 0.94},
                    3: {1: 0.97, 10: 0.9997}, 4: {1: 0.995, 10: 0.998}})
    v = card.curves_verdict(split, "accuracy")
    assert v.status == "differs" and "holds at 2 of 5 (seeds 3, 4)" in v.measured
    assert ("fails at seeds 0, 1, 2: the mean fails and most seeds fail too (3 of 5), so "
            "differs") in v.measured
    fewer = seeded({0: {1: 0.96, 10: 0.57}, 1: {1: 0.98, 10: 0.67}, 2: {1: 0.995, 10: 0.996},
                    3: {1: 0.97, 10: 0.9997}, 4: {1: 0.995, 10: 0.998}})
    v = card.curves_verdict(fewer, "accuracy")
    assert v.status == "trend" and "holds at 3 of 5 (seeds 2, 3, 4)" in v.measured
    assert ("fails at seeds 0, 1: the mean fails, but only 2 of 5 seeds fail (the book's rule "
            "for seeds: a mean can fail on a few seeds that did not train, so its failure stands "
            "only where most seeds fail too), so trend") in v.measured
    assert "seeds disagree" not in v.measured
    one = card.curves_verdict(seeded({0: {1: 0.9, 10: 0.95}, 1: {1: 0.9, 10: 0.85},
                                      2: {1: 0.8, 10: 0.99}}), "accuracy")
    assert one.status == "trend" and ("holds at 2 of 3 (seeds 0, 2) and fails at seed 1: the "
                                      "mean holds, but the seeds disagree (1 of 3 seeds fails), "
                                      "so trend") in one.measured
    # every seed fails while the mean holds (each dips at another depth): trend, not the
    # mean's reproduced (criteria.across_seeds), and named
    dips = card.curves_verdict(seeded({0: {1: 0.9, 2: 0.8, 3: 0.99},
                                       1: {1: 0.8, 2: 0.99, 3: 0.9}}), "accuracy")
    assert dips.status == criteria.across_seeds("reproduced", 0, 2) == "trend"
    assert ("holds at none of 2 and fails at seeds 0, 1: the mean holds, but the seeds "
            "disagree (2 of 2 seeds fail), so trend") in dips.measured
    agree = seeded({0: {1: 0.96, 10: 0.77}, 1: {1: 0.98, 10: 0.67}})
    assert card.curves_verdict(agree, "accuracy").status == "differs"
    assert card.curves_verdict(seeded({0: {1: 0.9, 10: 0.99}, 1: {1: 0.8, 10: 0.95}}),
                               "accuracy").status == "reproduced"


def test_curves_verdict_reads_the_final_epoch_and_reports_the_lowest_loss_one():
    """The committed MultiNLI run's shape (finding of the trust review): 10 blocks reach a
    lower loss than 1 block at every seed's lowest-loss epoch, then one seed diverges late. The
    status still reads the final epoch; the text adds the lowest-loss reading and names the
    late divergence with both accuracies (a fall of at most :data:`card.LATE_DROP` is not
    named)."""
    def run(blocks: int, seed: int, points: list[tuple[int, float, float]]) -> list[dict]:
        return [{"blocks": blocks, "seed": seed, "epoch": e, "loss": loss, "accuracy": acc}
                for e, loss, acc in points]

    table = pd.DataFrame(
        run(1, 0, [(0, 1.0, 0.4), (10, 0.08, 0.97), (20, 0.07, 0.975)])
        + run(1, 1, [(0, 1.0, 0.4), (10, 0.09, 0.96), (20, 0.08, 0.97)])
        + run(10, 0, [(0, 1.0, 0.4), (10, 0.01, 0.99), (20, 0.9, 0.70)])  # diverges late
        + run(10, 1, [(0, 1.0, 0.4), (10, 0.02, 0.999), (20, 0.03, 0.98)]))  # falls 0.019
    best = card.lowest_loss_values(table).set_index(["blocks", "seed"])
    assert best.loc[(10, 0), "epoch"] == 10 and best.loc[(10, 0), "final_accuracy"] == 0.70
    assert best.loc[(1, 0), "epoch"] == 20
    v = card.curves_verdict(table, "loss")
    final = card._curves_verdict_final(table, "loss")
    assert v.status == final.status == "trend"  # the final epoch: the seeds disagree
    # the reading at the last epoch and the late divergence open the text, then the values
    lead = card.last_epoch_lead(table, "loss", final.status)
    assert lead.startswith("the rule fails at the last epoch only: the 10-block run of seed 0 "
                           "diverged in its last 10 epochs")
    assert v.measured.startswith(f"{lead}; {final.measured}")
    # the sentence that introduces the lowest-loss reading says how each point's trial was kept
    assert ("each point keeps, of its trials, the one with the highest training accuracy at its "
            "lowest-loss checkpoint (ties: lower loss, then the earlier trial), and the verdict "
            "reads that trial's final epoch (ours); read instead at each run's lowest-loss epoch "
            "(epochs 10 to 20: the checkpoint the trial was chosen at; reported, not judged), "
            "the mean loss is 0.075 at 1 block, 0.015 at 10 blocks: there the same rule holds "
            "on the mean, and it holds at 2 of 2 seeds;") in v.measured
    assert ("1 of 4 runs diverges late (final training accuracy more than 0.05 below the "
            "accuracy at the run's lowest-loss epoch; ours): 10 blocks, seed 0: 0.99 at epoch "
            "10 to 0.7 at epoch 20") in v.measured
    assert "seed 1: 0.999" not in v.measured  # a fall of 0.019 is below the stated amount
    acc = card.curves_verdict(table, "accuracy")
    assert acc.status == card._curves_verdict_final(table, "accuracy").status
    assert "the mean accuracy is 0.9725 at 1 block, 0.9945 at 10 blocks" in acc.measured
    quiet = card.curves_verdict(table, "loss", divergence=False)
    assert "diverges late (" not in quiet.measured and "lowest-loss epoch" in quiet.measured
    steady = table[~((table["blocks"] == 10) & (table["seed"] == 0))]
    assert "no run diverges late" in card.late_divergence_text(steady)


def test_table1_criterion_names_the_unverified_row_and_checks_without_it(monkeypatch):
    """The Table 1 check counts Madden et al.'s ωN, a row our sources do not hold: the criterion
    names it [unverified] and defines ω, and the measured text says whether the check holds
    without it."""
    from memnb.figures import kajitsuka as ksfig
    from memnb.scorecard.core import ResultSource, load_items

    root = Path(__file__).parents[1] / "data/results"
    item = {i.item: i for i in load_items(["kajitsuka"])}["Table 1"]
    assert "that our sources state" not in item.criterion
    assert "ω is the vocabulary size" in item.criterion
    assert "Madden et al.'s ωN, a row that is [unverified]" in item.criterion
    v = item.evaluate(ResultSource("full", root=root))
    assert ("without the [unverified] row, the one prior next-token row left (Mahdavi et al. "
            "H d²") in v.measured and "lies above √N" in v.measured
    real = ksfig.table1

    def mahdavi_below(*args: object, **kwargs: object) -> pd.DataFrame:
        t = real(*args, **kwargs)
        return t.assign(value=t["value"].where(~t["row"].str.startswith("Mahdavi"), 1.0))

    monkeypatch.setattr(ksfig, "table1", mahdavi_below)
    v = item.evaluate(ResultSource("full", root=root))
    assert v.status == "differs" and "does not lie above √N" in v.measured


def test_the_lowest_loss_reading_names_the_seeds_where_the_rule_fails():
    """The committed IMDb run's shape: read at the lowest-loss epoch the rule fails at two
    seeds of five; the text says where it holds and where it fails (not "does not fail")."""
    rows = []
    for seed in range(5):
        bad = seed in (0, 2)
        for b, loss in ((1, 0.01), (10, 0.05 if bad else 0.005)):
            rows += [{"blocks": b, "seed": seed, "epoch": e, "loss": loss * (10 if e == 0 else 1),
                      "accuracy": 0.5 if e == 0 else 0.9} for e in (0, 10)]
    v = card.curves_verdict(pd.DataFrame(rows), "loss")
    assert "it holds at 3 of 5 seeds (fails at seeds 0, 2)" in v.measured
    assert "does not fail" not in v.measured
    # one seed: the mean is that seed, so the reading is one statement, not two
    alone = card.curves_verdict(pd.DataFrame([r for r in rows if r["seed"] == 0]), "loss")
    assert "the loss of the one seed is" in alone.measured
    assert "on the mean" not in alone.measured and "its one seed" not in alone.measured


def _late(finals: dict[tuple[int, int], tuple[float, float]],
          best: dict[tuple[int, int], tuple[float, float]]) -> pd.DataFrame:
    """A curves table: each run ``(blocks, seed)`` reaches ``best`` (loss, accuracy) at epoch
    10 and ends at ``finals`` at epoch 20."""
    rows = []
    for (b, seed), (loss, acc) in finals.items():
        low, top = best.get((b, seed), (loss, acc))
        rows += [{"blocks": b, "seed": seed, "epoch": 0, "loss": 2.0, "accuracy": 0.3},
                 {"blocks": b, "seed": seed, "epoch": 10, "loss": low, "accuracy": top},
                 {"blocks": b, "seed": seed, "epoch": 20, "loss": loss, "accuracy": acc}]
    return pd.DataFrame(rows)


def test_a_last_epoch_failure_is_traced_to_the_runs_that_diverged_late_or_not():
    """The committed MultiNLI run's shape: the rule fails at the last epoch only through the
    10-block runs that diverged late, so the verdict says the failure comes from them; the
    committed IMDb run's shape: a seed fails without diverging, so it says the divergence does
    not explain the failure; and part of it when one of two failing seeds diverged."""
    ok = {(1, s): (0.08, 0.97) for s in range(3)} | {(10, 2): (0.01, 0.999)}
    late = {(10, 0): (0.9, 0.70), (10, 1): (0.8, 0.72)}
    table = _late(ok | late, {k: (0.01, 0.995) for k in late})
    v = card.curves_verdict(table, "accuracy")
    assert v.status == "differs"
    # the text opens with the reading at the last epoch and where its failure comes from
    assert v.measured.startswith(
        "differs at the last epoch only: 2 of 3 seeds' deepest runs (10 blocks, seeds 0, 1) "
        "diverged in their last 10 epochs; with them read at their lowest-loss epoch instead, "
        "the same rule holds on the mean and at every seed, and so it does at every run's "
        "lowest-loss checkpoint (3 of 3 seeds); final accuracy: ")
    # the loss verdict of a caption (divergence named once) still says where the failure comes
    # from, without listing the falls again
    quiet = card.curves_verdict(table, "loss", divergence=False)
    assert quiet.measured.startswith("differs at the last epoch only: 2 of 3 seeds' deepest "
                                     "runs (10 blocks, seeds 0, 1) diverged")
    assert "diverge late (" not in quiet.measured
    # seed 0 fails without diverging: the divergence of seed 1 explains part of it
    part = _late(ok | {(10, 0): (0.9, 0.70), (10, 1): (0.8, 0.72)}, {(10, 1): (0.01, 0.995)})
    assert card.curves_verdict(part, "accuracy").measured.startswith(
        "differs at the last epoch: the 10-block run of seed 1 diverged in "
        "its last 10 epochs, and the last-epoch failure comes from it only in part (with it "
        "read at its lowest-loss epoch instead, the same rule still fails on the mean and at "
        "seed 0); at every run's lowest-loss checkpoint it fails on the mean and holds at 2 of "
        "3 seeds (fails at seed 0); final accuracy: ")
    # the run that diverged late fails at its lowest-loss epoch too: none of the failure is its
    none = _late(ok | late, {(10, 0): (0.01, 0.9)} | {(10, 1): (0.01, 0.9)})
    text = card.curves_verdict(none, "accuracy").measured
    assert text.startswith("differs at the last epoch and at the lowest-loss checkpoint: 2 of 3 "
                           "seeds' deepest runs (10 blocks, seeds 0, 1) diverged in their last "
                           "10 epochs, but the last-epoch failure does not come from them")
    # nothing to trace: no failure, or no late divergence
    assert card.last_epoch_lead(_late(ok, {}), "accuracy", "reproduced") == ""
    steady = _late(ok | {(10, 0): (0.9, 0.70)}, {})
    assert card._failures(card._last_epoch_runs(steady), "accuracy")[0]
    assert card.last_epoch_lead(steady, "accuracy", "differs") == ""


def test_random_data_rows_say_their_figures_are_not_in_our_sources():
    """The ICLR version's random-data figures are not in our sources at all (seed 000 lists
    Figs. 1, 2, 4, 5 and 7): their rows do not speak of a caption, as the n sweep's row does."""
    from memnb.scorecard.core import load_items

    items = {i.item: i for i in load_items(["kajitsuka"])}
    for name in ("Random data, loss (ICLR version)", "Random data, accuracy (ICLR version)"):
        claim = items[name].claim
        assert "not in our sources (neither their caption nor their values)" in claim
        assert "the caption names only" not in claim and "our expectation" in claim
    for name in ("Fig. 1", "Fig. 2", "Fig. 4", "Fig. 5"):
        assert ("the figure itself is not in our sources, only its caption, which names only "
                "what is plotted") in items[name].claim
    # Fig. 7's values were not found (notes §3): the figure is not in our sources, not unreadable
    assert ("the figure itself is not in our sources, only its caption, which states no trend"
            in items["Fig. 7"].claim)
    assert not any("readable" in i.claim for i in items.values())
    assert "not in our sources" in items["Sweep over n (ICLR version)"].claim


def test_theorem_41_states_why_it_is_not_capped_and_remark_41_reads_the_chapter_network():
    from memnb.scorecard.core import load_items

    items = {i.item: i for i in load_items(["kajitsuka"])}
    criterion = items["Theorem 4.1"].criterion
    assert "not capped at `trend`" in criterion and card.THM41_UNCAPPED in criterion
    assert "[unverified]" in card.THM41_UNCAPPED
    net, tokens, labels = card.chapter_example()
    assert tokens.shape == (300, 8) and card.chapter_example()[0] is net
    assert "the chapter's 300 random sequences" in items["Remark 4.1"].evidence
    assert "the chapter's 300 random sequences" in items["Definition 4.1"].evidence


def test_fig7_claim_is_counted_among_the_expectation_rows():
    """Fig. 7's caption (seed 000) states no trend: the √N growth its row tests is our
    expectation, marked so, and the chapter's scorecard header counts it with the others."""
    from memnb.scorecard.core import Row, load_items
    from memnb.scorecard.render import EXPECTATION_MARK, summary_sentence

    items = {i.item: i for i in load_items(["kajitsuka"])}
    assert EXPECTATION_MARK in items["Fig. 7"].claim
    assert "only its caption, which states no trend" in items["Fig. 7"].claim
    marked = [name for name, i in items.items() if not i.ours and EXPECTATION_MARK in i.claim]
    assert "Fig. 7" in marked and "Sweep over n (ICLR version)" in marked
    rows = [Row(paper="kajitsuka", item=name, claim=i.claim, criterion=i.criterion,
                status="trend", measured="m", evidence="e") for name, i in items.items()
            if not i.ours]
    assert f", {len(marked)} are on claims marked as our expectation" in summary_sentence(rows)


def test_a_depth_below_a_shallower_one_says_whether_it_ran_out_of_epochs():
    """depth_note names, per depth that memorized less than a shallower one, how many of its
    runs stopped at the epoch limit without memorizing (a budget, not a capacity)."""
    rows = [{"n": 4, "d": d, "blocks": b, "seed": seed, "accuracy": acc,
             "memorized": acc == 1.0, "epochs": 200, "epochs_run": run}
            for d, b, seed, acc, run in ((16, 1, 0, 1.0, 120), (16, 2, 0, 0.98, 200),
                                         (16, 3, 0, 0.99, 150), (16, 3, 1, 1.0, 200),
                                         (8, 2, 0, 0.5, 200), (8, 2, 1, 0.5, 200))]
    note = card.depth_note(pd.DataFrame(rows), "n")
    # d = 8's runs are another width's: not counted for d = 16
    assert "2 blocks: 0.98 (1 of 1 run at its epoch limit, 200 epochs, without memorizing)" in note
    # a run that memorized at its epoch limit ran out of nothing
    assert "3 blocks: 0.995 (no run at its epoch limit)" in note


def test_corollary_41_sufficiency_is_read_one_sided_as_theorem_41_is():
    """Õ(√(nN)) is an upper bound like Õ(√N): both rows read the exponent's interval with one
    rule (:func:`upper_bound_reading`): below or at ½ (top within the slack) meets it, wholly
    above ½ contradicts it, wider is not decided."""
    slack = card.THM41_SLACK
    assert card.upper_bound_reading(0.30, 0.45, "n")[:2] == ("below", True)
    assert card.upper_bound_reading(0.45, 0.5 + slack, "n")[:2] == ("inside", True)
    side, met, words = card.upper_bound_reading(0.40, 0.70, "n")
    assert (side, met) == ("inside", False) and words.startswith("not decided")
    side, met, words = card.upper_bound_reading(0.60, 0.80, "n")
    assert (side, met) == ("above", False) and "against Õ(√(nN))" in words
    assert "within Õ(√N)" in card.upper_bound_reading(0.45, 0.5, "N")[2]
    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    reading, words, values = card.cor41_sufficiency(table)
    assert reading == "met" and values["high"] <= 0.5 + slack
    assert "Õ(√(nN)) is an upper bound in n" in words
    verdict = card.cor41_verdict(table)
    # the row's text and the construction caption's words (read from the verdict) are one reading
    assert words in verdict.measured and verdict.values["sufficiency"] == words
    from memnb.scorecard.core import load_items

    criterion = {i.item: i for i in load_items(["kajitsuka"])}["Corollary 4.1"].criterion
    assert f"top is at most ½ + {slack:g}" in criterion


def test_corollary_41_with_too_wide_an_interval_is_a_capped_trend_not_decided():
    """Scattered seq-to-seq counts give an exponent interval too wide to decide Õ(√(nN)): the
    row is a trend not decided, and still says why it is capped at trend once decided
    (:data:`COR41_CAP`); counts growing like n itself contradict the bound: differs."""
    from memnb.scorecard.core import status_words

    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    table["ffn2_parameters"] = table["ffn2_parameters"].astype(float)
    rows = card._sweep(table, "n", "seq2seq").index
    scattered = table.copy()
    noise = np.resize([1.0, 1.6, 0.7, 1.5, 0.8, 1.4, 0.9, 1.3], len(rows))
    scattered.loc[rows, "ffn2_parameters"] = table.loc[rows, "ffn2_parameters"] * noise
    v = card.cor41_verdict(scattered)
    assert card.cor41_sufficiency(scattered)[0] == "not decided"
    assert status_words(v) == "trend (not decided)" and card.COR41_CAP in v.measured
    assert v.values["sufficiency"] == card.cor41_sufficiency(scattered)[1]
    linear = table.copy()
    n = table.loc[rows, "n"].to_numpy(float)
    linear.loc[rows, "ffn2_parameters"] = 1000.0 * n * np.sqrt(table.loc[rows, "id_bits"] + 3)
    assert card.cor41_sufficiency(linear)[0] == "against"
    assert card.cor41_verdict(linear).status == "differs"


def test_bits_verdict_on_a_short_sweep_has_no_interval_and_does_not_raise():
    """Review finding: a sweep of two N (one step) raised in the power-law fit. With one or two
    steps of N there is no interval: not decided, said so, and no infinite interval printed."""
    table = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    for sizes in ([100, 200], [100, 200, 500]):
        short = table[(table["sweep"] != "N") | table["N"].isin(sizes)]
        v = card.bits_verdict(short)
        assert v.status == "trend" and v.values["undecided"]
        assert "no interval (fewer than three steps of N" in v.measured
        assert "inf" not in v.measured
    # the threshold of the slack is computed: exp(1 / 0.25) ≈ 55
    assert card._log_factor_from() == f"{math.exp(1 / card.MARGINAL_SLACK):.0f}" == "55"


# --- review: Fig. 7 with no decided exponent, the loss rise between memorizing depths, the
# per-seed shortfall, Thm 4.1's unevaluated fitted points
def _quick_shaped_capacity() -> pd.DataFrame:
    """The committed quick run's shape (made up, 0 to 4 blocks): at d = 8 only N = 200 is
    memorized (at 0 blocks), N ≥ 400 at no tried depth; at d = 16 one block from N = 400 to
    800, a grid that cannot show √N growth. Neither width fits an exponent."""
    rows = []
    for d, need in ((8, {200: 0, 400: 99, 600: 99, 800: 99}),
                    (16, {200: 0, 400: 1, 600: 1, 800: 1})):
        rows += [{"N": N, "d": d, "seed": 0, "blocks": b, "accuracy": 1.0 if b >= k else 0.95}
                 for N, k in need.items() for b in range(5)]
    return pd.DataFrame(rows)


def test_fig7_with_no_width_exponent_decided_is_a_trend_not_decided():
    """Review 1: with no exponent fitted at any width (one depth on a grid that cannot show √N,
    sizes above the tried depths with too few measured depths), no width's exponent is decided,
    so the row is "trend (not decided)", as the criterion says; each width says why."""
    from memnb.scorecard.core import load_items, undecided

    v = card.capacity_verdict(_quick_shaped_capacity())
    assert v.status == "trend" and undecided(v) and status_words(v) == "trend (not decided)"
    assert v.values["undecided_widths"] == [8, 16]
    assert "width d = 8: trend (not decided):" in v.measured
    assert "width d = 16: trend (not decided):" in v.measured
    assert card.CENSORED_UNDECIDED in v.measured and card.FLAT_UNDECIDED in v.measured
    assert ("no exponent fitted: no size memorized at a tried depth needs a block, so there is "
            "no depth to fit") in v.measured
    # each width alone, and under the reduced-scale cap, stays not decided
    for d in (8, 16):
        one = card.capacity_verdict(_quick_shaped_capacity().query("d == @d"))
        assert status_words(one) == "trend (not decided)", d
    capped = card.capacity_verdict(_quick_shaped_capacity(),
                                   scale=lambda x: criteria.at_reduced_scale(x, "reduced"))
    assert status_words(capped) == "trend (not decided)"
    # a censored width whose measured sizes fit an exponent that decides stays a plain trend
    sqrt_fit = _capacity({400: 4, 900: 6, 1600: 8, 2500: 13})
    sqrt_fit = sqrt_fit.assign(accuracy=sqrt_fit["accuracy"].where(sqrt_fit["N"] != 2500, 0.9))
    decided = card.capacity_verdict(sqrt_fit)
    assert decided.status == "trend" and "fitted exponent" in decided.measured
    assert status_words(decided) == "trend"
    # a flat grid wide enough to show √N still differs, decided
    wide = card.capacity_verdict(_capacity({200: 0, 400: 1, 900: 1, 1600: 1}))
    assert wide.status == "differs" and not undecided(wide)
    fig7 = {i.item: i for i in load_items(["kajitsuka"])}["Fig. 7"]
    assert "or no exponent fitted, either because the smallest depth is one value" in \
        fig7.criterion
    assert "never a plain trend" in fig7.criterion
    # review: the criterion names one status per case, the undecided cases' as not decided
    assert "`trend` when the smallest depth" not in fig7.criterion


def test_a_loss_rise_only_between_memorizing_depths_is_not_decided():
    """Review 2: a loss rise between two depths that both end at 100 % training accuracy says
    nothing for or against "more #blocks reach a lower loss": trend (not decided); a rise
    against a depth below 100 % decides it (differs); no rise at all holds. The random-data
    loss row's quick shape (0 blocks below 1, 1 and 4 blocks at 1, 4 blocks +215 % above 1)."""
    from memnb.scorecard.core import load_items, undecided

    rows = [{"blocks": b, "seed": 0, "epoch": e, "loss": loss * (10 if e == 0 else 1),
             "accuracy": (acc if e else 0.3)}
            for b, loss, acc in ((0, 0.0467, 0.9933), (1, 0.000342, 1.0), (4, 0.00108, 1.0))
            for e in (0, 200)]
    v = card.curves_verdict(pd.DataFrame(rows), "loss")
    assert v.status == "trend" and undecided(v)
    assert "4 blocks ends at 0.00108, +216 % above 1 block" in v.measured
    assert card.BOTH_MEMORIZE in v.measured
    assert "there the same rule is not decided" in v.measured  # the lowest-loss reading too
    # the accuracy twin is a plain rule (non-decreasing, no exception): unchanged
    assert not undecided(card.curves_verdict(pd.DataFrame(rows), "accuracy"))
    # several seeds that all rise only between memorizing depths: still not decided
    two = pd.concat([pd.DataFrame(rows).assign(seed=s) for s in (0, 1)])
    assert status_words(card.curves_verdict(two, "loss")) == "trend (not decided)"
    # a rise against a depth below 100 % decides it
    mixed = card.curves_verdict(_curves({0: 0.3, 1: 0.001, 6: 0.02}), "loss")
    assert mixed.status == "differs" and not undecided(mixed)
    items = {i.item: i for i in load_items(["kajitsuka"])}
    for name in ("Random data, loss (ICLR version)", "Fig. 1", "Fig. 4"):
        assert "→ trend (not decided), not differs" in items[name].criterion, name
        assert "evidence neither for nor against the claim" in items[name].criterion, name


def test_the_accuracy_shortfall_is_counted_per_seed():
    """Review 5: seeds with the same shortfall each get it ("each get"), never a shared total;
    different counts are listed per seed."""
    same = card._shortfall_text([(0, 1, 10, 5), (2, 1, 10, 5)], 3000)
    assert same == ("with 10 blocks seeds 0 and 2 each get 5 of the 3,000 sequences wrong "
                    "(1 block gets every one right)")
    apart = card._shortfall_text([(0, 1, 10, 13), (2, 1, 10, 568)], 3000)
    assert "seed 0 gets 13 and seed 2 gets 568 of the 3,000" in apart
    mixed = card._shortfall_text([(0, 1, 10, 5), (1, 1, 10, 7), (2, 1, 10, 5)], 3000)
    assert "seeds 0 and 2 each get 5 and seed 1 gets 7 of the 3,000" in mixed


def test_theorem_41_says_how_many_fitted_points_were_evaluated():
    """Review 6: the exponent is fitted on every construction of the N sweep, built and counted
    ones too (a size needs no evaluation, as the criterion now says); the text says how many of
    the fitted points were evaluated exactly, names the others, and reports the fit on the
    evaluated ones alone (not judged: the status is unchanged)."""
    from memnb.scorecard.core import load_items

    table = _construction(0.5)
    table.loc[table["sweep"] == "N", "verify"] = [True, True, True, False, False]
    v = card.thm41_verdict(table)
    assert v.status == "reproduced"
    assert ("3 of the 5 fitted points evaluated exactly; N = 3000 and 10000 built and counted, "
            "not evaluated") in v.measured
    assert "on the evaluated points alone (reported, not judged): exponent" in v.measured
    assert "3 points" in v.measured.split("on the evaluated points alone")[1]
    everyone = _construction(0.5).assign(verify=True)
    assert "all 5 fitted points evaluated exactly" in card.thm41_verdict(everyone).measured
    few = card.thm41_verdict(_construction(0.5))  # N = 100 and 300 only: no fit on them alone
    assert "too few evaluated points for a fit on them alone" in few.measured
    thm = {i.item: i for i in load_items(["kajitsuka"])}["Theorem 4.1"]
    assert "evaluated exactly or only built and counted" in thm.criterion


def test_the_committed_construction_fit_includes_unevaluated_points():
    """Review 6, on the committed sweep: the fit's points include the constructions built and
    counted but not evaluated, and the row says how many were evaluated."""
    sweep = pd.read_csv(Path(__file__).parents[1] / "data/results/full/kajitsuka.construction.csv")
    nt = sweep[(sweep["sweep"] == "N") & (sweep["task"] == "next_token")]
    evaluated = int(nt["verify"].astype(bool).sum())
    assert evaluated < len(nt)  # the committed data's shape
    v = card.thm41_verdict(sweep)
    assert f"{evaluated} of the {len(nt)} fitted points evaluated exactly" in v.measured
    assert f"{len(nt)} points" in v.measured
