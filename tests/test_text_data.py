"""MultiNLI / IMDb loaders: offline files, tokenization to n = 8, collisions, clear errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memnb import paths
from memnb.data import text

HAVE_MNLI = paths.find_dataset(text.MNLI_FILE) is not None
HAVE_IMDB = paths.find_dataset(text.IMDB_FILE) is not None


def _no_conflicts(ds: text.TextDataset) -> None:
    rows = {tuple(r) for r in ds.tokens.tolist()}
    assert len(rows) == len(ds)  # distinct sequences, so none can carry two labels
    assert ds.num_raw == len(ds) + ds.num_conflicting + ds.num_duplicates


@pytest.mark.skipif(not HAVE_MNLI, reason="offline MultiNLI file not available")
def test_mnli_offline():
    ds = text.load_mnli(8, download=False)
    assert ds.tokens.shape == (len(ds), 8) and ds.tokens.dtype == np.int64
    assert ds.num_raw == 9815
    assert set(np.unique(ds.labels)) == {0, 1, 2}
    assert ds.num_conflicting > 0
    assert len(ds) > 6000
    _no_conflicts(ds)
    assert "dropped" in ds.summary()
    sub = ds.subset(100, seed=1)
    assert len(sub) == 100 and np.array_equal(sub.tokens, ds.subset(100, seed=1).tokens)


@pytest.mark.skipif(not HAVE_IMDB, reason="offline IMDb file not available")
def test_imdb_offline():
    ds = text.load_imdb(8, download=False)
    assert ds.tokens.shape[1] == 8
    assert ds.num_raw == 4000
    assert set(np.unique(ds.labels)) == {0, 1}
    _no_conflicts(ds)


def test_tokenizer_is_wordpiece_and_offline():
    assert text.encode(["Hello world", "memorization"], 4) == [(7592, 2088, 0, 0),
                                                              text.encode(["memorization"], 4)[0]]
    pieces = text.load_tokenizer().encode("memorization", add_special_tokens=False).tokens
    assert len(pieces) > 1 and pieces[1].startswith("##")
    emb = text.load_token_embeddings(np.array([[7592, 2088]]))
    assert emb.shape == (1, 2, 384)


def test_loader_reads_a_given_folder_and_drops_collisions(tmp_path):
    rows = [
        {"premise": "a cat sat", "hypothesis": "a cat", "label": "entailment"},
        {"premise": "a cat sat", "hypothesis": "a cat", "label": "neutral"},   # collides
        {"premise": "dogs run", "hypothesis": "dogs run", "label": "contradiction"},
        {"premise": "dogs run", "hypothesis": "dogs run", "label": "contradiction"},  # repeat
    ]
    (tmp_path / "mnli").mkdir()
    unlabelled = {"premise": "x", "hypothesis": "y", "label": "-"}
    (tmp_path / "mnli" / "dev_matched.jsonl").write_text(
        "\n".join(json.dumps(r) for r in [*rows, unlabelled]) + "\n")
    # a row without a gold label is not dropped unsaid: the file is refused, as by `memnb run`
    with pytest.raises(ValueError, match="drop rows without a gold label"):
        text.load_mnli(4, data_dir=tmp_path, download=False)
    (tmp_path / "mnli" / "dev_matched.jsonl").write_text(
        "\n".join(json.dumps(r) for r in rows) + "\n")
    ds = text.load_mnli(4, data_dir=tmp_path, download=False)
    assert (ds.num_raw, ds.num_conflicting, ds.num_duplicates, len(ds)) == (4, 2, 1, 1)
    assert ds.labels.tolist() == [2]
    assert tuple(ds.tokens[0].tolist()[2:]) == text.encode(["dogs run"], 2)[0]


def test_missing_data_gives_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "data_dir_candidates", lambda: [tmp_path / "nowhere"])
    with pytest.raises(FileNotFoundError, match="MEMNB_DATA_DIR") as err:
        text.load_imdb(8, download=False)
    assert "imdb/train_subset.jsonl" in str(err.value)
    with pytest.raises(FileNotFoundError, match="datasets"):
        text.load_mnli(8, data_dir=tmp_path)  # `datasets` is not installed: no download
    with pytest.raises(ValueError, match="layout"):
        text.load_mnli(8, layout="bogus")


def test_a_data_dir_argument_is_a_folder_and_a_fallback_is_said(tmp_path):
    """``data_dir=`` must name an existing folder (an error naming ``data_dir`` otherwise); one
    that lacks the file is reported with a warning when a later folder has it, as
    ``MEMNB_DATA_DIR`` is, not passed over in silence."""
    with pytest.raises(NotADirectoryError, match="data_dir must be an existing folder"):
        text.load_imdb(8, data_dir=tmp_path / "nowhere", download=False)
    with pytest.warns(paths.DataDirFallbackWarning, match="is not in data_dir"):
        found = text.locate(text.IMDB_FILE, tmp_path, download=False)
    assert found != tmp_path / text.IMDB_FILE


@pytest.mark.parametrize("call, words", [
    (lambda: text.load_mnli(2.5), "seq_len must be an int"),
    (lambda: text.load_mnli(0, layout="hypothesis"), "seq_len must be >= 1"),
    (lambda: text.load_imdb(8.0), "seq_len must be an int"),
    (lambda: text.load_imdb(8).subset(2.5), "num must be an int"),
])
def test_bad_sizes_name_the_parameter(call, words):
    with pytest.raises(ValueError, match=words):
        call()
