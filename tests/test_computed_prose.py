"""Sentences about our results are computed: their numbers are inserted from the data and their
verdict comes from a stated criterion (memnb functions returning the words), tested here on
made-up inputs where the verdict flips and on the committed ``full`` results; the chapters call
them and no longer type the verdicts before the checks that print them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from memnb.experiments import compare as exp
from memnb.figures import compare as cmpfig
from memnb.figures import kajitsuka as ksfig
from memnb.figures import mahdavi as mhfig
from memnb.prose import hand_typed_numbers
from memnb.results import load

REPO = Path(__file__).resolve().parents[1]


def _cells(notebook: str) -> dict[str, str]:
    nb = json.loads((REPO / "notebooks" / f"{notebook}.ipynb").read_text(encoding="utf-8"))
    return {c["id"]: "".join(c["source"]) for c in nb["cells"]}


def _flat(text: str) -> str:
    return " ".join(text.split())


# --- Kajitsuka & Sato: the construction check (cell 480bc084) ---------------------------------
def _constructions(memorized: list[bool], verify: list[bool] | None = None) -> pd.DataFrame:
    k = len(memorized)
    return pd.DataFrame({"task": ["next_token"] * k, "N": [100 * (i + 1) for i in range(k)],
                         "n": [8] * k, "verify": verify or [True] * k, "memorized": memorized})


def test_the_construction_check_words_flip_with_a_failing_construction():
    every = ksfig.construction_check_words([("this build's run", _constructions([True] * 3)),
                                            ("the full-scale run", None)])
    assert every.startswith("In this build's run, every one of the 3 exactly evaluated "
                            "constructions memorizes its data")
    assert "full-scale" not in every  # no such run: left out
    failing = ksfig.construction_check_words(
        [("this build's run", _constructions([True, False, True]))])
    assert "1 of the 3 exactly evaluated constructions does not memorize its data" in failing
    assert "next-token $N$ = 200, $n$ = 8" in failing
    assert "every one" not in failing
    # a construction that was only counted (verify False) is not judged
    counted = ksfig.construction_check_words(
        [("this build's run", _constructions([True, False], verify=[True, False]))])
    assert "the one exactly evaluated construction memorizes its data" in counted
    none = ksfig.construction_check_words([("this build's run", _constructions([False], [False]))])
    assert none.startswith("This build's run evaluated no construction exactly")
    assert "(memorizes: every example's label reproduced exactly)" in every


def test_the_committed_construction_sweep_memorizes_every_evaluated_example():
    full = load("kajitsuka.construction", "full")
    if full is None:
        pytest.skip("no committed full-scale construction sweep")
    checked = full.table[full.table["verify"].astype(bool)]
    words = ksfig.construction_check_words([("the full-scale run", full.table)])
    if checked["memorized"].astype(bool).all():
        assert f"every one of the {len(checked)} exactly evaluated constructions" in words
    else:
        assert "do not memorize" in words or "does not memorize" in words


# --- Kajitsuka & Sato: the attention block removed (cell e5fd072d) ----------------------------
def test_the_without_attention_words_flip_with_a_non_zero_prediction():
    labels = np.array([0, 1, 2, 3, 1])
    zero = ksfig.without_attention_words(labels, np.zeros(5, int))
    assert zero.startswith("Without the attention block every one of the 5 predictions is 0, "
                           "where 4 of the 5 labels are not 0: every prediction falls to 0")
    one = ksfig.without_attention_words(labels, np.array([0, 0, 2, 0, 0]))
    assert "1 of the 5 predictions is not 0" in one
    assert "do not all fall to 0" in one
    for text in (zero, one):
        assert "(the criterion: every prediction 0)" in text


def test_the_chapter_transformer_without_attention_predicts_zero():
    """The chapter's network (Sec. 2) as a Transformer, its attention block removed: every
    prediction on the first sequences is 0, and the sentence says so, computed."""
    from memnb.scorecard.kajitsuka import chapter_example

    net, tokens, labels = chapter_example()
    transformer = net.transformer()
    few = slice(0, 12)
    skipped = transformer.without_block(transformer.attention_index).predict(tokens[few])
    words = ksfig.without_attention_words(labels[few], skipped)
    assert ("every prediction falls to 0" in words) == (np.count_nonzero(skipped) == 0)


# --- Kajitsuka & Sato: float64 (cell 6d448429) -----------------------------------------------
def test_the_float64_words_say_loses_labels_only_when_one_is_lost():
    labels = np.array([0, 1, 2, 3])
    kept = ksfig.float64_lost_words(labels, labels.copy())
    assert kept.startswith("In float64 the network keeps every label: all 4 sequences")
    assert "loses" not in kept
    lost = ksfig.float64_lost_words(labels, np.array([0, 1, 0, 0]))
    assert lost.startswith("In float64 the network loses labels: 2 of the 4 sequences get "
                           "another label")
    assert "(50.0%)" in lost
    assert "1 of the 4 sequences gets" in ksfig.float64_lost_words(labels, np.array([0, 1, 2, 0]))
    with pytest.raises(ValueError, match="one shape"):
        ksfig.float64_lost_words(labels, labels[:3])


def test_the_chapter_network_in_float64_loses_labels_as_its_sentence_says():
    from memnb.scorecard.kajitsuka import chapter_example

    net, tokens, labels = chapter_example()
    predictions = net.predict(tokens, arithmetic="float64")
    words = ksfig.float64_lost_words(labels, predictions)
    wrong = int((predictions != labels).sum())
    assert ("loses labels" in words) == (wrong > 0)
    if wrong:
        assert f"{wrong} of the {len(labels)} sequences" in words


# --- Kajitsuka & Sato: the model without blocks (cell fa5fb9f4, Fig. 7) ------------------------
def _capacity(rows: list[tuple[int, int, int, int, float]]) -> pd.DataFrame:
    """(d, N, blocks, seed, accuracy) rows of a made-up ``kajitsuka.capacity`` table."""
    return pd.DataFrame(rows, columns=["d", "N", "blocks", "seed", "accuracy"])


def test_the_zero_block_words_flip_with_the_capacity():
    memorized = _capacity([(16, 200, 0, 0, 1.0), (16, 200, 1, 0, 1.0),
                           (16, 400, 0, 0, 0.9), (16, 400, 1, 0, 1.0),
                           (8, 200, 0, 0, 1.0), (8, 400, 0, 0, 0.8)])
    words = ksfig.zero_block_words([("this build's run", memorized)])
    assert ("in this build's run the model memorizes $N$ = 200 at $d = 8$ and $d = 16$, and at "
            "no other $N$ it ran") in words
    assert "(memorizes: 100 % training accuracy" in words
    never = _capacity([(16, 200, 0, 0, 0.95), (16, 200, 1, 0, 1.0)])
    assert "memorizes at no $N$ it ran" in ksfig.zero_block_words([("this build's run", never)])
    some = _capacity([(16, 600, 0, 0, 1.0), (16, 600, 0, 1, 0.99), (16, 600, 1, 1, 1.0)])
    assert "$N$ = 600 at $d = 16$ (1 of 2 seeds: 0)" in ksfig.zero_block_words(
        [("the committed full-scale run", some)])
    deep = _capacity([(16, 200, 1, 0, 1.0)])
    assert "tried no model without blocks" in ksfig.zero_block_words([("this build's run", deep)])
    assert ksfig.zero_block_words([("this build's run", None)]) == ""


def test_the_committed_capacity_run_names_its_zero_block_sizes():
    full = load("kajitsuka.capacity", "full")
    if full is None:
        pytest.skip("no committed full-scale capacity run")
    from memnb.experiments.kajitsuka import capacity_table

    cap = capacity_table(full.table)
    words = ksfig.zero_block_words([("the committed full-scale run", full.table)])
    zero = sorted(cap.loc[cap["min_blocks"] == 0, "N"].unique())
    for N in zero:
        assert f"$N$ = {N:g} at" in words
    assert ("at no $N$ it ran" in words) == (not zero)


# --- Cross-paper chapter (cells 17a604c7, ac383808, 90f7d6b5, a4a7e5c2) -----------------------
def test_the_shape_check_words_flip_with_a_shape_off_its_budget():
    plan = pd.DataFrame({"architecture": ["aot", "mlp"], "shape": ["d=2 d_h=1 H=4", "w2=0 w1=2"],
                         "budget": [60, 60], "parameters": [60, 62]})
    ok = cmpfig.shape_check_words(plan, [60, 62])
    assert ok == ("Every one of the 2 trained shapes lies within 5 % of its budget, and for every "
                  "one the model's own parameter count equals the closed form of "
                  "`memnb.bounds`.")
    far = cmpfig.shape_check_words(plan.assign(parameters=[60, 70]), [60, 71])
    assert "1 of the 2 trained shapes lies more than 5 % from their budget" in far
    assert "MLP w2=0 w1=2 at P = 70 for a budget of 60" in far
    assert "for 1 of them the model's own parameter count differs" in far
    assert "builds 71, the closed form gives 70" in far
    with pytest.raises(ValueError, match="one count per shape"):
        cmpfig.shape_check_words(plan, [60])


def test_the_no_shape_words_name_the_cells_without_a_shape_and_why():
    params = exp.get_params("quick")
    task = {k: params[k] for k in ("V", "n", "C")}
    plan = exp.planned_shapes(params)
    words = cmpfig.no_shape_words(plan, task)
    counts = cmpfig.shape_counts(plan, task)
    for arch in exp.ARCHITECTURES:
        empty = [int(b) for b, cell in counts.loc[exp.SHORT[arch]].items() if cell == "–"]
        if empty:
            assert f"{exp.SHORT[arch]} at P = " in words
            smallest = cmpfig.smallest_shape(arch, task)
            if all(smallest > b * 1.05 for b in empty):
                assert f"its smallest shape has {smallest:,} parameters" in words
        else:
            assert f"{exp.SHORT[arch]} at P" not in words
    # a budget between the sizes a grid offers, and none missing
    assert "falls between the sizes its grid offers" in cmpfig.no_shape_words(
        pd.DataFrame({"budget": [1920]}), {"V": 8, "n": 6, "C": 4})
    assert cmpfig.no_shape_words(pd.DataFrame({"budget": [720]}), task) == (
        "Every architecture has a shape within 5 % of every budget.")


# --- Mahdavi et al. (cells ee8aa296, c26aac60) -------------------------------------------------
def _relu(attention: int, bound: int) -> pd.DataFrame:
    return pd.DataFrame([
        {"model": "attention", "width": None, "parameters": 670, "examples": attention},
        {"model": "ReLU, m=3", "width": 3, "parameters": 277, "examples": 37},
        {"model": "ReLU, m=8", "width": 8, "parameters": 737, "examples": bound}])


def test_the_matched_relu_comparison_takes_its_direction_from_the_table():
    above = mhfig.relu_matched_words(_relu(22, 97))
    assert "width $m = 8$ (737 parameters, against the attention layer's 670)" in above
    assert "at most 97 examples (an upper bound), and the attention layer is guaranteed 22" \
        in above
    assert "exceeds the attention layer's guaranteed count, so this comparison does not show" \
        in above
    below = mhfig.relu_matched_words(_relu(120, 97))
    assert "does not exceed" in below and "attention memorizes at least as many" in below
    narrow = _relu(22, 97).iloc[:2]
    assert "none is matched parameter for parameter" in mhfig.relu_matched_words(narrow)


def test_the_chapter_relu_table_reads_as_its_sentence_says():
    from memnb.constructions import mha_checks as checks

    relu = checks.relu_comparison(heads=3, n=8, d=10, T=120, seed=0)
    words = mhfig.relu_matched_words(relu)
    attention = int(relu.loc[relu["width"].isna(), "examples"].iloc[0])
    nets = relu[relu["width"].notna()]
    matched = nets[nets["parameters"] >= relu.loc[relu["width"].isna(), "parameters"].iloc[0]]
    bound = int(matched.sort_values("parameters")["examples"].iloc[0])
    assert ("does not show an advantage" in words) == (bound > attention)


def test_the_sweep_coverage_counts_complete_partial_and_no_full_runs(tmp_path):
    folder = tmp_path / "full"
    folder.mkdir()
    for name, provenance in (("mahdavi.context", {"complete": True}),
                             ("mahdavi.heads", {"complete": False})):
        pd.DataFrame({"seed": [0]}).to_csv(folder / f"{name}.csv", index=False)
        (folder / f"{name}.json").write_text(json.dumps(provenance))
    found = mhfig.sweep_coverage(tmp_path)
    assert found == {"complete": ["Fig. 2b"], "partial": ["Fig. 2a"],
                     "none": ["Fig. 2c", "Fig. 3", "Fig. 4", "Fig. 5"]}
    assert mhfig.sweep_coverage_words(tmp_path) == (
        "In all, of the six synthetic sweeps, one has a complete full-scale run (Fig. 2b), one "
        "has a partial one (Fig. 2a) and four have none (Figs. 2c, 3, 4 and 5).")
    assert mhfig.sweep_coverage_words(tmp_path) in mhfig.sweep_scales_markdown("quick", tmp_path)
    # the committed results
    committed = mhfig.sweep_coverage()
    assert sum(len(v) for v in committed.values()) == len(mhfig.SWEEPS)
    for state, figures in committed.items():
        for figure in figures:
            name = next(n for n in mhfig.SWEEPS if _paper_figure(n) == figure)
            result = load(name, "full")
            assert state == ("none" if result is None else
                             "complete" if result.provenance.get("complete", True) else "partial")


def _paper_figure(name: str) -> str:
    from memnb.experiments.registry import get

    return get(name).paper_figure


# --- the chapters call the functions; their Markdown types no verdict --------------------------
@pytest.mark.parametrize(("notebook", "cell", "gone", "call"), [
    ("kajitsuka_sato", "480bc084", "Every construction that the sweep evaluated exactly memorizes",
     ("d6e1a0be", "ksfig.construction_check_words(runs)")),
    ("kajitsuka_sato", "e5fd072d", "The blocks are really residual",
     ("dad37926", "ksfig.without_attention_words(data.labels[few], skipped)")),
    ("kajitsuka_sato", "6d448429", "loses labels",
     ("f2585ca3", "ksfig.float64_lost_words(data.labels, float64_predictions)")),
    ("kajitsuka_sato", "fa5fb9f4", "at small $N$ it can memorize",
     ("bd1026f8", "ksfig.zero_block_words(")),
    ("compare", "17a604c7", "mostly store less",
     ("d5b2fe73", "figures.one_bit_words(best, task[\"C\"], brackets)")),
    ("compare", "ac383808", "Every trained shape is within",
     ("76b4057b", "figures.shape_check_words(plan, counts)")),
    ("compare", "90f7d6b5", "small or zero for some architectures",
     ("ade5e794", "figures.no_shape_words(plan, task)")),
    ("compare", "a4a7e5c2", "starts larger than the smallest budgets",
     ("ade5e794", "figures.no_shape_words(plan, task)")),
    ("mahdavi", "ee8aa296", "upper* bound exceeds",
     ("8df7bc13", "figures.relu_matched_words(relu)")),
    ("mahdavi", "c26aac60", "Only some of them have a full-scale run", None),
])
def test_the_chapters_compute_the_verdicts(notebook, cell, gone, call):
    cells = _cells(notebook)
    assert gone not in _flat(cells[cell])
    assert hand_typed_numbers(cells[cell]) == []
    if call is not None:
        assert call[1] in cells[call[0]]


def test_the_mahdavi_intro_points_to_the_list_that_counts_the_runs():
    """The intro no longer says "only some" ran at full scale: it points to the generated list,
    which (under a profile other than ``full``) ends with the computed coverage sentence."""
    assert ("A list after the set-up cells below, generated from the committed results, says"
            in _flat(_cells("mahdavi")["c26aac60"]))
    assert "figures.sweep_scales_markdown(profile)" in "".join(_cells("mahdavi").values())
    assert mhfig.sweep_coverage_words() in mhfig.sweep_scales_markdown("quick")
