"""The scorecard rows of Mahdavi et al. (ICLR 2024): every numbered item, computed statuses, and
each figure criterion checked both ways on synthetic tables whose answer is known."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from memnb.papers import mahdavi as paper
from memnb.scorecard import mahdavi as sc
from memnb.scorecard.core import NotComputable, build_scorecard

ITEMS = ["Definition 1", "Definition 2", "Assumption 1", "Assumption 2", "Assumption 3",
         "Theorem 1", "Proposition 1", "Claim 1", "Claim 2", "Lemma 1", "Lemma 2", "Lemma 3",
         "Lemma 4", "Lemma 5", "Remark 1", "Proposition 2", "Proposition 3", "Proposition 4",
         "Proposition 5", "App. A", "App. C", "Table 1", "Fig. 1", "Table 2", "Table 3",
         "Fig. 2a", "Fig. 2b", "Fig. 2c", "Fig. 3", "Fig. 4", "Fig. 5"]


def _sweep(x: str, values: list[int], counts: list[float], *, T: int = 300, seeds: int = 2,
           **fixed: int) -> pd.DataFrame:
    rows = []
    for seed in range(seeds):
        for v, c in zip(values, counts, strict=True):
            row = {"seed": seed, "T": T, x: v, "memorized": c + seed, "accuracy": (c + seed) / T,
                   "capacity": 1 + v, "steps": 100, **fixed}
            rows.append(row)
    return pd.DataFrame(rows)


def _write(root: Path, name: str, table: pd.DataFrame, profile: str = "quick") -> None:
    folder = root / profile
    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / f"{name}.csv", index=False)
    (folder / f"{name}.json").write_text(json.dumps({"device_name": "test", "seeds": 2,
                                                      "git_commit": "abc", "started_utc": "x"}))


@pytest.fixture(scope="module")
def empty_rows(tmp_path_factory):
    return build_scorecard("full", ["mahdavi"], root=tmp_path_factory.mktemp("empty"))


def test_every_numbered_item_has_one_row(empty_rows):
    assert [r.item for r in empty_rows] == ITEMS


def test_exact_items_reproduce_and_missing_runs_say_not_run(empty_rows):
    by_item = {r.item: r for r in empty_rows}
    for name in ("Theorem 1", "Proposition 1", "Proposition 2", "Proposition 3",
                 "Proposition 4", "Proposition 5", "Claim 1", "Claim 2", "Lemma 1", "Lemma 2",
                 "Lemma 3", "Lemma 4", "Lemma 5", "Remark 1", "App. A", "App. C",
                 "Definition 1", "Definition 2"):
        assert by_item[name].status == "reproduced", (name, by_item[name].measured)
        assert "exact computation" in by_item[name].evidence
    for name in ("Table 1", "Fig. 1", "Table 3", "Fig. 2a", "Fig. 2c", "Fig. 5"):
        assert by_item[name].status == "not run"
        assert "memnb run mahdavi." in by_item[name].measured
    assert by_item["Table 2"].status == "not computable"


def test_fig2a_linear_and_not():
    line = _sweep("H", [1, 2, 3, 4, 5], [20, 40, 60, 80, 100], n=8, d_h=16)
    assert sc.fig2a_verdict(line).status == "reproduced"
    flat = _sweep("H", [1, 2, 3, 4, 5], [20, 90, 20, 90, 20], n=8, d_h=16)
    assert sc.fig2a_verdict(flat).status == "differs"
    margin = sc.guarantee_margin(line, "H")
    assert margin.status == "reproduced" and margin.values["tightest"] > 1


def test_fig2b_monotone_and_not():
    up = _sweep("n", [1, 2, 4, 8], [5, 50, 100, 150], H=4, d_h=16)
    assert sc.fig2b_verdict(up).status == "reproduced"
    down = _sweep("n", [1, 2, 4, 8], [5, 150, 100, 50], H=4, d_h=16)
    assert sc.fig2b_verdict(down).status == "differs"


def test_fig2c_plateau_and_rise():
    flat = _sweep("d_h", [1, 2, 4, 6, 9, 12], [20, 40, 80, 120, 121, 120], n=6, H=4)
    assert sc.fig2c_verdict(flat).status == "reproduced"
    rising = _sweep("d_h", [1, 2, 4, 6, 9, 12], [20, 40, 80, 120, 150, 180], n=6, H=4)
    verdict = sc.fig2c_verdict(rising)
    assert verdict.status == "differs" and "at d_h = n = 6" in verdict.measured


def _saturation(accuracy: float, unsaturated: float) -> pd.DataFrame:
    rows = []
    for h, t in ((4, 80), (8, 250)):
        for k in range(h + 1):
            rows.append({"H": h, "T": t, "accuracy": accuracy, "saturated_heads": k,
                         "example_fraction": 1.0 / (h + 1), "saturated_fraction": 0.5,
                         "some_head_unsaturated": unsaturated})
    return pd.DataFrame(rows)


def test_fig3_needs_perfect_memorization():
    assert sc.fig3_verdict(_saturation(1.0, 0.99)).status == "reproduced"
    assert sc.fig3_verdict(_saturation(1.0, 0.5)).status == "differs"
    with pytest.raises(NotComputable, match="not memorized perfectly"):
        sc.fig3_verdict(_saturation(0.6, 0.99))


def test_fig3_row_and_figure_say_which_points_of_a_partial_full_run_ran(tmp_path, monkeypatch):
    from types import SimpleNamespace

    import matplotlib.pyplot as plt

    from memnb.figures import mahdavi as fig

    table = _saturation(1.0, 0.99).assign(seed=0)
    _write(tmp_path, "mahdavi.saturation", table, profile="full")
    path = tmp_path / "full" / "mahdavi.saturation.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "complete": False,
                                "points_done": 2,
                                "missing_points": [{"seed": 1, "H": 4}, {"seed": 1, "H": 8}]}))
    rows = {r.item: r for r in build_scorecard("full", ["mahdavi"], root=tmp_path)}
    assert rows["Fig. 3"].status == "trend"  # would be reproduced on the complete grid
    assert "[mahdavi.saturation: partial: 2 of 4 points ran" in rows["Fig. 3"].measured
    assert "partial: 2 of 4 points ran; missing H ∈ {4, 8}" in rows["Fig. 3"].evidence
    # the figure: the full run in the top row, this build's run below, the partial run named
    monkeypatch.setattr(fig, "verdict_sentence", lambda number, profile: "Verdict.")
    monkeypatch.setattr("IPython.display.display", lambda figure: None)
    quick = _saturation(1.0, 1.0).assign(seed=0, T=lambda t: t["T"] // 10)
    result = SimpleNamespace(fresh=quick, cached=table, partial="partial: 2 of 4 points ran")
    caption = fig.fig3(result, "quick").data
    assert caption.index("Top row, the full-scale run: H = 4, T = 80") < caption.index(
        "this build's `quick` run: H = 4, T = 8:")
    assert "(The full-scale run is partial: 2 of 4 points ran.)" in caption
    assert "99.0% of examples keep a non-saturated head" in caption
    assert "did not memorize every example" not in caption
    short = table.assign(accuracy=lambda t: t["accuracy"].where(t["H"] == 4, 0.978))
    caption = fig.fig3(SimpleNamespace(fresh=quick, cached=short, partial=None), "quick").data
    assert "did not memorize every example (mean training accuracy H = 8, T = 250: 97.8%" in caption
    assert "memorized their set perfectly: 1 of 1 at H = 4, T = 80, 0 of 1 at H = 8, T = 250" \
        in caption
    alone = fig.fig3(SimpleNamespace(fresh=quick, cached=None, partial=None), "quick").data
    assert "Top row" not in alone and "This build's `quick` run" in alone
    plt.close("all")


def _regression(shared_rise: bool) -> pd.DataFrame:
    rows = []
    for shared in (True, False):
        for seed in range(2):
            for h, mse in zip([1, 2, 4, 8], [0.08, 0.06, 0.04, 0.02], strict=True):
                if shared and shared_rise and h == 8:
                    mse = 0.07
                rows.append({"sweep": "heads", "shared": shared, "H": h, "n": 8, "T": 100,
                             "mse": mse + 1e-4 * seed, "seed": seed})
            for n, mse in zip([2, 8], [0.07, 0.03], strict=True):
                rows.append({"sweep": "context", "shared": shared, "H": 4, "n": n, "T": 100,
                             "mse": mse, "seed": seed})
    return pd.DataFrame(rows)


def test_fig5_judges_shared_and_nonshared_separately():
    assert sc.fig5_verdict(_regression(False)).status == "reproduced"
    verdict = sc.fig5_verdict(_regression(True))
    assert verdict.status == "differs"
    parts = sc.fig5_parts(_regression(True))
    bad = parts[parts["status"] != "reproduced"]
    assert list(zip(bad["sweep"], bad["shared"], strict=True)) == [("heads", True)]


def _table1(embedding_a1: float) -> pd.DataFrame:
    rows = []
    for rep, a1 in (("embedding", embedding_a1), ("random_attention", 1.0)):
        for check, frac, k in (("assumption2", 1.0, 197), ("assumption1", a1, 197),
                               ("general_position", 0.0, 340), ("assumption3", 1.0, 197)):
            rows.append({"representation": rep, "check": check, "k": k, "pass_fraction": frac,
                         "valid": k != 340, "repeats": 20, "T": 340, "min_rank": 1,
                         "max_rank": k, "n": 197, "d": 768})
    for k, frac in zip(paper.figure1()["k"], paper.figure1()["pass_fraction"], strict=True):
        if k <= 340:
            rows.append({"representation": "random_attention", "check": "figure1", "k": k,
                         "pass_fraction": frac, "repeats": 6, "T": 340, "n": 197, "d": 768})
    return pd.DataFrame(rows)


def test_table1_cells_both_ways_and_fig1():
    ok = sc.table1_verdict(_table1(0.0))
    assert ok.status == "reproduced" and ok.values["disagree"] == 0
    bad = sc.table1_verdict(_table1(1.0))
    assert bad.status == "differs" and "embedding/assumption1" in bad.measured
    assert sc.fig1_verdict(_table1(0.0)).status == "reproduced"


def test_quick_results_count_at_most_as_trend(tmp_path):
    _write(tmp_path, "mahdavi.heads", _sweep("H", [1, 2, 3, 4], [20, 40, 60, 80], n=8, d_h=16))
    _write(tmp_path, "mahdavi.regression", _regression(True))
    rows = {r.item: r for r in build_scorecard("full", ["mahdavi"], root=tmp_path)}
    assert rows["Fig. 2a"].status == "trend" and "fell back" in rows["Fig. 2a"].evidence
    assert "lower bound holds" in rows["Fig. 2a"].measured
    assert rows["Fig. 5"].status == "differs"



def _dinov2_rows(l0_a3: float, l1_a1: float, *, k_l1: int = 257) -> pd.DataFrame:
    rows = []
    for rep, a1, a3, k in (("dinov2_vits14_l0", 0.0, l0_a3, 257),
                           ("dinov2_vits14_l1", l1_a1, 0.5, k_l1)):
        for check, frac in (("assumption2", 1.0), ("assumption1", a1), ("assumption3", a3),
                            ("general_position", 0.0)):
            rows.append({"representation": rep, "check": check, "k": k if check != "general_"
                         "position" else 384, "pass_fraction": frac, "valid": k == 257,
                         "repeats": 20, "T": 1000, "min_rank": 1, "max_rank": 257, "n": 257,
                         "d": 384})
    return pd.concat([_table1(0.0), pd.DataFrame(rows)], ignore_index=True)


def test_dinov2_verdict_is_read_from_the_table():
    from types import SimpleNamespace

    from memnb.figures import mahdavi as fig

    assert sc.dinov2_verdict(_table1(0.0)) is None
    statuses, verdict = sc.dinov2_verdict(_dinov2_rows(0.0, 1.0))
    assert statuses == {"l0_a1": "fail", "l0_a3": "fail", "l1_a1": "pass", "l1_a2": "pass"}
    assert "not with its explanation" in verdict
    assert "agrees with the paper**" in sc.dinov2_verdict(_dinov2_rows(1.0, 1.0))[1]
    assert "disagrees" in sc.dinov2_verdict(_dinov2_rows(1.0, 0.0))[1]
    assert "undecided" in sc.dinov2_verdict(_dinov2_rows(0.0, 1.0, k_l1=100))[1]
    # the chapter's text: the full table when one exists, and "not run" without DINOv2 rows
    quick_only = SimpleNamespace(fresh=_table1(0.0), cached=None)
    text = fig.dinov2_discussion(quick_only, "quick")
    assert "not run" in text and fig.DINOV2_COMMAND in text and "agrees" not in text
    with_full = SimpleNamespace(fresh=_table1(0.0), cached=_dinov2_rows(0.0, 1.0))
    text = fig.dinov2_discussion(with_full, "quick")
    assert "`full` Table 1 run" in text and "not with its explanation" in text
    layers = fig.assumptions_by_layer(_dinov2_rows(0.0, 1.0)).set_index("representation")
    assert layers.loc["dinov2_vits14_l0", "status_assumption3"] == "fail"


def test_assumption3_row_reports_dinov2_from_the_full_table(tmp_path):
    _write(tmp_path, "mahdavi.table1", _table1(0.0), profile="quick")
    rows = {r.item: r for r in build_scorecard("full", ["mahdavi"], root=tmp_path)}
    assert "DINOv2 (ours, beyond the paper): not run" in rows["Assumption 3"].measured
    _write(tmp_path, "mahdavi.table1", _dinov2_rows(0.0, 1.0), profile="full")
    rows = {r.item: r for r in build_scorecard("full", ["mahdavi"], root=tmp_path)}
    assert "trained embedding layer A3 fail, first block A1 pass" in rows["Assumption 3"].measured
    assert rows["Assumption 3"].status == "reproduced"


def test_table3_missing_gpt2_names_the_packages_checked():
    from types import SimpleNamespace

    from memnb.figures import mahdavi as fig

    rows = [{"representation": "gpt2_random", "model": "gpt2_random", "layer": layer,
             "check": check, "k": 128, "pass_fraction": frac, "valid": True, "T": 200,
             "repeats": 20, "min_rank": 1, "max_rank": 128, "n": 128, "d": 768}
            for layer, check, frac in ((0, "assumption1", 0.0), (1, "assumption1", 1.0))]
    rows.append({"representation": "gpt2_trained", "check": "missing",
                 "reason": "gpt2 needs the hub: no network"})
    table = pd.DataFrame(rows)
    verdict = sc.table3_verdict(table)
    assert all(name in verdict.measured for name, _, _ in sc.GPT2_PACKAGES_CHECKED)
    note = fig.gpt2_trained_note(SimpleNamespace(fresh=table, cached=None), "quick")
    assert note.startswith("**Trained GPT-2: not computed**") and "Gpt2 needs the hub" in note
    present = table[table["check"] != "missing"].assign(representation="gpt2_trained")
    note = fig.gpt2_trained_note(SimpleNamespace(fresh=table, cached=present), "quick")
    assert note == "The trained GPT-2 column was computed in the `full` table."


def test_fig3_is_checked_on_the_runs_that_memorized_perfectly():
    memorized = _saturation(1.0, 0.99).assign(seed=0)
    short = _saturation(0.9, 0.5).assign(seed=1)  # not memorized: out of the paper's scope
    verdict = sc.fig3_verdict(pd.concat([memorized, short]))
    assert verdict.status == "trend"
    assert "1 of 2 at H = 4, T = 80, 1 of 2 at H = 8, T = 250" in verdict.measured
    assert "99.0% with a non-saturated one" in verdict.measured
    both = sc.fig3_verdict(pd.concat([memorized, memorized.assign(seed=1)]))
    assert both.status == "reproduced"
    failing = _saturation(1.0, 0.5).assign(seed=0)
    assert sc.fig3_verdict(pd.concat([failing, short])).status == "differs"
    only_one = pd.concat([memorized[memorized["H"] == 4], short])
    with pytest.raises(NotComputable, match="not memorized perfectly by any run"):
        sc.fig3_verdict(only_one)
