"""The published values of Kajitsuka & Sato (ICLR 2025) each carry a source."""

from __future__ import annotations

from memnb.papers import Published
from memnb.papers import kajitsuka as paper


def test_every_published_value_has_a_source():
    values = [v for v in vars(paper).values() if isinstance(v, Published)]
    assert len(values) >= 10
    for value in values:
        assert value.source.strip(), value
    for frame in (paper.TABLE1, paper.FIGURES, paper.RATES, paper.published_settings()):
        assert "source" in frame.columns and frame["source"].str.len().gt(0).all()


def test_missing_table1_cells_are_marked():
    missing = paper.TABLE1[paper.TABLE1["printed"].str.startswith("no")]
    assert len(missing) >= 2
    assert missing["source"].str.contains(r"\[unverified\]|own statement").all()
    assert "madden2024" in set(paper.TABLE1["cite"])


def test_experiments_use_the_published_settings():
    from memnb.experiments.registry import load_all

    params = load_all()["kajitsuka.capacity"].params("full")
    assert params["N"] == list(paper.FIG7_N.value)
    assert params["epochs"] == paper.EPOCHS.value and params["trials"] == paper.OPTUNA_TRIALS.value
    curves = load_all()["kajitsuka.mnli_curves"].params("full")
    assert curves["blocks"] == list(paper.FIG2_BLOCKS.value) and curves["N"] == paper.FIG2_N.value
    assert paper.THM41_WIDTH.value == 14 and "Theorem 4.1" in paper.THM41_WIDTH.source


def test_the_sequence_length_cites_no_section_the_notes_do_not_give():
    """The notes quote 'fixed at n = 8' without a section number: the source names none."""
    assert "§5" not in paper.FIG7_SEQ_LEN.source
    assert "fixed at n = 8" in paper.FIG7_SEQ_LEN.source
