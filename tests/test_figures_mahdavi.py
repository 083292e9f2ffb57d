"""The Mahdavi chapter's tables and captions (memnb.figures.mahdavi): identifiers shown in words,
the sentences computed from the data (images, App. J's Kruskal ranks, which sweeps ran at full
scale), and the panel titles of Figs. 4 and 5."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from memnb import viz
from memnb.figures import mahdavi as fig
from memnb.papers import mahdavi as paper
from memnb.scorecard import criteria


@pytest.fixture(autouse=True)
def _no_trend_reason(monkeypatch):
    """The captions here read no committed results for the sentence that says why a trend is
    not reproduced (:func:`memnb.figures.mahdavi.trend_reason`); the tests of that sentence
    set it themselves."""
    monkeypatch.setattr(fig, "trend_reason", lambda number, profile: "")

#: Identifiers of the stored tables that must not reach the reader's tables.
IDENTIFIERS = ("assumption1", "assumption2", "assumption3", "general_position",
               "random_attention", "random_vit", "trained_vit_b16", "dinov2_vits14",
               "bert_trained", "bert_random", "gpt2_random", "gpt2_trained", "decided",
               "kruskal_shifted", "contexts_rank_n", "closed_form_error", "repeats")


def _table1() -> pd.DataFrame:
    rows = []
    for rep, a1 in (("embedding", 0.0), ("random_attention", 1.0)):
        for check, k, frac, repeats, ranks in (
                ("assumption2", 197, 1.0, 1000, (197, 197)),
                ("assumption1", 197, a1, 5000, (1, 1) if a1 == 0 else (197, 197)),
                ("general_position", 768, 0.0, 5000, (1, 1) if a1 == 0 else (461, 470))):
            rows.append({"representation": rep, "check": check, "k": k, "pass_fraction": frac,
                         "repeats": repeats, "T": 1000, "n": 197, "d": 768, "valid": True,
                         "min_rank": ranks[0], "max_rank": ranks[1]})
    rows.append({"representation": "trained_vit_b16", "check": "missing",
                 "reason": "needs the hub"})
    return pd.DataFrame(rows)


def _table3(trained_a1: float = 0.0) -> pd.DataFrame:
    rows = []
    for rep in ("bert_trained", "bert_random"):
        for layer in (0, 1):
            low = {("bert_trained", 1): 105, ("bert_random", 1): 188}.get((rep, layer), 1)
            frac = trained_a1 if (rep, layer) == ("bert_trained", 1) else 0.0
            if frac >= 0.99:
                low = 192
            for check, k, f, repeats, ranks in (
                    ("assumption2", 192, 1.0, 2000, (192, 192)),
                    ("assumption1", 192, frac, 5000, (low, low + 6 if low < 192 else 192))):
                rows.append({"representation": rep, "layer": layer, "check": check, "k": k,
                             "pass_fraction": f, "repeats": repeats, "T": 2000, "n": 192,
                             "d": 384, "valid": True, "min_rank": ranks[0],
                             "max_rank": ranks[1]})
    rows.append({"representation": "gpt2_trained", "check": "missing", "reason": "needs the hub"})
    return pd.DataFrame(rows)


def _cells(table: pd.DataFrame) -> str:
    return " ".join(map(str, table.columns)) + " " + " ".join(
        str(v) for v in table.to_numpy().ravel())


def test_table1_and_table3_show_no_identifiers():
    """Finding 11: the chapter's Tables 1 and 3 name representations, checks and what was
    tested in words; A2's count is of contexts, not of random draws."""
    shown = fig.table1_display(_table1())
    text = _cells(shown)
    assert not [w for w in IDENTIFIERS if w in text]
    assert "one random attention layer on it" in set(shown["representation"])
    computed = shown[shown["representation"] != "the trained ViT-B/16"]
    a2 = computed[computed[fig.ASSUMPTION].str.startswith("A2: ")]
    assert set(a2[fig.TESTS]) == {"1000 contexts"}
    a1 = computed[computed[fig.ASSUMPTION].str.startswith("A1: ")]
    assert set(a1[fig.TESTS]) == {"5000 draws"}
    assert "461–470" in set(computed[fig.RANKS])
    assert set(computed[fig.DECISIVE]) == {"yes"}
    shown3 = fig.table3_display(_table3())
    text3 = _cells(shown3)
    assert not [w for w in IDENTIFIERS if w in text3]
    # a model the run could not compute keeps the paper's cells, ours "not computed" (review
    # s74: the trained GPT-2 holds the paper's only Assumption 2 failure)
    missing = shown3[shown3[fig.OURS].astype(str).str.startswith("not computed")]
    assert set(missing["paper's column"]) == {"GPT-2 large, trained"} and len(missing) == 6
    assert "0.95" in set(missing[fig.TABLE3_PAPER_FRACTION].astype(str))
    assert set(missing[fig.GEOMETRY]) == {"– / 1024, 1280"}
    computed3 = shown3.drop(index=missing.index)
    assert set(computed3["paper's column"]) == {"BERT-large, trained", "BERT-large, random"}
    assert set(shown3["layer"]) == {"L0", "L1"}
    assert "L0, the embedding layer's output" in fig.TABLE3_LEGEND["layer"]
    assert set(computed3[fig.GEOMETRY]) == {"192, 384 / 512, 1024"}
    # short model names beside the paper's column, which says what each stands in for
    assert set(shown3["model (ours)"]) <= set(fig.TABLE3_MODEL_NAMES.values())
    assert "stands in for" in fig.TABLE3_LEGEND["model (ours)"]


def test_table1_shows_the_papers_values_of_a_column_we_could_not_compute():
    """Review (s69) item 3: the trained ViT-B/16 (no hub) keeps its rows in Table 1, with the
    paper's values (pass fractions and ranks, from memnb.papers.mahdavi) and "not computed" in
    ours; the caption and the per-layer list give the same values with their source."""
    shown = fig.table1_display(_table1().assign(
        reason="x needs the Hugging Face hub: no network: huggingface.co unreachable"))
    hub = _table1().assign(reason="x needs the Hugging Face hub: no network: huggingface.co "
                                  "unreachable (gaierror)")
    trained = shown[shown["representation"] == "the trained ViT-B/16"]
    ref = paper.table1()
    ref = ref[ref["representation"] == "trained_vit_b16"]
    assert list(trained[fig.PAPER_FRACTION]) == [f"{v:.4f}" for v in ref["pass_fraction"]]
    assert list(trained[fig.K]) == [int(k) for k in ref["k"]]
    assert set(trained[fig.OURS]) == {"not computed (hub not reached)"}
    assert set(trained[fig.RANKS]) == {"–"}
    gp = trained[trained[fig.ASSUMPTION].str.startswith("GP: ")]
    assert list(gp[fig.PAPER_RANKS]) == ["309–318"]
    # the paper's column order: the trained ViT after the random ones
    order = list(dict.fromkeys(shown["representation"]))
    assert order == ["embedding layer (random weights)", "one random attention layer on it",
                     "the trained ViT-B/16"]
    # a computed row gets the paper's ranks beside ours
    ra = shown[(shown["representation"] == "one random attention layer on it")
               & shown[fig.ASSUMPTION].str.startswith("GP: ")]
    assert list(ra[fig.PAPER_RANKS]) == ["463–482"]
    assert fig.not_computed_words("needs the hub") == "not computed (needs the hub)"
    sentence = fig.paper_only_sentence(_table1())
    passes, draws = paper.TABLE1_TRAINED_A1_PASSES.value, paper.TABLE1_DRAWS.value
    assert f"A1: 0.9982 at k = 197 ({passes:,} of {draws:,} draws of rank 197, the other " \
           f"{draws - passes} of rank 196)" in sentence
    assert "General Position: 0.0000 at k = 768 (ranks 309-318)" in sentence
    assert fig.paper_only_sentence(_table1().query("check != 'missing'")) == ""
    words = fig.paper_layer_words("trained_vit_b16")
    assert words.startswith("A2 pass (pass fraction 1 at k = 197); A1 pass (pass fraction "
                            f"0.9982 at k = 197: {passes:,} of {draws:,} draws of rank 197); "
                            "General Position fail (pass fraction 0 at k = 768; ranks 309-318)")
    assert fig.paper_layer_words("dinov2_vits14_l0") == ""
    text = fig.dinov2_discussion(SimpleNamespace(fresh=_table1(), cached=None), "quick")
    line = next(x for x in text.splitlines() if x.startswith("- first block of the trained"))
    assert line == f"- first block of the trained ViT-B/16: not computed (needs the hub); the " \
                   f"paper's: {words}."
    # a reason recorded by a run without the hub is stated as a fact about that run
    text = fig.dinov2_discussion(SimpleNamespace(fresh=hub, cached=None), "quick")
    line = next(x for x in text.splitlines() if x.startswith("- first block of the trained"))
    assert line.startswith("- first block of the trained ViT-B/16: not computed (x needs the "
                           "Hugging Face hub, and the run that computed this table could not "
                           "reach huggingface.co (gaierror)); the paper's: ")


def test_table1_tags_the_papers_columns_and_fills_its_rows_from_the_sources(
        no_mahdavi_scorecard):
    """Review (s70) item 7: the [nb] source of the paper's Table 1 values is true of its whole
    columns, so it heads them and opens the caption (not only the sentence on rows not
    computed); the paper's fractions print to four decimals, as ours; the rows not computed
    show the paper's images and tests run, each tagged with its recorded source."""
    assert "[nb]" in paper.TABLE1_NB and fig.TABLE1_PAPER_TAG == "[nb]"
    assert fig.PAPER_FRACTION == "pass, paper [nb]"
    assert fig.PAPER_RANKS == "ranks, paper [nb]"
    shown = fig.table1_display(_table1())
    assert "pass, paper" not in shown.columns
    assert {fig.PAPER_FRACTION, fig.PAPER_RANKS} <= set(shown.columns)
    # every paper fraction shown, computed rows and paper-only rows alike: "–" or four decimals
    assert all(v == "–" or (len(v.split(".")[1]) == 4 and float(v) <= 1)
               for v in shown[fig.PAPER_FRACTION])
    computed = shown[shown["representation"] == "one random attention layer on it"]
    assert list(computed[fig.PAPER_FRACTION]) == ["1.0000", "1.0000", "0.0000"]
    assert list(computed[fig.OURS]) == ["1.0000", "1.0000", "0.0000"]
    # the paper-only rows: its images ([nb], the notebook) and draws (Sec. 5.1), not "–"
    trained = shown[shown["representation"] == "the trained ViT-B/16"].set_index(
        fig.ASSUMPTION)
    images = int(paper.TABLE1_IMAGES.value)
    draws = int(paper.TABLE1_DRAWS.value)
    assert "ipynb" in paper.TABLE1_IMAGES.source and paper.TABLE1_DRAWS.source == "Sec. 5.1"
    assert set(trained[fig.IMAGES]) == {f"{images} (paper [nb])"}
    a2 = fig.CHECK_LABELS["assumption2"]
    assert trained.loc[a2, fig.TESTS] == f"{images} contexts (paper [nb])"
    for check in ("assumption1", "general_position"):
        assert trained.loc[fig.CHECK_LABELS[check], fig.TESTS] == (
            f"{draws} draws (paper, Sec. 5.1)")
    # ours stay untagged
    assert "paper" not in " ".join(computed[fig.IMAGES].astype(str))
    # the caption opens with the source of the paper's columns; the sentence on the rows not
    # computed no longer carries it alone
    lead = fig.table1_caption(_table1(), "full").split(viz.DETAILS)[0]
    assert lead.startswith("Our Table 1: the rank checks of Assumptions 1-3 and General "
                           "Position per representation, beside the paper's values, in the "
                           f"columns marked {paper.TABLE1_NB}.")
    sentence = fig.paper_only_sentence(_table1())
    assert paper.TABLE1_NB not in sentence
    assert sentence.startswith("Rows that the run could not compute show the paper's values "
                               "alone, with its images and tests run, each tagged with its "
                               "source: ")


def test_missing_columns_and_proposition4_are_named_in_words():
    assert fig.missing_sentence(_table1()) == "The trained ViT-B/16 is missing: needs the hub."
    assert "`" not in fig.missing_sentence(_table3())
    table = fig.proposition4_table(draws=1)
    shown = fig.proposition4_display(table)
    assert list(shown.columns) == list(fig.PROPOSITION4_COLUMNS.values())
    assert not [w for w in IDENTIFIERS if w in " ".join(shown.columns)]
    assert len(shown) == len(table)
    # short names, each explained by the legend the chapter folds under the table
    assert list(fig.PROPOSITION4_LEGEND) == list(shown.columns)
    assert all(len(name) <= 23 for name in shown.columns)
    assert shown["distance"].str.fullmatch(r"\d\.\de[+-]\d\d").all()


def test_table1_caption_says_which_images_and_the_papers():
    """Finding 12: the pool is the third-party sample of one image per class, beside the
    paper's sample of ImageNet (2,000 images, 1,973 RGB ones kept by its notebook)."""
    text = fig.images_sentence(_table1())
    assert text.startswith("Images: 1000 JPEGs of the third-party repository "
                           "EliSchwartz/imagenet-sample-images, which holds one image per "
                           "ImageNet-1k class")
    assert f"kept the {int(paper.TABLE1_IMAGES.value):,} RGB ones" in text
    assert "sampled 2,000 images from ImageNet (Sec. 5.1)" in text


def test_table3_sets_our_kruskal_bound_beside_app_j():
    """Finding 13: App. J's estimates (291 trained, 349 random, n = 512) beside what our
    stand-in's draws bound (the lowest rank of a draw), marked as across different models."""
    text = fig.bert_kruskal_sentence(fig.table3_comparison(_table3()))
    assert "App. J: 291 (trained, 57% of n), 349 (random, 68% of n), at n = 512" in text
    assert "a comparison across different models" in text and "not a reproduction" in text
    assert "trained, at most 105 (55% of our n = 192" in text
    assert "random, at most 188 (98% of our n = 192" in text
    assert "bounds the Kruskal rank from above" in text
    passing = fig.bert_kruskal_sentence(fig.table3_comparison(_table3(trained_a1=1.0)))
    assert "trained, estimated at our n = 192 or more" in passing
    gpt = _table3().assign(representation="gpt2_random")
    assert fig.bert_kruskal_sentence(fig.table3_comparison(gpt)) == ""


def _write(root: Path, name: str, table: pd.DataFrame, provenance: dict) -> None:
    folder = root / "full"
    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / f"{name}.csv", index=False)
    (folder / f"{name}.json").write_text(json.dumps(provenance))


def test_sweep_scales_say_which_figures_ran_at_full_scale(tmp_path):
    """Finding 4: which synthetic sweeps have a full-scale run, complete or partial, and which
    ran only at the quick profile's reduced settings (named beside the official ones)."""
    seeds = pd.DataFrame({"seed": [0, 1, 2], "T": [1, 1, 1]})
    _write(tmp_path, "mahdavi.context", seeds, {"complete": True})
    _write(tmp_path, "mahdavi.heads", seeds[:2],
           {"complete": False, "points_done": 3, "missing_points": [{"seed": 2, "H": 5}]})
    text = fig.sweep_scales_markdown("quick", root=tmp_path)
    lines = {line.split(":")[0]: line for line in text.splitlines() if line.startswith("- ")}
    assert set(lines) == {"- Fig. 2a", "- Fig. 2b", "- Fig. 2c", "- Fig. 3", "- Fig. 4",
                          "- Fig. 5"}
    assert "complete; 3 seeds" in lines["- Fig. 2b"]
    assert "a full-scale run (the official code's grid and recipe) is committed" in lines[
        "- Fig. 2b"]
    assert "**partial** (3 of 4 points ran" in lines["- Fig. 2a"]
    assert "; 2 seeds with points so far" in lines["- Fig. 2a"]
    for figure in ("- Fig. 2c", "- Fig. 3", "- Fig. 4", "- Fig. 5"):
        assert "**no full-scale run**" in lines[figure]
        assert "d = 16 (official 64)" in lines[figure]
        assert "learning rate = 0.03 (official 0.001)" in lines[figure]
        assert "batch = 128 (official 256)" in lines[figure]
    assert "T = 200 (official 10000, 15000, 20000)" in lines["- Fig. 2c"]
    # every sub-sweep's official sizes, read from memnb.papers.mahdavi
    assert ("T = 300 (official: heads sweep 30000, 50000, 70000, 90000, 110000, 130000; "
            "context sweep 20000, 30000, 40000, 50000, 60000)") in lines["- Fig. 4"]
    # the sizes the official reproduce.sh loops over (the notes give them as ranges)
    assert ("heads sweep, shared contexts 10000, 15000, 20000, 25000, 30000;"
            in lines["- Fig. 5"])
    assert "[reconstruction" not in lines["- Fig. 5"]
    assert "context sweep, shared contexts 10000, 15000, 20000, 25000" in lines["- Fig. 5"]
    assert "context sweep, non-shared contexts 10000, 30000" in lines["- Fig. 5"]
    # Fig. 3's search grid is ours, not official
    assert "(full profile, ours: H = 4: T = 330" in lines["- Fig. 3"]
    assert fig.official_sizes("Fig. 2a") == "10000, 20000, 30000, 40000"
    assert fig.official_sizes("Fig. 9") is None
    assert ("the cap turns a pass into trend, and a failed criterion gives differs at any "
            "scale") in text
    assert "at most a trend" not in text
    assert "this build's own full-scale run" in fig.sweep_scales_markdown("full", tmp_path)
    # the header no longer says that every full-scale run is at the official grid
    assert text.startswith("Which synthetic sweeps have a full-scale run, and on which device "
                           "it was computed, generated from")
    # a provenance that names no device adds no device words
    assert "computed on" not in lines["- Fig. 2b"]


def test_sweep_scales_name_the_device_of_each_full_run(tmp_path):
    """Review item 6: each committed full-scale run names the device it was computed on, read
    from its provenance: the kind of device and each card of a run resumed on several, with the
    points it computed (memnb.provenance.device_label)."""
    seeds = pd.DataFrame({"seed": [0, 1, 2], "T": [1, 1, 1]})
    _write(tmp_path, "mahdavi.context", seeds,
           {"complete": True, "device": "cpu", "device_name": "CPU (x86_64, 2 threads)"})
    calls = [{"device_name": "NVIDIA H200", "points_done": 24},
             {"device_name": "NVIDIA H100 80GB HBM3", "points_done": 48},
             {"device_name": "NVIDIA H200", "points_done": 88}]
    _write(tmp_path, "mahdavi.heads", seeds,
           {"complete": True, "device": "cuda", "device_name": "NVIDIA H200",
            "invocations": calls})
    text = fig.sweep_scales_markdown("quick", root=tmp_path)
    lines = {line.split(":")[0]: line for line in text.splitlines() if line.startswith("- ")}
    assert lines["- Fig. 2a"].endswith(
        "; computed on GPU: NVIDIA H200 (64 points) and NVIDIA H100 80GB HBM3 (24 points), "
        "2 kinds of card for one grid.")
    assert lines["- Fig. 2b"].endswith("; computed on CPU (x86_64, 2 threads).")
    assert "computed on" not in lines["- Fig. 2c"]  # no full-scale run
    # one card: its name alone, with the kind of device
    from memnb.provenance import device_words

    assert device_words({"device": "cuda:0", "device_name": "NVIDIA H200"}) == (
        "GPU: NVIDIA H200")
    assert device_words({}) == ""


def test_sweep_scales_name_the_committed_devices():
    """The committed Fig. 2a run ran on two kinds of GPU; the list says so, from its JSON."""
    from memnb.provenance import device_shares
    from memnb.results import load

    heads = load("mahdavi.heads", "full")
    if heads is None:
        pytest.skip("no committed full-scale Fig. 2a run")
    shares = device_shares(heads.provenance)
    assert shares, "the committed run records its invocations, so each card's points are known"
    line = next(x for x in fig.sweep_scales_markdown("quick").splitlines()
                if x.startswith("- Fig. 2a:"))
    for name, points in shares.items():
        assert f"{name} ({points} points)" in line
    if len(shares) > 1:
        assert f"{len(shares)} kinds of card for one grid" in line


def test_sweep_scales_say_fig3_runs_on_a_grid_of_ours(tmp_path):
    """Review finding 2: Fig. 3's full profile tries a grid of ours around the paper's sizes
    (the official reproduce.sh runs only its two sizes), read from the profiles and
    memnb.papers.mahdavi.sweeps; the other sweeps' full profiles use the official sizes."""
    assert fig.full_grid("mahdavi.saturation") == fig.OURS_AROUND
    assert fig.OURS_AROUND == "the official recipe, on a grid of ours around the paper's sizes"
    for name in fig.SWEEPS:
        if name != "mahdavi.saturation":
            assert fig.full_grid(name) == fig.OFFICIAL_GRID, name
    _write(tmp_path, "mahdavi.saturation", pd.DataFrame({"seed": [0, 1], "T": [1, 1]}),
           {"complete": True})
    text = fig.sweep_scales_markdown("quick", root=tmp_path)
    line = next(x for x in text.splitlines() if x.startswith("- Fig. 3:"))
    assert line.startswith("- Fig. 3: a full-scale run (the official recipe, on a grid of ours "
                           "around the paper's sizes) is committed, complete; 2 seeds")
    full = fig.sweep_scales_markdown("full", tmp_path)
    assert ("at the official code's grid and recipe (Fig. 3: the official recipe, on a grid of "
            "ours around the paper's sizes).") in full
    # computed, not typed: a full profile with the official sizes reads as official
    assert fig._profile_size_values({"configs": [[4, [550]], [8, 1300]]}) == {550, 1300}
    assert fig._official_size_values("Fig. 3") == {550, 1300}
    assert fig._profile_size_values({"sizes": [1, 2], "context_sizes": [3]}) == {1, 2, 3}


def test_fig4_and_fig5_titles_name_the_context_and_the_fixed_sizes(monkeypatch,
                                                                   no_mahdavi_scorecard):
    """Finding 10: Fig. 4's panels say the contexts are not shared; Fig. 5's give n (or H),
    d_h and T, as Fig. 4's do."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(fig, "verdict_run", lambda name, profile: None)
    shown: list = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    rows = []
    for shared in (True, False):
        for seed in range(2):
            for h, mse in zip([1, 2, 4], [0.08, 0.04, 0.02], strict=True):
                rows.append({"sweep": "heads", "shared": shared, "H": h, "n": 8, "d_h": 16,
                             "T": 100 if shared else 300, "mse": mse, "seed": seed})
            for n, mse in zip([2, 8], [0.07, 0.03], strict=True):
                rows.append({"sweep": "context", "shared": shared, "H": 4, "n": n, "d_h": 16,
                             "T": 100, "mse": mse, "seed": seed})
    fig.fig5(SimpleNamespace(fresh=pd.DataFrame(rows), cached=None, partial=None), "quick")
    titles = [ax.get_title() for ax in shown[0].axes if ax.get_title()]
    assert titles == ["this build's quick run\nn = 8, d_h = 16, T = 300 (non-shared); "
                      "T = 100 (shared)",
                      "this build's quick run\nH = 4, d_h = 16, T = 100"]
    shown.clear()
    # review item 8: with d in the table the width is named too (no C: scalar labels)
    fig.fig5(SimpleNamespace(fresh=pd.DataFrame(rows).assign(d=16, C=1), cached=None,
                             partial=None), "quick")
    titles = [ax.get_title() for ax in shown[0].axes if ax.get_title()]
    assert titles[1] == "this build's quick run\nH = 4, d_h = 16, T = 100\nd = 16"
    shown.clear()
    nonshared = []
    for seed in range(2):
        for h, c in zip([1, 2, 3, 4], [30, 100, 180, 260], strict=True):
            nonshared.append({"sweep": "heads", "seed": seed, "T": 300, "H": h, "n": 8,
                              "d_h": 16, "memorized": c + seed, "accuracy": (c + seed) / 300,
                              "capacity": h * 7 + 1, "steps": 100})
        for n, c in zip([2, 8], [140, 270], strict=True):
            nonshared.append({"sweep": "context", "seed": seed, "T": 300, "H": 4, "n": n,
                              "d_h": 16, "memorized": c + seed, "accuracy": (c + seed) / 300,
                              "capacity": 4 * (n - 1) + 1, "steps": 100})
    fig.fig4(SimpleNamespace(fresh=pd.DataFrame(nonshared), cached=None, partial=None),
             "quick")
    titles = [ax.get_title() for ax in shown[0].axes if ax.get_title()]
    assert titles == ["this build's quick run\nnon-shared contexts, n = 8, d_h = 16, T = 300",
                      "this build's quick run\nnon-shared contexts, H = 4, d_h = 16, T = 300"]
    # matplotlib draws text as it is: no Markdown backticks in any title (review finding 5)
    assert not any("`" in t for t in titles)
    shown.clear()
    # review item 8: d and C, read from the table, as Fig. 2a's titles give them
    fig.fig4(SimpleNamespace(fresh=pd.DataFrame(nonshared).assign(d=16, C=100), cached=None,
                             partial=None), "quick")
    titles = [ax.get_title() for ax in shown[0].axes if ax.get_title()]
    assert titles == ["this build's quick run\nnon-shared contexts, n = 8, d_h = 16, T = 300"
                      "\nd = 16, C = 100",
                      "this build's quick run\nnon-shared contexts, H = 4, d_h = 16, T = 300"
                      "\nd = 16, C = 100"]
    plt.close("all")


def test_fig2c_caption_names_the_peak_before_the_knee_and_the_seeds_of_its_noise(monkeypatch,
                                                                                 no_mahdavi_scorecard):
    """Finding 9: the quick run peaks at d_h = 4 and falls at d_h = n = 6; the caption says so,
    and that its noise tolerance is a two-seed standard deviation at one d_h."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(fig, "verdict_run", lambda name, profile: None)
    monkeypatch.setattr("IPython.display.display", lambda figure: None)
    rows = [{"seed": seed, "T": 200, "d_h": v, "n": 6, "H": 4, "memorized": c,
             "accuracy": c / 200, "capacity": 4 * (min(6, v) - 1) + 1, "steps": 100}
            for seed, counts in enumerate([[86, 136, 159, 144, 129, 161],
                                           [92, 99, 168, 148, 169, 177]])
            for v, c in zip([1, 2, 4, 6, 9, 12], counts, strict=True)]
    text = fig.fig2c(SimpleNamespace(fresh=pd.DataFrame(rows), cached=None, partial=None),
                     "quick").data
    assert "(the standard deviation of 2 seeds at the single d_h = 9" in text
    assert ("On d_h ≤ n the mean count is largest before the knee, at d_h = 4 (163.5), and "
            "falls to 146.0 at d_h = n = 6") in text
    # review item 3: the argument for no gain past n is ours, and the logits are affine in e
    assert fig.FIG2C_ARGUMENT in text
    assert fig.FIG2C_ARGUMENT.startswith("*(ours)* With a shared context the logits")
    assert "an affine function of the raw query" in text and "linear map" not in text
    plt.close("all")


def test_file_and_host_names_in_captions_are_not_made_links():
    """The book's linkify extension links only URLs written with their scheme
    (book/_config.yml: ``myst_linkify_fuzzy_links: false``): the file name ``reproduce.sh`` of
    Fig. 3's caption and the host huggingface.co of Table 1's missing column stay text, while
    an https:// address stays a link."""
    import yaml
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = yaml.safe_load((Path(__file__).parents[1] / "book" / "_config.yml").read_text())
    extensions = config["parse"]["myst_enable_extensions"]
    fuzzy = config["sphinx"]["config"]["myst_linkify_fuzzy_links"]
    assert "linkify" in extensions and fuzzy is False
    md = create_md_parser(MdParserConfig(enable_extensions=set(extensions),
                                         linkify_fuzzy_links=fuzzy), RendererHTML)
    assert "`reproduce.sh`" in fig.PAPER_SIZES_SOURCE
    html = md.render(f"{fig.PAPER_SIZES_SOURCE} No network: huggingface.co unreachable; see "
                     "https://openreview.net/forum?id=8JCg5xJCTPR and reproduce.sh.")
    assert "http://reproduce.sh" not in html and "http://huggingface.co" not in html
    assert "<code>reproduce.sh</code>" in html
    assert '<a href="https://openreview.net/forum?id=8JCg5xJCTPR">' in html


def test_synthetic_figures_say_why_no_paper_values_are_drawn_and_what_the_paper_plots():
    """Figs. 2a-5 draw none of the paper's values: each caption says why (not published) and
    what the paper's y-axis is beside ours, from one function and the values of
    memnb.papers.mahdavi (the paper: accuracy, a fraction; ours: a count, accuracy × T)."""
    for figure in ("Fig. 2a", "Fig. 2b", "Fig. 2c", "Fig. 3", "Fig. 4", "Fig. 5"):
        text = fig.paper_counterpart(figure, "ours-y")
        assert text.startswith(f"Mahdavi et al. {figure}; the paper's values are not drawn: ")
        assert paper.CURVES_NOT_PUBLISHED in text
        assert f"The paper plots {paper.FIG_Y[figure].value} ({paper.FIG_Y[figure].source})" in (
            text)
        assert text.endswith("; we plot ours-y")
    assert "a fraction" in paper.FIG_Y["Fig. 2a"].value and "MSE" in paper.FIG_Y["Fig. 5"].value


def test_fig4_and_fig5_captions_name_the_paper_y_axis_beside_ours(monkeypatch,
                                                                  no_mahdavi_scorecard):
    import matplotlib.pyplot as plt

    monkeypatch.setattr(fig, "verdict_run", lambda name, profile: None)
    monkeypatch.setattr("IPython.display.display", lambda figure: None)
    regression = pd.DataFrame([{"sweep": sweep, "shared": shared, "H": h, "n": 8, "d_h": 16,
                                "T": 100, "mse": 0.1 / h, "seed": 0}
                               for shared in (True, False) for sweep in ("heads", "context")
                               for h in (1, 2, 4)])
    text = fig.fig5(SimpleNamespace(fresh=regression, cached=None, partial=None), "quick").data
    lead = text.split("<details")[0]
    assert ("*Paper counterpart: Mahdavi et al. Fig. 5; the paper's values are not drawn: the "
            "values it plots are not published") in lead
    assert ("The paper plots the training MSE of the regression task (App. A); we plot training "
            "MSE (best checkpoint)") in lead
    nonshared = pd.DataFrame([{"sweep": "heads", "seed": 0, "T": 300, "H": h, "n": 8, "d_h": 16,
                               "memorized": 40 * h, "accuracy": 40 * h / 300,
                               "capacity": 7 * h + 1, "steps": 100} for h in (1, 2, 3, 4)])
    lead = fig.fig4(SimpleNamespace(fresh=nonshared, cached=None, partial=None),
                    "quick").data.split("<details")[0]
    assert ("The paper plots memorization as the average accuracy across examples, a fraction "
            "(App. A, for every classification experiment; App. I.1); we plot examples "
            "memorized (accuracy × T).*") in lead
    plt.close("all")


def _fig1_rows(pool: int, draws: int, ks: list[int], method: str = "prefix") -> pd.DataFrame:
    """Fig. 1 rows of one run: a pool of ``pool`` images, ``draws`` draws per k."""
    return pd.DataFrame([{"representation": "random_attention", "check": "figure1", "k": k,
                          "pass_fraction": 1.0 if k < 250 else 0.0, "repeats": draws,
                          "T": pool, "method": method, "n": 197, "d": 768} for k in ks])


def test_fig1_labels_each_run_with_its_draws_and_says_the_draws_are_nested(
        monkeypatch, no_mahdavi_scorecard):
    """The reduced run's curve is labelled as this build's run with its draws per k and pool,
    apart from the committed full run's; the caption says (ours) that both draw nested subsets
    where the paper's notebook draws an independent subset per k."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(fig, "verdict_run", lambda name, profile: None)
    shown: list = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    quick = _fig1_rows(800, 6, [1, 197, 241, 281, 768])
    full = _fig1_rows(1000, 1000, [1, 191, 197, 241, 281, 291, 768])
    text = fig.fig1(quick, full, "quick").data
    labels = [t.get_text() for legend in shown[0].legends for t in legend.get_texts()]
    assert "ours, this build's reduced quick run (6 draws per k, 800 images)" in labels
    assert "ours, committed full run (1000 draws per k, 1000 images)" in labels
    assert "ours, Random Attention" not in labels
    # the paper's points: the notebook's saved output, with the inferred point marked
    assert fig.FIG1_PAPER_LABEL in labels
    assert "k = 241 inferred" in fig.FIG1_PAPER_LABEL
    assert not any("read off Fig. 1" in label for label in labels)
    assert fig.fig1_paper_points() in text
    assert ("k = 281, 291, 301, 331 read off the plot saved there (its Fig. 1 cell prints no "
            "numbers), as our notes give them, and k = 251, 261, 271, 311, 321 read off the "
            "same plot by us (ours); the 1.0 at k = 241 inferred from \"about 1.0 up to ~240\" "
            "(our notes)") in text and "k = 197, 768 printed by its Table 1 cells" in text
    assert "Both curves of ours draw nested subsets (ours)" in text
    assert "draws an independent subset for each draw at each k" in text
    assert fig.fig1_label("x", _fig1_rows(10, 1, [1])) == "ours, x (1 draw per k, 10 images)"
    shown.clear()
    alone = fig.fig1(_fig1_rows(800, 6, [1, 197], method="subsets"), None, "quick").data
    assert "Ours draw an independent random subset for each draw at each k" in alone
    assert "nested" not in alone
    plt.close("all")


def test_fig1_lead_says_what_the_verdict_rests_on():
    """Review finding 1: the Fig. 1 caption's visible lead says, computed from the run the
    verdict reads, that it rests on one draw of the random layer and another image set, that
    its tolerance is ours, and whether the claim's conclusions agree with the paper's."""
    rows = _fig1_rows(1000, 1000, [1, 197, 241, 281, 768]).assign(seed=0)
    lead = fig.fig1_verdict_basis(rows)
    assert lead.startswith(" In the verdict's run our curve rests on one draw of the random "
                           "attention layer (seed 0;")
    assert ("1000 images, one each from 1000 ImageNet-1k classes (a sample of one image per "
            "class), not the paper's 1,973 RGB images of the first 2,000 of ImageNet-1k's "
            "training set") in lead
    assert "the verdict's tolerance is ours" in lead
    assert ("the conclusions the claim draws agree with the paper's (Assumption 1 holds at "
            "k = 197, General Position fails at k = 768; a pass at a pass fraction ≥ 0.99 "
            "[reconstruction]).") in lead
    # ours failing at k = 197 disagrees with the paper's pass there
    bad = rows.assign(pass_fraction=0.0)
    assert "do not all agree with the paper's (Assumption 1 fails at k = 197" in (
        fig.fig1_verdict_basis(bad))
    assert fig.fig1_verdict_basis(None) == ""
    assert fig.fig1_verdict_basis(_table1()) == ""  # no Fig. 1 curve in the run


def test_the_assumption_verdicts_list_the_row_assumption_3_refers_to():
    """Review finding 4: the Assumption 3 verdict refers to row "Sec. 4.4 on a trained ViT";
    the chapter shows that row in the list under "Sec. 4.4 against the data", as it shows the
    Assumption 3 row."""
    nb = json.loads((Path(__file__).parents[1] / "notebooks" / "mahdavi.ipynb").read_text())
    cell = next("".join(c["source"]) for c in nb["cells"]
                if "assumption_items = " in "".join(c["source"]))
    assert '"Assumption 3"' in cell and '"Sec. 4.4 on a trained ViT"' in cell


def test_fig1_words_use_the_pass_rule_and_say_where_no_draw_passes():
    from memnb.figures.mahdavi import _fig1_run

    curve = pd.DataFrame({"k": [10, 20, 30, 40], "pass_fraction": [1.0, 0.98, 0.5, 0.0],
                          "T": 100, "repeats": 50})
    words = _fig1_run("our run", curve)
    assert "at least 0.99) up to k = 10," in words  # 0.98 at k = 20 is not a pass
    assert "no draw passes from k = 40 on" in words
    curve["pass_fraction"] = [0.9, 0.5, 0.2, 0.1]
    words = _fig1_run("our run", curve)
    assert "never reaches a pass fraction of 0.99" in words
    assert "some draw passes at every k up to 40" in words


def _heads_sweep(counts: list[int], *, T: int = 300) -> pd.DataFrame:
    return pd.DataFrame([{"seed": seed, "T": T, "H": h, "n": 8, "d_h": 16, "C": 100,
                          "memorized": c + seed, "accuracy": (c + seed) / T,
                          "capacity": 7 * h + 1, "steps": 100}
                         for seed in range(2) for h, c in zip([1, 2, 3, 4], counts, strict=True)])


def test_a_trend_caption_says_why_outside_its_details(monkeypatch, no_mahdavi_scorecard):
    """Review finding (misleading captions): a trend's visible lead says why it is not
    reproduced (:func:`memnb.figures.mahdavi.trend_reason`), not only the folded details; a
    row that is not a trend asks for no reason."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(fig, "verdict_run", lambda name, profile: None)
    monkeypatch.setattr("IPython.display.display", lambda figure: None)
    asked: list = []

    def reason(number: str, profile: str) -> str:
        asked.append(number)
        return f"Why trend, not reproduced: the reason of {number}."

    monkeypatch.setattr(fig, "trend_reason", reason)
    text = fig.fig2a(SimpleNamespace(fresh=_heads_sweep([30, 100, 180, 260]), cached=None,
                                     partial=None), "quick").data
    lead, _, details = text.partition("<details")
    assert ("Verdict (scorecard, Fig. 2a): **trend**. Why trend, not reproduced: the reason of "
            "Fig. 2a.") in lead
    assert "the reason of" not in details
    no_mahdavi_scorecard.status = "reproduced"
    text = fig.fig2a(SimpleNamespace(fresh=_heads_sweep([30, 100, 180, 260]), cached=None,
                                     partial=None), "quick").data
    assert asked == ["Fig. 2a"] and "Why trend" not in text
    plt.close("all")


def test_the_guarantee_is_set_beside_the_counts_as_an_existence_bound():
    """Review finding (unclear): training cannot test Theorem 1, an existence bound; the
    sentence says where the counts above chance lie against it, computed."""
    text = fig._margin_sentence(_heads_sweep([30, 100, 180, 260]), "H")
    assert "holds as a lower bound" not in text
    assert ("the mean count above chance is at or above the guarantee at 4/4 points (consistent "
            "with the theorem; training cannot refute an existence bound).") in text
    below = fig._margin_sentence(_heads_sweep([30, 100, 180, 260]).assign(capacity=500), "H")
    assert "at or above the guarantee at 0/4 points" in below
    # counts below the guarantee are not said to sit above it, nor to be consistent with it
    assert "above Theorem 1's guarantee" not in below and "consistent with" not in below
    assert "lie at" in below and "training can fall short" in below
    assert "sit " in text and "above Theorem 1's guarantee" in text


def _provenance() -> dict:
    return {"git_commit": "5c7ebce0000", "started_utc": "2026-11-26T02:38:00",
            "device_name": "CPU (x86_64, 2 threads)", "seeds": 1}


def test_the_note_above_a_table_names_the_run_it_shows():
    """Review finding (unclear): the note above Tables 1 and 3 says which run the table shows
    (the committed full-scale run, where the table is its) and where this build's run is."""
    table = _table1()
    result = SimpleNamespace(name="mahdavi.table1", fresh=table, cached=table, partial=None,
                             cached_provenance=_provenance())
    shown, used = fig.full_or_fresh(result, "quick")
    assert used == "full"
    text = fig.shown_run_note(result, "quick", "Fig. 1 draws it beside the full run")
    assert text.startswith("The table below shows the committed full-scale run of "
                           "`mahdavi.table1` (2026-11-26, CPU (x86_64, 2 threads), 1 seed, "
                           "commit 5c7ebce")
    assert text.endswith("). This build's `quick` run is not in the table; Fig. 1 draws it "
                         "beside the full run.")
    assert "beside the committed" not in text
    alone = SimpleNamespace(name="mahdavi.table3", fresh=table, cached=None, partial=None,
                            cached_provenance=None)
    assert fig.shown_run_note(alone, "quick", "unused") == (
        "The table below shows this build's `quick` run of `mahdavi.table3` (no full-scale run "
        "has been computed yet).")
    assert "this build's `full` run" in fig.shown_run_note(result, "full")
    nb = json.loads((Path(__file__).parents[1] / "notebooks" / "mahdavi.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    for name in ("table1", "table3"):
        cell = next(c for c in cells if f'fresh_and_cached("mahdavi.{name}"' in c)
        assert f"figures.shown_run_note({name}, profile" in cell and ".note)" not in cell


def test_the_proof_column_and_the_fig1_legend_say_whose_they_are():
    """Review findings (unclear, cosmetic): the proof's column is marked [reconstruction]; the
    paper's Fig. 1 legend names the k read off its plot by us, from the points' origin; a
    slider frame of one head says "1 head"."""
    import matplotlib.pyplot as plt

    from memnb.constructions import mha_checks
    from memnb.constructions.mha import construct

    built = construct(*mha_checks.theory_dataset(5, 3, 6, shared=True, seed=0), 2, 6, seed=0)
    header = fig.proof_vs_code_markdown(built).splitlines()[0]
    assert header == ("| step | what the proof does (App. B) *[reconstruction]* | what our code "
                      "does (ours) | measured on this instance |")
    ref = paper.figure1()
    ours = ", ".join(str(int(k)) for k in ref.loc[ref["origin"] == "us", "k"])
    assert ours and f"k = {ours}\nread off its plot by us" in fig.FIG1_PAPER_LABEL
    grid = pd.DataFrame([{"H": h, "n": 3, "d_h": v, "d": 10, "capacity": h * 2 + 1,
                          "z_rank": h * 2 + 1} for h in (1, 2) for v in (1, 2, 3)])
    titles = [fig.construction_frame(grid, h).axes[0].get_title() for h in (1, 2)]
    assert titles == ["H = 1 head, d = 10", "H = 2 heads, d = 10"]
    with pytest.raises(ValueError, match=r"H = 7 is not in the construction grid; it holds "
                                         r"H ∈ \[1, 2\]"):
        fig.construction_frame(grid, 7)
    plt.close("all")


def test_fig2b_and_fig2c_titles_give_d_and_c_as_fig2a_does(monkeypatch, no_mahdavi_scorecard):
    """Review item 8: the panel titles of Figs. 2b and 2c give the width d and the classes C,
    read from the table, as Fig. 2a's do."""
    import matplotlib.pyplot as plt

    monkeypatch.setattr(fig, "verdict_run", lambda name, profile: None)
    shown: list = []
    monkeypatch.setattr("IPython.display.display", shown.append)
    rows = [{"seed": seed, "T": 200, "n": n, "H": 4, "d_h": 16, "d": 16, "C": 100,
             "memorized": c + seed, "accuracy": (c + seed) / 200, "capacity": 4 * (n - 1) + 1,
             "steps": 100} for seed in range(2)
            for n, c in zip([1, 2, 4, 8], [6, 77, 137, 154], strict=True)]
    fig.fig2b(SimpleNamespace(fresh=pd.DataFrame(rows), cached=None, partial=None), "quick")
    assert shown[0].axes[0].get_title() == ("this build's quick run\nshared context, H = 4, "
                                            "d_h = 16, d = 16, C = 100")
    shown.clear()
    rows = [{**r, "d_h": r["n"], "n": 6} for r in rows]
    fig.fig2c(SimpleNamespace(fresh=pd.DataFrame(rows), cached=None, partial=None), "quick")
    assert shown[0].axes[0].get_title() == ("this build's quick run\nshared context, H = 4, "
                                            "n = 6, d = 16, C = 100")
    plt.close("all")


def test_construction_frame_keeps_coinciding_points_of_each_n_visible():
    """Review of the sliders: where d_h lies below every n, the counts of all n coincide; each
    n has its own marker shape, the earlier ones larger and hollow, so none hides another."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = pd.DataFrame([{"H": 1, "n": n, "d_h": v, "d": 10, "capacity": min(n, v),
                          "z_rank": min(n, v)} for n in (3, 6, 9) for v in (1, 2, 3)])
    frame = fig.construction_frame(grid, 1)
    points = [ln for ln in frame.axes[0].get_lines() if ln.get_linestyle() == "None"]
    plt.close(frame)
    assert len(points) == 3
    assert len({ln.get_marker() for ln in points}) == 3
    sizes = [ln.get_markersize() for ln in points]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == 3
    assert [ln.get_markerfacecolor() == "none" for ln in points] == [True, True, False]


def test_fig3_caption_names_a_search_its_grid_did_not_bracket():
    """Review (s67) item 2: the quick sizes were chosen to bracket what the model memorizes; a
    seed that memorized the largest size tried is named, computed from the table."""
    rows = [{"H": h, "seed": seed, "T": t, "accuracy": acc}
            for h, seed, grid in ((4, 0, {80: 1.0, 120: 1.0, 160: 1.0}),
                                  (4, 1, {80: 1.0, 120: 0.99, 160: 0.98}),
                                  (8, 0, {250: 1.0, 300: 0.97}))
            for t, acc in grid.items()]
    table = pd.DataFrame(rows)
    found = fig.unbracketed(table)
    assert found[["H", "seed", "largest"]].values.tolist() == [[4, 0, 160]]
    assert fig._unbracketed_text(table) == (
        ", but not everywhere: at H = 4, seed 0 memorized 160, the largest size tried, so "
        "there the grid does not bracket it")
    top = (table["H"] == 4) & (table["seed"] == 0) & (table["T"] == 160)
    bracketed = table.assign(accuracy=table["accuracy"].where(~top, 0.98))
    assert fig._unbracketed_text(bracketed) == ""
    # a search that memorized nothing is not "at the top of the grid"
    nothing = pd.DataFrame({"H": [4, 4], "seed": [0, 0], "T": [80, 160], "accuracy": [0.9, 0.8]})
    assert fig._unbracketed_text(nothing) == ""


def test_a_row_said_above_shows_its_status_and_points_back(monkeypatch):
    """Review (s67) item 7: the chapter prints the DINOv2 row's evidence once, in the paragraphs
    above it; the row below shows its status (and the cap's reason) and points back, while the
    scorecard keeps the row's whole text."""
    rows = {"A": SimpleNamespace(item="A", ours=False, claim="claim a", status="reproduced",
                                 measured="long evidence a"),
            "B": SimpleNamespace(item="B", ours=True, claim="claim b", status="trend",
                                 measured="long evidence b [a smaller pool, at most trend]")}
    monkeypatch.setattr(fig, "scorecard_row", lambda number, profile: rows[number])
    text = fig.verdicts_markdown(["A", "B"], "quick", said_above={"B": "the text above"})
    assert "**A** (claim a). Verdict: **reproduced**: long evidence a." in text
    assert ("**B** *(ours)* (claim b). Verdict: **trend** [a smaller pool, at most trend]. Its "
            "evidence is the text above; the scorecard at the end of the chapter gives the row in "
            "full.") in text
    assert "long evidence b" not in text
    assert criteria.cap_reason("no cap here") == ""


def test_long_clause_lists_become_short_sentences():
    """Review (s67) item 7: the DINOv2 text is split into sentences at the "; " outside
    parentheses, so a parenthesis keeps its own semicolons."""
    assert fig._sentences("first part (a; b); second part; third (c [d; e]).") == (
        "First part (a; b). Second part. Third (c [d; e]).")


def test_fig2c_argument_marks_app_a_as_a_reconstruction():
    """Review (s67) item 8: App. A's remark, whose symbols we restored, is marked so."""
    assert "(App. A *[reconstruction: its symbols are stripped from our text and restored by " \
           "us]*: a larger d_h trains faster" in fig.FIG2C_ARGUMENT


def test_the_slider_says_rank_z_once_and_when_it_counts_examples():
    """Review (s67) item 10: the slider's axis and legend say rank Z; its caption says, from the
    grid, where rank Z is also the number of examples memorized exactly."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = pd.DataFrame([{"H": 1, "n": 3, "d_h": v, "d": 10, "capacity": min(3, v),
                          "z_rank": min(3, v), "memorized_all": True} for v in (1, 2, 3, 4)])
    frame = fig.construction_frame(grid, 1)
    ax = frame.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert ax.get_ylabel() == "rank Z (markers) and count (dashed)"
    assert "examples memorized exactly" not in ax.get_ylabel() + " ".join(labels)
    plt.close(frame)
    assert fig._rank_is_count(grid) == ("So in every one rank Z is also the number of examples "
                                        "the construction memorizes exactly.")
    grid.loc[0, "memorized_all"] = False
    assert fig._rank_is_count(grid).startswith("In 3 of 4, those with both, rank Z is also")
    assert fig._rank_is_count(grid.assign(z_rank=0)).startswith("In none")


def test_the_slider_flags_the_count_as_a_reconstruction_and_keeps_one_y_axis():
    """Review of the sliders: the chapter's Theorem 1 box tags the count's formula
    [summary + reconstruction]; the slider's legend and caption carry the tag; its y-label says
    which marks are which; the caption says the y-axis is fixed across frames (computed from
    the limits the frames use)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = pd.DataFrame([{"H": h, "n": 3, "d_h": v, "d": 10, "capacity": h * (min(3, v) - 1) + 1,
                          "z_rank": h * (min(3, v) - 1) + 1, "memorized_all": True}
                         for h in (1, 2) for v in (1, 2, 3, 4)])
    limits = []
    for h in (1, 2):
        frame = fig.construction_frame(grid, h)
        ax = frame.axes[0]
        labels = ax.get_legend_handles_labels()[1]
        assert "Theorem 1's count H(min(n, d_h)−1)+1 [reconstruction], n=3" in labels
        assert ax.get_ylabel() == fig.CONSTRUCTION_YLABEL
        limits.append(ax.get_ylim())
        plt.close(frame)
    assert limits[0] == limits[1] == fig.construction_ylim(grid) == (0.0, 7.0)
    text = fig.construction_caption(grid).data
    assert "Theorem 1's count H(min(n, d_h)−1)+1 (dashed lines; the formula is our " \
           "*[reconstruction]*)" in text
    assert "The y-axis is the same in every frame, 0 to 7, so heights compare across H." in text


def test_table3_paper_column_is_tagged_with_its_notebook_source():
    """Review: Table 3's paper column carried no tag, though our notes give its cells from the
    official notebook's saved output (gpt-bert.ipynb), as Table 1's, which is tagged [nb]: the
    header and the caption's lead say so, from the sources recorded in memnb.papers.mahdavi."""

    from memnb.papers import mahdavi as paper

    assert paper.table3()["source"].str.contains("gpt-bert.ipynb", regex=False).all()
    assert fig.TABLE3_PAPER_FRACTION == "pass, paper [nb]"
    from memnb.results import load

    table = load("mahdavi.table3", "full").table  # committed, in every clone
    assert fig.TABLE3_PAPER_FRACTION in fig.table3_display(table).columns
    assert fig.table3_caption(table, "full").startswith(
        "Our Table 3: the rank checks per model and layer, beside the paper's (columns marked "
        "[nb]: from the saved output of the")
