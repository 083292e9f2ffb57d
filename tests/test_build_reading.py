"""An executed chapter prepared for reading (book/buildtools/reading.py): the parameters cells
are removed from the page, one generated line states the values in effect, the change is
idempotent, and the source notebook is never touched."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent


if str(REPO / "book") not in sys.path:  # book/buildtools is imported as book/build.py does
    sys.path.insert(0, str(REPO / "book"))

from buildtools import reading  # noqa: E402


def _executed() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell('profile = "quick"\ndevice = "cpu"\nseeds = None',
                                  metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell('# Parameters\nprofile = "ci"\n',
                                  metadata={"tags": ["injected-parameters"]}),
        nbformat.v4.new_code_cell("import memnb", metadata={"tags": ["hide-input"]}),
    ]
    return nb


def test_parameters_cells_are_removed_and_their_values_shown_once():
    nb = _executed()
    assert reading.prepare_for_reading(nb)
    removed = [c for c in nb.cells if "remove-cell" in c.metadata.get("tags", [])]
    assert [c.metadata["tags"][0] for c in removed] == ["parameters", "injected-parameters"]
    lines = [c for c in nb.cells if c.metadata.get(reading.GENERATED) == "parameters"]
    assert len(lines) == 1 and nb.cells.index(lines[0]) == 1  # where the parameters were
    # the injected value wins over the default; the others keep their defaults
    assert "`profile = 'ci'`" in lines[0].source
    assert "`device = 'cpu'`" in lines[0].source and "`seeds = None`" in lines[0].source
    assert "quick" not in lines[0].source
    assert nb.cells[4].metadata["tags"] == ["hide-input"]  # other cells untouched
    nbformat.validate(nb)


def test_preparing_twice_changes_nothing():
    nb = _executed()
    reading.prepare_for_reading(nb)
    once = nbformat.writes(nb)
    assert not reading.prepare_for_reading(nb)
    assert nbformat.writes(nb) == once


def test_a_notebook_without_parameters_is_left_alone():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1")]
    assert not reading.prepare_for_reading(nb)
    assert len(nb.cells) == 1


def test_prepare_file_rewrites_only_the_executed_copy(tmp_path):
    path = tmp_path / "chapter.ipynb"
    nbformat.write(_executed(), path)
    assert reading.prepare_file(path)
    stamp = path.stat().st_mtime_ns
    assert not reading.prepare_file(path)  # unchanged: not rewritten (Sphinx keeps its cache)
    assert path.stat().st_mtime_ns == stamp


def test_assigned_values_reads_literals_only():
    assert reading.assigned_values('a = 1\nb = "x"\nc = f(2)\nd = [1, 2]') == {
        "a": 1, "b": "x", "d": [1, 2]}
    assert reading.assigned_values("this is not python(") == {}


def test_source_notebooks_keep_their_parameters_cell_visible():
    # the build tags executed copies only: a source notebook never carries remove-cell on it
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            tags = cell.get("metadata", {}).get("tags", [])
            if "parameters" in tags:
                assert "remove-cell" not in tags, path.name


def _widget_output(model_id: str, text: str) -> dict:
    return nbformat.v4.new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": model_id, "version_major": 2,
                                                     "version_minor": 0},
        "text/plain": text})


def _model(children: list[str] | None = None) -> dict:
    state = {"children": [f"IPY_MODEL_{c}" for c in children]} if children else {"value": 1}
    return {"model_name": "HBoxModel" if children else "FloatProgressModel", "state": state}


def test_progress_bars_are_removed_with_the_widget_state_only_they_use():
    nb = _executed()
    bar = "exp1:  40%|####      | 4/10 [00:01<00:02,  3.10it/s]"
    nb.cells[3].outputs = [
        _widget_output("aa01", bar),
        nbformat.v4.new_output("stream", name="stderr", text=f"\r{bar}\r{bar}\n"),
        nbformat.v4.new_output("stream", name="stderr", text="UserWarning: real warning\n"),
        _widget_output("bb02", "IntSlider(value=3)"),
        nbformat.v4.new_output("stream", name="stdout", text="4/10 done\n"),
    ]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "state": {"aa01": _model(["aa02", "cc01"]), "aa02": _model(), "bb02": _model(["cc01"]),
                  "cc01": _model()}, "version_major": 2, "version_minor": 0}}
    assert reading.strip_progress_bars(nb) == 2
    kept = nb.cells[3].outputs
    assert [o.get("text", o.get("data", {}).get("text/plain")) for o in kept] == [
        "UserWarning: real warning\n", "IntSlider(value=3)", "4/10 done\n"]
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    assert set(state) == {"bb02", "cc01"}  # cc01 is shared with the slider: kept
    assert reading.strip_progress_bars(nb) == 0


def test_widget_metadata_goes_when_only_progress_bars_used_it():
    nb = _executed()
    nb.cells[3].outputs = [_widget_output("aa01", "x: 100%|##########| 3/3 [00:00<00:00]")]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "state": {"aa01": _model()}, "version_major": 2, "version_minor": 0}}
    assert reading.prepare_for_reading(nb)
    assert nb.cells[4].outputs == [] and "widgets" not in nb.metadata


def test_parameters_line_says_what_a_parameter_left_at_none_means():
    parameters_line = reading.parameters_line
    line = parameters_line({"profile": "quick", "seeds": None})
    assert line.startswith("*Executed with* `profile = 'quick'`, `seeds = None` (each experiment's")
    assert "`seeds = 3`" in parameters_line({"seeds": 3}) and "(each" not in parameters_line(
        {"seeds": 3})
    assert parameters_line({}) == "*Executed without parameters.*"
