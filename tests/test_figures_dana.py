"""Prose of the Dana chapter computed in memnb.figures.dana: Theorem 2's paragraph and the
App. B.2 depth note."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from memnb.figures import dana as figures  # noqa: E402
from memnb.papers import dana as paper  # noqa: E402


def _thm2_rows(informative: list[bool]) -> pd.DataFrame:
    rows = [{"N": 869, "d": 867, "bound": 3763.2, "kl_theorem_lambda": 0.634,
             "kl_rank_d_svd": 6.7e-8, "uniform_kl": 5.812, "looseness_vs_theorem_lambda": 5936.0},
            {"N": 1000, "d": 990, "bound": 437.4, "kl_theorem_lambda": 0.65,
             "kl_rank_d_svd": 1e-7, "uniform_kl": 5.93, "looseness_vs_theorem_lambda": 673.0},
            {"N": 1493, "d": 1491, "bound": 6.2881, "kl_theorem_lambda": 0.6761,
             "kl_rank_d_svd": 1e-7, "uniform_kl": 6.2952, "looseness_vs_theorem_lambda": 9.30}]
    return pd.DataFrame(rows).assign(informative=informative)


def test_thm2_paragraph_names_the_first_informative_n():
    text = figures.thm2_informative_markdown(_thm2_rows([False, False, True]))
    assert text.startswith("At the smallest $N$ where the bound is finite and not implied by "
                           "Proposition 2 ($N = 869$) it is 3763 nats against 0.63 for the "
                           "look-up table it is built on, while a rank-$d$ encoder reaches "
                           "6.7e-08; the uniform prediction already reaches 5.81. ")
    assert ("The bound is not informative at $N =$ 869, 1000 (bound 3763, 437 nats against the "
            "uniform prediction's 5.81, 5.93). ") in text
    assert text.endswith("It first is at $N = 1493$, $d = 1491$: 6.288 nats against the uniform "
                         "prediction's 6.295, and it holds there (9.3 times the look-up table's "
                         "KL 0.676).")
    assert "nowhere" not in text


def test_thm2_paragraph_says_when_the_bound_is_informative_nowhere():
    text = figures.thm2_informative_markdown(_thm2_rows([False, False, False]))
    assert "not informative at $N =$ 869, 1000, 1493 (bound 3763, 437, 6 nats" in text
    assert text.endswith("It is informative nowhere we computed.")
    assert "It first is" not in text
    # informative from the first row on: no list of misses
    every = figures.thm2_informative_markdown(_thm2_rows([True, True, True]))
    assert "not informative" not in every and "It first is at $N = 869$, $d = 867$" in every


def test_depth_note_says_what_the_plotting_script_counts_as_our_reading():
    note = figures.appendix_recipe_note()
    text = paper.TEXT
    assert (f"(the titles of its plotting script, `EXP_depth.py`, say "
            f"{int(text['depth_layers_titles'].value)} too, while, in our reading of that "
            "script, the x-axis of the paper's Fig. 10 counts the parameters of "
            f"{int(text['depth_layers_text'].value)} layers, the text's number)") in note


def _write_result(folder, name: str, table: pd.DataFrame, provenance: dict) -> None:
    """A made-up result of ``name`` in ``folder``: its table and its provenance."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    table.to_csv(folder / f"{name}.csv", index=False)
    (folder / f"{name}.json").write_text(json.dumps(provenance))


def _exp1_table(paper: dict[tuple[int, int], tuple[float, ...]]) -> pd.DataFrame:
    """Experiment 1 rows at H = 1, 2, 3: ``paper`` maps (d, seed) to the accuracy the paper
    reports (the mean over the last batches); the best checkpoint's accuracy is 0.9 throughout,
    so a slope read from it would be 0."""
    return pd.DataFrame([{"model": "aot", "N": 50, "S": 2, "d": d, "H": h, "seed": seed,
                          "d_h": d, "accuracy": 0.9, "accuracy_last_batches": acc}
                         for (d, seed), accs in paper.items()
                         for h, acc in zip((1, 2, 3), accs, strict=True)])


def test_exp4_against_exp1_counts_and_measures_the_slope_gap_of_made_up_tables(tmp_path):
    """The paragraph's counts and percentages, hand-computed from made-up tables: the slopes of
    dana.exp1 are those of the paper's accuracy up to its first point above 0.95; a pair of
    tables of today's code whose slopes differ is said to differ by run, not by code; a
    replication of the same code is compared on the slopes it shares."""
    from memnb import dana_reading
    from memnb.results import todays_code

    # paper's accuracy per (d, seed) at H = 1, 2, 3, and its slope by hand: 0.1, 0.2, 0.2, and
    # at (4, 0) the first point above 0.95 is at H = 2, so only H = 1, 2 count: 0.46 (the three
    # points would give 0.24)
    exp1 = _exp1_table({(3, 0): (0.10, 0.20, 0.30), (3, 1): (0.10, 0.30, 0.50),
                        (4, 0): (0.50, 0.96, 0.98), (4, 1): (0.20, 0.40, 0.60)})
    # dana.exp4's slopes: 10 %, 20 %, 50 % and 20 % away from those (mean 25 %, at most 50 %);
    # (5, 0) has no dana.exp1 counterpart and the fit rows are no slopes: neither is counted
    slopes = [(3, 0, 0.11), (3, 1, 0.16), (4, 0, 0.69), (4, 1, 0.24), (5, 0, 0.3)]
    exp4 = pd.concat([
        pd.DataFrame([{"kind": "slope", "d": d, "seed": s, "slope": v} for d, s, v in slopes]),
        pd.DataFrame([{"kind": "fit_quadratic", "a": 1e-4, "b": 2e-3, "sse": 5e-5}])])
    full = tmp_path / "full"
    one = {"device_name": "CPU A", "git_commit": "1111111aaaa",
           "started_utc": "2026-01-02T03:04:05+00:00"}
    four = {"device_name": "CPU B", "git_commit": "2222222bbbb",
            "started_utc": "2026-01-03T04:05:06+00:00"}
    _write_result(full, "dana.exp1", exp1, one)
    _write_result(full, "dana.exp4", exp4, four)
    text = dana_reading.exp4_against_exp1(root=tmp_path)
    assert text == ("`dana.exp4`'s 4 per-seed slopes (CPU B, commit `2222222`, 2026-01-03 "
                    "04:05 UTC) against the same slopes of `dana.exp1`'s table (CPU A, commit "
                    "`1111111`, 2026-01-02 03:04 UTC): 0 of 4 equal; they differ by 25.0 % on "
                    "average and by at most 50.0 %.")
    # both of today's code, yet different: the runs differ, not the code
    one["code_fingerprint"] = todays_code("dana.exp1")
    _write_result(full, "dana.exp1", exp1, one)
    _write_result(full, "dana.exp4", exp4, {**four, "code_fingerprint": todays_code("dana.exp4")})
    text = dana_reading.exp4_against_exp1(root=tmp_path)
    assert "0 of 4 equal; they differ by 25.0 % on average and by at most 50.0 %" in text
    assert "so the difference comes from the two runs, not the code" in text
    # a replication of dana.exp1 by the same code, without the point (4, 1): 3 slopes compared
    again = {"device_name": "CPU C", "git_commit": "3333333cccc",
             "started_utc": "2026-01-04T05:06:07+00:00",
             "code_fingerprint": one["code_fingerprint"]}
    _write_result(tmp_path / "replications" / "full", "dana.exp1",
                  exp1[(exp1["d"] != 4) | (exp1["seed"] != 1)], again)
    text = dana_reading.exp4_against_exp1(root=tmp_path)
    assert text.endswith(". Against the slopes of the replication of `dana.exp1` (code of the "
                         "same fingerprint, "
                         "CPU C, commit `3333333`, 2026-01-04 05:06 UTC): 0 of 3 equal.")
    # a replication of other code is not compared
    _write_result(tmp_path / "replications" / "full", "dana.exp1", exp1,
                  {**again, "code_fingerprint": "0123456789abcdef"})
    assert "replication" not in dana_reading.exp4_against_exp1(root=tmp_path)


def test_exp4_against_exp1_says_its_conclusion_rests_on_a_re_key(tmp_path):
    """A table of today's fingerprint whose points were computed by earlier code and re-keyed:
    the paragraph names both fingerprints, from the provenance, counts the re-keys by kind
    (memnb.provenance.rekey_origin), says where their reasons are listed, and that its
    conclusion rests on those re-keys."""
    from memnb import dana_reading
    from memnb.results import todays_code

    exp1 = _exp1_table({(3, 0): (0.10, 0.20, 0.30), (3, 1): (0.10, 0.30, 0.50)})
    exp4 = pd.DataFrame([{"kind": "slope", "d": 3, "seed": s, "slope": v}
                         for s, v in ((0, 0.11), (1, 0.16))])
    full = tmp_path / "full"
    today = todays_code("dana.exp1")
    rekeyed = {"device_name": "CPU A", "git_commit": "1111111aaaa",
               "started_utc": "2026-01-02T03:04:05+00:00", "code_fingerprint": today,
               "code_fingerprint_rekeyed_from": "0123456789abcdef",
               "code_fingerprint_rekeys": [{"from": "0123456789abcdef", "to": today,
                                            "why": "input checks, reviewed by hand to compute "
                                                   "the same numbers"}]}
    _write_result(full, "dana.exp1", exp1, rekeyed)
    _write_result(full, "dana.exp4", exp4, {
        "device_name": "CPU B", "git_commit": "2222222bbbb",
        "started_utc": "2026-01-03T04:05:06+00:00", "code_fingerprint": todays_code("dana.exp4")})
    text = dana_reading.exp4_against_exp1(root=tmp_path)
    assert ("Both tables record today's fingerprint, one of them re-keyed "
            "(`scripts/rekey_cache.py`): `dana.exp1`'s points were computed by code of "
            f"fingerprint `0123456789abcdef` and re-keyed to `{today}` through one re-key, "
            "reviewed by hand. The provenance's `code_fingerprint_rekeys` lists each re-key with "
            "its reason. That the difference comes from the two runs, not the code, holds only "
            "if these re-keys hold (the code that computed those points was not run "
            "again)") in text
    assert "Both tables are of today's code" not in text
    # a re-key whose reason names no review by hand is not called reviewed
    rekeyed["code_fingerprint_rekeys"][0]["why"] = "the code of commit x with labels changed"
    _write_result(full, "dana.exp1", exp1, rekeyed)
    text = dana_reading.exp4_against_exp1(root=tmp_path)
    assert "reviewed by hand" not in text
    assert "through one re-key, checked by the syntax-tree script." in text
    # a first re-key missing from the list (the docstring rule's, which scripts/rekey_cache.py
    # did not list) is counted, and the list is said to lack it
    rekeyed["code_fingerprint_rekeys"] = [
        {"from": "1111111111111111", "to": "2222222222222222",
         "why": "the code of commit x with labels changed"},
        {"from": "2222222222222222", "to": today, "why": "checks, reviewed by hand to compute "
                                                         "the same numbers"}]
    _write_result(full, "dana.exp1", exp1, rekeyed)
    text = dana_reading.exp4_against_exp1(root=tmp_path)
    assert (f"re-keyed to `{today}` through 3 re-keys (the docstring rule, one checked by the "
            "syntax-tree script, one reviewed by hand). The provenance's "
            "`code_fingerprint_rekeys` lists each re-key with its reason, except, in "
            "`dana.exp1`, the first, which applied the docstring rule.") in text


def test_exp4_against_exp1_counts_the_committed_tables_slopes():
    """On the committed tables: every per-seed slope of dana.exp4 (counted with plain pandas)
    is compared, and each run is named by its commit and start."""
    import re

    from memnb import dana_reading
    from memnb.paths import repo_root

    folder = repo_root() / "data/results/full"
    if not all((folder / f"dana.exp{k}.csv").exists() for k in (1, 4)):
        pytest.skip("needs the committed full runs of dana.exp1 and dana.exp4")
    four = pd.read_csv(folder / "dana.exp4.csv")
    slopes = int((four["kind"] == "slope").sum())
    text = dana_reading.exp4_against_exp1(root=folder.parent)
    assert re.search(rf"\): \d+ of {slopes} equal; they differ by \d+\.\d % on average", text)
    assert len(re.findall(r"commit `[0-9a-f]{7}`, \d{4}-\d\d-\d\d \d\d:\d\d UTC", text)) >= 2


def test_exp4_against_exp1_is_none_without_both_full_runs(tmp_path):
    from memnb import dana_reading

    assert dana_reading.exp4_against_exp1(tmp_path) is None


def test_thm2_figure_band_names_the_theorems_bound_and_the_caption_the_dotted_curve():
    """The grey band is where the theorem's bound (its constant C) is vacuous; the dotted
    curve (the drawn W's coherence in place of C, ours) can be finite inside it, and the
    caption says where it is finite and how far above the KL reached, from the table."""
    import matplotlib.pyplot as plt
    import numpy as np

    from memnb import bounds, lookup_tables

    thm2 = lookup_tables.thm2_table(50, [16, 64, 256, 1024], num_sequences=40)
    fig = figures.thm2_figure(thm2)
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    plt.close(fig)
    assert figures.THM2_VACUOUS_LABEL in labels
    assert figures.THM2_VACUOUS_LABEL.startswith("theorem's bound vacuous")
    assert any("drawn W's coherence (ours)" in label for label in labels)
    row = type("Row", (), {"item": "Theorem 2", "status": "reproduced", "measured": "m"})()
    caption = figures.thm2_caption(thm2, row)
    sentence = figures.thm2_empirical_sentence(thm2)
    assert sentence in caption
    finite = thm2[np.isfinite(thm2["bound_full_empirical_c"])]
    ratio = finite["bound_full_empirical_c"] / finite["achieved_kl"]
    assert f"at those d it is {ratio.min():.1f}× to {ratio.max():.1f}× the KL reached." in sentence
    ds = [int(d) for d in finite["d"]]
    assert f"finite for d = {ds[0]}..{ds[-1]}" in sentence
    inside = sum(d <= bounds.dana_jl_threshold(50) for d in ds)
    assert (f"{inside} of them inside the grey band" in sentence) == (0 < inside < len(ds))
    assert "measured coherence of the drawn W in place of its constant C (ours)" in sentence
    none = thm2.assign(bound_full_empirical_c=np.inf)
    assert figures.thm2_empirical_sentence(none).endswith("infinite at every d drawn.")


def _committed(name: str) -> pd.DataFrame:
    """The committed full run of ``name`` as the chapter reads it in place of a quick rerun."""
    from memnb.dana_reading import as_the_paper_reports
    from memnb.results import load

    return as_the_paper_reports(load(name, "full").table)


def test_figures_of_the_committed_full_run_read_in_place_say_so_in_their_legend():
    """A table the chapter read in place of a run of this build (the caller says so, from
    memnb.experiments.dana.reused_full of its run) is named so in the legend, in the appendix
    figures' wording; without the flag, the same table, which may be a run this build computed
    and wrote under the full profile, is not; the legend stays within the figure's width."""
    import matplotlib.pyplot as plt

    exp1, exp2 = _committed("dana.exp1"), _committed("dana.exp2")
    own = figures.ours_label(read_in_place=True)
    assert own == "ours: " + figures.FULL_IN_PLACE
    assert figures.FULL_IN_PLACE == "the committed full run (read in place of a run of this build)"
    d = int(exp1["d"].max())
    h = int(sorted(exp1["H"].unique())[1])

    def labels_of(fig) -> list[str]:
        labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
        labels += [t.get_text() for ax in fig.axes if ax.get_legend() is not None
                   for t in ax.get_legend().get_texts()]
        return labels

    for flagged in (True, False):
        for fig in (figures.exp1_figure(exp1, read_in_place=flagged),
                    figures.exp2_figure(exp2, read_in_place=flagged),
                    figures.heads_frame(exp1, h, d, read_in_place=flagged),
                    figures.layout_heads_figure(_committed("dana.layout_heads"), exp1,
                                                read_in_place={"aot": flagged,
                                                               "code": flagged})):
            labels = labels_of(fig)
            fig.canvas.draw()
            width = fig.legends[0].get_window_extent().width
            plt.close(fig)
            assert any(figures.FULL_IN_PLACE in label for label in labels) == flagged, labels
            assert width <= fig.bbox.width
    fig = figures.exp1_figure(exp1)  # by default a run of this build, whatever its numbers
    labels = labels_of(fig)
    plt.close(fig)
    assert not any(figures.FULL_IN_PLACE in label for label in labels)
    assert f"ours, mean ± std over {exp1['seed'].nunique()} seeds" in labels


def test_a_slider_frame_of_a_value_the_run_lacks_names_what_it_holds():
    import pandas as pd
    import pytest

    from memnb.figures import dana as figures

    exp1 = pd.DataFrame({"d": [10, 10, 13], "H": [1, 2, 1], "N": 50, "seed": 0,
                         "accuracy": [0.5, 0.6, 0.4]})
    with pytest.raises(ValueError, match=r"d = 99 is not in this run; it holds d ∈ \[10, 13\]"):
        figures.heads_frame(exp1, 1, 99)
    with pytest.raises(ValueError, match=r"H = 7 is not in this run at d = 10; it holds "
                                         r"H ∈ \[1, 2\]"):
        figures.heads_frame(exp1, 7, 10)
    exp2 = pd.DataFrame({"d_h": [1, 2], "N": 50, "d": 10, "H": 20, "seed": 0,
                         "accuracy": [0.2, 0.3]})
    with pytest.raises(ValueError, match=r"d_h = 99 is not in this run; it holds d_h ∈ \[1, 2\]"):
        figures.head_dim_frame(exp2, 99)


def test_the_heads_slider_label_names_the_d_it_holds_fixed():
    """Review of the sliders: the slider over H names the d = d_h of its frames, read from the
    variable its frames use (heads_frame's d), not typed."""
    import json
    from pathlib import Path

    nb = json.loads((Path(__file__).parents[1] / "notebooks" / "dana.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    (cell,) = [c for c in cells if "figures.heads_frame(" in c]
    assert 'f"heads H (d = d_h = {d_slider})"' in cell
    assert "figures.heads_frame(exp1, h, d_slider," in cell
    assert '"heads H")' not in cell


def test_the_bietti_figure_s_line_d_is_a_reference_not_the_bound_of_what_it_draws():
    """Review (s74) item 5: the figure draws how many of N stored associations are recalled;
    the quotes' "at most d" bound the capacity, which Section 4 measures. The line y = d says
    so in its legend instead of reading as the bound of the recall drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from memnb.figures import dana as figures

    memory = pd.DataFrame({"d": [8, 8, 32, 32], "stored": [20, 22, 80, 84], "seed": [0, 1, 0, 1]})
    fig = figures.bietti_figure(memory, 200)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    plt.close(fig)
    assert figures.BIETTI_LINE_LABEL in labels
    assert "bound the capacity, measured in Section 4, not this recall" in (
        figures.BIETTI_LINE_LABEL.replace("\n", ""))
