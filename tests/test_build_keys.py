"""The book build redoes only what changed: the key of a chapter (book/buildtools/keys.py)
changes when, and only when, one of its inputs changes; the build reuses an executed chapter
whose key is unchanged and executes the scorecard after every other chapter."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from script_loader import load_script

REPO = Path(__file__).resolve().parent.parent


def _load_build():
    return load_script("book/build.py", "memnb_book_build")


build = _load_build()
keys = build.keys


def _write_result(root: Path, profile: str, name: str, value: int) -> None:
    folder = root / profile
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.csv").write_text(f"x,y\n1,{value}\n")
    (folder / f"{name}.json").write_text(json.dumps({"experiment": name, "rows": 1}))


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """A source notebook, a package and a results folder with two papers' results."""
    package = tmp_path / "memnb"
    (package / "scorecard").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text("A = 1\n")
    (package / "scorecard" / "dana.py").write_text("NAME = 'mahdavi.shared'\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("profile = 'quick'", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("load('kajitsuka.named')")]
    source = tmp_path / "dana.ipynb"
    nbformat.write(nb, source)
    results = tmp_path / "results"
    for profile, name in [("quick", "dana.exp1"), ("full", "dana.exp1"), ("quick", "mahdavi.other"),
                          ("full", "mahdavi.shared"), ("quick", "kajitsuka.named"),
                          ("ci", "dana.exp2")]:
        _write_result(results, profile, name, 1)
    return {"package": package, "source": source, "results": results}


def _key(tree, profile: str = "quick", chapter: str = "dana", reads_all: bool = False,
         device: str = "cpu") -> dict:
    return keys.compute_key(chapter, tree["source"], profile, package=tree["package"],
                            results_root=tree["results"], reads_all=reads_all, device=device)


def test_key_is_stable_when_nothing_changes(tree):
    assert keys.key_digest(_key(tree)) == keys.key_digest(_key(tree))


def test_chapter_reads_its_papers_results_and_those_it_names(tree):
    # dana.*: the paper's own; kajitsuka.named: named in the notebook; mahdavi.shared: named in
    # memnb/scorecard/dana.py; mahdavi.other: neither; dana.exp2 exists only under ci
    assert _key(tree)["experiments"] == ["dana.exp1", "kajitsuka.named", "mahdavi.shared"]
    assert _key(tree, reads_all=True)["experiments"] == [
        "dana.exp1", "kajitsuka.named", "mahdavi.other", "mahdavi.shared"]
    assert _key(tree, profile="ci")["experiments"] == ["dana.exp1", "dana.exp2", "mahdavi.shared"]


@pytest.mark.parametrize("change", [
    "notebook", "memnb edit", "memnb new file", "memnb data file", "profile", "device",
    "own result",
    "own full result", "own rerun under way", "own replication", "named result",
    "new result of the paper"])
def test_key_changes_when_an_input_changes(tree, change):
    before = _key(tree)
    profile, device = "quick", "cpu"
    if change == "notebook":
        nb = nbformat.read(tree["source"], as_version=4)
        nb.cells.append(nbformat.v4.new_markdown_cell("More prose."))
        nbformat.write(nb, tree["source"])
        field = "notebook"
    elif change == "memnb edit":
        (tree["package"] / "core.py").write_text("A = 2\n")
        field = "memnb"
    elif change == "memnb new file":
        (tree["package"] / "scorecard" / "extra.py").write_text("")
        field = "memnb"
    elif change == "memnb data file":
        (tree["package"] / "values.csv").write_text("a\n1\n")
        field = "memnb"
    elif change == "profile":
        profile, field = "full", "profile"
    elif change == "device":
        device, field = "cuda", "device"
    elif change == "own result":
        _write_result(tree["results"], "quick", "dana.exp1", 2)
        field = "results"
    elif change == "own full result":
        _write_result(tree["results"], "full", "dana.exp1", 2)
        field = "results"
    elif change == "own rerun under way":  # its progress is in the chapter's notes
        _write_result(tree["results"], "rerun/full", "dana.exp1", 2)
        field = "results"
    elif change == "own replication":  # the chapter compares it with the full run
        _write_result(tree["results"], "replications/full", "dana.exp1", 2)
        field = "results"
    elif change == "named result":
        _write_result(tree["results"], "quick", "kajitsuka.named", 2)
        field = "results"
    else:
        _write_result(tree["results"], "full", "dana.exp3", 1)
        field = "experiments"
    after = _key(tree, profile=profile, device=device)
    assert keys.key_digest(after) != keys.key_digest(before)
    assert after[field] != before[field]


def test_key_ignores_results_the_chapter_does_not_read(tree):
    before = _key(tree)
    _write_result(tree["results"], "quick", "mahdavi.other", 2)
    _write_result(tree["results"], "full", "mahdavi.unrelated", 1)
    assert keys.key_digest(_key(tree)) == keys.key_digest(before)
    # ... while the scorecard, which reads every result, sees them
    assert "mahdavi.unrelated" in _key(tree, reads_all=True)["experiments"]


def test_stored_key_decides_whether_to_execute(tree, tmp_path):
    executed = tmp_path / "chapters" / "dana.ipynb"
    key = _key(tree)
    assert keys.changed_fields(executed, key) == ["no executed copy"]
    executed.parent.mkdir()
    executed.write_text("{}")
    assert keys.changed_fields(executed, key) == ["no stored key"]
    path = keys.write_key(executed, key, seconds=1.5)
    assert path == executed.parent / "dana.key.json"
    assert keys.changed_fields(executed, key) == []
    (tree["package"] / "core.py").write_text("A = 3\n")
    assert keys.changed_fields(executed, _key(tree)) == ["memnb"]
    assert keys.changed_fields(executed, _key(tree, profile="ci")) == [
        "memnb", "profile", "experiments", "results"]


def test_scorecard_is_listed_first_and_executed_last():
    names = ["compare", "kajitsuka_sato", "scorecard", "extra", "dana", "mahdavi"]
    assert build.ordered_names(names) == [
        "scorecard", "dana", "mahdavi", "kajitsuka_sato", "compare", "extra"]
    assert build.execution_order(names) == [
        "dana", "mahdavi", "kajitsuka_sato", "compare", "extra", "scorecard"]
    # absent notebooks are simply left out
    assert build.execution_order(["mahdavi", "scorecard"]) == ["mahdavi", "scorecard"]
    assert build.ordered_names(["dana"]) == ["dana"]


def test_toc_lists_intro_scorecard_chapters_then_static_pages(tmp_path):
    from sphinx_external_toc.parsing import parse_toc_yaml

    text = build.toc_text(build.ordered_names(["compare", "dana", "scorecard"]),
                          ["running_at_scale", "reproducibility", "bibliography"])
    path = tmp_path / "_toc.yml"
    path.write_text(text)
    assert list(parse_toc_yaml(path)) == [
        "intro", "chapters/scorecard", "chapters/dana", "chapters/compare", "running_at_scale",
        "reproducibility", "bibliography"]


# ------------------------------------------------------------------ end to end, tiny notebooks


def _tiny_notebook(path: Path, text: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell('profile = "quick"', metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell(f"print({text!r}, profile)")]
    nbformat.write(nb, path)


@pytest.mark.notebook
def test_build_executes_changed_chapters_only(tree, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMNB_RESULTS_DIR", str(tree["results"]))
    monkeypatch.setattr(build, "CHAPTERS", tmp_path / "chapters")
    monkeypatch.setattr(build, "FAILED", tmp_path / "failed")
    monkeypatch.setattr(build, "PACKAGE", tree["package"])
    monkeypatch.setattr(build, "REPO", tmp_path)
    sources = tmp_path / "notebooks"
    sources.mkdir()
    _tiny_notebook(sources / "dana.ipynb", "one")
    _tiny_notebook(sources / "scorecard.ipynb", "all")
    notebooks = build.source_notebooks(sources)

    first = build.execute_all(notebooks, "ci")
    assert list(first.items()) == [("dana", "executed"), ("scorecard", "executed")]
    assert build.execute_all(notebooks, "ci") == {"dana": "reused", "scorecard": "reused"}
    captured = capsys.readouterr()
    assert ("[1/2] dana: executing dana.ipynb with profile=ci, device=cpu (no executed copy)"
            in captured.out)
    assert "dana: up to date" in captured.out
    # progress per cell goes to the terminal, never into the executed notebook
    assert "[book] dana cell 3/3 (0:" in captured.err  # parameters, injected, print
    assert "print('one', profile)" in captured.err
    assert "cell/s" not in (tmp_path / "chapters" / "dana.ipynb").read_text()

    _tiny_notebook(sources / "dana.ipynb", "two")  # the chapter's notebook changed
    assert build.execute_all(notebooks, "ci") == {"dana": "executed", "scorecard": "reused"}
    assert "(notebook changed)" in capsys.readouterr().out
    _write_result(tree["results"], "ci", "mahdavi.other", 5)  # only the scorecard reads it
    assert build.execute_all(notebooks, "ci") == {"dana": "reused", "scorecard": "executed"}
    assert build.execute_all(notebooks, "quick") == {"dana": "executed",
                                                     "scorecard": "executed"}
    assert build.execute_all(notebooks, "quick", force=True, only="dana") == {"dana": "executed"}
    executed = nbformat.read(tmp_path / "chapters" / "dana.ipynb", as_version=4)
    assert executed.metadata.papermill.parameters == {"profile": "quick"}
    stored = json.loads((tmp_path / "chapters" / "dana.key.json").read_text())
    assert stored["profile"] == "quick" and stored["seconds"] > 0
    assert stored["environment"]["python"]
    capsys.readouterr()
    monkeypatch.setattr(build, "outside_inputs", lambda: "another dataset file")
    assert build.execute_all(notebooks, "quick") == {"dana": "executed",
                                                     "scorecard": "executed"}
    assert "(datasets, papers' files or packages changed)" in capsys.readouterr().out


def test_cell_reporter_reports_code_cells_and_slow_ones():
    import io

    from buildtools.progress import CellReporter, first_line

    cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("\n\nx = 1\ny"),
             nbformat.v4.new_code_cell("z = 2")]
    stream = io.StringIO()
    reporter = CellReporter("dana", cells, stream=stream, slow_s=0.0)
    for cell in cells:
        reporter.start(cell)
        reporter.complete(cell)
    reporter.finish()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[book] dana cell 1/2 (0:00): x = 1"
    assert lines[1].startswith("[book] dana cell 1/2 took 0 s: x = 1")
    assert lines[2] == "[book] dana cell 2/2 (0:00): z = 2"
    assert len(lines) == 4
    assert first_line("a" * 100, width=10) == "a" * 9 + "…"


def test_device_is_a_parameter_only_of_notebooks_that_declare_one(tmp_path):
    declares, silent = tmp_path / "a.ipynb", tmp_path / "b.ipynb"
    for path, source in [(declares, 'profile = "quick"\ndevice = "cpu"'),
                         (silent, 'profile = "quick"')]:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(source, metadata={"tags": ["parameters"]})]
        nbformat.write(nb, path)
    assert build.notebook_parameters(declares, "ci", "cuda") == {"profile": "ci",
                                                                 "device": "cuda"}
    assert build.notebook_parameters(silent, "ci", "cuda") == {"profile": "ci"}


def test_build_refuses_a_device_it_cannot_use():
    import torch

    assert build.check_device("cpu") == "cpu"
    with pytest.raises(build.BuildError, match="--device tpu: device must be 'cpu' or"):
        build.check_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(build.BuildError, match="no CUDA GPU is available"):
            build.check_device("cuda")
    assert build.main(["--device", "tpu", "--no-html", "--only", "none"]) == 1


def test_inputs_digest_changes_with_data_papers_and_packages(tmp_path):
    """What the chapters read from outside the checkout is part of every chapter's key."""
    papers = tmp_path / "papers"
    (papers / "sources").mkdir(parents=True)
    (papers / "sources" / "text.txt").write_text("camera-ready\n")
    data, packages = {"imdb/train_subset.jsonl": "aa"}, ["numpy==2.0", "torch==2.13.0"]
    first = keys.inputs_digest(data, [papers, tmp_path / "absent"], packages)
    assert first == keys.inputs_digest(data, [papers], reversed(packages))
    assert first != keys.inputs_digest({"imdb/train_subset.jsonl": "bb"}, [papers], packages)
    assert first != keys.inputs_digest(data, [papers], ["numpy==2.1", "torch==2.13.0"])
    (papers / "sources" / "text.txt").write_text("camera-ready, corrected\n")
    assert first != keys.inputs_digest(data, [papers], packages)


def test_build_executes_again_when_a_papers_or_data_file_changes(tmp_path, monkeypatch):
    """build.outside_inputs reads the papers' folder (MEMNB_PAPERS_DIR) and the data folder
    (MEMNB_DATA_DIR) as the chapters would: changing a file in either changes every key."""
    papers, data = tmp_path / "papers", tmp_path / "data"
    (papers / "dana_official_results").mkdir(parents=True)
    (papers / "dana_official_results" / "Data_exp_2.csv").write_text("acc\n0.5\n")
    (data / "imdb").mkdir(parents=True)
    (data / "imdb" / "train_subset.jsonl").write_text('{"text": "good", "label": 1}\n')
    monkeypatch.setenv("MEMNB_PAPERS_DIR", str(papers))
    monkeypatch.setenv("MEMNB_DATA_DIR", str(data))
    first = build.outside_inputs()
    assert build.outside_inputs() == first
    (papers / "dana_official_results" / "Data_exp_2.csv").write_text("acc\n0.6\n")
    second = build.outside_inputs()
    assert second != first
    (data / "imdb" / "train_subset.jsonl").write_text('{"text": "bad", "label": 0}\n')
    assert build.outside_inputs() != second
    monkeypatch.setenv("MEMNB_DATA_DIR", str(tmp_path / "no such folder"))
    assert build.outside_inputs() not in (first, second)  # the error, not an exception
