"""Reader review of the cross-paper chapter (findings 1, 3, 4, 5, 6 and 8): the one-bit sentence
judged on the search bracket, the training recipe printed and its limit stated, the papers' own
attention-vs-MLP comparisons cited, Prop. 3 quoted as a statement about sequence encoders, the
Mahdavi guarantee called a reference, and the Kim et al. line's d = 1 in its legend."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from memnb.experiments import compare as exp
from memnb.figures import compare as figures
from memnb.paths import papers_dir_candidates
from memnb.scorecard import compare as card

NOTEBOOK = Path(__file__).parents[1] / "notebooks" / "compare.ipynb"


def _cells(kind: str | None = None) -> list[str]:
    nb = json.loads(NOTEBOOK.read_text())
    return ["".join(c["source"]) for c in nb["cells"] if kind is None or c["cell_type"] == kind]


def _one(pred: object, kind: str | None = None) -> str:
    hits = [s for s in _cells(kind) if pred(s)]  # type: ignore[operator]
    assert len(hits) == 1, hits
    return hits[0]


# ------------------------------------------------------------ finding 1: one bit, on brackets
def _best(rows: list[tuple[str, int, float, float]]) -> pd.DataFrame:
    """Best shapes as (architecture, parameters, mean capacity, mean next N tried)."""
    return pd.DataFrame([{"architecture": a, "budget": p, "shape": f"w2=0 w1={k}",
                          "parameters": p, "capacity": cap, "upper": up, "seeds": 2}
                         for k, (a, p, cap, up) in enumerate(rows)])


def test_a_bracket_that_straddles_one_bit_is_not_decided_and_named():
    # C = 4: bits = N · 2 / P. The MLP fitted 360 at P = 729 (0.99 bit) and failed 720 (1.98):
    # the old sentence, which read only the largest N fitted, said "every one ... less than".
    best = _best([("aot", 720, 180, 360), ("mlp", 729, 360, 720)])
    words = figures.one_bit_words(best, 4)
    assert "Every one" not in words and "every one" not in words
    assert "store less than one bit per parameter: 1 of the 2" in words
    assert "at 1 the bracket straddles one bit, so the search does not decide" in words
    assert "MLP w2=0 w1=1 at P = 729, [0.99, 1.98)" in words
    assert "AoT w2=0 w1=0 at P = 720" not in words.partition("straddles")[2]


def test_a_whole_bracket_below_or_above_one_bit_decides():
    below = figures.one_bit_words(_best([("aot", 720, 180, 360), ("mha", 480, 60, 120)]), 4)
    assert ("By that criterion every one of the 2 best trained shapes (one per architecture and "
            "budget) stores less than one bit per parameter.") in below
    above = figures.one_bit_words(
        _best([("aot", 100, 10, 20), ("mlp", 100, 60, 120), ("mha", 100, 70, 140)]), 4)
    assert "fewer than half of the best trained shapes store less than one bit" in above
    assert "2 store one bit or more (MLP w2=0 w1=1 at P = 100, [1.20, 2.40)" in above
    most = figures.one_bit_words(
        _best([("aot", 100, 10, 20), ("mha", 100, 10, 20), ("mlp", 100, 60, 120)]), 4)
    assert "By that criterion most of the best trained shapes" in most
    # a bracket open above (a seed fitted every N tried) below one bit decides nothing
    open_above = figures.one_bit_words(_best([("aot", 100, 10, math.inf)]), 4)
    assert "the bracket straddles one bit" in open_above and "[0.20, ∞)" in open_above
    # the criterion is stated
    assert below.startswith("Judged on its search bracket")
    with pytest.raises(ValueError, match="upper"):
        figures.one_bit_words(_best([("aot", 100, 10, 20)]).drop(columns="upper"), 4)


def test_the_one_bit_runs_sentence_names_the_seeds_past_one_bit():
    best = _best([("mlp", 236, 90, 180)])
    runs = pd.DataFrame([
        {"architecture": "mlp", "budget": 236, "shape": "w2=0 w1=0", "seed": 0,
         "parameters": 236, "capacity": 120, "upper": 240.0},
        {"architecture": "mlp", "budget": 236, "shape": "w2=0 w1=0", "seed": 1,
         "parameters": 236, "capacity": 60, "upper": 120.0}])
    words = figures.one_bit_words(best, 4, runs)
    assert "of the 2 runs of these shapes, 0 lie wholly below one bit, 1 straddle it and 1 " \
           "store one bit or more" in words
    assert "MLP w2=0 w1=0 at P = 236, seed 0: 120 fitted, 1.02 bits" in words
    assert "seed 1:" not in words


def test_bits_text_never_rounds_across_one_bit():
    assert figures.bits_text(0.9996) == "0.9996"
    assert figures.bits_text(1.002) == "1.002"
    assert figures.bits_text(0.76) == "0.76"
    assert figures.bits_text(math.inf) == "∞"
    assert figures.one_bit_side(0.5, 1.0) == "below"
    assert figures.one_bit_side(1.0, 2.0) == "above"
    assert figures.one_bit_side(0.99, 1.98) == "straddles"


def test_the_notebook_passes_the_runs_brackets_to_the_one_bit_sentence():
    cell = _one(lambda s: "figures.one_bit_words(" in s, "code")
    assert 'figures.one_bit_words(best, task["C"], brackets)' in cell


# ------------------------------------------------------- finding 3: the recipe, and its limit
def test_the_recipe_reads_the_rates_and_schedule_from_the_experiment(monkeypatch):
    words = figures.recipe_markdown("quick")
    params = exp.get_params("quick")
    for arch, lr in exp.LR.items():
        assert f"{exp.SHORT[arch]} {lr:g}" in words
    assert "Adam (β = (0.9, 0.999), no weight decay), full batch, no warm-up" in words
    assert f"cosine decay from the rate to 10 % of it at the cap of {params['steps']:,} steps" \
        in words
    assert f"checked every {params['eval_every']:,} steps" in words
    assert ("The rates are ours, one per architecture (`memnb.experiments.compare.LR`), the "
            "same in every profile") in words
    assert "tuned" not in words  # no record says whether they were chosen by hand
    # computed: another rate shows, and a profile that sets rates is not called untuned
    monkeypatch.setitem(exp.LR, "mlp", 0.125)
    assert "MLP 0.125" in figures.recipe_markdown("quick")
    monkeypatch.setitem(exp._PROFILES, "quick", {**exp._PROFILES["quick"], "lr_scale": 2})
    tuned = figures.recipe_markdown("quick")
    assert "the same in every profile" not in tuned
    assert "The profiles set rates of their own (lr_scale)" in tuned


def test_training_configs_are_what_the_experiment_trains_with():
    configs = figures.training_configs(exp.get_params("ci"))
    assert set(configs) == set(exp.ARCHITECTURES)
    for arch, config in configs.items():
        assert config.lr == exp.LR[arch]
        assert config.steps == exp.get_params("ci")["steps"]
        assert config.schedule == "cosine" and config.final_lr_factor == pytest.approx(0.1)


def _capped_table() -> pd.DataFrame:
    """One AoT run fitted at 15 and 30 (stopping early), failing 60 at the cap and 120 before it,
    and one MLP run fitting 15, failing 30 at the cap (steps 100)."""
    rows = [("aot", 15, 1.0, 40), ("aot", 30, 1.0, 100), ("aot", 60, 0.9, 100),
            ("aot", 120, 0.5, 75), ("mlp", 15, 1.0, 30), ("mlp", 30, 0.8, 100)]
    return pd.DataFrame([{"architecture": a, "budget": 60, "parameters": 60,
                          "shape": "d=2 d_h=1 H=4" if a == "aot" else "w2=0 w1=2", "seed": 0,
                          "N": N, "accuracy": acc, "round": 0, "steps_run": steps}
                         for a, N, acc, steps in rows])


def test_step_cap_counts_count_the_tries_and_the_bounding_ones():
    table = _capped_table()
    counts = card.step_cap_counts(table, 100, 4, card.censored_best(table, 4))
    assert counts == {"tries": 6, "at_cap": 3, "failed": 3, "failed_at_cap": 2, "bounding": 2,
                      "bounding_at_cap": 2, "best_bounding": 2, "best_bounding_at_cap": 2}
    assert card.step_cap_counts(table.drop(columns="steps_run"), 100, 4) is None


def test_the_recipe_limit_words_say_the_ranking_depends_on_rates_and_cap():
    params = {"steps": 100}
    words = figures.recipe_limits_words(_capped_table(), params, 4)
    assert words.startswith("The head-to-head ranking depends on the learning rates and the "
                            "step cap")
    assert "2 of the 3 tries that did not fit their training set stopped at the 100-step cap " \
           "(3 of the 6 tries ended there)" in words
    assert "every one of the 2 failed tries that bound a capacity from above" in words
    assert "does not show that the ranking holds at other rates or with more steps" in words
    unknown = figures.recipe_limits_words(_capped_table().drop(columns="steps_run"), params, 4)
    assert "does not record where each try stopped" in unknown


def test_the_notebook_prints_the_recipe_under_the_task_and_its_limit():
    task_cell = _one(lambda s: "figures.task_markdown(profile)" in s, "code")
    assert task_cell.index("task_markdown") < task_cell.index("figures.recipe_markdown(profile)")
    cells = _cells()
    start = next(i for i, s in enumerate(cells)
                 if s.startswith("## What this chapter does not show (ours)"))
    end = next(i for i, s in enumerate(cells) if s.startswith("## Scorecard (ours)"))
    assert start < end
    between = "\n".join(cells[start:end])
    assert "figures.recipe_limits_words(table, params, task[\"C\"])" in between
    assert "printed under the task in Section 2" in cells[start]


# ------------------------------------------------ findings 4, 5, 6: the prose of the notebook
def test_the_opening_cites_the_papers_own_attention_mlp_comparisons():
    opening = _one(lambda s: s.startswith("# How much does a parameter hold?"), "markdown")
    intro = opening.split("\n\n")[1]  # the italic opening paragraph
    assert "Dana et al.'s Experiment 5 (their Fig. 3" in intro
    assert "harder to optimize" in intro and "(their conclusion)" in intro
    assert "Mahdavi et al.'s Prop. 3" in intro
    assert '"at least as powerful, in terms of memorization"' in intro
    assert "plain ReLU MLP" in intro and "sits inside a Transformer" in intro
    assert intro.count("*") == 2  # no nested emphasis breaks the italics
    seeds = [p for c in papers_dir_candidates() for p in (c / "seeds").glob("003_*.txt")]
    if seeds:
        assert "at least as powerful, in terms of memorization" in seeds[0].read_text()


def test_the_dana_row_quotes_prop_3_as_a_statement_about_sequence_encoders():
    table = _one(lambda s: s.startswith("## 1. One set of symbols (ours)"), "markdown")
    dana = next(line for line in table.splitlines() if line.startswith("| Dana et al. Thm 1"))
    assert "$d = 2$ enough for exact associations" not in dana
    assert ("their Prop. 3 finds no bottleneck on the association task for $d \\ge 2$, a "
            "statement about sequence encoders") in dana


def test_the_mahdavi_guarantee_is_a_reference_not_a_test():
    text = _one(lambda s: s.startswith("## 2. Head to head, trained (ours)"), "markdown")
    assert ") a test, while" not in text
    assert "is a reference comparison, not a test of the\ntheorem: its Assumption 1 fails" in text


# --------------------------------------------------------------- finding 8: Kim et al.'s d = 1
def test_the_kim_line_names_its_width_in_the_legend():
    task = {"V": 4, "n": 6, "C": 4}
    theory = exp.theory_curves(task, [60, 120, 240, 480, 720])
    kim = theory[theory["statement"].str.startswith("Kim")]
    assert figures.kim_width(kim, task["n"]) == pytest.approx(1.0)
    built = pd.DataFrame([{"construction": "aot (Dana et al. Thm 1)", "budget": 60,
                           "parameters": 60, "N": 6, "memorized": True, "bits": 3840,
                           "note": ""}])
    best = card.censored_best(_capped_table(), 4)
    fig = figures.bounds_figure(theory, built, best, task)
    labels = [ln.get_label() for ln in fig.axes[0].get_lines()]
    assert any(lb.startswith("Kim et al.") and lb.endswith("[shape only, constant 1, d = 1]")
               for lb in labels)
    others = [lb for lb in labels if "[shape only" in lb and not lb.startswith("Kim")]
    assert others and all(lb.endswith("[shape only, constant 1]") for lb in others)
    # read from the rows: a line drawn at d = 3 says d = 3; two widths are an error
    shifted = kim.assign(N=(kim["parameters"] - 3 - task["n"]) ** 2 / task["n"])
    assert figures.shape_only_label(kim["statement"].iloc[0], shifted, task["n"]).endswith(
        "constant 1, d = 3]")
    mixed = pd.concat([kim, shifted.iloc[-1:]])
    with pytest.raises(ValueError, match="more than one width"):
        figures.kim_width(mixed, task["n"])
