"""Review s72 of the Mahdavi chapter: the reasons of columns not computed stated as facts about
the run that computed a table (not about "here"), Fig. 2c's margin in the caption's lead, and
Tables 1 and 3 with short column names and a legend. Made-up tables only."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from memnb import viz
from memnb.figures import mahdavi as fig
from memnb.scorecard import mahdavi as sc
from memnb.scorecard.core import ResultSource

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "mahdavi.ipynb"
HUB_REASON = ("google/vit-base-patch16-224-in21k needs the Hugging Face hub: no network: "
              "huggingface.co unreachable (gaierror)")


# --- Fig. 2c: how close the plateau test is, and where the largest count lies ----------------

def _head_dim(before: list[float], after: list[float], *, seeds: int = 2) -> pd.DataFrame:
    """A made-up Fig. 2c sweep at n = 6: mean counts ``before`` at d_h = 1, 2, 4, 6 and
    ``after`` at d_h = 9, 12, the same in every seed (T = 200)."""
    values = [1, 2, 4, 6, 9, 12]
    counts = [*before, *after]
    return pd.DataFrame([{"seed": seed, "T": 200, "d_h": v, "memorized": c, "accuracy": c / 200,
                          "capacity": 1 + v, "steps": 100, "n": 6, "H": 4}
                         for seed in range(seeds) for v, c in zip(values, counts, strict=True)])


def test_fig2c_margin_of_a_wide_pass_with_its_largest_count_past_the_knee():
    wide = _head_dim([10, 20, 40, 60], [61, 61.5])
    verdict = sc.fig2c_verdict(wide)
    assert verdict.status == "reproduced" and verdict.values["ratio"] < 0.125
    margin = verdict.values["margin"]
    assert margin.startswith(f"the plateau test passes by a wide margin: slope ratio "
                             f"{verdict.values['ratio']:.2f} against a threshold of 0.25, ")
    assert "(2 seeds)" in margin
    assert margin.endswith("the sweep's largest mean count, 61.5 at d_h = 12, lies past the knee "
                           "d_h = n = 6 (largest up to the knee: 60.0 at d_h = 6)")


def test_fig2c_margin_of_a_narrow_pass_says_so_with_the_ratio_and_the_threshold():
    narrow = _head_dim([10, 20, 40, 60], [67, 74])
    verdict = sc.fig2c_verdict(narrow)
    ratio = verdict.values["ratio"]
    assert verdict.status == "reproduced" and 0.2 < ratio <= 0.25
    gap = (0.25 - ratio) / 0.25
    assert verdict.values["margin"] == (
        f"the plateau test passes narrowly: slope ratio {ratio:.2f} against a threshold of 0.25, "
        f"{gap:.0%} below it (2 seeds); the sweep's largest mean count, 74.0 at d_h = 12, lies "
        "past the knee d_h = n = 6 (largest up to the knee: 60.0 at d_h = 6)")


def test_fig2c_margin_of_a_count_largest_before_the_knee_and_of_a_failed_test():
    early = _head_dim([10, 20, 70, 60], [60.5, 61], seeds=3)
    margin = sc.fig2c_verdict(early).values["margin"]
    assert "(3 seeds)" in margin and "narrowly" not in margin
    assert margin.endswith("the sweep's largest mean count, 70.0 at d_h = 4, lies before the "
                           "knee d_h = n = 6 (largest past the knee: 61.0 at d_h = 12)")
    rising = sc.fig2c_verdict(_head_dim([10, 20, 40, 60], [80, 100])).values["margin"]
    assert rising.startswith("the plateau test fails: slope ratio 0.67 against a threshold of "
                             "0.25, 167% above it")


def test_a_capped_fig2c_pass_says_in_its_trend_reason_how_close_it_is(tmp_path):
    """The caption's visible lead (:func:`memnb.scorecard.mahdavi.trend_reason`): a quick run
    that passes the plateau test is a trend by its cap, and the lead gives the margin."""
    folder = tmp_path / "quick"
    folder.mkdir()
    narrow = _head_dim([10, 20, 40, 60], [67, 74])
    narrow.to_csv(folder / "mahdavi.head_dim.csv", index=False)
    (folder / "mahdavi.head_dim.json").write_text(json.dumps(
        {"device_name": "test", "seeds": 2, "git_commit": "abc", "started_utc": "x"}))
    reason = sc.trend_reason("Fig. 2c", ResultSource("full", root=tmp_path))
    margin = sc.fig2c_verdict(narrow).values["margin"]
    assert reason == ("Why trend, not reproduced: the criterion holds, but a `quick` run caps a "
                      f"pass at trend; {margin}.")


# --- columns not computed: facts about the run, not about "here" ------------------------------

def test_a_hub_reason_is_stated_as_a_fact_about_the_run_that_computed_the_table():
    assert sc.hub_missing(HUB_REASON) and not sc.hub_missing("the model file is absent")
    assert sc.unavailable_words(HUB_REASON) == (
        "google/vit-base-patch16-224-in21k needs the Hugging Face hub, and the run that computed "
        "this table could not reach huggingface.co (gaierror)")
    assert sc.unavailable_words("x needs the hub: HF_HUB_OFFLINE is set (offline mode)") == (
        "x needs the Hugging Face hub, and the run that computed this table had HF_HUB_OFFLINE "
        "set (offline mode)")
    assert sc.unavailable_words("the model file is absent") == "the model file is absent"
    table = pd.DataFrame([{"representation": "trained_vit_b16", "check": "missing",
                           "reason": HUB_REASON}])
    sentence = fig.missing_sentence(table)
    assert sentence == (
        "The trained ViT-B/16 is missing: google/vit-base-patch16-224-in21k needs the Hugging "
        "Face hub, and the run that computed this table could not reach huggingface.co "
        "(gaierror). The book is built from offline inputs, so the column stays empty until a run "
        "that reaches the hub computes it.")
    assert fig.not_computed_words(HUB_REASON) == "not computed (hub not reached)"
    for text in (sentence, fig.not_computed_words(HUB_REASON)):
        assert "no network" not in text and " here" not in text


def test_the_chapter_markdown_does_not_speak_of_the_build_as_here():
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    markdown = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "no network here" not in markdown and "conclusive here" not in markdown
    assert "when a network is reachable" not in markdown
    assert 'column "decisive"' in markdown
    code = " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    for number in (1, 3):
        assert (f"viz.column_legend(table{number}_shown, figures.TABLE{number}_LEGEND)"
                in code)


# --- Tables 1 and 3: short column names, a legend under each ----------------------------------

def _table1() -> pd.DataFrame:
    rows = [{"representation": rep, "check": check, "k": k, "T": 1000,
             "repeats": 1000 if check == "assumption2" else 5000,
             "pass_fraction": frac, "valid": True, "min_rank": low, "max_rank": high,
             "n": 197, "d": 768, "seed": 0}
            for rep in ("embedding", "random_attention")
            for check, k, frac, low, high in (("assumption2", 197, 1.0, 197, 197),
                                              ("assumption1", 197, 1.0, 197, 197),
                                              ("general_position", 768, 0.0, 461, 470))]
    rows.append({"representation": "trained_vit_b16", "check": "missing", "reason": HUB_REASON})
    return pd.DataFrame(rows)


@pytest.fixture
def no_float64(monkeypatch):
    monkeypatch.setattr(sc, "dinov2_float64_for", lambda table: None)


def test_table1_has_short_column_names_and_a_legend_that_matches_them(no_float64):
    shown = fig.table1_display(_table1())
    assert list(shown.columns) == ["representation", "images", "check", "k", "tests",
                                   "pass, ours", fig.PAPER_FRACTION, "ranks, ours",
                                   fig.PAPER_RANKS, "decisive"]
    # short enough that the table's headers do not set its width (at most 17 characters)
    assert max(len(c) for c in shown.columns) <= len("ranks, paper [nb]")
    assert not [c for c in shown.columns if "here" in c]
    legend = viz.column_legend(shown, fig.TABLE1_LEGEND)  # raises if they disagree
    assert "`decisive`: whether the cell decides its assumption" in legend.data
    assert "GP is General Position" in legend.data
    trained = shown[shown["representation"] == "the trained ViT-B/16"]
    assert set(trained[fig.OURS]) == {"not computed (hub not reached)"}
    assert set(shown[fig.TESTS]) >= {"1000 contexts", "5000 draws"}


def test_table3_shares_the_short_names_and_has_its_own_legend():
    rows = [{"representation": "bert_trained", "layer": layer, "check": check, "k": 192,
             "pass_fraction": 1.0, "repeats": 100, "T": 2000, "n": 192, "d": 384,
             "valid": True, "min_rank": 192, "max_rank": 192}
            for layer in (0, 1) for check in ("assumption1", "assumption2")]
    rows.append({"representation": "gpt2_trained", "check": "missing",
                 "reason": "the GPT-2 tokenizer needs the hub: no network: huggingface.co "
                           "unreachable (gaierror)"})
    table = pd.DataFrame(rows)
    shown = fig.table3_display(table)
    assert {"check", "tests", "pass, ours", fig.TABLE3_PAPER_FRACTION, "ranks, ours",
            "decisive"} <= set(shown.columns)
    viz.column_legend(shown, fig.TABLE3_LEGEND)  # raises if they disagree
    assert fig.missing_sentence(table).startswith(
        "The trained GPT-2 is missing: the GPT-2 tokenizer needs the Hugging Face hub, and the "
        "run that computed this table could not reach huggingface.co (gaierror).")
    note = fig.gpt2_trained_note(SimpleNamespace(fresh=table, cached=None), "quick")
    assert "could not reach huggingface.co (gaierror)" in note and "here" not in note
