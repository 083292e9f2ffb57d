"""Reader review s75 of the Kajitsuka & Sato chapter: the IMDb mean over every seed (finding 3),
the random data's V, C and token vectors (4), the lower-bound rows' wording (5), the N the Fig. 7
row is judged on (7), Theorem 4.1's "as N → ∞" (9), the introduction's source tags (10) and the
two tables that overflowed the text column (11)."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from memnb.experiments import kajitsuka as exp  # noqa: E402
from memnb.experiments.registry import get, load_all  # noqa: E402
from memnb.figures import kajitsuka as ksfig  # noqa: E402
from memnb.papers import kajitsuka as paper  # noqa: E402
from memnb.paths import papers_dir_candidates  # noqa: E402
from memnb.scorecard import build_scorecard, criteria  # noqa: E402
from memnb.scorecard import kajitsuka as card  # noqa: E402

ROOT = Path(__file__).parents[1]
NOTEBOOK = ROOT / "notebooks/kajitsuka_sato.ipynb"
FULL = ROOT / "data/results/full"


def _cells() -> list[dict]:
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


def _cell(marker: str, kind: str | None = None) -> str:
    """The one cell whose source holds ``marker`` (of ``kind``, when given)."""
    found = ["".join(c["source"]) for c in _cells()
             if marker in "".join(c["source"]) and (kind is None or c["cell_type"] == kind)]
    assert len(found) == 1, (marker, len(found))
    return found[0]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _seed_text() -> str:
    seeds = [p for c in papers_dir_candidates() for p in (c / "seeds").glob("000_*.txt")]
    if not seeds:
        pytest.skip("seed 000 (shared/papers/seeds/000_*) is not here")
    return seeds[0].read_text(encoding="utf-8")


# --- finding 3: the IMDb verdicts' mean is over every seed
def test_imdb_verdicts_say_the_mean_is_over_every_seed():
    table = pd.read_csv(FULL / "kajitsuka.imdb_curves.csv")
    ceiling, seeds = card.final_ceiling_seeds(table)
    assert ceiling and len(ceiling) < seeds  # the committed run sets seeds aside
    words = ", ".join(map(str, ceiling))
    said = (f"(the mean is over all {seeds} seeds; only the per-seed count sets seeds {words} "
            "aside)")
    last = table[table["epoch"] == table["epoch"].max()]
    means = last.groupby("blocks")["loss"].mean()  # over every seed, not the counted ones
    for metric in ("loss", "accuracy"):
        measured = card.curves_verdict(table, metric).measured
        assert said in measured, metric
    loss = card.curves_verdict(table, "loss").measured
    assert "; ".join(f"{card.blocks_word(b)}: {v:.3g}" for b, v in means.items()) in loss
    caption = ksfig.counted_seeds_sentence(table)
    assert f"Both verdicts count {seeds - len(ceiling)} of {seeds} seeds" in caption
    assert f"the mean over seeds that both verdicts judge is over all {seeds} seeds." in caption


def test_no_seed_set_aside_needs_no_word_on_the_mean():
    rows = [{"blocks": b, "seed": s, "epoch": 10, "loss": 0.1 / (b + 1),
             "accuracy": 0.9 if (b == 0 and s > 0) else 1.0} for b in (0, 1) for s in (0, 1, 2)]
    v = card.curves_verdict(pd.DataFrame(rows), "accuracy")
    assert "seed 0 ends at accuracy 1 at every depth" in v.measured
    assert "(the mean is over all 3 seeds; only the per-seed count sets seed 0 aside)" in \
        v.measured
    every = pd.DataFrame(rows).assign(accuracy=lambda t: np.where(t["blocks"] == 0, 0.9, 1.0))
    assert "the mean is over all" not in card.curves_verdict(every, "accuracy").measured


# --- finding 4: the random data's vocabulary, classes and token vectors
def _random_words(name: str, profile: str) -> list[str]:
    params = get(name).params(profile)
    dim = params.get("input_dim", exp.MODEL["input_dim"])
    return [f"vocabulary size $V$ = {params['vocab']:,}", f"$C$ = {params['classes']} classes",
            f"fixed random Gaussian vector of {dim} dimensions", f"variance 1/{dim}"]


def test_random_data_words_are_read_from_the_profiles(monkeypatch):
    text = ksfig.random_data_markdown("quick")
    for name in ksfig.RANDOM_DATA:
        for profile in ("quick", "full"):
            for said in _random_words(name, profile):
                assert said in text, said
    # a profile with another vocabulary is named apart: the words follow the parameters
    spec = get("kajitsuka.seq_len")
    real = spec.params

    class Other:
        def params(self, profile: str) -> dict:
            found = dict(real(profile))
            return {**found, "vocab": 50} if profile == "quick" else found

    monkeypatch.setattr("memnb.experiments.registry.get",
                        lambda name: Other() if name == "kajitsuka.seq_len" else get(name))
    split = ksfig.random_data_words(ksfig.RANDOM_DATA, ["quick", "full"])
    assert "`kajitsuka.seq_len`, `quick`: vocabulary size $V$ = 50" in split
    assert "vocabulary size $V$ = 1,000" in split


def test_random_data_captions_and_paragraph_state_v_c_and_the_embedding():
    curves = pd.DataFrame([{"dataset": "random", "blocks": b, "epoch": e, "seed": 0, "N": 60,
                            "n": 8, "loss": 0.1 / (b + 1) * (10 if e == 0 else 1),
                            "accuracy": 0.5 if e == 0 else (0.9 if b == 0 else 1.0)}
                           for b in (0, 1) for e in (0, 10)])
    fig, caption = ksfig.curves_figure(curves, None, "random sequences",
                                       "the ICLR version's random-data figures", "quick")
    plt.close(fig)
    lead = caption.partition("<details")[0]
    for said in _random_words("kajitsuka.random_curves", "quick"):
        assert said in lead, said
    mnli = curves.assign(dataset="mnli")
    fig, caption = ksfig.curves_figure(mnli, None, "MultiNLI", "Figs. 1 and 2", "quick")
    plt.close(fig)
    assert "vocabulary size $V$" not in caption  # real text has no such vocabulary
    sweep = pd.DataFrame([{"dataset": "random", "N": 60, "n": n, "seed": 0, "blocks": b,
                           "accuracy": 1.0 if b >= 1 else 0.9}
                          for n in (2, 8) for b in (0, 1, 2)])
    fig, caption = ksfig.capacity_figure(sweep, None, "quick", by="n")
    plt.close(fig)
    for said in _random_words("kajitsuka.seq_len", "quick"):
        assert said in caption, said
    by_n = sweep.drop(columns="N").rename(columns={"n": "N"}).assign(n=8)
    fig, caption = ksfig.capacity_figure(by_n, None, "quick")
    plt.close(fig)
    assert "vocabulary size $V$" not in caption  # Fig. 7 is MultiNLI
    paragraph = _cell("### The random dataset (ICLR version)", "markdown")
    assert "vocabulary, classes and token vectors, read from the experiments' parameters" in \
        paragraph
    assert "shown):" not in paragraph  # the stray parenthesis is gone
    code = _cell('fresh_and_cached("kajitsuka.random_curves"', "code")
    assert code.startswith("display(Markdown(ksfig.random_data_markdown(profile)))")


# --- finding 5: the lower-bound rows word a lower bound as one
def _gap(table: pd.DataFrame, task: str) -> tuple[int, float, float]:
    from memnb.lower_bounds import min_parameters

    part = card._sweep(table, "N", task)
    m = int(part["n"].iloc[0]) if task == "seq2seq" else 1
    wmin = np.array([min_parameters(int(N) * m, m) for N in part["N"]], float)
    ratio = part["num_parameters"].to_numpy(float) / wmin
    return len(part), float(ratio.min()), float(ratio.max())


def test_lower_bound_rows_say_the_vc_lower_bound_lies_below_our_count():
    table = pd.read_csv(FULL / "kajitsuka.construction.csv")
    for task, row in (("next_token", card.thm42_verdict), ("seq2seq", card.cor41_verdict)):
        sizes, low, high = _gap(table, task)
        measured = row(table).measured
        assert "upper bound holds" not in measured and "looseness" not in measured
        assert (f"the VC lower bound (the smallest W) lies below our construction's count at "
                f"{sizes} of {sizes} sizes N of the sweep (our count is {card.times_text(low)}× "
                f"to {card.times_text(high)}× the bound)") in measured, task
        assert low >= card.WIDE_GAP
        assert (f"with a gap of at least {card.times_text(low)}× this check can hardly fail"
                in measured)
    fig, caption = ksfig.lower_bound_figure(table)
    plt.close(fig)
    assert "upper bound holds" not in caption and "can hardly fail" in caption
    assert card.times_text(3741.2) == "3,740" and card.times_text(12.34) == "12.3"


def test_lower_bound_words_when_the_gap_is_narrow_or_crossed():
    narrow = criteria.bound_holds([10.0, 20.0], [50.0, 60.0], kind="upper")
    words = card.vc_gap_words(narrow, 2)
    assert "at 2 of 2 sizes N" in words and "(our count is 3× to 5× the bound)" in words
    assert "hardly fail" not in words  # a gap under WIDE_GAP can fail
    crossed = criteria.bound_holds([10.0, 80.0], [50.0, 60.0], kind="upper")
    words = card.vc_gap_words(crossed, 2)
    assert "at 1 of 2 sizes N" in words and "it lies above it at 1" in words


# --- finding 7: the Fig. 7 row names the N it is judged on
def _capacity(min_blocks: dict[int, int]) -> pd.DataFrame:
    return pd.DataFrame([{"N": N, "d": 16, "seed": 0, "blocks": b,
                          "accuracy": 1.0 if b >= k else 0.9}
                         for N, k in min_blocks.items() for b in range(0, 5)])


def test_fig7_row_says_it_is_judged_on_the_quick_sizes_outside_the_papers_range(tmp_path):
    full = tmp_path / "full"
    full.mkdir()
    pd.DataFrame([{"N": 600, "d": 16, "seed": s, "blocks": b, "epochs": 1000, "trials": 10,
                   "epochs_run": 500, "accuracy": 1.0 if b >= 1 else 0.9}
                  for s in range(3) for b in range(3)]).to_csv(full / "kajitsuka.capacity.csv",
                                                                index=False)
    (full / "kajitsuka.capacity.json").write_text(json.dumps(
        {"experiment": "kajitsuka.capacity", "profile": "full", "complete": False,
         "params": load_all()["kajitsuka.capacity"].params("full")}, default=str))
    quick = tmp_path / "quick"
    quick.mkdir()
    sizes = {200: 0, 400: 1, 600: 1, 800: 1}
    _capacity(sizes).to_csv(quick / "kajitsuka.capacity.csv", index=False)
    (quick / "kajitsuka.capacity.json").write_text(json.dumps(
        {"experiment": "kajitsuka.capacity", "profile": "quick", "complete": True}))
    row = {r.item: r for r in build_scorecard("full", ["kajitsuka"], root=tmp_path)}["Fig. 7"]
    low, high = min(paper.FIG7_N.value), max(paper.FIG7_N.value)
    outside = [N for N in sizes if N < low]
    assert row.measured.startswith(
        f"judged on N = {', '.join(map(str, sizes))} (the `quick` run); "
        f"N = {', '.join(map(str, outside))} lie below the paper's N = {low} … {high}, "
        "outside the paper's range; ")
    assert f"N = {low} … {high}" in row.claim  # the range the claim states


def test_fig7_sizes_words_inside_and_above_the_range():
    grid = paper.FIG7_N.value
    inside = _capacity({grid[0]: 1, grid[-1]: 2})
    assert card.fig7_sizes_words(inside, "full") == (
        f"judged on N = {grid[0]}, {grid[-1]} (the `full` run), all within the paper's "
        f"N = {grid[0]} … {grid[-1]}")
    wide = _capacity({grid[0] - 100: 1, grid[-1] + 100: 2})
    words = card.fig7_sizes_words(wide, "quick")
    assert f"N = {grid[0] - 100} lies below" in words
    assert f"N = {grid[-1] + 100} lies above" in words and words.endswith("outside the "
                                                                        "paper's range")


# --- finding 9: Theorem 4.1 ends "as N → ∞", marked as the notes' completion
def test_theorem_41_ends_as_n_to_infinity_marked_as_the_notes_words():
    sec1 = _flat(_cell("**Theorem 4.1 (next-token prediction).**", "markdown"))
    assert r"= N^{O(1)}$ as $N \to \infty$." in sec1
    assert (r'It also breaks off after "as $N$"; the end "$\to \infty$" is from our notes, '
            'which quote the statement as ending "as N→∞".') in sec1
    seed = _seed_text()
    assert "= N^{O(1)}$ as $N \\" in seed and r"\to \infty" not in seed  # cut off in the seed
    notes = [c / "kajitsuka_sato_2025.md" for c in papers_dir_candidates()
             if (c / "kajitsuka_sato_2025.md").exists()]
    assert notes and "= N^{O(1)} as N→∞" in notes[0].read_text(encoding="utf-8")


# --- finding 10: the introduction's source tags and the abstract's two sentences
def test_intro_tags_the_abstracts_quotes_and_quotes_its_sentences_apart():
    intro = _cell("- **The paper's**", "markdown")
    flat = _flat(intro)
    assert 'token" (Sec. 2)' not in flat
    assert ('"a bottleneck when associating a label to each token" (both quotes the '
            "abstract's; our Sec. 2 discusses them)") in flat
    assert "The reason, in the abstract's words" not in flat
    assert '"the benefit of parameter sharing": self-attention' not in flat
    owing = ("can efficiently perform memorization with little influence from the input length "
             "$n$ owing to the benefit of parameter sharing")
    identify = "self-attention mechanisms can efficiently identify input sequences"
    assert f'"{owing}"' in flat and f'In a separate sentence it says that "{identify}"' in flat
    seed = _seed_text()
    assert owing in seed and identify in seed


# --- finding 11: the two tables that overflowed the 688 px column
def test_table1_printed_cells_are_kept_in_five_columns():
    t = ksfig.table1_printed()
    text = ksfig.table1_printed_markdown()
    header = text.splitlines()[0]
    assert header.count("|") == 6 and ksfig.TABLE1_BOUND in header  # five columns
    for _, row in t.iterrows():  # no cell lost
        for cell in (row["work"], row["setting"], f"{row['parameters']}; {row['kind']}",
                     row[ksfig.TABLE1_CELL], row[ksfig.TABLE1_STATED]):
            assert str(cell).replace("|", r"\|") in text
    assert "ksfig.table1_printed_markdown()" in _cell("table1_printed", "code")


def test_settings_table_names_its_module_once_not_in_every_cell():
    t = ksfig.training_settings()
    where = t[ksfig.SETTINGS_WHERE]
    assert not where.str.contains("memnb.experiments.kajitsuka").any()
    assert len(max(where, key=len)) < len("`TrainConfig(optimizer=…)` of every trial") + 1
    assert "all in the module named above" in ksfig.SETTINGS_WHERE
    lead = _cell("The second table lists the", "markdown")
    assert "(`memnb.experiments.kajitsuka`, the module that its third column points into)" in \
        _flat(lead)
    # the names each cell points at are in that module
    for name in ("SEARCH", "DEFAULT_TRIAL", "STARTUP_TRIALS", "_optuna_stack"):
        assert hasattr(exp, name) and any(f"`{name}`" in w for w in where), name

