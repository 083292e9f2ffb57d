"""Statements of README.md and data/README.md checked against the code and the committed
results, so that the prose fails a test when what it states stops being true."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

from memnb.experiments.registry import get, load_all
from memnb.results import device_kind, load

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
DATA_README = (REPO / "data" / "README.md").read_text(encoding="utf-8")
FULL = REPO / "data" / "results" / "full"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _names_after(text: str, start: str) -> set[str]:
    """The backticked experiment names in the parenthesis or sentence that follows ``start``."""
    tail = _flat(text).split(start, 1)[1]
    return set(re.findall(r"`([a-z]+\.[a-z0-9_]+)`", re.split(r"\)|\. ", tail, maxsplit=1)[0]))


def _committed_full() -> dict[str, dict]:
    """``{experiment: provenance}`` of the tables in data/results/full/ (not superseded)."""
    return {path.stem: json.loads(path.read_text()) for path in sorted(FULL.glob("*.json"))}


def test_the_scorecard_command_by_default_prints_the_book_page(capsys):
    """README and `memnb scorecard --help` say the default profile is the book page's: the
    profile :func:`memnb.scorecard.render.source_profile` reads for the book's default build."""
    from memnb.cli import build_parser, main
    from memnb.scorecard.render import source_profile

    makefile = (REPO / "Makefile").read_text()
    book_profile = re.search(r"^PROFILE \?= (\w+)$", makefile, re.M).group(1)
    default = build_parser().parse_args(["scorecard"]).profile
    assert default == source_profile(book_profile)
    assert (f"`memnb scorecard` with its default `--profile {default}` prints the rows of the "
            "book's scorecard page") in _flat(README)
    with pytest.raises(SystemExit):
        main(["scorecard", "--help"])
    assert f"default {default}, as the book's scorecard page" in _flat(capsys.readouterr().out)


def test_the_quick_start_names_the_makefile_python_variable():
    assert re.search(r"^PYTHON \?=", (REPO / "Makefile").read_text(), re.M)
    assert "`make book PYTHON=python3.11`" in README


def test_complete_full_runs_are_cpu_runs_and_gpu_runs_are_partial():
    """README, Profiles: "Every complete `full` run committed was computed on a CPU, and every
    committed run started on a GPU is partial", and the runs it names as started on a GPU."""
    kinds = {name: device_kind(load(name, "full").provenance.get("device", "cpu"))
             for name in _committed_full()}
    complete = {name: load(name, "full").complete for name in kinds}
    assert all(kinds[name] == "cpu" for name in kinds if complete[name])
    gpu = {name for name, kind in kinds.items() if kind != "cpu"}
    assert not any(complete[name] for name in gpu)
    assert "Every complete `full` run committed was computed on a CPU" in _flat(README)
    assert _names_after(README, "mixed_device_error`: the partial runs of") == gpu


def test_the_full_tables_that_read_a_dataset_record_no_digest():
    """data/README.md names the full tables that read a dataset and says none records a
    digest; the others record an empty ``data_files`` or none."""
    committed = _committed_full()
    reading = {name for name in committed if name in load_all() and get(name).datasets}
    assert _names_after(DATA_README, "The tables in `data/results/full/` that read a dataset") \
        == reading
    assert all(not committed[name].get("data_files") for name in reading)
    assert all(committed[name].get("data_files") in ({}, None)
               for name in set(committed) - reading)


def test_the_replications_that_read_a_dataset_record_the_readme_digests():
    folder = REPO / "data" / "results" / "replications" / "full"
    recorded = {path.stem: json.loads(path.read_text()).get("data_files") or {}
                for path in folder.glob("*.json")}
    with_data = {name for name, files in recorded.items() if files}
    assert with_data == _names_after(DATA_README, "The replications of")
    for name in with_data:
        for digest in recorded[name].values():
            assert f"`{digest}`" in DATA_README


def test_the_experiments_that_may_download_a_text_file():
    """data/README.md: the Kajitsuka–Sato experiments that read MultiNLI or IMDb load it with
    download allowed; Mahdavi et al.'s Table 3 reads IMDb with download off."""
    from memnb.data.text import load_imdb, load_mnli
    from memnb.representations import imdb_texts

    text = {name for name in load_all() if {"mnli", "imdb"} & set(get(name).datasets)}
    listed = _names_after(DATA_README, "its experiments that read one")
    assert listed == {name for name in text if name.startswith("kajitsuka.")}
    assert text - listed == {"mahdavi.table3"}
    for loader in (load_mnli, load_imdb):
        assert inspect.signature(loader).parameters["download"].default is True
    assert "download=False" in inspect.getsource(imdb_texts)
    assert "Mahdavi et al.'s Table 3 (`mahdavi.table3`) reads IMDb with download off" \
        in _flat(DATA_README)


def test_the_imdb_line_format_is_the_shared_copys():
    from memnb.paths import find_dataset

    path = find_dataset("imdb/train_subset.jsonl")
    if path is None:
        pytest.skip("the shared IMDb file is not here")
    with path.open(encoding="utf-8") as handle:
        first = handle.readline().rstrip("\n")
    row = json.loads(first)
    assert json.dumps(row) == first  # Python's json.dumps, non-ASCII escaped
    shown = "{" + ", ".join(f'"{k}": ' + ('"…"' if k == "text" else json.dumps(v))
                            for k, v in row.items()) + "}"
    assert f"`{shown}`" in DATA_README


def test_the_layouts_name_every_folder():
    layout = README.split("## Layout", 1)[1].split("```", 2)[1]
    for folder in ("memnb/", "notebooks/", "book/", "benchmarks/", "scripts/", "tests/",
                   "data/results/", "data/benchmarks/", "data/plans/", "data/precision/",
                   ".ci/"):
        assert (REPO / folder).is_dir(), folder
        assert folder in layout, folder
    results = DATA_README.split("## Results", 1)[1]
    for folder in ("full/", "replications/full/", "full/superseded/", "rerun/full/"):
        assert f"`{folder}`" in results, folder
    records = _flat(README.split("**Records.**", 1)[1].split("\n- ", 1)[0])
    assert "the `--record PATH` option of `benchmarks/bench_*.py`, not of `memnb`" in records
    for bench in REPO.glob("benchmarks/bench_*.py"):
        assert '"--record"' in bench.read_text(), bench.name
