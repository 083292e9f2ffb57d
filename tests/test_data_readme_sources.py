"""data/README.md's facts about the dataset files (row counts, order, image sizes, digests and
origins) checked against the files themselves where they are present, and against the shared
data folder's own README where it is. Without the files the tests are skipped: CI's clean clone
may have neither."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from memnb.dataset_files import path_digest
from memnb.paths import find_dataset

REPO = Path(__file__).resolve().parents[1]
DATA_README = " ".join((REPO / "data" / "README.md").read_text(encoding="utf-8").split())


def _row(path: str) -> str:
    """The data/README.md table row of the dataset at ``path`` (its first cell)."""
    return DATA_README.split(f"| `{path}` |", 1)[1].split(" | `", 1)[0]


def _number(words: str) -> int:
    return int(words.replace(",", ""))


def _found(relative: str) -> Path:
    path = find_dataset(relative)
    if path is None:
        pytest.skip(f"{relative} is not in any data folder here")
    return path


def _lines(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def test_the_mnli_row_count_and_labels():
    rows = _lines(_found("mnli/dev_matched.jsonl"))
    stated = _number(re.search(r"all ([\d,]+) labelled rows", _row("mnli/dev_matched.jsonl"))[1])
    assert len(rows) == stated
    named = set(re.findall(r"`(entailment|neutral|contradiction)`",
                           _row("mnli/dev_matched.jsonl")))
    assert {row["label"] for row in rows} == named == {"entailment", "neutral", "contradiction"}


def test_the_imdb_subset_is_the_recipe():
    """The first positive and the first negative reviews by numeric id, interleaved positive,
    negative, as many of each as the row says, and the stated number of lines."""
    row = _row("imdb/train_subset.jsonl")
    each = _number(re.search(r"the first ([\d,]+) positive and the first \1 negative", row)[1])
    total = _number(re.search(r"\(([\d,]+) lines", row)[1])
    rows = _lines(_found("imdb/train_subset.jsonl"))
    assert len(rows) == total == 2 * each
    assert [r["label"] for r in rows] == [1, 0] * each
    for label, folder in ((1, "pos"), (0, "neg")):
        ids = [r["id"] for r in rows if r["label"] == label]
        assert all(i.startswith(f"train/{folder}/") for i in ids)
        numbers = [int(i.rsplit("/", 1)[1].split("_")[0]) for i in ids]
        assert numbers == sorted(numbers)  # in numeric order of the id
        assert Counter(numbers).most_common(1)[0][1] == 1


def test_the_imagenet_sample_is_one_224_image_per_class():
    from PIL import Image

    folder = _found("imagenet-samples/images")
    files = sorted(folder.glob("*.JPEG"))
    stated = _number(re.search(r"the ([\d,]+) images of the public repository",
                               _row("imagenet-samples/images/*.JPEG"))[1])
    assert len(files) == stated
    assert all(re.fullmatch(r"n\d{8}_.+\.JPEG", f.name) for f in files)
    assert len({f.name.split("_", 1)[0] for f in files}) == stated  # one per class
    side = int(re.search(r"centre-cropped to (\d+)×\1", _row("imagenet-samples/images/*.JPEG"))[1])
    for f in files[:: max(1, len(files) // 50)]:
        with Image.open(f) as image:
            assert image.size == (side, side)


@pytest.mark.parametrize("relative", ["mnli/dev_matched.jsonl", "imdb/train_subset.jsonl",
                                      "imagenet-samples/images"])
def test_the_stated_digest_is_the_files(relative):
    """The SHA-256 data/README.md lists is the one `memnb` records for the file here. A data
    folder holding other contents (the user's own copy) is skipped, not failed: the README
    states the digests of the shared copy only."""
    path = _found(relative)
    table = DATA_README.split("| file | SHA-256 |", 1)[1]
    stated = re.search(rf"\| `{re.escape(relative)}`.*?\| `([0-9a-f]{{64}})` \|", table)
    assert stated, f"no SHA-256 row for {relative}"
    shared = (REPO.parent / "shared" / "data").resolve()
    if shared not in path.resolve().parents:
        pytest.skip(f"{relative} is read from a folder other than the shared copy")
    assert path_digest(path) == stated[1]


def test_the_origins_are_the_shared_folders():
    """The repositories and commits data/README.md names are those of the shared data folder's
    own README, which records where its copies came from."""
    notes = REPO.parent / "shared" / "data" / "README.md"
    if not notes.is_file():
        pytest.skip("the shared data folder's README is not here")
    shared = " ".join(notes.read_text(encoding="utf-8").split())
    ours = re.findall(r"repository `?([\w.-]+/[\w.-]+)`? \(commit ([0-9a-f]{7})", DATA_README)
    assert len(ours) == 3
    for repository, commit in ours:
        assert re.search(rf"{re.escape(repository)}, commit {commit}", shared), repository
    for fact in ("256 px", "centre-cropped to 224×224", "JPEG quality 90"):
        assert fact in shared and fact in DATA_README, fact
